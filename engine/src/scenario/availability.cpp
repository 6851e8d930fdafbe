// Availability of GPUs over a run (sailor/scenario/availability.hpp): describing it, a plan's,
// traces in SAILOR's two formats, and the scenario a re-plan searches.
#include "sailor/scenario/availability.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/model/reference.hpp"

namespace sailor {

using nlohmann::json;

std::string describeAvailability(const Availability& a) {
  std::string out;
  for (const auto& [site, n] : a) {
    if (!out.empty()) out += ", ";
    out += std::to_string(n) + " " + site.first + " in " + site.second;
  }
  return out.empty() ? std::string("no GPUs") : out;
}

Availability planAvailability(const Plan& plan) {
  Availability a;
  for (const Stage& s : plan.stages)
    for (const Replica& r : s.replicas) a[{r.gpu_type, r.zone}] += r.tp;
  return a;
}

std::vector<AvailabilitySite> availabilitySites(const Plan& plan, const std::vector<Pool>& pools) {
  std::vector<AvailabilitySite> sites;
  auto find = [&](const std::string& gpu_type, const std::string& zone) -> AvailabilitySite& {
    const auto it = std::find_if(sites.begin(), sites.end(), [&](const AvailabilitySite& s) {
      return s.gpu_type == gpu_type && s.zone == zone;
    });
    if (it != sites.end()) return *it;
    sites.push_back({gpu_type, zone, 0, 0});
    return sites.back();
  };
  for (const Stage& stage : plan.stages)
    for (const Replica& r : stage.replicas) find(r.gpu_type, r.zone).count += r.tp;
  for (const Pool& p : pools) find(p.gpu_type, p.zone).pool += p.count;
  return sites;
}

Availability availabilityOf(const std::vector<AvailabilitySite>& sites) {
  Availability a;
  for (const AvailabilitySite& s : sites) a[{s.gpu_type, s.zone}] += s.count;
  return a;
}

namespace {

std::string rowLabel(std::size_t row, double at_s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", at_s);
  return "row " + std::to_string(row) + " (t = " + buf + " s)";
}

void checkSites(const Availability& a, const Scenario& scenario, const std::string& where) {
  for (const auto& [site, n] : a)
    if (!scenario.findPool(site.second, site.first))
      throw InputError(where + ", column " + site.first + "_" + site.second,
                       site.first + " in " + site.second,
                       "a GPU type and zone with a pool in the run's scenario");
}

// A trace's rows as read, times relative to the first row; no check against a scenario.
std::vector<AvailabilityStep> fromCsv(const std::string& path, const Catalog& catalog) {
  const std::vector<TraceRow> rows = loadTrace(path, catalog);
  std::vector<AvailabilityStep> out;
  double first = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const TraceRow& row = rows[i];
    const std::string where = path + ": row " + std::to_string(i);
    char* end = nullptr;
    const double t = std::strtod(row.label.c_str(), &end);
    if (end == row.label.c_str() || *end != '\0' || !std::isfinite(t))
      throw InputError(where + ", Timestamp", "\"" + row.label + "\"", "a time in seconds");
    if (i == 0) first = t;
    AvailabilityStep step;
    step.at_s = t - first;
    for (std::size_t k = 0; k < row.sites.size(); ++k) step.gpus[row.sites[k]] += row.counts[k];
    out.push_back(std::move(step));
  }
  return out;
}

// A JSON trace's rows, each count given to `site`.
std::vector<AvailabilityStep> fromJson(const std::string& path,
                                       const std::pair<std::string, std::string>& site) {
  const json j = json_util::readFile(path);
  if (!j.is_array() || j.empty())
    throw InputError(path, json_util::describe(j),
                     "a JSON array of {\"Time\": seconds, \"GPUs\": count}");
  std::vector<AvailabilityStep> out;
  double first = 0;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string where = path + "[" + std::to_string(i) + "]";
    json_util::rejectUnknownKeys(j[i], {"Time", "GPUs"}, where);
    const double t = json_util::getNumber(j[i], "Time", where);
    // Bounded as a scenario's pool count and a CSV trace's cell are.
    const std::int64_t n = json_util::getInt(j[i], "GPUs", where, 0);
    if (n > kMaxGpuCount)
      throw InputError(where + ".GPUs", json_util::describe(j[i].at("GPUs")),
                       "an integer GPU count from 0 to " + std::to_string(kMaxGpuCount));
    if (i == 0) first = t;
    AvailabilityStep step;
    step.at_s = t - first;
    step.gpus[site] = static_cast<int>(n);
    out.push_back(std::move(step));
  }
  return out;
}

bool isJsonTrace(const std::string& path) {
  return std::filesystem::path(path).extension() == ".json";
}

void checkTimeOrder(const std::vector<AvailabilityStep>& steps, const std::string& path) {
  for (std::size_t i = 1; i < steps.size(); ++i)
    if (steps[i].at_s < steps[i - 1].at_s)
      throw InputError(path + ": row " + std::to_string(i), "a time before the previous row's",
                       "rows in time order");
}

}  // namespace

std::vector<AvailabilityStep> loadAvailabilityTrace(const std::string& path, double time_scale,
                                                    const Plan& plan, const Scenario& scenario,
                                                    const Catalog& catalog) {
  if (!(time_scale > 0) || !std::isfinite(time_scale))
    throw InputError("--trace-time-scale", std::to_string(time_scale), "a positive number");
  std::vector<AvailabilityStep> steps;
  if (isJsonTrace(path)) {
    const Availability used = planAvailability(plan);
    if (used.size() != 1)
      throw InputError(path,
                       "a GPU-count trace for a plan over " + std::to_string(used.size()) +
                           " (GPU type, zone) pairs",
                       "a plan on one GPU type in one zone (or a CSV trace with a column per "
                       "<gpu>_<zone>)");
    steps = fromJson(path, used.begin()->first);
  } else {
    steps = fromCsv(path, catalog);
  }
  for (std::size_t i = 0; i < steps.size(); ++i)
    checkSites(
        steps[i].gpus, scenario,
        path + (isJsonTrace(path) ? "[" + std::to_string(i) + "]" : ": row " + std::to_string(i)));
  checkTimeOrder(steps, path);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    steps[i].at_s *= time_scale;
    steps[i].label = rowLabel(i, steps[i].at_s);
  }
  return steps;
}

std::string TracePreemptions::describe() const {
  return "trace " + std::filesystem::path(file).filename().string() + ": " +
         std::to_string(preemptions) + " GPUs taken over " + toText(gpu_hours) + " GPU-hours of " +
         gpu_type + " in " + zone;
}

TracePreemptions preemptionsInTrace(const std::string& path, const std::string& gpu_type,
                                    const std::string& zone, const Catalog& catalog) {
  const std::pair<std::string, std::string> site{gpu_type, zone};
  const std::vector<AvailabilityStep> steps =
      isJsonTrace(path) ? fromJson(path, site) : fromCsv(path, catalog);
  if (!steps.front().gpus.count(site))
    throw InputError(path, "no column " + gpu_type + "_" + zone,
                     "a column <gpu>_<zone> for the pool's " + gpu_type + " in " + zone);
  checkTimeOrder(steps, path);
  TracePreemptions t{path, gpu_type, zone};
  for (std::size_t i = 1; i < steps.size(); ++i) {
    const int before = steps[i - 1].gpus.at(site), now = steps[i].gpus.at(site);
    t.preemptions += std::max(0, before - now);
    t.gpu_hours += before * (steps[i].at_s - steps[i - 1].at_s) / 3600;
  }
  t.span_s = steps.back().at_s;
  if (!(t.gpu_hours > 0))
    throw InputError(path, "no GPU held for any time",
                     "a trace whose " + gpu_type + " in " + zone +
                         " hold GPUs between two rows (the rate is per GPU-hour held)");
  return t;
}

Scenario scenarioWithAvailability(const Scenario& scenario, const Availability& available) {
  Scenario out = scenario;
  Availability left = available;
  for (Pool& p : out.pools) {
    int& n = left[{p.gpu_type, p.zone}];
    p.count = n;  // the first pool of a (type, zone) takes them all
    n = 0;
  }
  return out;
}

}  // namespace sailor
