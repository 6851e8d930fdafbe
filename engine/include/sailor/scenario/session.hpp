// A planning session saved whole (docs/formats.md, "Sessions"): a scenario file may also carry
// the job it is planned for ("job", in the job format), the job's model when the catalogue does
// not hold it ("job_model", in the catalogue's model format: an architecture defined in the
// studio) and the planner's objective and constraints ("planner"), so that one file reopens
// what a session was deciding: the studio saves them with the scenario and opens them from it,
// and `sailor plan` takes the job from the scenario when no --job is given.
//
//   "planner": {"objective": "throughput" | "cost", "pareto": true, "schedules": "deepspeed" |
//               "megatron", "max_usd_per_iteration": 1.2, "max_usd_per_hour": 500,
//               "min_iterations_per_s": 0.5, "max_gpus": 256}
//
// Every key is optional (absent: PlannerOptions' default, no limit); the limits are positive
// finite numbers, max_gpus a positive integer; unknown keys are refused.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/planning/planner.hpp"

namespace sailor {

struct Session {
  std::optional<Job> job;                 // the scenario file's "job"
  std::optional<ModelSpec> job_model;     // its "job_model": the job's model, not a catalogue's
  std::optional<PlannerOptions> planner;  // its "planner" over PlannerOptions' defaults

  // The session keys of a scenario file's JSON (the scenario itself is Scenario::fromJson's).
  // InputError naming the field under its key ("job.global_batch_size", "planner.max_gpus"); a
  // "job_model" that is a catalogue model's name is refused.
  static Session fromScenarioJson(const nlohmann::json& scenario, const Catalog& catalog);
  // Writes the session's keys into a scenario's JSON (replacing any there; an absent part
  // removes its key).
  void writeInto(nlohmann::json& scenario) const;
};

// The "planner" object of the options a session keeps (objective, frontier, schedules, limits).
nlohmann::json plannerSettingsToJson(const PlannerOptions& options);
// Those settings over `base`; InputError naming `path`.key.
PlannerOptions plannerSettingsFromJson(const nlohmann::json& j, const std::string& path,
                                       PlannerOptions base = {});

}  // namespace sailor
