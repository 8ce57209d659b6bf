#include "iteration/sim_scratch.hpp"

#include <utility>

namespace vtrain::detail {

namespace {

// The plan with every field that the kernels of one micro-batch cannot depend on set to a fixed
// value: they depend on the tensor-parallel degree, the micro-batch and the per-layer options,
// never on the pipeline, the data-parallel replicas or the batch.
PlanConfig kernel_key(const ModelConfig& m, const PlanConfig& p) {
  PlanConfig k = p;
  // A MoE layer's expert-parallel group lies on the nodes by tp, dp, pp and the placement, and so
  // does a context-parallel ring's: those stay.
  if (is_moe(m) || p.cp > 1) {
    k.global_batch = 1;
    k.zero_stage = 0;
    k.dp_overlap = false;
    k.p2p_overlap = false;
    return k;
  }
  k.pp = 1;
  k.dp = 1;
  k.virtual_stages = 1;
  k.global_batch = 1;
  k.zero_stage = 0;
  k.shard_group = 0;
  k.shard_prefetch = true;
  k.reshard_after_forward = true;
  k.recompute_gather = false;
  k.shard_flat_ring = false;
  k.shard_device_sync = false;
  k.dp_overlap = false;
  k.p2p_overlap = false;
  k.placement = Placement::tp_dp_pp;
  return k;
}

}  // namespace

const LayerKernels& timed_kernels(const SimConfig& config, const Profile& prof, const Fabric& fabric,
                                  const PlanGroups& groups, const RingPlace& ring, SimScratch* scratch,
                                  LayerKernels& own) {
  if (!scratch) {
    own = build_kernels(config.model, config.plan);
    time_kernels(own, prof, fabric, groups, ring);
    return own;
  }
  if (scratch->profile != &prof || !(scratch->model == config.model) || !(scratch->cluster == config.cluster)) {
    scratch->kernels.clear();
    scratch->profile = &prof;
    scratch->model = config.model;
    scratch->cluster = config.cluster;
  }
  const PlanConfig key = kernel_key(config.model, config.plan);
  auto& entries = scratch->kernels;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].key == key) {
      if (i > 0) std::swap(entries[i], entries[0]);  // keep hot entries in front
      return entries[0].kernels;
    }
  }
  SimScratch::KernelEntry e{key, build_kernels(config.model, config.plan)};
  time_kernels(e.kernels, prof, fabric, groups, ring);
  if (entries.size() >= scratch->kernel_capacity) entries.pop_back();
  entries.insert(entries.begin(), std::move(e));
  return entries[0].kernels;
}

const PipelineOutcome& run_pipeline(const PipelineInput& in, SimScratch* scratch, PipelineOutcome& own) {
  if (!scratch) {
    simulate_pipeline(in, own);
    return own;
  }
  if (scratch->has_last && scratch->last_input == in) {
    ++scratch->pipelines_reused;
    return scratch->last_outcome;
  }
  scratch->has_last = false;
  auto& orders = scratch->orders;
  std::size_t i = 0;
  while (i < orders.size() && !(orders[i].stages == in.stages && orders[i].chunks == in.chunks &&
                                orders[i].micro_batches == in.micro_batches))
    ++i;
  if (i == orders.size()) {
    // The first pipeline of a shape finds its block order; later ones of that shape follow it.
    if (orders.size() >= scratch->order_capacity) orders.pop_back();
    orders.insert(orders.begin(), PipelineOrder{});
    simulate_pipeline(in, scratch->last_outcome, &orders[0]);
  } else {
    if (i > 0) std::swap(orders[i], orders[0]);
    simulate_pipeline(in, orders[0], scratch->last_outcome);
  }
  scratch->last_input = in;
  scratch->has_last = true;
  ++scratch->pipelines_run;
  return scratch->last_outcome;
}

}  // namespace vtrain::detail
