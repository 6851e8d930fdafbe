// The Run tab's live view of one run: plots of loss, iteration time, throughput, per-stage
// compute and communication times and peak memory per rank, in a grid, and the table of the
// workers (one row per rank) with their state. Markers on the iteration plots: vertical lines
// with a label (reconfigurations, resumes) and short ticks (checkpoints).
//
// A view only, fed by the run monitor with what each event says; the workers table is its own
// widget (workerTable()), placed by the run monitor in its tabs.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include <QColor>
#include <QString>
#include <QWidget>

#include "sailor/runs/run_events.hpp"

class QCustomPlot;
class QCPAbstractItem;
class QCPBars;
class QCPItemText;
class QTableWidget;

namespace sailor::studio {

class LivePlots : public QWidget {
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

  explicit LivePlots(QWidget* parent = nullptr);

  static QString workerStateName(WorkerState state);  // translated: "starting", "ready", ...

  QCustomPlot* lossPlot() const { return loss_plot_; }
  QCustomPlot* iterationTimePlot() const { return time_plot_; }  // graph 0: measured
  QCustomPlot* throughputPlot() const { return throughput_plot_; }
  // Per stage s: graph 2s compute, graph 2s + 1 communication (dashed), in the stage's colour.
  QCustomPlot* stageTimePlot() const { return stage_plot_; }
  QCustomPlot* memoryPlot() const { return memory_plot_; }  // bars: x = rank, MiB
  QCPBars* memoryBars() const { return memory_bars_; }
  QTableWidget* workerTable() const { return workers_; }  // one row per rank, by rank
  std::optional<WorkerState> workerState(int rank) const;
  int workerCount() const { return static_cast<int>(worker_rows_.size()); }

 public slots:
  // Empties every plot and the table, and removes the markers.
  void clear();
  // Graphs for `stages` stages on the time-per-stage plot (kept when there are more already).
  void ensureStageGraphs(int stages);
  // The table as `workers` (any order), every row in `state`; pid 0 shows as "-".
  void setWorkers(const std::vector<sailor::RunWorker>& workers, WorkerState state,
                  const QString& time);
  // The pids of workers already in the table (joiners of a reconfigured world).
  void setWorkerPids(const std::vector<sailor::RunWorker>& workers, const QString& time);
  // Each rank's device (by rank); starting workers become ready.
  void setDevices(const std::vector<std::string>& devices, const QString& time);
  // A point on every plot, the peak memory bars, and the ranks' rows.
  void addIteration(const sailor::IterationEvent& event, const QString& time);
  // Drops the points of iterations >= `first` from every iteration plot: they are trained again.
  void dropIterationsFrom(int first);
  void setWorkerState(int rank, WorkerState state, const QString& detail = {});
  // Every worker that has not failed goes to `state` (with `detail` as its tooltip).
  void setLiveWorkersState(WorkerState state, const QString& detail = {});
  // The time of `rank`'s last report (an ISO time; empty: unchanged).
  void markReport(int rank, const QString& time);
  // A vertical marker at iteration `x` on every iteration plot, with `label` at its top (none
  // when empty); `object_name` names the line and label items (the tests find them by it).
  void addIterationMarker(double x, const QString& label, const QColor& colour, Qt::PenStyle style,
                          const QString& object_name);
  // A short tick at the bottom of each iteration plot (a checkpoint).
  void addCheckpointTick(double x);
  // The memory bars restart (a new world's ranks), captioned with `caption`.
  void restartMemory(const QString& caption);
  // A value the iteration time plot's axis includes (the dashed prediction; NaN: none).
  void setTimeReference(double seconds);
  // Sets every plot's ranges to its data and markers and queues a replot.
  void replotAll();
  void replotIterationPlots();  // every plot but the memory bars

 private:
  struct WorkerRow {
    int row = 0;
    WorkerState state = WorkerState::Starting;
  };
  QCustomPlot* makePlot(const QString& title, const QString& x_label, const QString& y_label);
  void buildIterationPlots();
  void buildStageAndMemoryPlots();
  void buildWorkerTable();
  void replot(QCustomPlot* plot);
  void replotMemory();
  void setCell(int row, int column, const QString& text);

  QCustomPlot* loss_plot_ = nullptr;
  QCustomPlot* time_plot_ = nullptr;
  QCustomPlot* throughput_plot_ = nullptr;
  QCustomPlot* stage_plot_ = nullptr;
  QCustomPlot* memory_plot_ = nullptr;
  QCPBars* memory_bars_ = nullptr;
  QCPItemText* memory_world_label_ = nullptr;  // the world the memory bars are of, after a change
  QTableWidget* workers_ = nullptr;

  std::map<int, WorkerRow> worker_rows_;     // by rank
  std::map<int, std::int64_t> peak_memory_;  // by rank: bytes, max over iterations so far
  int stage_graphs_ = 0;                     // stages with graphs in stage_plot_
  // Markers on the plots (removed by clear), and the highest iteration one stands at (the plots'
  // x range includes it).
  std::vector<QCPAbstractItem*> markers_;
  double markers_max_x_ = std::numeric_limits<double>::quiet_NaN();  // NaN: none
  int marker_labels_ = 0;  // labels placed so far (staggered so that they do not overlap)
  double time_reference_s_ = std::numeric_limits<double>::quiet_NaN();  // NaN: none
};

}  // namespace sailor::studio
