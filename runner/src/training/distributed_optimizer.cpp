// The distributed optimizer (distributed_optimizer.hpp).
#include "distributed_optimizer.hpp"

namespace sailor::runner {

DistributedOptimizer::DistributedOptimizer(std::vector<Param>& params, ReplicaGradientSum& sum,
                                           const MakeOptimizer& make, bool fully_sharded)
    : params_(params), sum_(sum), separate_(sum.padded() || fully_sharded) {
  std::vector<torch::Tensor> all;
  if (separate_) {
    std::vector<torch::Tensor> shares =
        sum_.shares([&](std::size_t k) { return params_[k].value; });
    for (torch::Tensor& share : shares) {
      masters_.push_back({share});
      all.push_back(share);
    }
  } else {
    for (std::size_t b = 0; b < sum_.bucketCount(); ++b) {
      pieces_.push_back(sum_.piecesOf(b));
      masters_.emplace_back();
      for (const ReplicaGradientSum::Piece& piece : pieces_.back()) {
        // A view of the parameter's storage with no autograd history: the optimizer's updates
        // land in the parameter itself.
        torch::Tensor view = params_[piece.param].value.detach().view(-1).narrow(
            0, piece.param_offset, piece.elements);
        masters_.back().push_back(view);
        all.push_back(view);
      }
    }
  }
  optimizer_ = make(all);
}

OptimizerState readOptimizerState(torch::optim::Optimizer& optimizer, const torch::Tensor& tensor) {
  OptimizerState s;
  auto& state = optimizer.state();
  const auto it = state.find(optimizerStateKey(state, tensor));
  if (it == state.end()) return s;
  s.defined = true;
  if (const auto* adam = dynamic_cast<const torch::optim::AdamWParamState*>(it->second.get())) {
    s.step = adam->step();
    s.first = adam->exp_avg();
    s.second = adam->exp_avg_sq();
  } else if (const auto* sgd = dynamic_cast<const torch::optim::SGDParamState*>(it->second.get())) {
    s.first = sgd->momentum_buffer();
  }
  return s;
}

void writeOptimizerState(torch::optim::Optimizer& optimizer, const torch::Tensor& tensor,
                         const OptimizerState& s) {
  if (!s.defined) return;
  auto& state = optimizer.state();
  if (dynamic_cast<const torch::optim::AdamW*>(&optimizer)) {
    auto a = std::make_unique<torch::optim::AdamWParamState>();
    a->step(s.step);
    a->exp_avg(s.first);
    a->exp_avg_sq(s.second);
    state[optimizerStateKey(state, tensor)] = std::move(a);
  } else {
    auto m = std::make_unique<torch::optim::SGDParamState>();
    m->momentum_buffer(s.first);
    state[optimizerStateKey(state, tensor)] = std::move(m);
  }
}

torch::Tensor DistributedOptimizer::squaredGradientNorm() const {
  torch::Tensor sq = torch::zeros(
      {1}, torch::TensorOptions().dtype(torch::kFloat64).device(params_.front().value.device()));
  for (std::size_t b = 0; b < masters_.size(); ++b) {
    torch::Tensor& g = sum_.shareGradient(b);
    for (const auto& [begin, end] : sum_.normRanges()[b])
      sq += g.narrow(0, begin, end - begin).pow(2).sum().to(torch::kFloat64);
  }
  return sq;
}

void DistributedOptimizer::scaleGradients(double factor) {
  for (std::size_t b = 0; b < masters_.size(); ++b) sum_.shareGradient(b).mul_(factor);
}

torch::Tensor DistributedOptimizer::shareOf(
    std::size_t bucket, const std::function<torch::Tensor(const torch::Tensor&)>& of) const {
  if (separate_) return of(masters_[bucket][0]);
  torch::Tensor share = torch::zeros({sum_.shareElements(bucket)},
                                     params_.front().value.options().requires_grad(false));
  for (std::size_t i = 0; i < pieces_[bucket].size(); ++i) {
    const ReplicaGradientSum::Piece& piece = pieces_[bucket][i];
    share.narrow(0, piece.share_offset, piece.elements).copy_(of(masters_[bucket][i]));
  }
  return share;
}

void DistributedOptimizer::step() {
  for (std::size_t b = 0; b < masters_.size(); ++b) {
    torch::Tensor& g = sum_.shareGradient(b);
    if (separate_) {
      masters_[b][0].mutable_grad() = g;
      continue;
    }
    for (std::size_t i = 0; i < pieces_[b].size(); ++i)
      masters_[b][i].mutable_grad() =
          g.narrow(0, pieces_[b][i].share_offset, pieces_[b][i].elements);
  }
  optimizer_->step();
  std::vector<torch::Tensor> shares;
  for (std::size_t b = 0; b < masters_.size(); ++b)
    shares.push_back(sum_.reducedPerBackward(sum_.bucketParams(b).front())
                         ? torch::Tensor()  // a unit's: gathered where it is used
                         : shareOf(b, [](const torch::Tensor& m) { return m; }));
  torch::NoGradGuard no_grad;
  sum_.gather(shares,
              [&](std::size_t k, const torch::Tensor& value) { params_[k].value.copy_(value); });
  for (auto& bucket : masters_)  // the shares' gradients are the next iteration's to fill
    for (torch::Tensor& m : bucket) m.mutable_grad() = torch::Tensor();
}

std::vector<DistributedOptimizer::State> DistributedOptimizer::gatherState() {
  std::vector<State> out(params_.size());
  if (optimizer_->state().empty()) return out;  // no step taken yet
  const State first = readOptimizerState(*optimizer_, masters_.front().front());
  const bool two = first.second.defined();  // AdamW's two moments, SGD's one momentum
  for (int which = 0; which < (two ? 2 : 1); ++which) {
    std::vector<torch::Tensor> shares;
    for (std::size_t b = 0; b < masters_.size(); ++b)
      shares.push_back(shareOf(b, [&](const torch::Tensor& m) {
        const State s = readOptimizerState(*optimizer_, m);
        return which == 0 ? s.first : s.second;
      }));
    sum_.gather(shares, [&](std::size_t k, const torch::Tensor& t) {
      State& s = out[k];
      s.defined = true;
      s.step = first.step;
      (which == 0 ? s.first : s.second) = t.clone();
    });
  }
  return out;
}

void DistributedOptimizer::reloadSeparateWeights() {
  std::vector<torch::Tensor> shares = sum_.shares([&](std::size_t k) { return params_[k].value; });
  torch::NoGradGuard no_grad;
  for (std::size_t b = 0; b < masters_.size(); ++b) masters_[b][0].copy_(shares[b]);
}

void DistributedOptimizer::load(const std::vector<State>& by_param) {
  if (separate_) reloadSeparateWeights();
  optimizer_->state().clear();
  if (by_param.empty() || !by_param.front().defined) return;
  const bool two = by_param.front().second.defined();
  std::vector<std::vector<torch::Tensor>> moments;  // [which][bucket]
  for (int which = 0; which < (two ? 2 : 1); ++which)
    moments.push_back(sum_.shares([&](std::size_t k) {
      const State& s = by_param.at(k);
      if (!s.defined)
        throw std::runtime_error("the optimizer state given lacks " + params_[k].name);
      return which == 0 ? s.first : s.second;
    }));
  // A master tensor's part of a share.
  auto part = [&](std::size_t which, std::size_t b, std::size_t i) {
    const torch::Tensor& share = moments[which][b];
    if (separate_) return share.clone();
    return share.narrow(0, pieces_[b][i].share_offset, pieces_[b][i].elements).clone();
  };
  for (std::size_t b = 0; b < masters_.size(); ++b)
    for (std::size_t i = 0; i < masters_[b].size(); ++i) {
      State s;
      s.defined = true;
      s.step = by_param.front().step;
      s.first = part(0, b, i);
      if (two) s.second = part(1, b, i);
      writeOptimizerState(*optimizer_, masters_[b][i], s);
    }
}

}  // namespace sailor::runner
