// The simulator: sailor::simulate predicts a plan's peak memory per GPU, iteration time with a
// breakdown, throughput and cost on a scenario and a job. Models: docs/simulator.md.
//
// Map (simulate runs the steps in this order; each is declared in simulator_internal.hpp):
//   1. gatherReplicas          per replica, its profile figures summed over its stage's layers
//   2. placeOnNodes            which node of its (zone, GPU type) holds each replica
//   3. replicaMemory           peak memory per GPU (gradientBucketBytes, replicaMemoryBytes)
//      stageCompute            per stage, the straggler's forward and backward
//                              (simulator_memory.cpp)
//   4. Links                   links between replicas' nodes, resolved once per site pair
//   5. boundaryTransfers       activations and gradients between stages (boundaryTransferSeconds)
//                              (simulator_comm.cpp)
//   6. dataParallelPipelines   which pipelines to simulate; runPipeline runs each one's schedule
//      (deepSpeedOps, runDeepSpeedSchedule, runAsync1F1B), stageDone (simulator_pipeline.cpp);
//      the interleaved schedule and fully sharded stages (simulator_schedules.cpp)
//   7. tiedEmbeddingSync, stageSyncAndStep   gradient all-reduces (ringAllReduceSeconds), step
//      (simulator_comm.cpp); 6-7 on ranks sharing a node's compute: runSharedCompute
//      (simulator_shared.cpp)
//   8. criticalPipeline, busiestStage, breakdownOf, sortTimeline   the breakdown and timeline
//   9. computeUsd, priceEgress (EgressLedger)   cost per iteration
//  10. requireFiniteFigures (in simulator.hpp)   every figure finite, else an InputError naming it
// Then: timelineTrace (the timeline as Chrome trace events) and Prediction::toJson; 8-10 and
// these in simulator_report.cpp.
#include "sailor/simulation/simulator.hpp"

#include <algorithm>
#include <vector>

#include "sailor/core/error.hpp"
#include "simulator_internal.hpp"

namespace sailor {

double Prediction::peakMemoryBytes() const {
  double m = 0;
  for (const auto& b : memory) m = std::max(m, b.total_bytes);
  return m;
}

namespace sim {
namespace {

// Steps 6-7's result: each simulated pipeline's run and when each stage ends its step.
struct Scheduled {
  std::vector<PipelineRun> runs;
  std::vector<double> stage_end;
};

// Steps 6-7 where no ranks share compute: each pipeline on its own (runPipeline), then each
// stage's all-reduce and step once the last of its pipelines is done (a stage starts its own
// when the last of its pipelines has finished its last backward; the tied-embedding one first).
// Sets every stage's dp_sync_s and optimizer_s.
Scheduled scheduleSeparately(const StageReplicas& data,
                             const std::vector<std::vector<PairSeconds>>& pairs,
                             const std::vector<int>& m_stage, int M, Links& links,
                             EgressLedger& egress, const SimulatorOptions& options,
                             const Schedule& sch, const Job& job, std::vector<StageTimes>& stages) {
  const size_t P = data.size();
  Scheduled out;
  for (const auto& p : dataParallelPipelines(data, stages, pairs, m_stage)) {
    if (sch.virtual_stages > 1) {
      PipelineRun r{std::vector<double>(P, 0.0),
                    std::vector<double>(P, 0.0),
                    std::vector<double>(P, 0.0),
                    std::vector<double>(P, 0.0),
                    {}};
      runInterleaved(p, M, sch.virtual_stages, r, options.timeline ? &r.ops : nullptr);
      out.runs.push_back(std::move(r));
    } else {
      out.runs.push_back(runPipeline(p, M, options.schedule, options.timeline));
    }
  }
  std::vector<double> stage_done = stageDone(out.runs, P);
  const double tied_sync = tiedEmbeddingSync(data, links, egress, options);
  if (tied_sync > 0) {
    const double start = std::max(stage_done.front(), stage_done.back());
    stage_done.front() = stage_done.back() = start + tied_sync;
  }
  out.stage_end.resize(P);
  for (size_t s = 0; s < P; ++s) {
    StageTimes& st = stages[s];
    const double v = sch.virtual_stages;
    const SyncAndStep ss = stageSyncAndStepScheduled(
        data[s], links, egress, options, sch, job, m_stage[s], st.backward_s / v, st.forward_s / v);
    st.dp_sync_s = ((s == 0 || s == P - 1) ? tied_sync : 0.0) + ss.sync_s;
    st.optimizer_s = ss.optimizer_s;
    out.stage_end[s] = stage_done[s] + ss.sync_s + ss.optimizer_s;
  }
  return out;
}

// NOTE [Overlap on a shared device]
// Where ranks share a device's compute (CPU profiles: one process per core), a collective is
// work on the same cores: Gloo sums and copies the buckets through loopback TCP on its own
// threads. Overlapped with the backward it can only run on cores no rank computes on; where
// every core of the node holds a rank (dp2 on two cores), it takes its time from the backward
// and the iteration pays it whole, as if it ran after (docs/benchmarks.md, "Overlapped gradient
// reduction": the runtime and PyTorch DDP alike). With a core left over the buckets hide behind the
// backward as on a GPU (NOTE [Overlapped collectives]). Whether every replica of `stage` shares its
// node with fewer ranks than the node has cores (gpus_per_node).
bool coresLeftForCollectives(const StageReplicas& data, const std::vector<ReplicaData>& stage) {
  for (const ReplicaData& d : stage) {
    int ranks = 0;
    for (const auto& reps : data)
      for (const ReplicaData& o : reps)
        if (o.site == d.site && o.node == d.node) ranks += o.replica->tp;
    if (ranks >= d.gpus_per_node) return false;
  }
  return true;
}

// A replica's optimizer step as the runtime takes it (stepSeconds: the step and the bucket
// copies); sharded the step covers its 1/D share only.
double replicaStepSeconds(const ReplicaData& d, int D, const Schedule& schedule) {
  const double full = stepSeconds(d.optimizer_s_per_param, d.params, D, *d.gpu);
  if (schedule.sharding == DpSharding::None || D < 2) return full;
  return full - d.optimizer_s_per_param * d.params * (1.0 - 1.0 / D);
}

// Steps 6-7 where ranks of a node share its compute (NOTE [Ranks sharing a device]): every
// pipeline (with one data-parallel degree; else the bounding pipeline of straggler figures) and
// every step in one simulation; with the schedule's overlap a stage waits after its last
// backward only for the part of its reduction that backward did not hide; under the distributed
// optimizer the reduction is a reduce-scatter, the step covers the replica's share, and the
// all-gather follows it.
Scheduled scheduleShared(const StageReplicas& data,
                         const std::vector<std::vector<PairSeconds>>& pairs,
                         const std::vector<int>& m_stage, int M, Links& links, EgressLedger& egress,
                         const SimulatorOptions& options, const Schedule& schedule, const Job& job,
                         std::vector<StageTimes>& stages) {
  const size_t P = data.size();
  const size_t D = data.front().size();
  const bool same_degree =
      std::all_of(data.begin(), data.end(), [&](const auto& reps) { return reps.size() == D; });
  SharedComputeInput in;
  in.virtual_stages = schedule.virtual_stages;
  if (same_degree) {
    for (size_t j = 0; j < D; ++j) {
      std::vector<StageTimes> p(P);
      std::vector<const ReplicaData*> reps(P);
      std::vector<double> step(P);
      for (size_t s = 0; s < P; ++s) {
        const ReplicaData& d = data[s][j];
        p[s].forward_s = d.forward_s;
        p[s].backward_s = d.backward_s;
        p[s].microbatches = m_stage[s];
        if (s + 1 < P) {
          p[s].send_forward_s = pairs[s][j].forward_s;
          p[s + 1].send_backward_s = pairs[s][j].backward_s;
        }
        reps[s] = &d;
        step[s] = replicaStepSeconds(d, static_cast<int>(data[s].size()), schedule);
      }
      in.pipelines.push_back(std::move(p));
      in.replicas.push_back(std::move(reps));
      in.step_s.push_back(std::move(step));
    }
  } else {
    in.pipelines = {stages};
    in.replicas.resize(1);
    in.step_s.resize(1);
    for (size_t s = 0; s < P; ++s) {
      in.replicas[0].push_back(&data[s][static_cast<size_t>(stages[s].straggler_replica)]);
      double step = 0;
      for (const ReplicaData& d : data[s])
        step = std::max(step, replicaStepSeconds(d, static_cast<int>(data[s].size()), schedule));
      in.step_s[0].push_back(step);
    }
  }
  in.tied_sync_s = tiedEmbeddingSync(data, links, egress, options);
  for (size_t s = 0; s < P; ++s) {
    // The all-reduce of 4-byte gradients; under the distributed optimizer its two halves, the
    // reduce-scatter of the gradients and, after the step, the all-gather of the parameters in
    // the compute type (NOTE [Sharded model state]).
    // Fully sharded, the collectives ran inside the microbatches (shardedStageTimes).
    if (schedule.sharding == DpSharding::Full && data[s].size() >= 2) {
      in.sync_s.push_back(0);
      continue;
    }
    const double allreduce = stageSyncAndStep(data[s], links, egress, options).sync_s;
    const bool sharded = schedule.sharding == DpSharding::Optimizer && data[s].size() >= 2;
    double reduce = sharded ? allreduce / 2 : allreduce;
    const double gather = sharded ? allreduce / 2 * job.activationBytesPerElement() / 4.0 : 0.0;
    if (schedule.overlap_grad_reduce && coresLeftForCollectives(data, data[s])) {
      double params = 0, backward = 0;
      for (const ReplicaData& d : data[s]) {
        params = std::max(params, d.params);
        backward = std::max(backward, d.backward_s);
      }
      reduce = overlappedReductionSeconds(reduce, params, backward, options,
                                          static_cast<int>(data[s].size()));
    }
    in.sync_s.push_back(reduce + gather);
  }
  SharedComputeRun r = runSharedCompute(in, M, options.schedule, options.timeline);
  for (size_t s = 0; s < P; ++s) {
    stages[s].dp_sync_s = ((s == 0 || s == P - 1) ? in.tied_sync_s : 0.0) + in.sync_s[s];
    stages[s].optimizer_s = r.optimizer_s[s];
  }
  return {std::move(r.runs), std::move(r.stage_end)};
}

}  // namespace
}  // namespace sim

Prediction simulate(const Plan& plan, const Scenario& scenario, const Job& job_in,
                    const Catalog& catalog, const ProfileSet& profiles,
                    const SimulatorOptions& options, const LinkIndex* links_index) {
  using namespace sim;
  plan.validate(job_in, catalog, scenario);   // at least one stage, each with a replica
  const Job job = plan.effectiveJob(job_in);  // the plan's recomputation
  const size_t P = plan.stages.size();
  const int b = plan.microbatch_size;
  Prediction pred;

  // 1-2. Replicas, their figures and their nodes.
  GatheredReplicas gathered = gatherReplicas(plan, scenario, job, catalog, profiles);
  StageReplicas& data = gathered.stages;
  for (const auto& [k, v] : gathered.sources) pred.sources.emplace_back(k, v);
  placeOnNodes(data);
  const std::vector<int> m_stage = stageMicrobatches(plan, job);
  const int M = *std::max_element(m_stage.begin(), m_stage.end());

  // 3. Memory per GPU (one figure per replica: reserved, a 512-replica plan grew it 10 times).
  const bool tied = catalog.model(job.model, "job.model").tied_embeddings;
  size_t replicas = 0;
  for (const auto& st : data) replicas += st.size();
  pred.memory.reserve(replicas);
  // sailor run's runtime (gradient_bucket_params set) copies the gradients into flat buckets
  // under every schedule, where Megatron-LM reduces its contiguous buffer in place. Reduce-
  // scattered it releases each gradient as it copies it, but a worker keeps freed memory for
  // reuse (keepFreedMemory) and the gradients' small blocks are not handed out again as
  // bucket-sized ones: a worker's peak resident memory holds both (sharding_bench.py).
  const std::optional<bool> bucket_copy =
      options.gradient_bucket_params > 0 ? std::optional<bool>(true) : std::nullopt;
  for (size_t s = 0; s < P; ++s) {
    const StageGroupShape shape = stageGroupShape(plan, tied, static_cast<int>(s));
    for (size_t k = 0; k < data[s].size(); ++k) {
      MemoryBreakdown mb = replicaMemory(
          data[s][k], static_cast<int>(s), static_cast<int>(k), static_cast<int>(P), m_stage[s], b,
          job, gpuGroups(shape, plan.stages[s].replicas[k].tp, static_cast<int>(k)), plan.schedule,
          static_cast<int>(data[s].size()), bucket_copy);
      if (!mb.fits()) {
        pred.fits = false;
        pred.out_of_memory.push_back(outOfMemoryMessage(mb));
      }
      pred.memory.push_back(std::move(mb));
    }
  }

  // 4-5. Links, stage compute (fully sharded: with the gathers it leaves exposed) and boundary
  // transfers.
  Links links(scenario, catalog, gathered.site_replica, links_index);
  const bool shared = std::any_of(data.begin(), data.end(), [](const auto& reps) {
    return std::any_of(reps.begin(), reps.end(),
                       [](const ReplicaData& d) { return d.gpu->sharesCompute(); });
  });
  if (plan.schedule.sharding == DpSharding::Full) {
    std::vector<int> layers;
    std::vector<bool> unhidden;
    for (size_t s = 0; s < P; ++s) {
      layers.push_back(plan.stages[s].layerCount());
      unhidden.push_back(shared && !coresLeftForCollectives(data, data[s]));
    }
    shardedStageTimes(data, links, job, options, layers, unhidden);
  }
  pred.stages = stageCompute(data, m_stage);
  EgressLedger egress;
  const auto pairs = boundaryTransfers(data, m_stage, b, job.activationBytesPerElement(), links,
                                       egress, pred.stages);

  // 6-7. Each data-parallel pipeline's schedule, the gradient all-reduces and the steps.
  Schedule timed = plan.schedule;  // the options that change the schedule's timing
  timed.recompute.reset();
  timed.sequence_parallel = false;
  timed.fused_attention = false;
  timed.tp_comm_overlap = false;
  Schedule beyond_runtime = timed;  // what sailor run's runtime runs is modelled on shared compute
  beyond_runtime.overlap_grad_reduce = false;
  beyond_runtime.sharding = DpSharding::None;
  beyond_runtime.virtual_stages = 1;
  if (shared && !beyond_runtime.isDefault())
    throw InputError("schedule", plan.schedule.describe(job),
                     "DeepSpeed's schedule, with or without overlapped gradient reduction, "
                     "sharding and the interleaved schedule, on GPU types whose ranks share a "
                     "node's compute (shared_compute_slowdown)");
  Scheduled sched = shared ? scheduleShared(data, pairs, m_stage, M, links, egress, options,
                                            plan.schedule, job, pred.stages)
                           : scheduleSeparately(data, pairs, m_stage, M, links, egress, options,
                                                plan.schedule, job, pred.stages);
  std::vector<PipelineRun>& runs = sched.runs;
  const std::vector<double>& stage_end = sched.stage_end;
  double iteration = 0;
  size_t critical = 0;
  for (size_t s = 0; s < P; ++s)
    if (stage_end[s] > iteration) {
      iteration = stage_end[s];
      critical = s;
    }

  // 8. The critical pipeline's timeline and its busiest stage's breakdown.
  PipelineRun& run = runs[criticalPipeline(runs, critical)];
  const size_t busiest = busiestStage(run, pred.stages, stage_end, critical);
  if (options.timeline) {
    pred.timeline = std::move(run.ops);
    // With overlap the reduction runs from the start of the stage's last backward (its first
    // bucket is final early in it) to the end of the wait after it: 'R', beside the backward.
    std::vector<double> last_backward_start(P, -1);
    for (const TimelineOp& op : pred.timeline)
      if (op.kind == 'B')
        last_backward_start[static_cast<size_t>(op.stage)] =
            std::max(last_backward_start[static_cast<size_t>(op.stage)], op.start_s);
    for (size_t s = 0; s < P; ++s) {
      const StageTimes& st = pred.stages[s];
      const int si = static_cast<int>(s);
      const double sync_end = stage_end[s] - st.optimizer_s;
      if (plan.schedule.overlap_grad_reduce && plan.stages[s].replicas.size() > 1 &&
          last_backward_start[s] >= 0)
        pred.timeline.push_back(
            {si, -1, 'R', std::min(last_backward_start[s], sync_end - st.dp_sync_s), sync_end});
      else if (st.dp_sync_s > 0)
        pred.timeline.push_back({si, -1, 'A', sync_end - st.dp_sync_s, sync_end});
      pred.timeline.push_back({si, -1, 'O', stage_end[s] - st.optimizer_s, stage_end[s]});
    }
    sortTimeline(pred.timeline, P);
  }
  pred.iteration_s = iteration;
  pred.breakdown = breakdownOf(run, pred.stages, busiest, iteration);
  pred.iterations_per_s = iteration > 0 ? 1.0 / iteration : 0;
  pred.tokens_per_s = pred.iterations_per_s * job.global_batch_size * job.sequence_length;

  // 9. Cost per iteration.
  pred.compute_usd = computeUsd(data, iteration);
  pred.egress = egress.release();
  pred.egress_usd = priceEgress(pred.egress, scenario);
  pred.usd_per_iteration = pred.compute_usd + pred.egress_usd;
  pred.usd_per_hour = iteration > 0 ? pred.usd_per_iteration * 3600.0 / iteration : 0;
  requireFiniteFigures(pred);
  return pred;
}

}  // namespace sailor
