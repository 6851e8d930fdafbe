#include "sailor/planning/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace sailor {

namespace {

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string number(double v, int decimals) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return {};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

ScenarioComparison compareScenario(const std::string& name, const Scenario& scenario,
                                   const PlanResult& result) {
  ScenarioComparison c;
  c.name = name;
  if (result.best.empty()) {
    c.no_plan_reason = result.no_plan_reason.empty() ? "no plan" : result.no_plan_reason;
    return c;
  }
  const PlannedPlan& best = result.best.front();
  std::map<std::string, int> by_type;
  std::vector<std::string> zones;
  std::set<std::string> seen;
  for (const Stage& st : best.plan.stages)
    for (const Replica& r : st.replicas) {
      by_type[r.gpu_type] += r.tp;
      if (seen.insert(r.zone).second) zones.push_back(r.zone);
      const Pool* pool = scenario.findPool(r.zone, r.gpu_type);
      if (pool && pool->owned) c.owned_gpus += r.tp;
    }
  std::vector<std::pair<std::string, int>> types(by_type.begin(), by_type.end());
  std::stable_sort(types.begin(), types.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [type, n] : types)
    c.gpu_types += (c.gpu_types.empty() ? "" : " + ") + std::to_string(n) + " " + type;
  for (const auto& z : zones) c.zones += (c.zones.empty() ? "" : ", ") + z;
  c.gpus = best.plan.gpuCount();
  c.spot_gpus = best.plan.gpusInSpotPools(scenario);
  c.iteration_s = best.prediction.iteration_s;
  c.tokens_per_s = best.prediction.tokens_per_s;
  c.usd_per_hour = best.prediction.usd_per_hour;
  c.usd_per_iteration = best.prediction.usd_per_iteration;
  c.mfu = best.mfu;
  c.campaign = best.campaign;
  return c;
}

std::string comparisonCsv(const std::vector<ScenarioComparison>& rows) {
  std::string out =
      "scenario,gpus,gpu_types,zones,spot_gpus,owned_gpus,iteration_s,tokens_per_s,usd_per_hour,"
      "usd_per_iteration,mfu_percent,days,total_usd,gpu_usd,egress_usd,storage_usd,goodput_percent,"
      "expected_failures,expected_preemptions,checkpoint_interval_min,no_plan_reason\r\n";
  for (const ScenarioComparison& r : rows) {
    std::vector<std::string> f{csvField(r.name)};
    if (!r.hasPlan()) {
      f.resize(20);
      f.push_back(csvField(r.no_plan_reason));
    } else {
      f.insert(f.end(),
               {std::to_string(r.gpus), csvField(r.gpu_types), csvField(r.zones),
                std::to_string(r.spot_gpus), std::to_string(r.owned_gpus), number(r.iteration_s, 4),
                number(r.tokens_per_s, 1), number(r.usd_per_hour, 2),
                number(r.usd_per_iteration, 4), number(100 * r.mfu, 1)});
      if (const auto& c = r.campaign) {
        f.insert(f.end(),
                 {number(c->days(), 3), number(c->total_usd, 0), number(c->gpu_usd, 0),
                  number(c->egress_usd, 0), number(c->storage_usd, 0), number(100 * c->goodput, 1),
                  number(c->expected_failures, 2), number(c->expected_preemptions, 2),
                  number(c->checkpoint_interval_s / 60, 1)});
      } else {
        f.resize(20);
      }
      f.emplace_back();
    }
    for (std::size_t i = 0; i < f.size(); ++i) out += (i ? "," : "") + f[i];
    out += "\r\n";
  }
  return out;
}

}  // namespace sailor
