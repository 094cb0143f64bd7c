// The page as the explorer's host (host_web.cpp).
#pragma once

#include "host.h"

namespace fastslow::explorer {

class WebHost : public Host {
 public:
  std::string request_rank(int model_index, int ticket) override;
  bool open_dialog(FileKind what) override;
  std::string save(const std::string& name, const std::string& text) override;
  bool can_save_png() const override { return true; }
  std::string save_png(const std::string& name, const std::string& svg, double scale) override;
  void set_clipboard(const std::string& text) override;
  double now_ms() override;
  double last_input_ms() override;
};

}  // namespace fastslow::explorer
