// What every fuzz target shares. The core's fastslow::Error is the expected
// answer to bad input; anything else escapes to libFuzzer as a finding: a
// crash, another exception (uncaught, so std::terminate aborts), an ASan or
// UBSan report, a leak, an allocation over -malloc_limit_mb, a slow input
// over -timeout, or a failed FUZZ_CHECK (a property of accepted input).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "fastslow/error.h"

namespace fastslow::fuzz {

// Runs f; true when it returned, false when it threw fastslow::Error.
template <class F>
bool accepts(F&& f) {
  try {
    f();
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace fastslow::fuzz

#define FUZZ_CHECK(cond)                                                                   \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond);  \
      std::abort();                                                                        \
    }                                                                                      \
  } while (0)
