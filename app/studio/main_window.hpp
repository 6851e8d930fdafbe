// The studio's main window: wires the widgets (resource editor, job panel, trade-off plot, plan
// inspector, run monitor) to the background services (planning, runs, run history). Three tabs
// follow a session's flow: Resources (draw what you could rent; the job and objective beside
// it), Plans (the trade-off of every plan found, and the selected plan inspected), Run (train the
// selected plan with the bundled runtime and watch it; past runs).
//
// Planning: every valid edit (scenario, job, objective) re-plans after a short pause when "Re-plan
// on every edit" is on (the default); a newer request supersedes the running one, whose result is
// dropped (PlanningService). The scenario and job a result was planned for are kept with it: the
// inspector and a run use those, not the document edited since.
#pragma once

#include <memory>
#include <optional>

#include <QMainWindow>
#include <QPointer>
#include <QTimer>

#include "planning_service.hpp"
#include "run_client.hpp"
#include "run_session.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/prices.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/scenario/availability.hpp"
#include "sailor/scenario/session.hpp"

class QAction;
class QLabel;
class QProgressBar;
class QTabWidget;
class QToolButton;

namespace sailor::studio {

class ClusterEditor;
class ComparisonWindow;
class JobPanel;
class PlanInspector;
class PropertyPanel;
class ResourceCanvas;
class RunHistory;
class RunMonitor;
struct LaunchTarget;
class ScenarioDocument;
class TradeoffPlot;

struct MainWindowOptions {
  QString scenario_file;  // empty: the built-in default scenario
  // The scenario file as the file system spells it (bytes, from the command line: a name that
  // is not UTF-8 has no QString); when set, it is opened instead of scenario_file.
  QByteArray scenario_file_native;
  QString job_file;           // empty: the built-in default job (resources/jobs/default.json)
  QString run_store;          // empty: the runtime's default store
  int replan_delay_ms = 400;  // pause after the last edit before re-planning
  bool plan_on_start = true;
  // The search starts at the edit, the pause's request takes it over (NOTE [Searching during
  // the re-plan pause]); false: it starts at the pause's end (the benchmark's baseline).
  bool search_during_pause = true;
};

// The scenario file named on the studio's command line as the file system spells it, for
// `positional`, QCommandLineParser's first positional argument: the first argument of
// argv[1..argc) that is not an option, nor the value of one of `valued_options` given as a
// separate argument ("--store FILE"; after "--" every argument is one), when it decodes to
// `positional`; else QFile::encodeName(positional). QCommandLineParser decodes arguments as
// UTF-8 (Qt 6), a byte that is not becoming U+FFFD, so `positional` names another file; these
// bytes name the one given.
QByteArray scenarioArgument(const QString& positional, int argc, const char* const* argv,
                            const QStringList& valued_options);

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(MainWindowOptions options = {}, QWidget* parent = nullptr);
  ~MainWindow() override;

  // For tests, the benchmark and screenshots.
  ScenarioDocument* document() const { return document_; }
  ResourceCanvas* canvas() const { return canvas_; }
  PropertyPanel* propertyPanel() const { return properties_; }
  JobPanel* jobPanel() const { return job_panel_; }
  TradeoffPlot* tradeoffPlot() const { return plot_; }
  PlanInspector* inspector() const { return inspector_; }
  ResourceCanvas* inspectorMap() const { return map_; }  // the inspector's Map tab
  RunMonitor* runMonitor() const { return monitor_; }
  // The cluster description editor the Run tab's Edit... opened (null when none is open).
  ClusterEditor* clusterEditor() const;
  PlanningService* planningService() const { return &*planner_; }
  // The run the Run tab starts, follows, resizes and re-attaches to, and its one client.
  RunSession* runSession() const { return session_; }
  RunClient* runClient() const { return session_->client(); }
  // The last `sailor runs resize` the Run tab's Resize... started (program and arguments), for
  // the tests; empty before any.
  QStringList lastResizeCommand() const { return session_->lastResizeCommand(); }
  QTabWidget* tabs() const { return tabs_; }
  std::shared_ptr<const sailor::PlanResult> result() const { return result_; }
  QString planStatus() const;
  QString bannerText() const;  // the Resources tab's message (e.g. a file that failed to open)
  // Why options.scenario_file (or options.job_file) was not opened (one line: file, field,
  // value, expected), the default being shown instead; empty when it was opened or none given.
  QString startupError() const { return startup_error_; }

  // The price catalogue "Add pool from catalogue…" offers: a price sheet (`sailor prices
  // import` writes one) or a SkyPilot catalogue directory (DIR/<cloud>/vms.csv, as
  // ~/.sky/catalogs/v7 holds them), read whole. False: the banner says why, nothing changes.
  bool openPriceCatalogue(const QString& path);
  const std::optional<sailor::PriceSheet>& priceCatalogue() const { return prices_; }
  // This user's SkyPilot catalogue directory ($HOME/.sky/catalogs/v7) when it holds a
  // catalogue, else empty.
  static QString skyPilotCatalogDir();
  // The comparison window (null until Compare scenarios… first opens it).
  ComparisonWindow* comparisonWindow() const;

 public slots:
  void planNow();
  void cancelPlanning();
  // Edit > Add pool from catalogue…: the offer picker over the price catalogue (opened first:
  // this session's, else ~/.sky/catalogs/v7, else one the user chooses); the offer chosen is
  // added as a pool with its region and zone.
  void addPoolFromCatalogue();
  // Plan > Compare scenarios…: the comparison window, holding the current scenario when new.
  void showComparison();
  bool openScenario(const QString& path);  // false: the banner says why; nothing else changes
  bool saveScenario(const QString& path);
  // The job panel's job from a job file (docs/formats.md) or into one (written atomically);
  // false: the banner says why and nothing changes.
  bool openJob(const QString& path);
  bool saveJob(const QString& path);
  void selectPlan(int index);  // index into tradeoffPlot()->points()
  void refreshPastRuns();

 signals:
  // A search was requested (planNow: a re-plan after an edit's pause, F5, the start); `id` is
  // the PlanningService request. For the responsiveness benchmark and tests.
  void planRequested(quint64 id);
  // A finished search's result is shown: the plot, the status bar, the inspector (its timeline
  // is drawn when its tab shows), its map and the run monitor. For the benchmark and tests.
  void resultDelivered();
  // A `sailor runs resize` of the Run tab ended: its exit status (-1: it could not be started)
  // and the one line the monitor shows.
  void resizeFinished(int exit_code, const QString& message);

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  QWidget* scrolled(QWidget* widget);  // `widget` in a frameless, resizing scroll area
  QWidget* buildResourcesTab();        // the canvas, the banner and the side tabs
  QWidget* buildPlansTab();            // the trade-off plot above the plan inspector
  void buildTabs();                    // the central tabs: Resources, Plans, Run (the monitor)
  void buildStatusBar();               // the planning status and progress
  void connectEditing();       // canvas, properties, document and job panel: edits and replanning
  void connectPlanner();       // the planning service's progress and results, the plot's selection
  void connectRun();           // the run monitor and run session; the remembered launch target
  void loadStartupScenario();  // the scenario named on the command line, else the default one
  void loadDefaultJob();       // the default job and the studio's planner options
  // The scenario file's session (ScenarioDocument::session) into the job panel: its model, job
  // and planner settings, each where the file has one. And the inverse, what a save writes.
  void applySession();
  sailor::Session currentSession() const;
  void openRunStore();  // the run history, or the monitor says why not
  void buildActions();
  void buildCatalogueActions();  // the price catalogue, offers as pools, comparison
  void buildMenus();
  void buildToolBar();
  void updateTitle();
  void scheduleReplan();
  void showBanner(const QString& text);
  // Into the document, `path` as the file system spells it; empty, or why not (one line).
  QString loadScenario(const QByteArray& path);
  // The job of a job file, or why not (one line).
  QString loadJob(const QString& path, sailor::Job& job) const;
  bool maybeSave();  // asks about unsaved edits; false: the user cancelled
  void onPlanFinished(quint64 id, std::shared_ptr<const sailor::PlanResult> result);
  void onPlanFailed(quint64 id, const QString& message);
  void startRun(int iterations, const QString& data_source);
  void updateStartAvailability();
  void onRunFinished(int exit_code, const RunOutcome& outcome);
  // The run options the Run tab and the selected plan give (RunSession::start's).
  RunClientOptions runOptions(int iterations, const QString& data_source,
                              const LaunchTarget& target) const;
  // A run of the session started (whoever started it): Resize... is offered when the session
  // says it is resizable (a local elastic run).
  void onRunStarted();
  // The Resize dialog's counts, as the engine's availability, to the session (`sailor runs
  // resize`); its one line to the monitor when it answers (the GUI thread never waits).
  void resizeRun(qint64 run_id, const std::vector<sailor::AvailabilitySite>& sites);
  void onResizeFinished(int exit_code, const QString& message);
  void reopenRun(qint64 id);
  // Re-attach to a stored cluster run whose controller is gone (`sailor runs attach`).
  void reattachRun(qint64 id);
  // The Export target: the selected plan's launch files into target.export_dir.
  void exportLaunch(const LaunchTarget& target);
  // The Run tab's Edit...: the editor on the target's cluster description (a new one from the
  // scenario's pools when none is chosen); a file the engine refuses is not opened (the monitor
  // says why), so that nothing the editor cannot show is lost.
  void editCluster();
  // The editor's checked description: written atomically to `path`, which the Run tab uses then.
  void saveCluster(const QString& path, const QString& json_text);
  void setLanguage(const QString& code);
  std::shared_ptr<const sailor::Catalog> planningCatalog() const;
  // What to plan now: the document, the job panel's job and options, the planning catalogue;
  // nothing when the job panel cannot plan (said in the status bar or the panel with `report`).
  std::optional<PlanRequest> planRequest(bool report);
  // The last catalogue planningCatalog() made, and its custom model's JSON ("" for none).
  mutable std::shared_ptr<const sailor::Catalog> planning_catalog_;
  mutable std::string planning_custom_;

  MainWindowOptions options_;
  QString startup_error_;
  sailor::Catalog catalog_;
  std::unique_ptr<PlanningService> planner_;
  std::unique_ptr<RunHistory> history_;
  RunSession* session_ = nullptr;

  ScenarioDocument* document_ = nullptr;
  ResourceCanvas* canvas_ = nullptr;
  ResourceCanvas* map_ = nullptr;  // the inspector's read-only map with the plan overlay
  PropertyPanel* properties_ = nullptr;
  JobPanel* job_panel_ = nullptr;
  QTabWidget* side_tabs_ = nullptr;  // beside the canvas: the job panel, the selection
  TradeoffPlot* plot_ = nullptr;
  PlanInspector* inspector_ = nullptr;
  RunMonitor* monitor_ = nullptr;
  QPointer<ClusterEditor> cluster_editor_;
  QTabWidget* tabs_ = nullptr;
  QLabel* banner_ = nullptr;
  QLabel* plan_status_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QToolButton* cancel_button_ = nullptr;

  QAction* new_ = nullptr;
  QAction* open_ = nullptr;
  QAction* save_ = nullptr;
  QAction* save_as_ = nullptr;
  QAction* open_job_ = nullptr;
  QAction* save_job_ = nullptr;
  QAction* export_plan_ = nullptr;
  QAction* quit_ = nullptr;
  QAction* undo_ = nullptr;
  QAction* redo_ = nullptr;
  QAction* plan_ = nullptr;
  QAction* cancel_ = nullptr;
  QAction* auto_replan_ = nullptr;
  QAction* open_prices_ = nullptr;
  QAction* add_offer_pool_ = nullptr;
  QAction* compare_ = nullptr;
  std::optional<sailor::PriceSheet> prices_;  // the catalogue "Add pool from catalogue…" offers
  QPointer<ComparisonWindow> comparison_;

  QTimer replan_timer_;
  // What the last result was planned for (the inspector and runs use these).
  std::shared_ptr<const sailor::PlanResult> result_;
  std::shared_ptr<const sailor::Scenario> result_scenario_;
  std::shared_ptr<const sailor::Job> result_job_;
  std::shared_ptr<const sailor::Catalog> result_catalog_;
  sailor::PlannerOptions result_options_;
  std::optional<sailor::PlannedPlan> selected_;
  // What the current request was made with (moved to result_* when it finishes).
  std::shared_ptr<const sailor::Scenario> pending_scenario_;
  std::shared_ptr<const sailor::Job> pending_job_;
  std::shared_ptr<const sailor::Catalog> pending_catalog_;
  sailor::PlannerOptions pending_options_;
};

}  // namespace sailor::studio
