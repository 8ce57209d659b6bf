// The network as built: leaf-spine and Clos tiers, oversubscription, hop latency, NCCL's ring or
// tree, in-network reduction, and the concurrent collectives that share a leaf's uplinks.

#include <vector>

#include <doctest/doctest.h>

#include "iteration/communication.hpp"
#include "iteration/network.hpp"
#include "test_util.hpp"
#include "vtrain/profile.hpp"

using namespace vtrain;

namespace {

// GPT-3 175B on A100s, its ranks in the order `placement`.
nlohmann::json large_config(int pp, int dp, const char* placement) {
  nlohmann::json j = test::gpt3_at_scale(pp, dp);
  j["plan"]["placement"] = placement;
  return j;
}

double iteration_s(const nlohmann::json& j) { return test::simulate_ok(test::parse_ok(j)).iteration_time_s; }

const std::vector<nlohmann::json>& plans() {
  static const std::vector<nlohmann::json> list = {
      large_config(8, 64, "tp-dp-pp"),   // 4096 GPUs, data-parallel rings of 64 consecutive nodes
      large_config(16, 32, "tp-pp-dp"),  // 4096 GPUs, rings whose nodes interleave with 15 others
      large_config(4, 16, "tp-pp-dp"),   // 512 GPUs
      large_config(2, 4, "tp-dp-pp"),    // 64 GPUs, within one leaf
  };
  return list;
}

}  // namespace

TEST_CASE("network: a non-blocking fabric with zero hop latency equals one flat switch") {
  for (nlohmann::json j : plans()) {
    j["cluster"]["network"] = {{"topology", "flat"}};
    const double flat = iteration_s(j);
    for (const char* topology : {"leaf_spine", "clos3"}) {
      j["cluster"]["network"] = {{"topology", topology}, {"oversubscription", 1}, {"hop_latency_us", 0},
                                 {"nodes_per_leaf", 4}, {"nodes_per_pod", 16}};
      CHECK(iteration_s(j) == flat);
    }
  }
  // The default network (a DGX SuperPOD) is one of them: today's model.
  for (nlohmann::json j : plans()) {
    const double by_default = iteration_s(j);
    j["cluster"]["network"] = {{"topology", "flat"}};
    CHECK(iteration_s(j) == by_default);
  }
}

TEST_CASE("network: doubling the oversubscription never shortens a step") {
  bool slower_somewhere = false;
  for (nlohmann::json j : plans()) {
    for (const char* topology : {"leaf_spine", "clos3"}) {
      double before = 0;
      for (double o = 1; o <= 64; o *= 2) {
        j["cluster"]["network"] = {{"topology", topology}, {"oversubscription", o}, {"nodes_per_leaf", 8},
                                   {"nodes_per_pod", 64}};
        const double t = iteration_s(j);
        CHECK(t >= before);
        if (before > 0 && t > before) slower_somewhere = true;
        before = t;
      }
    }
  }
  CHECK(slower_somewhere);  // interleaved rings and pipeline sends share the uplinks
}

TEST_CASE("network: oversubscription above the pods slows only the groups that leave a pod") {
  const Profile& prof = *bundled_profiles().find("a100-sxm4-80gb");
  ClusterConfig c;
  c.network.topology = Topology::clos3;
  c.network.nodes_per_leaf = 2;   // Meta's Llama 3 cluster: a rack of two nodes under one switch,
  c.network.nodes_per_pod = 384;  // pods of 3,072 GPUs with full bisection bandwidth,
  c.network.core_oversubscription = 7;  // 1:7 above them (arXiv 2407.21783, section 3.3.1)
  const detail::Fabric f = detail::make_fabric(prof, c);
  CHECK(detail::net_path(f, 384, 384).bw_share == 1);   // within a pod: non-blocking
  CHECK(detail::net_path(f, 2048, 16).bw_share == 1);   // 16 groups across pods: 384 / 7 flows fit them
  CHECK(detail::net_path(f, 8192, 128).bw_share == doctest::Approx(384.0 / 7 / 128));
  // Doubling it never shortens a step; at 1 it is today's three tiers.
  bool slower_somewhere = false;
  for (nlohmann::json j : plans()) {
    double before = 0;
    for (double o = 1; o <= 64; o *= 2) {
      j["cluster"]["network"] = {{"topology", "clos3"}, {"nodes_per_leaf", 4}, {"nodes_per_pod", 16},
                                 {"core_oversubscription", o}};
      const double t = iteration_s(j);
      CHECK(t >= before);
      if (before > 0 && t > before) slower_somewhere = true;
      before = t;
    }
    j["cluster"]["network"] = {{"topology", "clos3"}, {"nodes_per_leaf", 4}, {"nodes_per_pod", 16}};
    const double plain = iteration_s(j);
    j["cluster"]["network"]["core_oversubscription"] = 1;
    CHECK(iteration_s(j) == plain);
  }
  CHECK(slower_somewhere);
}

TEST_CASE("network: the latency of each tier counts only beyond the leaf") {
  nlohmann::json small = plans()[3];  // 8 nodes under one leaf
  const double base = iteration_s(small);
  small["cluster"]["network"] = {{"hop_latency_us", 50}};
  CHECK(iteration_s(small) == base);
  nlohmann::json big = plans()[0];
  const double two_tiers = iteration_s(big);
  big["cluster"]["network"] = {{"hop_latency_us", 5}};
  const double with_hops = iteration_s(big);
  CHECK(with_hops > two_tiers);
  big["cluster"]["network"] = {{"hop_latency_us", 5}, {"topology", "clos3"}, {"nodes_per_pod", 40}};
  CHECK(iteration_s(big) > with_hops);  // a third tier: two more hops
}

TEST_CASE("network: NCCL's choice takes the tree for small messages over many nodes, the ring for large") {
  const Profile& prof = *bundled_profiles().find("a100-sxm4-80gb");
  ClusterConfig c;
  c.network.algorithm = NetAlgorithm::auto_select;
  const detail::Fabric f = detail::make_fabric(prof, c);
  const detail::GroupShape g = detail::group_shape(256, 8, 2048, 8);  // one GPU on each of 256 nodes
  const detail::GroupShape few = detail::group_shape(16, 8, 128, 8);  // on each of 16 nodes
  REQUIRE(g.nodes == 256);
  REQUIRE(few.nodes == 16);
  const double small = 64e3, large = 1e9;
  const double ring_small = detail::inter_ring_s(prof, f, g, small, 2), tree_small = detail::inter_tree_s(prof, f, g, small);
  const double ring_large = detail::inter_ring_s(prof, f, few, large, 2), tree_large = detail::inter_tree_s(prof, f, few, large);
  CHECK(tree_small < ring_small);
  CHECK(ring_large < tree_large);
  CHECK(detail::inter_allreduce_s(prof, f, g, small) == tree_small);
  CHECK(detail::inter_allreduce_s(prof, f, few, large) == ring_large);
  // The ring moves (k - 1)/k of what the tree does, a tree step costs what a ring step does: over many
  // nodes the tree's fewer steps win even for a large buffer.
  CHECK(detail::inter_tree_s(prof, f, g, large) < detail::inter_ring_s(prof, f, g, large, 2));
  // In-network reduction halves the bytes each NIC carries: faster still for a large buffer.
  ClusterConfig s = c;
  s.network.sharp = true;
  const detail::Fabric fs = detail::make_fabric(prof, s);
  CHECK(detail::inter_allreduce_s(prof, fs, few, large) < ring_large);
  CHECK(detail::inter_allreduce_s(prof, fs, few, large) == detail::inter_sharp_s(prof, fs, few, large));
}

TEST_CASE("network: concurrent groups interleaved under a leaf share its uplinks") {
  const Profile& prof = *bundled_profiles().find("a100-sxm4-80gb");
  ClusterConfig c;
  c.network.nodes_per_leaf = 16;
  c.network.oversubscription = 4;  // 4 NICs' worth of uplinks a leaf, a rail
  const detail::Fabric f = detail::make_fabric(prof, c);
  CHECK(detail::net_path(f, 16, 16).bw_share == 1);     // within one leaf
  CHECK(detail::net_path(f, 64, 1).bw_share == 1);      // one ring crosses: it fits
  CHECK(detail::net_path(f, 64, 8).bw_share == doctest::Approx(0.5));  // eight rings on four uplinks
  CHECK(detail::net_path(f, 1024, 64).bw_share == doctest::Approx(0.25));  // at most a leaf's nodes
}

TEST_CASE("network: the section is read, checked and written back") {
  nlohmann::json j = test::small_config();
  j["cluster"]["network"] = {{"topology", "clos3"}, {"nodes_per_leaf", 32}, {"sharp", true}, {"algorithm", "auto"}};
  const SimConfig c = test::parse_ok(j);
  CHECK(c.cluster.network.topology == Topology::clos3);
  CHECK(c.cluster.network.algorithm == NetAlgorithm::auto_select);
  CHECK(to_json(c)["cluster"]["network"]["nodes_per_leaf"] == 32);
  CHECK(test::parse_ok(to_json(c)).cluster == c.cluster);
  j["cluster"]["network"] = {{"oversubscription", 0.5}};
  auto bad = parse_sim_config(j);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors().front().pointer == "/cluster/network/oversubscription");
  j["cluster"]["network"] = {{"topology", "torus"}};
  bad = parse_sim_config(j);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors().front().pointer == "/cluster/network/topology");
}
