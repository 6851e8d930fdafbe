// The run monitor: the Run tab, one training run of the bundled runtime, live or reopened from
// the run store. A composite of the views in widgets/run/, which it lays out and wires:
//   - LaunchPanel: Start and Stop, the run options, the launch target row and Export;
//   - LivePlots: loss, iteration time, throughput, per-stage times and peak memory per rank, in a
//     grid, and the workers table;
//   - PredictionView: the predicted iteration time's dashed line and label, and the Prediction
//     tab (the run's predicted figures beside the measured ones);
//   - ReconfigurationView: an elastic run's reconfigurations (the tab's rows and the plots'
//     markers), the pause banner and Resize...;
//   - PastRunsView: the stored runs, with Open, Refresh and Re-attach.
// The monitor itself keeps the run shown (its id, header, job and end), the one-line status, the
// error banner and the log, and turns each event into its views' updates and its log lines.
//
// A view only: fed through its public slots with the engine's decoded events
// (sailor/runs/run_events.hpp) and stored records (sailor/runs/run_store.hpp). It never starts a
// process nor opens the store: the studio wires RunClient's signals and RunHistory's results to it,
// and its startRequested / stopRequested / reopenRequested / refreshRunsRequested / resizeRequested
// signals back.
//
// One run at a time: a run_started event (or showRun) clears what was shown before, except the
// predicted iteration time (set per plan by the studio) and the past-runs list.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include <QString>
#include <QStringList>
#include <QWidget>

#include "resize_dialog.hpp"
#include "run/launch_panel.hpp"
#include "run/live_plots.hpp"
#include "run/past_runs_view.hpp"
#include "run/reconfiguration_view.hpp"
#include "sailor/runs/run_events.hpp"
#include "sailor/runs/run_prediction.hpp"
#include "sailor/runs/run_store.hpp"
#include "sailor/scenario/scenario.hpp"

class QCustomPlot;
class QCPBars;
class QLabel;
class QPlainTextEdit;
class QTableWidget;
class QTabWidget;
class QTreeWidget;

namespace sailor::studio {

class PredictionView;

class RunMonitor : public QWidget {
  Q_OBJECT

 public:
  // Paused: the run waits for resources (a paused event), the worker holding its state.
  using WorkerState = LivePlots::WorkerState;
  // Worker table columns.
  enum Column {
    ColRank = LivePlots::ColRank,
    ColStage = LivePlots::ColStage,
    ColReplica = LivePlots::ColReplica,
    ColTpRank = LivePlots::ColTpRank,
    ColGpu = LivePlots::ColGpu,
    ColZone = LivePlots::ColZone,
    ColPid = LivePlots::ColPid,
    ColDevice = LivePlots::ColDevice,
    ColState = LivePlots::ColState,
    ColLastIteration = LivePlots::ColLastIteration,
    ColLastReport = LivePlots::ColLastReport,
    ColumnCount = LivePlots::ColumnCount
  };
  // Past-runs list columns.
  enum RunColumn {
    RunColId = PastRunsView::RunColId,
    RunColName = PastRunsView::RunColName,
    RunColStarted = PastRunsView::RunColStarted,
    RunColStatus = PastRunsView::RunColStatus,
    RunColIterations = PastRunsView::RunColIterations,
    RunColFinalLoss = PastRunsView::RunColFinalLoss,
    RunColumnCount = PastRunsView::RunColumnCount
  };
  // Reconfigurations tab columns: one row per reconfigured or paused event.
  enum ReconfigColumn {
    ReconfigColIteration = ReconfigurationView::ReconfigColIteration,
    ReconfigColEvent = ReconfigurationView::ReconfigColEvent,
    ReconfigColCause = ReconfigurationView::ReconfigColCause,
    ReconfigColGpus = ReconfigurationView::ReconfigColGpus,
    ReconfigColStateSource = ReconfigurationView::ReconfigColStateSource,
    ReconfigColLost = ReconfigurationView::ReconfigColLost,
    ReconfigColPhases = ReconfigurationView::ReconfigColPhases,
    ReconfigColPlans = ReconfigurationView::ReconfigColPlans,
    ReconfigColumnCount = ReconfigurationView::ReconfigColumnCount
  };

  explicit RunMonitor(QWidget* parent = nullptr);
  ~RunMonitor() override;

  static QString workerStateName(WorkerState state);       // translated: "starting", "ready", ...
  static QString runStatusText(sailor::RunStatus status);  // translated status names
  // A reconfiguration's cause in words: "trace", "resize", "worker lost" (an unknown one as given).
  static QString causeText(const std::string& cause);
  // The markers' label: "4→3 GPUs (worker lost)".
  static QString reconfigurationLabel(const sailor::ReconfiguredEvent& event);
  // Its phases: "re-plan 12 ms, teardown 3 ms, groups 45 ms, rebuild 20 ms, transfer 31 ms
  // (7.0 MB), total 0.20 s" (launch only when workers joined).
  static QString phasesText(const sailor::ReconfiguredEvent& event);
  // A plan in one line: "stage 0 (layers 0-3): 2x A100-40 tp1 zone-a; stage 1 ...".
  static QString planText(const sailor::Plan& plan);

  // --- the views, for layouts of their own ---
  LaunchPanel* launchPanel() const { return launch_; }
  LivePlots* livePlots() const { return plots_; }
  PredictionView* predictionView() const { return prediction_; }
  ReconfigurationView* reconfigurationPanel() const { return reconfigs_; }
  PastRunsView* pastRunsPanel() const { return past_; }

  // --- state, for the studio and the tests ---
  QCustomPlot* lossPlot() const { return plots_->lossPlot(); }
  QCustomPlot* iterationTimePlot() const { return plots_->iterationTimePlot(); }  // graph 0
  QCustomPlot* throughputPlot() const { return plots_->throughputPlot(); }
  // Per stage s: graph 2s compute, graph 2s + 1 communication (dashed), in the stage's colour.
  QCustomPlot* stageTimePlot() const { return plots_->stageTimePlot(); }
  QCustomPlot* memoryPlot() const { return plots_->memoryPlot(); }  // bars: x = rank, MiB
  QCPBars* memoryBars() const { return plots_->memoryBars(); }
  QTableWidget* workerTable() const { return plots_->workerTable(); }  // one row per rank
  QTreeWidget* pastRunsView() const { return past_->view(); }
  QPlainTextEdit* logView() const { return log_; }
  // One row per reconfigured or paused event, in order.
  QTreeWidget* reconfigurationView() const { return reconfigs_->view(); }
  // The reconfigured events of the run shown, in order.
  const std::vector<sailor::ReconfiguredEvent>& reconfigurations() const {
    return reconfigs_->reconfigurations();
  }
  // Whether the run waits for resources (a paused event, not yet followed by a reconfigured or
  // finished one), and the pause banner's text.
  bool pausedShown() const;
  QString pausedText() const;
  std::optional<WorkerState> workerState(int rank) const { return plots_->workerState(rank); }
  bool errorShown() const;
  QString errorText() const;                      // the banner's text (empty when hidden)
  QString statusText() const;                     // the one-line summary above the plots
  std::int64_t runId() const { return run_id_; }  // the run shown (0: none)
  double predictedIterationSeconds() const;       // NaN: none
  // Where the dashed line is drawn: the run's local prediction when it has one, else the plan's
  // (NaN: none), and its label ("predicted 0.91 s for cpu-amd-epyc (profile DIR, measured
  // 2026-12-04)", "predicted 28.9 s for the plan's A100-40").
  double shownPredictionSeconds() const;
  QString predictionLabelText() const;
  // The Prediction tab: its rows (empty before the first iteration of a run with a local
  // prediction) and the line above them (what the prediction is for, or why there is none).
  std::vector<sailor::ComparisonRow> comparisonRows() const;
  QString comparisonNote() const;
  bool isRunning() const { return running_; }
  int iterationsRequested() const { return launch_->iterationsRequested(); }
  QString dataSource() const { return launch_->dataSource(); }           // "synthetic" or "text"
  LaunchTarget launchTarget() const { return launch_->launchTarget(); }  // read on Start
  // The Elastic box: Start runs a local run with --elastic (it re-plans when workers are lost or
  // the user resizes it).
  bool elasticRequested() const { return launch_->elasticRequested(); }
  // The plan the run shown has now: the last reconfigured event's new plan, else run_started's
  // (an empty plan before any).
  sailor::Plan currentPlan() const;
  // What Resize... offers: every (GPU type, zone) of currentPlan() and of the pools given to
  // setResizable, with currentPlan()'s GPUs there.
  std::vector<AvailabilitySite> resizeSites() const { return reconfigs_->resizeSites(); }
  // Whether Resize... can be pressed now (see setResizable), and the dialog it opened while it is
  // open (null otherwise).
  bool resizeOffered() const { return reconfigs_->resizeOffered(); }
  ResizeDialog* resizeDialog() const { return reconfigs_->resizeDialog(); }
  // The scheduler's job of the run shown (job_state events): "" before any.
  QString jobId() const { return job_id_; }
  QString jobState() const { return job_state_; }                 // the last state, "RUNNING"
  QStringList jobStatesSeen() const { return job_states_seen_; }  // in order, repeats dropped
  QString jobText() const;                                        // the job label's text
  // The last export's one-line result ("Wrote sailor.yaml to DIR", or why nothing was written).
  QString exportResultText() const { return launch_->exportResultText(); }
  bool exportFailed() const { return launch_->exportFailed(); }
  // Whether the Re-attach button is offered for the run shown (see setReattachable).
  bool reattachOffered() const { return past_->reattachOffered(); }

 public slots:
  // --- a run, live or replayed ---
  // One decoded event of the run (RunClient::eventReceived, or a stored event): run_started
  // clears the previous run; workers_* fill the worker table; iteration adds a point to every
  // plot; error shows the banner and marks the rank failed; finished ends the workers' states.
  void applyEvent(const sailor::RunEvent& event);
  // A failure with no error event to show (sailor refused its input, could not be started,
  // was killed): shows `message` in the error banner as given.
  void showFailure(const QString& message);
  // Forgets the shown run (plots, workers, banner, log). Keeps the prediction and past runs.
  void clearRun();

  // The plan's predicted iteration time (simulator), drawn as a dashed reference line on the
  // iteration time plot; NaN or <= 0 hides it.
  void setPredictedIterationSeconds(double seconds);
  // Whether a run is going: enables Stop and disables Start (and the run options).
  void setRunning(bool running);
  // Whether Start may be pressed when no run is going (e.g. no plan selected); `reason` is the
  // button's tooltip while it may not.
  void setStartAvailable(bool available, const QString& reason = {});
  // The launch target chooser: which target, the cluster description file (as remembered by the
  // studio) and the partition.
  void setLaunchTarget(const LaunchTarget& target);
  // What the studio's Export did: `message` as one line under the target, in red when `failed`.
  void showExportResult(const QString& message, bool failed);
  // Offers Re-attach for the stored run shown: a cluster run still running whose controller is
  // gone (decided by the studio, which can look at processes). `reason` is the button's tooltip.
  // Cleared by clearRun and by showRun.
  void setReattachable(bool reattachable, const QString& reason = {});
  // Whether the run going can be resized (the studio's judgement: a local run started elastic);
  // `pools` are its scenario's (offered in the dialog beside the plan's places), `reason` the
  // button's tooltip while it cannot. Resize... is enabled only while also running and not
  // finished. Cleared by clearRun.
  void setResizable(bool resizable, const std::vector<sailor::Pool>& pools = {},
                    const QString& reason = {});
  // What `sailor runs resize` answered (its one line): in the log, and in the error banner when
  // `failed`.
  void showResizeResult(const QString& message, bool failed);
  // A re-attached run: the stored run shown goes on live (its events follow through applyEvent
  // without clearing what was replayed); Stop then stops it.
  void followStoredRun();

  // --- stored runs ---
  void setPastRuns(const std::vector<sailor::RunListEntry>& runs);
  // Shows a stored run the way a live one is shown: its events replayed in order (iteration
  // events decoded from the event payloads; iteration rows without an event are added after).
  // Events that do not decode are listed in the log, not shown.
  void showRun(const sailor::RunRecord& run, const std::vector<sailor::IterationRecord>& iterations,
               const std::vector<sailor::EventRecord>& events);

 signals:
  void startRequested(int iterations, const QString& data);
  // Start with the Export target: write the selected plan's launch files as `target` says.
  void exportRequested(const sailor::studio::LaunchTarget& target);
  // Re-attach to the stored run shown (offered by setReattachable).
  void reattachRequested(qint64 run_id);
  void stopRequested();
  // The Resize dialog was accepted: tell run `run_id` it has `sites`' counts now.
  void resizeRequested(qint64 run_id, const std::vector<sailor::AvailabilitySite>& sites);
  void reopenRequested(qint64 run_id);
  void refreshRunsRequested();
  // The user changed the launch target (or chose a cluster description file with the dialog).
  void launchTargetChanged(const sailor::studio::LaunchTarget& target);
  // Edit... next to the cluster description: the studio opens the editor on launchTarget()'s
  // file (a new description when there is none).
  void editClusterRequested();

 private:
  void onRunStarted(std::int64_t run_id, const sailor::RunStartedEvent& event);
  void onWarning(const sailor::RunWarningEvent& event, const QString& time);
  void onWorkersStarted(const sailor::WorkersStartedEvent& event, const QString& time);
  void onWorkersReady(const sailor::WorkersReadyEvent& event, const QString& time);
  void onIteration(const sailor::IterationEvent& event, const QString& time);
  void onError(const sailor::RunErrorEvent& event, const QString& time);
  void onFinished(const sailor::RunFinishedEvent& event, const QString& time);
  void onJobState(const sailor::JobStateEvent& event, const QString& time);
  void onCheckpoint(const sailor::CheckpointEvent& event, const QString& time);
  void onResumed(const sailor::ResumedEvent& event, const QString& time);
  void onReconfigured(const sailor::ReconfiguredEvent& event, const QString& time);
  void onPaused(const sailor::PausedEvent& event, const QString& time);
  // The iterations >= `first` are trained again (a resume from a checkpoint, a reconfiguration
  // that restored state from one): off the plots and the comparison.
  void dropIterationsFrom(int first);
  void buildUi();
  void buildBanners();  // the status line and the error banner
  void connectViews();  // the views' signals to the monitor's and to each other
  void replayStored(const sailor::RunRecord& run,
                    const std::vector<sailor::IterationRecord>& iterations,
                    const std::vector<sailor::EventRecord>& events);
  void updateButtons();
  void updateStatus();
  void appendLog(const QString& time, const QString& text);
  void showBanner(const QString& text, const QString& details);

  // Views and widgets (owned by Qt's parent tree).
  LaunchPanel* launch_ = nullptr;
  LivePlots* plots_ = nullptr;
  PredictionView* prediction_ = nullptr;
  ReconfigurationView* reconfigs_ = nullptr;
  PastRunsView* past_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* banner_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QPlainTextEdit* log_ = nullptr;

  // The run shown.
  std::int64_t run_id_ = 0;
  std::optional<sailor::RunStartedEvent> started_;
  std::optional<sailor::IterationEvent> last_iteration_;
  std::optional<sailor::RunFinishedEvent> finished_;
  // The generation of the world shown in the workers table; -1 before any (the next
  // workers_started lays the table out, whatever its generation: a resumed run's, say).
  int generation_ = -1;
  // Workers a workers_started event of a later generation listed before its reconfigured event
  // (the joiners are launched during the reconfiguration): their pids, by rank.
  std::map<int, std::map<int, sailor::RunWorker>> joiners_;  // by generation, then rank
  bool running_ = false;
  bool stored_ = false;  // the run shown was reopened from the store
  QString job_launcher_, job_id_, job_state_, job_reason_;
  QStringList job_states_seen_;
};

}  // namespace sailor::studio
