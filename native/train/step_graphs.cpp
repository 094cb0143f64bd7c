#include "train/step_graphs.h"

namespace fastslow::train {

#ifdef FASTSLOW_CUDA
// cuda_device.cpp
std::unique_ptr<StepGraphs> make_cuda_step_graphs(const torch::Device& device, const Say& say);
std::shared_ptr<void> use_side_stream(const torch::Device& device);
#endif

namespace {

class EagerSteps : public StepGraphs {
 public:
  void run(const std::string&, const std::function<void()>& work) override { work(); }
  std::string summary() const override { return "eager"; }
};

}  // namespace

bool cuda_graphs_built() {
#ifdef FASTSLOW_CUDA
  return true;
#else
  return false;
#endif
}

std::unique_ptr<StepGraphs> make_step_graphs(const torch::Device& device, bool enabled, const Say& say) {
#ifdef FASTSLOW_CUDA
  if (enabled && device.is_cuda()) return make_cuda_step_graphs(device, say);
#else
  (void)device;
  (void)enabled;
  (void)say;
#endif
  return std::make_unique<EagerSteps>();
}

DeviceStream::DeviceStream(const torch::Device& device) {
#ifdef FASTSLOW_CUDA
  if (device.is_cuda()) guard_ = use_side_stream(device);
#else
  (void)device;
#endif
}

DeviceStream::~DeviceStream() = default;

}  // namespace fastslow::train
