#include "train/run_dir.h"

#include <torch/torch.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fastslow/error.h"
#include "fastslow/io/read_file.h"
#include "fastslow/io/write_file.h"

namespace fastslow::train {
namespace {

// Archives go through write_file_atomically as every file of the folder
// does: a writer killed mid-save leaves NAME.tmp, which the next save takes over.
void save_archive(torch::serialize::OutputArchive& ar, const std::string& path) {
  std::ostringstream bytes;
  ar.save_to(bytes);
  write_file_atomically(path, bytes.str());
}

// Archives load onto the device of the model they go into.
torch::Device device_of(torch::nn::Module& model) {
  const auto params = model.parameters();
  return params.empty() ? torch::Device(torch::kCPU) : params.front().device();
}

}  // namespace

bool RunDir::has(const std::string& name) const { return std::filesystem::exists(file(name)); }

void RunDir::create() const {
  if (!writer_) return;
  std::error_code ec;
  std::filesystem::create_directories(path_, ec);
  if (ec) throw Error(path_, "", "cannot create the run folder: " + ec.message());
}

void RunDir::write_json(const std::string& name, const nlohmann::json& j) const {
  if (!writer_) return;
  write_file_atomically(file(name), j.dump(2) + "\n");
}

nlohmann::json RunDir::read_json(const std::string& name) const {
  const std::string text = read_whole_file(file(name), "missing: is " + path_ + " a training run folder?");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(file(name), "", std::string("malformed JSON: ") + e.what());
  }
}

void RunDir::append_log(const nlohmann::json& line) const {
  if (!writer_) return;
  // Rewritten whole and renamed over (a line per epoch: small), not appended
  // to: a stop in the middle of an append left a cut line that readers
  // (the model card) refuse.
  const std::string before = has("log.jsonl") ? read_whole_file(file("log.jsonl")) : "";
  write_file_atomically(file("log.jsonl"), before + line.dump() + "\n");
}

void RunDir::truncate_log(int64_t epoch) const {
  if (!writer_) return;
  std::ifstream f(file("log.jsonl"), std::ios::binary);
  if (!f) return;
  std::string line, kept;
  while (std::getline(f, line)) {
    if (line.empty()) continue;
    try {
      if (nlohmann::json::parse(line).value("epoch", int64_t{0}) >= epoch) continue;
    } catch (const nlohmann::json::exception&) {
      continue;  // a line cut short by a crash
    }
    kept += line + "\n";
  }
  f.close();
  write_file_atomically(file("log.jsonl"), kept);
}

void RunDir::save_model(torch::nn::Module& model, const std::string& name) const {
  if (!writer_) return;
  torch::serialize::OutputArchive ar;
  model.save(ar);
  save_archive(ar, file(name));
}

void RunDir::load_model(torch::nn::Module& model, const std::string& name) const {
  if (!has(name)) throw Error(file(name), "", "missing: the run has no saved model yet");
  try {
    torch::serialize::InputArchive ar;
    ar.load_from(file(name), device_of(model));
    model.load(ar);
  } catch (const c10::Error& e) {
    throw Error(file(name), "", std::string("does not fit this model: ") + e.what_without_backtrace());
  }
}

void RunDir::save_checkpoint(torch::nn::Module& model, torch::optim::Optimizer& opt, const std::string& name,
                             const nlohmann::json& state) const {
  if (!writer_) return;
  torch::serialize::OutputArchive ar, m, o;
  model.save(m);
  opt.save(o);
  ar.write("model", m);
  ar.write("optimizer", o);
  ar.write("state", c10::IValue(state.dump()));
  save_archive(ar, file(name));
}

namespace {

std::optional<nlohmann::json> state_in(torch::serialize::InputArchive& ar, const std::string& path) {
  c10::IValue v;
  if (!ar.try_read("state", v)) return std::nullopt;
  try {
    return nlohmann::json::parse(v.toStringRef());
  } catch (const nlohmann::json::exception& e) {
    throw Error(path, "state", std::string("malformed training state: ") + e.what());
  }
}

}  // namespace

std::optional<nlohmann::json> RunDir::load_checkpoint(torch::nn::Module& model, torch::optim::Optimizer& opt,
                                                      const std::string& name) const {
  if (!has(name)) throw Error(file(name), "", "missing: nothing to resume from");
  try {
    torch::serialize::InputArchive ar, m, o;
    ar.load_from(file(name), device_of(model));
    ar.read("model", m);
    ar.read("optimizer", o);
    model.load(m);
    opt.load(o);
    return state_in(ar, file(name));
  } catch (const c10::Error& e) {
    throw Error(file(name), "", std::string("cannot resume from it: ") + e.what_without_backtrace());
  }
}

std::optional<nlohmann::json> RunDir::saved_state() const {
  if (has("last.pt")) {
    try {
      torch::serialize::InputArchive ar;
      ar.load_from(file("last.pt"), torch::kCPU);
      if (auto s = state_in(ar, file("last.pt"))) return s;
    } catch (const c10::Error& e) {
      throw Error(file("last.pt"), "", std::string("cannot read: ") + e.what_without_backtrace());
    }
  }
  if (has("state.json")) return read_json("state.json");
  return std::nullopt;
}

}  // namespace fastslow::train
