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

// A spot pool's preemption rate read from an availability trace (the pool's field
// preemptions_per_gpu_hour and its source, docs/planner.md "Days and dollars"): every fall of
// the site's GPU count is that many GPUs taken away; the GPU-hours are the count held over time
// (each row's count until the next row). A CSV trace gives the column of (gpu_type, zone); a
// JSON trace ({"Time", "GPUs"} rows) is one site's, taken as the pool's.
struct TracePreemptions {
  std::string file;
  std::string gpu_type, zone;
  long preemptions = 0;  // GPUs taken away
  double gpu_hours = 0;  // GPUs held, over the trace's span
  double span_s = 0;     // first row to last
  double perGpuHour() const { return static_cast<double>(preemptions) / gpu_hours; }
  // "trace t.csv: 6 GPUs taken over 120.5 GPU-hours of A100-40 in us-central1-a"
  std::string describe() const;
};

// InputError naming the file (and row and column) for a trace that cannot be read, a CSV trace
// without the site's column, times that go back, or a trace that holds no GPU for any time.
TracePreemptions preemptionsInTrace(const std::string& path, const std::string& gpu_type,
                                    const std::string& zone, const Catalog& catalog);

// `scenario` with the GPUs of `available` and no others: the first pool of each (type, zone)
// gets what is available of it, any later pool of the same (type, zone) none.
Scenario scenarioWithAvailability(const Scenario& scenario, const Availability& available);

}  // namespace sailor
