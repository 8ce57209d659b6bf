// vtrain optimal: the model size a budget really buys, against the FLOP-only scaling-law answer.

#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "vtrain/optimal.hpp"

namespace vtrain::cli {

using nlohmann::json;

namespace {

std::string plan_text(const json& p) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "tp %d, pp %d, dp %d, mbs %d, %s%s", p["tp"].get<int>(), p["pp"].get<int>(),
                p["dp"].get<int>(), p["micro_batch"].get<int>(), p["recompute"].get<std::string>().c_str(),
                p["virtual_stages"].get<int>() > 1 ? ", interleaved" : "");
  return buf;
}

std::string model_text(const json& m) {
  char buf[120];
  std::snprintf(buf, sizeof buf, "h %d, %d layers, %d heads", m["hidden"].get<int>(), m["layers"].get<int>(),
                m["heads"].get<int>());
  return buf;
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
  const json j = to_json(result.value());
  if (args.has("json")) {
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  const json& b = j["budget"];
  if (j.contains("description")) std::printf("%s\n", j["description"].get<std::string>().c_str());
  const std::string law = j["scaling"]["rule"] == "fit"
                              ? "scaling law " + j["scaling"]["fit"].get<std::string>()
                              : format_number(j["scaling"]["tokens_per_param"].get<double>()) +
                                    " tokens per parameter (losses from " +
                                    j["scaling"]["loss_fit"].get<std::string>() + ")";
  std::printf("budget: ");
  if (req.value().gpu_hours > 0)
    std::printf("%s GPU-hours (%s at $%.2f per GPU-hour)", format_number(req.value().gpu_hours).c_str(),
                format_money(b["usd"].get<double>()).c_str(), req.value().cluster.price_per_gpu_hour_usd);
  else if (b["kind"] == "money") std::printf("%s", format_money(b["usd"].get<double>()).c_str());
  else std::printf("%s days", format_number(b["days"].get<double>()).c_str());
  if (req.value().deadline_days > 0) std::printf(" within %s days", format_number(req.value().deadline_days).c_str());
  std::printf(" on up to %d x %s = %.3g FLOP at peak; %s\n\n", b["gpus"].get<int>(),
              b["gpu"].get<std::string>().c_str(), b["flops"].get<double>(), law.c_str());
  const json& f = j["flop_only"];
  const json& a = j["achievable"];
  std::printf("  %-16s %-42s %s\n", "", "FLOP-only (GPUs at peak)", "achievable (simulated plans)");
  auto row = [&](const char* name, const std::string& left, const std::string& right) {
    std::printf("  %-16s %-42s %s\n", name, left.c_str(), right.c_str());
  };
  const bool has_a = !a.is_null();
  const json* fc = f.contains("nearest_candidate") ? &f["nearest_candidate"] : nullptr;
  row("parameters", format_number(f["params"].get<double>()), has_a ? format_number(a["params"].get<double>()) : "none fits");
  row("tokens", format_number(f["tokens"].get<double>()), has_a ? format_number(a["tokens"].get<double>()) : "-");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f", f["loss"].get<double>());
  std::string fl = buf;
  std::snprintf(buf, sizeof buf, "%.4f", has_a ? a["loss"].get<double>() : 0.0);
  row("loss", fl, has_a ? buf : "-");
  row("model", fc ? "nearest: " + model_text((*fc)["model"]) : "-", has_a ? model_text(a["model"]) : "-");
  row("plan", fc ? plan_text((*fc)["plan"]) : "-", has_a ? plan_text(a["plan"]) : "-");
  std::snprintf(buf, sizeof buf, "%.1f%%", fc ? 100 * f["mfu"].get<double>() : 0.0);
  fl = buf;
  std::snprintf(buf, sizeof buf, "%.1f%%", has_a ? 100 * a["mfu"].get<double>() : 0.0);
  row("MFU", fc ? fl : "-", has_a ? buf : "-");
  std::snprintf(buf, sizeof buf, "%.1f", fc ? f["training_days"].get<double>() : 0.0);
  fl = buf;
  std::snprintf(buf, sizeof buf, "%.1f", has_a ? a["training_days"].get<double>() : 0.0);
  row("training days", fc ? fl : "-", has_a ? buf : "-");
  if (req.value().cluster.price_per_gpu_hour_usd > 0)
    row("cost", fc ? format_money(f["cost_usd"].get<double>()) : "-", has_a ? format_money(a["cost_usd"].get<double>()) : "-");
  if (!j["alternatives"].empty()) {
    std::printf("\nnext best:\n");
    for (const auto& alt : j["alternatives"])
      std::printf("  %s parameters on %s tokens, loss %.4f, %.1f days, %s (%s)\n",
                  format_number(alt["params"].get<double>()).c_str(), format_number(alt["tokens"].get<double>()).c_str(),
                  alt["loss"].get<double>(), alt["training_days"].get<double>(), model_text(alt["model"]).c_str(),
                  plan_text(alt["plan"]).c_str());
  }
  std::printf("\n%zu candidate sizes, %lld plans simulated\n", j["curve"].size(),
              j["plans_simulated"].get<long long>());
  if (args.has("time")) std::printf("wall time %.2f s\n", j["seconds"].get<double>());
  return 0;
}

}  // namespace vtrain::cli
