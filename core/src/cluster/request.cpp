// Reading a schedule request: the cluster, the workload (an example, a job list, a CSV or the
// generator), the policies and the pause; the case presets and the bundled workloads.

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "cluster/generator.hpp"
#include "cluster/text.hpp"
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

}  // namespace

// GPT-3's sizes (Brown et al. 2020, table 2.1, batches in sequences of 2048 tokens: 1 M tokens for
// 2.7B, 2 M for 6.7B and 13B, 3.2 M for 175B) and the 39.1B model of Narayanan et al. 2021, table 1
// (batch 1536), from the smallest trace request to the largest; Megatron-LM's memory savers, as
// large models are trained. The scale maps ElasticFlow's 128-GPU testbed, where the 195-job trace
// ran, to vTrain's 1,024 GPUs.
constexpr const char* kDefaultMapping = R"({
  "gpu_scale": 8,
  "time_scale": 1,
  "sizes": [
    {"max_trace_gpus": 1, "model": "gpt3-2.7b", "global_batch": 512},
    {"max_trace_gpus": 2, "model": "gpt3-6.7b", "global_batch": 1024},
    {"max_trace_gpus": 4, "model": {"name": "gpt-13b", "layers": 40, "hidden": 5120, "heads": 40}, "global_batch": 1024},
    {"max_trace_gpus": 8, "model": {"name": "gpt-39b", "layers": 48, "hidden": 8192, "heads": 64}, "global_batch": 1536},
    {"max_trace_gpus": 16, "model": "gpt3-175b", "global_batch": 1536}
  ],
  "plan": {"sequence_parallel": true, "zero_stage": 1}
})";

TraceMapping default_trace_mapping() {
  TraceMapping m;
  json j;
  Diagnostics errors = parse_json_text(kDefaultMapping, j);
  detail::read_trace_mapping(&j, "/workload/mapping", m, errors);
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
// from the ITP trace that ElasticFlow replays; the paper reports 64- and 128-job workloads. The
// price is that of case study 1 (AWS p4d.24xlarge on demand, per GPU).
constexpr const char* kCase2 = R"({
  "description": "vTrain case study 2: the ITP trace's first jobs as LLM jobs on 1024 A100s",
  "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 1024, "gpus_per_node": 8, "price_per_gpu_hour_usd": 4.10},
  "workload": {"example": "itp-195", "first_jobs": 128},
  "policies": ["fifo", "edf", "elasticflow-dp", "elasticflow-vtrain"],
  "restart_pause_s": 60
})";

json parsed(const char* text) {
  json j;
  parse_json_text(text, j);
  return j;
}

struct NamedCase {
  std::string name;
  json request;
};

const std::vector<NamedCase>& cases() {
  static const std::vector<NamedCase> all = {{"vtrain-case2", parsed(kCase2)}};
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
                                     detail::text("no profile named \"%s\"; bundled profiles are %s", c.gpu.c_str(),
                                                  bundled_profile_names().c_str())));
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
                                       detail::text("%sbundled workloads are %s",
                                                    example->is_string()
                                                        ? detail::text("unknown workload \"%s\"; ", name.c_str()).c_str()
                                                        : "",
                                                    known.c_str())));
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
                                         detail::text("the default mix asks for at least %d GPUs a job; give a mix "
                                                      "for a cluster of %d",
                                                      mapping.gpu_scale, cluster.num_gpus)));
        return;
      }
    }
    w.name = "generated";
    if (w.description.empty())
      w.description = detail::text("%d generated jobs (seed %llu)", g.jobs, g.seed);
    w.jobs = detail::generate_jobs(g, mapping.plan, mix_given);
  }
  if (!errors.empty()) return;
  detail::finish_job_list(w.jobs, "/workload", errors);
  if (first_jobs > 0) {
    if (first_jobs > static_cast<int>(w.jobs.size()))
      errors.push_back(make_diagnostic("range", "/workload/first_jobs",
                                       detail::text("must be at most the workload's %zu jobs, got %d", w.jobs.size(),
                                                    first_jobs)));
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
          detail::text("/case: %scases are %s",
                       name.is_string() ? detail::text("unknown case \"%s\"; ", name.get<std::string>().c_str()).c_str()
                                        : "",
                       known.c_str()));
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
    errors.push_back(make_diagnostic("range", "/period_s",
                                     detail::text("must be 0 (no period) or at least 1 s, got %s",
                                                  detail::describe_number(req.period_s).c_str())));
  if (policies) {
    if (!policies->is_array() || policies->empty()) {
      errors.push_back(make_diagnostic("type", "/policies", "must be a non-empty array of policy names"));
    } else {
      for (size_t i = 0; i < policies->size(); ++i) {
        const json& p = (*policies)[i];
        const std::string ptr = detail::text("/policies/%zu", i);
        const std::string name = p.is_string() ? p.get<std::string>() : "";
        if (!find_scheduling_policy(name)) {
          std::string known;
          for (const PolicyInfo& k : scheduling_policies()) known += (known.empty() ? "" : ", ") + k.name;
          errors.push_back(make_diagnostic(p.is_string() ? "unknown_policy" : "type", ptr,
                                           detail::text("%spolicies are %s",
                                                        p.is_string() ? detail::text("unknown policy \"%s\"; ", name.c_str()).c_str() : "",
                                                        known.c_str())));
        } else if (std::find(req.policies.begin(), req.policies.end(), name) != req.policies.end()) {
          errors.push_back(make_diagnostic("duplicate", ptr, detail::text("policy \"%s\" is named twice", name.c_str())));
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
