// What the side panel's sections share, so each section's file reads alike.
#pragma once

#include <imgui.h>

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>

namespace fastslow::explorer {

// A section's rule and title.
inline void section(const char* title) {
  ImGui::Spacing();
  ImGui::Separator();
  ImGui::TextDisabled("%s", title);
}

// Dim text wrapped at the panel's edge: the notes under a section.
inline void note(const char* format, ...) IM_FMTARGS(1);
inline void note(const char* format, ...) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  va_list args;
  va_start(args, format);
  ImGui::TextWrappedV(format, args);
  va_end(args);
  ImGui::PopStyleColor();
}

// A number with printf format `f`; "-" for NaN.
inline std::string fmt(double v, const char* f = "%.4f") {
  if (std::isnan(v)) return "-";
  char b[48];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace fastslow::explorer
