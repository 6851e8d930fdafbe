#pragma once
// The child processes of a process, read from /proc (Linux): the runtime's tests check that a
// controller leaves no worker behind and find the processes of a run.

#include <algorithm>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QList>
#include <QString>
#include <QStringList>
#include <QThread>

namespace sailor::test {

// The children of `parent` (any state, zombies included).
inline QList<qint64> childrenOf(qint64 parent) {
  QList<qint64> out;
  for (const QString& pid : QDir("/proc").entryList(QDir::Dirs)) {
    QFile stat("/proc/" + pid + "/stat");
    if (!stat.open(QIODevice::ReadOnly)) continue;
    // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
    const QString line = QString::fromUtf8(stat.readAll());
    const QStringList rest = line.mid(line.lastIndexOf(')') + 2).split(' ', Qt::SkipEmptyParts);
    if (rest.size() > 1 && rest[1].toLongLong() == parent) out.push_back(pid.toLongLong());
  }
  return out;
}

// A process that is gone: no such pid, or a zombie waiting for whoever adopted it.
inline bool gone(qint64 pid) {
  QFile stat(QString("/proc/%1/stat").arg(pid));
  if (!stat.open(QIODevice::ReadOnly)) return true;
  const QByteArray line = stat.readAll();
  const qsizetype close = line.lastIndexOf(')');
  return close >= 0 && line.size() > close + 2 && line[close + 2] == 'Z';
}

// Polls every 20 ms until every pid is gone; false when `ms` passed first.
inline bool waitUntilGone(const QList<qint64>& pids, int ms) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < ms) {
    if (std::all_of(pids.begin(), pids.end(), gone)) return true;
    QThread::msleep(20);
  }
  return false;
}

}  // namespace sailor::test
