#include "fastslow/view/op_family.h"

#include <string_view>

#include "fastslow/graph/hlo_tables.h"

namespace fastslow {

namespace {

bool in(std::string_view name, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names)
    if (n == name) return true;
  return false;
}

bool starts(std::string_view name, std::string_view prefix) { return name.substr(0, prefix.size()) == prefix; }

OpFamily classify(std::string_view op) {
  if (in(op, {"parameter", "constant", "iota", "rng", "rng-bit-generator", "rng-get-and-update-state"}))
    return OpFamily::Parameter;
  if (in(op, {"convolution", "dot", "fft", "triangular-solve", "cholesky", "custom-call"})) return OpFamily::Compute;
  if (in(op, {"reduce", "reduce-window", "reduce-precision", "sort", "scatter", "select-and-scatter", "batch-norm-grad",
              "batch-norm-inference", "batch-norm-training", "reduce-scatter"}))
    return OpFamily::Reduction;
  if (in(op, {"reshape", "transpose", "broadcast", "slice", "dynamic-slice", "dynamic-update-slice", "concatenate",
              "pad", "gather", "copy", "copy-start", "copy-done", "reverse", "dynamic-reshape"}))
    return OpFamily::Movement;
  if (in(op, {"tuple", "get-tuple-element", "call", "while", "conditional", "fusion", "bitcast", "after-all",
              "add-dependency", "domain", "get-dimension-size", "set-dimension-size", "optimization-barrier",
              "partition-id", "replica-id", "trace", "tuple-select"}))
    return OpFamily::Control;
  if (starts(op, "all-") || starts(op, "collective-") || in(op, {"send", "send-done", "recv", "recv-done", "infeed",
                                                                   "outfeed", "reduce-scatter", "async-start",
                                                                   "async-update", "async-done"}))
    return OpFamily::Communication;
  if (op.empty()) return OpFamily::Other;
  return OpFamily::Elementwise;  // the rest of the table: arithmetic, logic, math, select, clamp, convert, ...
}

}  // namespace

OpFamily op_family(int opcode_id) { return classify(opcode_name(opcode_id)); }

const char* op_family_name(OpFamily f) {
  switch (f) {
    case OpFamily::Parameter: return "parameter / constant";
    case OpFamily::Compute: return "convolution / dot";
    case OpFamily::Elementwise: return "elementwise";
    case OpFamily::Reduction: return "reduction / scatter";
    case OpFamily::Movement: return "data movement";
    case OpFamily::Control: return "tuple / control / fusion";
    case OpFamily::Communication: return "communication";
    case OpFamily::Other: return "unknown";
  }
  return "?";
}

uint32_t op_family_color(OpFamily f) {
  switch (f) {
    case OpFamily::Parameter: return 0x8c8c8c;
    case OpFamily::Compute: return 0xe8453c;
    case OpFamily::Elementwise: return 0x4c9be8;
    case OpFamily::Reduction: return 0xf2a93b;
    case OpFamily::Movement: return 0x5cc26b;
    case OpFamily::Control: return 0xb07ce8;
    case OpFamily::Communication: return 0xe85fb0;
    case OpFamily::Other: return 0xd8d8d8;
  }
  return 0xffffff;
}

}  // namespace fastslow
