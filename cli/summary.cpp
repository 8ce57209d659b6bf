// Human-readable summary of one simulation.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "cli.hpp"
#include "vtrain/profile.hpp"

namespace vtrain::cli {

std::string format_number(double v, int significant) {
  char buf[64];
  const double a = std::fabs(v);
  if (a >= 1e15) std::snprintf(buf, sizeof buf, "%.*g", significant, v);
  else if (a >= 1e12) std::snprintf(buf, sizeof buf, "%.*g T", significant, v / 1e12);
  else if (a >= 1e9) std::snprintf(buf, sizeof buf, "%.*g B", significant, v / 1e9);
  else if (a >= 1e6) std::snprintf(buf, sizeof buf, "%.*g M", significant, v / 1e6);
  else if (a >= 1e4) std::snprintf(buf, sizeof buf, "%.*g k", significant, v / 1e3);
  else std::snprintf(buf, sizeof buf, "%.*g", significant, v);
  // %g turns 3000 (or 2110 T) into "3e+03": below 1e15 every figure is written out in full.
  if (a < 1e15 && std::string(buf).find('e') != std::string::npos) {
    const double scale = a >= 1e12 ? 1e12 : a >= 1e9 ? 1e9 : a >= 1e6 ? 1e6 : a >= 1e4 ? 1e3 : 1;
    const char* suffix = a >= 1e12 ? " T" : a >= 1e9 ? " B" : a >= 1e6 ? " M" : a >= 1e4 ? " k" : "";
    std::snprintf(buf, sizeof buf, "%.0f%s", v / scale, suffix);
  }
  return buf;
}

std::string format_duration(double s) {
  char buf[64];
  if (s < 1e-3) std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  else if (s < 1) std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
  else if (s < 120) std::snprintf(buf, sizeof buf, "%.3f s", s);
  else if (s < 3 * 3600) std::snprintf(buf, sizeof buf, "%.1f min", s / 60);
  else if (s < 3 * 86400) std::snprintf(buf, sizeof buf, "%.1f h", s / 3600);
  else std::snprintf(buf, sizeof buf, "%.1f days", s / 86400);
  return buf;
}

std::string format_money(double usd) {
  char buf[64];
  if (usd >= 1e15) std::snprintf(buf, sizeof buf, "$%.3g", usd);
  else if (usd >= 1e12) std::snprintf(buf, sizeof buf, "$%.2f T", usd / 1e12);
  else if (usd >= 1e9) std::snprintf(buf, sizeof buf, "$%.2f B", usd / 1e9);
  else if (usd >= 1e6) std::snprintf(buf, sizeof buf, "$%.2f M", usd / 1e6);
  else if (usd >= 1e3) std::snprintf(buf, sizeof buf, "$%.1f k", usd / 1e3);
  else std::snprintf(buf, sizeof buf, "$%.2f", usd);
  return buf;
}

std::string summary(const SimResult& r) {
  std::string out;
  char line[512];
  const auto& c = r.config;
  const auto& p = c.plan;
  auto add = [&](const char* fmt, auto... args) {
    std::snprintf(line, sizeof line, fmt, args...);
    out += line;
  };
  add("%s, %s parameters, on %d x %s\n", c.model.name.c_str(), format_number(r.parameters.total).c_str(),
      c.cluster.num_gpus, c.cluster.gpu.c_str());
  add("plan: tp %d%s, pp %d, dp %d, micro-batch %d, global batch %d (%d micro-batch%s), recompute %s%s%s\n",
      p.tp, p.cp > 1 ? (", cp " + std::to_string(p.cp)).c_str() : "", p.pp, p.dp, p.micro_batch, p.global_batch, r.micro_batches, r.micro_batches == 1 ? "" : "es", to_string(p.recompute),
      p.virtual_stages > 1 ? (", " + std::to_string(p.virtual_stages) + " virtual stages").c_str() : "",
      p.sequence_parallel ? ", sequence parallel" : "");
  if (p.zero_stage > 0) {
    // What the data-parallel ranks shard, over how many, and the ways the stack gathers it.
    static const char* const kSharded[] = {"", "optimizer states", "optimizer states and gradients",
                                           "optimizer states, gradients and parameters"};
    const int group = p.shard_group > 0 ? p.shard_group : p.dp * p.cp;
    std::string how;
    if (p.zero_stage >= 3) {
      if (!p.shard_prefetch) how += ", no prefetch";
      if (!p.reshard_after_forward) how += ", kept from forward to backward";
      if (p.recompute_gather) how += ", gathered again to recompute";
      if (p.shard_flat_ring) how += ", one flat ring";
      if (p.shard_device_sync) how += ", the device synchronized before each layer";
    }
    // A mixture of experts: the routed experts' states are split over their own replicas only.
    if (r.details.moe)
      how += r.details.edp > 1 ? ", the routed experts' over " + std::to_string(r.details.edp)
                               : std::string(", the routed experts' not at all (one copy of each)");
    if (p.zero_all_reduce && p.zero_stage == 1) how += ", gradients all-reduced whole";
    if (p.optimizer_offload) how += ", optimizer on the CPU";
    add("ZeRO-%d: %s sharded over %d GPU%s%s\n", p.zero_stage, kSharded[std::min(p.zero_stage, 3)], group,
        group == 1 ? "" : "s", how.c_str());
  }
  if (r.details.moe) {
    const auto& e = c.model.moe;
    add("experts: %d a MoE layer (%d of %d layers), top-%d, %s active parameters; ep %d over %d node%s, etp %d, "
        "expert data parallel %d\n",
        e.experts, r.parameters.moe_layers, c.model.layers, e.experts_per_token, format_number(r.parameters.active).c_str(),
        p.ep, r.details.ep_nodes, r.details.ep_nodes == 1 ? "" : "s", expert_tp(p), r.details.edp);
    add("  a MoE layer: all-to-alls %s (forward and backward), busiest rank %.2f x the mean load%s\n",
        format_duration(r.details.moe_all_to_all_s).c_str(), r.details.moe_load_imbalance,
        p.moe_permute_sync ? "; the host waits on its token permutations" : "");
  }
  out += "\n";
  add("  iteration time   %s", format_duration(r.iteration_time_s).c_str());
  if (r.accuracy.runs > 0) {
    // "18 published Megatron-LM runs, 8-3072 GPUs, hidden 2304-25600"
    const auto range = [](int lo, int hi) { return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi); };
    const auto runs = [&](const ProfileAccuracy& a) {
      std::string s = std::to_string(a.runs) + (a.set == "published" ? " published " + a.framework : " measured " + a.set) + " runs";
      if (a.gpus_max > 0) s += ", " + range(a.gpus_min, a.gpus_max) + " GPUs";
      if (a.hidden_max > 0) s += ", hidden " + range(a.hidden_min, a.hidden_max);
      return s;
    };
    const auto fitted = [](const ProfileAccuracy& a) {
      return a.never_fitted ? ", never fitted" : a.held_out ? ", held out of the fit" : " the profile was fitted to";
    };
    const ProfileAccuracy& a = r.accuracy;
    add("  (mean error %.1f%% on %s%s", a.mape_percent, runs(a).c_str(), fitted(a));
    for (const ProfileAccuracy& b : r.accuracy_also)
      add(";\n                             %.1f%% on %s%s", b.mape_percent, runs(b).c_str(), fitted(b));
    add("; %s profile)", r.profile_kind);
  } else {
    add("  (%s profile: no measured runs of this GPU recorded)", r.profile_kind);
  }
  out += "\n";
  add("  throughput       %s tokens/s, %.1f TFLOP/s per GPU\n", format_number(r.tokens_per_s).c_str(),
      r.tflops_per_gpu);
  add("  utilization      MFU %.1f%%, HFU %.1f%%\n", 100 * r.mfu, 100 * r.hfu);
  if (r.config.training.tokens > 0) {
    add("  training         %s tokens: %s iterations, %.1f days, %s GPU-hours", format_number(r.config.training.tokens).c_str(),
        format_number(r.iterations).c_str(), r.training_days, format_number(r.gpu_hours).c_str());
    if (c.cluster.price_per_gpu_hour_usd > 0)
      add(", %s at $%.2f per GPU-hour", format_money(r.cost_usd).c_str(), c.cluster.price_per_gpu_hour_usd);
    out += "\n";
    // Ideal days against the expected days with failures, restarts and checkpoints (/reliability).
    const Goodput& g = r.goodput;
    if (!g.finite)
      out += "  expected         no finite time: failures come faster than the run progresses\n";
    else if (g.expected_days > g.ideal_days)
      add("  expected         %.1f days with %s failures (%.1f%% lost: checkpoints %.2f, redone work %.2f, "
          "restarts %.2f days)\n",
          g.expected_days, format_number(g.failures).c_str(), 100 * g.lost_share, g.checkpoint_days,
          g.lost_work_days, g.restart_days);
  }
  out += "\n";
  add("time breakdown (stage %d of %d):\n", r.breakdown_stage, p.pp);
  const Breakdown& b = r.breakdown;
  const std::pair<const char*, double> parts[] = {
      {"forward", b.forward},
      {"backward", b.backward},
      {"recompute", b.recompute},
      {"tp comm (exposed)", b.tp_comm_exposed},
      {"cp comm (exposed)", b.cp_comm_exposed},
      {"pp comm (exposed)", b.pp_comm_exposed},
      {"dp comm (exposed)", b.dp_comm_exposed},
      {"embedding comm", b.embedding_comm_exposed},
      {"host overhead", b.host_overhead},
      {"pipeline bubble", b.pipeline_bubble},
      {"optimizer", b.optimizer},
      {"slowest GPU", b.straggler_wait}};
  for (const auto& [name, v] : parts) {
    if (v <= 0) continue;
    add("  %-20s %12s  %5.1f%%\n", name, format_duration(v).c_str(), 100 * v / r.iteration_time_s);
  }
  if (r.details.straggler_wait_s > 0) {
    const SimDetails& d = r.details;
    add("  the slowest GPU:  %s = %.1f%% spread x %.2f (expected slowest of %d GPUs) x %s compute; "
        "tensor %s, pipeline %s, data %s\n",
        format_duration(d.straggler_wait_s).c_str(), 100 * d.gpu_speed_spread, d.straggler_slowest_sigmas,
        r.config.cluster.num_gpus, format_duration(d.straggler_compute_s).c_str(),
        format_duration(d.straggler_tensor_s).c_str(), format_duration(d.straggler_pipeline_s).c_str(),
        format_duration(d.straggler_data_s).c_str());
  }
  out += "\n";
  const MemoryBreakdown& m = r.memory;
  add("memory per GPU (stage %d): %.1f GiB of %.0f GiB, %s\n", r.memory_stage, m.total(), r.memory_capacity_GiB,
      r.fits_in_memory ? "fits" : "DOES NOT FIT");
  add("  weights %.1f, gradients %.1f, optimizer states %.1f, activations %.1f, buffers %.1f GiB\n", m.weights,
      m.gradients, m.optimizer_states, m.activations, m.buffers);
  if (r.details.offload) {
    const SimDetails& d = r.details;
    add("optimizer offloaded to the host: %.1f GiB of host memory a GPU; step %s = gradients to the host %s "
        "(%s of it after the reduction) + Adam on the CPU %s + weights back %s\n",
        d.offload_host_GiB,
        format_duration(d.offload_gradient_exposed_s + d.offload_cpu_step_s + d.offload_parameter_copy_s).c_str(),
        format_duration(d.offload_gradient_copy_s).c_str(), format_duration(d.offload_gradient_exposed_s).c_str(),
        format_duration(d.offload_cpu_step_s).c_str(), format_duration(d.offload_parameter_copy_s).c_str());
  }
  if (!r.operators.empty()) {
    out += "\n";
    add("operators, GPU time for one micro-batch on one GPU (\"layer\": each of a stage's %s%d layers):\n",
        r.details.even_stages ? "" : "up to ", r.details.layers_per_stage);
    add("  %-9s %-31s %7s %11s %11s %11s %6s  %s\n", "block", "operator", "kernels", "forward", "recompute",
        "backward", "share", "rate");
    double block_total[3] = {0, 0, 0};
    const auto block_index = [](const std::string& b) { return b == "embedding" ? 0 : b == "layer" ? 1 : 2; };
    for (const auto& o : r.operators) block_total[block_index(o.block)] += o.total_s();
    const auto cell = [](double s) { return s > 0 ? format_duration(s) : std::string("-"); };
    // With a profile's measured operator table, each row says where its time came from.
    bool any_table = false;
    for (const auto& o : r.operators) any_table = any_table || o.measured_kernels + o.interpolated_kernels > 0;
    for (const auto& o : r.operators) {
      const double t = o.total_s();
      char rate[64] = "";
      if (t > 0 && o.work_flops > 0) std::snprintf(rate, sizeof rate, "%.3g TFLOP/s", o.work_flops / t / 1e12);
      else if (t > 0 && o.hbm_bytes > 0) std::snprintf(rate, sizeof rate, "%.4g GB/s", o.hbm_bytes / t / 1e9);
      else if (t > 0 && o.comm_bytes > 0) std::snprintf(rate, sizeof rate, "%.3g GB/s of buffer", o.comm_bytes / t / 1e9);
      const double total = block_total[block_index(o.block)];
      add("  %-9s %-31s %7d %11s %11s %11s %5.1f%%  %s\n", o.block.c_str(), o.name.c_str(), o.kernels,
          cell(o.forward_s).c_str(), cell(o.recompute_s).c_str(), cell(o.backward_s).c_str(),
          total > 0 ? 100 * t / total : 0.0, rate);
      if (any_table) {
        out.pop_back();  // the newline
        add("  [%s]\n", o.time_source());
      }
    }
    add("  (share: of its block's GPU time; rate: FLOPs executed, or bytes moved, per second of it)\n");
    if (std::any_of(r.operators.begin(), r.operators.end(), [](const OperatorTime& o) { return o.name == "sharded parameter all-gather"; }))
      add("  (the sharded parameters' gathers and reduce-scatters run on their own stream beside the layers' compute;\n"
          "   what they add to the iteration is its dp comm (exposed))\n");
    if (any_table)
      add("  ([measured]: timed by the profile's operator table at its shape; [interpolated]: between two measured\n"
          "   shapes; [mixed]: some of its kernels; [modelled]: by the profile's parameters)\n");
  }
  for (const auto& w : r.warnings) add("warning: %s: %s [%s]\n", w.pointer.c_str(), w.message.c_str(), to_string(w.code));
  return out;
}

}  // namespace vtrain::cli
