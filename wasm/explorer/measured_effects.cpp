#include "measured_effects.h"

#include <chrono>
#include <cmath>
#include <exception>

namespace fastslow::explorer {

bool MeasuredEffects::apply(const Document& doc) {
  return doc.kind == GraphKind::Layout && !doc.runtime.empty() && doc.npz && doc.npz->contains("node_config_feat");
}

void MeasuredEffects::reset(const Document* doc) {
  *this = {};
  if (!doc || !apply(*doc)) return;
  row_bytes = doc->npz->header("node_config_feat").data_bytes();
  due = row_bytes <= kOnOpenBytes;
}

void MeasuredEffects::find(const Document& doc) {
  const auto t0 = std::chrono::steady_clock::now();
  found = true;
  due = false;
  error.clear();
  entry = 0;
  effects = {};
  try {
    effects = node_effects(*doc.npz, kMaxBytes);
  } catch (const std::exception& e) {
    error = e.what();
  }
  ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<double> MeasuredEffects::node_values(int64_t num_nodes) const {
  std::vector<double> v(static_cast<size_t>(num_nodes), std::nan(""));
  for (const NodeEffect& e : effects.entries)
    for (int64_t n : e.nodes)
      if (n >= 0 && n < num_nodes) v[static_cast<size_t>(n)] = std::isnan(e.adds) ? 0.0 : e.adds;
  return v;
}

int64_t MeasuredEffects::entry_of(int64_t node) const {
  for (size_t i = 0; i < effects.entries.size(); ++i)
    for (int64_t n : effects.entries[i].nodes)
      if (n == node) return static_cast<int64_t>(i);
  return -1;
}

}  // namespace fastslow::explorer
