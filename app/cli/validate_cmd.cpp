// `sailor validate` (the simulator against measured points, published training runs, or a
// recorded run) and `sailor calibrate` (a local profile fitted to recorded runs).
#include <cstdint>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "args.hpp"
#include "closed_loop.hpp"
#include "commands.hpp"
#include "format.hpp"
#include "help.hpp"
#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/core/utf8.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/reference.hpp"
#include "sailor/runs/run_store.hpp"
#include "sailor/simulation/published_runs.hpp"
#include "sailor/simulation/simulator.hpp"

#include <CLI/CLI.hpp>

namespace sailor::cli {

namespace {

using nlohmann::json;

// `sailor validate --run ID [--store FILE] [--profile DIR] [--json]` (closed_loop.hpp).
int cmdValidateRun(int argc, char** argv) {
  CLI::App app;
  setUpCommand(app);
  const CLI::Option* as_json = app.add_flag("--json");
  std::optional<std::string> run, store, profile;
  app.add_option("--run", run);
  app.add_option("--store", store);
  app.add_option("--profile", profile);
  const std::vector<std::string> positional = parseCommand(app, argc, argv, 2);
  if (!positional.empty())
    throw InputError("validate --run", "\"" + positional[0] + "\"",
                     "options only (POINTS.json is the other form of validate)");
  const std::int64_t id = runIdArg("--run", required(run, "--run"));
  const std::string store_path = store ? *store : RunStore::defaultPath();
  validateRun(store_path, id, profile, as_json->count() > 0);
  return 0;
}

// The options of `sailor validate POINTS.json|PUBLISHED.json`.
struct ValidateArgs {
  const CLI::Option* json = nullptr;
  const CLI::Option* non_blocking_p2p = nullptr;
  const CLI::Option* compare_sailor = nullptr;
  const CLI::Option* strict = nullptr;
  std::optional<std::string> reference;
};

void declare(CLI::App& app, ValidateArgs& a) {
  a.json = app.add_flag("--json");
  a.non_blocking_p2p = app.add_flag("--non-blocking-p2p");
  a.compare_sailor = app.add_flag("--compare-sailor");
  a.strict = app.add_flag("--strict");
  app.add_option("--reference", a.reference);
}

// The document at `path` when it is in the published-runs format; nullopt otherwise (also when
// it cannot be read: the measured-points path reports that).
std::optional<json> publishedRunsAt(const std::string& path) {
  try {
    json doc = json_util::readFile(path);
    if (isPublishedRuns(doc)) return doc;
  } catch (const InputError&) {
  }
  return std::nullopt;
}

// The first three skipped entries' "id: why" (and how many more), for a one-line error.
template <typename Skipped, typename Why>
std::string firstSkipped(const std::vector<Skipped>& skipped, Why why_of) {
  std::string why;
  for (size_t k = 0; k < skipped.size() && k < 3; ++k)
    why += (k ? "; " : "") + skipped[k].id + ": " + why_of(skipped[k]);
  if (skipped.size() > 3) why += "; and " + std::to_string(skipped.size() - 3) + " more";
  return why;
}

// `sailor validate PUBLISHED.json [--strict] [--json]` (sailor/simulation/published_runs.hpp).
int cmdValidatePublished(const ValidateArgs& a, const std::string& path, const json& doc,
                         const Catalog& cat) {
  const std::pair<const char*, bool> not_for_published[] = {
      {"--reference", a.reference.has_value()},
      {"--compare-sailor", a.compare_sailor->count() > 0},
      {"--non-blocking-p2p", a.non_blocking_p2p->count() > 0}};
  for (const auto& [option, given] : not_for_published)
    if (given)
      throw InputError(option, "given",
                       "none for a published-runs file (each row names its hardware "
                       "and framework)");
  const PublishedReport rep = validatePublishedRuns(readPublishedRuns(doc, cat, path));
  if (rep.rows.empty() || (a.strict->count() > 0 && !rep.skipped.empty())) {
    const std::string why =
        firstSkipped(rep.skipped, [](const auto& s) -> const std::string& { return s.reason; });
    std::cerr << "sailor validate: error: " << printableLine(path) << ": "
              << (rep.rows.empty() ? "no run that can be predicted"
                                   : std::to_string(rep.skipped.size()) + " of " +
                                         std::to_string(rep.skipped.size() + rep.rows.size()) +
                                         " runs cannot be predicted (--strict)")
              << ": " << printableLine(why, 4096) << "\n";
    return kExitInput;
  }
  if (!rep.skipped.empty())
    std::cerr << "sailor validate: " << rep.skipped.size() << " of "
              << rep.skipped.size() + rep.rows.size()
              << " runs skipped, left out of the means (listed under "
              << (a.json->count() > 0 ? "\"skipped\"" : "\"Skipped\"") << ")\n";
  if (a.json->count() > 0) std::cout << rep.toJson().dump(2) << "\n";
  else std::cout << rep.toText();
  return 0;
}

// `sailor validate POINTS.json --reference DIR ...`: each measured point predicted with
// SAILOR's profiles under DIR.
int cmdValidatePoints(const ValidateArgs& a, const std::string& path, const Catalog& cat) {
  SailorReference ref = SailorReference::load(required(a.reference, "--reference"), cat);
  SimulatorOptions opt;
  if (a.non_blocking_p2p->count() > 0) opt.schedule = PipelineSchedule::Async1F1B;
  // Every point it can predict; those it cannot read or predict are listed in rep.skipped.
  ValidationReport rep =
      validatePoints(readMeasuredPoints(path, cat), ref, cat, opt, a.compare_sailor->count() > 0);
  const bool as_json = a.json->count() > 0;
  if (!rep.skipped.empty() && (rep.rows.empty() || a.strict->count() > 0)) {
    // One line: what is wrong, then the first few points' errors.
    const std::string why =
        firstSkipped(rep.skipped, [](const auto& s) -> const std::string& { return s.error; });
    std::cerr << "sailor validate: error: " << printableLine(path) << ": "
              << (rep.rows.empty() ? "no point that can be predicted"
                                   : std::to_string(rep.skipped.size()) + " of " +
                                         std::to_string(rep.skipped.size() + rep.rows.size()) +
                                         " points cannot be predicted (--strict)")
              << ": " << printableLine(why, 4096) << "\n";
    return kExitInput;
  }
  if (!rep.skipped.empty())
    std::cerr << "sailor validate: " << rep.skipped.size() << " of "
              << rep.skipped.size() + rep.rows.size()
              << " points skipped, left out of the means (listed under "
              << (as_json ? "\"skipped\"" : "\"Skipped\"") << ")\n";
  const auto& adjusted = ref.profiles->adjustments();
  if (as_json) {
    json out = rep.toJson();
    out["profile_adjustments"] = adjusted;
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << formatValidation(rep);
    if (!adjusted.empty()) {
      std::cout << "\nSAILOR profiles brought to the catalogue's layer conventions "
                   "(docs/simulator.md):\n";
      for (const auto& line : adjusted) std::cout << "  " << line << "\n";
    }
  }
  return 0;
}

}  // namespace

int cmdValidate(int argc, char** argv) {
  if (wantsHelp(argc, argv, 2)) {
    std::cout << kValidateHelp;
    return 0;
  }
  for (int i = 2; i < argc; ++i)
    if (!std::strcmp(argv[i], "--run") || !std::strncmp(argv[i], "--run=", 6))
      return cmdValidateRun(argc, argv);
  CLI::App app;
  setUpCommand(app);
  ValidateArgs a;
  declare(app, a);
  const std::vector<std::string> positional = parseCommand(app, argc, argv, 2);
  if (positional.size() != 1)
    throw InputError("validate", std::to_string(positional.size()) + " files", "one POINTS.json");
  Catalog cat = Catalog::load(resourceDir());
  if (const auto published = publishedRunsAt(positional[0]))
    return cmdValidatePublished(a, positional[0], *published, cat);
  return cmdValidatePoints(a, positional[0], cat);
}

int cmdCalibrate(int argc, char** argv) {
  if (wantsHelp(argc, argv, 2)) {
    std::cout << kCalibrateHelp;
    return 0;
  }
  CLI::App app;
  setUpCommand(app);
  const CLI::Option* as_json = app.add_flag("--json");
  const CLI::Option* in_place = app.add_flag("--in-place");
  std::vector<std::string> runs;
  std::optional<std::string> profile, out, store;
  repeatable(app.add_option("--run", runs));
  app.add_option("--profile", profile);
  app.add_option("--out", out);
  app.add_option("--store", store);
  parseOptionsOnly(app, argc, argv, 2, "calibrate");
  std::vector<std::int64_t> ids;
  for (const std::string& v : runs) ids.push_back(runIdArg("--run", v));
  if (ids.empty()) throw InputError("--run", "nothing", "at least one run id");
  const std::string store_path = store ? *store : RunStore::defaultPath();
  calibrateRuns(store_path, ids, required(profile, "--profile"), out, in_place->count() > 0,
                as_json->count() > 0);
  return 0;
}

}  // namespace sailor::cli
