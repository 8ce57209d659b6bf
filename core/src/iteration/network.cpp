#include "iteration/network.hpp"

#include <algorithm>
#include <cmath>

namespace vtrain::detail {

NetPath net_path(const Fabric& f, long long span_nodes, long long interleave) {
  NetPath path;
  const NetworkConfig& n = f.net;
  if (n.topology == Topology::flat || span_nodes <= n.nodes_per_leaf) return path;
  path.tiers = n.topology == Topology::clos3 && span_nodes > n.nodes_per_pod ? 2 : 1;
  // Uplinks of a leaf: nodes_per_leaf / oversubscription NICs' worth; of a pod's spines, what its
  // leaves send up, nodes_per_pod / oversubscription, over the spines' own oversubscription.
  const double leaf_flows = static_cast<double>(std::clamp<long long>(interleave, 1, n.nodes_per_leaf));
  path.bw_share = std::min(1.0, n.nodes_per_leaf / n.oversubscription / leaf_flows);
  if (path.tiers == 2) {
    const double pod_flows = static_cast<double>(std::clamp<long long>(interleave, 1, n.nodes_per_pod));
    path.bw_share =
        std::min(path.bw_share, n.nodes_per_pod / (n.oversubscription * n.core_oversubscription) / pod_flows);
  }
  path.extra_latency_us = 2.0 * path.tiers * n.hop_latency_us;
  return path;
}

namespace {

NetPath group_path(const Fabric& f, const GroupShape& g) {
  const long long span = std::max<long long>(g.span_nodes, g.nodes);
  return net_path(f, span, std::max<long long>(1, span / std::max(1, g.nodes)));
}

}  // namespace

double inter_ring_s(const Profile& p, const Fabric& f, const GroupShape& g, double bytes, double passes) {
  const int k = g.nodes;
  if (k <= 1) return 0;
  const NetPath path = group_path(f, g);
  const double bw = f.nic_Bps_per_gpu * p.inter_node_efficiency * path.bw_share;
  return passes * (k - 1) / k * bytes / bw +
         (passes * (k - 1) * (p.inter_node_latency_us + path.extra_latency_us) + p.inter_node_base_latency_us) * 1e-6;
}

double inter_tree_s(const Profile& p, const Fabric& f, const GroupShape& g, double bytes) {
  const int k = g.nodes;
  if (k <= 1) return 0;
  const NetPath path = group_path(f, g);
  const double bw = f.nic_Bps_per_gpu * p.inter_node_efficiency * path.bw_share;
  const double depth = std::ceil(std::log2(static_cast<double>(k)));
  return 2 * bytes / bw + (2 * depth * (p.inter_node_latency_us + path.extra_latency_us) + p.inter_node_base_latency_us) * 1e-6;
}

double inter_sharp_s(const Profile& p, const Fabric& f, const GroupShape& g, double bytes) {
  const int k = g.nodes;
  if (k <= 1) return 0;
  const NetPath path = group_path(f, g);
  const double bw = f.nic_Bps_per_gpu * p.inter_node_efficiency;
  // Up to the top switch the group reaches and back: one step each way.
  return bytes / bw + (2 * (p.inter_node_latency_us + path.extra_latency_us) + p.inter_node_base_latency_us) * 1e-6;
}

double inter_allreduce_s(const Profile& p, const Fabric& f, const GroupShape& g, double bytes) {
  if (g.nodes <= 1) return 0;
  const NetworkConfig& n = f.net;
  double best = n.algorithm == NetAlgorithm::tree ? inter_tree_s(p, f, g, bytes) : inter_ring_s(p, f, g, bytes, 2);
  if (n.algorithm == NetAlgorithm::auto_select) best = std::min(best, inter_tree_s(p, f, g, bytes));
  if (n.sharp && n.algorithm == NetAlgorithm::auto_select) best = std::min(best, inter_sharp_s(p, f, g, bytes));
  else if (n.sharp) best = inter_sharp_s(p, f, g, bytes);
  return best;
}

}  // namespace vtrain::detail
