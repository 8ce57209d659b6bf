#include "cluster/workload_read.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "cluster/csv.hpp"
#include "common/json_reader.hpp"

namespace vtrain::detail {

using nlohmann::json;

namespace {

// Plan fields a job may give; dp and the batch follow from its gpus and global_batch.
const char* const kPlanKeys[] = {"tp", "pp", "micro_batch", "recompute", "sequence_parallel", "virtual_stages",
                                 "zero_stage", "zero_all_reduce", "dp_overlap", "attention", "precision",
                                 "placement", "p2p_overlap", "grad_accumulation_fusion", "tp_async_backward",
                                 "launch_blocking"};
// Of them, those that make the plan the job's own (else the explorer picks them).
const char* const kOwnPlanKeys[] = {"tp", "pp", "micro_batch", "recompute"};

// A pointer of a simulate config (what parse_sim_config reports) as the job's own field.
std::string job_pointer(const std::string& config_pointer, const std::string& job) {
  auto starts = [&](const char* p) {
    const size_t n = std::char_traits<char>::length(p);
    return config_pointer.compare(0, n, p) == 0 && (config_pointer.size() == n || config_pointer[n] == '/');
  };
  if (starts("/plan/global_batch")) return job + "/global_batch";
  if (starts("/plan/dp") || starts("/cluster/num_gpus")) return job + "/gpus";
  if (starts("/model") || starts("/plan")) return job + config_pointer;
  if (config_pointer.empty()) return job;
  return config_pointer;
}

// The same diagnostic about the job's field: its pointer, and the pointers its message names.
Diagnostic as_job_diagnostic(const Diagnostic& d, const std::string& job) {
  Diagnostic out{d.code, job_pointer(d.pointer, job), ""};
  std::string& m = out.message;
  for (size_t i = 0; i < d.message.size();) {
    const bool token = d.message[i] == '/' && (i == 0 || d.message[i - 1] == ' ' || d.message[i - 1] == '(');
    if (!token) {
      m += d.message[i++];
      continue;
    }
    size_t e = i;
    while (e < d.message.size() && d.message[e] != ' ' && d.message[e] != ')' && d.message[e] != ',' &&
           d.message[e] != ':')
      ++e;
    const std::string p = d.message.substr(i, e - i);
    m += (p == "/" && i == 0) ? out.pointer : job_pointer(p, job);
    i = e;
  }
  return out;
}

bool read_whole(ObjectReader& r, const char* key, long long& out, long long lo, long long hi) {
  const json* v = r.child(key);
  if (!v) return false;
  if (!v->is_number() || v->get<double>() != std::floor(v->get<double>())) {
    r.fail("type", r.at(key), "must be a whole number");
    return false;
  }
  const double d = v->get<double>();
  if (d < static_cast<double>(lo) || d > static_cast<double>(hi)) {
    r.fail("range", r.at(key), "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " +
                                   describe_number(d));
    return false;
  }
  out = static_cast<long long>(d);
  return true;
}

std::string allowed_counts_text(const ClusterConfig& c) {
  std::string s;
  for (int n = 1; n < c.gpus_per_node; n *= 2) s += std::to_string(n) + ", ";
  return s + "or a multiple of " + std::to_string(c.gpus_per_node) + " (whole nodes)";
}

}  // namespace

bool read_model(const json& j, const std::string& pointer, ModelConfig& model, Diagnostics& errors) {
  json cfg{{"model", j}, {"plan", json::object()}};
  auto c = parse_sim_config(cfg);
  if (!c.ok()) {
    for (const Diagnostic& d : c.errors())
      if (d.pointer.rfind("/model", 0) == 0) {
        Diagnostic out = as_job_diagnostic(d, pointer.substr(0, pointer.size() - 6));
        errors.push_back(out);
      }
    return false;
  }
  model = c.value().model;
  return true;
}

void read_job_object(const json& j, const std::string& pointer, const ClusterConfig& cluster, JobSpec& job,
                     Diagnostics& errors) {
  const size_t first_error = errors.size();
  ObjectReader r(&j, pointer, errors);
  if (!r.present()) return;
  r.read("id", job.id);
  r.read("arrival_s", job.arrival_s, 0.0, 1e10);
  const bool has_deadline = r.has("deadline_s");
  r.read("deadline_s", job.deadline_s, 0.0, 1e10);
  const bool has_batch = r.has("global_batch");
  r.read("global_batch", job.global_batch, 1, limits::global_batch);
  const bool has_gpus = r.has("gpus");
  r.read("gpus", job.gpus, 1, limits::num_gpus);
  const bool has_tokens = r.has("tokens"), has_iterations = r.has("iterations"), has_duration = r.has("duration_s");
  r.read("tokens", job.tokens, 0.0, 1e18, true);
  read_whole(r, "iterations", job.iterations, 1, 1000000000000LL);
  r.read("duration_s", job.duration_s, 0.0, 1e10, true);
  const bool has_factor = r.has("deadline_factor");
  r.read("deadline_factor", job.deadline_factor, 0.0, 1e6, true);
  const json* model = r.child("model");
  const json* plan = r.child("plan");
  r.finish();
  if (!model) r.fail("missing", r.at("model"), "is required: a preset name or a model object");
  if (!has_batch) r.fail("missing", r.at("global_batch"), "is required: the sequences per iteration");
  if (!has_gpus) r.fail("missing", r.at("gpus"), "is required: the GPUs the job asks for");
  const int sizes = has_tokens + has_iterations + has_duration;
  if (sizes != 1)
    r.fail(sizes ? "conflict" : "missing", pointer,
           "give exactly one of tokens, iterations or duration_s (how long it runs on its gpus)");
  if (has_duration) {
    if (!has_factor)
      r.fail("missing", r.at("deadline_factor"), "is required with duration_s: the deadline in durations after arrival");
    if (has_deadline)
      r.fail("conflict", r.at("deadline_s"), "follows from deadline_factor with duration_s; give one of them");
  } else {
    if (has_factor) r.fail("conflict", r.at("deadline_factor"), "applies only with duration_s; give deadline_s");
    if (!has_deadline) r.fail("missing", r.at("deadline_s"), "is required: the time the job should be done by (s)");
    else if (job.deadline_s <= job.arrival_s && errors.size() == first_error)
      r.fail("range", r.at("deadline_s"), "must be after " + r.at("arrival_s") + " (" +
                                              describe_number(job.arrival_s) + "), got " +
                                              describe_number(job.deadline_s));
  }
  if (has_gpus && errors.size() == first_error) {
    const std::vector<int> counts = allocation_counts(cluster.num_gpus, cluster.gpus_per_node);
    if (job.gpus > cluster.num_gpus)
      r.fail("range", r.at("gpus"), "must be at most /cluster/num_gpus (" + std::to_string(cluster.num_gpus) +
                                        "), got " + std::to_string(job.gpus));
    else if (!std::binary_search(counts.begin(), counts.end(), job.gpus))
      r.fail("allocation", r.at("gpus"),
             "must be " + allowed_counts_text(cluster) + ", got " + std::to_string(job.gpus));
  }

  // The model and the plan's fields as a simulate config reads them.
  json plan_obj = json::object();
  job.plan_given = false;
  if (plan) {
    ObjectReader pr(plan, r.at("plan"), errors);
    if (pr.present()) {
      for (const char* k : kPlanKeys) {
        if (const json* v = pr.child(k)) plan_obj[k] = *v;
      }
      for (const char* k : {"dp", "global_batch"})
        if (plan->contains(k))
          pr.fail("derived", join_pointer(pr.pointer(), k),
                  std::string(k) == "dp" ? "follows from the job's gpus / (tp x pp); give " + r.at("gpus")
                                         : "is the job's own " + r.at("global_batch"));
      for (const char* k : kOwnPlanKeys) job.plan_given = job.plan_given || plan->contains(k);
      pr.child("dp");
      pr.child("global_batch");
      pr.finish();
    }
  }
  if (!model || errors.size() != first_error) return;
  auto degree = [&](const char* key) {
    const auto it = plan_obj.find(key);
    if (it == plan_obj.end()) return 1;
    return it->is_number_integer() && it->get<long long>() > 0 && it->get<long long>() <= limits::tp ? it->get<int>() : 0;
  };
  const int tp = degree("tp"), pp = degree("pp");
  int dp = 1;
  if (job.plan_given && tp > 0 && pp > 0) {
    if (job.gpus % (tp * pp) != 0) {
      r.fail("divisibility", r.at("gpus"),
             "must be a multiple of its plan's tp x pp (" + std::to_string(tp * pp) + "), got " +
                 std::to_string(job.gpus));
      return;
    }
    dp = job.gpus / (tp * pp);
  }
  if (!job.plan_given) plan_obj["tp"] = plan_obj["pp"] = 1;
  plan_obj["dp"] = job.plan_given ? dp : 1;
  plan_obj["global_batch"] = job.global_batch;
  json cfg{{"model", *model},
           {"plan", plan_obj},
           {"cluster", {{"gpu", cluster.gpu}, {"gpus_per_node", cluster.gpus_per_node}}}};
  auto c = parse_sim_config(cfg);
  if (!c.ok()) {
    for (const Diagnostic& d : c.errors()) errors.push_back(as_job_diagnostic(d, pointer));
    return;
  }
  job.model = c.value().model;
  job.plan = c.value().plan;
}

void read_job_list(const json& list, const std::string& pointer, const ClusterConfig& cluster,
                   std::vector<JobSpec>& jobs, Diagnostics& errors) {
  if (!list.is_array()) {
    errors.push_back(make_diagnostic("type", pointer, "must be an array of jobs"));
    return;
  }
  if (list.empty()) errors.push_back(make_diagnostic("range", pointer, "must hold at least one job"));
  if (list.size() > static_cast<size_t>(kMaxJobs)) {
    errors.push_back(make_diagnostic("range", pointer, "holds " + std::to_string(list.size()) +
                                                           " jobs; at most " + std::to_string(kMaxJobs)));
    return;
  }
  for (size_t i = 0; i < list.size(); ++i) {
    JobSpec job;
    job.id = "job-" + std::to_string(i + 1);
    job.origin = pointer + "/" + std::to_string(i);
    read_job_object(list[i], job.origin, cluster, job, errors);
    jobs.push_back(std::move(job));
  }
}

// ---------------------------------------------------------------------------------------------
// CSV

namespace {

const char* const kJobColumns[] = {"id", "arrival_s", "deadline_s", "model", "global_batch", "gpus",
                                   "tokens", "iterations", "duration_s", "deadline_factor",
                                   "tp", "pp", "micro_batch", "recompute", "sequence_parallel", "zero_stage"};
const char* const kTraceColumns[] = {"job_id", "submission_time", "num_iteration", "model_name",
                                     "deadline", "batch_size", "num_gpu", "duration"};

bool is_plan_column(const std::string& c) {
  for (const char* k : {"tp", "pp", "micro_batch", "recompute", "sequence_parallel", "zero_stage"})
    if (c == k) return true;
  return false;
}

std::string where(int line, int column, const std::string& name) {
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + " (" + name + ")";
}

void csv_fail(Diagnostics& errors, const std::string& pointer, const std::string& code, const std::string& rule) {
  errors.push_back(make_diagnostic(code, pointer, rule));
}

void read_jobs_csv(const CsvTable& t, const std::string& pointer, const ClusterConfig& cluster,
                   std::vector<JobSpec>& jobs, Diagnostics& errors) {
  const CsvRow& header = t.rows.front();
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const CsvCell& c : header.cells) {
    bool known = false;
    for (const char* k : kJobColumns) known = known || c.text == k;
    if (!known) {
      std::string list;
      for (const char* k : kJobColumns) list += (list.empty() ? "" : ", ") + std::string(k);
      csv_fail(errors, pointer, "unknown_column",
               where(header.line, c.column, c.text) + ": unknown column; a job list's columns are " + list +
                   " (or the ITP trace's: job_id, submission_time, num_iteration, model_name, deadline, "
                   "batch_size, num_gpu, duration)");
    } else if (!seen.insert(c.text).second) {
      csv_fail(errors, pointer, "duplicate_column", where(header.line, c.column, c.text) + ": the column is given twice");
    }
    names.push_back(c.text);
  }
  if (!errors.empty()) return;
  for (size_t r = 1; r < t.rows.size(); ++r) {
    const CsvRow& row = t.rows[r];
    if (row.cells.size() != names.size()) {
      csv_fail(errors, pointer, "columns",
               "line " + std::to_string(row.line) + ": has " + std::to_string(row.cells.size()) + " cells, the header " +
                   std::to_string(names.size()));
      continue;
    }
    json obj = json::object();
    json plan = json::object();
    std::map<std::string, int> column_of;
    bool bad = false;
    for (size_t k = 0; k < names.size(); ++k) {
      const std::string& name = names[k];
      const std::string& text = row.cells[k].text;
      column_of[name] = row.cells[k].column;
      if (text.empty()) continue;
      json value;
      double x = 0;
      if (name == "id" || name == "model" || name == "recompute") value = text;
      else if (name == "sequence_parallel" && (text == "true" || text == "false")) value = text == "true";
      else if (csv_number(text, x)) value = x == std::floor(x) && std::fabs(x) < 9e15 ? json(static_cast<long long>(x)) : json(x);
      else {
        csv_fail(errors, pointer, "type",
                 where(row.line, row.cells[k].column, name) + ": must be " +
                     (name == "sequence_parallel" ? "true or false" : "a number") + ", got \"" + text + "\"");
        bad = true;
        continue;
      }
      (is_plan_column(name) ? plan[name] : obj[name]) = value;
    }
    if (bad) continue;
    if (!plan.empty()) obj["plan"] = plan;
    JobSpec job;
    job.id = "line-" + std::to_string(row.line);
    job.origin = pointer;
    job.csv_line = row.line;
    const std::string row_pointer = pointer + "/" + std::to_string(r);
    Diagnostics found;
    read_job_object(obj, row_pointer, cluster, job, found);
    // Each error about a field becomes one about its cell.
    for (const Diagnostic& d : found) {
      std::string field = d.pointer.size() > row_pointer.size() ? d.pointer.substr(row_pointer.size() + 1) : "";
      if (field.rfind("plan/", 0) == 0) field = field.substr(5);
      if (field.rfind("model/", 0) == 0) field = "model";
      const size_t slash = field.find('/');
      if (slash != std::string::npos) field = field.substr(0, slash);
      std::string rule = d.message;
      const std::string lead = d.pointer + ": ";
      if (rule.rfind(lead, 0) == 0) rule = rule.substr(lead.size());
      // Other fields of the row are named as columns.
      for (size_t at; (at = rule.find(row_pointer + "/")) != std::string::npos;) {
        rule.erase(at, row_pointer.size() + 1);
        if (rule.compare(at, 5, "plan/") == 0) rule.erase(at, 5);
      }
      const std::string loc = column_of.count(field) ? where(row.line, column_of[field], field)
                                                     : "line " + std::to_string(row.line);
      csv_fail(errors, pointer, d.code, loc + ": " + rule);
    }
    jobs.push_back(std::move(job));
  }
}

void read_trace_csv(const CsvTable& t, const std::string& pointer, const ClusterConfig& cluster,
                    const TraceMapping& mapping, std::vector<JobSpec>& jobs, Diagnostics& errors) {
  const CsvRow& header = t.rows.front();
  std::map<std::string, int> index;
  for (size_t k = 0; k < header.cells.size(); ++k) index[header.cells[k].text] = static_cast<int>(k);
  const std::vector<int> counts = allocation_counts(cluster.num_gpus, cluster.gpus_per_node);
  struct Row {
    int line;
    std::string id;
    double submission, deadline, duration;
    int gpus;
  };
  std::vector<Row> rows;
  for (size_t r = 1; r < t.rows.size(); ++r) {
    const CsvRow& row = t.rows[r];
    if (row.cells.size() != header.cells.size()) {
      csv_fail(errors, pointer, "columns",
               "line " + std::to_string(row.line) + ": has " + std::to_string(row.cells.size()) +
                   " cells, the header " + std::to_string(header.cells.size()));
      continue;
    }
    Row out{row.line, row.cells[index["job_id"]].text, 0, 0, 0, 0};
    bool ok = true;
    auto number = [&](const char* name, double& v, bool positive) {
      const CsvCell& c = row.cells[index[name]];
      if (!csv_number(c.text, v) || v < 0 || (positive && v <= 0)) {
        csv_fail(errors, pointer, "type",
                 where(row.line, c.column, name) + ": must be a " + (positive ? "positive" : "non-negative") +
                     " number, got \"" + c.text + "\"");
        ok = false;
      }
    };
    double g = 0;
    number("submission_time", out.submission, false);
    number("deadline", out.deadline, false);
    number("duration", out.duration, true);
    number("num_gpu", g, true);
    if (!ok) continue;
    const CsvCell& gc = row.cells[index["num_gpu"]];
    if (g != std::floor(g) || g > 1e6) {
      csv_fail(errors, pointer, "type", where(row.line, gc.column, "num_gpu") + ": must be a whole number, got \"" + gc.text + "\"");
      continue;
    }
    if (out.deadline <= out.submission) {
      csv_fail(errors, pointer, "range",
               where(row.line, row.cells[index["deadline"]].column, "deadline") + ": must be after submission_time (" +
                   describe_number(out.submission) + ")");
      continue;
    }
    const long long scaled = static_cast<long long>(g) * mapping.gpu_scale;
    if (scaled > cluster.num_gpus || !std::binary_search(counts.begin(), counts.end(), static_cast<int>(scaled))) {
      csv_fail(errors, pointer, "allocation",
               where(row.line, gc.column, "num_gpu") + ": " + gc.text + " x /workload/mapping/gpu_scale (" +
                   std::to_string(mapping.gpu_scale) + ") = " + std::to_string(scaled) + " GPUs, which is not " +
                   (scaled > cluster.num_gpus ? "within /cluster/num_gpus (" + std::to_string(cluster.num_gpus) + ")"
                                              : allowed_counts_text(cluster)));
      continue;
    }
    out.gpus = static_cast<int>(g);
    rows.push_back(out);
  }
  if (!errors.empty()) return;
  double first = 0;
  for (size_t i = 0; i < rows.size(); ++i) first = i == 0 ? rows[i].submission : std::min(first, rows[i].submission);
  for (const Row& row : rows) {
    const TraceSize* size = &mapping.sizes.back();
    for (const TraceSize& s : mapping.sizes)
      if (row.gpus <= s.max_trace_gpus) {
        size = &s;
        break;
      }
    JobSpec job;
    job.id = row.id.empty() ? "line-" + std::to_string(row.line) : row.id;
    job.arrival_s = (row.submission - first) * mapping.time_scale;
    job.model = size->model;
    job.global_batch = size->global_batch;
    job.gpus = row.gpus * mapping.gpu_scale;
    job.plan = mapping.plan;
    job.plan.global_batch = size->global_batch;
    job.duration_s = row.duration * mapping.time_scale;
    job.deadline_factor = (row.deadline - row.submission) / row.duration;
    job.origin = pointer;
    job.csv_line = row.line;
    jobs.push_back(std::move(job));
  }
}

}  // namespace

void read_job_csv(const std::string& text, const std::string& pointer, const ClusterConfig& cluster,
                  const TraceMapping& mapping, std::vector<JobSpec>& jobs, Diagnostics& errors) {
  const CsvTable t = read_csv(text);
  if (!t.error.empty()) {
    errors.push_back(make_diagnostic("syntax", pointer, t.error));
    return;
  }
  if (t.rows.size() < 2) {
    errors.push_back(make_diagnostic("range", pointer, "must hold a header line and at least one job"));
    return;
  }
  if (t.rows.size() - 1 > static_cast<size_t>(kMaxJobs)) {
    errors.push_back(make_diagnostic("range", pointer, "holds " + std::to_string(t.rows.size() - 1) +
                                                           " jobs; at most " + std::to_string(kMaxJobs)));
    return;
  }
  std::set<std::string> header;
  for (const CsvCell& c : t.rows.front().cells) header.insert(c.text);
  bool trace = true;
  for (const char* k : kTraceColumns) trace = trace && header.count(k);
  if (trace) read_trace_csv(t, pointer, cluster, mapping, jobs, errors);
  else read_jobs_csv(t, pointer, cluster, jobs, errors);
}

// ---------------------------------------------------------------------------------------------
// Mapping and generator settings

void read_trace_mapping(const json* j, const std::string& pointer, TraceMapping& m, Diagnostics& errors) {
  ObjectReader r(j, pointer, errors);
  if (!r.present()) return;
  r.read("gpu_scale", m.gpu_scale, 1, 1000000);
  r.read("time_scale", m.time_scale, 0.0, 1e6, true);
  if (const json* sizes = r.child("sizes")) {
    const std::string sp = r.at("sizes");
    if (!sizes->is_array() || sizes->empty()) {
      r.fail("type", sp, "must be a non-empty array of {max_trace_gpus, model, global_batch}");
    } else {
      m.sizes.clear();
      for (size_t i = 0; i < sizes->size(); ++i) {
        const std::string ep = sp + "/" + std::to_string(i);
        ObjectReader er(&(*sizes)[i], ep, errors);
        TraceSize s;
        er.read("max_trace_gpus", s.max_trace_gpus, 1, 1000000);
        er.read("global_batch", s.global_batch, 1, limits::global_batch);
        for (const char* k : {"max_trace_gpus", "model", "global_batch"})
          if (er.present() && !er.has(k)) er.fail("missing", er.at(k), "is required");
        if (const json* model = er.child("model")) read_model(*model, er.at("model"), s.model, errors);
        er.finish();
        if (!m.sizes.empty() && s.max_trace_gpus <= m.sizes.back().max_trace_gpus)
          er.fail("order", er.at("max_trace_gpus"), "must grow from one size to the next");
        m.sizes.push_back(s);
      }
    }
  }
  if (const json* plan = r.child("plan")) {
    ObjectReader pr(plan, r.at("plan"), errors);
    json plan_obj = json::object();
    for (const char* k : kPlanKeys) {
      if (const json* v = pr.child(k)) plan_obj[k] = *v;
    }
    for (const char* k : kOwnPlanKeys)
      if (plan_obj.contains(k))
        pr.fail("derived", join_pointer(pr.pointer(), k), "is chosen per job (the best plan on its GPUs)");
    pr.finish();
    plan_obj["tp"] = plan_obj["pp"] = plan_obj["dp"] = 1;
    auto c = parse_sim_config(json{{"model", "gpt3-2.7b"}, {"plan", plan_obj}});
    if (!c.ok()) {
      for (const Diagnostic& d : c.errors()) {
        Diagnostic out = d;
        if (d.pointer.rfind("/plan", 0) == 0) {
          out.pointer = pointer + d.pointer;
          out.message = pointer + d.message;
        }
        errors.push_back(out);
      }
    } else {
      m.plan = c.value().plan;
    }
  }
  r.finish();
}

void read_generator_settings(const json* j, const std::string& pointer, const ClusterConfig& cluster,
                             GeneratorSettings& g, Diagnostics& errors) {
  ObjectReader r(j, pointer, errors);
  if (!r.present()) return;
  long long seed = 1;
  if (read_whole(r, "seed", seed, 0, 9007199254740991LL)) g.seed = static_cast<unsigned long long>(seed);
  r.read("jobs", g.jobs, 1, kMaxJobs);
  r.read("arrival_rate_per_hour", g.arrival_rate_per_hour, 0.0, 1e6, true);
  auto read_range = [&](const char* key, double& lo, double& hi, double max) {
    const json* v = r.child(key);
    if (!v) return;
    if (!v->is_array() || v->size() != 2 || !(*v)[0].is_number() || !(*v)[1].is_number()) {
      r.fail("type", r.at(key), "must be [least, most]");
      return;
    }
    const double a = (*v)[0].get<double>(), b = (*v)[1].get<double>();
    if (!(a > 0) || !(b >= a) || b > max) {
      r.fail("range", r.at(key), "must be [least, most] with 0 < least <= most <= " + describe_number(max));
      return;
    }
    lo = a;
    hi = b;
  };
  read_range("duration_hours", g.min_duration_h, g.max_duration_h, 1e5);
  read_range("deadline_factor", g.min_deadline_factor, g.max_deadline_factor, 1e3);
  if (const json* mix = r.child("mix")) {
    const std::string mp = r.at("mix");
    if (!mix->is_array() || mix->empty()) {
      r.fail("type", mp, "must be a non-empty array of {model, global_batch, gpus, weight}");
    } else {
      g.mix.clear();
      const std::vector<int> counts = allocation_counts(cluster.num_gpus, cluster.gpus_per_node);
      for (size_t i = 0; i < mix->size(); ++i) {
        const std::string ep = mp + "/" + std::to_string(i);
        ObjectReader er(&(*mix)[i], ep, errors);
        GeneratorMixEntry e;
        er.read("global_batch", e.global_batch, 1, limits::global_batch);
        er.read("gpus", e.gpus, 1, limits::num_gpus);
        er.read("weight", e.weight, 0.0, 1e9, true);
        for (const char* k : {"model", "global_batch", "gpus"})
          if (er.present() && !er.has(k)) er.fail("missing", er.at(k), "is required");
        if (const json* model = er.child("model")) read_model(*model, er.at("model"), e.model, errors);
        er.finish();
        if (er.has("gpus") && (e.gpus > cluster.num_gpus || !std::binary_search(counts.begin(), counts.end(), e.gpus)))
          er.fail("allocation", er.at("gpus"),
                  "must be " + allowed_counts_text(cluster) + " within /cluster/num_gpus (" +
                      std::to_string(cluster.num_gpus) + "), got " + std::to_string(e.gpus));
        g.mix.push_back(e);
      }
    }
  }
  r.finish();
}

void finish_job_list(std::vector<JobSpec>& jobs, const std::string& pointer, Diagnostics& errors) {
  std::map<std::string, int> first;
  for (size_t i = 0; i < jobs.size(); ++i) {
    auto [it, fresh] = first.emplace(jobs[i].id, static_cast<int>(i));
    if (!fresh)
      errors.push_back(make_diagnostic("duplicate_id", pointer,
                                       "job id \"" + jobs[i].id + "\" is given to jobs " +
                                           std::to_string(it->second + 1) + " and " + std::to_string(i + 1) +
                                           " of the list; ids must be unique"));
  }
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const JobSpec& a, const JobSpec& b) { return a.arrival_s < b.arrival_s; });
}

}  // namespace vtrain::detail
