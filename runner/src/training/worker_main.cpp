// sailor-worker: one rank of a training run. Started by the controller (`sailor run`), never by
// hand: it reads the run spec, joins the process groups through the controller's rendezvous
// store and trains its share of the plan, reporting to the controller as JSON lines on stdout:
//   {"type":"ready", ...}  {"type":"heartbeat"}  {"type":"iteration", ...}
//   {"type":"error","message":...}  {"type":"done"}
// The controller alone talks to the user (docs/runtime.md).
//
// In this file: report (one JSON line, thread-safe), parse (the options, with CLI11),
// deviceFor (the rank's device), connectStore, iterationMessage, and main (the heartbeat thread,
// the groups, the training loop, errors).
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <utility>

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#ifdef SAILOR_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include "checkpoint.hpp"
#include "comm.hpp"
#include "command_line.hpp"
#include "elasticity/elastic.hpp"
#include "launch/zone_network.hpp"
#include "rendezvous/auth_store.hpp"
#include "sailor/core/json_util.hpp"
#include "trainer.hpp"

#include <CLI/CLI.hpp>

using nlohmann::json;
using namespace sailor;
using namespace sailor::runner;

namespace {

std::mutex g_out;

void report(const json& j) {
  // SAILOR_TEST_FAULT=late-reconfigured (tests only): "reconfigured" comes after the new world's
  // first iteration, the order a controller reading many workers' files at once can see them in.
  static const bool kLate = [] {
    const char* f = std::getenv("SAILOR_TEST_FAULT");
    return f && std::strcmp(f, "late-reconfigured") == 0;
  }();
  static std::string held;
  std::string line = j.dump() + "\n";
  std::lock_guard<std::mutex> lock(g_out);
  const std::string type = j.value("type", "");
  if (kLate && type == "reconfigured") {
    held = std::move(line);
    return;
  }
  if (type == "iteration") line += std::exchange(held, {});
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
}

// A rank's peak memory. On a CUDA device: the most the caching allocator has reserved from the
// device (its segments, which is what counts against the GPU's memory; the CUDA context and
// NCCL's buffers come on top and are the GPU type's overhead in the memory model). On CPU: the
// peak resident set.
std::int64_t peakMemoryBytes(const torch::Device& device) {
#ifdef SAILOR_WITH_CUDA
  if (device.is_cuda())
    return c10::cuda::CUDACachingAllocator::getDeviceStats(device.index())
        .reserved_bytes[static_cast<std::size_t>(
            c10::cuda::CUDACachingAllocator::StatType::AGGREGATE)]
        .peak;
#else
  (void)device;
#endif
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<std::int64_t>(u.ru_maxrss) * 1024;  // Linux: KiB
}

struct Args {
  std::string spec, store_host;  // store_host empty: no --store HOST:PORT given
  std::string store_file;        // --store file:PATH (a local run); else store_host:port
  std::string store_address;     // --store-address FILE: where rank 0 publishes HOST:PORT
  int rank = -1, port = 0, generation = 0, timeout_s = 60;
  std::string checkpoint_dir;  // --checkpoint-dir: where replica 0 writes its shards
  int checkpoint_every = 0;    // --checkpoint-every N: after iteration i with (i + 1) % N == 0
  std::string resume_from;     // --resume-from STEP_DIR: a complete checkpoint to start from
  int start_iteration = 0;     // --start-iteration: the first iteration to train
  std::string join;            // --join FILE: a reconfiguration this new worker joins
  bool notice = false;         // --notice: SIGTERM and SIGUSR1 are preemption notices
  int control_id = -1;         // --control-id N: the controller's index of this worker (a
                               //   cluster run's joiner; the first workers' is their rank)
  std::string zone_netns;      // --zone-netns NAME: an emulated zone's namespace to enter
  std::string zone_address;    // --zone-address IP: the address Gloo binds there
};

// --store file:PATH (a local run: the controller's FileStore) or HOST:PORT (rank 0 hosts the
// store there).
void setStore(Args& a, const std::string& v) {
  if (v.rfind("file:", 0) == 0 && v.size() > 5) {
    a.store_file = v.substr(5);
  } else {
    std::tie(a.store_host, a.port) = parseHostPort(v);
  }
}

// The options of the command line, each read as it comes (command_line.hpp): a number that is
// none, a bad --store, an unknown argument or a missing value is the first error of the line.
Args parse(int argc, char** argv) {
  Args a;
  CLI::App app;
  app.set_help_flag();  // no --help: the controller starts workers
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  const auto number = [&](const std::string& name, int& target) {
    app.add_option_function<std::string>(name,
                                         [&target](const std::string& v) { target = std::stoi(v); })
        ->trigger_on_parse();
  };
  app.add_option("--spec", a.spec);
  number("--rank", a.rank);
  app.add_option_function<std::string>("--store", [&a](const std::string& v) { setStore(a, v); })
      ->trigger_on_parse();
  app.add_option("--store-address", a.store_address);
  number("--generation", a.generation);
  number("--timeout", a.timeout_s);
  app.add_option("--checkpoint-dir", a.checkpoint_dir);
  number("--checkpoint-every", a.checkpoint_every);
  app.add_option("--resume-from", a.resume_from);
  number("--start-iteration", a.start_iteration);
  app.add_option("--join", a.join);
  number("--control-id", a.control_id);
  app.add_flag("--notice", a.notice);
  app.add_option("--zone-netns", a.zone_netns);
  app.add_option("--zone-address", a.zone_address);
  const ArgumentProblem problem = parseInOrder(app, argc, argv, 1);
  if (problem.kind == ArgumentProblem::Kind::MissingValue)
    throw std::runtime_error(problem.argument + " needs a value");
  if (problem.kind == ArgumentProblem::Kind::Unknown)
    throw std::runtime_error("unknown option " + problem.argument);
  const bool standby = a.join == "-";  // spec and rank come with the command
  if ((!standby && (a.spec.empty() || a.rank < 0)) ||
      (a.store_file.empty() && a.store_host.empty()))
    throw std::runtime_error(
        "usage: sailor-worker --spec FILE --rank R --store file:PATH|HOST:PORT "
        "[--store-address FILE] [--generation G] [--timeout SECONDS] [--checkpoint-dir DIR "
        "--checkpoint-every N] [--resume-from STEP_DIR --start-iteration I] [--join FILE] "
        "[--control-id N] [--notice] "
        "[--zone-netns NAME --zone-address IP] (started by `sailor run`)");
  return a;
}

// Keeps freed memory in the process. Every iteration allocates and frees the same tensors
// (activations, gradients, optimizer temporaries: hundreds of MB at runtime_bench's size);
// glibc's defaults give large blocks back to the kernel (munmap, heap trim) and take them again
// on the next iteration, a page fault per 4 KiB page that the kernel zeroes first: 20,000 to
// 30,000 faults and about a fifth of the worker's CPU time per iteration on a VM
// (docs/benchmarks.md). Fixed thresholds also stop glibc's dynamic mmap threshold, which made
// the count depend on the history of allocations. Peak memory is unchanged: the process keeps
// its high-water mark instead of returning to it every iteration.
void keepFreedMemory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // blocks up to 32 MiB (glibc's maximum) from the heap
  mallopt(M_TRIM_THRESHOLD, 1 << 30);   // the heap's free top is returned above 1 GiB only
#endif
}

// CUDA device rank % GPUs under NCCL, else the CPU.
torch::Device deviceFor(const std::string& backend, int rank) {
  if (backend != "nccl") return torch::Device(torch::kCPU);
  const int gpus = static_cast<int>(torch::cuda::device_count());
  return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(rank % gpus));
}

// The rendezvous store: the controller's FileStore file (a local run: no socket at all;
// numWorkers -1 so that no worker deletes the file, the controller removes it), or, for a
// cluster run (HOST:PORT), the token-checked store that rank 0 hosts (auth_store.hpp), bound to
// the cluster's interface (SAILOR_IFNAME) when the launch script names one. The store's
// refusals reach the controller as warnings.
Rendezvous connectStore(const Args& args) {
  if (!args.store_file.empty()) {
    auto store = c10::make_intrusive<c10d::FileStore>(args.store_file, -1);
    store->setTimeout(std::chrono::seconds(args.timeout_s));
    return Rendezvous{nullptr, store, "file:" + args.store_file};
  }
  const char* ifname = std::getenv("SAILOR_IFNAME");
  // Rank 0 of the run's first workers hosts the store; a worker that joins later never does.
  return connectRendezvous(args.store_host, args.port, args.store_address, ifname ? ifname : "",
                           args.join.empty() ? args.rank : -1, std::chrono::seconds(args.timeout_s),
                           [](const std::string& line) {
                             report(json{{"type", "warning"}, {"message", line}});
                           });
}

// A cluster run's control channel (NOTE [Control through the store], elastic.hpp): a connection
// of its own to the run's store, reading control/<id>/0, 1, ...
std::unique_ptr<ControlChannel> storeControl(const Args& args, const Rendezvous& r) {
  const auto [host, port] = parseHostPort(r.address);
  const char* token_file = std::getenv("SAILOR_RUN_TOKEN_FILE");
  auto store = c10::make_intrusive<AuthStore>(host, port, store::readTokenFile(token_file),
                                              std::chrono::seconds(args.timeout_s));
  const int id = args.control_id >= 0 ? args.control_id : args.rank;
  return std::make_unique<ControlChannel>(store, "control/" + std::to_string(id), r.address);
}

// A figure of a report: a number, or "nan", "inf", "-inf" (JSON has no such numbers; the
// controller names them in a diverged run's failure).
json figure(double v) {
  if (std::isfinite(v)) return v;
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

json iterationMessage(const IterationReport& r, const torch::Device& device) {
  return json{{"type", "iteration"},
              {"iteration", r.iteration},
              {"loss_sum", figure(r.loss_sum)},
              {"loss_count", r.loss_count},
              {"seconds", r.seconds},
              {"p2p_seconds", r.comm.p2p},
              {"tp_seconds", r.comm.tp},
              {"dp_seconds", r.comm.dp},
              {"grad_norm", figure(r.grad_norm)},
              {"learning_rate", r.learning_rate},
              {"peak_memory_bytes", peakMemoryBytes(device)}};
}

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The state of every stage of replica 0 in the checkpoint `step_dir` of `spec`, by stage: what a
// reconfiguration restores when no surviving worker holds a stage (elastic.hpp).
std::vector<std::vector<c10::Dict<std::string, at::Tensor>>> loadWholeCheckpoint(
    const RunSpec& spec, const std::string& step_dir) {
  std::vector<std::vector<c10::Dict<std::string, at::Tensor>>> sets;
  for (std::size_t s = 0; s < spec.plan.stages.size(); ++s)
    sets.push_back(
        loadReplica0Shards(spec, spec.replicaRanks(static_cast<int>(s), 0).front(), step_dir));
  return sets;
}

// One line from stdin, read byte by byte (no buffering that could swallow later commands, which
// the control channel reads).
json readCommandLine() {
  std::string line;
  char c = 0;
  while (true) {
    const ssize_t n = ::read(STDIN_FILENO, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("the controller closed the control channel");
    if (c == '\n') break;
    line.push_back(c);
    if (line.size() > (64u << 20)) throw std::runtime_error("a control line over 64 MiB");
  }
  return json_util::parseText(line, "control");
}

// A joining worker's reconfiguration (membership, its place, the old spec, the state's
// iteration): in a file the controller wrote, or (--join -, a worker started ahead of a
// reconfiguration while the run still trains) as one line on stdin, read before any thread
// exists (joining the private network needs a process of one thread). Null for a worker of the
// run's first generation.
json joinCommand(const Args& args) {
  if (args.join.empty()) return json();
  if (args.join != "-") return json_util::readFile(args.join);
  report(json{{"type", "standby"}});  // started, waiting for its place
  return readCommandLine();
}

// A cluster run's worker (HOST:PORT) meets the store first: its commands come through it
// (`control`), a standby worker's place (--join -) among them. Returns what joinCommand does.
json meetClusterStore(const Args& args, Rendezvous& rendezvous,
                      std::unique_ptr<ControlChannel>& control) {
  rendezvous = connectStore(args);
  control = storeControl(args, rendezvous);
  if (args.join != "-") return joinCommand(args);
  report(json{{"type", "standby"}});  // started, waiting for its place
  return control->next();
}

// The node this worker runs on: Slurm's name for it (SLURMD_NODENAME), else the host's name.
std::string nodeName() {
  if (const char* n = std::getenv("SLURMD_NODENAME"); n && *n) return n;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) return {};
  return host;
}

// A preemption notice (--notice): the signal that brought it, 0 while none came.
volatile std::sig_atomic_t g_notice = 0;
void onNotice(int signo) {
  g_notice = signo;
}

// --notice: SIGTERM (Slurm's preemption, a node's shutdown) and SIGUSR1 (`sbatch --signal`) no
// longer end the worker: it reports the notice and trains on until the controller moves its state
// to the others and tells it to leave, or stop (docs/elasticity.md, "Preemption notices").
void takeNotices() {
  struct sigaction sa {};
  sa.sa_handler = onNotice;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGUSR1, &sa, nullptr);
}

// Reports a heartbeat every second while `running`, and a notice within 100 ms of its signal.
std::thread startHeartbeat(std::atomic<bool>& running) {
  return std::thread([&running] {
    bool noticed = false;
    while (running) {
      report(json{{"type", "heartbeat"}});
      for (int i = 0; i < 10 && running; ++i) {
        if (g_notice != 0 && !noticed) {
          noticed = true;
          report(json{{"type", "notice"}, {"signal", g_notice == SIGUSR1 ? "SIGUSR1" : "SIGTERM"}});
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
  });
}

// How a generation's training ended: the run's last iteration, a pause for a reconfiguration,
// or a broken world (a peer died).
enum class Stop { End, Paused, Broken };

// Trains iterations from `start` with this generation's `trainer` (checkpoints of replica 0 as
// the options say) until one of those; `state_iteration`: the last iteration whose update the
// worker's state holds.
Stop train(Trainer& trainer, const RunSpec& spec, int rank, const Args& args,
           ControlChannel& control, const torch::Device& device, int start, int& state_iteration) {
  std::unique_ptr<CheckpointWriter> writer;
  const RankPlacement& me = spec.ranks.at(static_cast<std::size_t>(rank));
  if (args.checkpoint_every > 0 && me.replica == 0)
    writer = std::make_unique<CheckpointWriter>(args.checkpoint_dir, me.stage, me.tp_rank, report);
  Stop stop = Stop::End;
  for (int it = start; it < spec.iterations; ++it) {
    IterationReport r;
    try {
      r = trainer.step(it, control.pauseRequested());
    } catch (const std::exception& e) {
      // A peer died (or the controller aborted the world because one did): the optimizer step
      // comes after the last collective, so this worker's state is that of `it - 1`.
      (void)abortTransport({}, control.storeAddress());
      const auto* c10_error = dynamic_cast<const c10::Error*>(&e);
      report(json{{"type", "interrupted"},
                  {"iteration", it},
                  {"state_iteration", it - 1},
                  {"message", c10_error ? c10_error->what_without_backtrace() : e.what()}});
      stop = Stop::Broken;
      break;
    }
    state_iteration = it;
    report(iterationMessage(r, device));
    const bool checkpoint = args.checkpoint_every > 0 && (it + 1) % args.checkpoint_every == 0;
    // The distributed optimizer's state, shared over the replicas, is gathered by every rank
    // where a snapshot may follow: a checkpoint (replica 0 writes) or a pause (the holders the
    // controller names hand their state over).
    if (checkpoint || r.pause) trainer.gatherOptimizerState(r.pause || (checkpoint && writer));
    if (writer && checkpoint) writer->submit(it, trainer.snapshot(it));
    if (writer) writer->check();
    if (r.pause) {
      report(json{{"type", "paused"}, {"state_iteration", it}});
      stop = Stop::Paused;
      break;
    }
  }
  if (writer) writer->finish();
  return stop;
}

// A reconfiguration's state for this worker (`reconf`: the controller's command): from the
// holders over the transfer group (sending this worker's `held` state where it is a source), or
// from the checkpoint the command names. Times the group's set-up and the transfer.
ReceivedState receiveState(const json& reconf, const RunSpec& old_spec, const RunSpec& spec,
                           const c10::Dict<std::string, at::Tensor>& held,
                           const c10::intrusive_ptr<c10d::Store>& store,
                           std::chrono::milliseconds timeout, double& group_seconds,
                           double& transfer_seconds, std::string& state_source) {
  const Membership m = Membership::fromJson(reconf.at("membership"));
  const int me = reconf.at("member").get<int>();
  const std::string checkpoint = reconf.value("checkpoint", "");
  auto t0 = Clock::now();
  ReceivedState received;
  if (!checkpoint.empty()) {
    state_source = "checkpoint";
    const RunSpec ck_spec =
        RunSpec::fromJson(json_util::readFile(reconf.at("checkpoint_spec").get<std::string>()));
    if (me < m.new_world_size) received.replica_sets = loadWholeCheckpoint(ck_spec, checkpoint);
    transfer_seconds = secondsSince(t0);
    return received;
  }
  state_source = "peers";
  GroupPtr transfer;
  if (m.members.size() > 1)
    transfer =
        createTransferGroup(store, m.generation, me, static_cast<int>(m.members.size()), timeout);
  group_seconds += secondsSince(t0);
  t0 = Clock::now();
  received = exchangeState(old_spec, spec, m, me, held, transfer);
  transfer_seconds = secondsSince(t0);
  return received;
}

}  // namespace

// The worker's life: one generation after another (docs/elasticity.md). A generation
// forms its groups, builds (or receives) its state and trains until the run ends, the world
// pauses for a reconfiguration, or a peer dies; then the controller says what the next
// generation is and whether this worker is in it.
int main(int argc, char** argv) {
  std::atomic<bool> running{true};
  std::thread heartbeat;
  keepFreedMemory();
  try {
    const Args args = parse(argc, argv);
    if (args.notice) takeNotices();
    // Emulated zones (zone_network.hpp): this rank's zone namespace replaces the private network,
    // and Gloo binds the zone's address there.
    if (!args.zone_netns.empty()) {
      joinZoneNamespace(args.zone_netns);
      setGlooBindAddress(args.zone_address);
    }
    const bool cluster = args.store_file.empty();
    Rendezvous rendezvous;
    std::unique_ptr<ControlChannel> control_channel;
    json reconf = cluster ? meetClusterStore(args, rendezvous, control_channel) : joinCommand(args);
    if (!reconf.is_null() && reconf.value("type", "") != "reconfigure") {
      report(json{{"type", "done"}});  // not needed after all
      return 0;
    }
    const std::string spec_path =
        reconf.is_null() ? args.spec : reconf.at("spec").get<std::string>();
    auto spec = std::make_unique<RunSpec>(RunSpec::fromJson(json_util::readFile(spec_path)));
    int rank = reconf.is_null() ? args.rank : reconf.at("rank").get<int>();
    int generation = reconf.is_null() ? args.generation : reconf.at("generation").get<int>();
    if (rank >= spec->worldSize())
      throw std::runtime_error("--rank " + std::to_string(rank) + " outside world size " +
                               std::to_string(spec->worldSize()));
    const std::string backend = chooseBackend(spec->backend);
    if (!cluster) rendezvous = connectStore(args);
    const auto& store = rendezvous.store;
    // A local Gloo run's workers meet in a private network (comm.hpp). Changing the user
    // namespace needs a process of one thread: before the heartbeat thread and torch's pools.
    // A cluster run's ranks may be on several nodes: no private network (SAILOR_CLUSTER_RUN).
    // A joining worker joins the network of the worker that published it for its generation.
    bool private_network = false;
    if (!args.store_file.empty() && backend == "gloo" && !std::getenv("SAILOR_CLUSTER_RUN") &&
        args.zone_netns.empty())
      private_network = joinPrivateNetwork(store, reconf.is_null() ? rank : 1, generation);
    at::set_num_threads(1);
    at::set_num_interop_threads(1);
    if (!cluster) control_channel = std::make_unique<ControlChannel>();  // stdin
    ControlChannel& control = *control_channel;
    heartbeat = startHeartbeat(running);

    const torch::Device device = deviceFor(backend, rank);
    const torch::Dtype dtype = spec->dtype == "float64" ? torch::kFloat64 : torch::kFloat32;
    const auto timeout = std::chrono::seconds(args.timeout_s);
    std::unique_ptr<RunSpec> old_spec;
    c10::Dict<std::string, at::Tensor> held;  // this worker's state at a reconfiguration
    int start = reconf.is_null() ? args.start_iteration : reconf.at("start_iteration").get<int>();
    double teardown_seconds = 0;
    while (true) {
      // Generation `generation`: state first (a reconfiguration moves it before the new world's
      // groups exist, so that workers that leave can hand theirs over), then groups, model.
      ReceivedState received;
      double transfer_seconds = 0, group_seconds = 0;
      std::string state_source;
      if (!reconf.is_null()) {
        if (!old_spec)  // a joining worker: the old world's spec from the controller
          old_spec = std::make_unique<RunSpec>(
              RunSpec::fromJson(json_util::readFile(reconf.at("old_spec").get<std::string>())));
        received = receiveState(reconf, *old_spec, *spec, held, store, timeout, group_seconds,
                                transfer_seconds, state_source);
        held = c10::Dict<std::string, at::Tensor>();
        if (rank < 0) {  // a worker that leaves: its state is handed over
          report(json{{"type", "left"}, {"generation", generation}});
          break;
        }
      }
      auto t0 = Clock::now();
      Groups groups = createGroups(*spec, rank, store, generation, backend, timeout);
      group_seconds += secondsSince(t0);
      t0 = Clock::now();
      auto trainer = std::make_unique<Trainer>(*spec, rank, groups, dtype, device);
      if (!reconf.is_null()) trainer->restoreFrom(received.replica_sets);
      const double rebuild_seconds = secondsSince(t0);
      if (reconf.is_null()) {
        report(json{{"type", "ready"},
                    {"rank", rank},
                    {"pid", getpid()},
                    {"node", nodeName()},
                    {"backend", backend},
                    {"device", device.str()}});
        // Checkpoints (docs/checkpoints.md): replica 0 holds the state
        // every replica has; a replica > 0 restores replica 0's shard of its stage.
        if (!args.resume_from.empty())
          trainer->restore(loadReplica0Shards(*spec, rank, args.resume_from));
      } else {
        report(json{{"type", "reconfigured"},
                    {"generation", generation},
                    {"rank", rank},
                    {"pid", getpid()},
                    {"node", nodeName()},
                    {"state_source", state_source},
                    {"state_bytes", received.bytes},
                    {"teardown_seconds", teardown_seconds},
                    {"group_setup_seconds", group_seconds},
                    {"rebuild_seconds", rebuild_seconds},
                    {"transfer_seconds", transfer_seconds}});
      }
      int state_iteration = start - 1;
      const Stop stop = train(*trainer, *spec, rank, args, control, device, start, state_iteration);
      const bool broken = stop == Stop::Broken;
      if (stop == Stop::End) {
        finishGroups(groups, device);
        break;
      }
      // The controller's decision: the next generation, or leave.
      reconf = control.next();
      const auto teardown0 = Clock::now();
      if (reconf.value("holder", false)) held = trainer->snapshot(state_iteration);
      trainer.reset();
      if (!broken) finishGroups(groups, device);
      groups = Groups{};
      teardown_seconds = secondsSince(teardown0);
      if (reconf.value("type", "") != "reconfigure" || reconf.value("member", -1) < 0) {
        report(json{{"type", "left"}, {"generation", reconf.value("generation", -1)}});
        break;
      }
      old_spec = std::move(spec);
      spec = std::make_unique<RunSpec>(
          RunSpec::fromJson(json_util::readFile(reconf.at("spec").get<std::string>())));
      rank = reconf.at("rank").get<int>();
      generation = reconf.at("generation").get<int>();
      start = reconf.at("start_iteration").get<int>();
      control.clearPause();
      // Joining workers enter this generation's network through a worker already in it.
      if (reconf.value("publish_network", false)) {
        const std::string value =
            private_network ? std::to_string(getpid()) : std::string("none: no private network");
        store->set("gen/" + std::to_string(generation) + "/netns",
                   std::vector<std::uint8_t>(value.begin(), value.end()));
      }
    }
    running = false;
    heartbeat.join();
    report(json{{"type", "done"}});
    return 0;
  } catch (const std::exception& e) {
    // libtorch's errors (c10::Error, and c10d's DistBackendError derived from it) carry a C++
    // backtrace in what(); the controller shows the message, the backtrace stays out of it.
    const auto* c10_error = dynamic_cast<const c10::Error*>(&e);
    report(json{{"type", "error"},
                {"message", c10_error ? c10_error->what_without_backtrace() : e.what()}});
    running = false;
    if (heartbeat.joinable()) heartbeat.join();
    return 1;
  }
}
