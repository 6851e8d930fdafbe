// Scenario edits that keep references whole (scenario_edit.hpp): a renamed zone is renamed in its
// region, pools, links and egress prices and nowhere else; a removed zone or region takes its
// pools, links and egress prices with it and leaves everything else as it was; each refusal
// names the field, the value and what was expected, and the scenario given never changes.
#include <QTest>

#include "sailor/model/catalog.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/scenario/scenario_edit.hpp"
#include "test_support.hpp"

using namespace sailor;
using Reason = ScenarioEditError::Reason;

namespace {

Pool pool(const std::string& zone, const std::string& gpu, int count) {
  Pool p;
  p.zone = zone;
  p.gpu_type = gpu;
  p.count = count;
  p.usd_per_gpu_hour = 2.5;
  return p;
}

LinkEntry link(const std::string& from, const std::string& to, double gb_per_s) {
  LinkEntry l;
  l.from_zone = from;
  l.to_zone = to;
  l.model = LinkModel::latencyBandwidth(1e-4, gb_per_s);
  return l;
}

// Two regions: us-central1 (zones a and b) and europe-west4 (zone eu). Every zone is named by
// a pool, a link and egress prices, so that each edit has something to carry along.
Scenario threeZones() {
  Scenario sc;
  sc.name = "three zones";
  sc.regions = {{"us-central1", "north-america", {"a", "b"}}, {"europe-west4", "europe", {"eu"}}};
  sc.pools = {pool("a", "A100-40", 8), pool("a", "V100-16", 4), pool("b", "A100-40", 16),
              pool("eu", "A100-40", 32)};
  sc.default_links = Scenario::builtinDefaultLinks();
  sc.default_egress_usd_per_gb = Scenario::builtinDefaultEgress();
  sc.links = {link("a", "b", 10), link("b", "eu", 2), link("eu", "a", 1)};
  sc.links[1].from_gpu = "A100-40";
  sc.links[1].to_gpu = "A100-40";
  sc.egress_usd_per_gb = {{{"a", "b"}, 0.01},  {{"b", "a"}, 0.01},  {{"b", "eu"}, 0.05},
                          {{"eu", "b"}, 0.05}, {{"a", "eu"}, 0.08}, {{"eu", "a"}, 0.08}};
  return sc;
}

// The scenario as JSON text: two scenarios are the same when their JSON is.
QString dump(const Scenario& sc) {
  return QString::fromStdString(sc.toJson().dump());
}

void compareError(const ScenarioEditResult& r, Reason reason, const std::string& field,
                  const std::string& value, const std::string& expected_part) {
  QVERIFY2(!r.ok(), "the edit was accepted");
  const ScenarioEditError& e = r.error();
  QCOMPARE(static_cast<int>(e.reason), static_cast<int>(reason));
  QCOMPARE(QString::fromStdString(e.field), QString::fromStdString(field));
  QCOMPARE(QString::fromStdString(e.value), QString::fromStdString(value));
  QVERIFY2(e.expected.find(expected_part) != std::string::npos, e.expected.c_str());
  QCOMPARE(QString::fromStdString(e.message()),
           QString::fromStdString(field + ": got " + value + ", expected " + e.expected));
}

}  // namespace

class TestScenarioEdit : public QObject {
  Q_OBJECT
  Catalog cat_ = Catalog::load(test::resources());

 private slots:
  void fixtureIsValid() { threeZones().validate(cat_); }

  void renameZoneRenamesEveryReference() {
    const Scenario before = threeZones();
    const ScenarioEditResult r = renameZone(before, "b", "c");
    QVERIFY(r.ok());
    const Scenario& sc = r.scenario();
    sc.validate(cat_);
    QCOMPARE(sc.regions[0].zones, (std::vector<std::string>{"a", "c"}));  // in place, same order
    QCOMPARE(sc.regions[1].zones, (std::vector<std::string>{"eu"}));
    QCOMPARE(sc.pools.size(), size_t{4});
    QCOMPARE(QString::fromStdString(sc.pools[2].zone), QStringLiteral("c"));
    QCOMPARE(QString::fromStdString(sc.pools[0].zone), QStringLiteral("a"));
    QCOMPARE(QString::fromStdString(sc.links[0].to_zone), QStringLiteral("c"));
    QCOMPARE(QString::fromStdString(sc.links[1].from_zone), QStringLiteral("c"));
    QCOMPARE(*sc.links[1].from_gpu, std::string("A100-40"));  // qualifiers kept
    QCOMPARE(QString::fromStdString(sc.links[2].to_zone), QStringLiteral("a"));
    const std::map<std::pair<std::string, std::string>, double> egress = {
        {{"a", "c"}, 0.01},  {{"c", "a"}, 0.01},  {{"c", "eu"}, 0.05},
        {{"eu", "c"}, 0.05}, {{"a", "eu"}, 0.08}, {{"eu", "a"}, 0.08}};
    QVERIFY(sc.egress_usd_per_gb == egress);
    // Prices follow the renamed pair: the pair's egress is what it was.
    QCOMPARE(sc.egressUsdPerGb("c", "eu"), before.egressUsdPerGb("b", "eu"));
    // Nothing else changed: renaming back gives the original scenario.
    const ScenarioEditResult back = renameZone(sc, "c", "b");
    QVERIFY(back.ok());
    QCOMPARE(dump(back.scenario()), dump(before));
    // The input is a value: untouched.
    QCOMPARE(dump(before), dump(threeZones()));
  }

  void renameZoneToItsOwnNameChangesNothing() {
    const ScenarioEditResult r = renameZone(threeZones(), "a", "a");
    QVERIFY(r.ok());
    QCOMPARE(dump(r.scenario()), dump(threeZones()));
  }

  void renameZoneRefusals_data() {
    QTest::addColumn<QString>("zone");
    QTest::addColumn<QString>("new_name");
    QTest::addColumn<int>("reason");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("expected");
    // An unknown zone is refused before its new name is looked at.
    QTest::newRow("unknown zone") << "x"
                                  << "" << static_cast<int>(Reason::UnknownZone) << "zone"
                                  << "\"x\""
                                  << "one of: a, b, eu";
    QTest::newRow("empty name") << "a"
                                << "" << static_cast<int>(Reason::EmptyName) << "new_name"
                                << "\"\""
                                << "not empty";
    QTest::newRow("blank name") << "a"
                                << " \t" << static_cast<int>(Reason::EmptyName) << "new_name"
                                << "\" \t\""
                                << "not empty";
    QTest::newRow("name of a zone in the same region")
        << "a"
        << "b" << static_cast<int>(Reason::NameTaken) << "new_name"
        << "\"b\""
        << "no other zone";
    QTest::newRow("name of a zone in another region")
        << "a"
        << "eu" << static_cast<int>(Reason::NameTaken) << "new_name"
        << "\"eu\""
        << "no other zone";
  }
  void renameZoneRefusals() {
    QFETCH(QString, zone);
    QFETCH(QString, new_name);
    QFETCH(int, reason);
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, expected);
    const Scenario before = threeZones();
    compareError(renameZone(before, zone.toStdString(), new_name.toStdString()),
                 static_cast<Reason>(reason), field.toStdString(), value.toStdString(),
                 expected.toStdString());
    QCOMPARE(dump(before), dump(threeZones()));
  }

  void removeZoneTakesItsPoolsLinksAndEgress() {
    const Scenario before = threeZones();
    const ScenarioEditResult r = removeZone(before, "a");
    QVERIFY(r.ok());
    const Scenario& sc = r.scenario();
    sc.validate(cat_);
    QCOMPARE(sc.regions[0].zones, (std::vector<std::string>{"b"}));
    QCOMPARE(sc.regions[1].zones, (std::vector<std::string>{"eu"}));
    // Both of a's pools go (index 0 and 1); b's and eu's stay, in order.
    QCOMPARE(sc.pools.size(), size_t{2});
    QCOMPARE(QString::fromStdString(sc.pools[0].zone), QStringLiteral("b"));
    QCOMPARE(QString::fromStdString(sc.pools[1].zone), QStringLiteral("eu"));
    // a-b (a at the start) and eu-a (a at the end) go; b-eu stays.
    QCOMPARE(sc.links.size(), size_t{1});
    QCOMPARE(QString::fromStdString(sc.links[0].from_zone), QStringLiteral("b"));
    QCOMPARE(QString::fromStdString(sc.links[0].to_zone), QStringLiteral("eu"));
    const std::map<std::pair<std::string, std::string>, double> egress = {{{"b", "eu"}, 0.05},
                                                                          {{"eu", "b"}, 0.05}};
    QVERIFY(sc.egress_usd_per_gb == egress);
    // The rest of the scenario is as it was.
    QCOMPARE(sc.default_links.size(), before.default_links.size());
    QCOMPARE(sc.name, before.name);
    QCOMPARE(dump(before), dump(threeZones()));
  }

  void removeZoneRefusals() {
    compareError(removeZone(threeZones(), "x"), Reason::UnknownZone, "zone", "\"x\"",
                 "one of: a, b, eu");
    // eu is europe-west4's only zone: a region needs one.
    compareError(removeZone(threeZones(), "eu"), Reason::LastZone, "zone", "\"eu\"",
                 "only one of its region europe-west4");
    // Once a is gone, b is the last zone of us-central1.
    const ScenarioEditResult r = removeZone(threeZones(), "a");
    QVERIFY(r.ok());
    compareError(removeZone(r.scenario(), "b"), Reason::LastZone, "zone", "\"b\"",
                 "region us-central1");
  }

  void removeRegionTakesItsZonesWithWhatNamesThem() {
    const Scenario before = threeZones();
    const ScenarioEditResult r = removeRegion(before, 0);
    QVERIFY(r.ok());
    const Scenario& sc = r.scenario();
    sc.validate(cat_);
    QCOMPARE(sc.regions.size(), size_t{1});
    QCOMPARE(QString::fromStdString(sc.regions[0].name), QStringLiteral("europe-west4"));
    QCOMPARE(sc.pools.size(), size_t{1});
    QCOMPARE(QString::fromStdString(sc.pools[0].zone), QStringLiteral("eu"));
    QVERIFY(sc.links.empty());              // every link touched a or b
    QVERIFY(sc.egress_usd_per_gb.empty());  // every pair had a or b
    QCOMPARE(dump(before), dump(threeZones()));

    // The other region: only b-a's link and egress survive.
    const ScenarioEditResult r1 = removeRegion(before, 1);
    QVERIFY(r1.ok());
    QCOMPARE(r1.scenario().links.size(), size_t{1});
    QCOMPARE(r1.scenario().pools.size(), size_t{3});
    QCOMPARE(r1.scenario().egress_usd_per_gb.size(), size_t{2});
  }

  void removeRegionRefusals() {
    compareError(removeRegion(threeZones(), -1), Reason::UnknownRegion, "region", "-1",
                 "from 0 to 1");
    compareError(removeRegion(threeZones(), 2), Reason::UnknownRegion, "region", "2",
                 "from 0 to 1");
    const ScenarioEditResult r = removeRegion(threeZones(), 0);
    QVERIFY(r.ok());
    compareError(removeRegion(r.scenario(), 0), Reason::LastRegion, "region", "europe-west4",
                 "not the scenario's only one");
  }
};

QTEST_GUILESS_MAIN(TestScenarioEdit)
#include "test_scenario_edit.moc"
