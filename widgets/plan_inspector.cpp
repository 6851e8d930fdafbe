// PlanInspector: see plan_inspector.hpp.
#include "plan_inspector.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPushButton>
#include <QSaveFile>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "display_number.hpp"
#include "sailor/planning/utilization.hpp"
#include "sailor/scenario/plan_links.hpp"
#include "stage_palette.hpp"

namespace sailor::studio {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// "1.23 s", "45.6 ms", "789 µs".
QString duration(double s) {
  const QLocale locale;
  if (s >= 1) return PlanInspector::tr("%1 s").arg(locale.toString(s, 'f', 2));
  if (s >= 1e-3) return PlanInspector::tr("%1 ms").arg(locale.toString(s * 1e3, 'f', 1));
  return PlanInspector::tr("%1 µs").arg(locale.toString(s * 1e6, 'f', 0));
}

QString gib(double bytes) {
  return PlanInspector::tr("%1 GiB").arg(QLocale().toString(bytes / kGiB, 'f', 1));
}

QString usd(double v) {
  return QStringLiteral("$") + displayNumber(v);
}

QString percent(double part, double whole) {
  return whole > 0 ? QLocale().toString(100.0 * part / whole, 'f', 1) + QStringLiteral(" %")
                   : QString();
}

// Replicas of one kind (GPU type, tp, zone) within a stage, in order of first appearance.
struct ReplicaGroup {
  sailor::Replica replica;
  int count = 0;
  std::vector<int> indices;  // into stage.replicas
};

std::vector<ReplicaGroup> groupReplicas(const sailor::Stage& stage) {
  std::vector<ReplicaGroup> groups;
  for (int i = 0; i < static_cast<int>(stage.replicas.size()); ++i) {
    const auto& r = stage.replicas[static_cast<std::size_t>(i)];
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const ReplicaGroup& g) { return g.replica == r; });
    if (it == groups.end()) {
      groups.push_back({r, 0, {}});
      it = std::prev(groups.end());
    }
    ++it->count;
    it->indices.push_back(i);
  }
  return groups;
}

// "8× A100-40 tp2 @ us-central1-a"
QString groupText(const sailor::Replica& r, int count) {
  return PlanInspector::tr("%1× %2 tp%3 @ %4")
      .arg(count)
      .arg(QString::fromStdString(r.gpu_type))
      .arg(r.tp)
      .arg(QString::fromStdString(r.zone));
}

QTableWidgetItem* cell(const QString& text, bool numeric = false) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
  if (numeric) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

QTableWidget* makeTable(QWidget* parent, const QStringList& headers, const QString& name) {
  auto* t = new QTableWidget(parent);
  t->setObjectName(name);
  t->setColumnCount(static_cast<int>(headers.size()));
  t->setHorizontalHeaderLabels(headers);
  t->verticalHeader()->setVisible(false);
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->setAlternatingRowColors(true);
  t->setWordWrap(true);
  // Compact rows (a line of text and a margin): the short tables fit beside their charts.
  t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 8);
  return t;
}

// Colours of the timeline's operation kinds and of the memory and time components.
QColor kindColor(char kind) {
  switch (kind) {
    case 'F': return QColor(0x4E79A7);
    case 'B': return QColor(0xF28E2B);
    case 'S': return QColor(0x9D9D9D);
    case 'A': return QColor(0x59A14F);
    case 'R': return QColor(0x8CD17D);
    case 'O': return QColor(0xB07AA1);
    default: return QColor(0x333333);
  }
}

QString kindName(char kind) {
  switch (kind) {
    case 'F': return PlanInspector::tr("Forward");
    case 'B': return PlanInspector::tr("Backward");
    case 'S': return PlanInspector::tr("Send/receive");
    case 'A': return PlanInspector::tr("All-reduce");
    case 'R': return PlanInspector::tr("Reduction overlapped with the backward");
    case 'O': return PlanInspector::tr("Optimizer");
    default: return QString(QLatin1Char(kind));
  }
}

// Timeline row geometry (stage s is the row around y = s, the axis reversed so stage 0 is on
// top): compute (F, B, O) in the upper band, communication (S, A, R) in a thinner lower band so
// that transfers and reductions overlapping compute stay visible.
std::pair<double, double> rowBand(char kind) {
  if (kind == 'S' || kind == 'A' || kind == 'R') return {0.14, 0.38};
  return {-0.38, 0.10};
}

QString relationText(sailor::Relation r) {
  switch (r) {
    case sailor::Relation::SameZone: return PlanInspector::tr("same zone");
    case sailor::Relation::SameRegion: return PlanInspector::tr("same region");
    case sailor::Relation::SameContinent: return PlanInspector::tr("same continent");
    case sailor::Relation::CrossContinent: return PlanInspector::tr("across continents");
  }
  return QString::fromLatin1(sailor::relationName(r));
}

// Fixes a short table's height to its rows, so that it takes no more room than it needs.
void fitHeight(QTableWidget* t) {
  int h = t->horizontalHeader()->sizeHint().height() + 2 * t->frameWidth();
  for (int r = 0; r < t->rowCount(); ++r) h += t->rowHeight(r);
  t->setFixedHeight(h + 2);
  t->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
}

// The least height of a chart (and of the map): every tab fits under the trade-off plot at
// 1280x800.
constexpr int kMinimumChartHeight = 120;

QCustomPlot* makePlot(QWidget* parent, const QString& name) {
  auto* p = new QCustomPlot(parent);
  p->setObjectName(name);
  p->setMinimumHeight(kMinimumChartHeight);
  return p;
}

}  // namespace

PlanInspector::PlanInspector(QWidget* parent) : QWidget(parent) {
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("summary"));
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  export_button_ = new QPushButton(tr("E&xport plan…"), this);
  export_button_->setToolTip(
      tr("Save the plan as JSON, the format `sailor simulate --plan` reads"));
  connect(export_button_, &QPushButton::clicked, this, &PlanInspector::exportPlanWithDialog);
  export_timeline_button_ = new QPushButton(tr("Export &timeline…"), this);
  export_timeline_button_->setObjectName(QStringLiteral("exportTimeline"));
  export_timeline_button_->setToolTip(
      tr("Save the simulated schedule as a Chrome trace, to open in ui.perfetto.dev or "
         "chrome://tracing"));
  connect(export_timeline_button_, &QPushButton::clicked, this, [this] {
    exportWithDialog(tr("Export timeline"), QStringLiteral("timeline.json"),
                     tr("Chrome traces (*.json);;All files (*)"), &PlanInspector::exportTimeline);
  });

  auto* header = new QHBoxLayout;
  header->addWidget(summary_, 1);
  header->addWidget(export_button_, 0, Qt::AlignTop);
  header->addWidget(export_timeline_button_, 0, Qt::AlignTop);

  tabs_ = new QTabWidget(this);

  // Stages.
  stages_table_ = makeTable(
      this,
      {tr("Stage"), tr("Layers"), tr("Replicas"), tr("DP degree"), tr("GPUs"), tr("Microbatches"),
       tr("Forward (ms)"), tr("Backward (ms)"), tr("Busy"), tr("Straggler")},
      QStringLiteral("stagesTable"));
  stages_table_->horizontalHeaderItem(2)->setToolTip(
      tr("Replicas of one kind: count × GPU type, tensor-parallel degree @ zone"));
  stages_table_->horizontalHeaderItem(5)->setToolTip(tr("Microbatches each replica processes"));
  stages_table_->horizontalHeaderItem(6)->setToolTip(
      tr("Forward time of one microbatch on the stage's slowest replica"));
  stages_table_->horizontalHeaderItem(7)->setToolTip(
      tr("Backward time of one microbatch on the stage's slowest replica"));
  stages_table_->horizontalHeaderItem(8)->setToolTip(
      tr("Share of the iteration the stage computes, transfers or synchronises; the rest it "
         "waits for other stages. The busiest stage is the bottleneck (the Time tab's)"));
  stages_table_->horizontalHeaderItem(9)->setToolTip(
      tr("The replica whose compute sets the stage's time"));
  tabs_->addTab(stages_table_, tr("Stages"));

  // Memory.
  auto* memory_page = new QWidget(this);
  memory_plot_ = makePlot(memory_page, QStringLiteral("memoryPlot"));
  memory_messages_ = new QLabel(memory_page);
  memory_messages_->setObjectName(QStringLiteral("memoryMessages"));
  memory_messages_->setWordWrap(true);
  memory_messages_->setStyleSheet(QStringLiteral("color: #B22222;"));
  memory_messages_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* memory_layout = new QVBoxLayout(memory_page);
  memory_layout->addWidget(memory_plot_, 1);
  memory_layout->addWidget(memory_messages_);
  tabs_->addTab(memory_page, tr("Memory"));

  tabs_->addTab(buildTimePage(), tr("Time"));
  tabs_->addTab(buildCostPage(), tr("Cost"));

  // Timeline.
  timeline_plot_ = makePlot(this, QStringLiteral("timelinePlot"));
  timeline_plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  timeline_plot_->axisRect()->setRangeDrag(Qt::Horizontal);
  timeline_plot_->axisRect()->setRangeZoom(Qt::Horizontal);
  connect(timeline_plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
    if (!plan_ || event->buttons() != Qt::NoButton) return;
    const double t_ms = timeline_plot_->xAxis->pixelToCoord(event->position().x());
    const double y = timeline_plot_->yAxis->pixelToCoord(event->position().y());
    for (const auto& op : plan_->prediction.timeline) {
      const auto [top, bottom] = rowBand(op.kind);
      if (t_ms >= op.start_s * 1e3 && t_ms <= op.end_s * 1e3 && y >= op.stage + top &&
          y <= op.stage + bottom) {
        QString text = op.microbatch >= 0 ? tr("%1, stage %2, microbatch %3")
                                                .arg(kindName(op.kind))
                                                .arg(op.stage)
                                                .arg(op.microbatch)
                                          : tr("%1, stage %2").arg(kindName(op.kind)).arg(op.stage);
        text += QLatin1Char('\n') + tr("%1 – %2 ms (%3)")
                                        .arg(QLocale().toString(op.start_s * 1e3, 'f', 2),
                                             QLocale().toString(op.end_s * 1e3, 'f', 2),
                                             duration(op.end_s - op.start_s));
        QToolTip::showText(event->globalPosition().toPoint(), text, timeline_plot_);
        return;
      }
    }
    QToolTip::hideText();
  });
  tabs_->addTab(timeline_plot_, tr("Timeline"));
  timeline_plot_->installEventFilter(this);  // draws a stale Gantt chart when it is shown

  // Height for width, so that a scroll area (the studio's Plans tab) holds the inspector at its
  // pages' least height: without it, the wrapped summary makes the scroll area ask the layout for
  // the tabs' preferred height, their tallest page's (the map's), at any width. At 1280x800 the
  // inspector then fits under the trade-off plot.
  QSizePolicy tabs_policy = tabs_->sizePolicy();
  tabs_policy.setHeightForWidth(true);
  tabs_->setSizePolicy(tabs_policy);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(header);
  layout->addWidget(tabs_, 1);

  clear();
}

PlanInspector::~PlanInspector() = default;

// The Time tab: where the iteration goes, as a table and a stacked bar side by side.
QWidget* PlanInspector::buildTimePage() {
  auto* time_page = new QWidget(this);
  time_caption_ = new QLabel(time_page);
  time_caption_->setObjectName(QStringLiteral("timeCaption"));
  time_caption_->setWordWrap(true);
  time_table_ = makeTable(time_page, {tr("Part"), tr("Seconds per iteration"), tr("Share")},
                          QStringLiteral("timeTable"));
  time_plot_ = makePlot(time_page, QStringLiteral("timePlot"));
  model_estimate_ = new QLabel(time_page);
  model_estimate_->setObjectName(QStringLiteral("modelEstimate"));
  model_estimate_->setWordWrap(true);
  // The table and its bar side by side: the page fits under the trade-off plot at 1280x800.
  auto* time_row = new QHBoxLayout;
  time_row->addWidget(time_table_, 0, Qt::AlignTop);
  time_row->addWidget(time_plot_, 1);
  auto* time_layout = new QVBoxLayout(time_page);
  time_layout->addWidget(time_caption_);
  time_layout->addLayout(time_row);
  time_layout->addWidget(model_estimate_);
  time_layout->addStretch(1);
  return time_page;
}

// The Cost tab: compute and egress, with the egress by zone pair and the links beside them.
QWidget* PlanInspector::buildCostPage() {
  auto* cost_page = new QWidget(this);
  cost_table_ =
      makeTable(cost_page, {tr("Part"), tr("USD per iteration"), tr("USD per hour"), tr("Share")},
                QStringLiteral("costTable"));
  egress_table_ = makeTable(cost_page,
                            {tr("From zone"), tr("To zone"), tr("Relation"), tr("GB per iteration"),
                             tr("USD per GB"), tr("USD per iteration"), tr("USD per hour")},
                            QStringLiteral("egressTable"));
  links_table_ = makeTable(cost_page,
                           {tr("Use"), tr("From zone"), tr("To zone"), tr("GPU types"), tr("GPUs"),
                            tr("GB/s"), tr("Latency"), tr("Source"), tr("Link")},
                           QStringLiteral("linksTable"));
  // The cost parts on the left, egress and links beside them: the page fits under the trade-off
  // plot at 1280x800.
  auto* transfers = new QVBoxLayout;
  transfers->addWidget(new QLabel(tr("Egress by zone pair"), cost_page));
  transfers->addWidget(egress_table_, 1);
  transfers->addWidget(new QLabel(tr("Links (where each figure comes from)"), cost_page));
  transfers->addWidget(links_table_, 1);
  auto* cost_layout = new QHBoxLayout(cost_page);
  cost_layout->addWidget(cost_table_, 0, Qt::AlignTop);
  cost_layout->addLayout(transfers, 1);
  return cost_page;
}

QSize PlanInspector::sizeHint() const {
  QSize s = QWidget::sizeHint();
  const int tabs_width = std::max(1, s.width() - 8);  // less the layout's margins
  s.setHeight(s.height() +
              std::max(0, tabs_->sizeHint().height() - tabs_->heightForWidth(tabs_width)));
  return s;
}

void PlanInspector::clear() {
  resetContents();
  memory_plot_->replot();
  time_plot_->replot();
  timeline_stale_ = false;
  clearTimeline();
  timeline_plot_->replot();
}

// Everything but the Gantt chart, without replotting: setPlan draws the plots again at once.
void PlanInspector::resetContents() {
  plan_.reset();
  scenario_.reset();
  summary_->setText(tr("No plan selected: pick one on the trade-off plot."));
  export_button_->setEnabled(false);
  export_timeline_button_->setEnabled(false);
  stages_table_->setRowCount(0);
  memory_plot_->clearPlottables();
  memory_plot_->clearItems();
  memory_plot_->legend->setVisible(false);
  memory_plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
  memory_messages_->clear();
  memory_messages_->setVisible(false);
  time_table_->setRowCount(0);
  time_caption_->clear();
  model_estimate_->clear();
  time_plot_->clearPlottables();
  cost_table_->setRowCount(0);
  egress_table_->setRowCount(0);
  links_table_->setRowCount(0);
}

void PlanInspector::clearTimeline() {
  timeline_plot_->clearPlottables();
  timeline_plot_->clearItems();
  timeline_plot_->legend->setVisible(false);
  timeline_plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
}

void PlanInspector::ensureTimeline() {
  if (!timeline_stale_) return;
  timeline_stale_ = false;
  clearTimeline();
  if (plan_) buildTimeline();
  else timeline_plot_->replot();
}

bool PlanInspector::eventFilter(QObject* watched, QEvent* event) {
  if (watched == timeline_plot_ && event->type() == QEvent::Show) ensureTimeline();
  return QWidget::eventFilter(watched, event);
}

void PlanInspector::setPlan(const sailor::PlannedPlan& plan,
                            std::shared_ptr<const sailor::Scenario> scenario,
                            const sailor::Job& job, const sailor::Catalog& catalog) {
  resetContents();
  plan_ = plan;
  scenario_ = std::move(scenario);
  const auto& pred = plan_->prediction;

  // Summary: the figures a user compares plans by.
  double peak_capacity = 0;
  for (const auto& m : pred.memory)
    if (m.total_bytes >= pred.peakMemoryBytes()) peak_capacity = m.capacity_bytes;
  const QString shape =
      plan_->plan.stages.size() == 1
          ? tr("%1 GPUs in 1 stage").arg(plan_->plan.gpuCount())
          : tr("%1 GPUs in %2 stages").arg(plan_->plan.gpuCount()).arg(plan_->plan.stages.size());
  QString summary =
      tr("<b>Iteration %1</b> · %2 it/s · %3 tokens/s · <b>%4 per iteration</b> · "
         "%5 per hour · %6 · peak memory %7 of %8")
          .arg(duration(pred.iteration_s), displayNumber(pred.iterations_per_s),
               displayNumber(pred.tokens_per_s), usd(pred.usd_per_iteration),
               usd(pred.usd_per_hour), shape, gib(pred.peakMemoryBytes()), gib(peak_capacity));
  // Model FLOPs utilisation at the simulated iteration time (sailor/planning/utilization.hpp); none
  // when a GPU lacks a rate in the job's precision or the catalogue lacks the model.
  std::optional<sailor::Utilization> mfu;
  try {
    mfu = sailor::modelFlopsUtilization(plan_->plan, job, catalog, pred.iteration_s);
  } catch (const std::exception&) {
  }
  summary += tr(" · schedule: %1").arg(QString::fromStdString(plan_->plan.schedule.describe(job)));
  if (mfu)
    summary += tr(" · MFU %1 % (model %2 TFLOP/s per GPU)")
                   .arg(QString::number(100 * mfu->mfu, 'f', 1))
                   .arg(QString::number(mfu->model_tflops_per_gpu, 'f', 0));
  if (!pred.fits)
    summary += QStringLiteral(" · <span style=\"color:#B22222\"><b>%1</b></span>")
                   .arg(tr("does not fit in memory"));
  summary_->setText(summary);
  export_button_->setEnabled(true);
  export_timeline_button_->setEnabled(!pred.timeline.empty());

  buildStages(job, catalog);
  buildMemory();
  buildTime();
  buildCost();
  buildLinks(job, catalog);
  // The Gantt chart is one rectangle item per operation (hundreds: 10 to 30 ms on the GUI thread
  // for the default scenario's plans), so it is drawn only where it can be seen: when its tab is
  // shown, or, when it shows already, in the next turn of the event loop (the rest of the
  // result's delivery is not held up by it). Until then it is empty, never another plan's.
  timeline_stale_ = true;
  if (timeline_plot_->isVisible()) {
    clearTimeline();
    timeline_plot_->replot();
    QMetaObject::invokeMethod(this, &PlanInspector::ensureTimeline, Qt::QueuedConnection);
  }
}

void PlanInspector::buildStages(const sailor::Job& job, const sailor::Catalog& catalog) {
  const auto& plan = plan_->plan;
  const auto& pred = plan_->prediction;
  stages_table_->setRowCount(static_cast<int>(plan.stages.size()));
  for (int s = 0; s < static_cast<int>(plan.stages.size()); ++s) {
    const auto& stage = plan.stages[static_cast<std::size_t>(s)];
    const sailor::StageTimes* times = s < static_cast<int>(pred.stages.size())
                                          ? &pred.stages[static_cast<std::size_t>(s)]
                                          : nullptr;
    auto* stage_item = cell(QString::number(s), true);
    QPixmap swatch(12, 12);
    swatch.fill(stagePalette(s));
    stage_item->setIcon(QIcon(swatch));
    stages_table_->setItem(s, 0, stage_item);
    stages_table_->setItem(s, 1,
                           cell(stage.layerCount() == 1 ? tr("%1 (1 layer)").arg(stage.first_layer)
                                                        : tr("%1–%2 (%3 layers)")
                                                              .arg(stage.first_layer)
                                                              .arg(stage.last_layer)
                                                              .arg(stage.layerCount())));

    QStringList groups, details;
    int gpus = 0;
    for (const auto& g : groupReplicas(stage)) {
      groups << groupText(g.replica, g.count);
      const auto* gpu = catalog.findGpu(g.replica.gpu_type);
      details << tr("%1: %2 GPUs of %3 (%4 memory each)")
                     .arg(groupText(g.replica, g.count))
                     .arg(g.count * g.replica.tp)
                     .arg(gpu ? QString::fromStdString(gpu->full_name)
                              : QString::fromStdString(g.replica.gpu_type))
                     .arg(gpu ? gib(static_cast<double>(gpu->memory_bytes)) : tr("unknown"));
    }
    for (const auto& r : stage.replicas) gpus += r.tp;
    auto* replicas = cell(groups.join(QLatin1Char('\n')));
    replicas->setToolTip(details.join(QLatin1Char('\n')));
    stages_table_->setItem(s, 2, replicas);
    stages_table_->setItem(s, 3, cell(QString::number(stage.replicas.size()), true));
    stages_table_->setItem(s, 4, cell(QString::number(gpus), true));
    const int microbatches = times && times->microbatches > 0
                                 ? times->microbatches
                                 : plan.microbatches(job.global_batch_size, stage);
    stages_table_->setItem(s, 5, cell(QString::number(microbatches), true));
    if (times) {
      stages_table_->setItem(s, 6, cell(QLocale().toString(times->forward_s * 1e3, 'f', 2), true));
      stages_table_->setItem(s, 7, cell(QLocale().toString(times->backward_s * 1e3, 'f', 2), true));
      const int r = times->straggler_replica;
      QString straggler = tr("#%1").arg(r);
      if (r >= 0 && r < static_cast<int>(stage.replicas.size())) {
        const auto& rep = stage.replicas[static_cast<std::size_t>(r)];
        straggler = tr("#%1: %2 tp%3 @ %4")
                        .arg(r)
                        .arg(QString::fromStdString(rep.gpu_type))
                        .arg(rep.tp)
                        .arg(QString::fromStdString(rep.zone));
      }
      stages_table_->setItem(s, 8, cell(percent(times->work_s, pred.iteration_s), true));
      stages_table_->setItem(s, 9, cell(straggler));
    }
  }
  stages_table_->resizeColumnsToContents();
  stages_table_->resizeRowsToContents();
}

void PlanInspector::buildMemory() {
  const auto& pred = plan_->prediction;

  // One bar per stage and replica kind (GPU type, tp, zone): the replicas of one kind in one
  // stage hold the same model states and activations, so one bar stands for them (the largest
  // of them, should they differ).
  struct Bar {
    int stage = 0;
    sailor::Replica kind;
    int replicas = 0;
    const sailor::MemoryBreakdown* m = nullptr;
  };
  std::vector<Bar> bars;
  for (const auto& m : pred.memory) {
    const sailor::Replica kind{m.gpu_type, m.tp, m.zone};
    auto it = std::find_if(bars.begin(), bars.end(),
                           [&](const Bar& b) { return b.stage == m.stage && b.kind == kind; });
    if (it == bars.end()) {
      bars.push_back({m.stage, kind, 1, &m});
    } else {
      ++it->replicas;
      if (m.total_bytes > it->m->total_bytes) it->m = &m;
    }
  }

  auto* plot = memory_plot_;
  QCPAxis* key_axis = plot->yAxis;
  QCPAxis* value_axis = plot->xAxis;
  struct Part {
    QString name;
    QColor normal;
    QColor over;
    double sailor::MemoryBreakdown::*field;
  };
  const std::array<Part, 5> parts = {{
      {tr("Model states"), QColor(0x4E79A7), QColor(0x8B1A1A),
       &sailor::MemoryBreakdown::model_state_bytes},
      {tr("Activations"), QColor(0xF28E2B), QColor(0xC0392B),
       &sailor::MemoryBreakdown::activation_bytes},
      {tr("Transient"), QColor(0x76B7B2), QColor(0xE06666),
       &sailor::MemoryBreakdown::transient_bytes},
      {tr("Gradient bucket"), QColor(0x59A14F), QColor(0xD98880),
       &sailor::MemoryBreakdown::gradient_bucket_bytes},
      {tr("Runtime overhead"), QColor(0xBAB0AC), QColor(0xF4A6A6),
       &sailor::MemoryBreakdown::runtime_overhead_bytes},
  }};
  // Two stacks with disjoint keys: bars that fit in their part colours, bars over capacity in
  // shades of red.
  std::array<QCPBars*, std::tuple_size_v<decltype(parts)>> fit{}, over{};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    fit[i] = new QCPBars(key_axis, value_axis);
    fit[i]->setName(parts[i].name);
    fit[i]->setBrush(parts[i].normal);
    fit[i]->setPen(QPen(parts[i].normal.darker(130)));
    fit[i]->setWidth(0.6);
    if (i > 0) fit[i]->moveAbove(fit[i - 1]);
  }
  for (std::size_t i = 0; i < parts.size(); ++i) {
    over[i] = new QCPBars(key_axis, value_axis);
    over[i]->setName(tr("%1, over capacity").arg(parts[i].name));
    over[i]->setBrush(parts[i].over);
    over[i]->setPen(QPen(parts[i].over.darker(130)));
    over[i]->setWidth(0.6);
    over[i]->removeFromLegend();
    if (i > 0) over[i]->moveAbove(over[i - 1]);
  }
  over[0]->setName(tr("Over capacity"));

  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  double max_gib = 0;
  bool any_over = false;
  auto* capacity_legend = plot->addGraph(key_axis, value_axis);  // legend entry only
  capacity_legend->setName(tr("Capacity"));
  const QPen capacity_pen(Qt::black, 2.5);
  capacity_legend->setPen(capacity_pen);
  for (int k = 0; k < static_cast<int>(bars.size()); ++k) {
    const Bar& b = bars[static_cast<std::size_t>(k)];
    const bool fits = b.m->fits();
    any_over = any_over || !fits;
    for (std::size_t i = 0; i < parts.size(); ++i)
      (fits ? fit[i] : over[i])->addData(k, b.m->*(parts[i].field) / kGiB);
    ticker->addTick(k, tr("Stage %1: %2").arg(b.stage).arg(groupText(b.kind, b.replicas)));
    auto* cap = new QCPItemLine(plot);
    cap->setPen(capacity_pen);
    // The positions' axes are (x, y) = (value, key) for horizontal bars.
    cap->start->setAxes(value_axis, key_axis);
    cap->end->setAxes(value_axis, key_axis);
    cap->start->setCoords(b.m->capacity_bytes / kGiB, k - 0.42);
    cap->end->setCoords(b.m->capacity_bytes / kGiB, k + 0.42);
    max_gib = std::max({max_gib, b.m->capacity_bytes / kGiB, b.m->total_bytes / kGiB});
  }
  // Legend: the parts in their colours when some bar fits, "Over capacity" when some does not.
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (fit[0]->data()->isEmpty()) fit[i]->removeFromLegend();
  if (any_over) over[0]->addToLegend();
  key_axis->setTicker(ticker);
  key_axis->setRangeReversed(true);  // stage 0 on top
  // At least three rows' worth of height, so that one bar is not a wall of colour.
  key_axis->setRange(-0.6, static_cast<double>(std::max<std::size_t>(bars.size(), 3)) - 0.4);
  key_axis->setSubTicks(false);
  key_axis->grid()->setVisible(false);
  value_axis->setRange(0, max_gib * 1.08);
  value_axis->setLabel(tr("Memory per GPU (GiB)"));
  plot->legend->setVisible(!bars.empty());
  plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot->legend->setWrap(6);
  if (plot->plotLayout()->rowCount() == 1) {  // the legend in a row above the bars
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, plot->legend);
    plot->plotLayout()->setRowStretchFactor(0, 0.001);
    plot->legend->setBorderPen(Qt::NoPen);
  }
  // A row of text per bar at least: the chart fits under the trade-off plot at 1280x800 with the
  // bars of a few stages; more bars make it taller, and the inspector scrolls.
  plot->setMinimumHeight(std::max(kMinimumChartHeight, 40 + 22 * static_cast<int>(bars.size())));
  plot->replot();

  if (!pred.fits && !pred.out_of_memory.empty()) {
    QStringList lines;
    for (const auto& msg : pred.out_of_memory) lines << QString::fromStdString(msg);
    memory_messages_->setText(tr("Does not fit in memory:") + QLatin1Char('\n') +
                              lines.join(QLatin1Char('\n')));
    memory_messages_->setVisible(true);
  }
}

void PlanInspector::buildTime() {
  const auto& pred = plan_->prediction;
  const auto& b = pred.breakdown;
  const std::array<std::tuple<QString, double, QColor>, 5> parts = {{
      {tr("Compute"), b.compute_s, QColor(0x4E79A7)},
      {tr("Pipeline bubble"), b.bubble_s, QColor(0xBAB0AC)},
      {tr("Point-to-point"), b.p2p_s, QColor(0x9D9D9D).darker(120)},
      {tr("Data-parallel sync"), b.dp_sync_s, QColor(0x59A14F)},
      {tr("Optimizer"), b.optimizer_s, QColor(0xB07AA1)},
  }};
  // The breakdown is the busiest stage's (the simulator's NOTE [Breakdown of the busiest stage]).
  time_caption_->setText(
      plan_->plan.stages.size() > 1
          ? tr("Where the iteration goes on stage %1, the busiest (the other stages wait longer):")
                .arg(b.stage)
          : tr("Where the iteration goes:"));
  time_table_->setRowCount(static_cast<int>(parts.size()) + 1);
  int row = 0;
  for (const auto& [name, seconds, colour] : parts) {
    auto* item = cell(name);
    QPixmap swatch(12, 12);
    swatch.fill(colour);
    item->setIcon(QIcon(swatch));
    time_table_->setItem(row, 0, item);
    time_table_->setItem(row, 1, cell(QLocale().toString(seconds, 'f', 4), true));
    time_table_->setItem(row, 2, cell(percent(seconds, pred.iteration_s), true));
    ++row;
  }
  auto* total = cell(tr("Iteration"));
  QFont bold = total->font();
  bold.setBold(true);
  total->setFont(bold);
  time_table_->setItem(row, 0, total);
  time_table_->setItem(row, 1, cell(QLocale().toString(pred.iteration_s, 'f', 4), true));
  time_table_->setItem(row, 2, cell(percent(pred.iteration_s, pred.iteration_s), true));
  time_table_->resizeColumnsToContents();
  fitHeight(time_table_);
  model_estimate_->setText(
      tr("The planner's own model estimated %1 and %2 per iteration for this plan; the figures "
         "above are the simulator's.")
          .arg(duration(plan_->model_iteration_s), usd(plan_->model_usd_per_iteration)));
  model_estimate_->setVisible(plan_->model_iteration_s > 0);

  // The same as one stacked bar, in seconds.
  QCPBars* below = nullptr;
  for (const auto& [name, seconds, colour] : parts) {
    auto* bar = new QCPBars(time_plot_->yAxis, time_plot_->xAxis);
    bar->setName(name);
    bar->setBrush(colour);
    bar->setPen(QPen(colour.darker(130)));
    bar->setWidth(0.6);
    bar->addData(0, seconds);
    if (below) bar->moveAbove(below);
    below = bar;
  }
  time_plot_->yAxis->setTicks(false);
  time_plot_->yAxis->setRange(-0.5, 0.5);
  time_plot_->yAxis->grid()->setVisible(false);
  time_plot_->xAxis->setRange(0, std::max(pred.iteration_s, 1e-9) * 1.02);
  time_plot_->xAxis->setLabel(tr("Seconds per iteration"));
  time_plot_->legend->setVisible(true);
  time_plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
  time_plot_->legend->setWrap(5);
  // The legend in a row above the bar rather than over it.
  if (time_plot_->plotLayout()->rowCount() == 1) {
    time_plot_->plotLayout()->insertRow(0);
    time_plot_->plotLayout()->addElement(0, 0, time_plot_->legend);
    time_plot_->plotLayout()->setRowStretchFactor(0, 0.001);
    time_plot_->legend->setBorderPen(Qt::NoPen);
  }
  time_plot_->replot();
}

void PlanInspector::buildCost() {
  const auto& pred = plan_->prediction;
  // Per hour = per iteration x iterations per hour (the simulator's usd_per_hour is the same
  // figure for the whole).
  const double per_hour = pred.iteration_s > 0 ? 3600.0 / pred.iteration_s : 0;
  const std::array<std::pair<QString, double>, 3> rows = {{
      {tr("GPUs (compute)"), pred.compute_usd},
      {tr("Egress"), pred.egress_usd},
      {tr("Total"), pred.usd_per_iteration},
  }};
  cost_table_->setRowCount(static_cast<int>(rows.size()));
  for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
    const auto& [name, usd_it] = rows[static_cast<std::size_t>(r)];
    cost_table_->setItem(r, 0, cell(name));
    cost_table_->setItem(r, 1, cell(usd(usd_it), true));
    cost_table_->setItem(r, 2, cell(usd(usd_it * per_hour), true));
    cost_table_->setItem(r, 3, cell(percent(usd_it, pred.usd_per_iteration), true));
  }
  cost_table_->resizeColumnsToContents();
  fitHeight(cost_table_);

  egress_table_->setRowCount(static_cast<int>(pred.egress.size()));
  for (int r = 0; r < static_cast<int>(pred.egress.size()); ++r) {
    const auto& e = pred.egress[static_cast<std::size_t>(r)];
    egress_table_->setItem(r, 0, cell(QString::fromStdString(e.from_zone)));
    egress_table_->setItem(r, 1, cell(QString::fromStdString(e.to_zone)));
    if (scenario_ && scenario_->hasZone(e.from_zone) && scenario_->hasZone(e.to_zone)) {
      egress_table_->setItem(r, 2, cell(relationText(scenario_->relation(e.from_zone, e.to_zone))));
      egress_table_->setItem(r, 4,
                             cell(usd(scenario_->egressUsdPerGb(e.from_zone, e.to_zone)), true));
    }
    egress_table_->setItem(r, 3, cell(QLocale().toString(e.bytes / 1e9, 'f', 2), true));
    egress_table_->setItem(r, 5, cell(usd(e.usd), true));
    egress_table_->setItem(r, 6, cell(usd(e.usd * per_hour), true));
  }
  egress_table_->resizeColumnsToContents();
}

void PlanInspector::buildLinks(const sailor::Job& job, const sailor::Catalog& catalog) {
  std::vector<sailor::LinkUse> links;
  try {
    const sailor::ModelSpec* model = catalog.findModel(job.model);
    links = sailor::linksOfPlan(plan_->plan, *scenario_, catalog, model && model->tied_embeddings);
  } catch (const std::exception&) {  // a GPU type the catalogue lacks: no links to show
  }
  links_table_->setRowCount(static_cast<int>(links.size()));
  for (int r = 0; r < static_cast<int>(links.size()); ++r) {
    const sailor::LinkUse& l = links[static_cast<size_t>(r)];
    const QString use = l.use == sailor::LinkUse::Use::Pipeline
                            ? tr("pipeline %1 → %2").arg(l.stage).arg(l.stage + 1)
                        : l.use == sailor::LinkUse::Use::DataParallel
                            ? tr("data-parallel, stage %1").arg(l.stage)
                            : tr("tied embedding");
    links_table_->setItem(r, 0, cell(use));
    links_table_->setItem(r, 1, cell(QString::fromStdString(l.from_zone)));
    links_table_->setItem(r, 2, cell(QString::fromStdString(l.to_zone)));
    links_table_->setItem(
        r, 3,
        cell(QString::fromStdString(l.from_gpu == l.to_gpu ? l.from_gpu
                                                           : l.from_gpu + " → " + l.to_gpu)));
    links_table_->setItem(r, 4, cell(QString::number(l.gpus), true));
    links_table_->setItem(r, 5, cell(displayNumber(l.gb_per_s), true));
    links_table_->setItem(r, 6, cell(duration(l.latency_s), true));
    links_table_->setItem(r, 7, cell(QString::fromLatin1(sailor::linkSourceName(l.source))));
    links_table_->setItem(
        r, 8,
        cell(QString::fromStdString(l.description) + (l.in_node ? tr(" (same node)") : QString())));
  }
  links_table_->resizeColumnsToContents();
}

void PlanInspector::buildTimeline() {
  const auto& pred = plan_->prediction;
  auto* plot = timeline_plot_;
  const int stages = static_cast<int>(plan_->plan.stages.size());

  // Legend entries: empty bars in each kind's colour (the rectangles are items, which a legend
  // does not list).
  const bool overlapped = std::any_of(pred.timeline.begin(), pred.timeline.end(),
                                      [](const sailor::TimelineOp& op) { return op.kind == 'R'; });
  for (char kind : {'F', 'B', 'S', 'A', 'R', 'O'}) {
    if (kind == 'R' && !overlapped) continue;
    auto* entry = new QCPBars(plot->xAxis, plot->yAxis);
    entry->setName(kindName(kind));
    entry->setBrush(kindColor(kind));
    entry->setPen(QPen(kindColor(kind).darker(140)));
  }
  double end_ms = 0;
  for (const auto& op : pred.timeline) {
    const auto [top, bottom] = rowBand(op.kind);
    auto* rect = new QCPItemRect(plot);
    rect->topLeft->setCoords(op.start_s * 1e3, op.stage + top);
    rect->bottomRight->setCoords(op.end_s * 1e3, op.stage + bottom);
    rect->setBrush(kindColor(op.kind));
    rect->setPen(QPen(kindColor(op.kind).darker(150), 0));
    rect->setSelectable(false);
    end_ms = std::max(end_ms, op.end_s * 1e3);
  }
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int s = 0; s < stages; ++s) ticker->addTick(s, tr("Stage %1").arg(s));
  plot->yAxis->setTicker(ticker);
  plot->yAxis->setSubTicks(false);
  plot->yAxis->grid()->setVisible(false);
  plot->yAxis->setRangeReversed(true);
  plot->yAxis->setRange(-0.6, stages - 0.4);
  plot->xAxis->setLabel(tr("Time in the iteration (ms)"));
  plot->xAxis->setRange(0, std::max(end_ms, 1e-6) * 1.01);
  plot->legend->setVisible(true);
  plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot->legend->setWrap(5);
  if (plot->plotLayout()->rowCount() == 1) {  // the legend in a row above the chart
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, plot->legend);
    plot->plotLayout()->setRowStretchFactor(0, 0.001);
    plot->legend->setBorderPen(Qt::NoPen);
  }
  plot->replot();
}

void PlanInspector::addMapTab(QWidget* map) {
  if (map_) {
    tabs_->removeTab(tabs_->indexOf(map_));
    delete map_;
  }
  map_ = map;
  if (!map_) return;
  // As short as the charts may be: the inspector fits under the trade-off plot at 1280x800.
  map_->setMinimumHeight(std::min(map_->minimumHeight(), kMinimumChartHeight));
  tabs_->insertTab(1, map_, tr("Map"));
}

bool PlanInspector::exportPlan(const QString& path, QString* error) const {
  if (!plan_) {
    if (error) *error = tr("No plan to export.");
    return false;
  }
  return saveText(path, plan_->plan.toJson().dump(2) + "\n", error);
}

bool PlanInspector::exportTimeline(const QString& path, QString* error) const {
  if (!plan_ || plan_->prediction.timeline.empty()) {
    if (error) *error = tr("No timeline to export.");
    return false;
  }
  return saveText(path, sailor::timelineTrace(plan_->prediction, plan_->plan).dump() + "\n", error);
}

bool PlanInspector::saveText(const QString& path, const std::string& text, QString* error) {
  auto fail = [&](const QString& why) {
    if (error) *error = why;
    return false;
  };
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    return fail(tr("Cannot write %1: %2").arg(path, file.errorString()));
  if (file.write(text.data(), static_cast<qint64>(text.size())) != static_cast<qint64>(text.size()))
    return fail(tr("Cannot write %1: %2").arg(path, file.errorString()));
  if (!file.commit()) return fail(tr("Cannot write %1: %2").arg(path, file.errorString()));
  return true;
}

void PlanInspector::exportPlanWithDialog() {
  exportWithDialog(tr("Export plan"), QStringLiteral("plan.json"),
                   tr("Plans (*.json);;All files (*)"), &PlanInspector::exportPlan);
}

void PlanInspector::exportWithDialog(const QString& title, const QString& file_name,
                                     const QString& filter,
                                     bool (PlanInspector::*write)(const QString&, QString*) const) {
  const QString path = QFileDialog::getSaveFileName(this, title, file_name, filter);
  if (path.isEmpty()) return;
  QString error;
  if (!(this->*write)(path, &error)) QMessageBox::warning(this, title, error);
}

}  // namespace sailor::studio
