#include "fastslow/view/node_search.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <sstream>

#include "fastslow/error.h"
#include "fastslow/graph/hlo_tables.h"

namespace fastslow {

namespace {

constexpr int kShapeSlots = 6;

int shape_column(const GraphNodes& g) {
  if (g.node_feat_width != static_cast<int64_t>(node_feature_names().size())) return -1;
  return require_node_feature("shape_dimensions_0");
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() < 16 && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// One term of a step: a test on a node.
struct Term {
  enum Kind { Op, Id, Configurable, Rank, Shape, Dim } kind;
  std::vector<char> ops;       // Op: per opcode id
  std::vector<int64_t> shape;  // Shape: sizes, -1 for any
  int64_t value = 0;           // Id, Rank, Dim
};

struct Step {
  std::vector<Term> terms;
};

Error bad(const std::string& query, const std::string& why) { return Error("search '" + query + "': " + why); }

Term parse_term(const std::string& query, const std::string& word) {
  Term t{Term::Op, {}, {}, 0};
  const size_t colon = word.find(':');
  const std::string key = colon == std::string::npos ? "" : word.substr(0, colon);
  const std::string arg = colon == std::string::npos ? word : word.substr(colon + 1);
  auto number = [&](const std::string& s) {
    if (!all_digits(s)) throw bad(query, "'" + word + "' needs a whole number");
    return std::stoll(s);
  };
  if (word == "configurable" || word == "is:configurable") {
    t.kind = Term::Configurable;
  } else if (key.empty() && (all_digits(word) || (word[0] == '#' && all_digits(word.substr(1))))) {
    t.kind = Term::Id;
    t.value = number(word[0] == '#' ? word.substr(1) : word);
  } else if (key == "rank") {
    t.kind = Term::Rank;
    t.value = number(arg);
  } else if (key == "dim") {
    t.kind = Term::Dim;
    t.value = number(arg);
  } else if (key == "shape") {
    t.kind = Term::Shape;
    std::stringstream parts(arg);
    std::string p;
    while (std::getline(parts, p, 'x')) t.shape.push_back(p == "*" ? -1 : number(p));
    if (t.shape.empty() || static_cast<int>(t.shape.size()) > kShapeSlots)
      throw bad(query, "'" + word + "' needs 1 to 6 sizes joined by x (* for any), as in shape:8x128");
  } else if (key.empty() || key == "op") {
    if (arg.empty()) throw bad(query, "'" + word + "' names no opcode");
    t.ops.assign(static_cast<size_t>(opcode_count()) + 1, 0);
    const int exact = opcode_id(arg);
    if (exact > 0) {
      t.ops[exact] = 1;
    } else {
      for (int id = 1; id <= opcode_count(); ++id) t.ops[id] = std::strstr(opcode_name(id), arg.c_str()) != nullptr;
      if (std::find(t.ops.begin(), t.ops.end(), 1) == t.ops.end())
        throw bad(query, "no opcode name contains '" + arg + "'");
    }
  } else {
    throw bad(query, "unknown term '" + word + "' (terms: an opcode, #id, configurable, rank:N, shape:AxB, dim:N)");
  }
  return t;
}

std::vector<Step> parse(const std::string& query) {
  std::vector<Step> steps;
  const std::string q = lower(query);
  size_t from = 0;
  for (;;) {
    const size_t arrow = q.find("->", from);
    std::stringstream words(q.substr(from, arrow == std::string::npos ? std::string::npos : arrow - from));
    Step s;
    std::string w;
    while (words >> w) s.terms.push_back(parse_term(query, w));
    if (s.terms.empty() && (arrow != std::string::npos || !steps.empty())) throw bad(query, "a step of the pattern is empty");
    if (!s.terms.empty()) steps.push_back(std::move(s));
    if (arrow == std::string::npos) break;
    from = arrow + 2;
  }
  return steps;
}

bool meets(const Term& t, const GraphNodes& g, const std::vector<int8_t>& configurable, int shape_col, int64_t v) {
  switch (t.kind) {
    case Term::Op: {
      const int op = g.node_opcode[v];
      return op > 0 && op < static_cast<int>(t.ops.size()) && t.ops[op];
    }
    case Term::Id:
      return v == t.value;
    case Term::Configurable:
      return v < static_cast<int64_t>(configurable.size()) && configurable[v] != 0;
    case Term::Rank:
    case Term::Shape:
    case Term::Dim: {
      const float* f = &g.node_feat[v * g.node_feat_width + shape_col];
      int rank = 0;
      while (rank < kShapeSlots && f[rank] > 0) ++rank;
      if (t.kind == Term::Rank) return rank == t.value;
      if (t.kind == Term::Dim) return std::any_of(f, f + rank, [&](float d) { return static_cast<int64_t>(d) == t.value; });
      if (rank != static_cast<int>(t.shape.size())) return false;
      for (int i = 0; i < rank; ++i)
        if (t.shape[i] >= 0 && static_cast<int64_t>(f[i]) != t.shape[i]) return false;
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<int64_t> node_shape(const GraphNodes& g, int64_t node) {
  const int col = shape_column(g);
  std::vector<int64_t> dims;
  if (col < 0 || node < 0 || node >= g.num_nodes) return dims;
  const float* f = &g.node_feat[node * g.node_feat_width + col];
  for (int i = 0; i < kShapeSlots && f[i] > 0; ++i) dims.push_back(static_cast<int64_t>(f[i]));
  return dims;
}

std::string shape_text(const std::vector<int64_t>& dims) {
  if (dims.empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
  return s;
}

std::string node_shape_text(const GraphNodes& g, int64_t node) {
  return shape_column(g) < 0 ? "" : shape_text(node_shape(g, node));
}

NodeSearch search_nodes(const GraphNodes& g, const std::vector<int8_t>& configurable, const std::string& query) {
  NodeSearch r;
  const std::vector<Step> steps = parse(query);
  r.steps = static_cast<int>(steps.size());
  if (steps.empty()) return r;
  const int shape_col = shape_column(g);
  for (const Step& s : steps)
    for (const Term& t : s.terms)
      if ((t.kind == Term::Rank || t.kind == Term::Shape || t.kind == Term::Dim) && shape_col < 0)
        throw bad(query, "shapes are known only for the published 140 node feature columns; " + g.file + " has " +
                             std::to_string(g.node_feat_width));
  const int64_t n = g.num_nodes;
  for (int64_t id : g.edge_index)
    if (id < 0 || id >= n) throw Error(g.file + ": edge_index holds node id " + std::to_string(id) + " out of range");
  auto step_holds = [&](const Step& s, int64_t v) {
    return std::all_of(s.terms.begin(), s.terms.end(), [&](const Term& t) { return meets(t, g, configurable, shape_col, v); });
  };
  // reach[k][v]: v meets step k and, past the first step, consumes a node
  // that ends a match of steps 0..k-1.
  const size_t K = steps.size();
  std::vector<std::vector<char>> reach(K, std::vector<char>(static_cast<size_t>(n), 0));
  for (int64_t v = 0; v < n; ++v) reach[0][v] = step_holds(steps[0], v);
  const auto& e = g.edge_index;
  for (size_t k = 1; k < K; ++k)
    for (size_t i = 0; i + 1 < e.size(); i += 2) {
      const int64_t u = e[i], v = e[i + 1];  // u consumes v
      if (!reach[k][u] && reach[k - 1][v] && step_holds(steps[k], u)) reach[k][u] = 1;
    }
  // Backward: keep at step k only the nodes some full match passes through.
  std::vector<std::vector<char>> on = reach;
  for (size_t k = K - 1; k-- > 0;) {
    std::fill(on[k].begin(), on[k].end(), 0);
    for (size_t i = 0; i + 1 < e.size(); i += 2) {
      const int64_t u = e[i], v = e[i + 1];
      if (on[k + 1][u] && reach[k][v]) on[k][v] = 1;
    }
  }
  for (int64_t v = 0; v < n; ++v) {
    if (on[0][v]) r.starts.push_back(v);
    for (size_t k = 0; k < K; ++k)
      if (on[k][v]) {
        r.nodes.push_back(v);
        break;
      }
  }
  return r;
}

}  // namespace fastslow
