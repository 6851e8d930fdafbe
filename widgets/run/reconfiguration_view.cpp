#include "reconfiguration_view.hpp"

#include <cmath>

#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace sailor::studio {

namespace {

// A phase's time: "12 ms" under a second ("3.5 ms" under 10 ms), else "1.25 s".
QString phaseTime(double s) {
  if (!std::isfinite(s)) return QStringLiteral("-");
  if (s >= 1) return QString::number(s, 'f', 2) + QStringLiteral(" s");
  const double ms = s * 1000;
  return (ms < 10 ? QString::number(ms, 'g', 2) : QString::number(std::round(ms), 'f', 0)) +
         QStringLiteral(" ms");
}

}  // namespace

ReconfigurationView::ReconfigurationView(QWidget* parent) : QWidget(parent) {
  tree_ = new QTreeWidget(this);
  tree_->setObjectName(QStringLiteral("reconfigurations"));
  tree_->setColumnCount(ReconfigColumnCount);
  tree_->setHeaderLabels({tr("Iteration"), tr("Event"), tr("Cause"), tr("GPUs"), tr("State from"),
                          tr("Iterations lost"), tr("Phases / reason"),
                          tr("Plan before \u2192 after")});
  tree_->setRootIsDecorated(false);
  tree_->setUniformRowHeights(true);
  tree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  tree_->setToolTip(
      tr("The run's changes of world: when GPUs came or went (an availability trace, a resize) "
         "or a worker was lost, the run re-planned and reconfigured its workers in place; a "
         "pause waits for resources. Hover a row for its detail and both plans."));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(tree_);

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

  resize_ = new QPushButton(tr("Resi&ze..."), this);
  resize_->setObjectName(QStringLiteral("resize"));
  connect(resize_, &QPushButton::clicked, this, &ReconfigurationView::openResizeDialog);
  updateResize();
}

QString ReconfigurationView::causeText(const std::string& cause) {
  if (cause == "trace") return tr("trace");
  if (cause == "resize") return tr("resize");
  if (cause == "worker_lost") return tr("worker lost");
  return QString::fromStdString(cause);
}

QString ReconfigurationView::reconfigurationLabel(const sailor::ReconfiguredEvent& event) {
  return tr("%1\u2192%2 GPUs (%3)")
      .arg(event.old_world_size)
      .arg(event.new_world_size)
      .arg(causeText(event.cause));
}

QString ReconfigurationView::phasesText(const sailor::ReconfiguredEvent& event) {
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

QString ReconfigurationView::planText(const sailor::Plan& plan) {
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

bool ReconfigurationView::pausedShown() const {
  return !pause_banner_->isHidden();
}

QString ReconfigurationView::pausedText() const {
  return pause_banner_->isHidden() ? QString() : pause_banner_->text();
}

void ReconfigurationView::clear() {
  reconfigurations_.clear();
  tree_->clear();
  hidePause();
}

void ReconfigurationView::hidePause() {
  paused_ = false;
  pause_banner_->clear();
  pause_banner_->hide();
}

void ReconfigurationView::addReconfiguration(const sailor::ReconfiguredEvent& event) {
  reconfigurations_.push_back(event);
  hidePause();
  const QString label = reconfigurationLabel(event);
  const QString phases = phasesText(event);
  emit markerRequested(event.from_iteration, label, QColor(0x7B1FA2), Qt::DashDotLine,
                       QStringLiteral("reconfigurationMarker"));

  auto* row = new QTreeWidgetItem(tree_);
  row->setText(ReconfigColIteration, QString::number(event.from_iteration));
  row->setTextAlignment(ReconfigColIteration, Qt::AlignRight | Qt::AlignVCenter);
  row->setText(ReconfigColEvent, tr("reconfigured"));
  row->setText(ReconfigColCause, causeText(event.cause));
  row->setText(ReconfigColGpus,
               QStringLiteral("%1\u2192%2").arg(event.old_world_size).arg(event.new_world_size));
  row->setText(ReconfigColStateSource,
               event.state_source == "checkpoint" ? tr("checkpoint") : tr("peers"));
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
                          .arg(QString::fromStdString(event.detail))
                          .arg(event.generation)
                          .arg(event.from_iteration)
                          .arg(planText(event.old_plan), planText(event.new_plan), phases);
  for (int c = 0; c < ReconfigColumnCount; ++c) row->setToolTip(c, tip);
}

void ReconfigurationView::showPause(const sailor::PausedEvent& event) {
  paused_ = true;
  const QString reason = QString::fromStdString(event.reason);
  pause_banner_->setText(tr("Paused: waiting for resources: %1").arg(reason));
  pause_banner_->setToolTip(
      tr("Cause: %1. The workers keep their state; the run goes on at iteration %2 when enough "
         "resources return (a reconfiguration follows).")
          .arg(causeText(event.cause))
          .arg(event.iteration));
  pause_banner_->show();

  auto* row = new QTreeWidgetItem(tree_);
  row->setText(ReconfigColIteration, QString::number(event.iteration));
  row->setTextAlignment(ReconfigColIteration, Qt::AlignRight | Qt::AlignVCenter);
  row->setText(ReconfigColEvent, tr("paused"));
  row->setText(ReconfigColCause, causeText(event.cause));
  row->setText(ReconfigColPhases, reason);
  for (int c = 0; c < ReconfigColumnCount; ++c) row->setToolTip(c, reason);
}

void ReconfigurationView::setRun(qint64 run_id, bool running, bool live, const sailor::Plan& plan) {
  run_id_ = run_id;
  running_ = running;
  live_ = live;
  plan_ = plan;
  updateResize();
}

void ReconfigurationView::setResizable(bool resizable, const std::vector<sailor::Pool>& pools,
                                       const QString& reason) {
  resizable_ = resizable;
  resize_pools_ = pools;
  resize_unavailable_reason_ = reason;
  if (!resizeOffered() && resize_dialog_) resize_dialog_->reject();
  updateResize();
}

std::vector<AvailabilitySite> ReconfigurationView::resizeSites() const {
  return ResizeDialog::sitesOf(plan_, resize_pools_);
}

void ReconfigurationView::updateResize() {
  resize_->setEnabled(resizeOffered());
  resize_->setToolTip(
      resizeOffered() ? tr("Tell the run how many GPUs it has now: it re-plans and goes on")
      : !resize_unavailable_reason_.isEmpty() && running_ ? resize_unavailable_reason_
                                                          : tr("Only an elastic run of this "
                                                               "machine that is running can be "
                                                               "resized"));
}

void ReconfigurationView::openResizeDialog() {
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

}  // namespace sailor::studio
