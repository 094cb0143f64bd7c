#include "train/run_dir.h"

#include <torch/torch.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "fastslow/error.h"
#include "fastslow/io/json_text.h"
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
  return parse_json_text(text, file(name), "malformed JSON");
}

void RunDir::save_model(torch::nn::Module& model, const std::string& name) const {
  if (!writer_) return;
  torch::serialize::OutputArchive ar;
  model.save(ar);
  save_archive(ar, file(name));
}

void RunDir::load_model(torch::nn::Module& model, const std::string& name) const {
  if (!has(name)) throw Error(file(name), "", "missing: the run has no saved model yet");
  // Module::load takes a saved tensor of another shape as it is, and the
  // first forward then fails deep inside LibTorch: a config or card whose
  // sizes were edited (hidden 24 -> 32) must be refused here, by name.
  const auto shapes_of = [&model] {
    std::map<std::string, std::vector<int64_t>> s;
    for (const auto& p : model.named_parameters()) s[p.key()] = p.value().sizes().vec();
    for (const auto& b : model.named_buffers()) s[b.key()] = b.value().sizes().vec();
    return s;
  };
  const auto wanted = shapes_of();
  try {
    torch::serialize::InputArchive ar;
    ar.load_from(file(name), device_of(model));
    model.load(ar);
  } catch (const c10::Error& e) {
    throw Error(file(name), "", std::string("does not fit this model: ") + e.what_without_backtrace());
  }
  const auto loaded = shapes_of();
  for (const auto& [key, want] : wanted)
    if (loaded.at(key) != want) {
      std::ostringstream m;
      m << "does not fit this model: '" << key << "' is " << c10::IntArrayRef(loaded.at(key)) << " there, "
        << c10::IntArrayRef(want) << " in the model its settings describe (were they edited?)";
      throw Error(file(name), "", m.str());
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
  return parse_json_text(v.toStringRef(), path, "malformed training state");
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

std::optional<nlohmann::json> RunDir::checkpoint_state(const std::string& name) const {
  try {
    torch::serialize::InputArchive ar;
    ar.load_from(file(name), torch::kCPU);
    return state_in(ar, file(name));
  } catch (const c10::Error& e) {
    throw Error(file(name), "", std::string("cannot read: ") + e.what_without_backtrace());
  }
}

}  // namespace fastslow::train
