// The runtime's event protocol (sailor/runs/run_events.hpp): the encoder the controller writes with
// and the decoder, on events of every kind built here (encode -> decode gives the same values)
// and on real event lines: two runs of tests/data/runtime/pp2.json recorded from `sailor run`'s
// stdout (not written by hand; decode -> encode gives the same JSON):
//   events_pp2.jsonl         --job job.json --iterations 5 --hidden 64 --seq-len 16: finished
//   events_pp2_failed.jsonl  the same with a bf16 job (a warning event) and --iterations 50;
//                            rank 1 was SIGKILLed after iteration 1 was printed: error, failed
// (scenario resources/scenarios/default.json). Every kind decodes with the values the runtime
// printed, the decoded figures are consistent with each other as docs/runtime.md says, and lines
// with a missing or mistyped field are rejected with the field named.
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include <QObject>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

#include "recorded_events.hpp"
#include "sailor/runs/run_events.hpp"
#include "sailor/runs/run_store.hpp"
#include "test_support.hpp"

using nlohmann::json;
using sailor::parseRunEvent;
using sailor::RunEvent;

using sailor::testing::decodeAll;
using sailor::testing::readLines;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Field-by-field comparison of two decoded events, written against the structs (not through the
// encoder), so that a field the encoder drops or the decoder misreads shows as a difference.
// Returns the first difference, or an empty string. NaN equals NaN (a diverged loss).
class Diff {
 public:
  std::string first;

  template <typename T>
  void field(const char* name, const T& a, const T& b) {
    if (first.empty() && !(a == b)) first = name;
  }
  void number(const char* name, double a, double b) {
    if (first.empty() && !(a == b || (std::isnan(a) && std::isnan(b)))) first = name;
  }
  void place(const sailor::RankPlacement& a, const sailor::RankPlacement& b) {
    field("rank", a.rank, b.rank);
    field("stage", a.stage, b.stage);
    field("replica", a.replica, b.replica);
    field("tp_rank", a.tp_rank, b.tp_rank);
    field("tp", a.tp, b.tp);
    field("gpu_type", a.gpu_type, b.gpu_type);
    field("zone", a.zone, b.zone);
  }

  void operator()(const sailor::RunStartedEvent& a, const sailor::RunStartedEvent& b) {
    field("name", a.name, b.name);
    field("world_size", a.world_size, b.world_size);
    field("backend_requested", a.backend_requested, b.backend_requested);
    field("plan", a.plan, b.plan);
    field("model", a.model.toJson(), b.model.toJson());
    field("global_batch_size", a.global_batch_size, b.global_batch_size);
    field("microbatches", a.microbatches, b.microbatches);
    field("data_parallel", a.data_parallel, b.data_parallel);
    field("iterations", a.iterations, b.iterations);
    field("data", a.data, b.data);
    field("data_format", a.data_format, b.data_format);
    field("dtype", a.dtype, b.dtype);
    field("precision", a.precision, b.precision);
    field("optimizer", a.optimizer, b.optimizer);
    field("recompute", a.recompute, b.recompute);
    field("store", a.store, b.store);
    field("prediction_note", a.prediction_note, b.prediction_note);
    field("prediction set", a.prediction.has_value(), b.prediction.has_value());
    if (a.prediction && b.prediction) prediction(*a.prediction, *b.prediction);
  }
  void prediction(const sailor::RunPrediction& a, const sailor::RunPrediction& b) {
    field("prediction.device", a.device, b.device);
    field("prediction.profile", a.profile, b.profile);
    field("prediction.model", a.model, b.model);
    field("prediction.measured_at", a.measured_at, b.measured_at);
    number("prediction.iteration_seconds", a.iteration_seconds, b.iteration_seconds);
    field("prediction.busiest_stage", a.busiest_stage, b.busiest_stage);
    number("prediction.compute_seconds", a.compute_seconds, b.compute_seconds);
    number("prediction.bubble_seconds", a.bubble_seconds, b.bubble_seconds);
    number("prediction.p2p_seconds", a.p2p_seconds, b.p2p_seconds);
    number("prediction.dp_sync_seconds", a.dp_sync_seconds, b.dp_sync_seconds);
    number("prediction.optimizer_seconds", a.optimizer_seconds, b.optimizer_seconds);
    field("prediction.stages.size", a.stages.size(), b.stages.size());
    for (std::size_t i = 0; first.empty() && i < a.stages.size(); ++i) {
      const auto &x = a.stages[i], &y = b.stages[i];
      field("prediction.stages.stage", x.stage, y.stage);
      number("prediction.stages.compute_seconds", x.compute_seconds, y.compute_seconds);
      number("prediction.stages.communication_seconds", x.communication_seconds,
             y.communication_seconds);
      number("prediction.stages.forward_seconds", x.forward_seconds, y.forward_seconds);
      number("prediction.stages.backward_seconds", x.backward_seconds, y.backward_seconds);
      number("prediction.stages.optimizer_seconds", x.optimizer_seconds, y.optimizer_seconds);
      field("prediction.stages.microbatches", x.microbatches, y.microbatches);
      field("prediction.stages.peak_memory_bytes", x.peak_memory_bytes, y.peak_memory_bytes);
    }
    field("prediction.memory.size", a.memory.size(), b.memory.size());
    for (std::size_t i = 0; first.empty() && i < a.memory.size(); ++i) {
      field("prediction.memory.stage", a.memory[i].stage, b.memory[i].stage);
      field("prediction.memory.replica", a.memory[i].replica, b.memory[i].replica);
      field("prediction.memory.bytes", a.memory[i].bytes, b.memory[i].bytes);
    }
    field("prediction.peak_memory_bytes", a.peak_memory_bytes, b.peak_memory_bytes);
    field("prediction.fits", a.fits, b.fits);
  }
  void operator()(const sailor::RunWarningEvent& a, const sailor::RunWarningEvent& b) {
    field("message", a.message, b.message);
    field("rank", a.rank, b.rank);
  }
  void operator()(const sailor::WorkersStartedEvent& a, const sailor::WorkersStartedEvent& b) {
    field("store", a.store, b.store);
    field("generation", a.generation, b.generation);
    field("workers.size", a.workers.size(), b.workers.size());
    for (std::size_t i = 0; first.empty() && i < a.workers.size(); ++i) {
      place(a.workers[i].place, b.workers[i].place);
      field("pid", a.workers[i].pid, b.workers[i].pid);
    }
  }
  void operator()(const sailor::WorkersReadyEvent& a, const sailor::WorkersReadyEvent& b) {
    field("backend", a.backend, b.backend);
    field("devices", a.devices, b.devices);
    number("startup_seconds", a.startup_seconds, b.startup_seconds);
  }
  void operator()(const sailor::IterationEvent& a, const sailor::IterationEvent& b) {
    field("iteration", a.iteration, b.iteration);
    number("loss", a.loss, b.loss);
    number("iteration_seconds", a.iteration_seconds, b.iteration_seconds);
    number("tokens_per_second", a.tokens_per_second, b.tokens_per_second);
    number("learning_rate", a.learning_rate, b.learning_rate);
    number("grad_norm", a.grad_norm, b.grad_norm);
    field("stages.size", a.stages.size(), b.stages.size());
    for (std::size_t i = 0; first.empty() && i < a.stages.size(); ++i) {
      field("stages.stage", a.stages[i].stage, b.stages[i].stage);
      number("stages.compute_seconds", a.stages[i].compute_seconds, b.stages[i].compute_seconds);
      number("stages.communication_seconds", a.stages[i].communication_seconds,
             b.stages[i].communication_seconds);
    }
    field("ranks.size", a.ranks.size(), b.ranks.size());
    for (std::size_t i = 0; first.empty() && i < a.ranks.size(); ++i) {
      const sailor::RunRankTimes &x = a.ranks[i], &y = b.ranks[i];
      field("ranks.rank", x.rank, y.rank);
      field("ranks.stage", x.stage, y.stage);
      field("ranks.replica", x.replica, y.replica);
      number("ranks.seconds", x.seconds, y.seconds);
      number("ranks.compute_seconds", x.compute_seconds, y.compute_seconds);
      number("ranks.p2p_seconds", x.p2p_seconds, y.p2p_seconds);
      number("ranks.tp_seconds", x.tp_seconds, y.tp_seconds);
      number("ranks.dp_seconds", x.dp_seconds, y.dp_seconds);
      field("ranks.peak_memory_bytes", x.peak_memory_bytes, y.peak_memory_bytes);
    }
  }
  void operator()(const sailor::RunErrorEvent& a, const sailor::RunErrorEvent& b) {
    field("message", a.message, b.message);
    field("rank", a.rank, b.rank);
    field("stage", a.stage, b.stage);
    field("replica", a.replica, b.replica);
    field("tp_rank", a.tp_rank, b.tp_rank);
    field("stderr_tail", a.stderr_tail, b.stderr_tail);
  }
  void operator()(const sailor::RunFinishedEvent& a, const sailor::RunFinishedEvent& b) {
    field("status", a.status, b.status);
    field("iterations_done", a.iterations_done, b.iterations_done);
    number("seconds", a.seconds, b.seconds);
    field("error", a.error, b.error);
  }
  void operator()(const sailor::JobStateEvent& a, const sailor::JobStateEvent& b) {
    field("launcher", a.launcher, b.launcher);
    field("job_id", a.job_id, b.job_id);
    field("state", a.state, b.state);
    field("reason", a.reason, b.reason);
    field("run_dir", a.run_dir, b.run_dir);
  }
  void operator()(const sailor::CheckpointEvent& a, const sailor::CheckpointEvent& b) {
    field("iteration", a.iteration, b.iteration);
    field("directory", a.directory, b.directory);
    field("shards", a.shards, b.shards);
    field("bytes", a.bytes, b.bytes);
    number("write_seconds", a.write_seconds, b.write_seconds);
    field("removed", a.removed, b.removed);
  }
  void operator()(const sailor::ResumedEvent& a, const sailor::ResumedEvent& b) {
    field("from_iteration", a.from_iteration, b.from_iteration);
    field("checkpoint", a.checkpoint, b.checkpoint);
    field("iterations", a.iterations, b.iterations);
    field("iterations_discarded", a.iterations_discarded, b.iterations_discarded);
  }
  void operator()(const sailor::ReconfiguredEvent& a, const sailor::ReconfiguredEvent& b) {
    field("cause", a.cause, b.cause);
    field("detail", a.detail, b.detail);
    field("generation", a.generation, b.generation);
    field("from_iteration", a.from_iteration, b.from_iteration);
    field("old_plan", a.old_plan, b.old_plan);
    field("new_plan", a.new_plan, b.new_plan);
    field("old_world_size", a.old_world_size, b.old_world_size);
    field("new_world_size", a.new_world_size, b.new_world_size);
    field("state_source", a.state_source, b.state_source);
    field("iterations_lost", a.iterations_lost, b.iterations_lost);
    field("state_bytes", a.state_bytes, b.state_bytes);
    number("replan", a.replan_seconds, b.replan_seconds);
    number("teardown", a.teardown_seconds, b.teardown_seconds);
    number("launch", a.launch_seconds, b.launch_seconds);
    number("group_setup", a.group_setup_seconds, b.group_setup_seconds);
    number("rebuild", a.rebuild_seconds, b.rebuild_seconds);
    number("transfer", a.transfer_seconds, b.transfer_seconds);
    number("total", a.total_seconds, b.total_seconds);
  }
  void operator()(const sailor::PausedEvent& a, const sailor::PausedEvent& b) {
    field("cause", a.cause, b.cause);
    field("reason", a.reason, b.reason);
    field("iteration", a.iteration, b.iteration);
  }
  template <typename A, typename B>
  void operator()(const A&, const B&) {
    first = "kind";
  }
};

std::string differenceOf(const RunEvent& a, const RunEvent& b) {
  Diff d;
  d.field("run_id", a.run_id, b.run_id);
  d.field("time", a.time, b.time);
  if (d.first.empty()) std::visit(d, a.body, b.body);
  return d.first;
}

// One event of each kind (and each optional shape), every field away from its default.
std::vector<std::pair<std::string, RunEvent>> eventsOfEveryKind() {
  auto ev = [](sailor::RunEventBody body) {
    return RunEvent{42, "2026-12-02T18:05:00.123Z", std::move(body)};
  };
  std::vector<std::pair<std::string, RunEvent>> out;

  sailor::RunStartedEvent started;
  started.name = "hetero run";
  started.world_size = 6;
  started.backend_requested = "gloo";
  started.plan.microbatch_size = 2;
  started.plan.stages = {{0, 12, {{"A100-40", 1, "us-central1-a"}, {"V100-16", 2, "us-west1-b"}}},
                         {13, 25, {{"A100-40", 2, "us-central1-a"}, {"A100-40", 1, "eu-x"}}}};
  started.model.name = "OPT-350M";
  started.model.layers = 24;
  started.model.hidden_size = 64;
  started.model.heads = 16;
  started.model.ffn_hidden_size = 256;
  started.model.vocab_size = 256;
  started.model.sequence_length = 16;
  started.model.tied_embeddings = true;
  started.model.norm = sailor::NormType::RmsNorm;
  started.model.bias = false;
  started.global_batch_size = 8;
  started.microbatches = 2;
  started.data_parallel = 2;
  started.iterations = 20;
  started.data = "/tmp/train.bin";
  started.data_format = "tokens";
  started.dtype = "float64";
  started.precision = sailor::Precision::Bf16;
  started.optimizer = sailor::Optimizer::Sgd;
  started.recompute = sailor::Recompute::Full;
  started.store = "/tmp/runs.sqlite";
  out.emplace_back("run_started", ev(started));
  {
    sailor::RunStartedEvent local = started;
    local.prediction_note = "";
    sailor::RunPrediction p;
    p.device = "cpu-amd-epyc";
    p.profile = "/prof";
    p.model = "OPT-350M-runtime-h64-s16";
    p.measured_at = "2026-12-04T18:02:11Z";
    p.iteration_seconds = 0.912;
    p.busiest_stage = 1;
    p.compute_seconds = 0.7;
    p.bubble_seconds = 0.1;
    p.p2p_seconds = 0.05;
    p.dp_sync_seconds = 0.04;
    p.optimizer_seconds = 0.022;
    p.stages = {{0, 0.65, 0.262, 0.1, 0.2, 0.05, 2, 300'000'000},
                {1, 0.722, 0.19, 0.12, 0.23, 0.022, 2, 5'000'000'000}};
    p.memory = {{0, 0, 300'000'000}, {0, 1, 290'000'000}, {1, 0, 5'000'000'000}};
    p.peak_memory_bytes = 5'000'000'000;
    p.fits = false;
    local.prediction = p;
    out.emplace_back("run_started with a local prediction", ev(local));
    sailor::RunStartedEvent none = started;
    none.prediction_note = "no local prediction: no profile of cpu-x (sailor profile ...)";
    out.emplace_back("run_started without a local prediction, saying why", ev(none));
  }

  out.emplace_back("warning from the controller",
                   ev(sailor::RunWarningEvent{"job precision fp16: ...", std::nullopt}));
  out.emplace_back("warning from a worker (blank stderr line)", ev(sailor::RunWarningEvent{"", 3}));

  sailor::WorkersStartedEvent ws{"127.0.0.1:42799", 1, {}};
  ws.workers.push_back({{0, 0, 0, 0, 1, "A100-40", "us-central1-a"}, 32698});
  ws.workers.push_back({{1, 0, 1, 1, 2, "V100-16", "us-west1-b"}, 32699});
  out.emplace_back("workers_started", ev(ws));
  out.emplace_back("workers_ready",
                   ev(sailor::WorkersReadyEvent{"nccl", {"cuda:0", "cuda:1"}, 9.974498988}));

  sailor::IterationEvent it;
  it.iteration = 7;
  it.loss = 5.566740870475769;
  it.iteration_seconds = 1.941904801;
  it.tokens_per_second = 65.9;
  it.learning_rate = 0.0005;
  it.grad_norm = 5.57880288426718;
  it.stages = {{0, 1.392132509, 0.30354791999999997}, {1, -1e-9, 0.2}};
  it.ranks = {{0, 0, 0, 1.695680429, 1.392132509, 0.20625732, 0.0, 0.0972906, 187813888},
              {1, 1, 1, 1.941904801, 1.508151036, 0.19, 0.01, 0.24, 5'000'000'000}};
  out.emplace_back("iteration", ev(it));
  it.loss = kNaN;
  it.grad_norm = kNaN;
  out.emplace_back("iteration, diverged (loss and grad norm null)", ev(it));

  out.emplace_back(
      "error of the controller",
      ev(sailor::RunErrorEvent{
          "run store: locked", std::nullopt, std::nullopt, std::nullopt, std::nullopt, {}}));
  out.emplace_back("error of a worker",
                   ev(sailor::RunErrorEvent{"rank 1 (...) was killed by signal 9 (SIGKILL)",
                                            1,
                                            1,
                                            0,
                                            1,
                                            {"first line", "", "last line"}}));
  out.emplace_back("finished",
                   ev(sailor::RunFinishedEvent{sailor::RunStatus::Finished, 20, 18.279348914, ""}));
  out.emplace_back("finished, failed", ev(sailor::RunFinishedEvent{sailor::RunStatus::Failed, 3,
                                                                   0.5, "rank 1 ... SIGKILL"}));
  out.emplace_back("finished, stopped",
                   ev(sailor::RunFinishedEvent{sailor::RunStatus::Stopped, 0, 0.25, ""}));
  out.emplace_back("job_state, submitted",
                   ev(sailor::JobStateEvent{"slurm", "13", "SUBMITTED", "", "/runs/run-Ab12Cd"}));
  out.emplace_back("job_state, pending with its reason",
                   ev(sailor::JobStateEvent{"slurm", "13", "PENDING", "Resources", ""}));
  out.emplace_back("checkpoint", ev(sailor::CheckpointEvent{
                                     11, "/ck/run-3/step-11", 4, 123456789012, 0.0421, {5, 8}}));
  out.emplace_back("checkpoint, nothing removed",
                   ev(sailor::CheckpointEvent{2, "/ck/run-3/step-2", 1, 9, 0.5, {}}));
  out.emplace_back("resumed", ev(sailor::ResumedEvent{6, "/ck/run-3/step-5", 30, 2}));
  {
    sailor::ReconfiguredEvent r;
    r.cause = "worker_lost";
    r.detail = "rank 2 was killed by signal 9 (SIGKILL)";
    r.generation = 3;
    r.from_iteration = 17;
    r.old_plan = started.plan;
    r.new_plan.microbatch_size = 4;
    r.new_plan.stages = {{0, 25, {{"A100-40", 1, "us-central1-a"}}}};
    r.old_world_size = 3;
    r.new_world_size = 1;
    r.state_source = "checkpoint";
    r.iterations_lost = 2;
    r.state_bytes = 7340032;
    r.replan_seconds = 0.012;
    r.teardown_seconds = 0.003;
    r.launch_seconds = 0;
    r.group_setup_seconds = 0.0451;
    r.rebuild_seconds = 0.02;
    r.transfer_seconds = 0.031;
    r.total_seconds = 0.2;
    out.emplace_back("reconfigured", ev(r));
  }
  out.emplace_back("paused", ev(sailor::PausedEvent{"trace", "no plan fits 1 GPU", 12}));
  return out;
}

}  // namespace

class TestRunEvents : public QObject {
  Q_OBJECT

 private:
  std::vector<std::string> ok_lines_, failed_lines_;
  std::vector<RunEvent> ok_, failed_;

  // The first real line of a kind, parsed as JSON, to mutate.
  json realLine(const std::string& kind) const {
    for (const auto* lines : {&ok_lines_, &failed_lines_})
      for (const std::string& l : *lines) {
        json j = json::parse(l);
        if (j["event"] == kind) return j;
      }
    throw std::runtime_error("no " + kind + " line in the fixtures");
  }

 private slots:
  void initTestCase() {
    ok_lines_ = readLines(SAILOR_TEST_DATA "/events_pp2.jsonl");
    failed_lines_ = readLines(SAILOR_TEST_DATA "/events_pp2_failed.jsonl");
    QVERIFY(!ok_lines_.empty());
    QVERIFY(!failed_lines_.empty());
    ok_ = decodeAll(ok_lines_);
    failed_ = decodeAll(failed_lines_);
  }

  void kindsInOrder() {
    std::vector<std::string> kinds;
    for (const RunEvent& e : ok_) kinds.push_back(e.kind());
    const std::vector<std::string> expected{"run_started", "workers_started", "workers_ready",
                                            "iteration",   "iteration",       "iteration",
                                            "iteration",   "iteration",       "finished"};
    QCOMPARE(kinds, expected);
    kinds.clear();
    for (const RunEvent& e : failed_) kinds.push_back(e.kind());
    const std::vector<std::string> expected_failed{"run_started",   "warning",   "workers_started",
                                                   "workers_ready", "iteration", "iteration",
                                                   "iteration",     "error",     "finished"};
    QCOMPARE(kinds, expected_failed);
    for (const RunEvent& e : ok_) {
      QCOMPARE(e.run_id, std::int64_t{1});
      QVERIFY(e.time.size() == 24 && e.time.back() == 'Z');  // 2026-11-30T16:17:53.648Z
    }
  }

  void runStarted() {
    const auto* s = ok_[0].as<sailor::RunStartedEvent>();
    QVERIFY(s);
    QCOMPARE(s->name, std::string("pp2.json"));
    QCOMPARE(s->world_size, 2);
    QCOMPARE(s->backend_requested, std::string("auto"));
    QCOMPARE(s->plan.stages.size(), std::size_t{2});
    QCOMPARE(s->plan.microbatch_size, 2);
    QCOMPARE(s->plan.stages[1].first_layer, 13);
    QCOMPARE(s->plan.stages[1].replicas.at(0).gpu_type, std::string("A100-40"));
    QCOMPARE(s->model.name, std::string("OPT-350M"));
    QCOMPARE(s->model.hidden_size, 64);  // --hidden 64
    QCOMPARE(s->model.sequence_length, 16);
    QCOMPARE(s->model.layers, 24);
    QCOMPARE(s->global_batch_size, 8);
    QCOMPARE(s->microbatches, 4);  // 8 sequences / microbatch 2 / 1 pipeline
    QCOMPARE(s->data_parallel, 1);
    QCOMPARE(s->iterations, 5);
    QCOMPARE(s->data, std::string("synthetic"));
    QCOMPARE(s->data_format, std::string("synthetic"));  // recorded before token files
    QCOMPARE(s->dtype, std::string("float32"));
    QVERIFY(!s->store.empty());
    // These runs were recorded before run_started carried the job's training settings: the
    // defaults, which is what the runtime then did.
    QVERIFY(s->precision == sailor::Precision::Fp32);
    QVERIFY(s->optimizer == sailor::Optimizer::Adam);
    QVERIFY(s->recompute == sailor::Recompute::None);
  }

  void runStartedCarriesTheTrainingSettings() {
    json j = realLine("run_started");
    j["precision"] = "bf16";
    j["optimizer"] = "sgd";
    j["recompute"] = "full";
    const RunEvent e = parseRunEvent(j.dump());
    const auto* s = e.as<sailor::RunStartedEvent>();
    QVERIFY(s);
    QVERIFY(s->precision == sailor::Precision::Bf16);
    QVERIFY(s->optimizer == sailor::Optimizer::Sgd);
    QVERIFY(s->recompute == sailor::Recompute::Full);
  }

  void warningWithoutRank() {
    const auto* w = failed_[1].as<sailor::RunWarningEvent>();
    QVERIFY(w);
    QVERIFY(!w->rank);
    QVERIFY2(w->message.find("bf16") != std::string::npos, w->message.c_str());
    // A worker's stderr line: rank set, and an empty message is a valid one.
    json j = realLine("warning");
    j["rank"] = 1;
    j["message"] = "";
    const RunEvent e = sailor::runEventFromJson(j);
    QCOMPARE(e.as<sailor::RunWarningEvent>()->rank.value_or(-1), 1);
    QVERIFY(e.as<sailor::RunWarningEvent>()->message.empty());
  }

  void workersStartedAndReady() {
    const auto* w = ok_[1].as<sailor::WorkersStartedEvent>();
    QVERIFY(w);
    QCOMPARE(w->generation, 0);
    QVERIFY(w->store.rfind("127.0.0.1:", 0) == 0);
    QCOMPARE(w->workers.size(), std::size_t{2});
    for (int r = 0; r < 2; ++r) {
      const sailor::RunWorker& x = w->workers[static_cast<std::size_t>(r)];
      QCOMPARE(x.place.rank, r);
      QCOMPARE(x.place.stage, r);  // pp2: rank r is stage r
      QCOMPARE(x.place.replica, 0);
      QCOMPARE(x.place.tp_rank, 0);
      QCOMPARE(x.place.tp, 1);
      QCOMPARE(x.place.gpu_type, std::string("A100-40"));
      QCOMPARE(x.place.zone, std::string("us-central1-a"));
      QVERIFY(x.pid > 1);
    }
    QVERIFY(w->workers[0].pid != w->workers[1].pid);
    // A cluster run's workers are started by the scheduler on its nodes: pid 0, which decodes
    // (the studio's worker table of a Slurm run stayed empty while it did not).
    json cluster = realLine("workers_started");
    for (json& worker : cluster["workers"]) worker["pid"] = 0;
    const sailor::RunEvent decoded = sailor::parseRunEvent(cluster.dump());
    const auto* on_cluster = decoded.as<sailor::WorkersStartedEvent>();
    QVERIFY(on_cluster);
    QCOMPARE(on_cluster->workers.size(), std::size_t{2});
    QCOMPARE(on_cluster->workers[1].pid, std::int64_t{0});

    const auto* ready = ok_[2].as<sailor::WorkersReadyEvent>();
    QVERIFY(ready);
    QCOMPARE(ready->backend, std::string("gloo"));
    QCOMPARE(ready->devices, (std::vector<std::string>{"cpu", "cpu"}));
    QVERIFY(ready->startup_seconds > 0);
  }

  // Decoded figures against each other (docs/runtime.md "Events"): the iteration's seconds are
  // the slowest rank's, a rank's compute is its seconds minus its communication, a stage's
  // figures are its slowest rank's, tokens/s = global batch x sequence / seconds.
  void iterationFigures() {
    const auto* started = ok_[0].as<sailor::RunStartedEvent>();
    int expected_iteration = 0;
    for (const RunEvent& e : ok_) {
      const auto* it = e.as<sailor::IterationEvent>();
      if (!it) continue;
      QCOMPARE(it->iteration, expected_iteration++);
      QVERIFY2(it->loss > 4 && it->loss < 6, "loss near ln 256 = 5.55 in the first iterations");
      QVERIFY(it->grad_norm > 0);
      QVERIFY(it->learning_rate > 0 && it->learning_rate <= 1e-3);
      QCOMPARE(it->stages.size(), std::size_t{2});
      QCOMPARE(it->ranks.size(), std::size_t{2});
      double slowest = 0;
      for (const sailor::RunRankTimes& r : it->ranks) {
        slowest = std::max(slowest, r.seconds);
        SAILOR_COMPARE_REL(r.compute_seconds,
                           r.seconds - r.p2p_seconds - r.tp_seconds - r.dp_seconds, 1e-9);
        QVERIFY(r.peak_memory_bytes > 10 * 1024 * 1024);  // a libtorch process: tens of MiB
        QCOMPARE(r.stage, r.rank);
        QCOMPARE(r.tp_seconds, 0.0);  // tp 1
        const sailor::RunStageTimes& s = it->stages[static_cast<std::size_t>(r.stage)];
        QCOMPARE(s.stage, r.stage);
        SAILOR_COMPARE_REL(s.compute_seconds, r.compute_seconds, 1e-12);  // one rank per stage
        SAILOR_COMPARE_REL(s.communication_seconds, r.p2p_seconds + r.tp_seconds + r.dp_seconds,
                           1e-9);
      }
      SAILOR_COMPARE_REL(it->iteration_seconds, slowest, 1e-12);
      const double tokens = double(started->global_batch_size) * started->model.sequence_length;
      SAILOR_COMPARE_REL(it->tokens_per_second, tokens / it->iteration_seconds, 1e-9);
    }
    QCOMPARE(expected_iteration, 5);
  }

  void errorAndFailedFinish() {
    const auto* err = failed_[7].as<sailor::RunErrorEvent>();
    QVERIFY(err);
    QCOMPARE(err->rank.value_or(-1), 1);
    QCOMPARE(err->stage.value_or(-1), 1);
    QCOMPARE(err->replica.value_or(-1), 0);
    QCOMPARE(err->tp_rank.value_or(-1), 0);
    QVERIFY2(err->message.find("SIGKILL") != std::string::npos, err->message.c_str());
    QVERIFY(err->stderr_tail.empty());
    const auto* fin = failed_[8].as<sailor::RunFinishedEvent>();
    QVERIFY(fin);
    QCOMPARE(fin->status, sailor::RunStatus::Failed);
    QCOMPARE(fin->iterations_done, 3);
    QCOMPARE(fin->error, err->message);

    const auto* ok = ok_.back().as<sailor::RunFinishedEvent>();
    QVERIFY(ok);
    QCOMPARE(ok->status, sailor::RunStatus::Finished);
    QCOMPARE(ok->iterations_done, 5);
    QVERIFY(ok->error.empty());
    QVERIFY(ok->seconds > 0);
  }

  // The runtime prints a diverged loss as null (JSON has no NaN): NaN, not an error.
  void nullLossIsNaN() {
    json j = realLine("iteration");
    j["loss"] = nullptr;
    const RunEvent e = parseRunEvent(j.dump());
    QVERIFY(std::isnan(e.as<sailor::IterationEvent>()->loss));
  }

  // Fields the decoder does not know are ignored (the protocol may grow).
  void unknownFieldsIgnored() {
    json j = realLine("workers_ready");
    j["future_field"] = {1, 2, 3};
    QCOMPARE(std::string(parseRunEvent("  " + j.dump() + "\r\n").kind()),
             std::string("workers_ready"));
  }

  void malformedLinesNameTheField_data() {
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("field");
    auto mutated = [this](const std::string& kind, auto&& change) {
      json j = realLine(kind);
      change(j);
      return QString::fromStdString(j.dump());
    };
    const std::string full = ok_lines_.at(3);
    QTest::newRow("not JSON") << "hello"
                              << "event line:";
    QTest::newRow("truncated line")
        << QString::fromStdString(full.substr(0, full.size() / 2)) << "event line:";
    QTest::newRow("empty line") << ""
                                << "event line:";
    QTest::newRow("array") << "[1, 2]"
                           << "event line:";
    QTest::newRow("no event") << mutated("iteration", [](json& j) { j.erase("event"); })
                              << "event: got nothing";
    QTest::newRow("unknown kind") << mutated("iteration", [](json& j) { j["event"] = "progress"; })
                                  << "event: got \"progress\"";
    QTest::newRow("no run_id") << mutated("iteration", [](json& j) { j.erase("run_id"); })
                               << "iteration.run_id:";
    QTest::newRow("no time") << mutated("finished", [](json& j) { j.erase("time"); })
                             << "finished.time:";
    QTest::newRow("run_started plan")
        << mutated("run_started", [](json& j) { j["plan"]["stages"] = "two"; })
        << "run_started.plan.stages:";
    QTest::newRow("run_started model")
        << mutated("run_started", [](json& j) { j["model"].erase("hidden_size"); })
        << "run_started.model.hidden_size:";
    QTest::newRow("run_started world size")
        << mutated("run_started", [](json& j) { j["world_size"] = 0; })
        << "run_started.world_size:";
    QTest::newRow("run_started precision")
        << mutated("run_started", [](json& j) { j["precision"] = "fp8"; })
        << "run_started.precision: got \"fp8\"";
    QTest::newRow("run_started recompute")
        << mutated("run_started", [](json& j) { j["recompute"] = 1; }) << "run_started.recompute:";
    QTest::newRow("run_started prediction stage") << mutated("run_started", [](json& j) {
      j["prediction"] = json::parse(
          R"({"device":"d","profile":"/p","model":"m","measured_at":"","iteration_seconds":1,
              "breakdown":{"stage":0,"compute_seconds":1,"bubble_seconds":0,"p2p_seconds":0,
              "dp_sync_seconds":0,"optimizer_seconds":0},
              "stages":[{"stage":0,"compute_seconds":-1}],"memory":[],"peak_memory_bytes":1})");
    }) << "run_started.prediction.stages[0].compute_seconds:";
    QTest::newRow("run_started prediction breakdown") << mutated("run_started", [](json& j) {
      j["prediction"] = json{{"device", "d"},
                             {"profile", "/p"},
                             {"model", "m"},
                             {"measured_at", ""},
                             {"iteration_seconds", 1}};
    }) << "run_started.prediction.breakdown:";
    QTest::newRow("run_started prediction note")
        << mutated("run_started", [](json& j) { j["prediction_note"] = 5; })
        << "run_started.prediction_note:";
    QTest::newRow("warning message")
        << mutated("warning", [](json& j) { j["message"] = 3; }) << "warning.message:";
    QTest::newRow("worker pid") << mutated("workers_started", [](json& j) {
      j["workers"][1].erase("pid");
    }) << "workers_started.workers[1].pid:";
    QTest::newRow("negative worker pid")
        << mutated("workers_started", [](json& j) { j["workers"][0]["pid"] = -1; })
        << "workers_started.workers[0].pid:";
    QTest::newRow("workers not a list")
        << mutated("workers_started", [](json& j) { j["workers"] = 2; })
        << "workers_started.workers:";
    QTest::newRow("device") << mutated("workers_ready", [](json& j) { j["devices"][0] = 0; })
                            << "workers_ready.devices[0]:";
    QTest::newRow("loss text") << mutated("iteration", [](json& j) { j["loss"] = "5.5"; })
                               << "iteration.loss:";
    QTest::newRow("no loss") << mutated("iteration", [](json& j) { j.erase("loss"); })
                             << "iteration.loss:";
    QTest::newRow("negative seconds")
        << mutated("iteration", [](json& j) { j["iteration_seconds"] = -1; })
        << "iteration.iteration_seconds:";
    QTest::newRow("stage figure") << mutated("iteration", [](json& j) {
      j["stages"][1].erase("communication_seconds");
    }) << "iteration.stages[1].communication_seconds:";
    QTest::newRow("rank memory") << mutated("iteration", [](json& j) {
      j["ranks"][1]["peak_memory_bytes"] = 1.5;
    }) << "iteration.ranks[1].peak_memory_bytes:";
    QTest::newRow("error rank") << mutated("error", [](json& j) { j["rank"] = "one"; })
                                << "error.rank:";
    QTest::newRow("stderr tail") << mutated("error", [](json& j) { j["stderr_tail"] = {1}; })
                                 << "error.stderr_tail[0]:";
    QTest::newRow("finished status")
        << mutated("finished", [](json& j) { j["status"] = "done"; }) << "finished.status:";
    QTest::newRow("finished iterations")
        << mutated("finished", [](json& j) { j.erase("iterations_done"); })
        << "finished.iterations_done:";
  }

  void malformedLinesNameTheField() {
    QFETCH(QString, line);
    QFETCH(QString, field);
    const QString message =
        sailor::test::inputErrorOf([&] { (void)parseRunEvent(line.toStdString()); });
    QVERIFY2(message.startsWith(field), qPrintable(message + " should start with " + field));
  }

  // A malformed line's excerpt is cut on a character boundary, wherever the 60-byte limit falls
  // in a multi-byte character: the message stays valid UTF-8 (it is written into JSON reports).
  void malformedLineExcerptKeepsWholeCharacters() {
    for (int ascii = 0; ascii < 4; ++ascii) {
      std::string line = "{" + std::string(static_cast<std::size_t>(ascii), 'x');
      for (int i = 0; i < 40; ++i) line += "\xe2\x82\xac";  // U+20AC, 3 bytes
      std::string message;
      try {
        (void)parseRunEvent(line);
      } catch (const sailor::InputError& e) {
        message = e.what();
      }
      QVERIFY2(message.rfind("event line:", 0) == 0, message.c_str());
      // Valid UTF-8 throughout: a strict JSON dump throws on any broken sequence.
      QVERIFY_THROWS_NO_EXCEPTION((void)nlohmann::json(message).dump());
      // The excerpt itself ends on a whole character, not on a replacement character.
      const std::string excerpt = message.substr(0, message.find("...\""));
      QVERIFY2(excerpt.find("\xef\xbf\xbd") == std::string::npos, message.c_str());
    }
  }

  // A stored iteration row (written the way the controller writes it: figures in columns, the
  // rest in detail) reads back as the event it was recorded from.
  void iterationFromStoredRow() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    sailor::RunStore store(dir.filePath("runs.sqlite").toStdString());
    sailor::RunRecord rec;
    rec.name = "pp2.json";
    const std::int64_t id = store.createRun(rec);
    const json line = json::parse(ok_lines_.at(4));
    const auto* event = ok_[4].as<sailor::IterationEvent>();
    sailor::IterationRecord row;
    row.run_id = id;
    row.iteration = event->iteration;
    row.loss = event->loss;
    row.iteration_seconds = event->iteration_seconds;
    row.tokens_per_second = event->tokens_per_second;
    row.detail = json{{"stages", line["stages"]},
                      {"ranks", line["ranks"]},
                      {"grad_norm", line["grad_norm"]},
                      {"learning_rate", line["learning_rate"]}};
    store.addIteration(row, line);
    const std::vector<sailor::IterationRecord> rows = store.iterations(id);
    QCOMPARE(rows.size(), std::size_t{1});
    const sailor::IterationEvent back = sailor::iterationFromRecord(rows[0]);
    QCOMPARE(back.iteration, event->iteration);
    QCOMPARE(back.loss, event->loss);
    QCOMPARE(back.grad_norm, event->grad_norm);
    QCOMPARE(back.learning_rate, event->learning_rate);
    QCOMPARE(back.ranks.size(), event->ranks.size());
    QCOMPARE(back.ranks[1].peak_memory_bytes, event->ranks[1].peak_memory_bytes);
    QCOMPARE(back.stages[1].communication_seconds, event->stages[1].communication_seconds);
    // and the stored event payload decodes like the line
    const std::vector<sailor::EventRecord> events = store.events(id);
    QCOMPARE(events.size(), std::size_t{1});
    QCOMPARE(sailor::runEventFromJson(events[0].payload).as<sailor::IterationEvent>()->loss,
             event->loss);

    sailor::IterationRecord broken = rows[0];
    broken.detail.erase("ranks");
    const QString message =
        sailor::test::inputErrorOf([&] { (void)sailor::iterationFromRecord(broken); });
    QVERIFY2(message.startsWith("iterations[1].detail.ranks:"), qPrintable(message));
  }

  // job_state: the scheduler's state of a cluster run's job. A state this build does not know is
  // kept as its text; reason and run_dir may be absent; the identifiers are required, non-empty
  // and bounded (64 bytes), the texts bounded (4096 bytes).
  void jobStateEvents() {
    const RunEvent e = parseRunEvent(
        R"({"event":"job_state","run_id":3,"time":"t","launcher":"slurm","job_id":"13",)"
        R"("state":"PENDING","reason":"Priority"})");
    const auto* js = e.as<sailor::JobStateEvent>();
    QVERIFY(js);
    QCOMPARE(js->job_id, std::string("13"));
    QCOMPARE(js->state, std::string("PENDING"));
    QCOMPARE(js->reason, std::string("Priority"));
    QVERIFY(js->run_dir.empty());
    QVERIFY(!sailor::jobStateIsFinal(js->state));

    const RunEvent unknown = parseRunEvent(
        R"({"event":"job_state","run_id":3,"time":"t","launcher":"slurm","job_id":"13",)"
        R"("state":"BOOT_FAIL"})");
    QCOMPARE(unknown.as<sailor::JobStateEvent>()->state, std::string("BOOT_FAIL"));
    QVERIFY(unknown.as<sailor::JobStateEvent>()->reason.empty());
    for (const char* final_state :
         {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "GONE", "BOOT_FAIL"})
      QVERIFY2(sailor::jobStateIsFinal(final_state), final_state);
    for (const char* live : {"SUBMITTED", "ATTACHED", "PENDING", "RUNNING", "COMPLETING"})
      QVERIFY2(!sailor::jobStateIsFinal(live), live);

    auto refused = [](json j, const std::string& field) {
      const QString message = sailor::test::inputErrorOf([&] { (void)parseRunEvent(j.dump()); });
      QVERIFY2(message.startsWith(QString::fromStdString(field)),
               qPrintable(message + " should start with " + QString::fromStdString(field)));
    };
    const json good{{"event", "job_state"}, {"run_id", 3},    {"time", "t"},
                    {"launcher", "slurm"},  {"job_id", "13"}, {"state", "RUNNING"}};
    json j = good;
    j.erase("job_id");
    refused(j, "job_state.job_id:");
    j = good;
    j["state"] = "";
    refused(j, "job_state.state: got \"\"");
    j = good;
    j["state"] = 7;
    refused(j, "job_state.state:");
    j = good;
    j["job_id"] = std::string(65, '1');
    refused(j, "job_state.job_id: got a string of 65 bytes");
    j = good;
    j["reason"] = std::string(4097, 'r');
    refused(j, "job_state.reason: got a string of 4097 bytes");
    j = good;
    j["run_dir"] = false;
    refused(j, "job_state.run_dir:");
    j = good;
    j["reason"] = std::string(4096, 'r');  // at the bound: accepted
    QCOMPARE(parseRunEvent(j.dump()).as<sailor::JobStateEvent>()->reason.size(), std::size_t{4096});
  }

  // Every kind (and every optional shape) encodes to a line that decodes to the same values,
  // and re-encodes to the same JSON.
  void encodeThenDecodeEveryKind_data() {
    QTest::addColumn<int>("index");
    const auto events = eventsOfEveryKind();
    std::set<std::string> kinds;
    for (std::size_t i = 0; i < events.size(); ++i) {
      QTest::newRow(events[i].first.c_str()) << static_cast<int>(i);
      kinds.insert(events[i].second.kind());
    }
    QCOMPARE(kinds.size(), std::variant_size_v<sailor::RunEventBody>);  // every kind has a row
  }
  void encodeThenDecodeEveryKind() {
    QFETCH(int, index);
    const RunEvent original = eventsOfEveryKind().at(static_cast<std::size_t>(index)).second;
    const json encoded = sailor::toJson(original);
    QCOMPARE(encoded.at("event").get<std::string>(), std::string(original.kind()));
    const std::string line = encoded.dump();
    QVERIFY2(line.find('\n') == std::string::npos, "one event, one line");
    const RunEvent decoded = parseRunEvent(line);
    const std::string diff = differenceOf(original, decoded);
    QVERIFY2(diff.empty(), ("decoded differs in " + diff + ": " + line).c_str());
    const json again = sailor::toJson(decoded);
    QVERIFY2(again == encoded, (again.dump() + "\n  expected\n" + encoded.dump()).c_str());
  }

  // The wire format details the schema promises: non-finite loss and grad norm as null, optional
  // fields absent when unset, an error's stderr_tail only when it names a worker.
  void encoderWritesTheSchema() {
    const auto events = eventsOfEveryKind();
    auto encoded = [&](const std::string& row) {
      for (const auto& [name, e] : events)
        if (name == row) return sailor::toJson(e);
      throw std::runtime_error("no row " + row);
    };
    const json diverged = encoded("iteration, diverged (loss and grad norm null)");
    QVERIFY(diverged.at("loss").is_null());
    QVERIFY(diverged.at("grad_norm").is_null());
    QVERIFY(diverged.at("ranks").at(1).at("peak_memory_bytes").is_number_integer());
    sailor::IterationEvent infinite = *events.at(7).second.as<sailor::IterationEvent>();
    infinite.loss = std::numeric_limits<double>::infinity();
    QVERIFY(sailor::toJson(RunEvent{1, "t", infinite}).at("loss").is_null());

    QVERIFY(!encoded("warning from the controller").contains("rank"));
    QCOMPARE(encoded("warning from a worker (blank stderr line)").at("rank").get<int>(), 3);
    const json controller_error = encoded("error of the controller");
    for (const char* key : {"rank", "stage", "replica", "tp_rank", "stderr_tail"})
      QVERIFY2(!controller_error.contains(key), key);
    QCOMPARE(encoded("error of a worker").at("stderr_tail").size(), std::size_t{3});
    QVERIFY(!encoded("finished").contains("error"));
    QVERIFY(!encoded("finished, stopped").contains("error"));
    QCOMPARE(encoded("finished, failed").at("status").get<std::string>(), std::string("failed"));
    QCOMPARE(encoded("run_started").at("precision").get<std::string>(), std::string("bf16"));
    // A run without a prediction or note (older runs, and runs recorded before either) writes
    // neither; a local prediction is an object with its breakdown.
    QVERIFY(!encoded("run_started").contains("prediction"));
    QVERIFY(!encoded("run_started").contains("prediction_note"));
    const json local = encoded("run_started with a local prediction");
    QCOMPARE(local.at("prediction").at("breakdown").at("stage").get<int>(), 1);
    QCOMPARE(local.at("prediction").at("stages").size(), std::size_t{2});
    QVERIFY(!local.contains("prediction_note"));
    QVERIFY(!encoded("run_started without a local prediction, saying why").contains("prediction"));
    QVERIFY(!encoded("job_state, pending with its reason").contains("run_dir"));
    QCOMPARE(encoded("job_state, submitted").at("reason").get<std::string>(), std::string());
    for (const auto& [name, e] : events) {
      const json j = sailor::toJson(e);
      QCOMPARE(j.at("run_id").get<std::int64_t>(), std::int64_t{42});
      QCOMPARE(j.at("time").get<std::string>(), std::string("2026-12-02T18:05:00.123Z"));
    }
  }

  // Lines the runtime printed decode and re-encode to the same JSON content. The only addition:
  // run_started's training settings and data format, absent from these older recordings, are
  // written with the values they decode to (fp32, adam, none; synthetic for synthetic data).
  void recordedLinesReencodeToTheSameJson() {
    for (const auto* lines : {&ok_lines_, &failed_lines_})
      for (const std::string& line : *lines) {
        json expected = json::parse(line);
        if (expected["event"] == "run_started") {
          QVERIFY(!expected.contains("precision"));
          expected["precision"] = "fp32";
          expected["optimizer"] = "adam";
          expected["recompute"] = "none";
          QVERIFY(!expected.contains("data_format"));
          expected["data_format"] = expected["data"] == "synthetic" ? "synthetic" : "text";
        }
        const json again = sailor::toJson(parseRunEvent(line));
        QVERIFY2(again == expected, (again.dump() + "\n  expected\n" + expected.dump()).c_str());
      }
  }

  // An iteration event stored as its row (iterationRecord, what the controller stores) reads
  // back as the same event, a diverged grad norm included.
  void iterationRecordRoundTrip() {
    for (const auto& [name, e] : eventsOfEveryKind()) {
      const auto* it = e.as<sailor::IterationEvent>();
      if (!it) continue;
      const sailor::IterationRecord row = sailor::iterationRecord(42, *it);
      QCOMPARE(row.run_id, std::int64_t{42});
      QCOMPARE(row.iteration, it->iteration);
      const RunEvent back{e.run_id, e.time, sailor::iterationFromRecord(row)};
      const std::string diff = differenceOf(e, back);
      QVERIFY2(diff.empty(), (name + ": " + diff).c_str());
    }
  }
};

QTEST_GUILESS_MAIN(TestRunEvents)
#include "test_run_events.moc"
