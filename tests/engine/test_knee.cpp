// The knee of the planner's frontier (engine/include/sailor/planning/knee.hpp; docs/planner.md,
// "The knee"): the rule on synthetic frontiers (one plan, ties at the threshold, the cost
// objective, a best plan off the frontier, a free plan, no frontier) and on the two-zone scenario
// of the SAILOR paper (2 zones x (128 A100-40 + 128 V100-16), OPT-350M, at most 1.2 USD/iteration),
// built from the shipped default scenario and price sheet so that it always runs; with SAILOR's
// reference data beside the project, also on its profiles and network fits.
#include <limits>

#include <QTest>

#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/prices.hpp"
#include "sailor/model/reference.hpp"
#include "sailor/planning/knee.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/scenario/trace_scenario.hpp"
#include "test_support.hpp"

using namespace sailor;
using nlohmann::json;

namespace {

// A frontier plan with the given figures; its microbatch size tells plans apart.
PlannedPlan point(int id, double iterations_per_s, double usd_per_iteration) {
  PlannedPlan p;
  p.plan.microbatch_size = id;
  p.prediction.iterations_per_s = iterations_per_s;
  p.prediction.iteration_s = 1 / iterations_per_s;
  p.prediction.usd_per_iteration = usd_per_iteration;
  return p;
}

// A result whose frontier is `front` (by increasing cost) and whose best plan is front[best]
// (or, when best is -1, a plan not on the frontier).
PlanResult resultOf(std::vector<PlannedPlan> front, int best) {
  PlanResult r;
  r.pareto = std::move(front);
  r.best.push_back(best >= 0 ? r.pareto[static_cast<size_t>(best)] : point(99, 1.0, 1.0));
  return r;
}

// The two-zone scenario's pools, as one trace row.
TraceRow twoZoneRow() {
  TraceRow row;
  row.label = "two zones";
  for (const char* zone : {"us-central1-a", "us-central1-b"})
    for (const char* gpu : {"A100-40", "V100-16"}) {
      row.sites.emplace_back(gpu, zone);
      row.counts.push_back(128);
    }
  return row;
}

}  // namespace

class TestKnee : public QObject {
  Q_OBJECT
  Catalog cat_ = Catalog::load(test::resources());

  // The checks every knee of a real result must pass: the plans are on the frontier, each pick
  // is the cheapest frontier plan (no dearer than the top) within its tolerance, and the last
  // step's figures are the two plans' ratios.
  static void checkKneeOf(const PlanResult& r) {
    QVERIFY(r.knee);
    const Knee& k = *r.knee;
    const auto& front = r.pareto;
    QVERIFY(k.top_index >= 0 && k.top_index < static_cast<int>(front.size()));
    const auto& top = front[static_cast<size_t>(k.top_index)].prediction;
    QCOMPARE(k.picks.size(), kKneeTolerances.size());
    for (const KneePick& p : k.picks) {
      const auto& pick = front[static_cast<size_t>(p.frontier_index)].prediction;
      QVERIFY(pick.iterations_per_s >= (1 - p.tolerance) * top.iterations_per_s);
      QVERIFY(pick.usd_per_iteration <= top.usd_per_iteration);
      for (size_t i = 0; i < front.size(); ++i)
        if (front[i].prediction.usd_per_iteration < pick.usd_per_iteration)
          QVERIFY2(front[i].prediction.iterations_per_s < (1 - p.tolerance) * top.iterations_per_s,
                   "a cheaper frontier plan is within the tolerance");
      QVERIFY(test::closeRel(p.throughput_fraction, pick.iterations_per_s / top.iterations_per_s));
      QVERIFY(test::closeRel(p.cost_saving, 1 - pick.usd_per_iteration / top.usd_per_iteration));
    }
    if (k.last_step) {
      const auto& prev = front[static_cast<size_t>(k.last_step->frontier_index)].prediction;
      QVERIFY(prev.usd_per_iteration < top.usd_per_iteration);
      for (const auto& f : front)  // no frontier plan between the two
        QVERIFY(!(f.prediction.usd_per_iteration > prev.usd_per_iteration &&
                  f.prediction.usd_per_iteration < top.usd_per_iteration));
      QVERIFY(test::closeRel(k.last_step->throughput_gain,
                             top.iterations_per_s / prev.iterations_per_s - 1));
      QVERIFY(test::closeRel(k.last_step->cost_increase,
                             top.usd_per_iteration / prev.usd_per_iteration - 1));
    }
  }

 private slots:
  void noFrontierNoKnee() {
    PlanResult r = resultOf({point(1, 1.0, 1.0)}, 0);
    r.pareto.clear();
    QVERIFY(!kneeOf(r, Objective::Throughput));
    QVERIFY(!kneeOf(PlanResult{}, Objective::Cost));
    QVERIFY(!r.toJson().contains("knee"));
  }

  void frontierOfOnePlan() {
    const PlanResult r = resultOf({point(1, 0.5, 0.3)}, 0);
    const auto k = kneeOf(r, Objective::Throughput);
    QVERIFY(k);
    QCOMPARE(k->top_index, 0);
    QVERIFY(k->top_is_best);
    QCOMPARE(k->picks.size(), size_t{2});
    for (const auto& p : k->picks) {
      QCOMPARE(p.frontier_index, 0);
      QCOMPARE(p.throughput_fraction, 1.0);
      QCOMPARE(p.cost_saving, 0.0);
    }
    QVERIFY(!k->last_step);
  }

  // The shape: the best plan buys a little throughput for much more money.
  void cheapestWithinEachTolerance() {
    const PlanResult r = resultOf({point(1, 0.40, 0.20), point(2, 0.65, 0.40), point(3, 0.68, 0.44),
                                   point(4, 0.6924, 0.7363)},
                                  3);
    const auto k = kneeOf(r, Objective::Throughput);
    QVERIFY(k);
    QCOMPARE(k->top_index, 3);
    QVERIFY(k->top_is_best);
    // 1 %: 0.68 < 0.99 x 0.6924, so only the best plan itself.
    QCOMPARE(k->picks[0].tolerance, 0.01);
    QCOMPARE(k->picks[0].frontier_index, 3);
    // 5 %: 0.68 >= 0.95 x 0.6924 > 0.65.
    QCOMPARE(k->picks[1].frontier_index, 2);
    QVERIFY(test::closeRel(k->picks[1].throughput_fraction, 0.68 / 0.6924));
    QVERIFY(test::closeRel(k->picks[1].cost_saving, 1 - 0.44 / 0.7363));
    QVERIFY(k->last_step);
    QCOMPARE(k->last_step->frontier_index, 2);
    QVERIFY(test::closeRel(k->last_step->throughput_gain, 0.6924 / 0.68 - 1));
    QVERIFY(test::closeRel(k->last_step->cost_increase, 0.7363 / 0.44 - 1));
    // Wider tolerances reach further down, in the order asked.
    const auto wide = kneeOf(r, Objective::Throughput, {0.5, 0.1});
    QCOMPARE(wide->picks[0].frontier_index, 0);
    QCOMPARE(wide->picks[1].frontier_index, 1);
  }

  // A plan exactly at the threshold counts as within it (>=), and is picked when cheapest.
  void planAtTheThresholdIsWithin() {
    const PlanResult r = resultOf(
        {point(1, 0.5, 1.0), point(2, 0.75, 2.0), point(3, 0.875, 3.0), point(4, 1.0, 4.0)}, 3);
    const auto k = kneeOf(r, Objective::Throughput, {0.25, 0.125, 0.0});
    QCOMPARE(k->picks[0].frontier_index, 1);  // 0.75 = 0.75 x 1.0
    QCOMPARE(k->picks[1].frontier_index, 2);  // 0.875 = 0.875 x 1.0
    QCOMPARE(k->picks[2].frontier_index, 3);  // tolerance 0: the top plan
  }

  // Throughput objective, the best plan on the frontier but not its fastest (a frontier plan
  // outside the placement window simulated faster): the knee is measured against the best plan,
  // and dearer frontier plans are not candidates.
  void bestPlanBelowTheFrontierTop() {
    const PlanResult r = resultOf(
        {point(1, 0.90, 1.0), point(2, 0.95, 2.0), point(3, 1.00, 3.0), point(4, 1.05, 4.0)}, 2);
    const auto k = kneeOf(r, Objective::Throughput, {0.0, 0.06});
    QCOMPARE(k->top_index, 2);
    QVERIFY(k->top_is_best);
    QCOMPARE(k->picks[0].frontier_index, 2);
    QCOMPARE(k->picks[1].frontier_index, 1);
    QCOMPARE(k->last_step->frontier_index, 1);
  }

  // Cost objective: the best plan is the frontier's cheapest end; the knee is measured against
  // the frontier's fastest plan.
  void costObjectiveMeasuresAgainstTheFastest() {
    const PlanResult r =
        resultOf({point(1, 0.30, 0.10), point(2, 0.60, 0.30), point(3, 0.62, 0.50)}, 0);
    const auto k = kneeOf(r, Objective::Cost);
    QCOMPARE(k->top_index, 2);
    QVERIFY(!k->top_is_best);
    QCOMPARE(k->picks[0].frontier_index, 2);  // 0.60 < 0.99 x 0.62
    QCOMPARE(k->picks[1].frontier_index, 1);  // 0.60 >= 0.95 x 0.62
    QCOMPARE(k->last_step->frontier_index, 1);
  }

  // Throughput objective with a best plan the frontier does not hold (the planning model's
  // ranking): against the frontier's fastest plan.
  void bestPlanOffTheFrontier() {
    const PlanResult r = resultOf({point(1, 0.5, 0.2), point(2, 0.8, 0.4)}, -1);
    const auto k = kneeOf(r, Objective::Throughput);
    QCOMPARE(k->top_index, 1);
    QVERIFY(!k->top_is_best);
  }

  // A free cheaper plan: the cost increase is infinite, and null in JSON.
  void freePlanGivesAnInfiniteIncrease() {
    const PlanResult r = resultOf({point(1, 0.5, 0.0), point(2, 0.8, 0.4)}, 1);
    const auto k = kneeOf(r, Objective::Throughput);
    QVERIFY(k->last_step);
    QCOMPARE(k->last_step->cost_increase, std::numeric_limits<double>::infinity());
    QVERIFY(kneeJson(*k, r)["last_step"]["cost_increase"].is_null());
  }

  void badToleranceIsInputError() {
    const PlanResult r = resultOf({point(1, 0.5, 0.3)}, 0);
    for (double t : {-0.01, 1.0}) {
      const QString msg = test::inputErrorOf([&] { (void)kneeOf(r, Objective::Throughput, {t}); });
      SAILOR_VERIFY_MESSAGE(msg, QStringList{"knee tolerance"});
    }
  }

  void json() {
    PlanResult r =
        resultOf({point(1, 0.40, 0.20), point(2, 0.68, 0.44), point(3, 0.6924, 0.7363)}, 2);
    r.knee = kneeOf(r, Objective::Throughput);
    const nlohmann::json j = r.toJson();
    QVERIFY(j.contains("knee"));
    const auto& k = j["knee"];
    QCOMPARE(k["top"]["frontier_index"].get<int>(), 2);
    QCOMPARE(k["top"]["microbatch_size"].get<int>(), 3);
    QVERIFY(k["top_is_best"].get<bool>());
    QCOMPARE(k["within"].size(), size_t{2});
    QCOMPARE(k["within"][0]["tolerance"].get<double>(), 0.01);
    QVERIFY(k["within"][0]["is_top"].get<bool>());
    QVERIFY(!k["within"][1]["is_top"].get<bool>());
    QCOMPARE(k["within"][1]["plan"]["frontier_index"].get<int>(), 1);
    QCOMPARE(k["within"][1]["plan"]["prediction"]["usd_per_iteration"].get<double>(), 0.44);
    QVERIFY(test::closeRel(k["within"][1]["cost_saving"].get<double>(), 1 - 0.44 / 0.7363));
    QVERIFY(test::closeRel(k["last_step"]["throughput_gain"].get<double>(), 0.6924 / 0.68 - 1));
    QVERIFY(test::closeRel(k["last_step"]["cost_increase"].get<double>(), 0.7363 / 0.44 - 1));
    QCOMPARE(k["last_step"]["plan"]["frontier_index"].get<int>(), 1);
  }

  // The two-zone scenario from the shipped default scenario (its zones and links), the price
  // sheet and the analytic profiles. planSearch names the knee with the frontier, not without.
  void twoZoneScenario() {
    const PriceSheet sheet = PriceSheet::load(test::resources() + "/prices/default.json");
    const Scenario base = Scenario::fromJson(
        json_util::readFile(test::resources() + "/scenarios/default.json"), cat_);
    const Scenario sc = traceRowScenario(twoZoneRow(), base, {sheet, "prices"}, nullptr, cat_);
    ProfileSet profiles;
    profiles.add(std::make_shared<AnalyticProfile>(cat_));
    PlanResult r;
    checkTwoZones(sc, profiles, r);
    if (QTest::currentTestFailed()) return;
    QVERIFY(r.knee->last_step);  // 512 GPUs are not the cheapest frontier plan
  }

  // The same on SAILOR's reference profiles and network fits (planner_bench's scenario).
  void twoZoneScenarioOnTheReference() {
    SailorReference ref;
    try {
      ref = SailorReference::load(test::sharedDir() + "/reference/sailor", cat_);
    } catch (const InputError& e) {
      QSKIP(qPrintable("no SAILOR reference data beside the project: " + QString(e.what())));
    }
    const PriceSheet sheet = PriceSheet::load(test::resources() + "/prices/default.json");
    const Scenario sc = traceRowScenario(twoZoneRow(), Scenario{}, {sheet, "prices"}, &ref, cat_);
    ProfileSet profiles;
    profiles.add(ref.profiles);
    profiles.add(std::make_shared<AnalyticProfile>(cat_));
    PlanResult r;
    checkTwoZones(sc, profiles, r);
    if (QTest::currentTestFailed()) return;
    const Knee& k = *r.knee;
    // The knee this scenario is known for: the best plan's last step is dear. A cheaper frontier
    // plan gives most of its throughput, and the step costs far more than it buys.
    QVERIFY(k.last_step);
    QVERIFY2(k.last_step->cost_increase > 5 * k.last_step->throughput_gain,
             qPrintable(QStringLiteral("last step: +%1 throughput for +%2 cost")
                            .arg(k.last_step->throughput_gain)
                            .arg(k.last_step->cost_increase)));
    QVERIFY(k.picks[1].frontier_index != k.top_index);
    QVERIFY2(k.picks[1].cost_saving > 0.2,
             qPrintable(QStringLiteral("5 %% knee saves %1").arg(k.picks[1].cost_saving)));
  }

 private:
  // Plans the two-zone job on `sc` into `r` and checks its knee (the caller returns when
  // QTest::currentTestFailed()).
  void checkTwoZones(const Scenario& sc, const ProfileSet& profiles, PlanResult& r) {
    const Job job = Job::fromJson(
        nlohmann::json{{"model", "OPT-350"}, {"global_batch_size", 1024}, {"precision", "fp32"}},
        cat_);
    PlannerOptions opt;
    opt.schedules = ScheduleSearch::DeepSpeed;  // the schedule of SAILOR's measured runs
    opt.max_usd_per_iteration = 1.2;
    opt.top_k = 1;
    const PlanResult plain = planSearch(sc, job, cat_, profiles, opt);
    QVERIFY(!plain.best.empty());
    QVERIFY(!plain.knee);
    opt.pareto = true;
    r = planSearch(sc, job, cat_, profiles, opt);
    QVERIFY(!r.best.empty());
    checkKneeOf(r);
    if (QTest::currentTestFailed()) return;
    const Knee& k = *r.knee;
    QVERIFY(k.top_is_best);
    const auto& best = r.best.front().prediction;
    const auto& top = r.pareto[static_cast<size_t>(k.top_index)].prediction;
    QCOMPARE(top.iterations_per_s, best.iterations_per_s);
    qInfo(
        "two zones: best %.4f it/s at %.4f USD/it; 1%%: saves %.1f%%; 5%%: %d GPUs, "
        "%.1f%% of the throughput, saves %.1f%%; last step +%.1f%% throughput for +%.1f%% cost",
        best.iterations_per_s, best.usd_per_iteration, 100 * k.picks[0].cost_saving,
        r.pareto[static_cast<size_t>(k.picks[1].frontier_index)].plan.gpuCount(),
        100 * k.picks[1].throughput_fraction, 100 * k.picks[1].cost_saving,
        k.last_step ? 100 * k.last_step->throughput_gain : 0.0,
        k.last_step ? 100 * k.last_step->cost_increase : 0.0);
  }
};

QTEST_GUILESS_MAIN(TestKnee)
#include "test_knee.moc"
