// The run monitor at the studio's size: in a window laid out as the studio's (menus, a tool bar,
// tabs, a status bar; the monitor in a scroll area) at 1280x800, every view is visible without
// scrolling, a run shown and a long export result included, in English and in Chinese.
#include <QCoreApplication>
#include <QLabel>
#include <QMainWindow>
#include <QMenuBar>
#include <QScrollArea>
#include <QScrollBar>
#include <QStatusBar>
#include <QTabWidget>
#include <QTest>
#include <QToolBar>
#include <QTranslator>
#include <qcustomplot.h>

#include "run_monitor.hpp"
#include "run_views_tests.hpp"

using sailor::studio::LaunchKind;
using sailor::studio::LaunchTarget;
using sailor::studio::RunMonitor;

namespace {

sailor::RunEvent event(sailor::RunEventBody body) {
  sailor::RunEvent e;
  e.run_id = 12;
  e.time = "2026-12-03T10:00:00.000Z";
  e.body = std::move(body);
  return e;
}

// A run of four workers on two stages, three iterations in, with a job and a warning.
void feedARun(RunMonitor& m) {
  sailor::RunStartedEvent s;
  s.name = "a-scenario-with-a-rather-long-name.json";
  s.world_size = 4;
  s.iterations = 40;
  sailor::Stage st;
  st.replicas = {{"A100-40", 1, "us-central1-a"}, {"A100-40", 1, "us-central1-b"}};
  s.plan.stages = {st, st};
  m.applyEvent(event(s));
  sailor::WorkersStartedEvent ws;
  for (const sailor::RankPlacement& r : sailor::placeRanks(s.plan)) ws.workers.push_back({r, 100});
  m.applyEvent(event(ws));
  for (int i = 0; i < 3; ++i) {
    sailor::IterationEvent it;
    it.iteration = i;
    it.loss = 5.5;
    it.iteration_seconds = 1.4;
    it.tokens_per_second = 90;
    it.stages = {{0, 1.0, 0.2}, {1, 1.1, 0.3}};
    m.applyEvent(event(it));
  }
  m.applyEvent(event(sailor::JobStateEvent{"slurm", "13", "RUNNING", "", "/tmp/run"}));
}

}  // namespace

class TestRunTabLayout : public QObject {
  Q_OBJECT

 private slots:
  void everythingVisibleAt1280x800() {
    QTranslator zh;
    QVERIFY(zh.load(QStringLiteral(":/i18n/sailor_studio_zh_CN.qm")));
    for (bool chinese : {false, true}) {
      if (chinese) QVERIFY(QCoreApplication::installTranslator(&zh));
      QMainWindow w;
      for (const char* menu : {"File", "Edit", "Plan"}) w.menuBar()->addMenu(QLatin1String(menu));
      QToolBar* tools = w.addToolBar(QStringLiteral("tools"));
      for (const char* action : {"Open scenario...", "Save scenario", "Undo", "Redo", "Plan now"})
        tools->addAction(QLatin1String(action));
      auto* tabs = new QTabWidget(&w);
      tabs->addTab(new QWidget, QStringLiteral("Resources"));
      tabs->addTab(new QWidget, QStringLiteral("Plans"));
      auto* m = new RunMonitor;
      auto* area = new QScrollArea;
      area->setWidget(m);
      area->setWidgetResizable(true);
      area->setFrameShape(QFrame::NoFrame);
      tabs->addTab(area, QStringLiteral("Run"));
      tabs->setCurrentIndex(2);
      w.setCentralWidget(tabs);
      w.statusBar()->showMessage(QStringLiteral("23 plans"));
      w.resize(1280, 800);
      m->setPredictedIterationSeconds(5.52);
      feedARun(*m);
      LaunchTarget exporting;
      exporting.kind = LaunchKind::Export;
      exporting.export_dir = QStringLiteral("/home/someone/a/rather/deep/directory/for/exports");
      m->setLaunchTarget(exporting);
      m->showExportResult(QStringLiteral("Wrote sailor.yaml (an indexed Job per pool) to ") +
                              exporting.export_dir + QStringLiteral(" and more words"),
                          false);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      QCoreApplication::processEvents();
      const QString size = QStringLiteral("%1: the monitor needs %2x%3, the tab has %4x%5")
                               .arg(chinese ? QStringLiteral("zh_CN") : QStringLiteral("en"))
                               .arg(m->minimumSizeHint().width())
                               .arg(m->minimumSizeHint().height())
                               .arg(area->viewport()->width())
                               .arg(area->viewport()->height());
      QVERIFY2(!area->horizontalScrollBar()->isVisible(), qPrintable(size));
      QVERIFY2(!area->verticalScrollBar()->isVisible(), qPrintable(size));
      // The run's state is on one line, whole; every plot at least its minimum size.
      auto* status = m->findChild<QLabel*>(QStringLiteral("runStatus"));
      QVERIFY(status);
      QVERIFY2(status->width() >= status->fontMetrics().horizontalAdvance(status->text()),
               qPrintable(status->text()));
      for (QCustomPlot* p : {m->lossPlot(), m->iterationTimePlot(), m->throughputPlot(),
                             m->stageTimePlot(), m->memoryPlot()}) {
        QVERIFY2(p->isVisible() && p->width() >= 220 && p->height() >= 130,
                 qPrintable(p->objectName()));
        QVERIFY2(p->mapTo(area->viewport(), QPoint(p->width(), p->height())).x() <=
                     area->viewport()->width(),
                 qPrintable(p->objectName()));
      }
      QCoreApplication::removeTranslator(&zh);
    }
  }
};

int runRunTabLayoutTests(int argc, char** argv) {
  TestRunTabLayout t;
  return QTest::qExec(&t, argc, argv);
}

#include "test_run_tab_layout.moc"
