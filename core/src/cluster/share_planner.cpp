#include "cluster/share_planner.hpp"

#include <algorithm>

namespace vtrain::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// When the job finishes holding at most `cap` GPUs in each segment of `free` (infinity: never).
// With `take`, the GPUs it holds are taken from `free` up to then.
double walk(const ShareJob& job, int cap, double now_s, double pause_s, FreeGpus& free, bool take) {
  const ThroughputCurve& c = *job.curve;
  int held = job.gpus;
  bool ran = job.started;
  double resume = held > 0 ? std::max(now_s, job.resume_s) : now_s;
  double left = job.remaining_iterations;
  for (size_t k = 0; k < free.segments(); ++k) {
    const double s = free.start(k), e = free.end(k);
    const int a = level_at_most(c, std::min(cap, free.free(k)));
    if (a != held) {
      // A change of GPUs restarts a job that has run from its checkpoint.
      if (a > 0) resume = ran ? s + pause_s : s;
      held = a;
      ran = ran || a > 0;
    }
    if (a == 0) continue;
    const double t_it = c.at(a)->iteration_time_s;
    const double from = std::max(s, resume);
    double finish = kInf;
    if (from < e || e == kInf) {
      const double need = left * t_it;
      if (from + need <= e) finish = from + need;
      else left -= (e - from) / t_it;
    }
    if (take) {
      if (finish < e) free.split(finish);
      free.take(k, a);
    }
    if (finish < kInf) return finish;
  }
  return kInf;
}

}  // namespace

void FreeGpus::split(double t) {
  auto it = std::upper_bound(time_s_.begin(), time_s_.end(), t);
  const size_t k = static_cast<size_t>(it - time_s_.begin());
  if (k == 0 || time_s_[k - 1] == t) return;
  time_s_.insert(time_s_.begin() + k, t);
  free_.insert(free_.begin() + k, free_[k - 1]);
}

int level_at_most(const ThroughputCurve& c, int gpus) {
  int best = 0;
  for (int i : c.levels) {
    if (c.points[i].gpus > gpus) break;
    best = c.points[i].gpus;
  }
  return best;
}

Share plan_share(const ShareJob& job, double now_s, double pause_s, FreeGpus& free) {
  Share out;
  const ThroughputCurve& c = *job.curve;
  if (c.levels.empty() || job.remaining_iterations <= 0) return out;
  auto finish_with = [&](int level) {
    return walk(job, c.points[c.levels[level]].gpus, now_s, pause_s, free, false);
  };
  // More GPUs never finish later, but for the pause a change costs: the fewest that meet the
  // deadline are searched for, and what the job holds now, which costs no pause, is one more try.
  const int last = static_cast<int>(c.levels.size()) - 1;
  int cap = 0;
  if (finish_with(last) <= job.deadline_s) {
    int lo = 0, hi = last;
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (finish_with(mid) <= job.deadline_s) hi = mid;
      else lo = mid + 1;
    }
    cap = c.points[c.levels[lo]].gpus;
  }
  if (job.gpus > 0 && (cap == 0 || cap > job.gpus) &&
      walk(job, job.gpus, now_s, pause_s, free, false) <= job.deadline_s)
    cap = job.gpus;
  if (cap == 0) return out;
  out.meets_deadline = true;
  out.gpus_now = level_at_most(c, std::min(cap, free.free(0)));
  out.finish_s = walk(job, cap, now_s, pause_s, free, true);
  return out;
}

}  // namespace vtrain::detail
