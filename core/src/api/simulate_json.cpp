#include <nlohmann/json.hpp>

#include "vtrain/json_text.hpp"
#include "vtrain/simulate.hpp"

namespace vtrain {

using nlohmann::json;

json to_json(const Breakdown& b) {
  return json{{"forward", b.forward},
              {"backward", b.backward},
              {"recompute", b.recompute},
              {"optimizer", b.optimizer},
              {"pipeline_bubble", b.pipeline_bubble},
              {"tp_comm_exposed", b.tp_comm_exposed},
              {"cp_comm_exposed", b.cp_comm_exposed},
              {"pp_comm_exposed", b.pp_comm_exposed},
              {"dp_comm_exposed", b.dp_comm_exposed},
              {"embedding_comm_exposed", b.embedding_comm_exposed},
              {"host_overhead", b.host_overhead},
              {"straggler_wait", b.straggler_wait}};
}

json accuracy_json(const ProfileAccuracy& a) {
  json j = {{"mape_percent", a.mape_percent},
            {"measured_runs", a.runs},
            {"held_out", a.held_out},
            {"never_fitted", a.never_fitted},
            {"moe", a.moe},
            {"set", a.set}};
  if (!a.framework.empty()) j["framework"] = a.framework;
  if (a.gpus_max > 0) j["gpus"] = {a.gpus_min, a.gpus_max};
  if (a.hidden_max > 0) j["hidden"] = {a.hidden_min, a.hidden_max};
  return j;
}

json warnings_json(const std::vector<SimWarning>& ws) {
  json out = json::array();
  for (const SimWarning& w : ws) out.push_back({{"code", to_string(w.code)}, {"pointer", w.pointer}, {"message", w.message}});
  return out;
}

json to_json(const MemoryBreakdown& m) {
  return json{{"weights", m.weights},
              {"gradients", m.gradients},
              {"optimizer_states", m.optimizer_states},
              {"activations", m.activations},
              {"buffers", m.buffers},
              {"total", m.total()}};
}

json to_json(const SimResult& r, bool include_timeline) {
  json stages = json::array();
  for (const auto& b : r.stage_breakdowns) stages.push_back(to_json(b));
  json mem_stages = json::array();
  for (const auto& m : r.stage_memory) mem_stages.push_back(to_json(m));
  json j = {
      {"iteration_time_s", r.iteration_time_s},
      {"breakdown_s", to_json(r.breakdown)},
      {"breakdown_stage", r.breakdown_stage},
      {"breakdown_by_stage_s", stages},
      {"micro_batches", r.micro_batches},
      {"mfu", r.mfu},
      {"hfu", r.hfu},
      {"tokens_per_s", r.tokens_per_s},
      {"tflops_per_gpu", r.tflops_per_gpu},
      {"model_flops_per_iteration", r.model_flops_per_iteration},
      {"hardware_flops_per_iteration", r.hardware_flops_per_iteration},
      {"parameters",
       {{"total", r.parameters.total},
        {"per_layer", r.parameters.per_layer},
        {"embedding", r.parameters.embedding},
        {"position", r.parameters.position},
        {"output", r.parameters.output}}},
      {"memory_GiB", to_json(r.memory)},
      {"memory_stage", r.memory_stage},
      {"memory_by_stage_GiB", mem_stages},
      {"memory_capacity_GiB", r.memory_capacity_GiB},
      {"fits_in_memory", r.fits_in_memory},
      {"details",
       {{"layer_forward_s", r.details.layer_forward_s},
        {"layer_backward_s", r.details.layer_backward_s},
        {"layer_recompute_s", r.details.layer_recompute_s},
        {"p2p_send_s", r.details.p2p_send_s},
        {"dp_reduce_s", r.details.dp_reduce_s},
        {"optimizer_step_s", r.details.optimizer_step_s},
        {"embedding_allreduce_s", r.details.embedding_allreduce_s},
        {"tp_nodes", r.details.tp_nodes},
        {"dp_nodes", r.details.dp_nodes},
        {"layers_per_stage", r.details.layers_per_stage},
        {"even_stages", r.details.even_stages}}},
      {"config", to_json(r.config)},
      {"warnings", warnings_json(r.warnings)},
      {"profile_kind", r.profile_kind}};
  if (r.details.moe) {
    json& params = j["parameters"];
    params["active"] = r.parameters.active;
    params["moe_layers"] = r.parameters.moe_layers;
    params["per_moe_layer"] = r.parameters.per_moe_layer;
    params["expert"] = r.parameters.expert;
    params["router"] = r.parameters.router;
    params["shared_expert"] = r.parameters.shared_expert;
    j["details"]["moe"] = {{"layer_forward_s", r.details.moe_layer_forward_s},
                           {"layer_backward_s", r.details.moe_layer_backward_s},
                           {"dispatch_bytes", r.details.moe_dispatch_bytes},
                           {"all_to_all_s", r.details.moe_all_to_all_s},
                           {"expert_tokens", r.details.moe_expert_tokens},
                           {"load_imbalance", r.details.moe_load_imbalance},
                           {"ep_nodes", r.details.ep_nodes},
                           {"edp", r.details.edp},
                           {"expert_reduce_s", r.details.expert_reduce_s}};
  }
  if (r.details.straggler_compute_s > 0)
    j["details"]["stragglers"] = {{"wait_s", r.details.straggler_wait_s},
                                  {"compute_s", r.details.straggler_compute_s},
                                  {"gpu_speed_spread", r.details.gpu_speed_spread},
                                  {"slowest_sigmas", r.details.straggler_slowest_sigmas},
                                  {"parts_s",
                                   {{"tensor", r.details.straggler_tensor_s},
                                    {"pipeline", r.details.straggler_pipeline_s},
                                    {"data", r.details.straggler_data_s}}}};
  if (r.details.offload)
    j["details"]["offload"] = {{"gradient_copy_s", r.details.offload_gradient_copy_s},
                               {"gradient_exposed_s", r.details.offload_gradient_exposed_s},
                               {"cpu_step_s", r.details.offload_cpu_step_s},
                               {"parameter_copy_s", r.details.offload_parameter_copy_s},
                               {"host_GiB", r.details.offload_host_GiB}};
  if (r.accuracy.runs > 0) {
    j["accuracy"] = accuracy_json(r.accuracy);
    if (!r.accuracy_also.empty()) {
      json also = json::array();
      for (const ProfileAccuracy& a : r.accuracy_also) also.push_back(accuracy_json(a));
      j["accuracy_also"] = also;
    }
  }
  if (r.config.training.tokens > 0) {
    j["training"] = {{"tokens", r.config.training.tokens},
                     {"iterations", r.iterations},
                     {"gpu_hours", r.gpu_hours},
                     {"energy_MWh", r.energy_MWh}};
    j["training_days"] = r.training_days;
    if (r.config.cluster.price_per_gpu_hour_usd > 0) j["cost_usd"] = r.cost_usd;
    j["goodput"] = to_json(r.goodput);
  }
  if (r.config.output.operators) {
    json ops = json::array();
    for (const OperatorTime& o : r.operators) {
      ops.push_back({{"block", o.block},
                     {"name", o.name},
                     {"kind", to_string(o.kind)},
                     {"kernels", o.kernels},
                     {"forward_s", o.forward_s},
                     {"recompute_s", o.recompute_s},
                     {"backward_s", o.backward_s},
                     {"total_s", o.total_s()},
                     {"work_flops", o.work_flops},
                     {"hbm_bytes", o.hbm_bytes},
                     {"comm_bytes", o.comm_bytes},
                     {"time_source", o.time_source()},
                     {"measured_kernels", o.measured_kernels},
                     {"interpolated_kernels", o.interpolated_kernels}});
    }
    j["operators"] = std::move(ops);
  }
  if (r.timeline_included && include_timeline) {
    // Columnar per stage (one array per field): compact, and what chart libraries take directly.
    json tl = json::array();
    for (size_t s = 0; s < r.timeline.size(); ++s) {
      json kind = json::array(), mb = json::array(), chunk = json::array(), start = json::array(),
           duration = json::array();
      for (const auto& b : r.timeline[s]) {
        kind.push_back(to_string(b.kind));
        mb.push_back(b.micro_batch);
        chunk.push_back(b.chunk);
        start.push_back(b.start_s);
        duration.push_back(b.duration_s);
      }
      tl.push_back({{"stage", s},
                    {"kind", std::move(kind)},
                    {"micro_batch", std::move(mb)},
                    {"chunk", std::move(chunk)},
                    {"start_s", std::move(start)},
                    {"duration_s", std::move(duration)}});
    }
    j["timeline"] = std::move(tl);
  }
  return j;
}

namespace {

void append_number(std::string& out, int v) { out += std::to_string(v); }

// A column of whole numbers.
template <class F>
void append_int_column(std::string& out, const char* name, const std::vector<TimelineBlock>& blocks, F get) {
  out += ",\"";
  out += name;
  out += "\":[";
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (i) out += ',';
    append_number(out, get(blocks[i]));
  }
  out += ']';
}

// A column of real numbers, as nlohmann's dump writes them (the shortest text that reads back to
// the same double): an array of plain numbers, which costs far less than the objects of a tree.
template <class F>
void append_real_column(std::string& out, const char* name, const std::vector<TimelineBlock>& blocks, F get) {
  json column = json::array();
  auto& values = column.get_ref<json::array_t&>();
  values.reserve(blocks.size());
  for (const TimelineBlock& b : blocks) values.emplace_back(get(b));
  out += ",\"";
  out += name;
  out += "\":";
  out += column.dump();
}

}  // namespace

json to_json(const Goodput& g) {
  const auto days = [&](double v) { return g.finite ? json(v) : json(nullptr); };
  return {{"ideal_days", g.ideal_days},
          {"expected_days", days(g.expected_days)},
          {"lost_share", g.lost_share},
          {"parts_days",
           {{"checkpoint_days", days(g.checkpoint_days)},
            {"lost_work_days", days(g.lost_work_days)},
            {"restart_days", days(g.restart_days)}}},
          {"failures", days(g.failures)},
          {"job_mtbf_hours", g.job_mtbf_hours},
          {"checkpoint_GB", g.checkpoint_GB},
          {"checkpoint_write_s", g.checkpoint_write_s},
          {"checkpoint_interval_minutes", g.checkpoint_interval_minutes},
          {"interval_optimal", g.interval_optimal},
          {"finite", g.finite}};
}

std::string to_json_text(const SimResult& r) {
  std::string out = dump_json(to_json(r, false));
  if (!r.timeline_included) return out;
  // The timeline goes last in the object; its columns in nlohmann's (sorted) key order.
  std::string tl = ",\"timeline\":[";
  for (size_t s = 0; s < r.timeline.size(); ++s) {
    const auto& blocks = r.timeline[s];
    if (s) tl += ',';
    tl += "{\"chunk\":[";
    for (size_t i = 0; i < blocks.size(); ++i) {
      if (i) tl += ',';
      append_number(tl, blocks[i].chunk);
    }
    tl += ']';
    append_real_column(tl, "duration_s", blocks, [](const TimelineBlock& b) { return b.duration_s; });
    tl += ",\"kind\":[";
    for (size_t i = 0; i < blocks.size(); ++i) {
      if (i) tl += ',';
      tl += '"';
      tl += to_string(blocks[i].kind);
      tl += '"';
    }
    tl += ']';
    append_int_column(tl, "micro_batch", blocks, [](const TimelineBlock& b) { return b.micro_batch; });
    tl += ",\"stage\":";
    append_number(tl, static_cast<int>(s));
    append_real_column(tl, "start_s", blocks, [](const TimelineBlock& b) { return b.start_s; });
    tl += '}';
  }
  tl += ']';
  out.insert(out.size() - 1, tl);
  return out;
}

}  // namespace vtrain
