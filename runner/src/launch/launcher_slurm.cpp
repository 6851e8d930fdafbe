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

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "launcher.hpp"

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
    for (Rank& r : ranks_) closeWrite(r);
  }

  std::vector<LaunchedWorker> launch(const std::vector<WorkerCommand>& commands) override {
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
    ranks_.resize(commands.size());
    for (std::size_t i = 0; i < commands.size(); ++i) {
      int o[2], e[2];
      if (pipe2(o, O_CLOEXEC) != 0 || pipe2(e, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
      const std::string base =
          config_.run_dir + "/events/rank-" + std::to_string(commands[i].place.rank);
      ranks_[i].out_path = base + ".jsonl";
      ranks_[i].err_path = base + ".err";
      ranks_[i].exit_path = base + ".exit";
      ranks_[i].out_w = o[1];
      ranks_[i].err_w = e[1];
      out.push_back(LaunchedWorker{0, o[0], e[0]});
    }
    tailer_ = std::thread([this] { tail(); });
    return out;
  }

  std::optional<WorkerExit> poll(std::size_t index) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return ranks_.at(index).ended;
  }

  void stopAll(std::chrono::milliseconds grace) noexcept override {
    if (config_.job_id.empty() || stopped_) return;
    stopped_ = true;
    bool all_ended = true;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const Rank& r : ranks_) all_ended = all_ended && r.ended.has_value();
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
    for (Rank& r : ranks_) {
      closeWrite(r);
      if (!r.ended) r.ended = WorkerExit{std::nullopt, SIGTERM};
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

 private:
  struct Rank {
    std::string out_path, err_path, exit_path;
    std::int64_t out_off = 0, err_off = 0;
    int out_w = -1, err_w = -1;
    std::optional<WorkerExit> ended;
  };

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
    auto next_state = Clock::now();
    while (!stop_tailer_) {
      std::string job_state;
      bool job_over = false;
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
      for (Rank& r : ranks_) {
        if (r.out_w < 0) continue;
        const bool exit_written = ::access(r.exit_path.c_str(), F_OK) == 0;
        std::string out, err;
        readFrom(r.out_path, r.out_off, out);
        readFrom(r.err_path, r.err_off, err);
        writeAll(r.err_w, err);
        writeAll(r.out_w, out);
        if (!exit_written && !job_over) continue;
        WorkerExit ended{std::nullopt, SIGTERM};
        if (exit_written) {
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
  std::vector<Rank> ranks_;
  std::thread tailer_;
  std::atomic<bool> stop_tailer_{false};
  std::atomic<bool> running_{false};
  bool stopped_ = false;
  mutable std::mutex mutex_;
  JobNotes notes_;
  std::string noted_state_, noted_reason_;  // of the last job_state note
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
