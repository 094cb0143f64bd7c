// The run folder: config.json (every option), stats.json (normalisation),
// log.jsonl (one line per epoch), last.pt (where to resume: model,
// optimizer and the training state) + state.json (that state, to read),
// best.pt (the best model so far), metrics.json (per-graph scores),
// profile.json (the training data's profile). This class is the folder,
// its atomic writes and its torch archives; each JSON file has its one
// owner in run_files.h.
// Every file is written to a temporary name and renamed, so an interrupted
// run never leaves a half-written file behind. Only the process that owns
// the folder writes to it (`writer`): in a run of several processes the
// others read it and every write of theirs does nothing.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace torch::optim {
class Optimizer;
}
namespace torch::nn {
class Module;
}

namespace fastslow::train {

class RunDir {
 public:
  explicit RunDir(std::string path, bool writer = true) : path_(std::move(path)), writer_(writer) {}
  const std::string& path() const { return path_; }
  bool writer() const { return writer_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  bool has(const std::string& name) const;
  void create() const;  // the folder and its parents

  // For run_files.h, which owns each file's format.
  void write_json(const std::string& name, const nlohmann::json& j) const;
  // Throws fastslow::Error naming the file when missing or malformed.
  nlohmann::json read_json(const std::string& name) const;

  void save_model(torch::nn::Module& model, const std::string& name) const;
  void load_model(torch::nn::Module& model, const std::string& name) const;
  // A checkpoint holds the training state it was saved at (TrainState's
  // JSON) with the model and optimizer: one file, renamed into place at
  // once, so no stop, however hard, pairs weights with another step's state.
  void save_checkpoint(torch::nn::Module& model, torch::optim::Optimizer& opt, const std::string& name,
                       const nlohmann::json& state) const;
  // Returns the state saved with it; nullopt for checkpoints written before
  // they held one (state.json is theirs).
  std::optional<nlohmann::json> load_checkpoint(torch::nn::Module& model, torch::optim::Optimizer& opt,
                                                const std::string& name) const;
  // The training state saved in checkpoint `name`, without a model to load
  // into; nullopt for checkpoints written before they held one.
  std::optional<nlohmann::json> checkpoint_state(const std::string& name) const;

 private:
  std::string path_;
  bool writer_ = true;
};

}  // namespace fastslow::train
