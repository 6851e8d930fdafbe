// The run specification: a plan mapped onto ranks (one per GPU), the model the workers build
// and the training settings; built by the controller, read by every worker. Declared in
// sailor/runs/run_spec.hpp; see docs/training.md and docs/runtime.md.
//
// Map:
//   normName, RuntimeModel::toJson/fromJson     the model the workers build
//   RankPlacement::toJson                        one rank's stage, replica and tp rank
//   RunSpec::replicaRanks, stageRanks            ranks of a replica, of a stage
//   RunSpec::learningRateAt                      the schedule (warm-up, then cosine)
//   runtimeModel, checkPlan, checkOptions,       RunSpec::build's steps: the model scaled to
//   RunSpec::build                                 this machine, the plan and settings checked
//   checkSequenceLength, checkTensorSizes         the model's bounds (kMaxRunSequenceLength,
//                                                  kMaxTensorElements)
//   placeRanks                                   one rank per GPU (also the exports' numbering)
//   rankMemoryBytes                              a rank's peak bytes (the engine's memory model)
//   trainingToJson, trainingFromJson             the training settings' keys of the spec file
//   RunSpec::toJson, fromJson                    the spec file every worker reads
#include "sailor/runs/run_spec.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <numbers>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/simulation/simulator.hpp"

namespace sailor {

using nlohmann::json;
namespace ju = json_util;

namespace {

constexpr int kByteVocabulary = 256;
constexpr int kLocalHeadDim = 16;
constexpr int kLocalMinHidden = 64;
constexpr int kLocalMaxSequence = 64;
// The largest vocabulary a run takes (uint32 ids; Llama 3's is 128,256, Gemma's 256,000).
constexpr int kMaxVocabulary = 1 << 24;

const char* normName(NormType n) {
  return n == NormType::LayerNorm ? "layernorm" : "rmsnorm";
}

}  // namespace

json RuntimeModel::toJson() const {
  return json{{"name", name},
              {"layers", layers},
              {"hidden_size", hidden_size},
              {"heads", heads},
              {"ffn_hidden_size", ffn_hidden_size},
              {"vocab_size", vocab_size},
              {"sequence_length", sequence_length},
              {"tied_embeddings", tied_embeddings},
              {"norm", normName(norm)},
              {"bias", bias}};
}

RuntimeModel RuntimeModel::fromJson(const json& j, const std::string& path) {
  ju::requireObject(j, path);
  RuntimeModel m;
  m.name = ju::getString(j, "name", path);
  m.layers = ju::getInt32(j, "layers", path, 1);
  m.hidden_size = ju::getInt32(j, "hidden_size", path, 1);
  m.heads = ju::getInt32(j, "heads", path, 1);
  m.ffn_hidden_size = ju::getInt32(j, "ffn_hidden_size", path, 1);
  m.vocab_size = ju::getInt32(j, "vocab_size", path, 2);
  m.sequence_length = ju::getInt32(j, "sequence_length", path, 1);
  m.tied_embeddings = ju::getBoolOr(j, "tied_embeddings", path, false);
  const std::string norm = ju::getStringOr(j, "norm", path, "layernorm");
  if (norm == "layernorm") m.norm = NormType::LayerNorm;
  else if (norm == "rmsnorm") m.norm = NormType::RmsNorm;
  else throw InputError(path + ".norm", "\"" + norm + "\"", "\"layernorm\" or \"rmsnorm\"");
  m.bias = ju::getBoolOr(j, "bias", path, true);
  if (m.hidden_size % m.heads != 0)
    throw InputError(path + ".hidden_size", std::to_string(m.hidden_size),
                     "a multiple of heads (" + std::to_string(m.heads) + ")");
  return m;
}

json RankPlacement::toJson() const {
  return json{{"rank", rank}, {"stage", stage},       {"replica", replica}, {"tp_rank", tp_rank},
              {"tp", tp},     {"gpu_type", gpu_type}, {"zone", zone}};
}

std::vector<int> RunSpec::replicaRanks(int stage, int replica) const {
  std::vector<int> out;
  for (const RankPlacement& r : ranks)
    if (r.stage == stage && r.replica == replica) out.push_back(r.rank);
  return out;
}

std::vector<int> RunSpec::stageRanks(int stage) const {
  std::vector<int> out;
  for (const RankPlacement& r : ranks)
    if (r.stage == stage) out.push_back(r.rank);
  return out;
}

double RunSpec::learningRateAt(int iteration) const {
  if (iteration < warmup_iterations)
    return learning_rate * (iteration + 1) / static_cast<double>(warmup_iterations);
  const int decay = std::max(1, iterations - warmup_iterations);
  const double progress =
      std::min(1.0, (iteration - warmup_iterations) / static_cast<double>(decay));
  return min_learning_rate +
         0.5 * (learning_rate - min_learning_rate) * (1.0 + std::cos(std::numbers::pi * progress));
}

namespace {

// The sequence length the model gets, from --seq-len (`given`) or the job: 1 to
// kMaxRunSequenceLength.
void checkSequenceLength(int sequence_length, bool given) {
  if (sequence_length < 1 || sequence_length > kMaxRunSequenceLength)
    throw InputError(given ? "--seq-len" : "sequence_length", std::to_string(sequence_length),
                     "an integer from 1 to " + std::to_string(kMaxRunSequenceLength));
}

// The catalogue model at its real size, or scaled to this machine (--hidden, --seq-len); heads
// stay either way, as tp must divide them as on the real model.
RuntimeModel runtimeModel(const ModelSpec& spec, const Job& job, const RunOptions& options) {
  RuntimeModel m;
  m.name = spec.name;
  m.layers = spec.layers;
  m.heads = spec.heads;
  m.tied_embeddings = spec.tied_embeddings;
  m.norm = spec.norm;
  m.bias = spec.bias;
  if (options.vocab_size && (*options.vocab_size < 2 || *options.vocab_size > kMaxVocabulary))
    throw InputError("--vocab", std::to_string(*options.vocab_size),
                     "an integer from 2 to " + std::to_string(kMaxVocabulary));
  if (options.real_size) {
    if (options.hidden_size)
      throw InputError("--hidden", std::to_string(*options.hidden_size),
                       "no --hidden with the real-size model (--scale builds a scaled one)");
    if (spec.hidden_size > kMaxRunHiddenSize)  // as --hidden: a worker rebuilds it scaled
      throw InputError(spec.name + " hidden_size", std::to_string(spec.hidden_size),
                       "at most " + std::to_string(kMaxRunHiddenSize) + " for the runtime");
    m.hidden_size = spec.hidden_size;
    m.ffn_hidden_size = spec.ffn_hidden_size;
    m.vocab_size = options.vocab_size.value_or(spec.vocab_size);
    m.sequence_length = options.sequence_length.value_or(job.sequence_length);
    checkSequenceLength(m.sequence_length, options.sequence_length.has_value());
    return m;
  }
  m.hidden_size =
      options.hidden_size.value_or(std::max(kLocalMinHidden, spec.heads * kLocalHeadDim));
  if (m.hidden_size < m.heads || m.hidden_size % m.heads != 0 || m.hidden_size > kMaxRunHiddenSize)
    throw InputError("--hidden", std::to_string(m.hidden_size),
                     "a positive multiple of the model's " + std::to_string(m.heads) +
                         " heads, at most " + std::to_string(kMaxRunHiddenSize));
  const double ffn_ratio = spec.ffn_hidden_size / static_cast<double>(spec.hidden_size);
  const double ffn_units = std::max(1.0, std::round(ffn_ratio * m.hidden_size / m.heads));
  if (ffn_units * m.heads > INT_MAX)
    throw InputError("--hidden", std::to_string(m.hidden_size),
                     "a hidden size whose MLP width (" + spec.name + "'s ratio " +
                         std::to_string(ffn_ratio) + ") fits an int");
  m.ffn_hidden_size = static_cast<int>(ffn_units) * m.heads;
  m.vocab_size = options.vocab_size.value_or(kByteVocabulary);
  m.sequence_length =
      options.sequence_length.value_or(std::min(job.sequence_length, kLocalMaxSequence));
  checkSequenceLength(m.sequence_length, options.sequence_length.has_value());
  return m;
}

// Every tensor a worker builds has at most kMaxTensorElements elements (counted unsharded, in
// double): the weights (vocabulary x hidden, MLP width x hidden, 3 hidden x hidden), one
// microbatch's activations (b x S x the widest of 3 hidden, MLP width and vocabulary: the
// logits) and its attention scores (b x heads x S x S). Each is named by the option that sets
// its largest factor.
void checkTensorSizes(const RuntimeModel& m, int microbatch_size, const RunOptions& options) {
  const double h = m.hidden_size, f = m.ffn_hidden_size, v = m.vocab_size, s = m.sequence_length;
  const double b = microbatch_size;
  struct Tensor {
    const char* what;
    double elements;
    std::string option, value;
  };
  const std::string seq_option = options.sequence_length ? "--seq-len" : "sequence_length";
  const std::string vocab_option = options.vocab_size ? "--vocab" : "vocab_size";
  const std::string hidden_option = options.hidden_size ? "--hidden" : "hidden_size";
  const Tensor tensors[] = {
      {"the attention scores of a microbatch (b x heads x S x S)", b * m.heads * s * s, seq_option,
       std::to_string(m.sequence_length)},
      {"the logits of a microbatch (b x S x vocabulary)", b * s * v, vocab_option,
       std::to_string(m.vocab_size)},
      {"the activations of a microbatch (b x S x max(3 hidden, MLP width))",
       b * s * std::max(3 * h, f), seq_option, std::to_string(m.sequence_length)},
      {"the embedding (vocabulary x hidden)", v * h, vocab_option, std::to_string(m.vocab_size)},
      {"the MLP weights (MLP width x hidden)", f * h, hidden_option, std::to_string(m.hidden_size)},
      {"the position embedding (S x hidden)", s * h, seq_option,
       std::to_string(m.sequence_length)}};
  for (const Tensor& t : tensors)
    if (!(t.elements <= kMaxTensorElements))
      throw InputError(t.option, t.value,
                       std::string("a model whose tensors have at most 2^50 elements: ") + t.what +
                           " would have " + std::to_string(t.elements) + " at microbatch " +
                           std::to_string(microbatch_size));
}

// The plan against the runtime's model: contiguous stages covering every layer, the same
// number of replicas in every stage, tp dividing the heads.
void checkPlan(const Plan& plan, const ModelSpec& spec, int heads) {
  if (plan.stages.empty()) throw InputError("stages", "[]", "at least one stage");
  if (plan.microbatch_size < 1)
    throw InputError("microbatch_size", std::to_string(plan.microbatch_size), "an integer >= 1");
  int next = 0;
  for (std::size_t s = 0; s < plan.stages.size(); ++s) {
    const Stage& st = plan.stages[s];
    const std::string path = "stages[" + std::to_string(s) + "]";
    if (st.first_layer != next)
      throw InputError(path + ".first_layer", std::to_string(st.first_layer),
                       std::to_string(next) + " (stages cover the layers contiguously)");
    if (st.last_layer < st.first_layer || st.last_layer > spec.numPlanLayers() - 1)
      throw InputError(path + ".last_layer", std::to_string(st.last_layer),
                       "a layer in " + std::to_string(st.first_layer) + ".." +
                           std::to_string(spec.numPlanLayers() - 1) + " (" + spec.name + " has " +
                           std::to_string(spec.numPlanLayers()) + " plan layers)");
    next = st.last_layer + 1;
    if (st.replicas.size() != plan.stages[0].replicas.size())
      throw InputError(
          path + ".replicas", std::to_string(st.replicas.size()) + " replicas",
          std::to_string(plan.stages[0].replicas.size()) +
              " like stage 0 (the runtime runs replica d of every stage as pipeline d)");
    for (std::size_t k = 0; k < st.replicas.size(); ++k) {
      const int tp = st.replicas[k].tp;
      const std::string rp = path + ".replicas[" + std::to_string(k) + "].tp";
      if (tp < 1) throw InputError(rp, std::to_string(tp), "an integer >= 1");
      if (heads % tp != 0)
        throw InputError(rp, std::to_string(tp),
                         "a divisor of " + spec.name + "'s " + std::to_string(heads) + " heads");
    }
  }
  if (next != spec.numPlanLayers())
    throw InputError("stages[" + std::to_string(plan.stages.size() - 1) + "].last_layer",
                     std::to_string(next - 1),
                     std::to_string(spec.numPlanLayers() - 1) + " (the last layer of " + spec.name +
                         ": its stages must cover every layer)");
}

// The training settings that do not depend on the plan.
void checkOptions(const RunOptions& options) {
  if (options.iterations < 1)
    throw InputError("--iterations", std::to_string(options.iterations), "an integer >= 1");
  if (options.dtype != "float32" && options.dtype != "float64")
    throw InputError("--dtype", "\"" + options.dtype + "\"", "\"float32\" or \"float64\"");
  if (options.data_format != "synthetic" && options.data_format != "text" &&
      options.data_format != "tokens")
    throw InputError("data_format", "\"" + options.data_format + "\"",
                     "\"synthetic\", \"text\" or \"tokens\"");
  if (options.data_format == "tokens" && !options.vocab_size)
    throw InputError("--vocab", "nothing", "the token file's vocabulary (--data FILE --vocab N)");
  if (options.data_format != "tokens" && options.vocab_size)
    throw InputError("--vocab", std::to_string(*options.vocab_size),
                     "a token file (--data FILE --vocab N); synthetic and text data are bytes");
  if (options.backend != "auto" && options.backend != "gloo" && options.backend != "nccl")
    throw InputError("--backend", "\"" + options.backend + "\"", "\"auto\", \"gloo\" or \"nccl\"");
  if (!(options.learning_rate > 0) || !(options.min_learning_rate >= 0) ||
      options.min_learning_rate > options.learning_rate)
    throw InputError(
        "--lr", std::to_string(options.learning_rate),
        "a positive rate not below the minimum rate " + std::to_string(options.min_learning_rate));
  if (options.warmup_iterations < 0)
    throw InputError("--warmup", std::to_string(options.warmup_iterations), "an integer >= 0");
  if (!(options.grad_clip >= 0))
    throw InputError("--grad-clip", std::to_string(options.grad_clip), "a number >= 0 (0: off)");
  if (options.bucket_elements < 1)
    throw InputError("--bucket-elements", std::to_string(options.bucket_elements),
                     "an integer >= 1");
}

}  // namespace

std::vector<RankPlacement> placeRanks(const Plan& plan) {
  std::vector<RankPlacement> ranks;
  int rank = 0;
  for (std::size_t s = 0; s < plan.stages.size(); ++s)
    for (std::size_t d = 0; d < plan.stages[s].replicas.size(); ++d) {
      const Replica& rep = plan.stages[s].replicas[d];
      for (int t = 0; t < rep.tp; ++t)
        ranks.push_back(RankPlacement{rank++, static_cast<int>(s), static_cast<int>(d), t, rep.tp,
                                      rep.gpu_type, rep.zone});
    }
  return ranks;
}

RunSpec RunSpec::build(const Plan& plan, const Job& job, const ModelSpec& spec,
                       const RunOptions& options) {
  RunSpec r;
  r.model = runtimeModel(spec, job, options);
  checkPlan(plan, spec, r.model.heads);

  // The bundled runtime sums the gradients over the replicas after the pipeline drains or, with
  // overlap_grad_reduce, during the last microbatch's backward; every replica keeps the whole
  // optimizer state, its share of it (the distributed optimizer) or its share of everything (fully
  // sharded); 1F1B, plain or interleaved; no or full recomputation. A plan asking for more is
  // refused rather than run otherwise than planned.
  const Schedule& sch = plan.schedule;
  auto refuse = [](const std::string& field, const std::string& got, const std::string& want) {
    throw InputError(field, got, want + " (what the bundled runtime runs)");
  };
  if (sch.sharding != DpSharding::None && plan.stages[0].replicas.size() < 2)
    throw InputError("schedule.sharding", std::string("\"") + dpShardingName(sch.sharding) + "\"",
                     "\"none\" for a plan whose stages have one replica (stage 0 has " +
                         std::to_string(plan.stages[0].replicas.size()) +
                         "): sharding spreads the state over a stage's replicas");
  plan.checkInterleaving();
  const Recompute rc = plan.effectiveJob(job).recompute;
  if (rc == Recompute::Selective)
    refuse(sch.recompute ? "schedule.recompute" : "recompute", "\"selective\"",
           "\"none\" or \"full\"");
  r.plan = plan;
  r.data_parallel = static_cast<int>(plan.stages[0].replicas.size());
  r.global_batch_size = options.global_batch_size.value_or(job.global_batch_size);
  if (options.global_batch_size &&
      (*options.global_batch_size < 1 || *options.global_batch_size > kMaxGlobalBatchSize))
    throw InputError("--global-batch", std::to_string(*options.global_batch_size),
                     "an integer from 1 to " + std::to_string(kMaxGlobalBatchSize) +
                         " (sequences per iteration, as the job's global_batch_size)");
  plan.checkGlobalBatch(r.global_batch_size);
  r.microbatches = r.pipelineMicrobatches(0);
  // Fully sharded, the replicas of a stage gather and reduce each layer together for every
  // microbatch: every pipeline runs the same number.
  if (sch.sharding == DpSharding::Full)
    for (int d = 1; d < r.data_parallel; ++d)
      if (r.pipelineMicrobatches(d) != r.microbatches)
        throw InputError("schedule.sharding", "\"full\"",
                         "a global batch that gives every pipeline the same number of "
                         "microbatches (pipeline 0 runs " +
                             std::to_string(r.microbatches) + ", pipeline " + std::to_string(d) +
                             " runs " + std::to_string(r.pipelineMicrobatches(d)) +
                             "): fully sharded replicas gather and reduce every layer together "
                             "for each microbatch");
  checkTensorSizes(r.model, plan.microbatch_size, options);

  checkOptions(options);
  r.training() = options.training();
  r.precision = job.precision;
  r.optimizer = job.optimizer;
  r.recompute = rc;

  r.ranks = placeRanks(plan);
  return r;
}

double rankMemoryBytes(const RunSpec& spec, int rank) {
  const RankPlacement& place = spec.ranks.at(static_cast<std::size_t>(rank));
  const RuntimeModel& m = spec.model;
  ModelSpec model;
  model.name = m.name;
  model.layers = m.layers;
  model.hidden_size = m.hidden_size;
  model.heads = m.heads;
  model.kv_heads = m.heads;
  model.ffn_hidden_size = m.ffn_hidden_size;
  model.vocab_size = m.vocab_size;
  model.sequence_length = m.sequence_length;
  model.max_position_embeddings = m.sequence_length;  // the runtime's learned positions
  model.tied_embeddings = m.tied_embeddings;
  model.norm = m.norm;
  model.bias = m.bias;
  Job job;
  job.precision = spec.precision;
  job.optimizer = spec.optimizer;
  job.recompute = spec.recompute;
  const std::vector<LayerInfo> layers =
      deriveLayers(model, m.sequence_length, place.tp, job.activationBytesPerElement());
  const Stage& stage = spec.plan.stages.at(static_cast<std::size_t>(place.stage));
  double params = 0, activations = 0, largest = 0;
  for (const auto& [first, last] : spec.plan.chunkLayers(static_cast<std::size_t>(place.stage)))
    for (int l = first; l <= last; ++l) {
      const LayerInfo& layer = layers.at(static_cast<std::size_t>(l));
      params += layer.params;
      largest = std::max(largest, layer.activation_bytes);
      // NOTE [Activation recomputation] in profile.cpp: a block then keeps only its input.
      const bool block = layer.kind == LayerKind::Block;
      activations += block && job.recompute == Recompute::Full
                         ? std::min(layer.activation_bytes,
                                    layers.at(static_cast<std::size_t>(l) - 1).output_elements *
                                        job.activationBytesPerElement())
                         : layer.activation_bytes;
    }
  const int stages = static_cast<int>(spec.plan.stages.size());
  const int mbs = spec.pipelineMicrobatches(place.replica), v = spec.plan.schedule.virtual_stages;
  int in_flight = std::min(stages - place.stage, mbs);
  if (v > 1) {  // the simulator's count: the warm-up's chunks and the one computing, 1/v each
    activations *= std::min(mbs * v, interleavedWarmup(stages, place.stage, mbs, v) + 1) /
                   static_cast<double>(v);
    in_flight = 1;
  }
  // The share of the state sharding leaves, and the bucket copies the runtime's reduction makes
  // (replicaMemoryBytes counts none for a sharded schedule; fully sharded, the runtime's buffers
  // are a unit's at a time, which the gathered units' transient covers).
  Schedule sharded;
  sharded.sharding = spec.plan.schedule.sharding;
  const double bytes =
      replicaMemoryBytes(params, activations, largest, spec.plan.microbatch_size, in_flight, job,
                         GpuType{}, sharded, static_cast<int>(stage.replicas.size())) +
      (sharded.sharding == DpSharding::Optimizer ? gradientBucketBytes(params, job) : 0.0);
  return spec.dtype == "float64" ? 2 * bytes : bytes;
}

namespace {

// The training settings' keys of a spec file: written beside the spec's own (an object's keys
// are sorted when it is written), read back with InputErrors naming the key.
void trainingToJson(const TrainingSettings& t, json& j) {
  j["iterations"] = t.iterations;
  j["seed"] = t.seed;
  j["data"] = t.data;
  j["data_format"] = t.data_format;
  j["dtype"] = t.dtype;
  j["backend"] = t.backend;
  j["learning_rate"] = t.learning_rate;
  j["min_learning_rate"] = t.min_learning_rate;
  j["warmup_iterations"] = t.warmup_iterations;
  j["grad_clip"] = t.grad_clip;
  j["weight_decay"] = t.weight_decay;
  j["bucket_elements"] = t.bucket_elements;
}

TrainingSettings trainingFromJson(const json& j) {
  TrainingSettings t;
  t.iterations = ju::getInt32(j, "iterations", "", 1);
  t.seed = j.at("seed").get<std::uint64_t>();
  t.data = ju::getString(j, "data", "");
  // Specs written before token files: synthetic or a text file.
  t.data_format =
      ju::getStringOr(j, "data_format", "", t.data == "synthetic" ? "synthetic" : "text");
  t.dtype = ju::getString(j, "dtype", "");
  t.backend = ju::getString(j, "backend", "");
  t.learning_rate = ju::getNumber(j, "learning_rate", "");
  t.min_learning_rate = ju::getNumber(j, "min_learning_rate", "");
  t.warmup_iterations = ju::getInt32(j, "warmup_iterations", "", 0);
  t.grad_clip = ju::getNumber(j, "grad_clip", "");
  t.weight_decay = ju::getNumber(j, "weight_decay", "");
  t.bucket_elements = ju::getInt(j, "bucket_elements", "", 1);
  return t;
}

}  // namespace

json RunSpec::toJson() const {
  json j{{"format", "sailor-run-spec/1"},
         {"model", model.toJson()},
         {"plan", plan.toJson()},
         {"global_batch_size", global_batch_size},
         {"precision", precisionName(precision)},
         {"optimizer", optimizerName(optimizer)},
         {"recompute", recomputeName(recompute)}};
  trainingToJson(training(), j);
  return j;
}

RunSpec RunSpec::fromJson(const json& j) {
  ju::requireObject(j, "run spec");
  const std::string format = ju::getString(j, "format", "run spec");
  if (format != "sailor-run-spec/1")
    throw InputError("format", "\"" + format + "\"", "\"sailor-run-spec/1\"");
  const RuntimeModel model = RuntimeModel::fromJson(ju::require(j, "model", ""), "model");
  // Rebuild through build() so that a worker checks exactly what the controller checked.
  ModelSpec spec;
  spec.name = model.name;
  spec.layers = model.layers;
  spec.hidden_size = model.hidden_size;
  spec.heads = model.heads;
  spec.ffn_hidden_size = model.ffn_hidden_size;
  spec.tied_embeddings = model.tied_embeddings;
  spec.norm = model.norm;
  spec.bias = model.bias;
  Job job;
  job.model = model.name;
  job.sequence_length = model.sequence_length;
  job.global_batch_size = ju::getInt32(j, "global_batch_size", "", 1);
  job.precision = parsePrecision(ju::getString(j, "precision", ""), "precision");
  job.optimizer = parseOptimizer(ju::getString(j, "optimizer", ""), "optimizer");
  job.recompute = parseRecompute(ju::getString(j, "recompute", ""), "recompute");
  RunOptions o;
  o.hidden_size = model.hidden_size;
  o.sequence_length = model.sequence_length;
  o.training() = trainingFromJson(j);
  if (o.data_format == "tokens") o.vocab_size = model.vocab_size;
  RunSpec r = build(Plan::fromJson(ju::require(j, "plan", "")), job, spec, o);
  r.model.ffn_hidden_size = model.ffn_hidden_size;  // exact, not re-derived
  r.model.vocab_size = model.vocab_size;
  return r;
}

}  // namespace sailor
