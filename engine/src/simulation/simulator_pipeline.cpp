// The simulator's step 6 (declared in simulator_internal.hpp): which data-parallel pipelines to
// simulate, and each one's schedule event by event.
//   dataParallelPipelines     the pipelines that bound the iteration
//   deepSpeedOps              DeepSpeed's TrainSchedule instructions of a stage
//   runPipeline               DeepSpeed's schedule (runDeepSpeedSchedule) or asynchronous 1F1B
//                             (runAsync1F1B), with the timeline when asked
//   stageDone                 when each stage is done with its microbatches
// The interleaved schedule is in simulator_schedules.cpp, ranks sharing compute in
// simulator_shared.cpp.
#include <algorithm>
#include <cassert>
#include <vector>

#include "simulator_internal.hpp"

namespace sailor::sim {

// ---- 6. The pipeline schedules, event by event, per data-parallel pipeline.

namespace {

// x is nowhere slower than y: no larger compute or transfer time in any stage.
bool noSlower(const std::vector<StageTimes>& x, const std::vector<StageTimes>& y) {
  for (size_t s = 0; s < x.size(); ++s) {
    const StageTimes& u = x[s];
    const StageTimes& v = y[s];
    if (u.forward_s > v.forward_s || u.backward_s > v.backward_s ||
        u.send_forward_s > v.send_forward_s || u.send_backward_s > v.send_backward_s)
      return false;
  }
  return true;
}

}  // namespace

// NOTE [Data-parallel pipelines]: with the same number of replicas D in every stage, replica j
// of every stage forms pipeline j: its microbatches flow only through its own replicas and
// links, so the D pipelines run their schedules independently until each stage's gradient
// all-reduce, which waits for the last of them. A pipeline is as slow as its own GPUs and its
// own links: a slow GPU in one pipeline and a slow link in another do not add up, as taking
// the straggler's compute with the slowest pair's transfer would have them do. Pipelines no
// slower anywhere than another one (the same kinds of replica, the same links) cannot finish
// later (the schedule only adds and takes maxima) and are not simulated. With different
// degrees per stage (replica j talks to j mod D) pipelines share replicas; one pipeline of the
// straggler and slowest-pair figures of every stage then bounds them.
std::vector<std::vector<StageTimes>> dataParallelPipelines(
    const StageReplicas& stages, const std::vector<StageTimes>& times,
    const std::vector<std::vector<PairSeconds>>& pairs, const std::vector<int>& microbatches) {
  const size_t P = stages.size();
  const size_t D0 = stages[0].size();
  bool same_degree = true;
  for (const auto& reps : stages) same_degree = same_degree && reps.size() == D0;
  if (!same_degree || D0 == 1) return {times};
  std::vector<std::vector<StageTimes>> pipelines;
  std::vector<StageTimes> p(P);
  for (size_t j = 0; j < D0; ++j) {
    for (size_t s = 0; s < P; ++s) {
      p[s].forward_s = stages[s][j].forward_s;
      p[s].backward_s = stages[s][j].backward_s;
      p[s].microbatches = microbatches[s];
      if (s + 1 < P) {
        p[s].send_forward_s = pairs[s][j].forward_s;
        p[s + 1].send_backward_s = pairs[s][j].backward_s;
      }
    }
    if (std::any_of(pipelines.begin(), pipelines.end(),
                    [&](const std::vector<StageTimes>& q) { return noSlower(p, q); }))
      continue;
    std::erase_if(pipelines, [&](const std::vector<StageTimes>& q) { return noSlower(q, p); });
    pipelines.push_back(p);
  }
  return pipelines;
}

// NOTE [DeepSpeed pipeline schedule]
// Megatron-DeepSpeed runs DeepSpeed's PipelineEngine TrainSchedule: 2 (m + P - 1) steps per
// stage; on even steps even stages run a forward and odd stages a backward, and the other way
// round on odd steps. Before a forward a stage sends the previous step's input gradient back and
// receives the activation; before a backward it receives the output gradient and sends the
// previous step's activation on. Point-to-point operations are blocking NCCL sends and receives
// on the compute stream, so a transfer starts when both ends have reached it and occupies both
// for its whole duration. The instruction order makes this deadlock-free.
std::vector<PipeOp> deepSpeedOps(int P, int s, int M) {
  std::vector<PipeOp> ops;
  const int steps = 2 * (M + P - 1);
  auto valid = [&](int mb) { return mb >= 0 && mb < M; };
  int prev = -1;
  for (int step = 0; step < steps; ++step) {
    const bool even_step = step % 2 == 0, even_stage = s % 2 == 0;
    int mb = 0;
    bool forward = true;
    if (even_step && even_stage) mb = step / 2 - s / 2;
    else if (!even_step && !even_stage) mb = (step - 1) / 2 - s / 2;
    else if (even_step && !even_stage) mb = step / 2 - P + (s + 1) / 2, forward = false;
    else mb = (step - 1) / 2 - P + 1 + s / 2, forward = false;
    if (forward) {
      if (valid(prev) && s > 0) ops.push_back({PipeOp::SendGrad, prev});
      if (valid(mb) && s > 0) ops.push_back({PipeOp::RecvAct, mb});
    } else {
      if (valid(mb) && s + 1 < P) ops.push_back({PipeOp::RecvGrad, mb});
      if (valid(prev) && s + 1 < P) ops.push_back({PipeOp::SendAct, prev});
    }
    if (valid(mb)) ops.push_back({forward ? PipeOp::Forward : PipeOp::Backward, mb});
    prev = mb;
  }
  return ops;
}

namespace {

// Runs `stages` through DeepSpeed's schedule, accumulating into r (its vectors sized P, zero);
// records the operations in *timeline when it is not null.
void runDeepSpeedSchedule(const std::vector<StageTimes>& stages, int M, PipelineRun& r,
                          std::vector<TimelineOp>* timeline) {
  const int P = static_cast<int>(stages.size());
  auto& free_at = r.free_at;
  auto& busy = r.busy;
  auto& comm = r.comm;
  auto& last_backward = r.last_backward;
  std::vector<std::vector<PipeOp>> ops(static_cast<size_t>(P));
  for (int s = 0; s < P; ++s) ops[static_cast<size_t>(s)] = deepSpeedOps(P, s, M);
  std::vector<size_t> next(static_cast<size_t>(P), 0);
  auto matches = [](PipeOp::Kind k) {
    switch (k) {
      case PipeOp::SendAct: return PipeOp::RecvAct;
      case PipeOp::RecvAct: return PipeOp::SendAct;
      case PipeOp::SendGrad: return PipeOp::RecvGrad;
      default: return PipeOp::SendGrad;
    }
  };
  bool progress = true;
  while (progress) {
    progress = false;
    for (int s = 0; s < P; ++s) {
      const size_t su = static_cast<size_t>(s);
      while (next[su] < ops[su].size()) {
        const PipeOp op = ops[su][next[su]];
        const StageTimes& st = stages[su];
        if (op.kind == PipeOp::Forward || op.kind == PipeOp::Backward) {
          const bool f = op.kind == PipeOp::Forward;
          const double d = f ? st.forward_s : st.backward_s;
          if (timeline)
            timeline->push_back({s, op.microbatch, f ? 'F' : 'B', free_at[su], free_at[su] + d});
          free_at[su] += d;
          busy[su] += d;
          if (!f) last_backward[su] = free_at[su];
          ++next[su];
          progress = true;
          continue;
        }
        const bool towards_next = op.kind == PipeOp::SendAct || op.kind == PipeOp::RecvGrad;
        const int peer = towards_next ? s + 1 : s - 1;
        const size_t pu = static_cast<size_t>(peer);
        if (next[pu] >= ops[pu].size()) break;
        const PipeOp other = ops[pu][next[pu]];
        if (other.kind != matches(op.kind) || other.microbatch != op.microbatch) break;
        // Activations travel s -> s+1 (send_forward_s of the lower stage), gradients s+1 -> s
        // (send_backward_s of the upper stage).
        const bool activation = op.kind == PipeOp::SendAct || op.kind == PipeOp::RecvAct;
        const size_t lower = std::min(su, pu);
        const double d =
            activation ? stages[lower].send_forward_s : stages[lower + 1].send_backward_s;
        const double start = std::max(free_at[su], free_at[pu]);
        if (d > 0 && timeline) {
          timeline->push_back({s, op.microbatch, 'S', start, start + d});
          timeline->push_back({peer, op.microbatch, 'S', start, start + d});
        }
        free_at[su] = free_at[pu] = start + d;
        comm[su] += d;
        comm[pu] += d;
        ++next[su];
        ++next[pu];
        progress = true;
      }
    }
  }
  for (int s = 0; s < P; ++s)
    assert(next[static_cast<size_t>(s)] == ops[static_cast<size_t>(s)].size() &&
           "pipeline schedule deadlocked");
}

// Non-blocking alternative: 1F1B order (min(P - s - 1, m) warm-up forwards, then alternate),
// transfers overlap with compute and only delay the operation that needs their data, so r.comm
// stays 0.
void runAsync1F1B(const std::vector<StageTimes>& stages, int M, PipelineRun& r,
                  std::vector<TimelineOp>* timeline) {
  const int P = static_cast<int>(stages.size());
  auto& free_at = r.free_at;
  auto& busy = r.busy;
  auto& last_backward = r.last_backward;
  std::vector<std::vector<std::pair<char, int>>> order(static_cast<size_t>(P));
  for (int s = 0; s < P; ++s) {
    const int warm = std::min(P - s - 1, M);
    auto& o = order[static_cast<size_t>(s)];
    for (int i = 0; i < warm; ++i) o.emplace_back('F', i);
    int fi = warm;
    for (int bi = 0; bi < M; ++bi) {
      if (fi < M) o.emplace_back('F', fi++);
      o.emplace_back('B', bi);
    }
  }
  std::vector<std::vector<double>> fend(static_cast<size_t>(P),
                                        std::vector<double>(static_cast<size_t>(M), -1)),
      bend(static_cast<size_t>(P), std::vector<double>(static_cast<size_t>(M), -1));
  std::vector<size_t> next(static_cast<size_t>(P), 0);
  bool progress = true;
  while (progress) {
    progress = false;
    for (int s = 0; s < P; ++s) {
      const size_t su = static_cast<size_t>(s);
      const StageTimes& st = stages[su];
      while (next[su] < order[su].size()) {
        const auto [kind, i] = order[su][next[su]];
        const size_t iu = static_cast<size_t>(i);
        double start = free_at[su];
        if (kind == 'F') {
          if (s > 0) {
            if (fend[su - 1][iu] < 0) break;
            const double sent = fend[su - 1][iu], d = stages[su - 1].send_forward_s;
            start = std::max(start, sent + d);
            // The transfer runs beside compute, on both ends' communication; transfers may overlap.
            if (d > 0 && timeline) {
              timeline->push_back({s - 1, i, 'S', sent, sent + d});
              timeline->push_back({s, i, 'S', sent, sent + d});
            }
          }
          fend[su][iu] = start + st.forward_s;
          if (timeline) timeline->push_back({s, i, 'F', start, fend[su][iu]});
          busy[su] += st.forward_s;
          free_at[su] = fend[su][iu];
        } else {
          if (s + 1 < P) {
            if (bend[su + 1][iu] < 0) break;
            const double sent = bend[su + 1][iu], d = stages[su + 1].send_backward_s;
            start = std::max(start, sent + d);
            if (d > 0 && timeline) {
              timeline->push_back({s + 1, i, 'S', sent, sent + d});
              timeline->push_back({s, i, 'S', sent, sent + d});
            }
          }
          bend[su][iu] = start + st.backward_s;
          if (timeline) timeline->push_back({s, i, 'B', start, bend[su][iu]});
          busy[su] += st.backward_s;
          free_at[su] = bend[su][iu];
          last_backward[su] = free_at[su];
        }
        ++next[su];
        progress = true;
      }
    }
  }
  for (int s = 0; s < P; ++s)
    assert(next[static_cast<size_t>(s)] == order[static_cast<size_t>(s)].size() &&
           "1F1B schedule deadlocked");
}

}  // namespace

double PipelineRun::doneAt(size_t s) const {
  return std::max(free_at[s], last_backward[s]);
}

PipelineRun runPipeline(const std::vector<StageTimes>& times, int M, PipelineSchedule schedule,
                        bool timeline) {
  PipelineRun r{std::vector<double>(times.size(), 0.0),
                std::vector<double>(times.size(), 0.0),
                std::vector<double>(times.size(), 0.0),
                std::vector<double>(times.size(), 0.0),
                {}};
  std::vector<TimelineOp>* ops = timeline ? &r.ops : nullptr;
  if (schedule == PipelineSchedule::DeepSpeed) runDeepSpeedSchedule(times, M, r, ops);
  else runAsync1F1B(times, M, r, ops);
  return r;
}

std::vector<double> stageDone(const std::vector<PipelineRun>& runs, size_t P) {
  std::vector<double> done(P, 0.0);
  for (const auto& r : runs)
    for (size_t s = 0; s < P; ++s) done[s] = std::max(done[s], r.doneAt(s));
  return done;
}

}  // namespace sailor::sim
