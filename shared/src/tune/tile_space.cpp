#include "fastslow/tune/tile_space.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "fastslow/error.h"

namespace fastslow {
namespace {

constexpr int kPublishedWidth = 24, kBlockWidth = 8, kDims = 6;
// Node features (DATA.md): is_root, the shape's dims, its layout.
constexpr int kNodeWidth = 140, kIsRoot = 0, kShapeDims = 21, kLayoutDims = 134;
const char* const kBlockNames[] = {"kernel bounds", "output bounds", "input bounds"};

// A block's dims up to its last non-zero one: what the sum and product
// cover (the generator's convention and the published rows' alike).
void block_totals(const float* b, double& sum, double& product) {
  int rank = 0;
  for (int i = 0; i < kDims; ++i)
    if (b[i] != 0) rank = i + 1;
  sum = 0;
  product = rank == 0 ? 0.0 : 1.0;
  for (int i = 0; i < rank; ++i) sum += b[i], product *= b[i];
}

std::string number(float v) {
  char s[32];
  std::snprintf(s, sizeof s, "%g", static_cast<double>(v));
  return s;
}

}  // namespace

TileConfigSpace::TileConfigSpace(int64_t width, const std::vector<float>& rows, const std::vector<int64_t>& weight,
                                 SpaceKind kind, const std::vector<TileRoot>& roots)
    : kind_(kind), width_(width) {
  if (kind == SpaceKind::Orders)
    throw Error("--space orders is for layout graphs; a tile graph's spaces are menu, sizes and shape");
  if (width < 1 || rows.empty() || rows.size() % static_cast<size_t>(width) != 0)
    throw Error("tile config space: " + std::to_string(rows.size()) + " values are not whole configs of " + std::to_string(width));
  const int64_t count = static_cast<int64_t>(rows.size()) / width;
  if (!weight.empty() && static_cast<int64_t>(weight.size()) != count)
    throw Error("tile config space: " + std::to_string(weight.size()) + " weights for " + std::to_string(count) + " configs");
  for (size_t i = 0; i < rows.size(); ++i)
    if (!std::isfinite(rows[i]))
      throw Error("tile config space: config " + std::to_string(i / static_cast<size_t>(width)) + " column " +
                  std::to_string(i % static_cast<size_t>(width)) + " is not finite");
  const auto row = [&](int64_t c) { return rows.data() + c * width; };

  derived_ = width == kPublishedWidth;
  for (int64_t c = 0; c < count && derived_; ++c)
    for (int b = 0; b < 3; ++b) {
      double sum = 0, product = 0;
      block_totals(row(c) + b * kBlockWidth, sum, product);
      if (row(c)[b * kBlockWidth + 6] != static_cast<float>(sum) || row(c)[b * kBlockWidth + 7] != static_cast<float>(product))
        derived_ = false;
    }

  // Per column: the values the file holds (with their weight), then what
  // the space allows there.
  std::vector<std::map<float, int64_t>> seen(static_cast<size_t>(width));
  for (int64_t c = 0; c < count; ++c)
    for (int col = 0; col < width; ++col) seen[static_cast<size_t>(col)][row(c)[col]] += weight.empty() ? 1 : weight[static_cast<size_t>(c)];
  std::vector<std::vector<float>> allowed(static_cast<size_t>(width));
  for (int col = 0; col < width; ++col)
    for (const auto& [v, n] : seen[static_cast<size_t>(col)]) allowed[static_cast<size_t>(col)].push_back(v);
  if (kind == SpaceKind::Shape) shape_sizes(rows, count, roots, allowed);
  else if (kind == SpaceKind::Sizes)
    for (auto& values : allowed) {
      float lo = 0;
      for (float v : values)
        if (v > 0) {
          lo = v;
          break;
        }
      const float hi = values.back();
      if (lo > 0)
        for (double p = std::exp2(std::ceil(std::log2(lo))); p <= hi; p *= 2) values.push_back(static_cast<float>(p));
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
    }

  fixed_.assign(static_cast<size_t>(width), 0.0f);
  is_free_.assign(static_cast<size_t>(width), 0);
  for (int col = 0; col < width; ++col) {
    if (derived_ && col % kBlockWidth >= kDims) continue;
    float mode = seen[static_cast<size_t>(col)].begin()->first;
    int64_t most = 0;
    for (const auto& [v, n] : seen[static_cast<size_t>(col)])
      if (n > most) mode = v, most = n;
    if (allowed[static_cast<size_t>(col)].size() < 2) {
      fixed_[static_cast<size_t>(col)] = mode;
      continue;
    }
    TileDim d;
    d.col = col;
    d.mode = mode;
    d.values = std::move(allowed[static_cast<size_t>(col)]);
    is_free_[static_cast<size_t>(col)] = 1;
    free_.push_back(std::move(d));
  }
  if (width == kPublishedWidth)
    for (int i = 0; i < kDims; ++i) {
      const int k = i, o = kBlockWidth + i;
      if (!is_free_[static_cast<size_t>(k)] && !is_free_[static_cast<size_t>(o)]) continue;
      bool keeps = true;
      for (int64_t c = 0; c < count && keeps; ++c) keeps = row(c)[o] >= row(c)[k];
      if (keeps) paired_.push_back(i);
    }
}

std::vector<TileRoot> tile_roots(int64_t num_nodes, int64_t width, const std::vector<float>& node_feat) {
  std::vector<TileRoot> roots;
  if (width != kNodeWidth || static_cast<int64_t>(node_feat.size()) != num_nodes * width) return roots;
  for (int64_t n = 0; n < num_nodes; ++n) {
    const float* f = node_feat.data() + n * width;
    if (f[kIsRoot] != 1.0f) continue;
    TileRoot r;
    for (int i = 0; i < kDims && f[kShapeDims + i] > 0; ++i) r.dims.push_back(static_cast<int64_t>(f[kShapeDims + i]));
    for (size_t i = 0; i < r.dims.size(); ++i) r.minor_to_major.push_back(static_cast<int>(f[kLayoutDims + i]));
    roots.push_back(std::move(r));
  }
  return roots;
}

std::vector<float> tpu_tile_sizes(int64_t extent, int unit) {
  std::vector<float> out = {static_cast<float>(extent)};
  for (int64_t p = 1; p <= extent; p *= 2) out.push_back(static_cast<float>(p));
  for (int64_t m = 1; unit > 0 && m <= 8 && unit * m <= extent; ++m) out.push_back(static_cast<float>(unit * m));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void TileConfigSpace::shape_sizes(const std::vector<float>& rows, int64_t count, const std::vector<TileRoot>& roots,
                                  std::vector<std::vector<float>>& allowed) const {
  if (!derived_)
    throw Error("--space shape reads published tile rows (24 values whose sums and products agree); use menu or sizes");
  // The output's rank: its last non-zero output bound in any config.
  int rank = 0;
  for (int64_t c = 0; c < count; ++c)
    for (int i = 0; i < kDims; ++i)
      if (rows[static_cast<size_t>(c * width_ + kBlockWidth + i)] != 0) rank = std::max(rank, i + 1);
  const auto fits = [&](int col, const std::vector<float>& sizes) {
    for (int64_t c = 0; c < count; ++c)
      if (!std::binary_search(sizes.begin(), sizes.end(), rows[static_cast<size_t>(c * width_ + col)])) return false;
    return true;
  };
  // The contraction's tile (the kernel bound after the output's dims):
  // a lane dim of an extent the rows do not give, so sizes up to the
  // largest the file holds, which the extent is at least.
  const auto contraction = [&] {
    if (rank >= kDims) return;
    std::vector<float>& k = allowed[static_cast<size_t>(rank)];
    if (k.back() <= 0) return;
    const auto most = static_cast<int64_t>(k.back());
    for (int64_t p = 1; p <= most; p *= 2) k.push_back(static_cast<float>(p));
    for (int64_t m = 1; m <= 8 && 128 * m <= most; ++m) k.push_back(static_cast<float>(128 * m));
    std::sort(k.begin(), k.end());
    k.erase(std::unique(k.begin(), k.end()), k.end());
    if (k.front() == 0 && k.size() > 1) k.erase(k.begin());  // a contraction the file always tiles
  };
  if (rank == 0) {  // a scalar output: only the contraction is tiled
    contraction();
    return;
  }
  for (const TileRoot& r : roots) {
    if (static_cast<int>(r.dims.size()) != rank) continue;
    std::vector<std::vector<float>> sizes(static_cast<size_t>(rank));
    bool ok = true;
    for (int i = 0; i < rank && ok; ++i) {
      const int unit = r.minor_to_major.empty() ? 0 : r.minor_to_major[0] == i ? 128 : rank >= 2 && r.minor_to_major[1] == i ? 8 : 0;
      sizes[static_cast<size_t>(i)] = tpu_tile_sizes(r.dims[static_cast<size_t>(i)], unit);
      ok = fits(i, sizes[static_cast<size_t>(i)]) && fits(kBlockWidth + i, sizes[static_cast<size_t>(i)]);
    }
    if (!ok) continue;
    for (int i = 0; i < rank; ++i) {
      allowed[static_cast<size_t>(i)] = sizes[static_cast<size_t>(i)];
      allowed[static_cast<size_t>(kBlockWidth + i)] = sizes[static_cast<size_t>(i)];
    }
    contraction();
    return;
  }
  throw Error("--space shape: the file's bounds are not TPU tile sizes of any root's output shape (real files' "
              "bounds are not); use menu or sizes");
}

const TileDim* TileConfigSpace::free_at(int col) const {
  for (const TileDim& d : free_)
    if (d.col == col) return &d;
  return nullptr;
}

std::string TileConfigSpace::column_name(int col) const {
  if (width_ != kPublishedWidth) return "column " + std::to_string(col);
  const int b = col / kBlockWidth, i = col % kBlockWidth;
  return std::string(kBlockNames[b]) + (i < kDims ? " dim " + std::to_string(i) : i == 6 ? " sum" : " product");
}

std::string TileConfigSpace::why_illegal(const float* c) const {
  for (int col = 0; col < width_; ++col) {
    const float v = c[col];
    if (!std::isfinite(v)) return column_name(col) + " is not finite";
    if (derived_ && col % kBlockWidth >= kDims) continue;
    if (!is_free_[static_cast<size_t>(col)]) {
      if (v != fixed_[static_cast<size_t>(col)])
        return column_name(col) + " is " + number(v) + "; every config of the file has " +
               number(fixed_[static_cast<size_t>(col)]) + " there";
      continue;
    }
    const TileDim& d = *free_at(col);
    if (!std::binary_search(d.values.begin(), d.values.end(), v))
      return column_name(col) + " is " + number(v) + ", not one of the " + std::to_string(d.values.size()) + " values " +
             (kind_ == SpaceKind::Menu    ? "the file holds there"
              : kind_ == SpaceKind::Sizes ? "of the file or powers of two between them"
                                          : "of the TPU's tile sizes there");
  }
  if (derived_)
    for (int b = 0; b < 3; ++b) {
      double sum = 0, product = 0;
      block_totals(c + b * kBlockWidth, sum, product);
      if (c[b * kBlockWidth + 6] != static_cast<float>(sum)) return std::string(kBlockNames[b]) + " sum is not the sum of its dims";
      if (c[b * kBlockWidth + 7] != static_cast<float>(product))
        return std::string(kBlockNames[b]) + " product is not the product of its dims";
    }
  for (int i : paired_)
    if (c[kBlockWidth + i] < c[i])
      return "output bound dim " + std::to_string(i) + " (" + number(c[kBlockWidth + i]) + ") is below its kernel bound (" +
             number(c[i]) + "), which no config of the file has";
  return "";
}

void TileConfigSpace::fill_derived(float* c) const {
  if (!derived_) return;
  for (int b = 0; b < 3; ++b) {
    double sum = 0, product = 0;
    block_totals(c + b * kBlockWidth, sum, product);
    c[b * kBlockWidth + 6] = static_cast<float>(sum);
    c[b * kBlockWidth + 7] = static_cast<float>(product);
  }
}

void TileConfigSpace::repair(float* c) const {
  for (int i : paired_) {
    float& k = c[i];
    float& o = c[kBlockWidth + i];
    if (o >= k) continue;
    const TileDim* od = free_at(kBlockWidth + i);
    const TileDim* kd = free_at(i);
    if (od) {
      const auto up = std::lower_bound(od->values.begin(), od->values.end(), k);
      if (up != od->values.end()) {
        o = *up;
        continue;
      }
      o = od->values.back();
    }
    // The output cannot rise to the kernel: lower the kernel. The file has
    // a config with the kernel at most the largest output, so one exists.
    if (kd) {
      const auto below = std::upper_bound(kd->values.begin(), kd->values.end(), o);
      if (below != kd->values.begin()) k = *(below - 1);
    }
  }
  fill_derived(c);
}

std::vector<float> TileConfigSpace::most_common() const {
  std::vector<float> c = fixed_;
  for (const TileDim& d : free_) c[static_cast<size_t>(d.col)] = d.mode;
  repair(c.data());
  return c;
}

void TileConfigSpace::random_config(Rng& rng, float* out) const {
  std::copy(fixed_.begin(), fixed_.end(), out);
  for (const TileDim& d : free_) out[d.col] = rng.pick(d.values);
  repair(out);
}

void TileConfigSpace::mutate(const float* parent, Rng& rng, float* child) const {
  std::copy(parent, parent + width_, child);
  if (free_.empty()) return;
  const int changes = rng.chance(0.3) ? 2 : 1;
  for (int n = 0; n < changes; ++n) {
    const TileDim& d = free_[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(free_.size()) - 1))];
    float& v = child[d.col];
    const double r = rng.uniform();
    if (r < 0.6) {
      // Step a tile size: the next legal value up or down.
      const auto at = static_cast<int64_t>(std::lower_bound(d.values.begin(), d.values.end(), v) - d.values.begin());
      const auto last = static_cast<int64_t>(d.values.size()) - 1;
      int64_t to = rng.chance(0.5) ? at + 1 : at - 1;
      if (to > last) to = at - 1;
      if (to < 0) to = std::min<int64_t>(at + 1, last);
      v = d.values[static_cast<size_t>(to)];
    } else if (r < 0.8) {
      v = d.mode;
    } else {
      v = rng.pick(d.values);
    }
  }
  repair(child);
}

void TileConfigSpace::crossover(const float* a, const float* b, Rng& rng, float* child) const {
  std::copy(a, a + width_, child);
  for (const TileDim& d : free_)
    if (rng.chance(0.5)) child[d.col] = b[d.col];
  repair(child);
}

int64_t TileConfigSpace::for_each_config(int64_t limit, const std::function<void(const float*)>& visit) const {
  double combinations = 1;
  for (const TileDim& d : free_) combinations *= static_cast<double>(d.values.size());
  if (combinations > static_cast<double>(limit)) return -1;
  std::vector<float> c = fixed_;
  std::vector<size_t> at(free_.size(), 0);
  int64_t visited = 0;
  for (;;) {
    for (size_t i = 0; i < free_.size(); ++i) c[static_cast<size_t>(free_[i].col)] = free_[i].values[at[i]];
    bool legal = true;
    for (int i : paired_) legal = legal && c[static_cast<size_t>(kBlockWidth + i)] >= c[static_cast<size_t>(i)];
    if (legal) {
      fill_derived(c.data());
      visit(c.data());
      ++visited;
    }
    size_t k = 0;
    while (k < at.size() && ++at[k] == free_[k].values.size()) at[k++] = 0;
    if (k == at.size()) return visited;
  }
}

}  // namespace fastslow
