// The cluster description editor (widgets/cluster_editor.hpp): the shipped description and one
// with every field set come back from Save as the same Cluster; an edited partition changes that
// field and nothing else; invalid entries (GPUs per node 0, port 70000, an interface with a
// space, a node selector key with a space, a time limit Slurm does not take, a pool mapped
// twice) show the engine's own one-line error naming the field and emit nothing; "Add the plan's
// pools" adds exactly the pools with no row, with their GPUs per node; a new description has the
// scenario's pools.
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

#include "cluster_editor.hpp"
#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/scenario/cluster.hpp"
#include "sailor/scenario/scenario.hpp"

using sailor::studio::ClusterEditor;
using sailor::studio::ClusterPoolSeed;

class TestClusterEditor : public QObject {
  Q_OBJECT

 private:
  const sailor::Catalog catalog_ = sailor::Catalog::load(sailor::resourceDir());
  const std::string default_path_ = sailor::resourceDir() + "/clusters/default.json";

  sailor::Cluster defaultCluster() const {
    return sailor::Cluster::fromJson(sailor::json_util::readFile(default_path_));
  }

  // Every field of the format set, none at its default: a field the editor dropped or moved
  // would show in the comparison.
  static sailor::Cluster fullCluster() {
    sailor::Cluster c;
    c.name = "full-cluster";
    c.network_interface = "ib0";
    c.rendezvous_port = 31000;
    c.slurm = {"gpu", "acct-a", "high", "2-12:00:00"};
    c.kubernetes = {"training", "registry.example/sailor:1.2"};
    sailor::PoolMapping a;
    a.zone = "us-central1-a";
    a.gpu_type = "A100-40";
    a.gpus_per_node = 4;
    a.slurm = {"a100", "a100", "zone-a&ib", "acct-b", "low"};
    a.kubernetes.node_selector = {{"topology.kubernetes.io/zone", "us-central1-a"},
                                  {"cloud.google.com/gke-accelerator", "nvidia-tesla-a100"},
                                  {"pool", ""}};
    a.kubernetes.namespace_name = "team-a";
    a.kubernetes.image = "registry.example/sailor:a100";
    sailor::PoolMapping b;  // no GPUs per node, no scheduler fields: the defaults apply
    b.zone = "us-west1-b";
    b.gpu_type = "V100-16";
    c.pools = {a, b};
    return c;
  }

  static void setCell(ClusterEditor& editor, int row, int column, const QString& text) {
    QTableWidgetItem* item = editor.poolTable()->item(row, column);
    QVERIFY(item);
    item->setText(text);
  }

  // Save on an editor with a file: the one JSON it emitted, read back by the engine.
  static sailor::Cluster saveAndRead(ClusterEditor& editor, const QString& path) {
    QSignalSpy spy(&editor, &ClusterEditor::saveRequested);
    auto* save = editor.findChild<QPushButton*>(QStringLiteral("saveCluster"));
    if (!save) throw std::runtime_error("no Save button");
    QTest::mouseClick(save, Qt::LeftButton);
    if (spy.count() != 1)
      throw std::runtime_error("saveRequested " + std::to_string(spy.count()) +
                               " times: " + editor.errorText().toStdString());
    if (spy.at(0).at(0).toString() != path) throw std::runtime_error("saved to another path");
    return sailor::Cluster::fromJson(
        sailor::json_util::parseText(spy.at(0).at(1).toString().toStdString(), "saved"));
  }

 private slots:
  void theDefaultClusterRoundTrips() {
    const sailor::Cluster original = defaultCluster();
    QCOMPARE(original.pools.size(), size_t(10));
    ClusterEditor editor;
    const QString path = QString::fromStdString(default_path_);
    editor.setCluster(original, path);
    QCOMPARE(editor.poolTable()->rowCount(), 10);
    QVERIFY(saveAndRead(editor, path) == original);
    QVERIFY(editor.errorText().isEmpty());
  }

  void everyFieldRoundTrips() {
    const sailor::Cluster original = fullCluster();
    QVERIFY(sailor::Cluster::fromJson(original.toJson()) == original);  // a valid description
    ClusterEditor editor;
    editor.setCluster(original, QStringLiteral("/tmp/full.json"));
    QCOMPARE(editor.field("slurm.qos")->text(), QStringLiteral("high"));
    QCOMPARE(editor.poolTable()->item(0, ClusterEditor::ColNodeSelector)->text(),
             QStringLiteral("cloud.google.com/gke-accelerator=nvidia-tesla-a100, pool=, "
                            "topology.kubernetes.io/zone=us-central1-a"));
    QCOMPARE(editor.poolTable()->item(1, ClusterEditor::ColGpusPerNode)->text(), QString());
    const sailor::Cluster saved = saveAndRead(editor, QStringLiteral("/tmp/full.json"));
    QVERIFY(saved == original);
    QVERIFY(!saved.pools[1].gpus_per_node.has_value());
  }

  void editingAPartitionChangesExactlyThat() {
    sailor::Cluster expected = defaultCluster();
    ClusterEditor editor;
    const QString path = QStringLiteral("/tmp/edited.json");
    editor.setCluster(expected, path);
    setCell(editor, 3, ClusterEditor::ColPartition, QStringLiteral(" h100-new "));
    editor.field("slurm.partition")->setText(QStringLiteral("fallback"));
    expected.pools[3].slurm.partition = "h100-new";  // typed with spaces: trimmed
    expected.slurm.partition = "fallback";
    const sailor::Cluster saved = saveAndRead(editor, path);
    QVERIFY(saved == expected);
    QVERIFY(!(saved == defaultCluster()));
  }

  void invalidEntriesShowTheEnginesErrorAndEmitNothing() {
    const sailor::Cluster original = defaultCluster();
    struct Case {
      const char* what;
      std::function<void(ClusterEditor&)> edit;
      std::function<void(nlohmann::json&)> same_in_json;  // the edit, made on the JSON
      const char* field;
      int row;  // the pool row the table points at; -1 for a form field
      int column;
    };
    const Case cases[] = {
        {"GPUs per node 0",
         [](ClusterEditor& e) { setCell(e, 2, ClusterEditor::ColGpusPerNode, "0"); },
         [](nlohmann::json& j) { j["pools"][2]["gpus_per_node"] = 0; }, "pools[2].gpus_per_node", 2,
         ClusterEditor::ColGpusPerNode},
        {"GPUs per node in words",
         [](ClusterEditor& e) { setCell(e, 0, ClusterEditor::ColGpusPerNode, "eight"); },
         [](nlohmann::json& j) { j["pools"][0]["gpus_per_node"] = "eight"; },
         "pools[0].gpus_per_node", 0, ClusterEditor::ColGpusPerNode},
        {"port 70000", [](ClusterEditor& e) { e.field("rendezvous_port")->setText("70000"); },
         [](nlohmann::json& j) { j["rendezvous_port"] = 70000; }, "rendezvous_port", -1, -1},
        {"interface with a space",
         [](ClusterEditor& e) { e.field("network_interface")->setText("eth 0"); },
         [](nlohmann::json& j) { j["network_interface"] = "eth 0"; }, "network_interface", -1, -1},
        {"node selector key with a space",
         [](ClusterEditor& e) { setCell(e, 5, ClusterEditor::ColNodeSelector, "gpu type=l4"); },
         [](nlohmann::json& j) {
           j["pools"][5]["kubernetes"]["node_selector"] = {{"gpu type", "l4"}};
         },
         "pools[5].kubernetes.node_selector", 5, ClusterEditor::ColNodeSelector},
        {"time limit", [](ClusterEditor& e) { e.field("slurm.time_limit")->setText("tomorrow"); },
         [](nlohmann::json& j) { j["slurm"]["time_limit"] = "tomorrow"; }, "slurm.time_limit", -1,
         -1},
        {"a pool mapped twice",
         [](ClusterEditor& e) {
           setCell(e, 1, ClusterEditor::ColGpuType, "A100-40");  // row 0 is us-central1-a A100
         },
         [](nlohmann::json& j) { j["pools"][1]["gpu_type"] = "A100-40"; }, "pools[1]", 1,
         ClusterEditor::ColZone},
    };
    for (const Case& c : cases) {
      // The engine's message for the same edit of the file.
      nlohmann::json j = original.toJson();
      c.same_in_json(j);
      QString expected;
      try {
        sailor::Cluster::fromJson(j);
      } catch (const sailor::InputError& e) {
        expected = QString::fromUtf8(e.what());
      }
      QVERIFY2(!expected.isEmpty(), c.what);
      QVERIFY2(expected.startsWith(QLatin1String(c.field)), qPrintable(expected));

      ClusterEditor editor;
      editor.setCluster(original, QStringLiteral("/tmp/refused.json"));
      c.edit(editor);
      QSignalSpy spy(&editor, &ClusterEditor::saveRequested);
      QTest::mouseClick(editor.findChild<QPushButton*>(QStringLiteral("saveCluster")),
                        Qt::LeftButton);
      QVERIFY2(spy.isEmpty(), c.what);
      QCOMPARE(editor.errorText(), expected);
      QVERIFY(!editor.errorText().contains(QLatin1Char('\n')));
      if (c.row >= 0) {
        QCOMPARE(editor.poolTable()->currentRow(), c.row);
        QCOMPARE(editor.poolTable()->currentColumn(), c.column);
      }
      // Fixed, it saves, and the error line goes.
      editor.setCluster(original, QStringLiteral("/tmp/refused.json"));
      QVERIFY(saveAndRead(editor, QStringLiteral("/tmp/refused.json")) == original);
      QVERIFY(editor.errorText().isEmpty());
    }
  }

  void addThePlansPoolsAddsExactlyTheMissingOnes() {
    sailor::Cluster cluster = defaultCluster();
    // Without us-central1-b/H100-80 and europe-west4-a/A100-80.
    std::erase_if(cluster.pools, [](const sailor::PoolMapping& p) {
      return (p.zone == "us-central1-b" && p.gpu_type == "H100-80") ||
             (p.zone == "europe-west4-a" && p.gpu_type == "A100-80");
    });
    QCOMPARE(cluster.pools.size(), size_t(8));
    ClusterEditor editor;
    const QString path = QStringLiteral("/tmp/added.json");
    editor.setCluster(cluster, path);
    auto* add = editor.findChild<QPushButton*>(QStringLiteral("addPlanPools"));
    QVERIFY(add);
    QVERIFY(!add->isEnabled());  // no plan given yet
    // A plan over one mapped pool and the two missing ones, in its ranks' order.
    sailor::Plan plan;
    plan.stages = {{0, 10, {{"A100-40", 1, "us-central1-a"}, {"H100-80", 2, "us-central1-b"}}},
                   {11, 33, {{"A100-80", 4, "europe-west4-a"}, {"A100-40", 1, "us-central1-a"}}}};
    const sailor::Scenario scenario = sailor::Scenario::fromJson(
        sailor::json_util::readFile(sailor::resourceDir() + "/scenarios/default.json"), catalog_);
    const std::vector<ClusterPoolSeed> seeds = ClusterEditor::planPools(plan, scenario, catalog_);
    QCOMPARE(seeds.size(), size_t(3));
    editor.setPlanPools(seeds);
    QVERIFY(add->isEnabled());
    QTest::mouseClick(add, Qt::LeftButton);
    QTableWidget* t = editor.poolTable();
    QCOMPARE(t->rowCount(), 10);
    QCOMPARE(t->item(8, ClusterEditor::ColZone)->text(), QStringLiteral("us-central1-b"));
    QCOMPARE(t->item(8, ClusterEditor::ColGpuType)->text(), QStringLiteral("H100-80"));
    QCOMPARE(t->item(9, ClusterEditor::ColZone)->text(), QStringLiteral("europe-west4-a"));
    QCOMPARE(t->item(9, ClusterEditor::ColGpuType)->text(), QStringLiteral("A100-80"));
    for (int row : {8, 9}) {
      const std::string zone = t->item(row, ClusterEditor::ColZone)->text().toStdString();
      const std::string gpu = t->item(row, ClusterEditor::ColGpuType)->text().toStdString();
      QCOMPARE(t->item(row, ClusterEditor::ColGpusPerNode)->text().toInt(),
               scenario.gpusPerNode(zone, gpu, catalog_));
    }
    QVERIFY(editor.noteText().contains(QLatin1String("2")));
    // Again: nothing left to add.
    QCOMPARE(editor.addPlanPools(), 0);
    QCOMPARE(t->rowCount(), 10);
    // The added rows save as mappings with no scheduler fields (the defaults apply).
    const sailor::Cluster saved = saveAndRead(editor, path);
    QCOMPARE(saved.pools.size(), size_t(10));
    const sailor::PoolMapping* h100 = saved.find("us-central1-b", "H100-80");
    QVERIFY(h100);
    QVERIFY(h100->slurm == sailor::SlurmPool{});
    QCOMPARE(h100->gpus_per_node.value_or(-1),
             scenario.gpusPerNode("us-central1-b", "H100-80", catalog_));
  }

  void aNewDescriptionHasTheScenariosPools() {
    const sailor::Scenario scenario = sailor::Scenario::fromJson(
        sailor::json_util::readFile(sailor::resourceDir() + "/scenarios/default.json"), catalog_);
    const sailor::Cluster fresh =
        ClusterEditor::newCluster(ClusterEditor::scenarioPools(scenario, catalog_));
    ClusterEditor editor;
    editor.setCluster(fresh, {});
    QCOMPARE(editor.filePath(), QString());
    QCOMPARE(editor.poolTable()->rowCount(), static_cast<int>(scenario.pools.size()));
    for (int row = 0; row < editor.poolTable()->rowCount(); ++row) {
      const sailor::Pool& p = scenario.pools[static_cast<size_t>(row)];
      QCOMPARE(editor.poolTable()->item(row, ClusterEditor::ColZone)->text().toStdString(), p.zone);
      QCOMPARE(editor.poolTable()->item(row, ClusterEditor::ColGpuType)->text().toStdString(),
               p.gpu_type);
    }
    // Valid as it is: the engine takes it.
    const std::optional<sailor::Cluster> checked = editor.check();
    QVERIFY2(checked.has_value(), qPrintable(editor.errorText()));
    QVERIFY(*checked == fresh);
  }
};

QTEST_MAIN(TestClusterEditor)
#include "test_cluster_editor.moc"
