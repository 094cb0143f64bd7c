// Learning-rate schedule: linear warm-up, then cosine decay to min_ratio of
// the base rate at the last step. A pure function of the step, so resuming
// needs only the step counter.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace fastslow::train {

inline double cosine_lr(int64_t step, int64_t total_steps, int64_t warmup_steps, double base_lr,
                        double min_ratio = 0.02) {
  if (total_steps <= 0) return base_lr;
  if (warmup_steps > 0 && step < warmup_steps) return base_lr * static_cast<double>(step + 1) / warmup_steps;
  const double span = std::max<int64_t>(1, total_steps - warmup_steps);
  const double t = std::clamp(static_cast<double>(step - warmup_steps) / span, 0.0, 1.0);
  const double pi = 3.14159265358979323846;
  return base_lr * (min_ratio + (1.0 - min_ratio) * 0.5 * (1.0 + std::cos(pi * t)));
}

}  // namespace fastslow::train
