#include "iteration/pipeline.hpp"

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
  double ready = -1.0;  // < 0: not produced yet
  double produced = 0.0;
};

// One iteration's simulation: per-stage streams and the inputs in flight. Blocks run one at a
// time through step(); the two loops below only choose which stage goes next. A block's times
// depend on its stage's earlier blocks and on its input alone, so every order in which each block
// comes after the block producing its input gives the same numbers, bit for bit.
class Run {
 public:
  Run(const PipelineInput& in, PipelineOutcome& out)
      : in_(in), out_(out), p_(in.stages), v_(in.chunks), m_(in.micro_batches), n_chunks_(p_ * v_),
        total_(m_ * v_), f_in_(static_cast<size_t>(n_chunks_) * m_), b_in_(f_in_.size()), state_(p_) {
    out.ok = true;
    out.stages.assign(p_, StageOutcome{});
    for (int mb = 0; mb < m_; ++mb) f_in_[mb].ready = 0.0;  // first chunk reads the data loader
    for (int s = 0; s < p_; ++s) {
      state_[s].walk.warm = warmup_steps(s, p_, v_, m_);
      out.stages[s].last_bwd_start.assign(v_, 0.0);
      out.stages[s].last_bwd_end.assign(v_, 0.0);
      if (in.record) out.stages[s].blocks.reserve(static_cast<size_t>(3) * total_);
    }
  }

  bool done(int s) const { return state_[s].walk.done(total_); }

  // Stage s's next block.
  struct Block {
    bool backward;
    int chunk, micro_batch;
    int idx;     // model chunk
    size_t key;  // input slot
  };
  Block next(int s) const {
    const StageWalk& w = state_[s].walk;
    Block b;
    b.backward = w.backward(total_);
    b.chunk = w.chunk(b.backward, v_);
    b.micro_batch = w.micro_batch(b.backward, p_);
    b.idx = b.chunk * p_ + s;
    b.key = static_cast<size_t>(b.idx) * m_ + b.micro_batch;
    return b;
  }

  // Whether block b's input has been produced.
  bool has_input(const Block& b) const {
    if (b.backward && b.idx == n_chunks_ - 1) return true;  // the loss needs no input
    return (b.backward ? b_in_ : f_in_)[b.key].ready >= 0;
  }

  // Runs block b, stage s's next, once its input is there. kRecord: whether the blocks are kept
  // for the timeline (in.record), a parameter so that the loops without it do not carry the code.
  template <bool kRecord>
  void step(int s, const Block& b) {
    StageState& ss = state_[s];
    StageOutcome& st = out_.stages[s];
    const bool backward = b.backward;
    const int chunk = b.chunk, micro_batch = b.micro_batch, idx = b.idx;
    const Slot input = backward && idx == n_chunks_ - 1 ? Slot{0.0, 0.0} : (backward ? b_in_ : f_in_)[b.key];
    const double ready = input.ready, produced = input.produced;
    const double start = std::max(ss.free_at, ready);
    if (start > ss.free_at) {
      // Idle: waiting for the producer is bubble, waiting for its transfer is exposed PP comm.
      const double in_flight = std::max(0.0, ready - std::max(produced, ss.free_at));
      st.pp_comm += in_flight;
      st.bubble += (start - ss.free_at) - in_flight;
    }
    const BlockProfile& bp = backward ? in_.bwd[s * v_ + chunk] : in_.fwd[s * v_ + chunk];
    const double end = start + bp.duration;
    st.busy_forward += bp.forward;
    st.busy_backward += bp.backward;
    st.busy_recompute += bp.recompute;
    st.busy_tp_comm += bp.tp_comm;
    st.busy_cp_comm += bp.cp_comm;
    st.busy_host += bp.host;
    st.busy_dp_comm += bp.dp_comm;
    if (kRecord) {
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
    if (next >= 0 && next < n_chunks_) {
      const int to_stage = backward ? (s == 0 ? p_ - 1 : s - 1) : (s == p_ - 1 ? 0 : s + 1);
      const size_t next_key = static_cast<size_t>(next) * m_ + micro_batch;
      double arrive = end;
      if (to_stage != s) {
        double& link_free = backward ? ss.send_bwd_free : ss.send_fwd_free;
        const double tx = backward ? in_.send_bwd_s[s] : in_.send_fwd_s[s];
        const double tx_start = std::max(end, link_free);
        arrive = tx_start + tx;
        link_free = arrive;
        if (in_.blocking_sends) {
          st.pp_comm += arrive - end;
          stream_free = arrive;
          if (kRecord && tx > 0)
            st.blocks.push_back({ScheduleBlock::pp_send, micro_batch, chunk, end, arrive - end});
        }
      }
      (backward ? b_in_ : f_in_)[next_key] = Slot{arrive, end};
    }
    if (backward) {  // the stream is serial: the latest backward of a chunk is its last
      st.last_bwd_start[chunk] = start;
      st.last_bwd_end[chunk] = end;
    }
    ss.walk.advance(backward, p_, v_);
    ss.free_at = stream_free;
  }

  // Ends the run; false when a stage has blocks left (a block whose input never came).
  bool finish() {
    for (int s = 0; s < p_; ++s) {
      if (!done(s)) {
        out_.ok = false;
        return false;
      }
      out_.stages[s].compute_end = state_[s].free_at;
    }
    return true;
  }

 private:
  struct StageState {
    StageWalk walk;
    double free_at = 0, send_fwd_free = 0, send_bwd_free = 0;
  };
  const PipelineInput& in_;
  PipelineOutcome& out_;
  const int p_, v_, m_, n_chunks_, total_;
  std::vector<Slot> f_in_, b_in_;  // inputs per (model chunk, micro-batch): chunk * m + micro-batch
  std::vector<StageState> state_;
};

// Sweeps the stages, each running its blocks until one's input is missing, until all are done.
template <bool kRecord>
bool search_order(Run& run, int stages, long long blocks, PipelineOrder* order) {
  while (blocks > 0) {
    bool progress = false;
    for (int s = 0; s < stages; ++s) {
      while (!run.done(s)) {
        const Run::Block b = run.next(s);
        if (!run.has_input(b)) break;
        if (order) order->stage.push_back(static_cast<std::uint32_t>(s));
        run.step<kRecord>(s, b);
        --blocks;
        progress = true;
      }
    }
    if (!progress) break;  // a block whose input never comes: finish() reports it
  }
  return run.finish();
}

template <bool kRecord>
void follow_order(Run& run, const PipelineOrder& order) {
  for (const std::uint32_t s32 : order.stage) {
    const int s = static_cast<int>(s32);
    run.step<kRecord>(s, run.next(s));
  }
  run.finish();
}

}  // namespace

void simulate_pipeline(const PipelineInput& in, PipelineOutcome& out, PipelineOrder* order) {
  Run run(in, out);
  const long long blocks = 2LL * in.stages * in.chunks * in.micro_batches;
  if (order) {
    *order = PipelineOrder{in.stages, in.chunks, in.micro_batches, {}, true};
    order->stage.reserve(static_cast<size_t>(blocks));
  }
  const bool ok = in.record ? search_order<true>(run, in.stages, blocks, order)
                            : search_order<false>(run, in.stages, blocks, order);
  if (order) order->ok = ok;
}

void simulate_pipeline(const PipelineInput& in, const PipelineOrder& order, PipelineOutcome& out) {
  Run run(in, out);
  if (!order.ok || order.stages != in.stages || order.chunks != in.chunks ||
      order.micro_batches != in.micro_batches) {
    out.ok = false;
    return;
  }
  if (in.record) follow_order<true>(run, order);
  else follow_order<false>(run, order);
}

}  // namespace vtrain::detail
