#include "run_monitor.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <initializer_list>
#include <limits>
#include <set>
#include <type_traits>
#include <variant>

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QFileDialog>
#include <QFileInfo>
#include <QFont>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "stage_palette.hpp"

namespace sailor::studio {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMiB = 1024.0 * 1024.0;

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

// "2026-11-30T13:05:00.123Z" as local wall-clock time, "14:05:00"; the text as given when it
// does not parse.
QString clockTime(const QString& iso) {
  if (iso.isEmpty()) return {};
  const QDateTime t = QDateTime::fromString(iso, Qt::ISODateWithMs);
  return t.isValid() ? t.toLocalTime().toString(QStringLiteral("HH:mm:ss")) : iso;
}

QString seconds(double s) {
  if (!std::isfinite(s)) return QStringLiteral("-");
  return s >= 10 ? QString::number(s, 'f', 1) : QString::number(s, 'g', 3);
}

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

// A phase's time: "12 ms" under a second ("3.5 ms" under 10 ms), else "1.25 s".
QString phaseTime(double s) {
  if (!std::isfinite(s)) return QStringLiteral("-");
  if (s >= 1) return QString::number(s, 'f', 2) + QStringLiteral(" s");
  const double ms = s * 1000;
  return (ms < 10 ? QString::number(ms, 'g', 2) : QString::number(std::round(ms), 'f', 0)) +
         QStringLiteral(" ms");
}

double graphMax(const QCPGraph* g) {
  double m = kNaN;
  for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
    if (std::isfinite(it->value)) m = std::isfinite(m) ? std::max(m, it->value) : it->value;
  return m;
}

}  // namespace

RunMonitor::RunMonitor(QWidget* parent) : QWidget(parent), predicted_s_(kNaN) {
  buildUi();
  clearRun();
  updateButtons();
}

RunMonitor::~RunMonitor() = default;

QString RunMonitor::workerStateName(WorkerState state) {
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

QString RunMonitor::runStatusText(sailor::RunStatus status) {
  switch (status) {
    case sailor::RunStatus::Running: return tr("running");
    case sailor::RunStatus::Finished: return tr("finished");
    case sailor::RunStatus::Failed: return tr("failed");
    case sailor::RunStatus::Stopped: return tr("stopped");
  }
  return {};
}

QString RunMonitor::causeText(const std::string& cause) {
  if (cause == "trace") return tr("trace");
  if (cause == "resize") return tr("resize");
  if (cause == "worker_lost") return tr("worker lost");
  return QString::fromStdString(cause);
}

QString RunMonitor::reconfigurationLabel(const sailor::ReconfiguredEvent& event) {
  return tr("%1\u2192%2 GPUs (%3)")
      .arg(event.old_world_size)
      .arg(event.new_world_size)
      .arg(causeText(event.cause));
}

QString RunMonitor::phasesText(const sailor::ReconfiguredEvent& event) {
  QStringList parts;
  parts << tr("re-plan %1").arg(phaseTime(event.replan_seconds));
  parts << tr("teardown %1").arg(phaseTime(event.teardown_seconds));
  // Launch is 0 unless workers joined: not worth a place in the line then.
  if (event.launch_seconds > 0) parts << tr("launch %1").arg(phaseTime(event.launch_seconds));
  parts << tr("groups %1").arg(phaseTime(event.group_setup_seconds));
  parts << tr("rebuild %1").arg(phaseTime(event.rebuild_seconds));
  parts << tr("transfer %1 (%2 MB)")
               .arg(phaseTime(event.transfer_seconds))
               .arg(QString::number(static_cast<double>(event.state_bytes) / 1e6, 'f', 1));
  parts << tr("total %1 s").arg(QString::number(event.total_seconds, 'f', 2));
  return parts.join(QStringLiteral(", "));
}

QString RunMonitor::planText(const sailor::Plan& plan) {
  QStringList stages;
  for (std::size_t i = 0; i < plan.stages.size(); ++i) {
    const sailor::Stage& st = plan.stages[i];
    stages << tr("stage %1 (layers %2-%3): %4")
                  .arg(i)
                  .arg(st.first_layer)
                  .arg(st.last_layer)
                  .arg(QString::fromStdString(st.replicaSummary()));
  }
  return tr("%n GPU(s), microbatch %1: %2", "", plan.gpuCount())
      .arg(plan.microbatch_size)
      .arg(stages.join(QStringLiteral("; ")));
}

// ---------------------------------------------------------------------------------------------
// Layout

QCustomPlot* RunMonitor::makePlot(const QString& title, const QString& x_label,
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

QHBoxLayout* RunMonitor::buildHeaderRow() {
  // Header: Start / Stop and the run options, then the one-line status.
  start_ = new QPushButton(tr("Start"), this);
  start_->setObjectName(QStringLiteral("start"));
  start_->setToolTip(tr("Run the selected plan with the bundled runtime"));
  stop_ = new QPushButton(tr("Stop"), this);
  stop_->setObjectName(QStringLiteral("stop"));
  stop_->setToolTip(
      tr("Interrupt the run: the workers are stopped and the run is recorded as "
         "stopped"));
  iterations_ = new QSpinBox(this);
  iterations_->setObjectName(QStringLiteral("iterations"));
  iterations_->setRange(1, 1000000);
  iterations_->setValue(20);
  iterations_->setToolTip(tr("Training iterations to run"));
  data_ = new QComboBox(this);
  data_->setObjectName(QStringLiteral("dataSource"));
  data_->addItem(tr("Synthetic tokens"), QStringLiteral("synthetic"));
  data_->addItem(tr("Shipped text"), QStringLiteral("text"));
  data_->setToolTip(
      tr("Training data: a learnable synthetic byte stream, or the shipped "
         "public-domain text"));
  elastic_ = new QCheckBox(tr("E&lastic (re-plan when workers are lost or GPUs change)"), this);
  elastic_->setObjectName(QStringLiteral("elastic"));
  elastic_->setToolTip(
      tr("Run with sailor run --elastic (this machine only): a lost worker, or a resize, makes "
         "the run re-plan on the GPUs left and go on in place"));
  resize_ = new QPushButton(tr("Resi&ze..."), this);
  resize_->setObjectName(QStringLiteral("resize"));
  connect(resize_, &QPushButton::clicked, this, &RunMonitor::openResizeDialog);
  auto* iterations_label = new QLabel(tr("&Iterations:"), this);
  iterations_label->setBuddy(iterations_);
  auto* data_label = new QLabel(tr("&Data:"), this);
  data_label->setBuddy(data_);
  status_ = new QLabel(this);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* header = new QHBoxLayout;
  header->addWidget(start_);
  header->addWidget(stop_);
  header->addSpacing(12);
  header->addWidget(iterations_label);
  header->addWidget(iterations_);
  header->addWidget(data_label);
  header->addWidget(data_);
  header->addWidget(elastic_);
  header->addWidget(resize_);
  header->addSpacing(12);
  header->addWidget(status_, 1);
  return header;
}

QHBoxLayout* RunMonitor::buildTargetRow() {
  // The launch target: a local rehearsal, or a Slurm cluster from its description file.
  target_ = new QComboBox(this);
  target_->setObjectName(QStringLiteral("launchTarget"));
  target_->addItem(tr("This machine"));
  target_->addItem(tr("Slurm cluster"));
  target_->addItem(tr("Export"));
  target_->setToolTip(
      tr("Where Start runs the plan: on this machine (a rehearsal on CPU processes, at most a "
         "few), or as one job on a Slurm cluster described by a cluster description file; "
         "Export writes the plan's launch files for Kubernetes, torchrun or Slurm instead"));
  cluster_file_ = new QLineEdit(this);
  cluster_file_->setObjectName(QStringLiteral("clusterFile"));
  cluster_file_->setReadOnly(true);
  cluster_file_->setPlaceholderText(tr("cluster description (JSON)"));
  choose_cluster_ = new QPushButton(tr("C&luster..."), this);
  choose_cluster_->setObjectName(QStringLiteral("chooseClusterFile"));
  choose_cluster_->setToolTip(tr("Choose the cluster description file (docs/formats.md)"));
  // No mnemonic: Alt+E opens the Edit menu, and the other letters are taken in this tab.
  edit_cluster_ = new QPushButton(tr("Edit..."), this);
  edit_cluster_->setObjectName(QStringLiteral("editClusterFile"));
  edit_cluster_->setToolTip(
      tr("Edit the cluster description: its pools' partitions, GRES types, node selectors and "
         "defaults (a new one from the scenario's pools when none is chosen)"));
  partition_ = new QLineEdit(this);
  partition_->setObjectName(QStringLiteral("partition"));
  partition_->setPlaceholderText(tr("partition (optional)"));
  partition_->setToolTip(
      tr("Submit every pool's tasks to this partition instead of the "
         "cluster description's"));
  export_format_ = new QComboBox(this);
  export_format_->setObjectName(QStringLiteral("exportFormat"));
  export_format_->addItem(tr("Kubernetes manifests"), QStringLiteral("kubernetes"));
  export_format_->addItem(tr("torchrun commands"), QStringLiteral("torchrun"));
  export_format_->addItem(tr("Slurm job script"), QStringLiteral("slurm"));
  export_format_->setToolTip(
      tr("Kubernetes: sailor.yaml (an indexed Job per pool); torchrun: hosts.txt and "
         "sailor-torchrun.sh; Slurm: sailor.sbatch (one heterogeneous job)"));
  export_dir_ = new QLineEdit(this);
  export_dir_->setObjectName(QStringLiteral("exportDir"));
  export_dir_->setPlaceholderText(tr("directory to write the files into"));
  choose_export_dir_ = new QPushButton(tr("Dire&ctory..."), this);
  choose_export_dir_->setObjectName(QStringLiteral("chooseExportDir"));
  choose_export_dir_->setToolTip(tr("Choose the directory the launch files are written into"));
  export_result_ = new QLabel(this);
  export_result_->setObjectName(QStringLiteral("exportResult"));
  export_result_->setTextFormat(Qt::PlainText);
  export_result_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  export_result_->hide();
  reattach_ = new QPushButton(tr("Re-&attach"), this);
  reattach_->setObjectName(QStringLiteral("reattach"));
  reattach_->hide();
  job_ = new QLabel(this);
  job_->setObjectName(QStringLiteral("jobState"));
  job_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  job_->hide();
  connectTargetRow();
  auto* target_row = new QHBoxLayout;
  auto* target_label = new QLabel(tr("&Target:"), this);
  target_label->setBuddy(target_);
  target_row->addWidget(target_label);
  target_row->addWidget(target_);
  target_row->addWidget(cluster_file_, 1);
  target_row->addWidget(choose_cluster_);
  target_row->addWidget(edit_cluster_);
  target_row->addWidget(partition_);
  target_row->addWidget(export_format_);
  target_row->addWidget(export_dir_, 1);
  target_row->addWidget(choose_export_dir_);
  target_row->addSpacing(12);
  target_row->addWidget(job_);
  target_row->addWidget(reattach_);
  target_row->addWidget(export_result_, 1);
  // The target's fields keep their size when the other targets' are hidden.
  target_row->addStretch(1);
  return target_row;
}

void RunMonitor::connectTargetRow() {
  connect(target_, &QComboBox::currentIndexChanged, this, [this] {
    updateButtons();
    emit launchTargetChanged(launchTarget());
  });
  connect(partition_, &QLineEdit::editingFinished, this,
          [this] { emit launchTargetChanged(launchTarget()); });
  connect(choose_cluster_, &QPushButton::clicked, this, &RunMonitor::chooseClusterFile);
  connect(edit_cluster_, &QPushButton::clicked, this, &RunMonitor::editClusterRequested);
  connect(export_format_, &QComboBox::currentIndexChanged, this,
          [this] { emit launchTargetChanged(launchTarget()); });
  connect(export_dir_, &QLineEdit::textChanged, this,
          [this] { emit launchTargetChanged(launchTarget()); });
  connect(choose_export_dir_, &QPushButton::clicked, this, &RunMonitor::chooseExportDir);
  connect(reattach_, &QPushButton::clicked, this, [this] {
    if (run_id_ != 0) emit reattachRequested(run_id_);
  });
}

void RunMonitor::buildBanners() {
  banner_ = new QLabel(this);
  banner_->setObjectName(QStringLiteral("runErrorBanner"));
  banner_->setWordWrap(true);
  banner_->setTextFormat(Qt::PlainText);
  banner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  banner_->setStyleSheet(QStringLiteral(
      "QLabel#runErrorBanner { background: #fdecea; color: #611a15; border: 1px solid #e57373;"
      " border-radius: 3px; padding: 6px; font-weight: bold; }"));
  banner_->hide();
  // The pause: amber, not red (nothing failed; the run waits for resources).
  pause_banner_ = new QLabel(this);
  pause_banner_->setObjectName(QStringLiteral("runPausedBanner"));
  pause_banner_->setWordWrap(true);
  pause_banner_->setTextFormat(Qt::PlainText);
  pause_banner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  pause_banner_->setStyleSheet(QStringLiteral(
      "QLabel#runPausedBanner { background: #fff4e5; color: #663c00; border: 1px solid #ffb74d;"
      " border-radius: 3px; padding: 6px; font-weight: bold; }"));
  pause_banner_->hide();
}

void RunMonitor::buildIterationPlots() {
  loss_plot_ = makePlot(tr("Loss"), tr("iteration"), tr("loss (nats)"));
  loss_plot_->addGraph();
  loss_plot_->graph(0)->setName(tr("loss"));
  loss_plot_->graph(0)->setPen(QPen(QColor(0x4E79A7), 2));
  loss_plot_->setToolTip(
      tr("Training loss, mean over the global batch (cross-entropy, nats per "
         "token; ln 256 = 5.55 is a uniform guess over bytes)"));

  time_plot_ = makePlot(tr("Iteration time"), tr("iteration"), tr("seconds"));
  time_plot_->addGraph();
  time_plot_->graph(0)->setName(tr("measured"));
  time_plot_->graph(0)->setPen(QPen(QColor(0xF28E2B), 2));
  time_plot_->graph(0)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
  prediction_line_ = new QCPItemStraightLine(time_plot_);
  QPen dashed(QColor(0x555555), 1.5, Qt::DashLine);
  prediction_line_->setPen(dashed);
  prediction_label_ = new QCPItemText(time_plot_);
  prediction_label_->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
  prediction_label_->position->setTypeY(QCPItemPosition::ptPlotCoords);
  prediction_label_->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
  prediction_label_->setColor(QColor(0x555555));
  prediction_label_->setClipToAxisRect(true);
  time_plot_->setToolTip(
      tr("Measured: the slowest rank's time per iteration. Dashed: the run's prediction for the "
         "hardware it runs on (the simulator on the local device's profile, sailor profile) when "
         "it recorded one. Before a run starts it is the plan's predicted iteration time on the "
         "plan's GPUs; a run without a prediction of its own (a scaled-down model on CPU "
         "processes, or a device without a profile) gets no line, since the plan's figure is "
         "for other hardware. The Prediction tab has the figures side by side."));

  throughput_plot_ = makePlot(tr("Throughput"), tr("iteration"), tr("tokens/s"));
  throughput_plot_->addGraph();
  throughput_plot_->graph(0)->setName(tr("tokens/s"));
  throughput_plot_->graph(0)->setPen(QPen(QColor(0x59A14F), 2));
  throughput_plot_->setToolTip(
      tr("Tokens trained per second: global batch x sequence length / "
         "iteration time"));
}

void RunMonitor::buildStageAndMemoryPlots() {
  stage_plot_ = makePlot(tr("Time per stage"), tr("iteration"), tr("seconds"));
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

QWidget* RunMonitor::buildPlots() {
  // Plots: loss, iteration time, throughput on top; stage times (wide) and memory below.
  buildIterationPlots();
  buildStageAndMemoryPlots();

  auto* plots = new QWidget(this);
  auto* grid = new QGridLayout(plots);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->addWidget(loss_plot_, 0, 0);
  grid->addWidget(time_plot_, 0, 1);
  grid->addWidget(throughput_plot_, 0, 2);
  grid->addWidget(stage_plot_, 1, 0, 1, 2);
  grid->addWidget(memory_plot_, 1, 2);
  return plots;
}

void RunMonitor::buildWorkersTab() {
  // Workers.
  workers_ = new QTableWidget(0, ColumnCount, this);
  workers_->setHorizontalHeaderLabels({tr("Rank"), tr("Stage"), tr("Replica"), tr("TP rank"),
                                       tr("GPU"), tr("Zone"), tr("PID"), tr("Device"), tr("State"),
                                       tr("Last iteration"), tr("Last report")});
  workers_->horizontalHeaderItem(ColLastReport)
      ->setToolTip(tr("Local time of the last event about this worker"));
  workers_->horizontalHeaderItem(ColLastIteration)
      ->setToolTip(tr("The last iteration this worker reported, and its time for it"));
  workers_->verticalHeader()->setVisible(false);
  workers_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  workers_->setSelectionBehavior(QAbstractItemView::SelectRows);
  workers_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  workers_->horizontalHeader()->setStretchLastSection(true);
}

void RunMonitor::buildLogTab() {
  // Log of warnings and errors.
  log_ = new QPlainTextEdit(this);
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(5000);
  log_->setLineWrapMode(QPlainTextEdit::NoWrap);
}

void RunMonitor::buildReconfigurationsTab() {
  // Reconfigurations and pauses of an elastic run.
  reconfigs_ = new QTreeWidget(this);
  reconfigs_->setObjectName(QStringLiteral("reconfigurations"));
  reconfigs_->setColumnCount(ReconfigColumnCount);
  reconfigs_->setHeaderLabels({tr("Iteration"), tr("Event"), tr("Cause"), tr("GPUs"),
                               tr("State from"), tr("Iterations lost"), tr("Phases / reason"),
                               tr("Plan before \u2192 after")});
  reconfigs_->setRootIsDecorated(false);
  reconfigs_->setUniformRowHeights(true);
  reconfigs_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  reconfigs_->setToolTip(
      tr("The run's changes of world: when GPUs came or went (an availability trace, a resize) "
         "or a worker was lost, the run re-planned and reconfigured its workers in place; a "
         "pause waits for resources. Hover a row for its detail and both plans."));
}

QWidget* RunMonitor::buildPastRunsTab() {
  // Past runs.
  runs_ = new QTreeWidget(this);
  runs_->setColumnCount(RunColumnCount);
  runs_->setHeaderLabels(
      {tr("ID"), tr("Name"), tr("Started"), tr("Status"), tr("Iterations"), tr("Final loss")});
  runs_->setRootIsDecorated(false);
  runs_->setUniformRowHeights(true);
  runs_->setSelectionMode(QAbstractItemView::SingleSelection);
  runs_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  runs_->setToolTip(tr("Runs recorded in the run store; double-click one to show it"));
  auto* open = new QPushButton(tr("&Open"), this);
  open->setToolTip(tr("Show the selected run's metrics and events"));
  auto* refresh = new QPushButton(tr("&Refresh"), this);
  refresh->setToolTip(tr("Read the list of runs from the run store again"));
  auto* runs_page = new QWidget(this);
  auto* runs_layout = new QVBoxLayout(runs_page);
  runs_layout->setContentsMargins(0, 0, 0, 0);
  runs_layout->addWidget(runs_);
  auto* runs_buttons = new QHBoxLayout;
  runs_buttons->addWidget(open);
  runs_buttons->addWidget(refresh);
  runs_buttons->addStretch(1);
  runs_layout->addLayout(runs_buttons);

  connect(refresh, &QPushButton::clicked, this, &RunMonitor::refreshRunsRequested);
  auto reopen = [this](QTreeWidgetItem* item) {
    if (item) emit reopenRequested(item->data(RunColId, Qt::UserRole).toLongLong());
  };
  connect(runs_, &QTreeWidget::itemActivated, this,
          [reopen](QTreeWidgetItem* item, int) { reopen(item); });
  connect(open, &QPushButton::clicked, this, [this, reopen] { reopen(runs_->currentItem()); });
  connect(runs_, &QTreeWidget::currentItemChanged, open,
          [open](QTreeWidgetItem* current) { open->setEnabled(current != nullptr); });
  open->setEnabled(false);
  return runs_page;
}

QWidget* RunMonitor::buildPredictionTab() {
  auto* prediction_page = new QWidget(this);
  auto* prediction_layout = new QVBoxLayout(prediction_page);
  prediction_layout->setContentsMargins(0, 0, 0, 0);
  comparison_note_ = new QLabel(prediction_page);
  comparison_note_->setWordWrap(true);
  comparison_note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  comparison_ = new QTableWidget(0, 4, prediction_page);
  comparison_->setObjectName(QStringLiteral("predictionComparison"));
  comparison_->setHorizontalHeaderLabels(
      {tr("Quantity"), tr("Predicted"), tr("Measured"), tr("Error")});
  comparison_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  comparison_->verticalHeader()->hide();
  comparison_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  comparison_->setToolTip(
      tr("The run's prediction for the hardware it runs on (the local device's profile) against "
         "what it measured: medians of the iterations after warm-up (the first 2). Compute: the "
         "stage's slowest rank's forward, backward and optimizer (tensor-parallel all-reduces "
         "included); communication: the rest of its iteration (transfers, data-parallel sync, "
         "waiting)."));
  prediction_layout->addWidget(comparison_note_);
  prediction_layout->addWidget(comparison_);
  return prediction_page;
}

void RunMonitor::buildTabs() {
  buildWorkersTab();
  buildLogTab();
  buildReconfigurationsTab();
  QWidget* runs_page = buildPastRunsTab();
  QWidget* prediction_page = buildPredictionTab();

  tabs_ = new QTabWidget(this);
  tabs_->addTab(workers_, tr("Workers"));
  tabs_->addTab(log_, tr("Log"));
  tabs_->addTab(prediction_page, tr("Prediction"));
  tabs_->addTab(reconfigs_, tr("Reconfigurations"));
  tabs_->addTab(runs_page, tr("Past runs"));
}

void RunMonitor::buildUi() {
  QHBoxLayout* header = buildHeaderRow();
  QHBoxLayout* target_row = buildTargetRow();
  buildBanners();
  QWidget* plots = buildPlots();
  buildTabs();

  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(plots);
  splitter->addWidget(tabs_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(header);
  layout->addLayout(target_row);
  layout->addWidget(banner_);
  layout->addWidget(pause_banner_);
  layout->addWidget(splitter, 1);

  connect(start_, &QPushButton::clicked, this, [this] {
    if (target_->currentIndex() == static_cast<int>(LaunchKind::Export))
      emit exportRequested(launchTarget());
    else emit startRequested(iterationsRequested(), dataSource());
  });
  connect(stop_, &QPushButton::clicked, this, &RunMonitor::stopRequested);
}

// ---------------------------------------------------------------------------------------------
// State for the studio and tests

std::optional<RunMonitor::WorkerState> RunMonitor::workerState(int rank) const {
  const auto it = worker_rows_.find(rank);
  if (it == worker_rows_.end()) return std::nullopt;
  return it->second.state;
}

bool RunMonitor::errorShown() const {
  return !banner_->isHidden();
}

QString RunMonitor::errorText() const {
  return banner_->isHidden() ? QString() : banner_->text();
}

bool RunMonitor::pausedShown() const {
  return !pause_banner_->isHidden();
}

QString RunMonitor::pausedText() const {
  return pause_banner_->isHidden() ? QString() : pause_banner_->text();
}

QString RunMonitor::statusText() const {
  return status_->text();
}

int RunMonitor::iterationsRequested() const {
  return iterations_->value();
}

QString RunMonitor::dataSource() const {
  return data_->currentData().toString();
}

// ---------------------------------------------------------------------------------------------
// Controls

void RunMonitor::setRunning(bool running) {
  running_ = running;
  updateButtons();
}

void RunMonitor::setStartAvailable(bool available, const QString& reason) {
  start_available_ = available;
  start_unavailable_reason_ = reason;
  updateButtons();
}

void RunMonitor::updateButtons() {
  const bool exporting = target_->currentIndex() == static_cast<int>(LaunchKind::Export);
  start_->setText(exporting ? tr("Export") : tr("Start"));
  start_->setEnabled(!running_ && start_available_);
  start_->setToolTip(!start_available_ && !start_unavailable_reason_.isEmpty()
                         ? start_unavailable_reason_
                     : exporting ? tr("Write the selected plan's launch files into the directory")
                                 : tr("Run the selected plan with the bundled runtime"));
  stop_->setEnabled(running_);
  const bool local = target_->currentIndex() == static_cast<int>(LaunchKind::Local);
  elastic_->setEnabled(!running_ && local);
  resize_->setEnabled(resizeOffered());
  resize_->setToolTip(
      resizeOffered() ? tr("Tell the run how many GPUs it has now: it re-plans and goes on")
      : !resize_unavailable_reason_.isEmpty() && running_ ? resize_unavailable_reason_
                                                          : tr("Only an elastic run of this "
                                                               "machine that is running can be "
                                                               "resized"));
  iterations_->setEnabled(!running_);
  data_->setEnabled(!running_);
  target_->setEnabled(!running_);
  updateTarget();
}

bool RunMonitor::elasticRequested() const {
  return elastic_->isChecked() && target_->currentIndex() == static_cast<int>(LaunchKind::Local);
}

sailor::Plan RunMonitor::currentPlan() const {
  if (!reconfigurations_.empty()) return reconfigurations_.back().new_plan;
  return started_ ? started_->plan : sailor::Plan{};
}

std::vector<GpuSite> RunMonitor::resizeSites() const {
  return ResizeDialog::sitesOf(currentPlan(), resize_pools_);
}

bool RunMonitor::resizeOffered() const {
  return resizable_ && running_ && started_ && !finished_ && !stored_;
}

void RunMonitor::setResizable(bool resizable, const std::vector<sailor::Pool>& pools,
                              const QString& reason) {
  resizable_ = resizable;
  resize_pools_ = pools;
  resize_unavailable_reason_ = reason;
  if (!resizeOffered() && resize_dialog_) resize_dialog_->reject();
  updateButtons();
}

void RunMonitor::openResizeDialog() {
  if (!resizeOffered()) return;
  if (resize_dialog_) {
    resize_dialog_->raise();
    return;
  }
  // Non-modal for the event loop (open(), not exec()): the run's events keep coming while the
  // user chooses, and the dialog is closed if the run ends first.
  resize_dialog_ = new ResizeDialog(run_id_, resizeSites(), this);
  resize_dialog_->setAttribute(Qt::WA_DeleteOnClose);
  const qint64 id = run_id_;
  connect(resize_dialog_, &QDialog::accepted, this, [this, id] {
    if (resize_dialog_ && run_id_ == id && resizeOffered())
      emit resizeRequested(id, resize_dialog_->chosen());
  });
  resize_dialog_->open();
}

void RunMonitor::showResizeResult(const QString& message, bool failed) {
  appendLog(QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs), message);
  if (failed) showBanner(message, {});
}

LaunchTarget RunMonitor::launchTarget() const {
  LaunchTarget t;
  t.kind = static_cast<LaunchKind>(std::clamp(target_->currentIndex(), 0, 2));
  t.cluster_file = cluster_file_->text();
  t.partition = partition_->text().trimmed();
  t.export_format = export_format_->currentData().toString();
  t.export_dir = export_dir_->text().trimmed();
  return t;
}

void RunMonitor::setLaunchTarget(const LaunchTarget& target) {
  const QSignalBlocker block(target_);
  const QSignalBlocker block_format(export_format_);
  const QSignalBlocker block_dir(export_dir_);
  target_->setCurrentIndex(static_cast<int>(target.kind));
  cluster_file_->setText(target.cluster_file);
  cluster_file_->setToolTip(target.cluster_file);
  partition_->setText(target.partition);
  const int format = export_format_->findData(target.export_format);
  if (format >= 0) export_format_->setCurrentIndex(format);
  export_dir_->setText(target.export_dir);
  updateButtons();
}

void RunMonitor::showExportResult(const QString& message, bool failed) {
  export_failed_ = failed;
  // One line: a message of several lines (an OS error) would push the plots down.
  QString line = message;
  line.replace(QLatin1Char('\n'), QLatin1Char(' '));
  export_result_->setText(line);
  export_result_->setToolTip(line);
  export_result_->setStyleSheet(failed ? QStringLiteral("color: #b00020; font-weight: bold;")
                                       : QStringLiteral("color: #1b5e20;"));
  export_result_->setVisible(!line.isEmpty());
}

QString RunMonitor::exportResultText() const {
  return export_result_->isHidden() ? QString() : export_result_->text();
}

void RunMonitor::setReattachable(bool reattachable, const QString& reason) {
  reattach_->setVisible(reattachable);
  reattach_->setEnabled(reattachable && !running_);
  reattach_->setToolTip(reason);
}

bool RunMonitor::reattachOffered() const {
  return !reattach_->isHidden() && reattach_->isEnabled();
}

void RunMonitor::followStoredRun() {
  stored_ = false;
  finished_.reset();
  setReattachable(false);
  updateStatus();
}

// Each target's own fields only: the cluster's for a Slurm run (the cluster description also for
// Export, which maps pools through it), the format and directory for Export; none while a run
// goes.
void RunMonitor::updateTarget() {
  const auto kind = static_cast<LaunchKind>(std::clamp(target_->currentIndex(), 0, 2));
  const bool cluster = kind == LaunchKind::Cluster;
  const bool exporting = kind == LaunchKind::Export;
  cluster_file_->setPlaceholderText(exporting ? tr("default cluster description")
                                              : tr("cluster description (JSON)"));
  for (QWidget* w :
       std::initializer_list<QWidget*>{cluster_file_, choose_cluster_, edit_cluster_}) {
    w->setVisible(cluster || exporting);
    w->setEnabled(!running_);
  }
  partition_->setVisible(cluster);
  partition_->setEnabled(!running_);
  for (QWidget* w :
       std::initializer_list<QWidget*>{export_format_, export_dir_, choose_export_dir_}) {
    w->setVisible(exporting);
    w->setEnabled(!running_);
  }
  if (!exporting) export_result_->hide();
}

void RunMonitor::chooseExportDir() {
  const QString path = QFileDialog::getExistingDirectory(this, tr("Export the launch files to"),
                                                         export_dir_->text());
  if (path.isEmpty()) return;
  export_dir_->setText(QFileInfo(path).absoluteFilePath());
}

void RunMonitor::chooseClusterFile() {
  const QString start =
      cluster_file_->text().isEmpty() ? QString() : QFileInfo(cluster_file_->text()).absolutePath();
  const QString path = QFileDialog::getOpenFileName(this, tr("Cluster description"), start,
                                                    tr("Cluster descriptions (*.json)"));
  if (path.isEmpty()) return;
  cluster_file_->setText(QFileInfo(path).absoluteFilePath());
  cluster_file_->setToolTip(cluster_file_->text());
  emit launchTargetChanged(launchTarget());
}

// ---------------------------------------------------------------------------------------------
// The run shown

void RunMonitor::clearRun() {
  run_id_ = 0;
  started_.reset();
  last_iteration_.reset();
  measured_.clear();
  finished_.reset();
  stored_ = false;
  job_launcher_.clear();
  job_id_.clear();
  job_state_.clear();
  job_reason_.clear();
  job_states_seen_.clear();
  job_->clear();
  job_->hide();
  setReattachable(false);
  setResizable(false);
  worker_rows_.clear();
  peak_memory_.clear();
  for (QCustomPlot* p : {loss_plot_, time_plot_, throughput_plot_}) p->graph(0)->data()->clear();
  stage_plot_->clearGraphs();
  stage_graphs_ = 0;
  memory_bars_->data()->clear();
  for (QCPAbstractItem* item : markers_) item->parentPlot()->removeItem(item);
  markers_.clear();
  markers_max_x_ = kNaN;
  reconfiguration_labels_ = 0;
  memory_world_label_->setVisible(false);
  reconfigurations_.clear();
  reconfigs_->clear();
  paused_.reset();
  pause_banner_->clear();
  pause_banner_->hide();
  generation_ = -1;
  joiners_.clear();
  workers_->setRowCount(0);
  log_->clear();
  banner_->clear();
  banner_->setToolTip({});
  banner_->hide();
  for (QCustomPlot* p : {loss_plot_, time_plot_, throughput_plot_, stage_plot_, memory_plot_})
    replot(p, p == time_plot_);
  updatePrediction();
  updateComparison();
  updateStatus();
}

void RunMonitor::applyEvent(const sailor::RunEvent& event) {
  const QString time = QString::fromStdString(event.time);
  std::visit(Overloaded{
                 [&](const sailor::RunStartedEvent& e) { onRunStarted(event.run_id, e); },
                 [&](const sailor::RunWarningEvent& e) { onWarning(e, time); },
                 [&](const sailor::WorkersStartedEvent& e) { onWorkersStarted(e, time); },
                 [&](const sailor::WorkersReadyEvent& e) { onWorkersReady(e, time); },
                 [&](const sailor::IterationEvent& e) { onIteration(e, time); },
                 [&](const sailor::RunErrorEvent& e) { onError(e, time); },
                 [&](const sailor::RunFinishedEvent& e) { onFinished(e, time); },
                 [&](const sailor::JobStateEvent& e) { onJobState(e, time); },
                 [&](const sailor::CheckpointEvent& e) { onCheckpoint(e, time); },
                 [&](const sailor::ResumedEvent& e) { onResumed(e, time); },
                 [&](const sailor::ReconfiguredEvent& e) { onReconfigured(e, time); },
                 [&](const sailor::PausedEvent& e) { onPaused(e, time); },
             },
             event.body);
}

void RunMonitor::onRunStarted(std::int64_t run_id, const sailor::RunStartedEvent& event) {
  const bool stored = stored_;
  clearRun();
  stored_ = stored;
  run_id_ = run_id;
  started_ = event;
  updateButtons();
  // The training settings the workers apply: master dtype, compute precision, optimizer,
  // recomputation.
  QStringList training{QString::fromStdString(event.dtype)};
  if (event.precision == sailor::Precision::Bf16) training << tr("bf16 compute");
  training << (event.optimizer == sailor::Optimizer::Sgd ? tr("SGD with momentum") : tr("AdamW"));
  if (event.recompute == sailor::Recompute::Full) training << tr("activations recomputed");
  appendLog({}, tr("Run %1 (%2): %3 processes, %4 iterations, %5 data, %6; model %7 scaled to "
                   "hidden %8, sequence %9")
                    .arg(run_id)
                    .arg(QString::fromStdString(event.name))
                    .arg(event.world_size)
                    .arg(event.iterations)
                    .arg(QString::fromStdString(event.data))
                    .arg(training.join(QStringLiteral(", ")))
                    .arg(QString::fromStdString(event.model.name))
                    .arg(event.model.hidden_size)
                    .arg(event.model.sequence_length));
  if (event.prediction)
    appendLog({}, tr("Prediction %1: %2 s per iteration")
                      .arg(QString::fromStdString(event.prediction->label()))
                      .arg(seconds(event.prediction->iteration_seconds)));
  else if (!event.prediction_note.empty())
    appendLog({}, QString::fromStdString(event.prediction_note));
  ensureStageGraphs(static_cast<int>(event.plan.stages.size()));
  updatePrediction();
  updateComparison();
  replot(time_plot_, true);
  updateStatus();
}

void RunMonitor::onWarning(const sailor::RunWarningEvent& event, const QString& time) {
  if (event.rank) {
    appendLog(time, tr("rank %1: %2").arg(*event.rank).arg(QString::fromStdString(event.message)));
    markReport(*event.rank, time);
  } else {
    appendLog(time, tr("warning: %1").arg(QString::fromStdString(event.message)));
  }
}

void RunMonitor::onWorkersStarted(const sailor::WorkersStartedEvent& event, const QString& time) {
  if (generation_ >= 0 && event.generation > generation_) {
    // Workers joining a reconfigured world, launched before its reconfigured event: their pids
    // wait for that event, which lays out the new world's rows.
    auto& joining = joiners_[event.generation];
    for (const sailor::RunWorker& w : event.workers) joining[w.place.rank] = w;
    appendLog(time, tr("%n worker process(es) joining (generation %1)", "",
                       static_cast<int>(event.workers.size()))
                        .arg(event.generation));
    return;
  }
  if (event.generation > 0 && event.generation == generation_) {
    // After the reconfigured event: the listed workers' rows get their pids.
    for (const sailor::RunWorker& w : event.workers) {
      const auto it = worker_rows_.find(w.place.rank);
      if (it == worker_rows_.end()) continue;
      setCell(it->second.row, ColPid, w.pid > 0 ? QString::number(w.pid) : QStringLiteral("-"));
      markReport(w.place.rank, time);
    }
    appendLog(time, tr("%n worker process(es) joining (generation %1)", "",
                       static_cast<int>(event.workers.size()))
                        .arg(event.generation));
    return;
  }
  generation_ = event.generation;
  fillWorkerRows(event.workers, WorkerState::Starting, time);
  appendLog(time, tr("%n worker process(es) started", "", static_cast<int>(event.workers.size())));
  updateStatus();
}

// The workers table as `workers` (any order), every row in `state`; pid 0 shows as "-".
void RunMonitor::fillWorkerRows(const std::vector<sailor::RunWorker>& workers, WorkerState state,
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
    setCell(row, ColLastReport, clockTime(time));
    setWorkerState(w.place.rank, state);
    workers_->item(row, ColStage)->setForeground(stagePalette(w.place.stage).darker(120));
  }
}

void RunMonitor::onWorkersReady(const sailor::WorkersReadyEvent& event, const QString& time) {
  for (auto& [rank, w] : worker_rows_) {
    if (rank >= 0 && static_cast<std::size_t>(rank) < event.devices.size())
      setCell(w.row, ColDevice,
              QString::fromStdString(event.devices[static_cast<std::size_t>(rank)]));
    if (w.state == WorkerState::Starting) setWorkerState(rank, WorkerState::Ready);
    markReport(rank, time);
  }
  appendLog(time, tr("workers ready (%1) after %2 s")
                      .arg(QString::fromStdString(event.backend))
                      .arg(seconds(event.startup_seconds)));
  updateStatus();
}

void RunMonitor::ensureStageGraphs(int stages) {
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

void RunMonitor::onIteration(const sailor::IterationEvent& event, const QString& time) {
  const double x = event.iteration;
  measured_.push_back(event);
  updateComparison();
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
            tr("%1 (%2 s)").arg(event.iteration).arg(seconds(r.seconds)));
    markReport(r.rank, time);
  }
  memory_bars_->data()->clear();
  for (const auto& [rank, bytes] : peak_memory_)
    memory_bars_->addData(rank, static_cast<double>(bytes) / kMiB);

  last_iteration_ = event;
  for (QCustomPlot* p : {loss_plot_, time_plot_, throughput_plot_, stage_plot_, memory_plot_})
    replot(p, p == time_plot_);
  updateStatus();
}

void RunMonitor::onError(const sailor::RunErrorEvent& event, const QString& time) {
  const QString message = QString::fromStdString(event.message);
  QString text;
  if (event.rank) {
    text = tr("Rank %1 failed (stage %2, replica %3, tp rank %4): %5")
               .arg(*event.rank)
               .arg(event.stage.value_or(-1))
               .arg(event.replica.value_or(-1))
               .arg(event.tp_rank.value_or(-1))
               .arg(message);
    setWorkerState(*event.rank, WorkerState::Failed, message);
    markReport(*event.rank, time);
  } else {
    text = tr("The run failed: %1").arg(message);
  }
  QStringList tail;
  for (const std::string& l : event.stderr_tail) tail.append(QString::fromStdString(l));
  showBanner(text,
             tail.isEmpty() ? QString() : tr("Last lines of its stderr:\n%1").arg(tail.join('\n')));
  appendLog(time, tr("error: %1").arg(message));
  for (const QString& l : tail) appendLog(time, QStringLiteral("  | ") + l);
  updateStatus();
}

void RunMonitor::onFinished(const sailor::RunFinishedEvent& event, const QString& time) {
  finished_ = event;
  hidePause();
  updateButtons();
  const WorkerState end =
      event.status == sailor::RunStatus::Finished ? WorkerState::Finished : WorkerState::Stopped;
  for (auto& [rank, w] : worker_rows_)
    if (w.state != WorkerState::Failed) setWorkerState(rank, end);
  if (event.status == sailor::RunStatus::Failed && banner_->isHidden())
    showBanner(tr("The run failed: %1").arg(QString::fromStdString(event.error)), {});
  appendLog(time, tr("run %1 after %n iteration(s), %2 s", "", event.iterations_done)
                      .arg(runStatusText(event.status))
                      .arg(seconds(event.seconds)));
  updateStatus();
}

void RunMonitor::onJobState(const sailor::JobStateEvent& event, const QString& time) {
  job_launcher_ = QString::fromStdString(event.launcher);
  job_id_ = QString::fromStdString(event.job_id);
  job_state_ = QString::fromStdString(event.state);
  job_reason_ = QString::fromStdString(event.reason);
  if (job_states_seen_.isEmpty() || job_states_seen_.back() != job_state_)
    job_states_seen_ << job_state_;
  job_->setText(jobText());
  job_->setToolTip(event.run_dir.empty()
                       ? QString()
                       : tr("Run directory: %1").arg(QString::fromStdString(event.run_dir)));
  job_->show();
  QString line = tr("%1 job %2: %3").arg(job_launcher_, job_id_, job_state_);
  if (!job_reason_.isEmpty()) line += QStringLiteral(" (%1)").arg(job_reason_);
  if (!event.run_dir.empty())
    line += tr(", run directory %1").arg(QString::fromStdString(event.run_dir));
  appendLog(time, line);
}

// ---------------------------------------------------------------------------------------------
// Elasticity: reconfigurations, pauses, checkpoints, resumes

void RunMonitor::addIterationMarker(double x, const QString& label, const QColor& colour,
                                    Qt::PenStyle style, const QString& object_name) {
  // Labels at three heights in turn, so that close reconfigurations stay readable.
  const double label_y = 0.02 + 0.1 * (reconfiguration_labels_ % 3);
  if (!label.isEmpty()) ++reconfiguration_labels_;
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

void RunMonitor::dropIterationsFrom(int first) {
  const double before = first - 0.5;
  for (QCustomPlot* p : {loss_plot_, time_plot_, throughput_plot_})
    p->graph(0)->data()->removeAfter(before);
  for (int g = 0; g < stage_plot_->graphCount(); ++g)
    stage_plot_->graph(g)->data()->removeAfter(before);
  if (last_iteration_ && last_iteration_->iteration >= first) last_iteration_.reset();
  std::erase_if(measured_,
                [first](const sailor::IterationEvent& it) { return it.iteration >= first; });
  updateComparison();
}

void RunMonitor::hidePause() {
  paused_.reset();
  pause_banner_->clear();
  pause_banner_->hide();
}

void RunMonitor::onCheckpoint(const sailor::CheckpointEvent& event, const QString& time) {
  // A short tick at the bottom of each iteration plot: checkpoints are frequent, and a full line
  // per checkpoint would hide the reconfigurations' lines.
  const double x = event.iteration;
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
  QString line = tr("checkpoint of iteration %1: %n shard(s), %2 MB in %3 s (%4)", "", event.shards)
                     .arg(event.iteration)
                     .arg(QString::number(static_cast<double>(event.bytes) / 1e6, 'f', 1))
                     .arg(seconds(event.write_seconds))
                     .arg(QString::fromStdString(event.directory));
  if (!event.removed.empty()) {
    QStringList removed;
    for (int r : event.removed) removed << QString::number(r);
    line +=
        tr("; removed the checkpoints of iterations %1").arg(removed.join(QStringLiteral(", ")));
  }
  appendLog(time, line);
  for (QCustomPlot* p : {loss_plot_, time_plot_, throughput_plot_, stage_plot_})
    replot(p, p == time_plot_);
}

void RunMonitor::onResumed(const sailor::ResumedEvent& event, const QString& time) {
  // The run goes on in the same record: what the stopped run showed stays, but the iterations
  // after the checkpoint are trained again.
  finished_.reset();
  banner_->hide();
  hidePause();
  generation_ = -1;  // the restarted workers' world, whatever generation it counts from
  joiners_.clear();
  dropIterationsFrom(event.from_iteration);
  if (started_) started_->iterations = event.iterations;
  addIterationMarker(event.from_iteration,
                     tr("resumed from iteration %1").arg(event.from_iteration - 1),
                     QColor(0x2E7D32), Qt::DashLine, QStringLiteral("resumeMarker"));
  appendLog(time, tr("resumed at iteration %1 from %2 (%n stored iteration(s) discarded)", "",
                     event.iterations_discarded)
                      .arg(event.from_iteration)
                      .arg(QString::fromStdString(event.checkpoint)));
  for (QCustomPlot* p : {loss_plot_, time_plot_, throughput_plot_, stage_plot_})
    replot(p, p == time_plot_);
  updateStatus();
}

void RunMonitor::onReconfigured(const sailor::ReconfiguredEvent& event, const QString& time) {
  reconfigurations_.push_back(event);
  hidePause();
  updateButtons();
  const QString label = reconfigurationLabel(event);
  const QString phases = phasesText(event);
  const QString detail = QString::fromStdString(event.detail);
  const QString source = event.state_source == "checkpoint" ? tr("checkpoint") : tr("peers");
  const QString old_plan = planText(event.old_plan);
  const QString new_plan = planText(event.new_plan);

  // State restored from a checkpoint: the iterations since are trained again.
  if (event.iterations_lost > 0) dropIterationsFrom(event.from_iteration);
  addIterationMarker(event.from_iteration, label, QColor(0x7B1FA2), Qt::DashDotLine,
                     QStringLiteral("reconfigurationMarker"));

  // The new world's workers: their places from the new plan (the runtime's rank numbering), the
  // pids of those that joined when a workers_started event of this generation listed them.
  std::vector<sailor::RunWorker> world;
  const auto joining = joiners_.find(event.generation);
  for (const sailor::RankPlacement& place : sailor::placeRanks(event.new_plan)) {
    sailor::RunWorker w;
    w.place = place;
    if (joining != joiners_.end()) {
      const auto it = joining->second.find(place.rank);
      if (it != joining->second.end()) w.pid = it->second.pid;
    }
    world.push_back(w);
  }
  generation_ = event.generation;
  fillWorkerRows(world, WorkerState::Ready, time);
  ensureStageGraphs(static_cast<int>(event.new_plan.stages.size()));
  // The memory bars are per rank: the new world's ranks start afresh.
  peak_memory_.clear();
  memory_bars_->data()->clear();
  memory_world_label_->setText(tr("since iteration %1: %2").arg(event.from_iteration).arg(label));
  memory_world_label_->setVisible(true);

  auto* row = new QTreeWidgetItem(reconfigs_);
  row->setText(ReconfigColIteration, QString::number(event.from_iteration));
  row->setTextAlignment(ReconfigColIteration, Qt::AlignRight | Qt::AlignVCenter);
  row->setText(ReconfigColEvent, tr("reconfigured"));
  row->setText(ReconfigColCause, causeText(event.cause));
  row->setText(ReconfigColGpus,
               QStringLiteral("%1\u2192%2").arg(event.old_world_size).arg(event.new_world_size));
  row->setText(ReconfigColStateSource, source);
  row->setText(ReconfigColLost, QString::number(event.iterations_lost));
  row->setTextAlignment(ReconfigColLost, Qt::AlignRight | Qt::AlignVCenter);
  row->setText(ReconfigColPhases, phases);
  const auto plan_size = [](const sailor::Plan& plan) {
    return tr("%n GPU(s)", "", plan.gpuCount()) + QLatin1Char(' ') +
           tr("in %n stage(s)", "", static_cast<int>(plan.stages.size()));
  };
  row->setText(ReconfigColPlans,
               plan_size(event.old_plan) + QStringLiteral(" \u2192 ") + plan_size(event.new_plan));
  const QString tip = tr("%1\nGeneration %2, from iteration %3.\nBefore: %4\nAfter: %5\n%6")
                          .arg(detail)
                          .arg(event.generation)
                          .arg(event.from_iteration)
                          .arg(old_plan, new_plan, phases);
  for (int c = 0; c < ReconfigColumnCount; ++c) row->setToolTip(c, tip);

  appendLog(time, tr("reconfigured at iteration %1: %2: %3; state from %4, %n iteration(s) lost",
                     "", event.iterations_lost)
                      .arg(event.from_iteration)
                      .arg(label, detail, source));
  appendLog(time, QStringLiteral("  ") + phases);
  appendLog(time, QStringLiteral("  ") + tr("plan before: %1").arg(old_plan));
  appendLog(time, QStringLiteral("  ") + tr("plan after: %1").arg(new_plan));
  for (QCustomPlot* p : {loss_plot_, time_plot_, throughput_plot_, stage_plot_, memory_plot_})
    replot(p, p == time_plot_);
  updateStatus();
}

void RunMonitor::onPaused(const sailor::PausedEvent& event, const QString& time) {
  paused_ = event;
  const QString reason = QString::fromStdString(event.reason);
  pause_banner_->setText(tr("Paused: waiting for resources: %1").arg(reason));
  pause_banner_->setToolTip(
      tr("Cause: %1. The workers keep their state; the run goes on at iteration %2 when enough "
         "resources return (a reconfiguration follows).")
          .arg(causeText(event.cause))
          .arg(event.iteration));
  pause_banner_->show();
  for (auto& [rank, w] : worker_rows_)
    if (w.state != WorkerState::Failed) setWorkerState(rank, WorkerState::Paused, reason);

  auto* row = new QTreeWidgetItem(reconfigs_);
  row->setText(ReconfigColIteration, QString::number(event.iteration));
  row->setTextAlignment(ReconfigColIteration, Qt::AlignRight | Qt::AlignVCenter);
  row->setText(ReconfigColEvent, tr("paused"));
  row->setText(ReconfigColCause, causeText(event.cause));
  row->setText(ReconfigColPhases, reason);
  for (int c = 0; c < ReconfigColumnCount; ++c) row->setToolTip(c, reason);

  appendLog(time, tr("paused before iteration %1 (%2): waiting for resources: %3")
                      .arg(event.iteration)
                      .arg(causeText(event.cause), reason));
  updateStatus();
}

QString RunMonitor::jobText() const {
  if (job_id_.isEmpty()) return {};
  const QString launcher = job_launcher_ == QLatin1String("slurm") ? tr("Slurm") : job_launcher_;
  QString text = tr("%1 job %2: %3").arg(launcher, job_id_, job_state_);
  if (!job_reason_.isEmpty()) text += QStringLiteral(" (%1)").arg(job_reason_);
  return text;
}

void RunMonitor::showFailure(const QString& message) {
  showBanner(message, {});
  appendLog(QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs), message);
}

// ---------------------------------------------------------------------------------------------
// Stored runs

void RunMonitor::setPastRuns(const std::vector<sailor::RunListEntry>& runs) {
  const qint64 selected =
      runs_->currentItem() ? runs_->currentItem()->data(RunColId, Qt::UserRole).toLongLong() : 0;
  runs_->clear();
  for (const sailor::RunListEntry& e : runs) {
    auto* item = new QTreeWidgetItem(runs_);
    const sailor::RunRecord& r = e.run;
    item->setData(RunColId, Qt::UserRole, static_cast<qint64>(r.id));
    item->setText(RunColId, QString::number(r.id));
    item->setTextAlignment(RunColId, Qt::AlignRight | Qt::AlignVCenter);
    item->setText(RunColName, QString::fromStdString(r.name));
    const QDateTime started =
        QDateTime::fromString(QString::fromStdString(r.started_at), Qt::ISODateWithMs);
    item->setText(RunColStarted, started.isValid() ? QLocale().toString(started.toLocalTime(),
                                                                        QLocale::ShortFormat)
                                                   : QString::fromStdString(r.started_at));
    item->setText(RunColStatus, runStatusText(r.status));
    if (!r.error.empty()) item->setToolTip(RunColStatus, QString::fromStdString(r.error));
    if (r.status == sailor::RunStatus::Failed) item->setForeground(RunColStatus, QColor(0xB00020));
    item->setText(RunColIterations,
                  tr("%1 of %2").arg(r.iterations_done).arg(r.iterations_planned));
    item->setTextAlignment(RunColIterations, Qt::AlignRight | Qt::AlignVCenter);
    item->setText(RunColFinalLoss,
                  e.final_loss ? QString::number(*e.final_loss, 'f', 4) : QStringLiteral("-"));
    item->setTextAlignment(RunColFinalLoss, Qt::AlignRight | Qt::AlignVCenter);
    if (r.id == selected) runs_->setCurrentItem(item);
  }
}

void RunMonitor::showRun(const sailor::RunRecord& run,
                         const std::vector<sailor::IterationRecord>& iterations,
                         const std::vector<sailor::EventRecord>& events) {
  clearRun();
  stored_ = true;
  run_id_ = run.id;
  std::set<int> seen;  // iterations shown from their events
  for (const sailor::EventRecord& rec : events) {
    try {
      const sailor::RunEvent e = sailor::runEventFromJson(rec.payload);
      if (const auto* it = e.as<sailor::IterationEvent>()) seen.insert(it->iteration);
      applyEvent(e);
      stored_ = true;  // run_started clears the run shown
      run_id_ = run.id;
    } catch (const std::exception& err) {
      appendLog(QString::fromStdString(rec.time), tr("stored event %1 (%2) could not be read: %3")
                                                      .arg(rec.seq)
                                                      .arg(QString::fromStdString(rec.kind))
                                                      .arg(QString::fromUtf8(err.what())));
    }
  }
  for (const sailor::IterationRecord& rec : iterations) {
    if (seen.count(rec.iteration)) continue;
    try {
      onIteration(sailor::iterationFromRecord(rec), {});
    } catch (const std::exception& err) {
      appendLog({}, tr("stored iteration %1 could not be read: %2")
                        .arg(rec.iteration)
                        .arg(QString::fromUtf8(err.what())));
    }
  }
  if (!finished_ && run.status != sailor::RunStatus::Running) {
    sailor::RunFinishedEvent f;
    f.status = run.status;
    f.iterations_done = run.iterations_done;
    f.seconds = kNaN;
    f.error = run.error;
    onFinished(f, QString::fromStdString(run.finished_at));
  }
  if (job_id_.isEmpty() && !run.job_id.empty()) {
    // A cluster run whose job_state events were not stored: its job id from the record.
    job_launcher_ = QString::fromStdString(run.launcher);
    job_id_ = QString::fromStdString(run.job_id);
    job_state_ = tr("state unknown");
    job_->setText(jobText());
    job_->show();
  }
  if (!started_) {
    // No run_started event: the header from the record.
    sailor::RunStartedEvent s;
    s.name = run.name;
    s.world_size = run.world_size;
    s.iterations = run.iterations_planned;
    started_ = s;
  }
  updateStatus();
}

// ---------------------------------------------------------------------------------------------
// Drawing helpers

void RunMonitor::replot(QCustomPlot* plot, bool include_prediction) {
  if (plot == memory_plot_) {
    double top = 0;
    int ranks = 0;
    for (const auto& [rank, bytes] : peak_memory_) {
      top = std::max(top, static_cast<double>(bytes) / kMiB);
      ranks = std::max(ranks, rank + 1);
    }
    plot->xAxis->setRange(-0.5, std::max(ranks, 1) - 0.5);
    // Room above the bars for the caption of the world they are of.
    zeroBasedRange(plot->yAxis, memory_world_label_->visible() ? top * 1.2 : top);
  } else {
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
      zeroBasedRange(plot->yAxis, top, include_prediction ? shownPredictionSeconds() : kNaN);
    }
  }
  plot->replot(QCustomPlot::rpQueuedReplot);
}

void RunMonitor::setPredictedIterationSeconds(double s) {
  predicted_s_ = std::isfinite(s) && s > 0 ? s : kNaN;
  updatePrediction();
  replot(time_plot_, true);
}

double RunMonitor::shownPredictionSeconds() const {
  if (started_) return started_->prediction ? started_->prediction->iteration_seconds : kNaN;
  return predicted_s_;
}

QString RunMonitor::predictionLabelText() const {
  if (started_ && started_->prediction)
    return tr("predicted %1 s %2")
        .arg(seconds(started_->prediction->iteration_seconds))
        .arg(QString::fromStdString(started_->prediction->label())
                 .mid(QStringLiteral("predicted ").size()));
  const double s = predicted_s_;
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
        .arg(seconds(s))
        .arg(types.join(QStringLiteral(", ")));
  return tr("predicted %1 s for the plan's GPUs").arg(seconds(s));
}

void RunMonitor::updatePrediction() {
  const double s = shownPredictionSeconds();
  const QString text = predictionLabelText();
  const bool line = std::isfinite(s);
  prediction_line_->setVisible(line);
  prediction_label_->setVisible(!text.isEmpty());
  if (text.isEmpty()) return;
  if (line) {
    prediction_line_->point1->setCoords(0, s);
    prediction_line_->point2->setCoords(1, s);
    prediction_label_->position->setTypeY(QCPItemPosition::ptPlotCoords);
    prediction_label_->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
    prediction_label_->position->setCoords(0.98, s);
  } else {  // no line to sit on: the top of the plot
    prediction_label_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    prediction_label_->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    prediction_label_->position->setCoords(0.98, 0.02);
  }
  prediction_label_->setText(text);
}

QString RunMonitor::comparisonNote() const {
  return comparison_note_->text();
}

void RunMonitor::updateComparison() {
  comparison_rows_.clear();
  comparison_->setRowCount(0);
  if (!started_) {
    comparison_note_->setText(tr("No run shown."));
    return;
  }
  if (!started_->prediction) {
    comparison_note_->setText(
        started_->prediction_note.empty()
            ? tr("This run recorded no prediction for its hardware (recorded before runs had one).")
            : QString::fromStdString(started_->prediction_note));
    return;
  }
  const QString label = QString::fromStdString(started_->prediction->label());
  if (measured_.empty()) {
    comparison_note_->setText(tr("%1: no iteration measured yet.").arg(label));
    return;
  }
  const sailor::RunComparison c = sailor::compareRun(run_id_, *started_, measured_);
  comparison_rows_ = c.rows;
  comparison_note_->setText(tr("%1; measured: median of iterations %2-%3 (the first %4 are "
                               "warm-up)")
                                .arg(label)
                                .arg(c.warmup)
                                .arg(c.iterations - 1)
                                .arg(c.warmup));
  comparison_->setRowCount(static_cast<int>(c.rows.size()));
  const QLocale locale;
  for (int i = 0; i < static_cast<int>(c.rows.size()); ++i) {
    const sailor::ComparisonRow& r = c.rows[static_cast<std::size_t>(i)];
    const bool bytes = r.unit == "bytes";
    const auto figure = [&](double v) {
      return bytes ? tr("%1 MiB").arg(locale.toString(v / (1024.0 * 1024.0), 'f', 0))
                   : tr("%1 s").arg(seconds(v));
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
      comparison_->setItem(i, col, item);
    }
  }
}

void RunMonitor::setCell(int row, int column, const QString& text) {
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

void RunMonitor::setWorkerState(int rank, WorkerState state, const QString& detail) {
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

void RunMonitor::markReport(int rank, const QString& time) {
  const auto it = worker_rows_.find(rank);
  if (it != worker_rows_.end() && !time.isEmpty())
    setCell(it->second.row, ColLastReport, clockTime(time));
}

void RunMonitor::appendLog(const QString& time, const QString& text) {
  const QString when = clockTime(time);
  log_->appendPlainText(when.isEmpty() ? text : when + QStringLiteral("  ") + text);
}

void RunMonitor::showBanner(const QString& text, const QString& details) {
  banner_->setText(text);
  banner_->setToolTip(details);
  banner_->show();
}

void RunMonitor::updateStatus() {
  if (!started_ && run_id_ == 0) {
    status_->setText(tr("No run yet: choose a plan and press Start, or open a past run."));
    return;
  }
  QStringList parts;
  const QString name = started_ ? QString::fromStdString(started_->name) : QString();
  parts << (stored_ ? tr("Stored run %1 (%2)") : tr("Run %1 (%2)")).arg(run_id_).arg(name);
  const int planned = started_ ? started_->iterations : 0;
  if (last_iteration_) {
    parts << tr("iteration %1 of %2").arg(last_iteration_->iteration + 1).arg(planned);
    parts << tr("loss %1").arg(QString::number(last_iteration_->loss, 'f', 3));
    parts << tr("%1 s per iteration").arg(seconds(last_iteration_->iteration_seconds));
  } else if (!worker_rows_.empty()) {
    parts << tr("%n worker(s) starting", "", static_cast<int>(worker_rows_.size()));
  }
  if (paused_) parts << tr("paused: waiting for resources");
  if (finished_) parts << runStatusText(finished_->status);
  status_->setText(parts.join(QStringLiteral(" \u00b7 ")));
}

}  // namespace sailor::studio
