// An elastic run's changes of world on the Run tab: the Reconfigurations tab (this widget: one
// row per reconfigured or paused event, with cause, world sizes, state source, phases and the plan
// before and after), the markers the reconfigurations put on the plots (asked for through
// markerRequested), the pause banner shown until the next reconfiguration, and Resize..., which
// opens the resize dialog while the run shown can be resized.
//
// A view only: the run monitor feeds it the events and says whether the run shown is live;
// the studio says whether the run can be resized (setResizable); an accepted dialog emits
// resizeRequested.
#pragma once

#include <vector>

#include <QColor>
#include <QPointer>
#include <QString>
#include <QWidget>

#include "resize_dialog.hpp"
#include "sailor/runs/run_events.hpp"
#include "sailor/scenario/scenario.hpp"

class QLabel;
class QPushButton;
class QTreeWidget;

namespace sailor::studio {

class ReconfigurationView : public QWidget {
  Q_OBJECT

 public:
  // Reconfigurations tab columns: one row per reconfigured or paused event.
  enum ReconfigColumn {
    ReconfigColIteration,
    ReconfigColEvent,
    ReconfigColCause,
    ReconfigColGpus,
    ReconfigColStateSource,
    ReconfigColLost,
    ReconfigColPhases,
    ReconfigColPlans,
    ReconfigColumnCount
  };

  explicit ReconfigurationView(QWidget* parent = nullptr);

  // A reconfiguration's cause in words: "trace", "resize", "worker lost" (an unknown one as given).
  static QString causeText(const std::string& cause);
  // The markers' label: "4→3 GPUs (worker lost)".
  static QString reconfigurationLabel(const sailor::ReconfiguredEvent& event);
  // Its phases: "re-plan 12 ms, teardown 3 ms, groups 45 ms, rebuild 20 ms, transfer 31 ms
  // (7.0 MB), total 0.20 s" (launch only when workers joined).
  static QString phasesText(const sailor::ReconfiguredEvent& event);
  // A plan in one line: "4 GPU(s), microbatch 1: stage 0 (layers 0-3): 2x A100-40 tp1 zone-a; ...".
  static QString planText(const sailor::Plan& plan);

  QTreeWidget* view() const { return tree_; }
  // The pause banner and Resize...: the run monitor places them.
  QLabel* pauseBanner() const { return pause_banner_; }
  QPushButton* resizeButton() const { return resize_; }
  const std::vector<sailor::ReconfiguredEvent>& reconfigurations() const {
    return reconfigurations_;
  }
  // Whether the run waits for resources (a paused event not yet followed by a reconfigured or
  // finished one), and the pause banner's text (empty when hidden).
  bool paused() const { return paused_; }
  bool pausedShown() const;
  QString pausedText() const;
  // What Resize... offers: every (GPU type, zone) of the run's plan and of the pools given to
  // setResizable, with the plan's GPUs there.
  std::vector<AvailabilitySite> resizeSites() const;
  bool resizeOffered() const { return resizable_ && live_; }
  ResizeDialog* resizeDialog() const { return resize_dialog_; }

 public slots:
  // Forgets the run's reconfigurations and pause.
  void clear();
  // A reconfigured event: a row, a marker on the plots; the pause ends.
  void addReconfiguration(const sailor::ReconfiguredEvent& event);
  // A paused event: a row and the banner, until hidePause.
  void showPause(const sailor::PausedEvent& event);
  void hidePause();
  // The run shown: its id, whether it is running (for Resize...'s tooltip), whether it is live
  // (running, started, not finished nor reopened from the store) and its plan now.
  void setRun(qint64 run_id, bool running, bool live, const sailor::Plan& plan);
  // Whether the run going can be resized (the studio's judgement), the scenario's pools for the
  // dialog and Resize...'s tooltip while it cannot. The dialog closes when it no longer can.
  void setResizable(bool resizable, const std::vector<sailor::Pool>& pools = {},
                    const QString& reason = {});

 signals:
  // A vertical marker at iteration `x` on every iteration plot, labelled `label`.
  void markerRequested(double x, const QString& label, const QColor& colour, Qt::PenStyle style,
                       const QString& object_name);
  // The Resize dialog was accepted: tell run `run_id` it has `sites`' counts now.
  void resizeRequested(qint64 run_id, const std::vector<sailor::AvailabilitySite>& sites);

 private:
  void openResizeDialog();
  void updateResize();

  QTreeWidget* tree_ = nullptr;
  QLabel* pause_banner_ = nullptr;
  QPushButton* resize_ = nullptr;
  QPointer<ResizeDialog> resize_dialog_;

  std::vector<sailor::ReconfiguredEvent> reconfigurations_;
  bool paused_ = false;
  qint64 run_id_ = 0;
  bool running_ = false;
  bool live_ = false;
  sailor::Plan plan_;
  bool resizable_ = false;
  QString resize_unavailable_reason_;
  std::vector<sailor::Pool> resize_pools_;
};

}  // namespace sailor::studio
