// The explorer's entry point, as Dear ImGui's examples build one main.cpp
// natively and with Emscripten. In the page, Emscripten's GLFW knows nothing
// of the device pixel ratio or of the canvas' CSS size, so every frame sizes
// the canvas to CSS size x devicePixelRatio here and the UI works in
// framebuffer pixels, scaled by the ratio. Natively, native_run.cpp opens a
// window and the files named on the command line.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app.h"
#include "imgui_window.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#include <emscripten/html5.h>

#include "bridge.h"
#include "host_web.h"

namespace {

fastslow::explorer::WebHost g_host;
fastslow::explorer::App g_app(g_host);

void set_clipboard(void*, const char* text) { g_host.set_clipboard(text); }

void web_frame() {
  if (!g_app.wants_frame(g_host.now_ms())) return;
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size("#canvas", &css_w, &css_h);
  const float dpr = static_cast<float>(emscripten_get_device_pixel_ratio());
  const int fb_w = std::max(1, static_cast<int>(std::lround(css_w * dpr)));
  const int fb_h = std::max(1, static_cast<int>(std::lround(css_h * dpr)));
  int cur_w = 0, cur_h = 0;
  emscripten_get_canvas_element_size("#canvas", &cur_w, &cur_h);
  if (cur_w != fb_w || cur_h != fb_h) emscripten_set_canvas_element_size("#canvas", fb_w, fb_h);
  fastslow::explorer::draw_frame(g_app, fb_w, fb_h, dpr);
}

}  // namespace

int main() {
  if (!fastslow::explorer::start_window(1280, 800, true)) return 1;
  ImGui::GetIO().SetClipboardTextFn = set_clipboard;
  fastslow::explorer::attach_bridge(g_app);
  emscripten_set_main_loop(web_frame, 0, 1);
  return 0;
}

#else
#include "native_run.h"

int main(int argc, char** argv) { return fastslow::explorer::native_main(argc, argv); }

#endif
