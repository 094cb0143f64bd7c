// The whole contract between the wasm build and JavaScript, in one place:
// every C entry point JS may call (core_api.cpp: the core, in
// fastslow_core.js and in the explorer; explorer/bridge.cpp: the explorer
// app) and every JS function C++ calls (defined with EM_JS in
// explorer/host_web.cpp). JS calls the entry points only through
// `module.api`, which gen_js_api.mjs writes from the declarations below
// (strings in and out, JSON parsed, {"error"} thrown, calls counted).
//
// Conventions, for every entry point below:
// - Entry points are EMSCRIPTEN_KEEPALIVE, so Emscripten exports each one as
//   Module._<name>; CMake keeps no list of them.
// - Strings passed in are UTF-8 that the caller owns. Strings returned are
//   malloc'd UTF-8 JSON that JS frees with fastslow_free_string.
// - A failure is returned as {"error": message} (that key alone; successes
//   never have it alone), the core's fastslow::Error
//   text (it names the file and the problem): an exception cannot cross into
//   JS with its message, and nothing here lets one escape.
// - Numbers named *_ptr, "ptr" or "session" in JSON are addresses in the
//   module's heap (read through HEAPU8 and friends, copied out at once: the
//   views die when memory grows).
//
// Ranking is JS's job, run through one session API (rank_session.h): open
// (a file, or the explorer's document), then fastslow_rank_batch for each
// batch, then fastslow_rank_finish, or fastslow_rank_close when it failed.
// The explorer's sessions report to the app through these same calls, so a
// ranking in the page takes 2 + N calls into wasm for N batches.
//
// The rank session (RankInfo), returned by fastslow_rank_open and
// fastslow_rank_open_document, describes the graph prepared for a model card:
//   {"session", "kind": "tile"|"layout", "nodes", "edges", "config_nodes",
//    "node_feat_width", "config_feat_width", "configs", "groups" (unique
//    configs, or the rows an explanation scores), "chunk" (configs per model
//    call), "chunks", "has_runtime",
//    "node_feat" [nodes x node_feat_width] float32, "node_opcode" [nodes]
//    int64, "edge_index" [edges x 2] int64, "config_nodes_ptr" [config_nodes]
//    int64, "config_context_ptr" [config_nodes x config_context_width]
//    float32, "config_context_width",
//    "shift": {"warning", "findings": [...], "origin"} or null (a card
//    without a training-data profile)}
// The graph arrays stay valid until the session ends (finish or close).
#pragma once

#include <cstddef>
#include <cstdint>

namespace fastslow::wasm {
struct RankSession;  // rank_session.h
}

extern "C" {

// ---- The core (core_api.cpp) -------------------------------------------

// Frees a string returned by any entry point here.
void fastslow_free_string(char* s);

// Describes an npz held in memory (`bytes` stay the caller's): the JSON of
// `fastslow info --json` ({"file", "kind", "nodes", "edges", ...}).
char* fastslow_info_json(const uint8_t* bytes, size_t size, const char* name);

// Prepares the file at `path` (in the module's file system: node tools and
// tests) for the model card `card_json`, exactly as `fastslow rank` does:
// pruned with the card's k, de-duplicated, features normalised. Cache files
// go to `cache_dir`. Returns a RankInfo, or {"error"} (a card that does not
// fit the file included).
char* fastslow_rank_open(const char* path, const char* card_json, const char* cache_dir);

// The config rows of batch `index` (the model's config_feat, tile [count x
// config_feat_width], layout [count x config_nodes x config_feat_width]
// float32): {"ptr", "count"}, valid until the next call on the session; or
// {"stopped": "cancelled"|"superseded"} when the explorer's app asks the job
// to stop (then fastslow_rank_close). Asking for batch k tells the app that
// k batches are scored.
char* fastslow_rank_batch(fastslow::wasm::RankSession* session, int index);

// The scores of every group (float64, group order) and the job's seconds:
// ranks them, tells the explorer's app, and ends the session (it is freed:
// no close). {"configs", "groups", "metrics": metrics_json
// (rank/metrics_json.h) or null without runtimes}, and with `lists` != 0
// also {"ranking": [config, best first], "group_of": [group per config],
// "runtime": [per config] (only with runtimes)}. On {"error"} (scores that
// do not fit) the session stays open: close it.
char* fastslow_rank_finish(fastslow::wasm::RankSession* session, const double* scores, int count, double seconds,
                           int lists);

// Ends a session that did not finish; `failure` (or null) says why, and the
// explorer's app shows it (or "cancelled" when it stopped the job).
void fastslow_rank_close(fastslow::wasm::RankSession* session, const char* failure);

// ---- The explorer (explorer/bridge.cpp) ----------------------------------

// Opens a graph. Takes ownership of `bytes` (malloc'd by JS, freed here):
// the document reads the file where it lies, so the page holds it once.
// {"ok": true} or {"error"}; on error the previous graph stays, and the
// message is shown.
char* explorer_open(uint8_t* bytes, size_t size, const char* name, double started_ms);

// Opens a study: the `size` bytes at `bytes` (the caller's) are the text of
// a trials.jsonl (`fastslow search`), parsed by the core
// (search/trials.h). {"ok": true, "trials"} or {"error"}: the core's message
// (the file and the line), also shown; the previous study stays.
char* explorer_open_study(const uint8_t* bytes, size_t size, const char* name);
// Picks what the study's plots show, by name: {"x", "y" (the scatter's
// axes: an objective or "trial"), "param", "param_objective"}, any of them.
// {"ok": true} or {"error"} (no study, a name it does not have).
char* explorer_study_view(const char* view_json);
// Where the last frame drew trial `number` in the study's scatter, in the
// page's CSS pixels: {"x", "y"}, or {"error"} when it was not drawn (no
// study, window closed, another tab, no values on both axes).
char* explorer_study_point(int number);

// The status line and the error box.
void explorer_set_status(const char* text);
void explorer_set_error(const char* text);

// Adds (or replaces, by name) a model; the card is checked by the core's
// parser. {"index"} or {"error"}.
char* explorer_add_model(const char* name, const char* card_json);

// Rankings. Each one gets a ticket; opening another file or starting
// another ranking makes a new one, and a session of an older ticket is told
// to stop (its results would be another document's).
//
// Starts ranking the open file with model `model_index`, as the Rank button
// does: the app asks JS (js_request_rank) to run the job under a ticket. 1
// if started, 0 if not (no file, no such model, a ranking running).
int explorer_start_rank(int model_index);
// Asks the running ranking to stop: its next fastslow_rank_batch answers
// {"stopped": "cancelled"}.
void explorer_cancel_rank();
// Why is this config slow: explains config `config` of the open layout file
// (against config `against`, -1 = none) with model `model_index` by
// occlusion (rank/occlusion.h), as the Configs tab's Explain button does.
// The job runs as a ranking does (js_request_rank, then a session on the
// document whose "groups" are the occlusion rows: the config, then one copy
// per configurable node with that node reset to the file's most common
// layout, and the same for `against`); once finished the graph is coloured
// by each node's share. 1 if started, 0 if not (no layout file, no such
// model or config, against == config, a job running).
int explorer_explain(int model_index, int config, int against);
// The graph coloured by the last explanation's shares (coloured != 0) or by
// op family, on a log (log_scale != 0) or linear scale.
void explorer_explain_view(int coloured, int log_scale);
// What the open layout file's measured runtimes depend on (no model; the
// Summary tab's section, graph/node_effects.h): found as the file opens
// when its config rows are under 64 MB, else here. coloured != 0 colours
// the graph by each node's share (state().effects), 0 by op family again.
void explorer_effects_view(int coloured);
// Tune, as the Configs tab's button: proposes `count` configs of the open
// layout or tile file nobody measured, from `budget` new candidates scored
// with model `model_index` (tune/propose_search.h, the menu space of
// tune/graph_space.h, anchored at the configs measured fastest). Each generation is one job as a ranking is
// (js_request_rank, a session on the document whose "groups" are the
// generation's rows): the file's own configs first, then the children. For
// a file with runtimes, what-to-measure-next is then replayed in pool mode.
// 1 if started, 0 if not (no file, no such model, count or budget below 1,
// a job running).
int explorer_tune(int model_index, int count, int budget);
// The proposals as "Download proposals" saves them: {"csv", "name"}; CSV
// lines proposal,score,predicted_speedup_over_best_measured,
// changed_from_measured,node,<config features> (one per proposal and
// configurable node; a tile file: one per proposal, without node;
// changed_from_measured: the nodes, or tile values, in which the proposal
// differs from the nearest measured config, or the file's nearest where
// nothing is measured), or {"error"}.
char* explorer_proposals_csv();
// A rank session on the open document for the card `card_json` (from its
// bytes in memory, with the config groups found when it was opened),
// watched by the app, which shows the shift warning: a RankInfo, or
// {"error"} (a card that does not fit, or a stale ticket; the app shows it).
char* fastslow_rank_open_document(int ticket, const char* card_json);

// The app's state for tests and scripts: {"frames", "frame_ms",
// "frame_ms_avg", "first_frame_ms", "error", "models": [name],
// "model_cards": [{"name", "label", "trained_on", "generated", "members"
//   (an ensemble's member count, 0 for a single model)}], "selected",
// "search_hits", "search": {"error" ("" or why the query cannot be read),
//   "matches", "nodes" (on some match), "steps", "ms"},
// "view": {"zoom", "center_x", "center_y"},
// "graph": {"name", "kind", "nodes", "edges", "configurable_nodes", "configs",
//   "unique_configs", "layers", "computations", "collapsed", "display_nodes",
//   "load_ms", "layout_ms", "vertices", and of the last frame: "edges_drawn"
//   (edge segments drawn: "edge_segments" by the GPU plus "overlay_edges" of
//   the hovered and selected node), "configurable_marked" (configurable
//   nodes marked on screen), "hubs", "hidden_nodes" (left out of the
//   model's view), "node_set" ("all"|"model_reads"), "chains" (elementwise
//   chains that can fold), "folded_chains", "blocks" (copies of a repeated
//   block that can fold), "folded_blocks"} or null,
// "rank": {"status": "idle"|"running"|"done"|"failed"|"cancelled", "done",
//   "total", "message", "model", "shift_warning", "scores" (groups scored),
//   "configs" (configs ranked), "seconds", "collection" (of the submission
//   row, "" until known), and the metrics_json keys},
// "explain": {"status" (as rank's), "message", "model", "config", "against",
//   "score", "against_score", "seconds", "nodes": [configurable node ids],
//   "share": [per node], "coloured", "log_scale"},
// "effects": `fastslow info --nodes --json`'s "node_effects" ("configs"
//   (measured), "constant_nodes", "joint" (the picks together),
//   "joint_stopped" (why no more were picked), "entries": [{"nodes",
//   "opcode", "share", "adjusted", "adds" (null: not picked), "rows_node",
//   "rows": [{"row", "configs", "median_over_fastest"}]}], the forward
//   selection's picks first, then largest share first;
//   graph/node_effects_json.h)
//   and "found" (tried), "error" (why none: no runtimes, too large),
//   "entry" (the one listed),
//   "ms", "coloured", "config" (the Configs tab's), "config_rows": [{"nodes",
//   "row_index" (into the entry's rows, -1: none measured), "slower" (null
//   for -1)}] (most slowing first, the nodes and slowdowns of `info --nodes
//   --config N --json`'s "config_effects")},
// "tune": {"status", "message", "model", "count", "budget", "generations",
//   "scored", "best_file_score", "proposals": [{"score", "speedup" (0:
//   unknown)}], "to_target_model", "to_target_random" (median measurements
//   to within 0.1 % of the best, pool mode; null: not reached or no
//   runtimes), "seconds"},
// "compare": {"a", "b" (-1: none), "nodes" (differing configurable nodes)},
// "file_compare": explorer_compare_file's JSON, or null,
// "highlighted": nodes lit up (a comparison's, the unmatched ones),
// "study": {"name", "trials", "complete", "pruned", "failed", "objectives":
//   [{"name", "direction"}], "params": [name], "pareto": [trial numbers on
//   the front over every objective], "x", "y" (the scatter's axes),
//   "x_scale", "y_scale" ("linear"|"log"), "points" (trials in the scatter),
//   "front": [trial numbers on the front over x and y], "param",
//   "param_objective", "param_scale" ("linear"|"log"|"categorical"),
//   "param_labels" (the slots of a categorical one), "param_points",
//   "hovered" (the trial under the mouse, or -1)} or null.
char* explorer_state();
// The last ranking: {"ranking": [config, best first], "scores": [per config]}.
char* explorer_ranking();
// The competition CSV of the last ranking, as "Download submission row"
// saves it: {"csv", "name" (file name)} or {"error"} (no ranking; no
// collection known yet: the card has none of the file's kind and none is
// picked).
char* explorer_submission_csv();
// Picks the submission row's collection where the card gives none (as the
// Rank tab's combo box does). {"ok": true} or {"error"}.
char* explorer_pick_collection(const char* collection_id);
// One config's row as the views show it (through the document's row cache):
// {"config", "row": [values]} (tile [Fc]; layout [configurable nodes x Fc])
// or {"error"}.
char* explorer_config_row(int config);
// Views: select a node, search, collapse a computation, zoom to fit.
void explorer_select(int node);
// Searches as the box does (node_search.h: opcodes, #id, configurable,
// rank:N, shape:AxB, dim:N, "a -> b" chains); the state's "search" says
// what was found or why the query could not be read.
void explorer_search(const char* text);
// Selects and centres the next (delta 1) or previous (-1) match, as Enter does.
void explorer_search_step(int delta);
// Walks from the selected node as the arrow keys do: dy -1 its first
// operand, +1 its first user; dx -1/+1 its neighbour in the drawn layer.
void explorer_walk(int dx, int dy);
// 0: every node; 1: only what a model reads (configurable nodes and their
// `khop`-hop neighbourhood), laid out again.
void explorer_node_set(int set, int khop);
void explorer_collapse(int computation, int collapsed);
// Folds every chain of elementwise ops (node_groups.h) into one box, or
// opens them all (folded 0).
void explorer_fold_chains(int folded);
// Folds every copy of a repeated block (node_groups.h: a transformer's
// layers) into one box each, or opens them all (folded 0).
void explorer_fold_blocks(int folded);
// Opens folded box `box` in place (open_in_place.h): the other nodes keep
// their places. A box's number is -1 - the "display" of explorer_node's
// answer for a node inside it. A box not folded: nothing happens.
void explorer_open_box(int box);
// Where node `node` is drawn: {"display" (its display node, or -1 - box
// when folded into one), "x", "y" (world units), "layer"}, or {"error"}.
char* explorer_node(int node);
void explorer_fit();
// Compares configs a and b of the open layout file: the configurable nodes
// they set differently light up in the graph (a < 0 clears).
// {"a", "b", "nodes": [differing node ids, ascending]} or {"error"}.
char* explorer_compare(int a, int b);
// The graph view as SVG (graph_svg.h), `scale` SVG units per screen pixel:
// {"svg", "name", "nodes" (boxes written)} or {"error"}.
char* explorer_view_svg(double scale);
// The Rank tab's scatter (rank_figure.h) of the last ranking against the
// measured runtimes: {"svg", "name", "points"} or {"error"}.
char* explorer_scatter_svg();
// Compares the open file with another (compare.h): takes ownership of
// `bytes` (malloc'd by JS, freed here once compared). FileComparison's JSON
// (file_comparison_json) or {"error"} (the previous comparison stays).
char* explorer_compare_file(uint8_t* bytes, size_t size, const char* name);
// Lights up the open graph's nodes without a partner in the compared file.
void explorer_show_unmatched();

// ---- JS functions the explorer calls (explorer/host_web.cpp) -------------

// Asks the page to rank the open file with model `model_index` under
// `ticket` (ONNX Runtime Web, through fastslow_rank_open_document and the
// session calls). 0 when the page holds no such model.
int js_request_rank(int model_index, int ticket);
// Opens the page's file chooser: 0 = a graph (.npz), 1 = a model (model.onnx
// + model.json), 2 = a study (trials.jsonl), 3 = a graph to compare the open
// one with (explorer_compare_file).
void js_open_dialog(int what);
// Offers `text` as a download named `name`.
void js_download(const char* name, const char* text);
// Draws `svg` at `scale` times its size into a PNG (the browser's SVG
// rasteriser) and offers it as a download named `name`.
void js_save_png(const char* name, const char* svg, double scale);
void js_set_clipboard(const char* text);
double js_now_ms();
// When the user last touched the page (pointer, wheel, keys), in js_now_ms time.
double js_last_input_ms();
}
