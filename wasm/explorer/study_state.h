// A study (trials.jsonl) as the explorer holds it: the parsed trials, what
// the plots show (axes, parameter) and the plots' data for that choice. No
// ImGui: study_view.cpp draws it, bridge.cpp reads and sets it for JS.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fastslow/search/study_plot.h"
#include "fastslow/search/trials.h"
#include "fastslow/view/plot_axis.h"

namespace fastslow::explorer {

struct StudyState {
  std::string name;
  search::StudyFile file;
  std::vector<search::StudyAxis> axes;  // the objectives, then the trial number
  std::vector<std::string> params;
  std::vector<size_t> pareto;           // the front over every objective (indices into file.trials)
  search::StateCounts counts;
  size_t x = 0, y = 0;                  // the scatter's axes (into axes)
  size_t param = 0, param_axis = 0;     // the parameter plot's parameter and objective
  search::StudyScatter scatter;         // for x and y
  search::ParamPlot param_plot;         // for param and param_axis
  // The plots' axes, fitted to their points when chosen.
  PlotAxis scatter_x, scatter_y, param_x, param_y;
  std::vector<std::array<double, 2>> front_line;  // the front's steps on to the scatter's edges
  int64_t hovered = -1;                 // the trial under the mouse in either plot, or -1
  // Where the last frame drew each scatter point (trial number -> screen
  // pixels), so that tests can point at one.
  std::map<int64_t, std::array<float, 2>> drawn;

  void set_axes(size_t x_axis, size_t y_axis);
  void set_param(size_t p, size_t axis);
  // Sets what is named in {"x", "y", "param", "param_objective"}; throws
  // Error naming the study for a name it does not have.
  void set_view(const nlohmann::json& view);
  nlohmann::json state_json() const;
};

// Parses `text` (trials.jsonl); throws the core's Error, which names the file
// and the line, and Error for a file without trials.
std::unique_ptr<StudyState> open_study(std::string name, const std::string& text);

}  // namespace fastslow::explorer
