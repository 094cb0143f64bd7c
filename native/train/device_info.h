// What a command runs on, in words: the LibTorch fastslow was built
// against (what it offers, what this machine lets it use) and the device a
// run uses. Free of torch headers: `fastslow --version` prints it.
#pragma once

#include <string>

namespace fastslow::train {

// "LibTorch 2.11.0 at /…/torch (CUDA, NCCL); 1 CUDA device: NVIDIA H200",
// or "...; no CUDA device".
std::string libtorch_description();
// "cuda:0, NVIDIA H200 (139.8 GiB)" or "cpu, 16 threads", for --device
// NAME (auto, cpu, cuda) as a run resolves it.
std::string device_description(const std::string& device);

}  // namespace fastslow::train
