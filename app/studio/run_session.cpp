#include "run_session.hpp"

namespace sailor::studio {

RunSession::RunSession(QObject* parent) : QObject(parent), client_(new RunClient(this)) {
  connect(client_, &RunClient::runStarted, this, &RunSession::onStarted);
  connect(client_, &RunClient::finished, this, &RunSession::onFinished);
  connect(client_, &RunClient::resizeFinished, this, &RunSession::resizeFinished);
}

bool RunSession::start(const sailor::Plan& plan, const sailor::Scenario& scenario,
                       const sailor::Job& job, const RunClientOptions& options) {
  if (client_->isRunning()) return false;
  pools_ = scenario.pools;
  store_path_ = options.store_path;
  return client_->start(plan, scenario, job, options);
}

bool RunSession::startFiles(const QString& plan_file, const QString& scenario_file,
                            const QString& job_file, const RunClientOptions& options) {
  if (client_->isRunning()) return false;
  pools_.clear();
  store_path_ = options.store_path;
  return client_->startFiles(plan_file, scenario_file, job_file, options);
}

bool RunSession::attach(std::int64_t run_id, const RunClientOptions& options) {
  if (client_->isRunning()) return false;
  pools_.clear();
  store_path_ = options.store_path;
  return client_->attach(run_id, options);
}

void RunSession::stop() {
  client_->stop();
}

bool RunSession::resize(std::int64_t run_id, const sailor::Availability& gpus) {
  if (!resizable_) return false;
  return client_->resize(run_id, gpus, store_path_);
}

std::optional<std::string> RunSession::reattachReason(const sailor::RunRecord& r) {
  if (r.status != sailor::RunStatus::Running || r.job_id.empty() || r.run_dir.empty())
    return std::nullopt;
  return sailor::controllerGone(r.controller);
}

void RunSession::onStarted(qint64 run_id, const sailor::RunStartedEvent& event) {
  if (!event.store.empty()) store_path_ = QString::fromStdString(event.store);
  else store_path_ = options().store_path;
  setResizable(isElastic());
  emit started(run_id);
}

void RunSession::onFinished(int exit_code, const RunOutcome& outcome) {
  setResizable(false);
  pools_.clear();
  emit finished(exit_code, outcome);
}

void RunSession::setResizable(bool resizable) {
  if (resizable_ == resizable) return;
  resizable_ = resizable;
  emit resizableChanged(resizable);
}

}  // namespace sailor::studio
