// The graph view: the GPU-drawn layered graph with pan, zoom at the cursor,
// fit, a minimap, labels when zoomed in, search, and node picking.
#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "app.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/view/op_family.h"

namespace fastslow::explorer {

namespace {

constexpr float kNodeW = 0.8f, kNodeH = 0.5f;

struct Viewport {
  float x, y, w, h;
  View view;
};
Viewport g_main, g_mini;

void draw_main(const ImDrawList*, const ImDrawCmd*) {
  const float fb_h = ImGui::GetIO().DisplaySize.y;
  app().renderer.draw(g_main.view, g_main.x, g_main.y, g_main.w, g_main.h, fb_h, kNodeW, kNodeH, true);
}
void draw_mini(const ImDrawList*, const ImDrawCmd*) {
  const float fb_h = ImGui::GetIO().DisplaySize.y;
  app().renderer.draw(g_mini.view, g_mini.x, g_mini.y, g_mini.w, g_mini.h, fb_h, kNodeW, kNodeH, false);
}

View fit_view(const GraphDrawing& d, float w, float h) {
  View v;
  const float gw = std::max(d.max_x - d.min_x + 2 * kNodeW, 1.0f), gh = std::max(d.max_y + 2 * kNodeH, 1.0f);
  v.zoom = std::min(w / gw, h / gh) * 0.95f;
  v.center_x = 0.5f * (d.min_x + d.max_x);
  v.center_y = 0.5f * d.max_y;
  return v;
}

ImVec2 to_screen(const View& v, const Viewport& vp, float wx, float wy) {
  return {(wx - v.center_x) * v.zoom + vp.x + 0.5f * vp.w, (wy - v.center_y) * v.zoom + vp.y + 0.5f * vp.h};
}

// The display node under a world point, or -1.
int64_t pick(const GraphDrawing& d, float wx, float wy, float zoom) {
  if (d.num_layers() == 0) return -1;
  const float layer_gap = d.max_y > 0 && d.num_layers() > 1 ? d.max_y / static_cast<float>(d.num_layers() - 1) : 1.6f;
  const int32_t l = static_cast<int32_t>(std::lround(wy / layer_gap));
  if (l < 0 || l >= d.num_layers()) return -1;
  // Small nodes stay clickable: at least 4 pixels each way.
  const float half_w = std::max(0.5f * kNodeW, 4.0f / zoom), half_h = std::max(0.5f * kNodeH, 4.0f / zoom);
  if (std::fabs(wy - static_cast<float>(l) * layer_gap) > half_h) return -1;
  const int32_t* a = d.layer_nodes.data() + d.layer_start[l];
  const int32_t* b = d.layer_nodes.data() + d.layer_start[l + 1];
  const int32_t* it = std::lower_bound(a, b, wx, [&](int32_t v, float x) { return d.x[v] < x; });
  int64_t best = -1;
  float best_dx = half_w;
  for (const int32_t* p : {it - 1, it}) {
    if (p < a || p >= b) continue;
    const float dx = std::fabs(d.x[*p] - wx);
    if (dx <= best_dx) best = *p, best_dx = dx;
  }
  return best;
}

}  // namespace

void App::fit() {
  if (!doc) return;
  view = fit_view(disp.drawing, g_main.w > 0 ? g_main.w : 800, g_main.h > 0 ? g_main.h : 600);
}

void App::fit_top() {
  // Deep graphs (thousands of layers, a few nodes wide) fit to a thin line:
  // open them at the top with about 40 layers on screen; the minimap shows where.
  fit();
  const GraphDrawing& d = disp.drawing;
  const float layer_gap = d.num_layers() > 1 ? d.max_y / static_cast<float>(d.num_layers() - 1) : 1.6f;
  const float w = g_main.w > 0 ? g_main.w : 800, h = g_main.h > 0 ? g_main.h : 600;
  const float gw = std::max(d.max_x - d.min_x + 2 * kNodeW, 1.0f);
  const float z = std::min(h / (40 * layer_gap), 0.95f * w / gw);
  if (z <= view.zoom) return;
  view.zoom = z;
  view.center_y = 0.5f * h / z - layer_gap;
}

void App::select(int64_t node) {
  selected = node;
  if (!doc || node < 0) return;
  const int32_t dn = disp.display_of[node];
  view.center_x = disp.drawing.x[dn];
  view.center_y = disp.drawing.y[dn];
  view.zoom = std::max(view.zoom, 60.0f * dpr);
}

void App::recolor() {
  if (!doc) return;
  const size_t n = disp.node_of.size();
  std::vector<uint32_t> rgba(n);
  const bool searching = search[0] != 0;
  std::vector<char> hit(searching ? n : 0, 0);
  for (int64_t h : search_hits) hit[disp.display_of[h]] = 1;
  for (size_t v = 0; v < n; ++v) {
    const int64_t orig = disp.node_of[v];
    // A collapsed computation is a pale box.
    const uint32_t c = orig < 0 ? 0xc8c8d8 : op_family_color(op_family(doc->graph.node_opcode[orig]));
    uint32_t r = (c >> 16) & 255, g = (c >> 8) & 255, b = c & 255, a = 255;
    if (searching && !hit[v]) r /= 4, g /= 4, b /= 4, a = 140;  // dim what the search did not find
    rgba[v] = (a << 24) | (b << 16) | (g << 8) | r;
  }
  renderer.set_colors(rgba);
}

void App::run_search() {
  search_hits.clear();
  search_cursor = 0;
  if (!doc || !search[0]) {
    recolor();
    return;
  }
  std::string q = search;
  for (char& ch : q) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const bool numeric = std::all_of(q.begin(), q.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) || ch == '#'; });
  if (numeric) {
    const std::string digits = q[0] == '#' ? q.substr(1) : q;
    if (!digits.empty() && digits.size() < 12) {
      const int64_t id = std::stoll(digits);
      if (id >= 0 && id < doc->graph.num_nodes) search_hits.push_back(id);
    }
  } else {
    for (int64_t v = 0; v < doc->graph.num_nodes; ++v)
      if (std::strstr(opcode_name(doc->graph.node_opcode[v]), q.c_str())) search_hits.push_back(v);
  }
  recolor();
}

void App::graph_view(float x, float y, float w, float h) {
  ImGui::SetNextWindowPos({x, y});
  ImGui::SetNextWindowSize({w, h});
  ImGui::Begin("Graph", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoBringToFrontOnFocus |
                   ImGuiWindowFlags_NoScrollWithMouse);
  if (!doc) {
    ImGui::TextDisabled("No graph open. Drop an .npz on the page or use Open.");
    ImGui::End();
    return;
  }
  // Toolbar.
  if (ImGui::Button("Fit")) fit_pending = 1;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(220 * dpr);
  if (ImGui::InputTextWithHint("##search", "search opcode or node id", search, sizeof search)) run_search();
  ImGui::SameLine();
  if (search[0]) {
    ImGui::Text("%zu found", search_hits.size());
    ImGui::SameLine();
    if (!search_hits.empty() && ImGui::Button("Next")) {
      select(search_hits[static_cast<size_t>(search_cursor % static_cast<int64_t>(search_hits.size()))]);
      ++search_cursor;
    }
  }
  ImGui::SameLine();
  if (collapsed.size() > 1) {
    ImGui::Checkbox("computations", &group_boxes);
    ImGui::SameLine();
  }
  ImGui::TextDisabled("%s: %lld nodes, %d layers", doc->name.c_str(), static_cast<long long>(doc->graph.num_nodes),
                      disp.drawing.num_layers());

  const ImVec2 p0 = ImGui::GetCursorScreenPos(), avail = ImGui::GetContentRegionAvail();
  g_main = {p0.x, p0.y, std::max(avail.x, 1.0f), std::max(avail.y, 1.0f), view};
  if (fit_pending) {
    fit_pending == 2 ? fit_top() : fit();
    fit_pending = 0;
  }
  ImGui::InvisibleButton("canvas", {g_main.w, g_main.h}, ImGuiButtonFlags_MouseButtonLeft);
  const bool hovering = ImGui::IsItemHovered();
  ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 2.0f)) {
    view.center_x -= io.MouseDelta.x / view.zoom;
    view.center_y -= io.MouseDelta.y / view.zoom;
  }
  const float mx = (io.MousePos.x - g_main.x - 0.5f * g_main.w) / view.zoom + view.center_x;
  const float my = (io.MousePos.y - g_main.y - 0.5f * g_main.h) / view.zoom + view.center_y;
  if (hovering && io.MouseWheel != 0) {
    // Zoom at the cursor: the world point under it stays put.
    const float f = std::pow(1.2f, io.MouseWheel);
    const float z = std::clamp(view.zoom * f, 1e-3f, 400.0f * dpr);
    view.center_x = mx - (mx - view.center_x) * view.zoom / z;
    view.center_y = my - (my - view.center_y) * view.zoom / z;
    view.zoom = z;
  }
  const GraphDrawing& d = disp.drawing;
  const int64_t under = hovering ? pick(d, mx, my, view.zoom) : -1;
  hovered = under >= 0 ? disp.node_of[under] : -1;  // an original node; negative = a collapsed computation
  if (ImGui::IsItemDeactivated() && io.MouseDragMaxDistanceSqr[0] < 16.0f && under >= 0) {
    if (hovered >= 0)
      selected = hovered;
    else
      set_collapsed(-1 - hovered, false);  // clicking a collapsed computation opens it
  }
  g_main.view = view;

  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled({g_main.x, g_main.y}, {g_main.x + g_main.w, g_main.y + g_main.h}, IM_COL32(24, 26, 32, 255));
  dl->AddCallback(draw_main, nullptr);
  dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
  dl->PushClipRect({g_main.x, g_main.y}, {g_main.x + g_main.w, g_main.y + g_main.h}, true);

  // Labels, configurable marks and highlights for what is on screen only.
  const float layer_gap = d.num_layers() > 1 ? d.max_y / static_cast<float>(d.num_layers() - 1) : 1.6f;
  const float y_lo = view.center_y - 0.5f * g_main.h / view.zoom, y_hi = view.center_y + 0.5f * g_main.h / view.zoom;
  const float x_lo = view.center_x - 0.5f * g_main.w / view.zoom, x_hi = view.center_x + 0.5f * g_main.w / view.zoom;
  const int32_t l_lo = std::max(0, static_cast<int32_t>(std::floor(y_lo / layer_gap)) - 1);
  const int32_t l_hi = std::min(d.num_layers() - 1, static_cast<int32_t>(std::ceil(y_hi / layer_gap)) + 1);
  const bool labels = kNodeW * view.zoom > 30.0f;
  const bool marks = kNodeW * view.zoom > 6.0f;
  int64_t drawn = 0;
  for (int32_t l = l_lo; l <= l_hi && (labels || marks) && drawn < 20000; ++l) {
    const int32_t* a = d.layer_nodes.data() + d.layer_start[l];
    const int32_t* b = d.layer_nodes.data() + d.layer_start[l + 1];
    for (const int32_t* it = std::lower_bound(a, b, x_lo - kNodeW, [&](int32_t v, float xx) { return d.x[v] < xx; });
         it < b && d.x[*it] <= x_hi + kNodeW; ++it, ++drawn) {
      const int32_t v = *it;
      const int64_t orig = disp.node_of[v];
      const ImVec2 c = to_screen(view, g_main, d.x[v], d.y[v]);
      const float hw = 0.5f * kNodeW * view.zoom, hh = 0.5f * kNodeH * view.zoom;
      if (orig >= 0 && doc->configurable[orig])
        dl->AddRect({c.x - hw - 2, c.y - hh - 2}, {c.x + hw + 2, c.y + hh + 2}, IM_COL32(255, 230, 80, 255), 0, 0, 2.0f);
      if (labels) {
        char box[48];
        if (orig < 0) std::snprintf(box, sizeof box, "comp %lld", static_cast<long long>(-1 - orig));
        const char* name = orig >= 0 ? opcode_name(doc->graph.node_opcode[orig]) : box;
        // As much of the name as fits the box.
        const char* end = name + std::strlen(name);
        ImVec2 ts = ImGui::CalcTextSize(name, end);
        while (end > name && ts.x > 2 * hw - 4) ts = ImGui::CalcTextSize(name, --end);
        if (end > name) dl->AddText({c.x - 0.5f * ts.x, c.y - 0.5f * ts.y}, IM_COL32(10, 10, 10, 255), name, end);
      }
    }
  }
  for (int64_t sel : {under, selected >= 0 ? static_cast<int64_t>(disp.display_of[selected]) : -1}) {
    const int64_t v = sel;
    if (v < 0) continue;
    const ImVec2 c = to_screen(view, g_main, d.x[v], d.y[v]);
    const float hw = std::max(0.5f * kNodeW * view.zoom, 4.0f), hh = std::max(0.5f * kNodeH * view.zoom, 4.0f);
    dl->AddRect({c.x - hw - 3, c.y - hh - 3}, {c.x + hw + 3, c.y + hh + 3}, v != under ? IM_COL32(255, 255, 255, 255) : IM_COL32(255, 255, 255, 120), 0, 0, 2.0f);
  }
  dl->PopClipRect();
  // Computation outlines: the bounding box of each computation's visible nodes.
  if (group_boxes && collapsed.size() > 1) {
    std::vector<ImVec4> box(collapsed.size(), ImVec4(INFINITY, INFINITY, -INFINITY, -INFINITY));
    for (size_t v = 0; v < disp.node_of.size(); ++v) {
      const int64_t orig = disp.node_of[v];
      const int32_t comp = orig >= 0 ? doc->computation[orig] : static_cast<int32_t>(-1 - orig);
      ImVec4& b = box[comp];
      b.x = std::min(b.x, d.x[v]), b.y = std::min(b.y, d.y[v]), b.z = std::max(b.z, d.x[v]), b.w = std::max(b.w, d.y[v]);
    }
    for (size_t k = 0; k < box.size(); ++k) {
      if (box[k].x > box[k].z) continue;
      const ImVec2 a = to_screen(view, g_main, box[k].x - kNodeW, box[k].y - kNodeH);
      const ImVec2 b = to_screen(view, g_main, box[k].z + kNodeW, box[k].w + kNodeH);
      const ImU32 col = ImColor::HSV(static_cast<float>(k % 12) / 12.0f, 0.5f, 0.9f, 0.7f);
      dl->AddRect(a, b, col, 4.0f, 0, 1.5f);
      char label[32];
      std::snprintf(label, sizeof label, "computation %zu", k);
      dl->AddText({a.x + 2, a.y - ImGui::GetTextLineHeight()}, col, label);
    }
  }
  if (hovered >= 0)
    ImGui::SetTooltip("#%lld %s%s", static_cast<long long>(hovered), opcode_name(doc->graph.node_opcode[hovered]),
                      doc->configurable[hovered] ? " (configurable)" : "");
  else if (under >= 0)
    ImGui::SetTooltip("computation %lld: %lld nodes, collapsed (click to expand)", static_cast<long long>(-1 - hovered),
                      static_cast<long long>(disp.members[under]));

  // Minimap, bottom right: the whole graph and the visible rectangle.
  const float mw = std::min(220.0f * dpr, 0.3f * g_main.w), mh = std::min(160.0f * dpr, 0.3f * g_main.h);
  g_mini = {g_main.x + g_main.w - mw - 8, g_main.y + g_main.h - mh - 8, mw, mh, {}};
  g_mini.view = fit_view(d, mw, mh);
  dl->AddRectFilled({g_mini.x, g_mini.y}, {g_mini.x + mw, g_mini.y + mh}, IM_COL32(10, 10, 14, 230));
  dl->AddCallback(draw_mini, nullptr);
  dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
  const ImVec2 r0 = to_screen(g_mini.view, g_mini, x_lo, y_lo), r1 = to_screen(g_mini.view, g_mini, x_hi, y_hi);
  dl->PushClipRect({g_mini.x, g_mini.y}, {g_mini.x + mw, g_mini.y + mh}, true);
  dl->AddRect(r0, r1, IM_COL32(255, 255, 255, 200));
  dl->PopClipRect();
  dl->AddRect({g_mini.x, g_mini.y}, {g_mini.x + mw, g_mini.y + mh}, IM_COL32(120, 120, 140, 255));
  // Clicking the minimap recentres the view.
  if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) && io.MousePos.x >= g_mini.x && io.MousePos.x < g_mini.x + mw &&
      io.MousePos.y >= g_mini.y && io.MousePos.y < g_mini.y + mh) {
    view.center_x = (io.MousePos.x - g_mini.x - 0.5f * mw) / g_mini.view.zoom + g_mini.view.center_x;
    view.center_y = (io.MousePos.y - g_mini.y - 0.5f * mh) / g_mini.view.zoom + g_mini.view.center_y;
  }

  // Legend, top right.
  float ly = g_main.y + 8;
  const float lx = g_main.x + g_main.w - 210 * dpr;
  for (int f = 0; f < kOpFamilies; ++f) {
    const uint32_t c = op_family_color(static_cast<OpFamily>(f));
    dl->AddRectFilled({lx, ly + 2}, {lx + 10 * dpr, ly + 12 * dpr}, IM_COL32((c >> 16) & 255, (c >> 8) & 255, c & 255, 255));
    dl->AddText({lx + 16 * dpr, ly}, IM_COL32(220, 220, 220, 255), op_family_name(static_cast<OpFamily>(f)));
    ly += ImGui::GetTextLineHeightWithSpacing();
  }
  dl->AddRect({lx, ly + 2}, {lx + 10 * dpr, ly + 12 * dpr}, IM_COL32(255, 230, 80, 255), 0, 0, 2.0f);
  dl->AddText({lx + 16 * dpr, ly}, IM_COL32(220, 220, 220, 255), "configurable node");
  ImGui::End();
}

}  // namespace fastslow::explorer
