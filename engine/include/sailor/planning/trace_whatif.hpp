// What an availability trace means for a job of fixed size (`sailor plan --trace FILE
// --trace-iterations N`): how long it takes and what it costs to train N iterations while the
// GPUs come and go, when the job follows the planner (re-plans and reconfigures at every row
// whose best plan differs) against keeping the first plan (it runs while the trace has that
// plan's GPUs, and waits while it does not). Reconfigurations are charged by phase
// (NOTE [Reconfiguration cost model] in trace_whatif.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sailor/model/catalog.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/simulation/simulator.hpp"

namespace sailor {

// One row of the trace with the planner's best plan for it.
struct TraceWindow {
  std::string label;
  double start_s = 0;  // the row's time, from the trace's first row
  Scenario scenario;   // the resources of the row
  std::optional<Plan> plan;
  Prediction prediction;  // of `plan` on `scenario` (when there is one)
  double replan_s = 0;    // the planner's search time for the row (measured)
};

// Time of each phase of one reconfiguration (or of a restart after a pause: no tear-down).
struct ReconfigurationPhases {
  double replan_s = 0;
  double teardown_s = 0;
  double group_setup_s = 0;
  double state_transfer_s = 0;
  double rebuild_s = 0;  // model and optimizer rebuilt, data loaders set to the position
  double total() const {
    return replan_s + teardown_s + group_setup_s + state_transfer_s + rebuild_s;
  }
};

// The fixed phases, as SAILOR measured them for OPT-350M when 4 GPUs join 16 (SAILOR, SOSP'25,
// section 6): clean-up 3 s, communicator set-up 4.5 s, model and optimizer
// 2 s, data loaders 0.5 s. The state broadcast is not a constant: modelled from the links.
struct ReconfigurationConstants {
  double teardown_s = 3.0;
  double group_setup_s = 4.5;
  double rebuild_s = 2.5;
};

// Seconds to give every GPU of `to` its model state from the GPUs of `from` that hold the
// same layers (the best-connected holder per replica), all transfers at once: the slowest one.
// `from` empty (a start after a pause, from the checkpoint): from the zone of `to`'s own
// replica, over the scenario's same-zone link.
double stateTransferSeconds(const Plan* from, const Plan& to, const Prediction& to_prediction,
                            const Scenario& scenario);

struct StrategyOutcome {
  std::string name;
  bool finished = false;
  double end_s = 0;              // when the N-th iteration ends (finished), else the trace's end
  double iterations = 0;         // done by end_s
  double usd = 0;                // GPU-hours held (training and reconfiguring) at the plans' prices
  double training_s = 0;         // time spent training
  double waiting_s = 0;          // time with no plan running (no GPUs, or not the first plan's)
  ReconfigurationPhases start;   // the job's first start (no tear-down)
  int reconfigurations = 0;      // after the start: a new plan, or a restart after waiting
  ReconfigurationPhases phases;  // summed over the reconfigurations
};

// Both strategies over `windows` (in time order; the last one lasts until the job ends) for a
// job of `iterations`. Windows without a plan are waited out.
std::vector<StrategyOutcome> compareTraceStrategies(const std::vector<TraceWindow>& windows,
                                                    double iterations,
                                                    const ReconfigurationConstants& constants = {});

// The row times of a trace: each label read as seconds ("63", "1712574014.0187"), relative to
// the first. Throws InputError("trace", "row label \"x\"", ...) for a label that is not a time,
// or one earlier than the row before.
std::vector<double> traceRowTimes(const std::vector<std::string>& labels);

}  // namespace sailor
