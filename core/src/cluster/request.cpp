// Reading a schedule request: the cluster, the workload (an example, a job list, a CSV or the
// generator), the policies and the pause; the case presets and the bundled workloads.

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "cluster/generator.hpp"
#include "cluster/workload_read.hpp"
#include "common/json_reader.hpp"
#include "vtrain/json_text.hpp"
#include "vtrain/profile.hpp"
#include "vtrain/schedule.hpp"
#include "vtrain/schedule_policy.hpp"

namespace vtrain {

struct EmbeddedWorkload {
  const char* name;
  const char* json_text;
};
extern const EmbeddedWorkload kEmbeddedWorkloads[];
extern const int kEmbeddedWorkloadCount;

using nlohmann::json;
using detail::ObjectReader;

namespace {

// Largest cluster a request may describe (count): a curve has a point per node.
constexpr int kMaxClusterGpus = 131072;

ModelConfig model_of(const json& j) {
  ModelConfig m;
  Diagnostics ignored;
  detail::read_model(j, "/model", m, ignored);
  return m;
}

}  // namespace

TraceMapping default_trace_mapping() {
  TraceMapping m;
  m.gpu_scale = 8;
  m.time_scale = 1;
  // GPT-3's sizes (Brown et al. 2020, table 2.1, batches in sequences of 2048 tokens: 1 M tokens
  // for 2.7B, 2 M for 6.7B and 13B, 3.2 M for 175B) and the 39.1B model of Narayanan et al. 2021,
  // table 1 (batch 1536), from the smallest trace request to the largest.
  m.sizes = {
      {1, model_of("gpt3-2.7b"), 512},
      {2, model_of("gpt3-6.7b"), 1024},
      {4, model_of(json{{"name", "gpt-13b"}, {"layers", 40}, {"hidden", 5120}, {"heads", 40}}), 1024},
      {8, model_of(json{{"name", "gpt-39b"}, {"layers", 48}, {"hidden", 8192}, {"heads", 64}}), 1536},
      {16, model_of("gpt3-175b"), 1536},
  };
  // Megatron-LM's memory savers, as large models are trained.
  m.plan.sequence_parallel = true;
  m.plan.zero_stage = 1;
  return m;
}

std::vector<std::string> workload_example_names() {
  std::vector<std::string> names;
  for (int i = 0; i < kEmbeddedWorkloadCount; ++i)
    if (kEmbeddedWorkloads[i].name) names.push_back(kEmbeddedWorkloads[i].name);
  return names;
}

const char* find_workload_example(const std::string& name) {
  for (int i = 0; i < kEmbeddedWorkloadCount; ++i)
    if (kEmbeddedWorkloads[i].name && name == kEmbeddedWorkloads[i].name) return kEmbeddedWorkloads[i].json_text;
  return nullptr;
}

namespace {

// vTrain's second case study (Bang et al., MICRO'24): a 1,024-A100 cluster and LLM jobs derived
// from the ITP trace ElasticFlow replays; the paper reports 64- and 128-job workloads.
json build_case2() {
  json policies = json::array();
  for (const PolicyInfo& p : scheduling_policies()) policies.push_back(p.name);
  return json{{"description",
               "vTrain case study 2: the ITP trace's first jobs as LLM jobs on 1024 A100s"},
              {"cluster",
               {{"gpu", "a100-sxm4-80gb"}, {"num_gpus", 1024}, {"gpus_per_node", 8}, {"price_per_gpu_hour_usd", 4.10}}},
              {"workload", {{"example", "itp-195"}, {"first_jobs", 128}}},
              {"policies", {"fifo", "edf", "elasticflow-dp", "elasticflow-vtrain"}},
              {"restart_pause_s", 60}};
}

struct NamedCase {
  std::string name;
  json request;
};

const std::vector<NamedCase>& cases() {
  static const std::vector<NamedCase> all = {{"vtrain-case2", build_case2()}};
  return all;
}

void read_cluster(const json* j, ClusterConfig& c, Diagnostics& errors) {
  ObjectReader r(j, "/cluster", errors);
  if (!r.present()) {
    errors.push_back(make_diagnostic("missing", "/cluster", "is required: {gpu, num_gpus, gpus_per_node}"));
    return;
  }
  c.num_gpus = 0;
  r.read("gpu", c.gpu);
  r.read("num_gpus", c.num_gpus, 1, kMaxClusterGpus);
  r.read("gpus_per_node", c.gpus_per_node, 1, limits::gpus_per_node);
  r.read("intra_node_GBps", c.intra_node_GBps, 0.0, 1e6);
  r.read("inter_node_Gbps", c.inter_node_Gbps, 0.0, 1e7);
  r.read("price_per_gpu_hour_usd", c.price_per_gpu_hour_usd, 0.0, 1e6);
  if (!r.has("num_gpus")) r.fail("missing", r.at("num_gpus"), "is required: the GPUs of the cluster");
  r.finish();
  if (!find_profile(c.gpu))
    errors.push_back(make_diagnostic("unknown_gpu", "/cluster/gpu",
                                     "no profile named \"" + c.gpu + "\"; bundled profiles are " +
                                         bundled_profile_names()));
}

void read_workload(const json* j, const ClusterConfig& cluster, Workload& w, Diagnostics& errors) {
  ObjectReader r(j, "/workload", errors);
  if (!r.present()) {
    errors.push_back(make_diagnostic("missing", "/workload",
                                     "is required: {example}, {jobs}, {csv} or {generate}"));
    return;
  }
  const char* sources[] = {"example", "jobs", "csv", "generate"};
  int given = 0;
  for (const char* k : sources) given += r.has(k);
  r.read("description", w.description);
  int first_jobs = 0;
  r.read("first_jobs", first_jobs, 1, detail::kMaxJobs);
  TraceMapping mapping = default_trace_mapping();
  const bool has_mapping = r.has("mapping");
  detail::read_trace_mapping(r.child("mapping"), r.at("mapping"), mapping, errors);
  const json* example = r.child("example");
  const json* jobs = r.child("jobs");
  const json* csv = r.child("csv");
  const json* generate = r.child("generate");
  r.finish();
  if (given != 1) {
    errors.push_back(make_diagnostic(given ? "conflict" : "missing", "/workload",
                                     "give exactly one of example, jobs, csv or generate"));
    return;
  }
  if (has_mapping && !csv)
    errors.push_back(make_diagnostic("conflict", "/workload/mapping", "applies only to a trace given as csv"));
  if (!errors.empty()) return;
  if (example) {
    const std::string name = example->is_string() ? example->get<std::string>() : "";
    const char* text = find_workload_example(name);
    if (!text) {
      std::string known;
      for (const auto& n : workload_example_names()) known += (known.empty() ? "" : ", ") + n;
      errors.push_back(make_diagnostic(example->is_string() ? "unknown_example" : "type", "/workload/example",
                                       (example->is_string() ? "unknown workload \"" + name + "\"; " : std::string()) +
                                           "bundled workloads are " + known));
      return;
    }
    json file;
    Diagnostics parse = parse_json_text(text, file);
    if (!parse.empty() || !file.is_object() || !file.contains("jobs")) {
      errors.push_back(make_diagnostic("internal", "/workload/example", "the bundled workload does not read"));
      return;
    }
    w.name = name;
    if (w.description.empty() && file.contains("description") && file["description"].is_string())
      w.description = file["description"].get<std::string>();
    detail::read_job_list(file["jobs"], "/workload/example/jobs", cluster, w.jobs, errors);
  } else if (jobs) {
    w.name = "custom";
    detail::read_job_list(*jobs, "/workload/jobs", cluster, w.jobs, errors);
  } else if (csv) {
    if (!csv->is_string()) {
      errors.push_back(make_diagnostic("type", "/workload/csv", "must be the text of a CSV file"));
      return;
    }
    w.name = "csv";
    detail::read_job_csv(csv->get<std::string>(), "/workload/csv", cluster, mapping, w.jobs, errors);
  } else {
    GeneratorSettings g;
    detail::read_generator_settings(generate, "/workload/generate", cluster, g, errors);
    if (!errors.empty()) return;
    const bool mix_given = !g.mix.empty();
    if (!mix_given) {
      // The trace's mix, without the sizes this cluster cannot hold.
      for (const GeneratorMixEntry& e : detail::default_generator_mix(mapping))
        if (e.gpus <= cluster.num_gpus) g.mix.push_back(e);
      if (g.mix.empty()) {
        errors.push_back(make_diagnostic("range", "/workload/generate/mix",
                                         "the default mix asks for at least " + std::to_string(mapping.gpu_scale) +
                                             " GPUs a job; give a mix for a cluster of " +
                                             std::to_string(cluster.num_gpus)));
        return;
      }
    }
    w.name = "generated";
    if (w.description.empty())
      w.description = std::to_string(g.jobs) + " generated jobs (seed " + std::to_string(g.seed) + ")";
    w.jobs = detail::generate_jobs(g, mapping.plan, mix_given);
  }
  if (!errors.empty()) return;
  detail::finish_job_list(w.jobs, "/workload", errors);
  if (first_jobs > 0) {
    if (first_jobs > static_cast<int>(w.jobs.size()))
      errors.push_back(make_diagnostic("range", "/workload/first_jobs",
                                       "must be at most the workload's " + std::to_string(w.jobs.size()) +
                                           " jobs, got " + std::to_string(first_jobs)));
    else
      w.jobs.resize(first_jobs);
  }
}

}  // namespace

std::vector<std::string> schedule_case_names() {
  std::vector<std::string> names;
  for (const auto& c : cases()) names.push_back(c.name);
  return names;
}

const json* find_schedule_case(const std::string& name) {
  for (const auto& c : cases())
    if (c.name == name) return &c.request;
  return nullptr;
}

Outcome<ScheduleRequest> parse_schedule_request(const json& input) {
  if (!input.is_object()) return Outcome<ScheduleRequest>::fail("type", "", "/: the request must be a JSON object");
  ScheduleRequest req;
  json j = input;
  if (j.contains("case")) {
    const json& name = j["case"];
    const json* preset = name.is_string() ? find_schedule_case(name.get<std::string>()) : nullptr;
    if (!preset) {
      std::string known;
      for (const auto& n : schedule_case_names()) known += (known.empty() ? "" : ", ") + n;
      return Outcome<ScheduleRequest>::fail(
          name.is_string() ? "unknown_case" : "type", "/case",
          "/case: " + (name.is_string() ? "unknown case \"" + name.get<std::string>() + "\"; " : std::string()) +
              "cases are " + known);
    }
    req.name = name.get<std::string>();
    json patch = j;
    patch.erase("case");
    j = *preset;
    j.merge_patch(patch);
  }
  Diagnostics errors;
  ObjectReader top(&j, "", errors);
  top.read("description", req.description);
  read_cluster(top.child("cluster"), req.cluster, errors);
  const json* workload = top.child("workload");
  const json* policies = top.child("policies");
  top.read("restart_pause_s", req.restart_pause_s, 0.0, 1e7);
  top.read("period_s", req.period_s, 0.0, 1e9);
  top.finish();
  if (req.period_s > 0 && req.period_s < 1)
    errors.push_back(make_diagnostic("range", "/period_s", "must be 0 (no period) or at least 1 s, got " +
                                                               detail::describe_number(req.period_s)));
  if (policies) {
    if (!policies->is_array() || policies->empty()) {
      errors.push_back(make_diagnostic("type", "/policies", "must be a non-empty array of policy names"));
    } else {
      for (size_t i = 0; i < policies->size(); ++i) {
        const json& p = (*policies)[i];
        const std::string ptr = "/policies/" + std::to_string(i);
        const std::string name = p.is_string() ? p.get<std::string>() : "";
        if (!find_scheduling_policy(name)) {
          std::string known;
          for (const PolicyInfo& k : scheduling_policies()) known += (known.empty() ? "" : ", ") + k.name;
          errors.push_back(make_diagnostic(p.is_string() ? "unknown_policy" : "type", ptr,
                                           (p.is_string() ? "unknown policy \"" + name + "\"; " : std::string()) +
                                               "policies are " + known));
        } else if (std::find(req.policies.begin(), req.policies.end(), name) != req.policies.end()) {
          errors.push_back(make_diagnostic("duplicate", ptr, "policy \"" + name + "\" is named twice"));
        } else {
          req.policies.push_back(name);
        }
      }
    }
  } else {
    for (const PolicyInfo& p : scheduling_policies()) req.policies.push_back(p.name);
  }
  // The workload is read against a valid cluster only: its GPU counts depend on it.
  if (!errors.empty()) return errors;
  read_workload(workload, req.cluster, req.workload, errors);
  if (!errors.empty()) return errors;
  return req;
}

}  // namespace vtrain
