#include "fastslow/analysis/realism.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <nlohmann/json.hpp>

#include "fastslow/error.h"
#include "fastslow/graph/graph_info.h"
#include "fastslow/graph/hlo_tables.h"

namespace fastslow {
namespace {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(v.size() - 1, lo + 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

std::vector<double> values(const RealismGroup& g, double FileRealism::*field) {
  std::vector<double> v;
  for (const FileRealism& f : g.files)
    if (!std::isnan(f.*field)) v.push_back(f.*field);
  return v;
}

std::string pct(double v) {
  char b[16];
  if (std::isnan(v)) return "-";
  std::snprintf(b, sizeof b, "%.0f%%", 100 * v);
  return b;
}

std::string num(double v, const char* f = "%.3g") {
  char b[24];
  if (std::isnan(v)) return "-";
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// "median [min-max]" for groups of several files, the value alone for one.
std::string spread(const RealismGroup& g, double FileRealism::*field, std::string (*show)(double)) {
  const std::vector<double> v = values(g, field);
  if (v.empty()) return "-";
  if (v.size() == 1) return show(v[0]);
  return show(quantile(v, 0.5)) + " [" + show(*std::min_element(v.begin(), v.end())) + "-" +
         show(*std::max_element(v.begin(), v.end())) + "]";
}

std::string ratio(double v) { return num(v, "%.3g"); }
std::string plain(double v) { return num(v, "%.3g"); }
std::string tiny_pct(double v) {
  char b[16];
  if (std::isnan(v)) return "-";
  std::snprintf(b, sizeof b, "%.2g%%", 100 * v);
  return b;
}

}  // namespace

FileRealism file_realism(const NpzReader& npz) {
  GraphContents c;
  const GraphInfo info = graph_info(npz, &c);
  if (info.kind != GraphKind::Layout)
    throw Error(npz.file(), "", "is a tile file; the realism report covers layout graphs");
  const auto& g = std::get<LayoutGraph>(c.graph);
  FileRealism r;
  r.file = npz.file();
  r.nodes = info.nodes;
  r.edges = info.edges;
  r.configurable = info.configurable_nodes;
  r.configs = info.configs;
  r.unique_configs = info.unique_configs;

  // The measured configs' runtimes (0: never measured, left out).
  std::vector<double> best;
  for (double b : c.groups.best_runtime)
    if (b > 0) best.push_back(b);
  const bool measured = !best.empty();
  if (measured) {
    const double lo = *std::min_element(best.begin(), best.end());
    const double hi = *std::max_element(best.begin(), best.end());
    int64_t in01 = 0, in1 = 0, in5 = 0;
    double sum = 0, sq = 0;
    for (double b : best) {
      in01 += b <= lo * 1.001;
      in1 += b <= lo * 1.01;
      in5 += b <= lo * 1.05;
      const double l = std::log(std::max(b, 1e-9));
      sum += l;
      sq += l * l;
    }
    const double n = static_cast<double>(best.size());
    r.within01 = static_cast<double>(in01) / n;
    r.within1 = static_cast<double>(in1) / n;
    r.within5 = static_cast<double>(in5) / n;
    r.max_over_min = lo > 0 ? hi / lo : kNaN;
    r.log_sd = std::sqrt(std::max(0.0, sq / n - (sum / n) * (sum / n)));
    // First and second measurement of each config measured twice or more.
    const std::vector<double> rt = g.target();
    std::vector<double> first(c.groups.best_runtime.size(), -1);
    std::vector<double> spread;
    for (size_t i = 0; i < rt.size(); ++i) {
      if (!(rt[i] > 0)) continue;
      double& f = first[static_cast<size_t>(c.groups.group_of[i])];
      if (f < 0) {
        f = rt[i];
      } else if (f > 0) {
        spread.push_back(std::abs(f / rt[i] - 1));
        f = 0;  // one pair per config
      }
    }
    if (!spread.empty()) {
      r.dup_median = quantile(spread, 0.5);
      r.dup_max = *std::max_element(spread.begin(), spread.end());
    }
  }
  for (int32_t op : g.node_opcode) {
    r.family_share[static_cast<size_t>(op_family(op))] += 1;
    ++r.opcode_counts[op];
  }
  static const int dim4 = require_node_feature("shape_dimensions_4");
  if (g.node_feat_width == static_cast<int64_t>(node_feature_names().size()) && g.num_nodes > 0) {
    const auto rank5 = [&](int64_t v) { return g.node_feat[static_cast<size_t>(v * g.node_feat_width + dim4)] > 0; };
    int64_t all = 0, configured = 0;
    for (int64_t v = 0; v < g.num_nodes; ++v) all += rank5(v);
    for (int64_t v : g.node_config_ids) configured += rank5(v);
    r.rank5_share = static_cast<double>(all) / static_cast<double>(g.num_nodes);
    r.config_rank5_share =
        static_cast<double>(configured) / static_cast<double>(std::max<int64_t>(1, g.num_configurable()));
  }
  for (double& s : r.family_share) s /= static_cast<double>(std::max<int64_t>(1, g.num_nodes));
  std::vector<double> users(static_cast<size_t>(g.num_nodes), 0);
  for (int64_t e = 0; e < g.num_edges(); ++e) {
    const int64_t v = g.edge_index[static_cast<size_t>(2 * e + 1)];
    if (v >= 0 && v < g.num_nodes) users[static_cast<size_t>(v)] += 1;
  }
  r.max_fanout = users.empty() ? 0 : static_cast<int64_t>(*std::max_element(users.begin(), users.end()));
  r.fanout_p99 = quantile(users, 0.99);
  return r;
}

double realism_median(const RealismGroup& g, double FileRealism::*field) { return quantile(values(g, field), 0.5); }
double realism_min(const RealismGroup& g, double FileRealism::*field) {
  const auto v = values(g, field);
  return v.empty() ? kNaN : *std::min_element(v.begin(), v.end());
}
double realism_max(const RealismGroup& g, double FileRealism::*field) {
  const auto v = values(g, field);
  return v.empty() ? kNaN : *std::max_element(v.begin(), v.end());
}

double unseen_op_share(const RealismGroup& g, const std::vector<RealismGroup>& all) {
  if (g.dataset) return kNaN;
  std::set<int> seen;
  bool any = false;
  for (const RealismGroup& d : all) {
    if (!d.dataset) continue;
    any = true;
    for (const FileRealism& f : d.files)
      for (const auto& [op, n] : f.opcode_counts) seen.insert(op);
  }
  if (!any) return kNaN;
  int64_t unseen = 0, total = 0;
  for (const FileRealism& f : g.files)
    for (const auto& [op, n] : f.opcode_counts) {
      total += n;
      if (!seen.count(op)) unseen += n;
    }
  return total > 0 ? static_cast<double>(unseen) / static_cast<double>(total) : kNaN;
}

std::string realism_table(const std::vector<RealismGroup>& groups) {
  std::string out;
  char line[512];
  int w = 30;  // the name column: as wide as the longest name
  for (const RealismGroup& g : groups) w = std::max(w, static_cast<int>(std::min<size_t>(g.name.size(), 60)));
  std::snprintf(line, sizeof line, "%-*s %5s %-22s %-22s %-22s %-24s %-20s %-16s\n", w, "runtimes (unique configs)", "files",
                "within 0.1% of best", "within 1%", "within 5%", "max/min", "sd(log runtime)", "dup. spread");
  out += line;
  for (const RealismGroup& g : groups) {
    std::snprintf(line, sizeof line, "%-*s %5zu %-22s %-22s %-22s %-24s %-20s %-16s\n", w, g.name.c_str(), g.files.size(),
                  spread(g, &FileRealism::within01, pct).c_str(), spread(g, &FileRealism::within1, pct).c_str(),
                  spread(g, &FileRealism::within5, pct).c_str(),
                  spread(g, &FileRealism::max_over_min, ratio).c_str(), spread(g, &FileRealism::log_sd, plain).c_str(),
                  tiny_pct(realism_median(g, &FileRealism::dup_median)).c_str());
    out += line;
  }
  out += "\n";
  std::snprintf(line, sizeof line, "%-*s %7s %7s %9s %8s %8s %8s %8s %8s %8s %8s\n", w, "structure (medians)", "nodes",
                "config", "configs", "unique", "conv/dot", "elemwise", "movement", "control", "fan-out", "max fan");
  out += line;
  for (const RealismGroup& g : groups) {
    auto med_int = [&](int64_t FileRealism::*f) {
      std::vector<double> v;
      for (const FileRealism& x : g.files) v.push_back(static_cast<double>(x.*f));
      return quantile(v, 0.5);
    };
    auto fam = [&](OpFamily f) {
      std::vector<double> v;
      for (const FileRealism& x : g.files) v.push_back(x.family_share[static_cast<size_t>(f)]);
      return quantile(v, 0.5);
    };
    std::vector<double> uniq;
    for (const FileRealism& x : g.files)
      uniq.push_back(static_cast<double>(x.unique_configs) / static_cast<double>(std::max<int64_t>(1, x.configs)));
    std::vector<double> p99;
    for (const FileRealism& x : g.files) p99.push_back(x.fanout_p99);
    std::snprintf(line, sizeof line, "%-*s %7.0f %7.0f %9.0f %8s %8s %8s %8s %8s %8.1f %8.0f\n", w, g.name.c_str(),
                  med_int(&FileRealism::nodes), med_int(&FileRealism::configurable), med_int(&FileRealism::configs),
                  pct(quantile(uniq, 0.5)).c_str(), pct(fam(OpFamily::Compute)).c_str(),
                  pct(fam(OpFamily::Elementwise)).c_str(), pct(fam(OpFamily::Movement)).c_str(),
                  pct(fam(OpFamily::Control)).c_str(), quantile(p99, 0.5), med_int(&FileRealism::max_fanout));
    out += line;
  }
  out += "(fan-out: 99th percentile of users per node; dup. spread: median |first/second measurement - 1|)\n\n";
  // Tensors and opcodes, over all of a group's nodes: the share of 5-D
  // tensors and the commonest opcodes.
  std::snprintf(line, sizeof line, "%-*s %8s %9s %8s  %s\n", w, "ops and tensors", "rank>=5", "conf. >=5", "unseen",
                "commonest opcodes (share of nodes)");
  out += line;
  for (const RealismGroup& g : groups) {
    std::map<int, int64_t> ops;
    int64_t total = 0;
    for (const FileRealism& x : g.files)
      for (const auto& [op, n] : x.opcode_counts) ops[op] += n, total += n;
    std::vector<std::pair<int64_t, int>> top;
    for (const auto& [op, n] : ops) top.push_back({-n, op});
    std::sort(top.begin(), top.end());
    std::string names;
    for (size_t i = 0; i < top.size() && i < 6; ++i) {
      char b[64];
      std::snprintf(b, sizeof b, "%s%s %.0f%%", i ? ", " : "", opcode_name(top[i].second),
                    100.0 * static_cast<double>(-top[i].first) / static_cast<double>(std::max<int64_t>(1, total)));
      names += b;
    }
    // Pooled over the group's nodes (a median would hide a minority
    // template, as the training steps are of an xla collection).
    double r5 = 0, c5 = 0, nodes = 0, configurable = 0;
    for (const FileRealism& x : g.files) {
      if (std::isnan(x.rank5_share)) continue;
      r5 += x.rank5_share * static_cast<double>(x.nodes);
      c5 += x.config_rank5_share * static_cast<double>(x.configurable);
      nodes += static_cast<double>(x.nodes);
      configurable += static_cast<double>(x.configurable);
    }
    const double unseen = unseen_op_share(g, groups);
    std::snprintf(line, sizeof line, "%-*s %8s %9s %8s  %s\n", w, g.name.c_str(), pct(nodes > 0 ? r5 / nodes : kNaN).c_str(),
                  pct(configurable > 0 ? c5 / configurable : kNaN).c_str(),
                  std::isnan(unseen) ? "-" : (unseen > 0 && unseen < 0.01 ? "<1%" : pct(unseen).c_str()), names.c_str());
    out += line;
  }
  out += "(unseen: share of the nodes whose opcode no dataset root's files hold: ops a model trained on them never saw)\n";
  return out;
}

std::string realism_json(const std::vector<RealismGroup>& groups, int indent) {
  auto n = [](double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
  nlohmann::json a = nlohmann::json::array();
  for (const RealismGroup& g : groups) {
    nlohmann::json files = nlohmann::json::array();
    for (const FileRealism& f : g.files) {
      nlohmann::json fam = nlohmann::json::object();
      for (int k = 0; k < kOpFamilies; ++k)
        fam[op_family_name(static_cast<OpFamily>(k))] = f.family_share[static_cast<size_t>(k)];
      files.push_back({{"file", f.file}, {"nodes", f.nodes}, {"edges", f.edges}, {"configurable", f.configurable},
                       {"configs", f.configs}, {"unique_configs", f.unique_configs}, {"within01", n(f.within01)}, {"within1", n(f.within1)},
                       {"within5", n(f.within5)}, {"max_over_min", n(f.max_over_min)}, {"log_sd", n(f.log_sd)},
                       {"dup_median", n(f.dup_median)}, {"dup_max", n(f.dup_max)}, {"families", fam},
                       {"max_fanout", f.max_fanout}, {"fanout_p99", f.fanout_p99},
                       {"rank5_share", n(f.rank5_share)}, {"config_rank5_share", n(f.config_rank5_share)}});
      nlohmann::json ops = nlohmann::json::object();
      for (const auto& [op, count] : f.opcode_counts) ops[opcode_name(op)] = count;
      files.back()["opcodes"] = ops;
    }
    a.push_back({{"name", g.name},
                 {"dataset", g.dataset},
                 {"unseen_op_share", n(unseen_op_share(g, groups))},
                 {"files", files},
                 {"median", {{"within01", n(realism_median(g, &FileRealism::within01))},
                             {"within1", n(realism_median(g, &FileRealism::within1))},
                             {"within5", n(realism_median(g, &FileRealism::within5))},
                             {"max_over_min", n(realism_median(g, &FileRealism::max_over_min))},
                             {"log_sd", n(realism_median(g, &FileRealism::log_sd))}}}});
  }
  return a.dump(indent);
}

}  // namespace fastslow
