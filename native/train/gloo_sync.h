// The GradientSync of a data-parallel run on CPU: LibTorch's c10d does the
// communication (TCPStore for the rendezvous and small messages,
// ProcessGroupGloo for the collectives); this file only decides what is
// exchanged when. Gradients go in buckets (the first of at most 1 MB, the
// others of bucket_bytes), each all-reduced as soon as backward has produced
// its gradients, and come back averaged.
#pragma once

#include <chrono>
#include <memory>

#include "train/dist_env.h"
#include "train/gradient_sync.h"

namespace fastslow::train {

// Connects to the other processes of `env` (rank 0 serves the TCPStore at
// MASTER_ADDR:MASTER_PORT). Every collective and every wait for a peer gives
// up after `timeout` with an Error naming what it waited for; a peer that has
// died is usually noticed at once (its sockets close). Throws Error when the
// rendezvous fails.
std::shared_ptr<GradientSync> connect_gloo(const DistEnv& env, std::chrono::milliseconds timeout,
                                           int64_t bucket_bytes = int64_t{4} << 20);

}  // namespace fastslow::train
