// The profiler's fit of point-to-point times to the engine's link model (seconds = latency +
// bytes / bandwidth, runner/src/profiling/profiler.hpp fitLatencyBandwidth): exact figures come
// back exactly, and noisy ones still give a positive bandwidth (a bandwidth of 0, which the
// catalogue refuses, once failed `sailor profile --quick` on a loaded machine).
#include <QTest>

#include "profiling/profiler.hpp"

using sailor::runner::fitLatencyBandwidth;

class TestLinkFit : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // 20 us + bytes / 1 GB/s at 4 KiB .. 4 MiB: the fit returns both figures.
  void exactFiguresComeBack() {
    std::vector<double> bytes, seconds;
    for (double b = 4096; b <= 4 << 20; b *= 4) {
      bytes.push_back(b);
      seconds.push_back(20e-6 + b / 1e9);
    }
    const auto [latency, bandwidth] = fitLatencyBandwidth(bytes, seconds);
    QVERIFY(std::abs(latency - 20e-6) < 1e-9);
    QVERIFY(std::abs(bandwidth - 1e9) < 1e3);
  }

  // Times that fall with the size (the small messages slowed by other load): the unweighted
  // slope is negative; the fit goes through the origin, a positive bandwidth, latency 0.
  void timesThatDoNotGrowStillGiveABandwidth() {
    const std::vector<double> bytes{4096, 65536, 1 << 20, 4 << 20};
    const std::vector<double> seconds{9e-3, 8e-3, 7e-3, 6.5e-3};
    const auto [latency, bandwidth] = fitLatencyBandwidth(bytes, seconds);
    QCOMPARE(latency, 0.0);
    QVERIFY2(bandwidth > 0, qPrintable(QString::number(bandwidth)));
    // Through the origin every second is transfer: no faster than the fastest point's rate.
    QVERIFY(bandwidth <= (4 << 20) / 6.5e-3);
  }

  // A negative intercept (the small messages faster than the line through the large ones):
  // clamped at 0 and refitted.
  void negativeInterceptIsClamped() {
    const std::vector<double> bytes{4096, 1 << 20, 4 << 20};
    const std::vector<double> seconds{1e-6, 2e-3, 9e-3};
    const auto [latency, bandwidth] = fitLatencyBandwidth(bytes, seconds);
    QCOMPARE(latency, 0.0);
    QVERIFY(bandwidth > 0);
  }
};

QTEST_APPLESS_MAIN(TestLinkFit)
#include "test_link_fit.moc"
