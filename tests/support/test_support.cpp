#include "test_support.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#ifndef __EMSCRIPTEN__
#include <sys/wait.h>
#endif

namespace fs = std::filesystem;

namespace fastslow::test {

std::string shared_data(const std::string& name) {
  const std::string p = std::string(FASTSLOW_SHARED_DATA) + "/" + name;
  if (!fs::exists(p)) throw std::runtime_error("sample data missing: " + p + " (the repo expects ../shared beside it)");
  return p;
}

std::vector<uint8_t> fuzz_input(const std::string& target, const std::string& name) {
  const std::string p = std::string(FASTSLOW_FUZZ_CORPUS) + "/" + target + "/" + name;
  if (!fs::exists(p)) throw std::runtime_error("fuzz regression input missing: " + p);
  return read_bytes(p);
}

TempDir::TempDir() {
  // ctest runs test processes in parallel: retry until the name is ours.
  static std::atomic<int> counter{0};
  std::random_device rd;
  for (;;) {
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = (fs::temp_directory_path() / ("fastslow-test-" + std::to_string(stamp) + "-" +
                                          std::to_string(rd()) + "-" + std::to_string(counter++)))
                .string();
    if (fs::create_directories(path_)) return;
  }
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

bool numpy_available() {
#ifdef __EMSCRIPTEN__
  return false;
#else
  static const bool ok = run_python("import numpy\n") == 0;
  return ok;
#endif
}

int run_python(const std::string& script, std::string* out) {
#ifdef __EMSCRIPTEN__
  (void)script;
  (void)out;
  return -1;
#else
  TempDir dir;
  const std::string path = dir.file("script.py");
  std::ofstream(path) << script;
  FILE* p = popen(("/usr/bin/python3 " + path + " 2>&1").c_str(), "r");
  if (!p) return -1;
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
  const int rc = pclose(p);
  if (out) *out = text;
  else if (rc != 0) fprintf(stderr, "python failed:\n%s\n", text.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
#endif
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace fastslow::test

namespace fastslow::test {

std::vector<std::string> temp_files_beside(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string prefix = p.filename().string() + ".tmp";
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(p.parent_path()))
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path().string());
  return out;
}

}  // namespace fastslow::test
