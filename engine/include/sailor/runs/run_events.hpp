// The runtime's event protocol: what `sailor run` prints on stdout, one JSON object per line,
// and what the run store keeps in its events table (docs/runtime.md "Events"). Typed values for
// each event kind, the one encoder the controller writes them with (toJson) and the decoder that
// turns one line (or one stored payload) back into them (parseRunEvent, runEventFromJson). Both
// live here so that nothing but this file defines the wire format. Qt-free; the controller
// (runner/src/launch/controller.cpp) produces these types, the studio's run client
// (app/studio/run_client.hpp) and run monitor (widgets/run_monitor.hpp) consume them.
//
// Not here: the worker-to-controller messages (internal, docs/runtime.md), and anything that
// starts processes or reads the store.
//
// Decoding is strict about the fields the schema promises (a missing or mistyped one is an
// InputError naming it, e.g. "iteration.ranks[1].peak_memory_bytes") and lenient about fields
// it does not know (the protocol may grow; an older studio keeps working). A diverged loss or
// grad norm (NaN, or infinite) is encoded as null (JSON has no NaN) and decodes as NaN.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/planning/plan.hpp"
#include "sailor/runs/run_spec.hpp"

namespace sailor {

struct IterationRecord;  // sailor/runs/run_store.hpp

// A run's state: Running while the controller works, then one of the three ends, as the run
// store's status column and the finished event's status say it.
enum class RunStatus { Running, Finished, Failed, Stopped };
const char* runStatusName(RunStatus s);                // "running", "finished", "failed", "stopped"
RunStatus runStatusFromName(const std::string& name);  // throws InputError on an unknown name

// One stage of a run's prediction, per iteration, in the terms a run measures (docs/closed-loop.md
// "Prediction against measurement"): compute is the forward and backward of the microbatches the
// stage's slowest replica runs (tensor-parallel all-reduces included, as the profile measures
// them) plus its optimizer step; communication is the rest of the iteration (point-to-point
// transfers, data-parallel sync and the waiting in between), so that the two add up to the
// predicted iteration.
struct PredictedStage {
  int stage = 0;
  double compute_seconds = 0;
  double communication_seconds = 0;
  double forward_seconds = 0;   // per microbatch, the stage's slowest replica
  double backward_seconds = 0;  // per microbatch
  double optimizer_seconds = 0;
  int microbatches = 0;                // the stage's slowest replica's, per iteration
  std::int64_t peak_memory_bytes = 0;  // the largest of its replicas' (each of its GPUs)
};

// Peak bytes on each GPU of one replica of one stage.
struct PredictedReplicaMemory {
  int stage = 0;
  int replica = 0;
  std::int64_t bytes = 0;
};

// The prediction a run records for the hardware it really runs on: the simulator on the local
// device's profile (`sailor profile`), the run's plan structure (stages, layers, replicas, tp,
// microbatch) on that device, and the model, sequence length and precision the workers train.
struct RunPrediction {
  std::string device;       // the GPU type predicted for: the profile's ("cpu-amd-epyc")
  std::string profile;      // the profile's directory (absolute)
  std::string model;        // the profile's model ("OPT-350M-runtime-h256-s64")
  std::string measured_at;  // when the profile was measured ("2026-12-04T18:02:11Z"), or ""
  // With emulated zones, the links between them the prediction used ("emulated zones: zone-a ->
  // zone-b at 0.025 GB/s, ..."); "" when every replica was predicted in the profile's one zone.
  std::string links;
  double iteration_seconds = 0;
  // Where the iteration goes on the busiest stage (the simulator's TimeBreakdown).
  int busiest_stage = 0;
  double compute_seconds = 0;
  double bubble_seconds = 0;
  double p2p_seconds = 0;
  double dp_sync_seconds = 0;
  double optimizer_seconds = 0;
  std::vector<PredictedStage> stages;          // by stage
  std::vector<PredictedReplicaMemory> memory;  // by stage, then replica
  std::int64_t peak_memory_bytes = 0;          // the largest of any GPU
  bool fits = true;                            // every GPU within the device's memory
  // "predicted for cpu-amd-epyc (profile DIR, measured 2026-12-04)": what the figures are for.
  std::string label() const;
};

// run_started: the run as the controller built it, before any worker starts.
struct RunStartedEvent {
  std::string name;               // run name (default: the plan file's name)
  int world_size = 0;             // processes (one per GPU of the plan)
  std::string backend_requested;  // "auto" / "gloo" / "nccl"
  Plan plan;
  RuntimeModel model;         // the model the workers build (scaled to the machine)
  int global_batch_size = 0;  // sequences per iteration
  int microbatches = 0;       // the most a pipeline runs: ceil(G / (b D))
  int data_parallel = 0;      // replicas per stage (pipelines)
  int iterations = 0;         // planned
  std::string data;           // "synthetic" or the absolute path of a text or token file
  std::string data_format;    // "synthetic", "text" or "tokens" (RunSpec::data_format)
  std::string dtype;          // "float32" / "float64": parameters and optimizer state
  // The job's training settings as the workers apply them (absent in runs recorded before they
  // were: fp32, adam, none).
  Precision precision = Precision::Fp32;
  Optimizer optimizer = Optimizer::Adam;
  Recompute recompute = Recompute::None;
  std::string store;  // path of the run store the run is recorded in
  // The prediction for the hardware the run really uses (absent in runs recorded before it
  // was, and when no profile of the local device is found: then prediction_note says why and
  // how to get one).
  std::optional<RunPrediction> prediction;
  std::string prediction_note;
};

// warning: from the controller, or a line of a worker's stderr (then `rank` is set).
struct RunWarningEvent {
  std::string message;  // may be empty (a blank stderr line)
  std::optional<int> rank;
};

// One worker process as workers_started lists it.
struct RunWorker {
  RankPlacement place;  // rank, stage, replica, tp_rank, tp, gpu_type, zone
  std::int64_t pid = 0;
};

// workers_started: every worker process has been launched (not yet joined its groups).
struct WorkersStartedEvent {
  std::string store;  // the rendezvous store: "file:PATH" (a local run's FileStore)
  int generation = 0;
  std::vector<RunWorker> workers;  // by rank
};

// workers_ready: every worker has formed its process groups and built its model.
struct WorkersReadyEvent {
  std::string backend;               // "gloo" / "nccl"
  std::vector<std::string> devices;  // per rank: "cpu", "cuda:0", ...
  double startup_seconds = 0;        // from the controller's start to the last worker ready
};

// Per stage of one iteration: the slowest rank of the stage.
struct RunStageTimes {
  int stage = 0;
  double compute_seconds = 0;
  double communication_seconds = 0;  // waiting on transfers and collectives
};

// Per rank of one iteration.
struct RunRankTimes {
  int rank = 0;
  int stage = 0;
  int replica = 0;
  double seconds = 0;                  // the rank's whole iteration
  double compute_seconds = 0;          // seconds minus the three communication figures
  double p2p_seconds = 0;              // pipeline sends/receives
  double tp_seconds = 0;               // tensor-parallel all-reduces
  double dp_seconds = 0;               // data-parallel gradient all-reduce (and tied embeddings)
  std::int64_t peak_memory_bytes = 0;  // peak resident set of the process (CPU)
};

// iteration: every rank has reported iteration `iteration`.
struct IterationEvent {
  int iteration = 0;             // 0-based
  double loss = 0;               // mean over the global batch; NaN when the runtime printed null
  double iteration_seconds = 0;  // the slowest rank's
  double tokens_per_second = 0;
  double learning_rate = 0;
  double grad_norm = 0;               // global norm before clipping; NaN when printed as null
  std::vector<RunStageTimes> stages;  // by stage
  std::vector<RunRankTimes> ranks;    // by rank
};

// error: the run failed. For a worker, which one and the end of its stderr.
struct RunErrorEvent {
  std::string message;
  std::optional<int> rank, stage, replica, tp_rank;  // all set for a worker, none otherwise
  std::vector<std::string> stderr_tail;              // oldest first
};

// finished: the last event of every run that started.
struct RunFinishedEvent {
  RunStatus status = RunStatus::Finished;  // Finished, Failed or Stopped (never Running)
  int iterations_done = 0;
  double seconds = 0;  // wall time of the controller's run
  std::string error;   // set when Failed
};

// job_state: the scheduler's job of a cluster run (sailor run --launcher slurm): once when it was
// submitted (or attached to), then at every change of its state or pending reason.
struct JobStateEvent {
  std::string launcher;  // "slurm"
  std::string job_id;    // the scheduler's id, "13"
  // SUBMITTED or ATTACHED (said by the controller, with run_dir), then the scheduler's own:
  // PENDING, RUNNING, COMPLETING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ...; GONE when the
  // scheduler no longer knows the job. Kept as text: a state this build does not know is shown
  // as it came.
  std::string state;
  std::string reason;   // why it is pending ("Resources", "Priority"); "" when none
  std::string run_dir;  // the run directory on the cluster; set with SUBMITTED and ATTACHED
  static constexpr std::size_t kMaxIdLength = 64;      // launcher, job_id, state
  static constexpr std::size_t kMaxTextLength = 4096;  // reason, run_dir
};
// True for the scheduler states after which the job runs no more (COMPLETED, FAILED,
// CANCELLED, TIMEOUT, GONE, ...): every state but SUBMITTED, ATTACHED, PENDING, RUNNING,
// CONFIGURING, COMPLETING, SUSPENDED, REQUEUED and RESIZING.
bool jobStateIsFinal(const std::string& state);

// checkpoint: every shard of a step is on disk and the controller has written its manifest (the
// step is now a complete checkpoint, docs/checkpoints.md).
struct CheckpointEvent {
  int iteration = 0;         // the last iteration whose update it holds
  std::string directory;     // the step directory: <checkpoint dir>/step-<iteration>
  int shards = 0;            // files, one per worker of replica 0
  std::int64_t bytes = 0;    // their total size
  double write_seconds = 0;  // the slowest shard's background write (serialise, write, fsync)
  std::vector<int> removed;  // older complete checkpoints deleted by the retention count
};

// resumed: `sailor run --resume` restarted a stopped or failed run from a checkpoint (in place
// of run_started: the run keeps its record, plan and spec).
struct ResumedEvent {
  int from_iteration = 0;        // the first iteration trained now: the checkpoint's + 1
  std::string checkpoint;        // the step directory restored
  int iterations = 0;            // planned, as the run now has it
  int iterations_discarded = 0;  // stored iterations after the checkpoint, removed to be redone
};

// reconfigured: the run changed its world in place (docs/elasticity.md): the
// workers that stay keep running, drop the old process groups, form the new world's, and
// take the parameters and optimizer state of their new shards from the workers that held them
// (or from the last checkpoint when no holder is left). Phases in seconds, each the slowest
// worker's where workers do it: the planner's search (replan), finishing the old groups
// (teardown), starting the workers that join (launch; 0 when none), forming the new groups
// (group_setup), building the new stage models and optimizers (rebuild), moving the state
// (transfer); total is the controller's wall time from the pause to the new world's
// readiness.
struct ReconfiguredEvent {
  std::string cause;       // "trace", "resize" or "worker_lost"
  std::string detail;      // what happened, in words ("trace row 2 at 30 s: 3 A100-40 in zone-a")
  int generation = 0;      // the new world's
  int from_iteration = 0;  // the first iteration the new world trains
  Plan old_plan;
  Plan new_plan;
  int old_world_size = 0;
  int new_world_size = 0;
  std::string state_source;      // "peers" or "checkpoint"
  int iterations_lost = 0;       // trained iterations redone (0 when peers held the state)
  std::int64_t state_bytes = 0;  // parameters and optimizer state received by the new world
  double replan_seconds = 0;
  double teardown_seconds = 0;
  double launch_seconds = 0;
  double group_setup_seconds = 0;
  double rebuild_seconds = 0;
  double transfer_seconds = 0;
  double total_seconds = 0;
};

// paused: the resources now available cannot hold the job (no plan fits); the workers wait,
// holding their state, until resources return (then a reconfigured event follows).
struct PausedEvent {
  std::string cause;   // as ReconfiguredEvent's
  std::string reason;  // why no plan fits, in words
  int iteration = 0;   // the next iteration to train
};

using RunEventBody =
    std::variant<RunStartedEvent, RunWarningEvent, WorkersStartedEvent, WorkersReadyEvent,
                 IterationEvent, RunErrorEvent, RunFinishedEvent, JobStateEvent, CheckpointEvent,
                 ResumedEvent, ReconfiguredEvent, PausedEvent>;

// One decoded event: the fields every event carries, and its kind's own.
struct RunEvent {
  std::int64_t run_id = 0;
  std::string time;  // UTC ISO-8601 with milliseconds, as printed
  RunEventBody body;

  // The "event" field: "run_started", "warning", "workers_started", "workers_ready",
  // "iteration", "error", "finished", "job_state", "checkpoint", "resumed", "reconfigured",
  // "paused".
  const char* kind() const;
  template <typename T>
  const T* as() const {
    return std::get_if<T>(&body);
  }
};

// The event as one JSON object, every field of docs/runtime.md "Events" including `event`,
// `run_id` and `time`: what the controller prints (dumped on one line) and stores. Optional
// fields are written when set: a warning's rank; an error's rank, stage, replica and tp_rank,
// and its stderr_tail when it names a worker (rank set); a finished event's error when it failed
// or carries one. run_started always writes precision, optimizer and recompute, and its
// prediction (an object) or its prediction_note when set.
nlohmann::json toJson(const RunEvent& event);
nlohmann::json toJson(const RunPrediction& prediction);
// Throws InputError naming the field ("run_started.prediction.stages[0].compute_seconds").
RunPrediction runPredictionFromJson(const nlohmann::json& j, const std::string& path);

// Decodes one line of `sailor run`'s stdout (surrounding whitespace ignored). Throws InputError
// naming the field for malformed lines: not JSON ("event line", the parse error), not an object,
// a missing or unknown "event" kind, a missing or mistyped field of the kind
// ("workers_started.workers[0].pid").
RunEvent parseRunEvent(std::string_view line);
// The same from a parsed object (a stored event's payload).
RunEvent runEventFromJson(const nlohmann::json& j);

// An iteration event as the run store's row keeps it: loss, seconds and tokens/s in the row's
// columns; stages, ranks, learning rate and grad norm (null when NaN) in its detail.
IterationRecord iterationRecord(std::int64_t run_id, const IterationEvent& event);
// An iteration row of the run store as the iteration event it was recorded from (the inverse of
// iterationRecord). Throws InputError naming the field when the detail lacks stages or ranks; a
// row without learning rate or grad norm reads them as NaN.
IterationEvent iterationFromRecord(const IterationRecord& record);

}  // namespace sailor
