#include "fastslow/view/svg.h"

#include <cstdio>

namespace fastslow::svg {

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 has no way to write other control characters.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t') out += c;
    }
  }
  return out;
}

std::string px(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  // Rounding a small negative value gives "-0.0", which reads as a sign error.
  return std::string(buf) == "-0.0" ? "0.0" : buf;
}

std::string svg_open(double width, double height, std::string_view background) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + px(width) +
         "\" height=\"" + px(height) + "\" viewBox=\"0 0 " + px(width) + " " + px(height) +
         "\" font-family=\"Helvetica, Arial, sans-serif\" fill=\"#222\">\n<rect width=\"100%\" height=\"100%\" "
         "fill=\"" + std::string(background) + "\"/>\n";
}

std::string svg_close() { return "</svg>\n"; }

std::string svg_text(double x, double y, std::string_view s, double size, std::string_view anchor,
                     std::string_view extra) {
  std::string t = "<text x=\"" + px(x) + "\" y=\"" + px(y) + "\" font-size=\"" + px(size) + "\"";
  if (anchor != "start") t += " text-anchor=\"" + std::string(anchor) + "\"";
  if (!extra.empty()) t += " " + std::string(extra);
  return t + ">" + xml_escape(s) + "</text>\n";
}

std::string svg_line(double x1, double y1, double x2, double y2, std::string_view stroke, double width) {
  return "<line x1=\"" + px(x1) + "\" y1=\"" + px(y1) + "\" x2=\"" + px(x2) + "\" y2=\"" + px(y2) + "\" stroke=\"" +
         std::string(stroke) + "\" stroke-width=\"" + px(width) + "\"/>\n";
}

}  // namespace fastslow::svg
