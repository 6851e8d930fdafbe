// The controller behind `sailor run`: checks the run before any process starts, hosts the c10d
// rendezvous store, launches one sailor-worker per rank, supervises them (exit status and
// heartbeats), turns their reports into the run's events (JSON lines on stdout, one writer) and
// records everything in the run store. docs/runtime.md has the event schema; controller.cpp
// opens with a map of its steps, launcher.hpp is where workers are started.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "launcher_slurm.hpp"
#include "sailor/runs/run_events.hpp"
#include "sailor/runs/run_spec.hpp"
#include "sailor/scenario/availability.hpp"
#include "zone_network.hpp"

namespace sailor::runner {

// The planner's best plan for the job on `available` GPUs, as the run's workers would train it
// (same job, global batch and settings); none, with why in `why`, when no plan fits.
using Replanner =
    std::function<std::optional<RunSpec>(const Availability& available, std::string& why)>;

struct ControllerOptions {
  std::string worker_path;            // sailor-worker binary
  std::string store_path;             // run store (SQLite)
  std::string name;                   // run name shown in `sailor runs list`
  int max_local_processes = 8;        // refuse plans needing more processes on this machine
  double heartbeat_timeout_s = 5;     // a worker silent this long has stopped reporting
  int collective_timeout_s = 60;      // c10d timeout inside workers
  std::vector<std::string> warnings;  // emitted as warning events right after run_started
  std::string backend;  // resolved backend for the workers (resolveBackend); empty: spec.backend
  // "local" (default) or "slurm": a Slurm run's directory (run_dir) already holds the spec, the
  // token and the batch script (sailor.sbatch) that the launcher submits; it stays after the
  // run (the events files are what `sailor runs attach` reads).
  std::string launcher = "local";
  std::string run_dir;
  // A Slurm run's job, for the workers an elastic run starts later as job steps in it
  // (launcher_slurm.hpp): each component's pool and tasks, and what the batch script gives every
  // worker's environment (the token file, the cluster's interface).
  std::vector<SlurmComponent> slurm_components;
  std::vector<std::pair<std::string, std::string>> slurm_worker_env;
  // Checkpoints (docs/checkpoints.md): after iteration i with
  // (i + 1) % checkpoint_every == 0 (0: none), keeping the checkpoint_keep newest complete ones,
  // under RunStore::checkpointDir(<run id>) of the store_path's store.
  int checkpoint_every = 0;
  int checkpoint_keep = 2;
  // Elasticity (docs/elasticity.md; local runs and Gloo runs on Slurm): with `replan` set, a worker
  // that dies or stops reporting no longer ends the run: its GPU counts as gone, the planner
  // re-plans on what is left and the run goes on in place. `trace`: availability replayed during
  // the run, from the moment every worker is ready (its first row is the GPUs the run starts with).
  Replanner replan;
  std::vector<AvailabilityStep> trace;
  // `--emulate-zones` (local runs, docs/emulated-zones.md): the zones and their links;
  // none: every worker on the run's private loopback.
  std::optional<ZoneLayout> emulate_zones;
  // The prediction for the hardware the run uses (run_main's localPrediction), recorded in
  // run_started; none: prediction_note says why.
  std::optional<RunPrediction> prediction;
  std::string prediction_note;
};

// Exit codes of `sailor run`.
constexpr int kExitRunOk = 0;
constexpr int kExitRunInput = 2;        // bad input: nothing was started
constexpr int kExitRunFailed = 4;       // a worker died, stopped reporting or reported an error,
                                        // the loss diverged, or a step of the controller failed
                                        // after the run started
constexpr int kExitRunNotRecorded = 5;  // the run store could not be opened or written before
                                        // the run was created: nothing was started
constexpr int kExitRunStopped = 130;    // interrupted (SIGINT/SIGTERM): workers stopped

// Where runs' private directories (the workers' spec, the rendezvous file) are created: $TMPDIR
// when it is an absolute path of a directory in UTF-8 (the rendezvous path is printed in
// events), else /tmp.
std::string runDirParent();
// Removes the private directories under runDirParent() that belong to this user and whose
// controller is gone (controllerGone of the owner file each one holds): what a killed controller
// left behind. Returns how many it removed.
int sweepRunDirs();

// Runs `spec` to completion. `emit` receives every event (sailor/runs/run_events.hpp's toJson; the
// CLI prints it as one line). plan/scenario/job JSON are stored with the run. Returns an exit code
// above. Throws (InputError, StoreError) only before the run is created in the store, with no
// event emitted (a StoreError: exit kExitRunNotRecorded); once created, every path ends with a
// finished event. Before creating the run it sweeps what killed controllers left (sweepRunDirs,
// RunStore::failOrphanedRuns).
int runController(const RunSpec& spec, const nlohmann::json& scenario, const nlohmann::json& job,
                  const ControllerOptions& options,
                  const std::function<void(const nlohmann::json&)>& emit);

// `sailor run --resume ID`: restarts the stopped or failed local run ID of the store from its
// last complete checkpoint, in the same run record (its plan and spec; `iterations` > 0 sets
// a new planned count). Throws InputError, with nothing changed, for an unknown id, a run that
// is running or finished, a cluster run, or one without a complete checkpoint. Returns an exit
// code above. options.checkpoint_every < 0 (checkpoint_keep < 1): the run's own settings.
int resumeController(const std::string& store_path, std::int64_t run_id, int iterations,
                     ControllerOptions options,
                     const std::function<void(const nlohmann::json&)>& emit);

// `sailor runs attach ID`: takes over the running cluster run ID of the store whose controller
// died: reads its workers' events files from the start, keeps the iterations the store lacks
// (none twice), follows the job until it ends and records how. Throws InputError when the run
// is not a running cluster run (nothing changed). Returns an exit code above.
int attachController(const std::string& store_path, std::int64_t run_id,
                     const std::function<void(const nlohmann::json&)>& emit);

}  // namespace sailor::runner
