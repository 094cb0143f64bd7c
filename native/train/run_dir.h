// The run folder: config.json (every option), stats.json (normalisation),
// log.jsonl (one line per epoch), state.json + last.pt (where to resume),
// best.pt (the best model so far), metrics.json (per-graph scores).
// Every file is written to a temporary name and renamed, so an interrupted
// run never leaves a half-written file behind. Only the process that owns
// the folder writes to it (`writer`): in a run of several processes the
// others read it and every write of theirs does nothing.
#pragma once

#include <nlohmann/json.hpp>
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

  void write_json(const std::string& name, const nlohmann::json& j) const;
  // Throws fastslow::Error naming the file when missing or malformed.
  nlohmann::json read_json(const std::string& name) const;
  void append_log(const nlohmann::json& line) const;  // log.jsonl
  // Drops log lines of epochs >= `epoch` (a resumed run rewrites them).
  void truncate_log(int64_t epoch) const;

  void save_model(torch::nn::Module& model, const std::string& name) const;
  void load_model(torch::nn::Module& model, const std::string& name) const;
  void save_checkpoint(torch::nn::Module& model, torch::optim::Optimizer& opt, const std::string& name) const;
  void load_checkpoint(torch::nn::Module& model, torch::optim::Optimizer& opt, const std::string& name) const;

 private:
  std::string path_;
  bool writer_ = true;
};

}  // namespace fastslow::train
