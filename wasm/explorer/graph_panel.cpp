// The graph view: the GPU-drawn layered graph with pan, zoom at the cursor,
// fit, a minimap, labels when zoomed in, search, and node picking.
#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "graph_panel.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/view/op_family.h"

namespace fastslow::explorer {

namespace {

constexpr float kNodeW = 0.8f, kNodeH = 0.5f;

// Draws a pass of the graph inside ImGui's draw list (the GL state is ImGui's
// to reset afterwards).
void draw_pass(const ImDrawList*, const ImDrawCmd* cmd) {
  const auto* p = static_cast<const GraphPanel::Pass*>(cmd->UserCallbackData);
  p->renderer->draw(p->view, p->x, p->y, p->w, p->h, ImGui::GetIO().DisplaySize.y, kNodeW, kNodeH, p->edges);
}

View fit_view(const GraphDrawing& d, float w, float h) {
  View v;
  const float gw = std::max(d.max_x - d.min_x + 2 * kNodeW, 1.0f), gh = std::max(d.max_y + 2 * kNodeH, 1.0f);
  v.zoom = std::min(w / gw, h / gh) * 0.95f;
  v.center_x = 0.5f * (d.min_x + d.max_x);
  v.center_y = 0.5f * d.max_y;
  return v;
}

ImVec2 to_screen(const View& v, const GraphPanel::Pass& vp, float wx, float wy) {
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

void GraphPanel::show(const Document* doc) {
  doc_ = doc;
  selected_ = hovered_ = -1;
  query_[0] = 0;
  hits_.clear();
  hit_cursor_ = 0;
  values_.clear();
  collapsed_.assign(doc ? std::max<size_t>(1, doc->node_splits.size()) : 0, 0);
  if (doc) rebuild();
  fit_pending_ = 2;
}

void GraphPanel::rebuild() {
  const Document& doc = *doc_;
  Display d;
  const int64_t n = doc.graph.num_nodes;
  const bool any = std::find(collapsed_.begin(), collapsed_.end(), 1) != collapsed_.end();
  d.display_of.resize(static_cast<size_t>(n));
  std::vector<int64_t> box_of(collapsed_.size(), -1);
  for (int64_t v = 0; v < n; ++v) {
    const int32_t c = doc.computation[v];
    if (any && collapsed_[c]) {
      if (box_of[c] < 0) {
        box_of[c] = static_cast<int64_t>(d.node_of.size());
        d.node_of.push_back(-1 - c);
        d.members.push_back(0);
      }
      d.display_of[v] = static_cast<int32_t>(box_of[c]);
    } else {
      d.display_of[v] = static_cast<int32_t>(d.node_of.size());
      d.node_of.push_back(v);
      d.members.push_back(0);
    }
    ++d.members[d.display_of[v]];
  }
  if (!any) {
    d.drawing = doc.drawing;  // laid out when the file was opened
    d.edges = doc.graph.edge_index;
  } else {
    const auto& e = doc.graph.edge_index;
    for (size_t k = 0; k + 1 < e.size(); k += 2) {
      const int64_t u = d.display_of[e[k]], v = d.display_of[e[k + 1]];
      if (u != v) d.edges.insert(d.edges.end(), {u, v});
    }
    DrawingOptions o;
    o.layer_gap = 1.6f;
    d.drawing = draw_layered(static_cast<int64_t>(d.node_of.size()), d.edges, o);
  }
  disp_ = std::move(d);
  renderer_.set_graph(disp_.drawing, disp_.edges, std::vector<uint32_t>(disp_.node_of.size(), 0));
  recolor();
}

void GraphPanel::set_collapsed(int64_t computation, bool c) {
  if (!doc_ || computation < 0 || computation >= computations()) return;
  collapsed_[computation] = c ? 1 : 0;
  rebuild();
}

void GraphPanel::set_all_collapsed(bool c) {
  if (!doc_) return;
  std::fill(collapsed_.begin(), collapsed_.end(), c ? 1 : 0);
  rebuild();
  fit_pending_ = 1;
}

void GraphPanel::fit_now() {
  view_ = fit_view(disp_.drawing, view_w_ > 0 ? view_w_ : 800, view_h_ > 0 ? view_h_ : 600);
}

void GraphPanel::fit_top_now() {
  // Deep graphs (thousands of layers, a few nodes wide) fit to a thin line:
  // open them at the top with about 40 layers on screen; the minimap shows where.
  fit_now();
  const GraphDrawing& d = disp_.drawing;
  const float layer_gap = d.num_layers() > 1 ? d.max_y / static_cast<float>(d.num_layers() - 1) : 1.6f;
  const float w = view_w_ > 0 ? view_w_ : 800, h = view_h_ > 0 ? view_h_ : 600;
  const float gw = std::max(d.max_x - d.min_x + 2 * kNodeW, 1.0f);
  const float z = std::min(h / (40 * layer_gap), 0.95f * w / gw);
  if (z <= view_.zoom) return;
  view_.zoom = z;
  view_.center_y = 0.5f * h / z - layer_gap;
}

void GraphPanel::select(int64_t node, float dpr) {
  if (!doc_ || node >= doc_->graph.num_nodes) node = -1;
  selected_ = node < 0 ? -1 : node;
  if (selected_ < 0) return;
  const int32_t dn = disp_.display_of[node];
  view_.center_x = disp_.drawing.x[dn];
  view_.center_y = disp_.drawing.y[dn];
  view_.zoom = std::max(view_.zoom, 60.0f * dpr);
}

namespace {

// How far along the scale |v| lies, in [0, 1]: linear in |v|, or log over
// the three decades below the largest.
float value_position(double v, double max, bool log) {
  if (!(max > 0) || !std::isfinite(v)) return 0;
  const double a = std::abs(v) / max;
  if (!log) return static_cast<float>(std::min(1.0, a));
  return a <= 1e-3 ? 0.0f : static_cast<float>(std::min(1.0, 1.0 + std::log10(a) / 3.0));
}

// Diverging: grey at 0, red for positive (slower), blue for negative.
uint32_t value_color(double v, double max, bool log) {
  const float t = value_position(v, max, log);
  const float base = 150;
  const float r = v >= 0 ? base + (235 - base) * t : base - (base - 40) * t;
  const float g = base - (base - 50) * t;
  const float b = v >= 0 ? base - (base - 40) * t : base + (245 - base) * t;
  return (static_cast<uint32_t>(r) << 16) | (static_cast<uint32_t>(g) << 8) | static_cast<uint32_t>(b);
}

}  // namespace

void GraphPanel::set_node_values(std::vector<double> values, std::string title) {
  values_ = std::move(values);
  values_title_ = std::move(title);
  values_max_ = 0;
  for (double v : values_)
    if (std::isfinite(v)) values_max_ = std::max(values_max_, std::abs(v));
  recolor();
}

void GraphPanel::set_log_scale(bool log) {
  log_scale_ = log;
  recolor();
}

void GraphPanel::recolor() {
  if (!doc_) return;
  const bool by_value = !values_.empty() && static_cast<int64_t>(values_.size()) == doc_->graph.num_nodes;
  const size_t n = disp_.node_of.size();
  std::vector<uint32_t> rgba(n);
  const bool searching = query_[0] != 0;
  std::vector<char> hit(searching ? n : 0, 0);
  for (int64_t h : hits_) hit[disp_.display_of[h]] = 1;
  for (size_t v = 0; v < n; ++v) {
    const int64_t orig = disp_.node_of[v];
    // A collapsed computation is a pale box.
    uint32_t c = orig < 0 ? 0xc8c8d8 : op_family_color(op_family(doc_->graph.node_opcode[orig]));
    bool dim = searching && !hit[v];
    if (by_value && orig >= 0) {
      const double x = values_[static_cast<size_t>(orig)];
      if (std::isfinite(x)) c = value_color(x, values_max_, log_scale_);
      else c = 0x505058;
    }
    uint32_t r = (c >> 16) & 255, g = (c >> 8) & 255, b = c & 255, a = 255;
    if (dim) r /= 4, g /= 4, b /= 4, a = 140;  // dim what the search did not find
    rgba[v] = (a << 24) | (b << 16) | (g << 8) | r;
  }
  renderer_.set_colors(rgba);
}

void GraphPanel::search(const std::string& text) {
  std::snprintf(query_, sizeof query_, "%s", text.c_str());
  hits_.clear();
  hit_cursor_ = 0;
  if (!doc_ || !query_[0]) {
    recolor();
    return;
  }
  std::string q = query_;
  for (char& ch : q) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const bool numeric = std::all_of(q.begin(), q.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) || ch == '#'; });
  if (numeric) {
    const std::string digits = q[0] == '#' ? q.substr(1) : q;
    if (!digits.empty() && digits.size() < 12) {
      const int64_t id = std::stoll(digits);
      if (id >= 0 && id < doc_->graph.num_nodes) hits_.push_back(id);
    }
  } else {
    for (int64_t v = 0; v < doc_->graph.num_nodes; ++v)
      if (std::strstr(opcode_name(doc_->graph.node_opcode[v]), q.c_str())) hits_.push_back(v);
  }
  recolor();
}

void GraphPanel::draw(float x, float y, float w, float h, float dpr) {
  const Document* doc = doc_;
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
  if (ImGui::Button("Fit")) fit_pending_ = 1;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(220 * dpr);
  if (ImGui::InputTextWithHint("##search", "search opcode or node id", query_, sizeof query_)) search(query_);
  ImGui::SameLine();
  if (query_[0]) {
    ImGui::Text("%zu found", hits_.size());
    ImGui::SameLine();
    if (!hits_.empty() && ImGui::Button("Next")) {
      select(hits_[static_cast<size_t>(hit_cursor_ % static_cast<int64_t>(hits_.size()))], dpr);
      ++hit_cursor_;
    }
  }
  ImGui::SameLine();
  if (collapsed_.size() > 1) {
    ImGui::Checkbox("computations", &outline_computations);
    ImGui::SameLine();
  }
  ImGui::TextDisabled("%s: %lld nodes, %d layers", doc->name.c_str(), static_cast<long long>(doc->graph.num_nodes),
                      disp_.drawing.num_layers());

  const ImVec2 p0 = ImGui::GetCursorScreenPos(), avail = ImGui::GetContentRegionAvail();
  view_w_ = std::max(avail.x, 1.0f);
  view_h_ = std::max(avail.y, 1.0f);
  main_pass_ = {&renderer_, p0.x, p0.y, view_w_, view_h_, view_, true};
  if (fit_pending_) {
    fit_pending_ == 2 ? fit_top_now() : fit_now();
    fit_pending_ = 0;
  }
  ImGui::InvisibleButton("canvas", {main_pass_.w, main_pass_.h}, ImGuiButtonFlags_MouseButtonLeft);
  const bool hovering = ImGui::IsItemHovered();
  ImGuiIO& io = ImGui::GetIO();
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 2.0f)) {
    view_.center_x -= io.MouseDelta.x / view_.zoom;
    view_.center_y -= io.MouseDelta.y / view_.zoom;
  }
  const float mx = (io.MousePos.x - main_pass_.x - 0.5f * main_pass_.w) / view_.zoom + view_.center_x;
  const float my = (io.MousePos.y - main_pass_.y - 0.5f * main_pass_.h) / view_.zoom + view_.center_y;
  if (hovering && io.MouseWheel != 0) {
    // Zoom at the cursor: the world point under it stays put.
    const float f = std::pow(1.2f, io.MouseWheel);
    const float z = std::clamp(view_.zoom * f, 1e-3f, 400.0f * dpr);
    view_.center_x = mx - (mx - view_.center_x) * view_.zoom / z;
    view_.center_y = my - (my - view_.center_y) * view_.zoom / z;
    view_.zoom = z;
  }
  const GraphDrawing& d = disp_.drawing;
  const int64_t under = hovering ? pick(d, mx, my, view_.zoom) : -1;
  hovered_ = under >= 0 ? disp_.node_of[under] : -1;  // an original node; negative = a collapsed computation
  if (ImGui::IsItemDeactivated() && io.MouseDragMaxDistanceSqr[0] < 16.0f && under >= 0) {
    if (hovered_ >= 0)
      selected_ = hovered_;
    else
      set_collapsed(-1 - hovered_, false);  // clicking a collapsed computation opens it
  }
  main_pass_.view = view_;

  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRectFilled({main_pass_.x, main_pass_.y}, {main_pass_.x + main_pass_.w, main_pass_.y + main_pass_.h}, IM_COL32(24, 26, 32, 255));
  dl->AddCallback(draw_pass, &main_pass_);
  dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
  dl->PushClipRect({main_pass_.x, main_pass_.y}, {main_pass_.x + main_pass_.w, main_pass_.y + main_pass_.h}, true);

  // Labels, configurable marks and highlights for what is on screen only.
  const float layer_gap = d.num_layers() > 1 ? d.max_y / static_cast<float>(d.num_layers() - 1) : 1.6f;
  const float y_lo = view_.center_y - 0.5f * main_pass_.h / view_.zoom, y_hi = view_.center_y + 0.5f * main_pass_.h / view_.zoom;
  const float x_lo = view_.center_x - 0.5f * main_pass_.w / view_.zoom, x_hi = view_.center_x + 0.5f * main_pass_.w / view_.zoom;
  const int32_t l_lo = std::max(0, static_cast<int32_t>(std::floor(y_lo / layer_gap)) - 1);
  const int32_t l_hi = std::min(d.num_layers() - 1, static_cast<int32_t>(std::ceil(y_hi / layer_gap)) + 1);
  const bool labels = kNodeW * view_.zoom > 30.0f;
  const bool marks = kNodeW * view_.zoom > 6.0f;
  int64_t drawn = 0;
  for (int32_t l = l_lo; l <= l_hi && (labels || marks) && drawn < 20000; ++l) {
    const int32_t* a = d.layer_nodes.data() + d.layer_start[l];
    const int32_t* b = d.layer_nodes.data() + d.layer_start[l + 1];
    for (const int32_t* it = std::lower_bound(a, b, x_lo - kNodeW, [&](int32_t v, float xx) { return d.x[v] < xx; });
         it < b && d.x[*it] <= x_hi + kNodeW; ++it, ++drawn) {
      const int32_t v = *it;
      const int64_t orig = disp_.node_of[v];
      const ImVec2 c = to_screen(view_, main_pass_, d.x[v], d.y[v]);
      const float hw = 0.5f * kNodeW * view_.zoom, hh = 0.5f * kNodeH * view_.zoom;
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
  for (int64_t sel : {under, selected_ >= 0 ? static_cast<int64_t>(disp_.display_of[selected_]) : -1}) {
    const int64_t v = sel;
    if (v < 0) continue;
    const ImVec2 c = to_screen(view_, main_pass_, d.x[v], d.y[v]);
    const float hw = std::max(0.5f * kNodeW * view_.zoom, 4.0f), hh = std::max(0.5f * kNodeH * view_.zoom, 4.0f);
    dl->AddRect({c.x - hw - 3, c.y - hh - 3}, {c.x + hw + 3, c.y + hh + 3}, v != under ? IM_COL32(255, 255, 255, 255) : IM_COL32(255, 255, 255, 120), 0, 0, 2.0f);
  }
  dl->PopClipRect();
  // Computation outlines: the bounding box of each computation's visible nodes.
  if (outline_computations && collapsed_.size() > 1) {
    std::vector<ImVec4> box(collapsed_.size(), ImVec4(INFINITY, INFINITY, -INFINITY, -INFINITY));
    for (size_t v = 0; v < disp_.node_of.size(); ++v) {
      const int64_t orig = disp_.node_of[v];
      const int32_t comp = orig >= 0 ? doc->computation[orig] : static_cast<int32_t>(-1 - orig);
      ImVec4& b = box[comp];
      b.x = std::min(b.x, d.x[v]), b.y = std::min(b.y, d.y[v]), b.z = std::max(b.z, d.x[v]), b.w = std::max(b.w, d.y[v]);
    }
    for (size_t k = 0; k < box.size(); ++k) {
      if (box[k].x > box[k].z) continue;
      const ImVec2 a = to_screen(view_, main_pass_, box[k].x - kNodeW, box[k].y - kNodeH);
      const ImVec2 b = to_screen(view_, main_pass_, box[k].z + kNodeW, box[k].w + kNodeH);
      const ImU32 col = ImColor::HSV(static_cast<float>(k % 12) / 12.0f, 0.5f, 0.9f, 0.7f);
      dl->AddRect(a, b, col, 4.0f, 0, 1.5f);
      char label[32];
      std::snprintf(label, sizeof label, "computation %zu", k);
      dl->AddText({a.x + 2, a.y - ImGui::GetTextLineHeight()}, col, label);
    }
  }
  if (hovered_ >= 0)
    ImGui::SetTooltip("#%lld %s%s", static_cast<long long>(hovered_), opcode_name(doc->graph.node_opcode[hovered_]),
                      doc->configurable[hovered_] ? " (configurable)" : "");
  else if (under >= 0)
    ImGui::SetTooltip("computation %lld: %lld nodes, collapsed_ (click to expand)", static_cast<long long>(-1 - hovered_),
                      static_cast<long long>(disp_.members[under]));

  // Minimap, bottom right: the whole graph and the visible rectangle.
  const float mw = std::min(220.0f * dpr, 0.3f * main_pass_.w), mh = std::min(160.0f * dpr, 0.3f * main_pass_.h);
  mini_pass_ = {&renderer_, main_pass_.x + main_pass_.w - mw - 8, main_pass_.y + main_pass_.h - mh - 8, mw, mh, {}, false};
  mini_pass_.view = fit_view(d, mw, mh);
  dl->AddRectFilled({mini_pass_.x, mini_pass_.y}, {mini_pass_.x + mw, mini_pass_.y + mh}, IM_COL32(10, 10, 14, 230));
  dl->AddCallback(draw_pass, &mini_pass_);
  dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
  const ImVec2 r0 = to_screen(mini_pass_.view, mini_pass_, x_lo, y_lo), r1 = to_screen(mini_pass_.view, mini_pass_, x_hi, y_hi);
  dl->PushClipRect({mini_pass_.x, mini_pass_.y}, {mini_pass_.x + mw, mini_pass_.y + mh}, true);
  dl->AddRect(r0, r1, IM_COL32(255, 255, 255, 200));
  dl->PopClipRect();
  dl->AddRect({mini_pass_.x, mini_pass_.y}, {mini_pass_.x + mw, mini_pass_.y + mh}, IM_COL32(120, 120, 140, 255));
  // Clicking the minimap recentres the view_.
  if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) && io.MousePos.x >= mini_pass_.x && io.MousePos.x < mini_pass_.x + mw &&
      io.MousePos.y >= mini_pass_.y && io.MousePos.y < mini_pass_.y + mh) {
    view_.center_x = (io.MousePos.x - mini_pass_.x - 0.5f * mw) / mini_pass_.view.zoom + mini_pass_.view.center_x;
    view_.center_y = (io.MousePos.y - mini_pass_.y - 0.5f * mh) / mini_pass_.view.zoom + mini_pass_.view.center_y;
  }

  // The largest values are hot spots: marked on the minimap.
  if (!values_.empty() && static_cast<int64_t>(values_.size()) == doc->graph.num_nodes) {
    std::vector<int64_t> top;
    for (size_t i = 0; i < values_.size(); ++i)
      if (std::isfinite(values_[i]) && values_[i] != 0) top.push_back(static_cast<int64_t>(i));
    std::partial_sort(top.begin(), top.begin() + std::min<size_t>(top.size(), 5), top.end(),
                      [&](int64_t a, int64_t b) { return std::abs(values_[a]) > std::abs(values_[b]); });
    dl->PushClipRect({mini_pass_.x, mini_pass_.y}, {mini_pass_.x + mw, mini_pass_.y + mh}, true);
    for (size_t k = 0; k < std::min<size_t>(top.size(), 5); ++k) {
      const int32_t dn = disp_.display_of[top[k]];
      const ImVec2 c = to_screen(mini_pass_.view, mini_pass_, d.x[dn], d.y[dn]);
      const uint32_t col = value_color(values_[top[k]], values_max_, log_scale_);
      dl->AddCircle(c, 6 * dpr, IM_COL32((col >> 16) & 255, (col >> 8) & 255, col & 255, 255), 12, 2.0f * dpr);
    }
    dl->PopClipRect();
  }

  // Legend, top right.
  float ly = main_pass_.y + 8;
  const float lx = main_pass_.x + main_pass_.w - 210 * dpr;
  if (!values_.empty() && static_cast<int64_t>(values_.size()) == doc->graph.num_nodes) {
    // A colour bar from -max (faster, blue) through 0 to +max (slower, red).
    const ImU32 text = IM_COL32(220, 220, 220, 255);
    dl->AddText({lx, ly}, text, values_title_.c_str());
    ly += ImGui::GetTextLineHeightWithSpacing();
    const float bw = 180 * dpr, bh = 12 * dpr;
    for (int k = 0; k < 60; ++k) {
      const double v = values_max_ * (-1.0 + 2.0 * (k + 0.5) / 60.0);
      // On a log scale the bar's halves run over three decades each.
      const double shown = log_scale_ ? (v >= 0 ? 1 : -1) * values_max_ * std::pow(10.0, 3.0 * (std::abs(v) / values_max_ - 1)) : v;
      const uint32_t c = value_color(shown, values_max_, log_scale_);
      dl->AddRectFilled({lx + bw * k / 60, ly}, {lx + bw * (k + 1) / 60, ly + bh},
                        IM_COL32((c >> 16) & 255, (c >> 8) & 255, c & 255, 255));
    }
    ly += bh + 2;
    char lo[32], hi[32];
    std::snprintf(lo, sizeof lo, "%.3g", -values_max_);
    std::snprintf(hi, sizeof hi, "+%.3g", values_max_);
    dl->AddText({lx, ly}, text, lo);
    dl->AddText({lx + 0.5f * bw - 4, ly}, text, "0");
    dl->AddText({lx + bw - ImGui::CalcTextSize(hi).x, ly}, text, hi);
    ly += ImGui::GetTextLineHeightWithSpacing();
    dl->AddText({lx, ly}, text, log_scale_ ? "log: 3 decades each side" : "linear");
    ly += ImGui::GetTextLineHeightWithSpacing();
    dl->AddText({lx, ly}, IM_COL32(160, 160, 170, 255), "red: slower, blue: faster");
    ImGui::End();
    return;
  }
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
