// vtrain validate: simulate measured runs and report the error per run and overall.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "vtrain/json_text.hpp"
#include "vtrain/validation.hpp"

namespace vtrain::cli {

using nlohmann::json;

bool read_file(const std::string& path, std::string& text) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  text = ss.str();
  return true;
}

// Applies --gpu, --gpus-per-node, --intra-node-GBps, --inter-node-Gbps, --vocab and --attention
// to the setup; false (with a message printed) on a bad value.
bool apply_setup_options(const Args& args, ValidationSetup& setup) {
  if (args.has("gpu")) setup.gpu = args.get("gpu");
  if (!whole_option(args, "gpus-per-node", 1, limits::gpus_per_node, setup.gpus_per_node) ||
      !number_option(args, "intra-node-GBps", setup.intra_node_GBps, true) ||
      !number_option(args, "inter-node-Gbps", setup.inter_node_Gbps, true) ||
      !whole_option(args, "vocab", 1, limits::vocab, setup.vocab))
    return false;
  if (args.has("attention") && !from_string(args.get("attention"), setup.attention)) {
    std::fprintf(stderr, "error: --attention: must be %s\n", enum_choices<Attention>(" or ").c_str());
    return false;
  }
  return true;
}

bool load_profile_option(const Args& args, Profile& out, bool& has) {
  has = false;
  if (!args.has("profile")) return true;
  std::string text;
  if (!read_file(args.get("profile"), text)) {
    std::fprintf(stderr, "error: --profile: cannot read %s\n", args.get("profile").c_str());
    return false;
  }
  json j;
  const Diagnostics syntax = parse_json_text(text, j);
  for (const auto& d : syntax)
    std::fprintf(stderr, "error: --profile: %s: %s [%s]\n", args.get("profile").c_str(), d.message.c_str(), d.code.c_str());
  if (!syntax.empty()) return false;
  auto parsed = parse_profile(j);
  if (!parsed.ok()) {
    std::fprintf(stderr, "error: --profile: %s is not a valid profile:\n", args.get("profile").c_str());
    print_errors(parsed.errors());
    return false;
  }
  out = parsed.value();
  has = true;
  return true;
}

// The groups, worst share of the error first: a bias shared by a whole group points at a cause.
void print_groups(const std::vector<ErrorGroup>& groups, const std::vector<std::string>& by) {
  std::string names;
  for (const auto& b : by) names += (names.empty() ? "" : ", ") + b;
  std::printf("  by %s: %zu group%s, largest share of the error first\n   ", names.c_str(), groups.size(),
              groups.size() == 1 ? "" : "s");
  for (const auto& b : by) std::printf(" %*s", static_cast<int>(std::max<size_t>(b.size(), 5)), b.c_str());
  std::printf(" %5s %11s %7s %7s %6s %8s\n", "runs", "mean error", "MAPE", "max", "share", "scatter");
  double scatter = 0;
  int runs = 0;
  for (const ErrorGroup& g : groups) {
    std::printf("   ");
    for (size_t i = 0; i < by.size(); ++i)
      std::printf(" %*d", static_cast<int>(std::max<size_t>(by[i].size(), 5)), g.key[i]);
    std::printf(" %5d %+10.1f%% %6.1f%% %6.1f%% %5.1f%% %7.1f%%\n", g.runs, g.mean_error_percent, g.mape_percent,
                g.max_abs_error_percent, g.share_of_error_percent, g.scatter_mape_percent);
    scatter += g.scatter_mape_percent * g.runs;
    runs += g.runs;
  }
  if (runs > 0)
    std::printf("  scatter: MAPE if each group's predictions were scaled by the one factor that fits it best:\n"
                "  %.2f%%, the most a correction per group could reach; the rest varies within groups\n",
                scatter / runs);
}

// Measured and predicted parts side by side for each group of pipeline-parallel-1 runs.
void print_decomposition(const std::vector<TimeDecomposition>& list) {
  if (list.empty()) {
    std::printf("  decomposition: no group of pipeline-parallel-1 runs that differ only in layers and micro-batches\n");
    return;
  }
  std::printf("  time = micro-batches x layers x A + micro-batches x B + layers x C + D (ms), measured / predicted,\n"
              "  for %zu group%s of pipeline-parallel-1 runs that differ only in layers and micro-batches\n",
              list.size(), list.size() == 1 ? "" : "s");
  std::printf("    %6s %5s %5s %3s %3s %4s %4s  %15s %15s %13s %13s %6s\n", "hidden", "heads", "seq", "tp", "dp",
              "mbs", "runs", "A layer x mb", "B micro-batch", "C layer", "D iteration", "resid");
  for (const TimeDecomposition& d : list) {
    const TimeParts &m = d.measured, &p = d.predicted;
    std::printf("    %6d %5d %5d %3d %3d %4d %4d  %7.2f %7.2f %7.2f %7.2f %6.2f %6.2f %6.1f %6.1f %5.1f%%\n", d.hidden,
                d.heads, d.seq_len, d.tp, d.dp, d.micro_batch, d.runs, m.per_layer_microbatch_ms,
                p.per_layer_microbatch_ms, m.per_microbatch_ms, p.per_microbatch_ms, m.per_layer_ms, p.per_layer_ms,
                m.per_iteration_ms, p.per_iteration_ms, m.max_residual_percent);
  }
}

// Runs that contradict each other whatever the model: the most work measured fastest.
void print_contradictions(const ContradictionReport& c, const ValidationReport& r) {
  std::map<int, const MeasuredRun*> by_line;
  for (const auto& row : r.rows) by_line[row.run.line] = &row.run;
  std::printf("  contradictions: %zu pair%s of runs set up alike where the second does at least the first's\n"
              "  work, kernel by kernel, yet was measured faster (%d of the %d runs compared are in one)\n",
              c.pairs.size(), c.pairs.size() == 1 ? "" : "s", c.runs_in_pairs, c.runs_compared);
  const size_t shown = std::min<size_t>(c.pairs.size(), 10);
  if (shown > 0)
    std::printf("    %5s %12s  %5s %12s %8s  %s\n", "line", "measured ms", "line", "measured ms", "faster",
                "plan: what differs");
  for (size_t i = 0; i < shown; ++i) {
    const Contradiction& p = c.pairs[i];
    const MeasuredRun &a = *by_line[p.less_work_line], &b = *by_line[p.more_work_line];
    std::string diff;
    auto field = [&](const char* name, int x, int y) {
      if (x == y) return;
      diff += std::string(diff.empty() ? "" : ", ") + name + " " + std::to_string(x) + " -> " + std::to_string(y);
    };
    field("hidden", a.hidden, b.hidden);
    field("heads", a.heads, b.heads);
    field("seq", a.seq_len, b.seq_len);
    field("mbs", a.micro_batch, b.micro_batch);
    field("gbs", a.global_batch, b.global_batch);
    if (diff.empty()) diff = "the same run";
    std::printf("    %5d %12.1f  %5d %12.1f %7.1f%%  tp %d, pp %d, dp %d, %d layers: %s\n", p.less_work_line,
                p.less_work_ms, p.more_work_line, p.more_work_ms, p.shortfall_percent, a.tp, a.pp, a.dp, a.layers,
                diff.c_str());
  }
  if (c.pairs.size() > shown) std::printf("    ... and %zu more\n", c.pairs.size() - shown);
  if (!c.pairs.empty())
    std::printf("  the simulator predicts the run with more work no faster in %d of the %zu pairs\n",
                c.predicted_in_order, c.pairs.size());
  std::printf("  a simulator whose times never fall as work grows errs by at least %.2f%% MAPE on this file\n",
              c.mape_floor_percent);
}

int run_validate(const Args& args) {
  if (args.positional.empty()) {
    std::fprintf(stderr, "error: validate needs a measurements CSV file\n");
    return 2;
  }
  ValidationSetup setup;
  if (!apply_setup_options(args, setup)) return 2;
  Profile custom;
  bool has_custom = false;
  if (!load_profile_option(args, custom, has_custom)) return 2;
  std::vector<std::string> by;
  if (args.has("by")) {
    std::stringstream list(args.get("by"));
    for (std::string column; std::getline(list, column, ',');) by.push_back(column);
    if (by.empty()) by.push_back("");
    ValidationReport empty;
    auto check = group_errors(empty, by);
    if (!check.ok()) {
      for (const auto& d : check.errors()) std::fprintf(stderr, "error: --by %s\n", d.message.c_str());
      return 2;
    }
  }
  int scale_from = 0;  // --scale N: error against GPU count of every file's runs on N GPUs or more
  if (args.has("scale") && !whole_option(args, "scale", 1, limits::num_gpus, scale_from)) return 2;
  struct ScaleRow {
    std::string file;
    int line, gpus;
    double error;
  };
  std::vector<ScaleRow> scale_rows;
  json files = json::array();
  int status = 0;
  for (const std::string& path : args.positional) {
    std::string text;
    // Errors name the file; with --json they also go to stdout (print_errors).
    auto fail = [&](Diagnostics errors) {
      for (auto& d : errors) d.message = path + ": " + d.message;
      print_errors(errors);
    };
    if (!read_file(path, text)) {
      fail({Diagnostic{"file", "", "cannot be read (missing, unreadable or a folder)"}});
      return 2;
    }
    auto runs = parse_measurements(text);
    if (!runs.ok()) {
      fail(runs.errors());
      return 1;
    }
    const std::vector<std::string> unread = unread_columns(text);
    if (!unread.empty()) {
      std::string settings;
      for (const auto& c : measurement_setting_columns()) settings += (settings.empty() ? "\"" : ", \"") + c + "\"";
      for (const auto& c : unread)
        std::fprintf(stderr, "warning: %s: column \"%s\" is not read (a setting is one of %s)\n", path.c_str(),
                     c.c_str(), settings.c_str());
    }
    auto report = validate_runs(runs.value(), setup, has_custom ? &custom : nullptr);
    if (!report.ok()) {
      fail(report.errors());
      return 1;
    }
    const ValidationReport& r = report.value();
    if (scale_from > 0)
      for (const auto& row : r.rows)
        if (!row.run.layer_time && row.run.num_gpus >= scale_from)
          scale_rows.push_back({std::filesystem::path(path).filename().string(), row.run.line, row.run.num_gpus,
                                row.error_percent});
    const std::vector<ErrorGroup> groups = by.empty() ? std::vector<ErrorGroup>{} : group_errors(r, by).value();
    const std::vector<TimeDecomposition> parts =
        args.has("decompose") ? decompose_times(r) : std::vector<TimeDecomposition>{};
    const ContradictionReport contradictions =
        args.has("contradictions") ? find_contradictions(r, setup) : ContradictionReport{};
    if (args.has("json")) {
      json rows = json::array();
      for (const auto& row : r.rows) {
        const MeasuredRun& m = row.run;
        json j = {{"line", m.line},          {"num_gpus", m.num_gpus}, {"global_batch", m.global_batch},
                  {"micro_batch", m.micro_batch}, {"hidden", m.hidden}, {"heads", m.heads},
                  {"layers", m.layers},      {"seq_len", m.seq_len},   {"tp", m.tp},
                  {"dp", m.dp},              {"pp", m.pp},             {"measured_ms", m.measured_ms},
                  {"predicted_ms", row.predicted_ms}, {"error_percent", row.error_percent}};
        if (m.layer_time) j["layer_time"] = true;
        if (m.params_billion > 0) j["params_billion"] = m.params_billion;
        if (m.vocab > 0) j["vocab"] = m.vocab;
        if (m.virtual_stages > 1) j["virtual_stages"] = m.virtual_stages;
        if (m.cp > 1) j["cp"] = m.cp;
        if (m.has_recompute) j["recompute"] = to_string(m.recompute);
        if (m.sequence_parallel) j["sequence_parallel"] = true;
        if (m.inter_node_Gbps > 0) j["inter_node_Gbps"] = m.inter_node_Gbps;
        if (m.has_placement) j["placement"] = to_string(m.placement);
        if (m.has_network)
          j["network"] = {{"topology", to_string(m.network.topology)},
                          {"nodes_per_leaf", m.network.nodes_per_leaf},
                          {"nodes_per_pod", m.network.nodes_per_pod},
                          {"oversubscription", m.network.oversubscription},
                          {"core_oversubscription", m.network.core_oversubscription}};
        if (m.tp_async_backward >= 0) j["tp_async_backward"] = m.tp_async_backward == 1;
        if (m.tp_comm_overlap) j["tp_comm_overlap"] = true;
        if (m.p2p_overlap) j["p2p_overlap"] = true;
        if (m.has_precision) j["precision"] = to_string(m.precision);
        if (m.dp_overlap >= 0) j["dp_overlap"] = m.dp_overlap == 1;
        if (m.grad_accumulation_fusion >= 0) j["grad_accumulation_fusion"] = m.grad_accumulation_fusion == 1;
        if (m.zero_stage >= 0) j["zero_stage"] = m.zero_stage;
        if (m.zero_all_reduce) j["zero_all_reduce"] = true;
        if (m.launch_blocking) j["launch_blocking"] = true;
        if (!m.fused_elementwise) j["fused_elementwise"] = false;
        if (m.embedding_as_layer) j["embedding_as_layer"] = true;
        if (m.head_as_layer) j["head_as_layer"] = true;
        if (m.held_out) j["held_out"] = true;
        if (m.has_position) j["position"] = to_string(m.position);
        if (m.shard_group > 0) j["shard_group"] = m.shard_group;
        if (m.ep > 1) j["ep"] = m.ep;
        if (m.etp > 0) j["etp"] = m.etp;
        if (m.capacity_factor >= 0) j["capacity_factor"] = m.capacity_factor;
        if (!m.grad_reduce_fp32) j["grad_reduce_fp32"] = false;
        if (!m.reshard_after_forward) j["reshard_after_forward"] = false;
        if (m.recompute_gather) j["recompute_gather"] = true;
        if (m.shard_flat_ring) j["shard_flat_ring"] = true;
        if (m.shard_device_sync) j["shard_device_sync"] = true;
        if (m.moe_permute_sync) j["moe_permute_sync"] = true;
        if (m.has_attention) j["attention"] = to_string(m.attention);
        if (!row.notes.empty()) j["notes"] = row.notes;
        rows.push_back(j);
      }
      json file = {{"file", path},
                   {"runs", r.rows.size()},
                   {"mape_percent", r.mape_percent},
                   {"max_abs_error_percent", r.max_abs_error_percent},
                   {"rows", rows}};
      if (!unread.empty()) file["unread_columns"] = unread;
      if (!by.empty()) {
        json list = json::array();
        for (const ErrorGroup& g : groups) {
          json key = json::object();
          for (size_t i = 0; i < by.size(); ++i) key[by[i]] = g.key[i];
          list.push_back({{"key", key},
                          {"runs", g.runs},
                          {"mean_error_percent", g.mean_error_percent},
                          {"mape_percent", g.mape_percent},
                          {"max_abs_error_percent", g.max_abs_error_percent},
                          {"share_of_error_percent", g.share_of_error_percent},
                          {"scatter_mape_percent", g.scatter_mape_percent}});
        }
        file["groups"] = list;
      }
      if (args.has("decompose")) {
        auto to_json = [](const TimeParts& t) {
          return json{{"per_layer_microbatch_ms", t.per_layer_microbatch_ms},
                      {"per_microbatch_ms", t.per_microbatch_ms},
                      {"per_layer_ms", t.per_layer_ms},
                      {"per_iteration_ms", t.per_iteration_ms},
                      {"max_residual_percent", t.max_residual_percent}};
        };
        json list = json::array();
        for (const TimeDecomposition& d : parts)
          list.push_back({{"hidden", d.hidden}, {"heads", d.heads}, {"seq_len", d.seq_len}, {"tp", d.tp},
                          {"dp", d.dp}, {"micro_batch", d.micro_batch}, {"runs", d.runs},
                          {"measured", to_json(d.measured)}, {"predicted", to_json(d.predicted)}});
        file["decomposition"] = list;
      }
      if (args.has("contradictions")) {
        json pairs = json::array();
        for (const Contradiction& p : contradictions.pairs)
          pairs.push_back({{"less_work_line", p.less_work_line},
                           {"more_work_line", p.more_work_line},
                           {"less_work_ms", p.less_work_ms},
                           {"more_work_ms", p.more_work_ms},
                           {"shortfall_percent", p.shortfall_percent}});
        file["contradictions"] = {{"pairs", pairs},
                                  {"runs_compared", contradictions.runs_compared},
                                  {"runs_in_pairs", contradictions.runs_in_pairs},
                                  {"predicted_in_order", contradictions.predicted_in_order},
                                  {"mape_floor_percent", contradictions.mape_floor_percent}};
      }
      files.push_back(file);
      continue;
    }
    std::printf("%s\n", path.c_str());
    if (!args.has("summary")) {
      // Runs with settings of their own (the optional columns) show them in a last column.
      auto settings = [](const MeasuredRun& m) {
        std::string s = m.layer_time ? " layer" : "";
        if (m.has_recompute) s += std::string(" ") + to_string(m.recompute);
        if (m.sequence_parallel) s += " sp";
        if (m.tp_async_backward == 1) s += " async";
        if (m.tp_comm_overlap) s += " tp-overlap";
        if (m.p2p_overlap) s += " p2p-overlap";
        if (m.dp_overlap == 1) s += " dp-overlap";
        if (m.grad_accumulation_fusion == 0) s += " unfused-acc";
        if (m.has_precision) s += std::string(" ") + to_string(m.precision);
        if (m.virtual_stages > 1) s += " v" + std::to_string(m.virtual_stages);
        if (m.cp > 1) s += " cp" + std::to_string(m.cp);
        if (m.embedding_as_layer) s += " emb-slot";
        if (m.head_as_layer) s += " head-slot";
        if (m.held_out) s += " held-out";
        if (m.zero_stage >= 0) s += " zero" + std::to_string(m.zero_stage);
        if (m.zero_all_reduce) s += " zero-all-reduce";
        if (m.launch_blocking) s += " blocking";
        if (!m.fused_elementwise) s += " eager";
        if (m.has_position && m.position != PositionEmbedding::learned) s += std::string(" ") + to_string(m.position);
        if (m.shard_group > 0) s += " shard" + std::to_string(m.shard_group);
        if (m.ep > 1) s += " ep" + std::to_string(m.ep);
        if (m.capacity_factor > 0) {
          char cf[32];
          std::snprintf(cf, sizeof cf, " capacity %g", m.capacity_factor);
          s += cf;
        }
        if (!m.grad_reduce_fp32) s += " bf16-grads";
        if (!m.reshard_after_forward) s += " grad-op";
        if (m.recompute_gather) s += " recompute-gather";
        if (m.shard_flat_ring) s += " flat-ring";
        if (m.shard_device_sync) s += " device-sync";
        if (m.moe_permute_sync) s += " permute-sync";
        if (m.has_attention) s += std::string(" ") + to_string(m.attention);
        if (m.vocab > 0) s += " vocab " + std::to_string(m.vocab);
        if (m.inter_node_Gbps > 0) {
          char net[48];
          std::snprintf(net, sizeof net, " net %g Gbit/s", m.inter_node_Gbps);
          s += net;
        }
        if (m.has_placement) s += std::string(" ") + to_string(m.placement);
        if (m.has_network) {
          char net[96];
          std::snprintf(net, sizeof net, " %s %d/leaf", to_string(m.network.topology), m.network.nodes_per_leaf);
          s += net;
          if (m.network.topology == Topology::clos3) {
            std::snprintf(net, sizeof net, " %d/pod", m.network.nodes_per_pod);
            s += net;
          }
          if (m.network.oversubscription > 1 || m.network.core_oversubscription > 1) {
            std::snprintf(net, sizeof net, " 1:%g", m.network.oversubscription);
            s += net;
            if (m.network.core_oversubscription > 1) {
              std::snprintf(net, sizeof net, " core 1:%g", m.network.core_oversubscription);
              s += net;
            }
          }
        }
        return s;
      };
      bool any_settings = false;
      for (const auto& row : r.rows) any_settings = any_settings || !settings(row.run).empty();
      std::printf("  %5s %5s %5s %4s %6s %4s %4s %3s %3s %3s %12s %12s %8s%s\n", "line", "gpus", "gbs", "mbs",
                  "hidden", "lyr", "seq", "tp", "dp", "pp", "measured ms", "predicted ms", "error",
                  any_settings ? " setup" : "");
      for (const auto& row : r.rows) {
        const MeasuredRun& m = row.run;
        std::printf("  %5d %5d %5d %4d %6d %4d %4d %3d %3d %3d %12.1f %12.1f %+7.1f%%%s\n", m.line, m.num_gpus,
                    m.global_batch, m.micro_batch, m.hidden, m.layers, m.seq_len, m.tp, m.dp, m.pp,
                    m.measured_ms, row.predicted_ms, row.error_percent, settings(m).c_str());
      }
      for (const auto& row : r.rows)
        for (const std::string& note : row.notes) std::printf("  note, line %d: %s\n", row.run.line, note.c_str());
    }
    std::printf("  %zu run%s, MAPE %.2f%%, max error %.1f%%\n", r.rows.size(), r.rows.size() == 1 ? "" : "s",
                r.mape_percent, r.max_abs_error_percent);
    if (args.has("summary")) {
      size_t noted = 0;
      for (const auto& row : r.rows) noted += row.notes.empty() ? 0 : 1;
      if (noted > 0)
        std::printf("  %zu run%s notes (run without --summary to see them)\n", noted,
                    noted == 1 ? " has" : "s have");
    }
    if (!by.empty()) print_groups(groups, by);
    if (args.has("decompose")) print_decomposition(parts);
    if (args.has("contradictions")) print_contradictions(contradictions, r);
  }
  if (scale_from > 0 && !args.has("json")) {
    // Error against GPU count: a model that misses something growing with scale errs more the larger
    // the run; the least-squares slope of the error against log2(GPUs) says whether it does.
    std::stable_sort(scale_rows.begin(), scale_rows.end(), [](const ScaleRow& a, const ScaleRow& b) { return a.gpus < b.gpus; });
    std::printf("error against GPU count, runs on %d GPUs or more\n  %6s %8s  %s\n", scale_from, "gpus", "error",
                "file:line");
    std::vector<ScalePoint> points;
    for (const ScaleRow& row : scale_rows) {
      std::printf("  %6d %+7.1f%%  %s:%d\n", row.gpus, row.error, row.file.c_str(), row.line);
      points.push_back({row.file, row.gpus, row.error});
    }
    // The points are the runs just simulated: whole GPU counts of at least N, finite errors.
    const ScaleTrend trend = fit_scale_trend(points).value();
    auto interval = [](const ScaleSlope& s) {
      char text[96];
      std::snprintf(text, sizeof text, "95%% interval %+.2f to %+.2f", s.points_per_doubling - s.ci95_points,
                    s.points_per_doubling + s.ci95_points);
      return std::string(text);
    };
    if (trend.pooled.defined) {
      std::printf("  %d runs: error changes by %+.2f points per doubling of the GPUs (correlation %+.2f), %s\n",
                  trend.runs, trend.pooled.points_per_doubling, trend.correlation, interval(trend.pooled).c_str());
    } else {
      std::printf("  %d run%s: too few runs or GPU counts to bound a trend\n", trend.runs, trend.runs == 1 ? "" : "s");
    }
    // Each file is one source (a stack, a model, a cluster): its level taken out, the slope left is
    // how the error of one source moves as its own runs grow.
    if (trend.sets > 1 && trend.within_sets.defined)
      std::printf("  within each of the %d files: %+.2f points per doubling, %s\n", trend.sets,
                  trend.within_sets.points_per_doubling, interval(trend.within_sets).c_str());
  }
  if (args.has("json")) {
    // One file: the documented object; several: an array of them.
    std::printf("%s\n", dump_json((files.size() == 1 ? files[0] : files), 2).c_str());
  }
  return status;
}

}  // namespace vtrain::cli
