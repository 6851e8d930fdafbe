// A trainer's state in and out of checkpoints (trainer.hpp: snapshot, restore). Kept apart from
// trainer.cpp: the training loop does not change for checkpoints, it is only read and written
// between iterations.
//
// A shard is a dictionary of tensors (what torch.load in Python reads as a dict):
//   meta/iteration, meta/stage, meta/tp_rank, meta/tp   int64 scalars
//   param/<name>             this rank's shard of the parameter
//   shard_dim/<name>         int64 scalar, -1 for a tensor replicated in the tp group
//   index/<name>             int64 positions of the shard along shard_dim (sharded ones only)
//   adam.step/<name>, adam.exp_avg/<name>, adam.exp_avg_sq/<name>   AdamW's state
//   sgd.momentum/<name>      SGD's momentum buffer
// Optimizer state is elementwise, so it shards exactly as its parameter does.
#include <type_traits>

#include "trainer.hpp"

namespace sailor::runner {

namespace {

// The key of a parameter's state in torch's optimizers: the TensorImpl's address as text in
// libtorch 1.x, the address itself in 2.x.
template <typename Map>
typename Map::key_type stateKey(const Map&, const torch::Tensor& p) {
  if constexpr (std::is_same_v<typename Map::key_type, std::string>)
    return c10::guts::to_string(p.unsafeGetTensorImpl());
  else return p.unsafeGetTensorImpl();
}

torch::Tensor cpuCopy(const torch::Tensor& t) {
  const torch::Tensor d = t.detach();
  return d.device().is_cpu() ? d.clone() : d.to(torch::kCPU);
}

torch::Tensor scalar(std::int64_t v) {
  return torch::tensor(v, torch::kInt64);
}

torch::Tensor need(const c10::Dict<std::string, at::Tensor>& shard, const std::string& key) {
  const auto it = shard.find(key);
  if (it == shard.end())
    throw std::runtime_error("checkpoint shard lacks " + key +
                             " (written by another model or plan?)");
  return it->value();
}

}  // namespace

c10::Dict<std::string, at::Tensor> Trainer::snapshot(int iteration) const {
  c10::Dict<std::string, at::Tensor> out;
  out.insert("meta/iteration", scalar(iteration));
  out.insert("meta/stage", scalar(me_.stage));
  out.insert("meta/tp_rank", scalar(me_.tp_rank));
  out.insert("meta/tp", scalar(me_.tp));
  auto& state = optimizer_->state();
  for (const Param& p : model_->params()) {
    out.insert("param/" + p.name, cpuCopy(p.value));
    out.insert("shard_dim/" + p.name, scalar(p.shard_dim));
    if (p.shard_dim >= 0) out.insert("index/" + p.name, p.full_index.to(torch::kCPU).clone());
    const auto it = state.find(stateKey(state, p.value));
    if (it == state.end()) continue;  // no step taken yet
    if (const auto* adam = dynamic_cast<const torch::optim::AdamWParamState*>(it->second.get())) {
      out.insert("adam.step/" + p.name, scalar(adam->step()));
      out.insert("adam.exp_avg/" + p.name, cpuCopy(adam->exp_avg()));
      out.insert("adam.exp_avg_sq/" + p.name, cpuCopy(adam->exp_avg_sq()));
    } else if (const auto* sgd =
                   dynamic_cast<const torch::optim::SGDParamState*>(it->second.get())) {
      if (sgd->momentum_buffer().defined())
        out.insert("sgd.momentum/" + p.name, cpuCopy(sgd->momentum_buffer()));
    }
  }
  return out;
}

void Trainer::restore(const std::vector<c10::Dict<std::string, at::Tensor>>& shards) {
  if (shards.empty()) throw std::runtime_error("restore: no checkpoint shard");
  restoreFrom({shards});
}

void Trainer::restoreFrom(
    const std::vector<std::vector<c10::Dict<std::string, at::Tensor>>>& sets) {
  if (sets.empty() || sets.front().empty()) throw std::runtime_error("restore: no state given");
  // The replica set (its shards by tp rank) that holds parameter `name`.
  auto set_of =
      [&](const std::string& name) -> const std::vector<c10::Dict<std::string, at::Tensor>>& {
    for (const auto& set : sets)
      if (!set.empty() && set[0].contains("param/" + name)) return set;
    throw std::runtime_error("the state given lacks " + name +
                             " (written by another model or plan?)");
  };
  // This rank's piece of a tensor `kind/<name>` of a replica's shards: the same tp rank's tensor
  // when the tp degrees match, else the full tensor assembled from every tp rank's shard and
  // this rank's positions taken from it.
  auto mine = [&](const Param& p, const std::string& kind) -> torch::Tensor {
    const auto& shards = set_of(p.name);
    const std::string key = kind + "/" + p.name;
    if (static_cast<int>(shards.size()) == me_.tp)
      return need(shards[static_cast<std::size_t>(me_.tp_rank)], key);
    const std::int64_t dim = need(shards[0], "shard_dim/" + p.name).item<std::int64_t>();
    if (dim >= 0 && dim != p.shard_dim)
      throw std::runtime_error("checkpoint shard of " + p.name + " is split along another axis");
    if (dim < 0) return need(shards[0], key);
    const torch::Tensor first = need(shards[0], key);
    torch::Tensor full = torch::zeros(p.full_shape, first.options());
    for (const auto& shard : shards)
      full.index_copy_(dim, need(shard, "index/" + p.name), need(shard, key));
    return p.shard_dim < 0 ? full : full.index_select(dim, p.full_index.to(torch::kCPU));
  };
  torch::NoGradGuard no_grad;
  const bool adam = spec_.optimizer != Optimizer::Sgd;
  auto& state = optimizer_->state();
  for (Param& p : model_->params()) {
    const torch::Tensor value = mine(p, "param");
    if (value.sizes() != p.value.sizes())
      throw std::runtime_error("checkpoint shard of " + p.name + " has another shape");
    p.value.copy_(value);
    auto on_device = [&](const torch::Tensor& t) {
      return t.to(p.value.device(), p.value.scalar_type()).clone();
    };
    const auto& first = set_of(p.name)[0];
    if (adam && first.contains("adam.step/" + p.name)) {
      auto s = std::make_unique<torch::optim::AdamWParamState>();
      s->step(need(first, "adam.step/" + p.name).item<std::int64_t>());
      s->exp_avg(on_device(mine(p, "adam.exp_avg")));
      s->exp_avg_sq(on_device(mine(p, "adam.exp_avg_sq")));
      state[stateKey(state, p.value)] = std::move(s);
    } else if (!adam && first.contains("sgd.momentum/" + p.name)) {
      auto s = std::make_unique<torch::optim::SGDParamState>();
      s->momentum_buffer(on_device(mine(p, "sgd.momentum")));
      state[stateKey(state, p.value)] = std::move(s);
    }
  }
}

}  // namespace sailor::runner
