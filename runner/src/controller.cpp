#include "controller.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>  // NOLINT(modernize-deprecated-headers): kill() is POSIX, not <csignal>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <deque>
#include <map>
#include <stdexcept>
#include <thread>

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "sailor/json_util.hpp"
#include "sailor/run_store.hpp"

namespace sailor::runner {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

volatile sig_atomic_t g_interrupted = 0;
void onSignal(int) {
  g_interrupted = 1;
}

std::string describeStatus(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    return std::string("was killed by signal ") + std::to_string(sig) +
           (name ? std::string(" (SIG") + name + ")" : "");
  }
  return "ended with status " + std::to_string(status);
}

struct Worker {
  RankPlacement place;
  pid_t pid = -1;
  int out_fd = -1;
  int err_fd = -1;
  std::string out_buf, err_buf;
  std::deque<std::string> err_tail;  // last lines of stderr, for error reports
  void keepStderr(const std::string& line) {
    err_tail.push_back(line);
    if (err_tail.size() > 20) err_tail.pop_front();
  }
  Clock::time_point last_seen;
  bool heard = false;  // has written anything yet (start-up gets a longer grace period)
  bool ready = false, done = false, exited = false;
  int status = 0;
  std::string error;  // what the worker itself reported
  std::string backend, device;
};

// Starts one worker with stdout and stderr on pipes. The child dies with the controller
// (PR_SET_PDEATHSIG), so no worker outlives a crashed controller.
void launch(Worker& w, const std::vector<std::string>& argv) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    setenv("OMP_NUM_THREADS", "1", 1);
    setenv("OPENBLAS_NUM_THREADS", "1", 1);  // OpenBLAS's own pool, besides torch's
    execv(args[0], args.data());
    const std::string msg =
        std::string("cannot start ") + argv[0] + ": " + std::strerror(errno) + "\n";
    (void)!write(STDERR_FILENO, msg.data(), msg.size());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  w.pid = pid;
  w.out_fd = out[0];
  w.err_fd = err[0];
  w.last_seen = Clock::now();
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

class Run {
 public:
  Run(const RunSpec& spec, const ControllerOptions& options,
      const std::function<void(const json&)>& emit, RunStore& store, std::int64_t run_id)
      : spec_(spec), options_(options), emit_(emit), store_(store), run_id_(run_id) {}

  int execute(const std::string& spec_file);

 private:
  void event(json e) {
    e["run_id"] = run_id_;
    e["time"] = utcNow();
    store_.addEvent(run_id_, e);
    emit_(e);
  }
  std::string who(const Worker& w) const {
    return "rank " + std::to_string(w.place.rank) + " (stage " + std::to_string(w.place.stage) +
           ", replica " + std::to_string(w.place.replica) + ", tp rank " +
           std::to_string(w.place.tp_rank) + ", " + w.place.gpu_type + " in " + w.place.zone + ")";
  }
  void onLine(Worker& w, const std::string& line);
  void onIterationComplete(int iteration);
  int fail(const Worker* w, const std::string& message);
  void stopAll();

  const RunSpec& spec_;
  const ControllerOptions& options_;
  const std::function<void(const json&)>& emit_;
  RunStore& store_;
  std::int64_t run_id_;
  std::vector<Worker> workers_;
  std::map<int, std::vector<json>> pending_;  // iteration -> reports by rank (null: missing)
  int iterations_done_ = 0;
  Clock::time_point started_;
};

void Run::onLine(Worker& w, const std::string& line) {
  json msg;
  try {
    msg = json::parse(line);
  } catch (const json::exception&) {
    event({{"event", "warning"}, {"rank", w.place.rank}, {"message", "worker output: " + line}});
    return;
  }
  const std::string type = msg.value("type", "");
  if (type == "ready") {
    w.ready = true;
    w.backend = msg.value("backend", "");
    w.device = msg.value("device", "");
    if (std::all_of(workers_.begin(), workers_.end(), [](const Worker& x) { return x.ready; })) {
      json devices = json::array();
      for (const Worker& x : workers_) devices.push_back(x.device);
      event({{"event", "workers_ready"},
             {"backend", workers_[0].backend},
             {"devices", devices},
             {"startup_seconds", std::chrono::duration<double>(Clock::now() - started_).count()}});
    }
  } else if (type == "iteration") {
    const int it = msg.value("iteration", -1);
    auto& slot = pending_[it];
    if (slot.empty()) slot.assign(workers_.size(), json());
    slot[w.place.rank] = msg;
    if (std::all_of(slot.begin(), slot.end(), [](const json& j) { return !j.is_null(); }))
      onIterationComplete(it);
  } else if (type == "error") {
    w.error = msg.value("message", "");
  } else if (type == "done") {
    w.done = true;
  }
}

void Run::onIterationComplete(int iteration) {
  const std::vector<json>& reports = pending_[iteration];
  double loss_sum = 0, seconds = 0;
  int loss_count = 0;
  const int stages = static_cast<int>(spec_.plan.stages.size());
  std::vector<double> stage_compute(stages, 0), stage_comm(stages, 0);
  json ranks = json::array();
  for (const Worker& w : workers_) {
    const json& r = reports[w.place.rank];
    loss_sum += r.value("loss_sum", 0.0);
    loss_count += r.value("loss_count", 0);
    const double s = r.value("seconds", 0.0);
    const double comm =
        r.value("p2p_seconds", 0.0) + r.value("tp_seconds", 0.0) + r.value("dp_seconds", 0.0);
    seconds = std::max(seconds, s);
    stage_compute[w.place.stage] = std::max(stage_compute[w.place.stage], s - comm);
    stage_comm[w.place.stage] = std::max(stage_comm[w.place.stage], comm);
    ranks.push_back({{"rank", w.place.rank},
                     {"stage", w.place.stage},
                     {"replica", w.place.replica},
                     {"seconds", s},
                     {"compute_seconds", s - comm},
                     {"p2p_seconds", r.value("p2p_seconds", 0.0)},
                     {"tp_seconds", r.value("tp_seconds", 0.0)},
                     {"dp_seconds", r.value("dp_seconds", 0.0)},
                     {"peak_memory_bytes", r.value("peak_memory_bytes", std::int64_t{0})}});
  }
  json per_stage = json::array();
  for (int s = 0; s < stages; ++s)
    per_stage.push_back({{"stage", s},
                         {"compute_seconds", stage_compute[s]},
                         {"communication_seconds", stage_comm[s]}});
  const double loss = loss_count > 0 ? loss_sum / loss_count : 0.0;
  const double tokens_per_s =
      seconds > 0 ? static_cast<double>(spec_.tokensPerIteration()) / seconds : 0.0;
  json e{{"event", "iteration"},
         {"run_id", run_id_},
         {"time", utcNow()},
         {"iteration", iteration},
         {"loss", loss},
         {"iteration_seconds", seconds},
         {"tokens_per_second", tokens_per_s},
         {"learning_rate", reports[0].value("learning_rate", 0.0)},
         {"grad_norm", reports[0].value("grad_norm", 0.0)},
         {"stages", per_stage},
         {"ranks", ranks}};
  IterationRecord rec;
  rec.run_id = run_id_;
  rec.iteration = iteration;
  rec.loss = loss;
  rec.iteration_seconds = seconds;
  rec.tokens_per_second = tokens_per_s;
  rec.detail = json{{"stages", per_stage},
                    {"ranks", ranks},
                    {"grad_norm", e["grad_norm"]},
                    {"learning_rate", e["learning_rate"]}};
  store_.addIteration(rec, e);
  emit_(e);
  pending_.erase(iteration);
  iterations_done_ = iteration + 1;
}

void Run::stopAll() {
  for (Worker& w : workers_)
    if (!w.exited && w.pid > 0) {
      kill(w.pid, SIGTERM);
      kill(w.pid, SIGCONT);  // a stopped worker must run to act on SIGTERM
    }
  const auto deadline = Clock::now() + std::chrono::seconds(2);
  for (Worker& w : workers_) {
    while (!w.exited && Clock::now() < deadline) {
      if (waitpid(w.pid, &w.status, WNOHANG) == w.pid) w.exited = true;
      else std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!w.exited) {
      kill(w.pid, SIGKILL);
      waitpid(w.pid, &w.status, 0);
      w.exited = true;
    }
  }
}

int Run::fail(const Worker* w, const std::string& message) {
  json e{{"event", "error"}, {"message", message}};
  if (w) {
    e["rank"] = w->place.rank;
    e["stage"] = w->place.stage;
    e["replica"] = w->place.replica;
    e["tp_rank"] = w->place.tp_rank;
    json tail = json::array();
    for (const std::string& l : w->err_tail) tail.push_back(l);
    e["stderr_tail"] = tail;
  }
  event(e);
  stopAll();
  store_.finishRun(run_id_, RunStatus::Failed, message);
  event({{"event", "finished"},
         {"status", "failed"},
         {"iterations_done", iterations_done_},
         {"seconds", std::chrono::duration<double>(Clock::now() - started_).count()},
         {"error", message}});
  return kExitRunFailed;
}

int Run::execute(const std::string& spec_file) {
  started_ = Clock::now();
  // The rendezvous store lives here, not in a worker: it outlives any one generation of workers
  // (a reconfigured world forms new groups under a new "gen/<G>/" prefix on the same store).
  c10d::TCPStoreOptions so;
  so.port = 0;
  so.isServer = true;
  so.waitWorkers = false;
  so.timeout = std::chrono::seconds(options_.collective_timeout_s);
  auto tcp_store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", so);
  const std::string store_addr = "127.0.0.1:" + std::to_string(tcp_store->getPort());
  const int generation = 0;

  workers_.resize(spec_.ranks.size());
  for (std::size_t r = 0; r < spec_.ranks.size(); ++r) {
    Worker& w = workers_[r];
    w.place = spec_.ranks[r];
    launch(w, {options_.worker_path, "--spec", spec_file, "--rank", std::to_string(r), "--store",
               store_addr, "--generation", std::to_string(generation), "--timeout",
               std::to_string(options_.collective_timeout_s)});
  }
  json list = json::array();
  for (const Worker& w : workers_) {
    json j = w.place.toJson();
    j["pid"] = w.pid;
    list.push_back(j);
  }
  event({{"event", "workers_started"},
         {"store", store_addr},
         {"generation", generation},
         {"workers", list}});

  std::vector<pollfd> fds;
  while (true) {
    if (g_interrupted) {
      event({{"event", "warning"}, {"message", "interrupted: stopping the workers"}});
      stopAll();
      store_.finishRun(run_id_, RunStatus::Stopped, "");
      event({{"event", "finished"},
             {"status", "stopped"},
             {"iterations_done", iterations_done_},
             {"seconds", std::chrono::duration<double>(Clock::now() - started_).count()}});
      return kExitRunStopped;
    }
    fds.clear();
    std::vector<std::pair<Worker*, bool>> owners;  // (worker, is stderr)
    for (Worker& w : workers_) {
      if (w.out_fd >= 0) {
        fds.push_back({w.out_fd, POLLIN, 0});
        owners.emplace_back(&w, false);
      }
      if (w.err_fd >= 0) {
        fds.push_back({w.err_fd, POLLIN, 0});
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
        (is_err ? w.err_fd : w.out_fd) = -1;
        continue;
      }
      w.last_seen = Clock::now();
      w.heard = true;
      std::string& acc = is_err ? w.err_buf : w.out_buf;
      acc.append(buf, static_cast<std::size_t>(n));
      for (const std::string& line : takeLines(acc)) {
        if (is_err) {
          w.keepStderr(line);
          event({{"event", "warning"}, {"rank", w.place.rank}, {"message", line}});
        } else {
          onLine(w, line);
        }
      }
    }
    // Exits: any worker ending before it said "done", or with a non-zero status, ends the run.
    bool all_exited = true;
    for (Worker& w : workers_) {
      if (!w.exited && waitpid(w.pid, &w.status, WNOHANG) == w.pid) {
        w.exited = true;
        // Drain what it wrote last (its error report, usually).
        for (int* fd : {&w.out_fd, &w.err_fd}) {
          if (*fd < 0) continue;
          char buf[65536];
          ssize_t n;
          std::string& acc = fd == &w.out_fd ? w.out_buf : w.err_buf;
          while ((n = read(*fd, buf, sizeof buf)) > 0) acc.append(buf, static_cast<std::size_t>(n));
          for (const std::string& line : takeLines(acc)) {
            if (fd == &w.out_fd) onLine(w, line);
            else {
              w.keepStderr(line);
            }
          }
          close(*fd);
          *fd = -1;
        }
        if (!(WIFEXITED(w.status) && WEXITSTATUS(w.status) == 0 && w.done)) {
          std::string msg = who(w) + " " + describeStatus(w.status);
          if (!w.error.empty()) msg += ": " + w.error;
          else if (!w.done && WIFEXITED(w.status) && WEXITSTATUS(w.status) == 0)
            msg += " before finishing its iterations";
          return fail(&w, msg);
        }
      }
      all_exited = all_exited && w.exited;
    }
    if (all_exited) break;
    const auto now = Clock::now();
    for (Worker& w : workers_) {
      const double silent = std::chrono::duration<double>(now - w.last_seen).count();
      // Loading libtorch in many processes at once on a small machine takes a while.
      const double limit =
          w.heard ? options_.heartbeat_timeout_s : std::max(options_.heartbeat_timeout_s, 60.0);
      if (!w.exited && silent > limit)
        return fail(&w, who(w) + " stopped reporting (no heartbeat for " +
                            std::to_string(static_cast<int>(silent)) + " s)");
    }
  }
  if (iterations_done_ != spec_.iterations)
    return fail(nullptr, "workers finished after " + std::to_string(iterations_done_) + " of " +
                             std::to_string(spec_.iterations) + " iterations");
  store_.finishRun(run_id_, RunStatus::Finished, "");
  event({{"event", "finished"},
         {"status", "finished"},
         {"iterations_done", iterations_done_},
         {"seconds", std::chrono::duration<double>(Clock::now() - started_).count()}});
  return kExitRunOk;
}

}  // namespace

// Removes the controller's private directory (the workers' spec and, after a crash mid-write,
// its temporary file). Plain POSIX calls, not std::filesystem::remove_all: PyTorch's own libtorch
// builds (pip wheels, 2.x) export a copy of libstdc++'s filesystem code that the dynamic linker
// binds instead, and its remove_all crashed sailor-run at exit (NULL call, seen with cuda-gdb on
// libtorch 2.11+cu130).
static void removeSpecDir(const std::string& dir) {
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") (void)unlink((dir + "/" + name).c_str());
    }
    closedir(d);
  }
  (void)rmdir(dir.c_str());
}

int runController(const RunSpec& spec, const json& scenario, const json& job,
                  const ControllerOptions& options, const std::function<void(const json&)>& emit) {
  if (spec.worldSize() > options.max_local_processes)
    throw InputError("plan", std::to_string(spec.worldSize()) + " GPUs (one process each)",
                     "at most " + std::to_string(options.max_local_processes) +
                         " local processes (raise --max-local-processes)");
  if (access(options.worker_path.c_str(), X_OK) != 0)
    throw InputError("--worker", "\"" + options.worker_path + "\"",
                     "an executable sailor-worker (" + std::string(std::strerror(errno)) + ")");

  RunStore store(options.store_path);
  RunRecord rec;
  rec.name = options.name;
  rec.world_size = spec.worldSize();
  rec.iterations_planned = spec.iterations;
  rec.backend = spec.backend;
  rec.plan = spec.plan.toJson();
  rec.scenario = scenario;
  rec.job = job;
  rec.model = spec.model.toJson();
  const std::int64_t run_id = store.createRun(rec);

  // The spec every worker reads, in a private directory removed at the end. It names the
  // backend the controller resolved ("auto" is decided once, here, for every rank).
  RunSpec worker_spec = spec;
  if (!options.backend.empty()) worker_spec.backend = options.backend;
  char tmpl[] = "/tmp/sailor-run-XXXXXX";
  if (!mkdtemp(tmpl)) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
  const std::string dir = tmpl, spec_file = dir + "/spec.json";
  json_util::writeFileAtomically(spec_file, worker_spec.toJson().dump(2));

  struct sigaction sa {};
  sa.sa_handler = onSignal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);

  json started{{"event", "run_started"},
               {"run_id", run_id},
               {"time", utcNow()},
               {"name", options.name},
               {"world_size", spec.worldSize()},
               {"backend_requested", spec.backend},
               {"plan", spec.plan.toJson()},
               {"model", spec.model.toJson()},
               {"global_batch_size", spec.global_batch_size},
               {"microbatches", spec.microbatches},
               {"data_parallel", spec.data_parallel},
               {"iterations", spec.iterations},
               {"data", spec.data},
               {"dtype", spec.dtype},
               {"precision", precisionName(spec.precision)},
               {"optimizer", optimizerName(spec.optimizer)},
               {"recompute", recomputeName(spec.recompute)},
               {"store", store.path()}};
  store.addEvent(run_id, started);
  emit(started);
  for (const std::string& w : options.warnings) {
    const json e{{"event", "warning"}, {"run_id", run_id}, {"time", utcNow()}, {"message", w}};
    store.addEvent(run_id, e);
    emit(e);
  }
  int code = kExitRunFailed;
  try {
    Run run(worker_spec, options, emit, store, run_id);
    code = run.execute(spec_file);
  } catch (const std::exception& e) {
    removeSpecDir(dir);
    store.finishRun(run_id, RunStatus::Failed, e.what());
    throw;
  }
  removeSpecDir(dir);
  return code;
}

}  // namespace sailor::runner
