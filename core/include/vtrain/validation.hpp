#pragma once
// Measured iteration times (the CSV format of vTrain's published measurements) and the accuracy of
// the simulator against them.

#include <string>
#include <string_view>
#include <vector>

#include "vtrain/config.hpp"
#include "vtrain/diagnostics.hpp"
#include "vtrain/profile.hpp"
#include "vtrain/registry.hpp"

namespace vtrain {

struct MeasuredRun {
  int line = 0;                 // line in the file (1-based, header is line 1)
  double params_billion = 0;    // model size column where the file has one (billions)
  int num_gpus = 0;             // GPUs (count)
  int global_batch = 0;         // sequences per iteration
  int micro_batch = 0;          // sequences per micro-batch
  int hidden = 0;               // model width
  int heads = 0;                // attention heads
  int layers = 0;               // transformer layers
  int seq_len = 0;              // tokens per sequence
  int tp = 1, dp = 1, pp = 1;   // parallel degrees
  double measured_ms = 0;       // measured iteration time (ms), or the layer time where layer_time
  bool layer_time = false;      // the file's "layer time (ms)": one transformer layer's forward and
                                // backward pass (recomputation included) for one micro-batch
  // Optional columns, for runs set up otherwise than the validation setup says:
  int vocab = 0;                // "vocabulary" (entries); 0: the setup's
  int virtual_stages = 1;       // "virtual pipeline stages": model chunks per stage (interleaved 1F1B)
  int cp = 1;                   // "context parallelism": ranks each sequence is split over (GPUs); its
                                // "# GPUs" is tensor x context x data x pipeline parallelism
  bool has_recompute = false;   // the file has a "recompute" column
  Recompute recompute = Recompute::full;  // "recompute": none, selective or full
  bool sequence_parallel = false;         // "sequence parallelism": yes or no
  double inter_node_Gbps = 0;   // "inter-node bandwidth (Gbit/s)" of a node's network; 0: the setup's
  bool has_placement = false;   // the file has a "placement" column
  Placement placement = Placement::tp_dp_pp;  // "placement": the order of the ranks, innermost first
  bool has_network = false;     // the file describes the fabric (any of the columns below)
  NetworkConfig network;        // "topology", "nodes per leaf", "nodes per pod", "oversubscription" and
                                // "core oversubscription": the cluster's fabric (docs/large-scale.md)
  int tp_async_backward = -1;   // "async tensor-parallel backward": 1 yes, 0 no, -1 the setup's
  int dp_overlap = -1;          // "data-parallel overlap": 1 yes, 0 no, -1 the setup's
  bool tp_comm_overlap = false; // "tensor-parallel overlap": yes where Transformer Engine's userbuffers ran
  bool p2p_overlap = false;     // "pipeline send overlap": yes where the pipeline sends ran beside compute
  int grad_accumulation_fusion = -1;  // "gradient accumulation fusion": 1 yes, 0 no, -1 the setup's
  bool has_precision = false;   // the file has a "precision" column
  Precision precision = Precision::fp16;  // "precision": fp16 or bf16 (bf16 keeps fp32 gradients)
  int zero_stage = -1;          // "ZeRO stage": 0 to 3 (1: optimizer states split over dp; 2: gradients
                                // too; 3: parameters too, as FSDP FULL_SHARD); -1 the setup's (0)
  int shard_group = 0;          // "shard group": ranks the states are sharded over (HSDP); 0: all of dp
  int ep = 1;                   // "expert parallelism": a mixture of experts' expert-parallel degree
  int etp = 0;                  // "expert tensor parallelism": its expert tensor-parallel degree; 0: tp
  double capacity_factor = -1;  // "capacity factor": the MoE layers' (0: dropless); -1: the model preset's
  bool grad_reduce_fp32 = true; // "gradient reduction in fp32": no where gradients are reduced in bf16
  bool recompute_gather = false;  // "recompute gather": yes where recomputation gathers the parameters again
  bool reshard_after_forward = true;  // "reshard after forward": no for FSDP SHARD_GRAD_OP
  bool shard_flat_ring = false; // "flat ring": yes where the sharded collectives are one flat ring
  bool shard_device_sync = false; // "device sync": yes where the host synchronizes the device before each unit
  bool moe_permute_sync = false;  // "permute sync": yes where the MoE token permutations make the host wait
  bool has_attention = false;   // the file has an "attention" column
  Attention attention = Attention::unfused;  // "attention": flash, unfused or triton
  bool zero_all_reduce = false; // "ZeRO gradient all-reduce": yes where ZeRO-1 all-reduces the gradients whole
  bool launch_blocking = false; // "launch blocking": yes where the run set CUDA_LAUNCH_BLOCKING=1
  bool fused_elementwise = true; // "fused elementwise": no where norms, rotary and activation ran as eager PyTorch
  bool embedding_as_layer = false; // "embedding as layer": yes where the pipeline split counted the embedding as a layer
  bool head_as_layer = false;      // "head as layer": yes where it counted the output layer and loss as one
  bool held_out = false;           // "held out": yes for a published run no calibration may fit (`vtrain calibrate --gpu`
                                   // skips it), kept to check the fitted profile
  bool has_position = false;    // the file has a "position embedding" column
  PositionEmbedding position = PositionEmbedding::learned;  // "position embedding": learned, rope or alibi
  std::string gpu;              // "GPU": the profile the run was measured on; empty: the setup's
  std::string model;            // "model": a preset (e.g. llama3-70b) whose shape (MLP, norm, kv heads,
                                // MLP width, vocabulary, biases, tied embeddings, positions) the run
                                // has; the file's columns give its layers, width, heads and sequence;
                                // empty: a GPT model
};

// Parses the CSV text (header names as published; a UTF-8 byte-order mark is allowed). In place of
// "iteration time (ms)" a file may measure "layer time (ms)": the time of one transformer layer's
// forward and backward pass, as papers that time a layer report it. Errors name
// the line and column, e.g. pointer "/line/12/hidden size". Besides vTrain's columns a file may
// have the setting columns below and "source" (free text without commas, not read). Other columns
// are not read either: unread_columns() names them, so that a misspelt setting can be reported.
Outcome<std::vector<MeasuredRun>> parse_measurements(std::string_view csv_text);

// The optional columns that set a run up: "vocabulary", "virtual pipeline stages", "recompute"
// (none, selective, full), "sequence parallelism" (yes, no), "inter-node bandwidth (Gbit/s)",
// "async tensor-parallel backward" (yes, no: Megatron-LM's input-gradient collective beside the
// weight-gradient GEMM), "precision" (fp16, bf16), "data-parallel overlap" (yes, no: the gradient
// all-reduce runs beside the last micro-batch's backward, as PyTorch DDP's buckets do),
// "gradient accumulation fusion" (yes, no: the weight-gradient GEMMs add into the gradient buffer
// themselves; no: each micro-batch's weight gradients are added to it by a separate kernel),
// "ZeRO stage" (0, 1: the optimizer states split over the data-parallel ranks), "launch blocking"
// (yes, no: CUDA_LAUNCH_BLOCKING=1, every kernel launch waits for the kernel to finish),
// "position embedding" (learned, rope, alibi), "ZeRO gradient all-reduce" (yes, no: with ZeRO
// stage 1 the gradients are all-reduced whole, as DeepSpeed's bf16 optimizer does), "ZeRO stage"
// also 2 and 3 (docs/sharded-data-parallel.md), "shard group" (a whole number dividing the data-
// parallel degree: hybrid sharding), "reshard after forward" (yes, no: FSDP SHARD_GRAD_OP),
// "recompute gather" (yes, no: DeepSpeed ZeRO-3 gathers a layer's parameters for its recomputation
// too), "flat ring" (yes, no: its collectives are one flat ring over the data-parallel ranks),
// "device sync" (yes, no: the host synchronizes the whole device before each unit's compute, as
// DeepSpeed ZeRO-3 v0.3.13 to v0.5.x does), "permute sync" (yes, no: a MoE layer's token
// permutation and unpermutation make the host wait for the GPU, as Megatron-Core 0.10's do), "attention" (flash, unfused, triton: the stack's attention kernels), "GPU" (a bundled profile's name) and "model" (a model preset's name: its shape but for the columns' sizes).
const std::vector<std::string>& measurement_setting_columns();

// Header cells that parse_measurements does not know (neither vTrain's columns nor the optional ones).
std::vector<std::string> unread_columns(std::string_view csv_text);

// The published measurements compiled into the library (profiles/published/*.csv, whose README
// says where each number comes from), so that calibrate checks a fit against them anywhere.
struct PublishedMeasurements {
  std::string name;      // the file's stem, e.g. "megatron-a100"
  std::string path;      // where it is in the repository, e.g. "profiles/published/megatron-a100.csv"
  std::string csv_text;  // the file (parse_measurements reads it)
};

const Registry<PublishedMeasurements>& published_measurements();

// How the measured runs were set up (Megatron-DeepSpeed GPT runs, as their configurations state).
struct ValidationSetup {
  std::string gpu = "a100-sxm4-80gb";  // profile
  int gpus_per_node = 8;               // GPUs per node (count)
  double intra_node_GBps = 0;          // 0: the profile's (GB/s)
  double inter_node_Gbps = 800;        // per-node network bandwidth (Gbit/s)
  int vocab = 50257;                   // vocabulary (entries)
  Recompute recompute = Recompute::full;
  Attention attention = Attention::unfused;
  Precision precision = Precision::fp16;
  bool dp_overlap = false;             // no gradient bucketing: reduction after the backward pass
  bool tp_async_backward = false;      // the Megatron-DeepSpeed of those runs has no asynchronous TP backward
  bool grad_accumulation_fusion = true;  // weight-gradient GEMMs accumulate into the gradient buffer
};

SimConfig config_for_run(const MeasuredRun& run, const ValidationSetup& setup);

struct ValidationRow {
  MeasuredRun run;
  double predicted_ms = 0;
  double error_percent = 0;     // (predicted - measured) / measured x 100
  // What the simulator noted of the run as set up: uneven pipeline stages, or a plan it finds does
  // not fit in memory (the run did, so the file leaves out a setting that saves memory).
  std::vector<std::string> notes;
};

struct ValidationReport {
  std::vector<ValidationRow> rows;
  double mape_percent = 0;      // mean of |error_percent|
  double max_abs_error_percent = 0;
};

// Simulates every run with `profile` (nullptr: the bundled one named by setup.gpu).
Outcome<ValidationReport> validate_runs(const std::vector<MeasuredRun>& runs, const ValidationSetup& setup,
                                        const Profile* profile = nullptr);

// Runs that share the values of some columns (e.g. tensor parallelism and micro-batch), with how
// far off they are together: where a model is wrong for a reason, its runs err alike.
struct ErrorGroup {
  std::vector<int> key;               // the columns' values, in the order asked
  int runs = 0;                       // runs in the group (count)
  double mean_error_percent = 0;      // mean signed error: the group's bias (%)
  double mape_percent = 0;            // mean absolute error of its runs (%)
  double max_abs_error_percent = 0;   // its worst run (%)
  double share_of_error_percent = 0;  // its part of the report's summed absolute error (%)
  // MAPE left once the group's predictions are scaled by the one factor that fits it best: the
  // scatter a cause shared by the whole group cannot explain (%)
  double scatter_mape_percent = 0;
};

// Column names a report can be grouped by.
const std::vector<std::string>& error_group_columns();

// Groups the report's runs by `columns` (names from error_group_columns()), largest share of the
// error first. An unknown or repeated column is an error naming it (pointer "/by/<i>").
Outcome<std::vector<ErrorGroup>> group_errors(const ValidationReport& report, const std::vector<std::string>& columns);

// The iteration time of runs that differ only in layers (L) and micro-batches per iteration (M),
// split by least squares as
//   time = M x L x per_layer_microbatch + M x per_microbatch + L x per_layer + per_iteration,
// once for the measured times and once for the predicted ones. With pipeline parallelism 1 the
// simulator's times follow this form exactly, so a measured part far from its predicted twin says
// which part of the model is off: the layers, the embedding and head, or the optimizer step.
struct TimeParts {
  double per_layer_microbatch_ms = 0;  // one layer's forward, recomputation and backward, one micro-batch
  double per_microbatch_ms = 0;        // embedding, head and loss, and per-step host work (ms)
  double per_layer_ms = 0;             // one layer's optimizer update and gradient all-reduce (ms)
  double per_iteration_ms = 0;         // the rest: embedding tables' update, fixed costs (ms)
  double max_residual_percent = 0;     // the run farthest from the split (% of its time)
};

struct TimeDecomposition {
  int hidden = 0, heads = 0, seq_len = 0, tp = 1, dp = 1, micro_batch = 1;  // what the runs share
  int runs = 0;                        // runs in the group (count)
  TimeParts measured, predicted;
};

// One entry per group of pipeline-parallel-1 runs with enough variety in L and M to separate the
// four parts (at least six runs); other runs are left out.
std::vector<TimeDecomposition> decompose_times(const ValidationReport& report);

// Two runs set up alike (the same parallel plan, layers, micro-batches per iteration and settings)
// where one does at least the other's work kernel by kernel (the simulator's kernel lists compared
// element by element: every GEMM dimension, byte count and collective size at least as large, and
// at least as many parameters) yet was measured faster. A simulator whose time never falls as work
// grows cannot fit both runs: together they cost it at least the shortfall in absolute error.
struct Contradiction {
  int less_work_line = 0, more_work_line = 0;  // lines in the file
  double less_work_ms = 0, more_work_ms = 0;   // measured iteration times (ms)
  double shortfall_percent = 0;                // (less_work_ms - more_work_ms) / less_work_ms x 100 (%)
};

struct ContradictionReport {
  std::vector<Contradiction> pairs;  // largest shortfall first
  int runs_compared = 0;             // runs with at least one alike run to compare with (count)
  int runs_in_pairs = 0;             // runs in at least one contradiction (count)
  int predicted_in_order = 0;        // pairs whose run with more work the simulator predicts no faster (count)
  // Least MAPE any such simulator has on the report's runs: the shortfalls of pairs that share no
  // run, summed over all runs (a lower bound, %)
  double mape_floor_percent = 0;
};

// Compares every two runs of the report set up alike, with each run simulated as `setup` says.
ContradictionReport find_contradictions(const ValidationReport& report, const ValidationSetup& setup);

// Error against GPU count: does the simulator err more the larger the run? Each point is one run's
// signed error and GPU count, with the set it comes from (a file: one source, stack and model).
struct ScalePoint {
  std::string set;             // the run's set (e.g. its file name)
  int gpus = 0;                // the run's GPU count (count)
  double error_percent = 0;    // its signed error, (predicted - measured) / measured (%)
};

// A least-squares slope of the error against log2(GPUs), with its standard error and the half-width
// of its 95% interval (Student's t). A slope whose interval holds zero is no trend the runs show.
struct ScaleSlope {
  bool defined = false;                 // enough runs and GPU counts to fit (and to bound) a slope
  double points_per_doubling = 0;       // change of the error per doubling of the GPUs (% points)
  double stderr_points = 0;             // its standard error (% points)
  double ci95_points = 0;               // half-width of its 95% interval (% points)
  int degrees_of_freedom = 0;           // runs less the fitted intercepts and the slope (count)
};

struct ScaleTrend {
  int runs = 0;                // points given (count)
  int sets = 0;                // distinct sets among them (count)
  // One line through all runs: a set that is off at every scale and happens to sit at the large
  // end tilts it, whatever the scale does.
  ScaleSlope pooled;
  double correlation = 0;      // Pearson's r of error and log2(GPUs) over all runs
  // One slope with an intercept per set (least squares within each set): how each source's own
  // error moves as its runs grow, its level (the stack's or the model's bias) taken out.
  ScaleSlope within_sets;
};

// The slopes of `points`; a slope is undefined where its runs do not span two GPU counts or leave
// no degree of freedom to bound it. A point with fewer than 1 GPU or an error that is not a finite
// number is an error naming it ("/<i>/gpus", "/<i>/error_percent").
Outcome<ScaleTrend> fit_scale_trend(const std::vector<ScalePoint>& points);

// Student's t quantile for a two-sided 95% interval with `dof` degrees of freedom (>= 1); exact
// for 1 and 2, a Cornish-Fisher series beyond (within 0.004 at 3, 0.001 from 4 on).
double student_t_975(int dof);

}  // namespace vtrain
