// Writes a generated TpuGraphs tree in the published format:
//   DIR/npz/tile/xla/{train,valid,test}/*.npz
//   DIR/npz/layout/{xla,nlp}/{default,random}/{train,valid,test}/*.npz
// plus DIR/answers/npz/... (same relative paths) holding, for every file, the
// measured runtimes (hidden in test files, which carry zeros as the real ones
// do) and the noise-free ones, so test predictions can be scored and the best
// reachable score (the noise ceiling) is known. DIR/synth.json records the
// scale and seed; re-running with the same ones resumes, skipping finished
// files (each file is written to .tmp and renamed, so none is half-written).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fastslow/synth/templates.h"

namespace fastslow::synth {

enum class SynthScale { Tiny, Small, Full };
SynthScale parse_synth_scale(const std::string& name);  // "tiny" | "small" | "full"
const char* synth_scale_name(SynthScale scale);

// One file to generate. Everything about it follows from `seed`, so files are
// independent of each other and of the order they are made in.
struct SynthItem {
  std::string collection;  // "tile:xla", "layout:nlp:default", ...
  std::string split;       // train | valid | test
  std::string path;        // relative to DIR, e.g. npz/layout/nlp/default/train/transformer_0003.npz
  uint64_t seed = 0;
  ModelTemplate model = ModelTemplate::ResNet;  // layout only
  int target_nodes = 0;
  int64_t configs = 0;     // layout files keep node_config_feat under ~900 MB, so huge graphs get fewer
  bool tile() const { return collection == "tile:xla"; }
  std::string answer_path() const { return "answers/" + path; }
};

std::vector<SynthItem> synth_plan(SynthScale scale, uint64_t seed);
// The plan's items of these collections only (empty = all); throws Error
// naming `dir` for an id that is no collection.
std::vector<SynthItem> synth_plan(SynthScale scale, uint64_t seed, const std::vector<std::string>& collections,
                                  const std::string& dir);

// Writes one file and its answer file under `dir`.
void synth_write(const std::string& dir, const SynthItem& item);

struct SynthProgress {
  size_t done = 0, total = 0, skipped = 0;
  const SynthItem* item = nullptr;  // the file just finished
};
// Returns false from `progress` to stop after the current file.
// Returns true when every file of the plan exists. `collections` (ids such
// as "layout:nlp:random"; empty = all) writes only those collections' files,
// byte for byte the ones the whole plan writes: `full` is hundreds of GB,
// one collection of it is what a single experiment needs.
bool synth_dataset(const std::string& dir, SynthScale scale, uint64_t seed,
                   const std::function<bool(const SynthProgress&)>& progress,
                   const std::vector<std::string>& collections = {});

// Multiplicative measurement noise, uniform within +-half_width, drawn
// without libm so it is the same natively and in wasm. Tile: +-0.5 %.
// Layout: +-0.015 %: the median difference between two measurements of a
// config is then 0.009 %, between real unet3d's 0.0003 % and AlexNet's
// 0.015 %.
constexpr double kTileNoise = 0.005, kLayoutNoise = 0.00015;
double measurement_noise(Rng& rng, double half_width = kTileNoise);

}  // namespace fastslow::synth
