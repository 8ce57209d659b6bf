#pragma once
// The fabric between the nodes as it is built (vtrain/config.hpp, NetworkConfig): which switch
// tiers an inter-node collective or transfer crosses, the share of its NIC bandwidth it keeps on
// links it shares with the concurrent collectives of other groups, the latency of the switches
// beyond the leaf, and NCCL's choice between ring, tree and in-network reduction.

#include "iteration/communication.hpp"

namespace vtrain::detail {

// Where the traffic of one group goes.
struct NetPath {
  int tiers = 0;               // switch tiers above the leaf it crosses (0: all within one leaf)
  double bw_share = 1;         // fraction of each member's NIC bandwidth it gets on shared uplinks
  double extra_latency_us = 0;  // each step's latency beyond the leaf: two hops a tier (us)
};

// A group whose members lie on nodes spread over `span_nodes` consecutive nodes, `interleave`
// groups of the same rail taking turns among them (1: its nodes are consecutive). Nodes are placed
// in order under their leaves; the groups that cross a leaf's uplinks at once are those
// interleaved under it, each a flow of one NIC's bandwidth, and the uplinks carry nodes_per_leaf /
// oversubscription of them at full rate.
NetPath net_path(const Fabric& f, long long span_nodes, long long interleave);

// The inter-node part of an all-reduce among `g.nodes` nodes, each GPU carrying `bytes` on its NIC
// share: ring, tree or in-network reduction as the network says (auto: the fastest).
double inter_allreduce_s(const Profile& p, const Fabric& f, const GroupShape& g, double bytes);

// A ring among g.nodes nodes, `passes` times around (1: reduce-scatter or all-gather).
double inter_ring_s(const Profile& p, const Fabric& f, const GroupShape& g, double bytes, double passes);

// NCCL's double binary tree all-reduce: every node sends and receives the buffer twice (reduce up,
// broadcast down, each tree half of it), in 2 log2(nodes) steps.
double inter_tree_s(const Profile& p, const Fabric& f, const GroupShape& g, double bytes);

// In-network reduction (SHARP): each node sends its buffer up once and receives the sum once; the
// switches reduce, so the leaf uplinks carry one reduced flow.
double inter_sharp_s(const Profile& p, const Fabric& f, const GroupShape& g, double bytes);

}  // namespace vtrain::detail
