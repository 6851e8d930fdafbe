// The planner's memory reserve (PlannerOptions::memory_reserve_fraction, NOTE [Memory reserve]
// in planner.cpp), on the three-offer Llama-3-70B scenario with a reserve just above the
// headroom of the best plan without one: dropping plans within the reserve removes that plan
// and every plan returned keeps the reserve free, flagging keeps it and marks it, and a reserve
// of 0 (or flagging, which searches the whole memory) gives the plans of the search without
// one.
#include <algorithm>
#include <cmath>
#include <limits>

#include <QTest>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/scenario/scenario.hpp"
#include "test_support.hpp"

using namespace sailor;
using nlohmann::json;

namespace {

// Whether every GPU of the plan keeps `fraction` of its memory free.
bool clearsReserve(const PlannedPlan& p, double fraction) {
  for (const auto& m : p.prediction.memory)
    if (m.capacity_bytes - m.total_bytes < fraction * m.capacity_bytes) return false;
  return true;
}

}  // namespace

class TestMemoryReserve : public QObject {
  Q_OBJECT
  Catalog cat_ = Catalog::load(test::resources());
  ProfileSet profiles_;
  Scenario sc_;
  Job job_;

  PlanResult search(PlannerOptions o) const {
    o.threads = 2;
    return planSearch(sc_, job_, cat_, profiles_, o);
  }
  static PlannerOptions withReserve(double fraction, MemoryReserveMode mode, bool pareto = false) {
    PlannerOptions o;
    o.memory_reserve_fraction = fraction;
    o.memory_reserve_mode = mode;
    o.pareto = pareto;
    return o;
  }

 private slots:
  void initTestCase() {
    profiles_.add(std::make_shared<AnalyticProfile>(cat_));
    sc_ = Scenario::fromJson(test::threeOffersScenario(), cat_);
    job_ = Job::fromJson(json::parse(R"({"model": "Llama-3-70B", "global_batch_size": 1024,
      "sequence_length": 8192, "precision": "bf16", "optimizer": "adam", "recompute": "full"})"),
                         cat_);
  }

  void defaultIsDropFivePercent() {
    const PlannerOptions o;
    QCOMPARE(o.memory_reserve_fraction, 0.05);
    QVERIFY(o.memory_reserve_mode == MemoryReserveMode::Drop);
    QCOMPARE(o.searchReserveFraction(), 0.05);
    PlannerOptions f = o;
    f.memory_reserve_mode = MemoryReserveMode::Flag;
    QCOMPARE(f.searchReserveFraction(), 0.0);
    QVERIFY(!(f == o));  // the plan cache tells them apart
  }

  // A reserve just above the best plan's headroom without one (its least share of free memory
  // over its GPUs, plus 1 %), so that the case holds whatever the simulator's figures: the best
  // plan without a reserve lies within it.
  double reserveAboveBest(const PlanResult& none) const {
    const PlannedPlan& best = none.best.front();
    double fraction = 1;
    for (const auto& m : best.prediction.memory)
      fraction = std::min(fraction, (m.capacity_bytes - m.total_bytes) / m.capacity_bytes);
    return std::min(fraction + 0.01, kMaxMemoryReserveFraction);
  }

  // Dropping: the best plan without a reserve is gone, the search itself avoids it (the
  // planning model refuses it), and every plan returned, the frontier's too, keeps the reserve
  // free on every GPU; so does every plan of the default 5 % reserve.
  void dropRemovesPlansWithinTheReserve() {
    const PlanResult none = search(withReserve(0, MemoryReserveMode::Drop));
    QVERIFY(!none.best.empty());
    const PlannedPlan& tight = none.best.front();
    QVERIFY(leastHeadroomBytes(tight.prediction) > 0);
    QVERIFY(!tight.within_memory_reserve);  // nothing is flagged without a reserve
    const double reserve = reserveAboveBest(none);
    QVERIFY(withinMemoryReserve(tight.prediction, reserve));
    QVERIFY(planningModel(tight.plan, sc_, job_, cat_, profiles_).has_value());
    QVERIFY(!planningModel(tight.plan, sc_, job_, cat_, profiles_, {}, nullptr, reserve));

    for (const double f : {reserve, kDefaultMemoryReserveFraction}) {
      const PlanResult drop = search(withReserve(f, MemoryReserveMode::Drop, true));
      QVERIFY(!drop.best.empty());
      QVERIFY(!drop.pareto.empty());
      for (const auto* list : {&drop.best, &drop.pareto})
        for (const PlannedPlan& p : *list) {
          QVERIFY2(clearsReserve(p, f), test::planText(p).c_str());
          QVERIFY(!p.within_memory_reserve);
          if (f == reserve) QVERIFY(test::planText(p) != test::planText(tight));
        }
      // No faster than the best plan without the reserve: the reserve only takes plans away.
      QVERIFY(drop.best.front().prediction.iteration_s >=
              tight.prediction.iteration_s * (1 - 1e-12));
    }
  }

  // Flagging searches the whole memory: the same best plans as without a reserve, those within
  // it marked (in the JSON too), the others not.
  void flagKeepsAndMarks() {
    const PlanResult none = search(withReserve(0, MemoryReserveMode::Drop));
    QVERIFY(!none.best.empty());
    const double reserve = reserveAboveBest(none);
    const PlanResult flag = search(withReserve(reserve, MemoryReserveMode::Flag));
    QCOMPARE(flag.best.size(), none.best.size());
    for (size_t i = 0; i < flag.best.size(); ++i) {
      const PlannedPlan& p = flag.best[i];
      QCOMPARE(test::planText(p), test::planText(none.best[i]));
      QCOMPARE(p.prediction.iteration_s, none.best[i].prediction.iteration_s);
      QCOMPARE(p.within_memory_reserve, !clearsReserve(p, reserve));
      const json j = plannedPlanJson(p);
      QCOMPARE(j.value("within_memory_reserve", false), p.within_memory_reserve);
    }
    QVERIFY(flag.best.front().within_memory_reserve);
    QVERIFY(flag.toJson()["plans"][0]["within_memory_reserve"].get<bool>());
    QVERIFY(!plannedPlanJson(none.best.front()).contains("within_memory_reserve"));
  }

  // A reserve of 0 is the search without one: the same plans as flagging (which searches the
  // whole memory), in either mode.
  void zeroReserveReproducesTheSearchWithoutOne() {
    const PlanResult drop0 = search(withReserve(0, MemoryReserveMode::Drop));
    const PlanResult flag0 = search(withReserve(0, MemoryReserveMode::Flag));
    QCOMPARE(drop0.best.size(), flag0.best.size());
    for (size_t i = 0; i < drop0.best.size(); ++i) {
      QCOMPARE(test::planText(drop0.best[i]), test::planText(flag0.best[i]));
      QVERIFY(!flag0.best[i].within_memory_reserve);
    }
  }

  // A reserve so large that nothing fits: no plan, and the reason names the reserve.
  void noPlanNamesTheReserve() {
    PlannerOptions o = withReserve(0.5, MemoryReserveMode::Drop);
    o.schedules = ScheduleSearch::DeepSpeed;  // the whole optimizer state on every replica
    const PlanResult r = search(o);
    QVERIFY(r.best.empty());
    QVERIFY2(r.no_plan_reason.find("less the memory reserve (50 % of each GPU's memory)") !=
                 std::string::npos,
             r.no_plan_reason.c_str());
    QVERIFY2(r.no_plan_reason.find("a smaller memory reserve") != std::string::npos,
             r.no_plan_reason.c_str());
  }

  void badFraction_data() {
    QTest::addColumn<double>("fraction");
    QTest::newRow("negative") << -0.01;
    QTest::newRow("above 0.5") << 0.51;
    QTest::newRow("nan") << std::numeric_limits<double>::quiet_NaN();
    QTest::newRow("inf") << std::numeric_limits<double>::infinity();
  }
  void badFraction() {
    QFETCH(double, fraction);
    const QString e =
        test::inputErrorOf([&] { search(withReserve(fraction, MemoryReserveMode::Drop)); });
    QVERIFY2(e.contains("memory_reserve_fraction") && e.contains("from 0 to 0.5"), qPrintable(e));
  }
};

QTEST_GUILESS_MAIN(TestMemoryReserve)
#include "test_memory_reserve.moc"
