// The embedding and the head counted as layers of the pipeline split (plan.embedding_as_layer,
// plan.head_as_layer: Megatron-Core's account_for_embedding/loss_in_pipeline_split, DeepSpeed's
// 'type:transformer|embedding' partition): where the layers go, with and without interleaving,
// that the listed split of the same layers simulates alike, and the errors. Also the published
// runs a GPU calibration must not fit ("held out").

#include <doctest/doctest.h>

#include <numeric>

#include "iteration/memory.hpp"
#include "test_util.hpp"
#include "vtrain/api.hpp"
#include "vtrain/gpu_calibration.hpp"
#include "vtrain/validation.hpp"

using namespace vtrain;
using nlohmann::json;

namespace {

bool names(const Diagnostics& e, const std::string& pointer, const std::string& code, const std::string& text) {
  for (const auto& d : e)
    if (d.pointer == pointer && d.code == code && d.message.find(text) != std::string::npos) return true;
  return false;
}

Diagnostics errors_of(const json& j) {
  auto c = parse_sim_config(j);
  REQUIRE_FALSE(c.ok());
  return c.errors();
}

// 22 layers on 4 stages of 2 GPUs: with both ends counted, 24 slots of 6.
json four_stages() {
  json j = test::small_config();
  j["model"]["layers"] = 22;
  test::set_parallelism(j, 2, 4, 1);
  j["plan"]["global_batch"] = 16;
  return j;
}

}  // namespace

TEST_CASE("pipeline split: BLOOM's partition, the embedding and the head each in a layer's place") {
  // BLOOM 176B: 70 layers over 12 stages counting both embeddings (bigscience tr11-176B-ml
  // README): stage 0 the embedding and 5 blocks, stages 1 to 10 six, stage 11 five and the head.
  json j = test::small_config();
  j["model"]["layers"] = 70;
  test::set_parallelism(j, 1, 12, 1);
  j["plan"]["global_batch"] = 24;
  j["plan"]["embedding_as_layer"] = true;
  j["plan"]["head_as_layer"] = true;
  const SimConfig c = test::parse_ok(j);
  std::vector<int> layers;
  for (int s = 0; s < 12; ++s) layers.push_back(detail::stage_layers(c.model, c.plan, s));
  CHECK(layers == std::vector<int>{5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 5});
  int next = 0;
  for (int s = 0; s < 12; ++s) {
    CHECK(detail::chunk_first_layer(c.model, c.plan, s, 0) == next);
    next += layers[static_cast<size_t>(s)];
  }
  // Only the head counted: 71 slots, six on the first 11 stages (the first holding the embedding
  // beside its six layers), five on the last, one of them the head's.
  json head_only = j;
  head_only["plan"]["embedding_as_layer"] = false;
  const SimConfig h = test::parse_ok(head_only);
  CHECK(detail::stage_layers(h.model, h.plan, 0) == 6);
  CHECK(detail::stage_layers(h.model, h.plan, 11) == 4);
}

TEST_CASE("pipeline split: counting the ends simulates as listing the same layers") {
  json counted = four_stages();
  counted["plan"]["embedding_as_layer"] = true;
  counted["plan"]["head_as_layer"] = true;
  json listed = four_stages();
  listed["plan"]["stage_layers"] = {5, 6, 6, 5};
  const SimResult a = test::simulate_ok(test::parse_ok(counted));
  const SimResult b = test::simulate_ok(test::parse_ok(listed));
  CHECK(a.iteration_time_s == b.iteration_time_s);
  REQUIRE(a.stage_memory.size() == 4);
  for (size_t s = 0; s < 4; ++s) CHECK(a.stage_memory[s].total() == b.stage_memory[s].total());
  // The default split of 22 over 4 (6, 6, 5, 5) loads the first stage with the embedding too: the
  // counted one holds fewer layers there, and the plan chose it, so nothing is warned.
  const SimResult even = test::simulate_ok(test::parse_ok(four_stages()));
  CHECK(a.stage_memory[0].weights < even.stage_memory[0].weights);
  CHECK(test::warning(a, WarningCode::uneven_stages, "/plan/pp") == nullptr);
  CHECK(test::warning(even, WarningCode::uneven_stages, "/plan/pp") != nullptr);
}

TEST_CASE("pipeline split: with interleaving, the first chunk holds the embedding alone and the last the head") {
  // Llama 3 405B's layout (arXiv 2407.21783, section 3.3.2): 126 layers, 16 stages of 8 chunks,
  // one layer fewer on the first and the last stage, whose end chunks hold the embedding and the
  // head alone. Here 30 layers, 4 stages of 4 chunks: 32 slots of 2.
  json j = test::small_config();
  j["model"]["layers"] = 30;
  test::set_parallelism(j, 1, 4, 1);
  j["plan"]["virtual_stages"] = 4;
  j["plan"]["global_batch"] = 16;
  j["plan"]["embedding_as_layer"] = true;
  j["plan"]["head_as_layer"] = true;
  const SimConfig c = test::parse_ok(j);
  int total = 0, first = 0;
  for (int v = 0; v < 4; ++v)
    for (int s = 0; s < 4; ++s) {
      const int n = detail::chunk_layers(c.model, c.plan, s, v);
      const bool end = (v == 0 && s == 0) || (v == 3 && s == 3);
      CHECK(n == (end ? 1 : 2));
      CHECK(detail::chunk_first_layer(c.model, c.plan, s, v) == first);  // model chunks in layer order
      first += n;
      total += n;
    }
  CHECK(total == 30);
  CHECK(detail::stage_layers(c.model, c.plan, 0) == 7);
  CHECK(detail::stage_layers(c.model, c.plan, 1) == 8);
  CHECK(detail::stage_layers(c.model, c.plan, 3) == 7);
  const SimResult r = test::simulate_ok(c);
  CHECK(r.details.layers_per_stage == 8);
  CHECK_FALSE(r.details.even_stages);
  // One layer fewer at each end: never slower than the same interleaved plan with 32 layers.
  json more = j;
  more["model"]["layers"] = 32;
  more["plan"]["embedding_as_layer"] = false;
  more["plan"]["head_as_layer"] = false;
  CHECK(r.iteration_time_s < test::simulate_ok(test::parse_ok(more)).iteration_time_s);
}

TEST_CASE("pipeline split: the slots must split evenly over interleaved chunks, and a listed split excludes counting") {
  json j = test::small_config();
  j["model"]["layers"] = 30;
  test::set_parallelism(j, 1, 4, 1);
  j["plan"]["virtual_stages"] = 4;
  j["plan"]["global_batch"] = 16;
  j["plan"]["embedding_as_layer"] = true;  // 31 slots over 16 chunks
  CHECK(names(errors_of(j), "/plan/virtual_stages", "divisibility", "plus the embedding and head counted as layers (31)"));
  json listed = four_stages();
  listed["plan"]["stage_layers"] = {5, 6, 6, 5};
  listed["plan"]["head_as_layer"] = true;
  CHECK(names(errors_of(listed), "/plan/head_as_layer", "range", "must be false with /plan/stage_layers"));
  // At pp 1 there is no split: said, and nothing changes.
  json one = test::small_config();
  test::set_parallelism(one, 2, 1, 4);
  json counted = one;
  counted["plan"]["embedding_as_layer"] = true;
  const SimResult a = test::simulate_ok(test::parse_ok(counted));
  CHECK(a.iteration_time_s == test::simulate_ok(test::parse_ok(one)).iteration_time_s);
  CHECK(test::warning(a, WarningCode::no_effect, "/plan/embedding_as_layer") != nullptr);
}

TEST_CASE("held out: a GPU's calibration takes none of the published runs marked held out") {
  auto fitted = published_runs_of("h100-sxm5-80gb");
  REQUIRE(fitted.ok());
  size_t used = 0;
  for (const auto& set : fitted.value().sets)
    for (const MeasuredRun& r : set.runs) {
      CHECK_FALSE(r.held_out);
      ++used;
    }
  size_t all = 0, held = 0;
  for (const PublishedMeasurements& file : published_measurements()) {
    auto runs = parse_measurements(file.csv_text);
    REQUIRE(runs.ok());
    for (const MeasuredRun& r : runs.value()) {
      if (r.gpu != "h100-sxm5-80gb" || r.layer_time) continue;
      ++all;
      held += r.held_out ? 1 : 0;
    }
  }
  CHECK(held > 0);
  CHECK(used == all - held);
}
