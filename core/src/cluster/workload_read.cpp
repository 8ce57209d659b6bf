#include "cluster/workload_read.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "cluster/csv.hpp"
#include "cluster/order.hpp"
#include "cluster/text.hpp"
#include "common/json_reader.hpp"

namespace vtrain::detail {

using nlohmann::json;

namespace {

// Plan fields a job may give; dp and the batch follow from its gpus and global_batch.
const char* const kPlanKeys[] = {"tp", "pp", "micro_batch", "recompute", "sequence_parallel", "virtual_stages",
                                 "zero_stage", "zero_all_reduce", "dp_overlap", "attention", "precision",
                                 "placement", "p2p_overlap", "grad_accumulation_fusion", "tp_async_backward", "tp_comm_overlap",
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
    r.fail("range", r.at(key), text("must be between %lld and %lld, got %s", lo, hi, describe_number(d).c_str()));
    return false;
  }
  out = static_cast<long long>(d);
  return true;
}

std::string allowed_counts_text(const ClusterConfig& c) {
  std::string s;
  for (int n = 1; n < c.gpus_per_node; n *= 2) s += text("%d, ", n);
  return s + text("or a multiple of %d (whole nodes)", c.gpus_per_node);
}

}  // namespace

bool read_model(const json& j, const std::string& pointer, ModelConfig& model, Diagnostics& errors) {
  json cfg = json::object();
  cfg["model"] = j;
  cfg["plan"] = json::object();
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
      r.fail("range", r.at("deadline_s"), text("must be after %s (%s), got %s", r.at("arrival_s").c_str(),
                                               describe_number(job.arrival_s).c_str(),
                                               describe_number(job.deadline_s).c_str()));
  }
  if (has_gpus && errors.size() == first_error) {
    const std::vector<int> counts = allocation_counts(cluster.num_gpus, cluster.gpus_per_node);
    if (job.gpus > cluster.num_gpus)
      r.fail("range", r.at("gpus"), text("must be at most /cluster/num_gpus (%d), got %d", cluster.num_gpus, job.gpus));
    else if (!std::binary_search(counts.begin(), counts.end(), job.gpus))
      r.fail("allocation", r.at("gpus"),
             text("must be %s, got %d", allowed_counts_text(cluster).c_str(), job.gpus));
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
                  text(std::string(k) == "dp" ? "follows from the job's gpus / (tp x pp); give %s"
                                              : "is the job's own %s",
                       r.at(std::string(k) == "dp" ? "gpus" : "global_batch").c_str()));
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
    const long long group = static_cast<long long>(tp) * pp;  // both at most limits::tp: exact
    if (job.gpus % group != 0) {
      r.fail("divisibility", r.at("gpus"),
             text("must be a multiple of its plan's tp x pp (%lld), got %d", group, job.gpus));
      return;
    }
    dp = static_cast<int>(job.gpus / group);
  }
  if (!job.plan_given) plan_obj["tp"] = plan_obj["pp"] = 1;
  plan_obj["dp"] = job.plan_given ? dp : 1;
  plan_obj["global_batch"] = job.global_batch;
  json cfg = json::object();
  cfg["model"] = *model;
  cfg["plan"] = plan_obj;
  cfg["cluster"]["gpu"] = cluster.gpu;
  cfg["cluster"]["gpus_per_node"] = cluster.gpus_per_node;
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
    errors.push_back(make_diagnostic("range", pointer, text("holds %zu jobs; at most %d", list.size(), kMaxJobs)));
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
  return text("line %d, column %d (%s)", line, column, name.c_str());
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
               text("%s: unknown column; a job list's columns are %s (or the ITP trace's: job_id, "
                    "submission_time, num_iteration, model_name, deadline, batch_size, num_gpu, duration)",
                    where(header.line, c.column, c.text).c_str(), list.c_str()));
    } else if (!seen.insert(c.text).second) {
      csv_fail(errors, pointer, "duplicate_column",
               text("%s: the column is given twice", where(header.line, c.column, c.text).c_str()));
    }
    names.push_back(c.text);
  }
  if (!errors.empty()) return;
  for (size_t r = 1; r < t.rows.size(); ++r) {
    const CsvRow& row = t.rows[r];
    if (row.cells.size() != names.size()) {
      csv_fail(errors, pointer, "columns",
               text("line %d: has %zu cells, the header %zu", row.line, row.cells.size(), names.size()));
      continue;
    }
    json obj = json::object();
    json plan = json::object();
    bool bad = false;
    for (size_t k = 0; k < names.size(); ++k) {
      const std::string& name = names[k];
      const std::string& cell = row.cells[k].text;
      if (cell.empty()) continue;
      json value;
      double x = 0;
      if (name == "id" || name == "model" || name == "recompute") value = cell;
      else if (name == "sequence_parallel" && (cell == "true" || cell == "false")) value = cell == "true";
      else if (csv_number(cell, x)) value = x == std::floor(x) && std::fabs(x) < 9e15 ? json(static_cast<long long>(x)) : json(x);
      else {
        csv_fail(errors, pointer, "type",
                 text("%s: must be %s, got \"%s\"", where(row.line, row.cells[k].column, name).c_str(),
                      name == "sequence_parallel" ? "true or false" : "a number", cell.c_str()));
        bad = true;
        continue;
      }
      (is_plan_column(name) ? plan[name] : obj[name]) = value;
    }
    if (bad) continue;
    if (!plan.empty()) obj["plan"] = plan;
    JobSpec job;
    job.id = text("line-%d", row.line);
    job.origin = pointer;
    job.csv_line = row.line;
    const std::string row_pointer = text("%s/%zu", pointer.c_str(), r);
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
      const auto column = std::find(names.begin(), names.end(), field);
      const std::string loc = column != names.end()
                                  ? where(row.line, static_cast<int>(column - names.begin()) + 1, field)
                                  : text("line %d", row.line);
      csv_fail(errors, pointer, d.code, text("%s: %s", loc.c_str(), rule.c_str()));
    }
    jobs.push_back(std::move(job));
  }
}

void read_trace_csv(const CsvTable& t, const std::string& pointer, const ClusterConfig& cluster,
                    const TraceMapping& mapping, std::vector<JobSpec>& jobs, Diagnostics& errors) {
  const CsvRow& header = t.rows.front();
  // A column named twice would leave the reader to pick one of two values: an error.
  std::set<std::string> seen;
  for (const CsvCell& c : header.cells)
    if (!c.text.empty() && !seen.insert(c.text).second) {
      csv_fail(errors, pointer, "duplicate_column",
               text("%s: the column is given twice", where(header.line, c.column, c.text).c_str()));
      return;
    }
  auto index = [&](const char* name) {
    int k = 0;
    while (header.cells[k].text != name) ++k;  // the trace's columns are all there
    return k;
  };
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
               text("line %d: has %zu cells, the header %zu", row.line, row.cells.size(), header.cells.size()));
      continue;
    }
    Row out{row.line, row.cells[index("job_id")].text, 0, 0, 0, 0};
    bool ok = true;
    auto number = [&](const char* name, double& v, bool positive) {
      const CsvCell& c = row.cells[index(name)];
      if (!csv_number(c.text, v) || v < 0 || (positive && v <= 0)) {
        csv_fail(errors, pointer, "type",
                 text("%s: must be a %s number, got \"%s\"", where(row.line, c.column, name).c_str(),
                      positive ? "positive" : "non-negative", c.text.c_str()));
        ok = false;
      }
    };
    double g = 0;
    number("submission_time", out.submission, false);
    number("deadline", out.deadline, false);
    number("duration", out.duration, true);
    number("num_gpu", g, true);
    if (!ok) continue;
    const CsvCell& gc = row.cells[index("num_gpu")];
    if (g != std::floor(g) || g > 1e6) {
      csv_fail(errors, pointer, "type",
               text("%s: must be a whole number, got \"%s\"", where(row.line, gc.column, "num_gpu").c_str(),
                    gc.text.c_str()));
      continue;
    }
    if (out.deadline <= out.submission) {
      csv_fail(errors, pointer, "range",
               text("%s: must be after submission_time (%s)",
                    where(row.line, row.cells[index("deadline")].column, "deadline").c_str(),
                    describe_number(out.submission).c_str()));
      continue;
    }
    const long long scaled = static_cast<long long>(g) * mapping.gpu_scale;
    if (scaled > cluster.num_gpus || !std::binary_search(counts.begin(), counts.end(), static_cast<int>(scaled))) {
      csv_fail(errors, pointer, "allocation",
               text("%s: %s x /workload/mapping/gpu_scale (%d) = %lld GPUs, which is not %s",
                    where(row.line, gc.column, "num_gpu").c_str(), gc.text.c_str(), mapping.gpu_scale, scaled,
                    (scaled > cluster.num_gpus ? text("within /cluster/num_gpus (%d)", cluster.num_gpus)
                                               : allowed_counts_text(cluster))
                        .c_str()));
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
    job.id = row.id.empty() ? text("line-%d", row.line) : row.id;
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

void read_job_csv(const std::string& csv_text, const std::string& pointer, const ClusterConfig& cluster,
                  const TraceMapping& mapping, std::vector<JobSpec>& jobs, Diagnostics& errors) {
  const CsvTable t = read_csv(csv_text);
  if (!t.error.empty()) {
    errors.push_back(make_diagnostic("syntax", pointer, t.error));
    return;
  }
  if (t.rows.size() < 2) {
    errors.push_back(make_diagnostic("range", pointer, "must hold a header line and at least one job"));
    return;
  }
  if (t.rows.size() - 1 > static_cast<size_t>(kMaxJobs)) {
    errors.push_back(make_diagnostic("range", pointer, text("holds %zu jobs; at most %d", t.rows.size() - 1, kMaxJobs)));
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
    json cfg = json::object();
    cfg["model"] = "gpt3-2.7b";
    cfg["plan"] = plan_obj;
    auto c = parse_sim_config(cfg);
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
      r.fail("range", r.at(key), text("must be [least, most] with 0 < least <= most <= %s", describe_number(max).c_str()));
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
                  text("must be %s within /cluster/num_gpus (%d), got %d", allowed_counts_text(cluster).c_str(),
                       cluster.num_gpus, e.gpus));
        g.mix.push_back(e);
      }
    }
  }
  r.finish();
}

void finish_job_list(std::vector<JobSpec>& jobs, const std::string& pointer, Diagnostics& errors) {
  std::set<std::string> seen;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (seen.insert(jobs[i].id).second) continue;
    size_t first = 0;
    while (jobs[first].id != jobs[i].id) ++first;
    errors.push_back(make_diagnostic("duplicate_id", pointer,
                                     text("job id \"%s\" is given to jobs %zu and %zu of the list; ids must be unique",
                                          jobs[i].id.c_str(), first + 1, i + 1)));
  }
  std::vector<double> arrival;
  for (const JobSpec& j : jobs) arrival.push_back(j.arrival_s);
  std::vector<JobSpec> sorted;
  for (int i : order_by(arrival)) sorted.push_back(std::move(jobs[i]));
  jobs = std::move(sorted);
}

}  // namespace vtrain::detail
