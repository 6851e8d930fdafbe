// The GPUs a running job has, and how they change over time: what `sailor run --trace` replays
// and what a reconfiguration re-plans on (docs/elasticity.md). Qt-free, libtorch-free.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sailor/model/catalog.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/scenario/scenario.hpp"

namespace sailor {

// GPUs per (GPU type, zone).
using Availability = std::map<std::pair<std::string, std::string>, int>;

// One row of an availability trace: from `at_s` seconds after the trace's first row, the job has
// `gpus`.
struct AvailabilityStep {
  double at_s = 0;
  std::string label;  // the row as the trace names it ("row 2 (t = 126 s)")
  Availability gpus;
};

// One (GPU type, zone) of an Availability as a resize is asked over it: the GPUs the job has there
// and the GPUs its scenario's pools have there (the most it can have; 0 when not known).
struct AvailabilitySite {
  std::string gpu_type;
  std::string zone;
  int count = 0;
  int pool = 0;
  bool operator==(const AvailabilitySite&) const = default;
};

// The (GPU type, zone) places of `plan`, in the order its stages and replicas name them, each with
// the GPUs the plan uses there (planAvailability's count), then those of `pools` the plan does not
// use (count 0); each with the GPUs `pools` have there.
std::vector<AvailabilitySite> availabilitySites(const Plan& plan, const std::vector<Pool>& pools);

// The counts of `sites` per (GPU type, zone), zero counts included (what a resize asks for).
Availability availabilityOf(const std::vector<AvailabilitySite>& sites);

// "3 A100-40 in us-central1-a, 2 V100-16 in us-west1-b" (types and zones in order; zero counts
// included).
std::string describeAvailability(const Availability& a);

// The GPUs of each (type, zone) a plan uses.
Availability planAvailability(const Plan& plan);

// Reads a trace in either of SAILOR's formats (../shared/reference/sailor/traces):
//  - CSV, a column per "<gpu>_<zone>" and a Timestamp column (seconds): loadTrace's format;
//  - JSON, [{"Time": seconds, "GPUs": count}, ...]: a GPU count over time, of the one (type,
//    zone) `plan` uses (a plan over several is refused: the trace cannot say which changes).
// Times are taken relative to the first row and multiplied by `time_scale` (> 0): 0.1 replays
// ten times faster. Every (type, zone) must be a pool of `scenario`; times must not decrease.
// Bad input: InputError naming the file, row and field.
std::vector<AvailabilityStep> loadAvailabilityTrace(const std::string& path, double time_scale,
                                                    const Plan& plan, const Scenario& scenario,
                                                    const Catalog& catalog);

// `scenario` with the GPUs of `available` and no others: the first pool of each (type, zone)
// gets what is available of it, any later pool of the same (type, zone) none.
Scenario scenarioWithAvailability(const Scenario& scenario, const Availability& available);

}  // namespace sailor
