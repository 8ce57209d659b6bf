#include "vtrain/validation.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <map>

#include "common/embedded.hpp"
#include "iteration/kernels.hpp"
#include "vtrain/model.hpp"
#include "vtrain/profile.hpp"
#include "vtrain/simulate.hpp"

namespace vtrain {

namespace {

// The cells of one line of a CSV file as spreadsheets write them (RFC 4180): a cell in double
// quotes may hold commas, and "" inside it is one quote. Spaces and tabs around a cell, and the
// carriage return of a Windows line end, are not part of it.
std::vector<std::string> split_line(std::string_view line) {
  const auto blank = [](char ch) { return ch == ' ' || ch == '\t' || ch == '\r'; };
  std::vector<std::string> cells;
  size_t i = 0;
  const size_t n = line.size();
  while (true) {
    std::string cell;
    while (i < n && blank(line[i])) ++i;
    if (i < n && line[i] == '"') {
      for (++i; i < n; ++i) {
        if (line[i] != '"') {
          cell += line[i];
        } else if (i + 1 < n && line[i + 1] == '"') {
          cell += '"';
          ++i;
        } else {
          ++i;
          break;
        }
      }
      // What follows the closing quote up to the separator is kept as written.
      std::string rest;
      for (; i < n && line[i] != ','; ++i) rest += line[i];
      const auto e = std::find_if_not(rest.rbegin(), rest.rend(), blank).base();
      cell.append(rest.begin(), e);
    } else {
      for (; i < n && line[i] != ','; ++i) cell += line[i];
      cell.erase(std::find_if_not(cell.rbegin(), cell.rend(), blank).base(), cell.end());
    }
    cells.push_back(std::move(cell));
    if (i >= n) break;
    ++i;  // the separator
  }
  return cells;
}

// vTrain's columns, in the order the numbers are read; the first is the multi-node file's.
const char* const kRunColumns[] = {"Parameters (billion)", "# GPUs", "global batch", "micro batch", "hidden size",
                                   "attention heads", "# layers", "sequence length", "tensor parallelism",
                                   "data parallelism", "pipeline parallelism", "iteration time (ms)"};
// The most each whole-number column may hold: the same limits as the config's fields.
const int kRunColumnMax[] = {0, limits::num_gpus, limits::global_batch, limits::micro_batch, limits::hidden,
                             limits::heads, limits::layers, limits::seq_len, limits::tp, limits::dp, limits::pp, 0};
const double kMeasuredMinMs = 1e-3, kMeasuredMaxMs = 1e9;
// What a file may measure instead of the iteration time: one layer's forward and backward pass.
const char* const kLayerTimeColumn = "layer time (ms)";
// A note column that is carried along unread.
const char* const kNoteColumn = "source";

bool is_setting_column(const std::string& name) {
  for (const auto& c : measurement_setting_columns())
    if (name == c) return true;
  return false;
}

std::string_view without_bom(std::string_view text) {
  if (text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xEF &&
      static_cast<unsigned char>(text[1]) == 0xBB && static_cast<unsigned char>(text[2]) == 0xBF)
    text.remove_prefix(3);
  return text;
}

// Reads the optional columns of one line into `r`; false (with errors) where a cell is invalid.
bool read_optional_columns(const std::vector<std::string>& header, const std::vector<std::string>& cells,
                           int line_no, MeasuredRun& r, Diagnostics& errors) {
  bool ok = true;
  for (size_t i = 0; i < header.size(); ++i) {
    const std::string& name = header[i];
    if (!is_setting_column(name)) continue;
    const std::string pointer = "/line/" + std::to_string(line_no) + "/" + name;
    if (i >= cells.size()) {
      errors.push_back(make_diagnostic("missing_value", pointer, "the line has too few columns"));
      ok = false;
      continue;
    }
    const std::string& s = cells[i];
    // A cell that names one of a few choices: false, with the choices listed, where it names none.
    const auto choose = [&](auto& out,
                            std::initializer_list<std::pair<const char*, std::remove_reference_t<decltype(out)>>> choices) {
      std::string names;
      size_t k = 0;
      for (const auto& [text, value] : choices) {
        if (s == text) {
          out = value;
          return;
        }
        names += std::string(k == 0 ? "" : k + 1 == choices.size() ? " or " : ", ") + text;
        ++k;
      }
      errors.push_back(make_diagnostic("value", pointer, "must be " + names + ", got \"" + s + "\""));
      ok = false;
    };
    // A cell that names a value of an enum as a config names it (vtrain/enums.hpp).
    const auto choose_named = [&](auto& out) {
      using E = std::remove_reference_t<decltype(out)>;
      if (from_string(s, out)) return;
      errors.push_back(make_diagnostic("value", pointer, "must be " + enum_choices<E>(" or ") + ", got \"" + s + "\""));
      ok = false;
    };
    if (name == "GPU") {
      if (!bundled_profiles().find(s)) {
        errors.push_back(unknown_gpu(s, pointer));
        ok = false;
      } else {
        r.gpu = s;
      }
    } else if (name == "model") {
      if (!model_presets().find(s)) {
        errors.push_back(make_diagnostic("value", pointer,
                                         "must be a model preset (" + model_presets().names_text() + "), got \"" + s + "\""));
        ok = false;
      } else {
        r.model = s;
      }
    } else if (name == "attention") {
      r.has_attention = true;
      choose_named(r.attention);
    } else if (name == "recompute") {
      r.has_recompute = true;
      choose_named(r.recompute);
    } else if (name == "position embedding") {
      r.has_position = true;
      choose_named(r.position);
    } else if (name == "precision") {
      r.has_precision = true;
      choose_named(r.precision);
    } else if (name == "sequence parallelism") {
      choose(r.sequence_parallel, {{"yes", true}, {"no", false}});
    } else if (name == "launch blocking") {
      choose(r.launch_blocking, {{"yes", true}, {"no", false}});
    } else if (name == "fused elementwise") {
      choose(r.fused_elementwise, {{"yes", true}, {"no", false}});
    } else if (name == "ZeRO gradient all-reduce") {
      choose(r.zero_all_reduce, {{"yes", true}, {"no", false}});
    } else if (name == "tensor-parallel overlap") {
      choose(r.tp_comm_overlap, {{"yes", true}, {"no", false}});
    } else if (name == "pipeline send overlap") {
      choose(r.p2p_overlap, {{"yes", true}, {"no", false}});
    } else if (name == "embedding as layer") {
      choose(r.embedding_as_layer, {{"yes", true}, {"no", false}});
    } else if (name == "head as layer") {
      choose(r.head_as_layer, {{"yes", true}, {"no", false}});
    } else if (name == "held out") {
      choose(r.held_out, {{"yes", true}, {"no", false}});
    } else if (name == "data-parallel overlap") {
      choose(r.dp_overlap, {{"yes", 1}, {"no", 0}});
    } else if (name == "gradient accumulation fusion") {
      choose(r.grad_accumulation_fusion, {{"yes", 1}, {"no", 0}});
    } else if (name == "async tensor-parallel backward") {
      choose(r.tp_async_backward, {{"yes", 1}, {"no", 0}});
    } else if (name == "ZeRO stage") {
      choose(r.zero_stage, {{"0", 0}, {"1", 1}, {"2", 2}, {"3", 3}});
    } else if (name == "recompute gather") {
      choose(r.recompute_gather, {{"yes", true}, {"no", false}});
    } else if (name == "flat ring") {
      choose(r.shard_flat_ring, {{"yes", true}, {"no", false}});
    } else if (name == "device sync") {
      choose(r.shard_device_sync, {{"yes", true}, {"no", false}});
    } else if (name == "permute sync") {
      choose(r.moe_permute_sync, {{"yes", true}, {"no", false}});
    } else if (name == "reshard after forward") {
      choose(r.reshard_after_forward, {{"yes", true}, {"no", false}});
    } else if (name == "gradient reduction in fp32") {
      choose(r.grad_reduce_fp32, {{"yes", true}, {"no", false}});
    } else if (name == "capacity factor") {
      char* stop = nullptr;
      const double v = std::strtod(s.c_str(), &stop);
      if (s.empty() || stop != s.c_str() + s.size() || !std::isfinite(v) || v < 0 || v > limits::capacity_factor) {
        errors.push_back(make_diagnostic("value", pointer, "must be 0 (dropless) or a capacity factor up to " +
                                                               std::to_string(static_cast<int>(limits::capacity_factor)) + ", got \"" + s + "\""));
        ok = false;
      } else {
        r.capacity_factor = v;
      }
    } else if (name == "placement") {
      r.has_placement = true;
      choose_named(r.placement);
    } else if (name == "topology") {
      r.has_network = true;
      choose_named(r.network.topology);
    } else if (name == "oversubscription" || name == "core oversubscription") {
      r.has_network = true;
      char* stop = nullptr;
      const double v = std::strtod(s.c_str(), &stop);
      if (s.empty() || stop != s.c_str() + s.size() || !std::isfinite(v) || v < 1 || v > limits::oversubscription) {
        errors.push_back(make_diagnostic("value", pointer, "must be a ratio from 1 (non-blocking) to " +
                                                               std::to_string(static_cast<int>(limits::oversubscription)) +
                                                               ", got \"" + s + "\""));
        ok = false;
      } else {
        (name == "oversubscription" ? r.network.oversubscription : r.network.core_oversubscription) = v;
      }
    } else if (name == "inter-node bandwidth (Gbit/s)") {
      char* stop = nullptr;
      const double v = std::strtod(s.c_str(), &stop);
      if (s.empty() || stop != s.c_str() + s.size() || !std::isfinite(v) || v <= 0) {
        errors.push_back(make_diagnostic("value", pointer, "must be a positive number, got \"" + s + "\""));
        ok = false;
      } else {
        r.inter_node_Gbps = v;
      }
    } else {
      char* stop = nullptr;
      const long long v = std::strtoll(s.c_str(), &stop, 10);
      const int most = name == "vocabulary"                  ? limits::vocab
                       : name == "shard group"               ? limits::dp
                       : name == "nodes per leaf"            ? limits::nodes_per_leaf
                       : name == "nodes per pod"             ? limits::nodes_per_pod
                       : name == "expert parallelism"        ? limits::experts
                       : name == "expert tensor parallelism" ? limits::tp
                       : name == "context parallelism"       ? limits::cp
                                                             : limits::virtual_stages;
      if (s.empty() || stop != s.c_str() + s.size() || v < 1 || v > most) {
        errors.push_back(make_diagnostic("value", pointer,
                                         "must be a whole number from 1 to " + std::to_string(most) + ", got \"" + s + "\""));
        ok = false;
      } else if (name == "vocabulary") {
        r.vocab = static_cast<int>(v);
      } else if (name == "shard group") {
        r.shard_group = static_cast<int>(v);
      } else if (name == "nodes per leaf" || name == "nodes per pod") {
        r.has_network = true;
        (name == "nodes per leaf" ? r.network.nodes_per_leaf : r.network.nodes_per_pod) = static_cast<int>(v);
      } else if (name == "expert parallelism") {
        r.ep = static_cast<int>(v);
      } else if (name == "expert tensor parallelism") {
        r.etp = static_cast<int>(v);
      } else if (name == "context parallelism") {
        r.cp = static_cast<int>(v);
      } else {
        r.virtual_stages = static_cast<int>(v);
      }
    }
  }
  return ok;
}

}  // namespace

const std::vector<std::string>& measurement_setting_columns() {
  static const std::vector<std::string> names = {"vocabulary", "virtual pipeline stages", "recompute",
                                                 "sequence parallelism", "inter-node bandwidth (Gbit/s)",
                                                 "async tensor-parallel backward", "precision",
                                                 "data-parallel overlap", "gradient accumulation fusion",
                                                 "ZeRO stage", "ZeRO gradient all-reduce", "launch blocking", "fused elementwise",
                                                 "position embedding", "shard group", "reshard after forward",
                                                 "recompute gather", "attention", "flat ring", "device sync", "permute sync", "GPU", "model",
                                                 "expert parallelism", "expert tensor parallelism",
                                                 "capacity factor", "gradient reduction in fp32",
                                                 "context parallelism", "tensor-parallel overlap",
                                                 "pipeline send overlap", "embedding as layer", "head as layer", "held out",
                                                 "placement", "topology", "nodes per leaf", "nodes per pod", "oversubscription",
                                                 "core oversubscription"};
  return names;
}

Outcome<std::vector<MeasuredRun>> parse_measurements(std::string_view text) {
  text = without_bom(text);
  Diagnostics errors;
  std::vector<MeasuredRun> runs;
  std::vector<std::string> header;
  int line_no = 0;
  size_t pos = 0;
  struct Column {
    const char* name;
    bool required;
    int index = -1;
  };
  Column cols[12];
  for (int k = 0; k < 12; ++k) cols[k] = {kRunColumns[k], k > 0};
  int layer_time_index = -1;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
      if (end == text.size()) break;
      continue;
    }
    auto cells = split_line(line);
    if (header.empty()) {
      header = cells;
      // A column named twice would leave the reader to pick one of two values: an error.
      for (size_t i = 0; i < header.size(); ++i)
        for (size_t k = 0; k < i; ++k)
          if (!header[i].empty() && header[i] == header[k]) {
            errors.push_back(make_diagnostic("duplicate_column", "/header/" + header[i],
                                             "the header names column \"" + header[i] + "\" twice (columns " +
                                                 std::to_string(k + 1) + " and " + std::to_string(i + 1) + ")"));
            break;
          }
      for (size_t i = 0; i < header.size(); ++i)
        if (header[i] == kLayerTimeColumn) layer_time_index = static_cast<int>(i);
      for (auto& c : cols) {
        for (size_t i = 0; i < header.size(); ++i)
          if (header[i] == c.name) c.index = static_cast<int>(i);
        const bool measured = &c == &cols[11];
        if (measured && c.index >= 0 && layer_time_index >= 0) {
          errors.push_back(make_diagnostic("columns", "/header/" + std::string(kLayerTimeColumn),
                                           "a file measures either \"" + std::string(c.name) + "\" or \"" +
                                               kLayerTimeColumn + "\", not both"));
        } else if (measured && c.index < 0 && layer_time_index >= 0) {
          c.name = kLayerTimeColumn;
          c.index = layer_time_index;
        } else if (c.required && c.index < 0) {
          errors.push_back(make_diagnostic("missing_column", "/header/" + std::string(c.name),
                                           "the header has no column \"" + std::string(c.name) + "\"" +
                                               (measured ? " (or \"" + std::string(kLayerTimeColumn) + "\")" : "")));
        }
      }
      if (!errors.empty()) return errors;
      continue;
    }
    MeasuredRun r;
    r.line = line_no;
    double values[12] = {};
    bool ok = true;
    for (size_t i = header.size(); i < cells.size(); ++i) {
      if (cells[i].empty()) continue;  // a trailing separator leaves empty cells: nothing is lost
      errors.push_back(make_diagnostic("extra_value", "/line/" + std::to_string(line_no),
                                       "the line has a value in column " + std::to_string(i + 1) + " (\"" + cells[i] +
                                           "\") but the header names " + std::to_string(header.size()) + " columns"));
      ok = false;
      break;
    }
    for (int k = 0; k < 12; ++k) {
      if (cols[k].index < 0) continue;
      const std::string pointer = "/line/" + std::to_string(line_no) + "/" + cols[k].name;
      if (cols[k].index >= static_cast<int>(cells.size())) {
        errors.push_back(make_diagnostic("missing_value", pointer, "the line has too few columns"));
        ok = false;
        continue;
      }
      const std::string& s = cells[cols[k].index];
      char* stop = nullptr;
      const double v = std::strtod(s.c_str(), &stop);
      if (s.empty() || stop != s.c_str() + s.size() || !std::isfinite(v) || v <= 0) {
        errors.push_back(make_diagnostic("value", pointer, "must be a positive number, got \"" + s + "\""));
        ok = false;
        continue;
      }
      if (k >= 1 && k <= 10 && v != std::floor(v)) {
        errors.push_back(make_diagnostic("value", pointer, "must be a whole number, got \"" + s + "\""));
        ok = false;
        continue;
      }
      if (k >= 1 && k <= 10 && v > kRunColumnMax[k]) {
        errors.push_back(make_diagnostic("range", pointer,
                                         "must be at most " + std::to_string(kRunColumnMax[k]) + ", got \"" + s + "\""));
        ok = false;
        continue;
      }
      // A measured time from a microsecond to eleven days: outside that, a unit or a digit is wrong.
      if (k == 11 && (v < kMeasuredMinMs || v > kMeasuredMaxMs)) {
        errors.push_back(make_diagnostic("range", pointer,
                                         "must be from 0.001 to 1e9 milliseconds, got \"" + s + "\""));
        ok = false;
        continue;
      }
      values[k] = v;
    }
    if (!read_optional_columns(header, cells, line_no, r, errors)) ok = false;
    if (!ok) continue;
    r.params_billion = values[0];
    r.num_gpus = static_cast<int>(values[1]);
    r.global_batch = static_cast<int>(values[2]);
    r.micro_batch = static_cast<int>(values[3]);
    r.hidden = static_cast<int>(values[4]);
    r.heads = static_cast<int>(values[5]);
    r.layers = static_cast<int>(values[6]);
    r.seq_len = static_cast<int>(values[7]);
    r.tp = static_cast<int>(values[8]);
    r.dp = static_cast<int>(values[9]);
    r.pp = static_cast<int>(values[10]);
    r.measured_ms = values[11];
    r.layer_time = layer_time_index >= 0;
    runs.push_back(r);
  }
  if (header.empty()) errors.push_back(make_diagnostic("empty", "", "the file has no header line"));
  else if (runs.empty() && errors.empty()) errors.push_back(make_diagnostic("empty", "", "the file has no runs"));
  if (!errors.empty()) return errors;
  return runs;
}

std::vector<std::string> unread_columns(std::string_view text) {
  text = without_bom(text);
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    for (const std::string& cell : split_line(line)) {
      bool known = cell == kNoteColumn || cell == kLayerTimeColumn || is_setting_column(cell);
      for (const char* c : kRunColumns) known = known || cell == c;
      if (!known) out.push_back(valid_utf8(cell));  // a name to print: bytes that are not UTF-8 as U+FFFD
    }
    break;
  }
  return out;
}

const Registry<PublishedMeasurements>& published_measurements() {
  static const Registry<PublishedMeasurements> files([] {
    std::vector<PublishedMeasurements> v;
    for (const detail::EmbeddedFile& f : detail::embedded_measurements())
      v.push_back({f.name, std::string("profiles/published/") + f.name + ".csv", f.text});
    return v;
  }());
  return files;
}

SimConfig config_for_run(const MeasuredRun& run, const ValidationSetup& setup) {
  SimConfig c;
  // The measured runs are GPT models (Megatron-LM's and DeepSpeed's GPT), some with other positions.
  if (const ModelPreset* preset = run.model.empty() ? nullptr : model_presets().find(run.model)) {
    // A preset's shape with the file's sizes: a grouped-query model keeps its key/value heads
    // where they divide the file's heads, and the preset's MLP width scaled with the width.
    const ModelConfig& pm = preset->model;
    c.model = pm;
    c.model.name = "measured";
    c.model.layers = run.layers;
    c.model.heads = run.heads;
    c.model.seq_len = run.seq_len;
    if (run.hidden != pm.hidden)
      c.model.ffn_hidden = static_cast<int>(static_cast<long long>(pm.ffn_hidden) * run.hidden / pm.hidden);
    c.model.hidden = run.hidden;
    if (pm.kv_heads == pm.heads || run.heads % pm.kv_heads != 0) c.model.kv_heads = run.heads;
    if (run.vocab > 0) c.model.vocab = run.vocab;
  } else {
    c.model = gpt_model("measured", run.layers, run.hidden, run.heads, run.vocab > 0 ? run.vocab : setup.vocab,
                        run.seq_len);
  }
  if (run.has_position) c.model.position = run.position;
  c.cluster.gpu = run.gpu.empty() ? setup.gpu : run.gpu;
  PlanConfig degrees;
  degrees.tp = run.tp;
  degrees.pp = run.pp;
  degrees.dp = run.dp;
  degrees.cp = run.cp;
  c.cluster.num_gpus = static_cast<int>(std::min<long long>(plan_gpus(degrees), limits::num_gpus + 1LL));
  c.cluster.gpus_per_node = setup.gpus_per_node;
  c.cluster.intra_node_GBps = setup.intra_node_GBps;
  c.cluster.inter_node_Gbps = run.inter_node_Gbps > 0 ? run.inter_node_Gbps : setup.inter_node_Gbps;
  if (run.has_network) c.cluster.network = run.network;
  if (run.has_placement) c.plan.placement = run.placement;
  PlanConfig& p = c.plan;
  p.tp = run.tp;
  p.pp = run.pp;
  p.dp = run.dp;
  p.cp = run.cp;
  p.micro_batch = run.micro_batch;
  p.global_batch = run.global_batch;
  p.recompute = run.has_recompute ? run.recompute : setup.recompute;
  p.attention = run.has_attention ? run.attention : setup.attention;
  p.precision = run.has_precision ? run.precision : setup.precision;
  p.dp_overlap = run.dp_overlap >= 0 ? run.dp_overlap == 1 : setup.dp_overlap;
  p.sequence_parallel = run.sequence_parallel;
  p.virtual_stages = run.virtual_stages;
  p.tp_async_backward = run.tp_async_backward >= 0 ? run.tp_async_backward == 1 : setup.tp_async_backward;
  p.grad_accumulation_fusion = run.grad_accumulation_fusion >= 0 ? run.grad_accumulation_fusion == 1
                                                                 : setup.grad_accumulation_fusion;
  p.zero_stage = run.zero_stage >= 0 ? run.zero_stage : 0;
  p.launch_blocking = run.launch_blocking;
  p.fused_elementwise = run.fused_elementwise;
  p.embedding_as_layer = run.embedding_as_layer;
  p.head_as_layer = run.head_as_layer;
  p.zero_all_reduce = run.zero_all_reduce;
  p.shard_group = run.shard_group;
  p.ep = run.ep;
  p.etp = run.etp;
  p.grad_reduce_fp32 = run.grad_reduce_fp32;
  if (run.capacity_factor >= 0 && is_moe(c.model)) c.model.moe.capacity_factor = run.capacity_factor;
  p.reshard_after_forward = run.reshard_after_forward;
  p.recompute_gather = run.recompute_gather;
  p.shard_flat_ring = run.shard_flat_ring;
  p.shard_device_sync = run.shard_device_sync;
  p.moe_permute_sync = run.moe_permute_sync;
  p.tp_comm_overlap = run.tp_comm_overlap;
  p.p2p_overlap = run.p2p_overlap;
  c.output.timeline = false;
  return c;
}

Outcome<ValidationReport> validate_runs(const std::vector<MeasuredRun>& runs, const ValidationSetup& setup,
                                        const Profile* profile) {
  // Every run uses the setup's GPU: an unknown one is one error, not one a row.
  if (!profile && !bundled_profiles().find(setup.gpu)) return Diagnostics{unknown_gpu(setup.gpu, "/gpu")};
  ValidationReport report;
  Diagnostics errors;
  double sum = 0;
  for (const MeasuredRun& run : runs) {
    const std::string where = "/line/" + std::to_string(run.line);
    PlanConfig degrees;
    degrees.tp = run.tp;
    degrees.pp = run.pp;
    degrees.dp = run.dp;
    degrees.cp = run.cp;
    if (plan_gpus(degrees) != run.num_gpus) {
      errors.push_back(make_diagnostic("product", where + "/# GPUs",
                                       std::string(run.cp > 1 ? "must equal tensor x context x data x pipeline parallelism ("
                                                              : "must equal tensor x data x pipeline parallelism (") +
                                           std::to_string(plan_gpus(degrees)) + ")"));
      continue;
    }
    auto result = simulate(config_for_run(run, setup), profile);
    if (!result.ok()) {
      for (auto d : result.errors()) {
        d.message = where + ": " + d.message;
        d.pointer = where + d.pointer;
        errors.push_back(d);
      }
      continue;
    }
    ValidationRow row;
    row.run = run;
    const SimDetails& d = result.value().details;
    row.predicted_ms = (run.layer_time ? d.layer_forward_s + d.layer_recompute_s + d.layer_backward_s
                                       : result.value().iteration_time_s) *
                       1e3;
    row.error_percent = (row.predicted_ms - run.measured_ms) / run.measured_ms * 100.0;
    // A layer-time row measured one layer: whether the whole plan fits in memory is beside the point.
    for (const SimWarning& w : result.value().warnings)
      if (!(run.layer_time && w.code == WarningCode::out_of_memory)) row.notes.push_back(w.message);
    sum += std::abs(row.error_percent);
    report.max_abs_error_percent = std::max(report.max_abs_error_percent, std::abs(row.error_percent));
    report.rows.push_back(row);
  }
  if (!errors.empty()) return errors;
  report.mape_percent = report.rows.empty() ? 0.0 : sum / report.rows.size();
  return report;
}

namespace {

struct GroupColumn {
  const char* name;
  int MeasuredRun::*field;
};

const GroupColumn kGroupColumns[] = {
    {"num_gpus", &MeasuredRun::num_gpus},   {"global_batch", &MeasuredRun::global_batch},
    {"micro_batch", &MeasuredRun::micro_batch}, {"hidden", &MeasuredRun::hidden},
    {"heads", &MeasuredRun::heads},         {"layers", &MeasuredRun::layers},
    {"seq_len", &MeasuredRun::seq_len},     {"tp", &MeasuredRun::tp},
    {"dp", &MeasuredRun::dp},               {"pp", &MeasuredRun::pp},
};

}  // namespace

const std::vector<std::string>& error_group_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& c : kGroupColumns) v.push_back(c.name);
    return v;
  }();
  return names;
}

namespace {

// Smallest mean of |s r_i - 1| over the scale s, for ratios r_i = predicted / measured: the sum is
// convex and piecewise linear in s, so its minimum lies at a breakpoint s = 1 / r_i, the median of
// the 1 / r_i weighted by r_i.
double best_scaled_mape_percent(std::vector<double> r) {
  if (r.empty()) return 0;
  std::sort(r.begin(), r.end(), [](double a, double b) { return a > b; });  // 1 / r ascending
  double total = 0;
  for (double x : r) total += x;
  double acc = 0, s = 1.0 / r.back();
  for (double x : r) {
    acc += x;
    if (acc >= 0.5 * total) {
      s = 1.0 / x;
      break;
    }
  }
  double sum = 0;
  for (double x : r) sum += std::abs(s * x - 1);
  return 100.0 * sum / static_cast<double>(r.size());
}

}  // namespace

Outcome<std::vector<ErrorGroup>> group_errors(const ValidationReport& report, const std::vector<std::string>& columns) {
  std::vector<int MeasuredRun::*> fields;
  Diagnostics errors;
  for (size_t i = 0; i < columns.size(); ++i) {
    const std::string where = "/by/" + std::to_string(i);
    const GroupColumn* found = nullptr;
    for (const auto& c : kGroupColumns)
      if (columns[i] == c.name) found = &c;
    if (!found) {
      std::string names;
      for (const auto& n : error_group_columns()) names += (names.empty() ? "" : ", ") + n;
      errors.push_back(make_diagnostic("unknown_column", where,
                                       "no column named \"" + columns[i] + "\"; one of " + names));
    } else if (std::find(fields.begin(), fields.end(), found->field) != fields.end()) {
      errors.push_back(make_diagnostic("repeated_column", where, "\"" + columns[i] + "\" is named twice"));
    } else {
      fields.push_back(found->field);
    }
  }
  if (columns.empty()) errors.push_back(make_diagnostic("empty", "/by", "name at least one column"));
  if (!errors.empty()) return errors;

  std::map<std::vector<int>, ErrorGroup> groups;
  std::map<std::vector<int>, std::vector<double>> ratios;  // predicted / measured, per group
  double total = 0;
  for (const ValidationRow& row : report.rows) {
    std::vector<int> key;
    for (auto f : fields) key.push_back(row.run.*f);
    ratios[key].push_back(1.0 + row.error_percent / 100.0);
    ErrorGroup& g = groups[key];
    if (g.runs++ == 0) g.key = key;
    const double abs_error = std::abs(row.error_percent);
    g.mean_error_percent += row.error_percent;
    g.mape_percent += abs_error;
    g.max_abs_error_percent = std::max(g.max_abs_error_percent, abs_error);
    total += abs_error;
  }
  std::vector<ErrorGroup> out;
  for (auto& [key, g] : groups) {
    g.share_of_error_percent = total > 0 ? 100.0 * g.mape_percent / total : 0.0;
    g.mean_error_percent /= g.runs;
    g.mape_percent /= g.runs;
    g.scatter_mape_percent = best_scaled_mape_percent(ratios[key]);
    out.push_back(g);
  }
  std::stable_sort(out.begin(), out.end(), [](const ErrorGroup& a, const ErrorGroup& b) {
    return a.share_of_error_percent > b.share_of_error_percent;
  });
  return out;
}

namespace {

// Least squares for time = a M L + b M + c L + d through the normal equations; false when the
// runs cannot separate the four parts.
bool fit_parts(const std::vector<std::array<double, 3>>& runs, TimeParts& out) {
  constexpr int n = 4;
  double A[n][n + 1] = {};
  for (const auto& r : runs) {
    const double f[n] = {r[0] * r[1], r[0], r[1], 1.0};
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) A[i][j] += f[i] * f[j];
      A[i][n] += f[i] * r[2];
    }
  }
  double scale[n];  // each column's own size: a pivot far below it means collinear columns
  for (int i = 0; i < n; ++i) scale[i] = A[i][i];
  for (int i = 0; i < n; ++i) {
    int pivot = i;
    for (int r = i + 1; r < n; ++r)
      if (std::abs(A[r][i]) > std::abs(A[pivot][i])) pivot = r;
    for (int c = 0; c <= n; ++c) std::swap(A[i][c], A[pivot][c]);
    if (!(std::abs(A[i][i]) > 1e-9 * scale[i])) return false;
    for (int r = 0; r < n; ++r) {
      if (r == i) continue;
      const double k = A[r][i] / A[i][i];
      for (int c = i; c <= n; ++c) A[r][c] -= k * A[i][c];
    }
  }
  double x[n];
  for (int i = 0; i < n; ++i) x[i] = A[i][n] / A[i][i];
  out.per_layer_microbatch_ms = x[0];
  out.per_microbatch_ms = x[1];
  out.per_layer_ms = x[2];
  out.per_iteration_ms = x[3];
  out.max_residual_percent = 0;
  for (const auto& r : runs) {
    const double fitted = x[0] * r[0] * r[1] + x[1] * r[0] + x[2] * r[1] + x[3];
    out.max_residual_percent = std::max(out.max_residual_percent, 100.0 * std::abs(fitted - r[2]) / r[2]);
  }
  return true;
}

}  // namespace

std::vector<TimeDecomposition> decompose_times(const ValidationReport& report) {
  // Runs set up alike (the optional columns too) share a group.
  using Key = std::array<int, 22>;
  std::map<Key, std::vector<const ValidationRow*>> groups;
  for (const ValidationRow& row : report.rows) {
    const MeasuredRun& r = row.run;
    if (r.layer_time || r.pp != 1 || r.micro_batch <= 0 || r.dp <= 0) continue;
    const int recompute = r.has_recompute ? static_cast<int>(r.recompute) : -1;
    groups[{r.hidden, r.heads, r.seq_len, r.tp, r.dp, r.micro_batch, r.vocab, r.virtual_stages, recompute,
            r.sequence_parallel ? 1 : 0, static_cast<int>(r.inter_node_Gbps), r.tp_async_backward,
            r.has_precision ? static_cast<int>(r.precision) : -1, r.dp_overlap, r.grad_accumulation_fusion,
            r.zero_stage, r.launch_blocking ? 1 : 0, static_cast<int>(r.position), r.zero_all_reduce ? 1 : 0,
            r.tp_comm_overlap ? 1 : 0, r.p2p_overlap ? 1 : 0, r.fused_elementwise ? 1 : 0}]
        .push_back(&row);
  }
  std::vector<TimeDecomposition> out;
  for (const auto& [key, rows] : groups) {
    if (rows.size() < 6) continue;
    std::vector<std::array<double, 3>> measured, predicted;
    for (const ValidationRow* row : rows) {
      const MeasuredRun& r = row->run;
      const double micro_batches = static_cast<double>(r.global_batch) / (r.micro_batch * r.dp);
      measured.push_back({micro_batches, static_cast<double>(r.layers), r.measured_ms});
      predicted.push_back({micro_batches, static_cast<double>(r.layers), row->predicted_ms});
    }
    TimeDecomposition d;
    d.hidden = key[0], d.heads = key[1], d.seq_len = key[2], d.tp = key[3], d.dp = key[4], d.micro_batch = key[5];
    d.runs = static_cast<int>(rows.size());
    if (fit_parts(measured, d.measured) && fit_parts(predicted, d.predicted)) out.push_back(d);
  }
  return out;
}

namespace {

// Whether every kernel of `more` is at least its counterpart in `less`: the same kernels in the
// same order, each at least as large in every dimension that costs time.
bool kernels_at_least(const std::vector<detail::Kernel>& more, const std::vector<detail::Kernel>& less) {
  if (more.size() != less.size()) return false;
  for (size_t i = 0; i < more.size(); ++i) {
    const detail::Kernel &a = more[i], &b = less[i];
    if (a.kind != b.kind || a.part != b.part || a.collective != b.collective || a.beside_from != b.beside_from)
      return false;
    if (a.m < b.m || a.n < b.n || a.k < b.k || a.batch < b.batch || a.bytes < b.bytes ||
        a.comm_bytes < b.comm_bytes || a.work_flops < b.work_flops)
      return false;
  }
  return true;
}

struct RunWork {
  detail::LayerKernels kernels;
  ParameterCounts params;
};

bool work_at_least(const RunWork& more, const RunWork& less) {
  const detail::LayerKernels &a = more.kernels, &b = less.kernels;
  return more.params.total >= less.params.total && more.params.per_layer >= less.params.per_layer &&
         kernels_at_least(a.layer_fwd, b.layer_fwd) && kernels_at_least(a.layer_bwd, b.layer_bwd) &&
         kernels_at_least(a.layer_recompute, b.layer_recompute) && kernels_at_least(a.embed_fwd, b.embed_fwd) &&
         kernels_at_least(a.embed_bwd, b.embed_bwd) && kernels_at_least(a.head_fwd, b.head_fwd) &&
         kernels_at_least(a.head_bwd, b.head_bwd);
}

}  // namespace

ContradictionReport find_contradictions(const ValidationReport& report, const ValidationSetup& setup) {
  // Runs alike: the same plan and settings, so that only the model's shape and the micro-batch differ.
  using Key = std::array<long long, 21>;
  std::map<Key, std::vector<size_t>> alike;
  std::vector<RunWork> work(report.rows.size());
  for (size_t i = 0; i < report.rows.size(); ++i) {
    const MeasuredRun& r = report.rows[i].run;
    if (r.layer_time) continue;  // iteration times only
    const SimConfig c = config_for_run(r, setup);
    const PlanConfig& p = c.plan;
    work[i].kernels = detail::build_kernels(c.model, p);
    work[i].params = count_parameters(c.model);
    alike[{p.tp, p.pp, p.dp, c.model.layers, micro_batches_per_iteration(p), p.virtual_stages,
           static_cast<long long>(p.recompute), p.sequence_parallel ? 1 : 0, static_cast<long long>(p.precision),
           p.tp_async_backward ? 1 : 0, static_cast<long long>(c.cluster.inter_node_Gbps * 1000),
           c.cluster.gpus_per_node, p.dp_overlap ? 1 : 0, p.grad_accumulation_fusion ? 1 : 0, p.zero_stage,
           p.launch_blocking ? 1 : 0, static_cast<long long>(c.model.position), p.zero_all_reduce ? 1 : 0,
           p.tp_comm_overlap ? 1 : 0, p.p2p_overlap ? 1 : 0, p.fused_elementwise ? 1 : 0}]
        .push_back(i);
  }
  struct Found {
    double shortfall_percent;
    size_t less, more;
  };
  std::vector<Found> found;
  ContradictionReport out;
  for (const auto& [key, rows] : alike) {
    if (rows.size() < 2) continue;
    out.runs_compared += static_cast<int>(rows.size());
    for (size_t less : rows) {
      for (size_t more : rows) {
        const double a = report.rows[less].run.measured_ms, b = report.rows[more].run.measured_ms;
        if (less == more || !(b < a) || !work_at_least(work[more], work[less])) continue;
        found.push_back({(a - b) / a * 100.0, less, more});
      }
    }
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const Found& x, const Found& y) { return x.shortfall_percent > y.shortfall_percent; });
  // For measured a > b (less work, more work) and predictions p_a <= p_b, the two absolute relative
  // errors sum to at least (a - b) / a; pairs that share no run add up.
  std::vector<char> in_pair(report.rows.size(), 0), used(report.rows.size(), 0);
  double floor_sum = 0;
  for (const Found& f : found) {
    Contradiction c;
    c.less_work_line = report.rows[f.less].run.line;
    c.more_work_line = report.rows[f.more].run.line;
    c.less_work_ms = report.rows[f.less].run.measured_ms;
    c.more_work_ms = report.rows[f.more].run.measured_ms;
    c.shortfall_percent = f.shortfall_percent;
    out.pairs.push_back(c);
    if (report.rows[f.more].predicted_ms >= report.rows[f.less].predicted_ms) ++out.predicted_in_order;
    in_pair[f.less] = in_pair[f.more] = 1;
    if (used[f.less] || used[f.more]) continue;
    used[f.less] = used[f.more] = 1;
    floor_sum += f.shortfall_percent;
  }
  for (char c : in_pair) out.runs_in_pairs += c;
  out.mape_floor_percent = report.rows.empty() ? 0.0 : floor_sum / report.rows.size();
  return out;
}

double student_t_975(int dof) {
  constexpr double kPi = 3.14159265358979323846;
  if (dof <= 1) return std::tan(kPi * 0.475);                 // Cauchy: tan(pi (p - 1/2))
  if (dof == 2) return 0.95 * std::sqrt(2.0 / (4.0 * 0.975 * 0.025));  // (2p - 1) sqrt(2 / (4p(1 - p)))
  // Cornish-Fisher expansion of t about the normal quantile z in powers of 1/dof (Abramowitz and
  // Stegun 26.7.5).
  const double z = 1.959963984540054, v = dof;
  const double z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
  const double g1 = (z3 + z) / 4;
  const double g2 = (5 * z5 + 16 * z3 + 3 * z) / 96;
  const double g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384;
  const double g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160;
  return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

namespace {

// Least-squares slope of error against log2(GPUs) with one intercept for each group of `group`
// (all zero: one intercept for all runs).
ScaleSlope fit_slope(const std::vector<ScalePoint>& points, const std::vector<int>& group, int groups) {
  ScaleSlope out;
  std::vector<double> n(groups, 0), mx(groups, 0), my(groups, 0);
  for (size_t i = 0; i < points.size(); ++i) {
    n[group[i]] += 1;
    mx[group[i]] += std::log2(static_cast<double>(points[i].gpus));
    my[group[i]] += points[i].error_percent;
  }
  for (int g = 0; g < groups; ++g) mx[g] /= n[g], my[g] /= n[g];
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    const double dx = std::log2(static_cast<double>(points[i].gpus)) - mx[group[i]];
    sxx += dx * dx;
    sxy += dx * (points[i].error_percent - my[group[i]]);
  }
  out.degrees_of_freedom = static_cast<int>(points.size()) - groups - 1;
  if (sxx <= 1e-12 || out.degrees_of_freedom < 1) return out;
  out.points_per_doubling = sxy / sxx;
  double residual = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    const double dx = std::log2(static_cast<double>(points[i].gpus)) - mx[group[i]];
    const double r = points[i].error_percent - my[group[i]] - out.points_per_doubling * dx;
    residual += r * r;
  }
  out.stderr_points = std::sqrt(residual / out.degrees_of_freedom / sxx);
  out.ci95_points = student_t_975(out.degrees_of_freedom) * out.stderr_points;
  out.defined = true;
  return out;
}

}  // namespace

Outcome<ScaleTrend> fit_scale_trend(const std::vector<ScalePoint>& points) {
  Diagnostics errors;
  for (size_t i = 0; i < points.size(); ++i) {
    const std::string at = "/" + std::to_string(i);
    if (points[i].gpus < 1) errors.push_back(make_diagnostic("range", at + "/gpus", "must be at least 1"));
    if (!std::isfinite(points[i].error_percent))
      errors.push_back(make_diagnostic("range", at + "/error_percent", "must be a finite number"));
  }
  if (!errors.empty()) return errors;
  ScaleTrend t;
  t.runs = static_cast<int>(points.size());
  std::map<std::string, int> ids;
  std::vector<int> by_set, none(points.size(), 0);
  for (const ScalePoint& p : points) by_set.push_back(ids.emplace(p.set, static_cast<int>(ids.size())).first->second);
  t.sets = static_cast<int>(ids.size());
  if (points.empty()) return t;
  t.pooled = fit_slope(points, none, 1);
  t.within_sets = fit_slope(points, by_set, t.sets);
  // Pearson's r over all runs.
  double sx = 0, sy = 0;
  for (const ScalePoint& p : points) sx += std::log2(static_cast<double>(p.gpus)), sy += p.error_percent;
  const double mx = sx / t.runs, my = sy / t.runs;
  double sxx = 0, syy = 0, sxy = 0;
  for (const ScalePoint& p : points) {
    const double dx = std::log2(static_cast<double>(p.gpus)) - mx, dy = p.error_percent - my;
    sxx += dx * dx, syy += dy * dy, sxy += dx * dy;
  }
  t.correlation = sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0;
  return t;
}

}  // namespace vtrain
