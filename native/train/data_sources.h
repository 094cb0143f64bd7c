// The collections a run learns from: every collection named in
// TrainOptions::collection found in every root of TrainOptions::data (both
// comma-separated lists), each with a sampling weight. This is how one
// model learns from xla and nlp graphs of the same search, or from real
// and generated data together.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "train/options.h"

namespace fastslow::train {

struct DataSource {
  std::string root;
  std::string collection;  // e.g. "layout:nlp:random"
  double weight = 1;       // share of training steps, relative to the others
  std::string label;       // the collection, or "ROOT/collection" when there are several roots
};

// "a,b" -> {"a", "b"}; empty items dropped.
std::vector<std::string> split_list(const std::string& s);

// The collections a list names, with their weights, checked but not
// looked up on disk (a model card is written where the data may be gone).
// Throws Error on an unknown collection, a bad weight, a collection named
// twice, or tile mixed with layout.
std::vector<std::pair<std::string, double>> named_collections(const std::string& list);

// Collections as "ID" or "ID:W" (W > 0). Throws Error on an unknown
// collection, a bad weight, a collection named twice, mixed kinds (tile
// with layout), or a pair found in no root (naming the collections each
// root holds). Roots lacking a collection that another root has are
// skipped.
std::vector<DataSource> data_sources(const TrainOptions& o);

}  // namespace fastslow::train
