// --init RUN: a run that starts from another run's model, a prior
// pre-trained on other graphs (generated ones, other real programs) and
// fine-tuned on this one. The new run reads its inputs with the prior's
// normalisation (the weights were learned on inputs scaled that way) and
// copies every tensor of the prior's model into the same tensor of its own,
// under the per-program model's `deep.` prefix when the prior is a plain
// model. A per-program prior's own wide table, gate and scale belong to its
// graph and are not copied: this run fits its table on its own configs.
#pragma once

#include <string>

#include "models/model.h"
#include "train/dataset.h"
#include "train/options.h"

namespace fastslow::train {

// The prior's normaliser. Throws Error naming the run when it holds no
// finished model or was trained for the other kind, another model, width,
// depth or config width than `o` asks for.
Normalizer init_normaliser(const TrainOptions& o);

struct InitCopy {
  int64_t tensors = 0;   // copied
  int64_t skipped = 0;   // the prior's per-program table, gate and scale
};
// Copies the prior's best model into `model`; Error naming the first tensor
// that has no counterpart of the same shape.
InitCopy copy_init_weights(models::RankModelImpl& model, const TrainOptions& o);

}  // namespace fastslow::train
