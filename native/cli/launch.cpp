#include "launch.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

#include "fastslow/error.h"

namespace fastslow::cli {

namespace {

std::atomic<int> g_signal{0};

void on_signal(int sig) { g_signal.store(sig); }

// A port the kernel had free a moment ago; the store binds it right after.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw Error(std::string("--nproc: cannot open a socket: ") + std::strerror(errno));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    throw Error("--nproc: cannot find a free port on 127.0.0.1: " + why);
  }
  ::close(fd);
  return ntohs(a.sin_port);
}

std::string describe(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
                                  strsignal(WTERMSIG(status)) + ")";
  return "stopped";
}

}  // namespace

std::vector<std::string> command_without_nproc() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (size_t at = 0; at < all.size();) {
    const size_t end = all.find('\0', at);
    args.push_back(all.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--nproc") {
      ++i;  // and its value
      continue;
    }
    if (args[i].rfind("--nproc=", 0) == 0) continue;
    out.push_back(args[i]);
  }
  return out;
}

int launch_local(int nproc, const std::vector<std::string>& args, int grace_seconds) {
  const int port = free_port();
  std::vector<pid_t> pids(static_cast<size_t>(nproc), -1);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  pid_t group = 0;
  const pid_t launcher = ::getpid();
  for (int r = 0; r < nproc; ++r) {
    const pid_t pid = ::fork();
    if (pid < 0) throw Error(std::string("--nproc: cannot start a worker: ") + std::strerror(errno));
    if (pid == 0) {
      // A launcher killed outright (SIGKILL, OOM) cannot stop its workers:
      // the kernel sends them SIGTERM, which they take as Ctrl-C (save and
      // stop), rather than leaving them to train on unattended.
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != launcher) ::_exit(130);  // it died before the line above
      ::setpgid(0, group);
      ::signal(SIGINT, SIG_DFL);
      ::signal(SIGTERM, SIG_DFL);
      ::setenv("RANK", std::to_string(r).c_str(), 1);
      ::setenv("LOCAL_RANK", std::to_string(r).c_str(), 1);
      ::setenv("WORLD_SIZE", std::to_string(nproc).c_str(), 1);
      ::setenv("LOCAL_WORLD_SIZE", std::to_string(nproc).c_str(), 1);
      ::setenv("MASTER_ADDR", "127.0.0.1", 1);
      ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
      ::setenv("FASTSLOW_BIND_CORES", "1", 1);  // train/process.h
      std::vector<char*> argv;
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv("/proc/self/exe", argv.data());
      std::fprintf(stderr, "fastslow: rank %d: cannot start: %s\n", r, std::strerror(errno));
      ::_exit(127);
    }
    if (group == 0) group = pid;
    ::setpgid(pid, group);  // also here: whichever of parent and child runs first
    pids[static_cast<size_t>(r)] = pid;
  }

  int result = 0, running = nproc;
  bool stopping = false, forwarded = false;
  auto deadline = std::chrono::steady_clock::time_point::max();
  while (running > 0) {
    if (const int sig = g_signal.load(); sig != 0 && !forwarded) {
      forwarded = true;  // once: a second SIGINT makes a worker quit without saving
      ::kill(-group, SIGINT);
      if (result == 0) result = 130;
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid < 0 && errno != EINTR) break;
    if (pid <= 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        std::fprintf(stderr, "fastslow: %d worker(s) still running %d s after the failure: killing them\n", running,
                     grace_seconds);
        ::kill(-group, SIGKILL);
        deadline = std::chrono::steady_clock::time_point::max();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    --running;
    int rank = 0;
    while (rank < nproc && pids[static_cast<size_t>(rank)] != pid) ++rank;
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    const bool interrupted = WIFEXITED(status) && WEXITSTATUS(status) == 130;
    if (ok || (interrupted && forwarded)) continue;
    if (result == 0 || result == 130) result = WIFEXITED(status) ? WEXITSTATUS(status) : 2;
    if (!stopping && running > 0) {
      stopping = true;
      std::fprintf(stderr, "fastslow: rank %d of %d %s; stopping the other workers\n", rank, nproc,
                   describe(status).c_str());
      if (!forwarded) {
        forwarded = true;
        ::kill(-group, SIGINT);
      }
      deadline = std::chrono::steady_clock::now() + std::chrono::seconds(grace_seconds);
    } else if (!stopping) {
      std::fprintf(stderr, "fastslow: rank %d of %d %s\n", rank, nproc, describe(status).c_str());
    }
  }
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  return result;
}

}  // namespace fastslow::cli
