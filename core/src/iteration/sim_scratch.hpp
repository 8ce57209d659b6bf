#pragma once
// Memoized parts of simulate() for sweeps over many plans of one model on one cluster (the
// explorer's inner loop). Every reused value is one simulate() would compute again from equal
// inputs, so results are bit-identical with or without a scratch. One scratch per thread.

#include <cstddef>
#include <vector>

#include "iteration/communication.hpp"
#include "iteration/kernels.hpp"
#include "iteration/pipeline.hpp"
#include "vtrain/simulate.hpp"

namespace vtrain {

struct SimScratch {
  // Timed kernels per plan, keyed by the plan without the fields that cannot change a kernel
  // (see kernel_key); valid for `model`, `cluster` and `profile` only. The cluster's GPU count,
  // tp x pp x dp, places the tensor-parallel groups on nodes, so pp and dp may leave the key.
  struct KernelEntry {
    PlanConfig key;
    detail::LayerKernels kernels;
  };
  ModelConfig model;
  ClusterConfig cluster;
  const Profile* profile = nullptr;
  std::vector<KernelEntry> kernels;  // most recently used first
  std::size_t kernel_capacity = 32;

  // Block orders of the last pipeline shapes (stages, chunks, micro-batches), most recent first.
  std::vector<detail::PipelineOrder> orders;
  std::size_t order_capacity = 4;

  // The last pipeline simulated: plans that differ only in ZeRO stage, or in a recompute setting
  // that adds no kernel, run the same pipeline.
  detail::PipelineInput last_input;
  detail::PipelineOutcome last_outcome;
  bool has_last = false;

  long long pipelines_run = 0;     // pipeline simulations performed (count)
  long long pipelines_reused = 0;  // pipeline simulations answered from the last one (count)
};

// simulate() with memoized kernels and pipeline; `scratch` may be null.
Outcome<SimResult> simulate(const SimConfig& config, const Profile* profile, SimScratch* scratch);

namespace detail {

// The kernels of `config`'s plan, timed on `prof`: from the scratch when it holds them (or, with
// no scratch, built into `own`).
const LayerKernels& timed_kernels(const SimConfig& config, const Profile& prof, const Fabric& fabric,
                                  const PlanGroups& groups, const RingPlace& ring, SimScratch* scratch,
                                  LayerKernels& own);

// The pipeline outcome of `in`: the scratch's last one when its input was equal (or, with no
// scratch, simulated into `own`).
const PipelineOutcome& run_pipeline(const PipelineInput& in, SimScratch* scratch, PipelineOutcome& own);

}  // namespace detail
}  // namespace vtrain
