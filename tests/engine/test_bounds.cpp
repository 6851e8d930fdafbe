// Figures that no real scenario or trace holds are refused with the field, the value and the
// bounds (docs/formats.md, "Bounds"): link bandwidths and fits, latencies, prices and GPU counts
// of a scenario; duplicate links and egress pairs; trace counts beyond the bound or an int. And
// the planner's admission refuses a candidate whose figures are not finite (defence in depth).
#include <cmath>
#include <fstream>
#include <limits>

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include "planner_internal.hpp"
#include "sailor/catalog.hpp"
#include "sailor/reference.hpp"
#include "sailor/scenario.hpp"
#include "test_support.hpp"

using namespace sailor;
using nlohmann::json;

namespace {

// Two zones of one region; `rest` adds sections.
QByteArray scenarioWith(const QByteArray& rest) {
  return R"({"regions": [{"name": "r1", "zones": ["r1-a", "r1-b"]}])" +
         (rest.isEmpty() ? QByteArray() : ", " + rest) + "}";
}

// A latency_bandwidth link r1-a -> r1-b with the given bandwidth text.
QByteArray linkWith(const QByteArray& bandwidth) {
  return R"({"from_zone": "r1-a", "to_zone": "r1-b", "model": {"kind": "latency_bandwidth", "latency_s": 0.001, "bandwidth_gb_per_s": )" +
         bandwidth + "}}";
}

QByteArray poolWith(const QByteArray& count, const QByteArray& price,
                    const QByteArray& extra = {}) {
  return R"("pools": [{"zone": "r1-a", "gpu_type": "A100-40", "count": )" + count +
         R"(, "usd_per_gpu_hour": )" + price + extra + "}]";
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

}  // namespace

class TestBounds : public QObject {
  Q_OBJECT

 private:
  Catalog cat_;

 private slots:
  void initTestCase() {
    try {
      cat_ = Catalog::load(sailor::test::resources());
    } catch (const InputError& e) {
      QFAIL(e.what());
    }
  }

  void scenarioRejects_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("field");     // the InputError's field, exactly
    QTest::addColumn<QString>("value");     // occurs in its value
    QTest::addColumn<QString>("expected");  // occurs in its expectation
    const QString bw = "a bandwidth in GB/s from 1e-06 (1 kB/s) to 1e+05";
    QTest::newRow("link bandwidth 5e-324")
        << scenarioWith(R"("network": {"links": [)" + linkWith("5e-324") + "]}")
        << "network.links[0].model.bandwidth_gb_per_s"
        << "e-324" << bw;
    QTest::newRow("link bandwidth 4.9e-324")
        << scenarioWith(R"("network": {"links": [)" + linkWith("4.9e-324") + "]}")
        << "network.links[0].model.bandwidth_gb_per_s"
        << "e-324" << bw;
    QTest::newRow("link bandwidth 1e-7 GB/s (100 B/s)")
        << scenarioWith(R"("network": {"links": [)" + linkWith("1e-7") + "]}")
        << "network.links[0].model.bandwidth_gb_per_s"
        << "1e-07" << bw;
    QTest::newRow("link bandwidth 1e300")
        << scenarioWith(R"("network": {"links": [)" + linkWith("1e300") + "]}")
        << "network.links[0].model.bandwidth_gb_per_s"
        << "1e+300" << bw;
    QTest::newRow("default bandwidth 1e-9")
        << scenarioWith(
               R"("network": {"defaults": {"same_region": {"latency_s": 0, "bandwidth_gb_per_s": 1e-9}}})")
        << "network.defaults.same_region.bandwidth_gb_per_s"
        << "1e-09" << bw;
    QTest::newRow("intra-node bandwidth 1e6")
        << scenarioWith(
               R"("network": {"intra_node": [{"gpu_type": "A100-40", "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 1e6}}]})")
        << "network.intra_node[0].model.bandwidth_gb_per_s"
        << "1000000" << bw;
    QTest::newRow("sailor_fit cap 1e20 bytes/s")
        << scenarioWith(
               R"("network": {"links": [{"from_zone": "r1-a", "to_zone": "r1-b", "model": {"kind": "sailor_fit", "coefficients": [0, 0.5, 1], "max_bytes_per_s": 1e20}}]})")
        << "network.links[0].model.max_bytes_per_s"
        << "1e+20"
        << "a bandwidth in bytes/s from 1000 (1 kB/s) to 1e+14";
    QTest::newRow("sailor_fit cap 5e-324 bytes/s")
        << scenarioWith(
               R"("network": {"links": [{"from_zone": "r1-a", "to_zone": "r1-b", "model": {"kind": "sailor_fit", "coefficients": [0, 0.5, 1], "max_bytes_per_s": 5e-324}}]})")
        << "network.links[0].model.max_bytes_per_s"
        << "e-324"
        << "a bandwidth in bytes/s from 1000 (1 kB/s) to 1e+14";
    QTest::newRow("sailor_fit coefficient 1e300 (inf - inf is NaN)")
        << scenarioWith(
               R"("network": {"links": [{"from_zone": "r1-a", "to_zone": "r1-b", "model": {"kind": "sailor_fit", "coefficients": [1e300, -1e300, 1], "max_bytes_per_s": 1e9}}]})")
        << "network.links[0].model.coefficients[0]"
        << "1e+300"
        << "a coefficient in GB/s from -1e+05 to 1e+05";
    QTest::newRow("GPU price 1e18 USD/hour")
        << scenarioWith(poolWith("8", "1e18")) << "pools[0].usd_per_gpu_hour"
        << "1e+18"
        << "a price in USD per GPU-hour from 0 to 1000";
    QTest::newRow("GPU price 1000.5 USD/hour")
        << scenarioWith(poolWith("8", "1000.5")) << "pools[0].usd_per_gpu_hour"
        << "1000.5"
        << "a price in USD per GPU-hour from 0 to 1000";
    QTest::newRow("pool count 2e6") << scenarioWith(poolWith("2000000", "1")) << "pools[0].count"
                                    << "2000000"
                                    << "an integer from 0 to 1000000";
    QTest::newRow("pool count INT_MAX")
        << scenarioWith(poolWith("2147483647", "1")) << "pools[0].count"
        << "2147483647"
        << "an integer from 0 to 1000000";
    QTest::newRow("gpus_per_node 2e6")
        << scenarioWith(poolWith("8", "1", R"(, "gpus_per_node": 2000000)"))
        << "pools[0].gpus_per_node"
        << "2000000"
        << "an integer from 1 to 1000000";
    QTest::newRow("link gpus 2e6")
        << scenarioWith(
               R"("network": {"links": [{"from_zone": "r1-a", "to_zone": "r1-b", "gpus": 2000000, "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 1}}]})")
        << "network.links[0].gpus"
        << "2000000"
        << "an integer from 1 to 1000000";
    QTest::newRow("duplicate zone link")
        << scenarioWith(R"("network": {"links": [)" + linkWith("1") + ", " + linkWith("2") + ", " +
                        linkWith("1") + "]}")
        << "network.links[1]"
        << "again (first as network.links[0])"
        << "one link per (from_zone, to_zone, from_gpu, to_gpu, gpus)";
    QTest::newRow("duplicate GPU-qualified link")
        << scenarioWith(
               R"("network": {"links": [{"from_zone": "r1-a", "to_zone": "r1-b", "from_gpu": "A100-40", "to_gpu": "H100-80", "gpus": 4, "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 1}}, {"from_zone": "r1-a", "to_zone": "r1-b", "from_gpu": "A100-40", "to_gpu": "H100-80", "gpus": 2, "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 1}}, {"from_zone": "r1-a", "to_zone": "r1-b", "from_gpu": "A100-40", "to_gpu": "H100-80", "gpus": 4, "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 3}}]})")
        << "network.links[2]"
        << "(A100-40 -> H100-80) x4 again (first as network.links[0])"
        << "one link per (from_zone, to_zone, from_gpu, to_gpu, gpus)";
    QTest::newRow("duplicate egress pair")
        << scenarioWith(
               R"("egress_usd_per_gb": {"pairs": [{"from_zone": "r1-a", "to_zone": "r1-b", "usd_per_gb": 0.01}, {"from_zone": "r1-b", "to_zone": "r1-a", "usd_per_gb": 0.01}, {"from_zone": "r1-a", "to_zone": "r1-b", "usd_per_gb": 0.5}]})")
        << "egress_usd_per_gb.pairs[2]"
        << "r1-a -> r1-b again (first as egress_usd_per_gb.pairs[0])"
        << "one price per (from_zone, to_zone)";
  }
  void scenarioRejects() {
    QFETCH(QByteArray, text);
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, expected);
    const json j = json::parse(text.toStdString());
    try {
      Scenario::fromJson(j, cat_);
    } catch (const InputError& e) {
      QCOMPARE(QString::fromStdString(e.field()), field);
      QVERIFY2(QString::fromStdString(e.value()).contains(value), e.what());
      QVERIFY2(QString::fromStdString(e.expected()).contains(expected), e.what());
      return;
    }
    QFAIL("no InputError thrown");
  }

  // The bounds themselves, both directions of one pair, and one entry per GPU count are valid.
  void scenarioAccepts_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::newRow("bandwidth 1e-6 GB/s")
        << scenarioWith(R"("network": {"links": [)" + linkWith("1e-6") + "]}");
    QTest::newRow("bandwidth 1e5 GB/s")
        << scenarioWith(R"("network": {"links": [)" + linkWith("1e5") + "]}");
    QTest::newRow("price 1000, count 1e6, gpus_per_node 1e6")
        << scenarioWith(poolWith("1000000", "1000", R"(, "gpus_per_node": 1000000)"));
    QTest::newRow("both directions of a pair") << scenarioWith(
        R"("network": {"links": [{"from_zone": "r1-a", "to_zone": "r1-b", "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 1}}, {"from_zone": "r1-b", "to_zone": "r1-a", "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 2}}]})");
    QTest::newRow("one pair per GPU count and GPU types") << scenarioWith(
        R"("network": {"links": [{"from_zone": "r1-a", "to_zone": "r1-b", "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 1}}, {"from_zone": "r1-a", "to_zone": "r1-b", "gpus": 2, "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 2}}, {"from_zone": "r1-a", "to_zone": "r1-b", "from_gpu": "A100-40", "to_gpu": "A100-40", "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 2}}]})");
  }
  void scenarioAccepts() {
    QFETCH(QByteArray, text);
    try {
      Scenario::fromJson(json::parse(text.toStdString()), cat_);
    } catch (const InputError& e) {
      QFAIL(e.what());
    }
  }

  void traceRejects_data() {
    QTest::addColumn<QByteArray>("cell");
    QTest::newRow("2^31") << QByteArray("2147483648");
    QTest::newRow("3e9") << QByteArray("3000000000");
    QTest::newRow("above the pool bound") << QByteArray("1000001");
    QTest::newRow("inf") << QByteArray("inf");
    QTest::newRow("nan") << QByteArray("nan");
    QTest::newRow("1e400 (beyond a double)") << QByteArray("1e400");
    QTest::newRow("negative") << QByteArray("-1");
    QTest::newRow("fraction") << QByteArray("2.5");
  }
  void traceRejects() {
    QFETCH(QByteArray, cell);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("trace.csv").toStdString();
    {
      std::ofstream out(path);
      out << ",Timestamp,A100-40_r1-a,A100-40_r1-b\n0,t0,4,8\n1,t1,4," << cell.toStdString()
          << "\n";
    }
    try {
      loadTrace(path, cat_);
    } catch (const InputError& e) {
      QCOMPARE(QString::fromStdString(e.field()),
               QString::fromStdString(path + ": line 3, column A100-40_r1-b"));
      QCOMPARE(QString::fromStdString(e.value()), "\"" + QString(cell) + "\"");
      QCOMPARE(QString::fromStdString(e.expected()),
               QString("an integer GPU count from 0 to 1000000"));
      return;
    }
    QFAIL("no InputError thrown");
  }

  void traceAcceptsTheBound() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("trace.csv").toStdString();
    {
      std::ofstream out(path);
      out << ",Timestamp,A100-40_r1-a\n0,t0,1000000\n1,t1,0\n";
    }
    const auto rows = loadTrace(path, cat_);
    QCOMPARE(rows.size(), size_t{2});
    QCOMPARE(rows[0].counts.at(0), 1000000);
    QCOMPARE(rows[1].counts.at(0), 0);
  }

  // Candidate admission: figures that are not finite (or no iterations per second at all) are
  // never admitted, even with no constraint set.
  void admitsOnlyFiniteFigures_data() {
    QTest::addColumn<double>("iterations_per_s");
    QTest::addColumn<double>("usd_per_iteration");
    QTest::addColumn<double>("usd_per_hour");
    QTest::addColumn<bool>("admitted");
    QTest::newRow("finite") << 2.0 << 0.5 << 3600.0 << true;
    QTest::newRow("free") << 2.0 << 0.0 << 0.0 << true;
    QTest::newRow("infinite iteration time") << 0.0 << 0.5 << 3600.0 << false;
    QTest::newRow("zero iteration time") << kInf << 0.5 << 3600.0 << false;
    QTest::newRow("NaN iteration time") << kNan << 0.5 << 3600.0 << false;
    QTest::newRow("NaN cost") << 2.0 << kNan << 3600.0 << false;
    QTest::newRow("infinite cost") << 2.0 << kInf << 3600.0 << false;
    QTest::newRow("-nan per hour") << 2.0 << 0.5 << -kNan << false;
    QTest::newRow("infinite per hour") << 2.0 << 0.5 << kInf << false;
  }
  void admitsOnlyFiniteFigures() {
    QFETCH(double, iterations_per_s);
    QFETCH(double, usd_per_iteration);
    QFETCH(double, usd_per_hour);
    QFETCH(bool, admitted);
    const planner_detail::Constraints none{PlannerOptions{}};
    QCOMPARE(none.admits(iterations_per_s, usd_per_iteration, usd_per_hour, 8), admitted);
    PlannerOptions capped;
    capped.max_usd_per_hour = 1e9;
    const planner_detail::Constraints cap{capped};
    QCOMPARE(cap.admits(iterations_per_s, usd_per_iteration, usd_per_hour, std::nullopt), admitted);
  }
};

QTEST_GUILESS_MAIN(TestBounds)
#include "test_bounds.moc"
