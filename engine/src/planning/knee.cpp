// kneeOf and kneeJson (sailor/planning/knee.hpp; docs/planner.md, "The knee").
#include "sailor/planning/knee.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "sailor/core/error.hpp"
#include "sailor/planning/planner.hpp"

namespace sailor {

using nlohmann::json;

namespace {

// The plan the knee is measured against: with the throughput objective the best plan where the
// frontier holds it, else (and with the cost objective) the frontier's fastest plan, its last.
int topIndex(const PlanResult& result, Objective objective) {
  const auto& front = result.pareto;
  if (objective == Objective::Throughput && !result.best.empty())
    for (size_t i = 0; i < front.size(); ++i)
      if (front[i].plan == result.best.front().plan) return static_cast<int>(i);
  int fastest = 0;
  for (size_t i = 1; i < front.size(); ++i)
    if (front[i].prediction.iterations_per_s >
        front[static_cast<size_t>(fastest)].prediction.iterations_per_s)
      fastest = static_cast<int>(i);
  return fastest;
}

}  // namespace

std::optional<Knee> kneeOf(const PlanResult& result, Objective objective,
                           const std::vector<double>& tolerances) {
  for (double t : tolerances)
    if (!(t >= 0 && t < 1)) throw InputError("knee tolerance", toText(t), "a number in [0, 1)");
  const auto& front = result.pareto;
  if (front.empty()) return std::nullopt;
  Knee knee;
  knee.top_index = topIndex(result, objective);
  const PlannedPlan& top = front[static_cast<size_t>(knee.top_index)];
  knee.top_is_best = !result.best.empty() && result.best.front().plan == top.plan;
  const double top_tp = top.prediction.iterations_per_s;
  const double top_usd = top.prediction.usd_per_iteration;
  // Candidates: the frontier's plans no dearer than the top plan. The frontier is sorted by
  // increasing cost, so the first candidate fast enough is the cheapest one; on equal cost the
  // earlier (faster) plan, and the top plan itself when no other is fast enough.
  auto cheaper_or_top = [&](size_t i) {
    return static_cast<int>(i) == knee.top_index ||
           front[i].prediction.usd_per_iteration <= top_usd;
  };
  for (double t : tolerances) {
    KneePick pick;
    pick.tolerance = t;
    pick.frontier_index = knee.top_index;
    for (size_t i = 0; i < front.size(); ++i)
      if (cheaper_or_top(i) && front[i].prediction.iterations_per_s >= (1 - t) * top_tp) {
        pick.frontier_index = static_cast<int>(i);
        break;
      }
    const auto& p = front[static_cast<size_t>(pick.frontier_index)].prediction;
    pick.throughput_fraction = top_tp > 0 ? p.iterations_per_s / top_tp : 1;
    pick.cost_saving = top_usd > 0 ? 1 - p.usd_per_iteration / top_usd : 0;
    knee.picks.push_back(pick);
  }
  // The last step: the dearest frontier plan that is cheaper and slower than the top plan.
  for (size_t i = 0; i < front.size(); ++i) {
    const auto& p = front[i].prediction;
    if (static_cast<int>(i) == knee.top_index || p.usd_per_iteration >= top_usd ||
        p.iterations_per_s >= top_tp)
      continue;
    if (knee.last_step &&
        front[static_cast<size_t>(knee.last_step->frontier_index)].prediction.usd_per_iteration >=
            p.usd_per_iteration)
      continue;
    KneeStep step;
    step.frontier_index = static_cast<int>(i);
    step.throughput_gain = top_tp / p.iterations_per_s - 1;
    step.cost_increase = p.usd_per_iteration > 0 ? top_usd / p.usd_per_iteration - 1
                                                 : std::numeric_limits<double>::infinity();
    knee.last_step = step;
  }
  return knee;
}

json kneeJson(const Knee& knee, const PlanResult& result) {
  auto plan = [&](int index) {
    json j = plannedPlanJson(result.pareto.at(static_cast<size_t>(index)));
    j["frontier_index"] = index;
    return j;
  };
  json within = json::array();
  for (const auto& p : knee.picks)
    within.push_back({{"tolerance", p.tolerance},
                      {"throughput_fraction", p.throughput_fraction},
                      {"cost_saving", p.cost_saving},
                      {"is_top", p.frontier_index == knee.top_index},
                      {"plan", plan(p.frontier_index)}});
  json j{{"top", plan(knee.top_index)}, {"top_is_best", knee.top_is_best}, {"within", within}};
  if (knee.last_step) {
    const KneeStep& s = *knee.last_step;
    j["last_step"] = {
        {"throughput_gain", s.throughput_gain},
        {"cost_increase", std::isfinite(s.cost_increase) ? json(s.cost_increase) : json(nullptr)},
        {"plan", plan(s.frontier_index)}};
  }
  return j;
}

}  // namespace sailor
