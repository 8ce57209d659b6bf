#include "hardware/operator_lookup.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace vtrain {

namespace {

using Point = OperatorLookup::Point;

// Sorted by x; points at the same x averaged.
std::vector<Point> merged(std::vector<Point> v) {
  std::sort(v.begin(), v.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
  std::vector<Point> out;
  int same = 0;
  for (const Point& p : v) {
    if (!out.empty() && out.back().x == p.x) {
      ++same;
      out.back().time_s += (p.time_s - out.back().time_s) / same;
    } else {
      out.push_back(p);
      same = 1;
    }
  }
  return out;
}

// Linear between the measured points that bracket x (strictly inside the range; the ends are
// exact matches, found before). Returns the bracket's width relative to x, or -1 outside.
double between(const std::vector<Point>& v, double x, double& time_s) {
  if (v.size() < 2 || x <= v.front().x || x >= v.back().x) return -1;
  const auto hi = std::lower_bound(v.begin(), v.end(), x, [](const Point& p, double y) { return p.x < y; });
  const auto lo = hi - 1;
  if (hi->x == x) {
    time_s = hi->time_s;
    return 0;
  }
  const double w = (x - lo->x) / (hi->x - lo->x);
  time_s = lo->time_s + w * (hi->time_s - lo->time_s);
  return (hi->x - lo->x) / x;
}

// A dimension as the table's whole number; false when the kernel's is not one.
bool whole(double v, long long& out) {
  if (!(v >= 1) || v > 9e15 || v != std::floor(v)) return false;
  out = static_cast<long long>(v);
  return true;
}

}  // namespace

void index_operator_table(Profile& p) {
  if (p.operator_table.empty()) {
    p.operator_lookup.reset();
    return;
  }
  auto t = std::make_shared<OperatorLookup>();
  std::map<std::vector<long long>, std::vector<double>> exact;  // averaged when listed twice
  std::vector<Point> memory;
  for (const OperatorMeasurement& m : p.operator_table) {
    const double s = m.time_us * 1e-6;
    if (m.op == MeasuredOp::memory) {
      if (m.bytes > 0) memory.push_back({m.bytes, s});
      continue;
    }
    exact[{static_cast<long long>(m.op), m.m, m.n, m.k, m.batch}].push_back(s);
  }
  std::unordered_map<OperatorLookup::Key, std::vector<Point>, OperatorLookup::KeyHash> along[4];
  for (const auto& [key, times] : exact) {
    double mean = 0;
    for (double s : times) mean += s / times.size();
    const OperatorLookup::Key k{key[0], key[1], key[2], key[3], key[4]};
    t->exact[k] = mean;
    const long long dims[4] = {k.m, k.n, k.k, k.batch};
    for (int free = 0; free < 4; ++free) {
      long long d[4] = {k.m, k.n, k.k, k.batch};
      d[free] = 0;
      along[free][{k.op, d[0], d[1], d[2], d[3]}].push_back({static_cast<double>(dims[free]), mean});
    }
  }
  for (int free = 0; free < 4; ++free)
    for (auto& [key, points] : along[free])
      if (points.size() >= 2) t->along[free][key] = merged(std::move(points));
  t->memory = merged(std::move(memory));
  p.operator_lookup = std::move(t);
}

namespace detail {

bool table_time(const OperatorLookup& t, MeasuredOp op, double m, double n, double k, double batch, double& time_s,
                TimeSource& source) {
  long long d[4];
  if (!whole(m, d[0]) || !whole(n, d[1]) || !whole(k, d[2]) || !whole(batch, d[3])) return false;
  const long long o = static_cast<long long>(op);
  if (auto it = t.exact.find({o, d[0], d[1], d[2], d[3]}); it != t.exact.end()) {
    time_s = it->second;
    source = TimeSource::measured;
    return true;
  }
  double best_width = -1, best_time = 0;
  for (int free = 0; free < 4; ++free) {
    if (t.along[free].empty()) continue;
    long long key[4] = {d[0], d[1], d[2], d[3]};
    key[free] = 0;
    const auto it = t.along[free].find({o, key[0], key[1], key[2], key[3]});
    if (it == t.along[free].end()) continue;
    double s = 0;
    const double width = between(it->second, static_cast<double>(d[free]), s);
    if (width >= 0 && (best_width < 0 || width < best_width)) best_width = width, best_time = s;
  }
  if (best_width < 0) return false;
  time_s = best_time;
  source = TimeSource::interpolated;
  return true;
}

bool table_memory_time(const OperatorLookup& t, double bytes, double& time_s, TimeSource& source) {
  const std::vector<Point>& v = t.memory;
  if (v.empty() || bytes < v.front().x || bytes > v.back().x) return false;
  const auto hi = std::lower_bound(v.begin(), v.end(), bytes, [](const Point& p, double y) { return p.x < y; });
  if (hi->x == bytes) {
    time_s = hi->time_s;
    source = TimeSource::measured;
    return true;
  }
  double s = 0;
  if (between(v, bytes, s) < 0) return false;
  time_s = s;
  source = TimeSource::interpolated;
  return true;
}

}  // namespace detail
}  // namespace vtrain
