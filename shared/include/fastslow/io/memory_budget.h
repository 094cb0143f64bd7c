// The memory budget: the most memory one allocation sized from file data may
// take. Every reader checks a size it is about to allocate from what a file
// claims (an array's shape, a zip entry's size, a text file's length, a
// graph's arrays together) against it before allocating, so a 4 MB npz whose
// entry claims 4 GB of deflated zeros is refused with a message naming the
// file, the array and the size instead of exhausting memory.
//
// The default is half of what the process may use: natively the smallest of
// physical memory, the address-space and data limits (ulimit -v / -d) and the
// cgroup's memory limit; in the browser half of the wasm heap's maximum
// (-sMAXIMUM_MEMORY). `fastslow --max-memory SIZE` sets it; it is
// process-wide and safe to read from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fastslow {

// The budget in bytes (the default until set_memory_budget is called).
uint64_t memory_budget();
// Sets the budget; `origin` says where it came from in messages. 0 restores
// the default.
void set_memory_budget(uint64_t bytes, std::string origin = "--max-memory");

// The default and where it comes from, e.g. "half of physical memory;
// --max-memory changes it".
uint64_t default_memory_budget();
// The memory the default is a share of (physical memory or a limit below it).
uint64_t memory_limit();

// Throws Error(file, array, claim + ", over the memory budget of 8.0 GB
// (origin)") when bytes > memory_budget(). `claim` says what the bytes are,
// e.g. "claims 4.0 GB of data" (see format_bytes).
void check_memory_budget(uint64_t bytes, const std::string& file, const std::string& array,
                         const std::string& claim);

// Sizes computed from what a file claims may overflow: these stop at the
// largest value instead, which every budget refuses.
inline uint64_t saturating_add(uint64_t a, uint64_t b) { return a + b < a ? ~uint64_t(0) : a + b; }
inline uint64_t saturating_mul(uint64_t a, uint64_t b) {
  return a != 0 && b > ~uint64_t(0) / a ? ~uint64_t(0) : a * b;
}

// "512 bytes", "16 KB", "1.5 GB", "12 GB": powers of 1024, one decimal
// below 10.
std::string format_bytes(uint64_t bytes);

// Reads "4096", "512K", "512M", "1.5G", "8GB", "8GiB", "2T" (powers of 1024,
// case-insensitive) or "75%" (of memory_limit()). False for anything else,
// zero included.
bool parse_memory_size(std::string_view text, uint64_t* bytes);

// Sets the budget for its lifetime and restores the previous one after
// (tests).
class ScopedMemoryBudget {
 public:
  explicit ScopedMemoryBudget(uint64_t bytes, std::string origin = "--max-memory");
  ~ScopedMemoryBudget();
  ScopedMemoryBudget(const ScopedMemoryBudget&) = delete;
  ScopedMemoryBudget& operator=(const ScopedMemoryBudget&) = delete;

 private:
  uint64_t saved_bytes_;
  std::string saved_origin_;
  bool was_set_;
};

}  // namespace fastslow
