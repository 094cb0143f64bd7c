// Replays the device work of training steps as CUDA graphs. A step of the
// default layout model is a few hundred small kernels: launched one by one
// from the host, a GPU spends its step waiting for the launches (measured
// on an H200: 13-17 ms per step whatever the batch), while a captured graph
// launches them all at once. Each piece of work (one graph's forward and
// backward at one batch size, the optimizer's update) is run eagerly a
// couple of times (lazy initialisation happens then, never during a
// capture), captured once, then replayed; its inputs must be tensors that
// stay where they are (StepEngine copies each batch into fixed buffers).
// A capture that fails turns graphs off for the rest of the run, with a
// message, and training goes on eagerly. The CPU, and a LibTorch built
// without CUDA, run everything eagerly.
//
// This header needs no CUDA header: the CUDA side is one file,
// cuda_device.cpp, built only against a LibTorch with CUDA.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <memory>
#include <string>

namespace fastslow::train {

class StepGraphs {
 public:
  virtual ~StepGraphs() = default;
  // Runs `work` (device work only: nothing read back to the host) as the
  // piece called `key`.
  virtual void run(const std::string& key, const std::function<void()>& work) = 0;
  // For the log: "eager", or the graphs captured and replayed.
  virtual std::string summary() const = 0;
  virtual bool replaying() const { return false; }
};

using Say = std::function<void(const std::string&)>;

// Graphs when `enabled`, `device` is a CUDA device and this LibTorch has
// CUDA; eager otherwise.
std::unique_ptr<StepGraphs> make_step_graphs(const torch::Device& device, bool enabled, const Say& say);

// Whether this build can replay CUDA graphs (the LibTorch it was built
// against has CUDA).
bool cuda_graphs_built();

// While it lives, the calling thread's work on `device` goes to a stream of
// its own (a capture needs one other than the default); on destruction that
// stream's work is waited for. Nothing on the CPU.
class DeviceStream {
 public:
  explicit DeviceStream(const torch::Device& device);
  ~DeviceStream();
  DeviceStream(const DeviceStream&) = delete;
  DeviceStream& operator=(const DeviceStream&) = delete;

 private:
  std::shared_ptr<void> guard_;
};

}  // namespace fastslow::train
