// The closed loop's engine side (docs/closed-loop.md "Prediction against measurement"): a profile
// directory of the local device as `sailor profile` writes it, the prediction of a run's plan on
// that device (what `sailor run` records in run_started), and the comparison of a run's
// prediction with what it measured (`sailor runs show`, `sailor validate --run`, the studio's
// run monitor). Qt-free and libtorch-free; nothing here starts processes or reads the store.
//
// Not here: fitting a profile to measured runs (sailor/simulation/calibrate.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/model/catalog.hpp"
#include "sailor/runs/run_events.hpp"
#include "sailor/simulation/simulator.hpp"

namespace sailor {

// A `sailor profile` output directory: profile.json, catalog.json (the device's GPU type and the
// model as the runtime builds it) and scenario.json (one zone holding the device's ranks).
// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json's noexcept move checks invariants
struct LocalProfile {
  std::string dir;  // absolute
  nlohmann::json profile, catalog, scenario;
  std::string gpu_type;     // profile.json "gpu_type"
  std::string model;        // profile.json "model" (the runtime model's catalogue name)
  std::string precision;    // profile.json "precision": "fp32" / "bf16"
  std::string measured_at;  // the date-time at the end of "measured_by", or ""
  ModelSpec model_spec;     // catalog.json's entry for `model`

  // Throws InputError naming `option` and the directory when it is missing, lacks one of the
  // three files, or they are not a profile (another format, no model entry for the profile's
  // model, no GPU type entry for its device).
  static LocalProfile load(const std::string& dir, const std::string& option);
};

// Where `sailor profile` keeps a profile when not given --out, and where `sailor run` looks for
// one when not given --profile: <directory of the run store>/profiles/<gpu type>/<model>, e.g.
// ~/.local/share/sailor-studio/profiles/cpu-amd-epyc/OPT-350M-runtime-h256-s64.
std::string defaultProfileDir(const std::string& store_path, const std::string& gpu_type,
                              const std::string& runtime_model_name);
// The catalogue name `sailor profile` gives the model the runtime builds:
// "<name>-runtime-h<hidden>-s<sequence length>".
std::string runtimeModelName(const RuntimeModel& m);

// Why the run's model and precision are not the profile's ("hidden 128, the profile's 256"), or
// none when they are: the figures of a profile hold only for the model and precision measured.
std::optional<std::string> profileMismatch(const LocalProfile& p, const RuntimeModel& model,
                                           Precision precision, const std::string& dtype);

// One direction between two zones of the plan as `sailor run --emulate-zones` shapes it (the
// runner's ZoneLayout): the payload bandwidth its tbf enforces and the scenario's latency.
struct EmulatedZoneLink {
  std::string from_zone, to_zone;
  double bytes_per_s = 0;
  double latency_s = 0;
};

// The simulator on the local profile for the run's plan: every replica on the profile's GPU type
// in its scenario's zone (the scenario's pool raised to the plan's GPU count when it has fewer),
// the job the runtime trains (the profile's model, the run's global batch, its sequence length,
// precision, optimizer and recompute), profiles from the directory only (no analytic fallback).
// With `emulated` links (a run with emulated zones) the plan's zones stay apart instead: a pool
// of the profile's GPU type in each, and between two zones the profile's own link (its latency,
// Gloo's per-message cost) at the shaped bandwidth where that is lower, plus the link's latency
// (NOTE [Prediction over emulated zones] in run_prediction.cpp).
// `catalog`: the base catalogue (extended here with the profile's catalog.json). Throws
// InputError when the profile does not cover the plan (a microbatch size or tp it lacks).
RunPrediction predictOnProfile(const LocalProfile& p, const Plan& plan, int global_batch_size,
                               const RuntimeModel& model, Precision precision, Optimizer optimizer,
                               Recompute recompute, const Catalog& catalog,
                               const std::vector<EmulatedZoneLink>& emulated = {});
// The simulator's prediction that predictOnProfile summarises, with the profile's catalogue
// extension given (`profile_catalog`: p.catalog, or a changed copy, as `sailor calibrate` tries
// one); `links` (when not null) receives the emulated links' description.
Prediction simulateOnProfile(const LocalProfile& p, const nlohmann::json& profile_catalog,
                             const Plan& plan, int global_batch_size, const RuntimeModel& model,
                             Precision precision, Optimizer optimizer, Recompute recompute,
                             const Catalog& catalog, const std::vector<EmulatedZoneLink>& emulated,
                             std::string* links);

// One quantity of a run side by side with its prediction.
struct ComparisonRow {
  std::string quantity;  // "iteration seconds", "stage 0 compute seconds", "peak memory bytes"
  std::string unit;      // "s" or "bytes"
  double predicted = 0;
  double measured = 0;
  double relativeError() const { return predicted / measured - 1; }  // +0.1: 10 % high
};

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json's noexcept move checks invariants
struct RunComparison {
  RunPrediction prediction;
  int iterations = 0;  // iterations of the run
  int warmup = 0;      // the first ones, left out of the medians
  // iteration seconds; per stage compute seconds, communication seconds and peak memory bytes;
  // peak memory bytes (the largest of any rank).
  std::vector<ComparisonRow> rows;
  nlohmann::json toJson() const;
};

// Iterations left out as warm-up from a run of n: the first 2 (the first builds the autograd
// graph and allocator pools), fewer when the run has at most 2 (1 of 2, none of 1).
int warmupIterations(int n);

// The run's measured figures against its prediction. Measured: the median over the iterations
// after warm-up of the iteration seconds; per stage, of its slowest computing rank's compute
// (compute + tensor-parallel seconds: the profile's layer times include the tp all-reduces) and
// that rank's point-to-point + data-parallel seconds; peak memory, the largest
// peak_memory_bytes of the stage's ranks over every iteration. Throws InputError ("run",
// "run 7", ...) when the run has no prediction or no iterations.
RunComparison compareRun(std::int64_t run_id, const RunStartedEvent& started,
                         const std::vector<IterationEvent>& iterations);

// The comparison as text: one row per quantity (predicted, measured, relative error) under a line
// saying what the prediction is for.
std::string formatComparison(const RunComparison& c);

}  // namespace sailor
