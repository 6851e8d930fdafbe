// One pipeline stage of the decoder (model.hpp). In this file:
//   - NOTE [Recomputed blocks]: RecomputedBlock, a block's forward without a graph and its
//     backward re-running it;
//   - StageModel::add: one parameter, built in full from its name's seed, then sharded;
//   - the constructor: this stage's parameters (embeddings, blocks, final norm, head);
//   - NOTE [Mixed precision]: weight, norm, block and forward, the computation itself.
#include "model.hpp"

#include <cmath>
#include <limits>
#include <numeric>

#include "comm.hpp"
#include "sailor/runs/token_data.hpp"

#include <ATen/CPUGeneratorImpl.h>

namespace sailor::runner {

namespace {

std::uint64_t nameSeed(std::uint64_t seed, const std::string& name) {
  std::uint64_t h = splitmix64(seed);
  for (unsigned char c : name) h = splitmix64(h ^ c);
  return h;
}

std::vector<std::int64_t> range(std::int64_t begin, std::int64_t end) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(end - begin));
  std::iota(v.begin(), v.end(), begin);
  return v;
}

}  // namespace

// NOTE [Recomputed blocks]
// Full activation recomputation (job "recompute": "full"; the engine's NOTE [Activation
// recomputation] models it): a block's forward runs without recording a graph and keeps only
// its input; its backward re-runs the block's forward with the graph, then backpropagates the
// incoming gradient through it (a reentrant backward, as torch.utils.checkpoint does). The
// parameters' gradients accumulate in their leaves during that inner backward, and the block's
// input gradient is what this node returns. The recomputed forward repeats the block's
// tensor-parallel all-reduces in the same order on every rank of the group, and the block has
// no randomness (no dropout), so it reproduces the first forward exactly.
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;
using Index = std::int64_t;

struct RecomputedBlock : torch::autograd::Function<RecomputedBlock> {
  // `model` is carried as an integer: AutogradContext keeps IValues only. The StageModel outlives
  // every graph built from it.
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& x, Index model,
                               Index index) {
    ctx->save_for_backward({x});
    ctx->saved_data["model"] = model;
    ctx->saved_data["index"] = index;
    // NOLINTNEXTLINE(performance-no-int-to-ptr): the address carried as an integer, above
    return reinterpret_cast<const StageModel*>(model)->blockAt(x, static_cast<std::size_t>(index));
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_out) {
    // NOLINTNEXTLINE(performance-no-int-to-ptr): the address carried as an integer, above
    const auto* model = reinterpret_cast<const StageModel*>(ctx->saved_data["model"].toInt());
    const auto index = static_cast<std::size_t>(ctx->saved_data["index"].toInt());
    torch::Tensor x = ctx->get_saved_variables()[0].detach().requires_grad_(true);
    torch::Tensor out;
    {
      torch::AutoGradMode enable(true);
      out = model->blockAt(x, index);
    }
    torch::autograd::backward({out}, {grad_out[0]});
    return {x.grad(), torch::Tensor(), torch::Tensor()};
  }
};

Param* StageModel::add(const std::string& name, const std::vector<std::int64_t>& shape,
                       int shard_dim, const std::vector<std::int64_t>& index, double init_std,
                       double init_value) {
  torch::Tensor full;
  if (init_std > 0) {
    at::Generator gen = at::detail::createCPUGenerator(nameSeed(spec_.seed, name));
    full = at::randn(shape, gen, torch::TensorOptions().dtype(torch::kFloat64)) * init_std;
  } else {
    full = torch::full(shape, init_value, torch::TensorOptions().dtype(torch::kFloat64));
  }
  Param p;
  p.name = name;
  p.full_shape = shape;
  p.shard_dim = shard_dim;
  torch::Tensor local = full;
  if (shard_dim >= 0) {
    p.full_index = torch::tensor(index, torch::kInt64);
    local = full.index_select(shard_dim, p.full_index);
  }
  p.value = local.to(dtype_).contiguous().set_requires_grad(true);
  params_.push_back(std::move(p));
  return &params_.back();
}

StageModel::StageModel(const RunSpec& spec, const RankPlacement& placement, torch::Dtype dtype)
    : spec_(spec),
      me_(placement),
      dtype_(dtype),
      compute_(spec.precision == Precision::Bf16 ? torch::kBFloat16 : dtype) {
  const RuntimeModel& m = spec.model;
  std::size_t blocks = 0;
  for (const auto& [first, last] :
       spec.plan.chunkLayers(static_cast<std::size_t>(placement.stage))) {
    chunks_.push_back({first, last, {}, {}, {}});
    blocks += static_cast<std::size_t>(last - first + 1);
  }
  params_.reserve(16 * blocks + 8);
  const std::int64_t h = m.hidden_size, V = m.vocab_size, S = m.sequence_length,
                     F = m.ffn_hidden_size;
  const int tp = placement.tp, k = placement.tp_rank;
  const std::int64_t hd = m.headDim(), local_heads = m.heads / tp, lf = F / tp;
  // Every weight matrix, the residual projections (attention output, fc2) included, is drawn with
  // std 0.02. GPT-2 and Megatron scale the residual projections by 1 / sqrt(2 layers) (0.0029 for
  // OPT-350M's 24 blocks); here that made the studio's default run (hidden 256, AdamW at 1e-3,
  // clipping at 1.0) jump from 4.32 to 7.43 nats at iteration 3 whatever the warm-up (4 or 8
  // iterations) or peak rate (3e-4 or 6e-4): the residual stream at initialisation is then
  // almost only the embeddings (std 0.02), the final norm divides it by its small spread (initial
  // gradient norm 33 instead of 12.5), and Adam's first steps, about lr per element whatever the
  // gradient's size, make the 48 branches' outputs swamp the token signal. At std 0.02 the same
  // run falls smoothly (docs/training.md "Loss curve at the start").
  const double std0 = 0.02;
  const bool rms = m.norm == NormType::RmsNorm;

  auto add_norm = [&](const std::string& prefix, Param*& w, Param*& b) {
    w = add(prefix + ".weight", {h}, -1, {}, 0, 1.0);
    b = rms ? nullptr : add(prefix + ".bias", {h}, -1, {}, 0, 0.0);
  };
  // Column-parallel QKV: rows of q, k and v for this rank's heads.
  std::vector<std::int64_t> qkv_index;
  for (int part = 0; part < 3; ++part) {
    const auto r = range(part * h + k * local_heads * hd, part * h + (k + 1) * local_heads * hd);
    qkv_index.insert(qkv_index.end(), r.begin(), r.end());
  }
  const auto head_cols = range(k * local_heads * hd, (k + 1) * local_heads * hd);
  const auto ffn_rows = range(k * lf, (k + 1) * lf);
  for (std::size_t ci = 0; ci < chunks_.size(); ++ci) {
    Chunk& c = chunks_[ci];
    c.params.first = params_.size();
    c.blocks.first = blocks_.size();
    c.units.first = units_.size();
    if (c.first == 0) {
      tok_ = add("embedding.token", {V, h}, -1, {}, std0, 0);
      pos_ = add("embedding.position", {S, h}, -1, {}, std0, 0);
      units_.emplace_back(params_.size() - 2, params_.size());
    }
    for (int layer = std::max(c.first, 1); layer <= std::min(c.last, m.layers); ++layer) {
      const std::string p = "layer" + std::to_string(layer);
      const std::size_t unit_first = params_.size();
      Block b;
      add_norm(p + ".ln1", b.ln1_w, b.ln1_b);
      b.qkv_w = add(p + ".attn.qkv.weight", {3 * h, h}, 0, qkv_index, std0, 0);
      if (m.bias) b.qkv_b = add(p + ".attn.qkv.bias", {3 * h}, 0, qkv_index, 0, 0.0);
      b.out_w = add(p + ".attn.out.weight", {h, h}, 1, head_cols, std0, 0);
      if (m.bias) b.out_b = add(p + ".attn.out.bias", {h}, -1, {}, 0, 0.0);
      add_norm(p + ".ln2", b.ln2_w, b.ln2_b);
      b.fc1_w = add(p + ".mlp.fc1.weight", {F, h}, 0, ffn_rows, std0, 0);
      if (m.bias) b.fc1_b = add(p + ".mlp.fc1.bias", {F}, 0, ffn_rows, 0, 0.0);
      b.fc2_w = add(p + ".mlp.fc2.weight", {h, F}, 1, ffn_rows, std0, 0);
      if (m.bias) b.fc2_b = add(p + ".mlp.fc2.bias", {h}, -1, {}, 0, 0.0);
      blocks_.push_back(b);
      units_.emplace_back(unit_first, params_.size());
    }
    c.blocks.second = blocks_.size();
    if (c.last == m.layers + 1) {
      const std::size_t unit_first = params_.size();
      add_norm("final_norm", lnf_w_, lnf_b_);
      if (m.tied_embeddings && tok_) {
        head_ = tok_;  // same stage: one tensor
      } else if (m.tied_embeddings) {
        head_ = add("embedding.token", {V, h}, -1, {}, std0, 0);  // same seed, same values
        head_->tied_copy = true;
      } else {
        head_ = add("head.weight", {V, h}, -1, {}, std0, 0);
      }
      units_.emplace_back(unit_first, params_.size());
    }
    c.params.second = params_.size();
    c.units.second = units_.size();
  }
  causal_mask_ = torch::full({S, S}, -std::numeric_limits<double>::infinity(),
                             torch::TensorOptions().dtype(dtype_))
                     .triu(1);
}

// NOTE [Mixed precision]
// Job precision bf16 (Megatron's --bf16): the parameters, their gradients and the optimizer state
// stay in the master dtype (float32); every forward casts the weights it multiplies by to
// bfloat16 (the cast's backward brings the gradient back to the master dtype), so the matrix
// products, the activations kept for backward, the residual stream and the pipeline's
// point-to-point messages are bfloat16. Norms, the softmax and the loss compute in the master
// dtype, as autocast and Megatron's fused kernels do: their reductions lose too much in 8 bits
// of mantissa. Gradients are reduced among replicas in the master dtype (Megatron's default
// fp32 main gradients). bf16 needs no loss scaling: its exponent range is float32's.
torch::Tensor StageModel::weight(const Param* p) const {
  return p->value.to(compute_);  // no copy when the dtypes agree
}

torch::Tensor StageModel::norm(const torch::Tensor& x, Param* w, Param* b) const {
  const torch::Tensor x32 = x.to(dtype_);
  if (b) return at::layer_norm(x32, {x.size(-1)}, w->value, b->value, 1e-5).to(compute_);
  return (x32 * torch::rsqrt(x32.pow(2).mean(-1, true) + 1e-5) * w->value).to(compute_);  // RMSNorm
}

torch::Tensor StageModel::block(const torch::Tensor& x, const Block& b) const {
  const std::int64_t B = x.size(0), S = x.size(1);
  const std::int64_t hd = spec_.model.headDim(), nl = spec_.model.heads / me_.tp;
  auto linear = [this](const torch::Tensor& in, Param* w, Param* bias) {
    return torch::linear(in, weight(w), bias ? weight(bias) : torch::Tensor());
  };
  // Attention.
  torch::Tensor a = copyToTensorParallel(norm(x, b.ln1_w, b.ln1_b));
  torch::Tensor qkv = linear(a, b.qkv_w, b.qkv_b);  // [B, S, 3 * nl * hd]
  auto parts = qkv.chunk(3, -1);
  auto heads = [&](const torch::Tensor& t) { return t.view({B, S, nl, hd}).transpose(1, 2); };
  torch::Tensor q = heads(parts[0]), k = heads(parts[1]), v = heads(parts[2]);
  torch::Tensor scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(hd));
  scores = scores.to(dtype_) + causal_mask_.slice(0, 0, S).slice(1, 0, S);
  torch::Tensor ctx = torch::matmul(torch::softmax(scores, -1).to(compute_), v);
  ctx = ctx.transpose(1, 2).reshape({B, S, nl * hd});
  torch::Tensor o = reduceFromTensorParallel(torch::linear(ctx, weight(b.out_w)));
  if (b.out_b) o = o + weight(b.out_b);
  torch::Tensor hidden = x + o;
  // MLP.
  torch::Tensor m = copyToTensorParallel(norm(hidden, b.ln2_w, b.ln2_b));
  m = torch::gelu(linear(m, b.fc1_w, b.fc1_b));
  m = reduceFromTensorParallel(torch::linear(m, weight(b.fc2_w)));
  if (b.fc2_b) m = m + weight(b.fc2_b);
  return hidden + m;
}

torch::Tensor StageModel::forward(const torch::Tensor& input, const torch::Tensor& labels,
                                  int chunk) {
  const Chunk& c = chunks_.at(static_cast<std::size_t>(chunk));
  std::size_t unit = c.units.first;
  const auto before = [&] {
    if (hooks_) hooks_->beforeForward(unit);
  };
  const auto after = [&](const torch::Tensor& out) {
    if (hooks_) hooks_->afterForward(unit, out);
    ++unit;
  };
  torch::Tensor x = input;
  if (readsTokens(chunk)) {
    const std::int64_t S = input.size(1);
    before();
    x = (torch::embedding(tok_->value, input) + pos_->value.slice(0, 0, S)).to(compute_);
    after(x);
  }
  for (std::size_t i = c.blocks.first; i < c.blocks.second; ++i) {
    before();
    x = spec_.recompute == Recompute::Full && x.requires_grad()
            ? RecomputedBlock::apply(x, reinterpret_cast<std::int64_t>(this),
                                     static_cast<std::int64_t>(i))
            : block(x, blocks_[i]);
    after(x);
  }
  if (!computesLoss(chunk)) return x;
  before();
  x = norm(x, lnf_w_, lnf_b_);
  torch::Tensor logits = torch::linear(x, weight(head_)).to(dtype_);
  torch::Tensor loss =
      torch::cross_entropy_loss(logits.reshape({-1, logits.size(-1)}), labels.reshape({-1}));
  after(loss);
  return loss;
}

}  // namespace sailor::runner
