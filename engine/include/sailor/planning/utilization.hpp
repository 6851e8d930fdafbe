// Model FLOPs utilisation (MFU) of a plan: the model's FLOPs per iteration, divided by the
// iteration time and by the dense peak rate of the plan's GPUs in the job's precision.
// NOTE [Model FLOPs] in utilization.cpp gives the formula and its sources.
#pragma once

#include <optional>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/planning/plan.hpp"

namespace sailor {

// FLOPs of one token's forward and backward pass through the model at sequence length
// `sequence_length`, recomputation not counted: 6 N + 12 L h s (NOTE [Model FLOPs]).
double modelFlopsPerToken(const ModelSpec& model, int sequence_length);
// modelFlopsPerToken x the iteration's tokens (global batch x sequence length).
double modelFlopsPerIteration(const ModelSpec& model, const Job& job);

// The dense peak of one GPU of `gpu` in `precision`, FLOP/s: the catalogue's bf16_tflops,
// fp16_tflops or fp32_tflops (the rate AnalyticProfile takes); nullopt for bf16 on a GPU type
// without a bf16 rate.
std::optional<double> peakFlopsPerSecond(const GpuType& gpu, Precision precision);
// The sum over the plan's GPUs (tp of each replica of each stage) of each one's dense peak in
// the job's precision, FLOP/s; 0 when one of them has no rate in it. Throws InputError for a
// GPU type the catalogue lacks.
double peakFlopsPerSecond(const Plan& plan, const Job& job, const Catalog& catalog);

struct Utilization {
  double model_flops_per_iteration = 0;
  double peak_flops_per_s = 0;  // the plan's GPUs together
  int gpus = 0;
  double mfu = 0;  // model FLOPs per second / peak_flops_per_s, a fraction
  // Model FLOPs per second per GPU, 1e12 FLOP/s.
  double model_tflops_per_gpu = 0;
};

// The plan's MFU at `iteration_s` seconds per iteration (the simulator's
// Prediction::iteration_s); nullopt when the iteration time is not positive, the plan has no
// GPUs or one of them has no rate in the job's precision. Throws InputError for a model or GPU
// type the catalogue lacks.
std::optional<Utilization> modelFlopsUtilization(const Plan& plan, const Job& job,
                                                 const Catalog& catalog, double iteration_s);

}  // namespace sailor
