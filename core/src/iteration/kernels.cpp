#include "iteration/kernels.hpp"

#include <algorithm>
#include <cmath>

#include "vtrain/model.hpp"

namespace vtrain::detail {

namespace {

constexpr double E = kHalfBytes;  // bytes per 16-bit element
// FlashAttention in Triton against FlashAttention-2, whose rates the profile holds: "around
// 1.3-1.5x" slower in the forward pass and "around 2x" in the backward (Dao 2023, FlashAttention-2,
// arXiv 2307.08691, section 4.1, A100 80GB SXM4).
constexpr double kTritonForwardSlowdown = 1.4;
constexpr double kTritonBackwardSlowdown = 2.0;

struct Shape {
  double T;      // tokens of the micro-batch this rank holds (b x s / cp)
  double Tn;     // tokens each rank holds in norm/dropout regions (T/tp with sequence parallelism)
  double b, s, h, t;
  double cp;     // context-parallel degree: the rank holds s / cp tokens of each sequence
  double heads_t, kv_t;     // query heads, kv heads per rank
  double dqk, dv;           // per-head width of queries and keys, of values
  bool mla;                 // multi-head latent attention (DeepSeek-V2/V3)
  double q_lora, kv_lora, nope, rope_d;  // its ranks and head widths
  double f_t;               // MLP width per rank
  double vocab_t;           // padded vocabulary rows per rank
  double grad_bytes;        // bytes per element of the gradient buffers
  bool sp, bias, swiglu, rope, alibi, flash, gqa, fused_accumulation;
  bool geglu = false;       // the gated MLP's activation is GeLU (GeGLU) rather than SiLU
  bool eager = false;       // element-wise operators as eager PyTorch's kernels (plan.fused_elementwise false)
  bool eager_norm = false;  // and the norm an RMSNorm among them
  double rope_frac = 1.0;   // share of each head's width the rotary embedding turns
  bool parallel = false;    // attention and MLP side by side (Residual::parallel*)
  bool two_norms = false;   // each with its own norm (GPT-NeoX)
  bool triton;              // FlashAttention in Triton rather than FlashAttention-2
  bool async_backward;      // input-gradient collective beside the weight-gradient GEMM
  bool ub = false;          // Transformer Engine's userbuffers overlap (tp_comm_overlap, sequence parallel)
  bool fused_softmax;  // Megatron's fused causal softmax kernel applies to this shape
  bool fp8;            // Transformer Engine FP8: the layer's four linear layers run their GEMMs in FP8
  // A mixture of experts' MoE layer (docs/moe.md), on one rank:
  double Tm = 0;             // tokens that enter its router (T / tp: the sequence-parallel split)
  double experts = 0, topk = 0;
  double ep = 1, etp = 1;    // expert-parallel and expert tensor-parallel degrees
  double local_experts = 0;  // experts this rank holds (experts / ep)
  double rows = 0;           // tokens of each local expert's GEMMs on the busiest rank (imbalance or capacity)
  double mean_rows = 0;      // the same at the mean load (what the model FLOPs count)
  double fe_t = 0;           // a routed expert's width per expert tensor-parallel rank
  double shared_f_t = 0;     // the shared experts' width per tensor-parallel rank (0: none)
  double a2a_bytes = 0;      // what one rank sends in a dispatch (or combine) all-to-all (B)
  bool sigmoid = false;      // sigmoid scores (DeepSeek-V3) rather than softmax
  bool permute_sync = false; // permutation and unpermutation synchronize the host (plan.moe_permute_sync)
};

Kernel gemm(Part part, const char* op, double m, double n, double k, double batch = 1) {
  Kernel g;
  g.kind = KernelKind::gemm;
  g.part = part;
  g.op = op;
  g.m = m, g.n = n, g.k = k, g.batch = batch;
  g.model_flops = g.work_flops = 2.0 * m * n * k * batch;
  return g;
}

Kernel mem(Part part, const char* op, double bytes) {
  Kernel g;
  g.kind = KernelKind::memory;
  g.part = part;
  g.op = op;
  g.bytes = bytes;
  return g;
}

Kernel coll(CollectiveKind kind, double bytes) {
  Kernel g;
  g.kind = KernelKind::collective;
  g.part = Part::tp_comm;
  g.op = kind == CollectiveKind::all_reduce       ? "tensor-parallel all-reduce"
         : kind == CollectiveKind::all_gather     ? "tensor-parallel all-gather"
                                                  : "tensor-parallel reduce-scatter";
  g.collective = kind;
  g.comm_bytes = bytes;
  return g;
}

Kernel coll_on(CommGroup group, CollectiveKind kind, double bytes, const char* op) {
  Kernel g = coll(kind, bytes);
  g.group = group;
  g.op = op;
  return g;
}

// The tensor-parallel communication at the entry ("f") and exit ("g") of a parallel region.
void region_entry_fwd(std::vector<Kernel>& v, const Shape& x) {
  if (x.t > 1 && x.sp) v.push_back(coll(CollectiveKind::all_gather, x.T * x.h * E));
}
void region_exit_fwd(std::vector<Kernel>& v, const Shape& x) {
  if (x.t <= 1) return;
  v.push_back(coll(x.sp ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce, x.T * x.h * E));
}
void region_exit_bwd(std::vector<Kernel>& v, const Shape& x) {
  if (x.t > 1 && x.sp) v.push_back(coll(CollectiveKind::all_gather, x.T * x.h * E));
}
// `dgrad` is the index of the column-parallel layer's input-gradient GEMM: Megatron-LM launches the
// collective right after it, asynchronously, so it runs beside the weight-gradient GEMM that follows.
void region_entry_bwd(std::vector<Kernel>& v, const Shape& x, int dgrad) {
  if (x.t <= 1) return;
  v.push_back(coll(x.sp ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce, x.T * x.h * E));
  if (x.async_backward) v.back().beside_from = dgrad + 1;
}

// Width of q, k and v together on this rank (elements a token).
double qkv_width(const Shape& x) { return x.heads_t * x.dqk + x.kv_t * (x.dqk + x.dv); }
// Width of the attention's output (the context) on this rank.
double context_width(const Shape& x) { return x.heads_t * x.dv; }

// Bytes the rotary embedding of q and k moves: the turned share of each head read and written;
// on part of the head (GPT-NeoX's rotary_pct), the turned and the passed parts then concatenated
// again (read and written whole), as GPT-NeoX and Megatron-LM do it.
double rotary_bytes(const Shape& x) {
  const double whole = 2.0 * E * x.T * (x.heads_t + x.kv_t) * x.dqk;
  return whole * (x.rope_frac + (x.rope_frac < 1.0 ? 1.0 : 0.0));
}

// Without fused element-wise kernels (plan.fused_elementwise false: eager PyTorch, as torchtitan
// without torch.compile and Hugging Face's model code run them) an operator is the sequence of
// kernels its Python code launches, each reading and writing its tensors whole, in fp32 where the
// code casts up. Bytes per element of each kernel:
// - RMSNorm, x * rsqrt(mean(x^2) + eps) in fp32, cast back, times the weight: cast up (2 + 4),
//   square (4 + 4), mean (4), scale (4 + 4), cast down (4 + 2), weight (2 + 2); its autograd
//   backward: weight (2 + 2) and its gradient (2 + 2), cast (2 + 4), scale (4 + 4) and its
//   reduction (4 + 4), square and mean (4 + 4 + 4), the two paths added (4 + 4 + 4), cast (4 + 2).
//   (LayerNorm is one native kernel either way.)
// - Rotary embedding as complex multiplication: cast up (2 + 4), multiply (4 + 4), cast down
//   (4 + 2); the backward the same three.
// - SwiGLU, silu(a) * b: silu (2 + 2), multiply (2 + 2 + 2); backward: the two products' gradients
//   (2 + 2 + 2 each) and silu's (2 + 2 + 2).
constexpr double kEagerRmsNormFwd[] = {6, 8, 4, 8, 6, 4};
constexpr double kEagerRmsNormBwd[] = {4, 4, 6, 8, 8, 12, 12, 6};
constexpr double kEagerRotary[] = {6, 8, 6};
constexpr double kEagerSwigluFwd[] = {4, 6};
constexpr double kEagerSwigluBwd[] = {6, 6, 6};

const char* activation_op(const Shape& x) {
  if (x.swiglu) return x.geglu ? "GeGLU" : "SwiGLU";
  return x.bias ? "bias and GeLU" : "GeLU";
}

void norm_fwd(std::vector<Kernel>& v, const Shape& x, Part part, const char* op) {
  const double n = x.Tn * x.h;
  if (!x.eager_norm) {
    v.push_back(mem(part, op, 2.0 * E * n));
    return;
  }
  for (double b : kEagerRmsNormFwd) v.push_back(mem(part, op, b * n));
}

void rotary(std::vector<Kernel>& v, const Shape& x, Part part) {
  if (!x.eager) {
    v.push_back(mem(part, "rotary embedding", rotary_bytes(x)));
    return;
  }
  // rotary_bytes is 2 bytes read and written an element of the fused kernel's work
  const double elements = rotary_bytes(x) / (2.0 * E);
  for (double b : kEagerRotary) v.push_back(mem(part, "rotary embedding", b * elements));
}

void activation_fwd(std::vector<Kernel>& v, const Shape& x, Part part) {
  const double n = x.T * x.f_t;
  if (!x.eager || !x.swiglu) {
    v.push_back(mem(part, activation_op(x), (x.swiglu ? 3.0 : 2.0) * E * n));
    return;
  }
  for (double b : kEagerSwigluFwd) v.push_back(mem(part, activation_op(x), b * n));
}

void activation_bwd(std::vector<Kernel>& v, const Shape& x) {
  const double n = x.T * x.f_t;
  if (!x.eager || !x.swiglu) {
    v.push_back(mem(Part::backward, activation_op(x), (x.swiglu ? 5.0 : 3.0) * E * n));
    return;
  }
  for (double b : kEagerSwigluBwd) v.push_back(mem(Part::backward, activation_op(x), b * n));
}

// Transformer Engine's FP8 recipe around one GEMM operand of `elements`, with per-tensor scales
// from the current step (Megatron-Core's FP8 "current scaling"): one kernel reads the 16-bit
// tensor for its absolute maximum (amax, hence the scale), a second reads it again and writes it
// in FP8 and FP8 transposed (the transpose feeds the other GEMM of the backward pass).
void fp8_cast(std::vector<Kernel>& v, Part part, double elements) {
  v.push_back(mem(part, "FP8 amax and scale", E * elements));
  v.push_back(mem(part, "FP8 cast and transpose", (E + 2.0) * elements));
}

// y = x W for m rows (W: k x n), forward: in FP8 the input is cast first and the GEMM runs at the
// FP8 rate; the weight's FP8 copy is made once an iteration (the optimizer step's part).
void linear_fwd(std::vector<Kernel>& v, const Shape& x, Part part, const char* op, double m, double n, double k) {
  if (x.fp8) fp8_cast(v, part, m * k);
  Kernel g = gemm(part, op, m, n, k);
  g.fp8 = x.fp8;
  v.push_back(g);
}

// Transformer Engine's userbuffers (NeMo's tp_comm_overlap, with sequence parallelism): each
// tensor-parallel collective of a layer runs beside the GEMM it feeds or drains, in chunks.
// - Column-parallel inputs (q, k, v and the MLP's up projection) and, in the backward, the output
//   gradients of the row-parallel layers are all-gathered by a ring exchange: in each of tp steps
//   the GEMM runs on the chunk at hand while the next one arrives (copy engines, no SMs).
// - Row-parallel outputs (attention and MLP down projections) are reduce-scattered in 4 pipelined
//   chunks by kernels on SMs taken from the GEMM.
// - In the backward, the column-parallel layer's input is all-gathered again beside its data-
//   gradient GEMM (the weight gradient needs it) and that GEMM's output reduce-scattered beside the
//   weight-gradient GEMM ("bulk" overlaps, on a few SMs each).
// The SM counts are those of the userbuffers configuration NVIDIA ships for Llama 3 70B on H100
// (NeMo's tp_overlap_configs/userbuffers.py, userbuffers_fp8_h100_h8192_tp4_mbs1_seqlen8192); in
// FP8 the gathered and scattered activations travel as FP8.
constexpr double kUbPipelineChunks = 4;
constexpr double kUbAttnOutSms = 24, kUbMlpDownSms = 16;   // forward reduce-scatter pipelines
constexpr double kUbQkvDgradSms = 4, kUbQkvWgradSms = 24;  // backward bulk overlaps, q, k, v
constexpr double kUbMlpDgradSms = 2, kUbMlpWgradSms = 4;   // and the MLP's up projection

double ub_bytes(const Shape& x) { return (x.fp8 ? 1.0 : E) * x.T * x.h; }

// A GEMM split into `chunks` row blocks (the same work, smaller GEMMs).
void split_rows(Kernel& g, double chunks) {
  g.m /= chunks;
  g.batch *= chunks;
}

Kernel overlapped(CollectiveKind kind, double bytes, int beside, double chunks) {
  Kernel c = coll(kind, bytes);
  c.beside_from = beside;
  c.overlap_chunks = chunks;
  return c;
}

// A column-parallel linear layer's forward with its input all-gathered: plain, or with userbuffers
// (the FP8 cast runs on the rank's own rows before the gather).
void column_parallel_fwd(std::vector<Kernel>& v, const Shape& x, Part part, const char* op, double n) {
  if (!x.ub) {
    region_entry_fwd(v, x);
    linear_fwd(v, x, part, op, x.T, n, x.h);
    return;
  }
  if (x.fp8) fp8_cast(v, part, x.Tn * x.h);
  Kernel g = gemm(part, op, x.T, n, x.h);
  g.fp8 = x.fp8;
  split_rows(g, x.t);
  const int at = static_cast<int>(v.size());
  v.push_back(g);
  v.push_back(overlapped(CollectiveKind::all_gather, ub_bytes(x), at, x.t));
}

// The reduce-scatter (or all-reduce) after a row-parallel layer's forward GEMM, the last kernel of `v`.
void row_parallel_exit_fwd(std::vector<Kernel>& v, const Shape& x, double sms) {
  if (!x.ub) {
    region_exit_fwd(v, x);
    return;
  }
  const int at = static_cast<int>(v.size()) - 1;
  split_rows(v[at], kUbPipelineChunks);
  v[at].sms_taken = sms;
  v.push_back(overlapped(CollectiveKind::reduce_scatter, ub_bytes(x), at, kUbPipelineChunks));
}


// Context parallelism as Megatron-Core runs it through Transformer Engine (the "p2p" exchange):
// the rank holds two chunks of s / 2cp tokens of each sequence (chunks r and 2cp-1-r, so that every
// rank has the same share of the causal work) and attends in cp steps. Step 0 is its own keys and
// values (causal within them); in each later step it has received the next rank's K/V chunk and
// attends to it without a mask, half of an s/cp x s/cp block either way (its later query chunk
// against both, or both against the earlier key chunk). While one step computes, the K/V for the
// next travel around the ring (a point-to-point send and receive; only what outlasts the step is
// exposed). Each later step's partial output is merged into the running one by its softmax
// statistics, in fp32.
Kernel ring_exchange(Part part, double bytes, int beside_from) {
  Kernel k;
  k.kind = KernelKind::ring_p2p;
  k.part = part;
  k.op = "context-parallel K/V exchange";
  k.comm_bytes = bytes;
  k.beside_from = beside_from;
  return k;
}

// Bytes of the K/V chunk one rank holds (the keys and values of its s / cp tokens, its kv heads).
double kv_chunk_bytes(const Shape& x) { return E * x.T * x.kv_t * (x.dqk + x.dv); }

void context_parallel_attention_fwd(std::vector<Kernel>& v, const Shape& x, Part part) {
  const double bh = x.b * x.heads_t;
  const double sq = x.s / x.cp;  // queries (and keys of one K/V chunk) of each sequence on this rank
  const int steps = static_cast<int>(x.cp);
  for (int i = 0; i < steps; ++i) {
    Kernel a;
    a.kind = KernelKind::attention_fwd;
    a.part = part;
    a.op = "flash attention";
    a.m = sq, a.n = i == 0 ? sq : 0.5 * sq, a.k = x.dqk, a.batch = bh;
    a.model_flops = 2.0 * bh * sq * sq * (x.dqk + x.dv);  // dense convention: s/cp queries x s/cp keys a step
    a.work_flops = 0.5 * a.model_flops;                    // half a block a step (causal at step 0)
    a.bytes = E * x.T * (qkv_width(x) + context_width(x));
    if (x.triton) a.speed = 1.0 / kTritonForwardSlowdown;
    const int at = static_cast<int>(v.size());
    v.push_back(a);
    if (i + 1 < steps) v.push_back(ring_exchange(Part::cp_comm, kv_chunk_bytes(x), at));
    if (i > 0) v.push_back(mem(part, "context-parallel output correction", (E + 8.0) * x.T * context_width(x)));
  }
  v.push_back(mem(part, "context-parallel output correction", (4.0 + E) * x.T * context_width(x)));  // to 16 bits
}

// The backward runs the same steps; with each K/V chunk travels its gradient (dK, dV), summed on
// every rank it visits, and a last hop brings it home after the final step.
void context_parallel_attention_bwd(std::vector<Kernel>& v, const Shape& x) {
  const double bh = x.b * x.heads_t;
  const double sq = x.s / x.cp;
  const int steps = static_cast<int>(x.cp);
  const double chunk = kv_chunk_bytes(x);
  for (int i = 0; i < steps; ++i) {
    Kernel a;
    a.kind = KernelKind::attention_bwd;
    a.part = Part::backward;
    a.op = "flash attention";
    a.m = sq, a.n = i == 0 ? sq : 0.5 * sq, a.k = x.dqk, a.batch = bh;
    a.model_flops = 4.0 * bh * sq * sq * (x.dqk + x.dv);
    a.work_flops = 0.5 * 2.0 * bh * sq * sq * (3.0 * x.dqk + 2.0 * x.dv);
    a.bytes = E * x.T * 2.0 * (qkv_width(x) + context_width(x));
    if (x.triton) a.speed = 1.0 / kTritonBackwardSlowdown;
    const int at = static_cast<int>(v.size());
    v.push_back(a);
    // Beside step i: the K/V for step i+1 and the K/V gradient of step i-1.
    const double bytes = (i + 1 < steps ? chunk : 0.0) + (i > 0 ? chunk : 0.0);
    if (bytes > 0) v.push_back(ring_exchange(Part::cp_comm, bytes, at));
    if (i > 0) v.push_back(mem(Part::backward, "context-parallel gradient accumulation", 3.0 * E * x.T * qkv_width(x)));
  }
  v.push_back(ring_exchange(Part::cp_comm, chunk, -1));  // the last K/V gradient home
}

// Attention core: from q, k, v to the context in [s, b, h] layout, forward.
void attention_core_fwd(std::vector<Kernel>& v, const Shape& x, Part part) {
  const double bh = x.b * x.heads_t;  // (batch x heads) attention problems on this rank
  if (x.flash && x.cp > 1) {
    context_parallel_attention_fwd(v, x, part);
    return;
  }
  if (x.flash) {
    Kernel a;
    a.kind = KernelKind::attention_fwd;
    a.part = part;
    a.op = "flash attention";
    a.m = x.s, a.n = x.s, a.k = x.dqk, a.batch = bh;
    a.model_flops = 2.0 * bh * x.s * x.s * (x.dqk + x.dv);
    a.work_flops = 0.5 * a.model_flops;  // causal: blocks above the diagonal are skipped
    a.bytes = E * x.T * (qkv_width(x) + context_width(x));
    if (x.triton) a.speed = 1.0 / kTritonForwardSlowdown;
    v.push_back(a);
    return;
  }
  if (x.gqa) v.push_back(mem(part, "k, v head expansion", 2.0 * E * x.T * x.heads_t * (x.dqk + x.dv)));  // expand k, v to all heads
  const double scores = bh * x.s * x.s;
  if (x.alibi) {
    // ALiBi: the scores start from the per-head bias, broadcast into the whole scores buffer by a
    // copy, and the GEMM adds its product to them (beta = 1), reading the buffer back.
    v.push_back(mem(part, "ALiBi bias", E * scores));
    Kernel g = gemm(part, "attention scores", x.s, x.s, x.dqk, bh);
    g.bytes = E * scores;
    v.push_back(g);
  } else {
    v.push_back(gemm(part, "attention scores", x.s, x.s, x.dqk, bh));  // scores = q k^T / sqrt(d)
  }
  if (x.fused_softmax) {
    v.push_back(mem(part, "softmax", 2.0 * E * scores));  // scale, causal mask, softmax in one kernel
  } else {
    // PyTorch fallback: to fp32, scale, mask, softmax, back to 16 bits.
    v.push_back(mem(part, "softmax", (E + 4.0) * scores));
    v.push_back(mem(part, "softmax", 8.0 * scores));
    v.push_back(mem(part, "softmax", 8.0 * scores));
    v.push_back(mem(part, "softmax", 8.0 * scores));
    v.push_back(mem(part, "softmax", (4.0 + E) * scores));
  }
  if (x.bias) v.push_back(mem(part, "attention dropout", (2.0 * E + 1.0) * bh * x.s * x.s));  // attention dropout
  v.push_back(gemm(part, "attention over values", x.s, x.dv, x.s, bh));                  // context = probs v
  v.push_back(mem(part, "attention layout copy", 2.0 * E * x.T * context_width(x)));     // [b, heads, s, d] -> [s, b, h] copy
}

void attention_core_bwd(std::vector<Kernel>& v, const Shape& x) {
  const double bh = x.b * x.heads_t;
  if (x.flash && x.cp > 1) {
    context_parallel_attention_bwd(v, x);
    return;
  }
  if (x.flash) {
    Kernel a;
    a.kind = KernelKind::attention_bwd;
    a.part = Part::backward;
    a.op = "flash attention";
    a.m = x.s, a.n = x.s, a.k = x.dqk, a.batch = bh;
    a.model_flops = 4.0 * bh * x.s * x.s * (x.dqk + x.dv);
    // five s x s products (scores again, d probs, d v, d q, d k), causal half
    a.work_flops = 0.5 * 2.0 * bh * x.s * x.s * (3.0 * x.dqk + 2.0 * x.dv);
    a.bytes = E * x.T * 2.0 * (qkv_width(x) + context_width(x));
    if (x.triton) a.speed = 1.0 / kTritonBackwardSlowdown;
    v.push_back(a);
    return;
  }
  v.push_back(mem(Part::backward, "attention layout copy", 2.0 * E * x.T * context_width(x)));  // layout copy back
  v.push_back(gemm(Part::backward, "attention over values", x.s, x.s, x.dv, bh));        // d probs = d context v^T
  v.push_back(gemm(Part::backward, "attention over values", x.s, x.dv, x.s, bh));        // d v = probs^T d context
  if (x.bias) v.push_back(mem(Part::backward, "attention dropout", (2.0 * E + 1.0) * bh * x.s * x.s));  // dropout
  if (x.fused_softmax) {
    v.push_back(mem(Part::backward, "softmax", 3.0 * E * bh * x.s * x.s));  // softmax backward
  } else {
    const double scores = bh * x.s * x.s;
    v.push_back(mem(Part::backward, "softmax", (E + 4.0) * scores));  // gradient to fp32
    v.push_back(mem(Part::backward, "softmax", 12.0 * scores));       // softmax backward
    v.push_back(mem(Part::backward, "softmax", 8.0 * scores));        // mask and scale
    v.push_back(mem(Part::backward, "softmax", (4.0 + E) * scores));  // back to 16 bits
  }
  v.push_back(gemm(Part::backward, "attention scores", x.s, x.dqk, x.s, bh));      // d q = d scores k
  v.push_back(gemm(Part::backward, "attention scores", x.s, x.dqk, x.s, bh));      // d k = d scores^T q
  if (x.gqa) v.push_back(mem(Part::backward, "k, v head expansion", 2.0 * E * x.T * x.heads_t * (x.dqk + x.dv)));  // sum to kv heads
  v.push_back(mem(Part::backward, "attention layout copy", 2.0 * E * x.T * qkv_width(x)));  // q, k, v grads into one buffer
}

// Bias plus dropout plus residual add, fused (GPT style), or the plain residual add.
double residual_fwd_bytes(const Shape& x) { return (3.0 * E + (x.bias ? 1.0 : 0.0)) * x.Tn * x.h; }
const char* residual_op(const Shape& x) { return x.bias ? "bias, dropout and residual add" : "residual add"; }
const char* mlp_up_op(const Shape& x) { return x.swiglu ? "MLP gate and up projections" : "MLP up projection"; }

// A grouped GEMM of the local experts: `batch` GEMMs of `rows` tokens each (the busiest rank's),
// its model FLOPs those of the mean load.
Kernel expert_gemm(const Shape& x, Part part, const char* op, double rows, double n, double k) {
  Kernel g = gemm(part, op, rows, n, k, x.local_experts);
  g.model_flops = 2.0 * x.mean_rows * n * k * x.local_experts;
  g.fp8 = x.fp8;
  return g;
}

// A MoE layer's MLP part, forward (Megatron-Core's all-to-all token dispatcher): the router's
// scores and top-k, the tokens permuted into expert order, sent to the experts' ranks (all-to-all
// over the expert-parallel group) and gathered over the expert tensor-parallel group, the grouped
// expert GEMMs, and the way back; the shared experts run as an ordinary tensor-parallel MLP.
void moe_fwd(std::vector<Kernel>& v, const Shape& x, Part part) {
  const double copies = x.Tm * x.topk;                  // token copies this rank routes
  const double expert_tokens = x.rows * x.local_experts;  // tokens its experts take
  v.push_back(gemm(part, "router", x.Tm, x.experts, x.h));
  // scores in fp32: softmax (or sigmoid and bias), top-k, the load-balancing statistics
  v.push_back(mem(part, "router top-k", (E + 3.0 * 4.0) * x.Tm * x.experts));
  v.push_back(mem(part, "token permutation", E * (x.Tm * x.h + copies * x.h)));
  v.back().host_sync = x.permute_sync;
  if (x.ep > 1) v.push_back(coll_on(CommGroup::ep, CollectiveKind::all_to_all, x.a2a_bytes, "expert-parallel all-to-all"));
  if (x.etp > 1)
    v.push_back(coll_on(CommGroup::etp, CollectiveKind::all_gather, E * expert_tokens * x.h, "expert tensor-parallel collective"));
  if (x.fp8) fp8_cast(v, part, expert_tokens * x.h);
  v.push_back(expert_gemm(x, part, "expert up projections", x.rows, (x.swiglu ? 2.0 : 1.0) * x.fe_t, x.h));
  v.push_back(mem(part, "expert activation", (x.swiglu ? 3.0 : 2.0) * E * expert_tokens * x.fe_t));
  if (x.fp8) fp8_cast(v, part, expert_tokens * x.fe_t);
  v.push_back(expert_gemm(x, part, "expert down projections", x.rows, x.h, x.fe_t));
  if (x.etp > 1)
    v.push_back(coll_on(CommGroup::etp, CollectiveKind::reduce_scatter, E * expert_tokens * x.h, "expert tensor-parallel collective"));
  if (x.ep > 1) v.push_back(coll_on(CommGroup::ep, CollectiveKind::all_to_all, x.a2a_bytes, "expert-parallel all-to-all"));
  v.push_back(mem(part, "token unpermutation", E * (copies * x.h + x.Tm * x.h) + 4.0 * copies));  // weighted sum
  v.back().host_sync = x.permute_sync;
  if (x.shared_f_t > 0) {
    const double out = x.swiglu ? 2.0 * x.shared_f_t : x.shared_f_t;
    region_entry_fwd(v, x);
    linear_fwd(v, x, part, "shared expert", x.T, out, x.h);
    v.push_back(mem(part, "shared expert", (x.swiglu ? 3.0 : 2.0) * E * x.T * x.shared_f_t));
    linear_fwd(v, x, part, "shared expert", x.T, x.h, x.shared_f_t);
    region_exit_fwd(v, x);
    v.push_back(mem(part, "shared expert", 3.0 * E * x.Tn * x.h));  // added to the routed experts' output
  }
}



// The projections into attention, forward: the fused q, k, v projection (column-parallel), or
// multi-head latent attention's low-rank ones. DeepSeek's latent down-projections are replicated
// on every tensor-parallel rank (Megatron-Core's "duplicated" linear layers) and run on the tokens
// the rank holds; with sequence parallelism the small latents, not the hidden states, are then
// all-gathered. The up-projections are column-parallel.
void attention_in_fwd(std::vector<Kernel>& v, const Shape& x, Part part) {
  if (!x.mla) {
    column_parallel_fwd(v, x, part, "q, k, v projection", qkv_width(x));  // fused q, k, v projection
    if (x.bias) v.push_back(mem(part, "q, k, v projection", 2.0 * E * x.T * qkv_width(x)));  // its bias
    if (x.rope) rotary(v, x, part);
    return;
  }
  const double q_width = x.heads_t * (x.nope + x.rope_d), kv_up = x.heads_t * (x.nope + x.dv);
  const double kv_latent = x.kv_lora + x.rope_d;
  if (x.q_lora > 0) {
    linear_fwd(v, x, part, "query down projection", x.Tn, x.q_lora, x.h);
    linear_fwd(v, x, part, "key/value down projection", x.Tn, kv_latent, x.h);
    if (x.t > 1 && x.sp) {
      Kernel g = coll(CollectiveKind::all_gather, x.T * (x.q_lora + kv_latent) * E);
      v.push_back(g);
    }
    v.push_back(mem(part, "query norm", 2.0 * E * x.T * x.q_lora));
    v.push_back(mem(part, "key/value norm", 2.0 * E * x.T * x.kv_lora));
    linear_fwd(v, x, part, "query up projection", x.T, q_width, x.q_lora);
  } else {
    region_entry_fwd(v, x);
    linear_fwd(v, x, part, "query projection", x.T, q_width, x.h);
    linear_fwd(v, x, part, "key/value down projection", x.T, kv_latent, x.h);
    v.push_back(mem(part, "key/value norm", 2.0 * E * x.T * x.kv_lora));
  }
  linear_fwd(v, x, part, "key/value up projection", x.T, kv_up, x.kv_lora);
  // Rotary positions on the queries' rope part and the one shared key part, then q and k assembled
  // per head (the shared rotary key copied to every head).
  v.push_back(mem(part, "rotary embedding", 2.0 * E * x.T * (x.heads_t + 1.0) * x.rope_d));
  v.push_back(mem(part, "q, k assembly", 4.0 * E * x.T * q_width));
}

// A parallel-residual layer, forward (GPT-J, PaLM, GPT-NeoX's gpt_j_residual): attention and
// MLP read the same input, normed once (or each by its own norm), and their row-parallel outputs
// are added before the one tensor-parallel reduction: x + reduce(attention(n1(x)) + mlp(n2(x))).
// With sequence parallelism the normed input is gathered once for both (twice with two norms).
void parallel_layer_fwd(std::vector<Kernel>& v, const Shape& x, Part part) {
  const double hq = context_width(x);
  const double mlp_out = x.swiglu ? 2.0 * x.f_t : x.f_t;
  norm_fwd(v, x, part, "input norm");
  if (x.two_norms) norm_fwd(v, x, part, "post-attention norm");
  attention_in_fwd(v, x, part);
  attention_core_fwd(v, x, part);
  linear_fwd(v, x, part, "attention output projection", x.T, x.h, hq);
  if (x.two_norms) region_entry_fwd(v, x);
  linear_fwd(v, x, part, mlp_up_op(x), x.T, mlp_out, x.h);
  activation_fwd(v, x, part);
  linear_fwd(v, x, part, "MLP down projection", x.T, x.h, x.f_t);
  v.push_back(mem(part, "parallel residual sum", 3.0 * E * x.T * x.h));  // attention + MLP partials
  region_exit_fwd(v, x);
  v.push_back(mem(part, residual_op(x), residual_fwd_bytes(x)));
}

void layer_fwd(std::vector<Kernel>& v, const Shape& x, Part part, bool moe = false) {
  if (x.parallel && !moe) {
    parallel_layer_fwd(v, x, part);
    return;
  }
  const double hq = context_width(x);
  const double mlp_out = x.swiglu ? 2.0 * x.f_t : x.f_t;
  norm_fwd(v, x, part, "input norm");
  attention_in_fwd(v, x, part);
  attention_core_fwd(v, x, part);
  linear_fwd(v, x, part, "attention output projection", x.T, x.h, hq);  // attention output projection
  row_parallel_exit_fwd(v, x, kUbAttnOutSms);
  v.push_back(mem(part, residual_op(x), residual_fwd_bytes(x)));
  norm_fwd(v, x, part, "post-attention norm");
  if (moe) {
    moe_fwd(v, x, part);
  } else {
    column_parallel_fwd(v, x, part, mlp_up_op(x), mlp_out);  // MLP up (and gate)
    activation_fwd(v, x, part);
    linear_fwd(v, x, part, "MLP down projection", x.T, x.h, x.f_t);  // MLP down
    row_parallel_exit_fwd(v, x, kUbMlpDownSms);
  }
  v.push_back(mem(part, residual_op(x), residual_fwd_bytes(x)));
}

// Weight gradient accumulation across micro-batches: a separate add per parameter tensor, or
// fused into the weight-gradient GEMM (which then reads and writes the fp32 buffer).
void accumulate(std::vector<Kernel>& v, const Shape& x, double params) {
  if (x.fused_accumulation) return;
  v.push_back(mem(Part::backward, "gradient accumulation", params * (2.0 * x.grad_bytes + E)));
}

// Data gradient then weight gradient of y = x W (W: k x n), for m rows; with a bias, its
// gradient is a reduction over the rows.
// In FP8 (`fp8`) the output gradient is cast (and transposed) first and both GEMMs run in FP8, the
// weight gradient from the input's transposed FP8 copy the forward pass kept.
void linear_bwd(std::vector<Kernel>& v, const Shape& x, const char* op, double m, double n, double k,
                bool with_bias, bool fp8 = false) {
  if (fp8) fp8_cast(v, Part::backward, m * n);
  Kernel d = gemm(Part::backward, op, m, k, n);    // dX = dY W^T
  d.fp8 = fp8;
  v.push_back(d);
  Kernel w = gemm(Part::backward, op, k, n, m);    // dW = X^T dY
  w.fp8 = fp8;
  if (x.fused_accumulation) w.bytes = 2.0 * x.grad_bytes * k * n;  // read-modify-write of the buffer
  v.push_back(w);
  accumulate(v, x, k * n);
  if (with_bias) {
    v.push_back(mem(Part::backward, op, E * m * n));
    accumulate(v, x, n);
  }
}

// A row-parallel layer's backward (y = x W, m rows, W: k x n), its output gradient all-gathered
// first: plain, or with userbuffers (the gather in a ring exchange beside the data-gradient GEMM).
void row_parallel_bwd(std::vector<Kernel>& v, const Shape& x, const char* op, double m, double n, double k,
                      bool with_bias) {
  if (!x.ub) {
    region_exit_bwd(v, x);
    linear_bwd(v, x, op, m, n, k, with_bias, x.fp8);
    return;
  }
  const int dgrad = static_cast<int>(v.size()) + (x.fp8 ? 2 : 0);
  linear_bwd(v, x, op, m, n, k, with_bias, x.fp8);
  split_rows(v[dgrad], x.t);
  v.insert(v.begin() + dgrad + 1, overlapped(CollectiveKind::all_gather, ub_bytes(x), dgrad, x.t));
}

// A column-parallel layer's backward and its input gradient's reduce-scatter (all-reduce):
// plain (asynchronous beside the weight gradient where tp_async_backward), or with userbuffers
// (the input all-gathered again beside the data gradient, the reduce-scatter beside the weight
// gradient, each on `*_sms` SMs taken from its GEMM).
void column_parallel_bwd(std::vector<Kernel>& v, const Shape& x, const char* op, double m, double n, double k,
                         bool with_bias, double dgrad_sms, double wgrad_sms) {
  const int dgrad = static_cast<int>(v.size()) + (x.fp8 ? 2 : 0);
  linear_bwd(v, x, op, m, n, k, with_bias, x.fp8);
  if (!x.ub) {
    region_entry_bwd(v, x, dgrad);
    return;
  }
  v[dgrad].sms_taken = dgrad_sms;
  v[dgrad + 1].sms_taken = wgrad_sms;
  v.insert(v.begin() + dgrad + 1, overlapped(CollectiveKind::all_gather, ub_bytes(x), dgrad, 0));
  v.push_back(overlapped(CollectiveKind::reduce_scatter, x.T * x.h * E, dgrad + 2, 0));
}

// Norm backward: input gradient, parameter gradient partials and their reduction, plus the
// residual stream's gradient add.
void norm_bwd(std::vector<Kernel>& v, const Shape& x, const char* op) {
  if (x.eager_norm) {
    for (double b : kEagerRmsNormBwd) v.push_back(mem(Part::backward, op, b * x.Tn * x.h));
  } else {
    v.push_back(mem(Part::backward, op, 3.0 * E * x.Tn * x.h));
    v.push_back(mem(Part::backward, op, E * x.Tn * x.h));
  }
  accumulate(v, x, (x.bias ? 2.0 : 1.0) * x.h);
  v.push_back(mem(Part::backward, op, 3.0 * E * x.Tn * x.h));
}

// The backward of an expert GEMM (grouped): data gradient, then weight gradient into the buffer.
void expert_linear_bwd(std::vector<Kernel>& v, const Shape& x, const char* op, double n, double k) {
  if (x.fp8) fp8_cast(v, Part::backward, x.rows * x.local_experts * n);
  v.push_back(expert_gemm(x, Part::backward, op, x.rows, k, n));  // dX = dY W^T
  Kernel w = expert_gemm(x, Part::backward, op, k, n, x.rows);    // dW = X^T dY, per expert
  w.model_flops = 2.0 * x.mean_rows * n * k * x.local_experts;
  if (x.fused_accumulation) w.bytes = 2.0 * x.grad_bytes * k * n * x.local_experts;
  v.push_back(w);
  accumulate(v, x, k * n * x.local_experts);
}

void moe_bwd(std::vector<Kernel>& v, const Shape& x) {
  const double copies = x.Tm * x.topk;
  const double expert_tokens = x.rows * x.local_experts;
  if (x.shared_f_t > 0) {
    const double out = x.swiglu ? 2.0 * x.shared_f_t : x.shared_f_t;
    region_exit_bwd(v, x);
    linear_bwd(v, x, "shared expert", x.T, x.h, x.shared_f_t, false, x.fp8);
    v.push_back(mem(Part::backward, "shared expert", (x.swiglu ? 5.0 : 3.0) * E * x.T * x.shared_f_t));
    const int dgrad = static_cast<int>(v.size());
    linear_bwd(v, x, "shared expert", x.T, out, x.h, false, x.fp8);
    region_entry_bwd(v, x, dgrad);
  }
  // the weighted sum's gradient: to each copy, and to the routing weights
  v.push_back(mem(Part::backward, "token unpermutation", E * (x.Tm * x.h + 2.0 * copies * x.h) + 4.0 * copies));
  if (x.ep > 1) v.push_back(coll_on(CommGroup::ep, CollectiveKind::all_to_all, x.a2a_bytes, "expert-parallel all-to-all"));
  if (x.etp > 1)
    v.push_back(coll_on(CommGroup::etp, CollectiveKind::all_gather, E * expert_tokens * x.h, "expert tensor-parallel collective"));
  expert_linear_bwd(v, x, "expert down projections", x.h, x.fe_t);
  v.push_back(mem(Part::backward, "expert activation", (x.swiglu ? 5.0 : 3.0) * E * expert_tokens * x.fe_t));
  expert_linear_bwd(v, x, "expert up projections", (x.swiglu ? 2.0 : 1.0) * x.fe_t, x.h);
  if (x.etp > 1)
    v.push_back(coll_on(CommGroup::etp, CollectiveKind::reduce_scatter, E * expert_tokens * x.h, "expert tensor-parallel collective"));
  if (x.ep > 1) v.push_back(coll_on(CommGroup::ep, CollectiveKind::all_to_all, x.a2a_bytes, "expert-parallel all-to-all"));
  v.push_back(mem(Part::backward, "token permutation", E * (copies * x.h + x.Tm * x.h)));
  v.push_back(mem(Part::backward, "router top-k", (E + 4.0 * 4.0) * x.Tm * x.experts));
  // the router's input and weight gradients
  v.push_back(gemm(Part::backward, "router", x.Tm, x.h, x.experts));
  Kernel w = gemm(Part::backward, "router", x.h, x.experts, x.Tm);
  if (x.fused_accumulation) w.bytes = 2.0 * x.grad_bytes * x.h * x.experts;
  v.push_back(w);
  accumulate(v, x, x.h * x.experts);
}


void attention_in_bwd(std::vector<Kernel>& v, const Shape& x) {
  if (!x.mla) {
    if (x.rope) rotary(v, x, Part::backward);
    column_parallel_bwd(v, x, "q, k, v projection", x.T, qkv_width(x), x.h, x.bias, kUbQkvDgradSms, kUbQkvWgradSms);
    return;
  }
  const double q_width = x.heads_t * (x.nope + x.rope_d), kv_up = x.heads_t * (x.nope + x.dv);
  const double kv_latent = x.kv_lora + x.rope_d;
  v.push_back(mem(Part::backward, "q, k assembly", 4.0 * E * x.T * q_width));
  v.push_back(mem(Part::backward, "rotary embedding", 2.0 * E * x.T * (x.heads_t + 1.0) * x.rope_d));
  linear_bwd(v, x, "key/value up projection", x.T, kv_up, x.kv_lora, false, x.fp8);
  if (x.q_lora > 0) {
    linear_bwd(v, x, "query up projection", x.T, q_width, x.q_lora, false, x.fp8);
    v.push_back(mem(Part::backward, "query norm", 3.0 * E * x.T * x.q_lora));
    v.push_back(mem(Part::backward, "key/value norm", 3.0 * E * x.T * x.kv_lora));
    // Each rank's latent gradients are partial sums over its heads.
    if (x.t > 1)
      v.push_back(coll(x.sp ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce,
                       x.T * (x.q_lora + kv_latent) * E));
    linear_bwd(v, x, "query down projection", x.Tn, x.q_lora, x.h, false, x.fp8);
    linear_bwd(v, x, "key/value down projection", x.Tn, kv_latent, x.h, false, x.fp8);
    v.push_back(mem(Part::backward, "key/value down projection", 3.0 * E * x.Tn * x.h));  // the two input gradients summed
  } else {
    v.push_back(mem(Part::backward, "key/value norm", 3.0 * E * x.T * x.kv_lora));
    const int dgrad = static_cast<int>(v.size());
    linear_bwd(v, x, "query projection", x.T, q_width, x.h, false, x.fp8);
    linear_bwd(v, x, "key/value down projection", x.T, kv_latent, x.h, false, x.fp8);
    v.push_back(mem(Part::backward, "key/value down projection", 3.0 * E * x.T * x.h));
    region_entry_bwd(v, x, dgrad);
  }
}

// Its backward: the output gradient gathered once (sequence parallelism) for both branches; each
// branch's column-parallel input gradient reduced on its own, as each is its own parallel region
// (GPT-NeoX); the two input gradients (through their norms) added into the residual stream's.
void parallel_layer_bwd(std::vector<Kernel>& v, const Shape& x) {
  const double hq = context_width(x);
  const double mlp_out = x.swiglu ? 2.0 * x.f_t : x.f_t;
  v.push_back(mem(Part::backward, residual_op(x), (2.0 * E + (x.bias ? 1.0 : 0.0)) * x.Tn * x.h));  // dropout
  region_exit_bwd(v, x);
  linear_bwd(v, x, "MLP down projection", x.T, x.h, x.f_t, x.bias, x.fp8);
  activation_bwd(v, x);
  column_parallel_bwd(v, x, mlp_up_op(x), x.T, mlp_out, x.h, x.bias, kUbMlpDgradSms, kUbMlpWgradSms);
  if (x.two_norms) norm_bwd(v, x, "post-attention norm");
  linear_bwd(v, x, "attention output projection", x.T, x.h, hq, x.bias, x.fp8);
  attention_core_bwd(v, x);
  attention_in_bwd(v, x);
  if (!x.two_norms) v.push_back(mem(Part::backward, "parallel residual sum", 3.0 * E * x.Tn * x.h));  // into the one norm
  norm_bwd(v, x, "input norm");
}

void layer_bwd(std::vector<Kernel>& v, const Shape& x, bool moe = false) {
  if (x.parallel && !moe) {
    parallel_layer_bwd(v, x);
    return;
  }
  const double hq = context_width(x);
  const double mlp_out = x.swiglu ? 2.0 * x.f_t : x.f_t;
  v.push_back(mem(Part::backward, residual_op(x), (2.0 * E + (x.bias ? 1.0 : 0.0)) * x.Tn * x.h));  // dropout
  if (moe) {
    moe_bwd(v, x);
  } else {
    row_parallel_bwd(v, x, "MLP down projection", x.T, x.h, x.f_t, x.bias);  // its bias lives in the fused add
    activation_bwd(v, x);
    column_parallel_bwd(v, x, mlp_up_op(x), x.T, mlp_out, x.h, x.bias, kUbMlpDgradSms, kUbMlpWgradSms);
  }
  norm_bwd(v, x, "post-attention norm");
  v.push_back(mem(Part::backward, residual_op(x), (2.0 * E + (x.bias ? 1.0 : 0.0)) * x.Tn * x.h));
  row_parallel_bwd(v, x, "attention output projection", x.T, x.h, hq, x.bias);
  attention_core_bwd(v, x);
  attention_in_bwd(v, x);
  norm_bwd(v, x, "input norm");
}

}  // namespace

LayerKernels build_kernels(const ModelConfig& m, const PlanConfig& p) {
  Shape x;
  x.b = p.micro_batch;
  x.s = m.seq_len;
  x.cp = p.cp;
  x.T = x.cp > 1 ? x.b * x.s / x.cp : x.b * x.s;
  x.t = p.tp;
  x.sp = p.sequence_parallel && p.tp > 1;
  x.Tn = x.sp ? x.T / x.t : x.T;
  x.h = m.hidden;
  x.dqk = qk_head_dim(m);
  x.dv = v_head_dim(m);
  x.mla = m.mla.has_value();
  x.q_lora = x.mla ? m.mla->q_lora_rank : 0.0;
  x.kv_lora = x.mla ? m.mla->kv_lora_rank : 0.0;
  x.nope = x.mla ? m.mla->qk_nope_head_dim : 0.0;
  x.rope_d = x.mla ? m.mla->qk_rope_head_dim : 0.0;
  x.heads_t = static_cast<double>(m.heads) / p.tp;
  // Fewer key/value heads than ranks: each rank computes a copy of the one its query heads use.
  x.kv_t = m.kv_heads >= p.tp ? static_cast<double>(m.kv_heads) / p.tp : 1.0;
  if (x.mla) x.kv_t = x.heads_t;  // latent attention expands keys and values to every head
  x.f_t = static_cast<double>(m.ffn_hidden) / p.tp;
  x.vocab_t = static_cast<double>(padded_vocab(m, p.tp)) / p.tp;
  x.grad_bytes = gradient_bytes(p);
  x.bias = m.bias;  // GPT-style models: biases and dropout; LLaMA-style ones neither
  x.swiglu = gated(m.mlp);  // SwiGLU or GeGLU: the same GEMMs and bytes
  x.geglu = m.mlp == Mlp::geglu;
  x.rope = m.position == PositionEmbedding::rope;
  x.rope_frac = m.rotary_fraction;
  x.eager = !p.fused_elementwise;
  x.eager_norm = x.eager && m.norm == Norm::rmsnorm;
  x.parallel = m.residual != Residual::sequential;
  x.two_norms = m.residual == Residual::parallel_two_norms;
  x.alibi = m.position == PositionEmbedding::alibi;
  x.flash = fused_attention(p.attention);
  x.triton = p.attention == Attention::triton;
  x.gqa = m.kv_heads != m.heads && !x.mla;
  x.fused_accumulation = p.grad_accumulation_fusion;
  x.fp8 = p.precision == Precision::fp8;
  x.async_backward = p.tp_async_backward && !p.launch_blocking;  // a blocking launch overlaps nothing
  x.ub = p.tp_comm_overlap && x.sp && !p.launch_blocking;
  // Megatron's fused causal softmax needs 16 < s <= 16384 (2048 before 2022; the calibration runs'
  // sequences are within both), s % 4 == 0 and (batch x local heads) a multiple of the 4 attention
  // rows one thread block handles; otherwise PyTorch's kernels run.
  const long long attn_batches = static_cast<long long>(p.micro_batch) * (m.heads / p.tp);
  x.fused_softmax = m.seq_len > 16 && m.seq_len <= 16384 && m.seq_len % 4 == 0 && attn_batches % 4 == 0;

  LayerKernels lk;
  layer_fwd(lk.layer_fwd, x, Part::forward);
  layer_bwd(lk.layer_bwd, x);
  if (p.recompute == Recompute::full) {
    layer_fwd(lk.layer_recompute, x, Part::recompute);
  } else if (p.recompute == Recompute::selective && !x.flash) {
    attention_core_fwd(lk.layer_recompute, x, Part::recompute);
  }
  if (is_moe(m)) {
    const MoeConfig& e = m.moe;
    x.Tm = x.T / p.tp;
    x.experts = e.experts;
    x.topk = e.experts_per_token;
    x.ep = p.ep;
    x.etp = expert_tp(p);
    x.permute_sync = p.moe_permute_sync;
    x.local_experts = static_cast<double>(e.experts) / p.ep;
    x.fe_t = static_cast<double>(e.expert_ffn_hidden) / x.etp;
    x.shared_f_t = shared_expert_width(m) / p.tp;
    x.sigmoid = e.router == Router::sigmoid;
    const MoeLoad load = moe_load(m, p);
    x.mean_rows = load.mean_rows;
    lk.load_imbalance = load.imbalance;
    x.rows = load.rows;
    x.a2a_bytes = load.dispatch_bytes;
    lk.dispatch_bytes = x.ep > 1 ? x.a2a_bytes : 0.0;
    lk.expert_rows = x.rows;
    layer_fwd(lk.moe_fwd, x, Part::forward, true);
    layer_bwd(lk.moe_bwd, x, true);
    if (p.recompute == Recompute::full) {
      layer_fwd(lk.moe_recompute, x, Part::recompute, true);
    } else if (p.recompute == Recompute::selective && !x.flash) {
      attention_core_fwd(lk.moe_recompute, x, Part::recompute);
    }
  }

  // Embedding: vocabulary-parallel lookup, position add, dropout.
  lk.embed_fwd.push_back(mem(Part::forward, "token embedding lookup", 2.0 * E * x.T * x.h));
  if (x.t > 1) {
    lk.embed_fwd.push_back(
        coll(x.sp ? CollectiveKind::reduce_scatter : CollectiveKind::all_reduce, x.T * x.h * E));
  }
  if (m.position == PositionEmbedding::learned) lk.embed_fwd.push_back(mem(Part::forward, "position embedding add", 3.0 * E * x.Tn * x.h));
  if (x.bias) lk.embed_fwd.push_back(mem(Part::forward, "embedding dropout", (2.0 * E + 1.0) * x.Tn * x.h));
  if (x.sp) lk.embed_bwd.push_back(coll(CollectiveKind::all_gather, x.T * x.h * E));
  lk.embed_bwd.push_back(mem(Part::backward, "token embedding lookup", (E + 2.0 * x.grad_bytes) * x.T * x.h));  // scatter-add rows
  accumulate(lk.embed_bwd, x, x.vocab_t * x.h);

  // Head: final norm, logits against the (padded, vocabulary-parallel) output matrix, loss.
  norm_fwd(lk.head_fwd, x, Part::forward, "final norm");
  region_entry_fwd(lk.head_fwd, x);
  lk.head_fwd.push_back(gemm(Part::forward, "logits projection", x.T, x.vocab_t, x.h));
  // Megatron's vocabulary-parallel cross-entropy over the local shard, one pass per step in fp32:
  // cast, max, subtract the max, exp, sum, divide (the softmax is kept for the backward).
  const double logits = x.T * x.vocab_t;
  for (const double bytes : {E + 4.0, 4.0, 8.0, 8.0, 4.0, 8.0})
    lk.head_fwd.push_back(mem(Part::forward, "cross-entropy loss", bytes * logits));
  if (x.t > 1)
    for (int i = 0; i < 3; ++i) lk.head_fwd.push_back(coll(CollectiveKind::all_reduce, 4.0 * x.T));
  // softmax - one-hot, scaled by the loss gradient in place, then back to 16 bits
  lk.head_bwd.push_back(mem(Part::backward, "cross-entropy loss", 8.0 * logits));
  lk.head_bwd.push_back(mem(Part::backward, "cross-entropy loss", (4.0 + E) * logits));
  const int head_dgrad = static_cast<int>(lk.head_bwd.size());
  linear_bwd(lk.head_bwd, x, "logits projection", x.T, x.vocab_t, x.h, false);
  region_entry_bwd(lk.head_bwd, x, head_dgrad);  // the logits layer is column-parallel too
  norm_bwd(lk.head_bwd, x, "final norm");
  return lk;
}

double expected_max_normal(int n) {
  static const double table[] = {0.0, 0.0, 0.5642, 0.8463, 1.0294, 1.1630, 1.2672, 1.3522, 1.4236};
  if (n <= 8) return table[std::max(n, 0)];
  // The asymptotic expansion (extreme-value theory, with Euler's constant): above the exact
  // expectation by 0.095 at 9 draws, 0.055 at 64, 0.030 at 1,024 and 0.020 at 16,384. The bundled
  // profiles were fitted with it (collective_sync_us of tensor-parallel groups of 16).
  const double l = std::log(static_cast<double>(n));
  const double a = std::sqrt(2 * l);
  return a - (std::log(l) + std::log(4 * 3.141592653589793)) / (2 * a) + 0.5772 / a;
}

double expert_load_factor(const MoeConfig& moe, int ranks, double tokens) {
  // Capacity: every expert's buffer is padded to capacity_factor x the mean load (tokens past it
  // are dropped), so every rank sends and computes that much.
  if (moe.capacity_factor > 0) return moe.capacity_factor;
  if (ranks <= 1 || tokens <= 0) return 1.0;
  // Dropless: the copies land on the ranks as a balanced router's random choices would (a
  // binomial count per rank); the busiest rank, which every all-to-all waits for, takes the mean
  // plus z(ranks) standard deviations.
  const double share = 1.0 / ranks;
  const double mean = tokens * share;
  return 1.0 + expected_max_normal(ranks) * std::sqrt(tokens * share * (1 - share)) / mean;
}

MoeLoad moe_load(const ModelConfig& m, const PlanConfig& p) {
  MoeLoad l;
  if (!is_moe(m)) return l;
  const MoeConfig& e = m.moe;
  const double etp = expert_tp(p);
  l.router_tokens = static_cast<double>(p.micro_batch) * m.seq_len / p.cp / p.tp;
  // An expert-parallel group's etp x ep ranks route their tokens to k experts each; a rank's
  // experts take the copies of its etp group's tokens sent to them.
  const double group_copies = l.router_tokens * etp * p.ep * e.experts_per_token;
  l.mean_rows = group_copies / e.experts;
  l.imbalance = expert_load_factor(e, p.ep, group_copies);
  l.rows = l.mean_rows * l.imbalance;
  l.dispatch_bytes = E * l.router_tokens * e.experts_per_token * m.hidden * l.imbalance;
  return l;
}

double gemm_s(const Profile& prof, double m, double n, double k, double batch, double extra_bytes, bool fp8,
              TimeSource* source) {
  if (!fp8 && prof.operator_lookup) {
    // A measured shape's time (the kernel's extra traffic, e.g. a fused gradient accumulation,
    // runs under its compute and is not added). The measured table holds 16-bit GEMMs.
    double measured = 0;
    TimeSource from = TimeSource::modelled;
    if (table_time(*prof.operator_lookup, MeasuredOp::gemm, m, n, k, batch, measured, from)) {
      if (source) *source = from;
      return measured;
    }
  }
  const double sms = prof.sm_count;
  // FP8 GEMMs reach their own fraction of the FP8 peak (the 16-bit one's where the profile gives none).
  const double efficiency =
      fp8 && prof.fp8_gemm_efficiency > 0 ? prof.fp8_gemm_efficiency : prof.gemm_max_efficiency;
  const double peak = (fp8 ? prof.peak_fp8_tflops : prof.peak_fp16_tflops) * 1e12 * efficiency;
  const double hbm = prof.hbm_GBps * 1e9 * prof.memory_efficiency;
  const double overhead = prof.kernel_overhead_us * 1e-6;
  const double in_bytes = fp8 ? 1.0 : E;  // inputs; the output is 16-bit either way
  const double traffic = ((in_bytes * (m * k + k * n) + E * m * n) * batch + extra_bytes) / hbm;
  // The fastest tile and split of the reduction, counting the split's own cost: when the output
  // alone cannot fill the GPU, cuBLAS splits K and a second kernel sums the fp32 partial products.
  double best = 0;
  for (const GemmTile& tile : prof.gemm_tiles) {
    const double tiles_m = std::ceil(m / tile.m);
    const double tiles_n = std::ceil(n / tile.n);
    const double fill = (m * n) / (tiles_m * tile.m * tiles_n * tile.n);
    for (double split = 1; split <= 8; split *= 2) {
      const double k_part = k / split;
      if (split > 1 && k_part < 256) break;
      const double tiles = tiles_m * tiles_n * batch * split;
      const double waves = std::ceil(tiles / sms);
      const double wave_fill = tiles / (waves * sms);
      const double k_eff = k_part / (k_part + prof.gemm_k_half);
      const double eff = tile.efficiency * fill * wave_fill * k_eff;
      double t = std::max(2.0 * m * n * k * batch / (peak * eff), traffic) + overhead;
      if (split > 1) t += (split * 4.0 + E) * m * n * batch / hbm + overhead;
      if (best == 0 || t < best) best = t;
    }
  }
  return best;
}

namespace {

double kernel_s(const Kernel& k, const Profile& prof, const Fabric& fabric, const PlanGroups& groups, const RingPlace& ring,
                TimeSource& source) {
  source = TimeSource::modelled;
  if (prof.operator_lookup && k.kind != KernelKind::gemm && k.kind != KernelKind::collective &&
      k.kind != KernelKind::ring_p2p) {
    double measured = 0;
    const bool found =
        k.kind == KernelKind::memory
            ? table_memory_time(*prof.operator_lookup, k.bytes, measured, source)
            : table_time(*prof.operator_lookup,
                         k.kind == KernelKind::attention_fwd ? MeasuredOp::attention_fwd : MeasuredOp::attention_bwd,
                         k.m, k.n, k.k, k.batch, measured, source);
    if (found) return measured;
  }
  const double overhead = prof.kernel_overhead_us * 1e-6;
  const double hbm = prof.hbm_GBps * 1e9 * prof.memory_efficiency;
  const double peak = prof.peak_fp16_tflops * 1e12;
  switch (k.kind) {
    case KernelKind::gemm: {
      const double t = gemm_s(prof, k.m, k.n, k.k, k.batch, k.bytes, k.fp8, &source);
      // SMs given to a collective beside it: the GEMM's waves run on the rest.
      return k.sms_taken > 0 && k.sms_taken < prof.sm_count ? t * prof.sm_count / (prof.sm_count - k.sms_taken) : t;
    }
    case KernelKind::attention_fwd:
      return std::max(k.work_flops / (peak * prof.attention_fwd_efficiency * k.speed), k.bytes / hbm) + overhead;
    case KernelKind::attention_bwd:
      return std::max(k.work_flops / (peak * prof.attention_bwd_efficiency * k.speed), k.bytes / hbm) + overhead;
    case KernelKind::memory: return k.bytes / hbm + overhead;
    case KernelKind::collective:
      return collective_s(prof, fabric,
                          k.group == CommGroup::ep ? groups.ep : k.group == CommGroup::etp ? groups.etp : groups.tp,
                          k.collective, k.comm_bytes);
    case KernelKind::ring_p2p:
      // Every rank sends to the next at once; the step takes as long as its slowest hop.
      return p2p_s(prof, fabric, ring.same_node, k.comm_bytes, ring.node_distance, ring.job_nodes);
  }
  return 0;
}

void time_all(std::vector<Kernel>& ks, const Profile& prof, const Fabric& f, const PlanGroups& groups, const RingPlace& ring) {
  for (Kernel& k : ks) k.time_s = kernel_s(k, prof, f, groups, ring, k.source);
  for (size_t i = 0; i < ks.size(); ++i) {
    if (ks[i].beside_from < 0) continue;
    double beside = 0;
    for (size_t j = ks[i].beside_from; j < i; ++j) beside += ks[j].time_s;
    const double alone = ks[i].time_s;
    ks[i].time_s = std::max(0.0, alone - beside);
    // In chunks, the first (or last) chunk of the shorter of the two runs alone.
    if (ks[i].overlap_chunks > 0) ks[i].time_s += std::min(alone, beside) / ks[i].overlap_chunks;
  }
}

}  // namespace

void time_kernels(LayerKernels& lk, const Profile& prof, const Fabric& fabric, const PlanGroups& groups,
                  const RingPlace& ring) {
  for (auto* v : {&lk.layer_fwd, &lk.layer_bwd, &lk.layer_recompute, &lk.moe_fwd, &lk.moe_bwd, &lk.moe_recompute,
                  &lk.embed_fwd, &lk.embed_bwd, &lk.head_fwd, &lk.head_bwd})
    time_all(*v, prof, fabric, groups, ring);
}

RingPlace cp_ring(const PlanConfig& p, const GroupShape& cp_group, long long ranks, int gpus_per_node) {
  RingPlace r;
  if (p.cp <= 1 || cp_group.nodes <= 1) return r;
  r.same_node = false;
  // Ring neighbours lie tp ranks apart: a node or more when tp fills nodes, else the next node.
  r.node_distance = std::max<long long>(1, p.tp / std::max(1, gpus_per_node));
  r.job_nodes = (ranks + gpus_per_node - 1) / gpus_per_node;
  return r;
}

double sum_model_flops(const std::vector<Kernel>& ks) {
  double s = 0;
  for (const Kernel& k : ks) s += k.model_flops;
  return s;
}

}  // namespace vtrain::detail
