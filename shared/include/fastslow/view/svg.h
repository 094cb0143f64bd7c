// SVG written by hand, for the study report's figures and the explorer's
// graph export: escaping and the few elements both draw with.
#pragma once

#include <string>
#include <string_view>

namespace fastslow::svg {

// Text and attribute values made safe for XML 1.0 (control characters it
// cannot hold are dropped).
std::string xml_escape(std::string_view s);
// Pixel positions as written into the SVG (one decimal).
std::string px(double v);

// A document of width x height pixels on `background`; text is escaped
// here, attributes in `extra` are written as given (callers escape what they
// put there).
std::string svg_open(double width, double height, std::string_view background = "white");
std::string svg_close();
std::string svg_text(double x, double y, std::string_view s, double size, std::string_view anchor = "start",
                     std::string_view extra = "");
std::string svg_line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1);

}  // namespace fastslow::svg
