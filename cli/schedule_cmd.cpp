// vtrain schedule: many training jobs on one cluster, one column per scheduling policy.

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "vtrain/json_text.hpp"
#include "vtrain/schedule.hpp"

namespace vtrain::cli {

using nlohmann::json;

namespace {

// vTrain's own figures for its second case study (Bang et al., MICRO'24, arXiv 2312.12391).
const char* kPaperFigures =
    "the paper (Bang et al., MICRO'24), on its own 1024-A100 setup: deadline satisfaction 1.09-1.23x, "
    "average JCT -15.21%, makespan -23.03%";

std::string hours(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  return buf;
}

std::string percent(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * f);
  return buf;
}

std::string times(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", x);
  return buf;
}

std::string signed_percent(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * f);
  return buf;
}

void print_result(const ScheduleResult& r, bool show_time) {
  const ScheduleRequest& q = r.request;
  if (!q.description.empty()) std::printf("%s\n", q.description.c_str());
  std::printf("%zu jobs", q.workload.jobs.size());
  if (!q.workload.name.empty()) std::printf(" (%s)", q.workload.name.c_str());
  std::printf(" on %d x %s, %d per node; a resize pauses a job for %s s", q.cluster.num_gpus, q.cluster.gpu.c_str(),
              q.cluster.gpus_per_node, format_number(q.restart_pause_s).c_str());
  if (q.period_s > 0) std::printf("; re-planned every %s s", format_number(q.period_s).c_str());
  std::printf("\n\n");
  const int width = 20;
  auto row = [&](const char* name, const std::function<std::string(const PolicyResult&)>& cell) {
    std::printf("  %-22s", name);
    for (const PolicyResult& p : r.policies) std::printf("%*s", width, cell(p).c_str());
    std::printf("\n");
  };
  row("", [](const PolicyResult& p) { return p.name; });
  row("jobs admitted", [](const PolicyResult& p) { return std::to_string(p.admitted); });
  row("deadlines met", [](const PolicyResult& p) {
    return std::to_string(p.deadlines_met) + " (" + percent(p.deadline_ratio) + ")";
  });
  row("jobs finished", [](const PolicyResult& p) { return std::to_string(p.finished); });
  row("average JCT", [](const PolicyResult& p) { return hours(p.avg_jct_s); });
  row("95th-percentile JCT", [](const PolicyResult& p) { return hours(p.p95_jct_s); });
  row("makespan", [](const PolicyResult& p) { return hours(p.makespan_s); });
  row("GPU utilization", [](const PolicyResult& p) { return percent(p.gpu_utilization); });
  row("GPU-hours", [](const PolicyResult& p) { return format_number(p.gpu_hours); });
  if (q.cluster.price_per_gpu_hour_usd > 0) row("cost", [](const PolicyResult& p) { return format_money(p.cost_usd); });
  row("resizes", [](const PolicyResult& p) { return std::to_string(p.resizes); });
  const PolicyComparison& c = r.comparison;
  if (c.valid) {
    std::printf("\n%s against %s: deadlines met %s, average JCT %s, 95th-percentile JCT %s, makespan %s\n",
                c.policy.c_str(), c.baseline.c_str(),
                c.deadlines_met_x > 0 ? times(c.deadlines_met_x).c_str() : "n/a (none met)",
                signed_percent(c.avg_jct_change).c_str(), signed_percent(c.p95_jct_change).c_str(),
                signed_percent(c.makespan_change).c_str());
  }
  if (show_time)
    std::printf("wall time %.2f s (curves of %d job shapes: %.2f s, %lld plans simulated)\n", r.seconds,
                r.curve_stats.shapes, r.curve_stats.seconds, r.curve_stats.plans_simulated);
}

// Each job shape's iteration time at powers of two GPUs and at the whole cluster: with the best
// plan on at most that many, and with the job's own plan scaled by data parallelism.
void print_curves(const ScheduleResult& r) {
  const ScheduleRequest& q = r.request;
  std::printf("%zu jobs", q.workload.jobs.size());
  if (!q.workload.name.empty()) std::printf(" (%s)", q.workload.name.c_str());
  std::printf(" on %d x %s: seconds per iteration, best plan / own plan scaled by data parallelism\n", q.cluster.num_gpus,
              q.cluster.gpu.c_str());
  std::printf("(own plan: tp x pp x dp on the GPUs the job asks for; - where no plan fits)\n\n");
  const int width = 22;
  std::printf("  %6s", "GPUs");
  for (const JobCurves& c : r.curves) std::printf("%*s", width, c.model.name.c_str());
  std::printf("\n  %6s", "");
  for (const JobCurves& c : r.curves) {
    const PlanConfig& p = c.fixed_plan;
    const std::string own = std::to_string(p.tp) + "x" + std::to_string(p.pp) + "x" + std::to_string(p.dp) + ", mbs " +
                            std::to_string(p.micro_batch);
    std::printf("%*s", width, own.c_str());
  }
  std::printf("\n");
  std::vector<int> counts;
  for (int n = 1; n < q.cluster.num_gpus; n *= 2) counts.push_back(n);
  counts.push_back(q.cluster.num_gpus);
  auto time = [](const CurvePoint* p) {
    char buf[32];
    if (!p || !p->usable) return std::string("-");
    std::snprintf(buf, sizeof buf, "%.2f", p->iteration_time_s);
    return std::string(buf);
  };
  for (int n : counts) {
    bool any = false;
    for (const JobCurves& c : r.curves) any = any || (c.best.at(n) && c.best.at(n)->usable);
    if (!any || !r.curves.front().best.at(n)) continue;
    std::printf("  %6d", n);
    for (const JobCurves& c : r.curves)
      std::printf("%*s", width, (time(c.best.at(n)) + " / " + time(c.data_parallel.at(n))).c_str());
    std::printf("\n");
  }
}

// A request's workload {"file": PATH}: read here, relative to the request, as csv or jobs.
bool load_workload_file(json& request, const std::string& request_path) {
  if (!request.is_object() || !request.contains("workload") || !request["workload"].is_object() ||
      !request["workload"].contains("file"))
    return true;
  json& w = request["workload"];
  if (!w["file"].is_string()) {
    print_errors({make_diagnostic("type", "/workload/file", "must be a path (a .csv or .json job list)")});
    return false;
  }
  const std::string given = w["file"].get<std::string>();
  std::filesystem::path path(given);
  if (path.is_relative()) path = std::filesystem::path(request_path).parent_path() / path;
  std::string text;
  if (!read_file(path.string(), text)) {
    print_errors({make_diagnostic("file", "/workload/file", "cannot read \"" + path.string() + "\"")});
    return false;
  }
  w.erase("file");
  if (path.extension() == ".csv") {
    w["csv"] = text;
    return true;
  }
  json jobs;
  Diagnostics errors = parse_json_text(text, jobs);
  for (auto& d : errors) d.message = path.string() + ": " + d.message;
  if (!errors.empty()) {
    print_errors(errors);
    return false;
  }
  // A workload file: {"jobs": [...]} (as bundled examples and --map-trace write them), or the list.
  if (jobs.is_object() && jobs.contains("jobs")) jobs = jobs["jobs"];
  w["jobs"] = jobs;
  return true;
}

int map_trace(const Args& args) {
  std::string text;
  const std::string path = args.get("map-trace");
  if (!read_file(path, text)) {
    std::fprintf(stderr, "error: cannot read \"%s\"\n", path.c_str());
    return 2;
  }
  json request{{"cluster", {{"gpu", "a100-sxm4-80gb"}, {"num_gpus", 1024}, {"gpus_per_node", 8}}},
               {"workload", {{"csv", text}}}};
  if (args.has("gpus")) request["cluster"]["num_gpus"] = std::stoi(args.get("gpus"));
  if (args.has("mapping")) {
    json mapping;
    if (!load_json_argument(args.get("mapping"), mapping, false)) return 2;
    request["workload"]["mapping"] = mapping;
  }
  auto req = parse_schedule_request(request);
  if (!req.ok()) {
    print_errors(req.errors());
    return 1;
  }
  ScheduleControl control;
  if (!threads_option(args, control.threads)) return 2;
  auto w = resolve_workload(req.value(), control);
  if (!w.ok()) {
    print_errors(w.errors());
    return 1;
  }
  Workload out = w.value();
  const std::string name = std::filesystem::path(path).filename().string();
  out.description = "the jobs of the ITP trace " + name +
                    " (ElasticFlow, ASPLOS'23) as LLM jobs on a cluster of " +
                    std::to_string(req.value().cluster.num_gpus) + " A100s, by vtrain's trace mapping";
  const json j = to_json(out);
  const json source = "mapped by `vtrain schedule --map-trace " + name +
                      "` from the job traces of Microsoft's ITP clusters published with ElasticFlow "
                      "(github.com/microsoft/elasticflow-traces; MIT licence, see LICENSE-ITP-TRACES beside this file)";
  // One job a line, so that the file reads and diffs row by row like the trace it comes from.
  std::printf("{\n  \"description\": %s,\n  \"source\": %s,\n  \"jobs\": [\n", dump_json(j["description"]).c_str(),
              dump_json(source).c_str());
  for (size_t i = 0; i < j["jobs"].size(); ++i)
    std::printf("    %s%s\n", dump_json(j["jobs"][i]).c_str(), i + 1 < j["jobs"].size() ? "," : "");
  std::printf("  ]\n}\n");
  return 0;
}

}  // namespace

int run_schedule(const Args& args) {
  if (args.has("map-trace")) {
    int gpus = 1024;
    if (!whole_option(args, "gpus", 1, 131072, gpus)) return 2;
    return map_trace(args);
  }
  std::vector<json> requests;
  std::string names;
  for (const auto& n : schedule_case_names()) names += (names.empty() ? "" : ", ") + n;
  int jobs = 0;
  if (!whole_option(args, "jobs", 1, 5000, jobs)) return 2;
  if (args.has("case")) {
    const std::string name = args.get("case");
    if (!find_schedule_case(name)) {
      std::fprintf(stderr, "error: --case: unknown case \"%s\"; cases are %s\n", name.c_str(), names.c_str());
      return 2;
    }
    // The paper reports a 64- and a 128-job workload: the case runs both unless --jobs picks one.
    if (jobs > 0) requests.push_back({{"case", name}, {"workload", {{"first_jobs", jobs}}}});
    else
      for (int n : {64, 128}) requests.push_back({{"case", name}, {"workload", {{"first_jobs", n}}}});
  } else if (!args.positional.empty()) {
    json request;
    if (!load_json_argument(args.positional[0], request, false)) {
      std::fprintf(stderr, "a bundled request is --case NAME (%s)\n", names.c_str());
      return 2;
    }
    if (!load_workload_file(request, args.positional[0])) return 1;
    if (jobs > 0) request["workload"]["first_jobs"] = jobs;
    requests.push_back(request);
  } else {
    std::fprintf(stderr, "error: schedule needs a REQUEST.json, --case NAME (%s) or --map-trace TRACE.csv\n",
                 names.c_str());
    return 2;
  }
  ScheduleControl control;
  if (!threads_option(args, control.threads)) return 2;
  json results = json::array();
  for (size_t k = 0; k < requests.size(); ++k) {
    auto req = parse_schedule_request(requests[k]);
    if (!req.ok()) {
      print_errors(req.errors());
      return 1;
    }
    auto result = schedule(req.value(), control);
    if (!result.ok()) {
      print_errors(result.errors());
      return 1;
    }
    if (args.has("json")) {
      results.push_back(json::parse(to_json_text(result.value())));
      continue;
    }
    if (k > 0) std::printf("\n");
    if (args.has("curves")) print_curves(result.value());
    else print_result(result.value(), args.has("time"));
  }
  if (args.has("json")) {
    std::printf("%s\n", dump_json((results.size() == 1 ? results[0] : json{{"runs", results}}), 1).c_str());
  } else if (args.has("case") && !args.has("curves")) {
    std::printf("\n%s\n", kPaperFigures);
  }
  return 0;
}

}  // namespace vtrain::cli
