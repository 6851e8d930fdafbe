// Job: what to train. Validated on construction against the model catalogue.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sailor/model/catalog.hpp"

namespace sailor {

enum class Precision { Fp32, Bf16, Fp16 };  // bf16/fp16: mixed precision with fp32 master
enum class Optimizer { Adam, Sgd };
// Activation recomputation (NOTE [Activation recomputation] in profile.cpp). None keeps every
// block's activations for backward; Full keeps only each block's input and recomputes the
// block's forward during its backward (Megatron's --recompute-granularity full, uniform, 1);
// Selective keeps all but the attention core's (softmax, dropout, the score matrices) and
// recomputes that part (Megatron's --recompute-granularity selective; Korthikanti et al.).
enum class Recompute { None, Full, Selective };

const char* precisionName(Precision p);
const char* optimizerName(Optimizer o);
const char* recomputeName(Recompute r);
// The inverses, for the names above (and "adamw" for Adam); InputError naming `field` otherwise.
Precision parsePrecision(const std::string& name, const std::string& field);
Optimizer parseOptimizer(const std::string& name, const std::string& field);
Recompute parseRecompute(const std::string& name, const std::string& field);

// Whether the GPU has arithmetic for the precision: fp32 and fp16 everywhere, bf16 only with a
// bf16 rate in the catalogue (Ampere and later, CDNA 3; not V100, T4 or the Turing cards, where
// frameworks refuse bf16 or emulate it far below the fp16 rate).
bool supportsPrecision(const GpuType& gpu, Precision p);

// Sequences per iteration, at most: far above any real job (GPT-3 used 1,536, Llama 2 1,024 of
// 4,096 tokens); the simulator's schedule grows with the microbatches, and 2^31 - 1 sequences
// would take an hour to simulate.
inline constexpr int kMaxGlobalBatchSize = 1'000'000;
// Bounds of the run's budget: 1e18 tokens (Llama 3 trained 15.6e12), 1e15 iterations, a century
// of days, 1e15 USD.
inline constexpr double kMaxTrainingTokens = 1e18;
inline constexpr double kMaxTrainingIterations = 1e15;
inline constexpr double kMaxDeadlineDays = 36500;
inline constexpr double kMaxBudgetUsd = 1e15;

struct Job {
  std::string model;          // catalogue name (aliases are resolved to the name)
  int global_batch_size = 0;  // sequences per iteration, 1 to kMaxGlobalBatchSize
  int sequence_length = 0;
  Precision precision = Precision::Fp32;
  Optimizer optimizer = Optimizer::Adam;
  Recompute recompute = Recompute::None;
  // Set from the plan's schedule (Plan::effectiveJob), not part of the job format: activations
  // outside the tensor-parallel regions split over the tp ranks (profile.cpp).
  bool sequence_parallel = false;
  bool fused_attention = false;  // likewise (Schedule::fused_attention)
  bool tp_comm_overlap = false;  // likewise (Schedule::tp_comm_overlap)
  // The whole run (docs/planner.md, "Days and dollars"), each optional: what it trains, tokens
  // (kMaxTrainingTokens) or iterations, not both; and within what, a deadline in days of wall
  // clock and a budget in USD, which the planner treats as constraints.
  std::optional<double> training_tokens;
  std::optional<double> training_iterations;
  std::optional<double> deadline_days;
  std::optional<double> budget_usd;
  // The iterations the budget asks for: iterations, or tokens over tokens per iteration rounded
  // up; nullopt without a budget.
  std::optional<double> trainingIterations() const;

  int activationBytesPerElement() const { return precision == Precision::Fp32 ? 4 : 2; }
  // Bytes of model state per parameter on the GPU that holds it: weights, gradients,
  // optimizer state and fp32 master copy. NOTE [Model-state bytes] in job.cpp.
  double stateBytesPerParameter() const;

  static Job fromJson(const nlohmann::json& j, const Catalog& catalog);
  nlohmann::json toJson() const;
};

}  // namespace sailor
