// A local run opens nothing beyond loopback (docs/runtime.md "Rendezvous"): during a two-process
// `sailor run` (pp2.json, Gloo), every listening TCP socket held by the controller or one of its
// workers is bound to 127.0.0.0/8 or ::1 (or there is none: the rendezvous is a FileStore file),
// found through /proc/net/tcp{,6} and each process's /proc/<pid>/fd socket inodes. The
// rendezvous file lies in a private (0700) directory and is gone after the run. A SIGTERM to the
// controller then ends the run within two seconds (no peer can wedge it), exit 130, with a
// `stopped` finished event last.
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include "proc_children.hpp"
#include "test_time.hpp"

namespace {

const QString kData = SAILOR_TEST_DATA;  // tests/data/runtime
const QString kScenario = QString(SAILOR_TEST_RESOURCES) + "/scenarios/default.json";

using sailor::test::childrenOf;

// Inodes of the sockets `pid` holds open ("socket:[INODE]" links under /proc/<pid>/fd).
QSet<QString> socketInodes(qint64 pid) {
  QSet<QString> out;
  const QString dir = "/proc/" + QString::number(pid) + "/fd";
  for (const QString& fd : QDir(dir).entryList(QDir::Files | QDir::System)) {
    const QString target = QFileInfo(dir + "/" + fd).symLinkTarget();
    const QString name = QFileInfo(target).fileName();  // symLinkTarget makes it absolute
    if (name.startsWith("socket:[")) out.insert(name.mid(8, name.size() - 9));
  }
  return out;
}

// /proc/net/tcp{,6} local address "HEX:PORT" (IPv4 one little-endian word, IPv6 four) as
// text, and whether it is loopback: 127.0.0.0/8, ::1, or ::ffff:127.x.y.z.
struct Address {
  QString text;
  bool loopback = false;
};
Address decode(const QString& hex_addr) {
  const QStringList parts = hex_addr.split(':');
  const QString ip = parts.value(0);
  const int port = parts.value(1).toInt(nullptr, 16);
  QList<quint8> bytes;  // network order
  for (int w = 0; w + 8 <= ip.size(); w += 8) {
    const quint32 word = ip.mid(w, 8).toUInt(nullptr, 16);  // host (little-endian) order
    for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<quint8>(word >> (8 * b)));
  }
  Address a;
  QStringList shown;
  for (quint8 b : bytes) shown << QString::number(b);
  a.text = shown.join('.') + " port " + QString::number(port);
  if (bytes.size() == 4) a.loopback = bytes[0] == 127;
  if (bytes.size() == 16) {
    bool zero10 = true;
    for (int i = 0; i < 10; ++i) zero10 = zero10 && bytes[i] == 0;
    const bool v6_one = zero10 && bytes[10] == 0 && bytes[11] == 0 && bytes[12] == 0 &&
                        bytes[13] == 0 && bytes[14] == 0 && bytes[15] == 1;
    const bool v4_mapped = zero10 && bytes[10] == 0xff && bytes[11] == 0xff && bytes[12] == 127;
    a.loopback = v6_one || v4_mapped;
  }
  return a;
}

// Listening (state 0A) sockets among `inodes`, from one /proc/net table.
QList<Address> listening(const QString& table, const QSet<QString>& inodes) {
  QList<Address> out;
  QFile f(table);
  if (!f.open(QIODevice::ReadOnly)) return out;  // no IPv6 on this machine
  f.readLine();                                  // header
  while (!f.atEnd()) {
    const QStringList cols = QString::fromLatin1(f.readLine()).split(' ', Qt::SkipEmptyParts);
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
    if (cols.size() < 10 || cols[3] != "0A" || !inodes.contains(cols[9])) continue;
    out.push_back(decode(cols[1]));
  }
  return out;
}

}  // namespace

class TestLoopback : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void localRunListensOnLoopbackOnlyAndStopsOnSigterm() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QStringList args{"run",
                     "--plan",
                     kData + "/pp2.json",
                     "--scenario",
                     kScenario,
                     "--job",
                     kData + "/job.json",
                     "--hidden",
                     "64",
                     "--seq-len",
                     "16",
                     "--store",
                     dir.filePath("runs.sqlite"),
                     "--iterations",
                     "500"};
    if (sailor::test::scaledMs(5000) > 5000)
      args << "--heartbeat-timeout" << QString::number(sailor::test::scaledMs(5000) / 1000);
    QProcess p;
    p.start(SAILOR_BIN, args);  // `sailor run` execs the controller: p's pid is the controller's
    QVERIFY(p.waitForStarted(10000));
    const qint64 controller = p.processId();

    // Sampled on every turn from the start to the first iteration (when every group is formed):
    // Gloo's listeners live only while its pairs connect.
    QString rendezvous;
    QList<QJsonObject> events;
    int most_processes = 0, samples = 0;
    QSet<QString> seen, exposed;
    auto sample = [&] {
      QList<qint64> pids{controller};
      pids += childrenOf(controller);
      most_processes = std::max(most_processes, static_cast<int>(pids.size()));
      ++samples;
      QSet<QString> inodes;
      for (qint64 pid : pids) inodes += socketInodes(pid);
      for (const QString& table : {QString("/proc/net/tcp"), QString("/proc/net/tcp6")})
        for (const Address& a : listening(table, inodes)) {
          seen.insert(a.text);
          if (!a.loopback) exposed.insert(a.text);
        }
    };
    QElapsedTimer since_term;
    while (p.state() != QProcess::NotRunning || p.bytesAvailable() > 0) {
      if (!since_term.isValid()) sample();
      if (!p.canReadLine()) {
        if (!p.waitForReadyRead(since_term.isValid() ? 120000 : 20) &&
            p.state() != QProcess::NotRunning && since_term.isValid())
          break;
        continue;
      }
      const QJsonObject e = QJsonDocument::fromJson(p.readLine()).object();
      events.push_back(e);
      const QString kind = e["event"].toString();
      if (kind == "workers_started") rendezvous = e["store"].toString();
      if (kind == "iteration" && !since_term.isValid()) {
        // The rendezvous file: in a directory only the user can enter, during the run.
        QVERIFY2(rendezvous.startsWith("file:"), qPrintable(rendezvous));
        const QString path = rendezvous.mid(5);
        QVERIFY2(QFileInfo::exists(path), qPrintable(path));
        struct stat st {};
        QCOMPARE(::stat(QFileInfo(path).absolutePath().toLocal8Bit().constData(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0700u);
        QCOMPARE(::kill(static_cast<pid_t>(controller), SIGTERM), 0);
        since_term.start();
      }
    }
    if (p.state() != QProcess::NotRunning) QVERIFY(p.waitForFinished(30000));
    QVERIFY2(since_term.isValid(), "the run ended before its first iteration");
    const qint64 ms = since_term.elapsed();
    const QStringList shown(seen.begin(), seen.end()), bad(exposed.begin(), exposed.end());
    qInfo(
        "%d samples of up to %d processes; listening: [%s]; controller exited %lld ms after "
        "SIGTERM",
        samples, most_processes, qPrintable(shown.join(", ")), ms);
    QCOMPARE(most_processes, 3);  // the controller and both workers were looked at
    QVERIFY2(bad.isEmpty(), qPrintable("listening beyond loopback: " + bad.join(", ")));
    QVERIFY2(ms < sailor::test::scaledMs(2000), qPrintable(QString::number(ms) + " ms"));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 130);
    QVERIFY(!events.isEmpty());
    QCOMPARE(events.back()["event"].toString(), QString("finished"));
    QCOMPARE(events.back()["status"].toString(), QString("stopped"));
    QVERIFY2(!QFileInfo::exists(rendezvous.mid(5)), qPrintable(rendezvous));  // removed at finish
  }
};

QTEST_GUILESS_MAIN(TestLoopback)
#include "test_loopback.moc"
