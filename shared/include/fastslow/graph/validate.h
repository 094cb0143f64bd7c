// Content checks of a loaded graph. Problems are reported, not thrown, so a
// user can still look at a graph with, say, one bad edge; callers that need a
// sound graph (the trainer) refuse any Severity::Error.
#pragma once

#include <string>
#include <vector>

#include "fastslow/graph/graph.h"

namespace fastslow {

enum class Severity { Error, Warning, Note };
const char* severity_name(Severity s);

struct Problem {
  Severity severity;
  std::string array;
  std::string message;
};

// Checks layout config values chunk by chunk, so a file too large to hold
// can be checked while it streams (graph info does this).
// A layout config value is a minor-to-major dim index, -1 = unused.
inline bool is_layout_value(float v) { return v >= -1 && v <= 5 && v == static_cast<float>(static_cast<int>(v)); }

class LayoutConfigCheck {
 public:
  explicit LayoutConfigCheck(int64_t row_elems) : row_elems_(row_elems) {}
  void add(const float* values, int64_t count);
  void report(std::vector<Problem>* out) const;
  // Every value seen so far is an integer in -1..5 (nothing to report).
  bool all_layout_values() const { return non_finite_ == 0 && out_of_range_ == 0; }

 private:
  int64_t row_elems_, seen_ = 0;
  int64_t non_finite_ = 0, first_non_finite_ = -1;
  int64_t out_of_range_ = 0, first_out_of_range_ = -1;
  float first_out_of_range_value_ = 0;
};

// Counts non-finite values chunk by chunk (graph info streams a tile file's
// config_feat through it); reports what validate() would for the whole array.
class FiniteCheck {
 public:
  FiniteCheck(std::string array, int64_t row_elems) : array_(std::move(array)), row_elems_(row_elems) {}
  void add(const float* values, int64_t count);
  void report(std::vector<Problem>* out) const;

 private:
  std::string array_;
  int64_t row_elems_, seen_ = 0, bad_ = 0, first_ = -1;
};

// Graphs loaded without config features skip the checks of their values;
// run LayoutConfigCheck (layout) or FiniteCheck (tile) on the stream instead.
std::vector<Problem> validate(const TileGraph& g);
std::vector<Problem> validate(const LayoutGraph& g);
std::vector<Problem> validate(const Graph& g);
bool has_errors(const std::vector<Problem>& problems);

// Throws fastslow::Error naming the file and the first error, if any.
void require_valid(const Graph& g);

}  // namespace fastslow
