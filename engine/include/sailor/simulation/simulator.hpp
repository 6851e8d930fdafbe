// The simulator: for a plan on a scenario and a job, predicts peak memory per GPU, iteration
// time with a breakdown, throughput and cost. Pure function of its inputs; never prints.
// Models and their rationale: docs/simulator.md.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/scenario/scenario.hpp"

namespace sailor {

enum class PipelineSchedule { DeepSpeed, Async1F1B };

struct SimulatorOptions {
  // Gradient all-reduce bucket, bytes per GPU (DeepSpeed/Megatron default: 5e8 elements).
  double allreduce_bucket_bytes = 2e9;
  // Bandwidth a data-parallel ring all-reduce achieves per step, as a fraction of the link's
  // figure: 1 where NCCL's ring reaches the network's bandwidth (NOTE [Collective efficiency] in
  // simulator_comm.cpp); lower for a network that falls short (nccl-tests' bus bandwidth over the
  // link's).
  double collective_efficiency = 1.0;
  // DeepSpeed: Megatron-DeepSpeed's pipeline engine (blocking transfers that occupy both ends,
  // NOTE [DeepSpeed pipeline schedule]). Async1F1B: 1F1B with transfers overlapped with compute.
  PipelineSchedule schedule = PipelineSchedule::DeepSpeed;
  // Record the per-op timeline (Prediction::timeline, the studio's Gantt). Off where only the
  // figures matter (the planner ranking hundreds of plans): a third of a 512-GPU simulation.
  bool timeline = true;
  // Parameters per bucket of an overlapped gradient reduction (the plan's
  // schedule.overlap_grad_reduce). 0: Megatron-LM's implementation, buckets of max(4e7, 1e6 x D)
  // reduced in place in the contiguous gradient buffer. Set: sailor run's runtime, whose
  // gradients are copied into flat buckets of this many elements (RunSpec::bucket_elements; its
  // predictions set it) with or without overlap, and whose memory holds them.
  double gradient_bucket_params = 0;
  bool operator==(const SimulatorOptions&) const = default;
};

struct MemoryBreakdown {
  std::string gpu_type;
  std::string zone;
  int stage = 0;
  int replica = 0;
  int tp = 1;
  int node =
      0;  // which node of its (zone, GPU type) holds it, counted from 0 (NOTE [Node placement])
  double model_state_bytes = 0;  // weights, gradients, optimizer state, master copy
  double activation_bytes = 0;   // kept for backward, for the microbatches in flight
  int microbatches_in_flight = 0;
  double transient_bytes = 0;  // working set of the largest layer's backward
  double gradient_bucket_bytes =
      0;  // flat copy of the gradients for the all-reduce (NOTE [Gradient bucket])
  double runtime_overhead_bytes = 0;
  // NCCL buffers of the process groups the GPU belongs to (NOTE [Communicator buffers]); 0 for
  // GPU types without nccl_channels.
  double communicator_bytes = 0;
  int communicators = 0;  // the runtime's groups and point-to-point peers of this GPU
  double total_bytes = 0;
  double capacity_bytes = 0;
  bool fits() const { return total_bytes <= capacity_bytes; }
};

// Where the iteration goes on the busiest stage (the bottleneck: most compute, transfers, sync
// and step; NOTE [Breakdown of the busiest stage]). Seconds per iteration; they add up to
// iteration_s.
struct TimeBreakdown {
  int stage = 0;           // which stage
  double compute_s = 0;    // its busy time (forward + backward)
  double bubble_s = 0;     // the rest: pipeline fill/drain and waiting for other stages
  double p2p_s = 0;        // its blocking point-to-point transfers
  double dp_sync_s = 0;    // its data-parallel gradient all-reduce (and tied-embedding one)
  double optimizer_s = 0;  // its optimizer step (slowest replica)
};

struct StageTimes {
  double forward_s = 0;  // per microbatch, straggler replica
  double backward_s = 0;
  double send_forward_s = 0;   // activation to the next stage, slowest replica pair
  double send_backward_s = 0;  // gradient to the previous stage
  double dp_sync_s =
      0;  // gradient all-reduces: data-parallel, and tied embeddings on the first and last stage
  double optimizer_s = 0;
  // Seconds of the iteration the stage works in the critical pipeline: compute, blocking
  // transfers, all-reduces and step (the rest it waits). The busiest stage has the breakdown.
  double work_s = 0;
  int straggler_replica = 0;
  int microbatches = 0;
};

struct EgressItem {
  std::string from_zone;
  std::string to_zone;
  double bytes = 0;  // per iteration
  double usd = 0;
};

// One simulated operation of the 1F1B timeline (for the studio's Gantt chart).
struct TimelineOp {
  int stage = 0;
  int microbatch = 0;
  // 'F' forward, 'B' backward, 'S' send/recv, 'A' all-reduce after the backward, 'R' the
  // reduction overlapped with the last backward (from its start), 'O' optimizer
  char kind = 'F';
  double start_s = 0;
  double end_s = 0;
};

struct Prediction {
  bool fits = true;
  std::vector<MemoryBreakdown> memory;     // one per (stage, replica)
  std::vector<std::string> out_of_memory;  // readable: which GPU, by how much
  double iteration_s = 0;
  TimeBreakdown breakdown;
  std::vector<StageTimes> stages;
  double iterations_per_s = 0;
  double tokens_per_s = 0;
  double compute_usd = 0;  // per iteration
  double egress_usd = 0;   // per iteration
  double usd_per_iteration = 0;
  double usd_per_hour = 0;
  std::vector<EgressItem> egress;
  std::vector<TimelineOp> timeline;
  // Which profile source each figure came from: "timings A100-40 mbs 4 tp 2" -> "analytic".
  std::vector<std::pair<std::string, std::string>> sources;

  double peakMemoryBytes() const;  // max over GPUs
  nlohmann::json toJson() const;
};

// Bytes of the flat buffer DeepSpeed's data-parallel all-reduce copies a GPU's gradients into
// at the end of the iteration (NOTE [Gradient bucket] in simulator_memory.cpp): up to 5e8 elements,
// in the gradients' all-reduce type.
double gradientBucketBytes(double params, const Job& job);

// Peak bytes on one GPU of a replica: model states + activations x in-flight microbatches +
// transient (2 x the largest layer's activations) + gradient bucket + runtime overhead;
// per-sequence activation figures, times the microbatch size. The simulator's MemoryBreakdown
// holds the same terms.
// Under a schedule, the model state of `dp` replicas sharded by `sharding` (no gradient bucket
// for Megatron-LM's data parallelism, overlapped or sharded): the simulator's terms for a plan of
// that schedule with one virtual stage (replicaMemory in
// engine/src/simulation/simulator_internal.hpp).
// The interleaved 1F1B schedule of a P-stage pipeline with v model chunks per device and M
// microbatches (NOTE [Interleaved 1F1B] in simulator_schedules.cpp), which the simulator times
// and the bundled runtime runs: device d's warm-up forwards, and its whole order of operations.
// The order completes for M a multiple of P (Plan::interleavingFits) and for M < P.
int interleavedWarmup(int P, int d, int M, int v);
struct InterleavedOp {
  bool forward = true;
  int chunk = 0;  // model chunk on the device, 0..v-1
  int microbatch = 0;
};
std::vector<InterleavedOp> interleavedOps(int P, int d, int M, int v);

double replicaMemoryBytes(double params, double activation_bytes_per_seq,
                          double max_layer_activation_per_seq, int microbatch_size, int in_flight,
                          const Job& job, const GpuType& gpu, const Schedule& schedule = {},
                          int dp = 1);

// The data-parallel figures of one stage under a schedule, in the planner's closed form: what the
// iteration waits for after the stage's last backward (`sync_s`) and its optimizer step, from
// the ring all-reduce of the stage's fp32 gradients (`allreduce_s`, ringAllReduceSeconds), the
// parameters a GPU holds, D, and the stage's per-microbatch forward and backward. The default
// schedule: the all-reduce and stepSeconds. The distributed optimizer: a reduce-scatter (half the
// all-reduce) and an all-gather of the weights in the compute type, the step over 1/D without
// bucket copies; overlapped, what the buckets leave exposed (docs/simulator.md, "Schedules").
struct DataParallelFigures {
  double sync_s = 0;
  double step_s = 0;
};
DataParallelFigures dataParallelFigures(const Schedule& schedule, const Job& job,
                                        double allreduce_s, double params, int D,
                                        double optimizer_s_per_param, const GpuType& gpu,
                                        double forward_s, double backward_s);

// Seconds of a bucketed ring all-reduce of `shard_bytes` per GPU among D replicas over `link`
// (2 (D - 1) steps of bucket / D bytes), with `gpus` GPUs of each node running their rings at
// once over it (a replica's tp ranks; `link` resolved at that GPU count), divided by the
// collective efficiency. `device_bus_bytes_per_s` (collectiveBusBytesPerS below; 0: none) bounds
// each step where the devices' own reduction is slower than the link. NOTE [Collective
// efficiency] in simulator_comm.cpp.
double ringAllReduceSeconds(const ResolvedLink& link, double shard_bytes, int D, int gpus,
                            const SimulatorOptions& options, double device_bus_bytes_per_s);
// The sum of `seconds(bucket)` over `bytes` cut into buckets of `bucket_bytes` (> 0), the last
// one the remainder: n full buckets at seconds(bucket_bytes) each, plus the remainder's, in
// closed form, so that its cost does not grow with `bytes` (1e18 bytes in 5e8-byte buckets
// would take 2e9 steps, and past 2^53 buckets `bytes - bucket_bytes` no longer changes).
template <class Seconds>
double bucketedSeconds(double bytes, double bucket_bytes, Seconds seconds) {
  if (!(bytes > 0)) return 0;
  const double full = std::floor(bytes / bucket_bytes);
  const double rest = bytes - full * bucket_bytes;
  return (full > 0 ? full * seconds(bucket_bytes) : 0.0) + (rest > 0 ? seconds(rest) : 0.0);
}
// Seconds of a replica's step after the backward pass: the optimizer over its `params` (per
// GPU) and, with D >= 2 replicas, the data-parallel sum's two bucket copies (gradients into the
// flat bucket, sums back), each reading and writing the fp32 gradients at the GPU type's memory
// bandwidth. NOTE [Bucket copies] in simulator_comm.cpp.
double stepSeconds(double optimizer_s_per_param, double params, int D, const GpuType& gpu);
// The bus bandwidth a ring through GPUs of types a and b can reach on the devices' side: the
// lower of their collective_bus_bandwidth_gb_per_s where set, in B/s; 0 when neither sets it.
double collectiveBusBytesPerS(const GpuType& a, const GpuType& b);

// Pieces a boundary message travels in between replicas of these tp degrees: tp when they
// match (DeepSpeed's partitioned activations and gradients), else 1.
int boundaryStreams(int from_tp, int to_tp);
// Seconds of one boundary message of `bytes` in `streams` pieces (boundaryStreams) sent at once
// over `link` (resolved at that GPU count; inside one node, `same_node`, each piece on its own
// pair of GPUs), then the receiver's all-gather of the pieces over `receiver_node`.
// NOTE [Point-to-point transfers] in simulator_comm.cpp.
double boundaryTransferSeconds(const ResolvedLink& link, const ResolvedLink& receiver_node,
                               double bytes, int streams, bool same_node);

// Throws InputError naming the first figure of `p` that is not finite, by its path in toJson
// ("prediction.stages[1].dp_sync_s: got inf, ..."): what an input figure beyond every bound
// would make of it. simulate() checks its prediction so, so that no caller prints inf or nan.
void requireFiniteFigures(const Prediction& p);

// With `links` (a LinkIndex of `scenario`), the links are looked up through it: the planner
// simulates hundreds of plans of one scenario. Throws InputError for input that is wrong, and
// for a prediction with a figure that is not finite (requireFiniteFigures).
Prediction simulate(const Plan& plan, const Scenario& scenario, const Job& job,
                    const Catalog& catalog, const ProfileSet& profiles,
                    const SimulatorOptions& options = {}, const LinkIndex* links = nullptr);

// The prediction's timeline (the critical pipeline's operations) in the Chrome trace-event
// format that Perfetto (ui.perfetto.dev) and chrome://tracing open: one process, per stage a
// compute track (forward, backward, optimizer) and a communication track (transfers, gradient
// all-reduces), complete events in microseconds named by kind and microbatch ("F 3", "B 3").
nlohmann::json timelineTrace(const Prediction& prediction, const Plan& plan);

}  // namespace sailor
