#include "progress.h"

#include <unistd.h>

#include <atomic>
#include <memory>
#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace fastslow::cli {

namespace {

std::atomic<bool> g_interrupted{false};

void on_sigint(int) {
  if (g_interrupted.exchange(true)) std::_Exit(130);
}

std::string clock(double s) {
  if (!(s >= 0) || s > 359999) return "--:--";
  char buf[32];
  const long t = static_cast<long>(s + 0.5);
  if (t >= 3600)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%ld:%02ld", t / 60, t % 60);
  return buf;
}

}  // namespace

void install_interrupt_handler() { std::signal(SIGINT, on_sigint); }
bool interrupted() { return g_interrupted.load(); }

ProgressBar::ProgressBar(std::string label, size_t total, std::string unit)
    : label_(std::move(label)), unit_(std::move(unit)), total_(total), tty_(isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

void ProgressBar::update(size_t done, const std::string& note, size_t untimed) {
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const int percent = total_ ? static_cast<int>(100 * done / total_) : 100;
  const size_t timed = done > untimed ? done - untimed : 0;
  const double rate = elapsed > 0 ? timed / elapsed : 0;
  const double eta = rate > 0 ? (total_ - done) / rate : -1;
  if (tty_) {
    // Redrawing faster than 10 Hz only costs time.
    if (done != total_ && std::chrono::duration<double>(now - last_draw_).count() < 0.1) return;
    last_draw_ = now;
    const int width = 30, fill = total_ ? static_cast<int>(width * done / total_) : width;
    std::string bar(static_cast<size_t>(fill), '=');
    if (fill < width) bar += '>' + std::string(static_cast<size_t>(width - fill - 1), ' ');
    std::fprintf(stderr, "\r\033[K%s [%s] %zu/%zu %s  %.1f %s/s  ETA %s  %s", label_.c_str(), bar.c_str(), done,
                 total_, unit_.c_str(), rate, unit_.c_str(), clock(eta).c_str(), note.c_str());
  } else if (percent / 5 != last_percent_ / 5 || done == total_) {
    std::fprintf(stderr, "%s %3d%% %zu/%zu %s  %.1f %s/s  ETA %s  %s\n", label_.c_str(), percent, done, total_,
                 unit_.c_str(), rate, unit_.c_str(), clock(eta).c_str(), note.c_str());
  }
  last_percent_ = percent;
  std::fflush(stderr);
}

void ProgressBar::finish(const std::string& note) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (tty_) std::fprintf(stderr, "\n");
  std::fprintf(stderr, "%s done in %s %s\n", label_.c_str(), clock(elapsed).c_str(), note.c_str());
}

std::function<void(size_t, size_t, const std::string&)> cache_progress() {
  auto bar = std::make_shared<std::unique_ptr<ProgressBar>>();
  return [bar](size_t done, size_t total, const std::string& file) {
    if (!*bar) *bar = std::make_unique<ProgressBar>("cache", total, "graphs");
    if (done < total) {
      (*bar)->update(done, file);
      return;
    }
    (*bar)->finish();
    bar->reset();
  };
}

std::function<void(size_t, size_t)> rank_progress() {
  auto bar = std::make_shared<std::unique_ptr<ProgressBar>>();
  return [bar](size_t done, size_t total) {
    if (!*bar) *bar = std::make_unique<ProgressBar>("rank", total, "graphs");
    if (done < total) {
      (*bar)->update(done);
      return;
    }
    (*bar)->finish();
    bar->reset();
  };
}

}  // namespace fastslow::cli
