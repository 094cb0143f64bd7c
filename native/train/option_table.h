// Every option of a training run, declared once: its key (config.json and
// the search's), the field of TrainOptions it sets, its group, its help,
// its default (a value, or one that depends on the kind, per-program mode
// or the model), the check of a given value, how the command line takes it
// and whether a search may vary it. The CLI's options and --help,
// config.json's reading and writing, apply_defaults() and the search's
// keys are made from this table; an option added here is everywhere.
// (Like llama.cpp's common_arg table, grouped like torchtitan's job config.)
// No torch here: the search, which has none, reads the table too.
#pragma once

#include <nlohmann/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "train/options.h"

namespace fastslow::train {

enum class OptionGroup { Data, Model, Loss, Optimiser, Schedule, Segments, Runtime, Derived };
const char* option_group_name(OptionGroup g);

// What a default may depend on.
struct DefaultsFor {
  bool tile = false;
  bool per_program = false;
  // The run's model's defaults (its row in models/registry.h).
  double model_lr = 1e-3;
  int64_t model_eval_chunk = 256;
  // Options a default applies under (true for --help, which shows the value).
  bool segment_history = true;
  bool distilled = true;  // a --teacher is given
};

// The TrainOptions field an option sets.
using OptionField =
    std::variant<std::string TrainOptions::*, double TrainOptions::*, int TrainOptions::*, int64_t TrainOptions::*,
                 uint64_t TrainOptions::*, bool TrainOptions::*, std::optional<double> TrainOptions::*,
                 std::optional<int64_t> TrainOptions::*, std::optional<int> TrainOptions::*,
                 std::optional<uint64_t> TrainOptions::*>;

// How the command line takes an option.
enum class OptionCli {
  Value,  // --name VALUE
  Flag,   // --name (a bool)
  List,   // --name A,B or repeated: the values joined with ','
  None,   // set from the data or by a run plan (kind, folds, ...), not typed
};

// The range a number must lie in; a bound's `open` excludes it.
struct OptionRange {
  double low = -1e300, high = 1e300;
  bool low_open = false, high_open = false;
  const char* note = "";  // said after a value out of range: what a bound means
};

struct OptionSpec {
  const char* key;  // CLI: --key with '_' as '-'
  OptionGroup group;
  OptionField field;
  const char* help;  // what it does; the default is added from `fallback`
  // The value an option left out takes (std::optional fields), or null to
  // leave it out. Plain fields default to TrainOptions' initialiser.
  nlohmann::json (*fallback)(const DefaultsFor&) = nullptr;
  std::optional<OptionRange> range;
  std::vector<std::string> choices;
  OptionCli cli = OptionCli::Value;
  bool searchable = false;
  bool model_default = false;  // the default is the model's (its row in models/registry.h)
};

// In the order --help lists them.
const std::vector<OptionSpec>& train_option_table();
const OptionSpec* find_train_option(const std::string& key);

// "--configs-per-graph" for configs_per_graph.
std::string option_flag(const OptionSpec& o);
// The option's current value in `o` as JSON (null when left out).
nlohmann::json option_value(const TrainOptions& o, const OptionSpec& spec);
// Sets it from JSON (null: left out); Error naming `what` on a wrong type.
void set_option_value(TrainOptions& o, const OptionSpec& spec, const nlohmann::json& value, const std::string& what);
// "default 64", "default: tile 64, layout 32", "default: per-program 5,
// collections 0", "default: the model's" (for --help; the CLI lists the
// models' values).
std::string option_default_text(const OptionSpec& spec);
// Throws Error naming the flag when a given value lies outside its range
// or choices.
void check_option_value(const TrainOptions& o, const OptionSpec& spec);

// The keys a search's [space] and [train] tables may set.
std::vector<std::string> searchable_option_keys();

}  // namespace fastslow::train
