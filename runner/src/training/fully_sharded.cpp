// Fully sharded data parallelism (fully_sharded.hpp).
#include "fully_sharded.hpp"

#include <algorithm>
#include <stdexcept>

#include <torch/csrc/autograd/function_hook.h>

namespace sailor::runner {

namespace {

c10::StorageImpl& storageOf(const torch::Tensor& t) {
  return *t.storage().unsafeGetStorageImpl();
}

constexpr std::size_t kReductionsInFlight = 2;

}  // namespace

// Runs after the autograd engine has added a backward's gradient into the parameter's .grad.
struct FullySharded::PostAccumulate : torch::autograd::FunctionPostHook {
  PostAccumulate(FullySharded* of, std::size_t index) : owner(of), param(index) {}
  torch::autograd::variable_list operator()(
      const torch::autograd::variable_list& outputs,
      const torch::autograd::variable_list& /*inputs*/) override {
    owner->onAccumulated(param);
    return outputs;
  }
  FullySharded* owner;
  std::size_t param;
};

FullySharded::FullySharded(StageModel& model, ReplicaGradientSum& sum,
                           DistributedOptimizer& optimizer, int presummed)
    : model_(model), sum_(sum), optimizer_(optimizer) {
  std::vector<Param>& params = model_.params();
  unit_of_.assign(params.size(), 0);
  whole_.assign(params.size(), false);
  bytes_.assign(params.size(), 0);
  units_.resize(model_.units().size());
  summed_.assign(units_.size(), false);
  for (int c = 0; c < model_.chunkCount(); ++c) {
    const auto [first, end] = model_.chunkUnits(c);
    for (std::size_t u = first; u < end; ++u) units_[u].chunk = c;
  }
  for (std::size_t u = 0; u < units_.size(); ++u) {
    units_[u].bucket = sum_.bucketOfUnit(u);
    const auto [first, end] = model_.units()[u];
    for (std::size_t k = first; k < end; ++k) unit_of_[k] = u;
  }
  for (std::size_t k = 0; k < params.size(); ++k) {
    const torch::Tensor& v = params[k].value;
    whole_[k] = static_cast<int>(k) == presummed ||
                (model_.headIsEmbedding() && params[k].name == "embedding.token");
    bytes_[k] = storageOf(v).nbytes();
    if (v.storage_offset() != 0 || bytes_[k] != static_cast<std::size_t>(v.nbytes()))
      throw std::logic_error("fully sharded: parameter " + params[k].name +
                             " does not own its storage");
    if (!sum_.reducedPerBackward(k)) continue;
    std::shared_ptr<torch::autograd::Node> acc = torch::autograd::impl::grad_accumulator(v);
    acc->add_post_hook(std::make_unique<PostAccumulate>(this, k));
    accumulators_.push_back(std::move(acc));
  }
  releaseAll();
}

FullySharded::~FullySharded() {
  for (const auto& acc : accumulators_) {
    auto& hooks = acc->post_hooks();
    hooks.erase(std::remove_if(hooks.begin(), hooks.end(),
                               [this](const std::unique_ptr<torch::autograd::FunctionPostHook>& h) {
                                 const auto* mine = dynamic_cast<const PostAccumulate*>(h.get());
                                 return mine != nullptr && mine->owner == this;
                               }),
                hooks.end());
  }
}

void FullySharded::allocate(std::size_t unit) {
  const auto [first, end] = model_.units()[unit];
  for (std::size_t k = first; k < end; ++k) {
    c10::StorageImpl& s = storageOf(model_.params()[k].value);
    if (whole_[k] || s.nbytes() == bytes_[k]) continue;
    s.set_data_ptr_noswap(s.allocator()->allocate(bytes_[k]));
    s.set_nbytes(bytes_[k]);
  }
}

void FullySharded::release(std::size_t unit) {
  UnitState& st = units_[unit];
  if (st.held == Held::Gathering) (void)sum_.wait(st.gather);
  st.gather = {};
  const auto [first, end] = model_.units()[unit];
  for (std::size_t k = first; k < end; ++k) {
    if (whole_[k]) continue;
    const torch::Tensor& v = model_.params()[k].value;
    c10::StorageImpl& s = storageOf(v);
    s.set_data_ptr_noswap(at::DataPtr(nullptr, v.device()));
    s.set_nbytes(0);
  }
  st.held = Held::Released;
}

void FullySharded::startGather(std::size_t unit) {
  UnitState& st = units_[unit];
  if (st.held != Held::Released) return;
  st.gather = sum_.startAllGather(st.bucket, optimizer_.shareWeights(st.bucket));
  st.held = Held::Gathering;
}

// The gathered values are written into the parameters' storage directly (a tensor over the same
// memory): the parameters' version counters stay as the autograd graph saved them.
void FullySharded::waitGather(std::size_t unit) {
  UnitState& st = units_[unit];
  if (st.held == Held::Ready) return;
  startGather(unit);
  const torch::Tensor flat = sum_.wait(st.gather);
  st.gather = {};
  allocate(unit);
  torch::NoGradGuard no_grad;
  for (const std::size_t k : sum_.bucketParams(st.bucket)) {
    const torch::Tensor& v = model_.params()[k].value;
    torch::from_blob(v.data_ptr(), v.sizes(), v.strides(), v.options().requires_grad(false))
        .copy_(sum_.readParam(flat, k));
  }
  st.held = Held::Ready;
}

void FullySharded::prefetch(std::size_t unit, bool forward) {
  const auto [first, end] = model_.chunkUnits(units_[unit].chunk);
  if (forward && unit + 1 < end) startGather(unit + 1);
  if (!forward && unit > first) startGather(unit - 1);
}

void FullySharded::beforeForward(std::size_t unit) {
  waitGather(unit);
  prefetch(unit, true);
}

void FullySharded::afterForward(std::size_t unit, const torch::Tensor& output) {
  release(unit);
  if (!output.requires_grad()) return;
  // Reached when the backward has the gradient of the unit's output, before it goes through the
  // unit.
  output.register_hook([this, unit](const torch::Tensor&) {
    waitGather(unit);
    prefetch(unit, false);
  });
}

void FullySharded::beginIteration() {
  std::fill(summed_.begin(), summed_.end(), false);
}

void FullySharded::beginBackward(int chunk) {
  const auto [first, end] = model_.chunkUnits(chunk);
  order_.clear();
  for (std::size_t u = end; u-- > first;) order_.push_back(u);
  started_ = 0;
  in_backward_ = true;
}

void FullySharded::onAccumulated(std::size_t param) {
  if (!in_backward_) throw std::logic_error("fully sharded: a gradient outside a backward");
  UnitState& st = units_[unit_of_[param]];
  if (!st.grad_flat.defined()) st.grad_flat = sum_.bucketBuffer(st.bucket, true);
  torch::Tensor& grad = model_.params()[param].value.mutable_grad();
  if (grad.defined()) {
    torch::NoGradGuard no_grad;
    sum_.writeParam(st.grad_flat, param, grad);
    grad = torch::Tensor();
  }
  if (++st.grads == sum_.bucketParams(st.bucket).size()) st.complete = true;
  startReductionsInOrder();
}

void FullySharded::startReductionsInOrder() {
  while (started_ < order_.size() && units_[order_[started_]].complete) {
    const std::size_t u = order_[started_++];
    UnitState& st = units_[u];
    if (!st.grad_flat.defined()) st.grad_flat = sum_.bucketBuffer(st.bucket, true);
    reducing_.emplace_back(u, sum_.startReduceScatter(st.bucket, std::move(st.grad_flat)));
    st.grad_flat = torch::Tensor();
    st.grads = 0;
    st.complete = false;
    release(u);  // every gradient is in: the backward needs the unit's values no more
    while (reducing_.size() > kReductionsInFlight) settleOldest();
  }
}

void FullySharded::settleOldest() {
  auto& [unit, collective] = reducing_.front();
  const torch::Tensor share = sum_.wait(collective);
  torch::Tensor& sum = sum_.shareGradient(units_[unit].bucket);
  if (summed_[unit]) sum.add_(share);
  else sum = share;
  summed_[unit] = true;
  reducing_.erase(reducing_.begin());
}

void FullySharded::endBackward() {
  for (std::size_t i = started_; i < order_.size(); ++i) units_[order_[i]].complete = true;
  startReductionsInOrder();
  for (const std::size_t u : order_)
    if (units_[u].held != Held::Released) release(u);
  in_backward_ = false;
}

void FullySharded::finishIteration() {
  while (!reducing_.empty()) settleOldest();
  for (std::size_t u = 0; u < units_.size(); ++u)
    if (!summed_[u])
      throw std::logic_error("fully sharded: unit " + std::to_string(u) + " had no backward");
}

void FullySharded::gatherAll() {
  for (std::size_t u = 0; u < units_.size(); ++u) waitGather(u);
}

void FullySharded::allocateAll() {
  for (std::size_t u = 0; u < units_.size(); ++u) {
    allocate(u);
    units_[u].held = Held::Ready;
  }
}

void FullySharded::releaseAll() {
  for (std::size_t u = 0; u < units_.size(); ++u) release(u);
}

bool FullySharded::gathered() const {
  return std::all_of(units_.begin(), units_.end(),
                     [](const UnitState& st) { return st.held == Held::Ready; });
}

}  // namespace sailor::runner
