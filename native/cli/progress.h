// A terminal progress bar with rate and ETA, on stderr so stdout stays clean
// for data. Without a terminal it prints a line every few percent instead.
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace fastslow::cli {

class ProgressBar {
 public:
  ProgressBar(std::string label, size_t total, std::string unit);
  // `untimed` of the `done` units cost no time (files a resumed job found
  // already there): they are left out of the rate, or the ETA reads 0:00.
  void update(size_t done, const std::string& note = "", size_t untimed = 0);
  void finish(const std::string& note = "");

 private:
  std::string label_, unit_;
  size_t total_;
  bool tty_;
  int last_percent_ = -1;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// A progress callback (done, total, file) for preparing graph caches: a
// "cache" bar that appears on the first call and finishes at done == total.
std::function<void(size_t, size_t, const std::string&)> cache_progress();

// The same for ranking a split's graphs (done, total): a "rank" bar.
std::function<void(size_t, size_t)> rank_progress();

// Ctrl-C sets a flag instead of killing the process, so long jobs can finish
// the current step, save, and exit cleanly. A second Ctrl-C exits at once.
void install_interrupt_handler();
bool interrupted();

}  // namespace fastslow::cli
