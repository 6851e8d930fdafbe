// The resource editor (widgets/scenario_document, resource_canvas, property_panel) on the default
// scenario: edits through the document, the canvas and the panel; exact undo/redo (toJson()
// compared); every rejected edit changes nothing; save/load round trip; a bad file leaves unsaved
// edits alone; canvas items match the scenario; the plan overlay colours zones, and its chips
// take their stage's colour in every language (zh_CN catalogue compiled for this suite); the
// layout at 1280×800 is legible and its labels do not overlap.
//
// Set SAILOR_SCREENSHOT_DIR to also write the 1280×800 window as PNGs (layoutAt1280x800...).
#include <algorithm>
#include <functional>
#include <memory>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>
#include <QUndoStack>
#include <QWidget>

#include "property_panel.hpp"
#include "resource_canvas.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/scenario/scenario.hpp"
#include "scenario_document.hpp"

using sailor::Pool;
using sailor::PriceOffer;
using sailor::Relation;
using sailor::studio::EditResult;
using sailor::studio::PropertyPanel;
using sailor::studio::ResourceCanvas;
using sailor::studio::ScenarioDocument;
using sailor::studio::Selection;

using Edit = std::function<EditResult(ScenarioDocument&)>;
Q_DECLARE_METATYPE(Edit)

namespace {

std::string dump(const ScenarioDocument& doc) {
  return doc.scenario().toJson().dump();
}

int poolsIn(const sailor::Scenario& sc, const std::string& zone) {
  return static_cast<int>(std::count_if(sc.pools.begin(), sc.pools.end(),
                                        [&](const Pool& p) { return p.zone == zone; }));
}

void writeFile(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write(bytes);
}

// The tooltip of the canvas item drawn for `s` (the top-most item with one at its centre).
QString toolTipAt(ResourceCanvas& canvas, const Selection& s) {
  const QRectF r = canvas.itemRect(s);
  for (QGraphicsItem* it : canvas.scene()->items(r.center()))
    if (!it->toolTip().isEmpty()) return it->toolTip();
  return {};
}

// Clicks the canvas at a scene point.
void clickScene(ResourceCanvas& canvas, const QPointF& scene_pos,
                Qt::KeyboardModifiers mods = Qt::NoModifier) {
  QTest::mouseClick(canvas.viewport(), Qt::LeftButton, mods, canvas.mapFromScene(scene_pos));
}

// A point in a zone's header, right of its name: the zone itself, not a chip.
QPointF zoneHeaderPoint(const ResourceCanvas& canvas, const QString& zone) {
  const QRectF r = canvas.itemRect({Selection::Zone, -1, zone});
  return {r.right() - 14, r.top() + 14};
}

// The colour drawn at a scene point.
QColor pixelAt(ResourceCanvas& canvas, const QPointF& scene_pos) {
  const QImage img = canvas.viewport()->grab().toImage();
  const QPoint p = canvas.mapFromScene(scene_pos);
  const double dpr = img.devicePixelRatio();
  return img.pixelColor(QPoint(static_cast<int>(p.x() * dpr), static_cast<int>(p.y() * dpr)));
}

// What a canvas draws, as text: every text item and every tooltip, sorted (positions aside).
QStringList drawnTexts(const ResourceCanvas& canvas) {
  QStringList out;
  for (const QGraphicsItem* item : canvas.scene()->items()) {
    if (const auto* t = dynamic_cast<const QGraphicsSimpleTextItem*>(item)) out << t->text();
    if (!item->toolTip().isEmpty()) out << QStringLiteral("tip: ") + item->toolTip();
  }
  out.sort();
  return out;
}

}  // namespace

class TestResourceEditor : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void init();

  // Document
  void addZonePoolLinkThenUndoRedoRestoresExactly();
  void invalidEditsAreRejectedAndChangeNothing_data();
  void invalidEditsAreRejectedAndChangeNothing();
  void removingAZoneRemovesItsPoolsLinksAndEgressInOneCommand();
  void removingSeveralItemsIsOneCommandAndAllOrNothing();
  void renamingAZoneUpdatesEveryReference();
  void changedFollowsEditUndoRedoButNotNoOps();
  void saveLoadRoundTripIsExactAndKeepsJob();
  void loadingABadFileKeepsUnsavedEdits_data();
  void loadingABadFileKeepsUnsavedEdits();
  void snapshotIsImmutable();
  void importedSailorFitIsKeptUntilEdited();

  // Canvas
  void canvasItemCountsMatchScenario();
  void canvasActionsAddZonePoolLinkAndDelete();
  void canvasClickSelectsAndCtrlClickSelectsTwoZones();
  void canvasKeepsSelectionAcrossRenameAndDropsItOnRemoval();
  void canvasDeletesACtrlClickedSelectionInOneStep();
  void canvasDrawsALinkByDraggingFromZoneToZone();
  void overlayColoursZonesUsedByStages();
  void overlayChipsKeepTheirStageColourInChinese();
  void readOnlyDisablesEditing();
  void layoutAt1280x800IsLegibleAndLabelsDoNotOverlap();
  void canvasRedrawsAPoolsFiguresInPlace();

  // Property panel
  void panelNegativePriceShowsInlineErrorAndChangesNothing();
  void panelValidEditAppliesAndUndoRefreshesTheField();
  void panelRenamesZoneAndCanvasFollows();
  void panelEditsScenarioDefaults();
  void panelKeepsItsFormWhenOnlyPoolFiguresChange();
  void panelPricingTogglesAndTraceRate();
  void offerPoolAddsItsRegionAndZoneInOneStep();

 private:
  std::unique_ptr<sailor::Catalog> catalog_;
  std::unique_ptr<ScenarioDocument> doc_;
};

void TestResourceEditor::initTestCase() {
  catalog_ = std::make_unique<sailor::Catalog>(sailor::Catalog::load(sailor::resourceDir()));
}

void TestResourceEditor::init() {
  doc_ = std::make_unique<ScenarioDocument>(*catalog_);
  const EditResult r = doc_->newFromDefault();
  QVERIFY2(r.ok(), qPrintable(r.message));
  QVERIFY(!doc_->isModified());
  QCOMPARE(doc_->scenario().regions.size(), size_t(3));
}

// ---------------------------------------------------------------------------------------------
// Document

void TestResourceEditor::addZonePoolLinkThenUndoRedoRestoresExactly() {
  ScenarioDocument& doc = *doc_;
  const std::string original = dump(doc);

  QVERIFY(doc.addZone(1, QStringLiteral("us-west1-c")).ok());
  Pool p;
  p.zone = "us-west1-c";
  p.gpu_type = "H100-80";
  p.count = 16;
  p.usd_per_gpu_hour = 11.5;
  p.spot = true;
  p.gpus_per_node = 8;
  QVERIFY(doc.addPool(p).ok());
  QVERIFY(doc.addLink(QStringLiteral("us-west1-c"), QStringLiteral("us-west1-b"), 4.5, 2e-4, 0.015)
              .ok());
  const std::string edited = dump(doc);

  const sailor::Scenario& sc = doc.scenario();
  QCOMPARE(sc.regions[1].zones.back(), std::string("us-west1-c"));
  const Pool* added = sc.findPool("us-west1-c", "H100-80");
  QVERIFY(added);
  QCOMPARE(added->count, 16);
  QCOMPARE(added->usd_per_gpu_hour, 11.5);
  QVERIFY(added->spot);
  QCOMPARE(sc.links.back().from_zone, std::string("us-west1-c"));
  QCOMPARE(sc.links.back().model.bytes_per_s, 4.5e9);
  QCOMPARE(sc.links.back().model.latency_s, 2e-4);
  // Egress is set for both directions of the pair (transfers go both ways).
  QCOMPARE(sc.egressUsdPerGb("us-west1-c", "us-west1-b"), 0.015);
  QCOMPARE(sc.egressUsdPerGb("us-west1-b", "us-west1-c"), 0.015);
  QVERIFY(doc.isModified());
  QCOMPARE(doc.undoStack()->count(), 3);

  doc.undoStack()->undo();
  doc.undoStack()->undo();
  doc.undoStack()->undo();
  QCOMPARE(dump(doc), original);
  QVERIFY(!doc.isModified());
  doc.undoStack()->redo();
  doc.undoStack()->redo();
  doc.undoStack()->redo();
  QCOMPARE(dump(doc), edited);
  QVERIFY(doc.isModified());
}

void TestResourceEditor::invalidEditsAreRejectedAndChangeNothing_data() {
  QTest::addColumn<Edit>("edit");
  QTest::addColumn<QString>("expected");  // a fragment of the message

  auto pool = [](std::string zone, std::string gpu, int count, double price) {
    Pool p;
    p.zone = std::move(zone);
    p.gpu_type = std::move(gpu);
    p.count = count;
    p.usd_per_gpu_hour = price;
    return p;
  };
  QTest::newRow("negative price") << Edit([=](ScenarioDocument& d) {
    return d.addPool(pool("us-central1-a", "A100-80", 8, -1));
  }) << QStringLiteral("Price must be ≥ 0 $/GPU-hour (got -1)");
  QTest::newRow("NaN price") << Edit([=](ScenarioDocument& d) {
    return d.addPool(pool("us-central1-a", "A100-80", 8, std::nan("")));
  }) << QStringLiteral("Price must be ≥ 0 $/GPU-hour (got nan)");
  QTest::newRow("negative count") << Edit([=](ScenarioDocument& d) {
    Pool p = d.scenario().pools[0];
    p.count = -3;
    return d.editPool(0, p);
  }) << QStringLiteral("GPU count must be ≥ 0 (got -3)");
  QTest::newRow("unknown GPU type")
      << Edit([=](ScenarioDocument& d) { return d.addPool(pool("us-central1-a", "B999", 8, 1)); })
      << QStringLiteral("Unknown GPU type \"B999\"");
  QTest::newRow("second pool of a type in a zone") << Edit([=](ScenarioDocument& d) {
    return d.addPool(pool("us-central1-a", "A100-40", 8, 1));
  }) << QStringLiteral("already has a A100-40 pool");
  QTest::newRow("edit into a duplicate pool") << Edit([=](ScenarioDocument& d) {
    Pool p = d.scenario().pools[0];  // A100-40 in us-central1-a
    p.gpu_type = "V100-16";          // us-central1-a has one
    return d.editPool(0, p);
  }) << QStringLiteral("already has a V100-16 pool");
  QTest::newRow("zero GPUs per node") << Edit([=](ScenarioDocument& d) {
    Pool p = pool("us-central1-a", "A100-80", 8, 1);
    p.gpus_per_node = 0;
    return d.addPool(p);
  }) << QStringLiteral("GPUs per node must be ≥ 1 (got 0)");
  QTest::newRow("pool in an unknown zone")
      << Edit([=](ScenarioDocument& d) { return d.addPool(pool("mars-1a", "A100-80", 8, 1)); })
      << QStringLiteral("Zone \"mars-1a\" is not in the scenario");
  QTest::newRow("zone name in use")
      << Edit([](ScenarioDocument& d) { return d.addZone(0, QStringLiteral("us-west1-b")); })
      << QStringLiteral("Zone name \"us-west1-b\" is already used");
  QTest::newRow("empty zone name")
      << Edit([](ScenarioDocument& d) { return d.addZone(0, QStringLiteral("  ")); })
      << QStringLiteral("A zone needs a name");
  QTest::newRow("rename zone onto another") << Edit([](ScenarioDocument& d) {
    return d.renameZone(QStringLiteral("us-central1-a"), QStringLiteral("us-central1-b"));
  }) << QStringLiteral("Zone name \"us-central1-b\" is already used");
  QTest::newRow("region name in use") << Edit([](ScenarioDocument& d) {
    return d.addRegion(QStringLiteral("us-west1"), QStringLiteral("europe"), QStringLiteral("z-1"));
  }) << QStringLiteral("Region name \"us-west1\" is already used");
  QTest::newRow("empty continent")
      << Edit([](ScenarioDocument& d) { return d.setRegionContinent(0, QString()); })
      << QStringLiteral("A region needs a continent");
  QTest::newRow("empty scenario name")
      << Edit([](ScenarioDocument& d) { return d.setName(QStringLiteral(" ")); })
      << QStringLiteral("The scenario needs a name");
  QTest::newRow("zero bandwidth") << Edit([](ScenarioDocument& d) {
    return d.addLink(QStringLiteral("us-central1-c"), QStringLiteral("europe-west4-a"), 0, 0.05);
  }) << QStringLiteral("Bandwidth must be > 0 GB/s (got 0)");
  QTest::newRow("negative latency")
      << Edit([](ScenarioDocument& d) { return d.editLink(0, 5, -0.1); })
      << QStringLiteral("Latency must be ≥ 0 s (got -0.1)");
  QTest::newRow("negative egress") << Edit([](ScenarioDocument& d) {
    return d.setPairEgress(QStringLiteral("us-central1-a"), QStringLiteral("us-central1-b"), -0.5);
  }) << QStringLiteral("Egress must be ≥ 0 $/GB (got -0.5)");
  QTest::newRow("link from a zone to itself") << Edit([](ScenarioDocument& d) {
    return d.addLink(QStringLiteral("us-central1-a"), QStringLiteral("us-central1-a"), 5, 1e-4);
  }) << QStringLiteral("A link joins two different zones");
  QTest::newRow("second link between a pair (reversed)") << Edit([](ScenarioDocument& d) {
    return d.addLink(QStringLiteral("us-central1-b"), QStringLiteral("us-central1-a"), 5, 1e-4);
  }) << QStringLiteral("are already linked");
  QTest::newRow("link to an unknown zone") << Edit([](ScenarioDocument& d) {
    return d.addLink(QStringLiteral("us-central1-a"), QStringLiteral("mars-1a"), 5, 1e-4);
  }) << QStringLiteral("Zone \"mars-1a\" is not in the scenario");
  QTest::newRow("zero default bandwidth") << Edit([](ScenarioDocument& d) {
    return d.setDefaultLink(Relation::CrossContinent, 0, 0.08);
  }) << QStringLiteral("Bandwidth must be > 0 GB/s (got 0)");
  QTest::newRow("negative default egress")
      << Edit([](ScenarioDocument& d) { return d.setDefaultEgress(Relation::SameRegion, -1); })
      << QStringLiteral("Egress must be ≥ 0 $/GB (got -1)");
  QTest::newRow("last zone of a region")
      << Edit([](ScenarioDocument& d) { return d.removeZone(QStringLiteral("us-west1-b")); })
      << QStringLiteral("needs at least one zone");
  QTest::newRow("pool index out of range")
      << Edit([](ScenarioDocument& d) { return d.removePool(99); }) << QStringLiteral("No pool 99");
  // Refusals of the engine's zone rules (sailor/scenario/scenario_edit.hpp), worded by the
  // document.
  QTest::newRow("rename an unknown zone") << Edit([](ScenarioDocument& d) {
    return d.renameZone(QStringLiteral("mars-1a"), QStringLiteral("mars-1b"));
  }) << QStringLiteral("No zone \"mars-1a\"");
  QTest::newRow("rename a zone to blanks") << Edit([](ScenarioDocument& d) {
    return d.renameZone(QStringLiteral("us-central1-a"), QStringLiteral("  "));
  }) << QStringLiteral("A zone needs a name");
  QTest::newRow("remove an unknown zone")
      << Edit([](ScenarioDocument& d) { return d.removeZone(QStringLiteral("mars-1a")); })
      << QStringLiteral("No zone \"mars-1a\"");
  QTest::newRow("region index out of range")
      << Edit([](ScenarioDocument& d) { return d.removeRegion(7); })
      << QStringLiteral("No region 7");
}

void TestResourceEditor::invalidEditsAreRejectedAndChangeNothing() {
  QFETCH(Edit, edit);
  QFETCH(QString, expected);
  ScenarioDocument& doc = *doc_;
  const std::string before = dump(doc);
  QSignalSpy changed(&doc, &ScenarioDocument::changed);
  const EditResult r = edit(doc);
  QVERIFY(!r.ok());
  QVERIFY2(r.message.contains(expected), qPrintable(r.message));
  QVERIFY(!r.field.isEmpty());
  QCOMPARE(dump(doc), before);
  QCOMPARE(doc.undoStack()->count(), 0);
  QCOMPARE(changed.count(), 0);
  QVERIFY(!doc.isModified());
}

void TestResourceEditor::removingAZoneRemovesItsPoolsLinksAndEgressInOneCommand() {
  ScenarioDocument& doc = *doc_;
  QVERIFY(doc.setPairEgress(QStringLiteral("us-central1-a"), QStringLiteral("europe-west4-a"), 0.09)
              .ok());
  const std::string before = dump(doc);
  const int commands = doc.undoStack()->count();
  QCOMPARE(poolsIn(doc.scenario(), "us-central1-a"), 2);

  QVERIFY(doc.removeZone(QStringLiteral("us-central1-a")).ok());
  const sailor::Scenario& sc = doc.scenario();
  QVERIFY(!sc.hasZone("us-central1-a"));
  QCOMPARE(poolsIn(sc, "us-central1-a"), 0);
  QCOMPARE(sc.pools.size(), size_t(8));
  // Three of the six links touch us-central1-a.
  QCOMPARE(sc.links.size(), size_t(3));
  for (const auto& l : sc.links)
    QVERIFY(l.from_zone != "us-central1-a" && l.to_zone != "us-central1-a");
  QVERIFY(sc.egress_usd_per_gb.empty());
  QCOMPARE(doc.undoStack()->count(), commands + 1);

  doc.undoStack()->undo();
  QCOMPARE(dump(doc), before);

  // A region goes with its zones and everything in them.
  QVERIFY(doc.removeRegion(0).ok());
  QCOMPARE(doc.scenario().regions.size(), size_t(2));
  QCOMPARE(doc.scenario().pools.size(), size_t(4));
  QCOMPARE(doc.scenario().links.size(), size_t(1));  // us-west1-b <-> europe-west4-a
  doc.undoStack()->undo();
  QCOMPARE(dump(doc), before);
}

// The default scenario: us-central1 {a, b, c}, us-west1 {b}, europe-west4 {a}; pools 0-1 in
// us-central1-a, 4-5 in us-central1-c, 6-7 in us-west1-b, 8-9 in europe-west4-a; links 0 a-b,
// 1 a-west, 2 b-west, 3 c-west, 4 a-europe, 5 west-europe.
void TestResourceEditor::removingSeveralItemsIsOneCommandAndAllOrNothing() {
  ScenarioDocument& doc = *doc_;
  const std::string before = dump(doc);
  const int commands = doc.undoStack()->count();
  // Two pools, a link, a zone, and a region together with its only zone (which alone would be
  // refused as the region's last zone).
  const QList<Selection> items{{Selection::Pool, 9, {}},
                               {Selection::Link, 5, {}},
                               {Selection::Zone, -1, QStringLiteral("us-central1-c")},
                               {Selection::Pool, 0, {}},
                               {Selection::Zone, -1, QStringLiteral("us-west1-b")},
                               {Selection::Region, 1, QStringLiteral("us-west1")}};
  const EditResult r = doc.removeItems(items);
  QVERIFY2(r.ok(), qPrintable(r.message));
  const sailor::Scenario& sc = doc.scenario();
  QCOMPARE(sc.regions.size(), size_t(2));
  QCOMPARE(sc.regions[0].zones, (std::vector<std::string>{"us-central1-a", "us-central1-b"}));
  // Left: pool 1 (V100-16 in a), 2-3 (b), 8 (A100-80 in europe).
  QCOMPARE(sc.pools.size(), size_t(4));
  QCOMPARE(sc.pools[0].gpu_type, std::string("V100-16"));
  QCOMPARE(sc.pools[3].gpu_type, std::string("A100-80"));
  // Left: links 0 (a-b) and 4 (a-europe); 1, 2, 3 went with their zones.
  QCOMPARE(sc.links.size(), size_t(2));
  QCOMPARE(sc.links[1].to_zone, std::string("europe-west4-a"));
  QCOMPARE(doc.undoStack()->count(), commands + 1);
  QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Remove 6 items"));
  doc.undoStack()->undo();
  QCOMPARE(dump(doc), before);
  doc.undoStack()->redo();
  QCOMPARE(doc.scenario().pools.size(), size_t(4));
  doc.undoStack()->undo();

  // All or nothing: every zone of us-central1 without the region leaves it empty; every region
  // leaves no region. Nothing changes and the reason is the single removal's.
  EditResult refused = doc.removeItems({{Selection::Pool, 9, {}},
                                        {Selection::Zone, -1, QStringLiteral("us-central1-a")},
                                        {Selection::Zone, -1, QStringLiteral("us-central1-b")},
                                        {Selection::Zone, -1, QStringLiteral("us-central1-c")}});
  QVERIFY(!refused.ok());
  QVERIFY2(refused.message.contains(QStringLiteral("needs at least one zone")),
           qPrintable(refused.message));
  refused = doc.removeItems(
      {{Selection::Region, 0, {}}, {Selection::Region, 1, {}}, {Selection::Region, 2, {}}});
  QVERIFY2(refused.message.contains(QStringLiteral("at least one region")),
           qPrintable(refused.message));
  QVERIFY(!doc.removeItems({}).ok());
  QCOMPARE(dump(doc), before);
  QCOMPARE(doc.undoStack()->count(), commands + 1);  // the undone removal, nothing new
  QCOMPARE(doc.undoStack()->index(), commands);
}

void TestResourceEditor::renamingAZoneUpdatesEveryReference() {
  ScenarioDocument& doc = *doc_;
  QVERIFY(
      doc.setPairEgress(QStringLiteral("us-west1-b"), QStringLiteral("europe-west4-a"), 0.07).ok());
  const std::string before = dump(doc);
  QVERIFY(doc.renameZone(QStringLiteral("us-west1-b"), QStringLiteral("us-west1-x")).ok());
  const sailor::Scenario& sc = doc.scenario();
  QVERIFY(!sc.hasZone("us-west1-b"));
  QCOMPARE(sc.regions[1].zones, std::vector<std::string>{"us-west1-x"});
  QCOMPARE(poolsIn(sc, "us-west1-x"), 2);
  const auto links = std::count_if(sc.links.begin(), sc.links.end(), [](const auto& l) {
    return l.from_zone == "us-west1-x" || l.to_zone == "us-west1-x";
  });
  QCOMPARE(links, 4);
  QCOMPARE(sc.egressUsdPerGb("us-west1-x", "europe-west4-a"), 0.07);
  QCOMPARE(sc.egressUsdPerGb("europe-west4-a", "us-west1-x"), 0.07);
  doc.undoStack()->undo();
  QCOMPARE(dump(doc), before);
}

void TestResourceEditor::changedFollowsEditUndoRedoButNotNoOps() {
  ScenarioDocument& doc = *doc_;
  QSignalSpy changed(&doc, &ScenarioDocument::changed);
  QSignalSpy modified(&doc, &ScenarioDocument::modifiedChanged);
  QVERIFY(doc.setName(QStringLiteral("renamed")).ok());
  QCOMPARE(changed.count(), 1);
  QCOMPARE(modified.count(), 1);
  QCOMPARE(modified.last().at(0).toBool(), true);
  // The same value again: accepted, but no command and no signal.
  QVERIFY(doc.setName(QStringLiteral("renamed")).ok());
  QCOMPARE(doc.undoStack()->count(), 1);
  QCOMPARE(changed.count(), 1);
  doc.undoStack()->undo();
  QCOMPARE(changed.count(), 2);
  QCOMPARE(doc.scenario().name, std::string("three-region-mix"));
  QCOMPARE(modified.last().at(0).toBool(), false);
  doc.undoStack()->redo();
  QCOMPARE(changed.count(), 3);
  QCOMPARE(doc.scenario().name, std::string("renamed"));
}

void TestResourceEditor::saveLoadRoundTripIsExactAndKeepsJob() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  // A scenario file with a job: keys Scenario does not model survive a load/save.
  const QString with_job = dir.filePath(QStringLiteral("with_job.json"));
  QFile def(QString::fromStdString(sailor::resourceDir() + "/scenarios/default.json"));
  QVERIFY(def.open(QIODevice::ReadOnly));
  nlohmann::json j = nlohmann::json::parse(def.readAll().toStdString());
  j["job"] = {{"model", "OPT-350M"}, {"global_batch_size", 64}};
  writeFile(with_job, QByteArray::fromStdString(j.dump()));

  ScenarioDocument& doc = *doc_;
  QSignalSpy file_changed(&doc, &ScenarioDocument::fileChanged);
  QVERIFY(doc.load(with_job).ok());
  QCOMPARE(doc.filePath(), with_job);
  QCOMPARE(file_changed.count(), 1);
  QVERIFY(doc.addZone(2, QStringLiteral("europe-west4-b")).ok());
  Pool p = doc.scenario().pools[3];
  p.usd_per_gpu_hour = 10.25;
  p.gpus_per_node = 4;
  QVERIFY(doc.editPool(3, p).ok());
  QVERIFY(doc.setDefaultLink(Relation::SameContinent, 1.5, 0.025).ok());
  QVERIFY(doc.isModified());

  const QString path = dir.filePath(QStringLiteral("saved.json"));
  const EditResult saved = doc.save(path);
  QVERIFY2(saved.ok(), qPrintable(saved.message));
  QVERIFY(!doc.isModified());
  QCOMPARE(doc.filePath(), path);
  QCOMPARE(file_changed.count(), 2);

  ScenarioDocument other(*catalog_);
  const EditResult loaded = other.load(path);
  QVERIFY2(loaded.ok(), qPrintable(loaded.message));
  QCOMPARE(dump(other), dump(doc));
  QVERIFY(!other.isModified());
  QFile back(path);
  QVERIFY(back.open(QIODevice::ReadOnly));
  const nlohmann::json written = nlohmann::json::parse(back.readAll().toStdString());
  QCOMPARE(written.at("job").at("global_batch_size").get<int>(), 64);

  // Saving into a directory that does not exist fails and keeps the document modified.
  QVERIFY(doc.setName(QStringLiteral("changed")).ok());
  const EditResult failed = doc.save(dir.filePath(QStringLiteral("no/such/dir/x.json")));
  QVERIFY(!failed.ok());
  QVERIFY(doc.isModified());
  QCOMPARE(doc.filePath(), path);
}

void TestResourceEditor::loadingABadFileKeepsUnsavedEdits_data() {
  QTest::addColumn<QByteArray>("content");  // empty: no file at all
  QTest::addColumn<QString>("expected");
  QTest::newRow("missing file") << QByteArray() << QStringLiteral("Cannot read");
  QTest::newRow("not JSON") << QByteArray("{\"regions\": [") << QStringLiteral("not valid JSON");
  QTest::newRow("negative count")
      << QByteArray(R"({"regions": [{"name": "r", "continent": "europe", "zones": ["z"]}],
                       "pools": [{"zone": "z", "gpu_type": "A100-40", "count": -3,
                                  "usd_per_gpu_hour": 1}]})")
      << QStringLiteral("pools[0].count");
  QTest::newRow("unknown GPU type")
      << QByteArray(R"({"regions": [{"name": "r", "continent": "europe", "zones": ["z"]}],
                       "pools": [{"zone": "z", "gpu_type": "B999", "count": 8,
                                  "usd_per_gpu_hour": 1}]})")
      << QStringLiteral("pools[0].gpu_type");
  QTest::newRow("pool in an undeclared zone")
      << QByteArray(R"({"regions": [{"name": "r", "continent": "europe", "zones": ["z"]}],
                       "pools": [{"zone": "y", "gpu_type": "A100-40", "count": 8,
                                  "usd_per_gpu_hour": 1}]})")
      << QStringLiteral("pools[0].zone");
}

void TestResourceEditor::loadingABadFileKeepsUnsavedEdits() {
  QFETCH(QByteArray, content);
  QFETCH(QString, expected);
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("bad.json"));
  if (!content.isEmpty()) writeFile(path, content);

  ScenarioDocument& doc = *doc_;
  QVERIFY(doc.addZone(0, QStringLiteral("us-central1-f")).ok());
  QVERIFY(doc.setName(QStringLiteral("edited")).ok());
  const std::string before = dump(doc);
  QSignalSpy changed(&doc, &ScenarioDocument::changed);
  const EditResult r = doc.load(path);
  QVERIFY(!r.ok());
  QVERIFY2(r.message.contains(expected), qPrintable(r.message));
  QCOMPARE(dump(doc), before);
  QVERIFY(doc.isModified());
  QCOMPARE(doc.undoStack()->count(), 2);
  QVERIFY(doc.filePath().isEmpty());
  QCOMPARE(changed.count(), 0);
  doc.undoStack()->undo();
  QCOMPARE(doc.scenario().name, std::string("three-region-mix"));
}

void TestResourceEditor::snapshotIsImmutable() {
  ScenarioDocument& doc = *doc_;
  const std::shared_ptr<const sailor::Scenario> snap = doc.snapshot();
  const std::string before = snap->toJson().dump();
  QVERIFY(doc.removeZone(QStringLiteral("us-central1-a")).ok());
  QCOMPARE(snap->toJson().dump(), before);
  QVERIFY(doc.snapshot() != snap);
  QVERIFY(!doc.snapshot()->hasZone("us-central1-a"));
  doc.undoStack()->undo();
  QCOMPARE(doc.snapshot()->toJson().dump(), before);
}

void TestResourceEditor::importedSailorFitIsKeptUntilEdited() {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("fit.json"));
  writeFile(path, R"({"name": "fit",
    "regions": [{"name": "r", "continent": "europe", "zones": ["a", "b"]}],
    "network": {"links": [{"from_zone": "a", "to_zone": "b",
      "model": {"kind": "sailor_fit", "coefficients": [-0.018, 0.307, 2.357],
                "max_bytes_per_s": 3.7e9}}]}})");
  ScenarioDocument& doc = *doc_;
  QVERIFY(doc.load(path).ok());
  // Edits elsewhere leave the fitted model as imported.
  QVERIFY(doc.addZone(0, QStringLiteral("c")).ok());
  QVERIFY(doc.setPairEgress(QStringLiteral("a"), QStringLiteral("b"), 0.01).ok());
  QCOMPARE(doc.scenario().links[0].model.kind, sailor::LinkModel::Kind::SailorFit);
  QCOMPARE(doc.scenario().links[0].model.coefficients[1], 0.307);

  // The panel shows the cap and does not replace the model when nothing was typed.
  PropertyPanel panel(&doc);
  panel.setSelection({Selection::Link, 0, QStringLiteral("a ↔ b")});
  auto* bw = qobject_cast<QLineEdit*>(panel.field(QStringLiteral("link.bandwidth")));
  QVERIFY(bw);
  QCOMPARE(bw->text(), QStringLiteral("3.7"));
  emit bw->editingFinished();
  QCOMPARE(doc.scenario().links[0].model.kind, sailor::LinkModel::Kind::SailorFit);

  QVERIFY(doc.editLink(0, 2.0, 1e-3).ok());
  QCOMPARE(doc.scenario().links[0].model.kind, sailor::LinkModel::Kind::LatencyBandwidth);
  QCOMPARE(doc.scenario().links[0].model.bytes_per_s, 2e9);
  doc.undoStack()->undo();
  QCOMPARE(doc.scenario().links[0].model.kind, sailor::LinkModel::Kind::SailorFit);
}

// ---------------------------------------------------------------------------------------------
// Canvas

void TestResourceEditor::canvasItemCountsMatchScenario() {
  ResourceCanvas canvas(doc_.get());
  QCOMPARE(canvas.itemCount(Selection::Region), 3);
  QCOMPARE(canvas.itemCount(Selection::Zone), 5);
  QCOMPARE(canvas.itemCount(Selection::Pool), 10);
  QCOMPARE(canvas.itemCount(Selection::Link), 6);
  // Every zone lies inside its region's rectangle.
  for (size_t r = 0; r < doc_->scenario().regions.size(); ++r) {
    const QRectF region = canvas.itemRect({Selection::Region, static_cast<int>(r), {}});
    for (const auto& z : doc_->scenario().regions[r].zones)
      QVERIFY(region.contains(canvas.itemRect({Selection::Zone, -1, QString::fromStdString(z)})));
  }
  // The scene follows document edits, undo included.
  QVERIFY(doc_->removeZone(QStringLiteral("us-central1-a")).ok());
  QCOMPARE(canvas.itemCount(Selection::Zone), 4);
  QCOMPARE(canvas.itemCount(Selection::Pool), 8);
  QCOMPARE(canvas.itemCount(Selection::Link), 3);
  doc_->undoStack()->undo();
  QCOMPARE(canvas.itemCount(Selection::Zone), 5);
  QCOMPARE(canvas.itemCount(Selection::Link), 6);
}

void TestResourceEditor::canvasActionsAddZonePoolLinkAndDelete() {
  ResourceCanvas canvas(doc_.get());
  const std::string original = dump(*doc_);
  QSignalSpy failed(&canvas, &ResourceCanvas::editFailed);

  // Nothing selected: only "Add region" applies.
  QVERIFY(canvas.addRegionAction()->isEnabled());
  QVERIFY(!canvas.addZoneAction()->isEnabled());
  QVERIFY(!canvas.addPoolAction()->isEnabled());
  QVERIFY(!canvas.addLinkAction()->isEnabled());
  QVERIFY(!canvas.deleteAction()->isEnabled());
  QVERIFY(!canvas.addZone().ok());
  QCOMPARE(failed.count(), 1);

  QVERIFY(canvas.select({Selection::Region, 2, QStringLiteral("europe-west4")}));
  QVERIFY(canvas.addZoneAction()->isEnabled());
  canvas.addZoneAction()->trigger();
  // Five zones: names count from 6, and "zone-6" is free.
  QCOMPARE(doc_->scenario().regions[2].zones.back(), std::string("zone-6"));
  QCOMPARE(canvas.itemCount(Selection::Zone), 6);
  QCOMPARE(canvas.selection().kind, Selection::Zone);
  QCOMPARE(canvas.selection().name, QStringLiteral("zone-6"));

  QVERIFY(canvas.addPoolAction()->isEnabled());
  canvas.addPoolAction()->trigger();
  const Pool& p = doc_->scenario().pools.back();
  QCOMPARE(p.zone, std::string("zone-6"));
  // The first catalogue type with a price in the scenario: A100-40, priced like its pools.
  QCOMPARE(p.gpu_type, std::string("A100-40"));
  QCOMPARE(p.count, 8);
  QVERIFY(p.usd_per_gpu_hour > 0);
  QCOMPARE(canvas.itemCount(Selection::Pool), 11);
  QCOMPARE(canvas.selection().kind, Selection::Pool);
  // A second pool in the same zone gets the next priced type, never a duplicate.
  QVERIFY(canvas.addPool().ok());
  QCOMPARE(doc_->scenario().pools.back().gpu_type, std::string("A100-80"));

  QVERIFY(canvas.selectZones({QStringLiteral("zone-6"), QStringLiteral("us-central1-c")}));
  QVERIFY(canvas.addLinkAction()->isEnabled());
  canvas.addLinkAction()->trigger();
  const auto& l = doc_->scenario().links.back();
  QCOMPARE(l.from_zone, std::string("zone-6"));
  QCOMPARE(l.to_zone, std::string("us-central1-c"));
  // zone-6 is in europe: the cross-continent default (0.5 GB/s, 80 ms) seeds the new link.
  QCOMPARE(l.model.bytes_per_s, 0.5e9);
  QCOMPARE(l.model.latency_s, 0.08);
  QCOMPARE(canvas.itemCount(Selection::Link), 7);
  QCOMPARE(canvas.selection().kind, Selection::Link);

  canvas.deleteAction()->trigger();  // the new link
  QCOMPARE(canvas.itemCount(Selection::Link), 6);
  QVERIFY(canvas.select({Selection::Zone, -1, QStringLiteral("zone-6")}));
  QVERIFY(canvas.deleteSelection().ok());  // with its two pools
  QCOMPARE(canvas.itemCount(Selection::Pool), 10);
  QCOMPARE(dump(*doc_), original);

  QVERIFY(canvas.addRegion().ok());
  QCOMPARE(doc_->scenario().regions.back().name, std::string("region-4"));
  QCOMPARE(doc_->scenario().regions.back().zones, std::vector<std::string>{"zone-6"});
  QCOMPARE(canvas.selection().kind, Selection::Region);
  QCOMPARE(canvas.itemCount(Selection::Region), 4);
}

void TestResourceEditor::canvasClickSelectsAndCtrlClickSelectsTwoZones() {
  ResourceCanvas canvas(doc_.get());
  canvas.resize(1100, 700);
  canvas.show();
  QVERIFY(QTest::qWaitForWindowExposed(&canvas));
  QSignalSpy spy(&canvas, &ResourceCanvas::selectionChanged);

  clickScene(canvas, zoneHeaderPoint(canvas, QStringLiteral("us-central1-b")));
  QCOMPARE(spy.count(), 1);
  Selection s = qvariant_cast<Selection>(spy.last().at(0));
  QCOMPARE(s.kind, Selection::Zone);
  QCOMPARE(s.name, QStringLiteral("us-central1-b"));
  QCOMPARE(s.index, 1);

  clickScene(canvas, zoneHeaderPoint(canvas, QStringLiteral("us-west1-b")), Qt::ControlModifier);
  QCOMPARE(canvas.selectedZones(),
           (QStringList{QStringLiteral("us-central1-b"), QStringLiteral("us-west1-b")}));
  QVERIFY(canvas.addLinkAction()->isEnabled());
  // Those two are already linked: the document refuses, the canvas reports it.
  QSignalSpy failed(&canvas, &ResourceCanvas::editFailed);
  QVERIFY(!canvas.addLink().ok());
  QCOMPARE(failed.count(), 1);
  QVERIFY(failed.last().at(0).toString().contains(QStringLiteral("already linked")));

  // A pool chip.
  const QRectF chip = canvas.itemRect({Selection::Pool, 4, {}});  // A100-40 spot in us-central1-c
  QVERIFY(!chip.isEmpty());
  clickScene(canvas, chip.center());
  s = canvas.selection();
  QCOMPARE(s.kind, Selection::Pool);
  QCOMPARE(s.index, 4);
  QCOMPARE(s.name, QStringLiteral("A100-40 in us-central1-c"));

  // A region's header.
  const QRectF region = canvas.itemRect({Selection::Region, 2, {}});
  clickScene(canvas, region.topLeft() + QPointF(region.width() - 10, 10));
  QCOMPARE(canvas.selection().kind, Selection::Region);
  QCOMPARE(canvas.selection().name, QStringLiteral("europe-west4"));

  // Empty space clears the selection: the scenario is selected.
  clickScene(canvas, canvas.sceneRect().bottomRight() - QPointF(3, 3));
  QCOMPARE(canvas.selection().kind, Selection::Scenario);
  QCOMPARE(qvariant_cast<Selection>(spy.last().at(0)).kind, Selection::Scenario);
}

void TestResourceEditor::canvasKeepsSelectionAcrossRenameAndDropsItOnRemoval() {
  ResourceCanvas canvas(doc_.get());
  QVERIFY(canvas.select({Selection::Zone, -1, QStringLiteral("us-central1-c")}));
  QVERIFY(doc_->renameZone(QStringLiteral("us-central1-c"), QStringLiteral("us-central1-z")).ok());
  QCOMPARE(canvas.selection().kind, Selection::Zone);
  QCOMPARE(canvas.selection().name, QStringLiteral("us-central1-z"));
  // An unrelated edit keeps it too.
  QVERIFY(doc_->setName(QStringLiteral("x")).ok());
  QCOMPARE(canvas.selection().name, QStringLiteral("us-central1-z"));
  QVERIFY(doc_->removeZone(QStringLiteral("us-central1-z")).ok());
  QCOMPARE(canvas.selection().kind, Selection::Scenario);
}

// Ctrl+click gathers items of any kind; Delete removes them all as one undo step.
void TestResourceEditor::canvasDeletesACtrlClickedSelectionInOneStep() {
  ResourceCanvas canvas(doc_.get());
  canvas.resize(1100, 700);
  canvas.show();
  QVERIFY(QTest::qWaitForWindowExposed(&canvas));
  const std::string before = dump(*doc_);
  const int commands = doc_->undoStack()->count();
  clickScene(canvas, canvas.itemRect({Selection::Pool, 0, {}}).center());  // A100-40 in a
  clickScene(canvas, canvas.itemRect({Selection::Pool, 9, {}}).center(), Qt::ControlModifier);
  clickScene(canvas, zoneHeaderPoint(canvas, QStringLiteral("us-central1-c")), Qt::ControlModifier);
  QVERIFY(canvas.deleteAction()->isEnabled());
  QVERIFY(canvas.deleteSelection().ok());
  QCOMPARE(doc_->undoStack()->count(), commands + 1);
  QCOMPARE(doc_->scenario().pools.size(), size_t(6));  // 10 - 2 chosen - 2 in us-central1-c
  QVERIFY(!doc_->scenario().hasZone("us-central1-c"));
  QCOMPARE(canvas.selection().kind, Selection::Scenario);  // the removed items are deselected
  doc_->undoStack()->undo();
  QCOMPARE(dump(*doc_), before);
}

// Press on a zone, move, release on another zone (or a pool chip in it): one new link with the
// relation's default figures, selected, undoable. A drag that ends where it started, on empty
// space or on a read-only map adds nothing; a pair already linked is refused with the reason.
void TestResourceEditor::canvasDrawsALinkByDraggingFromZoneToZone() {
  ResourceCanvas canvas(doc_.get());
  canvas.resize(1100, 700);
  canvas.show();
  QVERIFY(QTest::qWaitForWindowExposed(&canvas));
  auto drag = [&](const QPointF& from, const QPointF& to) {
    const QPoint a = canvas.mapFromScene(from), b = canvas.mapFromScene(to);
    QTest::mousePress(canvas.viewport(), Qt::LeftButton, Qt::NoModifier, a);
    QTest::mouseMove(canvas.viewport(), (a + b) / 2);
    QTest::mouseMove(canvas.viewport(), b);
    QTest::mouseRelease(canvas.viewport(), Qt::LeftButton, Qt::NoModifier, b);
  };
  const std::string before = dump(*doc_);
  const size_t links = doc_->scenario().links.size();
  const QPointF c = zoneHeaderPoint(canvas, QStringLiteral("us-central1-c"));
  const QPointF europe = zoneHeaderPoint(canvas, QStringLiteral("europe-west4-a"));

  drag(c, europe);
  const auto& sc = doc_->scenario();
  QCOMPARE(sc.links.size(), links + 1);
  QCOMPARE(sc.links.back().from_zone, std::string("us-central1-c"));
  QCOMPARE(sc.links.back().to_zone, std::string("europe-west4-a"));
  // The default scenario's cross-continent default.
  const sailor::LinkModel& def = sc.default_links.at(sailor::Relation::CrossContinent);
  QCOMPARE(sc.links.back().model.bytes_per_s, def.bytes_per_s);
  QCOMPARE(canvas.selection().kind, Selection::Link);
  QCOMPARE(canvas.selection().index, static_cast<int>(links));
  doc_->undoStack()->undo();
  QCOMPARE(dump(*doc_), before);

  // Onto a pool chip: its zone.
  drag(c, canvas.itemRect({Selection::Pool, 1, {}}).center());  // V100-16 in us-central1-a
  QCOMPARE(doc_->scenario().links.size(), links + 1);
  QCOMPARE(doc_->scenario().links.back().to_zone, std::string("us-central1-a"));
  doc_->undoStack()->undo();

  // Back onto itself, and into empty space: nothing.
  drag(c, c + QPointF(-30, 20));
  drag(c, canvas.sceneRect().bottomRight() - QPointF(3, 3));
  QCOMPARE(dump(*doc_), before);

  // Already linked (link 3: us-central1-c <-> us-west1-b): refused, reported.
  QSignalSpy failed(&canvas, &ResourceCanvas::editFailed);
  drag(c, zoneHeaderPoint(canvas, QStringLiteral("us-west1-b")));
  QCOMPARE(failed.count(), 1);
  QVERIFY(failed.last().at(0).toString().contains(QStringLiteral("already linked")));
  QCOMPARE(dump(*doc_), before);

  canvas.setReadOnly(true);
  drag(c, europe);
  QCOMPARE(dump(*doc_), before);
}

void TestResourceEditor::overlayColoursZonesUsedByStages() {
  ResourceCanvas canvas(doc_.get());
  canvas.resize(1200, 760);
  canvas.show();
  QVERIFY(QTest::qWaitForWindowExposed(&canvas));
  const QColor neutral = canvas.zoneAccent(QStringLiteral("us-central1-a"));

  sailor::Plan plan;
  plan.microbatch_size = 2;
  sailor::Stage s0{0, 12, {}}, s1{13, 25, {}};
  for (int i = 0; i < 4; ++i) s0.replicas.push_back({"A100-40", 2, "us-central1-a"});
  s1.replicas.push_back({"A100-40", 1, "us-west1-b"});
  s1.replicas.push_back({"V100-16", 4, "us-west1-b"});
  plan.stages = {s0, s1};
  canvas.setPlanOverlay(plan);

  QCOMPARE(canvas.zoneAccent(QStringLiteral("us-central1-a")), ResourceCanvas::stageColor(0));
  QCOMPARE(canvas.zoneAccent(QStringLiteral("us-west1-b")), ResourceCanvas::stageColor(1));
  QCOMPARE(canvas.zoneAccent(QStringLiteral("europe-west4-a")), neutral);
  QVERIFY(ResourceCanvas::stageColor(0) != ResourceCanvas::stageColor(1));
  QCOMPARE(canvas.overlayChips(QStringLiteral("us-central1-a")),
           QStringList{QStringLiteral("S0: 8× A100-40 tp2")});
  QCOMPARE(
      canvas.overlayChips(QStringLiteral("us-west1-b")),
      (QStringList{QStringLiteral("S1: 1× A100-40 tp1"), QStringLiteral("S1: 4× V100-16 tp4")}));
  QVERIFY(canvas.overlayChips(QStringLiteral("europe-west4-a")).isEmpty());

  // What is drawn: a used zone's background has its stage's hue, an unused one is grey.
  auto background = [&](const QString& zone) {
    const QRectF r = canvas.itemRect({Selection::Zone, -1, zone});
    return pixelAt(canvas, QPointF(r.center().x(), r.bottom() - 5));
  };
  const QColor a = background(QStringLiteral("us-central1-a"));
  const QColor w = background(QStringLiteral("us-west1-b"));
  const QColor e = background(QStringLiteral("europe-west4-a"));
  QVERIFY2(
      std::abs(a.hsvHue() - ResourceCanvas::stageColor(0).hsvHue()) <= 12 && a.hsvSaturation() > 15,
      qPrintable(a.name()));
  QVERIFY2(
      std::abs(w.hsvHue() - ResourceCanvas::stageColor(1).hsvHue()) <= 12 && w.hsvSaturation() > 15,
      qPrintable(w.name()));
  QVERIFY2(e.hsvSaturation() < 12, qPrintable(e.name()));

  // The overlay survives document edits and goes away when cleared.
  QVERIFY(doc_->setName(QStringLiteral("y")).ok());
  QCOMPARE(canvas.zoneAccent(QStringLiteral("us-central1-a")), ResourceCanvas::stageColor(0));
  canvas.setPlanOverlay(std::nullopt);
  QCOMPARE(canvas.zoneAccent(QStringLiteral("us-central1-a")), neutral);
  QVERIFY(canvas.overlayChips(QStringLiteral("us-central1-a")).isEmpty());
}

// The chip text is translated ("S1：4× V100-16 tp4", a full-width colon in zh_CN); its colour
// must come from the plan's stage, not from reading the number back out of the text.
void TestResourceEditor::overlayChipsKeepTheirStageColourInChinese() {
  sailor::Plan plan;
  plan.microbatch_size = 1;
  // Three stages; us-central1-a holds stages 0 and 2, us-west1-b two chips of stage 1.
  sailor::Stage s0{0, 8, {}}, s1{9, 17, {}}, s2{18, 25, {}};
  s0.replicas = {{"A100-40", 2, "us-central1-a"}};
  s1.replicas = {{"A100-40", 1, "us-west1-b"}, {"V100-16", 4, "us-west1-b"}};
  s2.replicas = {{"A100-40", 4, "us-central1-a"}};
  plan.stages = {s0, s1, s2};
  const QList<QColor> central = {ResourceCanvas::stageColor(0), ResourceCanvas::stageColor(2)};
  const QList<QColor> west = {ResourceCanvas::stageColor(1), ResourceCanvas::stageColor(1)};
  QVERIFY(ResourceCanvas::stageColor(0) != ResourceCanvas::stageColor(1));
  QVERIFY(ResourceCanvas::stageColor(0) != ResourceCanvas::stageColor(2));

  {
    QTranslator zh;
    QVERIFY(zh.load(QStringLiteral(":/i18n/sailor_studio_zh_CN.qm")));
    QVERIFY(QCoreApplication::installTranslator(&zh));
    const auto uninstall = qScopeGuard([&] { QCoreApplication::removeTranslator(&zh); });
    ResourceCanvas canvas(doc_.get());
    canvas.setPlanOverlay(plan);
    // The catalogue is in effect: the chips read as zh_CN writes them.
    QCOMPARE(
        canvas.overlayChips(QStringLiteral("us-central1-a")),
        (QStringList{QStringLiteral("S0：2× A100-40 tp2"), QStringLiteral("S2：4× A100-40 tp4")}));
    QCOMPARE(canvas.overlayChipColors(QStringLiteral("us-central1-a")), central);
    QCOMPARE(canvas.overlayChipColors(QStringLiteral("us-west1-b")), west);
    QVERIFY(canvas.overlayChipColors(QStringLiteral("europe-west4-a")).isEmpty());
  }

  // The same plan in English: the same colours.
  ResourceCanvas canvas(doc_.get());
  canvas.setPlanOverlay(plan);
  QCOMPARE(
      canvas.overlayChips(QStringLiteral("us-central1-a")),
      (QStringList{QStringLiteral("S0: 2× A100-40 tp2"), QStringLiteral("S2: 4× A100-40 tp4")}));
  QCOMPARE(canvas.overlayChipColors(QStringLiteral("us-central1-a")), central);
  QCOMPARE(canvas.overlayChipColors(QStringLiteral("us-west1-b")), west);
}

void TestResourceEditor::readOnlyDisablesEditing() {
  ResourceCanvas canvas(doc_.get());
  QVERIFY(canvas.select({Selection::Zone, -1, QStringLiteral("us-central1-a")}));
  QVERIFY(canvas.addPoolAction()->isEnabled());
  canvas.setReadOnly(true);
  for (QAction* a : canvas.editActions()) QVERIFY(!a->isEnabled());
  const std::string before = dump(*doc_);
  QVERIFY(!canvas.addPool().ok());
  QVERIFY(!canvas.deleteSelection().ok());
  QCOMPARE(dump(*doc_), before);
  // Selection still works (the plan inspector clicks zones).
  QVERIFY(canvas.select({Selection::Zone, -1, QStringLiteral("us-west1-b")}));
  canvas.setReadOnly(false);
  QVERIFY(canvas.addPoolAction()->isEnabled());
}

void TestResourceEditor::layoutAt1280x800IsLegibleAndLabelsDoNotOverlap() {
  QWidget window;
  window.resize(1280, 800);
  auto* layout = new QHBoxLayout(&window);
  auto* canvas = new ResourceCanvas(doc_.get());
  auto* panel = new PropertyPanel(doc_.get());
  layout->addWidget(canvas, 3);
  layout->addWidget(panel, 1);
  QObject::connect(canvas, &ResourceCanvas::selectionChanged, panel, &PropertyPanel::setSelection);
  window.show();
  QVERIFY(QTest::qWaitForWindowExposed(&window));

  auto check = [&](const char* what) {
    // The whole map fits the view at a zoom where 13 px chip text stays ≥ 9.3 px.
    const double zoom = canvas->transform().m11();
    QVERIFY2(zoom >= 0.72, qPrintable(QStringLiteral("%1: zoom %2").arg(what).arg(zoom)));
    const QRect mapped = canvas->mapFromScene(canvas->sceneRect()).boundingRect();
    QVERIFY2(canvas->viewport()->rect().adjusted(-2, -2, 2, 2).contains(mapped),
             qPrintable(QStringLiteral("%1: map does not fit the view").arg(what)));
    // No label covers another (chips, headers, link labels).
    const std::vector<QRectF> rects = canvas->labelRects();
    QVERIFY(rects.size() > 20);
    for (size_t i = 0; i < rects.size(); ++i)
      for (size_t j = i + 1; j < rects.size(); ++j)
        QVERIFY2(
            !rects[i].intersects(rects[j]),
            qPrintable(QStringLiteral("%1: labels %2 and %3 overlap").arg(what).arg(i).arg(j)));
  };
  check("default");
  if (QTest::currentTestFailed()) return;
  const QString shots = qEnvironmentVariable("SAILOR_SCREENSHOT_DIR");
  if (!shots.isEmpty())
    window.grab().save(QDir(shots).filePath(QStringLiteral("resource_editor.png")));

  canvas->select({Selection::Pool, 4, {}});
  sailor::Plan plan;
  sailor::Stage s0{0, 12, {}}, s1{13, 25, {}};
  s0.replicas = {{"A100-40", 2, "us-central1-a"}, {"A100-40", 2, "us-central1-a"}};
  s1.replicas = {{"A100-40", 4, "us-west1-b"}, {"V100-16", 4, "us-central1-a"}};
  plan.stages = {s0, s1};
  canvas->setPlanOverlay(plan);
  check("overlay");
  if (QTest::currentTestFailed()) return;
  if (!shots.isEmpty())
    window.grab().save(QDir(shots).filePath(QStringLiteral("resource_editor_overlay.png")));
}

// An edit of a pool's figures (count, price, spot, GPUs per node) redraws that pool's chip in
// place: the zone boxes stay the same items (no new scene to lay out and paint in full), and
// what is drawn is what a canvas built from scratch draws. Any other edit rebuilds the scene.
void TestResourceEditor::canvasRedrawsAPoolsFiguresInPlace() {
  ResourceCanvas canvas(doc_.get());
  canvas.resize(900, 700);
  canvas.show();
  const QString zone = QStringLiteral("us-central1-a");
  auto zone_item = [&] {
    return canvas.scene()->itemAt(zoneHeaderPoint(canvas, zone), QTransform());
  };
  // The zone's box, tagged: a rebuilt scene has new boxes without the tag.
  QVERIFY(zone_item());
  constexpr int kTag = 77;
  zone_item()->setData(kTag, QStringLiteral("drawn first"));
  auto same_box = [&] { return zone_item() && zone_item()->data(kTag).isValid(); };
  const int items = static_cast<int>(canvas.scene()->items().size());
  const QString chip = QStringLiteral("32× A100-40 · $3.67/h");  // us-central1-a, us-west1-b
  const qsizetype chips = drawnTexts(canvas).count(chip);
  QVERIFY(chips >= 1);

  Pool p = doc_->scenario().pools[0];
  p.count = 24;
  p.usd_per_gpu_hour = 2.5;
  QVERIFY(doc_->editPool(0, p).ok());
  QVERIFY(same_box());
  QCOMPARE(static_cast<int>(canvas.scene()->items().size()), items);
  QVERIFY(drawnTexts(canvas).contains(QStringLiteral("24× A100-40 · $2.50/h")));
  QCOMPARE(drawnTexts(canvas).count(chip), chips - 1);
  QCOMPARE(drawnTexts(canvas), drawnTexts(ResourceCanvas(doc_.get())));

  p.spot = true;  // the badge: a rounded patch and its text
  p.gpus_per_node = 4;
  QVERIFY(doc_->editPool(0, p).ok());
  QVERIFY(same_box());
  QCOMPARE(static_cast<int>(canvas.scene()->items().size()), items + 2);
  QCOMPARE(drawnTexts(canvas), drawnTexts(ResourceCanvas(doc_.get())));

  doc_->undoStack()->undo();
  doc_->undoStack()->undo();
  QVERIFY(same_box());
  QCOMPARE(static_cast<int>(canvas.scene()->items().size()), items);
  QCOMPARE(drawnTexts(canvas), drawnTexts(ResourceCanvas(doc_.get())));
  QCOMPARE(drawnTexts(canvas).count(chip), chips);

  // A pool of another zone and type: the layout changes, the scene is built again.
  Pool moved = doc_->scenario().pools[0];
  moved.zone = "us-west1-b";
  moved.gpu_type = "H100-80";
  QVERIFY(doc_->editPool(0, moved).ok());
  QVERIFY(!same_box());
  QCOMPARE(drawnTexts(canvas), drawnTexts(ResourceCanvas(doc_.get())));
}

// ---------------------------------------------------------------------------------------------
// Property panel

void TestResourceEditor::panelNegativePriceShowsInlineErrorAndChangesNothing() {
  ResourceCanvas canvas(doc_.get());
  PropertyPanel panel(doc_.get());
  QObject::connect(&canvas, &ResourceCanvas::selectionChanged, &panel,
                   &PropertyPanel::setSelection);
  panel.show();
  QVERIFY(QTest::qWaitForWindowExposed(&panel));
  QVERIFY(canvas.select({Selection::Pool, 0, {}}));
  QCOMPARE(panel.selection().kind, Selection::Pool);

  auto* price = qobject_cast<QLineEdit*>(panel.field(QStringLiteral("pool.price")));
  QLabel* error = panel.errorLabel(QStringLiteral("pool.price"));
  QVERIFY(price && error);
  QCOMPARE(price->text(), QStringLiteral("3.673385"));
  QVERIFY(!error->isVisible());

  const std::string before = dump(*doc_);
  QSignalSpy rejected(&panel, &PropertyPanel::editRejected);
  price->selectAll();
  QTest::keyClicks(price, QStringLiteral("-1"));
  QTest::keyClick(price, Qt::Key_Return);
  QVERIFY(error->isVisible());
  QCOMPARE(error->text(), QStringLiteral("Price must be ≥ 0 $/GPU-hour (got -1)"));
  QCOMPARE(price->text(), QStringLiteral("-1"));  // the user's text stays
  QCOMPARE(dump(*doc_), before);
  QCOMPARE(doc_->undoStack()->count(), 0);
  QCOMPARE(rejected.count(), 1);
  QCOMPARE(rejected.last().at(0).toString(), QStringLiteral("pool.price"));

  // Not a number at all.
  price->setText(QStringLiteral("cheap"));
  emit price->editingFinished();
  QVERIFY(error->text().contains(QStringLiteral("Enter a price in $/GPU-hour (got \"cheap\")")));
  QCOMPARE(dump(*doc_), before);

  // An edit to another field of the same form keeps the rejected text and its error.
  auto* count = qobject_cast<QLineEdit*>(panel.field(QStringLiteral("pool.count")));
  count->setText(QStringLiteral("24"));
  emit count->editingFinished();
  QCOMPARE(doc_->scenario().pools[0].count, 24);
  QCOMPARE(qobject_cast<QLineEdit*>(panel.field(QStringLiteral("pool.price")))->text(),
           QStringLiteral("cheap"));
  QVERIFY(panel.errorLabel(QStringLiteral("pool.price"))->isVisible());
  QVERIFY(!panel.errorLabel(QStringLiteral("pool.count"))->isVisible());

  // A valid price applies and clears the error.
  price = qobject_cast<QLineEdit*>(panel.field(QStringLiteral("pool.price")));
  price->setText(QStringLiteral("2.5"));
  emit price->editingFinished();
  QCOMPARE(doc_->scenario().pools[0].usd_per_gpu_hour, 2.5);
  QVERIFY(!panel.errorLabel(QStringLiteral("pool.price"))->isVisible());
}

void TestResourceEditor::panelValidEditAppliesAndUndoRefreshesTheField() {
  PropertyPanel panel(doc_.get());
  panel.setSelection({Selection::Pool, 5, {}});  // L4 in us-central1-c
  const std::string before = dump(*doc_);
  auto* spot = qobject_cast<QCheckBox*>(panel.field(QStringLiteral("pool.spot")));
  auto* gpu = qobject_cast<QComboBox*>(panel.field(QStringLiteral("pool.gpu_type")));
  auto* per_node = qobject_cast<QLineEdit*>(panel.field(QStringLiteral("pool.gpus_per_node")));
  QVERIFY(spot && gpu && per_node);
  QVERIFY(!spot->isChecked());
  QCOMPARE(gpu->currentText(), QStringLiteral("L4"));
  QVERIFY(per_node->text().isEmpty());

  spot->setChecked(true);
  QVERIFY(doc_->scenario().pools[5].spot);
  gpu->setCurrentText(QStringLiteral("T4"));
  emit gpu->activated(gpu->currentIndex());
  QCOMPARE(doc_->scenario().pools[5].gpu_type, std::string("T4"));
  per_node = qobject_cast<QLineEdit*>(panel.field(QStringLiteral("pool.gpus_per_node")));
  per_node->setText(QStringLiteral("4"));
  emit per_node->editingFinished();
  QCOMPARE(doc_->scenario().pools[5].gpus_per_node, std::optional<int>(4));
  QCOMPARE(doc_->undoStack()->count(), 3);

  // Choosing a type the zone already has is refused inline (us-central1-c has A100-40).
  gpu = qobject_cast<QComboBox*>(panel.field(QStringLiteral("pool.gpu_type")));
  gpu->setCurrentText(QStringLiteral("A100-40"));
  emit gpu->activated(gpu->currentIndex());
  QVERIFY(panel.errorLabel(QStringLiteral("pool.gpu_type"))
              ->text()
              .contains(QStringLiteral("already has a A100-40 pool")));
  QCOMPARE(doc_->scenario().pools[5].gpu_type, std::string("T4"));

  // Undo brings the fields back to the document's values.
  doc_->undoStack()->undo();
  doc_->undoStack()->undo();
  doc_->undoStack()->undo();
  QCOMPARE(dump(*doc_), before);
  QCOMPARE(qobject_cast<QLineEdit*>(panel.field(QStringLiteral("pool.gpus_per_node")))->text(),
           QString());
  QVERIFY(!qobject_cast<QCheckBox*>(panel.field(QStringLiteral("pool.spot")))->isChecked());
  QCOMPARE(qobject_cast<QComboBox*>(panel.field(QStringLiteral("pool.gpu_type")))->currentText(),
           QStringLiteral("L4"));
}

void TestResourceEditor::panelRenamesZoneAndCanvasFollows() {
  ResourceCanvas canvas(doc_.get());
  PropertyPanel panel(doc_.get());
  QObject::connect(&canvas, &ResourceCanvas::selectionChanged, &panel,
                   &PropertyPanel::setSelection);
  QVERIFY(canvas.select({Selection::Zone, -1, QStringLiteral("europe-west4-a")}));
  auto* name = qobject_cast<QLineEdit*>(panel.field(QStringLiteral("zone.name")));
  QVERIFY(name);
  name->setText(QStringLiteral("europe-west4-b"));
  emit name->editingFinished();
  QVERIFY(doc_->scenario().hasZone("europe-west4-b"));
  QCOMPARE(canvas.selection().name, QStringLiteral("europe-west4-b"));
  QCOMPARE(panel.selection().kind, Selection::Zone);
  QCOMPARE(panel.selection().name, QStringLiteral("europe-west4-b"));
  QCOMPARE(qobject_cast<QLineEdit*>(panel.field(QStringLiteral("zone.name")))->text(),
           QStringLiteral("europe-west4-b"));

  // A name in use is refused inline; the document keeps the current name.
  name = qobject_cast<QLineEdit*>(panel.field(QStringLiteral("zone.name")));
  name->setText(QStringLiteral("us-west1-b"));
  emit name->editingFinished();
  QVERIFY(panel.errorLabel(QStringLiteral("zone.name"))
              ->text()
              .contains(QStringLiteral("already used")));
  QVERIFY(doc_->scenario().hasZone("europe-west4-b"));
  QCOMPARE(panel.selection().name, QStringLiteral("europe-west4-b"));

  // Deleting the selected zone's region from the canvas sends the panel back to the scenario.
  QVERIFY(doc_->removeRegion(2).ok());
  QCOMPARE(panel.selection().kind, Selection::Scenario);
  QVERIFY(panel.field(QStringLiteral("scenario.name")));
}

void TestResourceEditor::panelEditsScenarioDefaults() {
  PropertyPanel panel(doc_.get());
  QCOMPARE(panel.selection().kind, Selection::Scenario);
  for (const char* rel : {"same_zone", "same_region", "same_continent", "cross_continent"})
    for (const char* part : {"bandwidth", "latency", "egress"})
      QVERIFY(panel.field(
          QStringLiteral("default.%1.%2").arg(QLatin1String(rel), QLatin1String(part))));
  auto* bw =
      qobject_cast<QLineEdit*>(panel.field(QStringLiteral("default.same_continent.bandwidth")));
  QCOMPARE(bw->text(), QStringLiteral("1"));
  bw->setText(QStringLiteral("1.25"));
  emit bw->editingFinished();
  QCOMPARE(doc_->scenario().default_links.at(Relation::SameContinent).bytes_per_s, 1.25e9);
  QCOMPARE(doc_->scenario().default_links.at(Relation::SameContinent).latency_s, 0.02);

  auto* egress =
      qobject_cast<QLineEdit*>(panel.field(QStringLiteral("default.cross_continent.egress")));
  egress->setText(QStringLiteral("-0.08"));
  emit egress->editingFinished();
  QCOMPARE(doc_->scenario().default_egress_usd_per_gb.at(Relation::CrossContinent), 0.08);
  QLabel* error = panel.errorLabel(QStringLiteral("default.cross_continent.egress"));
  QVERIFY(!error->isHidden());
  QCOMPARE(error->text(), QStringLiteral("Egress must be ≥ 0 $/GB (got -0.08)"));

  auto* name = qobject_cast<QLineEdit*>(panel.field(QStringLiteral("scenario.name")));
  name->setText(QStringLiteral("my scenario"));
  emit name->editingFinished();
  QCOMPARE(doc_->scenario().name, std::string("my scenario"));
  doc_->undoStack()->undo();
  QCOMPARE(qobject_cast<QLineEdit*>(panel.field(QStringLiteral("scenario.name")))->text(),
           QStringLiteral("three-region-mix"));
}

// A pool's figures changed elsewhere (the canvas, undo): a form that does not show them keeps
// its editors and refreshes its values; the pool's own form shows the new values; a zone's form,
// which lists its pools, is built again with the new figures.
void TestResourceEditor::panelKeepsItsFormWhenOnlyPoolFiguresChange() {
  PropertyPanel panel(doc_.get());
  panel.setSelection({Selection::Scenario, -1, {}});
  const QPointer<QWidget> name = panel.field(QStringLiteral("scenario.name"));
  QVERIFY(name);
  Pool p = doc_->scenario().pools[0];
  p.count = 24;
  QVERIFY(doc_->editPool(0, p).ok());
  QCOMPARE(panel.field(QStringLiteral("scenario.name")), name.data());

  panel.setSelection({Selection::Pool, 0, {}});
  const QPointer<QWidget> count = panel.field(QStringLiteral("pool.count"));
  QCOMPARE(qobject_cast<QLineEdit*>(count.data())->text(), QStringLiteral("24"));
  doc_->undoStack()->undo();
  QCOMPARE(panel.field(QStringLiteral("pool.count")), count.data());
  QCOMPARE(qobject_cast<QLineEdit*>(count.data())->text(), QStringLiteral("32"));
  // Anything else (here a zone's name) builds the form again.
  QVERIFY(doc_->renameZone(QStringLiteral("us-central1-a"), QStringLiteral("zone-a")).ok());
  QVERIFY(panel.field(QStringLiteral("pool.count")) != count.data());
  doc_->undoStack()->undo();

  panel.setSelection({Selection::Zone, 0, QStringLiteral("us-central1-a")});
  auto pools_line = [&] {
    for (QLabel* l : panel.findChildren<QLabel*>())
      if (l->isVisibleTo(&panel) && l->text().contains(QStringLiteral("× A100-40")))
        return l->text();
    return QString();
  };
  QVERIFY2(pools_line().contains(QStringLiteral("32× A100-40")), qPrintable(pools_line()));
  QVERIFY(doc_->editPool(0, p).ok());
  QVERIFY2(pools_line().contains(QStringLiteral("24× A100-40")), qPrintable(pools_line()));
}

// The pool's pricing: Use in planning switches a pool off (kept, drawn dashed, said in its
// tip); Owned takes the pool off spot; Spot off drops a rate; a rate read from a trace comes
// with its source; a trace without the pool's column is refused under the rate field.
void TestResourceEditor::panelPricingTogglesAndTraceRate() {
  PropertyPanel panel(doc_.get());
  ResourceCanvas canvas(doc_.get());
  panel.setSelection({Selection::Pool, 4, {}});  // A100-40 spot in us-central1-c
  auto check = [&](const char* key) {
    return qobject_cast<QCheckBox*>(panel.field(QString::fromLatin1(key)));
  };
  QVERIFY(check("pool.enabled") && check("pool.owned") && check("pool.spot"));
  QVERIFY(check("pool.enabled")->isChecked());
  check("pool.enabled")->setChecked(false);
  QVERIFY(!doc_->scenario().pools[4].enabled);
  QCOMPARE(doc_->scenario().pools.size(), std::size_t{10});
  QVERIFY(toolTipAt(canvas, {Selection::Pool, 4, {}}).contains("left out of planning"));
  QVERIFY(!toolTipAt(canvas, {Selection::Pool, 3, {}}).contains("left out of planning"));

  QTemporaryDir dir;
  const QString trace = dir.filePath("t.csv");
  writeFile(trace, ",Timestamp,A100-40_us-central1-c\n0,0,16\n1,3600,12\n2,7200,16\n");
  QVERIFY(panel.setPreemptionsFromTrace(trace).ok());
  const Pool& p = doc_->scenario().pools[4];
  QCOMPARE(*p.preemptions_per_gpu_hour, 4.0 / 28);
  QCOMPARE(QString::fromStdString(*p.preemptions_source),
           QString("trace t.csv: 4 GPUs taken over 28 GPU-hours of A100-40 in us-central1-c"));
  const QString other = dir.filePath("o.csv");
  writeFile(other, ",Timestamp,V100-16_us-west1-b\n0,0,16\n1,60,8\n");
  const EditResult refused = panel.setPreemptionsFromTrace(other);
  QVERIFY(refused.message.contains("no column A100-40_us-central1-c"));
  QVERIFY(panel.errorLabel(QStringLiteral("pool.preemptions"))->text().contains("no column"));
  QCOMPARE(*doc_->scenario().pools[4].preemptions_per_gpu_hour, 4.0 / 28);
  // A typed rate beyond 1 a GPU-hour is refused by the scenario's own check, nothing changed.
  auto* rate = qobject_cast<QLineEdit*>(panel.field(QStringLiteral("pool.preemptions")));
  rate->setText(QStringLiteral("5"));
  emit rate->editingFinished();
  QVERIFY2(panel.errorLabel(QStringLiteral("pool.preemptions"))->text().contains("from 0 to 1"),
           qPrintable(panel.errorLabel(QStringLiteral("pool.preemptions"))->text()));
  QCOMPARE(*doc_->scenario().pools[4].preemptions_per_gpu_hour, 4.0 / 28);

  // Owned: off spot, the rate and its source dropped, in one step that undo takes back.
  const int steps = doc_->undoStack()->count();
  panel.setSelection({Selection::Pool, 4, {}});
  check("pool.owned")->setChecked(true);
  QVERIFY(doc_->scenario().pools[4].owned && !doc_->scenario().pools[4].spot);
  QVERIFY(!doc_->scenario().pools[4].preemptions_per_gpu_hour);
  QVERIFY(!doc_->scenario().pools[4].preemptions_source);
  QCOMPARE(doc_->undoStack()->count(), steps + 1);
  QVERIFY(toolTipAt(canvas, {Selection::Pool, 4, {}}).contains("owned"));
  doc_->undoStack()->undo();
  QVERIFY(doc_->scenario().pools[4].spot && doc_->scenario().pools[4].preemptions_source);
  panel.setSelection({Selection::Pool, 4, {}});
  check("pool.spot")->setChecked(false);
  QVERIFY(!doc_->scenario().pools[4].spot && !doc_->scenario().pools[4].preemptions_per_gpu_hour);
  QVERIFY(panel.setPreemptionsFromTrace(trace).message.contains("Make the pool spot first"));
  QVERIFY(!doc_->scenario().pools[4].preemptions_per_gpu_hour);
}

// A catalogue offer as a pool (ScenarioDocument::addOfferPool): its region, zone and pool at
// the offer's spot price, dated, in one undo step; the same offer again is refused, unchanged.
void TestResourceEditor::offerPoolAddsItsRegionAndZoneInOneStep() {
  PriceOffer o;
  o.cloud = "aws";
  o.region = "us-east-1";
  o.zone = "us-east-1a";
  o.instance_type = "p5.48xlarge";
  o.accelerator = "H100";
  o.gpu_type = "H100-80";
  o.gpus_per_instance = 8;
  o.usd_per_gpu_hour = 6.88;
  o.spot_usd_per_gpu_hour = 3.84;
  const std::size_t pools = doc_->scenario().pools.size(),
                    regions = doc_->scenario().regions.size();
  const int steps = doc_->undoStack()->count();
  QVERIFY(doc_->addOfferPool(o, 64, true, QStringLiteral("2026-11-30")).ok());
  QCOMPARE(doc_->undoStack()->count(), steps + 1);
  QCOMPARE(doc_->scenario().pools.size(), pools + 1);
  QCOMPARE(doc_->scenario().regions.size(), regions + 1);
  const Pool* p = doc_->scenario().findPool("us-east-1a", "H100-80");
  QVERIFY(p && p->spot && p->count == 64 && p->usd_per_gpu_hour == 3.84);
  QCOMPARE(*p->price_date, std::string("2026-11-30"));
  QCOMPARE(doc_->scenario().regionOf("us-east-1a").continent, std::string("north-america"));
  const EditResult again = doc_->addOfferPool(o, 8, false, QString());
  QVERIFY(!again.ok());
  QVERIFY2(again.message.contains("us-east-1a"), qPrintable(again.message));
  QCOMPARE(doc_->undoStack()->count(), steps + 1);
  doc_->undoStack()->undo();
  QCOMPARE(doc_->scenario().regions.size(), regions);
  QVERIFY(!doc_->scenario().findPool("us-east-1a", "H100-80"));
}

QTEST_MAIN(TestResourceEditor)
#include "test_resource_editor.moc"
