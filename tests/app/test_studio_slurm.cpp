// The studio launches on a Slurm cluster: the main window offscreen, on a
// scenario of one pool (us-central1-a, 4 x A100-40: the pool tests/data/runtime/
// slurm-localhost.json maps to the one-node cluster of scripts/slurm-cluster), plans; the Run
// tab's target is set to "Slurm cluster" with that cluster description; Start submits the
// selected plan as a Slurm job through `sailor run --launcher slurm`. While it runs, iteration
// events arrive live and the monitor's job label says RUNNING (squeue agrees); at the end the
// monitor has seen SUBMITTED, RUNNING and COMPLETED in that order, every iteration, and the run
// finished.
//
// Then the history reopens a Slurm run whose controller was killed (SIGKILL) while its job went on:
// the monitor shows the run's job id and its last scheduler state from the run store, offers
// Re-attach (and only for that run), which follows the job live as `sailor runs attach` does;
// Stop on the re-attached run cancels the job (gone from squeue when the attach ends) and the run
// is recorded stopped, each iteration stored and shown once.
//
// Needs the CTest fixture slurm_cluster (the cluster's SLURM_CONF under SAILOR_SLURM_DIR) and
// root (the cluster's daemons run as root): without them it skips, saying why.
#include <signal.h>  // NOLINT(modernize-deprecated-headers): kill() is POSIX, not <csignal>
#include <unistd.h>

#include <set>

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
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

#include "job_panel.hpp"
#include "run_monitor.hpp"
#include "sailor/runs/run_store.hpp"
#include "studio/main_window.hpp"
#include "studio/planning_service.hpp"
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
    QVERIFY(m->launchTarget().kind == LaunchKind::Cluster);
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
    // The workers of the job, one row per rank (their pids are the cluster's: none shown).
    QCOMPARE(m->workerTable()->rowCount(), gpus);

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

  void reattachesToARunWhoseControllerDied() {
    // A Slurm run started from the command line, its controller killed after two iterations: the
    // job trains on (docs/launch.md "Slurm runs").
    const QString store = tmp_.filePath(QStringLiteral("reattach.sqlite"));
    const QString data = QStringLiteral(SAILOR_TEST_DATA);
    QProcess controller;
    controller.setProcessChannelMode(QProcess::SeparateChannels);
    controller.start(
        QString::fromLocal8Bit(qgetenv("SAILOR_BIN")),
        {QStringLiteral("run"), QStringLiteral("--plan"), data + QStringLiteral("/pp2-dp2.json"),
         QStringLiteral("--scenario"),
         QStringLiteral(SAILOR_TEST_RESOURCES "/scenarios/default.json"), QStringLiteral("--job"),
         data + QStringLiteral("/job.json"), QStringLiteral("--hidden"), QStringLiteral("64"),
         QStringLiteral("--seq-len"), QStringLiteral("16"), QStringLiteral("--iterations"),
         QStringLiteral("400"), QStringLiteral("--store"), store, QStringLiteral("--launcher"),
         QStringLiteral("slurm"), QStringLiteral("--cluster"),
         data + QStringLiteral("/slurm-localhost.json")});
    QVERIFY2(controller.waitForStarted(scaledMs(30000)), qPrintable(controller.errorString()));
    QByteArray out;
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                   out += controller.readAllStandardOutput();
                   return out.count("\"event\":\"iteration\"") >= 2 ||
                          controller.state() == QProcess::NotRunning;
                 },
                 scaledMs(180000)),
             out.right(2000).constData());
    QVERIFY2(controller.state() == QProcess::Running,
             qPrintable(QString::fromUtf8(out.right(2000) + controller.readAllStandardError())));
    ::kill(static_cast<pid_t>(controller.processId()), SIGKILL);
    QVERIFY(controller.waitForFinished(scaledMs(30000)));

    std::int64_t run_id = 0;
    QString job;
    int stored_before = 0;
    {
      const sailor::RunStore runs(store.toStdString(), sailor::StoreAccess::ReadOnly);
      const sailor::RunListing listing = runs.listReadableRuns();
      QCOMPARE(listing.runs.size(), std::size_t{1});
      run_id = listing.runs.front().id;
      job = QString::fromStdString(listing.runs.front().job_id);
      stored_before = listing.runs.front().iterations_done;
      QCOMPARE(listing.runs.front().status, sailor::RunStatus::Running);
    }
    QVERIFY(!job.isEmpty());
    QCOMPARE(squeueState(job), QStringLiteral("RUNNING"));

    // The studio on that store: reopening the run shows its job and last state, and offers
    // Re-attach.
    MainWindowOptions o;
    o.run_store = store;
    o.plan_on_start = false;
    MainWindow w(o);
    RunMonitor* m = w.runMonitor();
    QCOMPARE(m->pastRunsView()->topLevelItemCount(), 1);
    emit m->reopenRequested(run_id);
    QCOMPARE(m->runId(), run_id);
    QCOMPARE(m->jobId(), job);
    QCOMPARE(m->jobState(), QStringLiteral("RUNNING"));
    QVERIFY2(m->jobText().contains(job), qPrintable(m->jobText()));
    QVERIFY2(m->reattachOffered(), qPrintable(m->statusText()));
    QVERIFY(m->lossPlot()->graph(0)->dataCount() >= stored_before);

    // Re-attach: live events from `sailor runs attach`, the job's state ATTACHED then RUNNING.
    int live_iterations = 0;
    connect(w.runClient(), &RunClient::iteration, this,
            [&](const sailor::IterationEvent&) { ++live_iterations; });
    QSignalSpy finished(w.runClient(), &RunClient::finished);
    auto* reattach = m->findChild<QPushButton*>(QStringLiteral("reattach"));
    QVERIFY(reattach && !reattach->isHidden() && reattach->isEnabled());
    QTest::mouseClick(reattach, Qt::LeftButton);
    QVERIFY(m->isRunning());
    QVERIFY(!m->reattachOffered());
    QCOMPARE(
        w.runClient()->arguments().mid(0, 3),
        QStringList({QStringLiteral("runs"), QStringLiteral("attach"), QString::number(run_id)}));
    const auto diagnostics = [&] {
      return QStringLiteral("exit %1 | %2 | %3 | %4 | %5 | %6")
          .arg(finished.isEmpty() ? -99 : finished.front().at(0).toInt())
          .arg(m->statusText(), m->errorText(), m->jobText(), w.runClient()->stderrTail(),
               m->logView()->toPlainText().right(3000));
    };
    QVERIFY2(QTest::qWaitFor([&] { return live_iterations >= 2 || !finished.isEmpty(); },
                             scaledMs(180000)),
             qPrintable(diagnostics()));
    QVERIFY2(finished.isEmpty(), qPrintable(diagnostics()));
    QVERIFY2(m->jobStatesSeen().contains(QStringLiteral("ATTACHED")),
             qPrintable(m->jobStatesSeen().join(QStringLiteral(", "))));
    QCOMPARE(m->jobId(), job);

    // Stop on the re-attached run cancels the job.
    auto* stop = m->findChild<QPushButton*>(QStringLiteral("stop"));
    QVERIFY(stop && stop->isEnabled());
    QTest::mouseClick(stop, Qt::LeftButton);
    QVERIFY2(finished.wait(scaledMs(120000)) || finished.count() == 1, qPrintable(diagnostics()));
    QVERIFY2(finished.front().at(0).toInt() == 130, qPrintable(diagnostics()));
    QCOMPARE(squeueState(job), QString());
    QVERIFY(!m->isRunning());

    // Recorded stopped, every iteration once, in the store and in the monitor.
    std::vector<sailor::IterationRecord> iterations;
    {
      const sailor::RunStore runs(store.toStdString(), sailor::StoreAccess::ReadOnly);
      const std::optional<sailor::RunRecord> rec = runs.run(run_id);
      QVERIFY(rec);
      QCOMPARE(rec->status, sailor::RunStatus::Stopped);
      iterations = runs.iterations(run_id);
      QCOMPARE(rec->iterations_done, static_cast<int>(iterations.size()));
    }
    std::set<int> distinct;
    for (const sailor::IterationRecord& it : iterations) distinct.insert(it.iteration);
    QCOMPARE(distinct.size(), iterations.size());
    QVERIFY(!distinct.empty() && *distinct.begin() == 0 &&
            *distinct.rbegin() == static_cast<int>(iterations.size()) - 1);
    QVERIFY2(static_cast<int>(iterations.size()) >= stored_before + live_iterations,
             qPrintable(QStringLiteral("%1 stored, %2 before, %3 live")
                            .arg(iterations.size())
                            .arg(stored_before)
                            .arg(live_iterations)));
    QCOMPARE(m->lossPlot()->graph(0)->dataCount(), static_cast<int>(iterations.size()));

    // Reopened now: stopped, the job's last state, nothing to re-attach to.
    emit m->reopenRequested(run_id);
    QCOMPARE(m->jobState(), QStringLiteral("CANCELLED"));
    QVERIFY(!m->reattachOffered());
    qInfo(
        "run %lld, job %s: %d iterations stored before the re-attach, %d live after, %zu in all;"
        " stopped, job gone from squeue",
        static_cast<long long>(run_id), qPrintable(job), stored_before, live_iterations,
        iterations.size());
  }
};

QTEST_MAIN(TestStudioSlurm)
#include "test_studio_slurm.moc"
