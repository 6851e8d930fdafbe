#include "launch_panel.hpp"

#include <algorithm>
#include <initializer_list>

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace sailor::studio {

LaunchPanel::LaunchPanel(QWidget* parent) : QWidget(parent) {
  // The options first: the iterations box and the data chooser are the panel's first spin box
  // and combo box.
  QHBoxLayout* options = buildOptionsRow();
  QHBoxLayout* target = buildTargetRow();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(options);
  layout->addLayout(target);

  connect(start_, &QPushButton::clicked, this, [this] {
    if (kind() == LaunchKind::Export) emit exportRequested(launchTarget());
    else emit startRequested(iterationsRequested(), dataSource());
  });
  connect(stop_, &QPushButton::clicked, this, &LaunchPanel::stopRequested);
  updateButtons();
}

QHBoxLayout* LaunchPanel::buildOptionsRow() {
  start_ = new QPushButton(tr("Start"), this);
  start_->setObjectName(QStringLiteral("start"));
  start_->setToolTip(tr("Run the selected plan with the bundled runtime"));
  stop_ = new QPushButton(tr("Stop"), this);
  stop_->setObjectName(QStringLiteral("stop"));
  stop_->setToolTip(
      tr("Interrupt the run: the workers are stopped and the run is recorded as "
         "stopped"));
  iterations_ = new QSpinBox(this);
  iterations_->setObjectName(QStringLiteral("iterations"));
  iterations_->setRange(1, 1000000);
  iterations_->setValue(20);
  iterations_->setToolTip(tr("Training iterations to run"));
  data_ = new QComboBox(this);
  data_->setObjectName(QStringLiteral("dataSource"));
  data_->addItem(tr("Synthetic tokens"), QStringLiteral("synthetic"));
  data_->addItem(tr("Shipped text"), QStringLiteral("text"));
  data_->setToolTip(
      tr("Training data: a learnable synthetic byte stream, or the shipped "
         "public-domain text"));
  elastic_ = new QCheckBox(tr("E&lastic (re-plan when workers are lost or GPUs change)"), this);
  elastic_->setObjectName(QStringLiteral("elastic"));
  elastic_->setToolTip(
      tr("Run with sailor run --elastic (on this machine or a Slurm cluster): a lost worker, a "
         "preemption notice, or a resize, makes the run re-plan on the GPUs left and go on in "
         "place"));
  auto* iterations_label = new QLabel(tr("&Iterations:"), this);
  iterations_label->setBuddy(iterations_);
  auto* data_label = new QLabel(tr("&Data:"), this);
  data_label->setBuddy(data_);

  options_row_ = new QHBoxLayout;
  options_row_->addWidget(start_);
  options_row_->addWidget(stop_);
  options_row_->addSpacing(12);
  options_row_->addWidget(iterations_label);
  options_row_->addWidget(iterations_);
  options_row_->addWidget(data_label);
  options_row_->addWidget(data_);
  options_row_->addWidget(elastic_);
  options_slot_ = options_row_->count();
  options_row_->addStretch(1);
  return options_row_;
}

QHBoxLayout* LaunchPanel::buildTargetRow() {
  // The launch target: a local rehearsal, or a Slurm cluster from its description file.
  target_ = new QComboBox(this);
  target_->setObjectName(QStringLiteral("launchTarget"));
  target_->addItem(tr("This machine"));
  target_->addItem(tr("Slurm cluster"));
  target_->addItem(tr("Export"));
  target_->setToolTip(
      tr("Where Start runs the plan: on this machine (a rehearsal on CPU processes, at most a "
         "few), or as one job on a Slurm cluster described by a cluster description file; "
         "Export writes the plan's launch files for Kubernetes, torchrun or Slurm instead"));
  cluster_file_ = new QLineEdit(this);
  cluster_file_->setObjectName(QStringLiteral("clusterFile"));
  cluster_file_->setReadOnly(true);
  cluster_file_->setPlaceholderText(tr("cluster description (JSON)"));
  choose_cluster_ = new QPushButton(tr("C&luster..."), this);
  choose_cluster_->setObjectName(QStringLiteral("chooseClusterFile"));
  choose_cluster_->setToolTip(tr("Choose the cluster description file (docs/formats.md)"));
  // No mnemonic: Alt+E opens the Edit menu, and the other letters are taken in this tab.
  edit_cluster_ = new QPushButton(tr("Edit..."), this);
  edit_cluster_->setObjectName(QStringLiteral("editClusterFile"));
  edit_cluster_->setToolTip(
      tr("Edit the cluster description: its pools' partitions, GRES types, node selectors and "
         "defaults (a new one from the scenario's pools when none is chosen)"));
  partition_ = new QLineEdit(this);
  partition_->setObjectName(QStringLiteral("partition"));
  partition_->setPlaceholderText(tr("partition (optional)"));
  partition_->setToolTip(
      tr("Submit every pool's tasks to this partition instead of the "
         "cluster description's"));
  export_format_ = new QComboBox(this);
  export_format_->setObjectName(QStringLiteral("exportFormat"));
  export_format_->addItem(tr("Kubernetes manifests"), QStringLiteral("kubernetes"));
  export_format_->addItem(tr("torchrun commands"), QStringLiteral("torchrun"));
  export_format_->addItem(tr("Slurm job script"), QStringLiteral("slurm"));
  export_format_->setToolTip(
      tr("Kubernetes: sailor.yaml (an indexed Job per pool); torchrun: hosts.txt and "
         "sailor-torchrun.sh; Slurm: sailor.sbatch (one heterogeneous job)"));
  export_dir_ = new QLineEdit(this);
  export_dir_->setObjectName(QStringLiteral("exportDir"));
  export_dir_->setPlaceholderText(tr("directory to write the files into"));
  choose_export_dir_ = new QPushButton(tr("Dire&ctory..."), this);
  choose_export_dir_->setObjectName(QStringLiteral("chooseExportDir"));
  choose_export_dir_->setToolTip(tr("Choose the directory the launch files are written into"));
  // The job and the export result are one line each: a long one is cut at the window's edge
  // (the tooltip has it whole) rather than widening the tab.
  export_result_ = new QLabel(this);
  export_result_->setObjectName(QStringLiteral("exportResult"));
  export_result_->setTextFormat(Qt::PlainText);
  export_result_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  export_result_->setMinimumWidth(1);
  export_result_->hide();
  job_ = new QLabel(this);
  job_->setObjectName(QStringLiteral("jobState"));
  job_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  job_->setMinimumWidth(1);
  job_->hide();
  connectTargetRow();

  target_row_ = new QHBoxLayout;
  auto* target_label = new QLabel(tr("&Target:"), this);
  target_label->setBuddy(target_);
  target_row_->addWidget(target_label);
  target_row_->addWidget(target_);
  target_row_->addWidget(cluster_file_, 1);
  target_row_->addWidget(choose_cluster_);
  target_row_->addWidget(edit_cluster_);
  target_row_->addWidget(partition_);
  target_row_->addWidget(export_format_);
  target_row_->addWidget(export_dir_, 1);
  target_row_->addWidget(choose_export_dir_);
  target_row_->addSpacing(12);
  target_row_->addWidget(job_);
  target_slot_ = target_row_->count();
  target_row_->addWidget(export_result_, 1);
  // The target's fields keep their size when the other targets' are hidden.
  target_row_->addStretch(1);
  return target_row_;
}

void LaunchPanel::connectTargetRow() {
  connect(target_, &QComboBox::currentIndexChanged, this, [this] {
    updateButtons();
    emit launchTargetChanged(launchTarget());
  });
  connect(partition_, &QLineEdit::editingFinished, this,
          [this] { emit launchTargetChanged(launchTarget()); });
  connect(choose_cluster_, &QPushButton::clicked, this, &LaunchPanel::chooseClusterFile);
  connect(edit_cluster_, &QPushButton::clicked, this, &LaunchPanel::editClusterRequested);
  connect(export_format_, &QComboBox::currentIndexChanged, this,
          [this] { emit launchTargetChanged(launchTarget()); });
  connect(export_dir_, &QLineEdit::textChanged, this,
          [this] { emit launchTargetChanged(launchTarget()); });
  connect(choose_export_dir_, &QPushButton::clicked, this, &LaunchPanel::chooseExportDir);
}

void LaunchPanel::addToOptionsRow(QWidget* widget) {
  options_row_->insertWidget(options_slot_++, widget);
}

void LaunchPanel::addToTargetRow(QWidget* widget) {
  target_row_->insertWidget(target_slot_++, widget);
}

LaunchKind LaunchPanel::kind() const {
  return static_cast<LaunchKind>(std::clamp(target_->currentIndex(), 0, 2));
}

int LaunchPanel::iterationsRequested() const {
  return iterations_->value();
}

QString LaunchPanel::dataSource() const {
  return data_->currentData().toString();
}

bool LaunchPanel::elasticRequested() const {
  return elastic_->isChecked() && kind() != LaunchKind::Export;
}

LaunchTarget LaunchPanel::launchTarget() const {
  LaunchTarget t;
  t.kind = kind();
  t.cluster_file = cluster_file_->text();
  t.partition = partition_->text().trimmed();
  t.export_format = export_format_->currentData().toString();
  t.export_dir = export_dir_->text().trimmed();
  return t;
}

void LaunchPanel::setRunning(bool running) {
  running_ = running;
  updateButtons();
}

void LaunchPanel::setStartAvailable(bool available, const QString& reason) {
  start_available_ = available;
  start_unavailable_reason_ = reason;
  updateButtons();
}

void LaunchPanel::updateButtons() {
  const bool exporting = kind() == LaunchKind::Export;
  start_->setText(exporting ? tr("Export") : tr("Start"));
  start_->setEnabled(!running_ && start_available_);
  start_->setToolTip(!start_available_ && !start_unavailable_reason_.isEmpty()
                         ? start_unavailable_reason_
                     : exporting ? tr("Write the selected plan's launch files into the directory")
                                 : tr("Run the selected plan with the bundled runtime"));
  stop_->setEnabled(running_);
  elastic_->setEnabled(!running_ && kind() != LaunchKind::Export);
  iterations_->setEnabled(!running_);
  data_->setEnabled(!running_);
  target_->setEnabled(!running_);
  updateTarget();
}

void LaunchPanel::setLaunchTarget(const LaunchTarget& target) {
  const QSignalBlocker block(target_);
  const QSignalBlocker block_format(export_format_);
  const QSignalBlocker block_dir(export_dir_);
  target_->setCurrentIndex(static_cast<int>(target.kind));
  cluster_file_->setText(target.cluster_file);
  cluster_file_->setToolTip(target.cluster_file);
  partition_->setText(target.partition);
  const int format = export_format_->findData(target.export_format);
  if (format >= 0) export_format_->setCurrentIndex(format);
  export_dir_->setText(target.export_dir);
  updateButtons();
}

void LaunchPanel::showExportResult(const QString& message, bool failed) {
  export_failed_ = failed;
  // One line: a message of several lines (an OS error) would push the plots down.
  QString line = message;
  line.replace(QLatin1Char('\n'), QLatin1Char(' '));
  export_result_->setText(line);
  export_result_->setToolTip(line);
  export_result_->setStyleSheet(failed ? QStringLiteral("color: #b00020; font-weight: bold;")
                                       : QStringLiteral("color: #1b5e20;"));
  export_result_->setVisible(!line.isEmpty());
}

QString LaunchPanel::exportResultText() const {
  return export_result_->isHidden() ? QString() : export_result_->text();
}

void LaunchPanel::setJobText(const QString& text, const QString& tooltip) {
  job_->setText(text);
  job_->setToolTip(tooltip.isEmpty() ? text : tooltip);
  job_->setVisible(!text.isEmpty());
}

// Each target's own fields only: the cluster's for a Slurm run (the cluster description also for
// Export, which maps pools through it), the format and directory for Export; none while a run
// goes.
void LaunchPanel::updateTarget() {
  const LaunchKind k = kind();
  const bool cluster = k == LaunchKind::Cluster;
  const bool exporting = k == LaunchKind::Export;
  cluster_file_->setPlaceholderText(exporting ? tr("default cluster description")
                                              : tr("cluster description (JSON)"));
  for (QWidget* w :
       std::initializer_list<QWidget*>{cluster_file_, choose_cluster_, edit_cluster_}) {
    w->setVisible(cluster || exporting);
    w->setEnabled(!running_);
  }
  partition_->setVisible(cluster);
  partition_->setEnabled(!running_);
  for (QWidget* w :
       std::initializer_list<QWidget*>{export_format_, export_dir_, choose_export_dir_}) {
    w->setVisible(exporting);
    w->setEnabled(!running_);
  }
  if (!exporting) export_result_->hide();
}

void LaunchPanel::chooseExportDir() {
  const QString path = QFileDialog::getExistingDirectory(this, tr("Export the launch files to"),
                                                         export_dir_->text());
  if (path.isEmpty()) return;
  export_dir_->setText(QFileInfo(path).absoluteFilePath());
}

void LaunchPanel::chooseClusterFile() {
  const QString start =
      cluster_file_->text().isEmpty() ? QString() : QFileInfo(cluster_file_->text()).absolutePath();
  const QString path = QFileDialog::getOpenFileName(this, tr("Cluster description"), start,
                                                    tr("Cluster descriptions (*.json)"));
  if (path.isEmpty()) return;
  cluster_file_->setText(QFileInfo(path).absoluteFilePath());
  cluster_file_->setToolTip(cluster_file_->text());
  emit launchTargetChanged(launchTarget());
}

}  // namespace sailor::studio
