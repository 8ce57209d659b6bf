#pragma once
// The fields of the explore and compute-optimal requests, written once (as model/fields.hpp does
// for a config's sections): their readers and the schema (api::schema) walk these lists. A list
// calls v.field(key, member[, bounds]) for one value and v.list(key, member[, bounds]) for a value
// or an array of them.

#include "common/json_reader.hpp"
#include "vtrain/config.hpp"
#include "vtrain/explore.hpp"
#include "vtrain/scaling.hpp"

namespace vtrain::detail {

// /explore: the space to sweep (a list left out is every valid value) and how to rank it.
template <class V, class O>
void explore_option_fields(V& v, O& o) {
  v.list("tp", o.tp, IntBounds{1, limits::tp});
  v.field("tp_across_nodes", o.tp_across_nodes);
  v.list("pp", o.pp, IntBounds{1, limits::pp});
  v.list("virtual_stages", o.virtual_stages, IntBounds{1, limits::virtual_stages});
  v.list("dp", o.dp, IntBounds{1, limits::dp});
  v.list("cp", o.cp, IntBounds{1, limits::cp});
  v.list("micro_batch", o.micro_batch, IntBounds{1, limits::micro_batch});
  v.list("recompute", o.recompute);
  v.list("sequence_parallel", o.sequence_parallel);
  v.list("zero_stage", o.zero_stage, IntBounds{0, 3});
  v.list("shard_group", o.shard_group, IntBounds{0, limits::dp});
  v.list("ep", o.ep, IntBounds{1, limits::experts});
  v.list("etp", o.etp, IntBounds{0, limits::tp});
  v.field("objective", o.objective);
  v.field("deadline_days", o.deadline_days, RealBounds{0.0, limits::deadline_days, true});
  v.field("simulate_unfit", o.simulate_unfit);
  v.field("max_plans", o.max_plans, IntBounds{1, limits::max_plans});
  v.field("max_blocks", o.max_blocks, RealBounds{0.0, limits::max_blocks, true});
}

// The keys of /explore a compute-optimal request may restrict: the rest is chosen per candidate.
inline bool candidate_space_key(std::string_view key) {
  return key == "tp" || key == "tp_across_nodes" || key == "virtual_stages" || key == "micro_batch" ||
         key == "recompute" || key == "objective";
}

// Passes on only the fields `keep` accepts: a reader given it leaves the others unknown keys.
template <class V, class Keep>
struct OnlyFields {
  V& v;
  Keep keep;
  template <class... A>
  void field(const char* key, A&&... a) {
    if (keep(key)) v.field(key, a...);
  }
  template <class... A>
  void list(const char* key, A&&... a) {
    if (keep(key)) v.list(key, a...);
  }
};
template <class V, class Keep>
OnlyFields(V&, Keep) -> OnlyFields<V, Keep>;

// A compute-optimal request's /budget, as given: one amount (days beside usd or gpu_hours being a
// deadline).
struct BudgetAmounts {
  double days = 0;       // wall-clock days on the cluster (days)
  double gpu_days = 0;   // GPU-days, spent on every GPU of the cluster (GPU-days)
  double usd = 0;        // dollars at the cluster's price (USD)
  double gpu_hours = 0;  // GPU-hours at the cluster's price (GPU-hours)
  double flops = 0;      // FLOPs at the GPUs' peak (FLOP)
};

template <class V, class B>
void budget_fields(V& v, B& b) {
  v.field("days", b.days, RealBounds{0.0, limits::budget_days, true});
  v.field("gpu_days", b.gpu_days, RealBounds{0.0, limits::budget_gpu_days, true});
  v.field("usd", b.usd, RealBounds{0.0, limits::budget_usd, true});
  v.field("gpu_hours", b.gpu_hours, RealBounds{0.0, limits::budget_gpu_hours, true});
  v.field("flops", b.flops, RealBounds{0.0, limits::budget_flops, true});
}

// The top-level numbers and choices of a compute-optimal request.
template <class V, class R>
void optimal_request_fields(V& v, R& r) {
  v.field("seq_len", r.seq_len, IntBounds{1, limits::optimal_seq_len});
  v.field("global_batch", r.global_batch, IntBounds{1, limits::optimal_global_batch});
  v.field("family", r.family);
}

// /scaling given as {"E", "A", "B", "alpha", "beta"}.
template <class V, class F>
void scaling_fit_fields(V& v, F& f) {
  v.field("E", f.E, RealBounds{0.0, limits::fit_E});
  v.field("A", f.A, RealBounds{0.0, limits::fit_A, true});
  v.field("B", f.B, RealBounds{0.0, limits::fit_B, true});
  v.field("alpha", f.alpha, RealBounds{0.0, limits::fit_exponent, true});
  v.field("beta", f.beta, RealBounds{0.0, limits::fit_exponent, true});
}

// /candidates: the range of model sizes (0: around the FLOP-only optimum).
template <class V, class R>
void candidate_fields(V& v, R& r) {
  v.field("min_params", r.min_params, RealBounds{0.0, limits::params});
  v.field("max_params", r.max_params, RealBounds{0.0, limits::params});
}

}  // namespace vtrain::detail
