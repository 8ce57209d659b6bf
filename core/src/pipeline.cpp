#include "pipeline.hpp"

#include <algorithm>
#include <cstdint>

namespace vtrain::detail {

namespace {

// Megatron's ordering of micro-steps: forward micro-step k of stage s runs chunk (k / p) % v on
// micro-batch (k / (p v)) p + k % p; backward runs the chunks in reverse.
ScheduledTask micro_step(bool backward, int k, int p, int v) {
  if (v == 1) return {backward, 0, k};
  int chunk = (k / p) % v;
  if (backward) chunk = v - 1 - chunk;
  const int mb = (k / (p * v)) * p + k % p;
  return {backward, chunk, mb};
}

int warmup_steps(int stage, int p, int v, int m) {
  const int total = m * v;
  const int w = v == 1 ? p - stage - 1 : (p - stage - 1) * 2 + (v - 1) * p;
  return std::min(w, total);
}

}  // namespace

std::vector<ScheduledTask> stage_order(int stage, int p, int v, int m) {
  std::vector<ScheduledTask> order;
  const int total = m * v;
  const int w = warmup_steps(stage, p, v, m);
  order.reserve(2 * total);
  for (int k = 0; k < w; ++k) order.push_back(micro_step(false, k, p, v));
  for (int k = 0; k < total - w; ++k) {
    order.push_back(micro_step(false, w + k, p, v));
    order.push_back(micro_step(true, k, p, v));
  }
  for (int k = total - w; k < total; ++k) order.push_back(micro_step(true, k, p, v));
  return order;
}

namespace {

// Walks Megatron's micro-step numbering (see micro_step) one step at a time, without divisions.
struct StepCursor {
  int q = 0, r = 0, g = 0;  // k % p, (k / p) % v, k / (p v)
  void advance(int p, int v) {
    if (++q < p) return;
    q = 0;
    if (++r < v) return;
    r = 0;
    ++g;
  }
};

// Walks one stage's blocks in stage_order(): warm-up forwards, forward/backward pairs, then the
// remaining backwards.
struct StageWalk {
  int pos = 0;   // blocks done
  int warm = 0;  // warm-up forwards
  StepCursor fwd, bwd;

  bool done(int total) const { return pos >= 2 * total; }
  bool backward(int total) const { return pos >= warm && (pos >= 2 * total - warm || (pos - warm) % 2 == 1); }
  // Chunk and micro-batch of the next block.
  int chunk(bool backward, int v) const { return backward ? v - 1 - bwd.r : fwd.r; }
  int micro_batch(bool backward, int p) const {
    const StepCursor& c = backward ? bwd : fwd;
    return c.g * p + c.q;
  }
  void advance(bool backward, int p, int v) {
    (backward ? bwd : fwd).advance(p, v);
    ++pos;
  }
};

// When the input of one block is available, and when the block that produced it finished (the
// difference is transfer time).
struct Slot {
  double ready = 0.0;
  double produced = 0.0;
};

int next_stage(bool backward, int s, int p) { return backward ? (s == 0 ? p - 1 : s - 1) : (s == p - 1 ? 0 : s + 1); }

}  // namespace

PipelineOrder order_blocks(int p, int v, int m) {
  PipelineOrder order;
  order.stages = p;
  order.chunks = v;
  order.micro_batches = m;
  const int n_chunks = p * v;  // model chunks; index = c * p + s
  const int total = m * v;
  // Inputs produced so far, per (model chunk, micro-batch) at chunk * m + micro-batch: forward
  // inputs first, then backward ones.
  const size_t slots = static_cast<size_t>(n_chunks) * m;
  std::vector<char> produced(2 * slots, 0);
  for (int mb = 0; mb < m; ++mb) produced[mb] = 1;  // first chunk reads the data loader
  constexpr size_t kNotWaiting = static_cast<size_t>(-1);
  std::vector<StageWalk> walk(p);
  std::vector<size_t> waiting(p, kNotWaiting);  // the input each stage waits for
  for (int s = 0; s < p; ++s) walk[s].warm = warmup_steps(s, p, v, m);
  order.stage.reserve(2 * slots);

  // A stage runs its blocks in order until one's input is missing; the block that produces that
  // input puts the stage back on the run list.
  std::vector<int> runnable;
  runnable.reserve(p);
  for (int s = p - 1; s >= 0; --s) runnable.push_back(s);
  while (!runnable.empty()) {
    const int s = runnable.back();
    runnable.pop_back();
    StageWalk& w = walk[s];
    while (!w.done(total)) {
      const bool backward = w.backward(total);
      const int micro_batch = w.micro_batch(backward, p);
      const int idx = w.chunk(backward, v) * p + s;
      const size_t key = static_cast<size_t>(idx) * m + micro_batch + (backward ? slots : 0);
      if (!(backward && idx == n_chunks - 1) && !produced[key]) {  // the loss needs no input
        waiting[s] = key;
        break;
      }
      order.stage.push_back(static_cast<std::uint32_t>(s));
      const int next = backward ? idx - 1 : idx + 1;
      if (next >= 0 && next < n_chunks) {
        const size_t next_key = static_cast<size_t>(next) * m + micro_batch + (backward ? slots : 0);
        produced[next_key] = 1;
        const int to = next_stage(backward, s, p);
        if (waiting[to] == next_key) {
          waiting[to] = kNotWaiting;
          runnable.push_back(to);
        }
      }
      w.advance(backward, p, v);
    }
  }
  order.ok = order.stage.size() == 2 * slots;  // else a block's input never came
  return order;
}

void simulate_pipeline(const PipelineInput& in, PipelineOutcome& out) {
  simulate_pipeline(in, order_blocks(in.stages, in.chunks, in.micro_batches), out);
}

void simulate_pipeline(const PipelineInput& in, const PipelineOrder& order, PipelineOutcome& out) {
  const int p = in.stages, v = in.chunks, m = in.micro_batches;
  const int n_chunks = p * v;  // model chunks; index = c * p + s
  const int total = m * v;
  out.ok = order.ok && order.stages == p && order.chunks == v && order.micro_batches == m;
  out.stages.assign(p, StageOutcome{});
  if (!out.ok) return;

  // Inputs per (model chunk, micro-batch), index chunk * m + micro-batch.
  std::vector<Slot> f_in(static_cast<size_t>(n_chunks) * m), b_in(f_in.size());
  struct StageState {
    StageWalk walk;
    double free_at = 0, send_fwd_free = 0, send_bwd_free = 0;
  };
  std::vector<StageState> state(p);
  for (int s = 0; s < p; ++s) {
    state[s].walk.warm = warmup_steps(s, p, v, m);
    out.stages[s].last_bwd_start.assign(v, 0.0);
    out.stages[s].last_bwd_end.assign(v, 0.0);
    if (in.record) out.stages[s].blocks.reserve(static_cast<size_t>(3) * total);
  }

  // Each block's times depend only on its stage's earlier blocks and on its input, both of which
  // come before it in the order.
  for (const std::uint32_t s32 : order.stage) {
    const int s = static_cast<int>(s32);
    StageState& ss = state[s];
    StageOutcome& st = out.stages[s];
    const bool backward = ss.walk.backward(total);
    const int chunk = ss.walk.chunk(backward, v);
    const int micro_batch = ss.walk.micro_batch(backward, p);
    const int idx = chunk * p + s;
    const size_t key = static_cast<size_t>(idx) * m + micro_batch;
    // The first chunk reads the data loader, the last chunk's backward starts from the loss.
    const bool source = backward ? idx == n_chunks - 1 : idx == 0;
    const Slot input = source ? Slot{} : (backward ? b_in[key] : f_in[key]);
    const double ready = input.ready, produced = input.produced;
    const double start = std::max(ss.free_at, ready);
    if (start > ss.free_at) {
      // Idle: waiting for the producer is bubble, waiting for its transfer is exposed PP comm.
      const double in_flight = std::max(0.0, ready - std::max(produced, ss.free_at));
      st.pp_comm += in_flight;
      st.bubble += (start - ss.free_at) - in_flight;
    }
    const BlockProfile& bp = backward ? in.bwd[s * v + chunk] : in.fwd[s * v + chunk];
    const double end = start + bp.duration;
    st.busy_forward += bp.forward;
    st.busy_backward += bp.backward;
    st.busy_recompute += bp.recompute;
    st.busy_tp_comm += bp.tp_comm;
    st.busy_host += bp.host;
    if (in.record) {
      if (backward && bp.recompute > 0) {
        st.blocks.push_back({ScheduleBlock::recompute, micro_batch, chunk, start, bp.recompute});
        st.blocks.push_back({ScheduleBlock::backward, micro_batch, chunk, start + bp.recompute,
                             bp.duration - bp.recompute});
      } else {
        st.blocks.push_back({backward ? ScheduleBlock::backward : ScheduleBlock::forward, micro_batch,
                             chunk, start, bp.duration});
      }
    }
    double stream_free = end;
    // Hand the output to the next (forward) or previous (backward) model chunk.
    const int next = backward ? idx - 1 : idx + 1;
    if (next >= 0 && next < n_chunks) {
      const int to_stage = next_stage(backward, s, p);
      const size_t next_key = static_cast<size_t>(next) * m + micro_batch;
      double arrive = end;
      if (to_stage != s) {
        double& link_free = backward ? ss.send_bwd_free : ss.send_fwd_free;
        const double tx = backward ? in.send_bwd_s[s] : in.send_fwd_s[s];
        const double tx_start = std::max(end, link_free);
        arrive = tx_start + tx;
        link_free = arrive;
        if (in.blocking_sends) {
          st.pp_comm += arrive - end;
          stream_free = arrive;
          if (in.record && tx > 0)
            st.blocks.push_back({ScheduleBlock::pp_send, micro_batch, chunk, end, arrive - end});
        }
      }
      (backward ? b_in : f_in)[next_key] = Slot{arrive, end};
    }
    if (backward) {  // the stream is serial: the latest backward of a chunk is its last
      st.last_bwd_start[chunk] = start;
      st.last_bwd_end[chunk] = end;
    }
    ss.walk.advance(backward, p, v);
    ss.free_at = stream_free;
  }
  for (int s = 0; s < p; ++s) out.stages[s].compute_end = state[s].free_at;
}

}  // namespace vtrain::detail
