// The runtime's event protocol decoder (sailor/run_events.hpp) on real event lines: two runs of
// tests/data/runtime/pp2.json recorded from `sailor run`'s stdout (not written by hand):
//   events_pp2.jsonl         --job job.json --iterations 5 --hidden 64 --seq-len 16: finished
//   events_pp2_failed.jsonl  the same with a bf16 job (a warning event) and --iterations 50;
//                            rank 1 was SIGKILLed after iteration 1 was printed: error, failed
// (scenario resources/scenarios/default.json). Every kind decodes with the values the runtime
// printed, the decoded figures are consistent with each other as docs/runtime.md says, and lines
// with a missing or mistyped field are rejected with the field named.
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <QObject>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

#include "recorded_events.hpp"
#include "sailor/run_events.hpp"
#include "sailor/run_store.hpp"
#include "test_support.hpp"

using nlohmann::json;
using sailor::parseRunEvent;
using sailor::RunEvent;

using sailor::testing::decodeAll;
using sailor::testing::readLines;

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
    QTest::newRow("warning message")
        << mutated("warning", [](json& j) { j["message"] = 3; }) << "warning.message:";
    QTest::newRow("worker pid") << mutated("workers_started", [](json& j) {
      j["workers"][1].erase("pid");
    }) << "workers_started.workers[1].pid:";
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
};

QTEST_GUILESS_MAIN(TestRunEvents)
#include "test_run_events.moc"
