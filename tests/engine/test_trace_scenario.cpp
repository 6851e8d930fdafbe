// Scenarios from GPU counts per (type, zone), priced from the shipped price sheet
// (engine/include/sailor/scenario/trace_scenario.hpp): what `sailor plan --trace` and the planner
// bench plan on. Prices are the sheet's figures; a GPU type the sheet does not price in a region is
// bad input naming both.
#include <QTest>

#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/prices.hpp"
#include "sailor/model/reference.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/scenario/trace_scenario.hpp"
#include "test_support.hpp"

using namespace sailor;

namespace {

TraceRow rowOf(std::vector<SiteCount> counts) {
  TraceRow row;
  row.label = "1712574014.0187";
  for (const auto& c : counts) {
    row.sites.emplace_back(c.gpu_type, c.zone);
    row.counts.push_back(c.count);
  }
  return row;
}

const Pool* findPool(const Scenario& sc, const std::string& gpu, const std::string& zone,
                     bool spot = false) {
  for (const auto& p : sc.pools)
    if (p.gpu_type == gpu && p.zone == zone && p.spot == spot) return &p;
  return nullptr;
}

}  // namespace

class TestTraceScenario : public QObject {
  Q_OBJECT
  Catalog cat_ = Catalog::load(test::resources());
  PriceSheet sheet_ = PriceSheet::load(test::resources() + "/prices/default.json");
  PriceSource prices_{sheet_, "resources/prices/default.json"};

  Scenario defaultScenario() {
    return Scenario::fromJson(json_util::readFile(test::resources() + "/scenarios/default.json"),
                              cat_);
  }

 private slots:
  void siteCountsKeepTheColumnOrder() {
    const auto counts =
        siteCounts(rowOf({{"V100-16", "us-central1-a", 96}, {"A100-40", "us-central1-a", 32}}));
    QCOMPARE(counts.size(), size_t{2});
    QCOMPARE(counts[0].gpu_type, std::string("V100-16"));
    QCOMPARE(counts[0].count, 96);
    QCOMPARE(counts[1].gpu_type, std::string("A100-40"));
    QCOMPARE(counts[1].zone, std::string("us-central1-a"));
    QCOMPARE(counts[1].count, 32);
  }

  void siteCountsOfQuotas() {
    const std::map<std::pair<std::string, std::string>, int> quotas{
        {{"V100-16", "us-west1-b"}, 100}, {{"A100-40", "us-central1-a"}, 150}};
    const auto counts = siteCounts(quotas);
    QCOMPARE(counts.size(), size_t{2});
    // (type, zone) order, as the map holds them.
    QCOMPARE(counts[0].gpu_type, std::string("A100-40"));
    QCOMPARE(counts[0].count, 150);
    QCOMPARE(counts[1].zone, std::string("us-west1-b"));
  }

  // Each pool at the sheet's price for its zone's region: the same GPU type costs what its
  // region's row says (A100-40: 3.673385 in us-central1, 4.04 in europe-west4).
  void pricedPoolsTakeTheRegionsPrice() {
    const auto pools = pricedPools({{"A100-40", "us-central1-b", 16},
                                    {"A100-40", "europe-west4-a", 8},
                                    {"H100-80", "us-central1-a", 8}},
                                   prices_);
    QCOMPARE(pools.size(), size_t{3});
    QCOMPARE(pools[0].usd_per_gpu_hour, 3.673385);
    QCOMPARE(pools[0].count, 16);
    QCOMPARE(pools[0].zone, std::string("us-central1-b"));
    QVERIFY(!pools[0].spot);
    QVERIFY(!pools[0].gpus_per_node);  // no reference: the catalogue's node size
    QCOMPARE(pools[1].usd_per_gpu_hour, 4.04);
    QCOMPARE(pools[2].usd_per_gpu_hour, 11.06125);
  }

  // The sheet prices the GH200 at SAILOR's evaluation figure, 11.06 USD/GPU-hour: the price the
  // planner bench plans GH-96 at (it had its own fallback until the sheet carried the row).
  void gh96IsPricedAtSailorsFigure() {
    for (const char* zone : {"us-central1-a", "us-west1-b"}) {
      const auto pools = pricedPools({{"GH-96", zone, 8}}, prices_);
      QCOMPARE(pools.front().usd_per_gpu_hour, 11.06);
    }
  }

  void unpricedGpuIsBadInput() {
    const QString msg = test::inputErrorOf([&] {
      (void)pricedPools({{"H100-80", "us-west1-b", 4}}, prices_);
    });
    QCOMPARE(msg, QString("prices: got H100-80 in us-west1, expected a price in "
                          "resources/prices/default.json"));
  }

  void referenceGivesTheNodeSize() {
    SailorReference ref;
    ref.gpus_per_node = {{"GH-96", 4}};
    const auto pools = pricedPools({{"GH-96", "us-central1-a", 8}, {"A100-40", "us-central1-a", 8}},
                                   prices_, &ref);
    QCOMPARE(pools[0].gpus_per_node.value_or(-1), 4);
    QVERIFY(!pools[1].gpus_per_node);  // the reference does not name A100-40's
  }

  // Without a reference the row's counts replace the base scenario's: pools the row names take
  // its count (spot and on-demand alike), the others 0, and a site the base lacks is added at
  // the sheet's price; zones, links and the other prices stay the base's.
  void rowReplacesTheBaseCounts() {
    const Scenario base = defaultScenario();
    const Scenario sc = traceRowScenario(rowOf({{"A100-40", "us-central1-a", 8},
                                                {"A100-40", "us-central1-c", 5},
                                                {"L4", "us-central1-a", 4}}),
                                         base, prices_, nullptr, cat_);
    QCOMPARE(sc.name, base.name);
    QCOMPARE(sc.pools.size(), base.pools.size() + 1);
    QCOMPARE(findPool(sc, "A100-40", "us-central1-a")->count, 8);
    QCOMPARE(findPool(sc, "A100-40", "us-central1-c", true)->count, 5);  // the spot pool
    QCOMPARE(findPool(sc, "A100-40", "us-central1-c", true)->usd_per_gpu_hour, 1.18);
    QCOMPARE(findPool(sc, "V100-16", "us-central1-a")->count, 0);
    QCOMPARE(findPool(sc, "H100-80", "europe-west4-a")->count, 0);
    const Pool* added = findPool(sc, "L4", "us-central1-a");
    QVERIFY(added);
    QCOMPARE(added->count, 4);
    QCOMPARE(added->usd_per_gpu_hour, 0.706832);
    QCOMPARE(sc.regions.size(), base.regions.size());
  }

  void rowInAZoneTheBaseLacksIsBadInput() {
    const QString msg = test::inputErrorOf([&] {
      (void)traceRowScenario(rowOf({{"A100-40", "us-central1-f", 8}}), defaultScenario(), prices_,
                             nullptr, cat_);
    });
    SAILOR_VERIFY_MESSAGE(msg, QStringList{"us-central1-f"});
  }

  // With SAILOR's reference: its zones, links and egress, and only the row's pools, priced from
  // the sheet with the reference's node sizes (GH-96: 4 per node in basic_cluster_config.json).
  void rowOverTheReference() {
    const std::string dir = test::sharedDir() + "/reference/sailor";
    SailorReference ref;
    try {
      ref = SailorReference::load(dir, cat_);
    } catch (const InputError& e) {
      QSKIP(qPrintable("no SAILOR reference data beside the project: " + QString(e.what())));
    }
    const Scenario sc =
        traceRowScenario(rowOf({{"GH-96", "us-central1-a", 8}, {"V100-16", "us-west1-b", 4}}),
                         Scenario{}, prices_, &ref, cat_);
    QCOMPARE(sc.name, std::string("sailor-reference"));
    QCOMPARE(sc.pools.size(), size_t{2});
    QCOMPARE(sc.pools[0].usd_per_gpu_hour, 11.06);
    QCOMPARE(sc.pools[0].gpus_per_node.value_or(-1), 4);
    QCOMPARE(sc.pools[1].usd_per_gpu_hour, 2.859998);
    QVERIFY(!sc.links.empty());
    QVERIFY(!sc.egress_usd_per_gb.empty());
    const QString msg = test::inputErrorOf([&] {
      (void)traceRowScenario(rowOf({{"H100-80", "us-west1-b", 4}}), Scenario{}, prices_, &ref,
                             cat_);
    });
    SAILOR_VERIFY_MESSAGE(msg, QStringList{"H100-80 in us-west1"});
  }
};

QTEST_GUILESS_MAIN(TestTraceScenario)
#include "test_trace_scenario.moc"
