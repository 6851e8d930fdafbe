// The sum of a stage's gradients over its replicas (docs/training.md, "Data parallelism").
//
// The stage's parameters travel in buckets of at most RunSpec::bucket_elements (a larger tensor
// alone), in the reverse order of the layers: the order in which a backward pass finishes them.
// Without overlap every bucket's all-reduce starts once the pipeline has drained (DeepSpeed's
// pipeline engine). With overlap (the plan's schedule.overlap_grad_reduce, as PyTorch DDP and
// Megatron-LM --overlap-grad-reduce) a hook on each parameter sees its gradient of the
// iteration's last backward; the moment every gradient of a bucket is final, and the buckets
// before it have started, its all-reduce starts on the communication path (Gloo's threads on
// CPU, NCCL's stream on GPU) while the backward goes on. Buckets start in the same order on every
// replica, whatever order the backward finishes them in, so that the collectives match; a bucket
// holding a parameter the backward never reached starts after it.
#pragma once

#include <cstdint>
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
  };
  // Registers a gradient hook on every parameter of `params` (kept by reference: the stage
  // model's, whose tensors stay the same for the life of the trainer).
  ReplicaGradientSum(std::vector<Param>& params, Options options);

  // Just before the iteration's last backward: with overlap, the hooks now copy each final
  // gradient into its bucket and start the buckets that are complete. Does nothing without
  // overlap.
  void armForLastBackward();
  // After the schedule (every gradient defined): starts the buckets not started yet, waits for
  // every bucket and writes the sums back into the gradients. The wait, the part of the
  // reduction not hidden behind the backward, is booked as dp in commClock().
  void finish();

  std::size_t bucketCount() const { return buckets_.size(); }
  // Buckets started by the hooks, before finish(), in the last iteration (overlap at work).
  int startedDuringBackward() const { return started_during_backward_; }

 private:
  struct Bucket {
    std::vector<std::size_t> params;    // indices into params_
    std::vector<std::int64_t> offsets;  // each one's start in `flat`
    std::int64_t elements = 0;
    torch::Tensor flat;  // this iteration's buffer
    std::size_t filled = 0;
    c10::intrusive_ptr<c10d::Work> work;
  };

  std::int64_t elementsOf(const Param& p) const;
  void onGradient(std::size_t index, const torch::Tensor& incoming);
  // This iteration's place of parameter `index` in its bucket.
  torch::Tensor regionOf(std::size_t index) const;
  // Writes parameter `index`'s gradient, so_far + incoming (so_far undefined: incoming alone),
  // into its bucket: straight, or as this rank's shards of the zero-padded full tensor.
  void fill(std::size_t index, const torch::Tensor& so_far, const torch::Tensor& incoming);
  void prepareBuffers();
  void startCompleteBuckets();

  std::vector<Param>& params_;
  Options options_;
  std::vector<Bucket> buckets_;
  std::vector<std::pair<std::size_t, std::size_t>> place_;  // (bucket, slot) by parameter index
  std::vector<bool> filled_;                                // by parameter index, this iteration
  std::size_t next_ = 0;                                    // the next bucket to start
  bool armed_ = false;
  int started_during_backward_ = 0;
};

}  // namespace sailor::runner
