#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.h"
#include "export/export_onnx.h"
#include "export/model_card_json.h"
#include "fastslow/error.h"
#include "fastslow/rank/model_card.h"
#include "fastslow/io/write_file.h"
#include "train/run_dir.h"
#include "train/loaded_run.h"

namespace fastslow::cli {

Command add_export_command(CLI::App& app) {
  struct Opts {
    std::string run, out;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand(
      "export",
      "Write a run's best model as DIR/model.onnx (opset 17, dynamic nodes/edges/configs/batch) with its\n"
      "model card DIR/model.json and its LibTorch weights DIR/model.pt (for `fastslow rank`).");
  sub->add_option("--run", o->run, "run folder from `fastslow train`")->required();
  sub->add_option("-o,--out", o->out, "output folder (created)")->required();
  return {sub, [o] {
            const train::LoadedRun run = train::load_run(o->run, "cpu");
            const onnx::ModelProto proto = exporter::export_onnx(*run.model, run.model_options);
            exporter::check_onnx(proto);
            std::string bytes;
            if (!proto.SerializeToString(&bytes)) throw Error(o->out, "", "cannot serialise the ONNX model");
            std::filesystem::create_directories(o->out);
            const train::RunDir dir(o->out);
            write_file_atomically(dir.file("model.onnx"), bytes);
            dir.save_model(*run.model, "model.pt");
            const nlohmann::json card = exporter::model_card_json(run, o->run, static_cast<int64_t>(bytes.size()));
            // The card must read back through the parser the page uses.
            ModelCard::from_json(card.dump(), dir.file("model.json"));
            dir.write_json("model.json", card);
            std::printf("%s (%.1f KiB, %lld parameters, %s %s)\n%s\n", dir.file("model.onnx").c_str(),
                        static_cast<double>(bytes.size()) / 1024.0,
                        static_cast<long long>(card["model"]["parameters"].get<int64_t>()),
                        run.options.kind.c_str(),
                        (run.options.model + (run.model_options.wide_nodes > 0 ? "+wide" : "")).c_str(),
                        dir.file("model.json").c_str());
            return 0;
          }};
}

}  // namespace fastslow::cli
