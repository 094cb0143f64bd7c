#include "table_options.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <variant>

#include "models/registry.h"

namespace fastslow::cli {

void add_table_options(CLI::App& sub, const std::shared_ptr<train::TrainOptions>& o,
                       const std::function<bool(const train::OptionSpec&)>& keep) {
  for (const train::OptionSpec& spec : train::train_option_table()) {
    if (spec.cli == train::OptionCli::None || (keep && !keep(spec))) continue;
    std::string help = std::string(spec.key) == "model" ? models::models_help() : spec.help;
    std::string def = train::option_default_text(spec);
    if (spec.model_default) {  // the registry's values, model by model
      std::string (*value)(const models::ModelEntry&) = [](const models::ModelEntry& e) {
        return std::to_string(e.eval_chunk);
      };
      if (std::string(spec.key) == "lr")
        value = [](const models::ModelEntry& e) {
          char b[32];
          std::snprintf(b, sizeof b, "%g", e.lr);
          return std::string(b);
        };
      def += ": " + models::model_defaults_help(value);
    }
    if (!def.empty()) help += " (" + def + ")";
    const std::string flag = train::option_flag(spec);
    CLI::Option* opt = nullptr;
    if (spec.cli == train::OptionCli::List) {
      const auto field = std::get<std::string train::TrainOptions::*>(spec.field);
      opt = sub.add_option_function<std::vector<std::string>>(
                   flag,
                   [o, field](const std::vector<std::string>& v) {
                     std::string joined;
                     for (const std::string& x : v) joined += (joined.empty() ? "" : ",") + x;
                     (*o).*field = joined;
                   },
                   help)
                ->delimiter(',');
    } else if (spec.cli == train::OptionCli::Flag) {
      opt = sub.add_flag(flag, (*o).*std::get<bool train::TrainOptions::*>(spec.field), help);
    } else {
      std::visit([&](auto field) { opt = sub.add_option(flag, (*o).*field, help); }, spec.field);
      if (def.empty()) opt->capture_default_str();
    }
    if (!spec.choices.empty()) opt->check(CLI::IsMember(spec.choices));
    opt->group(std::string("Options: ") + train::option_group_name(spec.group));
  }
}

}  // namespace fastslow::cli
