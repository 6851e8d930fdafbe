#include "comparison_view.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSplitter>
#include <QTableWidget>
#include <QTemporaryFile>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "display_number.hpp"
#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "stage_palette.hpp"

namespace sailor::studio {

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

QString percent(double fraction) {
  return QLocale().toString(100 * fraction, 'f', 1) + QStringLiteral(" %");
}

}  // namespace

ComparisonView::ComparisonView(QWidget* parent) : QWidget(parent) {
  table_ = new QTableWidget(this);
  table_->setObjectName(QStringLiteral("comparisonTable"));
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->setVisible(false);
  table_->setHorizontalHeaderLabels({});
  plot_ = new QCustomPlot(this);
  plot_->setObjectName(QStringLiteral("comparisonPlot"));
  plot_->setMinimumHeight(240);
  plot_message_ = new QLabel(this);
  plot_message_->setObjectName(QStringLiteral("comparisonPlotMessage"));
  plot_message_->setWordWrap(true);
  auto* below = new QWidget(this);
  auto* v = new QVBoxLayout(below);
  v->setContentsMargins(0, 0, 0, 0);
  v->addWidget(plot_message_);
  v->addWidget(plot_, 1);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(table_);
  split->addWidget(below);
  split->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);
  setRows({});
}

void ComparisonView::setRows(std::vector<ScenarioComparison> rows,
                             std::optional<double> deadline_days,
                             std::optional<double> budget_usd) {
  rows_ = std::move(rows);
  deadline_days_ = deadline_days;
  budget_usd_ = budget_usd;
  fillTable();
  drawPlot();
}

void ComparisonView::fillTable() {
  const QStringList headers{tr("Scenario"), tr("GPUs"),          tr("GPU types"), tr("Zones"),
                            tr("Spot"),     tr("Iteration (s)"), tr("Tokens/s"),  tr("USD/h"),
                            tr("MFU"),      tr("Days"),          tr("Total USD"), tr("Goodput"),
                            tr("Failures"), tr("Preemptions"),   tr("Hours lost")};
  table_->clear();
  table_->setColumnCount(static_cast<int>(headers.size()));
  table_->setHorizontalHeaderLabels(headers);
  table_->setRowCount(static_cast<int>(rows_.size()));
  const QLocale locale;
  for (int i = 0; i < static_cast<int>(rows_.size()); ++i) {
    const ScenarioComparison& r = rows_[static_cast<size_t>(i)];
    QStringList cells{q(r.name)};
    if (!r.hasPlan()) {
      cells << tr("No plan: %1").arg(q(r.no_plan_reason));
    } else {
      cells << locale.toString(r.gpus) << q(r.gpu_types) << q(r.zones)
            << (r.gpus > 0 ? percent(static_cast<double>(r.spot_gpus) / r.gpus) : QString())
            << displayNumber(r.iteration_s) << displayNumber(r.tokens_per_s)
            << displayNumber(r.usd_per_hour) << percent(r.mfu);
      if (const auto& c = r.campaign) {
        if (c->finishes())
          cells << displayNumber(c->days()) << displayNumber(c->total_usd) << percent(c->goodput)
                << displayNumber(c->expected_failures) << displayNumber(c->expected_preemptions)
                << displayNumber((c->wall_s - c->compute_s) / 3600);
        else
          cells << tr("never") << tr("never") << percent(0) << QString() << QString() << QString();
      }
    }
    for (int c = 0; c < static_cast<int>(cells.size()); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c >= 4 && r.hasPlan()) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      table_->setItem(i, c, item);
    }
    if (!r.hasPlan()) table_->setSpan(i, 1, 1, static_cast<int>(headers.size()) - 1);
    if (const auto& c = r.campaign; c && c->finishes())
      table_->item(i, 0)->setToolTip(
          tr("%1: %2 days, %3 USD (GPUs %4, egress %5, storage %6); checkpoint every %7 min")
              .arg(q(r.name), displayNumber(c->days()), displayNumber(c->total_usd),
                   displayNumber(c->gpu_usd), displayNumber(c->egress_usd),
                   displayNumber(c->storage_usd), displayNumber(c->checkpoint_interval_s / 60)));
  }
  table_->resizeColumnsToContents();
}

// Days (x, logarithmic) against total USD (y, logarithmic), one labelled point per scenario
// whose run finishes; the deadline and the budget as dashed lines.
void ComparisonView::drawPlot() {
  plot_->clearPlottables();
  plot_->clearItems();
  plot_->xAxis->setLabel(tr("days to train (whole run)"));
  plot_->yAxis->setLabel(tr("total USD (whole run)"));
  for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTickerLog));
  }
  double lo_x = 0, hi_x = 0, lo_y = 0, hi_y = 0;
  int drawn = 0;
  // Scenarios whose runs land on one point (the same best plan) share one label.
  std::vector<std::pair<QPointF, QCPItemText*>> labels;
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const ScenarioComparison& r = rows_[i];
    if (!r.campaign || !r.campaign->finishes()) continue;
    const double x = r.campaign->days(), y = r.campaign->total_usd;
    if (!(x > 0 && y > 0)) continue;
    QCPGraph* g = plot_->addGraph();
    g->setName(q(r.name));
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, stagePalette(static_cast<int>(i)), 10));
    g->addData(x, y);
    const auto same = std::find_if(labels.begin(), labels.end(), [&](const auto& l) {
      return std::abs(l.first.x() / x - 1) < 0.005 && std::abs(l.first.y() / y - 1) < 0.005;
    });
    if (same != labels.end()) {
      same->second->setText(same->second->text() + QStringLiteral("\n") + q(r.name));
    } else {
      auto* label = new QCPItemText(plot_);
      label->position->setCoords(x, y);
      label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
      label->setTextAlignment(Qt::AlignLeft);
      label->setPadding(QMargins(8, 4, 0, 0));
      label->setText(q(r.name));
      labels.emplace_back(QPointF(x, y), label);
    }
    lo_x = drawn ? std::min(lo_x, x) : x;
    hi_x = drawn ? std::max(hi_x, x) : x;
    lo_y = drawn ? std::min(lo_y, y) : y;
    hi_y = drawn ? std::max(hi_y, y) : y;
    ++drawn;
  }
  const auto dashed = [this](double x0, double y0, double x1, double y1, const QString& text) {
    auto* line = new QCPItemStraightLine(plot_);
    line->point1->setCoords(x0, y0);
    line->point2->setCoords(x1, y1);
    line->setPen(QPen(QColor(0xb0, 0x30, 0x30), 1.5, Qt::DashLine));
    auto* label = new QCPItemText(plot_);
    label->position->setCoords(x0, y0);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    label->setColor(QColor(0xb0, 0x30, 0x30));
    label->setText(text);
  };
  if (drawn > 0) {
    if (deadline_days_) {
      lo_x = std::min(lo_x, *deadline_days_);
      hi_x = std::max(hi_x, *deadline_days_);
    }
    if (budget_usd_) {
      lo_y = std::min(lo_y, *budget_usd_);
      hi_y = std::max(hi_y, *budget_usd_);
    }
    plot_->xAxis->setRange(lo_x / 1.6, hi_x * 1.6);
    plot_->yAxis->setRange(lo_y / 1.6, hi_y * 1.6);
    if (deadline_days_)
      dashed(*deadline_days_, hi_y * 1.5, *deadline_days_, lo_y,
             tr("deadline %1 days").arg(displayNumber(*deadline_days_)));
    if (budget_usd_)
      dashed(lo_x / 1.5, *budget_usd_, hi_x, *budget_usd_,
             tr("budget %1 USD").arg(displayNumber(*budget_usd_)));
  }
  const bool any_run = std::any_of(rows_.begin(), rows_.end(), [](const ScenarioComparison& r) {
    return r.campaign.has_value();
  });
  if (rows_.empty())
    plot_message_->setText(tr("Add scenarios and compare them for the job in the job panel."));
  else if (!any_run)
    plot_message_->setText(
        tr("Set the tokens to train in the job panel to compare days and total USD."));
  else if (drawn == 0) plot_message_->setText(tr("No scenario has a plan whose run finishes."));
  else plot_message_->clear();
  plot_message_->setVisible(!plot_message_->text().isEmpty());
  plot_->replot();
}

QString ComparisonView::plotMessage() const {
  return plot_message_->text();
}

QString ComparisonView::exportCsv(const QString& path) const {
  try {
    json_util::writeFileAtomically(QFile::encodeName(path).toStdString(), comparisonCsv(rows_));
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  }
  return {};
}

QString ComparisonView::exportPlot(const QString& path, int width, int height) const {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix != QStringLiteral("png") && suffix != QStringLiteral("pdf"))
    return tr("%1: got the suffix \"%2\", expected .png or .pdf").arg(path, suffix);
  const QFileInfo info(path);
  // A temporary file beside the target, renamed over it once written whole.
  QTemporaryFile tmp(
      info.absoluteDir().filePath(QStringLiteral(".%1.XXXXXX.%2").arg(info.fileName(), suffix)));
  if (!tmp.open())
    return tr("%1: cannot write in %2 (%3)").arg(path, info.absolutePath(), tmp.errorString());
  tmp.close();
  const bool ok = suffix == QStringLiteral("png")
                      ? plot_->savePng(tmp.fileName(), width, height, 1.0, -1)
                      : plot_->savePdf(tmp.fileName(), width, height);
  if (!ok || QFileInfo(tmp.fileName()).size() == 0)
    return tr("%1: the plot could not be drawn into the file").arg(path);
  if (std::rename(QFile::encodeName(tmp.fileName()).constData(),
                  QFile::encodeName(info.absoluteFilePath()).constData()) != 0)
    return tr("%1: cannot replace the file").arg(path);
  tmp.setAutoRemove(false);  // renamed: nothing left to remove
  return {};
}

}  // namespace sailor::studio
