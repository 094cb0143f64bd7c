#include "fastslow/synth/tile_cost.h"

#include <cmath>
#include <string>

#include "fastslow/error.h"

namespace fastslow::synth {
namespace {

constexpr double kVpuOpsPerNs = 2048;
constexpr double kMxuBf16FlopsPerNs = 100000;
constexpr double kMxuF32FlopsPerNs = 25000;  // f32 matmuls take several bf16 passes
constexpr double kHbmBytesPerNs = 1200;
constexpr double kLaunchNs = 1000;
constexpr double kStepNs = 100;
constexpr double kDmaNs = 300;
constexpr double kSpillFactor = 3;

struct Tiles {
  std::vector<int64_t> k, t;  // kernel tile per iter dim, output block per out dim
};

Tiles read_tiles(const TileSpace& s, const float* c) {
  Tiles x;
  for (int i = 0; i < s.iter_rank(); ++i) x.k.push_back(static_cast<int64_t>(std::llround(c[kTileKernelCol + i])));
  for (int i = 0; i < s.out_rank(); ++i) x.t.push_back(static_cast<int64_t>(std::llround(c[kTileOutputCol + i])));
  return x;
}

double ceil_div(int64_t a, int64_t b) { return static_cast<double>((a + b - 1) / b); }

double padded(int64_t v, TileRole r) {
  const int64_t u = static_cast<int64_t>(r);
  return static_cast<double>((v + u - 1) / u * u);
}

double working_set(const TileSpace& s, const Tiles& x) {
  double out = 1, lhs = 1, rhs = 1, plain = 1;
  for (int i = 0; i < s.out_rank(); ++i) {
    const size_t u = static_cast<size_t>(i);
    const double p = padded(x.t[u], s.roles[u]);
    out *= p;
    if (s.side[u] != 2) lhs *= static_cast<double>(x.t[u]);
    if (s.side[u] != 1) rhs *= static_cast<double>(x.t[u]);
    plain *= static_cast<double>(x.t[u]);
  }
  double bytes = out * (s.elem_bytes + s.out_stream_bytes);
  if (s.contract > 0) {
    const double kk = padded(x.k.back(), TileRole::Lane);
    bytes += plain * kk * s.in_stream_bytes;
    if (s.lhs_bytes > 0) bytes += (lhs + rhs) * kk * s.elem_bytes;
  }
  return 2 * bytes;
}

}  // namespace

double tile_working_set(const TileSpace& s, const float* config24) { return working_set(s, read_tiles(s, config24)); }

TileCostTerms tile_cost_terms(const HloGraph&, const TileSpace& s, const float* config24) {
  const std::string problem = check_tile_config(s, config24);
  if (!problem.empty()) throw Error("tile_cost: illegal tile config: " + problem);
  const Tiles x = read_tiles(s, config24);

  double steps = 1, blocks = 1, executed = 1, useful = 1, lhs_reads = 1, rhs_reads = 1;
  for (int i = 0; i < s.iter_rank(); ++i) {
    const size_t u = static_cast<size_t>(i);
    const int64_t d = s.iter_dims[u], k = x.k[u];
    double n;
    if (i < s.out_rank()) {
      const int64_t t = x.t[u];
      n = static_cast<double>(d / t) * ceil_div(t, k) + (d % t ? ceil_div(d % t, k) : 0.0);
      const double b = ceil_div(d, t);
      blocks *= b;
      if (s.side[u] == 2) lhs_reads *= b;
      if (s.side[u] == 1) rhs_reads *= b;
    } else {
      n = ceil_div(d, k);
    }
    steps *= n;
    executed *= n * padded(k, s.roles[u]);
    useful *= static_cast<double>(d);
  }

  const double vpu = s.vpu_ops / kVpuOpsPerNs;
  const double mxu = s.mxu_flops / (s.bf16 ? kMxuBf16FlopsPerNs : kMxuF32FlopsPerNs);
  const double hbm = (s.once_bytes + s.lhs_bytes * lhs_reads + s.rhs_bytes * rhs_reads) / kHbmBytesPerNs;

  TileCostTerms c;
  c.compute = vpu + mxu + hbm;
  c.padding_waste = (executed / useful - 1) * (vpu + mxu + hbm / 2);
  c.per_tile_overhead = kLaunchNs + kStepNs * steps + kDmaNs * blocks * s.streams;
  const double ws = working_set(s, x);
  if (ws > kOnChipBytes) c.spill = kSpillFactor * (ws / kOnChipBytes) * (c.compute + c.padding_waste);
  return c;
}

double tile_runtime(const HloGraph& kernel, const TileSpace& s, const float* config24) {
  return tile_cost_terms(kernel, s, config24).total();
}

double tile_normalizer(const HloGraph& kernel, const TileSpace& s) {
  const std::vector<float> c = default_tile_config(kernel, s);
  return tile_runtime(kernel, s, c.data());
}

}  // namespace fastslow::synth
