// vtrain profile-shapes: the shapes vtrain-profile (tools/vtrain-profile) measures, as JSON; and
// vtrain calibrate --from-profile: its measurements turned into a profile by the core
// (vtrain/measured.hpp). This file reads files and prints; the logic is the core's.

#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "vtrain/json_text.hpp"
#include "vtrain/measured.hpp"
#include "vtrain/profile.hpp"

namespace vtrain::cli {

using nlohmann::json;

namespace {

// A bundled profile's name, or a profile file.
bool load_profile_argument(const char* option, const std::string& arg, Profile& out) {
  if (const Profile* p = bundled_profiles().find(arg)) {
    out = *p;
    return true;
  }
  std::string text;
  if (!read_file(arg, text)) {
    std::fprintf(stderr, "error: --%s: \"%s\" is neither a bundled profile (%s) nor a readable file\n", option,
                 arg.c_str(), bundled_profiles().names_text().c_str());
    return false;
  }
  json j;
  const Diagnostics syntax = parse_json_text(text, j);
  for (const auto& d : syntax) std::fprintf(stderr, "error: --%s: %s: %s\n", option, arg.c_str(), d.message.c_str());
  if (!syntax.empty()) return false;
  auto parsed = parse_profile(j);
  if (!parsed.ok()) {
    std::fprintf(stderr, "error: --%s: %s is not a valid profile:\n", option, arg.c_str());
    print_errors(parsed.errors());
    return false;
  }
  out = parsed.value();
  return true;
}

}  // namespace

int run_profile_shapes(const Args& args) {
  std::vector<ShapeCase> cases;
  for (const std::string& arg : args.positional) {
    json j;
    if (!load_json_argument(arg, j)) return 2;
    use_config_of_result(j, arg);
    auto c = parse_sim_config(j);
    if (!c.ok()) {
      std::fprintf(stderr, "error: %s:\n", arg.c_str());
      print_errors(c.errors());
      return 1;
    }
    cases.push_back({c.value().model, c.value().plan});
  }
  if (cases.empty()) cases = default_shape_cases();
  json shapes = profile_shapes(cases);
  if (args.has("synthesize")) {
    Profile from;
    if (!load_profile_argument("synthesize", args.get("synthesize"), from)) return 2;
    double noise = 0.02;
    int seed = 1;
    if (!number_option(args, "noise", noise) || !whole_option(args, "seed", 0, 1000000000, seed)) return 2;
    if (noise < 0 || noise >= 1) {
      std::fprintf(stderr, "error: --noise: must be at least 0 and below 1, got %g\n", noise);
      return 2;
    }
    std::vector<int> gpus;
    std::stringstream list(args.get("gpus", "2,4,8"));
    for (std::string item; std::getline(list, item, ',');) {
      char* end = nullptr;
      const long g = std::strtol(item.c_str(), &end, 10);
      if (item.empty() || *end != '\0' || g < 2 || g > 4096) {
        std::fprintf(stderr, "error: --gpus: a comma-separated list of group sizes from 2 to 4096, got \"%s\"\n",
                     args.get("gpus").c_str());
        return 2;
      }
      gpus.push_back(static_cast<int>(g));
    }
    shapes = synthesize_measurements(from, shapes, noise, static_cast<unsigned>(seed), gpus);
  }
  std::printf("%s\n", shapes.dump(1).c_str());
  return 0;
}

int run_calibrate_measured(const Args& args) {
  const std::string path = args.get("from-profile");
  std::string text;
  if (!read_file(path, text)) {
    std::fprintf(stderr, "error: --from-profile: cannot read %s\n", path.c_str());
    return 2;
  }
  json meas;
  const Diagnostics syntax = parse_json_text(text, meas);
  for (const auto& d : syntax) std::fprintf(stderr, "error: %s: %s\n", path.c_str(), d.message.c_str());
  if (!syntax.empty()) return 2;
  if (!args.has("base")) {
    std::fprintf(stderr, "error: --from-profile needs --base PROFILE (a bundled name or a file): the GPU's "
                         "datasheet figures and the parameters the measurements do not determine\n");
    return 2;
  }
  Profile base;
  if (!load_profile_argument("base", args.get("base"), base)) return 2;
  auto report = profile_from_measurements(meas, base, args.get("name"));
  if (!report.ok()) {
    std::fprintf(stderr, "error: %s:\n", path.c_str());
    print_errors(report.errors());
    return 1;
  }
  const MeasuredProfileReport& r = report.value();
  const Profile& p = r.profile;
  const json out = to_json(p);
  // The report goes to stderr when the profile goes to stdout.
  FILE* say = args.has("out") ? stdout : stderr;
  std::fprintf(say, "%s profile %s from %s (base %s)%s\n", r.synthetic ? "synthetic" : "measured", p.name.c_str(),
               path.c_str(), base.name.c_str(), r.synthetic ? ": SYNTHETIC measurements, not of a GPU" : "");
  for (const MeasuredFitPart& part : r.parts)
    std::fprintf(say, "  %-44s %5d points: error mean %5.2f%%, max %5.1f%%\n", part.what.c_str(), part.points,
                 part.mean_error_percent, part.max_error_percent);
  std::fprintf(say, "  gemm_max_efficiency %.4g, gemm_k_half %.4g, tiles", p.gemm_max_efficiency, p.gemm_k_half);
  for (const GemmTile& t : p.gemm_tiles) std::fprintf(say, " %dx%d:%.3g", t.m, t.n, t.efficiency);
  std::fprintf(say, "\n  memory_efficiency %.4g, kernel_overhead_us %.3g, attention_fwd/bwd_efficiency %.4g/%.4g, "
                    "optimizer_bytes_per_param %.4g\n",
               p.memory_efficiency, p.kernel_overhead_us, p.attention_fwd_efficiency, p.attention_bwd_efficiency,
               p.optimizer_bytes_per_param);
  for (const IntraNodeCollective& c : p.intra_node)
    std::fprintf(say, "  all-reduce %d GPUs: floor %.1f us, latency %.1f us, busbw %.1f GB/s\n", c.gpus, c.min_time_us,
                 c.latency_us, c.busbw_GBps);
  std::fprintf(say, "  p2p_latency_us %.3g, p2p_intra_efficiency %.3g; operator_table: %zu entries\n",
               p.p2p_latency_us, p.p2p_intra_efficiency, p.operator_table.size());
  for (const std::string& n : r.notes) std::fprintf(say, "  note: %s\n", n.c_str());
  if (args.has("out")) {
    std::ofstream f(args.get("out"));
    f << out.dump(2) << "\n";
    if (!f) {
      std::fprintf(stderr, "error: --out: cannot write %s\n", args.get("out").c_str());
      return 2;
    }
    std::printf("wrote %s\n", args.get("out").c_str());
  } else {
    std::printf("%s\n", out.dump(2).c_str());
  }
  return 0;
}

}  // namespace vtrain::cli
