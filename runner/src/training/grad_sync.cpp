// The sum of a stage's gradients over its replicas (grad_sync.hpp).
#include "grad_sync.hpp"

#include <functional>
#include <numeric>

namespace sailor::runner {

namespace {

std::int64_t product(const std::vector<std::int64_t>& shape) {
  return std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
}

}  // namespace

ReplicaGradientSum::ReplicaGradientSum(std::vector<Param>& params, Options options)
    : params_(params),
      options_(std::move(options)),
      place_(params.size()),
      filled_(params.size(), false) {
  // Buckets in the reverse order of the parameters (the model lists them from the embedding to
  // the head), each closed before it would pass bucket_elements.
  for (std::size_t k = params_.size(); k-- > 0;) {
    const std::int64_t n = elementsOf(params_[k]);
    if (buckets_.empty() ||
        (buckets_.back().elements > 0 && buckets_.back().elements + n > options_.bucket_elements))
      buckets_.emplace_back();
    Bucket& b = buckets_.back();
    place_[k] = {buckets_.size() - 1, b.params.size()};
    b.params.push_back(k);
    b.offsets.push_back(b.elements);
    b.elements += n;
  }
  if (!options_.overlap) return;
  for (std::size_t k = 0; k < params_.size(); ++k)
    params_[k].value.register_hook([this, k](const torch::Tensor& g) { onGradient(k, g); });
}

std::int64_t ReplicaGradientSum::elementsOf(const Param& p) const {
  return options_.padded ? product(p.full_shape) : p.value.numel();
}

void ReplicaGradientSum::prepareBuffers() {
  for (Bucket& b : buckets_) {
    const torch::Tensor& first = params_[b.params.front()].value;
    // Padded buckets start from zeros: each rank writes only its shards.
    b.flat = options_.padded ? torch::zeros({b.elements}, first.options())
                             : torch::empty({b.elements}, first.options());
    b.filled = 0;
    b.work.reset();
  }
  std::fill(filled_.begin(), filled_.end(), false);
  next_ = 0;
}

void ReplicaGradientSum::armForLastBackward() {
  started_during_backward_ = 0;
  if (!options_.overlap) return;
  prepareBuffers();
  armed_ = true;
}

// A hook runs before the autograd engine adds `incoming` to the parameter's gradient, once per
// backward pass (the engine sums a tensor's contributions first): the final gradient is the
// microbatches' sum so far plus `incoming`, the very sum the engine then stores.
void ReplicaGradientSum::onGradient(std::size_t index, const torch::Tensor& incoming) {
  if (!armed_ || filled_[index]) return;
  fill(index, params_[index].value.grad(), incoming);
  startCompleteBuckets();
  if (next_ > 0) started_during_backward_ = static_cast<int>(next_);
}

torch::Tensor ReplicaGradientSum::regionOf(std::size_t index) const {
  const auto [bucket, slot] = place_[index];
  const Bucket& b = buckets_[bucket];
  return b.flat.slice(0, b.offsets[slot], b.offsets[slot] + elementsOf(params_[index]));
}

void ReplicaGradientSum::fill(std::size_t index, const torch::Tensor& so_far,
                              const torch::Tensor& incoming) {
  const Param& p = params_[index];
  torch::Tensor region = regionOf(index);
  if (!options_.padded) {  // the sum written straight into the bucket
    torch::Tensor shaped = region.view(incoming.sizes());
    if (so_far.defined()) torch::add_out(shaped, so_far, incoming);
    else shaped.copy_(incoming);
  } else {
    const torch::Tensor gradient = so_far.defined() ? so_far + incoming : incoming;
    if (p.shard_dim >= 0)
      region.view(p.full_shape)
          .index_copy_(p.shard_dim, p.full_index.to(options_.device), gradient);
    else if (options_.tp_rank == 0) region.copy_(gradient.reshape({-1}));
  }
  filled_[index] = true;
  ++buckets_[place_[index].first].filled;
}

void ReplicaGradientSum::startCompleteBuckets() {
  while (next_ < buckets_.size() && buckets_[next_].filled == buckets_[next_].params.size()) {
    std::vector<at::Tensor> tensors{buckets_[next_].flat};
    buckets_[next_].work = options_.dp->allreduce(tensors);
    ++next_;
  }
}

void ReplicaGradientSum::finish() {
  if (!armed_) prepareBuffers();
  armed_ = false;
  for (std::size_t k = 0; k < params_.size(); ++k)
    if (!filled_[k]) fill(k, torch::Tensor(), params_[k].value.grad());
  startCompleteBuckets();
  commClock().begin();
  for (Bucket& b : buckets_) b.work->wait();
  commClock().end(&CommTimes::dp);
  for (Bucket& b : buckets_)
    for (std::size_t slot = 0; slot < b.params.size(); ++slot) {
      Param& p = params_[b.params[slot]];
      torch::Tensor grad = p.value.mutable_grad();
      const torch::Tensor region = regionOf(b.params[slot]);
      if (!options_.padded) {
        grad.copy_(region.view_as(grad));
        continue;
      }
      torch::Tensor full = region.view(p.full_shape);
      grad.copy_(p.shard_dim >= 0 ? full.index_select(p.shard_dim, p.full_index.to(options_.device))
                                  : full);
    }
  // The buffers are freed until the next iteration's sum: the forward and backward do not hold
  // them.
  for (Bucket& b : buckets_) {
    b.flat = torch::Tensor();
    b.work.reset();
  }
}

}  // namespace sailor::runner
