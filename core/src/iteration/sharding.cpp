#include "iteration/sharding.hpp"

#include "iteration/memory.hpp"
#include "vtrain/model.hpp"

namespace vtrain::detail {

// The optimizer states are sharded over the data-parallel ranks and, where the plan has context
// parallelism (whose ranks hold the same weights), its ranks too (Megatron's distributed optimizer).
int shard_size(const PlanConfig& p) { return p.shard_group > 0 ? p.shard_group : p.dp * p.cp; }

bool shards_parameters(const PlanConfig& p) { return p.zero_stage >= 3 && shard_size(p) > 1; }

double layer_parameters(const ModelConfig& m, const PlanConfig& p) {
  return count_parameters(m).per_layer / p.tp;
}

MoeLayerParameters moe_layer_parameters(const ModelConfig& m, const PlanConfig& p) {
  MoeLayerParameters out;
  if (!is_moe(m)) return out;
  const ParameterCounts c = count_parameters(m);
  const double others = c.per_moe_layer - c.router - m.moe.experts * c.expert;
  out.dense = others / p.tp + c.router;
  out.experts = static_cast<double>(m.moe.experts) / p.ep * c.expert / expert_tp(p);
  out.experts_sharded = expert_dp(m, p) > 1;
  out.gathered = out.dense + (out.experts_sharded ? out.experts : 0.0);
  return out;
}

double stage_edge_parameters(const ModelConfig& m, const PlanConfig& p, int stage) {
  const ParameterCounts c = count_parameters(m);
  const double vocab_rows = static_cast<double>(padded_vocab(m, p.tp)) / p.tp;
  double n = 0;
  if (stage == 0) n += vocab_rows * m.hidden + c.position;
  if (stage == p.pp - 1) {
    n += c.final_norm;
    if (!m.tied_embeddings || p.pp > 1) n += vocab_rows * m.hidden;
  }
  return n;
}

ShardComm shard_comm(const ModelConfig& m, const PlanConfig& p, const Profile& prof, const Fabric& fabric,
                     long long ranks, int gpus_per_node, const GroupShape& expert_dp_group) {
  ShardComm sc;
  if (!shards_parameters(p)) return sc;
  sc.on = true;
  sc.prefetch = p.shard_prefetch && !p.launch_blocking;
  sc.device_sync = p.shard_device_sync;
  const int shard = shard_size(p);
  const int replicas = p.dp / shard;
  // Data-parallel ranks lie dp_stride apart; a shard group is `shard` consecutive ones of them, its
  // replicas the ranks at the same place in the other groups.
  const long long dp_stride = p.placement == Placement::tp_dp_pp ? p.tp : static_cast<long long>(p.tp) * p.pp;
  GroupShape shard_group = group_shape(shard, dp_stride, ranks, gpus_per_node);
  // A flat ring that spans nodes sends every member's whole buffer through its own network share:
  // nothing is aggregated within a node.
  if (p.shard_flat_ring && shard_group.nodes > 1) shard_group = GroupShape{shard, 1, shard};
  const GroupShape replica_group = group_shape(replicas, dp_stride * shard, ranks, gpus_per_node);
  const double grad_bytes = p.precision == Precision::bf16 ? 4.0 : 2.0;
  // A unit's gather and its gradients' reduction: reduce-scatter over the shard group, then (HSDP)
  // the all-reduce of this rank's shard over its replicas.
  const auto gather = [&](double params) {
    return collective_s(prof, fabric, shard_group, CollectiveKind::all_gather, params * kHalfBytes);
  };
  const auto reduce = [&](double params) {
    return collective_s(prof, fabric, shard_group, CollectiveKind::reduce_scatter, params * grad_bytes) +
           collective_s(prof, fabric, replica_group, CollectiveKind::all_reduce, params * grad_bytes / shard);
  };
  const double layer = layer_parameters(m, p);
  sc.gather_s = gather(layer);
  sc.backward_gather_s = p.reshard_after_forward ? sc.gather_s : 0.0;
  sc.recompute_gather_s = p.recompute_gather && p.reshard_after_forward && p.recompute != Recompute::none ? sc.gather_s : 0.0;
  sc.reduce_s = reduce(layer);
  if (is_moe(m)) {
    // FSDP with expert parallelism (torchtitan, NeMo AutoModel): a MoE layer's routed experts are
    // sharded over the ranks that hold the same experts, the expert data-parallel group; where that
    // group is one GPU they stay whole and are neither gathered nor reduced.
    const MoeLayerParameters moe = moe_layer_parameters(m, p);
    const bool experts_sharded = moe.experts_sharded;
    const double expert_gather =
        experts_sharded ? collective_s(prof, fabric, expert_dp_group, CollectiveKind::all_gather, moe.experts * kHalfBytes) : 0.0;
    sc.moe_gather_s = gather(moe.dense) + expert_gather;
    sc.moe_backward_gather_s = p.reshard_after_forward ? sc.moe_gather_s : 0.0;
    sc.moe_recompute_gather_s = sc.recompute_gather_s > 0 ? sc.moe_gather_s : 0.0;
    sc.moe_reduce_s =
        reduce(moe.dense) +
        (experts_sharded ? collective_s(prof, fabric, expert_dp_group, CollectiveKind::reduce_scatter, moe.experts * grad_bytes)
                         : 0.0);
  }
  // NCCL runs a ring collective on a thread block per channel, each on an SM of its own
  // (Profile::collective_sms): the compute beside it has the rest.
  if (shard_group.size > 1 && prof.sm_count > 0) sc.sm_share = std::min(1.0, prof.collective_sms / prof.sm_count);
  // The edge unit of a block: the first stage's embedding, the last stage's head and final norm.
  const ParameterCounts c = count_parameters(m);
  const double vocab_rows = static_cast<double>(padded_vocab(m, p.tp)) / p.tp;
  for (int first = 0; first < 2; ++first) {
    for (int last = 0; last < 2; ++last) {
      double n = 0;
      if (first) n += vocab_rows * m.hidden + c.position;
      if (last) n += c.final_norm + (!m.tied_embeddings || !first ? vocab_rows * m.hidden : 0.0);
      sc.edge_gather_s[first][last] = n > 0 ? gather(n) : 0.0;
      sc.edge_reduce_s[first][last] = n > 0 ? reduce(n) : 0.0;
    }
  }
  return sc;
}

}  // namespace vtrain::detail
