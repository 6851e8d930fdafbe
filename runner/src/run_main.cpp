// sailor-run: the controller process behind `sailor run` (the `sailor` command line hands
// `sailor run ...` over to this binary so that only the runtime links libtorch). Reads the
// options (CLI11), the scenario, job and plan, refuses bad input before anything starts, and
// hands the run to the controller (controller.hpp, runController).
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include <torch/cuda.h>

#include "backend_choice.hpp"
#include "controller.hpp"
#include "launcher_slurm.hpp"
#include "local_device.hpp"
#include "sailor/catalog.hpp"
#include "sailor/cluster.hpp"
#include "sailor/error.hpp"
#include "sailor/json_util.hpp"
#include "sailor/launch_export.hpp"
#include "sailor/plan.hpp"
#include "sailor/planner.hpp"
#include "sailor/profile.hpp"
#include "sailor/run_prediction.hpp"
#include "sailor/run_store.hpp"
#include "sailor/scenario.hpp"
#include "sailor/token_data.hpp"
#include "zone_network.hpp"

#include <CLI/CLI.hpp>

using nlohmann::json;
using namespace sailor;
using namespace sailor::runner;

namespace {

constexpr const char* kHelp =
    "Usage: sailor run --plan FILE --scenario FILE --job FILE [options]\n"
    "       sailor run --resume RUN_ID [--store FILE] [--iterations N] [checkpoint options]\n"
    "\n"
    "Trains the job's model on the plan with the bundled runtime: one sailor-worker process per\n"
    "GPU of the plan (pipeline 1F1B, tensor and data parallelism over PyTorch c10d: Gloo on CPU,\n"
    "NCCL on CUDA builds with a GPU). Prints one JSON event per line on stdout and records the\n"
    "run in the run store (`sailor runs list`). Event schema: docs/runtime.md.\n"
    "\n"
    "  --plan FILE               stages and replicas (as `sailor plan --json` prints)\n"
    "  --scenario FILE           the resources the plan uses\n"
    "  --job FILE                model, global batch size, sequence length\n"
    "  --iterations N            training iterations (default 20)\n"
    "  --local                   run every rank on this machine (the default launcher)\n"
    "  --launcher local|slurm    where the workers run: local processes (default) or one Slurm\n"
    "                            batch job (docs/launch.md \"Slurm runs\"); the job outlives\n"
    "                            this process: `sailor runs attach ID` follows it again\n"
    "  --cluster FILE            cluster description for --launcher slurm (default\n"
    "                            resources/clusters/default.json)\n"
    "  --partition P, --account A, --time T  override the cluster's Slurm settings\n"
    "  --dry-run                 print the Slurm batch script and submit nothing\n"
    "  --max-local-processes N   refuse plans that need more processes (1 to 4096; default\n"
    "                            8, or $SAILOR_MAX_LOCAL_PROCESSES)\n"
    "  --data synthetic|text|FILE  token stream: synthetic (default), the shipped public-domain\n"
    "                            text (resources/text), or any text file (byte-level tokens);\n"
    "                            with --vocab, FILE is a token file: flat uint16 ids (uint32\n"
    "                            when N > 65536) as nanoGPT writes them, or llm.c's .bin\n"
    "  --vocab N                 the token file's vocabulary: the model's embedding size\n"
    "  --scale                   train the model scaled to a CPU (the default without GPUs)\n"
    "  --real-size               train the catalogue model at its real size (the default when\n"
    "                            every worker has a CUDA GPU: the run uses NCCL)\n"
    "  --hidden N                width of the scaled model (default heads x 16; a multiple of\n"
    "                            the heads, at most 65536)\n"
    "  --seq-len N               sequence length (default: the job's at real size, else\n"
    "                            min(job, 64); at most 1048576)\n"
    "  --global-batch N          sequences per iteration (default: the job's): a multiple of\n"
    "                            the microbatch size, at least replicas x microbatch size;\n"
    "                            replicas take G / b microbatches round robin, unevenly if\n"
    "                            need be\n"
    "  --seed N                  weights and data seed (default 1234)\n"
    "  --lr X                    peak learning rate (default 1e-3 with Adam, 0.05 with SGD;\n"
    "                            warm-up 2 iterations, then cosine to lr/10)\n"
    "  --dtype float32|float64   training precision on CPU (default float32)\n"
    "  --backend auto|gloo|nccl  communication backend (default auto)\n"
    "  --store FILE              run store (default $SAILOR_RUN_STORE or\n"
    "                            ~/.local/share/sailor-studio/runs.sqlite)\n"
    "  --name TEXT               run name in UTF-8 (default: the plan file name, a byte that\n"
    "                            is not UTF-8 shown as U+FFFD)\n"
    "  --heartbeat-timeout S     a worker silent this long has failed (0.1 to 3600; default 5)\n"
    "  --worker FILE             sailor-worker binary (default: next to this one)\n"
    "  --checkpoint-every N      after every N iterations, a checkpoint of the whole training\n"
    "                            state (sharded, written in the background; default 0: none),\n"
    "                            in <store directory>/checkpoints/<store name>-<first 8\n"
    "                            digits of the store's id>/run-ID, e.g. checkpoints/\n"
    "                            runs-3f2a9c1e/run-4 (local runs only)\n"
    "  --checkpoint-keep K       complete checkpoints kept, the newest (default 2)\n"
    "  --elastic                 a worker that dies or stops reporting no longer ends the run:\n"
    "                            its GPU counts as gone, the planner re-plans on the GPUs left\n"
    "                            (same job, global batch and settings) and the workers that\n"
    "                            remain reconfigure in place, taking the state from each\n"
    "                            other (from the last checkpoint when no one holds a stage);\n"
    "                            local runs (docs/elasticity.md)\n"
    "  --trace FILE              replay GPU availability during the run (implies --elastic):\n"
    "                            SAILOR's CSV (a column per <gpu>_<zone>, a Timestamp\n"
    "                            column) or JSON ([{\"Time\": s, \"GPUs\": n}], the plan's one\n"
    "                            GPU type and zone); each change re-plans and reconfigures;\n"
    "                            a row on which no plan fits pauses the run until one does\n"
    "  --trace-time-scale X      run seconds per trace second (1e-6 to 1e6; default 1; 0.01\n"
    "                            replays a trace of minutes in seconds)\n"
    "  --profile DIR             the local device's profile (`sailor profile` output): the\n"
    "                            run records its prediction for this machine from it (default:\n"
    "                            <store directory>/profiles/<device>/<model>, where `sailor\n"
    "                            profile` writes without --out; none there: the run says so)\n"
    "  --emulate-zones           local run with each zone of the plan in a network namespace of\n"
    "                            its own, the links between zones shaped to the scenario's\n"
    "                            bandwidth with tc (docs/emulated-zones.md); needs\n"
    "                            root and iproute2 (ip, tc)\n"
    "  --resume RUN_ID           restart the stopped or failed run RUN_ID from its last\n"
    "                            complete checkpoint, in the same run record, same plan and\n"
    "                            spec (--iterations N changes its planned count; the\n"
    "                            checkpoint options default to the run's own); refused\n"
    "                            when its checkpoint names another run or store\n"
    "\n"
    "Paths given to --data and --store must be valid UTF-8 (they are printed in events).\n"
    "\n"
    "Before anything starts, a local run's workers are checked against this machine's memory\n"
    "(each GPU's with NCCL): a run estimated not to fit is bad input (docs/runtime.md).\n"
    "\n"
    "Exit status: 0 finished, 2 bad input (nothing started), 4 the run failed (a worker died,\n"
    "stopped reporting or reported an error, the loss diverged, or the controller failed),\n"
    "5 the run store could not be opened or written (nothing started), 130 interrupted.\n";

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

// s with every byte that is not part of valid UTF-8 replaced by U+FFFD: how a name or a path
// that is not UTF-8 is shown (events and messages are UTF-8).
std::string shownUtf8(const std::string& s) {
  return json::parse(json(s).dump(-1, ' ', false, json::error_handler_t::replace))
      .get<std::string>();
}

// The value of `option` when it is valid UTF-8; else bad input naming the option.
const std::string& utf8Arg(const std::string& option, const std::string& v) {
  if (shownUtf8(v) != v)
    throw InputError(option, "\"" + shownUtf8(v) + "\" (bytes that are not UTF-8, shown as U+FFFD)",
                     "UTF-8 text: the run's events and store are UTF-8");
  return v;
}

int intArg(const std::string& opt, const std::string& v) {
  try {
    std::size_t used = 0;
    const long x = std::stol(v, &used);
    if (used == v.size() && x >= 0 && x <= 1'000'000'000) return static_cast<int>(x);
  } catch (const std::exception&) {
  }
  throw InputError(opt, "\"" + v + "\"", "a non-negative integer");
}

double numberArg(const std::string& opt, const std::string& v) {
  try {
    std::size_t used = 0;
    const double x = std::stod(v, &used);
    if (used == v.size() && std::isfinite(x) && x >= 0) return x;
  } catch (const std::exception&) {
  }
  throw InputError(opt, "\"" + v + "\"", "a non-negative number");
}

// The value of `opt` when it is a number from `lo` to `hi` (`what` says in what unit).
double rangeArg(const std::string& opt, const std::string& v, double lo, double hi,
                const std::string& what) {
  const auto refuse = [&] {
    std::ostringstream range;
    range << what << " from " << lo << " to " << hi;
    return InputError(opt, "\"" + shownUtf8(v) + "\"", range.str());
  };
  double x = 0;
  try {
    x = numberArg(opt, v);
  } catch (const InputError&) {
    throw refuse();
  }
  if (x < lo || x > hi) throw refuse();
  return x;
}

// An integer `opt` from 1 to `hi`.
int countArg(const std::string& opt, const std::string& v, int hi) {
  const int x = intArg(opt, v);
  if (x < 1 || x > hi)
    throw InputError(opt, "\"" + shownUtf8(v) + "\"", "an integer from 1 to " + std::to_string(hi));
  return x;
}

// The bounds of the options that are not the model's or the plan's (RunSpec::build checks
// those): --heartbeat-timeout in seconds, --trace-time-scale in run seconds per trace second,
// --max-local-processes in processes.
constexpr double kMinHeartbeatTimeoutS = 0.1, kMaxHeartbeatTimeoutS = 3600;
constexpr double kMinTraceTimeScale = 1e-6, kMaxTraceTimeScale = 1e6;
constexpr int kMaxLocalProcesses = 4096;

double heartbeatTimeoutArg(const std::string& v) {
  return rangeArg("--heartbeat-timeout", v, kMinHeartbeatTimeoutS, kMaxHeartbeatTimeoutS,
                  "seconds");
}

// The options of `sailor run` as given, parsed by CLI11: the last value of each valued option
// (converted where it is used, so that each error names its option), and whether --help won.
struct RunArgs {
  bool help = false;
  bool dry_run = false;
  bool elastic = false;
  bool emulate_zones = false;
  bool scale = false, real_size = false;  // --scale, --real-size
  std::map<std::string, std::string> values;
  bool has(const std::string& k) const { return values.count(k) > 0; }
  const std::string& at(const std::string& k) const { return values.at(k); }
};

// The run store's path: --store, else RunStore::defaultPath(); UTF-8, and not a directory (which
// SQLite would only call a disk I/O error).
std::string storePathArg(const RunArgs& a) {
  const std::string option =
      a.has("--store") ? "--store" : "run store path (SAILOR_RUN_STORE, XDG_DATA_HOME, HOME)";
  std::string path = utf8Arg(option, a.has("--store") ? a.at("--store") : RunStore::defaultPath());
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(option, "\"" + path + "\", which is a directory", "a SQLite run store file");
  return path;
}

const std::vector<std::string> kValuedOptions{"--plan",
                                              "--scenario",
                                              "--job",
                                              "--iterations",
                                              "--max-local-processes",
                                              "--data",
                                              "--vocab",
                                              "--hidden",
                                              "--seq-len",
                                              "--global-batch",
                                              "--seed",
                                              "--lr",
                                              "--dtype",
                                              "--backend",
                                              "--store",
                                              "--name",
                                              "--heartbeat-timeout",
                                              "--worker",
                                              "--launcher",
                                              "--cluster",
                                              "--partition",
                                              "--account",
                                              "--time",
                                              "--checkpoint-every",
                                              "--checkpoint-keep",
                                              "--resume",
                                              "--trace",
                                              "--trace-time-scale",
                                              "--profile"};

// argv[first..argc) as `sailor run` reads it. A valued option takes the next argument whatever
// it is, or `--option=value`; --local is accepted and changes nothing. Bad input, in the order
// the arguments come: anything else (InputError "run"), or a valued option that ends the
// command line. --help or -h before any of those wins.
RunArgs parseRunArgs(int argc, char** argv, int first) {
  CLI::App app;
  app.set_help_flag();  // --help prints kHelp, not CLI11's text
  app.allow_extras();   // unknown arguments come back in remaining(), in order
  app.add_flag("-h,--help");
  app.add_flag("--local");
  app.add_flag("--dry-run");
  app.add_flag("--elastic");
  app.add_flag("--emulate-zones");
  app.add_flag("--scale");
  app.add_flag("--real-size");
  for (const auto& k : kValuedOptions)
    app.add_option(k)->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  std::vector<std::string> args;  // CLI11 takes them last first
  for (int i = argc - 1; i >= first; --i) args.emplace_back(argv[i]);
  bool ends_without_value = false;
  try {
    app.parse(args);
  } catch (const CLI::ArgumentMismatch&) {
    // Only a valued option with nothing after it stops CLI11 (it takes any next argument).
    ends_without_value = true;
  }
  const auto position = [&](const std::string& s) {
    for (int i = first; i < argc; ++i)
      if (s == argv[i]) return i;
    return argc;
  };
  const std::vector<std::string> unknown = app.remaining();
  const int first_unknown = unknown.empty() ? argc : position(unknown.front());
  const int first_help = app.count("--help") ? std::min(position("--help"), position("-h")) : argc;
  if (first_help < first_unknown) {
    RunArgs help;
    help.help = true;
    return help;
  }
  if (!unknown.empty())
    throw InputError("run", "\"" + unknown.front() + "\"", "an option of `sailor run --help`");
  if (ends_without_value) throw InputError(argv[argc - 1], "nothing", "a value");
  RunArgs out;
  out.dry_run = app.count("--dry-run") > 0;
  out.elastic = app.count("--elastic") > 0;
  out.emulate_zones = app.count("--emulate-zones") > 0;
  out.scale = app.count("--scale") > 0;
  out.real_size = app.count("--real-size") > 0;
  if (out.scale && out.real_size)
    throw InputError("--real-size", "given with --scale", "one of them");
  for (const auto& k : kValuedOptions)
    if (const auto& given = app.get_option(k)->results(); !given.empty())
      out.values[k] = given.back();
  for (const char* req : {"--plan", "--scenario", "--job"})
    if (!out.has("--resume") && !out.has(req))
      throw InputError(req, "nothing", "a file (see `sailor run --help`)");
  return out;
}

// --data and --vocab: synthetic, the shipped text, a text file, or (--vocab) a token file.
void dataOptions(const RunArgs& a, RunOptions& ro) {
  if (a.has("--data")) {
    const std::string& d = utf8Arg("--data", a.at("--data"));
    ro.data = d == "text" ? resourceDir() + "/text/public-domain.txt" : d;
    if (ro.data != "synthetic") ro.data = std::filesystem::absolute(ro.data).string();
  }
  ro.data_format = ro.data == "synthetic" ? "synthetic" : "text";
  if (a.has("--vocab")) {
    ro.vocab_size = intArg("--vocab", a.at("--vocab"));
    if (ro.data_format == "synthetic")
      throw InputError("--vocab", a.at("--vocab"),
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
  ro.real_size = a.real_size || (!a.scale && !a.has("--hidden") && real_size_default);
  if (a.has("--iterations")) ro.iterations = intArg("--iterations", a.at("--iterations"));
  if (a.has("--hidden")) ro.hidden_size = intArg("--hidden", a.at("--hidden"));
  if (a.has("--seq-len")) ro.sequence_length = intArg("--seq-len", a.at("--seq-len"));
  if (a.has("--global-batch"))
    ro.global_batch_size = intArg("--global-batch", a.at("--global-batch"));
  if (a.has("--seed")) ro.seed = static_cast<std::uint64_t>(intArg("--seed", a.at("--seed")));
  // SGD steps by the gradient itself, not Adam's normalised one, so it needs a far larger rate:
  // on the shipped text 0.03-0.1 trained as well as Adam at 1e-3 (docs/training.md).
  if (job.optimizer == Optimizer::Sgd) {
    ro.learning_rate = 0.05;
    ro.min_learning_rate = ro.learning_rate / 10;
  }
  if (a.has("--lr")) {
    ro.learning_rate = numberArg("--lr", a.at("--lr"));
    ro.min_learning_rate = ro.learning_rate / 10;
  }
  if (a.has("--dtype")) ro.dtype = a.at("--dtype");
  if (a.has("--backend")) ro.backend = a.at("--backend");
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
  const std::string requested = a.has("--backend") ? a.at("--backend") : "auto";
  if (a.has("--launcher") && a.at("--launcher") == "slurm") return requested == "nccl";
  if (requested != "auto" && requested != "nccl") return false;
  return localBackend(requested, static_cast<int>(placeRanks(plan).size())).backend == "nccl";
}

// Where the workers, the run store and the run's name come from, the limits of a local run, and
// the backend the workers use (with a warning where `auto` or the job's precision is overridden).
ControllerOptions controllerOptionsFromArgs(const RunArgs& a, const RunSpec& spec, const Job& job) {
  ControllerOptions co;
  co.worker_path = a.has("--worker")              ? a.at("--worker")
                   : std::getenv("SAILOR_WORKER") ? std::getenv("SAILOR_WORKER")
                                                  : selfDir() + "/sailor-worker";
  co.store_path = storePathArg(a);
  co.name = a.has("--name") ? utf8Arg("--name", a.at("--name"))
                            : shownUtf8(std::filesystem::path(a.at("--plan")).filename().string());
  if (const char* env = std::getenv("SAILOR_MAX_LOCAL_PROCESSES"))
    co.max_local_processes = countArg("SAILOR_MAX_LOCAL_PROCESSES", env, kMaxLocalProcesses);
  if (a.has("--max-local-processes"))
    co.max_local_processes =
        countArg("--max-local-processes", a.at("--max-local-processes"), kMaxLocalProcesses);
  if (a.has("--heartbeat-timeout"))
    co.heartbeat_timeout_s = heartbeatTimeoutArg(a.at("--heartbeat-timeout"));

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
    std::string option = "--plan", value = "\"" + shownUtf8(a.at("--plan")) + "\"";
    for (const char* k : {"--seq-len", "--hidden", "--vocab"})
      if (a.has(k)) {
        option = k;
        value = a.at(k);
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
  if (a.has("--checkpoint-every"))
    co.checkpoint_every = intArg("--checkpoint-every", a.at("--checkpoint-every"));
  if (a.has("--checkpoint-keep")) {
    co.checkpoint_keep = intArg("--checkpoint-keep", a.at("--checkpoint-keep"));
    if (co.checkpoint_keep < 1)
      throw InputError("--checkpoint-keep", a.at("--checkpoint-keep"),
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
  if (!a.elastic && !a.has("--trace")) {
    if (a.has("--trace-time-scale"))
      throw InputError("--trace-time-scale", a.at("--trace-time-scale"), "given with --trace");
    return;
  }
  if (a.has("--launcher") && a.at("--launcher") != "local")
    throw InputError(a.has("--trace") ? "--trace" : "--elastic",
                     "given with --launcher " + shownUtf8(a.at("--launcher")),
                     "a local run (reconfiguring Slurm runs in place is not implemented)");
  if (a.has("--trace")) {
    const double scale =
        a.has("--trace-time-scale")
            ? rangeArg("--trace-time-scale", a.at("--trace-time-scale"), kMinTraceTimeScale,
                       kMaxTraceTimeScale, "run seconds per trace second")
            : 1.0;
    co.trace =
        loadAvailabilityTrace(utf8Arg("--trace", a.at("--trace")), scale, plan, scenario, catalog);
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
  co.replan = [catalog, scenario, planned, profiles, ro, max_gpus](
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
      return RunSpec::build(r.best.front().plan, planned, catalog.model(planned.model, "model"),
                            next);
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
  const bool given = a.has("--profile");
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
    dir = utf8Arg("--profile", a.at("--profile"));
  } else {
    dir = shownUtf8(defaultProfileDir(co.store_path, gpu_type, model));
    std::error_code ec;  // a directory this user cannot search counts as no profile
    if (!std::filesystem::exists(dir + "/profile.json", ec)) {
      std::string how = "sailor profile --model " + spec.model.name;
      if (a.has("--hidden")) how += " --hidden " + a.at("--hidden");
      if (a.has("--seq-len")) how += " --seq-len " + a.at("--seq-len");
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
  // [Prediction over emulated zones] in engine/src/run_prediction.cpp).
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
// own (its plan, scenario, job and spec), so giving it is refused.
int resumeMain(const RunArgs& a) {
  for (const std::string& k : kValuedOptions) {
    static const std::vector<std::string> kAllowed{"--resume",          "--store",
                                                   "--iterations",      "--checkpoint-every",
                                                   "--checkpoint-keep", "--heartbeat-timeout",
                                                   "--worker",          "--max-local-processes"};
    if (a.has(k) && std::find(kAllowed.begin(), kAllowed.end(), k) == kAllowed.end())
      throw InputError(k, "given with --resume",
                       "none: a resumed run keeps its plan, scenario, job and spec");
  }
  if (a.dry_run) throw InputError("--dry-run", "given with --resume", "none");
  if (a.emulate_zones) throw InputError("--emulate-zones", "given with --resume", "none");
  // A resumed run trains its checkpoint's spec as it is (model size included) and is not elastic.
  for (const auto& [flag, given] :
       {std::pair{"--elastic", a.elastic}, std::pair{"--scale", a.scale},
        std::pair{"--real-size", a.real_size}})
    if (given)
      throw InputError(flag, "given with --resume",
                       "none: a resumed run keeps its plan, scenario, job and spec");
  const std::string& id_text = a.at("--resume");
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
  co.worker_path = a.has("--worker")              ? a.at("--worker")
                   : std::getenv("SAILOR_WORKER") ? std::getenv("SAILOR_WORKER")
                                                  : selfDir() + "/sailor-worker";
  if (access(co.worker_path.c_str(), X_OK) != 0)
    throw InputError("--worker", "\"" + co.worker_path + "\"", "an executable sailor-worker");
  if (a.has("--heartbeat-timeout"))
    co.heartbeat_timeout_s = heartbeatTimeoutArg(a.at("--heartbeat-timeout"));
  const std::string store = storePathArg(a);
  const int iterations = a.has("--iterations") ? intArg("--iterations", a.at("--iterations")) : 0;
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
  const std::string cluster_file =
      a.has("--cluster") ? a.at("--cluster") : resourceDir() + "/clusters/default.json";
  const Cluster cluster =
      load<Cluster>(cluster_file, [](const json& j) { return Cluster::fromJson(j); });
  std::vector<ResolvedPool> pools = resolve(cluster, scenario, catalog, plan, cluster_file);
  for (ResolvedPool& p : pools) {
    if (a.has("--partition")) p.slurm.partition = a.at("--partition");
    if (a.has("--account")) p.slurm.account = a.at("--account");
  }
  const LaunchLayout layout = layoutLaunch(plan, pools, cluster_file);
  RunSpec worker_spec = spec;
  // The workers run on the cluster's nodes: NCCL only when asked for (GPUs requested per task),
  // Gloo on CPUs otherwise (the controller's machine says nothing about the nodes' GPUs).
  worker_spec.backend = spec.backend == "nccl" ? "nccl" : "gloo";
  co.backend = worker_spec.backend;
  co.warnings.clear();
  const std::string store_dir = std::filesystem::absolute(co.store_path).parent_path().string();
  const char* runs_env = std::getenv("SAILOR_CLUSTER_RUNS");
  const std::string parent = runs_env && *runs_env ? runs_env : store_dir + "/cluster-runs";
  SlurmRunOptions ro;
  ro.worker = std::filesystem::absolute(co.worker_path).string();
  ro.time_limit = a.has("--time") ? a.at("--time") : "";
  ro.gpus = worker_spec.backend == "nccl";
  if (a.dry_run) {
    ro.run_dir = parent + "/run-XXXXXX";
    return slurmRunScript(cluster, layout, worker_spec.toJson(), ro);
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
  const std::string script = slurmRunScript(cluster, layout, worker_spec.toJson(), ro);
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
  return script;
}

// `sailor runs attach ID [--store FILE]` (sailor hands it over as `attach ID ...`).
int attachMain(int argc, char** argv, int first) {
  std::string store_path, id_text;
  for (int i = first; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--store" && i + 1 < argc) store_path = argv[++i];
    else if (id_text.empty() && !k.empty() && k[0] != '-') id_text = k;
    else throw InputError("runs attach", "\"" + shownUtf8(k) + "\"", "ID [--store FILE]");
  }
  if (id_text.empty()) throw InputError("runs attach", "nothing", "a run id");
  const int id = intArg("runs attach", id_text);
  if (store_path.empty()) store_path = RunStore::defaultPath();
  const int code = attachController(store_path, id, [](const json& e) {
    const std::string line = e.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
  });
  std::fflush(nullptr);
  std::_Exit(code);
}

// `sailor runs resize ID --gpus TYPE@ZONE=N [--gpus ...] [--store FILE]` (sailor hands it over
// as `resize ID ...`): tells the running elastic run ID how many GPUs of each named (type, zone)
// it has now; its controller re-plans and reconfigures (docs/elasticity.md). Checked
// here against the run's record and scenario; the controller answers on its control socket.
int resizeMain(int argc, char** argv, int first) {
  std::string store_path, id_text;
  json gpus = json::object();
  for (int i = first; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--store" && i + 1 < argc) {
      store_path = argv[++i];
    } else if (k == "--gpus" && i + 1 < argc) {
      const std::string v = argv[++i];
      const std::size_t at = v.find('@'), eq = v.rfind('=');
      if (at == std::string::npos || eq == std::string::npos || eq < at)
        throw InputError("--gpus", "\"" + shownUtf8(v) + "\"",
                         "TYPE@ZONE=N, e.g. A100-40@us-central1-a=3");
      const int n = intArg("--gpus " + shownUtf8(v.substr(0, eq)), v.substr(eq + 1));
      if (n < 0 || n > kMaxGpuCount)
        throw InputError("--gpus " + shownUtf8(v.substr(0, eq)), std::to_string(n),
                         "a GPU count from 0 to " + std::to_string(kMaxGpuCount));
      gpus[v.substr(0, eq)] = n;
    } else if (id_text.empty() && !k.empty() && k[0] != '-') {
      id_text = k;
    } else {
      throw InputError("runs resize", "\"" + shownUtf8(k) + "\"",
                       "ID --gpus TYPE@ZONE=N [--gpus ...] [--store FILE]");
    }
  }
  if (id_text.empty()) throw InputError("runs resize", "nothing", "a run id");
  if (gpus.empty()) throw InputError("--gpus", "nothing", "at least one TYPE@ZONE=N");
  const int id = intArg("runs resize", id_text);
  if (store_path.empty()) store_path = RunStore::defaultPath();
  const RunStore store(store_path, StoreAccess::ReadOnly);
  const std::optional<RunRecord> rec = store.run(id);
  const std::string what = "run " + std::to_string(id);
  if (!rec)
    throw InputError("runs resize", what, "a run id of `sailor runs list` in " + store_path);
  if (rec->status != RunStatus::Running)
    throw InputError("runs resize", what + ", which is " + runStatusName(rec->status),
                     "a running run");
  const Catalog catalog = Catalog::load(resourceDir());
  const Scenario scenario = Scenario::fromJson(rec->scenario, catalog);
  for (const auto& [site, n] : gpus.items()) {
    const std::size_t at = site.find('@');
    if (!scenario.findPool(site.substr(at + 1), site.substr(0, at)))
      throw InputError("--gpus " + shownUtf8(site),
                       site.substr(0, at) + " in " + site.substr(at + 1),
                       "a GPU type and zone with a pool in the run's scenario");
  }
  // The control socket is in the run's private directory, beside its rendezvous file.
  std::string socket_path;
  for (const EventRecord& e : store.events(id))
    if (e.kind == "workers_started") {
      const std::string rv = e.payload.value("store", "");
      if (rv.rfind("file:", 0) == 0)
        socket_path = rv.substr(5, rv.rfind('/') - 5) + "/control.sock";
    }
  if (socket_path.empty() || ::access(socket_path.c_str(), F_OK) != 0)
    throw InputError("runs resize", what + ", which was not started with --elastic or --trace",
                     "a local run started with --elastic or --trace");
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, socket_path.c_str(),
              std::min(socket_path.size() + 1, sizeof addr.sun_path - 1));
  if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0)
    throw InputError("runs resize",
                     what + ": its controller does not answer (" + std::strerror(errno) + ")",
                     "a running controller");
  const std::string req = json{{"type", "resize"}, {"gpus", gpus}}.dump() + "\n";
  (void)!::write(fd, req.data(), req.size());
  std::string reply;
  pollfd pfd{fd, POLLIN, 0};
  while (reply.find('\n') == std::string::npos && ::poll(&pfd, 1, 15000) > 0) {
    char buf[4096];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    reply.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  json answer;
  try {
    answer = json::parse(reply.substr(0, reply.find('\n')));
  } catch (const std::exception&) {
    throw InputError("runs resize", what + ": no answer from its controller", "an answer");
  }
  if (!answer.value("ok", false))
    throw InputError("runs resize", what + ": " + answer.value("message", std::string("refused")),
                     "a resize the run can take");
  std::cout << "sailor runs resize: " << what << ": " << answer.value("message", std::string())
            << "\n";
  return 0;
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
      std::cout << kHelp;
      return 0;
    }
    if (args.has("--resume")) return resumeMain(args);
    const Catalog catalog = Catalog::load(resourceDir());
    const std::string& plan_path = args.at("--plan");
    const Scenario scenario = load<Scenario>(
        args.at("--scenario"), [&](const json& j) { return Scenario::fromJson(j, catalog); });
    const Job job =
        load<Job>(args.at("--job"), [&](const json& j) { return Job::fromJson(j, catalog); });
    const Plan plan = load<Plan>(plan_path, [](const json& j) { return Plan::fromJson(j); });
    try {
      plan.validate(job, catalog, scenario);
    } catch (const InputError& e) {
      throw withContext(e, plan_path);
    }
    const RunOptions ro = runOptionsFromArgs(args, job, workersOnGpus(args, plan));
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
    const std::string launcher = args.has("--launcher") ? args.at("--launcher") : "local";
    // A cluster run's workers would write their shards on the nodes, and the controller may be
    // gone (attach): checkpoints are local-launcher only for now.
    if (launcher == "slurm" && co.checkpoint_every > 0)
      throw InputError("--checkpoint-every", "given with --launcher slurm",
                       "a local run (checkpoints of Slurm runs are not implemented yet)");
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
