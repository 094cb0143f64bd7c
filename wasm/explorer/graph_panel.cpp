// The graph view: the GPU-drawn layered graph with pan, zoom at the cursor,
// fit, a minimap, labels when zoomed in, search, and node picking.
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>

#include "graph_panel.h"
#include "fastslow/error.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/graph/prune.h"
#include "fastslow/view/graph_svg.h"
#include "fastslow/view/open_in_place.h"
#include "fastslow/view/op_family.h"

namespace fastslow::explorer {

namespace {

constexpr float kNodeW = 0.8f, kNodeH = 0.5f;
constexpr uint32_t kHighlight = 0xff40d0;  // magenta: no op family uses it

ImU32 im_color(uint32_t rgb, uint32_t alpha = 255) {
  return IM_COL32((rgb >> 16) & 255, (rgb >> 8) & 255, rgb & 255, alpha);
}

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
  found_ = {};
  search_error_.clear();
  hit_cursor_ = -1;
  values_.clear();
  highlight_.clear();
  node_set_ = NodeSet::All;
  collapsed_.assign(doc ? std::max<size_t>(1, doc->node_splits.size()) : 0, 0);
  chains_ = doc ? elementwise_chains(doc->graph) : NodeGroups{};
  chain_folded_.assign(static_cast<size_t>(chains_.groups()), 0);
  blocks_ = doc ? repeated_blocks(doc->graph, doc->drawing.layer) : NodeGroups{};
  block_folded_.assign(static_cast<size_t>(blocks_.groups()), 0);
  if (doc) rebuild();
  fit_pending_ = 2;
}

void GraphPanel::rebuild(int64_t opened) {
  const Document& doc = *doc_;
  Display d;
  const int64_t n = doc.graph.num_nodes;
  std::vector<char> keep;  // empty: every node
  if (node_set_ == NodeSet::ModelReads && !doc.config_nodes.empty()) {
    keep.assign(static_cast<size_t>(n), 0);
    for (int64_t v : prune_graph(doc.graph, doc.config_nodes, khop_).kept) keep[v] = 1;
  }
  const int64_t comps = computations();
  const bool any = std::find(collapsed_.begin(), collapsed_.end(), 1) != collapsed_.end() || folded_chains() > 0 ||
                   folded_blocks() > 0;
  d.display_of.assign(static_cast<size_t>(n), -1);
  std::vector<int64_t> box_of(static_cast<size_t>(comps + chains() + blocks()), -1);
  for (int64_t v = 0; v < n; ++v) {
    if (!keep.empty() && !keep[v]) {
      ++d.hidden;
      continue;
    }
    // A collapsed computation holds all its nodes; else a folded block, then
    // a folded chain, its own.
    const int32_t c = doc.computation[v], ch = chains_.group_of[v], bl = blocks_.group_of[v];
    const int64_t box = collapsed_[c]                        ? c
                        : bl >= 0 && block_folded_[bl]       ? comps + chains() + bl
                        : ch >= 0 && chain_folded_[ch]       ? comps + ch
                                                             : -1;
    if (box >= 0) {
      if (box_of[box] < 0) {
        box_of[box] = static_cast<int64_t>(d.node_of.size());
        d.node_of.push_back(-1 - box);
        d.members.push_back(0);
      }
      d.display_of[v] = static_cast<int32_t>(box_of[box]);
    } else {
      d.display_of[v] = static_cast<int32_t>(d.node_of.size());
      d.node_of.push_back(v);
      d.members.push_back(0);
    }
    ++d.members[d.display_of[v]];
  }
  const int64_t dn = static_cast<int64_t>(d.node_of.size());
  if (!any && keep.empty()) d.edges = doc.graph.edge_index;
  else {
    const auto& e = doc.graph.edge_index;
    for (size_t k = 0; k + 1 < e.size(); k += 2) {
      const int64_t u = d.display_of[e[k]], v = d.display_of[e[k + 1]];
      if (u >= 0 && v >= 0 && u != v) d.edges.insert(d.edges.end(), {u, v});
    }
  }
  if (opened >= 0 && open_stable(d, opened)) {
    // laid out in place of the box
  } else if (!any && keep.empty()) {
    d.drawing = doc.drawing;  // laid out when the file was opened
  } else {
    DrawingOptions o;
    o.layer_gap = 1.6f;
    // The model's view is many small neighbourhoods: rows shaped like the view.
    if (!keep.empty()) o.pack_aspect = view_w_ > 0 && view_h_ > 0 ? view_w_ / view_h_ : 1.2f;
    d.drawing = draw_layered(dn, d.edges, o);
  }
  // Neighbours of each display node, for the hover and selection overlay.
  build_csr(dn, d.edges, true, d.in_ptr, d.in_idx);
  build_csr(dn, d.edges, false, d.out_ptr, d.out_idx);
  d.hubs = find_hubs(dn, d.edges, edge_options.hub_degree);
  for (int64_t v = 0; v < dn; ++v)
    if (d.hubs[v]) d.hub_list.push_back(static_cast<int32_t>(v));
  // A box holding a configurable node is marked too: the marks say where a
  // config acts, folded or not.
  std::vector<char> holds(static_cast<size_t>(dn), 0);
  for (int64_t v = 0; v < n; ++v)
    if (doc.configurable[v] && d.display_of[v] >= 0) holds[d.display_of[v]] = 1;
  for (int64_t v = 0; v < dn; ++v)
    if (holds[v]) d.marked.push_back(static_cast<int32_t>(v));
  disp_ = std::move(d);
  renderer_.set_graph(disp_.drawing, std::vector<uint32_t>(disp_.node_of.size(), 0));
  seg_level_ = 0;  // the segments follow at the next frame's zoom
  recolor();
}

bool GraphPanel::open_stable(Display& d, int64_t opened) const {
  const Display& old = disp_;
  const auto box_at = std::find(old.node_of.begin(), old.node_of.end(), -1 - opened);
  if (box_at == old.node_of.end()) return false;
  const int32_t old_box = static_cast<int32_t>(box_at - old.node_of.begin());
  // Every other old display node is still there (an original node, or a box
  // that stayed folded); the new ones are what the box held.
  std::unordered_map<int64_t, int32_t> now;
  for (size_t i = 0; i < d.node_of.size(); ++i) now.emplace(d.node_of[i], static_cast<int32_t>(i));
  std::vector<int32_t> outer_to_new(old.node_of.size(), -1);
  std::vector<char> kept(d.node_of.size(), 0);
  for (size_t j = 0; j < old.node_of.size(); ++j) {
    if (static_cast<int32_t>(j) == old_box) continue;
    const auto it = now.find(old.node_of[j]);
    if (it == now.end()) return false;
    outer_to_new[j] = it->second;
    kept[it->second] = 1;
  }
  std::vector<int32_t> inside_to_new, local(d.node_of.size(), -1);
  for (size_t i = 0; i < d.node_of.size(); ++i)
    if (!kept[i]) local[i] = static_cast<int32_t>(inside_to_new.size()), inside_to_new.push_back(static_cast<int32_t>(i));
  std::vector<int64_t> inner_edges;
  for (size_t k = 0; k + 1 < d.edges.size(); k += 2)
    if (local[d.edges[k]] >= 0 && local[d.edges[k + 1]] >= 0) inner_edges.insert(inner_edges.end(), {local[d.edges[k]], local[d.edges[k + 1]]});
  DrawingOptions o;
  o.layer_gap = 1.6f;
  const GraphDrawing inside = draw_layered(static_cast<int64_t>(inside_to_new.size()), inner_edges, o);
  d.drawing = open_in_place(old.drawing, old_box, inside, outer_to_new, inside_to_new, o.layer_gap);
  return true;
}

void GraphPanel::update_edges(float level) {
  segs_ = edge_segments(disp_.drawing, disp_.edges, disp_.hubs, level, edge_options);
  renderer_.set_edges(segs_, level);
  seg_level_ = level;
}

void GraphPanel::set_node_set(NodeSet set, int khop) {
  if (!doc_) return;
  node_set_ = set;
  khop_ = std::max(0, khop);
  rebuild();
  fit_pending_ = 1;
}

void GraphPanel::set_chains_folded(bool folded) {
  if (!doc_) return;
  std::fill(chain_folded_.begin(), chain_folded_.end(), folded ? 1 : 0);
  rebuild();
  fit_pending_ = 1;
}

void GraphPanel::set_chain_folded(int64_t chain, bool folded) {
  if (!doc_ || chain < 0 || chain >= chains()) return;
  if (!folded) return open_box(computations() + chain);
  chain_folded_[chain] = 1;
  rebuild();
}

void GraphPanel::set_blocks_folded(bool folded) {
  if (!doc_) return;
  std::fill(block_folded_.begin(), block_folded_.end(), folded ? 1 : 0);
  rebuild();
  fit_pending_ = 1;
}

GraphPanel::BoxKind GraphPanel::box_kind(int64_t box) const {
  return box < computations() ? BoxKind::Computation : box < computations() + chains() ? BoxKind::Chain : BoxKind::Block;
}

std::string GraphPanel::box_name(int64_t box) const {
  switch (box_kind(box)) {
    case BoxKind::Computation:
      return "computation " + std::to_string(box);
    case BoxKind::Chain: {
      const int64_t ch = box - computations();
      return "chain of " + std::to_string(chains_.size[ch]) + " ending in " + opcode_name(doc_->graph.node_opcode[chains_.root[ch]]);
    }
    case BoxKind::Block:
      break;
  }
  // "copy 3 of 24 (run 2 of 3)": which copy of the block, in which run of copies.
  const int64_t b = box - computations() - chains();
  const int32_t run = blocks_.run[b], runs = blocks_.run.back() + 1;
  const int64_t first = std::find(blocks_.run.begin(), blocks_.run.end(), run) - blocks_.run.begin();
  const int64_t copies = std::count(blocks_.run.begin(), blocks_.run.end(), run);
  std::string name = "copy " + std::to_string(b - first + 1) + " of " + std::to_string(copies) + " of a repeated block";
  if (runs > 1) name += " (run " + std::to_string(run + 1) + " of " + std::to_string(runs) + ")";
  return name;
}

void GraphPanel::open_box(int64_t box) {
  if (!doc_ || box < 0) return;
  char* flag = nullptr;
  switch (box_kind(box)) {
    case BoxKind::Computation:
      flag = &collapsed_[box];
      break;
    case BoxKind::Chain:
      flag = &chain_folded_[box - computations()];
      break;
    case BoxKind::Block:
      if (box - computations() - chains() < blocks()) flag = &block_folded_[box - computations() - chains()];
      break;
  }
  if (!flag || !*flag) return;  // out of range, or open already
  *flag = 0;
  rebuild(box);
}

void GraphPanel::set_collapsed(int64_t computation, bool c) {
  if (!doc_ || computation < 0 || computation >= computations()) return;
  if (!c) return open_box(computation);
  collapsed_[computation] = 1;
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
  if (disp_.display_of[node] < 0) set_node_set(NodeSet::All);  // left out of the model's view: show everything
  const int32_t dn = disp_.display_of[node];
  view_.center_x = disp_.drawing.x[dn];
  view_.center_y = disp_.drawing.y[dn];
  view_.zoom = std::max(view_.zoom, 60.0f * dpr);
  fit_pending_ = 0;
}

void GraphPanel::walk(int dx, int dy, float dpr) {
  if (!doc_ || selected_ < 0) return;
  const Document& doc = *doc_;
  int64_t next = -1;
  if (dy < 0 && doc.in_ptr[selected_] < doc.in_ptr[selected_ + 1]) next = doc.in_idx[doc.in_ptr[selected_]];
  if (dy > 0 && doc.out_ptr[selected_] < doc.out_ptr[selected_ + 1]) next = doc.out_idx[doc.out_ptr[selected_]];
  if (dx != 0) {
    // The neighbour in the drawn layer (left or right), skipping collapsed boxes.
    const GraphDrawing& d = disp_.drawing;
    const int32_t v = disp_.display_of[selected_];
    const int32_t l = d.layer[v];
    const int32_t* a = d.layer_nodes.data() + d.layer_start[l];
    const int32_t* b = d.layer_nodes.data() + d.layer_start[l + 1];
    for (const int32_t* it = std::find(a, b, v) + dx; it >= a && it < b; it += dx)
      if (disp_.node_of[*it] >= 0) {
        next = disp_.node_of[*it];
        break;
      }
  }
  if (next >= 0) select(next, dpr);
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

void GraphPanel::set_node_values(std::vector<double> values, std::string title, std::string caption) {
  values_ = std::move(values);
  values_title_ = std::move(title);
  values_caption_ = std::move(caption);
  values_max_ = 0;
  values_signed_ = false;
  for (double v : values_)
    if (std::isfinite(v)) values_max_ = std::max(values_max_, std::abs(v)), values_signed_ = values_signed_ || v < 0;
  recolor();
}

void GraphPanel::set_highlight(std::vector<int64_t> nodes, std::string title) {
  highlight_ = std::move(nodes);
  highlight_title_ = std::move(title);
  recolor();
}

void GraphPanel::set_log_scale(bool log) {
  log_scale_ = log;
  recolor();
}

void GraphPanel::node_colors(std::vector<uint32_t>* rgb, std::vector<char>* dim) const {
  const bool by_value = !values_.empty() && static_cast<int64_t>(values_.size()) == doc_->graph.num_nodes;
  const size_t n = disp_.node_of.size();
  rgb->assign(n, 0);
  dim->assign(n, 0);
  const bool searching = query_[0] != 0;
  std::vector<char> hit(searching ? n : 0, 0);
  for (int64_t h : found_.nodes)
    if (disp_.display_of[h] >= 0) hit[disp_.display_of[h]] = 1;
  std::vector<char> lit(highlight_.empty() ? 0 : n, 0);
  for (int64_t h : highlight_)
    if (h >= 0 && h < doc_->graph.num_nodes && disp_.display_of[h] >= 0) lit[disp_.display_of[h]] = 1;
  for (size_t v = 0; v < n; ++v) {
    const int64_t orig = disp_.node_of[v];
    // A collapsed computation is a pale box; a folded chain is elementwise.
    uint32_t c = orig >= 0                          ? op_family_color(op_family(doc_->graph.node_opcode[orig]))
                 : -1 - orig < computations() ? 0xc8c8d8u
                                              : op_family_color(OpFamily::Elementwise);
    if (by_value && orig >= 0) {
      const double x = values_[static_cast<size_t>(orig)];
      c = std::isfinite(x) ? value_color(x, values_max_, log_scale_) : 0x505058;
    }
    if (!lit.empty() && lit[v]) c = kHighlight;
    (*rgb)[v] = c;
    // Dim what the search did not find, and what a highlight leaves out.
    (*dim)[v] = (searching && !hit[v]) || (!lit.empty() && !lit[v]);
  }
}

void GraphPanel::recolor() {
  if (!doc_) return;
  std::vector<uint32_t> rgb;
  std::vector<char> dim;
  node_colors(&rgb, &dim);
  std::vector<uint32_t> rgba(rgb.size());
  for (size_t v = 0; v < rgb.size(); ++v) {
    const uint32_t c = rgb[v];
    uint32_t r = (c >> 16) & 255, g = (c >> 8) & 255, b = c & 255, a = 255;
    if (dim[v]) r /= 4, g /= 4, b /= 4, a = 140;
    rgba[v] = (a << 24) | (b << 16) | (g << 8) | r;
  }
  renderer_.set_colors(rgba);
}

void GraphPanel::search(const std::string& text) {
  std::snprintf(query_, sizeof query_, "%s", text.c_str());
  searched_ = query_;
  found_ = {};
  search_error_.clear();
  hit_cursor_ = -1;
  if (doc_ && query_[0]) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      found_ = search_nodes(doc_->graph, doc_->configurable, query_);
    } catch (const Error& e) {
      search_error_ = e.what();
    }
    search_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  recolor();
}

void GraphPanel::step_search(int delta, float dpr) {
  const auto& starts = found_.starts;
  if (starts.empty()) return;
  const int64_t m = static_cast<int64_t>(starts.size());
  hit_cursor_ = hit_cursor_ < 0 ? (delta >= 0 ? 0 : m - 1) : ((hit_cursor_ + delta) % m + m) % m;
  select(starts[static_cast<size_t>(hit_cursor_)], dpr);
}

std::string GraphPanel::svg(float scale, int64_t* nodes) const {
  if (!doc_) throw Error("no graph open");
  const Document& doc = *doc_;
  GraphSvgContent c;
  std::vector<char> dim;
  node_colors(&c.rgb, &dim);
  const size_t n = disp_.node_of.size();
  c.outlined.assign(n, 0);
  for (int32_t v : disp_.marked) c.outlined[v] = 1;  // as on screen
  for (size_t v = 0; v < n; ++v) {
    const int64_t orig = disp_.node_of[v];
    if (dim[v]) c.rgb[v] = (c.rgb[v] >> 2) & 0x3f3f3f;
    c.id.push_back(orig);
    if (orig < 0) {
      c.label.push_back(box_name(-1 - orig));
      c.tooltip.push_back(box_name(-1 - orig) + ": " + std::to_string(disp_.members[v]) + " nodes");
    } else {
      c.label.push_back(opcode_name(doc.graph.node_opcode[orig]));
      c.tooltip.push_back("#" + std::to_string(orig) + " " + c.label.back() + " " + node_shape_text(doc.graph, orig) +
                          (doc.configurable[orig] ? " (configurable)" : ""));
    }
  }
  if (!highlight_.empty()) c.legend.emplace_back(highlight_title_, kHighlight);
  for (int f = 0; f < kOpFamilies; ++f) c.legend.emplace_back(op_family_name(static_cast<OpFamily>(f)), op_family_color(static_cast<OpFamily>(f)));
  c.caption = doc.name + ": " + std::to_string(doc.graph.num_nodes) + " nodes" +
              (disp_.hidden ? ", " + std::to_string(disp_.hidden) + " not shown" : "") + (query_[0] ? ", search: " + std::string(query_) : "");
  GraphSvgView v;
  v.center_x = view_.center_x;
  v.center_y = view_.center_y;
  v.zoom = view_.zoom;
  v.width = view_w_ > 0 ? view_w_ : 800;
  v.height = view_h_ > 0 ? view_h_ : 600;
  v.scale = scale;
  v.node_w = kNodeW;
  v.node_h = kNodeH;
  // The segments the screen shows at this zoom.
  const EdgeSegments segs = seg_level_ > 0 ? segs_ : edge_segments(disp_.drawing, disp_.edges, disp_.hubs, edge_lod_level(view_.zoom), edge_options);
  GraphSvg out = graph_svg(disp_.drawing, segs, c, v);
  if (nodes) *nodes = out.nodes;
  return std::move(out.text);
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
  ImGuiIO& io = ImGui::GetIO();
  if (ImGui::Button("Fit")) fit_pending_ = 1;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(240 * dpr);
  // Typing searches; Enter steps to the next match (Shift+Enter: back) and
  // keeps the focus in the box for the next Enter.
  if (ImGui::InputTextWithHint("##search", "search: dot, #12, rank:4, dot -> add", query_, sizeof query_,
                               ImGuiInputTextFlags_EnterReturnsTrue)) {
    if (searched_ != query_) search(query_);
    step_search(io.KeyShift ? -1 : 1, dpr);
    ImGui::SetKeyboardFocusHere(-1);
  }
  if (searched_ != query_) search(query_);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("opcode (or part of one), #id, configurable, rank:N, shape:8x128 (* for any), dim:N;\n"
                      "terms separated by spaces must all hold; a -> b -> c finds chains of users.\nEnter: next match");
  ImGui::SameLine();
  if (!search_error_.empty()) {
    ImGui::TextColored({1, 0.45f, 0.4f, 1}, "?");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", search_error_.c_str());
    ImGui::SameLine();
  } else if (query_[0]) {
    ImGui::Text("%zu found", found_.starts.size());
    ImGui::SameLine();
    if (!found_.starts.empty() && ImGui::Button("Next")) step_search(1, dpr);
    ImGui::SameLine();
  }
  if (!doc->config_nodes.empty()) {
    const char* sets[] = {"all nodes", "what the model reads"};
    int set = node_set_ == NodeSet::All ? 0 : 1;
    ImGui::SetNextItemWidth(170 * dpr);
    if (ImGui::Combo("##nodes", &set, sets, 2)) set_node_set(set ? NodeSet::ModelReads : NodeSet::All, khop_);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("What the model reads: the configurable nodes and their %d-hop neighbourhood (--khop); the rest is left out", khop_);
    ImGui::SameLine();
  }
  if (collapsed_.size() > 1) {
    ImGui::Checkbox("computations", &outline_computations);
    ImGui::SameLine();
  }
  // "fold N blocks", "fold N chains": all folded, or all open.
  auto fold_box = [&](int64_t count, int64_t folded_now, const char* what, const char* tip, auto set) {
    if (count == 0) return;
    bool folded = folded_now == count;
    char label[48];
    std::snprintf(label, sizeof label, "fold %lld %s", static_cast<long long>(count), what);
    if (ImGui::Checkbox(label, &folded)) set(folded);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
    ImGui::SameLine();
  };
  fold_box(blocks(), folded_blocks(), "blocks",
           "The graph repeats a block (a transformer's layers): one box per copy; click a box to open it in place",
           [&](bool f) { set_blocks_folded(f); });
  fold_box(chains(), folded_chains(), "chains",
           "Chains of elementwise ops between heavier ones as one box each; click a box to open it",
           [&](bool f) { set_chains_folded(f); });
  ImGui::TextDisabled("%s: %lld nodes%s, %d layers", doc->name.c_str(),
                      static_cast<long long>(doc->graph.num_nodes - disp_.hidden),
                      disp_.hidden ? " shown" : "", disp_.drawing.num_layers());

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
      open_box(-1 - hovered_);  // clicking a collapsed computation or a folded chain opens it
  }
  // Keys walk the graph from the selection unless a text field has them.
  if (!io.WantTextInput && selected_ >= 0) {
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_UpArrow))) walk(0, -1, dpr);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_DownArrow))) walk(0, 1, dpr);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow))) walk(-1, 0, dpr);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow))) walk(1, 0, dpr);
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) selected_ = -1;
  }
  main_pass_.view = view_;
  const float level = edge_lod_level(view_.zoom);
  if (level != seg_level_) update_edges(level);
  stats_ = {};
  stats_.segments = renderer_.edge_segments();
  stats_.hubs = static_cast<int64_t>(disp_.hub_list.size());

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
  int64_t drawn = 0;
  for (int32_t l = l_lo; l <= l_hi && labels && drawn < 20000; ++l) {
    const int32_t* a = d.layer_nodes.data() + d.layer_start[l];
    const int32_t* b = d.layer_nodes.data() + d.layer_start[l + 1];
    for (const int32_t* it = std::lower_bound(a, b, x_lo - kNodeW, [&](int32_t v, float xx) { return d.x[v] < xx; });
         it < b && d.x[*it] <= x_hi + kNodeW; ++it, ++drawn) {
      const int32_t v = *it;
      const int64_t orig = disp_.node_of[v];
      const ImVec2 c = to_screen(view_, main_pass_, d.x[v], d.y[v]);
      const float hw = 0.5f * kNodeW * view_.zoom;
      char box[48];
      if (orig < 0)
        std::snprintf(box, sizeof box, -1 - orig < computations() ? "comp %lld" : "chain %lld",
                      static_cast<long long>(-1 - orig < computations() ? -1 - orig : -1 - orig - computations()));
      const char* name = orig >= 0 ? opcode_name(doc->graph.node_opcode[orig]) : box;
      // As much of the name as fits the box.
      const char* end = name + std::strlen(name);
      ImVec2 ts = ImGui::CalcTextSize(name, end);
      while (end > name && ts.x > 2 * hw - 4) ts = ImGui::CalcTextSize(name, --end);
      if (end > name) dl->AddText({c.x - 0.5f * ts.x, c.y - 0.5f * ts.y}, IM_COL32(10, 10, 10, 255), name, end);
    }
  }
  // Highlighted nodes (a comparison's) are filled marks at any zoom.
  for (int64_t h : highlight_) {
    const int32_t v = h >= 0 && h < doc->graph.num_nodes ? disp_.display_of[h] : -1;
    if (v < 0) continue;
    const ImVec2 c = to_screen(view_, main_pass_, d.x[v], d.y[v]);
    const float hw = std::max(0.5f * kNodeW * view_.zoom, 3.5f), hh = std::max(0.5f * kNodeH * view_.zoom, 3.5f);
    dl->AddRectFilled({c.x - hw, c.y - hh}, {c.x + hw, c.y + hh}, im_color(kHighlight));
  }
  // Every configurable node on screen gets its mark, at any zoom (at least
  // 5 x 5 pixels): where the configs act is what a user looks for first.
  // With node values shown and nodes too small for labels, a mark is filled
  // with its node's colour (7 x 7 at least), the largest values drawn last,
  // on top: at fit, the node a config's cost or the measured runtimes hinge
  // on stands out.
  const bool valued = !values_.empty() && static_cast<int64_t>(values_.size()) == doc->graph.num_nodes;
  auto value_of = [&](int32_t v) {
    const int64_t orig = disp_.node_of[v];
    return orig >= 0 && std::isfinite(values_[static_cast<size_t>(orig)]) ? values_[static_cast<size_t>(orig)] : NAN;
  };
  // Only coloured marks need an order (and a copy to hold it), and only where they get filled.
  std::vector<int32_t> sorted;
  if (valued && !labels) {
    sorted = disp_.marked;
    std::stable_sort(sorted.begin(), sorted.end(), [&](int32_t a, int32_t b) {
      const double x = value_of(a), y = value_of(b);
      return (std::isfinite(x) ? std::abs(x) : -1.0) < (std::isfinite(y) ? std::abs(y) : -1.0);
    });
  }
  for (int32_t v : valued && !labels ? sorted : disp_.marked) {
    const ImVec2 c = to_screen(view_, main_pass_, d.x[v], d.y[v]);
    if (c.x < main_pass_.x - 4 || c.x > main_pass_.x + main_pass_.w + 4 || c.y < main_pass_.y - 4 ||
        c.y > main_pass_.y + main_pass_.h + 4)
      continue;
    // Where labels show, the node's own box carries its colour.
    const double x = valued && !labels ? value_of(v) : NAN;
    const float least = std::isfinite(x) ? 3.5f : 1.5f;
    const float hw = std::max(0.5f * kNodeW * view_.zoom, least), hh = std::max(0.5f * kNodeH * view_.zoom, least);
    if (std::isfinite(x)) dl->AddRectFilled({c.x - hw, c.y - hh}, {c.x + hw, c.y + hh}, im_color(value_color(x, values_max_, log_scale_)));
    dl->AddRect({c.x - hw - 1, c.y - hh - 1}, {c.x + hw + 1, c.y + hh + 1}, IM_COL32(255, 230, 80, 255), 0, 0, 1.5f);
    ++stats_.marks;
  }
  // The hovered and the selected node's edges, all of them (a hub's too),
  // over the view; hubs on screen carry their edge count.
  const int32_t sel_dn = selected_ >= 0 ? disp_.display_of[selected_] : -1;
  const int64_t overlay[2] = {under, under == sel_dn ? -1 : sel_dn};
  for (int64_t v : overlay) {
    if (v < 0) continue;
    const ImVec2 c = to_screen(view_, main_pass_, d.x[v], d.y[v]);
    const ImU32 in_col = IM_COL32(120, 200, 255, 200), out_col = IM_COL32(255, 170, 90, 200);
    for (int64_t k = disp_.in_ptr[v]; k < disp_.in_ptr[v + 1] && stats_.overlay_edges < 20000; ++k, ++stats_.overlay_edges) {
      const int32_t p = disp_.in_idx[k];
      dl->AddLine(to_screen(view_, main_pass_, d.x[p], d.y[p]), c, in_col, 1.5f);
    }
    for (int64_t k = disp_.out_ptr[v]; k < disp_.out_ptr[v + 1] && stats_.overlay_edges < 20000; ++k, ++stats_.overlay_edges) {
      const int32_t u = disp_.out_idx[k];
      dl->AddLine(c, to_screen(view_, main_pass_, d.x[u], d.y[u]), out_col, 1.5f);
    }
  }
  // Badges that would cover one already drawn are left out (hovering the
  // hub still shows its edges).
  std::vector<ImVec4> badges;
  for (int32_t v : disp_.hub_list) {
    const ImVec2 c = to_screen(view_, main_pass_, d.x[v], d.y[v]);
    if (c.x < main_pass_.x || c.x > main_pass_.x + main_pass_.w || c.y < main_pass_.y || c.y > main_pass_.y + main_pass_.h) continue;
    const int64_t degree = std::max(disp_.in_ptr[v + 1] - disp_.in_ptr[v], disp_.out_ptr[v + 1] - disp_.out_ptr[v]);
    char badge[24];
    std::snprintf(badge, sizeof badge, "%lld", static_cast<long long>(degree));
    const ImVec2 ts = ImGui::CalcTextSize(badge);
    const ImVec2 b0 = {c.x + 3 * dpr, c.y - ts.y - 2 * dpr};
    const ImVec4 box(b0.x, b0.y, b0.x + ts.x + 6 * dpr, b0.y + ts.y + 2 * dpr);
    if (std::any_of(badges.begin(), badges.end(),
                    [&](const ImVec4& o) { return box.x < o.z && o.x < box.z && box.y < o.w && o.y < box.w; }))
      continue;
    badges.push_back(box);
    dl->AddRectFilled(b0, {box.z, box.w}, IM_COL32(224, 160, 64, 220), 4 * dpr);
    dl->AddText({b0.x + 3 * dpr, b0.y + 1 * dpr}, IM_COL32(20, 20, 20, 255), badge);
  }
  stats_.edges_drawn = stats_.segments + stats_.overlay_edges;
  for (int64_t sel : {under, static_cast<int64_t>(sel_dn)}) {
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
      if (orig < 0 && -1 - orig >= computations()) continue;  // a folded chain or block: not a computation's box
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
      char label[40];
      std::snprintf(label, sizeof label, "computation %zu", k);
      dl->AddText({a.x + 2, a.y - ImGui::GetTextLineHeight()}, col, label);
    }
  }
  if (hovered_ >= 0)
    ImGui::SetTooltip("#%lld %s %s%s", static_cast<long long>(hovered_), opcode_name(doc->graph.node_opcode[hovered_]),
                      node_shape_text(doc->graph, hovered_).c_str(), doc->configurable[hovered_] ? " (configurable)" : "");
  else if (under >= 0)
    ImGui::SetTooltip("%s: %lld nodes, folded (click to open)", box_name(-1 - hovered_).c_str(),
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
      if (dn < 0) continue;
      const ImVec2 c = to_screen(mini_pass_.view, mini_pass_, d.x[dn], d.y[dn]);
      const uint32_t col = value_color(values_[top[k]], values_max_, log_scale_);
      dl->AddCircle(c, 6 * dpr, im_color(col), 12, 2.0f * dpr);
    }
    dl->PopClipRect();
  }

  // Search results, top left: each match (its first node), a click jumps.
  if (query_[0] && !found_.starts.empty()) {
    ImGui::SetNextWindowPos({main_pass_.x + 8, main_pass_.y + 8});
    ImGui::SetNextWindowSize({300 * dpr, std::min(260.0f * dpr, 0.5f * main_pass_.h)});
    ImGui::SetNextWindowBgAlpha(0.85f);
    if (ImGui::Begin("##results", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings)) {
      ImGui::TextDisabled("%zu match%s (%zu nodes), %.1f ms; Enter: next", found_.starts.size(),
                          found_.starts.size() == 1 ? "" : "es", found_.nodes.size(), search_ms_);
      ImGuiListClipper clip;
      clip.Begin(static_cast<int>(found_.starts.size()));
      while (clip.Step())
        for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
          const int64_t v = found_.starts[static_cast<size_t>(i)];
          char row[160];
          std::snprintf(row, sizeof row, "#%lld %s %s%s##r%d", static_cast<long long>(v), opcode_name(doc->graph.node_opcode[v]),
                        node_shape_text(doc->graph, v).c_str(), doc->configurable[v] ? " (configurable)" : "", i);
          if (ImGui::Selectable(row, i == hit_cursor_)) {
            hit_cursor_ = i;
            select(v, dpr);
          }
        }
    }
    ImGui::End();
  }

  // Legend, top right.
  float ly = main_pass_.y + 8;
  const float lx = main_pass_.x + main_pass_.w - 210 * dpr;
  if (!values_.empty() && static_cast<int64_t>(values_.size()) == doc->graph.num_nodes) {
    // A colour bar from -max (faster, blue) through 0 to +max (slower, red);
    // from 0 when no value is below it.
    const ImU32 text = IM_COL32(220, 220, 220, 255);
    dl->AddText({lx, ly}, text, values_title_.c_str());
    ly += ImGui::GetTextLineHeightWithSpacing();
    const float bw = 180 * dpr, bh = 12 * dpr;
    const double from = values_signed_ ? -1.0 : 0.0;
    for (int k = 0; k < 60; ++k) {
      const double v = values_max_ * (from + (1.0 - from) * (k + 0.5) / 60.0);
      // On a log scale the bar's halves run over three decades each.
      const double shown = log_scale_ ? (v >= 0 ? 1 : -1) * values_max_ * std::pow(10.0, 3.0 * (std::abs(v) / values_max_ - 1)) : v;
      const uint32_t c = value_color(shown, values_max_, log_scale_);
      dl->AddRectFilled({lx + bw * k / 60, ly}, {lx + bw * (k + 1) / 60, ly + bh},
                        im_color(c));
    }
    ly += bh + 2;
    char lo[32], hi[32];
    std::snprintf(lo, sizeof lo, "%.3g", values_signed_ ? -values_max_ : 0.0);
    std::snprintf(hi, sizeof hi, values_signed_ ? "+%.3g" : "%.3g", values_max_);
    dl->AddText({lx, ly}, text, lo);
    if (values_signed_) dl->AddText({lx + 0.5f * bw - 4, ly}, text, "0");
    dl->AddText({lx + bw - ImGui::CalcTextSize(hi).x, ly}, text, hi);
    ly += ImGui::GetTextLineHeightWithSpacing();
    dl->AddText({lx, ly}, text, log_scale_ ? (values_signed_ ? "log: 3 decades each side" : "log: 3 decades") : "linear");
    ly += ImGui::GetTextLineHeightWithSpacing();
    dl->AddText({lx, ly}, IM_COL32(160, 160, 170, 255),
                values_caption_.empty() ? "red: slower, blue: faster" : values_caption_.c_str());
    ImGui::End();
    return;
  }
  if (!highlight_.empty()) {
    dl->AddRectFilled({lx, ly + 2}, {lx + 10 * dpr, ly + 12 * dpr}, im_color(kHighlight));
    dl->AddText({lx + 16 * dpr, ly}, IM_COL32(240, 240, 240, 255), highlight_title_.c_str());
    ly += ImGui::GetTextLineHeightWithSpacing();
  }
  for (int f = 0; f < kOpFamilies; ++f) {
    const uint32_t c = op_family_color(static_cast<OpFamily>(f));
    dl->AddRectFilled({lx, ly + 2}, {lx + 10 * dpr, ly + 12 * dpr}, im_color(c));
    dl->AddText({lx + 16 * dpr, ly}, IM_COL32(220, 220, 220, 255), op_family_name(static_cast<OpFamily>(f)));
    ly += ImGui::GetTextLineHeightWithSpacing();
  }
  dl->AddRect({lx, ly + 2}, {lx + 10 * dpr, ly + 12 * dpr}, IM_COL32(255, 230, 80, 255), 0, 0, 2.0f);
  dl->AddText({lx + 16 * dpr, ly}, IM_COL32(220, 220, 220, 255), "configurable node");
  ImGui::End();
}

}  // namespace fastslow::explorer
