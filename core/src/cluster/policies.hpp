#pragma once
// The bundled scheduling policies, one unit each (see vtrain/schedule_policy.hpp).

#include <memory>
#include <vector>

#include "vtrain/schedule_policy.hpp"

namespace vtrain::detail {

std::unique_ptr<SchedulingPolicy> make_fifo_policy();
std::unique_ptr<SchedulingPolicy> make_edf_policy();
std::unique_ptr<SchedulingPolicy> make_elasticflow_policy();

// Shared by fifo and edf: starts waiting jobs on the GPUs they asked for, in `order`, as long as
// the next one fits; running jobs keep theirs.
void start_in_order(const ClusterState& state, const std::vector<int>& order, std::vector<int>& gpus);

// fifo and edf admit every job that its own GPUs can run.
bool runs_as_asked(const ClusterState& state, int job);

}  // namespace vtrain::detail
