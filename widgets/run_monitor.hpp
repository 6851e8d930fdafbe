// The run monitor: one training run of the bundled runtime, live or reopened from the run store.
// Plots of loss, iteration time against the plan's prediction, throughput, per-stage compute and
// communication times and peak memory per rank; a table of the workers and their state; an
// error banner; a log of warnings; the list of past runs; Start and Stop buttons. An elastic
// run's reconfigurations are markers on every plot and rows of a Reconfigurations tab
// (cause, world sizes, state source, phases, the plan before and after); a pause shows a banner
// until the next reconfiguration; checkpoints and resumes are small markers.
//
// A view only: fed through its public slots with the engine's decoded events
// (sailor/run_events.hpp) and stored records (sailor/run_store.hpp). It never starts a process
// nor opens the store: the studio wires RunClient's signals and RunHistory's results to it, and
// its startRequested / stopRequested / reopenRequested / refreshRunsRequested /
// resizeRequested signals back.
//
// One run at a time: a run_started event (or showRun) clears what was shown before, except the
// predicted iteration time (set per plan by the studio) and the past-runs list.
//
// Prediction against measurement: a run that recorded a prediction for the hardware it runs on
// (run_started's prediction, from the local device's profile) has its dashed line drawn at that
// prediction, labelled with the device it is for, in place of the plan's (which is for the plan's
// GPUs); the Prediction tab puts its figures beside the measured ones (sailor::compareRun:
// iteration time, per-stage compute and communication, peak memory, relative errors), updated at
// every iteration.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include <QPointer>
#include <QString>
#include <QWidget>

#include "resize_dialog.hpp"
#include "sailor/run_events.hpp"
#include "sailor/run_prediction.hpp"
#include "sailor/run_store.hpp"
#include "sailor/scenario.hpp"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QCPAbstractItem;
class QCPItemStraightLine;
class QCPItemText;
class QCPBars;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTabWidget;
class QTreeWidget;
class QTreeWidgetItem;

namespace sailor::studio {

// Where Start runs the plan: this machine (a local rehearsal, one process per GPU), a Slurm
// cluster described by a cluster description file (docs/formats.md), on an optional partition,
// or no run at all: Export writes the plan's launch files (Kubernetes, torchrun or Slurm) for a
// cluster the studio does not drive, into a directory (`sailor export`).
enum class LaunchKind { Local, Cluster, Export };

struct LaunchTarget {
  LaunchKind kind = LaunchKind::Local;
  QString cluster_file;  // absolute path; empty until one is chosen (Export: the default one)
  QString partition;     // empty: the cluster description's
  QString export_format = QStringLiteral("kubernetes");  // "kubernetes", "torchrun" or "slurm"
  QString export_dir;  // where Export writes the files; empty until one is given
};

class RunMonitor : public QWidget {
  Q_OBJECT

 public:
  // Paused: the run waits for resources (a paused event), the worker holding its state.
  enum class WorkerState { Starting, Ready, Running, Finished, Stopped, Failed, Paused };
  // Worker table columns.
  enum Column {
    ColRank,
    ColStage,
    ColReplica,
    ColTpRank,
    ColGpu,
    ColZone,
    ColPid,
    ColDevice,
    ColState,
    ColLastIteration,
    ColLastReport,
    ColumnCount
  };
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

  // --- state, for the studio and the tests ---
  QCustomPlot* lossPlot() const { return loss_plot_; }
  QCustomPlot* iterationTimePlot() const { return time_plot_; }  // graph 0: measured
  QCustomPlot* throughputPlot() const { return throughput_plot_; }
  // Per stage s: graph 2s compute, graph 2s + 1 communication (dashed), in the stage's colour.
  QCustomPlot* stageTimePlot() const { return stage_plot_; }
  QCustomPlot* memoryPlot() const { return memory_plot_; }  // bars: x = rank, MiB
  QCPBars* memoryBars() const { return memory_bars_; }
  QTableWidget* workerTable() const { return workers_; }  // one row per rank, by rank
  QTreeWidget* pastRunsView() const { return runs_; }
  QPlainTextEdit* logView() const { return log_; }
  // One row per reconfigured or paused event, in order.
  QTreeWidget* reconfigurationView() const { return reconfigs_; }
  // The reconfigured events of the run shown, in order.
  const std::vector<sailor::ReconfiguredEvent>& reconfigurations() const {
    return reconfigurations_;
  }
  // Whether the run waits for resources (a paused event, not yet followed by a reconfigured or
  // finished one), and the pause banner's text.
  bool pausedShown() const;
  QString pausedText() const;
  std::optional<WorkerState> workerState(int rank) const;
  bool errorShown() const;
  QString errorText() const;                      // the banner's text (empty when hidden)
  QString statusText() const;                     // the one-line summary above the plots
  std::int64_t runId() const { return run_id_; }  // the run shown (0: none)
  double predictedIterationSeconds() const { return predicted_s_; }  // NaN: none
  // Where the dashed line is drawn: the run's local prediction when it has one, else the plan's
  // (NaN: none), and its label ("predicted 0.91 s for cpu-amd-epyc (profile DIR, measured
  // 2026-12-04)", "predicted 28.9 s for the plan's A100-40").
  double shownPredictionSeconds() const;
  QString predictionLabelText() const;
  // The Prediction tab: its rows (empty before the first iteration of a run with a local
  // prediction) and the line above them (what the prediction is for, or why there is none).
  std::vector<sailor::ComparisonRow> comparisonRows() const { return comparison_rows_; }
  QString comparisonNote() const;
  bool isRunning() const { return running_; }
  int iterationsRequested() const;    // the iterations box, for startRequested
  QString dataSource() const;         // "synthetic" or "text", for startRequested
  LaunchTarget launchTarget() const;  // the target chooser, read by the studio on Start
  // The Elastic box: Start runs a local run with --elastic (it re-plans when workers are lost or
  // the user resizes it).
  bool elasticRequested() const;
  // The plan the run shown has now: the last reconfigured event's new plan, else run_started's
  // (an empty plan before any).
  sailor::Plan currentPlan() const;
  // What Resize... offers: every (GPU type, zone) of currentPlan() and of the pools given to
  // setResizable, with currentPlan()'s GPUs there.
  std::vector<GpuSite> resizeSites() const;
  // Whether Resize... can be pressed now (see setResizable), and the dialog it opened while it is
  // open (null otherwise).
  bool resizeOffered() const;
  ResizeDialog* resizeDialog() const { return resize_dialog_; }
  // The scheduler's job of the run shown (job_state events): "" before any.
  QString jobId() const { return job_id_; }
  QString jobState() const { return job_state_; }                 // the last state, "RUNNING"
  QStringList jobStatesSeen() const { return job_states_seen_; }  // in order, repeats dropped
  QString jobText() const;                                        // the job label's text
  // The last export's one-line result ("Wrote sailor.yaml to DIR", or why nothing was written).
  QString exportResultText() const;
  bool exportFailed() const { return export_failed_; }
  // Whether the Re-attach button is offered for the run shown (see setReattachable).
  bool reattachOffered() const;

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
  void resizeRequested(qint64 run_id, const std::vector<sailor::studio::GpuSite>& sites);
  void reopenRequested(qint64 run_id);
  void refreshRunsRequested();
  // The user changed the launch target (or chose a cluster description file with the dialog).
  void launchTargetChanged(const sailor::studio::LaunchTarget& target);
  // Edit... next to the cluster description: the studio opens the editor on launchTarget()'s
  // file (a new description when there is none).
  void editClusterRequested();

 private:
  struct WorkerRow {
    int row = 0;
    WorkerState state = WorkerState::Starting;
  };
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
  // A vertical marker at iteration `x` on every iteration plot, with `label` at its top (none
  // when empty); `object_name` names the line and label items (the tests find them by it).
  void addIterationMarker(double x, const QString& label, const QColor& colour, Qt::PenStyle style,
                          const QString& object_name);
  // Drops the points of iterations >= `first` from every iteration plot: they are trained again
  // (a resume from a checkpoint, a reconfiguration that restored state from one).
  void dropIterationsFrom(int first);
  void fillWorkerRows(const std::vector<sailor::RunWorker>& workers, WorkerState state,
                      const QString& time);
  void hidePause();
  void openResizeDialog();
  void chooseClusterFile();
  void chooseExportDir();
  void updateTarget();
  void buildUi();
  QHBoxLayout* buildHeaderRow();    // Start, Stop, the run options and the status line
  QHBoxLayout* buildTargetRow();    // the launch target chooser and its fields, job and export
  void connectTargetRow();          // the target row's signals
  void buildBanners();              // the error banner and the pause banner, hidden
  void buildIterationPlots();       // loss, iteration time (with the prediction) and throughput
  void buildStageAndMemoryPlots();  // time per stage and peak memory per rank
  QWidget* buildPlots();            // every plot, in their grid
  void buildWorkersTab();           // the worker table
  void buildLogTab();               // the log of warnings and errors
  void buildReconfigurationsTab();  // the reconfigurations and pauses of an elastic run
  QWidget* buildPastRunsTab();      // the past runs list with Open and Refresh, wired
  QWidget* buildPredictionTab();    // the prediction against the measurement
  void buildTabs();                 // tabs_ with the tabs above
  QCustomPlot* makePlot(const QString& title, const QString& x_label, const QString& y_label);
  void replot(QCustomPlot* plot, bool include_prediction = false);
  void setWorkerState(int rank, WorkerState state, const QString& detail = {});
  void setCell(int row, int column, const QString& text);
  void markReport(int rank, const QString& time);
  void ensureStageGraphs(int stages);
  void updatePrediction();
  void updateComparison();
  void updateStatus();
  void updateButtons();
  void appendLog(const QString& time, const QString& text);
  void showBanner(const QString& text, const QString& details);

  // Widgets (owned by Qt's parent tree).
  QPushButton* start_ = nullptr;
  QPushButton* stop_ = nullptr;
  QCheckBox* elastic_ = nullptr;
  QPushButton* resize_ = nullptr;
  QPointer<ResizeDialog> resize_dialog_;
  QSpinBox* iterations_ = nullptr;
  QComboBox* data_ = nullptr;
  QComboBox* target_ = nullptr;  // this machine / Slurm cluster
  QLineEdit* cluster_file_ = nullptr;
  QPushButton* choose_cluster_ = nullptr;
  QPushButton* edit_cluster_ = nullptr;
  QLineEdit* partition_ = nullptr;
  QComboBox* export_format_ = nullptr;  // kubernetes / torchrun / slurm
  QLineEdit* export_dir_ = nullptr;
  QPushButton* choose_export_dir_ = nullptr;
  QLabel* export_result_ = nullptr;  // the last export's one line
  QPushButton* reattach_ = nullptr;
  QLabel* job_ = nullptr;  // "Slurm job 13: PENDING (Resources)"
  QLabel* status_ = nullptr;
  QLabel* banner_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QCustomPlot* loss_plot_ = nullptr;
  QCustomPlot* time_plot_ = nullptr;
  QCustomPlot* throughput_plot_ = nullptr;
  QCustomPlot* stage_plot_ = nullptr;
  QCustomPlot* memory_plot_ = nullptr;
  QCPBars* memory_bars_ = nullptr;
  QCPItemStraightLine* prediction_line_ = nullptr;
  QCPItemText* prediction_label_ = nullptr;
  QTableWidget* workers_ = nullptr;
  QTreeWidget* runs_ = nullptr;
  QPlainTextEdit* log_ = nullptr;
  QTreeWidget* reconfigs_ = nullptr;
  QTableWidget* comparison_ = nullptr;  // the Prediction tab: quantity, predicted, measured, error
  QLabel* comparison_note_ = nullptr;
  QLabel* pause_banner_ = nullptr;
  QCPItemText* memory_world_label_ = nullptr;  // the world the memory bars are of, after a change

  // The run shown.
  std::int64_t run_id_ = 0;
  std::optional<sailor::RunStartedEvent> started_;
  std::map<int, WorkerRow> worker_rows_;     // by rank
  std::map<int, std::int64_t> peak_memory_;  // by rank: bytes, max over iterations so far
  std::optional<sailor::IterationEvent> last_iteration_;
  std::vector<sailor::IterationEvent> measured_;  // every iteration shown, in order
  std::vector<sailor::ComparisonRow> comparison_rows_;
  std::optional<sailor::RunFinishedEvent> finished_;
  int stage_graphs_ = 0;  // stages with graphs in stage_plot_
  // Reconfiguration, checkpoint and resume markers on the plots (removed by clearRun), and the
  // highest iteration one stands at (the plots' x range includes it).
  std::vector<QCPAbstractItem*> markers_;
  double markers_max_x_ = std::numeric_limits<double>::quiet_NaN();  // NaN: none
  int reconfiguration_labels_ = 0;  // labels placed so far (staggered so that they do not overlap)
  std::vector<sailor::ReconfiguredEvent> reconfigurations_;
  std::optional<sailor::PausedEvent> paused_;
  // The generation of the world shown in the workers table; -1 before any (the next
  // workers_started lays the table out, whatever its generation: a resumed run's, say).
  int generation_ = -1;
  // Workers a workers_started event of a later generation listed before its reconfigured event
  // (the joiners are launched during the reconfiguration): their pids, by rank.
  std::map<int, std::map<int, sailor::RunWorker>> joiners_;  // by generation, then rank
  double predicted_s_;                                       // NaN: none
  bool running_ = false;
  bool start_available_ = true;
  QString start_unavailable_reason_;
  bool stored_ = false;  // the run shown was reopened from the store
  bool export_failed_ = false;
  bool resizable_ = false;  // setResizable
  QString resize_unavailable_reason_;
  std::vector<sailor::Pool> resize_pools_;
  QString job_launcher_, job_id_, job_state_, job_reason_;
  QStringList job_states_seen_;
};

}  // namespace sailor::studio
