// PlanCache (engine/include/sailor/planning/plan_cache.hpp): results of finished searches by their
// inputs. Inputs that differ in anything the planner reads (a pool's count, a link, the job, any
// PlannerOptions field, the profile set) miss; equal inputs hit; incomplete results are not kept;
// the least recently used go first. And the premise the cache rests on: a search of the same
// inputs gives the same result whatever its thread count (the shipped default scenario).
#include <QTest>

#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/planning/plan_cache.hpp"
#include "sailor/planning/planner.hpp"
#include "test_support.hpp"

using namespace sailor;
using nlohmann::json;

class TestPlanCache : public QObject {
  Q_OBJECT

  Catalog cat_ = Catalog::load(test::resources());
  ProfileSet profiles_;
  json scenario_json_;
  Scenario sc_;
  Job job_;

  PlanCache::Key keyOf(const Scenario& sc, const PlannerOptions& o,
                       const void* profiles = nullptr) const {
    return PlanCache::keyOf(sc, job_, o, &cat_, profiles);
  }
  Scenario withFirstCount(int count) const {
    json j = scenario_json_;
    j["pools"][0]["count"] = count;
    return Scenario::fromJson(j, cat_);
  }
  static std::shared_ptr<const PlanResult> result(double search_seconds) {
    auto r = std::make_shared<PlanResult>();
    r->search_seconds = search_seconds;  // tells stored results apart
    return r;
  }

 private slots:
  void initTestCase() {
    profiles_.add(std::make_shared<AnalyticProfile>(cat_));
    scenario_json_ = json_util::readFile(test::resources() + "/scenarios/default.json");
    sc_ = Scenario::fromJson(scenario_json_, cat_);
    job_ = Job::fromJson(json_util::readFile(test::resources() + "/jobs/default.json"), cat_);
  }

  void equalInputsHit() {
    PlanCache cache;
    const PlannerOptions o;
    cache.store(keyOf(sc_, o), result(1.0));
    // A scenario read again from the same text, and one edited and edited back.
    const Scenario again = Scenario::fromJson(scenario_json_, cat_);
    auto hit = cache.find(keyOf(again, o));
    QVERIFY(hit);
    QCOMPARE(hit->search_seconds, 1.0);
    const int first = scenario_json_["pools"][0]["count"].get<int>();
    QVERIFY(!cache.find(keyOf(withFirstCount(first - 8), o)));
    QVERIFY(cache.find(keyOf(withFirstCount(first), o)));
  }

  void anyDifferenceMisses() {
    PlanCache cache;
    const PlannerOptions o;
    cache.store(keyOf(sc_, o), result(1.0));
    QVERIFY(!cache.find(keyOf(withFirstCount(24), o)));
    json link = scenario_json_;
    link["network"]["links"][0]["model"]["bandwidth_gb_per_s"] = 4.5;
    QVERIFY(!cache.find(keyOf(Scenario::fromJson(link, cat_), o)));
    json price = scenario_json_;
    price["pools"][1]["usd_per_gpu_hour"] = 2.5;
    QVERIFY(!cache.find(keyOf(Scenario::fromJson(price, cat_), o)));
    // Options: the objective, a constraint, a heuristic, a simulator setting, the frontier.
    std::vector<PlannerOptions> changed(6);
    changed[0].objective = Objective::Cost;
    changed[1].max_usd_per_iteration = 1.0;
    changed[2].heuristics.max_partial_plans = 32;
    changed[3].simulator.collective_efficiency = 0.9;
    changed[4].pareto = true;
    changed[5].microbatch_sizes = {1, 2};
    for (const auto& c : changed) QVERIFY(!cache.find(keyOf(sc_, c)));
    // The job and the profile set.
    Job other = job_;
    other.global_batch_size = 512;
    QVERIFY(!cache.find(PlanCache::keyOf(sc_, other, o, &cat_, nullptr)));
    QVERIFY(!cache.find(keyOf(sc_, o, &profiles_)));
    QVERIFY(cache.find(keyOf(sc_, o)));
  }

  void incompleteResultsAreNotKept() {
    PlanCache cache;
    auto cut = std::make_shared<PlanResult>();
    cut->time_limit = TimeLimitReport{};
    cache.store(keyOf(sc_, PlannerOptions{}), cut);
    QCOMPARE(cache.size(), size_t{0});
    QVERIFY(!cache.find(keyOf(sc_, PlannerOptions{})));
  }

  void leastRecentlyUsedGoFirst() {
    PlanCache cache(2);
    PlannerOptions a, b, c;
    b.top_k = 4;
    c.top_k = 5;
    cache.store(keyOf(sc_, a), result(1.0));
    cache.store(keyOf(sc_, b), result(2.0));
    QVERIFY(cache.find(keyOf(sc_, a)));  // a is now the most recently used
    cache.store(keyOf(sc_, c), result(3.0));
    QCOMPARE(cache.size(), size_t{2});
    QVERIFY(cache.find(keyOf(sc_, a)));
    QVERIFY(!cache.find(keyOf(sc_, b)));
    QCOMPARE(cache.find(keyOf(sc_, c))->search_seconds, 3.0);
    // Storing the same inputs again replaces the entry.
    cache.store(keyOf(sc_, c), result(4.0));
    QCOMPARE(cache.size(), size_t{2});
    QCOMPARE(cache.find(keyOf(sc_, c))->search_seconds, 4.0);
  }

  // The premise: equal inputs give equal results, with one thread or two (the studio's cache
  // would otherwise return another machine's answer).
  void sameInputsSameResultWhateverTheThreads() {
    PlannerOptions one, two;
    one.pareto = two.pareto = true;
    one.threads = 1;
    two.threads = 2;
    PlanResult r1 = planSearch(sc_, job_, cat_, profiles_, one);
    PlanResult r2 = planSearch(sc_, job_, cat_, profiles_, two);
    QVERIFY2(!r1.best.empty(), r1.no_plan_reason.c_str());
    json j1 = r1.toJson(), j2 = r2.toJson();
    for (json* j : {&j1, &j2}) j->erase("search_seconds");
    QCOMPARE(QString::fromStdString(j1.dump()), QString::fromStdString(j2.dump()));
  }
};

QTEST_GUILESS_MAIN(TestPlanCache)
#include "test_plan_cache.moc"
