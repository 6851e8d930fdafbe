// The GPU and model catalogues (resources/catalog/*.json) and what the engine derives from a
// model's architecture. Declared in sailor/model/catalog.hpp.
//
// Map:
//   gpuFromJson, ModelSpec::fromJson/toJson   one catalogue entry, validated field by field
//   deriveLayers, totalParameters              plan layers from the architecture: parameters,
//                                              FLOPs, bytes, saved activations (NOTE [Activation
//                                              bytes])
//   Catalog::fromJson, load                    the two files, names and aliases unique
//   Catalog::find*/gpu/model, *Names, add*     lookups (gpu and model throw InputError naming
//                                              the field and the known names)
//   resourceDir                                where the shipped resources are
#include "sailor/model/catalog.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"

#ifndef SAILOR_RESOURCE_DIR
#define SAILOR_RESOURCE_DIR ""
#endif
#ifndef SAILOR_INSTALL_RESOURCE_DIR
#define SAILOR_INSTALL_RESOURCE_DIR ""
#endif

namespace sailor {

using nlohmann::json;
namespace ju = json_util;

namespace {

std::string fieldOf(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

// j[key] as a number from lo to hi, else InputError naming the field, the value and `expected`
// (the bounds of sailor/model/catalog.hpp).
double boundedNumber(const json& j, const std::string& key, const std::string& path, double lo,
                     double hi, const std::string& expected) {
  const json& v = ju::require(j, key, path);
  if (!v.is_number() || !(v.get<double>() >= lo && v.get<double>() <= hi))
    throw InputError(fieldOf(path, key), ju::describe(v), expected);
  return v.get<double>();
}

// j[key] as a whole number from lo to hi (`what` says what it counts), else InputError.
std::int64_t boundedInt(const json& j, const std::string& key, const std::string& path,
                        std::int64_t lo, std::int64_t hi, const std::string& what) {
  const std::string expected =
      "an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + " (" + what + ")";
  const json& v = ju::require(j, key, path);
  const double d = v.is_number() ? v.get<double>() : -1.0;
  if (!v.is_number() || std::floor(d) != d ||
      !(d >= static_cast<double>(lo) && d <= static_cast<double>(hi)))
    throw InputError(fieldOf(path, key), ju::describe(v), expected);
  return static_cast<std::int64_t>(d);
}

// The same for an optional field: `fallback` when absent or null.
std::int64_t boundedIntOr(const json& j, const std::string& key, const std::string& path,
                          std::int64_t lo, std::int64_t hi, const std::string& what,
                          std::int64_t fallback) {
  if (!j.contains(key) || j.at(key).is_null()) return fallback;
  return boundedInt(j, key, path, lo, hi, what);
}

constexpr char kRateRange[] = "a rate in TFLOP/s from 1e-06 to 1e+06";
constexpr char kBandwidthRange[] = "a bandwidth in GB/s from 1e-06 (1 kB/s) to 1e+05";

double rate(const json& j, const std::string& key, const std::string& path) {
  return boundedNumber(j, key, path, kMinGpuTflops, kMaxGpuTflops, kRateRange);
}

double bandwidth(const json& j, const std::string& key, const std::string& path) {
  return boundedNumber(j, key, path, kMinGpuGbPerS, kMaxGpuGbPerS, kBandwidthRange);
}

std::optional<double> optionalRate(const json& j, const std::string& key, const std::string& path) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return rate(j, key, path);
}

std::vector<std::string> stringList(const json& j, const std::string& key,
                                    const std::string& path) {
  std::vector<std::string> out;
  if (!j.contains(key)) return out;
  ju::requireArray(j.at(key), path + "." + key);
  for (const auto& s : j.at(key)) {
    if (!s.is_string()) throw InputError(path + "." + key, ju::describe(s), "strings");
    out.push_back(s.get<std::string>());
  }
  return out;
}

// shared_compute_slowdown: absent or null = no sharing; else a non-empty array of finite
// figures >= 1 (k ranks at once never take less than one alone), the first exactly 1.
std::vector<double> slowdownList(const json& j, const std::string& key, const std::string& path) {
  std::vector<double> out;
  if (!j.contains(key) || j.at(key).is_null()) return out;
  const std::string field = path + "." + key;
  ju::requireArray(j.at(key), field);
  if (j.at(key).empty()) throw InputError(field, "[]", "slowdowns for k = 1, 2, ... ranks");
  for (size_t i = 0; i < j.at(key).size(); ++i) {
    const json& v = j.at(key)[i];
    const std::string at = field + "[" + std::to_string(i) + "]";
    if (!v.is_number()) throw InputError(at, ju::describe(v), "a number");
    const double x = v.get<double>();
    if (!(x >= 1.0 && x <= kMaxComputeSlowdown))
      throw InputError(at, ju::describe(v),
                       "a finite slowdown from 1 to 1e+06 (k ranks at once over one)");
    if (i == 0 && x != 1.0)
      throw InputError(at, ju::describe(v), "1 (one rank alone is the reference)");
    out.push_back(x);
  }
  return out;
}

// "networks": the instance families' node networks, each citing its source, exactly one the
// default, whose per-GPU share is the type's inter_node_bandwidth_gb_per_s.
std::vector<NodeNetwork> networksFromJson(const json& j, const GpuType& g,
                                          const std::string& path) {
  std::vector<NodeNetwork> out;
  if (!j.contains("networks")) return out;
  const std::string field = path + ".networks";
  ju::requireArray(j.at("networks"), field);
  for (size_t i = 0; i < j.at("networks").size(); ++i) {
    const json& e = j.at("networks")[i];
    const std::string at = field + "[" + std::to_string(i) + "]";
    ju::requireObject(e, at);
    ju::rejectUnknownKeys(
        e, {"instance", "cloud", "gpus_per_node", "gbit_per_s", "default", "source"}, at);
    NodeNetwork n;
    n.instance = ju::getString(e, "instance", at);
    n.cloud = ju::getString(e, "cloud", at);
    n.gpus_per_node =
        static_cast<int>(boundedInt(e, "gpus_per_node", at, 1, kMaxGpusPerNode, "GPUs"));
    n.gbit_per_s = boundedNumber(e, "gbit_per_s", at, kMinGpuGbPerS * 8, kMaxGpuGbPerS * 8,
                                 "a node bandwidth in Gb/s from 8e-06 to 8e+05");
    n.is_default = e.value("default", false);
    n.source = ju::getString(e, "source", at);
    if (n.source.empty()) throw InputError(at + ".source", "\"\"", "the figure's source");
    for (const auto& other : out)
      if (other.instance == n.instance)
        throw InputError(at + ".instance", "\"" + n.instance + "\" again", "one entry per family");
    out.push_back(std::move(n));
  }
  const auto defaults =
      std::count_if(out.begin(), out.end(), [](const auto& n) { return n.is_default; });
  if (!out.empty() && defaults != 1)
    throw InputError(field, std::to_string(defaults) + " defaults",
                     "exactly one \"default\": true");
  for (const auto& n : out)
    if (n.is_default && std::fabs(n.gbPerS() / n.gpus_per_node - g.inter_node_bandwidth_gb_per_s) >
                            1e-9 * g.inter_node_bandwidth_gb_per_s)
      throw InputError(
          path + ".inter_node_bandwidth_gb_per_s", toText(g.inter_node_bandwidth_gb_per_s),
          "the default network's share per GPU, " + toText(n.gbPerS() / n.gpus_per_node));
  return out;
}

GpuType gpuFromJson(const json& j, const std::string& path) {
  GpuType g;
  g.name = ju::getString(j, "name", path);
  g.vendor = ju::getStringOr(j, "vendor", path, "");
  g.full_name = ju::getStringOr(j, "full_name", path, g.name);
  constexpr auto kMaxBytes = static_cast<std::int64_t>(kMaxGpuMemoryBytes);
  g.memory_bytes = boundedInt(j, "memory_bytes", path, 1, kMaxBytes, "bytes");
  g.fp32_tflops = rate(j, "fp32_tflops", path);
  g.tf32_tflops = optionalRate(j, "tf32_tflops", path);
  g.fp16_tflops = rate(j, "fp16_tflops", path);
  g.bf16_tflops = optionalRate(j, "bf16_tflops", path);
  g.memory_bandwidth_gb_per_s = bandwidth(j, "memory_bandwidth_gb_per_s", path);
  g.intra_node_bandwidth_gb_per_s = bandwidth(j, "intra_node_bandwidth_gb_per_s", path);
  g.inter_node_bandwidth_gb_per_s = bandwidth(j, "inter_node_bandwidth_gb_per_s", path);
  g.gpus_per_node =
      static_cast<int>(boundedInt(j, "gpus_per_node", path, 1, kMaxGpusPerNode, "GPUs"));
  g.runtime_overhead_bytes = boundedInt(j, "runtime_overhead_bytes", path, 0, kMaxBytes, "bytes");
  g.shared_compute_slowdown = slowdownList(j, "shared_compute_slowdown", path);
  if (j.contains("collective_bus_bandwidth_gb_per_s") &&
      !j.at("collective_bus_bandwidth_gb_per_s").is_null())
    g.collective_bus_bandwidth_gb_per_s = bandwidth(j, "collective_bus_bandwidth_gb_per_s", path);
  g.nccl_channels =
      static_cast<int>(boundedIntOr(j, "nccl_channels", path, 0, kMaxNcclChannels, "channels", 0));
  g.nccl_connection_bytes =
      boundedIntOr(j, "nccl_connection_bytes", path, 1,
                   static_cast<std::int64_t>(kMaxNcclConnectionBytes), "bytes", 0);
  g.networks = networksFromJson(j, g, path);
  if (j.contains("gpu_hours_between_failures"))
    g.gpu_hours_between_failures = ju::getPositive(j, "gpu_hours_between_failures", path);
  g.sources = stringList(j, "sources", path);
  if (g.sources.empty()) throw InputError(path + ".sources", "nothing", "at least one source");
  return g;
}

}  // namespace

std::vector<NodeNetwork> GpuType::nodeNetworks() const {
  std::vector<NodeNetwork> out;
  for (const auto& n : networks)
    if (n.is_default) out.push_back(n);
  for (const auto& n : networks)
    if (!n.is_default) out.push_back(n);
  if (out.empty())
    out.push_back({"", "", gpus_per_node, inter_node_bandwidth_gb_per_s * 8 * gpus_per_node, true,
                   "the catalogue's inter_node_bandwidth_gb_per_s of " + name});
  return out;
}

const NodeNetwork* GpuType::findNetwork(const std::string& instance) const {
  for (const auto& n : networks)
    if (n.instance == instance) return &n;
  return nullptr;
}

std::string GpuType::instanceNames() const {
  std::string s;
  for (const auto& n : networks) s += (s.empty() ? "" : ", ") + n.instance;
  return s.empty() ? "none listed" : s;
}

double GpuType::sharedComputeSlowdown(int k) const {
  if (shared_compute_slowdown.empty() || k <= 1) return 1.0;
  const int n = static_cast<int>(shared_compute_slowdown.size());
  if (k <= n) return shared_compute_slowdown[static_cast<size_t>(k - 1)];
  return shared_compute_slowdown.back() * static_cast<double>(k) / n;
}

ModelSpec ModelSpec::fromJson(const json& j, const std::string& path) {
  ModelSpec m;
  m.name = ju::getString(j, "name", path);
  m.aliases = stringList(j, "aliases", path);
  // Each dimension within the bounds of sailor/model/catalog.hpp, so that every product the
  // simulator forms (s^2 x heads, vocabulary x hidden, ...) stays finite in a double and the
  // per-layer tables stay small.
  auto dim = [&](const std::string& key, int hi, const std::string& what) {
    return static_cast<int>(boundedInt(j, key, path, 1, hi, what));
  };
  auto dim_or = [&](const std::string& key, int hi, const std::string& what, int fallback) {
    return static_cast<int>(boundedIntOr(j, key, path, 1, hi, what, fallback));
  };
  m.layers = dim("layers", kMaxModelLayers, "transformer blocks");
  m.hidden_size = dim("hidden_size", kMaxModelWidth, "elements");
  m.heads = dim("heads", kMaxModelWidth, "attention heads");
  m.kv_heads = dim_or("kv_heads", kMaxModelWidth, "attention heads", m.heads);
  m.ffn_hidden_size = dim("ffn_hidden_size", kMaxModelWidth, "elements");
  m.vocab_size = dim("vocab_size", kMaxVocabularySize, "tokens");
  m.sequence_length = dim("sequence_length", kMaxSequenceLength, "tokens");
  m.max_position_embeddings =
      dim_or("max_position_embeddings", kMaxSequenceLength, "positions", m.sequence_length);
  const std::string pos = ju::getStringOr(j, "position_embedding", path, "learned");
  if (pos == "learned") m.position_embedding = PositionEmbedding::Learned;
  else if (pos == "rotary") m.position_embedding = PositionEmbedding::Rotary;
  else
    throw InputError(path + ".position_embedding", "\"" + pos + "\"", "\"learned\" or \"rotary\"");
  m.tied_embeddings = ju::getBoolOr(j, "tied_embeddings", path, false);
  const std::string norm = ju::getStringOr(j, "norm", path, "layernorm");
  if (norm == "layernorm") m.norm = NormType::LayerNorm;
  else if (norm == "rmsnorm") m.norm = NormType::RmsNorm;
  else throw InputError(path + ".norm", "\"" + norm + "\"", "\"layernorm\" or \"rmsnorm\"");
  const std::string mlp = ju::getStringOr(j, "mlp", path, "gelu");
  if (mlp == "gelu") m.mlp = MlpType::Gelu;
  else if (mlp == "swiglu") m.mlp = MlpType::SwiGlu;
  else throw InputError(path + ".mlp", "\"" + mlp + "\"", "\"gelu\" or \"swiglu\"");
  m.bias = ju::getBoolOr(j, "bias", path, true);
  m.sources = stringList(j, "sources", path);
  if (m.hidden_size % m.heads != 0)
    throw InputError(path + ".heads", std::to_string(m.heads),
                     "a divisor of hidden_size " + std::to_string(m.hidden_size));
  if (m.heads % m.kv_heads != 0)
    throw InputError(path + ".kv_heads", std::to_string(m.kv_heads),
                     "a divisor of heads " + std::to_string(m.heads));
  return m;
}

json ModelSpec::toJson() const {
  return json{{"name", name},
              {"aliases", aliases},
              {"layers", layers},
              {"hidden_size", hidden_size},
              {"heads", heads},
              {"kv_heads", kv_heads},
              {"ffn_hidden_size", ffn_hidden_size},
              {"vocab_size", vocab_size},
              {"sequence_length", sequence_length},
              {"max_position_embeddings", max_position_embeddings},
              {"position_embedding",
               position_embedding == PositionEmbedding::Learned ? "learned" : "rotary"},
              {"tied_embeddings", tied_embeddings},
              {"norm", norm == NormType::LayerNorm ? "layernorm" : "rmsnorm"},
              {"mlp", mlp == MlpType::Gelu ? "gelu" : "swiglu"},
              {"bias", bias},
              {"sources", sources}};
}

// NOTE [Activation bytes]
// What a Megatron-style block keeps for backward, per sequence of s tokens, hidden h, a heads,
// tp-sharded over t GPUs, without activation recomputation or dropout (the saved tensors of
// each op; Korthikanti et al., "Reducing Activation Recomputation in Large Transformer
// Models", 2022, Sec. 4, without the 1-byte dropout masks):
//   replicated over the tp group: the inputs of the two norms and of QKV and the MLP: 4 s h
//   sharded: Q, K, V (s (h + 2 kv_dim) / t), attention output (s h / t), softmax output
//            (a s^2 / t), MLP inner activations (2 s f / t for GeLU: pre- and post-activation;
//            3 s f / t for SwiGLU: gate, up and product).
// Elements times the activation element size. Measured SAILOR llm_info for OPT-350 lies within
// about 15% of this (tests/engine/test_catalog.cpp checks the bound).
std::vector<LayerInfo> deriveLayers(const ModelSpec& m, int s_len, int tp, int e) {
  const double s = s_len, h = m.hidden_size, a = m.heads, t = tp, f = m.ffn_hidden_size;
  const double V = m.vocab_size, bytes = e;
  const double hd = h / a;
  const double kv_dim = m.kv_heads * hd;
  const double bias = m.bias ? 1.0 : 0.0;
  const double norm_params = (m.norm == NormType::LayerNorm ? 2.0 : 1.0) * h;
  std::vector<LayerInfo> out;
  out.reserve(static_cast<size_t>(m.numPlanLayers()));

  LayerInfo emb;
  emb.kind = LayerKind::Embedding;
  emb.params = V * h / t + (m.position_embedding == PositionEmbedding::Learned
                                ? static_cast<double>(m.max_position_embeddings) * h
                                : 0.0);
  emb.activation_bytes = s * bytes;  // token ids and the embedding output's mask
  emb.output_elements = s * h;
  emb.forward_flops = 0;
  emb.forward_bytes = 2 * s * h * bytes;
  out.push_back(emb);

  const double mlp_mats = (m.mlp == MlpType::Gelu ? 2.0 : 3.0);
  LayerInfo blk;
  blk.kind = LayerKind::Block;
  const double attn_params = (h * (h + 2 * kv_dim) + h * h) / t + bias * ((h + 2 * kv_dim) / t + h);
  const double mlp_params = mlp_mats * h * f / t + bias * (f / t + h);
  blk.params = attn_params + mlp_params + 2 * norm_params;
  const double mlp_inner = (m.mlp == MlpType::Gelu ? 2.0 : 3.0) * s * f / t;
  blk.activation_bytes =
      bytes * (4 * s * h + s * (h + 2 * kv_dim) / t + s * h / t + a * s * s / t + mlp_inner);
  blk.output_elements = s * h;
  const double matmul_params = (h * (h + 2 * kv_dim) + h * h + mlp_mats * h * f) / t;
  blk.forward_flops = 2 * s * matmul_params + 4 * s * s * h / t;
  blk.forward_bytes = matmul_params * bytes + 2 * blk.activation_bytes;
  blk.weight_bytes = matmul_params * bytes;
  blk.attention_core_flops = 4 * s * s * h / t;
  blk.attention_core_bytes = bytes * a * s * s / t;
  blk.replicated_activation_bytes = bytes * 4 * s * h;
  for (int i = 0; i < m.layers; ++i) out.push_back(blk);

  LayerInfo head;
  head.kind = LayerKind::Head;
  head.params = V * h / t + norm_params;
  // Norm input, logits in the activation type and the fp32 softmax of the vocab-parallel
  // cross-entropy.
  head.activation_bytes = s * h * bytes + s * V / t * (bytes + 4);
  head.output_elements = 1;
  head.forward_flops = 2 * s * h * V / t;
  head.forward_bytes = V * h / t * bytes + 2 * head.activation_bytes;
  head.weight_bytes = V * h / t * bytes;
  head.replicated_activation_bytes = s * h * bytes;
  out.push_back(head);
  return out;
}

double totalParameters(const ModelSpec& m) {
  auto layers = deriveLayers(m, m.sequence_length, 1, 2);
  double p = 0;
  for (const auto& l : layers) p += l.params;
  if (m.tied_embeddings) p -= static_cast<double>(m.vocab_size) * m.hidden_size;
  return p;
}

Catalog Catalog::fromJson(const json& gpus, const json& models) {
  Catalog c;
  ju::requireArray(ju::require(gpus, "gpus", ""), "gpus");
  int i = 0;
  for (const auto& g : gpus.at("gpus")) {
    GpuType t = gpuFromJson(g, "gpus[" + std::to_string(i++) + "]");
    if (c.findGpu(t.name))
      throw InputError("gpus[" + std::to_string(i - 1) + "].name", t.name,
                       "a name not used before");
    c.gpus_.push_back(std::move(t));
  }
  ju::requireArray(ju::require(models, "models", ""), "models");
  i = 0;
  for (const auto& m : models.at("models")) {
    ModelSpec spec = ModelSpec::fromJson(m, "models[" + std::to_string(i++) + "]");
    c.models_.push_back(std::move(spec));
  }
  return c;
}

Catalog Catalog::load(const std::string& dir) {
  const std::string g = dir + "/catalog/gpus.json";
  const std::string m = dir + "/catalog/models.json";
  json gj = ju::readFile(g);
  json mj = ju::readFile(m);
  Catalog c;
  try {
    Catalog gpus_only = fromJson(gj, json{{"models", json::array()}});
    c.gpus_ = std::move(gpus_only.gpus_);
  } catch (const InputError& e) {
    throw withContext(e, g);
  }
  try {
    Catalog models_only = fromJson(json{{"gpus", json::array()}}, mj);
    c.models_ = std::move(models_only.models_);
  } catch (const InputError& e) {
    throw withContext(e, m);
  }
  return c;
}

const GpuType* Catalog::findGpu(const std::string& name) const {
  for (const auto& g : gpus_)
    if (g.name == name) return &g;
  return nullptr;
}

const ModelSpec* Catalog::findModel(const std::string& name) const {
  for (const auto& m : models_) {
    if (m.name == name) return &m;
    for (const auto& a : m.aliases)
      if (a == name) return &m;
  }
  return nullptr;
}

const GpuType& Catalog::gpu(const std::string& name, const std::string& field) const {
  if (const GpuType* g = findGpu(name)) return *g;
  throw InputError(field, "\"" + name + "\"", "a GPU type of the catalogue (" + gpuNames() + ")");
}

const ModelSpec& Catalog::model(const std::string& name, const std::string& field) const {
  if (const ModelSpec* m = findModel(name)) return *m;
  throw InputError(field, "\"" + name + "\"", "a model of the catalogue (" + modelNames() + ")");
}

std::string Catalog::gpuNames() const {
  std::string s;
  for (const auto& g : gpus_) s += (s.empty() ? "" : ", ") + g.name;
  return s;
}

std::string Catalog::modelNames() const {
  std::string s;
  for (const auto& m : models_) s += (s.empty() ? "" : ", ") + m.name;
  return s;
}

void Catalog::addGpu(GpuType gpu) {
  if (!findGpu(gpu.name)) gpus_.push_back(std::move(gpu));
}

void Catalog::extendFromFile(const std::string& path) {
  extendFromJson(ju::readFile(path), path);
}

void Catalog::extendFromJson(const json& j, const std::string& path) {
  try {
    ju::requireObject(j, "catalogue extension");
    ju::rejectUnknownKeys(j, {"gpus", "models"}, "");
    const Catalog extra = fromJson(json{{"gpus", j.value("gpus", json::array())}},
                                   json{{"models", j.value("models", json::array())}});
    for (const auto& g : extra.gpus()) {
      std::erase_if(gpus_, [&](const GpuType& mine) { return mine.name == g.name; });
      gpus_.push_back(g);
    }
    for (const auto& m : extra.models()) addModel(m);
  } catch (const InputError& e) {
    throw withContext(e, path);
  }
}

void Catalog::addModel(const ModelSpec& model) {
  ModelSpec checked = ModelSpec::fromJson(model.toJson(), "model");
  std::erase_if(models_, [&](const ModelSpec& m) {
    if (m.name == checked.name) return true;
    return std::find(m.aliases.begin(), m.aliases.end(), checked.name) != m.aliases.end();
  });
  models_.push_back(std::move(checked));
}

std::string resourceDir() {
  namespace fs = std::filesystem;
  std::error_code ec;  // a path whose status cannot be read (a symbolic link loop) is not one
  if (const char* env = std::getenv("SAILOR_RESOURCES"); env && *env) {
    if (fs::exists(std::string(env) + "/catalog/gpus.json", ec)) return env;
    throw InputError("SAILOR_RESOURCES", std::string("\"") + env + "\"",
                     "a directory holding catalog/gpus.json");
  }
  for (const char* d : {SAILOR_RESOURCE_DIR, SAILOR_INSTALL_RESOURCE_DIR}) {
    if (*d && fs::exists(std::string(d) + "/catalog/gpus.json", ec)) return d;
  }
  throw InputError("resources", "no catalogue found",
                   "SAILOR_RESOURCES set to the project's resources/ directory");
}

}  // namespace sailor
