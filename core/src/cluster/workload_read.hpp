#pragma once
// Readers of job lists: a JSON array of jobs, a CSV with one job a row, or a trace in
// ElasticFlow's CSV format mapped to LLM jobs. Each error names the job's pointer, or the CSV's
// line and column.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vtrain/schedule.hpp"

namespace vtrain::detail {

// Largest workload a request may hold (count): the ElasticFlow policies plan every admitted job
// against every other at each event.
inline constexpr int kMaxJobs = 5000;

// Reads one job object found at `pointer` (e.g. "/workload/jobs/3").
void read_job_object(const nlohmann::json& j, const std::string& pointer, const ClusterConfig& cluster, JobSpec& job,
                     Diagnostics& errors);

// Reads a JSON array of job objects found at `pointer`.
void read_job_list(const nlohmann::json& list, const std::string& pointer, const ClusterConfig& cluster,
                   std::vector<JobSpec>& jobs, Diagnostics& errors);

// Reads a CSV job list found at `pointer` (as text): the columns of a job object, or the ITP
// trace's columns, which `mapping` turns into LLM jobs.
void read_job_csv(const std::string& text, const std::string& pointer, const ClusterConfig& cluster,
                  const TraceMapping& mapping, std::vector<JobSpec>& jobs, Diagnostics& errors);

// Reads a trace mapping's overrides of the default (found at `pointer`).
void read_trace_mapping(const nlohmann::json* j, const std::string& pointer, TraceMapping& mapping,
                        Diagnostics& errors);

// Reads generator settings (found at `pointer`).
void read_generator_settings(const nlohmann::json* j, const std::string& pointer, const ClusterConfig& cluster,
                             GeneratorSettings& settings, Diagnostics& errors);

// Checks what holds between jobs (unique ids) and orders them by arrival, ties in list order.
void finish_job_list(std::vector<JobSpec>& jobs, const std::string& pointer, Diagnostics& errors);

// A model given as a preset name or an object, read alone; errors name `pointer`.
bool read_model(const nlohmann::json& j, const std::string& pointer, ModelConfig& model, Diagnostics& errors);

}  // namespace vtrain::detail
