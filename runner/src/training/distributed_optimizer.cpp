// The distributed optimizer (distributed_optimizer.hpp).
#include "distributed_optimizer.hpp"

namespace sailor::runner {

DistributedOptimizer::DistributedOptimizer(std::vector<Param>& params, ReplicaGradientSum& sum,
                                           const MakeOptimizer& make)
    : params_(params), sum_(sum), padded_(sum.padded()) {
  std::vector<torch::Tensor> all;
  if (padded_) {
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

bool DistributedOptimizer::adam() const {
  return dynamic_cast<const torch::optim::AdamW*>(optimizer_.get()) != nullptr;
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
  if (padded_) return of(masters_[bucket][0]);
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
    if (padded_) {
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
    shares.push_back(shareOf(b, [](const torch::Tensor& m) { return m; }));
  torch::NoGradGuard no_grad;
  sum_.gather(shares,
              [&](std::size_t k, const torch::Tensor& value) { params_[k].value.copy_(value); });
  for (auto& bucket : masters_)  // the shares' gradients are the next iteration's to fill
    for (torch::Tensor& m : bucket) m.mutable_grad() = torch::Tensor();
}

std::vector<DistributedOptimizer::State> DistributedOptimizer::gatherState() {
  std::vector<State> out(params_.size());
  auto& state = optimizer_->state();
  const auto* first = state.empty() ? nullptr : state.begin()->second.get();
  if (first == nullptr) return out;  // no step taken yet
  const bool is_adam = adam();
  std::int64_t step = 0;
  if (is_adam) step = dynamic_cast<const torch::optim::AdamWParamState&>(*first).step();
  // Moment `which` (0: exp_avg or the momentum, 1: exp_avg_sq) of one master tensor.
  auto moment = [&](int which) {
    return [&, which](const torch::Tensor& m) -> torch::Tensor {
      const auto& s = *state.at(optimizerStateKey(state, m));
      if (is_adam) {
        const auto& a = dynamic_cast<const torch::optim::AdamWParamState&>(s);
        return which == 0 ? a.exp_avg() : a.exp_avg_sq();
      }
      return dynamic_cast<const torch::optim::SGDParamState&>(s).momentum_buffer();
    };
  };
  for (int which = 0; which < (is_adam ? 2 : 1); ++which) {
    std::vector<torch::Tensor> shares;
    for (std::size_t b = 0; b < masters_.size(); ++b) shares.push_back(shareOf(b, moment(which)));
    sum_.gather(shares, [&](std::size_t k, const torch::Tensor& t) {
      State& s = out[k];
      s.defined = true;
      s.step = step;
      (which == 0 ? s.first : s.second) = t.clone();
    });
  }
  return out;
}

void DistributedOptimizer::reloadPaddedWeights() {
  std::vector<torch::Tensor> shares = sum_.shares([&](std::size_t k) { return params_[k].value; });
  torch::NoGradGuard no_grad;
  for (std::size_t b = 0; b < masters_.size(); ++b) masters_[b][0].copy_(shares[b]);
}

void DistributedOptimizer::load(const std::vector<State>& by_param) {
  if (padded_) reloadPaddedWeights();
  auto& state = optimizer_->state();
  state.clear();
  if (by_param.empty() || !by_param.front().defined) return;
  const bool is_adam = adam();
  std::vector<std::vector<torch::Tensor>> moments;  // [which][bucket]
  for (int which = 0; which < (is_adam ? 2 : 1); ++which)
    moments.push_back(sum_.shares([&](std::size_t k) {
      const State& s = by_param.at(k);
      if (!s.defined)
        throw std::runtime_error("the optimizer state given lacks " + params_[k].name);
      return which == 0 ? s.first : s.second;
    }));
  // A master tensor's part of a share.
  auto part = [&](int which, std::size_t b, std::size_t i) {
    const torch::Tensor& share = moments[static_cast<std::size_t>(which)][b];
    if (padded_) return share.clone();
    return share.narrow(0, pieces_[b][i].share_offset, pieces_[b][i].elements).clone();
  };
  for (std::size_t b = 0; b < masters_.size(); ++b)
    for (std::size_t i = 0; i < masters_[b].size(); ++i) {
      const torch::Tensor& m = masters_[b][i];
      if (is_adam) {
        auto s = std::make_unique<torch::optim::AdamWParamState>();
        s->step(by_param.front().step);
        s->exp_avg(part(0, b, i));
        s->exp_avg_sq(part(1, b, i));
        state[optimizerStateKey(state, m)] = std::move(s);
      } else {
        auto s = std::make_unique<torch::optim::SGDParamState>();
        s->momentum_buffer(part(0, b, i));
        state[optimizerStateKey(state, m)] = std::move(s);
      }
    }
}

}  // namespace sailor::runner
