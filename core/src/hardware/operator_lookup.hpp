#pragma once
// A profile's measured operator times (operator_table) indexed once, when the profile is read, so
// that the simulator's inner loop looks a kernel up with a few hash probes and no allocation.
//
// A kernel's time comes from the table when:
// - its kind and shape were measured: that time ("measured");
// - two measured shapes of its kind differ from it in one dimension only (m, n, k or batch), one
//   below and one above: the time linear in that dimension between them ("interpolated"). The work
//   of a GEMM or an attention kernel is linear in each dimension, and its time, work over a rate
//   plus a fixed cost, is close to affine in it between two nearby shapes; where several such
//   pairs bracket it, the closest pair (relative to the kernel's dimension) is used;
// - memory-bound kernels: measured traffic below and above its bytes, the time linear in bytes
//   between them (bytes over a bandwidth plus a fixed launch cost). Several kernels timed at the
//   same traffic are averaged.
// Beyond the measured range the profile's model times the kernel.

#include <unordered_map>
#include <vector>

#include "vtrain/profile.hpp"

namespace vtrain {

namespace detail {
enum class TimeSource : unsigned char { modelled, measured, interpolated };
}  // namespace detail

struct OperatorLookup {
  struct Key {
    long long op, m, n, k, batch;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& x) const {
      size_t h = static_cast<size_t>(x.op) * 0x9E3779B97F4A7C15ull;
      for (long long v : {x.m, x.n, x.k, x.batch}) h = (h ^ static_cast<size_t>(v)) * 0x100000001B3ull + (h >> 29);
      return h;
    }
  };
  struct Point {
    double x = 0;       // the free dimension (elements) or bytes (B)
    double time_s = 0;  // (s)
  };
  std::unordered_map<Key, double, KeyHash> exact;  // time (s) by kind and shape
  // Shapes with one dimension free (set to 0 in the key): the measured points along it, sorted.
  std::unordered_map<Key, std::vector<Point>, KeyHash> along[4];  // free m, n, k, batch
  std::vector<Point> memory;  // memory-bound kernels by bytes, sorted, one point per bytes
};

namespace detail {

// The table's time for a kernel of kind `op` and shape (m, n, k, batch), seconds; false (and
// `source` left modelled) when the table has nothing for it.
bool table_time(const OperatorLookup& t, MeasuredOp op, double m, double n, double k, double batch, double& time_s,
                TimeSource& source);
// The same for a memory-bound kernel moving `bytes`.
bool table_memory_time(const OperatorLookup& t, double bytes, double& time_s, TimeSource& source);

}  // namespace detail
}  // namespace vtrain
