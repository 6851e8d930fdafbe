// The command line of `sailor run`: its --help text, the option values' conversions and the
// CLI11 app that reads argv into RunArgs. Declared in run_args.hpp.
#include "run_args.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "command_line.hpp"
#include "sailor/core/error.hpp"
#include "sailor/runs/run_store.hpp"

#include <CLI/CLI.hpp>

namespace sailor::runner {

using nlohmann::json;

const char* const kRunHelp =
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
    "                            runs-3f2a9c1e/run-4; a Slurm run's in checkpoints/ of its\n"
    "                            run directory\n"
    "  --checkpoint-keep K       complete checkpoints kept, the newest (default 2)\n"
    "  --elastic                 a worker that dies or stops reporting no longer ends the run:\n"
    "                            its GPU counts as gone, the planner re-plans on the GPUs left\n"
    "                            (same job, global batch and settings) and the workers that\n"
    "                            remain reconfigure in place, taking the state from each\n"
    "                            other (from the last checkpoint when no one holds a stage);\n"
    "                            local runs, and Gloo runs on Slurm, which grow back within\n"
    "                            their job's allocation (docs/elasticity.md)\n"
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

std::string shownUtf8(const std::string& s) {
  return json::parse(json(s).dump(-1, ' ', false, json::error_handler_t::replace))
      .get<std::string>();
}

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

int countArg(const std::string& opt, const std::string& v, int hi) {
  const int x = intArg(opt, v);
  if (x < 1 || x > hi)
    throw InputError(opt, "\"" + shownUtf8(v) + "\"", "an integer from 1 to " + std::to_string(hi));
  return x;
}

double heartbeatTimeoutArg(const std::string& v) {
  return rangeArg("--heartbeat-timeout", v, kMinHeartbeatTimeoutS, kMaxHeartbeatTimeoutS,
                  "seconds");
}

std::string storePathArg(const RunArgs& a) {
  const std::string option =
      a.store ? "--store" : "run store path (SAILOR_RUN_STORE, XDG_DATA_HOME, HOME)";
  std::string path = utf8Arg(option, a.store.value_or(RunStore::defaultPath()));
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(option, "\"" + path + "\", which is a directory", "a SQLite run store file");
  return path;
}

namespace {

// A resumed run keeps its plan, scenario, job and spec (its model size included), and is not
// elastic: bad input when `a` gives one of the `run_own` options or a flag that changes them.
void refuseWithResume(const RunArgs& a, const std::vector<const CLI::Option*>& run_own) {
  for (const CLI::Option* o : run_own)
    if (o->count() > 0)
      throw InputError(o->get_name(), "given with --resume",
                       "none: a resumed run keeps its plan, scenario, job and spec");
  if (a.dry_run) throw InputError("--dry-run", "given with --resume", "none");
  if (a.emulate_zones) throw InputError("--emulate-zones", "given with --resume", "none");
  for (const auto& [flag, given] :
       {std::pair{"--elastic", a.elastic}, std::pair{"--scale", a.scale},
        std::pair{"--real-size", a.real_size}})
    if (given)
      throw InputError(flag, "given with --resume",
                       "none: a resumed run keeps its plan, scenario, job and spec");
}

}  // namespace

RunArgs parseRunArgs(int argc, char** argv, int first) {
  RunArgs out;
  CLI::App app;
  app.set_help_flag();  // --help prints kRunHelp, not CLI11's text
  app.allow_extras();   // arguments that are no option come back in remaining(), in order
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // Flags count as given whatever their value: read by count(), not bound to a bool.
  const CLI::Option* help = app.add_flag("-h,--help");
  app.add_flag("--local");
  const CLI::Option* dry_run = app.add_flag("--dry-run");
  const CLI::Option* elastic = app.add_flag("--elastic");
  const CLI::Option* emulate_zones = app.add_flag("--emulate-zones");
  const CLI::Option* scale = app.add_flag("--scale");
  const CLI::Option* real_size = app.add_flag("--real-size");
  // The options a resumed run takes (resumeMain) ...
  app.add_option("--resume", out.resume);
  app.add_option("--store", out.store);
  app.add_option("--iterations", out.iterations);
  app.add_option("--max-local-processes", out.max_local_processes);
  app.add_option("--heartbeat-timeout", out.heartbeat_timeout);
  app.add_option("--worker", out.worker);
  app.add_option("--checkpoint-every", out.checkpoint_every);
  app.add_option("--checkpoint-keep", out.checkpoint_keep);
  // ... and those of the run's own plan, scenario, job and spec, which it refuses.
  const std::vector<const CLI::Option*> run_own{
      app.add_option("--plan", out.plan),
      app.add_option("--scenario", out.scenario),
      app.add_option("--job", out.job),
      app.add_option("--data", out.data),
      app.add_option("--vocab", out.vocab),
      app.add_option("--hidden", out.hidden),
      app.add_option("--seq-len", out.seq_len),
      app.add_option("--global-batch", out.global_batch),
      app.add_option("--seed", out.seed),
      app.add_option("--lr", out.lr),
      app.add_option("--dtype", out.dtype),
      app.add_option("--backend", out.backend),
      app.add_option("--name", out.name),
      app.add_option("--launcher", out.launcher),
      app.add_option("--cluster", out.cluster),
      app.add_option("--partition", out.partition),
      app.add_option("--account", out.account),
      app.add_option("--time", out.time),
      app.add_option("--trace", out.trace),
      app.add_option("--trace-time-scale", out.trace_time_scale),
      app.add_option("--profile", out.profile)};

  const bool ends_without_value = parseAllEndsWithoutValue(app, argc, argv, first);
  const auto position = [&](const std::string& s) {
    for (int i = first; i < argc; ++i)
      if (s == argv[i]) return i;
    return argc;
  };
  const std::vector<std::string> unknown = app.remaining();
  const int first_unknown = unknown.empty() ? argc : position(unknown.front());
  const int first_help = help->count() ? std::min(position("--help"), position("-h")) : argc;
  if (first_help < first_unknown) {
    RunArgs help_only;  // nothing else is read
    help_only.help = true;
    return help_only;
  }
  if (!unknown.empty())
    throw InputError("run", "\"" + unknown.front() + "\"", "an option of `sailor run --help`");
  if (ends_without_value) throw InputError(argv[argc - 1], "nothing", "a value");
  out.dry_run = dry_run->count() > 0;
  out.elastic = elastic->count() > 0;
  out.emulate_zones = emulate_zones->count() > 0;
  out.scale = scale->count() > 0;
  out.real_size = real_size->count() > 0;
  if (out.scale && out.real_size)
    throw InputError("--real-size", "given with --scale", "one of them");
  if (!out.resume) {
    for (const auto& [option, file] :
         {std::pair{"--plan", &out.plan}, std::pair{"--scenario", &out.scenario},
          std::pair{"--job", &out.job}})
      if (!*file) throw InputError(option, "nothing", "a file (see `sailor run --help`)");
  } else {
    refuseWithResume(out, run_own);
  }
  return out;
}

}  // namespace sailor::runner
