// Each subcommand registers itself on the app and returns the function that
// runs it; main() owns parsing and turns fastslow::Error into exit code 2.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace fastslow::cli {

struct Command {
  CLI::App* sub;
  std::function<int()> run;
};

Command add_info_command(CLI::App& app);
Command add_synth_command(CLI::App& app);
Command add_submit_command(CLI::App& app);
Command add_realism_command(CLI::App& app);
#ifdef FASTSLOW_WITH_TORCH
Command add_train_command(CLI::App& app);
Command add_distill_command(CLI::App& app);
Command add_eval_command(CLI::App& app);
Command add_predict_command(CLI::App& app);
Command add_export_command(CLI::App& app);
Command add_ensemble_command(CLI::App& app);
Command add_rank_command(CLI::App& app);
Command add_search_command(CLI::App& app);
Command add_tune_command(CLI::App& app);
Command add_explain_command(CLI::App& app);
#endif

}  // namespace fastslow::cli
