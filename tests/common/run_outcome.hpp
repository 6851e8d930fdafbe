#pragma once
// A `sailor run` as a test saw it: its stdout decoded event by event, its stderr, how it ended.
// The runtime's fault and checkpoint tests follow their runs with followRun.

#include <cstdint>
#include <functional>

#include <QByteArray>
#include <QList>
#include <QProcess>
#include <QString>

#include "sailor/runs/run_events.hpp"
#include "sailor/runs/run_store.hpp"
#include "test_time.hpp"

namespace sailor::test {

struct RunOutcome {
  int exit_code = -1;  // -2: killed by a signal
  QList<RunEvent> events;
  QList<qint64> worker_pids;  // from workers_started
  QString err;
  std::int64_t runId() const { return events.isEmpty() ? 0 : events.front().run_id; }
  const RunFinishedEvent* finished() const {
    return events.isEmpty() ? nullptr : events.back().as<RunFinishedEvent>();
  }
  template <typename T>
  QList<const T*> all() const {
    QList<const T*> out;
    for (const RunEvent& e : events)
      if (const auto* x = e.as<T>()) out.push_back(x);
    return out;
  }
  QList<const IterationEvent*> iterations() const { return all<IterationEvent>(); }
  // How the run ended, for a failure message: its exit code, error events and stderr.
  QString why() const {
    QString out = QString("exit %1").arg(exit_code);
    for (const auto* e : all<RunErrorEvent>()) out += ": " + QString::fromStdString(e->message);
    return out + (err.isEmpty() ? QString() : "; stderr: " + err);
  }
};

// Reads `p`'s events (started) until it ends, decoding each as it is printed (a line that does
// not decode fails the test through the InputError it throws) and passing it to `on`; `on` may
// stop early by returning true, leaving the process running for the caller.
inline RunOutcome followRun(QProcess& p, const std::function<bool(const RunEvent&)>& on = {}) {
  RunOutcome o;
  while (p.state() != QProcess::NotRunning || p.bytesAvailable() > 0) {
    if (!p.canReadLine()) {
      if (!p.waitForReadyRead(scaledMs(120000)) && p.state() != QProcess::NotRunning) break;
      continue;
    }
    const QByteArray line = p.readLine().trimmed();
    if (line.isEmpty()) continue;
    o.events.push_back(parseRunEvent(line.toStdString()));
    if (const auto* ws = o.events.back().as<WorkersStartedEvent>())
      for (const RunWorker& w : ws->workers) o.worker_pids.push_back(w.pid);
    if (on && on(o.events.back())) return o;
  }
  if (p.state() != QProcess::NotRunning) p.waitForFinished(scaledMs(60000));
  o.exit_code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
  o.err = QString::fromUtf8(p.readAllStandardError());
  return o;
}

// The losses run `id` of the store at `store` recorded, by iteration from 0; empty when an
// iteration is missing or stored twice.
inline QList<double> storedLosses(const QString& store, std::int64_t id) {
  RunStore db(store.toStdString(), StoreAccess::ReadOnly);
  QList<double> out;
  for (const IterationRecord& r : db.iterations(id)) {
    if (r.iteration != out.size()) return {};  // a gap or a duplicate
    out.push_back(r.loss);
  }
  return out;
}

}  // namespace sailor::test
