// What planSearch returns and the options it reads, as text and JSON (sailor/planning/planner.hpp):
//   scheduleSearchName, parseScheduleSearch, searchSchedule   the schedule the search prices
//                                                             (NOTE [Searched schedule])
//   memoryReserveModeName, leastHeadroomBytes, withinMemoryReserve
//                                                             the memory reserve's figures
//   plannedPlanJson, TimeLimitReport, PlanResult::toJson     the result as JSON and text
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "planner_internal.hpp"
#include "sailor/core/error.hpp"

namespace sailor {

using nlohmann::json;

const char* scheduleSearchName(ScheduleSearch s) {
  return s == ScheduleSearch::Megatron ? "megatron" : "deepspeed";
}

ScheduleSearch parseScheduleSearch(const std::string& name, const std::string& field) {
  if (name == "megatron") return ScheduleSearch::Megatron;
  if (name == "deepspeed") return ScheduleSearch::DeepSpeed;
  throw InputError(field, "\"" + name + "\"", "\"megatron\" or \"deepspeed\"");
}

// NOTE [Searched schedule]: of Megatron-LM's options, the search prices those that no plan can
// do without in its closed form: overlapping the gradient reduction with the backward never
// lengthens an iteration and frees the gradient bucket; the distributed optimizer moves less
// (a reduce-scatter and an all-gather of 16-bit weights against an all-reduce of fp32
// gradients), steps over 1/D of the parameters and keeps less state; sequence parallelism moves
// the same bytes as the tensor-parallel all-reduces it replaces and keeps less; fused attention
// moves fewer bytes and keeps none of the score matrices. Each is at least as fast and at most
// as large as its absence, so a search over their combinations would choose them all. Fully
// sharded data parallelism is not searched (its gathers per microbatch are rarely faster than a
// pipeline at these scales, and its figures depend on the degree inside every stage choice);
// the interleaving is chosen for each placed plan by the simulator (planner.cpp, NOTE
// [Interleaving chosen per plan]).
Schedule searchSchedule(const PlannerOptions& options) {
  Schedule s;
  if (options.schedules == ScheduleSearch::DeepSpeed) return s;
  s.overlap_grad_reduce = true;
  s.sharding = DpSharding::Optimizer;
  s.sequence_parallel = true;
  s.fused_attention = true;
  return s;
}

const char* memoryReserveModeName(MemoryReserveMode m) {
  return m == MemoryReserveMode::Drop ? "drop" : "flag";
}

double leastHeadroomBytes(const Prediction& prediction) {
  double least = std::numeric_limits<double>::infinity();
  for (const auto& m : prediction.memory) least = std::min(least, m.capacity_bytes - m.total_bytes);
  return least;
}

bool withinMemoryReserve(const Prediction& prediction, double fraction) {
  return std::any_of(prediction.memory.begin(), prediction.memory.end(),
                     [&](const MemoryBreakdown& m) {
                       return m.capacity_bytes - m.total_bytes < fraction * m.capacity_bytes;
                     });
}

json plannedPlanJson(const PlannedPlan& p) {
  json j = p.plan.toJson();
  j["prediction"] = {{"iteration_s", p.prediction.iteration_s},
                     {"iterations_per_s", p.prediction.iterations_per_s},
                     {"tokens_per_s", p.prediction.tokens_per_s},
                     {"usd_per_iteration", p.prediction.usd_per_iteration},
                     {"usd_per_hour", p.prediction.usd_per_hour},
                     {"peak_memory_bytes", p.prediction.peakMemoryBytes()},
                     {"gpus", p.plan.gpuCount()},
                     {"planning_model_iteration_s", p.model_iteration_s},
                     {"planning_model_usd_per_iteration", p.model_usd_per_iteration},
                     {"least_headroom_bytes", leastHeadroomBytes(p.prediction)}};
  // MFU: null when the plan has none (a GPU without a rate in the job's precision).
  j["prediction"]["mfu"] = p.mfu > 0 ? json(p.mfu) : json();
  j["prediction"]["model_tflops_per_gpu"] =
      p.model_tflops_per_gpu > 0 ? json(p.model_tflops_per_gpu) : json();
  if (p.within_memory_reserve) j["within_memory_reserve"] = true;
  return j;
}

bool TimeLimitReport::searchComplete() const {
  return std::all_of(microbatches.begin(), microbatches.end(),
                     [](const MicrobatchCoverage& m) { return m.complete; });
}

bool TimeLimitReport::complete() const {
  return searchComplete() && placing_complete && frontier_complete;
}

std::string TimeLimitReport::coverageText() const {
  std::string out;
  for (const auto& m : microbatches) {
    out += (out.empty() ? "" : "; ") + ("microbatch " + std::to_string(m.microbatch) + ": ");
    const size_t n = m.degrees.size();
    const std::string degrees =
        n == 0 ? ""
               : (n == 1 ? "1 data-parallel degree ("
                         : std::to_string(n) + " data-parallel degrees (") +
                     std::to_string(m.degrees.front()) +
                     (n == 1 ? ")" : " to " + std::to_string(m.degrees.back()) + ")");
    if (m.complete) out += "complete";
    else if (n == 0) out += "seed plans only, stopped at " + m.stopped_at;
    else out += degrees + ", stopped at " + m.stopped_at;
  }
  if (!placing_complete)
    out += "; placed and simulated " + std::to_string(placed) + " of the " +
           std::to_string(window) + " best candidates";
  if (!frontier_complete) out += "; the frontier's faster end not placed";
  return out;
}

json TimeLimitReport::toJson() const {
  json mbs = json::array();
  for (const auto& m : microbatches) {
    json mj{{"microbatch", m.microbatch}, {"complete", m.complete}, {"degrees", m.degrees}};
    if (!m.complete) mj["stopped_at"] = m.stopped_at;
    mbs.push_back(mj);
  }
  return {{"limit_s", limit_s},
          {"search_stopped_s", search_stopped_s},
          {"microbatches", mbs},
          {"placed", placed},
          {"window", window},
          {"placing_complete", placing_complete},
          {"frontier_complete", frontier_complete},
          {"coverage", coverageText()}};
}

json PlanResult::toJson() const {
  json best_j = json::array(), pareto_j = json::array();
  for (const auto& p : best) best_j.push_back(plannedPlanJson(p));
  for (const auto& p : pareto) pareto_j.push_back(plannedPlanJson(p));
  json j{{"plans", best_j},
         {"candidates", candidates},
         {"search_seconds", search_seconds},
         {"complete", complete()}};
  if (time_limit) j["time_limit"] = time_limit->toJson();
  if (!pareto.empty()) j["pareto"] = pareto_j;
  if (knee) j["knee"] = kneeJson(*knee, *this);
  if (!no_plan_reason.empty()) j["no_plan_reason"] = no_plan_reason;
  if (!notes.empty()) j["notes"] = notes;
  return j;
}

}  // namespace sailor
