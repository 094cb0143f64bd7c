// The explorer's platform layer: a GLFW window on the page's canvas (WebGL2),
// Dear ImGui with its GLFW and OpenGL3 backends, the frame loop. Emscripten's
// GLFW knows nothing of the device pixel ratio or of the canvas' CSS size, so
// every frame sizes the canvas to CSS size x devicePixelRatio here and the UI
// works in framebuffer pixels, scaled by the ratio.
#include <GLES3/gl3.h>
#include <GLFW/glfw3.h>
#include <emscripten/emscripten.h>
#include <emscripten/html5.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <cmath>
#include <cstdio>

#include "app.h"
#include "js_api.h"

namespace {

GLFWwindow* g_window = nullptr;
float g_font_dpr = 0;

void set_clipboard(void*, const char* text) { js_set_clipboard(text); }

void apply_scale(float dpr) {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  ImFontConfig cfg;
  cfg.SizePixels = std::round(13.0f * dpr);
  io.Fonts->AddFontDefault(&cfg);
  io.Fonts->Build();
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
  ImGuiStyle style;
  ImGui::StyleColorsDark(&style);
  style.ScaleAllSizes(dpr);
  ImGui::GetStyle() = style;
  g_font_dpr = dpr;
}

double g_last_render = 0;

void frame() {
  const double t0 = js_now_ms();
  auto& app = fastslow::explorer::app();
  // Drawing costs CPU that ranking needs (and SwiftShader draws on the CPU):
  // redraw at full rate only while the user interacts or something changed,
  // else a few times a second.
  const bool ranking = app.rank.status == fastslow::explorer::RankStatus::Running;
  const bool busy = t0 - js_last_input_ms() < 1000 || (app.dirty && !ranking);
  const double period = ranking ? 1000 : 250;
  if (!busy && t0 - g_last_render < period) return;
  g_last_render = t0;
  app.dirty = false;
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size("#canvas", &css_w, &css_h);
  const float dpr = static_cast<float>(emscripten_get_device_pixel_ratio());
  const int fb_w = std::max(1, static_cast<int>(std::lround(css_w * dpr)));
  const int fb_h = std::max(1, static_cast<int>(std::lround(css_h * dpr)));
  int cur_w = 0, cur_h = 0;
  emscripten_get_canvas_element_size("#canvas", &cur_w, &cur_h);
  if (cur_w != fb_w || cur_h != fb_h) emscripten_set_canvas_element_size("#canvas", fb_w, fb_h);
  if (dpr != g_font_dpr) apply_scale(dpr);
  app.dpr = dpr;

  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  // The backends took GLFW's idea of the size; the canvas is what counts.
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(static_cast<float>(fb_w), static_cast<float>(fb_h));
  io.DisplayFramebufferScale = ImVec2(1, 1);
  ImGui::NewFrame();
  app.frame(static_cast<float>(fb_w), static_cast<float>(fb_h));
  ImGui::Render();
  glViewport(0, 0, fb_w, fb_h);
  glDisable(GL_SCISSOR_TEST);
  glClearColor(0.09f, 0.1f, 0.12f, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  app.frame_done(js_now_ms() - t0);
  if (app.doc && app.first_frame_after_open_ms < 0 && app.open_started_ms > 0)
    app.first_frame_after_open_ms = js_now_ms() - app.open_started_ms;
}

}  // namespace

int main() {
  if (!glfwInit()) {
    std::fprintf(stderr, "explorer: GLFW failed to start\n");
    return 1;
  }
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  g_window = glfwCreateWindow(1280, 800, "fastslow explorer", nullptr, nullptr);
  if (!g_window) {
    std::fprintf(stderr, "explorer: no WebGL2 context\n");
    return 1;
  }
  glfwMakeContextCurrent(g_window);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // no persistent window layout in the browser's memory FS
  io.SetClipboardTextFn = set_clipboard;
  ImGui_ImplGlfw_InitForOpenGL(g_window, true);
  ImGui_ImplOpenGL3_Init("#version 300 es");
  emscripten_set_main_loop(frame, 0, 1);
  return 0;
}
