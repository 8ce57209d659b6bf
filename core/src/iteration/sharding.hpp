#pragma once
// Sharded data parallelism (ZeRO-3, PyTorch FSDP FULL_SHARD / SHARD_GRAD_OP / HYBRID_SHARD): the
// collectives of each unit (one transformer layer; the embedding and output head as one more) as
// they run on a communication stream beside the compute stream. docs/sharded-data-parallel.md;
// a mixture of experts' layers, with expert parallelism, in docs/moe.md.

#include <algorithm>
#include <type_traits>
#include <vector>

#include "iteration/communication.hpp"
#include "vtrain/config.hpp"
#include "vtrain/profile.hpp"

namespace vtrain::detail {

// Ranks one copy of the parameters, gradients and optimizer states is split over: the shard group
// (HSDP) or the whole data-parallel group.
int shard_size(const PlanConfig& p);

// Whether the plan shards the parameters (ZeRO-3 / FSDP) over more than one rank.
bool shards_parameters(const PlanConfig& p);

// One MoE layer's parameters on one GPU (count): what is sharded over the shard group (attention,
// norms, router and shared experts, split over tp but for the router) and its routed experts
// (experts / ep of them, each split over the expert tensor-parallel degree), which FSDP with expert
// parallelism shards over the expert data-parallel group instead.
struct MoeLayerParameters {
  double dense = 0;
  double experts = 0;
  bool experts_sharded = false;  // the expert data-parallel group is more than one GPU
  double gathered = 0;           // what ZeRO-3 gathers whole: the dense part, and the experts if sharded
};
MoeLayerParameters moe_layer_parameters(const ModelConfig& m, const PlanConfig& p);

// One micro-batch's communication of one unit on one GPU (seconds).
struct ShardComm {
  bool on = false;             // the parameters are sharded: every layer is gathered before it runs
  bool prefetch = true;        // the next unit's gather is issued when the current unit's compute starts
  double gather_s = 0;         // all-gather of one layer's 16-bit parameters over the shard group
  double backward_gather_s = 0;  // the gather before the layer's backward (0: kept from the forward)
  double recompute_gather_s = 0; // one more before its recomputation (DeepSpeed ZeRO-3)
  double reduce_s = 0;         // its gradients' reduce-scatter (and HSDP's all-reduce of the shard)
  // The same of a MoE layer: its dense part over the shard group, then its routed experts over the
  // expert data-parallel group (nothing where that group is one GPU: its experts are its own).
  double moe_gather_s = 0, moe_backward_gather_s = 0, moe_recompute_gather_s = 0, moe_reduce_s = 0;
  double edge_gather_s[2][2] = {};  // [first][last]: the embedding and head unit, gathered at the
  double edge_reduce_s[2][2] = {};  // forward's start and reduced at the backward's end
  double sm_share = 0;         // share of the GPU's SMs the collectives' kernels hold while they run
  bool device_sync = false;    // each unit's compute waits for every collective in flight (plan.shard_device_sync)
};

// `expert_dp_group`: where the expert data-parallel group lies (a mixture of experts; else unused).
ShardComm shard_comm(const ModelConfig& m, const PlanConfig& p, const Profile& prof, const Fabric& fabric,
                     long long ranks, int gpus_per_node, const GroupShape& expert_dp_group);

// The unit times of a MoE layer in place of a dense one's, for the schedule of the MoE layers.
inline ShardComm moe_layer_comm(ShardComm sc) {
  sc.gather_s = sc.moe_gather_s;
  sc.backward_gather_s = sc.moe_backward_gather_s;
  sc.recompute_gather_s = sc.moe_recompute_gather_s;
  sc.reduce_s = sc.moe_reduce_s;
  return sc;
}

// Parameters per GPU of stage s outside its transformer layers (the embedding, head and final norm).
double stage_edge_parameters(const ModelConfig& m, const PlanConfig& p, int stage);

// Parameters of one transformer layer on one GPU (per_layer / tp).
double layer_parameters(const ModelConfig& m, const PlanConfig& p);

// When each layer's collectives and compute ran (s), for tests and traces.
struct ShardTrace {
  std::vector<double> gather_start, gather_end, compute_start, compute_end;
};

// The two streams of `layers` sharded layers. Before layer r computes, its parameters are gathered
// on the communication stream (`gather_s`); after it, its gradients are reduced there (`reduce_s`,
// 0 in a forward pass). With `prefetch` the gather of layer r+1 is issued when layer r's compute
// starts, as FSDP's forward and backward prefetch and DeepSpeed's prefetch do, so it runs beside that
// compute (stream order: gather r+1, then reduce r); without it, when layer r's compute ends. A
// layer whose gather is late waits for it. `comm` is when the communication stream is free, kept
// up to date; now() is when the compute stream could start the next kernel, done() when its last
// kernel ends, wait(t) holds it until t, and run(r) issues layer r's kernels.
// While a collective runs beside a layer's compute, its kernels hold `sm_share` of the GPU's SMs
// (NCCL's thread blocks never share an SM with compute kernels): the compute loses that share of
// its speed for as long as they overlap, and slow(s) lengthens the compute stream by the s lost.
// With `sync` (plan.shard_device_sync) the host synchronizes the whole device before each layer:
// sync(t) holds the compute stream and the host until t, when the communication stream is idle, so
// the previous layer's reduce-scatter ends before this layer's compute starts and the next
// layer's gather is issued only then.
template <class Now, class Done, class Wait, class Run, class Slow = void (*)(double), class Sync = void (*)(double)>
void sharded_layer_schedule(int layers, double gather_s, double reduce_s, bool prefetch, double& comm, Now now,
                            Done done, Wait wait, Run run, ShardTrace* trace = nullptr, double sm_share = 0,
                            Slow slow = nullptr, Sync sync = nullptr) {
  double seg_start[4] = {}, seg_end[4] = {};  // the stream's latest collectives (a ring of 4)
  int segs = 0;
  const auto busy = [&](double s, double e) {
    seg_start[segs % 4] = s;
    seg_end[segs % 4] = e;
    ++segs;
  };
  const auto overlap = [&](double a, double b) {
    double o = 0;
    for (int i = std::max(0, segs - 4); i < segs; ++i) o += std::max(0.0, std::min(b, seg_end[i % 4]) - std::max(a, seg_start[i % 4]));
    return o;
  };
  const auto gather = [&](double from) {
    const double start = std::max(comm, from);
    comm = start + gather_s;
    busy(start, comm);
    if (trace) {
      trace->gather_start.push_back(start);
      trace->gather_end.push_back(comm);
    }
    return comm;
  };
  double gathered = gather(now());
  for (int r = 0; r < layers; ++r) {
    if constexpr (!std::is_same_v<Sync, void (*)(double)>) {
      sync(std::max(gathered, comm));
    } else {
      if (sync) sync(std::max(gathered, comm));
    }
    wait(gathered);
    const double start = now();
    const bool more = r + 1 < layers;
    if (more && prefetch) gathered = gather(start);
    run(r);
    if (sm_share > 0) {
      const double lost = sm_share * overlap(start, done());
      if (lost > 0) slow(lost);
    }
    if (trace) {
      trace->compute_start.push_back(start);
      trace->compute_end.push_back(done());
    }
    if (reduce_s > 0) {
      const double from = std::max(comm, done());
      comm = from + reduce_s;
      busy(from, comm);
    }
    if (more && !prefetch) gathered = gather(done());
  }
}

}  // namespace vtrain::detail
