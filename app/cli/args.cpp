// Reading a `sailor` command's command line (args.hpp).
#include "args.hpp"

#include <cmath>
#include <cstring>

namespace sailor::cli {

void setUpCommand(CLI::App& app) {
  app.set_help_flag();  // each command prints its own --help text (wantsHelp)
  app.allow_extras();   // unknown options and positionals come back in remaining()
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

CLI::Option* repeatable(CLI::Option* option) {
  return option->expected(1)->allow_extra_args(false)->multi_option_policy(
      CLI::MultiOptionPolicy::TakeAll);
}

namespace {

// Throws for the first argument CLI11 did not recognise that is written as an option
// ("--name" or "--name=value"), listing the options `app` declares; the others it did not
// recognise are positional.
void rejectUnknownOptions(const CLI::App& app) {
  for (std::string s : app.remaining()) {
    if (s.rfind("--", 0) != 0) continue;
    s = s.substr(0, s.find('='));
    std::string all;
    for (const CLI::Option* o : app.get_options()) all += (all.empty() ? "" : ", ") + o->get_name();
    throw InputError(s, "an unknown option", "one of: " + all);
  }
}

}  // namespace

std::vector<std::string> parseCommand(CLI::App& app, int argc, char** argv, int first) {
  std::vector<std::string> args;  // CLI11 takes them last first
  for (int i = argc - 1; i >= first; --i) args.emplace_back(argv[i]);
  try {
    app.parse(args);
  } catch (const CLI::ArgumentMismatch&) {
    // Only a valued option with nothing after it stops CLI11 here (it takes the next
    // argument whatever it is); an unknown option before it is reported first.
    rejectUnknownOptions(app);
    const std::string last = argv[argc - 1];
    throw InputError(last.substr(0, last.find('=')), "nothing", "a value after the option");
  } catch (const CLI::ParseError& e) {
    throw InputError("options", "\"" + std::string(e.what()) + "\"",
                     "options as --help lists them");
  }
  rejectUnknownOptions(app);
  return app.remaining();
}

void parseOptionsOnly(CLI::App& app, int argc, char** argv, int first, const std::string& command) {
  const std::vector<std::string> positional = parseCommand(app, argc, argv, first);
  if (!positional.empty())
    throw InputError(command, "\"" + positional[0] + "\"", "options only (see --help)");
}

bool wantsHelp(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) return true;
  return false;
}

const std::string& required(const std::optional<std::string>& value, const std::string& option) {
  if (!value) throw InputError(option, "nothing", "a value (see --help)");
  return *value;
}

double positiveNumber(const std::string& opt, const std::string& v, const std::string& expected) {
  try {
    size_t used = 0;
    double d = std::stod(v, &used);
    if (used == v.size() && d > 0 && std::isfinite(d)) return d;
  } catch (...) {
  }
  throw InputError(opt, "\"" + v + "\"", expected);
}

int positiveInt(const std::string& opt, const std::string& v, int min) {
  try {
    size_t used = 0;
    long n = std::stol(v, &used);
    if (used == v.size() && n >= min && n <= 1000000) return static_cast<int>(n);
  } catch (...) {
  }
  throw InputError(opt, "\"" + v + "\"", "an integer >= " + std::to_string(min));
}

PlanFiles loadPlanFiles(const std::optional<std::string>& scenario_path,
                        const std::optional<std::string>& job_path,
                        const std::optional<std::string>& plan_path, const Catalog& cat) {
  using nlohmann::json;
  const std::string& sp = required(scenario_path, "--scenario");
  const std::string& jp = required(job_path, "--job");
  const std::string& pp = required(plan_path, "--plan");
  PlanFiles f;
  f.scenario =
      loadWithContext<Scenario>(sp, [&](const json& j) { return Scenario::fromJson(j, cat); });
  f.job = loadWithContext<Job>(jp, [&](const json& j) { return Job::fromJson(j, cat); });
  f.plan = loadWithContext<Plan>(pp, [&](const json& j) { return Plan::fromJson(j); });
  try {
    f.plan.validate(f.job, cat, f.scenario);
  } catch (const InputError& e) {
    throw withContext(e, pp);
  }
  return f;
}

FailureModel failureModelFrom(const FailureArgs& a) {
  FailureModel f;
  if (a.checkpoint_gb_per_s)
    f.checkpoint_gb_per_s = positiveNumber("--checkpoint-gb-per-s", *a.checkpoint_gb_per_s,
                                           "a bandwidth per GPU in GB/s from 1e-06 to 1e+06");
  // Seconds from 0 to 1e7: a restart, an in-place reconfiguration.
  auto seconds_arg = [](const std::string& opt, const std::string& v) {
    double x = -1;
    try {
      size_t used = 0;
      x = std::stod(v, &used);
      if (used != v.size()) x = -1;
    } catch (const std::logic_error&) {  // std::stod's invalid_argument and out_of_range
    }
    if (!(x >= 0 && x <= 1e7)) throw InputError(opt, "\"" + v + "\"", "seconds from 0 to 1e+07");
    return x;
  };
  if (a.restart_s) f.restart_s = seconds_arg("--restart-s", *a.restart_s);
  if (a.reconfigure_s) f.reconfigure_s = seconds_arg("--reconfigure-s", *a.reconfigure_s);
  f.check();
  return f;
}

}  // namespace sailor::cli
