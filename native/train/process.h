// What a training or ranking process sets once for itself, not per run: a
// run inside a larger process (a search trial, one fold of several) must
// not reset it.
#pragma once

#include <torch/torch.h>

#include <string>

namespace fastslow::train {

// "auto", "cpu" or "cuda"; throws Error on an unknown name or on "cuda"
// without a CUDA device.
torch::Device pick_device(const std::string& name);

// LibTorch's intra-op threads and OpenBLAS's, and the allocator's behaviour
// (models::keep_freed_cpu_memory). threads 0: LibTorch's default, or the
// cores shared out over LOCAL_WORLD_SIZE workers of a data-parallel run.
// Workers of `train --nproc` (FASTSLOW_BIND_CORES=1) are bound to cores of
// their own where there are enough for every worker's threads.
void configure_process(int threads);

// This process's peak resident memory (Linux VmHWM), and restarting it from
// the current use (clear_refs), so a phase's own peak can be read: the
// training steps' peak goes to log.jsonl. 0 where the system does not tell.
int64_t peak_memory_bytes();
int64_t resident_memory_bytes();  // now (VmRSS)
void reset_peak_memory();

}  // namespace fastslow::train
