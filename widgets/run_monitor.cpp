#include "run_monitor.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <set>
#include <type_traits>
#include <variant>

#include <QDateTime>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "run/prediction_view.hpp"
#include "run/run_format.hpp"

namespace sailor::studio {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

RunMonitor::RunMonitor(QWidget* parent) : QWidget(parent) {
  buildUi();
  connectViews();
  clearRun();
  updateButtons();
}

RunMonitor::~RunMonitor() = default;

QString RunMonitor::workerStateName(WorkerState state) {
  return LivePlots::workerStateName(state);
}

QString RunMonitor::runStatusText(sailor::RunStatus status) {
  return PastRunsView::statusText(status);
}

QString RunMonitor::causeText(const std::string& cause) {
  return ReconfigurationView::causeText(cause);
}

QString RunMonitor::reconfigurationLabel(const sailor::ReconfiguredEvent& event) {
  return ReconfigurationView::reconfigurationLabel(event);
}

QString RunMonitor::phasesText(const sailor::ReconfiguredEvent& event) {
  return ReconfigurationView::phasesText(event);
}

QString RunMonitor::planText(const sailor::Plan& plan) {
  return ReconfigurationView::planText(plan);
}

// ---------------------------------------------------------------------------------------------
// Layout

void RunMonitor::buildBanners() {
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("runStatus"));
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // A line of its own, wrapped when the window is narrower than the run's state.
  status_->setWordWrap(true);
  banner_ = new QLabel(this);
  banner_->setObjectName(QStringLiteral("runErrorBanner"));
  banner_->setWordWrap(true);
  banner_->setTextFormat(Qt::PlainText);
  banner_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  banner_->setStyleSheet(QStringLiteral(
      "QLabel#runErrorBanner { background: #fdecea; color: #611a15; border: 1px solid #e57373;"
      " border-radius: 3px; padding: 6px; font-weight: bold; }"));
  banner_->hide();
}

// From the top: the launch panel (options with Resize..., target with Re-attach), the run's
// state, the banners; then the plots over the tabs (workers, log, prediction, reconfigurations,
// past runs), in a splitter.
void RunMonitor::buildUi() {
  // The launch panel first: its iterations box and data chooser are the monitor's first spin box
  // and combo box.
  launch_ = new LaunchPanel(this);
  plots_ = new LivePlots(this);
  reconfigs_ = new ReconfigurationView(this);
  past_ = new PastRunsView(this);
  prediction_ = new PredictionView(plots_->iterationTimePlot(), this);
  launch_->addToOptionsRow(reconfigs_->resizeButton());
  launch_->addToTargetRow(past_->reattachButton());
  buildBanners();

  log_ = new QPlainTextEdit(this);
  log_->setObjectName(QStringLiteral("runLog"));
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(5000);
  log_->setLineWrapMode(QPlainTextEdit::NoWrap);

  tabs_ = new QTabWidget(this);
  tabs_->setObjectName(QStringLiteral("runTabs"));
  tabs_->addTab(plots_->workerTable(), tr("Workers"));
  tabs_->addTab(log_, tr("Log"));
  tabs_->addTab(prediction_, tr("Prediction"));
  tabs_->addTab(reconfigs_, tr("Reconfigurations"));
  tabs_->addTab(past_, tr("Past runs"));

  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->setChildrenCollapsible(false);
  splitter->addWidget(plots_);
  splitter->addWidget(tabs_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);

  auto* layout = new QVBoxLayout(this);
  layout->setSpacing(4);
  layout->addWidget(launch_);
  layout->addWidget(status_);
  layout->addWidget(banner_);
  layout->addWidget(reconfigs_->pauseBanner());
  layout->addWidget(splitter, 1);
}

void RunMonitor::connectViews() {
  connect(launch_, &LaunchPanel::startRequested, this, &RunMonitor::startRequested);
  connect(launch_, &LaunchPanel::exportRequested, this, &RunMonitor::exportRequested);
  connect(launch_, &LaunchPanel::stopRequested, this, &RunMonitor::stopRequested);
  connect(launch_, &LaunchPanel::launchTargetChanged, this, &RunMonitor::launchTargetChanged);
  connect(launch_, &LaunchPanel::editClusterRequested, this, &RunMonitor::editClusterRequested);
  connect(past_, &PastRunsView::reopenRequested, this, &RunMonitor::reopenRequested);
  connect(past_, &PastRunsView::refreshRunsRequested, this, &RunMonitor::refreshRunsRequested);
  connect(past_, &PastRunsView::reattachRequested, this, &RunMonitor::reattachRequested);
  connect(reconfigs_, &ReconfigurationView::resizeRequested, this, &RunMonitor::resizeRequested);
  connect(reconfigs_, &ReconfigurationView::markerRequested, plots_,
          &LivePlots::addIterationMarker);
  connect(prediction_, &PredictionView::shownSecondsChanged, plots_, &LivePlots::setTimeReference);
}

// ---------------------------------------------------------------------------------------------
// State for the studio and tests

bool RunMonitor::errorShown() const {
  return !banner_->isHidden();
}

QString RunMonitor::errorText() const {
  return banner_->isHidden() ? QString() : banner_->text();
}

bool RunMonitor::pausedShown() const {
  return reconfigs_->pausedShown();
}

QString RunMonitor::pausedText() const {
  return reconfigs_->pausedText();
}

QString RunMonitor::statusText() const {
  return status_->text();
}

double RunMonitor::predictedIterationSeconds() const {
  return prediction_->planSeconds();
}

double RunMonitor::shownPredictionSeconds() const {
  return prediction_->shownSeconds();
}

QString RunMonitor::predictionLabelText() const {
  return prediction_->labelText();
}

std::vector<sailor::ComparisonRow> RunMonitor::comparisonRows() const {
  return prediction_->comparisonRows();
}

QString RunMonitor::comparisonNote() const {
  return prediction_->comparisonNote();
}

sailor::Plan RunMonitor::currentPlan() const {
  if (!reconfigs_->reconfigurations().empty())
    return reconfigs_->reconfigurations().back().new_plan;
  return started_ ? started_->plan : sailor::Plan{};
}

QString RunMonitor::jobText() const {
  if (job_id_.isEmpty()) return {};
  const QString launcher = job_launcher_ == QLatin1String("slurm") ? tr("Slurm") : job_launcher_;
  QString text = tr("%1 job %2: %3").arg(launcher, job_id_, job_state_);
  if (!job_reason_.isEmpty()) text += QStringLiteral(" (%1)").arg(job_reason_);
  return text;
}

// ---------------------------------------------------------------------------------------------
// Controls

void RunMonitor::setRunning(bool running) {
  running_ = running;
  updateButtons();
}

void RunMonitor::setStartAvailable(bool available, const QString& reason) {
  launch_->setStartAvailable(available, reason);
}

void RunMonitor::updateButtons() {
  launch_->setRunning(running_);
  reconfigs_->setRun(run_id_, running_, running_ && started_ && !finished_ && !stored_,
                     currentPlan());
}

void RunMonitor::setResizable(bool resizable, const std::vector<sailor::Pool>& pools,
                              const QString& reason) {
  updateButtons();
  reconfigs_->setResizable(resizable, pools, reason);
}

void RunMonitor::showResizeResult(const QString& message, bool failed) {
  appendLog(QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs), message);
  if (failed) showBanner(message, {});
}

void RunMonitor::setLaunchTarget(const LaunchTarget& target) {
  launch_->setLaunchTarget(target);
}

void RunMonitor::showExportResult(const QString& message, bool failed) {
  launch_->showExportResult(message, failed);
}

void RunMonitor::setReattachable(bool reattachable, const QString& reason) {
  past_->setReattachable(reattachable, running_, reason);
}

void RunMonitor::followStoredRun() {
  stored_ = false;
  finished_.reset();
  setReattachable(false);
  updateButtons();
  updateStatus();
}

void RunMonitor::setPredictedIterationSeconds(double s) {
  prediction_->setPlanSeconds(s);
}

// ---------------------------------------------------------------------------------------------
// The run shown

void RunMonitor::clearRun() {
  run_id_ = 0;
  started_.reset();
  last_iteration_.reset();
  finished_.reset();
  stored_ = false;
  job_launcher_.clear();
  job_id_.clear();
  job_state_.clear();
  job_reason_.clear();
  job_states_seen_.clear();
  launch_->setJobText({});
  past_->setShownRun(0);
  setReattachable(false);
  reconfigs_->clear();
  setResizable(false);
  generation_ = -1;
  joiners_.clear();
  plots_->clear();
  log_->clear();
  banner_->clear();
  banner_->setToolTip({});
  banner_->hide();
  prediction_->clearRun();
  updateStatus();
}

void RunMonitor::applyEvent(const sailor::RunEvent& event) {
  const QString time = QString::fromStdString(event.time);
  std::visit(
      [&](const auto& e) {
        using Body = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<Body, sailor::RunStartedEvent>) onRunStarted(event.run_id, e);
        else if constexpr (std::is_same_v<Body, sailor::RunWarningEvent>) onWarning(e, time);
        else if constexpr (std::is_same_v<Body, sailor::WorkersStartedEvent>)
          onWorkersStarted(e, time);
        else if constexpr (std::is_same_v<Body, sailor::WorkersReadyEvent>) onWorkersReady(e, time);
        else if constexpr (std::is_same_v<Body, sailor::IterationEvent>) onIteration(e, time);
        else if constexpr (std::is_same_v<Body, sailor::RunErrorEvent>) onError(e, time);
        else if constexpr (std::is_same_v<Body, sailor::RunFinishedEvent>) onFinished(e, time);
        else if constexpr (std::is_same_v<Body, sailor::JobStateEvent>) onJobState(e, time);
        else if constexpr (std::is_same_v<Body, sailor::CheckpointEvent>) onCheckpoint(e, time);
        else if constexpr (std::is_same_v<Body, sailor::ResumedEvent>) onResumed(e, time);
        else if constexpr (std::is_same_v<Body, sailor::ReconfiguredEvent>) onReconfigured(e, time);
        else if constexpr (std::is_same_v<Body, sailor::PausedEvent>) onPaused(e, time);
        else static_assert(sizeof(Body) == 0, "an event kind without its handler");
      },
      event.body);
}

void RunMonitor::onRunStarted(std::int64_t run_id, const sailor::RunStartedEvent& event) {
  const bool stored = stored_;
  clearRun();
  stored_ = stored;
  run_id_ = run_id;
  started_ = event;
  past_->setShownRun(run_id);
  updateButtons();
  // The training settings the workers apply: master dtype, compute precision, optimizer,
  // recomputation, the plan's data-parallel and pipeline schedule options.
  QStringList training{QString::fromStdString(event.dtype)};
  if (event.precision == sailor::Precision::Bf16) training << tr("bf16 compute");
  training << (event.optimizer == sailor::Optimizer::Sgd ? tr("SGD with momentum") : tr("AdamW"));
  if (event.recompute == sailor::Recompute::Full) training << tr("activations recomputed");
  if (event.plan.schedule.overlap_grad_reduce) training << tr("overlapped gradient reduction");
  if (event.plan.schedule.sharding == sailor::DpSharding::Optimizer)
    training << tr("distributed optimizer");
  if (event.plan.schedule.virtual_stages > 1)
    training
        << tr("%1 model chunks per GPU (interleaved 1F1B)").arg(event.plan.schedule.virtual_stages);
  appendLog({}, tr("Run %1 (%2): %3 processes, %4 iterations, %5 data, %6; model %7 scaled to "
                   "hidden %8, sequence %9")
                    .arg(run_id)
                    .arg(QString::fromStdString(event.name))
                    .arg(event.world_size)
                    .arg(event.iterations)
                    .arg(QString::fromStdString(event.data))
                    .arg(training.join(QStringLiteral(", ")))
                    .arg(QString::fromStdString(event.model.name))
                    .arg(event.model.hidden_size)
                    .arg(event.model.sequence_length));
  if (event.prediction)
    appendLog({}, tr("Prediction %1: %2 s per iteration")
                      .arg(QString::fromStdString(event.prediction->label()))
                      .arg(run_format::seconds(event.prediction->iteration_seconds)));
  else if (!event.prediction_note.empty())
    appendLog({}, QString::fromStdString(event.prediction_note));
  plots_->ensureStageGraphs(static_cast<int>(event.plan.stages.size()));
  prediction_->startRun(run_id, event);
  updateStatus();
}

void RunMonitor::onWarning(const sailor::RunWarningEvent& event, const QString& time) {
  if (event.rank) {
    appendLog(time, tr("rank %1: %2").arg(*event.rank).arg(QString::fromStdString(event.message)));
    plots_->markReport(*event.rank, time);
  } else {
    appendLog(time, tr("warning: %1").arg(QString::fromStdString(event.message)));
  }
}

void RunMonitor::onWorkersStarted(const sailor::WorkersStartedEvent& event, const QString& time) {
  if (generation_ >= 0 && event.generation > generation_) {
    // Workers joining a reconfigured world, launched before its reconfigured event: their pids
    // wait for that event, which lays out the new world's rows.
    auto& joining = joiners_[event.generation];
    for (const sailor::RunWorker& w : event.workers) joining[w.place.rank] = w;
    appendLog(time, tr("%n worker process(es) joining (generation %1)", "",
                       static_cast<int>(event.workers.size()))
                        .arg(event.generation));
    return;
  }
  if (event.generation > 0 && event.generation == generation_) {
    // After the reconfigured event: the listed workers' rows get their pids.
    plots_->setWorkerPids(event.workers, time);
    appendLog(time, tr("%n worker process(es) joining (generation %1)", "",
                       static_cast<int>(event.workers.size()))
                        .arg(event.generation));
    return;
  }
  generation_ = event.generation;
  plots_->setWorkers(event.workers, WorkerState::Starting, time);
  appendLog(time, tr("%n worker process(es) started", "", static_cast<int>(event.workers.size())));
  updateStatus();
}

void RunMonitor::onWorkersReady(const sailor::WorkersReadyEvent& event, const QString& time) {
  plots_->setDevices(event.devices, time);
  appendLog(time, tr("workers ready (%1) after %2 s")
                      .arg(QString::fromStdString(event.backend))
                      .arg(run_format::seconds(event.startup_seconds)));
  updateStatus();
}

void RunMonitor::onIteration(const sailor::IterationEvent& event, const QString& time) {
  prediction_->addIteration(event);
  last_iteration_ = event;
  plots_->addIteration(event, time);
  updateStatus();
}

void RunMonitor::onError(const sailor::RunErrorEvent& event, const QString& time) {
  const QString message = QString::fromStdString(event.message);
  QString text;
  if (event.rank) {
    text = tr("Rank %1 failed (stage %2, replica %3, tp rank %4): %5")
               .arg(*event.rank)
               .arg(event.stage.value_or(-1))
               .arg(event.replica.value_or(-1))
               .arg(event.tp_rank.value_or(-1))
               .arg(message);
    plots_->setWorkerState(*event.rank, WorkerState::Failed, message);
    plots_->markReport(*event.rank, time);
  } else {
    text = tr("The run failed: %1").arg(message);
  }
  QStringList tail;
  for (const std::string& l : event.stderr_tail) tail.append(QString::fromStdString(l));
  showBanner(text,
             tail.isEmpty() ? QString() : tr("Last lines of its stderr:\n%1").arg(tail.join('\n')));
  appendLog(time, tr("error: %1").arg(message));
  for (const QString& l : tail) appendLog(time, QStringLiteral("  | ") + l);
  updateStatus();
}

void RunMonitor::onFinished(const sailor::RunFinishedEvent& event, const QString& time) {
  finished_ = event;
  reconfigs_->hidePause();
  updateButtons();
  plots_->setLiveWorkersState(event.status == sailor::RunStatus::Finished ? WorkerState::Finished
                                                                          : WorkerState::Stopped);
  if (event.status == sailor::RunStatus::Failed && banner_->isHidden())
    showBanner(tr("The run failed: %1").arg(QString::fromStdString(event.error)), {});
  appendLog(time, tr("run %1 after %n iteration(s), %2 s", "", event.iterations_done)
                      .arg(runStatusText(event.status))
                      .arg(run_format::seconds(event.seconds)));
  updateStatus();
}

void RunMonitor::onJobState(const sailor::JobStateEvent& event, const QString& time) {
  job_launcher_ = QString::fromStdString(event.launcher);
  job_id_ = QString::fromStdString(event.job_id);
  job_state_ = QString::fromStdString(event.state);
  job_reason_ = QString::fromStdString(event.reason);
  if (job_states_seen_.isEmpty() || job_states_seen_.back() != job_state_)
    job_states_seen_ << job_state_;
  launch_->setJobText(jobText(),
                      event.run_dir.empty()
                          ? QString()
                          : tr("Run directory: %1").arg(QString::fromStdString(event.run_dir)));
  QString line = tr("%1 job %2: %3").arg(job_launcher_, job_id_, job_state_);
  if (!job_reason_.isEmpty()) line += QStringLiteral(" (%1)").arg(job_reason_);
  if (!event.run_dir.empty())
    line += tr(", run directory %1").arg(QString::fromStdString(event.run_dir));
  appendLog(time, line);
}

// ---------------------------------------------------------------------------------------------
// Elasticity: reconfigurations, pauses, checkpoints, resumes

void RunMonitor::dropIterationsFrom(int first) {
  plots_->dropIterationsFrom(first);
  if (last_iteration_ && last_iteration_->iteration >= first) last_iteration_.reset();
  prediction_->dropIterationsFrom(first);
}

void RunMonitor::onCheckpoint(const sailor::CheckpointEvent& event, const QString& time) {
  plots_->addCheckpointTick(event.iteration);
  QString line = tr("checkpoint of iteration %1: %n shard(s), %2 MB in %3 s (%4)", "", event.shards)
                     .arg(event.iteration)
                     .arg(QString::number(static_cast<double>(event.bytes) / 1e6, 'f', 1))
                     .arg(run_format::seconds(event.write_seconds))
                     .arg(QString::fromStdString(event.directory));
  if (!event.removed.empty()) {
    QStringList removed;
    for (int r : event.removed) removed << QString::number(r);
    line +=
        tr("; removed the checkpoints of iterations %1").arg(removed.join(QStringLiteral(", ")));
  }
  appendLog(time, line);
  plots_->replotIterationPlots();
}

void RunMonitor::onResumed(const sailor::ResumedEvent& event, const QString& time) {
  // The run goes on in the same record: what the stopped run showed stays, but the iterations
  // after the checkpoint are trained again.
  finished_.reset();
  banner_->hide();
  reconfigs_->hidePause();
  generation_ = -1;  // the restarted workers' world, whatever generation it counts from
  joiners_.clear();
  dropIterationsFrom(event.from_iteration);
  if (started_) started_->iterations = event.iterations;
  plots_->addIterationMarker(event.from_iteration,
                             tr("resumed from iteration %1").arg(event.from_iteration - 1),
                             QColor(0x2E7D32), Qt::DashLine, QStringLiteral("resumeMarker"));
  appendLog(time, tr("resumed at iteration %1 from %2 (%n stored iteration(s) discarded)", "",
                     event.iterations_discarded)
                      .arg(event.from_iteration)
                      .arg(QString::fromStdString(event.checkpoint)));
  plots_->replotIterationPlots();
  updateButtons();
  updateStatus();
}

void RunMonitor::onReconfigured(const sailor::ReconfiguredEvent& event, const QString& time) {
  const QString label = reconfigurationLabel(event);
  const QString phases = phasesText(event);
  const QString detail = QString::fromStdString(event.detail);
  const QString source = event.state_source == "checkpoint" ? tr("checkpoint") : tr("peers");

  // State restored from a checkpoint: the iterations since are trained again.
  if (event.iterations_lost > 0) dropIterationsFrom(event.from_iteration);
  reconfigs_->addReconfiguration(event);  // the row and the plots' marker; the pause ends
  updateButtons();

  // The new world's workers: their places from the new plan (the runtime's rank numbering), the
  // pids of those that joined when a workers_started event of this generation listed them.
  std::vector<sailor::RunWorker> world;
  const auto joining = joiners_.find(event.generation);
  for (const sailor::RankPlacement& place : sailor::placeRanks(event.new_plan)) {
    sailor::RunWorker w;
    w.place = place;
    if (joining != joiners_.end()) {
      const auto it = joining->second.find(place.rank);
      if (it != joining->second.end()) w.pid = it->second.pid;
    }
    world.push_back(w);
  }
  generation_ = event.generation;
  plots_->setWorkers(world, WorkerState::Ready, time);
  plots_->ensureStageGraphs(static_cast<int>(event.new_plan.stages.size()));
  // The memory bars are per rank: the new world's ranks start afresh.
  plots_->restartMemory(tr("since iteration %1: %2").arg(event.from_iteration).arg(label));

  appendLog(time, tr("reconfigured at iteration %1: %2: %3; state from %4, %n iteration(s) lost",
                     "", event.iterations_lost)
                      .arg(event.from_iteration)
                      .arg(label, detail, source));
  appendLog(time, QStringLiteral("  ") + phases);
  appendLog(time, QStringLiteral("  ") + tr("plan before: %1").arg(planText(event.old_plan)));
  appendLog(time, QStringLiteral("  ") + tr("plan after: %1").arg(planText(event.new_plan)));
  plots_->replotAll();
  updateStatus();
}

void RunMonitor::onPaused(const sailor::PausedEvent& event, const QString& time) {
  const QString reason = QString::fromStdString(event.reason);
  reconfigs_->showPause(event);
  plots_->setLiveWorkersState(WorkerState::Paused, reason);
  appendLog(time, tr("paused before iteration %1 (%2): waiting for resources: %3")
                      .arg(event.iteration)
                      .arg(causeText(event.cause), reason));
  updateStatus();
}

void RunMonitor::showFailure(const QString& message) {
  showBanner(message, {});
  appendLog(QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs), message);
}

// ---------------------------------------------------------------------------------------------
// Stored runs

void RunMonitor::setPastRuns(const std::vector<sailor::RunListEntry>& runs) {
  past_->setPastRuns(runs);
}

void RunMonitor::showRun(const sailor::RunRecord& run,
                         const std::vector<sailor::IterationRecord>& iterations,
                         const std::vector<sailor::EventRecord>& events) {
  clearRun();
  stored_ = true;
  run_id_ = run.id;
  past_->setShownRun(run.id);
  replayStored(run, iterations, events);
  if (!finished_ && run.status != sailor::RunStatus::Running) {
    sailor::RunFinishedEvent f;
    f.status = run.status;
    f.iterations_done = run.iterations_done;
    f.seconds = kNaN;
    f.error = run.error;
    onFinished(f, QString::fromStdString(run.finished_at));
  }
  if (job_id_.isEmpty() && !run.job_id.empty()) {
    // A cluster run whose job_state events were not stored: its job id from the record.
    job_launcher_ = QString::fromStdString(run.launcher);
    job_id_ = QString::fromStdString(run.job_id);
    job_state_ = tr("state unknown");
    launch_->setJobText(jobText());
  }
  if (!started_) {
    // No run_started event: the header from the record.
    sailor::RunStartedEvent s;
    s.name = run.name;
    s.world_size = run.world_size;
    s.iterations = run.iterations_planned;
    started_ = s;
    prediction_->startRun(run.id, s);
  }
  updateButtons();
  updateStatus();
}

// The stored events in order (iteration events decoded from their payloads), then the iteration
// rows that have no event.
void RunMonitor::replayStored(const sailor::RunRecord& run,
                              const std::vector<sailor::IterationRecord>& iterations,
                              const std::vector<sailor::EventRecord>& events) {
  std::set<int> seen;  // iterations shown from their events
  for (const sailor::EventRecord& rec : events) {
    try {
      const sailor::RunEvent e = sailor::runEventFromJson(rec.payload);
      if (const auto* it = e.as<sailor::IterationEvent>()) seen.insert(it->iteration);
      applyEvent(e);
      stored_ = true;  // run_started clears the run shown
      run_id_ = run.id;
      past_->setShownRun(run.id);
    } catch (const std::exception& err) {
      appendLog(QString::fromStdString(rec.time), tr("stored event %1 (%2) could not be read: %3")
                                                      .arg(rec.seq)
                                                      .arg(QString::fromStdString(rec.kind))
                                                      .arg(QString::fromUtf8(err.what())));
    }
  }
  for (const sailor::IterationRecord& rec : iterations) {
    if (seen.count(rec.iteration)) continue;
    try {
      onIteration(sailor::iterationFromRecord(rec), {});
    } catch (const std::exception& err) {
      appendLog({}, tr("stored iteration %1 could not be read: %2")
                        .arg(rec.iteration)
                        .arg(QString::fromUtf8(err.what())));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Status, log and banner

void RunMonitor::appendLog(const QString& time, const QString& text) {
  const QString when = run_format::clockTime(time);
  log_->appendPlainText(when.isEmpty() ? text : when + QStringLiteral("  ") + text);
}

void RunMonitor::showBanner(const QString& text, const QString& details) {
  banner_->setText(text);
  banner_->setToolTip(details);
  banner_->show();
}

void RunMonitor::updateStatus() {
  if (!started_ && run_id_ == 0) {
    status_->setText(tr("No run yet: choose a plan and press Start, or open a past run."));
    return;
  }
  QStringList parts;
  const QString name = started_ ? QString::fromStdString(started_->name) : QString();
  parts << (stored_ ? tr("Stored run %1 (%2)") : tr("Run %1 (%2)")).arg(run_id_).arg(name);
  const int planned = started_ ? started_->iterations : 0;
  if (last_iteration_) {
    parts << tr("iteration %1 of %2").arg(last_iteration_->iteration + 1).arg(planned);
    parts << tr("loss %1").arg(QString::number(last_iteration_->loss, 'f', 3));
    parts << tr("%1 s per iteration").arg(run_format::seconds(last_iteration_->iteration_seconds));
  } else if (plots_->workerCount() > 0) {
    parts << tr("%n worker(s) starting", "", plots_->workerCount());
  }
  if (reconfigs_->paused()) parts << tr("paused: waiting for resources");
  if (finished_) parts << runStatusText(finished_->status);
  status_->setText(parts.join(QStringLiteral(" \u00b7 ")));
}

}  // namespace sailor::studio
