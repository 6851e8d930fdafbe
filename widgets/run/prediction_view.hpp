// Prediction against measurement on the Run tab: the dashed line of the predicted iteration time
// on the iteration time plot, with its label, and the Prediction tab (this widget): the run's
// predicted figures beside the measured ones (sailor::compareRun: iteration time, per-stage
// compute and communication, peak memory, relative errors).
//
// Which prediction is drawn: a run that recorded a prediction for the hardware it runs on
// (run_started's prediction, from the local device's profile) has its line at that prediction,
// labelled with the device it is for; before a run starts the line is the plan's (set by the
// studio, for the plan's GPUs); a run without a prediction of its own gets no line, and the label
// says the plan's figure is not comparable.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include <QString>
#include <QWidget>

#include "sailor/runs/run_events.hpp"
#include "sailor/runs/run_prediction.hpp"

class QCustomPlot;
class QCPItemStraightLine;
class QCPItemText;
class QLabel;
class QTableWidget;

namespace sailor::studio {

class PredictionView : public QWidget {
  Q_OBJECT

 public:
  // Draws on `time_plot` (the iteration time plot, whose y axis is seconds).
  explicit PredictionView(QCustomPlot* time_plot, QWidget* parent = nullptr);

  double planSeconds() const { return plan_s_; }  // NaN: none
  // Where the dashed line is drawn (NaN: none) and its label ("predicted 0.91 s for
  // cpu-amd-epyc (profile DIR, measured 2026-12-04)", "predicted 28.9 s for the plan's A100-40").
  double shownSeconds() const;
  QString labelText() const;
  // The comparison's rows (empty before the first iteration of a run with a local prediction)
  // and the line above them (what the prediction is for, or why there is none).
  std::vector<sailor::ComparisonRow> comparisonRows() const { return comparison_rows_; }
  QString comparisonNote() const;

 public slots:
  // The plan's predicted iteration time (simulator); NaN or <= 0: none.
  void setPlanSeconds(double seconds);
  // A run shown: its header (with its own prediction, if it recorded one).
  void startRun(std::int64_t run_id, const sailor::RunStartedEvent& started);
  // No run shown: the plan's prediction only.
  void clearRun();
  // A measured iteration, and the iterations >= `first` dropped (they are trained again).
  void addIteration(const sailor::IterationEvent& event);
  void dropIterationsFrom(int first);

 signals:
  // The line moved or went (NaN): the plot's axis is to include it.
  void shownSecondsChanged(double seconds);

 private:
  void updateLine();
  void placeLabel();  // above the line when it has the room there, else below it
  void updateComparison();

  QCustomPlot* plot_ = nullptr;
  QCPItemStraightLine* line_ = nullptr;
  QCPItemText* label_ = nullptr;
  QLabel* note_ = nullptr;
  QTableWidget* table_ = nullptr;  // quantity, predicted, measured, error

  double plan_s_ = std::numeric_limits<double>::quiet_NaN();  // NaN: none
  std::int64_t run_id_ = 0;
  std::optional<sailor::RunStartedEvent> started_;
  std::vector<sailor::IterationEvent> measured_;  // every iteration shown, in order
  std::vector<sailor::ComparisonRow> comparison_rows_;
};

}  // namespace sailor::studio
