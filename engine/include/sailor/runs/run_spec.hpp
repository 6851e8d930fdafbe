// What a training run executes: the plan mapped onto processes (one rank per GPU), the model the
// workers build (the catalogue model, scaled to the machine) and the training settings. The
// controller builds a RunSpec from plan + job + catalogue and checks it before any process
// starts; every worker reads the same RunSpec (JSON) and derives its own place from its rank.
// Qt-free and libtorch-free like the rest of the engine. See docs/training.md and docs/runtime.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/planning/plan.hpp"

namespace sailor {

// The decoder the workers build. Layer count and head count are the catalogue model's, so that
// the plan's layer ranges and tensor-parallel degrees mean the same thing; width, vocabulary and
// sequence length may be scaled down to what the machine can run.
struct RuntimeModel {
  std::string name;  // catalogue model it stands for
  int layers = 0;    // transformer blocks; plan layers are 0 (embedding) .. layers + 1 (head)
  int hidden_size = 0;
  int heads = 0;
  int ffn_hidden_size = 0;
  int vocab_size = 0;  // 256 (byte-level tokens), the catalogue's (real size) or --vocab's
  int sequence_length = 0;
  bool tied_embeddings = false;
  NormType norm = NormType::LayerNorm;
  bool bias = true;

  int headDim() const { return hidden_size / heads; }
  nlohmann::json toJson() const;
  static RuntimeModel fromJson(const nlohmann::json& j, const std::string& path);
};

// One process of the run: one GPU of the plan (one CPU process on a machine without GPUs).
struct RankPlacement {
  int rank = 0;
  int stage = 0;
  int replica = 0;  // index within the stage; pipeline d is replica d of every stage
  int tp_rank = 0;  // index within the replica's tensor-parallel group
  int tp = 1;
  std::string gpu_type;
  std::string zone;
  nlohmann::json toJson() const;
};

// One rank per GPU of the plan, numbered stage by stage, replica by replica, tp rank fastest:
// the numbering every worker of a run uses (RunSpec::ranks), and the one `sailor export` writes
// into scheduler scripts, so that a rank means the same GPU whoever starts it.
std::vector<RankPlacement> placeRanks(const Plan& plan);

// Bounds of the model a run builds (RunSpec::build checks them, whoever sets the size: options,
// the catalogue at real size, a spec file). kMaxRunHiddenSize bounds --hidden (Llama 3 405B's
// hidden size is 16,384); kMaxRunSequenceLength bounds --seq-len (a window of S + 1 token ids is
// an int); kMaxTensorElements bounds every tensor a worker builds (weights, activations and
// attention scores of one microbatch): its bytes fit int64 and a double counts it exactly.
inline constexpr int kMaxRunHiddenSize = 1 << 16;
inline constexpr int kMaxRunSequenceLength = 1 << 20;
inline constexpr double kMaxTensorElements = 0x1p50;

// The training settings a run takes from its options and carries in its spec (RunOptions,
// RunSpec): one set of fields, with the defaults of `sailor run`. The spec file has them at the
// top level of its object, under these names (RunSpec::toJson).
struct TrainingSettings {
  int iterations = 20;
  std::uint64_t seed = 1234;       // weights and data
  std::string data = "synthetic";  // "synthetic", or a path to a text file or a token file
  // "synthetic", "text" (bytes of a text file: vocabulary 256) or "tokens" (a token file of
  // RunOptions::vocab_size ids, sailor/runs/token_data.hpp).
  std::string data_format = "synthetic";
  std::string dtype = "float32";  // "float32" or "float64" (for exactness checks)
  std::string backend = "auto";   // "auto", "gloo" or "nccl"
  // Peak rate, reached after warmup_iterations, then cosine decay to min_learning_rate
  // (RunSpec::learningRateAt).
  double learning_rate = 1e-3;
  double min_learning_rate = 1e-4;
  int warmup_iterations = 2;
  double grad_clip = 1.0;  // the gradients' global norm is clipped to it (0: off)
  double weight_decay = 0.01;
  std::int64_t bucket_elements = 1 << 20;  // gradient all-reduce bucket size

  // These fields alone (RunSpec::build copies the options' into the spec).
  TrainingSettings& training() { return *this; }
  const TrainingSettings& training() const { return *this; }
};

// Overrides for scaling a model to the machine, and the training settings; unset fields keep
// the defaults described at RunSpec::build.
struct RunOptions : TrainingSettings {
  // true: the catalogue model at its real size (hidden, MLP width, heads, vocabulary; the job's
  // sequence length); false: scaled to a CPU (the defaults at RunSpec::build). hidden_size
  // applies to the scaled model only.
  bool real_size = false;
  std::optional<int> hidden_size;
  std::optional<int> sequence_length;
  std::optional<int> global_batch_size;
  std::optional<int> vocab_size;  // --vocab: the ids of a token file (data_format "tokens")
};

// The run: the model, the plan and the training settings (TrainingSettings, the options' as
// RunSpec::build checked them).
struct RunSpec : TrainingSettings {
  RuntimeModel model;
  Plan plan;
  int global_batch_size = 0;
  // The most microbatches a pipeline runs per iteration: ceil(M / D) of the M = G / b
  // (pipelineMicrobatches(0)); the others run as many or one fewer.
  int microbatches = 0;
  int data_parallel = 0;  // replicas per stage (the same for every stage)
  // From the job. precision: bf16 computes in bfloat16 over `dtype` master weights (fp16 is
  // trained in `dtype`, with a warning); optimizer: AdamW or SGD with momentum 0.9; recompute:
  // full keeps only each block's input and recomputes the block during backward.
  Precision precision = Precision::Fp32;
  Optimizer optimizer = Optimizer::Adam;
  Recompute recompute = Recompute::None;
  std::vector<RankPlacement> ranks;  // rank r at index r: stage-major, replica, tp rank

  int worldSize() const { return static_cast<int>(ranks.size()); }
  // The iteration's M = G / b microbatches are dealt round robin: microbatch u of pipeline d is
  // the iteration's microbatch u * D + d. Pipeline d (replica d of every stage) runs the m_d
  // microbatches with u * D + d < M: ceil(M / D) for d < M mod D (or all d when D divides M),
  // floor(M / D) for the others.
  int totalMicrobatches() const { return global_batch_size / plan.microbatch_size; }
  int pipelineMicrobatches(int pipeline) const {
    return (totalMicrobatches() - pipeline + data_parallel - 1) / data_parallel;
  }
  // Ranks of stage s, replica d, in tp-rank order.
  std::vector<int> replicaRanks(int stage, int replica) const;
  std::vector<int> stageRanks(int stage) const;
  // Learning rate of an iteration: linear warm-up, then cosine decay to min_learning_rate.
  double learningRateAt(int iteration) const;
  std::int64_t tokensPerIteration() const {
    return static_cast<std::int64_t>(global_batch_size) * model.sequence_length;
  }

  // Builds and checks a run of `plan` for `job`. Checks (InputError naming the field):
  //  - the plan's layers cover the model's plan layers 0..L+1 contiguously;
  //  - every stage has the same number of replicas (pipelines are replica d of every stage);
  //  - every tp divides the model's heads (and the scaled MLP width);
  //  - the global batch is whole microbatches, at least one per pipeline
  //    (Plan::checkGlobalBatch, the simulator's rule too).
  // The job's precision, optimizer and recomputation are carried over.
  // Defaults of the scaled model: hidden size = heads x 16 (at least 64), MLP width keeps the
  // catalogue's ratio to the hidden size (rounded to a multiple of the heads), vocabulary 256
  // (bytes), sequence length min(job, 64). Real size (options.real_size): the catalogue's hidden
  // size, MLP width, heads and vocabulary, the job's sequence length. Either way a token file's
  // vocabulary (options.vocab_size) replaces the model's, the sequence length may be overridden,
  // and the job's global batch size is used unless overridden.
  static RunSpec build(const Plan& plan, const Job& job, const ModelSpec& model,
                       const RunOptions& options);

  nlohmann::json toJson() const;
  static RunSpec fromJson(const nlohmann::json& j);
};

// Peak bytes the process of `rank` holds, by the engine's memory model (replicaMemoryBytes in
// sailor/simulation/simulator.hpp, the planner's and simulator's): its stage's layers of the model
// the workers build (deriveLayers, its tp shard) with gradients and optimizer states
// (Job::stateBytesPerParameter), the activations of the min(P - s, m) microbatches in flight
// (only each block's input under full recomputation), twice the largest layer's, and the
// gradient bucket; twice that in float64. Without the process's fixed overhead (libtorch, the
// CUDA context).
double rankMemoryBytes(const RunSpec& spec, int rank);

}  // namespace sailor
