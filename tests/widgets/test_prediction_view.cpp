// Prediction against measurement on the Run tab (widgets/run/prediction_view.hpp): no line and
// the "no run" note with nothing set; the plan's prediction as a dashed line with its label; a run
// with its own prediction replaces it and fills the comparison as iterations come; a run without
// one gets no line and a label saying the plan's figure is not comparable. Every change of the
// line is announced (shownSecondsChanged) for the plot's axis. The label stays inside the axes:
// under the line when the line is too close to the top, in Chinese too.
#include <cmath>

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QTranslator>
#include <qcustomplot.h>

#include "run/prediction_view.hpp"
#include "run_views_tests.hpp"

using sailor::studio::PredictionView;

namespace {

sailor::RunStartedEvent started(bool with_prediction) {
  sailor::RunStartedEvent s;
  s.name = "pp2.json";
  sailor::Stage st;
  st.replicas.push_back({"A100-40", 1, "zone-a"});
  s.plan.stages = {st, st};
  if (with_prediction) {
    sailor::RunPrediction p;
    p.device = "cpu-test";
    p.profile = "/prof";
    p.model = "OPT-350M-runtime-h64-s16";
    p.measured_at = "2026-12-04T18:02:11Z";
    p.iteration_seconds = 1.5;
    p.stages = {{0, 0.9, 0.6, 0.1, 0.2, 0.0, 4, 300 << 20},
                {1, 1.0, 0.5, 0.1, 0.2, 0.0, 4, 200 << 20}};
    p.peak_memory_bytes = 300 << 20;
    s.prediction = p;
  }
  return s;
}

sailor::IterationEvent iteration(int i) {
  sailor::IterationEvent e;
  e.iteration = i;
  e.iteration_seconds = 1.6;
  for (int s = 0; s < 2; ++s) {
    e.stages.push_back({s, 1.0, 0.5});
    sailor::RunRankTimes r;
    r.rank = s;
    r.stage = s;
    r.seconds = 1.6;
    r.compute_seconds = 1.0;
    r.peak_memory_bytes = 310 << 20;
    e.ranks.push_back(r);
  }
  return e;
}

// The label's top edge in pixels, from its anchor and alignment.
double labelTop(const QCustomPlot& plot) {
  const auto* label = plot.findChild<QCPItemText*>(QStringLiteral("predictionLabel"));
  const double height = QFontMetricsF(label->font()).boundingRect(label->text()).height();
  const double anchor = label->position->pixelPosition().y();
  return (label->positionAlignment() & Qt::AlignBottom) ? anchor - height : anchor;
}

}  // namespace

class TestPredictionView : public QObject {
  Q_OBJECT

 private slots:
  void nothingSetShowsNoPrediction() {
    QCustomPlot plot;
    PredictionView v(&plot);
    auto* line = plot.findChild<QCPItemStraightLine*>(QStringLiteral("predictionLine"));
    auto* label = plot.findChild<QCPItemText*>(QStringLiteral("predictionLabel"));
    QVERIFY(line && label);
    QVERIFY(!line->visible());
    QVERIFY(!label->visible());
    QVERIFY(std::isnan(v.shownSeconds()));
    QVERIFY(v.labelText().isEmpty());
    QCOMPARE(v.comparisonNote(), PredictionView::tr("No run shown."));
    QVERIFY(v.comparisonRows().empty());
  }

  void planPredictionThenARunWithout() {
    QCustomPlot plot;
    PredictionView v(&plot);
    QSignalSpy shown(&v, &PredictionView::shownSecondsChanged);
    v.setPlanSeconds(40.0);
    QCOMPARE(shown.count(), 1);
    QCOMPARE(shown.at(0).at(0).toDouble(), 40.0);
    QCOMPARE(v.labelText(), QStringLiteral("predicted 40.0 s for the plan's GPUs"));
    auto* line = plot.findChild<QCPItemStraightLine*>(QStringLiteral("predictionLine"));
    QVERIFY(line->visible());
    QCOMPARE(line->point1->value(), 40.0);

    v.startRun(1, started(false));
    QCOMPARE(shown.count(), 2);
    QVERIFY(std::isnan(shown.at(1).at(0).toDouble()));
    QVERIFY(!line->visible());
    QCOMPARE(v.labelText(), QStringLiteral("no prediction for this run's device; the plan's "
                                           "40.0 s is for its A100-40, not comparable"));
    QCOMPARE(v.planSeconds(), 40.0);
    v.clearRun();
    QCOMPARE(shown.last().at(0).toDouble(), 40.0);
    v.setPlanSeconds(-1);
    QVERIFY(std::isnan(shown.last().at(0).toDouble()));
  }

  // The run's own prediction: its line, and the comparison once an iteration is measured; the
  // iterations trained again leave it.
  void runPredictionBesideTheMeasurement() {
    QCustomPlot plot;
    PredictionView v(&plot);
    QSignalSpy shown(&v, &PredictionView::shownSecondsChanged);
    v.setPlanSeconds(40.0);
    v.startRun(1, started(true));
    QCOMPARE(shown.last().at(0).toDouble(), 1.5);
    QVERIFY2(v.labelText().contains(QLatin1String("predicted 1.5 s for cpu-test")),
             qPrintable(v.labelText()));
    QVERIFY2(v.comparisonNote().contains(QLatin1String("no iteration measured yet")),
             qPrintable(v.comparisonNote()));
    v.addIteration(iteration(0));
    QVERIFY(!v.comparisonRows().empty());
    QCOMPARE(v.comparisonRows()[0].predicted, 1.5);
    auto* table = v.findChild<QTableWidget*>(QStringLiteral("predictionComparison"));
    QCOMPARE(table->rowCount(), static_cast<int>(v.comparisonRows().size()));
    v.dropIterationsFrom(0);
    QVERIFY(v.comparisonRows().empty());
  }

  // At the size the Run tab gives it, with the axis ending 10 % above the prediction, the label
  // is inside the axes: its top not cut, in English and in Chinese (whose glyphs are taller).
  void labelIsNotClippedAtTheTop() {
    QTranslator zh;
    QVERIFY(zh.load(QStringLiteral(":/i18n/sailor_studio_zh_CN.qm")));
    for (bool chinese : {false, true}) {
      if (chinese) QVERIFY(QCoreApplication::installTranslator(&zh));
      QCustomPlot plot;
      plot.resize(600, 200);
      PredictionView v(&plot);
      v.setPlanSeconds(5.52);
      plot.yAxis->setRange(0, 5.52 * 1.1);
      plot.show();
      QVERIFY(QTest::qWaitForWindowExposed(&plot));
      plot.replot();
      if (chinese)
        QVERIFY2(v.labelText().contains(QStringLiteral("方案")), qPrintable(v.labelText()));
      QVERIFY2(labelTop(plot) >= plot.axisRect()->top(),
               qPrintable(QStringLiteral("%1: top %2, axes from %3")
                              .arg(v.labelText())
                              .arg(labelTop(plot))
                              .arg(plot.axisRect()->top())));
      // With room above the line, the label sits on it.
      plot.yAxis->setRange(0, 20);
      plot.replot();
      const auto* label = plot.findChild<QCPItemText*>(QStringLiteral("predictionLabel"));
      QVERIFY(label->positionAlignment() & Qt::AlignBottom);
    }
    QCoreApplication::removeTranslator(&zh);
  }
};

int runPredictionViewTests(int argc, char** argv) {
  TestPredictionView t;
  return QTest::qExec(&t, argc, argv);
}

#include "test_prediction_view.moc"
