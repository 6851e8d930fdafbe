// Fully sharded data parallelism (ZeRO stage 3, PyTorch FSDP; the plan's schedule.sharding
// "full"; docs/training.md, "Fully sharded data parallelism"). The stage's parameters, their
// gradients and the optimizer state are spread over the stage's replicas: each member keeps its
// share of every unit (StageModel::units: the embeddings, each block, the final norm with the
// head), laid out as ReplicaGradientSum's buckets, one per unit, and updated by the
// DistributedOptimizer.
//
// A unit's parameters hold values only while it computes. Before its forward the unit's shares
// are all-gathered into its parameters; after it they are released (their storage freed). A
// hook on the unit's output gathers them again before its backward; once the backward has
// accumulated every parameter's gradient (a post-hook on each parameter's gradient accumulator),
// the gradients are copied into the unit's buffer, released, and reduce-scattered, each member
// adding its share of the sum into the iteration's gradient share; the parameters are released
// again. Every microbatch does this (FSDP's default, DeepSpeed's stage 3), so at any time a rank
// holds its shares plus the gathered parameters of about two units: the one computing and the
// next one, whose gather runs ahead of the compute (prefetch) on the communication path.
//
// The autograd graph keeps references to the parameters between a forward and its backward;
// only the parameters' storage is freed and reallocated (the tensors, and so the graph's saved
// references and version counters, stay the same), and values are written into the storage
// without going through autograd. Parameters read by two units (the tied head on the
// embedding's stage) and the presummed tied embedding of a multi-stage plan stay whole.
//
// Collectives must run in the same order on every member: gathers follow the schedule, which
// every member runs alike, and a backward's reductions start in the unit order of that backward,
// whatever order the autograd engine finishes the units in.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <torch/torch.h>

#include "distributed_optimizer.hpp"
#include "grad_sync.hpp"
#include "model.hpp"

namespace sailor::runner {

class FullySharded final : public StageModel::UnitHooks {
 public:
  // `sum` lays out one bucket per unit (Options::units); `optimizer` keeps the shares' weights
  // apart. Releases every unit's parameters.
  FullySharded(StageModel& model, ReplicaGradientSum& sum, DistributedOptimizer& optimizer,
               int presummed);
  ~FullySharded() override;
  FullySharded(const FullySharded&) = delete;
  FullySharded& operator=(const FullySharded&) = delete;

  void beforeForward(std::size_t unit) override;
  void afterForward(std::size_t unit, const torch::Tensor& output) override;
  // Around each backward through model chunk `chunk`: the reductions of its units start in the
  // order of that backward; after it, those not started yet (a parameter without a gradient
  // counts as zero) start.
  void beginBackward(int chunk);
  void endBackward();
  // Before an iteration's schedule: the gradient shares start from zero. After it: waits for
  // every reduction, so that the shares hold the iteration's sums (ReplicaGradientSum::
  // shareGradient).
  void beginIteration();
  void finishIteration();

  // Between iterations, for checkpoints and reconfigurations: every unit gathered (a collective
  // of the stage's replicas), storage given back without values (the state is then written in),
  // or every unit released.
  void gatherAll();
  void allocateAll();
  void releaseAll();
  bool gathered() const;

 private:
  enum class Held { Released, Gathering, Ready };
  struct UnitState {
    std::size_t bucket = 0;
    int chunk = 0;
    Held held = Held::Released;
    ReplicaGradientSum::Collective gather;
    torch::Tensor grad_flat;  // this backward's gradients, laid out as the bucket
    std::size_t grads = 0;    // parameters whose gradient is in grad_flat
    bool complete = false;    // every gradient of this backward is in
  };
  struct PostAccumulate;  // the hook on a parameter's gradient accumulator

  void allocate(std::size_t unit);
  void release(std::size_t unit);
  void startGather(std::size_t unit);
  void waitGather(std::size_t unit);
  void prefetch(std::size_t unit, bool forward);
  void onAccumulated(std::size_t param);
  void startReductionsInOrder();
  void settleOldest();

  StageModel& model_;
  ReplicaGradientSum& sum_;
  DistributedOptimizer& optimizer_;
  std::vector<UnitState> units_;
  std::vector<std::size_t> unit_of_;  // by parameter
  std::vector<bool> whole_;           // by parameter: never released
  std::vector<std::size_t> bytes_;    // by parameter: its storage's size
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators_;  // by hooked parameter
  // The backward in progress: its units in the order their reductions start, and how many have.
  std::vector<std::size_t> order_;
  std::size_t started_ = 0;
  bool in_backward_ = false;
  // Reductions in flight, oldest first (unit, collective), and the buckets summed this iteration.
  std::vector<std::pair<std::size_t, ReplicaGradientSum::Collective>> reducing_;
  std::vector<bool> summed_;
};

}  // namespace sailor::runner
