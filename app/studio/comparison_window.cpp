#include "comparison_window.hpp"

#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include "comparison_view.hpp"
#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"

namespace sailor::studio {

ComparisonWindow::ComparisonWindow(RequestSource source, QWidget* parent)
    : QDialog(parent), source_(std::move(source)) {
  setObjectName(QStringLiteral("comparisonWindow"));
  setWindowTitle(tr("Compare scenarios"));
  planner_ = new PlanningService(this);
  connect(planner_, &PlanningService::finished, this, &ComparisonWindow::onFinished);
  connect(planner_, &PlanningService::failed, this, &ComparisonWindow::onFailed);

  list_ = new QListWidget;
  list_->setObjectName(QStringLiteral("comparisonScenarios"));
  add_current_ = new QPushButton(tr("Add current scenario"));
  add_current_->setToolTip(tr("The scenario as edited now, with the pools switched on now"));
  add_file_ = new QPushButton(tr("Add scenario file…"));
  remove_ = new QPushButton(tr("Remove"));
  compare_ = new QPushButton(tr("Compare"));
  compare_->setToolTip(tr("Plan every scenario for the job in the job panel"));
  export_csv_ = new QPushButton(tr("Export CSV…"));
  export_plot_ = new QPushButton(tr("Export plot…"));
  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("comparisonStatus"));
  status_->setWordWrap(true);
  view_ = new ComparisonView;

  auto* side = new QWidget;
  auto* sv = new QVBoxLayout(side);
  sv->setContentsMargins(0, 0, 0, 0);
  sv->addWidget(new QLabel(tr("Scenarios")));
  sv->addWidget(list_, 1);
  for (QPushButton* b : {add_current_, add_file_, remove_, compare_}) sv->addWidget(b);
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(side);
  split->addWidget(view_);
  split->setStretchFactor(1, 1);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
  buttons->addButton(export_csv_, QDialogButtonBox::ActionRole);
  buttons->addButton(export_plot_, QDialogButtonBox::ActionRole);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(split, 1);
  layout->addWidget(status_);
  layout->addWidget(buttons);
  resize(1180, 720);

  connect(add_current_, &QPushButton::clicked, this, [this] { addCurrentScenario(); });
  connect(add_file_, &QPushButton::clicked, this, [this] {
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Add scenario files"), QString(), tr("Scenarios (*.json);;All files (*)"));
    for (const QString& p : paths) addScenarioFile(p);
  });
  connect(remove_, &QPushButton::clicked, this, [this] { removeScenario(list_->currentRow()); });
  connect(compare_, &QPushButton::clicked, this, [this] { compare(); });
  connect(export_csv_, &QPushButton::clicked, this, &ComparisonWindow::exportCsvWithDialog);
  connect(export_plot_, &QPushButton::clicked, this, &ComparisonWindow::exportPlotWithDialog);
  connect(list_, &QListWidget::currentRowChanged, this, [this] { updateButtons(); });
  status_->setText(tr("Add two or more scenarios, then Compare."));
  updateButtons();
}

ComparisonWindow::~ComparisonWindow() = default;

QStringList ComparisonWindow::scenarioNames() const {
  QStringList names;
  for (const Entry& e : entries_) names << e.name;
  return names;
}

QString ComparisonWindow::statusText() const {
  return status_->text();
}

void ComparisonWindow::addScenario(const QString& name, std::shared_ptr<const Scenario> scenario) {
  QString unique = name;
  for (int n = 2; scenarioNames().contains(unique); ++n) unique = tr("%1 (%2)").arg(name).arg(n);
  entries_.push_back({unique, std::move(scenario)});
  list_->addItem(unique);
  list_->setCurrentRow(list_->count() - 1);
  updateButtons();
}

bool ComparisonWindow::addCurrentScenario() {
  const std::optional<PlanRequest> r = source_();
  if (!r) {
    status_->setText(tr("Fix the highlighted fields in the job panel first."));
    return false;
  }
  const Scenario& s = *r->scenario;
  const auto on =
      std::count_if(s.pools.begin(), s.pools.end(), [](const Pool& p) { return p.enabled; });
  QString name = QString::fromStdString(s.name.empty() ? std::string("scenario") : s.name);
  if (on != static_cast<long>(s.pools.size()))
    name = tr("%1, %2 of %3 pools").arg(name).arg(on).arg(s.pools.size());
  addScenario(name, r->scenario);
  return true;
}

bool ComparisonWindow::addScenarioFile(const QString& path) {
  const std::optional<PlanRequest> r = source_();
  if (!r) {
    status_->setText(tr("Fix the highlighted fields in the job panel first."));
    return false;
  }
  try {
    const std::string native = QFile::encodeName(path).toStdString();
    auto s = std::make_shared<const Scenario>(
        Scenario::fromJson(json_util::readFile(native), *r->catalog));
    addScenario(
        s->name.empty() ? QFileInfo(path).completeBaseName() : QString::fromStdString(s->name), s);
  } catch (const std::exception& e) {
    status_->setText(tr("%1: %2").arg(path, QString::fromUtf8(e.what())));
    return false;
  }
  return true;
}

void ComparisonWindow::removeScenario(int index) {
  if (busy() || index < 0 || index >= scenarioCount()) return;
  entries_.erase(entries_.begin() + index);
  delete list_->takeItem(index);
  updateButtons();
}

bool ComparisonWindow::compare() {
  if (entries_.empty()) {
    status_->setText(tr("Add two or more scenarios, then Compare."));
    return false;
  }
  base_ = source_();
  if (!base_) {
    status_->setText(tr("Fix the highlighted fields in the job panel first."));
    return false;
  }
  plan_ = entries_;
  next_ = 0;
  rows_.clear();
  view_->setRows({}, base_->job->deadline_days, base_->job->budget_usd);
  updateButtons();
  planNext();
  return true;
}

void ComparisonWindow::planNext() {
  if (next_ >= plan_.size()) {
    status_->setText(tr("Compared %n scenario(s) for %1.", "", static_cast<int>(rows_.size()))
                         .arg(QString::fromStdString(base_->job->model)));
    updateButtons();
    emit compared();
    return;
  }
  status_->setText(
      tr("Planning %1 (%2 of %3)…").arg(plan_[next_].name).arg(next_ + 1).arg(plan_.size()));
  PlanRequest r = *base_;
  r.scenario = plan_[next_].scenario;
  current_ = planner_->request(std::move(r));
}

void ComparisonWindow::onFinished(quint64 id, const std::shared_ptr<const PlanResult>& result) {
  if (id != current_ || !busy()) return;
  const Entry& e = plan_[next_];
  rows_.push_back(compareScenario(e.name.toStdString(), *e.scenario, *result));
  ++next_;
  showRows();
  planNext();
}

void ComparisonWindow::onFailed(quint64 id, const QString& message) {
  if (id != current_ || !busy()) return;
  ScenarioComparison row;
  row.name = plan_[next_].name.toStdString();
  row.no_plan_reason = message.toStdString();
  rows_.push_back(row);
  ++next_;
  showRows();
  planNext();
}

void ComparisonWindow::showRows() {
  view_->setRows(rows_, base_->job->deadline_days, base_->job->budget_usd);
}

void ComparisonWindow::exportCsvWithDialog() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export comparison as CSV"), QStringLiteral("comparison.csv"), tr("CSV (*.csv)"));
  if (path.isEmpty()) return;
  const QString error = view_->exportCsv(path);
  status_->setText(error.isEmpty() ? tr("Wrote %1").arg(path) : error);
}

void ComparisonWindow::exportPlotWithDialog() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export comparison plot"),
                                                    QStringLiteral("comparison.png"),
                                                    tr("PNG image (*.png);;PDF document (*.pdf)"));
  if (path.isEmpty()) return;
  const QString error = view_->exportPlot(path);
  status_->setText(error.isEmpty() ? tr("Wrote %1").arg(path) : error);
}

void ComparisonWindow::updateButtons() {
  const bool running = busy();
  add_current_->setEnabled(!running);
  add_file_->setEnabled(!running);
  remove_->setEnabled(!running && list_->currentRow() >= 0);
  compare_->setEnabled(!running && !entries_.empty());
  export_csv_->setEnabled(!running && !view_->rows().empty());
  export_plot_->setEnabled(!running && !view_->rows().empty());
}

}  // namespace sailor::studio
