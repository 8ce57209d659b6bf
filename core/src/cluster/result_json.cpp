// JSON of schedule results and workload files; the numbers are the result's, only copied here.

#include <nlohmann/json.hpp>

#include "vtrain/model.hpp"
#include "vtrain/schedule.hpp"

namespace vtrain {

using nlohmann::json;

namespace {

// A preset's name when the model is that preset, else the whole shape.
json model_json(const ModelConfig& m) {
  if (const ModelPreset* p = find_model_preset(m.name))
    if (p->model == m) return m.name;
  return to_json(m);
}

// The plan fields a job's file gives: the model-parallel plan, and every shared field that is
// not the default.
json job_plan_json(const PlanConfig& p) {
  json j{{"tp", p.tp}, {"pp", p.pp}, {"micro_batch", p.micro_batch}, {"recompute", to_string(p.recompute)}};
  const PlanConfig d;
  if (p.sequence_parallel != d.sequence_parallel) j["sequence_parallel"] = p.sequence_parallel;
  if (p.zero_stage != d.zero_stage) j["zero_stage"] = p.zero_stage;
  if (p.virtual_stages != d.virtual_stages) j["virtual_stages"] = p.virtual_stages;
  if (p.zero_all_reduce != d.zero_all_reduce) j["zero_all_reduce"] = p.zero_all_reduce;
  if (p.dp_overlap != d.dp_overlap) j["dp_overlap"] = p.dp_overlap;
  if (p.attention != d.attention) j["attention"] = to_string(p.attention);
  if (p.precision != d.precision) j["precision"] = to_string(p.precision);
  if (p.placement != d.placement) j["placement"] = to_string(p.placement);
  if (p.p2p_overlap != d.p2p_overlap) j["p2p_overlap"] = p.p2p_overlap;
  if (p.grad_accumulation_fusion != d.grad_accumulation_fusion) j["grad_accumulation_fusion"] = p.grad_accumulation_fusion;
  if (p.tp_async_backward != d.tp_async_backward) j["tp_async_backward"] = p.tp_async_backward;
  if (p.launch_blocking != d.launch_blocking) j["launch_blocking"] = p.launch_blocking;
  return j;
}

json curve_json(const ThroughputCurve& c) {
  json times = json::array(), plans = json::array(), used = json::array();
  for (const CurvePoint& p : c.points) {
    times.push_back(p.usable ? json(p.iteration_time_s) : json(nullptr));
    plans.push_back(p.usable ? plan_json(p.plan) : json(nullptr));
    used.push_back(p.plan_gpus);
  }
  return json{{"iteration_time_s", times}, {"plan_gpus", used}, {"plans", plans}, {"levels", c.levels}};
}

json allocation_json(const AllocationChange& a) {
  return json{{"time_s", a.time_s},
              {"gpus", a.gpus},
              {"plan", a.gpus > 0 ? plan_json(a.plan) : json(nullptr)},
              {"plan_gpus", a.plan_gpus},
              {"iteration_time_s", a.gpus > 0 ? json(a.iteration_time_s) : json(nullptr)},
              {"resume_s", a.resume_s}};
}

json policy_json(const PolicyResult& r, const std::vector<JobSpec>& specs) {
  json jobs = json::array();
  for (size_t i = 0; i < r.jobs.size(); ++i) {
    const JobOutcome& o = r.jobs[i];
    json allocations = json::array();
    for (const AllocationChange& a : o.allocations) allocations.push_back(allocation_json(a));
    auto maybe = [](double v) { return v >= 0 ? json(v) : json(nullptr); };
    jobs.push_back({{"id", specs[i].id},
                    {"admitted", o.admitted},
                    {"finished", o.finished},
                    {"met_deadline", o.met_deadline},
                    {"start_s", maybe(o.start_s)},
                    {"finish_s", maybe(o.finish_s)},
                    {"jct_s", maybe(o.jct_s)},
                    {"resizes", o.resizes},
                    {"allocations", allocations}});
  }
  json timeline = json::array();
  for (const UsagePoint& u : r.timeline)
    timeline.push_back({{"time_s", u.time_s},
                        {"gpus_allocated", u.gpus_allocated},
                        {"jobs_running", u.jobs_running},
                        {"jobs_waiting", u.jobs_waiting}});
  return json{{"name", r.name},
              {"curve", to_string(r.curve)},
              {"jobs_total", r.workload_jobs},
              {"admitted", r.admitted},
              {"finished", r.finished},
              {"deadlines_met", r.deadlines_met},
              {"deadline_ratio", r.deadline_ratio},
              {"avg_jct_s", r.avg_jct_s},
              {"p95_jct_s", r.p95_jct_s},
              {"makespan_s", r.makespan_s},
              {"gpu_utilization", r.gpu_utilization},
              {"gpu_hours", r.gpu_hours},
              {"cost_usd", r.cost_usd > 0 ? json(r.cost_usd) : json(nullptr)},
              {"resizes", r.resizes},
              {"events", r.events},
              {"seconds", r.seconds},
              {"jobs", jobs},
              {"timeline", timeline}};
}

json job_json(const JobSpec& j) {
  return json{{"id", j.id},
              {"arrival_s", j.arrival_s},
              {"deadline_s", j.deadline_s},
              {"model", model_json(j.model)},
              {"global_batch", j.global_batch},
              {"gpus", j.gpus},
              {"iterations", j.iterations},
              {"plan", job_plan_json(j.plan)}};
}

}  // namespace

json plan_json(const PlanConfig& p) {
  return json{{"tp", p.tp},
              {"pp", p.pp},
              {"dp", p.dp},
              {"micro_batch", p.micro_batch},
              {"recompute", to_string(p.recompute)},
              {"sequence_parallel", p.sequence_parallel},
              {"zero_stage", p.zero_stage},
              {"virtual_stages", p.virtual_stages}};
}

json to_json(const Workload& w) {
  json jobs = json::array();
  for (const JobSpec& j : w.jobs) jobs.push_back(job_json(j));
  json out = json::object();
  if (!w.description.empty()) out["description"] = w.description;
  out["jobs"] = jobs;
  return out;
}

json to_json(const ScheduleResult& r) {
  const ScheduleRequest& q = r.request;
  json jobs = json::array();
  for (size_t i = 0; i < q.workload.jobs.size(); ++i) {
    const JobSpec& j = q.workload.jobs[i];
    json row = job_json(j);
    row["model_name"] = j.model.name;
    row["parameters"] = count_parameters(j.model).total;
    row["tokens"] = j.tokens;
    row["curve"] = r.job_curves[i];
    jobs.push_back(row);
  }
  const std::vector<int> counts = allocation_counts(q.cluster.num_gpus, q.cluster.gpus_per_node);
  json curves = json::array();
  for (const JobCurves& c : r.curves)
    curves.push_back({{"model", c.model.name},
                      {"parameters", count_parameters(c.model).total},
                      {"global_batch", c.global_batch},
                      {"fixed_plan", plan_json(c.fixed_plan)},
                      {"best", curve_json(c.best)},
                      {"data_parallel", curve_json(c.data_parallel)}});
  json policies = json::array();
  for (const PolicyResult& p : r.policies) policies.push_back(policy_json(p, q.workload.jobs));
  json comparison = nullptr;
  if (r.comparison.valid) {
    const PolicyComparison& c = r.comparison;
    comparison = {{"policy", c.policy},
                  {"baseline", c.baseline},
                  {"deadlines_met_x", c.deadlines_met_x > 0 ? json(c.deadlines_met_x) : json(nullptr)},
                  {"admitted_x", c.admitted_x > 0 ? json(c.admitted_x) : json(nullptr)},
                  {"avg_jct_change", c.avg_jct_change},
                  {"p95_jct_change", c.p95_jct_change},
                  {"makespan_change", c.makespan_change},
                  {"utilization_change", c.utilization_change}};
  }
  json out{{"cluster",
            {{"gpu", q.cluster.gpu},
             {"num_gpus", q.cluster.num_gpus},
             {"gpus_per_node", q.cluster.gpus_per_node},
             {"price_per_gpu_hour_usd", q.cluster.price_per_gpu_hour_usd}}},
           {"restart_pause_s", q.restart_pause_s},
           {"period_s", q.period_s},
           {"workload", {{"name", q.workload.name}, {"description", q.workload.description}, {"jobs", jobs}}},
           {"counts", counts},
           {"curves", curves},
           {"policies", policies},
           {"comparison", comparison},
           {"stats",
            {{"shapes", r.curve_stats.shapes},
             {"swept", r.curve_stats.swept},
             {"plans_simulated", r.curve_stats.plans_simulated},
             {"curve_seconds", r.curve_stats.seconds},
             {"seconds", r.seconds}}}};
  if (!q.name.empty()) out["case"] = q.name;
  if (!q.description.empty()) out["description"] = q.description;
  return out;
}

}  // namespace vtrain
