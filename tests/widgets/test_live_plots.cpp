// The Run tab's live plots and workers table (widgets/run/live_plots.hpp): rows per rank and
// their states as workers start, get their devices, report iterations and end; a point per
// iteration on every plot and a bar per rank; iterations trained again dropped; markers on the
// iteration plots and the memory caption of a new world; the prediction kept in the time axis.
#include <cmath>
#include <vector>

#include <QTableWidget>
#include <QTest>
#include <qcustomplot.h>

#include "run/live_plots.hpp"
#include "run_views_tests.hpp"

using sailor::studio::LivePlots;
using State = LivePlots::WorkerState;

namespace {

std::vector<sailor::RunWorker> twoWorkers() {
  std::vector<sailor::RunWorker> workers(2);
  for (int r = 0; r < 2; ++r) {
    workers[static_cast<std::size_t>(r)].place.rank = 1 - r;  // out of order: sorted by rank
    workers[static_cast<std::size_t>(r)].place.stage = 1 - r;
    workers[static_cast<std::size_t>(r)].place.gpu_type = "A100-40";
    workers[static_cast<std::size_t>(r)].pid = 100 + r;
  }
  return workers;
}

sailor::IterationEvent iteration(int i, double seconds) {
  sailor::IterationEvent e;
  e.iteration = i;
  e.loss = 5.5 - 0.1 * i;
  e.iteration_seconds = seconds;
  e.tokens_per_second = 100;
  for (int s = 0; s < 2; ++s) e.stages.push_back({s, 0.5, 0.1});
  for (int r = 0; r < 2; ++r) {
    sailor::RunRankTimes t;
    t.rank = r;
    t.seconds = seconds;
    t.peak_memory_bytes = (100 + 10 * r) << 20;
    e.ranks.push_back(t);
  }
  return e;
}

QString cell(const QTableWidget* t, int row, int column) {
  const QTableWidgetItem* item = t->item(row, column);
  return item ? item->text() : QStringLiteral("<no item>");
}

}  // namespace

class TestLivePlots : public QObject {
  Q_OBJECT

 private slots:
  void workerRowsFollowTheirStates() {
    LivePlots p;
    p.setWorkers(twoWorkers(), State::Starting, QStringLiteral("2026-11-30T13:05:00Z"));
    QTableWidget* t = p.workerTable();
    QCOMPARE(t->rowCount(), 2);
    QCOMPARE(cell(t, 0, LivePlots::ColRank), QStringLiteral("0"));
    QCOMPARE(cell(t, 0, LivePlots::ColPid), QStringLiteral("101"));
    QCOMPARE(cell(t, 0, LivePlots::ColState), LivePlots::workerStateName(State::Starting));
    QCOMPARE(p.workerCount(), 2);

    p.setDevices({"cpu", "cpu"}, {});
    QCOMPARE(p.workerState(1), std::optional<State>(State::Ready));
    QCOMPARE(cell(t, 1, LivePlots::ColDevice), QStringLiteral("cpu"));

    p.addIteration(iteration(0, 1.5), {});
    QCOMPARE(p.workerState(0), std::optional<State>(State::Running));
    QCOMPARE(cell(t, 0, LivePlots::ColLastIteration), QStringLiteral("0 (1.5 s)"));

    p.setWorkerState(1, State::Failed, QStringLiteral("killed"));
    p.setLiveWorkersState(State::Finished);
    QCOMPARE(p.workerState(0), std::optional<State>(State::Finished));
    QCOMPARE(p.workerState(1), std::optional<State>(State::Failed));  // stays failed
    QVERIFY(!p.workerState(2));
  }

  // Every plot gets the iteration; the memory bars are each rank's peak; a drop removes the
  // iterations trained again.
  void iterationsOnEveryPlot() {
    LivePlots p;
    p.ensureStageGraphs(2);
    QCOMPARE(p.stageTimePlot()->graphCount(), 4);
    for (int i = 0; i < 4; ++i) p.addIteration(iteration(i, 1.0 + i), {});
    for (QCustomPlot* plot : {p.lossPlot(), p.iterationTimePlot(), p.throughputPlot()})
      QCOMPARE(plot->graph(0)->dataCount(), 4);
    QCOMPARE(p.stageTimePlot()->graph(3)->dataCount(), 4);
    QCOMPARE(p.memoryBars()->dataCount(), 2);
    QCOMPARE(p.memoryBars()->data()->at(1)->value, 110.0);
    QVERIFY(p.iterationTimePlot()->yAxis->range().upper >= 4.0);

    p.dropIterationsFrom(2);
    QCOMPARE(p.lossPlot()->graph(0)->dataCount(), 2);
    QCOMPARE(p.stageTimePlot()->graph(0)->dataCount(), 2);

    p.clear();
    QCOMPARE(p.lossPlot()->graph(0)->dataCount(), 0);
    QCOMPARE(p.memoryBars()->dataCount(), 0);
    QCOMPARE(p.workerTable()->rowCount(), 0);
  }

  // A marker is a line (and its label) on each of the four iteration plots, within their x range;
  // a checkpoint is a tick; clear removes them.
  void markersOnTheIterationPlots() {
    LivePlots p;
    p.addIterationMarker(5, QStringLiteral("4\u21923 GPUs"), Qt::magenta, Qt::DashDotLine,
                         QStringLiteral("reconfigurationMarker"));
    p.addCheckpointTick(3);
    p.replotAll();
    for (QCustomPlot* plot :
         {p.lossPlot(), p.iterationTimePlot(), p.throughputPlot(), p.stageTimePlot()}) {
      QCOMPARE(
          plot->findChildren<QCPItemStraightLine*>(QStringLiteral("reconfigurationMarker")).size(),
          1);
      QCOMPARE(
          plot->findChildren<QCPItemText*>(QStringLiteral("reconfigurationMarkerLabel")).size(), 1);
      QCOMPARE(plot->findChildren<QCPItemLine*>(QStringLiteral("checkpointMarker")).size(), 1);
      QVERIFY(plot->xAxis->range().contains(5.0));
    }
    QVERIFY(p.memoryPlot()
                ->findChildren<QCPItemStraightLine*>(QStringLiteral("reconfigurationMarker"))
                .isEmpty());
    p.clear();
    QVERIFY(p.lossPlot()->findChildren<QCPItemStraightLine*>().isEmpty());
  }

  // A new world: the bars restart, captioned; the time axis keeps the reference in view.
  void memoryCaptionAndTimeReference() {
    LivePlots p;
    p.addIteration(iteration(0, 1.0), {});
    p.restartMemory(QStringLiteral("since iteration 5: 4\u21923 GPUs"));
    QCOMPARE(p.memoryBars()->dataCount(), 0);
    auto* caption =
        p.memoryPlot()->findChild<QCPItemText*>(QStringLiteral("reconfigurationMarkerLabel"));
    QVERIFY(caption && caption->visible());
    QCOMPARE(caption->text(), QStringLiteral("since iteration 5: 4\u21923 GPUs"));

    p.setTimeReference(40.0);
    QVERIFY(p.iterationTimePlot()->yAxis->range().upper >= 40.0);
    p.setTimeReference(std::nan(""));
    QVERIFY(p.iterationTimePlot()->yAxis->range().upper < 40.0);
  }
};

int runLivePlotsTests(int argc, char** argv) {
  TestLivePlots t;
  return QTest::qExec(&t, argc, argv);
}

#include "test_live_plots.moc"
