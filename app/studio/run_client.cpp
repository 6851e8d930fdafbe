#include "run_client.hpp"

#include <signal.h>  // NOLINT(modernize-deprecated-headers): kill() is POSIX, not <csignal>
#include <sys/types.h>

#include <exception>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>

#include "sailor/core/error.hpp"

namespace sailor::studio {

namespace {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

bool writeText(const QString& path, const std::string& text) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  const QByteArray bytes = QByteArray::fromStdString(text);
  return f.write(bytes) == bytes.size() && f.flush();
}

// Splits complete lines off the front of `buf` (without their "\n" or "\r\n"); what follows
// the last newline stays for the next read.
QList<QByteArray> takeLines(QByteArray& buf) {
  QList<QByteArray> lines;
  qsizetype start = 0;
  for (qsizetype nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n', start)) {
    QByteArray line = buf.mid(start, nl - start);
    if (line.endsWith('\r')) line.chop(1);
    lines.append(std::move(line));
    start = nl + 1;
  }
  buf.remove(0, start);
  return lines;
}

}  // namespace

RunClient::RunClient(QObject* parent) : QObject(parent) {
  qRegisterMetaType<sailor::RunEvent>("sailor::RunEvent");
  qRegisterMetaType<sailor::RunStartedEvent>("sailor::RunStartedEvent");
  qRegisterMetaType<sailor::RunWarningEvent>("sailor::RunWarningEvent");
  qRegisterMetaType<sailor::WorkersStartedEvent>("sailor::WorkersStartedEvent");
  qRegisterMetaType<sailor::WorkersReadyEvent>("sailor::WorkersReadyEvent");
  qRegisterMetaType<sailor::IterationEvent>("sailor::IterationEvent");
  qRegisterMetaType<sailor::RunErrorEvent>("sailor::RunErrorEvent");
  qRegisterMetaType<sailor::studio::RunOutcome>("sailor::studio::RunOutcome");
  kill_timer_.setSingleShot(true);
  connect(&kill_timer_, &QTimer::timeout, this, [this] {
    if (process_ && process_->state() != QProcess::NotRunning)
      process_->kill();  // SIGKILL; the workers follow through PR_SET_PDEATHSIG
  });
}

RunClient::~RunClient() {
  if (!process_) return;
  process_->disconnect(this);
  if (process_->state() != QProcess::NotRunning) {
    if (process_->processId() > 0) ::kill(static_cast<pid_t>(process_->processId()), SIGINT);
    if (!process_->waitForFinished(options_.stop_grace_ms)) {
      process_->kill();
      process_->waitForFinished(5000);
    }
  }
}

QString RunClient::defaultSailorBinary() {
  const QByteArray env = qgetenv("SAILOR_BIN");
  if (!env.isEmpty()) return QString::fromLocal8Bit(env);
  return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("sailor"));
}

bool RunClient::start(const nlohmann::json& plan, const nlohmann::json& scenario,
                      const nlohmann::json& job, const RunClientOptions& options) {
  if (isRunning()) return false;
  files_ = std::make_unique<QTemporaryDir>(QDir::tempPath() +
                                           QStringLiteral("/sailor-studio-run-XXXXXX"));
  if (!files_->isValid()) {
    const QString why = files_->errorString();
    files_.reset();
    options_ = options;
    failLater(tr("Cannot create a temporary directory for the run's files: %1").arg(why));
    return true;
  }
  const QString plan_file = files_->filePath(QStringLiteral("plan.json"));
  const QString scenario_file = files_->filePath(QStringLiteral("scenario.json"));
  const QString job_file = files_->filePath(QStringLiteral("job.json"));
  for (const auto& [path, value] :
       {std::pair{plan_file, &plan}, std::pair{scenario_file, &scenario},
        std::pair{job_file, &job}}) {
    if (!writeText(path, value->dump(2) + "\n")) {
      files_.reset();
      options_ = options;
      failLater(tr("Cannot write %1 for the run.").arg(QFileInfo(path).fileName()));
      return true;
    }
  }
  return launch(plan_file, scenario_file, job_file, options);
}

bool RunClient::start(const sailor::Plan& plan, const sailor::Scenario& scenario,
                      const sailor::Job& job, const RunClientOptions& options) {
  return start(plan.toJson(), scenario.toJson(), job.toJson(), options);
}

bool RunClient::startFiles(const QString& plan_file, const QString& scenario_file,
                           const QString& job_file, const RunClientOptions& options) {
  if (isRunning()) return false;
  files_.reset();
  return launch(plan_file, scenario_file, job_file, options);
}

QStringList runArguments(const QString& plan_file, const QString& scenario_file,
                         const QString& job_file, const RunClientOptions& options) {
  QStringList args{QStringLiteral("run"),
                   QStringLiteral("--plan"),
                   plan_file,
                   QStringLiteral("--scenario"),
                   scenario_file,
                   QStringLiteral("--job"),
                   job_file,
                   QStringLiteral("--iterations"),
                   QString::number(options.iterations),
                   QStringLiteral("--data"),
                   options.data};
  if (!options.store_path.isEmpty()) args << QStringLiteral("--store") << options.store_path;
  if (!options.name.isEmpty()) args << QStringLiteral("--name") << options.name;
  if (options.global_batch > 0)
    args << QStringLiteral("--global-batch") << QString::number(options.global_batch);
  if (options.launcher == RunLauncher::Slurm) {
    args << QStringLiteral("--launcher") << QStringLiteral("slurm");
    if (!options.cluster_file.isEmpty())
      args << QStringLiteral("--cluster") << options.cluster_file;
    if (!options.partition.isEmpty()) args << QStringLiteral("--partition") << options.partition;
  }
  if (options.elastic) args << QStringLiteral("--elastic");
  if (!options.trace.isEmpty()) args << QStringLiteral("--trace") << options.trace;
  return args << options.extra_args;
}

bool RunClient::launch(const QString& plan, const QString& scenario, const QString& job,
                       const RunClientOptions& options) {
  options_ = options;
  program_ = options.sailor_binary.isEmpty() ? defaultSailorBinary() : options.sailor_binary;
  arguments_ = runArguments(plan, scenario, job, options);
  attaching_ = false;
  run_id_ = 0;
  return startProcess();
}

bool RunClient::attach(std::int64_t run_id, const RunClientOptions& options) {
  if (isRunning()) return false;
  files_.reset();
  options_ = options;
  program_ = options.sailor_binary.isEmpty() ? defaultSailorBinary() : options.sailor_binary;
  arguments_ = {QStringLiteral("runs"), QStringLiteral("attach"), QString::number(run_id)};
  if (!options.store_path.isEmpty()) arguments_ << QStringLiteral("--store") << options.store_path;
  attaching_ = true;
  run_id_ = run_id;  // no run_started comes: the run is the one attached to
  return startProcess();
}

bool RunClient::startProcess() {
  stdout_buf_.clear();
  stderr_buf_.clear();
  stderr_tail_.clear();
  finished_event_.reset();
  last_error_.reset();
  stop_requested_ = false;
  rejected_lines_ = 0;

  const QFileInfo binary(program_);
  if (!binary.isFile() || !binary.isExecutable()) {
    failLater(tr("Cannot start the runtime: %1 is not an executable file (install sailor next "
                 "to the studio, or point $SAILOR_BIN at it).")
                  .arg(program_));
    return true;
  }

  ended_ = false;
  process_ = new QProcess(this);
  connect(process_, &QProcess::readyReadStandardOutput, this, &RunClient::readStdout);
  connect(process_, &QProcess::readyReadStandardError, this, &RunClient::readStderr);
  connect(process_, &QProcess::started, this, [this] {
    // stop() before the process existed: deliver the interrupt now.
    if (stop_requested_ && process_->processId() > 0)
      ::kill(static_cast<pid_t>(process_->processId()), SIGINT);
  });
  connect(process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
    onProcessFinished(code, status == QProcess::CrashExit);
  });
  connect(process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
    // Only a failed start ends without finished(); crashes and the rest are followed by it.
    if (error != QProcess::FailedToStart || ended_) return;
    const QString why = process_->errorString();
    process_->deleteLater();
    process_ = nullptr;
    files_.reset();
    RunOutcome o;
    o.message = tr("Cannot start the runtime %1: %2").arg(program_, why);
    ended_ = true;
    emit finished(-1, o);
  });
  process_->start(program_, arguments_, QIODevice::ReadOnly);
  return true;
}

void RunClient::failLater(const QString& message) {
  ended_ = false;
  QTimer::singleShot(0, this, [this, message] {
    RunOutcome o;
    o.message = message;
    ended_ = true;
    emit finished(-1, o);
  });
}

void RunClient::stop() {
  if (!process_ || process_->state() == QProcess::NotRunning || ended_) return;
  stop_requested_ = true;
  // QProcess::terminate() would send SIGTERM, which the controller treats like SIGINT; SIGINT
  // is what a user's Ctrl-C sends, and what docs/runtime.md documents as "interrupted".
  if (process_->processId() > 0) ::kill(static_cast<pid_t>(process_->processId()), SIGINT);
  kill_timer_.start(options_.stop_grace_ms);
}

bool RunClient::resize(std::int64_t run_id, const sailor::Availability& gpus,
                       const QString& store_path) {
  if (resize_process_) return false;
  QStringList args{QStringLiteral("runs"), QStringLiteral("resize"), QString::number(run_id)};
  for (const auto& [site, count] : gpus)
    args << QStringLiteral("--gpus")
         << QStringLiteral("%1@%2=%3")
                .arg(QString::fromStdString(site.first), QString::fromStdString(site.second))
                .arg(count);
  if (!store_path.isEmpty()) args << QStringLiteral("--store") << store_path;
  const QString program = program_.isEmpty() ? defaultSailorBinary() : program_;
  last_resize_command_ = QStringList{program} + args;
  resize_process_ = new QProcess(this);
  QProcess* p = resize_process_;
  connect(p, &QProcess::finished, this, [this, p](int code, QProcess::ExitStatus status) {
    // sailor answers with one line: on stdout when the run takes the resize, on stderr why not.
    auto last_line = [](const QByteArray& bytes) {
      const QStringList lines =
          QString::fromUtf8(bytes).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
      return lines.isEmpty() ? QString() : lines.back().trimmed();
    };
    const QString out = last_line(p->readAllStandardOutput());
    const QString err = last_line(p->readAllStandardError());
    if (status == QProcess::CrashExit)
      endResize(p, -1, tr("sailor runs resize ended abnormally (killed by a signal)."));
    else if (code == 0) endResize(p, 0, out.isEmpty() ? tr("sailor runs resize: done") : out);
    else
      endResize(p, code,
                err.isEmpty() ? tr("sailor runs resize exited with code %1.").arg(code) : err);
  });
  connect(p, &QProcess::errorOccurred, this, [this, p, program](QProcess::ProcessError error) {
    if (error == QProcess::FailedToStart)
      endResize(p, -1, tr("Cannot start %1: %2").arg(program, p->errorString()));
  });
  p->start(program, args, QIODevice::ReadOnly);
  return true;
}

// Reports the answer once, whichever of finished and a failed start comes.
void RunClient::endResize(QProcess* process, int exit_code, const QString& message) {
  if (resize_process_ != process) return;
  resize_process_ = nullptr;
  process->deleteLater();
  emit resizeFinished(exit_code, message);
}

bool RunClient::isRunning() const {
  return !ended_;
}

qint64 RunClient::processId() const {
  return process_ && process_->state() != QProcess::NotRunning ? process_->processId() : 0;
}

QString RunClient::stderrTail() const {
  return stderr_tail_.join(QLatin1Char('\n'));
}

void RunClient::readStdout() {
  if (!process_) return;
  stdout_buf_.append(process_->readAllStandardOutput());
  for (const QByteArray& line : takeLines(stdout_buf_)) handleLine(line);
}

void RunClient::readStderr() {
  if (!process_) return;
  stderr_buf_.append(process_->readAllStandardError());
  for (const QByteArray& line : takeLines(stderr_buf_)) {
    stderr_tail_.append(QString::fromUtf8(line));
    while (stderr_tail_.size() > kStderrTailLines) stderr_tail_.removeFirst();
  }
}

void RunClient::handleLine(const QByteArray& line) {
  if (line.trimmed().isEmpty()) return;
  sailor::RunEvent event;
  try {
    event = sailor::parseRunEvent(std::string_view(line.constData(), line.size()));
  } catch (const std::exception& e) {
    ++rejected_lines_;
    emit protocolError(
        tr("Unreadable event from sailor run (line skipped): %1").arg(QString::fromUtf8(e.what())));
    return;
  }
  emit eventReceived(event);
  std::visit(Overloaded{
                 [&](const sailor::RunStartedEvent& e) {
                   run_id_ = event.run_id;
                   emit runStarted(static_cast<qint64>(event.run_id), e);
                 },
                 [&](const sailor::RunWarningEvent& e) { emit warning(e); },
                 [&](const sailor::WorkersStartedEvent& e) { emit workersStarted(e); },
                 [&](const sailor::WorkersReadyEvent& e) { emit workersReady(e); },
                 [&](const sailor::IterationEvent& e) { emit iteration(e); },
                 [&](const sailor::RunErrorEvent& e) {
                   last_error_ = e;
                   emit errorReported(e);
                 },
                 [&](const sailor::RunFinishedEvent& e) { finished_event_ = e; },
                 [&](const sailor::JobStateEvent& e) { emit jobState(e); },
                 // Checkpoints, resumes, reconfigurations and pauses reach the monitor through
                 // eventReceived (RunMonitor::applyEvent) only.
                 [&](const sailor::CheckpointEvent&) {},
                 [&](const sailor::ResumedEvent&) {},
                 [&](const sailor::ReconfiguredEvent&) {},
                 [&](const sailor::PausedEvent&) {},
             },
             event.body);
}

void RunClient::onProcessFinished(int exit_code, bool crashed) {
  if (ended_ || !process_) return;
  kill_timer_.stop();
  // What it wrote last, including a final line without its newline.
  readStdout();
  if (!stdout_buf_.isEmpty()) {
    const QByteArray rest = std::exchange(stdout_buf_, {});
    handleLine(rest);
  }
  readStderr();
  if (!stderr_buf_.isEmpty())
    stderr_tail_.append(QString::fromUtf8(std::exchange(stderr_buf_, {})));

  RunOutcome o;
  o.exit_code = crashed ? -1 : exit_code;
  o.finished = finished_event_;
  o.run_id = run_id_;
  o.stop_requested = stop_requested_;
  o.stderr_tail = withoutTempDir(stderrTail());
  o.rejected_lines = rejected_lines_;
  o.message = describeFailure(o.exit_code, crashed);

  process_->deleteLater();
  process_ = nullptr;
  files_.reset();
  ended_ = true;
  emit finished(o.exit_code, o);
}

QString RunClient::describeFailure(int exit_code, bool crashed) const {
  // The last non-empty stderr line without sailor's "sailor run: " prefix: its error message.
  QString last;
  for (auto it = stderr_tail_.crbegin(); it != stderr_tail_.crend() && last.isEmpty(); ++it)
    last = it->trimmed();
  last = withoutTempDir(last);
  if (last.startsWith(QLatin1String("sailor run: "))) last = last.mid(12);
  if (attaching_ && exit_code == 2)
    return tr("sailor runs attach refused, nothing was taken over: %1")
        .arg(last.isEmpty() ? tr("(no message)") : last);

  if (crashed) {
    if (stop_requested_ && run_id_ == 0) return tr("Stopped before the run started.");
    if (stop_requested_)
      return tr(
          "Stopped: sailor run did not end within %n second(s) of the interrupt and was "
          "killed.",
          "", options_.stop_grace_ms / 1000);
    return last.isEmpty() ? tr("sailor run ended abnormally (killed by a signal).")
                          : tr("sailor run ended abnormally (killed by a signal): %1").arg(last);
  }
  switch (exit_code) {
    case 0: return {};
    case 2:
      return tr("sailor run refused its input, nothing was started: %1")
          .arg(last.isEmpty() ? tr("(no message)") : last);
    case 5:
      // The run store could not be opened or stayed locked past its bound before the run was
      // created (docs/runtime.md, exit status): nothing started, nothing recorded.
      return tr("The run could not be recorded, nothing was started: %1")
          .arg(last.isEmpty() ? tr("(no message)") : last);
    case 4: {
      QString why;
      if (finished_event_ && !finished_event_->error.empty())
        why = QString::fromStdString(finished_event_->error);
      else if (last_error_) why = QString::fromStdString(last_error_->message);
      else why = last;
      return tr("The run failed: %1").arg(why.isEmpty() ? tr("(no message)") : why);
    }
    case 130: {
      const int done = finished_event_ ? finished_event_->iterations_done : 0;
      return tr("Stopped after %n iteration(s).", "", done);
    }
    default:
      return last.isEmpty() ? tr("sailor run exited with code %1.").arg(exit_code)
                            : tr("sailor run exited with code %1: %2").arg(exit_code).arg(last);
  }
}

// sailor names the files it was given; the studio's temporary copies mean nothing to the user,
// so "/tmp/sailor-studio-run-ab12/plan.json.stages[0]" reads "plan.json.stages[0]".
QString RunClient::withoutTempDir(QString text) const {
  if (files_) text.replace(files_->path() + QLatin1Char('/'), QString());
  return text;
}

}  // namespace sailor::studio
