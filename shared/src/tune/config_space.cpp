#include "fastslow/tune/config_space.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>

#include "fastslow/error.h"

namespace fastslow {
namespace {

constexpr int kPublishedWidth = 18, kOrderSlots = 6;
const char* const kTensorNames[] = {"output", "input", "kernel"};

// The named dims of a -1 padded order, or false when it is not one
// (a value that is not a whole number >= 0 before the first -1, anything
// but -1 after it, or a dim named twice).
bool named_dims(const float* v, int width, std::vector<int>& dims) {
  dims.clear();
  int k = 0;
  while (k < width && v[k] >= 0) {
    if (!std::isfinite(v[k]) || v[k] != std::round(v[k]) || v[k] > 64) return false;
    dims.push_back(static_cast<int>(v[k]));
    ++k;
  }
  for (int i = k; i < width; ++i)
    if (v[i] != -1.0f) return false;
  std::vector<int> sorted = dims;
  std::sort(sorted.begin(), sorted.end());
  return std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
}

std::string describe(const float* v, int width) {
  std::string s = "[";
  for (int i = 0; i < width; ++i) {
    char b[24];
    std::snprintf(b, sizeof b, "%s%g", i ? " " : "", static_cast<double>(v[i]));
    s += b;
  }
  return s + "]";
}

}  // namespace

LayoutConfigSpace::LayoutConfigSpace(int64_t nc, int64_t width, const std::vector<float>& rows,
                                     const std::vector<int64_t>& weight, const LayoutContext& ctx, SpaceKind kind)
    : kind_(kind), nc_(nc), width_(width) {
  if (kind == SpaceKind::Sizes || kind == SpaceKind::Shape)
    throw Error(std::string("--space ") + space_kind_name(kind) + " is for tile graphs; a layout graph's spaces are menu and orders");
  if (nc < 1 || width < 1) throw Error("config space: a graph without configurable nodes has no layout configs");
  const int64_t row = nc * width;
  if (rows.empty() || rows.size() % static_cast<size_t>(row) != 0)
    throw Error("config space: " + std::to_string(rows.size()) + " values are not whole configs of " +
                std::to_string(nc) + " nodes x " + std::to_string(width));
  const int64_t count = static_cast<int64_t>(rows.size()) / row;
  if (!weight.empty() && static_cast<int64_t>(weight.size()) != count)
    throw Error("config space: " + std::to_string(weight.size()) + " weights for " + std::to_string(count) + " configs");
  if (ctx.num_config_nodes != nc)
    throw Error("config space: the layout context has " + std::to_string(ctx.num_config_nodes) + " nodes, the configs " +
                std::to_string(nc));
  const bool published = width == kPublishedWidth;
  const int per_node = published ? 3 : 1;
  groups_.resize(static_cast<size_t>(nc * per_node));
  for (int64_t j = 0; j < nc; ++j) {
    for (int t = 0; t < per_node; ++t) {
      LayoutGroup& g = groups_[static_cast<size_t>(j * per_node + t)];
      g.node = j;
      g.tensor = t;
      g.width = published ? kOrderSlots : static_cast<int>(width);
      g.offset = t * g.width;
      std::map<std::vector<float>, int64_t> seen;
      for (int64_t c = 0; c < count; ++c) {
        const float* v = rows.data() + c * row + j * width + g.offset;
        seen[std::vector<float>(v, v + g.width)] += weight.empty() ? 1 : weight[static_cast<size_t>(c)];
      }
      std::vector<std::pair<std::vector<float>, int64_t>> by_count(seen.begin(), seen.end());
      std::stable_sort(by_count.begin(), by_count.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
      for (auto& [v, n] : by_count) g.menu.push_back(v);
      if (!published) continue;
      // An order group when every order the file holds is one.
      g.orders = true;
      int max_dim = -1;
      std::vector<int> dims;
      for (const auto& v : g.menu) {
        if (!named_dims(v.data(), g.width, dims)) {
          g.orders = false;
          break;
        }
        if (dims.empty()) g.may_leave = true;
        else if (std::find(g.lengths.begin(), g.lengths.end(), static_cast<int>(dims.size())) == g.lengths.end())
          g.lengths.push_back(static_cast<int>(dims.size()));
        for (int d : dims) max_dim = std::max(max_dim, d);
      }
      std::sort(g.lengths.begin(), g.lengths.end());
      const float* block = ctx.values.data() + j * LayoutContext::kWidth + t * LayoutContext::kTensorWidth;
      int rank = 0;
      if (ctx.known)
        for (int i = 0; i < kOrderSlots; ++i)
          if (block[LayoutContext::kDims + i] > 0) rank = i + 1;
      g.rank = std::min(kOrderSlots, std::max(rank, max_dim + 1));
      // The built order, where the context has it whole; else row-major
      // (the last dim minor-most), as XLA lays a tensor out by default.
      std::vector<int> built;
      for (int i = 0; ctx.known && i < g.rank; ++i) built.push_back(static_cast<int>(block[LayoutContext::kLayout + i]));
      std::vector<int> sorted = built;
      std::sort(sorted.begin(), sorted.end());
      std::vector<int> iota(static_cast<size_t>(g.rank));
      std::iota(iota.begin(), iota.end(), 0);
      if (sorted != iota) {
        built = iota;
        std::reverse(built.begin(), built.end());
      }
      g.rest = built;
    }
  }
  if (published) {
    for (int64_t j = 0; j < nc; ++j) {
      const float* row_ctx = ctx.values.data() + j * LayoutContext::kWidth;
      const float producers[2] = {row_ctx[LayoutContext::kInProducer], row_ctx[LayoutContext::kKernelProducer]};
      for (int t = 1; t <= 2; ++t) {
        const auto p = static_cast<int64_t>(producers[t - 1]);
        if (p < 0 || p >= nc) continue;
        const int64_t self = j * 3 + t, source = p * 3;
        groups_[static_cast<size_t>(self)].producer = source;
        groups_[static_cast<size_t>(source)].consumers.push_back(self);
      }
    }
  }
  for (size_t i = 0; i < groups_.size(); ++i)
    if (can_change(groups_[i])) changeable_.push_back(static_cast<int64_t>(i));
}

bool LayoutConfigSpace::can_change(const LayoutGroup& g) const {
  if (g.menu.size() >= 2) return true;
  if (kind_ != SpaceKind::Orders || !g.orders || g.lengths.empty()) return false;
  return g.rank >= 2 || g.may_leave;
}

bool LayoutConfigSpace::legal_value(const LayoutGroup& g, const float* v) const {
  if (kind_ == SpaceKind::Menu || !g.orders) {
    for (const auto& m : g.menu)
      if (std::equal(m.begin(), m.end(), v)) return true;
    return false;
  }
  std::vector<int> dims;
  if (!named_dims(v, g.width, dims)) return false;
  if (dims.empty()) return g.may_leave;
  for (int d : dims)
    if (d >= g.rank) return false;
  return std::find(g.lengths.begin(), g.lengths.end(), static_cast<int>(dims.size())) != g.lengths.end();
}

std::string LayoutConfigSpace::why_illegal(const float* config) const {
  for (const LayoutGroup& g : groups_) {
    const float* v = config + g.node * width_ + g.offset;
    if (legal_value(g, v)) continue;
    std::string where = "node " + std::to_string(g.node) + " (" + (width_ == kPublishedWidth ? kTensorNames[g.tensor] : "row") + ")";
    std::string why;
    std::vector<int> dims;
    if (kind_ == SpaceKind::Menu || !g.orders) {
      why = "is not an order the file holds for it";
    } else if (!named_dims(v, g.width, dims)) {
      why = "is not a -1 padded list of distinct dims";
    } else if (dims.empty()) {
      why = "leaves the order to the compiler, which the file never does here";
    } else if (*std::max_element(dims.begin(), dims.end()) >= g.rank) {
      why = "names a dim beyond the tensor's rank " + std::to_string(g.rank);
    } else {
      why = "names " + std::to_string(dims.size()) + " dims; the file's orders here name";
      for (int k : g.lengths) why += " " + std::to_string(k);
    }
    return where + ": " + describe(v, g.width) + " " + why;
  }
  return "";
}

std::vector<float> LayoutConfigSpace::most_common() const {
  std::vector<float> out(static_cast<size_t>(row_elems()));
  for (const LayoutGroup& g : groups_)
    std::copy(g.menu.front().begin(), g.menu.front().end(), out.begin() + g.node * width_ + g.offset);
  return out;
}

void LayoutConfigSpace::random_value(const LayoutGroup& g, Rng& rng, float* v) const {
  if (kind_ == SpaceKind::Menu || !g.orders || g.lengths.empty()) {
    const auto& m = g.menu[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(g.menu.size()) - 1))];
    std::copy(m.begin(), m.end(), v);
    return;
  }
  std::fill(v, v + g.width, -1.0f);
  // Left to the compiler as often as the file's menu has it.
  if (g.may_leave && rng.chance(1.0 / static_cast<double>(g.menu.size()))) return;
  const int k = std::min(g.rank, g.lengths[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(g.lengths.size()) - 1))]);
  std::vector<int> dims(static_cast<size_t>(g.rank));
  std::iota(dims.begin(), dims.end(), 0);
  for (int i = 0; i < k; ++i) {
    const auto r = static_cast<size_t>(rng.uniform_int(i, g.rank - 1));
    std::swap(dims[static_cast<size_t>(i)], dims[r]);
    v[i] = static_cast<float>(dims[static_cast<size_t>(i)]);
  }
}

void LayoutConfigSpace::swap_value(const LayoutGroup& g, Rng& rng, float* v) const {
  if (kind_ == SpaceKind::Menu || !g.orders || g.lengths.empty()) {
    if (g.menu.size() < 2) return;
    std::vector<size_t> others;
    for (size_t i = 0; i < g.menu.size(); ++i)
      if (!std::equal(g.menu[i].begin(), g.menu[i].end(), v)) others.push_back(i);
    const auto& m = g.menu[others[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(others.size()) - 1))]];
    std::copy(m.begin(), m.end(), v);
    return;
  }
  std::vector<int> named;
  named_dims(v, g.width, named);
  if (named.empty() || g.rank < 2) {  // nothing to swap: another legal order
    std::vector<float> before(v, v + g.width);
    for (int tries = 0; tries < 8 && std::equal(before.begin(), before.end(), v); ++tries) random_value(g, rng, v);
    return;
  }
  // The whole order the partial one stands for, two of its dims swapped
  // (one of them named), cut back to as many named dims.
  std::vector<int> order = named;
  for (int d : g.rest)
    if (std::find(named.begin(), named.end(), d) == named.end()) order.push_back(d);
  const auto k = static_cast<int64_t>(named.size());
  const int64_t i = rng.uniform_int(0, k - 1);
  int64_t j = rng.uniform_int(0, static_cast<int64_t>(order.size()) - 2);
  if (j >= i) ++j;
  std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
  for (int64_t s = 0; s < k; ++s) v[s] = static_cast<float>(order[static_cast<size_t>(s)]);
}

void LayoutConfigSpace::mutate(const float* parent, Rng& rng, float* child) const {
  std::copy(parent, parent + row_elems(), child);
  if (changeable_.empty()) return;
  const int changes = rng.chance(0.3) ? 2 : 1;
  for (int c = 0; c < changes; ++c) {
    const LayoutGroup& g = groups_[static_cast<size_t>(
        changeable_[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(changeable_.size()) - 1))])];
    float* v = child + g.node * width_ + g.offset;
    const double u = rng.uniform();
    if (u < 0.25) {  // copy a neighbour's order: a relayout between them disappears
      int64_t source = g.producer;
      if (source < 0 && !g.consumers.empty()) source = rng.pick(g.consumers);
      if (source >= 0) {
        const LayoutGroup& s = groups_[static_cast<size_t>(source)];
        const float* sv = child + s.node * width_ + s.offset;
        if (s.width == g.width && !std::equal(sv, sv + s.width, v) && legal_value(g, sv)) {
          std::copy(sv, sv + s.width, v);
          continue;
        }
      }
    } else if (u < 0.5) {  // reset to the file's most common order
      const auto& m = g.menu.front();
      if (!std::equal(m.begin(), m.end(), v)) {
        std::copy(m.begin(), m.end(), v);
        continue;
      }
    }
    swap_value(g, rng, v);
  }
}

void LayoutConfigSpace::crossover(const float* a, const float* b, Rng& rng, float* child) const {
  for (int64_t j = 0; j < nc_; ++j) {
    const float* from = rng.chance(0.5) ? a : b;
    std::copy(from + j * width_, from + (j + 1) * width_, child + j * width_);
  }
}

void LayoutConfigSpace::random_config(Rng& rng, float* out) const {
  for (const LayoutGroup& g : groups_) random_value(g, rng, out + g.node * width_ + g.offset);
}

}  // namespace fastslow
