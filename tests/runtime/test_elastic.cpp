// In-place reconfiguration (docs/elasticity.md): real `sailor run` processes
// (Gloo, the tests' small model, float64). Every reconfigured run is compared with an
// uninterrupted run of the same job, seed and planned iterations: each loss within the runtime's
// float64 tolerance (1e-9, relative), each iteration stored exactly once.
//  - a trace going 4 -> 3 -> 2 -> 4 GPUs (global batch 12: the planner's plans are pp2-dp2,
//    dp3, pp2 and pp4): three reconfigurations with their phases, in the events and the store,
//    and the run completes its planned iterations;
//  - the new world's first iteration reported by every rank before the move ends: stored once,
//    after the move;
//  - SIGKILL of a worker whose stage has another replica: the run goes on with none of its
//    iterations lost (the state comes from the surviving replica);
//  - a preemption notice (SIGTERM) to the only holder of a stage: it hands its state over before
//    it leaves, within a shortened grace; no iteration lost;
//  - SIGKILL of the only holder of a stage: the state comes from the last checkpoint, and the
//    iterations lost stay within the documented bound (at most 2N - 1 with checkpoints every
//    N: the newest complete checkpoint, when the next one is still being written);
//  - the distributed optimizer: re-shared in place over another replica count (pp2-dp2 -> dp3),
//    and restarted from a checkpoint when a lost worker took its share of the state along;
//  - a trace row without GPUs: the run pauses (a paused event), the workers hold their state,
//    and it goes on when GPUs return;
//  - bad input: unknown GPU types or zones, malformed rows, a first row smaller than the plan,
//    options that need --trace, and a Slurm run on GPUs: one line, exit 2, nothing started.
#include <signal.h>

#include <cmath>
#include <utility>

#include <QDeadlineTimer>
#include <QFile>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include "proc_children.hpp"
#include "run_outcome.hpp"
#include "sailor/core/error.hpp"
#include "sailor/runs/run_events.hpp"
#include "sailor/runs/run_store.hpp"
#include "small_run.hpp"
#include "test_time.hpp"

namespace {

constexpr double kTolerance = 1e-9;  // float64, docs/training.md "Correctness"
using Outcome = sailor::test::RunOutcome;
using sailor::test::followRun;

}  // namespace

class TestElastic : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;

  QString store() const { return dir_.filePath("runs.sqlite"); }
  QString write(const QString& name, const QByteArray& text) const {
    QFile f(dir_.filePath(name));
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(text);
    return f.fileName();
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
  Outcome run(const QStringList& a) const {
    QProcess p;
    start(p, a);
    return followRun(p);
  }
  QList<double> storedLosses(std::int64_t id) const {
    return sailor::test::storedLosses(store(), id);
  }
  // Run `id` stored iterations 0..n-1 once each (n at least `min_n`), with the losses of the
  // same iterations of `reference`.
  void checkLikeReference(std::int64_t id, std::int64_t reference, int min_n) const {
    const QList<double> got = storedLosses(id), want = storedLosses(reference);
    QVERIFY2(got.size() >= min_n, qPrintable(QString("%1 iterations stored").arg(got.size())));
    QVERIFY(want.size() >= got.size());
    for (int i = 0; i < got.size(); ++i)
      QVERIFY2(std::abs(got[i] - want[i]) <= kTolerance * std::abs(want[i]),
               qPrintable(QString("iteration %1: %2 reconfigured, %3 uninterrupted")
                              .arg(i)
                              .arg(got[i], 0, 'g', 17)
                              .arg(want[i], 0, 'g', 17)));
  }
  // The run's stored events of one kind, decoded.
  QList<sailor::RunEvent> storedEvents(std::int64_t id, const std::string& kind) const {
    sailor::RunStore db(store().toStdString(), sailor::StoreAccess::ReadOnly);
    QList<sailor::RunEvent> out;
    for (const sailor::EventRecord& e : db.events(id))
      if (e.kind == kind) out.push_back(sailor::runEventFromJson(e.payload));
    return out;
  }
  // `plan` for 24 iterations, elastic, checkpointing every 4: once a checkpoint is complete and
  // iteration 9 reported, its second worker is SIGKILLed. The outcome until then and after.
  std::pair<Outcome, Outcome> killSecondWorkerAfterACheckpoint(const QString& plan) const {
    QProcess p;
    start(p, args(plan, 24, {"--elastic", "--checkpoint-every", "4"}));
    bool checkpoint = false;
    Outcome o = followRun(p, [&](const sailor::RunEvent& e) {
      checkpoint = checkpoint || e.as<sailor::CheckpointEvent>() != nullptr;
      const auto* it = e.as<sailor::IterationEvent>();
      return checkpoint && it && it->iteration >= 9;
    });
    if (o.worker_pids.size() >= 2) ::kill(static_cast<pid_t>(o.worker_pids[1]), SIGKILL);
    return {std::move(o), followRun(p)};
  }
  // Runs `a` until `stop_after` iterations were stored after `reconfigurations` reconfigured
  // events, then interrupts it (SIGINT: exit 130, the run recorded stopped).
  Outcome runUntil(const QStringList& a, int reconfigurations, int stop_after) const {
    QProcess p;
    start(p, a);
    int seen = 0, after = 0;
    Outcome o = followRun(p, [&](const sailor::RunEvent& e) {
      if (e.as<sailor::ReconfiguredEvent>()) ++seen;
      if (e.as<sailor::IterationEvent>() && seen >= reconfigurations) ++after;
      return after >= stop_after;
    });
    if (p.processId() > 0) ::kill(static_cast<pid_t>(p.processId()), SIGINT);  // still running
    const Outcome rest = followRun(p);
    o.events += rest.events;
    o.exit_code = rest.exit_code;
    o.err = rest.err;
    return o;
  }

 private Q_SLOTS:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  // 4 -> 3 -> 2 -> 4 GPUs: every change re-plans and moves the state among the live workers, and
  // the run completes its planned iterations. The rows come 0.05 s apart (--trace-time-scale
  // 0.05), so each is due by the time the previous reconfiguration ends: the three follow each
  // other a few iterations apart whatever the machine's speed (measured at iterations 2, 4 and 8
  // of 40 at load 3; the join waits for its two new workers to start, while the two-GPU world
  // trains on), and the run then finishes its 40 iterations.
  void traceShrinksAndGrows() {
    constexpr int kIterations = 40;
    const QString trace = write("four-three-two-four.json",
                                R"([{"Time": 0, "GPUs": 4}, {"Time": 1, "GPUs": 3},
                                    {"Time": 2, "GPUs": 2}, {"Time": 3, "GPUs": 4}])");
    const QStringList common{"--global-batch", "12"};
    const Outcome o =
        run(args("pp2-dp2.json", kIterations,
                 common + QStringList{"--trace", trace, "--trace-time-scale", "0.05"}));
    QVERIFY2(o.exit_code == 0, qPrintable(o.why()));
    const auto* done = o.all<sailor::RunFinishedEvent>().value(0);
    QVERIFY(done);
    QCOMPARE(done->iterations_done, kIterations);
    const auto r = o.all<sailor::ReconfiguredEvent>();
    QCOMPARE(r.size(), 3);
    const QList<int> sizes{r[0]->old_world_size, r[0]->new_world_size, r[1]->new_world_size,
                           r[2]->new_world_size};
    QCOMPARE(sizes, (QList<int>{4, 3, 2, 4}));
    for (const auto* e : r) {
      QCOMPARE(QString::fromStdString(e->cause), QString("trace"));
      QCOMPARE(QString::fromStdString(e->state_source), QString("peers"));
      QCOMPARE(e->iterations_lost, 0);
      QVERIFY(e->state_bytes > 0);
      QVERIFY(e->total_seconds > 0 && e->replan_seconds > 0 && e->group_setup_seconds > 0 &&
              e->rebuild_seconds > 0 && e->transfer_seconds > 0);
      QVERIFY(e->total_seconds >= e->transfer_seconds);
    }
    // 2 -> 4: two workers joined (started ahead of the pause, so their start is not in it): the
    // new world's workers_started lists two processes no earlier world had.
    const auto worlds = o.all<sailor::WorkersStartedEvent>();
    QSet<qint64> earlier;
    for (int i = 0; i + 1 < worlds.size(); ++i)
      for (const auto& w : worlds[i]->workers) earlier.insert(w.pid);
    int joined = 0;
    for (const auto& w : worlds.back()->workers) joined += earlier.contains(w.pid) ? 0 : 1;
    QCOMPARE(joined, 2);
    QCOMPARE(worlds.back()->generation, 3);
    QVERIFY(r[0]->from_iteration < r[1]->from_iteration);
    // The store holds the same three, phases included.
    const auto stored = storedEvents(o.runId(), "reconfigured");
    QCOMPARE(stored.size(), 3);
    QCOMPARE(stored[2].as<sailor::ReconfiguredEvent>()->transfer_seconds, r[2]->transfer_seconds);
    QCOMPARE(stored[1].as<sailor::ReconfiguredEvent>()->new_plan, r[1]->new_plan);

    QVERIFY2(r[2]->from_iteration + 1 < kIterations,
             qPrintable(QString("the last reconfiguration at iteration %1 of %2: the run must be "
                                "longer on this machine")
                            .arg(r[2]->from_iteration)
                            .arg(kIterations)));

    const Outcome reference = run(args("pp2-dp2.json", kIterations, common));
    QCOMPARE(reference.exit_code, 0);
    checkLikeReference(o.runId(), reference.runId(), kIterations);
  }

  // The new world's workers train as soon as each has its place: a controller that reads their
  // files in one pass can see the first iteration of the new world from every rank before the
  // last "reconfigured" (forced here: SAILOR_TEST_FAULT=late-reconfigured makes every worker
  // report it after that iteration). The iteration is stored after the move, once, and the
  // losses are an uninterrupted run's.
  void newWorldsFirstIterationBeforeTheMoveEnds() {
    constexpr int kIterations = 16;
    const QString trace =
        write("four-two.json", R"([{"Time": 0, "GPUs": 4}, {"Time": 1, "GPUs": 2}])");
    QProcess p;
    start(p, args("pp2-dp2.json", kIterations, {"--trace", trace, "--trace-time-scale", "0.05"}),
          "late-reconfigured");
    const Outcome o = followRun(p);
    QVERIFY2(o.exit_code == 0, qPrintable(o.why()));
    const auto r = o.all<sailor::ReconfiguredEvent>();
    QCOMPARE(r.size(), 1);
    const int from = r[0]->from_iteration;
    QVERIFY2(from + 1 < kIterations, qPrintable(QString("moved at iteration %1").arg(from)));
    // In the events, the move comes before the new world's iterations.
    int order = 0, moved_at = -1, first_after = -1;
    for (const sailor::RunEvent& e : o.events) {
      if (e.as<sailor::ReconfiguredEvent>()) moved_at = order;
      const auto* it = e.as<sailor::IterationEvent>();
      if (it && it->iteration == from) first_after = order;
      ++order;
    }
    QVERIFY(moved_at >= 0 && first_after > moved_at);
    sailor::RunStore db(store().toStdString(), sailor::StoreAccess::ReadOnly);
    QList<int> stored;
    for (const sailor::IterationRecord& it : db.iterations(o.runId()))
      stored.push_back(it.iteration);
    QList<int> every;
    for (int i = 0; i < kIterations; ++i) every.push_back(i);
    QCOMPARE(stored, every);
    const Outcome reference = run(args("pp2-dp2.json", kIterations));
    QCOMPARE(reference.exit_code, 0);
    checkLikeReference(o.runId(), reference.runId(), kIterations);
  }

  // A worker of stage 1, replica 1 SIGKILLed mid-run: replica 0 of its stage holds the same
  // state, so no iteration is lost and the losses stay those of an uninterrupted run.
  void workerKilledAnotherReplicaHoldsItsState() {
    const Outcome reference = run(args("pp2-dp2.json", 24));
    QCOMPARE(reference.exit_code, 0);
    QProcess p;
    start(p, args("pp2-dp2.json", 24, {"--elastic"}));
    Outcome o = followRun(p, [](const sailor::RunEvent& e) {
      const auto* it = e.as<sailor::IterationEvent>();
      return it && it->iteration >= 4;
    });
    QCOMPARE(o.worker_pids.size(), 4);
    ::kill(static_cast<pid_t>(o.worker_pids[3]), SIGKILL);
    const Outcome rest = followRun(p);
    QVERIFY2(rest.exit_code == 0, qPrintable(rest.why()));
    const auto r = rest.all<sailor::ReconfiguredEvent>();
    QCOMPARE(r.size(), 1);
    QCOMPARE(QString::fromStdString(r[0]->cause), QString("worker_lost"));
    QVERIFY(QString::fromStdString(r[0]->detail).contains("rank 3"));
    QCOMPARE(QString::fromStdString(r[0]->state_source), QString("peers"));
    QCOMPARE(r[0]->iterations_lost, 0);
    QCOMPARE(r[0]->old_world_size, 4);
    QVERIFY(r[0]->new_world_size <= 3);
    checkLikeReference(o.runId(), reference.runId(), 24);
  }

  // A preemption notice (SIGTERM to an elastic run's worker, as Slurm preempts) to the only
  // worker of stage 1 of pp2, then SIGKILL after a grace of 10 s (Slurm's KillWait, shortened):
  // the worker reports the notice, the run pauses at the end of the iteration, re-plans on one
  // GPU and the noticed worker hands its stage over before it leaves (exit 0, before the kill).
  // No checkpoint is needed: no iteration is lost, and the losses are an uninterrupted run's.
  void preemptionNoticeHandsOver() {
    const Outcome reference = run(args("pp2.json", 24));
    QCOMPARE(reference.exit_code, 0);
    QProcess p;
    start(p, args("pp2.json", 24, {"--elastic"}));
    Outcome o = followRun(p, [](const sailor::RunEvent& e) {
      const auto* it = e.as<sailor::IterationEvent>();
      return it && it->iteration >= 3;
    });
    QCOMPARE(o.worker_pids.size(), 2);
    const auto pid = static_cast<pid_t>(o.worker_pids[1]);
    ::kill(pid, SIGTERM);
    bool reconfigured = false;
    Outcome rest = followRun(p, [&](const sailor::RunEvent& e) {
      reconfigured = reconfigured || e.as<sailor::ReconfiguredEvent>() != nullptr;
      return reconfigured;
    });
    QVERIFY2(reconfigured, qPrintable(rest.why()));
    // The noticed worker is gone before the grace ends (it left on its own: nothing to kill).
    QDeadlineTimer grace(10000);
    while (::kill(pid, 0) == 0 && !grace.hasExpired()) QTest::qWait(50);
    const bool left_within_grace = ::kill(pid, 0) != 0;
    if (!left_within_grace) ::kill(pid, SIGKILL);
    const Outcome end = followRun(p);
    rest.events += end.events;
    rest.exit_code = end.exit_code;
    QVERIFY(left_within_grace);
    QVERIFY2(rest.exit_code == 0, qPrintable(rest.why()));
    const auto r = rest.all<sailor::ReconfiguredEvent>();
    QCOMPARE(r.size(), 1);
    QCOMPARE(QString::fromStdString(r[0]->cause), QString("preemption"));
    QVERIFY(QString::fromStdString(r[0]->detail).contains("rank 1: preemption notice (SIGTERM)"));
    QCOMPARE(QString::fromStdString(r[0]->state_source), QString("peers"));
    QCOMPARE(r[0]->iterations_lost, 0);
    QCOMPARE(r[0]->new_world_size, 1);
    checkLikeReference(o.runId(), reference.runId(), 24);
  }

  // The only worker of stage 1 SIGKILLed (pp2, plain or interleaved: under interleaving stage 1
  // holds blocks 7-12 and 19-24, Plan::chunkLayers): no survivor holds the stage; or a worker of a
  // two-replica run under the distributed optimizer: it took its share of the optimizer state
  // along. Either way the new world (one GPU, where the distributed optimizer has nothing to share
  // over) starts from the last checkpoint (every 4 iterations; the sharded one's state gathered
  // from both shares); the iterations after it are trained again, stored once, at most 2 * 4 - 1
  // lost, and the losses are an uninterrupted run's.
  void lostStateComesFromTheCheckpoint_data() {
    QTest::addColumn<QString>("plan");
    QTest::newRow("only holder of a stage") << "pp2.json";
    QTest::newRow("a share of the distributed optimizer") << "dp2-distributed-optimizer.json";
    QTest::newRow("a share of fully sharded data parallelism") << "dp2-fully-sharded.json";
    QTest::newRow("interleaved chunks of both stages") << "pp2-interleaved.json";
  }
  void lostStateComesFromTheCheckpoint() {
    QFETCH(QString, plan);
    const Outcome reference = run(args("pp2.json", 24));
    QCOMPARE(reference.exit_code, 0);
    const auto [o, rest] = killSecondWorkerAfterACheckpoint(plan);
    QCOMPARE(o.worker_pids.size(), 2);
    QVERIFY2(rest.exit_code == 0, qPrintable(rest.why()));
    const auto r = rest.all<sailor::ReconfiguredEvent>();
    QCOMPARE(r.size(), 1);
    QCOMPARE(QString::fromStdString(r[0]->state_source), QString("checkpoint"));
    QCOMPARE(r[0]->new_world_size, 1);
    QVERIFY2(r[0]->iterations_lost >= 0 && r[0]->iterations_lost <= 2 * 4 - 1,
             qPrintable(QString("%1 iterations lost").arg(r[0]->iterations_lost)));
    QCOMPARE(r[0]->from_iteration % 4, 0);  // the iteration after a checkpoint's
    QVERIFY(r[0]->new_plan.schedule.sharding == sailor::DpSharding::None);
    checkLikeReference(o.runId(), reference.runId(), 24);
    sailor::RunStore db(store().toStdString(), sailor::StoreAccess::ReadOnly);
    QCOMPARE(db.run(o.runId())->iterations_done, 24);
  }

  // Sharded state re-shared in place. The distributed optimizer (schedule.sharding "optimizer")
  // leaves each replica its share of its stage's optimizer state; fully sharded ("full"), of its
  // parameters too. Shrinking: 4 -> 3 GPUs at global batch 12 re-plans pp2-dp2 (two replicas a
  // stage) to dp3 (12 sequences split evenly over three pipelines, so the schedule stays).
  // Growing: on GPUs one per node (no tensor parallelism) with a fast zone network
  // (one-gpu-nodes.json), 2 -> 4 GPUs at global batch 16 re-plans dp2 to dp4. Either way the
  // shares are gathered when the world pauses, moved and shared anew, and the losses equal an
  // uninterrupted run.
  void shardedStateReshardsInPlace_data() {
    QTest::addColumn<QString>("plan");
    QTest::addColumn<int>("sharding");
    QTest::addColumn<QString>("global_batch");
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QString>("scenario");  // empty: the default
    QTest::addColumn<int>("replicas_before");
    QTest::addColumn<int>("replicas_after");
    const int optimizer = static_cast<int>(sailor::DpSharding::Optimizer);
    const int full = static_cast<int>(sailor::DpSharding::Full);
    const QString shrink = R"([{"Time": 0, "GPUs": 4}, {"Time": 1, "GPUs": 3}])";
    const QString grow = R"([{"Time": 0, "GPUs": 2}, {"Time": 1, "GPUs": 4}])";
    const QString one_gpu_nodes = QStringLiteral(SAILOR_TEST_DATA) + "/one-gpu-nodes.json";
    QTest::newRow("distributed optimizer, 4 -> 3 GPUs")
        << "pp2-dp2-distributed-optimizer.json" << optimizer << "12" << shrink << QString() << 2
        << 3;
    QTest::newRow("fully sharded, 4 -> 3 GPUs")
        << "pp2-dp2-fully-sharded.json" << full << "12" << shrink << QString() << 2 << 3;
    QTest::newRow("distributed optimizer, 2 -> 4 GPUs")
        << "dp2-distributed-optimizer.json" << optimizer << "16" << grow << one_gpu_nodes << 2 << 4;
    QTest::newRow("fully sharded, 2 -> 4 GPUs")
        << "dp2-fully-sharded.json" << full << "16" << grow << one_gpu_nodes << 2 << 4;
  }
  void shardedStateReshardsInPlace() {
    QFETCH(QString, plan);
    QFETCH(int, sharding);
    QFETCH(QString, global_batch);
    QFETCH(QString, trace);
    QFETCH(QString, scenario);
    QFETCH(int, replicas_before);
    QFETCH(int, replicas_after);
    constexpr int kIterations = 24;
    const QStringList common{"--global-batch", global_batch};
    const Outcome reference = run(args("pp2.json", kIterations, common));
    QCOMPARE(reference.exit_code, 0);
    const QString path = write("reshard-trace.json", trace.toUtf8());
    QStringList a = args(plan, kIterations,
                         common + QStringList{"--trace", path, "--trace-time-scale", "0.05"});
    if (!scenario.isEmpty()) a[a.indexOf("--scenario") + 1] = scenario;
    const Outcome o = run(a);
    QVERIFY2(o.exit_code == 0, qPrintable(o.why()));
    const auto r = o.all<sailor::ReconfiguredEvent>();
    QCOMPARE(r.size(), 1);
    QCOMPARE(QString::fromStdString(r[0]->state_source), QString("peers"));
    QCOMPARE(r[0]->iterations_lost, 0);
    QCOMPARE(r[0]->old_plan.stages.at(0).replicas.size(),
             static_cast<std::size_t>(replicas_before));
    QCOMPARE(r[0]->new_plan.stages.size(), std::size_t{1});
    QCOMPARE(r[0]->new_plan.stages.at(0).replicas.size(), static_cast<std::size_t>(replicas_after));
    QCOMPARE(static_cast<int>(r[0]->new_plan.schedule.sharding), sharding);
    checkLikeReference(o.runId(), reference.runId(), kIterations);
  }

  // The interleaved schedule (two chunks a rank: stage 0 holds blocks 1-6 and 13-18) reconfigured
  // in place by a 4 -> 3 GPU trace: the survivors' chunks are moved to the new plan's stages and
  // the losses equal an uninterrupted run of the plain schedule.
  void interleavedRunReconfiguresInPlace() {
    constexpr int kIterations = 16;
    const Outcome reference = run(args("pp2-dp2.json", kIterations));
    QCOMPARE(reference.exit_code, 0);
    const QString trace =
        write("four-three-interleaved.json", R"([{"Time": 0, "GPUs": 4}, {"Time": 1, "GPUs": 3}])");
    const Outcome o = run(args("pp2-dp2-interleaved.json", kIterations,
                               {"--trace", trace, "--trace-time-scale", "0.05"}));
    QVERIFY2(o.exit_code == 0, qPrintable(o.why()));
    const auto r = o.all<sailor::ReconfiguredEvent>();
    QCOMPARE(r.size(), 1);
    QCOMPARE(r[0]->old_plan.schedule.virtual_stages, 2);
    QCOMPARE(QString::fromStdString(r[0]->state_source), QString("peers"));
    QCOMPARE(r[0]->iterations_lost, 0);
    QVERIFY(r[0]->new_world_size >= 1 && r[0]->new_world_size <= 3);
    // The new plan keeps the interleaving where its stages and batch can take it.
    const sailor::Plan& next = r[0]->new_plan;
    qInfo("new plan: %zu stages of %zu replicas, %d virtual stages", next.stages.size(),
          next.stages[0].replicas.size(), next.schedule.virtual_stages);
    sailor::Plan probe = next;
    probe.schedule.virtual_stages = 2;
    bool takes = probe.interleavingFits(8);
    try {
      probe.checkInterleaving();
    } catch (const sailor::InputError&) {
      takes = false;
    }
    QCOMPARE(next.schedule.virtual_stages, next.stages.size() > 1 && takes ? 2 : 1);
    checkLikeReference(o.runId(), reference.runId(), kIterations);
  }

  // No GPUs for a while: the run pauses with a paused event and goes on when they return.
  void pausesWithoutGpusAndResumes() {
    const QString trace = write("gone-and-back.json",
                                R"([{"Time": 0, "GPUs": 2}, {"Time": 1, "GPUs": 0},
                                    {"Time": 2, "GPUs": 2}])");
    const Outcome o =
        runUntil(args("pp2.json", 3000, {"--trace", trace, "--trace-time-scale", "2"}), 1, 3);
    QVERIFY2(o.exit_code == 130, qPrintable(o.why()));
    const auto paused = o.all<sailor::PausedEvent>();
    QCOMPARE(paused.size(), 1);
    QVERIFY(QString::fromStdString(paused[0]->reason).contains("no GPUs"));
    const auto r = o.all<sailor::ReconfiguredEvent>();
    QCOMPARE(r.size(), 1);
    QCOMPARE(r[0]->from_iteration, paused[0]->iteration);
    QCOMPARE(QString::fromStdString(r[0]->state_source), QString("peers"));
    // Nothing trained while paused: the iterations run on without a gap.
    const QList<double> losses = storedLosses(o.runId());
    QVERIFY(losses.size() > r[0]->from_iteration);
    QCOMPARE(storedEvents(o.runId(), "paused").size(), 1);
  }

  // `sailor runs resize` while the run goes: 4 -> 2 GPUs on request, then refused for a finished
  // run, an unknown zone, a run not started elastic.
  void resizeWhileRunning() {
    QProcess p;
    start(p, args("pp2-dp2.json", 3000, {"--elastic"}));
    Outcome o = followRun(p, [](const sailor::RunEvent& e) {
      const auto* it = e.as<sailor::IterationEvent>();
      return it && it->iteration >= 2;
    });
    const QString id = QString::number(o.runId());
    auto resize = [&](const QStringList& extra, int code, const QString& needle) {
      QProcess r;
      start(r, QStringList{"runs", "resize"} + extra + QStringList{"--store", store()});
      QVERIFY(r.waitForFinished(30000));
      const QString out = QString::fromUtf8(r.readAllStandardOutput() + r.readAllStandardError());
      QVERIFY2(r.exitCode() == code, qPrintable(out));
      QVERIFY2(out.contains(needle), qPrintable(out));
    };
    resize({id, "--gpus", "A100-40@mars-north1-a=2"}, 2, "mars-north1-a");
    resize({id, "--gpus", "A100-40@us-central1-a=-1"}, 2, "non-negative");
    resize({id, "--gpus", "A100-40@us-central1-a=2"}, 0, "re-planning on 2 A100-40");
    // Three iterations of the new world, then the run is stopped (SIGINT: exit 130).
    int after = 0;
    Outcome rest = followRun(p, [&](const sailor::RunEvent& e) {
      if (e.as<sailor::ReconfiguredEvent>()) after = 1;
      else if (after > 0 && e.as<sailor::IterationEvent>()) ++after;
      return after > 3;
    });
    if (p.processId() > 0) ::kill(static_cast<pid_t>(p.processId()), SIGINT);
    const Outcome end = followRun(p);
    rest.events += end.events;
    rest.exit_code = end.exit_code;
    QVERIFY2(rest.exit_code == 130, qPrintable(rest.why()));
    const auto r = rest.all<sailor::ReconfiguredEvent>();
    QCOMPARE(r.size(), 1);
    QCOMPARE(QString::fromStdString(r[0]->cause), QString("resize"));
    QCOMPARE(r[0]->new_world_size, 2);
    resize({id, "--gpus", "A100-40@us-central1-a=4"}, 2, "which is stopped");
    const Outcome plain = run(args("single.json", 2));
    QCOMPARE(plain.exit_code, 0);
    resize({QString::number(plain.runId()), "--gpus", "A100-40@us-central1-a=4"}, 2,
           "which is finished");
  }

  void badInput_data() {
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("needle");
    const QString unknown_type =
        write("unknown-type.csv", ",Timestamp,X100-80_us-central1-a\n0,10,4\n1,20,3\n");
    const QString unknown_zone =
        write("unknown-zone.csv", ",Timestamp,A100-40_mars-north1-a\n0,10,4\n1,20,3\n");
    const QString malformed =
        write("malformed.csv", ",Timestamp,A100-40_us-central1-a\n0,10,4\n1,20,three\n");
    const QString small = write("small.json", R"([{"Time": 0, "GPUs": 2}])");
    const QString backwards =
        write("backwards.json", R"([{"Time": 5, "GPUs": 4}, {"Time": 1, "GPUs": 4}])");
    const QString negative =
        write("negative.json", R"([{"Time": 0, "GPUs": 4}, {"Time": 1, "GPUs": -1}])");
    QTest::newRow("unknown GPU type") << QStringList{"--trace", unknown_type} << "X100-80";
    QTest::newRow("unknown zone") << QStringList{"--trace", unknown_zone} << "mars-north1-a";
    QTest::newRow("malformed row") << QStringList{"--trace", malformed} << "\"three\"";
    QTest::newRow("first row smaller than the plan")
        << QStringList{"--trace", small} << "at least the plan's 4 A100-40";
    QTest::newRow("rows out of order") << QStringList{"--trace", backwards} << "time order";
    QTest::newRow("negative count") << QStringList{"--trace", negative} << "GPUs";
    QTest::newRow("missing trace")
        << QStringList{"--trace", dir_.filePath("none.csv")} << "none.csv";
    QTest::newRow("time scale without trace")
        << QStringList{"--trace-time-scale", "2"} << "--trace-time-scale";
    QTest::newRow("time scale zero")
        << QStringList{"--trace", small, "--trace-time-scale", "0"} << "--trace-time-scale";
    QTest::newRow("Slurm run on GPUs")
        << QStringList{"--elastic", "--launcher", "slurm", "--backend", "nccl"} << "a Gloo run";
  }
  void badInput() {
    QFETCH(QStringList, extra);
    QFETCH(QString, needle);
    QProcess p;
    start(p, args("pp2-dp2.json", 4, extra));
    QVERIFY(p.waitForFinished(30000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitCode(), 2);
    QCOMPARE(err.count('\n'), 1);
    QVERIFY2(err.contains(needle), qPrintable(err));
    QVERIFY(p.readAllStandardOutput().isEmpty());
  }
};

QTEST_GUILESS_MAIN(TestElastic)
#include "test_elastic.moc"
