#include "job_panel.hpp"

#include <cmath>

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

#include "sailor/core/error.hpp"

namespace sailor::studio {

namespace {

constexpr const char* kCustom = "__custom__";

QString number(double v) {
  return QString::number(v, 'g', 6);
}

// Parses a whole number >= min; nullopt and a message otherwise.
std::optional<int> parseInt(const QString& text, int min, QString* error) {
  bool ok = false;
  const int v = text.trimmed().toInt(&ok);
  if (!ok || v < min) {
    *error = JobPanel::tr("Expected a whole number ≥ %1, got \"%2\"").arg(min).arg(text.trimmed());
    return std::nullopt;
  }
  return v;
}

// Parses an optional positive number (empty: none).
std::optional<double> parseLimit(const QString& text, bool* ok, QString* error) {
  *ok = true;
  const QString t = text.trimmed();
  if (t.isEmpty()) return std::nullopt;
  bool parsed = false;
  const double v = t.toDouble(&parsed);
  if (!parsed || !std::isfinite(v) || v <= 0) {
    *ok = false;
    *error = JobPanel::tr("Expected a positive number, or empty for no limit; got \"%1\"").arg(t);
    return std::nullopt;
  }
  return v;
}

// Parses the memory reserve in percent of each GPU's memory (0 to the planner's maximum) into a
// fraction; nullopt and a message otherwise.
std::optional<double> parseReservePercent(const QString& text, QString* error) {
  const QString t = text.trimmed();
  bool parsed = false;
  const double v = t.toDouble(&parsed);
  const double max = 100 * sailor::kMaxMemoryReserveFraction;
  if (!parsed || !std::isfinite(v) || v < 0 || v > max) {
    *error = JobPanel::tr("Expected a percentage from 0 to %1, got \"%2\"").arg(max).arg(t);
    return std::nullopt;
  }
  return v / 100;
}

}  // namespace

JobPanel::JobPanel(const sailor::Catalog& catalog, QWidget* parent)
    : QWidget(parent), catalog_(catalog) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(6, 6, 6, 6);

  // What to train.
  auto* job_group = new QGroupBox(tr("Job"), this);
  auto* job_form = new QFormLayout(job_group);
  model_ = new QComboBox(job_group);
  model_->setObjectName(QStringLiteral("model"));
  for (const auto& m : catalog_.models())
    model_->addItem(QString::fromStdString(m.name), QString::fromStdString(m.name));
  model_->addItem(tr("Custom architecture…"), QString::fromLatin1(kCustom));
  model_->setToolTip(
      tr("A model from the catalogue (sailor catalog models) or your own "
         "architecture"));
  job_form->addRow(tr("Model"), model_);
  model_info_ = new QLabel(job_group);
  model_info_->setWordWrap(true);
  model_info_->setStyleSheet(QStringLiteral("color: palette(mid);"));
  job_form->addRow(QString(), model_info_);

  custom_group_ = new QGroupBox(tr("Custom architecture"), job_group);
  auto* custom_form = new QFormLayout(custom_group_);
  addField(custom_form, QStringLiteral("custom.name"), tr("Name"), QString(),
           tr("A name for this architecture"));
  addField(custom_form, QStringLiteral("custom.layers"), tr("Layers"), QString(),
           tr("Transformer blocks"));
  addField(custom_form, QStringLiteral("custom.hidden_size"), tr("Hidden size"), QString(), {});
  addField(custom_form, QStringLiteral("custom.heads"), tr("Attention heads"), QString(),
           tr("Must divide the hidden size"));
  addField(custom_form, QStringLiteral("custom.ffn_hidden_size"), tr("FFN size"), QString(), {});
  addField(custom_form, QStringLiteral("custom.vocab_size"), tr("Vocabulary"), QString(), {});
  custom_group_->setVisible(false);
  job_form->addRow(custom_group_);

  addField(job_form, QStringLiteral("global_batch"), tr("Global batch"), QString(),
           tr("Sequences per iteration"));
  addField(job_form, QStringLiteral("sequence_length"), tr("Sequence length"), tr("model default"),
           tr("Tokens per sequence; empty: the model's default"));
  precision_ = new QComboBox(job_group);
  precision_->setObjectName(QStringLiteral("precision"));
  precision_->addItem(tr("fp32"), static_cast<int>(Precision::Fp32));
  precision_->addItem(tr("bf16 mixed"), static_cast<int>(Precision::Bf16));
  precision_->addItem(tr("fp16 mixed"), static_cast<int>(Precision::Fp16));
  job_form->addRow(tr("Precision"), precision_);
  optimizer_ = new QComboBox(job_group);
  optimizer_->setObjectName(QStringLiteral("optimizer"));
  optimizer_->addItem(tr("Adam"), static_cast<int>(Optimizer::Adam));
  optimizer_->addItem(tr("SGD"), static_cast<int>(Optimizer::Sgd));
  job_form->addRow(tr("Optimizer"), optimizer_);
  recompute_ = new QComboBox(job_group);
  recompute_->setObjectName(QStringLiteral("recompute"));
  recompute_->addItem(tr("None"), static_cast<int>(Recompute::None));
  recompute_->addItem(tr("Selective"), static_cast<int>(Recompute::Selective));
  recompute_->addItem(tr("Full"), static_cast<int>(Recompute::Full));
  recompute_->setToolTip(
      tr("Activation recomputation: Full keeps only each block's input and "
         "recomputes its forward during backward (less memory, about a third "
         "more compute); Selective recomputes only the attention core (softmax "
         "and dropout over the score matrices)"));
  job_form->addRow(tr("Recomputation"), recompute_);
  outer->addWidget(job_group);

  // How much to train: the whole run in days and dollars (docs/planner.md, "Days and dollars").
  auto* budget_group = new QGroupBox(tr("Training budget"), this);
  auto* budget_form = new QFormLayout(budget_group);
  addField(budget_form, QStringLiteral("training_tokens"), tr("Tokens to train"), tr("none"),
           tr("The whole run's tokens (e.g. 2e12): every plan then shows its days and total "
              "USD with failures and checkpoints priced in, and the plot can show days against "
              "total USD"));
  addField(budget_form, QStringLiteral("deadline_days"), tr("Deadline (days)"), tr("none"),
           tr("Plans whose whole run takes longer are left out"));
  addField(budget_form, QStringLiteral("budget_usd"), tr("Budget (USD)"), tr("none"),
           tr("Plans whose whole run costs more are left out"));
  outer->addWidget(budget_group);

  // What to plan for.
  auto* goal_group = new QGroupBox(tr("Objective and constraints"), this);
  auto* goal_form = new QFormLayout(goal_group);
  objective_ = new QComboBox(goal_group);
  objective_->setObjectName(QStringLiteral("objective"));
  objective_->addItem(tr("Maximum throughput"), static_cast<int>(Objective::Throughput));
  objective_->addItem(tr("Minimum cost per iteration"), static_cast<int>(Objective::Cost));
  goal_form->addRow(tr("Objective"), objective_);
  pareto_ = new QCheckBox(tr("Pareto frontier of throughput against cost"), goal_group);
  pareto_->setObjectName(QStringLiteral("pareto"));
  pareto_->setToolTip(
      tr("Also search the whole trade-off between throughput and cost per "
         "iteration (slower on large scenarios)"));
  goal_form->addRow(QString(), pareto_);
  addField(goal_form, QStringLiteral("max_usd_per_iteration"), tr("Max $ / iteration"),
           tr("no limit"), tr("Compute and egress cost of one iteration, USD"));
  addField(goal_form, QStringLiteral("max_usd_per_hour"), tr("Max $ / hour"), tr("no limit"),
           tr("GPU rental and egress per hour of training, USD"));
  addField(goal_form, QStringLiteral("min_iterations_per_s"), tr("Min iterations / s"),
           tr("no limit"), tr("Lowest acceptable throughput"));
  addField(goal_form, QStringLiteral("max_gpus"), tr("Max GPUs"), tr("no limit"),
           tr("GPUs the plan may use at most"));
  addField(goal_form, QStringLiteral("top_k"), tr("Plans listed"), QString(),
           tr("How many of the best plans the search returns"));
  addField(goal_form, QStringLiteral("time_limit_s"), tr("Time limit (s)"), tr("no limit"),
           tr("Seconds a search may take; when they are up, the best plans found so far "
              "are shown, marked as such"));
  addField(goal_form, QStringLiteral("memory_reserve"), tr("Memory reserve (%)"), QString(),
           tr("Share of each GPU's memory kept free against the allocator's fragmentation; "
              "plans with less headroom are dropped or flagged (0: none)"));
  memory_reserve_mode_ = new QComboBox(goal_group);
  memory_reserve_mode_->setObjectName(QStringLiteral("memory_reserve_mode"));
  memory_reserve_mode_->addItem(tr("Drop plans within it"),
                                static_cast<int>(MemoryReserveMode::Drop));
  memory_reserve_mode_->addItem(tr("Flag plans within it"),
                                static_cast<int>(MemoryReserveMode::Flag));
  memory_reserve_mode_->setToolTip(
      tr("Drop: the search keeps the reserve free and leaves out plans within it; Flag: it "
         "searches the whole memory and marks plans within the reserve"));
  goal_form->addRow(QString(), memory_reserve_mode_);
  plan_problem_ = new QLabel(goal_group);
  plan_problem_->setObjectName(QStringLiteral("plan_problem"));
  plan_problem_->setWordWrap(true);
  plan_problem_->setStyleSheet(QStringLiteral("color: #b00020; font-weight: bold;"));
  plan_problem_->setVisible(false);
  goal_form->addRow(plan_problem_);
  outer->addWidget(goal_group);
  outer->addStretch(1);

  connect(model_, &QComboBox::currentIndexChanged, this, [this] { onModelChosen(); });
  for (QComboBox* box : {precision_, optimizer_, recompute_, objective_, memory_reserve_mode_})
    connect(box, &QComboBox::currentIndexChanged, this, [this] { revalidate(); });
  connect(pareto_, &QCheckBox::toggled, this, [this] { revalidate(); });

  sailor::Job job;
  job.model = catalog_.models().empty() ? std::string() : catalog_.models().front().name;
  job.global_batch_size = 1024;
  job.sequence_length =
      catalog_.models().empty() ? 2048 : catalog_.models().front().sequence_length;
  setJob(job);
  setOptions(sailor::PlannerOptions{});
}

QLineEdit* JobPanel::addField(QFormLayout* form, const QString& name, const QString& label,
                              const QString& placeholder, const QString& tooltip) {
  auto* column = new QWidget(form->parentWidget());
  auto* v = new QVBoxLayout(column);
  v->setContentsMargins(0, 0, 0, 0);
  v->setSpacing(1);
  auto* edit = new QLineEdit(column);
  edit->setObjectName(name);
  edit->setPlaceholderText(placeholder);
  if (!tooltip.isEmpty()) edit->setToolTip(tooltip);
  auto* error = new QLabel(column);
  error->setObjectName(name + QStringLiteral(".error"));
  error->setWordWrap(true);
  error->setStyleSheet(QStringLiteral("color: #b00020;"));
  error->setVisible(false);
  v->addWidget(edit);
  v->addWidget(error);
  form->addRow(label, column);
  fields_[name] = Field{edit, error};
  connect(edit, &QLineEdit::editingFinished, this, [this] { revalidate(); });
  return edit;
}

QLineEdit* JobPanel::field(const QString& name) const {
  auto it = fields_.find(name);
  return it == fields_.end() ? nullptr : it->second.edit;
}

QString JobPanel::fieldError(const QString& name) const {
  auto it = fields_.find(name);
  if (it == fields_.end() || it->second.error->isHidden()) return {};
  return it->second.error->text();
}

void JobPanel::setError(const QString& name, const QString& message) {
  auto it = fields_.find(name);
  if (it == fields_.end()) return;
  it->second.error->setText(message);
  it->second.error->setVisible(!message.isEmpty());
  it->second.edit->setStyleSheet(message.isEmpty() ? QString()
                                                   : QStringLiteral("border: 1px solid #b00020;"));
}

bool JobPanel::isValid() const {
  for (const auto& [name, f] : fields_)
    if (!f.error->isHidden()) return false;
  return true;
}

std::optional<sailor::ModelSpec> JobPanel::customModel() const {
  if (model_->currentData().toString() != QLatin1String(kCustom)) return std::nullopt;
  return custom_;
}

void JobPanel::setJob(const sailor::Job& job) {
  updating_ = true;
  job_.model = job.model;  // so that choosing its model below keeps the job's sequence length
  const sailor::ModelSpec* m = catalog_.findModel(job.model);
  if (m) {
    model_->setCurrentIndex(model_->findData(QString::fromStdString(m->name)));
  } else if (custom_ && custom_->name == job.model) {
    model_->setCurrentIndex(model_->findData(QString::fromLatin1(kCustom)));
  }
  field(QStringLiteral("global_batch"))->setText(QString::number(job.global_batch_size));
  field(QStringLiteral("sequence_length"))->setText(QString::number(job.sequence_length));
  precision_->setCurrentIndex(precision_->findData(static_cast<int>(job.precision)));
  optimizer_->setCurrentIndex(optimizer_->findData(static_cast<int>(job.optimizer)));
  recompute_->setCurrentIndex(recompute_->findData(static_cast<int>(job.recompute)));
  auto put = [this](const char* name, const std::optional<double>& v) {
    field(QString::fromLatin1(name))->setText(v ? number(*v) : QString());
  };
  // A budget in iterations shows as its tokens (the panel takes tokens).
  put("training_tokens",
      job.training_iterations
          ? std::optional<double>(*job.training_iterations * job.global_batch_size *
                                  static_cast<double>(job.sequence_length))
          : job.training_tokens);
  put("deadline_days", job.deadline_days);
  put("budget_usd", job.budget_usd);
  updating_ = false;
  onModelChosen();
}

void JobPanel::setOptions(const sailor::PlannerOptions& options) {
  updating_ = true;
  objective_->setCurrentIndex(objective_->findData(static_cast<int>(options.objective)));
  pareto_->setChecked(options.pareto);
  auto put = [this](const char* name, const std::optional<double>& v) {
    field(QString::fromLatin1(name))->setText(v ? number(*v) : QString());
  };
  put("max_usd_per_iteration", options.max_usd_per_iteration);
  put("max_usd_per_hour", options.max_usd_per_hour);
  put("min_iterations_per_s", options.min_iterations_per_s);
  field(QStringLiteral("max_gpus"))
      ->setText(options.max_gpus ? QString::number(*options.max_gpus) : QString());
  field(QStringLiteral("top_k"))->setText(QString::number(options.top_k));
  put("time_limit_s", options.time_limit_s);
  field(QStringLiteral("memory_reserve"))->setText(number(100 * options.memory_reserve_fraction));
  memory_reserve_mode_->setCurrentIndex(
      memory_reserve_mode_->findData(static_cast<int>(options.memory_reserve_mode)));
  updating_ = false;
  revalidate();
}

void JobPanel::setCustomModel(const sailor::ModelSpec& model) {
  custom_ = model;
  if (model_->currentData().toString() == QLatin1String(kCustom)) onModelChosen();
}

void JobPanel::onModelChosen() {
  const bool custom = model_->currentData().toString() == QLatin1String(kCustom);
  if (custom && !custom_) {
    // Start from the architecture that was chosen before, under a new name.
    const sailor::ModelSpec* base = catalog_.findModel(job_.model);
    sailor::ModelSpec spec = base ? *base : catalog_.models().front();
    spec.name = "custom-model";
    spec.aliases.clear();
    spec.sources = {"defined in Sailor Studio"};
    custom_ = spec;
  }
  if (custom && custom_) {
    updating_ = true;
    field(QStringLiteral("custom.name"))->setText(QString::fromStdString(custom_->name));
    field(QStringLiteral("custom.layers"))->setText(QString::number(custom_->layers));
    field(QStringLiteral("custom.hidden_size"))->setText(QString::number(custom_->hidden_size));
    field(QStringLiteral("custom.heads"))->setText(QString::number(custom_->heads));
    field(QStringLiteral("custom.ffn_hidden_size"))
        ->setText(QString::number(custom_->ffn_hidden_size));
    field(QStringLiteral("custom.vocab_size"))->setText(QString::number(custom_->vocab_size));
    updating_ = false;
  }
  custom_group_->setVisible(custom);
  if (!custom) {
    // A catalogue model's own sequence length replaces the previous model's default.
    const sailor::ModelSpec* m = catalog_.findModel(model_->currentData().toString().toStdString());
    if (m && !updating_ && job_.model != m->name && !job_.model.empty())
      field(QStringLiteral("sequence_length"))->setText(QString::number(m->sequence_length));
  }
  revalidate();
}

QString JobPanel::fieldText(const char* name) const {
  return field(QString::fromLatin1(name))->text();
}

bool JobPanel::checkCustomModel(sailor::Catalog& local, std::string& model_name,
                                std::optional<sailor::ModelSpec>& spec) {
  const bool custom = model_name == kCustom;
  for (const char* f : {"custom.name", "custom.layers", "custom.hidden_size", "custom.heads",
                        "custom.ffn_hidden_size", "custom.vocab_size"})
    setError(QString::fromLatin1(f), {});
  if (!custom) return true;
  sailor::ModelSpec s = custom_ ? *custom_ : catalog_.models().front();
  s.name = fieldText("custom.name").trimmed().toStdString();
  bool fields_ok = true;
  if (s.name.empty()) {
    setError(QStringLiteral("custom.name"), tr("Expected a name"));
    fields_ok = false;
  } else if (catalog_.findModel(s.name)) {
    setError(QStringLiteral("custom.name"),
             tr("\"%1\" is a catalogue model; choose another name").arg(fieldText("custom.name")));
    fields_ok = false;
  }
  const std::pair<const char*, int*> ints[] = {{"custom.layers", &s.layers},
                                               {"custom.hidden_size", &s.hidden_size},
                                               {"custom.heads", &s.heads},
                                               {"custom.ffn_hidden_size", &s.ffn_hidden_size},
                                               {"custom.vocab_size", &s.vocab_size}};
  for (const auto& [name, target] : ints) {
    QString why;
    if (auto v = parseInt(fieldText(name), 1, &why)) *target = *v;
    else {
      setError(QString::fromLatin1(name), why);
      fields_ok = false;
    }
  }
  s.kv_heads = s.heads;
  if (fields_ok) {
    try {
      local.addModel(s);
      spec = s;
      model_name = s.name;
    } catch (const InputError& e) {
      // "model.heads" -> the custom.heads field.
      QString f = QString::fromStdString(e.field());
      f.replace(QStringLiteral("model."), QStringLiteral("custom."));
      if (!fields_.count(f)) f = QStringLiteral("custom.name");
      setError(f,
               tr("Got %1, expected %2")
                   .arg(QString::fromStdString(e.value()), QString::fromStdString(e.expected())));
      fields_ok = false;
    }
  }
  return fields_ok;
}

void JobPanel::showModelInfo(const sailor::ModelSpec* chosen) {
  if (chosen) {
    const double params = sailor::totalParameters(*chosen);
    model_info_->setText(tr("%1 layers, hidden %2, %3 heads, %4 B parameters")
                             .arg(chosen->layers)
                             .arg(chosen->hidden_size)
                             .arg(chosen->heads)
                             .arg(params / 1e9, 0, 'f', params < 1e10 ? 2 : 1));
  } else {
    model_info_->clear();
  }
}

bool JobPanel::checkJob(const std::string& model_name, const sailor::Catalog& local, bool model_ok,
                        sailor::Job& job) {
  bool ok = true;
  setError(QStringLiteral("global_batch"), {});
  setError(QStringLiteral("sequence_length"), {});
  {
    QString why;
    if (auto v = parseInt(fieldText("global_batch"), 1, &why)) job.global_batch_size = *v;
    else {
      setError(QStringLiteral("global_batch"), why);
      ok = false;
    }
  }
  nlohmann::json j{
      {"model", model_name},
      {"global_batch_size", job.global_batch_size},
      {"precision", precisionName(static_cast<Precision>(precision_->currentData().toInt()))},
      {"optimizer", optimizerName(static_cast<Optimizer>(optimizer_->currentData().toInt()))},
      {"recompute", recomputeName(static_cast<Recompute>(recompute_->currentData().toInt()))}};
  if (!fieldText("sequence_length").trimmed().isEmpty()) {
    QString why;
    if (auto v = parseInt(fieldText("sequence_length"), 1, &why)) j["sequence_length"] = *v;
    else {
      setError(QStringLiteral("sequence_length"), why);
      ok = false;
    }
  }
  // The training budget: optional positive numbers, their ranges the engine's; a deadline or a
  // budget needs the tokens it applies to.
  static const char* const kBudgetFields[] = {"training_tokens", "deadline_days", "budget_usd"};
  for (const char* name : kBudgetFields) {
    const QString f = QString::fromLatin1(name);
    setError(f, {});
    bool valid = true;
    QString why;
    if (auto v = parseLimit(fieldText(name), &valid, &why)) j[name] = *v;
    if (!valid) {
      setError(f, why);
      ok = false;
    }
  }
  for (const char* name : {"deadline_days", "budget_usd"})
    if (j.contains(name) && !j.contains("training_tokens") &&
        fieldError(QStringLiteral("training_tokens")).isEmpty()) {
      setError(QString::fromLatin1(name),
               tr("Needs the tokens to train: a deadline or budget applies to a whole run"));
      ok = false;
    }
  if (ok && model_ok) {
    try {
      job = sailor::Job::fromJson(j, local);
    } catch (const InputError& e) {
      const QString f = QString::fromStdString(e.field());
      const bool own = f == QLatin1String("sequence_length") ||
                       f == QLatin1String("training_tokens") ||
                       f == QLatin1String("deadline_days") || f == QLatin1String("budget_usd");
      setError(own ? f : QStringLiteral("global_batch"),
               tr("Got %1, expected %2")
                   .arg(QString::fromStdString(e.value()), QString::fromStdString(e.expected())));
      ok = false;
    }
  }
  return ok;
}

bool JobPanel::checkOptions(sailor::PlannerOptions& o) {
  bool ok = true;
  o.objective = static_cast<Objective>(objective_->currentData().toInt());
  o.pareto = pareto_->isChecked();
  const std::pair<const char*, std::optional<double>*> limits[] = {
      {"max_usd_per_iteration", &o.max_usd_per_iteration},
      {"max_usd_per_hour", &o.max_usd_per_hour},
      {"min_iterations_per_s", &o.min_iterations_per_s},
      {"time_limit_s", &o.time_limit_s}};
  for (const auto& [name, target] : limits) {
    bool valid = true;
    QString why;
    const auto v = parseLimit(fieldText(name), &valid, &why);
    setError(QString::fromLatin1(name), why);
    if (valid) *target = v;
    else ok = false;
  }
  if (fieldText("max_gpus").trimmed().isEmpty()) {
    o.max_gpus.reset();
    setError(QStringLiteral("max_gpus"), {});
  } else {
    QString why;
    const auto v = parseInt(fieldText("max_gpus"), 1, &why);
    setError(QStringLiteral("max_gpus"), why);
    if (v) o.max_gpus = *v;
    else ok = false;
  }
  {
    QString why;
    const auto v = parseInt(fieldText("top_k"), 1, &why);
    if (v && *v > 100) why = tr("Expected at most 100 plans, got %1").arg(*v);
    setError(QStringLiteral("top_k"), why);
    if (v && why.isEmpty()) o.top_k = *v;
    else ok = false;
  }

  {
    QString why;
    const auto v = parseReservePercent(fieldText("memory_reserve"), &why);
    setError(QStringLiteral("memory_reserve"), why);
    if (v) o.memory_reserve_fraction = *v;
    else ok = false;
  }
  o.memory_reserve_mode =
      static_cast<MemoryReserveMode>(memory_reserve_mode_->currentData().toInt());
  return ok;
}

void JobPanel::revalidate() {
  if (updating_) return;
  plan_problem_->setVisible(false);
  plan_problem_->clear();

  // The model: a catalogue entry, or the custom architecture checked by the engine.
  sailor::Catalog local = catalog_;
  std::string model_name = model_->currentData().toString().toStdString();
  std::optional<sailor::ModelSpec> spec;
  bool ok = checkCustomModel(local, model_name, spec);
  const sailor::ModelSpec* chosen = spec ? &*spec : catalog_.findModel(model_name);
  showModelInfo(chosen);

  // The job, checked by the engine (sequence length against learned positions, ...).
  sailor::Job job = job_;
  ok = checkJob(model_name, local, ok && chosen, job) && ok;

  // Objective and constraints.
  sailor::PlannerOptions o = options_;
  ok = checkOptions(o) && ok;

  if (!ok) return;
  const bool same =
      job.toJson() == job_.toJson() && o.objective == options_.objective &&
      o.pareto == options_.pareto && o.max_usd_per_iteration == options_.max_usd_per_iteration &&
      o.max_usd_per_hour == options_.max_usd_per_hour &&
      o.min_iterations_per_s == options_.min_iterations_per_s && o.max_gpus == options_.max_gpus &&
      o.top_k == options_.top_k && o.time_limit_s == options_.time_limit_s &&
      o.memory_reserve_fraction == options_.memory_reserve_fraction &&
      o.memory_reserve_mode == options_.memory_reserve_mode &&
      (!spec || !custom_ || spec->toJson() == custom_->toJson());
  job_ = job;
  options_ = o;
  if (spec) custom_ = spec;
  if (!same) emit changed();
}

void JobPanel::showPlanProblem(const QString& reason) {
  plan_problem_->setText(reason);
  plan_problem_->setVisible(!reason.isEmpty());
}

QString JobPanel::planProblem() const {
  return plan_problem_->isHidden() ? QString() : plan_problem_->text();
}

}  // namespace sailor::studio
