// Communication timing (runner/src/training/comm.hpp's CommClock): the time a worker waits for a
// transfer is booked as communication, and the compute before it is not.
//  - CPU, everywhere: a real Gloo all-reduce and a point-to-point receive between this process
//    (rank 0) and a peer process (rank 1, this binary started with --comm-peer) that is
//    deliberately late: the host clock books the wait (about the peer's delay minus the compute
//    rank 0 did meanwhile), under the kind asked for, and none of that compute.
//  - GPU, where libtorch has CUDA and a device is visible (else QSKIP): NCCL's wait() returns at
//    once, so a host clock reads about 0 there (the defect this clock fixes); the CUDA-event
//    clock books the device time of the span (a 1-rank NCCL all-reduce behind a kernel that
//    holds the stream, as a late peer does) and not the kernel queued before the span.
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include <QCoreApplication>
#include <QProcess>
#include <QTest>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef SAILOR_WITH_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef SAILOR_WITH_CUDA
#include <c10/cuda/CUDAGuard.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/Sleep.h>
#endif

#include "training/comm.hpp"

using sailor::runner::commClock;
using sailor::runner::CommTimes;
using sailor::runner::GroupPtr;

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

constexpr int kPeerDelayMs = 600;  // how late the peer is, after the common barrier
constexpr int kComputeMs = 200;    // rank 0's work between the barrier and its communication

#ifdef SAILOR_WITH_GLOO
// Rank `rank` of a 2-rank Gloo group on the store at 127.0.0.1:`port` (rank 0 hosts it).
GroupPtr glooPair(const c10::intrusive_ptr<c10d::Store>& store, int rank) {
  auto options = c10d::ProcessGroupGloo::Options::create(std::chrono::seconds(60));
  options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, 2, options);
}

void barrier(const GroupPtr& group) {
  std::vector<at::Tensor> one{torch::zeros({1})};
  group->allreduce(one)->wait();
}
#endif

// The peer: `--comm-peer PORT allreduce|send`. Joins rank 0's group, passes the common barrier,
// sleeps kPeerDelayMs, then all-reduces 2s or sends 7s (tag 5) to rank 0.
int runPeer(int argc, char** argv) {
#ifdef SAILOR_WITH_GLOO
  if (argc != 4) return 2;
  c10d::TCPStoreOptions so;
  so.port = static_cast<std::uint16_t>(std::stoi(argv[2]));
  so.isServer = false;
  so.timeout = std::chrono::seconds(60);
  auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", so);
  GroupPtr group = glooPair(store, 1);
  barrier(group);
  std::this_thread::sleep_for(std::chrono::milliseconds(kPeerDelayMs));
  const std::string mode = argv[3];
  if (mode == "allreduce") {
    std::vector<at::Tensor> t{torch::full({4096}, 2.0)};
    group->allreduce(t)->wait();
  } else {
    std::vector<at::Tensor> t{torch::full({4096}, 7.0)};
    group->send(t, 0, 5)->wait();
  }
  barrier(group);  // rank 0 has its data before this process goes
  return 0;
#else
  (void)argc, (void)argv;
  return 3;
#endif
}

}  // namespace

class TestCommTiming : public QObject {
  Q_OBJECT

 private:
#ifdef SAILOR_WITH_GLOO
  // Rank 0's side: hosts the store, starts the peer in `mode`, forms the group and passes the
  // barrier; then `work` (timed from the barrier, returned as seconds) runs.
  double withLatePeer(const QString& mode, const std::function<void(const GroupPtr&)>& work) {
    c10d::TCPStoreOptions so;
    so.port = 0;
    so.isServer = true;
    so.waitWorkers = false;
    so.timeout = std::chrono::seconds(60);
    auto store = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", so);
    QProcess peer;
    peer.setProcessChannelMode(QProcess::ForwardedChannels);
    peer.start(QCoreApplication::applicationFilePath(),
               {"--comm-peer", QString::number(store->getPort()), mode});
    if (!peer.waitForStarted(10000)) qFatal("cannot start the peer process");
    GroupPtr group = glooPair(store, 0);
    barrier(group);
    const auto t0 = Clock::now();
    work(group);
    const double seconds = since(t0);
    barrier(group);
    peer.waitForFinished(60000);
    if (peer.exitStatus() != QProcess::NormalExit || peer.exitCode() != 0)
      qFatal("the peer process failed (exit code %d)", peer.exitCode());
    return seconds;
  }
#endif

 private Q_SLOTS:
  void initTestCase() {
    at::set_num_threads(1);
    sailor::runner::setCommClock(sailor::runner::makeCommClock(torch::kCPU));
  }

  // The clock follows the device: the host clock on CPU; a CUDA device without CUDA in the
  // build is refused, not timed with a clock that would read about 0.
  void clockFollowsTheDevice() {
    QCOMPARE(QString::fromStdString(sailor::runner::makeCommClock(torch::kCPU)->name()), "host");
#ifdef SAILOR_WITH_CUDA
    QCOMPARE(QString::fromStdString(
                 sailor::runner::makeCommClock(torch::Device(torch::kCUDA, 0))->name()),
             "cuda-events");
#else
    QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                             sailor::runner::makeCommClock(torch::Device(torch::kCUDA, 0)));
#endif
  }

  // Spans are booked under their kind, and collect() starts the next count from zero.
  void hostClockBooksSpansByKind() {
    auto& clock = commClock();
    (void)clock.collect();
    clock.begin();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    clock.end(&CommTimes::dp);
    clock.begin();
    clock.end(&CommTimes::tp);
    const CommTimes t = clock.collect();
    QVERIFY2(t.dp >= 0.045 && t.dp < 1.0, qPrintable(QString::number(t.dp)));
    QVERIFY(t.tp >= 0 && t.tp < 0.01);
    QCOMPARE(t.p2p, 0.0);
    QCOMPARE(clock.collect().total(), 0.0);
  }

  // A real all-reduce over Gloo with a late peer: the wait is communication (about the peer's
  // delay less rank 0's compute), the compute before it is not.
  void allReduceWaitingOnALatePeerIsCommunication() {
#ifndef SAILOR_WITH_GLOO
    QSKIP("this build has no Gloo (libtorch without Gloo headers)");
#else
    (void)commClock().collect();
    at::Tensor result;
    const double seconds = withLatePeer("allreduce", [&](const GroupPtr& group) {
      std::this_thread::sleep_for(std::chrono::milliseconds(kComputeMs));  // "compute"
      std::vector<at::Tensor> t{torch::ones({4096})};
      sailor::runner::allReduceSum(group, t, &CommTimes::tp);
      result = t[0];
    });
    const CommTimes c = commClock().collect();
    QCOMPARE(result.min().item<double>(), 3.0);  // 1 + 2: a real sum over both processes
    QCOMPARE(result.max().item<double>(), 3.0);
    const double expected = (kPeerDelayMs - kComputeMs) / 1000.0;
    const QString figures = QString("tp %1 s, p2p %2, dp %3; %4 s since the barrier")
                                .arg(c.tp)
                                .arg(c.p2p)
                                .arg(c.dp)
                                .arg(seconds);
    QVERIFY2(c.tp >= 0.75 * expected, qPrintable(figures));
    QVERIFY2(c.tp <= seconds - 0.9 * kComputeMs / 1000.0, qPrintable(figures));  // no compute
    QVERIFY2(c.p2p == 0 && c.dp == 0, qPrintable(figures));
#endif
  }

  // A point-to-point receive from a late sender, posted and waited on through P2p: booked as p2p.
  void receiveFromALatePeerIsCommunication() {
#ifndef SAILOR_WITH_GLOO
    QSKIP("this build has no Gloo (libtorch without Gloo headers)");
#else
    (void)commClock().collect();
    at::Tensor received = torch::zeros({4096});
    const double seconds = withLatePeer("send", [&](const GroupPtr& group) {
      std::this_thread::sleep_for(std::chrono::milliseconds(kComputeMs));
      sailor::runner::P2p p2p(group);
      p2p.recv(received, 1, 5);
      p2p.wait();
    });
    const CommTimes c = commClock().collect();
    QCOMPARE(received.min().item<double>(), 7.0);
    const double expected = (kPeerDelayMs - kComputeMs) / 1000.0;
    const QString figures = QString("p2p %1 s, tp %2, dp %3; %4 s since the barrier")
                                .arg(c.p2p)
                                .arg(c.tp)
                                .arg(c.dp)
                                .arg(seconds);
    QVERIFY2(c.p2p >= 0.75 * expected, qPrintable(figures));
    QVERIFY2(c.p2p <= seconds - 0.9 * kComputeMs / 1000.0, qPrintable(figures));
    QVERIFY2(c.tp == 0 && c.dp == 0, qPrintable(figures));
#endif
  }

  // NCCL on a GPU: the span's device time is booked although the host returns at once.
  void cudaEventClockBooksDeviceTime() {
#ifndef SAILOR_WITH_CUDA
    QSKIP("this libtorch has no CUDA: the CUDA-event clock (NCCL timing) is not built");
#else
    if (!torch::cuda::is_available()) QSKIP("no CUDA device visible: NCCL timing not exercised");
    const torch::Device device(torch::kCUDA, 0);
    c10::cuda::CUDAGuard guard(device.index());
    sailor::runner::setCommClock(sailor::runner::makeCommClock(device));
    auto& clock = commClock();
    auto options = c10d::ProcessGroupNCCL::Options::create();
    GroupPtr nccl = c10::make_intrusive<c10d::ProcessGroupNCCL>(
        c10::make_intrusive<c10d::HashStore>(), 0, 1, options);
    std::vector<at::Tensor> t{torch::ones({1 << 20}, torch::TensorOptions().device(device))};
    nccl->allreduce(t)->wait();  // creates the communicator
    torch::cuda::synchronize(device.index());

    // A kernel that holds the stream about 0.2 s, timed by raw events (the SM clock varies).
    auto timeSleep = [](std::int64_t cycles) {
      at::cuda::CUDAEvent e0(cudaEventDefault), e1(cudaEventDefault);
      e0.record();
      at::cuda::sleep(cycles);
      e1.record();
      e1.synchronize();
      return 1e-3 * e0.elapsed_time(e1);
    };
    const std::int64_t probe = 100'000'000;  // cycles: tens of milliseconds at GPU clocks
    const auto cycles = static_cast<std::int64_t>(probe * 0.2 / timeSleep(probe));
    const double hold = timeSleep(cycles);

    (void)clock.collect();
    at::cuda::sleep(cycles);  // compute queued before the span: not communication
    const auto h0 = Clock::now();
    clock.begin();
    at::cuda::sleep(cycles);  // holds the stream inside the span, as a late peer would
    nccl->allreduce(t)->wait();
    clock.end(&CommTimes::dp);
    const double host = since(h0);
    const CommTimes c = clock.collect();
    const QString figures =
        QString("dp %1 s, kernel %2 s, host span %3 s").arg(c.dp).arg(hold).arg(host);
    QVERIFY2(host < 0.5 * hold, qPrintable(figures));  // what a host clock would have booked
    QVERIFY2(c.dp >= 0.9 * hold && c.dp < 1.5 * hold, qPrintable(figures));
    QCOMPARE(t[0].min().item<double>(), 1.0);  // a 1-rank sum leaves the data as they were
    sailor::runner::setCommClock(sailor::runner::makeCommClock(torch::kCPU));
#endif
  }
};

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "--comm-peer") return runPeer(argc, argv);
  QCoreApplication app(argc, argv);
  TestCommTiming test;
  return QTest::qExec(&test, argc, argv);
}

#include "test_comm_timing.moc"
