#include "vtrain/simulate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "iteration/communication.hpp"
#include "iteration/kernels.hpp"
#include "iteration/memory.hpp"
#include "iteration/pipeline.hpp"
#include "iteration/sharding.hpp"
#include "iteration/sim_scratch.hpp"
#include "vtrain/model.hpp"

namespace vtrain {

using namespace detail;

double Breakdown::total() const {
  return forward + backward + recompute + optimizer + pipeline_bubble + tp_comm_exposed + cp_comm_exposed +
         pp_comm_exposed + dp_comm_exposed + embedding_comm_exposed + host_overhead + straggler_wait;
}

double MemoryBreakdown::total() const {
  return weights + gradients + optimizer_states + activations + buffers;
}

namespace {

constexpr double kMaxTimelineBlocks = 250000;

// Host and GPU as two timelines: the host spends host_issue_s issuing each kernel; a kernel runs
// when it has been issued and the GPU is free. GPU idle time waiting for the host is overhead.
struct HostCost {
  double forward_s = 0;   // per kernel issued from the model's Python code (forward, recompute)
  double backward_s = 0;  // per kernel issued by the autograd engine
  double layer_s = 0;     // per forward pass through one layer's Python code (module calls)
  double sync_s = 0;      // expected wait for the last rank of a collective when issue-bound
  double microbatch_s = 0;  // per forward step: batch fetch and schedule bookkeeping
  bool blocking = false;    // the host waits for each kernel to finish before issuing the next
};

struct HostGpu {
  double host = 0, gpu = 0;
  double comm = 0;  // when the communication stream of sharded data parallelism is free
  BlockProfile acc;
};

// The compute stream waits for a collective on the communication stream that ends at `ready`;
// the part of the wait in which the host has not yet issued the next kernel is the host's.
void wait_for_comm(HostGpu& st, double ready) {
  if (ready <= st.gpu) return;
  const double issued = std::min(ready, st.host);
  if (issued > st.gpu) {
    st.acc.host += issued - st.gpu;
    st.gpu = issued;
  }
  st.acc.dp_comm += ready - st.gpu;
  st.gpu = ready;
}

// Issues kernels that cost the host `per_kernel_s` each.
void issue(HostGpu& st, const std::vector<Kernel>& ks, double per_kernel_s, const HostCost& cost) {
  const double sync_s = cost.sync_s;
  for (const Kernel& k : ks) {
    st.host += per_kernel_s;
    if (st.host > st.gpu) {
      st.acc.host += st.host - st.gpu;
      st.gpu = st.host;
    }
    // A collective starts when every rank has issued it: where the GPU waits on the host, it
    // also waits for the slowest rank.
    if (k.kind == KernelKind::collective && st.host + sync_s > st.gpu) {
      st.acc.tp_comm += st.host + sync_s - st.gpu;
      st.gpu = st.host + sync_s;
    }
    st.gpu += k.time_s;
    // The launch returns when the kernel has finished; a kernel whose result the host reads
    // (a data-dependent size) holds the host until then.
    if (cost.blocking || k.host_sync) st.host = std::max(st.host, st.gpu);
    switch (k.part) {
      case Part::forward: st.acc.forward += k.time_s; break;
      case Part::backward: st.acc.backward += k.time_s; break;
      case Part::recompute: st.acc.recompute += k.time_s; break;
      case Part::tp_comm: st.acc.tp_comm += k.time_s; break;
      case Part::cp_comm: st.acc.cp_comm += k.time_s; break;
    }
  }
}

// Issues `a` (forward-issued) then `b` (autograd-issued) `reps` times; once two repetitions cost the
// same, from a steady state, the rest is extrapolated.
void issue_layers(HostGpu& st, const std::vector<Kernel>& a, const std::vector<Kernel>& b, int reps,
                  const HostCost& host_issue_s, double layer_kernels) {
  HostGpu prev_inc{};
  for (int r = 0; r < reps; ++r) {
    const HostGpu before = st;
    // The layer's Python code runs again for a recomputation, in proportion to what it redoes.
    if (!a.empty()) st.host += host_issue_s.layer_s * static_cast<double>(a.size()) / layer_kernels;
    issue(st, a, host_issue_s.forward_s, host_issue_s);
    issue(st, b, host_issue_s.backward_s, host_issue_s);
    HostGpu inc;
    inc.host = st.host - before.host;
    inc.gpu = st.gpu - before.gpu;
    inc.acc.forward = st.acc.forward - before.acc.forward;
    inc.acc.backward = st.acc.backward - before.acc.backward;
    inc.acc.recompute = st.acc.recompute - before.acc.recompute;
    inc.acc.tp_comm = st.acc.tp_comm - before.acc.tp_comm;
    inc.acc.cp_comm = st.acc.cp_comm - before.acc.cp_comm;
    inc.acc.host = st.acc.host - before.acc.host;
    // Equal increments are a steady state only if the GPU's backlog behind the host is not
    // draining: a draining backlog runs out, and from then on the GPU waits on the host.
    const bool draining = inc.gpu < inc.host * (1 - 1e-12);
    if (r >= 1 && !draining && std::abs(inc.gpu - prev_inc.gpu) <= 1e-12 * inc.gpu &&
        std::abs(inc.host - prev_inc.host) <= 1e-12 * inc.host &&
        std::abs(inc.acc.host - prev_inc.acc.host) <= 1e-12 * inc.gpu &&
        std::abs(inc.acc.cp_comm - prev_inc.acc.cp_comm) <= 1e-12 * inc.gpu) {
      const double left = reps - r - 1;
      st.host += left * inc.host;
      st.gpu += left * inc.gpu;
      st.acc.forward += left * inc.acc.forward;
      st.acc.backward += left * inc.acc.backward;
      st.acc.recompute += left * inc.acc.recompute;
      st.acc.tp_comm += left * inc.acc.tp_comm;
      st.acc.cp_comm += left * inc.acc.cp_comm;
      st.acc.host += left * inc.acc.host;
      return;
    }
    prev_inc = inc;
  }
}

// Layers whose parameters are sharded (ZeRO-3 / FSDP), each gathered before it runs and, in the
// backward, its gradients reduced after it (sharded_layer_schedule); a wait for a late gather is
// exposed data-parallel communication.
void issue_sharded_layers(HostGpu& st, const std::vector<Kernel>& a, const std::vector<Kernel>& b, int reps,
                          const HostCost& cost, double layer_kernels, const ShardComm& sc, bool backward) {
  const double gather_s = backward ? sc.backward_gather_s + (a.empty() ? 0.0 : sc.recompute_gather_s) : sc.gather_s;
  sharded_layer_schedule(
      reps, gather_s, backward ? sc.reduce_s : 0.0, sc.prefetch, st.comm,
      [&] { return std::max(st.gpu, st.host); }, [&] { return st.gpu; }, [&](double t) { wait_for_comm(st, t); },
      [&](int) {
        if (!a.empty()) st.host += cost.layer_s * static_cast<double>(a.size()) / layer_kernels;
        issue(st, a, cost.forward_s, cost);
        issue(st, b, cost.backward_s, cost);
      },
      nullptr, sc.sm_share,
      [&](double lost) {  // the compute slowed by the collectives beside it: their cost to it
        st.gpu += lost;
        st.acc.dp_comm += lost;
      },
      [&](double idle) {  // a device-wide synchronization: the host issues nothing until `idle`
        if (!sc.device_sync) return;
        wait_for_comm(st, idle);
        st.host = std::max(st.host, st.gpu);
      });
}

BlockProfile finish(const HostGpu& st) {
  BlockProfile b = st.acc;
  b.duration = st.gpu;
  return b;
}

const std::vector<Kernel> kNone;

// The recorded accuracy nearest a plan's scale: the calibration set of its kind (one node or
// several) while the plan is no larger than that set's runs (GPUs and hidden size), the published
// runs beyond them, and for a profile with no set of the plan's kind (one checked on published
// runs alone, as the H100's), at every scale. Of published runs: those of the plan's kind of model
// (a mixture of experts or a dense one) first, then Megatron-LM's (a plan's settings are
// Megatron-LM's), then those whose GPU counts and hidden sizes span the plan's, then the record's
// order.
void select_accuracy(const Profile& prof, int num_gpus, int gpus_per_node, int hidden, bool moe,
                     ProfileAccuracy& primary, std::vector<ProfileAccuracy>& also) {
  const ProfileAccuracy* own = nullptr;
  const char* kind = num_gpus <= gpus_per_node ? "single-node" : "multi-node";
  for (const ProfileAccuracy& a : prof.accuracy)
    if (!own && a.set == kind) own = &a;
  const auto spans = [&](const ProfileAccuracy& a) {
    return (a.gpus_max == 0 || (num_gpus >= a.gpus_min && num_gpus <= a.gpus_max)) &&
           (a.hidden_max == 0 || (hidden >= a.hidden_min && hidden <= a.hidden_max));
  };
  const bool beyond = !own || (own->gpus_max > 0 && num_gpus > own->gpus_max) ||
                      (own->hidden_max > 0 && hidden > own->hidden_max);
  const auto rank = [&](const ProfileAccuracy& a) {
    return (a.moe != moe ? 4 : 0) + (a.framework != "Megatron-LM" ? 2 : 0) + (spans(a) ? 0 : 1);
  };
  const ProfileAccuracy* published = nullptr;
  if (beyond)
    for (const ProfileAccuracy& a : prof.accuracy)
      if (a.set == "published" && (!published || rank(a) < rank(*published))) published = &a;
  if (!published) {
    if (own) primary = *own;
    return;
  }
  primary = *published;
  for (const bool same_kind : {true, false})
    for (const ProfileAccuracy& a : prof.accuracy)
      if (a.set == "published" && &a != published && (a.moe == moe) == same_kind) also.push_back(a);
}

OperatorKind operator_kind(KernelKind k) {
  switch (k) {
    case KernelKind::gemm: return OperatorKind::gemm;
    case KernelKind::attention_fwd:
    case KernelKind::attention_bwd: return OperatorKind::attention;
    case KernelKind::memory: return OperatorKind::memory;
    case KernelKind::collective:
    case KernelKind::ring_p2p: return OperatorKind::collective;
  }
  return OperatorKind::memory;
}

// The kernels of one micro-batch summed per (block, operator), in the order operators first run.
// A mixture of experts' MoE layers are the block "moe layer"; its dense layers, if any, "layer".
std::vector<OperatorTime> operator_times(const LayerKernels& lk, bool dense_layers = true) {
  std::vector<OperatorTime> out;
  enum Phase { fwd, rec, bwd };
  const std::vector<Kernel> none;
  const auto dense = [&](const std::vector<Kernel>& v) { return dense_layers ? &v : &none; };
  const struct {
    const char* block;
    const std::vector<Kernel>* kernels;
    Phase phase;
  } lists[] = {{"embedding", &lk.embed_fwd, fwd}, {"layer", dense(lk.layer_fwd), fwd},
               {"moe layer", &lk.moe_fwd, fwd},
               {"head", &lk.head_fwd, fwd},       {"head", &lk.head_bwd, bwd},
               {"layer", dense(lk.layer_recompute), rec}, {"layer", dense(lk.layer_bwd), bwd},
               {"moe layer", &lk.moe_recompute, rec}, {"moe layer", &lk.moe_bwd, bwd},
               {"embedding", &lk.embed_bwd, bwd}};
  for (const auto& list : lists) {
    for (const Kernel& k : *list.kernels) {
      auto it = std::find_if(out.begin(), out.end(), [&](const OperatorTime& o) {
        return o.block == list.block && o.name == k.op;
      });
      if (it == out.end()) {
        OperatorTime o;
        o.block = list.block;
        o.name = k.op;
        o.kind = operator_kind(k.kind);
        out.push_back(std::move(o));
        it = out.end() - 1;
      }
      ++it->kernels;
      if (k.source == TimeSource::measured) ++it->measured_kernels;
      if (k.source == TimeSource::interpolated) ++it->interpolated_kernels;
      (list.phase == fwd ? it->forward_s : list.phase == rec ? it->recompute_s : it->backward_s) += k.time_s;
      it->work_flops += k.work_flops;
      if (k.kind == KernelKind::memory) it->hbm_bytes += k.bytes;
      if (k.kind == KernelKind::collective || k.kind == KernelKind::ring_p2p) it->comm_bytes += k.comm_bytes;
    }
  }
  // In model order: the embedding's operators, a layer's, then the head's.
  const auto rank = [](const OperatorTime& o) {
    return o.block == "embedding" ? 0 : o.block == "layer" ? 1 : o.block == "moe layer" ? 2 : 3;
  };
  std::stable_sort(out.begin(), out.end(), [&](const OperatorTime& a, const OperatorTime& b) { return rank(a) < rank(b); });
  return out;
}

// Sharded parameters' collectives of one layer (ZeRO-3 / FSDP), on the communication stream beside
// the compute: the all-gathers before the forward, the recomputation and the backward, and the
// gradients' reduce-scatter, inserted after the compute operators of the layer's block ("layer",
// or "moe layer" with the unit times of moe_layer_comm).
void add_shard_operators(std::vector<OperatorTime>& out, const char* block, const ShardComm& sc, double layer_params,
                         const PlanConfig& p) {
  const auto last_layer = std::find_if(out.rbegin(), out.rend(), [&](const OperatorTime& o) { return o.block == block; });
  if (last_layer == out.rend()) return;  // no layer of this kind
  auto at = last_layer.base();
  OperatorTime g;
  g.block = block;
  g.name = "sharded parameter all-gather";
  g.kind = OperatorKind::collective;
  g.forward_s = sc.gather_s;
  g.recompute_s = sc.recompute_gather_s;
  g.backward_s = sc.backward_gather_s;
  const int gathers = 1 + (sc.recompute_gather_s > 0 ? 1 : 0) + (sc.backward_gather_s > 0 ? 1 : 0);
  g.kernels = gathers;
  g.comm_bytes = gathers * layer_params * kHalfBytes;
  OperatorTime rs;
  rs.block = block;
  rs.name = "sharded gradient reduce-scatter";
  rs.kind = OperatorKind::collective;
  rs.backward_s = sc.reduce_s;
  rs.kernels = 1;
  rs.comm_bytes = layer_params * (p.precision == Precision::bf16 ? 4.0 : 2.0);
  at = out.insert(at, g);
  out.insert(at + 1, rs);
}

const ShardComm kNoSharding{};

// With sharded parameters, a block gathers its edge unit (embedding, head) when it starts, and its
// layers one by one; a backward block reduces each layer's gradients and, at its end, the edge
// unit's, and ends when its communication stream has finished.
BlockProfile forward_block(const LayerKernels& lk, int layers, bool first, bool last, const HostCost& issue_s,
                           const ShardComm& sc = kNoSharding, int moe_layers = 0) {
  HostGpu st;
  st.host = issue_s.microbatch_s;
  const double comm_from = st.host;  // the edge unit's gather, or the first layer's, starts here
  if (sc.on) {
    st.comm = st.host + sc.edge_gather_s[first][last];
    if (first || last) wait_for_comm(st, st.comm);
  }
  if (first) issue(st, lk.embed_fwd, issue_s.forward_s, issue_s);
  if (sc.on)
    issue_sharded_layers(st, lk.layer_fwd, kNone, layers, issue_s, static_cast<double>(lk.layer_fwd.size()), sc, false);
  else
    issue_layers(st, lk.layer_fwd, kNone, layers, issue_s, static_cast<double>(lk.layer_fwd.size()));
  if (moe_layers > 0 && sc.on)
    issue_sharded_layers(st, lk.moe_fwd, kNone, moe_layers, issue_s, static_cast<double>(lk.moe_fwd.size()),
                         moe_layer_comm(sc), false);
  else if (moe_layers > 0)
    issue_layers(st, lk.moe_fwd, kNone, moe_layers, issue_s, static_cast<double>(lk.moe_fwd.size()));
  if (last) issue(st, lk.head_fwd, issue_s.forward_s, issue_s);
  BlockProfile b = finish(st);
  if (sc.on) {
    b.shard_from = comm_from;
    b.shard_to = st.comm;
  }
  return b;
}

BlockProfile backward_block(const LayerKernels& lk, int layers, bool first, bool last, const HostCost& issue_s,
                            const ShardComm& sc = kNoSharding, int moe_layers = 0) {
  HostGpu st;
  if (last) issue(st, lk.head_bwd, issue_s.backward_s, issue_s);
  // The first layer's gather is issued when the head's kernels are (prefetched beside them).
  const double comm_from = std::max({st.host, st.gpu, st.comm});
  if (moe_layers > 0 && sc.on)
    issue_sharded_layers(st, lk.moe_recompute, lk.moe_bwd, moe_layers, issue_s, static_cast<double>(lk.moe_fwd.size()),
                         moe_layer_comm(sc), true);
  else if (moe_layers > 0)
    issue_layers(st, lk.moe_recompute, lk.moe_bwd, moe_layers, issue_s, static_cast<double>(lk.moe_fwd.size()));
  if (sc.on)
    issue_sharded_layers(st, lk.layer_recompute, lk.layer_bwd, layers, issue_s,
                         static_cast<double>(lk.layer_fwd.size()), sc, true);
  else
    issue_layers(st, lk.layer_recompute, lk.layer_bwd, layers, issue_s, static_cast<double>(lk.layer_fwd.size()));
  if (first) issue(st, lk.embed_bwd, issue_s.backward_s, issue_s);
  if (sc.on) {
    st.comm = std::max(st.comm, st.gpu) + sc.edge_reduce_s[first][last];
    wait_for_comm(st, st.comm);
  }
  BlockProfile b = finish(st);
  if (sc.on) {
    b.shard_from = comm_from;
    b.shard_to = st.comm;
  }
  return b;
}

double sum_time(const std::vector<Kernel>& ks) {
  double s = 0;
  for (const Kernel& k : ks) s += k.time_s;
  return s;
}

// First rank of stage s in the plan's placement, and the rank distance between stages. Context-
// parallel ranks sit next to the tensor-parallel ones (tp innermost, then cp, as Megatron-Core
// orders them), so that block of tp x cp ranks is what the placements order.
long long stage_stride(const PlanConfig& p) {
  const long long inner = static_cast<long long>(p.tp) * p.cp;
  return p.placement == Placement::tp_dp_pp ? inner * p.dp : inner;
}

// Whether every rank of stage `a` and its partner in stage `b` share a node. Within one run of
// consecutive ranks that holds both stages (all of them with tp-dp-pp; one data-parallel
// replica's with tp-pp-dp), some pair crosses a node's end exactly when the run from the lower
// stage's first rank to the higher stage's last does. Replicas' runs repeat their place in a node
// after at most gpus_per_node replicas.
bool stages_share_node(const PlanConfig& p, int gpus_per_node, int a, int b) {
  const long long gpn = gpus_per_node;
  const long long stride = stage_stride(p);
  const long long lo = std::min(a, b) * stride, hi = (std::max(a, b) + 1) * stride - 1;
  const bool per_replica = p.placement == Placement::tp_pp_dp;
  const long long replica = static_cast<long long>(p.tp) * p.cp * p.pp;  // ranks of one replica (tp-pp-dp)
  const long long runs = per_replica ? std::min<long long>(p.dp, gpn) : 1;
  for (long long k = 0; k < runs; ++k) {
    const long long first = k * replica + lo, last = k * replica + hi;
    if (first / gpn != last / gpn) return false;
  }
  return true;
}

// The warnings a plan earns from its settings alone, before anything is timed.
void note_settings(const ModelConfig& m, const PlanConfig& p, SimResult& r) {
  const int P = p.pp;
  int most = 0, fewest = m.layers;
  for (int s = 0; s < P; ++s) {
    most = std::max(most, stage_layers(m, p, s));
    fewest = std::min(fewest, stage_layers(m, p, s));
  }
  r.details.layers_per_stage = most;  // the most any stage holds
  r.details.even_stages = most == fewest;
  // The split the plan chose itself (listed stages, the embedding or head counted as a layer) is
  // not warned about; the one it fell into is.
  if (!r.details.even_stages && p.stage_layers.empty() && !p.embedding_as_layer && !p.head_as_layer)
    r.warnings.push_back(
        {WarningCode::uneven_stages, "/plan/pp",
         "pipeline parallelism " + std::to_string(P) + " does not divide the " + std::to_string(m.layers) +
             " layers: " +
             (m.layers % P == 1 ? std::string("stage 0 holds ")
                                : "stages 0 to " + std::to_string(m.layers % P - 1) + " hold ") +
             std::to_string(m.layers / P + 1) + " layers, the others " + std::to_string(m.layers / P) +
             " (DeepSpeed's uniform partition; Megatron-LM needs an even split)"});
  if (m.rotary_fraction < 1.0 && (m.position != PositionEmbedding::rope || m.mla))
    r.warnings.push_back({WarningCode::no_effect, "/model/rotary_fraction",
                          m.mla ? "latent attention gives its rotary width as /model/mla/qk_rope_head_dim"
                                : "the position embedding is not rotary (/model/position): there is nothing to turn"});
  if (p.sequence_parallel && p.tp == 1)
    r.warnings.push_back({WarningCode::no_effect, "/plan/sequence_parallel",
                          "sequence parallelism splits activations over a tensor-parallel group: at tp 1 it changes nothing"});
  if (p.tp_comm_overlap && p.tp > 1 && !p.sequence_parallel)
    r.warnings.push_back({WarningCode::no_effect, "/plan/tp_comm_overlap",
                          "Transformer Engine's userbuffers overlap the all-gathers and reduce-scatters of sequence "
                          "parallelism: without sequence_parallel the tensor-parallel all-reduces stay as they are"});
  if (p.recompute == Recompute::selective && fused_attention(p.attention)) {
    // Selective recomputation drops the attention scores (softmax, dropout) and rebuilds them; flash
    // attention never stores them, so nothing is rebuilt and only its softmax statistics are saved.
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "selective recomputation rebuilds the attention scores, which flash attention never stores: it "
                  "recomputes nothing and saves only the softmax statistics (%.2g MiB a layer), so it runs as none",
                  4.0 * p.micro_batch * (m.heads / p.tp) * m.seq_len / (1 << 20));
    r.warnings.push_back({WarningCode::no_effect, "/plan/recompute", buf});
  }
  if (p.pp == 1 && (p.embedding_as_layer || p.head_as_layer))
    r.warnings.push_back({WarningCode::no_effect, p.embedding_as_layer ? "/plan/embedding_as_layer" : "/plan/head_as_layer",
                          "counting the embedding or the head as a layer changes the pipeline's split: at pp 1 "
                          "there is none"});
  if (p.moe_permute_sync && !is_moe(m))
    r.warnings.push_back({WarningCode::no_effect, "/plan/moe_permute_sync",
                          "the host waits on the token permutation of MoE layers: a dense model has none"});
  if (p.zero_stage == 1 && p.dp * p.cp == 1)
    r.warnings.push_back({WarningCode::no_effect, "/plan/zero_stage",
                          "ZeRO stage 1 splits the optimizer states over data-parallel ranks: at dp 1 it changes nothing"});
  if (p.zero_stage >= 2 && shard_size(p) == 1)
    r.warnings.push_back({WarningCode::no_effect, "/plan/zero_stage",
                          "ZeRO stage " + std::to_string(p.zero_stage) +
                              " shards the model states over data-parallel ranks: with one rank to a shard group it "
                              "changes nothing"});
  if (p.zero_stage < 3 && (!p.shard_prefetch || !p.reshard_after_forward || p.recompute_gather || p.shard_flat_ring ||
                          p.shard_device_sync))
    r.warnings.push_back({WarningCode::no_effect, "/plan/zero_stage",
                          "shard_prefetch, reshard_after_forward, recompute_gather, shard_flat_ring and shard_device_sync are "
                          "ways of gathering sharded "
                          "parameters: below ZeRO stage 3 they change nothing"});
  if (p.zero_all_reduce && p.zero_stage == 0)
    r.warnings.push_back({WarningCode::no_effect, "/plan/zero_all_reduce",
                          "ZeRO stage 0 all-reduces the gradients anyway: zero_all_reduce, a way of ZeRO stage 1's, "
                          "changes nothing"});
  if (p.launch_blocking) {
    std::vector<std::string> off;
    for (const auto& [on, name] :
         {std::pair{p.dp_overlap && p.dp * p.cp > 1, "the gradient reduction's overlap (dp_overlap)"},
          std::pair{p.p2p_overlap && p.pp > 1, "the pipeline sends' overlap (p2p_overlap)"},
          std::pair{p.tp_async_backward && p.tp > 1, "the asynchronous tensor-parallel backward (tp_async_backward)"},
          std::pair{p.tp_comm_overlap && p.tp > 1, "the tensor-parallel overlap (tp_comm_overlap)"}})
      if (on) off.push_back(name);
    std::string list;
    for (size_t i = 0; i < off.size(); ++i)
      list += (i == 0 ? "" : i + 1 == off.size() ? " and " : ", ") + off[i];
    if (!off.empty())
      r.warnings.push_back({WarningCode::no_effect, "/plan/launch_blocking",
                            "with launch blocking, every kernel launch waits for its kernel to finish, so nothing "
                            "overlaps: " + list + (off.size() == 1 ? " has" : " have") + " no effect"});
  }
}

// Where `size` expert ranks `stride` apart in a stage's expert rank order (etp innermost, then ep,
// then edp: Megatron-Core's) lie. The expert ranks are the stage's tp x cp x dp ranks in their
// order: consecutive ranks with tp-dp-pp; with tp-pp-dp, blocks of a replica's tp x cp ranks,
// tp x cp x pp ranks apart.
GroupShape expert_group(const PlanConfig& p, int size, long long stride, long long ranks, int gpn) {
  if (size <= 1) return GroupShape{};
  const long long block = static_cast<long long>(p.tp) * p.cp;
  if (p.placement == Placement::tp_dp_pp || p.pp == 1 || static_cast<long long>(size) * stride <= block)
    return group_shape(size, stride, ranks, gpn);
  // tp-pp-dp with a group beyond one block: `per_block` members a block, blocks tp x cp x pp ranks
  // apart (stride over blocks when the members are a block or more apart).
  const long long block_stride = block * p.pp;
  if (stride >= block) return group_shape(size, stride / block * block_stride, ranks, gpn);
  const int per_block = static_cast<int>(block / stride);
  const long long blocks = (size + per_block - 1) / per_block;
  GroupShape g;
  g.size = size;
  const long long blocks_per_node = std::max<long long>(1, gpn / block_stride);
  g.nodes = static_cast<int>(std::min<long long>(size, (blocks + blocks_per_node - 1) / blocks_per_node));
  g.per_node = std::max(1, size / g.nodes);
  g.span_nodes = (blocks - 1) * block_stride / gpn + 1;
  return g;
}

GroupShape expert_dp_group(const ModelConfig& m, const PlanConfig& p, long long ranks, int gpn) {
  if (!is_moe(m)) return GroupShape{};
  return expert_group(p, expert_dp(m, p), static_cast<long long>(expert_tp(p)) * p.ep, ranks, gpn);
}

PlanGroups plan_groups(const ModelConfig& m, const PlanConfig& p, long long ranks, int gpn) {
  PlanGroups g;
  g.tp = group_shape(p.tp, 1, ranks, gpn);
  if (is_moe(m)) {
    g.ep = expert_group(p, p.ep, expert_tp(p), ranks, gpn);
    g.etp = group_shape(expert_tp(p), 1, ranks, gpn);
  }
  return g;
}

// Everything a simulation's phases share: the plan, where its groups lie, and its timed kernels.
struct Setting {
  const ModelConfig& m;
  const PlanConfig& p;
  const Profile& prof;
  Fabric fabric;
  int P, V, M;                  // stages, chunks per stage, micro-batches per iteration
  int gpn;                      // GPUs per node
  long long ranks;              // tp x cp x pp x dp
  PlanGroups groups;            // where the tensor-parallel (and a MoE layer's expert) groups lie
  RingPlace cp_ring;            // where the context-parallel ring's hops run
  HostCost issue_s;
  bool dp_overlap, p2p_overlap;  // as they take effect (a blocking launch overlaps nothing)
  ShardComm shard;               // sharded parameters' collectives per layer (ZeRO-3), if any
};

// The pipeline's blocks and transfers. Blocks of each (stage, chunk): at most eight distinct kinds
// (first/last model chunk or not, and one layer more or not where the stages are uneven), each timed
// once. Transfers: each TP rank sends its 1/tp slice, the receiver all-gathers it in-node.
void pipeline_input(const Setting& x, const LayerKernels& lk, bool record, PipelineInput& in, SimDetails& details) {
  const ModelConfig& m = x.m;
  const PlanConfig& p = x.p;
  const int P = x.P, V = x.V;
  in.stages = P;
  in.chunks = V;
  in.micro_batches = x.M;
  in.blocking_sends = !x.p2p_overlap;
  in.record = record;
  BlockProfile fwd_kind[2][2][2], bwd_kind[2][2][2];
  bool made[2][2][2] = {};
  const int fewest_layers = m.layers / (P * V);
  in.fwd.resize(static_cast<size_t>(P) * V);
  in.bwd.resize(in.fwd.size());
  // Chunks of unequal layers by the plan's choice: listed stages, or the embedding or head in a slot.
  const bool listed = !p.stage_layers.empty() || p.embedding_as_layer || p.head_as_layer;
  if (is_moe(m) || listed) {
    // Chunks differ by their MoE layers as well, and listed stages by any count: each distinct
    // (first, last, dense, MoE) is timed once.
    struct Kind {
      bool first, last;
      int dense, moe;
      BlockProfile fwd, bwd;
    };
    std::vector<Kind> kinds;
    for (int s = 0; s < P; ++s) {
      for (int c = 0; c < V; ++c) {
        const int idx = c * P + s;
        const bool first = idx == 0, last = idx == P * V - 1;
        const int moe = chunk_moe_layers(m, p, s, c), dense = chunk_layers(m, p, s, c) - moe;
        auto it = std::find_if(kinds.begin(), kinds.end(), [&](const Kind& k) {
          return k.first == first && k.last == last && k.dense == dense && k.moe == moe;
        });
        if (it == kinds.end()) {
          kinds.push_back({first, last, dense, moe, forward_block(lk, dense, first, last, x.issue_s, x.shard, moe),
                           backward_block(lk, dense, first, last, x.issue_s, x.shard, moe)});
          it = kinds.end() - 1;
        }
        in.fwd[s * V + c] = it->fwd;
        in.bwd[s * V + c] = it->bwd;
      }
    }
  }
  for (int s = 0; s < P && !is_moe(m) && !listed; ++s) {
    const int layers = chunk_layers(m, p, s, 0);
    const int more = layers > fewest_layers ? 1 : 0;
    for (int c = 0; c < V; ++c) {
      const int idx = c * P + s;
      const bool first = idx == 0, last = idx == P * V - 1;
      if (!made[first][last][more]) {
        fwd_kind[first][last][more] = forward_block(lk, layers, first, last, x.issue_s, x.shard);
        bwd_kind[first][last][more] = backward_block(lk, layers, first, last, x.issue_s, x.shard);
        made[first][last][more] = true;
      }
      in.fwd[s * V + c] = fwd_kind[first][last][more];
      in.bwd[s * V + c] = bwd_kind[first][last][more];
    }
  }

  const double T = static_cast<double>(p.micro_batch) * m.seq_len / p.cp;  // tokens a rank holds
  const double act_bytes = T * m.hidden * kHalfBytes;
  const double slice = act_bytes / p.tp;
  const double regather = (p.sequence_parallel || p.tp == 1)
                              ? 0.0
                              : collective_s(x.prof, x.fabric, x.groups.tp, CollectiveKind::all_gather, act_bytes);
  in.send_fwd_s.assign(P, 0.0);
  in.send_bwd_s.assign(P, 0.0);
  // Across nodes, neighbouring stages lie a stage's ranks apart (at least a node).
  const long long node_distance = std::max<long long>(1, stage_stride(p) / x.gpn);
  const long long job_nodes = (x.ranks + x.gpn - 1) / x.gpn;
  for (int s = 0; s < P && P > 1; ++s) {
    const int next = (s + 1) % P, prev = (s + P - 1) % P;
    const bool fwd_local = stages_share_node(p, x.gpn, s, next), bwd_local = stages_share_node(p, x.gpn, s, prev);
    in.send_fwd_s[s] = p2p_s(x.prof, x.fabric, fwd_local, slice, node_distance, job_nodes) + regather;
    in.send_bwd_s[s] = p2p_s(x.prof, x.fabric, bwd_local, slice, node_distance, job_nodes) + regather;
    details.p2p_send_s = std::max({details.p2p_send_s, in.send_fwd_s[s], in.send_bwd_s[s]});
  }
}

// The group each stage's gradients are reduced over: its data-parallel replicas and, the weights
// being replicated over context-parallel ranks too, its cp ranks (Megatron-Core's data-parallel
// group "with context parallelism"). With tp-dp-pp the cp and dp ranks are one run, tp apart; with
// tp-pp-dp the cp ranks sit inside a replica and the replicas lie a replica apart.
GroupShape gradient_group(const PlanConfig& p, long long ranks, int gpn) {
  if (p.placement == Placement::tp_dp_pp) return group_shape(p.dp * p.cp, p.tp, ranks, gpn);
  const GroupShape dp = group_shape(p.dp, static_cast<long long>(p.tp) * p.cp * p.pp, ranks, gpn);
  if (p.cp == 1) return dp;
  const GroupShape cp = group_shape(p.cp, p.tp, ranks, gpn);
  GroupShape g;
  g.size = p.dp * p.cp;
  g.nodes = std::min(cp.nodes * dp.nodes, g.size);
  g.per_node = std::max(1, g.size / g.nodes);
  return g;
}

// What follows each stage's last backward: its gradient reduction over the data-parallel replicas
// (overlapped bucket by bucket, or after the backward), the tied embedding's all-reduce, the
// optimizer step and ZeRO-1's all-gather; then the synchronization of all stages.
struct StageTails {
  std::vector<double> reduce_end, dp_end, opt_s, gather_s;  // per stage (s)
  double sync = 0;               // when every stage's reductions are done (s)
  double sync_after = 0;         // the same had every reduction run after the backward (s)
  double buckets_per_chunk = 0;  // overlapped reduction's buckets (count)
  int dp_nodes = 1;              // nodes one data-parallel group spans (count)
};

// CPU Adam's host memory traffic per parameter (B): the fp32 gradient read; the fp32 weight and both
// moments read and written; the updated 16-bit weight written for its copy to the GPU.
constexpr double kCpuAdamBytesPerParam = 4.0 + 3 * (4.0 + 4.0) + 2.0;

StageTails after_pipeline(const Setting& x, const PipelineOutcome& po, const std::vector<double>& local_params,
                          SimDetails& details) {
  const ModelConfig& m = x.m;
  const PlanConfig& p = x.p;
  const Profile& prof = x.prof;
  const int P = x.P, V = x.V;
  const double grad_bytes = gradient_bytes(p);
  const GroupShape dp_group = gradient_group(p, x.ranks, x.gpn);
  StageTails t;
  t.dp_nodes = dp_group.nodes;
  details.dp_nodes = dp_group.nodes;
  // ZeRO-1 needs each rank's shard of the summed gradients only: a reduce-scatter, unless the
  // implementation all-reduces them whole and each rank keeps its shard (DeepSpeed's bf16 optimizer).
  // A shard group of one rank (HSDP's degenerate case) shards nothing: plain data parallelism.
  const int zero = shard_size(p) > 1 ? p.zero_stage : 0;
  const CollectiveKind reduce_kind = zero >= 1 && !p.zero_all_reduce ? CollectiveKind::reduce_scatter
                                                                     : CollectiveKind::all_reduce;
  const bool tied_split = m.tied_embeddings && P > 1;
  const double emb_bytes = static_cast<double>(padded_vocab(m, p.tp)) / p.tp * m.hidden * grad_bytes;
  const GroupShape emb_group{2, stages_share_node(p, x.gpn, 0, P - 1) ? 2 : 1,
                             stages_share_node(p, x.gpn, 0, P - 1) ? 1 : 2};
  const double emb_s =
      tied_split ? collective_s(prof, x.fabric, emb_group, CollectiveKind::all_reduce, emb_bytes) : 0.0;
  details.embedding_allreduce_s = emb_s;
  const double hbm = prof.hbm_GBps * 1e9 * prof.memory_efficiency;

  t.reduce_end.resize(P);
  t.dp_end.resize(P);
  t.opt_s.resize(P);
  t.gather_s.resize(P);
  std::vector<int> order;  // chunks by the end of their last backward
  const bool sharded = x.shard.on;  // gradients reduced layer by layer in every backward
  // A mixture of experts: the routed experts' gradients are reduced over the expert data-parallel
  // group (tp x cp x dp / (etp x ep) GPUs), after the rest's over the data-parallel one.
  const std::vector<double> experts = stage_expert_parameters(m, p);
  const int edp = expert_dp(m, p);
  const GroupShape edp_group = expert_dp_group(m, p, x.ranks, x.gpn);
  const int expert_zero = edp > 1 ? zero : 0;
  const CollectiveKind expert_kind = expert_zero >= 1 && !p.zero_all_reduce ? CollectiveKind::reduce_scatter
                                                                             : CollectiveKind::all_reduce;
  for (int s = 0; s < P; ++s) {
    const StageOutcome& st = po.stages[s];
    const double bytes = (local_params[s] - experts[s]) * grad_bytes;
    const double expert_bytes = experts[s] * grad_bytes;
    // (Sharded parameters reduce the experts' gradients layer by layer too, in the backward.)
    const double expert_s = sharded ? 0.0 : collective_s(prof, x.fabric, edp_group, expert_kind, expert_bytes);
    details.expert_reduce_s = std::max(details.expert_reduce_s, expert_s);
    const double full_s = (sharded ? 0.0 : collective_s(prof, x.fabric, dp_group, reduce_kind, bytes)) + expert_s;
    details.dp_reduce_s = std::max(details.dp_reduce_s, full_s);
    double end = st.compute_end + full_s;
    const double tied_s = tied_split && (s == 0 || s == P - 1) ? emb_s : 0.0;
    t.sync_after = std::max(t.sync_after, end + tied_s);
    if (x.dp_overlap && dp_group.size > 1 && !sharded) {
      // Each chunk's gradients fill its buckets during the chunk's last backward, and a bucket is
      // reduced as soon as it is full; the comm stream takes the chunks in the order they finish.
      const Buckets buckets = gradient_buckets(bytes / V, dp_group.size, grad_bytes);
      t.buckets_per_chunk = std::max(t.buckets_per_chunk, buckets.count);
      const double bucket_s = collective_s(prof, x.fabric, dp_group, reduce_kind, buckets.bytes);
      const double last_s = collective_s(prof, x.fabric, dp_group, reduce_kind, buckets.last_bytes);
      order.resize(V);
      for (int c = 0; c < V; ++c) order[c] = c;
      std::sort(order.begin(), order.end(), [&](int a, int b) { return st.last_bwd_end[a] < st.last_bwd_end[b]; });
      double comm = 0;
      for (int c : order)
        comm = bucketed_reduction_end(comm, st.last_bwd_start[c], st.last_bwd_end[c], buckets, bucket_s, last_s);
      if (expert_bytes > 0) {
        // The experts' buckets follow on the same stream, filled during the same backward.
        const Buckets eb = gradient_buckets(expert_bytes / V, edp, grad_bytes);
        const double eb_s = collective_s(prof, x.fabric, edp_group, expert_kind, eb.bytes);
        const double el_s = collective_s(prof, x.fabric, edp_group, expert_kind, eb.last_bytes);
        for (int c : order)
          comm = bucketed_reduction_end(comm, st.last_bwd_start[c], st.last_bwd_end[c], eb, eb_s, el_s);
      }
      end = std::max(st.compute_end, comm);
    }
    t.dp_end[s] = end;
    end += tied_s;
    t.reduce_end[s] = end;
    t.sync = std::max(t.sync, end);
    const double shard = zero >= 1 ? shard_size(p) : 1.0;
    const double shard_params = experts[s] > 0 ? (local_params[s] - experts[s]) / shard +
                                                     experts[s] / (expert_zero >= 1 ? edp : 1)
                                               : local_params[s] / shard;
    if (p.optimizer_offload) {
      // ZeRO-Offload: the gradient shard crosses PCIe as its reduction delivers it, the CPU runs
      // Adam over the fp32 weights and moments in host memory, the 16-bit weights come back.
      const double pcie = prof.pcie_GBps * 1e9;
      // A node's GPUs share its host memory.
      const double host = prof.host_memory_GBps * 1e9 / static_cast<double>(std::min<long long>(x.gpn, x.ranks));
      const double down = shard_params * grad_bytes / pcie;
      // Reduced piece by piece during the last backward (ZeRO-2 with overlap, ZeRO-3 layer by
      // layer), each piece is copied once reduced: what outlasts the reduction is the last piece's
      // copy, or the copies the reduction's window could not hold. Otherwise all of it follows.
      double exposed = down;
      if (zero >= 2 && (sharded || x.dp_overlap)) {
        double first_start = st.compute_end;
        for (int c = 0; c < V; ++c) first_start = std::min(first_start, st.last_bwd_start[c]);
        const double pieces = sharded ? std::max(1, stage_layers(m, p, s))
                                      : gradient_buckets(shard_params * shard * grad_bytes, dp_group.size, grad_bytes).count;
        exposed = std::max(down / pieces, down - (t.dp_end[s] - first_start));
      }
      const double cpu = shard_params * kCpuAdamBytesPerParam / host;
      const double up = shard_params * kHalfBytes / pcie;
      t.opt_s[s] = exposed + cpu + up;
      if (t.opt_s[s] >= details.offload_gradient_exposed_s + details.offload_cpu_step_s + details.offload_parameter_copy_s) {
        details.offload = true;
        details.offload_gradient_copy_s = down;
        details.offload_gradient_exposed_s = exposed;
        details.offload_cpu_step_s = cpu;
        details.offload_parameter_copy_s = up;
        details.offload_host_GiB = shard_params * (12.0 + 4.0) / (1024.0 * 1024.0 * 1024.0);
      }
    } else {
      t.opt_s[s] = shard_params * prof.optimizer_bytes_per_param / hbm + 8.0 * prof.kernel_overhead_us * 1e-6;
    }
    // FP8: the updated linear weights cast to FP8 and FP8 transposed once an iteration (2 + 1 + 1 B)
    if (p.precision == Precision::fp8) t.opt_s[s] += stage_linear_weights(m, p, s) * (kHalfBytes + 2.0) / hbm;
    // ZeRO-1 and -2 all-gather the updated 16-bit weights; ZeRO-3 keeps them sharded until used.
    t.gather_s[s] = zero >= 1 && !sharded ? collective_s(prof, x.fabric, dp_group, CollectiveKind::all_gather,
                                                                 (local_params[s] - experts[s]) * kHalfBytes)
                                                  : 0.0;
    if (expert_zero >= 1 && experts[s] > 0 && !sharded)
      t.gather_s[s] += collective_s(prof, x.fabric, edp_group, CollectiveKind::all_gather, experts[s] * kHalfBytes);
    details.optimizer_step_s = std::max(details.optimizer_step_s, t.opt_s[s]);
  }
  return t;
}

// The slowest GPU. Each GPU's compute runs at its own speed, spread about the mean with the
// cluster's gpu_speed_spread, or the profile's (Sinha et al., SC'22: identical GPUs of a fleet
// differ by several percent). Whatever synchronizes GPUs waits for the slowest of them: a layer's
// tensor-parallel collectives for the slowest of its group, the pipeline for its slowest stage,
// the gradient synchronization at the end of the step for the slowest replica; so the step's
// compute runs at the pace of the slowest GPU of all, longer by spread x E[max of n standard
// normal draws]. The wait is split by the nested groups whose synchronization adds it. Returns
// the wait (s).
double stragglers(const Setting& x, const PipelineOutcome& po, const StageTails& t, double spread,
                  SimDetails& d) {
  d.gpu_speed_spread = spread;
  if (spread <= 0 || x.ranks <= 1) return 0;
  double compute = 0;
  for (int s = 0; s < x.P; ++s) {
    const StageOutcome& st = po.stages[s];
    compute = std::max(compute, st.busy_forward + st.busy_backward + st.busy_recompute + t.opt_s[s]);
  }
  const auto sigmas = [](long long n) {
    return expected_max_normal(static_cast<int>(std::min<long long>(n, std::numeric_limits<int>::max())));
  };
  const long long tensor = static_cast<long long>(x.p.tp) * x.p.cp, replica = tensor * x.p.pp;
  const double e_tensor = sigmas(tensor), e_replica = sigmas(replica), e_all = sigmas(x.ranks);
  d.straggler_compute_s = compute;
  d.straggler_slowest_sigmas = e_all;
  d.straggler_tensor_s = spread * e_tensor * compute;
  d.straggler_pipeline_s = spread * (e_replica - e_tensor) * compute;
  d.straggler_data_s = spread * (e_all - e_replica) * compute;
  d.straggler_wait_s = d.straggler_tensor_s + d.straggler_pipeline_s + d.straggler_data_s;
  return d.straggler_wait_s;
}

// Per-stage breakdown: every second of [0, iteration] lands in exactly one part. The busiest
// stage is the one the result reports.
void stage_breakdowns(const Setting& x, const PipelineOutcome& po, const StageTails& t, double host_tail,
                      SimResult& r) {
  const double iteration = r.iteration_time_s;
  r.stage_breakdowns.resize(x.P);
  double busiest = -1;
  for (int s = 0; s < x.P; ++s) {
    const StageOutcome& st = po.stages[s];
    Breakdown& b = r.stage_breakdowns[s];
    b.forward = st.busy_forward;
    b.backward = st.busy_backward;
    b.recompute = st.busy_recompute;
    b.tp_comm_exposed = st.busy_tp_comm;
    b.cp_comm_exposed = st.busy_cp_comm;
    b.host_overhead = st.busy_host + host_tail;
    b.pp_comm_exposed = st.pp_comm;
    b.dp_comm_exposed = (t.dp_end[s] - st.compute_end) + t.gather_s[s] + st.busy_dp_comm;
    b.embedding_comm_exposed = t.reduce_end[s] - t.dp_end[s];
    b.optimizer = t.opt_s[s];
    b.straggler_wait = r.details.straggler_wait_s;
    b.pipeline_bubble = st.bubble + (t.sync - t.reduce_end[s]) +
                        (iteration - b.straggler_wait - (t.sync + t.opt_s[s] + t.gather_s[s] + host_tail));
    const double busy = b.forward + b.backward + b.recompute + b.tp_comm_exposed + b.cp_comm_exposed +
                        b.host_overhead + st.busy_dp_comm;
    if (busy > busiest) {
      busiest = busy;
      r.breakdown_stage = s;
    }
  }
  r.breakdown = r.stage_breakdowns[r.breakdown_stage];
}

// Work and utilization: model FLOPs (forward and backward), hardware FLOPs (with recomputation).
void utilization(const Setting& x, const LayerKernels& lk, SimResult& r) {
  const ModelConfig& m = x.m;
  const PlanConfig& p = x.p;
  const double iteration = r.iteration_time_s;
  // micro-batches x the ranks that share each one (tp, and cp holding a share of its tokens each)
  const double replicas_per_iter = static_cast<double>(x.M) * p.dp * p.tp * p.cp;
  const double layer_model = sum_model_flops(lk.layer_fwd) + sum_model_flops(lk.layer_bwd);
  const double edge_model = sum_model_flops(lk.embed_fwd) + sum_model_flops(lk.embed_bwd) +
                            sum_model_flops(lk.head_fwd) + sum_model_flops(lk.head_bwd);
  if (!is_moe(m)) {
    r.model_flops_per_iteration = replicas_per_iter * (m.layers * layer_model + edge_model);
    r.hardware_flops_per_iteration =
        r.model_flops_per_iteration + replicas_per_iter * m.layers * sum_model_flops(lk.layer_recompute);
  } else {
    // A MoE layer counts the experts a token passes through (active parameters), at the mean load.
    const double moe = moe_layers_in(m, 0, m.layers), dense = m.layers - moe;
    const double moe_model = sum_model_flops(lk.moe_fwd) + sum_model_flops(lk.moe_bwd);
    r.model_flops_per_iteration = replicas_per_iter * (dense * layer_model + moe * moe_model + edge_model);
    r.hardware_flops_per_iteration =
        r.model_flops_per_iteration + replicas_per_iter * (dense * sum_model_flops(lk.layer_recompute) +
                                                           moe * sum_model_flops(lk.moe_recompute));
  }
  const int num_gpus = r.config.cluster.num_gpus;
  // Utilization of the plan's own tensor-core peak: the FP8 one for an fp8 plan, whose linear
  // layers run at it (its attention and logits stay 16-bit, so it cannot reach 100%).
  const double peak = p.precision == Precision::fp8 ? x.prof.peak_fp8_tflops : x.prof.peak_fp16_tflops;
  const double peak_all = peak * 1e12 * num_gpus;
  r.mfu = r.model_flops_per_iteration / (iteration * peak_all);
  r.hfu = r.hardware_flops_per_iteration / (iteration * peak_all);
  r.tokens_per_s = static_cast<double>(p.global_batch) * m.seq_len / iteration;
  r.tflops_per_gpu = r.model_flops_per_iteration / iteration / num_gpus / 1e12;
  r.parameters = count_parameters(m);
}

// Memory of each stage, the fullest one reported, and whether it fits on the GPU.
void memory(const Setting& x, const std::vector<double>& local_params, SimResult& r) {
  r.stage_memory = stage_memory(x.m, x.p, x.prof, local_params);
  r.memory_capacity_GiB = x.prof.hbm_GiB;
  double worst = -1;
  for (int s = 0; s < x.P; ++s) {
    if (r.stage_memory[s].total() > worst) {
      worst = r.stage_memory[s].total();
      r.memory_stage = s;
    }
  }
  r.memory = r.stage_memory[r.memory_stage];
  r.fits_in_memory = worst <= x.prof.hbm_GiB;
  if (!r.fits_in_memory) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "needs %.1f GiB on stage %d but the GPU has %.0f GiB", worst, r.memory_stage,
                  x.prof.hbm_GiB);
    r.warnings.push_back({WarningCode::out_of_memory, "/plan", buf});
  }
}

// The training run: iterations for the tokens, days, GPU-hours, cost and energy.
void training_run(const Setting& x, SimResult& r) {
  const SimConfig& c = r.config;
  if (c.training.tokens <= 0) return;
  r.iterations = c.training.tokens / (static_cast<double>(x.p.global_batch) * x.m.seq_len);
  const double seconds = r.iterations * r.iteration_time_s;
  r.training_days = seconds / 86400.0;
  r.gpu_hours = seconds * c.cluster.num_gpus / 3600.0;
  r.cost_usd = r.gpu_hours * c.cluster.price_per_gpu_hour_usd;
  r.energy_MWh = r.gpu_hours * x.prof.board_power_W / 1e6;
  r.goodput = goodput(c.reliability, seconds, r.parameters.total, c.cluster.num_gpus, c.cluster.gpus_per_node);
  if (r.training_days > kLongestRealRunDays) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "the run would train for %.3g days, beyond any real run (more than %.0f days, ten years): check "
                  "/training/tokens, the cluster's bandwidths and /cluster/num_gpus",
                  r.training_days, kLongestRealRunDays);
    r.warnings.push_back({WarningCode::beyond_real_run, "/training/tokens", buf});
  }
}

// The blocks of one iteration per stage, for a Gantt chart.
void record_timeline(const Setting& x, const PipelineInput& in, const PipelineOutcome& po, const StageTails& t,
                     SimResult& r) {
  r.timeline.resize(x.P);
  for (int s = 0; s < x.P; ++s) {
    auto& out = r.timeline[s];
    const StageOutcome& st = po.stages[s];
    out.reserve(st.blocks.size() * (x.shard.on ? 2 : 1) + 4);
    for (const RecordedBlock& b : st.blocks) {
      BlockKind kind = BlockKind::forward;
      if (b.kind == ScheduleBlock::backward) kind = BlockKind::backward;
      if (b.kind == ScheduleBlock::recompute) kind = BlockKind::recompute;
      if (b.kind == ScheduleBlock::pp_send) kind = BlockKind::pp_send;
      out.push_back({kind, b.micro_batch, b.chunk, b.start_s, b.duration_s});
      // Sharded parameters: the block's gathers and reduce-scatters, beside it.
      if (x.shard.on && (b.kind == ScheduleBlock::forward || b.kind == ScheduleBlock::backward)) {
        const auto& profiles = b.kind == ScheduleBlock::forward ? in.fwd : in.bwd;
        const BlockProfile& bp = profiles[static_cast<size_t>(s) * x.V + std::max(0, b.chunk)];
        // A backward's profile starts with its recomputation, recorded as a block of its own.
        const double origin = b.start_s - (b.kind == ScheduleBlock::backward ? bp.recompute : 0.0);
        if (bp.shard_to > bp.shard_from)
          out.push_back({BlockKind::shard_comm, b.micro_batch, b.chunk, origin + bp.shard_from,
                         bp.shard_to - bp.shard_from});
      }
    }
    const double dp_start =
        x.dp_overlap ? st.compute_end - (r.stage_breakdowns[s].dp_comm_exposed - t.gather_s[s] - st.busy_dp_comm)
                     : st.compute_end;
    if (t.dp_end[s] > dp_start) out.push_back({BlockKind::dp_comm, -1, -1, dp_start, t.dp_end[s] - dp_start});
    if (t.reduce_end[s] > t.dp_end[s])
      out.push_back({BlockKind::embedding_comm, -1, -1, t.dp_end[s], t.reduce_end[s] - t.dp_end[s]});
    out.push_back({BlockKind::optimizer, -1, -1, t.sync, t.opt_s[s]});
    if (t.gather_s[s] > 0) out.push_back({BlockKind::dp_comm, -1, -1, t.sync + t.opt_s[s], t.gather_s[s]});
  }
}

}  // namespace

Outcome<SimResult> simulate(const SimConfig& config, const Profile* profile_override) {
  return simulate(config, profile_override, nullptr);
}

Outcome<SimResult> simulate(const SimConfig& config, const Profile* profile_override, SimScratch* scratch) {
  const Profile* prof = profile_override ? profile_override : bundled_profiles().find(config.cluster.gpu);
  if (!prof) return Diagnostics{unknown_gpu(config.cluster.gpu, "/cluster/gpu")};
  Diagnostics rules = check_sim_config(config);
  if (!rules.empty()) return rules;
  if (config.plan.precision == Precision::fp8 && prof->peak_fp8_tflops <= 0)
    return Diagnostics{make_diagnostic(
        "no_fp8", "/plan/precision",
        "fp8 needs FP8 tensor cores, which the " + (prof->display_name.empty() ? prof->name : prof->display_name) +
            " does not have (H100, H200 and B200 do): choose bf16 or fp16, or another GPU")};
  if (config.plan.optimizer_offload && (prof->pcie_GBps <= 0 || prof->host_memory_GBps <= 0))
    return Diagnostics{make_diagnostic(
        "no_host", "/plan/optimizer_offload",
        "optimizer offload needs the host's PCIe and memory bandwidth, which the profile " + prof->name +
            " does not give (/hardware/pcie_GBps and /hardware/host_memory_GBps)")};

  SimResult r;
  r.config = config;
  ClusterConfig& cl = r.config.cluster;
  if (cl.intra_node_GBps <= 0) cl.intra_node_GBps = prof->intra_node_GBps;
  if (cl.inter_node_Gbps <= 0) cl.inter_node_Gbps = prof->inter_node_Gbps;
  const PlanConfig& p = config.plan;
  const long long ranks = static_cast<long long>(p.tp) * p.cp * p.pp * p.dp;
  const GroupShape cp_group = group_shape(p.cp, p.tp, ranks, cl.gpus_per_node);
  const Setting x{config.model,
                  p,
                  *prof,
                  make_fabric(*prof, cl),
                  p.pp,
                  p.virtual_stages,
                  micro_batches_per_iteration(p),
                  cl.gpus_per_node,
                  ranks,
                  plan_groups(config.model, p, ranks, cl.gpus_per_node),
                  cp_ring(p, cp_group, ranks, cl.gpus_per_node),
                  HostCost{prof->host_issue_us * 1e-6, prof->host_issue_backward_us * 1e-6, prof->host_layer_us * 1e-6,
                           prof->collective_sync_us * 1e-6 * expected_max_normal(p.tp),
                           prof->host_microbatch_us * 1e-6, p.launch_blocking},
                  // A blocking launch returns only when its kernel has finished: nothing runs beside anything else.
                  p.dp_overlap && !p.launch_blocking,
                  p.p2p_overlap && !p.launch_blocking,
                  shard_comm(config.model, p, *prof, make_fabric(*prof, cl), ranks, cl.gpus_per_node,
                             expert_dp_group(config.model, p, ranks, cl.gpus_per_node))};
  r.micro_batches = x.M;

  // Kernels of one micro-batch, timed once: every layer of the plan has the same shapes.
  LayerKernels own_kernels;
  const LayerKernels& lk = timed_kernels(config, *prof, x.fabric, x.groups, x.cp_ring, scratch, own_kernels);
  r.details.layer_forward_s = sum_time(lk.layer_fwd);
  r.details.layer_backward_s = sum_time(lk.layer_bwd);
  r.details.layer_recompute_s = sum_time(lk.layer_recompute);
  r.details.tp_nodes = x.groups.tp.nodes;
  if (is_moe(config.model)) {
    r.details.moe = true;
    r.details.moe_layer_forward_s = sum_time(lk.moe_fwd);
    r.details.moe_layer_backward_s = sum_time(lk.moe_bwd);
    r.details.moe_dispatch_bytes = lk.dispatch_bytes;
    for (const auto* list : {&lk.moe_fwd, &lk.moe_bwd})
      for (const Kernel& k : *list)
        if (k.kind == KernelKind::collective && k.group == CommGroup::ep) r.details.moe_all_to_all_s += k.time_s;
    r.details.moe_expert_tokens = lk.expert_rows;
    r.details.moe_load_imbalance = lk.load_imbalance;
    r.details.ep_nodes = x.groups.ep.nodes;
    r.details.edp = expert_dp(config.model, p);
  }
  note_settings(x.m, p, r);
  if (config.output.operators) {
    r.operators = operator_times(lk, moe_layers_in(config.model, 0, config.model.layers) < config.model.layers);
    if (x.shard.on) {
      add_shard_operators(r.operators, "layer", x.shard, layer_parameters(x.m, p), p);
      if (is_moe(x.m)) {
        // What a MoE layer gathers and reduces: its dense part, and its experts where they are sharded.
        const MoeLayerParameters moe = moe_layer_parameters(x.m, p);
        add_shard_operators(r.operators, "moe layer", moe_layer_comm(x.shard), moe.gathered, p);
      }
    }
  }
  if (x.groups.tp.nodes > 1)
    r.warnings.push_back({WarningCode::tp_across_nodes, "/plan/tp",
                          "a tensor-parallel group spans " + std::to_string(x.groups.tp.nodes) +
                              " nodes: its collectives cross the network"});

  // The pipeline, then what follows each stage's last backward.
  const bool want_timeline =
      config.output.timeline && (x.shard.on ? 5.0 : 3.0) * x.P * x.V * x.M + 4.0 * x.P <= kMaxTimelineBlocks;
  PipelineInput in;
  pipeline_input(x, lk, want_timeline, in, r.details);
  PipelineOutcome own_pipeline;
  const PipelineOutcome& po = run_pipeline(in, scratch, own_pipeline);
  if (!po.ok) return Outcome<SimResult>::fail("internal", "/plan", "/plan: the pipeline schedule deadlocked");
  const std::vector<double> local_params = stage_local_parameters(x.m, p);  // per GPU of each stage
  const StageTails tails = after_pipeline(x, po, local_params, r.details);

  // The host's once-per-iteration work (data loading, loss, bookkeeping) follows the step.
  const double host_tail = prof->iteration_overhead_ms * 1e-3;
  double iteration = 0;
  for (int s = 0; s < x.P; ++s)
    iteration = std::max(iteration, tails.sync + tails.opt_s[s] + tails.gather_s[s] + host_tail);
  const double straggler = stragglers(
      x, po, tails, cl.gpu_speed_spread > 0 ? cl.gpu_speed_spread : prof->gpu_speed_spread, r.details);
  iteration += straggler;
  r.iteration_time_s = iteration;
  // Every bucket pays a collective's fixed latency: across many nodes that can outweigh what the
  // overlap hides. Worth a word from a thousandth of the iteration on.
  if (tails.sync - tails.sync_after > 1e-3 * iteration) {
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "overlapping the gradient reduction makes the iteration %.1f ms longer: its buckets (%.0f a "
                  "model chunk, over %d node%s) each pay a collective's latency, more than the overlap hides",
                  (tails.sync - tails.sync_after) * 1e3, tails.buckets_per_chunk, tails.dp_nodes,
                  tails.dp_nodes == 1 ? "" : "s");
    r.warnings.push_back({WarningCode::overlap_slower, "/plan/dp_overlap", buf});
  }

  stage_breakdowns(x, po, tails, host_tail, r);
  utilization(x, lk, r);
  memory(x, local_params, r);
  training_run(x, r);
  // A profile with rates near zero (a custom one: the bundled ones are fitted) can push a time
  // past what a double holds; say so rather than print inf.
  for (const double v : {r.iteration_time_s, r.training_days, r.gpu_hours, r.cost_usd, r.energy_MWh}) {
    if (!std::isfinite(v) || !(iteration > 0))
      return Outcome<SimResult>::fail("non_finite", "/cluster/gpu",
                                      "/cluster/gpu: the profile \"" + prof->name +
                                          "\" gives a time too large to represent; its rates (peak, efficiencies, "
                                          "bandwidths) are too close to zero");
  }

  // What the profile's calibration says about runs like this one.
  select_accuracy(*prof, cl.num_gpus, cl.gpus_per_node, x.m.hidden, x.m.moe.experts > 0, r.accuracy,
                  r.accuracy_also);
  r.profile_kind = prof->kind == "projected"   ? "projected"
                   : prof->kind == "measured"  ? "measured"
                   : prof->kind == "synthetic" ? "synthetic"
                                               : "calibrated";

  r.timeline_included = want_timeline;
  if (config.output.timeline && !want_timeline)
    r.warnings.push_back({WarningCode::timeline_omitted, "/output/timeline", "timeline omitted: more than 250000 blocks"});
  if (want_timeline) record_timeline(x, in, po, tails, r);
  return r;
}

}  // namespace vtrain
