// The whole contract between the wasm build and JavaScript, in one place:
// every C entry point JS may call (core_api.cpp: the core, in
// fastslow_core.js and in the explorer; explorer/bridge.cpp: the explorer
// app) and every JS function C++ calls (defined with EM_JS in
// explorer/js_calls.cpp). web/src/core.mjs is the JS side's one way in.
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
// The rank session (RankInfo), returned by fastslow_rank_open and
// explorer_rank_open, describes the graph prepared for a model card:
//   {"session", "kind": "tile"|"layout", "nodes", "edges", "config_nodes",
//    "node_feat_width", "config_feat_width", "configs", "groups" (unique
//    configs), "chunk" (configs per model call), "chunks", "has_runtime",
//    "node_feat" [nodes x node_feat_width] float32, "node_opcode" [nodes]
//    int64, "edge_index" [edges x 2] int64, "config_nodes_ptr" [config_nodes]
//    int64, "config_context_ptr" [config_nodes x config_context_width]
//    float32, "config_context_width",
//    "shift": {"warning", "findings": [...], "origin"} or null (a card
//    without a training-data profile)}
// The graph arrays stay valid until fastslow_rank_close(session).
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

// The config rows of chunk `index` (the model's config_feat, tile [count x
// config_feat_width], layout [count x config_nodes x config_feat_width]
// float32): {"ptr", "count"}, valid until the next call on the session.
char* fastslow_rank_batch(fastslow::wasm::RankSession* session, int index);

// Node tools: scores of every group (float64, group order) ->
// {"ranking": [config, best first], "group_of": [group per config],
//  "metrics": metrics_json (rank/metrics_json.h) or null without runtimes,
//  "runtime": [per config] (only with runtimes)}.
char* fastslow_rank_finish(fastslow::wasm::RankSession* session, const double* scores, int count);

// Ends a session from fastslow_rank_open or explorer_rank_open.
void fastslow_rank_close(fastslow::wasm::RankSession* session);

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
// another ranking makes a new one, and every call below about an older
// ticket is dropped (its results are another document's).
//
// Starts ranking the open file with model `model_index`, as the Rank button
// does: the app asks JS (js_request_rank) with the ticket. 1 if started, 0
// if not (no file, no such model, a ranking running).
int explorer_start_rank(int model_index);
// Asks the running ranking to stop (JS learns it from explorer_rank_progress).
void explorer_cancel_rank();
// Prepares the open document for the card `card_json` (from its bytes, in
// memory) and shows the shift warning: a RankInfo, or {"error"} (a card
// that does not fit, or a stale ticket).
char* explorer_rank_open(int ticket, const char* card_json);
// Batches done of total. 1: go on; 0: stop (cancelled, or a stale ticket).
int explorer_rank_progress(int ticket, int done, int total);
// The scores of every group of `session` (float64, group order): the app
// ranks them and scores the ranking with the core (rank_inputs.h).
void explorer_rank_done(int ticket, fastslow::wasm::RankSession* session, const double* scores, int count,
                        double seconds);
// The ranking stopped: `message` shown; `cancelled` != 0 when asked to stop.
void explorer_rank_failed(int ticket, const char* message, int cancelled);

// The app's state for tests and scripts: {"frames", "frame_ms",
// "frame_ms_avg", "first_frame_ms", "error", "models": [name],
// "model_cards": [{"name", "label", "trained_on", "generated", "members"
//   (an ensemble's member count, 0 for a single model)}], "selected",
// "search_hits", "view": {"zoom", "center_x", "center_y"},
// "graph": {"name", "kind", "nodes", "edges", "configurable_nodes", "configs",
//   "unique_configs", "layers", "computations", "collapsed", "display_nodes",
//   "load_ms", "layout_ms", "vertices"} or null,
// "rank": {"status": "idle"|"running"|"done"|"failed"|"cancelled", "done",
//   "total", "message", "model", "shift_warning", "scores" (groups scored),
//   "configs" (configs ranked), "seconds", "collection" (of the submission
//   row, "" until known), and the metrics_json keys},
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
void explorer_search(const char* text);
void explorer_collapse(int computation, int collapsed);
void explorer_fit();

// ---- JS functions the explorer calls (explorer/js_calls.cpp) -------------

// Asks the page to rank the open file with model `model_index` under
// `ticket` (ONNX Runtime Web; it reports back through explorer_rank_*).
void js_request_rank(int model_index, int ticket);
// Opens the page's file chooser: 0 = a graph (.npz), 1 = a model (model.onnx
// + model.json), 2 = a study (trials.jsonl).
void js_open_dialog(int what);
// Offers `text` as a download named `name`.
void js_download(const char* name, const char* text);
void js_set_clipboard(const char* text);
double js_now_ms();
// When the user last touched the page (pointer, wheel, keys), in js_now_ms time.
double js_last_input_ms();
}
