#include "fastslow/search/study_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>
#include <set>

#include "fastslow/search/pareto.h"

namespace fastslow::search {

namespace {

// The worse of two values for a direction.
double worse(double a, double b, Direction d) { return d == Direction::Maximize ? std::min(a, b) : std::max(a, b); }

}  // namespace

std::vector<StudyAxis> study_axes(const StudyFile& study) {
  std::vector<StudyAxis> axes;
  for (const Objective& o : study.objectives) axes.push_back({o.name, o.direction, false});
  axes.push_back({"trial", Direction::Minimize, true});
  return axes;
}

std::array<size_t, 2> default_axes(const StudyFile& study) {
  const size_t n = study.objectives.size();
  if (n == 0) return {0, 0};
  if (n == 1) return {1, 0};
  size_t y = 0;
  for (size_t i = 0; i < n; ++i)
    if (study.objectives[i].name == "score") y = i;
  return {y == 0 ? size_t{1} : size_t{0}, y};
}

double axis_value(const Trial& t, const StudyAxis& axis) {
  if (axis.trial_number) return static_cast<double>(t.number);
  auto it = t.objectives.find(axis.name);
  return it != t.objectives.end() && std::isfinite(it->second) ? it->second : NAN;
}

std::vector<std::array<double, 2>> front_steps(std::vector<std::array<double, 2>> front, Direction x, Direction y) {
  std::sort(front.begin(), front.end());
  std::vector<std::array<double, 2>> steps;
  for (size_t i = 0; i < front.size(); ++i) {
    if (i > 0) steps.push_back({worse(front[i - 1][0], front[i][0], x), worse(front[i - 1][1], front[i][1], y)});
    steps.push_back(front[i]);
  }
  return steps;
}

std::vector<std::array<double, 2>> steps_to_edges(std::vector<std::array<double, 2>> steps, Direction x,
                                                  double x_edge, double y_edge) {
  if (steps.empty()) return steps;
  // Ordered by x: the first point is best on x when x is minimised, else the last.
  const std::array<double, 2> first = steps.front(), last = steps.back();
  if (x == Direction::Minimize) {
    steps.insert(steps.begin(), {first[0], y_edge});
    steps.push_back({x_edge, last[1]});
  } else {
    steps.insert(steps.begin(), {x_edge, first[1]});
    steps.push_back({last[0], y_edge});
  }
  return steps;
}

StudyScatter study_scatter(const StudyFile& study, const StudyAxis& x, const StudyAxis& y) {
  StudyScatter s;
  std::vector<std::vector<double>> measured;  // complete trials' points, for the front
  std::vector<size_t> measured_at;            // their positions in s.trials
  for (size_t i = 0; i < study.trials.size(); ++i) {
    const Trial& t = study.trials[i];
    const double vx = axis_value(t, x), vy = axis_value(t, y);
    if (std::isnan(vx) || std::isnan(vy)) continue;
    const bool complete = t.state == TrialState::Complete;
    if (complete) {
      measured.push_back({vx, vy});
      measured_at.push_back(s.trials.size());
    }
    s.trials.push_back(i);
    s.x.push_back(vx);
    s.y.push_back(vy);
    s.complete.push_back(complete ? 1 : 0);
  }
  std::vector<std::array<double, 2>> points;
  for (size_t f : pareto_front(measured, {x.direction, y.direction})) {
    s.front.push_back(measured_at[f]);
    points.push_back({measured[f][0], measured[f][1]});
  }
  s.steps = front_steps(std::move(points), x.direction, y.direction);
  return s;
}

std::vector<std::string> param_names(const StudyFile& study) {
  std::set<std::string> names;
  for (const Trial& t : study.trials)
    for (const auto& [k, v] : t.params.items()) names.insert(k);
  return {names.begin(), names.end()};
}

std::string param_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) {
    char b[32];
    std::snprintf(b, sizeof b, "%.6g", value.get<double>());
    return b;
  }
  return value.dump();
}

ParamPlot param_plot(const StudyFile& study, const std::string& param, const StudyAxis& y) {
  ParamPlot p;
  p.param = param;
  if (const auto d = study.distributions.find(param); d != study.distributions.end()) p.drawn = d->second;
  std::vector<const nlohmann::json*> values;
  for (size_t i = 0; i < study.trials.size(); ++i) {
    const Trial& t = study.trials[i];
    const auto it = t.params.find(param);
    const double vy = axis_value(t, y);
    if (it == t.params.end() || it->is_null() || std::isnan(vy)) continue;
    p.trials.push_back(i);
    p.y.push_back(vy);
    p.complete.push_back(t.state == TrialState::Complete ? 1 : 0);
    values.push_back(&*it);
    p.categorical |= !it->is_number();
  }
  if (p.drawn) p.categorical = p.drawn->kind == ParamKind::Categorical;
  if (p.drawn && p.categorical) {
    // The study's choices in its order, then any value it did not list.
    for (const nlohmann::json& c : p.drawn->choices) p.labels.push_back(param_text(c));
    for (const nlohmann::json* v : values) {
      const std::string text = param_text(*v);
      auto at = std::find(p.labels.begin(), p.labels.end(), text);
      if (at == p.labels.end()) at = p.labels.insert(p.labels.end(), text);
      p.x.push_back(static_cast<double>(at - p.labels.begin()));
    }
    return p;
  }
  if (!p.categorical) {
    for (const nlohmann::json* v : values) p.x.push_back(v->get<double>());
    return p;
  }
  // Slots: numbers by value, then the rest by their text.
  std::map<double, std::string> numbers;  // 32 labelled 32, not 32.0
  std::set<std::string> others;
  for (const nlohmann::json* v : values) {
    if (v->is_number()) numbers.emplace(v->get<double>(), param_text(*v));
    else others.insert(param_text(*v));
  }
  for (const nlohmann::json* v : values) {
    const double slot = v->is_number()
        ? static_cast<double>(std::distance(numbers.begin(), numbers.find(v->get<double>())))
        : static_cast<double>(numbers.size() + std::distance(others.begin(), others.find(param_text(*v))));
    p.x.push_back(slot);
  }
  for (const auto& [n, label] : numbers) p.labels.push_back(label);
  p.labels.insert(p.labels.end(), others.begin(), others.end());
  return p;
}

PlotAxis ParamPlot::x_axis() const {
  if (categorical) return categorical_axis(labels);
  if (drawn) return fit_axis(x, drawn->log ? ScaleChoice::Log : ScaleChoice::Linear);
  return fit_axis(x);
}

StateCounts state_counts(const StudyFile& study) {
  StateCounts c;
  for (const Trial& t : study.trials) {
    if (t.state == TrialState::Complete) ++c.complete;
    else if (t.state == TrialState::Pruned) ++c.pruned;
    else ++c.failed;
  }
  return c;
}

}  // namespace fastslow::search
