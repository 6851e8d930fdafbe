// ResourceCanvas: construction and actions, inspection, and the edits it makes through the
// document. Building the scene: canvas/canvas_drawing.cpp (layout: canvas/canvas_layout.cpp);
// selection, mouse and view: canvas/canvas_interaction.cpp.
#include "resource_canvas.hpp"

#include <string>

#include <QAction>
#include <QGraphicsScene>

#include "canvas/canvas_item.hpp"
#include "stage_palette.hpp"

namespace sailor::studio {

using canvas::q;

ResourceCanvas::ResourceCanvas(ScenarioDocument* document, QWidget* parent)
    : QGraphicsView(parent), doc_(document), scene_(new QGraphicsScene(this)) {
  setScene(scene_);
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setBackgroundBrush(Qt::white);
  setDragMode(QGraphicsView::NoDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setResizeAnchor(QGraphicsView::AnchorViewCenter);
  setMinimumSize(420, 300);
  setToolTip(QString());

  add_region_ = new QAction(tr("Add region"), this);
  add_region_->setToolTip(tr("Add a region with one zone (same continent as the selected region)"));
  add_zone_ = new QAction(tr("Add zone"), this);
  add_zone_->setToolTip(tr("Add a zone to the selected region"));
  add_pool_ = new QAction(tr("Add pool"), this);
  add_pool_->setToolTip(tr("Add a GPU pool (8 GPUs) to the selected zone"));
  add_link_ = new QAction(tr("Add link"), this);
  add_link_->setToolTip(
      tr("Add a network link between the two selected zones: click one zone, then Ctrl+click "
         "the other (or drag from one zone onto the other)"));
  delete_ = new QAction(tr("Delete"), this);
  delete_->setToolTip(
      tr("Delete the selected regions, zones, pools and links (with what they "
         "hold) in one step; Ctrl+click selects several"));
  delete_->setShortcut(QKeySequence::Delete);
  delete_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  for (QAction* a : editActions()) {
    a->setStatusTip(a->toolTip());
    addAction(a);
  }
  connect(add_region_, &QAction::triggered, this, [this] { addRegion(); });
  connect(add_zone_, &QAction::triggered, this, [this] { addZone(); });
  connect(add_pool_, &QAction::triggered, this, [this] { addPool(); });
  connect(add_link_, &QAction::triggered, this, [this] { addLink(); });
  connect(delete_, &QAction::triggered, this, [this] { deleteSelection(); });

  connect(doc_, &ScenarioDocument::changed, this, &ResourceCanvas::onDocumentChanged);
  rebuild();
}

ResourceCanvas::~ResourceCanvas() = default;

QList<QAction*> ResourceCanvas::editActions() const {
  return {add_region_, add_zone_, add_pool_, add_link_, delete_};
}

QColor ResourceCanvas::stageColor(int stage) {
  return stagePalette(stage);
}

// ---------------------------------------------------------------------------------------------
// Inspection

int ResourceCanvas::itemCount(Selection::Kind kind) const {
  ensureFresh();
  return static_cast<int>(std::count_if(items_.begin(), items_.end(), [&](CanvasItem* it) {
    return it->kind == kind && !it->is_label;
  }));
}

QColor ResourceCanvas::zoneAccent(const QString& zone) const {
  ensureFresh();
  for (CanvasItem* it : items_)
    if (it->kind == Selection::Zone && it->key == zone) return it->data(0).value<QColor>();
  return {};
}

QStringList ResourceCanvas::overlayChips(const QString& zone) const {
  ensureFresh();
  QStringList out;
  for (const OverlayChip& chip : overlay_chips_.value(zone)) out << chip.text;
  return out;
}

QList<QColor> ResourceCanvas::overlayChipColors(const QString& zone) const {
  ensureFresh();
  QList<QColor> out;
  for (CanvasItem* it : items_)
    if (it->kind == Selection::Zone && it->key == zone)
      for (QGraphicsItem* child : it->childItems())
        if (auto* chip = dynamic_cast<CanvasItem*>(child); chip && chip->kind == Selection::None)
          out << chip->data(0).value<QColor>();
  return out;
}

QRectF ResourceCanvas::itemRect(const Selection& selection) const {
  ensureFresh();
  for (CanvasItem* it : items_)
    if (it->kind == selection.kind && !it->is_label &&
        ((selection.kind == Selection::Zone || selection.kind == Selection::Region) &&
                 !selection.name.isEmpty()
             ? it->key == selection.name
             : it->index == selection.index))
      return it->mapRectToScene(it->path().boundingRect());
  return {};
}

std::vector<QRectF> ResourceCanvas::labelRects() const {
  ensureFresh();
  return label_rects_;
}

// ---------------------------------------------------------------------------------------------
// Edits

EditResult ResourceCanvas::report(const EditResult& result) {
  if (!result.ok()) emit editFailed(result.message);
  return result;
}

int ResourceCanvas::selectedRegion() const {
  const Selection s = selection();
  if (s.kind == Selection::Region) return s.index;
  if (s.kind == Selection::Zone) return doc_->regionIndexOfZone(s.name);
  return -1;
}

EditResult ResourceCanvas::addRegion() {
  if (read_only_) return report({QStringLiteral("canvas"), tr("The map is read-only")});
  const Scenario& sc = doc_->scenario();
  std::string continent = sc.regions.empty() ? "north-america" : sc.regions.front().continent;
  const int region = selectedRegion();
  if (region >= 0) continent = sc.regions[static_cast<size_t>(region)].continent;
  const QString name = doc_->uniqueRegionName();
  const EditResult r = doc_->addRegion(name, q(continent), doc_->uniqueZoneName());
  if (r.ok()) select({Selection::Region, -1, name});
  return report(r);
}

EditResult ResourceCanvas::addZone() {
  if (read_only_) return report({QStringLiteral("canvas"), tr("The map is read-only")});
  const int region = selectedRegion();
  if (region < 0)
    return report({QStringLiteral("region"), tr("Select a region (or one of its zones) first")});
  const QString name = doc_->uniqueZoneName();
  const EditResult r = doc_->addZone(region, name);
  if (r.ok()) select({Selection::Zone, -1, name});
  return report(r);
}

EditResult ResourceCanvas::addPool() {
  if (read_only_) return report({QStringLiteral("canvas"), tr("The map is read-only")});
  const Selection s = selection();
  QString zone;
  if (s.kind == Selection::Zone) zone = s.name;
  else if (s.kind == Selection::Pool && s.index >= 0)
    zone = q(doc_->scenario().pools[static_cast<size_t>(s.index)].zone);
  if (zone.isEmpty()) return report({QStringLiteral("zone"), tr("Select a zone first")});
  const std::optional<Pool> pool = doc_->suggestedPool(zone);
  if (!pool)
    return report({QStringLiteral("gpu_type"),
                   tr("Zone %1 already has a pool of every GPU type in the catalogue").arg(zone)});
  const EditResult r = doc_->addPool(*pool);
  if (r.ok())
    select({Selection::Pool, static_cast<int>(doc_->scenario().pools.size()) - 1, QString()});
  return report(r);
}

EditResult ResourceCanvas::addLink() {
  if (read_only_) return report({QStringLiteral("canvas"), tr("The map is read-only")});
  const QStringList zones = selectedZones();
  if (zones.size() != 2)
    return report({QStringLiteral("zones"),
                   tr("Select two zones for a link: click one, Ctrl+click the other (%n "
                      "selected)",
                      nullptr, static_cast<int>(zones.size()))});
  return addLinkBetween(zones[0], zones[1]);
}

EditResult ResourceCanvas::addLinkBetween(const QString& zone_a, const QString& zone_b) {
  if (read_only_) return report({QStringLiteral("canvas"), tr("The map is read-only")});
  const Scenario& sc = doc_->scenario();
  if (!sc.hasZone(zone_a.toStdString()) || !sc.hasZone(zone_b.toStdString()))
    return report({QStringLiteral("zones"), tr("No zone pair %1, %2").arg(zone_a, zone_b)});
  const LinkModel& def =
      sc.default_links.at(sc.relation(zone_a.toStdString(), zone_b.toStdString()));
  const double gb = def.kind == LinkModel::Kind::LatencyBandwidth ? def.bytes_per_s / 1e9
                                                                  : def.max_bytes_per_s / 1e9;
  const double latency = def.kind == LinkModel::Kind::LatencyBandwidth ? def.latency_s : 0.0;
  const EditResult r = doc_->addLink(zone_a, zone_b, gb, latency);
  if (r.ok())
    select({Selection::Link, static_cast<int>(doc_->scenario().links.size()) - 1, QString()});
  return report(r);
}

EditResult ResourceCanvas::deleteSelection() {
  if (read_only_) return report({QStringLiteral("canvas"), tr("The map is read-only")});
  ensureFresh();
  if (selected_.size() > 1) {
    QList<Selection> items;
    for (const Key& k : selected_) items << selectionOf(k);
    return report(doc_->removeItems(items));
  }
  const Selection s = selection();
  switch (s.kind) {
    case Selection::Region: return report(doc_->removeRegion(s.index));
    case Selection::Zone: return report(doc_->removeZone(s.name));
    case Selection::Pool: return report(doc_->removePool(s.index));
    case Selection::Link: return report(doc_->removeLink(s.index));
    default: return report({QStringLiteral("selection"), tr("Select something to delete")});
  }
}

}  // namespace sailor::studio
