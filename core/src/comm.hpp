#pragma once
// Communication model: collectives inside a node from the profile's measured latency/bandwidth fit,
// across nodes over each GPU's share of the node's NICs, hierarchical where a group spans nodes.

#include "vtrain/config.hpp"
#include "vtrain/profile.hpp"

namespace vtrain::detail {

// How a communication group lies on the nodes: `per_node` members in each of `nodes` nodes.
struct GroupShape {
  int size = 1;
  int per_node = 1;
  int nodes = 1;
};

// Resolved network numbers of one cluster.
struct Fabric {
  double intra_scale = 1;        // config intra-node bandwidth / profile's nominal (ratio)
  double intra_link_Bps = 300e9; // per-GPU per-direction intra-node link (B/s)
  double nic_Bps_per_gpu = 25e9; // each GPU's share of its node's network bandwidth (B/s)
  int gpus_per_node = 8;
};

Fabric make_fabric(const Profile& p, const ClusterConfig& c);

// The worst of the groups of `size` ranks spaced `stride` apart that tile `ranks` consecutive ranks
// in blocks of size*stride (rank = block*size*stride + member*stride + offset, offset < stride):
// the one whose members lie on the most nodes.
GroupShape group_shape(int size, long long stride, long long ranks, int gpus_per_node);

enum class CollectiveKind { all_reduce, all_gather, reduce_scatter };

// Time of one collective over `bytes` (the full, unsharded buffer), seconds.
double collective_s(const Profile& p, const Fabric& f, const GroupShape& g, CollectiveKind kind,
                    double bytes);

// Time of one point-to-point transfer of `bytes`, seconds.
double p2p_s(const Profile& p, const Fabric& f, bool same_node, double bytes);

}  // namespace vtrain::detail
