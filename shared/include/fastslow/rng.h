// Seeded random numbers for the generator, the holdout split and the
// trainer's sampling. std::mt19937_64's output is fixed by the standard, but
// the <random> distributions are not (libstdc++ and libc++ differ), so the
// draws are made here to keep results identical natively and in wasm.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace fastslow {

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  uint64_t next() { return engine_(); }
  // Uniform in [lo, hi], both included; throws if lo > hi.
  int64_t uniform_int(int64_t lo, int64_t hi);
  // Uniform in [0, 1).
  double uniform();
  bool chance(double p) { return uniform() < p; }
  // One of the values, uniformly.
  template <class T>
  T pick(const std::vector<T>& values) {
    return values[static_cast<size_t>(uniform_int(0, static_cast<int64_t>(values.size()) - 1))];
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace fastslow
