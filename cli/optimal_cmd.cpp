// vtrain optimal: the model size a budget really buys, against the FLOP-only scaling-law answer.

#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "vtrain/optimal.hpp"

namespace vtrain::cli {

using nlohmann::json;

namespace {

std::string plan_text(const PlanConfig& p) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "tp %d, pp %d, dp %d, mbs %d, %s%s", p.tp, p.pp, p.dp, p.micro_batch,
                to_string(p.recompute), p.virtual_stages > 1 ? ", interleaved" : "");
  return buf;
}

std::string model_text(const ModelConfig& m) {
  char buf[120];
  std::snprintf(buf, sizeof buf, "h %d, %d layers, %d heads", m.hidden, m.layers, m.heads);
  return buf;
}

std::string fixed(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// The answers side by side, the next best below: every figure as the result holds it.
void print_summary(const OptimalResult& r, bool show_time) {
  const OptimalRequest& q = r.request;
  if (!q.description.empty()) std::printf("%s\n", q.description.c_str());
  const std::string law = !q.ratio_rule ? "scaling law " + q.fit.name
                                        : format_number(q.tokens_per_param) + " tokens per parameter (losses from " +
                                              q.fit.name + ")";
  std::printf("budget: ");
  if (q.gpu_hours > 0)
    std::printf("%s GPU-hours (%s at $%.2f per GPU-hour)", format_number(q.gpu_hours).c_str(),
                format_money(r.budget_usd).c_str(), q.cluster.price_per_gpu_hour_usd);
  else if (q.budget == BudgetKind::money) std::printf("%s", format_money(r.budget_usd).c_str());
  else std::printf("%s days", format_number(r.budget_days).c_str());
  if (q.deadline_days > 0) std::printf(" within %s days", format_number(q.deadline_days).c_str());
  std::printf(" on up to %d x %s = %.3g FLOP at peak; %s\n\n", q.cluster.num_gpus, q.cluster.gpu.c_str(),
              r.flops_budget, law.c_str());
  std::printf("  %-16s %-42s %s\n", "", "FLOP-only (GPUs at peak)", "achievable (simulated plans)");
  auto row = [&](const char* name, const std::string& left, const std::string& right) {
    std::printf("  %-16s %-42s %s\n", name, left.c_str(), right.c_str());
  };
  const bool has_a = r.achievable >= 0;
  const bool has_f = r.flop_only_candidate >= 0;
  const OptimalAnswer& a = r.achievable_answer;
  const CandidateResult* ac = has_a ? &r.candidates[r.achievable] : nullptr;
  const CandidateResult* fc = has_f ? &r.candidates[r.flop_only_candidate] : nullptr;
  row("parameters", format_number(r.flop_only.params), has_a ? format_number(a.params) : "none fits");
  row("tokens", format_number(r.flop_only.tokens), has_a ? format_number(a.tokens) : "-");
  row("loss", fixed("%.4f", r.flop_only_loss), has_a ? fixed("%.4f", a.loss) : "-");
  row("model", fc ? "nearest: " + model_text(fc->model) : "-", has_a ? model_text(ac->model) : "-");
  row("plan", fc ? plan_text(fc->plan.plan) : "-", has_a ? plan_text(ac->plan.plan) : "-");
  row("MFU", fc ? fixed("%.1f%%", 100 * r.flop_only_mfu) : "-", has_a ? fixed("%.1f%%", 100 * ac->plan.mfu) : "-");
  row("training days", fc ? fixed("%.1f", r.flop_only_days) : "-", has_a ? fixed("%.1f", a.training_days) : "-");
  if (q.cluster.price_per_gpu_hour_usd > 0)
    row("cost", fc ? format_money(r.flop_only_cost_usd) : "-", has_a ? format_money(a.cost_usd) : "-");
  if (!r.alternative_answers.empty()) {
    std::printf("\nnext best:\n");
    for (const OptimalAnswer& alt : r.alternative_answers) {
      const CandidateResult& c = r.candidates[alt.candidate];
      std::printf("  %s parameters on %s tokens, loss %.4f, %.1f days, %s (%s)\n", format_number(alt.params).c_str(),
                  format_number(alt.tokens).c_str(), alt.loss, alt.training_days, model_text(c.model).c_str(),
                  plan_text(c.plan.plan).c_str());
    }
  }
  std::printf("\n%zu candidate sizes, %lld plans simulated\n", r.candidates.size(), r.plans_simulated);
  if (show_time) std::printf("wall time %.2f s\n", r.seconds);
}

}  // namespace

int run_optimal(const Args& args) {
  json request;
  const std::string names = optimal_presets().names_text();
  if (args.has("preset")) {
    request = {{"preset", args.get("preset")}};
  } else if (!args.positional.empty()) {
    // simulate's example configs are not requests, so only a file is read here.
    if (!load_json_argument(args.positional[0], request, false)) {
      std::fprintf(stderr, "a bundled request is --preset NAME (%s)\n", names.c_str());
      return 2;
    }
  } else {
    std::fprintf(stderr, "error: optimal needs a REQUEST.json or --preset NAME (%s)\n", names.c_str());
    return 2;
  }
  auto req = parse_optimal_request(request);
  if (!req.ok()) {
    print_errors(req.errors());
    return 1;
  }
  OptimalControl control;
  if (!threads_option(args, control.threads)) return 2;
  auto result = optimal(req.value(), control);
  if (!result.ok()) {
    print_errors(result.errors());
    return 1;
  }
  if (args.has("json")) {
    std::printf("%s\n", dump_json(to_json(result.value()), 2).c_str());
    return 0;
  }
  print_summary(result.value(), args.has("time"));
  return 0;
}

}  // namespace vtrain::cli
