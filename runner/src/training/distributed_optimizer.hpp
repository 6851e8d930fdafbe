// The distributed optimizer (Megatron-LM --use-distributed-optimizer, ZeRO stage 1; the plan's
// schedule.sharding "optimizer"; docs/training.md, "Distributed optimizer"): the gradients of a
// stage are reduce-scattered over its replicas (ReplicaGradientSum with Options::scatter), each
// member updates its share of every bucket with the run's optimizer, whose state (Adam's
// moments, SGD's momentum) it alone keeps, and the updated shares are all-gathered into the
// parameters before the next forward.
//
// Without padding (every replica of the stage has the same tp degree) a member's share of a
// bucket lies in the parameters themselves: the optimizer updates views of them (pieces), so the
// weights are not copied. With padding (SAILOR's heterogeneous stages) a share covers full
// tensors that this rank holds only shards of: the member keeps its share's weights apart
// (assembled over the group at the start and after a restore) and updates those.
//
// Fully sharded (the plan's schedule.sharding "full", fully_sharded.hpp) the parameters hold no
// values between uses, so the member keeps its share's weights apart as with padding, and
// step() gathers only the buckets that stay whole (the presummed tied embedding): the units'
// weights are gathered where they are used.
//
// AdamW and SGD are elementwise, so updating shares gives what updating the whole tensors gives:
// the loss oracle holds to rounding.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <torch/torch.h>

#include "grad_sync.hpp"
#include "model.hpp"

namespace sailor::runner {

// The key of a parameter's state in torch's optimizers: the TensorImpl's address as text in
// libtorch 1.x, the address itself in 2.x.
template <typename Map>
typename Map::key_type optimizerStateKey(const Map&, const torch::Tensor& p) {
  if constexpr (std::is_same_v<typename Map::key_type, std::string>)
    return c10::guts::to_string(p.unsafeGetTensorImpl());
  else return p.unsafeGetTensorImpl();
}

// One tensor's optimizer state: AdamW's step count and moments, or SGD's momentum in `first`.
// Undefined before the tensor's first step.
struct OptimizerState {
  bool defined = false;
  std::int64_t step = 0;
  torch::Tensor first, second;
};
// The state torch's AdamW or SGD keeps for `tensor`, and the inverse (an undefined state writes
// nothing).
OptimizerState readOptimizerState(torch::optim::Optimizer& optimizer, const torch::Tensor& tensor);
void writeOptimizerState(torch::optim::Optimizer& optimizer, const torch::Tensor& tensor,
                         const OptimizerState& state);

using MakeOptimizer =
    std::function<std::unique_ptr<torch::optim::Optimizer>(const std::vector<torch::Tensor>&)>;

class DistributedOptimizer {
 public:
  // `sum` reduce-scatters (Options::scatter) over the stage's replicas; `make` builds the run's
  // optimizer over the tensors it is given. With padding the constructor is a collective of the
  // stage.
  DistributedOptimizer(std::vector<Param>& params, ReplicaGradientSum& sum,
                       const MakeOptimizer& make, bool fully_sharded = false);

  torch::optim::Optimizer& optimizer() { return *optimizer_; }
  // The squared norm of this member's share of the summed gradients, each element counted as
  // ReplicaGradientSum::normRanges says: summed over the world, the model's squared norm.
  torch::Tensor squaredGradientNorm() const;
  void scaleGradients(double factor);
  // Updates this member's shares (after ReplicaGradientSum::finish) and gathers every member's
  // into the parameters (fully sharded: of the buckets that are not a unit's). Collective over
  // the group.
  void step();
  // Fully sharded: this member's share of bucket `bucket`'s weights.
  const torch::Tensor& shareWeights(std::size_t bucket) const { return masters_.at(bucket).at(0); }

  // One parameter's optimizer state (this rank's tp shard, shaped like its value).
  using State = OptimizerState;
  // Every parameter's whole state, gathered from the members' shares (a checkpoint, a
  // reconfiguration). Collective over the group.
  std::vector<State> gatherState();
  // After the parameters were restored: this member's weights and its shares of `by_param`
  // (gatherState's form; empty or undefined: no state yet). Collective with padding.
  void load(const std::vector<State>& by_param);

 private:
  // This member's share of bucket `bucket` of a quantity held per piece (`of` a master tensor).
  torch::Tensor shareOf(std::size_t bucket,
                        const std::function<torch::Tensor(const torch::Tensor&)>& of) const;
  void reloadSeparateWeights();

  std::vector<Param>& params_;
  ReplicaGradientSum& sum_;
  bool separate_;  // shares are separate tensors, not pieces of the parameters
  // Per bucket, the tensors the optimizer updates: pieces of parameters (ReplicaGradientSum::
  // piecesOf) or, with padding or fully sharded, one tensor holding the share.
  std::vector<std::vector<torch::Tensor>> masters_;
  std::vector<std::vector<ReplicaGradientSum::Piece>> pieces_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
};

}  // namespace sailor::runner
