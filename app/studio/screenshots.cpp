#include "screenshots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QThread>
#include <nlohmann/json.hpp>
#include <qcustomplot.h>

#include "comparison_window.hpp"
#include "job_panel.hpp"
#include "main_window.hpp"
#include "offer_picker.hpp"
#include "plan_inspector.hpp"
#include "resource_canvas.hpp"
#include "run_monitor.hpp"
#include "sailor/core/json_util.hpp"
#include "scenario_document.hpp"
#include "tradeoff_plot.hpp"

namespace sailor::studio {

namespace {

// Runs the event loop until `done` holds or `seconds` pass.
bool waitFor(const std::function<bool()>& done, int seconds) {
  QDeadlineTimer deadline(qint64{seconds} * 1000);
  while (!done()) {
    if (deadline.hasExpired()) return false;
    QApplication::processEvents(QEventLoop::AllEvents, 50);
    QThread::msleep(10);
  }
  return true;
}

// Until the search that follows an edit (after the re-plan pause) has delivered its result.
bool settle(MainWindow& w, const std::shared_ptr<const sailor::PlanResult>& before) {
  return waitFor([&] { return w.result() != before && !w.planningService()->busy(); }, 300);
}

// The index of the tab of `tabs` whose page is `view` or holds it; -1 when none does.
int tabOf(const QTabWidget* tabs, const QWidget* view) {
  if (!view) return -1;
  for (int i = 0; i < tabs->count(); ++i)
    if (tabs->widget(i) == view || tabs->widget(i)->isAncestorOf(view)) return i;
  return -1;
}

// One line on stderr; false, for `return failed(...)`.
bool failed(const QString& why) {
  std::fprintf(stderr, "sailor-studio: %s\n", qPrintable(why));
  return false;
}

// The screenshots of one window into one directory, each step false (having said why) when a
// shot cannot be taken. Views and tabs are found by object names and by the views they hold,
// never by their (translated) titles.
class Screenshots {
 public:
  Screenshots(MainWindow& window, QString dir) : w_(window), dir_(std::move(dir)) {}

  bool takeAll() {
    QDir().mkpath(dir_);
    w_.resize(1280, 800);
    if (!settle(w_, nullptr) || !w_.result())
      return failed(QStringLiteral("planning did not finish: %1").arg(w_.planStatus()));
    monitor_ = w_.runMonitor();
    if (!scratch_.isValid())
      return failed(QStringLiteral("no temporary directory: %1").arg(scratch_.errorString()));
    return resourcesAndPlans() && wholeRun() && localRun() && slurmRun() && exportLaunch();
  }

 private:
  bool shot(const char* name) {
    QApplication::processEvents();
    const QString path = QDir(dir_).filePath(QString::fromLatin1(name));
    if (!w_.grab().save(path)) return failed(QStringLiteral("cannot write %1").arg(path));
    std::printf("%s\n", qPrintable(path));
    return true;
  }
  // Shows the main tab that holds `view`.
  bool showTab(const QWidget* view, const char* shot_name) {
    const int index = tabOf(w_.tabs(), view);
    if (index < 0)
      return failed(QStringLiteral("%1 not taken: the main window has no tab with its view")
                        .arg(QLatin1String(shot_name)));
    w_.tabs()->setCurrentIndex(index);
    return true;
  }
  // The run monitor's child `name`, or null having said which is missing.
  template <class T>
  T* control(const char* name) {
    T* found = monitor_->findChild<T*>(QString::fromLatin1(name));
    if (!found) failed(QStringLiteral("the Run tab has no control %1").arg(QLatin1String(name)));
    return found;
  }
  // Start through the monitor's own controls, so that the picture shows what was run.
  bool start(int iterations) {
    auto* box = control<QSpinBox>("iterations");
    auto* button = control<QPushButton>("start");
    if (!box || !button) return false;
    box->setValue(iterations);
    button->click();
    return true;
  }
  // The launch target as a user's choice: Start is checked again.
  bool setTarget(const LaunchTarget& target) {
    auto* chooser = control<QComboBox>("launchTarget");
    if (!chooser) return false;
    monitor_->setLaunchTarget(target);
    emit chooser->currentIndexChanged(chooser->currentIndex());
    return true;
  }

  bool resourcesAndPlans();
  bool wholeRun();
  bool comparison();
  bool localRun();
  bool slurmRun();
  bool exportLaunch();

  MainWindow& w_;
  QString dir_;
  RunMonitor* monitor_ = nullptr;
  QTemporaryDir scratch_;
};

// Resources with a zone selected; the trade-off and the chosen plan, then its memory, timeline
// and map.
bool Screenshots::resourcesAndPlans() {
  if (!showTab(w_.canvas(), "resources.png")) return false;
  const auto& regions = w_.document()->scenario().regions;
  if (!regions.empty() && !regions.front().zones.empty())
    w_.canvas()->select(
        Selection{Selection::Zone, 0, QString::fromStdString(regions.front().zones.front())});
  if (!shot("resources.png")) return false;

  if (!showTab(w_.tradeoffPlot(), "plans.png")) return false;
  QTabWidget* views = w_.inspector()->tabs();
  views->setCurrentIndex(0);
  if (!shot("plans.png")) return false;
  const std::pair<const char*, QWidget*> inspector_shots[] = {
      {"plan-memory.png", views->findChild<QWidget*>(QStringLiteral("memoryPlot"))},
      {"plan-timeline.png", views->findChild<QWidget*>(QStringLiteral("timelinePlot"))},
      {"plan-map.png", w_.inspectorMap()}};
  for (const auto& [file, view] : inspector_shots) {
    const int index = tabOf(views, view);
    if (index < 0)
      return failed(QStringLiteral("%1 not taken: the plan inspector has no tab with its view")
                        .arg(QLatin1String(file)));
    views->setCurrentIndex(index);
    if (!shot(file)) return false;
  }
  views->setCurrentIndex(0);
  return true;
}

// The job's whole run: 30 billion tokens, a deadline and a budget a little beyond the fastest
// and the cheapest plans' runs, the plot in days against total USD; then back as it was.
bool Screenshots::wholeRun() {
  JobPanel* panel = w_.jobPanel();
  auto type = [&](const char* field, const QString& text) {
    QLineEdit* edit = panel->field(QString::fromLatin1(field));
    edit->setText(text);
    emit edit->editingFinished();
  };
  auto replan = [&](const char* field, const QString& text) {
    const auto before = w_.result();
    type(field, text);
    return settle(w_, before) && w_.result() && !w_.result()->best.empty();
  };
  if (!replan("training_tokens", QStringLiteral("3e10")))
    return failed(QStringLiteral("no plan for a budget of 3e10 tokens: %1").arg(w_.planStatus()));
  // A deadline half again the fastest run, a budget a tenth above the cheapest run within it:
  // both lines near the points, and plans that meet them.
  std::vector<std::pair<double, double>> runs;  // (days, USD)
  for (const auto* plans : {&w_.result()->best, &w_.result()->pareto})
    for (const auto& p : *plans)
      if (p.campaign && p.campaign->finishes())
        runs.emplace_back(p.campaign->days(), p.campaign->total_usd);
  if (runs.empty()) return failed(QStringLiteral("no plan's whole run finishes"));
  double fastest = std::numeric_limits<double>::infinity();
  for (const auto& r : runs) fastest = std::min(fastest, r.first);
  const double deadline = std::ceil(fastest * 1.5 * 10) / 10;
  double cheapest = std::numeric_limits<double>::infinity();
  for (const auto& r : runs)
    if (r.first <= deadline) cheapest = std::min(cheapest, r.second);
  if (!replan("deadline_days", QString::number(deadline)) ||
      !replan("budget_usd", QString::number(std::ceil(cheapest * 1.1 / 100) * 100)))
    return failed(
        QStringLiteral("no plan within the deadline and budget: %1").arg(w_.planStatus()));
  if (!showTab(w_.tradeoffPlot(), "plans-whole-run.png")) return false;
  w_.tradeoffPlot()->setThroughputUnit(TradeoffPlot::ThroughputUnit::DaysToTrain);
  w_.tradeoffPlot()->setCostUnit(TradeoffPlot::CostUnit::TotalUsd);
  if (!shot("plans-whole-run.png")) return false;
  w_.tradeoffPlot()->setThroughputUnit(TradeoffPlot::ThroughputUnit::IterationsPerS);
  w_.tradeoffPlot()->setCostUnit(TradeoffPlot::CostUnit::UsdPerIteration);
  type("deadline_days", QString());
  type("budget_usd", QString());
  if (!comparison()) return false;
  return replan("training_tokens", QString());
}

// Scenarios compared for the job's whole run (compare.png): the scenario as it is, the same
// with its spot pools switched off, with its V100s alone and with its H100s alone; then the
// offer picker over a
// SkyPilot catalogue (offer-picker.png) where $SAILOR_SKYPILOT_CATALOGS names one.
bool Screenshots::comparison() {
  w_.showComparison();
  ComparisonWindow* c = w_.comparisonWindow();
  if (!c) return failed(QStringLiteral("compare.png not taken: no comparison window"));
  const auto variant = [&](const char* name, const std::function<bool(const Pool&)>& keep) {
    auto s = std::make_shared<Scenario>(w_.document()->scenario());
    for (Pool& p : s->pools) p.enabled = keep(p);
    c->addScenario(QString::fromLatin1(name), s);
  };
  variant("on demand only", [](const Pool& p) { return !p.spot; });
  variant("V100s only", [](const Pool& p) { return p.gpu_type.rfind("V100", 0) == 0; });
  variant("H100s only", [](const Pool& p) { return p.gpu_type.rfind("H100", 0) == 0; });
  bool done = false;
  QObject::connect(c, &ComparisonWindow::compared, c, [&done] { done = true; });
  if (!c->compare() || !waitFor([&] { return done; }, 600))
    return failed(QStringLiteral("compare.png not taken: %1").arg(c->statusText()));
  c->resize(1280, 760);
  QApplication::processEvents();
  const QString path = QDir(dir_).filePath(QStringLiteral("compare.png"));
  if (!c->grab().save(path)) return failed(QStringLiteral("cannot write %1").arg(path));
  std::printf("%s\n", qPrintable(path));
  c->close();
  const QString catalogs = qEnvironmentVariable("SAILOR_SKYPILOT_CATALOGS");
  if (catalogs.isEmpty() || !w_.openPriceCatalogue(catalogs)) {
    std::fprintf(stderr,
                 "sailor-studio: offer-picker.png not taken: no SkyPilot catalogue in "
                 "$SAILOR_SKYPILOT_CATALOGS\n");
    return true;
  }
  OfferPicker picker(*w_.priceCatalogue(), &w_);
  picker.setFilters(QStringLiteral("H100-80"), QString(), QString());
  picker.resize(1100, 560);
  picker.show();
  QApplication::processEvents();
  const QString picked = QDir(dir_).filePath(QStringLiteral("offer-picker.png"));
  if (!picker.grab().save(picked)) return failed(QStringLiteral("cannot write %1").arg(picked));
  std::printf("%s\n", qPrintable(picked));
  return true;
}

// A plan that fits this machine (one process per GPU, at most 8), trained for real. Without the
// frontier: the run needs one plan (and the frontier under a GPU limit is slow,
// docs/planner.md).
bool Screenshots::localRun() {
  const auto unconstrained = w_.result();
  auto* pareto = w_.jobPanel()->findChild<QCheckBox*>(QStringLiteral("pareto"));
  QLineEdit* max_gpus = w_.jobPanel()->field(QStringLiteral("max_gpus"));
  if (!pareto || !max_gpus)
    return failed(QStringLiteral("the job panel has no pareto or max_gpus field"));
  pareto->setChecked(false);
  max_gpus->setText(QStringLiteral("4"));
  emit max_gpus->editingFinished();
  if (!settle(w_, unconstrained) || !w_.result() || w_.result()->best.empty())
    return failed(QStringLiteral("no plan with at most 4 GPUs: %1").arg(w_.planStatus()));
  if (!showTab(monitor_, "run.png")) return false;
  auto* data = control<QComboBox>("dataSource");
  if (!data) return false;
  data->setCurrentIndex(data->findData(QStringLiteral("text")));
  if (!start(40)) return false;
  if (!waitFor([&] { return monitor_->isRunning(); }, 10) ||
      !waitFor([&] { return !monitor_->isRunning(); }, 600))
    return failed(QStringLiteral("the run did not finish"));
  w_.refreshPastRuns();
  return shot("run.png");
}

// The same plan as one Slurm job on the cluster SLURM_CONF names (scripts/screenshots starts a
// one-node cluster on localhost): the job id and the scheduler's state beside the target, taken
// while the job runs. Without SLURM_CONF the shot is left out, and stderr says so.
bool Screenshots::slurmRun() {
  if (qEnvironmentVariableIsEmpty("SLURM_CONF")) {
    std::fprintf(stderr,
                 "sailor-studio: run-slurm.png not taken: SLURM_CONF is not set (no "
                 "Slurm cluster)\n");
    return true;
  }
  // Every pool of the scenario on the cluster's default partition, its node size the
  // scenario's: the one node runs whatever pools the plan uses.
  nlohmann::json pools = nlohmann::json::array();
  for (const auto& pool : w_.document()->scenario().pools)
    pools.push_back({{"zone", pool.zone}, {"gpu_type", pool.gpu_type}});
  const nlohmann::json cluster = {{"name", "localhost"},
                                  {"network_interface", "lo"},
                                  {"slurm", {{"partition", "debug"}}},
                                  {"pools", pools}};
  const QString cluster_file = scratch_.filePath(QStringLiteral("localhost-cluster.json"));
  sailor::json_util::writeFileAtomically(QFile::encodeName(cluster_file).toStdString(),
                                         cluster.dump(2));
  LaunchTarget slurm = monitor_->launchTarget();
  slurm.kind = LaunchKind::Cluster;
  slurm.cluster_file = cluster_file;
  slurm.partition.clear();
  if (!setTarget(slurm) || !start(30)) return false;
  if (!waitFor([&] { return monitor_->isRunning(); }, 10) ||
      !waitFor(
          [&] {
            return !monitor_->isRunning() || (monitor_->jobState() == QLatin1String("RUNNING") &&
                                              monitor_->lossPlot()->graph(0)->dataCount() >= 8);
          },
          600) ||
      !monitor_->isRunning())
    return failed(QStringLiteral("the Slurm run did not get to run: %1 %2 %3")
                      .arg(monitor_->jobText(), monitor_->statusText(), monitor_->errorText()));
  if (!shot("run-slurm.png")) return false;
  if (!waitFor([&] { return !monitor_->isRunning(); }, 600))
    return failed(QStringLiteral("the Slurm run did not finish"));
  w_.refreshPastRuns();
  return true;
}

// The plan's Kubernetes manifests, written by the Export target into a directory.
bool Screenshots::exportLaunch() {
  LaunchTarget exporting = monitor_->launchTarget();
  exporting.kind = LaunchKind::Export;
  exporting.cluster_file.clear();  // the shipped default cluster description
  exporting.export_format = QStringLiteral("kubernetes");
  exporting.export_dir = scratch_.filePath(QStringLiteral("sailor-launch"));
  auto* button = control<QPushButton>("start");
  if (!setTarget(exporting) || !button) return false;
  button->click();
  if (monitor_->exportFailed() || monitor_->exportResultText().isEmpty())
    return failed(QStringLiteral("the export failed: %1").arg(monitor_->exportResultText()));
  return shot("run-export.png");
}

}  // namespace

int takeScreenshots(MainWindow& w, const QString& dir) {
  return Screenshots(w, dir).takeAll() ? 0 : 1;
}

}  // namespace sailor::studio
