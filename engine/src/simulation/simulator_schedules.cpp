// The schedules large runs use (sailor/planning/plan.hpp Schedule; docs/simulator.md, "Schedules"),
// as simulator steps declared in simulator_internal.hpp:
//   modelStateBytes          weights, gradients and optimizer state per GPU under a sharding
//   interleavedWarmup, interleavedOps, runInterleaved
//                            Megatron-LM's interleaved 1F1B schedule of v model chunks per GPU
//   exposedAfter             what a bucketed collective overlapped with compute leaves exposed
//   shardedStageTimes        fully sharded data parallelism's gathers inside each microbatch
//   stageSyncAndStepScheduled the data-parallel sum and optimizer step under a schedule
#include <algorithm>
#include <cassert>
#include <cmath>

#include "simulator_internal.hpp"

namespace sailor {

// NOTE [Interleaved 1F1B], below.
int interleavedWarmup(int P, int d, int M, int v) {
  const int total = M * v;
  if (M == P) return total;
  return std::min(total, (P - d - 1) * 2 + (v - 1) * P);
}

std::vector<InterleavedOp> interleavedOps(int P, int d, int M, int v) {
  std::vector<std::pair<int, int>> fwd, bwd;  // (chunk, microbatch)
  for (int g0 = 0; g0 < M; g0 += P)
    for (int c = 0; c < v; ++c)
      for (int mb = g0; mb < std::min(g0 + P, M); ++mb) {
        fwd.emplace_back(c, mb);
        bwd.emplace_back(v - 1 - c, mb);
      }
  const int total = M * v, warm = interleavedWarmup(P, d, M, v);
  std::vector<InterleavedOp> ops;
  ops.reserve(static_cast<size_t>(2 * total));
  for (int i = 0; i < warm; ++i)
    ops.push_back({true, fwd[static_cast<size_t>(i)].first, fwd[static_cast<size_t>(i)].second});
  for (int i = 0; i < total - warm; ++i) {
    const auto& f = fwd[static_cast<size_t>(warm + i)];
    const auto& b = bwd[static_cast<size_t>(i)];
    ops.push_back({true, f.first, f.second});
    ops.push_back({false, b.first, b.second});
  }
  for (int i = total - warm; i < total; ++i)
    ops.push_back({false, bwd[static_cast<size_t>(i)].first, bwd[static_cast<size_t>(i)].second});
  return ops;
}

}  // namespace sailor

namespace sailor::sim {

// NOTE [Sharded model state]
// Bytes per parameter (Megatron-LM docs/source/api-guide/dist_optimizer.md, the ZeRO paper,
// Rajbhandari et al. SC'20, Section 5): the weights in the compute type, the gradients in fp32
// (Megatron accumulates mixed-precision gradients in fp32, job.cpp), and the optimizer's fp32
// state (master weights and two Adam moments: 12 bytes; SGD with momentum: 8; an fp32 job has
// no separate master copy). The distributed optimizer (ZeRO-1) keeps 1/D of the optimizer state
// per replica: bf16 + Adam 6 + 12/D, Megatron's table. Fully sharded data parallelism keeps
// 1/D of everything. With no sharding: Job::stateBytesPerParameter.
double modelStateBytes(double params, const Job& job, DpSharding sharding, int D) {
  if (sharding == DpSharding::None || D < 2) return params * job.stateBytesPerParameter();
  const double weights = job.activationBytesPerElement();
  const double grads = 4.0;
  const double optimizer = job.stateBytesPerParameter() - weights - grads;
  if (sharding == DpSharding::Optimizer) return params * (weights + grads + optimizer / D);
  return params * (weights + grads + optimizer) / D;
}

// NOTE [Interleaved 1F1B]
// Megatron-LM's forward_backward_pipelining_with_interleaving: device d of P holds model chunks
// c = 0..v-1, chunk c being virtual stage c P + d. Microbatches go in groups of P: the forward
// order runs each group through chunk 0, then chunk 1, ..., the backward order through the
// chunks in reverse. Device d runs (P - d - 1) x 2 + (v - 1) x P warm-up forwards (all of them
// when M = P), then one forward and one backward in turn, then the remaining backwards.
// Transfers are non-blocking (Megatron's batched isend/irecv): each delays only the operation
// that needs its data. Each chunk computes 1/v of its device's stage.

void runInterleaved(const std::vector<StageTimes>& stages, int M, int v, PipelineRun& r,
                    std::vector<TimelineOp>* timeline) {
  const int P = static_cast<int>(stages.size());
  const int V = P * v;  // virtual stages
  // The boundary into virtual stage g comes from device (g - 1) mod P: its figure when that
  // device has a next stage, the slowest stage boundary for the wrap from the last device to
  // the first (the same message over the link between them).
  double wrap_f = 0, wrap_b = 0;
  for (int s = 0; s + 1 < P; ++s) {
    wrap_f = std::max(wrap_f, stages[static_cast<size_t>(s)].send_forward_s);
    wrap_b = std::max(wrap_b, stages[static_cast<size_t>(s) + 1].send_backward_s);
  }
  auto send_into = [&](int g) {  // into virtual stage g (> 0), forward
    const int from = (g - 1) % P;
    return from + 1 < P ? stages[static_cast<size_t>(from)].send_forward_s : wrap_f;
  };
  auto send_back = [&](int g) {  // from virtual stage g + 1 into g, backward
    const int to = g % P;
    return to + 1 < P ? stages[static_cast<size_t>(to) + 1].send_backward_s : wrap_b;
  };
  std::vector<std::vector<InterleavedOp>> order(static_cast<size_t>(P));
  for (int d = 0; d < P; ++d) order[static_cast<size_t>(d)] = interleavedOps(P, d, M, v);
  const size_t cells = static_cast<size_t>(V) * static_cast<size_t>(M);
  std::vector<double> fend(cells, -1), bend(cells, -1);
  auto at = [&](int g, int mb) { return static_cast<size_t>(g) * static_cast<size_t>(M) + mb; };
  std::vector<size_t> next(static_cast<size_t>(P), 0);
  bool progress = true;
  while (progress) {
    progress = false;
    for (int d = 0; d < P; ++d) {
      const size_t du = static_cast<size_t>(d);
      const StageTimes& st = stages[du];
      while (next[du] < order[du].size()) {
        const InterleavedOp op = order[du][next[du]];
        const int g = op.chunk * P + d;
        double start = r.free_at[du];
        if (op.forward) {
          if (g > 0) {
            if (fend[at(g - 1, op.microbatch)] < 0) break;
            start = std::max(start, fend[at(g - 1, op.microbatch)] + send_into(g));
          }
          const double dur = st.forward_s / v;
          fend[at(g, op.microbatch)] = start + dur;
          if (timeline) timeline->push_back({d, op.microbatch, 'F', start, start + dur});
          r.busy[du] += dur;
          r.free_at[du] = start + dur;
        } else {
          if (g + 1 < V) {
            if (bend[at(g + 1, op.microbatch)] < 0) break;
            start = std::max(start, bend[at(g + 1, op.microbatch)] + send_back(g));
          } else if (fend[at(g, op.microbatch)] < 0) {
            break;
          }
          const double dur = st.backward_s / v;
          bend[at(g, op.microbatch)] = start + dur;
          if (timeline) timeline->push_back({d, op.microbatch, 'B', start, start + dur});
          r.busy[du] += dur;
          r.free_at[du] = start + dur;
          r.last_backward[du] = r.free_at[du];
        }
        ++next[du];
        progress = true;
      }
    }
  }
  for (int d = 0; d < P; ++d)
    assert(next[static_cast<size_t>(d)] == order[static_cast<size_t>(d)].size() &&
           "interleaved schedule deadlocked");
}

// NOTE [Overlapped collectives]
// A collective of `total_bytes` cut into n equal buckets, bucket i ready at (i + 1) / n of a
// compute phase of `compute_s` (gradients become final evenly over the backward, in the reverse
// order of the layers; parameters are needed evenly over the forward), the buckets one after
// another on the communication stream, `seconds(bucket)` each. Bucket i ends at the latest of
// ready_j + (n - j) t over j <= i; the last at max(compute / n + n t, compute + t). Returns
// what runs past the compute phase: at least the last bucket, t (PyTorch DDP; Megatron-LM's
// --overlap-grad-reduce; the all-gathers of --overlap-param-gather and FSDP's prefetch mirrored
// against the forward).
double exposedAfter(double compute_s, double total_bytes, double bucket_bytes,
                    const std::function<double(double)>& seconds) {
  if (!(total_bytes > 0)) return 0;
  const double n = std::max(1.0, std::ceil(total_bytes / bucket_bytes));
  const double t = seconds(total_bytes / n);
  return std::max(compute_s / n + n * t, compute_s + t) - compute_s;
}

// Megatron-LM's DistributedDataParallelConfig bucket: max(4e7, 1e6 x D) parameters.
double megatronBucketParams(int D) {
  return std::max(4e7, 1e6 * D);
}

double gradientBucketParams(const SimulatorOptions& options, int D) {
  return options.gradient_bucket_params > 0 ? options.gradient_bucket_params
                                            : megatronBucketParams(D);
}

double overlappedReductionSeconds(double total_s, double params, double last_backward_s,
                                  const SimulatorOptions& options, int D) {
  if (!(params > 0)) return 0;
  return exposedAfter(last_backward_s, params, gradientBucketParams(options, D),
                      [&](double p) { return total_s * p / params; });
}

namespace {

// The slowest ring of a stage's replicas: seconds of a reduce-scatter (or all-gather) of
// `bytes_per_param` x each GPU's parameters, D - 1 steps of 1/D (half a ring all-reduce).
double slowestHalfRing(const std::vector<ReplicaData>& replicas, Links& links,
                       double bytes_per_param, double fraction, const SimulatorOptions& options) {
  const int D = static_cast<int>(replicas.size());
  double s = 0;
  for (int k = 0; k < D; ++k) {
    const ReplicaData& x = replicas[static_cast<size_t>(k)];
    const ReplicaData& y = replicas[static_cast<size_t>((k + 1) % D)];
    const int g = Links::ringGpus(x, y);
    s = std::max(
        s, 0.5 * ringAllReduceSeconds(links.between(x, y, g), x.params * fraction * bytes_per_param,
                                      D, g, options, collectiveBusBytesPerS(*x.gpu, *y.gpu)));
  }
  return s;
}

void bookRing(const std::vector<ReplicaData>& replicas, double bytes_per_param, double times,
              EgressLedger& egress) {
  const int D = static_cast<int>(replicas.size());
  for (int k = 0; k < D; ++k) {
    const ReplicaData& x = replicas[static_cast<size_t>(k)];
    const ReplicaData& y = replicas[static_cast<size_t>((k + 1) % D)];
    egress.add(x.replica->zone, y.replica->zone,
               times * (D - 1.0) / D * x.params * bytes_per_param * x.replica->tp);
  }
}

}  // namespace

// NOTE [Fully sharded stages]
// ZeRO-3 and FSDP gather each layer's parameters before its forward and again before its
// backward, and reduce-scatter its gradients after the backward, for every microbatch (with
// gradient accumulation too: DeepSpeed's stage 3 and FSDP's default reshard after forward). The
// gathers of the next layers run ahead of the compute (prefetch), so per microbatch the forward
// takes F plus what its all-gathers leave exposed (exposedAfter, a bucket per layer), the
// backward B plus what the all-gathers and reduce-scatters leave exposed. Parameters travel in
// the compute type, gradients in fp32.
void shardedStageTimes(StageReplicas& stages, Links& links, const Job& job,
                       const SimulatorOptions& options, const std::vector<int>& layers,
                       const std::vector<bool>& unhidden) {
  const double w = job.activationBytesPerElement();
  for (size_t s = 0; s < stages.size(); ++s) {
    auto& reps = stages[s];
    if (reps.size() < 2) continue;
    const double gather = slowestHalfRing(reps, links, w, 1.0, options);
    const double scatter = slowestHalfRing(reps, links, 4.0, 1.0, options);
    const double n = std::max(1, layers[s]);
    for (ReplicaData& d : reps) {
      const double params = std::max(d.params, 1.0);
      const auto per = [&](double seconds) {
        return [seconds, params](double bytes) { return seconds * bytes / params; };
      };
      const double f = d.forward_s, b = d.backward_s;
      if (unhidden[s]) {
        d.forward_s = f + gather;
        d.backward_s = b + gather + scatter;
        continue;
      }
      d.forward_s = f + exposedAfter(f, params, params / n, per(gather));
      d.backward_s = b + exposedAfter(b, params, params / n, per(gather + scatter));
    }
  }
}

SyncAndStep stageSyncAndStepScheduled(const std::vector<ReplicaData>& replicas, Links& links,
                                      EgressLedger& egress, const SimulatorOptions& options,
                                      const Schedule& sch, const Job& job, int M,
                                      double last_backward_s, double first_forward_s) {
  const int D = static_cast<int>(replicas.size());
  if (sch.sharding == DpSharding::None && !sch.overlap_grad_reduce)
    return stageSyncAndStep(replicas, links, egress, options);
  SyncAndStep r;
  const double shard = sch.sharding == DpSharding::None ? 1.0 : 1.0 / std::max(1, D);
  // The step over the replica's shard; the gradients sit in one contiguous buffer that the
  // collectives use in place (Megatron-LM's DDP), so no bucket copies.
  for (const ReplicaData& x : replicas)
    r.optimizer_s = std::max(r.optimizer_s, x.optimizer_s_per_param * x.params * shard);
  if (D < 2) return r;
  const double w = job.activationBytesPerElement();
  if (sch.sharding == DpSharding::Full) {  // the collectives ran inside the microbatches
    bookRing(replicas, 2 * w + 4.0, M, egress);
    return r;
  }
  double reduce = 0, gather = 0;
  if (sch.sharding == DpSharding::None) {
    reduce = 2.0 * slowestHalfRing(replicas, links, 4.0, 1.0, options);
    bookRing(replicas, 8.0, 1.0, egress);
  } else {
    reduce = slowestHalfRing(replicas, links, 4.0, 1.0, options);
    gather = slowestHalfRing(replicas, links, w, 1.0, options);
    bookRing(replicas, 4.0 + w, 1.0, egress);
  }
  r.total_sync_s = reduce + gather;
  if (!sch.overlap_grad_reduce) {
    r.sync_s = reduce + gather;
    return r;
  }
  double params = 0;
  for (const ReplicaData& x : replicas) params = std::max(params, x.params);
  const double bucket = gradientBucketParams(options, D);
  const auto per = [params](double seconds) {
    return [seconds, params](double p) { return params > 0 ? seconds * p / params : 0.0; };
  };
  r.sync_s = exposedAfter(last_backward_s, params, bucket, per(reduce)) +
             exposedAfter(first_forward_s, params, bucket, per(gather));
  return r;
}

}  // namespace sailor::sim
