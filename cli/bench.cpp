// vtrain bench: wall time of single-plan simulations (the explorer's inner loop).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "vtrain/config.hpp"
#include "vtrain/examples.hpp"
#include "vtrain/simulate.hpp"

namespace vtrain::cli {

using nlohmann::json;

namespace {

struct BenchCase {
  const char* name;
  const char* example;
};

// Median wall time of one simulate() call without timeline, in seconds.
double time_plan(const SimConfig& c, int& runs) {
  std::vector<double> samples;
  const auto budget = std::chrono::milliseconds(400);
  const auto begin = std::chrono::steady_clock::now();
  while (samples.size() < 5 || (std::chrono::steady_clock::now() - begin < budget && samples.size() < 2000)) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = simulate(c);
    const auto t1 = std::chrono::steady_clock::now();
    if (!r.ok()) return -1;
    samples.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  runs = static_cast<int>(samples.size());
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

int run_bench(const Args& args) {
  const BenchCase cases[] = {{"mt-nlg-530b (8,12,35) gbs 1920 mbs 1", "mt-nlg-530b"},
                             {"gpt3-175b (8,16,8) gbs 1536 mbs 1", "gpt3-175b"}};
  json rows = json::array();
  const double floor_s = 1e-3;
  bool all_ok = true;
  for (const auto& bc : cases) {
    const ExampleConfig* e = find_example(bc.example);
    if (!e) return 1;
    auto parsed = parse_sim_config(json::parse(e->json_text));
    if (!parsed.ok()) {
      print_errors(parsed.errors());
      return 1;
    }
    SimConfig c = parsed.value();
    c.output.timeline = false;
    int runs = 0;
    const double t = time_plan(c, runs);
    if (t < 0) return 1;
    const bool ok = t <= floor_s;
    all_ok = all_ok && ok;
    rows.push_back({{"case", bc.name}, {"seconds_per_plan", t}, {"runs", runs}, {"floor_s", floor_s}, {"meets_floor", ok}});
    if (!args.has("json"))
      std::printf("%-40s %9.1f us per plan (median of %d)  floor %.0f us: %s\n", bc.name, t * 1e6, runs,
                  floor_s * 1e6, ok ? "ok" : "MISSED");
  }
  if (args.has("json")) std::printf("%s\n", json{{"simulate", rows}}.dump(2).c_str());
  return all_ok ? 0 : 1;
}

}  // namespace vtrain::cli
