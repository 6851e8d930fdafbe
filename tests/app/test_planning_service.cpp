// The studio's background planning service (app/studio/planning_service.hpp) on the default
// scenario and job: results equal to a direct planSearch, cancellation, supersession, errors, the
// one-terminal-signal-per-request contract, and that the owning thread's event loop keeps
// running during a search. The long searches (longSearch()) are cancelled by the tests.
#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <QVariant>
#include <nlohmann/json.hpp>

#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/scenario/scenario.hpp"
#include "studio/planning_service.hpp"
#include "test_time.hpp"

using sailor::studio::PlanningService;
using sailor::studio::PlanRequest;
using sailor::test::scaledMs;
using ResultPtr = std::shared_ptr<const sailor::PlanResult>;

namespace {

// Ids carried by a spy's first argument, in emission order.
QList<quint64> ids(const QSignalSpy& spy) {
  QList<quint64> out;
  for (const auto& args : spy) out.append(args.at(0).toULongLong());
  return out;
}

}  // namespace

class TestPlanningService : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void finishesWithTheSameBestPlansAsPlanSearch();
  void cancelEmitsCancelledAndNeverFinished();
  void newerRequestSupersedesTheRunningOne();
  void maxGpusZeroFails();
  void unreachableThroughputFinishesWithoutPlans();
  void requestWithoutInputsFails();
  void eventLoopKeepsRunningDuringASearch();
  void destructorCancelsAndJoins();
  void equalInputsAreAnsweredFromEarlierResults();
  void aRequestTakesOverThePrefetchOfItsInputs();
  void aRequestOfOtherInputsCancelsThePrefetch();
  void aFinishedPrefetchAnswersFromTheCache();
  void aTrainingBudgetRanksTheWholeRun();
  void stalePricesAreFlaggedWithThePlans();

 private:
  PlanRequest request(const sailor::PlannerOptions& options) const {
    PlanRequest r;
    r.scenario = scenario_;
    r.job = job_;
    r.catalog = catalog_;
    r.options = options;
    return r;
  }
  // A search of a few seconds that stops soon when cancelled: maximum throughput with H3 off
  // (every data-parallel degree, no early stop) and pipelines of at most 3 stages: about 3 s on
  // two cores here, each degree well under 0.5 s. The engine polls its cancel token only
  // between degrees, so searches with slow degrees run on long after cancel(): the Pareto
  // search on the default scenario takes 60-80 s to stop, H3 off at microbatch size 8 up to
  // 3 s (20 s under ASan); hence this one.
  sailor::PlannerOptions longSearch() const {
    sailor::PlannerOptions o;
    // Every degree, every replica multiset, no cap on partial plans: minutes (the planner's
    // exact pruning makes the default-heuristics search too quick to cancel in mid-flight).
    o.heuristics.h3_dp_descending = false;
    o.heuristics.h8_homogeneous_stages = false;
    o.heuristics.max_partial_plans = 0;
    o.heuristics.max_stages = 3;
    return o;
  }

  std::shared_ptr<const sailor::Catalog> catalog_;
  std::shared_ptr<const sailor::Scenario> scenario_;
  std::shared_ptr<const sailor::Job> job_;
};

void TestPlanningService::initTestCase() {
  const std::string dir = sailor::resourceDir();
  auto catalog = std::make_shared<const sailor::Catalog>(sailor::Catalog::load(dir));
  scenario_ = std::make_shared<const sailor::Scenario>(sailor::Scenario::fromJson(
      sailor::json_util::readFile(dir + "/scenarios/default.json"), *catalog));
  job_ = std::make_shared<const sailor::Job>(
      sailor::Job::fromJson(sailor::json_util::readFile(dir + "/jobs/default.json"), *catalog));
  catalog_ = catalog;
}

void TestPlanningService::finishesWithTheSameBestPlansAsPlanSearch() {
  PlanningService service;
  QSignalSpy started(&service, &PlanningService::started);
  QSignalSpy progress(&service, &PlanningService::progress);
  QSignalSpy finished(&service, &PlanningService::finished);
  QSignalSpy failed(&service, &PlanningService::failed);
  QSignalSpy cancelled(&service, &PlanningService::cancelled);

  const sailor::PlannerOptions options;  // maximum throughput, top 3, all threads
  const quint64 id = service.request(request(options));
  QVERIFY(id != 0);
  QCOMPARE(service.currentRequest(), id);
  QVERIFY(service.busy());
  QVERIFY(finished.wait(scaledMs(120000)));
  QCOMPARE(finished.count(), 1);
  QCOMPARE(finished.at(0).at(0).toULongLong(), id);
  QCOMPARE(ids(started), QList<quint64>{id});
  QCOMPARE(failed.count(), 0);
  QCOMPARE(cancelled.count(), 0);
  QCOMPARE(service.currentRequest(), quint64{0});
  QTRY_VERIFY(!service.busy());

  // Progress: this request's id, fractions in (0, 1], non-decreasing, ending at 1 (the throttle
  // always lets the last one through), each naming the engine's step.
  QVERIFY(progress.count() >= 1);
  double last = 0;
  for (const auto& args : progress) {
    QCOMPARE(args.at(0).toULongLong(), id);
    const double f = args.at(1).toDouble();
    QVERIFY2(f > 0 && f <= 1 && f >= last, qPrintable(QString::number(f)));
    last = f;
    // The search names its microbatch size; the steps after it (placing, simulating) and the
    // final "done" name themselves.
    const QString stage = args.at(2).toString();
    QVERIFY2(stage.contains("microbatch ") || stage.contains("placing") ||
                 stage.contains("simulat") || stage == "done",
             qPrintable(stage));
  }
  QCOMPARE(last, 1.0);

  const auto result = finished.at(0).at(1).value<ResultPtr>();
  QVERIFY(result);
  QVERIFY(!result->best.empty());
  QVERIFY(result->no_plan_reason.empty());

  // The same search called directly (the engine merges its threads' results in a fixed order,
  // so the ranking is deterministic).
  sailor::ProfileSet profiles;
  profiles.add(std::make_shared<sailor::AnalyticProfile>(*catalog_));
  const sailor::PlanResult direct =
      sailor::planSearch(*scenario_, *job_, *catalog_, profiles, options);
  QCOMPARE(result->best.size(), direct.best.size());
  for (size_t i = 0; i < direct.best.size(); ++i) {
    QCOMPARE(QString::fromStdString(result->best[i].plan.toJson().dump()),
             QString::fromStdString(direct.best[i].plan.toJson().dump()));
    QCOMPARE(result->best[i].model_iteration_s, direct.best[i].model_iteration_s);
    QCOMPARE(result->best[i].model_usd_per_iteration, direct.best[i].model_usd_per_iteration);
  }
  QCOMPARE(result->candidates, direct.candidates);
}

void TestPlanningService::cancelEmitsCancelledAndNeverFinished() {
  PlanningService service;
  QSignalSpy started(&service, &PlanningService::started);
  QSignalSpy finished(&service, &PlanningService::finished);
  QSignalSpy failed(&service, &PlanningService::failed);
  QSignalSpy cancelled(&service, &PlanningService::cancelled);

  const quint64 id = service.request(request(longSearch()));
  QVERIFY(started.wait(scaledMs(30000)));
  QTest::qWait(300);  // well inside the search
  QVERIFY(service.busy());
  QCOMPARE(finished.count(), 0);

  QElapsedTimer stopping;
  stopping.start();
  service.cancel();
  // Synchronous: cancelled(id) before cancel() returns, and the request is no longer current.
  QCOMPARE(ids(cancelled), QList<quint64>{id});
  QCOMPARE(service.currentRequest(), quint64{0});
  service.cancel();  // nothing current: no second signal
  QCOMPARE(cancelled.count(), 1);

  // The search stops soon (it polls the token between data-parallel degrees); whatever it
  // posted is delivered before busy() turns false, and none of it is emitted.
  QTRY_VERIFY_WITH_TIMEOUT(!service.busy(), 30000);
  qInfo("cancel to worker stopped: %lld ms", static_cast<long long>(stopping.elapsed()));
  QTest::qWait(100);
  QCOMPARE(finished.count(), 0);
  QCOMPARE(failed.count(), 0);
  QCOMPARE(cancelled.count(), 1);
}

void TestPlanningService::newerRequestSupersedesTheRunningOne() {
  PlanningService service;
  QSignalSpy started(&service, &PlanningService::started);
  QSignalSpy progress(&service, &PlanningService::progress);
  QSignalSpy finished(&service, &PlanningService::finished);
  QSignalSpy failed(&service, &PlanningService::failed);
  QSignalSpy cancelled(&service, &PlanningService::cancelled);

  const quint64 a = service.request(request(longSearch()));
  const quint64 b = service.request(request(sailor::PlannerOptions{}));
  QVERIFY(b > a);
  QCOMPARE(ids(cancelled), QList<quint64>{a});  // A is cancelled by B, synchronously
  QCOMPARE(service.currentRequest(), b);

  QVERIFY(finished.wait(scaledMs(120000)));
  QTRY_VERIFY_WITH_TIMEOUT(!service.busy(), 30000);
  QTest::qWait(100);
  QCOMPARE(ids(finished), QList<quint64>{b});
  QVERIFY(!finished.at(0).at(1).value<ResultPtr>()->best.empty());
  // A's worker may have begun before B arrived, but its signals reach the service after B is
  // current, so they are all dropped: nothing of A but cancelled(A).
  QCOMPARE(ids(started), QList<quint64>{b});
  for (const auto& args : progress) QCOMPARE(args.at(0).toULongLong(), b);
  QCOMPARE(failed.count(), 0);
  QCOMPARE(ids(cancelled), QList<quint64>{a});
}

void TestPlanningService::maxGpusZeroFails() {
  // The engine rejects max GPUs 0 as bad input (InputError) before searching.
  PlanningService service;
  QSignalSpy finished(&service, &PlanningService::finished);
  QSignalSpy failed(&service, &PlanningService::failed);
  sailor::PlannerOptions options;
  options.max_gpus = 0;
  const quint64 id = service.request(request(options));
  QVERIFY(failed.wait(scaledMs(30000)));
  QCOMPARE(failed.count(), 1);
  QCOMPARE(failed.at(0).at(0).toULongLong(), id);
  QCOMPARE(failed.at(0).at(1).toString(), QString("max_gpus: got 0, expected at least 1"));
  QTRY_VERIFY(!service.busy());
  QCOMPARE(finished.count(), 0);
  QCOMPARE(service.currentRequest(), quint64{0});
}

void TestPlanningService::unreachableThroughputFinishesWithoutPlans() {
  // A minimum throughput no plan reaches is not an input error: the search finishes with no
  // plan and says why (plans fit in memory, none meets the constraint).
  PlanningService service;
  QSignalSpy finished(&service, &PlanningService::finished);
  QSignalSpy failed(&service, &PlanningService::failed);
  sailor::PlannerOptions options;
  options.min_iterations_per_s = 1e9;
  const quint64 id = service.request(request(options));
  QVERIFY(finished.wait(scaledMs(120000)));
  QCOMPARE(failed.count(), 0);
  QCOMPARE(ids(finished), QList<quint64>{id});
  const auto result = finished.at(0).at(1).value<ResultPtr>();
  QVERIFY(result);
  QVERIFY(result->best.empty());
  QVERIFY(result->pareto.empty());
  QCOMPARE(QString::fromStdString(result->no_plan_reason),
           QString("plans fit in memory, but none meets the constraints (throughput >= 1e+09 "
                   "it/s)"));
}

// A job with a training budget: every plan carries its whole run (days, total USD), the best
// ordered by days under the throughput objective; a deadline no plan meets leaves none and says
// how close the fastest gets.
void TestPlanningService::aTrainingBudgetRanksTheWholeRun() {
  PlanningService service;
  QSignalSpy finished(&service, &PlanningService::finished);
  auto job = std::make_shared<sailor::Job>(*job_);
  job->training_tokens = 1e10;
  PlanRequest r = request(sailor::PlannerOptions{});
  r.job = job;
  service.request(r);
  QVERIFY(finished.wait(scaledMs(120000)));
  auto result = finished.at(0).at(1).value<ResultPtr>();
  QVERIFY(result && result->best.size() >= 2);
  for (std::size_t i = 0; i < result->best.size(); ++i) {
    const auto& c = result->best[i].campaign;
    QVERIFY(c && c->finishes() && c->total_usd > 0);
    QVERIFY(c->compute_s > 0 && c->wall_s >= c->compute_s);
    if (i > 0) QVERIFY(result->best[i - 1].campaign->days() <= c->days());
  }
  const double fastest = result->best.front().campaign->days();
  job = std::make_shared<sailor::Job>(*job);
  job->deadline_days = fastest / 2;
  r.job = job;
  service.request(r);
  QVERIFY(finished.wait(scaledMs(120000)));
  result = finished.at(1).at(1).value<ResultPtr>();
  QVERIFY(result && result->best.empty());
  QVERIFY2(result->no_plan_reason.find("no plan finishes within the deadline") == 0,
           result->no_plan_reason.c_str());
}

// A pool priced from a catalogue of 2020 (Pool::price_date): the result's notes, which the
// studio shows beside the plans, flag it; a pool without a date is not flagged.
void TestPlanningService::stalePricesAreFlaggedWithThePlans() {
  auto scenario = std::make_shared<sailor::Scenario>(*scenario_);
  scenario->pools[0].price_date = "2020-01-01";
  PlanningService service;
  QSignalSpy finished(&service, &PlanningService::finished);
  PlanRequest r = request(sailor::PlannerOptions{});
  r.scenario = scenario;
  service.request(r);
  QVERIFY(finished.wait(scaledMs(120000)));
  const auto result = finished.at(0).at(1).value<ResultPtr>();
  QVERIFY(result && !result->best.empty());
  const std::string expected = "stale price: pool " + scenario->pools[0].zone + " " +
                               scenario->pools[0].gpu_type + ": price dated 2020-01-01, ";
  int flagged = 0;
  for (const std::string& note : result->notes)
    if (note.starts_with("stale price:")) {
      ++flagged;
      QVERIFY2(note.starts_with(expected), note.c_str());
    }
  QCOMPARE(flagged, 1);
}

void TestPlanningService::requestWithoutInputsFails() {
  PlanningService service;
  QSignalSpy failed(&service, &PlanningService::failed);
  PlanRequest r = request(sailor::PlannerOptions{});
  r.job.reset();
  const quint64 id = service.request(std::move(r));
  QVERIFY(failed.wait(scaledMs(10000)));
  QCOMPARE(ids(failed), QList<quint64>{id});
  QVERIFY(failed.at(0).at(1).toString().contains("job"));
}

void TestPlanningService::eventLoopKeepsRunningDuringASearch() {
  PlanningService service;
  QSignalSpy started(&service, &PlanningService::started);
  QSignalSpy finished(&service, &PlanningService::finished);
  service.request(request(longSearch()));
  QVERIFY(started.wait(scaledMs(30000)));

  // 10 ms ticks on this (the service's) thread for 1.5 s of searching, or until the search
  // ends if it is faster on this machine (at least 0.5 s of it for the check to mean anything).
  QElapsedTimer clock;
  clock.start();
  qint64 last = 0;
  qint64 max_gap = 0;
  int ticks = 0;
  QTimer timer;
  timer.setInterval(10);
  connect(&timer, &QTimer::timeout, this, [&] {
    const qint64 now = clock.elapsed();
    max_gap = std::max(max_gap, now - last);
    last = now;
    ++ticks;
  });
  timer.start();
  (void)QTest::qWaitFor([&] { return !finished.isEmpty() || clock.elapsed() >= 1500; }, 3000);
  timer.stop();
  const qint64 window = clock.elapsed();
  if (finished.isEmpty()) service.cancel();
  QTRY_VERIFY_WITH_TIMEOUT(!service.busy(), 30000);

  qInfo("event loop during a search: %d ticks of 10 ms in %lld ms, longest gap %lld ms", ticks,
        static_cast<long long>(window), static_cast<long long>(max_gap));
  QVERIFY2(window >= 500, qPrintable(QString("the search lasted only %1 ms").arg(window)));
  QVERIFY(ticks > 0);
  QVERIFY2(max_gap < 200, qPrintable(QString("longest gap %1 ms").arg(max_gap)));
}

void TestPlanningService::destructorCancelsAndJoins() {
  // Destroyed mid-search: cancels, waits for the worker, emits nothing afterwards, no crash.
  {
    auto service = std::make_unique<PlanningService>();
    QSignalSpy started(service.get(), &PlanningService::started);
    service->request(request(longSearch()));
    QVERIFY(started.wait(scaledMs(30000)));
    QTest::qWait(200);
    QElapsedTimer clock;
    clock.start();
    service.reset();
    qInfo("destructor during a search: %lld ms", static_cast<long long>(clock.elapsed()));
    QVERIFY(clock.elapsed() < 20000);
  }
  // Destroyed before its worker's first signal was delivered, with a second request queued.
  {
    auto service = std::make_unique<PlanningService>();
    service->request(request(longSearch()));
    service->request(request(longSearch()));
    service.reset();
  }
  QTest::qWait(50);  // any stray queued call would land (and crash) here
}

// A request whose inputs equal an earlier finished one's (an edit typed back, undo) gets that
// result again from the service's PlanCache, without a search; other inputs still search.
void TestPlanningService::equalInputsAreAnsweredFromEarlierResults() {
  PlanningService service;
  QSignalSpy finished(&service, &PlanningService::finished);
  sailor::PlannerOptions throughput, cost;
  cost.objective = sailor::Objective::Cost;
  service.request(request(throughput));
  QVERIFY(finished.wait(scaledMs(120000)));
  service.request(request(cost));
  QVERIFY(finished.wait(scaledMs(120000)));
  QCOMPARE(service.reusedResults(), quint64{0});
  // The same scenario, job and options again (the scenario as a new object with equal content,
  // as the studio's document makes after an edit and its undo).
  PlanRequest again = request(throughput);
  again.scenario = std::make_shared<const sailor::Scenario>(*scenario_);
  service.request(std::move(again));
  QVERIFY(finished.wait(scaledMs(120000)));
  QCOMPARE(service.reusedResults(), quint64{1});
  QCOMPARE(finished.count(), 3);
  const auto first = finished.at(0).at(1).value<ResultPtr>();
  const auto reused = finished.at(2).at(1).value<ResultPtr>();
  QVERIFY(first && reused && !first->best.empty());
  QCOMPARE(reused->best.size(), first->best.size());
  for (size_t i = 0; i < first->best.size(); ++i)
    QCOMPARE(QString::fromStdString(reused->best[i].plan.toJson().dump()),
             QString::fromStdString(first->best[i].plan.toJson().dump()));
  QCOMPARE(reused->candidates, first->candidates);
  QTRY_VERIFY(!service.busy());
}

// NOTE [Searching during the re-plan pause]: a prefetch runs after the current request (it does
// not cancel it) and emits nothing; the request of its inputs takes it over (cancelling the
// older request), so one search answers it.
void TestPlanningService::aRequestTakesOverThePrefetchOfItsInputs() {
  PlanningService service;
  QSignalSpy started(&service, &PlanningService::started);
  QSignalSpy finished(&service, &PlanningService::finished);
  QSignalSpy failed(&service, &PlanningService::failed);
  QSignalSpy cancelled(&service, &PlanningService::cancelled);
  const quint64 slow = service.request(request(longSearch()));
  QVERIFY(started.wait(scaledMs(30000)));
  service.prefetch(request(sailor::PlannerOptions{}));  // queued behind the slow search
  service.prefetch(request(sailor::PlannerOptions{}));  // the same inputs: nothing new
  QTest::qWait(200);
  QCOMPARE(service.currentRequest(), slow);
  QCOMPARE(cancelled.count(), 0);
  QCOMPARE(ids(started), QList<quint64>{slow});

  // Equal inputs in new objects, as the studio makes them at the pause's end.
  PlanRequest again = request(sailor::PlannerOptions{});
  again.scenario = std::make_shared<const sailor::Scenario>(*scenario_);
  again.job = std::make_shared<const sailor::Job>(*job_);
  const quint64 id = service.request(std::move(again));
  QCOMPARE(service.takenOver(), quint64{1});
  QCOMPARE(ids(cancelled), QList<quint64>{slow});
  QVERIFY(finished.wait(scaledMs(120000)));
  QTRY_VERIFY_WITH_TIMEOUT(!service.busy(), 30000);
  QTest::qWait(100);
  QCOMPARE(ids(started), (QList<quint64>{slow, id}));
  QCOMPARE(ids(finished), QList<quint64>{id});
  QCOMPARE(failed.count(), 0);
  // The slow search and the prefetch: no third search for the request, no cache hit.
  QCOMPARE(service.searchesRun(), quint64{2});
  QCOMPARE(service.reusedResults(), quint64{0});
  const auto got = finished.at(0).at(1).value<ResultPtr>();
  sailor::ProfileSet profiles;
  profiles.add(std::make_shared<sailor::AnalyticProfile>(*catalog_));
  const sailor::PlanResult direct =
      sailor::planSearch(*scenario_, *job_, *catalog_, profiles, sailor::PlannerOptions{});
  QVERIFY(got && !got->best.empty());
  QCOMPARE(got->best.size(), direct.best.size());
  for (size_t i = 0; i < direct.best.size(); ++i)
    QCOMPARE(QString::fromStdString(got->best[i].plan.toJson().dump()),
             QString::fromStdString(direct.best[i].plan.toJson().dump()));

  // A prefetch that has begun (or even ended on the worker: its end reaches the service in a
  // later event-loop turn) is taken over by a request in the same turn: one more search, no
  // cache hit, one started and one finished for the request.
  sailor::PlannerOptions cost;
  cost.objective = sailor::Objective::Cost;
  service.prefetch(request(cost));
  // The worker begins it; the event loop does not run meanwhile (its end must not arrive).
  QElapsedTimer waited;
  waited.start();
  while (service.searchesRun() < 3 && waited.elapsed() < scaledMs(30000))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  QCOMPARE(service.searchesRun(), quint64{3});
  const quint64 id2 = service.request(request(cost));
  QCOMPARE(service.takenOver(), quint64{2});
  QVERIFY(finished.wait(scaledMs(120000)));
  QTRY_VERIFY_WITH_TIMEOUT(!service.busy(), 30000);
  QTest::qWait(100);
  QCOMPARE(ids(finished), (QList<quint64>{id, id2}));
  QCOMPARE(ids(started), (QList<quint64>{slow, id, id2}));
  QCOMPARE(service.searchesRun(), quint64{3});
  QCOMPARE(service.reusedResults(), quint64{0});
}

void TestPlanningService::aRequestOfOtherInputsCancelsThePrefetch() {
  PlanningService service;
  QSignalSpy started(&service, &PlanningService::started);
  QSignalSpy finished(&service, &PlanningService::finished);
  const quint64 slow = service.request(request(longSearch()));
  QVERIFY(started.wait(scaledMs(30000)));
  service.prefetch(request(sailor::PlannerOptions{}));  // queued behind the slow search
  sailor::PlannerOptions cost;
  cost.objective = sailor::Objective::Cost;
  const quint64 id = service.request(request(cost));  // other inputs: both are cancelled
  QVERIFY(id > slow);
  QCOMPARE(service.takenOver(), quint64{0});
  QVERIFY(finished.wait(scaledMs(120000)));
  QTRY_VERIFY_WITH_TIMEOUT(!service.busy(), 30000);
  QCOMPARE(ids(finished), QList<quint64>{id});
  QCOMPARE(ids(started), (QList<quint64>{slow, id}));
  // The prefetch was cancelled before it began: the slow search and the request's only.
  QCOMPARE(service.searchesRun(), quint64{2});
  const auto got = finished.at(0).at(1).value<ResultPtr>();
  QVERIFY(got && !got->best.empty());
  // The cost objective's best plan is the cheapest per iteration of those returned.
  for (const auto& p : got->best)
    QVERIFY(got->best.front().prediction.usd_per_iteration <= p.prediction.usd_per_iteration);
}

void TestPlanningService::aFinishedPrefetchAnswersFromTheCache() {
  PlanningService service;
  QSignalSpy started(&service, &PlanningService::started);
  QSignalSpy finished(&service, &PlanningService::finished);
  QSignalSpy failed(&service, &PlanningService::failed);
  QSignalSpy cancelled(&service, &PlanningService::cancelled);
  service.prefetch(request(sailor::PlannerOptions{}));
  QVERIFY(service.busy());
  QCOMPARE(service.currentRequest(), quint64{0});
  QTRY_VERIFY_WITH_TIMEOUT(!service.busy(), scaledMs(120000));
  QCOMPARE(service.searchesRun(), quint64{1});
  QCOMPARE(started.count() + finished.count() + failed.count() + cancelled.count(), 0);
  const quint64 id = service.request(request(sailor::PlannerOptions{}));
  QVERIFY(finished.wait(scaledMs(30000)));
  QCOMPARE(ids(finished), QList<quint64>{id});
  QCOMPARE(service.reusedResults(), quint64{1});
  QCOMPARE(service.searchesRun(), quint64{1});
  QCOMPARE(service.takenOver(), quint64{0});
  // A prefetch the job cannot plan (no scenario) does nothing. (The request's worker posts its
  // end after its result: wait for it first.)
  QTRY_VERIFY_WITH_TIMEOUT(!service.busy(), scaledMs(30000));
  PlanRequest bare;
  service.prefetch(bare);
  QVERIFY(!service.busy());
}

QTEST_GUILESS_MAIN(TestPlanningService)
#include "test_planning_service.moc"
