// sailor-profile: the program behind `sailor profile` (the `sailor` command line hands the
// command over, as it does `sailor run`, so that only the runtime links libtorch). Measures the
// local device with the runtime's own layers and writes, into --out DIR:
//   profile.json       the profile in the project's format (docs/formats.md, "Profile")
//   catalog.json       the device's GPU-type entry and the model the runtime trains here
//                      ({"gpus": [...], "models": [...]}: `sailor plan|simulate --catalog`)
//   scenario.json      one zone holding the device's ranks, with the fitted link model
//   job.json           a job of that model at the profiled sequence length
//   measurements.json  every figure measured (per-layer memory, links, device rates)
// Measuring processes are this program again (--child ...), one per tensor-parallel rank.
// Partial results live in DIR/.partial (one file per finished unit, written atomically), so
// a run that stopped continues where it stopped; it is removed once the outputs are written.
// See docs/closed-loop.md, "Profiling the local device".
#include <malloc.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <numeric>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <torch/torch.h>
#ifdef SAILOR_WITH_CUDA
#include <torch/cuda.h>

#include <ATen/cuda/CUDAContext.h>
#endif

#include "command_line.hpp"
#include "profiler.hpp"
#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/runs/run_prediction.hpp"
#include "sailor/runs/run_spec.hpp"
#include "sailor/runs/run_store.hpp"
#include "training/local_device.hpp"

#include <CLI/CLI.hpp>

using nlohmann::json;
using namespace sailor;
using namespace sailor::runner;
namespace fs = std::filesystem;

namespace {

constexpr int kExitInput = 2;

constexpr const char* kHelp =
    "Usage: sailor profile --model NAME [--out DIR] [options]\n"
    "\n"
    "Measures this machine's device with the runtime's own layers (the code `sailor run`\n"
    "trains with): per-layer forward and backward seconds (embedding, one block, head + loss),\n"
    "the optimizer step and memory, for each microbatch size and tp degree, and the links\n"
    "between local ranks (Gloo point-to-point and all-reduce, fitted to latency + size /\n"
    "bandwidth). Writes into DIR: profile.json, catalog.json (the device's GPU type and the\n"
    "model as the runtime builds it), scenario.json, job.json and measurements.json; use them\n"
    "with `sailor plan|simulate --catalog DIR/catalog.json --profiles DIR/profile.json\n"
    "--scenario DIR/scenario.json --job DIR/job.json`. A run that stopped continues where it\n"
    "stopped (DIR/.partial). Progress on stderr.\n"
    "\n"
    "  --model NAME             catalogue model (sized as `sailor run` sizes it: scaled on\n"
    "                           CPU, its real size on a CUDA GPU)\n"
    "  --scale, --real-size     the scaled model or the real one, whatever the device\n"
    "  --out DIR                output directory (created; default: where sailor run looks\n"
    "                           for this device's profile of the model, <directory of the run\n"
    "                           store>/profiles/<GPU type>/<model>-runtime-h<hidden>-s<seq>)\n"
    "  --microbatch-sizes LIST  e.g. 1,2,4 (default 1,2,4; --quick: 1,2)\n"
    "  --tp LIST                tensor-parallel degrees, e.g. 1,2 (default 1,2; each must\n"
    "                           divide the model's heads)\n"
    "  --hidden N               hidden size (default as sailor run: heads x 16, at least 64)\n"
    "  --seq-len N              sequence length (default as sailor run: min(model's, 64))\n"
    "  --precision fp32|bf16    (default fp32)\n"
    "  --repeats N              timed repetitions per layer, median kept (default 10;\n"
    "                           --quick: 3)\n"
    "  --sharing-ranks N        measure k = 2..N processes computing at once (the GPU type's\n"
    "                           shared_compute_slowdown; default twice the cores, --quick:\n"
    "                           the cores; 1: none). CPU devices only\n"
    "  --quick                  fewer sizes and repetitions: a few seconds, for tests\n"
    "  --no-links               do not measure the links (the scenario then has none)\n"
    "  --device cpu|cuda|auto   (default auto: cuda when this build has it and a GPU is seen)\n"
    "  --gpu-type NAME          name of the device's GPU type (default: cpu-<model name> from\n"
    "                           /proc/cpuinfo, or the CUDA device's name)\n"
    "\n"
    "Exit status: 0 written, 2 bad input (nothing measured: an unknown model, a tp that does\n"
    "not divide the heads, a microbatch that does not fit in the available memory), 1 a\n"
    "measuring process failed (the finished units are kept for the next run).\n";

struct Options {
  std::string model, out, precision = "fp32", device = "auto", gpu_type;
  std::vector<int> microbatches, tps;
  std::optional<int> hidden, seq_len;
  std::optional<bool> real_size;  // --real-size / --scale; unset: real on CUDA, as sailor run
  int repeats = 0;
  int sharing_ranks = 0;  // k of the concurrency measurement: 2..sharing_ranks
  bool quick = false, links = true, help = false;
};

int positiveInt(const std::string& option, const std::string& text, int max) {
  std::size_t used = 0;
  long v = 0;
  try {
    v = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || v < 1 || v > max)
    throw InputError(option, "\"" + text + "\"", "an integer from 1 to " + std::to_string(max));
  return static_cast<int>(v);
}

std::vector<int> intList(const std::string& option, const std::string& text, int max) {
  std::vector<int> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const int v = positiveInt(option, item, max);
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  if (out.empty()) throw InputError(option, "\"" + text + "\"", "a comma-separated list");
  return out;
}

// The options of argv[first..argc), each checked as it comes (command_line.hpp); then --model,
// --precision and --device, and the defaults of what was not given. With --help nothing else
// is checked.
Options parseOptions(int argc, char** argv, int first) {
  Options o;
  CLI::App app;
  app.set_help_flag();  // --help prints kHelp
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  const auto checked = [&](const std::string& name, std::function<void(const std::string&)> f) {
    app.add_option_function<std::string>(name, std::move(f))->trigger_on_parse();
  };
  const auto real_size = [&](bool real) {
    if (o.real_size && *o.real_size != real)
      throw InputError("--real-size", "given with --scale", "one of them");
    o.real_size = real;
  };
  app.add_flag("-h,--help", o.help);
  app.add_option("--model", o.model);
  app.add_option("--out", o.out);
  checked("--microbatch-sizes", [&](const std::string& v) {
    o.microbatches = intList("--microbatch-sizes", v, 1 << 20);
  });
  checked("--tp", [&](const std::string& v) { o.tps = intList("--tp", v, 1024); });
  checked("--hidden",
          [&](const std::string& v) { o.hidden = positiveInt("--hidden", v, 1 << 16); });
  checked("--seq-len",
          [&](const std::string& v) { o.seq_len = positiveInt("--seq-len", v, 1 << 20); });
  app.add_option("--precision", o.precision);
  checked("--repeats",
          [&](const std::string& v) { o.repeats = positiveInt("--repeats", v, 10000); });
  checked("--sharing-ranks",
          [&](const std::string& v) { o.sharing_ranks = positiveInt("--sharing-ranks", v, 64); });
  app.add_flag("--quick", o.quick);
  app.add_flag_callback("--scale", [&] { real_size(false); })->trigger_on_parse();
  app.add_flag_callback("--real-size", [&] { real_size(true); })->trigger_on_parse();
  app.add_flag_callback("--no-links", [&] { o.links = false; });
  app.add_option("--device", o.device);
  app.add_option("--gpu-type", o.gpu_type);
  const ArgumentProblem problem = parseInOrder(app, argc, argv, first);
  if (problem.kind == ArgumentProblem::Kind::MissingValue)
    throw InputError(problem.argument, "nothing", "a value after " + problem.argument);
  if (problem.kind == ArgumentProblem::Kind::Unknown)
    throw InputError("option", "\"" + problem.argument + "\"",
                     "an option of `sailor profile --help`");
  if (o.help) return o;
  if (o.model.empty()) throw InputError("--model", "nothing", "a catalogue model name");
  if (o.precision != "fp32" && o.precision != "bf16")
    throw InputError("--precision", "\"" + o.precision + "\"", "fp32 or bf16");
  if (o.device != "cpu" && o.device != "cuda" && o.device != "auto")
    throw InputError("--device", "\"" + o.device + "\"", "cpu, cuda or auto");
  if (o.microbatches.empty())
    o.microbatches = o.quick ? std::vector<int>{1, 2} : std::vector<int>{1, 2, 4};
  if (o.tps.empty()) o.tps = {1, 2};
  if (o.repeats == 0) o.repeats = o.quick ? 3 : 10;
  if (o.sharing_ranks == 0) {
    const int cores = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
    o.sharing_ranks = o.quick ? cores : 2 * cores;
  }
  return o;
}

bool cudaPresent() {
#ifdef SAILOR_WITH_CUDA
  return torch::cuda::is_available();
#else
  return false;
#endif
}

std::int64_t memInfo(const std::string& key) {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key + ":", 0) == 0) return std::stoll(line.substr(key.size() + 1)) * 1024;
  return 0;
}

std::string hostName() {
  char h[256] = {};
  gethostname(h, sizeof h - 1);
  return h;
}

std::string utcNow() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// The profiling plan at tp `tp`: stage 0 the embedding, stage 1 every block, stage 2 the head.
// The blocks are timed together and divided by their number: one block timed alone keeps its
// 3 MiB of weights (OPT-350M at hidden 256) in the CPU's caches from one repetition to the
// next, which the runtime's stage of many blocks does not (NOTE [Blocks timed together] in
// profiler.cpp).
RunSpec profilingSpec(const ModelSpec& spec, const Options& o, int tp, int microbatch) {
  Plan plan;
  plan.microbatch_size = microbatch;
  const int L = spec.layers;
  std::vector<std::pair<int, int>> ranges{{0, 0}, {1, L}, {L + 1, L + 1}};
  for (auto [a, b] : ranges) plan.stages.push_back({a, b, {{"profile", tp, "local"}}});
  Job job;
  job.model = spec.name;
  job.global_batch_size = microbatch;
  job.sequence_length = spec.sequence_length;
  job.precision = o.precision == "bf16" ? Precision::Bf16 : Precision::Fp32;
  RunOptions ro;
  ro.real_size = o.real_size.value_or(false);
  ro.hidden_size = o.hidden;
  ro.sequence_length = o.seq_len;
  ro.iterations = 1;
  return RunSpec::build(plan, job, spec, ro);
}

// Bytes one measuring process needs at microbatch b: the three layers' parameters with their
// gradients and AdamW state (16 bytes each in fp32), their kept activations and, during the
// head's backward, as much again (the logits' gradient), by the engine's architecture figures
// (deriveLayers) for the model the runtime builds.
double bytesNeeded(const RuntimeModel& m, int tp, int b) {
  ModelSpec s;
  s.name = m.name, s.layers = m.layers, s.hidden_size = m.hidden_size, s.heads = m.heads;
  s.kv_heads = m.heads, s.ffn_hidden_size = m.ffn_hidden_size, s.vocab_size = m.vocab_size;
  s.sequence_length = m.sequence_length, s.max_position_embeddings = m.sequence_length;
  s.tied_embeddings = m.tied_embeddings, s.norm = m.norm, s.bias = m.bias;
  const auto layers = deriveLayers(s, m.sequence_length, tp, 4);
  const LayerInfo& e = layers.front();
  const LayerInfo& k = layers.at(1);
  const LayerInfo& h = layers.back();
  return 16.0 * (e.params + k.params + h.params) +
         2.0 * b * (e.activation_bytes + k.activation_bytes + h.activation_bytes);
}

std::string gib(double bytes) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(1);
  os << bytes / (1024.0 * 1024 * 1024) << " GiB";
  return os.str();
}

// Starts this program as a measuring process with `args`; it dies with us.
pid_t spawnSelf(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  static std::string self = fs::read_symlink("/proc/self/exe").string();
  argv.push_back(self.data());
  std::vector<std::string> copy = args;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    // One compute thread per process, as the runtime's workers have (launcher_local.cpp): torch's
    // own pool, and OpenBLAS's (libopenblas0-pthread keeps a pool of its own, one thread per core,
    // which torch::set_num_threads does not reach), so that what is measured is what they run.
    setenv("OMP_NUM_THREADS", "1", 1);
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    execv(self.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

// Waits for every pid; on the first failure kills the others. Returns whether all exited 0.
bool waitAll(std::vector<pid_t> pids) {
  bool ok = true;
  while (!pids.empty()) {
    int status = 0;
    const pid_t p = waitpid(-1, &status, 0);
    if (p < 0) break;
    auto it = std::find(pids.begin(), pids.end(), p);
    if (it == pids.end()) continue;
    pids.erase(it);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      if (ok)
        for (pid_t q : pids) kill(q, SIGKILL);
      ok = false;
    }
  }
  return ok;
}

// A private directory for the measuring processes' FileStore.
struct TempDir {
  std::string path;
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base == '/' ? base : "/tmp") + "/sailor-profile-XXXXXX";
    if (!mkdtemp(tmpl.data()))
      throw std::runtime_error("mkdtemp: " + std::string(std::strerror(errno)));
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

json readJson(const std::string& path) {
  return json_util::readFile(path);
}

std::string unitFile(const std::string& partial, int tp, int b) {
  return partial + "/tp" + std::to_string(tp) + "-mbs" + std::to_string(b) + ".json";
}

void keepFreedMemory() {
#ifdef __GLIBC__
  // As sailor-worker (worker_main.cpp): the process's resident set then behaves as the
  // worker's does.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

// A measuring process: `--child layers|links` and the options its parent gives it (the spawnSelf
// calls below), read with CLI11; every option of the mode is required.
int childMain(int argc, char** argv) {
  keepFreedMemory();
  torch::set_num_threads(1);
  const std::string mode = argv[2];
  CLI::App app;
  app.set_help_flag();
  std::string store, partial, microbatch_sizes, sizes_text;
  int repeats = 1;
  app.add_option("--store", store)->required();
  app.add_option("--partial", partial)->required();
  app.add_option("--repeats", repeats)->required();
  MeasureTask t;
  int rank = 0;
  if (mode == "layers") {
    std::string spec;
    app.add_option("--spec", spec)->required()->each([&](const std::string& v) {
      t.spec = RunSpec::fromJson(readJson(v));
    });
    app.add_option("--tp-rank", t.tp_rank)->required();
    app.add_option("--microbatch-sizes", microbatch_sizes)->required();
    app.add_option("--device", t.device)->required();
  } else if (mode == "links") {
    app.add_option("--rank", rank)->required();
    app.add_option("--sizes", sizes_text)->required();
  } else {
    throw std::runtime_error("unknown child mode " + mode);
  }
  const ArgumentProblem problem = parseInOrder(app, argc, argv, 3);
  if (problem.kind != ArgumentProblem::Kind::None)
    throw std::runtime_error("argument \"" + problem.argument + "\" of mode " + mode);
  if (mode == "layers") {
    t.microbatches = intList("--microbatch-sizes", microbatch_sizes, 1 << 20);
    t.repeats = repeats;
    t.store_path = store;
    t.partial_dir = partial;
    measureLayers(t);
  } else {
    std::vector<double> sizes;
    std::stringstream ss(sizes_text);
    std::string item;
    while (std::getline(ss, item, ',')) sizes.push_back(std::stod(item));
    measureLinks(rank, store, partial, sizes, repeats);
  }
  return 0;
}

// The model the runtime builds, as a catalogue entry: the name says what it stands for.
ModelSpec runtimeModelSpec(const RuntimeModel& m, const ModelSpec& catalogue) {
  ModelSpec s = catalogue;
  s.name = runtimeModelName(m);
  s.aliases.clear();
  s.hidden_size = m.hidden_size;
  s.kv_heads = m.heads;
  s.ffn_hidden_size = m.ffn_hidden_size;
  s.vocab_size = m.vocab_size;
  s.sequence_length = m.sequence_length;
  s.max_position_embeddings = m.sequence_length;
  s.position_embedding = PositionEmbedding::Learned;
  s.mlp = MlpType::Gelu;
  s.sources = {"The decoder sailor run builds for " + m.name +
               " on this machine (docs/training.md, The model): " + m.name +
               "'s blocks, heads, norm, biases and tied embeddings; hidden " +
               std::to_string(m.hidden_size) + ", MLP " + std::to_string(m.ffn_hidden_size) +
               ", byte vocabulary " + std::to_string(m.vocab_size) + ", sequence " +
               std::to_string(m.sequence_length) + "."};
  return s;
}

// The device measured: its GPU-type name, what /proc/cpuinfo or CUDA call it, "cpu" or "cuda",
// and the cores (ranks of a CPU device).
struct DeviceInfo {
  std::string name, full_name, vendor, kind;
  int cores = 1;
};

// NOTE [Ranks computing at once]: the tp-1 layers again, in k processes at once for k = 2..N
// (N: --sharing-ranks, default twice the cores, the ranks a local run may put on them; --quick:
// the cores). Ranks of a local CPU run are processes on the same cores: where k exceed the cores,
// or the cores share what one alone has to itself (a VM's virtual CPUs on one physical core's
// threads, memory bandwidth, caches), each rank's layers take longer than the profile's figures
// measured alone. slowdown(k) = the mean of the k processes' block time over the profile's tp-1
// figure (the one the simulator scales), at least 1, is the GPU type's shared_compute_slowdown
// (entry k - 1), which the simulator applies as processor sharing to the ranks computing at once
// on the device (NOTE [Ranks sharing a device] in simulator_shared.cpp). Each k is a unit of its
// own in .partial (concurrent-k<K>.json), kept by a resumed profile. Only for a CPU device: each
// rank of a CUDA run has a GPU of its own.
bool measureConcurrency(const Options& o, const ModelSpec& cat_model, const std::string& partial,
                        const std::string& tmp, const std::string& device) {
  const bool has_tp1 = std::find(o.tps.begin(), o.tps.end(), 1) != o.tps.end();
  if (!has_tp1 || device != "cpu") return true;
  const int b = o.microbatches.front();
  const std::string spec_path = tmp + "/spec-concurrent.json";
  json_util::writeFileAtomically(spec_path,
                                 profilingSpec(cat_model, o, 1, 1).toJson().dump() + "\n");
  auto block_s = [](const json& u) {
    return u.at("block").at("forward_s").get<double>() +
           u.at("block").at("backward_s").get<double>();
  };
  const double alone = block_s(readJson(unitFile(partial, 1, b)));
  for (int k = 2; k <= o.sharing_ranks; ++k) {
    const std::string unit = partial + "/concurrent-k" + std::to_string(k) + ".json";
    if (fs::exists(unit)) continue;
    std::cerr << "sailor profile: measuring tp 1, microbatch " << b << " in " << k
              << " processes at once\n";
    std::vector<pid_t> pids;
    for (int r = 0; r < k; ++r) {
      const std::string dir = tmp + "/concurrent-" + std::to_string(k) + "-" + std::to_string(r);
      fs::create_directories(dir);
      pids.push_back(spawnSelf({"--child", "layers", "--spec", spec_path, "--tp-rank", "0",
                                "--microbatch-sizes", std::to_string(b), "--repeats",
                                std::to_string(o.repeats), "--store", dir + "/store", "--partial",
                                dir, "--device", device}));
    }
    if (!waitAll(pids)) {
      std::cerr << "sailor profile: error: measuring " << k << " processes at once failed\n";
      return false;
    }
    std::vector<double> together;
    for (int r = 0; r < k; ++r)
      together.push_back(block_s(readJson(
          unitFile(tmp + "/concurrent-" + std::to_string(k) + "-" + std::to_string(r), 1, b))));
    const double mean = std::accumulate(together.begin(), together.end(), 0.0) / k;
    json_util::writeFileAtomically(unit, json{{"processes", k},
                                              {"microbatch_size", b},
                                              {"block_seconds_alone", alone},
                                              {"block_seconds_together", together},
                                              {"slowdown", mean / alone}}
                                                 .dump(1) +
                                             "\n");
    std::cerr << "sailor profile: " << k << " processes at once: a block takes " << mean / alone
              << " x as long as alone\n";
  }
  return true;
}

// The concurrency units measured (k = 2..N, in order), and the GPU type's slowdown list from
// them: [1, slowdown(2), ...], each at least 1 (below 1 is noise: k at once never beat one
// alone). Empty where nothing was measured (a CUDA device, no tp 1, N = 1).
std::pair<json, json> concurrencyFigures(const Options& o, const std::string& partial) {
  json units = json::array(), slowdown = json::array();
  for (int k = 2; k <= o.sharing_ranks; ++k) {
    const std::string unit = partial + "/concurrent-k" + std::to_string(k) + ".json";
    if (!fs::exists(unit)) break;
    units.push_back(readJson(unit));
    if (slowdown.empty()) slowdown.push_back(1.0);
    slowdown.push_back(std::max(1.0, units.back().at("slowdown").get<double>()));
  }
  return {units, slowdown};
}

// Reads the partial results and writes the outputs, each whole; checks first that the engine
// reads them back.
int writeOutputs(const Options& o, const Catalog& catalog, const ModelSpec& cat_model,
                 const RuntimeModel& rm, const std::string& partial, const DeviceInfo& dev_info) {
  const ModelSpec model = runtimeModelSpec(rm, cat_model);
  const json dev = readJson((partial + "/device.json"));
  json runs = json::array(), units = json::array();
  double overhead = 0;
  for (int tp : o.tps)
    for (int b : o.microbatches) {
      const json u = readJson(unitFile(partial, tp, b));
      units.push_back(u);
      auto layer = [&](const char* name) {
        const json& l = u.at(name);
        return json{{"forward_s", l.at("forward_s")},
                    {"backward_s", l.at("backward_s")},
                    {"params", l.at("params")},
                    {"activation_bytes", l.at("activation_bytes")},
                    {"output_elements", l.at("output_elements")}};
      };
      json layers = json::array({layer("embedding")});
      for (int i = 0; i < model.layers; ++i) layers.push_back(layer("block"));
      layers.push_back(layer("head"));
      runs.push_back({{"microbatch_size", b},
                      {"tp", tp},
                      {"optimizer_seconds_per_parameter", u.at("optimizer_seconds_per_parameter")},
                      {"layers", layers}});
      // NOTE [Fixed resident memory] in profiler.cpp; the first process measured.
      // On CUDA the device's fixed memory (NOTE [Fixed device memory] in profiler.cpp).
      if (tp == o.tps.front() && b == o.microbatches.front())
        overhead = u.contains("fixed_device") && u.at("fixed_device").contains("fixed_device_bytes")
                       ? u.at("fixed_device").at("fixed_device_bytes").get<double>()
                       : u.at("fixed_resident_bytes").get<double>();
    }
  json links = fs::exists((partial + "/links.json")) ? readJson((partial + "/links.json")) : json();
  double latency = 1e-5, bandwidth = dev.at("copy_bytes_per_s").get<double>() / 2;
  json collective_bus;  // GB/s; null when the links were not measured
  if (!links.is_null()) {
    std::vector<double> x, y;
    for (const auto& p : links.at("p2p")) x.push_back(p.at("bytes")), y.push_back(p.at("seconds"));
    std::tie(latency, bandwidth) = fitLatencyBandwidth(x, y);
    links["p2p_fit"] = {{"latency_s", latency}, {"bandwidth_gb_per_s", bandwidth / 1e9}};
    x.clear(), y.clear();
    for (const auto& p : links.at("allreduce"))
      x.push_back(p.at("bytes")), y.push_back(p.at("seconds"));
    auto [al, ab] = fitLatencyBandwidth(x, y);
    links["allreduce_fit"] = {{"latency_s", al}, {"bandwidth_gb_per_s", ab / 1e9}};
    // Two ranks: the bus bandwidth 2 (D - 1) / D x bytes / seconds is bytes over the fitted
    // seconds' slope. The simulator bounds each ring step by it beside the point-to-point link
    // (GpuType::collective_bus_bandwidth_gb_per_s): Gloo reduces on the cores. The links are
    // measured between CPU processes, so the figure is the CPU device's only (a CUDA run's
    // gradients go over NCCL).
    if (dev_info.kind == "cpu") collective_bus = ab / 1e9;
  }
  const auto [concurrency, slowdown] = concurrencyFigures(o, partial);
  const std::string measured_by = "sailor profile on " + hostName() + ", " + utcNow();
  const double flops = dev.at("matmul_flop_per_s").get<double>();
  const json gpu{
      {"name", dev_info.name},
      {"vendor", dev_info.vendor},
      {"full_name",
       dev_info.full_name + (dev_info.kind == "cpu" ? " (one CPU process per rank)" : "")},
      {"memory_bytes", static_cast<std::int64_t>(static_cast<double>(memInfo("MemTotal")) /
                                                 (dev_info.kind == "cpu" ? dev_info.cores : 1))},
      {"memory_note",
       dev_info.kind == "cpu" ? "MemTotal shared by one process per core" : "device memory"},
      {"fp32_tflops", flops / 1e12},
      {"fp16_tflops", flops / 1e12},
      {"memory_bandwidth_gb_per_s", dev.at("copy_bytes_per_s").get<double>() / 1e9},
      {"intra_node_bandwidth_gb_per_s", bandwidth / 1e9},
      {"inter_node_bandwidth_gb_per_s", bandwidth / 1e9},
      {"gpus_per_node", dev_info.kind == "cpu" ? dev_info.cores : 1},
      {"runtime_overhead_bytes", static_cast<std::int64_t>(std::max(0.0, overhead))},
      {"shared_compute_slowdown", slowdown.empty() ? json() : slowdown},
      {"collective_bus_bandwidth_gb_per_s", collective_bus},
      {"notes",
       "Measured: rates by single-thread matmul and copy, bandwidth by Gloo "
       "point-to-point between local ranks, runtime_overhead_bytes the measuring "
       "process's resident set before it builds a model (libtorch, BLAS and autograd "
       "buffers, its Gloo group), collective_bus_bandwidth_gb_per_s by Gloo all-reduce "
       "between two local ranks, shared_compute_slowdown the tp-1 block time of k processes "
       "at once over one alone (k = 1, 2, ...)."},
      {"sources", {measured_by}}};
  const json catalog_out{{"gpus", json::array({gpu})}, {"models", json::array({model.toJson()})}};
  const json profile{{"format", "sailor-studio-profile/1"},
                     {"model", model.name},
                     {"gpu_type", dev_info.name},
                     {"precision", o.precision},
                     {"sequence_length", rm.sequence_length},
                     {"measured_by", measured_by},
                     {"runs", runs}};
  const json link_model{{"latency_s", latency}, {"bandwidth_gb_per_s", bandwidth / 1e9}};
  json scenario{
      {"name", "local-" + dev_info.name},
      {"description", "This machine as profiled by sailor profile: one zone holding " +
                          std::to_string(dev_info.kind == "cpu" ? dev_info.cores : 1) + " " +
                          dev_info.name + " ranks, links fitted to Gloo's measured transfers."},
      {"regions", json::array({{{"name", "local"}, {"zones", json::array({"local"})}}})},
      {"pools", json::array({{{"zone", "local"},
                              {"gpu_type", dev_info.name},
                              {"count", dev_info.kind == "cpu" ? dev_info.cores : 1},
                              {"usd_per_gpu_hour", 0.0},
                              {"spot", false}}})},
      {"network",
       {{"defaults", {{"same_zone", link_model}}},
        {"intra_node", json::array({{{"gpu_type", dev_info.name},
                                     {"model",
                                      {{"kind", "latency_bandwidth"},
                                       {"latency_s", latency},
                                       {"bandwidth_gb_per_s", bandwidth / 1e9}}}}})}}}};
  const json job{{"model", model.name},
                 {"global_batch_size", 8 * o.microbatches.back()},
                 {"sequence_length", rm.sequence_length},
                 {"precision", o.precision},
                 {"optimizer", "adam"}};
  // Check that the outputs read back as the engine reads them before writing any.
  Catalog extended = catalog;
  extended.addGpu(Catalog::fromJson(catalog_out, json{{"models", json::array()}}).gpus().front());
  extended.addModel(model);
  NativeProfile::fromJson(profile, extended, "profile.json");
  const json measurements{{"measured_by", measured_by},
                          {"concurrency", concurrency},
                          {"runtime_model", rm.toJson()},
                          {"device", dev},
                          {"units", units},
                          {"links", links}};
  json_util::writeFileAtomically(o.out + "/measurements.json", measurements.dump(1) + "\n");
  json_util::writeFileAtomically(o.out + "/catalog.json", catalog_out.dump(1) + "\n");
  json_util::writeFileAtomically(o.out + "/scenario.json", scenario.dump(1) + "\n");
  json_util::writeFileAtomically(o.out + "/job.json", job.dump(1) + "\n");
  json_util::writeFileAtomically(o.out + "/profile.json", profile.dump(1) + "\n");
  fs::remove_all(partial);
  std::cerr << "sailor profile: wrote " << o.out << "/profile.json (model " << model.name
            << ", GPU type " << dev_info.name << ")\n";
  return 0;
}

int profileMain(Options o) {
  const Catalog catalog = Catalog::load(resourceDir());
  const ModelSpec* found = catalog.findModel(o.model);
  if (!found)
    throw InputError("--model", "\"" + o.model + "\"",
                     "a catalogue model: " + catalog.modelNames());
  const ModelSpec& cat_model = *found;
  for (int tp : o.tps)
    if (cat_model.heads % tp != 0)
      throw InputError(
          "--tp", std::to_string(tp),
          "a divisor of " + cat_model.name + "'s " + std::to_string(cat_model.heads) + " heads");
  const std::string device = o.device == "auto" ? (cudaPresent() ? "cuda" : "cpu") : o.device;
  if (device == "cuda" && !cudaPresent())
    throw InputError("--device", "cuda", "a CUDA build with a visible GPU (or --device cpu)");
  // The model sailor run trains on this device: real size on a CUDA GPU, else scaled.
  if (!o.real_size) o.real_size = device == "cuda" && !o.hidden;
  const int cores = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  std::string gpu_name = o.gpu_type;
  std::string full_name, vendor;
  if (device == "cpu") {
    full_name = cpuInfoField("model name");
    const std::string v = cpuInfoField("vendor_id");
    vendor = v == "AuthenticAMD" ? "AMD" : v == "GenuineIntel" ? "Intel" : v;
    if (gpu_name.empty()) gpu_name = "cpu-" + slug(full_name);
  } else {
#ifdef SAILOR_WITH_CUDA
    full_name = at::cuda::getDeviceProperties(0)->name;
    vendor = "NVIDIA";
    if (gpu_name.empty()) gpu_name = slug(full_name);
#endif
  }
  // The runtime's model (RunSpec::build's scaling) and the memory check, before anything runs.
  const RunSpec probe = profilingSpec(cat_model, o, 1, 1);
  const RuntimeModel& rm = probe.model;
  // Without --out: where `sailor run` looks for the local device's profile of this model.
  if (o.out.empty()) {
    o.out = defaultProfileDir(RunStore::defaultPath(), gpu_name, runtimeModelName(rm));
    std::cerr << "sailor profile: writing to " << o.out << " (the default: sailor run finds it)\n";
  }
  const double available = static_cast<double>(memInfo("MemAvailable"));
  for (int tp : o.tps)
    for (int b : o.microbatches) {
      const double need = bytesNeeded(rm, tp, b) * tp;  // tp processes at once
      if (need > available)
        throw InputError("--microbatch-sizes", std::to_string(b),
                         "a microbatch that fits in memory: microbatch " + std::to_string(b) +
                             " at tp " + std::to_string(tp) + " needs " + gib(need) + ", " +
                             gib(available) + " available (MemAvailable)");
    }

  const std::string partial = o.out + "/.partial";
  fs::create_directories(partial);
  const json settings{{"model", rm.toJson()}, {"precision", o.precision}, {"repeats", o.repeats},
                      {"device", device},     {"gpu_type", gpu_name},     {"quick", o.quick}};
  const std::string settings_path = partial + "/settings.json";
  if (fs::exists(settings_path) && readJson(settings_path) != settings) {
    std::cerr << "sailor profile: " << partial
              << " holds results measured with other settings: starting over\n";
    fs::remove_all(partial);
    fs::create_directories(partial);
  }
  json_util::writeFileAtomically(settings_path, settings.dump(1) + "\n");

  TempDir tmp;
  int store_count = 0;
  for (int tp : o.tps) {
    std::vector<int> todo;
    std::string list;
    for (int b : o.microbatches)
      if (!fs::exists(unitFile(partial, tp, b))) {
        todo.push_back(b);
        list += (list.empty() ? "" : ",") + std::to_string(b);
      } else {
        std::cerr << "sailor profile: tp " << tp << " microbatch " << b
                  << ": measured before, kept\n";
      }
    if (todo.empty()) continue;
    if (tp > cores)
      std::cerr << "sailor profile: warning: tp " << tp << " runs " << tp << " processes on "
                << cores << " cores: its times include the sharing\n";
    std::cerr << "sailor profile: measuring tp " << tp << ", microbatch sizes " << list << "\n";
    const std::string spec_path = tmp.path + "/spec-tp" + std::to_string(tp) + ".json";
    json_util::writeFileAtomically(spec_path,
                                   profilingSpec(cat_model, o, tp, 1).toJson().dump() + "\n");
    const std::string store = tmp.path + "/store" + std::to_string(store_count++);
    std::vector<pid_t> pids;
    for (int k = 0; k < tp; ++k)
      pids.push_back(
          spawnSelf({"--child", "layers", "--spec", spec_path, "--tp-rank", std::to_string(k),
                     "--microbatch-sizes", list, "--repeats", std::to_string(o.repeats), "--store",
                     store, "--partial", partial, "--device", device}));
    if (!waitAll(pids)) {
      std::cerr << "sailor profile: error: measuring tp " << tp
                << " failed (finished units are kept in " << partial << ")\n";
      return 1;
    }
    // Tests only: stop as an interrupted profile would, after one round of measurements.
    if (const char* fault = std::getenv("SAILOR_TEST_FAULT");
        fault && std::string(fault) == "profile-stop") {
      std::cerr << "sailor profile: error: stopped after tp " << tp << " (SAILOR_TEST_FAULT)\n";
      return 1;
    }
  }
  if (!measureConcurrency(o, cat_model, partial, tmp.path, device)) return 1;
  const std::string links_path = partial + "/links.json";
  if (o.links && !fs::exists(links_path)) {
    std::cerr << "sailor profile: measuring the links between two local ranks\n";
    const std::string sizes =
        o.quick ? "4096,262144,4194304" : "1024,16384,131072,1048576,4194304,16777216";
    const std::string store = tmp.path + "/store-links";
    std::vector<pid_t> pids;
    for (int r = 0; r < 2; ++r)
      pids.push_back(
          spawnSelf({"--child", "links", "--rank", std::to_string(r), "--store", store, "--partial",
                     partial, "--sizes", sizes, "--repeats", std::to_string(o.quick ? 3 : 10)}));
    if (!waitAll(pids)) {
      std::cerr << "sailor profile: error: measuring the links failed\n";
      return 1;
    }
  }
  const std::string device_path = partial + "/device.json";
  if (!fs::exists(device_path)) {
    torch::set_num_threads(1);
    json_util::writeFileAtomically(device_path, measureDeviceRates(device).dump(1) + "\n");
  }

  return writeOutputs(o, catalog, cat_model, rm, partial,
                      DeviceInfo{gpu_name, full_name, vendor, device, cores});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::strcmp(argv[1], "--child") == 0) {
    try {
      return childMain(argc, argv);
    } catch (const std::exception& e) {
      std::cerr << "sailor profile: measuring process: " << e.what() << "\n";
      return 1;
    }
  }
  // `sailor profile ...` execs us with argv[1] == "profile".
  const int first = argc > 1 && std::strcmp(argv[1], "profile") == 0 ? 2 : 1;
  try {
    const Options o = parseOptions(argc, argv, first);
    if (o.help) {
      std::cout << kHelp;
      return 0;
    }
    return profileMain(o);
  } catch (const InputError& e) {
    std::cerr << "sailor profile: error: " << e.what() << "\n";
    return kExitInput;
  } catch (const std::exception& e) {
    std::cerr << "sailor profile: error: " << e.what() << "\n";
    return 1;
  }
}
