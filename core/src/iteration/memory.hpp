#pragma once
// Memory per GPU of each pipeline stage (Korthikanti et al. 2022 activation accounting,
// generalized to grouped-query attention, gated MLPs and fused attention).

#include <vector>

#include "vtrain/config.hpp"
#include "vtrain/profile.hpp"
#include "vtrain/simulate.hpp"

namespace vtrain::detail {

// Transformer layers in model chunk `chunk` of pipeline stage `stage` (model chunk chunk x pp +
// stage in layer order), and in all of the stage's chunks. The split divides the pipeline's slots
// (the layers, plus the embedding and the head where the plan counts them as layers): evenly where
// pp x virtual_stages divides them; otherwise (no interleaving) the first slots % pp stages hold
// one more, as DeepSpeed's uniform pipeline partition places them; then the first chunk gives the
// embedding its slot and the last the head. Where the plan lists its stages' layers
// (plan.stage_layers), those.
int chunk_layers(const ModelConfig& m, const PlanConfig& p, int stage, int chunk);
int stage_layers(const ModelConfig& m, const PlanConfig& p, int stage);

// Parameters held by one GPU of each stage (count), index = stage.
std::vector<double> stage_local_parameters(const ModelConfig& m, const PlanConfig& p);

// A mixture of experts: the first layer (0-based) of model chunk `chunk` of stage `stage`, the
// MoE layers in that chunk and in the whole stage, and the routed experts' parameters one GPU of
// each stage holds (count; part of stage_local_parameters), reduced over the expert data-parallel
// group rather than the data-parallel one.
int chunk_first_layer(const ModelConfig& m, const PlanConfig& p, int stage, int chunk);
int chunk_moe_layers(const ModelConfig& m, const PlanConfig& p, int stage, int chunk);
int stage_moe_layers(const ModelConfig& m, const PlanConfig& p, int stage);
std::vector<double> stage_expert_parameters(const ModelConfig& m, const PlanConfig& p);

// The expert data-parallel degree: tp x dp / (etp x ep) (GPUs); dp for a dense model.
int expert_dp(const ModelConfig& m, const PlanConfig& p);

// Weights of the linear layers (q, k, v, output projection, MLP) one GPU of stage `stage` holds
// (count): with fp8 precision Transformer Engine keeps an FP8 copy of each, and its transpose,
// made once an iteration.
double stage_linear_weights(const ModelConfig& m, const PlanConfig& p, int stage);

// Activation bytes one layer saves for its backward pass, one micro-batch, one TP rank.
double layer_activation_bytes(const ModelConfig& m, const PlanConfig& p, bool without_attention_core);

std::vector<MemoryBreakdown> stage_memory(const ModelConfig& m, const PlanConfig& p,
                                          const Profile& prof, const std::vector<double>& local_params);

}  // namespace vtrain::detail
