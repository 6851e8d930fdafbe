// The Run tab's launch panel: Start and Stop, the run options (iterations, training data,
// elastic) and the launch target row (this machine, a Slurm cluster from its description file,
// or Export: the plan's launch files written into a directory), with the last export's result.
//
// A view only: it never starts a process. Start emits startRequested (or exportRequested with
// the Export target), Stop stopRequested; a change of target, partition, format or directory
// emits launchTargetChanged. The studio says whether a run is going (setRunning) and whether
// Start may be pressed (setStartAvailable).
#pragma once

#include <QString>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace sailor::studio {

// Where Start runs the plan: this machine (a local rehearsal, one process per GPU), a Slurm
// cluster described by a cluster description file (docs/formats.md), on an optional partition,
// or no run at all: Export writes the plan's launch files (Kubernetes, torchrun or Slurm) for a
// cluster the studio does not drive, into a directory (`sailor export`).
enum class LaunchKind { Local, Cluster, Export };

struct LaunchTarget {
  LaunchKind kind = LaunchKind::Local;
  QString cluster_file;  // absolute path; empty until one is chosen (Export: the default one)
  QString partition;     // empty: the cluster description's
  QString export_format = QStringLiteral("kubernetes");  // "kubernetes", "torchrun" or "slurm"
  QString export_dir;  // where Export writes the files; empty until one is given
};

class LaunchPanel : public QWidget {
  Q_OBJECT

 public:
  explicit LaunchPanel(QWidget* parent = nullptr);

  int iterationsRequested() const;  // the iterations box
  QString dataSource() const;       // "synthetic" or "text"
  LaunchTarget launchTarget() const;
  // The Elastic box, with this machine as the target.
  bool elasticRequested() const;
  // The last export's one line (empty when hidden), and whether it reported a failure.
  QString exportResultText() const;
  bool exportFailed() const { return export_failed_; }

  // Places `widget` at the end of the options row (after Elastic), or in the target row before
  // the export result: the composite's controls that belong beside the launch controls.
  void addToOptionsRow(QWidget* widget);
  void addToTargetRow(QWidget* widget);

 public slots:
  // Whether a run is going: enables Stop, disables Start and the options and target fields.
  void setRunning(bool running);
  // Whether Start may be pressed when no run is going; `reason` is its tooltip while it may not.
  void setStartAvailable(bool available, const QString& reason = {});
  // Sets every field of the target row; emits nothing.
  void setLaunchTarget(const LaunchTarget& target);
  // `message` as one line under the target, in red when `failed`.
  void showExportResult(const QString& message, bool failed);
  // The scheduler's job in the target row ("Slurm job 13: RUNNING"); hidden when `text` is
  // empty.
  void setJobText(const QString& text, const QString& tooltip = {});

 signals:
  void startRequested(int iterations, const QString& data);
  void exportRequested(const sailor::studio::LaunchTarget& target);
  void stopRequested();
  void launchTargetChanged(const sailor::studio::LaunchTarget& target);
  void editClusterRequested();

 private:
  QHBoxLayout* buildOptionsRow();
  QHBoxLayout* buildTargetRow();
  void connectTargetRow();
  void updateButtons();
  void updateTarget();
  void chooseClusterFile();
  void chooseExportDir();
  LaunchKind kind() const;

  QPushButton* start_ = nullptr;
  QPushButton* stop_ = nullptr;
  QSpinBox* iterations_ = nullptr;
  QComboBox* data_ = nullptr;
  QCheckBox* elastic_ = nullptr;
  QComboBox* target_ = nullptr;  // this machine / Slurm cluster / Export
  QLineEdit* cluster_file_ = nullptr;
  QPushButton* choose_cluster_ = nullptr;
  QPushButton* edit_cluster_ = nullptr;
  QLineEdit* partition_ = nullptr;
  QComboBox* export_format_ = nullptr;  // kubernetes / torchrun / slurm
  QLineEdit* export_dir_ = nullptr;
  QPushButton* choose_export_dir_ = nullptr;
  QLabel* job_ = nullptr;            // "Slurm job 13: PENDING (Resources)"
  QLabel* export_result_ = nullptr;  // the last export's one line
  QHBoxLayout* options_row_ = nullptr;
  QHBoxLayout* target_row_ = nullptr;
  int options_slot_ = 0;  // where addToOptionsRow inserts
  int target_slot_ = 0;   // where addToTargetRow inserts

  bool running_ = false;
  bool start_available_ = true;
  QString start_unavailable_reason_;
  bool export_failed_ = false;
};

}  // namespace sailor::studio
