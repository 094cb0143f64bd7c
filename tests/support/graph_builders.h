// Small hand-made tile and layout graphs for the graph, validate, dedup and
// graph-info suites. A GraphArrays holds named arrays that a test can replace
// or drop before turning them into an in-memory .npz.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "fastslow/io/npz_reader.h"
#include "fastslow/io/npz_writer.h"

namespace fastslow::test {

class GraphArrays {
 public:
  // Adds or replaces an array (archive order is the order of first set()).
  template <class T>
  GraphArrays& set(const std::string& name, const std::vector<T>& values, std::vector<int64_t> shape) {
    Entry e{name, dtype_of<T>::value, std::move(shape), std::vector<uint8_t>(values.size() * sizeof(T))};
    if (!values.empty()) std::memcpy(e.bytes.data(), values.data(), e.bytes.size());
    for (Entry& old : entries_)
      if (old.name == name) {
        old = std::move(e);
        return *this;
      }
    entries_.push_back(std::move(e));
    return *this;
  }

  GraphArrays& erase(const std::string& name) {
    for (size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i].name == name) entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
    return *this;
  }

  std::vector<uint8_t> bytes(Compression c = Compression::Stored) const {
    NpzWriter w(c);
    for (const Entry& e : entries_) w.add(e.name, e.dtype, e.shape, e.bytes.data());
    return w.close_to_memory();
  }

  NpzReader reader(const std::string& file = "hand.npz", Compression c = Compression::Stored) const {
    return NpzReader::from_memory(file, bytes(c));
  }

 private:
  struct Entry {
    std::string name;
    DType dtype;
    std::vector<int64_t> shape;
    std::vector<uint8_t> bytes;
  };
  std::vector<Entry> entries_;
};

// The README's dtypes (int32 opcodes, edges, ids, layout runtimes) or the ones
// the published files hold (uint8 opcodes, int64 everywhere else).
enum class Dtypes { Documented, Real };

template <class T>
std::vector<T> cast_to(const std::vector<int64_t>& v) {
  return std::vector<T>(v.begin(), v.end());
}

// The hand-made graph's HLO part: 6 nodes in topological order, node features
// of width 7 (not 140), value of (i, j) = i * 10 + j / 4.
struct SmallNodes {
  static constexpr int64_t kNodes = 6, kNodeFeatWidth = 7;
  static float feat(int64_t i, int64_t j) { return static_cast<float>(i) * 10.0f + static_cast<float>(j) * 0.25f; }
  static std::vector<float> node_feat() {
    std::vector<float> f;
    for (int64_t i = 0; i < kNodes; ++i)
      for (int64_t j = 0; j < kNodeFeatWidth; ++j) f.push_back(feat(i, j));
    return f;
  }
  static std::vector<int64_t> opcodes() { return {25, 63, 26, 13, 34, 96}; }
  // Rows [u, v]: u consumes v, so u > v everywhere.
  static std::vector<int64_t> edges() { return {1, 0, 2, 0, 2, 1, 3, 2, 4, 3, 5, 4, 5, 1}; }
  static constexpr int64_t kEdges = 7;

  static void add(GraphArrays* a, Dtypes d) {
    a->set("node_feat", node_feat(), {kNodes, kNodeFeatWidth});
    if (d == Dtypes::Real) {
      a->set("node_opcode", cast_to<uint8_t>(opcodes()), {kNodes});
      a->set("edge_index", edges(), {kEdges, 2});
    } else {
      a->set("node_opcode", cast_to<int32_t>(opcodes()), {kNodes});
      a->set("edge_index", cast_to<int32_t>(edges()), {kEdges, 2});
    }
  }
};

// Layout: nodes 1, 3, 4 configurable, 5 configs of width 4 (not 18); configs
// 0 and 3 are identical, as are 1 and 4.
struct SmallLayout : SmallNodes {
  static constexpr int64_t kConfigurable = 3, kConfigs = 5, kConfigFeatWidth = 4;
  static std::vector<int64_t> config_ids() { return {1, 3, 4}; }
  static std::vector<float> config_feat() {
    const std::vector<std::vector<float>> rows = {
        {0, 1, 2, -1, 1, 0, -1, -1, 2, 1, 0, 3},
        {1, 0, 2, -1, 0, 1, -1, -1, 2, 1, 0, 3},
        {5, 4, 3, 2, 1, 0, -1, -1, 0, 0, 0, 0},
        {0, 1, 2, -1, 1, 0, -1, -1, 2, 1, 0, 3},
        {1, 0, 2, -1, 0, 1, -1, -1, 2, 1, 0, 3},
    };
    std::vector<float> out;
    for (const auto& r : rows) out.insert(out.end(), r.begin(), r.end());
    return out;
  }
  static std::vector<int64_t> runtime() { return {500, 700, 300, 400, 700}; }
  static std::vector<int64_t> splits() { return {0, 3}; }

  static GraphArrays arrays(Dtypes d = Dtypes::Real) {
    GraphArrays a;
    add(&a, d);
    a.set("node_config_feat", config_feat(), {kConfigs, kConfigurable, kConfigFeatWidth});
    if (d == Dtypes::Real) {
      a.set("node_config_ids", config_ids(), {kConfigurable});
      a.set("config_runtime", runtime(), {kConfigs});
      a.set("node_splits", splits(), {1, 2});
    } else {
      a.set("node_config_ids", cast_to<int32_t>(config_ids()), {kConfigurable});
      a.set("config_runtime", cast_to<int32_t>(runtime()), {kConfigs});
      a.set("node_splits", cast_to<int32_t>(splits()), {2});
    }
    return a;
  }
};

// Tile: 4 configs of width 5 (not 24); configs 1 and 3 are identical.
struct SmallTile : SmallNodes {
  static constexpr int64_t kConfigs = 4, kConfigFeatWidth = 5;
  static std::vector<float> config_feat() {
    return {1, 2, 3, 6, 6,  //
            4, 4, 1, 9, 16,  //
            2, 2, 2, 6, 8,  //
            4, 4, 1, 9, 16};
  }
  static std::vector<int64_t> runtime() { return {1000, 3000, 2000, 2500}; }
  static std::vector<int64_t> normalizers() { return {500, 1000, 500, 1000}; }

  static GraphArrays arrays(Dtypes d = Dtypes::Real) {
    GraphArrays a;
    add(&a, d);
    a.set("config_feat", config_feat(), {kConfigs, kConfigFeatWidth});
    a.set("config_runtime", runtime(), {kConfigs});
    a.set("config_runtime_normalizers", normalizers(), {kConfigs});
    return a;
  }
};

}  // namespace fastslow::test
