#pragma once
// The operators of one transformer layer (and of the embedding and output head) as GPU kernels
// with tensor-parallel-sharded shapes, and their times from the profile.

#include <vector>

#include "hardware/operator_lookup.hpp"
#include "iteration/communication.hpp"
#include "vtrain/config.hpp"
#include "vtrain/profile.hpp"

namespace vtrain::detail {

// Which breakdown part a kernel's GPU time belongs to.
enum class Part : unsigned char { forward, backward, recompute, tp_comm, cp_comm };

// ring_p2p: one step of context parallelism's ring, each rank sending `comm_bytes` to the next.
enum class KernelKind : unsigned char { gemm, attention_fwd, attention_bwd, memory, collective, ring_p2p };

// The group a collective runs over: the tensor-parallel group, or a MoE layer's expert-parallel
// group (its all-to-alls) or expert tensor-parallel group.
enum class CommGroup : unsigned char { tp, ep, etp };

// Where the groups of a plan lie on the nodes.
struct PlanGroups {
  GroupShape tp, ep, etp;
};

struct Kernel {
  KernelKind kind = KernelKind::memory;
  Part part = Part::forward;
  const char* op = "";      // the model operator the kernel belongs to (forward and backward alike)
  double m = 0, n = 0, k = 0, batch = 1;  // GEMM shape (elements); batch: independent GEMMs. Flash
                            // attention: queries, keys, head dimension, micro-batch x heads
  double model_flops = 0;   // FLOPs counted for MFU (dense attention convention)
  double work_flops = 0;    // FLOPs the kernel executes (causal attention skips masked blocks)
  double bytes = 0;         // HBM traffic of memory-bound kernels; extra traffic of a GEMM (B)
  CollectiveKind collective = CollectiveKind::all_reduce;
  double comm_bytes = 0;    // collective buffer size (B)
  double speed = 1;         // a fused attention kernel's rate against the profile's (FlashAttention-2) one
  double time_s = 0;        // filled by time_kernels()
  TimeSource source = TimeSource::modelled;  // where time_s came from (the profile's table or its model)
  // A collective issued asynchronously: it runs beside the kernels from this index of its list up
  // to itself, and only what outlasts them takes GPU time of its own (-1: not asynchronous).
  int beside_from = -1;
  // A collective run in this many chunks beside the GEMM it feeds or drains (Transformer Engine's
  // userbuffers): one chunk of the shorter of the two cannot overlap (0: not chunked).
  double overlap_chunks = 0;
  double sms_taken = 0;     // a GEMM's SMs given to a collective running beside it (count)
  bool fp8 = false;         // a GEMM run in FP8 (Transformer Engine): the profile's FP8 peak, 1-byte inputs
  CommGroup group = CommGroup::tp;  // the group a collective runs over
  bool host_sync = false;   // the host waits for the GPU to finish this kernel before it issues the next
};

// Kernels of one micro-batch through one layer / the embedding / the head, for one TP rank. A
// mixture of experts' MoE layers have lists of their own (moe_*); its other layers are dense.
struct LayerKernels {
  std::vector<Kernel> layer_fwd, layer_bwd, layer_recompute;
  std::vector<Kernel> moe_fwd, moe_bwd, moe_recompute;
  std::vector<Kernel> embed_fwd, embed_bwd, head_fwd, head_bwd;
  // A MoE layer's traffic and load (one micro-batch, one GPU; docs/moe.md).
  double dispatch_bytes = 0;   // what the busiest rank sends in one all-to-all (B)
  double expert_rows = 0;      // tokens of each local expert's GEMM on the busiest rank (count)
  double load_imbalance = 1;   // the busiest rank's tokens over the mean (ratio)
};

LayerKernels build_kernels(const ModelConfig& m, const PlanConfig& p);

// The expected load of the busiest of `ranks` expert-parallel ranks over the mean, when `tokens`
// token copies are routed at random among them (1 + z(ranks) x relative spread), or the capacity
// factor a plan pads every expert to.
double expert_load_factor(const MoeConfig& moe, int ranks, double tokens);

// A MoE layer's load on one GPU, one micro-batch: the tokens its router takes (T / tp), each
// local expert's GEMM rows at the mean and on the busiest rank, and one all-to-all's bytes.
struct MoeLoad {
  double router_tokens = 0;   // count
  double mean_rows = 0;       // count
  double rows = 0;            // count
  double imbalance = 1;       // ratio
  double dispatch_bytes = 0;  // B (what one all-to-all sends from one GPU)
};
MoeLoad moe_load(const ModelConfig& m, const PlanConfig& p);

// Expected maximum of n independent standard normal variables: how far the last of n ranks lags
// when each rank's timing jitters independently, or how far the busiest of n ranks' loads lies
// above the mean in standard deviations.
double expected_max_normal(int n);

// GEMM time on one GPU from the tile/wave model (or the profile's measured table), seconds.
// A split reduction (split-K) includes its fp32 partial sums and their second kernel's GPU time.
// With `fp8`, at the profile's FP8 peak with 1-byte inputs (the measured table holds 16-bit GEMMs).
double gemm_s(const Profile& prof, double m, double n, double k, double batch, double extra_bytes = 0,
              bool fp8 = false, TimeSource* source = nullptr);

// Where a context-parallel ring's hops run: all inside a node, or (some) across nodes, each node
// sending to the one `node_distance` on in a job of `job_nodes` nodes.
struct RingPlace {
  bool same_node = true;
  long long node_distance = 0, job_nodes = 0;
};
// The ring of a plan's context-parallel group (ranks tp apart, tp innermost then cp).
RingPlace cp_ring(const PlanConfig& p, const GroupShape& cp_group, long long ranks, int gpus_per_node);

// Fills time_s of every kernel; `groups` is where the plan's groups lie, `ring` the
// context-parallel ring's hops.
void time_kernels(LayerKernels& lk, const Profile& prof, const Fabric& fabric, const PlanGroups& groups,
                  const RingPlace& ring = {});

// FLOPs counted per micro-batch in each list (sum of model_flops / work_flops).
double sum_model_flops(const std::vector<Kernel>& ks);

}  // namespace vtrain::detail
