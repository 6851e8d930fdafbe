// Scenarios side by side (the studio's Compare scenarios window): one row per scenario with its
// best plan for the job (GPUs, zones, spot share, iteration, tokens/s, USD/h, MFU) and, with a
// training budget, its whole run (days, total USD, goodput, expected failures and preemptions,
// hours lost to them); a plot of days against total USD, one labelled point per scenario, with
// the deadline and budget as dashed lines. Exports the figures as CSV (sailor::comparisonCsv) and
// the plot as PNG or PDF, each written whole or not at all.
#pragma once

#include <optional>
#include <vector>

#include <QString>
#include <QWidget>

#include "sailor/planning/comparison.hpp"

class QCustomPlot;
class QLabel;
class QTableWidget;

namespace sailor::studio {

class ComparisonView : public QWidget {
  Q_OBJECT

 public:
  explicit ComparisonView(QWidget* parent = nullptr);

  // The rows to show, and the job's deadline (days) and budget (USD) where it has them.
  void setRows(std::vector<sailor::ScenarioComparison> rows,
               std::optional<double> deadline_days = std::nullopt,
               std::optional<double> budget_usd = std::nullopt);
  const std::vector<sailor::ScenarioComparison>& rows() const { return rows_; }

  QTableWidget* table() const { return table_; }
  QCustomPlot* plot() const { return plot_; }
  // The plot's message when it has no point to draw (no training budget, no plan); empty else.
  QString plotMessage() const;

  // The figures as CSV into `path`; the plot as PNG or PDF by the path's suffix (.png, .pdf),
  // `width` x `height` pixels (points for PDF). Written to a temporary file beside `path`, then
  // renamed over it: an error leaves `path` as it was. Empty, or why not (one line).
  QString exportCsv(const QString& path) const;
  QString exportPlot(const QString& path, int width = 960, int height = 600) const;

 private:
  void fillTable();
  void drawPlot();

  std::vector<sailor::ScenarioComparison> rows_;
  std::optional<double> deadline_days_, budget_usd_;
  QTableWidget* table_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  QLabel* plot_message_ = nullptr;
};

}  // namespace sailor::studio
