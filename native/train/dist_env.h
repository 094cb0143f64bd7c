// Where this process stands in a data-parallel run, read from the variables
// torchrun sets (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT), so
// any launcher that sets them (torchrun, SLURM or mpirun scripts, a
// Kubernetes job, `fastslow train --nproc`) starts fastslow unchanged.
#pragma once

#include <optional>
#include <string>

namespace fastslow::train {

struct DistEnv {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  // Under torchrun the agent hosts the TCPStore at MASTER_ADDR:MASTER_PORT
  // (TORCHELASTIC_USE_AGENT_STORE=True): every rank is a client of it, and
  // keys live under /worker/attempt_<TORCHELASTIC_RESTART_COUNT>/, as
  // PyTorch's own workers do it.
  bool agent_store = false;
  std::string store_prefix;

  // nullopt when WORLD_SIZE is unset or 1 (one process). Throws Error naming
  // the variable when one is malformed or missing (RANK without WORLD_SIZE,
  // RANK outside [0, WORLD_SIZE), a port outside 1..65535).
  static std::optional<DistEnv> from_environment();
};

}  // namespace fastslow::train
