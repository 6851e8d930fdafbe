// One worker's training loop: the 1F1B pipeline schedule, plain or interleaved, over this rank's
// stage, gradient synchronization among the stage's replicas, the tied-embedding reduction,
// global-norm clipping, AdamW or SGD with momentum under the run's learning-rate schedule, over the
// whole stage or, with the distributed optimizer, over this replica's share
// (distributed_optimizer.hpp), which fully sharded data parallelism extends to the parameters and
// gradients (fully_sharded.hpp).
#pragma once

#include <functional>
#include <memory>

#include <nlohmann/json.hpp>

#include "comm.hpp"
#include "distributed_optimizer.hpp"
#include "fully_sharded.hpp"
#include "grad_sync.hpp"
#include "model.hpp"
#include "sailor/runs/run_spec.hpp"
#include "sailor/runs/token_data.hpp"

namespace sailor::runner {

struct IterationReport {
  int iteration = 0;
  double loss_sum = 0;  // sum of microbatch losses (last stage, tp rank 0 only)
  int loss_count = 0;   // microbatches in loss_sum
  double seconds = 0;
  CommTimes comm;
  double grad_norm = 0;
  double learning_rate = 0;
  bool pause = false;  // some rank asked to pause after this iteration: every rank does
};

class Trainer {
 public:
  // Installs the process's tensor-parallel group and communication clock (for `device`).
  Trainer(const RunSpec& spec, int rank, Groups groups, torch::Dtype dtype, torch::Device device);
  // One iteration. `want_pause`: this rank was asked to stop after it (a reconfiguration); the
  // request travels with the gradient norm's all-reduce, so that every rank of the world learns
  // it in the same iteration (IterationReport::pause).
  IterationReport step(int iteration, bool want_pause = false);

  // Checkpoints (trainer_checkpoint.cpp, docs/checkpoints.md). snapshot:
  // this rank's shard after iteration `iteration` (parameters, optimizer state with its step
  // counts, how each tensor is sharded) copied into CPU tensors, which training may then change.
  // restore: the state of the shards of replica 0 of this rank's stage (by tp rank), resharded
  // when this rank's tp degree differs from replica 0's.
  // Under the distributed optimizer the state is spread over the stage's replicas: every rank of
  // the world first calls gatherOptimizerState (a collective; `keep`: this rank will take a
  // snapshot, which then consumes the gathered state). Fully sharded, it gathers the parameters
  // too.
  c10::Dict<std::string, at::Tensor> snapshot(int iteration) const;
  bool shardsOptimizer() const { return dist_ != nullptr; }
  void gatherOptimizerState(bool keep);
  void restore(const std::vector<c10::Dict<std::string, at::Tensor>>& replica0_shards);
  // The same from several replicas' shards (each by tp rank), each parameter from the first set
  // that holds it: the state of another plan's stages (a reconfiguration, elastic.hpp).
  void restoreFrom(const std::vector<std::vector<c10::Dict<std::string, at::Tensor>>>& sets);

 private:
  struct Pass;  // one iteration's pipeline state (trainer.cpp)

  torch::Tensor tokens(int iteration, int pipeline, int microbatch, int offset) const;
  // The 1F1B schedule, plain or interleaved over the model's chunks, and its pieces.
  void runSchedule(Pass& pass);
  void runInterleavedSchedule(Pass& pass);
  torch::Tensor forwardMicrobatch(Pass& pass, int mb, torch::Tensor input, int chunk = 0);
  torch::Tensor backwardMicrobatch(Pass& pass, const torch::Tensor& grad_out, int chunk = 0);
  torch::Tensor boundaryTensor() const;  // an empty [b, s, h] activation or gradient
  // In a neighbouring replica's ranks (by tp rank): the one this rank receives from, and those
  // it sends to.
  int sourceIn(const std::vector<int>& neighbour) const;
  std::vector<int> destinationsIn(const std::vector<int>& neighbour) const;
  torch::Tensor postRecvForward(Pass& pass, int mb);
  void postSendForward(Pass& pass, const torch::Tensor& out, int mb);
  torch::Tensor postRecvBackward(Pass& pass, int mb);
  void postSendBackward(Pass& pass, const torch::Tensor& grad, int mb);
  // After the schedule: gradient synchronization and clipping.
  void syncGradients();
  void reduceTiedEmbedding();
  double clipGradients(bool& pause);

  const RunSpec& spec_;
  RankPlacement me_;
  Groups groups_;
  torch::Dtype dtype_;
  torch::Device device_;
  TokenSource data_;
  std::unique_ptr<StageModel> model_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;  // null under the distributed optimizer
  std::unique_ptr<DistributedOptimizer> dist_;          // the plan's schedule.sharding "optimizer"
  mutable std::vector<DistributedOptimizer::State> gathered_;  // gatherOptimizerState(true)
  std::unique_ptr<ReplicaGradientSum> replica_sum_;  // null when the stage has one replica
  std::unique_ptr<FullySharded> fsdp_;               // the plan's schedule.sharding "full"
  std::vector<int> prev_ranks_;                      // previous stage, same pipeline, by tp rank
  std::vector<int> next_ranks_;
  std::vector<int> wrap_prev_ranks_;  // interleaved: stage 0's view of the last stage
  std::vector<int> wrap_next_ranks_;  // interleaved: the last stage's view of stage 0
};

}  // namespace sailor::runner
