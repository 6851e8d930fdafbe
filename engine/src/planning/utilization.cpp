// Model FLOPs utilisation of a plan (sailor/planning/utilization.hpp).
#include "sailor/planning/utilization.hpp"

#include <cmath>

namespace sailor {

// NOTE [Model FLOPs]
// The model FLOPs of a training token are PaLM's (Chowdhery et al., "PaLM: Scaling Language
// Modeling with Pathways", 2022, Appendix B): 6 N + 12 L H Q T, for N parameters, L layers, H
// heads of dimension Q (H Q = the hidden size h) and sequence length T. 6 N is the forward
// (2 N) and backward (4 N) matrix multiplications with the weights; 12 L h T the attention's
// two score products (Q K^T and the scores times V), forward and backward, over the whole
// T x T matrix (no halving for the causal mask, as PaLM). Recomputed forward passes are not
// counted: MFU counts the model's FLOPs, not the hardware's (PaLM, Appendix B), the quantity
// Megatron-LM's num_floating_point_operations gives without activation recomputation.
// N counts the parameters a token multiplies with: every block's, the final norm's and the
// LM head's (h x V, once when tied to the embedding), not the input embedding table or learned
// position embeddings, which are looked up (torchtitan's get_num_flop_per_token counts the same
// way: the model's parameters less the token embedding's). With this catalogue's plan layers:
// the parameters of layers 1 .. L + 1 at tp 1.
double modelFlopsPerToken(const ModelSpec& model, int sequence_length) {
  const std::vector<LayerInfo> layers = deriveLayers(model, sequence_length, 1, 2);
  double n = 0;
  for (size_t l = 1; l < layers.size(); ++l) n += layers[l].params;
  return 6 * n + 12.0 * model.layers * model.hidden_size * static_cast<double>(sequence_length);
}

double modelFlopsPerIteration(const ModelSpec& model, const Job& job) {
  return modelFlopsPerToken(model, job.sequence_length) *
         static_cast<double>(job.global_batch_size) * job.sequence_length;
}

std::optional<double> peakFlopsPerSecond(const GpuType& gpu, Precision precision) {
  switch (precision) {
    case Precision::Fp32: return gpu.fp32_tflops * 1e12;
    case Precision::Fp16: return gpu.fp16_tflops * 1e12;
    case Precision::Bf16:
      if (!gpu.bf16_tflops) return std::nullopt;
      return *gpu.bf16_tflops * 1e12;
  }
  return std::nullopt;
}

double peakFlopsPerSecond(const Plan& plan, const Job& job, const Catalog& catalog) {
  double sum = 0;
  for (const Stage& st : plan.stages)
    for (const Replica& r : st.replicas) {
      const auto peak = peakFlopsPerSecond(catalog.gpu(r.gpu_type, "gpu_type"), job.precision);
      if (!peak) return 0;
      sum += r.tp * *peak;
    }
  return sum;
}

std::optional<Utilization> modelFlopsUtilization(const Plan& plan, const Job& job,
                                                 const Catalog& catalog, double iteration_s) {
  if (!(iteration_s > 0) || !std::isfinite(iteration_s)) return std::nullopt;
  Utilization u;
  u.gpus = plan.gpuCount();
  u.peak_flops_per_s = peakFlopsPerSecond(plan, job, catalog);
  if (u.gpus <= 0 || !(u.peak_flops_per_s > 0)) return std::nullopt;
  u.model_flops_per_iteration = modelFlopsPerIteration(catalog.model(job.model, "model"), job);
  const double per_s = u.model_flops_per_iteration / iteration_s;
  u.mfu = per_s / u.peak_flops_per_s;
  u.model_tflops_per_gpu = per_s / u.gpus / 1e12;
  return u;
}

}  // namespace sailor
