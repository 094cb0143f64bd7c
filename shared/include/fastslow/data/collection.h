// The five TpuGraphs collections and where their .npz files lie in the
// published tree: npz/tile/xla/{split}/ and npz/layout/{xla,nlp}/{default,random}/{split}/.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fastslow/graph/graph.h"

namespace fastslow {

struct CollectionId {
  GraphKind kind = GraphKind::Layout;
  std::string source;  // "xla" | "nlp"
  std::string search;  // "" for tile, else "default" | "random"
  std::string str() const;  // "tile:xla", "layout:xla:random", ...
};

// Accepts exactly one of all_collection_ids(); the error lists them.
CollectionId parse_collection_id(const std::string& id);

// tile:xla, layout:xla:random, layout:xla:default, layout:nlp:random,
// layout:nlp:default: the order every listing uses.
const std::vector<std::string>& all_collection_ids();

struct Collection {
  CollectionId id;
  std::string dir;  // e.g. ".../npz/layout/xla/random"
  // "train" / "valid" / "test" -> .npz paths sorted by name; only splits
  // whose directory exists.
  std::map<std::string, std::vector<std::string>> files;

  std::vector<std::string> split(const std::string& name) const;  // empty if absent
};

// `root` is the dataset root holding npz/ or the npz/ directory itself.
// Returns the collections with at least one split directory, in
// all_collection_ids() order. Throws Error if root is missing or holds none.
std::vector<Collection> discover_collections(const std::string& root);

// Throws Error on an unknown id or one not present (listing those present).
Collection find_collection(const std::string& root, const std::string& id);

// "a/b/c.npz" -> "c".
std::string file_stem(const std::string& path);

}  // namespace fastslow
