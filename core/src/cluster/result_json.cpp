// JSON of schedule results and workload files; the numbers are the result's, only copied here.

#include <nlohmann/json.hpp>

#include "cluster/json_out.hpp"
#include "vtrain/model.hpp"
#include "vtrain/schedule.hpp"

namespace vtrain {

using nlohmann::json;
using detail::JsonOut;

namespace {

// A preset's name when the model is that preset, else the whole shape.
json model_json(const ModelConfig& m) {
  if (const ModelPreset* p = model_presets().find(m.name))
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
  if (p.tp_comm_overlap != d.tp_comm_overlap) j["tp_comm_overlap"] = p.tp_comm_overlap;
  if (p.launch_blocking != d.launch_blocking) j["launch_blocking"] = p.launch_blocking;
  return j;
}

void write_plan(JsonOut& o, const PlanConfig& p) {
  o.begin_object()
      .field("tp", p.tp)
      .field("pp", p.pp)
      .field("dp", p.dp)
      .field("micro_batch", p.micro_batch)
      .field("recompute", to_string(p.recompute))
      .field("sequence_parallel", p.sequence_parallel)
      .field("zero_stage", p.zero_stage)
      .field("virtual_stages", p.virtual_stages)
      .end_object();
}

void write_curve(JsonOut& o, const char* name, const ThroughputCurve& c) {
  o.key(name).begin_object();
  o.key("iteration_time_s").begin_array();
  for (const CurvePoint& p : c.points) p.usable ? o.value(p.iteration_time_s) : o.null();
  o.end_array();
  o.key("plan_gpus").begin_array();
  for (const CurvePoint& p : c.points) o.value(p.plan_gpus);
  o.end_array();
  o.key("plans").begin_array();
  for (const CurvePoint& p : c.points) p.usable ? write_plan(o, p.plan) : void(o.null());
  o.end_array();
  o.key("levels").begin_array();
  for (int i : c.levels) o.value(i);
  o.end_array();
  o.end_object();
}

// A time that is -1 when it never came.
void write_time(JsonOut& o, const char* name, double t) {
  o.key(name);
  t >= 0 ? o.value(t) : o.null();
}

void write_policy(JsonOut& o, const PolicyResult& r, const std::vector<JobSpec>& specs) {
  o.begin_object()
      .field("name", r.name)
      .field("curve", to_string(r.curve))
      .field("jobs_total", r.workload_jobs)
      .field("admitted", r.admitted)
      .field("finished", r.finished)
      .field("deadlines_met", r.deadlines_met)
      .field("deadline_ratio", r.deadline_ratio)
      .field("avg_jct_s", r.avg_jct_s)
      .field("p95_jct_s", r.p95_jct_s)
      .field("makespan_s", r.makespan_s)
      .field("gpu_utilization", r.gpu_utilization)
      .field("gpu_hours", r.gpu_hours);
  o.key("cost_usd");
  r.cost_usd > 0 ? o.value(r.cost_usd) : o.null();
  o.field("resizes", r.resizes).field("events", r.events).field("seconds", r.seconds);
  o.key("jobs").begin_array();
  for (size_t i = 0; i < r.jobs.size(); ++i) {
    const JobOutcome& j = r.jobs[i];
    o.begin_object()
        .field("id", specs[i].id)
        .field("admitted", j.admitted)
        .field("finished", j.finished)
        .field("met_deadline", j.met_deadline);
    write_time(o, "start_s", j.start_s);
    write_time(o, "finish_s", j.finish_s);
    write_time(o, "jct_s", j.jct_s);
    o.field("resizes", j.resizes);
    o.key("allocations").begin_array();
    for (const AllocationChange& a : j.allocations) {
      o.begin_object().field("time_s", a.time_s).field("gpus", a.gpus);
      o.key("plan");
      a.gpus > 0 ? write_plan(o, a.plan) : void(o.null());
      o.field("plan_gpus", a.plan_gpus);
      o.key("iteration_time_s");
      a.gpus > 0 ? o.value(a.iteration_time_s) : o.null();
      o.field("resume_s", a.resume_s).end_object();
    }
    o.end_array().end_object();
  }
  o.end_array();
  o.key("timeline").begin_array();
  for (const UsagePoint& u : r.timeline)
    o.begin_object()
        .field("time_s", u.time_s)
        .field("gpus_allocated", u.gpus_allocated)
        .field("jobs_running", u.jobs_running)
        .field("jobs_waiting", u.jobs_waiting)
        .end_object();
  o.end_array().end_object();
}

void write_job(JsonOut& o, const JobSpec& j, int curve) {
  o.begin_object()
      .field("id", j.id)
      .field("arrival_s", j.arrival_s)
      .field("deadline_s", j.deadline_s)
      .field("model_name", j.model.name)
      .field("parameters", count_parameters(j.model).total)
      .field("global_batch", j.global_batch)
      .field("gpus", j.gpus)
      .field("iterations", j.iterations)
      .field("tokens", j.tokens)
      .field("curve", curve);
  o.key("plan");
  write_plan(o, j.plan);
  o.end_object();
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
  for (const JobSpec& j : w.jobs)
    jobs.push_back(json{{"id", j.id},
                        {"arrival_s", j.arrival_s},
                        {"deadline_s", j.deadline_s},
                        {"model", model_json(j.model)},
                        {"global_batch", j.global_batch},
                        {"gpus", j.gpus},
                        {"iterations", j.iterations},
                        {"plan", job_plan_json(j.plan)}});
  json out = json::object();
  if (!w.description.empty()) out["description"] = w.description;
  out["jobs"] = jobs;
  return out;
}

std::string to_json_text(const ScheduleResult& r) {
  const ScheduleRequest& q = r.request;
  JsonOut o;
  o.begin_object();
  if (!q.name.empty()) o.field("case", q.name);
  if (!q.description.empty()) o.field("description", q.description);
  o.key("cluster")
      .begin_object()
      .field("gpu", q.cluster.gpu)
      .field("num_gpus", q.cluster.num_gpus)
      .field("gpus_per_node", q.cluster.gpus_per_node)
      .field("price_per_gpu_hour_usd", q.cluster.price_per_gpu_hour_usd)
      .end_object();
  o.field("restart_pause_s", q.restart_pause_s).field("period_s", q.period_s);
  o.key("workload").begin_object().field("name", q.workload.name).field("description", q.workload.description);
  o.key("jobs").begin_array();
  for (size_t i = 0; i < q.workload.jobs.size(); ++i) write_job(o, q.workload.jobs[i], r.job_curves[i]);
  o.end_array().end_object();
  o.key("counts").begin_array();
  for (int n : allocation_counts(q.cluster.num_gpus, q.cluster.gpus_per_node)) o.value(n);
  o.end_array();
  o.key("curves").begin_array();
  for (const JobCurves& c : r.curves) {
    o.begin_object()
        .field("model", c.model.name)
        .field("parameters", count_parameters(c.model).total)
        .field("global_batch", c.global_batch);
    o.key("fixed_plan");
    write_plan(o, c.fixed_plan);
    write_curve(o, "best", c.best);
    write_curve(o, "data_parallel", c.data_parallel);
    o.end_object();
  }
  o.end_array();
  o.key("policies").begin_array();
  for (const PolicyResult& p : r.policies) write_policy(o, p, q.workload.jobs);
  o.end_array();
  o.key("comparison");
  if (r.comparison.valid) {
    const PolicyComparison& c = r.comparison;
    o.begin_object().field("policy", c.policy).field("baseline", c.baseline);
    o.key("deadlines_met_x");
    c.deadlines_met_x > 0 ? o.value(c.deadlines_met_x) : o.null();
    o.key("admitted_x");
    c.admitted_x > 0 ? o.value(c.admitted_x) : o.null();
    o.field("avg_jct_change", c.avg_jct_change)
        .field("p95_jct_change", c.p95_jct_change)
        .field("makespan_change", c.makespan_change)
        .field("utilization_change", c.utilization_change)
        .end_object();
  } else {
    o.null();
  }
  o.key("stats")
      .begin_object()
      .field("shapes", r.curve_stats.shapes)
      .field("swept", r.curve_stats.swept)
      .field("plans_simulated", r.curve_stats.plans_simulated)
      .field("curve_seconds", r.curve_stats.seconds)
      .field("seconds", r.seconds)
      .end_object();
  o.end_object();
  return o.take();
}

}  // namespace vtrain
