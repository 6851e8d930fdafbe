#include "past_runs_view.hpp"

#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLocale>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace sailor::studio {

PastRunsView::PastRunsView(QWidget* parent) : QWidget(parent) {
  runs_ = new QTreeWidget(this);
  runs_->setObjectName(QStringLiteral("pastRuns"));
  runs_->setColumnCount(RunColumnCount);
  runs_->setHeaderLabels(
      {tr("ID"), tr("Name"), tr("Started"), tr("Status"), tr("Iterations"), tr("Final loss")});
  runs_->setRootIsDecorated(false);
  runs_->setUniformRowHeights(true);
  runs_->setSelectionMode(QAbstractItemView::SingleSelection);
  runs_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  runs_->setToolTip(tr("Runs recorded in the run store; double-click one to show it"));
  auto* open = new QPushButton(tr("&Open"), this);
  open->setObjectName(QStringLiteral("openRun"));
  open->setToolTip(tr("Show the selected run's metrics and events"));
  auto* refresh = new QPushButton(tr("&Refresh"), this);
  refresh->setObjectName(QStringLiteral("refreshRuns"));
  refresh->setToolTip(tr("Read the list of runs from the run store again"));
  reattach_ = new QPushButton(tr("Re-&attach"), this);
  reattach_->setObjectName(QStringLiteral("reattach"));
  reattach_->hide();

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(runs_);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(open);
  buttons->addWidget(refresh);
  buttons->addStretch(1);
  layout->addLayout(buttons);

  connect(refresh, &QPushButton::clicked, this, &PastRunsView::refreshRunsRequested);
  connect(runs_, &QTreeWidget::itemActivated, this,
          [this](QTreeWidgetItem* item, int) { reopen(item); });
  connect(open, &QPushButton::clicked, this, [this] { reopen(runs_->currentItem()); });
  connect(runs_, &QTreeWidget::currentItemChanged, open,
          [open](QTreeWidgetItem* current) { open->setEnabled(current != nullptr); });
  open->setEnabled(false);
  connect(reattach_, &QPushButton::clicked, this, [this] {
    if (shown_run_ != 0) emit reattachRequested(shown_run_);
  });
}

QString PastRunsView::statusText(sailor::RunStatus status) {
  switch (status) {
    case sailor::RunStatus::Running: return tr("running");
    case sailor::RunStatus::Finished: return tr("finished");
    case sailor::RunStatus::Failed: return tr("failed");
    case sailor::RunStatus::Stopped: return tr("stopped");
  }
  return {};
}

void PastRunsView::reopen(QTreeWidgetItem* item) {
  if (item) emit reopenRequested(item->data(RunColId, Qt::UserRole).toLongLong());
}

void PastRunsView::setPastRuns(const std::vector<sailor::RunListEntry>& runs) {
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
    item->setText(RunColStatus, statusText(r.status));
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

void PastRunsView::setShownRun(qint64 run_id) {
  shown_run_ = run_id;
}

void PastRunsView::setReattachable(bool reattachable, bool running, const QString& reason) {
  reattach_->setVisible(reattachable);
  reattach_->setEnabled(reattachable && !running);
  reattach_->setToolTip(reason);
}

bool PastRunsView::reattachOffered() const {
  return !reattach_->isHidden() && reattach_->isEnabled();
}

}  // namespace sailor::studio
