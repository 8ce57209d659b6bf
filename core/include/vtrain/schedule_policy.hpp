#pragma once
// The interface every cluster scheduling policy implements, and the table of policies.
// To add one: write a small unit with a class derived from SchedulingPolicy and add a line to
// core/src/cluster/policy_registry.cpp (or call register_scheduling_policy at start-up).

#include <memory>
#include <string>
#include <vector>

#include "vtrain/schedule.hpp"

namespace vtrain {

enum class JobPhase {
  pending,   // not arrived yet
  waiting,   // arrived and admitted (or being decided on), holding no GPUs
  running,   // holding GPUs
  finished,  // trained all its iterations
  rejected,  // the policy turned it away
};

// What a policy sees of one job.
struct JobState {
  const JobSpec* spec = nullptr;          // the job as the workload gives it
  const ThroughputCurve* curve = nullptr; // the curve of the plans the policy runs (its CurveKind)
  JobPhase phase = JobPhase::pending;
  bool admitted = false;                  // the policy took it
  bool started = false;                   // it has held GPUs before: a restart pays the pause
  double remaining_iterations = 0;        // iterations still to train (count, fractional while running)
  int gpus = 0;                           // GPUs it holds now (count)
  double resume_s = 0;                    // its progress starts (again) at this time, after a pause (s)
};

struct ClusterState {
  double now_s = 0;                       // (s)
  int num_gpus = 0;                       // GPUs of the cluster (count)
  int gpus_per_node = 8;                  // (count)
  double restart_pause_s = 60;            // what a resize of a started job costs (s)
  const std::vector<int>* counts = nullptr;  // allocation counts, ascending
  std::vector<JobState> jobs;             // every job of the workload, in workload order
};

class SchedulingPolicy {
 public:
  virtual ~SchedulingPolicy() = default;
  // Decides on a job that has just arrived (phase waiting, not yet admitted): true admits it,
  // false turns it away for good. Jobs arriving together are decided in workload order, each
  // seeing those admitted before it.
  virtual bool admit(const ClusterState& state, int job) = 0;
  // The GPUs each job holds from now on, one entry per job (`gpus` arrives holding what each
  // holds now). Only admitted, unfinished jobs may hold GPUs; each count is 0 or one of
  // state.counts; together at most num_gpus. Changing a started job's count costs it the pause.
  virtual void allocate(const ClusterState& state, std::vector<int>& gpus) = 0;
};

struct PolicyInfo {
  std::string name;          // as requests name it, e.g. "elasticflow-vtrain"
  std::string description;   // one line
  CurveKind curve = CurveKind::data_parallel;  // the plans its jobs run at each count
  std::unique_ptr<SchedulingPolicy> (*make)() = nullptr;  // a new instance for one run
};

// Every policy, in the order results show them.
const std::vector<PolicyInfo>& scheduling_policies();
const PolicyInfo* find_scheduling_policy(const std::string& name);
// Adds a policy (replacing one of the same name). Not thread-safe: call before scheduling.
void register_scheduling_policy(PolicyInfo info);

}  // namespace vtrain
