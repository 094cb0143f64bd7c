// A GLFW window with an OpenGL ES 3 context (WebGL2 in the page) and Dear
// ImGui on it, and one frame of the app drawn into it: what the page, the
// native explorer and the UI test share.
#include "imgui_window.h"

#include <GLES3/gl3.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <cmath>
#include <cstdio>

#include "app.h"

namespace {

float g_font_dpr = 0;

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

}  // namespace

namespace fastslow::explorer {

// One frame of `app` in a framebuffer of fb_w x fb_h pixels at `dpr`.
void draw_frame(App& app, int fb_w, int fb_h, float dpr) {
  const double t0 = app.host().now_ms();
  if (dpr != g_font_dpr) apply_scale(dpr);
  app.dpr = dpr;
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  // The backends took GLFW's idea of the size; the framebuffer is what counts.
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
  app.frame_done(app.host().now_ms() - t0);
}

// A window with an OpenGL ES 3 context and Dear ImGui on it; nullptr (said
// on stderr) when there is none.
GLFWwindow* start_window(int width, int height, bool visible) {
  if (!glfwInit()) {
    std::fprintf(stderr, "explorer: GLFW failed to start (no display? natively, run under xvfb-run)\n");
    return nullptr;
  }
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
#ifndef __EMSCRIPTEN__
  // Mesa gives OpenGL ES through EGL on X11 as well as on Wayland.
  glfwWindowHint(GLFW_CONTEXT_CREATION_API, GLFW_EGL_CONTEXT_API);
  glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
#else
  (void)visible;
#endif
  GLFWwindow* window = glfwCreateWindow(width, height, "fastslow explorer", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "explorer: no OpenGL ES 3 context\n");
    glfwTerminate();
    return nullptr;
  }
  glfwMakeContextCurrent(window);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no persistent window layout
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 300 es");
  return window;
}

void stop_window(GLFWwindow* window) {
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  g_font_dpr = 0;
}

}  // namespace fastslow::explorer

