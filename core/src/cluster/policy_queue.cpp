// What fifo and edf share: each job runs on the GPUs and plan it asked for, never resized, and
// a job that does not fit holds back the ones behind it (no backfilling).

#include "cluster/policies.hpp"

namespace vtrain::detail {

bool runs_as_asked(const ClusterState& state, int job) {
  const JobState& s = state.jobs[job];
  const CurvePoint* p = s.curve->at(s.spec->gpus);
  return p && p->usable && s.spec->gpus <= state.num_gpus;
}

void start_in_order(const ClusterState& state, const std::vector<int>& order, std::vector<int>& gpus) {
  int free = state.num_gpus;
  for (const JobState& s : state.jobs) free -= s.gpus;
  for (int i : order) {
    const JobState& s = state.jobs[i];
    if (s.phase != JobPhase::waiting || !s.admitted) continue;
    if (s.spec->gpus > free) break;
    gpus[i] = s.spec->gpus;
    free -= s.spec->gpus;
  }
}

}  // namespace vtrain::detail
