// The run monitor (widgets/run_monitor.hpp) fed with events decoded from real runs of
// tests/data/runtime/pp2.json (event lines recorded from `sailor run`, see
// tests/engine/test_run_events.cpp): plot point counts and values, worker table rows and states
// as the run progresses, the error banner for a worker killed mid-run, the prediction line, the
// buttons' signals, a stored run shown like a live one, and the past-runs list.
//
// Set RUN_MONITOR_SCREENSHOT=/path.png to save a picture of the monitor after the finished run
// (with a real display or xvfb-run and QT_QPA_PLATFORM=xcb, for a look at legibility).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <QCheckBox>
#include <QComboBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>
#include <QTreeWidget>
#include <nlohmann/json.hpp>
#include <qcustomplot.h>

#include "recorded_events.hpp"
#include "resize_dialog.hpp"
#include "run_monitor.hpp"
#include "sailor/runs/run_events.hpp"

using nlohmann::json;
using sailor::AvailabilitySite;
using sailor::studio::ResizeDialog;
using sailor::studio::RunMonitor;
using State = RunMonitor::WorkerState;

using sailor::testing::decodeAll;
using sailor::testing::readLines;

namespace {

QString cell(const QTableWidget* t, int row, int column) {
  const QTableWidgetItem* item = t->item(row, column);
  return item ? item->text() : QStringLiteral("<no item>");
}

// The stored form of a recorded run, as the controller writes it: every event in events (seq
// 1, 2, ...), every iteration also as a row with its figures in columns and the rest in detail.
struct Stored {
  sailor::RunRecord run;
  std::vector<sailor::IterationRecord> iterations;
  std::vector<sailor::EventRecord> events;
};

Stored storedFrom(const std::vector<std::string>& lines, sailor::RunStatus status) {
  Stored s;
  s.run.id = 7;
  s.run.name = "pp2.json";
  s.run.status = status;
  s.run.world_size = 2;
  std::int64_t seq = 0;
  for (const std::string& l : lines) {
    const json j = json::parse(l);
    sailor::EventRecord e;
    e.run_id = 7;
    e.seq = ++seq;
    e.time = j["time"];
    e.kind = j["event"];
    e.payload = j;
    s.events.push_back(e);
    if (e.kind == "iteration") {
      sailor::IterationRecord it;
      it.run_id = 7;
      it.iteration = j["iteration"];
      it.loss = j["loss"];
      it.iteration_seconds = j["iteration_seconds"];
      it.tokens_per_second = j["tokens_per_second"];
      it.detail = json{{"stages", j["stages"]},
                       {"ranks", j["ranks"]},
                       {"grad_norm", j["grad_norm"]},
                       {"learning_rate", j["learning_rate"]}};
      s.iterations.push_back(it);
      s.run.iterations_done = it.iteration + 1;
    }
    if (e.kind == "run_started") s.run.iterations_planned = j["iterations"];
  }
  return s;
}

// --- A synthetic elastic run ---------------------------------------------------------
// 4 GPUs (2 stages x 2 replicas) train iterations 0-4 with a checkpoint of iteration 3; a worker
// is lost and the run goes on at iteration 5 on 3 GPUs in 3 stages (state from the peers);
// iterations 5-6; the trace leaves too few GPUs and the run pauses before iteration 7; a worker
// joins (workers_started of generation 2 before its reconfigured event) and the run goes on at
// iteration 7 on the first plan; iterations 7-9; finished.

sailor::Plan elasticPlan(const std::vector<std::pair<int, int>>& layers, int replicas) {
  sailor::Plan p;
  p.microbatch_size = 1;
  for (const auto& [first, last] : layers) {
    sailor::Stage st;
    st.first_layer = first;
    st.last_layer = last;
    for (int r = 0; r < replicas; ++r) st.replicas.push_back({"A100-40", 1, "zone-a"});
    p.stages.push_back(st);
  }
  return p;
}

const sailor::Plan kFourGpus = elasticPlan({{0, 3}, {4, 7}}, 2);
const sailor::Plan kThreeGpus = elasticPlan({{0, 2}, {3, 5}, {6, 7}}, 1);

sailor::RunEvent elasticEvent(sailor::RunEventBody body, int second) {
  sailor::RunEvent e;
  e.run_id = 3;
  e.time =
      QStringLiteral("2026-12-03T10:00:%1.000Z").arg(second, 2, 10, QLatin1Char('0')).toStdString();
  e.body = std::move(body);
  return e;
}

sailor::IterationEvent elasticIteration(int i, const sailor::Plan& plan) {
  sailor::IterationEvent it;
  it.iteration = i;
  it.loss = 5.5 - 0.1 * i;
  it.iteration_seconds = 0.5 + 0.01 * i;
  it.tokens_per_second = 1000 + i;
  it.learning_rate = 1e-3;
  it.grad_norm = 1;
  for (int s = 0; s < static_cast<int>(plan.stages.size()); ++s)
    it.stages.push_back({s, 0.3 + 0.01 * s, 0.1});
  for (const sailor::RankPlacement& r : sailor::placeRanks(plan))
    it.ranks.push_back({r.rank, r.stage, r.replica, 0.5, 0.3, 0.1, 0, 0.1,
                        (100 + r.rank) * std::int64_t{1048576}});
  return it;
}

sailor::ReconfiguredEvent elasticChange(const std::string& cause, int generation, int from,
                                        const sailor::Plan& before, const sailor::Plan& after) {
  sailor::ReconfiguredEvent r;
  r.cause = cause;
  r.detail = cause == "worker_lost" ? "rank 3 exited (killed by signal 9)"
                                    : "trace row 3 at 40 s: 4 A100-40 in zone-a";
  r.generation = generation;
  r.from_iteration = from;
  r.old_plan = before;
  r.new_plan = after;
  r.old_world_size = before.gpuCount();
  r.new_world_size = after.gpuCount();
  r.state_source = "peers";
  r.state_bytes = 7'000'000;
  r.replan_seconds = 0.012;
  r.teardown_seconds = 0.003;
  r.launch_seconds = cause == "worker_lost" ? 0 : 0.5;
  r.group_setup_seconds = 0.045;
  r.rebuild_seconds = 0.020;
  r.transfer_seconds = 0.031;
  r.total_seconds = 0.2;
  return r;
}

std::vector<sailor::RunEvent> elasticRun() {
  std::vector<sailor::RunEvent> out;
  int t = 0;
  // The recorded run's run_started (a complete model and settings) on the 4-GPU plan.
  json first = json::parse(readLines(SAILOR_TEST_DATA "/events_pp2.jsonl").at(0));
  first["name"] = "elastic.json";
  first["world_size"] = 4;
  first["plan"] = kFourGpus.toJson();
  first["iterations"] = 10;
  sailor::RunStartedEvent started =
      std::get<sailor::RunStartedEvent>(sailor::runEventFromJson(first).body);
  out.push_back(elasticEvent(started, t++));
  sailor::WorkersStartedEvent ws;
  ws.store = "file:/tmp/store";
  for (const sailor::RankPlacement& r : sailor::placeRanks(kFourGpus))
    ws.workers.push_back({r, 100 + r.rank});
  out.push_back(elasticEvent(ws, t++));
  out.push_back(
      elasticEvent(sailor::WorkersReadyEvent{"gloo", {"cpu", "cpu", "cpu", "cpu"}, 1.0}, t++));
  for (int i = 0; i < 5; ++i) {
    out.push_back(elasticEvent(elasticIteration(i, kFourGpus), t++));
    if (i == 3)
      out.push_back(
          elasticEvent(sailor::CheckpointEvent{3, "/tmp/ckpt/step-3", 2, 4096, 0.01, {}}, t++));
  }
  out.push_back(elasticEvent(elasticChange("worker_lost", 1, 5, kFourGpus, kThreeGpus), t++));
  for (int i = 5; i < 7; ++i) out.push_back(elasticEvent(elasticIteration(i, kThreeGpus), t++));
  out.push_back(
      elasticEvent(sailor::PausedEvent{"trace", "2 GPUs cannot hold the model (needs 3)", 7}, t++));
  sailor::WorkersStartedEvent joiner;
  joiner.store = "file:/tmp/store";
  joiner.generation = 2;
  joiner.workers.push_back({sailor::placeRanks(kFourGpus)[3], 200});
  out.push_back(elasticEvent(joiner, t++));
  out.push_back(elasticEvent(elasticChange("trace", 2, 7, kThreeGpus, kFourGpus), t++));
  for (int i = 7; i < 10; ++i) out.push_back(elasticEvent(elasticIteration(i, kFourGpus), t++));
  out.push_back(
      elasticEvent(sailor::RunFinishedEvent{sailor::RunStatus::Finished, 10, 12.0, ""}, t++));
  return out;
}

// The plots whose x axis is the iteration.
std::vector<QCustomPlot*> iterationPlots(const RunMonitor& m) {
  return {m.lossPlot(), m.iterationTimePlot(), m.throughputPlot(), m.stageTimePlot()};
}

// The x of each item of type T named `name` on `plot`, sorted.
template <typename T>
std::vector<double> markerKeys(const QCustomPlot* plot, const QString& name) {
  std::vector<double> keys;
  for (const T* item : plot->findChildren<T*>(name)) {
    if constexpr (std::is_same_v<T, QCPItemStraightLine>) {
      // A vertical line: both points at the same iteration.
      if (item->point1->key() != item->point2->key()) return {-1};
      keys.push_back(item->point1->key());
    } else {
      keys.push_back(item->start->key());
    }
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

QStringList labelTexts(const QCustomPlot* plot) {
  QStringList texts;
  for (const QCPItemText* t :
       plot->findChildren<QCPItemText*>(QStringLiteral("reconfigurationMarkerLabel")))
    if (t->visible()) texts << t->text();
  texts.sort();
  return texts;
}

}  // namespace

class TestRunMonitor : public QObject {
  Q_OBJECT

 private:
  std::vector<std::string> ok_lines_, failed_lines_;
  std::vector<sailor::RunEvent> ok_, failed_;

  // The checks every display of the finished recorded run must pass, live or stored.
  void checkFinishedRun(const RunMonitor& m) {
    QCOMPARE(m.lossPlot()->graph(0)->dataCount(), 5);
    QCOMPARE(m.iterationTimePlot()->graph(0)->dataCount(), 5);
    QCOMPARE(m.throughputPlot()->graph(0)->dataCount(), 5);
    QCOMPARE(m.stageTimePlot()->graphCount(), 4);  // 2 stages x (compute, communication)
    for (int g = 0; g < 4; ++g) QCOMPARE(m.stageTimePlot()->graph(g)->dataCount(), 5);
    QCOMPARE(m.memoryBars()->dataCount(), 2);  // one bar per rank

    // Values: the events' own figures, in iteration order.
    int i = 0;
    std::vector<double> peak_mib(2, 0);
    for (const sailor::RunEvent& e : ok_) {
      const auto* it = e.as<sailor::IterationEvent>();
      if (!it) continue;
      QCOMPARE(m.lossPlot()->graph(0)->data()->at(i)->key, double(it->iteration));
      QCOMPARE(m.lossPlot()->graph(0)->data()->at(i)->value, it->loss);
      QCOMPARE(m.iterationTimePlot()->graph(0)->data()->at(i)->value, it->iteration_seconds);
      QCOMPARE(m.throughputPlot()->graph(0)->data()->at(i)->value, it->tokens_per_second);
      QCOMPARE(m.stageTimePlot()->graph(3)->data()->at(i)->value,
               it->stages[1].communication_seconds);
      for (const sailor::RunRankTimes& r : it->ranks)
        peak_mib[static_cast<std::size_t>(r.rank)] = std::max(
            peak_mib[static_cast<std::size_t>(r.rank)], double(r.peak_memory_bytes) / 1048576.0);
      ++i;
    }
    QCOMPARE(m.memoryBars()->data()->at(1)->key, 1.0);
    QCOMPARE(m.memoryBars()->data()->at(1)->value, peak_mib[1]);

    const QTableWidget* t = m.workerTable();
    QCOMPARE(t->rowCount(), 2);
    const auto* started = ok_[1].as<sailor::WorkersStartedEvent>();
    for (int r = 0; r < 2; ++r) {
      QCOMPARE(cell(t, r, RunMonitor::ColRank), QString::number(r));
      QCOMPARE(cell(t, r, RunMonitor::ColStage), QString::number(r));
      QCOMPARE(cell(t, r, RunMonitor::ColGpu), QStringLiteral("A100-40"));
      QCOMPARE(cell(t, r, RunMonitor::ColZone), QStringLiteral("us-central1-a"));
      QCOMPARE(cell(t, r, RunMonitor::ColPid),
               QString::number(started->workers[static_cast<std::size_t>(r)].pid));
      QCOMPARE(cell(t, r, RunMonitor::ColDevice), QStringLiteral("cpu"));
      QCOMPARE(cell(t, r, RunMonitor::ColState), RunMonitor::workerStateName(State::Finished));
      QVERIFY2(cell(t, r, RunMonitor::ColLastIteration).startsWith(QLatin1String("4 (")),
               qPrintable(cell(t, r, RunMonitor::ColLastIteration)));
    }
    QVERIFY(!m.errorShown());
    QVERIFY2(m.statusText().contains(QLatin1String("iteration 5 of 5")),
             qPrintable(m.statusText()));
  }

  // The elastic run's end state, live or stored: a marker per reconfiguration on every iteration
  // plot at its first iteration, labelled; the checkpoint's tick; the new world's workers; the
  // Reconfigurations tab; no pause left.
  void checkElasticRunEnd(const RunMonitor& m) {
    const QString lost = QStringLiteral("4\u21923 GPUs (worker lost)");
    const QString trace = QStringLiteral("3\u21924 GPUs (trace)");
    for (const QCustomPlot* p : iterationPlots(m)) {
      QCOMPARE(markerKeys<QCPItemStraightLine>(p, QStringLiteral("reconfigurationMarker")),
               (std::vector<double>{5, 7}));
      QCOMPARE(labelTexts(p), (QStringList{trace, lost}));
      QCOMPARE(markerKeys<QCPItemLine>(p, QStringLiteral("checkpointMarker")),
               std::vector<double>{3});
    }
    QCOMPARE(labelTexts(m.memoryPlot()),
             QStringList{QStringLiteral("since iteration 7: ") + trace});
    // Labels right of the plot's middle stand left of their line (the frame would cut them).
    for (const QCPItemText* label :
         m.lossPlot()->findChildren<QCPItemText*>(QStringLiteral("reconfigurationMarkerLabel"))) {
      const bool right_half = label->position->key() > m.lossPlot()->xAxis->range().center();
      QCOMPARE(label->positionAlignment().testFlag(Qt::AlignRight), right_half);
    }
    // 2 stages, then 3: a series for stage 2 with the points of iterations 5 and 6 only.
    QCOMPARE(m.stageTimePlot()->graphCount(), 6);
    QCOMPARE(m.stageTimePlot()->graph(4)->dataCount(), 2);
    QCOMPARE(m.stageTimePlot()->graph(4)->data()->at(0)->key, 5.0);
    QCOMPARE(m.stageTimePlot()->graph(0)->dataCount(), 10);
    QCOMPARE(m.lossPlot()->graph(0)->dataCount(), 10);

    const QTableWidget* t = m.workerTable();
    QCOMPARE(t->rowCount(), 4);
    for (int r = 0; r < 4; ++r) {
      QCOMPARE(cell(t, r, RunMonitor::ColRank), QString::number(r));
      QCOMPARE(cell(t, r, RunMonitor::ColStage), QString::number(r / 2));
      QCOMPARE(cell(t, r, RunMonitor::ColState), RunMonitor::workerStateName(State::Finished));
    }
    // The joiner's pid from its workers_started event; the kept workers' new ranks have none.
    QCOMPARE(cell(t, 3, RunMonitor::ColPid), QStringLiteral("200"));
    QCOMPARE(cell(t, 0, RunMonitor::ColPid), QStringLiteral("-"));
    QCOMPARE(m.memoryBars()->dataCount(), 4);

    const QTreeWidget* v = m.reconfigurationView();
    QCOMPARE(v->topLevelItemCount(), 3);
    const QTreeWidgetItem* first = v->topLevelItem(0);
    QCOMPARE(first->text(RunMonitor::ReconfigColIteration), QStringLiteral("5"));
    QCOMPARE(first->text(RunMonitor::ReconfigColCause), QStringLiteral("worker lost"));
    QCOMPARE(first->text(RunMonitor::ReconfigColGpus), QStringLiteral("4\u21923"));
    QCOMPARE(first->text(RunMonitor::ReconfigColStateSource), QStringLiteral("peers"));
    QCOMPARE(first->text(RunMonitor::ReconfigColLost), QStringLiteral("0"));
    QCOMPARE(first->text(RunMonitor::ReconfigColPhases),
             QStringLiteral("re-plan 12 ms, teardown 3 ms, groups 45 ms, rebuild 20 ms, "
                            "transfer 31 ms (7.0 MB), total 0.20 s"));
    QCOMPARE(first->text(RunMonitor::ReconfigColPlans),
             QStringLiteral("4 GPU(s) in 2 stage(s) \u2192 3 GPU(s) in 3 stage(s)"));
    const QString tip = first->toolTip(RunMonitor::ReconfigColPlans);
    for (const char* needle : {"rank 3 exited", "Before: 4 GPU(s)", "After: 3 GPU(s)",
                               "stage 2 (layers 6-7): 1x A100-40"})
      QVERIFY2(tip.contains(QLatin1String(needle)), qPrintable(tip + " lacks " + needle));
    QCOMPARE(v->topLevelItem(1)->text(RunMonitor::ReconfigColEvent), QStringLiteral("paused"));
    QCOMPARE(v->topLevelItem(1)->text(RunMonitor::ReconfigColIteration), QStringLiteral("7"));
    // The join: launch shows, as workers were started.
    QVERIFY2(v->topLevelItem(2)
                 ->text(RunMonitor::ReconfigColPhases)
                 .contains(QLatin1String("teardown 3 ms, launch 500 ms, groups 45 ms")),
             qPrintable(v->topLevelItem(2)->text(RunMonitor::ReconfigColPhases)));

    const QString log = m.logView()->toPlainText();
    for (const char* needle :
         {"reconfigured at iteration 5: 4\u21923 GPUs (worker lost): rank 3 exited",
          "re-plan 12 ms, teardown 3 ms",
          "plan before: 4 GPU(s), microbatch 1: stage 0 (layers 0-3)", "plan after: 3 GPU(s)",
          "checkpoint of iteration 3: 2 shard(s)",
          "paused before iteration 7 (trace): waiting for resources: 2 GPUs cannot hold",
          "1 worker process(es) joining (generation 2)"})
      QVERIFY2(log.contains(QString::fromUtf8(needle)), qPrintable(log + "\nlacks " + needle));
    QVERIFY(!m.pausedShown());
    QVERIFY2(!m.statusText().contains(QLatin1String("paused")), qPrintable(m.statusText()));
  }

 private slots:
  void initTestCase() {
    ok_lines_ = readLines(SAILOR_TEST_DATA "/events_pp2.jsonl");
    failed_lines_ = readLines(SAILOR_TEST_DATA "/events_pp2_failed.jsonl");
    ok_ = decodeAll(ok_lines_);
    failed_ = decodeAll(failed_lines_);
    QCOMPARE(ok_.size(), std::size_t{9});
    QCOMPARE(failed_.size(), std::size_t{9});
  }

  // Events one at a time, as a live run delivers them, with the states after each step.
  void liveRunStepByStep() {
    RunMonitor m;
    QVERIFY(!m.statusText().isEmpty());
    m.applyEvent(ok_[0]);  // run_started
    QCOMPARE(m.runId(), std::int64_t{1});
    QCOMPARE(m.workerTable()->rowCount(), 0);
    QCOMPARE(m.stageTimePlot()->graphCount(), 4);  // graphs from the plan's stages

    m.applyEvent(ok_[1]);  // workers_started
    QCOMPARE(m.workerTable()->rowCount(), 2);
    QCOMPARE(m.workerState(0), std::optional<State>(State::Starting));
    QCOMPARE(cell(m.workerTable(), 1, RunMonitor::ColState),
             RunMonitor::workerStateName(State::Starting));

    m.applyEvent(ok_[2]);  // workers_ready
    QCOMPARE(m.workerState(1), std::optional<State>(State::Ready));

    m.applyEvent(ok_[3]);  // iteration 0
    QCOMPARE(m.workerState(0), std::optional<State>(State::Running));
    QCOMPARE(m.workerState(1), std::optional<State>(State::Running));
    QCOMPARE(m.lossPlot()->graph(0)->dataCount(), 1);
    QVERIFY2(m.statusText().contains(QLatin1String("iteration 1 of 5")),
             qPrintable(m.statusText()));

    for (std::size_t i = 4; i < ok_.size(); ++i) m.applyEvent(ok_[i]);
    checkFinishedRun(m);
    QVERIFY(!m.workerState(2));  // no rank 2

    if (const QString shot = qEnvironmentVariable("RUN_MONITOR_SCREENSHOT"); !shot.isEmpty()) {
      m.setPredictedIterationSeconds(0.35);
      m.resize(1280, 800);
      m.show();
      QVERIFY(QTest::qWaitForWindowExposed(&m));
      for (QCustomPlot* p : {m.lossPlot(), m.iterationTimePlot(), m.throughputPlot(),
                             m.stageTimePlot(), m.memoryPlot()})
        p->replot();
      QVERIFY(m.grab().save(shot));
    }
  }

  // An elastic run event by event: markers, worker rows and the pause at each step.
  void elasticRunLive() {
    const std::vector<sailor::RunEvent> events = elasticRun();
    RunMonitor m;
    std::size_t i = 0;
    auto apply_until = [&](auto done) {
      for (; i < events.size(); ++i) {
        m.applyEvent(events[i]);
        if (done(events[i])) {
          ++i;
          return;
        }
      }
      QFAIL("the event sequence ended early");
    };
    // Up to the loss of a worker: no marker but the checkpoint's, 4 rows.
    apply_until([](const sailor::RunEvent& e) {
      const auto* it = e.as<sailor::IterationEvent>();
      return it && it->iteration == 4;
    });
    for (const QCustomPlot* p : iterationPlots(m)) {
      QVERIFY(markerKeys<QCPItemStraightLine>(p, QStringLiteral("reconfigurationMarker")).empty());
      QCOMPARE(markerKeys<QCPItemLine>(p, QStringLiteral("checkpointMarker")),
               std::vector<double>{3});
    }
    QCOMPARE(m.workerTable()->rowCount(), 4);
    QCOMPARE(m.memoryBars()->dataCount(), 4);
    QVERIFY(labelTexts(m.memoryPlot()).isEmpty());

    // 4 -> 3 at iteration 5: a marker at x = 5 on every iteration plot, inside its x range,
    // before the new world reports; the new world's 3 rows, one per stage.
    apply_until([](const sailor::RunEvent& e) { return e.as<sailor::ReconfiguredEvent>(); });
    const QString label = QStringLiteral("4\u21923 GPUs (worker lost)");
    QCOMPARE(RunMonitor::reconfigurationLabel(*events[i - 1].as<sailor::ReconfiguredEvent>()),
             label);
    for (const QCustomPlot* p : iterationPlots(m)) {
      QCOMPARE(markerKeys<QCPItemStraightLine>(p, QStringLiteral("reconfigurationMarker")),
               std::vector<double>{5});
      QCOMPARE(labelTexts(p), QStringList{label});
      QVERIFY2(p->xAxis->range().contains(5.0), qPrintable(p->objectName()));
    }
    QCOMPARE(labelTexts(m.memoryPlot()),
             QStringList{QStringLiteral("since iteration 5: ") + label});
    QCOMPARE(m.memoryBars()->dataCount(), 0);  // the new world has not reported yet
    QCOMPARE(m.reconfigurations().size(), std::size_t{1});
    const QTableWidget* t = m.workerTable();
    QCOMPARE(t->rowCount(), 3);
    for (int r = 0; r < 3; ++r) {
      QCOMPARE(cell(t, r, RunMonitor::ColRank), QString::number(r));
      QCOMPARE(cell(t, r, RunMonitor::ColStage), QString::number(r));
      QCOMPARE(cell(t, r, RunMonitor::ColReplica), QStringLiteral("0"));
      QCOMPARE(cell(t, r, RunMonitor::ColGpu), QStringLiteral("A100-40"));
      QCOMPARE(m.workerState(r), std::optional<State>(State::Ready));
    }
    QVERIFY(!m.workerState(3));
    QCOMPARE(m.stageTimePlot()->graphCount(), 6);  // stage 2's series, from the new plan

    // Iterations 5 and 6 on the new world, then the pause.
    apply_until([](const sailor::RunEvent& e) {
      const auto* it = e.as<sailor::IterationEvent>();
      return it && it->iteration == 6;
    });
    QCOMPARE(m.workerState(2), std::optional<State>(State::Running));
    QCOMPARE(m.memoryBars()->dataCount(), 3);
    QVERIFY(cell(t, 2, RunMonitor::ColLastIteration).startsWith(QLatin1String("6 (")));
    QVERIFY(!m.pausedShown());
    apply_until([](const sailor::RunEvent& e) { return e.as<sailor::PausedEvent>(); });
    QVERIFY(m.pausedShown());
    QCOMPARE(m.pausedText(), QStringLiteral("Paused: waiting for resources: 2 GPUs cannot hold "
                                            "the model (needs 3)"));
    QVERIFY2(m.statusText().contains(QLatin1String("paused: waiting for resources")),
             qPrintable(m.statusText()));
    QCOMPARE(m.workerState(0), std::optional<State>(State::Paused));
    QVERIFY(!m.errorShown());

    // The joiner's workers_started keeps the pause and the 3 rows until the reconfiguration.
    apply_until([](const sailor::RunEvent& e) { return e.as<sailor::WorkersStartedEvent>(); });
    QVERIFY(m.pausedShown());
    QCOMPARE(t->rowCount(), 3);
    apply_until([](const sailor::RunEvent& e) { return e.as<sailor::ReconfiguredEvent>(); });
    QVERIFY(!m.pausedShown());
    QVERIFY(m.pausedText().isEmpty());
    QVERIFY2(!m.statusText().contains(QLatin1String("paused")), qPrintable(m.statusText()));
    QCOMPARE(t->rowCount(), 4);
    QCOMPARE(cell(t, 3, RunMonitor::ColPid), QStringLiteral("200"));

    for (; i < events.size(); ++i) m.applyEvent(events[i]);
    checkElasticRunEnd(m);

    // The next run clears the markers and the tab.
    m.applyEvent(events[0]);
    for (const QCustomPlot* p : iterationPlots(m)) {
      QVERIFY(
          p->findChildren<QCPItemStraightLine*>(QStringLiteral("reconfigurationMarker")).isEmpty());
      QVERIFY(p->findChildren<QCPItemLine*>(QStringLiteral("checkpointMarker")).isEmpty());
    }
    QVERIFY(labelTexts(m.memoryPlot()).isEmpty());
    QCOMPARE(m.reconfigurationView()->topLevelItemCount(), 0);
    QVERIFY(m.reconfigurations().empty());
  }

  // The same run reopened from the store (its events round-tripped through their JSON, as the
  // controller stores them) shows the same.
  void elasticRunStored() {
    Stored s;
    s.run.id = 3;
    s.run.name = "elastic.json";
    s.run.status = sailor::RunStatus::Finished;
    s.run.world_size = 4;
    s.run.iterations_planned = 10;
    s.run.iterations_done = 10;
    std::int64_t seq = 0;
    for (const sailor::RunEvent& e : elasticRun()) {
      sailor::EventRecord rec;
      rec.run_id = 3;
      rec.seq = ++seq;
      rec.time = e.time;
      rec.kind = e.kind();
      rec.payload = sailor::toJson(e);
      s.events.push_back(rec);
      if (const auto* it = e.as<sailor::IterationEvent>())
        s.iterations.push_back(sailor::iterationRecord(3, *it));
    }
    RunMonitor m;
    m.showRun(s.run, s.iterations, s.events);
    QVERIFY2(!m.logView()->toPlainText().contains(QLatin1String("could not be read")),
             qPrintable(m.logView()->toPlainText()));
    checkElasticRunEnd(m);
    QVERIFY(m.statusText().contains(QLatin1String("Stored run 3")));

    // Stopped while paused: the stored run ends paused no more, the stop says why it ended.
    Stored paused = s;
    const auto at = std::find_if(paused.events.begin(), paused.events.end(),
                                 [](const sailor::EventRecord& e) { return e.kind == "paused"; });
    paused.events.erase(at + 1, paused.events.end());
    paused.run.status = sailor::RunStatus::Stopped;
    m.showRun(paused.run, {}, paused.events);
    QVERIFY(!m.pausedShown());
    QCOMPARE(m.workerState(0), std::optional<State>(State::Stopped));
    QCOMPARE(m.reconfigurationView()->topLevelItemCount(), 2);
  }

  // State restored from a checkpoint: the iterations after it are trained again, so their points
  // go; a resume likewise, with its own marker.
  void reconfigurationFromACheckpointDropsRedoneIterations() {
    std::vector<sailor::RunEvent> events = elasticRun();
    RunMonitor m;
    for (const sailor::RunEvent& e : events) {
      if (e.as<sailor::ReconfiguredEvent>()) break;
      m.applyEvent(e);
    }
    QCOMPARE(m.lossPlot()->graph(0)->dataCount(), 5);
    sailor::ReconfiguredEvent r = elasticChange("worker_lost", 1, 4, kFourGpus, kThreeGpus);
    r.state_source = "checkpoint";
    r.iterations_lost = 1;
    m.applyEvent(elasticEvent(r, 30));
    QCOMPARE(m.lossPlot()->graph(0)->dataCount(), 4);
    QCOMPARE((m.lossPlot()->graph(0)->data()->constEnd() - 1)->key, 3.0);
    QCOMPARE(m.stageTimePlot()->graph(0)->dataCount(), 4);
    QCOMPARE(m.reconfigurationView()->topLevelItem(0)->text(RunMonitor::ReconfigColStateSource),
             QStringLiteral("checkpoint"));
    QCOMPARE(m.reconfigurationView()->topLevelItem(0)->text(RunMonitor::ReconfigColLost),
             QStringLiteral("1"));

    m.applyEvent(
        elasticEvent(sailor::RunFinishedEvent{sailor::RunStatus::Stopped, 4, 3.0, ""}, 31));
    m.applyEvent(elasticEvent(sailor::ResumedEvent{3, "/tmp/ckpt/step-2", 10, 1}, 32));
    QCOMPARE(m.lossPlot()->graph(0)->dataCount(), 3);
    QVERIFY2(!m.statusText().contains(RunMonitor::runStatusText(sailor::RunStatus::Stopped)),
             qPrintable(m.statusText()));
    for (const QCustomPlot* p : iterationPlots(m))
      QCOMPARE(markerKeys<QCPItemStraightLine>(p, QStringLiteral("resumeMarker")),
               std::vector<double>{3});
    QVERIFY(m.logView()->toPlainText().contains(QLatin1String("resumed at iteration 3 from")));
    // The restarted workers' world replaces the table, whatever generation it counts from.
    sailor::WorkersStartedEvent restarted;
    restarted.store = "file:/tmp/store";
    restarted.generation = 4;
    for (const sailor::RankPlacement& place : sailor::placeRanks(kFourGpus))
      restarted.workers.push_back({place, 300 + place.rank});
    m.applyEvent(elasticEvent(restarted, 33));
    QCOMPARE(m.workerTable()->rowCount(), 4);
    QCOMPARE(cell(m.workerTable(), 3, RunMonitor::ColPid), QStringLiteral("303"));
    QCOMPARE(m.workerState(3), std::optional<State>(State::Starting));
  }

  // A rank SIGKILLed mid-run: the error banner names the rank, its place and the message; that
  // rank is failed and the others stopped; the job's bf16 warning is in the log.
  void errorBannerForAKilledRank() {
    RunMonitor m;
    for (const sailor::RunEvent& e : failed_) {
      m.applyEvent(e);
      if (e.as<sailor::RunErrorEvent>()) {
        QVERIFY(m.errorShown());
        QCOMPARE(m.workerState(1), std::optional<State>(State::Failed));
        QCOMPARE(m.workerState(0), std::optional<State>(State::Running));
      } else if (!e.as<sailor::RunFinishedEvent>()) {
        QVERIFY(!m.errorShown());
      }
    }
    const QString text = m.errorText();
    for (const char* needle : {"Rank 1 failed", "stage 1", "replica 0", "tp rank 0", "SIGKILL"})
      QVERIFY2(text.contains(QLatin1String(needle)), qPrintable(text + " lacks " + needle));
    QCOMPARE(m.workerState(1), std::optional<State>(State::Failed));
    QCOMPARE(m.workerState(0), std::optional<State>(State::Stopped));
    QCOMPARE(cell(m.workerTable(), 1, RunMonitor::ColState),
             RunMonitor::workerStateName(State::Failed));
    QCOMPARE(m.lossPlot()->graph(0)->dataCount(), 3);
    QVERIFY(m.logView()->toPlainText().contains(QLatin1String("bf16")));
    QVERIFY2(m.statusText().contains(RunMonitor::runStatusText(sailor::RunStatus::Failed)),
             qPrintable(m.statusText()));

    // The next run clears the banner and the previous run's points.
    m.applyEvent(ok_[0]);
    QVERIFY(!m.errorShown());
    QCOMPARE(m.lossPlot()->graph(0)->dataCount(), 0);
    QCOMPARE(m.workerTable()->rowCount(), 0);
  }

  // The log's first line says how the workers train: the recorded run's defaults, then a run of
  // a bf16, SGD, recomputing job, then one whose plan overlaps the gradient reduction, shares
  // the optimizer state over its replicas and interleaves two model chunks per GPU.
  void trainingSettingsInTheLog() {
    RunMonitor m;
    m.applyEvent(ok_[0]);
    QString log = m.logView()->toPlainText();
    QVERIFY2(log.contains(QLatin1String("float32, AdamW;")), qPrintable(log));
    json j = json::parse(ok_lines_[0]);
    j["precision"] = "bf16";
    j["optimizer"] = "sgd";
    j["recompute"] = "full";
    m.applyEvent(sailor::parseRunEvent(j.dump()));
    log = m.logView()->toPlainText();
    QVERIFY2(log.contains(QLatin1String(
                 "float32, bf16 compute, SGD with momentum, activations recomputed;")),
             qPrintable(log));
    j = json::parse(ok_lines_[0]);
    j["plan"]["schedule"] = {
        {"overlap_grad_reduce", true}, {"sharding", "optimizer"}, {"virtual_stages", 2}};
    m.applyEvent(sailor::parseRunEvent(j.dump()));
    log = m.logView()->toPlainText();
    QVERIFY2(
        log.contains(QLatin1String("float32, AdamW, overlapped gradient reduction, distributed "
                                   "optimizer, 2 model chunks per GPU (interleaved 1F1B);")),
        qPrintable(log));
  }

  void failureWithoutEventsShowsTheMessage() {
    RunMonitor m;
    m.showFailure(QStringLiteral("sailor run refused its input: plan.json.stages[1] ..."));
    QVERIFY(m.errorShown());
    QVERIFY(m.errorText().contains(QLatin1String("plan.json.stages[1]")));
    m.clearRun();
    QVERIFY(!m.errorShown());
  }

  // The plan's prediction is drawn before a run starts; a run without a prediction of its own
  // (here a CPU rehearsal of a scaled model) gets no line for the plan's GPUs, and the label
  // says so plainly.
  void predictionLine() {
    RunMonitor m;
    auto* line = m.iterationTimePlot()->findChild<QCPItemStraightLine*>();
    QVERIFY(line);  // items are QObjects parented to their plot
    QVERIFY(!line->visible());
    m.setPredictedIterationSeconds(40.0);
    QVERIFY(line->visible());
    QCOMPARE(line->point1->value(), 40.0);
    auto* label = m.iterationTimePlot()->findChild<QCPItemText*>();
    QVERIFY(label && label->visible());
    QCOMPARE(label->text(), QStringLiteral("predicted 40.0 s for the plan's GPUs"));
    QVERIFY2(m.iterationTimePlot()->yAxis->range().upper >= 40.0, "the axis shows the prediction");
    QVERIFY(m.iterationTimePlot()->toolTip().contains(QLatin1String("CPU")));
    for (const sailor::RunEvent& e : ok_) m.applyEvent(e);
    QVERIFY(!line->visible());
    QVERIFY(label->visible());
    QCOMPARE(label->text(), QStringLiteral("no prediction for this run's device; the plan's "
                                           "40.0 s is for its A100-40, not comparable"));
    QVERIFY2(m.iterationTimePlot()->yAxis->range().upper < 40.0,
             "the axis is the measured times', not the plan's");
    QVERIFY(std::isnan(m.shownPredictionSeconds()));
    QCOMPARE(m.predictedIterationSeconds(), 40.0);
    m.setPredictedIterationSeconds(std::nan(""));
    QVERIFY(!line->visible());
    QVERIFY(!label->visible());
    QVERIFY(std::isnan(m.predictedIterationSeconds()));
  }

  // A run that recorded its prediction for this machine: the dashed line is that prediction,
  // labelled with the device it is for (not the plan's, set by the studio for the plan's
  // A100-40s), and the Prediction tab has its figures beside the measured medians.
  void localPredictionBesideTheMeasurement() {
    std::vector<sailor::RunEvent> events = ok_;
    auto& started = std::get<sailor::RunStartedEvent>(events[0].body);
    sailor::RunPrediction p;
    p.device = "cpu-test";
    p.profile = "/prof";
    p.model = "OPT-350M-runtime-h64-s16";
    p.measured_at = "2026-12-04T18:02:11Z";
    p.iteration_seconds = 1.5;
    p.stages = {{0, 0.9, 0.6, 0.1, 0.2, 0.0, 4, 300 << 20},
                {1, 1.0, 0.5, 0.1, 0.2, 0.0, 4, 200 << 20}};
    p.peak_memory_bytes = 300 << 20;
    started.prediction = p;
    RunMonitor m;
    m.setPredictedIterationSeconds(40.0);  // the plan's, for its GPUs
    m.applyEvent(events[0]);
    auto* line = m.iterationTimePlot()->findChild<QCPItemStraightLine*>();
    QVERIFY(line && line->visible());
    QCOMPARE(line->point1->value(), 1.5);
    QCOMPARE(m.shownPredictionSeconds(), 1.5);
    QCOMPARE(m.predictedIterationSeconds(), 40.0);  // kept for runs without their own
    auto* label = m.iterationTimePlot()->findChild<QCPItemText*>();
    QVERIFY(label);
    QCOMPARE(label->text(), m.predictionLabelText());
    QVERIFY2(label->text().contains(QLatin1String(
                 "predicted 1.5 s for cpu-test (profile /prof, measured 2026-12-04)")),
             qPrintable(label->text()));
    QVERIFY(m.comparisonRows().empty());
    QVERIFY2(m.comparisonNote().contains(QLatin1String("no iteration measured yet")),
             qPrintable(m.comparisonNote()));
    for (std::size_t i = 1; i < events.size(); ++i) m.applyEvent(events[i]);
    const auto rows = m.comparisonRows();
    QCOMPARE(rows.size(), std::size_t{8});  // iteration; 3 per stage; peak memory
    QCOMPARE(rows[0].quantity, std::string("iteration seconds"));
    QCOMPARE(rows[0].predicted, 1.5);
    QCOMPARE(rows[0].measured, 1.634998292);  // median of iterations 2-4 of the 5
    auto* table = m.findChild<QTableWidget*>(QStringLiteral("predictionComparison"));
    QVERIFY(table);
    QCOMPARE(table->rowCount(), 8);
    QCOMPARE(cell(table, 0, 0), QStringLiteral("iteration seconds"));
    QCOMPARE(cell(table, 0, 3), QStringLiteral("-8.3%"));  // 1.5 / 1.635 - 1
    QVERIFY2(m.comparisonNote().contains(QLatin1String("median of iterations 2-4")),
             qPrintable(m.comparisonNote()));
    QVERIFY2(
        m.logView()->toPlainText().contains(QLatin1String("Prediction predicted for cpu-test")),
        qPrintable(m.logView()->toPlainText()));

    // Without a local prediction: no line; the label names the plan's GPU type and says the
    // plan's figure is not comparable; the note says why.
    started.prediction.reset();
    started.prediction_note = "no local prediction: no profile of cpu-test for OPT-350M";
    m.applyEvent(events[0]);
    QVERIFY(!line->visible());
    QCOMPARE(label->text(), QStringLiteral("no prediction for this run's device; the plan's "
                                           "40.0 s is for its A100-40, not comparable"));
    QVERIFY(m.comparisonRows().empty());
    QCOMPARE(m.comparisonNote(),
             QStringLiteral("no local prediction: no profile of cpu-test for OPT-350M"));
  }

  // Resize... of an elastic run: offered only while a resizable run goes; its dialog has a spin
  // box per (GPU type, zone) of the plan and the scenario's pools, prefilled with the latest
  // plan's GPUs (run_started's, then each reconfigured event's new plan); OK asks for the counts
  // chosen; the answer goes to the log (and the banner when refused).
  void resizeDialogFollowsTheRunsPlan() {
    const std::vector<sailor::RunEvent> events = elasticRun();
    RunMonitor m;
    auto* resize = m.findChild<QPushButton*>(QStringLiteral("resize"));
    auto* elastic = m.findChild<QCheckBox*>(QStringLiteral("elastic"));
    QVERIFY(resize && elastic);
    QVERIFY(!m.elasticRequested());
    elastic->setChecked(true);
    QVERIFY(m.elasticRequested());
    QSignalSpy requested(&m, &RunMonitor::resizeRequested);

    // Before run_started: no plan, nothing to resize.
    m.setRunning(true);
    m.setResizable(true);
    QVERIFY(!resize->isEnabled());
    std::size_t i = 0;
    for (; i < events.size() && !events[i].as<sailor::ReconfiguredEvent>(); ++i)
      m.applyEvent(events[i]);
    // run_started cleared what the studio said: a run is resizable once the studio says so.
    QVERIFY(!resize->isEnabled());
    const std::vector<sailor::Pool> pools{{"zone-a", "A100-40", 8, 1.0, false, {}, {}, {}},
                                          {"zone-b", "V100-16", 2, 0.5, false, {}, {}, {}}};
    m.setResizable(false, pools, QStringLiteral("not elastic"));
    QVERIFY(!resize->isEnabled());
    QCOMPARE(resize->toolTip(), QStringLiteral("not elastic"));
    m.setResizable(true, pools);
    QVERIFY(resize->isEnabled());
    m.setRunning(false);
    QVERIFY(!resize->isEnabled());
    m.setRunning(true);
    QVERIFY(resize->isEnabled());

    // The 4-GPU plan of run_started.
    std::vector<AvailabilitySite> sites = m.resizeSites();
    QCOMPARE(sites.size(), std::size_t{2});
    QCOMPARE(sites[0], (AvailabilitySite{"A100-40", "zone-a", 4, 8}));
    QCOMPARE(sites[1], (AvailabilitySite{"V100-16", "zone-b", 0, 2}));

    // After the worker was lost: 3 GPUs. The dialog shows them and returns what is chosen.
    m.applyEvent(events[i++]);
    QVERIFY(resize->isEnabled());
    QTest::mouseClick(resize, Qt::LeftButton);
    ResizeDialog* dialog = m.resizeDialog();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QSpinBox* a100 = dialog->spinBox("A100-40", "zone-a");
    QSpinBox* v100 = dialog->spinBox("V100-16", "zone-b");
    QVERIFY(a100 && v100);
    QCOMPARE(dialog->findChildren<QSpinBox*>().size(), 2);
    QCOMPARE(a100->value(), 3);
    QCOMPARE(a100->maximum(), 8);
    QCOMPARE(v100->value(), 0);
    QCOMPARE(v100->maximum(), 2);
    a100->setValue(2);
    v100->setValue(1);
    dialog->accept();
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.at(0).at(0).toLongLong(), qint64{3});
    const auto chosen = requested.at(0).at(1).value<std::vector<AvailabilitySite>>();
    QCOMPARE(chosen.size(), std::size_t{2});
    QCOMPARE(chosen[0], (AvailabilitySite{"A100-40", "zone-a", 2, 8}));
    QCOMPARE(chosen[1], (AvailabilitySite{"V100-16", "zone-b", 1, 2}));
    QTRY_VERIFY(m.resizeDialog() == nullptr);  // closed and deleted

    // Cancel asks nothing.
    QTest::mouseClick(resize, Qt::LeftButton);
    QVERIFY(m.resizeDialog());
    m.resizeDialog()->reject();
    QCOMPARE(requested.count(), 1);

    // The answers: a success in the log only, a refusal in the banner too.
    m.showResizeResult(QStringLiteral("sailor runs resize: run 3: re-planning on 2 A100-40"),
                       false);
    QVERIFY(m.logView()->toPlainText().contains("re-planning on 2 A100-40"));
    QVERIFY(!m.errorShown());
    m.showResizeResult(QStringLiteral("sailor run: a reconfiguration is under way"), true);
    QVERIFY(m.errorShown());
    QVERIFY(m.errorText().contains("a reconfiguration is under way"));

    // The rest of the run: the pause, the trace's 3 -> 4; the latest plan is 4 GPUs again.
    for (; i < events.size() && !events[i].as<sailor::RunFinishedEvent>(); ++i)
      m.applyEvent(events[i]);
    QCOMPARE(m.reconfigurations().size(), std::size_t{2});
    QCOMPARE(m.resizeSites()[0].count, 4);
    // A dialog open when the run ends is closed; a finished run is not resizable.
    QTest::mouseClick(resize, Qt::LeftButton);
    QVERIFY(m.resizeDialog());
    m.applyEvent(events[i]);
    QVERIFY(!resize->isEnabled());
    QTRY_VERIFY(m.resizeDialog() == nullptr);
    QCOMPARE(requested.count(), 1);
  }

  // The places of a plan: tp replicas count every GPU; pools add the places the plan does not use.
  void resizeSitesCountTensorParallelGpus() {
    sailor::Plan p;
    p.stages.push_back({0, 3, {{"A100-40", 2, "zone-a"}, {"A100-40", 2, "zone-b"}}});
    p.stages.push_back({4, 7, {{"A100-40", 1, "zone-a"}}});
    const auto sites = ResizeDialog::sitesOf(p, {{"zone-c", "A100-40", 4, 1.0, false, {}, {}, {}}});
    QCOMPARE(sites.size(), std::size_t{3});
    QCOMPARE(sites[0], (AvailabilitySite{"A100-40", "zone-a", 3, 0}));
    QCOMPARE(sites[1], (AvailabilitySite{"A100-40", "zone-b", 2, 0}));
    QCOMPARE(sites[2], (AvailabilitySite{"A100-40", "zone-c", 0, 4}));
    // No pool known: the spin boxes go up to the dialog's bound.
    ResizeDialog d(7, sites);
    QCOMPARE(d.spinBox("A100-40", "zone-a")->maximum(), ResizeDialog::kMaxGpusPerSite);
    QCOMPARE(d.spinBox("A100-40", "zone-c")->maximum(), 4);
    QVERIFY(d.spinBox("A100-40", "zone-d") == nullptr);
    QVERIFY(d.windowTitle().contains("7"));
  }

  void buttonsEmitRequests() {
    RunMonitor m;
    QSignalSpy start(&m, &RunMonitor::startRequested);
    QSignalSpy stop(&m, &RunMonitor::stopRequested);
    QList<QPushButton*> buttons = m.findChildren<QPushButton*>();
    QPushButton* start_b = nullptr;
    QPushButton* stop_b = nullptr;
    for (QPushButton* b : buttons) {
      if (b->text() == RunMonitor::tr("Start")) start_b = b;
      if (b->text() == RunMonitor::tr("Stop")) stop_b = b;
    }
    QVERIFY(start_b && stop_b);
    QVERIFY(start_b->isEnabled());
    QVERIFY(!stop_b->isEnabled());
    m.findChild<QSpinBox*>()->setValue(7);
    m.findChild<QComboBox*>()->setCurrentIndex(1);
    QTest::mouseClick(start_b, Qt::LeftButton);
    QCOMPARE(start.count(), 1);
    QCOMPARE(start.at(0).at(0).toInt(), 7);
    QCOMPARE(start.at(0).at(1).toString(), QStringLiteral("text"));

    m.setRunning(true);
    QVERIFY(!start_b->isEnabled());
    QVERIFY(stop_b->isEnabled());
    QTest::mouseClick(stop_b, Qt::LeftButton);
    QCOMPARE(stop.count(), 1);
    m.setRunning(false);
    m.setStartAvailable(false, QStringLiteral("no plan selected"));
    QVERIFY(!start_b->isEnabled());
    QCOMPARE(start_b->toolTip(), QStringLiteral("no plan selected"));
  }

  // A stored run shows the same as the live one; iteration rows without their event fill in;
  // a stored event that does not decode is logged and skipped.
  void storedRunShownLikeALiveOne() {
    const Stored s = storedFrom(ok_lines_, sailor::RunStatus::Finished);
    RunMonitor m;
    m.showRun(s.run, s.iterations, s.events);
    checkFinishedRun(m);
    QCOMPARE(m.runId(), std::int64_t{7});
    QVERIFY(m.statusText().contains(QLatin1String("Stored run 7")));

    Stored partial = s;
    std::erase_if(partial.events,
                  [](const sailor::EventRecord& e) { return e.kind == "iteration"; });
    sailor::EventRecord bad;
    bad.seq = 99;
    bad.kind = "iteration";
    bad.payload = json{{"event", "iteration"}, {"run_id", 7}, {"time", "x"}};
    partial.events.insert(partial.events.begin() + 3, bad);
    m.showRun(partial.run, partial.iterations, partial.events);
    QCOMPARE(m.lossPlot()->graph(0)->dataCount(), 5);
    QCOMPARE(m.workerState(0), std::optional<State>(State::Finished));
    QVERIFY2(m.logView()->toPlainText().contains(QLatin1String("iteration.iteration")),
             qPrintable(m.logView()->toPlainText()));

    const Stored f = storedFrom(failed_lines_, sailor::RunStatus::Failed);
    m.showRun(f.run, f.iterations, f.events);
    QVERIFY(m.errorShown());
    QVERIFY(m.errorText().contains(QLatin1String("Rank 1 failed")));
    QCOMPARE(m.lossPlot()->graph(0)->dataCount(), 3);
  }

  void pastRunsListAndReopen() {
    const Stored ok = storedFrom(ok_lines_, sailor::RunStatus::Finished);
    Stored failed = storedFrom(failed_lines_, sailor::RunStatus::Failed);
    failed.run.id = 8;
    failed.run.error = "rank 1 ... was killed by signal 9 (SIGKILL)";
    RunMonitor m;
    m.setPastRuns({sailor::RunListEntry{failed.run, failed.iterations.back().loss},
                   sailor::RunListEntry{ok.run, ok.iterations.back().loss},
                   sailor::RunListEntry{sailor::RunRecord{}, std::nullopt}});
    QTreeWidget* runs = m.pastRunsView();
    QCOMPARE(runs->topLevelItemCount(), 3);
    const QTreeWidgetItem* first = runs->topLevelItem(0);
    QCOMPARE(first->text(RunMonitor::RunColId), QStringLiteral("8"));
    QCOMPARE(first->text(RunMonitor::RunColStatus),
             RunMonitor::runStatusText(sailor::RunStatus::Failed));
    QCOMPARE(first->text(RunMonitor::RunColIterations), QStringLiteral("3 of 50"));
    QCOMPARE(first->text(RunMonitor::RunColFinalLoss),
             QString::number(failed.iterations.back().loss, 'f', 4));
    QVERIFY(first->toolTip(RunMonitor::RunColStatus).contains(QLatin1String("SIGKILL")));
    QCOMPARE(runs->topLevelItem(2)->text(RunMonitor::RunColFinalLoss), QStringLiteral("-"));

    QSignalSpy reopen(&m, &RunMonitor::reopenRequested);
    QSignalSpy refresh(&m, &RunMonitor::refreshRunsRequested);
    runs->setCurrentItem(runs->topLevelItem(1));
    for (QPushButton* b : m.findChildren<QPushButton*>()) {
      if (b->text() == RunMonitor::tr("&Open")) QTest::mouseClick(b, Qt::LeftButton);
      if (b->text() == RunMonitor::tr("&Refresh")) QTest::mouseClick(b, Qt::LeftButton);
    }
    QCOMPARE(reopen.count(), 1);
    QCOMPARE(reopen.at(0).at(0).toLongLong(), qint64{7});
    QCOMPARE(refresh.count(), 1);
    emit runs->itemActivated(runs->topLevelItem(0), 0);
    QCOMPARE(reopen.count(), 2);
    QCOMPARE(reopen.at(1).at(0).toLongLong(), qint64{8});
  }
};

QTEST_MAIN(TestRunMonitor)
#include "test_run_monitor.moc"
