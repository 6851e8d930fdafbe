// Readable text for the `sailor` command line's outputs (tables, breakdowns).
#pragma once

#include <string>

#include "sailor/catalog.hpp"
#include "sailor/planner.hpp"
#include "sailor/reference.hpp"
#include "sailor/simulator.hpp"

namespace sailor::cli {

std::string formatGpus(const Catalog& catalog);
std::string formatModels(const Catalog& catalog);
std::string formatPrediction(const Plan& plan, const Job& job, const Scenario& scenario,
                             const Prediction& prediction);
std::string formatValidation(const ValidationReport& report);
// The best plans, then the knee of the frontier when the result has one (sailor/knee.hpp), then
// (frontier_table) the frontier itself.
std::string formatPlanResult(const PlanResult& result, const Job& job, int top_k,
                             bool frontier_table = true);

// "1.23 s", "45.6 ms", "789 us"
std::string seconds(double s);
// "12.34 GiB"
std::string gib(double bytes);

}  // namespace sailor::cli
