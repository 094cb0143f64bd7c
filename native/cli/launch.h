// `fastslow train --nproc N`: starts N worker processes of this same command
// on this machine, with the variables torchrun would set (RANK, WORLD_SIZE,
// LOCAL_RANK, MASTER_ADDR=127.0.0.1, a free MASTER_PORT), and watches them.
// The workers run in a process group of their own, so one Ctrl-C reaches
// each of them once, through the launcher.
#pragma once

#include <string>
#include <vector>

namespace fastslow::cli {

// This process's command line with `--nproc N` (or --nproc=N) removed.
std::vector<std::string> command_without_nproc();

// Runs the workers to the end. A worker that fails (a non-zero exit, a
// signal) is named at once and the others are asked to stop (SIGINT: they
// save and exit), then killed if still there `grace_seconds` later.
// Returns 0 when all succeed, 130 when interrupted, else the first
// failure's exit code (2 for a killed worker).
int launch_local(int nproc, const std::vector<std::string>& args, int grace_seconds);

}  // namespace fastslow::cli
