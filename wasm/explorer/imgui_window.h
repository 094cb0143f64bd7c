// A GLFW window with an OpenGL ES 3 context and Dear ImGui on it
// (imgui_window.cpp), and one frame of the app drawn into it.
#pragma once

struct GLFWwindow;

namespace fastslow::explorer {

class App;

// A window of width x height with Dear ImGui on it (hidden: for tests and
// screenshots); nullptr, said on stderr, when there is no display or no
// OpenGL ES 3.
GLFWwindow* start_window(int width, int height, bool visible);
void stop_window(GLFWwindow* window);

// One frame of `app` in a framebuffer of fb_w x fb_h pixels at `dpr` device
// pixels per UI pixel.
void draw_frame(App& app, int fb_w, int fb_h, float dpr);

}  // namespace fastslow::explorer
