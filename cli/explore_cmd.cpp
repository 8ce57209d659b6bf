// vtrain explore: every valid parallel plan of a config, the baseline beside the cheapest and the
// fastest, the time-cost Pareto frontier and the top plans for an objective.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "vtrain/explore.hpp"

namespace vtrain::cli {

using nlohmann::json;

namespace {

// What the listed plans have in common, so that a row names only what varies.
struct Varies {
  bool micro_batch = false, recompute = false;
  int micro_batch_value = 1;
  Recompute recompute_value = Recompute::full;
};

Varies what_varies(const ExploreResult& r) {
  Varies v;
  std::set<int> mbs;
  std::set<Recompute> recs;
  for (const auto& e : r.plans) {
    mbs.insert(e.plan.micro_batch);
    recs.insert(e.plan.recompute);
  }
  v.micro_batch = mbs.size() > 1;
  v.recompute = recs.size() > 1;
  v.micro_batch_value = *mbs.begin();
  v.recompute_value = *recs.begin();
  return v;
}

// "(t, d, p)" as vTrain writes plans, then what else sets this plan apart.
std::string plan_label(const PlanConfig& p, const Varies& v) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "(%d, %d, %d)", p.tp, p.dp, p.pp);
  std::string s = buf;
  if (v.micro_batch) s += " mb " + std::to_string(p.micro_batch);
  if (p.virtual_stages > 1) s += " v " + std::to_string(p.virtual_stages);
  if (v.recompute) s += std::string(" ") + to_string(p.recompute);
  if (p.sequence_parallel && p.tp > 1) s += " sp";
  if (p.zero_stage > 0 && p.dp > 1) s += " zero-1";
  if (p.ep > 1) s += " ep " + std::to_string(p.ep);
  if (p.etp > 0) s += " etp " + std::to_string(p.etp);
  return s;
}

// Fixed-point in one unit per column, so that a column reads down.
std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

std::string millions(double x, const char* prefix = "") {
  char buf[32];
  if (x >= 1e6) std::snprintf(buf, sizeof buf, "%s%.2f M", prefix, x / 1e6);
  else if (x >= 1e3) std::snprintf(buf, sizeof buf, "%s%.1f k", prefix, x / 1e3);
  else std::snprintf(buf, sizeof buf, "%s%.0f", prefix, x);
  return buf;
}

// `priced`: the request gave a price per GPU-hour; without one the cost column is "-".
std::string row(const char* label, const PlanEstimate& e, const Varies& v, size_t plan_width, bool priced) {
  char buf[400];
  std::string plan = plan_label(e.plan, v);
  plan.resize(std::max(plan.size(), plan_width), ' ');
  if (!e.simulated) {
    std::snprintf(buf, sizeof buf, "  %-9s %s %5d  %52s %7.1f GiB  does not fit\n", label, plan.c_str(), e.num_gpus,
                  "(not simulated)", e.memory_GiB);
    return buf;
  }
  std::string note;
  if (!e.fits_in_memory) note = "  does not fit";
  if (!e.within_gpu_limit) note += "  over the GPU limit";
  std::snprintf(buf, sizeof buf, "  %-9s %s %5d %9s %7.1f %9s %9s %6.0f %5.1f%% %7.1f GiB%s\n", label, plan.c_str(),
                e.num_gpus, seconds_text(e.iteration_time_s).c_str(), e.training_days,
                millions(e.gpu_hours).c_str(), priced ? millions(e.cost_usd, "$").c_str() : "-", e.energy_MWh, 100 * e.mfu,
                e.memory_GiB, note.c_str());
  return buf;
}

std::string header(size_t plan_width) {
  std::string plan = "(t, d, p)";
  plan.resize(std::max(plan.size(), plan_width), ' ');
  char buf[300];
  std::snprintf(buf, sizeof buf, "  %-9s %s %5s %9s %7s %9s %9s %6s %6s %11s\n", "", plan.c_str(), "GPUs", "iteration",
                "days", "GPU-hours", "cost", "MWh", "MFU", "memory");
  return buf;
}

// Percentage change from `base` to `x`, signed.
std::string change(double x, double base) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100.0 * (x - base) / base);
  return buf;
}

std::string text_report(const ExploreResult& r, size_t top) {
  std::string out;
  char line[600];
  auto add = [&](const char* fmt, auto... a) {
    std::snprintf(line, sizeof line, fmt, a...);
    out += line;
  };
  const SimConfig& c = r.request.config;
  const ExploreOptions& o = r.request.options;
  const ExploreStats& s = r.stats;
  const Varies v = what_varies(r);
  if (!r.request.description.empty()) add("%s\n", r.request.description.c_str());
  add("%s (%s parameters), %s tokens, global batch %d of %d tokens\n", c.model.name.c_str(),
      format_number(r.parameters).c_str(), format_number(c.training.tokens).c_str(),
      c.plan.global_batch, c.model.seq_len);
  const bool priced = r.priced;
  if (priced)
    add("at most %d x %s, %d per node, at $%.2f per GPU-hour\n", c.cluster.num_gpus, c.cluster.gpu.c_str(),
        c.cluster.gpus_per_node, c.cluster.price_per_gpu_hour_usd);
  else
    add("at most %d x %s, %d per node; no price per GPU-hour given (--price X), so cost is GPU-hours\n",
        c.cluster.num_gpus, c.cluster.gpu.c_str(), c.cluster.gpus_per_node);
  out += "\n";
  add("%lld plans: %lld within %d GPUs, %lld fit in memory, %lld can run; %zu on the time-cost Pareto frontier\n",
      s.plans, s.within_gpu_limit, c.cluster.num_gpus, s.fit, s.feasible, r.pareto.size());
  if (s.simulated < s.plans)
    add("%lld plans that do not fit in memory were not simulated (--simulate-unfit times them)\n",
        s.plans - s.simulated);
  std::string common;
  if (!v.micro_batch) common += "micro-batch " + std::to_string(v.micro_batch_value);
  if (!v.recompute) common += std::string(common.empty() ? "" : ", ") + to_string(v.recompute_value) + " recomputation";
  add("plans are (tensor, data, pipeline) parallel degrees%s%s\n", common.empty() ? "" : "; all with ",
      common.c_str());
  out += "\n";

  // The plans to show, and the width of their labels.
  std::vector<int> shown;
  auto show = [&](int i) { if (i >= 0) shown.push_back(i); };
  show(r.baseline);
  show(r.best_cost);
  show(r.best_time);
  show(r.best);
  for (size_t k = 0; k < r.pareto.size() && k < top; ++k) show(r.pareto[k]);
  size_t width = 9;
  for (int i : shown) width = std::max(width, plan_label(r.plans[i].plan, v).size());

  out += header(width);
  if (r.baseline >= 0) out += row("baseline", r.plans[r.baseline], v, width, priced);
  if (r.best_cost >= 0) out += row("cheapest", r.plans[r.best_cost], v, width, priced);
  if (r.best_time >= 0) out += row("fastest", r.plans[r.best_time], v, width, priced);
  if (o.objective == Objective::deadline) {
    char label[32];
    std::snprintf(label, sizeof label, "by %g d", o.deadline_days);
    if (r.best >= 0) out += row(label, r.plans[r.best], v, width, priced);
    else add("  no plan that can run finishes within %g day%s\n", o.deadline_days, o.deadline_days == 1 ? "" : "s");
  } else if (o.objective == Objective::expected_time && r.best >= 0) {
    // The fewest days once failures, restarts and checkpoints are counted.
    out += row("expected", r.plans[r.best], v, width, priced);
    const PlanEstimate& e = r.plans[r.best];
    add("  %*s  %.1f days expected with failures, restarts and checkpoints (/reliability)", static_cast<int>(width), "",
        e.expected_days);
    if (r.best_time >= 0 && r.best_time != r.best)
      add("; the fastest plan's %.1f", r.plans[r.best_time].expected_days);
    out += "\n";
  } else if (o.objective == Objective::balanced && r.best >= 0) {
    // The cheapest plan within the balanced slack of the fastest.
    out += row("balanced", r.plans[r.best], v, width, priced);
  }
  if (r.best_time < 0) out += "  no plan can run: none fits in memory within the GPU limit\n";
  const PlanEstimate* base = r.baseline >= 0 ? &r.plans[r.baseline] : nullptr;
  if (base && base->simulated && r.best_cost >= 0) {
    out += "\n";
    const PlanEstimate& cheap = r.plans[r.best_cost];
    const PlanEstimate& fast = r.plans[r.best_time];
    add("cheapest against the baseline: cost %s, time %s\n", change(cheap.gpu_hours, base->gpu_hours).c_str(),
        change(cheap.training_days, base->training_days).c_str());
    add("fastest against the baseline:  cost %s, time %s\n", change(fast.gpu_hours, base->gpu_hours).c_str(),
        change(fast.training_days, base->training_days).c_str());
  }

  if (!r.pareto.empty()) {
    add("\nPareto frontier of training time and cost, fastest first (%zu plans):\n", r.pareto.size());
    out += header(width);
    for (size_t k = 0; k < r.pareto.size() && k < top; ++k) out += row("", r.plans[r.pareto[k]], v, width, priced);
    if (r.pareto.size() > top) add("  ... %zu more (--top N shows more, --json lists all)\n", r.pareto.size() - top);
  }
  return out;
}

// The result as JSON with one plan per line: readable, and a fraction of an indented dump.
void print_json(const json& j) {
  std::printf("{\n");
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::printf("%s  \"%s\": ", first ? "" : ",\n", it.key().c_str());
    first = false;
    if (it->is_array()) {
      std::printf("[");
      for (size_t i = 0; i < it->size(); ++i) std::printf("%s\n    %s", i ? "," : "", dump_json((*it)[i]).c_str());
      std::printf("%s]", it->empty() ? "" : "\n  ");
    } else {
      std::printf("%s", dump_json(*it).c_str());
    }
  }
  std::printf("\n}\n");
}

}  // namespace

int run_explore(const Args& args) {
  json request;
  std::string within;  // where the config is in the file given, if that is a result
  if (args.has("case")) {
    if (!args.positional.empty()) {
      std::fprintf(stderr, "error: explore takes a CONFIG or --case NAME, not both\n");
      return 2;
    }
    request = {{"case", args.get("case")}};
  } else if (!args.positional.empty()) {
    if (!load_json_argument(args.positional[0], request)) return 2;
    within = use_config_of_result(request, args.positional[0]);
  } else {
    std::fprintf(stderr, "error: explore needs a CONFIG (JSON file or example name) or --case NAME (%s)\n",
                 explore_cases().names_text().c_str());
    return 2;
  }
  if (!request.is_object()) {
    std::fprintf(stderr, "error: the config must be a JSON object\n");
    return 1;
  }

  // Options override the config's fields; the core checks their values and names the field.
  json patch = json::object();
  double x = 0;
  if (args.has("price")) {
    if (!number_option(args, "price", x)) return 2;
    patch["cluster"]["price_per_gpu_hour_usd"] = x;
  }
  if (args.has("gpus")) {
    if (!number_option(args, "gpus", x)) return 2;
    patch["cluster"]["num_gpus"] = x;
  }
  if (args.has("objective")) patch["explore"]["objective"] = args.get("objective");
  if (args.has("deadline-days")) {
    if (!number_option(args, "deadline-days", x)) return 2;
    patch["explore"]["deadline_days"] = x;
  }
  if (args.has("simulate-unfit")) patch["explore"]["simulate_unfit"] = true;
  request.merge_patch(patch);

  // Errors on the result's own config name its place in the file; those on what an option set
  // (or on the explore section, which a result has not) keep the request's pointer.
  const auto in_file = [&](Diagnostics errors) {
    if (within.empty()) return errors;
    Diagnostics own, set;
    for (Diagnostic& d : errors) {
      bool from_option = d.pointer.rfind("/explore", 0) == 0;
      try {
        from_option = from_option || (!d.pointer.empty() && patch.contains(json::json_pointer(d.pointer)));
      } catch (const json::exception&) {
      }
      (from_option ? set : own).push_back(std::move(d));
    }
    prefix_pointers(own, within);
    own.insert(own.end(), set.begin(), set.end());
    return own;
  };
  auto req = parse_explore_request(request);
  if (!req.ok()) {
    print_errors(in_file(req.errors()));
    return 1;
  }
  int top = 20;
  if (!whole_option(args, "top", 0, 1000000, top)) return 2;
  ExploreControl control;
  if (!threads_option(args, control.threads)) return 2;
  auto result = explore(req.value(), control);
  if (!result.ok()) {
    print_errors(in_file(result.errors()));
    return 1;
  }
  if (args.has("json")) {
    print_json(to_json(result.value()));
    return 0;
  }
  std::printf("%s", text_report(result.value(), static_cast<size_t>(top)).c_str());
  return 0;
}

}  // namespace vtrain::cli
