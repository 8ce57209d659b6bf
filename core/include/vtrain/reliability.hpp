#pragma once
// Goodput: the wall-clock time a training run takes once failures, restarts and checkpoints are
// counted, from its ideal (failure-free) time. First-order checkpoint/restart model (Young 1974;
// Daly 2006): failures arrive at a constant rate, each costs the time to detect it and restart
// plus the work done since the last checkpoint (half an interval on average), and every interval
// of work is followed by a blocking checkpoint write.

namespace vtrain {

// The /reliability section of a config. Defaults: the failure rate of Llama 3 405B's pre-training
// (419 unexpected interruptions in a 54-day snapshot on 16,384 H100 GPUs, Llama Team, "The Llama 3
// Herd of Models", arXiv 2407.21783, section 3.3.4) and its storage's sustained bandwidth (Tectonic,
// 2 TB/s, same section). The restart time is not published for that run: 15 minutes is an
// assumption, PyTorch's timeout of a hung NCCL collective (10 minutes by default in recent releases)
// plus a few minutes to reschedule, initialize and load the checkpoint; set it for your stack.
struct ReliabilityConfig {
  double failures_per_gpu_hour = 419.0 / (54.0 * 24.0 * 16384.0);  // unexpected job interruptions per
                                                                    // GPU-hour (1/h); 0: none
  double node_mtbf_hours = 0;       // mean time between failures of one node (h); > 0 replaces the rate above
  double restart_minutes = 15;      // from a failure to training again: detection, rescheduling,
                                    // re-initialization and checkpoint load (min)
  double checkpoint_GB = 0;         // size of one checkpoint (GB); 0: from the model (16-bit weights,
                                    // fp32 master weights and Adam moments, 14 bytes a parameter)
  double storage_GBps = 2000;       // aggregate write bandwidth of the checkpoint storage (GB/s)
  double checkpoint_interval_minutes = 0;  // training time between checkpoints (min); 0: optimal
  bool operator==(const ReliabilityConfig&) const = default;
};

// Bytes of checkpoint per parameter when the config does not give its size: bf16/fp16 weights (2),
// fp32 master weights (4) and Adam's two moments (4 + 4).
inline constexpr double kCheckpointBytesPerParam = 14.0;

// Expected time of a run and where the time beyond the ideal goes. The parts add up:
// expected_days = ideal_days + checkpoint_days + lost_work_days + restart_days.
struct Goodput {
  bool finite = true;            // false: failures come faster than the run can progress (no finite time)
  double ideal_days = 0;         // training time with no failure and no checkpoint (days)
  double expected_days = 0;      // expected wall-clock time (days)
  double checkpoint_days = 0;    // writing checkpoints (days)
  double lost_work_days = 0;     // work redone since the last checkpoint, all failures (days)
  double restart_days = 0;       // detection and restart, all failures (days)
  double lost_share = 0;         // (expected - ideal) / expected (fraction of wall-clock time)
  double failures = 0;           // expected failures during the run (count)
  double job_mtbf_hours = 0;     // mean time between failures of the whole job (h); 0: no failures
  double checkpoint_GB = 0;      // size of one checkpoint (GB)
  double checkpoint_write_s = 0; // time to write one (s)
  double checkpoint_interval_minutes = 0;  // training time between checkpoints, as used (min)
  bool interval_optimal = true;  // the interval is the optimal one (the config left it at 0)
};

// Failures per hour of a job on `num_gpus` GPUs in nodes of `gpus_per_node` (1/h).
double job_failure_rate_per_hour(const ReliabilityConfig& r, int num_gpus, int gpus_per_node);

// The checkpoint interval (s of training) that minimizes the expected overhead below for a write
// of `write_s` and a job MTBF of `mtbf_s` with `restart_s` per failure: sqrt(C^2 + 2C(M - R)) - C,
// Young's sqrt(2CM) when C and R are small against M. Infinite when there are no failures.
double optimal_checkpoint_interval_s(double write_s, double mtbf_s, double restart_s);

// Expected wall-clock time over ideal time minus 1 for an interval `interval_s` (fraction); infinite
// when the run makes no progress.
double expected_overhead(double interval_s, double write_s, double mtbf_s, double restart_s);

// The goodput of a run of `ideal_s` seconds of training on `num_gpus` GPUs of a model of
// `parameters` parameters.
Goodput goodput(const ReliabilityConfig& r, double ideal_s, double parameters, int num_gpus, int gpus_per_node);

}  // namespace vtrain
