// Scenario, Job and Plan as JSON: round trips (fromJson(toJson(x)) equals x field by field), one
// rejection row per invalid input (the InputError names the field path and the expectation, as
// docs/formats.md promises), Plan::validate against model, catalogue and scenario, and the JSON
// file helpers (readFile, writeFileAtomically).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <QDir>
#include <QObject>
#include <QTemporaryDir>
#include <QTest>

#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/model/reference.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/runs/token_data.hpp"
#include "sailor/scenario/availability.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/scenario/session.hpp"
#include "sailor/simulation/simulator.hpp"
#include "test_support.hpp"

using namespace sailor;
using nlohmann::json;
using sailor::test::inputErrorOf;

namespace {

bool sameLink(const LinkModel& a, const LinkModel& b) {
  return a.kind == b.kind && a.latency_s == b.latency_s && a.bytes_per_s == b.bytes_per_s &&
         a.coefficients == b.coefficients && a.max_bytes_per_s == b.max_bytes_per_s;
}

// Field-by-field comparison; returns the first difference, or an empty string.
std::string scenarioDiff(const Scenario& a, const Scenario& b) {
  if (a.name != b.name) return "name";
  if (a.description != b.description) return "description";
  if (a.regions.size() != b.regions.size()) return "regions.size";
  for (size_t i = 0; i < a.regions.size(); ++i) {
    const auto &x = a.regions[i], &y = b.regions[i];
    if (x.name != y.name || x.continent != y.continent || x.zones != y.zones)
      return "regions[" + std::to_string(i) + "]";
  }
  if (a.pools.size() != b.pools.size()) return "pools.size";
  for (size_t i = 0; i < a.pools.size(); ++i) {
    const auto &x = a.pools[i], &y = b.pools[i];
    if (x.zone != y.zone || x.gpu_type != y.gpu_type || x.count != y.count ||
        x.usd_per_gpu_hour != y.usd_per_gpu_hour || x.spot != y.spot ||
        x.gpus_per_node != y.gpus_per_node)
      return "pools[" + std::to_string(i) + "]";
  }
  if (a.default_links.size() != b.default_links.size()) return "default_links.size";
  for (const auto& [r, m] : a.default_links)
    if (!b.default_links.count(r) || !sameLink(m, b.default_links.at(r)))
      return std::string("default_links.") + relationName(r);
  if (a.links.size() != b.links.size()) return "links.size";
  for (size_t i = 0; i < a.links.size(); ++i) {
    const auto &x = a.links[i], &y = b.links[i];
    if (x.from_zone != y.from_zone || x.to_zone != y.to_zone || x.from_gpu != y.from_gpu ||
        x.to_gpu != y.to_gpu || x.gpus != y.gpus || !sameLink(x.model, y.model))
      return "links[" + std::to_string(i) + "]";
  }
  if (a.intra_node_links.size() != b.intra_node_links.size()) return "intra_node_links.size";
  for (const auto& [g, m] : a.intra_node_links)
    if (!b.intra_node_links.count(g) || !sameLink(m, b.intra_node_links.at(g)))
      return "intra_node_links." + g;
  if (a.default_egress_usd_per_gb != b.default_egress_usd_per_gb)
    return "default_egress_usd_per_gb";
  if (a.egress_usd_per_gb != b.egress_usd_per_gb) return "egress_usd_per_gb";
  return "";
}

// A scenario using every optional part of the format: continents, spot pools, gpus_per_node,
// default links of both kinds, qualified sailor_fit links, egress defaults and pairs.
constexpr const char* kRichScenario = R"({
  "name": "rich",
  "description": "every optional field",
  "regions": [
    {"name": "us-central1", "continent": "north-america", "zones": ["us-central1-a", "us-central1-b"]},
    {"name": "europe-west4", "continent": "europe", "zones": ["europe-west4-a"]}
  ],
  "pools": [
    {"zone": "us-central1-a", "gpu_type": "A100-40", "count": 16, "usd_per_gpu_hour": 3.5, "spot": false, "gpus_per_node": 4},
    {"zone": "us-central1-b", "gpu_type": "V100-16", "count": 8, "usd_per_gpu_hour": 0.88, "spot": true},
    {"zone": "europe-west4-a", "gpu_type": "H100-80", "count": 0, "usd_per_gpu_hour": 0}
  ],
  "network": {
    "defaults": {
      "same_zone": {"latency_s": 1e-5, "bandwidth_gb_per_s": 6.0},
      "same_region": {"kind": "sailor_fit", "coefficients": [-0.018, 0.307, 2.357], "max_bytes_per_s": 3.7e9},
      "cross_continent": {"kind": "latency_bandwidth", "latency_s": 0.09, "bandwidth_gb_per_s": 0.25}
    },
    "links": [
      {"from_zone": "us-central1-a", "to_zone": "us-central1-b", "from_gpu": "A100-40", "to_gpu": "V100-16", "gpus": 4,
       "model": {"kind": "sailor_fit", "coefficients": [-0.018, 0.307, 2.357], "max_bytes_per_s": 3.7e9}},
      {"from_zone": "us-central1-a", "to_zone": "us-central1-b", "gpus": 1,
       "model": {"kind": "sailor_fit", "coefficients": [0, 0.5, 1.25], "max_bytes_per_s": 2e9}},
      {"from_zone": "us-central1-b", "to_zone": "europe-west4-a",
       "model": {"kind": "latency_bandwidth", "latency_s": 0.07, "bandwidth_gb_per_s": 0.4}},
      {"from_zone": "us-central1-a", "to_zone": "us-central1-b", "from_gpu": "H100-80", "to_gpu": "H100-80",
       "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 8}},
      {"from_zone": "us-central1-b", "to_zone": "us-central1-a", "from_gpu": "A100-40", "to_gpu": "A100-40",
       "model": {"kind": "latency_bandwidth", "latency_s": 0.001, "bandwidth_gb_per_s": 2}}
    ],
    "intra_node": [
      {"gpu_type": "A100-40", "model": {"kind": "sailor_fit", "coefficients": [0.8, 16.4, 33.0], "max_bytes_per_s": 2.4e11}}
    ]
  },
  "egress_usd_per_gb": {
    "defaults": {"same_region": 0.011, "cross_continent": 0.12},
    "pairs": [
      {"from_zone": "us-central1-a", "to_zone": "europe-west4-a", "usd_per_gb": 0.05},
      {"from_zone": "europe-west4-a", "to_zone": "us-central1-a", "usd_per_gb": 0.085}
    ]
  }
})";

// A minimal valid scenario, the base every rejection row changes one thing of.
constexpr const char* kMinimalRegions = R"("regions": [{"name": "r1", "zones": ["r1-a", "r1-b"]}])";

QByteArray scenarioWith(const QByteArray& rest) {
  return "{" + QByteArray(kMinimalRegions) + (rest.isEmpty() ? "" : ", " + rest) + "}";
}

}  // namespace

class TestModelJson : public QObject {
  Q_OBJECT

 private:
  Catalog cat_;
  Scenario default_scenario_;
  Job default_job_;

  static json parse(const QByteArray& text) { return json::parse(text.toStdString()); }

 private slots:
  void initTestCase() {
    try {
      cat_ = Catalog::load(sailor::test::resources());
      default_scenario_ = Scenario::fromJson(
          json_util::readFile(sailor::test::resources() + "/scenarios/default.json"), cat_);
      default_job_ = Job::fromJson(
          json_util::readFile(sailor::test::resources() + "/jobs/default.json"), cat_);
    } catch (const InputError& e) {
      QFAIL(e.what());
    }
  }

  // ------------------------------------------------------------------ round trips

  void scenarioRoundTrip_data() {
    QTest::addColumn<QByteArray>("text");
    std::ifstream in(sailor::test::resources() + "/scenarios/default.json");
    std::stringstream ss;
    ss << in.rdbuf();
    QTest::newRow("resources/scenarios/default.json") << QByteArray::fromStdString(ss.str());
    QTest::newRow("sailor_fit links, gpus qualifiers, egress pairs") << QByteArray(kRichScenario);
  }
  void scenarioRoundTrip() {
    QFETCH(QByteArray, text);
    const Scenario s = Scenario::fromJson(parse(text), cat_);
    const json once = s.toJson();
    const Scenario back = Scenario::fromJson(once, cat_);
    const std::string diff = scenarioDiff(s, back);
    QVERIFY2(diff.empty(), qPrintable(QString::fromStdString("round trip changed " + diff)));
    QCOMPARE(QString::fromStdString(back.toJson().dump()), QString::fromStdString(once.dump()));
    // Survives text too (what the studio writes and reads back).
    const Scenario reread = Scenario::fromJson(json::parse(once.dump(2)), cat_);
    QVERIFY(scenarioDiff(s, reread).empty());
  }

  void richScenarioContents() {
    // The round trip above could pass on an empty scenario; check the rich one was read fully.
    const Scenario s = Scenario::fromJson(parse(kRichScenario), cat_);
    QCOMPARE(s.links.size(), size_t{5});
    QCOMPARE(s.links[0].gpus.value_or(-1), 4);
    QCOMPARE(QString::fromStdString(s.links[0].from_gpu.value_or("")), QString("A100-40"));
    QVERIFY(s.links[0].model.kind == LinkModel::Kind::SailorFit);
    QCOMPARE(s.links[0].model.coefficients[1], 0.307);
    QCOMPARE(s.pools[0].gpus_per_node.value_or(-1), 4);
    QVERIFY(!s.pools[1].gpus_per_node.has_value());
    QVERIFY(s.pools[1].spot);
    QVERIFY(s.default_links.at(Relation::SameRegion).kind == LinkModel::Kind::SailorFit);
    // Unspecified defaults keep the built-in values (same continent: 1 GB/s, 20 ms).
    QCOMPARE(s.default_links.at(Relation::SameContinent).bytes_per_s, 1e9);
    QCOMPARE(s.default_links.at(Relation::SameContinent).latency_s, 0.02);
    QCOMPARE(s.egressUsdPerGb("us-central1-a", "europe-west4-a"), 0.05);   // pair
    QCOMPARE(s.egressUsdPerGb("europe-west4-a", "us-central1-a"), 0.085);  // pairs are directed
    QCOMPARE(s.egressUsdPerGb("us-central1-b", "europe-west4-a"), 0.12);  // default cross_continent
    QCOMPARE(s.egressUsdPerGb("us-central1-a", "us-central1-b"), 0.011);  // default same_region
    QCOMPARE(s.egressUsdPerGb("us-central1-a", "us-central1-a"), 0.0);    // built-in same_zone
    QCOMPARE(s.gpusPerNode("us-central1-a", "A100-40", cat_), 4);         // the pool's value
    QCOMPARE(s.gpusPerNode("us-central1-b", "V100-16", cat_),
             cat_.gpu("V100-16", "t").gpus_per_node);
    // Link lookup (Scenario::link): an entry for both GPU types first, in either direction ...
    QCOMPARE(QString::fromStdString(
                 s.link({"us-central1-a", "A100-40", "us-central1-b", "V100-16", 4}).source),
             QString("link us-central1-a -> us-central1-b (A100-40 -> V100-16) x4"));
    QCOMPARE(QString::fromStdString(
                 s.link({"us-central1-b", "V100-16", "us-central1-a", "A100-40", 4}).source),
             QString("link us-central1-a -> us-central1-b (A100-40 -> V100-16) x4"));
    // ... then, between two types without one, the slower of each type's own link: H100-80's
    // 8 GB/s and A100-40's 1 ms + 2 GB/s. 1e9 B: max(1e9 / 8e9, 0.001 + 1e9 / 2e9) = 0.501 s.
    const ResolvedLink mixed = s.link({"us-central1-a", "H100-80", "us-central1-b", "A100-40", 1});
    QVERIFY(mixed.slower.has_value());
    QCOMPARE(mixed.transferSeconds(1e9, 1), 0.501);
    QCOMPARE(mixed.bandwidthBytesPerS(1e9), 1e9 / 0.501);
    QVERIFY2(QString::fromStdString(mixed.source).startsWith("slower of "), mixed.source.c_str());
    // ... then an entry for the zones alone, ...
    QCOMPARE(QString::fromStdString(
                 s.link({"us-central1-a", "V100-16", "us-central1-b", "V100-16", 1}).source),
             QString("link us-central1-a -> us-central1-b x1"));
    // Inside a node: the scenario's entry for the GPU type, else the catalogue's injection
    // bandwidth (H100-80: 450 GB/s) after 10 us.
    QCOMPARE(QString::fromStdString(s.intraNodeLink("A100-40", cat_).source),
             QString("intra-node A100-40"));
    QVERIFY(s.intraNodeLink("A100-40", cat_).model.kind == LinkModel::Kind::SailorFit);
    const ResolvedLink h100 = s.intraNodeLink("H100-80", cat_);
    QCOMPARE(QString::fromStdString(h100.source), QString("catalogue intra-node H100-80"));
    QCOMPARE(h100.model.seconds(450e9), 1e-5 + 1.0);
    // ... else the default of the zones' relation.
    QCOMPARE(QString::fromStdString(
                 s.link({"us-central1-a", "A100-40", "europe-west4-a", "H100-80", 1}).source),
             QString("default cross_continent"));
  }

  // LinkIndex answers every query as Scenario::link's scan does: each rule, both directions,
  // GPU counts with and without an entry of their own, zones without entries.
  void linkIndexAnswersAsTheScan() {
    const Scenario s = Scenario::fromJson(parse(kRichScenario), cat_);
    const LinkIndex index(s);
    LinkResolver resolver(s, &index);
    std::vector<std::string> zones;
    for (const auto& r : s.regions) zones.insert(zones.end(), r.zones.begin(), r.zones.end());
    QVERIFY(zones.size() >= 3);
    int compared = 0;
    for (const auto& a : zones)
      for (const auto& b : zones)
        for (const char* ga : {"A100-40", "V100-16", "H100-80"})
          for (const char* gb : {"A100-40", "V100-16", "H100-80"})
            for (int g = 1; g <= 8; ++g) {
              const LinkQuery q{a, ga, b, gb, g};
              const ResolvedLink want = s.link(q);
              for (const ResolvedLink& got : {index.link(q), resolver(q)}) {
                QCOMPARE(QString::fromStdString(got.source), QString::fromStdString(want.source));
                QCOMPARE(got.slower.has_value(), want.slower.has_value());
                QCOMPARE(got.transferSeconds(1e8, g), want.transferSeconds(1e8, g));
              }
              ++compared;
            }
    QVERIFY(compared > 0);
    // An index of another scenario is refused, not silently used.
    const Scenario other = s;
    QVERIFY_THROWS_EXCEPTION(std::logic_error, LinkResolver(other, &index));
  }

  void jobRoundTrip_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("model");  // the catalogue name the job holds
    std::ifstream in(sailor::test::resources() + "/jobs/default.json");
    std::stringstream ss;
    ss << in.rdbuf();
    QTest::newRow("resources/jobs/default.json")
        << QByteArray::fromStdString(ss.str()) << "OPT-350M";
    QTest::newRow("alias, bf16, sgd, default sequence")
        << QByteArray(
               R"({"model": "OPT-350", "global_batch_size": 64, "precision": "bf16", "optimizer": "sgd"})")
        << "OPT-350M";
    QTest::newRow("rotary model beyond its pre-training context")
        << QByteArray(
               R"({"model": "LLAMA-3-8", "global_batch_size": 8, "sequence_length": 16384, "precision": "fp16", "optimizer": "AdamW"})")
        << "Llama-3-8B";
    QTest::newRow("full recomputation")
        << QByteArray(
               R"({"model": "Llama-3-70B", "global_batch_size": 512, "precision": "bf16", "recompute": "full"})")
        << "Llama-3-70B";
  }
  void jobRoundTrip() {
    QFETCH(QByteArray, text);
    QFETCH(QString, model);
    const Job j = Job::fromJson(parse(text), cat_);
    QCOMPARE(QString::fromStdString(j.model), model);
    const Job back = Job::fromJson(j.toJson(), cat_);
    QCOMPARE(QString::fromStdString(back.model), QString::fromStdString(j.model));
    QCOMPARE(back.global_batch_size, j.global_batch_size);
    QCOMPARE(back.sequence_length, j.sequence_length);
    QVERIFY(back.precision == j.precision);
    QVERIFY(back.optimizer == j.optimizer);
    QVERIFY(back.recompute == j.recompute);
    QVERIFY(j.sequence_length > 0);
  }

  void jobFields() {
    const Job j = Job::fromJson(
        parse(
            R"({"model": "OPT-350", "global_batch_size": 64, "precision": "bf16", "optimizer": "sgd"})"),
        cat_);
    QCOMPARE(j.sequence_length, 2048);  // the model's default
    QVERIFY(j.precision == Precision::Bf16);
    QVERIFY(j.optimizer == Optimizer::Sgd);
    QCOMPARE(j.activationBytesPerElement(), 2);
    // NOTE [Model-state bytes] in job.cpp: bf16 + SGD = 2 + 4 + 4 + 4.
    QCOMPARE(j.stateBytesPerParameter(), 14.0);
    QCOMPARE(default_job_.stateBytesPerParameter(), 16.0);  // fp32 + Adam: 4 + 4 + 4 + 4
    QCOMPARE(default_job_.activationBytesPerElement(), 4);
    // Recomputation: none unless asked; written out only when it is not the default, so job
    // files and recorded runs from before it existed read and write the same.
    QVERIFY(j.recompute == Recompute::None);
    QVERIFY(!j.toJson().contains("recompute"));
    const Job r = Job::fromJson(
        parse(R"({"model": "OPT-350", "global_batch_size": 64, "recompute": "full"})"), cat_);
    QVERIFY(r.recompute == Recompute::Full);
    QVERIFY(r.toJson().at("recompute") == "full");
  }

  // A pool's price_date (a catalogue's) and the stale-price flags: calendar arithmetic checked
  // against dates worked by hand (leap years of the Gregorian calendar), the date read back as
  // written, and a date that is not one refused naming the pool.
  void priceDatesAndStalePrices() {
    QCOMPARE(daysBetween("2026-12-06", "2026-12-07"), 1L);
    QCOMPARE(daysBetween("2024-02-28", "2024-03-01"), 2L);  // 2024 is a leap year
    QCOMPARE(daysBetween("2023-02-28", "2023-03-01"), 1L);
    QCOMPARE(daysBetween("1970-01-01", "2000-01-01"), 10957L);  // 30 x 365 + 7 leap days
    QCOMPARE(daysBetween("2026-12-07", "2026-01-07"), -334L);
    QVERIFY(isIsoDate("2000-02-29") && isIsoDate("2024-02-29"));
    for (const char* bad : {"2100-02-29", "2026-02-30", "2026-13-01", "2026-1-01", "26-01-01",
                            "2026-01-00", "2026-01-01T00:00:00Z", ""})
      QVERIFY2(!isIsoDate(bad), bad);
    json j = default_scenario_.toJson();
    j["pools"][0]["price_date"] = "2026-01-05";
    j["pools"][1]["price_date"] = "2026-12-01";
    const Scenario s = Scenario::fromJson(j, cat_);
    QCOMPARE(*s.pools[0].price_date, std::string("2026-01-05"));
    QVERIFY(Scenario::fromJson(s.toJson(), cat_).pools[1].price_date == s.pools[1].price_date);
    const std::vector<std::string> notes = stalePriceNotes(s, "2026-12-07", 90);
    QCOMPARE(notes.size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(notes[0]),
             QString("pool %1 %2: price dated 2026-01-05, 336 days old (more than 90)")
                 .arg(QString::fromStdString(s.pools[0].zone),
                      QString::fromStdString(s.pools[0].gpu_type)));
    QVERIFY(stalePriceNotes(s, "2026-12-07", 336).empty());
    j["pools"][0]["price_date"] = "2026-02-30";
    const QString msg = inputErrorOf([&] { (void)Scenario::fromJson(j, cat_); });
    QVERIFY2(msg.startsWith("pools[0].price_date: got \"2026-02-30\""), qPrintable(msg));
  }

  // Owned pools: the amortised price worked by hand (30,000 USD over 4 years of 8,766 hours is
  // 0.85558 USD per GPU-hour, plus 0.3 running), written back as read; owned pools are never
  // spot, an amortisation needs an owned pool, a typed price must agree with the amortisation's.
  // A pool switched off ("enabled": false) reads back as written.
  void ownedAndSwitchedOffPools() {
    json j = default_scenario_.toJson();
    j["pools"][0].erase("usd_per_gpu_hour");
    j["pools"][0]["spot"] = false;
    j["pools"][0]["owned"] = true;
    j["pools"][0]["amortisation"] = {
        {"purchase_usd_per_gpu", 30000}, {"lifetime_years", 4}, {"running_usd_per_gpu_hour", 0.3}};
    j["pools"][1]["enabled"] = false;
    const Scenario s = Scenario::fromJson(j, cat_);
    QVERIFY(s.pools[0].owned && s.pools[0].amortisation);
    QVERIFY(std::abs(s.pools[0].usd_per_gpu_hour - (30000.0 / (4 * 8766) + 0.3)) < 1e-12);
    QVERIFY(std::abs(s.pools[0].usd_per_gpu_hour - 1.155578) < 1e-6);
    QVERIFY(!s.pools[1].enabled && s.pools[0].enabled);
    const Scenario back = Scenario::fromJson(s.toJson(), cat_);
    QCOMPARE(back.pools[0].usd_per_gpu_hour, s.pools[0].usd_per_gpu_hour);
    QCOMPARE(back.pools[0].amortisation->lifetime_years, 4.0);
    QVERIFY(!back.pools[1].enabled);
    QVERIFY(!s.toJson()["pools"][2].contains("enabled"));  // the default is not written
    const auto refused = [&](const std::function<void(json&)>& edit, const QString& start) {
      json k = j;
      edit(k);
      const QString msg = inputErrorOf([&] { (void)Scenario::fromJson(k, cat_); });
      QVERIFY2(msg.startsWith(start), qPrintable(msg));
    };
    refused([](json& k) { k["pools"][0]["spot"] = true; },
            "pools[0].spot: got true, expected false for an owned pool");
    refused(
        [](json& k) { k["pools"][0]["owned"] = false; },
        "pools[0].amortisation: got an amortisation, expected none on a pool that is not owned");
    refused([](json& k) { k["pools"][0]["usd_per_gpu_hour"] = 2.0; },
            "pools[0].usd_per_gpu_hour: got 2, expected 1.15558");
    refused([](json& k) { k["pools"][0]["amortisation"]["lifetime_years"] = 0; },
            "pools[0].amortisation.lifetime_years: got 0, expected years from 0.1 to 50");
    refused([](json& k) { k["pools"][0]["amortisation"]["purchase_usd_per_gpu"] = -1; },
            "pools[0].amortisation.purchase_usd_per_gpu: got -1");
    refused([](json& k) { k["pools"][0]["amortisation"]["color"] = 1; },
            "pools[0].amortisation.color");
    refused([](json& k) { k["pools"][1]["enabled"] = "no"; }, "pools[1].enabled: got \"no\"");
    refused([](json& k) { k["pools"][2]["preemptions_source"] = "a trace"; },
            "pools[2].preemptions_source: got \"a trace\", expected absent without "
            "preemptions_per_gpu_hour");
  }

  // A spot pool's preemption rate from an availability trace, worked by hand: A100-40 in
  // us-central1-a holds 8 GPUs for 1,800 s, 6 for 3,600 s, 8 for 1,800 s (4 + 6 + 4 = 14
  // GPU-hours) and loses 2, then 3: 5 GPUs over 14 GPU-hours. A JSON series gives its one site.
  void preemptionRateFromATrace() {
    QTemporaryDir dir;
    const std::string csv = (dir.path() + "/t.csv").toStdString();
    std::ofstream(csv) << ",Timestamp,A100-40_us-central1-a,V100-16_us-west1-b\n"
                       << "0,1000,8,4\n1,2800,6,4\n2,6400,8,4\n3,8200,5,0\n";
    const TracePreemptions t = preemptionsInTrace(csv, "A100-40", "us-central1-a", cat_);
    QCOMPARE(t.preemptions, 5L);
    QCOMPARE(t.gpu_hours, 14.0);
    QCOMPARE(t.perGpuHour(), 5.0 / 14);
    QCOMPARE(t.span_s, 7200.0);
    QCOMPARE(QString::fromStdString(t.describe()),
             QString("trace t.csv: 5 GPUs taken over 14 GPU-hours of A100-40 in us-central1-a"));
    const TracePreemptions v = preemptionsInTrace(csv, "V100-16", "us-west1-b", cat_);
    QCOMPARE(v.preemptions, 4L);
    QCOMPARE(v.gpu_hours, 4 * 7200.0 / 3600);
    const std::string js = (dir.path() + "/t.json").toStdString();
    std::ofstream(js)
        << R"([{"Time": 0, "GPUs": 4}, {"Time": 3600, "GPUs": 2}, {"Time": 7200, "GPUs": 4}])";
    const TracePreemptions w = preemptionsInTrace(js, "H100-80", "asia-southeast1-b", cat_);
    QCOMPARE(w.preemptions, 2L);
    QCOMPARE(w.gpu_hours, 6.0);
    QVERIFY(inputErrorOf([&] {
              (void)preemptionsInTrace(csv, "H100-80", "us-central1-a", cat_);
            }).contains("no column H100-80_us-central1-a"));
    std::ofstream(js) << R"([{"Time": 0, "GPUs": 0}, {"Time": 60, "GPUs": 0}])";
    QVERIFY(inputErrorOf([&] {
              (void)preemptionsInTrace(js, "H100-80", "z", cat_);
            }).contains("no GPU held for any time"));
    std::ofstream(js) << R"([{"Time": 60, "GPUs": 4}, {"Time": 0, "GPUs": 2}])";
    QVERIFY(inputErrorOf([&] {
              (void)preemptionsInTrace(js, "H100-80", "z", cat_);
            }).contains("rows in time order"));
  }

  // A scenario file's session (sailor/scenario/session.hpp): the job, its own model and the
  // planner's settings read back as written; the scenario itself is unaffected; bad keys are
  // refused naming the field under its key.
  void sessionInTheScenarioFile() {
    json j = default_scenario_.toJson();
    Session s;
    ModelSpec mine = cat_.model("GPT-Neo-2.7B", "m");
    mine.name = "my-model";
    mine.aliases.clear();
    mine.layers = 20;
    s.job_model = mine;
    s.job = Job::fromJson(
        parse(R"({"model": "GPT-Neo-2.7B", "global_batch_size": 256, "training_tokens": 3e11})"),
        cat_);
    s.job->model = "my-model";
    PlannerOptions o;
    o.objective = Objective::Cost;
    o.pareto = true;
    o.schedules = ScheduleSearch::Megatron;
    o.max_usd_per_hour = 500;
    o.max_gpus = 64;
    s.planner = o;
    s.writeInto(j);
    const json reread = json::parse(j.dump());
    QVERIFY(Scenario::fromJson(reread, cat_).toJson() == default_scenario_.toJson());
    const Session back = Session::fromScenarioJson(reread, cat_);
    QVERIFY(back.job && back.job->toJson() == s.job->toJson());
    QVERIFY(back.job_model && back.job_model->toJson() == mine.toJson());
    QVERIFY(back.planner && back.planner->objective == Objective::Cost && back.planner->pareto &&
            back.planner->schedules == ScheduleSearch::Megatron);
    QCOMPARE(*back.planner->max_usd_per_hour, 500.0);
    QCOMPARE(*back.planner->max_gpus, 64);
    QVERIFY(!back.planner->max_usd_per_iteration && !back.planner->min_iterations_per_s);
    QVERIFY(!Session::fromScenarioJson(default_scenario_.toJson(), cat_).job);
    Session none;  // absent parts remove their keys
    none.writeInto(j);
    QVERIFY(!j.contains("job") && !j.contains("job_model") && !j.contains("planner"));

    const auto refused = [&](const char* key, const json& value) {
      json bad = default_scenario_.toJson();
      bad[key] = value;
      return inputErrorOf([&] { (void)Session::fromScenarioJson(bad, cat_); });
    };
    QString msg = refused("job", parse(R"({"model": "GPT-Neo-2.7B", "global_batch_size": -4})"));
    QVERIFY2(msg.startsWith("job.global_batch_size: got -4"), qPrintable(msg));
    msg = refused("planner", parse(R"({"objective": "speed"})"));
    QVERIFY2(msg.contains("planner.objective: got \"speed\", expected \"throughput\" or \"cost\""),
             qPrintable(msg));
    msg = refused("planner", parse(R"({"max_gpus": 0})"));
    QVERIFY2(msg.contains("max_gpus") && msg.contains("got 0"), qPrintable(msg));
    msg = refused("planner", parse(R"({"max_usd_per_hour": -1})"));
    QVERIFY2(msg.contains("max_usd_per_hour"), qPrintable(msg));
    msg = refused("planner", parse(R"({"top": 3})"));
    QVERIFY2(msg.contains("top"), qPrintable(msg));
    json catalogue_name = mine.toJson();
    catalogue_name["name"] = "GPT-Neo-2.7B";
    msg = refused("job_model", catalogue_name);
    QVERIFY2(msg.startsWith("job_model.name: got \"GPT-Neo-2.7B\""), qPrintable(msg));
  }

  void planRoundTrip_data() {
    QTest::addColumn<QByteArray>("text");
    std::ifstream in(sailor::test::resources() + "/plans/default.json");
    std::stringstream ss;
    ss << in.rdbuf();
    QTest::newRow("resources/plans/default.json") << QByteArray::fromStdString(ss.str());
    QTest::newRow("mixed types and tp") << QByteArray(R"({"microbatch_size": 4, "stages": [
             {"first_layer": 0, "last_layer": 3, "replicas": [{"gpu_type": "A100-40", "tp": 2, "zone": "z1"}, {"gpu_type": "V100-16", "tp": 4, "zone": "z2"}]},
             {"first_layer": 4, "last_layer": 25, "replicas": [{"gpu_type": "H100-80", "tp": 8, "zone": "z3"}]}]})");
  }
  void planRoundTrip() {
    QFETCH(QByteArray, text);
    const Plan p = Plan::fromJson(parse(text));
    const Plan back = Plan::fromJson(p.toJson());
    QCOMPARE(back.microbatch_size, p.microbatch_size);
    QCOMPARE(back.stages.size(), p.stages.size());
    QVERIFY(back.stages == p.stages);
    QVERIFY(!p.stages.empty() && !p.stages.front().replicas.empty());
  }

  void defaultPlanIsValid() {
    const Plan p =
        Plan::fromJson(json_util::readFile(sailor::test::resources() + "/plans/default.json"));
    p.validate(default_job_, cat_, default_scenario_);  // throws on failure
    QCOMPARE(p.gpuCount(), 8);
    QCOMPARE(p.stages[0].layerCount(), 13);
    // ceil(1024 / (2 * 4)) = 128 microbatches per replica.
    QCOMPARE(p.microbatches(default_job_.global_batch_size, p.stages[0]), 128);
    QCOMPARE(p.microbatches(1023, p.stages[0]), 128);  // rounds up
    QCOMPARE(p.microbatches(1025, p.stages[0]), 129);
  }

  void replicaSummaryGroupsByTypeTpAndZone() {
    // Three replicas of one kind in two zones and one of another: grouped, counted, and
    // listed in (type, tp, zone) order whatever the order in the plan.
    const Plan p = Plan::fromJson(
        parse(R"({"microbatch_size": 1, "stages": [{"first_layer": 0, "last_layer": 25,
      "replicas": [{"gpu_type": "V100-16", "tp": 4, "zone": "b"}, {"gpu_type": "A100-40", "tp": 2, "zone": "b"},
                   {"gpu_type": "A100-40", "tp": 2, "zone": "a"}, {"gpu_type": "A100-40", "tp": 2, "zone": "b"},
                   {"gpu_type": "A100-40", "tp": 1, "zone": "a"}]}]})"));
    QCOMPARE(p.stages[0].replicaSummary(),
             std::string("1x A100-40 tp1 a, 1x A100-40 tp2 a, 2x A100-40 tp2 b, 1x V100-16 tp4 b"));
    QCOMPARE(Stage{}.replicaSummary(), std::string());
  }

  // Every field of the shipped scenario, job and plan (each value, object and array, at every
  // depth; arrays through their first two elements), replaced by a value of another kind or
  // removed: the chain a user's files go through (fromJson, Plan::validate, simulate on the
  // analytic profile) either accepts it and predicts finite figures, or throws an InputError
  // whose one-line message names a field. Any other exception (a JSON type error escaping, a
  // range error) or a NaN would reach the user as a crash or a nonsense table.
  void everyFieldTakesAWrongValueCleanly() {
    const std::string res = sailor::test::resources();
    const json docs[3] = {json_util::readFile(res + "/scenarios/default.json"),
                          json_util::readFile(res + "/jobs/default.json"),
                          json_util::readFile(res + "/plans/default.json")};
    const json values[] = {nullptr,        "x", -1, 0, 1.5, -0.5, 1e308, json::array(),
                           json::object(), true};
    ProfileSet profiles;
    profiles.add(std::make_shared<AnalyticProfile>(cat_));
    int accepted = 0, rejected = 0;
    for (int which = 0; which < 3; ++which) {
      // Leaf pointers from flatten(), their parents, and array elements past the second left out.
      std::set<std::string> pointers;
      const json flat = docs[which].flatten();
      for (const auto& [leaf, v] : flat.items()) {
        (void)v;
        for (json::json_pointer p(leaf); !p.empty(); p = p.parent_pointer())
          pointers.insert(p.to_string());
      }
      for (const std::string& ptr : pointers) {
        if (ptr.find("/2") != std::string::npos &&
            std::regex_search(ptr, std::regex("/[2-9][0-9]*(/|$)")))
          continue;
        for (int m = 0; m <= static_cast<int>(std::size(values)); ++m) {
          json mutated[3] = {docs[0], docs[1], docs[2]};
          const json::json_pointer p(ptr);
          json& parent = mutated[which].at(p.parent_pointer());
          if (m == static_cast<int>(std::size(values))) {  // removed
            if (parent.is_array()) parent.erase(static_cast<size_t>(std::stoul(p.back())));
            else parent.erase(p.back());
          } else {
            mutated[which].at(p) = values[m];
          }
          const QString what = QString("%1%2 = %3")
                                   .arg(which == 0   ? "scenario"
                                        : which == 1 ? "job"
                                                     : "plan")
                                   .arg(QString::fromStdString(ptr))
                                   .arg(m < static_cast<int>(std::size(values))
                                            ? QString::fromStdString(values[m].dump())
                                            : QString("(removed)"));
          try {
            const Scenario sc = Scenario::fromJson(mutated[0], cat_);
            const Job job = Job::fromJson(mutated[1], cat_);
            const Plan plan = Plan::fromJson(mutated[2]);
            plan.validate(job, cat_, sc);
            const Prediction pr = simulate(plan, sc, job, cat_, profiles);
            QVERIFY2(std::isfinite(pr.iteration_s) && pr.iteration_s > 0, qPrintable(what));
            QVERIFY2(std::isfinite(pr.peakMemoryBytes()) && pr.peakMemoryBytes() > 0,
                     qPrintable(what));
            QVERIFY2(std::isfinite(pr.usd_per_iteration) && pr.usd_per_iteration >= 0,
                     qPrintable(what));
            ++accepted;
          } catch (const InputError& e) {
            const std::string msg = e.what();
            QVERIFY2(!e.field().empty() && msg.find('\n') == std::string::npos,
                     qPrintable(what + " -> " + QString::fromStdString(msg)));
            ++rejected;
          } catch (const std::exception& e) {
            QFAIL(qPrintable(what + " -> not an InputError: " + e.what()));
          }
        }
      }
    }
    qInfo("%d wrong values rejected, %d accepted and predicted", rejected, accepted);
    // The defaults have well over a hundred fields; most wrong values are refused.
    QVERIFY2(rejected > 800 && accepted > 0,
             qPrintable(QString("%1 rejected, %2 accepted").arg(rejected).arg(accepted)));
  }

  // ------------------------------------------------------------------ rejections

  void rejects_data() {
    QTest::addColumn<QString>(
        "kind");  // scenario, job, plan, or validate (plan against default job/scenario)
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QStringList>("needles");  // all must occur in the InputError message

    const QByteArray pool =
        R"({"zone": "r1-a", "gpu_type": "A100-40", "count": 8, "usd_per_gpu_hour": 1.0})";
    // ---- scenario
    QTest::newRow("scenario: missing regions")
        << "scenario" << QByteArray(R"({"name": "x", "pools": []})")
        << QStringList({"regions", "field missing"});
    QTest::newRow("scenario: empty regions") << "scenario" << QByteArray(R"({"regions": []})")
                                             << QStringList({"regions", "at least one region"});
    QTest::newRow("scenario: zone declared twice")
        << "scenario"
        << QByteArray(
               R"({"regions": [{"name": "r1", "zones": ["r1-a"]}, {"name": "r2", "zones": ["r1-a"]}]})")
        << QStringList({"regions[1].zones", "\"r1-a\"", "each zone declared once"});
    QTest::newRow("scenario: region declared twice")
        << "scenario"
        << QByteArray(
               R"({"regions": [{"name": "r1", "zones": ["a"]}, {"name": "r1", "zones": ["b"]}]})")
        << QStringList({"regions[1].name", "a region name not used before"});
    QTest::newRow("scenario: pool in undeclared zone")
        << "scenario"
        << scenarioWith(
               R"("pools": [{"zone": "r9-z", "gpu_type": "A100-40", "count": 8, "usd_per_gpu_hour": 1}])")
        << QStringList({"pools[0].zone", "\"r9-z\"", "a zone declared in regions"});
    QTest::newRow("scenario: unknown GPU type")
        << "scenario"
        << scenarioWith(
               R"("pools": [{"zone": "r1-a", "gpu_type": "B200", "count": 8, "usd_per_gpu_hour": 1}])")
        << QStringList({"pools[0].gpu_type", "\"B200\"", "a GPU type of the catalogue"});
    QTest::newRow("scenario: negative count")
        << "scenario"
        << scenarioWith(
               R"("pools": [{"zone": "r1-a", "gpu_type": "A100-40", "count": -4, "usd_per_gpu_hour": 1}])")
        << QStringList({"pools[0].count", "got -4", "an integer >= 0"});
    QTest::newRow("scenario: fractional count")
        << "scenario"
        << scenarioWith(
               R"("pools": [{"zone": "r1-a", "gpu_type": "A100-40", "count": 2.5, "usd_per_gpu_hour": 1}])")
        << QStringList({"pools[0].count", "2.5", "an integer"});
    QTest::newRow("scenario: count as a string")
        << "scenario"
        << scenarioWith(
               R"("pools": [{"zone": "r1-a", "gpu_type": "A100-40", "count": "8", "usd_per_gpu_hour": 1}])")
        << QStringList({"pools[0].count", "an integer"});
    QTest::newRow("scenario: negative price")
        << "scenario"
        << scenarioWith(
               R"("pools": [{"zone": "r1-a", "gpu_type": "A100-40", "count": 8, "usd_per_gpu_hour": -0.5}])")
        << QStringList({"pools[0].usd_per_gpu_hour", "-0.5", "a number >= 0"});
    QTest::newRow("scenario: gpus_per_node 0")
        << "scenario"
        << scenarioWith(
               R"("pools": [{"zone": "r1-a", "gpu_type": "A100-40", "count": 8, "usd_per_gpu_hour": 1, "gpus_per_node": 0}])")
        << QStringList({"pools[0].gpus_per_node", "an integer >= 1"});
    QTest::newRow("scenario: duplicate pool")
        << "scenario" << scenarioWith("\"pools\": [" + pool + ", " + pool + "]")
        << QStringList({"pools[1]", "A100-40 in r1-a twice", "one pool per (zone, GPU type)"});
    QTest::newRow("scenario: unknown pool key")
        << "scenario"
        << scenarioWith(
               R"("pools": [{"zone": "r1-a", "gpu_type": "A100-40", "count": 8, "usd_per_gpu_hour": 1, "prise": 2}])")
        << QStringList({"pools[0].prise", "an unknown field", "usd_per_gpu_hour"});
    QTest::newRow("scenario: link to unknown zone")
        << "scenario"
        << scenarioWith(R"("network": {"links": [{"from_zone": "r1-a", "to_zone": "mars-1",
                           "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 1}}]})")
        << QStringList({"network.links[0].to_zone", "\"mars-1\"", "a zone declared in regions"});
    QTest::newRow("scenario: link from unknown zone")
        << "scenario"
        << scenarioWith(R"("network": {"links": [{"from_zone": "mars-1", "to_zone": "r1-a",
                           "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 1}}]})")
        << QStringList({"network.links[0].from_zone", "\"mars-1\""});
    QTest::newRow("scenario: bad link kind")
        << "scenario"
        << scenarioWith(
               R"("network": {"links": [{"from_zone": "r1-a", "to_zone": "r1-b", "model": {"kind": "fast"}}]})")
        << QStringList({"network.links[0].model.kind", "\"fast\"",
                        "\"latency_bandwidth\" or \"sailor_fit\""});
    QTest::newRow("scenario: sailor_fit with 2 coefficients")
        << "scenario"
        << scenarioWith(R"("network": {"links": [{"from_zone": "r1-a", "to_zone": "r1-b",
                           "model": {"kind": "sailor_fit", "coefficients": [0.1, 2.0], "max_bytes_per_s": 1e9}}]})")
        << QStringList({"network.links[0].model.coefficients", "[0.1,2.0]", "three numbers"});
    QTest::newRow("scenario: sailor_fit without a cap")
        << "scenario"
        << scenarioWith(R"("network": {"links": [{"from_zone": "r1-a", "to_zone": "r1-b",
                           "model": {"kind": "sailor_fit", "coefficients": [0, 0, 1]}}]})")
        << QStringList({"network.links[0].model.max_bytes_per_s", "field missing"});
    QTest::newRow("scenario: intra-node link of an unknown GPU type")
        << "scenario" << scenarioWith(R"("network": {"intra_node": [{"gpu_type": "Z80",
                           "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 1}}]})")
        << QStringList({"network.intra_node[0].gpu_type", "Z80"});
    QTest::newRow("scenario: intra-node link given twice")
        << "scenario" << scenarioWith(R"("network": {"intra_node": [
                           {"gpu_type": "A100-40", "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 1}},
                           {"gpu_type": "A100-40", "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 2}}]})")
        << QStringList({"network.intra_node[1].gpu_type", "\"A100-40\" twice",
                        "one intra-node link per GPU type"});
    QTest::newRow("scenario: intra-node link without a model")
        << "scenario" << scenarioWith(R"("network": {"intra_node": [{"gpu_type": "A100-40"}]})")
        << QStringList({"network.intra_node[0].model", "field missing"});
    QTest::newRow("scenario: zero bandwidth")
        << "scenario"
        << scenarioWith(R"("network": {"links": [{"from_zone": "r1-a", "to_zone": "r1-b",
                           "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 0}}]})")
        << QStringList({"network.links[0].model.bandwidth_gb_per_s", "a number > 0"});
    QTest::newRow("scenario: negative default latency")
        << "scenario"
        << scenarioWith(
               R"("network": {"defaults": {"same_region": {"latency_s": -1, "bandwidth_gb_per_s": 1}}})")
        << QStringList({"network.defaults.same_region.latency_s", "a number >= 0"});
    // A latency typed in milliseconds (or 1e308, which overflows the predicted times).
    QTest::newRow("scenario: link latency of 30 s")
        << "scenario"
        << scenarioWith(R"("network": {"links": [{"from_zone": "r1-a", "to_zone": "r1-b",
                           "model": {"kind": "latency_bandwidth", "latency_s": 30, "bandwidth_gb_per_s": 1}}]})")
        << QStringList(
               {"network.links[0].model.latency_s", "got 30", "a latency in seconds from 0 to 10"});
    QTest::newRow("scenario: default latency 1e308")
        << "scenario"
        << scenarioWith(
               R"("network": {"defaults": {"same_zone": {"latency_s": 1e308, "bandwidth_gb_per_s": 1}}})")
        << QStringList(
               {"network.defaults.same_zone.latency_s", "a latency in seconds from 0 to 10"});
    QTest::newRow("scenario: intra-node latency 11 s")
        << "scenario" << scenarioWith(R"("network": {"intra_node": [{"gpu_type": "A100-40",
                           "model": {"kind": "latency_bandwidth", "latency_s": 11, "bandwidth_gb_per_s": 300}}]})")
        << QStringList({"network.intra_node.A100-40.model.latency_s", "got 11", "from 0 to 10"});
    QTest::newRow("scenario: unknown default relation")
        << "scenario"
        << scenarioWith(
               R"("network": {"defaults": {"same_planet": {"latency_s": 1, "bandwidth_gb_per_s": 1}}})")
        << QStringList({"network.defaults.same_planet", "an unknown field"});
    QTest::newRow("scenario: link gpus 0")
        << "scenario"
        << scenarioWith(R"("network": {"links": [{"from_zone": "r1-a", "to_zone": "r1-b", "gpus": 0,
                           "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 1}}]})")
        << QStringList({"network.links[0].gpus", "an integer >= 1"});
    QTest::newRow("scenario: link with unknown GPU qualifier")
        << "scenario"
        << scenarioWith(
               R"("network": {"links": [{"from_zone": "r1-a", "to_zone": "r1-b", "from_gpu": "B200",
                           "to_gpu": "A100-40",
                           "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 1}}]})")
        << QStringList({"network.links[0].from_gpu", "\"B200\""});
    // A qualifier on one side only would never match a lookup: rejected.
    QTest::newRow("scenario: link with one GPU qualifier")
        << "scenario"
        << scenarioWith(
               R"("network": {"links": [{"from_zone": "r1-a", "to_zone": "r1-b", "from_gpu": "A100-40",
                           "model": {"kind": "latency_bandwidth", "latency_s": 0, "bandwidth_gb_per_s": 1}}]})")
        << QStringList({"network.links[0].to_gpu", "from_gpu and to_gpu given together"});
    // 4294967304 = 2^32 + 8 would wrap to 8 in an int.
    QTest::newRow("scenario: count above INT_MAX")
        << "scenario"
        << scenarioWith(
               R"("pools": [{"zone": "r1-a", "gpu_type": "A100-40", "count": 4294967304, "usd_per_gpu_hour": 1}])")
        << QStringList({"pools[0].count", "4294967304", "an integer <= 2147483647"});
    QTest::newRow("scenario: negative egress pair")
        << "scenario"
        << scenarioWith(
               R"("egress_usd_per_gb": {"pairs": [{"from_zone": "r1-a", "to_zone": "r1-b", "usd_per_gb": -0.01}]})")
        << QStringList({"egress_usd_per_gb.pairs[0].usd_per_gb", "-0.01", "a number >= 0"});
    QTest::newRow("scenario: negative egress default")
        << "scenario" << scenarioWith(R"("egress_usd_per_gb": {"defaults": {"same_region": -1}})")
        << QStringList({"egress_usd_per_gb.defaults.same_region", "a number >= 0"});
    QTest::newRow("scenario: default egress 1e308 USD/GB")
        << "scenario"
        << scenarioWith(R"("egress_usd_per_gb": {"defaults": {"cross_continent": 1e308}})")
        << QStringList({"egress_usd_per_gb.defaults.cross_continent",
                        "a price in USD per GB from 0 to 1000"});
    QTest::newRow("scenario: egress pair of 2000 USD/GB")
        << "scenario"
        << scenarioWith(
               R"("egress_usd_per_gb": {"pairs": [{"from_zone": "r1-a", "to_zone": "r1-b", "usd_per_gb": 2000}]})")
        << QStringList({"egress_usd_per_gb.pairs", "got 2000 from r1-a to r1-b", "from 0 to 1000"});
    QTest::newRow("scenario: egress pair to unknown zone")
        << "scenario"
        << scenarioWith(
               R"("egress_usd_per_gb": {"pairs": [{"from_zone": "r1-a", "to_zone": "mars-1", "usd_per_gb": 0.1}]})")
        << QStringList({"egress_usd_per_gb.pairs", "\"mars-1\"", "a zone declared in regions"});
    QTest::newRow("scenario: unknown top-level key")
        << "scenario" << scenarioWith(R"("regoins": [])")
        << QStringList({"regoins", "an unknown field", "one of: name, description, regions"});
    QTest::newRow("scenario: not an object")
        << "scenario" << QByteArray("[1, 2]") << QStringList({"(top level)", "a JSON object"});

    // ---- job
    QTest::newRow("job: unknown model")
        << "job" << QByteArray(R"({"model": "GPT-5", "global_batch_size": 8})")
        << QStringList({"model", "\"GPT-5\"", "a model of the catalogue", "OPT-350M"});
    QTest::newRow("job: unknown recompute")
        << "job"
        << QByteArray(R"({"model": "OPT-350M", "global_batch_size": 8, "recompute": "partial"})")
        << QStringList({"recompute", "\"partial\"", "\"none\", \"selective\" or \"full\""});
    QTest::newRow("job: missing model") << "job" << QByteArray(R"({"global_batch_size": 8})")
                                        << QStringList({"model", "field missing"});
    QTest::newRow("job: global_batch_size 0")
        << "job" << QByteArray(R"({"model": "OPT-350M", "global_batch_size": 0})")
        << QStringList({"global_batch_size", "got 0", "an integer >= 1"});
    QTest::newRow("job: negative global_batch_size")
        << "job" << QByteArray(R"({"model": "OPT-350M", "global_batch_size": -64})")
        << QStringList({"global_batch_size", "got -64", "an integer >= 1"});
    QTest::newRow("job: fractional global_batch_size")
        << "job" << QByteArray(R"({"model": "OPT-350M", "global_batch_size": 7.5})")
        << QStringList({"global_batch_size", "an integer"});
    QTest::newRow("job: precision fp8")
        << "job"
        << QByteArray(R"({"model": "OPT-350M", "global_batch_size": 8, "precision": "fp8"})")
        << QStringList({"precision", "\"fp8\"", "\"fp32\", \"bf16\" or \"fp16\""});
    QTest::newRow("job: optimizer lamb")
        << "job"
        << QByteArray(R"({"model": "OPT-350M", "global_batch_size": 8, "optimizer": "lamb"})")
        << QStringList({"optimizer", "\"lamb\"", "\"adam\" or \"sgd\""});
    QTest::newRow("job: sequence beyond the learned position table")
        << "job"
        << QByteArray(R"({"model": "OPT-350M", "global_batch_size": 8, "sequence_length": 4096})")
        << QStringList(
               {"sequence_length", "4096", "at most 2048", "learned position table of OPT-350M"});
    QTest::newRow("job: sequence_length 0")
        << "job"
        << QByteArray(R"({"model": "OPT-350M", "global_batch_size": 8, "sequence_length": 0})")
        << QStringList({"sequence_length", "an integer >= 1"});
    QTest::newRow("job: unknown key")
        << "job" << QByteArray(R"({"model": "OPT-350M", "global_batch_size": 8, "micro_batch": 2})")
        << QStringList({"micro_batch", "an unknown field"});

    // ---- plan (structure)
    QTest::newRow("plan: no stages")
        << "plan" << QByteArray(R"({"microbatch_size": 1, "stages": []})")
        << QStringList({"stages", "at least one stage"});
    QTest::newRow("plan: missing stages") << "plan" << QByteArray(R"({"microbatch_size": 1})")
                                          << QStringList({"stages", "field missing"});
    QTest::newRow("plan: empty replicas")
        << "plan"
        << QByteArray(
               R"({"microbatch_size": 1, "stages": [{"first_layer": 0, "last_layer": 25, "replicas": []}]})")
        << QStringList({"stages[0].replicas", "at least one replica"});
    QTest::newRow("plan: last_layer < first_layer")
        << "plan"
        << QByteArray(R"({"microbatch_size": 1, "stages": [{"first_layer": 5, "last_layer": 4,
                          "replicas": [{"gpu_type": "A100-40", "tp": 1, "zone": "us-central1-a"}]}]})")
        << QStringList({"stages[0].last_layer", "got 4", "a layer >= first_layer 5"});
    QTest::newRow("plan: tp 0")
        << "plan"
        << QByteArray(R"({"microbatch_size": 1, "stages": [{"first_layer": 0, "last_layer": 25,
                          "replicas": [{"gpu_type": "A100-40", "tp": 0, "zone": "us-central1-a"}]}]})")
        << QStringList({"stages[0].replicas[0].tp", "got 0", "an integer >= 1"});
    // 4294967297 = 2^32 + 1 would wrap to tp 1.
    QTest::newRow("plan: tp above INT_MAX")
        << "plan"
        << QByteArray(R"({"microbatch_size": 1, "stages": [{"first_layer": 0, "last_layer": 25,
                          "replicas": [{"gpu_type": "A100-40", "tp": 4294967297, "zone": "us-central1-a"}]}]})")
        << QStringList({"stages[0].replicas[0].tp", "an integer <= 2147483647"});
    QTest::newRow("plan: negative tp")
        << "plan"
        << QByteArray(R"({"microbatch_size": 1, "stages": [{"first_layer": 0, "last_layer": 25,
                          "replicas": [{"gpu_type": "A100-40", "tp": -2, "zone": "us-central1-a"}]}]})")
        << QStringList({"stages[0].replicas[0].tp", "got -2", "an integer >= 1"});
    QTest::newRow("plan: microbatch_size 0")
        << "plan"
        << QByteArray(R"({"microbatch_size": 0, "stages": [{"first_layer": 0, "last_layer": 25,
                          "replicas": [{"gpu_type": "A100-40", "tp": 1, "zone": "us-central1-a"}]}]})")
        << QStringList({"microbatch_size", "an integer >= 1"});
    QTest::newRow("plan: replica without zone")
        << "plan"
        << QByteArray(R"({"microbatch_size": 1, "stages": [{"first_layer": 0, "last_layer": 25,
                          "replicas": [{"gpu_type": "A100-40", "tp": 1}]}]})")
        << QStringList({"stages[0].replicas[0].zone", "field missing"});
    QTest::newRow("plan: negative first_layer")
        << "plan"
        << QByteArray(R"({"microbatch_size": 1, "stages": [{"first_layer": -1, "last_layer": 25,
                          "replicas": [{"gpu_type": "A100-40", "tp": 1, "zone": "us-central1-a"}]}]})")
        << QStringList({"stages[0].first_layer", "an integer >= 0"});

    // ---- Plan::validate against the default job (OPT-350M: 26 plan layers 0..25, 16 heads)
    // and the default scenario (A100-40: 8 per node; H100-80 pools only in us-central1-b and
    // europe-west4-a, 8 GPUs each).
    auto stage = [](int first, int last, const char* replicas) {
      return QByteArray("{\"first_layer\": ") + QByteArray::number(first) +
             ", \"last_layer\": " + QByteArray::number(last) + ", \"replicas\": [" + replicas +
             "]}";
    };
    auto plan = [](std::initializer_list<QByteArray> stages) {
      QByteArray s = "{\"microbatch_size\": 1, \"stages\": [";
      bool first = true;
      for (const auto& st : stages) {
        s += (first ? "" : ", ") + st;
        first = false;
      }
      return s + "]}";
    };
    const char* a100 = R"({"gpu_type": "A100-40", "tp": 1, "zone": "us-central1-a"})";
    QTest::newRow("validate: gap between stages")
        << "validate" << plan({stage(0, 5, a100), stage(7, 25, a100)})
        << QStringList({"stages[1].first_layer", "got 7", "expected 6", "contiguous"});
    QTest::newRow("validate: overlapping stages")
        << "validate" << plan({stage(0, 5, a100), stage(5, 25, a100)})
        << QStringList({"stages[1].first_layer", "got 5", "expected 6"});
    QTest::newRow("validate: first stage not starting at 0")
        << "validate" << plan({stage(1, 25, a100)})
        << QStringList({"stages[0].first_layer", "got 1", "expected 0"});
    QTest::newRow("validate: last stage not ending at the head")
        << "validate" << plan({stage(0, 12, a100), stage(13, 24, a100)})
        << QStringList({"stages[1].last_layer", "got 24", "expected 25", "head layer"});
    QTest::newRow("validate: layer beyond the head")
        << "validate" << plan({stage(0, 26, a100)})
        << QStringList(
               {"stages[0].last_layer", "got 26", "at most 25", "OPT-350M has 26 plan layers"});
    QTest::newRow("validate: tp larger than GPUs per node")
        << "validate"
        << plan({stage(0, 25, R"({"gpu_type": "A100-40", "tp": 16, "zone": "us-central1-a"})")})
        << QStringList({"stages[0].replicas[0].tp", "got 16", "at most 8", "GPUs per node"});
    QTest::newRow("validate: a bf16 job on a GPU without bf16")
        << "validate-bf16"
        << plan({stage(0, 25, R"({"gpu_type": "V100-16", "tp": 1, "zone": "us-central1-a"})")})
        << QStringList({"stages[0].replicas[0].gpu_type", "\"V100-16\"",
                        "bf16 arithmetic for a bf16 job", "an fp16 job can use it"});
    QTest::newRow("validate: tp not dividing the heads")
        << "validate"
        << plan({stage(0, 25, R"({"gpu_type": "A100-40", "tp": 3, "zone": "us-central1-a"})")})
        << QStringList({"stages[0].replicas[0].tp", "got 3", "a divisor of the model's 16 heads"});
    QTest::newRow("validate: zone not in the scenario")
        << "validate"
        << plan({stage(0, 25, R"({"gpu_type": "A100-40", "tp": 1, "zone": "asia-east1-a"})")})
        << QStringList(
               {"stages[0].replicas[0].zone", "\"asia-east1-a\"", "a zone of the scenario"});
    QTest::newRow("validate: GPU type without a pool in that zone")
        << "validate"
        << plan({stage(0, 25, R"({"gpu_type": "H100-80", "tp": 1, "zone": "us-central1-a"})")})
        << QStringList({"stages", "H100-80 in us-central1-a", "have a pool"});
    QTest::newRow("validate: unknown GPU type")
        << "validate"
        << plan({stage(0, 25, R"({"gpu_type": "B200", "tp": 1, "zone": "us-central1-a"})")})
        << QStringList(
               {"stages[0].replicas[0].gpu_type", "\"B200\"", "a GPU type of the catalogue"});
    // Plan::validate checks a run of equal replicas once: the error still names the first bad
    // replica, and a run counts every replica against its pool.
    QTest::newRow("validate: the bad replica after a run of good ones")
        << "validate"
        << plan({stage(0, 25,
                       QByteArray(a100) + ", " + a100 + ", " +
                           R"({"gpu_type": "A100-40", "tp": 16, "zone": "us-central1-a"}, )" +
                           R"({"gpu_type": "A100-40", "tp": 16, "zone": "us-central1-a"})")})
        << QStringList({"stages[0].replicas[2].tp", "got 16", "at most 8", "GPUs per node"});
    QTest::newRow("validate: a run of equal replicas over the pool's count")
        << "validate"
        << plan({stage(0, 25,
                       R"({"gpu_type": "H100-80", "tp": 2, "zone": "us-central1-b"}, )"
                       R"({"gpu_type": "H100-80", "tp": 2, "zone": "us-central1-b"}, )"
                       R"({"gpu_type": "H100-80", "tp": 2, "zone": "us-central1-b"}, )"
                       R"({"gpu_type": "H100-80", "tp": 2, "zone": "us-central1-b"}, )"
                       R"({"gpu_type": "H100-80", "tp": 2, "zone": "us-central1-b"})")})
        << QStringList({"stages", "10 H100-80 in us-central1-b", "at most 8", "the pool's count"});
    QTest::newRow("validate: more GPUs than the pool has")
        << "validate"
        << plan({stage(0, 12, R"({"gpu_type": "H100-80", "tp": 8, "zone": "us-central1-b"})"),
                 stage(13, 25, R"({"gpu_type": "H100-80", "tp": 4, "zone": "us-central1-b"})")})
        << QStringList({"stages", "12 H100-80 in us-central1-b", "at most 8", "the pool's count"});
  }
  void rejects() {
    QFETCH(QString, kind);
    QFETCH(QByteArray, text);
    QFETCH(QStringList, needles);
    json j;
    try {
      j = parse(text);
    } catch (const json::parse_error& e) {
      QFAIL(qPrintable(QString("the row's JSON does not parse: ") + e.what()));
    }
    QString msg;
    if (kind == "scenario") msg = inputErrorOf([&] { Scenario::fromJson(j, cat_); });
    else if (kind == "job") msg = inputErrorOf([&] { Job::fromJson(j, cat_); });
    else if (kind == "plan") msg = inputErrorOf([&] { Plan::fromJson(j); });
    else if (kind == "validate" || kind == "validate-bf16") {
      Job job = default_job_;
      if (kind == "validate-bf16") job.precision = Precision::Bf16;
      Plan p;
      try {
        p = Plan::fromJson(j);  // structurally valid: only validate() may object
      } catch (const InputError& e) {
        QFAIL(qPrintable(QString("Plan::fromJson rejected a validate row: ") + e.what()));
      }
      msg = inputErrorOf([&] { p.validate(job, cat_, default_scenario_); });
    } else {
      QFAIL("unknown row kind");
    }
    SAILOR_VERIFY_MESSAGE(msg, needles);
  }

  // The same V100 plan is valid for fp32 and fp16 jobs (only bf16 lacks arithmetic on it), and a
  // bf16 job runs on an A100.
  void precisionSupportByGpu() {
    Plan v100;
    v100.microbatch_size = 1;
    v100.stages = {Stage{0, 25, {Replica{"V100-16", 1, "us-central1-a"}}}};
    Plan a100 = v100;
    a100.stages[0].replicas[0].gpu_type = "A100-40";
    for (const Precision pr : {Precision::Fp32, Precision::Fp16, Precision::Bf16}) {
      Job job = default_job_;
      job.precision = pr;
      const QString none = QStringLiteral("<no InputError thrown>");
      QCOMPARE(inputErrorOf([&] { a100.validate(job, cat_, default_scenario_); }), none);
      const QString v = inputErrorOf([&] { v100.validate(job, cat_, default_scenario_); });
      QVERIFY2((v == none) == (pr != Precision::Bf16),
               qPrintable(QString(precisionName(pr)) + ": " + v));
    }
    QVERIFY(!supportsPrecision(cat_.gpu("T4", "t"), Precision::Bf16));
    QVERIFY(supportsPrecision(cat_.gpu("MI300X", "t"), Precision::Bf16));
    QVERIFY(supportsPrecision(cat_.gpu("T4", "t"), Precision::Fp16));
  }

  void inputErrorCarriesItsParts() {
    // The message is "field: got value, expected what"; the parts are kept for the studio.
    try {
      Job::fromJson(parse(R"({"model": "OPT-350M", "global_batch_size": 0})"), cat_);
      QFAIL("no InputError");
    } catch (const InputError& e) {
      QCOMPARE(QString::fromStdString(e.field()), QString("global_batch_size"));
      QCOMPARE(QString::fromStdString(e.value()), QString("0"));
      QCOMPARE(QString::fromStdString(e.expected()), QString("an integer >= 1"));
      QCOMPARE(QString(e.what()), QString("global_batch_size: got 0, expected an integer >= 1"));
      const InputError ctx = withContext(e, "jobs/x.json");
      QCOMPARE(QString::fromStdString(ctx.field()), QString("jobs/x.json.global_batch_size"));
    }
  }

  // ------------------------------------------------------------------ measured points

  void measuredPointsRejects_data() {
    QTest::addColumn<QByteArray>("layers");
    QTest::addColumn<QByteArray>("replicas");
    QTest::addColumn<QByteArray>("extra");  // more fields of the point, each followed by a comma
    QTest::addColumn<QByteArray>(
        "measured");  // the point's "measured" (empty: both figures, 1 each)
    QTest::addColumn<QStringList>("needles");
    const QByteArray rep = R"([[{"gpu_type": "GH-96", "tp": 4, "zone": "us-central1-a"}]])";
    QTest::newRow("string layer number")
        << QByteArray(R"([[0, "1"]])") << rep << QByteArray() << QByteArray()
        << QStringList({"points[0].layers_per_stage[0]", "layer numbers"});
    QTest::newRow("layers not consecutive")
        << QByteArray(R"([[0, 2]])") << rep << QByteArray() << QByteArray()
        << QStringList({"points[0].layers_per_stage[0]", "consecutive"});
    // A stage list is read as its range only when it repeats another stage's number in place
    // of one no stage lists, between its neighbours (NOTE [A layer number written twice]).
    const QByteArray rep2 = R"([[{"gpu_type": "GH-96", "tp": 4, "zone": "us-central1-a"}],
                                [{"gpu_type": "GH-96", "tp": 4, "zone": "us-central1-a"}]])";
    QTest::newRow("repeat whose own number is listed")
        << QByteArray(R"([[0, 1, 3], [3, 2]])") << rep2 << QByteArray() << QByteArray()
        << QStringList({"points[0].layers_per_stage[0]", "got [0,1,3]", "consecutive"});
    QTest::newRow("number no other stage lists")
        << QByteArray(R"([[0, 1, 5], [3, 4]])") << rep2 << QByteArray() << QByteArray()
        << QStringList({"points[0].layers_per_stage[0]", "got [0,1,5]", "consecutive"});
    QTest::newRow("repeat in a stage that does not meet the next")
        << QByteArray(R"([[0, 1, 3], [2, 3]])") << rep2 << QByteArray() << QByteArray()
        << QStringList({"points[0].layers_per_stage[0]", "consecutive"});
    QTest::newRow("no stages") << QByteArray("[]") << QByteArray("[]") << QByteArray()
                               << QByteArray()
                               << QStringList({"points[0].layers_per_stage", "got []",
                                               "at least one stage"});
    QTest::newRow("replicas not a list")
        << QByteArray(R"([[0, 1]])") << QByteArray(R"([{"gpu_type": "GH-96"}])") << QByteArray()
        << QByteArray() << QStringList({"points[0].replicas_per_stage[0]", "a JSON array"});
    QTest::newRow("no replicas") << QByteArray(R"([[0, 1]])") << QByteArray(R"([[]])")
                                 << QByteArray() << QByteArray()
                                 << QStringList({"points[0].replicas_per_stage[0]",
                                                 "at least one replica"});
    // The cluster names the group the point's errors are summed in (sailor validate).
    QTest::newRow("cluster not a string")
        << QByteArray(R"([[0, 1]])") << rep << QByteArray(R"("cluster": 7,)") << QByteArray()
        << QStringList({"points[0].cluster", "got 7", "a string"});
    QTest::newRow("empty cluster")
        << QByteArray(R"([[0, 1]])") << rep << QByteArray(R"("cluster": "",)") << QByteArray()
        << QStringList({"points[0].cluster", "a non-empty string"});
    // A figure the run did not record is absent, null or 0 (SAILOR's files write 0); one of the
    // two must be measured, and a negative one is an error.
    QTest::newRow("neither figure measured")
        << QByteArray(R"([[0, 1]])") << rep << QByteArray()
        << QByteArray(R"({"iteration_time_s": 0, "peak_memory_bytes": null})")
        << QStringList({"points[0].measured", "iteration_time_s or peak_memory_bytes"});
    QTest::newRow("negative time")
        << QByteArray(R"([[0, 1]])") << rep << QByteArray()
        << QByteArray(R"({"iteration_time_s": -1, "peak_memory_bytes": 5})")
        << QStringList({"points[0].measured.iteration_time_s", "got -1", "a number > 0"});
    QTest::newRow("memory not a number")
        << QByteArray(R"([[0, 1]])") << rep << QByteArray()
        << QByteArray(R"({"iteration_time_s": 1, "peak_memory_bytes": "9 GB"})")
        << QStringList({"points[0].measured.peak_memory_bytes", "\"9 GB\"", "a number"});
  }

  void measuredPointsRejects() {
    QFETCH(QByteArray, layers);
    QFETCH(QByteArray, replicas);
    QFETCH(QByteArray, extra);
    QFETCH(QByteArray, measured);
    QFETCH(QStringList, needles);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("points.json").toStdString();
    std::ofstream(path) << R"({"points": [{"id": "p", "model": "OPT-350", "global_batch_size": 8, )"
                        << extra.toStdString() << R"(
        "microbatch_size": 1, "layers_per_stage": )"
                        << layers.toStdString() << R"(, "replicas_per_stage": )"
                        << replicas.toStdString() << R"(, "measured": )"
                        << (measured.isEmpty()
                                ? std::string(R"({"iteration_time_s": 1, "peak_memory_bytes": 1})")
                                : measured.toStdString())
                        << "}]}";
    const QString msg = inputErrorOf([&] { loadMeasuredPoints(path, cat_); });
    SAILOR_VERIFY_MESSAGE(msg, needles);
  }

  // SAILOR's four-stage GPT-Neo-2.7 files write a later stage's layer number in place of one
  // that no stage lists; the stage is read as its range, and the point says so.
  void measuredPointsReadARepeatedLayerAsItsRange() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("points.json").toStdString();
    std::ofstream(path) << R"({"points": [{"id": "p", "model": "OPT-350", "global_batch_size": 8,
        "microbatch_size": 1, "layers_per_stage": [[0, 1, 4], [3, 4]],
        "replicas_per_stage": [[{"gpu_type": "GH-96", "tp": 4, "zone": "z"}],
                               [{"gpu_type": "GH-96", "tp": 4, "zone": "z"}]],
        "measured": {"iteration_time_s": 1}}]})";
    const auto points = loadMeasuredPoints(path, cat_);
    QCOMPARE(points.size(), size_t(1));
    const Plan& plan = points[0].plan;
    QCOMPARE(plan.stages[0].first_layer, 0);
    QCOMPARE(plan.stages[0].last_layer, 2);
    QCOMPARE(plan.stages[1].first_layer, 3);
    QCOMPARE(plan.stages[1].last_layer, 4);
    QCOMPARE(points[0].notes.size(), size_t(1));
    SAILOR_VERIFY_MESSAGE(QString::fromStdString(points[0].notes[0]),
                          QStringList({"layers_per_stage[0] lists 4 (also in stage 1) where 2 "
                                       "belongs",
                                       "read as layers 0-2"}));
  }

  // readMeasuredPoints keeps the points it can read and lists the others with their errors, in
  // file order; loadMeasuredPoints stops at the first.
  void readMeasuredPointsListsThePointsItCannotRead() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("points.json").toStdString();
    auto point = [](const char* id, const char* gpu, const json& layers) {
      return json{{"id", id},
                  {"model", "OPT-350"},
                  {"global_batch_size", 8},
                  {"microbatch_size", 1},
                  {"layers_per_stage", layers},
                  {"replicas_per_stage", {{{{"gpu_type", gpu}, {"tp", 4}, {"zone", "z"}}}}},
                  {"measured", {{"iteration_time_s", 1}}}};
    };
    const json file{{"points",
                     {point("good", "GH-96", {{0, 1}}), point("gpu", "B900", {{0, 1}}),
                      point("layers", "GH-96", json::array({json::array({0, "1"})})), 7}}};
    std::ofstream(path) << file.dump();
    const MeasuredPoints read = readMeasuredPoints(path, cat_);
    QCOMPARE(read.points.size(), size_t(1));
    QCOMPARE(QString::fromStdString(read.points[0].id), QString("good"));
    QCOMPARE(read.points[0].index, size_t(0));
    QCOMPARE(read.skipped.size(), size_t(3));
    QCOMPARE(read.skipped[0].index, size_t(1));
    QCOMPARE(QString::fromStdString(read.skipped[0].id), QString("gpu"));
    SAILOR_VERIFY_MESSAGE(QString::fromStdString(read.skipped[0].error),
                          QStringList({"points[1].replicas_per_stage[0][0].gpu_type", "B900"}));
    SAILOR_VERIFY_MESSAGE(QString::fromStdString(read.skipped[1].error),
                          QStringList({"points[2].layers_per_stage[0]", "layer numbers"}));
    QCOMPARE(QString::fromStdString(read.skipped[2].id), QString("point 3"));
    SAILOR_VERIFY_MESSAGE(QString::fromStdString(read.skipped[2].error),
                          QStringList({"points[3]", "a JSON object"}));
    const QString first = inputErrorOf([&] { loadMeasuredPoints(path, cat_); });
    SAILOR_VERIFY_MESSAGE(first, QStringList({"points[1]", "B900"}));
  }

  // ------------------------------------------------------------------ files

  void readFileMalformedNamesTheFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("broken scenario.json").toStdString();
    std::ofstream(path) << "{\"regions\": [,]}";
    const QString msg = inputErrorOf([&] { json_util::readFile(path); });
    SAILOR_VERIFY_MESSAGE(
        msg, QStringList({QString::fromStdString(path), "malformed JSON", "valid JSON"}));
  }

  void readFileMissingNamesTheFile() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("absent.json").toStdString();
    const QString msg = inputErrorOf([&] { json_util::readFile(path); });
    SAILOR_VERIFY_MESSAGE(msg, QStringList({QString::fromStdString(path), "cannot be opened"}));
  }

  void writeFileAtomicallyReplacesAndLeavesNoTemp() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("plan.json").toStdString();
    json_util::writeFileAtomically(path, "{\"first\": 1}");
    QVERIFY(json_util::readFile(path) == json({{"first", 1}}));
    json_util::writeFileAtomically(path, "{\"second\": 2}\n");
    // Write, close, reopen and read back: the new content replaced the old entirely.
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    QCOMPARE(QString::fromStdString(ss.str()), QString("{\"second\": 2}\n"));
    // Nothing else is left in the directory (no ".plan.json.tmp-PID").
    const QStringList entries =
        QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
    QCOMPARE(entries, QStringList({"plan.json"}));
  }

  // Hostile files: nesting beyond json_util::kMaxJsonDepth is refused with one line
  // naming the file and the limit, before any recursive copy, print or destruction of the value
  // (100,000 brackets used to crash every command with a stack overflow).
  void readFileRefusesDeepNesting() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string deep = dir.filePath("deep.json").toStdString();
    std::ofstream(deep) << std::string(100000, '[') << std::string(100000, ']');
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { json_util::readFile(deep); }),
                          QStringList({QString::fromStdString(deep), "nested more than 64 deep",
                                       "at most 64 levels"}));
    // The limit itself is accepted; one more level is not.
    const std::string at_limit = dir.filePath("at.json").toStdString();
    std::ofstream(at_limit) << std::string(json_util::kMaxJsonDepth, '[')
                            << std::string(json_util::kMaxJsonDepth, ']');
    QVERIFY(json_util::readFile(at_limit).is_array());
    const std::string over = dir.filePath("over.json").toStdString();
    std::ofstream(over) << std::string(json_util::kMaxJsonDepth, '[') << "{\"a\": 1}"
                        << std::string(json_util::kMaxJsonDepth, ']');
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { json_util::readFile(over); }),
                          QStringList({"nested more than 64 deep"}));
    // Brackets inside strings are text, not nesting.
    const std::string in_string = dir.filePath("str.json").toStdString();
    std::ofstream(in_string) << "{\"a\": \"" << std::string(1000, '[') << "\"}";
    QCOMPARE(json_util::readFile(in_string).at("a").get<std::string>().size(), size_t(1000));
  }

  // describe() of a value nested far deeper than a file may hold (built in memory) is bounded
  // and built without recursion; on ordinary values it is dump(), cut to 57 bytes plus "...".
  void describeIsBoundedAndNotRecursive() {
    json deep = json::array();
    json* cur = &deep;
    for (int i = 0; i < 100000; ++i) {
      cur->push_back(json::array());
      cur = &cur->back();
    }
    const std::string d = json_util::describe(deep);
    QCOMPARE(d, std::string(57, '[') + "...");
    const json small = json::parse(R"({"a": [1, "x", null, 2.5], "b": {"c": true}})");
    QCOMPARE(json_util::describe(small), small.dump());
    const json big = json::parse(R"({"pools": [{"zone": "us-central1-a", "count": 32,
        "usd_per_gpu_hour": 3.673385, "spot": false}], "name": "n"})");
    QCOMPARE(json_util::describe(big), big.dump().substr(0, 57) + "...");
    QCOMPARE(json_util::describe(json(1e300)), json(1e300).dump());
  }

  // Error text is cut on a UTF-8 character boundary: at every cut of a string of 1- to 4-byte
  // characters the result is the longest whole-character prefix that fits.
  void truncateUtf8CutsOnCharacterBoundaries() {
    const std::string s = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80z";  // a é € 😀 z
    const std::vector<size_t> boundaries = {0, 1, 3, 6, 10, 11};
    for (size_t n = 0; n <= s.size() + 1; ++n) {
      const std::string cut = json_util::truncateUtf8(s, n);
      size_t expected = 0;
      for (size_t b : boundaries)
        if (b <= n) expected = b;
      QCOMPARE(cut, s.substr(0, expected));
      QCOMPARE(QString::fromUtf8(cut.data(), qsizetype(cut.size())).toUtf8().toStdString(), cut);
    }
    // describe() of a long multi-byte string, at every alignment: valid UTF-8 that dump()s
    // (the JSON report of `validate` used to throw on such a cut).
    for (int pad = 0; pad < 4; ++pad) {
      std::string text(static_cast<size_t>(pad), 'a');
      for (int i = 0; i < 30; ++i) text += "\xF0\x9F\x98\x80";
      const std::string d = json_util::describe(json(text));
      QVERIFY(d.size() <= 60);
      QVERIFY(d.ends_with("..."));
      QCOMPARE(QString::fromUtf8(d.data(), qsizetype(d.size())).toUtf8().toStdString(), d);
      QVERIFY(!json(d).dump().empty());  // throws type_error 316 on invalid UTF-8
    }
  }

  // NOTE [Whitespace beside structure]: parseText drops the whitespace that touches { } [ ] : ,
  // outside strings before parsing. The values are those of the text as written, whitespace
  // between two other tokens still separates them (so "[1 2]" stays malformed), and errors give
  // the positions of the text as written.
  void whitespaceBesideStructureChangesNothing() {
    const std::string indented =
        "\n {\n\t\"a b\" : [ 1 ,\r\n 2.5 , \"x  y\\\" ,\" ] ,\n  \"c\" :\n {  } , \"d\": true }\n ";
    const json v = json_util::parseText(indented, "t");
    QCOMPARE(QString::fromStdString(v.dump()),
             QString::fromStdString("{\"a b\":[1,2.5,\"x  y\\\" ,\"],\"c\":{},\"d\":true}"));
    for (const char* bad : {"[1 2]", "{\"a\" 1}", "[true false]", "[\"a\" \"b\"]"})
      SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { json_util::parseText(bad, "t"); }),
                            QStringList({"malformed JSON", "valid JSON"}));
    SAILOR_VERIFY_MESSAGE(
        inputErrorOf([&] { json_util::parseText("{\n  \"a\": [1,\n    2 3]\n}", "t"); }),
        QStringList({"malformed JSON", "line 3, column 7"}));
  }

  // A number that overflows a double (1e309) is an InputError naming the file, the line and
  // column where the number starts, the number and "a finite number"; not an internal error.
  void readFileNamesNumberOverflow() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("big.json").toStdString();
    std::ofstream(path) << "{\n  \"count\": 1e309}";
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { json_util::readFile(path); }),
                          QStringList({QString::fromStdString(path) + ": line 2, column 12: got "
                                                                      "1e309",
                                       "expected a finite number"}));
    std::ofstream(path) << "[-1e400]";
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { json_util::readFile(path); }),
                          QStringList({"line 1, column 2: got -1e400", "a finite number"}));
    // Malformed JSON still names the file and nlohmann's position, as before.
    std::ofstream(path) << "{\"a\": }";
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { json_util::readFile(path); }),
                          QStringList({QString::fromStdString(path), "malformed JSON",
                                       "line 1, column 7", "valid JSON"}));
  }

  // A directory, and a file over json_util::kMaxJsonFileBytes (sparse, so cheap), are refused.
  void readFileRefusesDirectoriesAndHugeFiles() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { json_util::readFile(dir.path().toStdString()); }),
                          QStringList({"got a directory", "a readable JSON file"}));
    const std::string huge = dir.filePath("huge.json").toStdString();
    std::ofstream(huge) << "{}";
    std::filesystem::resize_file(huge, json_util::kMaxJsonFileBytes + 1);
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { json_util::readFile(huge); }),
                          QStringList({"a file of 67108865 bytes", "at most 67108864 bytes"}));
  }

  // NOTE [Read up to the bound]: a file is read to at most the bound and one byte more whatever
  // its kind, and one over it is refused naming the file and the bound: a device that never ends
  // (/dev/zero), random bytes (/dev/urandom) and a FIFO whose writer never stops are cut there;
  // a regular file is refused by its size before reading, or read to its end when the size it
  // says is 0 (/proc); a FIFO without a writer reads as empty instead of waiting for one.
  void readTextIsCutAtTheBoundWhateverTheFileKind() {
    constexpr std::uint64_t kBound = 1 << 20;
    const QString over =
        "got a file of more than 1048576 bytes, expected a JSON file of at most "
        "1048576 bytes";
    for (const char* device : {"/dev/zero", "/dev/urandom"})
      SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { json_util::readText(device, "JSON file", kBound); }),
                            QStringList({QString(device) + ": " + over}));
    SAILOR_VERIFY_MESSAGE(inputErrorOf([] { json_util::readFile("/dev/zero"); }),
                          QStringList({"/dev/zero: got a file of more than 67108864 bytes",
                                       "expected a JSON file of at most 67108864 bytes"}));
    QVERIFY(json_util::readText("/proc/self/status").find("VmRSS") != std::string::npos);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string regular = dir.filePath("at-the-bound.json").toStdString();
    std::ofstream(regular) << std::string(10, ' ');
    QCOMPARE(json_util::readText(regular, "JSON file", 10).size(), std::size_t{10});
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { json_util::readText(regular, "JSON file", 9); }),
                          QStringList({"got a file of 10 bytes", "at most 9 bytes"}));

    const std::string lonely = dir.filePath("no-writer.fifo").toStdString();
    QCOMPARE(::mkfifo(lonely.c_str(), 0600), 0);
    QCOMPARE(json_util::readText(lonely), std::string());

    // A writer that never stops: it holds the FIFO open read-write, so a reader always finds a
    // writer, and it writes until told to stop (a read of what is left unblocks its last write).
    const std::string endless = dir.filePath("endless.fifo").toStdString();
    QCOMPARE(::mkfifo(endless.c_str(), 0600), 0);
    const int writer_fd = ::open(endless.c_str(), O_RDWR);
    QVERIFY(writer_fd >= 0);
    std::atomic<bool> stop{false};
    std::thread writer([&] {
      const std::string spaces(4096, ' ');
      while (!stop && ::write(writer_fd, spaces.data(), spaces.size()) > 0) {
      }
    });
    const QString cut = inputErrorOf([&] { json_util::readText(endless, "JSON file", kBound); });
    stop = true;
    const int drain = ::open(endless.c_str(), O_RDONLY | O_NONBLOCK);
    char sink[65536];
    while (::read(drain, sink, sizeof sink) > 0) {
    }
    writer.join();
    ::close(drain);
    ::close(writer_fd);
    SAILOR_VERIFY_MESSAGE(cut, QStringList({QString::fromStdString(endless) + ": " + over}));
  }

  // `--data FILE` (a text file) is read up to kMaxTextFileBytes whatever the file's kind: a
  // larger file (sparse, so cheap) is refused by its size, naming the bound.
  void textDataIsReadUpToItsBound() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string huge = dir.filePath("huge.txt").toStdString();
    std::ofstream(huge) << "text";
    std::filesystem::resize_file(huge, kMaxTextFileBytes + 1);
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { (void)TokenSource::textFile(huge, 1); }),
                          QStringList({"--data", "a file of 1073741825 bytes",
                                       "a text file of at most 1073741824 bytes"}));
  }

  // NOTE [Each key once]: a key written twice in one object is refused naming the key, where it
  // is repeated and where it was first (line and column of the text as written, indentation
  // included), in any object at any depth and however the key is escaped; the same key in two
  // objects is not a repeat.
  void aRepeatedKeyIsRefusedWithBothPositions() {
    SAILOR_VERIFY_MESSAGE(
        inputErrorOf([] {
          json_util::parseText("{\n  \"global_batch_size\": 1024,\n  \"global_batch_size\": 8\n}",
                               "job.json");
        }),
        QStringList({"job.json: line 3, column 3: got the key \"global_batch_size\" again (first "
                     "at line 2, column 3), expected each key once in an object"}));
    SAILOR_VERIFY_MESSAGE(
        inputErrorOf([] {
          json_util::parseText(
              R"({"pools": [{"count": 1}, {"count": 2, "zone": "a", "count": 3}]})", "t");
        }),
        QStringList({"t: line 1, column 52: got the key \"count\" again (first at line 1, "
                     "column 27)"}));
    SAILOR_VERIFY_MESSAGE(
        inputErrorOf([] { json_util::parseText(R"({"a": 1, "\u0061": 2})", "t"); }),
        QStringList({"line 1, column 10: got the key \"a\" again (first at line 1, column 2)"}));
    QCOMPARE(json_util::parseText(R"([{"a": 1}, {"a": 2, "b": {"a": 3}}])", "t").dump(),
             std::string(R"([{"a":1},{"a":2,"b":{"a":3}}])"));
    // A format's reader goes through it: a job whose batch is given twice is refused, not read
    // as its last value.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("job.json").toStdString();
    std::ofstream(path)
        << R"({"model": "OPT-350M", "global_batch_size": 1024, "sequence_length": 2048,
        "global_batch_size": 8})";
    SAILOR_VERIFY_MESSAGE(
        inputErrorOf([&] { Job::fromJson(json_util::readFile(path), cat_); }),
        QStringList({QString::fromStdString(path) + ": line 2, column 9: got the key "
                                                    "\"global_batch_size\" again (first at line 1, "
                                                    "column 23)"}));
  }

  // A points file with an empty "points" array is an error (docs/formats.md: a file with no
  // point that can be predicted is exit 2), for both readers.
  void emptyPointsFileIsAnError() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("points.json").toStdString();
    std::ofstream(path) << R"({"points": []})";
    const QStringList needles({QString::fromStdString(path) + ": points: got [], expected at "
                                                              "least one measured point"});
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { readMeasuredPoints(path, cat_); }), needles);
    SAILOR_VERIFY_MESSAGE(inputErrorOf([&] { loadMeasuredPoints(path, cat_); }), needles);
  }

  void writeFileAtomicallyReportsUnwritablePath() {
    const QString msg =
        inputErrorOf([] { json_util::writeFileAtomically("/nonexistent-dir/x/plan.json", "{}"); });
    SAILOR_VERIFY_MESSAGE(msg, QStringList({"/nonexistent-dir/x/plan.json", "cannot be written"}));
  }
};

QTEST_GUILESS_MAIN(TestModelJson)
#include "test_model_json.moc"
