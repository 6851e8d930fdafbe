// The trade-off plot: every plan of a planner result (its top plans and its Pareto set) as a
// point of throughput (Y) against cost (X), in units the user picks, with the Pareto frontier of
// what is displayed, the best plans highlighted, the knee of the planner's frontier marked (the
// cheapest plans within 1 % and 5 % of the best throughput, sailor/planning/knee.hpp) with the best
// plan's last step said above the plot, the planner's constraints as lines, hover tooltips and
// click-to-select. When the job has a training budget, its whole run can be plotted instead:
// days to train (Y, fewer above) against total USD (X), with the job's deadline and budget as
// lines (PlannedPlan::campaign). A view only: it never runs the planner.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <QPoint>
#include <QPointF>
#include <QSharedPointer>
#include <QWidget>

#include "sailor/model/job.hpp"
#include "sailor/planning/planner.hpp"

class QComboBox;
class QCustomPlot;
class QCPAxisTicker;
class QCPGraph;
class QKeyEvent;
class QLabel;
class QMouseEvent;

namespace sailor::studio {

class TradeoffPlot : public QWidget {
  Q_OBJECT

 public:
  // DaysToTrain and TotalUsd: the whole run's (PlannedPlan::campaign); fewer days is better, so
  // that axis runs downwards.
  enum class ThroughputUnit { IterationsPerS, TokensPerS, DaysToTrain };
  enum class CostUnit { UsdPerIteration, UsdPerHour, UsdPerMillionTokens, TotalUsd };

  explicit TradeoffPlot(QWidget* parent = nullptr);
  ~TradeoffPlot() override;

  // Shows every plan of `result` (best ∪ pareto, without duplicates). A null or empty result
  // shows its no_plan_reason. Clears the selection. The widget keeps `result` alive.
  void setResult(std::shared_ptr<const sailor::PlanResult> result, const sailor::Job& job);
  // Constraint lines and which plan the objective ranks first (for the legend).
  void setConstraints(const sailor::PlannerOptions& options);
  void clear();

  // The plotted plans, in index order: result.best in order, then the Pareto plans that are
  // not among them, by increasing cost. Pointers into the result given to setResult().
  const std::vector<const sailor::PlannedPlan*>& points() const { return points_; }

  ThroughputUnit throughputUnit() const { return throughput_unit_; }
  CostUnit costUnit() const { return cost_unit_; }
  void setThroughputUnit(ThroughputUnit unit);  // also updates the header's combo box
  void setCostUnit(CostUnit unit);

  // Point `index` in displayed units: x = cost, y = throughput.
  QPointF pointValue(int index) const;
  // Point `index` in pixels of plot() (for QTest::mouseClick on plot()).
  QPoint pointPixel(int index) const;
  // Indices of points() on the Pareto frontier of the displayed units, by increasing cost.
  const std::vector<int>& frontier() const { return frontier_; }

  // Indices of points() marked as knee plans (the result's knee picks other than its top plan),
  // increasing; empty when the result has no knee.
  const std::vector<int>& kneePoints() const { return knee_points_; }
  // The knee in words, shown above the plot (empty, and hidden, without a knee): the knee plans
  // and what the best plan's last step on the frontier buys for what it costs.
  QString kneeSummary() const;

  int selectedIndex() const { return selected_; }
  // Selects point `index` (-1: none) and emits planSelected when the selection changes.
  void selectPlan(int index);

  QCustomPlot* plot() const { return plot_; }
  // What the plot says instead of points (no plan, no result); empty when it shows points.
  QString message() const { return message_; }

  // Pixels around a point within which hovering shows its tooltip and a click selects it.
  static constexpr double kPickRadiusPx = 12.0;

 signals:
  void planSelected(int index);

 protected:
  void keyPressEvent(QKeyEvent* event) override;

 private:
  double costOf(const sailor::PlannedPlan& p) const;
  double throughputOf(const sailor::PlannedPlan& p) const;
  double tokensPerIteration() const;
  // Whether the displayed units are a whole run's, and whether every plan has one to show.
  bool wholeRunUnits() const;
  bool hasCampaigns() const;
  // Y compared so that larger is better (days negated).
  double merit(double y) const;
  // The points drawn: all of points(), or none when the units are a whole run's and some plan
  // has none (the plot then says how to get them).
  int shownCount() const { return shown_ ? static_cast<int>(points_.size()) : 0; }
  int nearestPoint(const QPointF& pixel) const;  // -1 when none within kPickRadiusPx
  QString tooltipText(int index) const;
  int pointOfPlan(const sailor::Plan& plan) const;  // -1 when not plotted
  QString kneeRole(int index) const;                // "within 1%, 5%" for a knee point, else empty
  void rebuildKnee();
  // A constraint drawn on the plot: a vertical (cost) or horizontal (throughput) line.
  struct ConstraintLine {
    bool vertical;
    double value;
    QString label;
  };
  void rebuild();              // after a change of data or units
  void rebuildFrontier();      // frontier_ in the displayed units
  void rebuildGraphs();        // the points' graphs: other plans, top plans, the best, the frontier
  void updateLegendAndAxes();  // graph names, legend entries and axis labels
  void updateConstraintsLabel();  // the header naming every constraint, drawn or not
  std::vector<ConstraintLine> constraintLines() const;  // the constraints drawn in these units
  void drawConstraintLines(const std::vector<ConstraintLine>& lines);  // dashed, labelled
  void showNoPlanMessage();  // no points: why, in the middle of the plot
  void updateSelectionGraph();
  void onMouseMove(QMouseEvent* event);
  void onMousePress(QMouseEvent* event);
  void onMouseRelease(QMouseEvent* event);

  QComboBox* throughput_combo_ = nullptr;
  QComboBox* cost_combo_ = nullptr;
  QLabel* constraints_label_ = nullptr;
  QLabel* knee_label_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  QCPGraph* all_graph_ = nullptr;
  QCPGraph* frontier_graph_ = nullptr;
  QCPGraph* top_graph_ = nullptr;
  QCPGraph* best_graph_ = nullptr;
  QCPGraph* knee_graph_ = nullptr;
  QCPGraph* selected_graph_ = nullptr;
  QSharedPointer<QCPAxisTicker> linear_ticker_;  // the Y axis's, per iteration
  QSharedPointer<QCPAxisTicker> log_ticker_;     // days, logarithmic

  std::shared_ptr<const sailor::PlanResult> result_;
  sailor::Job job_;
  std::optional<sailor::PlannerOptions> constraints_;
  std::vector<const sailor::PlannedPlan*> points_;
  std::vector<bool> in_best_;  // per point: among result.best
  std::vector<int> frontier_;
  std::vector<int> knee_points_;
  int selected_ = -1;
  bool shown_ = true;
  QString message_;
  QPoint press_pos_;
  ThroughputUnit throughput_unit_ = ThroughputUnit::IterationsPerS;
  CostUnit cost_unit_ = CostUnit::UsdPerIteration;
};

}  // namespace sailor::studio
