// The run monitor (widgets/run_monitor.hpp) fed with events decoded from real runs of
// tests/data/runtime/pp2.json (event lines recorded from `sailor run`, see
// tests/engine/test_run_events.cpp): plot point counts and values, worker table rows and states
// as the run progresses, the error banner for a worker killed mid-run, the prediction line, the
// buttons' signals, a stored run shown like a live one, and the past-runs list.
//
// Set RUN_MONITOR_SCREENSHOT=/path.png to save a picture of the monitor after the finished run
// (with a real display or xvfb-run and QT_QPA_PLATFORM=xcb, for a look at legibility).
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

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
#include "run_monitor.hpp"
#include "sailor/run_events.hpp"

using nlohmann::json;
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
  // a bf16, SGD, recomputing job.
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
  }

  void failureWithoutEventsShowsTheMessage() {
    RunMonitor m;
    m.showFailure(QStringLiteral("sailor run refused its input: plan.json.stages[1] ..."));
    QVERIFY(m.errorShown());
    QVERIFY(m.errorText().contains(QLatin1String("plan.json.stages[1]")));
    m.clearRun();
    QVERIFY(!m.errorShown());
  }

  void predictionLine() {
    RunMonitor m;
    for (const sailor::RunEvent& e : ok_) m.applyEvent(e);
    auto* line = m.iterationTimePlot()->findChild<QCPItemStraightLine*>();
    QVERIFY(line);  // items are QObjects parented to their plot
    QVERIFY(!line->visible());
    m.setPredictedIterationSeconds(40.0);  // above every measured time (about 1-2 s)
    QVERIFY(line->visible());
    QCOMPARE(line->point1->value(), 40.0);
    auto* label = m.iterationTimePlot()->findChild<QCPItemText*>();
    QVERIFY(label && label->visible());
    QVERIFY2(label->text().contains(QLatin1String("40")), qPrintable(label->text()));
    QVERIFY2(m.iterationTimePlot()->yAxis->range().upper >= 40.0, "the axis shows the prediction");
    QVERIFY(m.iterationTimePlot()->toolTip().contains(QLatin1String("CPU")));
    m.setPredictedIterationSeconds(std::nan(""));
    QVERIFY(!line->visible());
    QVERIFY(std::isnan(m.predictedIterationSeconds()));
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
