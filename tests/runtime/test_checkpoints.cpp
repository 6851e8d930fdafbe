// Checkpoints and resume (issue 27, item 4; docs/runtime.md "Checkpoints and resume"): real
// `sailor run` processes (Gloo, the tests' small model, float64). Every resumed run is compared
// with an uninterrupted run of the same job and seed: each loss within the runtime's float64
// tolerance (1e-9, relative), each iteration stored exactly once.
//  - the controller SIGKILLed mid-run (its workers die with it), then `--resume`;
//  - a worker killed in the middle of writing a shard (SAILOR_TEST_FAULT=checkpoint-write):
//    the half-written step is not a checkpoint, `--resume` starts from the previous one;
//  - retention: with --checkpoint-keep 2 only the two newest complete steps remain;
//  - bad input: --resume of a finished run, of a failed run without checkpoints, of an unknown
//    id, --checkpoint-every -1: one line, exit 2, nothing changed.
#include <signal.h>

#include <cmath>
#include <functional>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include "proc_children.hpp"
#include "run_outcome.hpp"
#include "sailor/run_events.hpp"
#include "sailor/run_store.hpp"
#include "small_run.hpp"
#include "test_time.hpp"

namespace {

using sailor::test::gone;
using sailor::test::waitUntilGone;

constexpr double kTolerance = 1e-9;  // float64, docs/runtime.md "Correctness"

using Outcome = sailor::test::RunOutcome;
using sailor::test::followRun;

}  // namespace

class TestCheckpoints : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;

  QString store() const { return dir_.filePath("runs.sqlite"); }
  QString checkpoints(std::int64_t id) const {
    return dir_.filePath(QString("checkpoints/run-%1").arg(id));
  }
  QStringList args(const QString& plan, int iterations, const QStringList& extra = {}) const {
    return sailor::test::smallRunArgs(plan, store()) +
           QStringList{"--dtype", "float64", "--iterations", QString::number(iterations)} + extra;
  }
  void start(QProcess& p, const QStringList& a, const QString& fault = {}) const {
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    e.insert("TMPDIR", dir_.path());
    if (!fault.isEmpty()) e.insert("SAILOR_TEST_FAULT", fault);
    p.setProcessEnvironment(e);
    p.start(SAILOR_BIN, a);
    QVERIFY(p.waitForStarted(10000));
  }
  Outcome run(const QStringList& a, const QString& fault = {}) const {
    QProcess p;
    start(p, a, fault);
    return followRun(p);
  }
  QList<double> storedLosses(std::int64_t id) const {
    return sailor::test::storedLosses(store(), id);
  }
  // The store holds iterations 0..n-1 of run `id` once each, equal to the reference's losses.
  void checkLikeReference(std::int64_t id, std::int64_t reference, int n) const {
    const QList<double> got = storedLosses(id), want = storedLosses(reference);
    QCOMPARE(got.size(), n);
    QCOMPARE(want.size(), n);
    for (int i = 0; i < n; ++i)
      QVERIFY2(std::abs(got[i] - want[i]) <= kTolerance * std::abs(want[i]),
               qPrintable(QString("iteration %1: %2 resumed, %3 uninterrupted")
                              .arg(i)
                              .arg(got[i], 0, 'g', 17)
                              .arg(want[i], 0, 'g', 17)));
    sailor::RunStore db(store().toStdString(), sailor::StoreAccess::ReadOnly);
    const auto rec = db.run(id);
    QVERIFY(rec.has_value());
    QCOMPARE(rec->status, sailor::RunStatus::Finished);
    QCOMPARE(rec->iterations_done, n);
  }

 private Q_SLOTS:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  // The controller SIGKILLed after iteration 6 of 10 (checkpoints every 3: step 5 complete):
  // its workers die with it; --resume records the orphan failed, restores step 5 in every
  // worker (replica 1 from replica 0's shards), removes stored iteration 6 and trains 6..9.
  void controllerKilledThenResumed() {
    const Outcome reference = run(args("pp2-dp2.json", 10));
    QCOMPARE(reference.exit_code, 0);

    QProcess p;
    start(p, args("pp2-dp2.json", 10, {"--checkpoint-every", "3"}));
    bool step5 = false;
    Outcome killed = followRun(p, [&](const sailor::RunEvent& e) {
      if (const auto* c = e.as<sailor::CheckpointEvent>()) step5 = step5 || c->iteration == 5;
      const auto* it = e.as<sailor::IterationEvent>();
      return step5 && it && it->iteration >= 6;
    });
    QVERIFY2(step5, qPrintable(killed.err));
    ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
    QVERIFY(p.waitForFinished(10000));
    // Local workers die with their controller (PR_SET_PDEATHSIG).
    QVERIFY(waitUntilGone(killed.worker_pids, sailor::test::scaledMs(10000)));
    const std::int64_t id = killed.runId();

    const Outcome resumed = run({"run", "--resume", QString::number(id), "--store", store()});
    QVERIFY2(resumed.exit_code == 0, qPrintable(resumed.err));
    QVERIFY(resumed.err.contains(QString("marked run %1 failed").arg(id)));
    const auto r = resumed.all<sailor::ResumedEvent>();
    QCOMPARE(r.size(), 1);
    QCOMPARE(r[0]->from_iteration, 6);
    QVERIFY(r[0]->iterations_discarded >= 1);
    QCOMPARE(resumed.all<sailor::RunStartedEvent>().size(), 0);
    QCOMPARE(resumed.all<sailor::IterationEvent>().front()->iteration, 6);
    checkLikeReference(id, reference.runId(), 10);
  }

  // An elastic run that went 4 -> 2 GPUs (pp2-dp2 -> pp2, global batch 12) and took checkpoints
  // under its new plan, its controller SIGKILLed: --resume restarts from the last checkpoint on
  // the plan that checkpoint was written under (its step's spec.json), two workers, and the
  // losses are those of an uninterrupted run on four.
  void elasticRunResumedOnItsNewPlan() {
    constexpr int kIterations = 24;
    const QStringList common{"--global-batch", "12"};
    const Outcome reference = run(args("pp2-dp2.json", kIterations, common));
    QCOMPARE(reference.exit_code, 0);

    QFile trace(dir_.filePath("four-two.json"));
    QVERIFY(trace.open(QIODevice::WriteOnly));
    trace.write(R"([{"Time": 0, "GPUs": 4}, {"Time": 1, "GPUs": 2}])");
    trace.close();
    QProcess p;
    start(p, args("pp2-dp2.json", kIterations,
                  common + QStringList{"--trace", trace.fileName(), "--trace-time-scale", "0.05",
                                       "--checkpoint-every", "3"}));
    int changed_at = -1, checkpoint = -1;
    Outcome killed = followRun(p, [&](const sailor::RunEvent& e) {
      if (const auto* r = e.as<sailor::ReconfiguredEvent>()) changed_at = r->from_iteration;
      if (const auto* c = e.as<sailor::CheckpointEvent>();
          c && changed_at >= 0 && c->iteration >= changed_at)
        checkpoint = c->iteration;
      const auto* it = e.as<sailor::IterationEvent>();
      return checkpoint >= 0 && it && it->iteration > checkpoint;
    });
    QVERIFY2(checkpoint >= 0, qPrintable(killed.err));
    QVERIFY(checkpoint + 1 < kIterations);
    ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
    QVERIFY(p.waitForFinished(10000));
    QVERIFY(waitUntilGone(killed.worker_pids, sailor::test::scaledMs(10000)));
    const std::int64_t id = killed.runId();

    const Outcome resumed = run({"run", "--resume", QString::number(id), "--store", store()});
    QVERIFY2(resumed.exit_code == 0, qPrintable(resumed.why()));
    const auto r = resumed.all<sailor::ResumedEvent>();
    QCOMPARE(r.size(), 1);
    QVERIFY(r[0]->from_iteration > changed_at);
    const auto worlds = resumed.all<sailor::WorkersStartedEvent>();
    QVERIFY(!worlds.isEmpty());
    QCOMPARE(worlds.front()->workers.size(), std::size_t{2});  // the plan after the change
    checkLikeReference(id, reference.runId(), kIterations);
  }

  // A worker killed while its shard of step 3 is half written: step 3 has no manifest, so
  // --resume starts from step 1, and the losses are still those of an uninterrupted run.
  void killDuringCheckpointWrite() {
    const Outcome reference = run(args("single.json", 6));
    QCOMPARE(reference.exit_code, 0);
    const Outcome faulted =
        run(args("single.json", 6, {"--checkpoint-every", "2"}), "checkpoint-write");
    QCOMPARE(faulted.exit_code, 4);
    const std::int64_t id = faulted.runId();
    const QString step3 = checkpoints(id) + "/step-3";
    QVERIFY(QFile::exists(step3 + "/stage-0-tp-0.pt.tmp"));  // the half-written shard
    QVERIFY(!QFile::exists(step3 + "/manifest.json"));
    QVERIFY(QFile::exists(checkpoints(id) + "/step-1/manifest.json"));

    const Outcome resumed = run({"run", "--resume", QString::number(id), "--store", store()});
    QVERIFY2(resumed.exit_code == 0, qPrintable(resumed.err));
    const auto r = resumed.all<sailor::ResumedEvent>();
    QCOMPARE(r.size(), 1);
    QCOMPARE(r[0]->from_iteration, 2);
    checkLikeReference(id, reference.runId(), 6);
    // The resumed run checkpoints as the run did (every 2) and keeps the newest two.
    QVERIFY(QFile::exists(checkpoints(id) + "/step-5/manifest.json"));
    QVERIFY(QFile::exists(checkpoints(id) + "/step-3/manifest.json"));
    QVERIFY(!QFile::exists(checkpoints(id) + "/step-1"));
  }

  // Every iteration checkpointed, two kept: only steps 5 and 6 remain, and the events say which
  // were removed.
  void retention() {
    const Outcome o =
        run(args("single.json", 7, {"--checkpoint-every", "1", "--checkpoint-keep", "2"}));
    QVERIFY2(o.exit_code == 0, qPrintable(o.err));
    const auto cps = o.all<sailor::CheckpointEvent>();
    QCOMPARE(cps.size(), 7);
    QList<int> removed;
    for (const auto* c : cps) {
      QCOMPARE(c->shards, 1);
      QVERIFY(c->bytes > 0);
      for (int it : c->removed) removed.push_back(it);
    }
    QCOMPARE(removed, (QList<int>{0, 1, 2, 3, 4}));
    const QStringList left =
        QDir(checkpoints(o.runId())).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    QCOMPARE(left, (QStringList{"step-5", "step-6"}));
    for (const QString& s : left)
      QVERIFY(QFile::exists(checkpoints(o.runId()) + "/" + s + "/manifest.json"));
  }

  // Refused before anything changes: one line on stderr naming the option, exit 2.
  void badInput() {
    const Outcome finished = run(args("single.json", 2, {"--checkpoint-every", "1"}));
    QCOMPARE(finished.exit_code, 0);
    const Outcome no_checkpoint = run(args("single.json", 3), "pump");  // fails after iteration 0
    QCOMPARE(no_checkpoint.exit_code, 4);
    auto refused = [&](const QStringList& a, const QString& needle) {
      QProcess p;
      start(p, a);
      QVERIFY(p.waitForFinished(30000));
      const QString err = QString::fromUtf8(p.readAllStandardError());
      QCOMPARE(p.exitCode(), 2);
      QCOMPARE(err.count('\n'), 1);
      QVERIFY2(err.contains(needle), qPrintable(err));
      QVERIFY(p.readAllStandardOutput().isEmpty());
    };
    const QString fid = QString::number(finished.runId());
    const QString nid = QString::number(no_checkpoint.runId());
    refused({"run", "--resume", fid, "--store", store()},
            "--resume: got run " + fid + ", which is finished, expected a stopped or failed run");
    refused({"run", "--resume", nid, "--store", store()}, "which has no complete checkpoint");
    refused({"run", "--resume", "999", "--store", store()}, "--resume: got 999");
    for (const char* flag : {"--elastic", "--scale", "--real-size"})
      refused({"run", "--resume", nid, "--store", store(), flag},
              QString(flag) + ": got given with --resume");
    refused(args("single.json", 2, {"--checkpoint-every", "-1"}),
            "--checkpoint-every: got \"-1\", expected a non-negative integer");
    refused(args("single.json", 2, {"--checkpoint-keep", "0"}), "--checkpoint-keep");
    // Nothing changed: both runs as they were.
    sailor::RunStore db(store().toStdString(), sailor::StoreAccess::ReadOnly);
    QCOMPARE(db.run(finished.runId())->status, sailor::RunStatus::Finished);
    QCOMPARE(db.run(finished.runId())->iterations_done, 2);
    QCOMPARE(db.run(no_checkpoint.runId())->status, sailor::RunStatus::Failed);
    QCOMPARE(db.run(no_checkpoint.runId())->iterations_done, 1);
  }
};

QTEST_GUILESS_MAIN(TestCheckpoints)
#include "test_checkpoints.moc"
