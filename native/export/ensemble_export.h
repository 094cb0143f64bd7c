// Exporting an ensemble folder (train/ensemble_spec.h) as one model: the
// member runs loaded, checked to prepare a graph alike (the page prepares a
// graph once, from the card, for every member), and combined in one
// EnsembleModel that export_onnx writes as one ONNX graph with a single
// model's inputs and output.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/ensemble_model.h"
#include "train/ensemble_spec.h"
#include "train/loaded_run.h"

namespace fastslow::exporter {

struct LoadedEnsemble {
  std::string dir;
  train::EnsembleSpec spec;
  std::vector<train::LoadedRun> runs;  // the members, in ensemble.json's order
  models::ModelOptions options;        // what the members share; name "ensemble"
  std::shared_ptr<models::EnsembleModelImpl> model;
  int64_t chunk = 0;  // the smallest member's ranking chunk
};

// Throws Error naming DIR/ensemble.json for a "rank" ensemble (rank positions
// need a whole graph; the exported model scores a chunk at a time), and for
// members that prepare graphs differently (kind, normalisation statistics,
// khop, config feature width, tiling features, wide table, program), naming
// the member run and what differs. Members may differ in model type and size.
LoadedEnsemble load_ensemble(const std::string& dir);

// The file member `index`'s LibTorch weights are exported to: "member-0.pt", ...
std::string member_weights_file(size_t index);

// The card: a single model's (of the first member: data, inputs prepared,
// normalisation, training data) with model.name "ensemble", the members'
// total parameters, the smallest chunk, every member's inputs, and an
// "ensemble" object: combine and per member its run folder's name, model,
// sizes, parameters, weight, scale, validation score and weights file.
nlohmann::json ensemble_card_json(const LoadedEnsemble& ensemble, int64_t onnx_bytes);

}  // namespace fastslow::exporter
