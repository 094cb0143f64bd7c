#include "train/process.h"

#include <dlfcn.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "fastslow/error.h"
#include "models/model.h"

namespace fastslow::train {

namespace {

// A data-parallel worker on a machine with several GPUs takes its own:
// LOCAL_RANK's, as torchrun (and --nproc) number them.
torch::Device cuda_device() {
  const auto count = static_cast<int64_t>(torch::cuda::device_count());
  const char* local = std::getenv("LOCAL_RANK");
  if (count > 1 && local && *local) return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(std::atoi(local) % count));
  return torch::kCUDA;
}

}  // namespace

torch::Device pick_device(const std::string& name) {
  if (name == "cpu") return torch::kCPU;
  if (name == "cuda") {
    if (!torch::cuda::is_available())
      throw Error("--device cuda: this build of LibTorch sees no CUDA device (use --device auto or cpu)");
    return cuda_device();
  }
  if (name == "auto") return torch::cuda::is_available() ? cuda_device() : torch::Device(torch::kCPU);
  throw Error("--device must be auto, cpu or cuda, got '" + name + "'");
}

namespace {

// LibTorch's set_num_threads does not reach OpenBLAS's own pool, whose
// threads spin while they wait: a one-thread process still kept two cores
// busy, and two data-parallel workers on two cores ran slower together than
// one alone. Looked up at run time: LibTorch may use another BLAS.
void set_blas_threads(int threads) {
  using SetThreads = void (*)(int);
  if (auto f = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) f(threads);
}

int env_int(const char* name, int missing) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : missing;
}

// Workers that share a machine share its cores, as torchrun's do.
int default_threads() {
  const int workers = env_int("LOCAL_WORLD_SIZE", 1);
  if (workers <= 1) return 0;
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  return cores > 0 ? std::max(1, cores / workers) : 1;
}

// Workers started by `train --nproc` (which sets FASTSLOW_BIND_CORES) each
// run on cores of their own when there are enough: the scheduler otherwise
// moves the compute threads around as the communication threads wake, and
// generated small layout:xla:random trained 10 % fewer configs/s. Threads
// started before this (the communication's) stay free to run anywhere.
void bind_cores(int threads) {
  const int r = env_int("LOCAL_RANK", -1), n = env_int("LOCAL_WORLD_SIZE", 0);
  if (env_int("FASTSLOW_BIND_CORES", 0) != 1 || threads <= 0) return;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  if (r < 0 || n < 1 || r >= n || static_cast<size_t>(threads) * static_cast<size_t>(n) > cpus.size()) return;
  cpu_set_t mine;
  CPU_ZERO(&mine);
  for (int i = r * threads; i < (r + 1) * threads; ++i) CPU_SET(cpus[static_cast<size_t>(i)], &mine);
  ::sched_setaffinity(0, sizeof mine, &mine);
}

}  // namespace

void configure_process(int threads) {
  if (threads <= 0) threads = default_threads();
  bind_cores(threads);
  if (threads > 0) {
    torch::set_num_threads(threads);
    set_blas_threads(threads);
  }
  // Steps allocate and free the same large activations every time; keeping
  // them in the heap saves 15-25 % of a CPU step in page faults.
  models::keep_freed_cpu_memory();
}

namespace {

int64_t status_bytes(const char* key) {  // "VmHWM:  1234 kB"
  std::ifstream f("/proc/self/status");
  const std::string k = key;
  for (std::string line; std::getline(f, line);)
    if (line.rfind(k, 0) == 0) return std::stoll(line.substr(k.size())) * 1024;
  return 0;
}

}  // namespace

int64_t peak_memory_bytes() { return status_bytes("VmHWM:"); }
int64_t resident_memory_bytes() { return status_bytes("VmRSS:"); }

void reset_peak_memory() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";  // resets the peak RSS to the current RSS (Linux 4.0+)
}

}  // namespace fastslow::train
