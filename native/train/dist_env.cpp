#include "train/dist_env.h"

#include <cerrno>
#include <cstdlib>

#include "fastslow/error.h"

namespace fastslow::train {

namespace {

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

long integer(const char* name, const std::string& text, long low, long high) {
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || *end != '\0' || v < low || v > high)
    throw Error(std::string("environment variable ") + name + "='" + text + "': expected an integer in [" +
                std::to_string(low) + ", " + std::to_string(high) + "]");
  return v;
}

}  // namespace

std::optional<DistEnv> DistEnv::from_environment() {
  const std::optional<std::string> world = env("WORLD_SIZE");
  const std::optional<std::string> rank = env("RANK");
  if (!world) {
    if (rank) throw Error("environment variable RANK is set but WORLD_SIZE is not: set both (as torchrun does)");
    return std::nullopt;
  }
  DistEnv e;
  e.world_size = static_cast<int>(integer("WORLD_SIZE", *world, 1, 65536));
  if (e.world_size == 1) return std::nullopt;
  if (!rank) throw Error("environment variable WORLD_SIZE=" + *world + " is set but RANK is not: set both");
  e.rank = static_cast<int>(integer("RANK", *rank, 0, e.world_size - 1));
  if (const auto local = env("LOCAL_RANK")) e.local_rank = static_cast<int>(integer("LOCAL_RANK", *local, 0, 65535));
  if (const auto addr = env("MASTER_ADDR")) e.master_addr = *addr;
  if (const auto port = env("MASTER_PORT")) e.master_port = static_cast<int>(integer("MASTER_PORT", *port, 1, 65535));
  e.agent_store = env("TORCHELASTIC_USE_AGENT_STORE").value_or("") == "True";
  if (e.agent_store)
    e.store_prefix = "/worker/attempt_" + std::to_string(integer(
                         "TORCHELASTIC_RESTART_COUNT", env("TORCHELASTIC_RESTART_COUNT").value_or("0"), 0, 1 << 30));
  return e;
}

}  // namespace fastslow::train
