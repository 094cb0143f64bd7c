#include "fastslow/io/memory_budget.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <mutex>

#include "fastslow/error.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/heap.h>
#else
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace fastslow {

namespace {

struct Limit {
  uint64_t bytes = 0;
  std::string what;  // "physical memory", "the address-space limit set by ulimit -v", ...
};

#ifndef __EMSCRIPTEN__
// A cgroup limit file's value: "max" (v2) or a number near 2^63 (v1) is no limit.
uint64_t cgroup_value(const std::string& path) {
  std::ifstream f(path);
  std::string text;
  if (!(f >> text) || text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  return v >= (uint64_t(1) << 60) ? 0 : static_cast<uint64_t>(v);
}

// The smallest memory limit of this process's cgroup and its ancestors (v2:
// memory.max; v1: memory.limit_in_bytes), 0 when there is none.
uint64_t cgroup_limit() {
  uint64_t best = 0;
  auto take = [&](uint64_t v) {
    if (v > 0 && (best == 0 || v < best)) best = v;
  };
  std::ifstream f("/proc/self/cgroup");
  std::string line;
  while (std::getline(f, line)) {
    // "0::/path" (v2) or "4:memory:/path" (v1)
    const size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    std::string path = line.substr(b + 1);
    std::string base, file;
    if (controllers.empty()) {
      base = "/sys/fs/cgroup";
      file = "memory.max";
    } else if (controllers == "memory" || controllers.find("memory,") == 0 ||
               controllers.find(",memory") != std::string::npos) {
      base = "/sys/fs/cgroup/memory";
      file = "memory.limit_in_bytes";
    } else {
      continue;
    }
    // The process's group and each ancestor up to the root: any may limit.
    while (true) {
      take(cgroup_value(base + (path == "/" ? "" : path) + "/" + file));
      if (path.empty() || path == "/") break;
      const size_t slash = path.find_last_of('/');
      path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
    }
  }
  return best;
}
#endif

Limit detect_limit() {
#ifdef __EMSCRIPTEN__
  return {static_cast<uint64_t>(emscripten_get_heap_max()), "the page's wasm memory limit"};
#else
  Limit l;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  l.bytes = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : uint64_t(4) << 30;
  l.what = "physical memory";
  auto lower = [&](uint64_t v, const char* what) {
    if (v > 0 && v < l.bytes) l = {v, what};
  };
  struct rlimit r {};
  if (::getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
    lower(static_cast<uint64_t>(r.rlim_cur), "the address-space limit set by ulimit -v");
  if (::getrlimit(RLIMIT_DATA, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
    lower(static_cast<uint64_t>(r.rlim_cur), "the data-segment limit set by ulimit -d");
  lower(cgroup_limit(), "the cgroup's memory limit");
  return l;
#endif
}

const Limit& limit() {
  static const Limit l = detect_limit();
  return l;
}

struct State {
  std::mutex mu;
  bool set = false;
  uint64_t bytes = 0;
  std::string origin;
};

State& state() {
  static State s;
  return s;
}

std::string default_origin() {
#ifdef __EMSCRIPTEN__
  return "half of " + limit().what + " of " + format_bytes(limit().bytes);
#else
  return "half of " + limit().what + "; --max-memory changes it";
#endif
}

}  // namespace

uint64_t memory_limit() { return limit().bytes; }

uint64_t default_memory_budget() { return std::max<uint64_t>(1, limit().bytes / 2); }

uint64_t memory_budget() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.set ? s.bytes : default_memory_budget();
}

void set_memory_budget(uint64_t bytes, std::string origin) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.set = bytes > 0;
  s.bytes = bytes;
  s.origin = std::move(origin);
}

void check_memory_budget(uint64_t bytes, const std::string& file, const std::string& array,
                         const std::string& claim) {
  uint64_t budget;
  std::string origin;
  {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.set) {
      budget = s.bytes;
      origin = s.origin;
    } else {
      budget = default_memory_budget();
    }
  }
  if (bytes <= budget) return;
  if (origin.empty()) origin = default_origin();
  const std::string over = format_bytes(budget);
  // Sizes that round alike ("1.0 MB, over the memory budget of 1.0 MB") are
  // told in bytes too.
  if (claim.find(over) != std::string::npos)
    origin += "; " + std::to_string(bytes) + " bytes > " + std::to_string(budget);
  throw Error(file, array, claim + ", over the memory budget of " + over + " (" + origin + ")");
}

std::string format_bytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  static const char* const units[] = {"KB", "MB", "GB", "TB", "PB", "EB"};
  double v = static_cast<double>(bytes) / 1024;
  size_t u = 0;
  // 1023.6 KB would print as "1024 KB": move up a unit before rounding does.
  while (v >= 1023.5 && u + 1 < sizeof units / sizeof units[0]) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (v < 9.95)
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  else
    std::snprintf(buf, sizeof buf, "%.0f %s", v, units[u]);
  return buf;
}

bool parse_memory_size(std::string_view text, uint64_t* bytes) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  const size_t start = i;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == start) return false;
  const std::string number(text.substr(start, i - start));
  if (number.find('.') != number.rfind('.') || number == ".") return false;
  std::string unit;
  for (size_t k = i; k < text.size(); ++k)
    if (!std::isspace(static_cast<unsigned char>(text[k])))
      unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[k])));
  const double value = std::strtod(number.c_str(), nullptr);
  double scale;
  if (unit == "%") {
    if (value > 100) return false;
    scale = static_cast<double>(memory_limit()) / 100;
  } else {
    if (unit.size() >= 2 && unit.compare(unit.size() - 2, 2, "ib") == 0) unit.erase(unit.size() - 2);
    else if (unit.size() >= 2 && unit.back() == 'b') unit.pop_back();  // "8gb"
    static const std::string suffixes = "kmgtp";
    if (unit.empty() || unit == "b") {
      scale = 1;
    } else if (unit.size() == 1 && suffixes.find(unit[0]) != std::string::npos) {
      scale = std::ldexp(1.0, 10 * static_cast<int>(suffixes.find(unit[0]) + 1));
    } else {
      return false;
    }
  }
  const double b = std::floor(value * scale);
  if (!(b >= 1) || b >= 1.8e19) return false;
  *bytes = static_cast<uint64_t>(b);
  return true;
}

ScopedMemoryBudget::ScopedMemoryBudget(uint64_t bytes, std::string origin) {
  State& s = state();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    saved_bytes_ = s.bytes;
    saved_origin_ = s.origin;
    was_set_ = s.set;
  }
  set_memory_budget(bytes, std::move(origin));
}

ScopedMemoryBudget::~ScopedMemoryBudget() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.set = was_set_;
  s.bytes = saved_bytes_;
  s.origin = saved_origin_;
}

}  // namespace fastslow
