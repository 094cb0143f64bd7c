#include "fastslow/search/report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "fastslow/error.h"
#include "fastslow/io/write_file.h"
#include "fastslow/search/pareto.h"
#include "fastslow/search/figure.h"

namespace fs = std::filesystem;

namespace fastslow::search {
namespace {

using namespace figure;

constexpr double kWidth = 640, kHeight = 480, kFont = 12, kTitleFont = 15;

size_t objective_index(const StudyFile& s, const std::string& name) {
  std::string names;
  for (size_t i = 0; i < s.objectives.size(); ++i) {
    if (s.objectives[i].name == name) return i;
    names += (i ? ", " : "") + s.objectives[i].name;
  }
  throw Error("the study has no objective \"" + name + "\" (it has " + (names.empty() ? "none" : names) + ")");
}

bool better(double a, double b, Direction d) { return d == Direction::Maximize ? a > b : a < b; }

// The trials a figure draws: complete, with every objective.
struct Point {
  const Trial* trial;
  std::vector<double> v;  // in the study's objective order
};

std::vector<Point> complete_points(const StudyFile& s) {
  std::vector<Point> pts;
  for (const Trial& t : s.trials)
    if (auto v = objective_values(t, s.objectives)) pts.push_back({&t, *v});
  return pts;
}

// The best point in objective i (the lowest number among ties); -1 when none.
int best_point(const std::vector<Point>& pts, size_t i, Direction d) {
  int best = -1;
  for (size_t k = 0; k < pts.size(); ++k) {
    if (best < 0) {
      best = static_cast<int>(k);
      continue;
    }
    const Point& b = pts[static_cast<size_t>(best)];
    if (better(pts[k].v[i], b.v[i], d) || (pts[k].v[i] == b.v[i] && pts[k].trial->number < b.trial->number))
      best = static_cast<int>(k);
  }
  return best;
}

std::string tooltip(const Trial& t, const std::vector<Objective>& objectives) {
  std::string s = "trial " + std::to_string(t.number);
  for (const auto& [name, value] : t.params.items()) s += "\n" + name + " = " + param_text(value);
  for (const Objective& o : objectives)
    if (auto it = t.objectives.find(o.name); it != t.objectives.end())
      s += "\n" + o.name + " = " + objective_text(o.name, it->second);
  return s;
}

// Parameter names in the order the trials first show them.
std::vector<std::string> param_names(const std::vector<const Trial*>& trials) {
  std::vector<std::string> names;
  for (const Trial* t : trials)
    for (const auto& item : t->params.items())
      if (std::find(names.begin(), names.end(), item.key()) == names.end()) names.push_back(item.key());
  return names;
}

struct StateCounts {
  size_t complete = 0, pruned = 0, failed = 0;
};

StateCounts state_counts(const StudyFile& s) {
  StateCounts c;
  for (const Trial& t : s.trials) {
    c.complete += t.state == TrialState::Complete;
    c.pruned += t.state == TrialState::Pruned;
    c.failed += t.state == TrialState::Failed;
  }
  return c;
}

// "not drawn: 2 pruned, 1 failed", or "" when every trial is drawn.
std::string left_out(const StudyFile& s, size_t drawn) {
  const StateCounts c = state_counts(s);
  // A hand-edited file can hold a complete trial that lacks an objective.
  const size_t other = c.complete - drawn;
  std::string parts;
  auto add = [&](size_t n, const char* what) {
    if (n) parts += (parts.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  };
  add(c.pruned, "pruned");
  add(c.failed, "failed");
  add(other, "without every objective");
  return parts.empty() ? "" : "not drawn: " + parts;
}

// ---- the table -------------------------------------------------------------

struct Column {
  std::string head;
  std::vector<std::string> cells;
  bool numeric = true;  // right-aligned, as tables of numbers are read
};

std::string pad(const std::string& s, size_t width, bool right) {
  const size_t n = char_count(s);
  const std::string fill(width > n ? width - n : 0, ' ');
  return right ? fill + s : s + fill;
}

std::string render_table(const std::vector<Column>& cols) {
  std::vector<size_t> widths;
  for (const Column& c : cols) {
    size_t w = char_count(c.head);
    for (const auto& cell : c.cells) w = std::max(w, char_count(cell));
    widths.push_back(w);
  }
  auto line = [&](auto cell) {
    std::string s = "|";
    for (size_t i = 0; i < cols.size(); ++i) s += " " + pad(cell(i), widths[i], cols[i].numeric) + " |";
    return s + "\n";
  };
  std::string rule = "|";
  for (size_t i = 0; i < cols.size(); ++i) rule += std::string(widths[i] + 2, '-') + (i + 1 < cols.size() ? "+" : "|");
  std::string out = line([&](size_t i) { return cols[i].head; }) + rule + "\n";
  for (size_t r = 0; r < cols.front().cells.size(); ++r) out += line([&](size_t i) { return cols[i].cells[r]; });
  return out;
}

}  // namespace

std::string best_trials_table(const StudyFile& s) {
  std::vector<size_t> front = pareto_trials(s);
  if (front.empty() || s.objectives.empty()) return "Best trial(s): none yet (no complete trial)\n";
  const Objective& first = s.objectives.front();
  std::stable_sort(front.begin(), front.end(), [&](size_t a, size_t b) {
    const double va = s.trials[a].objectives.at(first.name), vb = s.trials[b].objectives.at(first.name);
    return better(va, vb, first.direction) || (va == vb && s.trials[a].number < s.trials[b].number);
  });
  std::vector<const Trial*> trials;
  for (size_t i : front) trials.push_back(&s.trials[i]);

  std::vector<Column> cols{{"number", {}}};
  for (const Trial* t : trials) cols[0].cells.push_back(std::to_string(t->number));
  for (const Objective& o : s.objectives) {
    Column c{o.name, {}};
    for (const Trial* t : trials) c.cells.push_back(objective_text(o.name, t->objectives.at(o.name)));
    cols.push_back(std::move(c));
  }
  for (const std::string& name : param_names(trials)) {
    Column c{name, {}};
    for (const Trial* t : trials) {
      const auto it = t->params.find(name);
      c.cells.push_back(it == t->params.end() ? "-" : param_text(*it));
      c.numeric = c.numeric && (it == t->params.end() || it->is_number());
    }
    cols.push_back(std::move(c));
  }
  return "Best trial(s):\n" + render_table(cols);
}

std::string study_summary(const StudyFile& s) {
  if (s.trials.empty()) return "no trials yet";
  const StateCounts c = state_counts(s);
  double seconds = 0;
  std::optional<double> hv;
  for (const Trial& t : s.trials) {
    seconds += t.seconds;
    if (t.hypervolume) hv = t.hypervolume;
  }
  std::string line = std::to_string(s.trials.size()) + " trials: " + std::to_string(c.complete) + " complete";
  if (c.pruned) line += ", " + std::to_string(c.pruned) + " pruned";
  if (c.failed) line += ", " + std::to_string(c.failed) + " failed";
  line += "; " + duration_text(seconds) + " of trials";
  const auto pts = complete_points(s);
  if (!s.objectives.empty()) {
    if (const int b = best_point(pts, 0, s.objectives[0].direction); b >= 0) {
      const Point& p = pts[static_cast<size_t>(b)];
      line += "; best " + s.objectives[0].name + " " + objective_text(s.objectives[0].name, p.v[0]) + " (trial " +
              std::to_string(p.trial->number) + ")";
    }
  }
  if (hv) line += "; hypervolume " + objective_text("", *hv);
  return line;
}

namespace {

// ---- figures ---------------------------------------------------------------

struct Plot {
  Frame f;
  Axis x, y;
};

// A 640 x 480 figure's plot area and axes, y fitted to `ys`; the left
// margin fits the y axis's tick labels and its rotated label.
Plot scatter_plot(PlotAxis x, const std::vector<double>& ys) {
  Plot p;
  p.f = {0, 48, kWidth - 24, kHeight - 88};
  p.y = place(fit_axis(ys), p.f.bottom, p.f.top);
  p.f.left = 18 + (kFont + 1) + 14 + widest_tick(p.y, kFont);
  p.x = place(std::move(x), p.f.left, p.f.right);
  return p;
}

std::string title_and_caption(const std::string& title, const std::string& caption) {
  std::string out = svg_text(16, 28, title, kTitleFont, "start", "font-weight=\"bold\" class=\"title\"");
  // A caption too wide for the figure goes on two lines, split at its last
  // clause ("; not drawn: ..."), rather than be cut.
  const size_t split = caption.rfind("; ");
  const bool two = text_width(caption, kFont) > kWidth - 32 && split != std::string::npos;
  const std::string attrs = "class=\"caption\" fill=\"#555\"";
  if (!two) return out + svg_text(16, kHeight - 14, caption, kFont, "start", attrs);
  return out + svg_text(16, kHeight - 28, caption.substr(0, split + 1), kFont, "start", attrs) +
         svg_text(16, kHeight - 12, caption.substr(split + 2), kFont, "start", attrs);
}

// Trial numbers beside their points, each where it covers neither a point
// (these or the `others` drawn) nor a label placed before it, inside the
// frame when it can be.
std::string number_labels(const std::vector<std::pair<double, double>>& at, const std::vector<int64_t>& numbers,
                          const Frame& f, const std::vector<std::pair<double, double>>& others) {
  constexpr double size = 11;
  std::vector<Box> taken;
  for (const auto* points : {&at, &others})
    for (const auto& [x, y] : *points) taken.push_back({x - 6, y - 6, x + 6, y + 6});
  const Box area{f.left + 1, f.top + 1, f.right - 1, f.bottom - 1};
  std::string out = "<g class=\"numbers\">\n";
  for (size_t i = 0; i < at.size(); ++i) {
    const std::string text = std::to_string(numbers[i]);
    const double w = text_width(text, size), h = size, x = at[i].first, y = at[i].second;
    const std::pair<double, double> corners[] = {{x + 7, y - 7 - h}, {x + 7, y + 7},         {x - 7 - w, y - 7 - h},
                                                 {x - 7 - w, y + 7}, {x - w / 2, y - 9 - h}, {x - w / 2, y + 9},
                                                 {x + 8, y - h / 2}, {x - 8 - w, y - h / 2}};
    std::optional<Box> pick, fallback;
    for (const auto& [bx, by] : corners) {
      const Box b{bx, by, bx + w, by + h};
      if (!b.inside(area)) continue;
      if (!fallback) fallback = b;
      if (std::none_of(taken.begin(), taken.end(), [&](const Box& o) { return b.overlaps(o); })) {
        pick = b;
        break;
      }
    }
    const Box b = pick ? *pick : fallback ? *fallback : Box{corners[0].first, corners[0].second, 0, 0};
    taken.push_back({b.x0, b.y0, b.x0 + w, b.y0 + h});
    out += svg_text(b.x0, b.y0 + h - 1.5, text, size, "start",
                    "class=\"number\" font-weight=\"bold\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\"");
  }
  return out + "</g>\n";
}

// The front's attainment line through its points sorted by x: between
// two neighbours it turns at their worse x and worse y, the inner corner
// of the region they dominate. Along ascending x, the worse x is the later
// point's when x is minimized, the earlier one's when maximized (and the
// worse y the other point's).
std::vector<std::pair<double, double>> front_steps(const std::vector<std::pair<double, double>>& front,
                                                   Direction x_direction) {
  std::vector<std::pair<double, double>> line;
  for (size_t i = 0; i < front.size(); ++i) {
    if (i > 0) {
      const auto& [x0, y0] = front[i - 1];
      const auto& [x1, y1] = front[i];
      line.push_back(x_direction == Direction::Minimize ? std::pair{x1, y0} : std::pair{x0, y1});
    }
    line.push_back(front[i]);
  }
  return line;
}

std::string count_text(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string caption(const std::string& main, const std::string& missing) {
  return missing.empty() ? main : main + "; " + missing;
}

}  // namespace

std::string front_svg(const StudyFile& s, const std::string& x, const std::string& y) {
  const size_t ix = objective_index(s, x);
  if (s.objectives.size() == 1) return history_svg(s, x);
  const size_t iy = objective_index(s, y);
  if (ix == iy) throw Error("a front needs two different objectives, not " + x + " twice");
  const Objective &ox = s.objectives[ix], &oy = s.objectives[iy];
  const auto pts = complete_points(s);
  std::vector<double> xs, ys;
  std::vector<std::vector<double>> xy;
  for (const Point& p : pts) {
    xs.push_back(p.v[ix]);
    ys.push_back(p.v[iy]);
    xy.push_back({p.v[ix], p.v[iy]});
  }
  std::vector<size_t> front = pareto_front(xy, {ox.direction, oy.direction});
  std::sort(front.begin(), front.end(), [&](size_t a, size_t b) { return xy[a] < xy[b]; });
  const Plot p = scatter_plot(fit_axis(xs), ys);
  auto at = [&](size_t k) { return std::pair{p.x.map(xs[k]), p.y.map(ys[k])}; };

  std::string out = svg_open(kWidth, kHeight);
  out += title_and_caption("Pareto front: " + oy.name + " against " + ox.name,
                           caption(count_text(pts.size(), "complete trial", "complete trials") + ", " +
                                       std::to_string(front.size()) + " on the front (red, numbered)",
                                   left_out(s, pts.size())));
  out += draw_axes(p.f, p.x, p.y, objective_label(ox), objective_label(oy), kFont);
  out += "<g class=\"trials\">\n";
  for (size_t k = 0; k < pts.size(); ++k)
    if (std::find(front.begin(), front.end(), k) == front.end())
      out += svg_circle(at(k).first, at(k).second, false, "trial", pts[k].trial->number,
                        tooltip(*pts[k].trial, s.objectives));
  std::vector<std::pair<double, double>> front_at;
  std::vector<int64_t> numbers;
  for (size_t k : front) {
    front_at.push_back(at(k));
    numbers.push_back(pts[k].trial->number);
  }
  out += svg_polyline(front_steps(front_at, ox.direction), "front", kMarkFill, 1.5);
  for (size_t k : front)
    out += svg_circle(at(k).first, at(k).second, true, "trial front", pts[k].trial->number,
                      tooltip(*pts[k].trial, s.objectives));
  std::vector<std::pair<double, double>> all_at;
  for (size_t k = 0; k < pts.size(); ++k) all_at.push_back(at(k));
  out += "</g>\n" + number_labels(front_at, numbers, p.f, all_at);
  return out + svg_close();
}

std::string history_svg(const StudyFile& s, const std::string& objective) {
  const size_t io = objective_index(s, objective);
  const Objective& o = s.objectives[io];
  auto pts = complete_points(s);
  std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.trial->number < b.trial->number; });
  std::vector<double> xs, ys;
  for (const Point& pt : pts) {
    xs.push_back(static_cast<double>(pt.trial->number));
    ys.push_back(pt.v[io]);
  }
  const Plot p = scatter_plot(count_axis(xs), ys);
  const int best = best_point(pts, io, o.direction);

  std::string main = count_text(pts.size(), "complete trial", "complete trials");
  if (best >= 0)
    main += "; best " + objective_text(o.name, ys[static_cast<size_t>(best)]) + " (trial " +
            std::to_string(pts[static_cast<size_t>(best)].trial->number) + ", red)";
  std::string out = svg_open(kWidth, kHeight);
  out += title_and_caption(o.name + " by trial, and the best so far", caption(main, left_out(s, pts.size())));
  out += draw_axes(p.f, p.x, p.y, "trial number", objective_label(o), kFont);
  // Flat while the best holds, then a step to the trial that beats it.
  std::vector<std::pair<double, double>> so_far;
  double held = 0;
  for (size_t k = 0; k < pts.size(); ++k) {
    const double x = p.x.map(xs[k]);
    if (k == 0 || better(ys[k], held, o.direction)) {
      if (k > 0) so_far.push_back({x, p.y.map(held)});
      held = ys[k];
      so_far.push_back({x, p.y.map(held)});
    }
  }
  if (!pts.empty()) so_far.push_back({p.x.map(xs.back()), p.y.map(held)});
  out += svg_polyline(so_far, "best-so-far", kMarkFill, 1.5);
  out += "<g class=\"trials\">\n";
  for (size_t k = 0; k < pts.size(); ++k)
    out += svg_circle(p.x.map(xs[k]), p.y.map(ys[k]), static_cast<int>(k) == best,
                      static_cast<int>(k) == best ? "trial best" : "trial", pts[k].trial->number,
                      tooltip(*pts[k].trial, s.objectives));
  out += "</g>\n";
  if (best >= 0) {
    const auto b = static_cast<size_t>(best);
    std::vector<std::pair<double, double>> all_at;
    for (size_t k = 0; k < pts.size(); ++k) all_at.push_back({p.x.map(xs[k]), p.y.map(ys[k])});
    out += number_labels({{p.x.map(xs[b]), p.y.map(ys[b])}}, {pts[b].trial->number}, p.f, all_at);
  }
  return out + svg_close();
}

namespace {

constexpr double kPanelWidth = 250, kPanelHeight = 216, kPanelTop = 44;

// A parameter's x axis: slots for its distinct values, in JSON order
// (numbers before strings), when any is not a number; else fitted to the
// values (log when they are positive and span more than 10x).
PlotAxis param_axis(const std::vector<const nlohmann::json*>& values) {
  const bool categorical = std::any_of(values.begin(), values.end(), [](auto* v) { return !v->is_number(); });
  if (!categorical) {
    std::vector<double> nums;
    for (auto* v : values) nums.push_back(v->get<double>());
    return fit_axis(nums);
  }
  std::vector<nlohmann::json> distinct;
  for (auto* v : values)
    if (std::find(distinct.begin(), distinct.end(), *v) == distinct.end()) distinct.push_back(*v);
  std::sort(distinct.begin(), distinct.end());
  std::vector<std::string> labels;
  for (const auto& v : distinct) labels.push_back(param_text(v));
  return categorical_axis(std::move(labels));
}

// Where a value sits on its parameter's axis.
double param_position(const Axis& a, const nlohmann::json& v) {
  if (a.plot.scale != AxisScale::Categorical) return a.map(v.get<double>());
  const std::vector<std::string>& slots = a.plot.categories;
  return a.map(static_cast<double>(std::find(slots.begin(), slots.end(), param_text(v)) - slots.begin()));
}

std::string param_panel(const StudyFile& s, const std::vector<Point>& pts, size_t io, const std::string& name,
                        double x0, double y0, int best) {
  std::vector<const nlohmann::json*> values;
  std::vector<size_t> which;
  std::vector<double> ys;
  for (size_t k = 0; k < pts.size(); ++k)
    if (auto it = pts[k].trial->params.find(name); it != pts[k].trial->params.end()) {
      values.push_back(&*it);
      which.push_back(k);
      ys.push_back(pts[k].v[io]);
    }
  Frame f{0, y0 + 10, x0 + kPanelWidth - 14, y0 + kPanelHeight - 54};
  const Axis y = place(fit_axis(ys), f.bottom, f.top);
  f.left = x0 + 14 + widest_tick(y, kFont);
  const Axis x = place(param_axis(values), f.left, f.right);

  std::string out = "<g class=\"panel\" data-param=\"" + xml_escape(name) + "\">\n";
  out += draw_axes(f, x, y, name, "", kFont);
  std::string marked;  // drawn last, on top
  for (size_t j = 0; j < which.size(); ++j) {
    const Trial& t = *pts[which[j]].trial;
    const bool is_best = static_cast<int>(which[j]) == best;
    (is_best ? marked : out) += svg_circle(param_position(x, *values[j]), y.map(ys[j]), is_best,
                                           is_best ? "trial best" : "trial", t.number, tooltip(t, s.objectives));
  }
  return out + marked + "</g>\n";
}

}  // namespace

std::string params_svg(const StudyFile& s, const std::string& objective) {
  const size_t io = objective_index(s, objective);
  const Objective& o = s.objectives[io];
  const auto pts = complete_points(s);
  std::vector<const Trial*> trials;
  for (const Point& p : pts) trials.push_back(p.trial);
  const std::vector<std::string> names = param_names(trials);
  const size_t cols = std::clamp<size_t>(names.size(), 1, 3),
               rows = std::max<size_t>(1, (names.size() + cols - 1) / cols);
  const int best = best_point(pts, io, o.direction);
  std::string main = count_text(pts.size(), "complete trial", "complete trials");
  if (best >= 0)
    main += "; the best (trial " + std::to_string(pts[static_cast<size_t>(best)].trial->number) + ") in red";
  const std::string title = objective_label(o) + " against each parameter",
                    note = caption(main, left_out(s, pts.size()));
  // One or two panels are narrower than the title and caption.
  const double width = std::max({16 + static_cast<double>(cols) * kPanelWidth + 8, 32 + text_width(title, kTitleFont),
                                 32 + text_width(note, kFont)});
  const double height = kPanelTop + static_cast<double>(rows) * kPanelHeight + 34;

  std::string out = svg_open(width, height);
  out += svg_text(16, 28, title, kTitleFont, "start", "font-weight=\"bold\" class=\"title\"");
  if (names.empty()) out += svg_text(16, kPanelTop + 40, "no parameters to show", kFont + 1);
  for (size_t i = 0; i < names.size(); ++i)
    out += param_panel(s, pts, io, names[i], 16 + static_cast<double>(i % cols) * kPanelWidth,
                       kPanelTop + static_cast<double>(i / cols) * kPanelHeight, best);
  out += svg_text(16, height - 12, note, kFont, "start", "class=\"caption\" fill=\"#555\"");
  return out + svg_close();
}

Report write_report(const StudyFile& s, const std::string& dir) {
  if (s.objectives.empty()) throw Error(dir, "", "the study has no objectives (no trials yet)");
  fs::create_directories(dir);
  const std::string& first = s.objectives[0].name;
  const std::string front = s.objectives.size() > 1 ? front_svg(s, s.objectives[1].name, first) : history_svg(s, first);
  Report r;
  r.text = study_summary(s) + "\n\n" + best_trials_table(s);
  for (const auto& [name, svg] : {std::pair{"front.svg", front}, std::pair{"params.svg", params_svg(s, first)}}) {
    const std::string path = (fs::path(dir) / name).string();
    write_file_atomically(path, svg);
    r.paths.push_back(path);
  }
  return r;
}

}  // namespace fastslow::search
