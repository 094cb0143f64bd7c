#include "fastslow/search/figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

namespace fastslow::search::figure {
namespace {

std::string printf_text(const char* format, int decimals, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, decimals, v);
  std::string s = buf;
  // Rounding a small negative value gives "-0.00", which reads as a sign error.
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

}  // namespace

double Axis::map(double v) const { return from + plot.unit(v) * (to - from); }

Axis place(PlotAxis plot, double from, double to) {
  Axis a;
  const int most = plot.scale == AxisScale::Categorical
                       ? static_cast<int>(plot.categories.size())
                       : std::max(2, static_cast<int>(std::lround(std::abs(to - from) / 40)));
  a.ticks = plot.ticks(most);
  a.plot = std::move(plot);
  a.from = from;
  a.to = to;
  return a;
}

std::string with_thousands(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -static_cast<uint64_t>(v) : static_cast<uint64_t>(v));
  for (auto i = static_cast<int64_t>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<size_t>(i), ",");
  return v < 0 ? "-" + digits : digits;
}

std::string objective_text(const std::string& name, double v) {
  if (!std::isfinite(v)) return printf_text("%.*g", 4, v);
  if (name == "score") return printf_text("%.*f", 4, v);
  if (name == "params" || name == "onnx_bytes") return with_thousands(std::llround(v));
  if (name == "latency") {
    const double a = std::abs(v);
    if (a >= 1000) return with_thousands(std::llround(v));
    if (a == 0) return "0";
    return printf_text("%.*f", std::max(0, 2 - static_cast<int>(std::floor(std::log10(a)))), v);
  }
  return printf_text("%.*g", 4, v);
}

std::string objective_label(const Objective& o) {
  std::string unit = o.name == "latency"      ? "ms / 1,000 configs, "
                     : o.name == "params"     ? "parameters, "
                     : o.name == "onnx_bytes" ? "bytes, "
                                              : "";
  return o.name + " (" + unit + direction_name(o.direction) + ")";
}

std::string param_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return printf_text("%.*g", 4, v.get<double>());
  return v.dump();
}

std::string duration_text(double seconds) {
  if (seconds < 120) return printf_text("%.*f", 1, seconds) + " s";
  if (seconds < 7200) return printf_text("%.*f", 1, seconds / 60) + " min";
  return printf_text("%.*f", 1, seconds / 3600) + " h";
}

size_t char_count(std::string_view s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

double text_width(std::string_view s, double font_size) { return 0.6 * font_size * static_cast<double>(char_count(s)); }

std::string fit_text(const std::string& s, double width, double font_size) {
  if (text_width(s, font_size) <= width) return s;
  std::string cut = s;
  while (!cut.empty() && text_width(cut + "…", font_size) > width) {
    // Drop a whole UTF-8 character: continuation bytes, then its lead.
    while (!cut.empty() && (cut.back() & 0xC0) == 0x80) cut.pop_back();
    if (!cut.empty()) cut.pop_back();
  }
  return cut + "…";
}

std::string svg_circle(double cx, double cy, bool marked, std::string_view cls, int64_t trial,
                       std::string_view tooltip) {
  const std::string style = marked ? "r=\"5.5\" fill=\"" + std::string(kMarkFill) + "\" stroke=\"#7a1d1d\""
                                   : "r=\"4\" fill=\"" + std::string(kTrialFill) +
                                         "\" fill-opacity=\"0.6\" stroke=\"white\" stroke-width=\"0.5\"";
  return "<circle class=\"" + std::string(cls) + "\" data-trial=\"" + std::to_string(trial) + "\" cx=\"" + px(cx) +
         "\" cy=\"" + px(cy) + "\" " + style + "><title>" + xml_escape(tooltip) + "</title></circle>\n";
}

std::string svg_polyline(const std::vector<std::pair<double, double>>& points, std::string_view cls,
                         std::string_view stroke, double width) {
  std::string pts;
  for (const auto& [x, y] : points) pts += (pts.empty() ? "" : " ") + px(x) + "," + px(y);
  return "<polyline class=\"" + std::string(cls) + "\" points=\"" + pts + "\" fill=\"none\" stroke=\"" +
         std::string(stroke) + "\" stroke-width=\"" + px(width) + "\"/>\n";
}

double widest_tick(const Axis& a, double font_size) {
  double w = 0;
  for (const AxisTick& t : a.ticks) w = std::max(w, text_width(t.label, font_size));
  return w;
}

namespace {

// Which tick labels to draw so that none runs into the next (`extent`:
// each one's size along the axis): all; else, on a log axis, the powers of
// ten; else every second, third... one.
std::vector<bool> shown_labels(const Axis& a, const std::vector<double>& at, const std::vector<double>& extent) {
  const size_t n = at.size();
  auto fits = [&](const std::vector<bool>& show) {
    std::optional<size_t> last;
    for (size_t i = 0; i < n; ++i) {
      if (!show[i]) continue;
      if (last && std::abs(at[i] - at[*last]) < (extent[i] + extent[*last]) / 2 + 6) return false;
      last = i;
    }
    return true;
  };
  std::vector<bool> show(n, true);
  if (fits(show)) return show;
  if (a.plot.scale == AxisScale::Log) {
    size_t decades = 0;
    for (size_t i = 0; i < n; ++i) {
      const double e = std::log10(a.ticks[i].value);
      show[i] = std::abs(e - std::round(e)) < 1e-9;
      decades += show[i];
    }
    if (decades >= 2 && fits(show)) return show;
  }
  for (size_t k = 2;; ++k) {
    for (size_t i = 0; i < n; ++i) show[i] = i % k == 0;
    if (k >= n || fits(show)) return show;
  }
}

// Slot labels that need more than their slot go on two staggered rows,
// which doubles the room each has before it is cut.
struct XTicks {
  std::string svg;
  bool staggered = false;
};

XTicks x_ticks(const Frame& f, const Axis& x, double size) {
  XTicks out;
  std::vector<double> at, widths;
  std::vector<std::string> labels;
  for (const AxisTick& t : x.ticks) {
    at.push_back(x.map(t.value));
    labels.push_back(t.label);
  }
  const bool categorical = x.plot.scale == AxisScale::Categorical;
  if (categorical && !labels.empty()) {
    const double slot = std::abs(x.to - x.from) / (x.plot.hi - x.plot.lo);
    out.staggered = labels.size() > 1 && std::any_of(labels.begin(), labels.end(), [&](const std::string& l) {
                      return text_width(l, size) > slot - 6;
                    });
    for (auto& l : labels) l = fit_text(l, (out.staggered ? 2 * slot : slot) - 6, size);
  }
  for (const auto& l : labels) widths.push_back(out.staggered ? 0 : text_width(l, size));
  const auto show = shown_labels(x, at, widths);
  for (size_t i = 0; i < at.size(); ++i) {
    out.svg += svg_line(at[i], f.top, at[i], f.bottom, "#e8e8e8");
    out.svg += svg_line(at[i], f.bottom, at[i], f.bottom + 5, "#666");
    if (!show[i]) continue;
    const double y = f.bottom + 7 + size + (out.staggered && i % 2 ? size + 2 : 0);
    out.svg += svg_text(at[i], y, labels[i], size, "middle", categorical ? "class=\"slot\"" : "");
  }
  return out;
}

std::string y_ticks(const Frame& f, const Axis& y, double size) {
  std::string out;
  std::vector<double> at;
  for (const AxisTick& t : y.ticks) at.push_back(y.map(t.value));
  const auto show = shown_labels(y, at, std::vector<double>(at.size(), size));
  for (size_t i = 0; i < at.size(); ++i) {
    out += svg_line(f.left, at[i], f.right, at[i], "#e8e8e8");
    out += svg_line(f.left - 5, at[i], f.left, at[i], "#666");
    if (show[i]) out += svg_text(f.left - 8, at[i] + size * 0.35, y.ticks[i].label, size, "end");
  }
  return out;
}

}  // namespace

std::string draw_axes(const Frame& f, const Axis& x, const Axis& y, const std::string& x_label,
                      const std::string& y_label, double font_size) {
  std::string out = "<g class=\"x-axis\" data-scale=\"" + std::string(axis_scale_name(x.plot.scale)) + "\">\n";
  const XTicks ticks = x_ticks(f, x, font_size);
  out += ticks.svg;
  if (!x_label.empty())
    out +=
        svg_text((f.left + f.right) / 2, f.bottom + 14 + (ticks.staggered ? 3 : 2) * font_size + 2,
                 fit_text(x_label, f.right - f.left + 30, font_size + 1), font_size + 1, "middle", "class=\"label\"");
  out += "</g>\n<g class=\"y-axis\" data-scale=\"" + std::string(axis_scale_name(y.plot.scale)) + "\">\n";
  out += y_ticks(f, y, font_size);
  if (!y_label.empty()) {
    const double lx = f.left - 14 - widest_tick(y, font_size), ly = (f.top + f.bottom) / 2;
    out += svg_text(lx, ly, y_label, font_size + 1, "middle",
                    "class=\"label\" transform=\"rotate(-90 " + px(lx) + " " + px(ly) + ")\"");
  }
  out += "</g>\n<rect x=\"" + px(f.left) + "\" y=\"" + px(f.top) + "\" width=\"" + px(f.right - f.left) +
         "\" height=\"" + px(f.bottom - f.top) + "\" fill=\"none\" stroke=\"#999\"/>\n";
  return out;
}

}  // namespace fastslow::search::figure
