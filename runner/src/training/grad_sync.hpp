// The sum of a stage's gradients over its replicas (docs/training.md, "Data parallelism").
//
// The stage's parameters travel in buckets of at most RunSpec::bucket_elements (a larger tensor
// alone), in the reverse order of the layers: the order in which a backward pass finishes them.
// Without overlap every bucket's reduction starts once the pipeline has drained (DeepSpeed's
// pipeline engine). With overlap (the plan's schedule.overlap_grad_reduce, as PyTorch DDP and
// Megatron-LM --overlap-grad-reduce) a hook on each parameter sees its gradient of the
// iteration's last backward; the moment every gradient of a bucket is final, and the buckets
// before it have started, its reduction starts on the communication path (Gloo's threads on
// CPU, NCCL's stream on GPU) while the backward goes on. Buckets start in the same order on every
// replica, whatever order the backward finishes them in, so that the collectives match; a bucket
// holding a parameter the backward never reached starts after it.
//
// The reduction is an all-reduce (every replica gets the whole sum, written back into the
// gradients) or, for the distributed optimizer, a reduce-scatter: each of the G members of the
// group keeps the sum of its 1/G of every bucket (its share: member r holds elements
// [r n, (r + 1) n) of a bucket padded to G n), which the optimizer updates (distributed_optimizer
// .hpp). NCCL reduce-scatters; Gloo, which has no reduce-scatter, exchanges the shares all-to-all
// (the same (G - 1) / G of a bucket sent and received per member as a ring) and sums the G
// received shares in member order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "comm.hpp"
#include "model.hpp"

namespace sailor::runner {

class ReplicaGradientSum {
 public:
  struct Options {
    GroupPtr dp;          // the stage's replicas (Groups::dp)
    bool padded = false;  // replicas differ in tp: zero-padded full tensors (Groups::dp_padded)
    int tp_rank = 0;      // this rank's; with `padded`, replicated tensors are tp rank 0's
    std::int64_t bucket_elements = 1 << 20;
    torch::Device device = torch::kCPU;
    bool overlap = false;
    // The distributed optimizer's reduce-scatter instead of the all-reduce.
    bool scatter = false;
    std::string backend = "gloo";  // Groups::backend: how `scatter` and gather() communicate
    int replica = 0;               // this rank's replica (shares() takes replica 0's tensors)
    // With `scatter`: the index of a parameter whose gradient arrives already summed over every
    // replica (a tied embedding: the embedding group of all replicas' first and last stages sums
    // it first), or -1; a tensor replicated in the tp group, whose whole sum every rank then
    // holds. It goes in a bucket of its own, last, that each rank only slices.
    int presummed = -1;
    // Fully sharded (with `scatter`): the model's units as ranges [first, end) of parameters
    // (StageModel::units). Each unit's parameters (less the presummed one) form one bucket, which
    // FullySharded (fully_sharded.hpp) reduce-scatters after every backward through it and
    // gathers before every forward and backward; finish() then handles only the presummed bucket.
    std::vector<std::pair<std::size_t, std::size_t>> units;
  };
  // Registers a gradient hook on every parameter of `params` (kept by reference: the stage
  // model's, whose tensors stay the same for the life of the trainer).
  ReplicaGradientSum(std::vector<Param>& params, Options options);

  // Just before the iteration's last backward through parameters [first, end): with overlap,
  // their hooks now copy each final gradient into its bucket and start the buckets that are
  // complete. Does nothing without overlap. The interleaved schedule arms each model chunk's
  // parameters before that chunk's last backward (StageModel::chunkParams).
  void armForLastBackward(std::size_t first = 0, std::size_t end = SIZE_MAX);
  // After the schedule (every gradient defined): starts the buckets not started yet and waits
  // for every bucket. All-reduce: writes the sums back into the gradients. Reduce-scatter: the
  // sums of this member's shares are shareGradient(b), and the parameters' gradients are released
  // once copied into the buckets. The wait, the part of the reduction not
  // hidden behind the backward, is booked as dp in commClock().
  void finish();

  std::size_t bucketCount() const { return buckets_.size(); }
  // Buckets started by the hooks, before finish(), in the last iteration (overlap at work).
  int startedDuringBackward() const { return started_during_backward_; }

  // With `scatter`, the layout of the shares.
  bool padded() const { return options_.padded; }
  int members() const { return members_; }
  int member() const { return member_; }
  std::int64_t shareElements(std::size_t bucket) const { return buckets_[bucket].share; }
  // The sum of this member's share of bucket `bucket`'s gradients, after finish().
  torch::Tensor& shareGradient(std::size_t bucket) { return buckets_[bucket].share_grad; }
  // Per bucket, the ranges [begin, end) of this member's share whose elements count in the
  // model's gradient norm (each element of the model once over the world: not the tied copy, a
  // tensor replicated in the tp group on tp ranks other than 0, or the padding).
  using Ranges = std::vector<std::pair<std::int64_t, std::int64_t>>;
  const std::vector<Ranges>& normRanges() const { return norm_ranges_; }
  // Pieces of this member's share of bucket `bucket` that lie in parameters (without `padded`):
  // (parameter index, first element in the parameter, first element in the share, elements).
  struct Piece {
    std::size_t param;
    std::int64_t param_offset, share_offset, elements;
  };
  std::vector<Piece> piecesOf(std::size_t bucket) const;
  // This member's share of every bucket, laid out from tensors shaped like the parameters
  // (`of(k)` for parameter k: a weight, an optimizer moment): sliced locally, or with `padded`
  // assembled over the group from replica 0's tensors (each element written by exactly one rank).
  std::vector<torch::Tensor> shares(const std::function<torch::Tensor(std::size_t)>& of);
  // The inverse: gathers every member's share of each bucket and hands each parameter its piece
  // (this rank's tp shard, shaped like its value) to `sink`; a bucket whose share is undefined
  // is skipped. Booked as dp.
  void gather(const std::vector<torch::Tensor>& shares,
              const std::function<void(std::size_t, const torch::Tensor&)>& sink);

  // Fully sharded (Options::units): unit `unit`'s bucket, whether a parameter's gradient is
  // reduced by its unit after every backward, and the steps of one bucket's collectives.
  std::size_t bucketOfUnit(std::size_t unit) const { return unit_buckets_.at(unit); }
  const std::vector<std::size_t>& bucketParams(std::size_t bucket) const {
    return buckets_[bucket].params;
  }
  bool reducedPerBackward(std::size_t param) const {
    return buckets_[place_[param].first].per_backward;
  }
  // A buffer laid out as bucket `bucket` (zero-filled with `zeros`, else only its padding), and
  // one parameter's value written into it or read back from it.
  torch::Tensor bucketBuffer(std::size_t bucket, bool zeros) const {
    return newFlat(buckets_[bucket], zeros);
  }
  void writeParam(const torch::Tensor& flat, std::size_t index, const torch::Tensor& value) const {
    writeInto(flat, index, value);
  }
  torch::Tensor readParam(const torch::Tensor& flat, std::size_t index) const {
    return readFrom(flat, index);
  }
  // One bucket's collective in flight: a reduce-scatter of a buffer (its result this member's
  // share of the sum) or an all-gather of the members' shares (its result the whole buffer).
  struct Collective {
    torch::Tensor result;    // NCCL's output, the all-gather's buffer
    torch::Tensor input;     // kept alive while in flight
    torch::Tensor received;  // Gloo's reduce-scatter: every member's copy of this share
    c10::intrusive_ptr<c10d::Work> work;
  };
  Collective startReduceScatter(std::size_t bucket, torch::Tensor flat);
  Collective startAllGather(std::size_t bucket, const torch::Tensor& share);
  // Waits for it (booked as dp) and returns its result.
  torch::Tensor wait(Collective& c);

 private:
  struct Bucket {
    std::vector<std::size_t> params;    // indices into params_
    std::vector<std::int64_t> offsets;  // each one's start in `flat`
    std::int64_t elements = 0;
    std::int64_t share = 0;  // with `scatter`: ceil(elements / members)
    bool presummed = false;
    bool per_backward = false;  // a fully sharded unit's (Options::units)
    torch::Tensor flat;         // this iteration's buffer
    torch::Tensor received;     // Gloo's reduce-scatter: every member's copy of this member's share
    torch::Tensor share_grad;
    std::size_t filled = 0;
    c10::intrusive_ptr<c10d::Work> work;
  };

  std::int64_t elementsOf(const Param& p) const;
  void layOutBuckets();
  torch::Tensor newFlat(const Bucket& b, bool zeros) const;
  // Parameter `index`'s place in `flat`, a buffer of its bucket.
  torch::Tensor regionIn(const torch::Tensor& flat, std::size_t index) const;
  // Writes `value` (shaped like parameter `index`) into its region of `flat`: straight, or as
  // this rank's shards of the zero-padded full tensor.
  void writeInto(const torch::Tensor& flat, std::size_t index, const torch::Tensor& value) const;
  // The inverse: this rank's part of parameter `index`'s region of `flat`.
  torch::Tensor readFrom(const torch::Tensor& flat, std::size_t index) const;
  void onGradient(std::size_t index, const torch::Tensor& incoming);
  // Writes parameter `index`'s gradient, so_far + incoming (so_far undefined: incoming alone),
  // into its bucket.
  void fill(std::size_t index, const torch::Tensor& so_far, const torch::Tensor& incoming);
  void prepareBuffers();
  void startCompleteBuckets();
  void startReduction(Bucket& b);
  // After its reduction: the all-reduced gradients written back, or this member's share summed.
  void complete(Bucket& b);
  void settle(Bucket& b);
  void computeNormRanges();

  std::vector<Param>& params_;
  Options options_;
  int members_ = 1, member_ = 0;
  std::vector<Bucket> buckets_;
  std::vector<std::pair<std::size_t, std::size_t>> place_;  // (bucket, slot) by parameter index
  std::vector<bool> filled_;                                // by parameter index, this iteration
  std::vector<bool> armed_params_;                          // by parameter index, this iteration
  std::vector<Ranges> norm_ranges_;
  std::vector<std::size_t> unit_buckets_;  // by unit (Options::units)
  std::size_t next_ = 0;                   // the next bucket to start
  bool armed_ = false;                     // some parameters are armed this iteration
  int started_during_backward_ = 0;
};

}  // namespace sailor::runner
