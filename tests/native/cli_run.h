// Running the fastslow binary as a user does: a real process, its exit
// code, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "test_support.h"

namespace fastslow::test {

struct CliResult {
  int code;
  std::string out, err;
};

inline CliResult run_cli(const std::string& args) {
  TempDir dir;
  const std::string err_path = dir.file("stderr");
  FILE* p = popen((std::string(FASTSLOW_CLI) + " " + args + " 2>" + err_path).c_str(), "r");
  CliResult r{-1, "", ""};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  const std::vector<uint8_t> e = read_bytes(err_path);
  r.err.assign(e.begin(), e.end());
  return r;
}

}  // namespace fastslow::test
