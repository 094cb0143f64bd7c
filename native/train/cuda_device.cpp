// Everything fastslow asks of the CUDA runtime itself (step_graphs.h's
// graphs and side stream, device_info.h's device name): the one file that
// includes CUDA headers, built only against a LibTorch with CUDA
// (FASTSLOW_CUDA).
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>
#include <unordered_map>

#include "train/step_graphs.h"

namespace fastslow::train {

namespace {

// Eager runs of a piece before its capture: the first meets lazy
// initialisation (cuBLAS handles and workspaces for this stream, kernels
// loaded on first use), which must not happen inside a capture.
constexpr int kEagerRuns = 2;

class CudaStepGraphs : public StepGraphs {
 public:
  CudaStepGraphs(const torch::Device& device, Say say)
      : device_(device), say_(std::move(say)), pool_(at::cuda::graph_pool_handle()) {}

  void run(const std::string& key, const std::function<void()>& work) override {
    if (off_) {
      work();
      return;
    }
    Piece& p = pieces_[key];
    if (p.graph) {
      p.graph->replay();
      ++replays_;
      return;
    }
    if (p.eager < kEagerRuns) {
      ++p.eager;
      work();
      return;
    }
    capture(key, p, work);
  }

  std::string summary() const override {
    if (off_) return "eager (CUDA graphs off: " + why_off_ + ")";
    return "CUDA graphs: " + std::to_string(captured_) + " captured, " + std::to_string(replays_) + " replays";
  }
  bool replaying() const override { return !off_; }

 private:
  struct Piece {
    int eager = 0;
    std::unique_ptr<at::cuda::CUDAGraph> graph;
  };

  void capture(const std::string& key, Piece& p, const std::function<void()>& work) {
    c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream(device_.index());
    if (stream == c10::cuda::getDefaultCUDAStream(device_.index())) {
      turn_off("the step runs on the default stream, which cannot be captured");
      work();
      return;
    }
    stream.synchronize();
    auto graph = std::make_unique<at::cuda::CUDAGraph>();
    try {
      // Every capture shares one memory pool: a piece's intermediates are
      // dead once it has run, and nothing a piece leaves behind lives in
      // the pool (its outputs are fixed buffers made outside captures).
      graph->capture_begin(pool_);
      work();
      graph->capture_end();
    } catch (const std::exception& e) {
      abandon(stream);
      graph.reset();
      turn_off(key + ": " + e.what());
      work();  // a captured piece has not run: run it now
      return;
    }
    graph->replay();  // likewise
    ++captured_;
    ++replays_;
    p.graph = std::move(graph);
  }

  // Leaves a capture that an error cut short: the stream stays in capture
  // mode until it is ended, and would refuse every later launch.
  static void abandon(const c10::cuda::CUDAStream& stream) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream.stream(), &status) == cudaSuccess && status != cudaStreamCaptureStatusNone) {
      cudaGraph_t partial = nullptr;
      cudaStreamEndCapture(stream.stream(), &partial);
      if (partial) cudaGraphDestroy(partial);
    }
    cudaGetLastError();  // capture errors are not sticky: clear the last one
  }

  void turn_off(const std::string& why) {
    off_ = true;
    why_off_ = why;
    pieces_.clear();
    if (say_) say_("CUDA graphs off, training goes on eagerly: " + why);
  }

  torch::Device device_;
  Say say_;
  decltype(at::cuda::graph_pool_handle()) pool_;
  std::unordered_map<std::string, Piece> pieces_;
  bool off_ = false;
  std::string why_off_;
  int64_t captured_ = 0, replays_ = 0;
};

struct SideStream {
  explicit SideStream(const torch::Device& device)
      : stream(c10::cuda::getStreamFromPool(false, device.index())), guard(stream) {
    // Work queued before (weights copied to the device) comes first.
    cudaEvent_t ready;
    cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
    cudaEventRecord(ready, c10::cuda::getDefaultCUDAStream(device.index()).stream());
    cudaStreamWaitEvent(stream.stream(), ready, 0);
    cudaEventDestroy(ready);
  }
  ~SideStream() { stream.synchronize(); }
  c10::cuda::CUDAStream stream;
  c10::cuda::CUDAStreamGuard guard;
};

}  // namespace

std::unique_ptr<StepGraphs> make_cuda_step_graphs(const torch::Device& device, const Say& say) {
  return std::make_unique<CudaStepGraphs>(device, say);
}

std::shared_ptr<void> use_side_stream(const torch::Device& device) { return std::make_shared<SideStream>(device); }

std::string cuda_device_name(int index) {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, index) != cudaSuccess) {
    cudaGetLastError();
    return "device " + std::to_string(index);
  }
  char mem[32];
  std::snprintf(mem, sizeof mem, " (%.1f GiB)", static_cast<double>(p.totalGlobalMem) / (1024.0 * 1024 * 1024));
  return std::string(p.name) + mem;
}

}  // namespace fastslow::train
