// The run specification: a plan mapped onto ranks (one per GPU), the model the workers build
// and the training settings; built by the controller, read by every worker. Declared in
// sailor/run_spec.hpp; see docs/runtime.md.
//
// Map:
//   normName, RuntimeModel::toJson/fromJson     the model the workers build
//   RankPlacement::toJson                        one rank's stage, replica and tp rank
//   RunSpec::replicaRanks, stageRanks            ranks of a replica, of a stage
//   RunSpec::learningRateAt                      the schedule (warm-up, then cosine)
//   scaledModel, checkPlan, checkOptions,        RunSpec::build's steps: the model scaled to
//   RunSpec::build                                 this machine, the plan and settings checked
//   placeRanks                                   one rank per GPU (also the exports' numbering)
//   RunSpec::toJson, fromJson                    the file every worker reads
#include "sailor/run_spec.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "sailor/error.hpp"
#include "sailor/json_util.hpp"

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
    m.hidden_size = spec.hidden_size;
    m.ffn_hidden_size = spec.ffn_hidden_size;
    m.vocab_size = options.vocab_size.value_or(spec.vocab_size);
    m.sequence_length = options.sequence_length.value_or(job.sequence_length);
    if (m.sequence_length < 1)
      throw InputError("--seq-len", std::to_string(m.sequence_length), "an integer >= 1");
    return m;
  }
  m.hidden_size =
      options.hidden_size.value_or(std::max(kLocalMinHidden, spec.heads * kLocalHeadDim));
  if (m.hidden_size < m.heads || m.hidden_size % m.heads != 0)
    throw InputError("--hidden", std::to_string(m.hidden_size),
                     "a positive multiple of the model's " + std::to_string(m.heads) + " heads");
  const double ffn_ratio = spec.ffn_hidden_size / static_cast<double>(spec.hidden_size);
  const int ffn_units =
      std::max(1, static_cast<int>(std::lround(ffn_ratio * m.hidden_size / m.heads)));
  m.ffn_hidden_size = ffn_units * m.heads;
  m.vocab_size = options.vocab_size.value_or(kByteVocabulary);
  m.sequence_length =
      options.sequence_length.value_or(std::min(job.sequence_length, kLocalMaxSequence));
  if (m.sequence_length < 1)
    throw InputError("--seq-len", std::to_string(m.sequence_length), "an integer >= 1");
  return m;
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

  checkOptions(options);
  r.iterations = options.iterations;
  r.seed = options.seed;
  r.data = options.data;
  r.data_format = options.data_format;
  r.dtype = options.dtype;
  r.backend = options.backend;
  r.learning_rate = options.learning_rate;
  r.min_learning_rate = options.min_learning_rate;
  r.warmup_iterations = options.warmup_iterations;
  r.grad_clip = options.grad_clip;
  r.weight_decay = options.weight_decay;
  r.bucket_elements = options.bucket_elements;
  r.precision = job.precision;
  r.optimizer = job.optimizer;
  r.recompute = job.recompute;

  r.ranks = placeRanks(plan);
  return r;
}

json RunSpec::toJson() const {
  return json{{"format", "sailor-run-spec/1"},
              {"model", model.toJson()},
              {"plan", plan.toJson()},
              {"global_batch_size", global_batch_size},
              {"iterations", iterations},
              {"seed", seed},
              {"data", data},
              {"data_format", data_format},
              {"dtype", dtype},
              {"backend", backend},
              {"learning_rate", learning_rate},
              {"min_learning_rate", min_learning_rate},
              {"warmup_iterations", warmup_iterations},
              {"grad_clip", grad_clip},
              {"weight_decay", weight_decay},
              {"bucket_elements", bucket_elements},
              {"precision", precisionName(precision)},
              {"optimizer", optimizerName(optimizer)},
              {"recompute", recomputeName(recompute)}};
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
  o.iterations = ju::getInt32(j, "iterations", "", 1);
  o.seed = j.at("seed").get<std::uint64_t>();
  o.data = ju::getString(j, "data", "");
  // Specs written before token files: synthetic or a text file.
  o.data_format =
      ju::getStringOr(j, "data_format", "", o.data == "synthetic" ? "synthetic" : "text");
  if (o.data_format == "tokens") o.vocab_size = model.vocab_size;
  o.dtype = ju::getString(j, "dtype", "");
  o.backend = ju::getString(j, "backend", "");
  o.learning_rate = ju::getNumber(j, "learning_rate", "");
  o.min_learning_rate = ju::getNumber(j, "min_learning_rate", "");
  o.warmup_iterations = ju::getInt32(j, "warmup_iterations", "", 0);
  o.grad_clip = ju::getNumber(j, "grad_clip", "");
  o.weight_decay = ju::getNumber(j, "weight_decay", "");
  o.bucket_elements = ju::getInt(j, "bucket_elements", "", 1);
  RunSpec r = build(Plan::fromJson(ju::require(j, "plan", "")), job, spec, o);
  r.model.ffn_hidden_size = model.ffn_hidden_size;  // exact, not re-derived
  r.model.vocab_size = model.vocab_size;
  return r;
}

}  // namespace sailor
