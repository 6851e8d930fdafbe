// What the controller's steps (controller.cpp) and the elastic reconfiguration
// (elastic_reconfig.hpp) share: a worker as the controller supervises it, how a run ends, and
// how a figure of a worker's report reads. Only the controller's thread touches these.
#pragma once

#include <unistd.h>

#include <chrono>
#include <deque>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "launcher.hpp"
#include "sailor/runs/run_events.hpp"
#include "sailor/runs/run_spec.hpp"

namespace sailor::runner {

using Clock = std::chrono::steady_clock;

inline double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// A number of a worker's report: 0 when absent; the worker writes a figure that is not finite
// as "nan", "inf" or "-inf" (JSON has no such numbers); anything else (null) reads as NaN.
inline double reportNumber(const nlohmann::json& report, const char* key) {
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

// One worker as the controller supervises it.
struct SupervisedWorker {
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
  std::string node;  // the node it runs on (its ready or reconfigured report)
  // Elasticity: a worker is active while it belongs to the current world (place.rank is then its
  // rank); one that left a reconfigured world, or was lost, stays here (its index is the
  // launcher's) so that its end is still reaped.
  bool active = true;
  bool lost = false;                   // died or stopped reporting: its GPU is gone
  bool silent = false;                 // killed by the controller because it stopped reporting
  bool leaving = false;                // told to hand its state over and leave
  bool standby = false;                // started ahead of a reconfiguration, waiting for its place
  bool joined = false;                 // joined the world of the reconfiguration under way
  bool noticed = false;                // got a preemption notice: its GPU goes, its state moves
  std::optional<int> state_iteration;  // after a pause or interruption: its state's iteration
  nlohmann::json reconfigured;         // its report of joining the new world
  int generation = 0;                  // the world it last reported joining (0: the first)
  Clock::time_point launched_at = Clock::now(), first_heard;
  // One command on the worker's stdin (elastic.hpp); nothing where it has none.
  void send(const nlohmann::json& command) {
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
  const SupervisedWorker* worker = nullptr;
};

inline Ending failure(std::string message, const SupervisedWorker* worker = nullptr) {
  return Ending{RunStatus::Failed, std::move(message), worker};
}

}  // namespace sailor::runner
