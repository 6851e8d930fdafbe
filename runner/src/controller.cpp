// The controller behind `sailor run` (controller.hpp), as named steps:
//
//   runController ....... checks (bad input: InputError, nothing started), creates the run in
//                         the store, then hands the run to Run::execute
//   Run::execute ........ the steps in order, with one guard: whatever a step throws ends the
//                         run through finish, like any other ending
//     announce .......... emits run_started and the warnings, writes the workers' spec in the
//                         run's private directory (with its owner, for sweepRunDirs)
//     startRendezvous ... creates the c10d FileStore file the workers meet in (no port)
//     launchWorkers ..... the launch step (launcher.hpp: local processes today), workers_started
//     supervise ......... loops pumpOutput, reapExited and checkHeartbeats until every worker is
//                         done or one step says how the run ends (an Ending)
//     finish ............ the one last step, on every path: error event, stop the workers,
//                         record the status, the finished event, remove the spec directory
//   onLine, onIterationComplete: worker reports (internal messages, docs/runtime.md) turned into
//                         events; events are typed (sailor/run_events.hpp) and go to the store
//                         and to `emit` through Run::event only; a loss that is not finite
//                         ends the run as diverged.
//   runDirParent, sweepRunDirs: where private directories go, and removing those whose
//                         controller is gone (a killed controller cannot remove its own).
#include "controller.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>  // NOLINT(modernize-deprecated-headers): sigaction() is POSIX, not <csignal>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>

#include "checkpoint_files.hpp"
#include "launcher.hpp"
#include "launcher_slurm.hpp"
#include "sailor/error.hpp"
#include "sailor/json_util.hpp"
#include "sailor/run_events.hpp"
#include "sailor/run_store.hpp"

namespace sailor::runner {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

// A cluster run's rendezvous as workers_started names it: the token-checked store rank 0 hosts
// on the first node, whose address it publishes in the run directory.
std::string clusterRendezvous(const std::string& run_dir) {
  return "tcp:" + run_dir + "/rendezvous.address";
}

volatile sig_atomic_t g_interrupted = 0;
void onSignal(int) {
  g_interrupted = 1;
}

constexpr auto kStopGrace = std::chrono::seconds(2);  // SIGTERM, then SIGKILL after this
constexpr double kStartupSilenceSeconds = 60;         // loading libtorch in many processes at once

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

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

// A number of a worker's report: 0 when absent; the worker writes a figure that is not finite
// as "nan", "inf" or "-inf" (JSON has no such numbers); anything else (null) reads as NaN.
double reportNumber(const json& report, const char* key) {
  const auto it = report.find(key);
  if (it == report.end()) return 0.0;
  if (it->is_number()) return it->get<double>();
  if (it->is_string()) {
    const std::string& v = it->get_ref<const std::string&>();
    if (v == "inf") return std::numeric_limits<double>::infinity();
    if (v == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return std::numeric_limits<double>::quiet_NaN();
}

// "nan", "inf" or "-inf": a figure that is not finite, as the diverged failure names it.
std::string nonFiniteName(double v) {
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

constexpr const char* kRunDirPrefix = "sailor-run-";
constexpr const char* kOwnerFile = "controller";  // in a run's private directory: who owns it

// True when s is valid UTF-8 (nlohmann refuses to print anything else).
bool isUtf8(const std::string& s) {
  try {
    (void)json(s).dump();
    return true;
  } catch (const json::type_error&) {
    return false;
  }
}

// Removes the controller's private directory (the workers' spec and, after a crash mid-write,
// its temporary file). Plain POSIX calls, not std::filesystem::remove_all: PyTorch's own libtorch
// builds (pip wheels, 2.x) export a copy of libstdc++'s filesystem code that the dynamic linker
// binds instead, and its remove_all crashed sailor-run at exit (NULL call, seen with cuda-gdb on
// libtorch 2.11+cu130).
void removeSpecDir(const std::string& dir) {
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") (void)unlink((dir + "/" + name).c_str());
    }
    closedir(d);
  }
  (void)rmdir(dir.c_str());
}

// The owner file of a private directory: pid, start ticks, boot id and host of the controller,
// one per line (ControllerId).
std::string ownerText(const ControllerId& c) {
  return std::to_string(c.pid) + "\n" + std::to_string(c.start_ticks) + "\n" + c.boot_id + "\n" +
         c.host + "\n";
}

std::optional<ControllerId> readOwner(const std::string& file) {
  std::ifstream in(file);
  std::string pid, ticks;
  ControllerId c;
  if (!std::getline(in, pid) || !std::getline(in, ticks) || !std::getline(in, c.boot_id) ||
      !std::getline(in, c.host))
    return std::nullopt;
  c.pid = std::strtoll(pid.c_str(), nullptr, 10);
  c.start_ticks = std::strtoll(ticks.c_str(), nullptr, 10);
  return c;
}

// One worker as the controller supervises it.
struct Worker {
  RankPlacement place;
  LaunchedWorker io;  // pid and the read ends of its stdout/stderr (-1 once closed)
  std::string out_buf, err_buf;
  std::deque<std::string> err_tail;  // last lines of stderr, for error reports
  void keepStderr(const std::string& line) {
    err_tail.push_back(line);
    if (err_tail.size() > 20) err_tail.pop_front();
  }
  Clock::time_point last_seen;
  bool heard = false;  // has written anything yet (start-up gets a longer grace period)
  bool ready = false, done = false, exited = false;
  WorkerExit exit_status;
  std::string error;  // what the worker itself reported
  std::string backend, device;
  // Elasticity: a worker is active while it belongs to the current world (place.rank is then its
  // rank); one that left a reconfigured world, or was lost, stays here (its index is the
  // launcher's) so that its end is still reaped.
  bool active = true;
  bool lost = false;                   // died or stopped reporting: its GPU is gone
  bool silent = false;                 // killed by the controller because it stopped reporting
  bool leaving = false;                // told to hand its state over and leave
  bool standby = false;                // started ahead of a reconfiguration, waiting for its place
  bool joined = false;                 // joined the world of the reconfiguration under way
  std::optional<int> state_iteration;  // after a pause or interruption: its state's iteration
  json reconfigured;                   // its report of joining the new world
  Clock::time_point launched_at = Clock::now(), first_heard;
  void send(const json& command) {
    if (io.in_fd < 0) return;
    const std::string line = command.dump() + "\n";
    // A worker that died meanwhile: its pipe is broken (SIGPIPE is ignored); reaping tells.
    (void)!::write(io.in_fd, line.data(), line.size());
  }
};

// How a run ends: Finished, Stopped, or Failed with a message (and the worker it names).
struct Ending {
  RunStatus status = RunStatus::Finished;
  std::string message;
  const Worker* worker = nullptr;
};

Ending failure(std::string message, const Worker* worker = nullptr) {
  return Ending{RunStatus::Failed, std::move(message), worker};
}

class Run {
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
  ~Run() {
    if (control_fd_ >= 0) ::close(control_fd_);
    launcher_.stopAll(std::chrono::milliseconds(0));
    if (!spec_dir_.empty() && !cluster()) removeSpecDir(spec_dir_);
  }
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  // Runs every step; returns the exit code (controller.hpp). Never throws once started: a
  // failing step ends the run as failed, with the finished event last.
  int execute() noexcept;
  // The same for `sailor runs attach`: the run's directory and its iterations so far; no
  // run_started or workers_started again, and iterations the store has are not stored twice.
  int attach(const std::string& run_dir, int iterations_done) noexcept;
  // Checkpoints go to `dir` (docs/runtime.md "Checkpoints and resume"); set before execute().
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

  void onLine(Worker& w, const std::string& line);
  void onIterationComplete(int iteration);
  // Elasticity (docs/runtime.md "Elasticity"): triggers, the pause, the move to a new world.
  bool elastic() const { return static_cast<bool>(options_.replan); }
  std::optional<Ending> stepElastic();
  std::optional<Ending> onWorkerLost(Worker& w, const std::string& why);
  std::optional<Ending> trigger(const std::string& cause, const std::string& detail);
  void openControlSocket();
  std::optional<Ending> serveControl();
  std::optional<Ending> afterPause();
  std::optional<Ending> startMove();
  void finishMove();
  bool startStandby(const RunSpec& next);
  void enterNewWorld(const RunSpec& next, const std::vector<Worker*>& survivors,
                     const std::vector<Worker*>& taker, const std::vector<WorkerCommand>& commands);
  std::vector<Worker*> activeWorkers();
  void onCheckpointShard(const json& msg);
  void storeWrite(const std::function<void()>& write);
  RunEvent typed(RunEventBody body) const { return RunEvent{run_id_, utcNow(), std::move(body)}; }
  void event(RunEventBody body);
  void finalEvent(RunEventBody body) noexcept;
  void takeJobNotes(bool at_finish);
  std::string who(const Worker& w) const {
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
  int generation_ = 0;
  std::vector<Worker> workers_;
  std::map<int, std::vector<json>> pending_;  // iteration -> reports by rank (null: missing)
  int iterations_done_ = 0;
  std::optional<Ending> diverged_;  // set by the first iteration whose loss is not finite
  bool store_full_ = false;         // SAILOR_TEST_FAULT=disk-full has tripped: writes fail
  std::map<int, int> warnings_stored_, warnings_seen_;  // worker warnings by rank (attach)
  bool attached_ = false;  // `sailor runs attach`: the run started under another
  // Checkpoints: the run's directory (empty: none), and the shards reported so far by step.
  std::string checkpoint_dir_;
  struct StepShards {
    std::vector<ShardEntry> shards;
    double write_seconds = 0;  // the slowest shard's
  };
  std::map<int, StepShards> step_shards_;
  std::string resume_step_dir_;  // --resume: the checkpoint the workers restore
  std::optional<json> resumed_event_;
  // Elasticity: where the run is between triggers and the new world.
  enum class Phase { Training, Preparing, Draining, Waiting, Moving };
  Phase phase_ = Phase::Training;
  Availability available_;  // the GPUs the job has now
  std::size_t next_trace_row_ = 1;
  std::optional<Clock::time_point> trace_start_;  // when every worker was first ready
  struct Reconfiguration {
    std::string cause, detail;
    Clock::time_point paused_at;    // when every worker held still
    Clock::time_point launched_at;  // when the joining workers were started
    double replan_seconds = 0;
    std::optional<RunSpec> spec;  // the new world's; none: no plan fits (paused)
    std::string why;              // why none fits
    bool needs_replan = false;    // a worker was lost since: re-plan once all hold still
    Plan old_plan;
    int old_world_size = 0;
    int state_iteration = -1;
    std::string state_source;
    int iterations_lost = 0;
    bool joiners = false;
  };
  std::optional<Reconfiguration> reconf_;
  std::vector<std::string> spec_files_;  // by generation
  int control_fd_ = -1;                  // `sailor runs resize`'s socket (elastic local runs)
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

int Run::attach(const std::string& run_dir, int iterations_done) noexcept {
  attached_ = true;
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
  std::string tmpl = runDirParent() + "/" + kRunDirPrefix + "XXXXXX";
  if (!mkdtemp(tmpl.data()))
    throw std::runtime_error("mkdtemp " + tmpl + ": " + std::strerror(errno));
  spec_dir_ = tmpl;
  json_util::writeFileAtomically(spec_dir_ + "/" + kOwnerFile, ownerText(currentController()));
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
    return;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    throw std::runtime_error("rendezvous: cannot create " + path + ": " + std::strerror(errno));
  ::close(fd);
  rendezvous_addr_ = "file:" + path;
  if (elastic()) openControlSocket();
}

// Step: one worker per rank through the launcher, then workers_started.
void Run::launchWorkers() {
  std::vector<WorkerCommand> commands;
  for (std::size_t r = 0; r < worker_spec_.ranks.size(); ++r)
    commands.push_back({worker_spec_.ranks[r],
                        {options_.worker_path, "--spec", spec_file_, "--rank", std::to_string(r),
                         "--store", rendezvous_addr_, "--generation", std::to_string(generation_),
                         "--timeout", std::to_string(options_.collective_timeout_s)}});
  for (WorkerCommand& c : commands) {
    if (!checkpoint_dir_.empty() && options_.checkpoint_every > 0)
      c.argv.insert(c.argv.end(), {"--checkpoint-dir", checkpoint_dir_, "--checkpoint-every",
                                   std::to_string(options_.checkpoint_every)});
    if (!resume_step_dir_.empty())
      c.argv.insert(c.argv.end(), {"--resume-from", resume_step_dir_, "--start-iteration",
                                   std::to_string(iterations_done_)});
    if (zone_network_)
      for (const std::string& a : zone_network_->workerArgs(c.place.zone)) c.argv.push_back(a);
  }
  const std::vector<LaunchedWorker> launched = launcher_.launch(commands);
  workers_.resize(launched.size());
  spec_files_.push_back(spec_file_);
  available_ =
      options_.trace.empty() ? planAvailability(worker_spec_.plan) : options_.trace.front().gpus;
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
  WorkersStartedEvent e{rendezvous_addr_, generation_, {}};
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
                    [](const Worker& w) { return w.exited || !w.active; }))
      break;
    if (auto ending = checkHeartbeats()) return *ending;
    if (elastic())
      if (auto ending = stepElastic()) return *ending;
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
  std::vector<std::pair<Worker*, bool>> owners;  // (worker, is stderr)
  for (Worker& w : workers_) {
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
    Worker& w = *owners[i].first;
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
    Worker& w = workers_[i];
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
    if (!w.active && !w.lost && w.exit_status.clean()) continue;  // left a reconfigured world
    if (w.standby) {  // never had a place: nothing of the run is lost with it
      w.standby = false;
      continue;
    }
    if (elastic() && !w.lost && !(w.exit_status.clean() && w.done)) {
      const std::string why =
          w.silent ? who(w) + " stopped reporting" : who(w) + " " + w.exit_status.describe();
      if (auto ending = onWorkerLost(w, why)) return ending;
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
    for (Worker& w : workers_) w.last_seen = Clock::now();
    return std::nullopt;
  }
  for (Worker& w : workers_) {
    if (!w.active) continue;  // a worker leaving a reconfigured world
    const double silent = secondsSince(w.last_seen);
    const double limit = w.heard ? options_.heartbeat_timeout_s
                                 : std::max(options_.heartbeat_timeout_s, kStartupSilenceSeconds);
    if (!w.exited && !w.silent && silent > limit) {
      if (elastic() && w.active) {  // killed, then reaped as lost (reapExited)
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
    if (const Worker* w = ending.worker) {
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
  launcher_.stopAll(kStopGrace);
  zone_network_.reset();  // emulated zones: namespaces, links and qdiscs, once no worker is in them
  takeJobNotes(true);
  try {
    storeWrite([&] { store_.finishRun(run_id_, ending.status, ending.message); });
  } catch (const std::exception&) {  // the finished event below still reports the run's end
  }
  finalEvent(RunFinishedEvent{ending.status, iterations_done_, secondsSince(started_),
                              ending.status == RunStatus::Failed ? ending.message : ""});
  if (!spec_dir_.empty() && !cluster()) removeSpecDir(spec_dir_);
  spec_dir_.clear();
  switch (ending.status) {
    case RunStatus::Finished: return kExitRunOk;
    case RunStatus::Stopped: return kExitRunStopped;
    default: return kExitRunFailed;
  }
}

void Run::onLine(Worker& w, const std::string& line) {
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
    if (attached_) return;  // workers_ready was stored by the controller that started the run
    w.backend = msg.value("backend", "");
    w.device = msg.value("device", "");
    if (std::all_of(workers_.begin(), workers_.end(), [](const Worker& x) { return x.ready; })) {
      WorkersReadyEvent e{workers_[0].backend, {}, secondsSince(started_)};
      for (const Worker& x : workers_) e.devices.push_back(x.device);
      event(std::move(e));
      trace_start_ = Clock::now();
    }
  } else if (type == "iteration") {
    const int it = msg.value("iteration", -1);
    if (it < iterations_done_ || !w.active) return;  // in the store already (attach's files)
    auto& slot = pending_[it];
    if (slot.empty()) slot.assign(static_cast<std::size_t>(worker_spec_.worldSize()), json());
    slot[static_cast<std::size_t>(w.place.rank)] = msg;
    if (std::all_of(slot.begin(), slot.end(), [](const json& j) { return !j.is_null(); }))
      onIterationComplete(it);
  } else if (type == "paused" || type == "interrupted") {  // elasticity: holding still
    w.state_iteration = msg.value("state_iteration", -1);
  } else if (type == "reconfigured") {
    w.reconfigured = msg;
    w.ready = true;
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
    onCheckpointShard(msg);
  } else if (type == "done") {
    w.done = true;
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
  StepShards& step = step_shards_[it];
  step.shards.push_back(ShardEntry{msg.value("file", ""), msg.value("bytes", std::int64_t{0}),
                                   msg.value("sha256", "")});
  step.write_seconds = std::max(step.write_seconds, reportNumber(msg, "write_seconds"));
  int expected = 0;  // one shard per worker of replica 0
  for (const Worker& w : workers_) expected += w.active && w.place.replica == 0 ? 1 : 0;
  if (static_cast<int>(step.shards.size()) < expected) return;
  Manifest m;
  m.iteration = it;
  m.fingerprint = specFingerprint(worker_spec_.toJson());
  m.store_id = store_.storeId();
  m.run_id = run_id_;
  m.shards = step.shards;
  std::sort(m.shards.begin(), m.shards.end(),
            [](const ShardEntry& a, const ShardEntry& b) { return a.file < b.file; });
  const std::string dir = checkpoint_dir_ + "/" + stepDirName(it);
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
    removeStepDir(checkpoint_dir_ + "/" + stepDirName(complete[i].iteration));
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
  for (const Worker& w : workers_) {
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
  pending_.erase(iteration);
  iterations_done_ = iteration + 1;
  // NOTE [Diverged]: a loss that is not finite will not come back (the weights are NaN or
  // infinite from here on); the iteration is kept, then the run fails naming it.
  if (!std::isfinite(it.loss) && !diverged_)
    diverged_ = failure("diverged: loss " + nonFiniteName(it.loss) + " at iteration " +
                        std::to_string(iteration));
}

// ---- Elasticity (docs/runtime.md "Elasticity") ---------------------------------------------
// Training -> (a trigger: a trace row, a lost worker) -> Draining: every worker finishes the
// iteration it is in and holds still ("paused"), or reports the iteration its state is at when
// its world broke ("interrupted") -> Moving: each worker is told its place in the new world (or
// to leave), new workers start, state moves -> Training, with a reconfigured event. When no plan
// fits what is left, the run waits (Waiting, a paused event) until a trigger brings GPUs back.

namespace {
// Availability without zero entries, for comparisons.
Availability nonZero(const Availability& a) {
  Availability out;
  for (const auto& [site, n] : a)
    if (n > 0) out[site] = n;
  return out;
}

// True when, for every stage of `spec`, some replica has every tp rank in `holders`.
bool coversModel(const RunSpec& spec, const std::set<int>& holders, int& missing_stage) {
  for (std::size_t s = 0; s < spec.plan.stages.size(); ++s) {
    bool any = false;
    for (int d = 0; d < spec.data_parallel && !any; ++d) {
      const std::vector<int> ranks = spec.replicaRanks(static_cast<int>(s), d);
      any = std::all_of(ranks.begin(), ranks.end(), [&](int r) { return holders.count(r) > 0; });
    }
    if (!any) {
      missing_stage = static_cast<int>(s);
      return false;
    }
  }
  return true;
}
}  // namespace

// Which new rank each survivor takes (none: a new worker): one of the same GPU type and zone,
// with the most layers in common with what it holds (the least state to move). `taken` marks the
// survivors that got one.
std::vector<Worker*> assignRanks(const RunSpec& old, const RunSpec& next,
                                 const std::vector<Worker*>& survivors, std::vector<bool>& taken) {
  std::vector<Worker*> taker(next.ranks.size(), nullptr);
  for (std::size_t k = 0; k < next.ranks.size(); ++k) {
    const RankPlacement& np = next.ranks[k];
    const Stage& ns = next.plan.stages[static_cast<std::size_t>(np.stage)];
    int best = -1, best_overlap = -1;
    for (std::size_t i = 0; i < survivors.size(); ++i) {
      const Worker* w = survivors[i];
      if (taken[i] || w->place.gpu_type != np.gpu_type || w->place.zone != np.zone) continue;
      const Stage& os = old.plan.stages[static_cast<std::size_t>(w->place.stage)];
      const int overlap = std::max(
          0, std::min(os.last_layer, ns.last_layer) - std::max(os.first_layer, ns.first_layer) + 1);
      if (overlap > best_overlap) {
        best = static_cast<int>(i);
        best_overlap = overlap;
      }
    }
    if (best >= 0) {
      taker[k] = survivors[static_cast<std::size_t>(best)];
      taken[static_cast<std::size_t>(best)] = true;
    }
  }
  return taker;
}

// The state's iteration: the latest one whose holders among the survivors have a complete
// replica of every stage of `old` (a worker whose world broke after its optimizer step is ahead
// of the others by one); -1 when none has, with a stage no one holds in `missing_stage`.
int stateIteration(const RunSpec& old, const std::vector<Worker*>& survivors, int& missing_stage) {
  std::set<int, std::greater<>> candidates;
  for (const Worker* w : survivors) candidates.insert(*w->state_iteration);
  for (const int it : candidates) {
    std::set<int> holders;
    for (const Worker* w : survivors)
      if (*w->state_iteration == it) holders.insert(w->place.rank);
    if (coversModel(old, holders, missing_stage)) return it;
  }
  return -1;
}

// The workers' new places: survivors take theirs (the others leave), standby workers that got a
// place join, standby workers not needed are told to leave, new workers start with `commands`.
void Run::enterNewWorld(const RunSpec& next, const std::vector<Worker*>& survivors,
                        const std::vector<Worker*>& taker,
                        const std::vector<WorkerCommand>& commands) {
  for (Worker* w : survivors) {
    w->active = false;
    w->leaving = true;
    w->state_iteration.reset();
  }
  for (Worker& w : workers_)
    if (w.lost) w.active = false;
  for (std::size_t k = 0; k < taker.size(); ++k)
    if (Worker* w = taker[k]) {
      w->active = true;
      w->leaving = false;
      w->place = next.ranks[k];
      w->reconfigured = json();
    }
  for (Worker& w : workers_)
    if (w.joined) w.active = true;  // the standby workers that took a place
  for (Worker& w : workers_)
    if (w.standby && !w.exited) {  // started for a plan that changed since: not needed
      w.send(json{{"type", "leave"}});
      w.standby = false;
    }
  if (commands.empty()) return;
  const std::vector<LaunchedWorker> launched = launcher_.launch(commands);
  for (std::size_t i = 0; i < launched.size(); ++i) {
    Worker w;
    w.place = commands[i].place;
    w.io = launched[i];
    w.joined = true;
    w.last_seen = w.launched_at = Clock::now();
    workers_.push_back(std::move(w));
  }
}

std::vector<Worker*> Run::activeWorkers() {
  std::vector<Worker*> out;
  for (Worker& w : workers_)
    if (w.active) out.push_back(&w);
  std::sort(out.begin(), out.end(),
            [](const Worker* a, const Worker* b) { return a->place.rank < b->place.rank; });
  return out;
}

// `sailor runs resize` reaches the controller through a Unix socket in the run's private
// directory (mode 0700: only this user gets in; no port is opened). One request per connection:
// {"type":"resize","gpus":{"<type>@<zone>": N, ...}} sets what the job has of each named (type,
// zone) and re-plans; the answer is one line {"ok": bool, "message": text}.
void Run::openControlSocket() {
  const std::string path = spec_dir_ + "/control.sock";
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path)
    return;  // a $TMPDIR too long: no resize, the run goes on
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(fd, 4) != 0) {
    ::close(fd);
    return;
  }
  control_fd_ = fd;
}

std::optional<Ending> Run::serveControl() {
  if (control_fd_ < 0) return std::nullopt;
  const int c = ::accept4(control_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (c < 0) return std::nullopt;
  std::string line;
  pollfd pfd{c, POLLIN, 0};
  const auto deadline = Clock::now() + std::chrono::seconds(2);
  while (line.find('\n') == std::string::npos && line.size() < 65536 && Clock::now() < deadline) {
    if (::poll(&pfd, 1, 100) <= 0) continue;
    char buf[4096];
    const ssize_t n = ::read(c, buf, sizeof buf);
    if (n <= 0) break;
    line.append(buf, static_cast<std::size_t>(n));
  }
  auto answer = [&](bool ok, const std::string& message) {
    const std::string out = json{{"ok", ok}, {"message", message}}.dump() + "\n";
    (void)!::write(c, out.data(), out.size());
    ::close(c);
  };
  json req;
  try {
    req = json_util::parseText(line.substr(0, line.find('\n')), "resize request");
  } catch (const std::exception& e) {
    answer(false, e.what());
    return std::nullopt;
  }
  if (!req.is_object() || req.value("type", "") != "resize" || !req.contains("gpus") ||
      !req["gpus"].is_object() || req["gpus"].empty()) {
    answer(false, "expected {\"type\":\"resize\",\"gpus\":{\"TYPE@ZONE\": N}}");
    return std::nullopt;
  }
  if (phase_ == Phase::Preparing || phase_ == Phase::Draining || phase_ == Phase::Moving) {
    answer(false,
           "a reconfiguration is under way (" + reconf_->detail + "); try again when it ends");
    return std::nullopt;
  }
  Availability next = available_;
  for (const auto& [site, n] : req["gpus"].items()) {
    const std::size_t at = site.find('@');
    if (at == std::string::npos || !n.is_number_integer() || n.get<std::int64_t>() < 0 ||
        n.get<std::int64_t>() > 1000000) {
      answer(false, "gpus." + site + ": expected TYPE@ZONE and a GPU count from 0 to 1000000");
      return std::nullopt;
    }
    next[{site.substr(0, at), site.substr(at + 1)}] = n.get<int>();
  }
  if (nonZero(next) == nonZero(available_)) {
    answer(true, "the run has " + describeAvailability(nonZero(available_)) + " already");
    return std::nullopt;
  }
  available_ = next;
  const std::string detail = "resize: " + describeAvailability(nonZero(next));
  answer(true, "re-planning on " + describeAvailability(nonZero(next)));
  return trigger("resize", detail);
}

std::optional<Ending> Run::stepElastic() {
  if (auto ending = serveControl()) return ending;
  if (trace_start_ && next_trace_row_ < options_.trace.size() &&
      (phase_ == Phase::Training || phase_ == Phase::Waiting)) {
    const AvailabilityStep& row = options_.trace[next_trace_row_];
    if (secondsSince(*trace_start_) >= row.at_s) {
      ++next_trace_row_;
      if (nonZero(row.gpus) != nonZero(available_)) {
        available_ = row.gpus;
        if (auto ending =
                trigger("trace", "trace " + row.label + ": " + describeAvailability(row.gpus)))
          return ending;
      }
    }
  }
  if (phase_ == Phase::Preparing) {  // the pause once every new worker is up (or gone)
    const bool up = std::all_of(workers_.begin(), workers_.end(),
                                [](const Worker& w) { return !w.standby || w.exited || w.heard; });
    if (up) {
      phase_ = Phase::Draining;
      for (Worker* w : activeWorkers()) w->send(json{{"type", "pause"}});
    }
  }
  if (phase_ == Phase::Draining) {
    bool held = true, ending = false;
    for (Worker* w : activeWorkers()) {
      if (w->lost) continue;
      ending = ending || w->done;
      held = held && w->state_iteration.has_value();
    }
    if (held && !ending) return afterPause();
  }
  if (phase_ == Phase::Moving) {
    const auto active = activeWorkers();
    if (std::all_of(active.begin(), active.end(),
                    [](const Worker* w) { return !w->reconfigured.is_null(); }))
      finishMove();
  }
  return std::nullopt;
}

std::optional<Ending> Run::trigger(const std::string& cause, const std::string& detail) {
  Reconfiguration r;
  r.cause = cause;
  r.detail = detail;
  const auto t0 = Clock::now();
  r.spec = options_.replan(available_, r.why);
  r.replan_seconds = secondsSince(t0);
  if (phase_ == Phase::Waiting) {  // the workers hold still already
    if (!r.spec) {
      event(PausedEvent{cause, r.why, reconf_->state_iteration + 1});
      return std::nullopt;
    }
    r.paused_at = reconf_->paused_at;
    reconf_ = std::move(r);
    return startMove();
  }
  if (r.spec && r.spec->plan == worker_spec_.plan) {
    event(RunWarningEvent{detail + ": the planner's best plan is the one running (no change)",
                          std::nullopt});
    return std::nullopt;
  }
  reconf_ = std::move(r);
  // New workers start first (Preparing); the pause comes once they are up (stepElastic).
  if (reconf_->spec && startStandby(*reconf_->spec)) {
    phase_ = Phase::Preparing;
    return std::nullopt;
  }
  phase_ = Phase::Draining;
  for (Worker* w : activeWorkers()) w->send(json{{"type", "pause"}});
  return std::nullopt;
}

// The workers a new plan needs beyond the survivors of each GPU type and zone start now, while
// the run still trains: loading libtorch and starting a process (about a second here) then
// overlaps training instead of adding to the pause. They wait for their place on stdin
// (`--join -`); any not needed after all are told to leave.
bool Run::startStandby(const RunSpec& next) {
  std::map<std::pair<std::string, std::string>, int> need;
  for (const RankPlacement& p : next.ranks) ++need[{p.gpu_type, p.zone}];
  for (const Worker& w : workers_)
    if ((w.active && !w.lost) || (w.standby && !w.exited)) --need[{w.place.gpu_type, w.place.zone}];
  std::vector<WorkerCommand> commands;
  for (const RankPlacement& p : next.ranks) {
    int& n = need[{p.gpu_type, p.zone}];
    if (n <= 0) continue;
    --n;
    WorkerCommand c{p,
                    {options_.worker_path, "--join", "-", "--store", rendezvous_addr_, "--timeout",
                     std::to_string(options_.collective_timeout_s)}};
    if (!checkpoint_dir_.empty() && options_.checkpoint_every > 0)
      c.argv.insert(c.argv.end(), {"--checkpoint-dir", checkpoint_dir_, "--checkpoint-every",
                                   std::to_string(options_.checkpoint_every)});
    commands.push_back(std::move(c));
  }
  if (commands.empty()) return false;
  const std::vector<LaunchedWorker> launched = launcher_.launch(commands);
  for (std::size_t i = 0; i < launched.size(); ++i) {
    Worker w;
    w.place = commands[i].place;
    w.io = launched[i];
    w.active = false;
    w.standby = true;
    w.last_seen = w.launched_at = Clock::now();
    workers_.push_back(std::move(w));
  }
  return true;
}

std::optional<Ending> Run::onWorkerLost(Worker& w, const std::string& why) {
  w.lost = true;
  if (phase_ == Phase::Moving) return failure(why + " during a reconfiguration", &w);
  int& n = available_[{w.place.gpu_type, w.place.zone}];
  n = std::max(0, n - 1);
  if (std::none_of(workers_.begin(), workers_.end(),
                   [](const Worker& x) { return x.active && !x.lost; }))
    return failure(why + ", and no other worker is left", &w);
  if (phase_ == Phase::Training || phase_ == Phase::Preparing) {
    Reconfiguration r;
    r.cause = "worker_lost";
    r.detail = why;
    r.needs_replan = true;
    reconf_ = std::move(r);
    phase_ = Phase::Draining;
    // Unblocks the others' collectives with the lost worker at once (elastic.hpp).
    for (Worker* x : activeWorkers())
      if (!x->lost) x->send(json{{"type", "abort"}});
    return std::nullopt;
  }
  reconf_->needs_replan = true;  // Draining or Waiting: what is left changed again
  reconf_->detail += "; " + why;
  if (phase_ == Phase::Waiting) {
    phase_ = Phase::Draining;  // every survivor holds still already: re-plans at once
  }
  return std::nullopt;
}

std::optional<Ending> Run::afterPause() {
  Reconfiguration& r = *reconf_;
  r.paused_at = Clock::now();
  if (r.needs_replan) {
    const auto t0 = Clock::now();
    r.why.clear();
    r.spec = options_.replan(available_, r.why);
    r.replan_seconds += secondsSince(t0);
    r.needs_replan = false;
  }
  int next_iteration = std::numeric_limits<int>::max();
  for (Worker* w : activeWorkers())
    if (!w->lost) next_iteration = std::min(next_iteration, *w->state_iteration + 1);
  r.state_iteration = next_iteration - 1;
  if (!r.spec) {
    phase_ = Phase::Waiting;
    event(PausedEvent{r.cause, r.why + " (" + describeAvailability(nonZero(available_)) + ")",
                      next_iteration});
    return std::nullopt;
  }
  return startMove();
}

std::optional<Ending> Run::startMove() {
  Reconfiguration& r = *reconf_;
  const RunSpec next = *r.spec;
  const RunSpec& old = worker_spec_;
  const int N = next.worldSize();
  std::vector<Worker*> survivors;
  for (Worker* w : activeWorkers())
    if (!w->lost) survivors.push_back(w);
  // Which new rank each survivor takes: one of the same GPU type and zone, with the most layers
  // in common with what it holds (the least state to move).
  std::vector<bool> taken(survivors.size(), false);
  const std::vector<Worker*> taker = assignRanks(old, next, survivors, taken);
  int missing_stage = 0;
  int S = stateIteration(old, survivors, missing_stage);
  const bool covered = S >= 0;
  std::string checkpoint_step;
  if (!covered) {
    // No surviving worker holds some stage: the last checkpoint of this world's plan.
    std::optional<Manifest> last;
    if (!checkpoint_dir_.empty())
      for (const Manifest& m : completeCheckpoints(checkpoint_dir_))
        if (m.fingerprint == specFingerprint(old.toJson()) && m.store_id == store_.storeId() &&
            m.run_id == run_id_)
          last = m;
    if (!last)
      return failure(r.detail + ": no surviving worker holds all of stage " +
                     std::to_string(missing_stage) +
                     (checkpoint_dir_.empty()
                          ? " and the run keeps no checkpoints (sailor run --checkpoint-every N)"
                          : " and no checkpoint of the running plan is complete"));
    S = last->iteration;
    checkpoint_step = checkpoint_dir_ + "/" + stepDirName(S);
  }
  r.state_iteration = S;
  r.state_source = covered ? "peers" : "checkpoint";
  r.iterations_lost = std::max(0, iterations_done_ - 1 - S);
  // Iterations every survivor finished but one lost worker never reported: kept, without it.
  for (int it = iterations_done_; it <= S; ++it)
    if (pending_.count(it)) onIterationComplete(it);
  pending_.clear();
  // The members of the move: the new world's ranks, then leaving holders (elastic.hpp).
  struct MemberOf {
    Worker* w;
    bool holder;
  };
  std::vector<MemberOf> members;
  for (Worker* w : taker) members.push_back({w, covered && w && *w->state_iteration == S});
  if (covered)
    for (std::size_t i = 0; i < survivors.size(); ++i)
      if (!taken[i] && *survivors[i]->state_iteration == S) members.push_back({survivors[i], true});
  const int G = generation_ + 1;
  const std::string spec_path = spec_dir_ + "/spec-" + std::to_string(G) + ".json";
  json_util::writeFileAtomically(spec_path, next.toJson().dump(2));
  json membership{
      {"generation", G}, {"state_iteration", S}, {"new_world_size", N}, {"members", json::array()}};
  for (const MemberOf& m : members)
    membership["members"].push_back(
        {{"old_rank", m.w ? m.w->place.rank : -1}, {"holder", m.holder}});
  const Worker* publisher = nullptr;  // lets joining workers into the run's private network
  for (Worker* w : taker)
    if (w && !publisher) publisher = w;
  if (!publisher && !survivors.empty()) publisher = survivors.front();
  auto command = [&](int member) {
    json c{{"type", "reconfigure"},
           {"generation", G},
           {"member", member},
           {"rank", member < N ? member : -1},
           {"spec", spec_path},
           {"start_iteration", S + 1},
           {"membership", membership},
           {"old_spec", spec_files_.back()},
           {"holder", members[static_cast<std::size_t>(member)].holder}};
    if (!checkpoint_step.empty()) {
      c["checkpoint"] = checkpoint_step;
      c["checkpoint_spec"] = spec_files_.back();
    }
    return c;
  };
  for (Worker* w : survivors) {
    int member = -1;
    for (std::size_t i = 0; i < members.size(); ++i)
      if (members[i].w == w) member = static_cast<int>(i);
    json c = member >= 0 ? command(member) : json{{"type", "leave"}, {"generation", G}};
    if (w == publisher) c["publish_network"] = true;
    w->send(c);
  }
  // Workers that join: started with the move they join.
  std::vector<WorkerCommand> commands;
  std::vector<int> joiner_ranks;
  for (int k = 0; k < N; ++k) {
    if (taker[static_cast<std::size_t>(k)]) continue;
    const RankPlacement& np = next.ranks[static_cast<std::size_t>(k)];
    const auto standby = std::find_if(workers_.begin(), workers_.end(), [&](const Worker& w) {
      return w.standby && !w.exited && w.place.gpu_type == np.gpu_type && w.place.zone == np.zone;
    });
    if (standby != workers_.end()) {  // started ahead: its place on stdin
      standby->standby = false;
      standby->joined = true;
      standby->place = np;
      standby->reconfigured = json();
      standby->send(command(k));
      joiner_ranks.push_back(k);
      continue;
    }
    const std::string join_file =
        spec_dir_ + "/join-" + std::to_string(G) + "-" + std::to_string(k) + ".json";
    json_util::writeFileAtomically(join_file, command(k).dump());
    WorkerCommand c{next.ranks[static_cast<std::size_t>(k)],
                    {options_.worker_path, "--spec", spec_path, "--rank", std::to_string(k),
                     "--store", rendezvous_addr_, "--generation", std::to_string(G), "--timeout",
                     std::to_string(options_.collective_timeout_s), "--join", join_file,
                     "--start-iteration", std::to_string(S + 1)}};
    if (!checkpoint_dir_.empty() && options_.checkpoint_every > 0)
      c.argv.insert(c.argv.end(), {"--checkpoint-dir", checkpoint_dir_, "--checkpoint-every",
                                   std::to_string(options_.checkpoint_every)});
    commands.push_back(std::move(c));
    joiner_ranks.push_back(k);
  }
  r.old_plan = old.plan;
  r.old_world_size = old.worldSize();
  r.launched_at = Clock::now();
  r.joiners = !joiner_ranks.empty();
  enterNewWorld(next, survivors, taker, commands);
  worker_spec_ = next;
  spec_file_ = spec_path;
  spec_files_.push_back(spec_path);
  generation_ = G;
  phase_ = Phase::Moving;
  return std::nullopt;
}

void Run::finishMove() {
  Reconfiguration& r = *reconf_;
  ReconfiguredEvent e;
  e.cause = r.cause;
  e.detail = r.detail;
  e.generation = generation_;
  e.from_iteration = r.state_iteration + 1;
  e.old_plan = r.old_plan;
  e.new_plan = worker_spec_.plan;
  e.old_world_size = r.old_world_size;
  e.new_world_size = worker_spec_.worldSize();
  e.state_source = r.state_source;
  e.iterations_lost = r.iterations_lost;
  e.replan_seconds = r.replan_seconds;
  WorkersStartedEvent started{rendezvous_addr_, generation_, {}};
  for (Worker* w : activeWorkers()) {
    const json& rep = w->reconfigured;
    e.state_bytes += rep.value("state_bytes", std::int64_t{0});
    e.teardown_seconds = std::max(e.teardown_seconds, reportNumber(rep, "teardown_seconds"));
    e.group_setup_seconds =
        std::max(e.group_setup_seconds, reportNumber(rep, "group_setup_seconds"));
    e.rebuild_seconds = std::max(e.rebuild_seconds, reportNumber(rep, "rebuild_seconds"));
    e.transfer_seconds = std::max(e.transfer_seconds, reportNumber(rep, "transfer_seconds"));
    // A joining worker: how long the paused world waited for it to start (none when it was
    // started ahead, while the run trained: it speaks once it has its place).
    if (w->joined) {
      const auto from = std::max(w->launched_at, r.paused_at);
      e.launch_seconds =
          std::max(e.launch_seconds,
                   std::max(0.0, std::chrono::duration<double>(w->first_heard - from).count()));
      w->joined = false;
    }
    started.workers.push_back(RunWorker{w->place, w->io.pid});
  }
  e.total_seconds = secondsSince(r.paused_at);
  const int from = r.state_iteration + 1;
  if (from < iterations_done_) {  // from a checkpoint: the iterations after it are trained again
    const json j = toJson(typed(e));
    storeWrite([&] { store_.rewindRun(run_id_, from, j); });
    emit_(j);
  } else {
    event(std::move(e));
  }
  iterations_done_ = from;
  event(std::move(started));
  if (!checkpoint_dir_.empty())  // what a later resume restarts with: the running plan
    writeFileDurably(checkpoint_dir_ + "/spec.json", worker_spec_.toJson().dump(2));
  for (Worker* w : activeWorkers()) w->state_iteration.reset();
  reconf_.reset();
  phase_ = Phase::Training;
}

}  // namespace

std::string runDirParent() {
  const char* tmp = std::getenv("TMPDIR");
  struct stat st {};
  if (tmp && tmp[0] == '/' && isUtf8(tmp) && ::stat(tmp, &st) == 0 && S_ISDIR(st.st_mode))
    return tmp;
  return "/tmp";
}

int sweepRunDirs() {
  const std::string parent = runDirParent();
  DIR* d = opendir(parent.c_str());
  if (!d) return 0;
  int removed = 0;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind(kRunDirPrefix, 0) != 0) continue;
    const std::string dir = parent + "/" + name;
    struct stat st {};
    if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) continue;
    const std::optional<ControllerId> owner = readOwner(dir + "/" + kOwnerFile);
    if (!owner || !controllerGone(*owner)) continue;  // alive, another host's, or not ours
    removeSpecDir(dir);
    ++removed;
  }
  closedir(d);
  return removed;
}

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
      local ? makeLocalLauncher() : makeSlurmLauncher(SlurmLaunch{options.run_dir, ""});
  Run run(spec, options, emit, store, run_id, *launcher);
  if (local && options.checkpoint_every > 0) run.setCheckpointDir(store.checkpointDir(run_id));
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
                     "a local run (checkpoints are local-launcher only)");
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
    options.checkpoint_every = 0;
    try {
      const json had = json_util::readFile(dir + "/options.json");
      options.checkpoint_every = had.value("checkpoint_every", 0);
      if (options.checkpoint_keep < 1) options.checkpoint_keep = had.value("checkpoint_keep", 2);
    } catch (const std::exception&) {  // none written: no checkpoints after the resume
    }
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
      removeStepDir(dir + "/" + stepDirName(it));
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
  const RunSpec spec = RunSpec::fromJson(json_util::readFile(rec->run_dir + "/spec.json"));
  store.adoptRun(run_id);
  static ControllerOptions options;  // outlives the Run below, which keeps a reference
  options.launcher = "slurm";
  options.run_dir = rec->run_dir;
  options.name = rec->name;
  struct sigaction sa {};
  sa.sa_handler = onSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  const std::unique_ptr<Launcher> launcher =
      makeSlurmLauncher(SlurmLaunch{rec->run_dir, rec->job_id});
  Run run(spec, options, emit, store, run_id, *launcher);
  return run.attach(rec->run_dir, rec->iterations_done);
}

}  // namespace sailor::runner
