// Scenarios compared side by side: each scenario's best plan for one job, with the job's whole
// run where it has a training budget (the studio's comparison view and its CSV export,
// docs/studio.md "Comparing scenarios").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sailor/planning/campaign_figures.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/scenario/scenario.hpp"

namespace sailor {

struct ScenarioComparison {
  std::string name;            // the scenario's name
  std::string no_plan_reason;  // empty when the search found a plan
  int gpus = 0;
  int spot_gpus = 0;      // of them in spot pools
  int owned_gpus = 0;     // of them in owned pools
  std::string gpu_types;  // "512 H100-80 + 256 A100-80", by count, then name
  std::string zones;      // the zones the plan uses, in the order its stages name them
  double iteration_s = 0, tokens_per_s = 0, usd_per_hour = 0, usd_per_iteration = 0, mfu = 0;
  std::optional<Campaign> campaign;  // with a training budget
  bool hasPlan() const { return no_plan_reason.empty(); }
};

// The row of `scenario` (named `name`) from its search's best plan, or its reason for none.
ScenarioComparison compareScenario(const std::string& name, const Scenario& scenario,
                                   const PlanResult& result);

// The rows as CSV (RFC 4180: fields with a comma, quote or line end quoted, quotes doubled):
// a header naming each column with its unit, then one line per row. A row without a plan has
// its name and reason and empty figures; figures of the whole run are empty without a budget,
// and a run that never finishes has "inf" days and total.
std::string comparisonCsv(const std::vector<ScenarioComparison>& rows);

}  // namespace sailor
