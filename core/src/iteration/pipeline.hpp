#pragma once
// Event simulation of one iteration's pipeline (vTrain's Algorithm 1 at block granularity): each
// stage has a compute stream and a send stream per direction; a block starts when its stream is
// free and its input has arrived. Cost grows with stages x chunks x micro-batches only.

#include <cstdint>
#include <vector>

namespace vtrain::detail {

// GPU time of one forward or backward block split into parts (seconds); parts sum to duration.
struct BlockProfile {
  double duration = 0;
  double forward = 0, backward = 0, recompute = 0, tp_comm = 0, host = 0;
  double cp_comm = 0;  // context-parallel K/V exchange that outlasts the attention beside it
  double dp_comm = 0;  // waiting for a sharded layer's all-gather or reduce-scatter (ZeRO-3)
  // Sharded parameters: when the block's collectives run on the communication stream, from the
  // first one's start to the last one's end, from the block's start (s; both 0 without sharding).
  double shard_from = 0, shard_to = 0;
  bool operator==(const BlockProfile&) const = default;
};

enum class ScheduleBlock : unsigned char { forward, recompute, backward, pp_send };

struct RecordedBlock {
  ScheduleBlock kind;
  int micro_batch;
  int chunk;
  double start_s;
  double duration_s;
};

struct PipelineInput {
  int stages = 1;          // p
  int chunks = 1;          // virtual stages per stage, v
  int micro_batches = 1;   // m
  // Blocks of (stage s, chunk c) at index s * chunks + c.
  std::vector<BlockProfile> fwd, bwd;
  // Transfer time of an activation (or its gradient) leaving stage s forward (to s+1, or from the
  // last stage to the first for interleaved chunks) and backward (to s-1).
  std::vector<double> send_fwd_s, send_bwd_s;
  bool blocking_sends = true;  // the sender's compute stream waits for its send to finish
  bool record = false;         // keep the per-stage block list
  bool operator==(const PipelineInput&) const = default;
};

struct StageOutcome {
  double compute_end = 0;   // when the stage's stream is free after its last block (s)
  double busy_forward = 0, busy_backward = 0, busy_recompute = 0, busy_tp_comm = 0, busy_host = 0;
  double busy_cp_comm = 0;  // exposed context-parallel ring exchange (s)
  double busy_dp_comm = 0;  // blocks waiting for sharded parameters' collectives (s)
  double bubble = 0;        // idle waiting for upstream compute (s)
  double pp_comm = 0;       // idle waiting for a transfer in flight, or blocked sending (s)
  std::vector<double> last_bwd_start, last_bwd_end;  // per chunk: last backward block (s)
  std::vector<RecordedBlock> blocks;
};

struct PipelineOutcome {
  std::vector<StageOutcome> stages;
  bool ok = true;  // false only on an internal scheduling bug (deadlock)
};

// An order of one iteration's blocks in which every block comes after the block producing its
// input, each stage's blocks in their 1F1B order: the stage of each block. It depends on the
// shape (stages, chunks, micro-batches) only, so simulations of one shape can share it.
struct PipelineOrder {
  int stages = 0, chunks = 0, micro_batches = 0;
  std::vector<std::uint32_t> stage;  // per block, in order
  bool ok = true;                    // false only on an internal scheduling bug (deadlock)
};

// Runs the 1F1B (chunks == 1) or interleaved 1F1B schedule, finding which block can run next as
// it goes; with `order`, also records the order in which the blocks ran.
void simulate_pipeline(const PipelineInput& in, PipelineOutcome& out, PipelineOrder* order = nullptr);
// The same along a recorded order of the input's shape, with no searching.
void simulate_pipeline(const PipelineInput& in, const PipelineOrder& order, PipelineOutcome& out);

// Order of blocks on one stage: (is_backward, chunk, micro_batch) for position `k`.
struct ScheduledTask {
  bool backward;
  int chunk;
  int micro_batch;
};
std::vector<ScheduledTask> stage_order(int stage, int stages, int chunks, int micro_batches);

}  // namespace vtrain::detail
