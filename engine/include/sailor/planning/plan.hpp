// Plan: microbatch size and pipeline stages; a stage is a contiguous range of plan layers and
// its data-parallel replicas, each a tensor-parallel group of one GPU type inside one node of
// one zone.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/scenario/scenario.hpp"

namespace sailor {

struct Replica {
  std::string gpu_type;
  int tp = 1;  // tensor-parallel degree: GPUs of this replica, all in one node
  std::string zone;
  bool operator==(const Replica&) const = default;
};

struct Stage {
  int first_layer = 0;  // plan layer numbering (0 = embedding), inclusive
  int last_layer = 0;   // inclusive
  std::vector<Replica> replicas;
  int layerCount() const { return last_layer - first_layer + 1; }
  // The replicas grouped by (GPU type, tp, zone), in that order:
  // "2x A100-40 tp1 us-central1-a, 2x A100-40 tp1 us-central1-b".
  std::string replicaSummary() const;
  bool operator==(const Stage&) const = default;
};

// Whether a global batch of G sequences runs as M = G / b whole microbatches of b sequences over
// D replicas with at least one microbatch each: G >= 1, G a multiple of b, M >= D. M need not be a
// multiple of D: replicas then take ceil(M / D) or floor(M / D) microbatches.
bool batchFits(int global_batch_size, int microbatch_size, int replicas);

// How data-parallel replicas hold the model state (docs/simulator.md, "Schedules"):
//   None       every replica keeps the whole optimizer state and all-reduces the gradients
//              (DeepSpeed's pipeline engine, PyTorch DDP)
//   Optimizer  the distributed optimizer (Megatron-LM --use-distributed-optimizer, ZeRO stage 1):
//              gradients reduce-scattered, each replica updates its 1/D of the fp32 master
//              weights and Adam moments, parameters all-gathered
//   Full       fully sharded data parallelism (ZeRO stage 3, PyTorch FSDP): parameters, gradients
//              and optimizer state all 1/D per replica, parameters gathered layer by layer
enum class DpSharding { None, Optimizer, Full };
const char* dpShardingName(DpSharding s);
DpSharding parseDpSharding(const std::string& name, const std::string& field);

// The schedule a plan runs: plan attributes the simulator, the planner and the runtime read.
// The defaults are the schedule of DeepSpeed's pipeline engine as SAILOR's runs used it (the
// gradient sum after the pipeline drains, the full optimizer state on every replica, plain
// 1F1B, the job's recomputation).
struct Schedule {
  // Gradient reduction overlapped with the last microbatch's backward, bucket by bucket in the
  // reverse order of the layers (PyTorch DDP, Megatron-LM --overlap-grad-reduce).
  bool overlap_grad_reduce = false;
  DpSharding sharding = DpSharding::None;
  // The interleaved 1F1B schedule (Megatron-LM --num-layers-per-virtual-pipeline-stage): model
  // chunks per GPU; 1 is the plain schedule. Each stage's layers split into this many chunks.
  int virtual_stages = 1;
  // Activation recomputation; unset: the job's.
  std::optional<Recompute> recompute;
  // Sequence parallelism (Megatron-LM --sequence-parallel; Korthikanti et al.): the activations
  // outside the tensor-parallel regions (norms, dropout, residuals) split over the tp ranks, the
  // all-reduces become a reduce-scatter and an all-gather of the same volume.
  bool sequence_parallel = false;
  // The attention core as one fused kernel (FlashAttention, Dao et al. 2022; Megatron-LM with
  // Transformer Engine or --use-flash-attn): the score matrices never reach the GPU's memory,
  // and the backward computes them again.
  bool fused_attention = false;
  // Tensor-parallel communication overlapped with the matmuls that produce and consume it
  // (Megatron-LM --tp-comm-overlap, Transformer Engine's userbuffers): each of the tp chunks of
  // a collective runs beside the next chunk's matmul.
  bool tp_comm_overlap = false;
  bool isDefault() const { return *this == Schedule{}; }
  bool operator==(const Schedule&) const = default;
  // {"overlap_grad_reduce": ..., "sharding": ..., "virtual_stages": ..., "recompute": ...}
  nlohmann::json toJson() const;
  // Keys absent take the defaults; InputError naming "<path>.<key>" otherwise.
  static Schedule fromJson(const nlohmann::json& j, const std::string& path);
  // "overlapped gradient reduction, distributed optimizer, 2 virtual stages, selective
  // recomputation"; "DeepSpeed schedule" for the defaults.
  std::string describe(const Job& job) const;
};

struct Plan {
  int microbatch_size = 1;
  std::vector<Stage> stages;
  Schedule schedule;
  // The job with the plan's recomputation (the schedule's, else the job's own).
  Job effectiveJob(const Job& job) const;

  int gpuCount() const;
  // Its GPUs that come from spot pools of `scenario` (Pool::spot).
  int gpusInSpotPools(const Scenario& scenario) const;
  bool operator==(const Plan&) const = default;
  // Microbatches the busiest replica of a stage processes: ceil(G / (b * D_s)), which sets the
  // iteration time when G / b is not a multiple of D_s (the others take one fewer). Stages may
  // have different data-parallel degrees; the pipeline runs max over stages.
  int microbatches(int global_batch_size, const Stage& s) const;

  // The global batch against the plan, the one rule of the simulator (via validate) and the
  // runtime (RunSpec::build): G a positive multiple of the microbatch size (whole microbatches)
  // and M = G / b at least every stage's replicas (none stays idle): batchFits. Throws
  // InputError naming global_batch_size.
  // Under the interleaved schedule also every pipeline's microbatches in whole groups of the
  // P stages (Megatron-LM's rule: the schedule deadlocks for some other counts), which needs the
  // replicas to take M / D each; InputError naming schedule.virtual_stages.
  void checkGlobalBatch(int global_batch_size) const;
  // Whether the interleaved schedule can run G: the microbatch rule of checkGlobalBatch.
  bool interleavingFits(int global_batch_size) const;

  // NOTE [Model chunks]: the plan layers each of stage s's v = schedule.virtual_stages model
  // chunks holds, as inclusive (first, last) ranges; one range, the stage's own, without
  // interleaving. Device s's chunk c is virtual stage c P + s, and the virtual stages take the
  // model's transformer blocks in order, as Megatron-LM's interleaved schedule places them: a
  // stage keeps as many blocks as its range holds, split into v chunks whose sizes differ by at
  // most one (the first chunks the larger), the embedding goes with the first chunk of stage 0
  // and the head with the last chunk of the last stage. Needs the stages' ranges to cover the
  // model (validate) and every stage at least v blocks (checkInterleaving).
  std::vector<std::pair<int, int>> chunkLayers(std::size_t stage) const;
  // Transformer blocks of stage s (its range without the embedding and head layers).
  int blockCount(std::size_t stage) const;
  // The interleaving against the plan's shape: a pipeline of at least two stages, at least v
  // blocks in every stage. InputError naming schedule.virtual_stages and the stage.
  void checkInterleaving() const;

  // Structural checks only (shape, ranges); validate() checks against model and scenario.
  static Plan fromJson(const nlohmann::json& j);
  nlohmann::json toJson() const;

  // Checks the plan against the job's model (layers cover 0..L+1 contiguously), the catalogue
  // (GPU types, tp within a node), the scenario (zones, pools, GPU counts) and the job's
  // global batch (checkGlobalBatch). Throws.
  void validate(const Job& job, const Catalog& catalog, const Scenario& scenario) const;
};

}  // namespace sailor
