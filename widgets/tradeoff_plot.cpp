// TradeoffPlot: see tradeoff_plot.hpp.
#include "tradeoff_plot.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLocale>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "display_number.hpp"

namespace sailor::studio {

namespace {

// Breaks a long message into lines of about `width` characters at spaces (QCPItemText does not
// wrap).
QString wrap(const QString& text, int width = 72) {
  QStringList lines;
  QString line;
  for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
    if (!line.isEmpty() && line.size() + 1 + word.size() > width) {
      lines.append(line);
      line.clear();
    }
    if (!line.isEmpty()) line += QLatin1Char(' ');
    line += word;
  }
  if (!line.isEmpty()) lines.append(line);
  return lines.join(QLatin1Char('\n'));
}

}  // namespace

TradeoffPlot::TradeoffPlot(QWidget* parent) : QWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);

  throughput_combo_ = new QComboBox(this);
  throughput_combo_->addItem(tr("iterations/s"));
  throughput_combo_->addItem(tr("tokens/s"));
  throughput_combo_->addItem(tr("days to train (whole run)"));
  cost_combo_ = new QComboBox(this);
  cost_combo_->addItem(tr("USD per iteration"));
  cost_combo_->addItem(tr("USD per hour"));
  cost_combo_->addItem(tr("USD per million tokens"));
  cost_combo_->addItem(tr("total USD (whole run)"));
  throughput_combo_->setObjectName(QStringLiteral("throughputUnit"));
  cost_combo_->setObjectName(QStringLiteral("costUnit"));

  auto* header = new QHBoxLayout;
  header->setContentsMargins(0, 0, 0, 0);
  auto* throughput_label = new QLabel(tr("&Throughput in"), this);
  throughput_label->setBuddy(throughput_combo_);
  auto* cost_label = new QLabel(tr("&Cost in"), this);
  cost_label->setBuddy(cost_combo_);
  header->addWidget(throughput_label);
  header->addWidget(throughput_combo_);
  header->addSpacing(16);
  header->addWidget(cost_label);
  header->addWidget(cost_combo_);
  header->addStretch(1);
  constraints_label_ = new QLabel(this);
  constraints_label_->setObjectName(QStringLiteral("constraints"));
  header->addWidget(constraints_label_);

  plot_ = new QCustomPlot(this);
  plot_->setObjectName(QStringLiteral("tradeoffPlot"));
  plot_->setMinimumSize(320, 240);
  linear_ticker_ = plot_->yAxis->ticker();
  log_ticker_ = QSharedPointer<QCPAxisTicker>(new QCPAxisTickerLog);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->setToolTip(QString());  // tooltips are per point (onMouseMove)

  // Drawing order: frontier line under every point, the selection ring on top.
  frontier_graph_ = plot_->addGraph();
  frontier_graph_->setName(tr("Pareto frontier"));
  frontier_graph_->setLineStyle(QCPGraph::lsStepLeft);
  frontier_graph_->setPen(QPen(QColor(0x4E79A7), 2));
  frontier_graph_->setScatterStyle(QCPScatterStyle::ssNone);

  all_graph_ = plot_->addGraph();
  all_graph_->setName(tr("Other Pareto plans"));
  all_graph_->setLineStyle(QCPGraph::lsNone);
  all_graph_->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(0x4E79A7), 1.5), QColor(0xD0DDEB), 8));

  top_graph_ = plot_->addGraph();
  top_graph_->setName(tr("Top plans"));
  top_graph_->setLineStyle(QCPGraph::lsNone);
  top_graph_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle,
                                              QPen(QColor(0xB8641A), 1.5), QColor(0xF28E2B), 10));

  best_graph_ = plot_->addGraph();
  best_graph_->setName(tr("Best plan"));
  best_graph_->setLineStyle(QCPGraph::lsNone);
  best_graph_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond,
                                               QPen(QColor(0x8B1A1A), 1.5), QColor(0xE15759), 15));

  knee_graph_ = plot_->addGraph();
  knee_graph_->setName(tr("Knee: cheapest within 1% / 5% of the best throughput"));
  knee_graph_->setLineStyle(QCPGraph::lsNone);
  knee_graph_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangle,
                                               QPen(QColor(0x1E6B3A), 2), QColor(0x59A14F), 14));

  selected_graph_ = plot_->addGraph();
  selected_graph_->setName(tr("Selected"));
  selected_graph_->setLineStyle(QCPGraph::lsNone);
  selected_graph_->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 2.5), Qt::NoBrush, 22));
  selected_graph_->removeFromLegend();

  // The legend in a row above the axes, where it never hides a point.
  plot_->legend->setVisible(true);
  plot_->legend->setBorderPen(Qt::NoPen);
  plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot_->legend->setWrap(4);
  plot_->plotLayout()->insertRow(0);
  plot_->plotLayout()->addElement(0, 0, plot_->legend);
  plot_->plotLayout()->setRowStretchFactor(0, 0.001);

  knee_label_ = new QLabel(this);
  knee_label_->setObjectName(QStringLiteral("kneeSummary"));
  knee_label_->setWordWrap(true);
  knee_label_->setVisible(false);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(header);
  layout->addWidget(knee_label_);
  layout->addWidget(plot_, 1);

  connect(throughput_combo_, &QComboBox::currentIndexChanged, this, [this](int i) {
    setThroughputUnit(i == 2   ? ThroughputUnit::DaysToTrain
                      : i == 1 ? ThroughputUnit::TokensPerS
                               : ThroughputUnit::IterationsPerS);
  });
  connect(cost_combo_, &QComboBox::currentIndexChanged, this, [this](int i) {
    setCostUnit(i == 3   ? CostUnit::TotalUsd
                : i == 1 ? CostUnit::UsdPerHour
                : i == 2 ? CostUnit::UsdPerMillionTokens
                         : CostUnit::UsdPerIteration);
  });
  connect(plot_, &QCustomPlot::mouseMove, this, &TradeoffPlot::onMouseMove);
  connect(plot_, &QCustomPlot::mousePress, this, &TradeoffPlot::onMousePress);
  connect(plot_, &QCustomPlot::mouseRelease, this, &TradeoffPlot::onMouseRelease);
  connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { rebuild(); });

  rebuild();
}

TradeoffPlot::~TradeoffPlot() = default;

void TradeoffPlot::setResult(std::shared_ptr<const sailor::PlanResult> result,
                             const sailor::Job& job) {
  result_ = std::move(result);
  job_ = job;
  points_.clear();
  in_best_.clear();
  selected_ = -1;
  if (result_) {
    for (const auto& p : result_->best) {
      const bool seen = std::any_of(points_.begin(), points_.end(),
                                    [&](const auto* q) { return q->plan == p.plan; });
      if (!seen) {
        points_.push_back(&p);
        in_best_.push_back(true);
      }
    }
    for (const auto& p : result_->pareto) {
      const bool seen = std::any_of(points_.begin(), points_.end(),
                                    [&](const auto* q) { return q->plan == p.plan; });
      if (!seen) {
        points_.push_back(&p);
        in_best_.push_back(false);
      }
    }
  }
  rebuild();
}

void TradeoffPlot::setConstraints(const sailor::PlannerOptions& options) {
  constraints_ = options;
  rebuild();
}

void TradeoffPlot::clear() {
  result_.reset();
  points_.clear();
  in_best_.clear();
  selected_ = -1;
  rebuild();
}

void TradeoffPlot::setThroughputUnit(ThroughputUnit unit) {
  const int index = unit == ThroughputUnit::DaysToTrain  ? 2
                    : unit == ThroughputUnit::TokensPerS ? 1
                                                         : 0;
  if (throughput_combo_->currentIndex() != index)
    throughput_combo_->setCurrentIndex(index);  // re-enters through the combo's signal
  if (unit == throughput_unit_) return;
  throughput_unit_ = unit;
  rebuild();
}

void TradeoffPlot::setCostUnit(CostUnit unit) {
  const int index = unit == CostUnit::UsdPerHour            ? 1
                    : unit == CostUnit::UsdPerMillionTokens ? 2
                    : unit == CostUnit::TotalUsd            ? 3
                                                            : 0;
  if (cost_combo_->currentIndex() != index) cost_combo_->setCurrentIndex(index);
  if (unit == cost_unit_) return;
  cost_unit_ = unit;
  rebuild();
}

double TradeoffPlot::tokensPerIteration() const {
  return static_cast<double>(job_.global_batch_size) * job_.sequence_length;
}

double TradeoffPlot::costOf(const sailor::PlannedPlan& p) const {
  switch (cost_unit_) {
    case CostUnit::UsdPerIteration: return p.prediction.usd_per_iteration;
    case CostUnit::UsdPerHour: return p.prediction.usd_per_hour;
    case CostUnit::UsdPerMillionTokens:
      return tokensPerIteration() > 0 ? p.prediction.usd_per_iteration / tokensPerIteration() * 1e6
                                      : 0;
    case CostUnit::TotalUsd: return p.campaign ? p.campaign->total_usd : 0;
  }
  return 0;
}

double TradeoffPlot::throughputOf(const sailor::PlannedPlan& p) const {
  switch (throughput_unit_) {
    case ThroughputUnit::TokensPerS: return p.prediction.tokens_per_s;
    case ThroughputUnit::DaysToTrain: return p.campaign ? p.campaign->days() : 0;
    case ThroughputUnit::IterationsPerS: break;
  }
  return p.prediction.iterations_per_s;
}

bool TradeoffPlot::wholeRunUnits() const {
  return throughput_unit_ == ThroughputUnit::DaysToTrain || cost_unit_ == CostUnit::TotalUsd;
}

// Every plotted plan with a run that finishes (a run that never does has no point to draw).
bool TradeoffPlot::hasCampaigns() const {
  return std::all_of(points_.begin(), points_.end(), [](const sailor::PlannedPlan* p) {
    return p->campaign && p->campaign->finishes();
  });
}

double TradeoffPlot::merit(double y) const {
  return throughput_unit_ == ThroughputUnit::DaysToTrain ? -y : y;
}

QPointF TradeoffPlot::pointValue(int index) const {
  if (index < 0 || index >= static_cast<int>(points_.size())) return {};
  const auto& p = *points_[static_cast<std::size_t>(index)];
  return {costOf(p), throughputOf(p)};
}

QPoint TradeoffPlot::pointPixel(int index) const {
  const QPointF v = pointValue(index);
  return QPointF(plot_->xAxis->coordToPixel(v.x()), plot_->yAxis->coordToPixel(v.y())).toPoint();
}

int TradeoffPlot::nearestPoint(const QPointF& pixel) const {
  int best = -1;
  double best_d2 = kPickRadiusPx * kPickRadiusPx;
  for (int i = 0; i < shownCount(); ++i) {
    const QPointF v = pointValue(i);
    const double dx = plot_->xAxis->coordToPixel(v.x()) - pixel.x();
    const double dy = plot_->yAxis->coordToPixel(v.y()) - pixel.y();
    const double d2 = dx * dx + dy * dy;
    if (d2 <= best_d2) {
      best_d2 = d2;
      best = i;
    }
  }
  return best;
}

QString TradeoffPlot::tooltipText(int index) const {
  const auto& pp = *points_[static_cast<std::size_t>(index)];
  const auto& pred = pp.prediction;
  // GPUs by type, in order of first appearance.
  std::vector<std::pair<std::string, int>> gpus;
  for (const auto& s : pp.plan.stages)
    for (const auto& r : s.replicas) {
      auto it = std::find_if(gpus.begin(), gpus.end(),
                             [&](const auto& g) { return g.first == r.gpu_type; });
      if (it == gpus.end()) gpus.emplace_back(r.gpu_type, r.tp);
      else it->second += r.tp;
    }
  QStringList by_type;
  for (const auto& [type, n] : gpus)
    by_type.append(tr("%1× %2").arg(n).arg(QString::fromStdString(type)));

  QString role;
  if (result_ && !result_->best.empty() && result_->best.front().plan == pp.plan)
    role = tr("Best plan");
  else if (in_best_[static_cast<std::size_t>(index)]) role = tr("Top plan");
  else role = tr("Pareto plan");
  if (std::find(frontier_.begin(), frontier_.end(), index) != frontier_.end())
    role += tr(", on the displayed frontier");
  if (const QString knee = kneeRole(index); !knee.isEmpty())
    role += tr(", the knee: the cheapest frontier plan %1 of the best throughput").arg(knee);

  QStringList lines;
  lines << tr("Plan %1 (%2)").arg(index + 1).arg(role);
  lines << tr("Stages: %1, microbatch size %2")
               .arg(pp.plan.stages.size())
               .arg(pp.plan.microbatch_size);
  lines << tr("GPUs: %1 (%2)").arg(pp.plan.gpuCount()).arg(by_type.join(QStringLiteral(", ")));
  lines << tr("Throughput: %1 it/s, %2 tokens/s")
               .arg(displayNumber(pred.iterations_per_s), displayNumber(pred.tokens_per_s));
  lines << tr("Cost: $%1 per iteration, $%2 per hour")
               .arg(displayNumber(pred.usd_per_iteration), displayNumber(pred.usd_per_hour));
  if (pp.campaign && pp.campaign->finishes())
    lines << tr("Whole run: %1 days, $%2 in total, %3% of the time training")
                 .arg(displayNumber(pp.campaign->days()), displayNumber(pp.campaign->total_usd))
                 .arg(100 * pp.campaign->goodput, 0, 'f', 1);
  return lines.join(QLatin1Char('\n'));
}

void TradeoffPlot::rebuildFrontier() {
  const int n = shownCount();
  // The frontier of what is displayed: cost per iteration and per million tokens differ by a
  // constant factor (tokens per iteration), as do iterations/s and tokens/s, so they share one
  // frontier; cost per hour is cost per iteration x iterations per hour and does not: a plan
  // can be cheaper per iteration yet dearer per hour. So the frontier is recomputed here in the
  // displayed units rather than taken from result.pareto (which is per iteration).
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
  std::sort(order.begin(), order.end(), [this](int a, int b) {
    const QPointF pa = pointValue(a), pb = pointValue(b);
    return pa.x() != pb.x() ? pa.x() < pb.x() : merit(pa.y()) > merit(pb.y());
  });
  frontier_.clear();
  double best_merit = -std::numeric_limits<double>::infinity();
  for (int i : order)
    if (merit(pointValue(i).y()) > best_merit) {
      best_merit = merit(pointValue(i).y());
      frontier_.push_back(i);
    }
}

void TradeoffPlot::rebuildGraphs() {
  const int n = shownCount();
  QVector<double> ax, ay, fx, fy, tx, ty, bx, by;
  for (int i = 0; i < n; ++i) {
    const QPointF v = pointValue(i);
    if (!in_best_[static_cast<std::size_t>(i)]) {
      ax << v.x();
      ay << v.y();
    } else {
      if (i == 0) {  // result.best is first in points() and best first
        bx << v.x();
        by << v.y();
      } else {
        tx << v.x();
        ty << v.y();
      }
    }
  }
  for (int i : frontier_) {
    fx << pointValue(i).x();
    fy << pointValue(i).y();
  }
  if (!frontier_.empty()) {
    // The last step goes on to the right (paying more buys no more throughput), so that a
    // frontier of one plan is still drawn; the axis clips it.
    const double span = std::max(std::abs(fx.back()), std::abs(fx.back() - fx.front()));
    fx << fx.back() + 1000 * std::max(span, 1e-12);
    fy << fy.back();
  }
  all_graph_->setData(ax, ay);
  frontier_graph_->setData(fx, fy);
  top_graph_->setData(tx, ty);
  best_graph_->setData(bx, by);
}

void TradeoffPlot::updateLegendAndAxes() {
  const int n = shownCount();
  const bool cost_objective = constraints_ && constraints_->objective == sailor::Objective::Cost;
  best_graph_->setName(cost_objective ? tr("Best plan (minimum cost per iteration)")
                                      : tr("Best plan (maximum throughput)"));
  frontier_graph_->setName(tr("Pareto frontier (in the displayed units)"));
  // Legend entries only for what is there, always in this order.
  const std::array<QCPGraph*, 5> legend_order = {all_graph_, top_graph_, best_graph_, knee_graph_,
                                                 frontier_graph_};
  for (QCPGraph* g : legend_order) g->removeFromLegend();
  for (QCPGraph* g : legend_order)
    if (!g->data()->isEmpty()) g->addToLegend();
  plot_->legend->setVisible(n > 0);

  switch (cost_unit_) {
    case CostUnit::UsdPerIteration: plot_->xAxis->setLabel(tr("Cost (USD per iteration)")); break;
    case CostUnit::UsdPerHour: plot_->xAxis->setLabel(tr("Cost (USD per hour)")); break;
    case CostUnit::UsdPerMillionTokens:
      plot_->xAxis->setLabel(tr("Cost (USD per million tokens)"));
      break;
    case CostUnit::TotalUsd:
      plot_->xAxis->setLabel(tr("Cost of the whole run (USD, failures included)"));
      break;
  }
  switch (throughput_unit_) {
    case ThroughputUnit::TokensPerS: plot_->yAxis->setLabel(tr("Throughput (tokens/s)")); break;
    case ThroughputUnit::IterationsPerS:
      plot_->yAxis->setLabel(tr("Throughput (iterations/s)"));
      break;
    case ThroughputUnit::DaysToTrain:
      plot_->yAxis->setLabel(tr("Days to train (fewer above)"));
      break;
  }
  // Fewer days is better: that axis runs downwards, so that better plans stay up and left; and
  // logarithmic, as a frontier's runs span from hours to months.
  const bool days = throughput_unit_ == ThroughputUnit::DaysToTrain;
  plot_->yAxis->setRangeReversed(days);
  plot_->yAxis->setScaleType(days ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  plot_->yAxis->setTicker(days ? log_ticker_ : linear_ticker_);
}

void TradeoffPlot::updateConstraintsLabel() {
  // All constraints, drawn or not, in the header.
  QStringList constraint_texts;
  if (constraints_) {
    if (constraints_->max_usd_per_iteration)
      constraint_texts
          << tr("max $%1 per iteration").arg(displayNumber(*constraints_->max_usd_per_iteration));
    if (constraints_->max_usd_per_hour)
      constraint_texts
          << tr("max $%1 per hour").arg(displayNumber(*constraints_->max_usd_per_hour));
    if (constraints_->min_iterations_per_s)
      constraint_texts
          << tr("min %1 iterations/s").arg(displayNumber(*constraints_->min_iterations_per_s));
  }
  if (job_.trainingIterations()) {
    if (job_.deadline_days)
      constraint_texts << tr("deadline %1 days").arg(displayNumber(*job_.deadline_days));
    if (job_.budget_usd) constraint_texts << tr("budget $%1").arg(displayNumber(*job_.budget_usd));
  }
  constraints_label_->setText(
      constraint_texts.isEmpty()
          ? QString()
          : tr("Constraints: %1").arg(constraint_texts.join(QStringLiteral(" · "))));
}

std::vector<TradeoffPlot::ConstraintLine> TradeoffPlot::constraintLines() const {
  // A budget per iteration is also a budget per million tokens (a constant factor); a budget per
  // hour has no equivalent per iteration and is drawn only per hour.
  std::vector<ConstraintLine> lines;
  if (constraints_ && !points_.empty()) {
    if (constraints_->max_usd_per_iteration) {
      const double usd = *constraints_->max_usd_per_iteration;
      const QString label = tr("max $%1 per iteration").arg(displayNumber(usd));
      if (cost_unit_ == CostUnit::UsdPerIteration) lines.push_back({true, usd, label});
      else if (cost_unit_ == CostUnit::UsdPerMillionTokens && tokensPerIteration() > 0)
        lines.push_back({true, usd / tokensPerIteration() * 1e6, label});
    }
    if (constraints_->max_usd_per_hour && cost_unit_ == CostUnit::UsdPerHour)
      lines.push_back({true, *constraints_->max_usd_per_hour,
                       tr("max $%1 per hour").arg(displayNumber(*constraints_->max_usd_per_hour))});
    if (constraints_->min_iterations_per_s && throughput_unit_ != ThroughputUnit::DaysToTrain) {
      const double its = *constraints_->min_iterations_per_s;
      lines.push_back(
          {false, throughput_unit_ == ThroughputUnit::TokensPerS ? its * tokensPerIteration() : its,
           tr("min %1 iterations/s").arg(displayNumber(its))});
    }
  }
  // The whole run's deadline and budget, in its own units.
  if (!points_.empty() && job_.trainingIterations()) {
    if (job_.deadline_days && throughput_unit_ == ThroughputUnit::DaysToTrain)
      lines.push_back({false, *job_.deadline_days,
                       tr("deadline %1 days").arg(displayNumber(*job_.deadline_days))});
    if (job_.budget_usd && cost_unit_ == CostUnit::TotalUsd)
      lines.push_back(
          {true, *job_.budget_usd, tr("budget $%1").arg(displayNumber(*job_.budget_usd))});
  }
  return lines;
}

void TradeoffPlot::drawConstraintLines(const std::vector<ConstraintLine>& lines) {
  const QPen constraint_pen(QColor(0xC0392B), 1.5, Qt::DashLine);
  for (const auto& l : lines) {
    auto* line = new QCPItemStraightLine(plot_);
    line->setPen(constraint_pen);
    auto* text = new QCPItemText(plot_);
    text->setText(l.label);
    text->setColor(constraint_pen.color());
    text->setPadding(QMargins(3, 1, 3, 1));
    if (l.vertical) {
      line->point1->setCoords(l.value, 0);
      line->point2->setCoords(l.value, 1);
      text->position->setTypeX(QCPItemPosition::ptPlotCoords);
      text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
      text->position->setCoords(l.value, 0.0);
      text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    } else {
      line->point1->setCoords(0, l.value);
      line->point2->setCoords(1, l.value);
      text->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
      text->position->setTypeY(QCPItemPosition::ptPlotCoords);
      text->position->setCoords(0.0, l.value);
      text->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    }
  }
}

void TradeoffPlot::showNoPlanMessage() {
  if (result_ && !points_.empty() && wholeRunUnits() && !hasCampaigns())
    message_ =
        tr("Set the tokens to train in the job panel to see each plan's whole run: days "
           "and total USD, failures included.");
  else if (!result_)
    message_ = tr("No planner result yet: plan to see the trade-off between throughput and cost.");
  else if (!result_->no_plan_reason.empty())
    message_ = tr("No plan: %1").arg(QString::fromStdString(result_->no_plan_reason));
  else message_ = tr("The planner returned no plan.");
  auto* text = new QCPItemText(plot_);
  text->position->setType(QCPItemPosition::ptAxisRectRatio);
  text->position->setCoords(0.5, 0.5);
  text->setPositionAlignment(Qt::AlignCenter);
  text->setTextAlignment(Qt::AlignCenter);
  text->setText(wrap(message_));
  QFont font = text->font();
  font.setPointSizeF(font.pointSizeF() * 1.15);
  text->setFont(font);
  text->setColor(QColor(0x555555));
  plot_->xAxis->setRange(0, 1);
  plot_->yAxis->setRange(0, 1);
}

void TradeoffPlot::rebuild() {
  plot_->clearItems();
  // A whole run's units need every plan's run: without them no point is drawn, and the plot
  // says how to get them.
  shown_ = !wholeRunUnits() || hasCampaigns();
  const int n = shownCount();
  rebuildFrontier();
  rebuildGraphs();
  rebuildKnee();
  updateLegendAndAxes();

  // Ranges: the points, plus the constraint values near them.
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin, ymin = xmin, ymax = -xmin;
  for (int i = 0; i < n; ++i) {
    const QPointF v = pointValue(i);
    xmin = std::min(xmin, v.x());
    xmax = std::max(xmax, v.x());
    ymin = std::min(ymin, v.y());
    ymax = std::max(ymax, v.y());
  }

  // Constraint lines.
  updateConstraintsLabel();
  const std::vector<ConstraintLine> lines = constraintLines();
  // A constraint far from every point would squash them; it widens the range only when within
  // the points' own span of them.
  const double xspan = std::max(xmax - xmin, std::abs(xmax) * 0.2);
  const double yspan = std::max(ymax - ymin, std::abs(ymax) * 0.2);
  for (const auto& l : lines) {
    if (l.vertical && l.value >= xmin - xspan && l.value <= xmax + xspan) {
      xmin = std::min(xmin, l.value);
      xmax = std::max(xmax, l.value);
    } else if (!l.vertical && l.value >= ymin - yspan && l.value <= ymax + yspan) {
      ymin = std::min(ymin, l.value);
      ymax = std::max(ymax, l.value);
    }
  }
  drawConstraintLines(lines);

  if (n > 0) {
    message_.clear();
    const double xpad = std::max(xmax - xmin, std::abs(xmax) * 0.1) * 0.08;
    const double ypad = std::max(ymax - ymin, std::abs(ymax) * 0.1) * 0.08;
    plot_->xAxis->setRange(std::max(0.0, xmin - xpad), xmax + xpad);
    if (throughput_unit_ == ThroughputUnit::DaysToTrain)  // logarithmic, fewest days on top
      plot_->yAxis->setRange(ymin / 2.5, ymax * 1.3);
    else plot_->yAxis->setRange(std::max(0.0, ymin - ypad), ymax + ypad * 2.5);  // room for labels
  } else {
    showNoPlanMessage();
  }
  updateSelectionGraph();
}

int TradeoffPlot::pointOfPlan(const sailor::Plan& plan) const {
  for (size_t i = 0; i < points_.size(); ++i)
    if (points_[i]->plan == plan) return static_cast<int>(i);
  return -1;
}

QString TradeoffPlot::kneeRole(int index) const {
  if (!result_ || !result_->knee) return {};
  const sailor::Knee& k = *result_->knee;
  QStringList within;
  for (const auto& p : k.picks)
    if (p.frontier_index != k.top_index &&
        pointOfPlan(result_->pareto[static_cast<size_t>(p.frontier_index)].plan) == index)
      within << tr("%1%").arg(100 * p.tolerance);
  return within.isEmpty() ? QString() : tr("within %1").arg(within.join(QStringLiteral(", ")));
}

// The knee picks other than the top plan as triangles, each labelled with its tolerances; the
// summary above the plot.
void TradeoffPlot::rebuildKnee() {
  knee_points_.clear();
  QVector<double> kx, ky;
  if (result_ && result_->knee && shown_)
    for (const auto& p : result_->knee->picks) {
      if (p.frontier_index == result_->knee->top_index) continue;
      const int i = pointOfPlan(result_->pareto[static_cast<size_t>(p.frontier_index)].plan);
      if (i >= 0 && std::find(knee_points_.begin(), knee_points_.end(), i) == knee_points_.end())
        knee_points_.push_back(i);
    }
  std::sort(knee_points_.begin(), knee_points_.end());
  for (int i : knee_points_) {
    const QPointF v = pointValue(i);
    kx << v.x();
    ky << v.y();
    auto* text = new QCPItemText(plot_);
    text->setObjectName(QStringLiteral("kneeLabel"));
    text->position->setCoords(v.x(), v.y());
    text->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    text->setPadding(QMargins(2, 2, 2, 10));  // above the triangle
    text->setColor(QColor(0x1E6B3A));
    text->setText(kneeRole(i));
  }
  knee_graph_->setData(kx, ky);
  const QString summary = kneeSummary();
  knee_label_->setText(summary);
  knee_label_->setVisible(!summary.isEmpty());
}

QString TradeoffPlot::kneeSummary() const {
  if (!result_ || !result_->knee) return {};
  const sailor::Knee& k = *result_->knee;
  const auto& front = result_->pareto;
  const auto& top = front[static_cast<size_t>(k.top_index)];
  const QString name = k.top_is_best ? tr("the best plan") : tr("the fastest frontier plan");
  QStringList picks;
  for (const auto& p : k.picks) {
    const QString within = tr("%1%").arg(100 * p.tolerance);
    if (p.frontier_index == k.top_index) {
      picks << tr("within %1 of its throughput, %2 itself").arg(within, name);
      continue;
    }
    const auto& pp = front[static_cast<size_t>(p.frontier_index)];
    picks << tr("within %1, plan %2 (%3 GPUs, $%4 per iteration, %5% cheaper)")
                 .arg(within)
                 .arg(pointOfPlan(pp.plan) + 1)
                 .arg(pp.plan.gpuCount())
                 .arg(displayNumber(pp.prediction.usd_per_iteration))
                 .arg(100 * p.cost_saving, 0, 'f', 1);
  }
  QString text = tr("Knee: %1.").arg(picks.join(QStringLiteral("; ")));
  if (k.last_step) {
    const auto& prev = front[static_cast<size_t>(k.last_step->frontier_index)];
    const QString more = std::isfinite(k.last_step->cost_increase)
                             ? tr("%1% more").arg(100 * k.last_step->cost_increase, 0, 'f', 1)
                             : tr("$%1 more")
                                   .arg(displayNumber(top.prediction.usd_per_iteration -
                                                      prev.prediction.usd_per_iteration));
    text += QLatin1Char(' ') +
            tr("%1 buys %2% more throughput than the next-cheaper frontier plan (%3 GPUs) for %4 "
               "per iteration.")
                .arg(k.top_is_best ? tr("The best plan") : tr("The fastest frontier plan"))
                .arg(100 * k.last_step->throughput_gain, 0, 'f', 1)
                .arg(prev.plan.gpuCount())
                .arg(more);
  }
  return text;
}

void TradeoffPlot::updateSelectionGraph() {
  if (selected_ >= 0 && selected_ < shownCount()) {
    const QPointF v = pointValue(selected_);
    selected_graph_->setData(QVector<double>{v.x()}, QVector<double>{v.y()});
  } else {
    selected_graph_->data()->clear();
  }
  plot_->replot();
}

void TradeoffPlot::selectPlan(int index) {
  if (index < -1 || index >= static_cast<int>(points_.size())) index = -1;
  if (index == selected_) return;
  selected_ = index;
  updateSelectionGraph();
  emit planSelected(index);
}

void TradeoffPlot::keyPressEvent(QKeyEvent* event) {
  // Left/Right step through the plans by increasing displayed cost.
  if ((event->key() == Qt::Key_Left || event->key() == Qt::Key_Right) && !points_.empty()) {
    std::vector<int> order(points_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(),
                     [this](int a, int b) { return pointValue(a).x() < pointValue(b).x(); });
    const auto at = std::find(order.begin(), order.end(), selected_);
    int pos = at == order.end() ? -1 : static_cast<int>(at - order.begin());
    pos = event->key() == Qt::Key_Right ? std::min(pos + 1, static_cast<int>(order.size()) - 1)
                                        : std::max(pos - 1, 0);
    selectPlan(order[static_cast<std::size_t>(pos)]);
    event->accept();
    return;
  }
  QWidget::keyPressEvent(event);
}

void TradeoffPlot::onMouseMove(QMouseEvent* event) {
  if (event->buttons() != Qt::NoButton) return;  // dragging the view
  const int i = nearestPoint(event->position());
  if (i >= 0) QToolTip::showText(event->globalPosition().toPoint(), tooltipText(i), plot_);
  else QToolTip::hideText();
}

void TradeoffPlot::onMousePress(QMouseEvent* event) {
  press_pos_ = event->position().toPoint();
}

void TradeoffPlot::onMouseRelease(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  // A click, not the end of a drag of the view.
  if ((event->position().toPoint() - press_pos_).manhattanLength() > 4) return;
  const int i = nearestPoint(event->position());
  if (i >= 0) selectPlan(i);
}

}  // namespace sailor::studio
