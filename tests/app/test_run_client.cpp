// The studio's run client (app/studio/run_client.hpp) driving the real `sailor run` (SAILOR_BIN,
// with sailor-run and sailor-worker beside it) on tests/data/runtime/pp2.json (two processes, one
// per stage), scaled down (--hidden 64 --seq-len 16) and recorded into a temporary run store: typed
// events in order and finished(0); stop() mid-run ends with 130 and leaves no worker process
// behind; bad input and a missing binary fail clearly; the run history reads the runs back from the
// store. One test feeds the client a fake `sailor` (a shell script replaying recorded event lines)
// to pin line buffering and undecodable lines.
#include <signal.h>  // NOLINT(modernize-deprecated-headers): kill() is POSIX, not <csignal>
#include <sys/types.h>

#include <cerrno>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>

#include "sailor/runs/run_events.hpp"
#include "studio/run_client.hpp"
#include "studio/run_history.hpp"

using nlohmann::json;
using sailor::studio::RunClient;
using sailor::studio::RunClientOptions;
using sailor::studio::RunHistory;
using sailor::studio::RunOutcome;

namespace {

// A start-up of libtorch in two processes takes 5-15 s on a loaded two-core machine; a run of a
// few iterations of the scaled model about as long again.
constexpr int kRunTimeoutMs = 180000;

json readJson(const QString& path) {
  std::ifstream in(path.toStdString());
  if (!in) throw std::runtime_error("cannot read " + path.toStdString());
  return json::parse(in);
}

QString resources() {
  const QByteArray env = qgetenv("SAILOR_RESOURCES");
  return env.isEmpty() ? QString(SAILOR_TEST_RESOURCES) : QString::fromLocal8Bit(env);
}

bool processExists(qint64 pid) {
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
}

RunOutcome outcomeOf(const QSignalSpy& finished) {
  return finished.at(0).at(1).value<RunOutcome>();
}

QString describe(const RunOutcome& o) {
  return QStringLiteral("exit %1, message \"%2\", stderr: %3")
      .arg(o.exit_code)
      .arg(o.message, o.stderr_tail.right(1500));
}

}  // namespace

class TestRunClient : public QObject {
  Q_OBJECT

 private:
  json plan_, scenario_, job_;
  QTemporaryDir store_dir_;
  QString store_;

  RunClientOptions options(int iterations) const {
    RunClientOptions o;
    o.iterations = iterations;
    o.store_path = store_;
    o.sailor_binary = QStringLiteral(SAILOR_BIN);
    o.extra_args = {QStringLiteral("--hidden"), QStringLiteral("64"), QStringLiteral("--seq-len"),
                    QStringLiteral("16")};
    return o;
  }

 private slots:
  void initTestCase() {
    QVERIFY2(QFileInfo(QStringLiteral(SAILOR_BIN)).isExecutable(), SAILOR_BIN);
    QVERIFY(store_dir_.isValid());
    store_ = store_dir_.filePath(QStringLiteral("runs.sqlite"));
    plan_ = readJson(QStringLiteral(SAILOR_TEST_DATA "/pp2.json"));
    job_ = readJson(QStringLiteral(SAILOR_TEST_DATA "/job.json"));
    scenario_ = readJson(resources() + QStringLiteral("/scenarios/default.json"));
  }

  void defaultBinaryHonoursSailorBin() {
    const QByteArray saved = qgetenv("SAILOR_BIN");
    qputenv("SAILOR_BIN", "/opt/x/sailor");
    QCOMPARE(RunClient::defaultSailorBinary(), QStringLiteral("/opt/x/sailor"));
    qunsetenv("SAILOR_BIN");
    QCOMPARE(RunClient::defaultSailorBinary(),
             QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("sailor")));
    if (!saved.isEmpty()) qputenv("SAILOR_BIN", saved);
  }

  // A whole run: events in the documented order, one iteration signal per iteration, finished(0)
  // with the runtime's finished event; then the history lists it from the store.
  void runsToCompletionAndIsInTheHistory() {
    RunClient client;
    QSignalSpy events(&client, &RunClient::eventReceived);
    QSignalSpy started(&client, &RunClient::runStarted);
    QSignalSpy workers(&client, &RunClient::workersStarted);
    QSignalSpy ready(&client, &RunClient::workersReady);
    QSignalSpy iterations(&client, &RunClient::iteration);
    QSignalSpy errors(&client, &RunClient::errorReported);
    QSignalSpy rejected(&client, &RunClient::protocolError);
    QSignalSpy finished(&client, &RunClient::finished);
    RunClientOptions o = options(3);
    o.name = QStringLiteral("client test run");
    QVERIFY(client.start(plan_, scenario_, job_, o));
    QVERIFY(client.isRunning());
    QVERIFY2(!client.start(plan_, scenario_, job_, o), "a second start while running is refused");
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kRunTimeoutMs);
    const RunOutcome outcome = outcomeOf(finished);
    QVERIFY2(outcome.exit_code == 0, qPrintable(describe(outcome)));
    QCOMPARE(finished.at(0).at(0).toInt(), 0);
    QVERIFY(outcome.message.isEmpty());
    QVERIFY(!client.isRunning());
    QCOMPARE(client.processId(), qint64{0});

    QCOMPARE(started.count(), 1);
    QCOMPARE(workers.count(), 1);
    QCOMPARE(ready.count(), 1);
    QCOMPARE(iterations.count(), 3);
    QCOMPARE(errors.count(), 0);
    QCOMPARE(rejected.count(), 0);
    QCOMPARE(outcome.rejected_lines, 0);
    for (int i = 0; i < 3; ++i) {
      const auto it = iterations.at(i).at(0).value<sailor::IterationEvent>();
      QCOMPARE(it.iteration, i);
      QVERIFY(std::isfinite(it.loss) && it.loss > 0);
      QCOMPARE(it.ranks.size(), std::size_t{2});
    }
    QStringList kinds;
    for (const auto& args : events)
      kinds << QString::fromLatin1(args.at(0).value<sailor::RunEvent>().kind());
    QCOMPARE(kinds, (QStringList{"run_started", "workers_started", "workers_ready", "iteration",
                                 "iteration", "iteration", "finished"}));
    const auto s = started.at(0).at(1).value<sailor::RunStartedEvent>();
    QCOMPARE(s.name, std::string("client test run"));
    QCOMPARE(s.iterations, 3);
    QCOMPARE(s.model.hidden_size, 64);
    QCOMPARE(QString::fromStdString(s.store), store_);
    const qint64 run_id = started.at(0).at(0).toLongLong();
    QVERIFY(run_id > 0);
    QCOMPARE(outcome.run_id, run_id);
    QVERIFY(outcome.finished);
    QCOMPARE(outcome.finished->status, sailor::RunStatus::Finished);
    QCOMPARE(outcome.finished->iterations_done, 3);
    QVERIFY(!outcome.stop_requested);

    // The history reads the same run back from the store.
    const RunHistory history(store_);
    const std::vector<sailor::RunListEntry> runs = history.list().runs;
    QVERIFY(!runs.empty());
    QCOMPARE(runs.front().run.id, run_id);  // newest first
    QCOMPARE(runs.front().run.name, std::string("client test run"));
    QCOMPARE(runs.front().run.status, sailor::RunStatus::Finished);
    QCOMPARE(runs.front().run.iterations_done, 3);
    const auto last = iterations.at(2).at(0).value<sailor::IterationEvent>();
    QVERIFY(runs.front().final_loss);
    QCOMPARE(*runs.front().final_loss, last.loss);
    const std::optional<sailor::studio::StoredRun> stored = history.open(run_id);
    QVERIFY(stored);
    QCOMPARE(stored->iterations.size(), std::size_t{3});
    QCOMPARE(stored->iterations[2].loss, last.loss);
    // The store holds the same events the client received, in the same order.
    QStringList stored_kinds;
    for (const sailor::EventRecord& e : stored->events)
      stored_kinds << QString::fromStdString(e.kind);
    QCOMPARE(stored_kinds, kinds);
    QVERIFY(!history.open(run_id + 1000));
  }

  // stop() mid-run: SIGINT to the controller, which stops its workers, records the run as
  // stopped and exits 130; every worker listed by workers_started is gone afterwards.
  void stopMidRunExits130AndLeavesNoWorkers() {
    RunClient client;
    QSignalSpy workers(&client, &RunClient::workersStarted);
    QSignalSpy iterations(&client, &RunClient::iteration);
    QSignalSpy finished(&client, &RunClient::finished);
    QVERIFY(client.start(plan_, scenario_, job_, options(100000)));
    QTRY_VERIFY_WITH_TIMEOUT(iterations.count() >= 1 || finished.count() > 0, kRunTimeoutMs);
    if (finished.count() > 0)
      QFAIL(qPrintable("the run ended before stop(): " + describe(outcomeOf(finished))));
    QCOMPARE(workers.count(), 1);
    std::vector<qint64> pids;
    for (const sailor::RunWorker& w :
         workers.at(0).at(0).value<sailor::WorkersStartedEvent>().workers)
      pids.push_back(w.pid);
    QCOMPARE(pids.size(), std::size_t{2});
    const qint64 controller = client.processId();
    QVERIFY(controller > 0);
    for (qint64 pid : pids) QVERIFY2(processExists(pid), "the workers run before stop()");

    client.stop();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
    const RunOutcome outcome = outcomeOf(finished);
    QVERIFY2(outcome.exit_code == 130, qPrintable(describe(outcome)));
    QVERIFY(outcome.stop_requested);
    QVERIFY(outcome.finished);
    QCOMPARE(outcome.finished->status, sailor::RunStatus::Stopped);
    QCOMPARE(outcome.finished->iterations_done, static_cast<int>(iterations.count()));
    QVERIFY2(outcome.message.contains(QLatin1String("Stopped")), qPrintable(outcome.message));
    QVERIFY(!processExists(controller));
    for (qint64 pid : pids)
      QVERIFY2(!processExists(pid),
               qPrintable(QStringLiteral("worker %1 outlived the run").arg(pid)));

    const RunHistory history(store_);
    const auto stored = history.open(outcome.run_id);
    QVERIFY(stored);
    QCOMPARE(stored->run.status, sailor::RunStatus::Stopped);
  }

  // A plan file that does not exist: sailor exits 2 before starting anything, and the outcome
  // says which file.
  void badPlanPathFailsClearly() {
    RunClient client;
    QSignalSpy started(&client, &RunClient::runStarted);
    QSignalSpy finished(&client, &RunClient::finished);
    const QString missing = store_dir_.filePath(QStringLiteral("no-such-plan.json"));
    QVERIFY(client.startFiles(missing, resources() + QStringLiteral("/scenarios/default.json"),
                              QStringLiteral(SAILOR_TEST_DATA "/job.json"), options(3)));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    const RunOutcome outcome = outcomeOf(finished);
    QCOMPARE(outcome.exit_code, 2);
    QCOMPARE(started.count(), 0);
    QCOMPARE(outcome.run_id, std::int64_t{0});
    QVERIFY(!outcome.finished);
    QVERIFY2(outcome.message.contains(missing) &&
                 outcome.message.contains(QLatin1String("cannot be opened")) &&
                 outcome.message.contains(QLatin1String("nothing was started")),
             qPrintable(outcome.message));
  }

  // A plan that names a zone the scenario does not have: exit 2 with sailor's message naming
  // the field, and the studio's temporary directory removed from it ("plan.json.stages...").
  void badPlanContentNamesTheField() {
    json plan = plan_;
    plan["stages"][1]["replicas"][0]["zone"] = "mars-north1-a";
    RunClient client;
    QSignalSpy finished(&client, &RunClient::finished);
    QVERIFY(client.start(plan, scenario_, job_, options(3)));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    const RunOutcome outcome = outcomeOf(finished);
    QCOMPARE(outcome.exit_code, 2);
    QVERIFY2(outcome.message.contains(QLatin1String("mars-north1-a")), qPrintable(outcome.message));
    QVERIFY2(outcome.message.contains(QLatin1String("plan.json")), qPrintable(outcome.message));
    QVERIFY2(!outcome.message.contains(QLatin1String("sailor-studio-run-")),
             qPrintable(outcome.message));
  }

  // A binary that does not exist: finished(-1) from the event loop (never inside start()),
  // naming the path.
  void missingBinaryFailsLater() {
    RunClient client;
    QSignalSpy finished(&client, &RunClient::finished);
    RunClientOptions o = options(3);
    o.sailor_binary = store_dir_.filePath(QStringLiteral("bin/sailor"));
    QVERIFY(client.start(plan_, scenario_, job_, o));
    QCOMPARE(finished.count(), 0);
    QVERIFY(client.isRunning());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 5000);
    const RunOutcome outcome = outcomeOf(finished);
    QCOMPARE(outcome.exit_code, -1);
    QVERIFY2(outcome.message.contains(o.sailor_binary), qPrintable(outcome.message));
    QVERIFY(!client.isRunning());
  }

  // A fake sailor replays recorded event lines, split in the middle of a line with a pause
  // between the halves, then a line that is not an event, then the rest, and exits 4: whole
  // events come out, the bad line is reported and skipped, exit code and error are kept.
  void partialLinesAreBufferedAndBadLinesSkipped() {
    QFile recorded(QStringLiteral(SAILOR_TEST_DATA "/events_pp2_failed.jsonl"));
    QVERIFY(recorded.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = recorded.readAll().split('\n');
    QVERIFY(lines.size() >= 9);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QByteArray first_half, second_half;
    for (int i = 0; i < 4; ++i) first_half += lines[i] + '\n';
    first_half += lines[4].left(lines[4].size() / 2);
    second_half = lines[4].mid(lines[4].size() / 2) + "\nnot an event\n";
    for (int i = 5; i < lines.size(); ++i)
      if (!lines[i].isEmpty()) second_half += lines[i] + '\n';
    second_half.chop(1);  // the last line without its newline
    auto write = [&](const QString& name, const QByteArray& bytes) {
      QFile f(dir.filePath(name));
      return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
    };
    QVERIFY(write(QStringLiteral("a"), first_half));
    QVERIFY(write(QStringLiteral("b"), second_half));
    const QString script = dir.filePath(QStringLiteral("sailor"));
    QVERIFY(write(QStringLiteral("sailor"),
                  "#!/bin/sh\ncd \"$(dirname \"$0\")\"\ncat a\nsleep 0.5\ncat b\n"
                  "echo 'sailor run: (fake) done' >&2\nexit 4\n"));
    QVERIFY(QFile::setPermissions(script, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));

    RunClient client;
    QSignalSpy events(&client, &RunClient::eventReceived);
    QSignalSpy iterations(&client, &RunClient::iteration);
    QSignalSpy warnings(&client, &RunClient::warning);
    QSignalSpy errors(&client, &RunClient::errorReported);
    QSignalSpy rejected(&client, &RunClient::protocolError);
    QSignalSpy finished(&client, &RunClient::finished);
    RunClientOptions o = options(3);
    o.sailor_binary = script;
    QVERIFY(client.start(plan_, scenario_, job_, o));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
    QCOMPARE(events.count(), 9);  // every recorded line, the split one and the unterminated last
    QCOMPARE(iterations.count(), 3);
    QCOMPARE(warnings.count(), 1);
    QCOMPARE(errors.count(), 1);
    QCOMPARE(errors.at(0).at(0).value<sailor::RunErrorEvent>().rank.value_or(-1), 1);
    QCOMPARE(rejected.count(), 1);
    QVERIFY2(rejected.at(0).at(0).toString().contains(QLatin1String("event line")),
             qPrintable(rejected.at(0).at(0).toString()));
    const RunOutcome outcome = outcomeOf(finished);
    QCOMPARE(outcome.exit_code, 4);
    QCOMPARE(outcome.rejected_lines, 1);
    QVERIFY(outcome.finished);
    QCOMPARE(outcome.finished->status, sailor::RunStatus::Failed);
    QVERIFY2(outcome.message.contains(QLatin1String("rank 1")) &&
                 outcome.message.contains(QLatin1String("SIGKILL")),
             qPrintable(outcome.message));
    QVERIFY(outcome.stderr_tail.contains(QLatin1String("(fake) done")));
  }

  // Exit 5 (docs/runtime.md): the run store could not be opened or stayed locked past its bound
  // before the run was created. The outcome says nothing was started and gives sailor's reason,
  // not the generic "exited with code 5".
  void aStoreThatCannotBeWrittenIsExplained() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString script = dir.filePath(QStringLiteral("sailor"));
    QFile f(script);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("#!/bin/sh\necho 'sailor run: run store /x/runs.db: database is locked' >&2\nexit 5\n");
    f.close();
    QVERIFY(QFile::setPermissions(script, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));

    RunClient client;
    QSignalSpy finished(&client, &RunClient::finished);
    RunClientOptions o = options(3);
    o.sailor_binary = script;
    QVERIFY(client.start(plan_, scenario_, job_, o));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
    const RunOutcome outcome = outcomeOf(finished);
    QCOMPARE(outcome.exit_code, 5);
    QVERIFY(!outcome.finished);
    QVERIFY2(
        outcome.message.startsWith(QLatin1String("The run could not be recorded")) &&
            outcome.message.endsWith(QLatin1String("run store /x/runs.db: database is locked")),
        qPrintable(outcome.message));
  }
};

QTEST_GUILESS_MAIN(TestRunClient)
#include "test_run_client.moc"
