// What the page plots of a study (trials.jsonl), apart from the drawing: the
// points of a scatter of two objectives and the Pareto front over them as a
// step line, and the points of an objective against one parameter.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "fastslow/search/trials.h"
#include "fastslow/view/plot_axis.h"

namespace fastslow::search {

// A scatter axis: an objective, or the trial number, which counts as
// minimised so that the front against it is the best value so far.
struct StudyAxis {
  std::string name;  // the objective's, or "trial"
  Direction direction = Direction::Maximize;
  bool trial_number = false;
};

// Each of the study's objectives, then the trial number.
std::vector<StudyAxis> study_axes(const StudyFile& study);
// The axes a study opens with: score (or the first objective) up, the next
// objective across; with one objective, the trial number across. Indices
// into study_axes(study).
std::array<size_t, 2> default_axes(const StudyFile& study);
// The trial's value on `axis`; NaN when it has none (not measured, not finite).
double axis_value(const Trial& t, const StudyAxis& axis);

struct StudyScatter {
  // The trials with a value on both axes (indices into study.trials, in file
  // order): complete ones, and pruned or failed ones that measured both.
  std::vector<size_t> trials;
  std::vector<double> x, y;
  std::vector<char> complete;
  // Positions in `trials` of the complete ones no other complete one
  // dominates on these two axes (their directions), ascending.
  std::vector<size_t> front;
  // The front's staircase through its points, ordered along x: between two
  // neighbours it turns at the corner worse than both, which bounds what the
  // front dominates.
  std::vector<std::array<double, 2>> steps;
};

StudyScatter study_scatter(const StudyFile& study, const StudyAxis& x, const StudyAxis& y);

// The staircase through 2-D front points (see StudyScatter::steps).
std::vector<std::array<double, 2>> front_steps(std::vector<std::array<double, 2>> front, Direction x, Direction y);

// The staircase carried on to the plot's edges, as far as the front
// dominates: from the point best on x towards worse y up to `y_edge`, from
// the point best on y towards worse x up to `x_edge` (the edges the axes'
// directions are worse towards). Against the trial number, the best value
// so far runs on to the last trial.
std::vector<std::array<double, 2>> steps_to_edges(std::vector<std::array<double, 2>> steps, Direction x,
                                                  double x_edge, double y_edge);

// Parameter names over all trials, sorted.
std::vector<std::string> param_names(const StudyFile& study);

// An objective against one parameter, on the scale it was drawn from where
// the study says (StudyFile::distributions): a categorical one's choices
// are slots in the study's order, a range is linear or log as searched.
// Files that do not say are read from the values: numbers (not booleans)
// are placed at their value; any other value makes the parameter
// categorical: each distinct value a slot, labelled, numbers before
// strings, in ascending order.
struct ParamPlot {
  std::string param;
  bool categorical = false;
  std::optional<Distribution> drawn;  // how the study drew it, where it says
  std::vector<std::string> labels;  // categorical: slot i's label
  std::vector<size_t> trials;       // trials with the parameter and a value on the axis
  std::vector<double> x, y;         // x: the value, or the slot
  std::vector<char> complete;
  // Categorical slots; else the drawn range's scale, or fitted (log beyond
  // 10x) where the study does not say.
  PlotAxis x_axis() const;
};

ParamPlot param_plot(const StudyFile& study, const std::string& param, const StudyAxis& y);

// How the page writes a parameter's value: strings bare, fractions to 6
// significant digits (a sampled learning rate carries 17), others as JSON.
std::string param_text(const nlohmann::json& value);

struct StateCounts {
  size_t complete = 0, pruned = 0, failed = 0;
};
StateCounts state_counts(const StudyFile& study);

}  // namespace fastslow::search
