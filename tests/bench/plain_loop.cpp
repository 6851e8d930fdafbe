// The runtime's model trained the plain way: a baseline for the runtime's single-process
// throughput (tests/bench/runtime_bench.py). The same GPT-style decoder as
// runner/src/training/model.cpp (token and position embeddings, pre-norm blocks with LayerNorm, QKV
// / out / fc1 / fc2 linears with bias, manual causal attention, exact GELU, final LayerNorm, head
// tied to the token embedding, cross-entropy) written with torch::nn modules, trained with
// torch::optim::AdamW (weight decay 0.01, the runtime's warm-up + cosine learning-rate schedule),
// gradient accumulation over m microbatches of b sequences with loss / m, global-norm clipping
// to 1.0, on the runtime's synthetic data (sailor::TokenSource, samples indexed as one pipeline),
// in float32 on one intra-op and one inter-op thread. Initial weights follow the runtime's scheme
// but not its values: this is a throughput baseline, not an exactness check.
//
// Usage: plain_loop [--layers 24] [--hidden 256] [--heads 16] [--ffn 1024] [--vocab 256]
//                   [--seq-len 64] [--global-batch 8] [--microbatch 2] [--iterations 30]
//                   [--lr 1e-3] [--seed 1234] [--print-samples]
// Prints one JSON line per iteration: {"iteration":i,"loss":x,"seconds":s}. With --print-samples
// it trains nothing and prints the token samples those iterations use (iterations x global batch
// lines of seq-len + 1 tokens, in sample order), for plain_loop.py to train on the same data.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "sailor/runs/token_data.hpp"

namespace {

struct Config {
  std::int64_t layers = 24, hidden = 256, heads = 16, ffn = 1024, vocab = 256, seq_len = 64;
  std::int64_t global_batch = 8, microbatch = 2;
  int iterations = 30;
  double lr = 1e-3;
  std::uint64_t seed = 1234;
  bool print_samples = false;
};

struct BlockImpl : torch::nn::Module {
  BlockImpl(std::int64_t h, std::int64_t heads, std::int64_t ffn)
      : ln1(register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({h})))),
        qkv(register_module("qkv", torch::nn::Linear(h, 3 * h))),
        out(register_module("out", torch::nn::Linear(h, h))),
        ln2(register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({h})))),
        fc1(register_module("fc1", torch::nn::Linear(h, ffn))),
        fc2(register_module("fc2", torch::nn::Linear(ffn, h))),
        n_heads(heads),
        head_dim(h / heads) {}

  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& mask) {
    const std::int64_t B = x.size(0), S = x.size(1);
    auto parts = qkv(ln1(x)).chunk(3, -1);
    auto split = [&](const torch::Tensor& t) {
      return t.view({B, S, n_heads, head_dim}).transpose(1, 2);
    };
    torch::Tensor q = split(parts[0]), k = split(parts[1]), v = split(parts[2]);
    torch::Tensor scores =
        torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(head_dim));
    scores = scores + mask;
    torch::Tensor ctx = torch::matmul(torch::softmax(scores, -1), v);
    ctx = ctx.transpose(1, 2).reshape({B, S, n_heads * head_dim});
    torch::Tensor hidden = x + out(ctx);
    return hidden + fc2(torch::gelu(fc1(ln2(hidden))));
  }

  torch::nn::LayerNorm ln1;
  torch::nn::Linear qkv, out;
  torch::nn::LayerNorm ln2;
  torch::nn::Linear fc1, fc2;
  std::int64_t n_heads, head_dim;
};
TORCH_MODULE(Block);

struct GptImpl : torch::nn::Module {
  explicit GptImpl(const Config& c)
      : tok(register_module("tok", torch::nn::Embedding(c.vocab, c.hidden))),
        pos(register_module("pos", torch::nn::Embedding(c.seq_len, c.hidden))),
        blocks(register_module("blocks", torch::nn::ModuleList())),
        lnf(register_module("lnf", torch::nn::LayerNorm(torch::nn::LayerNormOptions({c.hidden})))) {
    for (std::int64_t i = 0; i < c.layers; ++i) blocks->push_back(Block(c.hidden, c.heads, c.ffn));
    // The runtime's initialization scheme (GPT-2's): normal(0, 0.02), the residual outputs
    // scaled by 1 / sqrt(2 layers), zero biases. Not its values: it seeds tensors by name.
    torch::NoGradGuard no_grad;
    const double std0 = 0.02, std_out = 0.02 / std::sqrt(2.0 * static_cast<double>(c.layers));
    tok->weight.normal_(0, std0);
    pos->weight.normal_(0, std0);
    for (const auto& m : *blocks) {
      auto* b = m->as<BlockImpl>();
      b->qkv->weight.normal_(0, std0);
      b->fc1->weight.normal_(0, std0);
      b->out->weight.normal_(0, std_out);
      b->fc2->weight.normal_(0, std_out);
      for (auto* l : {&b->qkv, &b->out, &b->fc1, &b->fc2}) (*l)->bias.zero_();
    }
    mask = register_buffer(
        "mask",
        torch::full({c.seq_len, c.seq_len}, -std::numeric_limits<double>::infinity()).triu(1));
  }

  // Mean cross-entropy of the next-token predictions.
  torch::Tensor forward(const torch::Tensor& input, const torch::Tensor& labels) {
    const std::int64_t S = input.size(1);
    torch::Tensor x = tok(input) + pos(torch::arange(S, torch::kInt64));
    const torch::Tensor m = mask.slice(0, 0, S).slice(1, 0, S);
    for (const auto& b : *blocks) x = b->as<BlockImpl>()->forward(x, m);
    torch::Tensor logits = torch::linear(lnf(x), tok->weight);  // tied head
    return torch::nn::functional::cross_entropy(logits.reshape({-1, logits.size(-1)}),
                                                labels.reshape({-1}));
  }

  torch::nn::Embedding tok, pos;
  torch::nn::ModuleList blocks;
  torch::nn::LayerNorm lnf;
  torch::Tensor mask;
};
TORCH_MODULE(Gpt);

// The runtime's schedule (RunSpec::learningRateAt): 2 warm-up iterations, cosine to lr / 10.
double learningRateAt(const Config& c, int iteration) {
  const int warmup = 2;
  const double min_lr = c.lr / 10;
  if (iteration < warmup) return c.lr * (iteration + 1) / static_cast<double>(warmup);
  const int decay = std::max(1, c.iterations - warmup);
  const double progress = std::min(1.0, (iteration - warmup) / static_cast<double>(decay));
  return min_lr + 0.5 * (c.lr - min_lr) * (1.0 + std::cos(std::numbers::pi * progress));
}

// Inputs (offset 0) or labels (offset 1) of microbatch u: samples it * G + u * b ... + b - 1,
// as Trainer::tokens indexes them for one pipeline.
torch::Tensor tokens(const sailor::TokenSource& data, const Config& c, int iteration,
                     std::int64_t microbatch, std::int64_t offset) {
  std::vector<std::int64_t> flat;
  flat.reserve(static_cast<std::size_t>(c.microbatch * c.seq_len));
  const std::int64_t base = iteration * c.global_batch + microbatch * c.microbatch;
  for (std::int64_t i = 0; i < c.microbatch; ++i) {
    const std::vector<std::int64_t> s = data.sample(base + i, static_cast<int>(c.seq_len));
    flat.insert(flat.end(), s.begin() + offset, s.begin() + offset + c.seq_len);
  }
  return torch::tensor(flat, torch::kInt64).view({c.microbatch, c.seq_len});
}

Config parse(int argc, char** argv) {
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--print-samples") {
      c.print_samples = true;
      continue;
    }
    if (i + 1 >= argc) throw std::runtime_error(k + " needs a value");
    const std::string v = argv[++i];
    if (k == "--layers") c.layers = std::stoll(v);
    else if (k == "--hidden") c.hidden = std::stoll(v);
    else if (k == "--heads") c.heads = std::stoll(v);
    else if (k == "--ffn") c.ffn = std::stoll(v);
    else if (k == "--vocab") c.vocab = std::stoll(v);
    else if (k == "--seq-len") c.seq_len = std::stoll(v);
    else if (k == "--global-batch") c.global_batch = std::stoll(v);
    else if (k == "--microbatch") c.microbatch = std::stoll(v);
    else if (k == "--iterations") c.iterations = std::stoi(v);
    else if (k == "--lr") c.lr = std::stod(v);
    else if (k == "--seed") c.seed = std::stoull(v);
    else throw std::runtime_error("unknown option " + k);
  }
  if (c.layers < 1 || c.heads < 1 || c.hidden % c.heads != 0 || c.microbatch < 1 ||
      c.global_batch % c.microbatch != 0 || c.iterations < 1 || c.seq_len < 1)
    throw std::runtime_error(
        "inconsistent configuration (hidden % heads, global-batch % microbatch)");
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Config c = parse(argc, argv);
    at::set_num_threads(1);
    at::set_num_interop_threads(1);
    torch::manual_seed(static_cast<std::uint64_t>(c.seed));
    const sailor::TokenSource data = sailor::TokenSource::synthetic(c.seed);
    if (c.print_samples) {
      for (std::int64_t i = 0; i < c.iterations * c.global_batch; ++i) {
        std::string line;
        for (std::int64_t t : data.sample(i, static_cast<int>(c.seq_len)))
          line += (line.empty() ? "" : " ") + std::to_string(t);
        std::printf("%s\n", line.c_str());
      }
      return 0;
    }
    Gpt model(c);
    torch::optim::AdamW optimizer(model->parameters(),
                                  torch::optim::AdamWOptions(c.lr).weight_decay(0.01));
    const std::int64_t m = c.global_batch / c.microbatch;
    for (int it = 0; it < c.iterations; ++it) {
      const auto t0 = std::chrono::steady_clock::now();
      for (auto& group : optimizer.param_groups())
        static_cast<torch::optim::AdamWOptions&>(group.options()).lr(learningRateAt(c, it));
      optimizer.zero_grad();
      double loss_sum = 0;
      for (std::int64_t u = 0; u < m; ++u) {
        torch::Tensor loss = model->forward(tokens(data, c, it, u, 0), tokens(data, c, it, u, 1));
        loss_sum += loss.item<double>();
        (loss / static_cast<double>(m)).backward();
      }
      torch::nn::utils::clip_grad_norm_(model->parameters(), 1.0);
      optimizer.step();
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("{\"iteration\": %d, \"loss\": %.6f, \"seconds\": %.6f}\n", it,
                  loss_sum / static_cast<double>(m), seconds);
      std::fflush(stdout);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "plain_loop: %s\n", e.what());
    return 1;
  }
}
