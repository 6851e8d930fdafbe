// The studio's run session (app/studio/run_session.hpp) through its signals, on a fake `sailor` (a
// shell script: `run` prints a recorded run_started line and finishes when the test lets it, `runs
// resize` answers with one line, on stderr with exit 2 for 9 GPUs, `runs attach` ends at once):
// the command line is made from the typed options; a local elastic run (--elastic or --trace) is
// resizable from its run_started to its end, a run without elastic or on a cluster is not, nor
// an attached one; a resize goes through the session's one client with the store the run is
// recorded in, and answers once, a second one while it is under way is refused; a run started
// on the client directly is the session's too; a stored cluster run whose controller is gone
// can be re-attached to.
#include <QDir>
#include <QFile>
#include <QObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "sailor/runs/run_store.hpp"
#include "sailor/scenario/availability.hpp"
#include "studio/run_session.hpp"

using sailor::studio::RunClient;
using sailor::studio::RunClientOptions;
using sailor::studio::RunLauncher;
using sailor::studio::RunOutcome;
using sailor::studio::RunSession;

namespace {

constexpr int kTimeoutMs = 20000;

// The first line of a recorded run: run_started of run 1, recorded in /tmp/runmon/s2.sqlite.
constexpr const char* kRecordedStore = "/tmp/runmon/s2.sqlite";

}  // namespace

class TestRunSession : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString fake_;
  sailor::Plan plan_;
  sailor::Scenario scenario_;
  sailor::Job job_;

  RunClientOptions options() const {
    RunClientOptions o;
    o.iterations = 5;
    o.store_path = dir_.filePath(QStringLiteral("runs.sqlite"));
    o.sailor_binary = fake_;
    return o;
  }
  // Lets the fake's run finish (it waits for the file "go").
  void letTheRunFinish() const {
    QFile go(dir_.filePath(QStringLiteral("go")));
    QVERIFY(go.open(QIODevice::WriteOnly));
  }
  void writeFile(const QString& name, const QByteArray& bytes) const {
    QFile f(dir_.filePath(name));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    QFile recorded(QStringLiteral(SAILOR_TEST_DATA "/events_pp2.jsonl"));
    QVERIFY(recorded.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = recorded.readAll().trimmed().split('\n');
    QVERIFY(lines.size() >= 2);
    QVERIFY(lines.front().contains(kRecordedStore));
    writeFile(QStringLiteral("started"), lines.front() + '\n');
    writeFile(QStringLiteral("finished"), lines.back() + '\n');
    fake_ = dir_.filePath(QStringLiteral("sailor"));
    writeFile(QStringLiteral("sailor"),
              "#!/bin/sh\n"
              "dir=\"$(dirname \"$0\")\"\n"
              "case \"$1 $2\" in\n"
              "  'runs resize')\n"
              "    sleep 0.3\n"
              "    case \"$*\" in\n"
              "      *=9*) echo \"sailor: run $3: 9 GPUs are more than the pool\" >&2; exit 2;;\n"
              "    esac\n"
              "    echo \"sailor runs resize: run $3: re-planning on $5\"; exit 0;;\n"
              "  'runs attach') exit 0;;\n"
              "esac\n"
              "cat \"$dir/started\"\n"
              "while [ ! -e \"$dir/go\" ]; do sleep 0.05; done\n"
              "cat \"$dir/finished\"\n");
    QVERIFY(QFile::setPermissions(fake_, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    plan_.microbatch_size = 1;
    plan_.stages.push_back({0, 3, {{"A100-40", 2, "us-central1-a"}}});
    scenario_.pools = {{"us-central1-a", "A100-40", 8, 1.0, false, {}, {}, {}},
                       {"us-west1-b", "V100-16", 2, 0.5, false, {}, {}, {}}};
  }

  void init() { QFile::remove(dir_.filePath(QStringLiteral("go"))); }

  // The one command line: every typed option in its flag, extra arguments last.
  void theCommandLineIsMadeFromTheTypedOptions() {
    RunClientOptions o;
    o.iterations = 7;
    o.data = QStringLiteral("text");
    o.store_path = QStringLiteral("s.sqlite");
    o.global_batch = 16;
    o.elastic = true;
    o.extra_args = {QStringLiteral("--seed"), QStringLiteral("3")};
    QVERIFY(o.isElastic() && o.isLocal());
    QCOMPARE(sailor::studio::runArguments("p.json", "s.json", "j.json", o),
             (QStringList{"run", "--plan", "p.json", "--scenario", "s.json", "--job", "j.json",
                          "--iterations", "7", "--data", "text", "--store", "s.sqlite",
                          "--global-batch", "16", "--elastic", "--seed", "3"}));
    RunClientOptions slurm;
    slurm.launcher = RunLauncher::Slurm;
    slurm.cluster_file = QStringLiteral("c.json");
    slurm.partition = QStringLiteral("debug");
    slurm.trace = QStringLiteral("t.csv");
    QVERIFY(slurm.isElastic() && !slurm.isLocal());
    QCOMPARE(sailor::studio::runArguments("p.json", "s.json", "j.json", slurm),
             (QStringList{"run", "--plan", "p.json", "--scenario", "s.json", "--job", "j.json",
                          "--iterations", "20", "--data", "synthetic", "--launcher", "slurm",
                          "--cluster", "c.json", "--partition", "debug", "--trace", "t.csv"}));
  }

  // A local elastic run: resizable from run_started to its end; resizes through the client,
  // with the store run_started named; one at a time; a refusal comes with sailor's line.
  void aLocalElasticRunIsResizedThroughTheSession() {
    RunSession session;
    QSignalSpy started(&session, &RunSession::started);
    QSignalSpy resizable(&session, &RunSession::resizableChanged);
    QSignalSpy resized(&session, &RunSession::resizeFinished);
    QSignalSpy finished(&session, &RunSession::finished);
    RunClientOptions o = options();
    o.elastic = true;
    QVERIFY(session.start(plan_, scenario_, job_, o));
    QVERIFY(!session.start(plan_, scenario_, job_, o));  // one run at a time
    QVERIFY(!session.isResizable());
    QVERIFY(!session.resize(1, {{{"A100-40", "us-central1-a"}, 1}}));  // before run_started
    QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, kTimeoutMs);
    QCOMPARE(started.at(0).at(0).toLongLong(), qint64{1});
    QCOMPARE(resizable.count(), 1);
    QCOMPARE(resizable.at(0).at(0).toBool(), true);
    QVERIFY(session.isResizable() && session.isElastic() && session.isLocal());
    QVERIFY(session.client()->arguments().contains(QStringLiteral("--elastic")));
    QCOMPARE(session.storePath(), QString::fromLatin1(kRecordedStore));
    QCOMPARE(session.pools().size(), std::size_t{2});

    // 2 GPUs: the run's answer. A second resize while the first goes is refused.
    const sailor::Availability two{{{"A100-40", "us-central1-a"}, 2},
                                   {{"V100-16", "us-west1-b"}, 0}};
    QVERIFY(session.resize(1, two));
    QVERIFY(session.isResizing());
    QVERIFY(!session.resize(1, two));
    QTRY_COMPARE_WITH_TIMEOUT(resized.count(), 1, kTimeoutMs);
    QCOMPARE(resized.at(0).at(0).toInt(), 0);
    QCOMPARE(resized.at(0).at(1).toString(),
             QStringLiteral("sailor runs resize: run 1: re-planning on A100-40@us-central1-a=2"));
    QCOMPARE(session.lastResizeCommand(),
             (QStringList{fake_, "runs", "resize", "1", "--gpus", "A100-40@us-central1-a=2",
                          "--gpus", "V100-16@us-west1-b=0", "--store", kRecordedStore}));
    QVERIFY(!session.isResizing());

    // 9 GPUs: refused, sailor's line and exit status.
    QVERIFY(session.resize(1, {{{"A100-40", "us-central1-a"}, 9}}));
    QTRY_COMPARE_WITH_TIMEOUT(resized.count(), 2, kTimeoutMs);
    QCOMPARE(resized.at(1).at(0).toInt(), 2);
    QCOMPARE(resized.at(1).at(1).toString(),
             QStringLiteral("sailor: run 1: 9 GPUs are more than the pool"));

    // The end: not resizable any more.
    letTheRunFinish();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
    QCOMPARE(finished.at(0).at(0).toInt(), 0);
    QCOMPARE(finished.at(0).at(1).value<RunOutcome>().run_id, std::int64_t{1});
    QCOMPARE(resizable.count(), 2);
    QCOMPARE(resizable.at(1).at(0).toBool(), false);
    QVERIFY(!session.isResizable());
    QVERIFY(!session.resize(1, two));
    QCOMPARE(resized.count(), 2);
  }

  void anElasticRunIsResizable_data() {
    QTest::addColumn<bool>("elastic");
    QTest::addColumn<QString>("trace");
    QTest::addColumn<bool>("slurm");
    QTest::addColumn<bool>("resizable");
    QTest::newRow("local") << false << QString() << false << false;
    QTest::newRow("local elastic") << true << QString() << false << true;
    QTest::newRow("local trace") << false << QStringLiteral("trace.csv") << false << true;
    QTest::newRow("slurm elastic") << true << QString() << true << true;
    QTest::newRow("slurm") << false << QString() << true << false;
  }
  void anElasticRunIsResizable() {
    QFETCH(bool, elastic);
    QFETCH(QString, trace);
    QFETCH(bool, slurm);
    QFETCH(bool, resizable);
    RunSession session;
    QSignalSpy started(&session, &RunSession::started);
    QSignalSpy changed(&session, &RunSession::resizableChanged);
    QSignalSpy finished(&session, &RunSession::finished);
    RunClientOptions o = options();
    o.elastic = elastic;
    o.trace = trace;
    if (slurm) {
      o.launcher = RunLauncher::Slurm;
      o.cluster_file = QStringLiteral("cluster.json");
    }
    QVERIFY(session.start(plan_, scenario_, job_, o));
    QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, kTimeoutMs);
    QCOMPARE(session.isResizable(), resizable);
    QCOMPARE(session.isLocal(), !slurm);
    QCOMPARE(session.isElastic(), elastic || !trace.isEmpty());
    QCOMPARE(changed.count(), resizable ? 1 : 0);
    QCOMPARE(session.client()->arguments().contains(QStringLiteral("slurm")), slurm);
    letTheRunFinish();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
    QVERIFY(!session.isResizable());
  }

  // Started on the client (files the user has): the session's run all the same, no pools known.
  void aRunStartedOnTheClientIsTheSessions() {
    RunSession session;
    QSignalSpy started(&session, &RunSession::started);
    QSignalSpy finished(&session, &RunSession::finished);
    RunClientOptions o = options();
    o.elastic = true;
    QVERIFY(session.client()->startFiles(QStringLiteral("plan.json"), QStringLiteral("s.json"),
                                         QStringLiteral("job.json"), o));
    QTRY_COMPARE_WITH_TIMEOUT(started.count(), 1, kTimeoutMs);
    QVERIFY(session.isResizable());
    QVERIFY(session.pools().empty());
    letTheRunFinish();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
  }

  // `sailor runs attach`: through the same client, no run_started, never resizable.
  void anAttachedRunIsNotResizable() {
    RunSession session;
    QSignalSpy started(&session, &RunSession::started);
    QSignalSpy changed(&session, &RunSession::resizableChanged);
    QSignalSpy finished(&session, &RunSession::finished);
    RunClientOptions o = options();
    o.elastic = true;  // ignored by attach
    QVERIFY(session.attach(5, o));
    QVERIFY(session.isAttach() && !session.isElastic() && !session.isLocal());
    QCOMPARE(session.client()->arguments(),
             (QStringList{"runs", "attach", "5", "--store", o.store_path}));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kTimeoutMs);
    QCOMPARE(finished.at(0).at(0).toInt(), 0);
    QCOMPARE(started.count(), 0);
    QCOMPARE(changed.count(), 0);
    QVERIFY(!session.resize(5, {{{"A100-40", "us-central1-a"}, 1}}));
  }

  // A stored run can be re-attached to when it is a cluster run still recorded running whose
  // controller is gone.
  void aClusterRunWhoseControllerIsGoneCanBeReattached() {
    sailor::RunRecord r;
    r.status = sailor::RunStatus::Running;
    r.job_id = "42";
    r.run_dir = "/tmp/sailor-run-42";
    r.controller = sailor::currentController();
    QVERIFY(!RunSession::reattachReason(r));  // this process: alive
    r.controller.boot_id = "another boot";
    r.controller.start_ticks += 1;
    const auto reason = RunSession::reattachReason(r);
    QVERIFY(reason);
    QVERIFY2(!reason->empty(), reason->c_str());
    sailor::RunRecord local = r;
    local.job_id.clear();
    QVERIFY(!RunSession::reattachReason(local));
    sailor::RunRecord ended = r;
    ended.status = sailor::RunStatus::Finished;
    QVERIFY(!RunSession::reattachReason(ended));
  }
};

QTEST_GUILESS_MAIN(TestRunSession)
#include "test_run_session.moc"
