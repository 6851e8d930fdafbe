// The studio launches on a Slurm cluster (issue 26, item 4): the main window offscreen, on a
// scenario of one pool (us-central1-a, 4 x A100-40: the pool tests/data/runtime/
// slurm-localhost.json maps to the one-node cluster of scripts/slurm-cluster), plans; the Run
// tab's target is set to "Slurm cluster" with that cluster description; Start submits the
// selected plan as a Slurm job through `sailor run --launcher slurm`. While it runs, iteration
// events arrive live and the monitor's job label says RUNNING (squeue agrees); at the end the
// monitor has seen SUBMITTED, RUNNING and COMPLETED in that order, every iteration, and the run
// finished.
//
// Needs the CTest fixture slurm_cluster (the cluster's SLURM_CONF under SAILOR_SLURM_DIR) and
// root (the cluster's daemons run as root): without them it skips, saying why.
#include <unistd.h>

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

#include "job_panel.hpp"
#include "main_window.hpp"
#include "planning_service.hpp"
#include "run_monitor.hpp"
#include "test_time.hpp"

using namespace sailor::studio;
using sailor::test::scaledMs;

class TestStudioSlurm : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir tmp_;

  // The default scenario cut down to the pool the test cluster maps: us-central1-a, A100-40,
  // 4 GPUs.
  QString writeOnePoolScenario() const {
    QFile in(QStringLiteral(SAILOR_TEST_RESOURCES "/scenarios/default.json"));
    if (!in.open(QIODevice::ReadOnly)) return {};
    QJsonObject scenario = QJsonDocument::fromJson(in.readAll()).object();
    QJsonArray pools;
    for (const QJsonValue& p : scenario.value(QStringLiteral("pools")).toArray()) {
      QJsonObject pool = p.toObject();
      if (pool.value(QStringLiteral("zone")).toString() != QLatin1String("us-central1-a") ||
          pool.value(QStringLiteral("gpu_type")).toString() != QLatin1String("A100-40"))
        continue;
      pool[QStringLiteral("count")] = 4;
      pools.append(pool);
    }
    scenario[QStringLiteral("pools")] = pools;
    scenario[QStringLiteral("name")] = QStringLiteral("slurm-localhost");
    const QString path = tmp_.filePath(QStringLiteral("scenario.json"));
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly)) return {};
    out.write(QJsonDocument(scenario).toJson());
    return path;
  }

  static QString squeueState(const QString& job) {
    QProcess p;
    p.start(QStringLiteral("squeue"), {QStringLiteral("-h"), QStringLiteral("-j"), job,
                                       QStringLiteral("-o"), QStringLiteral("%T")});
    if (!p.waitForFinished(scaledMs(30000))) return QStringLiteral("(squeue did not answer)");
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
  }

 private slots:
  void initTestCase() {
    QVERIFY(tmp_.isValid());
    // Settings (the remembered cluster file) go to this test's directory, not the user's.
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(tmp_.filePath(QStringLiteral("config"))));
    if (geteuid() != 0)
      QSKIP("not root: the one-node Slurm cluster's daemons run as root (tests/runtime)");
    const QString conf = QStringLiteral(SAILOR_SLURM_DIR "/slurm.conf");
    if (!QFileInfo::exists(conf))
      QSKIP(qPrintable(QStringLiteral("no Slurm cluster: %1 does not exist (the CTest fixture "
                                      "slurm_cluster starts it)")
                           .arg(conf)));
    qputenv("SLURM_CONF", QFile::encodeName(conf));
    QProcess ping;
    ping.start(QStringLiteral("scontrol"), {QStringLiteral("ping")});
    if (!ping.waitForFinished(scaledMs(30000)) || ping.exitCode() != 0 ||
        !ping.readAllStandardOutput().contains("UP"))
      QSKIP(
          "no Slurm cluster: scontrol ping does not answer UP (the fixture slurm_cluster "
          "starts it)");
  }

  void startsOnTheClusterFromTheRunTab() {
    const QString scenario = writeOnePoolScenario();
    QVERIFY(!scenario.isEmpty());
    MainWindowOptions o;
    o.scenario_file = scenario;
    o.run_store = tmp_.filePath(QStringLiteral("runs.sqlite"));
    o.replan_delay_ms = 50;
    MainWindow w(o);
    QVERIFY2(w.startupError().isEmpty(), qPrintable(w.startupError()));
    QTest::qWait(50);
    QVERIFY(QTest::qWaitFor(
        [&] { return !w.planningService()->busy() && w.planningService()->currentRequest() == 0; },
        scaledMs(120000)));
    QVERIFY(w.result() && !w.result()->best.empty());
    const int gpus = w.result()->best.front().plan.gpuCount();
    QVERIFY2(gpus >= 1 && gpus <= 4, qPrintable(QString::number(gpus)));

    // The Run tab, as a user sets it: the cluster description (as the file dialog would leave
    // it), then the target.
    RunMonitor* m = w.runMonitor();
    LaunchTarget remembered;
    remembered.cluster_file = QStringLiteral(SAILOR_TEST_DATA "/slurm-localhost.json");
    m->setLaunchTarget(remembered);
    auto* target = m->findChild<QComboBox*>(QStringLiteral("launchTarget"));
    QVERIFY(target);
    target->setCurrentIndex(1);
    QVERIFY(m->launchTarget().cluster);
    // A few iterations: enough to see them arrive while the job runs.
    auto* iterations_box = m->findChild<QSpinBox*>(QStringLiteral("iterations"));
    QVERIFY(iterations_box);
    iterations_box->setValue(5);
    auto* start = m->findChild<QPushButton*>(QStringLiteral("start"));
    QVERIFY(start);
    QVERIFY2(start->isEnabled(), qPrintable(start->toolTip()));

    // What the monitor shows at each iteration event, while the run goes.
    int live_iterations = 0;
    QString state_at_first_iteration, squeue_at_first_iteration;
    QSignalSpy finished(w.runClient(), &RunClient::finished);
    connect(w.runClient(), &RunClient::iteration, this, [&](const sailor::IterationEvent&) {
      if (!finished.isEmpty()) return;
      if (live_iterations++ == 0) {
        state_at_first_iteration = m->jobState();
        squeue_at_first_iteration = squeueState(m->jobId());
      }
    });
    QTest::mouseClick(start, Qt::LeftButton);
    QVERIFY(m->isRunning());
    const QStringList args = w.runClient()->arguments();
    QVERIFY2(args.contains(QStringLiteral("--launcher")) &&
                 args.contains(QStringLiteral("slurm")) &&
                 args.contains(QStringLiteral(SAILOR_TEST_DATA "/slurm-localhost.json")),
             qPrintable(args.join(' ')));

    const auto diagnostics = [&] {
      return QStringLiteral("exit %1 | %2 | %3 | %4 | %5")
          .arg(finished.isEmpty() ? -99 : finished.front().at(0).toInt())
          .arg(m->statusText(), m->errorText(), m->jobText(),
               m->logView()->toPlainText().right(3000));
    };
    QVERIFY2(finished.wait(scaledMs(300000)) || finished.count() == 1, qPrintable(diagnostics()));
    QVERIFY2(finished.front().at(0).toInt() == 0, qPrintable(diagnostics()));

    // Live: iteration events came while the job ran, and the job label said RUNNING then.
    const int iterations = m->iterationsRequested();
    QCOMPARE(live_iterations, iterations);
    QCOMPARE(state_at_first_iteration, QStringLiteral("RUNNING"));
    QCOMPARE(squeue_at_first_iteration, QStringLiteral("RUNNING"));
    QCOMPARE(m->lossPlot()->graph(0)->dataCount(), iterations);

    // The scheduler's states in order: submitted, (pending,) running, completed.
    QVERIFY(!m->jobId().isEmpty());
    const QStringList seen = m->jobStatesSeen();
    QVERIFY2(
        seen.size() >= 3 && seen.front() == QLatin1String("SUBMITTED") &&
            seen.contains(QStringLiteral("RUNNING")) && seen.back() == QLatin1String("COMPLETED") &&
            seen.indexOf(QStringLiteral("RUNNING")) < seen.indexOf(QStringLiteral("COMPLETED")),
        qPrintable(seen.join(QStringLiteral(", "))));
    QCOMPARE(m->jobText(), QStringLiteral("Slurm job %1: COMPLETED").arg(m->jobId()));
    qInfo("job %s: states %s; %d iterations live, RUNNING at the first (squeue: %s)",
          qPrintable(m->jobId()), qPrintable(seen.join(QStringLiteral(" -> "))), live_iterations,
          qPrintable(squeue_at_first_iteration));
    QVERIFY(!m->isRunning());
    QVERIFY(!m->errorShown());
    QVERIFY2(m->statusText().contains(QStringLiteral("finished")), qPrintable(m->statusText()));
  }
};

QTEST_MAIN(TestStudioSlurm)
#include "test_studio_slurm.moc"
