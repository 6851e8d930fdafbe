// The `sailor` command line: catalogue listing, planning, simulation of a plan, validation of
// the simulator against measured runs, the run store; `sailor run` hands over to sailor-run.
// Options are parsed with CLI11 (Options); the work is the engine's.
// Exit codes: 0 success; 2 bad input (the message names the field, the value and what was
// expected), no command or an unknown one; 3 `plan`: no plan exists, `simulate`: the plan does
// not fit in memory; 1 an internal error or a cancelled search. `sailor run` exits as sailor-run
// does (0 finished, 2 bad input, 4 the run failed, 5 the run store unusable, 130 interrupted).
#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "closed_loop.hpp"
#include "format.hpp"
#include "progress_line.hpp"
#include "sailor/catalog.hpp"
#include "sailor/cluster.hpp"
#include "sailor/error.hpp"
#include "sailor/json_util.hpp"
#include "sailor/launch_export.hpp"
#include "sailor/plan_export.hpp"
#include "sailor/plan_links.hpp"
#include "sailor/planner.hpp"
#include "sailor/prices.hpp"
#include "sailor/published_runs.hpp"
#include "sailor/reference.hpp"
#include "sailor/run_events.hpp"
#include "sailor/run_spec.hpp"
#include "sailor/run_store.hpp"
#include "sailor/simulator.hpp"
#include "sailor/trace_scenario.hpp"
#include "sailor/trace_whatif.hpp"
#include "sailor/utf8.hpp"
#include "sailor/utilization.hpp"

#include <CLI/CLI.hpp>

using namespace sailor;
using nlohmann::json;

namespace {

constexpr int kExitInput = 2;
constexpr int kExitNoPlan = 3;

constexpr const char* kUsage =
    "Usage: sailor <command> [options]\n"
    "\n"
    "Plan and simulate the training of large models on heterogeneous, geo-distributed GPUs.\n"
    "\n"
    "Commands:\n"
    "  catalog gpus|models      List the GPU types or models of the catalogue\n"
    "  plan                     Search GPUs and parallelization for throughput or cost\n"
    "  simulate                 Predict memory, iteration time and cost of a plan\n"
    "  validate POINTS.json     Compare predictions with measured runs\n"
    "  validate --run ID        Compare a recorded run with its prediction for its hardware\n"
    "  calibrate --run ID...    Fit a local profile's layer times to recorded runs\n"
    "  run                      Train on a plan with the bundled runtime (live JSON events)\n"
    "  profile                  Measure this machine's device with the runtime's layers\n"
    "  runs list|show ID        List recorded training runs, or show one\n"
    "  export                   Write a plan's launch for Slurm, torchrun or Kubernetes\n"
    "\n"
    "Run 'sailor <command> --help' for a command's options.\n";

constexpr const char* kCatalogHelp =
    "Usage: sailor catalog gpus|models [--json]\n"
    "\n"
    "Lists the catalogue shipped in resources/catalog (set SAILOR_RESOURCES to use another).\n"
    "  --json    print the entries as JSON\n";

constexpr const char* kSimulateHelp =
    "Usage: sailor simulate --scenario FILE --job FILE --plan FILE [options]\n"
    "\n"
    "Predicts peak memory per GPU, iteration time (1F1B, event by event) with its breakdown,\n"
    "throughput and cost per iteration of a plan. Formats: docs/formats.md.\n"
    "\n"
    "  --scenario FILE         zones, pools, network, egress prices (JSON)\n"
    "  --job FILE              model, global batch size, sequence length, precision, optimizer\n"
    "  --plan FILE             microbatch size and stages (JSON, as 'sailor plan' prints)\n"
    "  --profiles FILE         a profile in this project's format (repeatable; earlier wins)\n"
    "  --catalog FILE          GPU types and models to add to the catalogue ({\"gpus\": [...],\n"
    "                          \"models\": [...]}, as `sailor profile` writes; repeatable)\n"
    "  --sailor-profiles DIR   SAILOR-format profiles: DIR/simulator_profiles.json and\n"
    "                          DIR/llm_info.json (e.g. reference/sailor/profiles)\n"
    "  --no-analytic           do not fall back to the analytic profile\n"
    "  --non-blocking-p2p      transfers between stages overlap with compute\n"
    "  --json                  print the prediction as JSON\n"
    "  --timeline FILE         write the simulated schedule (the critical pipeline) as a\n"
    "                          Chrome trace, for ui.perfetto.dev or chrome://tracing\n"
    "\n"
    "Exit status: 0 when the plan fits in memory, 3 when it does not (one line on stderr\n"
    "names the first GPU over its memory), 2 on bad input (also a global batch that is not a\n"
    "multiple of the microbatch size, or has fewer microbatches than a stage has replicas,\n"
    "which 'sailor run' refuses too; replicas may take unequal shares, ceil(G / (b D)) or one\n"
    "fewer microbatches, and the iteration time is the busiest replica's).\n";

constexpr const char* kPlanHelp =
    "Usage: sailor plan [--scenario FILE | --reference DIR] [--job FILE | --model NAME ...]\n"
    "                   [options]\n"
    "\n"
    "Searches which GPUs to use and how to parallelize over them (pipeline depth, layer\n"
    "partition, microbatch size, data-parallel degree, replicas per stage) for the most\n"
    "throughput or the least cost per iteration, and prints the best plans (docs/planner.md).\n"
    "\n"
    "Resources:\n"
    "  --scenario FILE             zones, pools, network, egress (default: the built-in one)\n"
    "  --catalog FILE              GPU types and models to add to the catalogue ({\"gpus\":\n"
    "                              [...], \"models\": [...]}, as `sailor profile` writes)\n"
    "  --profiles FILE             a profile in this project's format, before the others\n"
    "                              (repeatable; earlier wins)\n"
    "  --reference DIR             SAILOR's layout: profiles, model memory info, network fits\n"
    "                              and egress prices; pools from DIR/cluster/quotas.json priced\n"
    "                              with resources/prices/default.json (unless --scenario)\n"
    "  --trace FILE                plan for each row of an availability trace (CSV with\n"
    "                              <gpu>_<zone> columns): the row's counts replace the pools\n"
    "  --trace-iterations N        with --trace: a job of N iterations over the trace (rows at\n"
    "                              their times, the last one lasting): when it ends and what\n"
    "                              it costs following the planner (a reconfiguration at each\n"
    "                              row whose best plan differs, its phases charged) against\n"
    "                              keeping the first plan (waiting while its GPUs are gone);\n"
    "                              --json: {\"rows\": [...], \"strategies\": [...]}\n"
    "Job:\n"
    "  --job FILE                  a job file (default: resources/jobs/default.json)\n"
    "  --model NAME --global-batch N [--seq-len N] [--precision fp32|bf16|fp16]\n"
    "              [--optimizer adam|sgd] [--recompute none|selective|full]   the job inline\n"
    "              (full: activation recomputation, each block keeps only its input)\n"
    "Objective and constraints:\n"
    "  --objective throughput|cost (default throughput)\n"
    "  --max-cost-per-iteration X  USD    --max-cost-per-hour X  USD\n"
    "  --min-throughput X          iterations per second\n"
    "  --max-gpus N\n"
    "  --memory-reserve F          share of each GPU's memory kept free against the allocator's\n"
    "                              fragmentation, 0 to 0.5 (default 0.05; docs/planner.md,\n"
    "                              \"Memory reserve\")\n"
    "  --schedule deepspeed|megatron  the schedule plans are searched with (default deepspeed:\n"
    "                              DeepSpeed's pipeline engine as SAILOR ran it, what `sailor\n"
    "                              run` runs; megatron: gradient reduction overlapped with the\n"
    "                              backward, the distributed optimizer, sequence parallelism,\n"
    "                              fused attention; docs/planner.md, Schedules)\n"
    "  --memory-reserve-mode drop|flag  what becomes of plans whose least headroom is below\n"
    "                              the reserve: drop (default): left out, the search fitting\n"
    "                              stages into the memory less the reserve; flag: searched\n"
    "                              with the whole memory and marked \"within the memory\n"
    "                              reserve\" (--json: \"within_memory_reserve\": true)\n"
    "Output:\n"
    "  --top K                     plans to print (default 3)\n"
    "  --pareto                    also the Pareto frontier of throughput against cost, and\n"
    "                              its knee (as --knee)\n"
    "  --knee                      name the cheapest frontier plans within 1% and 5% of the\n"
    "                              best throughput and what the best plan's last step costs\n"
    "                              (computes the frontier: about twice the search time;\n"
    "                              --json: \"knee\", and \"pareto\" too)\n"
    "  --output FILE               write the best plan as a plan file (sailor simulate --plan);\n"
    "                              with --trace one per row, FILE with -ROW before its\n"
    "                              extension (best.json: best-0.json, best-1.json, ...; rows\n"
    "                              counted from 0, none written for a row without a plan)\n"
    "  --json                      print the result as JSON\n"
    "Search:\n"
    "  --threads N                 worker threads (default: all cores)\n"
    "  --microbatch-sizes LIST     e.g. 1,2,4,8 (default: powers of two up to 64); only sizes\n"
    "                              dividing the global batch are searched, each with degrees\n"
    "                              up to global batch / size\n"
    "  --max-stages N              deepest pipeline tried (H9, default 4; 0: no limit)\n"
    "  --max-partial-plans N       partial plans kept per search state (H10, default 64; 0: all)\n"
    "  --no-heuristic H            switch a heuristic off: h1 h2 h3 h4 h5 h6 h8 h12\n"
    "                              (repeatable)\n"
    "  --time-limit S              seconds the whole search may take, placing and simulating\n"
    "                              the plans included (with --trace: each row's search); when\n"
    "                              it is reached, the best plans found so far, marked as such:\n"
    "                              a line says what was searched (--json: \"complete\": false\n"
    "                              and \"time_limit\"). Default: no limit\n"
    "  --progress, --no-progress   show the search's progress on stderr, or not; never on\n"
    "                              stdout (default: shown when stderr is a terminal, as one\n"
    "                              line rewritten in place; --progress elsewhere prints a\n"
    "                              line every 2 s)\n"
    "\n"
    "Exit status: 0 (also when --time-limit stopped the search and plans were found), 2 on bad\n"
    "input, 3 when no plan exists (the message says why, e.g. none found within the time\n"
    "limit; with --trace when a row has none: the message counts those rows and gives the\n"
    "first's reason).\n";

constexpr const char* kValidateHelp =
    "Usage: sailor validate POINTS.json --reference DIR [--compare-sailor] [--strict] [--json]\n"
    "       sailor validate PUBLISHED.json [--strict] [--json]\n"
    "       sailor validate --run ID [--store FILE] [--profile DIR] [--json]\n"
    "\n"
    "PUBLISHED.json (recognised by its content: \"runs\" whose rows have \"hardware\" and\n"
    "\"parallelism\", as ../shared/reference/published/published_runs.json): each published\n"
    "training run is simulated on its own hardware, fabric, parallelism and framework\n"
    "schedule with the analytic profile, and compared with its measured iteration time (else\n"
    "the one derived from its throughput): a line per run (GPUs, tp/pp/dp, measured,\n"
    "predicted, error), the mean and max |error|, then each value a row does not state and\n"
    "the rule that gave it, and the rows left out with the reason (docs/simulator.md,\n"
    "\"Published runs at scale\"). --json: points (id, gpus, tp, pp, dp,\n"
    "measured_iteration_s, measured_from, predicted_iteration_s, time_error, fits,\n"
    "assumptions), mean_time_error, max_time_error, skipped (id, reason). A malformed row\n"
    "(wrong type, a negative or zero figure, tp x pp x dp x cp other than its GPUs, an unknown\n"
    "catalogue_gpu, a multi-node run without a fabric figure) is an error naming\n"
    "runs[i] (id).field, exit 2.\n"
    "\n"
    "With --run: the recorded run ID (sailor runs list) against the prediction it recorded for\n"
    "the hardware it ran on (sailor run --profile, docs/closed-loop.md \"Prediction against\n"
    "measurement\"): one row per quantity (iteration seconds; per stage compute,\n"
    "communication and peak memory; peak memory), predicted, measured (median of the\n"
    "iterations after the first 2), relative error. --profile DIR predicts the run's plan\n"
    "again on that profile (e.g. a calibrated one) instead. --store: as sailor runs.\n"
    "\n"
    "Predicts each measured run of POINTS.json (the format of\n"
    "calibration/measured_points.json) with the SAILOR-format profiles, model memory info and\n"
    "network fits under DIR (SAILOR's layout: profiles/, network/, cluster/), and prints per\n"
    "point predicted against measured, then the mean and max relative errors.\n"
    "\n"
    "  --reference DIR   SAILOR-layout data directory\n"
    "  --compare-sailor  also predict each point with SAILOR's published simulator (its\n"
    "                    formulas on the same profiles and links) and print its errors beside\n"
    "                    ours: the baseline this simulator is measured against\n"
    "  --non-blocking-p2p  transfers between stages overlap with compute\n"
    "  --strict          exit 2 when any point cannot be predicted (see below)\n"
    "  --json            one object: points (each with its errors, breakdown, notes\n"
    "                    on how it was read, and\n"
    "                    fits / out_of_memory: a measured run the model says would\n"
    "                    not fit; memory_floor_bytes / memory_below_floor: the\n"
    "                    model states and one microbatch's activations the run held\n"
    "                    on one GPU, and whether the measured peak lies below them),\n"
    "                    mean_time_error, max_time_error,\n"
    "                    mean_memory_error, max_memory_error (fractions), groups\n"
    "                    (the same four per cluster and model, with their point\n"
    "                    counts); with --compare-sailor also sailor_model, the same\n"
    "                    fields for SAILOR's model; skipped (index, id, error of\n"
    "                    each point not predicted)\n"
    "\n"
    "A file that mixes clusters or models (each point's \"cluster\" and \"model\") also gets\n"
    "the errors of each pair under \"By cluster and model\". A figure a run did not record\n"
    "(absent, null or 0) is predicted but left out of the means (null in --json; the\n"
    "summary fields time_points and memory_points count the points in each mean).\n"
    "\n"
    "A point that cannot be predicted (an unknown GPU type, layers that do not cover its\n"
    "model, a tp above its node size, ...) is listed under \"Skipped\" with its error and\n"
    "left out of the means: one bad run of a collection does not hide the others. A stage\n"
    "list that repeats another stage's layer number in place of a missing one, as some of\n"
    "SAILOR's published plan files do, is read as its range and the point says so.\n"
    "\n"
    "Exit status: 0; 2 on bad input (a file that is not a points file, no point that can\n"
    "be predicted, or with --strict any point skipped; one line on stderr, with the errors of\n"
    "the first three points skipped).\n";

constexpr const char* kExportHelp =
    "Usage: sailor export --plan FILE --scenario FILE --job FILE\n"
    "                     --format kubernetes|torchrun|slurm [--cluster FILE] [--output DIR]\n"
    "\n"
    "Writes the launch of a plan on a cluster that Sailor Studio does not drive itself: one\n"
    "sailor-worker per GPU, each tensor-parallel group inside one node, every pool of the plan\n"
    "mapped to the scheduler by the cluster description (docs/formats.md, docs/launch.md\n"
    "\"Exports\").\n"
    "\n"
    "  --plan FILE, --scenario FILE, --job FILE   as for `sailor run`\n"
    "  --format slurm          one heterogeneous job script (sailor.sbatch), a component per pool\n"
    "  --format torchrun       hosts.txt (host list and each host's command) and\n"
    "                          sailor-torchrun.sh\n"
    "  --format kubernetes     sailor.yaml: ConfigMap, headless Service, an indexed Job per pool\n"
    "  --cluster FILE          the cluster description (default: resources/clusters/default.json)\n"
    "  --output DIR            write the files into DIR (created if need be; each file written\n"
    "                          whole or not at all); default: print them on stdout\n"
    "  --iterations N          training iterations (default 20), as `sailor run`\n"
    "  --hidden N, --seq-len N, --seed N   the model and seed, as `sailor run`\n"
    "  --backend nccl|gloo     the workers' backend (default nccl)\n"
    "\n"
    "Exit status: 0; 2 on bad input (one line on stderr: a pool without a mapping, a\n"
    "tensor-parallel group larger than its pool's nodes, a malformed cluster file, ...).\n";

// One command's options, parsed by CLI11. A flag takes no value; a valued option takes the
// next argument (whatever it looks like) or `--option=value`, and the last one given wins
// (values() has them all, in order). An argument that is no option is positional. An unknown
// option, or a valued option that ends the command line, is bad input (InputError naming the
// option) with the wording `sailor` has always used.
class Options {
 public:
  Options(std::vector<std::string> flags, std::vector<std::string> valued)
      : flags_(std::move(flags)), valued_(std::move(valued)) {
    app_.set_help_flag();  // each command prints its own --help text (wantsHelp)
    app_.allow_extras();   // unknown options and positionals come back in remaining()
    for (const auto& f : flags_) app_.add_flag(f);
    for (const auto& v : valued_)
      app_.add_option(v)->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  }

  // Parses argv[first..argc).
  void parse(int argc, char** argv, int first) {
    std::vector<std::string> args;  // CLI11 takes them last first
    for (int i = argc - 1; i >= first; --i) args.emplace_back(argv[i]);
    try {
      app_.parse(args);
    } catch (const CLI::ArgumentMismatch&) {
      // Only a valued option with nothing after it stops CLI11 here (it takes the next
      // argument whatever it is); an unknown option before it is reported first.
      rejectUnknownOptions();
      const std::string last = argv[argc - 1];
      throw InputError(last.substr(0, last.find('=')), "nothing", "a value after the option");
    } catch (const CLI::ParseError& e) {
      throw InputError("options", "\"" + std::string(e.what()) + "\"",
                       "options as --help lists them");
    }
    rejectUnknownOptions();
    positional_ = app_.remaining();
  }

  const std::vector<std::string>& positional() const { return positional_; }
  bool has(const std::string& k) const { return app_.count(k) > 0; }
  std::vector<std::string> values(const std::string& k) const {
    return app_.get_option(k)->results();
  }
  std::optional<std::string> get(const std::string& k) const {
    auto all = values(k);
    if (all.empty()) return std::nullopt;
    return all.back();
  }
  std::string required(const std::string& k) const {
    auto v = get(k);
    if (!v) throw InputError(k, "nothing", "a value (see --help)");
    return *v;
  }

 private:
  // Throws for the first argument CLI11 did not recognise that is written as an option
  // ("--name" or "--name=value"); the others it did not recognise are positional.
  void rejectUnknownOptions() const {
    for (std::string s : app_.remaining()) {
      if (s.rfind("--", 0) != 0) continue;
      s = s.substr(0, s.find('='));
      std::string all;
      for (const auto& f : flags_) all += (all.empty() ? "" : ", ") + f;
      for (const auto& f : valued_) all += (all.empty() ? "" : ", ") + f;
      throw InputError(s, "an unknown option", "one of: " + all);
    }
  }

  std::vector<std::string> flags_, valued_;
  CLI::App app_;
  std::vector<std::string> positional_;
};

bool wantsHelp(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) return true;
  return false;
}

template <typename T>
T loadWithContext(const std::string& path, const std::function<T(const json&)>& f) {
  json j = json_util::readFile(path);
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
PlanFiles loadPlanFiles(const Options& a, const Catalog& cat) {
  const std::string sp = a.required("--scenario"), jp = a.required("--job"),
                    pp = a.required("--plan");
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

int cmdCatalog(int argc, char** argv) {
  if (wantsHelp(argc, argv, 2)) {
    std::cout << kCatalogHelp;
    return 0;
  }
  Options a({"--json"}, {});
  a.parse(argc, argv, 2);
  if (a.positional().size() != 1 || (a.positional()[0] != "gpus" && a.positional()[0] != "models"))
    throw InputError("catalog",
                     a.positional().empty() ? "nothing" : "\"" + a.positional()[0] + "\"",
                     "\"gpus\" or \"models\"");
  Catalog cat = Catalog::load(resourceDir());
  if (a.positional()[0] == "gpus") {
    if (a.has("--json")) {
      json out = json::array();
      for (const auto& g : cat.gpus())
        out.push_back({{"name", g.name},
                       {"vendor", g.vendor},
                       {"full_name", g.full_name},
                       {"memory_bytes", g.memory_bytes},
                       {"fp32_tflops", g.fp32_tflops},
                       {"fp16_tflops", g.fp16_tflops},
                       {"bf16_tflops", g.bf16_tflops ? json(*g.bf16_tflops) : json()},
                       {"memory_bandwidth_gb_per_s", g.memory_bandwidth_gb_per_s},
                       {"intra_node_bandwidth_gb_per_s", g.intra_node_bandwidth_gb_per_s},
                       {"gpus_per_node", g.gpus_per_node},
                       {"runtime_overhead_bytes", g.runtime_overhead_bytes},
                       {"sources", g.sources}});
      std::cout << out.dump(2) << "\n";
    } else {
      std::cout << cli::formatGpus(cat);
    }
  } else {
    if (a.has("--json")) {
      json out = json::array();
      for (const auto& m : cat.models()) {
        json mj = m.toJson();
        mj["parameters"] = totalParameters(m);
        out.push_back(mj);
      }
      std::cout << out.dump(2) << "\n";
    } else {
      std::cout << cli::formatModels(cat);
    }
  }
  return 0;
}

int cmdSimulate(int argc, char** argv) {
  if (wantsHelp(argc, argv, 2)) {
    std::cout << kSimulateHelp;
    return 0;
  }
  Options a({"--json", "--no-analytic", "--non-blocking-p2p"},
            {"--scenario", "--job", "--plan", "--profiles", "--sailor-profiles", "--timeline",
             "--catalog"});
  a.parse(argc, argv, 2);
  if (!a.positional().empty())
    throw InputError("simulate", "\"" + a.positional()[0] + "\"", "options only (see --help)");
  Catalog cat = Catalog::load(resourceDir());
  for (const auto& f : a.values("--catalog")) cat.extendFromFile(f);
  auto [scenario, job, plan] = loadPlanFiles(a, cat);
  ProfileSet profiles;
  if (a.has("--profiles"))
    for (const auto& f : a.values("--profiles")) profiles.add(NativeProfile::load(f, cat));
  if (auto dir = a.get("--sailor-profiles")) {
    auto sailor =
        SailorProfile::load(*dir + "/simulator_profiles.json", *dir + "/llm_info.json", cat);
    profiles.add(sailor);
    profiles.add(std::make_shared<MicrobatchScaledProfile>(sailor));
  }
  if (!a.has("--no-analytic")) profiles.add(std::make_shared<AnalyticProfile>(cat));
  SimulatorOptions opt;
  if (a.has("--non-blocking-p2p")) opt.schedule = PipelineSchedule::Async1F1B;
  Prediction p = simulate(plan, scenario, job, cat, profiles, opt);
  const std::vector<LinkUse> links =
      linksOfPlan(plan, scenario, cat, cat.model(job.model, "job.model").tied_embeddings);
  const std::optional<Utilization> mfu = modelFlopsUtilization(plan, job, cat, p.iteration_s);
  if (auto out = a.get("--timeline"))
    json_util::writeFileAtomically(*out, timelineTrace(p, plan).dump() + "\n");
  if (a.has("--json")) {
    json out = p.toJson();
    out["mfu"] = mfu ? json(mfu->mfu) : json();
    out["model_tflops_per_gpu"] = mfu ? json(mfu->model_tflops_per_gpu) : json();
    out["plan"] = plan.toJson();
    out["job"] = job.toJson();
    out["scenario"] = scenario.name;
    out["links"] = json::array();
    for (const LinkUse& l : links) out["links"].push_back(l.toJson());
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << cli::formatPrediction(plan, job, scenario, p, mfu);
    std::cout << cli::formatLinks(links);
  }
  if (p.fits) return 0;
  // Exit 3 says why on one line; the table above (or "fits" in the JSON) has every GPU.
  std::cerr << "sailor simulate: does not fit in memory: "
            << printableLine(p.out_of_memory.empty() ? "a GPU's memory" : p.out_of_memory.front())
            << (p.out_of_memory.size() > 1
                    ? " (and " + std::to_string(p.out_of_memory.size() - 1) + " more)"
                    : "")
            << "\n";
  return kExitNoPlan;
}

Job jobFromArgs(const Options& a, const Catalog& cat) {
  if (auto jp = a.get("--job"))
    return loadWithContext<Job>(*jp, [&](const json& j) { return Job::fromJson(j, cat); });
  if (auto model = a.get("--model")) {
    json j{{"model", *model}};
    auto number = [&](const std::string& opt) -> json {
      const std::string v = a.required(opt);
      try {
        size_t used = 0;
        long long n = std::stoll(v, &used);
        if (used == v.size()) return n;
      } catch (...) {
      }
      throw InputError(opt, "\"" + v + "\"", "an integer");
    };
    j["global_batch_size"] = number("--global-batch");
    if (a.has("--seq-len")) j["sequence_length"] = number("--seq-len");
    if (auto p = a.get("--precision")) j["precision"] = *p;
    if (auto o = a.get("--optimizer")) j["optimizer"] = *o;
    if (auto r = a.get("--recompute")) j["recompute"] = *r;
    return Job::fromJson(j, cat);
  }
  const std::string def = resourceDir() + "/jobs/default.json";
  return loadWithContext<Job>(def, [&](const json& j) { return Job::fromJson(j, cat); });
}

// The value `v` of option `opt` as a finite number > 0 (`expected` names it in the error).
double positiveNumber(const std::string& opt, const std::string& v,
                      const std::string& expected = "a positive number") {
  try {
    size_t used = 0;
    double d = std::stod(v, &used);
    if (used == v.size() && d > 0 && std::isfinite(d)) return d;
  } catch (...) {
  }
  throw InputError(opt, "\"" + v + "\"", expected);
}

// The value `v` of option `opt` as an integer in [min, 1000000].
int positiveInt(const std::string& opt, const std::string& v, int min) {
  try {
    size_t used = 0;
    long n = std::stol(v, &used);
    if (used == v.size() && n >= min && n <= 1000000) return static_cast<int>(n);
  } catch (...) {
  }
  throw InputError(opt, "\"" + v + "\"", "an integer >= " + std::to_string(min));
}

const std::vector<std::string> kPlanFlags{"--json", "--pareto", "--knee", "--progress",
                                          "--no-progress"};
const std::vector<std::string> kPlanValued{"--scenario",
                                           "--catalog",
                                           "--profiles",
                                           "--reference",
                                           "--trace",
                                           "--trace-iterations",
                                           "--job",
                                           "--model",
                                           "--global-batch",
                                           "--seq-len",
                                           "--precision",
                                           "--optimizer",
                                           "--recompute",
                                           "--objective",
                                           "--max-cost-per-iteration",
                                           "--max-cost-per-hour",
                                           "--min-throughput",
                                           "--max-gpus",
                                           "--top",
                                           "--threads",
                                           "--output",
                                           "--microbatch-sizes",
                                           "--max-stages",
                                           "--no-heuristic",
                                           "--max-partial-plans",
                                           "--time-limit",
                                           "--memory-reserve",
                                           "--memory-reserve-mode",
                                           "--schedule"};

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
PlannerOptions plannerOptionsFromArgs(const Options& a) {
  PlannerOptions opt;
  if (auto o = a.get("--objective")) {
    if (*o == "throughput") opt.objective = Objective::Throughput;
    else if (*o == "cost") opt.objective = Objective::Cost;
    else throw InputError("--objective", "\"" + *o + "\"", "\"throughput\" or \"cost\"");
  }
  auto number = [&](const char* k) { return positiveNumber(k, a.required(k)); };
  auto integer = [&](const char* k, int min) { return positiveInt(k, a.required(k), min); };
  if (a.has("--max-cost-per-iteration"))
    opt.max_usd_per_iteration = number("--max-cost-per-iteration");
  if (a.has("--max-cost-per-hour")) opt.max_usd_per_hour = number("--max-cost-per-hour");
  if (a.has("--min-throughput")) opt.min_iterations_per_s = number("--min-throughput");
  if (a.has("--max-gpus")) opt.max_gpus = integer("--max-gpus", 1);
  if (a.has("--top")) opt.top_k = integer("--top", 1);
  if (a.has("--threads")) opt.threads = integer("--threads", 1);
  if (a.has("--max-stages")) opt.heuristics.max_stages = integer("--max-stages", 0);
  if (a.has("--max-partial-plans"))
    opt.heuristics.max_partial_plans = integer("--max-partial-plans", 0);
  if (a.has("--time-limit"))
    opt.time_limit_s =
        positiveNumber("--time-limit", a.required("--time-limit"), "a positive number of seconds");
  if (auto f = a.get("--memory-reserve")) {
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
  if (auto m = a.get("--memory-reserve-mode")) {
    if (*m == "drop") opt.memory_reserve_mode = MemoryReserveMode::Drop;
    else if (*m == "flag") opt.memory_reserve_mode = MemoryReserveMode::Flag;
    else throw InputError("--memory-reserve-mode", "\"" + *m + "\"", "\"drop\" or \"flag\"");
  }
  if (auto s = a.get("--schedule")) opt.schedules = parseScheduleSearch(*s, "--schedule");
  opt.pareto = a.has("--pareto") || a.has("--knee");  // the knee needs the frontier
  if (auto list = a.get("--microbatch-sizes")) {
    std::stringstream ss(*list);
    std::string item;
    while (std::getline(ss, item, ','))
      opt.microbatch_sizes.push_back(positiveInt("--microbatch-sizes", item, 1));
  }
  switchOffHeuristics(a.values("--no-heuristic"), opt.heuristics);
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

PlanInputs planInputsFromArgs(const Options& a) {
  PlanInputs in{Catalog::load(resourceDir()), {}, {}, {}, {}, {}};
  for (const auto& f : a.values("--catalog")) in.cat.extendFromFile(f);
  in.job = jobFromArgs(a, in.cat);
  for (const auto& f : a.values("--profiles")) in.profiles.add(NativeProfile::load(f, in.cat));
  if (auto dir = a.get("--reference")) {
    in.ref = SailorReference::load(*dir, in.cat);
    in.profiles.add(in.ref->profiles);
  }
  in.profiles.add(std::make_shared<AnalyticProfile>(in.cat));
  in.prices = PriceSheet::load(resourceDir() + "/prices/default.json");
  if (auto sp = a.get("--scenario")) {
    in.scenario = loadWithContext<Scenario>(
        *sp, [&](const json& j) { return Scenario::fromJson(j, in.cat); });
  } else if (in.ref) {
    in.scenario = in.ref->scenario(
        pricedPools(siteCounts(in.ref->quotas), in.priceSource(), &*in.ref), in.cat);
  } else {
    const std::string def = resourceDir() + "/scenarios/default.json";
    in.scenario = loadWithContext<Scenario>(
        def, [&](const json& j) { return Scenario::fromJson(j, in.cat); });
  }
  return in;
}

// Whether `sailor plan` shows its progress on stderr: --progress / --no-progress (the last one
// given wins), else when stderr is a terminal; and how.
std::optional<cli::ProgressLine::Mode> progressMode(const Options& a, int argc, char** argv) {
  const bool terminal = isatty(STDERR_FILENO) != 0;
  bool on = a.has("--progress") || (terminal && !a.has("--no-progress"));
  if (a.has("--progress") && a.has("--no-progress"))
    for (int i = 2; i < argc; ++i) {
      if (!std::strcmp(argv[i], "--progress")) on = true;
      if (!std::strcmp(argv[i], "--no-progress")) on = false;
    }
  if (!on) return std::nullopt;
  return terminal ? cli::ProgressLine::Mode::Terminal : cli::ProgressLine::Mode::Lines;
}

// planSearch, with the engine's PlannerOptions field names in its errors turned into the
// command-line options that set them; progress on stderr with `progress` (`row`: the trace row).
PlanResult searchPlans(const Scenario& sc, const PlanInputs& in, const PlannerOptions& opt,
                       std::optional<cli::ProgressLine::Mode> progress = std::nullopt,
                       const std::string& row = "") {
  try {
    if (!progress) return planSearch(sc, in.job, in.cat, in.profiles, opt);
    // On a terminal the line needs no program name: it is gone when the output comes.
    cli::ProgressLine line(
        std::cerr, *progress,
        *progress == cli::ProgressLine::Mode::Terminal ? row : "sailor plan: " + row,
        opt.time_limit_s, cli::terminalWidth(STDERR_FILENO));
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
int planTrace(const Options& a, const std::string& trace, const PlanInputs& in,
              const PlannerOptions& opt, std::optional<cli::ProgressLine::Mode> progress) {
  const auto rows = loadTrace(trace, in.cat);
  const std::optional<std::string> output = a.get("--output");
  std::optional<double> job_iterations;
  std::vector<double> times;
  if (a.has("--trace-iterations")) {
    job_iterations = positiveInt("--trace-iterations", a.required("--trace-iterations"), 1);
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
    if (a.has("--json")) {
      json j = r.toJson();
      j["row"] = row.label;
      out.push_back(j);
    } else {
      std::cout << "== trace row " << row.label << ":";
      for (size_t c = 0; c < row.sites.size(); ++c)
        std::cout << " " << row.sites[c].first << "@" << row.sites[c].second << "="
                  << row.counts[c];
      std::cout << "\n" << cli::formatPlanResult(r, in.job, 1, a.has("--pareto")) << "\n";
    }
  }
  std::vector<StrategyOutcome> strategies;
  if (job_iterations) strategies = compareTraceStrategies(windows, *job_iterations);
  if (a.has("--json")) {
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

int cmdPlan(int argc, char** argv) {
  if (wantsHelp(argc, argv, 2)) {
    std::cout << kPlanHelp;
    return 0;
  }
  Options a(kPlanFlags, kPlanValued);
  a.parse(argc, argv, 2);
  if (!a.positional().empty())
    throw InputError("plan", "\"" + a.positional()[0] + "\"", "options only (see --help)");
  const PlanInputs in = planInputsFromArgs(a);
  const PlannerOptions opt = plannerOptionsFromArgs(a);
  const auto progress = progressMode(a, argc, argv);
  if (auto trace = a.get("--trace")) return planTrace(a, *trace, in, opt, progress);
  if (a.has("--trace-iterations"))
    throw InputError("--trace-iterations", a.required("--trace-iterations"),
                     "--trace FILE beside it (a job over an availability trace)");
  PlanResult r = searchPlans(in.scenario, in, opt, progress);
  if (r.best.empty()) {
    if (a.has("--json")) std::cout << r.toJson().dump(2) << "\n";
    std::cerr << "sailor plan: no plan: " << printableLine(r.no_plan_reason) << "\n";
    return kExitNoPlan;
  }
  if (auto out = a.get("--output"))
    json_util::writeFileAtomically(*out, r.best.front().plan.toJson().dump(2) + "\n");
  if (a.has("--json")) std::cout << r.toJson().dump(2) << "\n";
  else std::cout << cli::formatPlanResult(r, in.job, opt.top_k, a.has("--pareto"));
  return 0;
}

// `sailor validate --run ID [--store FILE] [--profile DIR] [--json]` (closed_loop.hpp).
int cmdValidateRun(int argc, char** argv) {
  Options a({"--json"}, {"--run", "--store", "--profile"});
  a.parse(argc, argv, 2);
  if (!a.positional().empty())
    throw InputError("validate --run", "\"" + a.positional()[0] + "\"",
                     "options only (POINTS.json is the other form of validate)");
  const std::int64_t id = cli::runIdArg("--run", a.required("--run"));
  const std::string store = a.has("--store") ? a.required("--store") : RunStore::defaultPath();
  cli::validateRun(store, id, a.get("--profile"), a.has("--json"));
  return 0;
}

constexpr const char* kCalibrateHelp =
    "Usage: sailor calibrate --run ID [--run ID ...] --profile DIR [--out DIR2 | --in-place]\n"
    "                        [--store FILE] [--json]\n"
    "\n"
    "Fits the local profile DIR (a sailor profile output) to recorded runs of its model: the\n"
    "forward and backward times of each layer kind (embedding, blocks, head) are scaled so\n"
    "that the profile predicts the compute each stage of each run measured (median after\n"
    "warm-up). Only as many factors as the runs determine to 10 % are fitted (three, two, or\n"
    "one for every layer); the link model, the optimizer step and memory are kept.\n"
    "docs/closed-loop.md, \"Recalibrating a profile from runs\".\n"
    "\n"
    "  --run ID      a recorded run (repeatable; sailor runs list)\n"
    "  --profile DIR the profile to fit\n"
    "  --out DIR2    where the calibrated profile goes (default DIR-calibrated): DIR's files,\n"
    "                profile.json fitted, calibration.json saying what was fitted; written\n"
    "                whole (a new directory renamed into place)\n"
    "  --in-place    replace DIR's profile.json instead (atomically)\n"
    "  --store FILE  the run store (as sailor runs)\n"
    "  --json        print the fit as JSON\n"
    "\n"
    "Exit status: 0 written, 2 bad input (an unknown run, a run without iterations or of\n"
    "another model, a directory that is not a profile; nothing written).\n";

int cmdCalibrate(int argc, char** argv) {
  if (wantsHelp(argc, argv, 2)) {
    std::cout << kCalibrateHelp;
    return 0;
  }
  Options a({"--json", "--in-place"}, {"--run", "--profile", "--out", "--store"});
  a.parse(argc, argv, 2);
  if (!a.positional().empty())
    throw InputError("calibrate", "\"" + a.positional()[0] + "\"", "options only (see --help)");
  std::vector<std::int64_t> ids;
  for (const std::string& v : a.values("--run")) ids.push_back(cli::runIdArg("--run", v));
  if (ids.empty()) throw InputError("--run", "nothing", "at least one run id");
  const std::string store = a.has("--store") ? a.required("--store") : RunStore::defaultPath();
  cli::calibrateRuns(store, ids, a.required("--profile"), a.get("--out"), a.has("--in-place"),
                     a.has("--json"));
  return 0;
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

// `sailor validate PUBLISHED.json [--strict] [--json]` (sailor/published_runs.hpp).
int cmdValidatePublished(const Options& a, const json& doc, const Catalog& cat) {
  for (const char* o : {"--reference", "--compare-sailor", "--non-blocking-p2p"})
    if (a.has(o))
      throw InputError(o, "given",
                       "none for a published-runs file (each row names its hardware "
                       "and framework)");
  const std::string& path = a.positional()[0];
  const PublishedReport rep = validatePublishedRuns(readPublishedRuns(doc, cat, path));
  if (rep.rows.empty() || (a.has("--strict") && !rep.skipped.empty())) {
    std::string why;
    for (size_t k = 0; k < rep.skipped.size() && k < 3; ++k)
      why += (k ? "; " : "") + rep.skipped[k].id + ": " + rep.skipped[k].reason;
    if (rep.skipped.size() > 3) why += "; and " + std::to_string(rep.skipped.size() - 3) + " more";
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
              << (a.has("--json") ? "\"skipped\"" : "\"Skipped\"") << ")\n";
  if (a.has("--json")) std::cout << rep.toJson().dump(2) << "\n";
  else std::cout << rep.toText();
  return 0;
}

int cmdValidate(int argc, char** argv) {
  if (wantsHelp(argc, argv, 2)) {
    std::cout << kValidateHelp;
    return 0;
  }
  for (int i = 2; i < argc; ++i)
    if (!std::strcmp(argv[i], "--run") || !std::strncmp(argv[i], "--run=", 6))
      return cmdValidateRun(argc, argv);
  Options a({"--json", "--non-blocking-p2p", "--compare-sailor", "--strict"}, {"--reference"});
  a.parse(argc, argv, 2);
  if (a.positional().size() != 1)
    throw InputError("validate", std::to_string(a.positional().size()) + " files",
                     "one POINTS.json");
  Catalog cat = Catalog::load(resourceDir());
  if (const auto published = publishedRunsAt(a.positional()[0]))
    return cmdValidatePublished(a, *published, cat);
  SailorReference ref = SailorReference::load(a.required("--reference"), cat);
  SimulatorOptions opt;
  if (a.has("--non-blocking-p2p")) opt.schedule = PipelineSchedule::Async1F1B;
  // Every point it can predict; those it cannot read or predict are listed in rep.skipped.
  ValidationReport rep = validatePoints(readMeasuredPoints(a.positional()[0], cat), ref, cat, opt,
                                        a.has("--compare-sailor"));
  if (!rep.skipped.empty() && (rep.rows.empty() || a.has("--strict"))) {
    // One line: what is wrong, then the first few points' errors.
    std::string why;
    for (size_t k = 0; k < rep.skipped.size() && k < 3; ++k)
      why += (k ? "; " : "") + rep.skipped[k].id + ": " + rep.skipped[k].error;
    if (rep.skipped.size() > 3) why += "; and " + std::to_string(rep.skipped.size() - 3) + " more";
    std::cerr << "sailor validate: error: " << printableLine(a.positional()[0]) << ": "
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
              << (a.has("--json") ? "\"skipped\"" : "\"Skipped\"") << ")\n";
  const auto& adjusted = ref.profiles->adjustments();
  if (a.has("--json")) {
    json out = rep.toJson();
    out["profile_adjustments"] = adjusted;
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << cli::formatValidation(rep);
    if (!adjusted.empty()) {
      std::cout << "\nSAILOR profiles brought to the catalogue's layer conventions "
                   "(docs/simulator.md):\n";
      for (const auto& line : adjusted) std::cout << "  " << line << "\n";
    }
  }
  return 0;
}

}  // namespace

namespace {

constexpr const char* kRunsHelp =
    "Usage: sailor runs list [--json] [--store FILE]\n"
    "       sailor runs show ID [--json] [--store FILE]\n"
    "       sailor runs attach ID [--store FILE]\n"
    "       sailor runs resize ID --gpus TYPE@ZONE=N [--gpus ...] [--store FILE]\n"
    "\n"
    "Reads the run store in which 'sailor run' records training runs (docs/formats.md).\n"
    "  list          the runs, newest first: id, status, start time (UTC), world size,\n"
    "                iterations done of planned, name\n"
    "  show ID       one run: its fields, its iterations (loss, seconds, tokens/s), its\n"
    "                reconfigurations (iteration, cause, GPUs before -> after, state source,\n"
    "                iterations lost, phases) and pauses, its prediction for the hardware it\n"
    "                ran on against what it measured (as sailor validate --run), and how\n"
    "                many events it recorded\n"
    "  attach ID     takes over a running cluster run (sailor run --launcher slurm) whose\n"
    "                controller died: stores what its workers reported since, follows its\n"
    "                Slurm job to the end and prints events as 'sailor run' does\n"
    "  resize ID     tells a running elastic run (sailor run --elastic or --trace) how many\n"
    "                GPUs of each named type and zone it has now: it re-plans and\n"
    "                reconfigures in place (docs/elasticity.md)\n"
    "  --json        list: an array of runs; show: {run, iterations, events, prediction}\n"
    "  --store FILE  the SQLite run store (default: $SAILOR_RUN_STORE, else\n"
    "                $XDG_DATA_HOME/sailor-studio/runs.sqlite, else\n"
    "                ~/.local/share/sailor-studio/runs.sqlite)\n"
    "\n"
    "The store is only read (a read-only file will do). A run that cannot be read is skipped\n"
    "and named on stderr. A running run whose controller is gone shows as\n"
    "\"failed (controller gone)\"; the next 'sailor run' records it as failed.\n"
    "\n"
    "Exit status: 0, 2 on bad input, an unknown run id or a store that cannot be opened.\n";

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

// `sailor runs list|show ID`: reads the run store read-only; never creates one (a store that does
// not exist yet has no runs).
int cmdRuns(int argc, char** argv) {
  if (wantsHelp(argc, argv, 2)) {
    std::cout << kRunsHelp;
    return 0;
  }
  Options a({"--json"}, {"--store"});
  a.parse(argc, argv, 2);
  const std::string sub = a.positional().empty() ? "" : a.positional()[0];
  if (sub != "list" && sub != "show")
    throw InputError("runs", sub.empty() ? "nothing" : "\"" + sub + "\"",
                     "\"list\" or \"show ID\"");
  if (sub == "list" && a.positional().size() != 1)
    throw InputError("runs list", "\"" + a.positional()[1] + "\"", "options only (see --help)");
  std::int64_t id = 0;
  if (sub == "show") {
    if (a.positional().size() != 2)
      throw InputError("runs show", std::to_string(a.positional().size() - 1) + " ids",
                       "one run id");
    const std::string& v = a.positional()[1];
    size_t used = 0;
    try {
      id = std::stoll(v, &used);
    } catch (...) {
      used = 0;
    }
    if (used != v.size() || id < 1)
      throw InputError("runs show", "\"" + v + "\"", "a run id (a positive integer)");
  }
  const bool as_json = a.has("--json");
  try {
    const std::string path = a.has("--store") ? a.required("--store") : RunStore::defaultPath();
    std::error_code ec;
    const bool exists = std::filesystem::exists(path, ec);
    if (std::filesystem::is_directory(path, ec))
      throw InputError(a.has("--store") ? "--store" : "the run store",
                       "\"" + printableLine(path) + "\", which is a directory",
                       "a SQLite run store file");
    if (sub == "list") {
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
        std::cout << fmt::format("{:>6}  {:<{}}  {:<24}  {:>5}  {:>12}  {}\n", "id", "status",
                                 status_w, "started (UTC)", "world", "iterations", "name");
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
    if (as_json) {
      json out{{"run", runJson(*run)}, {"iterations", json::array()}, {"events", json::array()}};
      for (const auto& it : iterations) out["iterations"].push_back(toJson(it));
      for (const auto& e : store->events(id)) out["events"].push_back(toJson(e));
      try {
        out["prediction"] = cli::runPredictionJson(cli::loadRecordedRun(path, id, "runs show"));
      } catch (const InputError&) {  // a run_started that cannot be read: nothing to compare
        out["prediction"] = nullptr;
      }
      std::cout << out.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
      return 0;
    }
    std::cout << "Run " << run->id << ": " << run->name << "\n"
              << "  status       " << statusText(*run) << "\n"
              << "  started      " << run->started_at << "\n"
              << "  finished     " << (run->finished_at.empty() ? "-" : run->finished_at) << "\n"
              << "  world size   " << run->world_size << "\n"
              << "  backend      " << run->backend << "\n"
              << "  iterations   " << run->iterations_done << " of " << run->iterations_planned
              << "\n";
    if (!run->error.empty()) std::cout << "  error        " << run->error << "\n";
    if (!run->job_id.empty()) {
      // The scheduler's last word on the job: the last job_state event that decodes.
      std::string state = "-";
      for (const auto& e : store->events(id)) {
        if (e.kind != "job_state") continue;
        try {
          const JobStateEvent js = std::get<JobStateEvent>(runEventFromJson(e.payload).body);
          state = js.state + (js.reason.empty() ? "" : " (" + js.reason + ")");
        } catch (const std::exception&) {  // a damaged row: the previous state stands
        }
      }
      std::cout << "  job          " << run->launcher << " " << run->job_id << ", " << state
                << "\n";
    }
    if (const auto gone = orphanReason(*run)) std::cout << "  error        " << *gone << "\n";
    if (iterations.empty()) {
      std::cout << "No iterations recorded.\n";
    } else {
      std::cout << "Iterations:\n"
                << fmt::format("{:>11}  {:>12}  {:>10}  {:>12}\n", "iteration", "loss", "seconds",
                               "tokens/s");
      for (const auto& it : iterations)
        std::cout << fmt::format("{:>11}  {:>12}  {:>10}  {:>12}\n", it.iteration,
                                 fixed(it.loss, 4), fixed(it.iteration_seconds, 3),
                                 fixed(it.tokens_per_second, 1));
    }
    // An elastic run's changes of world (sailor run --trace, resize, a worker lost).
    std::cout << cli::formatElasticity(store->events(id));
    try {
      std::cout << cli::formatRunPrediction(cli::loadRecordedRun(path, id, "runs show"));
    } catch (const InputError& e) {
      std::cout << "Prediction against measurement:\n  cannot be read: " << e.what() << "\n";
    }
    std::cout << "Events: " << store->eventCount(id) << "\n";
    return 0;
  } catch (const StoreError& e) {
    std::cerr << "sailor runs: error: " << e.what() << "\n";
    return kExitInput;
  }
}

// `sailor export`: the plan's launch on a cluster as files for its scheduler (launch_export.hpp).
int cmdExport(int argc, char** argv) {
  if (wantsHelp(argc, argv, 2)) {
    std::cout << kExportHelp;
    return 0;
  }
  Options a({}, {"--plan", "--scenario", "--job", "--format", "--cluster", "--output",
                 "--iterations", "--hidden", "--seq-len", "--seed", "--backend"});
  a.parse(argc, argv, 2);
  if (!a.positional().empty())
    throw InputError("export", "\"" + a.positional()[0] + "\"", "options only (see --help)");
  const std::string format_name = a.required("--format");
  const auto format = exportFormatFromName(format_name);
  if (!format)
    throw InputError("--format", "\"" + format_name + "\"", "kubernetes, torchrun or slurm");
  RunOptions ro;
  ro.backend = a.get("--backend").value_or("nccl");
  if (ro.backend != "nccl" && ro.backend != "gloo")
    throw InputError("--backend", "\"" + ro.backend + "\"", "nccl or gloo");
  if (a.has("--iterations"))
    ro.iterations = positiveInt("--iterations", a.required("--iterations"), 1);
  if (a.has("--hidden")) ro.hidden_size = positiveInt("--hidden", a.required("--hidden"), 1);
  if (a.has("--seq-len")) ro.sequence_length = positiveInt("--seq-len", a.required("--seq-len"), 1);
  if (a.has("--seed"))
    ro.seed = static_cast<std::uint64_t>(positiveInt("--seed", a.required("--seed"), 0));

  Catalog cat = Catalog::load(resourceDir());
  PlanExportRequest request;
  request.format = *format;
  request.cluster_file = a.get("--cluster").value_or(resourceDir() + "/clusters/default.json");
  request.plan_name = a.required("--plan");
  request.options = ro;
  auto [scenario, job, plan] = loadPlanFiles(a, cat);
  const std::vector<ExportFile> files = exportPlanLaunch(scenario, job, plan, cat, request);
  if (auto dir = a.get("--output")) {
    for (const std::string& path : writeExportFiles(files, *dir, "--output"))
      std::cout << path << "\n";
    return 0;
  }
  for (const ExportFile& f : files) {
    if (files.size() > 1) std::cout << "# ==> " << f.name << " <==\n";
    std::cout << f.text;
  }
  return 0;
}

}  // namespace

// `sailor run` is the runtime's controller, a separate program (sailor-run) so that this command
// line never links libtorch: hand the whole command line over to it. `sailor profile` is
// sailor-profile, handed over the same way.
int cmdRun(char** argv, const char* program = "sailor-run", const char* env_name = "SAILOR_RUN") {
  std::string path;
  if (const char* env = std::getenv(env_name)) {
    path = env;
  } else {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
      self[n] = '\0';
      path = std::string(self).substr(0, std::string(self).rfind('/') + 1) + program;
    }
  }
  execv(path.c_str(), argv);
  throw InputError(argv[1], "\"" + path + "\" (" + std::strerror(errno) + ")",
                   std::string("the runtime's ") + program + " next to sailor (build target " +
                       program + ", or set " + env_name + ")");
}

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    std::cout << kUsage;
    return argc < 2 ? kExitInput : 0;
  }
  const std::string cmd = argv[1];
  try {
    if (cmd == "catalog") return cmdCatalog(argc, argv);
    if (cmd == "simulate") return cmdSimulate(argc, argv);
    if (cmd == "plan") return cmdPlan(argc, argv);
    if (cmd == "validate") return cmdValidate(argc, argv);
    if (cmd == "calibrate") return cmdCalibrate(argc, argv);
    // `sailor runs attach ID` follows a cluster run: the runtime's controller does that.
    if (cmd == "runs" && argc > 2 && !std::strcmp(argv[2], "attach")) return cmdRun(argv + 1);
    // `sailor runs resize ID ...` talks to a running elastic run's controller: the runtime's.
    if (cmd == "runs" && argc > 2 && !std::strcmp(argv[2], "resize")) return cmdRun(argv + 1);
    if (cmd == "runs") return cmdRuns(argc, argv);
    if (cmd == "run") return cmdRun(argv);
    if (cmd == "profile") return cmdRun(argv, "sailor-profile", "SAILOR_PROFILE");
    if (cmd == "export") return cmdExport(argc, argv);
    std::cerr << "sailor: unknown command '" << printableLine(cmd) << "'\n\n" << kUsage;
    return kExitInput;
  } catch (const InputError& e) {
    std::cerr << "sailor " << printableLine(cmd) << ": error: " << e.what() << "\n";
    return kExitInput;
  } catch (const Cancelled&) {
    std::cerr << "sailor " << printableLine(cmd) << ": cancelled\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "sailor " << printableLine(cmd) << ": internal error: " << printableLine(e.what())
              << "\n";
    return 1;
  }
}
