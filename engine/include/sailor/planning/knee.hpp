// The knee of the planner's Pareto frontier: the plans a person would pick instead of the top
// plan (the cheapest frontier plan within 1 % and within 5 % of its throughput) and what the
// top plan's last step on the frontier costs (its throughput gain over the next-cheaper
// frontier plan against its extra cost per iteration). docs/planner.md, "The knee", defines
// the top plan and the rule. Figures are the simulator's (PlannedPlan::prediction).
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace sailor {

struct PlanResult;
enum class Objective;

// The throughput shortfalls the knee names by default: within 1 % and within 5 %.
inline const std::vector<double> kKneeTolerances{0.01, 0.05};

// The cheapest frontier plan whose throughput is at least (1 - tolerance) x the top plan's.
struct KneePick {
  double tolerance = 0;     // e.g. 0.01
  int frontier_index = -1;  // into PlanResult::pareto; the top plan's index when none is cheaper
  double throughput_fraction = 1;  // its throughput / the top plan's (>= 1 - tolerance)
  double cost_saving = 0;          // 1 - its cost per iteration / the top plan's
};

// The top plan against the next-cheaper frontier plan.
struct KneeStep {
  int frontier_index = -1;     // into PlanResult::pareto: the next-cheaper plan
  double throughput_gain = 0;  // top's throughput / its - 1 (> 0)
  // top's cost per iteration / its - 1 (> 0); +infinity when the cheaper plan costs nothing.
  double cost_increase = 0;
};

struct Knee {
  int top_index = -1;           // into PlanResult::pareto: the plan the knee is measured against
  bool top_is_best = false;     // the top plan is result.best.front()
  std::vector<KneePick> picks;  // one per tolerance, in the order asked
  std::optional<KneeStep> last_step;  // none when the top plan is the frontier's cheapest
};

// The knee of `result`'s frontier under `objective`; nullopt when the result has no frontier
// (no plan, or the frontier was not asked for). Tolerances must be in [0, 1).
std::optional<Knee> kneeOf(const PlanResult& result, Objective objective,
                           const std::vector<double>& tolerances = kKneeTolerances);

// {"top": plan, "top_is_best", "within": [{"tolerance", "throughput_fraction", "cost_saving",
//  "is_top", "plan"}], "last_step": {"throughput_gain", "cost_increase" (null when infinite),
//  "plan"}}; each plan as PlanResult::toJson writes plans (planJson), with "frontier_index".
nlohmann::json kneeJson(const Knee& knee, const PlanResult& result);

}  // namespace sailor
