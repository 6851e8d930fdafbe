// The simulator's steps (engine/src/simulator*.cpp), in the order sailor::simulate runs them:
// gather replicas, place them on nodes, memory, links, boundary transfers, the pipeline
// schedules, data-parallel sync and optimizer step, breakdown, cost. simulate() is the contract
// (sailor/simulation/simulator.hpp); this header is private to the engine, as planner_internal.hpp
// is: the simulator's files and plan_links.cpp share it, and tests reach it through their target's
// include directories to test each step on small instances (test_simulator_parts.cpp). Seconds
// and bytes throughout; per GPU unless a name says otherwise. Models: docs/simulator.md.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/simulation/simulator.hpp"

namespace sailor::sim {

// One replica of a stage: its profile figures summed over the stage's layers.
struct ReplicaData {
  const Replica* replica = nullptr;  // in the plan
  const GpuType* gpu = nullptr;      // in the catalogue
  double forward_s = 0;              // per microbatch, sum over the stage's layers
  double backward_s = 0;
  double params = 0;  // held by one GPU
  double activation_bytes_per_seq = 0;
  double max_layer_activation_per_seq = 0;
  double output_elements = 0;  // of the stage's last layer, per sequence
  double optimizer_s_per_param = 0;
  double tied_params = 0;  // head only: parameters tied to the embedding, per GPU
  int gpus_per_node = 1;
  double usd_per_gpu_hour = 0;
  int site = -1;   // (zone, GPU type) of the replica, numbered per simulation: links depend on it
  int node = 0;    // node of its site holding the replica's GPUs (NOTE [Node placement])
  int layers = 1;  // plan layers of its stage
};

// [stage][replica], in plan order.
using StageReplicas = std::vector<std::vector<ReplicaData>>;

// Step 1, gather replicas: every replica's figures from the profiles, the sites they stand on
// and which profile source answered each figure ("timings G1 mbs 2 tp 1" -> source). Throws
// InputError when a profile's layer count is not the model's plan layers.
struct GatheredReplicas {
  StageReplicas stages;
  std::vector<const Replica*> site_replica;  // one replica of each site, indexed by site
  std::map<std::string, std::string> sources;
};
GatheredReplicas gatherReplicas(const Plan& plan, const Scenario& scenario, const Job& job,
                                const Catalog& catalog, const ProfileSet& profiles);

// Step 2, place on nodes (NOTE [Node placement]): sets every replica's `node`, filling each
// site's nodes stage by stage and replica by replica, tp GPUs at a time, a replica never split.
void placeOnNodes(StageReplicas& stages);

// Microbatches each replica of each stage processes: ceil(G / (b D_s)).
std::vector<int> stageMicrobatches(const Plan& plan, const Job& job);

// The process groups the bundled runtime creates that a GPU of replica `replica` of stage
// `stage` belongs to (runner/src/training/comm.cpp: allGroups, and P2p's sends over the world
// group, for which NCCL opens a communicator per pair of ranks): the collective groups' sizes (its
// tp group, its data-parallel group, the tied-embedding group of the first and last stage) and its
// point-to-point peers across stage boundaries. The world group's communicator is first used at
// the end of the run (finishGroups), after the iterations' peak, and is not counted.
struct GpuGroups {
  std::vector<int> collective_sizes;
  int p2p_peers = 0;
};
GpuGroups gpuGroups(const Plan& plan, bool tied_embeddings, int stage, int replica);
// What gpuGroups reads of a stage and its neighbours, gathered once per stage: asked per
// replica it walked the stage's D replicas each time, D^2 per stage (a quarter of a 128-replica
// plan's simulation).
struct StageGroupShape {
  int replicas = 0;                 // D
  int ranks = 0;                    // the tp degrees' sum
  bool one_tp = true;               // every replica at the same tp
  int tied_members = 0;             // the tied-embedding group's GPUs; 0 without one
  int neighbour_pairs[2] = {0, 0};  // pairs across the boundary before and after (0: none)
};
StageGroupShape stageGroupShape(const Plan& plan, bool tied_embeddings, int stage);
GpuGroups gpuGroups(const StageGroupShape& shape, int tp, int replica);
// Bytes of the NCCL buffers of those groups on one GPU of type `gpu` (NOTE [Communicator
// buffers]); 0 when the type has no nccl_channels.
double communicatorBytes(const GpuType& gpu, const GpuGroups& groups);

// Step 3, memory: the peak of one GPU of replica `replica` of stage `stage` (of `stages`),
// which processes `microbatches` microbatches of `microbatch_size` sequences; `groups` its
// process groups (gpuGroups), whose communicators hold `communicatorBytes`.
// Under a schedule: the model state sharded over the stage's `dp` replicas, and with v virtual
// stages the chunks in flight of the interleaved warm-up (NOTE [Interleaved 1F1B]).
// `bucket_copy`: whether the gradient reduction copies the gradients into a bucket; unset, as
// the schedule's framework does (DeepSpeed's engine does, Megatron-LM's contiguous buffer does
// not); sailor run's runtime always does (ReplicaGradientSum).
MemoryBreakdown replicaMemory(const ReplicaData& d, int stage, int replica, int stages,
                              int microbatches, int microbatch_size, const Job& job,
                              const GpuGroups& groups = {}, const Schedule& schedule = {},
                              int dp = 1, std::optional<bool> bucket_copy = {});
// "stage 1 replica 0 (G1, tp 2, r1-a) needs 1.50 GiB of 1.00 GiB: over by 0.50 GiB".
std::string outOfMemoryMessage(const MemoryBreakdown& m);

// Per stage, the straggler replica (most forward + backward time per microbatch) and its
// times, with the stage's microbatch count. Transfers, sync and step are left at 0.
std::vector<StageTimes> stageCompute(const StageReplicas& stages,
                                     const std::vector<int>& microbatches);

// Step 4, links: the links between the replicas' nodes and the fabric inside each site's nodes,
// from the LinkIndex, the one cache of link figures (the planner's, or one of this object's own).
// A 512-replica plan asks for the same few pairs a thousand times: the object keeps, per (site,
// site, GPU count) and per site, where the index holds the answer. References stay valid for
// the object's lifetime.
class Links {
 public:
  // Through `index` when given (a LinkIndex of `scenario`).
  Links(const Scenario& scenario, const Catalog& catalog, std::vector<const Replica*> site_replica,
        const LinkIndex* index = nullptr);
  // The fabric inside x's node (transfers between GPUs of one node, tp all-gathers).
  const ResolvedLink& node(const ReplicaData& x);
  // From x's node to y's for g GPUs sending at once; the node's fabric when they share a node.
  const ResolvedLink& between(const ReplicaData& x, const ReplicaData& y, int g);
  static bool sameNode(const ReplicaData& x, const ReplicaData& y);
  // GPUs of x's replica whose rings run at once over the link to y: its tp ranks between
  // nodes, one pair of GPUs each inside a node (NOTE [Collective efficiency]).
  static int ringGpus(const ReplicaData& x, const ReplicaData& y);

 private:
  const Catalog& catalog_;
  std::vector<const Replica*> site_replica_;
  std::optional<LinkIndex> own_;  // when no index is given
  const LinkIndex* index_;
  // Into the index's answers: [(g x sites + from site) x sites + to site], per site.
  std::vector<const ResolvedLink*> between_;
  std::vector<const ResolvedLink*> in_node_;
};

// Bytes crossing each zone pair per iteration, in order of first use; a zone to itself is free
// and not recorded.
class EgressLedger {
 public:
  void add(const std::string& from_zone, const std::string& to_zone, double bytes);
  const std::vector<EgressItem>& items() const { return items_; }
  std::vector<EgressItem> release() { return std::move(items_); }

 private:
  std::vector<EgressItem> items_;
};

// Seconds of one boundary pair's activation (s -> s+1) and gradient (s+1 -> s).
struct PairSeconds {
  double forward_s = 0;
  double backward_s = 0;
};

// Step 5, boundary transfers (NOTE [Point-to-point transfers]): per boundary s and pair j
// (replica j of one side with j mod D of the other), the seconds of its messages of
// output_elements x b x `bytes_per_element` bytes. Sets stage s's send_forward_s and stage
// s+1's send_backward_s to the slowest pair's and books the bytes in `egress`.
std::vector<std::vector<PairSeconds>> boundaryTransfers(const StageReplicas& stages,
                                                        const std::vector<int>& microbatches,
                                                        int microbatch_size, int bytes_per_element,
                                                        Links& links, EgressLedger& egress,
                                                        std::vector<StageTimes>& times);

// Step 6a, the data-parallel pipelines to simulate (NOTE [Data-parallel pipelines]): with the
// same degree D in every stage, pipeline j's own times, less those no slower anywhere than
// another; else the one pipeline of straggler and slowest-pair figures, `times` itself.
std::vector<std::vector<StageTimes>> dataParallelPipelines(
    const StageReplicas& stages, const std::vector<StageTimes>& times,
    const std::vector<std::vector<PairSeconds>>& pairs, const std::vector<int>& microbatches);

// One DeepSpeed TrainSchedule instruction of a stage (NOTE [DeepSpeed pipeline schedule]).
struct PipeOp {
  enum Kind { Forward, Backward, SendAct, RecvAct, SendGrad, RecvGrad } kind;
  int microbatch;
};
// Stage s's instructions, of P stages and M microbatches, in DeepSpeed's order.
std::vector<PipeOp> deepSpeedOps(int P, int s, int M);

// One pipeline's schedule, per stage: when it is free, its compute and blocking-transfer
// seconds, and when its last backward ended.
struct PipelineRun {
  std::vector<double> free_at, busy, comm, last_backward;
  std::vector<TimelineOp> ops;  // when asked for the timeline
  // When stage s is done with its microbatches.
  double doneAt(size_t s) const;
};
// Step 6b, the schedule of one pipeline of `times.size()` stages and M microbatches.
PipelineRun runPipeline(const std::vector<StageTimes>& times, int M, PipelineSchedule schedule,
                        bool timeline);

// Steps 6-7 on GPU types whose ranks share a node's compute (GpuType::sharesCompute; NOTE
// [Ranks sharing a device] in simulator_shared.cpp): every pipeline's schedule and every replica's
// optimizer step in one event-by-event simulation, in which an operation of a replica of tp t
// progresses at slowdown(t) / slowdown(k) of its profiled rate while k ranks of its node compute.
struct SharedComputeInput {
  std::vector<std::vector<StageTimes>> pipelines;         // [pipeline][stage], profiled times
  std::vector<std::vector<const ReplicaData*>> replicas;  // [pipeline][stage]: whose GPUs compute
  std::vector<std::vector<double>> step_s;                // [pipeline][stage]: optimizer step alone
  std::vector<double> sync_s;                             // [stage]: its data-parallel all-reduce
  double tied_sync_s = 0;  // first and last stage, before their all-reduce (tiedEmbeddingSync)
  int virtual_stages = 1;  // > 1: the interleaved 1F1B schedule (interleavedOps)
};
struct SharedComputeRun {
  std::vector<PipelineRun> runs;    // one per pipeline (busy: compute as slowed by sharing)
  std::vector<double> stage_end;    // [stage]: when its last replica ends its step
  std::vector<double> optimizer_s;  // [stage]: its slowest step, as slowed by sharing
};
SharedComputeRun runSharedCompute(const SharedComputeInput& in, int M, PipelineSchedule schedule,
                                  bool timeline);

// Per stage, when the last of its pipelines is done with its microbatches.
std::vector<double> stageDone(const std::vector<PipelineRun>& runs, size_t P);

// Step 7a, tied embedding gradients (NOTE [Tied embedding gradients]): seconds of the
// all-reduce of the tied matrix between the first and the last stage (0 when none), booking its
// bytes in `egress`.
double tiedEmbeddingSync(const StageReplicas& stages, Links& links, EgressLedger& egress,
                         const SimulatorOptions& options);

// Step 7b, one stage's data-parallel gradient all-reduce (its slowest ring) and optimizer step
// (its slowest replica), booking the ring's bytes in `egress`.
struct SyncAndStep {
  double sync_s = 0;  // what the iteration waits for
  double optimizer_s = 0;
  double total_sync_s = 0;  // the collectives' whole duration, overlapped or not
};
SyncAndStep stageSyncAndStep(const std::vector<ReplicaData>& replicas, Links& links,
                             EgressLedger& egress, const SimulatorOptions& options);

// ---- Schedules (engine/src/simulation/simulator_schedules.cpp; docs/simulator.md, "Schedules").

// Model-state bytes of a GPU holding `params` under `sharding` over D replicas (NOTE [Sharded
// model state]).
double modelStateBytes(double params, const Job& job, DpSharding sharding, int D);
// Megatron-LM's data-parallel bucket: max(4e7, 1e6 x D) parameters.
double megatronBucketParams(int D);
// The bucket of an overlapped gradient reduction: options.gradient_bucket_params, else Megatron's.
double gradientBucketParams(const SimulatorOptions& options, int D);
// What an all-reduce of `total_s` over `params` parameters, overlapped with the last
// microbatch's backward of `last_backward_s` in buckets (gradientBucketParams), leaves after it
// (NOTE [Overlapped collectives]).
double overlappedReductionSeconds(double total_s, double params, double last_backward_s,
                                  const SimulatorOptions& options, int D);
// One pipeline's interleaved schedule into r (vectors sized P, zero); transfers non-blocking.
void runInterleaved(const std::vector<StageTimes>& stages, int M, int v, PipelineRun& r,
                    std::vector<TimelineOp>* timeline);
// What a bucketed collective overlapped with a compute phase leaves exposed after it (NOTE
// [Overlapped collectives]): `seconds(bytes)` per bucket of at most `bucket_bytes`.
double exposedAfter(double compute_s, double total_bytes, double bucket_bytes,
                    const std::function<double(double)>& seconds);
// Fully sharded stages: each replica's per-microbatch forward and backward with the exposed part
// of their parameter gathers and gradient reduce-scatters (NOTE [Fully sharded stages]);
// layers[s]: stage s's layer count; unhidden[s]: stage s's collectives hide behind no compute
// (ranks sharing a node's compute with no core left for them), so they add up whole.
void shardedStageTimes(StageReplicas& stages, Links& links, const Job& job,
                       const SimulatorOptions& options, const std::vector<int>& layers,
                       const std::vector<bool>& unhidden);
// A stage's data-parallel sum and optimizer step under a schedule: stageSyncAndStep for the
// default; with sharding a reduce-scatter and all-gather and a step over the shard; with
// overlap, what is left after the last microbatch's backward (`last_backward_s`) and before the
// first forward (`first_forward_s`).
SyncAndStep stageSyncAndStepScheduled(const std::vector<ReplicaData>& replicas, Links& links,
                                      EgressLedger& egress, const SimulatorOptions& options,
                                      const Schedule& sch, const Job& job, int M,
                                      double last_backward_s, double first_forward_s);

// Step 8, breakdown. The critical pipeline: the one that finishes stage `critical` last (the
// first of equals).
size_t criticalPipeline(const std::vector<PipelineRun>& runs, size_t critical);
// The busiest stage of `run` (NOTE [Breakdown of the busiest stage]); sets every stage's work_s.
// stage_end: when each stage ends its step; `critical` wins ties it is part of.
size_t busiestStage(const PipelineRun& run, std::vector<StageTimes>& times,
                    const std::vector<double>& stage_end, size_t critical);
// Stage `stage`'s breakdown of an iteration of `iteration_s`.
TimeBreakdown breakdownOf(const PipelineRun& run, const std::vector<StageTimes>& times,
                          size_t stage, double iteration_s);
// Orders timeline operations by stage, then start time, stably.
void sortTimeline(std::vector<TimelineOp>& ops, size_t P);

// Step 9, cost: the GPUs' rent for an iteration of `iteration_s`, USD.
double computeUsd(const StageReplicas& stages, double iteration_s);
// Prices every egress item from the scenario's sheet ($/GB x bytes / 1e9); returns their sum.
double priceEgress(std::vector<EgressItem>& items, const Scenario& scenario);

}  // namespace sailor::sim
