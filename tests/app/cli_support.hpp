// Running the `sailor` command line from the app tests: its exit code and output, with the
// shipped resources (test_cli, test_validate_published).
#pragma once

#include <QByteArray>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace sailor::test {

struct Result {
  int exit_code = -1;
  QString out;
  QString err;
};

inline QString resources() {
  const QByteArray env = qgetenv("SAILOR_RESOURCES");
  return env.isEmpty() ? QString(SAILOR_TEST_RESOURCES) : QString::fromLocal8Bit(env);
}

inline Result runSailor(const QStringList& args) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("SAILOR_RESOURCES", resources());
  p.setProcessEnvironment(env);
  p.start(SAILOR_BIN, args);
  Result r;
  if (!p.waitForStarted(10000)) {
    r.err = "could not start " + QString(SAILOR_BIN);
    return r;
  }
  if (!p.waitForFinished(60000)) {
    p.kill();
    p.waitForFinished();
    r.err = "timed out";
    return r;
  }
  r.exit_code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

inline QString describe(const QStringList& args, const Result& r) {
  return QString("sailor %1 -> exit %2\nstdout: %3\nstderr: %4")
      .arg(args.join(' '))
      .arg(r.exit_code)
      .arg(r.out.left(2000), r.err.left(2000));
}

}  // namespace sailor::test
