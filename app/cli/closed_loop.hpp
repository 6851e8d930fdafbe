// The command line's side of the closed loop (docs/closed-loop.md "Prediction against measurement",
// "Recalibrating a profile from runs"): a recorded run read back for its comparison, the
// prediction section of `sailor runs show`, `sailor validate --run ID` and `sailor calibrate`.
// The comparison and the fit are the engine's (sailor/runs/run_prediction.hpp,
// sailor/simulation/calibrate.hpp); this file reads the store, the options' files, and prints.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sailor/runs/run_events.hpp"
#include "sailor/runs/run_store.hpp"

namespace sailor::cli {

// A recorded run as the comparison needs it.
struct RecordedRun {
  RunRecord record;
  RunStartedEvent started;
  std::vector<IterationEvent> iterations;  // by iteration
};

// A run id: a positive integer, else InputError naming `option`.
std::int64_t runIdArg(const std::string& option, const std::string& text);

// Run `id` of the store at `store_path`, read only. InputError naming `option` for an unknown
// id (or no store file there) and for a run whose run_started cannot be read.
RecordedRun loadRecordedRun(const std::string& store_path, std::int64_t id,
                            const std::string& option);

// `sailor runs show`'s "Prediction against measurement" section: the comparison table, the
// note when the run has no local prediction, or what is missing (no iterations yet).
std::string formatRunPrediction(const RecordedRun& run);
// The same as JSON (null when there is nothing to compare): the comparison's toJson.
nlohmann::json runPredictionJson(const RecordedRun& run);

// `sailor validate --run ID [--profile DIR] [--json]`: the run's recorded prediction (or, with
// `profile_dir`, its plan predicted again on that profile) against what it measured. Prints the
// report on stdout; InputError for bad input (exit 2).
void validateRun(const std::string& store_path, std::int64_t id,
                 const std::optional<std::string>& profile_dir, bool as_json);

// `sailor calibrate --run ID... --profile DIR [--out DIR2 | --in-place] [--json]`: fits the
// profile to the runs and writes the result (a new directory, written whole under a temporary
// name and renamed; or DIR's profile.json replaced atomically with `in_place`). Prints what
// changed. InputError for bad input (exit 2).
void calibrateRuns(const std::string& store_path, const std::vector<std::int64_t>& ids,
                   const std::string& profile_dir, const std::optional<std::string>& out,
                   bool in_place, bool as_json);

}  // namespace sailor::cli
