#include "trainer.hpp"

#include <chrono>
#include <cmath>
#include <deque>
#include <numeric>

namespace sailor::runner {

namespace {

constexpr int kTagActivation = 0;
constexpr int kTagGradient = 1;
int tagOf(int microbatch, int kind) {
  return 2 * microbatch + kind;
}

}  // namespace

Trainer::Trainer(const RunSpec& spec, int rank, Groups groups, torch::Dtype dtype,
                 torch::Device device)
    : spec_(spec),
      me_(spec.ranks.at(rank)),
      groups_(std::move(groups)),
      dtype_(dtype),
      device_(device),
      data_(TokenSource::open(spec.data, spec.seed)) {
  setTensorParallelGroup(groups_.tp);
  model_ = std::make_unique<StageModel>(spec, me_, dtype);
  model_->moveBuffersTo(device_);
  std::vector<torch::Tensor> values;
  for (Param& p : model_->params()) {
    p.value = p.value.detach().to(device_).set_requires_grad(true);
    values.push_back(p.value);
  }
  if (spec.optimizer == Optimizer::Sgd) {
    // SGD with heavy-ball momentum 0.9 and L2 weight decay (torch.optim.SGD's coupled decay),
    // as the engine's NOTE [Model-state bytes] counts it: one momentum buffer per parameter.
    optimizer_ = std::make_unique<torch::optim::SGD>(
        values,
        torch::optim::SGDOptions(spec.learning_rate).momentum(0.9).weight_decay(spec.weight_decay));
  } else {
    // torch's AdamW: decoupled weight decay, betas (0.9, 0.999), eps 1e-8 (the defaults).
    optimizer_ = std::make_unique<torch::optim::AdamW>(
        values, torch::optim::AdamWOptions(spec.learning_rate).weight_decay(spec.weight_decay));
  }
  const int stages = static_cast<int>(spec.plan.stages.size());
  if (me_.stage > 0) prev_ranks_ = spec.replicaRanks(me_.stage - 1, me_.replica);
  if (me_.stage + 1 < stages) next_ranks_ = spec.replicaRanks(me_.stage + 1, me_.replica);
}

// Inputs (offset 0) or labels (offset 1) of one microbatch of one pipeline. Global sample order:
// microbatch u of pipeline d holds samples (u * D + d) * b ... + b - 1 of the iteration, so any
// split of the global batch covers the same samples as one process would.
torch::Tensor Trainer::tokens(int iteration, int pipeline, int microbatch, int offset) const {
  const int b = spec_.plan.microbatch_size, S = spec_.model.sequence_length;
  std::vector<std::int64_t> flat;
  flat.reserve(static_cast<std::size_t>(b) * S);
  const std::int64_t base =
      static_cast<std::int64_t>(iteration) * spec_.global_batch_size +
      (static_cast<std::int64_t>(microbatch) * spec_.data_parallel + pipeline) * b;
  for (int i = 0; i < b; ++i) {
    const std::vector<std::int64_t> s = data_.sample(base + i, S);
    flat.insert(flat.end(), s.begin() + offset, s.begin() + offset + S);
  }
  return torch::tensor(flat, torch::kInt64).view({b, S}).to(device_);
}

IterationReport Trainer::step(int iteration) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  commTimes() = CommTimes{};
  IterationReport report;
  report.iteration = iteration;
  report.learning_rate = spec_.learningRateAt(iteration);
  for (auto& group : optimizer_->param_groups()) group.options().set_lr(report.learning_rate);
  for (Param& p : model_->params()) p.value.mutable_grad() = torch::Tensor();

  const int P = static_cast<int>(spec_.plan.stages.size()), s = me_.stage;
  const int m = spec_.microbatches, d = me_.replica;
  const std::int64_t b = spec_.plan.microbatch_size, S = spec_.model.sequence_length,
                     h = spec_.model.hidden_size;
  const bool first = s == 0, last = s == P - 1;
  P2p p2p(groups_.world);
  const auto hidden_shape = torch::TensorOptions().dtype(model_->activationDtype()).device(device_);

  // Posting helpers; the matching wait() happens where the schedule needs the data.
  auto post_recv_forward = [&](int mb) {
    torch::Tensor t = torch::empty({b, S, h}, hidden_shape);
    const int src = prev_ranks_[me_.tp_rank % prev_ranks_.size()];
    p2p.recv(t, src, tagOf(mb, kTagActivation));
    return t;
  };
  auto post_send_forward = [&](const torch::Tensor& out, int mb) {
    const int t1 = me_.tp;
    for (std::size_t k = 0; k < next_ranks_.size(); ++k)
      if (static_cast<int>(k) % t1 == me_.tp_rank)
        p2p.send(out.detach(), next_ranks_[k], tagOf(mb, kTagActivation));
  };
  auto post_recv_backward = [&](int mb) {
    torch::Tensor t = torch::empty({b, S, h}, hidden_shape);
    const int src = next_ranks_[me_.tp_rank % next_ranks_.size()];
    p2p.recv(t, src, tagOf(mb, kTagGradient));
    return t;
  };
  auto post_send_backward = [&](const torch::Tensor& grad, int mb) {
    const int t2 = me_.tp;
    for (std::size_t j = 0; j < prev_ranks_.size(); ++j)
      if (static_cast<int>(j) % t2 == me_.tp_rank)
        p2p.send(grad, prev_ranks_[j], tagOf(mb, kTagGradient));
  };

  std::deque<std::pair<torch::Tensor, torch::Tensor>> in_flight;  // (input, output) per microbatch
  auto forward = [&](int mb, torch::Tensor input) {
    torch::Tensor labels;
    if (first) input = tokens(iteration, d, mb, 0);
    else input.set_requires_grad(true);
    if (last) labels = tokens(iteration, d, mb, 1);
    torch::Tensor out = model_->forward(input, labels);
    if (last && me_.tp_rank == 0) {
      report.loss_sum += out.item<double>();
      report.loss_count += 1;
    }
    in_flight.emplace_back(input, out);
    return out;
  };
  auto backward = [&](const torch::Tensor& grad_out) {
    auto [input, out] = in_flight.front();
    in_flight.pop_front();
    if (last) (out / static_cast<double>(m)).backward();
    else out.backward(grad_out);
    return first ? torch::Tensor() : input.grad();
  };

  // Megatron's non-interleaved 1F1B: warm-up forwards, steady one-forward-one-backward, cool-down.
  const int warmup = std::min(P - s - 1, m);
  const int steady = m - warmup;
  for (int i = 0; i < warmup; ++i) {
    torch::Tensor in;
    if (!first) {
      in = post_recv_forward(i);
      p2p.wait();
    }
    torch::Tensor out = forward(i, in);
    if (!last) {
      post_send_forward(out, i);
      p2p.wait();
    }
  }
  torch::Tensor input;
  if (steady > 0 && !first) {
    input = post_recv_forward(warmup);
    p2p.wait();
  }
  for (int i = 0; i < steady; ++i) {
    const int fwd_mb = warmup + i, bwd_mb = i;
    torch::Tensor out = forward(fwd_mb, input);
    torch::Tensor grad_out;
    if (!last) {
      post_send_forward(out, fwd_mb);
      grad_out = post_recv_backward(bwd_mb);
      p2p.wait();
    }
    torch::Tensor grad_in = backward(grad_out);
    if (!first) post_send_backward(grad_in, bwd_mb);
    if (i + 1 < steady && !first) input = post_recv_forward(fwd_mb + 1);
    p2p.wait();
  }
  for (int i = steady; i < m; ++i) {
    torch::Tensor grad_out;
    if (!last) {
      grad_out = post_recv_backward(i);
      p2p.wait();
    }
    torch::Tensor grad_in = backward(grad_out);
    if (!first) {
      post_send_backward(grad_in, i);
      p2p.wait();
    }
  }

  syncGradients();
  report.grad_norm = clipGradients();
  optimizer_->step();
  if (device_.is_cuda())  // kernels run asynchronously: the iteration ends when they finish
    torch::cuda::synchronize(device_.index());
  report.comm = commTimes();
  report.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return report;
}

// Averages gradients over the stage's replicas. With one tp degree in the stage, each tp rank
// all-reduces its shards with the same tp rank of the other replicas (flattened into buckets).
// With mixed tp degrees (SAILOR's heterogeneous stages) shards do not line up, so every rank of
// the stage writes its shards into a zero-filled buffer laid out as the full tensors (a
// replicated tensor is written by tp rank 0 only), the whole stage sums the buffers, and each
// rank reads its shards back: each element is then the sum of exactly one copy per replica.
// Tied embeddings: the first and last stage then add their (replica-averaged) gradients.
void Trainer::syncGradients() {
  std::vector<Param>& params = model_->params();
  for (Param& p : params)
    if (!p.value.grad().defined()) p.value.mutable_grad() = torch::zeros_like(p.value);
  const double D = spec_.data_parallel;
  if (groups_.dp) {
    std::vector<std::vector<Param*>> buckets(1);
    std::int64_t filled = 0;
    for (Param& p : params) {
      const std::int64_t n = groups_.dp_padded
                                 ? std::accumulate(p.full_shape.begin(), p.full_shape.end(),
                                                   std::int64_t{1}, std::multiplies<>())
                                 : p.value.numel();
      if (filled > 0 && filled + n > spec_.bucket_elements) {
        buckets.emplace_back();
        filled = 0;
      }
      buckets.back().push_back(&p);
      filled += n;
    }
    std::vector<std::vector<at::Tensor>> flats;
    std::vector<c10::intrusive_ptr<c10d::Work>> works;
    for (const auto& bucket : buckets) {
      std::vector<torch::Tensor> pieces;
      for (Param* p : bucket) {
        if (!groups_.dp_padded) {
          pieces.push_back(p->value.grad().reshape({-1}));
          continue;
        }
        torch::Tensor full = torch::zeros(p->full_shape, p->value.options());
        if (p->shard_dim >= 0)
          full.index_copy_(p->shard_dim, p->full_index.to(device_), p->value.grad());
        else if (me_.tp_rank == 0) full.copy_(p->value.grad());
        pieces.push_back(full.reshape({-1}));
      }
      flats.push_back({torch::cat(pieces)});
    }
    const auto t0 = std::chrono::steady_clock::now();
    for (auto& flat : flats) works.push_back(groups_.dp->allreduce(flat));
    for (auto& w : works) w->wait();
    commTimes().dp += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (std::size_t i = 0; i < buckets.size(); ++i) {
      torch::Tensor flat = flats[i][0] / D;
      std::int64_t offset = 0;
      for (Param* p : buckets[i]) {
        torch::Tensor grad = p->value.mutable_grad();
        if (!groups_.dp_padded) {
          grad.copy_(flat.slice(0, offset, offset + grad.numel()).view_as(grad));
          offset += grad.numel();
          continue;
        }
        const std::int64_t n = std::accumulate(p->full_shape.begin(), p->full_shape.end(),
                                               std::int64_t{1}, std::multiplies<>());
        torch::Tensor full = flat.slice(0, offset, offset + n).view(p->full_shape);
        offset += n;
        grad.copy_(p->shard_dim >= 0 ? full.index_select(p->shard_dim, p->full_index.to(device_))
                                     : full);
      }
    }
  }
  if (groups_.embedding) {
    for (Param& p : params) {
      if (p.name != "embedding.token") continue;
      std::vector<at::Tensor> t{groups_.embedding_contributor ? p.value.grad().clone()
                                                              : torch::zeros_like(p.value)};
      allReduceSum(groups_.embedding, t, &CommTimes::dp);
      p.value.mutable_grad().copy_(t[0]);
    }
  }
}

// Global gradient norm over the whole model, each element counted once: shards by their owner,
// replicated tensors by tp rank 0, the tied copy not at all; summed over the world, whose D
// pipelines each hold the full model.
double Trainer::clipGradients() {
  torch::Tensor sq =
      torch::zeros({1}, torch::TensorOptions().dtype(torch::kFloat64).device(device_));
  for (Param& p : model_->params()) {
    if (p.tied_copy || (p.shard_dim < 0 && me_.tp_rank != 0)) continue;
    sq += p.value.grad().pow(2).sum().to(torch::kFloat64);  // per tensor in its dtype
  }
  if (spec_.worldSize() > 1) {
    std::vector<at::Tensor> t{sq};
    allReduceSum(groups_.world, t, &CommTimes::dp);
    sq = t[0];
  }
  const double norm = std::sqrt(sq.item<double>() / spec_.data_parallel);
  if (spec_.grad_clip > 0 && norm > spec_.grad_clip) {
    const double scale = spec_.grad_clip / (norm + 1e-6);
    for (Param& p : model_->params()) p.value.mutable_grad().mul_(scale);
  }
  return norm;
}

}  // namespace sailor::runner
