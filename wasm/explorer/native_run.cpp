#include "native_run.h"

#include <GLES3/gl3.h>
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "app.h"
#include "fastslow/error.h"
#include "fastslow/io/read_file.h"
#include "fastslow/io/write_file.h"
#include "imgui_window.h"
#include "png_file.h"

namespace fastslow::explorer {

namespace {

// A desktop window as the host: no ONNX Runtime here, so no ranking (the
// page and `fastslow rank` rank); saved files go to the working directory.
class NativeHost : public Host {
 public:
  GLFWwindow* window = nullptr;
  double last_input = -1e18;

  std::string request_rank(int, int) override {
    return "ranking runs where ONNX Runtime does: in the page (scripts/run.sh), or `fastslow rank --model DIR "
           "FILE.npz` on the command line";
  }
  bool open_dialog(FileKind) override { return false; }
  std::string save(const std::string& name, const std::string& text) override {
    write_file_atomically(name, text);
    return std::filesystem::absolute(name).string();
  }
  void set_clipboard(const std::string& text) override {
    if (window) glfwSetClipboardString(window, text.c_str());
  }
  double now_ms() override {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
  double last_input_ms() override { return last_input; }
};

NativeHost* g_host = nullptr;
App* g_app = nullptr;

// A file's bytes as the app takes them over.
MallocBytes malloc_copy(const std::string& path, const std::string& text) {
  auto* bytes = static_cast<uint8_t*>(std::malloc(std::max<size_t>(1, text.size())));
  if (!bytes) throw Error(path, "", "no memory for " + std::to_string(text.size()) + " bytes");
  std::memcpy(bytes, text.data(), text.size());
  return MallocBytes(bytes);
}

// Compares the open graph with the .npz at `path`; errors show in the app and on stderr.
void compare_path(App& app, const std::string& path) {
  try {
    const std::string text = read_whole_file(path);
    app.compare_file(std::filesystem::path(path).filename().string(), malloc_copy(path, text), text.size());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "explorer: %s\n", e.what());
    app.set_error(e.what());
  }
}

// Opens a file by its name: a graph (.npz), a study (.jsonl) or a model
// card (.json). Errors show in the app and on stderr.
void open_path(App& app, const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  try {
    const std::string text = read_whole_file(path);
    if (path.size() > 4 && path.compare(path.size() - 4, 4, ".npz") == 0) {
      app.open(name, malloc_copy(path, text), text.size(), app.host().now_ms());
    } else if (path.size() > 6 && path.compare(path.size() - 6, 6, ".jsonl") == 0) {
      app.open_study(name, text);
    } else if (path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0) {
      app.ranking.add_model(std::filesystem::path(path).parent_path().filename().string(), text);
    } else {
      throw Error(path, "", "not a graph (.npz), a study (.jsonl) or a model card (.json)");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "explorer: %s\n", e.what());
    app.set_error(e.what());
  }
  app.changed();
}

void on_drop(GLFWwindow*, int count, const char** paths) {
  for (int k = 0; k < count; ++k) open_path(*g_app, paths[k]);
}

std::vector<uint8_t> read_pixels(int w, int h) {
  std::vector<uint8_t> rgba(static_cast<size_t>(w) * h * 4), flipped(rgba.size());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
  const size_t row = static_cast<size_t>(w) * 4;
  for (int y = 0; y < h; ++y) std::memcpy(&flipped[y * row], &rgba[(h - 1 - y) * row], row);  // GL's rows go up
  return flipped;
}

}  // namespace

int native_main(int argc, char** argv) {
  CLI::App cli{"fastslow explorer: graphs (.npz), studies (trials.jsonl) and model cards (model.json), natively"};
  std::vector<std::string> files;
  std::string screenshot, search, svg, nodes = "all";
  int width = 1280, height = 800, frames = 3;
  std::string compare_file;
  bool fit = false, fold = false, fold_blocks = false, unmatched = false, effects = false;
  std::vector<int64_t> compare;
  int64_t select = -1, config = -1;
  float scale = 1;
  cli.add_option("files", files, "files to open: a graph .npz, a study .jsonl, a model's model.json");
  cli.add_option("--screenshot", screenshot, "draw --frames frames in a hidden window, save the last as this PNG, exit");
  cli.add_option("--frames", frames, "frames drawn before the screenshot")->capture_default_str()->check(CLI::Range(1, 1000));
  cli.add_option("--width", width, "window width in pixels")->capture_default_str()->check(CLI::Range(200, 8192));
  cli.add_option("--height", height, "window height in pixels")->capture_default_str()->check(CLI::Range(200, 8192));
  cli.add_option("--scale", scale, "UI scale (device pixels per UI pixel)")->capture_default_str()->check(CLI::Range(0.5, 4.0));
  cli.add_option("--select", select, "select this node (and centre the view on it)");
  cli.add_option("--search", search, "search nodes as the search box does (dot, #12, rank:4, dot -> add)");
  cli.add_flag("--fit", fit, "fit the whole graph in the view (deep graphs open at their top)");
  cli.add_flag("--fold", fold, "fold every chain of elementwise ops into one box");
  cli.add_flag("--fold-blocks", fold_blocks, "fold every copy of a repeated block (a transformer's layers) into one box");
  cli.add_option("--compare-file", compare_file, "compare the graph with another .npz (Summary tab)");
  cli.add_flag("--unmatched", unmatched, "with --compare-file: light up the nodes without a partner in it");
  cli.add_option("--nodes", nodes, "the nodes shown: all, or model (what a model reads: configurable nodes and their 1-hop neighbourhood)")
      ->check(CLI::IsMember({"all", "model"}));
  cli.add_option("--config", config, "show this config in the Configs tab (its heatmap, its measured reading)");
  cli.add_flag("--effects", effects,
               "colour the graph by what a layout file's measured runtimes depend on (the Summary tab's table)");
  cli.add_option("--svg", svg, "with --screenshot: also save the view as this SVG");
  cli.add_option("--compare", compare, "two configs of a layout file: light up the nodes they set differently")->expected(2);
  CLI11_PARSE(cli, argc, argv);

  NativeHost host;
  App app(host);
  g_host = &host;
  g_app = &app;
  GLFWwindow* window = start_window(width, height, screenshot.empty());
  if (!window) return 1;
  host.window = window;
  glfwSetDropCallback(window, on_drop);
  for (const std::string& f : files) open_path(app, f);
  // The view options, once the first frame has told the view its size.
  auto apply_view_options = [&](float dpr) {
    if (nodes == "model") app.graph.set_node_set(NodeSet::ModelReads);
    if (fold) app.graph.set_chains_folded(true);
    if (fold_blocks) app.graph.set_blocks_folded(true);
    if (!compare_file.empty()) compare_path(app, compare_file);
    if (unmatched) app.show_unmatched();
    if (effects) app.show_effects(true);
    if (config >= 0) app.show_config(config);
    if (fit) app.graph.fit();
    if (compare.size() == 2) {
      try {
        app.compare_configs(compare[0], compare[1]);
      } catch (const std::exception& e) {
        app.set_error(e.what());  // shown in the window, and in the state printed with a screenshot
      }
    }
    if (select >= 0) app.graph.select(select, dpr);
    if (!search.empty()) app.graph.search(search);
  };
  int fb_w = 0, fb_h = 0;
  glfwGetFramebufferSize(window, &fb_w, &fb_h);
  if (!screenshot.empty()) {
    // Hidden windows may report no size: draw at the size asked for.
    if (fb_w <= 0 || fb_h <= 0) fb_w = width, fb_h = height;
    for (int k = 0; k < frames; ++k) {
      if (k == 1) apply_view_options(scale);
      draw_frame(app, fb_w, fb_h, scale);
    }
    int code = 0;
    try {
      write_png(screenshot, fb_w, fb_h, read_pixels(fb_w, fb_h));
      std::printf("%s: %d x %d, %lld frames\n", screenshot.c_str(), fb_w, fb_h, static_cast<long long>(app.stats.frames));
      std::printf("state: %s\n", app.state_json().c_str());
      if (!svg.empty()) std::printf("%s\n", host.save(svg, app.graph.svg(1)).c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "explorer: %s\n", e.what());
      code = 1;
    }
    stop_window(window);
    return code;
  }
  bool first = true;
  while (!glfwWindowShouldClose(window)) {
    const double before = host.now_ms();
    glfwWaitEventsTimeout(0.25);
    if (host.now_ms() - before < 240) host.last_input = host.now_ms();  // woken by an event, not the timeout
    glfwGetFramebufferSize(window, &fb_w, &fb_h);
    if (fb_w <= 0 || fb_h <= 0 || !app.wants_frame(host.now_ms())) continue;
    float sx = 1, sy = 1;
    glfwGetWindowContentScale(window, &sx, &sy);
    draw_frame(app, fb_w, fb_h, sx * scale);
    if (first) {
      apply_view_options(sx * scale);
      first = false;
    }
    glfwSwapBuffers(window);
  }
  stop_window(window);
  return 0;
}

}  // namespace fastslow::explorer
