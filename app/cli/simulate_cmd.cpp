// `sailor simulate` (a plan's prediction) and `sailor export` (a plan's launch on a cluster):
// the two commands that start from a scenario, a job and a plan file.
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "format.hpp"
#include "help.hpp"
#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/core/utf8.hpp"
#include "sailor/formats/launch_export.hpp"
#include "sailor/formats/plan_export.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/planning/campaign.hpp"
#include "sailor/planning/utilization.hpp"
#include "sailor/runs/run_spec.hpp"
#include "sailor/scenario/plan_links.hpp"
#include "sailor/simulation/simulator.hpp"

#include <CLI/CLI.hpp>

namespace sailor::cli {

namespace {

using nlohmann::json;

// The options of `sailor simulate`.
struct SimulateArgs {
  const CLI::Option* json = nullptr;
  const CLI::Option* no_analytic = nullptr;
  const CLI::Option* non_blocking_p2p = nullptr;
  std::optional<std::string> scenario, job, plan, sailor_profiles, timeline, gradient_bucket;
  std::vector<std::string> profiles, catalogs;
  FailureArgs failures;  // the whole run's, with a job that has a training budget
};

void declare(CLI::App& app, SimulateArgs& a) {
  a.json = app.add_flag("--json");
  a.no_analytic = app.add_flag("--no-analytic");
  a.non_blocking_p2p = app.add_flag("--non-blocking-p2p");
  app.add_option("--scenario", a.scenario);
  app.add_option("--job", a.job);
  app.add_option("--plan", a.plan);
  repeatable(app.add_option("--profiles", a.profiles));
  app.add_option("--sailor-profiles", a.sailor_profiles);
  app.add_option("--timeline", a.timeline);
  app.add_option("--gradient-bucket", a.gradient_bucket);
  repeatable(app.add_option("--catalog", a.catalogs));
  app.add_option("--checkpoint-gb-per-s", a.failures.checkpoint_gb_per_s);
  app.add_option("--restart-s", a.failures.restart_s);
  app.add_option("--reconfigure-s", a.failures.reconfigure_s);
}

// The profiles simulate predicts with: --profiles, then --sailor-profiles, then the analytic
// one unless --no-analytic.
ProfileSet simulateProfiles(const SimulateArgs& a, const Catalog& cat) {
  ProfileSet profiles;
  for (const auto& f : a.profiles) profiles.add(NativeProfile::load(f, cat));
  if (a.sailor_profiles) {
    const std::string& dir = *a.sailor_profiles;
    auto sailor =
        SailorProfile::load(dir + "/simulator_profiles.json", dir + "/llm_info.json", cat);
    profiles.add(sailor);
    profiles.add(std::make_shared<MicrobatchScaledProfile>(sailor));
  }
  if (a.no_analytic->count() == 0) profiles.add(std::make_shared<AnalyticProfile>(cat));
  return profiles;
}

}  // namespace

int cmdSimulate(int argc, char** argv) {
  if (wantsHelp(argc, argv, 2)) {
    std::cout << kSimulateHelp;
    return 0;
  }
  CLI::App app;
  setUpCommand(app);
  SimulateArgs a;
  declare(app, a);
  parseOptionsOnly(app, argc, argv, 2, "simulate");
  Catalog cat = Catalog::load(resourceDir());
  for (const auto& f : a.catalogs) cat.extendFromFile(f);
  auto [scenario, job, plan] = loadPlanFiles(a.scenario, a.job, a.plan, cat);
  const ProfileSet profiles = simulateProfiles(a, cat);
  SimulatorOptions opt;
  if (a.non_blocking_p2p->count() > 0) opt.schedule = PipelineSchedule::Async1F1B;
  if (a.gradient_bucket)
    opt.gradient_bucket_params =
        positiveNumber("--gradient-bucket", *a.gradient_bucket, "a positive number of parameters");
  Prediction p = simulate(plan, scenario, job, cat, profiles, opt);
  const std::vector<LinkUse> links =
      linksOfPlan(plan, scenario, cat, cat.model(job.model, "job.model").tied_embeddings);
  const std::optional<Utilization> mfu = modelFlopsUtilization(plan, job, cat, p.iteration_s);
  if (a.timeline) json_util::writeFileAtomically(*a.timeline, timelineTrace(p, plan).dump() + "\n");
  // A job file with a training budget: the whole run on this plan (docs/planner.md, "Days and
  // dollars"); its failure options need that budget, never silently unused.
  const FailureModel failures = failureModelFrom(a.failures);
  for (const auto& [name, value] :
       {std::pair{"--checkpoint-gb-per-s", &a.failures.checkpoint_gb_per_s},
        std::pair{"--restart-s", &a.failures.restart_s},
        std::pair{"--reconfigure-s", &a.failures.reconfigure_s}})
    if (*value && !job.trainingIterations())
      throw InputError(name, **value,
                       "absent without a training budget in the job file (training_tokens or "
                       "training_iterations)");
  std::optional<Campaign> campaign;
  if (job.trainingIterations() && p.fits)
    campaign = planCampaign(plan, p, job, cat, scenario, failures);
  if (a.json->count() > 0) {
    json out = p.toJson();
    out["mfu"] = mfu ? json(mfu->mfu) : json();
    out["model_tflops_per_gpu"] = mfu ? json(mfu->model_tflops_per_gpu) : json();
    out["plan"] = plan.toJson();
    out["job"] = job.toJson();
    out["scenario"] = scenario.name;
    out["links"] = json::array();
    for (const LinkUse& l : links) out["links"].push_back(l.toJson());
    if (campaign) out["campaign"] = campaign->toJson();
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << formatPrediction(plan, job, scenario, p, mfu);
    std::cout << formatLinks(links);
    if (campaign) std::cout << formatCampaigns({*campaign}, job);
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

namespace {

// The options of `sailor export`.
struct ExportArgs {
  const CLI::Option* real_size = nullptr;
  const CLI::Option* scale = nullptr;
  std::optional<std::string> plan, scenario, job, format, cluster, output, iterations, hidden,
      seq_len, seed, backend, data, vocab, global_batch, lr, dtype;
};

void declare(CLI::App& app, ExportArgs& a) {
  app.add_option("--plan", a.plan);
  app.add_option("--scenario", a.scenario);
  app.add_option("--job", a.job);
  app.add_option("--format", a.format);
  app.add_option("--cluster", a.cluster);
  app.add_option("--output", a.output);
  app.add_option("--iterations", a.iterations);
  app.add_option("--hidden", a.hidden);
  app.add_option("--seq-len", a.seq_len);
  app.add_option("--seed", a.seed);
  app.add_option("--backend", a.backend);
  a.real_size = app.add_flag("--real-size");
  a.scale = app.add_flag("--scale");
  app.add_option("--data", a.data);
  app.add_option("--vocab", a.vocab);
  app.add_option("--global-batch", a.global_batch);
  app.add_option("--lr", a.lr);
  app.add_option("--dtype", a.dtype);
}

// The run options an export writes into each worker's spec, as `sailor run` takes them; the
// model at its real size unless --scale or --hidden asks for a smoke test. A token file is a
// path on the cluster's nodes (not read here), of the model's vocabulary unless --vocab says.
RunOptions exportRunOptions(const ExportArgs& a, const ModelSpec& model) {
  RunOptions ro;
  ro.backend = a.backend.value_or("nccl");
  if (ro.backend != "nccl" && ro.backend != "gloo")
    throw InputError("--backend", "\"" + ro.backend + "\"", "nccl or gloo");
  const bool scale = a.scale->count() > 0;
  if (scale && a.real_size->count() > 0)
    throw InputError("--real-size", "given with --scale", "one of them");
  ro.real_size = a.real_size->count() > 0 || (!scale && !a.hidden);
  if (a.iterations) ro.iterations = positiveInt("--iterations", *a.iterations, 1);
  if (a.hidden) ro.hidden_size = positiveInt("--hidden", *a.hidden, 1);
  if (a.seq_len) ro.sequence_length = positiveInt("--seq-len", *a.seq_len, 1);
  if (a.seed) ro.seed = static_cast<std::uint64_t>(positiveInt("--seed", *a.seed, 0));
  if (a.global_batch) ro.global_batch_size = positiveInt("--global-batch", *a.global_batch, 1);
  if (a.lr) {
    ro.learning_rate = positiveNumber("--lr", *a.lr, "a positive learning rate");
    ro.min_learning_rate = ro.learning_rate / 10;
  }
  if (a.dtype) ro.dtype = *a.dtype;
  if (a.data && *a.data != "synthetic") {
    if (!isPrintableText(*a.data) || !std::filesystem::path(*a.data).is_absolute())
      throw InputError("--data", "\"" + printableLine(*a.data) + "\"",
                       "synthetic, or the absolute path of the token file on the cluster's nodes");
    ro.data = *a.data;
    ro.data_format = a.vocab || ro.real_size ? "tokens" : "text";
  }
  if (a.vocab) {
    if (ro.data_format == "synthetic")
      throw InputError("--vocab", *a.vocab, "a token file given with --data FILE");
    ro.vocab_size = positiveInt("--vocab", *a.vocab, 2);
  } else if (ro.data_format == "tokens") {
    ro.vocab_size = model.vocab_size;
  }
  return ro;
}

}  // namespace

// `sailor export`: the plan's launch on a cluster as files for its scheduler (launch_export.hpp).
int cmdExport(int argc, char** argv) {
  if (wantsHelp(argc, argv, 2)) {
    std::cout << kExportHelp;
    return 0;
  }
  CLI::App app;
  setUpCommand(app);
  ExportArgs a;
  declare(app, a);
  parseOptionsOnly(app, argc, argv, 2, "export");
  const std::string& format_name = required(a.format, "--format");
  const auto format = exportFormatFromName(format_name);
  if (!format)
    throw InputError("--format", "\"" + format_name + "\"", "kubernetes, torchrun or slurm");
  Catalog cat = Catalog::load(resourceDir());
  PlanExportRequest request;
  request.format = *format;
  request.cluster_file = a.cluster.value_or(resourceDir() + "/clusters/default.json");
  request.plan_name = required(a.plan, "--plan");
  auto [scenario, job, plan] = loadPlanFiles(a.scenario, a.job, a.plan, cat);
  const ModelSpec& model = cat.model(job.model, "job.model");
  request.options = exportRunOptions(a, model);
  const std::vector<ExportFile> files = exportPlanLaunch(scenario, job, plan, cat, request);
  // What the files train, on stderr where it is not the job on its data.
  const RunSpec spec = exportRunSpec(job, plan, cat, request);
  if (isSmokeTest(spec, model))
    std::cerr << "sailor export: a smoke test, not the job: " << model.name << " scaled to hidden "
              << spec.model.hidden_size << " (the job's " << model.hidden_size
              << "); without --scale and --hidden the workers train it\n";
  if (spec.data_format == "synthetic")
    std::cerr << "sailor export: the workers train on synthetic tokens; --data FILE gives them "
                 "the job's token file\n";
  if (a.output) {
    for (const std::string& path : writeExportFiles(files, *a.output, "--output"))
      std::cout << path << "\n";
    return 0;
  }
  for (const ExportFile& f : files) {
    if (files.size() > 1) std::cout << "# ==> " << f.name << " <==\n";
    std::cout << f.text;
  }
  return 0;
}

}  // namespace sailor::cli
