// One worker's training loop (trainer.hpp). In this file:
//   - construction: the stage's model on the device, the optimizer (makeOptimizer), the
//     neighbouring stages' ranks;
//   - tokens: the samples of one microbatch;
//   - step: one iteration = the 1F1B schedule (runSchedule, over forwardMicrobatch,
//     backwardMicrobatch and the post* transfer helpers; runInterleavedSchedule over the model's
//     chunks, NOTE [Interleaved schedule in the runtime]), syncGradients, clipGradients, the
//     optimizer's step; communication is timed by commClock() (comm.hpp);
//   - syncGradients: the data-parallel sum (ReplicaGradientSum, grad_sync.hpp: buckets,
//     flattened or zero-padded, started during the last backward with overlap) and the
//     tied-embedding reduction; clipGradients: the global norm.
#include "trainer.hpp"

#include <chrono>
#include <cmath>
#include <deque>

#include "sailor/simulation/simulator.hpp"

namespace sailor::runner {

namespace {

constexpr int kTagActivation = 0;
constexpr int kTagGradient = 1;
// A boundary tensor's tag: its microbatch, the receiving model chunk (of `chunks` on the
// receiver) and its kind, so that a pair of ranks exchanging both ways (the interleaved schedule's
// wrap from the last stage to the first) never matches one transfer with another.
int tagOf(int microbatch, int chunk, int chunks, int kind) {
  return 2 * (microbatch * chunks + chunk) + kind;
}

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const RunSpec& spec,
                                                       const std::vector<torch::Tensor>& values) {
  if (spec.optimizer == Optimizer::Sgd) {
    // SGD with heavy-ball momentum 0.9 and L2 weight decay (torch.optim.SGD's coupled decay),
    // as the engine's NOTE [Model-state bytes] counts it: one momentum buffer per parameter.
    return std::make_unique<torch::optim::SGD>(
        values,
        torch::optim::SGDOptions(spec.learning_rate).momentum(0.9).weight_decay(spec.weight_decay));
  }
  // torch's AdamW: decoupled weight decay, betas (0.9, 0.999), eps 1e-8 (the defaults).
  return std::make_unique<torch::optim::AdamW>(
      values, torch::optim::AdamWOptions(spec.learning_rate).weight_decay(spec.weight_decay));
}

}  // namespace

// One iteration's pipeline state: the transfers in flight and, per model chunk, the
// microbatches whose backward is still to come.
struct Trainer::Pass {
  int iteration = 0;
  IterationReport* report = nullptr;
  P2p p2p;
  int microbatches = 0;  // this pipeline's, of which backwards[c] have gone backward in chunk c
  std::vector<int> backwards;
  // (input, output) per microbatch, per chunk
  std::vector<std::deque<std::pair<torch::Tensor, torch::Tensor>>> in_flight;
};

Trainer::Trainer(const RunSpec& spec, int rank, Groups groups, torch::Dtype dtype,
                 torch::Device device)
    : spec_(spec),
      me_(spec.ranks.at(rank)),
      groups_(std::move(groups)),
      dtype_(dtype),
      device_(device),
      data_(TokenSource::open(spec.data, spec.data_format, spec.model.vocab_size, spec.seed)) {
  setTensorParallelGroup(groups_.tp);
  setCommClock(makeCommClock(device_));
  model_ = std::make_unique<StageModel>(spec, me_, dtype);
  model_->moveBuffersTo(device_);
  std::vector<torch::Tensor> values;
  for (Param& p : model_->params()) {
    p.value = p.value.detach().to(device_).set_requires_grad(true);
    values.push_back(p.value);
  }
  // Sharding needs replicas to share the state over (RunSpec::build refuses it with one; with
  // one the whole state is this rank's anyway).
  const DpSharding sharding = spec.plan.schedule.sharding;
  const bool shard = sharding != DpSharding::None && groups_.dp;
  const bool full = sharding == DpSharding::Full && groups_.dp;
  int presummed = -1;
  if (groups_.dp) {
    // Fully sharded, every backward reduces its units' gradients: overlapped by construction.
    ReplicaGradientSum::Options o;
    o.dp = groups_.dp;
    o.padded = groups_.dp_padded;
    o.tp_rank = me_.tp_rank;
    o.bucket_elements = spec.bucket_elements;
    o.device = device_;
    o.overlap = spec.plan.schedule.overlap_grad_reduce && !full;
    o.scatter = shard;
    o.backend = groups_.backend;
    o.replica = me_.replica;
    if (shard && groups_.embedding)  // summed over every replica in the embedding group first
      for (std::size_t k = 0; k < model_->params().size(); ++k)
        if (model_->params()[k].name == "embedding.token") presummed = static_cast<int>(k);
    o.presummed = presummed;
    if (full) o.units = model_->units();
    replica_sum_ = std::make_unique<ReplicaGradientSum>(model_->params(), std::move(o));
  }
  if (shard)
    dist_ = std::make_unique<DistributedOptimizer>(
        model_->params(), *replica_sum_,
        [&spec](const std::vector<torch::Tensor>& v) { return makeOptimizer(spec, v); }, full);
  else optimizer_ = makeOptimizer(spec, values);
  if (full) {
    fsdp_ = std::make_unique<FullySharded>(*model_, *replica_sum_, *dist_, presummed);
    model_->setUnitHooks(fsdp_.get());
  }
  const int stages = static_cast<int>(spec.plan.stages.size());
  if (me_.stage > 0) prev_ranks_ = spec.replicaRanks(me_.stage - 1, me_.replica);
  if (me_.stage + 1 < stages) next_ranks_ = spec.replicaRanks(me_.stage + 1, me_.replica);
  // Interleaved, the last stage's chunks feed the first stage's next chunks (and gradients flow
  // back the same way).
  if (model_->chunkCount() > 1) {
    if (me_.stage == 0) wrap_prev_ranks_ = spec.replicaRanks(stages - 1, me_.replica);
    if (me_.stage + 1 == stages) wrap_next_ranks_ = spec.replicaRanks(0, me_.replica);
  }
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

IterationReport Trainer::step(int iteration, bool want_pause) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  (void)commClock().collect();  // an iteration books only its own communication
  IterationReport report;
  report.iteration = iteration;
  report.learning_rate = spec_.learningRateAt(iteration);
  torch::optim::Optimizer& optimizer = dist_ ? dist_->optimizer() : *optimizer_;
  for (auto& group : optimizer.param_groups()) group.options().set_lr(report.learning_rate);
  for (Param& p : model_->params()) p.value.mutable_grad() = torch::Tensor();

  const auto chunks = static_cast<std::size_t>(model_->chunkCount());
  Pass pass{iteration,
            &report,
            P2p(groups_.world),
            spec_.pipelineMicrobatches(me_.replica),
            std::vector<int>(chunks, 0),
            std::vector<std::deque<std::pair<torch::Tensor, torch::Tensor>>>(chunks)};
  if (fsdp_) fsdp_->beginIteration();
  if (chunks > 1) runInterleavedSchedule(pass);
  else runSchedule(pass);
  if (fsdp_) fsdp_->finishIteration();
  syncGradients();
  report.pause = want_pause;
  report.grad_norm = clipGradients(report.pause);
  if (dist_) dist_->step();
  else optimizer_->step();
  if (device_.is_cuda())  // kernels run asynchronously: the iteration ends when they finish
    torch::cuda::synchronize(device_.index());
  report.comm = commClock().collect();
  report.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return report;
}

// Posting helpers; the matching wait() happens where the schedule needs the data. Receiver tp
// rank k takes a boundary tensor from sender tp rank k mod t_sender (docs/training.md,
// "Parallelism").
torch::Tensor Trainer::boundaryTensor() const {
  const std::int64_t b = spec_.plan.microbatch_size, S = spec_.model.sequence_length,
                     h = spec_.model.hidden_size;
  return torch::empty({b, S, h},
                      torch::TensorOptions().dtype(model_->activationDtype()).device(device_));
}

int Trainer::sourceIn(const std::vector<int>& neighbour) const {
  return neighbour[static_cast<std::size_t>(me_.tp_rank) % neighbour.size()];
}

std::vector<int> Trainer::destinationsIn(const std::vector<int>& neighbour) const {
  std::vector<int> out;
  for (std::size_t k = 0; k < neighbour.size(); ++k)
    if (static_cast<int>(k) % me_.tp == me_.tp_rank) out.push_back(neighbour[k]);
  return out;
}

torch::Tensor Trainer::postRecvForward(Pass& pass, int mb) {
  torch::Tensor t = boundaryTensor();
  pass.p2p.recv(t, sourceIn(prev_ranks_), tagOf(mb, 0, 1, kTagActivation));
  return t;
}

void Trainer::postSendForward(Pass& pass, const torch::Tensor& out, int mb) {
  for (const int dst : destinationsIn(next_ranks_))
    pass.p2p.send(out.detach(), dst, tagOf(mb, 0, 1, kTagActivation));
}

torch::Tensor Trainer::postRecvBackward(Pass& pass, int mb) {
  torch::Tensor t = boundaryTensor();
  pass.p2p.recv(t, sourceIn(next_ranks_), tagOf(mb, 0, 1, kTagGradient));
  return t;
}

void Trainer::postSendBackward(Pass& pass, const torch::Tensor& grad, int mb) {
  for (const int dst : destinationsIn(prev_ranks_))
    pass.p2p.send(grad, dst, tagOf(mb, 0, 1, kTagGradient));
}

// Forward of microbatch `mb` through model chunk `chunk`: `input` is the received activation
// (ignored by the chunk holding the embedding, which reads tokens). The chunk computing the loss
// adds it to the report on tp rank 0.
torch::Tensor Trainer::forwardMicrobatch(Pass& pass, int mb, torch::Tensor input, int chunk) {
  const bool first = model_->readsTokens(chunk);
  const bool last = model_->computesLoss(chunk);
  const int d = me_.replica;
  torch::Tensor labels;
  if (first) input = tokens(pass.iteration, d, mb, 0);
  else input.set_requires_grad(true);
  if (last) labels = tokens(pass.iteration, d, mb, 1);
  torch::Tensor out = model_->forward(input, labels, chunk);
  if (last && me_.tp_rank == 0) {
    pass.report->loss_sum += out.item<double>();
    pass.report->loss_count += 1;
  }
  pass.in_flight[static_cast<std::size_t>(chunk)].emplace_back(input, out);
  return out;
}

// Backward of chunk `chunk`'s oldest microbatch in flight; returns its input's gradient
// (undefined for the chunk holding the embedding). The chunk computing the loss backpropagates
// loss / M, M = G / b the iteration's microbatches over all pipelines: summed over the replicas
// (ReplicaGradientSum), the gradients are those of the mean loss over the global batch however
// unevenly the pipelines share it. A chunk's last backward arms its parameters' reduction.
torch::Tensor Trainer::backwardMicrobatch(Pass& pass, const torch::Tensor& grad_out, int chunk) {
  const auto c = static_cast<std::size_t>(chunk);
  auto [input, out] = pass.in_flight[c].front();
  pass.in_flight[c].pop_front();
  if (++pass.backwards[c] == pass.microbatches && replica_sum_) {
    const auto [first, end] = model_->chunkParams(chunk);
    replica_sum_->armForLastBackward(first, end);
  }
  if (fsdp_) fsdp_->beginBackward(chunk);
  if (model_->computesLoss(chunk))
    (out / static_cast<double>(spec_.totalMicrobatches())).backward();
  else out.backward(grad_out);
  if (fsdp_) fsdp_->endBackward();
  return model_->readsTokens(chunk) ? torch::Tensor() : input.grad();
}

// Megatron's non-interleaved 1F1B: warm-up forwards, steady one-forward-one-backward, cool-down,
// over this pipeline's m_d microbatches (RunSpec::pipelineMicrobatches; every stage of the
// pipeline runs the same m_d, as every stage has the same D).
void Trainer::runSchedule(Pass& pass) {
  const int P = static_cast<int>(spec_.plan.stages.size()), s = me_.stage;
  const int m = spec_.pipelineMicrobatches(me_.replica);
  const bool first = s == 0, last = s == P - 1;
  P2p& p2p = pass.p2p;
  const int warmup = std::min(P - s - 1, m);
  const int steady = m - warmup;
  for (int i = 0; i < warmup; ++i) {
    torch::Tensor in;
    if (!first) {
      in = postRecvForward(pass, i);
      p2p.wait();
    }
    torch::Tensor out = forwardMicrobatch(pass, i, in);
    if (!last) {
      postSendForward(pass, out, i);
      p2p.wait();
    }
  }
  torch::Tensor input;
  if (steady > 0 && !first) {
    input = postRecvForward(pass, warmup);
    p2p.wait();
  }
  for (int i = 0; i < steady; ++i) {
    const int fwd_mb = warmup + i, bwd_mb = i;
    torch::Tensor out = forwardMicrobatch(pass, fwd_mb, input);
    torch::Tensor grad_out;
    if (!last) {
      postSendForward(pass, out, fwd_mb);
      grad_out = postRecvBackward(pass, bwd_mb);
      p2p.wait();
    }
    torch::Tensor grad_in = backwardMicrobatch(pass, grad_out);
    if (!first) postSendBackward(pass, grad_in, bwd_mb);
    if (i + 1 < steady && !first) input = postRecvForward(pass, fwd_mb + 1);
    p2p.wait();
  }
  for (int i = steady; i < m; ++i) {
    torch::Tensor grad_out;
    if (!last) {
      grad_out = postRecvBackward(pass, i);
      p2p.wait();
    }
    torch::Tensor grad_in = backwardMicrobatch(pass, grad_out);
    if (!first) {
      postSendBackward(pass, grad_in, i);
      p2p.wait();
    }
  }
}

// NOTE [Interleaved schedule in the runtime]
// The order of operations is the simulator's (interleavedOps: Megatron-LM's interleaved 1F1B),
// over this rank's v model chunks (Plan::chunkLayers). Chunk c of stage s is virtual stage
// c P + s: its forward input comes from stage s - 1's chunk c, or on stage 0 from the last stage's
// chunk c - 1, and its output goes the mirror way; gradients flow back. Sends are posted as their
// data is computed and never waited for before the end of the schedule, and each operation's
// receive is posted one operation ahead and waited for just before it computes: a rank then
// blocks only on data the schedule's order guarantees will come, so the schedule cannot deadlock
// whatever the message sizes, and the transfers overlap the compute of the operation before.
void Trainer::runInterleavedSchedule(Pass& pass) {
  const int P = static_cast<int>(spec_.plan.stages.size()), s = me_.stage;
  const int v = model_->chunkCount();
  const std::vector<InterleavedOp> ops = interleavedOps(P, s, pass.microbatches, v);
  AsyncP2p p2p(groups_.world);
  // The neighbours of chunk c: where its forward input comes from (chunk `from_chunk` of
  // `from`) and where its output goes.
  const auto from = [&](int c) {
    return s > 0 ? std::pair{&prev_ranks_, c} : std::pair{&wrap_prev_ranks_, c - 1};
  };
  const auto to = [&](int c) {
    return s + 1 < P ? std::pair{&next_ranks_, c} : std::pair{&wrap_next_ranks_, c + 1};
  };
  struct Incoming {
    torch::Tensor tensor;
    std::size_t ticket = 0;
  };
  // Posts op's incoming tensor, if it has one: the activation of a forward, the gradient of a
  // backward, tagged with this rank's chunk.
  const auto post = [&](const InterleavedOp& op) {
    Incoming in;
    if (op.forward ? model_->readsTokens(op.chunk) : model_->computesLoss(op.chunk)) return in;
    const std::vector<int>& ranks = *(op.forward ? from(op.chunk) : to(op.chunk)).first;
    in.tensor = boundaryTensor();
    in.ticket =
        p2p.recv(in.tensor, sourceIn(ranks),
                 tagOf(op.microbatch, op.chunk, v, op.forward ? kTagActivation : kTagGradient));
    return in;
  };
  Incoming next = ops.empty() ? Incoming{} : post(ops.front());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const InterleavedOp& op = ops[i];
    Incoming in = std::move(next);
    if (i + 1 < ops.size()) next = post(ops[i + 1]);
    if (in.tensor.defined()) p2p.wait(in.ticket);
    if (op.forward) {
      torch::Tensor out = forwardMicrobatch(pass, op.microbatch, in.tensor, op.chunk);
      if (model_->computesLoss(op.chunk)) continue;
      const auto [ranks, chunk] = to(op.chunk);
      for (const int dst : destinationsIn(*ranks))
        p2p.send(out.detach(), dst, tagOf(op.microbatch, chunk, v, kTagActivation));
    } else {
      torch::Tensor grad = backwardMicrobatch(pass, in.tensor, op.chunk);
      if (model_->readsTokens(op.chunk)) continue;
      const auto [ranks, chunk] = from(op.chunk);
      for (const int dst : destinationsIn(*ranks))
        p2p.send(grad, dst, tagOf(op.microbatch, chunk, v, kTagGradient));
    }
  }
  p2p.finish();
}

// Sums gradients over the stage's replicas (each microbatch's loss is already scaled by 1 / M,
// so the sum is the gradient of the mean over the global batch). With one tp degree in the stage,
// each tp rank all-reduces its shards with the same tp rank of the other replicas (flattened into
// buckets). With mixed tp degrees (SAILOR's heterogeneous stages) shards do not line up, so every
// rank of the stage writes its shards into a zero-filled buffer laid out as the full tensors (a
// replicated tensor is written by tp rank 0 only), the whole stage sums the buffers, and each
// rank reads its shards back: each element is then the sum of exactly one copy per replica.
// With overlap the buckets started during the last microbatch's backward (grad_sync.hpp).
// Tied embeddings: the first and last stage then add their (replica-summed) gradients. Under the
// distributed optimizer the buckets are reduce-scattered instead, so the tied embedding is summed
// first, over every replica's first and last stage, and only sliced (Options::presummed).
void Trainer::syncGradients() {
  for (std::size_t k = 0; k < model_->params().size(); ++k) {
    Param& p = model_->params()[k];
    if (fsdp_ && replica_sum_->reducedPerBackward(k)) continue;  // reduced by its unit
    if (!p.value.grad().defined()) p.value.mutable_grad() = torch::zeros_like(p.value);
  }
  if (dist_ && groups_.embedding) reduceTiedEmbedding();
  if (replica_sum_) replica_sum_->finish();
  if (!dist_ && groups_.embedding) reduceTiedEmbedding();
}

void Trainer::reduceTiedEmbedding() {
  for (Param& p : model_->params()) {
    if (p.name != "embedding.token") continue;
    std::vector<at::Tensor> t{groups_.embedding_contributor ? p.value.grad().clone()
                                                            : torch::zeros_like(p.value)};
    allReduceSum(groups_.embedding, t, &CommTimes::dp);
    p.value.mutable_grad().copy_(t[0]);
  }
}

// Global gradient norm over the whole model, each element counted once: shards by their owner,
// replicated tensors by tp rank 0, the tied copy not at all; summed over the world, whose D
// pipelines each hold the full model with the same (replica-summed) gradients: hence / D. Under
// the distributed optimizer each replica holds its share of the sums: counted as they are.
// The same all-reduce carries the ranks' pause requests (second element: how many asked).
double Trainer::clipGradients(bool& pause) {
  torch::Tensor sq =
      torch::zeros({1}, torch::TensorOptions().dtype(torch::kFloat64).device(device_));
  if (dist_) {
    sq += dist_->squaredGradientNorm();
  } else {
    for (Param& p : model_->params()) {
      if (p.tied_copy || (p.shard_dim < 0 && me_.tp_rank != 0)) continue;
      sq += p.value.grad().pow(2).sum().to(torch::kFloat64);  // per tensor in its dtype
    }
  }
  if (spec_.worldSize() > 1) {
    torch::Tensor both = torch::cat({sq, torch::full({1}, pause ? 1.0 : 0.0, sq.options())});
    std::vector<at::Tensor> t{both};
    allReduceSum(groups_.world, t, &CommTimes::dp);
    sq = t[0].slice(0, 0, 1);
    pause = t[0][1].item<double>() > 0;
  }
  const double norm = std::sqrt(sq.item<double>() / (dist_ ? 1 : spec_.data_parallel));
  if (spec_.grad_clip > 0 && norm > spec_.grad_clip) {
    const double scale = spec_.grad_clip / (norm + 1e-6);
    if (dist_) dist_->scaleGradients(scale);
    else
      for (Param& p : model_->params()) p.value.mutable_grad().mul_(scale);
  }
  return norm;
}

}  // namespace sailor::runner
