// The controller's backend rule (runner/src/launch/backend_choice.cpp): NCCL needs one GPU per
// rank. Tested without libtorch or a GPU; the GPU case itself was checked on a device
// (docs/backends.md).
#include <QtTest>

#include "launch/backend_choice.hpp"
#include "sailor/core/error.hpp"

using sailor::InputError;
using sailor::runner::BackendChoice;
using sailor::runner::resolveBackend;

class TestBackendChoice : public QObject {
  Q_OBJECT

  static QString refusal(const std::string& requested, int ranks, bool nccl, int gpus) {
    try {
      (void)resolveBackend(requested, ranks, nccl, gpus);
    } catch (const InputError& e) {
      return QString::fromStdString(e.what());
    }
    return {};
  }

 private slots:
  void glooIsAlwaysGloo() {
    QCOMPARE(QString::fromStdString(resolveBackend("gloo", 8, true, 8).backend), QString("gloo"));
    QCOMPARE(QString::fromStdString(resolveBackend("gloo", 2, false, 0).backend), QString("gloo"));
  }

  void autoPicksNcclWithAGpuPerRank() {
    const BackendChoice c = resolveBackend("auto", 2, true, 2);
    QCOMPARE(QString::fromStdString(c.backend), QString("nccl"));
    QVERIFY(c.warning.empty());
  }

  void autoIsGlooWithoutNcclOrGpus() {
    for (const BackendChoice& c :
         {resolveBackend("auto", 4, false, 4), resolveBackend("auto", 4, true, 0)}) {
      QCOMPARE(QString::fromStdString(c.backend), QString("gloo"));
      QVERIFY(c.warning.empty());
    }
  }

  void autoFallsBackToGlooWithFewerGpusThanRanks() {
    const BackendChoice c = resolveBackend("auto", 2, true, 1);
    QCOMPARE(QString::fromStdString(c.backend), QString("gloo"));
    QVERIFY2(c.warning.find("2 ranks on a machine with 1 visible GPU") != std::string::npos,
             c.warning.c_str());
  }

  void ncclIsRefusedUpFront() {
    QVERIFY(refusal("nccl", 1, true, 1).isEmpty());
    QVERIFY(refusal("nccl", 2, true, 4).isEmpty());
    const QString shared = refusal("nccl", 2, true, 1);
    QVERIFY2(shared.contains("--backend: got nccl for 2 ranks on a machine with 1 visible GPU"),
             qPrintable(shared));
    QVERIFY2(shared.contains("at least one GPU per rank"), qPrintable(shared));
    const QString no_gpu = refusal("nccl", 1, true, 0);
    QVERIFY2(no_gpu.contains("no visible CUDA device"), qPrintable(no_gpu));
    const QString no_nccl = refusal("nccl", 1, false, 1);
    QVERIFY2(no_nccl.contains("this build has no NCCL"), qPrintable(no_nccl));
  }

  void sharingCanBeForcedForExperiments() {
    QCOMPARE(QString::fromStdString(resolveBackend("nccl", 2, true, 1, true).backend),
             QString("nccl"));
    QCOMPARE(QString::fromStdString(resolveBackend("auto", 2, true, 1, true).backend),
             QString("nccl"));
    QVERIFY(!refusal("nccl", 2, true, 0).isEmpty());
  }
};

QTEST_GUILESS_MAIN(TestBackendChoice)
#include "test_backend_choice.moc"
