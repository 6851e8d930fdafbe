// The studio's run client: starts `sailor run` on a plan as a child process, reads its JSON-lines
// event stream (docs/runtime.md "Events") and re-emits each event as a typed signal; stops it the
// way a user's Ctrl-C would. Qt Core only (no widgets): the run monitor is fed from these
// signals by the studio, and never sees the process.
//
// Why a child process: the GUI never links libtorch, and a crashed worker (or controller) cannot
// take the studio down (docs/studio.md "Layers").
//
// Contract, per start() that returned true:
// - exactly one finished(exit code, outcome), always from the event loop, never from inside
//   start() or stop(); that includes a binary that cannot be started and files that cannot be
//   written (exit code -1, outcome.message says why);
// - before it, the events in the order sailor printed them: eventReceived(e) then the typed
//   signal of its kind (runStarted, warning, workersStarted, workersReady, iteration,
//   errorReported, jobState; the finished event is carried by the outcome);
// - a stdout line that does not decode is skipped and reported by protocolError(message naming
//   the field); the run goes on.
// stop() sends SIGINT to the controller (it stops its workers with SIGTERM, then SIGKILL after
// 2 s, records the run as stopped and exits 130); if it is still running after
// RunClientOptions::stop_grace_ms, it is killed (SIGKILL; its workers die with it through
// PR_SET_PDEATHSIG).
// resize() tells an elastic run's controller the GPUs it has now (`sailor runs resize`) through
// a child process of its own, beside the run's; its answer comes as resizeFinished.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include <QByteArray>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <nlohmann/json.hpp>

#include "sailor/model/job.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/runs/run_events.hpp"
#include "sailor/scenario/availability.hpp"
#include "sailor/scenario/scenario.hpp"

class QProcess;
class QTemporaryDir;

namespace sailor::studio {

// Where a run's processes go (sailor run --launcher).
enum class RunLauncher {
  Local,  // one process per GPU on this machine
  Slurm,  // one Slurm job for the whole plan, on the cluster RunClientOptions::cluster_file names
};

// A run's options, typed: runArguments() makes them `sailor run`'s command line, the one place
// that does. What a run is (elastic, local) is read from these, never from its command line.
struct RunClientOptions {
  int iterations = 20;                         // --iterations
  QString data = QStringLiteral("synthetic");  // --data: "synthetic", "text" or a text file
  QString store_path;    // --store; empty: the runtime's default ($SAILOR_RUN_STORE, else
                         // ~/.local/share/sailor-studio/runs.sqlite)
  QString name;          // --name; empty: the runtime's default (the plan file's name)
  int global_batch = 0;  // --global-batch, sequences; 0: the job's
  RunLauncher launcher = RunLauncher::Local;  // --launcher slurm for RunLauncher::Slurm
  QString cluster_file;                       // --cluster: the cluster description of a Slurm run
  QString partition;          // --partition of a Slurm run; empty: the cluster description's
  bool elastic = false;       // --elastic: the run takes resizes (`sailor runs resize`)
  QString trace;              // --trace: an availability trace the run replays (elastic too)
  QStringList extra_args;     // appended as given, e.g. {"--hidden", "64", "--seq-len", "16"}
  QString sailor_binary;      // empty: RunClient::defaultSailorBinary()
  int stop_grace_ms = 10000;  // after stop()'s SIGINT, SIGKILL if still running this long

  bool isLocal() const { return launcher == RunLauncher::Local; }
  // Reconfigures while it runs: started with --elastic or --trace.
  bool isElastic() const { return elastic || !trace.isEmpty(); }
};

// `sailor run`'s arguments (without the program) for the given files and `options`: "run",
// --plan, --scenario, --job, --iterations, --data, then the options set, then extra_args.
QStringList runArguments(const QString& plan_file, const QString& scenario_file,
                         const QString& job_file, const RunClientOptions& options);

// How a run ended, as finished() reports it.
struct RunOutcome {
  // sailor's exit status: 0 finished, 2 bad input (nothing started), 4 the run failed, 130
  // stopped; -1 when it could not be started or ended by a signal.
  int exit_code = -1;
  std::optional<sailor::RunFinishedEvent> finished;  // its finished event, when it printed one
  std::int64_t run_id = 0;      // from run_started; 0 when the run never started
  bool stop_requested = false;  // stop() was called
  QString message;              // empty when the run finished; otherwise what went wrong, in words
  QString stderr_tail;          // the last lines sailor wrote on stderr
  int rejected_lines = 0;       // stdout lines that did not decode
};

class RunClient : public QObject {
  Q_OBJECT

 public:
  static constexpr int kStderrTailLines = 40;

  explicit RunClient(QObject* parent = nullptr);
  // A run still going is stopped and waited for (SIGINT, then SIGKILL after the grace period):
  // blocks up to stop_grace_ms plus the kill. Emits nothing.
  ~RunClient() override;

  RunClient(const RunClient&) = delete;
  RunClient& operator=(const RunClient&) = delete;

  // $SAILOR_BIN when set, else `sailor` next to the running executable
  // (QCoreApplication::applicationDirPath(): the studio is installed beside it).
  static QString defaultSailorBinary();

  // Writes plan.json, scenario.json and job.json into a private temporary directory (removed
  // when the run has ended) and starts `sailor run` on them. False, emitting nothing, only when a
  // run is already going; every other failure comes as finished(-1, ...).
  bool start(const nlohmann::json& plan, const nlohmann::json& scenario, const nlohmann::json& job,
             const RunClientOptions& options = {});
  bool start(const sailor::Plan& plan, const sailor::Scenario& scenario, const sailor::Job& job,
             const RunClientOptions& options = {});
  // Starts `sailor run` on files the user already has (sailor checks and reports them).
  bool startFiles(const QString& plan_file, const QString& scenario_file, const QString& job_file,
                  const RunClientOptions& options = {});

  // Takes over a cluster run whose controller is gone, as `sailor runs attach ID` does (docs/
  // launch.md "Slurm runs"): the events from there on (job_state ATTACHED, the iterations the
  // store does not have yet, the job's states, finished) come as for start(); there is no
  // run_started, and runId() is `run_id` from the start. Of `options` only store_path,
  // sailor_binary and stop_grace_ms apply. stop() interrupts the attached controller, which
  // cancels the job (scancel) and records the run stopped. False, emitting nothing, only when a
  // run is already going.
  bool attach(std::int64_t run_id, const RunClientOptions& options = {});

  // Asks the run to stop (see the file comment). No-op when nothing runs.
  void stop();

  // Tells the controller of run `run_id` that the job has `gpus` now: `sailor runs resize ID
  // --gpus TYPE@ZONE=N ... [--store store_path]` as a child process of its own (the program of
  // the last start, else defaultSailorBinary()), beside the run's. Its answer comes as exactly
  // one resizeFinished. False, emitting nothing, while a resize is under way.
  bool resize(std::int64_t run_id, const sailor::Availability& gpus, const QString& store_path);
  bool isResizing() const { return resize_process_ != nullptr; }
  // The last resize's program and arguments; empty before any.
  QStringList lastResizeCommand() const { return last_resize_command_; }

  bool isRunning() const;
  qint64 processId() const;                       // the controller's pid while running, else 0
  std::int64_t runId() const { return run_id_; }  // from run_started; 0 before it
  QString program() const { return program_; }    // of the last start
  QStringList arguments() const { return arguments_; }  // of the last start
  // The options of the last start or attach, as given.
  const RunClientOptions& options() const { return options_; }
  bool isAttach() const { return attaching_; }  // the last start was attach()
  QString stderrTail() const;

 signals:
  void eventReceived(const sailor::RunEvent& event);
  void runStarted(qint64 run_id, const sailor::RunStartedEvent& event);
  void warning(const sailor::RunWarningEvent& event);
  void workersStarted(const sailor::WorkersStartedEvent& event);
  void workersReady(const sailor::WorkersReadyEvent& event);
  void iteration(const sailor::IterationEvent& event);
  void errorReported(const sailor::RunErrorEvent& event);
  void jobState(const sailor::JobStateEvent& event);  // a cluster run's scheduler state
  void protocolError(const QString& message);
  void finished(int exit_code, const sailor::studio::RunOutcome& outcome);
  // A resize() ended: its exit status (-1: it could not be started or was killed by a signal)
  // and its one line (what the run answered, or why not).
  void resizeFinished(int exit_code, const QString& message);

 private:
  bool launch(const QString& plan, const QString& scenario, const QString& job,
              const RunClientOptions& options);
  // Starts `program_ arguments_` and follows it (launch and attach).
  bool startProcess();
  void failLater(const QString& message);  // finished(-1, message) from the event loop
  void readStdout();
  void readStderr();
  void handleLine(const QByteArray& line);
  void onProcessFinished(int exit_code, bool crashed);
  QString describeFailure(int exit_code, bool crashed) const;
  QString withoutTempDir(QString text) const;

  void endResize(QProcess* process, int exit_code, const QString& message);

  QProcess* process_ = nullptr;         // owned (child QObject), one per start
  QProcess* resize_process_ = nullptr;  // the `sailor runs resize` going, if any
  QStringList last_resize_command_;
  std::unique_ptr<QTemporaryDir> files_;
  QTimer kill_timer_;
  RunClientOptions options_;
  QString program_;
  QStringList arguments_;
  QByteArray stdout_buf_, stderr_buf_;
  QStringList stderr_tail_;
  std::int64_t run_id_ = 0;
  std::optional<sailor::RunFinishedEvent> finished_event_;
  std::optional<sailor::RunErrorEvent> last_error_;
  bool stop_requested_ = false;
  bool attaching_ = false;  // the process is `sailor runs attach`
  bool ended_ = true;       // finished() was emitted (or nothing was started)
  int rejected_lines_ = 0;
};

}  // namespace sailor::studio

Q_DECLARE_METATYPE(sailor::RunEvent)
Q_DECLARE_METATYPE(sailor::RunStartedEvent)
Q_DECLARE_METATYPE(sailor::RunWarningEvent)
Q_DECLARE_METATYPE(sailor::WorkersStartedEvent)
Q_DECLARE_METATYPE(sailor::WorkersReadyEvent)
Q_DECLARE_METATYPE(sailor::IterationEvent)
Q_DECLARE_METATYPE(sailor::RunErrorEvent)
Q_DECLARE_METATYPE(sailor::JobStateEvent)
Q_DECLARE_METATYPE(sailor::studio::RunOutcome)
