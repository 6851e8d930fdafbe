// Profiles: per (model, GPU type, microbatch size, tp, plan layer) forward and backward
// seconds, optimizer-step cost and memory figures, from three sources. Declared in
// sailor/model/profile.hpp.
//
// Map:
//   ProfileSet            asks its sources in order, names the one that answered; applies the
//                         job's activation recomputation (NOTE [Activation recomputation])
//   NativeProfile         this project's format: fromJson, load, toJson, lookups
//   SailorProfile         SAILOR's simulator_profiles.json + llm_info.json: fromJson, load,
//                         adoptCatalogConventions (NOTE [SAILOR layer conventions]), the
//                         sequence length it was profiled at, microbatch scaling, lookups
//   AnalyticProfile       roofline estimate from the catalogue (NOTE [Analytic profile])
#include "sailor/model/profile.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <future>

#include "core/fast_json.hpp"
#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"

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

// NOTE [Activation recomputation]
// Full recomputation as Megatron-LM does it (--recompute-granularity full --recompute-method
// uniform --recompute-num-layers 1; DeepSpeed's activation checkpointing per layer): each
// transformer block keeps only its input (s x h elements per sequence in the activation type,
// whole on every GPU of the tp group) from its forward to its backward; its backward first runs
// the block's forward again, tensor-parallel all-reduces included, and then the usual backward,
// with that one block's activations live meanwhile. The embedding and the head keep theirs.
// Selective recomputation (Megatron-LM's --recompute-granularity selective; Korthikanti et al.,
// MLSys'23, Section 4.2) keeps everything but the attention core's activations (the score
// matrices, the softmax output and the dropout mask: 5 a s^2 b bytes per layer in 16-bit) and
// runs the attention core's forward again in the backward: backward_s += attention_core_s,
// activation_bytes -= attention_core_bytes, as the source splits them (the analytic profile
// does; a measured profile without the split keeps its figures).
// So, per block and against the figures without recomputation (what every source gives):
//   backward_s      += forward_s
//   activation_bytes = s h x bytes per element  (the checkpointed input)
//   working_bytes    = the block's activation_bytes without recomputation
// The memory model's transient term (twice the largest layer's working set, replicaMemoryBytes
// in simulator_memory.cpp) then covers the recomputed block while its gradients are formed.
static bool isBlock(size_t l, size_t layers) {
  return l > 0 && l + 1 < layers;
}

Sourced<std::vector<LayerTiming>> ProfileSet::timings(const ProfileKey& key, const Job& job) const {
  for (const auto& s : sources_)
    if (auto t = s->timings(key, job)) {
      for (size_t l = 0; l < t->size(); ++l) {
        if (!isBlock(l, t->size())) continue;
        if (job.recompute == Recompute::Full) (*t)[l].backward_s += (*t)[l].forward_s;
        if (job.recompute == Recompute::Selective) (*t)[l].backward_s += (*t)[l].attention_core_s;
      }
      return {std::move(*t), s->name()};
    }
  throw InputError("profiles", "no timings for " + keyText(key),
                   "a profile source covering it (add --profiles or the analytic source)");
}

Sourced<double> ProfileSet::optimizerSecondsPerParameter(const ProfileKey& key,
                                                         const Job& job) const {
  for (const auto& s : sources_)
    if (auto t = s->optimizerSecondsPerParameter(key, job)) return {*t, s->name()};
  throw InputError("profiles", "no optimizer step for " + keyText(key),
                   "a profile source covering it");
}

Sourced<std::vector<LayerMemory>> ProfileSet::memory(const std::string& model, int tp,
                                                     const Job& job) const {
  for (const auto& s : sources_)
    if (auto m = s->memory(model, tp, job)) {
      for (size_t l = 0; l < m->size(); ++l) {
        LayerMemory& lm = (*m)[l];
        lm.working_bytes = lm.activation_bytes;
        // The checkpointed input, split over the tp ranks under sequence parallelism.
        const double input_split = job.sequence_parallel ? tp : 1;
        if (job.recompute == Recompute::Full && isBlock(l, m->size()))
          lm.activation_bytes =
              std::min(lm.activation_bytes,
                       (*m)[l - 1].output_elements * job.activationBytesPerElement() / input_split);
        if (job.recompute == Recompute::Selective && isBlock(l, m->size()))
          lm.activation_bytes -= std::min(lm.activation_bytes, lm.attention_core_bytes);
      }
      return {std::move(*m), s->name()};
    }
  throw InputError("profiles", "no memory figures for " + model + " at tp " + std::to_string(tp),
                   "a profile source covering it");
}

// ---------------------------------------------------------------- NativeProfile

std::shared_ptr<NativeProfile> NativeProfile::fromJson(const json& j, const Catalog& catalog,
                                                       const std::string& name) {
  ju::rejectUnknownKeys(
      j, {"format", "model", "gpu_type", "precision", "sequence_length", "measured_by", "runs"},
      "");
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
  if (j.contains("sequence_length")) p->sequence_length = ju::getInt32(j, "sequence_length", "", 1);
  const json& runs = ju::require(j, "runs", "");
  ju::requireArray(runs, "runs");
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string path = "runs[" + std::to_string(i) + "]";
    const json& r = runs[i];
    ju::rejectUnknownKeys(r, {"microbatch_size", "tp", "optimizer_seconds_per_parameter", "layers"},
                          path);
    Run run;
    run.microbatch_size = ju::getInt32(r, "microbatch_size", path, 1);
    run.tp = ju::getInt32(r, "tp", path, 1);
    // Bounds far above any real figure (the largest blocks have ~2e9 parameters and take
    // seconds per microbatch; an optimizer step is nanoseconds per parameter), so that only slips
    // such as 1e308 are refused, which would overflow the predictions.
    run.optimizer_seconds_per_parameter =
        ju::getInRange(r, "optimizer_seconds_per_parameter", path, kMaxOptimizerSecondsPerParameter,
                       "seconds per parameter from 0 to 0.001");
    const json& layers = ju::require(r, "layers", path);
    ju::requireArray(layers, path + ".layers");
    if (static_cast<int>(layers.size()) != m.numPlanLayers())
      throw InputError(
          path + ".layers", std::to_string(layers.size()) + " layers",
          std::to_string(m.numPlanLayers()) + " (embedding, blocks, head of " + m.name + ")");
    bool has_memory = true;
    for (size_t l = 0; l < layers.size(); ++l) {
      const std::string lp = path + ".layers[" + std::to_string(l) + "]";
      ju::rejectUnknownKeys(
          layers[l], {"forward_s", "backward_s", "params", "activation_bytes", "output_elements"},
          lp);
      run.timings.push_back(
          {ju::getInRange(layers[l], "forward_s", lp, kMaxLayerSeconds, "seconds from 0 to 3600"),
           ju::getInRange(layers[l], "backward_s", lp, kMaxLayerSeconds,
                          "seconds from 0 to 3600")});
      if (layers[l].contains("params") && layers[l].contains("activation_bytes") &&
          layers[l].contains("output_elements")) {
        run.memory.push_back(
            {ju::getInRange(layers[l], "params", lp, kMaxLayerElements, "a count from 0 to 1e12"),
             ju::getInRange(layers[l], "activation_bytes", lp, kMaxLayerActivationBytes,
                            "bytes from 0 to 1e13"),
             ju::getInRange(layers[l], "output_elements", lp, kMaxLayerElements,
                            "a count from 0 to 1e12")});
      } else {
        has_memory = false;
      }
    }
    if (!has_memory) run.memory.clear();
    // The format's head holds its output matrix (docs/formats.md); tied models share it.
    if (!run.memory.empty() && m.tied_embeddings)
      run.memory.back().shared_with_embedding =
          static_cast<double>(m.vocab_size) * m.hidden_size / run.tp;
    for (const auto& other : p->runs)
      if (other.microbatch_size == run.microbatch_size && other.tp == run.tp)
        throw InputError(path,
                         "microbatch " + std::to_string(run.microbatch_size) + ", tp " +
                             std::to_string(run.tp) + " twice",
                         "one run per (microbatch size, tp)");
    p->runs.push_back(std::move(run));
  }
  return p;
}

std::shared_ptr<NativeProfile> NativeProfile::load(const std::string& path,
                                                   const Catalog& catalog) {
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
  json out{{"format", "sailor-studio-profile/1"},
           {"model", model},
           {"gpu_type", gpu_type},
           {"precision", precisionName(precision)},
           {"runs", runs_j}};
  if (sequence_length) out["sequence_length"] = *sequence_length;
  return out;
}

std::optional<std::vector<LayerTiming>> NativeProfile::timings(const ProfileKey& key,
                                                               const Job& job) const {
  if (key.model != model || key.gpu_type != gpu_type || job.precision != precision)
    return std::nullopt;
  if (sequence_length && *sequence_length != job.sequence_length) return std::nullopt;
  for (const auto& r : runs)
    if (r.microbatch_size == key.microbatch_size && r.tp == key.tp) return r.timings;
  return std::nullopt;
}

std::optional<double> NativeProfile::optimizerSecondsPerParameter(const ProfileKey& key,
                                                                  const Job& job) const {
  if (key.model != model || key.gpu_type != gpu_type || job.precision != precision)
    return std::nullopt;
  for (const auto& r : runs)
    if (r.tp == key.tp) return r.optimizer_seconds_per_parameter;
  return std::nullopt;
}

std::optional<std::vector<LayerMemory>> NativeProfile::memory(const std::string& m, int tp,
                                                              const Job& job) const {
  if (m != model || job.precision != precision) return std::nullopt;
  if (sequence_length && *sequence_length != job.sequence_length) return std::nullopt;
  for (const auto& r : runs)
    if (r.tp == tp && !r.memory.empty()) return r.memory;
  return std::nullopt;
}

// ---------------------------------------------------------------- SailorProfile

namespace {
// A key of SAILOR's files as an integer >= min: layers from 0, microbatch sizes and tp from 1
// (figures are divided by them).
int parseKeyInt(const std::string& s, const std::string& path, int min = 0) {
  try {
    size_t used = 0;
    int v = std::stoi(s, &used);
    if (used == s.size() && v >= min) return v;
  } catch (...) {
  }
  throw InputError(path, "key \"" + s + "\"",
                   min == 0 ? "a non-negative integer key" : "an integer key >= 1");
}

// obj[key], one of SAILOR's figures, as a number from 0 to max, else InputError naming the
// field, the value and `expected`.
double sailorFigure(fast_json::Element obj, std::string_view key, const std::string& path,
                    double max, const std::string& expected) {
  fast_json::requireObject(obj, path);
  const std::string field = path + "." + std::string(key);
  fast_json::Element v;
  if (obj[key].get(v)) throw InputError(field, "nothing (field missing)", expected);
  double d = 0;
  if (!v.is_number() || v.get_double().get(d) || !(d >= 0 && d <= max))
    throw InputError(field, fast_json::describe(v), expected);
  return d;
}

// A layer key written twice in one object: simdjson keeps both (nlohmann kept the last), so
// the layer count would be one too many. Refused rather than guessed.
void onceEach(std::vector<char>& seen, int layer, const std::string& path, std::string_view key) {
  if (layer < 0 || layer >= static_cast<int>(seen.size())) return;  // the caller's range check
  if (seen[static_cast<size_t>(layer)])
    throw InputError(path, "layer key \"" + std::string(key) + "\" twice", "each layer once");
  seen[static_cast<size_t>(layer)] = 1;
}

// One layer's [fwd_s, bwd_s, update_s] of simulator_profiles.json: the first three values,
// numbers within kMaxLayerSeconds (`numbered`: the layer's key is within the layer count).
std::array<double, 3> layerSeconds(fast_json::Element value, bool numbered,
                                   const std::string& path) {
  const std::string expected = "[fwd_s, bwd_s, update_s] for layers 0..n-1";
  std::array<double, 3> v{};
  size_t got = 0;
  simdjson::dom::array a;
  if (numbered && !value.get_array().get(a))
    for (const fast_json::Element x : a) {
      if (got == 3 || !x.is_number()) break;
      v[got] = fast_json::number(x, path, expected);
      if (!(v[got] >= 0 && v[got] <= kMaxLayerSeconds))
        throw InputError(path + "[" + std::to_string(got) + "]", fast_json::describe(x),
                         "seconds from 0 to 3600 (fwd_s, bwd_s, update_s)");
      ++got;
    }
  if (got < 3) throw InputError(path, fast_json::describe(value), expected);
  return v;
}

std::string catalogName(const std::string& sailor_name, const Catalog& catalog) {
  if (const ModelSpec* m = catalog.findModel(sailor_name)) return m->name;
  return sailor_name;
}
}  // namespace

struct SailorProfile::Parsed {
  fast_json::Element profiles;  // simulator_profiles.json
  fast_json::Element llm_info;  // llm_info.json
};

std::shared_ptr<SailorProfile> SailorProfile::fromJson(const json& profiles, const json& llm_info,
                                                       const Catalog& catalog) {
  // One reader of the format: the values as text, through the file path's parser.
  const auto prof = fast_json::parseText(profiles.dump(), "simulator_profiles");
  const auto info = fast_json::parseText(llm_info.dump(), "llm_info");
  return fromParsed({prof->root, info->root}, catalog);
}

std::shared_ptr<SailorProfile> SailorProfile::fromParsed(const Parsed& files,
                                                         const Catalog& catalog) {
  namespace fj = fast_json;
  auto p = std::make_shared<SailorProfile>();
  const simdjson::dom::object profiles = fj::object(files.profiles, "simulator_profiles");
  for (const simdjson::dom::key_value_pair mi : profiles) {
    const std::string mkey(mi.key);
    const std::string model = catalogName(mkey, catalog);
    const std::string mpath = "simulator_profiles." + mkey;
    const simdjson::dom::object gpus = fj::object(mi.value, mpath);
    for (const simdjson::dom::key_value_pair gi : gpus) {
      const std::string gpu(gi.key);
      const std::string gpath = mpath + "." + gpu;
      const simdjson::dom::object sizes = fj::object(gi.value, gpath);
      for (const simdjson::dom::key_value_pair bi : sizes) {
        const std::string bkey(bi.key);
        const int mbs = parseKeyInt(bkey, gpath, 1);
        const simdjson::dom::object tps = fj::object(bi.value, gpath + "." + bkey);
        for (const simdjson::dom::key_value_pair ti : tps) {
          const std::string tkey(ti.key);
          const std::string tpath = gpath + "." + bkey + "." + tkey;
          const int tp = parseKeyInt(tkey, tpath, 1);
          const simdjson::dom::object layers = fj::object(ti.value, tpath);
          const size_t n = layers.size();
          Entry e;
          e.timings.resize(n);
          std::vector<char> seen(n, 0);
          for (const simdjson::dom::key_value_pair li : layers) {
            const std::string lpath = tpath + "." + std::string(li.key);
            const int layer = parseKeyInt(std::string(li.key), tpath);
            onceEach(seen, layer, tpath, li.key);
            const std::array<double, 3> v =
                layerSeconds(li.value, layer < static_cast<int>(n), lpath);
            e.timings[static_cast<size_t>(layer)] = {v[0], v[1]};
            e.update_s = v[2];
          }
          p->entries_[{model, gpu, mbs, tp}] = std::move(e);
        }
      }
    }
  }
  const simdjson::dom::object llm_info = fj::object(files.llm_info, "llm_info");
  for (const simdjson::dom::key_value_pair mi : llm_info) {
    const std::string mkey(mi.key);
    const std::string model = catalogName(mkey, catalog);
    const simdjson::dom::object tps = fj::object(mi.value, "llm_info." + mkey);
    for (const simdjson::dom::key_value_pair ti : tps) {
      const std::string tkey(ti.key);
      const std::string tpath = "llm_info." + mkey + "." + tkey;
      const int tp = parseKeyInt(tkey, tpath, 1);
      const simdjson::dom::object layers = fj::object(ti.value, tpath);
      std::vector<LayerMemory> mem(layers.size());
      std::vector<char> seen(mem.size(), 0);
      for (const simdjson::dom::key_value_pair li : layers) {
        const std::string lkey(li.key);
        const int layer = parseKeyInt(lkey, tpath);
        onceEach(seen, layer, tpath, li.key);
        if (layer >= static_cast<int>(mem.size()))
          throw InputError(tpath, "layer " + lkey, "layers numbered 0..n-1");
        const std::string lp = tpath + "." + lkey;
        // act_mem_floats are 4-byte units measured with fp32 activations at microbatch 1.
        const std::string floats = "a count of floats from 0 to 1e+12";
        auto figure = [&](std::string_view key) {
          return sailorFigure(li.value, key, lp, kMaxLayerElements, floats);
        };
        mem[static_cast<size_t>(layer)] = {figure("params_floats"), 4.0 * figure("act_mem_floats"),
                                           figure("act_output_floats")};
      }
      p->memory_[{model, tp}] = std::move(mem);
    }
  }
  p->adoptCatalogConventions(catalog);
  return p;
}

// NOTE [SAILOR layer conventions]
// SAILOR's profiles describe layers as its Megatron-DeepSpeed build split them, which is not
// always the catalogue's plan layering (embedding, blocks, head with final norm + LM head +
// loss, the head counting its output matrix). Three differences are in the published data, each
// detected from the numbers rather than from the model's name:
//  1. One layer too many (LLAMA-3-8: 35 for 34 plan layers): SAILOR profiles the final RMSNorm
//     as its own layer at L-2. It is merged into the head (times, parameters and activations
//     added).
//  2. A head whose parameters are only its norm (GPT-Neo-2.7: 5,120; LLAMA-3-8: 4,096): the
//     run tied the output matrix to the word embedding and counted it there. The head is given
//     the matrix (the embedding's parameters less learned position rows), marked as shared, so
//     a stage holding both keeps one copy and a last stage alone keeps its own, as Megatron does.
//  3. A head whose saved activations are smaller than its logits (GPT-Neo-2.7: 42 MB per
//     sequence at tp 1, where the fp32 logits alone take 412 MB; OPT-350 and LLAMA-3-8 keep
//     835 MB and 2 GB): the profiler timed and sized only the final norm, not the LM head and
//     loss. They are added from the architecture: the activations of deriveLayers' head
//     (logits and the fp32 softmax of the cross-entropy), and forward and backward time equal to
//     the profiled blocks' mean times scaled by the FLOPs ratio of the LM head to a block
//     (same GPU, microbatch and tp, so the efficiency SAILOR measured carries over). On
//     OPT-350, where SAILOR profiled the head, the architecture's head activations give 832 MB
//     against the 835 MB measured.
void SailorProfile::adoptCatalogConventions(const Catalog& catalog) {
  // (model, tp) whose head lacks its LM head -> FLOPs of the LM head / FLOPs of a block.
  std::map<std::pair<std::string, int>, double> head_ratio;
  for (auto& [mk, layers] : memory_) {
    const ModelSpec* m = catalog.findModel(mk.first);
    if (!m || layers.size() < 3) continue;
    const int tp = mk.second;
    const size_t plan = static_cast<size_t>(m->numPlanLayers());
    sailor_layers_[m->name] = static_cast<int>(layers.size());
    if (layers.size() == plan + 1) {
      LayerMemory& norm = layers[plan - 1];
      LayerMemory& head = layers[plan];
      head.params += norm.params;
      head.activation_bytes += norm.activation_bytes;
      layers.erase(layers.begin() + static_cast<std::ptrdiff_t>(plan - 1));
      if (tp == 1)
        adjustments_.push_back(m->name + ": SAILOR's layer " + std::to_string(plan - 1) +
                               " (the final norm) merged into the head");
    }
    if (layers.size() != plan) continue;
    LayerMemory& emb = layers.front();
    LayerMemory& head = layers.back();
    const double h = m->hidden_size;
    const double positions = m->position_embedding == PositionEmbedding::Learned
                                 ? static_cast<double>(m->max_position_embeddings) * h
                                 : 0.0;
    const double word = std::max(0.0, emb.params - positions);
    if (head.params < 0.25 * word) {
      head.params += word;
      head.shared_with_embedding = word;
      if (tp == 1)
        adjustments_.push_back(m->name + ": the head's output matrix is tied to the embedding (" +
                               std::to_string(static_cast<long long>(word)) +
                               " parameters at tp 1)");
    } else {
      head.shared_with_embedding = m->tied_embeddings ? std::min(word, head.params) : 0.0;
    }
    // Sequence length of the profile: a block's output is s x h elements per sequence.
    const double seq = layers[1].output_elements / h;
    const bool measured_seq = seq >= 1 && seq <= kMaxSequenceLength;
    const int s_len = measured_seq ? static_cast<int>(std::lround(seq)) : m->sequence_length;
    if (measured_seq) sequence_length_[m->name] = s_len;
    const double logits_bytes = 4.0 * s_len * static_cast<double>(m->vocab_size) / tp;
    if (head.activation_bytes < 0.5 * logits_bytes) {
      const auto arch = deriveLayers(*m, s_len, tp, 4);
      const LayerInfo& ah = arch.back();
      const LayerInfo& ab = arch[1];
      const double before = head.activation_bytes;
      // The architecture's head less its norm input (which the profiled norm already holds).
      head.activation_bytes += ah.activation_bytes - static_cast<double>(s_len) * h * 4.0;
      head_ratio[{m->name, tp}] = ab.forward_flops > 0 ? ah.forward_flops / ab.forward_flops : 0.0;
      if (tp == 1) {
        char buf[200];
        std::snprintf(buf, sizeof buf,
                      ": the profiled head has no LM head (%.0f MB of activations per sequence, "
                      "%.0f MB after adding it; time added as %.2f x a block)",
                      before / 1e6, head.activation_bytes / 1e6, head_ratio[{m->name, tp}]);
        adjustments_.push_back(m->name + buf);
      }
    }
  }
  for (auto& [key, e] : entries_) {
    const ModelSpec* m = catalog.findModel(key.model);
    if (!m) continue;
    const size_t plan = static_cast<size_t>(m->numPlanLayers());
    auto& t = e.timings;
    if (t.size() == plan + 1) {
      t[plan].forward_s += t[plan - 1].forward_s;
      t[plan].backward_s += t[plan - 1].backward_s;
      t.erase(t.begin() + static_cast<std::ptrdiff_t>(plan - 1));
    }
    if (t.size() != plan) continue;
    if (auto it = head_ratio.find({m->name, key.tp}); it != head_ratio.end()) {
      double f = 0, b = 0;
      for (size_t l = 1; l + 1 < plan; ++l) {
        f += t[l].forward_s;
        b += t[l].backward_s;
      }
      const double blocks = static_cast<double>(plan - 2);
      t.back().forward_s += it->second * f / blocks;
      t.back().backward_s += it->second * b / blocks;
    }
  }
}

std::optional<int> SailorProfile::sequenceLength(const std::string& model) const {
  auto it = sequence_length_.find(model);
  if (it == sequence_length_.end()) return std::nullopt;
  return it->second;
}

bool SailorProfile::profiledAt(const std::string& model, const Job& job) const {
  const auto s = sequenceLength(model);
  return !s || *s == job.sequence_length;
}

int SailorProfile::sailorLayers(const std::string& model) const {
  auto it = sailor_layers_.find(model);
  return it == sailor_layers_.end() ? 0 : it->second;
}

std::optional<std::vector<LayerTiming>> SailorProfile::scaledTimings(const ProfileKey& key,
                                                                     const Job& job) const {
  if (job.precision != Precision::Fp32 || !profiledAt(key.model, job)) return std::nullopt;
  const Entry* below = nullptr;
  const Entry* above = nullptr;
  int b_below = 0, b_above = 0;
  for (const auto& [k, e] : entries_) {
    if (k.model != key.model || k.gpu_type != key.gpu_type || k.tp != key.tp) continue;
    if (k.microbatch_size == key.microbatch_size) return std::nullopt;  // the exact source answers
    if (k.microbatch_size < key.microbatch_size && k.microbatch_size > b_below) {
      below = &e;
      b_below = k.microbatch_size;
    }
    if (k.microbatch_size > key.microbatch_size && (!above || k.microbatch_size < b_above)) {
      above = &e;
      b_above = k.microbatch_size;
    }
  }
  if (!below && !above) return std::nullopt;
  const double b = key.microbatch_size;
  std::vector<LayerTiming> out;
  if (below && above) {
    if (below->timings.size() != above->timings.size()) return std::nullopt;
    const double w = (b - b_below) / static_cast<double>(b_above - b_below);
    for (size_t l = 0; l < below->timings.size(); ++l)
      out.push_back({below->timings[l].forward_s +
                         w * (above->timings[l].forward_s - below->timings[l].forward_s),
                     below->timings[l].backward_s +
                         w * (above->timings[l].backward_s - below->timings[l].backward_s)});
  } else if (below) {
    const double f = b / b_below;
    for (const auto& l : below->timings) out.push_back({l.forward_s * f, l.backward_s * f});
  } else {
    out = above->timings;
  }
  return out;
}

std::optional<double> SailorProfile::anySizeOptimizerSecondsPerParameter(const ProfileKey& key,
                                                                         const Job& job) const {
  for (const auto& [k, e] : entries_)
    if (k.model == key.model && k.gpu_type == key.gpu_type && k.tp == key.tp)
      return optimizerSecondsPerParameter(k, job);
  return std::nullopt;
}

std::shared_ptr<SailorProfile> SailorProfile::load(const std::string& profiles_path,
                                                   const std::string& llm_info_path,
                                                   const Catalog& catalog) {
  // The two files parsed side by side (parsing was most of a planner_bench scenario's set-up).
  auto info_parsed =
      std::async(std::launch::async, [&] { return fast_json::readFile(llm_info_path); });
  const auto prof = fast_json::readFile(profiles_path);
  const auto info = info_parsed.get();
  try {
    return fromParsed({prof->root, info->root}, catalog);
  } catch (const InputError& e) {
    // fromParsed's fields start with the file they are in: "llm_info.OPT-350.1.5.params_floats"
    // becomes "<llm_info_path>: OPT-350.1.5.params_floats".
    for (const auto& [name, path] :
         {std::pair<std::string, const std::string&>{"simulator_profiles", profiles_path},
          {"llm_info", llm_info_path}})
      if (e.field().rfind(name + ".", 0) == 0)
        throw InputError(path + ": " + e.field().substr(name.size() + 1), e.value(), e.expected());
    throw withContext(e, profiles_path + " / " + llm_info_path);
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
  if (job.precision != Precision::Fp32 || !profiledAt(key.model, job)) return std::nullopt;
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second.timings;
}

std::optional<double> SailorProfile::optimizerSecondsPerParameter(const ProfileKey& key,
                                                                  const Job& job) const {
  if (job.precision != Precision::Fp32) return std::nullopt;
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  // update_s is the step of the profiled mini-model: embedding + 2 blocks + head. It does not
  // depend on the sequence length, so any job's answers.
  auto mem = memory_.find({key.model, key.tp});
  if (mem == memory_.end() || mem->second.size() < 3) return std::nullopt;
  const auto& layers = mem->second;
  const double mini = layers.front().params + 2 * layers[1].params + layers.back().params;
  if (mini < 1) return std::nullopt;  // not one parameter: no figure per parameter
  return it->second.update_s / mini;
}

std::optional<std::vector<LayerMemory>> SailorProfile::memory(const std::string& model, int tp,
                                                              const Job& job) const {
  auto it = memory_.find({model, tp});
  if (it == memory_.end() || !profiledAt(model, job)) return std::nullopt;
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
// Calibration (docs/simulator.md, Analytic profile): kMatmulEfficiency is chosen so that the
// median of SAILOR's measured block time (forward + backward, microbatch >= 4) over this
// estimate is about 1; `build/tests/bench/calibrate_analytic REFERENCE_DIR` prints the ratios.
std::optional<std::vector<LayerTiming>> AnalyticProfile::timings(const ProfileKey& key,
                                                                 const Job& job) const {
  const GpuType* g = catalog_.findGpu(key.gpu_type);
  const ModelSpec* m = catalog_.findModel(key.model);
  if (!g || !m) return std::nullopt;
  const int e = job.activationBytesPerElement();
  const auto layers = deriveLayers(*m, job.sequence_length, key.tp, e);
  double peak = g->fp32_tflops;
  if (job.precision == Precision::Bf16) {
    if (!g->bf16_tflops) return std::nullopt;  // no bf16 arithmetic (Plan::validate says so)
    peak = *g->bf16_tflops;
  }
  if (job.precision == Precision::Fp16) peak = g->fp16_tflops;
  const double flops_per_s = peak * 1e12 * kMatmulEfficiency;
  const double bytes_per_s = g->memory_bandwidth_gb_per_s * 1e9 * kMemoryEfficiency;
  const double b = key.microbatch_size;
  const double t = key.tp;
  const double ar_bytes = b * job.sequence_length * m->hidden_size * static_cast<double>(e);
  const double ar_s =
      key.tp > 1 ? 2.0 * (t - 1) / t * ar_bytes / (g->intra_node_bandwidth_gb_per_s * 1e9) + 10e-6
                 : 0.0;
  std::vector<LayerTiming> out;
  for (const auto& l : layers) {
    // The matmuls (compute-bound unless their weights take longer to read) and, one kernel
    // after another, the element-wise work around them (norms, activation functions, dropout,
    // softmax, residual adds: memory-bound, reading and writing the activations).
    // A fused attention kernel (FlashAttention) keeps the score matrices on chip: none of their
    // traffic, and its backward computes the scores again (QK^T: half the core's FLOPs).
    const bool fused = job.fused_attention && l.kind == LayerKind::Block;
    const double score_bytes = fused ? 2.0 * l.attention_core_bytes : 0.0;
    const double matmul = std::max(b * l.forward_flops / flops_per_s, l.weight_bytes / bytes_per_s);
    const double elementwise = b * (l.forward_bytes - l.weight_bytes - score_bytes) / bytes_per_s;
    const double compute = matmul + elementwise;
    const double kernels =
        (l.kind == LayerKind::Block ? kKernelsPerBlockForward : 4.0) * kKernelLatencySeconds;
    // Overlapped tensor-parallel communication: tp chunks, each collective beside the next
    // chunk's matmul (exposedAfter's rule in simulator_schedules.cpp with n = tp).
    double ars = (l.kind == LayerKind::Block ? 2.0 : 1.0) * ar_s;
    if (job.tp_comm_overlap && ars > 0) ars = std::max(matmul / t + ars, matmul + ars / t) - matmul;
    // The attention core: its matmuls (QK^T and the product with V) and its score-matrix
    // traffic (written, read by softmax, written, read by dropout and the product). Fused, the
    // backward already recomputes it: selective recomputation adds nothing.
    const double core = l.kind == LayerKind::Block && !fused
                            ? std::max(b * l.attention_core_flops / flops_per_s,
                                       b * 3.0 * l.attention_core_bytes / bytes_per_s)
                            : 0.0;
    const double rescore = fused ? 0.5 * b * l.attention_core_flops / flops_per_s : 0.0;
    out.push_back({compute + kernels + ars, 2.0 * compute + 2.0 * kernels + ars + rescore, core});
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
  for (const auto& l : deriveLayers(*m, job.sequence_length, tp, job.activationBytesPerElement())) {
    LayerMemory lm{l.params, l.activation_bytes, l.output_elements};
    lm.attention_core_bytes = l.attention_core_bytes;
    // Fused attention keeps no score matrices for backward (their softmax statistics, a s
    // floats, are negligible).
    if (job.fused_attention) {
      lm.activation_bytes -= l.attention_core_bytes;
      lm.attention_core_bytes = 0;
    }
    // Sequence parallelism: the replicated part split over the tp ranks.
    if (job.sequence_parallel && tp > 1)
      lm.activation_bytes -= l.replicated_activation_bytes * (1.0 - 1.0 / tp);
    out.push_back(lm);
  }
  if (m->tied_embeddings)
    out.back().shared_with_embedding = static_cast<double>(m->vocab_size) * m->hidden_size / tp;
  return out;
}

}  // namespace sailor
