// ResourceCanvas, building the scene: rebuild() draws the whole map from the document, in steps:
//   clearScene            forget the previous scene (items, labels, overlay chips)
//   collectOverlayChips   the plan overlay's chips per zone, each with its stage
//   layoutRegions         region boxes: grouped by continent, wrapped into rows (canvas_layout)
//   drawRegion            a region box and its header, then its zones (drawZone: the box, its
//                         pool chips (drawPoolChip) and overlay chips (drawOverlayChip))
//   drawLinks             each declared link's curve and label (drawLink)
//   countItems, restoreSelection, then the scene rect and the fit
// An edit of pool figures alone redraws those chips in place (updatePoolChips). Selection and
// the mouse: canvas_interaction.cpp; actions, edits and inspection: resource_canvas.cpp.
#include <algorithm>
#include <map>
#include <tuple>

#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>

#include "canvas/canvas_item.hpp"
#include "canvas/canvas_layout.hpp"
#include "resource_canvas.hpp"

namespace sailor::studio {

using namespace canvas;  // the map's sizes, colours and layout

namespace {

// A text child that never takes the mouse (clicks reach the item below).
QGraphicsSimpleTextItem* addText(QGraphicsItem* parent, const QString& text, const QFont& font,
                                 const QColor& color, const QPointF& pos) {
  auto* t = new QGraphicsSimpleTextItem(text, parent);
  t->setFont(font);
  t->setBrush(color);
  t->setPos(pos);
  t->setAcceptedMouseButtons(Qt::NoButton);
  return t;
}

}  // namespace

void ResourceCanvas::setPlanOverlay(std::optional<Plan> plan) {
  overlay_ = std::move(plan);
  invalidate();
}

// A hidden canvas (the plan inspector's map while another tab shows) rebuilds when it is shown
// or inspected, not on every edit: an edit then costs the GUI thread one scene, not two. A
// shown one redraws only the chips of the pools whose figures changed when nothing else did.
void ResourceCanvas::onDocumentChanged() {
  if (isVisible() && !stale_ && updatePoolChips()) return;
  invalidate();
}

void ResourceCanvas::invalidate() {
  if (isVisible()) rebuild();
  else stale_ = true;
}

// A pool's count, price, spot flag and GPUs per node are drawn in its chip only: the layout
// (zone heights, link curves, label places) does not depend on them. An edit of those alone
// (the property panel's "GPUs" or "$/GPU-hour", typed while a search runs) therefore redraws
// those chips' texts in place instead of the whole scene, whose repaint the view would then
// also do in full (tens of ms on a scenario with SAILOR's network fits). False: anything else
// changed (or nothing was drawn yet), and the caller rebuilds.
bool ResourceCanvas::updatePoolChips() {
  const std::shared_ptr<const Scenario> now = doc_->snapshot();
  if (!drawn_) return false;
  if (now == drawn_) return true;
  const auto changed = ScenarioDocument::poolFigureChanges(*drawn_, *now);
  if (!changed) return false;
  const Scenario& after = *now;
  const CanvasBuild b(after, overlay_chips_);
  for (size_t i : *changed) {
    const auto it = std::find_if(items_.begin(), items_.end(), [&](CanvasItem* c) {
      return c->kind == Selection::Pool && c->index == static_cast<int>(i);
    });
    if (it == items_.end()) return false;  // not drawn (cannot happen): draw everything
    CanvasItem* chip = *it;
    for (QGraphicsItem* child : chip->childItems()) delete child;
    fillPoolChip(b, chip, after.pools[i], chip->path().boundingRect());
    chip->update();
  }
  drawn_ = now;
  return true;
}

void ResourceCanvas::ensureFresh() const {
  if (stale_) const_cast<ResourceCanvas*>(this)->rebuild();
}

void ResourceCanvas::rebuild() {
  stale_ = false;
  drawn_ = doc_->snapshot();
  const std::array<int, 6> old_counts = counts_;
  clearScene();
  collectOverlayChips();
  CanvasBuild b(doc_->scenario(), overlay_chips_);
  const std::vector<RegionLayout> layout = layoutRegions(b);
  for (size_t i = 0; i < layout.size(); ++i) drawRegion(b, static_cast<int>(i), layout[i]);
  drawLinks(b);
  countItems(b.zones);
  scene_->setSceneRect(scene_->itemsBoundingRect().adjusted(-24, -24, 24, 24));
  restoreSelection(old_counts);
  if (!user_zoomed_) fitToView();
}

void ResourceCanvas::clearScene() {
  scene_->clear();
  drag_line_ = nullptr;  // deleted with the scene's items
  items_.clear();
  label_rects_.clear();
  overlay_chips_.clear();
}

// Per zone, a chip per (stage, GPU type, tp) with the stage's GPUs there, stages in order.
void ResourceCanvas::collectOverlayChips() {
  overlay_chips_.clear();
  if (!overlay_) return;
  for (size_t s = 0; s < overlay_->stages.size(); ++s) {
    std::map<std::tuple<std::string, std::string, int>, int> gpus;  // zone, gpu, tp -> GPUs
    for (const Replica& r : overlay_->stages[s].replicas) gpus[{r.zone, r.gpu_type, r.tp}] += r.tp;
    for (const auto& [k, n] : gpus) {
      const auto& [zone, gpu, tp] = k;
      overlay_chips_[q(zone)] << OverlayChip{
          static_cast<int>(s), tr("S%1: %2× %3 tp%4").arg(s).arg(n).arg(q(gpu)).arg(tp)};
    }
  }
}

void ResourceCanvas::drawRegion(CanvasBuild& b, int index, const RegionLayout& g) {
  const Region& r = b.sc.regions[static_cast<size_t>(index)];
  const QRectF& rr = g.rect;
  auto* region = new CanvasItem(Selection::Region, index, q(r.name), roundedRect(rr, 14));
  region->setBrush(kRegionFill);
  region->setPen(QPen(kRegionBorder, 1.2));
  region->setZValue(0);
  region->setToolTip(tr("Region %1 (%2): %n zone(s)", nullptr, static_cast<int>(r.zones.size()))
                         .arg(q(r.name), q(r.continent)));
  scene_->addItem(region);
  items_.push_back(region);
  drawRegionHeader(b, rr, q(r.name), b.region_font, kInk, 8);
  drawRegionHeader(b, rr, q(r.continent), b.continent_font, kMuted, 29);

  double row_y = rr.top() + kRegionHeader;
  for (size_t k = 0; k < r.zones.size(); ++k) {
    const int col = static_cast<int>(k) % g.columns;
    const size_t row = k / static_cast<size_t>(g.columns);
    if (col == 0 && row > 0) row_y += g.row_heights[row - 1] + kZoneGap;
    const QRectF zr(rr.left() + kRegionPad + col * (kZoneW + kZoneGap), row_y, kZoneW,
                    b.zoneHeight(r.zones[k]));
    drawZone(b, r, r.zones[k], zr);
  }
}

// A header text of a region, `dy` below its top, elided to the box. It sits above the link
// curves on a patch of the region's colour, so a curve through the header never crosses it.
void ResourceCanvas::drawRegionHeader(CanvasBuild& b, const QRectF& region_rect,
                                      const QString& text, const QFont& font, const QColor& color,
                                      double dy) {
  const QFontMetricsF fm(font);
  const QString shown = fm.elidedText(text, Qt::ElideRight, region_rect.width() - 2 * kRegionPad);
  const QRectF text_rect(region_rect.left() + kRegionPad, region_rect.top() + dy,
                         fm.horizontalAdvance(shown), fm.height());
  auto* patch = new CanvasItem(Selection::None, -1, QString(),
                               roundedRect(text_rect.adjusted(-3, 0, 3, 0), 3));
  patch->setBrush(kRegionFill);
  patch->setPen(Qt::NoPen);
  patch->setZValue(3);
  patch->setAcceptedMouseButtons(Qt::NoButton);
  scene_->addItem(patch);
  addText(patch, shown, font, color, text_rect.topLeft());
  label_rects_.push_back(text_rect);
  b.obstacles.push_back(text_rect.adjusted(-2, -2, 2, 2));
}

// A zone's box at `zr` with its name, then a line per pool chip and per overlay chip ("no
// pools" when it has neither).
void ResourceCanvas::drawZone(CanvasBuild& b, const Region& region, const std::string& zname,
                              const QRectF& zr) {
  b.zone_rects[zname] = zr;
  b.obstacles.push_back(zr.adjusted(-3, -3, 3, 3));
  const QList<OverlayChip> chips = overlay_chips_.value(q(zname));
  const ZoneStyle style = zoneStyle(overlay_.has_value(), chips);
  auto* zone = new CanvasItem(Selection::Zone, b.zones++, q(zname), roundedRect(zr, 8));
  zone->setBrush(style.fill);
  zone->setPen(QPen(style.accent, style.border));
  zone->setZValue(2);
  zone->setData(0, style.accent);
  zone->setToolTip(tr("Zone %1 in %2 (%3)").arg(q(zname), q(region.name), q(region.continent)));
  scene_->addItem(zone);
  items_.push_back(zone);
  auto* zt = addText(zone, b.zone_metrics.elidedText(q(zname), Qt::ElideRight, kZoneW - 20),
                     b.zone_font, kInk, zr.topLeft() + QPointF(10, 7));
  label_rects_.push_back(zt->sceneBoundingRect());

  double chip_y = zr.top() + kZoneHeader;
  const QRectF chip_base(zr.left() + kZonePad, 0, kZoneW - 2 * kZonePad, kChipH);
  const auto pools = b.zone_pools.find(zname);
  const bool has_pools = pools != b.zone_pools.end() && !pools->second.empty();
  if (has_pools)
    for (int pool : pools->second) {
      drawPoolChip(b, zone, pool, chip_base.translated(0, chip_y));
      chip_y += kChipH + kChipGap;
    }
  for (const OverlayChip& chip : chips) {
    drawOverlayChip(b, zone, chip, chip_base.translated(0, chip_y));
    chip_y += kChipH + kChipGap;
  }
  if (!has_pools && chips.isEmpty()) {
    QFont italic = b.chip_font;
    italic.setItalic(true);
    auto* t = addText(zone, tr("no pools"), italic, kMuted,
                      QPointF(zr.left() + 10, chip_y + (kChipH - b.chip_metrics.height()) / 2));
    label_rects_.push_back(t->sceneBoundingRect());
  }
}

// A pool as a chip ("32× A100-40 · $3.67/h", a spot or owned badge at the right) at `cr`; a
// pool switched off (left out of planning) greyed, its border dashed.
void ResourceCanvas::drawPoolChip(CanvasBuild& b, CanvasItem* zone, int index, const QRectF& cr) {
  const Pool& p = b.sc.pools[static_cast<size_t>(index)];
  auto* chip = new CanvasItem(Selection::Pool, index, q(p.zone + "|" + p.gpu_type),
                              roundedRect(cr, 5), false);
  chip->setParentItem(zone);
  chip->setBrush(p.enabled ? kChipFill : QColor(Qt::white));
  chip->setPen(QPen(p.enabled ? kChipBorder : kMuted, 1, p.enabled ? Qt::SolidLine : Qt::DashLine));
  fillPoolChip(b, chip, p, cr);
  label_rects_.push_back(cr);
  items_.push_back(chip);
}

// What a pool chip at `cr` says: its text, the spot or owned badge and the tooltip (children of
// `chip`).
void ResourceCanvas::fillPoolChip(const CanvasBuild& b, CanvasItem* chip, const Pool& p,
                                  const QRectF& cr) {
  const QString badge_text = p.spot ? tr("spot") : p.owned ? tr("owned") : QString();
  const double badge_w =
      badge_text.isEmpty() ? 0 : b.badge_metrics.horizontalAdvance(badge_text) + 12;
  const QString text = tr("%1× %2 · $%3/h")
                           .arg(p.count)
                           .arg(q(p.gpu_type))
                           .arg(QString::number(p.usd_per_gpu_hour, 'f', 2));
  const double avail = cr.width() - 12 - (badge_w > 0 ? badge_w + 6 : 0);
  addText(chip, b.chip_metrics.elidedText(text, Qt::ElideRight, avail), b.chip_font,
          p.enabled ? kInk : kMuted,
          QPointF(cr.left() + 6, cr.top() + (kChipH - b.chip_metrics.height()) / 2));
  if (badge_w > 0) {
    const QRectF br(cr.right() - 4 - badge_w, cr.top() + 3, badge_w, kChipH - 6);
    auto* badge = new CanvasItem(Selection::None, -1, QString(), roundedRect(br, 4));
    badge->setParentItem(chip);
    badge->setBrush(!p.enabled ? kMuted : p.spot ? kSpotFill : kOwnedFill);
    badge->setPen(Qt::NoPen);
    badge->setAcceptedMouseButtons(Qt::NoButton);
    addText(badge, badge_text, b.badge_font, Qt::white,
            QPointF(br.left() + 6, br.top() + (br.height() - b.badge_metrics.height()) / 2));
  }
  const GpuType* gpu = doc_->catalog().findGpu(p.gpu_type);
  chip->setToolTip(tr("%1 pool in %2: %3 GPUs at $%4 per GPU-hour, %5; %6 GPUs per node")
                       .arg(q(p.gpu_type), q(p.zone))
                       .arg(p.count)
                       .arg(fmt(p.usd_per_gpu_hour, 6))
                       .arg(p.spot    ? tr("spot")
                            : p.owned ? tr("owned")
                                      : tr("on demand"))
                       .arg(p.gpus_per_node ? *p.gpus_per_node : (gpu ? gpu->gpus_per_node : 1)) +
                   (gpu ? QStringLiteral("\n") + q(gpu->full_name) : QString()) +
                   (p.enabled
                        ? QString()
                        : QStringLiteral("\n") +
                              tr("Switched off: kept in the scenario, left out of planning")));
}

// An overlay chip at `cr` in its stage's colour (item data 0: that colour). The colour comes
// from chip.stage, never from the text, which translations word differently.
void ResourceCanvas::drawOverlayChip(CanvasBuild& b, CanvasItem* zone, const OverlayChip& chip,
                                     const QRectF& cr) {
  auto* item = new CanvasItem(Selection::None, -1, QString(), roundedRect(cr, 5));
  item->setParentItem(zone);
  const QColor c = stageColor(chip.stage);
  item->setBrush(c.lighter(135));
  item->setPen(QPen(c.darker(115), 1.2));
  item->setData(0, c);
  item->setAcceptedMouseButtons(Qt::NoButton);
  addText(item, b.bold_metrics.elidedText(chip.text, Qt::ElideRight, cr.width() - 12), b.chip_bold,
          kInk, QPointF(cr.left() + 6, cr.top() + (kChipH - b.bold_metrics.height()) / 2));
  label_rects_.push_back(cr);
}

// Links: curves between zones, under the zones, with labels on top placed where they do not
// cover a zone, a header or another label. A link whose zone is not drawn is skipped.
void ResourceCanvas::drawLinks(CanvasBuild& b) {
  std::map<std::pair<std::string, std::string>, int> pair_count;  // links drawn per zone pair
  std::map<QString, int> key_count;                               // links drawn per key
  for (size_t i = 0; i < b.sc.links.size(); ++i) {
    const LinkEntry& l = b.sc.links[i];
    const auto fa = b.zone_rects.find(l.from_zone), fb = b.zone_rects.find(l.to_zone);
    if (fa == b.zone_rects.end() || fb == b.zone_rects.end()) continue;
    const auto pair_key = std::minmax(l.from_zone, l.to_zone);
    const int parallel = pair_count[{pair_key.first, pair_key.second}]++;
    const LinkCurve curve = linkCurve(fa->second, fb->second, l.from_zone == l.to_zone, parallel);
    // Identical entries (same zones and qualifiers) are told apart by their order: "key#1".
    QString key = linkKey(l);
    if (const int n = key_count[key]++; n > 0) key += QStringLiteral("#%1").arg(n);
    drawLink(b, static_cast<int>(i), key, curve);
  }
}

// One link: its curve and, on top, its label ("25 GB/s · $0.01/GB") with the details as tooltip.
void ResourceCanvas::drawLink(CanvasBuild& b, int index, const QString& key,
                              const LinkCurve& curve) {
  const LinkEntry& l = b.sc.links[static_cast<size_t>(index)];
  const QString text = linkLabel(l);
  const QString tip = linkToolTip(l);
  auto* line = new CanvasItem(Selection::Link, index, key, curve.path, true);
  line->setPen(QPen(kLinkColor, 2.2, Qt::SolidLine, Qt::RoundCap));
  line->setZValue(1);
  line->setToolTip(tip);
  scene_->addItem(line);
  items_.push_back(line);

  const QSizeF size(b.link_metrics.horizontalAdvance(text) + 12, b.link_metrics.height() + 6);
  const QRectF at = placeLinkLabel(curve, size, b.obstacles, b.placed_labels);
  b.placed_labels.push_back(at.adjusted(-2, -2, 2, 2));
  auto* label = new CanvasItem(Selection::Link, index, key, roundedRect(at, 5));
  label->is_label = true;
  label->setBrush(Qt::white);
  label->setPen(QPen(kLabelBorder, 1));
  label->setZValue(4);
  label->setToolTip(tip);
  addText(label, text, b.link_font, kInk, at.topLeft() + QPointF(6, 3));
  scene_->addItem(label);
  items_.push_back(label);
  label_rects_.push_back(at);
}

// "25 GB/s · $0.01/GB", "≤12 GB/s (fit) · $0.02/GB", with "A100-40→V100-16: " before it for a
// link between GPU types and " ×4" after it for a GPU count.
QString ResourceCanvas::linkLabel(const LinkEntry& l) const {
  const Scenario& sc = doc_->scenario();
  const double bw_gb = linkGbPerS(l.model);
  const double egress = sc.egressUsdPerGb(l.from_zone, l.to_zone);
  QString text = l.model.kind == LinkModel::Kind::LatencyBandwidth
                     ? tr("%1 GB/s · $%2/GB").arg(fmt(bw_gb), fmt(egress))
                     : tr("≤%1 GB/s (fit) · $%2/GB").arg(fmt(bw_gb), fmt(egress));
  if (l.from_gpu && l.to_gpu) text = tr("%1→%2: %3").arg(q(*l.from_gpu), q(*l.to_gpu), text);
  if (l.gpus) text += tr(" ×%1").arg(*l.gpus);
  return text;
}

// The zones and their relation, the link's model in full, and whose egress price applies.
QString ResourceCanvas::linkToolTip(const LinkEntry& l) const {
  const Scenario& sc = doc_->scenario();
  const double bw_gb = linkGbPerS(l.model);
  const double egress = sc.egressUsdPerGb(l.from_zone, l.to_zone);
  const bool own_egress = doc_->pairEgress(q(l.from_zone), q(l.to_zone)).has_value();
  const Relation rel = sc.relation(l.from_zone, l.to_zone);
  return tr("Link %1 ↔ %2 (%3)\n%4\nEgress $%5/GB (%6)")
      .arg(q(l.from_zone), q(l.to_zone), ScenarioDocument::relationLabel(rel))
      .arg(l.model.kind == LinkModel::Kind::LatencyBandwidth
               ? tr("%1 GB/s, latency %2 ms").arg(fmt(bw_gb), fmt(l.model.latency_s * 1e3))
               : tr("SAILOR fit: bandwidth = %1·x² + %2·x + %3 GB/s, x = log2(MB), cap %4 "
                    "GB/s")
                     .arg(fmt(l.model.coefficients[0]), fmt(l.model.coefficients[1]),
                          fmt(l.model.coefficients[2]), fmt(bw_gb)))
      .arg(fmt(egress, 6))
      .arg(own_egress ? tr("this pair")
                      : tr("%1 default").arg(ScenarioDocument::relationLabel(rel)));
}

void ResourceCanvas::countItems(int zones) {
  const Scenario& sc = doc_->scenario();
  counts_[Selection::Region] = static_cast<int>(sc.regions.size());
  counts_[Selection::Zone] = zones;
  counts_[Selection::Pool] = static_cast<int>(sc.pools.size());
  counts_[Selection::Link] = static_cast<int>(sc.links.size());
}

// Keeps the selection: same identity, else (a rename) the same position when no item of that
// kind was added or removed (`old_counts`: the counts before this rebuild).
void ResourceCanvas::restoreSelection(const std::array<int, 6>& old_counts) {
  QList<Key> restored;
  for (const Key& k : selected_) {
    const auto same = std::find_if(items_.begin(), items_.end(), [&](CanvasItem* it) {
      return it->kind == k.kind && it->key == k.key;
    });
    if (same != items_.end()) {
      restored.append({k.kind, k.key, (*same)->index});
      continue;
    }
    if (old_counts[k.kind] == counts_[k.kind]) {
      const auto at = std::find_if(items_.begin(), items_.end(), [&](CanvasItem* it) {
        return it->kind == k.kind && it->index == k.index;
      });
      if (at != items_.end()) restored.append({k.kind, (*at)->key, k.index});
    }
  }
  applySelection(restored);
}

}  // namespace sailor::studio
