#include "train/data_sources.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>

#include "fastslow/data/collection.h"
#include "fastslow/error.h"

namespace fastslow::train {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = std::min(s.find(',', start), s.size());
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

namespace {

// "layout:xla:random:0.5" -> ("layout:xla:random", 0.5); no weight: 1.
std::pair<std::string, double> collection_and_weight(const std::string& item) {
  const size_t colon = item.rfind(':');
  if (colon != std::string::npos) {
    const std::string tail = item.substr(colon + 1);
    char* end = nullptr;
    const double w = std::strtod(tail.c_str(), &end);
    if (!tail.empty() && end == tail.c_str() + tail.size()) {
      if (!(w > 0) || !std::isfinite(w))
        throw Error("--collection " + item + ": a weight must be a positive number, got " + tail);
      return {item.substr(0, colon), w};
    }
  }
  return {item, 1.0};
}

std::string root_name(const std::string& root) {
  const std::filesystem::path p = std::filesystem::path(root).lexically_normal();
  std::string name = p.filename().string();
  if (name.empty() || name == "npz") name = p.parent_path().filename().string();
  return name.empty() ? root : name;
}

}  // namespace

std::vector<std::pair<std::string, double>> named_collections(const std::string& list) {
  std::vector<std::pair<std::string, double>> wanted;
  std::set<std::string> seen;
  std::optional<GraphKind> kind;
  for (const std::string& item : split_list(list)) {
    auto cw = collection_and_weight(item);
    const CollectionId id = parse_collection_id(cw.first);
    if (!seen.insert(id.str()).second) throw Error("--collection " + id.str() + " is given twice");
    if (kind && id.kind != *kind)
      throw Error("--collection " + list + ": tile and layout collections cannot train one model (their "
                  "configs have different features)");
    kind = id.kind;
    wanted.emplace_back(id.str(), cw.second);
  }
  return wanted;
}

std::vector<DataSource> data_sources(const TrainOptions& o) {
  const std::vector<std::string> roots = split_list(o.data);
  if (roots.empty() || split_list(o.collection).empty()) throw Error("give --data and --collection, or --graph");
  const std::vector<std::pair<std::string, double>> wanted = named_collections(o.collection);
  // Roots are told apart by folder name, or by path where two share a name.
  std::vector<std::string> names;
  for (const std::string& r : roots) names.push_back(root_name(r));
  for (size_t i = 0; i < roots.size(); ++i)
    if (std::count(names.begin(), names.end(), root_name(roots[i])) > 1)
      names[i] = std::filesystem::path(roots[i]).lexically_normal().string();
  std::vector<DataSource> out;
  for (const auto& [collection, weight] : wanted) {
    bool found = false;
    for (size_t r = 0; r < roots.size(); ++r) {
      const std::string& root = roots[r];
      bool present = false;
      for (const Collection& c : discover_collections(root)) present = present || c.id.str() == collection;
      if (!present) continue;
      found = true;
      DataSource s;
      s.root = root;
      s.collection = collection;
      s.weight = weight;
      s.label = roots.size() > 1 ? names[r] + "/" + collection : collection;
      out.push_back(std::move(s));
    }
    if (!found) {
      if (roots.size() == 1) find_collection(roots.front(), collection);  // throws, listing what the root holds
      throw Error("--collection " + collection + ": in none of the roots " + o.data);
    }
  }
  return out;
}

}  // namespace fastslow::train
