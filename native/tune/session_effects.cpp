#include "tune/session_effects.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "fastslow/error.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/graph/node_effects.h"
#include "fastslow/graph/node_effects_json.h"
#include "fastslow/graph/row_text.h"

namespace fastslow::tune {

SessionEffects session_effects(const CachedGraph& g, const TuneTrace& t, int top) {
  if (g.kind != GraphKind::Layout || t.steps.size() < 2) return {};
  const std::vector<int64_t>& at = g.pruned.config_positions;
  std::vector<int64_t> ids, candidates;
  for (int64_t p : at) ids.push_back(g.pruned.kept[static_cast<size_t>(p)]);
  std::vector<double> runtime;
  for (const TuneStep& s : t.steps) candidates.push_back(s.candidate), runtime.push_back(s.runtime);
  NodeEffects e;
  try {
    NodeEffectsBuilder b(ids, g.config_feat_width, runtime, g.source);
    b.add(g.config_rows(candidates).data(), static_cast<int64_t>(candidates.size()));
    e = b.finish();
  } catch (const Error&) {
    return {};  // runtimes all alike: nothing to attribute yet
  }
  // The file's node ids -> their opcodes, as node_effects_json reads them.
  std::map<size_t, int32_t> opcodes;
  for (size_t k = 0; k < ids.size(); ++k) opcodes[static_cast<size_t>(ids[k])] = g.node_opcode[static_cast<size_t>(at[k])];
  auto opcode_of = [&](int64_t node) { return opcode_name(opcodes.at(static_cast<size_t>(node))); };
  SessionEffects out;
  std::string named;
  int shown = 0;
  for (const NodeEffect& x : e.entries) {
    // The forward selection's picks, which come first: shares alone repeat
    // each other where the session moved nodes together.
    if (shown >= top || std::isnan(x.adds)) break;
    ++shown;
    const double slowest = x.rows.back().median_ratio / x.rows.front().median_ratio;
    char b[96];
    std::snprintf(b, sizeof b, " %s%.1f %% (fastest row ", named.empty() ? "" : "+", 100.0 * x.adds);
    named += std::string(named.empty() ? "" : "; ") + "#" + std::to_string(x.nodes.front()) +
             (x.nodes.size() > 1 ? " (+" + std::to_string(x.nodes.size() - 1) + " moved with it)" : "") + " " +
             opcode_of(x.nodes.front()) + b + layout_row_text(x.rows.front().row);
    std::snprintf(b, sizeof b, ", its slowest %.3gx)", slowest);
    named += b;
  }
  out.json = node_effects_json<nlohmann::json>(e, opcodes);
  out.line = "what the " + std::to_string(e.configs) +
             " measurements depend on (share of log-runtime variance beyond chance; +: what a node adds to those before it): " +
             (named.empty() ? "no node's layout explains them beyond chance yet" : named);
  return out;
}

}  // namespace fastslow::tune
