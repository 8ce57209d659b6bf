// vtrain command line: simulate, bench, presets, profiles, schema; the other commands in *_cmd.cpp.

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>
#include <vector>

#include "cli.hpp"
#include "vtrain/api.hpp"
#include "vtrain/config.hpp"
#include "vtrain/examples.hpp"
#include "vtrain/hf_import.hpp"
#include "vtrain/json_text.hpp"
#include "vtrain/profile.hpp"
#include "vtrain/schema.hpp"
#include "vtrain/simulate.hpp"

namespace vtrain::cli {

using nlohmann::json;

bool Args::has(const std::string& name) const {
  for (const auto& [k, v] : options)
    if (k == name) return true;
  return false;
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  for (const auto& [k, v] : options)
    if (k == name) return v;
  return fallback;
}

bool number_option(const Args& args, const char* name, double& out, bool positive) {
  if (!args.has(name)) return true;
  const std::string v = args.get(name);
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !std::isfinite(x) || (positive && !(x > 0))) {
    std::fprintf(stderr, "error: --%s: must be a %snumber, got \"%s\"\n", name, positive ? "positive " : "",
                 v.c_str());
    return false;
  }
  out = x;
  return true;
}

bool whole_option(const Args& args, const char* name, long long lo, long long hi, int& out) {
  if (!args.has(name)) return true;
  const std::string v = args.get(name);
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno == ERANGE || n < lo || n > hi) {
    std::fprintf(stderr, "error: --%s: must be a whole number from %lld to %lld, got \"%s\"\n", name, lo, hi,
                 v.c_str());
    return false;
  }
  out = static_cast<int>(n);
  return true;
}

bool threads_option(const Args& args, int& out) {
  out = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return whole_option(args, "threads", 1, 1024, out);
}

bool load_config_text(const std::string& arg, std::string& text, std::string& error, bool examples) {
  std::error_code ec;
  if (std::filesystem::is_directory(arg, ec)) {
    error = "cannot read \"" + arg + "\": it is a folder, not a JSON file";
    return false;
  }
  if (read_file(arg, text)) return true;
  if (!examples) {
    error = "cannot read \"" + arg + "\": no such file";
    return false;
  }
  if (const ExampleConfig* e = example_configs().find(arg)) {
    text = e->json_text;
    return true;
  }
  error = "cannot read \"" + arg + "\": not a file and not a bundled example (" + example_configs().names_text() + ")";
  return false;
}

bool load_json_argument(const std::string& arg, json& out, bool examples) {
  std::string text, error;
  if (!load_config_text(arg, text, error, examples)) {
    print_errors({Diagnostic{"file", "", error}});
    return false;
  }
  Diagnostics errors = parse_json_text(text, out);
  for (auto& d : errors) d.message = arg + ": " + d.message;
  print_errors(errors);
  return errors.empty();
}

std::string use_config_of_result(json& j, const std::string& arg) {
  if (!j.is_object() || j.contains("model") || j.contains("plan") || j.contains("case")) return "";
  const char* pointer = nullptr;
  json config;
  if (j.contains("config") && j["config"].is_object()) {
    pointer = "/config";
    config = j["config"];
  } else if (j.contains("result") && j["result"].is_object() && j["result"].contains("config") &&
             j["result"]["config"].is_object()) {
    pointer = "/result/config";
    config = j["result"]["config"];
  }
  if (!pointer) return "";
  std::fprintf(stderr, "note: %s is a result, not a config: using the config it holds (%s)\n", arg.c_str(),
               pointer);
  j = std::move(config);
  return pointer;
}

void prefix_pointers(Diagnostics& errors, const std::string& prefix) {
  if (prefix.empty()) return;
  for (Diagnostic& d : errors) {
    if (d.pointer.empty() || d.pointer[0] != '/') continue;
    // The message starts with its own pointer, whatever key that is, and may name fields of the
    // config's sections ("must equal /plan/tp x ..."): each moves with the config.
    std::string out;
    size_t i = 0;
    if (d.message.rfind(d.pointer, 0) == 0) {
      out = prefix + d.pointer;
      i = d.pointer.size();
    }
    d.pointer = prefix + d.pointer;
    for (; i < d.message.size(); ++i) {
      const bool starts = d.message[i] == '/' && (i == 0 || d.message[i - 1] == ' ' || d.message[i - 1] == '(');
      if (starts)
        for (const char* section : {"/model", "/cluster", "/plan", "/training", "/output"})
          if (d.message.compare(i, std::strlen(section), section) == 0) {
            out += prefix;
            break;
          }
      out += d.message[i];
    }
    d.message = std::move(out);
  }
}

namespace {
bool errors_as_json = false;  // --json: errors also go to stdout as the API's {"ok": false, "errors"}
}  // namespace

void set_errors_as_json(bool on) { errors_as_json = on; }

void print_errors(const Diagnostics& errors) {
  for (const auto& d : errors) std::fprintf(stderr, "error: %s [%s]\n", d.message.c_str(), d.code.c_str());
  if (!errors_as_json || errors.empty()) return;
  std::printf("%s\n", errors_reply(errors).c_str());
}

namespace {

const char* kUsage =
    "usage: vtrain <command> [options]      (vtrain <command> --help: this text)\n"
    "\n"
    "commands:\n"
    "  simulate CONFIG [--json] [--profile FILE] [--no-timeline] [--operators] [--hf CONFIG.json]\n"
    "                         predict one training iteration (CONFIG: a JSON file or an example name;\n"
    "                         --hf: the model from a Hugging Face config.json in place of CONFIG's)\n"
    "  import-hf CONFIG.json [--json]\n"
    "                         a Hugging Face config.json as the model section of a config (docs/hugging-face.md)\n"
    "  bench [--json] [--threads N]\n"
    "                         time the simulator and the explorer against their floors\n"
    "  validate FILE.csv... [--json] [--summary] [--by COL,...] [--decompose] [--contradictions] [--scale N]\n"
    "           [SETUP]\n"
    "                         simulate measured runs and report the error of each\n"
    "                         (--by tp,micro_batch: the error of each group of runs;\n"
    "                          --decompose: per layer, micro-batch and step, measured and predicted;\n"
    "                          --contradictions: runs with more work measured faster than alike runs;\n"
    "                          --scale 1000: error against GPU count of the runs on 1000 GPUs or more)\n"
    "  calibrate [--cv K] [--dry-run] [--shared DIR] [--out-dir DIR] [--max-evals N] [--starts N]\n"
    "            [--only SET] [--threads N] [--gpu-speed-spread X] [SETUP]\n"
    "                         fit the A100 profiles to the measurements in --shared (../shared) and write\n"
    "                         them to --out-dir (profiles), both relative to where it runs; with --gpu NAME\n"
    "                         (not an A100): fit that GPU's profile (or --profile FILE) to its published\n"
    "                         runs in profiles/published, and predict those marked held out as checks\n"
    "  calibrate --from-profile MEASUREMENTS.json --base PROFILE [--name NAME] [--out FILE]\n"
    "                         a profile from vtrain-profile's measurements of a GPU (docs/profiler.md)\n"
    "  profile-shapes [CONFIG...] [--synthesize PROFILE [--noise X] [--seed N] [--gpus 2,4,8]]\n"
    "                         the shapes vtrain-profile measures (JSON); --synthesize: a profile's model\n"
    "                         times for them with noise, labelled synthetic\n"
    "  optimal REQUEST.json | --preset NAME [--json] [--time] [--threads N]\n"
    "                         the model size a budget really buys, beside the FLOP-only answer\n"
    "  explore CONFIG | --case mt-nlg [--json] [--price USD] [--gpus N] [--objective time|cost|deadline|balanced|expected_time]\n"
    "          [--deadline-days N] [--simulate-unfit] [--threads N] [--top N]\n"
    "                         every valid parallel plan, its time and cost, and the Pareto frontier\n"
    "  schedule REQUEST.json | --case vtrain-case2 [--jobs N] [--json] [--curves] [--time] [--threads N]\n"
    "                         many training jobs on one cluster under each scheduling policy\n"
    "                         (--curves: each job shape's iteration time by GPU count instead)\n"
    "  schedule --map-trace TRACE.csv [--mapping RULE.json] [--gpus N]\n"
    "                         an ITP trace (ElasticFlow's CSV) as LLM jobs, printed as a workload file\n"
    "  presets [--json]       list model presets and example configs\n"
    "  profiles [--json]      list bundled GPU profiles\n"
    "  schema                 every enum's choices, field bounds and defaults, registries and limits (JSON)\n"
    "  help                   this text\n"
    "\n"
    "SETUP, how the measured runs were set up: [--gpu NAME] [--profile FILE] [--gpus-per-node N]\n"
    "  [--intra-node-GBps X] [--inter-node-Gbps X] [--vocab N] [--attention unfused|flash]\n";

// Options that take no value.
const char* const kFlags[] = {"json", "no-timeline", "operators", "summary", "dry-run", "simulate-unfit", "time", "decompose", "contradictions", "curves", "help"};

bool is_flag(const std::string& name) {
  for (const char* f : kFlags)
    if (name == f) return true;
  return false;
}

struct CommandSpec {
  const char* name;
  int max_positional;                  // arguments that are not options (count)
  std::vector<std::string> options;    // accepted option names, without "--"
};

const std::vector<std::string> kSetupOptions = {"gpu", "profile", "gpus-per-node", "intra-node-GBps",
                                                "inter-node-Gbps", "vocab", "attention"};

std::vector<std::string> with_setup(std::vector<std::string> own) {
  own.insert(own.end(), kSetupOptions.begin(), kSetupOptions.end());
  return own;
}

const std::vector<CommandSpec>& command_specs() {
  static const std::vector<CommandSpec> specs = {
      {"simulate", 1, {"json", "profile", "no-timeline", "operators", "hf"}},
      {"import-hf", 1, {"json"}},
      {"bench", 0, {"json", "threads"}},
      {"validate", 1000, with_setup({"json", "summary", "by", "decompose", "contradictions", "scale"})},
      {"calibrate", 0, with_setup({"cv", "dry-run", "shared", "out-dir", "max-evals", "starts", "only", "threads",
                                   "gpu-speed-spread",
                                   "from-profile", "base", "name", "out"})},
      {"profile-shapes", 1000, {"synthesize", "noise", "seed", "gpus"}},
      {"optimal", 1, {"preset", "json", "time", "threads"}},
      {"explore", 1,
       {"case", "json", "price", "gpus", "objective", "deadline-days", "simulate-unfit", "threads", "top"}},
      {"schedule", 1, {"case", "jobs", "json", "curves", "time", "threads", "map-trace", "mapping", "gpus"}},
      {"presets", 0, {"json"}},
      {"profiles", 0, {"json"}},
      {"schema", 0, {"json"}},
  };
  return specs;
}

// Rejects what a command does not take, rather than ignoring it: a mistyped option would
// otherwise run with a default the user did not ask for.
bool check_arguments(const CommandSpec& spec, const Args& args) {
  for (const auto& [name, value] : args.options) {
    bool known = false;
    for (const auto& o : spec.options) known = known || o == name;
    if (!known) {
      std::string list;
      for (const auto& o : spec.options) list += (list.empty() ? "--" : ", --") + o;
      std::fprintf(stderr, "error: --%s: not an option of %s (it takes %s)\n", name.c_str(), spec.name,
                   list.empty() ? "none" : list.c_str());
      return false;
    }
    if (is_flag(name) && !value.empty()) {
      std::fprintf(stderr, "error: --%s: takes no value, got \"%s\"\n", name.c_str(), value.c_str());
      return false;
    }
    if (!is_flag(name) && value.empty()) {
      std::fprintf(stderr, "error: --%s: needs a value\n", name.c_str());
      return false;
    }
  }
  if (static_cast<int>(args.positional.size()) > spec.max_positional) {
    std::fprintf(stderr, "error: %s: unexpected argument \"%s\"\n", spec.name,
                 args.positional[spec.max_positional].c_str());
    return false;
  }
  return true;
}

Args parse_args(int argc, char** argv, int first) {
  Args a;
  for (int i = first; i < argc; ++i) {
    std::string s = argv[i];
    if (s.rfind("--", 0) == 0) {
      std::string name = s.substr(2), value;
      const auto eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      } else if (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0 && !is_flag(name)) {
        value = argv[++i];
      }
      a.options.emplace_back(name, value);
    } else {
      a.positional.push_back(s);
    }
  }
  return a;
}

// A Hugging Face config.json (a file, or its text when the argument starts with "{") read into a
// model section; its warnings go to stderr, each naming the file. False, errors printed, when it
// cannot be read or imported.
bool import_hf_argument(const std::string& arg, json& model) {
  std::string text;
  const bool inline_text = arg.find_first_not_of(" \t\r\n") != std::string::npos &&
                           arg[arg.find_first_not_of(" \t\r\n")] == '{';
  if (inline_text) {
    text = arg;
  } else {
    std::string error;
    if (!load_config_text(arg, text, error, false)) {
      print_errors({Diagnostic{"file", "", error}});
      return false;
    }
  }
  const std::string label = inline_text ? "--hf" : arg;
  const json reply = json::parse(api::import_hf(text));
  if (!reply["ok"].get<bool>()) {
    Diagnostics errors;
    for (const auto& e : reply["errors"])
      errors.push_back({e["code"].get<std::string>(), e["pointer"].get<std::string>(),
                        label + ": " + e["message"].get<std::string>()});
    print_errors(errors);
    return false;
  }
  for (const auto& w : reply["result"]["warnings"])
    std::fprintf(stderr, "warning: %s: %s [%s]\n", label.c_str(), w["message"].get<std::string>().c_str(),
                 w["code"].get<std::string>().c_str());
  model = reply["result"]["model"];
  return true;
}

// vtrain import-hf CONFIG.json: the model section (warnings on stderr); --json: the API's reply.
int cmd_import_hf(const Args& args) {
  if (args.positional.empty()) {
    std::fprintf(stderr, "error: import-hf needs a Hugging Face config.json\n%s", kUsage);
    return 2;
  }
  if (args.has("json")) {
    std::string text, error;
    if (!load_config_text(args.positional[0], text, error, false)) {
      print_errors({Diagnostic{"file", "", error}});
      return 2;
    }
    const std::string reply = api::import_hf(text);
    std::printf("%s\n", dump_json(json::parse(reply), 2).c_str());
    return json::parse(reply)["ok"].get<bool>() ? 0 : 1;
  }
  json model;
  if (!import_hf_argument(args.positional[0], model)) return 1;
  // In the order of a config's model section (docs/config.md), not alphabetically.
  nlohmann::ordered_json ordered;
  for (const char* k : {"name", "layers", "hidden", "heads", "kv_heads", "head_dim", "seq_len", "vocab", "ffn_hidden",
                        "mlp", "tied_embeddings", "norm", "position", "bias", "moe", "mla"})
    if (model.contains(k)) ordered[k] = model[k];
  for (auto it = model.begin(); it != model.end(); ++it)
    if (!ordered.contains(it.key())) ordered[it.key()] = it.value();
  std::printf("%s\n", ordered.dump(2, ' ', false, json::error_handler_t::replace).c_str());
  return 0;
}

int cmd_simulate(const Args& args) {
  if (args.positional.empty()) {
    std::fprintf(stderr, "error: simulate needs a CONFIG (JSON file or example name)\n%s", kUsage);
    return 2;
  }
  json j;
  if (!load_json_argument(args.positional[0], j)) return 2;
  const std::string within = use_config_of_result(j, args.positional[0]);
  if (args.has("hf")) {
    json model;
    if (!import_hf_argument(args.get("hf"), model)) return 1;
    if (!j.is_object()) {
      print_errors({make_diagnostic("type", "", "the config must be a JSON object")});
      return 1;
    }
    std::fprintf(stderr, "note: the model of --hf %s replaces the config's\n",
                 args.get("hf").find('{') == 0 ? "(text)" : args.get("hf").c_str());
    j["model"] = std::move(model);
  }
  auto config = parse_sim_config(j);
  if (!config.ok()) {
    Diagnostics errors = config.errors();
    prefix_pointers(errors, within);
    print_errors(errors);
    return 1;
  }
  SimConfig c = config.value();
  if (args.has("no-timeline")) c.output.timeline = false;
  if (args.has("operators")) c.output.operators = true;
  Profile custom;
  bool has_custom = false;
  if (!load_profile_option(args, custom, has_custom)) return 2;
  const Profile* profile = has_custom ? &custom : nullptr;
  if (has_custom && c.cluster.gpu != custom.name) {
    // The profile replaces the config's GPU, so the output names the profile's.
    std::fprintf(stderr, "note: --profile %s (%s) replaces the config's GPU %s\n", args.get("profile").c_str(),
                 custom.name.c_str(), c.cluster.gpu.c_str());
    c.cluster.gpu = custom.name;
  }
  auto result = simulate(c, profile);
  if (!result.ok()) {
    Diagnostics errors = result.errors();
    prefix_pointers(errors, within);
    print_errors(errors);
    return 1;
  }
  if (args.has("json")) {
    std::printf("%s\n", dump_json(to_json(result.value()), 2).c_str());
  } else {
    std::printf("%s", summary(result.value()).c_str());
  }
  return 0;
}

int cmd_presets(const Args& args) {
  if (args.has("json")) {
    json j = json::parse(api::presets());
    std::printf("%s\n", dump_json(j["result"], 2).c_str());
    return 0;
  }
  std::printf("model presets:\n");
  for (const auto& p : model_presets()) {
    std::printf("  %-15s %-38s %s parameters\n", p.model.name.c_str(), p.description.c_str(),
                format_number(p.published_params).c_str());
  }
  std::printf("\nexample configs (vtrain simulate NAME):\n");
  for (const auto& e : example_configs()) std::printf("  %-15s %s\n", e.name.c_str(), e.description.c_str());
  return 0;
}

int cmd_profiles(const Args& args) {
  if (args.has("json")) {
    json j = json::parse(api::profiles());
    std::printf("%s\n", dump_json(j["result"], 2).c_str());
    return 0;
  }
  for (const auto& p : bundled_profiles()) {
    std::printf("  %-16s %s: %.0f TFLOP/s fp16, %.0f GiB at %.0f GB/s, %d SMs\n", p.name.c_str(),
                p.display_name.c_str(), p.peak_fp16_tflops, p.hbm_GiB, p.hbm_GBps, p.sm_count);
  }
  return 0;
}

// The schema is JSON whether or not --json is given: it is for programs.
int cmd_schema() {
  std::printf("%s\n", schema().dump(2).c_str());
  return 0;
}

}  // namespace
}  // namespace vtrain::cli

int main(int argc, char** argv) {
  using namespace vtrain::cli;
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string cmd = argv[1];
  const Args args = parse_args(argc, argv, 2);
  if (args.has("help") || (!args.positional.empty() && args.positional[0] == "-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  for (const auto& spec : command_specs())
    if (cmd == spec.name && !check_arguments(spec, args)) return 2;
  set_errors_as_json(args.has("json"));
  if (cmd == "simulate") return cmd_simulate(args);
  if (cmd == "import-hf") return cmd_import_hf(args);
  if (cmd == "bench") return run_bench(args);
  if (cmd == "validate") return run_validate(args);
  if (cmd == "calibrate" && (args.has("from-profile") || args.has("base"))) return run_calibrate_measured(args);
  if (cmd == "calibrate") return run_calibrate(args);
  if (cmd == "profile-shapes") return run_profile_shapes(args);
  if (cmd == "optimal") return run_optimal(args);
  if (cmd == "explore") return run_explore(args);
  if (cmd == "schedule") return run_schedule(args);
  if (cmd == "presets") return cmd_presets(args);
  if (cmd == "profiles") return cmd_profiles(args);
  if (cmd == "schema") return cmd_schema();
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::fprintf(stderr, "error: unknown command \"%s\"\n%s", cmd.c_str(), kUsage);
  return 2;
}
