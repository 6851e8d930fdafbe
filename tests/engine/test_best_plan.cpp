// The best plan is the best, whatever is asked beside it (docs/planner.md, "Stopping a sweep"):
// a plain search, --pareto and --knee name the same best plan; the planning model's best of a
// plain search is no slower than any plan of the frontier; no frontier plan is beaten on both
// throughput and cost by a plan another search finds. On the three-offer Llama-3-70B scenario
// where a sweep stopped before the best degree, and on generated scenarios of a small fast pool
// beside a large slow one.
#include <random>

#include <QTest>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/simulation/simulator.hpp"
#include "test_support.hpp"

using namespace sailor;
using nlohmann::json;

namespace {

// By the simulator's figures, what the frontier is made of.
bool beats(const PlannedPlan& a, const PlannedPlan& b) {
  const double eps = 1e-9;
  return a.prediction.iterations_per_s > b.prediction.iterations_per_s * (1 + eps) &&
         a.prediction.usd_per_iteration < b.prediction.usd_per_iteration * (1 - eps);
}

}  // namespace

class TestBestPlan : public QObject {
  Q_OBJECT
  Catalog cat_ = Catalog::load(test::resources());
  ProfileSet profiles_;

  PlanResult search(const Scenario& sc, const Job& job, PlannerOptions o) const {
    o.threads = 2;
    return planSearch(sc, job, cat_, profiles_, o);
  }

  // Plain, --pareto and the planning model's ranking agree on the best plan; the planning
  // model's best is no slower than any frontier plan by that model; no frontier plan is beaten
  // on both figures by a plan of the plain, cost or exhaustive-degree searches.
  // Under both schedules (planner.cpp, NOTE [Both ends of the frontier]).
  void checkConsistent(const Scenario& sc, const Job& job, const QString& what,
                       ScheduleSearch schedules) const {
    PlannerOptions plain;
    plain.schedules = schedules;
    const PlanResult a = search(sc, job, plain);
    PlannerOptions front = plain;
    front.pareto = true;
    const PlanResult b = search(sc, job, front);
    QVERIFY2(!a.best.empty() && !b.best.empty() && !b.pareto.empty(), qPrintable(what));
    QVERIFY2(test::planText(a.best[0]) == test::planText(b.best[0]),
             qPrintable(what + ": plain best differs from the best with --pareto"));
    PlannerOptions model = plain;
    model.rank_by_simulator = false;
    const PlanResult m = search(sc, job, model);
    for (const auto& f : b.pareto)
      QVERIFY2(m.best[0].model_iteration_s <= f.model_iteration_s * (1 + 1e-9),
               qPrintable(QStringLiteral("%1: a frontier plan (%2 s) beats the plain search's best "
                                         "(%3 s) in the planning model")
                              .arg(what)
                              .arg(f.model_iteration_s, 0, 'g', 9)
                              .arg(m.best[0].model_iteration_s, 0, 'g', 9)));
    PlannerOptions cheap = front;
    cheap.objective = Objective::Cost;
    PlannerOptions all = front;
    all.heuristics.h3_dp_descending = false;
    all.heuristics.h4_dp_ascending = false;
    const PlanResult c = search(sc, job, cheap), e = search(sc, job, all);
    // The plain and cost searches' plans (the search over every degree finds frontier points
    // between H11's grid degrees: docs/planner.md, H11).
    for (const PlanResult* other : {&a, &c})
      for (const auto* list : {&other->best, &other->pareto})
        for (const auto& p : *list)
          for (const auto& f : b.pareto)
            QVERIFY2(
                !beats(p, f),
                qPrintable(what + (other == &a ? " plain " : " cost ") +
                           (list == &other->best ? "best" : "pareto") +
                           QStringLiteral(": a frontier plan (%1 GPUs, %2 s, %3 USD) is beaten on "
                                          "throughput and cost by one of %4 GPUs, %5 s, %6 USD")
                               .arg(f.plan.gpuCount())
                               .arg(f.prediction.iteration_s)
                               .arg(f.prediction.usd_per_iteration)
                               .arg(p.plan.gpuCount())
                               .arg(p.prediction.iteration_s)
                               .arg(p.prediction.usd_per_iteration)));
    // Without H3/H4 every degree is searched: its best is the heuristic search's best.
    QVERIFY2(
        e.best[0].prediction.iterations_per_s <= b.best[0].prediction.iterations_per_s * (1 + 1e-9),
        qPrintable(what + ": the search over every degree finds a faster plan"));
  }

 private slots:
  void initTestCase() { profiles_.add(std::make_shared<AnalyticProfile>(cat_)); }

  // The three offers: the sweep of microbatch 1 found no plan at degrees 47 to 32 and stopped
  // at 32 for lack of a gain, above the best degree (25, 500 H100-80); --knee found it by its
  // frontier's grid.
  void threeOffersLlama70B() {
    const Scenario sc = Scenario::fromJson(test::threeOffersScenario(), cat_);
    const Job job = Job::fromJson(json{{"model", "Llama-3-70B"},
                                       {"global_batch_size", 1024},
                                       {"sequence_length", 8192},
                                       {"precision", "bf16"},
                                       {"optimizer", "adam"},
                                       {"recompute", "full"}},
                                  cat_);
    checkConsistent(sc, job, QStringLiteral("three offers"), ScheduleSearch::Megatron);
    if (QTest::currentTestFailed()) return;
    checkConsistent(sc, job, QStringLiteral("three offers, DeepSpeed"), ScheduleSearch::DeepSpeed);
    if (QTest::currentTestFailed()) return;
    PlannerOptions front;
    front.pareto = true;
    const PlanResult b = search(sc, job, front);
    // The 512-H100 plan --knee named, or a better one: no frontier plan on at most 512 GPUs is
    // faster than the best.
    const PlanResult a = search(sc, job, {});
    for (const auto& f : b.pareto)
      if (f.plan.gpuCount() <= 512)
        QVERIFY(f.prediction.iteration_s >= a.best[0].prediction.iteration_s * (1 - 1e-9));
  }

  // Under Megatron-LM's schedule each placed plan gets the interleaving the simulator prefers
  // (planner.cpp, NOTE [Interleaving chosen per plan]): on 2,048 H100-80 in one zone the best
  // Llama-3-70B plan pipelines, runs v > 1 model chunks per GPU with every stage's blocks a
  // multiple of v and the microbatches in whole groups of the depth, and is faster than the same
  // plan without interleaving; DeepSpeed's schedule never interleaves.
  void interleavingChosenBySimulator() {
    const Scenario sc = Scenario::fromJson(json{{"name", "h2048"},
                                                {"regions",
                                                 {{{"name", "us-central1"},
                                                   {"continent", "north-america"},
                                                   {"zones", {"us-central1-a"}}}}},
                                                {"pools",
                                                 {{{"zone", "us-central1-a"},
                                                   {"gpu_type", "H100-80"},
                                                   {"count", 2048},
                                                   {"usd_per_gpu_hour", 11.06125}}}}},
                                           cat_);
    const Job job = Job::fromJson(json{{"model", "Llama-3-70B"},
                                       {"global_batch_size", 2048},
                                       {"sequence_length", 4096},
                                       {"precision", "bf16"}},
                                  cat_);
    PlannerOptions o;
    o.top_k = 1;
    o.schedules = ScheduleSearch::Megatron;
    const PlanResult r = search(sc, job, o);
    QVERIFY(!r.best.empty());
    const Plan& plan = r.best[0].plan;
    const int P = static_cast<int>(plan.stages.size()), v = plan.schedule.virtual_stages;
    QVERIFY2(P >= 2 && v > 1, qPrintable(QString::fromStdString(test::planText(r.best[0]))));
    const int blocks = cat_.findModel(job.model)->layers;
    for (const Stage& s : plan.stages) {
      const int n = std::min(s.last_layer, blocks) - std::max(s.first_layer, 1) + 1;
      QVERIFY2(n % v == 0, qPrintable(QStringLiteral("%1 blocks, %2 chunks").arg(n).arg(v)));
      QCOMPARE(plan.microbatches(job.global_batch_size, s) % P, 0);
    }
    Plan plain = plan;
    plain.schedule.virtual_stages = 1;
    const Prediction without = simulate(plain, sc, job, cat_, profiles_);
    QVERIFY2(r.best[0].prediction.iteration_s < without.iteration_s,
             qPrintable(QStringLiteral("%1 s interleaved against %2 s")
                            .arg(r.best[0].prediction.iteration_s)
                            .arg(without.iteration_s)));
    o.schedules = ScheduleSearch::DeepSpeed;
    const PlanResult d = search(sc, job, o);
    QVERIFY(!d.best.empty());
    QCOMPARE(d.best[0].plan.schedule.virtual_stages, 1);
  }

  // A small fast pool beside a large slow one (the shape that stops a sweep early: degrees
  // without a plan between the large pool's and the small pool's), with random counts, prices
  // and batches.
  void generatedScenarios() {
    std::mt19937 rng(20261206);
    const std::vector<std::string> fast = {"H100-80", "A100-80"}, slow = {"V100-32", "A100-40"};
    for (int i = 0; i < 6; ++i) {
      auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
      const std::string f = fast[static_cast<size_t>(pick(0, 1))],
                        s = slow[static_cast<size_t>(pick(0, 1))];
      const int small = 8 * pick(1, 6), large = 8 * pick(16, 64);
      const json scj = {
          {"name", "generated"},
          {"regions",
           {{{"name", "us-central1"}, {"continent", "north-america"}, {"zones", {"us-central1-a"}}},
            {{"name", "europe-west4"}, {"continent", "europe"}, {"zones", {"europe-west4-a"}}}}},
          {"pools",
           {{{"zone", "us-central1-a"},
             {"gpu_type", f},
             {"count", small},
             {"usd_per_gpu_hour", 2.0 + pick(0, 8)}},
            {{"zone", "europe-west4-a"},
             {"gpu_type", s},
             {"count", large},
             {"usd_per_gpu_hour", 0.5 + 0.25 * pick(0, 4)}}}},
          {"network",
           {{"defaults", {{"same_zone", {{"latency_s", 1e-5}, {"bandwidth_gb_per_s", 25.0}}}}}}}};
      const Scenario sc = Scenario::fromJson(scj, cat_);
      const Job job = Job::fromJson(json{{"model", pick(0, 1) ? "OPT-350M" : "GPT-Neo-2.7B"},
                                         {"global_batch_size", 64 << pick(0, 3)},
                                         {"precision", f == "H100-80" ? "bf16" : "fp16"}},
                                    cat_);
      checkConsistent(sc, job,
                      QStringLiteral("scenario %1 (%2 x %3, %4 x %5)")
                          .arg(i)
                          .arg(small)
                          .arg(QString::fromStdString(f))
                          .arg(large)
                          .arg(QString::fromStdString(s)),
                      i % 2 ? ScheduleSearch::Megatron : ScheduleSearch::DeepSpeed);
      if (QTest::currentTestFailed()) return;
    }
  }
};

QTEST_GUILESS_MAIN(TestBestPlan)
#include "test_best_plan.moc"
