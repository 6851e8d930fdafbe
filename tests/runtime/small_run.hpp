#pragma once
// `sailor run` arguments of the runtime's fault and network tests: a plan of tests/data/runtime
// with job.json, the tests' small model (hidden 64, sequence 16), on the default scenario, with
// the heartbeat time-out scaled for the sanitizer build's slower workers.

#include <QString>
#include <QStringList>

#include "test_time.hpp"

namespace sailor::test {

inline QStringList smallRunArgs(const QString& plan_file, const QString& store) {
  const QString data = QStringLiteral(SAILOR_TEST_DATA);  // tests/data/runtime
  QStringList args{"run",
                   "--plan",
                   data + "/" + plan_file,
                   "--scenario",
                   QStringLiteral(SAILOR_TEST_RESOURCES) + "/scenarios/default.json",
                   "--job",
                   data + "/job.json",
                   "--hidden",
                   "64",
                   "--seq-len",
                   "16",
                   "--store",
                   store};
  if (scaledMs(5000) > 5000)
    args << "--heartbeat-timeout" << QString::number(scaledMs(5000) / 1000);
  return args;
}

}  // namespace sailor::test
