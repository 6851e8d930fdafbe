// Plan > Compare scenarios…: two or more scenarios planned for the job in the job panel and
// shown side by side (ComparisonView): the scenario as edited now (taken as a snapshot, so that
// switching pools off and on compares offers without copying files) and scenario files. Each
// is planned in turn on a planning service of its own, off the GUI thread; the figures export
// as CSV and the plot as PNG or PDF.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <QDialog>
#include <QString>

#include "planning_service.hpp"
#include "sailor/planning/comparison.hpp"

class QLabel;
class QListWidget;
class QPushButton;

namespace sailor::studio {

class ComparisonView;

class ComparisonWindow : public QDialog {
  Q_OBJECT

 public:
  // What the main window plans now: its scenario, job, catalogue and planner options (nullopt
  // when the job panel has an error).
  using RequestSource = std::function<std::optional<PlanRequest>()>;

  explicit ComparisonWindow(RequestSource source, QWidget* parent = nullptr);
  ~ComparisonWindow() override;

  // A scenario to compare, as it is now, under `name` (made unique with " (2)", ...).
  void addScenario(const QString& name, std::shared_ptr<const sailor::Scenario> scenario);
  // The main window's scenario as edited now, named after it (and how many pools it uses when
  // some are switched off). False when the job panel has an error (said in the status line).
  bool addCurrentScenario();
  // A scenario file (docs/formats.md); false, with the reason in the status line, when it does
  // not read.
  bool addScenarioFile(const QString& path);
  void removeScenario(int index);
  int scenarioCount() const { return static_cast<int>(entries_.size()); }
  QStringList scenarioNames() const;

  // Plans every scenario for the main window's job and options, one after the other; the view
  // fills as each is done. False when there is nothing to compare or the job has an error.
  bool compare();
  bool busy() const { return next_ < plan_.size(); }

  ComparisonView* view() const { return view_; }
  QString statusText() const;

 signals:
  void compared();  // every scenario of a compare() planned and shown

 private:
  struct Entry {
    QString name;
    std::shared_ptr<const sailor::Scenario> scenario;
  };
  void planNext();
  void onFinished(quint64 id, const std::shared_ptr<const sailor::PlanResult>& result);
  void onFailed(quint64 id, const QString& message);
  void showRows();
  void exportCsvWithDialog();
  void exportPlotWithDialog();
  void updateButtons();

  RequestSource source_;
  std::vector<Entry> entries_;
  std::vector<Entry> plan_;  // the scenarios of the compare() under way, in order
  std::size_t next_ = 0;     // the next of plan_ to plan (plan_.size(): done)
  std::optional<PlanRequest> base_;
  std::vector<sailor::ScenarioComparison> rows_;
  PlanningService* planner_ = nullptr;
  quint64 current_ = 0;
  QListWidget* list_ = nullptr;
  QLabel* status_ = nullptr;
  QPushButton *add_current_ = nullptr, *add_file_ = nullptr, *remove_ = nullptr,
              *compare_ = nullptr, *export_csv_ = nullptr, *export_plot_ = nullptr;
  ComparisonView* view_ = nullptr;
};

}  // namespace sailor::studio
