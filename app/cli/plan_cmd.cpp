// `sailor plan`: the search for the best plans on a scenario, or on each row of an availability
// trace (--trace), with the what-if of a job over the trace (--trace-iterations).
#include <fmt/core.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "format.hpp"
#include "help.hpp"
#include "progress_line.hpp"
#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/core/utf8.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/prices.hpp"
#include "sailor/model/reference.hpp"
#include "sailor/planning/campaign.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/planning/trace_whatif.hpp"
#include "sailor/scenario/cluster.hpp"
#include "sailor/scenario/session.hpp"
#include "sailor/scenario/stale_prices.hpp"
#include "sailor/scenario/trace_scenario.hpp"

#include <CLI/CLI.hpp>

namespace sailor::cli {

namespace {

using nlohmann::json;

// The options of `sailor plan`, declared in the order its unknown-option error lists them.
struct PlanArgs {
  const CLI::Option* json = nullptr;
  const CLI::Option* pareto = nullptr;
  const CLI::Option* knee = nullptr;
  const CLI::Option* progress = nullptr;
  const CLI::Option* no_progress = nullptr;
  std::optional<std::string> scenario;
  std::vector<std::string> catalogs, profiles;
  std::optional<std::string> reference, trace, trace_iterations;
  std::optional<std::string> job, model, global_batch, seq_len, precision, optimizer, recompute;
  std::optional<std::string> objective, max_cost_per_iteration, max_cost_per_hour, min_throughput,
      max_gpus, top, threads, output, microbatch_sizes, max_stages, max_price_age_days;
  std::vector<std::string> no_heuristics;
  std::optional<std::string> max_partial_plans, time_limit, memory_reserve, memory_reserve_mode,
      schedule;
  std::optional<std::string> training_tokens, training_iterations, deadline_days, budget_usd,
      checkpoint_gb_per_s, restart_s, reconfigure_s;
};

void declare(CLI::App& app, PlanArgs& a) {
  a.json = app.add_flag("--json");
  a.pareto = app.add_flag("--pareto");
  a.knee = app.add_flag("--knee");
  a.progress = app.add_flag("--progress");
  a.no_progress = app.add_flag("--no-progress");
  app.add_option("--scenario", a.scenario);
  repeatable(app.add_option("--catalog", a.catalogs));
  repeatable(app.add_option("--profiles", a.profiles));
  app.add_option("--reference", a.reference);
  app.add_option("--trace", a.trace);
  app.add_option("--trace-iterations", a.trace_iterations);
  app.add_option("--job", a.job);
  app.add_option("--model", a.model);
  app.add_option("--global-batch", a.global_batch);
  app.add_option("--seq-len", a.seq_len);
  app.add_option("--precision", a.precision);
  app.add_option("--optimizer", a.optimizer);
  app.add_option("--recompute", a.recompute);
  app.add_option("--objective", a.objective);
  app.add_option("--max-cost-per-iteration", a.max_cost_per_iteration);
  app.add_option("--max-cost-per-hour", a.max_cost_per_hour);
  app.add_option("--min-throughput", a.min_throughput);
  app.add_option("--max-gpus", a.max_gpus);
  app.add_option("--max-price-age-days", a.max_price_age_days);
  app.add_option("--top", a.top);
  app.add_option("--threads", a.threads);
  app.add_option("--output", a.output);
  app.add_option("--microbatch-sizes", a.microbatch_sizes);
  app.add_option("--max-stages", a.max_stages);
  repeatable(app.add_option("--no-heuristic", a.no_heuristics));
  app.add_option("--max-partial-plans", a.max_partial_plans);
  app.add_option("--time-limit", a.time_limit);
  app.add_option("--memory-reserve", a.memory_reserve);
  app.add_option("--memory-reserve-mode", a.memory_reserve_mode);
  app.add_option("--schedule", a.schedule);
  app.add_option("--training-tokens", a.training_tokens);
  app.add_option("--training-iterations", a.training_iterations);
  app.add_option("--deadline-days", a.deadline_days);
  app.add_option("--budget-usd", a.budget_usd);
  app.add_option("--checkpoint-gb-per-s", a.checkpoint_gb_per_s);
  app.add_option("--restart-s", a.restart_s);
  app.add_option("--reconfigure-s", a.reconfigure_s);
}

// The whole run's options over the job's fields: each a number above 0 and at most its bound.
void applyBudgetArgs(const PlanArgs& a, Job& job) {
  auto number = [](const std::string& opt, const std::string& v, double max,
                   const std::string& unit) {
    const std::string expected = "a number above 0 and at most " + toText(max) + " (" + unit + ")";
    const double x = positiveNumber(opt, v, expected);
    if (x > max) throw InputError(opt, "\"" + v + "\"", expected);
    return x;
  };
  if (a.training_tokens && a.training_iterations)
    throw InputError("--training-iterations", *a.training_iterations,
                     "absent when --training-tokens is given (one budget or the other)");
  if (a.training_tokens) {
    job.training_tokens =
        number("--training-tokens", *a.training_tokens, kMaxTrainingTokens, "tokens");
    job.training_iterations.reset();
  }
  if (a.training_iterations) {
    job.training_iterations = number("--training-iterations", *a.training_iterations,
                                     kMaxTrainingIterations, "iterations");
    job.training_tokens.reset();
  }
  if (a.deadline_days)
    job.deadline_days =
        number("--deadline-days", *a.deadline_days, kMaxDeadlineDays, "days of wall clock");
  if (a.budget_usd) job.budget_usd = number("--budget-usd", *a.budget_usd, kMaxBudgetUsd, "USD");
  if ((job.deadline_days || job.budget_usd) && !job.trainingIterations())
    throw InputError(job.deadline_days ? "--deadline-days" : "--budget-usd",
                     toText(job.deadline_days ? *job.deadline_days : *job.budget_usd),
                     "a training budget beside it (--training-tokens or --training-iterations)");
}

FailureModel failureModelFromArgs(const PlanArgs& a) {
  return failureModelFrom({a.checkpoint_gb_per_s, a.restart_s, a.reconfigure_s});
}

Job jobFromArgs(const PlanArgs& a, const Catalog& cat) {
  if (a.job)
    return loadWithContext<Job>(*a.job, [&](const json& j) { return Job::fromJson(j, cat); });
  if (a.model) {
    json j{{"model", *a.model}};
    auto number = [&](const std::optional<std::string>& value, const std::string& opt) -> json {
      const std::string& v = required(value, opt);
      try {
        size_t used = 0;
        long long n = std::stoll(v, &used);
        if (used == v.size()) return n;
      } catch (...) {
      }
      throw InputError(opt, "\"" + v + "\"", "an integer");
    };
    j["global_batch_size"] = number(a.global_batch, "--global-batch");
    if (a.seq_len) j["sequence_length"] = number(a.seq_len, "--seq-len");
    if (a.precision) j["precision"] = *a.precision;
    if (a.optimizer) j["optimizer"] = *a.optimizer;
    if (a.recompute) j["recompute"] = *a.recompute;
    return Job::fromJson(j, cat);
  }
  const std::string def = resourceDir() + "/jobs/default.json";
  return loadWithContext<Job>(def, [&](const json& j) { return Job::fromJson(j, cat); });
}

// How `sailor plan` names the price sheet in its errors.
constexpr const char* kPriceSheetName = "resources/prices/default.json";

// --no-heuristic NAME (repeatable) switches the named heuristics off.
void switchOffHeuristics(const std::vector<std::string>& names, Heuristics& h) {
  for (const auto& name : names) {
    if (name == "h1") h.h1_tp_rule = false;
    else if (name == "h2") h.h2_oom_pruning = false;
    else if (name == "h3") h.h3_dp_descending = false;
    else if (name == "h4") h.h4_dp_ascending = false;
    else if (name == "h5") h.h5_dp_in_region = false;
    else if (name == "h6") h.h6_region_pools = false;
    else if (name == "h8") h.h8_homogeneous_stages = false;
    else if (name == "h12") h.h12_smallest_degree_per_m = false;
    else throw InputError("--no-heuristic", "\"" + name + "\"", "one of h1 h2 h3 h4 h5 h6 h8 h12");
  }
}

// The objective, constraints and search settings of `sailor plan`'s options.
PlannerOptions plannerOptionsFromArgs(const PlanArgs& a) {
  PlannerOptions opt;
  if (const auto& o = a.objective) {
    if (*o == "throughput") opt.objective = Objective::Throughput;
    else if (*o == "cost") opt.objective = Objective::Cost;
    else throw InputError("--objective", "\"" + *o + "\"", "\"throughput\" or \"cost\"");
  }
  if (a.max_cost_per_iteration)
    opt.max_usd_per_iteration =
        positiveNumber("--max-cost-per-iteration", *a.max_cost_per_iteration);
  if (a.max_cost_per_hour)
    opt.max_usd_per_hour = positiveNumber("--max-cost-per-hour", *a.max_cost_per_hour);
  if (a.min_throughput)
    opt.min_iterations_per_s = positiveNumber("--min-throughput", *a.min_throughput);
  if (a.max_gpus) opt.max_gpus = positiveInt("--max-gpus", *a.max_gpus, 1);
  if (a.top) opt.top_k = positiveInt("--top", *a.top, 1);
  if (a.threads) opt.threads = positiveInt("--threads", *a.threads, 1);
  if (a.max_stages) opt.heuristics.max_stages = positiveInt("--max-stages", *a.max_stages, 0);
  if (a.max_partial_plans)
    opt.heuristics.max_partial_plans = positiveInt("--max-partial-plans", *a.max_partial_plans, 0);
  if (a.time_limit)
    opt.time_limit_s =
        positiveNumber("--time-limit", *a.time_limit, "a positive number of seconds");
  if (const auto& f = a.memory_reserve) {
    const std::string expected = "a fraction of each GPU's memory from 0 to " +
                                 fmt::format("{:g}", kMaxMemoryReserveFraction);
    try {
      size_t used = 0;
      opt.memory_reserve_fraction = std::stod(*f, &used);
      if (used != f->size()) throw InputError("--memory-reserve", "\"" + *f + "\"", expected);
    } catch (const std::logic_error&) {  // std::stod's invalid_argument and out_of_range
      throw InputError("--memory-reserve", "\"" + *f + "\"", expected);
    }
    if (!(opt.memory_reserve_fraction >= 0 &&
          opt.memory_reserve_fraction <= kMaxMemoryReserveFraction))
      throw InputError("--memory-reserve", "\"" + *f + "\"", expected);
  }
  if (const auto& m = a.memory_reserve_mode) {
    if (*m == "drop") opt.memory_reserve_mode = MemoryReserveMode::Drop;
    else if (*m == "flag") opt.memory_reserve_mode = MemoryReserveMode::Flag;
    else throw InputError("--memory-reserve-mode", "\"" + *m + "\"", "\"drop\" or \"flag\"");
  }
  if (a.schedule) opt.schedules = parseScheduleSearch(*a.schedule, "--schedule");
  opt.pareto = a.pareto->count() > 0 || a.knee->count() > 0;  // the knee needs the frontier
  if (a.microbatch_sizes) {
    std::stringstream ss(*a.microbatch_sizes);
    std::string item;
    while (std::getline(ss, item, ','))
      opt.microbatch_sizes.push_back(positiveInt("--microbatch-sizes", item, 1));
  }
  switchOffHeuristics(a.no_heuristics, opt.heuristics);
  return opt;
}

// What `sailor plan` searches over: the catalogue, the job, the profiles and the scenario
// (--scenario, else SAILOR's quotas with --reference, else the built-in one).
struct PlanInputs {
  Catalog cat;
  Job job;
  ProfileSet profiles;
  std::optional<SailorReference> ref;
  PriceSheet prices;
  Scenario scenario;
  PriceSource priceSource() const { return {prices, kPriceSheetName}; }
};

PlanInputs planInputsFromArgs(const PlanArgs& a) {
  PlanInputs in{Catalog::load(resourceDir()), {}, {}, {}, {}, {}};
  for (const auto& f : a.catalogs) in.cat.extendFromFile(f);
  for (const auto& f : a.profiles) in.profiles.add(NativeProfile::load(f, in.cat));
  if (a.reference) {
    in.ref = SailorReference::load(*a.reference, in.cat);
    in.profiles.add(in.ref->profiles);
  }
  in.profiles.add(std::make_shared<AnalyticProfile>(in.cat));
  in.prices = PriceSheet::load(resourceDir() + "/prices/default.json");
  // A scenario file may carry its session (sailor/scenario/session.hpp): its job stands in for
  // the built-in one when neither --job nor --model is given.
  Session session;
  if (a.scenario) {
    in.scenario = loadWithContext<Scenario>(*a.scenario, [&](const json& j) {
      Scenario s = Scenario::fromJson(j, in.cat);
      session = Session::fromScenarioJson(j, in.cat);
      return s;
    });
    if (session.job_model) in.cat.addModel(*session.job_model);
  } else if (in.ref) {
    in.scenario = in.ref->scenario(
        pricedPools(siteCounts(in.ref->quotas), in.priceSource(), &*in.ref), in.cat);
  } else {
    const std::string def = resourceDir() + "/scenarios/default.json";
    in.scenario = loadWithContext<Scenario>(
        def, [&](const json& j) { return Scenario::fromJson(j, in.cat); });
  }
  in.job = !a.job && !a.model && session.job ? *session.job : jobFromArgs(a, in.cat);
  applyBudgetArgs(a, in.job);
  return in;
}

// Whether `sailor plan` shows its progress on stderr: --progress / --no-progress (the last one
// given wins), else when stderr is a terminal; and how.
std::optional<ProgressLine::Mode> progressMode(const PlanArgs& a, int argc, char** argv) {
  const bool terminal = isatty(STDERR_FILENO) != 0;
  const bool progress = a.progress->count() > 0, no_progress = a.no_progress->count() > 0;
  bool on = progress || (terminal && !no_progress);
  if (progress && no_progress)
    for (int i = 2; i < argc; ++i) {
      if (!std::strcmp(argv[i], "--progress")) on = true;
      if (!std::strcmp(argv[i], "--no-progress")) on = false;
    }
  if (!on) return std::nullopt;
  return terminal ? ProgressLine::Mode::Terminal : ProgressLine::Mode::Lines;
}

// planSearch, with the engine's PlannerOptions field names in its errors turned into the
// command-line options that set them; progress on stderr with `progress` (`row`: the trace row).
PlanResult searchPlans(const Scenario& sc, const PlanInputs& in, const PlannerOptions& opt,
                       std::optional<ProgressLine::Mode> progress = std::nullopt,
                       const std::string& row = "") {
  try {
    if (!progress) return planSearch(sc, in.job, in.cat, in.profiles, opt);
    // On a terminal the line needs no program name: it is gone when the output comes.
    ProgressLine line(std::cerr, *progress,
                      *progress == ProgressLine::Mode::Terminal ? row : "sailor plan: " + row,
                      opt.time_limit_s, terminalWidth(STDERR_FILENO));
    return planSearch(sc, in.job, in.cat, in.profiles, opt, line.sink());
  } catch (const InputError& e) {
    static const std::map<std::string, std::string> kOptionOfField{
        {"max_gpus", "--max-gpus"},
        {"top_k", "--top"},
        {"max_usd_per_iteration", "--max-cost-per-iteration"},
        {"max_usd_per_hour", "--max-cost-per-hour"},
        {"min_iterations_per_s", "--min-throughput"},
        {"microbatch_sizes", "--microbatch-sizes"},
        {"time_limit_s", "--time-limit"},
        {"memory_reserve_fraction", "--memory-reserve"}};
    if (auto it = kOptionOfField.find(e.field()); it != kOptionOfField.end())
      throw InputError(it->second, e.value(), e.expected());
    throw;
  }
}

// Where `--output FILE` puts the best plan of trace row `row` (counted from 0): FILE's name with
// "-<row>" before its extension (best.json: best-0.json, best-1.json, ...).
std::string rowOutputPath(const std::string& output, size_t row) {
  const std::filesystem::path p(output);
  const std::string name = p.stem().string() + "-" + std::to_string(row) + p.extension().string();
  return (p.parent_path() / name).string();
}

json strategyJson(const StrategyOutcome& o) {
  return json{{"strategy", o.name},
              {"finished", o.finished},
              {"end_s", o.end_s},
              {"iterations", o.iterations},
              {"usd", o.usd},
              {"training_s", o.training_s},
              {"waiting_s", o.waiting_s},
              {"start_s", o.start.total()},
              {"reconfigurations", o.reconfigurations},
              {"reconfiguration_phases_s",
               {{"replan", o.phases.replan_s},
                {"teardown", o.phases.teardown_s},
                {"group_setup", o.phases.group_setup_s},
                {"state_transfer", o.phases.state_transfer_s},
                {"rebuild", o.phases.rebuild_s}}}};
}

// The what-if of --trace-iterations: one line per strategy, then the reconfigurations' phases.
std::string formatStrategies(const std::vector<StrategyOutcome>& strategies, double iterations) {
  std::string s = fmt::format(
      "== a job of {:.0f} iterations over the trace (NOTE [Reconfiguration "
      "cost model], docs/planner.md):\n",
      iterations);
  s += fmt::format("  {:<26} {:>12} {:>12} {:>10} {:>10} {:>9}\n", "strategy", "ends at (h)",
                   "iterations", "USD", "waiting h", "reconfig.");
  for (const StrategyOutcome& o : strategies)
    s += fmt::format("  {:<26} {:>12} {:>12.0f} {:>10.2f} {:>10.2f} {:>9}\n", o.name,
                     o.finished ? fmt::format("{:.2f}", o.end_s / 3600) : fmt::format("not done"),
                     o.iterations, o.usd, o.waiting_s / 3600, o.reconfigurations);
  for (const StrategyOutcome& o : strategies)
    if (o.reconfigurations > 0)
      s += fmt::format(
          "  {}: {} reconfiguration(s), {:.1f} s in all: re-plan {:.2f} s, tear-down "
          "{:.1f} s, group set-up {:.1f} s, state transfer {:.2f} s, rebuild {:.1f} s\n",
          o.name, o.reconfigurations, o.phases.total(), o.phases.replan_s, o.phases.teardown_s,
          o.phases.group_setup_s, o.phases.state_transfer_s, o.phases.rebuild_s);
  for (const StrategyOutcome& o : strategies)
    if (!o.finished)
      s += fmt::format(
          "  {}: not finished: {:.0f} of {:.0f} iterations when the trace's last row "
          "has no plan for it\n",
          o.name, o.iterations, iterations);
  return s;
}

// `sailor plan --trace FILE`: one search per row of the trace, on the scenario the row describes
// (traceRowScenario); with --output, the best plan of each row to its own file. Exit 3 when a
// row has no plan.
int planTrace(const PlanArgs& a, const std::string& trace, const PlanInputs& in,
              const PlannerOptions& opt, std::optional<ProgressLine::Mode> progress) {
  const auto rows = loadTrace(trace, in.cat);
  const std::optional<std::string>& output = a.output;
  std::optional<double> job_iterations;
  std::vector<double> times;
  if (a.trace_iterations) {
    job_iterations = positiveInt("--trace-iterations", *a.trace_iterations, 1);
    std::vector<std::string> labels;
    for (const TraceRow& row : rows) labels.push_back(row.label);
    times = traceRowTimes(labels);  // before any search: a bad label is bad input at once
  }
  std::vector<TraceWindow> windows;
  json out = json::array();
  std::vector<std::string> no_plan;  // "row LABEL: reason" of each row without a plan
  for (size_t k = 0; k < rows.size(); ++k) {
    const TraceRow& row = rows[k];
    const Scenario sc =
        traceRowScenario(row, in.scenario, in.priceSource(), in.ref ? &*in.ref : nullptr, in.cat);
    PlanResult r = searchPlans(sc, in, opt, progress,
                               "row " + row.label + " (" + std::to_string(k + 1) + " of " +
                                   std::to_string(rows.size()) + "): ");
    if (job_iterations) {
      TraceWindow w{row.label, times[k], sc, std::nullopt, {}, r.search_seconds};
      if (!r.best.empty()) {
        w.plan = r.best.front().plan;
        w.prediction = r.best.front().prediction;
      }
      windows.push_back(std::move(w));
    }
    if (r.best.empty()) no_plan.push_back("row " + row.label + ": " + r.no_plan_reason);
    else if (output)
      json_util::writeFileAtomically(rowOutputPath(*output, k),
                                     r.best.front().plan.toJson().dump(2) + "\n");
    if (a.json->count() > 0) {
      json j = r.toJson();
      j["row"] = row.label;
      out.push_back(j);
    } else {
      std::cout << "== trace row " << row.label << ":";
      for (size_t c = 0; c < row.sites.size(); ++c)
        std::cout << " " << row.sites[c].first << "@" << row.sites[c].second << "="
                  << row.counts[c];
      std::cout << "\n" << formatPlanResult(r, in.job, 1, a.pareto->count() > 0, &sc) << "\n";
    }
  }
  std::vector<StrategyOutcome> strategies;
  if (job_iterations) strategies = compareTraceStrategies(windows, *job_iterations);
  if (a.json->count() > 0) {
    if (!job_iterations) {
      std::cout << out.dump(2) << "\n";
    } else {
      json s = json::array();
      for (const StrategyOutcome& o : strategies) s.push_back(strategyJson(o));
      std::cout << json{{"rows", out}, {"strategies", s}}.dump(2) << "\n";
    }
  } else if (job_iterations) {
    std::cout << formatStrategies(strategies, *job_iterations);
  }
  if (no_plan.empty()) return 0;
  std::cerr << "sailor plan: no plan for " << no_plan.size() << " of " << rows.size()
            << " trace rows; first " << printableLine(no_plan.front()) << "\n";
  return kExitNoPlan;
}

}  // namespace

int cmdPlan(int argc, char** argv) {
  if (wantsHelp(argc, argv, 2)) {
    std::cout << kPlanHelp;
    return 0;
  }
  CLI::App app;
  setUpCommand(app);
  PlanArgs a;
  declare(app, a);
  parseOptionsOnly(app, argc, argv, 2, "plan");
  const PlanInputs in = planInputsFromArgs(a);
  const PlannerOptions opt = plannerOptionsFromArgs(a);
  const auto progress = progressMode(a, argc, argv);
  // The whole run's options need one scenario and a training budget: never silently unused.
  const std::vector<std::pair<const char*, const std::optional<std::string>*>> whole_run_options{
      {"--training-tokens", &a.training_tokens},
      {"--training-iterations", &a.training_iterations},
      {"--deadline-days", &a.deadline_days},
      {"--budget-usd", &a.budget_usd},
      {"--checkpoint-gb-per-s", &a.checkpoint_gb_per_s},
      {"--restart-s", &a.restart_s},
      {"--reconfigure-s", &a.reconfigure_s}};
  for (const auto& [name, value] : whole_run_options) {
    if (!*value) continue;
    if (a.trace)
      throw InputError(name, **value,
                       "absent with --trace (the whole run is priced on one scenario)");
    if (!in.job.trainingIterations())
      throw InputError(name, **value,
                       "a training budget beside it (--training-tokens or --training-iterations)");
  }
  if (a.trace) return planTrace(a, *a.trace, in, opt, progress);
  if (a.trace_iterations)
    throw InputError("--trace-iterations", *a.trace_iterations,
                     "--trace FILE beside it (a job over an availability trace)");
  const bool whole_run = in.job.trainingIterations().has_value();
  const FailureModel failures = failureModelFromArgs(a);
  PlannerOptions search = opt;
  if (whole_run) search.pareto = true;  // the frontier's plans are the trade-offs to rank
  PlanResult r = searchPlans(in.scenario, in, search, progress);
  // Prices from a dated catalogue (Pool::price_date) older than the limit are flagged.
  const int max_age = a.max_price_age_days
                          ? positiveInt("--max-price-age-days", *a.max_price_age_days, 0)
                          : kDefaultMaxPriceAgeDays;
  flagStalePrices(r, in.scenario, max_age);
  std::vector<Campaign> campaigns;
  if (whole_run && !r.best.empty())
    campaigns = rankByCampaign(r, in.job, in.cat, in.scenario, failures, opt.objective, opt.top_k);
  if (!opt.pareto) {  // searched for the budget's ranking alone: not shown
    r.pareto.clear();
    r.knee.reset();
  }
  const bool as_json = a.json->count() > 0;
  auto result_json = [&] {
    json j = r.toJson();
    for (std::size_t i = 0; i < campaigns.size(); ++i)
      j["plans"][i]["campaign"] = campaigns[i].toJson();
    return j;
  };
  if (r.best.empty()) {
    if (as_json) std::cout << result_json().dump(2) << "\n";
    std::cerr << "sailor plan: no plan: " << printableLine(r.no_plan_reason) << "\n";
    return kExitNoPlan;
  }
  if (a.output)
    json_util::writeFileAtomically(*a.output, r.best.front().plan.toJson().dump(2) + "\n");
  if (as_json) {
    std::cout << result_json().dump(2) << "\n";
  } else {
    std::cout << formatPlanResult(r, in.job, opt.top_k, a.pareto->count() > 0, &in.scenario);
    if (!campaigns.empty()) std::cout << formatCampaigns(campaigns, in.job);
  }
  return 0;
}

}  // namespace sailor::cli
