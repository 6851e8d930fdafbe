// The job: model, batch, sequence length, precision, optimizer, recomputation. Declared in
// sailor/model/job.hpp.
//
// Map:
//   precisionName, optimizerName, recomputeName, parse*   enum names and their parsing
//   supportsPrecision                                      whether a GPU type can run it
//   Job::stateBytesPerParameter                            NOTE [Model-state bytes]
//   Job::fromJson, toJson                                  validated against the catalogue
#include "sailor/model/job.hpp"

#include <cctype>
#include <cmath>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"

namespace sailor {

using nlohmann::json;
namespace ju = json_util;

namespace {

// An optional budget field: absent or null, else a number above 0 and at most `max`.
std::optional<double> budgetField(const json& j, const std::string& key, double max,
                                  const std::string& unit) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  const json& v = j.at(key);
  const double x = v.is_number() ? v.get<double>() : 0.0;
  if (!v.is_number() || !std::isfinite(x) || x <= 0 || x > max)
    throw InputError(key, ju::describe(v),
                     "a number above 0 and at most " + toText(max) + " (" + unit + ")");
  return x;
}

}  // namespace

const char* precisionName(Precision p) {
  switch (p) {
    case Precision::Fp32: return "fp32";
    case Precision::Bf16: return "bf16";
    case Precision::Fp16: return "fp16";
  }
  return "?";
}

const char* optimizerName(Optimizer o) {
  return o == Optimizer::Adam ? "adam" : "sgd";
}

const char* recomputeName(Recompute r) {
  switch (r) {
    case Recompute::None: return "none";
    case Recompute::Full: return "full";
    case Recompute::Selective: return "selective";
  }
  return "?";
}

Precision parsePrecision(const std::string& p, const std::string& field) {
  if (p == "fp32") return Precision::Fp32;
  if (p == "bf16") return Precision::Bf16;
  if (p == "fp16") return Precision::Fp16;
  throw InputError(field, "\"" + p + "\"", "\"fp32\", \"bf16\" or \"fp16\"");
}

Optimizer parseOptimizer(const std::string& name, const std::string& field) {
  std::string o = name;
  for (auto& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (o == "adam" || o == "adamw") return Optimizer::Adam;
  if (o == "sgd") return Optimizer::Sgd;
  throw InputError(field, "\"" + o + "\"", "\"adam\" or \"sgd\"");
}

Recompute parseRecompute(const std::string& r, const std::string& field) {
  if (r == "none") return Recompute::None;
  if (r == "full") return Recompute::Full;
  if (r == "selective") return Recompute::Selective;
  throw InputError(field, "\"" + r + "\"", "\"none\", \"selective\" or \"full\"");
}

bool supportsPrecision(const GpuType& gpu, Precision p) {
  return p != Precision::Bf16 || gpu.bf16_tflops.has_value();
}

// NOTE [Model-state bytes]
// Per parameter held by a GPU, without ZeRO sharding (Megatron-DeepSpeed, data parallelism by
// gradient all-reduce):
//   fp32 + Adam: weights 4 + gradients 4 + exp_avg 4 + exp_avg_sq 4            = 16
//   fp32 + SGD (momentum): weights 4 + gradients 4 + momentum 4                = 12
//   bf16/fp16 + Adam: weights 2 + fp32 main gradients 4 + fp32 master 4 + 8   = 18
//   bf16/fp16 + SGD: weights 2 + fp32 main gradients 4 + fp32 master 4 + 4    = 14
// (Megatron accumulates and all-reduces mixed-precision gradients in fp32 by default.)
double Job::stateBytesPerParameter() const {
  const bool adam = optimizer == Optimizer::Adam;
  if (precision == Precision::Fp32) return adam ? 16.0 : 12.0;
  return adam ? 18.0 : 14.0;
}

Job Job::fromJson(const json& j, const Catalog& catalog) {
  ju::rejectUnknownKeys(
      j,
      {"model", "global_batch_size", "sequence_length", "precision", "optimizer", "recompute",
       "training_tokens", "training_iterations", "deadline_days", "budget_usd"},
      "");
  Job job;
  const ModelSpec& m = catalog.model(ju::getString(j, "model", ""), "model");
  job.model = m.name;
  job.global_batch_size = ju::getInt32(j, "global_batch_size", "", 1);
  if (job.global_batch_size > kMaxGlobalBatchSize)
    throw InputError("global_batch_size", std::to_string(job.global_batch_size),
                     "an integer from 1 to 1000000 (sequences per iteration)");
  job.sequence_length = ju::getInt32Or(j, "sequence_length", "", 1, m.sequence_length);
  if (job.sequence_length > kMaxSequenceLength)
    throw InputError("sequence_length", std::to_string(job.sequence_length),
                     "an integer from 1 to 10000000 (tokens per sequence)");
  if (job.sequence_length > m.max_position_embeddings &&
      m.position_embedding == PositionEmbedding::Learned)
    throw InputError("sequence_length", std::to_string(job.sequence_length),
                     "at most " + std::to_string(m.max_position_embeddings) +
                         " (the learned position table of " + m.name + ")");
  job.precision = parsePrecision(ju::getStringOr(j, "precision", "", "fp32"), "precision");
  job.optimizer = parseOptimizer(ju::getStringOr(j, "optimizer", "", "adam"), "optimizer");
  job.recompute = parseRecompute(ju::getStringOr(j, "recompute", "", "none"), "recompute");
  job.training_tokens = budgetField(j, "training_tokens", kMaxTrainingTokens, "tokens");
  job.training_iterations =
      budgetField(j, "training_iterations", kMaxTrainingIterations, "iterations");
  if (job.training_tokens && job.training_iterations)
    throw InputError("training_iterations", ju::describe(j.at("training_iterations")),
                     "absent when training_tokens is given (one budget or the other)");
  job.deadline_days = budgetField(j, "deadline_days", kMaxDeadlineDays, "days of wall clock");
  job.budget_usd = budgetField(j, "budget_usd", kMaxBudgetUsd, "USD");
  return job;
}

std::optional<double> Job::trainingIterations() const {
  if (training_iterations) return std::ceil(*training_iterations);
  if (!training_tokens) return std::nullopt;
  const double per_iteration = static_cast<double>(global_batch_size) * sequence_length;
  return std::ceil(*training_tokens / per_iteration);
}

json Job::toJson() const {
  json j{{"model", model},
         {"global_batch_size", global_batch_size},
         {"sequence_length", sequence_length},
         {"precision", precisionName(precision)},
         {"optimizer", optimizerName(optimizer)}};
  if (recompute != Recompute::None)
    j["recompute"] = recomputeName(recompute);  // "none" is the default
  if (training_tokens) j["training_tokens"] = *training_tokens;
  if (training_iterations) j["training_iterations"] = *training_iterations;
  if (deadline_days) j["deadline_days"] = *deadline_days;
  if (budget_usd) j["budget_usd"] = *budget_usd;
  return j;
}

}  // namespace sailor
