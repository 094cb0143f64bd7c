// Calls from the app into the page's JS (defined with EM_JS in bridge.cpp).
#pragma once

extern "C" {
// Starts ranking the open file with model `model_index` (the page runs ONNX
// Runtime Web and reports back through explorer_rank_*).
void js_request_rank(int model_index);
void js_cancel_rank();
// Opens the page's file chooser: 0 = a graph (.npz), 1 = a model (model.onnx + model.json).
void js_open_dialog(int what);
// Offers `text` as a download named `name`.
void js_download(const char* name, const char* text);
void js_set_clipboard(const char* text);
double js_now_ms();
}
