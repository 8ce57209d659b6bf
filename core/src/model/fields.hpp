#pragma once
// Every field of a config's sections, written once: its JSON key, its member and, for a number,
// its bounds. The section readers, the writer (to_json) and the schema (api::schema) walk these
// lists, so that a key or a bound cannot differ between them. A list calls v.field(key, member)
// or v.field(key, member, bounds) for each field, in the order the reader reads them; `M` is the
// section, or the const section for a writer.

#include "common/json_reader.hpp"
#include "vtrain/config.hpp"

namespace vtrain::detail {

// Reads section `s` at `pointer` through its field list `fields` (a callable (v, s) that walks
// it); a key the list does not name is an error.
template <class S, class Fields>
void read_section(const nlohmann::json* j, const char* pointer, S& s, Diagnostics& errors, Fields fields) {
  ObjectReader r(j, pointer, errors);
  FieldReader reader{r};
  fields(reader, s);
  r.finish();
}

// Section `s` as a JSON object, every field of its list explicit.
template <class S, class Fields>
nlohmann::json section_json(const S& s, Fields fields) {
  nlohmann::json j = nlohmann::json::object();
  FieldWriter writer{j};
  fields(writer, s);
  return j;
}

template <class V, class M>
void model_fields(V& v, M& m) {
  v.field("name", m.name);
  v.field("layers", m.layers, IntBounds{1, limits::layers});
  v.field("hidden", m.hidden, IntBounds{1, limits::hidden});
  v.field("heads", m.heads, IntBounds{1, limits::heads});
  v.field("kv_heads", m.kv_heads, IntBounds{1, limits::heads});
  v.field("head_dim", m.head_dim, IntBounds{0, limits::head_dim});
  v.field("seq_len", m.seq_len, IntBounds{1, limits::seq_len});
  v.field("vocab", m.vocab, IntBounds{1, limits::vocab});
  v.field("ffn_hidden", m.ffn_hidden, IntBounds{1, limits::ffn_hidden});
  v.field("mlp", m.mlp);
  v.field("residual", m.residual);
  v.field("tied_embeddings", m.tied_embeddings);
  v.field("norm", m.norm);
  v.field("position", m.position);
  v.field("rotary_fraction", m.rotary_fraction, RealBounds{0.0, 1.0, true});
  v.field("bias", m.bias);
  v.field("vocab_pad_multiple", m.vocab_pad_multiple, IntBounds{1, limits::vocab_pad_multiple});
}

// /model/moe's members (present only for a mixture-of-experts model).
template <class V, class M>
void moe_fields(V& v, M& e) {
  v.field("experts", e.experts, IntBounds{1, limits::experts});
  v.field("experts_per_token", e.experts_per_token, IntBounds{1, limits::experts});
  v.field("expert_ffn_hidden", e.expert_ffn_hidden, IntBounds{1, limits::ffn_hidden});
  v.field("shared_experts", e.shared_experts, IntBounds{0, limits::experts});
  v.field("shared_expert_ffn_hidden", e.shared_expert_ffn_hidden, IntBounds{0, limits::ffn_hidden});
  v.field("first_dense_layers", e.first_dense_layers, IntBounds{0, limits::layers});
  v.field("layer_frequency", e.layer_frequency, IntBounds{1, limits::layers});
  v.field("router", e.router);
  v.field("capacity_factor", e.capacity_factor, RealBounds{0.0, limits::capacity_factor});
}

// /model/mla, an object of its own (absent or null: no latent attention).
template <class V, class A>
void mla_fields(V& v, A& a) {
  v.field("q_lora_rank", a.q_lora_rank, IntBounds{0, limits::lora_rank});
  v.field("kv_lora_rank", a.kv_lora_rank, IntBounds{1, limits::lora_rank});
  v.field("qk_nope_head_dim", a.qk_nope_head_dim, IntBounds{0, limits::head_dim});
  v.field("qk_rope_head_dim", a.qk_rope_head_dim, IntBounds{0, limits::head_dim});
  v.field("v_head_dim", a.v_head_dim, IntBounds{1, limits::head_dim});
}

template <class V, class C>
void cluster_fields(V& v, C& c) {
  v.field("gpu", c.gpu);
  v.field("num_gpus", c.num_gpus, IntBounds{1, limits::num_gpus});
  v.field("gpus_per_node", c.gpus_per_node, IntBounds{1, limits::gpus_per_node});
  v.field("intra_node_GBps", c.intra_node_GBps, RealBounds{limits::min_intra_node_GBps, limits::intra_node_GBps});
  v.field("inter_node_Gbps", c.inter_node_Gbps, RealBounds{limits::min_inter_node_Gbps, limits::inter_node_Gbps});
  v.field("price_per_gpu_hour_usd", c.price_per_gpu_hour_usd, RealBounds{0.0, limits::price_per_gpu_hour_usd});
  v.field("gpu_speed_spread", c.gpu_speed_spread, RealBounds{0.0, limits::gpu_speed_spread});
}

template <class V, class N>
void network_fields(V& v, N& n) {
  v.field("topology", n.topology);
  v.field("nodes_per_leaf", n.nodes_per_leaf, IntBounds{1, limits::nodes_per_leaf});
  v.field("nodes_per_pod", n.nodes_per_pod, IntBounds{1, limits::nodes_per_pod});
  v.field("oversubscription", n.oversubscription, RealBounds{1.0, limits::oversubscription});
  v.field("core_oversubscription", n.core_oversubscription, RealBounds{1.0, limits::oversubscription});
  v.field("hop_latency_us", n.hop_latency_us, RealBounds{0.0, limits::hop_latency_us});
  v.field("sharp", n.sharp);
  v.field("algorithm", n.algorithm);
}

template <class V, class P>
void plan_fields(V& v, P& p) {
  v.field("tp", p.tp, IntBounds{1, limits::tp});
  v.field("pp", p.pp, IntBounds{1, limits::pp});
  v.field("dp", p.dp, IntBounds{1, limits::dp});
  v.field("cp", p.cp, IntBounds{1, limits::cp});
  v.field("micro_batch", p.micro_batch, IntBounds{1, limits::micro_batch});
  v.field("global_batch", p.global_batch, IntBounds{1, limits::global_batch});
  v.field("recompute", p.recompute);
  v.field("sequence_parallel", p.sequence_parallel);
  v.field("virtual_stages", p.virtual_stages, IntBounds{1, limits::virtual_stages});
  v.sequence("stage_layers", p.stage_layers, IntBounds{0, limits::layers});
  v.field("embedding_as_layer", p.embedding_as_layer);
  v.field("head_as_layer", p.head_as_layer);
  v.field("zero_stage", p.zero_stage, IntBounds{0, 3});
  v.field("zero_all_reduce", p.zero_all_reduce);
  v.field("dp_overlap", p.dp_overlap);
  v.field("attention", p.attention);
  v.field("precision", p.precision);
  v.field("placement", p.placement);
  v.field("p2p_overlap", p.p2p_overlap);
  v.field("grad_accumulation_fusion", p.grad_accumulation_fusion);
  v.field("tp_async_backward", p.tp_async_backward);
  v.field("tp_comm_overlap", p.tp_comm_overlap);
  v.field("fused_elementwise", p.fused_elementwise);
  v.field("launch_blocking", p.launch_blocking);
  v.field("shard_group", p.shard_group, IntBounds{0, limits::dp});
  v.field("shard_prefetch", p.shard_prefetch);
  v.field("reshard_after_forward", p.reshard_after_forward);
  v.field("recompute_gather", p.recompute_gather);
  v.field("shard_flat_ring", p.shard_flat_ring);
  v.field("shard_device_sync", p.shard_device_sync);
  v.field("optimizer_offload", p.optimizer_offload);
  v.field("ep", p.ep, IntBounds{1, limits::experts});
  v.field("etp", p.etp, IntBounds{0, limits::tp});
  v.field("moe_permute_sync", p.moe_permute_sync);
  v.field("grad_reduce_fp32", p.grad_reduce_fp32);
}

template <class V, class T>
void training_fields(V& v, T& t) {
  v.field("tokens", t.tokens, RealBounds{0.0, limits::tokens});
}

template <class V, class R>
void reliability_fields(V& v, R& r) {
  v.field("failures_per_gpu_hour", r.failures_per_gpu_hour, RealBounds{0.0, limits::failures_per_gpu_hour});
  v.field("node_mtbf_hours", r.node_mtbf_hours, RealBounds{0.0, limits::node_mtbf_hours});
  v.field("restart_minutes", r.restart_minutes, RealBounds{0.0, limits::restart_minutes});
  v.field("checkpoint_GB", r.checkpoint_GB, RealBounds{0.0, limits::checkpoint_GB});
  v.field("storage_GBps", r.storage_GBps, RealBounds{0.0, limits::storage_GBps, true});
  v.field("checkpoint_interval_minutes", r.checkpoint_interval_minutes,
          RealBounds{0.0, limits::checkpoint_interval_minutes});
}

template <class V, class O>
void output_fields(V& v, O& o) {
  v.field("timeline", o.timeline);
  v.field("operators", o.operators);
}

}  // namespace vtrain::detail
