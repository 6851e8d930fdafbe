// The controller's launch step as an interface: where and how the workers of a run start, and
// how the controller learns that one ended or stops them. One implementation per place workers
// can run: local processes (launcher_local.cpp) and Slurm job steps (launcher_slurm.hpp,
// makeSlurmLauncher). The controller (controller.cpp) never forks or signals a worker itself.
//
//   WorkerCommand .... one rank to start: its placement and its command line
//   LaunchedWorker ... what the controller gets back: an id for events, its output pipes
//   WorkerExit ....... how a worker ended, in words for error events
//   Launcher ......... launch / poll / stopAll
//   makeLocalLauncher  fork/exec on this machine
//   testFault ........ test-only fault points ($SAILOR_TEST_FAULT), docs/runtime.md
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "sailor/runs/run_spec.hpp"

namespace sailor::runner {

struct WorkerCommand {
  RankPlacement place;
  std::vector<std::string> argv;  // argv[0]: the sailor-worker binary
  // Attaching to a cluster run: the files of the worker that holds this place now
  // (<run dir>/events/rank-<r> or worker-<k>, without the extension); empty: rank-<place.rank>.
  std::string events = {};
};

struct LaunchedWorker {
  std::int64_t pid = 0;  // the process the controller supervises (workers_started's pid)
  int out_fd = -1;       // read ends of the worker's stdout and stderr (blocking pipes),
  int err_fd = -1;       //   owned (and closed) by the caller from now on
  int in_fd = -1;        // write end of its stdin (the controller's commands, elastic.hpp);
                         //   -1 where the launcher has none (Slurm); owned by the caller
};

struct WorkerExit {
  std::optional<int> code;  // exit code when it exited; none when a signal ended it
  int signal = 0;           // the signal that ended it, 0 when it exited
  bool clean() const { return code == 0; }
  // "exited with code 1", "was killed by signal 9 (SIGKILL)".
  std::string describe() const;
};

// Contract: launch() is called for the first generation of workers and again for the workers
// that join a reconfigured world; poll(), killWorker() and stopAll() from the controller's thread
// only. Every worker dies with the controller, even when the controller is killed (a local worker
// by PR_SET_PDEATHSIG), so none outlives a crash.
class Launcher {
 public:
  virtual ~Launcher() = default;
  Launcher() = default;
  Launcher(const Launcher&) = delete;
  Launcher& operator=(const Launcher&) = delete;

  // Starts one worker per command, in order (rank order), each with stdout and stderr on pipes.
  // Throws std::runtime_error when one cannot be started, after stopping those it started.
  virtual std::vector<LaunchedWorker> launch(const std::vector<WorkerCommand>& commands) = 0;
  // Non-blocking: how worker `index` (into every launch's commands, in launch order) ended, once
  // it has; none while it runs. Reports an ended worker every time it is asked.
  virtual std::optional<WorkerExit> poll(std::size_t index) = 0;
  // Kills worker `index` (a worker that stopped reporting, before the run goes on without it).
  // Local processes only; elsewhere nothing happens.
  virtual void killWorker(std::size_t index) noexcept { (void)index; }
  // Stops every worker still running: asks it to end (SIGTERM locally), waits up to `grace`,
  // then kills it, and waits for each to end. Idempotent; safe after a failed launch. noexcept:
  // it runs on the controller's failure path.
  virtual void stopAll(std::chrono::milliseconds grace) noexcept = 0;
  // Sends worker `index` one command (a JSON object's text) where it has no control pipe
  // (LaunchedWorker::in_fd -1): a cluster run's workers read theirs from the run's store. Throws
  // std::runtime_error when it cannot be delivered, or where the launcher has no such channel
  // (local processes: they have pipes).
  virtual void sendControl(std::size_t index, const std::string& command) {
    (void)command;
    throw std::runtime_error("worker " + std::to_string(index) +
                             " has no control channel but its stdin");
  }
  // The scheduler's job id of the launch; empty for local processes.
  virtual std::string jobId() const { return {}; }
  // What happened to the job since the last call, none for local processes: changes of its
  // state (and pending reason), for job_state events; and problems asking the scheduler ("squeue
  // did not answer within 15 s"), for warning events.
  struct JobNotes {
    std::vector<std::pair<std::string, std::string>> states;  // state, reason
    std::vector<std::string> warnings;
  };
  virtual JobNotes takeNotes() { return {}; }
  // The state of each node the job runs on as the scheduler last said it ("mixed", "draining",
  // "down*": sinfo's long form, `*` for a node that does not respond), for an elastic run; empty
  // for local processes. Kept by the launcher's own thread: the call never waits on the scheduler.
  virtual std::map<std::string, std::string> nodeStates() const { return {}; }
  // False while the scheduler has not started the workers (a pending job): heartbeats are not
  // expected yet.
  virtual bool workersRunning() const { return true; }
};

// Workers as child processes of this one (fork/exec), one intra-op thread each
// (OMP_NUM_THREADS=1, OPENBLAS_NUM_THREADS=1).
std::unique_ptr<Launcher> makeLocalLauncher();

// Test only: true when $SAILOR_TEST_FAULT equals `step` ("rendezvous", "launch", "pump",
// "store", "disk-full"), where the step then throws as if its system call or store write had
// failed (disk-full: every store write from then on), so that tests/runtime can fail a named
// step of a started run (docs/runtime.md "Failure handling").
// Always false when the variable is unset.
bool testFault(const char* step);
// The message of such an injected fault: "injected fault in step <step> (SAILOR_TEST_FAULT)".
std::string testFaultMessage(const char* step);

}  // namespace sailor::runner
