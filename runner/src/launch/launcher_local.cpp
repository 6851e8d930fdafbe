// The local launcher: workers as child processes of the controller on this machine.
//
//   WorkerExit::describe . how a worker ended, in words
//   testFault ............ $SAILOR_TEST_FAULT (test only)
//   startChild ........... fork/exec of one worker with stdout and stderr on pipes
//   LocalLauncher ........ launch (every rank; a failed launch stops what it started), poll
//                          (waitpid WNOHANG), stopAll (SIGTERM, grace, SIGKILL, reap); the
//                          destructor stops whatever is left
#include <fcntl.h>
#include <signal.h>  // NOLINT(modernize-deprecated-headers): kill() is POSIX, not <csignal>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "launcher.hpp"

namespace sailor::runner {

std::string WorkerExit::describe() const {
  if (code) return "exited with code " + std::to_string(*code);
  const char* name = sigabbrev_np(signal);
  return "was killed by signal " + std::to_string(signal) +
         (name ? std::string(" (SIG") + name + ")" : "");
}

bool testFault(const char* step) {
  const char* fault = std::getenv("SAILOR_TEST_FAULT");
  return fault && std::strcmp(fault, step) == 0;
}

std::string testFaultMessage(const char* step) {
  return std::string("injected fault in step ") + step + " (SAILOR_TEST_FAULT)";
}

namespace {

using Clock = std::chrono::steady_clock;

// Starts one worker with stdout and stderr on pipes. The child dies with the controller
// (PR_SET_PDEATHSIG), so no worker outlives a crashed controller.
LaunchedWorker startChild(const std::vector<std::string>& argv) {
  int out[2], err[2], in[2];
  if (pipe2(out, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  if (pipe2(err, O_CLOEXEC) != 0) {
    const int e = errno;
    close(out[0]);
    close(out[1]);
    throw std::runtime_error(std::string("pipe: ") + std::strerror(e));
  }
  if (pipe2(in, O_CLOEXEC) != 0) {
    const int e = errno;
    for (int fd : {out[0], out[1], err[0], err[1]}) close(fd);
    throw std::runtime_error(std::string("pipe: ") + std::strerror(e));
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int e = errno;
    for (int fd : {out[0], out[1], err[0], err[1], in[0], in[1]}) close(fd);
    throw std::runtime_error(std::string("fork: ") + std::strerror(e));
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    dup2(in[0], STDIN_FILENO);
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    setenv("OMP_NUM_THREADS", "1", 1);
    setenv("OPENBLAS_NUM_THREADS", "1", 1);  // OpenBLAS's own pool, besides torch's
    // A local run opens nothing beyond loopback: NCCL's bootstrap and socket transport on `lo`
    // (Gloo binds 127.0.0.1 itself, comm.cpp), unless the user chose an interface.
    setenv("NCCL_SOCKET_IFNAME", "lo", 0);
    execv(args[0], args.data());
    const std::string msg =
        std::string("cannot start ") + argv[0] + ": " + std::strerror(errno) + "\n";
    (void)!write(STDERR_FILENO, msg.data(), msg.size());
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  close(in[0]);
  return LaunchedWorker{pid, out[0], err[0], in[1]};
}

class LocalLauncher final : public Launcher {
 public:
  ~LocalLauncher() override { stopAll(std::chrono::milliseconds(0)); }

  std::vector<LaunchedWorker> launch(const std::vector<WorkerCommand>& commands) override {
    first_ = children_.size();  // earlier generations stay tracked until stopAll
    std::vector<LaunchedWorker> out;
    try {
      for (const WorkerCommand& c : commands) {
        // A fault here stands for fork failing for rank 1 with rank 0 already running.
        if (!out.empty() && testFault("launch"))
          throw std::runtime_error("fork: " + testFaultMessage("launch"));
        out.push_back(startChild(c.argv));
        children_.push_back(Child{static_cast<pid_t>(out.back().pid)});
      }
    } catch (...) {
      for (const LaunchedWorker& w : out) {
        close(w.out_fd);
        close(w.err_fd);
        close(w.in_fd);
      }
      stop(first_, std::chrono::milliseconds(0));  // this launch's workers, not older ones
      throw;
    }
    return out;
  }

  std::optional<WorkerExit> poll(std::size_t index) override {
    Child& c = children_.at(index);
    if (!c.reaped && waitpid(c.pid, &c.status, WNOHANG) == c.pid) c.reaped = true;
    if (!c.reaped) return std::nullopt;
    return exitOf(c.status);
  }

  void stopAll(std::chrono::milliseconds grace) noexcept override { stop(0, grace); }

  void killWorker(std::size_t index) noexcept override {
    if (index < children_.size() && !children_[index].reaped) ::kill(children_[index].pid, SIGKILL);
  }

 private:
  struct Child {
    pid_t pid = -1;
    bool reaped = false;
    int status = 0;  // wait(2) status once reaped
  };

  // Stops children_[first...]: SIGTERM, up to `grace` for all of them together, SIGKILL, reap.
  void stop(std::size_t first, std::chrono::milliseconds grace) noexcept {
    for (std::size_t i = first; i < children_.size(); ++i)
      if (!children_[i].reaped) {
        kill(children_[i].pid, SIGTERM);
        kill(children_[i].pid, SIGCONT);  // a stopped worker must run to act on SIGTERM
      }
    const auto deadline = Clock::now() + grace;
    for (std::size_t i = first; i < children_.size(); ++i) {
      Child& c = children_[i];
      while (!c.reaped && Clock::now() < deadline) {
        if (waitpid(c.pid, &c.status, WNOHANG) == c.pid) c.reaped = true;
        else std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      if (!c.reaped) {
        kill(c.pid, SIGKILL);
        waitpid(c.pid, &c.status, 0);
        c.reaped = true;
      }
    }
  }

  static WorkerExit exitOf(int status) {
    WorkerExit e;
    if (WIFEXITED(status)) e.code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) e.signal = WTERMSIG(status);
    else e.code = -1;  // not reached for a reaped child
    return e;
  }

  std::vector<Child> children_;
  std::size_t first_ = 0;  // the last launch's first child
};

}  // namespace

std::unique_ptr<Launcher> makeLocalLauncher() {
  return std::make_unique<LocalLauncher>();
}

}  // namespace sailor::runner
