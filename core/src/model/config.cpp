#include "vtrain/config.hpp"

#include <nlohmann/json.hpp>

#include "common/json_reader.hpp"
#include "vtrain/model.hpp"

namespace vtrain {

using nlohmann::json;
using detail::ObjectReader;

namespace {

std::vector<ModelPreset> build_presets() {
  std::vector<ModelPreset> p;
  const char* gpt3 = "Brown et al. 2020, Language Models are Few-Shot Learners, Table 2.1";
  p.push_back({gpt_model("gpt3-2.7b", 32, 2560, 32, 50257, 2048), "GPT-3 2.7B", gpt3, 2.7e9});
  p.push_back({gpt_model("gpt3-6.7b", 32, 4096, 32, 50257, 2048), "GPT-3 6.7B", gpt3, 6.7e9});
  p.push_back({gpt_model("gpt3-175b", 96, 12288, 96, 50257, 2048), "GPT-3 175B", gpt3, 175.0e9});
  p.push_back({gpt_model("mt-nlg-530b", 105, 20480, 128, 50257, 2048), "Megatron-Turing NLG 530B",
               "Smith et al. 2022, Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B, "
               "section 2.3",
               530.0e9});
  p.push_back({gpt_model("megatron-1t", 128, 25600, 160, 51200, 2048), "Megatron-LM 1T (weak-scaling study)",
               "Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU "
               "Clusters, Table 1",
               1008.0e9});
  {
    ModelConfig m = gpt_model("bloom-176b", 70, 14336, 112, 250880, 2048);
    m.position = PositionEmbedding::alibi;
    p.push_back({m, "BLOOM 176B", "BigScience 2022, BLOOM: A 176B-Parameter Open-Access "
                                  "Multilingual Language Model, Table 3",
                 176247271424.0});
  }
  const char* llama2 = "Touvron et al. 2023, Llama 2: Open Foundation and Fine-Tuned Chat Models, "
                       "Table 1; parameter counts of the released checkpoints";
  p.push_back({llama_model("llama2-7b", 32, 4096, 32, 32, 11008, 32000, 4096), "Llama 2 7B", llama2,
               6738415616.0});
  p.push_back({llama_model("llama2-13b", 40, 5120, 40, 40, 13824, 32000, 4096), "Llama 2 13B", llama2,
               13015864320.0});
  p.push_back({llama_model("llama2-70b", 80, 8192, 64, 8, 28672, 32000, 4096), "Llama 2 70B", llama2,
               68976648192.0});
  const char* llama3 = "Dubey et al. 2024, The Llama 3 Herd of Models, Table 3; parameter counts "
                       "of the released checkpoints";
  p.push_back({llama_model("llama3-8b", 32, 4096, 32, 8, 14336, 128256, 8192), "Llama 3 8B", llama3,
               8030261248.0});
  p.push_back({llama_model("llama3-70b", 80, 8192, 64, 8, 28672, 128256, 8192), "Llama 3 70B", llama3,
               70553706496.0});
  p.push_back({llama_model("llama3.1-405b", 126, 16384, 128, 8, 53248, 128256, 8192), "Llama 3.1 405B",
               llama3, 405853388800.0});
  return p;
}

void read_model_fields(ObjectReader& r, ModelConfig& m) {
  r.read("layers", m.layers, 1, limits::layers);
  r.read("hidden", m.hidden, 1, limits::hidden);
  r.read("heads", m.heads, 1, limits::heads);
  r.read("kv_heads", m.kv_heads, 1, limits::heads);
  r.read("seq_len", m.seq_len, 1, limits::seq_len);
  r.read("vocab", m.vocab, 1, limits::vocab);
  r.read("ffn_hidden", m.ffn_hidden, 1, limits::ffn_hidden);
  r.read_enum("mlp", m.mlp);
  r.read("tied_embeddings", m.tied_embeddings);
  r.read_enum("norm", m.norm);
  r.read_enum("position", m.position);
  r.read("bias", m.bias);
  r.read("vocab_pad_multiple", m.vocab_pad_multiple, 1, 1000000);
}

void parse_model(const json* j, ModelConfig& m, Diagnostics& errors) {
  if (j && j->is_string()) {
    const std::string name = j->get<std::string>();
    if (const ModelPreset* p = model_presets().find(name)) {
      m = p->model;
    } else {
      errors.push_back(make_diagnostic("unknown_preset", "/model",
                                       "unknown model preset \"" + name + "\"; presets are " + model_presets().names_text()));
    }
    return;
  }
  ObjectReader r(j, "/model", errors);
  if (!r.present()) return;
  // {"preset": "llama2-70b", "seq_len": 8192} starts from the preset and overrides fields.
  if (const json* preset = r.child("preset")) {
    if (!preset->is_string()) {
      r.fail("type", r.at("preset"), "must be a preset name");
    } else if (const ModelPreset* p = model_presets().find(preset->get<std::string>())) {
      m = p->model;
    } else {
      r.fail("unknown_preset", r.at("preset"),
             "unknown model preset \"" + preset->get<std::string>() + "\"");
    }
  }
  r.read("name", m.name);
  const bool ffn_given = r.has("ffn_hidden");
  const bool kv_given = r.has("kv_heads");
  const bool from_preset = r.has("preset");
  read_model_fields(r, m);
  // Without a preset, omitted shape fields follow the GPT convention of the given ones; the
  // shape itself has no default.
  if (!from_preset) {
    for (const char* k : {"layers", "hidden", "heads"})
      if (!r.has(k)) r.fail("missing", r.at(k), "is required for a model given by its shape (or give \"preset\")");
    if (!ffn_given) m.ffn_hidden = 4 * m.hidden;
    if (!kv_given) m.kv_heads = m.heads;
    if (!r.has("name")) m.name = "custom";
  } else if (r.has("hidden") && !ffn_given && m.mlp == Mlp::gelu) {
    m.ffn_hidden = 4 * m.hidden;
  }
  r.finish();
}

void parse_cluster(const json* j, ClusterConfig& c, Diagnostics& errors) {
  ObjectReader r(j, "/cluster", errors);
  r.read("gpu", c.gpu);
  r.read("num_gpus", c.num_gpus, 1, limits::num_gpus);
  r.read("gpus_per_node", c.gpus_per_node, 1, limits::gpus_per_node);
  r.read("intra_node_GBps", c.intra_node_GBps, 0.0, 1e6, true);
  r.read("inter_node_Gbps", c.inter_node_Gbps, 0.0, 1e8, true);
  r.read("price_per_gpu_hour_usd", c.price_per_gpu_hour_usd, 0.0, 1e6);
  r.finish();
}

void parse_plan(const json* j, PlanConfig& p, Diagnostics& errors) {
  ObjectReader r(j, "/plan", errors);
  r.read("tp", p.tp, 1, limits::tp);
  r.read("pp", p.pp, 1, limits::pp);
  r.read("dp", p.dp, 1, limits::dp);
  r.read("micro_batch", p.micro_batch, 1, limits::micro_batch);
  r.read("global_batch", p.global_batch, 1, limits::global_batch);
  r.read_enum("recompute", p.recompute);
  r.read("sequence_parallel", p.sequence_parallel);
  r.read("virtual_stages", p.virtual_stages, 1, limits::virtual_stages);
  r.read("zero_stage", p.zero_stage, 0, 1);
  r.read("zero_all_reduce", p.zero_all_reduce);
  r.read("dp_overlap", p.dp_overlap);
  r.read_enum("attention", p.attention);
  r.read_enum("precision", p.precision);
  r.read_enum("placement", p.placement);
  r.read("p2p_overlap", p.p2p_overlap);
  r.read("grad_accumulation_fusion", p.grad_accumulation_fusion);
  r.read("tp_async_backward", p.tp_async_backward);
  r.read("launch_blocking", p.launch_blocking);
  r.finish();
}

}  // namespace

const Registry<ModelPreset>& model_presets() {
  static const Registry<ModelPreset> presets(build_presets());
  return presets;
}

int micro_batches_per_iteration(const PlanConfig& p) {
  return p.global_batch / (p.dp * p.micro_batch);
}

Outcome<SimConfig> parse_sim_config(const json& j) {
  Diagnostics errors;
  SimConfig c;
  if (!j.is_object()) return Outcome<SimConfig>::fail("type", "", "/: the config must be a JSON object");
  ObjectReader top(&j, "", errors);
  top.read("description", c.description);
  if (c.description.size() > limits::description_chars)
    errors.push_back(make_diagnostic("range", "/description",
                                     "must be at most " + std::to_string(limits::description_chars) +
                                         " bytes long, got " + std::to_string(c.description.size())));
  const json* model = top.child("model");
  if (!model) {
    errors.push_back(make_diagnostic("missing", "/model", "is required (a preset name or an object)"));
  } else {
    parse_model(model, c.model, errors);
  }
  const json* cluster = top.child("cluster");
  const json* plan = top.child("plan");
  if (!plan) errors.push_back(make_diagnostic("missing", "/plan", "is required"));
  parse_cluster(cluster, c.cluster, errors);
  // Defaults that follow from other fields: a plan without num_gpus uses tp*pp*dp GPUs.
  parse_plan(plan, c.plan, errors);
  if (!cluster || !cluster->contains("num_gpus")) c.cluster.num_gpus = c.plan.tp * c.plan.pp * c.plan.dp;
  {
    ObjectReader r(top.child("training"), "/training", errors);
    r.read("tokens", c.training.tokens, 0.0, 1e18);
    r.finish();
  }
  {
    ObjectReader r(top.child("output"), "/output", errors);
    r.read("timeline", c.output.timeline);
    r.read("operators", c.output.operators);
    r.finish();
  }
  top.finish();
  if (!errors.empty()) return errors;
  Diagnostics rules = check_sim_config(c);
  // A rule broken by a plan field left out: say which default broke it.
  const PlanConfig defaults;
  const std::pair<const char*, int> defaulted[] = {{"global_batch", defaults.global_batch},
                                                   {"micro_batch", defaults.micro_batch},
                                                   {"tp", defaults.tp},
                                                   {"pp", defaults.pp},
                                                   {"dp", defaults.dp}};
  for (Diagnostic& d : rules)
    for (const auto& [key, value] : defaulted)
      if (d.pointer == std::string("/plan/") + key && !(plan && plan->is_object() && plan->contains(key)))
        d.message += " (it was not given: its default is " + std::to_string(value) + ")";
  if (!rules.empty()) return rules;
  return c;
}

Diagnostics check_sim_config(const SimConfig& c) {
  Diagnostics e;
  auto add = [&](const char* code, const char* pointer, const std::string& rule) {
    e.push_back(make_diagnostic(code, pointer, rule));
  };
  const ModelConfig& m = c.model;
  const PlanConfig& p = c.plan;
  if (m.hidden % m.heads != 0)
    add("divisibility", "/model/hidden",
        "must be divisible by /model/heads (" + std::to_string(m.heads) + ")");
  if (m.kv_heads > m.heads)
    add("range", "/model/kv_heads", "must not exceed /model/heads (" + std::to_string(m.heads) + ")");
  else if (m.heads % m.kv_heads != 0)
    add("divisibility", "/model/kv_heads",
        "must divide /model/heads (" + std::to_string(m.heads) + ")");
  if (m.heads % p.tp != 0)
    add("divisibility", "/plan/tp", "must divide /model/heads (" + std::to_string(m.heads) + ")");
  else if (m.kv_heads % p.tp != 0)
    add("divisibility", "/plan/tp",
        "must divide /model/kv_heads (" + std::to_string(m.kv_heads) + ")");
  if (m.ffn_hidden % p.tp != 0)
    add("divisibility", "/plan/tp",
        "must divide /model/ffn_hidden (" + std::to_string(m.ffn_hidden) + ")");
  // Stages may hold unequal numbers of layers (see stage_layers); interleaved chunks may not.
  const long long chunks = static_cast<long long>(p.pp) * p.virtual_stages;
  if (p.pp > m.layers)
    add("range", "/plan/pp", "must be at most /model/layers (" + std::to_string(m.layers) + "): every stage needs a layer");
  else if (p.virtual_stages > 1 && m.layers % chunks != 0)
    add("divisibility", "/plan/virtual_stages",
        "times /plan/pp (" + std::to_string(p.pp) + ") must divide /model/layers (" + std::to_string(m.layers) +
            "): interleaved model chunks need an even split");
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
  const long long product = static_cast<long long>(p.tp) * p.pp * p.dp;
  if (product != c.cluster.num_gpus)
    add("product", "/cluster/num_gpus",
        "must equal /plan/tp x /plan/pp x /plan/dp (" + std::to_string(product) + "), got " +
            std::to_string(c.cluster.num_gpus));
  return e;
}

json to_json(const ModelConfig& m) {
  return json{{"name", m.name},
              {"layers", m.layers},
              {"hidden", m.hidden},
              {"heads", m.heads},
              {"kv_heads", m.kv_heads},
              {"seq_len", m.seq_len},
              {"vocab", m.vocab},
              {"ffn_hidden", m.ffn_hidden},
              {"mlp", to_string(m.mlp)},
              {"tied_embeddings", m.tied_embeddings},
              {"norm", to_string(m.norm)},
              {"position", to_string(m.position)},
              {"bias", m.bias},
              {"vocab_pad_multiple", m.vocab_pad_multiple}};
}

json to_json(const SimConfig& c) {
  const PlanConfig& p = c.plan;
  json j{
      {"model", to_json(c.model)},
      {"cluster",
       {{"gpu", c.cluster.gpu},
        {"num_gpus", c.cluster.num_gpus},
        {"gpus_per_node", c.cluster.gpus_per_node},
        {"intra_node_GBps", c.cluster.intra_node_GBps},
        {"inter_node_Gbps", c.cluster.inter_node_Gbps},
        {"price_per_gpu_hour_usd", c.cluster.price_per_gpu_hour_usd}}},
      {"plan",
       {{"tp", p.tp},
        {"pp", p.pp},
        {"dp", p.dp},
        {"micro_batch", p.micro_batch},
        {"global_batch", p.global_batch},
        {"recompute", to_string(p.recompute)},
        {"sequence_parallel", p.sequence_parallel},
        {"virtual_stages", p.virtual_stages},
        {"zero_stage", p.zero_stage},
        {"zero_all_reduce", p.zero_all_reduce},
        {"dp_overlap", p.dp_overlap},
        {"attention", to_string(p.attention)},
        {"precision", to_string(p.precision)},
        {"placement", to_string(p.placement)},
        {"p2p_overlap", p.p2p_overlap},
        {"grad_accumulation_fusion", p.grad_accumulation_fusion},
        {"tp_async_backward", p.tp_async_backward},
        {"launch_blocking", p.launch_blocking}}},
      {"training", {{"tokens", c.training.tokens}}},
      {"output", {{"timeline", c.output.timeline}, {"operators", c.output.operators}}}};
  if (!c.description.empty()) j["description"] = c.description;
  // Bandwidths not yet resolved against a profile stay implicit (the profile's).
  if (c.cluster.intra_node_GBps <= 0) j["cluster"].erase("intra_node_GBps");
  if (c.cluster.inter_node_Gbps <= 0) j["cluster"].erase("inter_node_Gbps");
  return j;
}

}  // namespace vtrain
