// The trainer suites' shared fixture: one tiny generated dataset per test
// process (about a second to write) and a small, quick layout run on it.
#pragma once

#include <string>

#include "fastslow/data/collection.h"
#include "fastslow/synth/dataset.h"
#include "test_support.h"
#include "train/options.h"
#include "train/prepared_data.h"

namespace fastslow::train {

inline const std::string& tiny_data() {
  static test::TempDir* dir = new test::TempDir;
  static bool made = false;
  if (!made) {
    EXPECT_TRUE(synth::synth_dataset(dir->path(), synth::SynthScale::Tiny, 7, nullptr));
    made = true;
  }
  return dir->path();
}

inline TrainOptions small_layout_run(const std::string& out) {
  TrainOptions o;
  o.data = tiny_data();
  o.collection = "layout:xla:random";
  o.out = out;
  o.hidden = 32;
  o.layers = 2;
  o.epochs = 2;
  o.steps_per_epoch = 6;
  o.configs_per_graph = 16;
  o.threads = 1;  // identical float reductions in both runs
  return o;
}

// A per-program layout run of one short epoch on the tiny collection's first
// training graph, a quarter of its configs held out.
inline TrainOptions quick_program_run(const std::string& out) {
  TrainOptions o;
  o.graph = find_collection(tiny_data(), "layout:xla:random").split("train").front();
  o.holdout = 0.25;
  o.out = out;
  o.epochs = 1;
  o.hidden = 16;
  o.layers = 1;
  o.steps_per_epoch = 5;
  return o;
}

// A tile run of two steps: for tests that need a run of the other kind.
inline TrainOptions quick_tile_run(const std::string& out) {
  TrainOptions o;
  o.data = tiny_data();
  o.collection = "tile:xla";
  o.out = out;
  o.epochs = 1;
  o.steps_per_epoch = 2;
  o.threads = 1;
  return o;
}

// The train and valid graphs of o's collection prepared on the CPU, the
// options completed with the data's config width (o.kind set and defaults
// applied before).
inline std::shared_ptr<const PreparedData> prepare_run_data(TrainOptions& o) {
  const Collection c = find_collection(o.data, o.collection);
  DataSpec spec;
  spec.train_files = c.split("train");
  spec.valid_files = c.split("valid");
  spec.cache = {o.cache_dir(), o.khop};
  auto data = std::make_shared<const PreparedData>(prepare(spec, torch::kCPU, std::nullopt));
  o.config_feat_width = data->config_width();
  return data;
}

}  // namespace fastslow::train
