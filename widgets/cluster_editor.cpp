#include "cluster_editor.hpp"

#include <functional>
#include <regex>
#include <set>
#include <utility>

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "sailor/core/error.hpp"
#include "sailor/runs/run_spec.hpp"

namespace sailor::studio {

using nlohmann::json;

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

std::string text(const QLineEdit* edit) {
  return edit->text().trimmed().toStdString();
}

// A count as typed: an integer when it parses as one, else the text, so that Cluster::fromJson
// names the field and the value ("pools[1].gpus_per_node: got \"eight\"") rather than the dialog
// inventing its own message.
json countValue(const QString& typed) {
  bool ok = false;
  const qlonglong v = typed.trimmed().toLongLong(&ok);
  return ok ? json(v) : json(typed.trimmed().toStdString());
}

// Node selectors are shown as "key=value, key=value": label keys and values cannot hold a comma
// (Kubernetes' syntax, checked by the engine), so the comma separates entries unambiguously.
QString selectorText(const std::map<std::string, std::string>& selector) {
  QStringList parts;
  for (const auto& [key, value] : selector) parts << qs(key) + QLatin1Char('=') + qs(value);
  return parts.join(QStringLiteral(", "));
}

json selectorJson(const QString& typed) {
  json out = json::object();
  for (const QString& part : typed.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    const QString entry = part.trimmed();
    if (entry.isEmpty()) continue;
    const qsizetype eq = entry.indexOf(QLatin1Char('='));
    // An entry without '=' is a key with an empty value, which Kubernetes allows; a key with a
    // space (a forgotten '=') is then refused by the engine, naming it.
    const QString key = eq < 0 ? entry : entry.left(eq).trimmed();
    const QString value = eq < 0 ? QString() : entry.mid(eq + 1).trimmed();
    out[key.toStdString()] = value.toStdString();
  }
  return out;
}

// Where an engine error points in the pool table: "pools[3].slurm.partition" is row 3, column
// ColPartition; -1 for a field outside the table.
std::pair<int, int> tableCellOf(const std::string& field) {
  static const std::regex kPool(R"(pools\[(\d+)\](\.(.*))?)");
  std::smatch m;
  if (!std::regex_match(field, m, kPool)) return {-1, -1};
  const int row = std::stoi(m[1].str());
  const std::string rest = m[3].str();
  static const std::pair<const char*, int> kColumns[] = {
      {"zone", ClusterEditor::ColZone},
      {"gpu_type", ClusterEditor::ColGpuType},
      {"gpus_per_node", ClusterEditor::ColGpusPerNode},
      {"slurm.partition", ClusterEditor::ColPartition},
      {"slurm.gres_type", ClusterEditor::ColGresType},
      {"slurm.constraint", ClusterEditor::ColConstraint},
      {"slurm.account", ClusterEditor::ColAccount},
      {"slurm.qos", ClusterEditor::ColQos},
      {"kubernetes.node_selector", ClusterEditor::ColNodeSelector},
      {"kubernetes.namespace", ClusterEditor::ColNamespace},
      {"kubernetes.image", ClusterEditor::ColImage}};
  for (const auto& [name, column] : kColumns)
    if (rest.rfind(name, 0) == 0) return {row, column};
  return {row, ClusterEditor::ColZone};
}

}  // namespace

ClusterEditor::ClusterEditor(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Cluster description"));
  buildUi();
  setCluster(newCluster({}), {});
  setPlanPools({});
}

ClusterEditor::~ClusterEditor() = default;

void ClusterEditor::buildUi() {
  const auto line = [this](const char* object_name, const QString& tip) {
    auto* edit = new QLineEdit(this);
    edit->setObjectName(QString::fromLatin1(object_name));
    edit->setToolTip(tip);
    return edit;
  };
  name_ = line("clusterName", tr("Names the job and its objects: a DNS label (lower-case letters, "
                                 "digits and '-') of at most 40 bytes"));
  interface_ = line("networkInterface",
                    tr("The network interface cluster runs use (NCCL, Gloo and the rendezvous), "
                       "e.g. eth0; empty: the workers' default"));
  port_ = line("rendezvousPort",
               tr("The TCP port of the rendezvous on the first node (torchrun exports use the "
                  "next one too)"));
  slurm_partition_ = line("slurmPartition", tr("The partition of pools that name none"));
  slurm_account_ = line("slurmAccount", tr("The account of pools that name none"));
  slurm_qos_ = line("slurmQos", tr("The QoS of pools that name none"));
  slurm_time_ =
      line("slurmTimeLimit", tr("The job's time limit: minutes, M:S, H:M:S, D-H, D-H:M or D-H:M:S; "
                                "empty: the partition's"));
  k8s_namespace_ = line("kubernetesNamespace", tr("The namespace of pools that name none"));
  k8s_image_ = line("kubernetesImage", tr("The workers' image of pools that name none"));
  port_->setPlaceholderText(QString::number(sailor::kDefaultRendezvousPort));

  auto* general = new QFormLayout;
  general->addRow(tr("&Name:"), name_);
  general->addRow(tr("Network &interface:"), interface_);
  general->addRow(tr("Rendezvous &port:"), port_);
  auto* slurm_box = new QGroupBox(tr("Slurm defaults"), this);
  auto* slurm_form = new QFormLayout(slurm_box);
  slurm_form->addRow(tr("Partition:"), slurm_partition_);
  slurm_form->addRow(tr("Account:"), slurm_account_);
  slurm_form->addRow(tr("QoS:"), slurm_qos_);
  slurm_form->addRow(tr("Time limit:"), slurm_time_);
  auto* k8s_box = new QGroupBox(tr("Kubernetes defaults"), this);
  auto* k8s_form = new QFormLayout(k8s_box);
  k8s_form->addRow(tr("Namespace:"), k8s_namespace_);
  k8s_form->addRow(tr("Image:"), k8s_image_);
  auto* top = new QHBoxLayout;
  top->addLayout(general, 1);
  top->addWidget(slurm_box, 1);
  top->addWidget(k8s_box, 1);

  table_ = new QTableWidget(0, ColumnCount, this);
  table_->setObjectName(QStringLiteral("poolMappings"));
  const std::pair<QString, QString> headers[ColumnCount] = {
      {tr("Zone"), tr("The pool's zone, as in the scenario")},
      {tr("GPU type"), tr("The pool's GPU type, as in the catalogue")},
      {tr("GPUs/node"), tr("GPUs per node; empty: the scenario's, else the catalogue's")},
      {tr("Partition"), tr("Slurm partition; empty: the default")},
      {tr("GRES type"), tr("Slurm GRES type: --gres=gpu:TYPE:N; empty: --gres=gpu:N")},
      {tr("Constraint"), tr("Slurm constraint (node features)")},
      {tr("Account"), tr("Slurm account; empty: the default")},
      {tr("QoS"), tr("Slurm QoS; empty: the default")},
      {tr("Node selector"), tr("Kubernetes node labels: key=value, key=value")},
      {tr("Namespace"), tr("Kubernetes namespace; empty: the default")},
      {tr("Image"), tr("The workers' image; empty: the default")}};
  for (int c = 0; c < ColumnCount; ++c) {
    auto* item = new QTableWidgetItem(headers[c].first);
    item->setToolTip(headers[c].second);
    table_->setHorizontalHeaderItem(c, item);
  }
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  table_->horizontalHeader()->setSectionResizeMode(ColNodeSelector, QHeaderView::Stretch);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);

  auto* add_row = new QPushButton(tr("Add ro&w"), this);
  add_row->setObjectName(QStringLiteral("addPoolRow"));
  auto* remove_rows = new QPushButton(tr("&Remove rows"), this);
  remove_rows->setObjectName(QStringLiteral("removePoolRows"));
  add_plan_pools_ = new QPushButton(tr("Add the &plan's pools"), this);
  add_plan_pools_->setObjectName(QStringLiteral("addPlanPools"));
  connect(add_row, &QPushButton::clicked, this, &ClusterEditor::addRow);
  connect(remove_rows, &QPushButton::clicked, this, &ClusterEditor::removeSelectedRows);
  connect(add_plan_pools_, &QPushButton::clicked, this, [this] { addPlanPools(); });
  auto* row_buttons = new QHBoxLayout;
  row_buttons->addWidget(add_row);
  row_buttons->addWidget(remove_rows);
  row_buttons->addWidget(add_plan_pools_);
  row_buttons->addStretch(1);

  path_label_ = new QLabel(this);
  path_label_->setObjectName(QStringLiteral("clusterPath"));
  path_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_ = new QLabel(this);
  error_->setObjectName(QStringLiteral("clusterError"));
  error_->setTextFormat(Qt::PlainText);
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("color: #b00020; font-weight: bold;"));
  error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_->hide();
  note_ = new QLabel(this);
  note_->setObjectName(QStringLiteral("clusterNote"));
  note_->setTextFormat(Qt::PlainText);
  note_->hide();

  auto* buttons = new QDialogButtonBox(this);
  auto* save = buttons->addButton(QDialogButtonBox::Save);
  save->setObjectName(QStringLiteral("saveCluster"));
  auto* save_as = buttons->addButton(tr("Save &As..."), QDialogButtonBox::ActionRole);
  save_as->setObjectName(QStringLiteral("saveClusterAs"));
  buttons->addButton(QDialogButtonBox::Cancel);
  connect(save, &QPushButton::clicked, this, &ClusterEditor::save);
  connect(save_as, &QPushButton::clicked, this, &ClusterEditor::saveAs);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(path_label_);
  layout->addLayout(top);
  layout->addWidget(new QLabel(tr("Pools (one row per zone and GPU type):"), this));
  layout->addWidget(table_, 1);
  layout->addLayout(row_buttons);
  layout->addWidget(note_);
  layout->addWidget(error_);
  layout->addWidget(buttons);
  resize(1100, 560);
}

std::vector<ClusterPoolSeed> ClusterEditor::planPools(const sailor::Plan& plan,
                                                      const sailor::Scenario& scenario,
                                                      const sailor::Catalog& catalog) {
  std::vector<ClusterPoolSeed> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (const sailor::RankPlacement& r : sailor::placeRanks(plan))
    if (seen.emplace(r.zone, r.gpu_type).second)
      out.push_back({r.zone, r.gpu_type, scenario.gpusPerNode(r.zone, r.gpu_type, catalog)});
  return out;
}

std::vector<ClusterPoolSeed> ClusterEditor::scenarioPools(const sailor::Scenario& scenario,
                                                          const sailor::Catalog& catalog) {
  std::vector<ClusterPoolSeed> out;
  for (const sailor::Pool& p : scenario.pools)
    out.push_back({p.zone, p.gpu_type, scenario.gpusPerNode(p.zone, p.gpu_type, catalog)});
  return out;
}

sailor::Cluster ClusterEditor::newCluster(const std::vector<ClusterPoolSeed>& pools) {
  sailor::Cluster c;
  c.name = "cluster";
  for (const ClusterPoolSeed& seed : pools) {
    sailor::PoolMapping m;
    m.zone = seed.zone;
    m.gpu_type = seed.gpu_type;
    m.gpus_per_node = seed.gpus_per_node;
    c.pools.push_back(std::move(m));
  }
  return c;
}

void ClusterEditor::setCluster(const sailor::Cluster& cluster, const QString& path) {
  path_ = path;
  path_label_->setText(path.isEmpty() ? tr("A new cluster description (Save asks for a file)")
                                      : tr("File: %1").arg(path));
  name_->setText(qs(cluster.name));
  interface_->setText(qs(cluster.network_interface));
  port_->setText(QString::number(cluster.rendezvous_port));
  slurm_partition_->setText(qs(cluster.slurm.partition));
  slurm_account_->setText(qs(cluster.slurm.account));
  slurm_qos_->setText(qs(cluster.slurm.qos));
  slurm_time_->setText(qs(cluster.slurm.time_limit));
  k8s_namespace_->setText(qs(cluster.kubernetes.namespace_name));
  k8s_image_->setText(qs(cluster.kubernetes.image));
  table_->setRowCount(0);
  for (const sailor::PoolMapping& p : cluster.pools) appendRow(p);
  table_->resizeColumnsToContents();
  error_->hide();
  note_->hide();
}

void ClusterEditor::setPlanPools(std::vector<ClusterPoolSeed> pools) {
  plan_pools_ = std::move(pools);
  add_plan_pools_->setEnabled(!plan_pools_.empty());
  add_plan_pools_->setToolTip(
      plan_pools_.empty()
          ? tr("No plan is selected")
          : tr("Adds a row for every pool of the selected plan that has no mapping yet"));
}

void ClusterEditor::appendRow(const sailor::PoolMapping& pool) {
  const int row = table_->rowCount();
  table_->insertRow(row);
  const QString cells[ColumnCount] = {
      qs(pool.zone),
      qs(pool.gpu_type),
      pool.gpus_per_node ? QString::number(*pool.gpus_per_node) : QString(),
      qs(pool.slurm.partition),
      qs(pool.slurm.gres_type),
      qs(pool.slurm.constraint),
      qs(pool.slurm.account),
      qs(pool.slurm.qos),
      selectorText(pool.kubernetes.node_selector),
      qs(pool.kubernetes.namespace_name),
      qs(pool.kubernetes.image)};
  for (int c = 0; c < ColumnCount; ++c) table_->setItem(row, c, new QTableWidgetItem(cells[c]));
}

void ClusterEditor::addRow() {
  appendRow({});
  table_->setCurrentCell(table_->rowCount() - 1, ColZone);
}

void ClusterEditor::removeSelectedRows() {
  std::set<int, std::greater<>> rows;
  for (const QModelIndex& index : table_->selectionModel()->selectedIndexes())
    rows.insert(index.row());
  for (const int row : rows) table_->removeRow(row);
}

int ClusterEditor::addPlanPools() {
  const auto cell = [this](int row, int column) {
    const QTableWidgetItem* item = table_->item(row, column);
    return item ? item->text().trimmed().toStdString() : std::string();
  };
  std::set<std::pair<std::string, std::string>> mapped;
  for (int row = 0; row < table_->rowCount(); ++row)
    mapped.emplace(cell(row, ColZone), cell(row, ColGpuType));
  int added = 0;
  for (const ClusterPoolSeed& seed : plan_pools_) {
    if (!mapped.emplace(seed.zone, seed.gpu_type).second) continue;
    sailor::PoolMapping m;
    m.zone = seed.zone;
    m.gpu_type = seed.gpu_type;
    m.gpus_per_node = seed.gpus_per_node;
    appendRow(m);
    ++added;
  }
  showNote(added == 0
               ? tr("Every pool of the plan has a mapping")
               : tr("Added %n pool(s) of the plan: fill in their scheduler fields", "", added));
  return added;
}

json ClusterEditor::clusterJson() const {
  nlohmann::json j = nlohmann::json::object();
  j["name"] = text(name_);
  if (!text(interface_).empty()) j["network_interface"] = text(interface_);
  if (!port_->text().trimmed().isEmpty()) j["rendezvous_port"] = countValue(port_->text());
  nlohmann::json slurm = nlohmann::json::object();
  const std::pair<const char*, QLineEdit*> slurm_fields[] = {{"partition", slurm_partition_},
                                                             {"account", slurm_account_},
                                                             {"qos", slurm_qos_},
                                                             {"time_limit", slurm_time_}};
  for (const auto& [key, edit] : slurm_fields)
    if (!text(edit).empty()) slurm[key] = text(edit);
  j["slurm"] = slurm;
  nlohmann::json k8s = nlohmann::json::object();
  if (!text(k8s_namespace_).empty()) k8s["namespace"] = text(k8s_namespace_);
  if (!text(k8s_image_).empty()) k8s["image"] = text(k8s_image_);
  j["kubernetes"] = k8s;

  nlohmann::json pools = nlohmann::json::array();
  for (int row = 0; row < table_->rowCount(); ++row) {
    QString cells[ColumnCount];
    bool any = false;
    for (int c = 0; c < ColumnCount; ++c) {
      const QTableWidgetItem* item = table_->item(row, c);
      cells[c] = item ? item->text().trimmed() : QString();
      any = any || !cells[c].isEmpty();
    }
    if (!any) continue;  // a row added and left empty maps nothing
    nlohmann::json p{{"zone", cells[ColZone].toStdString()},
                     {"gpu_type", cells[ColGpuType].toStdString()}};
    if (!cells[ColGpusPerNode].isEmpty()) p["gpus_per_node"] = countValue(cells[ColGpusPerNode]);
    nlohmann::json ps = nlohmann::json::object();
    const std::pair<const char*, int> pool_slurm[] = {{"partition", ColPartition},
                                                      {"gres_type", ColGresType},
                                                      {"constraint", ColConstraint},
                                                      {"account", ColAccount},
                                                      {"qos", ColQos}};
    for (const auto& [key, column] : pool_slurm)
      if (!cells[column].isEmpty()) ps[key] = cells[column].toStdString();
    p["slurm"] = ps;
    nlohmann::json pk = nlohmann::json::object();
    if (!cells[ColNodeSelector].isEmpty())
      pk["node_selector"] = selectorJson(cells[ColNodeSelector]);
    if (!cells[ColNamespace].isEmpty()) pk["namespace"] = cells[ColNamespace].toStdString();
    if (!cells[ColImage].isEmpty()) pk["image"] = cells[ColImage].toStdString();
    p["kubernetes"] = pk;
    pools.push_back(std::move(p));
  }
  j["pools"] = std::move(pools);
  return j;
}

std::optional<sailor::Cluster> ClusterEditor::check() {
  try {
    sailor::Cluster c = sailor::Cluster::fromJson(clusterJson());
    error_->hide();
    return c;
  } catch (const sailor::InputError& e) {
    showError(QString::fromUtf8(e.what()));
    // Point at the field: its cell in the table, else its line in the form.
    const auto [row, column] = tableCellOf(e.field());
    if (row >= 0 && row < table_->rowCount()) {
      table_->setCurrentCell(row, column);
      table_->setFocus();
    } else if (QLineEdit* edit = field(QString::fromStdString(e.field()))) {
      edit->setFocus();
    }
    return std::nullopt;
  }
}

QLineEdit* ClusterEditor::field(const QString& json_path) const {
  const std::pair<const char*, QLineEdit*> fields[] = {{"name", name_},
                                                       {"network_interface", interface_},
                                                       {"rendezvous_port", port_},
                                                       {"slurm.partition", slurm_partition_},
                                                       {"slurm.account", slurm_account_},
                                                       {"slurm.qos", slurm_qos_},
                                                       {"slurm.time_limit", slurm_time_},
                                                       {"kubernetes.namespace", k8s_namespace_},
                                                       {"kubernetes.image", k8s_image_}};
  for (const auto& [key, edit] : fields)
    if (json_path == QLatin1String(key)) return edit;
  return nullptr;
}

QString ClusterEditor::errorText() const {
  return error_->isHidden() ? QString() : error_->text();
}

QString ClusterEditor::noteText() const {
  return note_->isHidden() ? QString() : note_->text();
}

void ClusterEditor::showError(const QString& message) {
  // One line: the engine's messages are one line; an OS error may not be.
  QString line = message;
  line.replace(QLatin1Char('\n'), QLatin1Char(' '));
  error_->setText(line);
  error_->show();
}

void ClusterEditor::showNote(const QString& message) {
  note_->setText(message);
  note_->show();
}

bool ClusterEditor::saveTo(const QString& path) {
  const std::optional<sailor::Cluster> cluster = check();
  if (!cluster || path.isEmpty()) return false;
  // The engine's JSON of the checked description: what is written is exactly what the engine
  // reads back (Cluster::fromJson(toJson()) is the same Cluster).
  emit saveRequested(path, QString::fromStdString(cluster->toJson().dump(2) + "\n"));
  return true;
}

void ClusterEditor::save() {
  // Checked before asking for a path: an invalid description is refused at once.
  if (!check()) return;
  QString path = path_;
  if (path.isEmpty()) {
    path = QFileDialog::getSaveFileName(this, tr("Save the cluster description"),
                                        QStringLiteral("cluster.json"),
                                        tr("Cluster descriptions (*.json)"));
    if (path.isEmpty()) return;
  }
  saveTo(path);
}

void ClusterEditor::saveAs() {
  if (!check()) return;
  const QString start = path_.isEmpty() ? QStringLiteral("cluster.json") : path_;
  const QString path = QFileDialog::getSaveFileName(this, tr("Save the cluster description as"),
                                                    start, tr("Cluster descriptions (*.json)"));
  if (path.isEmpty()) return;
  saveTo(path);
}

void ClusterEditor::saved(const QString& path) {
  path_ = path;
  path_label_->setText(tr("File: %1").arg(path));
  error_->hide();
  accept();
}

void ClusterEditor::showSaveError(const QString& message) {
  showError(message);
}

}  // namespace sailor::studio
