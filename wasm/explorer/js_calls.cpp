// The JS functions the explorer calls (declared in js_api.h), all of them:
// each calls into the page through Module.fastslowHooks (web/src/app.mjs) or
// a browser API.
#include <emscripten/emscripten.h>

#include "js_api.h"

EM_JS(void, js_request_rank, (int model_index, int ticket), { Module.fastslowHooks.requestRank(model_index, ticket); });
EM_JS(void, js_open_dialog, (int what), { Module.fastslowHooks.openDialog(what); });
EM_JS(void, js_download, (const char* name, const char* text),
      { Module.fastslowHooks.download(UTF8ToString(name), UTF8ToString(text)); });
EM_JS(void, js_set_clipboard, (const char* text), {
  const t = UTF8ToString(text);
  if (navigator.clipboard) navigator.clipboard.writeText(t).catch(() => {});
});
EM_JS(double, js_now_ms, (), { return performance.now(); });
EM_JS(double, js_last_input_ms, (), { return Module.fastslowLastInput || 0; });
