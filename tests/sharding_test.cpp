#include <doctest/doctest.h>

#include "iteration/sharding.hpp"
#include "test_util.hpp"
#include "vtrain/profile.hpp"

using namespace vtrain;
using nlohmann::json;

namespace {

// 24 layers of a 2.7B-parameter GPT on 16 GPUs of two nodes, data-parallel only.
json sharded_config(int zero_stage, int dp = 16) {
  json j = test::small_config();
  j["model"] = {{"layers", 24}, {"hidden", 2560}, {"heads", 32}, {"seq_len", 2048}, {"vocab", 51200}};
  test::set_parallelism(j, 1, 1, dp);
  j["plan"]["micro_batch"] = 2;
  j["plan"]["global_batch"] = 4 * dp;
  j["plan"]["zero_stage"] = zero_stage;
  j["output"]["timeline"] = false;
  return j;
}

SimResult run(const json& j, const Profile* prof = nullptr) { return test::simulate_ok(test::parse_ok(j), prof); }

// The bundled A100 profile with communication that costs nothing: no latency, no bandwidth limit.
Profile instant_comm_profile() {
  Profile p = *bundled_profiles().find("a100-sxm4-80gb");
  for (auto& c : p.intra_node) {
    c.min_time_us = 0;
    c.latency_us = 0;
    c.busbw_GBps = 1e15;
  }
  p.inter_node_latency_us = 0;
  p.inter_node_base_latency_us = 0;
  p.inter_node_efficiency = 1e15;
  p.p2p_latency_us = 0;
  return p;
}

}  // namespace

TEST_CASE("sharding: no ZeRO stage or shard group changes the FLOPs") {
  const SimResult base = run(sharded_config(0));
  for (int z = 1; z <= 3; ++z) {
    for (int group : {0, 2, 8}) {
      if (group != 0 && z != 3) continue;
      json j = sharded_config(z);
      j["plan"]["shard_group"] = group;
      const SimResult r = run(j);
      CAPTURE(z);
      CAPTURE(group);
      CHECK(r.model_flops_per_iteration == base.model_flops_per_iteration);
      CHECK(r.hardware_flops_per_iteration == base.hardware_flops_per_iteration);
      CHECK(r.breakdown.forward == doctest::Approx(base.breakdown.forward));
    }
  }
}

TEST_CASE("sharding: ZeRO-3 shards weights, gradients and optimizer states as 1/dp") {
  const auto memory = [](int dp) { return run(sharded_config(3, dp)).memory; };
  const MemoryBreakdown m2 = memory(2), m4 = memory(4), m8 = memory(8);
  // Optimizer states are sharded only: they halve with each doubling of dp.
  CHECK(m2.optimizer_states / m4.optimizer_states == doctest::Approx(2).epsilon(1e-3));
  CHECK(m4.optimizer_states / m8.optimizer_states == doctest::Approx(2).epsilon(1e-3));
  // Weights and gradients: a sharded part falling as 1/dp plus gathered units that do not.
  CHECK(m2.weights - m4.weights == doctest::Approx(2 * (m4.weights - m8.weights)).epsilon(1e-3));
  CHECK(m2.gradients - m4.gradients == doctest::Approx(2 * (m4.gradients - m8.gradients)).epsilon(1e-3));
  CHECK(m8.weights > 0);
  // Against replicated data parallelism: states of the whole model on every GPU.
  const MemoryBreakdown m0 = run(sharded_config(0, 8)).memory;
  CHECK(m8.optimizer_states == doctest::Approx(m0.optimizer_states / 8).epsilon(1e-3));
  CHECK(m8.weights < m0.weights);
  CHECK(m8.gradients < m0.gradients);
  // ZeRO-2 shards the gradients (plus one bucket at full size) but not the weights.
  const MemoryBreakdown z2 = run(sharded_config(2, 8)).memory;
  CHECK(z2.weights == doctest::Approx(m0.weights));
  CHECK(z2.gradients < m0.gradients);
  CHECK(z2.optimizer_states == doctest::Approx(m0.optimizer_states / 8));
}

TEST_CASE("sharding: with communication that costs nothing ZeRO-3 takes the time of ZeRO-0") {
  const Profile instant = instant_comm_profile();
  for (bool prefetch : {true, false}) {
    json j3 = sharded_config(3), j0 = sharded_config(0), j1 = sharded_config(1);
    j3["plan"]["shard_prefetch"] = prefetch;
    const SimResult r3 = run(j3, &instant), r0 = run(j0, &instant), r1 = run(j1, &instant);
    CAPTURE(prefetch);
    CHECK(r3.breakdown.dp_comm_exposed == doctest::Approx(0).epsilon(1e-9));
    // The optimizer step is sharded as ZeRO-1's is; everything else as without ZeRO.
    CHECK(r3.iteration_time_s == doctest::Approx(r1.iteration_time_s).epsilon(1e-9));
    CHECK(r3.iteration_time_s - r3.breakdown.optimizer ==
          doctest::Approx(r0.iteration_time_s - r0.breakdown.optimizer).epsilon(1e-9));
  }
  // With real communication the gathers cost something.
  const SimResult real = run(sharded_config(3));
  CHECK(real.breakdown.dp_comm_exposed > 0);
  CHECK(real.iteration_time_s > run(sharded_config(3), &instant).iteration_time_s);
}

TEST_CASE("sharding: with prefetch a layer's all-gather starts before the layer before it has finished") {
  using detail::ShardTrace;
  // Layers of 10 ms compute; gathers of 4 ms (faster) and of 15 ms (slower than compute).
  for (double gather_s : {0.004, 0.015}) {
    for (bool prefetch : {true, false}) {
      double gpu = 0, comm = 0;
      ShardTrace t;
      detail::sharded_layer_schedule(
          6, gather_s, 0.002, prefetch, comm, [&] { return gpu; }, [&] { return gpu; },
          [&](double ready) { gpu = std::max(gpu, ready); }, [&](int) { gpu += 0.010; }, &t);
      CAPTURE(gather_s);
      CAPTURE(prefetch);
      REQUIRE(t.gather_start.size() == 6);
      REQUIRE(t.compute_start.size() == 6);
      for (int r = 0; r < 6; ++r) {
        CHECK(t.gather_end[r] <= t.compute_start[r] + 1e-15);  // a layer never runs ungathered
        if (r == 0) continue;
        if (prefetch) {
          // Issued when the layer before starts: beside its compute.
          CHECK(t.gather_start[r] < t.compute_end[r - 1]);
        } else {
          CHECK(t.gather_start[r] >= t.compute_end[r - 1]);
        }
      }
      const double end = t.compute_end.back();
      if (prefetch && gather_s < 0.010) {
        // Hidden after the first gather and the first layer's reduction: compute-bound.
        CHECK(end == doctest::Approx(gather_s + 6 * 0.010 + 0.002 * 0).epsilon(0.2));
      }
      if (prefetch && gather_s > 0.010) {
        // Communication-bound: each layer waits for its gather (and the reduction before it).
        CHECK(t.compute_start[5] >= t.gather_end[5] - 1e-15);
        CHECK(end > 6 * 0.010 + gather_s);
      }
      if (!prefetch) CHECK(end == doctest::Approx(6 * (gather_s + 0.010) + 5 * 0.002));
    }
  }
  // The whole simulation: prefetch hides gathers that a schedule without it exposes.
  json on = sharded_config(3), off = sharded_config(3);
  off["plan"]["shard_prefetch"] = false;
  const SimResult with = run(on), without = run(off);
  CHECK(with.breakdown.dp_comm_exposed < without.breakdown.dp_comm_exposed);
  CHECK(with.iteration_time_s < without.iteration_time_s);
}

TEST_CASE("sharding: the timeline shows each forward's and backward's gathers and reduce-scatters beside it") {
  auto shard_blocks = [](const SimResult& r) {
    int n = 0;
    for (const auto& stage : r.timeline)
      for (const TimelineBlock& b : stage) n += b.kind == BlockKind::shard_comm;
    return n;
  };
  for (int z : {0, 1, 3}) {
    json j = sharded_config(z);
    j["plan"]["pp"] = 2;
    j["plan"]["dp"] = 8;
    j["output"]["timeline"] = true;
    const SimResult r = run(j);
    CAPTURE(z);
    REQUIRE(r.timeline_included);
    if (z != 3) {
      CHECK(shard_blocks(r) == 0);
      continue;
    }
    const int micro_batches = 4 * 16 / (2 * 8);
    CHECK(shard_blocks(r) == 2 * 2 * micro_batches);  // a forward and a backward per micro-batch, per stage
    for (const auto& stage : r.timeline) {
      for (size_t i = 0; i < stage.size(); ++i) {
        const TimelineBlock& c = stage[i];
        if (c.kind != BlockKind::shard_comm) continue;
        // Recorded right after the block it serves: same micro-batch, starting within it or
        // at its start, ending no later than the iteration.
        REQUIRE(i > 0);
        const TimelineBlock& b = stage[i - 1];
        CHECK((b.kind == BlockKind::forward || b.kind == BlockKind::backward));
        CHECK(b.micro_batch == c.micro_batch);
        // A backward's collectives may start with its recomputation, the block before it.
        const bool after_recompute = i >= 2 && stage[i - 2].kind == BlockKind::recompute &&
                                     stage[i - 2].micro_batch == c.micro_batch && b.kind == BlockKind::backward;
        const double from = after_recompute ? stage[i - 2].start_s : b.start_s;
        const double to = b.start_s + b.duration_s;
        CHECK(c.start_s >= from - 1e-12);
        CHECK(c.start_s < to);
        CHECK(c.duration_s > 0);
        CHECK(c.start_s + c.duration_s <= to + 1e-12);  // the block waits for its last collective
      }
    }
  }
}

TEST_CASE("sharding: a collective beside a layer's compute takes its SMs for as long as they overlap") {
  using detail::ShardTrace;
  // Two layers of 10 ms, gathers of 4 ms with prefetch, no reduction: layer 0 computes beside the
  // gather of layer 1 for 4 ms; with a quarter of the SMs held by it, layer 0 loses 1 ms.
  for (double share : {0.0, 0.25}) {
    double gpu = 0, comm = 0, lost = 0;
    ShardTrace t;
    detail::sharded_layer_schedule(
        2, 0.004, 0.0, true, comm, [&] { return gpu; }, [&] { return gpu; },
        [&](double ready) { gpu = std::max(gpu, ready); }, [&](int) { gpu += 0.010; }, &t, share,
        [&](double s) {
          gpu += s;
          lost += s;
        });
    CAPTURE(share);
    CHECK(lost == doctest::Approx(share * 0.004).epsilon(1e-12));
    CHECK(t.compute_end[0] - t.compute_start[0] == doctest::Approx(0.010 + share * 0.004).epsilon(1e-12));
    // Layer 1 computes alone: nothing lost.
    CHECK(t.compute_end[1] - t.compute_start[1] == doctest::Approx(0.010).epsilon(1e-12));
  }
  // The whole simulation: NCCL's 16 SMs of the A100's 108 cost the compute time beside the
  // collectives; with none taken it is faster, and communication that costs nothing takes nothing
  // either way.
  const json j = sharded_config(3);
  CHECK(bundled_profiles().find("a100-sxm4-80gb")->collective_sms == 16);
  Profile many = *bundled_profiles().find("a100-sxm4-80gb");
  many.collective_sms = 0;
  const SimResult taken = run(j), untaken = run(j, &many);
  CHECK(taken.iteration_time_s > untaken.iteration_time_s);
  CHECK(taken.iteration_time_s < 1.1 * untaken.iteration_time_s);
  CHECK(taken.breakdown.forward == untaken.breakdown.forward);  // the loss is the collectives' cost
  Profile instant = instant_comm_profile();
  Profile instant_many = instant;
  instant_many.collective_sms = 0;
  CHECK(run(j, &instant).iteration_time_s == doctest::Approx(run(j, &instant_many).iteration_time_s).epsilon(1e-12));
}

TEST_CASE("sharding: with a device-wide synchronization no layer computes beside the reduce-scatter before it") {
  using detail::ShardTrace;
  // Layers of 10 ms compute, gathers of 4 ms, reduce-scatters of 5 ms: with streams alone the
  // reductions hide behind the next layers' compute; a synchronization before each layer waits for them.
  for (bool sync : {false, true}) {
    double gpu = 0, host = 0, comm = 0;
    ShardTrace t;
    detail::sharded_layer_schedule(
        6, 0.004, 0.005, true, comm, [&] { return std::max(gpu, host); }, [&] { return gpu; },
        [&](double ready) { gpu = std::max(gpu, ready); }, [&](int) { gpu = std::max(gpu, host) + 0.010; }, &t, 0.0,
        [](double) {},
        [&](double idle) {
          if (!sync) return;
          gpu = std::max(gpu, idle);
          host = std::max(host, gpu);
        });
    CAPTURE(sync);
    REQUIRE(t.compute_start.size() == 6);
    for (int r = 1; r < 6; ++r) {
      // The reduce-scatter of layer r-1 starts when its compute ends (the stream is free by then).
      const double reduced = t.compute_end[r - 1] + 0.005;
      if (sync)
        CHECK(t.compute_start[r] >= reduced - 1e-15);
      else
        CHECK(t.compute_start[r] < reduced);
    }
    // Six layers of compute, five reductions in series between them, the first gather before.
    if (sync) CHECK(t.compute_end.back() == doctest::Approx(0.004 + 6 * 0.010 + 5 * 0.005));
    else CHECK(t.compute_end.back() == doctest::Approx(0.004 + 6 * 0.010));
  }
  // In a simulated plan: never faster, the same with communication that costs nothing.
  const Profile instant = instant_comm_profile();
  json j = sharded_config(3);
  j["plan"]["recompute"] = "full";
  j["plan"]["recompute_gather"] = true;
  const SimResult streams = run(j), streams_free = run(j, &instant);
  j["plan"]["shard_device_sync"] = true;
  const SimResult synced = run(j), synced_free = run(j, &instant);
  CHECK(synced.iteration_time_s > streams.iteration_time_s);
  CHECK(synced.model_flops_per_iteration == streams.model_flops_per_iteration);
  // With free communication what is left is the host's: after each synchronization the GPU idles
  // until the host has issued the layer's first kernels, where it had run ahead before.
  CHECK(synced_free.iteration_time_s > streams_free.iteration_time_s);
  CHECK(synced_free.iteration_time_s - synced_free.breakdown.host_overhead ==
        doctest::Approx(streams_free.iteration_time_s - streams_free.breakdown.host_overhead).epsilon(1e-9));
  // Below ZeRO stage 3 there is nothing to synchronize with: a warning says so.
  json z1 = sharded_config(1);
  z1["plan"]["shard_device_sync"] = true;
  const SimResult r1 = run(z1);
  bool warned = false;
  for (const auto& w : r1.warnings) warned = warned || w.message.find("shard_device_sync") != std::string::npos;
  CHECK(warned);
}

TEST_CASE("sharding: the operator table lists each layer's gathers and reduce-scatter") {
  json j = sharded_config(3);
  j["output"]["operators"] = true;
  const SimResult r = run(j);
  const OperatorTime* gather = test::operator_row(r, "layer", "sharded parameter all-gather");
  const OperatorTime* reduce = test::operator_row(r, "layer", "sharded gradient reduce-scatter");
  REQUIRE(gather != nullptr);
  REQUIRE(reduce != nullptr);
  CHECK(gather->kind == OperatorKind::collective);
  // Full recomputation with FSDP's defaults: gathered for the forward and again for the backward
  // (the recomputation runs with the backward's gather), the gradients reduced once.
  CHECK(gather->kernels == 2);
  CHECK(gather->forward_s > 0);
  CHECK(gather->backward_s == doctest::Approx(gather->forward_s).epsilon(1e-12));
  CHECK(reduce->backward_s > 0);
  CHECK(reduce->forward_s == 0);
  // A layer's 16-bit parameters per gather: 12 h^2 + 13 h of a GPT layer.
  const double h = 2560;
  CHECK(gather->comm_bytes == doctest::Approx(2 * 2 * (12 * h * h + 13 * h)).epsilon(1e-9));
  // Listed after the layer's compute operators, before the head's.
  const auto index = [&](const OperatorTime* o) { return o - r.operators.data(); };
  CHECK(r.operators[index(gather) - 1].block == "layer");
  CHECK(index(reduce) == index(gather) + 1);
  // Without sharded parameters: none.
  json z1 = sharded_config(1);
  z1["output"]["operators"] = true;
  CHECK(test::operator_row(run(z1), "layer", "sharded parameter all-gather") == nullptr);
}

TEST_CASE("sharding: HSDP with one group is FULL_SHARD, with groups of one plain data parallelism") {
  json full = sharded_config(3), one_group = sharded_config(3), groups_of_one = sharded_config(3);
  one_group["plan"]["shard_group"] = 16;
  groups_of_one["plan"]["shard_group"] = 1;
  const SimResult rf = run(full), r1 = run(one_group), rd = run(groups_of_one), r0 = run(sharded_config(0));
  CHECK(r1.iteration_time_s == rf.iteration_time_s);
  CHECK(r1.memory.total() == rf.memory.total());
  CHECK(rd.iteration_time_s == r0.iteration_time_s);
  CHECK(rd.memory.total() == r0.memory.total());
  // In between: sharded within a node, replicated across the two.
  json hybrid = sharded_config(3);
  hybrid["plan"]["shard_group"] = 8;
  const SimResult rh = run(hybrid);
  CHECK(rh.memory.optimizer_states == doctest::Approx(2 * rf.memory.optimizer_states).epsilon(1e-3));
  CHECK(rh.iteration_time_s != rf.iteration_time_s);
}

TEST_CASE("sharding: the plan's sharding fields are checked") {
  json j = sharded_config(3);
  j["plan"]["shard_group"] = 3;
  auto bad = parse_sim_config(j);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors().front().pointer == "/plan/shard_group");
  json k = sharded_config(1);
  k["plan"]["shard_group"] = 8;
  auto bad2 = parse_sim_config(k);
  REQUIRE_FALSE(bad2.ok());
  CHECK(bad2.errors().front().pointer == "/plan/shard_group");
  json z = sharded_config(4);
  CHECK_FALSE(parse_sim_config(z).ok());
  CHECK(parse_sim_config(z).errors().front().pointer == "/plan/zero_stage");
}

TEST_CASE("layer variants: fewer key/value heads than tensor-parallel ranks are replicated, as Megatron-LM does") {
  json j = test::small_config();
  j["model"]["kv_heads"] = 2;
  test::set_parallelism(j, 8, 1, 1);
  j["plan"]["global_batch"] = 2;
  const SimResult replicated = run(j);
  // Each of the 8 ranks computes one key/value head: more work than 2/8 of one, less than a head each.
  json k = j;
  k["model"]["kv_heads"] = 16;
  const SimResult full = run(k);
  json g = j;
  g["model"]["kv_heads"] = 8;
  const SimResult one_each = run(g);
  CHECK(replicated.details.layer_forward_s == doctest::Approx(one_each.details.layer_forward_s));
  CHECK(replicated.details.layer_forward_s < full.details.layer_forward_s);
  // A degree that neither divides the key/value heads nor is a multiple of them is refused.
  j["model"] = {{"layers", 4}, {"hidden", 2304}, {"heads", 24}, {"kv_heads", 8}, {"seq_len", 1024}, {"vocab", 51200}};
  test::set_parallelism(j, 12, 1, 1);
  const auto refused = parse_sim_config(j);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.errors().front().pointer == "/plan/tp");
}
