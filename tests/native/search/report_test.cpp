#include "fastslow/search/report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "fastslow/error.h"
#include "fastslow/search/study_plot.h"
#include "fastslow/search/figure.h"
#include "test_support.h"

namespace fastslow::search {
namespace {

using namespace figure;
using test::TempDir;

// ---- studies ----------------------------------------------------------------

Trial make_trial(int64_t number, TrialState state, nlohmann::json params, std::map<std::string, double> objectives) {
  Trial t;
  t.number = number;
  t.state = state;
  t.params = std::move(params);
  t.objectives = std::move(objectives);
  t.seconds = 10;
  return t;
}

// Score (maximize), latency and params (minimize) over hidden, lr and act;
// every 7th trial pruned and every 13th failed. `wide`: latency spans about
// 250x (hidden^2) instead of about 8x.
StudyFile sample_study(int n, bool wide, unsigned seed = 7) {
  StudyFile s;
  s.objectives = {{"score", Direction::Maximize}, {"latency", Direction::Minimize}, {"params", Direction::Minimize}};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  const int hiddens[] = {8, 16, 32, 64, 128};
  const char* acts[] = {"relu", "gelu", "tanh"};
  for (int i = 0; i < n; ++i) {
    const int hidden = hiddens[rng() % 5];
    const double lr = std::pow(10.0, -4 + 3 * u(rng));
    const std::string act = acts[rng() % 3];
    const nlohmann::json params = {{"hidden", hidden}, {"lr", lr}, {"act", act}};
    const TrialState state = i % 7 == 6 ? TrialState::Pruned : i % 13 == 12 ? TrialState::Failed : TrialState::Complete;
    std::map<std::string, double> obj;
    if (state == TrialState::Complete)
      obj = {{"score", 0.5 + 0.03 * std::log2(hidden) - 0.04 * std::abs(std::log10(lr) + 2.5) + 0.02 * u(rng)},
             {"latency", wide ? 0.01 * hidden * hidden * (1 + 0.2 * u(rng)) : 0.4 + 0.05 * hidden * (1 + 0.2 * u(rng))},
             {"params", std::round(1000 * std::pow(hidden, 1.5))}};
    Trial t = make_trial(i, state, params, obj);
    if (state == TrialState::Complete) t.hypervolume = 0.1 * i;
    s.trials.push_back(std::move(t));
  }
  return s;
}

size_t complete_count(const StudyFile& s) {
  return static_cast<size_t>(
      std::count_if(s.trials.begin(), s.trials.end(), [](const Trial& t) { return t.state == TrialState::Complete; }));
}

// Trial numbers no complete trial dominates in the objectives `names`.
std::set<int64_t> brute_front(const StudyFile& s, const std::vector<std::string>& names) {
  auto values = [&](const Trial& t) {
    std::vector<double> v;
    for (const auto& n : names) {
      const auto& o = *std::find_if(s.objectives.begin(), s.objectives.end(), [&](auto& o) { return o.name == n; });
      v.push_back(o.direction == Direction::Maximize ? -t.objectives.at(n) : t.objectives.at(n));
    }
    return v;
  };
  std::set<int64_t> front;
  for (const Trial& a : s.trials) {
    if (a.state != TrialState::Complete) continue;
    bool dominated = false;
    for (const Trial& b : s.trials) {
      if (b.state != TrialState::Complete) continue;
      const auto va = values(a), vb = values(b);
      bool no_worse = true, better = false;
      for (size_t k = 0; k < va.size(); ++k) {
        no_worse = no_worse && vb[k] <= va[k];
        better = better || vb[k] < va[k];
      }
      dominated = dominated || (no_worse && better);
    }
    if (!dominated) front.insert(a.number);
  }
  return front;
}

const Trial& trial_numbered(const StudyFile& s, int64_t n) {
  return *std::find_if(s.trials.begin(), s.trials.end(), [&](const Trial& t) { return t.number == n; });
}

// ---- reading the figures back -------------------------------------------------

// The SVG parsed by Python's XML parser (so it must be well-formed), its
// circles, polylines, axes and texts as JSON, each with the parameter panel
// it is in ("" outside panels).
nlohmann::json svg_facts(const std::string& svg) {
  TempDir dir;
  const std::string path = dir.file("figure.svg");
  std::ofstream(path, std::ios::binary) << svg;
  const std::string script = R"(
import json, xml.dom.minidom as m
doc = m.parse()" + nlohmann::json(path).dump() +
                             R"()
root = doc.documentElement
def text(e):
    return ''.join(n.data for n in e.childNodes if n.nodeType == n.TEXT_NODE)
def panel(e):
    while e is not None and e.nodeType == e.ELEMENT_NODE:
        if e.hasAttribute('data-param'):
            return e.getAttribute('data-param')
        e = e.parentNode
    return ''
def circle(e):
    titles = e.getElementsByTagName('title')
    return {'cls': e.getAttribute('class'), 'trial': int(e.getAttribute('data-trial')),
            'cx': float(e.getAttribute('cx')), 'cy': float(e.getAttribute('cy')),
            'title': text(titles[0]) if titles else '', 'panel': panel(e)}
def polyline(e):
    return {'cls': e.getAttribute('class'),
            'points': [[float(v) for v in p.split(',')] for p in e.getAttribute('points').split()],
            'panel': panel(e)}
print(json.dumps({
    'root': root.tagName,
    'circles': [circle(e) for e in root.getElementsByTagName('circle')],
    'polylines': [polyline(e) for e in root.getElementsByTagName('polyline')],
    'axes': [{'cls': e.getAttribute('class'), 'scale': e.getAttribute('data-scale'), 'panel': panel(e)}
             for e in root.getElementsByTagName('g') if e.hasAttribute('data-scale')],
    'texts': [{'cls': e.getAttribute('class'), 'text': text(e), 'panel': panel(e)}
              for e in root.getElementsByTagName('text')],
}))
)";
  std::string out;
  const int rc = test::run_python(script, &out);
  EXPECT_EQ(rc, 0) << out;
  return rc == 0 ? nlohmann::json::parse(out) : nlohmann::json::object();
}

std::vector<nlohmann::json> select(const nlohmann::json& items, const std::string& cls_word,
                                   const std::string& panel = "") {
  std::vector<nlohmann::json> out;
  for (const auto& it : items) {
    const std::string cls = it["cls"];
    std::istringstream words(cls);
    std::string w;
    bool has = false;
    while (words >> w) has = has || w == cls_word;
    if (has && it["panel"] == panel) out.push_back(it);
  }
  return out;
}

std::string axis_scale(const nlohmann::json& facts, const std::string& cls, const std::string& panel = "") {
  for (const auto& a : facts["axes"])
    if (a["cls"] == cls && a["panel"] == panel) return a["scale"];
  return "";
}

bool has_text(const nlohmann::json& facts, const std::string& needle) {
  for (const auto& t : facts["texts"])
    if (t["text"].get<std::string>().find(needle) != std::string::npos) return true;
  return false;
}

// Pixels are an affine function of f(value) for every circle: fitted on the
// two ends, checked on the rest (to the 0.1 px the SVG is written with).
void expect_affine(const std::vector<double>& values, const std::vector<double>& pixels) {
  ASSERT_EQ(values.size(), pixels.size());
  const size_t lo = static_cast<size_t>(std::min_element(values.begin(), values.end()) - values.begin());
  const size_t hi = static_cast<size_t>(std::max_element(values.begin(), values.end()) - values.begin());
  ASSERT_GT(values[hi], values[lo]);
  const double slope = (pixels[hi] - pixels[lo]) / (values[hi] - values[lo]);
  for (size_t k = 0; k < values.size(); ++k)
    EXPECT_NEAR(pixels[k], pixels[lo] + slope * (values[k] - values[lo]), 0.15) << "point " << k;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// A table's cells, row by row (the header first, the rule skipped).
std::vector<std::vector<std::string>> table_cells(const std::string& table) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& line : split(table, '\n')) {
    if (line.empty() || line[0] != '|' || line.find("-+-") != std::string::npos) continue;
    std::vector<std::string> cells;
    const auto parts = split(line.substr(1), '|');
    for (const auto& p : parts) cells.push_back(trim(p));
    rows.push_back(cells);
  }
  return rows;
}

// ---- ticks, axes, formats -------------------------------------------------------

// The scale, range and ticks are the core's (tests/shared/plot_axis_test.cpp);
// here, their placing onto pixels.
TEST(ReportFigure, PlacedAxesMapTheirRangeOntoThePixels) {
  const Axis log = place(fit_axis({1.5, 40, 900}), 100, 500);
  EXPECT_EQ(log.plot.scale, AxisScale::Log);
  EXPECT_DOUBLE_EQ(log.map(log.plot.lo), 100);
  EXPECT_DOUBLE_EQ(log.map(log.plot.hi), 500);
  EXPECT_NEAR(log.map(std::sqrt(log.plot.lo * log.plot.hi)), 300, 1e-9);
  EXPECT_LT(log.map(1.5), log.map(900));
  EXPECT_GT(log.map(1.5), 100);  // inside the margin, off the frame
  EXPECT_LT(log.map(900), 500);
  const Axis y = place(fit_axis({0.2, 0.7}), 400, 50);  // pixels grow downwards
  EXPECT_GT(y.map(0.2), y.map(0.7));
  // About one tick per 50 pixels, each inside the pixel span.
  const Axis wide = place(fit_axis({0, 1}), 0, 600), narrow = place(fit_axis({0, 1}), 0, 150);
  EXPECT_GT(wide.ticks.size(), narrow.ticks.size());
  EXPECT_LE(wide.ticks.size(), 13u);
  EXPECT_GE(narrow.ticks.size(), 2u);
  for (const AxisTick& t : wide.ticks) {
    EXPECT_GE(wide.map(t.value), 0);
    EXPECT_LE(wide.map(t.value), 600);
  }
  const Axis trials = place(count_axis({0, 3}), 0, 600);
  for (const AxisTick& t : trials.ticks) EXPECT_EQ(t.value, std::round(t.value)) << t.label;
  const Axis slots = place(categorical_axis({"a", "b", "c"}), 0, 300);
  EXPECT_DOUBLE_EQ(slots.map(0), 50);
  EXPECT_DOUBLE_EQ(slots.map(2), 250);
  ASSERT_EQ(slots.ticks.size(), 3u);
  EXPECT_EQ(slots.ticks[1].label, "b");
  // Every slot gets a tick, however narrow: draw_axes staggers and cuts labels.
  std::vector<std::string> many;
  for (int i = 0; i < 20; ++i) many.push_back("v" + std::to_string(i));
  EXPECT_EQ(place(categorical_axis(many), 0, 100).ticks.size(), 20u);
}

TEST(ReportFigure, NumberFormats) {
  EXPECT_EQ(with_thousands(1234567), "1,234,567");
  EXPECT_EQ(with_thousands(-1234), "-1,234");
  EXPECT_EQ(with_thousands(999), "999");
  EXPECT_EQ(objective_text("score", 0.612345), "0.6123");
  EXPECT_EQ(objective_text("latency", 2.4), "2.40");
  EXPECT_EQ(objective_text("latency", 12.345), "12.3");
  EXPECT_EQ(objective_text("latency", 123.4), "123");
  EXPECT_EQ(objective_text("latency", 0.012345), "0.0123");
  EXPECT_EQ(objective_text("params", 1234567.4), "1,234,567");
  EXPECT_EQ(objective_text("onnx_bytes", 52000), "52,000");
  EXPECT_EQ(objective_label({"latency", Direction::Minimize}), "latency (ms / 1,000 configs, minimize)");
  EXPECT_EQ(objective_label({"score", Direction::Maximize}), "score (maximize)");
  EXPECT_EQ(figure::param_text(nlohmann::json(32)), "32");
  EXPECT_EQ(figure::param_text(nlohmann::json(0.00123456)), "0.001235");
  EXPECT_EQ(figure::param_text(nlohmann::json("gelu")), "gelu");
  EXPECT_EQ(figure::param_text(nlohmann::json(true)), "true");
  EXPECT_EQ(xml_escape("a<b&\"c'>"), "a&lt;b&amp;&quot;c&apos;&gt;");
  EXPECT_EQ(fit_text("abcdefghij", text_width("abcd", 10), 10), "abc…");
}

// ---- the table -------------------------------------------------------------

TEST(Report, TableListsExactlyTheParetoTrialsWithTheirValues) {
  const StudyFile s = sample_study(30, false);
  const std::string table = best_trials_table(s);
  ASSERT_EQ(table.rfind("Best trial(s):\n", 0), 0u) << table;
  const auto rows = table_cells(table);
  ASSERT_GE(rows.size(), 2u) << table;
  EXPECT_EQ(rows[0], (std::vector<std::string>{"number", "score", "latency", "params", "act", "hidden", "lr"}));
  const auto front = brute_front(s, {"score", "latency", "params"});
  std::set<int64_t> listed;
  double last_score = 1e9;
  for (size_t r = 1; r < rows.size(); ++r) {
    const Trial& t = trial_numbered(s, std::stoll(rows[r][0]));
    listed.insert(t.number);
    EXPECT_EQ(rows[r][1], objective_text("score", t.objectives.at("score")));
    EXPECT_EQ(rows[r][2], objective_text("latency", t.objectives.at("latency")));
    EXPECT_EQ(rows[r][3], with_thousands(std::llround(t.objectives.at("params"))));
    EXPECT_EQ(rows[r][4], t.params["act"].get<std::string>());
    EXPECT_EQ(rows[r][5], std::to_string(t.params["hidden"].get<int>()));
    EXPECT_EQ(rows[r][6], figure::param_text(t.params["lr"]));
    EXPECT_LE(t.objectives.at("score"), last_score) << "best score first";
    last_score = t.objectives.at("score");
  }
  EXPECT_EQ(listed, front);
  EXPECT_EQ(listed.size(), rows.size() - 1) << "no trial twice";
  // Aligned: every line as long as the header, with a rule under it.
  const auto lines = split(table, '\n');
  for (size_t i = 1; i < lines.size(); ++i) EXPECT_EQ(lines[i].size(), lines[1].size()) << lines[i];
  EXPECT_EQ(lines[2].find_first_not_of("|-+"), std::string::npos) << lines[2];
}

TEST(Report, TableOfOneObjectiveListsTheBestTrials) {
  StudyFile s;
  s.objectives = {{"score", Direction::Maximize}};
  s.trials = {make_trial(0, TrialState::Complete, {{"x", 1}}, {{"score", 0.5}}),
              make_trial(1, TrialState::Complete, {{"x", 2}}, {{"score", 0.7}}),
              make_trial(2, TrialState::Pruned, {{"x", 3}}, {}),
              make_trial(3, TrialState::Complete, {{"x", 4}, {"y", "b"}}, {{"score", 0.7}})};
  const auto rows = table_cells(best_trials_table(s));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"number", "score", "x", "y"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"1", "0.7000", "2", "-"}));
  EXPECT_EQ(rows[2], (std::vector<std::string>{"3", "0.7000", "4", "b"}));
  EXPECT_NE(best_trials_table(StudyFile{s.objectives, {}, {}}).find("none"), std::string::npos);
}

TEST(Report, SummaryCountsStatesTimeBestAndHypervolume) {
  const StudyFile s = sample_study(30, false);
  const std::string line = study_summary(s);
  // 30 trials: 4 pruned (6, 13, 20, 27), 2 failed (12, 25).
  EXPECT_NE(line.find("30 trials: 24 complete, 4 pruned, 2 failed"), std::string::npos) << line;
  EXPECT_NE(line.find("5.0 min of trials"), std::string::npos) << line;
  const Trial* best = nullptr;
  for (const Trial& t : s.trials)
    if (t.state == TrialState::Complete && (!best || t.objectives.at("score") > best->objectives.at("score")))
      best = &t;
  EXPECT_NE(line.find("best score " + objective_text("score", best->objectives.at("score")) + " (trial " +
                      std::to_string(best->number) + ")"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("hypervolume 2.9"), std::string::npos) << line;  // the last trial's
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

// ---- the front -------------------------------------------------------------

TEST(Report, FrontSvgDrawsEveryCompleteTrialAndTheFrontAsSteps) {
  const StudyFile s = sample_study(30, false);
  const auto facts = svg_facts(front_svg(s, "latency", "score"));
  ASSERT_EQ(facts["root"], "svg");
  const auto circles = select(facts["circles"], "trial");
  ASSERT_EQ(circles.size(), complete_count(s));
  std::set<int64_t> drawn;
  std::vector<double> latency, score, cx, cy;
  for (const auto& c : circles) {
    const Trial& t = trial_numbered(s, c["trial"]);
    EXPECT_EQ(t.state, TrialState::Complete);
    drawn.insert(t.number);
    latency.push_back(t.objectives.at("latency"));
    score.push_back(t.objectives.at("score"));
    cx.push_back(c["cx"]);
    cy.push_back(c["cy"]);
    const std::string title = c["title"];
    EXPECT_EQ(title.rfind("trial " + std::to_string(t.number) + "\n", 0), 0u) << title;
    EXPECT_NE(title.find("act = " + t.params["act"].get<std::string>()), std::string::npos) << title;
    EXPECT_NE(title.find("latency = " + objective_text("latency", t.objectives.at("latency"))), std::string::npos);
  }
  EXPECT_EQ(drawn.size(), circles.size());
  EXPECT_EQ(axis_scale(facts, "x-axis"), "linear");  // about 8x
  expect_affine(latency, cx);
  expect_affine(score, cy);

  // The front over (latency, score) alone, left to right.
  auto front = select(facts["circles"], "front");
  std::set<int64_t> front_numbers;
  for (const auto& c : front) front_numbers.insert(c["trial"].get<int64_t>());
  EXPECT_EQ(front_numbers, brute_front(s, {"latency", "score"}));
  std::sort(front.begin(), front.end(), [&](const auto& a, const auto& b) {
    return trial_numbered(s, a["trial"]).objectives.at("latency") <
           trial_numbered(s, b["trial"]).objectives.at("latency");
  });
  const auto lines = select(facts["polylines"], "front");
  ASSERT_EQ(lines.size(), 1u);
  const auto& pts = lines[0]["points"];
  ASSERT_EQ(pts.size(), 2 * front.size() - 1);
  for (size_t i = 0; i < front.size(); ++i) {
    EXPECT_DOUBLE_EQ(pts[2 * i][0].get<double>(), front[i]["cx"].get<double>());
    EXPECT_DOUBLE_EQ(pts[2 * i][1].get<double>(), front[i]["cy"].get<double>());
    if (i == 0) continue;
    // Latency minimized: the line holds the previous point's score out to
    // the next point's latency, then rises to its score.
    EXPECT_DOUBLE_EQ(pts[2 * i - 1][0].get<double>(), front[i]["cx"].get<double>());
    EXPECT_DOUBLE_EQ(pts[2 * i - 1][1].get<double>(), front[i - 1]["cy"].get<double>());
    EXPECT_LT(front[i]["cy"].get<double>(), front[i - 1]["cy"].get<double>()) << "slower only if better";
  }
  EXPECT_TRUE(has_text(facts, "latency (ms / 1,000 configs, minimize)"));
  EXPECT_TRUE(has_text(facts, "score (maximize)"));
  EXPECT_TRUE(has_text(facts, "not drawn: 4 pruned, 2 failed"));
  // Every front trial is labelled with its number.
  std::set<int64_t> labelled;
  for (const auto& t : select(facts["texts"], "number")) labelled.insert(std::stoll(t["text"].get<std::string>()));
  EXPECT_EQ(labelled, front_numbers);
}

TEST(Report, FrontStepsTurnOnTheOtherSideWhenXIsMaximized) {
  // score on x (maximized) against latency on y (minimized).
  const StudyFile s = sample_study(30, false);
  const auto facts = svg_facts(front_svg(s, "score", "latency"));
  auto front = select(facts["circles"], "front");
  EXPECT_EQ(front.size(), brute_front(s, {"latency", "score"}).size());
  std::sort(front.begin(), front.end(), [](const auto& a, const auto& b) { return a["cx"] < b["cx"]; });
  const nlohmann::json pts = select(facts["polylines"], "front").at(0)["points"];
  ASSERT_EQ(pts.size(), 2 * front.size() - 1);
  for (size_t i = 1; i < front.size(); ++i) {
    EXPECT_DOUBLE_EQ(pts[2 * i - 1][0].get<double>(), front[i - 1]["cx"].get<double>());
    EXPECT_DOUBLE_EQ(pts[2 * i - 1][1].get<double>(), front[i]["cy"].get<double>());
  }
}

TEST(Report, FrontUsesALogAxisWhenTheValuesSpanMoreThan10x) {
  const StudyFile s = sample_study(30, true);
  const auto facts = svg_facts(front_svg(s, "latency", "score"));
  EXPECT_EQ(axis_scale(facts, "x-axis"), "log");
  EXPECT_EQ(axis_scale(facts, "y-axis"), "linear");
  std::vector<double> log_latency, cx;
  for (const auto& c : select(facts["circles"], "trial")) {
    log_latency.push_back(std::log10(trial_numbered(s, c["trial"]).objectives.at("latency")));
    cx.push_back(c["cx"]);
  }
  expect_affine(log_latency, cx);
}

// Between 10x and 20x: linear in the report while it had its own rule
// (log past 20x for objectives), log on the page; now log in both.
TEST(Report, ValuesSpanningFifteenfoldGetALogAxisInEveryFigure) {
  StudyFile s;
  s.objectives = {{"score", Direction::Maximize}, {"latency", Direction::Minimize}};
  for (int i = 0; i < 8; ++i)  // width 4..60, score 0.05..0.75, latency 1..15: each 15x
    s.trials.push_back(make_trial(i, TrialState::Complete, {{"width", 4 + 8 * i}},
                                  {{"score", 0.05 + 0.1 * i}, {"latency", 1.0 + 2 * i}}));
  const auto front = svg_facts(front_svg(s, "latency", "score"));
  EXPECT_EQ(axis_scale(front, "x-axis"), "log");
  EXPECT_EQ(axis_scale(front, "y-axis"), "log");
  const auto params = svg_facts(params_svg(s, "latency"));
  EXPECT_EQ(axis_scale(params, "x-axis", "width"), "log");
  EXPECT_EQ(axis_scale(params, "y-axis", "width"), "log");
  StudyFile one = s;
  one.objectives = {{"score", Direction::Maximize}};
  const auto history = svg_facts(history_svg(one, "score"));
  EXPECT_EQ(axis_scale(history, "x-axis"), "linear");  // trial numbers: never log
  EXPECT_EQ(axis_scale(history, "y-axis"), "log");
}

// The report and the page pick the same scale for the same values.
TEST(Report, ScalesAreThePagesScales) {
  for (bool wide : {false, true}) {
    const StudyFile s = sample_study(30, wide);
    std::vector<double> latency, score;
    for (const Trial& t : s.trials)
      if (t.state == TrialState::Complete) {
        latency.push_back(t.objectives.at("latency"));
        score.push_back(t.objectives.at("score"));
      }
    const auto front = svg_facts(front_svg(s, "latency", "score"));
    EXPECT_EQ(axis_scale(front, "x-axis"), axis_scale_name(fit_axis(latency).scale)) << wide;
    EXPECT_EQ(axis_scale(front, "y-axis"), axis_scale_name(fit_axis(score).scale)) << wide;
    const auto params = svg_facts(params_svg(s, "score"));
    for (const std::string name : {"act", "hidden", "lr"}) {
      const ParamPlot page = param_plot(s, name, StudyAxis{"score", Direction::Maximize});
      EXPECT_EQ(axis_scale(params, "x-axis", name), axis_scale_name(page.x_axis().scale)) << name;
    }
  }
}

TEST(Report, FrontRejectsAnObjectiveTheStudyHasNot) {
  const StudyFile s = sample_study(10, false);
  EXPECT_NE(test::error_of([&] { front_svg(s, "latency", "accuracy"); }).find("no objective \"accuracy\""),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { front_svg(s, "score", "score"); }), "");
}

TEST(Report, FiguresOfAStudyWithNothingCompleteStillParse) {
  StudyFile s = sample_study(3, false);
  for (Trial& t : s.trials) t.state = TrialState::Pruned, t.objectives.clear();
  const auto front = svg_facts(front_svg(s, "latency", "score"));
  EXPECT_EQ(front["circles"].size(), 0u);
  EXPECT_TRUE(has_text(front, "not drawn: 3 pruned"));
  const auto params = svg_facts(params_svg(s, "score"));
  EXPECT_EQ(params["circles"].size(), 0u);
}

// ---- one objective -------------------------------------------------------

TEST(Report, OneObjectiveGivesTheHistoryWithTheBestSoFar) {
  StudyFile s;
  s.objectives = {{"score", Direction::Maximize}};
  const double scores[] = {0.3, 0.5, 0.4, 0.6, 0.55, 0.6, 0.2};
  for (int i = 0; i < 7; ++i)
    s.trials.push_back(make_trial(i, TrialState::Complete, {{"x", i}}, {{"score", scores[i]}}));
  s.trials.push_back(make_trial(7, TrialState::Failed, {{"x", 7}}, {}));
  const std::string svg = front_svg(s, "score", "");
  EXPECT_EQ(svg, history_svg(s, "score"));
  const auto facts = svg_facts(svg);
  const auto circles = select(facts["circles"], "trial");
  ASSERT_EQ(circles.size(), 7u);
  EXPECT_TRUE(select(facts["polylines"], "front").empty());
  const auto best = select(facts["circles"], "best");
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0]["trial"], 3);  // the first of the two 0.6
  EXPECT_TRUE(has_text(facts, "trial number"));
  EXPECT_TRUE(has_text(facts, "not drawn: 1 failed"));
  const nlohmann::json pts = select(facts["polylines"], "best-so-far").at(0)["points"];
  // Steps at trials 0 (0.3), 1 (0.5), 3 (0.6), then flat to trial 6.
  ASSERT_EQ(pts.size(), 6u);
  auto cy = [&](int n) { return circles[static_cast<size_t>(n)]["cy"].get<double>(); };
  auto cx = [&](int n) { return circles[static_cast<size_t>(n)]["cx"].get<double>(); };
  const std::pair<double, double> want[] = {{cx(0), cy(0)}, {cx(1), cy(0)}, {cx(1), cy(1)},
                                            {cx(3), cy(1)}, {cx(3), cy(3)}, {cx(6), cy(3)}};
  for (size_t i = 0; i < pts.size(); ++i) {
    EXPECT_DOUBLE_EQ(pts[i][0].get<double>(), want[i].first) << i;
    EXPECT_DOUBLE_EQ(pts[i][1].get<double>(), want[i].second) << i;
  }
}

// ---- parameters ------------------------------------------------------------

TEST(Report, ParamsSvgHasAPanelPerParameterWithItsScale) {
  const StudyFile s = sample_study(30, false);
  const auto facts = svg_facts(params_svg(s, "score"));
  std::set<std::string> acts;
  for (const Trial& t : s.trials)
    if (t.state == TrialState::Complete) acts.insert(t.params["act"].get<std::string>());
  for (const std::string name : {"act", "hidden", "lr"}) {
    SCOPED_TRACE(name);
    const auto circles = select(facts["circles"], "trial", name);
    ASSERT_EQ(circles.size(), complete_count(s));
    std::vector<double> values, cx, score, cy;
    for (const auto& c : circles) {
      const Trial& t = trial_numbered(s, c["trial"]);
      if (name != "act") values.push_back(std::log10(t.params[name].get<double>()));
      cx.push_back(c["cx"]);
      score.push_back(t.objectives.at("score"));
      cy.push_back(c["cy"]);
    }
    expect_affine(score, cy);
    if (name != "act") expect_affine(values, cx);  // 8..128 and 1e-4..1e-1 span over 10x
    EXPECT_EQ(select(facts["circles"], "best", name).size(), 1u);
  }
  EXPECT_EQ(axis_scale(facts, "x-axis", "hidden"), "log");
  EXPECT_EQ(axis_scale(facts, "x-axis", "lr"), "log");
  // The string parameter: one slot per value, labelled, evenly spaced.
  EXPECT_EQ(axis_scale(facts, "x-axis", "act"), "categorical");
  std::map<std::string, std::set<double>> slot_x;
  for (const auto& c : select(facts["circles"], "trial", "act"))
    slot_x[trial_numbered(s, c["trial"]).params["act"]].insert(c["cx"].get<double>());
  ASSERT_EQ(slot_x.size(), acts.size());
  std::vector<double> xs;
  for (const auto& [act, x] : slot_x) {
    EXPECT_EQ(x.size(), 1u) << act;
    xs.push_back(*x.begin());
  }
  for (size_t i = 2; i < xs.size(); ++i) EXPECT_NEAR(xs[i] - xs[i - 1], xs[1] - xs[0], 0.15);
  std::vector<std::string> slots;
  for (const auto& t : select(facts["texts"], "slot", "act")) slots.push_back(t["text"]);
  EXPECT_EQ(slots, std::vector<std::string>(acts.begin(), acts.end()));
  EXPECT_TRUE(has_text(facts, "score (maximize) against each parameter"));
}

TEST(Report, ANumericParameterOverANarrowSpanIsLinear) {
  StudyFile s;
  s.objectives = {{"score", Direction::Maximize}};
  for (int i = 0; i < 6; ++i)
    s.trials.push_back(
        make_trial(i, TrialState::Complete, {{"dropout", 0.05 * (i + 1)}, {"flag", i % 2 == 0}}, {{"score", 0.1 * i}}));
  const auto facts = svg_facts(params_svg(s, "score"));
  EXPECT_EQ(axis_scale(facts, "x-axis", "dropout"), "linear");  // 0.05..0.3 is 6x
  EXPECT_EQ(axis_scale(facts, "x-axis", "flag"), "categorical");
  std::vector<std::string> slots;
  for (const auto& t : select(facts["texts"], "slot", "flag")) slots.push_back(t["text"]);
  EXPECT_EQ(slots, (std::vector<std::string>{"false", "true"}));
}

TEST(Report, SpecialCharactersAreEscaped) {
  StudyFile s;
  s.objectives = {{"score", Direction::Maximize}, {"latency", Direction::Minimize}};
  const std::string name = "a<b&c", value = "\"x\" & 'y' <z>";
  for (int i = 0; i < 3; ++i)
    s.trials.push_back(
        make_trial(i, TrialState::Complete, {{name, value}}, {{"score", 0.1 * i}, {"latency", 1.0 + i}}));
  for (const std::string& svg : {front_svg(s, "latency", "score"), params_svg(s, "score")}) {
    EXPECT_EQ(svg.find("a<b"), std::string::npos);
    const auto facts = svg_facts(svg);
    ASSERT_EQ(facts["circles"].size(), 3u);
    const std::string title = facts["circles"][0]["title"];
    EXPECT_NE(title.find(name + " = " + value), std::string::npos) << title;
  }
  const auto params = svg_facts(params_svg(s, "score"));
  const auto slots = select(params["texts"], "slot", name);
  ASSERT_EQ(slots.size(), 1u);
  EXPECT_EQ(slots[0]["text"], value);
  EXPECT_NE(best_trials_table(s).find(value), std::string::npos);
}

// ---- writing ----------------------------------------------------------------

TEST(Report, WriteReportWritesBothFiguresAndReturnsTheText) {
  TempDir dir;
  const StudyFile s = sample_study(30, false);
  const std::string out = dir.file("report");
  const Report r = write_report(s, out);
  ASSERT_EQ(r.paths, (std::vector<std::string>{out + "/front.svg", out + "/params.svg"}));
  auto read = [](const std::string& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  EXPECT_EQ(read(r.paths[0]), front_svg(s, "latency", "score"));
  EXPECT_EQ(read(r.paths[1]), params_svg(s, "score"));
  EXPECT_EQ(r.text, study_summary(s) + "\n\n" + best_trials_table(s));
  EXPECT_TRUE(test::temp_files_beside(r.paths[0]).empty());

  StudyFile one;
  one.objectives = {{"score", Direction::Maximize}};
  one.trials = {make_trial(0, TrialState::Complete, {{"x", 1}}, {{"score", 0.5}})};
  EXPECT_EQ(read(write_report(one, out).paths[0]), history_svg(one, "score"));
  EXPECT_NE(test::error_of([&] { write_report(StudyFile{}, out); }), "");
}

}  // namespace
}  // namespace fastslow::search
