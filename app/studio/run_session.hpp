// The studio's run session: the run the Run tab starts, follows, resizes and re-attaches to,
// held as its typed options (RunClientOptions: iterations, data, store, launcher and cluster,
// elastic, trace, ...). What the run is (elastic, local, resizable, re-attachable) is answered
// from those options and from the stored run's record, never from a command line; the one
// command line is built by runArguments(). Every child process goes through the session's one
// RunClient: the run (`sailor run`), the take-over of a stored cluster run (`sailor runs attach`)
// and the resizes (`sailor runs resize`). Qt Core only: the main window wires the Run tab's
// signals to it, and tests/app drives it without a display.
//
// Contract: a run the client starts (through the session, or on the client directly) is the
// session's run; started() follows its run_started event, and finished() its end, once each
// (the client's finished). resizableChanged() says whether resize() may be asked now: true after
// run_started of an elastic run (local or on Slurm), false when it ends.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <QObject>
#include <QString>

#include "run_client.hpp"
#include "sailor/runs/run_store.hpp"
#include "sailor/scenario/availability.hpp"
#include "sailor/scenario/scenario.hpp"

namespace sailor::studio {

class RunSession : public QObject {
  Q_OBJECT

 public:
  explicit RunSession(QObject* parent = nullptr);

  RunSession(const RunSession&) = delete;
  RunSession& operator=(const RunSession&) = delete;

  // The client every process of the session goes through (owned).
  RunClient* client() const { return client_; }

  // Starts `sailor run` on `plan` with `options` (RunClient::start); the scenario's pools are
  // what a resize offers beyond the plan's places. False, emitting nothing, while a run goes.
  bool start(const sailor::Plan& plan, const sailor::Scenario& scenario, const sailor::Job& job,
             const RunClientOptions& options);
  // The same on files the user has (RunClient::startFiles); no pools are known.
  bool startFiles(const QString& plan_file, const QString& scenario_file, const QString& job_file,
                  const RunClientOptions& options);
  // Takes over stored cluster run `run_id` (RunClient::attach); it cannot be resized.
  bool attach(std::int64_t run_id, const RunClientOptions& options);
  void stop();  // RunClient::stop

  // Asks run `run_id` for `gpus` (RunClient::resize, with the store the run is recorded in);
  // the answer comes as resizeFinished. False, emitting nothing, while another resize is under
  // way or when the run going is not resizable.
  bool resize(std::int64_t run_id, const sailor::Availability& gpus);

  bool isRunning() const { return client_->isRunning(); }
  // The options of the run going (or of the last one).
  const RunClientOptions& options() const { return client_->options(); }
  bool isAttach() const { return client_->isAttach(); }
  bool isElastic() const { return !isAttach() && options().isElastic(); }
  bool isLocal() const { return !isAttach() && options().isLocal(); }
  // Resize may be asked: an elastic run going (local or on Slurm), past its run_started.
  bool isResizable() const { return resizable_; }
  // The pools of the scenario the run going was started on (empty when not known).
  const std::vector<sailor::Pool>& pools() const { return pools_; }
  // The store the run going is recorded in: its run_started's, else its options'.
  QString storePath() const { return store_path_; }
  std::int64_t runId() const { return client_->runId(); }
  bool isResizing() const { return client_->isResizing(); }
  QStringList lastResizeCommand() const { return client_->lastResizeCommand(); }

  // Why stored run `r` can be re-attached to: a cluster run (a job id and its run directory)
  // still recorded running whose controller is gone (sailor::controllerGone's words); none when
  // it cannot.
  static std::optional<std::string> reattachReason(const sailor::RunRecord& r);

 signals:
  // The run going printed run_started; options(), storePath() and isResizable() tell it.
  void started(qint64 run_id);
  void resizableChanged(bool resizable);
  void resizeFinished(int exit_code, const QString& message);
  void finished(int exit_code, const sailor::studio::RunOutcome& outcome);

 private:
  void onStarted(qint64 run_id, const sailor::RunStartedEvent& event);
  void onFinished(int exit_code, const RunOutcome& outcome);
  void setResizable(bool resizable);

  RunClient* client_ = nullptr;
  std::vector<sailor::Pool> pools_;
  QString store_path_;
  bool resizable_ = false;
};

}  // namespace sailor::studio
