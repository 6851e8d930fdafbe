#include "main_window.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QScrollArea>
#include <QSettings>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

#include "cluster_editor.hpp"
#include "comparison_window.hpp"
#include "job_panel.hpp"
#include "offer_picker.hpp"
#include "plan_inspector.hpp"
#include "property_panel.hpp"
#include "resource_canvas.hpp"
#include "run_history.hpp"
#include "run_monitor.hpp"
#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/formats/plan_export.hpp"
#include "sailor/model/skypilot_catalog.hpp"
#include "sailor/runs/run_store.hpp"
#include "sailor/scenario/cluster.hpp"
#include "scenario_document.hpp"
#include "tradeoff_plot.hpp"

namespace sailor::studio {

namespace {

// After Stop, how long a cluster run's controller may take before it is killed: it cancels the
// job and waits until the job has left the queue (Slurm's KillWait, 30 s by default), and a
// controller killed before that leaves the job running.
constexpr int kClusterStopGraceMs = 60000;

// Processes a local run may start (sailor run --max-local-processes, default 8).
int maxLocalProcesses() {
  if (const char* env = std::getenv("SAILOR_MAX_LOCAL_PROCESSES"); env && *env) {
    const int v = std::atoi(env);
    if (v > 0) return v;
  }
  return 8;
}

QString money(double usd) {
  return usd < 10 ? QStringLiteral("$%1").arg(usd, 0, 'f', 3)
                  : QStringLiteral("$%1").arg(usd, 0, 'f', 2);
}

}  // namespace

QByteArray scenarioArgument(const QString& positional, int argc, const char* const* argv,
                            const QStringList& valued_options) {
  bool options_end = false;
  for (int i = 1; i < argc; ++i) {
    const QByteArray arg(argv[i]);
    if (!options_end && arg == "--") {
      options_end = true;
    } else if (!options_end && arg.startsWith('-') && arg != "-") {
      if (valued_options.contains(QString::fromUtf8(arg))) ++i;  // its value is not the file
    } else {
      return QFile::decodeName(arg) == positional ? arg : QFile::encodeName(positional);
    }
  }
  return QFile::encodeName(positional);
}

MainWindow::MainWindow(MainWindowOptions options, QWidget* parent)
    : QMainWindow(parent),
      options_(std::move(options)),
      catalog_(sailor::Catalog::load(sailor::resourceDir())),
      planner_(std::make_unique<PlanningService>()) {
  setObjectName(QStringLiteral("SailorStudio"));
  session_ = new RunSession(this);
  document_ = new ScenarioDocument(catalog_, this);

  buildTabs();
  buildStatusBar();
  buildActions();
  buildMenus();
  buildToolBar();

  // --- Wiring.
  connectEditing();
  connectPlanner();
  connectRun();

  // --- Content: the scenario, the default job, past runs.
  loadStartupScenario();
  loadDefaultJob();
  openRunStore();
  refreshPastRuns();
  updateTitle();
  resize(1280, 800);
  replan_timer_.stop();
  if (options_.plan_on_start) QTimer::singleShot(0, this, &MainWindow::planNow);
}

QWidget* MainWindow::scrolled(QWidget* widget) {
  auto* area = new QScrollArea(this);
  area->setWidget(widget);
  area->setWidgetResizable(true);
  area->setFrameShape(QFrame::NoFrame);
  return area;
}

QWidget* MainWindow::buildResourcesTab() {
  // --- Resources tab: the canvas, and beside it the selection's properties and the job.
  canvas_ = new ResourceCanvas(document_, this);
  properties_ = new PropertyPanel(document_, this);
  job_panel_ = new JobPanel(catalog_, this);
  side_tabs_ = new QTabWidget(this);
  side_tabs_->setObjectName(QStringLiteral("sideTabs"));
  side_tabs_->addTab(scrolled(job_panel_), tr("Job and objective"));
  side_tabs_->addTab(scrolled(properties_), tr("Selection"));
  auto* resources = new QWidget(this);
  auto* resources_layout = new QVBoxLayout(resources);
  resources_layout->setContentsMargins(0, 0, 0, 0);
  banner_ = new QLabel(resources);
  banner_->setObjectName(QStringLiteral("banner"));
  banner_->setWordWrap(true);
  banner_->setStyleSheet(QStringLiteral(
      "background: #fdecea; color: #8a1c12; border: 1px solid #e0a39c; padding: 6px;"));
  banner_->setVisible(false);
  resources_layout->addWidget(banner_);
  auto* split = new QSplitter(Qt::Horizontal, resources);
  split->addWidget(canvas_);
  split->addWidget(side_tabs_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  split->setSizes({880, 380});
  resources_layout->addWidget(split, 1);
  return resources;
}

QWidget* MainWindow::buildPlansTab() {
  // --- Plans tab: the trade-off plot above, the selected plan's inspector below.
  plot_ = new TradeoffPlot(this);
  inspector_ = new PlanInspector(this);
  map_ = new ResourceCanvas(document_, this);
  map_->setReadOnly(true);
  inspector_->addMapTab(map_);
  auto* plans = new QSplitter(Qt::Vertical, this);
  plans->addWidget(plot_);
  plans->addWidget(scrolled(inspector_));  // a tall memory chart scrolls, the window stays
  plans->setStretchFactor(0, 1);
  plans->setStretchFactor(1, 1);
  return plans;
}

void MainWindow::buildTabs() {
  QWidget* resources = buildResourcesTab();
  QWidget* plans = buildPlansTab();

  // --- Run tab.
  monitor_ = new RunMonitor(this);
  monitor_->setStartAvailable(false, tr("Select a plan first (Plans tab)"));

  tabs_ = new QTabWidget(this);
  tabs_->setObjectName(QStringLiteral("mainTabs"));
  tabs_->addTab(resources, tr("Resources"));
  tabs_->addTab(plans, tr("Plans"));
  // In a scroll area: the monitor's plots and tables then never make the window taller than
  // the screen (1280x800 included); they scroll instead.
  tabs_->addTab(scrolled(monitor_), tr("Run"));
  setCentralWidget(tabs_);
}

void MainWindow::buildStatusBar() {
  // --- Status bar: planning progress and cancel.
  plan_status_ = new QLabel(this);
  plan_status_->setObjectName(QStringLiteral("planStatus"));
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1000);
  progress_->setMaximumWidth(220);
  progress_->setTextVisible(false);
  progress_->setVisible(false);
  statusBar()->addWidget(plan_status_, 1);
  statusBar()->addPermanentWidget(progress_);
}

void MainWindow::connectEditing() {
  connect(canvas_, &ResourceCanvas::selectionChanged, properties_, &PropertyPanel::setSelection);
  connect(canvas_, &ResourceCanvas::selectionChanged, this,
          [this] { side_tabs_->setCurrentIndex(1); });
  connect(canvas_, &ResourceCanvas::editFailed, this,
          [this](const QString& m) { statusBar()->showMessage(m, 8000); });
  connect(properties_, &PropertyPanel::editRejected, this,
          [this](const QString&, const QString& m) { statusBar()->showMessage(m, 8000); });
  connect(document_, &ScenarioDocument::changed, this, [this] {
    banner_->setVisible(false);
    scheduleReplan();
  });
  connect(document_, &ScenarioDocument::fileChanged, this, &MainWindow::updateTitle);
  connect(document_, &ScenarioDocument::modifiedChanged, this, &MainWindow::updateTitle);
  connect(job_panel_, &JobPanel::changed, this, &MainWindow::scheduleReplan);

  replan_timer_.setSingleShot(true);
  replan_timer_.setInterval(options_.replan_delay_ms);
  connect(&replan_timer_, &QTimer::timeout, this, &MainWindow::planNow);
}

void MainWindow::connectPlanner() {
  connect(planner_.get(), &PlanningService::started, this, [this](quint64) {
    progress_->setValue(0);
    progress_->setVisible(true);
    cancel_->setEnabled(true);
    plan_status_->setText(tr("Planning…"));
    plan_status_->setToolTip(QString());
  });
  connect(planner_.get(), &PlanningService::progress, this,
          [this](quint64, double fraction, const QString& stage) {
            progress_->setValue(static_cast<int>(std::lround(fraction * 1000)));
            plan_status_->setText(tr("Planning… %1").arg(stage));
          });
  connect(planner_.get(), &PlanningService::finished, this, &MainWindow::onPlanFinished);
  connect(planner_.get(), &PlanningService::failed, this, &MainWindow::onPlanFailed);
  connect(planner_.get(), &PlanningService::cancelled, this, [this](quint64) {
    if (planner_->currentRequest() != 0) return;  // superseded: the next search is going
    progress_->setVisible(false);
    cancel_->setEnabled(false);
    plan_status_->setText(tr("Planning cancelled; the plans shown are from the previous search"));
  });

  connect(plot_, &TradeoffPlot::planSelected, this, &MainWindow::selectPlan);
}

void MainWindow::connectRun() {
  connect(monitor_, &RunMonitor::startRequested, this, &MainWindow::startRun);
  connect(monitor_, &RunMonitor::stopRequested, session_, &RunSession::stop);
  connect(monitor_, &RunMonitor::reopenRequested, this, &MainWindow::reopenRun);
  connect(monitor_, &RunMonitor::reattachRequested, this, &MainWindow::reattachRun);
  connect(monitor_, &RunMonitor::exportRequested, this, &MainWindow::exportLaunch);
  connect(monitor_, &RunMonitor::editClusterRequested, this, &MainWindow::editCluster);
  connect(monitor_, &RunMonitor::refreshRunsRequested, this, &MainWindow::refreshPastRuns);
  connect(session_->client(), &RunClient::eventReceived, monitor_, &RunMonitor::applyEvent);
  connect(session_, &RunSession::finished, this, &MainWindow::onRunFinished);
  connect(session_, &RunSession::started, this, &MainWindow::onRunStarted);
  connect(monitor_, &RunMonitor::resizeRequested, this, &MainWindow::resizeRun);
  connect(session_, &RunSession::resizeFinished, this, &MainWindow::onResizeFinished);
  // The cluster description file and partition are remembered between sessions; the target
  // itself is not: Start on a fresh studio never submits to a cluster unasked.
  {
    const QSettings settings;
    LaunchTarget remembered;
    remembered.cluster_file = settings.value(QStringLiteral("run/cluster_file")).toString();
    remembered.partition = settings.value(QStringLiteral("run/partition")).toString();
    remembered.export_format =
        settings.value(QStringLiteral("run/export_format"), remembered.export_format).toString();
    remembered.export_dir = settings.value(QStringLiteral("run/export_dir")).toString();
    monitor_->setLaunchTarget(remembered);
  }
  connect(monitor_, &RunMonitor::launchTargetChanged, this, [this](const LaunchTarget& target) {
    QSettings settings;
    if (!target.cluster_file.isEmpty())
      settings.setValue(QStringLiteral("run/cluster_file"), target.cluster_file);
    settings.setValue(QStringLiteral("run/partition"), target.partition);
    settings.setValue(QStringLiteral("run/export_format"), target.export_format);
    settings.setValue(QStringLiteral("run/export_dir"), target.export_dir);
    updateStartAvailability();
  });
}

void MainWindow::loadStartupScenario() {
  // A file named on the command line that cannot be opened: the default scenario instead, and
  // the banner says why (after newFromDefault, whose `changed` hides the banner).
  const QByteArray scenario_file = options_.scenario_file_native.isEmpty()
                                       ? QFile::encodeName(options_.scenario_file)
                                       : options_.scenario_file_native;
  if (!scenario_file.isEmpty()) startup_error_ = loadScenario(scenario_file);
  if (scenario_file.isEmpty() || !startup_error_.isEmpty()) {
    const EditResult r = document_->newFromDefault();
    if (!r.ok()) showBanner(r.message);
    else if (!startup_error_.isEmpty())
      showBanner(tr("Could not open %1: %2. The default scenario is shown instead.")
                     .arg(QFileInfo(QFile::decodeName(scenario_file)).fileName(), startup_error_));
  }
}

void MainWindow::loadDefaultJob() {
  // The studio asks for the Pareto frontier too (a few seconds on the default scenario): with
  // the best plans it makes the plot's points. More best plans cost more than they show: the
  // planner's pruning window grows with them (docs/planner.md), e.g. 4 s for 3 plans but 100 s
  // for 20 with the frontier on the default scenario.
  sailor::PlannerOptions planner_defaults;
  planner_defaults.top_k = 3;
  planner_defaults.pareto = true;
  job_panel_->setOptions(planner_defaults);
  // A scenario file that carries its session: its job and settings, unless --job names a job.
  if (options_.job_file.isEmpty() && document_->session().job) {
    applySession();
    return;
  }
  if (document_->session().planner) applySession();
  // A job file named on the command line (--job) that cannot be opened: the default job
  // instead, and the banner says why.
  if (!options_.job_file.isEmpty()) {
    sailor::Job job;
    const QString error = loadJob(options_.job_file, job);
    if (error.isEmpty()) {
      job_panel_->setJob(job);
      return;
    }
    const QString why = tr("Could not open %1: %2. The default job is shown instead.")
                            .arg(QFileInfo(options_.job_file).fileName(), error);
    startup_error_ =
        startup_error_.isEmpty() ? error : startup_error_ + QStringLiteral("; ") + error;
    showBanner(bannerText().isEmpty() ? why : bannerText() + QLatin1Char(' ') + why);
  }
  try {
    job_panel_->setJob(sailor::Job::fromJson(
        sailor::json_util::readFile(sailor::resourceDir() + "/jobs/default.json"), catalog_));
  } catch (const std::exception& e) {
    showBanner(tr("The default job could not be read: %1").arg(QString::fromUtf8(e.what())));
  }
}

QString MainWindow::loadJob(const QString& path, sailor::Job& job) const {
  try {
    job = sailor::Job::fromJson(sailor::json_util::readFile(QFile::encodeName(path).toStdString()),
                                catalog_);
    return {};
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  }
}

bool MainWindow::openJob(const QString& path) {
  sailor::Job job;
  const QString error = loadJob(path, job);
  if (!error.isEmpty()) {
    showBanner(tr("Could not open %1: %2. The job you were editing is unchanged.")
                   .arg(QFileInfo(path).fileName(), error));
    return false;
  }
  job_panel_->setJob(job);
  showBanner({});
  return true;
}

bool MainWindow::saveJob(const QString& path) {
  try {
    sailor::json_util::writeFileAtomically(QFile::encodeName(path).toStdString(),
                                           job_panel_->job().toJson().dump(2) + "\n");
  } catch (const std::exception& e) {
    showBanner(tr("Could not save %1: %2").arg(path, QString::fromUtf8(e.what())));
    return false;
  }
  statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
  return true;
}

void MainWindow::openRunStore() {
  // SQLite's own words for a directory are "unable to open database file".
  if (!options_.run_store.isEmpty() && QFileInfo(options_.run_store).isDir()) {
    monitor_->showFailure(
        tr("The run store cannot be used: %1: is a directory, expected a run store file (SQLite)")
            .arg(options_.run_store));
  } else {
    try {
      history_ = std::make_unique<RunHistory>(options_.run_store);
    } catch (const std::exception& e) {
      monitor_->showFailure(
          tr("The run store cannot be used: %1").arg(QString::fromUtf8(e.what())));
    }
  }
}

MainWindow::~MainWindow() = default;

void MainWindow::buildActions() {
  new_ = new QAction(tr("&New from default scenario"), this);
  new_->setShortcut(QKeySequence::New);
  open_ = new QAction(tr("&Open scenario…"), this);
  open_->setShortcut(QKeySequence::Open);
  save_ = new QAction(tr("&Save scenario"), this);
  save_->setShortcut(QKeySequence::Save);
  save_as_ = new QAction(tr("Save scenario &as…"), this);
  save_as_->setShortcut(QKeySequence::SaveAs);
  open_job_ = new QAction(tr("Open &job…"), this);
  save_job_ = new QAction(tr("Save jo&b…"), this);
  export_plan_ = new QAction(tr("&Export selected plan…"), this);
  export_plan_->setEnabled(false);
  quit_ = new QAction(tr("&Quit"), this);
  quit_->setShortcut(QKeySequence::Quit);
  undo_ = document_->undoStack()->createUndoAction(this, tr("&Undo"));
  undo_->setShortcut(QKeySequence::Undo);
  redo_ = document_->undoStack()->createRedoAction(this, tr("&Redo"));
  redo_->setShortcut(QKeySequence::Redo);
  plan_ = new QAction(tr("&Plan now"), this);
  plan_->setShortcut(QKeySequence(Qt::Key_F5));
  cancel_ = new QAction(tr("&Cancel planning"), this);
  cancel_->setShortcut(QKeySequence(Qt::Key_Escape));
  cancel_->setEnabled(false);
  auto_replan_ = new QAction(tr("Re-plan on every &edit"), this);
  auto_replan_->setCheckable(true);
  auto_replan_->setChecked(true);

  connect(new_, &QAction::triggered, this, [this] {
    if (!maybeSave()) return;
    const EditResult r = document_->newFromDefault();
    if (!r.ok()) showBanner(r.message);
  });
  connect(open_, &QAction::triggered, this, [this] {
    if (!maybeSave()) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open scenario"), QString(),
                                                      tr("Scenario JSON (*.json)"));
    if (!path.isEmpty()) openScenario(path);
  });
  connect(save_, &QAction::triggered, this, [this] {
    QString path = document_->filePath();
    if (path.isEmpty())
      path = QFileDialog::getSaveFileName(
          this, tr("Save scenario"), QStringLiteral("scenario.json"), tr("Scenario JSON (*.json)"));
    if (!path.isEmpty()) saveScenario(path);
  });
  connect(save_as_, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save scenario as"), document_->filePath(), tr("Scenario JSON (*.json)"));
    if (!path.isEmpty()) saveScenario(path);
  });
  connect(open_job_, &QAction::triggered, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open job"), QString(), tr("Job JSON (*.json)"));
    if (!path.isEmpty()) openJob(path);
  });
  connect(save_job_, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save job"), QStringLiteral("job.json"), tr("Job JSON (*.json)"));
    if (!path.isEmpty()) saveJob(path);
  });
  connect(export_plan_, &QAction::triggered, inspector_, &PlanInspector::exportPlanWithDialog);
  connect(quit_, &QAction::triggered, this, &QWidget::close);
  connect(plan_, &QAction::triggered, this, &MainWindow::planNow);
  connect(cancel_, &QAction::triggered, this, &MainWindow::cancelPlanning);
  buildCatalogueActions();
}

void MainWindow::buildCatalogueActions() {
  open_prices_ = new QAction(tr("Open price &catalogue…"), this);
  open_prices_->setStatusTip(
      tr("A price sheet (sailor prices import) or a SkyPilot catalogue "
         "(its vms.csv) whose offers Add pool from catalogue lists"));
  add_offer_pool_ = new QAction(tr("Add pool from &catalogue…"), this);
  add_offer_pool_->setStatusTip(
      tr("Add a pool from a cloud catalogue's offers: GPU type, cloud, region, zone, on-demand "
         "and spot price"));
  compare_ = new QAction(tr("C&ompare scenarios…"), this);
  compare_->setStatusTip(tr("Plan several scenarios for this job and compare them side by side"));
  connect(open_prices_, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open price catalogue"), skyPilotCatalogDir(),
        tr("Price sheets and SkyPilot catalogues (*.json vms.csv);;All files (*)"));
    if (!path.isEmpty()) openPriceCatalogue(path);
  });
  connect(add_offer_pool_, &QAction::triggered, this, &MainWindow::addPoolFromCatalogue);
  connect(compare_, &QAction::triggered, this, &MainWindow::showComparison);
}

QString MainWindow::skyPilotCatalogDir() {
  const QString dir = QDir::home().filePath(QStringLiteral(".sky/catalogs/v7"));
  for (const char* cloud : {"gcp", "aws", "lambda"})
    if (QFileInfo::exists(dir + QStringLiteral("/%1/vms.csv").arg(QLatin1String(cloud))))
      return dir;
  return {};
}

bool MainWindow::openPriceCatalogue(const QString& path) {
  const QFileInfo info(path);
  // A SkyPilot catalogue: its directory, or one of its <cloud>/vms.csv files.
  const QString dir = info.isDir() ? info.absoluteFilePath()
                      : info.fileName() == QStringLiteral("vms.csv")
                          ? info.dir().absolutePath() + QStringLiteral("/..")
                          : QString();
  try {
    sailor::PriceSheet sheet = dir.isEmpty()
                                   ? sailor::PriceSheet::load(QFile::encodeName(path).toStdString())
                                   : sailor::priceSheetFrom(sailor::importSkyPilotCatalogs(
                                         QFile::encodeName(QDir::cleanPath(dir)).toStdString()));
    if (sheet.offers().empty()) {
      showBanner(tr("%1 has no catalogue offers (a price sheet from `sailor prices import`, or a "
                    "SkyPilot catalogue)")
                     .arg(path));
      return false;
    }
    prices_ = std::move(sheet);
  } catch (const std::exception& e) {
    showBanner(tr("Cannot read the price catalogue %1: %2").arg(path, QString::fromUtf8(e.what())));
    return false;
  }
  showBanner(QString());
  return true;
}

void MainWindow::addPoolFromCatalogue() {
  if (!prices_ && !skyPilotCatalogDir().isEmpty()) openPriceCatalogue(skyPilotCatalogDir());
  if (!prices_) {
    open_prices_->trigger();
    if (!prices_) return;
  }
  OfferPicker picker(*prices_, this);
  if (picker.exec() != QDialog::Accepted) return;
  const std::optional<sailor::PriceOffer> offer = picker.selectedOffer();
  if (!offer) return;
  const QString date = QString::fromStdString(prices_->catalogDate()).left(10);
  const EditResult r =
      document_->addOfferPool(*offer, picker.count(), picker.spot(),
                              sailor::isIsoDate(date.toStdString()) ? date : QString());
  showBanner(r.ok() ? QString() : r.message);
}

ComparisonWindow* MainWindow::comparisonWindow() const {
  return comparison_.data();
}

void MainWindow::showComparison() {
  if (!comparison_) {
    comparison_ = new ComparisonWindow([this] { return planRequest(false); }, this);
    comparison_->addCurrentScenario();
  }
  comparison_->show();
  comparison_->raise();
  comparison_->activateWindow();
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addActions({new_, open_, save_, save_as_});
  file->addSeparator();
  file->addActions({open_job_, save_job_});
  file->addSeparator();
  file->addAction(export_plan_);
  file->addSeparator();
  QMenu* language = file->addMenu(tr("&Language"));
  auto* group = new QActionGroup(this);
  const QString current = QSettings().value(QStringLiteral("language")).toString();
  // Language names are written in their own language, so that anyone can find theirs.
  const std::pair<QString, QString> languages[] = {
      {QString(), tr("System default")},
      {QStringLiteral("en"), QStringLiteral("English")},
      {QStringLiteral("zh_CN"), QStringLiteral("简体中文")}};
  for (const auto& [code, name] : languages) {
    QAction* a = language->addAction(name);
    a->setCheckable(true);
    a->setChecked(code == current);
    group->addAction(a);
    connect(a, &QAction::triggered, this, [this, code = code] { setLanguage(code); });
  }
  file->addSeparator();
  file->addAction(quit_);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addActions({undo_, redo_});
  edit->addSeparator();
  edit->addActions(canvas_->editActions());
  edit->addSeparator();
  edit->addActions({add_offer_pool_, open_prices_});

  QMenu* plan = menuBar()->addMenu(tr("&Plan"));
  plan->addActions({plan_, cancel_, auto_replan_});
  plan->addSeparator();
  plan->addAction(compare_);
}

void MainWindow::buildToolBar() {
  QToolBar* bar = addToolBar(tr("Main"));
  bar->setObjectName(QStringLiteral("mainToolBar"));
  bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
  bar->setMovable(false);
  bar->addActions({open_, save_});
  bar->addSeparator();
  bar->addActions({undo_, redo_});
  bar->addSeparator();
  bar->addActions(canvas_->editActions());
  bar->addSeparator();
  bar->addAction(plan_);
  bar->addAction(cancel_);
}

void MainWindow::updateTitle() {
  const QString name = document_->filePath().isEmpty()
                           ? tr("default scenario")
                           : QFileInfo(document_->filePath()).fileName();
  setWindowTitle(tr("%1%2 — Sailor Studio")
                     .arg(name, document_->isModified() ? QStringLiteral("*") : QString()));
}

void MainWindow::showBanner(const QString& text) {
  banner_->setText(text);
  banner_->setVisible(!text.isEmpty());
}

QString MainWindow::bannerText() const {
  return banner_->isHidden() ? QString() : banner_->text();
}

QString MainWindow::planStatus() const {
  return plan_status_->text();
}

void MainWindow::scheduleReplan() {
  if (!auto_replan_->isChecked()) return;
  replan_timer_.start();
  // The search starts now and the pause's request takes it over (NOTE [Searching during the
  // re-plan pause] in planning_service.hpp); inputs the job panel cannot plan yet wait for it.
  if (!options_.search_during_pause) return;
  if (auto request = planRequest(false)) planner_->prefetch(std::move(*request));
}

// One catalogue object while the custom model stays the same: the planning service recognises
// inputs it has planned before (sailor::PlanCache) by the catalogue's identity.
std::shared_ptr<const sailor::Catalog> MainWindow::planningCatalog() const {
  const auto custom = job_panel_->customModel();
  const std::string custom_text = custom ? custom->toJson().dump() : std::string();
  if (planning_catalog_ && custom_text == planning_custom_) return planning_catalog_;
  auto catalog = std::make_shared<sailor::Catalog>(catalog_);
  if (custom) catalog->addModel(*custom);
  planning_catalog_ = catalog;
  planning_custom_ = custom_text;
  return catalog;
}

std::optional<PlanRequest> MainWindow::planRequest(bool report) {
  if (!job_panel_->isValid()) {
    if (report) plan_status_->setText(tr("Fix the highlighted fields in the job panel to plan"));
    return std::nullopt;
  }
  PlanRequest request;
  request.scenario = document_->snapshot();
  request.job = std::make_shared<const sailor::Job>(job_panel_->job());
  try {
    request.catalog = planningCatalog();
  } catch (const sailor::InputError& e) {
    if (report) job_panel_->showPlanProblem(QString::fromUtf8(e.what()));
    return std::nullopt;
  }
  request.options = job_panel_->options();
  return request;
}

void MainWindow::planNow() {
  replan_timer_.stop();
  std::optional<PlanRequest> made = planRequest(true);
  if (!made) return;
  PlanRequest& request = *made;
  pending_scenario_ = request.scenario;
  pending_job_ = request.job;
  pending_catalog_ = request.catalog;
  pending_options_ = request.options;
  emit planRequested(planner_->request(std::move(request)));
}

void MainWindow::cancelPlanning() {
  planner_->cancel();
}

void MainWindow::onPlanFinished(quint64, std::shared_ptr<const sailor::PlanResult> result) {
  progress_->setVisible(false);
  cancel_->setEnabled(false);
  result_ = std::move(result);
  result_scenario_ = pending_scenario_;
  result_job_ = pending_job_;
  result_catalog_ = pending_catalog_;
  result_options_ = pending_options_;
  plot_->setConstraints(result_options_);
  plot_->setResult(result_, *result_job_);
  if (result_->best.empty()) {
    const QString why = QString::fromStdString(result_->no_plan_reason);
    job_panel_->showPlanProblem(tr("No plan: %1").arg(why));
    plan_status_->setText(tr("No plan: %1").arg(why));
    selected_.reset();
    inspector_->clear();
    map_->setPlanOverlay(std::nullopt);
    export_plan_->setEnabled(false);
    monitor_->setStartAvailable(false, tr("No plan to run"));
    emit resultDelivered();
    return;
  }
  const auto& best = result_->best.front();
  plan_status_->setText(
      tr("%n plan(s) · best %1 it/s, %2/iteration, %3 GPUs · %4 candidates in %5 s", "",
         static_cast<int>(plot_->points().size()))
          .arg(best.prediction.iterations_per_s, 0, 'f', 4)
          .arg(money(best.prediction.usd_per_iteration))
          .arg(best.plan.gpuCount())
          .arg(result_->candidates)
          .arg(result_->search_seconds, 0, 'f', 2));
  // The best plans found within the time limit: said in the text, what was searched in the tip.
  plan_status_->setToolTip(QString());
  if (const auto& limit = result_->time_limit) {
    plan_status_->setText(plan_status_->text() + QStringLiteral(" · ") +
                          tr("best found within %1 s (time limit)").arg(limit->limit_s, 0, 'g', 6));
    plan_status_->setToolTip(tr("The search stopped at its time limit; these are the best plans "
                                "found so far. Searched: %1")
                                 .arg(QString::fromStdString(limit->coverageText())));
  }
  for (const auto& note : result_->notes)  // e.g. pools left out for lack of the job's precision
    plan_status_->setText(plan_status_->text() + QStringLiteral(" · ") +
                          QString::fromStdString(note));
  // Select the objective's best plan.
  const auto& points = plot_->points();
  int index = 0;
  for (size_t i = 0; i < points.size(); ++i)
    if (points[i]->plan == best.plan) index = static_cast<int>(i);
  {
    const QSignalBlocker quiet(plot_);  // selectPlan below, once, whether the index changed or not
    plot_->selectPlan(index);
  }
  selectPlan(index);
  emit resultDelivered();
}

void MainWindow::onPlanFailed(quint64, const QString& message) {
  progress_->setVisible(false);
  cancel_->setEnabled(false);
  job_panel_->showPlanProblem(message);
  plan_status_->setText(tr("Planning failed: %1").arg(message));
}

void MainWindow::selectPlan(int index) {
  const auto& points = plot_->points();
  if (index < 0 || index >= static_cast<int>(points.size()) || !result_scenario_) return;
  selected_ = *points[static_cast<size_t>(index)];
  inspector_->setPlan(*selected_, result_scenario_, *result_job_, *result_catalog_);
  map_->setPlanOverlay(selected_->plan);
  export_plan_->setEnabled(true);
  monitor_->setPredictedIterationSeconds(selected_->prediction.iteration_s);
  updateStartAvailability();
}

// Start needs a catalogue model; a local rehearsal also at most maxLocalProcesses() GPUs (one
// process each on this machine), a cluster run a cluster description file. Export needs only a
// directory: it runs nothing, and its cluster description defaults to the shipped one.
void MainWindow::updateStartAvailability() {
  if (!selected_ || !result_job_) return;
  const int gpus = selected_->plan.gpuCount();
  const LaunchTarget target = monitor_->launchTarget();
  if (target.kind == LaunchKind::Export) {
    if (target.export_dir.isEmpty())
      monitor_->setStartAvailable(false, tr("Choose the directory to write the launch files into"));
    else monitor_->setStartAvailable(true);
  } else if (!catalog_.findModel(result_job_->model)) {
    monitor_->setStartAvailable(false,
                                tr("Runs need a catalogue model; %1 is a custom architecture")
                                    .arg(QString::fromStdString(result_job_->model)));
  } else if (target.kind == LaunchKind::Cluster && target.cluster_file.isEmpty()) {
    monitor_->setStartAvailable(false, tr("Choose the cluster description file first"));
  } else if (target.kind == LaunchKind::Local && gpus > maxLocalProcesses()) {
    monitor_->setStartAvailable(
        false, tr("This plan uses %1 GPUs; a local run starts one process per GPU, at most %2. "
                  "Set \"Max GPUs\" to %2 to plan a run of this size.")
                   .arg(gpus)
                   .arg(maxLocalProcesses()));
  } else {
    monitor_->setStartAvailable(true);
  }
}

RunClientOptions MainWindow::runOptions(int iterations, const QString& data_source,
                                        const LaunchTarget& target) const {
  RunClientOptions o;
  o.iterations = iterations;
  o.data = data_source;
  o.store_path = options_.run_store;
  // A local run rehearses the plan on this machine's CPU with the runtime's scaled model
  // (docs/training.md). The job's global batch (often 1024 sequences) would make each iteration
  // last minutes there; two microbatches per replica keep the plan's pipeline schedule, its
  // stage boundaries and every collective, at a size that gives an iteration every few seconds.
  size_t widest = 1;
  for (const auto& stage : selected_->plan.stages) widest = std::max(widest, stage.replicas.size());
  o.global_batch = std::min(result_job_->global_batch_size,
                            selected_->plan.microbatch_size * static_cast<int>(widest) * 2);
  if (target.kind == LaunchKind::Cluster) {
    o.stop_grace_ms = kClusterStopGraceMs;
    // One Slurm job for the whole plan (docs/launch.md "Slurm runs"): sailor run checks the
    // cluster description and asks Slurm (sbatch --test-only) before anything is recorded.
    o.launcher = RunLauncher::Slurm;
    o.cluster_file = target.cluster_file;
    o.partition = target.partition;
  } else {
    o.elastic = monitor_->elasticRequested();
  }
  return o;
}

void MainWindow::startRun(int iterations, const QString& data_source) {
  if (!selected_ || !result_scenario_ || session_->isRunning()) return;
  const LaunchTarget target = monitor_->launchTarget();
  const bool cluster = target.kind == LaunchKind::Cluster;
  if (target.kind == LaunchKind::Export) return;  // exportRequested, not startRequested
  if (cluster && target.cluster_file.isEmpty()) {
    monitor_->showFailure(tr("Choose the cluster description file of the cluster to run on."));
    return;
  }
  if ((!cluster && selected_->plan.gpuCount() > maxLocalProcesses()) ||
      !catalog_.findModel(result_job_->model)) {
    monitor_->showFailure(tr("This plan cannot run on this machine: it uses %1 GPUs (one process "
                             "each, at most %2) with model %3.")
                              .arg(selected_->plan.gpuCount())
                              .arg(maxLocalProcesses())
                              .arg(QString::fromStdString(result_job_->model)));
    return;
  }
  const RunClientOptions o = runOptions(iterations, data_source, target);
  monitor_->clearRun();
  if (session_->start(selected_->plan, *result_scenario_, *result_job_, o))
    monitor_->setRunning(true);
}

void MainWindow::onRunStarted() {
  // The run is running from here on, however it was started (Start, or a test's RunClient).
  monitor_->setRunning(true);
  monitor_->setResizable(session_->isResizable(), session_->pools(),
                         tr("Start the run with Elastic checked to resize it"));
}

void MainWindow::resizeRun(qint64 run_id, const std::vector<sailor::AvailabilitySite>& sites) {
  if (session_->resize(run_id, sailor::availabilityOf(sites))) return;
  if (session_->isResizing())
    monitor_->showResizeResult(tr("A resize is still under way; try again when it has answered."),
                               true);
}

void MainWindow::onResizeFinished(int exit_code, const QString& message) {
  monitor_->showResizeResult(message, exit_code != 0);
  emit resizeFinished(exit_code, message);
}

void MainWindow::onRunFinished(int exit_code, const RunOutcome& outcome) {
  monitor_->setRunning(false);
  monitor_->setResizable(false);
  // Exit 4 comes with the error event (already in the banner); a refusal (2) or a process that
  // could not start (-1) has only sailor's message.
  if (exit_code != 0 && !outcome.stop_requested && (exit_code == 2 || exit_code == -1) &&
      !outcome.message.isEmpty())
    monitor_->showFailure(outcome.message);
  refreshPastRuns();
}

void MainWindow::refreshPastRuns() {
  if (!history_) return;
  try {
    const PastRuns past = history_->list();
    monitor_->setPastRuns(past.runs);
    if (!past.problems.empty()) {
      QStringList lines;
      for (const std::string& p : past.problems) lines << QString::fromUtf8(p);
      const QString note =
          tr("Some runs in %1 cannot be read: %2").arg(history_->storePath(), lines.join("; "));
      // The banner, unless it already shows a run's failure (which the note must not hide).
      if (monitor_->errorShown()) statusBar()->showMessage(note);
      else monitor_->showFailure(note);
    }
  } catch (const std::exception& e) {
    monitor_->showFailure(tr("The run store cannot be read: %1").arg(QString::fromUtf8(e.what())));
  }
}

void MainWindow::reopenRun(qint64 id) {
  if (!history_ || session_->isRunning()) return;
  try {
    const std::optional<StoredRun> stored = history_->open(id);
    if (!stored) return;
    monitor_->showRun(stored->run, stored->iterations, stored->events);
    // A cluster run outlives its controller (docs/launch.md "Slurm runs"): one still recorded
    // running whose controller is gone can be followed again, as `sailor runs attach` does.
    const sailor::RunRecord& r = stored->run;
    if (const auto gone = RunSession::reattachReason(r))
      monitor_->setReattachable(
          true, tr("Its controller is gone (%1) and its job %2 may still run: re-attach to "
                   "follow it, and to stop it")
                    .arg(QString::fromStdString(*gone), QString::fromStdString(r.job_id)));
  } catch (const std::exception& e) {
    monitor_->showFailure(tr("Run %1 cannot be read: %2").arg(id).arg(QString::fromUtf8(e.what())));
  }
}

void MainWindow::reattachRun(qint64 id) {
  if (!history_ || session_->isRunning()) return;
  // The store as it is now: the attached controller stores and prints only the iterations after
  // these (it reads the same count when it takes the run over, and nothing else writes to a run
  // whose controller is gone), so the replay and the live events meet without a gap.
  reopenRun(id);
  if (!monitor_->reattachOffered() || monitor_->runId() != id) return;
  monitor_->followStoredRun();
  RunClientOptions o;
  o.store_path = history_->storePath();
  o.stop_grace_ms = kClusterStopGraceMs;
  if (session_->attach(id, o)) monitor_->setRunning(true);
}

void MainWindow::exportLaunch(const LaunchTarget& target) {
  if (!selected_ || !result_scenario_ || !result_job_ || !result_catalog_) return;
  if (target.export_dir.isEmpty()) {
    monitor_->showExportResult(tr("Choose the directory to write the launch files into"), true);
    return;
  }
  const auto format = sailor::exportFormatFromName(target.export_format.toStdString());
  if (!format) return;  // the chooser offers only the three formats
  sailor::PlanExportRequest request;
  request.format = *format;
  request.cluster_file = target.cluster_file.isEmpty()
                             ? sailor::resourceDir() + "/clusters/default.json"
                             : QFile::encodeName(target.cluster_file).toStdString();
  request.plan_name = "plan";
  // The workers' spec as `sailor export` writes it by default: the job's model at its real size
  // on a GPU cluster (NCCL), the job's global batch, the iterations asked for in the tab.
  request.options.backend = "nccl";
  request.options.real_size = true;
  request.options.iterations = monitor_->iterationsRequested();
  try {
    const std::vector<sailor::ExportFile> files = sailor::exportPlanLaunch(
        *result_scenario_, *result_job_, selected_->plan, *result_catalog_, request);
    const std::vector<std::string> written = sailor::writeExportFiles(
        files, QFile::encodeName(target.export_dir).toStdString(), "export directory");
    QStringList names;
    for (const std::string& path : written)
      names << QFileInfo(QFile::decodeName(QByteArray::fromStdString(path))).fileName();
    monitor_->showExportResult(
        tr("Wrote %1 to %2").arg(names.join(QStringLiteral(", ")), target.export_dir), false);
  } catch (const std::exception& e) {
    monitor_->showExportResult(tr("Export failed: %1").arg(QString::fromUtf8(e.what())), true);
  }
}

ClusterEditor* MainWindow::clusterEditor() const {
  return cluster_editor_;
}

void MainWindow::editCluster() {
  if (cluster_editor_) {  // one editor at a time
    cluster_editor_->raise();
    cluster_editor_->activateWindow();
    return;
  }
  const LaunchTarget target = monitor_->launchTarget();
  sailor::Cluster cluster;
  const Scenario& scenario = result_scenario_ ? *result_scenario_ : document_->scenario();
  const Catalog& catalog = result_catalog_ ? *result_catalog_ : catalog_;
  if (target.cluster_file.isEmpty()) {
    cluster = ClusterEditor::newCluster(ClusterEditor::scenarioPools(scenario, catalog));
  } else {
    try {
      cluster = sailor::Cluster::fromJson(
          sailor::json_util::readFile(QFile::encodeName(target.cluster_file).toStdString()));
    } catch (const std::exception& e) {
      // Strict: a field the engine does not know would be dropped by the editor, so a file it
      // refuses is left for a text editor, with the engine's line saying what to fix.
      monitor_->showFailure(
          tr("%1 cannot be edited here: %2").arg(target.cluster_file, QString::fromUtf8(e.what())));
      return;
    }
  }
  auto* editor = new ClusterEditor(this);
  editor->setObjectName(QStringLiteral("clusterEditor"));
  editor->setAttribute(Qt::WA_DeleteOnClose);
  editor->setCluster(cluster, target.cluster_file);
  if (selected_ && result_scenario_ && result_catalog_)
    editor->setPlanPools(
        ClusterEditor::planPools(selected_->plan, *result_scenario_, *result_catalog_));
  connect(editor, &ClusterEditor::saveRequested, this, &MainWindow::saveCluster);
  cluster_editor_ = editor;
  editor->open();
}

void MainWindow::saveCluster(const QString& path, const QString& json_text) {
  if (!cluster_editor_) return;
  const QString absolute = QFileInfo(path).absoluteFilePath();
  try {
    sailor::json_util::writeFileAtomically(QFile::encodeName(absolute).toStdString(),
                                           json_text.toStdString());
  } catch (const std::exception& e) {
    cluster_editor_->showSaveError(
        tr("Could not save %1: %2").arg(absolute, QString::fromUtf8(e.what())));
    return;
  }
  cluster_editor_->saved(absolute);
  LaunchTarget target = monitor_->launchTarget();
  target.cluster_file = absolute;
  monitor_->setLaunchTarget(target);
  QSettings().setValue(QStringLiteral("run/cluster_file"), absolute);
  updateStartAvailability();
  statusBar()->showMessage(tr("Saved %1").arg(absolute), 4000);
}

QString MainWindow::loadScenario(const QByteArray& native_path) {
  const QString path = QFile::decodeName(native_path);  // shown; the file is native_path
  // Checked here because reading a directory throws std::ios_base::failure ("basic_filebuf::
  // underflow") from inside the JSON parser, which nothing below catches.
  std::error_code ec;
  const auto status = std::filesystem::status(native_path.toStdString(), ec);
  if (std::filesystem::is_directory(status))
    return tr("%1: is a directory, expected a scenario JSON file").arg(path);
  if (!std::filesystem::exists(status))
    return tr("%1: no such file, expected a scenario JSON file").arg(path);
  try {
    const EditResult r = document_->loadNative(native_path);
    return r.ok() ? QString() : r.message;
  } catch (const std::exception& e) {  // a read error of the stream (I/O error, special file)
    return tr("%1: cannot be read: %2").arg(path, QString::fromUtf8(e.what()));
  }
}

bool MainWindow::openScenario(const QString& path) {
  const QString error = loadScenario(QFile::encodeName(path));
  if (!error.isEmpty()) {
    showBanner(tr("Could not open %1: %2. The scenario you were editing is unchanged.")
                   .arg(QFileInfo(path).fileName(), error));
    return false;
  }
  applySession();
  showBanner({});
  return true;
}

void MainWindow::applySession() {
  const sailor::Session& s = document_->session();
  if (s.job_model) job_panel_->setCustomModel(*s.job_model);
  if (s.job) job_panel_->setJob(*s.job);
  if (s.planner) {
    sailor::PlannerOptions o = job_panel_->options();  // the settings a session does not keep
    o.objective = s.planner->objective;
    o.pareto = s.planner->pareto;
    o.schedules = s.planner->schedules;
    o.max_usd_per_iteration = s.planner->max_usd_per_iteration;
    o.max_usd_per_hour = s.planner->max_usd_per_hour;
    o.min_iterations_per_s = s.planner->min_iterations_per_s;
    o.max_gpus = s.planner->max_gpus;
    job_panel_->setOptions(o);
  }
}

sailor::Session MainWindow::currentSession() const {
  sailor::Session s;
  s.job = job_panel_->job();
  const auto custom = job_panel_->customModel();
  if (custom && custom->name == s.job->model) s.job_model = *custom;
  s.planner = job_panel_->options();
  return s;
}

bool MainWindow::saveScenario(const QString& path) {
  document_->setSession(currentSession());
  const EditResult r = document_->save(path);
  if (!r.ok()) {
    showBanner(tr("Could not save %1: %2").arg(path, r.message));
    return false;
  }
  statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
  return true;
}

bool MainWindow::maybeSave() {
  if (!document_->isModified()) return true;
  const auto answer = QMessageBox::warning(
      this, tr("Unsaved changes"), tr("The scenario has unsaved changes. Save them first?"),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Discard) return true;
  QString path = document_->filePath();
  if (path.isEmpty())
    path = QFileDialog::getSaveFileName(this, tr("Save scenario"), QStringLiteral("scenario.json"),
                                        tr("Scenario JSON (*.json)"));
  return !path.isEmpty() && saveScenario(path);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!maybeSave()) {
    event->ignore();
    return;
  }
  planner_->cancel();
  event->accept();
}

void MainWindow::setLanguage(const QString& code) {
  QSettings().setValue(QStringLiteral("language"), code);
  statusBar()->showMessage(tr("The language changes when Sailor Studio is started again"), 8000);
}

}  // namespace sailor::studio
