// The trade-off plot and the plan inspector, on a real planner result for the default scenario
// and job (maximum throughput, top 10, analytic profiles) and on a small result made of
// hand-written plans simulated here, whose figures the tests recompute from the predictions:
// points without duplicates, values in every unit, the frontier of the displayed units,
// constraint lines per unit, click-to-select, what the inspector shows for a plan, the Gantt
// chart's rectangles and the exported plan's round trip.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <QComboBox>
#include <QFile>
#include <QGraphicsView>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <nlohmann/json.hpp>
#include <qcustomplot.h>

#include "plan_inspector.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/planning/knee.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/simulation/simulator.hpp"
#include "stage_palette.hpp"
#include "tradeoff_plot.hpp"

using sailor::studio::PlanInspector;
using sailor::studio::TradeoffPlot;
using ResultPtr = std::shared_ptr<const sailor::PlanResult>;

namespace {

sailor::Stage stage(int first, int last, int count, const std::string& gpu, const std::string& zone,
                    int tp = 1) {
  sailor::Stage s;
  s.first_layer = first;
  s.last_layer = last;
  for (int i = 0; i < count; ++i) s.replicas.push_back({gpu, tp, zone});
  return s;
}

bool near(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max(std::abs(b), 1e-12);
}

template <typename Item>
QList<Item*> itemsOf(QCustomPlot* plot) {
  QList<Item*> out;
  for (int i = 0; i < plot->itemCount(); ++i)
    if (auto* item = qobject_cast<Item*>(plot->item(i))) out.append(item);
  return out;
}

// Capacity marks of the memory chart: one QCPItemLine per bar.
int memoryBars(PlanInspector& inspector) {
  auto* plot = inspector.findChild<QCustomPlot*>(QStringLiteral("memoryPlot"));
  return plot ? static_cast<int>(itemsOf<QCPItemLine>(plot).size()) : -1;
}

}  // namespace

class TestPlotInspector : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void pointsAreTheDeduplicatedPlans();
  void realResultPlotsEveryPlanAndHighlightsTheBest();
  void unitSwitchChangesThePlottedValues();
  void frontierIsTheFrontierOfTheDisplayedUnits();
  void constraintLinesFollowTheUnits();
  void wholeRunDaysAgainstTotalUsd();
  void noPlanShowsTheReason();
  void kneePlansAreMarked();
  void clickingAPointSelectsItAndFeedsTheInspector();
  void inspectorShowsTheDefaultPlan();
  void inspectorShowsOverCapacity();
  void ganttHasOneRectanglePerTimelineOp();
  void exportRoundTrip();
  void exportTimelineWritesTheGanttAsATrace();
  void mapTabIsInsertedOnce();
  void inspectorFitsUnderTheTradeoffPlot();
  void stagePaletteColoursAreDistinct();

 private:
  sailor::PlannedPlan planned(const sailor::Plan& plan) const {
    sailor::PlannedPlan p;
    p.plan = plan;
    p.prediction = sailor::simulate(plan, *scenario_, job_, catalog_, profiles_);
    return p;
  }

  sailor::Catalog catalog_;
  std::shared_ptr<const sailor::Scenario> scenario_;
  sailor::Job job_;
  sailor::ProfileSet profiles_;
  sailor::Plan default_plan_;  // resources/plans/default.json: 2 stages of 4 A100-40 in 2 zones
  ResultPtr searched_;         // planSearch on the default scenario and job
  ResultPtr synthetic_;        // best = {A, B}, pareto = {B, C, A}: three distinct plans
  sailor::PlannedPlan oom_;    // a plan that does not fit in memory
};

void TestPlotInspector::initTestCase() {
  const std::string dir = sailor::resourceDir();
  catalog_ = sailor::Catalog::load(dir);
  scenario_ = std::make_shared<const sailor::Scenario>(sailor::Scenario::fromJson(
      sailor::json_util::readFile(dir + "/scenarios/default.json"), catalog_));
  job_ = sailor::Job::fromJson(sailor::json_util::readFile(dir + "/jobs/default.json"), catalog_);
  profiles_.add(std::make_shared<sailor::AnalyticProfile>(catalog_));
  default_plan_ = sailor::Plan::fromJson(sailor::json_util::readFile(dir + "/plans/default.json"));

  sailor::PlannerOptions options;  // maximum throughput; not Pareto (minutes on this scenario)
  options.top_k = 10;
  options.threads = 2;
  auto result = sailor::planSearch(*scenario_, job_, catalog_, profiles_, options);
  QVERIFY2(result.best.size() >= 3, result.no_plan_reason.c_str());
  searched_ = std::make_shared<const sailor::PlanResult>(std::move(result));

  const int last = catalog_.model(job_.model, "model").numPlanLayers() - 1;
  sailor::Plan b;  // one stage, 4 spot A100-40: cheap and slow
  b.microbatch_size = 2;
  b.stages = {stage(0, last, 4, "A100-40", "us-central1-c")};
  sailor::Plan c;  // one stage, 16 A100-40: dear and fast
  c.microbatch_size = 2;
  c.stages = {stage(0, last, 16, "A100-40", "us-west1-b")};
  auto synthetic = std::make_shared<sailor::PlanResult>();
  synthetic->best = {planned(default_plan_), planned(b)};
  synthetic->pareto = {planned(b), planned(c), planned(default_plan_)};
  synthetic_ = synthetic;

  // OPT-350M in fp32 with Adam on one V100-16 per stage at microbatch size 32: 16 bytes per
  // parameter of model state alone is 5.3 GiB, and 32 sequences of 2048 tokens of activations
  // are far beyond the remaining 10 GiB.
  sailor::Plan oom;
  oom.microbatch_size = 32;
  oom.stages = {stage(0, last, 2, "V100-16", "us-central1-a")};
  oom_ = planned(oom);
  QVERIFY(!oom_.prediction.fits);
  QVERIFY(!oom_.prediction.out_of_memory.empty());
}

void TestPlotInspector::pointsAreTheDeduplicatedPlans() {
  TradeoffPlot plot;
  plot.setResult(synthetic_, job_);
  // A (best #1), B (best #2), then C: the Pareto copies of A and B are not plotted twice.
  QCOMPARE(plot.points().size(), std::size_t{3});
  QVERIFY(plot.points()[0]->plan == synthetic_->best[0].plan);
  QVERIFY(plot.points()[1]->plan == synthetic_->best[1].plan);
  QVERIFY(plot.points()[2]->plan == synthetic_->pareto[1].plan);
  // Each plan is one marker: the marker graphs (no line; the selection ring is empty) hold
  // three points in all.
  int markers = 0;
  for (int g = 0; g < plot.plot()->graphCount(); ++g)
    if (plot.plot()->graph(g)->lineStyle() == QCPGraph::lsNone)
      markers += plot.plot()->graph(g)->dataCount();
  QCOMPARE(markers, 3);
  QVERIFY(plot.message().isEmpty());
}

void TestPlotInspector::realResultPlotsEveryPlanAndHighlightsTheBest() {
  TradeoffPlot plot;
  plot.setResult(searched_, job_);
  // Distinct plans of best ∪ pareto, counted here by brute force.
  std::vector<const sailor::Plan*> distinct;
  for (const auto* list : {&searched_->best, &searched_->pareto})
    for (const auto& p : *list)
      if (std::none_of(distinct.begin(), distinct.end(),
                       [&](const auto* q) { return *q == p.plan; }))
        distinct.push_back(&p.plan);
  QCOMPARE(plot.points().size(), distinct.size());
  // Exactly one point carries the best marker: the objective's best, best[0].
  const QPointF best = plot.pointValue(0);
  QVERIFY(plot.points()[0]->plan == searched_->best[0].plan);
  int single_point_graphs_at_best = 0;
  for (int g = 0; g < plot.plot()->graphCount(); ++g) {
    auto* graph = plot.plot()->graph(g);
    if (graph->lineStyle() != QCPGraph::lsNone)
      continue;  // the frontier line, a single point when one plan dominates the rest
    if (graph->dataCount() == 1 && near(graph->data()->at(0)->key, best.x()) &&
        near(graph->data()->at(0)->value, best.y()))
      ++single_point_graphs_at_best;
  }
  QCOMPARE(single_point_graphs_at_best, 1);  // no selection yet: only the best marker
  QCOMPARE(plot.selectedIndex(), -1);
}

void TestPlotInspector::unitSwitchChangesThePlottedValues() {
  TradeoffPlot plot;
  plot.setResult(synthetic_, job_);
  const double tokens = static_cast<double>(job_.global_batch_size) * job_.sequence_length;
  auto* cost_combo = plot.findChild<QComboBox*>(QStringLiteral("costUnit"));
  auto* throughput_combo = plot.findChild<QComboBox*>(QStringLiteral("throughputUnit"));
  QVERIFY(cost_combo && throughput_combo);
  for (int t = 0; t < 2; ++t)
    for (int c = 0; c < 3; ++c) {
      // Through the header's combo boxes, as a user does.
      throughput_combo->setCurrentIndex(t);
      cost_combo->setCurrentIndex(c);
      QCOMPARE(plot.throughputUnit(), t == 0 ? TradeoffPlot::ThroughputUnit::IterationsPerS
                                             : TradeoffPlot::ThroughputUnit::TokensPerS);
      for (int i = 0; i < static_cast<int>(plot.points().size()); ++i) {
        const auto& pred = plot.points()[static_cast<std::size_t>(i)]->prediction;
        const double y = t == 0 ? pred.iterations_per_s : pred.tokens_per_s;
        const double x = c == 0   ? pred.usd_per_iteration
                         : c == 1 ? pred.usd_per_hour
                                  : pred.usd_per_iteration / tokens * 1e6;
        QVERIFY2(near(plot.pointValue(i).x(), x) && near(plot.pointValue(i).y(), y),
                 qPrintable(QStringLiteral("point %1, units %2/%3").arg(i).arg(t).arg(c)));
        // ... and that is what the plot draws: a marker graph holds (x, y).
        bool drawn = false;
        for (int g = 0; g < plot.plot()->graphCount(); ++g) {
          const auto* graph = plot.plot()->graph(g);
          if (graph->lineStyle() != QCPGraph::lsNone) continue;
          for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
            drawn = drawn || (near(it->key, x) && near(it->value, y));
        }
        QVERIFY(drawn);
      }
    }
  // tokens/s is iterations/s x tokens per iteration, as the simulator says.
  QVERIFY(near(plot.points()[0]->prediction.tokens_per_s,
               plot.points()[0]->prediction.iterations_per_s * tokens));
}

void TestPlotInspector::frontierIsTheFrontierOfTheDisplayedUnits() {
  TradeoffPlot plot;
  plot.setResult(searched_, job_);
  for (auto unit : {TradeoffPlot::CostUnit::UsdPerIteration, TradeoffPlot::CostUnit::UsdPerHour,
                    TradeoffPlot::CostUnit::UsdPerMillionTokens}) {
    plot.setCostUnit(unit);
    // Brute force: a point is on the frontier when no other is at most as dear and strictly
    // faster, or strictly cheaper and at least as fast.
    std::set<int> expected;
    const int n = static_cast<int>(plot.points().size());
    for (int i = 0; i < n; ++i) {
      bool dominated = false;
      for (int j = 0; j < n && !dominated; ++j) {
        const QPointF a = plot.pointValue(i), b = plot.pointValue(j);
        dominated = (b.x() <= a.x() && b.y() > a.y()) || (b.x() < a.x() && b.y() >= a.y());
      }
      if (!dominated) expected.insert(i);
    }
    const std::set<int> got(plot.frontier().begin(), plot.frontier().end());
    QVERIFY(got == expected);
    QVERIFY(!got.empty());
    // The frontier graph is drawn through them, by increasing cost.
    for (std::size_t k = 1; k < plot.frontier().size(); ++k)
      QVERIFY(plot.pointValue(plot.frontier()[k - 1]).x() <
              plot.pointValue(plot.frontier()[k]).x());
  }
}

void TestPlotInspector::constraintLinesFollowTheUnits() {
  TradeoffPlot plot;
  plot.setResult(synthetic_, job_);
  sailor::PlannerOptions options;
  options.max_usd_per_iteration = 2.5;
  options.max_usd_per_hour = 400;
  options.min_iterations_per_s = 0.05;
  plot.setConstraints(options);
  const double tokens = static_cast<double>(job_.global_batch_size) * job_.sequence_length;

  struct Row {
    TradeoffPlot::CostUnit cost;
    TradeoffPlot::ThroughputUnit throughput;
    std::vector<double> vertical;  // expected x of vertical lines
    double horizontal;             // expected y of the one horizontal line
  };
  const std::vector<Row> rows = {
      {TradeoffPlot::CostUnit::UsdPerIteration,
       TradeoffPlot::ThroughputUnit::IterationsPerS,
       {2.5},
       0.05},
      {TradeoffPlot::CostUnit::UsdPerHour,
       TradeoffPlot::ThroughputUnit::IterationsPerS,
       {400},
       0.05},
      {TradeoffPlot::CostUnit::UsdPerMillionTokens,
       TradeoffPlot::ThroughputUnit::TokensPerS,
       {2.5 / tokens * 1e6},
       0.05 * tokens},
  };
  for (const auto& row : rows) {
    plot.setCostUnit(row.cost);
    plot.setThroughputUnit(row.throughput);
    std::vector<double> vertical, horizontal;
    for (auto* line : itemsOf<QCPItemStraightLine>(plot.plot())) {
      const QPointF a = line->point1->coords(), b = line->point2->coords();
      if (a.x() == b.x()) vertical.push_back(a.x());
      else if (a.y() == b.y()) horizontal.push_back(a.y());
    }
    QCOMPARE(vertical.size(), row.vertical.size());
    for (std::size_t i = 0; i < vertical.size(); ++i) QVERIFY(near(vertical[i], row.vertical[i]));
    QCOMPARE(horizontal.size(), std::size_t{1});
    QVERIFY(near(horizontal[0], row.horizontal));
    // Each line has its label.
    QCOMPARE(itemsOf<QCPItemText>(plot.plot()).size(), qsizetype(vertical.size() + 1));
  }

  // Without constraints: no lines.
  plot.setConstraints(sailor::PlannerOptions{});
  QVERIFY(itemsOf<QCPItemStraightLine>(plot.plot()).isEmpty());
}

// A job with a training budget: its plans' whole runs as days (Y, fewer above: the axis runs
// downwards) against total USD (X), the frontier the cheapest for each number of days, the
// deadline and the budget as lines. Without the runs the plot says how to get them.
void TestPlotInspector::wholeRunDaysAgainstTotalUsd() {
  auto result = std::make_shared<sailor::PlanResult>(*synthetic_);
  // Plan A: 40 days for $1.0 M; B: 60 days for $0.8 M; C: 20 days for $1.5 M. None dominated.
  const std::map<int, std::pair<double, double>> runs{
      {0, {40, 1.0e6}}, {1, {60, 0.8e6}}, {2, {20, 1.5e6}}};
  TradeoffPlot plain;
  plain.setResult(synthetic_, job_);
  auto with = [&](sailor::PlannedPlan& p) {
    for (int i = 0; i < static_cast<int>(plain.points().size()); ++i)
      if (plain.points()[static_cast<std::size_t>(i)]->plan == p.plan) {
        sailor::Campaign c;
        c.wall_s = runs.at(i).first * 86400;
        c.total_usd = runs.at(i).second;
        c.goodput = 0.95;
        p.campaign = c;
      }
  };
  for (auto& p : result->best) with(p);
  for (auto& p : result->pareto) with(p);
  sailor::Job job = job_;
  job.training_tokens = 2e12;
  job.deadline_days = 50;
  job.budget_usd = 1.2e6;

  TradeoffPlot plot;
  plot.setResult(result, job);
  plot.setThroughputUnit(TradeoffPlot::ThroughputUnit::DaysToTrain);
  plot.setCostUnit(TradeoffPlot::CostUnit::TotalUsd);
  QVERIFY(plot.message().isEmpty());
  for (const auto& [i, run] : runs) {
    QVERIFY(near(plot.pointValue(i).y(), run.first));
    QVERIFY(near(plot.pointValue(i).x(), run.second));
  }
  QVERIFY(plot.plot()->yAxis->rangeReversed());
  QCOMPARE(plot.plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
  QVERIFY(plot.plot()->yAxis->range().contains(20) && plot.plot()->yAxis->range().contains(60));
  QCOMPARE(plot.frontier(), (std::vector<int>{1, 0, 2}));  // by increasing total USD
  std::vector<double> vertical, horizontal;
  for (auto* line : itemsOf<QCPItemStraightLine>(plot.plot())) {
    const QPointF a = line->point1->coords(), b = line->point2->coords();
    if (a.x() == b.x()) vertical.push_back(a.x());
    else horizontal.push_back(a.y());
  }
  QCOMPARE(vertical, (std::vector<double>{1.2e6}));
  QCOMPARE(horizontal, (std::vector<double>{50}));
  // Per iteration again: the whole run's lines go, the axis runs upwards.
  plot.setThroughputUnit(TradeoffPlot::ThroughputUnit::IterationsPerS);
  plot.setCostUnit(TradeoffPlot::CostUnit::UsdPerIteration);
  QVERIFY(!plot.plot()->yAxis->rangeReversed());
  QCOMPARE(plot.plot()->yAxis->scaleType(), QCPAxis::stLinear);
  QVERIFY(itemsOf<QCPItemStraightLine>(plot.plot()).isEmpty());

  // Plans without a whole run (no training budget): no point, and how to get them.
  TradeoffPlot bare;
  bare.setResult(synthetic_, job_);
  bare.setThroughputUnit(TradeoffPlot::ThroughputUnit::DaysToTrain);
  QVERIFY2(bare.message().contains("tokens to train"), qPrintable(bare.message()));
  QVERIFY(bare.frontier().empty());
  bare.setThroughputUnit(TradeoffPlot::ThroughputUnit::TokensPerS);
  QVERIFY(bare.message().isEmpty());
}

void TestPlotInspector::noPlanShowsTheReason() {
  auto empty = std::make_shared<sailor::PlanResult>();
  empty->no_plan_reason = "no plan reaches 40 iterations/s";
  TradeoffPlot plot;
  QSignalSpy selected(&plot, &TradeoffPlot::planSelected);
  plot.setResult(empty, job_);
  QVERIFY(plot.points().empty());
  QVERIFY(plot.message().contains(QStringLiteral("no plan reaches 40 iterations/s")));
  const auto texts = itemsOf<QCPItemText>(plot.plot());
  QCOMPARE(texts.size(), qsizetype{1});
  QVERIFY(texts[0]->text().contains(QStringLiteral("40 iterations/s")));
  plot.selectPlan(0);  // nothing to select
  QCOMPARE(plot.selectedIndex(), -1);
  QCOMPARE(selected.count(), 0);
  // A result with plans replaces the message.
  plot.setResult(synthetic_, job_);
  QVERIFY(plot.message().isEmpty());
  QVERIFY(itemsOf<QCPItemText>(plot.plot()).isEmpty());
}

// The knee of the result's frontier (sailor/planning/knee.hpp): its plans other than the best one
// are triangles labelled with their tolerances, and the summary above the plot names them and the
// best plan's last step. A frontier shaped like the two-zone scenario's: the best plan buys
// little throughput for much more money.
void TestPlotInspector::kneePlansAreMarked() {
  auto figures = [&](int mbs, double its, double usd) {
    sailor::PlannedPlan p;
    p.plan = default_plan_;
    p.plan.microbatch_size = mbs;  // tells the plans apart
    p.prediction.iterations_per_s = its;
    p.prediction.iteration_s = 1 / its;
    p.prediction.usd_per_iteration = usd;
    p.prediction.usd_per_hour = usd * its * 3600;
    return p;
  };
  auto result = std::make_shared<sailor::PlanResult>();
  result->pareto = {figures(1, 0.40, 0.20), figures(2, 0.68, 0.44), figures(4, 0.689, 0.60),
                    figures(8, 0.6924, 0.7363)};
  result->best = {result->pareto[3]};
  result->knee = sailor::kneeOf(*result, sailor::Objective::Throughput);
  QVERIFY(result->knee);
  TradeoffPlot plot;
  plot.resize(800, 600);
  plot.setResult(result, job_);
  // Points: the best plan first, then the frontier's others by increasing cost: 0.20, 0.44 and
  // 0.60 USD/iteration are points 1, 2 and 3. Within 1 % (0.689 >= 0.99 x 0.6924): point 3;
  // within 5 %: point 2.
  QCOMPARE(plot.kneePoints(), (std::vector<int>{2, 3}));
  QCPGraph* knee = nullptr;
  for (int g = 0; g < plot.plot()->graphCount(); ++g)
    if (plot.plot()->graph(g)->name().startsWith(QStringLiteral("Knee")))
      knee = plot.plot()->graph(g);
  QVERIFY(knee);
  QCOMPARE(knee->dataCount(), 2);
  QVERIFY(near(knee->data()->at(0)->key, 0.44) && near(knee->data()->at(0)->value, 0.68));
  QVERIFY(near(knee->data()->at(1)->key, 0.60) && near(knee->data()->at(1)->value, 0.689));
  QVERIFY(knee->scatterStyle().shape() != QCPScatterStyle::ssDiamond);  // not the best marker
  QStringList labels;
  for (auto* text : itemsOf<QCPItemText>(plot.plot()))
    if (text->objectName() == QStringLiteral("kneeLabel")) labels << text->text();
  labels.sort();
  QCOMPARE(labels, (QStringList{"within 1%", "within 5%"}));
  auto* summary = plot.findChild<QLabel*>(QStringLiteral("kneeSummary"));
  QVERIFY(summary && !summary->isHidden());
  QCOMPARE(summary->text(), plot.kneeSummary());
  QVERIFY2(summary->text().contains(QStringLiteral("within 1%, plan 4 (")) &&
               summary->text().contains(QStringLiteral("within 5%, plan 3 (")) &&
               summary->text().contains(
                   QStringLiteral("The best plan buys 0.5% more throughput than the next-cheaper "
                                  "frontier plan (8 GPUs) for 22.7% more per iteration.")),
           qPrintable(summary->text()));
  // The markers follow the cost unit.
  plot.setCostUnit(TradeoffPlot::CostUnit::UsdPerHour);
  QVERIFY(near(knee->data()->at(0)->key, 0.44 * 0.68 * 3600));

  // One plan within both tolerances: one marker, both in its label.
  auto both = std::make_shared<sailor::PlanResult>(*result);
  both->pareto.erase(both->pareto.begin() + 2);  // without the 0.689 it/s plan
  both->knee = sailor::kneeOf(*both, sailor::Objective::Throughput);
  plot.setResult(both, job_);
  QCOMPARE(plot.kneePoints(), (std::vector<int>{2}));  // 0.68: within 5 %, not 1 %
  QVERIFY(
      plot.kneeSummary().contains(QStringLiteral("within 1% of its throughput, the best plan "
                                                 "itself")));
  both->knee = sailor::kneeOf(*both, sailor::Objective::Throughput, {0.02, 0.05});
  plot.setResult(both, job_);
  QCOMPARE(plot.kneePoints(), (std::vector<int>{2}));  // within 2 % and 5 %
  labels.clear();
  for (auto* text : itemsOf<QCPItemText>(plot.plot()))
    if (text->objectName() == QStringLiteral("kneeLabel")) labels << text->text();
  QCOMPARE(labels, (QStringList{"within 2%, 5%"}));

  // No knee (no frontier): no marker, no summary.
  plot.setResult(synthetic_, job_);
  QVERIFY(plot.kneePoints().empty());
  QCOMPARE(knee->dataCount(), 0);
  QVERIFY(summary->isHidden());
}

void TestPlotInspector::clickingAPointSelectsItAndFeedsTheInspector() {
  TradeoffPlot plot;
  plot.resize(1000, 700);
  plot.setResult(searched_, job_);
  plot.show();
  QVERIFY(QTest::qWaitForWindowExposed(&plot));
  plot.plot()->replot();

  // A point whose neighbours are all outside the pick radius, so the click is unambiguous.
  const int n = static_cast<int>(plot.points().size());
  int target = -1;
  for (int i = n - 1; i >= 0 && target < 0; --i) {
    bool alone = true;
    for (int j = 0; j < n; ++j) {
      if (j == i) continue;
      const QPoint d = plot.pointPixel(i) - plot.pointPixel(j);
      alone = alone && std::hypot(d.x(), d.y()) > 2 * TradeoffPlot::kPickRadiusPx;
    }
    if (alone) target = i;
  }
  QVERIFY2(target >= 0, "every point has a neighbour within the pick radius");
  QVERIFY(plot.plot()->rect().contains(plot.pointPixel(target)));

  QSignalSpy selected(&plot, &TradeoffPlot::planSelected);
  // Near (within the radius), not exactly on, the point.
  QTest::mouseClick(plot.plot(), Qt::LeftButton, {}, plot.pointPixel(target) + QPoint(3, -2));
  QCOMPARE(selected.count(), 1);
  QCOMPARE(selected.at(0).at(0).toInt(), target);
  QCOMPARE(plot.selectedIndex(), target);
  // A click far from every point selects nothing new.
  QTest::mouseClick(plot.plot(), Qt::LeftButton, {}, QPoint(2, 2));
  QCOMPARE(selected.count(), 1);

  const sailor::PlannedPlan& chosen = *plot.points()[static_cast<std::size_t>(target)];
  PlanInspector inspector;
  inspector.setPlan(chosen, scenario_, job_, catalog_);
  auto* stages = inspector.findChild<QTableWidget*>(QStringLiteral("stagesTable"));
  QVERIFY(stages);
  QCOMPARE(stages->rowCount(), static_cast<int>(chosen.plan.stages.size()));
  // One memory bar per stage and replica kind (GPU type, tp, zone).
  std::set<std::tuple<int, std::string, int, std::string>> kinds;
  for (const auto& m : chosen.prediction.memory) kinds.insert({m.stage, m.gpu_type, m.tp, m.zone});
  QCOMPARE(memoryBars(inspector), static_cast<int>(kinds.size()));

  // Keyboard: Right moves to the next plan by cost.
  plot.selectPlan(-1);
  QTest::keyClick(&plot, Qt::Key_Right);
  QCOMPARE(selected.count(), 3);  // cleared (-1), then the cheapest
  int cheapest = 0;
  for (int i = 1; i < n; ++i)
    if (plot.pointValue(i).x() < plot.pointValue(cheapest).x()) cheapest = i;
  QCOMPARE(plot.selectedIndex(), cheapest);
}

void TestPlotInspector::inspectorShowsTheDefaultPlan() {
  const sailor::PlannedPlan p = planned(default_plan_);
  PlanInspector inspector;
  inspector.setPlan(p, scenario_, job_, catalog_);
  QVERIFY(inspector.hasPlan());

  auto* stages = inspector.findChild<QTableWidget*>(QStringLiteral("stagesTable"));
  QCOMPARE(stages->rowCount(), 2);
  // Each stage: 2 A100-40 in us-central1-a and 2 in us-central1-b.
  QCOMPARE(stages->item(0, 2)->text(),
           QStringLiteral("2× A100-40 tp1 @ us-central1-a\n2× A100-40 tp1 @ us-central1-b"));
  QCOMPARE(stages->item(1, 3)->text(), QStringLiteral("4"));  // DP degree
  // Busy: each stage's work over the iteration; stage 1 (the bottleneck) more than stage 0.
  QCOMPARE(stages->horizontalHeaderItem(8)->text(), QStringLiteral("Busy"));
  QVERIFY(p.prediction.stages[1].work_s > p.prediction.stages[0].work_s);
  QVERIFY(stages->item(1, 8)->text().endsWith(QLatin1Char('%')));
  QCOMPARE(stages->item(0, 5)->text(), QString::number(default_plan_.microbatches(
                                           job_.global_batch_size, default_plan_.stages[0])));
  // Two kinds per stage, two stages: four memory bars, all within capacity.
  QCOMPARE(memoryBars(inspector), 4);
  QVERIFY(p.prediction.fits);
  QVERIFY(inspector.findChild<QLabel*>(QStringLiteral("memoryMessages"))->isHidden());

  // Time: the five parts and the iteration; shares add up to the iteration.
  auto* time = inspector.findChild<QTableWidget*>(QStringLiteral("timeTable"));
  QCOMPARE(time->rowCount(), 6);
  QCOMPARE(time->item(5, 1)->text(), QLocale().toString(p.prediction.iteration_s, 'f', 4));
  // The breakdown is the busiest stage's, and the caption names it: stage 1 (layers 13-25 and
  // the head do more work than layers 0-12 on the same GPUs).
  QCOMPARE(p.prediction.breakdown.stage, 1);
  QVERIFY(inspector.findChild<QLabel*>(QStringLiteral("timeCaption"))
              ->text()
              .contains(QStringLiteral("stage 1")));

  // Cost: egress rows as the prediction lists them (two zones: traffic between them).
  auto* egress = inspector.findChild<QTableWidget*>(QStringLiteral("egressTable"));
  QCOMPARE(egress->rowCount(), static_cast<int>(p.prediction.egress.size()));
  QVERIFY(egress->rowCount() > 0);
  auto* cost = inspector.findChild<QTableWidget*>(QStringLiteral("costTable"));
  QCOMPARE(cost->rowCount(), 3);

  QStringList tabs;
  for (int i = 0; i < inspector.tabs()->count(); ++i) tabs << inspector.tabs()->tabText(i);
  QCOMPARE(tabs, (QStringList{"Stages", "Memory", "Time", "Cost", "Timeline"}));

  inspector.clear();
  QVERIFY(!inspector.hasPlan());
  QCOMPARE(stages->rowCount(), 0);
  QCOMPARE(memoryBars(inspector), 0);
}

void TestPlotInspector::inspectorShowsOverCapacity() {
  PlanInspector inspector;
  inspector.setPlan(oom_, scenario_, job_, catalog_);
  auto* messages = inspector.findChild<QLabel*>(QStringLiteral("memoryMessages"));
  QVERIFY(!messages->isHidden());
  for (const auto& m : oom_.prediction.out_of_memory)
    QVERIFY(messages->text().contains(QString::fromStdString(m)));
  // The bar is drawn in the over-capacity stack (red), none in the normal one.
  auto* plot = inspector.findChild<QCustomPlot*>(QStringLiteral("memoryPlot"));
  int red = 0, normal = 0;
  for (int i = 0; i < plot->plottableCount(); ++i)
    if (auto* bars = qobject_cast<QCPBars*>(plot->plottable(i))) {
      if (bars->data()->isEmpty()) continue;
      const QColor c = bars->brush().color();
      const bool reddish = (c.hslHue() < 12 || c.hslHue() > 348) && c.hslSaturation() > 60;
      (reddish ? red : normal) += 1;
    }
  QCOMPARE(red, 5);  // model states, activations, transient, gradient bucket, overhead
  QCOMPARE(normal, 0);
}

// The Gantt chart is drawn where it can be seen: a hidden one when its tab is shown, one that
// shows in the next turn of the event loop, and never with another plan's rectangles.
void TestPlotInspector::ganttHasOneRectanglePerTimelineOp() {
  for (const auto* p : {&synthetic_->best[0], &synthetic_->pareto[1], &searched_->best[0]}) {
    PlanInspector inspector;
    inspector.setPlan(*p, scenario_, job_, catalog_);
    auto* gantt = inspector.findChild<QCustomPlot*>(QStringLiteral("timelinePlot"));
    QVERIFY(gantt);
    QVERIFY(!p->prediction.timeline.empty());
    QCOMPARE(itemsOf<QCPItemRect>(gantt).size(), 0);  // hidden: not drawn yet
    inspector.tabs()->setCurrentWidget(gantt);
    inspector.show();
    const auto rects = itemsOf<QCPItemRect>(gantt);
    QCOMPARE(rects.size(), static_cast<qsizetype>(p->prediction.timeline.size()));
    // The rectangles span the ops' times in ms.
    const auto& op = p->prediction.timeline.back();
    const auto* rect = rects.back();
    QVERIFY(near(rect->topLeft->coords().x(), op.start_s * 1e3));
    QVERIFY(near(rect->bottomRight->coords().x(), op.end_s * 1e3));
  }
  // A plan set while the chart shows: emptied at once, the new plan's rectangles a turn later.
  PlanInspector inspector;
  auto* gantt = inspector.findChild<QCustomPlot*>(QStringLiteral("timelinePlot"));
  inspector.tabs()->setCurrentWidget(gantt);
  inspector.show();
  inspector.setPlan(synthetic_->best[0], scenario_, job_, catalog_);
  QCOMPARE(itemsOf<QCPItemRect>(gantt).size(), 0);
  QCoreApplication::processEvents();
  QCOMPARE(itemsOf<QCPItemRect>(gantt).size(),
           static_cast<qsizetype>(synthetic_->best[0].prediction.timeline.size()));
  inspector.setPlan(searched_->best[0], scenario_, job_, catalog_);
  QCOMPARE(itemsOf<QCPItemRect>(gantt).size(), 0);
  QCoreApplication::processEvents();
  QCOMPARE(itemsOf<QCPItemRect>(gantt).size(),
           static_cast<qsizetype>(searched_->best[0].prediction.timeline.size()));
  inspector.clear();
  QCOMPARE(itemsOf<QCPItemRect>(gantt).size(), 0);
}

void TestPlotInspector::exportRoundTrip() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  PlanInspector inspector;
  QString error;
  QVERIFY(!inspector.exportPlan(dir.filePath("none.json"), &error));  // no plan yet
  QVERIFY(!error.isEmpty());

  const auto& p = searched_->best[0];
  inspector.setPlan(p, scenario_, job_, catalog_);
  const QString path = dir.filePath(QStringLiteral("plan.json"));
  QVERIFY2(inspector.exportPlan(path, &error), qPrintable(error));
  QFile file(path);
  QVERIFY(file.open(QIODevice::ReadOnly));
  const QByteArray text = file.readAll();
  QVERIFY(text.contains("\n  \"microbatch_size\""));  // 2-space indent
  const auto back = sailor::Plan::fromJson(nlohmann::json::parse(text.toStdString()));
  QVERIFY(back == p.plan);
  back.validate(job_, catalog_, *scenario_);  // a plan `sailor simulate --plan` accepts

  error.clear();
  QVERIFY(!inspector.exportPlan(dir.filePath(QStringLiteral("missing/dir/plan.json")), &error));
  QVERIFY(!error.isEmpty());
}

// "Export timeline…": the Gantt chart's operations as Chrome trace events, one complete event
// per operation at the same times (microseconds); disabled and refused without a plan.
void TestPlotInspector::exportTimelineWritesTheGanttAsATrace() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  PlanInspector inspector;
  auto* timeline_button = inspector.findChild<QPushButton*>(QStringLiteral("exportTimeline"));
  QVERIFY(timeline_button);
  QVERIFY(!timeline_button->isEnabled());
  QString error;
  QVERIFY(!inspector.exportTimeline(dir.filePath(QStringLiteral("none.json")), &error));
  QVERIFY(!error.isEmpty());

  const auto& p = searched_->best[0];
  QVERIFY(!p.prediction.timeline.empty());
  inspector.setPlan(p, scenario_, job_, catalog_);
  QVERIFY(timeline_button->isEnabled());
  const QString path = dir.filePath(QStringLiteral("timeline.json"));
  QVERIFY2(inspector.exportTimeline(path, &error), qPrintable(error));
  QFile file(path);
  QVERIFY(file.open(QIODevice::ReadOnly));
  const auto trace = nlohmann::json::parse(file.readAll().toStdString());
  std::vector<const nlohmann::json*> ops;
  for (const auto& e : trace.at("traceEvents"))
    if (e.at("ph") == "X") ops.push_back(&e);
  QCOMPARE(ops.size(), p.prediction.timeline.size());
  const auto& last = p.prediction.timeline.back();
  QVERIFY(near(ops.back()->at("ts").get<double>(), last.start_s * 1e6));
  QVERIFY(near(ops.back()->at("dur").get<double>(), (last.end_s - last.start_s) * 1e6));

  error.clear();
  QVERIFY(
      !inspector.exportTimeline(dir.filePath(QStringLiteral("missing/dir/timeline.json")), &error));
  QVERIFY(!error.isEmpty());
}

void TestPlotInspector::mapTabIsInsertedOnce() {
  PlanInspector inspector;
  const int before = inspector.tabs()->count();
  auto* first = new QLabel(QStringLiteral("map 1"));
  inspector.addMapTab(first);
  QCOMPARE(inspector.tabs()->count(), before + 1);
  QCOMPARE(inspector.tabs()->tabText(1), QStringLiteral("Map"));
  QCOMPARE(inspector.tabs()->widget(1), static_cast<QWidget*>(first));
  QPointer<QLabel> first_guard(first);
  auto* second = new QLabel(QStringLiteral("map 2"));
  inspector.addMapTab(second);
  QCOMPARE(inspector.tabs()->count(), before + 1);
  QCOMPARE(inspector.tabs()->widget(1), static_cast<QWidget*>(second));
  QVERIFY(first_guard.isNull());  // the replaced map is deleted
}

// In the studio the inspector shares the Plans tab with the trade-off plot: at 1280x800 it gets
// a scroll area of about 1276x345. Every tab fits there without scrolling, the map's too (a
// canvas that asks for 420x300 at least, as the resource canvas does).
void TestPlotInspector::inspectorFitsUnderTheTradeoffPlot() {
  auto* inspector = new PlanInspector;
  auto* map = new QGraphicsView;
  map->setMinimumSize(420, 300);
  inspector->addMapTab(map);
  inspector->setPlan(planned(default_plan_), scenario_, job_, catalog_);
  QScrollArea area;
  area.setWidget(inspector);
  area.setWidgetResizable(true);
  area.setFrameShape(QFrame::NoFrame);
  area.resize(1276, 345);
  area.show();
  QVERIFY(QTest::qWaitForWindowExposed(&area));
  for (int i = 0; i < inspector->tabs()->count(); ++i) {
    inspector->tabs()->setCurrentIndex(i);
    QCoreApplication::processEvents();
    QVERIFY2(!area.verticalScrollBar()->isVisible(),
             qPrintable(QStringLiteral("%1: the inspector needs %2 px, the area has %3")
                            .arg(inspector->tabs()->tabText(i))
                            .arg(inspector->minimumSizeHint().height())
                            .arg(area.viewport()->height())));
  }
}

void TestPlotInspector::stagePaletteColoursAreDistinct() {
  std::set<QRgb> colours;
  for (int s = 0; s < 8; ++s) colours.insert(sailor::studio::stagePalette(s).rgb());
  QCOMPARE(colours.size(), std::size_t{8});
  QCOMPARE(sailor::studio::stagePalette(8).rgb(), sailor::studio::stagePalette(0).rgb());
  QCOMPARE(sailor::studio::stagePalette(-1).rgb(), sailor::studio::stagePalette(7).rgb());
}

QTEST_MAIN(TestPlotInspector)
#include "test_plot_inspector.moc"
