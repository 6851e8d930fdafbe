#include "sailor/profile.hpp"

#include <algorithm>
#include <cmath>

#include "sailor/error.hpp"
#include "sailor/json_util.hpp"

namespace sailor {

using nlohmann::json;
namespace ju = json_util;

namespace {
std::string keyText(const ProfileKey& k) {
  return k.model + " on " + k.gpu_type + ", microbatch " + std::to_string(k.microbatch_size) +
         ", tp " + std::to_string(k.tp);
}
}  // namespace

void ProfileSet::add(std::shared_ptr<const ProfileSource> source) {
  sources_.push_back(std::move(source));
}

Sourced<std::vector<LayerTiming>> ProfileSet::timings(const ProfileKey& key, const Job& job) const {
  for (const auto& s : sources_)
    if (auto t = s->timings(key, job)) return {std::move(*t), s->name()};
  throw InputError("profiles", "no timings for " + keyText(key),
                   "a profile source covering it (add --profiles or the analytic source)");
}

Sourced<double> ProfileSet::optimizerSecondsPerParameter(const ProfileKey& key, const Job& job) const {
  for (const auto& s : sources_)
    if (auto t = s->optimizerSecondsPerParameter(key, job)) return {*t, s->name()};
  throw InputError("profiles", "no optimizer step for " + keyText(key), "a profile source covering it");
}

Sourced<std::vector<LayerMemory>> ProfileSet::memory(const std::string& model, int tp,
                                                     const Job& job) const {
  for (const auto& s : sources_)
    if (auto m = s->memory(model, tp, job)) return {std::move(*m), s->name()};
  throw InputError("profiles", "no memory figures for " + model + " at tp " + std::to_string(tp),
                   "a profile source covering it");
}

// ---------------------------------------------------------------- NativeProfile

std::shared_ptr<NativeProfile> NativeProfile::fromJson(const json& j, const Catalog& catalog,
                                                       const std::string& name) {
  ju::rejectUnknownKeys(j, {"format", "model", "gpu_type", "precision", "measured_by", "runs"}, "");
  const std::string format = ju::getString(j, "format", "");
  if (format != "sailor-studio-profile/1")
    throw InputError("format", "\"" + format + "\"", "\"sailor-studio-profile/1\"");
  auto p = std::make_shared<NativeProfile>();
  p->name_ = name;
  const ModelSpec& m = catalog.model(ju::getString(j, "model", ""), "model");
  p->model = m.name;
  p->gpu_type = catalog.gpu(ju::getString(j, "gpu_type", ""), "gpu_type").name;
  const std::string prec = ju::getStringOr(j, "precision", "", "fp32");
  if (prec == "fp32") p->precision = Precision::Fp32;
  else if (prec == "bf16") p->precision = Precision::Bf16;
  else if (prec == "fp16") p->precision = Precision::Fp16;
  else throw InputError("precision", "\"" + prec + "\"", "\"fp32\", \"bf16\" or \"fp16\"");
  const json& runs = ju::require(j, "runs", "");
  ju::requireArray(runs, "runs");
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string path = "runs[" + std::to_string(i) + "]";
    const json& r = runs[i];
    ju::rejectUnknownKeys(r, {"microbatch_size", "tp", "optimizer_seconds_per_parameter", "layers"}, path);
    Run run;
    run.microbatch_size = ju::getInt32(r, "microbatch_size", path, 1);
    run.tp = ju::getInt32(r, "tp", path, 1);
    run.optimizer_seconds_per_parameter = ju::getNonNegative(r, "optimizer_seconds_per_parameter", path);
    const json& layers = ju::require(r, "layers", path);
    ju::requireArray(layers, path + ".layers");
    if (static_cast<int>(layers.size()) != m.numPlanLayers())
      throw InputError(path + ".layers", std::to_string(layers.size()) + " layers",
                       std::to_string(m.numPlanLayers()) + " (embedding, blocks, head of " + m.name + ")");
    bool has_memory = true;
    for (size_t l = 0; l < layers.size(); ++l) {
      const std::string lp = path + ".layers[" + std::to_string(l) + "]";
      ju::rejectUnknownKeys(layers[l], {"forward_s", "backward_s", "params", "activation_bytes", "output_elements"}, lp);
      run.timings.push_back({ju::getNonNegative(layers[l], "forward_s", lp),
                             ju::getNonNegative(layers[l], "backward_s", lp)});
      if (layers[l].contains("params") && layers[l].contains("activation_bytes") &&
          layers[l].contains("output_elements")) {
        run.memory.push_back({ju::getNonNegative(layers[l], "params", lp),
                              ju::getNonNegative(layers[l], "activation_bytes", lp),
                              ju::getNonNegative(layers[l], "output_elements", lp)});
      } else {
        has_memory = false;
      }
    }
    if (!has_memory) run.memory.clear();
    for (const auto& other : p->runs)
      if (other.microbatch_size == run.microbatch_size && other.tp == run.tp)
        throw InputError(path, "microbatch " + std::to_string(run.microbatch_size) + ", tp " +
                                   std::to_string(run.tp) + " twice",
                         "one run per (microbatch size, tp)");
    p->runs.push_back(std::move(run));
  }
  return p;
}

std::shared_ptr<NativeProfile> NativeProfile::load(const std::string& path, const Catalog& catalog) {
  json j = ju::readFile(path);
  try {
    return fromJson(j, catalog, path);
  } catch (const InputError& e) {
    throw withContext(e, path);
  }
}

json NativeProfile::toJson() const {
  json runs_j = json::array();
  for (const auto& r : runs) {
    json layers = json::array();
    for (size_t i = 0; i < r.timings.size(); ++i) {
      json l{{"forward_s", r.timings[i].forward_s}, {"backward_s", r.timings[i].backward_s}};
      if (i < r.memory.size()) {
        l["params"] = r.memory[i].params;
        l["activation_bytes"] = r.memory[i].activation_bytes;
        l["output_elements"] = r.memory[i].output_elements;
      }
      layers.push_back(l);
    }
    runs_j.push_back({{"microbatch_size", r.microbatch_size},
                      {"tp", r.tp},
                      {"optimizer_seconds_per_parameter", r.optimizer_seconds_per_parameter},
                      {"layers", layers}});
  }
  return json{{"format", "sailor-studio-profile/1"},
              {"model", model},
              {"gpu_type", gpu_type},
              {"precision", precisionName(precision)},
              {"runs", runs_j}};
}

std::optional<std::vector<LayerTiming>> NativeProfile::timings(const ProfileKey& key,
                                                               const Job& job) const {
  if (key.model != model || key.gpu_type != gpu_type || job.precision != precision) return std::nullopt;
  for (const auto& r : runs)
    if (r.microbatch_size == key.microbatch_size && r.tp == key.tp) return r.timings;
  return std::nullopt;
}

std::optional<double> NativeProfile::optimizerSecondsPerParameter(const ProfileKey& key,
                                                                  const Job& job) const {
  if (key.model != model || key.gpu_type != gpu_type || job.precision != precision) return std::nullopt;
  for (const auto& r : runs)
    if (r.tp == key.tp) return r.optimizer_seconds_per_parameter;
  return std::nullopt;
}

std::optional<std::vector<LayerMemory>> NativeProfile::memory(const std::string& m, int tp,
                                                              const Job& job) const {
  if (m != model || job.precision != precision) return std::nullopt;
  for (const auto& r : runs)
    if (r.tp == tp && !r.memory.empty()) return r.memory;
  return std::nullopt;
}

// ---------------------------------------------------------------- SailorProfile

namespace {
int parseKeyInt(const std::string& s, const std::string& path) {
  try {
    size_t used = 0;
    int v = std::stoi(s, &used);
    if (used == s.size() && v >= 0) return v;
  } catch (...) {
  }
  throw InputError(path, "key \"" + s + "\"", "a non-negative integer key");
}

std::string catalogName(const std::string& sailor_name, const Catalog& catalog) {
  if (const ModelSpec* m = catalog.findModel(sailor_name)) return m->name;
  return sailor_name;
}
}  // namespace

std::shared_ptr<SailorProfile> SailorProfile::fromJson(const json& profiles, const json& llm_info,
                                                       const Catalog& catalog) {
  auto p = std::make_shared<SailorProfile>();
  ju::requireObject(profiles, "simulator_profiles");
  for (auto mi = profiles.begin(); mi != profiles.end(); ++mi) {
    const std::string model = catalogName(mi.key(), catalog);
    const std::string mpath = "simulator_profiles." + mi.key();
    ju::requireObject(mi.value(), mpath);
    for (auto gi = mi.value().begin(); gi != mi.value().end(); ++gi) {
      const std::string gpath = mpath + "." + gi.key();
      ju::requireObject(gi.value(), gpath);
      for (auto bi = gi.value().begin(); bi != gi.value().end(); ++bi) {
        const int mbs = parseKeyInt(bi.key(), gpath);
        ju::requireObject(bi.value(), gpath + "." + bi.key());
        for (auto ti = bi.value().begin(); ti != bi.value().end(); ++ti) {
          const std::string tpath = gpath + "." + bi.key() + "." + ti.key();
          const int tp = parseKeyInt(ti.key(), tpath);
          ju::requireObject(ti.value(), tpath);
          const size_t n = ti.value().size();
          Entry e;
          e.timings.resize(n);
          for (auto li = ti.value().begin(); li != ti.value().end(); ++li) {
            const int layer = parseKeyInt(li.key(), tpath);
            const json& v = li.value();
            if (layer >= static_cast<int>(n) || !v.is_array() || v.size() < 3 ||
                !v[0].is_number() || !v[1].is_number() || !v[2].is_number())
              throw InputError(tpath + "." + li.key(), ju::describe(v), "[fwd_s, bwd_s, update_s] for layers 0..n-1");
            e.timings[static_cast<size_t>(layer)] = {v[0].get<double>(), v[1].get<double>()};
            e.update_s = v[2].get<double>();
          }
          p->entries_[{model, gi.key(), mbs, tp}] = std::move(e);
        }
      }
    }
  }
  ju::requireObject(llm_info, "llm_info");
  for (auto mi = llm_info.begin(); mi != llm_info.end(); ++mi) {
    const std::string model = catalogName(mi.key(), catalog);
    for (auto ti = mi.value().begin(); ti != mi.value().end(); ++ti) {
      const std::string tpath = "llm_info." + mi.key() + "." + ti.key();
      const int tp = parseKeyInt(ti.key(), tpath);
      std::vector<LayerMemory> layers(ti.value().size());
      for (auto li = ti.value().begin(); li != ti.value().end(); ++li) {
        const int layer = parseKeyInt(li.key(), tpath);
        if (layer >= static_cast<int>(layers.size()))
          throw InputError(tpath, "layer " + li.key(), "layers numbered 0..n-1");
        const std::string lp = tpath + "." + li.key();
        // act_mem_floats are 4-byte units measured with fp32 activations at microbatch 1.
        layers[static_cast<size_t>(layer)] = {ju::getNonNegative(li.value(), "params_floats", lp),
                                              4.0 * ju::getNonNegative(li.value(), "act_mem_floats", lp),
                                              ju::getNonNegative(li.value(), "act_output_floats", lp)};
      }
      p->memory_[{model, tp}] = std::move(layers);
    }
  }
  return p;
}

std::shared_ptr<SailorProfile> SailorProfile::load(const std::string& profiles_path,
                                                   const std::string& llm_info_path,
                                                   const Catalog& catalog) {
  json prof = ju::readFile(profiles_path);
  json info = ju::readFile(llm_info_path);
  try {
    return fromJson(prof, info, catalog);
  } catch (const InputError& e) {
    throw withContext(e, profiles_path + " / " + llm_info_path);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(profiles_path + " / " + llm_info_path,
                     std::string("data of an unexpected shape (") + e.what() + ")",
                     "SAILOR's profile formats (docs/formats.md)");
  }
}

std::vector<std::string> SailorProfile::gpuTypes() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : entries_)
    if (std::find(out.begin(), out.end(), k.gpu_type) == out.end()) out.push_back(k.gpu_type);
  return out;
}

std::optional<std::vector<LayerTiming>> SailorProfile::timings(const ProfileKey& key,
                                                               const Job& job) const {
  // SAILOR's published profiles are fp32 runs; they do not answer for mixed precision.
  if (job.precision != Precision::Fp32) return std::nullopt;
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second.timings;
}

std::optional<double> SailorProfile::optimizerSecondsPerParameter(const ProfileKey& key,
                                                                  const Job& job) const {
  if (job.precision != Precision::Fp32) return std::nullopt;
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  // update_s is the step of the profiled mini-model: embedding + 2 blocks + head.
  auto mem = memory(key.model, key.tp, job);
  if (!mem || mem->size() < 3) return std::nullopt;
  const double mini = mem->front().params + 2 * (*mem)[1].params + mem->back().params;
  if (mini <= 0) return std::nullopt;
  return it->second.update_s / mini;
}

std::optional<std::vector<LayerMemory>> SailorProfile::memory(const std::string& model, int tp,
                                                              const Job& job) const {
  auto it = memory_.find({model, tp});
  if (it == memory_.end()) return std::nullopt;
  std::vector<LayerMemory> out = it->second;
  if (job.precision != Precision::Fp32)
    for (auto& l : out) l.activation_bytes *= 0.5;  // 2-byte activations instead of 4
  return out;
}

// ---------------------------------------------------------------- AnalyticProfile

// NOTE [Analytic profile]
// For a layer on one GPU of a tp group, per microbatch of b sequences:
//   forward  = max(FLOPs / (peak * kMatmulEfficiency), bytes / (HBM bandwidth *
//              kMemoryEfficiency)) + kernels * kKernelLatencySeconds + tp all-reduces
//   backward = 2 * the compute part (weight and input gradients) + the same all-reduces.
// Peak: fp32 jobs use the non-tensor FP32 rate (PyTorch leaves TF32 matmuls off by default),
// bf16/fp16 jobs the tensor-core rate. A block does 2 all-reduces of b*s*h activation elements
// in forward and 2 in backward over the node's links (ring: 2 (t-1)/t of the bytes at the
// intra-node bandwidth); the embedding and head do one each.
// Calibration (docs/simulator.md): the efficiency factors are the median ratio of the
// roofline estimate to SAILOR's measured per-layer times for A100-40, V100-16, GH-96 and the
// RTX GPUs at microbatch >= 4, as printed by `sailor calibrate --reference DIR`.
std::optional<std::vector<LayerTiming>> AnalyticProfile::timings(const ProfileKey& key,
                                                                 const Job& job) const {
  const GpuType* g = catalog_.findGpu(key.gpu_type);
  const ModelSpec* m = catalog_.findModel(key.model);
  if (!g || !m) return std::nullopt;
  const int e = job.activationBytesPerElement();
  const auto layers = deriveLayers(*m, job.sequence_length, key.tp, e);
  double peak = g->fp32_tflops;
  if (job.precision == Precision::Bf16) peak = g->bf16_tflops.value_or(g->fp16_tflops);
  if (job.precision == Precision::Fp16) peak = g->fp16_tflops;
  const double flops_per_s = peak * 1e12 * kMatmulEfficiency;
  const double bytes_per_s = g->memory_bandwidth_gb_per_s * 1e9 * kMemoryEfficiency;
  const double b = key.microbatch_size;
  const double t = key.tp;
  const double ar_bytes = b * job.sequence_length * m->hidden_size * static_cast<double>(e);
  const double ar_s = key.tp > 1 ? 2.0 * (t - 1) / t * ar_bytes / (g->intra_node_bandwidth_gb_per_s * 1e9) + 10e-6 : 0.0;
  std::vector<LayerTiming> out;
  for (const auto& l : layers) {
    const double compute = std::max(b * l.forward_flops / flops_per_s, b * l.forward_bytes / bytes_per_s);
    const double kernels = (l.kind == LayerKind::Block ? kKernelsPerBlockForward : 4.0) * kKernelLatencySeconds;
    const double ars = (l.kind == LayerKind::Block ? 2.0 : 1.0) * ar_s;
    out.push_back({compute + kernels + ars, 2.0 * compute + 2.0 * kernels + ars});
  }
  return out;
}

std::optional<double> AnalyticProfile::optimizerSecondsPerParameter(const ProfileKey& key,
                                                                    const Job& job) const {
  const GpuType* g = catalog_.findGpu(key.gpu_type);
  if (!g) return std::nullopt;
  // A fused Adam step reads weights, gradients and both moments and writes weights and
  // moments: 7 fp32 accesses per parameter (SGD with momentum: 5), memory-bound.
  const double accesses = job.optimizer == Optimizer::Adam ? 7.0 : 5.0;
  return accesses * 4.0 / (g->memory_bandwidth_gb_per_s * 1e9 * kMemoryEfficiency);
}

std::optional<std::vector<LayerMemory>> AnalyticProfile::memory(const std::string& model, int tp,
                                                                const Job& job) const {
  const ModelSpec* m = catalog_.findModel(model);
  if (!m) return std::nullopt;
  std::vector<LayerMemory> out;
  for (const auto& l : deriveLayers(*m, job.sequence_length, tp, job.activationBytesPerElement()))
    out.push_back({l.params, l.activation_bytes, l.output_elements});
  return out;
}

}  // namespace sailor
