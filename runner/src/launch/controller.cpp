// The controller behind `sailor run` (controller.hpp), as named steps:
//
//   runController ....... checks (bad input: InputError, nothing started), creates the run in
//                         the store, then hands the run to Run::execute
//   Run::execute ........ the steps in order, with one guard: whatever a step throws ends the
//                         run through finish, like any other ending
//     announce .......... emits run_started and the warnings, writes the workers' spec in the
//                         run's private directory (with its owner, for sweepRunDirs)
//     startRendezvous ... creates the c10d FileStore file the workers meet in (no port); an
//                         elastic run's ElasticReconfig is made here (elastic_reconfig.hpp)
//     launchWorkers ..... the launch step (launcher.hpp: local processes today), workers_started
//     supervise ......... loops pumpOutput, reapExited and checkHeartbeats (and, in an elastic
//                         run, ElasticReconfig::step, which reconfigures the run in place) until
//                         every worker is done or one step says how the run ends (an Ending)
//     finish ............ the one last step, on every path: error event, stop the workers,
//                         record the status, the finished event, remove the spec directory
//   onLine, onIterationComplete: worker reports (internal messages, docs/runtime.md) turned into
//                         events; events are typed (sailor/runs/run_events.hpp) and go to the store
//                         and to `emit` through Run::event only; a loss that is not finite
//                         ends the run as diverged.
//   runDirParent, sweepRunDirs (run_dir.cpp): where private directories go, and removing those
//                         whose controller is gone (a killed controller cannot remove its own).
#include "controller.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>  // NOLINT(modernize-deprecated-headers): sigaction() is POSIX, not <csignal>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "elasticity/elastic_reconfig.hpp"
#include "launcher.hpp"
#include "launcher_slurm.hpp"
#include "run_dir.hpp"
#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/runs/run_events.hpp"
#include "sailor/runs/run_store.hpp"
#include "supervised_worker.hpp"
#include "training/checkpoint_files.hpp"

namespace sailor::runner {

using nlohmann::json;

namespace {

// A cluster run's rendezvous as workers_started names it: the token-checked store rank 0 hosts
// on the first node, whose address it publishes in the run directory.
std::string clusterRendezvous(const std::string& run_dir) {
  return "tcp:" + run_dir + "/rendezvous.address";
}

// The checkpoint settings a run wrote beside its checkpoints when it started (Run::announce);
// an empty object when there are none (the run keeps no checkpoints).
json savedCheckpointOptions(const std::string& dir) {
  try {
    json had = json_util::readFile(dir + "/options.json");
    if (had.is_object()) return had;
  } catch (const std::exception&) {
  }
  return json::object();
}

// Where a cluster run's checkpoints go: its directory, which every node reads and writes.
std::string clusterCheckpointDir(const std::string& run_dir) {
  return run_dir + "/checkpoints";
}

// The world a cluster run's workers train in when a controller attaches: its generation (that of
// the last reconfigured event stored; 0: the first world) and, for each of its ranks, the base of
// the files of the worker that holds it (empty: events/rank-<r>, the first world's).
struct AttachedWorld {
  int generation = 0;
  std::vector<std::string> events;
};

// Reads every worker's report file of the run directory: the worker whose last report of joining
// a world ("ready" for the first, "reconfigured" for later ones) is of `generation`, and that has
// not left it, holds the rank it reported. Throws InputError when a rank of `world_size` has no
// such worker (the controller died in the middle of a reconfiguration).
AttachedWorld attachedWorld(const std::string& run_dir, int generation, int world_size,
                            const std::string& what) {
  AttachedWorld world{generation, std::vector<std::string>(static_cast<std::size_t>(world_size))};
  if (generation == 0) return world;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(run_dir + "/events", ec)) {
    const std::string path = entry.path().string();
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".jsonl" ||
        (name.rfind("rank-", 0) != 0 && name.rfind("worker-", 0) != 0))
      continue;
    std::ifstream in(path);
    int gen = -1, rank = -1;
    bool left = false;
    for (std::string line; std::getline(in, line);) {
      const json m = json::parse(line, nullptr, false);
      if (!m.is_object()) continue;
      const std::string type = m.value("type", "");
      if (type == "ready" || type == "reconfigured") {
        gen = type == "ready" ? 0 : m.value("generation", -1);
        rank = m.value("rank", -1);
        left = false;
      } else if (type == "left") {
        left = true;
      }
    }
    if (gen == generation && !left && rank >= 0 && rank < world_size)
      world.events[static_cast<std::size_t>(rank)] = path.substr(0, path.size() - 6);
  }
  for (std::size_t r = 0; r < world.events.size(); ++r)
    if (world.events[r].empty())
      throw InputError(what,
                       "a run whose rank " + std::to_string(r) + " of world " +
                           std::to_string(generation) + " has no worker in " + run_dir +
                           "/events (its controller died during a reconfiguration)",
                       "a run whose workers all report from its last world");
  return world;
}

volatile sig_atomic_t g_interrupted = 0;
void onSignal(int) {
  g_interrupted = 1;
}

constexpr auto kStopGrace = std::chrono::seconds(2);  // SIGTERM, then SIGKILL after this
constexpr double kStartupSilenceSeconds = 60;         // loading libtorch in many processes at once

// Splits complete lines off a buffer.
std::vector<std::string> takeLines(std::string& buf) {
  std::vector<std::string> lines;
  std::size_t start = 0, nl;
  while ((nl = buf.find('\n', start)) != std::string::npos) {
    lines.push_back(buf.substr(start, nl - start));
    start = nl + 1;
  }
  buf.erase(0, start);
  return lines;
}

// "nan", "inf" or "-inf": a figure that is not finite, as the diverged failure names it.
std::string nonFiniteName(double v) {
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

class Run final : private ReconfigHost {
 public:
  Run(const RunSpec& spec, const ControllerOptions& options,
      const std::function<void(const json&)>& emit, RunStore& store, std::int64_t run_id,
      Launcher& launcher)
      : spec_(spec),
        options_(options),
        emit_(emit),
        store_(store),
        run_id_(run_id),
        launcher_(launcher) {}
  ~Run() override {
    reconfig_.reset();  // the resize socket first
    launcher_.stopAll(std::chrono::milliseconds(0));
    if (!spec_dir_.empty() && !cluster()) removeDirectoryAndFiles(spec_dir_);
  }
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  // Runs every step; returns the exit code (controller.hpp). Never throws once started: a
  // failing step ends the run as failed, with the finished event last.
  int execute() noexcept;
  // The same for `sailor runs attach`: the run's directory and its iterations so far; no
  // run_started or workers_started again, and iterations the store has are not stored twice.
  int attach(const std::string& run_dir, int iterations_done, AttachedWorld world) noexcept;
  // Checkpoints go to `dir` (docs/checkpoints.md); set before execute().
  void setCheckpointDir(std::string dir) { checkpoint_dir_ = std::move(dir); }
  // `sailor run --resume`: the workers restore `step_dir` and train from `start_iteration`;
  // `resumed` (already stored with the run's resumption) is printed in place of run_started.
  void setResume(std::string step_dir, int start_iteration, json resumed) {
    resume_step_dir_ = std::move(step_dir);
    iterations_done_ = start_iteration;
    resumed_event_ = std::move(resumed);
  }

 private:
  void announce();
  void announceStart();
  void writeWorkerSpec();
  void startRendezvous();
  void launchWorkers();
  Ending supervise();
  void pumpOutput();
  std::optional<Ending> reapExited();
  std::optional<Ending> checkHeartbeats();
  int finish(const Ending& ending) noexcept;

  void onLine(SupervisedWorker& w, const std::string& line);
  void onIterationComplete(int iteration);
  bool allReported(int iteration) const;  // every rank's report of `iteration` is pending
  void onCheckpointShard(const json& msg);
  void storeWrite(const std::function<void()>& write);
  RunEvent typed(RunEventBody body) const { return RunEvent{run_id_, utcNow(), std::move(body)}; }
  // ReconfigHost: what the elastic reconfiguration uses of the run (elastic_reconfig.hpp).
  std::vector<SupervisedWorker>& workers() override { return workers_; }
  const RunSpec& worldSpec() const override { return worker_spec_; }
  int iterationsDone() const override { return iterations_done_; }
  void event(RunEventBody body) override;
  void keepIterationsThrough(int last) override;
  void enterWorld(const RunSpec& spec) override {
    worker_spec_ = spec;
    moving_ = true;
  }
  void recordMove(ReconfiguredEvent reconfigured, WorkersStartedEvent started, int from) override;
  void finalEvent(RunEventBody body) noexcept;
  void takeJobNotes(bool at_finish);
  std::string who(const SupervisedWorker& w) const {
    return "rank " + std::to_string(w.place.rank) + " (stage " + std::to_string(w.place.stage) +
           ", replica " + std::to_string(w.place.replica) + ", tp rank " +
           std::to_string(w.place.tp_rank) + ", " + w.place.gpu_type + " in " + w.place.zone + ")";
  }

  const RunSpec& spec_;  // as requested (run_started); the workers get worker_spec_
  const ControllerOptions& options_;
  const std::function<void(const json&)>& emit_;
  RunStore& store_;
  std::int64_t run_id_;
  Launcher& launcher_;
  RunSpec worker_spec_;
  std::string spec_dir_, spec_file_;
  std::string rendezvous_addr_;
  std::vector<SupervisedWorker> workers_;
  std::map<int, std::vector<json>> pending_;  // iteration -> reports by rank (null: missing)
  int iterations_done_ = 0;
  // Between enterWorld and recordMove: the new world's reports wait in pending_ (NOTE [Moving]).
  bool moving_ = false;
  std::optional<Ending> diverged_;  // set by the first iteration whose loss is not finite
  bool store_full_ = false;         // SAILOR_TEST_FAULT=disk-full has tripped: writes fail
  std::map<int, int> warnings_stored_, warnings_seen_;  // worker warnings by rank (attach)
  AttachedWorld attached_world_;  // attach's: the world the workers train in now
  bool attached_ = false;         // `sailor runs attach`: the run started under another
  // Checkpoints: the run's directory (empty: none), and the shards reported so far by step.
  std::string checkpoint_dir_;
  struct StepShards {
    std::vector<ShardEntry> shards;
    double write_seconds = 0;  // the slowest shard's
  };
  std::map<int, StepShards> step_shards_;
  std::string resume_step_dir_;  // --resume: the checkpoint the workers restore
  std::optional<json> resumed_event_;
  // Elastic local runs (ControllerOptions::replan): the reconfiguration, made with the rendezvous.
  std::unique_ptr<ElasticReconfig> reconfig_;
  // --emulate-zones: made before launch, removed by finish (and by ~Run, after the workers).
  std::unique_ptr<ZoneNetwork> zone_network_;
  bool cluster() const { return options_.launcher == "slurm"; }
  Clock::time_point started_ = Clock::now();
};

// Every write of the run to the store goes through here. Test only: once the disk-full fault has
// tripped, each write fails as SQLite's would on a full disk, the finish step's included.
void Run::storeWrite(const std::function<void()>& write) {
  if (store_full_)
    throw StoreError(store_.path() + ": database or disk is full (" +
                     testFaultMessage("disk-full") + ")");
  write();
}

// Stored, then printed: a consumer that sees an event on stdout finds it in the store.
void Run::event(RunEventBody body) {
  const json j = toJson(typed(std::move(body)));
  storeWrite([&] { store_.addEvent(run_id_, j); });
  emit_(j);
}

// The same on the finish path, where the store may be what failed: printed even when storing
// it fails.
void Run::finalEvent(RunEventBody body) noexcept {
  try {
    const json j = toJson(typed(std::move(body)));
    try {
      storeWrite([&] { store_.addEvent(run_id_, j); });
    } catch (const std::exception&) {  // the run's error already says why, if it is the store
    }
    emit_(j);
  } catch (const std::exception&) {  // out of memory while encoding: nothing left to report
  }
}

int Run::attach(const std::string& run_dir, int iterations_done, AttachedWorld world) noexcept {
  attached_ = true;
  attached_world_ = std::move(world);
  worker_spec_ = spec_;
  spec_dir_ = run_dir;
  spec_file_ = run_dir + "/spec.json";
  rendezvous_addr_ = clusterRendezvous(run_dir);
  iterations_done_ = iterations_done;
  try {
    for (const EventRecord& e : store_.events(run_id_))
      if (e.kind == "warning" && e.payload.contains("rank") && e.payload["rank"].is_number())
        ++warnings_stored_[e.payload["rank"].get<int>()];
  } catch (const std::exception&) {  // unreadable: at worst a warning is stored twice
  }
  return execute();
}

int Run::execute() noexcept {
  try {
    if (!attached_) {
      announce();
      startRendezvous();
    }
    if (options_.emulate_zones && !attached_) {  // before launch; finish removes it
      zone_network_ = std::make_unique<ZoneNetwork>(*options_.emulate_zones);
      for (const std::string& n : zone_network_->notes()) event(RunWarningEvent{n, std::nullopt});
    }
    launchWorkers();
    return finish(supervise());
  } catch (const StoreError& e) {
    return finish(failure(std::string("run store: ") + e.what()));
  } catch (const std::exception& e) {
    return finish(failure(std::string("controller: ") + e.what()));
  }
}

// Step: the workers' spec in a private directory (removed by finish), then run_started and the
// warnings. The spec names the backend the controller resolved ("auto" is decided once, here,
// for every rank).
void Run::announce() {
  worker_spec_ = spec_;
  if (!options_.backend.empty()) worker_spec_.backend = options_.backend;
  // What a resume restarts the run with: the workers' spec, beside its checkpoints.
  if (!checkpoint_dir_.empty()) {
    makeDirs(checkpoint_dir_);
    writeFileDurably(checkpoint_dir_ + "/spec.json", worker_spec_.toJson().dump(2));
    writeFileDurably(checkpoint_dir_ + "/options.json",
                     json{{"checkpoint_every", options_.checkpoint_every},
                          {"checkpoint_keep", options_.checkpoint_keep}}
                         .dump(2));
  }
  if (resumed_event_) {  // stored by resumeController with the run's new status
    emit_(*resumed_event_);
    for (const std::string& w : options_.warnings) event(RunWarningEvent{w, std::nullopt});
  } else {
    announceStart();
  }
  writeWorkerSpec();
}

void Run::announceStart() {
  RunStartedEvent started;
  started.name = options_.name;
  started.world_size = spec_.worldSize();
  started.backend_requested = spec_.backend;
  started.plan = spec_.plan;
  started.model = spec_.model;
  started.global_batch_size = spec_.global_batch_size;
  started.microbatches = spec_.microbatches;
  started.data_parallel = spec_.data_parallel;
  started.iterations = spec_.iterations;
  started.data = spec_.data;
  started.data_format = spec_.data_format;
  started.dtype = spec_.dtype;
  started.precision = spec_.precision;
  started.optimizer = spec_.optimizer;
  started.recompute = spec_.recompute;
  started.store = store_.path();
  started.prediction = options_.prediction;
  started.prediction_note = options_.prediction_note;
  event(std::move(started));
  for (const std::string& w : options_.warnings) event(RunWarningEvent{w, std::nullopt});
}

void Run::writeWorkerSpec() {
  if (cluster()) {  // run_main wrote the spec, the token and the script there
    spec_dir_ = options_.run_dir;
    spec_file_ = spec_dir_ + "/spec.json";
    return;
  }
  spec_dir_ = createRunDir();
  claimRunDir(spec_dir_);  // a failure here leaves spec_dir_ set: finish removes the directory
  spec_file_ = spec_dir_ + "/spec.json";
  json_util::writeFileAtomically(spec_file_, worker_spec_.toJson().dump(2));
}

// Step: the rendezvous store lives here, not in a worker: it outlives any one generation of
// workers (a reconfigured world forms new groups under a new "gen/<G>/" prefix on the same
// store). A local run meets in a c10d FileStore: a file in the run's private directory (mkdtemp,
// mode 0700), so the run opens no port at all and no peer can reach or wedge the controller (a
// TCPStore server listens on every interface whatever host it is given, libtorch 1.13). The
// controller only creates the empty file; the workers open it (worker_main.cpp) and the finish
// step removes it with the directory.
void Run::startRendezvous() {
  if (testFault("rendezvous"))
    throw std::runtime_error("rendezvous: " + testFaultMessage("rendezvous"));
  const std::string path = spec_dir_ + "/rendezvous";
  if (cluster()) {  // hosted by rank 0 on the first node (NOTE [Slurm run script])
    rendezvous_addr_ = clusterRendezvous(spec_dir_);
    if (options_.replan)  // an elastic Slurm run: commands through the store (elastic.hpp)
      reconfig_ = std::make_unique<ElasticReconfig>(
          static_cast<ReconfigHost&>(*this), launcher_, options_,
          ReconfigSetup{spec_dir_, rendezvous_addr_, spec_file_, checkpoint_dir_, store_.storeId(),
                        run_id_, true});
    return;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    throw std::runtime_error("rendezvous: cannot create " + path + ": " + std::strerror(errno));
  ::close(fd);
  rendezvous_addr_ = "file:" + path;
  if (options_.replan)  // an elastic run: its reconfiguration opens the resize socket now
    reconfig_ = std::make_unique<ElasticReconfig>(
        static_cast<ReconfigHost&>(*this), launcher_, options_,
        ReconfigSetup{spec_dir_, rendezvous_addr_, spec_file_, checkpoint_dir_, store_.storeId(),
                      run_id_});
}

// Step: one worker per rank through the launcher, then workers_started.
void Run::launchWorkers() {
  const int generation = 0;  // the first world's; ElasticReconfig numbers the next ones
  std::vector<WorkerCommand> commands;
  for (std::size_t r = 0; r < worker_spec_.ranks.size(); ++r)
    commands.push_back({worker_spec_.ranks[r],
                        {options_.worker_path, "--spec", spec_file_, "--rank", std::to_string(r),
                         "--store", rendezvous_addr_, "--generation", std::to_string(generation),
                         "--timeout", std::to_string(options_.collective_timeout_s)}});
  for (std::size_t r = 0; r < commands.size() && r < attached_world_.events.size(); ++r)
    commands[r].events = attached_world_.events[r];
  for (WorkerCommand& c : commands) {
    if (!checkpoint_dir_.empty() && options_.checkpoint_every > 0)
      c.argv.insert(c.argv.end(), {"--checkpoint-dir", checkpoint_dir_, "--checkpoint-every",
                                   std::to_string(options_.checkpoint_every)});
    if (!resume_step_dir_.empty())
      c.argv.insert(c.argv.end(), {"--resume-from", resume_step_dir_, "--start-iteration",
                                   std::to_string(iterations_done_)});
    if (zone_network_)
      for (const std::string& a : zone_network_->workerArgs(c.place.zone)) c.argv.push_back(a);
    if (options_.replan) c.argv.push_back("--notice");  // an elastic run takes notices
  }
  const std::vector<LaunchedWorker> launched = launcher_.launch(commands);
  workers_.resize(launched.size());
  if (const std::string job = launcher_.jobId(); !job.empty()) {
    if (!attached_) storeWrite([&] { store_.setJobId(run_id_, job); });
    event(JobStateEvent{"slurm", job, attached_ ? "ATTACHED" : "SUBMITTED", "", spec_dir_});
  }
  if (attached_) {
    for (std::size_t r = 0; r < launched.size(); ++r) {
      workers_[r].place = commands[r].place;
      workers_[r].io = launched[r];
      workers_[r].last_seen = Clock::now();
    }
    return;
  }
  WorkersStartedEvent e{rendezvous_addr_, generation, {}};
  for (std::size_t r = 0; r < launched.size(); ++r) {
    workers_[r].place = commands[r].place;
    workers_[r].io = launched[r];
    workers_[r].last_seen = Clock::now();
    e.workers.push_back(RunWorker{workers_[r].place, launched[r].pid});
  }
  event(std::move(e));
}

// Step: supervision until the run ends. Any worker ending before it said "done", or with a
// non-zero status, ends the run; so does a silent one, or an interrupt.
Ending Run::supervise() {
  while (true) {
    if (g_interrupted) return Ending{RunStatus::Stopped, "", nullptr};
    takeJobNotes(false);
    pumpOutput();
    if (diverged_) return *diverged_;
    if (auto ending = reapExited()) return *ending;
    if (diverged_) return *diverged_;  // the last report of a worker that ended
    if (std::all_of(workers_.begin(), workers_.end(),
                    [](const SupervisedWorker& w) { return w.exited || !w.active; }))
      break;
    if (auto ending = checkHeartbeats()) return *ending;
    if (reconfig_)
      if (auto ending = reconfig_->step()) return *ending;
  }
  if (iterations_done_ != spec_.iterations)
    return failure("workers finished after " + std::to_string(iterations_done_) + " of " +
                   std::to_string(spec_.iterations) + " iterations");
  return Ending{};
}

// Step: waits up to 100 ms for output from any worker, then turns complete lines into events
// (stdout: reports; stderr: warnings, and kept for error reports).
void Run::pumpOutput() {
  std::vector<pollfd> fds;
  std::vector<std::pair<SupervisedWorker*, bool>> owners;  // (worker, is stderr)
  for (SupervisedWorker& w : workers_) {
    if (w.io.out_fd >= 0) {
      fds.push_back({w.io.out_fd, POLLIN, 0});
      owners.emplace_back(&w, false);
    }
    if (w.io.err_fd >= 0) {
      fds.push_back({w.io.err_fd, POLLIN, 0});
      owners.emplace_back(&w, true);
    }
  }
  if (!fds.empty()) poll(fds.data(), fds.size(), 100);
  for (std::size_t i = 0; i < fds.size(); ++i) {
    if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    SupervisedWorker& w = *owners[i].first;
    const bool is_err = owners[i].second;
    char buf[65536];
    const ssize_t n = read(fds[i].fd, buf, sizeof buf);
    if (n <= 0) {
      close(fds[i].fd);
      (is_err ? w.io.err_fd : w.io.out_fd) = -1;
      continue;
    }
    w.last_seen = Clock::now();
    if (!w.heard) w.first_heard = w.last_seen;
    w.heard = true;
    std::string& acc = is_err ? w.err_buf : w.out_buf;
    acc.append(buf, static_cast<std::size_t>(n));
    for (const std::string& line : takeLines(acc)) {
      if (is_err) {
        w.keepStderr(line);
        event(RunWarningEvent{line, w.place.rank});
      } else {
        onLine(w, line);
      }
    }
  }
  if (iterations_done_ > 0 && testFault("pump"))
    throw std::runtime_error("pump: " + testFaultMessage("pump"));
}

// Step: workers that ended since the last look. Reads what an ended worker wrote last (its
// error report, usually); its stderr then only goes to the error's tail.
std::optional<Ending> Run::reapExited() {
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    SupervisedWorker& w = workers_[i];
    if (w.exited) continue;
    const std::optional<WorkerExit> ended = launcher_.poll(i);
    if (!ended) continue;
    w.exited = true;
    w.exit_status = *ended;
    for (int* fd : {&w.io.out_fd, &w.io.err_fd}) {
      if (*fd < 0) continue;
      char buf[65536];
      ssize_t n;
      const bool is_out = fd == &w.io.out_fd;
      std::string& acc = is_out ? w.out_buf : w.err_buf;
      while ((n = read(*fd, buf, sizeof buf)) > 0) acc.append(buf, static_cast<std::size_t>(n));
      for (const std::string& line : takeLines(acc)) {
        if (is_out) onLine(w, line);
        else w.keepStderr(line);
      }
      close(*fd);
      *fd = -1;
    }
    // A Slurm worker that reported done and whose job step the job's end took (the batch script
    // ends with the first workers) finished all the same.
    if (cluster() && w.done && !w.exit_status.code) w.exit_status = WorkerExit{0, 0};
    if (!w.active && !w.lost && w.exit_status.clean()) continue;  // left a reconfigured world
    if (w.standby) {  // never had a place: nothing of the run is lost with it
      w.standby = false;
      continue;
    }
    if (reconfig_ && !w.lost && !(w.exit_status.clean() && w.done)) {
      const std::string why =
          w.silent ? who(w) + " stopped reporting" : who(w) + " " + w.exit_status.describe();
      if (auto ending = reconfig_->workerLost(w, why)) return ending;
      continue;
    }
    if (w.lost) continue;
    if (!(w.exit_status.clean() && w.done)) {
      std::string msg = who(w) + " " + w.exit_status.describe();
      if (!w.error.empty()) msg += ": " + w.error;
      else if (!w.done && w.exit_status.clean()) msg += " before finishing its iterations";
      return failure(msg, &w);
    }
  }
  return std::nullopt;
}

// Step: a worker silent longer than the heartbeat timeout (60 s before it first speaks) has
// stopped reporting.
std::optional<Ending> Run::checkHeartbeats() {
  if (!launcher_.workersRunning()) {  // a pending job: nothing runs yet to send heartbeats
    for (SupervisedWorker& w : workers_) w.last_seen = Clock::now();
    return std::nullopt;
  }
  for (SupervisedWorker& w : workers_) {
    if (!w.active) continue;  // a worker leaving a reconfigured world
    const double silent = secondsSince(w.last_seen);
    const double limit = w.heard ? options_.heartbeat_timeout_s
                                 : std::max(options_.heartbeat_timeout_s, kStartupSilenceSeconds);
    if (!w.exited && !w.silent && silent > limit) {
      if (reconfig_ && w.active) {  // killed, then reaped as lost (reapExited)
        w.silent = true;
        launcher_.killWorker(static_cast<std::size_t>(&w - workers_.data()));
        continue;
      }
      return failure(who(w) + " stopped reporting (no heartbeat for " +
                         std::to_string(static_cast<int>(silent)) + " s)",
                     &w);
    }
  }
  return std::nullopt;
}

// The scheduler's news since the last call as job_state and warning events (none for a local
// run); `at_finish`: on the finish step, where nothing may throw.
void Run::takeJobNotes(bool at_finish) {
  Launcher::JobNotes notes = launcher_.takeNotes();
  for (auto& [state, reason] : notes.states) {
    JobStateEvent e{"slurm", launcher_.jobId(), std::move(state), std::move(reason), ""};
    if (at_finish) finalEvent(std::move(e));
    else event(std::move(e));
  }
  for (std::string& note : notes.warnings) {
    RunWarningEvent e{std::move(note), std::nullopt};
    if (at_finish) finalEvent(std::move(e));
    else event(std::move(e));
  }
}

// Step, last on every path: the error (or the interrupt's warning), the workers stopped, the
// status recorded, finished printed. Nothing here throws; a store that fails here still gets the
// finished event on stdout.
int Run::finish(const Ending& ending) noexcept {
  if (ending.status == RunStatus::Failed) {
    RunErrorEvent e{ending.message, std::nullopt, std::nullopt, std::nullopt, std::nullopt, {}};
    if (const SupervisedWorker* w = ending.worker) {
      e.rank = w->place.rank;
      e.stage = w->place.stage;
      e.replica = w->place.replica;
      e.tp_rank = w->place.tp_rank;
      e.stderr_tail.assign(w->err_tail.begin(), w->err_tail.end());
    }
    finalEvent(std::move(e));
  } else if (ending.status == RunStatus::Stopped) {
    finalEvent(RunWarningEvent{"interrupted: stopping the workers", std::nullopt});
  }
  // Workers that take notices (--notice) end on a command, not on SIGTERM.
  if (reconfig_ && ending.status != RunStatus::Finished) reconfig_->stopWorkers();
  launcher_.stopAll(kStopGrace);
  zone_network_.reset();  // emulated zones: namespaces, links and qdiscs, once no worker is in them
  takeJobNotes(true);
  try {
    storeWrite([&] { store_.finishRun(run_id_, ending.status, ending.message); });
  } catch (const std::exception&) {  // the finished event below still reports the run's end
  }
  finalEvent(RunFinishedEvent{ending.status, iterations_done_, secondsSince(started_),
                              ending.status == RunStatus::Failed ? ending.message : ""});
  if (!spec_dir_.empty() && !cluster()) removeDirectoryAndFiles(spec_dir_);
  spec_dir_.clear();
  switch (ending.status) {
    case RunStatus::Finished: return kExitRunOk;
    case RunStatus::Stopped: return kExitRunStopped;
    default: return kExitRunFailed;
  }
}

void Run::onLine(SupervisedWorker& w, const std::string& line) {
  json msg;
  try {
    msg = json_util::parseText(line, "report");  // bounded nesting, like every JSON we read
  } catch (const std::exception&) {
  }
  if (!msg.is_object()) {
    event(RunWarningEvent{"worker output: " + line, w.place.rank});
    return;
  }
  const std::string type = msg.value("type", "");
  if (type == "ready") {
    w.ready = true;
    w.node = msg.value("node", "");
    if (attached_) return;  // workers_ready was stored by the controller that started the run
    w.backend = msg.value("backend", "");
    w.device = msg.value("device", "");
    if (std::all_of(workers_.begin(), workers_.end(),
                    [](const SupervisedWorker& x) { return x.ready; })) {
      WorkersReadyEvent e{workers_[0].backend, {}, secondsSince(started_)};
      for (const SupervisedWorker& x : workers_) e.devices.push_back(x.device);
      event(std::move(e));
      if (reconfig_) reconfig_->startTrace();
    }
  } else if (type == "iteration") {
    const int it = msg.value("iteration", -1);
    if (it < iterations_done_ || !w.active) return;  // in the store already (attach's files)
    if (attached_ && w.generation != attached_world_.generation) return;  // an earlier world's
    auto& slot = pending_[it];
    if (slot.empty()) slot.assign(static_cast<std::size_t>(worker_spec_.worldSize()), json());
    slot[static_cast<std::size_t>(w.place.rank)] = msg;
    if (!moving_ && allReported(it)) onIterationComplete(it);
  } else if (type == "paused" || type == "interrupted") {  // elasticity: holding still
    w.state_iteration = msg.value("state_iteration", -1);
  } else if (type == "reconfigured") {
    w.generation = msg.value("generation", 0);
    w.reconfigured = msg;
    w.ready = true;
    w.node = msg.value("node", "");
  } else if (type == "left") {
    w.done = true;
  } else if (type == "error") {
    w.error = msg.value("message", "");
  } else if (type == "warning") {  // e.g. rank 0's rendezvous store refused a peer
    // An attached run reads the events files from the start: warnings the store holds already
    // are not stored twice (a worker's warnings come in the same order every time).
    int& seen = warnings_seen_[w.place.rank];
    if (attached_ && seen++ < warnings_stored_[w.place.rank]) return;
    event(RunWarningEvent{msg.value("message", ""), w.place.rank});
  } else if (type == "checkpoint") {
    // Attached: a shard of an earlier world's step belongs to that world's plan, not this one's.
    if (attached_ && w.generation != attached_world_.generation) return;
    onCheckpointShard(msg);
  } else if (type == "done") {
    w.done = true;
  } else if (type == "notice" && reconfig_) {  // a preemption notice (--notice, elastic runs)
    reconfig_->notice(w, msg.value("signal", std::string("SIGTERM")));
  }
}

// A worker of replica 0 has written its shard of a step durably. Once every shard of the step is
// reported, the manifest is written (durably, last: it is what makes the step a checkpoint), the
// checkpoint event stored and printed, and the complete checkpoints beyond the retention count
// removed, oldest first. The newest complete one is never removed (checkpoint_keep >= 1), nor a
// step still being written (it has no manifest).
void Run::onCheckpointShard(const json& msg) {
  if (checkpoint_dir_.empty()) return;
  const int it = msg.value("iteration", -1);
  if (it < 0) return;
  const std::string dir = checkpoint_dir_ + "/" + stepDirName(it);
  // An attached controller reads the workers' reports from the start: a step that is complete
  // already, or removed since (retention), is not written again.
  if (attached_ &&
      (!std::filesystem::is_directory(dir) || std::filesystem::exists(dir + "/" + kManifestFile)))
    return;
  StepShards& step = step_shards_[it];
  step.shards.push_back(ShardEntry{msg.value("file", ""), msg.value("bytes", std::int64_t{0}),
                                   msg.value("sha256", "")});
  step.write_seconds = std::max(step.write_seconds, reportNumber(msg, "write_seconds"));
  int expected = 0;  // one shard per worker of replica 0
  for (const SupervisedWorker& w : workers_) expected += w.active && w.place.replica == 0 ? 1 : 0;
  if (static_cast<int>(step.shards.size()) < expected) return;
  Manifest m;
  m.iteration = it;
  m.fingerprint = specFingerprint(worker_spec_.toJson());
  m.store_id = store_.storeId();
  m.run_id = run_id_;
  m.shards = step.shards;
  std::sort(m.shards.begin(), m.shards.end(),
            [](const ShardEntry& a, const ShardEntry& b) { return a.file < b.file; });
  // The spec the shards were written under, beside them: an elastic run's plan changes, and a
  // resume restarts from the plan of the checkpoint it restores (resumeController).
  writeFileDurably(dir + "/" + kStepSpecFile, worker_spec_.toJson().dump(2));
  writeFileDurably(dir + "/" + kManifestFile, m.toJson().dump(2));
  CheckpointEvent e;
  e.iteration = it;
  e.directory = dir;
  e.shards = static_cast<int>(m.shards.size());
  for (const ShardEntry& sh : m.shards) e.bytes += sh.bytes;
  e.write_seconds = step.write_seconds;
  step_shards_.erase(it);
  const std::vector<Manifest> complete = completeCheckpoints(checkpoint_dir_);
  const int keep = std::max(1, options_.checkpoint_keep);
  for (std::size_t i = 0; i + static_cast<std::size_t>(keep) < complete.size(); ++i) {
    removeDirectoryAndFiles(checkpoint_dir_ + "/" + stepDirName(complete[i].iteration));
    e.removed.push_back(complete[i].iteration);
  }
  if (!e.removed.empty()) syncDir(checkpoint_dir_);
  event(std::move(e));
}

// Every rank has reported `iteration`: one iteration event, stored with its row in one
// transaction, then printed.
void Run::onIterationComplete(int iteration) {
  if (diverged_) return;  // the run ends with the diverged iteration, later ones are not kept
  const std::vector<json>& reports = pending_[iteration];
  IterationEvent it;
  it.iteration = iteration;
  double loss_sum = 0;
  std::int64_t loss_count = 0;
  it.stages.resize(worker_spec_.plan.stages.size());
  for (std::size_t s = 0; s < it.stages.size(); ++s) it.stages[s].stage = static_cast<int>(s);
  for (const SupervisedWorker& w : workers_) {
    if (!w.active) continue;
    const json& r = reports.at(static_cast<std::size_t>(w.place.rank));
    if (r.is_null()) continue;  // a worker lost in this iteration (a reconfiguration keeps it)
    loss_sum += reportNumber(r, "loss_sum");
    loss_count += static_cast<std::int64_t>(reportNumber(r, "loss_count"));
    RunRankTimes t;
    t.rank = w.place.rank;
    t.stage = w.place.stage;
    t.replica = w.place.replica;
    t.seconds = reportNumber(r, "seconds");
    t.p2p_seconds = reportNumber(r, "p2p_seconds");
    t.tp_seconds = reportNumber(r, "tp_seconds");
    t.dp_seconds = reportNumber(r, "dp_seconds");
    const double comm = t.p2p_seconds + t.tp_seconds + t.dp_seconds;
    t.compute_seconds = t.seconds - comm;
    t.peak_memory_bytes = r.value("peak_memory_bytes", std::int64_t{0});
    it.iteration_seconds = std::max(it.iteration_seconds, t.seconds);
    RunStageTimes& st = it.stages[static_cast<std::size_t>(w.place.stage)];
    st.compute_seconds = std::max(st.compute_seconds, t.compute_seconds);
    st.communication_seconds = std::max(st.communication_seconds, comm);
    it.ranks.push_back(t);
  }
  it.loss = loss_count > 0 ? loss_sum / static_cast<double>(loss_count) : 0.0;
  // Ranks lost after the iteration's last collective but before their report (a reconfiguration
  // keeps the iteration: the survivors' state has its update): the loss is the others' share.
  std::string unreported;
  for (const SupervisedWorker& w : workers_)
    if (w.active && reports.at(static_cast<std::size_t>(w.place.rank)).is_null())
      unreported += (unreported.empty() ? "" : ", ") + std::to_string(w.place.rank);
  it.tokens_per_second =
      it.iteration_seconds > 0
          ? static_cast<double>(worker_spec_.tokensPerIteration()) / it.iteration_seconds
          : 0.0;
  const auto first =
      std::find_if(reports.begin(), reports.end(), [](const json& r) { return !r.is_null(); });
  it.learning_rate = first != reports.end() ? reportNumber(*first, "learning_rate") : 0.0;
  it.grad_norm = first != reports.end() ? reportNumber(*first, "grad_norm") : 0.0;
  if (iteration >= 1 && testFault("store"))
    throw StoreError(store_.path() + ": " + testFaultMessage("store"));
  if (iteration >= 2 && testFault("disk-full")) store_full_ = true;
  const json e = toJson(typed(it));
  storeWrite([&] { store_.addIteration(iterationRecord(run_id_, it), e); });
  emit_(e);
  if (!unreported.empty())
    event(RunWarningEvent{"iteration " + std::to_string(iteration) +
                              ": its loss is that of the ranks that reported it (rank " +
                              unreported + " lost before reporting its share)",
                          std::nullopt});
  pending_.erase(iteration);
  iterations_done_ = iteration + 1;
  // NOTE [Diverged]: a loss that is not finite will not come back (the weights are NaN or
  // infinite from here on); the iteration is kept, then the run fails naming it.
  if (!std::isfinite(it.loss) && !diverged_)
    diverged_ = failure("diverged: loss " + nonFiniteName(it.loss) + " at iteration " +
                        std::to_string(iteration));
}

void Run::keepIterationsThrough(int last) {
  for (int it = iterations_done_; it <= last; ++it)
    if (pending_.count(it)) onIterationComplete(it);
  pending_.clear();
}

void Run::recordMove(ReconfiguredEvent reconfigured, WorkersStartedEvent started, int from) {
  if (from < iterations_done_) {  // from a checkpoint: the iterations after it are trained again
    const json j = toJson(typed(std::move(reconfigured)));
    storeWrite([&] { store_.rewindRun(run_id_, from, j); });
    emit_(j);
  } else {
    event(std::move(reconfigured));
  }
  if (from > iterations_done_)  // never expected: said rather than skipped in silence
    event(RunWarningEvent{"iterations " + std::to_string(iterations_done_) + " to " +
                              std::to_string(from - 1) +
                              " are not stored: no worker's report of them reached the controller",
                          std::nullopt});
  iterations_done_ = from;
  event(std::move(started));
  // NOTE [Moving]: the new world's workers train on as soon as each has its place, so its first
  // iterations can be reported before the last worker's "reconfigured" ends the move. They are
  // stored only now, after the move (and the rewind it may make): stored before, a move from a
  // checkpoint would discard them, and the move would be recorded after them.
  moving_ = false;
  while (pending_.count(iterations_done_) && allReported(iterations_done_))
    onIterationComplete(iterations_done_);
}

bool Run::allReported(int iteration) const {
  const auto p = pending_.find(iteration);
  return p != pending_.end() && std::all_of(p->second.begin(), p->second.end(),
                                            [](const json& j) { return !j.is_null(); });
}

}  // namespace

int runController(const RunSpec& spec, const json& scenario, const json& job,
                  const ControllerOptions& options, const std::function<void(const json&)>& emit) {
  const bool local = options.launcher != "slurm";
  if (local && spec.worldSize() > options.max_local_processes)
    throw InputError("plan", std::to_string(spec.worldSize()) + " GPUs (one process each)",
                     "at most " + std::to_string(options.max_local_processes) +
                         " local processes (raise --max-local-processes)");
  if (access(options.worker_path.c_str(), X_OK) != 0)
    throw InputError("--worker", "\"" + options.worker_path + "\"",
                     "an executable sailor-worker (" + std::string(std::strerror(errno)) + ")");

  // What killed controllers left: their private directories, their emulated zones' namespaces,
  // and runs left `running` (recorded failed, with why).
  sweepRunDirs();
  sweepZoneNetworks();
  RunStore store(options.store_path);
  for (const std::int64_t orphan : store.failOrphanedRuns())
    std::cerr << "sailor run: marked run " << orphan << " failed: its controller is gone\n";
  RunRecord rec;
  rec.name = options.name;
  rec.world_size = spec.worldSize();
  rec.iterations_planned = spec.iterations;
  rec.backend = spec.backend;
  rec.plan = spec.plan.toJson();
  rec.scenario = scenario;
  rec.job = job;
  rec.model = spec.model.toJson();
  rec.launcher = options.launcher;
  if (!local) rec.run_dir = options.run_dir;
  // Before the run exists, so that no signal can leave it `running`: one that comes now stops
  // the run as soon as it has started.
  struct sigaction sa {};
  sa.sa_handler = onSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  const std::int64_t run_id = store.createRun(rec);

  // From here on the run has started: execute() ends it with a finished event whatever happens.
  const std::unique_ptr<Launcher> launcher =
      local ? makeLocalLauncher()
            : makeSlurmLauncher(SlurmLaunch{options.run_dir, "", options.slurm_components,
                                            options.slurm_worker_env,
                                            static_cast<bool>(options.replan)});
  Run run(spec, options, emit, store, run_id, *launcher);
  if (options.checkpoint_every > 0)
    run.setCheckpointDir(local ? store.checkpointDir(run_id)
                               : clusterCheckpointDir(options.run_dir));
  return run.execute();
}

int resumeController(const std::string& store_path, std::int64_t run_id, int iterations,
                     ControllerOptions options, const std::function<void(const json&)>& emit) {
  sweepRunDirs();
  RunStore store(store_path);
  // A run whose controller was killed is still `running` until this records it failed.
  for (const std::int64_t orphan : store.failOrphanedRuns())
    std::cerr << "sailor run: marked run " << orphan << " failed: its controller is gone\n";
  const std::string what = "run " + std::to_string(run_id);
  const std::optional<RunRecord> rec = store.run(run_id);
  if (!rec)
    throw InputError("--resume", std::to_string(run_id),
                     "a run id of `sailor runs list` in " + store_path);
  if (rec->status != RunStatus::Failed && rec->status != RunStatus::Stopped)
    throw InputError("--resume",
                     what + ", which is " + runStatusName(rec->status) +
                         (rec->status == RunStatus::Running
                              ? " (controller pid " + std::to_string(rec->controller.pid) + ")"
                              : ""),
                     "a stopped or failed run");
  if (!rec->launcher.empty() && rec->launcher != "local")
    throw InputError("--resume", what + ", a " + rec->launcher + " run",
                     "a local run (a " + rec->launcher +
                         " run restores its checkpoints in place, elastic; resuming it in a new "
                         "job is not built)");
  const std::string dir = store.checkpointDir(run_id);
  const std::vector<Manifest> complete = completeCheckpoints(dir);
  if (complete.empty())
    throw InputError("--resume", what + ", which has no complete checkpoint in " + dir,
                     "a run started with --checkpoint-every N that completed a checkpoint");
  const Manifest& last = complete.back();
  // Its own: a checkpoint written by another run, or by a run of another store, is refused.
  if (last.store_id != store.storeId() || last.run_id != run_id)
    throw InputError("--resume",
                     what + ": its checkpoint " + dir + "/" + stepDirName(last.iteration) +
                         " belongs to run " + std::to_string(last.run_id) + " of store " +
                         (last.store_id.empty() ? "(none)" : last.store_id),
                     "a checkpoint of run " + std::to_string(run_id) + " of store " +
                         store.storeId() + " (" + store_path + ")");
  // The spec of the last checkpoint: beside its shards (an elastic run may have changed plan
  // since it started); checkpoints written before that was kept there share the run's spec.json.
  const std::string step_spec = dir + "/" + stepDirName(last.iteration) + "/" + kStepSpecFile;
  struct stat st {};
  const std::string spec_path =
      ::stat(step_spec.c_str(), &st) == 0 ? step_spec : dir + "/spec.json";
  RunSpec spec;
  try {
    spec = RunSpec::fromJson(json_util::readFile(spec_path));
  } catch (const std::exception& e) {
    throw InputError("--resume",
                     what + ": its checkpoint spec does not read (" + std::string(e.what()) + ")",
                     "the spec.json its run wrote in " + dir);
  }
  if (specFingerprint(spec.toJson()) != last.fingerprint)
    throw InputError("--resume", what + ": " + spec_path + " is not the spec of its checkpoint",
                     "the spec its checkpoint at iteration " + std::to_string(last.iteration) +
                         " was written under");
  // The plan must be one the run has trained: the one it started with, or one it reconfigured to.
  bool known_plan = spec.plan.toJson() == rec->plan;
  for (const EventRecord& ev : store.events(run_id)) {
    if (known_plan || ev.kind != "reconfigured") continue;
    const RunEvent decoded = runEventFromJson(ev.payload);
    if (const auto* r = decoded.as<ReconfiguredEvent>())
      known_plan = r->new_plan.toJson() == spec.plan.toJson();
  }
  if (!known_plan)
    throw InputError("--resume", what + ": the plan of " + spec_path,
                     "the plan the run started with or one it reconfigured to");
  if (iterations > 0) spec.iterations = iterations;
  const int start = last.iteration + 1;
  if (spec.iterations <= start)
    throw InputError(iterations > 0 ? "--iterations" : "--resume",
                     std::to_string(spec.iterations) + " iterations",
                     "more than " + std::to_string(start) +
                         ", the iterations its last checkpoint holds (give --iterations N)");
  options.name = rec->name;
  options.launcher = "local";
  // The checkpoint settings the run had, unless this resume gives its own.
  if (options.checkpoint_every < 0) {
    const json had = savedCheckpointOptions(dir);  // none written: no checkpoints after resume
    options.checkpoint_every = had.value("checkpoint_every", 0);
    if (options.checkpoint_keep < 1) options.checkpoint_keep = had.value("checkpoint_keep", 2);
  }
  if (options.checkpoint_keep < 1) options.checkpoint_keep = 2;

  struct sigaction sa {};
  sa.sa_handler = onSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  const std::string step_dir = dir + "/" + stepDirName(last.iteration);
  ResumedEvent resumed{start, step_dir, spec.iterations, 0};
  // The count of discarded iterations is known once they are removed: stored in the same
  // transaction, the event says how many of the store's it was about to remove.
  int stored_after = 0;
  for (const IterationRecord& r : store.iterations(run_id)) stored_after += r.iteration >= start;
  resumed.iterations_discarded = stored_after;
  const json resumed_json = toJson(RunEvent{run_id, utcNow(), resumed});
  // Steps never completed (a worker or the controller died while they were written) are
  // removed first: nothing writes them any more, the resumed run writes its own, and the space
  // they take may be what the store's write needs.
  const std::vector<int> steps = stepDirs(dir);
  for (const int it : steps)
    if (std::none_of(complete.begin(), complete.end(),
                     [&](const Manifest& m) { return m.iteration == it; }))
      removeDirectoryAndFiles(dir + "/" + stepDirName(it));
  store.resumeRun(run_id, start, spec.iterations, resumed_json);

  const std::unique_ptr<Launcher> launcher = makeLocalLauncher();
  Run run(spec, options, emit, store, run_id, *launcher);
  if (options.checkpoint_every > 0) run.setCheckpointDir(dir);
  run.setResume(step_dir, start, resumed_json);
  return run.execute();
}

int attachController(const std::string& store_path, std::int64_t run_id,
                     const std::function<void(const json&)>& emit) {
  RunStore store(store_path);
  const std::optional<RunRecord> rec = store.run(run_id);
  const std::string what = "runs attach " + std::to_string(run_id);
  if (!rec)
    throw InputError(what, "no such run in " + store_path, "a run id of `sailor runs list`");
  if (rec->job_id.empty() || rec->run_dir.empty())
    throw InputError(what,
                     "a " + (rec->launcher.empty() ? std::string("local") : rec->launcher) + " run",
                     "a cluster run (sailor run --launcher slurm)");
  if (rec->status != RunStatus::Running)
    throw InputError(what, "a run recorded " + std::string(runStatusName(rec->status)),
                     "a running run");
  if (!controllerGone(rec->controller))
    throw InputError(
        what, "a run whose controller (pid " + std::to_string(rec->controller.pid) + ") is alive",
        "a run whose controller is gone");
  // An elastic run may have reconfigured: the last world's spec and workers.
  int generation = 0;
  for (const EventRecord& ev : store.events(run_id))
    if (ev.kind == "reconfigured")
      if (const RunEvent e = runEventFromJson(ev.payload);
          const auto* r = e.as<ReconfiguredEvent>())
        generation = r->generation;
  const RunSpec spec = RunSpec::fromJson(json_util::readFile(
      rec->run_dir +
      (generation > 0 ? "/spec-" + std::to_string(generation) + ".json" : "/spec.json")));
  AttachedWorld world = attachedWorld(rec->run_dir, generation, spec.worldSize(), what);
  store.adoptRun(run_id);
  static ControllerOptions options;  // outlives the Run below, which keeps a reference
  options.launcher = "slurm";
  options.run_dir = rec->run_dir;
  options.name = rec->name;
  // The run's checkpoint settings (written when it started): the steps the workers complete
  // from now on get their manifests, and old ones are removed as the run would.
  const std::string checkpoints = clusterCheckpointDir(rec->run_dir);
  const json had = savedCheckpointOptions(checkpoints);
  options.checkpoint_every = had.value("checkpoint_every", 0);
  options.checkpoint_keep = had.value("checkpoint_keep", 2);
  struct sigaction sa {};
  sa.sa_handler = onSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  const std::unique_ptr<Launcher> launcher =
      makeSlurmLauncher(SlurmLaunch{rec->run_dir, rec->job_id, {}, {}, false});
  Run run(spec, options, emit, store, run_id, *launcher);
  if (options.checkpoint_every > 0) run.setCheckpointDir(checkpoints);
  return run.attach(rec->run_dir, rec->iterations_done, std::move(world));
}

}  // namespace sailor::runner
