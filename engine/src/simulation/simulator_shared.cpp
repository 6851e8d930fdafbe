// The simulator's steps 6 and 7 on GPU types whose ranks share a node's compute (declared in
// simulator_internal.hpp): runSharedCompute, every pipeline's schedule and every replica's
// optimizer step in one event-by-event simulation (NOTE [Ranks sharing a device]).
#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <vector>

#include "simulator_internal.hpp"

namespace sailor::sim {

// ---- 6-7 under shared compute: ranks of one node computing at once.

// NOTE [Ranks sharing a device]
// A node's GPUs each have their own compute: ranks on different GPUs do not slow each other
// down. Ranks that are processes on the same CPU cores (sailor run on this machine) do: k ranks
// computing at once each take slowdown(k) times as long as one alone, slowdown(k) being the GPU
// type's shared_compute_slowdown as `sailor profile` measures it (the tp-1 layers in k processes
// at once; on the 2-core development VM 2.17 for two, more than the two cores allow, as they
// share a physical core and the host's time). The simulator applies it as processor sharing
// inside the event-by-event schedule: while k(t) ranks of a node compute (k counts each computing
// replica's tp ranks), an operation of a replica of tp t progresses at slowdown(t) / slowdown(k(t))
// of its profiled rate: a profile's tp-t figures were measured with the t ranks computing at once
// (sailor profile runs one process per tp rank), so they already hold slowdown(t). Transfers and
// all-reduces do not compute; waiting ranks do not either. Optimizer steps do, so the steps of
// replicas that end together share too. Every pipeline is simulated (identical pipelines share the
// node, so none can stand for another); with different data-parallel degrees per stage the
// bounding pipeline of straggler figures is simulated with its stages sharing among themselves,
// the other replicas' compute not counted. GPU types without the figure never share: their
// predictions come from runPipeline and stageSyncAndStep as before.

namespace {

class SharedCompute {
 public:
  SharedCompute(const SharedComputeInput& in, int M, PipelineSchedule schedule, bool timeline)
      : in_(in), J_(in.pipelines.size()), P_(in.pipelines.front().size()), timeline_(timeline) {
    const size_t n = J_ * P_;
    ops_.resize(n), end_.resize(n), next_.assign(n, 0), running_.assign(n, false);
    start_.assign(n, 0), left_.assign(n, 0), wake_.assign(n, -1);
    for (size_t j = 0; j < J_; ++j) {
      for (size_t s = 0; s < P_; ++s) {
        if (in.virtual_stages > 1) interleavedAgent(j, s, M);
        else if (schedule == PipelineSchedule::DeepSpeed) deepSpeedAgent(j, s, M);
        else asyncAgent(j, s, M);
      }
      if (in.virtual_stages > 1) interleavedDependencies(j);
    }
    for (size_t a = 0; a < n; ++a) scheduled_.push_back(ops_[a].size());  // M >= 1: never 0
    for (size_t j = 0; j < J_; ++j)
      for (size_t s = 0; s < P_; ++s) stepOp(j, s);
    for (size_t a = 0; a < n; ++a) end_[a].assign(ops_[a].size(), -1.0);
    out_.runs.resize(J_);
    for (PipelineRun& r : out_.runs)
      r.free_at = r.busy = r.comm = r.last_backward = std::vector<double>(P_, 0.0);
    out_.stage_end.assign(P_, 0.0);
    out_.optimizer_s.assign(P_, 0.0);
  }

  SharedComputeRun run() {
    for (;;) {
      for (bool changed = true; changed;) {
        changed = false;
        for (size_t a = 0; a < ops_.size(); ++a)
          if (!running_[a] && next_[a] < ops_[a].size()) changed |= tryStart(a);
      }
      if (!advance()) break;
    }
    for (size_t a = 0; a < ops_.size(); ++a)
      assert(next_[a] == ops_[a].size() && "shared-compute schedule deadlocked");
    return std::move(out_);
  }

 private:
  struct Op {
    enum Kind { Compute, Transfer, Step } kind;
    PipeOp::Kind pipe;  // Forward or Backward (Compute), the transfer's side (Transfer)
    int microbatch;
    double seconds;   // profiled compute (Compute, Step) or duration (Transfer)
    int chunk = 0;    // the model chunk of an interleaved schedule's Compute
    size_t peer = 0;  // Transfer: the other end, whose current op must be the matching one
    std::vector<std::pair<size_t, size_t>> deps;  // (agent, op) that must have ended
    double delay_s = 0;  // after the last of them (a transfer beside compute, an all-reduce)
  };

  static Op makeOp(Op::Kind kind, PipeOp::Kind pipe, int microbatch, double seconds,
                   size_t peer = 0) {
    Op op{kind, pipe, microbatch, seconds, 0, peer, {}, 0};
    return op;
  }
  size_t agent(size_t j, size_t s) const { return j * P_ + s; }
  const ReplicaData& replicaOf(size_t a) const { return *in_.replicas[a / P_][a % P_]; }
  const StageTimes& timesOf(size_t a) const { return in_.pipelines[a / P_][a % P_]; }

  void deepSpeedAgent(size_t j, size_t s, int M) {
    const StageTimes& st = in_.pipelines[j][s];
    for (const PipeOp& p : deepSpeedOps(static_cast<int>(P_), static_cast<int>(s), M)) {
      if (p.kind == PipeOp::Forward || p.kind == PipeOp::Backward) {
        ops_[agent(j, s)].push_back(
            makeOp(Op::Compute, p.kind, p.microbatch,
                   p.kind == PipeOp::Forward ? st.forward_s : st.backward_s));
        continue;
      }
      const bool towards_next = p.kind == PipeOp::SendAct || p.kind == PipeOp::RecvGrad;
      const size_t peer_stage = towards_next ? s + 1 : s - 1;
      const bool activation = p.kind == PipeOp::SendAct || p.kind == PipeOp::RecvAct;
      const size_t lower = std::min(s, peer_stage);
      const double d = activation ? in_.pipelines[j][lower].send_forward_s
                                  : in_.pipelines[j][lower + 1].send_backward_s;
      ops_[agent(j, s)].push_back(
          makeOp(Op::Transfer, p.kind, p.microbatch, d, agent(j, peer_stage)));
    }
  }

  // 1F1B order (runAsync1F1B's); a forward waits for the previous stage's forward and its
  // transfer, a backward for the next stage's backward and its transfer.
  void asyncAgent(size_t j, size_t s, int M) {
    const int P = static_cast<int>(P_);
    const int warm = std::min(P - static_cast<int>(s) - 1, M);
    std::vector<std::pair<PipeOp::Kind, int>> order;
    for (int i = 0; i < warm; ++i) order.emplace_back(PipeOp::Forward, i);
    for (int fi = warm, bi = 0; bi < M; ++bi) {
      if (fi < M) order.emplace_back(PipeOp::Forward, fi++);
      order.emplace_back(PipeOp::Backward, bi);
    }
    const StageTimes& st = in_.pipelines[j][s];
    for (auto [kind, i] : order)
      ops_[agent(j, s)].push_back(
          makeOp(Op::Compute, kind, i, kind == PipeOp::Forward ? st.forward_s : st.backward_s));
    if (s == 0) return;
    // Dependencies once both neighbours' orders are known: stage s-1 was built first.
    auto index_of = [&](size_t a, PipeOp::Kind kind, int mb) {
      for (size_t k = 0; k < ops_[a].size(); ++k)
        if (ops_[a][k].pipe == kind && ops_[a][k].microbatch == mb) return k;
      return ops_[a].size();
    };
    const size_t lo = agent(j, s - 1), hi = agent(j, s);
    for (Op& op : ops_[hi])
      if (op.pipe == PipeOp::Forward) {
        op.deps.push_back({lo, index_of(lo, PipeOp::Forward, op.microbatch)});
        op.delay_s = in_.pipelines[j][s - 1].send_forward_s;
      }
    for (Op& op : ops_[lo])
      if (op.pipe == PipeOp::Backward) {
        op.deps.push_back({hi, index_of(hi, PipeOp::Backward, op.microbatch)});
        op.delay_s = in_.pipelines[j][s].send_backward_s;
      }
  }

  // The interleaved 1F1B order (interleavedOps; NOTE [Interleaved 1F1B]), as the runtime runs
  // it: each chunk computes 1/v of the stage; the dependencies, once every stage's order is
  // known (interleavedDependencies).
  void interleavedAgent(size_t j, size_t s, int M) {
    const int v = in_.virtual_stages;
    const StageTimes& st = in_.pipelines[j][s];
    for (const InterleavedOp& o : interleavedOps(static_cast<int>(P_), static_cast<int>(s), M, v)) {
      Op op = makeOp(Op::Compute, o.forward ? PipeOp::Forward : PipeOp::Backward, o.microbatch,
                     (o.forward ? st.forward_s : st.backward_s) / v);
      op.chunk = o.chunk;
      ops_[agent(j, s)].push_back(std::move(op));
    }
  }
  // Virtual stage g = c P + s: a forward waits for virtual stage g - 1's forward of the same
  // microbatch and its transfer, a backward for g + 1's backward (runInterleaved's rule: the wrap
  // from the last stage to the first takes the slowest stage boundary's figure). Transfers are
  // non-blocking: they delay only the operation that needs their data.
  void interleavedDependencies(size_t j) {
    const int P = static_cast<int>(P_), V = P * in_.virtual_stages;
    const std::vector<StageTimes>& pipe = in_.pipelines[j];
    double wrap_f = 0, wrap_b = 0;
    for (size_t s = 0; s + 1 < P_; ++s) {
      wrap_f = std::max(wrap_f, pipe[s].send_forward_s);
      wrap_b = std::max(wrap_b, pipe[s + 1].send_backward_s);
    }
    auto index_of = [&](size_t a, PipeOp::Kind kind, int chunk, int mb) {
      for (size_t k = 0; k < ops_[a].size(); ++k)
        if (ops_[a][k].pipe == kind && ops_[a][k].chunk == chunk && ops_[a][k].microbatch == mb)
          return k;
      return ops_[a].size();
    };
    for (size_t s = 0; s < P_; ++s)
      for (Op& op : ops_[agent(j, s)]) {
        const int g = op.chunk * P + static_cast<int>(s);
        const bool forward = op.pipe == PipeOp::Forward;
        const int other = forward ? g - 1 : g + 1;
        if (other < 0 || other >= V) continue;
        const auto os = static_cast<size_t>(other % P);
        op.deps.push_back(
            {agent(j, os), index_of(agent(j, os), op.pipe, other / P, op.microbatch)});
        if (forward) op.delay_s = os + 1 < P_ ? pipe[os].send_forward_s : wrap_f;
        else op.delay_s = s + 1 < P_ ? pipe[s + 1].send_backward_s : wrap_b;
      }
  }

  // The optimizer step: after every pipeline is done with the stage (with the first and the last
  // stage when a tied embedding is all-reduced between them), its all-reduce, then the step.
  void stepOp(size_t j, size_t s) {
    Op op = makeOp(Op::Step, PipeOp::Forward, -1, in_.step_s[j][s]);
    const bool tied = in_.tied_sync_s > 0 && (s == 0 || s + 1 == P_);
    const std::vector<size_t> stages = tied ? std::vector<size_t>{0, P_ - 1} : std::vector{s};
    for (size_t k = 0; k < J_; ++k)
      for (size_t t : stages) op.deps.push_back({agent(k, t), scheduled_[agent(k, t)] - 1});
    op.delay_s = (tied ? in_.tied_sync_s : 0.0) + in_.sync_s[s];
    ops_[agent(j, s)].push_back(std::move(op));
  }

  // Starts agent a's next operation at now_ when it can; whether anything changed.
  bool tryStart(size_t a) {
    const Op& op = ops_[a][next_[a]];
    if (!op.deps.empty()) {
      double ready = 0;
      for (auto [b, k] : op.deps) {
        if (end_[b][k] < 0) return false;
        ready = std::max(ready, end_[b][k]);
      }
      ready += op.delay_s;
      if (ready > now_ * (1 + 1e-12)) {
        wake_[a] = ready;
        return false;
      }
      if (timeline_ && op.kind == Op::Compute && op.delay_s > 0) {
        const size_t b = op.deps.front().first;
        pushTimeline(b, {static_cast<int>(b % P_), op.microbatch, 'S', ready - op.delay_s, ready});
        pushTimeline(a, {static_cast<int>(a % P_), op.microbatch, 'S', ready - op.delay_s, ready});
      }
    }
    wake_[a] = -1;
    if (op.kind == Op::Transfer) return tryTransfer(a, op);
    running_[a] = true;
    start_[a] = now_;
    left_[a] = op.seconds;
    if (op.seconds <= 0) finish(a);
    return true;
  }

  // The other end of a transfer: a send's receive and a receive's send.
  static PipeOp::Kind counterpart(PipeOp::Kind k) {
    switch (k) {
      case PipeOp::SendAct: return PipeOp::RecvAct;
      case PipeOp::RecvAct: return PipeOp::SendAct;
      case PipeOp::SendGrad: return PipeOp::RecvGrad;
      default: return PipeOp::SendGrad;
    }
  }

  bool tryTransfer(size_t a, const Op& op) {
    const size_t p = op.peer;
    if (running_[p] || next_[p] >= ops_[p].size()) return false;
    const Op& other = ops_[p][next_[p]];
    if (other.kind != Op::Transfer || other.peer != a || other.microbatch != op.microbatch ||
        other.pipe != counterpart(op.pipe))
      return false;
    for (size_t x : {a, p}) {
      running_[x] = true;
      start_[x] = now_;
      left_[x] = now_ + op.seconds;  // a transfer's end
    }
    if (op.seconds > 0 && timeline_) {
      pushTimeline(a, {static_cast<int>(a % P_), op.microbatch, 'S', now_, now_ + op.seconds});
      pushTimeline(p, {static_cast<int>(p % P_), op.microbatch, 'S', now_, now_ + op.seconds});
    }
    if (op.seconds <= 0) finish(a), finish(p);
    return true;
  }

  // Rate of a's computing operation: slowdown(its tp) / slowdown(the ranks computing on its node).
  std::vector<double> rates() const {
    std::map<std::pair<int, int>, int> computing;
    for (size_t a = 0; a < ops_.size(); ++a)
      if (running_[a] && ops_[a][next_[a]].kind != Op::Transfer)
        computing[{replicaOf(a).site, replicaOf(a).node}] += replicaOf(a).replica->tp;
    std::vector<double> r(ops_.size(), 0.0);
    for (size_t a = 0; a < ops_.size(); ++a) {
      if (!running_[a] || ops_[a][next_[a]].kind == Op::Transfer) continue;
      const ReplicaData& d = replicaOf(a);
      const int k = computing.at({d.site, d.node});
      r[a] = d.gpu->sharedComputeSlowdown(d.replica->tp) / d.gpu->sharedComputeSlowdown(k);
    }
    return r;
  }

  // To the next event: an operation ending or a waiting one becoming ready. False when none.
  bool advance() {
    const std::vector<double> rate = rates();
    double next = std::numeric_limits<double>::infinity();
    std::vector<double> at(ops_.size(), next);
    for (size_t a = 0; a < ops_.size(); ++a) {
      if (running_[a])
        at[a] = ops_[a][next_[a]].kind == Op::Transfer ? left_[a] : now_ + left_[a] / rate[a];
      else if (wake_[a] > now_) next = std::min(next, wake_[a]);
      next = std::min(next, at[a]);
    }
    if (!std::isfinite(next)) return false;
    const double dt = next - now_;
    now_ = next;
    for (size_t a = 0; a < ops_.size(); ++a) {
      if (!running_[a]) continue;
      if (at[a] <= next * (1 + 1e-12)) finish(a);
      else if (ops_[a][next_[a]].kind != Op::Transfer) left_[a] -= rate[a] * dt;
    }
    return true;
  }

  void finish(size_t a) {
    const Op& op = ops_[a][next_[a]];
    const size_t j = a / P_, s = a % P_;
    PipelineRun& r = out_.runs[j];
    const double took = now_ - start_[a];
    if (op.kind == Op::Step) {
      out_.stage_end[s] = std::max(out_.stage_end[s], now_);
      out_.optimizer_s[s] = std::max(out_.optimizer_s[s], took);
    } else if (op.kind == Op::Transfer) {
      r.comm[s] += took;
      r.free_at[s] = now_;
    } else {
      const bool f = op.pipe == PipeOp::Forward;
      if (timeline_)
        pushTimeline(a, {static_cast<int>(s), op.microbatch, f ? 'F' : 'B', start_[a], now_});
      r.busy[s] += took;
      r.free_at[s] = now_;
      if (!f) r.last_backward[s] = now_;
    }
    end_[a][next_[a]] = now_;
    running_[a] = false;
    ++next_[a];
  }

  void pushTimeline(size_t a, TimelineOp op) { out_.runs[a / P_].ops.push_back(op); }

  const SharedComputeInput& in_;
  size_t J_, P_;
  bool timeline_;
  double now_ = 0;
  std::vector<std::vector<Op>> ops_;
  std::vector<std::vector<double>> end_;  // [agent][op]: when it ended, -1 before
  std::vector<size_t> next_;
  std::vector<size_t> scheduled_;  // [agent]: its schedule's operations (before the step)
  std::vector<bool> running_;
  std::vector<double> start_, left_, wake_;  // left_: compute left, or a transfer's end
  SharedComputeRun out_;
};

}  // namespace

SharedComputeRun runSharedCompute(const SharedComputeInput& in, int M, PipelineSchedule schedule,
                                  bool timeline) {
  return SharedCompute(in, M, schedule, timeline).run();
}

}  // namespace sailor::sim
