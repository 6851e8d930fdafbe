// sailor-run: the controller process behind `sailor run` (the `sailor` command line hands
// `sailor run ...` over to this binary so that only the runtime links libtorch).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>

#include <torch/cuda.h>

#include "backend_choice.hpp"
#include "controller.hpp"
#include "sailor/catalog.hpp"
#include "sailor/error.hpp"
#include "sailor/json_util.hpp"
#include "sailor/plan.hpp"
#include "sailor/run_store.hpp"
#include "sailor/scenario.hpp"
#include "sailor/token_data.hpp"

using nlohmann::json;
using namespace sailor;
using namespace sailor::runner;

namespace {

constexpr const char* kHelp =
    "Usage: sailor run --plan FILE --scenario FILE --job FILE [options]\n"
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
    "  --local                   run every rank on this machine (the only mode so far)\n"
    "  --max-local-processes N   refuse plans that need more processes (default 8,\n"
    "                            or $SAILOR_MAX_LOCAL_PROCESSES)\n"
    "  --data synthetic|text|FILE  token stream: synthetic (default), the shipped public-domain\n"
    "                            text (resources/text), or any text file; byte-level tokens\n"
    "  --hidden N                width of the model the workers build (default heads x 16)\n"
    "  --seq-len N               sequence length (default min(job, 64))\n"
    "  --global-batch N          sequences per iteration (default: the job's)\n"
    "  --seed N                  weights and data seed (default 1234)\n"
    "  --lr X                    peak learning rate (default 1e-3 with Adam, 0.05 with SGD;\n"
    "                            warm-up 2 iterations, then cosine to lr/10)\n"
    "  --dtype float32|float64   training precision on CPU (default float32)\n"
    "  --backend auto|gloo|nccl  communication backend (default auto)\n"
    "  --store FILE              run store (default $SAILOR_RUN_STORE or\n"
    "                            ~/.local/share/sailor-studio/runs.sqlite)\n"
    "  --name TEXT               run name (default: the plan file name)\n"
    "  --heartbeat-timeout S     a worker silent this long has failed (default 5)\n"
    "  --worker FILE             sailor-worker binary (default: next to this one)\n"
    "\n"
    "Exit status: 0 finished, 2 bad input (nothing started), 4 the run failed (a worker died,\n"
    "stopped reporting or reported an error), 130 interrupted.\n";

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

}  // namespace

int main(int argc, char** argv) {
  // `sailor run ...` execs us with argv[1] == "run".
  int first = 1;
  if (argc > 1 && std::strcmp(argv[1], "run") == 0) first = 2;
  std::map<std::string, std::string> opt;
  const std::vector<std::string> with_value{"--plan",
                                            "--scenario",
                                            "--job",
                                            "--iterations",
                                            "--max-local-processes",
                                            "--data",
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
                                            "--worker"};
  try {
    for (int i = first; i < argc; ++i) {
      const std::string k = argv[i];
      if (k == "--help" || k == "-h") {
        std::cout << kHelp;
        return 0;
      }
      if (k == "--local") continue;
      if (std::find(with_value.begin(), with_value.end(), k) == with_value.end())
        throw InputError("run", "\"" + k + "\"", "an option of `sailor run --help`");
      if (i + 1 >= argc) throw InputError(k, "nothing", "a value");
      opt[k] = argv[++i];
    }
    for (const char* req : {"--plan", "--scenario", "--job"})
      if (!opt.count(req)) throw InputError(req, "nothing", "a file (see `sailor run --help`)");

    const Catalog catalog = Catalog::load(resourceDir());
    const std::string plan_path = opt["--plan"];
    const Scenario scenario = load<Scenario>(
        opt["--scenario"], [&](const json& j) { return Scenario::fromJson(j, catalog); });
    const Job job =
        load<Job>(opt["--job"], [&](const json& j) { return Job::fromJson(j, catalog); });
    const Plan plan = load<Plan>(plan_path, [](const json& j) { return Plan::fromJson(j); });
    try {
      plan.validate(job, catalog, scenario);
    } catch (const InputError& e) {
      throw withContext(e, plan_path);
    }

    RunOptions ro;
    if (opt.count("--iterations")) ro.iterations = intArg("--iterations", opt["--iterations"]);
    if (opt.count("--hidden")) ro.hidden_size = intArg("--hidden", opt["--hidden"]);
    if (opt.count("--seq-len")) ro.sequence_length = intArg("--seq-len", opt["--seq-len"]);
    if (opt.count("--global-batch"))
      ro.global_batch_size = intArg("--global-batch", opt["--global-batch"]);
    if (opt.count("--seed")) ro.seed = static_cast<std::uint64_t>(intArg("--seed", opt["--seed"]));
    // SGD steps by the gradient itself, not Adam's normalised one, so it needs a far larger rate:
    // on the shipped text 0.03-0.1 trained as well as Adam at 1e-3 (docs/runtime.md).
    if (job.optimizer == Optimizer::Sgd) {
      ro.learning_rate = 0.05;
      ro.min_learning_rate = ro.learning_rate / 10;
    }
    if (opt.count("--lr")) {
      ro.learning_rate = numberArg("--lr", opt["--lr"]);
      ro.min_learning_rate = ro.learning_rate / 10;
    }
    if (opt.count("--dtype")) ro.dtype = opt["--dtype"];
    if (opt.count("--backend")) ro.backend = opt["--backend"];
    if (opt.count("--data")) {
      const std::string d = opt["--data"];
      ro.data = d == "text" ? resourceDir() + "/text/public-domain.txt" : d;
      if (ro.data != "synthetic") ro.data = std::filesystem::absolute(ro.data).string();
    }
    const RunSpec spec = RunSpec::build(plan, job, catalog.model(job.model, "model"), ro);
    // Read the text now, so that a missing or short file is bad input before any process starts.
    if (ro.data != "synthetic")
      (void)TokenSource::textFile(ro.data, ro.seed).sample(0, spec.model.sequence_length);

    ControllerOptions co;
    co.worker_path = opt.count("--worker")          ? opt["--worker"]
                     : std::getenv("SAILOR_WORKER") ? std::getenv("SAILOR_WORKER")
                                                    : selfDir() + "/sailor-worker";
    co.store_path = opt.count("--store") ? opt["--store"] : RunStore::defaultPath();
    co.name =
        opt.count("--name") ? opt["--name"] : std::filesystem::path(plan_path).filename().string();
    if (const char* env = std::getenv("SAILOR_MAX_LOCAL_PROCESSES"))
      co.max_local_processes = intArg("SAILOR_MAX_LOCAL_PROCESSES", env);
    if (opt.count("--max-local-processes"))
      co.max_local_processes = intArg("--max-local-processes", opt["--max-local-processes"]);
    if (opt.count("--heartbeat-timeout"))
      co.heartbeat_timeout_s = numberArg("--heartbeat-timeout", opt["--heartbeat-timeout"]);

      // NCCL needs one GPU per rank: refuse (--backend nccl) or fall back to Gloo (auto) here,
      // rather than let every worker fail in its first collective.
#ifdef SAILOR_WITH_NCCL
    const bool nccl_built = true;
    const int visible_gpus = static_cast<int>(torch::cuda::device_count());
#else
    const bool nccl_built = false;
    const int visible_gpus = 0;
#endif
    const char* sharing = std::getenv("SAILOR_ALLOW_GPU_SHARING");
    const BackendChoice backend =
        resolveBackend(spec.backend, spec.worldSize(), nccl_built, visible_gpus,
                       sharing && std::string(sharing) == "1");
    co.backend = backend.backend;
    if (!backend.warning.empty()) co.warnings.push_back(backend.warning);

    if (job.precision == Precision::Fp16)
      co.warnings.push_back("job precision fp16: the runtime trains in " + spec.dtype +
                            " (fp16 needs loss scaling, which is not implemented; bf16 is)");
    return runController(spec, scenario.toJson(), job.toJson(), co, [](const json& e) {
      const std::string line = e.dump() + "\n";
      std::fwrite(line.data(), 1, line.size(), stdout);
      std::fflush(stdout);
    });
  } catch (const InputError& e) {
    std::cerr << "sailor run: " << e.what() << "\n";
    return kExitRunInput;
  } catch (const StoreError& e) {
    std::cerr << "sailor run: run store: " << e.what() << "\n";
    return kExitRunInput;
  } catch (const std::exception& e) {
    std::cerr << "sailor run: " << e.what() << "\n";
    return kExitRunFailed;
  }
}
