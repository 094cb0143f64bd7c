// The explorer's study part: the open study (trials.jsonl), independent of
// the graph, and its window (study_view.cpp draws it).
#pragma once

#include <memory>
#include <string>

#include "study_state.h"

namespace fastslow::explorer {

class StudyPanel {
 public:
  std::unique_ptr<StudyState> study;
  bool visible = false;  // the window is open

  // Opens a study from its text; a failure throws Error and keeps the
  // previous one. The window opens over the graph view.
  void open(std::string name, const std::string& text) {
    study = open_study(std::move(name), text);
    visible = place_ = true;
  }
  // The window, placed at (x, y, w, h) when the study was just opened.
  void window(float x, float y, float w, float h, float dpr);

 private:
  bool place_ = false;
};

}  // namespace fastslow::explorer
