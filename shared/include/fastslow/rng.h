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

// A seed for the draw identified by (a, b), e.g. (run seed, epoch): draws
// depend only on where they are made, never on what was drawn before, so a
// resumed run draws exactly what the uninterrupted run would have.
// (SplitMix64's finaliser over a and b.)
inline uint64_t mix_seed(uint64_t a, uint64_t b) {
  uint64_t z = a * 0x9e3779b97f4a7c15ull + b + 0x632be59bd9b4e019ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace fastslow
