// Profiles: per (model, GPU type, microbatch size, tp, plan layer) forward and backward
// seconds, optimizer-step cost and per-layer memory figures. One interface, three sources:
//  - NativeProfile: this project's file format (docs/formats.md, "Profile").
//  - SailorProfile: SAILOR's profiler output (simulator_profiles.json + llm_info.json).
//  - AnalyticProfile: an estimate from the catalogue's datasheet rates and the layer's FLOPs
//    and bytes, with efficiency factors calibrated against measured profiles (docs/simulator.md).
// A ProfileSet asks its sources in order and reports which one answered.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"

namespace sailor {

// Bounds on a profile's figures, in this project's format and SAILOR's (docs/formats.md): far
// above any real layer (the largest blocks hold about 2e9 parameters and take seconds per
// microbatch; an optimizer step takes nanoseconds per parameter), so that only slips are
// refused: 1e308, which would overflow the predictions, or a negative time.
inline constexpr double kMaxLayerSeconds = 3600;          // forward, backward, SAILOR's update
inline constexpr double kMaxLayerElements = 1e12;         // parameters, output elements, floats
inline constexpr double kMaxLayerActivationBytes = 1e13;  // kept for backward, per sequence
inline constexpr double kMaxOptimizerSecondsPerParameter = 1e-3;

struct ProfileKey {
  std::string model;  // catalogue name
  std::string gpu_type;
  int microbatch_size = 1;
  int tp = 1;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads the defaulted comparison
  auto operator<=>(const ProfileKey&) const = default;
};

struct LayerTiming {
  double forward_s = 0;  // one microbatch, tensor-parallel communication included
  double backward_s = 0;
  // The attention core's part of forward_s (QK^T, softmax, dropout, the product with V): what
  // selective recomputation runs again. Sources that do not split it leave 0.
  double attention_core_s = 0;
};

// Memory figures of one plan layer on one GPU of a tp group, per sequence (microbatch 1).
struct LayerMemory {
  double params = 0;            // parameters held by one GPU
  double activation_bytes = 0;  // kept for backward, per sequence
  double output_elements = 0;   // stage-boundary message elements, per sequence
  // Head only: parameters it shares with the embedding (tied word embeddings). A stage that
  // holds both layers keeps one copy; in different stages each keeps its own (Megatron).
  double shared_with_embedding = 0;
  // The layer's activations while its backward runs, per sequence: activation_bytes, except
  // under full recomputation, where a block keeps only its input between its forward and its
  // backward and rebuilds the rest then. ProfileSet::memory fills it; sources leave it 0.
  double working_bytes = 0;
  // The attention core's part of activation_bytes (the score matrices, softmax output and
  // dropout mask): what selective recomputation does not keep. Sources that do not split it
  // leave 0.
  double attention_core_bytes = 0;
};

class ProfileSource {
 public:
  virtual ~ProfileSource() = default;
  virtual std::string name() const = 0;  // e.g. "sailor-import", "analytic", a file name
  // All layers of the model for this key, or nullopt when the source has no such entry.
  virtual std::optional<std::vector<LayerTiming>> timings(const ProfileKey& key,
                                                          const Job& job) const = 0;
  // Optimizer step seconds per parameter held by one GPU, or nullopt.
  virtual std::optional<double> optimizerSecondsPerParameter(const ProfileKey& key,
                                                             const Job& job) const = 0;
  // Per-layer memory figures for (model, tp), or nullopt.
  virtual std::optional<std::vector<LayerMemory>> memory(const std::string& model, int tp,
                                                         const Job& job) const = 0;
};

template <typename T>
struct Sourced {
  T value;
  std::string source;
};

class ProfileSet {
 public:
  void add(std::shared_ptr<const ProfileSource> source);  // earlier sources take precedence
  const std::vector<std::shared_ptr<const ProfileSource>>& sources() const { return sources_; }
  // Throw InputError naming the key when no source answers. Sources give figures without
  // activation recomputation; timings() and memory() apply the job's (NOTE [Activation
  // recomputation] in profile.cpp).
  Sourced<std::vector<LayerTiming>> timings(const ProfileKey& key, const Job& job) const;
  Sourced<double> optimizerSecondsPerParameter(const ProfileKey& key, const Job& job) const;
  Sourced<std::vector<LayerMemory>> memory(const std::string& model, int tp, const Job& job) const;

 private:
  std::vector<std::shared_ptr<const ProfileSource>> sources_;
};

// This project's profile file format, one file per (model, GPU type, precision).
class NativeProfile : public ProfileSource {
 public:
  static std::shared_ptr<NativeProfile> fromJson(const nlohmann::json& j, const Catalog& catalog,
                                                 const std::string& name);
  static std::shared_ptr<NativeProfile> load(const std::string& path, const Catalog& catalog);
  nlohmann::json toJson() const;

  std::string name() const override { return name_; }
  std::optional<std::vector<LayerTiming>> timings(const ProfileKey& key,
                                                  const Job& job) const override;
  std::optional<double> optimizerSecondsPerParameter(const ProfileKey& key,
                                                     const Job& job) const override;
  std::optional<std::vector<LayerMemory>> memory(const std::string& model, int tp,
                                                 const Job& job) const override;

  struct Run {
    int microbatch_size = 1;
    int tp = 1;
    double optimizer_seconds_per_parameter = 0;
    std::vector<LayerTiming> timings;
    std::vector<LayerMemory> memory;  // empty when not measured
  };
  std::string model;
  std::string gpu_type;
  Precision precision = Precision::Fp32;
  // Tokens per sequence the runs were measured at; when given, the profile answers only for
  // jobs of that length (its times and activations grow with it). Absent: any length.
  std::optional<int> sequence_length;
  std::vector<Run> runs;

 private:
  std::string name_;
};

// SAILOR's profiler output: simulator_profiles.json ({model: {gpu: {mbs: {tp: {layer:
// [fwd_s, bwd_s, update_s]}}}}}) and llm_info.json ({model: {tp: {layer: {...}}}}). Model
// names are matched to the catalogue through aliases. update_s is the optimizer step of the
// profiled mini-model (embedding + 2 blocks + head), turned into seconds per parameter.
// SAILOR's layer conventions are brought to the catalogue's on import (NOTE [SAILOR layer
// conventions] in profile.cpp): a separate final-norm layer is merged into the head, the head
// counts its output matrix, and a head profiled without its LM head gets one from the blocks.
class SailorProfile : public ProfileSource {
 public:
  static std::shared_ptr<SailorProfile> load(const std::string& profiles_path,
                                             const std::string& llm_info_path,
                                             const Catalog& catalog);
  static std::shared_ptr<SailorProfile> fromJson(const nlohmann::json& profiles,
                                                 const nlohmann::json& llm_info,
                                                 const Catalog& catalog);
  std::string name() const override { return "sailor-import"; }
  std::optional<std::vector<LayerTiming>> timings(const ProfileKey& key,
                                                  const Job& job) const override;
  std::optional<double> optimizerSecondsPerParameter(const ProfileKey& key,
                                                     const Job& job) const override;
  std::optional<std::vector<LayerMemory>> memory(const std::string& model, int tp,
                                                 const Job& job) const override;
  // GPU type names that appear in the profiles (the catalogue may lack some).
  std::vector<std::string> gpuTypes() const;
  // Layers as SAILOR numbers them for a catalogue model (0 when the model is not imported).
  int sailorLayers(const std::string& model) const;
  // What the import changed to reach the catalogue's conventions, one line per change.
  const std::vector<std::string>& adjustments() const { return adjustments_; }
  // Timings for a microbatch size SAILOR did not profile, derived from the sizes it did with
  // the same model, GPU type and tp (MicrobatchScaledProfile below).
  std::optional<std::vector<LayerTiming>> scaledTimings(const ProfileKey& key,
                                                        const Job& job) const;
  // The optimizer step does not depend on the microbatch size: any profiled size answers.
  std::optional<double> anySizeOptimizerSecondsPerParameter(const ProfileKey& key,
                                                            const Job& job) const;
  // Tokens per sequence SAILOR profiled a model at (a block's output elements over the hidden
  // size in llm_info.json: 2048 for OPT and GPT-Neo, 8192 for LLAMA-3-8), nullopt when unknown.
  // Times and activations grow with it, so timings() and memory() answer only for jobs of that
  // length; a job of another length takes its figures from the next source.
  std::optional<int> sequenceLength(const std::string& model) const;

 private:
  struct Entry {
    std::vector<LayerTiming> timings;
    double update_s = 0;
  };
  // The parsed files (engine-internal: simdjson's values), read by fromParsed.
  struct Parsed;
  static std::shared_ptr<SailorProfile> fromParsed(const Parsed& files, const Catalog& catalog);
  void adoptCatalogConventions(const Catalog& catalog);
  bool profiledAt(const std::string& model, const Job& job) const;  // the job's sequence length
  std::map<ProfileKey, Entry> entries_;
  std::map<std::string, int> sequence_length_;                              // by catalogue model
  std::map<std::pair<std::string, int>, std::vector<LayerMemory>> memory_;  // (model, tp)
  std::map<std::string, int> sailor_layers_;
  std::vector<std::string> adjustments_;
};

// The imported SAILOR profiles at microbatch sizes they lack: per layer, linear in the
// microbatch size between the nearest profiled sizes below and above; above the largest,
// proportional to it (the compute-bound regime); below the smallest, the smallest's time (the
// latency floor). Placed after the exact source so measured figures always win.
class MicrobatchScaledProfile : public ProfileSource {
 public:
  explicit MicrobatchScaledProfile(std::shared_ptr<const SailorProfile> base)
      : base_(std::move(base)) {}
  std::string name() const override { return "sailor-import, from other microbatch sizes"; }
  std::optional<std::vector<LayerTiming>> timings(const ProfileKey& key,
                                                  const Job& job) const override {
    return base_->scaledTimings(key, job);
  }
  std::optional<double> optimizerSecondsPerParameter(const ProfileKey& key,
                                                     const Job& job) const override {
    return base_->anySizeOptimizerSecondsPerParameter(key, job);
  }
  std::optional<std::vector<LayerMemory>> memory(const std::string& model, int tp,
                                                 const Job& job) const override {
    return base_->memory(model, tp, job);
  }

 private:
  std::shared_ptr<const SailorProfile> base_;
};

// Analytic estimate for any catalogue GPU and model. NOTE [Analytic profile] in profile.cpp.
class AnalyticProfile : public ProfileSource {
 public:
  explicit AnalyticProfile(const Catalog& catalog) : catalog_(catalog) {}
  std::string name() const override { return "analytic"; }
  std::optional<std::vector<LayerTiming>> timings(const ProfileKey& key,
                                                  const Job& job) const override;
  std::optional<double> optimizerSecondsPerParameter(const ProfileKey& key,
                                                     const Job& job) const override;
  std::optional<std::vector<LayerMemory>> memory(const std::string& model, int tp,
                                                 const Job& job) const override;

  // Efficiency factors (fraction of datasheet peak reached). kMatmulEfficiency is chosen so
  // that SAILOR's measured block times over this estimate have a median of about 1
  // (`build/tests/bench/calibrate_analytic REFERENCE_DIR` prints the ratios; docs/simulator.md,
  // Analytic profile); the program only reports, it changes none of these figures.
  static constexpr double kMatmulEfficiency = 0.80;
  static constexpr double kMemoryEfficiency = 0.70;
  static constexpr double kKernelLatencySeconds = 20e-6;  // per kernel launch, not hidden
  static constexpr double kKernelsPerBlockForward = 24;

 private:
  const Catalog& catalog_;
};

}  // namespace sailor
