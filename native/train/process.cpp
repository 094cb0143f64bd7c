#include "train/process.h"

#include <fstream>
#include <string>

#include "fastslow/error.h"
#include "models/model.h"

namespace fastslow::train {

torch::Device pick_device(const std::string& name) {
  if (name == "cpu") return torch::kCPU;
  if (name == "cuda") {
    if (!torch::cuda::is_available())
      throw Error("--device cuda: this build of LibTorch sees no CUDA device (use --device auto or cpu)");
    return torch::kCUDA;
  }
  if (name == "auto") return torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  throw Error("--device must be auto, cpu or cuda, got '" + name + "'");
}

void configure_process(int threads) {
  if (threads > 0) torch::set_num_threads(threads);
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
