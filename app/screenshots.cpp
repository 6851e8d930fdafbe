#include "screenshots.hpp"

#include <cstdio>
#include <functional>
#include <memory>

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

#include "job_panel.hpp"
#include "main_window.hpp"
#include "plan_inspector.hpp"
#include "resource_canvas.hpp"
#include "run_monitor.hpp"
#include "sailor/json_util.hpp"
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

}  // namespace

int takeScreenshots(MainWindow& w, const QString& dir) {
  QDir().mkpath(dir);
  w.resize(1280, 800);
  auto shot = [&](const char* name) {
    QApplication::processEvents();
    const QString path = QDir(dir).filePath(QString::fromLatin1(name));
    if (!w.grab().save(path)) {
      std::fprintf(stderr, "sailor-studio: cannot write %s\n", qPrintable(path));
      return false;
    }
    std::printf("%s\n", qPrintable(path));
    return true;
  };
  if (!settle(w, nullptr) || !w.result()) {
    std::fprintf(stderr, "sailor-studio: planning did not finish: %s\n",
                 qPrintable(w.planStatus()));
    return 1;
  }

  // Resources: a zone selected, its properties beside the canvas.
  w.tabs()->setCurrentIndex(0);
  const auto& regions = w.document()->scenario().regions;
  if (!regions.empty() && !regions.front().zones.empty())
    w.canvas()->select(
        Selection{Selection::Zone, 0, QString::fromStdString(regions.front().zones.front())});
  if (!shot("resources.png")) return 1;

  // Plans: the trade-off and the chosen plan, then its memory, timeline and map.
  w.tabs()->setCurrentIndex(1);
  QTabWidget* views = w.inspector()->tabs();
  views->setCurrentIndex(0);
  if (!shot("plans.png")) return 1;
  for (int i = 0; i < views->count(); ++i) {
    // By the English tab titles: screenshots are taken in English (scripts/screenshots).
    const QString title = views->tabText(i).remove(QLatin1Char('&'));
    const char* file = nullptr;
    if (title == QLatin1String("Memory")) file = "plan-memory.png";
    if (title == QLatin1String("Timeline")) file = "plan-timeline.png";
    if (title == QLatin1String("Map")) file = "plan-map.png";
    if (!file) continue;
    views->setCurrentIndex(i);
    if (!shot(file)) return 1;
  }
  views->setCurrentIndex(0);

  // Run: a plan that fits this machine (one process per GPU, at most 8), trained for real.
  // Without the frontier: the run needs one plan (and the frontier under a GPU limit is slow,
  // docs/planner.md).
  const auto unconstrained = w.result();
  w.jobPanel()->findChild<QCheckBox*>(QStringLiteral("pareto"))->setChecked(false);
  QLineEdit* max_gpus = w.jobPanel()->field(QStringLiteral("max_gpus"));
  max_gpus->setText(QStringLiteral("4"));
  emit max_gpus->editingFinished();
  if (!settle(w, unconstrained) || !w.result() || w.result()->best.empty()) {
    std::fprintf(stderr, "sailor-studio: no plan with at most 4 GPUs: %s\n",
                 qPrintable(w.planStatus()));
    return 1;
  }
  w.tabs()->setCurrentIndex(2);
  // Through the monitor's own controls, so that the picture shows what was run.
  RunMonitor* monitor = w.runMonitor();
  monitor->findChild<QSpinBox*>(QStringLiteral("iterations"))->setValue(40);
  auto* data = monitor->findChild<QComboBox*>(QStringLiteral("dataSource"));
  data->setCurrentIndex(data->findData(QStringLiteral("text")));
  monitor->findChild<QPushButton*>(QStringLiteral("start"))->click();
  if (!waitFor([&] { return w.runMonitor()->isRunning(); }, 10) ||
      !waitFor([&] { return !w.runMonitor()->isRunning(); }, 600)) {
    std::fprintf(stderr, "sailor-studio: the run did not finish\n");
    return 1;
  }
  w.refreshPastRuns();
  if (!shot("run.png")) return 1;

  // The same plan as one Slurm job on the cluster SLURM_CONF names (scripts/screenshots starts a
  // one-node cluster on localhost): the job id and the scheduler's state beside the target,
  // taken while the job runs.
  QTemporaryDir scratch;
  if (!scratch.isValid()) {
    std::fprintf(stderr, "sailor-studio: no temporary directory: %s\n",
                 qPrintable(scratch.errorString()));
    return 1;
  }
  auto* target = monitor->findChild<QComboBox*>(QStringLiteral("launchTarget"));
  if (qEnvironmentVariableIsEmpty("SLURM_CONF")) {
    std::fprintf(stderr,
                 "sailor-studio: run-slurm.png not taken: SLURM_CONF is not set (no "
                 "Slurm cluster)\n");
  } else {
    // Every pool of the scenario on the cluster's default partition, its node size the
    // scenario's: the one node runs whatever pools the plan uses.
    nlohmann::json pools = nlohmann::json::array();
    for (const auto& pool : w.document()->scenario().pools)
      pools.push_back({{"zone", pool.zone}, {"gpu_type", pool.gpu_type}});
    const nlohmann::json cluster = {{"name", "localhost"},
                                    {"network_interface", "lo"},
                                    {"slurm", {{"partition", "debug"}}},
                                    {"pools", pools}};
    const QString cluster_file = scratch.filePath(QStringLiteral("localhost-cluster.json"));
    sailor::json_util::writeFileAtomically(QFile::encodeName(cluster_file).toStdString(),
                                           cluster.dump(2));
    LaunchTarget slurm = monitor->launchTarget();
    slurm.kind = LaunchKind::Cluster;
    slurm.cluster_file = cluster_file;
    slurm.partition.clear();
    monitor->setLaunchTarget(slurm);
    emit target->currentIndexChanged(
        target->currentIndex());  // as a user's choice: re-checks Start
    monitor->findChild<QSpinBox*>(QStringLiteral("iterations"))->setValue(30);
    monitor->findChild<QPushButton*>(QStringLiteral("start"))->click();
    if (!waitFor([&] { return monitor->isRunning(); }, 10) ||
        !waitFor(
            [&] {
              return !monitor->isRunning() || (monitor->jobState() == QLatin1String("RUNNING") &&
                                               monitor->lossPlot()->graph(0)->dataCount() >= 8);
            },
            600) ||
        !monitor->isRunning()) {
      std::fprintf(stderr, "sailor-studio: the Slurm run did not get to run: %s %s %s\n",
                   qPrintable(monitor->jobText()), qPrintable(monitor->statusText()),
                   qPrintable(monitor->errorText()));
      return 1;
    }
    if (!shot("run-slurm.png")) return 1;
    if (!waitFor([&] { return !monitor->isRunning(); }, 600)) {
      std::fprintf(stderr, "sailor-studio: the Slurm run did not finish\n");
      return 1;
    }
    w.refreshPastRuns();
  }

  // Export: the plan's Kubernetes manifests, written by the Export target into a directory.
  LaunchTarget exporting = monitor->launchTarget();
  exporting.kind = LaunchKind::Export;
  exporting.cluster_file.clear();  // the shipped default cluster description
  exporting.export_format = QStringLiteral("kubernetes");
  exporting.export_dir = scratch.filePath(QStringLiteral("sailor-launch"));
  monitor->setLaunchTarget(exporting);
  emit target->currentIndexChanged(target->currentIndex());
  monitor->findChild<QPushButton*>(QStringLiteral("start"))->click();
  if (monitor->exportFailed() || monitor->exportResultText().isEmpty()) {
    std::fprintf(stderr, "sailor-studio: the export failed: %s\n",
                 qPrintable(monitor->exportResultText()));
    return 1;
  }
  if (!shot("run-export.png")) return 1;
  return 0;
}

}  // namespace sailor::studio
