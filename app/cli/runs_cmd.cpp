// `sailor runs list|show ID`: the run store read back (`runs attach` and `runs resize` are the
// runtime's: main() hands them to sailor-run).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "args.hpp"
#include "closed_loop.hpp"
#include "commands.hpp"
#include "format.hpp"
#include "help.hpp"
#include "sailor/core/error.hpp"
#include "sailor/core/utf8.hpp"
#include "sailor/model/job.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/runs/run_events.hpp"
#include "sailor/runs/run_store.hpp"

#include <CLI/CLI.hpp>

namespace sailor::cli {

namespace {

using nlohmann::json;

// `v` with `decimals` decimals, "-" for a figure not recorded (NaN).
std::string fixed(double v, int decimals) {
  if (std::isnan(v)) return "-";
  return fmt::format("{:.{}f}", v, decimals);
}

// A run's status as `sailor runs` shows it: a running run whose controller is gone reads
// "failed (controller gone)" (the store is only read here; the next `sailor run` records it).
std::string statusText(const RunRecord& r) {
  return orphanReason(r) ? "failed (controller gone)" : runStatusName(r.status);
}

// toJson(r) plus "controller_gone": why, for a running run whose controller is gone.
json runJson(const RunRecord& r) {
  json j = toJson(r);
  if (const auto gone = orphanReason(r)) j["controller_gone"] = *gone;
  return j;
}

// `sailor runs list`: the runs of the store at `path` (none when it does not exist), newest
// first; the runs that cannot be read named on stderr.
int runsList(const std::string& path, bool exists, bool as_json) {
  RunListing listing;
  if (exists) listing = RunStore(path, StoreAccess::ReadOnly).listReadableRuns();
  const std::vector<RunRecord>& runs = listing.runs;
  for (const SkippedRun& bad : listing.skipped)
    std::cerr << "sailor runs: skipped run " << bad.id << " in " << path << ": " << bad.reason
              << "\n";
  if (as_json) {
    json out = json::array();
    for (const auto& r : runs) out.push_back(runJson(r));
    std::cout << out.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  } else if (runs.empty()) {
    std::cout << "No runs recorded in " << path << "\n";
  } else {
    // The status column as wide as its longest entry ("failed (controller gone)").
    std::size_t status_w = 8;
    for (const auto& r : runs) status_w = std::max(status_w, statusText(r).size());
    std::cout << fmt::format("{:>6}  {:<{}}  {:<24}  {:>5}  {:>12}  {}\n", "id", "status", status_w,
                             "started (UTC)", "world", "iterations", "name");
    for (const auto& r : runs) {
      const std::string its =
          std::to_string(r.iterations_done) + "/" + std::to_string(r.iterations_planned);
      std::cout << fmt::format("{:>6}  {:<{}}  {:<24}  {:>5}  {:>12}  ", r.id, statusText(r),
                               status_w, r.started_at, r.world_size, its)
                << r.name << "\n";
    }
  }
  return 0;
}

// `sailor runs show ID --json`: {run, iterations, events, prediction}.
void printRunJson(const RunStore& store, const std::string& path, const RunRecord& run,
                  const std::vector<IterationRecord>& iterations) {
  json out{{"run", runJson(run)}, {"iterations", json::array()}, {"events", json::array()}};
  for (const auto& it : iterations) out["iterations"].push_back(toJson(it));
  for (const auto& e : store.events(run.id)) out["events"].push_back(toJson(e));
  try {
    out["prediction"] = runPredictionJson(loadRecordedRun(path, run.id, "runs show"));
  } catch (const InputError&) {  // a run_started that cannot be read: nothing to compare
    out["prediction"] = nullptr;
  }
  std::cout << out.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

// The scheduler's last word on a cluster run's job: the last job_state event that decodes.
std::string lastJobState(const RunStore& store, std::int64_t id) {
  std::string state = "-";
  for (const auto& e : store.events(id)) {
    if (e.kind != "job_state") continue;
    try {
      const JobStateEvent js = std::get<JobStateEvent>(runEventFromJson(e.payload).body);
      state = js.state + (js.reason.empty() ? "" : " (" + js.reason + ")");
    } catch (const std::exception&) {  // a damaged row: the previous state stands
    }
  }
  return state;
}

// The schedule the run trains with, as its plan says ("DeepSpeed schedule" without one).
std::string scheduleText(const RunRecord& run) {
  try {
    const Schedule s = run.plan.contains("schedule")
                           ? Schedule::fromJson(run.plan["schedule"], "plan.schedule")
                           : Schedule{};
    Job job;
    if (run.job.contains("recompute") && run.job["recompute"].is_string())
      job.recompute = parseRecompute(run.job["recompute"].get<std::string>(), "job.recompute");
    return s.describe(job);
  } catch (const InputError& e) {
    return std::string("cannot be read: ") + e.what();
  }
}

// `sailor runs show ID` as text: the run's fields, its iterations, its changes of world, its
// prediction against what it measured, and how many events it recorded.
void printRunText(const RunStore& store, const std::string& path, const RunRecord& run,
                  const std::vector<IterationRecord>& iterations) {
  std::cout << "Run " << run.id << ": " << run.name << "\n"
            << "  status       " << statusText(run) << "\n"
            << "  started      " << run.started_at << "\n"
            << "  finished     " << (run.finished_at.empty() ? "-" : run.finished_at) << "\n"
            << "  world size   " << run.world_size << "\n"
            << "  backend      " << run.backend << "\n"
            << "  schedule     " << scheduleText(run) << "\n"
            << "  iterations   " << run.iterations_done << " of " << run.iterations_planned << "\n";
  if (!run.error.empty()) std::cout << "  error        " << run.error << "\n";
  if (!run.job_id.empty())
    std::cout << "  job          " << run.launcher << " " << run.job_id << ", "
              << lastJobState(store, run.id) << "\n";
  if (const auto gone = orphanReason(run)) std::cout << "  error        " << *gone << "\n";
  if (iterations.empty()) {
    std::cout << "No iterations recorded.\n";
  } else {
    std::cout << "Iterations:\n"
              << fmt::format("{:>11}  {:>12}  {:>10}  {:>12}\n", "iteration", "loss", "seconds",
                             "tokens/s");
    for (const auto& it : iterations)
      std::cout << fmt::format("{:>11}  {:>12}  {:>10}  {:>12}\n", it.iteration, fixed(it.loss, 4),
                               fixed(it.iteration_seconds, 3), fixed(it.tokens_per_second, 1));
  }
  // An elastic run's changes of world (sailor run --trace, resize, a worker lost).
  std::cout << formatElasticity(store.events(run.id));
  try {
    std::cout << formatRunPrediction(loadRecordedRun(path, run.id, "runs show"));
  } catch (const InputError& e) {
    std::cout << "Prediction against measurement:\n  cannot be read: " << e.what() << "\n";
  }
  std::cout << "Events: " << store.eventCount(run.id) << "\n";
}

// `sailor runs show ID`: exit 2 when the store has no run ID.
int runsShow(const std::string& path, bool exists, std::int64_t id, bool as_json) {
  std::optional<RunStore> store;
  std::optional<RunRecord> run;
  if (exists) {
    store.emplace(path, StoreAccess::ReadOnly);
    run = store->run(id);
  }
  if (!run) {
    std::cerr << "sailor runs: no run " << id << " in " << path << "\n";
    return kExitInput;
  }
  const auto iterations = store->iterations(id);
  if (as_json) printRunJson(*store, path, *run, iterations);
  else printRunText(*store, path, *run, iterations);
  return 0;
}

// The run id of `sailor runs show ID`, which must be the only argument after "show".
std::int64_t showRunId(const std::vector<std::string>& positional) {
  if (positional.size() != 2)
    throw InputError("runs show", std::to_string(positional.size() - 1) + " ids", "one run id");
  const std::string& v = positional[1];
  std::int64_t id = 0;
  size_t used = 0;
  try {
    id = std::stoll(v, &used);
  } catch (...) {
    used = 0;
  }
  if (used != v.size() || id < 1)
    throw InputError("runs show", "\"" + v + "\"", "a run id (a positive integer)");
  return id;
}

}  // namespace

// `sailor runs list|show ID`: reads the run store read-only; never creates one (a store that does
// not exist yet has no runs).
int cmdRuns(int argc, char** argv) {
  if (wantsHelp(argc, argv, 2)) {
    std::cout << kRunsHelp;
    return 0;
  }
  CLI::App app;
  setUpCommand(app);
  const CLI::Option* as_json = app.add_flag("--json");
  std::optional<std::string> store;
  app.add_option("--store", store);
  const std::vector<std::string> positional = parseCommand(app, argc, argv, 2);
  const std::string sub = positional.empty() ? "" : positional[0];
  if (sub != "list" && sub != "show")
    throw InputError("runs", sub.empty() ? "nothing" : "\"" + sub + "\"",
                     "\"list\" or \"show ID\"");
  if (sub == "list" && positional.size() != 1)
    throw InputError("runs list", "\"" + positional[1] + "\"", "options only (see --help)");
  const std::int64_t id = sub == "show" ? showRunId(positional) : 0;
  try {
    const std::string path = store ? *store : RunStore::defaultPath();
    std::error_code ec;
    const bool exists = std::filesystem::exists(path, ec);
    if (std::filesystem::is_directory(path, ec))
      throw InputError(store ? "--store" : "the run store",
                       "\"" + printableLine(path) + "\", which is a directory",
                       "a SQLite run store file");
    if (sub == "list") return runsList(path, exists, as_json->count() > 0);
    return runsShow(path, exists, id, as_json->count() > 0);
  } catch (const StoreError& e) {
    std::cerr << "sailor runs: error: " << e.what() << "\n";
    return kExitInput;
  }
}

}  // namespace sailor::cli
