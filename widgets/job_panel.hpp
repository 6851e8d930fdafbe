// The job and objective panel: what to train (a catalogue model or a custom architecture,
// global batch, sequence length, precision, optimizer), how much (a training budget in tokens,
// a deadline in days, a budget in USD) and what to plan for (objective,
// constraints, Pareto frontier, how many plans, a time limit, the memory reserve). Every field is
// checked as it is edited; a rejected value keeps the user's text, shows why right under the field,
// and the panel's values stay the last valid ones, so a typo never reaches the planner.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <QString>
#include <QWidget>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/planning/planner.hpp"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;

namespace sailor::studio {

class JobPanel : public QWidget {
  Q_OBJECT

 public:
  // `catalog`: the models offered (not owned; must outlive the panel).
  explicit JobPanel(const sailor::Catalog& catalog, QWidget* parent = nullptr);

  void setJob(const sailor::Job& job);
  // The custom architecture ("Custom" in the model list) becomes `model` (a job naming it then
  // shows it): a saved session's model.
  void setCustomModel(const sailor::ModelSpec& model);
  void setOptions(const sailor::PlannerOptions& options);

  // The last valid job: a catalogue model's name, or the custom model's name when "Custom" is
  // chosen (customModel() then holds its architecture, to add to the planner's catalogue).
  sailor::Job job() const { return job_; }
  std::optional<sailor::ModelSpec> customModel() const;
  // The last valid objective and constraints (threads, heuristics: defaults).
  sailor::PlannerOptions options() const { return options_; }
  // True when every field holds a valid value (none shows an error).
  bool isValid() const;

  // A plan search found nothing because of the constraints or memory: shown in the
  // objective group, near the constraints, until the next edit.
  void showPlanProblem(const QString& reason);
  QString planProblem() const;
  // The error shown under a field (empty when none), by the field's object name: "model",
  // "global_batch", "sequence_length", "custom.layers", ..., "training_tokens", "deadline_days",
  // "budget_usd", "max_usd_per_iteration",
  // "max_usd_per_hour", "min_iterations_per_s", "max_gpus", "top_k", "time_limit_s",
  // "memory_reserve" (percent of each GPU's memory).
  QString fieldError(const QString& field) const;
  // The edit widget of a field (tests type into it).
  QLineEdit* field(const QString& name) const;

 signals:
  // A valid edit changed the job or the options (not emitted for rejected values).
  void changed();

 private:
  struct Field {
    QLineEdit* edit = nullptr;
    QLabel* error = nullptr;
  };
  QLineEdit* addField(QFormLayout* form, const QString& name, const QString& label,
                      const QString& placeholder, const QString& tooltip);
  void setError(const QString& name, const QString& message);
  void onModelChosen();
  void revalidate();  // reads every field; applies and emits changed() when all are valid
  QString fieldText(const char* name) const;  // the text of field `name`, as typed
  // The custom model's fields, into `local`, `model_name` and `spec`; false if one is rejected.
  bool checkCustomModel(sailor::Catalog& local, std::string& model_name,
                        std::optional<sailor::ModelSpec>& spec);
  void showModelInfo(const sailor::ModelSpec* chosen);  // the line under the model chooser
  // Global batch and sequence length into `job`, checked by the engine when `model_ok`.
  bool checkJob(const std::string& model_name, const sailor::Catalog& local, bool model_ok,
                sailor::Job& job);
  bool checkOptions(sailor::PlannerOptions& o);  // objective and constraints into `o`

  const sailor::Catalog& catalog_;
  sailor::Job job_;
  sailor::PlannerOptions options_;
  std::optional<sailor::ModelSpec> custom_;
  bool updating_ = false;

  QComboBox* model_ = nullptr;
  QLabel* model_info_ = nullptr;
  QGroupBox* custom_group_ = nullptr;
  QComboBox* precision_ = nullptr;
  QComboBox* optimizer_ = nullptr;
  QComboBox* recompute_ = nullptr;
  QComboBox* objective_ = nullptr;
  QCheckBox* pareto_ = nullptr;
  QComboBox* memory_reserve_mode_ = nullptr;  // what becomes of plans within the reserve
  QLabel* plan_problem_ = nullptr;
  std::map<QString, Field> fields_;
};

}  // namespace sailor::studio
