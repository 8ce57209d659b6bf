#include "vtrain/config.hpp"

#include <limits>

#include <nlohmann/json.hpp>

#include "model/fields.hpp"
#include "model/sections.hpp"
#include "vtrain/model.hpp"

namespace vtrain {

using nlohmann::json;
using detail::ObjectReader;

namespace detail {

void read_cluster(const json* j, ClusterConfig& c, Diagnostics& errors) {
  ObjectReader r(j, "/cluster", errors);
  FieldReader reader{r};
  cluster_fields(reader, c);
  read_section(r.child("network"), "/cluster/network", c.network, errors,
               [](auto& v, auto& s) { network_fields(v, s); });
  r.finish();
}

void read_training(const json* j, TrainingConfig& t, Diagnostics& errors) {
  read_section(j, "/training", t, errors, [](auto& v, auto& s) { training_fields(v, s); });
}

void read_reliability(const json* j, ReliabilityConfig& r, Diagnostics& errors) {
  read_section(j, "/reliability", r, errors, [](auto& v, auto& s) { reliability_fields(v, s); });
}

void read_output(const json* j, OutputOptions& o, Diagnostics& errors) {
  read_section(j, "/output", o, errors, [](auto& v, auto& s) { output_fields(v, s); });
}

void read_description(ObjectReader& top, std::string& out, Diagnostics& errors) {
  top.read("description", out);
  if (out.size() > limits::description_chars)
    errors.push_back(make_diagnostic("range", "/description",
                                     "must be at most " + std::to_string(limits::description_chars) +
                                         " bytes long, got " + std::to_string(out.size())));
}

}  // namespace detail

Outcome<ClusterConfig> parse_cluster_config(const json& j) { return detail::parse_section(j, &detail::read_cluster); }

Outcome<SimConfig> parse_sim_config(const json& j) {
  Diagnostics errors;
  SimConfig c;
  if (!j.is_object()) return Outcome<SimConfig>::fail("type", "", "/: the config must be a JSON object");
  ObjectReader top(&j, "", errors);
  detail::read_description(top, c.description, errors);
  const json* model = top.child("model");
  if (!model) {
    errors.push_back(make_diagnostic("missing", "/model", "is required (a preset name or an object)"));
  } else {
    detail::read_model(model, c.model, errors);
  }
  const json* cluster = top.child("cluster");
  const json* plan = top.child("plan");
  if (!plan) errors.push_back(make_diagnostic("missing", "/plan", "is required"));
  detail::read_cluster(cluster, c.cluster, errors);
  // Defaults that follow from other fields: a plan without num_gpus uses tp*cp*pp*dp GPUs.
  detail::read_plan(plan, c.plan, errors);
  if (!cluster || !cluster->contains("num_gpus")) {
    // Past the bound, the rules below report the plan's degrees, not this field the input never gave.
    const long long gpus = plan_gpus(c.plan);
    c.cluster.num_gpus = gpus <= limits::num_gpus ? static_cast<int>(gpus) : 0;
  }
  detail::read_training(top.child("training"), c.training, errors);
  detail::read_reliability(top.child("reliability"), c.reliability, errors);
  detail::read_output(top.child("output"), c.output, errors);
  top.finish();
  if (!errors.empty()) return errors;
  Diagnostics rules = check_sim_config(c);
  detail::explain_plan_defaults(rules, plan);
  if (!rules.empty()) return rules;
  return c;
}

// The expert layers' plan (docs/moe.md). Megatron-Core regroups each pipeline stage's tp x dp GPUs
// (x cp, where context parallelism is used) as etp x ep x edp for the expert layers: the world size
// over pp must be divisible by etp x ep.
static void check_expert_plan(const ModelConfig& m, const PlanConfig& p, Diagnostics& e) {
  auto add = [&](const char* code, const char* pointer, const std::string& rule) {
    e.push_back(make_diagnostic(code, pointer, rule));
  };
  if (!is_moe(m)) {
    if (p.ep > 1) add("range", "/plan/ep", "must be 1 for a dense model: expert parallelism splits the experts of /model/moe, which it has none of");
    if (p.etp > 0 && p.etp != p.tp)
      add("range", "/plan/etp", "must be 0 (or /plan/tp) for a dense model: it has no expert layers (/model/moe)");
    return;
  }
  const MoeConfig& x = m.moe;
  const long long etp = expert_tp(p);
  if (x.experts % p.ep != 0)
    add("divisibility", "/plan/ep",
        "must divide /model/moe/experts (" + std::to_string(x.experts) + "): each expert-parallel rank holds experts / ep of them");
  const long long stage_gpus = static_cast<long long>(p.tp) * p.cp * p.dp;
  if (stage_gpus % (etp * p.ep) != 0)
    add("divisibility", "/plan/ep",
        "times the expert tensor-parallel degree (/plan/etp, or /plan/tp: " + std::to_string(etp) +
            ") must divide /plan/tp x /plan/cp x /plan/dp (" + std::to_string(stage_gpus) +
            "): Megatron-Core carves the expert layers' etp x ep x edp grid out of each pipeline stage's GPUs");
  if (x.expert_ffn_hidden % etp != 0)
    add("divisibility", p.etp > 0 ? "/plan/etp" : "/plan/tp",
        std::string(p.etp > 0 ? "" : "(the expert tensor-parallel degree when /plan/etp is 0) ") +
            "must divide /model/moe/expert_ffn_hidden (" + std::to_string(x.expert_ffn_hidden) + ")");
  if (x.shared_experts > 0 && static_cast<long long>(shared_expert_width(m)) % p.tp != 0)
    add("divisibility", "/plan/tp",
        "must divide the shared experts' width (/model/moe/shared_experts x their width: " +
            detail::describe_number(shared_expert_width(m)) + "): they are split as the dense layers' MLP is");
  if (p.zero_stage == 3 && p.shard_group > 1 && p.shard_group < p.dp)
    add("range", "/plan/shard_group",
        "hybrid sharding (a group smaller than /plan/dp, " + std::to_string(p.dp) +
            ") is not modelled for a mixture of experts with /plan/zero_stage 3: leave it 0 to shard over all of dp");
}

Diagnostics check_sim_config(const SimConfig& c) {
  Diagnostics e = check_model(c.model);
  auto add = [&](const char* code, const char* pointer, const std::string& rule) {
    e.push_back(make_diagnostic(code, pointer, rule));
  };
  const ModelConfig& m = c.model;
  const PlanConfig& p = c.plan;
  if (m.heads % p.tp != 0)
    add("divisibility", "/plan/tp", "must divide /model/heads (" + std::to_string(m.heads) + ")");
  else if (m.kv_heads % p.tp != 0 && p.tp % m.kv_heads != 0)
    add("divisibility", "/plan/tp",
        "must divide /model/kv_heads (" + std::to_string(m.kv_heads) +
            ") or be a multiple of it (each rank then holds a copy of one key/value head, as Megatron-LM replicates them)");
  // A model whose layers are all MoE layers has no dense MLP to split.
  const bool dense_layers = !is_moe(m) || m.moe.first_dense_layers > 0 || m.moe.layer_frequency > 1;
  if (dense_layers && m.ffn_hidden % p.tp != 0)
    add("divisibility", "/plan/tp",
        "must divide /model/ffn_hidden (" + std::to_string(m.ffn_hidden) + ")");
  check_expert_plan(m, p, e);
  if (m.residual != Residual::sequential && p.tp_comm_overlap && p.sequence_parallel && p.tp > 1)
    add("range", "/plan/tp_comm_overlap",
        "must be false with a parallel residual (/model/residual): userbuffers' overlap is modelled for "
        "the sequential layer");
  // Stages may hold unequal numbers of layers (see stage_layers); interleaved chunks may not.
  const long long chunks = static_cast<long long>(p.pp) * p.virtual_stages;
  if (!p.stage_layers.empty()) {
    // Explicit stages (Megatron-LM's --decoder-first/last-pipeline-num-layers, DeepSpeed's
    // partition): one count per stage, summing to the layers; only an end stage may hold none.
    long long sum = 0;
    for (int n : p.stage_layers) sum += n;
    bool empty_middle = false;
    for (size_t s = 1; s + 1 < p.stage_layers.size(); ++s) empty_middle = empty_middle || p.stage_layers[s] == 0;
    if (static_cast<long long>(p.stage_layers.size()) != p.pp)
      add("range", "/plan/stage_layers",
          "must list one layer count for each of the /plan/pp (" + std::to_string(p.pp) + ") stages, got " +
              std::to_string(p.stage_layers.size()));
    else if (sum != m.layers)
      add("range", "/plan/stage_layers",
          "must add up to /model/layers (" + std::to_string(m.layers) + "), got " + std::to_string(sum));
    else if (empty_middle)
      add("range", "/plan/stage_layers",
          "may be 0 only for the first or the last stage (a stage of the embedding or of the head alone)");
    if (p.virtual_stages > 1)
      add("range", "/plan/stage_layers",
          "must be left out with /plan/virtual_stages above 1: interleaved model chunks split the layers evenly");
    for (const auto& [on, pointer] : {std::pair{p.embedding_as_layer, "/plan/embedding_as_layer"},
                                      std::pair{p.head_as_layer, "/plan/head_as_layer"}})
      if (on)
        add("range", pointer, "must be false with /plan/stage_layers: the listed counts place every layer");
  } else {
    // The split divides the layers and, where the plan counts them, the embedding and the head.
    const int slots = pipeline_slots(m, p);
    const std::string what = slots == m.layers ? "/model/layers (" + std::to_string(m.layers) + ")"
                                               : "/model/layers plus the embedding and head counted as layers (" +
                                                     std::to_string(slots) + ")";
    if (p.pp > slots)
      add("range", "/plan/pp", "must be at most " + what + ": every stage needs a layer");
    else if (p.virtual_stages > 1 && slots % chunks != 0)
      add("divisibility", "/plan/virtual_stages",
          "times /plan/pp (" + std::to_string(p.pp) + ") must divide " + what +
              ": interleaved model chunks need an even split");
  }
  if (p.virtual_stages > 1 && p.pp == 1)
    add("range", "/plan/virtual_stages", "must be 1 when /plan/pp is 1 (interleaving needs stages)");
  const long long replica_batch = static_cast<long long>(p.dp) * p.micro_batch;
  if (p.global_batch % replica_batch != 0) {
    add("divisibility", "/plan/global_batch",
        "must be a multiple of /plan/dp x /plan/micro_batch (" + std::to_string(replica_batch) + ")");
  } else {
    const long long mbs = p.global_batch / replica_batch;
    if (p.virtual_stages > 1 && mbs % p.pp != 0)
      add("divisibility", "/plan/virtual_stages",
          "interleaved 1F1B needs the micro-batches per iteration (" + std::to_string(mbs) +
              ") to be a multiple of /plan/pp (" + std::to_string(p.pp) + ")");
    // Bounds the pipeline simulation: tasks grow with stages x chunks x micro-batches.
    const double tasks = static_cast<double>(mbs) * p.pp * p.virtual_stages;
    if (tasks > 4e6)
      add("too_large", "/plan/global_batch",
          "gives " + detail::describe_number(tasks) +
              " pipeline tasks (micro-batches x stages x virtual stages); the limit is 4e6: raise "
              "/plan/micro_batch or lower /plan/global_batch");
  }
  if (p.shard_group > 0 && p.dp % p.shard_group != 0)
    add("divisibility", "/plan/shard_group", "must divide /plan/dp (" + std::to_string(p.dp) + ")");
  else if (p.shard_group > 0 && p.shard_group != p.dp && p.shard_group != 1 && p.zero_stage != 3)
    add("range", "/plan/shard_group",
        "hybrid sharding (a group smaller than /plan/dp) needs /plan/zero_stage 3, got " + std::to_string(p.zero_stage));
  if (p.optimizer_offload && p.zero_stage == 0)
    add("range", "/plan/optimizer_offload",
        "offloads each rank's shard of the optimizer states (ZeRO-Offload): needs /plan/zero_stage 1 or more, got 0");
  if (p.cp > 1) {
    // Megatron-Core splits each sequence into 2 x cp chunks and gives rank r chunks r and 2cp-1-r,
    // so that every rank does the same share of the causal attention.
    if (m.seq_len % (2LL * p.cp) != 0)
      add("divisibility", "/plan/cp",
          "times 2 must divide /model/seq_len (" + std::to_string(m.seq_len) +
              "): each sequence is split into 2 x cp chunks, two a rank, for the causal load balance");
    if (!fused_attention(p.attention))
      add("range", "/plan/cp",
          "context parallelism needs fused attention (/plan/attention flash or triton): its ring exchange runs "
          "inside the fused kernel's steps");
    if (p.zero_stage == 3)
      add("range", "/plan/cp",
          "context parallelism with sharded parameters (/plan/zero_stage 3) is not modelled: choose zero_stage 0 to 2");
  }
  const long long product = plan_gpus(p);
  // The product as the plan has it: context parallelism named where it is on.
  const std::string degrees = p.cp > 1 ? "/plan/tp x /plan/cp x /plan/pp x /plan/dp" : "/plan/tp x /plan/pp x /plan/dp";
  if (product > limits::num_gpus)
    add("range", "/plan/dp",
        degrees + " gives " + detail::describe_number(static_cast<double>(product)) +
            " GPUs, more than any cluster may have (" + std::to_string(limits::num_gpus) + ", /cluster/num_gpus)");
  else if (product != c.cluster.num_gpus)
    add("product", "/cluster/num_gpus",
        "must equal " + degrees + " (" + std::to_string(product) + "), got " + std::to_string(c.cluster.num_gpus));
  if (c.training.tokens > 0 && c.training.tokens < limits::min_tokens)
    add("range", "/training/tokens", "must be 0 (no training run) or at least 1 token: a run trains on whole tokens");
  return e;
}

long long plan_gpus(const PlanConfig& p) {
  long long gpus = 0;
  if (__builtin_mul_overflow(static_cast<long long>(p.tp), static_cast<long long>(p.pp), &gpus) ||
      __builtin_mul_overflow(gpus, static_cast<long long>(p.dp), &gpus) ||
      __builtin_mul_overflow(gpus, static_cast<long long>(p.cp), &gpus))
    return std::numeric_limits<long long>::max();
  return gpus;
}

json to_json(const SimConfig& c) {
  using detail::section_json;
  json j{{"model", to_json(c.model)},
         {"cluster", section_json(c.cluster, [](auto& v, const auto& s) { detail::cluster_fields(v, s); })},
         {"plan", to_json(c.plan)},
         {"training", section_json(c.training, [](auto& v, const auto& s) { detail::training_fields(v, s); })},
         {"reliability",
          section_json(c.reliability, [](auto& v, const auto& s) { detail::reliability_fields(v, s); })},
         {"output", section_json(c.output, [](auto& v, const auto& s) { detail::output_fields(v, s); })}};
  if (!c.description.empty()) j["description"] = c.description;
  // Bandwidths not yet resolved against a profile stay implicit (the profile's).
  j["cluster"]["network"] = section_json(c.cluster.network, [](auto& v, const auto& s) { detail::network_fields(v, s); });
  if (c.cluster.intra_node_GBps <= 0) j["cluster"].erase("intra_node_GBps");
  if (c.cluster.inter_node_Gbps <= 0) j["cluster"].erase("inter_node_Gbps");
  if (c.cluster.gpu_speed_spread <= 0) j["cluster"].erase("gpu_speed_spread");
  return j;
}

}  // namespace vtrain
