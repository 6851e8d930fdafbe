#pragma once
// The child processes of a process, read from /proc (Linux): the runtime's tests check that a
// controller leaves no worker behind and find the processes of a run.

#include <QDir>
#include <QFile>
#include <QList>
#include <QString>
#include <QStringList>

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

}  // namespace sailor::test
