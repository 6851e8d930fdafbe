// The plan inspector: one plan and its prediction, in detail. A summary line, then tabs:
// stages (layers, replicas, microbatches, per-microbatch times, straggler), memory per GPU
// against capacity, the iteration-time breakdown, cost (compute and egress), the simulated
// pipeline timeline, and optionally a map the caller provides. "Export plan…" writes the plan
// in the format `sailor simulate --plan` reads; "Export timeline…" writes the simulated schedule
// as a Chrome trace (as `sailor simulate --timeline` does). A view only: it never simulates.
#pragma once

#include <memory>
#include <optional>

#include <QString>
#include <QWidget>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/scenario/scenario.hpp"

class QCustomPlot;
class QLabel;
class QPushButton;
class QTabWidget;
class QTableWidget;

namespace sailor::studio {

class PlanInspector : public QWidget {
  Q_OBJECT

 public:
  explicit PlanInspector(QWidget* parent = nullptr);
  ~PlanInspector() override;

  // Shows `plan` (copied). `scenario` is kept for zone relations; job and catalogue are read
  // during the call only. The timeline's Gantt chart is drawn when its tab is shown (or in the
  // next turn of the event loop when it shows already), not in this call.
  void setPlan(const sailor::PlannedPlan& plan, std::shared_ptr<const sailor::Scenario> scenario,
               const sailor::Job& job, const sailor::Catalog& catalog);
  void clear();
  bool hasPlan() const { return plan_.has_value(); }
  const std::optional<sailor::PlannedPlan>& plan() const { return plan_; }

  // Inserts `map` (reparented; its minimum height lowered to the charts') as the "Map" tab after
  // "Stages"; a second call replaces the previous map, which is deleted.
  void addMapTab(QWidget* map);

  // Writes plan().plan.toJson() with a 2-space indent to `path`, atomically (QSaveFile). On
  // failure returns false and, when `error` is given, says why.
  bool exportPlan(const QString& path, QString* error = nullptr) const;
  // Writes the prediction's timeline as Chrome trace events (sailor::timelineTrace), atomically.
  bool exportTimeline(const QString& path, QString* error = nullptr) const;
  // The Export plan… button's action (a save dialog, then exportPlan; a warning if it fails),
  // also File > Export selected plan… in the main window.
  void exportPlanWithDialog();

  // Tab indices, in order (the Map tab, when added, comes right after Stages).
  QTabWidget* tabs() const { return tabs_; }

  // With the tabs at their preferred height (their tallest page's): what a splitter shares space
  // by. The layout's own hint is its height for width, where the tabs count at their least.
  QSize sizeHint() const override;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void resetContents();  // every view but the timeline emptied, nothing replotted
  QWidget* buildTimePage();
  QWidget* buildCostPage();
  void clearTimeline();
  void ensureTimeline();  // draws the Gantt chart if the plan changed since it was drawn
  void buildStages(const sailor::Job& job, const sailor::Catalog& catalog);
  void buildMemory();
  void buildTime();
  void buildCost();
  // The links the plan's transfers use (sailor::linksOfPlan), each with its figure's source.
  void buildLinks(const sailor::Job& job, const sailor::Catalog& catalog);
  void buildTimeline();
  // A save dialog titled `title`, then `write` to the chosen path; a warning if it fails.
  void exportWithDialog(const QString& title, const QString& file_name, const QString& filter,
                        bool (PlanInspector::*write)(const QString&, QString*) const);
  // Writes text to path through QSaveFile; false and why in *error on failure.
  static bool saveText(const QString& path, const std::string& text, QString* error);

  QLabel* summary_ = nullptr;
  QPushButton* export_button_ = nullptr;
  QPushButton* export_timeline_button_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QTableWidget* stages_table_ = nullptr;
  QCustomPlot* memory_plot_ = nullptr;
  QLabel* memory_messages_ = nullptr;
  QLabel* time_caption_ = nullptr;
  QTableWidget* time_table_ = nullptr;
  QCustomPlot* time_plot_ = nullptr;
  QLabel* model_estimate_ = nullptr;
  QTableWidget* cost_table_ = nullptr;
  QTableWidget* egress_table_ = nullptr;
  QTableWidget* links_table_ = nullptr;
  QCustomPlot* timeline_plot_ = nullptr;
  QWidget* map_ = nullptr;

  std::optional<sailor::PlannedPlan> plan_;
  std::shared_ptr<const sailor::Scenario> scenario_;
  bool timeline_stale_ = false;  // the Gantt chart does not show plan_ yet
};

}  // namespace sailor::studio
