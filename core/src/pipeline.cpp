#include "pipeline.hpp"

#include <algorithm>

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

void simulate_pipeline(const PipelineInput& in, PipelineOutcome& out) {
  const int p = in.stages, v = in.chunks, m = in.micro_batches;
  const int n_chunks = p * v;  // model chunks; index = c * p + s
  const int total = m * v;
  out.ok = true;
  out.stages.assign(p, StageOutcome{});

  // Per (model chunk, micro-batch): when the input of its forward / backward block is available,
  // and when the block that produced it finished (the difference is transfer time).
  std::vector<double> f_ready(static_cast<size_t>(n_chunks) * m, -1.0), f_prod(f_ready.size(), 0.0);
  std::vector<double> b_ready(f_ready.size(), -1.0), b_prod(f_ready.size(), 0.0);
  for (int mb = 0; mb < m; ++mb) f_ready[mb] = 0.0;  // first chunk reads the data loader

  std::vector<int> pos(p, 0), warm(p);
  std::vector<double> free_at(p, 0.0), send_fwd_free(p, 0.0), send_bwd_free(p, 0.0);
  for (int s = 0; s < p; ++s) {
    warm[s] = warmup_steps(s, p, v, m);
    out.stages[s].last_bwd_start.assign(v, 0.0);
    out.stages[s].last_bwd_end.assign(v, 0.0);
    if (in.record) out.stages[s].blocks.reserve(static_cast<size_t>(3) * total);
  }

  auto task_at = [&](int s, int k) -> ScheduledTask {
    const int w = warm[s];
    if (k < w) return micro_step(false, k, p, v);
    if (k < 2 * total - w) {
      const int j = k - w;
      return (j % 2 == 0) ? micro_step(false, w + j / 2, p, v) : micro_step(true, j / 2, p, v);
    }
    return micro_step(true, k - total, p, v);
  };

  int remaining = 2 * total * p;
  while (remaining > 0) {
    bool progress = false;
    for (int s = 0; s < p; ++s) {
      StageOutcome& st = out.stages[s];
      while (pos[s] < 2 * total) {
        const ScheduledTask t = task_at(s, pos[s]);
        const int idx = t.chunk * p + s;
        const size_t key = static_cast<size_t>(idx) * m + t.micro_batch;
        const double ready = t.backward ? (idx == n_chunks - 1 ? 0.0 : b_ready[key]) : f_ready[key];
        if (ready < 0) break;  // input not produced yet
        const double produced = t.backward ? (idx == n_chunks - 1 ? 0.0 : b_prod[key]) : f_prod[key];
        const double start = std::max(free_at[s], ready);
        if (start > free_at[s]) {
          // Idle: waiting for the producer is bubble, waiting for its transfer is exposed PP comm.
          const double in_flight = std::max(0.0, ready - std::max(produced, free_at[s]));
          st.pp_comm += in_flight;
          st.bubble += (start - free_at[s]) - in_flight;
        }
        const BlockProfile& bp = t.backward ? in.bwd[s * v + t.chunk] : in.fwd[s * v + t.chunk];
        const double end = start + bp.duration;
        st.busy_forward += bp.forward;
        st.busy_backward += bp.backward;
        st.busy_recompute += bp.recompute;
        st.busy_tp_comm += bp.tp_comm;
        st.busy_host += bp.host;
        if (in.record) {
          if (t.backward && bp.recompute > 0) {
            st.blocks.push_back({ScheduleBlock::recompute, t.micro_batch, t.chunk, start, bp.recompute});
            st.blocks.push_back({ScheduleBlock::backward, t.micro_batch, t.chunk, start + bp.recompute,
                                 bp.duration - bp.recompute});
          } else {
            st.blocks.push_back({t.backward ? ScheduleBlock::backward : ScheduleBlock::forward,
                                 t.micro_batch, t.chunk, start, bp.duration});
          }
        }
        double stream_free = end;
        // Hand the output to the next (forward) or previous (backward) model chunk.
        const int next = t.backward ? idx - 1 : idx + 1;
        if (next >= 0 && next < n_chunks) {
          const int to_stage = next % p;
          const size_t next_key = static_cast<size_t>(next) * m + t.micro_batch;
          double arrive = end;
          if (to_stage != s) {
            double& link_free = t.backward ? send_bwd_free[s] : send_fwd_free[s];
            const double tx = t.backward ? in.send_bwd_s[s] : in.send_fwd_s[s];
            const double tx_start = std::max(end, link_free);
            arrive = tx_start + tx;
            link_free = arrive;
            if (in.blocking_sends) {
              st.pp_comm += arrive - end;
              stream_free = arrive;
              if (in.record && tx > 0)
                st.blocks.push_back({ScheduleBlock::pp_send, t.micro_batch, t.chunk, end, arrive - end});
            }
          }
          if (t.backward) {
            b_ready[next_key] = arrive;
            b_prod[next_key] = end;
          } else {
            f_ready[next_key] = arrive;
            f_prod[next_key] = end;
          }
        }
        if (t.backward) {  // the stream is serial: the latest backward of a chunk is its last
          st.last_bwd_start[t.chunk] = start;
          st.last_bwd_end[t.chunk] = end;
        }
        free_at[s] = stream_free;
        ++pos[s];
        --remaining;
        progress = true;
      }
    }
    if (!progress) {
      out.ok = false;
      return;
    }
  }
  for (int s = 0; s < p; ++s) out.stages[s].compute_end = free_at[s];
}

}  // namespace vtrain::detail
