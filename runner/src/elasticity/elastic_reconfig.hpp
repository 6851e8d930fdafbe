// Elastic reconfiguration of a run in place (a local run, or a Gloo run on Slurm)
// (docs/elasticity.md): the part of the controller that moves the running workers from one world
// (plan, ranks, process groups) to the next without stopping the run. The worker's side of it is
// elastic.hpp.
//
//   Training -> a trigger (a row of the availability trace, a `sailor runs resize` request, a
//   lost worker, a worker's preemption notice) -> Preparing: the workers the new plan needs beyond
//   the survivors start while the run still trains -> Draining: every worker finishes the iteration
//   it is in and holds still ("paused"), or reports the iteration its state is at when its world
//   broke
//   ("interrupted") -> Moving: each worker is told its place in the new world (or to leave), new
//   workers start, state moves from the survivors that hold it (or from the last checkpoint of
//   the running plan) -> Training, with a reconfigured event and the new world's
//   workers_started. When no plan fits what is left, the run waits (Waiting, a paused event)
//   until a trigger brings GPUs back.
//
// Contract: the controller (controller.cpp) owns the workers, the spec they train under, the
// iterations, the events and the store, and lends them through ReconfigHost. ElasticReconfig
// owns the GPUs the job has, the trace's progress, the resize socket, the reconfiguration under
// way and the generations' spec files, and it sets the elastic fields of the workers
// (SupervisedWorker). The controller calls step() once per round of its supervision loop,
// workerLost() for a worker that died or stopped reporting, and startTrace() once every worker
// of the first world is ready. An Ending that step() or workerLost() returns ends the run; what
// they throw (a store write, a launch, a file write) ends it as a failure of the controller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "launch/controller.hpp"
#include "launch/launcher.hpp"
#include "launch/supervised_worker.hpp"
#include "sailor/runs/run_events.hpp"
#include "sailor/runs/run_spec.hpp"
#include "sailor/scenario/availability.hpp"

namespace sailor::runner {

// What the reconfiguration uses of the controller's run.
class ReconfigHost {
 public:
  ReconfigHost() = default;
  ReconfigHost(const ReconfigHost&) = delete;
  ReconfigHost& operator=(const ReconfigHost&) = delete;
  virtual ~ReconfigHost() = default;

  // Every worker the run has launched, in launch order (the launcher's indices). The
  // reconfiguration appends the workers it starts.
  virtual std::vector<SupervisedWorker>& workers() = 0;
  // The spec the current world trains under.
  virtual const RunSpec& worldSpec() const = 0;
  // How many iterations the store holds: the next one the run reports.
  virtual int iterationsDone() const = 0;
  // Stores the event with the run, then prints it.
  virtual void event(RunEventBody body) = 0;
  // Stores the iterations from iterationsDone() through `last` that every surviving worker
  // reported (a lost worker's report missing), then forgets every report still pending.
  virtual void keepIterationsThrough(int last) = 0;
  // The workers train under `spec`, the new world's, from now on.
  virtual void enterWorld(const RunSpec& spec) = 0;
  // Stores and prints `reconfigured`, then `started`; the run goes on from iteration `from`. A
  // `from` below iterationsDone() (state restored from a checkpoint) discards the stored
  // iterations from `from` on, in the same store write as `reconfigured`.
  virtual void recordMove(ReconfiguredEvent reconfigured, WorkersStartedEvent started,
                          int from) = 0;
};

// Where a reconfiguration finds the run's files and the workers' meeting place.
struct ReconfigSetup {
  std::string run_dir;         // the run's private directory: new worlds' specs, join files, socket
  std::string rendezvous;      // the store address the workers meet at (--store)
  std::string spec_file;       // the first world's spec, as the workers read it
  std::string checkpoint_dir;  // the run's checkpoints; empty: the run keeps none
  std::string store_id;        // a checkpoint restored by a move is this store's (storeId())
  std::int64_t run_id = 0;     // and this run's
  // A Slurm run: the workers' commands go through the run's store (Launcher::sendControl), the
  // store is hosted by the first worker (which keeps a place in every world), workers that
  // join start as job steps and meet at the address in `rendezvous` ("tcp:<file>"), and a
  // resize stays within the job's components.
  bool cluster = false;
};

class ElasticReconfig {
 public:
  // Opens the resize socket, <run_dir>/control.sock (none when the path is too long for a Unix
  // socket or the socket cannot be made: the run goes on without resize). The job has the GPUs
  // of the trace's first row, or the plan's without a trace. `host`, `launcher` and `options`
  // outlive this object.
  ElasticReconfig(ReconfigHost& host, Launcher& launcher, const ControllerOptions& options,
                  ReconfigSetup setup);
  ~ElasticReconfig();  // closes the resize socket
  ElasticReconfig(const ElasticReconfig&) = delete;
  ElasticReconfig& operator=(const ElasticReconfig&) = delete;

  // Every worker of the first world is ready: the trace's clock starts.
  void startTrace() { trace_start_ = Clock::now(); }
  // One round: answers a resize request, takes the trace rows that are due, and moves the
  // reconfiguration under way on when the workers are where its next phase needs them.
  std::optional<Ending> step();
  // `w`, a worker of the run, died or stopped reporting (`why` names it): its GPU is gone and
  // the run re-plans on what is left. Ends the run when it was moving to a new world or when no
  // other worker is left.
  std::optional<Ending> workerLost(SupervisedWorker& w, const std::string& why);
  // `w` reported a preemption notice (`signal`): its GPU goes, and the run re-plans on what is
  // left at the next round it can (training or waiting), `w` handing its state over like a
  // worker that leaves; within the notice's grace, no iteration is lost.
  void notice(SupervisedWorker& w, const std::string& signal);
  // The run is ending (stopped or failed): tells every worker still running to end at once.
  void stopWorkers() noexcept;

 private:
  enum class Phase { Training, Preparing, Draining, Waiting, Moving };
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

  std::vector<SupervisedWorker>& workers() { return host_.workers(); }
  std::vector<SupervisedWorker*> activeWorkers();
  // One command to `w`: on its stdin, or through the launcher (a cluster run's store).
  void send(SupervisedWorker& w, const nlohmann::json& command);
  // What a joining worker's --store is: the local run's file, or the address rank 0 published.
  std::string storeArgument() const;
  // A resize's GPUs beyond what a Slurm run's job holds: the reason, or empty.
  std::string beyondAllocation(const Availability& next) const;
  void openControlSocket();
  std::optional<Ending> serveControl();
  std::optional<Ending> trigger(const std::string& cause, const std::string& detail);
  bool startStandby(const RunSpec& next);
  std::optional<Ending> afterPause();
  std::optional<Ending> startMove();
  std::string assignPlaces(const RunSpec& old, const RunSpec& next,
                           const std::vector<SupervisedWorker*>& survivors,
                           std::vector<SupervisedWorker*>& taker, std::vector<bool>& taken);
  // A notice for `w` (cause "preemption" or "node"), acted on at the next round that can.
  void takeNotice(SupervisedWorker& w, const std::string& cause, const std::string& why);
  // A Slurm run's nodes (Launcher::nodeStates): the workers on a draining or failing node get a
  // notice, those on a node that is down or does not respond are lost; a drained node that
  // returns gives its GPUs back.
  std::optional<Ending> watchNodes();
  void enterNewWorld(const RunSpec& next, const std::vector<SupervisedWorker*>& survivors,
                     const std::vector<SupervisedWorker*>& taker,
                     const std::vector<WorkerCommand>& commands);
  void finishMove();

  ReconfigHost& host_;
  Launcher& launcher_;
  const ControllerOptions& options_;
  std::string run_dir_, rendezvous_, checkpoint_dir_, store_id_;
  std::int64_t run_id_;
  bool cluster_ = false;
  Phase phase_ = Phase::Training;
  Availability available_;  // the GPUs the job has now
  std::size_t next_trace_row_ = 1;
  std::optional<Clock::time_point> trace_start_;  // when every worker was first ready
  std::optional<Reconfiguration> reconf_;
  int generation_ = 0;
  std::vector<std::string> spec_files_;                       // by generation
  int control_fd_ = -1;                                       // `sailor runs resize`'s socket
  std::vector<std::pair<std::string, std::string>> notices_;  // (cause, detail) not acted on yet
  std::map<std::string, Availability> node_out_;  // GPUs of drained nodes, until they return
};

}  // namespace sailor::runner
