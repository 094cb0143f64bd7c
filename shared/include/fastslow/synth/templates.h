// Model templates for the synthetic generator: realistic HLO graphs of a few
// model families, grown block by block until they reach a node-count target.
// Everything is drawn from the given Rng, so a seed fixes the graph exactly,
// natively and in wasm.
#pragma once

#include "fastslow/synth/hlo.h"
#include "fastslow/rng.h"

namespace fastslow::synth {

// Layout graphs (whole programs). `target_nodes` is approximate: blocks are
// added while the graph is smaller than it, so results land within about one
// block of it (tens of nodes; a few hundred for huge layers). Each has
// several computations (calls, fusions, while bodies) and a tuple as root.
HloGraph resnet_like(Rng& rng, int target_nodes);          // conv/BN/relu residual stages
HloGraph transformer_encoder(Rng& rng, int target_nodes);  // LN, attention, GELU MLP
HloGraph mlp(Rng& rng, int target_nodes);                  // dense layers, fused bias+act
HloGraph rnn_unrolled(Rng& rng, int target_nodes);         // LSTM steps unrolled + a while loop
// A training step (forward, loss, backward, all-reduce, Adam; some looped
// programs accumulate gradients and update in a conditional) of a 2-D or
// 3-D U-Net (template_unet_training.cpp). Its size comes from its depth and
// width, the pair nearest the target; targets beyond ~6,000 nodes get the
// largest net.
HloGraph unet_training(Rng& rng, int target_nodes);
// A training step of a transformer encoder with a per-token classifier
// (BERT-like; template_bert_training.cpp). Its size comes from its depth
// (about 500-600 nodes a layer, 1 to 48 layers).
HloGraph bert_training(Rng& rng, int target_nodes);

// Ids are stored in answer files (generator_template): append only.
enum class ModelTemplate { ResNet, Transformer, Mlp, Rnn, UnetTraining, BertTraining };
const std::vector<ModelTemplate>& all_templates();
const char* template_name(ModelTemplate t);  // "resnet" | "transformer" | "mlp" | "rnn" | "unet" | "bert"
HloGraph generate(ModelTemplate t, Rng& rng, int target_nodes);

// A tile graph: one fused kernel (elementwise, reduce, dot or convolution
// flavoured) of about target_nodes nodes, clamped to 5..100, one computation
// whose root is its single array output.
HloGraph tile_kernel(Rng& rng, int target_nodes);

}  // namespace fastslow::synth
