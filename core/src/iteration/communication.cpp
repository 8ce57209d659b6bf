#include "iteration/communication.hpp"
#include "iteration/network.hpp"

#include <algorithm>
#include <cmath>

namespace vtrain::detail {

Fabric make_fabric(const Profile& p, const ClusterConfig& c) {
  Fabric f;
  const double intra = c.intra_node_GBps > 0 ? c.intra_node_GBps : p.intra_node_GBps;
  const double inter = c.inter_node_Gbps > 0 ? c.inter_node_Gbps : p.inter_node_Gbps;
  f.intra_scale = intra / p.intra_node_GBps;
  f.intra_link_Bps = intra * 1e9;
  f.gpus_per_node = c.gpus_per_node;
  f.nic_Bps_per_gpu = inter * 1e9 / 8.0 / c.gpus_per_node;
  f.net = c.network;
  return f;
}

GroupShape group_shape(int size, long long stride, long long ranks, int gpus_per_node) {
  GroupShape g;
  g.size = size;
  if (size <= 1) return g;
  const long long gpn = gpus_per_node;
  if (stride >= gpn) {  // every member on a node of its own
    g.per_node = 1;
    g.nodes = size;
    g.span_nodes = (static_cast<long long>(size) - 1) * stride / gpn + 1;
    return g;
  }
  // Members sit `stride` apart, less than a node, so a group covers every node from its first
  // member's to its last's, and the later in its node the first member sits, the more nodes that
  // is. First members are block starts plus offsets below `stride`; block starts repeat their
  // place in a node after at most `gpn` blocks.
  const long long block = static_cast<long long>(size) * stride;
  const long long blocks = std::max(1LL, ranks / block);
  long long latest = 0;  // the latest place in a node that some group's first member takes
  for (long long b = 0; b < std::min(blocks, gpn) && latest < gpn - 1; ++b) {
    const long long start = b * block % gpn;
    latest = std::max(latest, start + stride - 1 >= gpn ? gpn - 1 : start + stride - 1);
  }
  g.nodes = static_cast<int>(std::min<long long>((latest + (size - 1) * stride) / gpn + 1, size));
  g.per_node = std::max(1, size / g.nodes);
  return g;
}

namespace {

// Floor, latency and bus bandwidth of an intra-node all-reduce among n GPUs, interpolated in n.
void intra_fit(const Profile& p, int n, double& floor_s, double& latency_s, double& busbw_Bps) {
  const auto& t = p.intra_node;
  const IntraNodeCollective* lo = &t.front();
  const IntraNodeCollective* hi = &t.back();
  for (const auto& c : t) {
    if (c.gpus <= n) lo = &c;
    if (c.gpus >= n) {
      hi = &c;
      break;
    }
  }
  double w = 0;
  if (hi->gpus != lo->gpus) w = static_cast<double>(n - lo->gpus) / (hi->gpus - lo->gpus);
  w = std::clamp(w, 0.0, 1.0);
  floor_s = (lo->min_time_us + w * (hi->min_time_us - lo->min_time_us)) * 1e-6;
  latency_s = (lo->latency_us + w * (hi->latency_us - lo->latency_us)) * 1e-6;
  busbw_Bps = (lo->busbw_GBps + w * (hi->busbw_GBps - lo->busbw_GBps)) * 1e9;
}

double intra_s(const Profile& p, const Fabric& f, int n, CollectiveKind kind, double bytes) {
  if (n <= 1) return 0;
  double floor = 0, latency = 0, busbw = 0;
  intra_fit(p, n, floor, latency, busbw);
  busbw *= f.intra_scale;
  const double half = kind == CollectiveKind::all_reduce ? 1.0 : 0.5;
  const double steps = 2.0 * half * (n - 1) / n;
  return std::max(half * floor, half * latency + steps * bytes / busbw);
}

}  // namespace

namespace {

// Each member sends bytes / size to every member. Within a node the traffic is that of an
// all-gather of the node's members' share (each sends (q - 1) of q parts); across nodes each GPU's
// NIC share carries the parts for the other nodes' members, one node's worth after another.
double all_to_all_s(const Profile& p, const Fabric& f, const GroupShape& g, double bytes) {
  if (g.nodes <= 1) return intra_s(p, f, g.size, CollectiveKind::all_gather, bytes);
  const int q = g.per_node;
  const double intra = intra_s(p, f, q, CollectiveKind::all_gather, bytes * q / g.size);
  const NetPath path = net_path(f, g.span_nodes > 0 ? g.span_nodes : g.nodes, 1);
  const double inter = (p.inter_node_base_latency_us + p.inter_node_latency_us * (g.nodes - 1) + path.extra_latency_us) * 1e-6 +
                       bytes * (g.size - q) / g.size / (f.nic_Bps_per_gpu * p.inter_node_efficiency * path.bw_share);
  return std::max(intra, inter);
}

}  // namespace

double collective_s(const Profile& p, const Fabric& f, const GroupShape& g, CollectiveKind kind,
                    double bytes) {
  if (g.size <= 1 || bytes <= 0) return 0;
  if (kind == CollectiveKind::all_to_all) return all_to_all_s(p, f, g, bytes);
  if (g.nodes <= 1) return intra_s(p, f, g.size, kind, bytes);
  const int q = g.per_node;
  const double shard = bytes / q;  // each member's share across nodes
  switch (kind) {
    case CollectiveKind::all_reduce:
      return intra_s(p, f, q, CollectiveKind::reduce_scatter, bytes) + inter_allreduce_s(p, f, g, shard) +
             intra_s(p, f, q, CollectiveKind::all_gather, bytes);
    case CollectiveKind::all_gather:
      return inter_ring_s(p, f, g, shard, 1) + intra_s(p, f, q, CollectiveKind::all_gather, bytes);
    case CollectiveKind::reduce_scatter:
      return intra_s(p, f, q, CollectiveKind::reduce_scatter, bytes) + inter_ring_s(p, f, g, shard, 1);
    case CollectiveKind::all_to_all: break;
  }
  return 0;
}

Buckets gradient_buckets(double bytes, int dp, double bytes_per_param) {
  Buckets b;
  b.bytes = std::min(bytes, std::max(40e6, 1e6 * dp) * bytes_per_param);
  if (b.bytes <= 0) return b;
  b.count = std::max(1.0, std::ceil(bytes / b.bytes - 1e-9));
  b.last_bytes = bytes - (b.count - 1) * b.bytes;
  return b;
}

double bucketed_reduction_end(double free_at, double start, double end, const Buckets& b, double bucket_s,
                              double last_s) {
  const double full = b.count - 1;  // buckets before the last
  double finish = std::max(free_at + full * bucket_s, end) + last_s;
  if (full >= 1) {
    // Bucket i < count-1 is ready at start + (i+1)·step; its ready time plus the buckets from it
    // on is linear in i, so the first or the last of them bounds the rest.
    const double step = (end - start) / (full + b.last_bytes / b.bytes);
    finish = std::max(finish, start + step + full * bucket_s + last_s);
    finish = std::max(finish, start + full * step + bucket_s + last_s);
  }
  return finish;
}

double p2p_s(const Profile& p, const Fabric& f, bool same_node, double bytes, long long node_distance,
             long long job_nodes) {
  if (bytes <= 0) return 0;
  if (same_node) return p.p2p_latency_us * 1e-6 + bytes / (f.intra_link_Bps * p.p2p_intra_efficiency);
  // Every node sends to the one node_distance on: when the job spans leaves, the nodes of a leaf
  // whose partners lie beyond it (node_distance of them, at most a leaf's) share its uplinks.
  const NetPath path = node_distance > 0 ? net_path(f, job_nodes, node_distance) : NetPath{};
  return (p.p2p_latency_us + path.extra_latency_us) * 1e-6 +
         bytes / (f.nic_Bps_per_gpu * p.inter_node_efficiency * path.bw_share);
}

}  // namespace vtrain::detail
