// The training options' table (train/option_table.h) on a command line:
// every option the CLI takes, with its help, default and group from there.
// `train` takes them all; `tune` the ones a round's run takes.
#pragma once

#include <functional>
#include <memory>

#include "train/option_table.h"

namespace CLI {
class App;
}

namespace fastslow::cli {

void add_table_options(CLI::App& sub, const std::shared_ptr<train::TrainOptions>& o,
                       const std::function<bool(const train::OptionSpec&)>& keep = {});

}  // namespace fastslow::cli
