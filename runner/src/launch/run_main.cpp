// sailor-run: the controller process behind `sailor run` (the `sailor` command line hands
// `sailor run ...` over to this binary so that only the runtime links libtorch). Reads the
// options (run_args.hpp), the scenario, job and plan, refuses bad input before anything starts,
// and hands the run to the controller (controller.hpp, runController). `sailor runs attach` and
// `sailor runs resize` come here too (run_control.hpp).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include <torch/cuda.h>

#include "backend_choice.hpp"
#include "controller.hpp"
#include "launcher_slurm.hpp"
#include "run_args.hpp"
#include "run_control.hpp"
#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/formats/launch_export.hpp"
#include "sailor/formats/plan_export.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/runs/run_prediction.hpp"
#include "sailor/runs/run_store.hpp"
#include "sailor/runs/token_data.hpp"
#include "sailor/scenario/cluster.hpp"
#include "sailor/scenario/scenario.hpp"
#include "training/local_device.hpp"
#include "zone_network.hpp"

using nlohmann::json;
using namespace sailor;
using namespace sailor::runner;

namespace {

std::string selfDir() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : p.parent_path().string();
}

template <typename T, typename F>
T load(const std::string& path, F f) {
  const json j = json_util::readFile(path);
  try {
    return f(j);
  } catch (const InputError& e) {
    throw withContext(e, path);
  }
}

// --data and --vocab: synthetic, the shipped text, a text file, or (--vocab) a token file.
void dataOptions(const RunArgs& a, RunOptions& ro) {
  if (a.data) {
    const std::string& d = utf8Arg("--data", *a.data);
    ro.data = d == "text" ? resourceDir() + "/text/public-domain.txt" : d;
    if (ro.data != "synthetic") ro.data = std::filesystem::absolute(ro.data).string();
  }
  ro.data_format = ro.data == "synthetic" ? "synthetic" : "text";
  if (a.vocab) {
    ro.vocab_size = intArg("--vocab", *a.vocab);
    if (ro.data_format == "synthetic")
      throw InputError("--vocab", *a.vocab,
                       "a token file given with --data FILE (synthetic data are bytes)");
    ro.data_format = "tokens";
  } else if (ro.data_format == "text" && hasLlmcTokenHeader(ro.data)) {
    throw InputError("--data", "\"" + shownUtf8(ro.data) + "\" (an llm.c token file)",
                     "--vocab N with it (the vocabulary of its tokenizer)");
  }
}

// The training settings of the options, on the job's defaults. real_size: the default model
// size when neither --scale nor --real-size is given (workers on CUDA GPUs).
RunOptions runOptionsFromArgs(const RunArgs& a, const Job& job, bool real_size_default) {
  RunOptions ro;
  ro.real_size = a.real_size || (!a.scale && !a.hidden && real_size_default);
  if (a.iterations) ro.iterations = intArg("--iterations", *a.iterations);
  if (a.hidden) ro.hidden_size = intArg("--hidden", *a.hidden);
  if (a.seq_len) ro.sequence_length = intArg("--seq-len", *a.seq_len);
  if (a.global_batch) ro.global_batch_size = intArg("--global-batch", *a.global_batch);
  if (a.seed) ro.seed = static_cast<std::uint64_t>(intArg("--seed", *a.seed));
  // SGD steps by the gradient itself, not Adam's normalised one, so it needs a far larger rate:
  // on the shipped text 0.03-0.1 trained as well as Adam at 1e-3 (docs/training.md).
  if (job.optimizer == Optimizer::Sgd) {
    ro.learning_rate = 0.05;
    ro.min_learning_rate = ro.learning_rate / 10;
  }
  if (a.lr) {
    ro.learning_rate = numberArg("--lr", *a.lr);
    ro.min_learning_rate = ro.learning_rate / 10;
  }
  if (a.dtype) ro.dtype = *a.dtype;
  if (a.backend) ro.backend = *a.backend;
  dataOptions(a, ro);
  return ro;
}

// The backend a local run's `world` workers get for `requested` (--backend): NCCL needs one
// GPU per rank, so "nccl" with fewer is refused (InputError) and "auto" falls back to Gloo on CPU
// with a warning, rather than let every worker fail in its first collective.
BackendChoice localBackend(const std::string& requested, int world) {
#ifdef SAILOR_WITH_NCCL
  const bool nccl_built = true;
  const int visible_gpus = static_cast<int>(torch::cuda::device_count());
#else
  const bool nccl_built = false;
  const int visible_gpus = 0;
#endif
  const char* sharing = std::getenv("SAILOR_ALLOW_GPU_SHARING");
  return resolveBackend(requested, world, nccl_built, visible_gpus,
                        sharing && std::string(sharing) == "1");
}

// Whether the workers of `plan` will train on CUDA GPUs (NCCL): then the model's real size is
// the default. A Slurm run's workers use NCCL only when asked (--backend nccl).
bool workersOnGpus(const RunArgs& a, const Plan& plan) {
  const std::string requested = a.backend.value_or("auto");
  if (a.launcher && *a.launcher == "slurm") return requested == "nccl";
  if (requested != "auto" && requested != "nccl") return false;
  return localBackend(requested, static_cast<int>(placeRanks(plan).size())).backend == "nccl";
}

// Where the workers, the run store and the run's name come from, the limits of a local run, and
// the backend the workers use (with a warning where `auto` or the job's precision is overridden).
ControllerOptions controllerOptionsFromArgs(const RunArgs& a, const RunSpec& spec, const Job& job) {
  ControllerOptions co;
  co.worker_path = a.worker                       ? *a.worker
                   : std::getenv("SAILOR_WORKER") ? std::getenv("SAILOR_WORKER")
                                                  : selfDir() + "/sailor-worker";
  co.store_path = storePathArg(a);
  co.name = a.name ? utf8Arg("--name", *a.name)
                   : shownUtf8(std::filesystem::path(*a.plan).filename().string());
  if (const char* env = std::getenv("SAILOR_MAX_LOCAL_PROCESSES"))
    co.max_local_processes = countArg("SAILOR_MAX_LOCAL_PROCESSES", env, kMaxLocalProcesses);
  if (a.max_local_processes)
    co.max_local_processes =
        countArg("--max-local-processes", *a.max_local_processes, kMaxLocalProcesses);
  if (a.heartbeat_timeout) co.heartbeat_timeout_s = heartbeatTimeoutArg(*a.heartbeat_timeout);

  const BackendChoice backend = localBackend(spec.backend, spec.worldSize());
  co.backend = backend.backend;
  if (!backend.warning.empty()) co.warnings.push_back(backend.warning);

  if (job.precision == Precision::Fp16)
    co.warnings.push_back("job precision fp16: the runtime trains in " + spec.dtype +
                          " (fp16 needs loss scaling, which is not implemented; bf16 is)");
  return co;
}

// Bytes of memory this machine can give new processes: MemAvailable of /proc/meminfo, else the
// physical memory (sysconf); 0 when neither is known.
double availableMemoryBytes() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("MemAvailable:", 0) == 0) return std::atof(line.c_str() + 13) * 1024.0;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0;
}

std::string gibText(double bytes) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(1);
  os << bytes / (1024.0 * 1024 * 1024) << " GiB (" << std::llround(bytes) << " bytes)";
  return os.str();
}

// Refuses a local run whose workers would not fit in memory, before any process starts: each
// rank's estimate (rankMemoryBytes, without libtorch's own overhead) summed over the workers
// that share a memory (every worker on this machine's memory with Gloo; with NCCL the ranks of
// each GPU, rank r on GPU r % count, against its memory), against what that memory has. The
// error names the option that sized the model (--seq-len, --hidden, --vocab, else --plan).
void checkLocalMemory(const RunArgs& a, const RunSpec& spec, const std::string& backend) {
  std::vector<double> need{0.0};  // per memory: this machine's, or one per GPU
  std::vector<double> have{availableMemoryBytes()};
  std::string where = "memory available on this machine (MemAvailable)";
#ifdef SAILOR_WITH_NCCL
  if (backend == "nccl") {
    const int gpus = static_cast<int>(torch::cuda::device_count());
    need.assign(static_cast<std::size_t>(gpus), 0.0);
    have.clear();
    for (int g = 0; g < gpus; ++g)
      have.push_back(static_cast<double>(at::cuda::getDeviceProperties(g)->totalGlobalMem));
    where = "memory of the GPU";
  }
#else
  (void)backend;
#endif
  if (need.empty()) return;  // no GPU seen: the backend check refuses the run
  for (int r = 0; r < spec.worldSize(); ++r)
    need[static_cast<std::size_t>(r) % need.size()] += rankMemoryBytes(spec, r);
  for (std::size_t i = 0; i < need.size(); ++i) {
    if (have[i] <= 0 || need[i] <= have[i]) continue;
    std::string option = "--plan", value = "\"" + shownUtf8(*a.plan) + "\"";
    for (const auto& [k, given] :
         {std::pair{"--seq-len", &a.seq_len}, std::pair{"--hidden", &a.hidden},
          std::pair{"--vocab", &a.vocab}})
      if (*given) {
        option = k;
        value = **given;
        break;
      }
    const std::string who =
        need.size() == 1
            ? "the run's " + std::to_string(spec.worldSize()) + " workers need an estimated "
            : "the ranks on GPU " + std::to_string(i) + " need an estimated ";
    throw InputError(
        option,
        value + " (" + spec.model.name + " at hidden " + std::to_string(spec.model.hidden_size) +
            ", sequence " + std::to_string(spec.model.sequence_length) + ", microbatch " +
            std::to_string(spec.plan.microbatch_size) + ": " + who + gibText(need[i]) + ")",
        "a run that fits in the " + gibText(have[i]) + " of " + where);
  }
}

// --checkpoint-every (a non-negative integer) and --checkpoint-keep (at least 1) into `co`.
void checkpointOptions(const RunArgs& a, ControllerOptions& co) {
  if (a.checkpoint_every) co.checkpoint_every = intArg("--checkpoint-every", *a.checkpoint_every);
  if (a.checkpoint_keep) {
    co.checkpoint_keep = intArg("--checkpoint-keep", *a.checkpoint_keep);
    if (co.checkpoint_keep < 1)
      throw InputError("--checkpoint-keep", *a.checkpoint_keep,
                       "at least 1 (the newest complete checkpoint is always kept)");
  }
}

// --elastic and --trace: the re-planner the controller calls when the GPUs change, and the trace
// it replays. The planner searches the scenario with only the GPUs available, for the job at the
// run's global batch, at most --max-local-processes GPUs (one process each), with one thread (the
// workers train meanwhile); analytic profiles, as `sailor plan` without --reference.
void elasticOptions(const RunArgs& a, const Catalog& catalog, const Scenario& scenario,
                    const Job& job, const Plan& plan, const RunOptions& ro, const RunSpec& spec,
                    ControllerOptions& co) {
  if (!a.elastic && !a.trace) {
    if (a.trace_time_scale)
      throw InputError("--trace-time-scale", *a.trace_time_scale, "given with --trace");
    return;
  }
  if (a.trace) {
    const double scale =
        a.trace_time_scale ? rangeArg("--trace-time-scale", *a.trace_time_scale, kMinTraceTimeScale,
                                      kMaxTraceTimeScale, "run seconds per trace second")
                           : 1.0;
    co.trace = loadAvailabilityTrace(utf8Arg("--trace", *a.trace), scale, plan, scenario, catalog);
    // The first row is what the run starts with: the plan must fit in it.
    const Availability& first = co.trace.front().gpus;
    for (const auto& [site, n] : planAvailability(plan)) {
      const auto it = first.find(site);
      if (it == first.end() || it->second < n)
        throw InputError("--trace", "a first row with " + describeAvailability(first),
                         "at least the plan's " + std::to_string(n) + " " + site.first + " in " +
                             site.second + " (the first row is what the run starts with)");
    }
  }
  auto profiles = std::make_shared<ProfileSet>();
  profiles->add(std::make_shared<AnalyticProfile>(catalog));
  Job planned = job;
  planned.global_batch_size = spec.global_batch_size;
  const int max_gpus = co.max_local_processes;
  const Schedule schedule = spec.plan.schedule;
  co.replan = [catalog, scenario, planned, profiles, ro, max_gpus, schedule](
                  const Availability& available, std::string& why) -> std::optional<RunSpec> {
    PlannerOptions po;
    po.threads = 1;
    po.top_k = 1;
    po.max_gpus = max_gpus;
    const Scenario now = scenarioWithAvailability(scenario, available);
    bool any = false;
    for (const Pool& p : now.pools) any = any || p.count > 0;
    if (!any) {
      why = "no GPUs are available";
      return std::nullopt;
    }
    try {
      const PlanResult r = planSearch(now, planned, catalog, *profiles, po);
      if (r.best.empty()) {
        why = "no plan fits: " + r.no_plan_reason;
        return std::nullopt;
      }
      RunOptions next = ro;
      next.global_batch_size = planned.global_batch_size;
      // The new world keeps the running plan's schedule: overlap, the sharding (which one
      // replica has nothing to share over; fully sharded pipelines must run as many microbatches
      // each, else the optimizer state alone stays sharded) and the interleaving (where the new
      // plan's stages and batch can take it: Plan::checkInterleaving, interleavingFits).
      Plan next_plan = r.best.front().plan;
      next_plan.schedule.overlap_grad_reduce = schedule.overlap_grad_reduce;
      const auto replicas = static_cast<int>(next_plan.stages[0].replicas.size());
      next_plan.schedule.sharding = replicas < 2 ? DpSharding::None : schedule.sharding;
      if (next_plan.schedule.sharding == DpSharding::Full &&
          (planned.global_batch_size / next_plan.microbatch_size) % replicas != 0)
        next_plan.schedule.sharding = DpSharding::Optimizer;
      next_plan.schedule.virtual_stages = schedule.virtual_stages;
      try {
        next_plan.checkInterleaving();
        if (!next_plan.interleavingFits(planned.global_batch_size))
          next_plan.schedule.virtual_stages = 1;
      } catch (const InputError&) {
        next_plan.schedule.virtual_stages = 1;
      }
      return RunSpec::build(next_plan, planned, catalog.model(planned.model, "model"), next);
    } catch (const InputError& e) {
      why = std::string("no plan fits: ") + e.what();
      return std::nullopt;
    }
  };
}

// The prediction the run records for the hardware it really runs on (docs/closed-loop.md
// "Prediction against measurement"): the plan's structure on the local device's profile
// (--profile DIR, else the default directory for this device and model), for the model the
// workers build. A --profile that is not a profile, or of another model or precision, is bad
// input; no profile at the default place, one that does not cover the plan, or a cluster run
// (its workers run elsewhere) start the run without one, saying why (prediction_note).
void localPrediction(const RunArgs& a, const Catalog& catalog, const RunSpec& spec,
                     const std::string& launcher, ControllerOptions& co) {
  // The note rides in run_started (the monitor's log and `runs show` print it), not as a
  // warning event: a machine without a profile runs as it did, without a warning per run.
  const auto none = [&](const std::string& why) {
    co.prediction_note = "no local prediction: " + why;
  };
  const bool given = a.profile.has_value();
  if (launcher != "local") {
    if (given)
      throw InputError("--profile", "given with --launcher " + shownUtf8(launcher),
                       "a local run (the cluster's nodes are not this machine)");
    return none("the workers run on the cluster's nodes, not on this machine");
  }
  const std::string device = co.backend == "nccl" ? "cuda" : "cpu";
  const std::string gpu_type = localDeviceName(device);
  const std::string model = runtimeModelName(spec.model);
  std::string dir;
  if (given) {
    dir = utf8Arg("--profile", *a.profile);
  } else {
    dir = shownUtf8(defaultProfileDir(co.store_path, gpu_type, model));
    std::error_code ec;  // a directory this user cannot search counts as no profile
    if (!std::filesystem::exists(dir + "/profile.json", ec)) {
      std::string how = "sailor profile --model " + spec.model.name;
      if (a.hidden) how += " --hidden " + *a.hidden;
      if (a.seq_len) how += " --seq-len " + *a.seq_len;
      return none("no profile of " + gpu_type + " for " + model + " in " + dir +
                  " (make one with `" + how + "`, or give --profile DIR)");
    }
  }
  LocalProfile p;
  try {
    p = LocalProfile::load(dir, "--profile");
  } catch (const InputError& e) {
    if (given) throw;  // what the user named must be a profile
    return none("the profile at the default place cannot be read (" + std::string(e.what()) + ")");
  }
  if (const auto why = profileMismatch(p, spec.model, spec.precision, spec.dtype)) {
    if (given)
      throw InputError("--profile",
                       "\"" + dir + "\", whose model differs from the run's (" + *why + ")",
                       "a profile of the model the run trains (" + model + ", " +
                           precisionName(spec.precision) + ")");
    return none("the profile in " + dir + " is of another model or precision (" + *why + ")");
  }
  // With emulated zones the zones stay apart, joined at the links tc will shape (NOTE
  // [Prediction over emulated zones] in engine/src/runs/run_prediction.cpp).
  std::vector<EmulatedZoneLink> emulated;
  if (co.emulate_zones) {
    const ZoneLayout& layout = *co.emulate_zones;
    for (const ZoneLink& l : layout.links)
      emulated.push_back({layout.zones[static_cast<std::size_t>(l.from)],
                          layout.zones[static_cast<std::size_t>(l.to)], l.bytes_per_s,
                          l.latency_s});
  }
  try {
    co.prediction =
        predictOnProfile(p, spec.plan, spec.global_batch_size, spec.model, spec.precision,
                         spec.optimizer, spec.recompute, catalog, emulated);
  } catch (const InputError& e) {
    none("the profile in " + dir + " does not cover the plan (" + e.what() + ")");
  }
}

// `sailor run --resume ID [--store FILE] [--iterations N] [--checkpoint-every N]
// [--checkpoint-keep K] [--heartbeat-timeout S] [--worker FILE]`: everything else is the run's
// own (its plan, scenario, job and spec), so giving it is refused (parseRunArgs).
int resumeMain(const RunArgs& a) {
  const std::string& id_text = *a.resume;
  std::size_t used = 0;
  long long id = 0;
  try {
    id = std::stoll(id_text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != id_text.size() || id < 1)
    throw InputError("--resume", "\"" + shownUtf8(id_text) + "\"", "a run id (a positive integer)");
  ControllerOptions co;
  co.checkpoint_every = -1;  // the run's own unless given
  co.checkpoint_keep = 0;
  checkpointOptions(a, co);
  co.worker_path = a.worker                       ? *a.worker
                   : std::getenv("SAILOR_WORKER") ? std::getenv("SAILOR_WORKER")
                                                  : selfDir() + "/sailor-worker";
  if (access(co.worker_path.c_str(), X_OK) != 0)
    throw InputError("--worker", "\"" + co.worker_path + "\"", "an executable sailor-worker");
  if (a.heartbeat_timeout) co.heartbeat_timeout_s = heartbeatTimeoutArg(*a.heartbeat_timeout);
  const std::string store = storePathArg(a);
  const int iterations = a.iterations ? intArg("--iterations", *a.iterations) : 0;
  const int code = resumeController(store, id, iterations, co, [](const json& e) {
    const std::string line = e.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
  });
  std::fflush(nullptr);
  std::_Exit(code);
}

// Hex of 32 random bytes: a cluster run's token.
std::string randomToken() {
  std::ifstream in("/dev/urandom", std::ios::binary);
  unsigned char b[32];
  if (!in.read(reinterpret_cast<char*>(b), sizeof b))
    throw std::runtime_error("cannot read /dev/urandom");
  static const char* const kHex = "0123456789abcdef";
  std::string t;
  for (const unsigned char c : b) t += std::string{kHex[c >> 4], kHex[c & 15]};
  return t;
}

void writeFile(const std::string& path, const std::string& text, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!ok) throw std::runtime_error("cannot write " + path);
}

// Removes a run directory that was never submitted (refused, dry run): its few files.
void removeRunDir(const std::string& dir) {
  for (const char* f : {"spec.json", "token", "sailor.sbatch"})
    (void)::unlink((dir + "/" + f).c_str());
  (void)::rmdir(dir.c_str());
}

// --launcher slurm: the cluster's pools for the plan (with --partition/--account overrides),
// the run directory (next to the run store: cluster-runs/run-XXXXXX, mode 0700) with the spec,
// the token (0600) and the batch script, then `sbatch --test-only`: a job the scheduler refuses
// (an unknown partition, more resources than it has) or a scheduler that does not answer is bad
// input (exit 2) before anything is recorded or submitted. Fills co.run_dir; returns the script.
// With --dry-run nothing is written (the run directory in the script is a template).
std::string prepareSlurmRun(const RunArgs& a, const Catalog& catalog, const Scenario& scenario,
                            const Plan& plan, const RunSpec& spec, ControllerOptions& co) {
  const std::string cluster_file = a.cluster.value_or(resourceDir() + "/clusters/default.json");
  const Cluster cluster =
      load<Cluster>(cluster_file, [](const json& j) { return Cluster::fromJson(j); });
  std::vector<ResolvedPool> pools = resolve(cluster, scenario, catalog, plan, cluster_file);
  for (ResolvedPool& p : pools) {
    if (a.partition) p.slurm.partition = *a.partition;
    if (a.account) p.slurm.account = *a.account;
  }
  const LaunchLayout layout = layoutLaunch(plan, pools, cluster_file);
  // What an elastic run's workers that join later need of the job (launcher_slurm.hpp): its
  // components, and the environment the batch script gives its workers (networkExports).
  co.slurm_components.clear();
  for (const PoolLaunch& pl : layout.pools)
    co.slurm_components.push_back(SlurmComponent{pl.pool.gpu_type, pl.pool.zone, pl.ranks()});
  if (co.replan) {
    for (const AvailabilityStep& row : co.trace)
      for (const auto& [site, n] : row.gpus) {
        const int held = std::max(0, componentTasks(co.slurm_components, site.first, site.second));
        if (n > held)
          throw InputError(
              "--trace",
              row.label + ": " + std::to_string(n) + " " + site.first + " in " + site.second,
              "at most the " + std::to_string(held) +
                  " the Slurm job is submitted with (a Slurm run grows back "
                  "within its allocation)");
      }
  }
  RunSpec worker_spec = spec;
  // The workers run on the cluster's nodes: NCCL only when asked for (GPUs requested per task),
  // Gloo on CPUs otherwise (the controller's machine says nothing about the nodes' GPUs).
  worker_spec.backend = spec.backend == "nccl" ? "nccl" : "gloo";
  co.backend = worker_spec.backend;
  co.warnings.clear();
  const ModelSpec& model = catalog.model(spec.model.name, "job.model");
  // A smoke test is the run's warning event, and said on stderr once the job is accepted.
  if (isSmokeTest(worker_spec, model))
    co.warnings.push_back("a smoke test, not the job: the workers train " + model.name +
                          " scaled to hidden " + std::to_string(spec.model.hidden_size) +
                          " (the job's " + std::to_string(model.hidden_size) +
                          "); --real-size trains the job's model");
  const auto say_warnings = [&] {
    for (const std::string& w : co.warnings) std::cerr << "sailor run: " << w << "\n";
  };
  const std::string store_dir = std::filesystem::absolute(co.store_path).parent_path().string();
  const char* runs_env = std::getenv("SAILOR_CLUSTER_RUNS");
  const std::string parent = runs_env && *runs_env ? runs_env : store_dir + "/cluster-runs";
  SlurmRunOptions ro;
  ro.worker = std::filesystem::absolute(co.worker_path).string();
  ro.time_limit = a.time.value_or("");
  ro.gpus = worker_spec.backend == "nccl";
  ro.elastic = static_cast<bool>(co.replan);
  ro.checkpoint_every = co.checkpoint_every;
  if (a.dry_run) {
    ro.run_dir = parent + "/run-XXXXXX";
    say_warnings();
    return withTrainingSummary(slurmRunScript(cluster, layout, worker_spec.toJson(), ro),
                               worker_spec, model);
  }
  // Made here when missing, and removed again when the job is refused (nothing half-written).
  const bool parent_made = !std::filesystem::exists(parent);
  std::filesystem::create_directories(parent);
  auto discard = [&](const std::string& run_dir) {
    removeRunDir(run_dir);
    std::error_code ec;
    if (parent_made) std::filesystem::remove(parent, ec);  // only when empty
  };
  std::string dir = parent + "/run-XXXXXX";
  if (!mkdtemp(dir.data()))
    throw std::runtime_error("mkdtemp " + dir + ": " + std::strerror(errno));
  ro.run_dir = dir;
  const std::string script = withTrainingSummary(
      slurmRunScript(cluster, layout, worker_spec.toJson(), ro), worker_spec, model);
  try {
    writeFile(dir + "/spec.json", worker_spec.toJson().dump(2), 0600);
    writeFile(dir + "/token", randomToken(), 0600);
    writeFile(dir + "/sailor.sbatch", script, 0700);
    const SlurmResult r =
        slurmCommand({"sbatch", "--test-only", "--chdir=" + dir, dir + "/sailor.sbatch"},
                     std::chrono::seconds(30));
    if (r.code != 0) {
      std::string why = r.err.substr(0, r.err.find('\n'));
      for (const char* prefix : {"sbatch: error: ", "allocation failure: "})
        if (why.rfind(prefix, 0) == 0) why = why.substr(std::strlen(prefix));
      // sbatch's own words for a controller it cannot reach (a scheduler that does not answer).
      if (why.find("Unable to contact slurm controller") != std::string::npos)
        throw InputError("--launcher slurm", "no answer from the Slurm controller (" + why + ")",
                         "a scheduler that answers sbatch");
      throw InputError("--launcher slurm", "a job Slurm refuses (" + why + ")",
                       "a job the cluster can run (partition, account, resources)");
    }
  } catch (const InputError&) {
    discard(dir);
    throw;
  } catch (const std::exception& e) {  // sbatch missing or not answering: nothing submitted
    discard(dir);
    throw InputError("--launcher slurm", std::string("no answer from Slurm (") + e.what() + ")",
                     "a scheduler that answers sbatch");
  }
  co.launcher = "slurm";
  co.run_dir = dir;
  co.slurm_worker_env = {{"OMP_NUM_THREADS", "1"},
                         {"SAILOR_CLUSTER_RUN", "1"},
                         {"SAILOR_RUN_TOKEN_FILE", dir + "/token"}};
  if (!cluster.network_interface.empty())
    for (const char* var : {"NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME", "SAILOR_IFNAME"})
      co.slurm_worker_env.emplace_back(var, cluster.network_interface);
  say_warnings();
  return script;
}

}  // namespace

int main(int argc, char** argv) {
  // `sailor run ...` execs us with argv[1] == "run".
  const int first = argc > 1 && std::strcmp(argv[1], "run") == 0 ? 2 : 1;
  try {
    if (argc > first && std::strcmp(argv[first], "attach") == 0)
      return attachMain(argc, argv, first + 1);
    if (argc > first && std::strcmp(argv[first], "resize") == 0)
      return resizeMain(argc, argv, first + 1);
    const RunArgs args = parseRunArgs(argc, argv, first);
    if (args.help) {
      std::cout << kRunHelp;
      return 0;
    }
    if (args.resume) return resumeMain(args);
    // Workers that join a Slurm run start as job steps without GPUs of their own.
    if (args.launcher.value_or("") == "slurm" && (args.elastic || args.trace) &&
        args.backend.value_or("") == "nccl")
      throw InputError(args.trace ? "--trace" : "--elastic",
                       "given with --launcher slurm --backend nccl",
                       "a Gloo run (reconfiguring a Slurm run on GPUs is not built)");
    const Catalog catalog = Catalog::load(resourceDir());
    const std::string& plan_path = *args.plan;
    const Scenario scenario = load<Scenario>(
        *args.scenario, [&](const json& j) { return Scenario::fromJson(j, catalog); });
    const Job job = load<Job>(*args.job, [&](const json& j) { return Job::fromJson(j, catalog); });
    const Plan plan = load<Plan>(plan_path, [](const json& j) { return Plan::fromJson(j); });
    const RunOptions ro = runOptionsFromArgs(args, job, workersOnGpus(args, plan));
    // The plan against the batch the run trains (--global-batch, else the job's): a bad
    // --global-batch is the option's error, not the plan file's.
    Job run_job = job;
    run_job.global_batch_size = ro.global_batch_size.value_or(job.global_batch_size);
    try {
      plan.validate(run_job, catalog, scenario);
    } catch (const InputError& e) {
      if (ro.global_batch_size && e.field() == "global_batch_size") throw;
      throw withContext(e, plan_path);
    }
    const RunSpec spec = RunSpec::build(plan, job, catalog.model(job.model, "model"), ro);
    // Read the data now, so that a missing or short file, or an id beyond the vocabulary, is bad
    // input before any process starts.
    if (ro.data_format == "text")
      (void)TokenSource::textFile(ro.data, ro.seed).sample(0, spec.model.sequence_length);
    if (ro.data_format == "tokens")
      (void)inspectTokenFile(ro.data, spec.model.vocab_size, spec.model.sequence_length, true);
    ControllerOptions co = controllerOptionsFromArgs(args, spec, job);
    checkpointOptions(args, co);
    elasticOptions(args, catalog, scenario, job, plan, ro, spec, co);
    const std::string launcher = args.launcher.value_or("local");
    if (launcher != "local" && launcher != "slurm")
      throw InputError("--launcher", "\"" + shownUtf8(launcher) + "\"", "local or slurm");
    if (launcher == "local" && args.dry_run)
      throw InputError("--dry-run", "a local run", "--launcher slurm");
    if (args.emulate_zones) {  // checked before anything starts (docs/emulated-zones.md)
      if (launcher != "local")
        throw InputError("--emulate-zones", "given with --launcher " + launcher, "a local run");
      // Workers that join a reconfigured world would need their zone's namespace too.
      if (co.replan)
        throw InputError("--emulate-zones", "given with --elastic or --trace",
                         "one of them (reconfiguring a run with emulated zones is not built)");
      // NCCL's sockets stay on `lo` (NCCL_SOCKET_IFNAME), which does not reach other zones.
      if (co.backend == "nccl")
        throw InputError("--emulate-zones", "a run on NCCL", "a Gloo run (--backend gloo)");
      if (const std::string missing = zoneEmulationMissing(); !missing.empty())
        throw InputError("--emulate-zones", missing, "root with iproute2 (`ip`, `tc`) in PATH");
      co.emulate_zones = layoutZones(spec, scenario);
    }
    if (launcher == "local") checkLocalMemory(args, spec, co.backend);
    localPrediction(args, catalog, spec, launcher, co);  // after the zones: it predicts over them
    if (launcher == "slurm") {
      const std::string script = prepareSlurmRun(args, catalog, scenario, plan, spec, co);
      if (args.dry_run) {
        std::cout << script;
        return 0;
      }
    }
    const int code = runController(spec, scenario.toJson(), job.toJson(), co, [](const json& e) {
      // Every text in events is UTF-8 already; the handler only keeps a stray byte from ending
      // the stream.
      const std::string line = e.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
      std::fwrite(line.data(), 1, line.size(), stdout);
      std::fflush(stdout);
    });
    // The run is over and recorded, its workers reaped: leave without running libtorch's static
    // destructors, which deregister every operator (0.3-0.7 s of CPU on a loaded machine) and
    // would delay the exit of a controller told to stop (docs/network.md "Network").
    std::cout.flush();
    std::fflush(nullptr);
    std::_Exit(code);
  } catch (const InputError& e) {
    std::cerr << "sailor run: " << e.what() << "\n";
    return kExitRunInput;
  } catch (const StoreError& e) {  // before the run was created: nothing started
    std::cerr << "sailor run: run store: " << e.what() << "\n";
    return kExitRunNotRecorded;
  } catch (const std::exception& e) {
    std::cerr << "sailor run: " << e.what() << "\n";
    return kExitRunFailed;
  }
}
