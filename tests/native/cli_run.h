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

// `shell_prefix` runs first in the same shell, e.g. "ulimit -v 3000000; ".
inline CliResult run_cli_after(const std::string& shell_prefix, const std::string& args) {
  TempDir dir;
  const std::string err_path = dir.file("stderr");
  FILE* p = popen((shell_prefix + std::string(FASTSLOW_CLI) + " " + args + " 2>" + err_path).c_str(), "r");
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

inline CliResult run_cli(const std::string& args) { return run_cli_after("", args); }

}  // namespace fastslow::test
