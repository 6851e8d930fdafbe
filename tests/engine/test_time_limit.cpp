// The planner's time limit (PlannerOptions::time_limit_s; docs/planner.md, "Progress and the
// time limit"): a search cut by it returns the best plans found so far, marked as such
// (PlanResult::time_limit) with what it covered; a search that ends within it is the search
// without one; bad limits are refused naming the field. On the built-in default scenario with
// the analytic profiles. No assertion on tight wall times: only that a search which would take
// minutes stops within a loose bound of its limit.
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include <QTest>

#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/planning/planner.hpp"
#include "test_support.hpp"

using namespace sailor;

namespace {

// Far above any limit below and far below the searches those limits cut (minutes).
constexpr double kLooseBoundS = 20.0;

}  // namespace

class TestTimeLimit : public QObject {
  Q_OBJECT

  Catalog cat_ = Catalog::load(test::resources());
  ProfileSet profiles_;
  Scenario sc_;
  Job job_;

  PlanResult plan(const PlannerOptions& o) { return planSearch(sc_, job_, cat_, profiles_, o); }

  // Every microbatch size listed once, ascending; an incomplete one says where it stopped.
  static void checkCoverage(const TimeLimitReport& t) {
    QVERIFY(!t.microbatches.empty());
    for (size_t i = 0; i < t.microbatches.size(); ++i) {
      const auto& m = t.microbatches[i];
      if (i > 0) QVERIFY(m.microbatch > t.microbatches[i - 1].microbatch);
      QVERIFY2(m.complete == m.stopped_at.empty(), m.stopped_at.c_str());
      QVERIFY(std::is_sorted(m.degrees.begin(), m.degrees.end()));
    }
    const std::string text = t.coverageText();
    QVERIFY2(text.find("microbatch " + std::to_string(t.microbatches.front().microbatch)) == 0,
             text.c_str());
  }

 private slots:
  void initTestCase() {
    profiles_.add(std::make_shared<AnalyticProfile>(cat_));
    sc_ = Scenario::fromJson(json_util::readFile(test::resources() + "/scenarios/default.json"),
                             cat_);
    job_ = Job::fromJson(json_util::readFile(test::resources() + "/jobs/default.json"), cat_);
  }

  // A limit passed at once (1 us): every task stops before its first degree and keeps its seed
  // plans (one kind per pipeline, layers split evenly), which are placed, simulated and returned,
  // marked; the JSON says so.
  void limitPassedAtOnceGivesSeedPlans() {
    PlannerOptions o;
    o.time_limit_s = 1e-6;
    o.pareto = true;
    const PlanResult r = plan(o);
    QVERIFY2(!r.best.empty(), r.no_plan_reason.c_str());
    QVERIFY(!r.complete());
    QVERIFY(r.time_limit);
    QCOMPARE(r.time_limit->limit_s, 1e-6);
    checkCoverage(*r.time_limit);
    for (const auto& m : r.time_limit->microbatches) {
      QVERIFY(!m.complete);
      QVERIFY2(m.degrees.empty(), qPrintable(QString::number(m.microbatch)));
    }
    QVERIFY(!r.time_limit->searchComplete());
    // Past the limit placing stops once top_k plans are placed and meet the constraints.
    QCOMPARE(static_cast<int>(r.best.size()), o.top_k);
    QVERIFY(r.time_limit->placed >= o.top_k);
    QVERIFY(r.time_limit->placed <= r.time_limit->window);
    for (const auto& p : r.best) {
      QVERIFY(p.prediction.fits);
      QVERIFY(p.prediction.iterations_per_s > 0);
      const Stage& s0 = p.plan.stages.front();
      for (const auto& st : p.plan.stages)  // a seed: one kind throughout
        for (const auto& rep : st.replicas) QCOMPARE(rep.gpu_type, s0.replicas.front().gpu_type);
    }
    const auto j = r.toJson();
    QCOMPARE(j.at("complete").get<bool>(), false);
    QCOMPARE(j.at("time_limit").at("limit_s").get<double>(), 1e-6);
    QCOMPARE(j.at("time_limit").at("microbatches").size(), r.time_limit->microbatches.size());
    QVERIFY(j.at("time_limit").at("coverage").get<std::string>().find("seed plans only") !=
            std::string::npos);
    QVERIFY(r.search_seconds < kLooseBoundS);
  }

  // A search that would take minutes (every degree of every microbatch size, any depth, every
  // partial plan kept, the frontier) cut at 2 s: plans returned, marked, within a loose bound.
  void longSearchStopsNearItsLimit() {
    PlannerOptions o;
    o.pareto = true;
    o.heuristics.h3_dp_descending = false;
    o.heuristics.h4_dp_ascending = false;
    o.heuristics.pareto_grid = 1.0;
    o.heuristics.max_stages = 0;
    o.heuristics.max_partial_plans = 0;
    o.time_limit_s = 2.0;
    const auto t0 = std::chrono::steady_clock::now();
    const PlanResult r = plan(o);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    qInfo(
        "cut at 2 s: %.3f s in planSearch, %.3f s by its own clock, search stopped at %.3f s; "
        "%ld candidates; %s",
        wall, r.search_seconds, r.time_limit ? r.time_limit->search_stopped_s : -1.0, r.candidates,
        r.time_limit ? r.time_limit->coverageText().c_str() : "complete");
    QVERIFY2(!r.best.empty(), r.no_plan_reason.c_str());
    QVERIFY(r.time_limit);
    QVERIFY(!r.time_limit->searchComplete());
    checkCoverage(*r.time_limit);
    QVERIFY(!r.pareto.empty());
    QVERIFY(r.knee);
    QVERIFY(wall < o.time_limit_s.value() + kLooseBoundS);
    QVERIFY(r.time_limit->search_stopped_s <= r.search_seconds);
  }

  // A limit the search ends within changes nothing: same plans, same frontier, complete.
  void searchWithinItsLimitIsTheWholeSearch() {
    PlannerOptions o;
    const PlanResult whole = plan(o);
    o.time_limit_s = 3600;
    const PlanResult limited = plan(o);
    QVERIFY(whole.complete());
    QVERIFY2(limited.complete(),
             limited.time_limit ? limited.time_limit->coverageText().c_str() : "");
    QCOMPARE(limited.toJson().at("complete").get<bool>(), true);
    QVERIFY(!limited.toJson().contains("time_limit"));
    QCOMPARE(limited.best.size(), whole.best.size());
    for (size_t i = 0; i < whole.best.size(); ++i)
      QVERIFY(limited.best[i].plan == whole.best[i].plan);
    QCOMPARE(limited.candidates, whole.candidates);
  }

  // No plan meets the constraints and the limit stops the search: the reason names the limit.
  void noPlanWithinTheLimitSaysSo() {
    PlannerOptions o;
    o.min_iterations_per_s = 1e6;
    o.time_limit_s = 1e-6;
    const PlanResult r = plan(o);
    QVERIFY(r.best.empty());
    QVERIFY2(r.no_plan_reason.find("time limit of 1e-06 s") != std::string::npos,
             r.no_plan_reason.c_str());
    QVERIFY(r.time_limit);
  }

  void badLimitsAreRefused_data() {
    QTest::addColumn<double>("limit");
    QTest::newRow("0") << 0.0;
    QTest::newRow("-1") << -1.0;
    QTest::newRow("nan") << std::numeric_limits<double>::quiet_NaN();
    QTest::newRow("inf") << std::numeric_limits<double>::infinity();
    QTest::newRow("-inf") << -std::numeric_limits<double>::infinity();
  }
  void badLimitsAreRefused() {
    QFETCH(double, limit);
    PlannerOptions o;
    o.time_limit_s = limit;
    const QString msg = test::inputErrorOf([&] { plan(o); });
    QVERIFY2(msg.contains("time_limit_s") && msg.contains("a positive number of seconds"),
             qPrintable(msg));
  }

  // Deadline: none never passes; a huge one is none (no overflow); a past one has passed.
  void deadlines() {
    const auto now = Deadline::Clock::now();
    QVERIFY(!Deadline().set());
    QVERIFY(!Deadline().passed());
    QVERIFY(std::isinf(Deadline().secondsLeft()));
    QVERIFY(!Deadline(now, 1e300).set());
    QVERIFY(Deadline(now, 0).passed());
    QVERIFY(Deadline(now, -5).passed());
    const Deadline hour(now, 3600);
    QVERIFY(hour.set() && !hour.passed());
    QVERIFY(hour.secondsLeft() > 3500 && hour.secondsLeft() <= 3600);
  }
};

QTEST_GUILESS_MAIN(TestTimeLimit)
#include "test_time_limit.moc"
