// api::schema: what a front end needs to build its inputs without writing the core's knowledge
// again: every enum's choices, each field's type, bounds and default, the registries (GPUs,
// model presets, examples, explore cases, scaling fits, compute-optimal presets) and the limits.
// Everything here is read from the tables the readers themselves use.

#include <nlohmann/json.hpp>

#include "model/fields.hpp"
#include "search/fields.hpp"
#include "vtrain/api.hpp"
#include "vtrain/examples.hpp"
#include "vtrain/schema.hpp"
#include "vtrain/model.hpp"
#include "vtrain/optimal.hpp"
#include "vtrain/profile.hpp"
#include "vtrain/simulate.hpp"
#include "vtrain/version.hpp"

namespace vtrain {

using nlohmann::json;

namespace {

template <NamedEnum E>
void add_enum(json& enums) {
  json choices = json::array();
  for (const auto& n : EnumNames<E>::table) choices.push_back({{"name", n.name}, {"label", n.label}});
  enums[EnumNames<E>::key] = std::move(choices);
}

json all_enums() {
  json e = json::object();
  add_enum<Mlp>(e);
  add_enum<Residual>(e);
  add_enum<Norm>(e);
  add_enum<PositionEmbedding>(e);
  add_enum<Recompute>(e);
  add_enum<Attention>(e);
  add_enum<Precision>(e);
  add_enum<Placement>(e);
  add_enum<Router>(e);
  add_enum<Topology>(e);
  add_enum<NetAlgorithm>(e);
  add_enum<Objective>(e);
  add_enum<ModelFamily>(e);
  add_enum<BudgetKind>(e);
  add_enum<BlockKind>(e);
  add_enum<WarningCode>(e);
  add_enum<MeasuredOp>(e);
  add_enum<OperatorKind>(e);
  return e;
}

json bounds(const detail::IntBounds& b) {
  return {{"type", "integer"}, {"minimum", b.min}, {"maximum", b.max}};
}

json bounds(const detail::RealBounds& b) {
  json j = {{"type", "number"}, {"maximum", b.max}};
  j[b.exclusive_min ? "exclusiveMinimum" : "minimum"] = b.min;
  return j;
}

// Describes each field a field list names: {key: {type, bounds, default}}, in JSON Schema's words
// (enum fields name their enum in "enum" and list its choices under the schema's "enums"), and
// their keys in the list's order.
struct SchemaWriter {
  json& fields;
  json& order;
  json& at(const char* key) {
    order.push_back(key);
    return fields[key];
  }
  template <std::integral I>
  void field(const char* key, const I& v, detail::IntBounds b) {
    json& f = at(key) = bounds(b);
    f["default"] = v;
  }
  void field(const char* key, const double& v, detail::RealBounds b) {
    json& f = at(key) = bounds(b);
    f["default"] = v;
  }
  void field(const char* key, const bool& v) { at(key) = {{"type", "boolean"}, {"default", v}}; }
  void field(const char* key, const std::string& v) { at(key) = {{"type", "string"}, {"default", v}}; }
  template <NamedEnum E>
  void field(const char* key, const E& v) {
    at(key) = {{"type", "string"}, {"enum", EnumNames<E>::key}, {"default", to_string(v)}};
  }
  // A value or an array of them; left out, every valid value.
  void list(const char* key, const std::vector<int>&, detail::IntBounds b) {
    at(key) = {{"type", "array"}, {"items", bounds(b)}};
  }
  // An ordered array (repeats kept); empty by default.
  void sequence(const char* key, const std::vector<int>& v, detail::IntBounds b) {
    at(key) = {{"type", "array"}, {"items", bounds(b)}, {"default", v}};
  }
  void list(const char* key, const std::vector<bool>&) {
    at(key) = {{"type", "array"}, {"items", {{"type", "boolean"}}}};
  }
  template <NamedEnum E>
  void list(const char* key, const std::vector<E>&) {
    at(key) = {{"type", "array"}, {"items", {{"type", "string"}, {"enum", EnumNames<E>::key}}}};
  }
};

// {"fields": {key: description}, "order": [keys in the order the reader reads them]}.
template <class S, class List>
json describe(const S& defaults, List list) {
  json out = {{"fields", json::object()}, {"order", json::array()}};
  SchemaWriter w{out["fields"], out["order"]};
  list(w, defaults);
  return out;
}

// A default that follows from other fields is said in words instead of a number.
void default_rule(json& section, const char* key, const char* rule) {
  json& field = section["fields"][key];
  field.erase("default");
  field["default_rule"] = rule;
}

json config_sections() {
  json model = describe(ModelConfig{}, [](auto& w, const auto& m) { detail::model_fields(w, m); });
  for (const char* key : {"layers", "hidden", "heads"})
    default_rule(model, key, "required for a model given by its shape; a preset gives it");
  default_rule(model, "kv_heads", "heads");
  default_rule(model, "ffn_hidden", "4 x hidden (a GeLU MLP)");
  model["fields"]["head_dim"]["note"] = "0: hidden / heads";
  model["mla"] = describe(MlaConfig{}, [](auto& w, const auto& a) { detail::mla_fields(w, a); });
  model["mla"]["note"] = "multi-head latent attention (DeepSeek-V2/V3); absent or null: none. Defaults: DeepSeek-V3's";
  model["mla"]["fields"]["q_lora_rank"]["note"] = "0: no query compression (DeepSeek-V2-Lite)";
  json cluster = describe(ClusterConfig{}, [](auto& w, const auto& c) { detail::cluster_fields(w, c); });
  default_rule(cluster, "num_gpus", "tp x cp x pp x dp");
  default_rule(cluster, "intra_node_GBps", "the profile's (registries.gpus)");
  default_rule(cluster, "inter_node_Gbps", "the profile's (registries.gpus)");
  default_rule(cluster, "gpu_speed_spread", "the profile's compute.gpu_speed_spread (0 in the bundled profiles)");
  cluster["fields"]["gpu"]["registry"] = "gpus";
  cluster["network"] = describe(NetworkConfig{}, [](auto& w, const auto& n) { detail::network_fields(w, n); });
  json plan = describe(PlanConfig{}, [](auto& w, const auto& p) { detail::plan_fields(w, p); });
  json training = describe(TrainingConfig{}, [](auto& w, const auto& t) { detail::training_fields(w, t); });
  json reliability =
      describe(ReliabilityConfig{}, [](auto& w, const auto& r) { detail::reliability_fields(w, r); });
  reliability["fields"]["checkpoint_interval_minutes"]["note"] = "0: the interval that minimizes the expected time";
  reliability["fields"]["checkpoint_GB"]["note"] = "0: 14 bytes a parameter (16-bit weights, fp32 master and Adam moments)";
  reliability["fields"]["node_mtbf_hours"]["note"] = "0: failures_per_gpu_hour gives the rate";
  json output = describe(OutputOptions{}, [](auto& w, const auto& o) { detail::output_fields(w, o); });
  model["preset"] = {{"registry", "model_presets"}};
  // A mixture of experts' expert layers: an object of its own, absent (or null) for a dense model.
  json moe = describe(MoeConfig{}, [](auto& w, const auto& e) { detail::moe_fields(w, e); });
  for (const char* key : {"experts", "experts_per_token", "expert_ffn_hidden"})
    default_rule(moe, key, "required for a mixture of experts");
  default_rule(moe, "shared_expert_ffn_hidden", "0: expert_ffn_hidden");
  moe["note"] = "absent or null: a dense model; docs/moe.md";
  model["moe"] = moe;
  return {{"model", model},
          {"cluster", cluster},
          {"plan", plan},
          {"training", training},
          {"reliability", reliability},
          {"output", output},
          {"description", {{"type", "string"}, {"maxLength", limits::description_chars}}}};
}

json explore_request() {
  json request = describe(ExploreOptions{}, [](auto& w, const auto& o) { detail::explore_option_fields(w, o); });
  request["note"] = "a list left out is every valid value; the config's other sections are a simulate config's, "
                    "with cluster.num_gpus the most GPUs a plan may use";
  request["case"] = {{"registry", "explore_cases"}};
  return request;
}

json optimal_request() {
  json top = describe(OptimalRequest{}, [](auto& w, const auto& r) { detail::optimal_request_fields(w, r); });
  json budget = describe(detail::BudgetAmounts{}, [](auto& w, const auto& b) { detail::budget_fields(w, b); });
  for (auto& [key, field] : budget["fields"].items()) field.erase("default");
  json fit = describe(hoffmann2022(), [](auto& w, const auto& f) { detail::scaling_fit_fields(w, f); });
  json candidates = describe(OptimalRequest{}, [](auto& w, const auto& r) { detail::candidate_fields(w, r); });
  json space = describe(ExploreOptions{}, [](auto& w, const auto& o) {
    detail::OnlyFields only{w, detail::candidate_space_key};
    detail::explore_option_fields(only, o);
  });
  // The candidates' shapes: hidden sizes from the smallest to the largest the builder makes.
  const std::vector<ModelConfig> gpt = candidate_models(ModelFamily::gpt, 2048, 0, 1e300);
  budget["note"] = "exactly one amount; days beside usd or gpu_hours is a deadline";
  candidates["hidden"] = {gpt.front().hidden, gpt.back().hidden};
  candidates["max_candidates"] = limits::optimal_candidates;
  json request = top;
  request["budget"] = budget;
  request["scaling"] = {{"fit", {{"registry", "scaling_fits"}, {"default", hoffmann2022().name}}},
                        {"tokens_per_param", bounds(detail::RealBounds{0.0, limits::tokens_per_param, true})},
                        {"loss_fit", {{"registry", "scaling_fits"}}},
                        {"custom", fit}};
  request["candidates"] = candidates;
  request["explore"] = space;
  request["plan"] = {{"note", "a simulate plan's fields but tp, pp, dp, micro_batch, global_batch and virtual_stages"}};
  request["preset"] = {{"registry", "optimal_presets"}};
  return request;
}

// How a sentence names a GPU: its display name without the vendor ("A100 SXM4 80GB"), or its
// name when it has no display name.
std::string gpu_label(const Profile& p) {
  if (p.display_name.empty()) return p.name;
  for (const char* vendor : {"NVIDIA ", "AMD ", "Intel ", "Google "}) {
    const std::string v = vendor;
    if (p.display_name.size() > v.size() && p.display_name.compare(0, v.size(), v) == 0) return p.display_name.substr(v.size());
  }
  return p.display_name;
}

json registries() {
  json gpus = json::array();
  for (const Profile& p : bundled_profiles())
    gpus.push_back({{"name", p.name},
                    {"display_name", p.display_name},
                    {"label", gpu_label(p)},
                    {"peak_fp16_tflops", p.peak_fp16_tflops},
                    {"peak_fp8_tflops", p.peak_fp8_tflops},
                    {"kind", p.kind},
                    {"hbm_GiB", p.hbm_GiB},
                    {"hbm_GBps", p.hbm_GBps},
                    {"board_power_W", p.board_power_W},
                    {"intra_node_GBps", p.intra_node_GBps},
                    {"inter_node_Gbps", p.inter_node_Gbps},
                    {"gpus_per_node", p.gpus_per_node}});
  json presets = json::array();
  for (const ModelPreset& p : model_presets())
    presets.push_back({{"name", p.model.name},
                       {"description", p.description},
                       {"source", p.source},
                       {"published_params", p.published_params},
                       {"params", count_parameters(p.model).total},
                       {"model", to_json(p.model)}});
  for (json& entry : presets) {
    const ModelPreset* p = model_presets().find(entry["name"].get<std::string>());
    if (p && p->published_active_params > 0) {
      entry["published_active_params"] = p->published_active_params;
      entry["active_params"] = count_parameters(p->model).active;
    }
  }
  json examples = json::array();
  for (const ExampleConfig& e : example_configs())
    examples.push_back({{"name", e.name}, {"description", e.description}});
  json cases = json::array();
  for (const ExploreCase& c : explore_cases()) {
    const json request = json::parse(c.request_json);
    cases.push_back({{"name", c.name},
                     {"label", c.label},
                     {"example", c.example},
                     {"description", request.value("description", "")},
                     {"request", request}});
  }
  json fits = json::array();
  for (const ScalingFit& f : scaling_fits())
    fits.push_back({{"name", f.name},
                    {"label", f.label},
                    {"citation", f.citation},
                    {"E", f.E},
                    {"A", f.A},
                    {"B", f.B},
                    {"alpha", f.alpha},
                    {"beta", f.beta}});
  json optimal = json::array();
  for (const OptimalPreset& p : optimal_presets())
    optimal.push_back({{"name", p.name}, {"description", p.description}, {"request", json::parse(p.request_json)}});
  return {{"gpus", gpus},
          {"model_presets", presets},
          {"examples", examples},
          {"explore_cases", cases},
          {"scaling_fits", fits},
          {"optimal_presets", optimal}};
}

json all_limits() {
  return {{"layers", limits::layers},
          {"hidden", limits::hidden},
          {"heads", limits::heads},
          {"seq_len", limits::seq_len},
          {"vocab", limits::vocab},
          {"ffn_hidden", limits::ffn_hidden},
          {"num_gpus", limits::num_gpus},
          {"gpus_per_node", limits::gpus_per_node},
          {"tp", limits::tp},
          {"pp", limits::pp},
          {"dp", limits::dp},
          {"cp", limits::cp},
          {"head_dim", limits::head_dim},
          {"micro_batch", limits::micro_batch},
          {"global_batch", limits::global_batch},
          {"virtual_stages", limits::virtual_stages},
          {"vocab_pad_multiple", limits::vocab_pad_multiple},
          {"intra_node_GBps", limits::intra_node_GBps},
          {"inter_node_Gbps", limits::inter_node_Gbps},
          {"price_per_gpu_hour_usd", limits::price_per_gpu_hour_usd},
          {"tokens", limits::tokens},
          {"description_chars", limits::description_chars},
          {"deadline_days", limits::deadline_days},
          {"max_plans", limits::max_plans},
          {"max_blocks", limits::max_blocks},
          {"optimal_candidates", limits::optimal_candidates}};
}

}  // namespace

nlohmann::json schema() {
  return {{"version", kVersion},
          {"enums", all_enums()},
          {"config", config_sections()},
          {"explore", explore_request()},
          {"optimal", optimal_request()},
          {"registries", registries()},
          {"limits", all_limits()}};
}

}  // namespace vtrain
