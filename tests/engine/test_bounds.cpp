// Figures that no real scenario or trace holds are refused with the field, the value and the
// bounds (docs/formats.md, "Bounds"): link bandwidths and fits, latencies, prices and GPU counts
// of a scenario; duplicate links and egress pairs; trace counts beyond the bound or an int, or
// written other than in decimal digits; trace headers with a column twice or bytes that are not
// text; SAILOR quotas beyond the bound; measured figures a relative error cannot divide by; a
// measured point's replicas summing past a pool's bound. Every InputError's message is one line
// of valid UTF-8 of bounded length, whatever the input quoted. And the planner's admission
// refuses a candidate whose figures are not finite (defence in depth).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>

#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include "planning/planner_internal.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/core/utf8.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/model/reference.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/scenario/availability.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/simulation/simulator.hpp"
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

// Writes `text` to `name` under dir (creating its parent directories); returns the path.
std::string writeText(const QTemporaryDir& dir, const std::string& name, const std::string& text) {
  const std::filesystem::path path = dir.filePath(QString::fromStdString(name)).toStdString();
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
  return path.string();
}

// Strict UTF-8 (no overlong forms, surrogates or code points above U+10FFFF), for the checks.
bool validUtf8(const std::string& s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())).toUtf8() ==
         QByteArray(s.data(), static_cast<qsizetype>(s.size()));
}

// A measured-points file of one OPT-350M point on two A100-40 in us-central1-a, with `change`
// applied to the point.
std::string pointsWith(const std::function<void(json&)>& change) {
  json p = json::parse(R"({"id": "p", "model": "OPT-350", "global_batch_size": 8,
    "microbatch_size": 1, "layers_per_stage": [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
    15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]], "replicas_per_stage": [[{"gpu_type": "A100-40",
    "tp": 1, "zone": "us-central1-a"}, {"gpu_type": "A100-40", "tp": 1, "zone": "us-central1-a"}]],
    "measured": {"iteration_time_s": 2.5, "peak_memory_bytes": 9e9}})");
  change(p);
  return json{{"points", json::array({p})}}.dump();
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// A catalogue extension of one GPU type (A100-40's figures under "X1") and one model (OPT-350M's
// dimensions under "M1"), with `change` applied.
json extensionWith(const std::function<void(json& gpu, json& model)>& change) {
  json gpu = json::parse(R"({"name": "X1", "memory_bytes": 42949672960, "fp32_tflops": 19.5,
    "fp16_tflops": 312, "memory_bandwidth_gb_per_s": 1555, "intra_node_bandwidth_gb_per_s": 300,
    "inter_node_bandwidth_gb_per_s": 1.5625, "gpus_per_node": 8,
    "runtime_overhead_bytes": 3000000000, "sources": ["test"]})");
  json model = json::parse(R"({"name": "M1", "layers": 24, "hidden_size": 1024, "heads": 16,
    "ffn_hidden_size": 4096, "vocab_size": 50272, "sequence_length": 2048,
    "position_embedding": "rotary", "sources": ["test"]})");
  change(gpu, model);
  return json{{"gpus", json::array({gpu})}, {"models", json::array({model})}};
}

// Minimal SAILOR-layout files: one OPT-350 timing and memory entry, an intra-node fit, an egress
// price and a node size; `change` edits them by file name (relative to the directory).
void writeReference(const QTemporaryDir& dir,
                    const std::function<void(std::map<std::string, json>&)>& change) {
  std::map<std::string, json> files;
  files["profiles/simulator_profiles.json"] =
      json::parse(R"({"OPT-350": {"A100-40": {"1": {"1": {"0": [0.001, 0.002, 0.003]}}}}})");
  files["profiles/llm_info.json"] = json::parse(
      R"({"OPT-350": {"1": {"0": {"params_floats": 1000, "act_mem_floats": 10, "act_output_floats": 10}}}})");
  files["network/intra_node_bandwidths.json"] =
      json::parse(R"({"A100-40": {"2": [[0, 1, 2], 1e11]}})");
  files["network/egress_cost_usd_per_gb.json"] =
      json::parse(R"({"us-central1-a": {"us-central1-b": 0.01}})");
  files["cluster/basic_cluster_config.json"] = json::parse(R"({"A100-40": {"gpus_per_node": 4}})");
  change(files);
  for (const auto& [name, j] : files) writeText(dir, name, j.dump());
}

// A profile source whose every layer takes 1e308 s: a figure no file may hold (each source's
// reader bounds it), given through the API. Its predictions overflow.
class OverflowingProfile : public ProfileSource {
 public:
  explicit OverflowingProfile(const Catalog& catalog) : analytic_(catalog) {}
  std::string name() const override { return "overflowing"; }
  std::optional<std::vector<LayerTiming>> timings(const ProfileKey& key,
                                                  const Job& job) const override {
    auto t = analytic_.timings(key, job);
    if (t)
      for (auto& l : *t) l = {1e308, 1e308};
    return t;
  }
  std::optional<double> optimizerSecondsPerParameter(const ProfileKey& key,
                                                     const Job& job) const override {
    return analytic_.optimizerSecondsPerParameter(key, job);
  }
  std::optional<std::vector<LayerMemory>> memory(const std::string& model, int tp,
                                                 const Job& job) const override {
    return analytic_.memory(model, tp, job);
  }

 private:
  AnalyticProfile analytic_;
};

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
    QTest::newRow("hex 0x10") << QByteArray("0x10");
    QTest::newRow("exponent 1e3") << QByteArray("1e3");
    QTest::newRow("sign +7") << QByteArray("+7");
    QTest::newRow("empty") << QByteArray("");
    QTest::newRow("spaces only") << QByteArray("  ");
    QTest::newRow("7.") << QByteArray("7.");
    QTest::newRow("two numbers") << QByteArray("7 7");
    QTest::newRow("fullwidth 7") << QByteArray("\xEF\xBC\x97");
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

  // Decimal digits with blanks around them, and pandas' "8.0", are whole counts.
  void traceAcceptsDecimalCounts() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = writeText(dir, "trace.csv",
                                       ",Timestamp,A100-40_r1-a,A100-40_r1-b,A100-40_r1-c\r\n"
                                       "0,t0, 7 ,8.00,\t007\r\n");
    const auto rows = loadTrace(path, cat_);
    QCOMPARE(rows.size(), size_t{1});
    QCOMPARE(rows[0].counts, (std::vector<int>{7, 8, 7}));
    QCOMPARE(rows[0].label, std::string("t0"));
  }

  // The header's columns and the file's bytes: the field names the file, line or column.
  void traceTextRejects_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("field");  // after "<path>: "
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QString>("expected");
    QTest::newRow("a column twice")
        << QByteArray(",Timestamp,A100-40_r1-a,A100-40_r1-b,A100-40_r1-a\n0,t0,1,2,3\n")
        << "header, column \"A100-40_r1-a\"" << QByteArray("a second column for A100-40 in r1-a")
        << "one column per GPU type and zone";
    QTest::newRow("a column without a zone")
        << QByteArray(",Timestamp,A100-40_\n0,t0,1\n") << "header, column \"A100-40_\""
        << QByteArray("no zone after A100-40_")
        << "a zone after the GPU type, as in A100-40_us-central1-a";
    QTest::newRow("0xFF in a label")
        << QByteArray(",Timestamp,A100-40_r1-a\n0,t\xFF,1\n") << "line 2"
        << QByteArray("\"0,t\xFF,1\"") << "UTF-8 text without control characters";
    QTest::newRow("a NUL in the header")
        << QByteArray(",Timestamp,A100-40_r1-a") + '\0' + "\n0,t,1\n"
        << "line 1" << QByteArray("\",Timestamp,A100-40_r1-a") + '\0' + "\""
        << "UTF-8 text without control characters";
    QTest::newRow("CR line ends (one line with CRs inside)")
        << QByteArray(",Timestamp,A100-40_r1-a\r0,t,1\r") << "line 1"
        << QByteArray("\",Timestamp,A100-40_r1-a\r0,t,1\"")
        << "UTF-8 text without control characters";
  }
  void traceTextRejects() {
    QFETCH(QByteArray, text);
    QFETCH(QString, field);
    QFETCH(QByteArray, value);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = writeText(dir, "trace.csv", text.toStdString());
    try {
      loadTrace(path, cat_);
    } catch (const InputError& e) {
      QCOMPARE(QString::fromStdString(e.field()), QString::fromStdString(path + ": ") + field);
      QCOMPARE(QByteArray::fromStdString(e.value()), value);
      QCOMPARE(QString::fromStdString(e.expected()), expected);
      QVERIFY2(validUtf8(e.what()) && std::string(e.what()).find('\n') == std::string::npos,
               e.what());
      return;
    }
    QFAIL("no InputError thrown");
  }

  // SAILOR's cluster/quotas.json: a count beyond the pool bound is named, never wrapped to an
  // int (4294967296 used to read as 0 GPUs); a GPU type's entry must be an object of counts.
  void quotasRejects_data() {
    QTest::addColumn<QByteArray>("quotas");
    QTest::addColumn<QString>("field");  // after "<dir>/cluster/quotas.json"
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("expected");
    const QString count = "an integer GPU count from 0 to 1000000";
    QTest::newRow("2^32") << QByteArray(R"({"A100-40": {"us-central1-a": 4294967296}})")
                          << ": A100-40.us-central1-a"
                          << "4294967296" << count;
    QTest::newRow("2^31") << QByteArray(R"({"A100-40": {"us-central1-a": 2147483648}})")
                          << ": A100-40.us-central1-a"
                          << "2147483648" << count;
    QTest::newRow("2^64 - 1") << QByteArray(
                                     R"({"A100-40": {"us-central1-a": 18446744073709551615}})")
                              << ": A100-40.us-central1-a"
                              << "18446744073709551615" << count;
    QTest::newRow("above the bound")
        << QByteArray(R"({"A100-40": {"us-central1-a": 1000001}})") << ": A100-40.us-central1-a"
        << "1000001" << count;
    QTest::newRow("negative") << QByteArray(R"({"A100-40": {"us-central1-a": -1}})")
                              << ": A100-40.us-central1-a"
                              << "-1" << count;
    QTest::newRow("a fraction") << QByteArray(R"({"A100-40": {"us-central1-a": 1.5}})")
                                << ": A100-40.us-central1-a"
                                << "1.5" << count;
    QTest::newRow("a number for a GPU type's zones")
        << QByteArray(R"({"A100-40": 8})") << ": A100-40"
        << "8"
        << "a JSON object";
    QTest::newRow("an array for the file") << QByteArray(R"([1])") << ""
                                           << "[1]"
                                           << "a JSON object";
  }
  void quotasRejects() {
    QFETCH(QByteArray, quotas);
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    writeText(dir, "profiles/simulator_profiles.json", "{}");
    writeText(dir, "profiles/llm_info.json", "{}");
    const std::string file = writeText(dir, "cluster/quotas.json", quotas.toStdString());
    try {
      SailorReference::load(dir.path().toStdString(), cat_);
    } catch (const InputError& e) {
      QCOMPARE(QString::fromStdString(e.field()), QString::fromStdString(file) + field);
      QCOMPARE(QString::fromStdString(e.value()), value);
      QCOMPARE(QString::fromStdString(e.expected()), expected);
      return;
    }
    QFAIL("no InputError thrown");
  }

  void quotasAcceptTheBound() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    writeText(dir, "profiles/simulator_profiles.json", "{}");
    writeText(dir, "profiles/llm_info.json", "{}");
    writeText(dir, "cluster/quotas.json",
              R"({"A100-40": {"us-central1-a": 1000000, "us-central1-b": 0}})");
    const SailorReference ref = SailorReference::load(dir.path().toStdString(), cat_);
    QCOMPARE(ref.quotas.at({"A100-40", "us-central1-a"}), 1000000);
    QCOMPARE(ref.quotas.at({"A100-40", "us-central1-b"}), 0);
  }

  // Measured figures: a relative error divides by them, so a denormal one (predicted / 5e-324
  // is inf) or one no run could record is refused; 0 still means "not measured".
  void measuredPointRejects_data() {
    QTest::addColumn<QByteArray>("points");
    QTest::addColumn<QString>("field");  // after "<path>: points[0]"
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("expected");
    const QString seconds = "seconds from 1e-06 to 1e+07, or 0 (not measured)";
    const QString bytes = "bytes from 1e+06 (1 MB) to 1e+15 (1 PB), or 0 (not measured)";
    auto measured = [](const char* key, double v) {
      return QByteArray::fromStdString(pointsWith([=](json& p) { p["measured"][key] = v; }));
    };
    QTest::newRow("iteration 5e-324 s")
        << measured("iteration_time_s", 5e-324) << ".measured.iteration_time_s"
        << "5e-324" << seconds;
    QTest::newRow("iteration 2.2e-308 s (smallest normal)")
        << measured("iteration_time_s", 2.2250738585072014e-308) << ".measured.iteration_time_s"
        << "2.2250738585072014e-308" << seconds;
    QTest::newRow("iteration 1e8 s")
        << measured("iteration_time_s", 1e8) << ".measured.iteration_time_s"
        << "100000000.0" << seconds;
    QTest::newRow("peak 4.9e-324 bytes")
        << measured("peak_memory_bytes", 4.9e-324) << ".measured.peak_memory_bytes"
        << "5e-324" << bytes;
    QTest::newRow("peak 1e18 bytes")
        << measured("peak_memory_bytes", 1e18) << ".measured.peak_memory_bytes"
        << "1e+18" << bytes;
    QTest::newRow("replicas summing past an int")
        << QByteArray::fromStdString(pointsWith([](json& p) {
             auto& reps = p["replicas_per_stage"][0];
             reps[0]["tp"] = 1000000;
             reps[1]["tp"] = 2147483647;
           }))
        << ".replicas_per_stage[0][1].tp"
        << "2147483647"
        << "at most 1000000 GPUs of A100-40 in us-central1-a over all replicas";
  }
  void measuredPointRejects() {
    QFETCH(QByteArray, points);
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = writeText(dir, "points.json", points.toStdString());
    try {
      loadMeasuredPoints(path, cat_);
    } catch (const InputError& e) {
      QCOMPARE(QString::fromStdString(e.field()),
               QString::fromStdString(path + ": points[0]") + field);
      QCOMPARE(QString::fromStdString(e.value()), value);
      QCOMPARE(QString::fromStdString(e.expected()), expected);
      return;
    }
    QFAIL("no InputError thrown");
  }

  // An InputError's message is one line of valid UTF-8 whatever its parts quote: line breaks,
  // control characters and invalid bytes are escaped, valid characters kept, each part bounded.
  void messagesAreOneLineOfUtf8_data() {
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QString>("shown");  // how the value reads in what()
    QTest::newRow("newline, CR, tab") << QByteArray("a\nb\rc\td") << "a\\nb\\rc\\td";
    QTest::newRow("NUL, ESC, DEL") << QByteArray("a\0b\x1b\x7f", 5) << "a\\x00b\\x1b\\x7f";
    QTest::newRow("0xFF") << QByteArray("us\xFF") << "us\\xff";
    QTest::newRow("lone continuation byte") << QByteArray("k\x80") << "k\\x80";
    QTest::newRow("truncated sequence") << QByteArray("OPT\xE2\x82") << "OPT\\xe2\\x82";
    QTest::newRow("overlong '/'") << QByteArray("\xC0\xAF") << "\\xc0\\xaf";
    QTest::newRow("encoded surrogate") << QByteArray("\xED\xA0\x80") << "\\xed\\xa0\\x80";
    QTest::newRow("above U+10FFFF") << QByteArray("\xF4\x90\x80\x80") << "\\xf4\\x90\\x80\\x80";
    QTest::newRow("valid characters kept")
        << QByteArray("\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80")
        << QString::fromUtf8("\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80");
  }
  void messagesAreOneLineOfUtf8() {
    QFETCH(QByteArray, value);
    QFETCH(QString, shown);
    const InputError e("field\n" + value.toStdString(), value.toStdString(), "x");
    const std::string what = e.what();
    QVERIFY2(validUtf8(what), what.c_str());
    QVERIFY(what.find('\n') == std::string::npos && what.find('\r') == std::string::npos);
    QCOMPARE(QString::fromUtf8(what.c_str()),
             "field\\n" + shown + ": got " + shown + ", expected x");
    QCOMPARE(e.value(), value.toStdString());  // the parts themselves are as given
  }

  void messagesAreBounded() {
    const std::string mb(1 << 20, 'k');
    const InputError e(mb, "\"" + mb + "\"", "x");
    const std::string what = e.what();
    QVERIFY2(what.size() < 2 * 1024 + 64, std::to_string(what.size()).c_str());
    QVERIFY(what.find("...: got \"kkk") != std::string::npos);
    // A cut never splits a character: 2-byte characters across the bound.
    std::string wide;
    for (int i = 0; i < 1000; ++i) wide += "\xC3\xA9";
    const std::string cut = printableLine(wide, 1023);
    QVERIFY(validUtf8(cut));
    QCOMPARE(cut.size(), size_t{1022 + 3});
  }

  // Microbatches per replica in 64 bits: 2^31 - 1 sequences on 4 replicas is one microbatch, not
  // an overflowed negative count.
  void microbatchesDoNotOverflow() {
    Plan plan;
    plan.microbatch_size = std::numeric_limits<int>::max();
    Stage st;
    st.replicas.assign(4, Replica{"A100-40", 1, "r1-a"});
    QCOMPARE(plan.microbatches(1024, st), 1);
    QCOMPARE(plan.microbatches(std::numeric_limits<int>::max(), st), 1);
    plan.microbatch_size = 1;
    QCOMPARE(plan.microbatches(std::numeric_limits<int>::max(), st), 536870912);
  }

  // A job's global batch: up to 1,000,000 sequences (2^31 - 1 made the schedule of 268 million
  // microbatches run for an hour); the bound itself is valid.
  void globalBatchBound() {
    auto job = [&](int batch) {
      return Job::fromJson(json{{"model", "OPT-350M"}, {"global_batch_size", batch}}, cat_);
    };
    QCOMPARE(job(kMaxGlobalBatchSize).global_batch_size, 1000000);
    for (int batch : {1000001, std::numeric_limits<int>::max()}) {
      try {
        job(batch);
        QFAIL("no InputError thrown");
      } catch (const InputError& e) {
        QCOMPARE(e.field(), std::string("global_batch_size"));
        QCOMPARE(e.value(), std::to_string(batch));
        QCOMPARE(e.expected(),
                 std::string("an integer from 1 to 1000000 (sequences per iteration)"));
      }
    }
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

  // `sailor run --trace`'s JSON ([{"Time": s, "GPUs": n}]): a GPU count is bounded as a pool's
  // count and a CSV trace's cell are (kMaxGpuCount), and a key other than Time and GPUs, or one
  // of them twice, is refused naming the row.
  void availabilityJsonRejects_data() {
    QTest::addColumn<QByteArray>("row");
    QTest::addColumn<QString>("needle");
    QTest::newRow("above the pool bound")
        << QByteArray(R"({"Time": 0, "GPUs": 1000001})")
        << "trace.json[0].GPUs: got 1000001, expected an integer GPU count from 0 to 1000000";
    QTest::newRow("2^31") << QByteArray(R"({"Time": 0, "GPUs": 2147483648})")
                          << "an integer GPU count from 0 to 1000000";
    QTest::newRow("unknown key") << QByteArray(R"({"Time": 0, "GPUs": 4, "Zone": "r1-b"})")
                                 << "trace.json[0].Zone: got an unknown field, expected one of: "
                                    "Time, GPUs";
    QTest::newRow("a typo") << QByteArray(R"({"Time": 0, "Gpus": 4})") << "trace.json[0].Gpus";
    QTest::newRow("GPUs twice") << QByteArray(R"({"Time": 0, "GPUs": 4, "GPUs": 2})")
                                << "got the key \"GPUs\" again";
  }
  void availabilityJsonRejects() {
    QFETCH(QByteArray, row);
    QFETCH(QString, needle);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path =
        writeText(dir, "trace.json", R"([{"Time": 0, "GPUs": 1}, )" + row.toStdString() + "]");
    const Scenario scenario =
        Scenario::fromJson(json::parse(scenarioWith(poolWith("1000000", "1")).toStdString()), cat_);
    const Plan plan = Plan::fromJson(json::parse(R"({"microbatch_size": 1, "stages": [
        {"first_layer": 0, "last_layer": 25,
         "replicas": [{"gpu_type": "A100-40", "tp": 1, "zone": "r1-a"}]}]})"));
    const QString message =
        sailor::test::inputErrorOf([&] { loadAvailabilityTrace(path, 1.0, plan, scenario, cat_); });
    // The rows are numbered from 0; the bad one is the second.
    QVERIFY2(message.contains(QString(needle).replace("[0]", "[1]")), qPrintable(message));
    // The bound itself is accepted.
    const std::string at_bound =
        writeText(dir, "bound.json", R"([{"Time": 0, "GPUs": 1}, {"Time": 1, "GPUs": 1000000}])");
    QCOMPARE(loadAvailabilityTrace(at_bound, 1.0, plan, scenario, cat_)
                 .back()
                 .gpus.at({"A100-40", "r1-a"}),
             1000000);
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

  // A catalogue extension's figures (sailor plan|simulate --catalog): rates, bandwidths, memory
  // and node sizes of a GPU type, and a model's dimensions, within the bounds of
  // sailor/model/catalog.hpp. A bus bandwidth of 5e-324 GB/s made "Iteration time inf s" with exit
  // 0; a model 2^31 wide made the simulator run for minutes on figures of 1e18 bytes.
  void catalogueFiguresAreBounded_data() {
    QTest::addColumn<QByteArray>("extension");
    QTest::addColumn<QString>("field");  // after "ext.json."
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("expected");
    const QString rate = "a rate in TFLOP/s from 1e-06 to 1e+06";
    const QString bw = "a bandwidth in GB/s from 1e-06 (1 kB/s) to 1e+05";
    auto gpu = [](const char* key, const json& v) {
      return QByteArray::fromStdString(extensionWith([&](json& g, json&) { g[key] = v; }).dump());
    };
    auto model = [](const char* key, const json& v) {
      return QByteArray::fromStdString(extensionWith([&](json&, json& m) { m[key] = v; }).dump());
    };
    QTest::newRow("bus bandwidth 5e-324") << gpu("collective_bus_bandwidth_gb_per_s", 5e-324)
                                          << "gpus[0].collective_bus_bandwidth_gb_per_s"
                                          << "5e-324" << bw;
    QTest::newRow("fp32 rate 1e308") << gpu("fp32_tflops", 1e308) << "gpus[0].fp32_tflops"
                                     << "1e+308" << rate;
    QTest::newRow("fp16 rate 5e-324") << gpu("fp16_tflops", 5e-324) << "gpus[0].fp16_tflops"
                                      << "5e-324" << rate;
    QTest::newRow("bf16 rate 2e6") << gpu("bf16_tflops", 2e6) << "gpus[0].bf16_tflops"
                                   << "2000000.0" << rate;
    QTest::newRow("fp32 rate negative") << gpu("fp32_tflops", -19.5) << "gpus[0].fp32_tflops"
                                        << "-19.5" << rate;
    QTest::newRow("memory bandwidth 1e300")
        << gpu("memory_bandwidth_gb_per_s", 1e300) << "gpus[0].memory_bandwidth_gb_per_s"
        << "1e+300" << bw;
    QTest::newRow("inter-node bandwidth 1e-9")
        << gpu("inter_node_bandwidth_gb_per_s", 1e-9) << "gpus[0].inter_node_bandwidth_gb_per_s"
        << "1e-09" << bw;
    QTest::newRow("memory 1e18 bytes") << gpu("memory_bytes", 1e18) << "gpus[0].memory_bytes"
                                       << "1e+18"
                                       << "an integer from 1 to 1000000000000000 (bytes)";
    QTest::newRow("runtime overhead 2^63 - 1 bytes")
        << gpu("runtime_overhead_bytes", std::numeric_limits<std::int64_t>::max())
        << "gpus[0].runtime_overhead_bytes"
        << "9223372036854775807"
        << "an integer from 0 to 1000000000000000 (bytes)";
    QTest::newRow("gpus per node 2e6") << gpu("gpus_per_node", 2000000) << "gpus[0].gpus_per_node"
                                       << "2000000"
                                       << "an integer from 1 to 1000000 (GPUs)";
    QTest::newRow("slowdown 1e308")
        << gpu("shared_compute_slowdown", json::array({1, 1e308}))
        << "gpus[0].shared_compute_slowdown[1]"
        << "1e+308"
        << "a finite slowdown from 1 to 1e+06 (k ranks at once over one)";
    QTest::newRow("NCCL channels 1e6") << gpu("nccl_channels", 1000000) << "gpus[0].nccl_channels"
                                       << "1000000"
                                       << "an integer from 0 to 1024 (channels)";
    QTest::newRow("hidden 2^31 - 1") << model("hidden_size", 2147483647) << "models[0].hidden_size"
                                     << "2147483647"
                                     << "an integer from 1 to 1000000 (elements)";
    QTest::newRow("layers 2^31 - 1") << model("layers", 2147483647) << "models[0].layers"
                                     << "2147483647"
                                     << "an integer from 1 to 1000 (transformer blocks)";
    QTest::newRow("layers 1001") << model("layers", 1001) << "models[0].layers"
                                 << "1001"
                                 << "an integer from 1 to 1000 (transformer blocks)";
    QTest::newRow("MLP 2e6") << model("ffn_hidden_size", 2000000) << "models[0].ffn_hidden_size"
                             << "2000000"
                             << "an integer from 1 to 1000000 (elements)";
    QTest::newRow("vocabulary 1e8") << model("vocab_size", 100000000) << "models[0].vocab_size"
                                    << "100000000"
                                    << "an integer from 1 to 10000000 (tokens)";
    QTest::newRow("sequence 2^31 - 1")
        << model("sequence_length", 2147483647) << "models[0].sequence_length"
        << "2147483647"
        << "an integer from 1 to 10000000 (tokens)";
    QTest::newRow("positions 2e7")
        << model("max_position_embeddings", 20000000) << "models[0].max_position_embeddings"
        << "20000000"
        << "an integer from 1 to 10000000 (positions)";
    QTest::newRow("heads 1.5") << model("heads", 1.5) << "models[0].heads"
                               << "1.5"
                               << "an integer from 1 to 1000000 (attention heads)";
  }
  void catalogueFiguresAreBounded() {
    QFETCH(QByteArray, extension);
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, expected);
    Catalog cat = cat_;
    try {
      cat.extendFromJson(json::parse(extension.toStdString()), "ext.json");
    } catch (const InputError& e) {
      QCOMPARE(QString::fromStdString(e.field()), "ext.json." + field);
      QCOMPARE(QString::fromStdString(e.value()), value);
      QCOMPARE(QString::fromStdString(e.expected()), expected);
      return;
    }
    QFAIL("no InputError thrown");
  }

  // The bounds themselves are valid, and a job of a rotary model may be as long as the bound.
  void catalogueAcceptsTheBounds() {
    Catalog cat = cat_;
    cat.extendFromJson(extensionWith([](json& g, json& m) {
                         g["fp32_tflops"] = kMinGpuTflops;
                         g["fp16_tflops"] = kMaxGpuTflops;
                         g["memory_bandwidth_gb_per_s"] = kMaxGpuGbPerS;
                         g["inter_node_bandwidth_gb_per_s"] = kMinGpuGbPerS;
                         g["memory_bytes"] = kMaxGpuMemoryBytes;
                         g["gpus_per_node"] = kMaxGpusPerNode;
                         g["nccl_channels"] = kMaxNcclChannels;
                         m["layers"] = kMaxModelLayers;
                         m["hidden_size"] = kMaxModelWidth;
                         m["heads"] = 1;
                         m["vocab_size"] = kMaxVocabularySize;
                         m["sequence_length"] = kMaxSequenceLength;
                       }),
                       "ext.json");
    QCOMPARE(cat.gpu("X1", "").fp32_tflops, 1e-6);
    QCOMPARE(cat.model("M1", "").layers, 1000);
    const Job job = Job::fromJson(
        json{{"model", "M1"}, {"global_batch_size", 8}, {"sequence_length", kMaxSequenceLength}},
        cat);
    QCOMPARE(job.sequence_length, 10000000);
    try {
      Job::fromJson(json{{"model", "M1"},
                         {"global_batch_size", 8},
                         {"sequence_length", kMaxSequenceLength + 1}},
                    cat);
      QFAIL("no InputError thrown");
    } catch (const InputError& e) {
      QCOMPARE(e.field(), std::string("sequence_length"));
      QCOMPARE(e.expected(), std::string("an integer from 1 to 10000000 (tokens per sequence)"));
    }
  }

  // SAILOR's files (sailor validate|plan --reference): every figure read is bounded as this
  // project's profile and a scenario are, and the error names the file, the field (its JSON
  // path), the value and the range. params_floats 1e18 made `sailor validate` run for ever; a
  // forward time of 1e308 printed "inf s +inf%" with exit 0, and -0.5 s predicted a 1.93 s run
  // at 34 ms.
  void referenceFiguresAreBounded_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("key");    // JSON path in the file, '/'-separated
    QTest::addColumn<double>("number");  // the value written there
    QTest::addColumn<QString>("field");  // after "<dir>/<file>: "
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("expected");
    const QString prof = "profiles/simulator_profiles.json";
    const QString info = "profiles/llm_info.json";
    const QString seconds = "seconds from 0 to 3600 (fwd_s, bwd_s, update_s)";
    const QString floats = "a count of floats from 0 to 1e+12";
    QTest::newRow("forward 1e308 s")
        << prof << "OPT-350/A100-40/1/1/0/0" << 1e308 << "OPT-350.A100-40.1.1.0[0]"
        << "1e+308" << seconds;
    QTest::newRow("backward -0.5 s")
        << prof << "OPT-350/A100-40/1/1/0/1" << -0.5 << "OPT-350.A100-40.1.1.0[1]"
        << "-0.5" << seconds;
    QTest::newRow("update 1e9 s") << prof << "OPT-350/A100-40/1/1/0/2" << 1e9
                                  << "OPT-350.A100-40.1.1.0[2]"
                                  << "1000000000.0" << seconds;
    QTest::newRow("params_floats 1e18")
        << info << "OPT-350/1/0/params_floats" << 1e18 << "OPT-350.1.0.params_floats"
        << "1e+18" << floats;
    QTest::newRow("params_floats 1e308")
        << info << "OPT-350/1/0/params_floats" << 1e308 << "OPT-350.1.0.params_floats"
        << "1e+308" << floats;
    QTest::newRow("act_mem_floats -1")
        << info << "OPT-350/1/0/act_mem_floats" << -1.0 << "OPT-350.1.0.act_mem_floats"
        << "-1.0" << floats;
    QTest::newRow("act_output_floats 2e12")
        << info << "OPT-350/1/0/act_output_floats" << 2e12 << "OPT-350.1.0.act_output_floats"
        << "2000000000000.0" << floats;
    QTest::newRow("intra-node fit cap 5e-324 B/s")
        << "network/intra_node_bandwidths.json"
        << "A100-40/2/1" << 5e-324 << "A100-40.2[1]"
        << "5e-324"
        << "a bandwidth in bytes/s from 1000 (1 kB/s) to 1e+14";
    QTest::newRow("intra-node fit coefficient 1e300")
        << "network/intra_node_bandwidths.json"
        << "A100-40/2/0/1" << 1e300 << "A100-40.2[0][1]"
        << "1e+300"
        << "a coefficient in GB/s from -1e+05 to 1e+05";
    QTest::newRow("egress 1e9 USD/GB")
        << "network/egress_cost_usd_per_gb.json"
        << "us-central1-a/us-central1-b" << 1e9 << "us-central1-a.us-central1-b"
        << "1000000000.0"
        << "a price in USD per GB from 0 to 1000";
    QTest::newRow("gpus per node 2e6")
        << "cluster/basic_cluster_config.json"
        << "A100-40/gpus_per_node" << 2e6 << "A100-40.gpus_per_node"
        << "2000000"
        << "an integer from 1 to 1000000 (GPUs per node, as a pool's)";
  }
  void referenceFiguresAreBounded() {
    QFETCH(QString, file);
    QFETCH(QString, key);
    QFETCH(double, number);
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    writeReference(dir, [&](std::map<std::string, json>& files) {
      json* at = &files.at(file.toStdString());
      for (const QString& part : key.split('/'))
        at = at->is_array() ? &(*at)[part.toUInt()] : &(*at)[part.toStdString()];
      *at = number;
    });
    try {
      SailorReference::load(dir.path().toStdString(), cat_);
    } catch (const InputError& e) {
      QCOMPARE(QString::fromStdString(e.field()), dir.filePath(file) + ": " + field);
      QCOMPARE(QString::fromStdString(e.value()), value);
      QCOMPARE(QString::fromStdString(e.expected()), expected);
      return;
    }
    QFAIL("no InputError thrown");
  }

  // Every figure a prediction holds is finite, or simulate() refuses it naming the figure; the
  // planner never offers a plan with such figures. Defence in depth behind the input bounds: a
  // source given through the API is not read from a file.
  void printedFiguresAreFinite() {
    Prediction p;
    p.iteration_s = 2.0;
    p.stages.resize(2);
    p.stages[1].dp_sync_s = kInf;
    try {
      requireFiniteFigures(p);
      QFAIL("no InputError thrown");
    } catch (const InputError& e) {
      QCOMPARE(e.field(), std::string("prediction.stages[1].dp_sync_s"));
      QCOMPARE(e.value(), std::string("inf"));
    }
    p.stages[1].dp_sync_s = 0;
    p.usd_per_hour = kNan;
    QVERIFY(!sailor::test::inputErrorOf([&] { requireFiniteFigures(p); }).isEmpty());
    p.usd_per_hour = 1;
    requireFiniteFigures(p);

    // 1e308 s per layer: the iteration's sum overflows.
    const Scenario sc = Scenario::fromJson(
        json_util::readFile(sailor::test::resources() + "/scenarios/default.json"), cat_);
    const Job job =
        Job::fromJson(json_util::readFile(sailor::test::resources() + "/jobs/default.json"), cat_);
    const Plan plan =
        Plan::fromJson(json_util::readFile(sailor::test::resources() + "/plans/default.json"));
    ProfileSet profiles;
    profiles.add(std::make_shared<OverflowingProfile>(cat_));
    try {
      const Prediction pred = simulate(plan, sc, job, cat_, profiles);
      QFAIL(qPrintable("no InputError thrown; iteration " + QString::number(pred.iteration_s)));
    } catch (const InputError& e) {
      QVERIFY2(e.field().rfind("prediction.", 0) == 0, e.what());
      QVERIFY2(e.expected().find("an input figure is out of range") != std::string::npos, e.what());
    }
    // The planner skips (or refuses) such plans; it never returns one with figures not finite.
    PlannerOptions options;
    options.max_gpus = 8;
    try {
      const PlanResult r = planSearch(sc, job, cat_, profiles, options);
      for (const PlannedPlan& pp : r.best) requireFiniteFigures(pp.prediction);
      for (const PlannedPlan& pp : r.pareto) requireFiniteFigures(pp.prediction);
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("prediction.") != std::string::npos, e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestBounds)
#include "test_bounds.moc"
