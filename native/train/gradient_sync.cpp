#include "train/gradient_sync.h"

#include <cmath>

namespace fastslow::train {

bool step_is_finite(GradientSync& sync, double loss, double grad_norm) {
  return sync.all(std::isfinite(loss) && std::isfinite(grad_norm));
}

}  // namespace fastslow::train
