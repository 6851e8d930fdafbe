// The Slurm launcher: the workers of a run as one batch job (launch_export's run script, NOTE
// [Slurm run script]), followed through the run directory and the scheduler's state.
//
//   slurmCommand ..... runs sbatch/squeue/scontrol/scancel with a bound, capturing their output
//   jobState ......... the job's state and reason (squeue, then scontrol once it left the queue)
//   SlurmLauncher .... launch (sbatch --parsable, or an existing job when attaching), a tailer
//                      thread that copies each rank's events files into the pipes the
//                      controller reads and follows the job's state, poll (a rank has ended
//                      once its exit file is written and its files drained, or the job ended),
//                      stopAll (scancel, then wait for the job to leave the queue)
#include "launcher_slurm.hpp"

#include <fcntl.h>
#include <signal.h>  // NOLINT(modernize-deprecated-headers): SIGTERM, POSIX
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "launcher.hpp"
#include "rendezvous/auth_store.hpp"

namespace sailor::runner {

namespace {

using Clock = std::chrono::steady_clock;

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  std::size_t b = 0;
  while (b < s.size() && s[b] == ' ') ++b;
  return s.substr(b);
}

// Appends what `fd` holds beyond `offset` of file `path` into `out`; returns bytes read.
std::size_t readFrom(const std::string& path, std::int64_t& offset, std::string& out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::size_t total = 0;
  char buf[65536];
  ssize_t n;
  while ((n = ::pread(fd, buf, sizeof buf, offset)) > 0) {
    out.append(buf, static_cast<std::size_t>(n));
    offset += n;
    total += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return total;
}

void writeAll(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the controller closed its end: nobody reads any more
    done += static_cast<std::size_t>(n);
  }
}

bool terminal(const std::string& state) {
  return !state.empty() && state != "PENDING" && state != "RUNNING" && state != "CONFIGURING" &&
         state != "COMPLETING" && state != "SUSPENDED" && state != "REQUEUED" &&
         state != "RESIZING";
}

class SlurmLauncher final : public Launcher {
 public:
  explicit SlurmLauncher(SlurmLaunch config) : config_(std::move(config)) {}
  ~SlurmLauncher() override {
    stop_tailer_ = true;
    if (tailer_.joinable()) tailer_.join();
    for (auto& r : ranks_) closeWrite(*r);
    for (const auto& r : ranks_)
      if (r->srun > 0 && !r->srun_code) ::waitpid(r->srun, nullptr, WNOHANG);
  }

  std::vector<LaunchedWorker> launch(const std::vector<WorkerCommand>& commands) override {
    if (tailer_.joinable()) return launchSteps(commands);
    if (config_.job_id.empty()) {
      const SlurmResult r =
          slurmCommand({"sbatch", "--parsable", "--output=" + config_.run_dir + "/slurm-%j.out",
                        "--chdir=" + config_.run_dir, config_.run_dir + "/sailor.sbatch"},
                       std::chrono::seconds(30));
      const std::string id = trim(r.out.substr(0, r.out.find(';')));  // "ID[;cluster]"
      if (r.code != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
        throw std::runtime_error("sbatch refused the job: " + firstLine(r.err, r.out));
      config_.job_id = id;
    }
    std::vector<LaunchedWorker> out;
    for (const WorkerCommand& c : commands)
      out.push_back(addRank(c.events.empty()
                                ? config_.run_dir + "/events/rank-" + std::to_string(c.place.rank)
                                : c.events));
    tailer_ = std::thread([this] { tail(); });
    return out;
  }

  void sendControl(std::size_t index, const std::string& command) override {
    const std::string prefix = "control/" + std::to_string(index);
    try {
      if (!control_) {  // the address rank 0 published, the token the workers prove
        std::string address;
        std::ifstream in(config_.run_dir + "/rendezvous.address");
        if (!std::getline(in, address) || trim(address).empty())
          throw std::runtime_error("rank 0 has not published the store's address yet");
        const auto [host, port] = parseHostPort(trim(address));
        control_ = c10::make_intrusive<AuthStore>(
            host, port, store::readTokenFile(config_.run_dir + "/token"), std::chrono::seconds(10));
      }
      const std::int64_t n = control_->add(prefix + "/next", 1) - 1;
      control_->set(prefix + "/" + std::to_string(n),
                    std::vector<std::uint8_t>(command.begin(), command.end()));
    } catch (const std::exception& e) {
      control_.reset();  // a new connection for the next command
      throw std::runtime_error("the run's store did not take a command for worker " +
                               std::to_string(index) + ": " + e.what());
    }
  }

  std::optional<WorkerExit> poll(std::size_t index) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return ranks_.at(index)->ended;
  }

  void stopAll(std::chrono::milliseconds grace) noexcept override {
    if (config_.job_id.empty() || stopped_) return;
    stopped_ = true;
    bool all_ended = true;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const auto& r : ranks_) all_ended = all_ended && r->ended.has_value();
    }
    try {
      SlurmJobState st = jobState(config_.job_id);
      if (!all_ended || !terminal(st.state)) {
        if (!all_ended) (void)slurmCommand({"scancel", config_.job_id}, std::chrono::seconds(10));
        // Until the job has left the queue (its processes ended: KillWait bounds it).
        const auto deadline = Clock::now() + grace + std::chrono::seconds(30);
        while (Clock::now() < deadline && !terminal((st = jobState(config_.job_id)).state))
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
      // The job's last state (COMPLETED, CANCELLED...), which the tailer may not have seen: the
      // controller reports it before its finished event.
      noteState(st);
    } catch (const std::exception&) {  // no scheduler answer: nothing more to do from here
    }
    stop_tailer_ = true;
    if (tailer_.joinable()) tailer_.join();
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& r : ranks_) {
      closeWrite(*r);
      if (!r->ended) r->ended = WorkerExit{std::nullopt, SIGTERM};
    }
  }

  std::string jobId() const override { return config_.job_id; }

  JobNotes takeNotes() override {
    std::lock_guard<std::mutex> lock(mutex_);
    JobNotes n;
    std::swap(n, notes_);
    return n;
  }

  bool workersRunning() const override { return running_; }

  std::map<std::string, std::string> nodeStates() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return node_states_;
  }

 private:
  struct Rank {
    std::string out_path, err_path, exit_path;
    std::int64_t out_off = 0, err_off = 0;
    int out_w = -1, err_w = -1;
    std::optional<WorkerExit> ended;
    pid_t srun = -1;       // a job step's srun (a worker launched after the first)
    std::string srun_log;  // srun's own output, shown when the step ends without an exit file
    std::optional<int> srun_code;  // how that srun ended
    bool srun_seen_ended = false;
  };

  // A worker whose events are <base>.jsonl, .err and .exit, with the pipes the controller reads.
  LaunchedWorker addRank(const std::string& base, pid_t srun = -1,
                         const std::string& srun_log = "") {
    int o[2], e[2];
    if (pipe2(o, O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    if (pipe2(e, O_CLOEXEC) != 0) {
      ::close(o[0]);
      ::close(o[1]);
      throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    }
    auto r = std::make_unique<Rank>();
    r->out_path = base + ".jsonl";
    r->err_path = base + ".err";
    r->exit_path = base + ".exit";
    r->out_w = o[1];
    r->err_w = e[1];
    r->srun = srun;
    r->srun_log = srun_log;
    std::lock_guard<std::mutex> lock(mutex_);
    ranks_.push_back(std::move(r));
    return LaunchedWorker{0, o[0], e[0]};
  }

  // Workers after the first: each a job step of its own in the job's allocation, in its pool's
  // component, started by an srun in a session of its own (it outlives a killed controller, as
  // the job does). The step appends the worker's output to events/worker-<index>.* and writes
  // its exit code there, as rank.sh does for the first workers.
  std::vector<LaunchedWorker> launchSteps(const std::vector<WorkerCommand>& commands) {
    std::vector<LaunchedWorker> out;
    for (const WorkerCommand& c : commands) {
      int component = -1;
      for (std::size_t k = 0; k < config_.components.size(); ++k)
        if (config_.components[k].gpu_type == c.place.gpu_type &&
            config_.components[k].zone == c.place.zone)
          component = static_cast<int>(k);
      if (component < 0)
        throw std::runtime_error("no component of job " + config_.job_id + " runs " +
                                 c.place.gpu_type + " in " + c.place.zone);
      std::size_t index = 0;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        index = ranks_.size();
      }
      const std::string base = config_.run_dir + "/events/worker-" + std::to_string(index);
      std::vector<std::string> argv{"srun",       "--jobid=" + config_.job_id,
                                    "--overlap",  "--nodes=1",
                                    "--ntasks=1", "--kill-on-bad-exit=1"};
      if (config_.components.size() > 1) argv.push_back("--het-group=" + std::to_string(component));
      argv.insert(argv.end(),
                  {"bash", "-c",
                   "trap '' TERM USR1; "  // a notice is the worker's (--notice), as in rank.sh
                   "\"$@\" >>\"$SAILOR_EVENTS.jsonl\" 2>>\"$SAILOR_EVENTS.err\"; code=$?; "
                   "echo \"$code\" >\"$SAILOR_EVENTS.exit.tmp\" && "
                   "mv \"$SAILOR_EVENTS.exit.tmp\" \"$SAILOR_EVENTS.exit\"; exit \"$code\"",
                   "sailor-step"});
      argv.insert(argv.end(), c.argv.begin(), c.argv.end());
      const std::string log = base + ".srun";
      // Everything the child needs is made before fork (the tailer thread runs meanwhile).
      std::vector<std::pair<std::string, std::string>> extra = config_.worker_env;
      extra.emplace_back("SAILOR_EVENTS", base);
      std::vector<std::string> env;
      for (char** e = environ; *e; ++e) {
        const std::string kv = *e;
        const std::string key = kv.substr(0, kv.find('='));
        if (std::none_of(extra.begin(), extra.end(), [&](const auto& x) { return x.first == key; }))
          env.push_back(kv);
      }
      for (const auto& [k, v] : extra) env.push_back(k + "=" + v);
      std::vector<char*> envp, args;
      for (std::string& e : env) envp.push_back(e.data());
      envp.push_back(nullptr);
      for (std::string& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      const std::string failed = "srun could not be started\n";
      const pid_t pid = fork();
      if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
      if (pid == 0) {
        setsid();
        const int null_fd = ::open("/dev/null", O_RDONLY);
        const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
        if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
        if (log_fd >= 0) {
          dup2(log_fd, STDOUT_FILENO);
          dup2(log_fd, STDERR_FILENO);
        }
        execvpe(args[0], args.data(), envp.data());
        (void)!::write(STDERR_FILENO, failed.data(), failed.size());
        _exit(127);
      }
      out.push_back(addRank(base, pid, log));
    }
    return out;
  }

  static std::string firstLine(const std::string& a, const std::string& b) {
    const std::string& s = trim(a).empty() ? b : a;
    std::string line = trim(s.substr(0, s.find('\n')));
    const std::string prefix = "sbatch: error: ";
    if (line.rfind(prefix, 0) == 0) line = line.substr(prefix.size());
    return line.empty() ? "no answer" : line;
  }

  // A job_state note when the state or its reason changed since the last one.
  void noteState(const SlurmJobState& st) {
    // squeue says "None" for a job with no reason to wait.
    const std::string reason = st.reason == "None" ? "" : st.reason;
    std::lock_guard<std::mutex> lock(mutex_);
    if (st.state == noted_state_ && reason == noted_reason_) return;
    noted_state_ = st.state;
    noted_reason_ = reason;
    notes_.states.emplace_back(st.state, reason);
  }

  // The job's nodes (squeue %N: a line per component) and their states (sinfo, one line a
  // node). A node that left the job (a failed one, under --no-kill) keeps its last state.
  void readNodeStates() {
    const SlurmResult q =
        slurmCommand({"squeue", "-j", config_.job_id, "-h", "-o", "%N"}, std::chrono::seconds(15));
    std::string nodes;
    std::istringstream lines(q.out);
    for (std::string line; std::getline(lines, line);)
      if (!trim(line).empty()) nodes += (nodes.empty() ? "" : ",") + trim(line);
    if (q.code != 0 || nodes.empty()) return;
    const SlurmResult i =
        slurmCommand({"sinfo", "-h", "-N", "-n", nodes, "-o", "%N|%T"}, std::chrono::seconds(15));
    if (i.code != 0) throw std::runtime_error("sinfo: " + trim(i.err));
    std::istringstream rows(i.out);
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::string row; std::getline(rows, row);) {
      const auto bar = row.find('|');
      if (bar != std::string::npos)
        node_states_[trim(row.substr(0, bar))] = trim(row.substr(bar + 1));
    }
  }

  static void closeWrite(Rank& r) {
    for (int* fd : {&r.out_w, &r.err_w})
      if (*fd >= 0) {
        ::close(*fd);
        *fd = -1;
      }
  }

  // Copies new lines of every rank's files into its pipes every 100 ms; every second reads the
  // job's state. A rank has ended when its exit file exists (its files drained after that), or
  // when the job ended without one (cancelled, timed out, its node failed).
  void tail() {
    auto next_state = Clock::now(), next_nodes = Clock::now();
    while (!stop_tailer_) {
      std::string job_state;
      bool job_over = false;
      if (config_.watch_nodes && running_ && Clock::now() >= next_nodes) {
        next_nodes = Clock::now() + std::chrono::seconds(2);
        try {
          readNodeStates();
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> lock(mutex_);
          notes_.warnings.push_back("slurm job " + config_.job_id + "'s nodes: " + e.what());
        }
      }
      if (Clock::now() >= next_state) {
        next_state = Clock::now() + std::chrono::seconds(1);
        try {
          const SlurmJobState st = jobState(config_.job_id);
          running_ = st.state == "RUNNING" || terminal(st.state);
          job_over = terminal(st.state);
          noteState(st);
          job_state = st.state;
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> lock(mutex_);
          notes_.warnings.push_back("slurm job " + config_.job_id + ": " + e.what());
        }
      }
      std::vector<Rank*> ranks;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto& r : ranks_) ranks.push_back(r.get());
      }
      for (Rank* rp : ranks) {
        Rank& r = *rp;
        if (r.out_w < 0) continue;
        const bool exit_written = ::access(r.exit_path.c_str(), F_OK) == 0;
        // A job step whose srun ended without the worker's exit file: the step never ran it.
        bool step_failed = false;
        if (r.srun > 0 && !r.srun_code) {
          int status = 0;
          if (::waitpid(r.srun, &status, WNOHANG) == r.srun)
            r.srun_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        }
        if (r.srun_code && !exit_written) {
          // Its exit file may land just after srun returns: one more round first.
          step_failed = r.srun_seen_ended;
          r.srun_seen_ended = true;
        }
        std::string out, err;
        readFrom(r.out_path, r.out_off, out);
        readFrom(r.err_path, r.err_off, err);
        writeAll(r.err_w, err);
        writeAll(r.out_w, out);
        if (!exit_written && !job_over && !step_failed) continue;
        WorkerExit ended{std::nullopt, SIGTERM};
        if (step_failed) {
          std::string log;
          std::int64_t off = 0;
          readFrom(r.srun_log, off, log);
          writeAll(r.err_w, log);
          ended = WorkerExit{*r.srun_code == 0 ? 1 : *r.srun_code, 0};
        } else if (exit_written) {
          std::ifstream in(r.exit_path);
          int code = -1;
          if (in >> code) ended = WorkerExit{code, 0};
        } else if (job_state == "TIMEOUT" || job_state == "NODE_FAIL" ||
                   job_state == "OUT_OF_MEMORY") {
          ended = WorkerExit{std::nullopt, SIGKILL};
        }
        closeWrite(r);
        std::lock_guard<std::mutex> lock(mutex_);
        r.ended = ended;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  SlurmLaunch config_;
  std::vector<std::unique_ptr<Rank>> ranks_;  // appended under mutex_; the tailer owns the rest
  c10::intrusive_ptr<c10d::Store> control_;   // the controller's connection to the run's store
  std::thread tailer_;
  std::atomic<bool> stop_tailer_{false};
  std::atomic<bool> running_{false};
  bool stopped_ = false;
  mutable std::mutex mutex_;
  JobNotes notes_;
  std::map<std::string, std::string> node_states_;  // by node name, sinfo's long state
  std::string noted_state_, noted_reason_;          // of the last job_state note
};

}  // namespace

SlurmResult slurmCommand(const std::vector<std::string>& argv, std::chrono::seconds bound) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    const std::string msg = argv[0] + ": " + std::strerror(errno) + "\n";
    (void)!write(STDERR_FILENO, msg.data(), msg.size());
    _exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  SlurmResult r;
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  fcntl(err[0], F_SETFL, O_NONBLOCK);
  const auto deadline = Clock::now() + bound;
  int status = 0;
  bool reaped = false;
  while (!reaped) {
    char buf[4096];
    ssize_t n;
    while ((n = ::read(out[0], buf, sizeof buf)) > 0)
      r.out.append(buf, static_cast<std::size_t>(n));
    while ((n = ::read(err[0], buf, sizeof buf)) > 0)
      r.err.append(buf, static_cast<std::size_t>(n));
    if (waitpid(pid, &status, WNOHANG) == pid) {
      reaped = true;
      break;
    }
    if (Clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      ::close(out[0]);
      ::close(err[0]);
      throw std::runtime_error(argv[0] + " did not answer within " + std::to_string(bound.count()) +
                               " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  char buf[4096];
  ssize_t n;
  while ((n = ::read(out[0], buf, sizeof buf)) > 0) r.out.append(buf, static_cast<std::size_t>(n));
  while ((n = ::read(err[0], buf, sizeof buf)) > 0) r.err.append(buf, static_cast<std::size_t>(n));
  ::close(out[0]);
  ::close(err[0]);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (r.code == 127 && r.out.empty())
    throw std::runtime_error(trim(r.err).empty() ? argv[0] + ": not found" : trim(r.err));
  return r;
}

SlurmJobState jobState(const std::string& job_id) {
  // A heterogeneous job shows one line per component: the first (component 0) speaks for it.
  const SlurmResult q =
      slurmCommand({"squeue", "-j", job_id, "-h", "-o", "%T|%r"}, std::chrono::seconds(15));
  const std::string line = trim(q.out.substr(0, q.out.find('\n')));
  if (q.code == 0 && !line.empty()) {
    const auto bar = line.find('|');
    return SlurmJobState{line.substr(0, bar), bar == std::string::npos ? "" : line.substr(bar + 1)};
  }
  // Gone from the queue: scontrol keeps a finished job for MinJobAge seconds.
  const SlurmResult c =
      slurmCommand({"scontrol", "-o", "show", "job", job_id}, std::chrono::seconds(15));
  SlurmJobState st;
  std::istringstream fields(c.out.substr(0, c.out.find('\n')));
  std::string f;
  while (fields >> f) {
    if (f.rfind("JobState=", 0) == 0) st.state = f.substr(9);
    else if (f.rfind("Reason=", 0) == 0) st.reason = f.substr(7);
  }
  // Neither knows it: long finished (no accounting here to ask); its workers' exit files say how.
  if (st.state.empty()) st.state = "GONE";
  return st;
}

std::unique_ptr<Launcher> makeSlurmLauncher(SlurmLaunch config) {
  return std::make_unique<SlurmLauncher>(std::move(config));
}

}  // namespace sailor::runner
