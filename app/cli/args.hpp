// What the `sailor` commands share in reading their command lines: the exit codes, how a
// command's CLI::App is set up and parsed (its options bound to variables; the errors in the
// product's one-line form), numbers from option values, and the scenario, job and plan files.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/planning/campaign.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/scenario/scenario.hpp"

#include <CLI/CLI.hpp>

namespace sailor::cli {

inline constexpr int kExitInput = 2;
inline constexpr int kExitNoPlan = 3;

// Sets `app` up as every `sailor` command reads its options; call it before declaring them.
// --help is not CLI11's (each command prints its own text: wantsHelp). A valued option
// (add_option bound to a std::optional<std::string>) takes the next argument whatever it looks
// like, or `--option=value`, and the last one given wins; repeatable() makes one keep them all.
// A flag (add_flag, unbound: its count says whether it was given) takes no value, and
// `--flag=anything` counts as given.
void setUpCommand(CLI::App& app);

// `option` (an add_option bound to a std::vector<std::string>) made repeatable: one value per
// occurrence, all kept in order.
CLI::Option* repeatable(CLI::Option* option);

// Parses argv[first..argc) into the options declared on `app` and returns the arguments that are
// no option, in order. Bad input (InputError, as `sailor` has always worded it): an argument
// written as an unknown option ("--name" or "--name=value"; the first one), then a valued
// option that ends the command line. Other arguments CLI11 does not recognise ("-x", "--") are
// returned as positional.
std::vector<std::string> parseCommand(CLI::App& app, int argc, char** argv, int first);

// parseCommand for a command that takes options only: its first positional argument is bad
// input named `command` ("plan: got \"x\", expected options only (see --help)").
void parseOptionsOnly(CLI::App& app, int argc, char** argv, int first, const std::string& command);

// Whether argv[first..argc) holds --help or -h anywhere (also as another option's value).
bool wantsHelp(int argc, char** argv, int first);

// The value of `option`; InputError when it was not given.
const std::string& required(const std::optional<std::string>& value, const std::string& option);

// The value `v` of option `opt` as a finite number > 0 (`expected` names it in the error).
// The whole run's failure model from its options (--checkpoint-gb-per-s, --restart-s,
// --reconfigure-s; docs/planner.md "Days and dollars"): each given one checked, the rest the
// defaults.
struct FailureArgs {
  std::optional<std::string> checkpoint_gb_per_s, restart_s, reconfigure_s;
};
FailureModel failureModelFrom(const FailureArgs& a);

double positiveNumber(const std::string& opt, const std::string& v,
                      const std::string& expected = "a positive number");

// The value `v` of option `opt` as an integer in [min, 1000000].
int positiveInt(const std::string& opt, const std::string& v, int min);

// f(the JSON document at `path`), its input errors naming `path`.
template <typename T>
T loadWithContext(const std::string& path, const std::function<T(const nlohmann::json&)>& f) {
  nlohmann::json j = json_util::readFile(path);
  try {
    return f(j);
  } catch (const InputError& e) {
    throw withContext(e, path);
  }
}

// The scenario, job and plan of --scenario, --job and --plan, the plan checked against them (its
// errors name the plan file): what simulate and export start from.
struct PlanFiles {
  Scenario scenario;
  Job job;
  Plan plan;
};
PlanFiles loadPlanFiles(const std::optional<std::string>& scenario_path,
                        const std::optional<std::string>& job_path,
                        const std::optional<std::string>& plan_path, const Catalog& cat);

}  // namespace sailor::cli
