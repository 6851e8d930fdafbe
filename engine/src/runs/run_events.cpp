// The runtime's event protocol (sailor/runs/run_events.hpp): one JSON object per event, encoded and
// decoded here and nowhere else.
//
//   run status names ....... runStatusName, runStatusFromName
//   decoding helpers ....... text, numberOrNull, optionalInt, array (field paths in errors)
//   decoders, per kind ..... runStarted, warning, workersStarted, workersReady, iteration
//                            (iterationParts: its stages and ranks), error, finished, jobState,
//                            checkpoint, resumed, reconfigured, paused
//   encoders, per kind ..... the Encoder visitor: one operator() per kind, the inverse of the
//                            decoder of that kind
//   entry points ........... RunEvent::kind, toJson, runEventFromJson, parseRunEvent
//   store rows ............. iterationRecord (event -> row), iterationFromRecord (row -> event)
//
// The encoder writes exactly the fields the decoder reads (docs/runtime.md "Events"), with
// non-finite loss and grad norm as null; round-trip tests in tests/engine/test_run_events.cpp.
#include "sailor/runs/run_events.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/runs/run_store.hpp"

namespace sailor {

using nlohmann::json;
namespace ju = json_util;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string fieldOf(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

// Any string, empty included (json_util::getString refuses empty ones; a warning relays blank
// stderr lines).
std::string text(const json& obj, const std::string& key, const std::string& path) {
  const json& v = ju::require(obj, key, path);
  if (!v.is_string()) throw InputError(fieldOf(path, key), ju::describe(v), "a string");
  return v.get<std::string>();
}

// A finite number, or null read as NaN: how the runtime prints a diverged loss.
double numberOrNull(const json& obj, const std::string& key, const std::string& path) {
  const json& v = ju::require(obj, key, path);
  if (v.is_null()) return kNaN;
  return ju::getNumber(obj, key, path);
}

std::optional<int> optionalInt(const json& obj, const std::string& key, const std::string& path) {
  if (!obj.contains(key) || obj.at(key).is_null()) return std::nullopt;
  return ju::getInt32(obj, key, path, 0);
}

const json& array(const json& obj, const std::string& key, const std::string& path) {
  const json& v = ju::require(obj, key, path);
  ju::requireArray(v, fieldOf(path, key));
  return v;
}

std::string item(const std::string& path, const std::string& key, std::size_t i) {
  return fieldOf(path, key) + "[" + std::to_string(i) + "]";
}

RunStartedEvent runStarted(const json& j, const std::string& p) {
  RunStartedEvent e;
  e.name = text(j, "name", p);
  e.world_size = ju::getInt32(j, "world_size", p, 1);
  e.backend_requested = ju::getString(j, "backend_requested", p);
  try {
    e.plan = Plan::fromJson(ju::require(j, "plan", p));
  } catch (const InputError& err) {
    throw withContext(err, fieldOf(p, "plan"));
  }
  e.model = RuntimeModel::fromJson(ju::require(j, "model", p), fieldOf(p, "model"));
  e.global_batch_size = ju::getInt32(j, "global_batch_size", p, 1);
  e.microbatches = ju::getInt32(j, "microbatches", p, 1);
  e.data_parallel = ju::getInt32(j, "data_parallel", p, 1);
  e.iterations = ju::getInt32(j, "iterations", p, 0);
  e.data = ju::getString(j, "data", p);
  // Runs recorded before token files: synthetic or a text file.
  e.data_format =
      ju::getStringOr(j, "data_format", p, e.data == "synthetic" ? "synthetic" : "text");
  e.dtype = ju::getString(j, "dtype", p);
  e.precision = parsePrecision(ju::getStringOr(j, "precision", p, "fp32"), fieldOf(p, "precision"));
  e.optimizer = parseOptimizer(ju::getStringOr(j, "optimizer", p, "adam"), fieldOf(p, "optimizer"));
  e.recompute = parseRecompute(ju::getStringOr(j, "recompute", p, "none"), fieldOf(p, "recompute"));
  e.store = ju::getString(j, "store", p);
  if (j.contains("prediction") && !j.at("prediction").is_null())
    e.prediction = runPredictionFromJson(j.at("prediction"), fieldOf(p, "prediction"));
  if (j.contains("prediction_note")) e.prediction_note = text(j, "prediction_note", p);
  return e;
}

RunWarningEvent warning(const json& j, const std::string& p) {
  RunWarningEvent e;
  e.message = text(j, "message", p);
  e.rank = optionalInt(j, "rank", p);
  return e;
}

WorkersStartedEvent workersStarted(const json& j, const std::string& p) {
  WorkersStartedEvent e;
  e.store = ju::getString(j, "store", p);
  e.generation = ju::getInt32(j, "generation", p, 0);
  const json& list = array(j, "workers", p);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string wp = item(p, "workers", i);
    const json& w = list[i];
    ju::requireObject(w, wp);
    RunWorker r;
    r.place.rank = ju::getInt32(w, "rank", wp, 0);
    r.place.stage = ju::getInt32(w, "stage", wp, 0);
    r.place.replica = ju::getInt32(w, "replica", wp, 0);
    r.place.tp_rank = ju::getInt32(w, "tp_rank", wp, 0);
    r.place.tp = ju::getInt32(w, "tp", wp, 1);
    r.place.gpu_type = ju::getString(w, "gpu_type", wp);
    r.place.zone = ju::getString(w, "zone", wp);
    // 0: a cluster run's worker, started by the scheduler on its node (no pid of this host).
    r.pid = ju::getInt(w, "pid", wp, 0);
    e.workers.push_back(std::move(r));
  }
  return e;
}

WorkersReadyEvent workersReady(const json& j, const std::string& p) {
  WorkersReadyEvent e;
  e.backend = ju::getString(j, "backend", p);
  const json& devices = array(j, "devices", p);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (!devices[i].is_string())
      throw InputError(item(p, "devices", i), ju::describe(devices[i]), "a string");
    e.devices.push_back(devices[i].get<std::string>());
  }
  e.startup_seconds = ju::getNonNegative(j, "startup_seconds", p);
  return e;
}

// The stages and ranks arrays of an iteration event (also an iteration row's detail).
void iterationParts(const json& j, const std::string& p, IterationEvent& e) {
  const json& stages = array(j, "stages", p);
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const std::string sp = item(p, "stages", i);
    ju::requireObject(stages[i], sp);
    RunStageTimes s;
    s.stage = ju::getInt32(stages[i], "stage", sp, 0);
    s.compute_seconds = ju::getNumber(stages[i], "compute_seconds", sp);
    s.communication_seconds = ju::getNonNegative(stages[i], "communication_seconds", sp);
    e.stages.push_back(s);
  }
  const json& ranks = array(j, "ranks", p);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::string rp = item(p, "ranks", i);
    const json& r = ranks[i];
    ju::requireObject(r, rp);
    RunRankTimes t;
    t.rank = ju::getInt32(r, "rank", rp, 0);
    t.stage = ju::getInt32(r, "stage", rp, 0);
    t.replica = ju::getInt32(r, "replica", rp, 0);
    t.seconds = ju::getNonNegative(r, "seconds", rp);
    // seconds minus the communication figures, each measured separately: may dip below zero
    // by round-off, so only finiteness is required.
    t.compute_seconds = ju::getNumber(r, "compute_seconds", rp);
    t.p2p_seconds = ju::getNonNegative(r, "p2p_seconds", rp);
    t.tp_seconds = ju::getNonNegative(r, "tp_seconds", rp);
    t.dp_seconds = ju::getNonNegative(r, "dp_seconds", rp);
    t.peak_memory_bytes = ju::getInt(r, "peak_memory_bytes", rp, 0);
    e.ranks.push_back(t);
  }
}

IterationEvent iteration(const json& j, const std::string& p) {
  IterationEvent e;
  e.iteration = ju::getInt32(j, "iteration", p, 0);
  e.loss = numberOrNull(j, "loss", p);
  e.iteration_seconds = ju::getNonNegative(j, "iteration_seconds", p);
  e.tokens_per_second = ju::getNonNegative(j, "tokens_per_second", p);
  e.learning_rate = ju::getNonNegative(j, "learning_rate", p);
  e.grad_norm = numberOrNull(j, "grad_norm", p);
  iterationParts(j, p, e);
  return e;
}

RunErrorEvent error(const json& j, const std::string& p) {
  RunErrorEvent e;
  e.message = text(j, "message", p);
  e.rank = optionalInt(j, "rank", p);
  e.stage = optionalInt(j, "stage", p);
  e.replica = optionalInt(j, "replica", p);
  e.tp_rank = optionalInt(j, "tp_rank", p);
  if (j.contains("stderr_tail") && !j.at("stderr_tail").is_null()) {
    const json& tail = array(j, "stderr_tail", p);
    for (std::size_t i = 0; i < tail.size(); ++i) {
      if (!tail[i].is_string())
        throw InputError(item(p, "stderr_tail", i), ju::describe(tail[i]), "a string");
      e.stderr_tail.push_back(tail[i].get<std::string>());
    }
  }
  return e;
}

RunFinishedEvent finished(const json& j, const std::string& p) {
  RunFinishedEvent e;
  const std::string status = ju::getString(j, "status", p);
  if (status == "finished") e.status = RunStatus::Finished;
  else if (status == "failed") e.status = RunStatus::Failed;
  else if (status == "stopped") e.status = RunStatus::Stopped;
  else
    throw InputError(fieldOf(p, "status"), "\"" + status + "\"",
                     "\"finished\", \"failed\" or \"stopped\"");
  e.iterations_done = ju::getInt32(j, "iterations_done", p, 0);
  e.seconds = ju::getNonNegative(j, "seconds", p);
  if (j.contains("error") && !j.at("error").is_null()) e.error = text(j, "error", p);
  return e;
}

// A string of at most `limit` bytes; `required`: also not empty.
std::string boundedText(const json& j, const std::string& key, const std::string& p,
                        std::size_t limit, bool required) {
  if (!required && (!j.contains(key) || j.at(key).is_null())) return {};
  std::string v = text(j, key, p);
  if (required && v.empty()) throw InputError(fieldOf(p, key), "\"\"", "a non-empty string");
  if (v.size() > limit)
    throw InputError(fieldOf(p, key), "a string of " + std::to_string(v.size()) + " bytes",
                     "at most " + std::to_string(limit));
  return v;
}

JobStateEvent jobState(const json& j, const std::string& p) {
  JobStateEvent e;
  e.launcher = boundedText(j, "launcher", p, JobStateEvent::kMaxIdLength, true);
  e.job_id = boundedText(j, "job_id", p, JobStateEvent::kMaxIdLength, true);
  e.state = boundedText(j, "state", p, JobStateEvent::kMaxIdLength, true);
  e.reason = boundedText(j, "reason", p, JobStateEvent::kMaxTextLength, false);
  e.run_dir = boundedText(j, "run_dir", p, JobStateEvent::kMaxTextLength, false);
  return e;
}

CheckpointEvent checkpoint(const json& j, const std::string& p) {
  CheckpointEvent e;
  e.iteration = ju::getInt32(j, "iteration", p, 0);
  e.directory = text(j, "directory", p);
  e.shards = ju::getInt32(j, "shards", p, 1);
  e.bytes = ju::getInt(j, "bytes", p, 0);
  e.write_seconds = ju::getNonNegative(j, "write_seconds", p);
  const json& removed = array(j, "removed", p);
  for (std::size_t i = 0; i < removed.size(); ++i) {
    const std::string at = fieldOf(p, "removed[" + std::to_string(i) + "]");
    if (!removed[i].is_number_integer() || removed[i].get<std::int64_t>() < 0 ||
        removed[i].get<std::int64_t>() > std::numeric_limits<int>::max())
      throw InputError(at, ju::describe(removed[i]), "an iteration (a non-negative integer)");
    e.removed.push_back(removed[i].get<int>());
  }
  return e;
}

ResumedEvent resumed(const json& j, const std::string& p) {
  ResumedEvent e;
  e.from_iteration = ju::getInt32(j, "from_iteration", p, 1);
  e.checkpoint = text(j, "checkpoint", p);
  e.iterations = ju::getInt32(j, "iterations", p, 0);
  e.iterations_discarded = ju::getInt32(j, "iterations_discarded", p, 0);
  return e;
}

ReconfiguredEvent reconfigured(const json& j, const std::string& p) {
  ReconfiguredEvent e;
  e.cause = boundedText(j, "cause", p, JobStateEvent::kMaxIdLength, true);
  e.detail = boundedText(j, "detail", p, JobStateEvent::kMaxTextLength, false);
  e.generation = ju::getInt32(j, "generation", p, 1);
  e.from_iteration = ju::getInt32(j, "from_iteration", p, 0);
  for (auto [key, plan] :
       {std::pair{"old_plan", &e.old_plan}, std::pair{"new_plan", &e.new_plan}}) {
    try {
      *plan = Plan::fromJson(ju::require(j, key, p));
    } catch (const InputError& err) {
      throw withContext(err, fieldOf(p, key));
    }
  }
  e.old_world_size = ju::getInt32(j, "old_world_size", p, 1);
  e.new_world_size = ju::getInt32(j, "new_world_size", p, 1);
  e.state_source = ju::getString(j, "state_source", p);
  if (e.state_source != "peers" && e.state_source != "checkpoint")
    throw InputError(fieldOf(p, "state_source"), "\"" + e.state_source + "\"",
                     "\"peers\" or \"checkpoint\"");
  e.iterations_lost = ju::getInt32(j, "iterations_lost", p, 0);
  e.state_bytes = ju::getInt(j, "state_bytes", p, 0);
  const json& phases = ju::require(j, "phases", p);
  ju::requireObject(phases, fieldOf(p, "phases"));
  const std::string pp = fieldOf(p, "phases");
  e.replan_seconds = ju::getNonNegative(phases, "replan", pp);
  e.teardown_seconds = ju::getNonNegative(phases, "teardown", pp);
  e.launch_seconds = ju::getNonNegative(phases, "launch", pp);
  e.group_setup_seconds = ju::getNonNegative(phases, "group_setup", pp);
  e.rebuild_seconds = ju::getNonNegative(phases, "rebuild", pp);
  e.transfer_seconds = ju::getNonNegative(phases, "transfer", pp);
  e.total_seconds = ju::getNonNegative(phases, "total", pp);
  return e;
}

PausedEvent paused(const json& j, const std::string& p) {
  PausedEvent e;
  e.cause = boundedText(j, "cause", p, JobStateEvent::kMaxIdLength, true);
  e.reason = boundedText(j, "reason", p, JobStateEvent::kMaxTextLength, true);
  e.iteration = ju::getInt32(j, "iteration", p, 0);
  return e;
}

// A loss or grad norm as printed: null when not finite (JSON has no NaN or infinity).
json finiteOrNull(double x) {
  return std::isfinite(x) ? json(x) : json();
}

json stagesJson(const std::vector<RunStageTimes>& stages) {
  json out = json::array();
  for (const RunStageTimes& s : stages)
    out.push_back({{"stage", s.stage},
                   {"compute_seconds", s.compute_seconds},
                   {"communication_seconds", s.communication_seconds}});
  return out;
}

json ranksJson(const std::vector<RunRankTimes>& ranks) {
  json out = json::array();
  for (const RunRankTimes& r : ranks)
    out.push_back({{"rank", r.rank},
                   {"stage", r.stage},
                   {"replica", r.replica},
                   {"seconds", r.seconds},
                   {"compute_seconds", r.compute_seconds},
                   {"p2p_seconds", r.p2p_seconds},
                   {"tp_seconds", r.tp_seconds},
                   {"dp_seconds", r.dp_seconds},
                   {"peak_memory_bytes", r.peak_memory_bytes}});
  return out;
}

// The fields of each kind, written into `out` (which already holds event, run_id and time).
struct Encoder {
  json& out;

  void operator()(const RunStartedEvent& e) const {
    out["name"] = e.name;
    out["world_size"] = e.world_size;
    out["backend_requested"] = e.backend_requested;
    out["plan"] = e.plan.toJson();
    out["model"] = e.model.toJson();
    out["global_batch_size"] = e.global_batch_size;
    out["microbatches"] = e.microbatches;
    out["data_parallel"] = e.data_parallel;
    out["iterations"] = e.iterations;
    out["data"] = e.data;
    out["data_format"] = e.data_format;
    out["dtype"] = e.dtype;
    out["precision"] = precisionName(e.precision);
    out["optimizer"] = optimizerName(e.optimizer);
    out["recompute"] = recomputeName(e.recompute);
    out["store"] = e.store;
    if (e.prediction) out["prediction"] = toJson(*e.prediction);
    if (!e.prediction_note.empty()) out["prediction_note"] = e.prediction_note;
  }
  void operator()(const RunWarningEvent& e) const {
    out["message"] = e.message;
    if (e.rank) out["rank"] = *e.rank;
  }
  void operator()(const WorkersStartedEvent& e) const {
    out["store"] = e.store;
    out["generation"] = e.generation;
    json workers = json::array();
    for (const RunWorker& w : e.workers) {
      json j = w.place.toJson();
      j["pid"] = w.pid;
      workers.push_back(std::move(j));
    }
    out["workers"] = std::move(workers);
  }
  void operator()(const WorkersReadyEvent& e) const {
    out["backend"] = e.backend;
    out["devices"] = e.devices;
    out["startup_seconds"] = e.startup_seconds;
  }
  void operator()(const IterationEvent& e) const {
    out["iteration"] = e.iteration;
    out["loss"] = finiteOrNull(e.loss);
    out["iteration_seconds"] = e.iteration_seconds;
    out["tokens_per_second"] = e.tokens_per_second;
    out["learning_rate"] = e.learning_rate;
    out["grad_norm"] = finiteOrNull(e.grad_norm);
    out["stages"] = stagesJson(e.stages);
    out["ranks"] = ranksJson(e.ranks);
  }
  void operator()(const RunErrorEvent& e) const {
    out["message"] = e.message;
    if (e.rank) out["rank"] = *e.rank;
    if (e.stage) out["stage"] = *e.stage;
    if (e.replica) out["replica"] = *e.replica;
    if (e.tp_rank) out["tp_rank"] = *e.tp_rank;
    if (e.rank) out["stderr_tail"] = e.stderr_tail;
  }
  void operator()(const RunFinishedEvent& e) const {
    out["status"] = runStatusName(e.status);
    out["iterations_done"] = e.iterations_done;
    out["seconds"] = e.seconds;
    if (e.status == RunStatus::Failed || !e.error.empty()) out["error"] = e.error;
  }
  void operator()(const JobStateEvent& e) const {
    out["launcher"] = e.launcher;
    out["job_id"] = e.job_id;
    out["state"] = e.state;
    out["reason"] = e.reason;
    if (!e.run_dir.empty()) out["run_dir"] = e.run_dir;
  }
  void operator()(const CheckpointEvent& e) const {
    out["iteration"] = e.iteration;
    out["directory"] = e.directory;
    out["shards"] = e.shards;
    out["bytes"] = e.bytes;
    out["write_seconds"] = e.write_seconds;
    out["removed"] = e.removed;
  }
  void operator()(const ResumedEvent& e) const {
    out["from_iteration"] = e.from_iteration;
    out["checkpoint"] = e.checkpoint;
    out["iterations"] = e.iterations;
    out["iterations_discarded"] = e.iterations_discarded;
  }
  void operator()(const ReconfiguredEvent& e) const {
    out["cause"] = e.cause;
    out["detail"] = e.detail;
    out["generation"] = e.generation;
    out["from_iteration"] = e.from_iteration;
    out["old_plan"] = e.old_plan.toJson();
    out["new_plan"] = e.new_plan.toJson();
    out["old_world_size"] = e.old_world_size;
    out["new_world_size"] = e.new_world_size;
    out["state_source"] = e.state_source;
    out["iterations_lost"] = e.iterations_lost;
    out["state_bytes"] = e.state_bytes;
    out["phases"] = {{"replan", e.replan_seconds},   {"teardown", e.teardown_seconds},
                     {"launch", e.launch_seconds},   {"group_setup", e.group_setup_seconds},
                     {"rebuild", e.rebuild_seconds}, {"transfer", e.transfer_seconds},
                     {"total", e.total_seconds}};
  }
  void operator()(const PausedEvent& e) const {
    out["cause"] = e.cause;
    out["reason"] = e.reason;
    out["iteration"] = e.iteration;
  }
};

}  // namespace

std::string RunPrediction::label() const {
  std::string out = "predicted for " + device + " (profile " + profile;
  if (!measured_at.empty()) out += ", measured " + measured_at.substr(0, 10);
  if (!links.empty()) out += "; " + links;
  return out + ")";
}

json toJson(const RunPrediction& p) {
  json stages = json::array(), memory = json::array();
  for (const PredictedStage& s : p.stages)
    stages.push_back({{"stage", s.stage},
                      {"compute_seconds", s.compute_seconds},
                      {"communication_seconds", s.communication_seconds},
                      {"forward_seconds", s.forward_seconds},
                      {"backward_seconds", s.backward_seconds},
                      {"optimizer_seconds", s.optimizer_seconds},
                      {"microbatches", s.microbatches},
                      {"peak_memory_bytes", s.peak_memory_bytes}});
  for (const PredictedReplicaMemory& m : p.memory)
    memory.push_back({{"stage", m.stage}, {"replica", m.replica}, {"bytes", m.bytes}});
  return {{"device", p.device},
          {"profile", p.profile},
          {"model", p.model},
          {"measured_at", p.measured_at},
          {"links", p.links},
          {"iteration_seconds", p.iteration_seconds},
          {"breakdown",
           {{"stage", p.busiest_stage},
            {"compute_seconds", p.compute_seconds},
            {"bubble_seconds", p.bubble_seconds},
            {"p2p_seconds", p.p2p_seconds},
            {"dp_sync_seconds", p.dp_sync_seconds},
            {"optimizer_seconds", p.optimizer_seconds}}},
          {"stages", stages},
          {"memory", memory},
          {"peak_memory_bytes", p.peak_memory_bytes},
          {"fits", p.fits}};
}

RunPrediction runPredictionFromJson(const json& j, const std::string& p) {
  ju::requireObject(j, p);
  RunPrediction out;
  out.device = ju::getString(j, "device", p);
  out.profile = ju::getString(j, "profile", p);
  out.model = ju::getString(j, "model", p);
  out.measured_at = text(j, "measured_at", p);
  if (j.contains("links")) out.links = text(j, "links", p);  // absent before emulated zones
  out.iteration_seconds = ju::getNonNegative(j, "iteration_seconds", p);
  const std::string bp = fieldOf(p, "breakdown");
  const json& b = ju::require(j, "breakdown", p);
  ju::requireObject(b, bp);
  out.busiest_stage = ju::getInt32(b, "stage", bp, 0);
  out.compute_seconds = ju::getNonNegative(b, "compute_seconds", bp);
  out.bubble_seconds = ju::getNonNegative(b, "bubble_seconds", bp);
  out.p2p_seconds = ju::getNonNegative(b, "p2p_seconds", bp);
  out.dp_sync_seconds = ju::getNonNegative(b, "dp_sync_seconds", bp);
  out.optimizer_seconds = ju::getNonNegative(b, "optimizer_seconds", bp);
  const json& stages = array(j, "stages", p);
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const std::string sp = item(p, "stages", i);
    const json& s = stages[i];
    ju::requireObject(s, sp);
    PredictedStage st;
    st.stage = ju::getInt32(s, "stage", sp, 0);
    st.compute_seconds = ju::getNonNegative(s, "compute_seconds", sp);
    st.communication_seconds = ju::getNonNegative(s, "communication_seconds", sp);
    st.forward_seconds = ju::getNonNegative(s, "forward_seconds", sp);
    st.backward_seconds = ju::getNonNegative(s, "backward_seconds", sp);
    st.optimizer_seconds = ju::getNonNegative(s, "optimizer_seconds", sp);
    st.microbatches = ju::getInt32(s, "microbatches", sp, 0);
    st.peak_memory_bytes = ju::getInt(s, "peak_memory_bytes", sp, 0);
    out.stages.push_back(st);
  }
  const json& memory = array(j, "memory", p);
  for (std::size_t i = 0; i < memory.size(); ++i) {
    const std::string mp = item(p, "memory", i);
    const json& m = memory[i];
    ju::requireObject(m, mp);
    out.memory.push_back({ju::getInt32(m, "stage", mp, 0), ju::getInt32(m, "replica", mp, 0),
                          ju::getInt(m, "bytes", mp, 0)});
  }
  out.peak_memory_bytes = ju::getInt(j, "peak_memory_bytes", p, 0);
  out.fits = ju::getBoolOr(j, "fits", p, true);
  return out;
}

const char* runStatusName(RunStatus s) {
  switch (s) {
    case RunStatus::Running: return "running";
    case RunStatus::Finished: return "finished";
    case RunStatus::Failed: return "failed";
    case RunStatus::Stopped: return "stopped";
  }
  return "unknown";
}

RunStatus runStatusFromName(const std::string& name) {
  for (RunStatus s :
       {RunStatus::Running, RunStatus::Finished, RunStatus::Failed, RunStatus::Stopped})
    if (name == runStatusName(s)) return s;
  throw InputError("status", "\"" + name + "\"",
                   "\"running\", \"finished\", \"failed\" or \"stopped\"");
}

bool jobStateIsFinal(const std::string& state) {
  for (const char* live : {"SUBMITTED", "ATTACHED", "PENDING", "RUNNING", "CONFIGURING",
                           "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING"})
    if (state == live) return false;
  return !state.empty();
}

const char* RunEvent::kind() const {
  struct Name {
    const char* operator()(const RunStartedEvent&) const { return "run_started"; }
    const char* operator()(const RunWarningEvent&) const { return "warning"; }
    const char* operator()(const WorkersStartedEvent&) const { return "workers_started"; }
    const char* operator()(const WorkersReadyEvent&) const { return "workers_ready"; }
    const char* operator()(const IterationEvent&) const { return "iteration"; }
    const char* operator()(const RunErrorEvent&) const { return "error"; }
    const char* operator()(const RunFinishedEvent&) const { return "finished"; }
    const char* operator()(const JobStateEvent&) const { return "job_state"; }
    const char* operator()(const CheckpointEvent&) const { return "checkpoint"; }
    const char* operator()(const ResumedEvent&) const { return "resumed"; }
    const char* operator()(const ReconfiguredEvent&) const { return "reconfigured"; }
    const char* operator()(const PausedEvent&) const { return "paused"; }
  };
  return std::visit(Name{}, body);
}

json toJson(const RunEvent& event) {
  json out{{"event", event.kind()}, {"run_id", event.run_id}, {"time", event.time}};
  std::visit(Encoder{out}, event.body);
  return out;
}

RunEvent runEventFromJson(const json& j) {
  ju::requireObject(j, "event line");
  const std::string kind = ju::getString(j, "event", "");
  RunEvent e;
  // The common fields are named after the kind ("iteration.run_id"), so that a message says
  // which event was wrong.
  e.run_id = ju::getInt(j, "run_id", kind, 1);
  e.time = ju::getString(j, "time", kind);
  if (kind == "run_started") e.body = runStarted(j, kind);
  else if (kind == "warning") e.body = warning(j, kind);
  else if (kind == "workers_started") e.body = workersStarted(j, kind);
  else if (kind == "workers_ready") e.body = workersReady(j, kind);
  else if (kind == "iteration") e.body = iteration(j, kind);
  else if (kind == "error") e.body = error(j, kind);
  else if (kind == "finished") e.body = finished(j, kind);
  else if (kind == "job_state") e.body = jobState(j, kind);
  else if (kind == "checkpoint") e.body = checkpoint(j, kind);
  else if (kind == "resumed") e.body = resumed(j, kind);
  else if (kind == "reconfigured") e.body = reconfigured(j, kind);
  else if (kind == "paused") e.body = paused(j, kind);
  else
    throw InputError("event", "\"" + kind + "\"",
                     "one of run_started, warning, workers_started, workers_ready, iteration, "
                     "error, finished, job_state, checkpoint, resumed, reconfigured, paused");
  return e;
}

RunEvent parseRunEvent(std::string_view line) {
  json j;
  try {
    j = json::parse(line);
  } catch (const json::parse_error& err) {
    std::string shown = json_util::truncateUtf8(line, 60);  // a character is never cut
    if (line.size() > shown.size()) shown += "...";
    // nlohmann's message quotes the bytes it last read, which may end inside a character: the
    // message must stay valid UTF-8, since it is written into JSON (stored events, reports).
    const std::string reason =
        json::parse(json(err.what()).dump(-1, ' ', false, json::error_handler_t::replace))
            .get<std::string>();
    throw InputError("event line", "\"" + shown + "\" (" + reason + ")",
                     "one JSON object per line");
  }
  return runEventFromJson(j);
}

IterationRecord iterationRecord(std::int64_t run_id, const IterationEvent& event) {
  IterationRecord r;
  r.run_id = run_id;
  r.iteration = event.iteration;
  r.loss = event.loss;
  r.iteration_seconds = event.iteration_seconds;
  r.tokens_per_second = event.tokens_per_second;
  r.detail = json{{"stages", stagesJson(event.stages)},
                  {"ranks", ranksJson(event.ranks)},
                  {"grad_norm", finiteOrNull(event.grad_norm)},
                  {"learning_rate", event.learning_rate}};
  return r;
}

IterationEvent iterationFromRecord(const IterationRecord& record) {
  IterationEvent e;
  e.iteration = record.iteration;
  e.loss = record.loss;
  e.iteration_seconds = record.iteration_seconds;
  e.tokens_per_second = record.tokens_per_second;
  const std::string p = "iterations[" + std::to_string(record.iteration) + "].detail";
  ju::requireObject(record.detail, p);
  e.learning_rate = ju::getNumberOr(record.detail, "learning_rate", p, kNaN);
  e.grad_norm =
      record.detail.contains("grad_norm") ? numberOrNull(record.detail, "grad_norm", p) : kNaN;
  iterationParts(record.detail, p, e);
  return e;
}

}  // namespace sailor
