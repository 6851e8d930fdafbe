// GPU and model catalogues, and what the engine derives from a model's architecture.
// The data lives in resources/catalog/*.json (each figure with its source); this file only
// describes and loads it. Not here: prices (scenario.hpp), measured profiles (profile.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sailor {

// Bounds on a catalogue entry's figures, checked when the catalogue or an extension is read
// (docs/formats.md, "Catalogue bounds"). Beyond them a figure is a slip (5e-324 GB/s, 1e308
// TFLOP/s, a model 2^31 wide), never a real device or model, and the simulator's figures would
// overflow to inf or its per-layer tables would not fit in memory.
inline constexpr double kMinGpuTflops = 1e-6;            // 1 MFLOP/s: below any device's arithmetic
inline constexpr double kMaxGpuTflops = 1e6;             // 1 EFLOP/s: 400x a B200's dense fp16 rate
inline constexpr double kMinGpuGbPerS = 1e-6;            // 1 kB/s, as a scenario's link
inline constexpr double kMaxGpuGbPerS = 1e5;             // 100 TB/s, as a scenario's link
inline constexpr double kMaxGpuMemoryBytes = 1e15;       // 1 PB: 5,000x a GPU's 192 GB
inline constexpr double kMaxComputeSlowdown = 1e6;       // k ranks on one device, over one alone
inline constexpr int kMaxGpusPerNode = 1'000'000;        // as a scenario's pool
inline constexpr int kMaxNcclChannels = 1024;            // NCCL opens at most 64
inline constexpr double kMaxNcclConnectionBytes = 1e12;  // NCCL's default is 9.6 MB
inline constexpr int kMaxModelLayers = 1000;             // 8x the deepest public model (126)
inline constexpr int kMaxModelWidth = 1'000'000;         // hidden, MLP: 19x Llama-3-405B's MLP
inline constexpr int kMaxVocabularySize = 10'000'000;    // 40x the largest (256,000)
inline constexpr int kMaxSequenceLength = 10'000'000;    // tokens per sequence (and positions)

// The network between nodes of one instance family of a GPU type: the NICs that carry GPU
// traffic, together, one direction (docs/simulator.md, "Links").
struct NodeNetwork {
  std::string instance;  // instance family, e.g. "a3-highgpu-8g", "p5.48xlarge"
  std::string cloud;     // "GCP", "AWS", "Azure", or the cluster's operator
  int gpus_per_node = 0;
  double gbit_per_s = 0;  // the node's aggregate, 1e9 bit/s
  bool is_default = false;
  std::string source;  // documentation page and date
  double gbPerS() const { return gbit_per_s / 8; }
};

struct GpuType {
  std::string name;       // catalogue key, e.g. "A100-40"
  std::string vendor;     // "NVIDIA", "AMD"
  std::string full_name;  // e.g. "NVIDIA A100 40GB SXM4"
  std::int64_t memory_bytes = 0;
  double fp32_tflops = 0;             // dense, non-tensor FP32 peak, 1e12 FLOP/s
  std::optional<double> tf32_tflops;  // dense tensor-core rates; absent when not supported
  double fp16_tflops = 0;
  std::optional<double> bf16_tflops;
  double memory_bandwidth_gb_per_s = 0;      // HBM/GDDR, 1e9 B/s
  double intra_node_bandwidth_gb_per_s = 0;  // per GPU, one direction (NVLink or PCIe)
  double inter_node_bandwidth_gb_per_s = 0;  // per GPU share of the node's network
  int gpus_per_node = 1;
  // Device memory in use that is not model state or activations: CUDA/ROCm context,
  // communication buffers, framework kernels, allocator reserve. See docs/simulator.md.
  std::int64_t runtime_overhead_bytes = 0;
  // Ranks sharing the device's compute (NOTE [Ranks sharing a device] in simulator_shared.cpp):
  // entry k - 1 is how many times longer each of k ranks computing at once on one node takes for
  // its work than one rank alone (1 for k = 1). Empty: the node's GPUs do not share compute (real
  // GPUs; every GPU type of the shipped catalogue). Measured by `sailor profile` for a CPU
  // device, whose ranks are processes on the same cores.
  std::vector<double> shared_compute_slowdown;
  // Slowdown of k >= 1 ranks computing at once (1 without sharing); past the measured k,
  // processor sharing of the last measured figure: slowdown(N) x k / N.
  double sharedComputeSlowdown(int k) const;
  bool sharesCompute() const { return !shared_compute_slowdown.empty(); }
  // Bus bandwidth (nccl-tests' definition: 2 (D - 1) / D x bytes / seconds), 1e9 B/s per GPU,
  // that a ring all-reduce between GPUs of this type reaches when the link between them is not
  // what limits it: the device's own reduction and copies (NOTE [Collective efficiency] in
  // simulator_comm.cpp). Unset (nullopt): the link alone limits the ring (NCCL on GPUs: every GPU
  // type of the shipped catalogue). Measured by `sailor profile` between two local ranks (Gloo
  // on CPU processes reduces on the cores, well below its point-to-point bandwidth).
  std::optional<double> collective_bus_bandwidth_gb_per_s;
  double collectiveBusBytesPerS() const {
    return collective_bus_bandwidth_gb_per_s ? *collective_bus_bandwidth_gb_per_s * 1e9 : 0.0;
  }
  // NCCL communicator buffers (NOTE [Communicator buffers] in simulator_memory.cpp): the channels
  // NCCL's topology search opens per communicator on this type's nodes (its NCCL_DEBUG=INFO log's
  // "Channel 00/02" lines); 0: the term is not modelled (the runtime overhead holds it).
  int nccl_channels = 0;
  // Buffer bytes per connection of a channel; 0: NCCL's defaults for the Simple, LL and LL128
  // protocols (kNcclConnectionBytes). Set for NCCL_BUFFSIZE and friends, or protocols switched off.
  std::int64_t nccl_connection_bytes = 0;
  // Instance families and their node networks, exactly one the default; empty (a catalogue
  // extension's type): nodeNetworks() derives one from inter_node_bandwidth_gb_per_s.
  std::vector<NodeNetwork> networks;
  // GPU-hours of one GPU between unexpected interruptions of a job (a GPU, its host, its network
  // or its software failing); 0: kDefaultGpuHoursBetweenFailures (training_run.hpp).
  double gpu_hours_between_failures = 0;
  std::vector<std::string> sources;
  // The families' networks, the default first; never empty.
  std::vector<NodeNetwork> nodeNetworks() const;
  const NodeNetwork* findNetwork(const std::string& instance) const;  // nullptr when unknown
  std::string instanceNames() const;  // "a3-highgpu-8g, a3-megagpu-8g, ..." for error messages
};

enum class NormType { LayerNorm, RmsNorm };
enum class MlpType { Gelu, SwiGlu };
enum class PositionEmbedding { Learned, Rotary };

struct ModelSpec {
  std::string name;  // catalogue key, e.g. "OPT-350M"
  std::vector<std::string> aliases;
  int layers = 0;  // transformer blocks
  int hidden_size = 0;
  int heads = 0;
  int kv_heads = 0;
  int ffn_hidden_size = 0;
  int vocab_size = 0;
  int sequence_length = 0;  // default training sequence length
  int max_position_embeddings = 0;
  PositionEmbedding position_embedding = PositionEmbedding::Learned;
  bool tied_embeddings = false;
  NormType norm = NormType::LayerNorm;
  MlpType mlp = MlpType::Gelu;
  bool bias = true;
  std::vector<std::string> sources;

  // Layers as the simulator and plans number them: 0 = embedding, 1..layers = blocks,
  // layers + 1 = final norm + LM head + loss.
  int numPlanLayers() const { return layers + 2; }
  int headDim() const { return hidden_size / heads; }

  nlohmann::json toJson() const;
  static ModelSpec fromJson(const nlohmann::json& j, const std::string& path);
};

enum class LayerKind { Embedding, Block, Head };

// What one plan layer of a model costs, derived from the architecture, for a microbatch of
// one sequence (multiply activations, messages and FLOPs by the microbatch size), sharded over
// `tp` GPUs (Megatron-style column/row-parallel, vocabulary-parallel embedding and head).
struct LayerInfo {
  LayerKind kind = LayerKind::Block;
  double params = 0;            // parameters on one GPU of the tensor-parallel group
  double activation_bytes = 0;  // bytes kept for backward on one GPU, per sequence
  double output_elements = 0;   // elements of the layer's output (stage-boundary message)
  double forward_flops = 0;     // forward FLOPs on one GPU, per sequence (backward = 2x)
  double forward_bytes = 0;     // HBM bytes moved in forward on one GPU (memory-bound part)
  double weight_bytes = 0;      // of forward_bytes, the matmul weights read (once a microbatch)
  // Blocks: the attention core's share (QK^T, softmax, dropout, the product with V): its
  // forward FLOPs and its score-matrix bytes kept for backward, per sequence.
  double attention_core_flops = 0;
  double attention_core_bytes = 0;
  // Of activation_bytes, what every rank of the tp group keeps whole (the norms' inputs, the
  // dropout masks and residuals outside the tensor-parallel regions): what sequence
  // parallelism splits over the ranks.
  double replicated_activation_bytes = 0;
};

// Derives per-layer figures from a model's architecture. `bytes_per_element` is 4 for fp32
// training and 2 for bf16/fp16 activations. NOTE [Activation bytes] in catalog.cpp.
std::vector<LayerInfo> deriveLayers(const ModelSpec& model, int sequence_length, int tp,
                                    int bytes_per_element);
// Total parameters of the model (unsharded), counting a tied head once.
double totalParameters(const ModelSpec& model);

class Catalog {
 public:
  // Loads resources/catalog/gpus.json and models.json from `resource_dir`.
  static Catalog load(const std::string& resource_dir);
  static Catalog fromJson(const nlohmann::json& gpus, const nlohmann::json& models);

  const GpuType* findGpu(const std::string& name) const;      // nullptr when unknown
  const ModelSpec* findModel(const std::string& name) const;  // by name or alias
  const GpuType& gpu(const std::string& name, const std::string& field) const;  // throws
  const ModelSpec& model(const std::string& name, const std::string& field) const;

  const std::vector<GpuType>& gpus() const { return gpus_; }
  const std::vector<ModelSpec>& models() const { return models_; }
  std::string gpuNames() const;  // "A100-40, A100-80, ..." for error messages
  std::string modelNames() const;

  void addGpu(GpuType gpu);  // used by importers for GPU types the catalogue lacks
  // Adds the entries of a catalogue extension file, {"gpus": [...], "models": [...]} in the
  // catalogue's formats (either array may be absent), as `sailor profile` writes for the device
  // it measured and the model the runtime builds there. An entry replaces the catalogue's
  // entry of that name. Throws InputError naming the file and field.
  void extendFromFile(const std::string& path);
  // The same for an extension already read (`where` names it in errors: its file's path).
  void extendFromJson(const nlohmann::json& extension, const std::string& where);
  // A user's own model (the studio's custom model): replaces a model of the same name or alias.
  // Throws InputError when the architecture is inconsistent (ModelSpec::fromJson's checks).
  void addModel(const ModelSpec& model);

 private:
  std::vector<GpuType> gpus_;
  std::vector<ModelSpec> models_;
};

// Where the resource files are: $SAILOR_RESOURCES, else the build-time source directory, else
// the install directory. Throws InputError when none exists.
std::string resourceDir();

}  // namespace sailor
