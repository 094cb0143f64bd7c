// The trainer suites' shared fixture: one tiny generated dataset per test
// process (about a second to write) and a small, quick layout run on it.
#pragma once

#include <string>

#include "fastslow/synth/dataset.h"
#include "test_support.h"
#include "train/options.h"

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

}  // namespace fastslow::train
