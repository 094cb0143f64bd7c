// Writing the model card (model.json) of an exported run, and loading an
// exported model back into LibTorch from its card and weights (what
// `fastslow rank` scores with). The card's reader, shared with the page, is
// the core's ModelCard.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fastslow/rank/model_card.h"
#include "models/model.h"

namespace fastslow::train {
struct LoadedRun;
}

namespace fastslow::exporter {

struct TensorSpec;  // export_onnx.h

// Everything the card holds: format, kind and data, model type and sizes,
// input/output names, dtypes and shapes, feature widths, normalisation,
// pruning, batching, training summary, validation metrics, date, git revision.
nlohmann::json model_card_json(const train::LoadedRun& run, const std::string& run_dir, int64_t onnx_bytes);

// The card's "inputs" / "outputs": [{"name", "dtype", "shape"}], dynamic axes by name.
nlohmann::json tensor_specs_json(const std::vector<TensorSpec>& specs);

models::ModelOptions model_options_from_card(const ModelCard& card);

// DIR/model.json + DIR/model.pt as a LibTorch model on `device`, in eval
// mode; for an ensemble's card, its members from their weights files,
// combined as the exported ONNX graph combines them (models/ensemble_model.h).
struct ExportedModel {
  ModelCard card;
  models::RankModel model;
};
ExportedModel load_exported(const std::string& dir, const std::string& device = "cpu");
// The card of an exported model folder alone (DIR/model.json).
ModelCard read_card(const std::string& dir);

// The revision this binary was built from ("unknown" outside a git checkout).
std::string git_revision();

}  // namespace fastslow::exporter
