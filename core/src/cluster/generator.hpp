#pragma once
// The seeded synthetic workload generator.

#include <vector>

#include "vtrain/schedule.hpp"

namespace vtrain::detail {

// The generator's default mix: the request sizes of the 195-job ITP trace in their proportions,
// each with the LLM `mapping` gives that size.
std::vector<GeneratorMixEntry> default_generator_mix(const TraceMapping& mapping);

// Jobs sized by duration (duration_s, deadline_factor), resolved later like mapped trace jobs.
// `g.mix` must not be empty; `mix_given`: it is the request's /workload/generate/mix, which errors
// then name. The same settings give the same jobs on every platform.
std::vector<JobSpec> generate_jobs(const GeneratorSettings& g, const PlanConfig& shared_plan, bool mix_given);

}  // namespace vtrain::detail
