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
// Optimizer state is elementwise, so it shards exactly as its parameter does. Under the
// distributed optimizer the state is gathered from the replicas' shares first, so a shard has the
// same form whatever the sharding, and restoring it on any number of replicas re-shares it.
#include "trainer.hpp"

namespace sailor::runner {

namespace {

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

void Trainer::gatherOptimizerState(bool keep) {
  if (!dist_) return;
  if (fsdp_) fsdp_->gatherAll();
  std::vector<DistributedOptimizer::State> all = dist_->gatherState();
  gathered_ = keep ? std::move(all) : std::vector<DistributedOptimizer::State>();
  if (fsdp_ && !keep) fsdp_->releaseAll();
}

c10::Dict<std::string, at::Tensor> Trainer::snapshot(int iteration) const {
  if (dist_ && (gathered_.size() != model_->params().size() || (fsdp_ && !fsdp_->gathered())))
    throw std::logic_error("snapshot under the distributed optimizer before gatherOptimizerState");
  c10::Dict<std::string, at::Tensor> out;
  out.insert("meta/iteration", scalar(iteration));
  out.insert("meta/stage", scalar(me_.stage));
  out.insert("meta/tp_rank", scalar(me_.tp_rank));
  out.insert("meta/tp", scalar(me_.tp));
  const bool adam = spec_.optimizer != Optimizer::Sgd;
  for (std::size_t k = 0; k < model_->params().size(); ++k) {
    const Param& p = model_->params()[k];
    out.insert("param/" + p.name, cpuCopy(p.value));
    out.insert("shard_dim/" + p.name, scalar(p.shard_dim));
    if (p.shard_dim >= 0) out.insert("index/" + p.name, p.full_index.to(torch::kCPU).clone());
    const DistributedOptimizer::State s =
        dist_ ? gathered_[k] : readOptimizerState(*optimizer_, p.value);
    if (!s.defined) continue;  // no step taken yet
    if (adam) {
      out.insert("adam.step/" + p.name, scalar(s.step));
      out.insert("adam.exp_avg/" + p.name, cpuCopy(s.first));
      out.insert("adam.exp_avg_sq/" + p.name, cpuCopy(s.second));
    } else if (s.first.defined()) {
      out.insert("sgd.momentum/" + p.name, cpuCopy(s.first));
    }
  }
  gathered_.clear();
  if (fsdp_) fsdp_->releaseAll();
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
  if (fsdp_) fsdp_->allocateAll();  // written below, then shared out by dist_->load
  const bool adam = spec_.optimizer != Optimizer::Sgd;
  std::vector<DistributedOptimizer::State> states;  // by parameter
  for (Param& p : model_->params()) {
    const torch::Tensor value = mine(p, "param");
    if (value.sizes() != p.value.sizes())
      throw std::runtime_error("checkpoint shard of " + p.name + " has another shape");
    p.value.copy_(value);
    auto on_device = [&](const torch::Tensor& t) {
      return t.to(p.value.device(), p.value.scalar_type()).clone();
    };
    const auto& first = set_of(p.name)[0];
    DistributedOptimizer::State& s = states.emplace_back();
    if (adam && first.contains("adam.step/" + p.name)) {
      s.defined = true;
      s.step = need(first, "adam.step/" + p.name).item<std::int64_t>();
      s.first = on_device(mine(p, "adam.exp_avg"));
      s.second = on_device(mine(p, "adam.exp_avg_sq"));
    } else if (!adam && first.contains("sgd.momentum/" + p.name)) {
      s.defined = true;
      s.first = on_device(mine(p, "sgd.momentum"));
    }
  }
  if (!dist_) {
    for (std::size_t k = 0; k < states.size(); ++k)
      writeOptimizerState(*optimizer_, model_->params()[k].value, states[k]);
    return;
  }
  dist_->load(states);
  if (fsdp_) fsdp_->releaseAll();
}

}  // namespace sailor::runner
