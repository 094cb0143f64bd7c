#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.h"
#include "export/ensemble_export.h"
#include "export/export_onnx.h"
#include "export/model_card_json.h"
#include "fastslow/error.h"
#include "fastslow/rank/model_card.h"
#include "fastslow/io/write_file.h"
#include "train/run_dir.h"
#include "train/loaded_run.h"

namespace fastslow::cli {

namespace {

// Checks and writes DIR/model.onnx (the folder is made only once the model
// has loaded and passed the checks); returns its size in bytes.
int64_t write_onnx(const onnx::ModelProto& proto, const train::RunDir& dir) {
  exporter::check_onnx(proto);
  std::string bytes;
  if (!proto.SerializeToString(&bytes)) throw Error(dir.path(), "", "cannot serialise the ONNX model");
  std::filesystem::create_directories(dir.path());
  write_file_atomically(dir.file("model.onnx"), bytes);
  return static_cast<int64_t>(bytes.size());
}

void write_card(const nlohmann::json& card, const train::RunDir& dir) {
  // The card must read back through the parser the page uses.
  ModelCard::from_json(card.dump(), dir.file("model.json"));
  dir.write_json("model.json", card);
}

void export_run(const std::string& run_dir, const train::RunDir& dir, const exporter::PrecisionPlan& precision) {
  const train::LoadedRun run = train::load_run(run_dir, "cpu");
  exporter::PrecisionReport report;
  const int64_t bytes = write_onnx(exporter::export_onnx(*run.model, run.model_options, precision, &report), dir);
  dir.save_model(*run.model, "model.pt");
  nlohmann::json card = exporter::model_card_json(run, run_dir, bytes);
  card["precision"] = report.to_json();
  write_card(card, dir);
  std::printf("%s (%.1f KiB, %lld parameters, %s %s, weights %s)\n%s\n", dir.file("model.onnx").c_str(),
              static_cast<double>(bytes) / 1024.0, static_cast<long long>(card["model"]["parameters"].get<int64_t>()),
              run.options.kind.c_str(), (run.options.model + (run.model_options.wide_nodes > 0 ? "+wide" : "")).c_str(),
              card["precision"]["weights"].get<std::string>().c_str(), dir.file("model.json").c_str());
}

void export_ensemble(const std::string& ensemble_dir, const train::RunDir& dir, const exporter::PrecisionPlan& precision) {
  const exporter::LoadedEnsemble e = exporter::load_ensemble(ensemble_dir);
  exporter::PrecisionReport report;
  const int64_t bytes = write_onnx(exporter::export_onnx(*e.model, e.options, precision, &report), dir);
  for (size_t i = 0; i < e.runs.size(); ++i) dir.save_model(*e.runs[i].model, exporter::member_weights_file(i));
  nlohmann::json card = exporter::ensemble_card_json(e, bytes);
  card["precision"] = report.to_json();
  write_card(card, dir);
  std::printf("%s (%.1f KiB, %lld parameters, %s ensemble of %zu, %s, weights %s)\n%s\n", dir.file("model.onnx").c_str(),
              static_cast<double>(bytes) / 1024.0, static_cast<long long>(card["model"]["parameters"].get<int64_t>()),
              e.spec.kind.c_str(), e.runs.size(), train::combine_name(e.spec.combine),
              card["precision"]["weights"].get<std::string>().c_str(),
              dir.file("model.json").c_str());
}

}  // namespace

Command add_export_command(CLI::App& app) {
  struct Opts {
    std::string run, out, precision = "fp32", per_layer;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand(
      "export",
      "Write a run's best model as DIR/model.onnx (opset 17, dynamic nodes/edges/configs/batch) with its\n"
      "model card DIR/model.json and its LibTorch weights DIR/model.pt (for `fastslow rank`). For an\n"
      "ensemble folder (ensemble.json), one model.onnx holding every member and their weighted sum\n"
      "(each member's scores divided by its scale), and the members' weights as DIR/member-I.pt.");
  sub->add_option("--run", o->run, "run folder from `fastslow train`, or an ensemble folder")->required();
  sub->add_option("-o,--out", o->out, "output folder (created)")->required();
  sub->add_option("--precision", o->precision,
                  "weights in the ONNX model: fp32, fp16 (half the bytes) or int8 (one scale per row, a quarter);\n"
                  "matrices only, computed in float32 (the card lists each tensor's precision)")
      ->capture_default_str()
      ->check(CLI::IsMember({"fp32", "fp16", "int8"}));
  sub->add_option("--per-layer", o->per_layer,
                  "a JSON file {\"tensors\": [\"fp32\", \"int8\", ...]}: each weight tensor's precision, in the\n"
                  "order of the card's precision.tensors (export once in fp32 to see them); instead of --precision")
      ->check(CLI::ExistingFile)
      ->excludes(sub->get_option("--precision"));
  return {sub, [o] {
            const train::RunDir dir(o->out);
            const exporter::PrecisionPlan precision = o->per_layer.empty()
                                                          ? exporter::PrecisionPlan(exporter::parse_precision(o->precision))
                                                          : exporter::PrecisionPlan::read(o->per_layer);
            if (train::EnsembleSpec::is_ensemble(o->run))
              export_ensemble(o->run, dir, precision);
            else
              export_run(o->run, dir, precision);
            return 0;
          }};
}

}  // namespace fastslow::cli
