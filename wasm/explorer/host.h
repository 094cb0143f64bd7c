// What the explorer asks of the platform it runs on: the page (host_web.cpp:
// JS through EM_JS), a desktop window (host_native.cpp), or a test. The app
// calls nothing platform-specific but this.
#pragma once

#include <string>

#include "fastslow/error.h"

namespace fastslow::explorer {

// What a file chooser opens: Compare is a graph to compare the open one with.
enum class FileKind { Graph, Model, Study, Compare };

class Host {
 public:
  virtual ~Host() = default;
  // Starts ranking the open document with model `model_index` under `ticket`:
  // the host runs the job through the rank session calls (rank_session.h),
  // opened with Ranking::open_session(ticket, ...). A host that cannot rank
  // says why (the returned message, shown); "" when started.
  virtual std::string request_rank(int model_index, int ticket) = 0;
  // A file chooser for `what`; false when the host has none (the app says how else).
  virtual bool open_dialog(FileKind what) = 0;
  // Saves `text` as `name` (a download in the page, a file natively); where
  // it went, or throws Error.
  virtual std::string save(const std::string& name, const std::string& text) = 0;
  // Saves `svg` drawn at `scale` times its size as a PNG named `name`: the
  // page rasterises the SVG in the browser, so the PNG shows what the SVG
  // does, legend included. Hosts that cannot draw SVG offer none (the
  // native explorer has --screenshot instead).
  virtual bool can_save_png() const { return false; }
  virtual std::string save_png(const std::string& name, const std::string&, double) {
    throw Error("no PNG export here for " + name + ": save the SVG, or use --screenshot");
  }
  virtual void set_clipboard(const std::string& text) = 0;
  virtual double now_ms() = 0;
  // When the user last touched the window (pointer, wheel, keys), in now_ms time.
  virtual double last_input_ms() = 0;
};

}  // namespace fastslow::explorer
