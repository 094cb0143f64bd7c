// The page as the explorer's host: every JS function C++ calls (declared in
// js_api.h), each through Module.fastslowHooks (web/src/app.mjs) or a
// browser API.
#include "host_web.h"

#include <emscripten/emscripten.h>

#include "js_api.h"

EM_JS(int, js_request_rank, (int model_index, int ticket),
      { return Module.fastslowHooks.requestRank(model_index, ticket) ? 1 : 0; });
EM_JS(void, js_open_dialog, (int what), { Module.fastslowHooks.openDialog(what); });
EM_JS(void, js_download, (const char* name, const char* text),
      { Module.fastslowHooks.download(UTF8ToString(name), UTF8ToString(text)); });
EM_JS(void, js_save_png, (const char* name, const char* svg, double scale),
      { Module.fastslowHooks.savePng(UTF8ToString(name), UTF8ToString(svg), scale); });
EM_JS(void, js_set_clipboard, (const char* text), {
  const t = UTF8ToString(text);
  if (navigator.clipboard) navigator.clipboard.writeText(t).catch(() => {});
});
EM_JS(double, js_now_ms, (), { return performance.now(); });
EM_JS(double, js_last_input_ms, (), { return Module.fastslowLastInput || 0; });

namespace fastslow::explorer {

std::string WebHost::request_rank(int model_index, int ticket) {
  return js_request_rank(model_index, ticket) ? "" : "the page holds no model #" + std::to_string(model_index);
}

bool WebHost::open_dialog(FileKind what) {
  js_open_dialog(static_cast<int>(what));
  return true;
}

std::string WebHost::save(const std::string& name, const std::string& text) {
  js_download(name.c_str(), text.c_str());
  return name + " (a download)";
}

std::string WebHost::save_png(const std::string& name, const std::string& svg, double scale) {
  js_save_png(name.c_str(), svg.c_str(), scale);
  return name + " (a download)";
}

void WebHost::set_clipboard(const std::string& text) { js_set_clipboard(text.c_str()); }
double WebHost::now_ms() { return js_now_ms(); }
double WebHost::last_input_ms() { return js_last_input_ms(); }

}  // namespace fastslow::explorer
