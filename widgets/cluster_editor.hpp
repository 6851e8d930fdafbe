// The cluster description editor: a dialog over one sailor::Cluster (docs/formats.md, "Cluster
// description"): its name, network interface and rendezvous port, the Slurm and Kubernetes
// defaults, and a table with one row per pool mapping (zone, GPU type, GPUs per node, the
// pool's Slurm partition, GRES type, constraint, account and QoS, its Kubernetes node selector,
// namespace and image). Every field of Cluster has a cell, so a description round-trips; the
// engine refuses files with other fields (Cluster::fromJson), and the studio refuses to edit
// those with its message rather than drop what it cannot show.
//
// A view only: Save checks the fields with the engine (Cluster::fromJson on clusterJson()) and
// shows its one-line error naming the field, or emits saveRequested with the description's JSON.
// The studio writes the file and answers with saved() or showSaveError(); the dialog never touches
// a file (Save As only asks for a path).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <QDialog>
#include <QString>
#include <nlohmann/json.hpp>

#include "sailor/model/catalog.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/scenario/cluster.hpp"
#include "sailor/scenario/scenario.hpp"

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace sailor::studio {

// A pool (zone, GPU type) and the GPUs per node of its nodes, for a new mapping.
struct ClusterPoolSeed {
  std::string zone;
  std::string gpu_type;
  int gpus_per_node = 1;
};

class ClusterEditor : public QDialog {
  Q_OBJECT

 public:
  // Pool table columns.
  enum Column {
    ColZone,
    ColGpuType,
    ColGpusPerNode,
    ColPartition,
    ColGresType,
    ColConstraint,
    ColAccount,
    ColQos,
    ColNodeSelector,
    ColNamespace,
    ColImage,
    ColumnCount
  };

  explicit ClusterEditor(QWidget* parent = nullptr);
  ~ClusterEditor() override;

  // The pools of the plan, in the order of their first rank, with the scenario's (else the
  // catalogue's) GPUs per node.
  static std::vector<ClusterPoolSeed> planPools(const sailor::Plan& plan,
                                                const sailor::Scenario& scenario,
                                                const sailor::Catalog& catalog);
  // Every pool of the scenario, likewise.
  static std::vector<ClusterPoolSeed> scenarioPools(const sailor::Scenario& scenario,
                                                    const sailor::Catalog& catalog);
  // A new description: named "cluster", one mapping per pool given (its GPUs per node, no
  // scheduler fields yet).
  static sailor::Cluster newCluster(const std::vector<ClusterPoolSeed>& pools);

  // Shows `cluster`, which Save writes to `path` ("" for a new description: Save asks for one).
  void setCluster(const sailor::Cluster& cluster, const QString& path);
  // What "Add the plan's pools" adds; none disables the button.
  void setPlanPools(std::vector<ClusterPoolSeed> pools);

  // --- state, for the studio and the tests ---
  QString filePath() const { return path_; }
  // The fields as typed, unchecked: numbers that do not parse stay strings, so that the engine
  // names them.
  nlohmann::json clusterJson() const;
  // clusterJson() through the engine: the description, or nothing and its error shown.
  std::optional<sailor::Cluster> check();
  QString errorText() const;  // the error line shown ("" when none)
  QString noteText() const;   // the last note ("Added 2 pools of the plan")
  // A field of the form by its JSON path: "name", "network_interface", "rendezvous_port",
  // "slurm.partition", "slurm.account", "slurm.qos", "slurm.time_limit", "kubernetes.namespace",
  // "kubernetes.image"; nullptr for any other.
  QLineEdit* field(const QString& json_path) const;
  QTableWidget* poolTable() const { return table_; }

 public slots:
  // Adds a row for every pool of setPlanPools that has none (zone and GPU type as typed);
  // returns how many.
  int addPlanPools();
  void addRow();
  void removeSelectedRows();
  // Checks, then emits saveRequested for filePath(), asking for a path when there is none.
  void save();
  // Asks for a path, then saves there.
  void saveAs();
  // The studio wrote the file: the dialog closes (accepted), filePath() is `path`.
  void saved(const QString& path);
  // The studio could not write the file: `message` shown as the error line, the dialog stays.
  void showSaveError(const QString& message);

 signals:
  // A checked description to write to `path` (the engine's JSON of it, indented).
  void saveRequested(const QString& path, const QString& json_text);

 private:
  void buildUi();
  void appendRow(const sailor::PoolMapping& pool);
  void showError(const QString& message);
  void showNote(const QString& message);
  bool saveTo(const QString& path);

  QLineEdit* name_ = nullptr;
  QLineEdit* interface_ = nullptr;
  QLineEdit* port_ = nullptr;
  QLineEdit* slurm_partition_ = nullptr;
  QLineEdit* slurm_account_ = nullptr;
  QLineEdit* slurm_qos_ = nullptr;
  QLineEdit* slurm_time_ = nullptr;
  QLineEdit* k8s_namespace_ = nullptr;
  QLineEdit* k8s_image_ = nullptr;
  QTableWidget* table_ = nullptr;
  QPushButton* add_plan_pools_ = nullptr;
  QLabel* path_label_ = nullptr;
  QLabel* error_ = nullptr;
  QLabel* note_ = nullptr;
  QString path_;
  std::vector<ClusterPoolSeed> plan_pools_;
};

}  // namespace sailor::studio
