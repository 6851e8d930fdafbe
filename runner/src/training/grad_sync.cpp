// The sum of a stage's gradients over its replicas (grad_sync.hpp).
#include "grad_sync.hpp"

#include <algorithm>
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
      filled_(params.size(), false),
      armed_params_(params.size(), false) {
  if (options_.scatter) {
    members_ = options_.dp->getSize();
    member_ = options_.dp->getRank();
  }
  layOutBuckets();
  if (options_.scatter) computeNormRanges();
  if (!options_.overlap) return;
  for (std::size_t k = 0; k < params_.size(); ++k)
    params_[k].value.register_hook([this, k](const torch::Tensor& g) { onGradient(k, g); });
}

// Buckets in the reverse order of the parameters (the model lists them from the embedding to the
// head), each closed before it would pass bucket_elements; the presummed parameter alone, last.
void ReplicaGradientSum::layOutBuckets() {
  const auto add = [this](std::size_t k, bool new_bucket) {
    if (new_bucket) buckets_.emplace_back();
    Bucket& b = buckets_.back();
    place_[k] = {buckets_.size() - 1, b.params.size()};
    b.params.push_back(k);
    b.offsets.push_back(b.elements);
    b.elements += elementsOf(params_[k]);
  };
  const auto presummed = static_cast<std::size_t>(options_.presummed);
  if (!options_.units.empty()) {  // fully sharded: one bucket per unit, the last unit first
    unit_buckets_.assign(options_.units.size(), 0);
    for (std::size_t u = options_.units.size(); u-- > 0;) {
      const auto [first, end] = options_.units[u];
      bool opened = false;
      for (std::size_t k = end; k-- > first;) {
        if (options_.presummed >= 0 && k == presummed) continue;
        add(k, !opened);
        opened = true;
      }
      if (!opened) throw std::logic_error("a fully sharded unit without parameters of its own");
      buckets_.back().per_backward = true;
      unit_buckets_[u] = buckets_.size() - 1;
    }
  } else {
    for (std::size_t k = params_.size(); k-- > 0;) {
      if (options_.presummed >= 0 && k == presummed) continue;
      const std::int64_t n = elementsOf(params_[k]);
      add(k, buckets_.empty() || (buckets_.back().elements > 0 &&
                                  buckets_.back().elements + n > options_.bucket_elements));
    }
  }
  if (options_.presummed >= 0) {
    add(presummed, true);
    buckets_.back().presummed = true;
  }
  for (Bucket& b : buckets_) b.share = (b.elements + members_ - 1) / members_;
}

std::int64_t ReplicaGradientSum::elementsOf(const Param& p) const {
  return options_.padded ? product(p.full_shape) : p.value.numel();
}

torch::Tensor ReplicaGradientSum::newFlat(const Bucket& b, bool zeros) const {
  const torch::Tensor& first = params_[b.params.front()].value;
  const std::int64_t n = options_.scatter ? b.share * members_ : b.elements;
  if (zeros) return torch::zeros({n}, first.options());
  torch::Tensor flat = torch::empty({n}, first.options());
  flat.slice(0, b.elements).zero_();  // the padding of the last share
  return flat;
}

// The buffers themselves come with their first gradient (fill): reduce-scattered without
// overlap, each gradient is released as it is copied, so that the buckets may take its place.
void ReplicaGradientSum::prepareBuffers() {
  for (Bucket& b : buckets_) {
    b.flat = torch::Tensor();
    b.filled = 0;
    b.work.reset();
  }
  std::fill(filled_.begin(), filled_.end(), false);
  next_ = 0;
}

void ReplicaGradientSum::armForLastBackward(std::size_t first, std::size_t end) {
  if (!armed_) started_during_backward_ = 0;
  if (!options_.overlap) return;
  if (!armed_) prepareBuffers();
  armed_ = true;
  for (std::size_t k = first; k < std::min(end, params_.size()); ++k) armed_params_[k] = true;
}

// A hook runs before the autograd engine adds `incoming` to the parameter's gradient, once per
// backward pass (the engine sums a tensor's contributions first): the final gradient is the
// microbatches' sum so far plus `incoming`, the very sum the engine then stores. The presummed
// parameter waits for finish(): its sum over the replicas comes after the schedule.
void ReplicaGradientSum::onGradient(std::size_t index, const torch::Tensor& incoming) {
  if (!armed_params_[index] || filled_[index] || static_cast<int>(index) == options_.presummed)
    return;
  fill(index, params_[index].value.grad(), incoming);
  startCompleteBuckets();
  if (next_ > 0) started_during_backward_ = static_cast<int>(next_);
}

torch::Tensor ReplicaGradientSum::regionIn(const torch::Tensor& flat, std::size_t index) const {
  const auto [bucket, slot] = place_[index];
  const std::int64_t offset = buckets_[bucket].offsets[slot];
  return flat.slice(0, offset, offset + elementsOf(params_[index]));
}

void ReplicaGradientSum::writeInto(const torch::Tensor& flat, std::size_t index,
                                   const torch::Tensor& value) const {
  const Param& p = params_[index];
  torch::Tensor region = regionIn(flat, index);
  if (!options_.padded) region.view(value.sizes()).copy_(value);
  else if (p.shard_dim >= 0)
    region.view(p.full_shape).index_copy_(p.shard_dim, p.full_index.to(flat.device()), value);
  else if (options_.tp_rank == 0) region.copy_(value.reshape({-1}));
}

torch::Tensor ReplicaGradientSum::readFrom(const torch::Tensor& flat, std::size_t index) const {
  const Param& p = params_[index];
  const torch::Tensor region = regionIn(flat, index);
  if (!options_.padded) return region.view(p.value.sizes());
  const torch::Tensor full = region.view(p.full_shape);
  return p.shard_dim >= 0 ? full.index_select(p.shard_dim, p.full_index.to(flat.device())) : full;
}

void ReplicaGradientSum::fill(std::size_t index, const torch::Tensor& so_far,
                              const torch::Tensor& incoming) {
  Bucket& b = buckets_[place_[index].first];
  if (!b.flat.defined()) b.flat = newFlat(b, options_.padded);  // padded: each rank its shards
  if (!options_.padded && so_far.defined()) {  // the sum written straight into the bucket
    torch::Tensor region = regionIn(b.flat, index).view(incoming.sizes());
    torch::add_out(region, so_far, incoming);
  } else if (b.presummed) {  // the whole sum, held by every rank: each slices its share of it
    regionIn(b.flat, index).copy_(incoming.reshape({-1}));
  } else writeInto(b.flat, index, so_far.defined() ? so_far + incoming : incoming);
  filled_[index] = true;
  ++b.filled;
}

void ReplicaGradientSum::startCompleteBuckets() {
  while (next_ < buckets_.size() && buckets_[next_].filled == buckets_[next_].params.size())
    startReduction(buckets_[next_++]);
}

void ReplicaGradientSum::startReduction(Bucket& b) {
  if (!options_.scatter) {
    std::vector<at::Tensor> tensors{b.flat};
    b.work = options_.dp->allreduce(tensors);
  } else if (b.presummed) {
    b.work.reset();  // already the sum: only sliced in complete()
  } else if (options_.backend == "nccl") {
    b.share_grad = torch::empty({b.share}, b.flat.options());
    b.work = options_.dp->_reduce_scatter_base(b.share_grad, b.flat);
  } else {
    b.received = torch::empty_like(b.flat);
    std::vector<std::int64_t> even;  // empty: equal splits
    b.work = options_.dp->alltoall_base(b.received, b.flat, even, even);
  }
}

void ReplicaGradientSum::complete(Bucket& b) {
  if (options_.scatter) {
    if (b.presummed)
      b.share_grad = b.flat.slice(0, member_ * b.share, (member_ + 1) * b.share).clone();
    else if (b.received.defined()) b.share_grad = b.received.view({members_, b.share}).sum(0);
    return;
  }
  for (std::size_t k : b.params) params_[k].value.mutable_grad().copy_(readFrom(b.flat, k));
}

void ReplicaGradientSum::finish() {
  if (!armed_) prepareBuffers();
  armed_ = false;
  std::fill(armed_params_.begin(), armed_params_.end(), false);
  for (std::size_t k = 0; k < params_.size(); ++k) {
    if (reducedPerBackward(k)) continue;  // FullySharded's
    if (!filled_[k]) fill(k, torch::Tensor(), params_[k].value.grad());
    // Reduce-scattered, the buckets then hold the only copy needed: the memory the gradients
    // took serves the reduction's buffers.
    if (options_.scatter) params_[k].value.mutable_grad() = torch::Tensor();
  }
  // Gloo's reduce-scatter receives every member's copy of a share: a second bucket-sized buffer.
  // The buckets not started yet start as earlier ones complete, at most kInFlight at a time
  // (Gloo runs a group's collectives on its two threads anyway), so that those buffers never add
  // up to a copy of the stage's gradients.
  constexpr std::size_t kInFlight = 2;
  const bool bounded = options_.scatter && options_.backend != "nccl";
  // Fully sharded units' buckets are FullySharded's: skipped.
  const auto skip = [this](std::size_t& i) {
    while (i < buckets_.size() && buckets_[i].per_backward) ++i;
  };
  std::size_t settled = 0;
  skip(next_);
  while (next_ < buckets_.size()) {
    skip(settled);
    if (bounded && next_ - settled >= kInFlight) settle(buckets_[settled++]);
    startReduction(buckets_[next_++]);
    skip(next_);
  }
  for (skip(settled); settled < buckets_.size(); ++settled, skip(settled))
    settle(buckets_[settled]);
}

// Waits for bucket `b`'s reduction (booked as dp), completes it and frees its buffers until the
// next iteration's sum: the forward and backward do not hold them.
void ReplicaGradientSum::settle(Bucket& b) {
  if (b.work) {
    commClock().begin();
    b.work->wait();
    commClock().end(&CommTimes::dp);
  }
  complete(b);
  b.flat = torch::Tensor();
  b.received = torch::Tensor();
  b.work.reset();
}

void ReplicaGradientSum::computeNormRanges() {
  for (const Bucket& b : buckets_) {
    const std::int64_t lo = member_ * b.share, hi = lo + b.share;
    Ranges ranges;
    for (std::size_t slot = 0; slot < b.params.size(); ++slot) {
      const Param& p = params_[b.params[slot]];
      const bool counted =
          !p.tied_copy && (options_.padded || p.shard_dim >= 0 || options_.tp_rank == 0);
      const std::int64_t begin = std::max(b.offsets[slot], lo);
      const std::int64_t end = std::min(b.offsets[slot] + elementsOf(p), hi);
      if (!counted || begin >= end) continue;
      if (!ranges.empty() && ranges.back().second == begin - lo) ranges.back().second = end - lo;
      else ranges.emplace_back(begin - lo, end - lo);
    }
    norm_ranges_.push_back(std::move(ranges));
  }
}

std::vector<ReplicaGradientSum::Piece> ReplicaGradientSum::piecesOf(std::size_t bucket) const {
  const Bucket& b = buckets_[bucket];
  const std::int64_t lo = member_ * b.share, hi = lo + b.share;
  std::vector<Piece> pieces;
  for (std::size_t slot = 0; slot < b.params.size(); ++slot) {
    const std::int64_t begin = b.offsets[slot];
    const std::int64_t end = begin + elementsOf(params_[b.params[slot]]);
    const std::int64_t a = std::max(begin, lo), e = std::min(end, hi);
    if (a < e) pieces.push_back({b.params[slot], a - begin, a - lo, e - a});
  }
  return pieces;
}

std::vector<torch::Tensor> ReplicaGradientSum::shares(
    const std::function<torch::Tensor(std::size_t)>& of) {
  torch::NoGradGuard no_grad;  // values, never part of a graph
  std::vector<torch::Tensor> out;
  for (Bucket& b : buckets_) {
    torch::Tensor flat = newFlat(b, true);
    if (!options_.padded || options_.replica == 0)
      for (std::size_t k : b.params) writeInto(flat, k, of(k).to(flat.options()));
    if (!options_.padded) {
      out.push_back(flat.slice(0, member_ * b.share, (member_ + 1) * b.share).clone());
      continue;
    }
    Bucket scratch;  // the reduce-scatter of a bucket's layout of other tensors
    scratch.flat = flat;
    scratch.share = b.share;
    startReduction(scratch);
    scratch.work->wait();
    complete(scratch);
    out.push_back(scratch.share_grad);
  }
  return out;
}

// At most two buckets in flight, as in finish(): Gloo's all-gather gathers into a flat buffer of
// its own before it copies into `flat`, so each bucket in flight holds two bucket-sized buffers.
void ReplicaGradientSum::gather(
    const std::vector<torch::Tensor>& shares,
    const std::function<void(std::size_t, const torch::Tensor&)>& sink) {
  constexpr std::size_t kInFlight = 2;
  std::vector<torch::Tensor> flats(buckets_.size());
  std::vector<c10::intrusive_ptr<c10d::Work>> works(buckets_.size());
  auto settle = [&](std::size_t i) {
    if (!works[i]) return;
    commClock().begin();
    works[i]->wait();
    commClock().end(&CommTimes::dp);
    for (std::size_t k : buckets_[i].params) sink(k, readFrom(flats[i], k));
    flats[i] = torch::Tensor();
    works[i].reset();
  };
  std::size_t settled = 0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    if (!shares.at(i).defined()) continue;
    while (i - settled >= kInFlight) settle(settled++);
    Collective c = startAllGather(i, shares[i]);
    flats[i] = c.result;
    works[i] = c.work;
  }
  for (; settled < buckets_.size(); ++settled) settle(settled);
}

ReplicaGradientSum::Collective ReplicaGradientSum::startReduceScatter(std::size_t bucket,
                                                                      torch::Tensor flat) {
  Bucket scratch;  // bucket `bucket`'s layout, `flat` its buffer
  scratch.flat = std::move(flat);
  scratch.share = buckets_[bucket].share;
  startReduction(scratch);
  return {scratch.share_grad, scratch.flat, scratch.received, scratch.work};
}

ReplicaGradientSum::Collective ReplicaGradientSum::startAllGather(std::size_t bucket,
                                                                  const torch::Tensor& share) {
  Collective c;
  c.result = newFlat(buckets_[bucket], false);
  c.input = share.contiguous();
  if (options_.backend == "nccl") {
    c.work = options_.dp->_allgather_base(c.result, c.input);
  } else {
    std::vector<std::vector<at::Tensor>> outputs{c.result.chunk(members_)};
    std::vector<at::Tensor> inputs{c.input};
    c.work = options_.dp->allgather(outputs, inputs);
  }
  return c;
}

torch::Tensor ReplicaGradientSum::wait(Collective& c) {
  if (c.work) {
    commClock().begin();
    c.work->wait();
    commClock().end(&CommTimes::dp);
    c.work.reset();
  }
  if (c.received.defined()) {  // summed in member order, as finish() does
    c.result = c.received.view({members_, -1}).sum(0);
    c.received = torch::Tensor();
  }
  c.input = torch::Tensor();
  return c.result;
}

}  // namespace sailor::runner
