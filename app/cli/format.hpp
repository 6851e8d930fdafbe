// Readable text for the `sailor` command line's outputs (tables, breakdowns).
#pragma once

#include <optional>
#include <string>

#include "sailor/model/catalog.hpp"
#include "sailor/model/reference.hpp"
#include "sailor/planning/campaign.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/planning/utilization.hpp"
#include "sailor/runs/run_events.hpp"
#include "sailor/runs/run_store.hpp"
#include "sailor/scenario/plan_links.hpp"
#include "sailor/simulation/simulator.hpp"

namespace sailor::cli {

std::string formatGpus(const Catalog& catalog);
std::string formatModels(const Catalog& catalog);
// With `utilization`, a line of the plan's MFU under the iteration time.
std::string formatPrediction(const Plan& plan, const Job& job, const Scenario& scenario,
                             const Prediction& prediction,
                             const std::optional<Utilization>& utilization = std::nullopt);
// The links a simulated plan uses (linksOfPlan): use, zones, GPU types, GPUs at once, GB/s,
// latency and where each figure comes from.
std::string formatLinks(const std::vector<LinkUse>& links);
std::string formatValidation(const ValidationReport& report);
// The best plans, then the knee of the frontier when the result has one (sailor/planning/knee.hpp),
// then (frontier_table) the frontier itself. With the scenario planned, a plan on spot pools says
// how many of its GPUs are spot.
std::string formatPlanResult(const PlanResult& result, const Job& job, int top_k,
                             bool frontier_table = true, const Scenario* scenario = nullptr);

// The whole run of each best plan (rankByCampaign): days, goodput, total USD and its parts,
// tokens per USD, the checkpoint interval and the expected failures.
std::string formatCampaigns(const std::vector<Campaign>& campaigns, const Job& job);

// "1.23 s", "45.6 ms", "789 us"
std::string seconds(double s);
// "12.3 min", or "12.3 h" from 10 hours on
std::string minutes(double s);
// "12.34 GiB"
std::string gib(double bytes);

// A reconfiguration's phases in one line: "re-plan 12.00 ms, teardown 3.00 ms, groups 45.00 ms,
// rebuild 20.00 ms, transfer 31.00 ms (7.0 MB), total 200.00 ms" (launch only when it took time:
// workers joined).
std::string formatReconfigurationPhases(const ReconfiguredEvent& event);
// The reconfigurations and pauses among a run's stored events, as `sailor runs show` lists them
// ("" when there are none). Events that do not decode are named, not shown.
std::string formatElasticity(const std::vector<EventRecord>& events);

}  // namespace sailor::cli
