// The command line's closed loop (closed_loop.hpp).
#include "closed_loop.hpp"

#include <fmt/core.h>
#include <stdlib.h>  // mkdtemp

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/runs/run_prediction.hpp"
#include "sailor/simulation/calibrate.hpp"

namespace sailor::cli {

using nlohmann::json;
namespace fs = std::filesystem;

std::int64_t runIdArg(const std::string& option, const std::string& text) {
  std::size_t used = 0;
  long long id = 0;
  try {
    id = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || id < 1)
    throw InputError(option, "\"" + text + "\"", "a run id (a positive integer)");
  return id;
}

RecordedRun loadRecordedRun(const std::string& store_path, std::int64_t id,
                            const std::string& option) {
  const std::string what = "run " + std::to_string(id);
  const std::string expected = "a run id of `sailor runs list` in " + store_path;
  std::error_code ec;
  if (!fs::exists(store_path, ec))
    throw InputError(option, what + " (no run store there)", expected);
  const RunStore store(store_path, StoreAccess::ReadOnly);
  const std::optional<RunRecord> rec = store.run(id);
  if (!rec) throw InputError(option, what, expected);
  RecordedRun out;
  out.record = *rec;
  bool started = false;
  for (const EventRecord& e : store.events(id)) {
    if (e.kind != "run_started") continue;
    try {
      out.started = std::get<RunStartedEvent>(runEventFromJson(e.payload).body);
      started = true;
    } catch (const InputError& err) {
      throw InputError(option,
                       what + ", whose run_started event cannot be read (" + err.what() + ")",
                       "a run recorded by sailor run");
    }
    break;
  }
  if (!started)
    throw InputError(option, what + ", which has no run_started event",
                     "a run recorded by sailor run");
  for (const IterationRecord& it : store.iterations(id))
    out.iterations.push_back(iterationFromRecord(it));
  return out;
}

std::string formatRunPrediction(const RecordedRun& run) {
  std::string out = "Prediction against measurement:\n";
  if (!run.started.prediction)
    return out + "  " +
           (run.started.prediction_note.empty()
                ? std::string("no local prediction (recorded before runs had one)")
                : run.started.prediction_note) +
           "\n";
  if (run.iterations.empty())
    return out + "  " + run.started.prediction->label() + ": no iterations measured yet\n";
  return out + formatComparison(compareRun(run.record.id, run.started, run.iterations));
}

json runPredictionJson(const RecordedRun& run) {
  if (!run.started.prediction || run.iterations.empty()) return json();
  return compareRun(run.record.id, run.started, run.iterations).toJson();
}

void validateRun(const std::string& store_path, std::int64_t id,
                 const std::optional<std::string>& profile_dir, bool as_json) {
  RecordedRun run = loadRecordedRun(store_path, id, "--run");
  if (profile_dir) {
    const LocalProfile p = LocalProfile::load(*profile_dir, "--profile");
    const RunStartedEvent& s = run.started;
    if (const auto why = profileMismatch(p, s.model, s.precision, s.dtype))
      throw InputError("--profile",
                       "\"" + *profile_dir + "\", whose model differs from run " +
                           std::to_string(id) + "'s (" + *why + ")",
                       "a profile of the model the run trained");
    run.started.prediction =
        predictOnProfile(p, s.plan, s.global_batch_size, s.model, s.precision, s.optimizer,
                         s.recompute, Catalog::load(resourceDir()));
  }
  const RunComparison c = compareRun(id, run.started, run.iterations);
  if (as_json) {
    json out = c.toJson();
    out["run"] = id;
    std::cout << out.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  } else {
    std::cout << "Run " << id << ": " << run.record.name << "\n" << formatComparison(c);
  }
}

namespace {

// The calibrated profile directory, written whole: a temporary directory beside `out` holding
// every file, renamed to `out` when it does not exist; into an existing profile directory each
// file is renamed over its old one (each replaced atomically). An existing `out` that is not a
// profile directory is refused (nothing written).
void writeProfileDir(const std::string& in, const std::string& out, const json& profile,
                     const json& catalog, const json& calibration) {
  std::error_code ec;
  const bool exists = fs::exists(out, ec);
  if (exists && !fs::exists(out + "/profile.json", ec))
    throw InputError("--out", "\"" + out + "\" (exists and is not a profile directory)",
                     "a new directory or a profile directory to replace");
  const fs::path parent = fs::absolute(out).parent_path();
  fs::create_directories(parent);
  std::string tmp = (parent / (fs::path(out).filename().string() + ".tmp-XXXXXX")).string();
  if (!mkdtemp(tmp.data()))
    throw std::runtime_error("mkdtemp " + tmp + ": " + std::strerror(errno));
  try {
    for (const char* f : {"catalog.json", "scenario.json", "job.json", "measurements.json"})
      if (fs::exists(in + "/" + f, ec)) fs::copy_file(in + "/" + f, tmp + "/" + f);
    if (!catalog.is_null())  // a fitted collective bus bandwidth
      json_util::writeFileAtomically(tmp + "/catalog.json", catalog.dump(1) + "\n");
    json_util::writeFileAtomically(tmp + "/calibration.json", calibration.dump(1) + "\n");
    json_util::writeFileAtomically(tmp + "/profile.json", profile.dump(1) + "\n");
    if (!exists) {
      fs::rename(tmp, out);
      return;
    }
    // profile.json last: until it is replaced the directory holds the old profile whole.
    for (const char* f :
         {"catalog.json", "scenario.json", "job.json", "measurements.json", "calibration.json"})
      if (fs::exists(tmp + "/" + f, ec)) fs::rename(tmp + "/" + f, out + "/" + f);
    fs::rename(tmp + "/profile.json", out + "/profile.json");
    fs::remove_all(tmp, ec);
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
}

}  // namespace

void calibrateRuns(const std::string& store_path, const std::vector<std::int64_t>& ids,
                   const std::string& profile_dir, const std::optional<std::string>& out,
                   bool in_place, bool as_json) {
  if (ids.empty()) throw InputError("--run", "nothing", "at least one run id");
  if (in_place && out)
    throw InputError("--in-place", "given with --out", "one of them (where to write)");
  const LocalProfile p = LocalProfile::load(profile_dir, "--profile");
  std::vector<CalibrationRun> runs;
  for (std::int64_t id : ids) {
    RecordedRun r = loadRecordedRun(store_path, id, "--run");
    runs.push_back({id, std::move(r.started), std::move(r.iterations)});
  }
  const CalibrationResult res = calibrateProfile(p, runs);
  const std::string dest = in_place ? p.dir : out ? *out : p.dir + "-calibrated";
  std::error_code ec;
  if (!in_place && fs::equivalent(dest, p.dir, ec))
    throw InputError("--out", "\"" + dest + "\" (the input profile)",
                     "another directory, or --in-place to replace the input's profile.json");
  json calibration = res.toJson();
  calibration["from_profile"] = p.dir;
  calibration["runs"] = ids;
  calibration["store"] = store_path;
  if (in_place) {
    json_util::writeFileAtomically(p.dir + "/calibration.json", calibration.dump(1) + "\n");
    if (!res.catalog.is_null())
      json_util::writeFileAtomically(p.dir + "/catalog.json", res.catalog.dump(1) + "\n");
    json_util::writeFileAtomically(p.dir + "/profile.json", res.profile.dump(1) + "\n");
  } else {
    writeProfileDir(p.dir, dest, res.profile, res.catalog, calibration);
  }
  if (as_json) {
    calibration["out"] = dest;
    std::cout << calibration.dump(2) << "\n";
    return;
  }
  std::cout << formatCalibration(res, dest)
            << fmt::format(
                   "use it: sailor simulate|plan --catalog {0}/catalog.json --profiles "
                   "{0}/profile.json --scenario {0}/scenario.json ..., or sailor run "
                   "--profile {0}\n",
                   dest);
}

}  // namespace sailor::cli
