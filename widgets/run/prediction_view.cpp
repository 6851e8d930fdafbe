#include "prediction_view.hpp"

#include <cmath>

#include <QFontMetricsF>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "run_format.hpp"

namespace sailor::studio {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

PredictionView::PredictionView(QCustomPlot* time_plot, QWidget* parent)
    : QWidget(parent), plot_(time_plot) {
  line_ = new QCPItemStraightLine(plot_);
  line_->setObjectName(QStringLiteral("predictionLine"));
  line_->setPen(QPen(QColor(0x555555), 1.5, Qt::DashLine));
  label_ = new QCPItemText(plot_);
  label_->setObjectName(QStringLiteral("predictionLabel"));
  label_->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
  label_->position->setTypeY(QCPItemPosition::ptPlotCoords);
  label_->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
  label_->setColor(QColor(0x555555));
  label_->setClipToAxisRect(true);
  // The label's side of the line is chosen once the axes have their size and range.
  connect(plot_, &QCustomPlot::afterLayout, this, &PredictionView::placeLabel);
  plot_->setToolTip(
      tr("Measured: the slowest rank's time per iteration. Dashed: the run's prediction for the "
         "hardware it runs on (the simulator on the local device's profile, sailor profile) when "
         "it recorded one. Before a run starts it is the plan's predicted iteration time on the "
         "plan's GPUs; a run without a prediction of its own (a scaled-down model on CPU "
         "processes, or a device without a profile) gets no line, since the plan's figure is "
         "for other hardware. The Prediction tab has the figures side by side."));

  note_ = new QLabel(this);
  note_->setObjectName(QStringLiteral("predictionNote"));
  note_->setWordWrap(true);
  note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  table_ = new QTableWidget(0, 4, this);
  table_->setObjectName(QStringLiteral("predictionComparison"));
  table_->setHorizontalHeaderLabels({tr("Quantity"), tr("Predicted"), tr("Measured"), tr("Error")});
  table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 8);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setToolTip(
      tr("The run's prediction for the hardware it runs on (the local device's profile) against "
         "what it measured: medians of the iterations after warm-up (the first 2). Compute: the "
         "stage's slowest rank's forward, backward and optimizer (tensor-parallel all-reduces "
         "included); communication: the rest of its iteration (transfers, data-parallel sync, "
         "waiting)."));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(note_);
  layout->addWidget(table_);
  updateLine();
  updateComparison();
}

void PredictionView::setPlanSeconds(double seconds) {
  plan_s_ = std::isfinite(seconds) && seconds > 0 ? seconds : kNaN;
  updateLine();
}

void PredictionView::startRun(std::int64_t run_id, const sailor::RunStartedEvent& started) {
  run_id_ = run_id;
  started_ = started;
  updateLine();
  updateComparison();
}

void PredictionView::clearRun() {
  run_id_ = 0;
  started_.reset();
  measured_.clear();
  updateLine();
  updateComparison();
}

void PredictionView::addIteration(const sailor::IterationEvent& event) {
  measured_.push_back(event);
  updateComparison();
}

void PredictionView::dropIterationsFrom(int first) {
  std::erase_if(measured_,
                [first](const sailor::IterationEvent& it) { return it.iteration >= first; });
  updateComparison();
}

double PredictionView::shownSeconds() const {
  if (started_) return started_->prediction ? started_->prediction->iteration_seconds : kNaN;
  return plan_s_;
}

QString PredictionView::labelText() const {
  if (started_ && started_->prediction)
    return tr("predicted %1 s %2")
        .arg(run_format::seconds(started_->prediction->iteration_seconds))
        .arg(QString::fromStdString(started_->prediction->label())
                 .mid(QStringLiteral("predicted ").size()));
  const double s = plan_s_;
  if (!std::isfinite(s)) return {};
  // The plan's prediction is for the plan's GPU types and its full model: name them.
  QStringList types;
  if (started_)
    for (const sailor::Stage& st : started_->plan.stages)
      for (const sailor::Replica& r : st.replicas)
        if (!types.contains(QString::fromStdString(r.gpu_type)))
          types << QString::fromStdString(r.gpu_type);
  // A run without a prediction of its own runs on other hardware (a CPU rehearsal of a scaled
  // model, or a device without a profile): the plan's figure is not drawn against it.
  if (started_)
    return tr("no prediction for this run's device; the plan's %1 s is for its %2, not "
              "comparable")
        .arg(run_format::seconds(s))
        .arg(types.join(QStringLiteral(", ")));
  return tr("predicted %1 s for the plan's GPUs").arg(run_format::seconds(s));
}

void PredictionView::updateLine() {
  const double s = shownSeconds();
  const QString text = labelText();
  line_->setVisible(std::isfinite(s));
  label_->setVisible(!text.isEmpty());
  if (std::isfinite(s)) {
    line_->point1->setCoords(0, s);
    line_->point2->setCoords(1, s);
  }
  label_->setText(text);
  placeLabel();
  emit shownSecondsChanged(s);
}

// Above the line by default. The label is clipped to the axes: when the line is too close to
// their top for the text's height (the axis ends 10 % above the prediction, and a Chinese glyph
// is taller than a Latin one), it goes under the line. With no line it sits at the top.
void PredictionView::placeLabel() {
  if (!label_->visible()) return;
  const double s = shownSeconds();
  if (!std::isfinite(s)) {
    label_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label_->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    label_->position->setCoords(0.98, 0.02);
    return;
  }
  const QRectF text =
      QFontMetricsF(label_->font()).boundingRect(QRectF(), Qt::AlignLeft, label_->text());
  const double room = plot_->yAxis->coordToPixel(s) - plot_->axisRect()->top();
  const double needed = text.height() + label_->padding().top() + label_->padding().bottom() + 2;
  const bool above = plot_->axisRect()->height() <= 0 || room >= needed;
  label_->position->setTypeY(QCPItemPosition::ptPlotCoords);
  label_->setPositionAlignment(Qt::AlignRight | (above ? Qt::AlignBottom : Qt::AlignTop));
  label_->position->setCoords(0.98, s);
}

QString PredictionView::comparisonNote() const {
  return note_->text();
}

void PredictionView::updateComparison() {
  comparison_rows_.clear();
  table_->setRowCount(0);
  if (!started_) {
    note_->setText(tr("No run shown."));
    return;
  }
  if (!started_->prediction) {
    note_->setText(
        started_->prediction_note.empty()
            ? tr("This run recorded no prediction for its hardware (recorded before runs had one).")
            : QString::fromStdString(started_->prediction_note));
    return;
  }
  const QString label = QString::fromStdString(started_->prediction->label());
  if (measured_.empty()) {
    note_->setText(tr("%1: no iteration measured yet.").arg(label));
    return;
  }
  const sailor::RunComparison c = sailor::compareRun(run_id_, *started_, measured_);
  comparison_rows_ = c.rows;
  note_->setText(tr("%1; measured: median of iterations %2-%3 (the first %4 are "
                    "warm-up)")
                     .arg(label)
                     .arg(c.warmup)
                     .arg(c.iterations - 1)
                     .arg(c.warmup));
  table_->setRowCount(static_cast<int>(c.rows.size()));
  const QLocale locale;
  for (int i = 0; i < static_cast<int>(c.rows.size()); ++i) {
    const sailor::ComparisonRow& r = c.rows[static_cast<std::size_t>(i)];
    const bool bytes = r.unit == "bytes";
    const auto figure = [&](double v) {
      return bytes ? tr("%1 MiB").arg(locale.toString(v / (1024.0 * 1024.0), 'f', 0))
                   : tr("%1 s").arg(run_format::seconds(v));
    };
    const double e = r.relativeError();
    const QString cells[] = {
        QString::fromStdString(r.quantity), figure(r.predicted), figure(r.measured),
        std::isfinite(e)
            ? QStringLiteral("%1%2%").arg(e >= 0 ? "+" : "").arg(locale.toString(100 * e, 'f', 1))
            : QStringLiteral("-")};
    for (int col = 0; col < 4; ++col) {
      auto* item = new QTableWidgetItem(cells[col]);
      if (col > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      table_->setItem(i, col, item);
    }
  }
}

}  // namespace sailor::studio
