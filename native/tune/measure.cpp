#include "tune/measure.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "fastslow/error.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/io/write_file.h"

namespace fastslow::tune {
namespace {

constexpr double kMaxRuntimeNs = 1e18;  // an int64 of nanoseconds holds 9.2e18

class FileMeasurer : public Measurer {
 public:
  explicit FileMeasurer(const CachedGraph& g) : g_(g) {
    if (!g.has_runtime() || g.groups.fastest_measured() < 0)
      throw Error(g.source, "config_runtime",
                  "--measure file: the file holds no runtimes (a test file); measure with --measure CMD");
  }
  std::vector<char> unmeasurable(int64_t) const override { return g_.groups.unmeasured(); }
  std::vector<double> measure(const std::vector<int64_t>& candidates, const std::string&) override {
    std::vector<double> out;
    for (int64_t c : candidates) {
      const double r = g_.groups.best_runtime[static_cast<size_t>(c)];
      // The session leaves configs without a runtime out; this guards the seam.
      if (!(r > 0) || !std::isfinite(r))
        throw Error(g_.source, "config_runtime",
                    "--measure file: config " + std::to_string(g_.groups.representative[static_cast<size_t>(c)]) +
                        " has no measured runtime (" + std::to_string(r) + "), so it cannot be looked up");
      out.push_back(r);
    }
    return out;
  }
  std::string describe() const override { return "looked up in " + g_.source; }

 private:
  const CachedGraph& g_;
};

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

class CommandMeasurer : public Measurer {
 public:
  CommandMeasurer(std::string cmd, const CachedGraph& g, double timeout_s)
      : cmd_(std::move(cmd)), g_(g), timeout_s_(timeout_s) {}

  std::vector<double> measure(const std::vector<int64_t>& candidates, const std::string& dir) override {
    std::filesystem::create_directories(dir);
    const std::string in = dir + "/measure-in.csv", out = dir + "/measure-out.csv";
    std::filesystem::remove(out);
    write_request(in, candidates);
    run(in, out);
    return read_answer(out, candidates);
  }
  std::string describe() const override { return "measured by `" + cmd_ + "`"; }

 private:
  int64_t config_of(int64_t candidate) const { return g_.groups.representative[static_cast<size_t>(candidate)]; }

  void write_request(const std::string& path, const std::vector<int64_t>& candidates) const {
    const int64_t nc = static_cast<int64_t>(g_.pruned.config_positions.size()), w = g_.config_feat_width;
    const bool tile = g_.kind == GraphKind::Tile;
    const std::vector<std::string>& names = config_feature_names(g_.kind);
    std::ostringstream s;
    s.precision(10);  // a tile block's product (up to 2^31) prints whole
    s << (tile ? "config" : "config,node");
    for (int64_t f = 0; f < w; ++f)
      s << ',' << (static_cast<int64_t>(names.size()) == w ? names[static_cast<size_t>(f)] : "f" + std::to_string(f));
    s << '\n';
    const std::vector<float> rows = g_.config_rows(candidates);
    if (tile) {  // one row per config: a kernel has one set of tile bounds
      for (size_t i = 0; i < candidates.size(); ++i) {
        s << config_of(candidates[i]);
        for (int64_t f = 0; f < w; ++f) s << ',' << rows[i * static_cast<size_t>(w) + static_cast<size_t>(f)];
        s << '\n';
      }
      write_file_atomically(path, s.str());
      return;
    }
    for (size_t i = 0; i < candidates.size(); ++i)
      for (int64_t j = 0; j < nc; ++j) {
        s << config_of(candidates[i]) << ','
          << g_.pruned.kept[static_cast<size_t>(g_.pruned.config_positions[static_cast<size_t>(j)])];
        for (int64_t f = 0; f < w; ++f) s << ',' << rows[(i * static_cast<size_t>(nc) + static_cast<size_t>(j)) * static_cast<size_t>(w) + static_cast<size_t>(f)];
        s << '\n';
      }
    write_file_atomically(path, s.str());
  }

  void run(const std::string& in, const std::string& out) const {
    const std::string script = cmd_ + " \"$1\" \"$2\"";
    const pid_t pid = fork();
    if (pid < 0) throw Error("--measure: could not start `" + cmd_ + "`");
    if (pid == 0) {
      setpgid(0, 0);  // its own group: a timeout stops the command and whatever it started
      execl("/bin/sh", "sh", "-c", script.c_str(), "sh", in.c_str(), out.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    setpgid(pid, pid);
    const auto start = std::chrono::steady_clock::now();
    int status = 0;
    for (;;) {
      const pid_t r = waitpid(pid, &status, WNOHANG);
      if (r == pid) break;
      if (r < 0) throw Error("--measure: lost the command `" + cmd_ + "`");
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (timeout_s_ > 0 && waited > timeout_s_) {
        kill(-pid, SIGKILL);
        waitpid(pid, &status, 0);
        throw Error(in, "", "--measure: `" + cmd_ + "` ran past --measure-timeout " + std::to_string(timeout_s_) +
                                " s on these configs and was stopped");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw Error(in, "", "--measure: `" + cmd_ + "` failed (" +
                              (WIFEXITED(status) ? "exit code " + std::to_string(WEXITSTATUS(status))
                                                 : "killed by signal " + std::to_string(WTERMSIG(status))) +
                              ") on these configs");
  }

  std::vector<double> read_answer(const std::string& path, const std::vector<int64_t>& candidates) const {
    std::ifstream f(path);
    if (!f) throw Error(path, "", "--measure: the command wrote no runtimes here");
    std::map<int64_t, size_t> asked;
    for (size_t i = 0; i < candidates.size(); ++i) asked[config_of(candidates[i])] = i;
    std::vector<double> rt(candidates.size(), -1);
    std::string line;
    int64_t at = 0;
    std::getline(f, line);  // header
    ++at;
    {
      // A missing header would silently drop the first runtime.
      const std::string first = trim(line.substr(0, line.find(',')));
      char* end = nullptr;
      if (!first.empty() && (std::strtoll(first.c_str(), &end, 10), end == first.c_str() + first.size()))
        throw Error(path, "", "line 1: '" + trim(line) + "' is a config's runtime; the first line is the header config,runtime_ns");
    }
    while (std::getline(f, line)) {
      ++at;
      if (trim(line).empty()) continue;
      const std::string where = "line " + std::to_string(at);
      const size_t comma = line.find(',');
      if (comma == std::string::npos) throw Error(path, "", where + ": expected config,runtime_ns, got '" + trim(line) + "'");
      const std::string cs = trim(line.substr(0, comma)), rs = trim(line.substr(comma + 1));
      int64_t config = 0;
      double runtime = 0;
      try {
        size_t used = 0;
        config = std::stoll(cs, &used);
        if (used != cs.size()) throw std::invalid_argument(cs);
      } catch (const std::exception&) {
        throw Error(path, "", where + ": config '" + cs + "' is not a config number");
      }
      const auto it = asked.find(config);
      if (it == asked.end())
        throw Error(path, "", where + ": config " + cs + " was not asked for in this round (measure-in.csv)");
      try {
        size_t used = 0;
        runtime = std::stod(rs, &used);
        if (used != rs.size()) throw std::invalid_argument(rs);
      } catch (const std::exception&) {
        throw Error(path, "", where + ": config " + cs + ": runtime '" + rs + "' is not a number");
      }
      if (!(runtime > 0) || !std::isfinite(runtime))
        throw Error(path, "", where + ": config " + cs + ": runtime " + rs + " ns is not a positive number");
      // Sessions keep whole nanoseconds (measured.csv, the runs' files).
      if (runtime < 1 || runtime > kMaxRuntimeNs)
        throw Error(path, "", where + ": config " + cs + ": runtime " + rs + " ns is outside [1, 1e18] ns (whole nanoseconds, up to 31 years)");
      if (rt[it->second] >= 0) throw Error(path, "", where + ": config " + cs + " has a second runtime");
      rt[it->second] = runtime;
    }
    for (size_t i = 0; i < rt.size(); ++i)
      if (rt[i] < 0)
        throw Error(path, "", "config " + std::to_string(config_of(candidates[i])) + " was asked for and has no runtime");
    return rt;
  }

  std::string cmd_;
  const CachedGraph& g_;
  double timeout_s_;
};

}  // namespace

std::unique_ptr<Measurer> make_measurer(const std::string& spec, const CachedGraph& graph, double timeout_s) {
  if (spec.empty()) throw Error("--measure: give `file` or a command");
  if (spec == "file") return std::make_unique<FileMeasurer>(graph);
  return std::make_unique<CommandMeasurer>(spec, graph, timeout_s);
}

}  // namespace fastslow::tune
