// The studio's main window, offscreen, driven as a user would: it opens the default scenario and
// plans it; edits re-plan; a file that fails to parse leaves the unsaved work alone, and one
// named on the command line (a broken file, a directory, 100,000 nested brackets) opens the
// default and says why; a run store with a corrupt row lists the other runs and names it; an
// impossible constraint says so near the constraints; choosing a point shows that plan; a small
// plan is trained for real by `sailor run` and the monitor shows it; the Run tab's Export target
// writes the selected plan's launch files, the same bytes as `sailor export`, and says in one line
// why when a pool has no mapping or the directory cannot be made; the Run tab's Edit... edits the
// cluster description (an invalid value writes nothing; the saved file exports the plan); an
// elastic run is resized 4 -> 2 GPUs from the Run tab's Resize... and reconfigures in place.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProcess>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QUndoStack>
#include <qcustomplot.h>
#include <sqlite3.h>

#include "cluster_editor.hpp"
#include "comparison_view.hpp"
#include "job_panel.hpp"
#include "plan_inspector.hpp"
#include "resize_dialog.hpp"
#include "run_monitor.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/runs/run_store.hpp"
#include "sailor/scenario/cluster.hpp"
#include "scenario_document.hpp"
#include "studio/comparison_window.hpp"
#include "studio/main_window.hpp"
#include "test_time.hpp"
#include "tradeoff_plot.hpp"

using namespace sailor::studio;
using sailor::test::scaledMs;

class TestMainWindow : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir tmp_;

  static bool waitForPlan(MainWindow& w, int ms = 120000) {
    ms = scaledMs(ms);
    // A request may be pending on the re-plan timer: wait until one started and ended.
    QTest::qWait(50);
    return QTest::qWaitFor(
        [&] { return !w.planningService()->busy() && w.planningService()->currentRequest() == 0; },
        ms);
  }
  static void type(QLineEdit* edit, const QString& text) {
    edit->setText(text);
    emit edit->editingFinished();
  }
  MainWindowOptions options() const {
    MainWindowOptions o;
    o.run_store = tmp_.filePath("runs.sqlite");
    o.replan_delay_ms = 50;
    return o;
  }

 private slots:
  void initTestCase() {
    QVERIFY(tmp_.isValid());
    // Settings (the remembered export directory) go to this test's directory, not the user's.
    qputenv("XDG_CONFIG_HOME", QFile::encodeName(tmp_.filePath(QStringLiteral("config"))));
  }

  void theExportTargetWritesTheLaunchFiles() {
    MainWindow w(options());
    QVERIFY(waitForPlan(w));
    QVERIFY(w.inspector()->hasPlan());
    RunMonitor* m = w.runMonitor();
    auto* target = m->findChild<QComboBox*>(QStringLiteral("launchTarget"));
    auto* format = m->findChild<QComboBox*>(QStringLiteral("exportFormat"));
    auto* dir = m->findChild<QLineEdit*>(QStringLiteral("exportDir"));
    auto* start = m->findChild<QPushButton*>(QStringLiteral("start"));
    QVERIFY(target && format && dir && start);
    target->setCurrentIndex(2);
    QVERIFY(m->launchTarget().kind == LaunchKind::Export);
    QCOMPARE(start->text(), QStringLiteral("Export"));
    dir->clear();
    QVERIFY2(!start->isEnabled(), "Export without a directory");

    // The plan, scenario and job the studio exports, as files for `sailor export`.
    const QDir files(tmp_.filePath(QStringLiteral("export-inputs")));
    QVERIFY(QDir().mkpath(files.path()));
    const auto save = [&](const QString& name, const nlohmann::json& value) {
      QFile f(files.filePath(name));
      return f.open(QIODevice::WriteOnly) && f.write(QByteArray::fromStdString(value.dump(2))) > 0;
    };
    QVERIFY(save(QStringLiteral("plan.json"), w.inspector()->plan()->plan.toJson()));
    QVERIFY(save(QStringLiteral("scenario.json"), w.document()->scenario().toJson()));
    QVERIFY(save(QStringLiteral("job.json"), w.jobPanel()->job().toJson()));

    const struct {
      const char* format;
      QStringList names;
    } formats[] = {
        {"kubernetes", {QStringLiteral("sailor.yaml")}},
        {"torchrun", {QStringLiteral("hosts.txt"), QStringLiteral("sailor-torchrun.sh")}},
        {"slurm", {QStringLiteral("sailor.sbatch")}}};
    for (const auto& row : formats) {
      const QString name = QString::fromLatin1(row.format);
      format->setCurrentIndex(format->findData(name));
      const QString out = tmp_.filePath(QStringLiteral("export-") + name + QStringLiteral("/a/b"));
      dir->setText(out);  // not there yet: made
      QVERIFY2(start->isEnabled(), qPrintable(start->toolTip()));
      QTest::mouseClick(start, Qt::LeftButton);
      QVERIFY2(!m->exportFailed(), qPrintable(m->exportResultText()));
      for (const QString& file : row.names)
        QVERIFY2(m->exportResultText().contains(file), qPrintable(m->exportResultText()));
      QCOMPARE(QDir(out).entryList(QDir::Files | QDir::Hidden), row.names);
      // The same bytes as the command line's export of the same plan.
      QProcess cli;
      cli.start(QString::fromLocal8Bit(qgetenv("SAILOR_BIN")),
                {QStringLiteral("export"), QStringLiteral("--plan"),
                 files.filePath(QStringLiteral("plan.json")), QStringLiteral("--scenario"),
                 files.filePath(QStringLiteral("scenario.json")), QStringLiteral("--job"),
                 files.filePath(QStringLiteral("job.json")), QStringLiteral("--format"), name,
                 QStringLiteral("--output"), out + QStringLiteral("-cli")});
      QVERIFY(cli.waitForFinished(scaledMs(60000)));
      QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
      for (const QString& file : row.names) {
        QFile a(QDir(out).filePath(file)), b(QDir(out + QStringLiteral("-cli")).filePath(file));
        QVERIFY(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
        const QByteArray studio_bytes = a.readAll();
        QVERIFY(!studio_bytes.isEmpty());
        QVERIFY2(studio_bytes == b.readAll(), qPrintable(file));
      }
    }

    // A cluster description without a mapping for the plan's first pool: one red line naming the
    // pool, nothing written.
    QFile in(QStringLiteral(SAILOR_TEST_RESOURCES "/clusters/default.json"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QJsonObject cluster = QJsonDocument::fromJson(in.readAll()).object();
    const sailor::Plan& plan = w.inspector()->plan()->plan;
    const std::string zone = plan.stages.front().replicas.front().zone;
    const std::string gpu = plan.stages.front().replicas.front().gpu_type;
    QJsonArray kept;
    for (const QJsonValue& p : cluster.value(QStringLiteral("pools")).toArray())
      if (p.toObject().value(QStringLiteral("zone")).toString().toStdString() != zone ||
          p.toObject().value(QStringLiteral("gpu_type")).toString().toStdString() != gpu)
        kept.append(p);
    QVERIFY(kept.size() < cluster.value(QStringLiteral("pools")).toArray().size());
    cluster[QStringLiteral("pools")] = kept;
    const QString partial = tmp_.filePath(QStringLiteral("partial-cluster.json"));
    {
      QFile f(partial);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QJsonDocument(cluster).toJson());
    }
    LaunchTarget t = m->launchTarget();
    t.cluster_file = partial;
    t.export_dir = tmp_.filePath(QStringLiteral("export-refused"));
    m->setLaunchTarget(t);
    QTest::mouseClick(start, Qt::LeftButton);
    QVERIFY(m->exportFailed());
    const QString pool = QString::fromStdString(zone + "/" + gpu);
    QVERIFY2(m->exportResultText().contains(QStringLiteral("no mapping for pool ") + pool),
             qPrintable(m->exportResultText()));
    QVERIFY(!m->exportResultText().contains(QLatin1Char('\n')));
    QVERIFY(!QFileInfo::exists(t.export_dir));

    // A directory that cannot be made (below a regular file): one red line naming it.
    const QString file = tmp_.filePath(QStringLiteral("a-file"));
    {
      QFile f(file);
      QVERIFY(f.open(QIODevice::WriteOnly));
    }
    t.cluster_file.clear();  // the default cluster description
    t.export_dir = file + QStringLiteral("/sub");
    m->setLaunchTarget(t);
    QTest::mouseClick(start, Qt::LeftButton);
    QVERIFY(m->exportFailed());
    QVERIFY2(
        m->exportResultText().contains(QStringLiteral("export directory: got \"") + t.export_dir),
        qPrintable(m->exportResultText()));
    QVERIFY(!m->exportResultText().contains(QLatin1Char('\n')));
    // Nothing ran: Export starts no process.
    QVERIFY(!w.runClient()->isRunning());
    QCOMPARE(w.runClient()->program(), QString());
  }

  // Edit... on the Export target's cluster description: a description missing the plan's first
  // pool gets it from "Add the plan's pools", an invalid port writes nothing, Save writes the
  // file (atomically: nothing else is left in its directory) and the export then uses it.
  void theClusterEditorSavesADescriptionTheExportUses() {
    MainWindow w(options());
    QVERIFY(waitForPlan(w));
    QVERIFY(w.inspector()->hasPlan());
    RunMonitor* m = w.runMonitor();
    auto* start = m->findChild<QPushButton*>(QStringLiteral("start"));
    auto* edit = m->findChild<QPushButton*>(QStringLiteral("editClusterFile"));
    QVERIFY(start && edit);

    const sailor::Plan& plan = w.inspector()->plan()->plan;
    const std::string zone = plan.stages.front().replicas.front().zone;
    const std::string gpu = plan.stages.front().replicas.front().gpu_type;
    sailor::Cluster partial = sailor::Cluster::fromJson(
        sailor::json_util::readFile(SAILOR_TEST_RESOURCES "/clusters/default.json"));
    std::erase_if(partial.pools, [&](const sailor::PoolMapping& p) {
      return p.zone == zone && p.gpu_type == gpu;
    });
    QCOMPARE(partial.pools.size(), size_t(9));
    const QDir dir(tmp_.filePath(QStringLiteral("edited-cluster")));
    QVERIFY(QDir().mkpath(dir.path()));
    const QString file = dir.filePath(QStringLiteral("cluster.json"));
    const QByteArray partial_bytes = QByteArray::fromStdString(partial.toJson().dump(2));
    {
      QFile f(file);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(partial_bytes);
    }
    const auto bytes = [&] {
      QFile f(file);
      return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    LaunchTarget t;
    t.kind = LaunchKind::Export;
    t.cluster_file = file;
    t.export_format = QStringLiteral("slurm");
    m->setLaunchTarget(t);
    // Typed, as a user would: the studio then enables Start for the Export target.
    t.export_dir = tmp_.filePath(QStringLiteral("export-edited"));
    m->findChild<QLineEdit*>(QStringLiteral("exportDir"))->setText(t.export_dir);
    QVERIFY2(start->isEnabled(), qPrintable(start->toolTip()));
    QVERIFY(!edit->isHidden() && edit->isEnabled());
    QTest::mouseClick(start, Qt::LeftButton);
    QVERIFY2(m->exportFailed(), "the first pool has no mapping yet");
    QVERIFY2(m->exportResultText().contains(QLatin1String("no mapping for pool")),
             qPrintable(m->exportResultText()));

    QTest::mouseClick(edit, Qt::LeftButton);
    QPointer<ClusterEditor> editor = w.clusterEditor();
    QVERIFY(editor);
    QVERIFY(editor->isVisible());
    QCOMPARE(editor->filePath(), file);
    QCOMPARE(editor->poolTable()->rowCount(), 9);
    auto* save = editor->findChild<QPushButton*>(QStringLiteral("saveCluster"));
    QVERIFY(save);

    // An invalid port: the engine's line in the dialog, the file as it was, the dialog open.
    editor->field(QStringLiteral("rendezvous_port"))->setText(QStringLiteral("70000"));
    QTest::mouseClick(save, Qt::LeftButton);
    QVERIFY2(editor->errorText().startsWith(QLatin1String("rendezvous_port")),
             qPrintable(editor->errorText()));
    QCOMPARE(bytes(), partial_bytes);
    QVERIFY(w.clusterEditor() == editor.data() && editor->isVisible());

    editor->field(QStringLiteral("rendezvous_port"))->setText(QStringLiteral("29500"));
    QTest::mouseClick(editor->findChild<QPushButton*>(QStringLiteral("addPlanPools")),
                      Qt::LeftButton);
    QTableWidget* table = editor->poolTable();
    QCOMPARE(table->rowCount(), 10);  // exactly the one missing pool
    QCOMPARE(table->item(9, ClusterEditor::ColZone)->text().toStdString(), zone);
    QCOMPARE(table->item(9, ClusterEditor::ColGpuType)->text().toStdString(), gpu);
    table->item(9, ClusterEditor::ColPartition)->setText(QStringLiteral("edited-part"));
    QTest::mouseClick(save, Qt::LeftButton);
    QTRY_VERIFY(editor.isNull());  // accepted and closed
    QVERIFY(!w.clusterEditor());

    // The file holds the description as edited, and nothing else is left beside it.
    sailor::Cluster expected = partial;
    sailor::PoolMapping added;
    added.zone = zone;
    added.gpu_type = gpu;
    added.gpus_per_node = w.document()->scenario().gpusPerNode(
        zone, gpu, sailor::Catalog::load(sailor::resourceDir()));
    added.slurm.partition = "edited-part";
    expected.pools.push_back(added);
    const sailor::Cluster saved =
        sailor::Cluster::fromJson(sailor::json_util::readFile(file.toStdString()));
    QVERIFY(saved == expected);
    QCOMPARE(dir.entryList(QDir::Files | QDir::Hidden),
             QStringList{QStringLiteral("cluster.json")});
    QCOMPARE(m->launchTarget().cluster_file, file);

    // The export of the plan now maps every pool, the edited partition included.
    QTest::mouseClick(start, Qt::LeftButton);
    QVERIFY2(!m->exportFailed(), qPrintable(m->exportResultText()));
    QFile sbatch(QDir(t.export_dir).filePath(QStringLiteral("sailor.sbatch")));
    QVERIFY(sbatch.open(QIODevice::ReadOnly));
    QVERIFY(sbatch.readAll().contains("--partition=edited-part"));

    // A file with a field the format does not have is not opened: the editor would drop it.
    nlohmann::json unknown = partial.toJson();
    unknown["pools"][0]["slurm"]["features"] = "ib";
    const QString unknown_file = dir.filePath(QStringLiteral("unknown.json"));
    {
      QFile f(unknown_file);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QByteArray::fromStdString(unknown.dump(2)));
    }
    t.cluster_file = unknown_file;
    m->setLaunchTarget(t);
    QTest::mouseClick(edit, Qt::LeftButton);
    QVERIFY(!w.clusterEditor());
    QVERIFY2(m->errorText().contains(QLatin1String("pools[0].slurm.features")),
             qPrintable(m->errorText()));

    // No file on the Slurm target: a new description of the scenario's pools, no path yet.
    t.kind = LaunchKind::Cluster;
    t.cluster_file.clear();
    m->setLaunchTarget(t);
    QTest::mouseClick(edit, Qt::LeftButton);
    editor = w.clusterEditor();
    QVERIFY(editor);
    QCOMPARE(editor->filePath(), QString());
    QCOMPARE(editor->poolTable()->rowCount(),
             static_cast<int>(w.document()->scenario().pools.size()));
    editor->reject();
    QTRY_VERIFY(editor.isNull());
  }

  void opensTheDefaultScenarioAndPlansIt() {
    MainWindow w(options());
    w.show();
    QSignalSpy finished(w.planningService(), &PlanningService::finished);
    QVERIFY(finished.wait(scaledMs(120000)));
    QVERIFY(w.result());
    QVERIFY(!w.result()->best.empty());
    QVERIFY(!w.tradeoffPlot()->points().empty());
    QVERIFY(w.inspector()->hasPlan());
    QVERIFY(w.inspector()->plan()->plan == w.result()->best.front().plan);
    QVERIFY(!w.document()->scenario().pools.empty());
    QVERIFY2(w.planStatus().contains("it/s"), qPrintable(w.planStatus()));
  }

  void anEditReplansAndChoosingAPointShowsThatPlan() {
    MainWindow w(options());
    QVERIFY(waitForPlan(w));
    const auto first = w.result();
    // Halve the first pool: the scenario changes, a new search runs on its own.
    sailor::Pool pool = w.document()->scenario().pools.front();
    pool.count /= 2;
    QSignalSpy finished(w.planningService(), &PlanningService::finished);
    QVERIFY(w.document()->editPool(0, pool).ok());
    QVERIFY(finished.wait(scaledMs(120000)));
    QVERIFY(w.result() != first);
    // Each point of the plot, chosen, is the plan the inspector shows.
    const auto& points = w.tradeoffPlot()->points();
    QVERIFY(points.size() >= 2);
    const int last = static_cast<int>(points.size()) - 1;
    w.tradeoffPlot()->selectPlan(last);
    QVERIFY(w.inspector()->plan()->plan == points[static_cast<size_t>(last)]->plan);
    w.tradeoffPlot()->selectPlan(0);
    QVERIFY(w.inspector()->plan()->plan == points[0]->plan);
  }

  // NOTE [Searching during the re-plan pause]: an edit starts its search at once; the request at
  // the pause's end takes it over (or finds its result), so the edit costs one search.
  void anEditSearchesDuringThePause() {
    MainWindowOptions o = options();
    o.replan_delay_ms = 3000;
    MainWindow w(o);
    QVERIFY(waitForPlan(w, 120000 + 3000));
    PlanningService* service = w.planningService();
    const quint64 searches = service->searchesRun();
    const quint64 answered = service->takenOver() + service->reusedResults();
    QSignalSpy requested(&w, &MainWindow::planRequested);
    QSignalSpy finished(service, &PlanningService::finished);
    sailor::Pool pool = w.document()->scenario().pools.front();
    pool.count -= 8;
    QVERIFY(w.document()->editPool(0, pool).ok());
    QTRY_VERIFY_WITH_TIMEOUT(service->searchesRun() == searches + 1, scaledMs(2500));
    if (requested.isEmpty()) QCOMPARE(finished.count(), 0);  // nothing shown before the pause
    QVERIFY(finished.wait(scaledMs(120000)));
    QCOMPARE(requested.count(), 1);
    QCOMPARE(service->searchesRun(), searches + 1);
    QCOMPARE(service->takenOver() + service->reusedResults(), answered + 1);
    QCOMPARE(w.result()->best.front().plan.gpuCount() > 0, true);
  }

  void aBrokenFileKeepsTheUnsavedWork() {
    MainWindow w(options());
    QVERIFY(waitForPlan(w));
    sailor::Pool pool = w.document()->scenario().pools.front();
    pool.count += 3;
    QVERIFY(w.document()->editPool(0, pool).ok());
    const auto before = w.document()->scenario().toJson();
    QFile bad(tmp_.filePath("bad.json"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("{\"regions\": [ oops");
    bad.close();
    QVERIFY(!w.openScenario(bad.fileName()));
    QVERIFY2(w.bannerText().contains("bad.json"), qPrintable(w.bannerText()));
    QVERIFY(w.document()->scenario().toJson() == before);
    QVERIFY(w.document()->isModified());
    QVERIFY(w.document()->undoStack()->canUndo());
  }

  // The job beside the scenario: `--job FILE` opens it into the job panel (a training budget
  // included); File > Save job writes the panel's job, which opens back equal; a broken or
  // missing job file shows the default job and the banner says why; opening a broken one later
  // leaves the job being edited unchanged.
  // Compare scenarios…: the scenario as edited (named with the pools it uses when some are
  // switched off) and a scenario file planned for the job with a training budget, in turn, off
  // the GUI thread; each row equals the comparison of that scenario's own search, and the window
  // exports what it shows.
  void scenariosAreComparedSideBySide() {
    const QString job_path = tmp_.filePath("compare-job.json");
    {
      QFile f(job_path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(R"({"model": "OPT-350M", "global_batch_size": 256, "training_tokens": 2e10,
                  "budget_usd": 1e6})");
    }
    MainWindowOptions o = options();
    o.plan_on_start = false;
    o.job_file = job_path;
    MainWindow w(o);
    QVERIFY2(w.startupError().isEmpty(), qPrintable(w.startupError()));
    QVERIFY(!w.comparisonWindow());
    w.showComparison();
    ComparisonWindow* c = w.comparisonWindow();
    QVERIFY(c);
    QCOMPARE(c->scenarioCount(), 1);
    // The same scenario with only its first pool in use, as a file.
    nlohmann::json j = w.document()->scenario().toJson();
    for (std::size_t i = 1; i < j["pools"].size(); ++i) j["pools"][i]["enabled"] = false;
    j["name"] = "first pool only";
    const QString file = tmp_.filePath("first-pool.json");
    {
      QFile f(file);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QByteArray::fromStdString(j.dump()));
    }
    QVERIFY(c->addScenarioFile(file));
    QVERIFY(!c->addScenarioFile(tmp_.filePath("missing.json")));
    QVERIFY(c->statusText().contains("missing.json"));
    // Switched off in the document: the current scenario added again says so in its name.
    sailor::Pool off = w.document()->scenario().pools.back();
    off.enabled = false;
    QVERIFY(w.document()
                ->editPool(static_cast<int>(w.document()->scenario().pools.size()) - 1, off)
                .ok());
    QVERIFY(c->addCurrentScenario());
    QCOMPARE(c->scenarioCount(), 3);
    QVERIFY2(c->scenarioNames()[2].endsWith(", 9 of 10 pools"), qPrintable(c->scenarioNames()[2]));
    QSignalSpy done(c, &ComparisonWindow::compared);
    QVERIFY(c->compare());
    QVERIFY(done.wait(scaledMs(300000)));
    const auto& rows = c->view()->rows();
    QCOMPARE(rows.size(), std::size_t{3});
    for (const auto& r : rows) QVERIFY2(r.hasPlan() && r.campaign, r.no_plan_reason.c_str());
    // The file's row is its own search's best plan: on the first pool only.
    const sailor::Pool& first = w.document()->scenario().pools.front();
    QCOMPARE(QString::fromStdString(rows[1].zones), QString::fromStdString(first.zone));
    QVERIFY(QString::fromStdString(rows[1].gpu_types)
                .endsWith(" " + QString::fromStdString(first.gpu_type)));
    QVERIFY(rows[1].gpus <= first.count);
    QCOMPARE(c->view()->table()->rowCount(), 3);
    QCOMPARE(c->view()->plot()->graphCount(), 3);
    QVERIFY2(c->statusText().contains("Compared 3 scenario"), qPrintable(c->statusText()));
    const QString csv = tmp_.filePath("compare.csv");
    QCOMPARE(c->view()->exportCsv(csv), QString());
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll().count("\r\n"), 4);  // the header and three rows
  }

  // The price catalogue: a SkyPilot catalogue under ~/.sky/catalogs/v7 is found; a price sheet
  // opens; a file that is neither is refused in the banner with the catalogue kept.
  void thePriceCatalogueOpens() {
    QTemporaryDir home;
    QVERIFY(home.isValid());
    const QByteArray old_home = qgetenv("HOME");
    qputenv("HOME", QFile::encodeName(home.path()));
    const auto restore = qScopeGuard([&] { qputenv("HOME", old_home); });
    QCOMPARE(MainWindow::skyPilotCatalogDir(), QString());
    QVERIFY(QDir(home.path()).mkpath(".sky/catalogs/v7/lambda"));
    {
      QFile f(home.filePath(".sky/catalogs/v7/lambda/vms.csv"));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(
          "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,"
          "GpuInfo,SpotPrice\n"
          "gpu_8x_h100_sxm5,H100,8.0,208.0,1800.0,23.92,europe-central-1,\"{'Gpus': [{'Name': "
          "'H100', 'Manufacturer': 'NVIDIA', 'Count': 8.0, 'MemoryInfo': {'SizeInMiB': "
          "81920}}], 'TotalGpuMemoryInMiB': 81920}\",\n");
    }
    QCOMPARE(MainWindow::skyPilotCatalogDir(), home.filePath(".sky/catalogs/v7"));
    MainWindowOptions o = options();
    o.plan_on_start = false;
    MainWindow w(o);
    QVERIFY2(w.openPriceCatalogue(MainWindow::skyPilotCatalogDir()), qPrintable(w.bannerText()));
    QVERIFY(w.priceCatalogue() && w.priceCatalogue()->offers().size() == 1);
    QCOMPARE(w.priceCatalogue()->offers()[0].usd_per_gpu_hour, 23.92 / 8);
    const QString bad = tmp_.filePath("not-a-sheet.json");
    {
      QFile f(bad);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("[1, 2]");
    }
    QVERIFY(!w.openPriceCatalogue(bad));
    QVERIFY2(w.bannerText().contains("not-a-sheet.json"), qPrintable(w.bannerText()));
    QVERIFY(w.priceCatalogue() && w.priceCatalogue()->offers().size() == 1);
  }

  void theJobOpensAndSavesBesideTheScenario() {
    const QString job_path = tmp_.filePath("session-job.json");
    {
      QFile f(job_path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(R"({"model": "GPT-Neo-2.7B", "global_batch_size": 256, "sequence_length": 1024,
                  "precision": "bf16", "training_tokens": 3e11, "deadline_days": 40})");
    }
    MainWindowOptions o = options();
    o.plan_on_start = false;
    o.job_file = job_path;
    MainWindow w(o);
    QVERIFY2(w.startupError().isEmpty(), qPrintable(w.startupError()));
    const sailor::Job opened = w.jobPanel()->job();
    QCOMPARE(QString::fromStdString(opened.model), QString("GPT-Neo-2.7B"));
    QCOMPARE(opened.global_batch_size, 256);
    QCOMPARE(*opened.training_tokens, 3e11);
    QCOMPARE(*opened.deadline_days, 40.0);
    const QString saved = tmp_.filePath("saved-job.json");
    QVERIFY(w.saveJob(saved));
    MainWindowOptions again = o;
    again.job_file = saved;
    MainWindow reopened(again);
    QVERIFY(reopened.jobPanel()->job().toJson() == opened.toJson());

    const QString broken = tmp_.filePath("broken-job.json");
    {
      QFile f(broken);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(R"({"model": "GPT-Neo-2.7B", "global_batch_size": -4})");
    }
    QVERIFY(!w.openJob(broken));
    QVERIFY2(w.bannerText().contains("broken-job.json") && w.bannerText().contains("-4"),
             qPrintable(w.bannerText()));
    QVERIFY(w.jobPanel()->job().toJson() == opened.toJson());
    MainWindowOptions bad = o;
    bad.job_file = tmp_.filePath("no-such-job.json");
    MainWindow fallback(bad);
    QVERIFY2(fallback.startupError().contains("no-such-job.json"),
             qPrintable(fallback.startupError()));
    QVERIFY2(fallback.bannerText().contains("default job is shown instead"),
             qPrintable(fallback.bannerText()));
    QVERIFY(!fallback.jobPanel()->job().trainingIterations().has_value());
  }

  // The planning session is saved whole with the scenario: the job (a custom architecture's too)
  // and the planner's settings go into the scenario file and come back when it is opened; a
  // session that does not read is refused naming its field, the studio unchanged.
  void theSessionIsSavedWithTheScenario() {
    MainWindowOptions o = options();
    o.plan_on_start = false;
    MainWindow w(o);
    sailor::ModelSpec mine =
        sailor::Catalog::load(sailor::resourceDir()).model("GPT-Neo-2.7B", "m");
    mine.name = "my-model";
    mine.aliases.clear();
    mine.layers = 20;
    w.jobPanel()->setCustomModel(mine);
    sailor::Job job = w.jobPanel()->job();
    job.model = "my-model";
    job.global_batch_size = 512;
    job.training_tokens = 2e11;
    w.jobPanel()->setJob(job);
    QCOMPARE(QString::fromStdString(w.jobPanel()->job().model), QString("my-model"));
    sailor::PlannerOptions planner = w.jobPanel()->options();
    planner.objective = sailor::Objective::Cost;
    planner.max_gpus = 64;
    w.jobPanel()->setOptions(planner);
    const QString path = tmp_.filePath("session-scenario.json");
    QVERIFY(w.saveScenario(path));
    const nlohmann::json saved = sailor::json_util::readFile(path.toStdString());
    QCOMPARE(QString::fromStdString(saved.at("job").at("model")), QString("my-model"));
    QCOMPARE(saved.at("job_model").at("layers").get<int>(), 20);
    QCOMPARE(QString::fromStdString(saved.at("planner").at("objective")), QString("cost"));

    MainWindowOptions again = o;
    again.scenario_file = path;
    MainWindow reopened(again);
    QVERIFY2(reopened.startupError().isEmpty(), qPrintable(reopened.startupError()));
    const sailor::Job back = reopened.jobPanel()->job();
    QCOMPARE(QString::fromStdString(back.model), QString("my-model"));
    QCOMPARE(back.global_batch_size, 512);
    QCOMPARE(*back.training_tokens, 2e11);
    QCOMPARE(reopened.jobPanel()->customModel()->layers, 20);
    QVERIFY(reopened.jobPanel()->options().objective == sailor::Objective::Cost);
    QCOMPARE(*reopened.jobPanel()->options().max_gpus, 64);

    nlohmann::json broken = saved;
    broken["job"]["global_batch_size"] = -4;
    const QString bad = tmp_.filePath("broken-session.json");
    sailor::json_util::writeFileAtomically(bad.toStdString(), broken.dump());
    QVERIFY(!reopened.openScenario(bad));
    QVERIFY2(reopened.bannerText().contains("job.global_batch_size"),
             qPrintable(reopened.bannerText()));
    QCOMPARE(reopened.jobPanel()->job().global_batch_size, 512);
  }

  // `sailor-studio broken.json`: the default scenario instead, and the banner says why with the
  // engine's one-line error (file, field, value, expected) and that the default is shown.
  void aBrokenFileOnTheCommandLineIsExplained() {
    QFile def(qEnvironmentVariable("SAILOR_RESOURCES") + "/scenarios/default.json");
    QVERIFY(def.open(QIODevice::ReadOnly));
    QJsonObject scenario = QJsonDocument::fromJson(def.readAll()).object();
    QJsonArray pools = scenario["pools"].toArray();
    QJsonObject pool = pools[0].toObject();
    pool["count"] = -1;
    pools[0] = pool;
    scenario["pools"] = pools;
    QFile broken(tmp_.filePath("broken.json"));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write(QJsonDocument(scenario).toJson());
    broken.close();

    MainWindowOptions o = options();
    o.plan_on_start = false;
    o.scenario_file = broken.fileName();
    MainWindow w(o);
    const QString error = w.startupError();
    QVERIFY2(error.contains("broken.json") && error.contains("pools[0].count") &&
                 error.contains("got -1") && error.contains("expected"),
             qPrintable(error));
    QVERIFY2(w.bannerText().contains(error), qPrintable(w.bannerText()));
    QVERIFY2(w.bannerText().contains("default scenario is shown instead"),
             qPrintable(w.bannerText()));
    QVERIFY(w.document()->filePath().isEmpty());  // the default, not the broken file
    QVERIFY(!w.document()->scenario().pools.empty());
    QVERIFY(w.document()->scenario().pools.front().count > 0);

    o.scenario_file = tmp_.filePath("missing.json");
    MainWindow missing(o);
    QVERIFY2(missing.startupError().contains("missing.json: no such file"),
             qPrintable(missing.startupError()));
    QVERIFY2(missing.bannerText().contains("default scenario is shown instead"),
             qPrintable(missing.bannerText()));
  }

  // A scenario file whose name is not UTF-8 (byte 0xFF), named on the command line: Qt 6 decodes
  // arguments and file names as UTF-8, so the name QCommandLineParser hands over reads U+FFFD and
  // names no file ("no such file"); the studio opens the argument's bytes, and saving the document
  // writes that same file.
  void aScenarioWhoseNameIsNotUtf8Opens() {
    const QByteArray native = QFile::encodeName(tmp_.path()) + "/scenario-\xff.json";
    nlohmann::json scenario =
        sailor::json_util::readFile(SAILOR_TEST_RESOURCES "/scenarios/default.json");
    scenario["name"] = "Named in Latin-1";
    const std::string text = scenario.dump(1);
    const int fd = ::open(native.constData(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    QVERIFY(fd >= 0);
    QCOMPARE(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    ::close(fd);
    // What the command line's parser hands over names another file.
    const QString decoded = QFile::decodeName(native);
    QVERIFY(decoded.contains(QChar(0xfffd)));
    QVERIFY(!QFile::exists(decoded));

    // As studio_main reads its command line: the positional argument, then its bytes.
    const QByteArray store = QFile::encodeName(tmp_.filePath("runs.sqlite"));
    const char* argv[] = {"sailor-studio", "--store", store.constData(), native.constData()};
    MainWindowOptions o = options();
    o.plan_on_start = false;
    o.scenario_file = decoded;
    o.scenario_file_native =
        scenarioArgument(decoded, 4, argv, {QStringLiteral("--store"), QStringLiteral("--lang")});
    QCOMPARE(o.scenario_file_native, native);
    MainWindow w(o);
    QVERIFY2(w.startupError().isEmpty(), qPrintable(w.startupError()));
    QVERIFY2(w.bannerText().isEmpty(), qPrintable(w.bannerText()));
    QCOMPARE(w.document()->scenario().name, std::string("Named in Latin-1"));
    QCOMPARE(w.document()->filePathNative(), native);

    // Save writes the file that was read, not one named with U+FFFD.
    QVERIFY(w.document()->setDescription(QStringLiteral("saved back")).ok());
    QVERIFY(w.saveScenario(w.document()->filePath()));
    QCOMPARE(sailor::json_util::readFile(native.toStdString()).value("description", ""),
             std::string("saved back"));
    QVERIFY(!QFile::exists(decoded));

    // Without the bytes (the decoded name only) the file is not found.
    o.scenario_file_native.clear();
    MainWindow lossy(o);
    QVERIFY2(lossy.startupError().contains("no such file"), qPrintable(lossy.startupError()));
  }

  // A directory as the scenario file used to escape as std::ios_base::failure ("basic_filebuf")
  // and stop the studio at start-up; now it is refused like any other bad file.
  void aDirectoryAsTheScenarioIsRefused() {
    const QString dir = tmp_.filePath("a-directory");
    QVERIFY(QDir().mkpath(dir));
    MainWindowOptions o = options();
    o.plan_on_start = false;
    o.scenario_file = dir;
    MainWindow w(o);
    QCOMPARE(w.startupError(), dir + ": is a directory, expected a scenario JSON file");
    QVERIFY2(w.bannerText().contains(w.startupError()), qPrintable(w.bannerText()));
    QVERIFY(w.document()->filePath().isEmpty());
    QVERIFY(!w.document()->scenario().pools.empty());
    // The same through File > Open: refused, the document untouched.
    const auto before = w.document()->scenario().toJson();
    QVERIFY(!w.openScenario(dir));
    QVERIFY2(w.bannerText().contains("is a directory") &&
                 w.bannerText().contains("scenario you were editing is unchanged"),
             qPrintable(w.bannerText()));
    QVERIFY(w.document()->scenario().toJson() == before);
  }

  // A file of 100,000 nested brackets (as File > Open and on the command line) goes through the
  // engine's bounded reader: refused with the nesting named, the studio alive and its scenario
  // unchanged. Unbounded, it exhausted the stack.
  void aDeeplyNestedFileIsRefused() {
    QFile deep(tmp_.filePath("deep.json"));
    QVERIFY(deep.open(QIODevice::WriteOnly));
    deep.write(QByteArray(100000, '[') + QByteArray(100000, ']'));
    deep.close();
    MainWindowOptions o = options();
    o.plan_on_start = false;
    o.scenario_file = deep.fileName();
    MainWindow w(o);
    QVERIFY2(w.startupError().contains("deep.json") &&
                 w.startupError().contains("nested more than 64 deep"),
             qPrintable(w.startupError()));
    QVERIFY2(w.bannerText().contains("default scenario is shown instead"),
             qPrintable(w.bannerText()));
    QVERIFY(!w.document()->scenario().pools.empty());
    const auto before = w.document()->scenario().toJson();
    QVERIFY(!w.openScenario(deep.fileName()));
    QVERIFY2(w.bannerText().contains("nested more than 64 deep") &&
                 w.bannerText().contains("scenario you were editing is unchanged"),
             qPrintable(w.bannerText()));
    QVERIFY(w.document()->scenario().toJson() == before);
    // Still alive and usable: an edit goes through.
    sailor::Pool pool = w.document()->scenario().pools.front();
    pool.count += 1;
    QVERIFY(w.document()->editPool(0, pool).ok());
  }

  // File > Open reads through the engine's bounded reader whatever the file's kind: /dev/zero is
  // cut at 64 MiB and explained in the banner, the studio's peak memory growing by far less than
  // an unbounded read takes (it used to read until memory ran out); a FIFO without a writer is
  // refused at once rather than waited on; a scenario with a pool's count given twice is refused
  // naming both places rather than opened with the last count.
  void anEndlessOrRepeatedFileIsRefusedInTheBanner() {
    MainWindowOptions o = options();
    o.plan_on_start = false;
    MainWindow w(o);
    const auto before = w.document()->scenario().toJson();
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    const long peak_before_kib = usage.ru_maxrss;
    QVERIFY(!w.openScenario(QStringLiteral("/dev/zero")));
    ::getrusage(RUSAGE_SELF, &usage);
    QVERIFY2(w.bannerText().contains("/dev/zero: got a file of more than 67108864 bytes, "
                                     "expected a JSON file of at most 67108864 bytes") &&
                 w.bannerText().contains("scenario you were editing is unchanged"),
             qPrintable(w.bannerText()));
    QVERIFY2(usage.ru_maxrss - peak_before_kib < 300 * 1024,
             qPrintable(QString("peak grew by %1 KiB").arg(usage.ru_maxrss - peak_before_kib)));
    QVERIFY(w.document()->scenario().toJson() == before);

    const QString fifo = tmp_.filePath("no-writer.fifo");
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    QVERIFY(!w.openScenario(fifo));
    QVERIFY2(w.bannerText().contains("no-writer.fifo") && w.bannerText().contains("valid JSON"),
             qPrintable(w.bannerText()));

    QFile def(qEnvironmentVariable("SAILOR_RESOURCES") + "/scenarios/default.json");
    QVERIFY(def.open(QIODevice::ReadOnly));
    QByteArray text = def.readAll();
    const qsizetype count = text.indexOf("\"count\"");
    QVERIFY(count > 0);
    text.insert(count, "\"count\": 1000, ");
    QFile repeated(tmp_.filePath("repeated.json"));
    QVERIFY(repeated.open(QIODevice::WriteOnly));
    repeated.write(text);
    repeated.close();
    QVERIFY(!w.openScenario(repeated.fileName()));
    QVERIFY2(w.bannerText().contains("repeated.json") &&
                 w.bannerText().contains("got the key \"count\" again (first at line"),
             qPrintable(w.bannerText()));
    QVERIFY(w.document()->scenario().toJson() == before);
  }

  // A read-only store (file 0444 in a 0555 directory) with a good run and a run whose plan
  // column is garbage: the past runs list the good one, the banner names the bad one and why,
  // and the file is unchanged (the studio opens the store read-only). As root chmod does not
  // stop writes; the unchanged bytes still show nothing was written.
  void aCorruptRunIsNamedAndTheOthersListed() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkdir("ro"));
    const QString store = dir.filePath("ro/runs.sqlite");
    {
      sailor::RunStore s(store.toStdString());
      sailor::RunRecord run;
      run.backend = "gloo";
      for (const char* name : {"good-plan.json", "bad-plan.json"}) {
        run.name = name;
        s.finishRun(s.createRun(run), sailor::RunStatus::Finished, "");
      }
    }
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open_v2(store.toUtf8().constData(), &db, SQLITE_OPEN_READWRITE, nullptr),
             SQLITE_OK);
    QCOMPARE(sqlite3_exec(db, "UPDATE runs SET plan = 'garbage{' WHERE id = 2;", nullptr, nullptr,
                          nullptr),
             SQLITE_OK);
    sqlite3_close_v2(db);
    QFile f(store);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray before = f.readAll();
    f.close();
    QCOMPARE(::chmod(store.toUtf8().constData(), 0444), 0);
    QCOMPARE(::chmod(dir.filePath("ro").toUtf8().constData(), 0555), 0);
    MainWindowOptions o = options();
    o.plan_on_start = false;
    o.run_store = store;
    MainWindow w(o);
    QCOMPARE(::chmod(dir.filePath("ro").toUtf8().constData(), 0755), 0);
    const QTreeWidget* runs = w.runMonitor()->pastRunsView();
    QCOMPARE(runs->topLevelItemCount(), 1);
    bool good_listed = false;
    for (int c = 0; c < runs->columnCount(); ++c)
      good_listed = good_listed || runs->topLevelItem(0)->text(c).contains("good-plan.json");
    QVERIFY(good_listed);
    const QString banner = w.runMonitor()->errorText();
    QVERIFY2(
        banner.contains("run 2 is not listed") && banner.contains("runs.plan is not valid JSON"),
        qPrintable(banner));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY2(f.readAll() == before, "listing the store changed its file");
  }

  // --store DIR: the run monitor says why the store cannot be used (SQLite's own words were
  // "unable to open database file"); the studio starts.
  void aDirectoryAsTheRunStoreIsExplained() {
    const QString dir = tmp_.filePath("store-directory");
    QVERIFY(QDir().mkpath(dir));
    MainWindowOptions o = options();
    o.plan_on_start = false;
    o.run_store = dir;
    MainWindow w(o);
    QVERIFY2(w.runMonitor()->errorText().contains(
                 dir + ": is a directory, expected a run store file (SQLite)"),
             qPrintable(w.runMonitor()->errorText()));
  }

  void anImpossibleConstraintIsExplainedNearTheConstraints() {
    MainWindow w(options());
    QVERIFY(waitForPlan(w));
    QSignalSpy finished(w.planningService(), &PlanningService::finished);
    type(w.jobPanel()->field("min_iterations_per_s"), "1000");
    QVERIFY(finished.wait(scaledMs(120000)));
    QVERIFY(w.result()->best.empty());
    QVERIFY2(w.jobPanel()->planProblem().contains("constraint"),
             qPrintable(w.jobPanel()->planProblem()));
    QVERIFY(!w.inspector()->hasPlan());
    // A negative price never reaches the planner: the field says why.
    type(w.jobPanel()->field("max_usd_per_hour"), "-5");
    QVERIFY(!w.jobPanel()->fieldError("max_usd_per_hour").isEmpty());
  }

  // A bf16 job: the default scenario's V100-16 pools have no bf16 arithmetic; the search leaves
  // them out and the status bar says so, and no plan found uses one.
  void aBf16JobLeavesOutGpusWithoutBf16() {
    MainWindow w(options());
    QVERIFY(waitForPlan(w));
    QVERIFY2(!w.planStatus().contains("left out"), qPrintable(w.planStatus()));  // fp32: all pools
    auto* precision = w.jobPanel()->findChild<QComboBox*>(QStringLiteral("precision"));
    QVERIFY(precision);
    QSignalSpy finished(w.planningService(), &PlanningService::finished);
    precision->setCurrentIndex(precision->findData(static_cast<int>(sailor::Precision::Bf16)));
    QVERIFY(finished.wait(scaledMs(120000)));
    QVERIFY(!w.result()->best.empty());
    QVERIFY2(w.planStatus().contains("left out V100-16: no bf16 arithmetic"),
             qPrintable(w.planStatus()));
    for (const auto& point : w.tradeoffPlot()->points())
      for (const auto& stage : point->plan.stages)
        for (const auto& replica : stage.replicas) QVERIFY(replica.gpu_type != "V100-16");
  }

  // A time limit from the job panel reaches the planner; a search it cuts shows its best plans
  // and the status bar says they are the best found within the limit (what was searched: its
  // tooltip). 1 us: every microbatch size stops before its first degree, with its seed plans.
  void aTimeLimitedSearchSaysSo() {
    MainWindow w(options());
    QVERIFY(waitForPlan(w));
    QVERIFY2(!w.planStatus().contains("time limit"), qPrintable(w.planStatus()));
    QSignalSpy finished(w.planningService(), &PlanningService::finished);
    type(w.jobPanel()->field("time_limit_s"), "0.000001");
    QVERIFY(finished.wait(scaledMs(120000)));
    QVERIFY(w.result()->time_limit);
    QVERIFY(!w.result()->best.empty());
    QVERIFY(w.inspector()->hasPlan());
    QVERIFY2(w.planStatus().contains("best found within 1e-06 s (time limit)"),
             qPrintable(w.planStatus()));
    auto* status = w.findChild<QLabel*>(QStringLiteral("planStatus"));
    QVERIFY(status);
    QVERIFY2(status->toolTip().contains("microbatch 1: seed plans only"),
             qPrintable(status->toolTip()));
    // No limit again: the whole search, and the status says nothing of a limit.
    type(w.jobPanel()->field("time_limit_s"), "");
    QVERIFY(finished.wait(scaledMs(120000)));
    QVERIFY(!w.result()->time_limit);
    QVERIFY2(!w.planStatus().contains("time limit"), qPrintable(w.planStatus()));
    QVERIFY(status->toolTip().isEmpty());
  }

  void aSmallPlanRunsForRealInTheMonitor() {
    MainWindow w(options());
    QVERIFY(waitForPlan(w));
    // One process per GPU: plan for at most 2 GPUs so that the run is quick.
    QSignalSpy finished(w.planningService(), &PlanningService::finished);
    type(w.jobPanel()->field("max_gpus"), "2");
    QVERIFY(finished.wait(scaledMs(120000)));
    QVERIFY(!w.result()->best.empty());
    QVERIFY(w.result()->best.front().plan.gpuCount() <= 2);
    QSignalSpy run_finished(w.runClient(), &RunClient::finished);
    emit w.runMonitor()->startRequested(3, QStringLiteral("synthetic"));
    QVERIFY(w.runMonitor()->isRunning());
    QVERIFY2(run_finished.wait(scaledMs(180000)) || run_finished.count() == 1,
             qPrintable(w.runMonitor()->statusText() + " | " + w.runMonitor()->errorText() + " | " +
                        w.runMonitor()->logView()->toPlainText().right(2000)));
    QVERIFY2(run_finished.front().at(0).toInt() == 0,
             qPrintable(QStringLiteral("exit %1 | ").arg(run_finished.front().at(0).toInt()) +
                        w.runMonitor()->statusText() + " | " + w.runMonitor()->errorText() + " | " +
                        w.runMonitor()->logView()->toPlainText().right(2000)));
    QVERIFY(!w.runMonitor()->isRunning());
    QVERIFY(w.runMonitor()->runId() > 0);
    QVERIFY(!w.runMonitor()->errorShown());
    QCOMPARE(w.runMonitor()->lossPlot()->graph(0)->dataCount(), 3);
    QVERIFY(w.runMonitor()->pastRunsView()->topLevelItemCount() >= 1);
  }

  // An elastic run of the studio's run session (the tests' small model: the pp2-dp2
  // plan of 4 A100-40 in us-central1-a, hidden 64, sequence length 16) is resized to 2 GPUs
  // through the Run tab's Resize... button and its dialog; the studio runs `sailor runs resize`,
  // the monitor logs its answer and then shows the reconfiguration with cause "resize". 50
  // iterations (about 15 s here): the resize, asked for after iteration 2, landed at iterations
  // 14 to 18 in three runs, so the run does not end before it even on a loaded machine.
  void anElasticRunIsResizedFromTheRunTab() {
    MainWindowOptions options = this->options();
    options.plan_on_start = false;  // no search competing with the run for the CPU
    MainWindow w(options);
    RunMonitor* m = w.runMonitor();
    auto* resize = m->findChild<QPushButton*>(QStringLiteral("resize"));
    QVERIFY(resize);
    QVERIFY(!resize->isEnabled());

    RunClientOptions o;
    o.iterations = 50;
    o.store_path = options.run_store;
    o.extra_args = {"--hidden", "64", "--seq-len", "16"};
    o.elastic = true;
    const QString data = QStringLiteral(SAILOR_TEST_DATA);
    QSignalSpy run_finished(w.runClient(), &RunClient::finished);
    m->clearRun();
    QVERIFY(w.runSession()->startFiles(
        data + "/pp2-dp2.json", QStringLiteral(SAILOR_TEST_RESOURCES "/scenarios/default.json"),
        data + "/job.json", o));
    const auto diagnostics = [&] {
      return QStringLiteral("exit %1 | %2 | %3 | %4")
          .arg(run_finished.isEmpty() ? -99 : run_finished.front().at(0).toInt())
          .arg(m->statusText(), m->errorText(), m->logView()->toPlainText().right(3000));
    };
    // Training (iteration 2 shown), the button offered.
    QVERIFY2(
        QTest::qWaitFor(
            [&] { return !run_finished.isEmpty() || m->lossPlot()->graph(0)->dataCount() >= 3; },
            scaledMs(120000)),
        qPrintable(diagnostics()));
    QVERIFY2(run_finished.isEmpty(), qPrintable(diagnostics()));
    QVERIFY(m->isRunning());
    QVERIFY(resize->isEnabled());

    // The dialog shows the plan's 4 GPUs; 2 are chosen.
    QTest::mouseClick(resize, Qt::LeftButton);
    ResizeDialog* dialog = m->resizeDialog();
    QVERIFY(dialog);
    QCOMPARE(dialog->findChildren<QSpinBox*>().size(), 1);
    QSpinBox* gpus = dialog->spinBox("A100-40", "us-central1-a");
    QVERIFY(gpus);
    QCOMPARE(gpus->value(), 4);
    gpus->setValue(2);
    QSignalSpy resized(&w, &MainWindow::resizeFinished);
    dialog->accept();
    QVERIFY2(resized.wait(scaledMs(60000)) || resized.count() == 1, qPrintable(diagnostics()));
    const QString answer = resized.front().at(1).toString();
    QVERIFY2(resized.front().at(0).toInt() == 0, qPrintable(answer + " | " + diagnostics()));
    QVERIFY2(answer.contains(QStringLiteral("re-planning on 2 A100-40")), qPrintable(answer));
    QVERIFY(m->logView()->toPlainText().contains(answer));
    const QStringList command = w.lastResizeCommand();
    QVERIFY2(command.mid(1, 3) == (QStringList{"runs", "resize", QString::number(m->runId())}) &&
                 command.contains(QStringLiteral("A100-40@us-central1-a=2")) &&
                 command.contains(options.run_store),
             qPrintable(command.join(' ')));

    // The run goes on in place on 2 GPUs and finishes; the monitor shows the reconfiguration.
    QVERIFY2(run_finished.wait(scaledMs(300000)) || run_finished.count() == 1,
             qPrintable(diagnostics()));
    QVERIFY2(run_finished.front().at(0).toInt() == 0, qPrintable(diagnostics()));
    QCOMPARE(m->reconfigurations().size(), std::size_t{1});
    const sailor::ReconfiguredEvent& r = m->reconfigurations().front();
    QCOMPARE(QString::fromStdString(r.cause), QStringLiteral("resize"));
    QCOMPARE(r.old_world_size, 4);
    QCOMPARE(r.new_world_size, 2);
    QCOMPARE(m->reconfigurationView()->topLevelItemCount(), 1);
    QCOMPARE(m->reconfigurationView()->topLevelItem(0)->text(RunMonitor::ReconfigColCause),
             RunMonitor::causeText("resize"));
    QCOMPARE(m->lossPlot()->graph(0)->dataCount(), 50);
    QVERIFY(!m->errorShown());
    QVERIFY(!resize->isEnabled());  // finished
    qInfo("resized at iteration %d of 50: %s", r.from_iteration, qPrintable(answer));
  }

  // Start with Elastic checked runs `sailor run --elastic`: Resize... is offered while it runs;
  // unchecked, it is not.
  void startWithElasticCheckedRunsElastic() {
    MainWindow w(options());
    QVERIFY(waitForPlan(w));
    QSignalSpy finished(w.planningService(), &PlanningService::finished);
    type(w.jobPanel()->field("max_gpus"), "2");
    QVERIFY(finished.wait(scaledMs(120000)));
    RunMonitor* m = w.runMonitor();
    auto* elastic = m->findChild<QCheckBox*>(QStringLiteral("elastic"));
    auto* resize = m->findChild<QPushButton*>(QStringLiteral("resize"));
    QVERIFY(elastic && resize);
    for (const bool checked : {true, false}) {
      elastic->setChecked(checked);
      QSignalSpy run_finished(w.runClient(), &RunClient::finished);
      QSignalSpy started(w.runClient(), &RunClient::runStarted);
      // Whether Resize... is offered once the run has started (the studio's slot ran first).
      std::optional<bool> offered;
      const QMetaObject::Connection probe = connect(w.runClient(), &RunClient::runStarted, this,
                                                    [&] { offered = resize->isEnabled(); });
      emit m->startRequested(2, QStringLiteral("synthetic"));
      QCOMPARE(w.runClient()->arguments().contains(QStringLiteral("--elastic")), checked);
      QVERIFY(!elastic->isEnabled());  // fixed while the run goes
      QVERIFY2(QTest::qWaitFor([&] { return !started.isEmpty() || !run_finished.isEmpty(); },
                               scaledMs(120000)) &&
                   !started.isEmpty(),
               qPrintable(m->errorText()));
      disconnect(probe);
      QCOMPARE(offered, std::optional<bool>(checked));
      QVERIFY2(run_finished.wait(scaledMs(180000)) || run_finished.count() == 1,
               qPrintable(m->errorText()));
      QVERIFY2(run_finished.front().at(0).toInt() == 0,
               qPrintable(m->errorText() + " | " + m->logView()->toPlainText().right(2000)));
      QVERIFY(!resize->isEnabled());
      QVERIFY(elastic->isEnabled());
    }
  }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
