#include "live_plots.hpp"

#include <algorithm>
#include <cmath>

#include <QFont>
#include <QGridLayout>
#include <QHeaderView>
#include <QTableWidget>
#include <qcustomplot.h>

#include "run_format.hpp"
#include "stage_palette.hpp"

namespace sailor::studio {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMiB = 1024.0 * 1024.0;

// Ticks on whole numbers only (iterations, ranks).
void integerTicks(QCPAxis* axis) {
  QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
  ticker->setTickStep(1.0);
  ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  axis->setTicker(ticker);
}

// Sets an axis to [0, max of the data (and `extra`) + 10 %]: times, rates and sizes start at 0.
void zeroBasedRange(QCPAxis* axis, double data_max, double extra = kNaN) {
  double top = std::isfinite(data_max) ? data_max : 0;
  if (std::isfinite(extra)) top = std::max(top, extra);
  axis->setRange(0, top > 0 ? top * 1.1 : 1.0);
}

double graphMax(const QCPGraph* g) {
  double m = kNaN;
  for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
    if (std::isfinite(it->value)) m = std::isfinite(m) ? std::max(m, it->value) : it->value;
  return m;
}

}  // namespace

LivePlots::LivePlots(QWidget* parent) : QWidget(parent) {
  buildIterationPlots();
  buildStageAndMemoryPlots();
  buildWorkerTable();
  // Four columns: iteration time and time per stage twice as wide as the others, so that the
  // prediction's label and the stages' legend have room at 1280 pixels.
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setSpacing(4);
  grid->addWidget(loss_plot_, 0, 0);
  grid->addWidget(time_plot_, 0, 1, 1, 2);
  grid->addWidget(throughput_plot_, 0, 3);
  grid->addWidget(stage_plot_, 1, 0, 1, 2);
  grid->addWidget(memory_plot_, 1, 2, 1, 2);
  for (int c = 0; c < 4; ++c) grid->setColumnStretch(c, 1);
  clear();
}

QString LivePlots::workerStateName(WorkerState state) {
  switch (state) {
    case WorkerState::Starting: return tr("starting");
    case WorkerState::Ready: return tr("ready");
    case WorkerState::Running: return tr("running");
    case WorkerState::Finished: return tr("finished");
    case WorkerState::Stopped: return tr("stopped");
    case WorkerState::Failed: return tr("failed");
    case WorkerState::Paused: return tr("paused");
  }
  return {};
}

QCustomPlot* LivePlots::makePlot(const QString& title, const QString& x_label,
                                 const QString& y_label) {
  auto* plot = new QCustomPlot(this);
  plot->setMinimumSize(220, 130);  // two rows of plots, the tables and the banner fit in 800 px
  plot->plotLayout()->insertRow(0);
  QFont title_font = font();
  title_font.setBold(true);
  plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, title, title_font));
  plot->xAxis->setLabel(x_label);
  plot->yAxis->setLabel(y_label);
  integerTicks(plot->xAxis);
  plot->xAxis->setRange(0, 1);
  plot->yAxis->setRange(0, 1);
  return plot;
}

void LivePlots::buildIterationPlots() {
  loss_plot_ = makePlot(tr("Loss"), tr("iteration"), tr("loss (nats)"));
  loss_plot_->setObjectName(QStringLiteral("lossPlot"));
  loss_plot_->addGraph();
  loss_plot_->graph(0)->setName(tr("loss"));
  loss_plot_->graph(0)->setPen(QPen(QColor(0x4E79A7), 2));
  loss_plot_->setToolTip(
      tr("Training loss, mean over the global batch (cross-entropy, nats per "
         "token; ln 256 = 5.55 is a uniform guess over bytes)"));

  time_plot_ = makePlot(tr("Iteration time"), tr("iteration"), tr("seconds"));
  time_plot_->setObjectName(QStringLiteral("iterationTimePlot"));
  time_plot_->addGraph();
  time_plot_->graph(0)->setName(tr("measured"));
  time_plot_->graph(0)->setPen(QPen(QColor(0xF28E2B), 2));
  time_plot_->graph(0)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));

  throughput_plot_ = makePlot(tr("Throughput"), tr("iteration"), tr("tokens/s"));
  throughput_plot_->setObjectName(QStringLiteral("throughputPlot"));
  throughput_plot_->addGraph();
  throughput_plot_->graph(0)->setName(tr("tokens/s"));
  throughput_plot_->graph(0)->setPen(QPen(QColor(0x59A14F), 2));
  throughput_plot_->setToolTip(
      tr("Tokens trained per second: global batch x sequence length / "
         "iteration time"));
}

void LivePlots::buildStageAndMemoryPlots() {
  stage_plot_ = makePlot(tr("Time per stage"), tr("iteration"), tr("seconds"));
  stage_plot_->setObjectName(QStringLiteral("stageTimePlot"));
  stage_plot_->legend->setVisible(true);
  QFont legend_font = font();
  legend_font.setPointSizeF(std::max(7.0, legend_font.pointSizeF() * 0.85));
  stage_plot_->legend->setFont(legend_font);
  // The legend goes in a row under the axes, two stages (compute and communication) per line:
  // inside the axes it would hide the latest iterations, where the lines are read.
  stage_plot_->axisRect()->insetLayout()->take(stage_plot_->legend);
  stage_plot_->plotLayout()->addElement(2, 0, stage_plot_->legend);
  stage_plot_->plotLayout()->setRowStretchFactor(2, 0.001);
  stage_plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  stage_plot_->legend->setWrap(4);
  stage_plot_->legend->setBorderPen(Qt::NoPen);
  stage_plot_->legend->setBrush(Qt::NoBrush);
  stage_plot_->setToolTip(
      tr("Per stage, its slowest rank: compute (solid) and time spent "
         "waiting on transfers and collectives (dashed)"));

  memory_plot_ = makePlot(tr("Peak memory per rank"), tr("rank"), tr("MiB"));
  memory_plot_->setObjectName(QStringLiteral("memoryPlot"));
  memory_bars_ = new QCPBars(memory_plot_->xAxis, memory_plot_->yAxis);
  memory_bars_->setName(tr("peak memory"));
  memory_bars_->setWidth(0.6);
  memory_bars_->setPen(QPen(QColor(0x4E79A7).darker(130)));
  memory_bars_->setBrush(QColor(0x4E79A7));
  // Ranks are categories: no vertical grid (its zero line would stick out above rank 0's bar).
  memory_plot_->xAxis->grid()->setVisible(false);
  // Its x axis is ranks, not iterations: a reconfiguration's marker there is a caption naming the
  // world the bars are of (they restart with the new world's ranks).
  memory_world_label_ = new QCPItemText(memory_plot_);
  memory_world_label_->setObjectName(QStringLiteral("reconfigurationMarkerLabel"));
  memory_world_label_->position->setType(QCPItemPosition::ptAxisRectRatio);
  memory_world_label_->position->setCoords(0.02, 0.02);
  memory_world_label_->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
  memory_world_label_->setColor(QColor(0x7B1FA2));
  memory_world_label_->setClipToAxisRect(true);
  memory_world_label_->setVisible(false);
  memory_plot_->setToolTip(
      tr("Highest peak resident memory of each worker process so far (on "
         "CPU: the process's peak resident set)"));
}

void LivePlots::buildWorkerTable() {
  workers_ = new QTableWidget(0, ColumnCount, this);
  workers_->setObjectName(QStringLiteral("workers"));
  workers_->setHorizontalHeaderLabels({tr("Rank"), tr("Stage"), tr("Replica"), tr("TP rank"),
                                       tr("GPU"), tr("Zone"), tr("PID"), tr("Device"), tr("State"),
                                       tr("Last iteration"), tr("Last report")});
  workers_->horizontalHeaderItem(ColLastReport)
      ->setToolTip(tr("Local time of the last event about this worker"));
  workers_->horizontalHeaderItem(ColLastIteration)
      ->setToolTip(tr("The last iteration this worker reported, and its time for it"));
  workers_->verticalHeader()->setVisible(false);
  // Compact rows: more ranks in view under the plots.
  workers_->verticalHeader()->setDefaultSectionSize(workers_->fontMetrics().height() + 8);
  workers_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  workers_->setSelectionBehavior(QAbstractItemView::SelectRows);
  workers_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  workers_->horizontalHeader()->setStretchLastSection(true);
}

std::optional<LivePlots::WorkerState> LivePlots::workerState(int rank) const {
  const auto it = worker_rows_.find(rank);
  if (it == worker_rows_.end()) return std::nullopt;
  return it->second.state;
}

void LivePlots::clear() {
  worker_rows_.clear();
  peak_memory_.clear();
  for (QCustomPlot* p : {loss_plot_, time_plot_, throughput_plot_}) p->graph(0)->data()->clear();
  stage_plot_->clearGraphs();
  stage_graphs_ = 0;
  memory_bars_->data()->clear();
  for (QCPAbstractItem* item : markers_) item->parentPlot()->removeItem(item);
  markers_.clear();
  markers_max_x_ = kNaN;
  marker_labels_ = 0;
  memory_world_label_->setVisible(false);
  workers_->setRowCount(0);
  replotAll();
}

void LivePlots::ensureStageGraphs(int stages) {
  for (int s = stage_graphs_; s < stages; ++s) {
    const QColor colour = stagePalette(s);
    QCPGraph* compute = stage_plot_->addGraph();
    compute->setName(tr("stage %1 compute").arg(s));
    compute->setPen(QPen(colour, 2));
    QCPGraph* comm = stage_plot_->addGraph();
    comm->setName(tr("stage %1 communication").arg(s));
    comm->setPen(QPen(colour, 1.5, Qt::DashLine));
  }
  stage_graphs_ = std::max(stage_graphs_, stages);
}

void LivePlots::setWorkers(const std::vector<sailor::RunWorker>& workers, WorkerState state,
                           const QString& time) {
  workers_->setRowCount(0);
  worker_rows_.clear();
  std::vector<sailor::RunWorker> sorted = workers;
  std::sort(sorted.begin(), sorted.end(),
            [](const sailor::RunWorker& a, const sailor::RunWorker& b) {
              return a.place.rank < b.place.rank;
            });
  workers_->setRowCount(static_cast<int>(sorted.size()));
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const sailor::RunWorker& w = sorted[i];
    const int row = static_cast<int>(i);
    worker_rows_[w.place.rank] = WorkerRow{row, state};
    setCell(row, ColRank, QString::number(w.place.rank));
    setCell(row, ColStage, QString::number(w.place.stage));
    setCell(row, ColReplica, QString::number(w.place.replica));
    setCell(row, ColTpRank, QStringLiteral("%1 / %2").arg(w.place.tp_rank).arg(w.place.tp));
    setCell(row, ColGpu, QString::fromStdString(w.place.gpu_type));
    setCell(row, ColZone, QString::fromStdString(w.place.zone));
    // A cluster run's workers run on the scheduler's nodes: no pid of this machine. A worker kept
    // through a reconfiguration has a new rank, and the event does not say which it was: "-".
    setCell(row, ColPid, w.pid > 0 ? QString::number(w.pid) : QStringLiteral("-"));
    setCell(row, ColDevice, {});
    setCell(row, ColLastIteration, {});
    setCell(row, ColLastReport, run_format::clockTime(time));
    setWorkerState(w.place.rank, state);
    workers_->item(row, ColStage)->setForeground(stagePalette(w.place.stage).darker(120));
  }
}

void LivePlots::setWorkerPids(const std::vector<sailor::RunWorker>& workers, const QString& time) {
  for (const sailor::RunWorker& w : workers) {
    const auto it = worker_rows_.find(w.place.rank);
    if (it == worker_rows_.end()) continue;
    setCell(it->second.row, ColPid, w.pid > 0 ? QString::number(w.pid) : QStringLiteral("-"));
    markReport(w.place.rank, time);
  }
}

void LivePlots::setDevices(const std::vector<std::string>& devices, const QString& time) {
  for (auto& [rank, w] : worker_rows_) {
    if (rank >= 0 && static_cast<std::size_t>(rank) < devices.size())
      setCell(w.row, ColDevice, QString::fromStdString(devices[static_cast<std::size_t>(rank)]));
    if (w.state == WorkerState::Starting) setWorkerState(rank, WorkerState::Ready);
    markReport(rank, time);
  }
}

void LivePlots::addIteration(const sailor::IterationEvent& event, const QString& time) {
  const double x = event.iteration;
  loss_plot_->graph(0)->addData(x, event.loss);
  time_plot_->graph(0)->addData(x, event.iteration_seconds);
  throughput_plot_->graph(0)->addData(x, event.tokens_per_second);

  int max_stage = -1;
  for (const sailor::RunStageTimes& s : event.stages) max_stage = std::max(max_stage, s.stage);
  ensureStageGraphs(max_stage + 1);
  for (const sailor::RunStageTimes& s : event.stages) {
    stage_plot_->graph(2 * s.stage)->addData(x, s.compute_seconds);
    stage_plot_->graph(2 * s.stage + 1)->addData(x, s.communication_seconds);
  }

  for (const sailor::RunRankTimes& r : event.ranks) {
    std::int64_t& peak = peak_memory_[r.rank];
    peak = std::max(peak, r.peak_memory_bytes);
    const auto it = worker_rows_.find(r.rank);
    if (it == worker_rows_.end()) continue;
    const WorkerState st = it->second.state;
    if (st == WorkerState::Starting || st == WorkerState::Ready || st == WorkerState::Paused)
      setWorkerState(r.rank, WorkerState::Running);
    setCell(it->second.row, ColLastIteration,
            tr("%1 (%2 s)").arg(event.iteration).arg(run_format::seconds(r.seconds)));
    markReport(r.rank, time);
  }
  memory_bars_->data()->clear();
  for (const auto& [rank, bytes] : peak_memory_)
    memory_bars_->addData(rank, static_cast<double>(bytes) / kMiB);
  replotAll();
}

void LivePlots::dropIterationsFrom(int first) {
  const double before = first - 0.5;
  for (QCustomPlot* p : {loss_plot_, time_plot_, throughput_plot_})
    p->graph(0)->data()->removeAfter(before);
  for (int g = 0; g < stage_plot_->graphCount(); ++g)
    stage_plot_->graph(g)->data()->removeAfter(before);
}

void LivePlots::setLiveWorkersState(WorkerState state, const QString& detail) {
  for (auto& [rank, w] : worker_rows_)
    if (w.state != WorkerState::Failed) setWorkerState(rank, state, detail);
}

void LivePlots::addIterationMarker(double x, const QString& label, const QColor& colour,
                                   Qt::PenStyle style, const QString& object_name) {
  // Labels at three heights in turn, so that close reconfigurations stay readable.
  const double label_y = 0.02 + 0.1 * (marker_labels_ % 3);
  if (!label.isEmpty()) ++marker_labels_;
  for (QCustomPlot* plot : {loss_plot_, time_plot_, throughput_plot_, stage_plot_}) {
    auto* line = new QCPItemStraightLine(plot);
    line->setObjectName(object_name);
    line->setPen(QPen(colour, 1.5, style));
    line->point1->setCoords(x, 0);
    line->point2->setCoords(x, 1);
    markers_.push_back(line);
    if (label.isEmpty()) continue;
    auto* text = new QCPItemText(plot);
    text->setObjectName(object_name + QStringLiteral("Label"));
    text->position->setTypeX(QCPItemPosition::ptPlotCoords);
    text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    text->position->setCoords(x, label_y);
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    text->setPadding(QMargins(3, 0, 0, 0));
    text->setColor(colour);
    text->setClipToAxisRect(true);
    text->setText(label);
    markers_.push_back(text);
  }
  markers_max_x_ = std::isfinite(markers_max_x_) ? std::max(markers_max_x_, x) : x;
}

void LivePlots::addCheckpointTick(double x) {
  // Checkpoints are frequent: a full line per checkpoint would hide the reconfigurations' lines.
  for (QCustomPlot* plot : {loss_plot_, time_plot_, throughput_plot_, stage_plot_}) {
    auto* tick = new QCPItemLine(plot);
    tick->setObjectName(QStringLiteral("checkpointMarker"));
    tick->setPen(QPen(QColor(0x607D8B), 2));
    for (QCPItemPosition* pos : {tick->start, tick->end}) {
      pos->setTypeX(QCPItemPosition::ptPlotCoords);
      pos->setTypeY(QCPItemPosition::ptAxisRectRatio);
    }
    tick->start->setCoords(x, 1.0);
    tick->end->setCoords(x, 0.9);
    markers_.push_back(tick);
  }
  markers_max_x_ = std::isfinite(markers_max_x_) ? std::max(markers_max_x_, x) : x;
}

void LivePlots::restartMemory(const QString& caption) {
  peak_memory_.clear();
  memory_bars_->data()->clear();
  memory_world_label_->setText(caption);
  memory_world_label_->setVisible(true);
}

void LivePlots::setTimeReference(double seconds) {
  time_reference_s_ = seconds;
  replot(time_plot_);
}

void LivePlots::replotAll() {
  replotIterationPlots();
  replotMemory();
}

void LivePlots::replotIterationPlots() {
  for (QCustomPlot* p : {loss_plot_, time_plot_, throughput_plot_, stage_plot_}) replot(p);
}

void LivePlots::replotMemory() {
  double top = 0;
  int ranks = 0;
  for (const auto& [rank, bytes] : peak_memory_) {
    top = std::max(top, static_cast<double>(bytes) / kMiB);
    ranks = std::max(ranks, rank + 1);
  }
  memory_plot_->xAxis->setRange(-0.5, std::max(ranks, 1) - 0.5);
  // Room above the bars for the caption of the world they are of.
  zeroBasedRange(memory_plot_->yAxis, memory_world_label_->visible() ? top * 1.2 : top);
  memory_plot_->replot(QCustomPlot::rpQueuedReplot);
}

void LivePlots::replot(QCustomPlot* plot) {
  double last = 0, top = kNaN, bottom = kNaN;
  for (int g = 0; g < plot->graphCount(); ++g) {
    const QCPGraph* graph = plot->graph(g);
    if (graph->data()->isEmpty()) continue;
    last = std::max(last, (graph->data()->constEnd() - 1)->key);
    const double m = graphMax(graph);
    if (std::isfinite(m)) top = std::isfinite(top) ? std::max(top, m) : m;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
      if (std::isfinite(it->value))
        bottom = std::isfinite(bottom) ? std::min(bottom, it->value) : it->value;
  }
  // The markers too: a reconfiguration's comes before the first iteration of its world.
  if (std::isfinite(markers_max_x_)) last = std::max(last, markers_max_x_);
  // A little room at both ends, so that the first and last points are not cut by the frame.
  const double span = std::max(1.0, last);
  plot->xAxis->setRange(-0.02 * span, span * 1.02);
  // Marker labels in the right half of the plot go left of their line, so that the frame does
  // not cut them.
  for (QCPAbstractItem* item : markers_) {
    auto* text = qobject_cast<QCPItemText*>(item);
    if (!text || text->parentPlot() != plot) continue;
    const bool left = text->position->key() > plot->xAxis->range().center();
    text->setPositionAlignment((left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
    text->setPadding(left ? QMargins(0, 0, 3, 0) : QMargins(3, 0, 0, 0));
  }
  if (plot == loss_plot_) {
    // Loss: the data's own range (it starts near ln 256 and falls), with a margin.
    if (std::isfinite(top)) {
      const double pad = std::max(0.05, (top - bottom) * 0.08);
      plot->yAxis->setRange(bottom - pad, top + pad);
    } else {
      plot->yAxis->setRange(0, 1);
    }
  } else {
    zeroBasedRange(plot->yAxis, top, plot == time_plot_ ? time_reference_s_ : kNaN);
  }
  plot->replot(QCustomPlot::rpQueuedReplot);
}

void LivePlots::setCell(int row, int column, const QString& text) {
  QTableWidgetItem* item = workers_->item(row, column);
  if (!item) {
    item = new QTableWidgetItem;
    if (column == ColRank || column == ColStage || column == ColReplica || column == ColTpRank ||
        column == ColPid)
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    workers_->setItem(row, column, item);
  }
  item->setText(text);
}

void LivePlots::setWorkerState(int rank, WorkerState state, const QString& detail) {
  const auto it = worker_rows_.find(rank);
  if (it == worker_rows_.end()) return;
  it->second.state = state;
  setCell(it->second.row, ColState, workerStateName(state));
  QTableWidgetItem* item = workers_->item(it->second.row, ColState);
  QColor colour;
  switch (state) {
    case WorkerState::Starting:
    case WorkerState::Ready: colour = QColor(0x6c6c6c); break;
    case WorkerState::Running: colour = QColor(0x1b5e20); break;
    case WorkerState::Finished: colour = palette().color(QPalette::Text); break;
    case WorkerState::Stopped: colour = QColor(0x8d6e00); break;
    case WorkerState::Failed: colour = QColor(0xB00020); break;
    case WorkerState::Paused: colour = QColor(0x8d6e00); break;
  }
  item->setForeground(colour);
  QFont f = workers_->font();
  f.setBold(state == WorkerState::Failed);
  item->setFont(f);
  item->setToolTip(detail);
}

void LivePlots::markReport(int rank, const QString& time) {
  const auto it = worker_rows_.find(rank);
  if (it != worker_rows_.end() && !time.isEmpty())
    setCell(it->second.row, ColLastReport, run_format::clockTime(time));
}

}  // namespace sailor::studio
