#include "train/device_info.h"

#include <torch/torch.h>

#include <cstdio>

#include "train/process.h"

namespace fastslow::train {

#ifdef FASTSLOW_CUDA
// cuda_device.cpp
std::string cuda_device_name(int index);
#endif

namespace {

std::string device_name(int index) {
#ifdef FASTSLOW_CUDA
  return cuda_device_name(index);
#else
  return "device " + std::to_string(index);
#endif
}

}  // namespace

std::string libtorch_description() {
  std::string s = FASTSLOW_TORCH_DESCRIPTION;
  const int64_t n = torch::cuda::is_available() ? static_cast<int64_t>(torch::cuda::device_count()) : 0;
  if (n == 0) return s + "; no CUDA device";
  s += "; " + std::to_string(n) + " CUDA device" + (n > 1 ? "s" : "") + ": " + device_name(0);
  return s;
}

std::string device_description(const std::string& device) {
  const torch::Device d = pick_device(device);
  if (d.is_cpu()) return "cpu, " + std::to_string(torch::get_num_threads()) + " threads";
  const int index = d.has_index() ? d.index() : 0;
  return "cuda:" + std::to_string(index) + ", " + device_name(index);
}

}  // namespace fastslow::train
