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
  long long span_nodes = 0;  // nodes from its first member's to its last's (0: `nodes`, consecutive)
};

// Resolved network numbers of one cluster.
struct Fabric {
  double intra_scale = 1;        // config intra-node bandwidth / profile's nominal (ratio)
  double intra_link_Bps = 300e9; // per-GPU per-direction intra-node link (B/s)
  double nic_Bps_per_gpu = 25e9; // each GPU's share of its node's network bandwidth (B/s)
  int gpus_per_node = 8;
  NetworkConfig net;             // the fabric between the nodes
};

Fabric make_fabric(const Profile& p, const ClusterConfig& c);

// The worst of the groups of `size` ranks spaced `stride` apart that tile `ranks` consecutive ranks
// in blocks of size*stride (rank = block*size*stride + member*stride + offset, offset < stride):
// the one whose members lie on the most nodes.
GroupShape group_shape(int size, long long stride, long long ranks, int gpus_per_node);

enum class CollectiveKind { all_reduce, all_gather, reduce_scatter, all_to_all };

// Time of one collective over `bytes` (the full, unsharded buffer), seconds. An all-to-all's
// `bytes` is what each member sends in all (to itself too): the share for members on its own node
// crosses NVLink, the rest its NIC share, both at once (NCCL's point-to-point sends).
double collective_s(const Profile& p, const Fabric& f, const GroupShape& g, CollectiveKind kind,
                    double bytes);

// The buckets of an overlapped data-parallel gradient reduction of `bytes` over `dp` replicas:
// Megatron-Core's default of max(40 M, 1 M x dp) parameters each, large enough that the
// collectives of a large data-parallel group do not become latency-bound; the last holds the rest.
struct Buckets {
  double count = 1;       // buckets
  double bytes = 0;       // each but the last
  double last_bytes = 0;  // the last
};
Buckets gradient_buckets(double bytes, int dp, double bytes_per_param);

// When that reduction finishes, overlapped with the backward pass that fills the buffer at an
// even rate from `start` to `end`: each bucket is reduced, in `bucket_s` (the last in `last_s`),
// as soon as it is full and the communication stream, free from `free_at`, has finished the one
// before. Closed form: the latest of a bucket's ready time plus the time of it and all after it.
double bucketed_reduction_end(double free_at, double start, double end, const Buckets& b, double bucket_s,
                              double last_s);

// Time of one point-to-point transfer of `bytes`, seconds. Across nodes: every node of a job on
// `job_nodes` nodes sends at once to the one `node_distance` nodes on (0, 0: within one leaf).
double p2p_s(const Profile& p, const Fabric& f, bool same_node, double bytes, long long node_distance = 0,
             long long job_nodes = 0);

}  // namespace vtrain::detail
