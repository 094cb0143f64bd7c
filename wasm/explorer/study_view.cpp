// The study window: a study's trials (trials.jsonl from `fastslow search`)
// as a scatter of two objectives with their Pareto front, an objective
// against one parameter, and every trial in a table. What is plotted comes
// from the core (search/study_plot.h); this file only draws it.
#include <imgui.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "study_panel.h"
#include "plot.h"

namespace fastslow::explorer {

namespace {

using search::StudyAxis;
using search::Trial;
using search::TrialState;

constexpr ImU32 kFrontColor = IM_COL32(255, 176, 64, 255);
constexpr ImU32 kUnfinishedColor = IM_COL32(150, 150, 160, 110);  // pruned or failed, where they have values
constexpr ImU32 kHoverRing = IM_COL32(255, 255, 255, 230);

ImVec4 state_color(TrialState s) {
  switch (s) {
    case TrialState::Complete: return {0.55f, 0.78f, 1.0f, 1.0f};
    case TrialState::Pruned: return {0.75f, 0.75f, 0.75f, 1.0f};
    case TrialState::Failed: return {1.0f, 0.45f, 0.45f, 1.0f};
  }
  return {1, 1, 1, 1};
}

std::string axis_title(const StudyAxis& a) {
  return a.trial_number ? "trial number" : a.name + " (" + search::direction_name(a.direction) + ")";
}

std::string with_scale(std::string title, const PlotAxis& axis) {
  return axis.scale == AxisScale::Log ? title + ", log scale" : title;
}

std::string number_text(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

std::string objective_text(const Trial& t, const std::string& name) {
  const auto it = t.objectives.find(name);
  return it == t.objectives.end() || !std::isfinite(it->second) ? "-" : number_text(it->second);
}

std::string params_text(const Trial& t) {
  std::string out;
  for (const auto& [k, v] : t.params.items()) out += (out.empty() ? "" : ", ") + k + "=" + search::param_text(v);
  return out;
}

void section(const char* title) {
  ImGui::Spacing();
  ImGui::TextDisabled("%s", title);
}

// Picks an axis; true when the choice changed.
bool axis_combo(const char* label, const std::vector<StudyAxis>& axes, size_t& current, float width) {
  ImGui::SetNextItemWidth(width);
  bool changed = false;
  if (ImGui::BeginCombo(label, axis_title(axes[current]).c_str())) {
    for (size_t i = 0; i < axes.size(); ++i)
      if (ImGui::Selectable(axis_title(axes[i]).c_str(), i == current)) {
        changed = i != current;
        current = i;
      }
    ImGui::EndCombo();
  }
  return changed;
}

void trial_tooltip(const StudyState& s, const Trial& t, float dpr) {
  ImGui::BeginTooltip();
  ImGui::Text("trial %lld", static_cast<long long>(t.number));
  ImGui::SameLine();
  ImGui::TextColored(state_color(t.state), "%s", search::state_name(t.state));
  if (!s.file.objectives.empty()) {
    ImGui::Separator();
    for (const auto& o : s.file.objectives) ImGui::Text("%s: %s", o.name.c_str(), objective_text(t, o.name).c_str());
  }
  if (!t.params.empty()) {
    ImGui::Separator();
    for (const auto& [k, v] : t.params.items()) ImGui::Text("%s = %s", k.c_str(), search::param_text(v).c_str());
  }
  ImGui::Separator();
  ImGui::TextDisabled("%.1f s%s%s", t.seconds, t.run.empty() ? "" : ", ", t.run.c_str());
  if (!t.message.empty()) {
    ImGui::PushTextWrapPos(360 * dpr);
    ImGui::TextWrapped("%s", t.message.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::EndTooltip();
}

// Rings the point under the mouse and shows its trial; its number, or -1.
int64_t hover(StudyState& s, const PlotFrame& f, const std::vector<ImVec2>& at, const std::vector<size_t>& trials,
              float dpr) {
  const int k = point_under_mouse(f, at, 8 * dpr);
  if (k < 0) return -1;
  ImGui::GetWindowDrawList()->AddCircle(at[k], 7 * dpr, kHoverRing, 0, 2 * dpr);
  const Trial& t = s.file.trials[trials[k]];
  trial_tooltip(s, t, dpr);
  return t.number;
}

void scatter_tab(StudyState& s, float dpr) {
  if (s.file.objectives.empty()) {
    ImGui::TextDisabled("The trials record no objectives (no \"directions\"): nothing to plot.");
    return;
  }
  size_t x = s.x, y = s.y;
  bool changed = axis_combo("across", s.axes, x, 200 * dpr);
  ImGui::SameLine();
  changed |= axis_combo("up", s.axes, y, 200 * dpr);
  if (changed) s.set_axes(x, y);
  const search::StudyScatter& sc = s.scatter;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const PlotFrame f = plot_frame(s.scatter_x, s.scatter_y, with_scale(axis_title(s.axes[s.x]), s.scatter_x),
                                 with_scale(axis_title(s.axes[s.y]), s.scatter_y),
                                 {avail.x, std::max(240 * dpr, 0.6f * avail.y)}, dpr);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(f.lo, f.hi, true);
  std::vector<ImVec2> line;
  for (const auto& p : s.front_line) line.push_back(f.at(p[0], p[1]));
  dl->AddPolyline(line.data(), static_cast<int>(line.size()), kFrontColor, 0, 1.5f * dpr);
  std::vector<ImVec2> at(sc.trials.size());
  for (size_t k = 0; k < at.size(); ++k) {
    at[k] = f.at(sc.x[k], sc.y[k]);
    s.drawn[s.file.trials[sc.trials[k]].number] = {at[k].x, at[k].y};
  }
  // Unfinished trials under complete ones, the front on top.
  for (size_t k = 0; k < at.size(); ++k)
    if (!sc.complete[k]) dl->AddCircleFilled(at[k], 3 * dpr, kUnfinishedColor);
  for (size_t k = 0; k < at.size(); ++k)
    if (sc.complete[k]) dl->AddCircleFilled(at[k], 3.5f * dpr, kPlotPoint);
  for (size_t k : sc.front) {
    dl->AddCircleFilled(at[k], 5 * dpr, kFrontColor);
    dl->AddCircle(at[k], 5 * dpr, IM_COL32(0, 0, 0, 200), 0, 1 * dpr);
  }
  dl->PopClipRect();
  const int64_t h = hover(s, f, at, sc.trials, dpr);
  if (h >= 0) s.hovered = h;
  const size_t unplotted = s.file.trials.size() - sc.trials.size();
  ImGui::TextDisabled("%zu trials plotted, %zu on the Pareto front of these two axes (orange)", sc.trials.size(),
                      sc.front.size());
  if (unplotted) ImGui::TextDisabled("%zu without values on both axes (pruned, failed): see Trials", unplotted);

  section(s.file.objectives.size() > 1 ? "Pareto front over every objective" : "Best trials");
  const size_t n_obj = s.file.objectives.size();
  if (ImGui::BeginTable("pareto", static_cast<int>(2 + n_obj),
                        ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                            ImGuiTableFlags_Resizable,
                        {0, std::max(ImGui::GetContentRegionAvail().y, 80 * dpr)})) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("trial", ImGuiTableColumnFlags_WidthFixed);
    for (const auto& o : s.file.objectives) ImGui::TableSetupColumn(o.name.c_str(), ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("parameters");
    ImGui::TableHeadersRow();
    for (size_t i : s.pareto) {
      const Trial& t = s.file.trials[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(t.number));
      for (const auto& o : s.file.objectives) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(objective_text(t, o.name).c_str());
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(params_text(t).c_str());
    }
    ImGui::EndTable();
  }
}

void params_tab(StudyState& s, float dpr) {
  if (s.params.empty()) {
    ImGui::TextDisabled("The trials have no parameters.");
    return;
  }
  size_t param = s.param, axis = s.param_axis;
  ImGui::SetNextItemWidth(200 * dpr);
  bool changed = false;
  if (ImGui::BeginCombo("parameter", s.params[param].c_str())) {
    for (size_t i = 0; i < s.params.size(); ++i)
      if (ImGui::Selectable(s.params[i].c_str(), i == param)) changed |= i != param, param = i;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  changed |= axis_combo("against", s.axes, axis, 200 * dpr);
  if (changed) s.set_param(param, axis);
  const search::ParamPlot& p = s.param_plot;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const PlotFrame f = plot_frame(s.param_x, s.param_y, with_scale(p.param, s.param_x),
                                 with_scale(axis_title(s.axes[s.param_axis]), s.param_y),
                                 {avail.x, std::max(240 * dpr, avail.y - 2 * ImGui::GetFrameHeightWithSpacing())}, dpr);
  // Trials sharing a slot spread a little sideways (the same way every frame) so that they do not hide each other.
  const float slot_w = p.categorical ? (f.hi.x - f.lo.x) / static_cast<float>(std::max<size_t>(1, p.labels.size())) : 0;
  std::vector<ImVec2> at(p.trials.size());
  for (size_t k = 0; k < at.size(); ++k) {
    at[k] = f.at(p.x[k], p.y[k]);
    const uint32_t h = static_cast<uint32_t>(s.file.trials[p.trials[k]].number) * 2654435761u;
    at[k].x += slot_w * 0.3f * (static_cast<float>(h >> 16 & 1023) / 1023.0f - 0.5f);
  }
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(f.lo, f.hi, true);
  for (size_t k = 0; k < at.size(); ++k)
    dl->AddCircleFilled(at[k], p.complete[k] ? 3.5f * dpr : 3 * dpr, p.complete[k] ? kPlotPoint : kUnfinishedColor);
  dl->PopClipRect();
  const int64_t h = hover(s, f, at, p.trials, dpr);
  if (h >= 0) s.hovered = h;
  ImGui::TextDisabled("%zu trials with %s and a value; %s", p.trials.size(), p.param.c_str(),
                      p.categorical                       ? "one slot per value"
                      : s.param_x.scale == AxisScale::Log ? "log scale: the values span more than 10x"
                                                          : "linear scale");
}

void trials_tab(const StudyState& s, float dpr) {
  const size_t n_obj = s.file.objectives.size();
  if (!ImGui::BeginTable("trials", static_cast<int>(5 + n_obj),
                         ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                             ImGuiTableFlags_Resizable,
                         {0, std::max(ImGui::GetContentRegionAvail().y, 80 * dpr)}))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("trial", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("state", ImGuiTableColumnFlags_WidthFixed);
  for (const auto& o : s.file.objectives) ImGui::TableSetupColumn(o.name.c_str(), ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("seconds", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("parameters");
  ImGui::TableSetupColumn("message");
  ImGui::TableHeadersRow();
  ImGuiListClipper clip;
  clip.Begin(static_cast<int>(s.file.trials.size()));
  while (clip.Step())
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const Trial& t = s.file.trials[static_cast<size_t>(i)];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(t.number));
      ImGui::TableNextColumn();
      ImGui::TextColored(state_color(t.state), "%s", search::state_name(t.state));
      for (const auto& o : s.file.objectives) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(objective_text(t, o.name).c_str());
      }
      ImGui::TableNextColumn();
      ImGui::Text("%.1f", t.seconds);
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(params_text(t).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(t.message.c_str());
    }
  ImGui::EndTable();
}

}  // namespace

void StudyPanel::window(float x, float y, float w, float h, float dpr) {
  if (study) {
    study->hovered = -1;
    study->drawn.clear();  // only what this frame draws
  }
  if (!study || !visible) return;
  StudyState& s = *study;
  ImGui::SetNextWindowPos({x, y}, place_ ? ImGuiCond_Always : ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize({w, h}, place_ ? ImGuiCond_Always : ImGuiCond_FirstUseEver);
  place_ = false;
  const std::string title = "Study: " + s.name + "###study";
  if (!ImGui::Begin(title.c_str(), &visible, ImGuiWindowFlags_NoCollapse)) {
    ImGui::End();
    return;
  }
  ImGui::Text("%zu trials:", s.file.trials.size());
  ImGui::SameLine();
  ImGui::TextColored(state_color(TrialState::Complete), "%zu complete", s.counts.complete);
  ImGui::SameLine();
  ImGui::TextColored(state_color(TrialState::Pruned), "%zu pruned", s.counts.pruned);
  ImGui::SameLine();
  ImGui::TextColored(state_color(TrialState::Failed), "%zu failed", s.counts.failed);
  std::string objectives;
  for (const auto& o : s.file.objectives)
    objectives += (objectives.empty() ? "" : ", ") + o.name + " (" + search::direction_name(o.direction) + ")";
  ImGui::TextDisabled("objectives: %s", objectives.empty() ? "none recorded" : objectives.c_str());
  if (ImGui::BeginTabBar("study_tabs")) {
    if (ImGui::BeginTabItem("Objectives")) {
      scatter_tab(s, dpr);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Parameters")) {
      params_tab(s, dpr);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("Trials")) {
      trials_tab(s, dpr);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  ImGui::End();
}

}  // namespace fastslow::explorer
