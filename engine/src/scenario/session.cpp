// A planning session saved whole (session.hpp).
#include "sailor/scenario/session.hpp"

#include <cmath>
#include <limits>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"

namespace sailor {

namespace ju = json_util;
using nlohmann::json;

namespace {

std::optional<double> positiveOrNone(const json& j, const std::string& key,
                                     const std::string& path) {
  if (!j.contains(key)) return std::nullopt;
  return ju::getPositive(j, key, path);
}

}  // namespace

json plannerSettingsToJson(const PlannerOptions& o) {
  json j;
  j["objective"] = o.objective == Objective::Cost ? "cost" : "throughput";
  j["pareto"] = o.pareto;
  j["schedules"] = scheduleSearchName(o.schedules);
  if (o.max_usd_per_iteration) j["max_usd_per_iteration"] = *o.max_usd_per_iteration;
  if (o.max_usd_per_hour) j["max_usd_per_hour"] = *o.max_usd_per_hour;
  if (o.min_iterations_per_s) j["min_iterations_per_s"] = *o.min_iterations_per_s;
  if (o.max_gpus) j["max_gpus"] = *o.max_gpus;
  return j;
}

PlannerOptions plannerSettingsFromJson(const json& j, const std::string& path,
                                       PlannerOptions base) {
  ju::requireObject(j, path);
  ju::rejectUnknownKeys(j,
                        {"objective", "pareto", "schedules", "max_usd_per_iteration",
                         "max_usd_per_hour", "min_iterations_per_s", "max_gpus"},
                        path);
  const std::string prefix = path + ".";
  if (j.contains("objective")) {
    const std::string o = ju::getString(j, "objective", path);
    if (o != "throughput" && o != "cost")
      throw InputError(prefix + "objective", "\"" + o + "\"", "\"throughput\" or \"cost\"");
    base.objective = o == "cost" ? Objective::Cost : Objective::Throughput;
  }
  base.pareto = ju::getBoolOr(j, "pareto", path, base.pareto);
  if (j.contains("schedules"))
    base.schedules = parseScheduleSearch(ju::getString(j, "schedules", path), prefix + "schedules");
  base.max_usd_per_iteration = positiveOrNone(j, "max_usd_per_iteration", path);
  base.max_usd_per_hour = positiveOrNone(j, "max_usd_per_hour", path);
  base.min_iterations_per_s = positiveOrNone(j, "min_iterations_per_s", path);
  base.max_gpus.reset();
  if (j.contains("max_gpus")) base.max_gpus = ju::getInt32(j, "max_gpus", path, 1);
  return base;
}

Session Session::fromScenarioJson(const json& scenario, const Catalog& catalog) {
  Session s;
  if (!scenario.is_object()) return s;
  Catalog with_model = catalog;
  if (scenario.contains("job_model")) {
    s.job_model = ModelSpec::fromJson(scenario.at("job_model"), "job_model");
    if (catalog.findModel(s.job_model->name))
      throw InputError("job_model.name", "\"" + s.job_model->name + "\"",
                       "a name the catalogue's models do not have");
    with_model.addModel(*s.job_model);
  }
  if (scenario.contains("job")) {
    try {
      s.job = Job::fromJson(scenario.at("job"), with_model);
    } catch (const InputError& e) {
      throw InputError(e.field().empty() ? "job" : "job." + e.field(), e.value(), e.expected());
    }
  }
  if (scenario.contains("planner"))
    s.planner = plannerSettingsFromJson(scenario.at("planner"), "planner");
  return s;
}

void Session::writeInto(json& scenario) const {
  if (job) scenario["job"] = job->toJson();
  else scenario.erase("job");
  if (job_model) scenario["job_model"] = job_model->toJson();
  else scenario.erase("job_model");
  if (planner) scenario["planner"] = plannerSettingsToJson(*planner);
  else scenario.erase("planner");
}

}  // namespace sailor
