// Checkpoints and resume (docs/checkpoints.md): real
// `sailor run` processes (Gloo, the tests' small model, float64). Every resumed run is compared
// with an uninterrupted run of the same job and seed: each loss within the runtime's float64
// tolerance (1e-9, relative), each iteration stored exactly once.
//  - the controller SIGKILLed mid-run (its workers die with it), then `--resume`;
//  - a worker killed in the middle of writing a shard (SAILOR_TEST_FAULT=checkpoint-write):
//    the half-written step is not a checkpoint, `--resume` starts from the previous one;
//  - retention: with --checkpoint-keep 2 only the two newest complete steps remain;
//  - bad input: --resume of a finished run, of a failed run without checkpoints, of an unknown
//    id, --checkpoint-every -1: one line, exit 2, nothing changed;
//  - checkpoints belong to one run of one store: two stores in one directory, a store deleted
//    and created again, a manifest naming another run or store;
//  - a checkpoint file whose write fails (a full file system, a file size limit) leaves no
//    temporary file behind (writeFileDurably).
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <functional>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include "proc_children.hpp"
#include "run_outcome.hpp"
#include "sailor/runs/run_events.hpp"
#include "sailor/runs/run_store.hpp"
#include "small_run.hpp"
#include "test_time.hpp"
#include "training/checkpoint_files.hpp"

namespace {

using sailor::test::gone;
using sailor::test::waitUntilGone;

constexpr double kTolerance = 1e-9;  // float64, docs/training.md "Correctness"

using Outcome = sailor::test::RunOutcome;
using sailor::test::followRun;

}  // namespace

class TestCheckpoints : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;

  QString store() const { return dir_.filePath("runs.sqlite"); }
  // Where run `id` of `store_path` (default store()) keeps its checkpoints.
  QString checkpoints(std::int64_t id, const QString& store_path = {}) const {
    const sailor::RunStore db((store_path.isEmpty() ? store() : store_path).toStdString(),
                              sailor::StoreAccess::ReadOnly);
    return QString::fromStdString(db.checkpointDir(id));
  }
  QStringList args(const QString& plan, int iterations, const QStringList& extra = {},
                   const QString& store_path = {}) const {
    return sailor::test::smallRunArgs(plan, store_path.isEmpty() ? store() : store_path) +
           QStringList{"--dtype", "float64", "--iterations", QString::number(iterations)} + extra;
  }
  // A run of `a` whose controller is SIGKILLed once step `step` is a complete checkpoint and a
  // later iteration is stored (its workers die with it): a run left `running`, with checkpoints.
  Outcome runKilledAfterStep(const QStringList& a, int step) const {
    QProcess p;
    start(p, a);
    bool done = false;
    Outcome killed = followRun(p, [&](const sailor::RunEvent& e) {
      if (const auto* c = e.as<sailor::CheckpointEvent>()) done = done || c->iteration == step;
      const auto* it = e.as<sailor::IterationEvent>();
      return done && it && it->iteration > step;
    });
    if (!done) qWarning("%s", qPrintable(killed.why()));
    ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
    p.waitForFinished(10000);
    waitUntilGone(killed.worker_pids, sailor::test::scaledMs(10000));
    return killed;
  }
  // `sailor run` with `a` refused: exit 2, one line on stderr containing every needle.
  void refusedWith(const QStringList& a, const QStringList& needles) const {
    QProcess p;
    start(p, a);
    QVERIFY(p.waitForFinished(30000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitCode(), 2);
    QCOMPARE(err.count('\n'), 1);
    for (const QString& needle : needles) QVERIFY2(err.contains(needle), qPrintable(err));
    QVERIFY(p.readAllStandardOutput().isEmpty());
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

  // Under the interleaved schedule a stage's shard holds its model chunks' layers
  // (Plan::chunkLayers): pp2 of 12 + 12 blocks at v = 2 puts blocks 1-6 and 13-18 on stage 0,
  // 7-12 and 19-24 (and the head) on stage 1. The shards name their tensors (torch's pickle keeps
  // the keys as text).
  void interleavedShardsHoldTheirChunks() {
    const Outcome o = run(args("pp2-interleaved.json", 2, {"--checkpoint-every", "2"}));
    QVERIFY2(o.exit_code == 0, qPrintable(o.err));
    const QString step = checkpoints(o.runId()) + "/step-1/";
    auto bytes = [&](const QString& file) {
      QFile f(step + file);
      return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    const QByteArray s0 = bytes("stage-0-tp-0.pt"), s1 = bytes("stage-1-tp-0.pt");
    QVERIFY(!s0.isEmpty() && !s1.isEmpty());
    for (const char* name : {"layer1.", "layer6.", "layer13.", "layer18.", "embedding.token"})
      QVERIFY2(s0.contains(name) && !s1.contains(QByteArray(name) + "attn"), name);
    for (const char* name : {"layer7.", "layer12.", "layer19.", "layer24.", "final_norm"})
      QVERIFY2(s1.contains(name) && !s0.contains(name), name);
  }

  // Refused before anything changes: one line on stderr naming the option, exit 2.
  void badInput() {
    const Outcome finished = run(args("single.json", 2, {"--checkpoint-every", "1"}));
    QCOMPARE(finished.exit_code, 0);
    const Outcome no_checkpoint = run(args("single.json", 3), "pump");  // fails after iteration 0
    QCOMPARE(no_checkpoint.exit_code, 4);
    auto refused = [&](const QStringList& a, const QString& needle) { refusedWith(a, {needle}); };
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

  // Two stores in one directory, each with a run 2 (after a reference run 1) of another seed
  // that checkpoints every 2 iterations and is killed: each run's checkpoints are in a directory
  // of its own store, neither's retention removes the other's steps, and each --resume restores
  // its own run (losses of its own seed's uninterrupted run).
  void checkpointsBelongToOneStore() {
    QDir(dir_.path()).mkpath("two");
    const QString a = dir_.filePath("two/a.sqlite"), b = dir_.filePath("two/b.sqlite");
    const QStringList seed_a{"--seed", "11"}, seed_b{"--seed", "22"};
    constexpr int kIterations = 12;
    const Outcome ref_a = run(args("single.json", kIterations, seed_a, a));
    const Outcome ref_b = run(args("single.json", kIterations, seed_b, b));
    QCOMPARE(ref_a.exit_code, 0);
    QCOMPARE(ref_b.exit_code, 0);
    const QStringList every2{"--checkpoint-every", "2"};
    const Outcome killed_a =
        runKilledAfterStep(args("single.json", kIterations, seed_a + every2, a), 3);
    const Outcome killed_b =
        runKilledAfterStep(args("single.json", kIterations, seed_b + every2, b), 5);
    QCOMPARE(killed_a.runId(), 2);
    QCOMPARE(killed_b.runId(), 2);  // the same id in each store
    const QString dir_a = checkpoints(2, a), dir_b = checkpoints(2, b);
    QVERIFY2(dir_a != dir_b, qPrintable(dir_a));
    QVERIFY(dir_a.startsWith(dir_.filePath("two/checkpoints/a-")));
    QVERIFY(dir_b.startsWith(dir_.filePath("two/checkpoints/b-")));
    // a's step 3 is still there after b wrote its steps 1, 3, 5 (keeping the newest two).
    QVERIFY(QFile::exists(dir_a + "/step-3/manifest.json"));
    QVERIFY(QFile::exists(dir_b + "/step-5/manifest.json"));

    const Outcome resumed_a = run({"run", "--resume", "2", "--store", a});
    QVERIFY2(resumed_a.exit_code == 0, qPrintable(resumed_a.why()));
    QVERIFY(resumed_a.all<sailor::ResumedEvent>().front()->from_iteration >= 4);
    const Outcome resumed_b = run({"run", "--resume", "2", "--store", b});
    QVERIFY2(resumed_b.exit_code == 0, qPrintable(resumed_b.why()));
    QVERIFY(resumed_b.all<sailor::ResumedEvent>().front()->from_iteration >= 6);
    const QList<double> got_a = sailor::test::storedLosses(a, 2),
                        want_a = sailor::test::storedLosses(a, 1),
                        got_b = sailor::test::storedLosses(b, 2),
                        want_b = sailor::test::storedLosses(b, 1);
    QCOMPARE(got_a.size(), kIterations);
    QCOMPARE(got_b.size(), kIterations);
    QVERIFY(want_a != want_b);  // the seeds make the two runs tell apart
    for (int i = 0; i < kIterations; ++i) {
      QVERIFY2(std::abs(got_a[i] - want_a[i]) <= kTolerance * std::abs(want_a[i]),
               qPrintable(QString("a, iteration %1").arg(i)));
      QVERIFY2(std::abs(got_b[i] - want_b[i]) <= kTolerance * std::abs(want_b[i]),
               qPrintable(QString("b, iteration %1").arg(i)));
    }
  }

  // A store deleted and created again: its run 1 (failed, without checkpoints) does not see the
  // checkpoints the old store's run 1 left in the same directory.
  void recreatedStoreDoesNotResumeOldSteps() {
    QDir(dir_.path()).mkpath("again");
    const QString s = dir_.filePath("again/runs.sqlite");
    const Outcome old = run(args("single.json", 4, {"--checkpoint-every", "1"}, s));
    QCOMPARE(old.exit_code, 0);
    QCOMPARE(old.runId(), 1);
    const QString old_dir = checkpoints(1, s);
    QVERIFY(QFile::exists(old_dir + "/step-3/manifest.json"));
    for (const char* suffix : {"", "-wal", "-shm"}) QFile::remove(s + suffix);

    const Outcome failed = run(args("single.json", 4, {}, s), "pump");  // fails after iteration 0
    QCOMPARE(failed.exit_code, 4);
    QCOMPARE(failed.runId(), 1);
    QVERIFY(checkpoints(1, s) != old_dir);
    refusedWith({"run", "--resume", "1", "--store", s}, {"which has no complete checkpoint"});
    QVERIFY(QFile::exists(old_dir + "/step-3/manifest.json"));  // not the new store's to touch
    sailor::RunStore db(s.toStdString(), sailor::StoreAccess::ReadOnly);
    QCOMPARE(db.run(1)->status, sailor::RunStatus::Failed);
    QCOMPARE(db.run(1)->iterations_done, 1);
  }

  // Each manifest names its store and run; --resume refuses a checkpoint whose manifest names
  // another run or another store (one line naming both, exit 2, nothing changed).
  void resumeRefusesAnotherRunsCheckpoint() {
    const Outcome faulted =
        run(args("single.json", 6, {"--checkpoint-every", "2"}), "checkpoint-write");
    QCOMPARE(faulted.exit_code, 4);
    const std::int64_t id = faulted.runId();
    const QString id_text = QString::number(id);
    const QString manifest_path = checkpoints(id) + "/step-1/manifest.json";
    QFile file(manifest_path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const nlohmann::json original = nlohmann::json::parse(file.readAll().toStdString());
    file.close();
    const std::string store_id =
        sailor::RunStore(store().toStdString(), sailor::StoreAccess::ReadOnly).storeId();
    QCOMPARE(QString::fromStdString(original.at("store_id").get<std::string>()),
             QString::fromStdString(store_id));
    QCOMPARE(original.at("run_id").get<std::int64_t>(), id);

    auto write_manifest = [&](const nlohmann::json& j) {
      QFile out(manifest_path);
      QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
      out.write(QByteArray::fromStdString(j.dump(2)));
    };
    nlohmann::json other_run = original;
    other_run["run_id"] = id + 40;
    write_manifest(other_run);
    refusedWith({"run", "--resume", id_text, "--store", store()},
                {"--resume: got run " + id_text + ": its checkpoint",
                 "belongs to run " + QString::number(id + 40),
                 "expected a checkpoint of run " + id_text + " of store " +
                     QString::fromStdString(store_id)});
    nlohmann::json other_store = original;
    other_store["store_id"] = std::string(32, 'a');
    write_manifest(other_store);
    refusedWith({"run", "--resume", id_text, "--store", store()},
                {"of store " + QString(32, 'a'), "of store " + QString::fromStdString(store_id)});
    nlohmann::json no_owner = original;
    no_owner.erase("store_id");
    no_owner.erase("run_id");
    write_manifest(no_owner);
    refusedWith({"run", "--resume", id_text, "--store", store()},
                {"belongs to run 0 of store (none)"});
    sailor::RunStore db(store().toStdString(), sailor::StoreAccess::ReadOnly);
    QCOMPARE(db.run(id)->status, sailor::RunStatus::Failed);
    QVERIFY(QFile::exists(checkpoints(id) + "/step-3"));  // the incomplete step: nothing removed
  }

  // --store naming a directory, for a run and for --resume: one line naming it, exit 2 (not the
  // store's "disk I/O error", exit 5), nothing written in it.
  void storeThatIsADirectoryRefused() {
    QVERIFY(QDir(dir_.path()).mkpath("a-directory"));
    const QString d = dir_.filePath("a-directory");
    const QString needle =
        "--store: got \"" + d + "\", which is a directory, expected a SQLite run store file";
    refusedWith(args("single.json", 2, {"--checkpoint-every", "1"}, d), {needle});
    refusedWith({"run", "--resume", "1", "--store", d}, {needle});
    QVERIFY(QDir(d).isEmpty());
  }

  // A checkpoint file whose write fails part-way (here: past a file size limit, EFBIG) leaves
  // neither its temporary file nor the file: nothing of it takes space.
  void failedWriteLeavesNoTemporaryFile() {
    const QString path = dir_.filePath("limited.pt");
    const std::string bytes(1 << 20, 'x');
    ::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG instead
    rlimit old{};
    QCOMPARE(::getrlimit(RLIMIT_FSIZE, &old), 0);
    rlimit low = old;
    low.rlim_cur = 64 * 1024;
    QCOMPARE(::setrlimit(RLIMIT_FSIZE, &low), 0);
    QString what;
    try {
      sailor::runner::writeFileDurably(path.toStdString(), bytes);
    } catch (const std::exception& e) {
      what = e.what();
    }
    QCOMPARE(::setrlimit(RLIMIT_FSIZE, &old), 0);
    QVERIFY2(what.contains("cannot write " + path + ".tmp"), qPrintable(what));
    QVERIFY(!QFile::exists(path + ".tmp"));
    QVERIFY(!QFile::exists(path));
  }

  // The same on a full file system (a 1 MiB tmpfs, root only): after the failed write the space
  // is free again, so the next write of a file that fits succeeds.
  void failedWriteOnFullDiskFreesItsSpace() {
    if (::geteuid() != 0) QSKIP("mounting a 1 MiB tmpfs needs root");
    const QString mnt = dir_.filePath("tiny");
    QVERIFY(QDir(dir_.path()).mkpath("tiny"));
    if (::mount("tmpfs", mnt.toUtf8().constData(), "tmpfs", 0, "size=1m") != 0)
      QSKIP(qPrintable("cannot mount a tmpfs here: " + QString::fromUtf8(std::strerror(errno))));
    const QString path = mnt + "/stage-0-tp-0.pt";
    QString what;
    try {
      sailor::runner::writeFileDurably(path.toStdString(), std::string(2 << 20, 'x'));
    } catch (const std::exception& e) {
      what = e.what();
    }
    const bool tmp_left = QFile::exists(path + ".tmp");
    QString again;
    try {
      sailor::runner::writeFileDurably(path.toStdString(), std::string(600 << 10, 'y'));
    } catch (const std::exception& e) {
      again = e.what();
    }
    const qint64 size = QFileInfo(path).size();
    ::umount2(mnt.toUtf8().constData(), MNT_DETACH);
    QVERIFY2(what.contains("No space left on device"), qPrintable(what));
    QVERIFY(!tmp_left);
    QVERIFY2(again.isEmpty(), qPrintable(again));
    QCOMPARE(size, qint64{600 << 10});
  }
};

QTEST_GUILESS_MAIN(TestCheckpoints)
#include "test_checkpoints.moc"
