// The Run tab's past runs (this widget): the runs of the run store with Open and Refresh, and
// Re-attach for the stored run shown when the studio offers it (a cluster run still running whose
// controller is gone).
//
// A view only: it never opens the store. Open (or a double-click) emits reopenRequested with the
// run's id, Refresh refreshRunsRequested, Re-attach reattachRequested with the run shown.
#pragma once

#include <vector>

#include <QString>
#include <QWidget>

#include "sailor/runs/run_store.hpp"

class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace sailor::studio {

class PastRunsView : public QWidget {
  Q_OBJECT

 public:
  // Past-runs list columns.
  enum RunColumn {
    RunColId,
    RunColName,
    RunColStarted,
    RunColStatus,
    RunColIterations,
    RunColFinalLoss,
    RunColumnCount
  };

  explicit PastRunsView(QWidget* parent = nullptr);

  static QString statusText(sailor::RunStatus status);  // translated status names

  QTreeWidget* view() const { return runs_; }
  // Re-attach: the run monitor places it.
  QPushButton* reattachButton() const { return reattach_; }
  bool reattachOffered() const;

 public slots:
  // The list, newest first as given; the selected run stays selected.
  void setPastRuns(const std::vector<sailor::RunListEntry>& runs);
  // The stored run shown (0: none), for Re-attach.
  void setShownRun(qint64 run_id);
  // Offers Re-attach (enabled unless `running`); `reason` is its tooltip.
  void setReattachable(bool reattachable, bool running, const QString& reason = {});

 signals:
  void reopenRequested(qint64 run_id);
  void refreshRunsRequested();
  void reattachRequested(qint64 run_id);

 private:
  void reopen(QTreeWidgetItem* item);

  QTreeWidget* runs_ = nullptr;
  QPushButton* reattach_ = nullptr;
  qint64 shown_run_ = 0;
};

}  // namespace sailor::studio
