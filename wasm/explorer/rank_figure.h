// The Rank tab's scatter (each config's predicted score against its
// measured runtime) as an SVG figure, drawn with the study report's axes
// (search/figure.h) on the same fitted axes the tab shows, for export as SVG
// or, in the page, PNG.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fastslow::explorer {

// score and runtime: per config. Every config is drawn (the tab thins a big
// file to 4,000 points; a figure is looked at longer). `points`, if given,
// gets the number of circles written. Throws Error when the sizes differ.
std::string rank_scatter_svg(const std::string& title, const std::vector<double>& score,
                             const std::vector<double>& runtime, int64_t* points = nullptr);

}  // namespace fastslow::explorer
