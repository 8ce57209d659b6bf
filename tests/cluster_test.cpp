#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "test_util.hpp"
#include "vtrain/api.hpp"
#include "vtrain/schedule.hpp"
#include "vtrain/schedule_policy.hpp"
#include "vtrain/simulate.hpp"

using namespace vtrain;
using nlohmann::json;

namespace {

// A small GPT model whose curves on 64 GPUs take milliseconds.
json small_model() { return json{{"layers", 16}, {"hidden", 2048}, {"heads", 16}, {"seq_len", 1024}}; }

json small_cluster(int gpus = 64) {
  return json{{"gpu", "a100-sxm4-80gb"}, {"num_gpus", gpus}, {"gpus_per_node", 8}, {"price_per_gpu_hour_usd", 2}};
}

json job(const std::string& id, double arrival, double deadline, int gpus, long long iterations) {
  return json{{"id", id},          {"arrival_s", arrival}, {"deadline_s", deadline}, {"model", small_model()},
              {"global_batch", 64}, {"gpus", gpus},         {"iterations", iterations}};
}

ScheduleRequest parse_ok(const json& j) {
  auto r = parse_schedule_request(j);
  if (!r.ok()) throw std::runtime_error(r.errors().front().message);
  return r.value();
}

ScheduleResult run_ok(const json& j) {
  auto r = schedule(parse_ok(j));
  if (!r.ok()) throw std::runtime_error(r.errors().front().message);
  return r.value();
}

Diagnostics errors_of(const json& j) {
  auto r = parse_schedule_request(j);
  if (!r.ok()) return r.errors();
  auto s = schedule(r.value());
  return s.ok() ? Diagnostics{} : s.errors();
}

bool has_error(const Diagnostics& errors, const std::string& pointer, const std::string& text) {
  return std::any_of(errors.begin(), errors.end(), [&](const Diagnostic& d) {
    return d.pointer == pointer && d.message.find(text) != std::string::npos;
  });
}

std::string all_messages(const Diagnostics& errors) {
  std::string s;
  for (const auto& d : errors) s += d.pointer + " | " + d.message + "\n";
  return s;
}

// The bundled policies (a test below registers more, which requests then run by default).
json bundled_policies() { return json{"fifo", "edf", "elasticflow-dp", "elasticflow-vtrain"}; }

// A busy workload: arrivals close together, deadlines from tight to loose, all sizes.
json busy_request(int jobs = 24, unsigned seed = 3) {
  return json{{"cluster", small_cluster(64)},
              {"workload",
               {{"generate",
                 {{"seed", seed},
                  {"jobs", jobs},
                  {"arrival_rate_per_hour", 12},
                  {"duration_hours", {0.2, 3}},
                  {"deadline_factor", {0.4, 1.6}},
                  {"mix",
                   {{{"model", small_model()}, {"global_batch", 64}, {"gpus", 8}, {"weight", 3}},
                    {{"model", small_model()}, {"global_batch", 64}, {"gpus", 16}, {"weight", 1}},
                    {{"model", small_model()}, {"global_batch", 128}, {"gpus", 2}, {"weight", 2}}}}}}}},
              {"policies", bundled_policies()},
              {"restart_pause_s", 60}};
}

// Sum over a job's allocation history of the iterations trained between changes.
double iterations_trained(const JobOutcome& o) {
  double done = 0;
  for (size_t k = 0; k + 1 < o.allocations.size(); ++k) {
    const AllocationChange& a = o.allocations[k];
    if (a.gpus == 0) continue;
    const double end = o.allocations[k + 1].time_s;
    if (end > a.resume_s) done += (end - a.resume_s) / a.iteration_time_s;
  }
  return done;
}

}  // namespace

TEST_CASE("cluster: allocation counts are 1, 2, 4 and then whole nodes") {
  CHECK(allocation_counts(24, 8) == std::vector<int>{1, 2, 4, 8, 16, 24});
  CHECK(allocation_counts(4, 8) == std::vector<int>{1, 2, 4});
  CHECK(allocation_counts(16, 4) == std::vector<int>{1, 2, 4, 8, 12, 16});
}

TEST_CASE("cluster: best-plan curves are never below data-parallel-only curves, and both are simulate's times") {
  const ScheduleResult r = run_ok(json{{"cluster", small_cluster(64)},
                                       {"workload", {{"jobs", {job("a", 0, 1e6, 8, 10)}}}},
                                       {"policies", {"fifo"}}});
  REQUIRE(r.curves.size() == 1);
  const JobCurves& c = r.curves[0];
  REQUIRE(c.best.points.size() == c.data_parallel.points.size());
  int compared = 0;
  for (size_t i = 0; i < c.best.points.size(); ++i) {
    const CurvePoint& b = c.best.points[i];
    const CurvePoint& d = c.data_parallel.points[i];
    CHECK(b.gpus == d.gpus);
    if (!d.usable) continue;
    REQUIRE(b.usable);
    CHECK(b.iteration_time_s <= d.iteration_time_s);
    CHECK(d.plan.tp == c.fixed_plan.tp);
    CHECK(d.plan.pp == c.fixed_plan.pp);
    CHECK(d.plan.micro_batch == c.fixed_plan.micro_batch);
    CHECK(d.plan_gpus <= d.gpus);
    ++compared;
  }
  CHECK(compared >= 5);
  // The curves' times are those simulate gives the same plans.
  for (const CurvePoint* p : {c.best.at(8), c.best.at(64), c.data_parallel.at(32)}) {
    REQUIRE(p);
    json cfg = test::small_config();
    cfg["model"] = small_model();
    cfg["plan"] = plan_json(p->plan);
    cfg["plan"]["global_batch"] = 64;
    cfg["cluster"]["num_gpus"] = p->plan_gpus;
    CHECK(test::simulate_ok(test::parse_ok(cfg)).iteration_time_s == p->iteration_time_s);
  }
  // More GPUs pay off for this model: the best plan on 64 GPUs beats the one on 8.
  CHECK(c.best.at(64)->iteration_time_s < c.best.at(8)->iteration_time_s);
  CHECK(!c.best.levels.empty());
}

TEST_CASE("cluster: the counts a job is held at have diminishing returns, also where memory forces a plan onto few GPUs") {
  // Llama 2 13B at a batch of 1024 fits on few GPUs only with recomputation and deep pipelines,
  // and on 24 only with a lopsided plan: per iteration those counts cost more GPU-seconds than
  // larger ones. ElasticFlow's fewest GPUs that meet a deadline are then not the least GPU-time,
  // and the policy with best-plan curves turned away jobs that the one with data-parallel curves
  // (which start where the job's own plan fits) admitted.
  json j = job("a", 0, 1e7, 64, 10);
  j["model"] = "llama2-13b";
  j["global_batch"] = 1024;
  const ScheduleResult r = run_ok(json{{"cluster", small_cluster(64)}, {"workload", {{"jobs", {j}}}}, {"policies", {"fifo"}}});
  REQUIRE(r.curves.size() == 1);
  int left_out = 0;
  for (const ThroughputCurve* c : {&r.curves[0].best, &r.curves[0].data_parallel}) {
    INFO(to_string(c->kind));
    REQUIRE(!c->levels.empty());
    CHECK(c->points[c->levels.back()].gpus == 64);
    for (size_t k = 1; k < c->levels.size(); ++k) {
      const CurvePoint& a = c->points[c->levels[k - 1]];
      const CurvePoint& b = c->points[c->levels[k]];
      INFO(a.gpus << " GPUs then " << b.gpus);
      CHECK(b.iteration_time_s < a.iteration_time_s);
      CHECK(b.gpus * b.iteration_time_s >= a.gpus * a.iteration_time_s);
    }
    // Every usable count left out is slower than a smaller one or costlier than a larger level.
    double fastest = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < c->points.size(); ++i) {
      const CurvePoint& p = c->points[i];
      if (!p.usable) continue;
      const bool level = std::find(c->levels.begin(), c->levels.end(), static_cast<int>(i)) != c->levels.end();
      if (!level && p.iteration_time_s < fastest) {
        ++left_out;
        bool costlier = false;
        for (int l : c->levels)
          if (c->points[l].gpus > p.gpus &&
              c->points[l].gpus * c->points[l].iteration_time_s < p.gpus * p.iteration_time_s)
            costlier = true;
        CHECK(costlier);
      }
      fastest = std::min(fastest, p.iteration_time_s);
    }
  }
  // The best-plan curve has such counts: the rule is exercised.
  CHECK(left_out > 0);
}

TEST_CASE("cluster: one job on an empty cluster finishes in simulate's time for its plan, under every policy") {
  const ScheduleResult r = run_ok(json{{"cluster", small_cluster(64)},
                                       {"workload", {{"jobs", {job("only", 100, 1e7, 16, 500)}}}},
                                       {"policies", bundled_policies()}});
  REQUIRE(r.policies.size() == 4);
  for (const PolicyResult& p : r.policies) {
    INFO(p.name);
    REQUIRE(p.jobs.size() == 1);
    const JobOutcome& o = p.jobs[0];
    CHECK(o.admitted);
    CHECK(o.finished);
    CHECK(o.resizes == 0);
    REQUIRE(o.allocations.size() == 2);  // it starts once, and ends
    const AllocationChange& a = o.allocations[0];
    CHECK(a.time_s == 100);
    CHECK(a.resume_s == 100);
    json cfg = test::small_config();
    cfg["model"] = small_model();
    cfg["plan"] = plan_json(a.plan);
    cfg["plan"]["global_batch"] = 64;
    cfg["cluster"]["num_gpus"] = a.plan_gpus;
    const double t = test::simulate_ok(test::parse_ok(cfg)).iteration_time_s;
    CHECK(o.jct_s == doctest::Approx(500 * t).epsilon(1e-12));
    if (p.name == "fifo" || p.name == "edf") {
      CHECK(a.gpus == 16);
      CHECK(a.plan.tp * a.plan.pp * a.plan.dp == 16);
    } else {
      // Alone, ElasticFlow gives it every GPU that makes it faster.
      CHECK(a.gpus == p.jobs[0].allocations[0].gpus);
      CHECK(a.gpus >= 16);
    }
  }
}

TEST_CASE("cluster: GPUs are conserved, no job runs before it arrives, each finished job trains exactly its iterations") {
  const ScheduleResult r = run_ok(busy_request(24));
  const auto& specs = r.request.workload.jobs;
  for (const PolicyResult& p : r.policies) {
    INFO(p.name);
    // Held GPUs from the jobs' histories, at every change.
    std::map<double, int> delta;
    for (size_t i = 0; i < p.jobs.size(); ++i) {
      const JobOutcome& o = p.jobs[i];
      int held = 0;
      for (const AllocationChange& a : o.allocations) {
        CHECK(a.time_s >= specs[i].arrival_s);
        CHECK(a.resume_s >= a.time_s);
        delta[a.time_s] += a.gpus - held;
        held = a.gpus;
      }
      if (o.finished) {
        CHECK(held == 0);
        CHECK(o.start_s >= specs[i].arrival_s);
        CHECK(iterations_trained(o) == doctest::Approx(static_cast<double>(specs[i].iterations)).epsilon(1e-9));
        CHECK(o.jct_s == doctest::Approx(o.finish_s - specs[i].arrival_s));
        CHECK(o.met_deadline == (o.finish_s <= specs[i].deadline_s + 1e-3));
      } else {
        CHECK(o.allocations.empty());  // never started: turned away, or never given GPUs
      }
    }
    int held = 0;
    for (const auto& [t, d] : delta) {
      held += d;
      CHECK(held >= 0);
      CHECK(held <= 64);
    }
    CHECK(held == 0);  // every GPU handed back
    // The usage timeline says the same.
    for (const UsagePoint& u : p.timeline) {
      int sum = 0;
      for (const auto& [t, d] : delta) {
        if (t > u.time_s) break;
        sum += d;
      }
      CHECK(u.gpus_allocated == sum);
      CHECK(u.gpus_allocated <= 64);
    }
    CHECK(p.gpu_utilization > 0);
    CHECK(p.gpu_utilization <= 1.0 + 1e-12);
    CHECK(p.deadline_ratio == doctest::Approx(static_cast<double>(p.deadlines_met) / specs.size()));
    if (p.name == "fifo" || p.name == "edf") {
      CHECK(p.admitted == static_cast<int>(specs.size()));
      CHECK(p.resizes == 0);
    }
  }
}

TEST_CASE("cluster: the ElasticFlow policies turn away a job whose deadline no allocation meets") {
  // 10000 iterations of the small model need hours even on the whole cluster; the deadline is a
  // minute after arrival.
  const ScheduleResult r = run_ok(json{{"cluster", small_cluster(64)},
                                       {"workload",
                                        {{"jobs", {job("easy", 0, 1e7, 8, 100), job("hopeless", 10, 70, 8, 10000)}}}},
                                       {"policies", bundled_policies()}});
  for (const PolicyResult& p : r.policies) {
    INFO(p.name);
    CHECK(p.jobs[0].admitted);
    CHECK(p.jobs[0].met_deadline);
    if (p.name.rfind("elasticflow", 0) == 0) {
      CHECK_FALSE(p.jobs[1].admitted);
      CHECK_FALSE(p.jobs[1].finished);
      CHECK(p.jobs[1].allocations.empty());
    } else {
      CHECK(p.jobs[1].admitted);
      CHECK(p.jobs[1].finished);
      CHECK_FALSE(p.jobs[1].met_deadline);
    }
  }
}

TEST_CASE("cluster: ElasticFlow admits a job only when the jobs admitted before still meet their deadlines") {
  // Two jobs that each need most of the cluster to meet a deadline an hour away.
  const ScheduleResult alone = run_ok(json{{"cluster", small_cluster(16)},
                                           {"workload", {{"jobs", {job("first", 0, 1e7, 16, 2000)}}}},
                                           {"policies", {"elasticflow-vtrain"}}});
  const double t_alone = alone.policies[0].jobs[0].jct_s;
  const double deadline = 1.2 * t_alone;
  const ScheduleResult r = run_ok(json{{"cluster", small_cluster(16)},
                                       {"workload",
                                        {{"jobs", {job("first", 0, deadline, 16, 2000),
                                                   job("second", 1, deadline, 16, 2000)}}}},
                                       {"policies", {"elasticflow-dp", "elasticflow-vtrain"}}});
  for (const PolicyResult& p : r.policies) {
    INFO(p.name);
    CHECK(p.jobs[0].admitted);
    CHECK(p.jobs[0].met_deadline);
    CHECK_FALSE(p.jobs[1].admitted);
  }
}

TEST_CASE("cluster: the same seed gives the same workload and results, another seed another") {
  const ScheduleResult a = run_ok(busy_request(20, 11));
  const ScheduleResult b = run_ok(busy_request(20, 11));
  const ScheduleResult c = run_ok(busy_request(20, 12));
  json ja = json::parse(to_json_text(a)), jb = json::parse(to_json_text(b)), jc = json::parse(to_json_text(c));
  for (json* j : {&ja, &jb, &jc}) {
    j->erase("stats");
    for (auto& p : (*j)["policies"]) p.erase("seconds");
  }
  CHECK(ja == jb);
  CHECK(ja["workload"] != jc["workload"]);
  CHECK(a.request.workload.jobs.size() == 20);
}

TEST_CASE("cluster: a resize pauses the job for the restart, and its progress is kept") {
  // A long job alone, then a short one with a tight deadline arrives: ElasticFlow shrinks the
  // first to make room, which costs it the pause.
  json req{{"cluster", small_cluster(16)},
           {"workload", {{"jobs", {job("long", 0, 1e7, 16, 20000), job("short", 600, 2400, 8, 300)}}}},
           {"policies", {"elasticflow-vtrain"}},
           {"restart_pause_s", 120}};
  const ScheduleResult r = run_ok(req);
  const JobOutcome& o = r.policies[0].jobs[0];
  REQUIRE(o.finished);
  CHECK(o.resizes >= 1);
  bool paused = false;
  for (size_t k = 1; k < o.allocations.size(); ++k)
    if (o.allocations[k].gpus > 0 && o.allocations[k - 1].gpus > 0)
      paused = paused || o.allocations[k].resume_s == doctest::Approx(o.allocations[k].time_s + 120);
  CHECK(paused);
  CHECK(iterations_trained(o) == doctest::Approx(20000).epsilon(1e-9));
  CHECK(r.policies[0].jobs[1].met_deadline);
}

TEST_CASE("cluster: jobs sized by duration keep their deadline in proportion") {
  json j = job("d", 50, 0, 8, 1);
  j.erase("iterations");
  j.erase("deadline_s");
  j["duration_s"] = 3600;
  j["deadline_factor"] = 1.25;
  const ScheduleResult r = run_ok(json{{"cluster", small_cluster(64)}, {"workload", {{"jobs", {j}}}}, {"policies", {"fifo"}}});
  const JobSpec& s = r.request.workload.jobs[0];
  const double t = r.curves[0].data_parallel.at(8)->iteration_time_s;
  CHECK(s.iterations == std::llround(3600 / t));
  CHECK(s.deadline_s == doctest::Approx(50 + 1.25 * s.iterations * t));
  CHECK(r.policies[0].jobs[0].jct_s == doctest::Approx(s.iterations * t));
}

TEST_CASE("cluster: a trace in ElasticFlow's format becomes LLM jobs by the mapping") {
  const std::string csv =
      "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,duration\n"
      "a,1000,10,resnet50,3000,64,1,1000\n"
      "b,1600,10,vgg16,2600,64,4,800\n"
      "c,1700,10,bert,9000,64,16,5000\n";
  auto w = map_trace_csv(csv, default_trace_mapping(), 1024);
  REQUIRE(w.ok());
  const auto& jobs = w.value().jobs;
  REQUIRE(jobs.size() == 3);
  CHECK(jobs[0].arrival_s == 0);
  CHECK(jobs[1].arrival_s == 600);
  CHECK(jobs[0].gpus == 8);
  CHECK(jobs[1].gpus == 32);
  CHECK(jobs[2].gpus == 128);
  CHECK(jobs[0].model.name == "gpt3-2.7b");
  CHECK(jobs[1].model.name == "gpt-13b");
  CHECK(jobs[2].model.name == "gpt3-175b");
  CHECK(jobs[0].duration_s == 1000);
  CHECK(jobs[0].deadline_factor == doctest::Approx(2.0));
  CHECK(jobs[1].deadline_factor == doctest::Approx(1.25));
  CHECK(jobs[0].plan.sequence_parallel);
  CHECK(jobs[0].plan.zero_stage == 1);
  // A scale that leaves the cluster is an error naming line and column.
  TraceMapping m = default_trace_mapping();
  m.gpu_scale = 128;
  auto bad = map_trace_csv(csv, m, 1024);
  REQUIRE_FALSE(bad.ok());
  CHECK(has_error(bad.errors(), "/workload/csv", "line 4, column 7 (num_gpu)"));
}

TEST_CASE("cluster: bad rows of a CSV job list name their line and column") {
  const std::string csv =
      "id,arrival_s,deadline_s,model,global_batch,gpus,iterations\n"
      "a,0,3600,gpt3-2.7b,512,8,100\n"
      "b,10,abc,gpt3-2.7b,512,8,100\n"
      "c,20,30,gpt3-2.7b,512,12,100\n"
      "d,30,3600,gpt-9,512,8,100\n"
      "e,40,20,gpt3-2.7b,512,8,100\n";
  const Diagnostics e = errors_of(json{{"cluster", small_cluster(64)}, {"workload", {{"csv", csv}}}});
  INFO(all_messages(e));
  CHECK(has_error(e, "/workload/csv", "line 3, column 3 (deadline_s): must be a number, got \"abc\""));
  CHECK(has_error(e, "/workload/csv", "line 4, column 6 (gpus): must be 1, 2, 4, or a multiple of 8"));
  CHECK(has_error(e, "/workload/csv", "line 5, column 4 (model): unknown model preset \"gpt-9\""));
  CHECK(has_error(e, "/workload/csv", "line 6, column 3 (deadline_s): must be after arrival_s (40)"));
  const Diagnostics header = errors_of(
      json{{"cluster", small_cluster(64)}, {"workload", {{"csv", "id,arrival,deadline_s\nx,1,2\n"}}}});
  CHECK(has_error(header, "/workload/csv", "line 1, column 2 (arrival): unknown column"));
  const Diagnostics quote = errors_of(
      json{{"cluster", small_cluster(64)}, {"workload", {{"csv", "id,arrival_s\n\"x,1\n"}}}});
  CHECK(has_error(quote, "/workload/csv", "line 2: a quoted field is not closed"));
}

TEST_CASE("cluster: a CSV job list runs like the same jobs as JSON") {
  const std::string csv =
      "id,arrival_s,deadline_s,model,global_batch,gpus,tokens,tp,pp,micro_batch,recompute\n"
      "a,0,36000,gpt3-2.7b,512,16,2e9,1,1,2,selective\n"
      "b,100,72000,gpt3-2.7b,512,8,1e9,,,,\n";
  json jobs = json::array();
  jobs.push_back({{"id", "a"}, {"arrival_s", 0}, {"deadline_s", 36000}, {"model", "gpt3-2.7b"}, {"global_batch", 512},
                  {"gpus", 16}, {"tokens", 2e9},
                  {"plan", {{"tp", 1}, {"pp", 1}, {"micro_batch", 2}, {"recompute", "selective"}}}});
  jobs.push_back({{"id", "b"}, {"arrival_s", 100}, {"deadline_s", 72000}, {"model", "gpt3-2.7b"}, {"global_batch", 512},
                  {"gpus", 8}, {"tokens", 1e9}});
  const ScheduleResult from_csv =
      run_ok(json{{"cluster", small_cluster(64)}, {"workload", {{"csv", csv}}}, {"policies", bundled_policies()}});
  const ScheduleResult from_json =
      run_ok(json{{"cluster", small_cluster(64)}, {"workload", {{"jobs", jobs}}}, {"policies", bundled_policies()}});
  json a = json::parse(to_json_text(from_csv)), b = json::parse(to_json_text(from_json));
  for (json* j : {&a, &b}) {
    j->erase("stats");
    (*j)["workload"].erase("name");
    for (auto& p : (*j)["policies"]) p.erase("seconds");
  }
  CHECK(a == b);
  const JobSpec& first = from_csv.request.workload.jobs[0];
  CHECK(first.plan.tp == 1);
  CHECK(first.plan.dp == 16);
  CHECK(first.plan.recompute == Recompute::selective);
  CHECK(first.iterations == static_cast<long long>(std::ceil(2e9 / (512.0 * 2048))));
}

TEST_CASE("cluster: bad requests name the field") {
  json base{{"cluster", small_cluster(64)}, {"workload", {{"jobs", {job("a", 0, 100, 8, 10)}}}}};
  auto check = [&](json req, const std::string& pointer, const std::string& text) {
    const Diagnostics e = errors_of(req);
    INFO(all_messages(e));
    CHECK(has_error(e, pointer, text));
  };
  json r = base;
  r["policies"] = {"fifo", "sjf"};
  check(r, "/policies/1", "unknown policy \"sjf\"");
  r = base;
  r["cluster"]["gpu"] = "tpu";
  check(r, "/cluster/gpu", "no profile named \"tpu\"");
  r = base;
  r["workload"]["jobs"][0]["gpus"] = 128;
  check(r, "/workload/jobs/0/gpus", "must be at most /cluster/num_gpus (64)");
  r = base;
  r["workload"]["jobs"][0]["deadline_s"] = 0;
  check(r, "/workload/jobs/0/deadline_s", "must be after /workload/jobs/0/arrival_s");
  r = base;
  r["workload"]["jobs"][0]["plan"] = {{"tp", 3}};
  check(r, "/workload/jobs/0/gpus", "must be a multiple of its plan's tp x pp (3)");
  r = base;
  r["workload"]["jobs"][0]["plan"] = {{"tp", 8}, {"pp", 1}, {"dp", 1}};
  check(r, "/workload/jobs/0/plan/dp", "follows from the job's gpus");
  r = base;
  r["workload"]["jobs"][0]["model"] = {{"layers", 16}, {"hidden", 2048}, {"heads", 12}};
  check(r, "/workload/jobs/0/model/hidden", "");
  r = base;
  r["workload"]["jobs"][0]["model"] = "gpt3-175b";
  check(r, "/workload/jobs/0/gpus", "no plan of this model and batch fits in memory on 8 GPUs");
  r = base;
  r["workload"]["jobs"][0]["tokens"] = 1e9;
  check(r, "/workload/jobs/0", "give exactly one of tokens, iterations or duration_s");
  r = base;
  r["workload"]["first_jobs"] = 5;
  check(r, "/workload/first_jobs", "must be at most the workload's 1 jobs");
  r = base;
  r["workload"]["example"] = "itp-195";
  check(r, "/workload", "give exactly one of example, jobs, csv or generate");
  r = base;
  r["restart_pause_s"] = -1;
  check(r, "/restart_pause_s", "must be at least 0");
  r = base;
  r["workload"]["jobs"].push_back(job("a", 5, 100, 8, 10));
  check(r, "/workload", "job id \"a\" is given to jobs 1 and 2");
  r = base;
  r["workload"] = {{"generate", {{"jobs", 3}, {"mix", {{{"model", "gpt3-2.7b"}, {"global_batch", 512}, {"gpus", 12}}}}}}};
  check(r, "/workload/generate/mix/0/gpus", "must be 1, 2, 4, or a multiple of 8");
  // The API answers with the same errors as data.
  const json reply = json::parse(api::schedule(R"({"cluster": {"gpu": "a100-sxm4-80gb"}, "workload": {}})"));
  CHECK(reply["ok"] == false);
  CHECK(reply["errors"][0]["pointer"] == "/cluster/num_gpus");
  CHECK(json::parse(api::schedule("{\"cluster\": ["))["errors"][0]["code"] == "syntax");
}

TEST_CASE("cluster: a policy added by a user runs behind the same interface, and one that breaks the rules is stopped") {
  // Every GPU to the earliest waiting job, then nothing to the others until it is done.
  class OneAtATime : public SchedulingPolicy {
   public:
    bool admit(const ClusterState&, int) override { return true; }
    void allocate(const ClusterState& s, std::vector<int>& gpus) override {
      for (size_t i = 0; i < s.jobs.size(); ++i)
        if (s.jobs[i].phase == JobPhase::running) return;
      for (size_t i = 0; i < s.jobs.size(); ++i)
        if (s.jobs[i].phase == JobPhase::waiting && s.jobs[i].admitted) {
          gpus[i] = s.num_gpus;
          return;
        }
    }
  };
  class Greedy : public SchedulingPolicy {
   public:
    bool admit(const ClusterState&, int) override { return true; }
    void allocate(const ClusterState& s, std::vector<int>& gpus) override {
      for (size_t i = 0; i < s.jobs.size(); ++i)
        if (s.jobs[i].admitted && s.jobs[i].phase != JobPhase::finished) gpus[i] = s.num_gpus;
    }
  };
  register_scheduling_policy({"test-one-at-a-time", "one job at a time on the whole cluster", CurveKind::best_plan,
                              []() -> std::unique_ptr<SchedulingPolicy> { return std::make_unique<OneAtATime>(); }});
  register_scheduling_policy({"test-greedy", "every job on the whole cluster", CurveKind::best_plan,
                              []() -> std::unique_ptr<SchedulingPolicy> { return std::make_unique<Greedy>(); }});
  json req = busy_request(8);
  req["policies"] = {"test-one-at-a-time"};
  const ScheduleResult r = run_ok(req);
  CHECK(r.policies[0].finished == 8);
  for (const UsagePoint& u : r.policies[0].timeline) CHECK((u.gpus_allocated == 64 || u.gpus_allocated == 0));
  req["policies"] = {"test-greedy"};
  const Diagnostics e = errors_of(req);
  CHECK(has_error(e, "/policies", "policy \"test-greedy\" allocated 128 GPUs of 64"));
}

TEST_CASE("cluster: the bundled workload and case read, and the case's request is the paper's cluster") {
  CHECK(std::find(workload_example_names().begin(), workload_example_names().end(), "itp-195") !=
        workload_example_names().end());
  const ScheduleRequest req = parse_ok(json{{"case", "vtrain-case2"}, {"workload", {{"first_jobs", 64}}}});
  CHECK(req.cluster.num_gpus == 1024);
  CHECK(req.cluster.gpu == "a100-sxm4-80gb");
  CHECK(req.workload.jobs.size() == 64);
  CHECK(req.policies.size() == 4);
  CHECK(req.restart_pause_s == 60);
  for (size_t i = 1; i < req.workload.jobs.size(); ++i)
    CHECK(req.workload.jobs[i].arrival_s >= req.workload.jobs[i - 1].arrival_s);
  const ScheduleRequest all = parse_ok(json{{"case", "vtrain-case2"}, {"workload", {{"first_jobs", nullptr}}}});
  CHECK(all.workload.jobs.size() == 195);
}

TEST_CASE("cluster: a run can be cancelled through its progress callback") {
  ScheduleControl control;
  int reports = 0;
  control.progress = [&](double f) {
    CHECK(f >= 0);
    CHECK(f <= 1);
    return ++reports < 3;
  };
  clear_curve_cache();
  auto r = schedule(parse_ok(busy_request(12)), control);
  REQUIRE_FALSE(r.ok());
  CHECK(r.errors()[0].code == "cancelled");
}

TEST_CASE("cluster: a period adds re-planning events and keeps every invariant") {
  json req = busy_request(12);
  const ScheduleResult plain = run_ok(req);
  req["period_s"] = 900;
  const ScheduleResult periodic = run_ok(req);
  for (size_t k = 0; k < plain.policies.size(); ++k) {
    const PolicyResult& a = plain.policies[k];
    const PolicyResult& b = periodic.policies[k];
    INFO(a.name);
    CHECK(b.events >= static_cast<int>(b.makespan_s / 900));
    CHECK(b.events > a.events);
    for (size_t i = 0; i < b.jobs.size(); ++i)
      if (b.jobs[i].finished)
        CHECK(iterations_trained(b.jobs[i]) ==
              doctest::Approx(static_cast<double>(periodic.request.workload.jobs[i].iterations)).epsilon(1e-9));
    // fifo and edf never change what a job holds, so re-planning changes nothing for them.
    if (a.name == "fifo" || a.name == "edf") CHECK(a.avg_jct_s == b.avg_jct_s);
  }
  req["period_s"] = 0.5;
  CHECK(has_error(errors_of(req), "/period_s", "must be 0 (no period) or at least 1 s"));
}
