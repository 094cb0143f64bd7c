#include "train/process.h"

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

}  // namespace fastslow::train
