#include "study_state.h"

#include <algorithm>

#include "fastslow/error.h"
#include "fastslow/search/pareto.h"

namespace fastslow::explorer {

namespace {

size_t index_of(const std::vector<std::string>& names, const std::string& name, const std::string& study,
                const char* what) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) throw Error(study, "", std::string("no ") + what + " \"" + name + "\" in this study");
  return static_cast<size_t>(it - names.begin());
}

// Trial numbers are counted, not measured: never a log axis, no tick
// between two numbers.
PlotAxis axis_for(const std::vector<double>& values, const search::StudyAxis& axis) {
  return axis.trial_number ? count_axis(values) : fit_axis(values);
}

}  // namespace

std::unique_ptr<StudyState> open_study(std::string name, const std::string& text) {
  auto s = std::make_unique<StudyState>();
  s->file = search::parse_trials_jsonl(text, name);
  if (s->file.trials.empty()) throw Error(name, "", "no trials in this file (a trials.jsonl has one JSON object per line)");
  s->name = std::move(name);
  s->axes = search::study_axes(s->file);
  s->params = search::param_names(s->file);
  s->pareto = search::pareto_trials(s->file);
  s->counts = search::state_counts(s->file);
  const auto d = search::default_axes(s->file);
  s->set_axes(d[0], d[1]);
  s->set_param(0, d[1]);
  return s;
}

void StudyState::set_axes(size_t x_axis, size_t y_axis) {
  x = std::min(x_axis, axes.size() - 1);
  y = std::min(y_axis, axes.size() - 1);
  scatter = search::study_scatter(file, axes[x], axes[y]);
  scatter_x = axis_for(scatter.x, axes[x]);
  scatter_y = axis_for(scatter.y, axes[y]);
  // The edge a direction is worse towards: the low end of a maximised axis.
  auto worst = [](const PlotAxis& a, search::Direction d) { return d == search::Direction::Maximize ? a.lo : a.hi; };
  front_line = search::steps_to_edges(scatter.steps, axes[x].direction, worst(scatter_x, axes[x].direction),
                                      worst(scatter_y, axes[y].direction));
  drawn.clear();
}

void StudyState::set_param(size_t p, size_t axis) {
  param = params.empty() ? 0 : std::min(p, params.size() - 1);
  param_axis = std::min(axis, axes.size() - 1);
  param_plot = params.empty() ? search::ParamPlot{} : search::param_plot(file, params[param], axes[param_axis]);
  param_x = param_plot.x_axis();
  param_y = axis_for(param_plot.y, axes[param_axis]);
}

void StudyState::set_view(const nlohmann::json& view) {
  std::vector<std::string> axis_names;
  for (const auto& a : axes) axis_names.push_back(a.name);
  auto pick = [&](const char* key, const std::vector<std::string>& names, size_t current, const char* what) {
    if (!view.contains(key)) return current;
    if (!view.at(key).is_string()) throw Error(name, "", std::string(key) + " must be a name");
    return index_of(names, view.at(key).get<std::string>(), name, what);
  };
  const size_t nx = pick("x", axis_names, x, "axis"), ny = pick("y", axis_names, y, "axis");
  const size_t np = params.empty() ? 0 : pick("param", params, param, "parameter");
  const size_t na = pick("param_objective", axis_names, param_axis, "axis");
  set_axes(nx, ny);
  set_param(np, na);
}

nlohmann::json StudyState::state_json() const {
  auto numbers = [&](const std::vector<size_t>& trial_indices) {
    std::vector<int64_t> out;
    for (size_t i : trial_indices) out.push_back(file.trials[i].number);
    std::sort(out.begin(), out.end());
    return out;
  };
  std::vector<size_t> front;
  for (size_t k : scatter.front) front.push_back(scatter.trials[k]);
  nlohmann::json objectives = nlohmann::json::array();
  for (const auto& o : file.objectives) objectives.push_back({{"name", o.name}, {"direction", search::direction_name(o.direction)}});
  const bool has_param = !params.empty();
  return {{"name", name},
          {"trials", file.trials.size()},
          {"complete", counts.complete},
          {"pruned", counts.pruned},
          {"failed", counts.failed},
          {"objectives", objectives},
          {"params", params},
          {"pareto", numbers(pareto)},
          {"x", axes[x].name},
          {"y", axes[y].name},
          {"x_scale", axis_scale_name(scatter_x.scale)},
          {"y_scale", axis_scale_name(scatter_y.scale)},
          {"points", scatter.trials.size()},
          {"front", numbers(front)},
          {"param", has_param ? params[param] : ""},
          {"param_objective", axes[param_axis].name},
          {"param_scale", has_param ? axis_scale_name(param_x.scale) : ""},
          {"param_labels", param_plot.labels},
          {"param_points", param_plot.trials.size()},
          {"hovered", hovered}};
}

}  // namespace fastslow::explorer
