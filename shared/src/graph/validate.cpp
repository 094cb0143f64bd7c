#include "fastslow/graph/validate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <unordered_set>

#include "fastslow/error.h"

namespace fastslow {

namespace {

// Opcode ids of the published vocabulary (hlo_opcodes.tsv); 97 and 101 are removed ops.
constexpr int kMaxOpcode = 120;

class Checker {
 public:
  std::vector<Problem> out;

  void add(Severity s, const std::string& array, std::string msg) { out.push_back({s, array, std::move(msg)}); }

  // Reports the count and the first offender instead of one line per element.
  template <class Pred>
  void count(Severity s, const std::string& array, size_t n, Pred bad, const std::string& what,
             const std::function<std::string(size_t)>& where) {
    size_t hits = 0, first = 0;
    for (size_t i = 0; i < n; ++i)
      if (bad(i) && hits++ == 0) first = i;
    if (hits)
      add(s, array, std::to_string(hits) + " " + what + " (first at " + where(first) + ")");
  }

  void finite(const std::string& array, const std::vector<float>& v, int64_t row_len) {
    FiniteCheck check(array, row_len);
    check.add(v.data(), static_cast<int64_t>(v.size()));
    check.report(&out);
  }

  void nodes(const GraphNodes& g) {
    const int64_t n = g.num_nodes;
    if (n == 0) add(Severity::Error, "node_feat", "graph has no nodes");
    finite("node_feat", g.node_feat, g.node_feat_width);
    count(Severity::Warning, "node_opcode", g.node_opcode.size(),
          [&](size_t i) { return g.node_opcode[i] < 0 || g.node_opcode[i] > kMaxOpcode; },
          "opcodes outside 0..120", [&](size_t i) { return "node " + std::to_string(i); });
    const auto& e = g.edge_index;
    const size_t m = e.size() / 2;
    auto in_range = [&](size_t k) { return e[2 * k] >= 0 && e[2 * k] < n && e[2 * k + 1] >= 0 && e[2 * k + 1] < n; };
    auto edge = [&](size_t k) {
      return "edge " + std::to_string(k) + " [" + std::to_string(e[2 * k]) + ", " + std::to_string(e[2 * k + 1]) + "]";
    };
    count(Severity::Error, "edge_index", m, [&](size_t k) { return !in_range(k); },
          "edges with a node id outside 0.." + std::to_string(n - 1), edge);
    count(Severity::Warning, "edge_index", m, [&](size_t k) { return e[2 * k] == e[2 * k + 1]; },
          "self-loops", edge);
    // Nodes are published in topological order: a consumer comes after its producer.
    count(Severity::Warning, "edge_index", m,
          [&](size_t k) { return in_range(k) && e[2 * k] < e[2 * k + 1]; },
          "edges against topological order (consumer before producer)", edge);
  }

  void runtimes(const std::string& array, const std::vector<int64_t>& r) {
    count(Severity::Error, array, r.size(), [&](size_t i) { return r[i] < 0; }, "negative runtimes",
          [](size_t i) { return "config " + std::to_string(i); });
    const size_t zeros = static_cast<size_t>(std::count(r.begin(), r.end(), 0));
    if (!r.empty() && zeros == r.size())
      add(Severity::Note, array, "all runtimes are zero (a test split: ranks can be written, not scored)");
    else if (zeros)
      add(Severity::Warning, array,
          std::to_string(zeros) + (zeros == 1 ? " config" : " configs") +
              " with runtime 0 among measured ones: taken as never measured, ranked but never trained on, "
              "scored against or looked up by tune");
  }
};

}  // namespace

void FiniteCheck::add(const float* v, int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    if (!std::isfinite(v[i]) && bad_++ == 0) first_ = seen_ + i;
  seen_ += count;
}

void FiniteCheck::report(std::vector<Problem>* out) const {
  if (bad_ == 0) return;
  const std::string where = row_elems_ <= 0 ? "element " + std::to_string(first_)
                                            : "[" + std::to_string(first_ / row_elems_) + ", " +
                                                  std::to_string(first_ % row_elems_) + "]";
  out->push_back({Severity::Error, array_, std::to_string(bad_) + " non-finite values (first at " + where + ")"});
}

void LayoutConfigCheck::add(const float* v, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    const float x = v[i];
    if (!std::isfinite(x)) {
      if (non_finite_++ == 0) first_non_finite_ = seen_ + i;
    } else if (!is_layout_value(x)) {
      if (out_of_range_++ == 0) first_out_of_range_ = seen_ + i, first_out_of_range_value_ = x;
    }
  }
  seen_ += count;
}

void LayoutConfigCheck::report(std::vector<Problem>* out) const {
  auto where = [&](int64_t i, const std::string& what) {
    if (row_elems_ <= 0) return std::string();
    return " (first at config " + std::to_string(i / row_elems_) + ", element " + std::to_string(i % row_elems_) +
           " of its row" + what + ")";
  };
  if (non_finite_)
    out->push_back({Severity::Error, "node_config_feat",
                    std::to_string(non_finite_) + " non-finite values" + where(first_non_finite_, "")});
  if (out_of_range_) {
    char value[32];
    std::snprintf(value, sizeof value, ": %g", static_cast<double>(first_out_of_range_value_));
    out->push_back({Severity::Warning, "node_config_feat",
                    std::to_string(out_of_range_) + " layout values outside the integers -1..5" +
                        where(first_out_of_range_, value)});
  }
}

const char* severity_name(Severity s) {
  static const char* const names[] = {"error", "warning", "note"};  // in the enum's order
  const auto i = static_cast<size_t>(s);
  return i < sizeof names / sizeof names[0] ? names[i] : "?";
}

std::vector<Problem> validate(const TileGraph& g) {
  Checker c;
  c.nodes(g);
  if (g.num_configs == 0) c.add(Severity::Error, "config_feat", "no configs");
  c.finite("config_feat", g.config_feat, g.config_feat_width);
  c.runtimes("config_runtime", g.config_runtime);
  const auto& z = g.config_runtime_normalizers;
  c.count(Severity::Error, "config_runtime_normalizers", z.size(), [&](size_t i) { return z[i] <= 0; },
          "normalizers that are not positive", [](size_t i) { return "config " + std::to_string(i); });
  return c.out;
}

std::vector<Problem> validate(const LayoutGraph& g) {
  Checker c;
  c.nodes(g);
  if (g.num_configs == 0) c.add(Severity::Error, "node_config_feat", "no configs");
  const auto& ids = g.node_config_ids;
  c.count(Severity::Error, "node_config_ids", ids.size(),
          [&](size_t i) { return ids[i] < 0 || ids[i] >= g.num_nodes; },
          "config node ids outside the graph", [](size_t i) { return "entry " + std::to_string(i); });
  std::unordered_set<int64_t> seen;
  c.count(Severity::Error, "node_config_ids", ids.size(), [&](size_t i) { return !seen.insert(ids[i]).second; },
          "repeated config node ids", [](size_t i) { return "entry " + std::to_string(i); });
  c.count(Severity::Warning, "node_config_ids", ids.size(), [&](size_t i) { return i > 0 && ids[i] <= ids[i - 1]; },
          "config node ids out of ascending order", [](size_t i) { return "entry " + std::to_string(i); });
  LayoutConfigCheck check(g.config_feat_width * g.num_configurable());
  check.add(g.node_config_feat.data(), static_cast<int64_t>(g.node_config_feat.size()));
  check.report(&c.out);
  c.runtimes("config_runtime", g.config_runtime);
  const auto& s = g.node_splits;
  c.count(Severity::Warning, "node_splits", s.size(),
          [&](size_t i) { return s[i] < 0 || s[i] > g.num_nodes || (i > 0 && s[i] <= s[i - 1]); },
          "computation starts out of range or not increasing", [](size_t i) { return "entry " + std::to_string(i); });
  return c.out;
}

std::vector<Problem> validate(const Graph& g) {
  return std::visit([](const auto& x) { return validate(x); }, g);
}

bool has_errors(const std::vector<Problem>& problems) {
  return std::any_of(problems.begin(), problems.end(), [](const Problem& p) { return p.severity == Severity::Error; });
}

void require_valid(const Graph& g) {
  for (const Problem& p : validate(g)) {
    if (p.severity == Severity::Error) {
      const std::string& file = std::visit([](const auto& x) -> const std::string& { return x.file; }, g);
      throw Error(file, p.array, p.message);
    }
  }
}

}  // namespace fastslow
