// The planner's pieces (engine/src/planning/planner_internal.hpp) one by one, on a small instance:
// the constraints, the summary recurrence and dominance, canonical keys, the known-plan bound,
// sites and kinds (memory fit tables, boundary classes), placing in zones, the stage-option table,
// the lower bounds, the partial-plan dynamic programme, seeds and the degree lists. Figures the
// search computes are checked against planningModel() (the closed form, evaluated on the placed
// plan), independent of them. test_planner checks the whole search against brute force.
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <QObject>
#include <QTest>

#include "planning/planner_internal.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/scenario/scenario.hpp"
#include "test_support.hpp"

using namespace sailor;
using namespace sailor::planner_detail;
using nlohmann::json;
using sailor::test::closeRel;
using sailor::test::gpuJson;

namespace {

constexpr double kRel = 1e-9;  // the search's arithmetic against planningModel's (another order)

// Model Tiny (4 plan layers) with per-layer forward 0.1 0.2 0.3 0.1 s x scale x tp factor
// (backward twice that), params 1e6 2e6 2e6 1e6 / tp, activations 1e6 2e6 4e6 1e6 / tp bytes per
// sequence, outputs 2.5e7 elements (1 for the head); tp 1, 2, 4 at 1, 0.7, 0.5 (below H1's 1.5x
// per doubling, so H1 keeps tp 1 and 2).
std::shared_ptr<NativeProfile> profile(const Catalog& cat, const std::string& gpu, double scale) {
  std::vector<sailor::test::TinyRun> runs;
  for (const auto& [tp, tf] : std::map<int, double>{{1, 1.0}, {2, 0.7}, {4, 0.5}})
    for (int b : {1, 2}) runs.push_back({b, tp, {scale, tf, static_cast<double>(b)}});
  return sailor::test::tinyNativeProfile(cat, gpu, "parts-" + gpu, {0.1, 0.2, 0.3, 0.1}, 2.5e7,
                                         1e-7 * scale, runs);
}

// One region, two zones: Fast x4 ($4/h) and Slow x4 ($1.2/h) in r1-a, Fast x2 ($3/h, 2 per node)
// in r1-b; egress r1-b -> r1-a $0.03/GB.
json scenarioJson() {
  return json::parse(R"({
    "name": "parts",
    "regions": [{"name": "r1", "continent": "c1", "zones": ["r1-a", "r1-b"]}],
    "pools": [
      {"zone": "r1-a", "gpu_type": "Fast", "count": 4, "usd_per_gpu_hour": 4.0},
      {"zone": "r1-a", "gpu_type": "Slow", "count": 4, "usd_per_gpu_hour": 1.2},
      {"zone": "r1-b", "gpu_type": "Fast", "count": 2, "usd_per_gpu_hour": 3.0, "gpus_per_node": 2}],
    "network": {"defaults": {
      "same_zone": {"latency_s": 0.01, "bandwidth_gb_per_s": 10},
      "same_region": {"latency_s": 0.05, "bandwidth_gb_per_s": 1},
      "same_continent": {"latency_s": 0.2, "bandwidth_gb_per_s": 0.2},
      "cross_continent": {"latency_s": 0.5, "bandwidth_gb_per_s": 0.05}}, "links": []},
    "egress_usd_per_gb": {"defaults": {"same_zone": 0, "same_region": 0.01,
      "same_continent": 0.05, "cross_continent": 0.1},
      "pairs": [{"from_zone": "r1-b", "to_zone": "r1-a", "usd_per_gb": 0.03}]}})");
}

Candidate candidateOf(int b, const std::vector<std::pair<int, int>>& stage_ranges,
                      const std::vector<std::vector<std::pair<int, int>>>& replicas,
                      const SearchContext& ctx) {
  Candidate c;
  c.microbatch = b;
  for (size_t s = 0; s < stage_ranges.size(); ++s) {
    StageRuns st{stage_ranges[s].first, stage_ranges[s].second, {}};
    for (const auto& [site, tp] : replicas[s]) {
      if (!st.runs.empty() && st.runs.back().site == site && st.runs.back().tp == tp)
        ++st.runs.back().count;
      else st.runs.push_back({site, tp, 1});
    }
    c.stages.push_back(st);
  }
  c.key = searchKey(ctx, c);
  materialize(ctx, c);
  return c;
}

}  // namespace

class TestPlannerParts : public QObject {
  Q_OBJECT

 private:
  Catalog cat_ = Catalog::fromJson(
      json{{"gpus", {gpuJson("Fast", 20, 1000000000), gpuJson("Slow", 10, 220000000)}}},
      json{{"models", {sailor::test::tinyModelJson("Tiny", false)}}});
  ProfileSet profiles_;
  Scenario sc_;
  Job job_;

  static PlannerOptions exactSites() {
    PlannerOptions o;
    o.heuristics.h6_region_pools = false;     // sites are pools: the search's figures are placed
    o.memory_reserve_fraction = 0;            // the whole memory, as the checks below figure it
    o.schedules = ScheduleSearch::DeepSpeed;  // the default schedule's figures, as below
    return o;
  }
  // A SearchContext holds a reference to its options: these outlive every context of a test.
  const PlannerOptions exact_ = exactSites();
  const PlannerOptions defaults_;
  // The planning model of a candidate placed in zones (sites are zones with H6 off).
  ModelEstimate modelOf(const SearchContext& ctx, Candidate c) const {
    materialize(ctx, c);
    if (!ctx.place(c)) qFatal("candidate does not place");
    const auto m = planningModel(c.plan, sc_, job_, cat_, profiles_);
    if (!m) qFatal("candidate does not fit");
    return *m;
  }

 private slots:
  void initTestCase() {
    profiles_.add(profile(cat_, "Fast", 1.0));
    profiles_.add(profile(cat_, "Slow", 2.0));
    sc_ = Scenario::fromJson(scenarioJson(), cat_);
    job_ = Job::fromJson(json{{"model", "Tiny"}, {"global_batch_size", 8}}, cat_);
  }

  void constraintsAdmit() {
    PlannerOptions o;
    QVERIFY(!Constraints(o).any());
    QVERIFY(Constraints(o).admits(1e-9, 1e9, 1e9, 1 << 20));
    o.max_usd_per_iteration = 0.5;
    o.max_usd_per_hour = 10;
    o.min_iterations_per_s = 0.25;
    o.max_gpus = 4;
    const Constraints c(o);
    QVERIFY(c.any() && c.byCost());
    QVERIFY(c.admits(0.25, 0.5, 10, 4));  // every bound is inclusive
    QVERIFY(!c.admits(0.24, 0.5, 10, 4));
    QVERIFY(!c.admits(0.25, 0.51, 10, 4));
    QVERIFY(!c.admits(0.25, 0.5, 10.1, 4));
    QVERIFY(!c.admits(0.25, 0.5, 10, 5));
    QVERIFY(c.admits(0.25, 0.5, 10, std::nullopt));  // GPU count not checked
    // Bounds: t_lb 4 s is the floor's limit; no per-hour bound.
    QVERIFY(c.admitsBound(4, 0.5, 4));
    QVERIFY(!c.admitsBound(4.01, 0.5, 4));
    QVERIFY(!c.admitsBound(4, 0.6, 4));
    QVERIFY(!c.admitsBound(4, 0.5, 5));
    PlannerOptions g;
    g.max_gpus = 2;
    QVERIFY(Constraints(g).any() && !Constraints(g).byCost());
  }

  void summaryRecurrence() {
    // Last stage: F + B 2, no child; then a stage in front with F + B 3, incoming boundary 0.5.
    const Summary last = extendSummary({2.0, 0.25, 0.1, 4.0, 0.01, 2, true}, nullptr);
    QCOMPARE(last.maxc, 2.5);  // 2 + 2 x 0.25 (its own incoming boundary)
    QCOMPARE(last.sumc, 2.5);
    QCOMPARE(last.boundary_in, 0.25);
    QCOMPARE(last.work, 4.0 * 2.5);
    const Summary both = extendSummary({3.0, 0.5, 0.3, 1.0, 0.02, 4, false}, &last);
    QCOMPARE(both.maxc, 3.0 + 1.0 + 0.5);  // its boundary and the child's, both x 2
    QCOMPARE(both.sumc, 4.5 + 2.5);
    QCOMPARE(both.maxx, 0.3);
    QCOMPARE(both.rate, 5.0);
    QCOMPARE(both.egress, 0.03);
    QCOMPARE(both.gpus, 6);
    QCOMPARE(both.boundary_in, 0.5);
    QCOMPARE(both.work, 1.0 * 4.5 + 10.0);
    QVERIFY(!both.fits);
    Candidate c;
    completeFigures(both, 3, c);  // T = 2 max c + sum c + max x
    QCOMPARE(c.iteration_s, 2 * 4.5 + 7.0 + 0.3);
    QCOMPARE(c.usd, 5.0 * c.iteration_s / 3600.0 + 0.03);
    QVERIFY(closeRel(c.usd_per_hour, c.usd * 3600 / c.iteration_s, kRel));
  }

  void dominance() {
    Summary fast{1, 2, 0.1, 5, 0, 0, 0, 2, true}, cheap{2, 3, 0.1, 1, 0, 0, 0, 2, true};
    Dims time_only, with_cost;
    with_cost.cost = true;
    QVERIFY(dominates(fast, cheap, time_only));
    QVERIFY(!dominates(fast, cheap, with_cost));
    QVERIFY(!dominates(cheap, fast, with_cost));
    Summary unfit = fast;
    unfit.fits = false;
    QVERIFY(!dominates(unfit, cheap, time_only));  // a plan that does not fit dominates none
    Dims per_hour = with_cost;
    per_hour.per_hour = true;
    Summary faster_same_rate = cheap;
    faster_same_rate.maxc = 1.5;
    QVERIFY(dominates(faster_same_rate, cheap, with_cost));
    QVERIFY(!dominates(faster_same_rate, cheap, per_hour));  // times must be equal
    std::vector<Entry> set;
    insertPareto(set, Entry{cheap}, with_cost);
    insertPareto(set, Entry{fast}, with_cost);
    QCOMPARE(set.size(), size_t{2});
    insertPareto(set, Entry{faster_same_rate}, with_cost);  // replaces cheap
    QCOMPARE(set.size(), size_t{2});
    insertPareto(set, Entry{cheap}, with_cost);  // dominated: not added
    QCOMPARE(set.size(), size_t{2});
    QVERIFY(std::none_of(set.begin(), set.end(), [](const Entry& e) { return e.s.maxc == 2; }));
  }

  void keys() {
    const SearchContext ctx(sc_, job_, cat_, profiles_, exact_);
    const Candidate homogeneous = candidateOf(1, {{0, 1}, {2, 3}}, {{{2, 1}}, {{2, 1}}}, ctx);
    QCOMPARE(QString::fromStdString(homogeneous.key), QString("1|0-1,Fast/1/2|2-3,Fast/1/2"));
    QCOMPARE(knownKey(homogeneous), seedSignature(1, 2, 1, {1, 3}));
    const Candidate mixed = candidateOf(1, {{0, 1}, {2, 3}}, {{{2, 1}}, {{0, 1}}}, ctx);
    QCOMPARE(knownKey(mixed), mixed.key);
    // Placed, the key names zones.
    Candidate placed = homogeneous;
    QVERIFY(ctx.place(placed));
    QCOMPARE(QString::fromStdString(planKey(placed.plan)),
             QString("1|0-1,Fast/1/r1-b|2-3,Fast/1/r1-b"));
    QCOMPARE(placementWindow(3, false), size_t{3});
    QCOMPARE(placementWindow(3, true), size_t{153});
  }

  void knownBound() {
    Known single(false, false, 2);
    single.add("a", 5, 1);
    QVERIFY(!single.prunes(100, 100));  // fewer known plans than the window: no threshold
    single.add("a", 1, 1);              // the same key again counts once
    QVERIFY(!single.prunes(100, 100));
    single.add("b", 3, 1);
    QVERIFY(single.prunes(5.01, 0));  // worse than the 2nd best time (5)
    QVERIFY(!single.prunes(5, 0));
    Known pareto(true, false, 1);
    pareto.add("a", 2, 10);
    pareto.add("b", 4, 5);
    QVERIFY(pareto.dominated(4, 5) && pareto.dominated(3, 10) && !pareto.dominated(3, 9));
    QVERIFY(pareto.prunes(3, 10));
    QVERIFY(!pareto.prunes(3, 9));  // past the threshold (2 s) but a new frontier point
    pareto.add("c", 1, 4);          // dominates both
    QVERIFY(pareto.dominated(1.5, 4) && !pareto.dominated(0.5, 100));
  }

  // NOTE [Seeds shared between microbatch sizes]: the task's own plans prune as before; the
  // shared set (own plans and the other sizes' seeds) only where the sweep's metric of the bound
  // is above the floor (the sweep's best), so no plan the sweep could judge a gain is dropped.
  void sharedKnownBound() {
    Known own(false, false, 1);
    QVERIFY(own.add("a", 8, 1));
    QVERIFY(!own.add("a", 2, 1));  // known already: not added (and not passed on)
    Known shared(false, false, 1);
    shared.addNew(8, 1);
    shared.addNew(3, 1);  // another size's seed, no key
    const KnownBound alone(own);
    QVERIFY(alone.prunes(9, 0) && !alone.prunes(5, 0));
    const KnownBound floored(own, &shared, false, 6);
    QVERIFY(floored.prunes(9, 0));   // own prunes it
    QVERIFY(floored.prunes(7, 0));   // shared (3 s) prunes it, above the 6 s floor
    QVERIFY(!floored.prunes(5, 0));  // better than the sweep's best: kept for its judgement
    QVERIFY(!floored.prunes(3, 0));  // as good as the shared plan: never pruned
    const KnownBound unfloored(own, &shared, false, -std::numeric_limits<double>::infinity());
    QVERIFY(unfloored.prunes(5, 0));
    // By cost the floor is on the cost bound, whatever the time.
    Known own_c(false, true, 1), shared_c(false, true, 1);
    own_c.add("a", 1, 10);
    shared_c.addNew(1, 10);
    shared_c.addNew(1, 2);
    const KnownBound by_cost(own_c, &shared_c, true, 4);
    QVERIFY(by_cost.prunes(0, 5) && !by_cost.prunes(100, 3));
  }

  void sitesAndKinds() {
    const SearchContext zones(sc_, job_, cat_, profiles_, exact_);
    QCOMPARE(zones.sites().size(), size_t{3});  // by (zone, GPU type)
    QCOMPARE(QString::fromStdString(zones.site(2).zone()), QString("r1-b"));
    QCOMPARE(zones.totalGpus(), 10);
    QCOMPARE(zones.maxDepth(), 4);
    QCOMPARE(zones.microbatches(2, 3), 2);  // ceil(8 / 6)
    const SearchContext regions(sc_, job_, cat_, profiles_, defaults_);
    QCOMPARE(regions.sites().size(), size_t{2});  // H6: by (region, GPU type)
    const Site& fast = regions.site(0);
    QCOMPARE(fast.capacity, 6);
    QCOMPARE(fast.gpus_per_node, 2);  // the smallest node of its zones
    QCOMPARE(QString::fromStdString(fast.zone()), QString("r1-b"));  // cheapest zone first
    QCOMPARE(fast.price(), 3.0);
    // H1 keeps tp 1 and the next degree (0.7 per doubling is below 1.5x); off, every tp that
    // fits the node: tp 1, 2, 4 on the 4-GPU nodes of r1-a.
    const KindSet kept = zones.kinds(1);
    QCOMPARE(kept.kinds.size(), size_t{6});
    PlannerOptions no_h1 = exactSites();
    no_h1.heuristics.h1_tp_rule = false;
    const SearchContext all_tp(sc_, job_, cat_, profiles_, no_h1);
    QCOMPARE(all_tp.kinds(1).kinds.size(), size_t{3 + 3 + 2});
    // Range tables: a range is the sum of its layers (parameters, F + B), the largest layer's
    // working memory its maximum.
    const KindTable& t = kept.table(kept.kinds.front());
    QVERIFY(closeRel(t.at(t.fb, 0, 3),
                     t.at(t.fb, 0, 0) + t.at(t.fb, 1, 1) + t.at(t.fb, 2, 2) + t.at(t.fb, 3, 3),
                     kRel));
    QVERIFY(closeRel(t.at(t.params, 1, 2), t.at(t.params, 1, 1) + t.at(t.params, 2, 2), kRel));
    QCOMPARE(t.at(t.maxact, 0, 3), std::max(t.at(t.maxact, 0, 1), t.at(t.maxact, 2, 3)));
  }

  void placeInZones() {
    const SearchContext ctx(sc_, job_, cat_, profiles_, defaults_);
    // Three Fast replicas in one stage: the cheapest zone (r1-b) holds 2, so the stage goes
    // whole to r1-a; the next stage's two fit in r1-b.
    Candidate c =
        candidateOf(1, {{0, 1}, {2, 3}}, {{{0, 1}, {0, 1}, {0, 1}}, {{0, 1}, {0, 1}}}, ctx);
    QVERIFY(ctx.place(c));
    for (const auto& r : c.plan.stages[0].replicas)
      QCOMPARE(QString::fromStdString(r.zone), QString("r1-a"));
    for (const auto& r : c.plan.stages[1].replicas)
      QCOMPARE(QString::fromStdString(r.zone), QString("r1-b"));
    Candidate too_many = candidateOf(1, {{0, 3}}, {{{0, 4}, {0, 4}}}, ctx);
    QVERIFY(!ctx.place(too_many));  // 8 GPUs of a 6-GPU site
  }

  void stageOptionTable() {
    const SearchContext ctx(sc_, job_, cat_, profiles_, exact_);
    const KindSet kinds = ctx.kinds(1);
    StageOptionTable homogeneous(ctx, kinds, 1, 2);  // H8: one kind per stage
    // Six kinds (tp 1 and 2 on each site), less two tp-2 replicas on r1-b's 2 GPUs.
    QCOMPARE(kinds.kinds.size(), size_t{6});
    QCOMPARE(homogeneous.size(), size_t{5});
    PlannerOptions mixed_opt = exactSites();
    mixed_opt.heuristics.h8_homogeneous_stages = false;
    const SearchContext mixed_ctx(sc_, job_, cat_, profiles_, mixed_opt);
    StageOptionTable mixed(mixed_ctx, kinds, 1, 2);
    // C(6 + 1, 2) = 21 multisets, less those over r1-b's 2 GPUs: tp 1 + tp 2 and tp 2 + tp 2.
    QCOMPARE(mixed.size(), size_t{19});
    for (size_t i = 0; i < homogeneous.size(); ++i) {
      const StageOption& o = homogeneous[i];
      const Kind& kd = kinds.kind(o.replicas[0]);
      QCOMPARE(o.gpus, 2 * kd.tp);
      QCOMPARE(o.rate, 2 * kd.tp * ctx.site(kd.site).price());
      // Sync of layers 1-2: ring all-reduce of the shard over the site's own link + optimizer.
      const KindTable& t = kinds.table(kd);
      const double expect =
          ringAllReduceSeconds(ctx.linkBetween(kd.site, kd.site, kd.tp), t.at(t.params, 1, 2) * 4.0,
                               2, kd.tp, ctx.opt.simulator,
                               ctx.site(kd.site).gpu->collectiveBusBytesPerS()) +
          stepSeconds(t.optimizer_s_per_param, t.at(t.params, 1, 2), 2, *ctx.site(kd.site).gpu);
      QVERIFY(closeRel(homogeneous.sync(i, 1, 2).x, expect, kRel));
      QCOMPARE(homogeneous.sync(i, 1, 2).x, homogeneous.sync(i, 1, 2).x);  // cached
      // Boundary into layer 2 from the same option: one message each way per replica pair.
      const double msg = t.out_elements[1] * 1 * job_.activationBytesPerElement();
      QVERIFY(closeRel(homogeneous.boundary(i, i, 2).t, ctx.p2p(kd, kd, msg), kRel));
    }
  }

  // KindSet's memory fit tables answer as replicaMemoryBytes does, for every layer range, number
  // in flight and microbatch size (the Slow GPU's 220 MB leaves some ranges out).
  void fitTables() {
    const SearchContext ctx(sc_, job_, cat_, profiles_, exact_);
    int fit = 0, out = 0;
    for (int b : {1, 2}) {
      const KindSet kinds = ctx.kinds(b);
      QCOMPARE(kinds.max_in_flight, ctx.maxDepth());
      for (size_t t = 0; t < kinds.tables.size(); ++t) {
        const KindTable& tb = kinds.tables[t];
        for (int f = 1; f <= kinds.max_in_flight; ++f)
          for (int l = 0; l < 4; ++l)
            for (int r = l; r < 4; ++r) {
              const bool expect = replicaMemoryBytes(tb.at(tb.params, l, r), tb.at(tb.act, l, r),
                                                     tb.at(tb.maxact, l, r), b, f, job_, *tb.gpu) <=
                                  static_cast<double>(tb.gpu->memory_bytes);
              QCOMPARE(kinds.fits(static_cast<int>(t), f, l, r), expect);
              ++(expect ? fit : out);
            }
      }
    }
    QVERIFY(fit > 0);
    QVERIFY(out > 0);
  }

  // Options of one boundary class send every boundary with the figures of their own kind: the
  // class (and the cache keyed by it) changes no figure. r1-a's Fast and Slow kinds share links,
  // node links and egress, so they share classes.
  void boundaryClasses() {
    const SearchContext ctx(sc_, job_, cat_, profiles_, exact_);
    const KindSet kinds = ctx.kinds(1);
    StageOptionTable options(ctx, kinds, 1, 2);
    QVERIFY(options.prevClasses() < static_cast<int>(options.size()));
    const double e = job_.activationBytesPerElement();
    for (size_t prev = 0; prev < options.size(); ++prev)
      for (size_t oi = 0; oi < options.size(); ++oi)
        for (int l = 1; l < 4; ++l) {
          const Kind& a = kinds.kind(options[prev].replicas[0]);
          const Kind& c = kinds.kind(options[oi].replicas[0]);
          const double msg = kinds.table(a).out_elements[static_cast<size_t>(l - 1)] * 1 * e;
          QCOMPARE(options.boundary(prev, oi, l).t,
                   std::max(ctx.p2p(a, c, msg), ctx.p2p(c, a, msg)));
        }
    // Same class: the same boundary from both to every option.
    for (size_t p1 = 0; p1 < options.size(); ++p1)
      for (size_t p2 = 0; p2 < options.size(); ++p2)
        if (options.prevClass(p1) == options.prevClass(p2))
          for (size_t oi = 0; oi < options.size(); ++oi)
            QCOMPARE(options.boundary(p1, oi, 2).egress, options.boundary(p2, oi, 2).egress);
  }

  void lowerBounds() {
    const SearchContext ctx(sc_, job_, cat_, profiles_, exact_);
    const KindSet kinds = ctx.kinds(1);
    const Known none(false, false, 3);
    const LowerBounds lb(ctx, kinds, 2, 4, none);
    // Per layer the fastest kind's F + B; D x the cheapest replica's rate.
    std::vector<double> fastest(4, std::numeric_limits<double>::infinity());
    double whole = std::numeric_limits<double>::infinity();
    for (const Kind& kd : kinds.kinds) {
      const KindTable& t = kinds.table(kd);
      for (int j = 0; j < 4; ++j)
        fastest[static_cast<size_t>(j)] =
            std::min(fastest[static_cast<size_t>(j)], t.at(t.fb, j, j));
      whole = std::min(whole, t.at(t.fb, 0, 3));
    }
    QVERIFY(closeRel(lb.suffixFb(0), fastest[0] + fastest[1] + fastest[2] + fastest[3], kRel));
    QVERIFY(closeRel(lb.suffixFb(3), fastest[3], kRel));
    QCOMPARE(lb.minRate(), 2 * 1.2);  // D x the cheapest GPU (Slow, tp 1)
    const LowerBounds::Prefix p = lb.prefix(2, 1);
    QVERIFY(closeRel(p.fb, fastest[0] + fastest[1], kRel));
    QCOMPARE(p.rate, lb.minRate());
    QVERIFY(closeRel(p.maxc, p.fb / 3, kRel));  // up to 3 more stages before the last
    QCOMPARE(lb.prefix(0, 2).fb, 0.0);
    QVERIFY(!lb.bounded(1, 1, 1, 1, 1, 1));  // nothing known: nothing pruned
    Known known(false, false, 1);
    known.add("k", 10, 1);
    const LowerBounds tight(ctx, kinds, 2, 4, known);
    QVERIFY(tight.bounded(3, 1.1, 0, 1, 1, 0));  // T >= 3 x 3 + 1.1 > 10
    QVERIFY(!tight.bounded(3, 1, 0, 1, 1, 0));   // T >= 10: not worse than the known 10 s
    // A shared plan of 2 s prunes T >= 5.5 only once the degree's best (the floor) is below it.
    Known shared(false, false, 1);
    shared.addNew(2, 1);
    LowerBounds floored(ctx, kinds, 2, 4, KnownBound(none, &shared, false, 8));
    QVERIFY(!floored.bounded(1.5, 1, 0, 1, 1, 0));  // T >= 5.5, under the sweep's best (8 s)
    floored.tightenFloor(9);                        // never loosens
    QVERIFY(!floored.bounded(1.5, 1, 0, 1, 1, 0));
    floored.tightenFloor(5);  // this degree found a 5 s plan: a 5.5 s one cannot be its best
    QVERIFY(floored.bounded(1.5, 1, 0, 1, 1, 0));
    QVERIFY(!floored.bounded(1, 1, 0, 1, 1, 0));  // T >= 4: could still be
    // The compute-alone bound of M microbatches over 4 stages: M x the fastest whole model / 4.
    PlannerOptions floor = exactSites();
    floor.min_iterations_per_s = 1 / (1.5 * whole);  // 1.5 x the fastest whole model
    const SearchContext floor_ctx(sc_, job_, cat_, profiles_, floor);
    QVERIFY(LowerBounds::tooSlow(floor_ctx, kinds, 8));  // 2 x the whole model
    QVERIFY(!LowerBounds::tooSlow(floor_ctx, kinds, 4));
    QVERIFY(!LowerBounds::tooSlow(ctx, kinds, 8));  // no floor
  }

  // Every complete plan of the dynamic programme, and every plan searchDegree returns, has the
  // planning model's figures for the plan as placed.
  void partialPlanSearch_data() {
    QTest::addColumn<int>("D");
    QTest::addColumn<bool>("cost");
    QTest::newRow("D 1, time") << 1 << false;
    QTest::newRow("D 2, with cost") << 2 << true;
  }
  void partialPlanSearch() {
    QFETCH(int, D);
    QFETCH(bool, cost);
    PlannerOptions o = exactSites();
    o.heuristics.h8_homogeneous_stages = false;
    const SearchContext ctx(sc_, job_, cat_, profiles_, o);
    const KindSet kinds = ctx.kinds(1);
    const int M = ctx.microbatches(1, D);
    StageOptionTable options(ctx, kinds, 1, D);
    const Known none(false, cost, 1);
    const LowerBounds lb(ctx, kinds, D, M, none);
    const StopFlag stop;
    PartialPlanSearch dp(ctx, kinds, options, lb, 1, M, cost, stop);
    QCOMPARE(dp.dims().cost, cost);
    int checked = 0;
    for (int P = 1; P <= 3; ++P) {
      QVERIFY(dp.depthFits(P));
      const std::span<const Entry> top = dp.pipelines(P);
      QVERIFY(!top.empty());
      for (const Entry& en : top) {
        QVERIFY(en.s.fits);  // H2 drops what does not fit
        int stages = 0;
        for (const Entry* e = &en; e; e = e->child ? &e->child[e->child_index] : nullptr) ++stages;
        QCOMPARE(stages, P);
        for (size_t i = 0; i < top.size(); ++i)
          QVERIFY(&top[i] == &en || !dominates(top[i].s, en.s, dp.dims()));
      }
    }
    Known known(false, cost, 3);
    std::vector<Candidate> found;
    long compared = 0;
    searchDegree(ctx, kinds, 1, D, cost, known, stop, found, compared);
    QVERIFY(!found.empty());
    QVERIFY(compared >= static_cast<long>(found.size()));
    for (const Candidate& c : found) {
      const ModelEstimate m = modelOf(ctx, c);
      QVERIFY2(closeRel(c.iteration_s, m.iteration_s, kRel), c.key.c_str());
      QVERIFY2(closeRel(c.usd, m.usd_per_iteration, kRel), c.key.c_str());
      QCOMPARE(c.key, searchKey(ctx, c));
      // NOTE [Candidates written out late]: the search leaves the plan to materialize, which
      // writes every replica of the runs, D per stage, in the key's order.
      QVERIFY(c.plan.stages.empty());
      Candidate full = c;
      materialize(ctx, full);
      QCOMPARE(full.plan.microbatch_size, 1);
      QCOMPARE(full.plan.stages.size(), c.stages.size());
      QCOMPARE(full.sites.size(), c.stages.size());
      QCOMPARE(full.plan.stages.front().first_layer, 0);
      std::string text = "1";
      for (size_t s = 0; s < full.plan.stages.size(); ++s) {
        const Stage& st = full.plan.stages[s];
        QCOMPARE(static_cast<int>(st.replicas.size()), D);
        QCOMPARE(full.sites[s].size(), st.replicas.size());
        QCOMPARE(st.last_layer, c.stages[s].last_layer);
        text += "|" + std::to_string(st.first_layer) + "-" + std::to_string(st.last_layer);
        for (size_t j = 0; j < st.replicas.size(); ++j) {
          QVERIFY(st.replicas[j].zone.empty());
          text += "," + st.replicas[j].gpu_type + "/" + std::to_string(st.replicas[j].tp) + "/" +
                  std::to_string(full.sites[s][j]);
        }
      }
      QCOMPARE(QString::fromStdString(text), QString::fromStdString(c.key));
      ++checked;
    }
    QVERIFY(checked > 0);
  }

  // Seeds: one kind per pipeline, layers split evenly by compute; figured as the model does.
  void seeds() {
    const SearchContext ctx(sc_, job_, cat_, profiles_, exact_);
    const KindSet kinds = ctx.kinds(1);
    const std::vector<Candidate> seeds = seedPlans(ctx, kinds, 1, 2);
    QVERIFY(!seeds.empty());
    for (Candidate c : seeds) {
      const Kind& kd = kinds.kind(c.seed_kind);
      QCOMPARE(c.key, seedSignature(c.dp, kd.site, kd.tp, c.seed_last));
      c.plan.microbatch_size = 1;
      for (size_t s = 0; s < c.seed_last.size(); ++s) {
        c.plan.stages.push_back(
            Stage{s == 0 ? 0 : c.seed_last[s - 1] + 1, c.seed_last[s],
                  std::vector<Replica>(static_cast<size_t>(c.dp),
                                       {ctx.site(kd.site).gpu_type, kd.tp, ""})});
        c.sites.emplace_back(static_cast<size_t>(c.dp), kd.site);
      }
      const ModelEstimate m = modelOf(ctx, c);
      QVERIFY2(closeRel(c.iteration_s, m.iteration_s, kRel), c.key.c_str());
      QVERIFY2(closeRel(c.usd, m.usd_per_iteration, kRel), c.key.c_str());
    }
  }

  void degreeLists() {
    PlannerOptions o = exactSites();
    o.pareto = true;
    const SearchContext ctx(sc_, job_, cat_, profiles_, o);
    const StopFlag stop;
    MicrobatchSearch task(ctx, 1, stop, nullptr);
    std::vector<Candidate> out;
    long compared = 0;
    task.run(out, compared);
    QVERIFY(!out.empty());
    // G = 8, b = 1: M = 8, 4, 3, 2, 2, 2, 2, 1 for D = 1..8; H12 keeps the smallest per M.
    QCOMPARE(task.degreesUp(), (std::vector<int>{1, 2, 3, 4, 8}));
    QCOMPARE(task.paretoGrid(8, 1), (std::vector<int>{1, 2, 4, 8}));
    QCOMPARE(task.paretoGrid(6, 1), (std::vector<int>{1, 2, 4}));  // 6 stands for 4 (M = 2)
    PlannerOptions every = o;
    every.heuristics.h12_smallest_degree_per_m = false;
    const SearchContext every_ctx(sc_, job_, cat_, profiles_, every);
    MicrobatchSearch all_degrees(every_ctx, 1, stop, nullptr);
    std::vector<Candidate> out2;
    all_degrees.run(out2, compared);
    QCOMPARE(all_degrees.degreesUp().size(), size_t{8});
  }

  // NOTE [Seeds shared between microbatch sizes]: a task that knows another size's seeds looks
  // at fewer plans and finds the same best one; a task the deadline stopped before it ran still
  // returns its seeds (another task's bound may have used them).
  void foreignSeedsPrune() {
    PlannerOptions o = exactSites();
    o.top_k = 4;  // a window of 4: the task's own seeds alone leave plans to look at
    const Job job = Job::fromJson(json{{"model", "Tiny"}, {"global_batch_size", 64}}, cat_);
    const SearchContext ctx(sc_, job, cat_, profiles_, o);
    const StopFlag none;
    auto best_time = [](const std::vector<Candidate>& v) {
      double t = std::numeric_limits<double>::infinity();
      for (const auto& c : v) t = std::min(t, c.iteration_s);
      return t;
    };
    MicrobatchSearch other(ctx, 2, none, nullptr);
    QVERIFY(other.prepare());
    QVERIFY(!other.seeds().empty());
    MicrobatchSearch alone(ctx, 1, none, nullptr), told(ctx, 1, none, nullptr);
    QVERIFY(told.prepare());
    for (const Candidate& c : other.seeds()) told.addForeignKnown(c.iteration_s, c.usd);
    std::vector<Candidate> out_alone, out_told;
    long n_alone = 0, n_told = 0;
    alone.run(out_alone, n_alone);
    told.run(out_told, n_told);
    QVERIFY2(n_told < n_alone, qPrintable(QString("%1 %2").arg(n_told).arg(n_alone)));
    QCOMPARE(best_time(out_told), best_time(out_alone));
    QCOMPARE(told.degreesUp(), alone.degreesUp());
    QCOMPARE(told.coverage().degrees, alone.coverage().degrees);  // H3 judged the same

    StopFlag passed;
    passed.deadline = Deadline(Deadline::Clock::now(), 0.0);
    MicrobatchSearch stopped(ctx, 2, passed, nullptr);
    std::vector<Candidate> seeds;
    stopped.seedsOnly(seeds);
    QVERIFY(!seeds.empty());
    for (const auto& c : seeds) QVERIFY2(c.seed_kind >= 0 && !c.stages.empty(), c.key.c_str());
    QCOMPARE(stopped.coverage().microbatch, 2);
    QVERIFY(!stopped.coverage().complete && stopped.coverage().degrees.empty());
    QCOMPARE(QString::fromStdString(stopped.coverage().stopped_at),
             QString("before its first degree"));
  }

  // The time limit (NOTE [Time limit]): a task whose deadline has passed before its first
  // degree keeps its seed plans and says where it stopped; the same task without a deadline
  // searches its degrees and says it is complete. A degree cut inside keeps the plans of the
  // depths it finished (every 16 new states a check: a deadline passing during the search).
  void timeLimitKeepsWhatWasFound() {
    PlannerOptions o = exactSites();
    o.pareto = true;
    const SearchContext ctx(sc_, job_, cat_, profiles_, o);
    StopFlag passed;
    passed.deadline = Deadline(Deadline::Clock::now(), 0.0);
    MicrobatchSearch cut(ctx, 1, passed, nullptr);
    std::vector<Candidate> seeds;
    long compared = 0;
    cut.run(seeds, compared);
    QVERIFY(!seeds.empty());
    QCOMPARE(compared, 0L);
    for (const auto& c : seeds) QVERIFY2(c.seed_kind >= 0, c.key.c_str());
    QCOMPARE(cut.coverage().microbatch, 1);
    QVERIFY(!cut.coverage().complete);
    QVERIFY(cut.coverage().degrees.empty());
    QVERIFY2(cut.coverage().stopped_at.find("fast end: data-parallel degree") == 0,
             cut.coverage().stopped_at.c_str());

    const StopFlag none;
    MicrobatchSearch whole(ctx, 1, none, nullptr);
    std::vector<Candidate> all;
    whole.run(all, compared);
    QVERIFY(compared > 0);
    QVERIFY(all.size() > seeds.size());
    QVERIFY(whole.coverage().complete);
    QVERIFY(whole.coverage().stopped_at.empty());
    QVERIFY(std::is_sorted(whole.coverage().degrees.begin(), whole.coverage().degrees.end()));
    QVERIFY(!whole.coverage().degrees.empty());
    for (int D : whole.coverage().degrees) {
      const auto up = whole.degreesUp();
      QVERIFY2(std::find(up.begin(), up.end(), D) != up.end(), qPrintable(QString::number(D)));
    }

    // StopFlag::check: a cancel wins over the deadline (the search is thrown away).
    CancelToken token;
    token.cancel();
    StopFlag both;
    both.user = &token;
    both.deadline = Deadline(Deadline::Clock::now(), 0.0);
    QVERIFY_THROWS_EXCEPTION(Cancelled, both.check());
    QVERIFY_THROWS_EXCEPTION(TimeLimitReached, passed.check());
    none.check();  // no deadline: never throws
  }

  void keepUsefulWindow() {
    PlannerOptions o;
    o.top_k = 1;  // window 151
    std::vector<Candidate> found(200);
    for (size_t i = 0; i < found.size(); ++i) {
      found[i].iteration_s = 1000.0 - static_cast<double>(i);  // the last ones are the fastest
      found[i].usd = static_cast<double>(i);                   // ... and the dearest
    }
    std::vector<Candidate> single = found;
    keepUseful(o, single);
    QCOMPARE(single.size(), size_t{151});
    QCOMPARE(single.front().iteration_s, 951.0);
    o.pareto = true;  // every plan is on the frontier
    keepUseful(o, found);
    QCOMPARE(found.size(), size_t{200});
  }
};

QTEST_GUILESS_MAIN(TestPlannerParts)
#include "test_planner_parts.moc"
