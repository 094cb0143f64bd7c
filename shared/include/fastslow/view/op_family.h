// Opcode families for the explorer's colours and legend: a dozen groups a
// reader can tell apart, instead of 120 opcodes.
#pragma once

#include <cstdint>

namespace fastslow {

enum class OpFamily : uint8_t {
  Parameter,      // parameter, constant, iota, rng
  Compute,        // convolution, dot, fft, triangular-solve, cholesky, custom-call
  Elementwise,    // arithmetic, logic, math functions, select, clamp, convert
  Reduction,      // reduce, reduce-window, sort, scatter, select-and-scatter, batch-norm
  Movement,       // reshape, transpose, broadcast, slice, concatenate, pad, gather, copy, reverse
  Control,        // tuple, get-tuple-element, call, while, conditional, fusion, bitcast
  Communication,  // all-reduce, all-gather, all-to-all, collective-permute, send/recv, infeed/outfeed
  Other,
};
constexpr int kOpFamilies = 8;

OpFamily op_family(int opcode_id);
const char* op_family_name(OpFamily f);
// 0xRRGGBB per family, distinguishable on a dark background.
uint32_t op_family_color(OpFamily f);

}  // namespace fastslow
