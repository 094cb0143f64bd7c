#include "models/model.h"

#include <malloc.h>

#include <limits>

namespace fastslow::models {

void keep_freed_cpu_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
#endif
}

}  // namespace fastslow::models
