#pragma once
// ElasticFlow's minimum satisfactory share (Gu et al., ASPLOS'23, section 4): the jobs, in
// deadline order, each take the fewest GPUs with which it still finishes by its deadline, given
// the GPUs the jobs before it leave free over time. A job that cannot finish in time takes none.

#include <limits>
#include <vector>

#include "vtrain/schedule.hpp"

namespace vtrain::detail {

// Free GPUs over time from a start: free[k] on [time_s[k], time_s[k + 1]), the last forever.
class FreeGpus {
 public:
  FreeGpus(double now_s, int gpus) : time_s_{now_s}, free_{gpus} {}
  size_t segments() const { return time_s_.size(); }
  double start(size_t k) const { return time_s_[k]; }
  double end(size_t k) const {
    return k + 1 < time_s_.size() ? time_s_[k + 1] : std::numeric_limits<double>::infinity();
  }
  int free(size_t k) const { return free_[k]; }
  // Splits the segment holding `t` there (nothing when `t` starts a segment or lies beyond none).
  void split(double t);
  void take(size_t k, int gpus) { free_[k] -= gpus; }

 private:
  std::vector<double> time_s_;  // segment starts, ascending (s)
  std::vector<int> free_;       // free GPUs of each segment (count)
};

// One job as the planner sees it.
struct ShareJob {
  const ThroughputCurve* curve = nullptr;  // its iteration time at each count
  double remaining_iterations = 0;         // (count)
  double deadline_s = 0;                   // (s)
  int gpus = 0;                            // held now (count)
  bool started = false;                    // a change of its GPUs costs the pause
  double resume_s = 0;                     // its progress starts at this time (s)
};

struct Share {
  bool meets_deadline = false;  // some share finishes it in time
  int gpus_now = 0;             // GPUs it takes now (count)
  double finish_s = std::numeric_limits<double>::infinity();  // when, at that share (s)
};

// The largest level of `c` with at most `gpus` GPUs (its GPU count), or 0.
int level_at_most(const ThroughputCurve& c, int gpus);

// Plans `job` at its minimum satisfactory share within `free` from `now_s`; when it meets its
// deadline, what it holds is taken from `free`.
Share plan_share(const ShareJob& job, double now_s, double pause_s, FreeGpus& free);

}  // namespace vtrain::detail
