// Recalibration (`sailor calibrate`, docs/closed-loop.md "Recalibrating a profile from runs"): fits
// a local profile's per-layer forward and backward times to what recorded runs measured, and
// returns the updated profile with what changed. Qt-free, libtorch-free; reads nothing itself.
//
// What the runs determine: each stage of each run measures one figure of compute per iteration
// (its slowest rank's compute and tensor-parallel seconds, median after warm-up), which the
// profile predicts as sum over the stage's layers of (forward + backward) x microbatches + the
// optimizer step, from the profile's entry of the run's (microbatch size, tp). Each entry was
// measured on its own, so each is fitted from the stages that ran with it, and an entry no stage
// ran with is kept. The fit scales the forward and backward times of each layer kind (embedding,
// blocks, head) by one factor, by weighted least squares on the relative errors (each stage's
// weight from the spread of its own iterations). Three factors, one per kind, are kept only when
// each is determined to 10 % (its standard error); else two (blocks, and embedding with head);
// else one for every layer. The optimizer step and memory are left as measured.
//
// The data-parallel sums fit the device's collective bus bandwidth (GpuType::
// collective_bus_bandwidth_gb_per_s, in the profile's catalog.json): NOTE [Collective bus
// bandwidth from runs] in calibrate.cpp. Not fitted: the point-to-point link. The runs' transfer
// seconds include the pipeline's waiting, which a latency and bandwidth fit would take for
// transfer time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/runs/run_events.hpp"
#include "sailor/runs/run_prediction.hpp"

namespace sailor {

struct CalibrationRun {
  std::int64_t id = 0;
  RunStartedEvent started;
  std::vector<IterationEvent> iterations;
};

// One stage of one run, in seconds of compute per iteration.
struct CalibrationObservation {
  std::int64_t run_id = 0;
  int stage = 0;
  int microbatch_size = 1;
  int tp = 1;
  int microbatches = 0;
  double measured_seconds = 0;  // median after warm-up
  double noise = 0;             // relative standard error of that median (at least kMinNoise)
  double before_seconds = 0;    // from the input profile
  double after_seconds = 0;     // from the calibrated one
  // Seconds of each layer kind (forward + backward x microbatches) and of the optimizer step,
  // from the input profile.
  double embedding_seconds = 0, blocks_seconds = 0, head_seconds = 0, optimizer_seconds = 0;
};

// The factors of one profile entry (microbatch size, tp).
struct LayerScale {
  int microbatch_size = 1;
  int tp = 1;
  std::string layers;         // "embedding", "blocks", "head", "embedding and head", "all layers"
  double factor = 1;          // forward and backward times multiplied by it
  double standard_error = 0;  // of the factor
};

// One stage of one run whose data-parallel gradient sum is its only collective: its seconds per
// iteration (NOTE [Collective bus bandwidth from runs]).
struct BusObservation {
  std::int64_t run_id = 0;
  int stage = 0;
  int replicas = 0;
  double measured_seconds = 0;  // median of the least dp seconds of the stage's ranks
  double link_seconds = 0;      // the simulator's with the link alone (no device bound)
  double bus_bytes = 0;         // bytes through each replica's reduction, as the simulator counts
  double before_seconds = 0;    // the simulator's on the input profile
  double after_seconds = 0;     // and on the calibrated one (as before when none is fitted)
};

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json's noexcept move checks invariants
struct CalibrationResult {
  nlohmann::json profile;  // the updated profile.json
  nlohmann::json catalog;  // the updated catalog.json; null when its figures are unchanged
  std::vector<BusObservation> bus;
  std::optional<double> bus_before_gb_per_s;  // the device's collective bus bandwidth, if any
  std::optional<double> bus_after_gb_per_s;   // fitted; none when not fitted
  std::string bus_why;                        // what was fitted from what, or why not
  std::vector<LayerScale> scales;
  std::vector<CalibrationObservation> observations;
  std::vector<std::string> skipped;    // stages of runs left out, and why
  std::vector<std::string> unchanged;  // entries no stage ran with ("microbatch 4, tp 1")
  std::string why;                     // per entry fitted, why this many factors
  nlohmann::json toJson() const;
};

constexpr double kCalibrationMinNoise = 0.01;  // a median is not trusted to better than 1 %
constexpr double kCalibrationMaxError = 0.10;  // a factor is kept when known to 10 %

// Throws InputError ("--run", "run 3 ...") for a run whose model or precision is not the
// profile's (profileMismatch), a run without iterations, or runs that leave no stage to fit
// (every one skipped: a microbatch size or tp the profile lacks).
CalibrationResult calibrateProfile(const LocalProfile& p, const std::vector<CalibrationRun>& runs);

// What changed and by how much, and each stage's error before and after: the text
// `sailor calibrate` prints.
std::string formatCalibration(const CalibrationResult& r, const std::string& out_dir);

}  // namespace sailor
