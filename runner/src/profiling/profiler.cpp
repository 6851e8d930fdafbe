// The measurements of `sailor profile` (profiler.hpp). In this file:
//   - NOTE [Counting the tensors' memory]: the memory meters (a counting CPU allocator, the CUDA
//     caching allocator's statistics);
//   - measureLayers: embedding, one block and head + loss of the runtime's StageModel, timed
//     forward and backward, with their kept activations, and the optimizer step;
//   - measureLinks: point-to-point and all-reduce over Gloo between two local ranks;
//   - measureDeviceRates and fitLatencyBandwidth.
#include "profiler.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include <c10/core/CPUAllocator.h>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#ifdef SAILOR_WITH_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef SAILOR_WITH_CUDA
#include <cuda_runtime_api.h>

#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <torch/cuda.h>
#endif

#include "sailor/core/json_util.hpp"
#include "training/comm.hpp"
#include "training/model.hpp"

using nlohmann::json;

namespace sailor::runner {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::int64_t statusField(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string k = key;
  while (std::getline(in, line))
    if (line.rfind(k, 0) == 0) return std::stoll(line.substr(k.size())) * 1024;  // kB
  return 0;
}

// NOTE [Counting the tensors' memory]
// What a layer keeps for backward is the bytes of tensors alive after its forward that were not
// alive before, less its output (the next layer's input, counted there). On CPU, glibc keeps
// freed blocks (the worker fixes its thresholds, docs/runtime.md), so the resident set cannot
// tell live tensors from retained ones: the profiler installs a CPU allocator that wraps
// libtorch's own and counts the bytes of every live allocation (c10::SetCPUAllocator, the hook
// libtorch provides for this). On CUDA the caching allocator keeps the same count itself
// (allocated_bytes, current and peak).
class MemoryMeter {
 public:
  virtual ~MemoryMeter() = default;
  virtual std::int64_t live() const = 0;
  virtual std::int64_t peak() const = 0;
  virtual void resetPeak() = 0;
};

class CountingCpuAllocator;
CountingCpuAllocator* counting_allocator = nullptr;  // the one installed (CpuMeter)

class CountingCpuAllocator final : public c10::Allocator {
 public:
  explicit CountingCpuAllocator(c10::Allocator* base) : base_(base) { counting_allocator = this; }
  // The returned DataPtr's context is its data pointer, with a plain deleter: libtorch's
  // raw_allocate (used by some kernels' scratch buffers) requires exactly that. The wrapped
  // allocation is kept in a table keyed by the pointer.
  c10::DataPtr allocate(std::size_t n) const override {
    c10::DataPtr inner = base_->allocate(n);
    void* data = inner.get();
    const auto bytes = static_cast<std::int64_t>(n);
    if (data) {
      std::lock_guard<std::mutex> lock(mutex_);
      blocks_.emplace(data, Block{std::move(inner), bytes});
    }
    const std::int64_t now = live_.fetch_add(bytes) + bytes;
    std::int64_t seen = peak_.load();
    while (now > seen && !peak_.compare_exchange_weak(seen, now)) {
    }
    return {data, data, &CountingCpuAllocator::release, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &CountingCpuAllocator::release; }
  std::int64_t live() const { return live_.load(); }
  std::int64_t peak() const { return peak_.load(); }
  void resetPeak() { peak_.store(live_.load()); }

 private:
  struct Block {
    c10::DataPtr inner;
    std::int64_t bytes;
  };
  static void release(void* p) {
    if (!p) return;
    c10::DataPtr inner;  // freed through libtorch's allocator when it goes out of scope
    {
      std::lock_guard<std::mutex> lock(counting_allocator->mutex_);
      auto it = counting_allocator->blocks_.find(p);
      if (it == counting_allocator->blocks_.end()) return;
      counting_allocator->live_.fetch_sub(it->second.bytes);
      inner = std::move(it->second.inner);
      counting_allocator->blocks_.erase(it);
    }
  }
  c10::Allocator* base_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<void*, Block> blocks_;
  mutable std::atomic<std::int64_t> live_{0};
  mutable std::atomic<std::int64_t> peak_{0};
};

class CpuMeter final : public MemoryMeter {
 public:
  CpuMeter() {
    // Never freed: tensors may outlive any owner (static ones at exit).
    allocator_ = new CountingCpuAllocator(c10::GetCPUAllocator());
    c10::SetCPUAllocator(allocator_, /*priority=*/100);
  }
  std::int64_t live() const override { return allocator_->live(); }
  std::int64_t peak() const override { return allocator_->peak(); }
  void resetPeak() override { allocator_->resetPeak(); }

 private:
  CountingCpuAllocator* allocator_ = nullptr;
};

#ifdef SAILOR_WITH_CUDA
class CudaMeter final : public MemoryMeter {
 public:
  std::int64_t live() const override {
    return c10::cuda::CUDACachingAllocator::getDeviceStats(0)
        .allocated_bytes[static_cast<std::size_t>(
            c10::cuda::CUDACachingAllocator::StatType::AGGREGATE)]
        .current;
  }
  std::int64_t peak() const override {
    return c10::cuda::CUDACachingAllocator::getDeviceStats(0)
        .allocated_bytes[static_cast<std::size_t>(
            c10::cuda::CUDACachingAllocator::StatType::AGGREGATE)]
        .peak;
  }
  void resetPeak() override { c10::cuda::CUDACachingAllocator::resetPeakStats(0); }
};
#endif

std::unique_ptr<MemoryMeter> makeMeter(const std::string& device) {
  if (device == "cuda") {
#ifdef SAILOR_WITH_CUDA
    return std::make_unique<CudaMeter>();
#else
    throw std::runtime_error("device cuda: this build has no CUDA");
#endif
  }
  return std::make_unique<CpuMeter>();
}

// NOTE [Fixed device memory]: on a CUDA device, what a rank holds on the GPU besides its
// tensors, read after the first product and its backward (NOTE [Fixed resident memory]) and
// before any model: the device memory in use (cudaMemGetInfo: total - free, what nvidia-smi
// reports for the process on an otherwise idle GPU) less the caching allocator's allocated bytes.
// It holds the CUDA context with the kernels loaded so far (used - reserved: with lazy module
// loading, CUDA_MODULE_LOADING=LAZY, the default from CUDA 11.7 with PyTorch 2, kernels load on
// first use, so a training step loads more), the cuBLAS workspace (PyTorch allocates it from the
// caching allocator: CUBLAS_WORKSPACE_CONFIG's default :4096:2:16:8, 2 x 4 MiB + 8 x 16 KiB =
// 8,519,680 B per handle and stream, PyTorch's CUDA semantics notes, read 2026-12-04) and the
// allocator's cached segments (reserved - allocated: its 2 MiB small-block and 20 MiB
// large-block segments). {} on a CPU device. Compiled here, never run: this machine has no GPU.
json fixedDeviceMemory(const torch::Device& device) {
#ifdef SAILOR_WITH_CUDA
  if (device.is_cuda()) {
    torch::cuda::synchronize();
    std::size_t free_bytes = 0, total_bytes = 0;
    C10_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(0);
    const auto agg = static_cast<std::size_t>(c10::cuda::CUDACachingAllocator::StatType::AGGREGATE);
    const auto used = static_cast<std::int64_t>(total_bytes - free_bytes);
    const std::int64_t reserved = stats.reserved_bytes[agg].current;
    const std::int64_t allocated = stats.allocated_bytes[agg].current;
    return {{"device_used_bytes", used},
            {"allocator_reserved_bytes", reserved},
            {"allocator_allocated_bytes", allocated},
            {"cuda_context_bytes", used - reserved},
            {"fixed_device_bytes", used - allocated}};
  }
#endif
  (void)device;
  return json::object();
}

void synchronize(const torch::Device& device) {
#ifdef SAILOR_WITH_CUDA
  if (device.is_cuda()) torch::cuda::synchronize();
#else
  (void)device;
#endif
}

GroupPtr glooGroup(const std::string& store_path, const std::string& name, int rank, int size) {
#ifdef SAILOR_WITH_GLOO
  // No worker count: no rank deletes the file; the parent removes its private directory.
  auto file = c10::make_intrusive<c10d::FileStore>(store_path, -1);
  auto store = c10::make_intrusive<c10d::PrefixStore>(name, file);
  auto options = c10d::ProcessGroupGloo::Options::create(std::chrono::seconds(60));
  // Loopback, with the runtime's two transport threads (comm.cpp, makeGlooGroup).
  options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  options->threads = 2;
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, options);
#else
  (void)store_path, (void)name, (void)rank, (void)size;
  throw std::runtime_error("profiling tp > 1 and links needs Gloo (not built in)");
#endif
}

void writeJson(const std::string& path, const json& j) {
  json_util::writeFileAtomically(path, j.dump(1) + "\n");
}

// One layer's figures at one microbatch size.
struct LayerSample {
  double forward_s = 0;
  double backward_s = 0;
  double params = 0;
  double activation_bytes = 0;  // whole microbatch
  double output_elements = 0;   // whole microbatch
  double backward_peak_bytes = 0;
};

double paramCount(StageModel& m) {
  double n = 0;
  for (const auto& p : m.params()) n += static_cast<double>(p.value.numel());
  return n;
}

void toDevice(StageModel& m, const torch::Device& device) {
  if (device.is_cpu()) return;
  for (auto& p : m.params()) p.value = p.value.detach().to(device).set_requires_grad(true);
  m.moveBuffersTo(device);
}

// What one measuring process needs while it times a unit (one microbatch size).
struct Probe {
  MemoryMeter& meter;
  torch::Device device;
  torch::Tensor tokens, labels;
  std::function<torch::Tensor()> hidden;  // a later stage's input, requiring grad
  int warmup = 2;
  int repeats = 5;
  int microbatch = 1;
  // The unit's highest count of tensor bytes: the meter's peak is reset around each backward,
  // so the highest of its readings is kept here.
  double peak_tensor = 0;
  // Tensor-parallel ranks start each timed pass together (NOTE [Timed passes start together]).
  std::function<void()> align;
  void notePeak() { peak_tensor = std::max(peak_tensor, static_cast<double>(meter.peak())); }
};

// A stage's forward and backward (medians), parameters, kept activations and output.
LayerSample timeStage(Probe& probe, StageModel& m, bool first, bool last) {
  std::vector<double> fwd, bwd;
  LayerSample s;
  s.params = paramCount(m);
  for (int i = 0; i < probe.warmup + probe.repeats; ++i) {
    torch::Tensor in = first ? probe.tokens : probe.hidden();
    synchronize(probe.device);
    if (probe.align) probe.align();  // its one-element tensor is gone before the readings
    const std::int64_t before = probe.meter.live();
    auto t0 = Clock::now();
    torch::Tensor out = m.forward(in, probe.labels);
    synchronize(probe.device);
    const double f = since(t0);
    probe.notePeak();
    const std::int64_t after = probe.meter.live();
    const double out_bytes = static_cast<double>(out.numel() * out.element_size());
    torch::Tensor grad = last ? torch::Tensor() : torch::randn_like(out);
    synchronize(probe.device);
    if (probe.align) probe.align();
    probe.meter.resetPeak();
    const std::int64_t before_backward = probe.meter.live();
    t0 = Clock::now();
    if (last) out.backward();
    else out.backward(grad);
    synchronize(probe.device);
    const double bw = since(t0);
    probe.notePeak();
    if (i < probe.warmup) continue;
    fwd.push_back(f), bwd.push_back(bw);
    // Gradients accumulate in the leaves from the first repetition on, as over a
    // pipeline's microbatches; what the forward adds is its graph and output.
    s.activation_bytes = std::max(0.0, static_cast<double>(after - before) - out_bytes);
    s.output_elements =
        last ? static_cast<double>(probe.microbatch) : static_cast<double>(out.numel());
    s.backward_peak_bytes = static_cast<double>(probe.meter.peak() - before_backward);
  }
  s.forward_s = median(fwd), s.backward_s = median(bwd);
  return s;
}

// The optimizer step as the trainer runs it: the global gradient norm (clipGradients), the
// scaling when above the clip, then AdamW (decoupled weight decay, betas 0.9/0.999). Median
// seconds, and the tensor bytes alive after the steps (the optimizer's state still held).
std::pair<double, std::int64_t> timeOptimizerStep(Probe& probe, std::vector<torch::Tensor>& values,
                                                  const RunSpec& spec) {
  torch::optim::AdamW optimizer(
      values, torch::optim::AdamWOptions(spec.learning_rate).weight_decay(spec.weight_decay));
  std::vector<double> step;
  for (int i = 0; i < probe.warmup + probe.repeats; ++i) {
    synchronize(probe.device);
    const auto t0 = Clock::now();
    double sq = 0;
    for (const auto& v : values)
      if (v.grad().defined()) sq += v.grad().pow(2).sum().item<double>();
    const double norm = std::sqrt(sq);
    if (spec.grad_clip > 0 && norm > spec.grad_clip) {
      torch::NoGradGuard no_grad;
      for (auto& v : values)
        if (v.grad().defined()) v.mutable_grad().mul_(spec.grad_clip / (norm + 1e-6));
    }
    optimizer.step();
    synchronize(probe.device);
    probe.notePeak();
    if (i >= probe.warmup) step.push_back(since(t0));
  }
  return {median(step), probe.meter.live()};
}

}  // namespace

std::int64_t residentBytes() {
  return statusField("VmRSS:");
}
std::int64_t peakResidentBytes() {
  return statusField("VmHWM:");
}

std::pair<double, double> fitLatencyBandwidth(const std::vector<double>& bytes,
                                              const std::vector<double>& seconds) {
  // Weighted least squares with weights 1 / t^2: the fit's relative error is what matters, and
  // sizes span several decades (an unweighted fit leaves the small messages' latency to noise).
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const double w = 1.0 / (seconds[i] * seconds[i]);
    sw += w, sx += w * bytes[i], sy += w * seconds[i];
    sxx += w * bytes[i] * bytes[i], sxy += w * bytes[i] * seconds[i];
  }
  const double det = sw * sxx - sx * sx;
  double slope = det != 0 ? (sw * sxy - sx * sy) / det : 0;
  double intercept = det != 0 ? (sy - slope * sx) / sw : 0;
  // A negative intercept is noise; so is a slope that is not positive (times that did not grow
  // with the size: on a loaded machine the small messages can take as long as the large ones).
  // Either way the fit goes through the origin, whose slope is positive for positive figures:
  // every second is then counted as transfer, a lower bound on the bandwidth, where a bandwidth
  // of 0 would be refused by the catalogue and fail the profile.
  if (intercept < 0 || !(slope > 0)) {
    intercept = 0;
    slope = sxx > 0 ? sxy / sxx : 0;
  }
  return {intercept, slope > 0 ? 1.0 / slope : 0.0};
}

void measureLayers(const MeasureTask& task) {
  auto meter = makeMeter(task.device);
  const RunSpec& spec = task.spec;
  const int tp = spec.plan.stages.at(0).replicas.at(0).tp;
  torch::Device device = task.device == "cuda" ? torch::Device(torch::kCUDA, 0) : torch::kCPU;
  GroupPtr group;
  if (tp > 1) {
    group = glooGroup(task.store_path, "tp", task.tp_rank, tp);
    setTensorParallelGroup(group);
  }
  const torch::Dtype dtype = spec.dtype == "float64" ? torch::kFloat64 : torch::kFloat32;
  const RuntimeModel& model = spec.model;
  auto place = [&](int stage) {
    return spec.ranks.at(static_cast<std::size_t>(stage * tp + task.tp_rank));
  };
  const int last_stage = static_cast<int>(spec.plan.stages.size()) - 1;
  const int warmup = 2;
  // NOTE [Fixed resident memory]
  // What a rank holds besides its tensors: libtorch's code and data, the BLAS and autograd
  // engine's buffers (set up by their first use: a small product and its backward here), the
  // Gloo group's threads and buffers. Read as the resident set once those exist and before any
  // model is built. (The peak resident set less the peak tensor bytes would also count the heap
  // that glibc keeps after the float64 copies each parameter is built from, which later tensors
  // reuse: it overlaps the tensors' own peak and is not a term of its own.)
  {
    torch::Tensor a = torch::randn({64, 64}).to(device).set_requires_grad(true);
    torch::matmul(a, a).sum().backward();
  }
  const std::int64_t fixed_resident = residentBytes();
  const json fixed_device = fixedDeviceMemory(device);

  for (int b : task.microbatches) {
    const auto unit_start = Clock::now();
    Probe probe{*meter, device, {}, {}, {}, warmup, task.repeats, b, 0, {}};
    // NOTE [Timed passes start together]: a tensor-parallel pass waits at its first all-reduce
    // for the rank that started last, so a rank's clock, started on its own, also counted how
    // far behind its peer began (the random inputs and gradients, the memory readings between
    // passes). The trainer's ranks run back to back in step. A one-element all-reduce before
    // each timed pass starts them together.
    if (group)
      probe.align = [&group, &device] {
        std::vector<at::Tensor> one{torch::zeros({1}, torch::TensorOptions().device(device))};
        group->allreduce(one)->wait();
        synchronize(device);
      };
    meter->resetPeak();
    const std::int64_t live0 = meter->live();
    StageModel emb(spec, place(0), dtype), blk(spec, place(1), dtype),
        head(spec, place(last_stage), dtype);
    toDevice(emb, device), toDevice(blk, device), toDevice(head, device);
    probe.tokens =
        torch::randint(0, model.vocab_size, {b, model.sequence_length}, torch::kInt64).to(device);
    probe.labels =
        torch::randint(0, model.vocab_size, {b, model.sequence_length}, torch::kInt64).to(device);
    // The hidden states a later stage receives: they require grad, as the trainer's do.
    probe.hidden = [&] {
      return (torch::randn({b, model.sequence_length, model.hidden_size}, torch::kFloat64) * 0.5)
          .to(device, blk.activationDtype())
          .set_requires_grad(true);
    };
    const LayerSample e = timeStage(probe, emb, true, false);
    // NOTE [Blocks timed together]
    // Stage 1 holds every block, as a stage of the runtime does: its forward and backward are
    // timed whole and divided by the blocks. One block timed alone ran from the CPU's caches
    // (its weights stay there between repetitions): the one-process plan was predicted 32%
    // fast against a run of its 24 blocks, whose weights (75 MiB) stream from memory
    // (docs/benchmarks.md, "Prediction against measurement on the local CPU").
    LayerSample k = timeStage(probe, blk, false, false);
    const double blocks = model.layers;
    k.forward_s /= blocks, k.backward_s /= blocks, k.params /= blocks;
    k.activation_bytes /= blocks, k.backward_peak_bytes /= blocks;
    const LayerSample h = timeStage(probe, head, false, true);

    std::vector<torch::Tensor> values;
    for (StageModel* m : {&emb, &blk, &head})
      for (auto& p : m->params()) values.push_back(p.value);
    const auto [step_s, live_with_state] = timeOptimizerStep(probe, values, spec);
    double local_params = 0;
    for (const auto& v : values) local_params += static_cast<double>(v.numel());
    // Parameters, their gradients and the optimizer's state, per parameter (the tensors alive
    // after the optimizer's steps, less the tokens and labels).
    const double model_state_bytes_per_param =
        static_cast<double>(live_with_state - live0 -
                            static_cast<std::int64_t>(probe.tokens.numel() * 2 * 8)) /
        local_params;
    auto layer_json = [&](const LayerSample& s) {
      return json{{"forward_s", s.forward_s},
                  {"backward_s", s.backward_s},
                  {"params", s.params},
                  {"activation_bytes", s.activation_bytes / b},
                  {"output_elements", s.output_elements / b},
                  {"backward_peak_bytes", s.backward_peak_bytes / b}};
    };
    json unit{{"tp", tp},
              {"microbatch_size", b},
              {"embedding", layer_json(e)},
              {"block", layer_json(k)},
              {"head", layer_json(h)},
              {"optimizer_seconds_per_parameter", step_s / local_params},
              {"model_state_bytes_per_parameter", model_state_bytes_per_param},
              {"resident_bytes", residentBytes()},
              {"fixed_resident_bytes", fixed_resident},
              {"fixed_device", fixed_device},
              {"peak_resident_bytes", peakResidentBytes()},
              {"live_tensor_bytes", meter->live()},
              {"peak_tensor_bytes", probe.peak_tensor},
              {"seconds", since(unit_start)}};
    if (task.tp_rank == 0) {
      writeJson(
          task.partial_dir + "/tp" + std::to_string(tp) + "-mbs" + std::to_string(b) + ".json",
          unit);
      std::cerr << "sailor profile: tp " << tp << " microbatch " << b << ": block forward "
                << k.forward_s * 1e3 << " ms, backward " << k.backward_s * 1e3 << " ms ("
                << since(unit_start) << " s)\n";
    }
    if (group) {  // the next size starts together on every rank
      std::vector<at::Tensor> one{torch::zeros({1})};
      group->allreduce(one)->wait();
    }
  }
}

void measureLinks(int rank, const std::string& store_path, const std::string& partial_dir,
                  const std::vector<double>& sizes_bytes, int repeats) {
  GroupPtr group = glooGroup(store_path, "links", rank, 2);
  json p2p = json::array(), allreduce = json::array();
  for (double size : sizes_bytes) {
    const auto n = static_cast<std::int64_t>(size / 4);
    std::vector<at::Tensor> t{torch::ones({n})};
    std::vector<double> pp, ar;
    for (int i = 0; i < repeats + 1; ++i) {
      // Ping-pong: one round trip is two one-way transfers.
      const auto t0 = Clock::now();
      if (rank == 0) {
        group->send(t, 1, i)->wait();
        group->recv(t, 1, i)->wait();
      } else {
        group->recv(t, 0, i)->wait();
        group->send(t, 0, i)->wait();
      }
      const double rt = since(t0);
      const auto t1 = Clock::now();
      group->allreduce(t)->wait();
      const double a = since(t1);
      if (i > 0) pp.push_back(rt / 2), ar.push_back(a);
    }
    p2p.push_back({{"bytes", size}, {"seconds", median(pp)}});
    allreduce.push_back({{"bytes", size}, {"seconds", median(ar)}});
    if (rank == 0)
      std::cerr << "sailor profile: links: " << size << " bytes: point-to-point "
                << median(pp) * 1e3 << " ms, all-reduce " << median(ar) * 1e3 << " ms\n";
  }
  if (rank == 0) writeJson(partial_dir + "/links.json", {{"p2p", p2p}, {"allreduce", allreduce}});
}

json measureDeviceRates(const std::string& device) {
  torch::Device dev = device == "cuda" ? torch::Device(torch::kCUDA, 0) : torch::kCPU;
  const std::int64_t n = device == "cuda" ? 4096 : 512;
  torch::Tensor a = torch::randn({n, n}).to(dev), b = torch::randn({n, n}).to(dev);
  std::vector<double> mm;
  for (int i = 0; i < 6; ++i) {
    synchronize(dev);
    const auto t0 = Clock::now();
    torch::Tensor c = torch::matmul(a, b);
    synchronize(dev);
    if (i > 0) mm.push_back(since(t0));
  }
  const std::int64_t elems = 16 << 20;  // 64 MiB of float32
  torch::Tensor src = torch::ones({elems}).to(dev), dst = torch::empty({elems}).to(dev);
  std::vector<double> cp;
  for (int i = 0; i < 6; ++i) {
    synchronize(dev);
    const auto t0 = Clock::now();
    dst.copy_(src);
    synchronize(dev);
    if (i > 0) cp.push_back(since(t0));
  }
  return {{"matmul_flop_per_s", 2.0 * static_cast<double>(n * n * n) / median(mm)},
          {"copy_bytes_per_s", 2.0 * 4.0 * static_cast<double>(elems) / median(cp)}};
}

}  // namespace sailor::runner
