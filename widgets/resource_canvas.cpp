#include "resource_canvas.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <QAction>
#include <QApplication>
#include <QFontMetricsF>
#include <QGraphicsLineItem>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPathStroker>
#include <QResizeEvent>
#include <QShowEvent>
#include <QWheelEvent>

#include "stage_palette.hpp"

namespace sailor::studio {

namespace {

// Layout, in scene pixels (1 scene pixel = 1 screen pixel at zoom 1).
constexpr double kZoneW = 236;
constexpr double kZoneHeader = 30;
constexpr double kChipH = 22;
constexpr double kChipGap = 4;
constexpr double kZonePad = 8;
constexpr double kRegionPad = 14;
constexpr double kRegionHeader = 52;
constexpr double kZoneGap = 16;
constexpr double kRegionGapX = 48;
constexpr double kRegionGapY = 110;
constexpr double kMaxRowWidth = 1240;
constexpr int kMaxZoneColumns = 3;
// Zoom limits for fit-to-view: below kMinFitScale text gets too small to read (scroll instead).
constexpr double kMinFitScale = 0.72;
constexpr double kMaxFitScale = 1.25;

const QColor kInk(0x1d, 0x23, 0x30);
const QColor kMuted(0x5f, 0x67, 0x75);
const QColor kSelectColor(0x1f, 0x6f, 0xeb);
const QColor kRegionFill(0xf4, 0xf6, 0xf9);
const QColor kRegionBorder(0xc3, 0xca, 0xd4);
const QColor kZoneFill(0xff, 0xff, 0xff);
const QColor kZoneBorder(0x8d, 0x96, 0xa3);
const QColor kZoneUnusedFill(0xf0, 0xf1, 0xf3);
const QColor kChipFill(0xea, 0xef, 0xf6);
const QColor kChipBorder(0xcf, 0xd7, 0xe2);
const QColor kSpotFill(0xd9, 0x77, 0x06);
const QColor kLinkColor(0x6b, 0x7a, 0x90);
const QColor kLabelBorder(0xb8, 0xc1, 0xcc);

QFont pixelFont(int px, bool bold = false) {
  QFont f;
  f.setPixelSize(px);
  f.setBold(bold);
  return f;
}

QPainterPath roundedRect(const QRectF& r, double radius) {
  QPainterPath p;
  p.addRoundedRect(r, radius, radius);
  return p;
}

QString fmt(double v, int digits = 3) {
  return QString::number(v, 'g', digits);
}
QString q(const std::string& s) {
  return QString::fromStdString(s);
}

QPointF quadAt(const QPointF& p0, const QPointF& c, const QPointF& p2, double t) {
  const double u = 1 - t;
  return u * u * p0 + 2 * u * t * c + t * t * p2;
}

}  // namespace

// An item of the map: a region, zone, pool chip, link curve or link label (kind != None: it can
// be selected), or a decoration (kind None: badges, overlay chips).
class CanvasItem : public QGraphicsPathItem {
 public:
  CanvasItem(Selection::Kind item_kind, int item_index, QString item_key, const QPainterPath& path,
             bool is_open = false)
      : QGraphicsPathItem(path),
        kind(item_kind),
        index(item_index),
        key(std::move(item_key)),
        open(is_open) {}

  Selection::Kind kind;
  int index;
  QString key;
  bool open;              // an open curve (a link): hit by a band around it
  bool is_label = false;  // a link's label (counted with its curve)
  bool highlighted = false;

  QRectF boundingRect() const override {
    return QGraphicsPathItem::boundingRect().adjusted(-3, -3, 3, 3);
  }
  QPainterPath shape() const override {
    if (!open) return QGraphicsPathItem::shape();
    QPainterPathStroker stroker;
    stroker.setWidth(14);
    return stroker.createStroke(path());
  }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) override {
    painter->setRenderHint(QPainter::Antialiasing);
    QPen p = pen();
    if (highlighted) {
      p.setColor(kSelectColor);
      p.setWidthF(p.widthF() + 2);
    }
    painter->setPen(p);
    painter->setBrush(open ? QBrush(Qt::NoBrush) : brush());
    painter->drawPath(path());
  }
};

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
// Building the scene
//
// rebuild() draws the whole map from the document, in steps:
//   clearScene            forget the previous scene (items, labels, overlay chips)
//   collectOverlayChips   the plan overlay's chips per zone, each with its stage
//   layoutRegions         region boxes: grouped by continent, wrapped into rows
//   drawRegion            a region box and its header, then its zones (drawZone: the box, its
//                         pool chips (drawPoolChip) and overlay chips (drawOverlayChip))
//   drawLinks             each declared link's curve and label (drawLink)
//   countItems, restoreSelection, then the scene rect and the fit

// What the steps of one rebuild share: the scenario, fonts, pools by zone, where the zones are
// and where link labels must not go.
struct CanvasBuild {
  CanvasBuild(const Scenario& scenario, const QHash<QString, QList<OverlayChip>>& chips)
      : sc(scenario), overlay_chips(chips) {
    for (size_t i = 0; i < sc.pools.size(); ++i)
      zone_pools[sc.pools[i].zone].push_back(static_cast<int>(i));
  }

  // Height of a zone's box: its header, then one line per pool chip and overlay chip (at least
  // one: "no pools"), in scene pixels.
  double zoneHeight(const std::string& zone) const {
    const auto it = zone_pools.find(zone);
    const qsizetype lines =
        (it == zone_pools.end() ? 0 : static_cast<qsizetype>(it->second.size())) +
        overlay_chips.value(QString::fromStdString(zone)).size();
    return kZoneHeader + static_cast<double>(std::max<qsizetype>(1, lines)) * (kChipH + kChipGap) +
           kZonePad;
  }

  const Scenario& sc;
  const QHash<QString, QList<OverlayChip>>& overlay_chips;  // zone -> chips, in stage order
  const QFont region_font = pixelFont(16, true);
  const QFont continent_font = pixelFont(13);
  const QFont zone_font = pixelFont(14, true);
  const QFont chip_font = pixelFont(13);
  const QFont chip_bold = pixelFont(13, true);
  const QFont badge_font = pixelFont(11, true);
  const QFont link_font = pixelFont(12);
  const QFontMetricsF chip_metrics{chip_font}, bold_metrics{chip_bold}, zone_metrics{zone_font},
      link_metrics{link_font}, badge_metrics{badge_font};
  std::map<std::string, std::vector<int>> zone_pools;  // zone -> indices in sc.pools, in order
  std::map<std::string, QRectF> zone_rects;            // zone -> its box
  std::vector<QRectF> obstacles;                       // where link labels must not go
  std::vector<QRectF> placed_labels;                   // link labels placed so far (padded)
  int zones = 0;                                       // zones drawn so far (flat index)
};

// A region's box: its zones in `columns` columns, rows as tall as their tallest zone.
struct RegionLayout {
  int columns = 1;
  std::vector<double> row_heights;  // scene pixels, one per row of zones
  QRectF rect;                      // the region's box in the scene
};

// A link's curve between two zone boxes, and the quadratic Bézier its label follows.
struct LinkCurve {
  QPainterPath path;
  QPointF p0, c, p2;  // start, control, end
  bool loop = false;  // a link inside one zone: its label sits at c
  QPointF labelAt(double t) const { return loop ? c : quadAt(p0, c, p2, t); }
};

namespace {

// Region indices grouped by continent, continents in order of first appearance.
std::vector<int> regionsByContinent(const Scenario& sc) {
  std::vector<std::string> continents;
  for (const auto& r : sc.regions)
    if (std::find(continents.begin(), continents.end(), r.continent) == continents.end())
      continents.push_back(r.continent);
  std::vector<int> order;
  for (const auto& c : continents)
    for (size_t i = 0; i < sc.regions.size(); ++i)
      if (sc.regions[i].continent == c) order.push_back(static_cast<int>(i));
  return order;
}

// The size of a region's box (its rect at the origin): up to kMaxZoneColumns zones per row.
RegionLayout measureRegion(const CanvasBuild& b, const Region& r) {
  RegionLayout g;
  const int n = static_cast<int>(r.zones.size());
  g.columns = std::clamp(n, 1, kMaxZoneColumns);
  const int rows = (n + g.columns - 1) / g.columns;
  g.row_heights.assign(static_cast<size_t>(std::max(rows, 1)), 0.0);
  for (int k = 0; k < n; ++k) {
    double& row_h = g.row_heights[static_cast<size_t>(k / g.columns)];
    row_h = std::max(row_h, b.zoneHeight(r.zones[static_cast<size_t>(k)]));
  }
  double h = kRegionHeader + kRegionPad;
  for (double rh : g.row_heights) h += rh;
  h += kZoneGap * static_cast<double>(g.row_heights.size() - 1);
  const double w = 2 * kRegionPad + g.columns * kZoneW + (g.columns - 1) * kZoneGap;
  g.rect = QRectF(QPointF(), QSizeF(std::max(w, 2 * kRegionPad + kZoneW), h));
  return g;
}

// Every region's box: measured, then placed left to right in continent order, a new row when
// the next box would pass kMaxRowWidth.
std::vector<RegionLayout> layoutRegions(const CanvasBuild& b) {
  std::vector<RegionLayout> layout;
  for (const Region& r : b.sc.regions) layout.push_back(measureRegion(b, r));
  double x = 0, y = 0, row_h = 0;
  for (int i : regionsByContinent(b.sc)) {
    RegionLayout& g = layout[static_cast<size_t>(i)];
    if (x > 0 && x + g.rect.width() > kMaxRowWidth) {
      x = 0;
      y += row_h + kRegionGapY;
      row_h = 0;
    }
    g.rect.moveTopLeft(QPointF(x, y));
    x += g.rect.width() + kRegionGapX;
    row_h = std::max(row_h, g.rect.height());
  }
  return layout;
}

// A zone's colours: under an overlay, a zone a stage uses takes the colour of the first stage
// using it (a light tint inside, the colour as a thick border) and an unused zone is greyed.
struct ZoneStyle {
  QColor accent = kZoneBorder;
  QColor fill = kZoneFill;
  double border = 1.4;
};

ZoneStyle zoneStyle(bool overlay, const QList<OverlayChip>& chips) {
  ZoneStyle z;
  if (!overlay) return z;
  if (chips.isEmpty()) {
    z.fill = kZoneUnusedFill;
    return z;
  }
  z.accent = stagePalette(chips.front().stage);
  // A light tint of the stage colour: 28% colour over white.
  z.fill = QColor::fromRgbF(0.72f + 0.28f * z.accent.redF(), 0.72f + 0.28f * z.accent.greenF(),
                            0.72f + 0.28f * z.accent.blueF());
  z.border = 3;
  return z;
}

// `parallel`: links of the same zone pair drawn before this one; each pushes the curve further
// out so that they do not overlap.
LinkCurve linkCurve(const QRectF& ra, const QRectF& rb, bool same_zone, int parallel) {
  LinkCurve k;
  k.loop = same_zone;
  if (same_zone) {
    // A link inside one zone (between its nodes): a small loop over the zone's top right.
    k.p0 = QPointF(ra.right() - 46, ra.top());
    k.p2 = QPointF(ra.right() - 14, ra.top());
    k.c = QPointF(ra.right() - 30, ra.top() - 44 - 16 * parallel);
    k.path.moveTo(k.p0);
    k.path.cubicTo(QPointF(k.p0.x() - 10, k.c.y()), QPointF(k.p2.x() + 10, k.c.y()), k.p2);
    k.c = QPointF(k.c.x(), (k.c.y() + ra.top()) / 2);
    k.p0 = k.p2 = k.c;
  } else if (ra.top() < rb.bottom() && rb.top() < ra.bottom()) {
    // Same row: an arc over the zones, higher for zones further apart.
    k.p0 = QPointF(ra.center().x(), ra.top());
    k.p2 = QPointF(rb.center().x(), rb.top());
    const double dx = std::abs(k.p2.x() - k.p0.x());
    k.c = QPointF((k.p0.x() + k.p2.x()) / 2,
                  std::min(k.p0.y(), k.p2.y()) - (40 + 0.3 * dx + 34 * parallel));
    k.path.moveTo(k.p0);
    k.path.quadTo(k.c, k.p2);
  } else {
    // Different rows: from the upper zone's bottom to the lower zone's top.
    const bool a_up = ra.center().y() < rb.center().y();
    const QRectF up = a_up ? ra : rb, low = a_up ? rb : ra;
    k.p0 = QPointF(up.center().x(), up.bottom());
    k.p2 = QPointF(low.center().x(), low.top());
    const QPointF mid = (k.p0 + k.p2) / 2;
    const QPointF d = k.p2 - k.p0;
    const double len = std::hypot(d.x(), d.y());
    const QPointF normal = len > 0 ? QPointF(-d.y() / len, d.x() / len) : QPointF(1, 0);
    k.c = mid + normal * (0.12 * len + 34 * parallel);
    k.path.moveTo(k.p0);
    k.path.quadTo(k.c, k.p2);
  }
  return k;
}

// Where a link's label goes: the first point along the curve (middle first, then outwards)
// where it covers no obstacle and no label placed before; the middle when none is free.
QRectF placeLinkLabel(const LinkCurve& curve, const QSizeF& size,
                      const std::vector<QRectF>& obstacles, const std::vector<QRectF>& placed) {
  QRectF best;
  for (double t : {0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74, 0.18, 0.82}) {
    const QRectF cand(curve.labelAt(t) - QPointF(size.width() / 2, size.height() / 2), size);
    if (best.isNull()) best = cand;
    const auto hits = [&](const QRectF& o) { return o.intersects(cand); };
    if (std::none_of(obstacles.begin(), obstacles.end(), hits) &&
        std::none_of(placed.begin(), placed.end(), hits))
      return cand;
  }
  return best;
}

// A link's identity on the canvas: "from|to|from_gpu|to_gpu|gpus".
QString linkKey(const LinkEntry& l) {
  return q(l.from_zone + "|" + l.to_zone + "|" + l.from_gpu.value_or("") + "|" +
           l.to_gpu.value_or("") + "|" + (l.gpus ? std::to_string(*l.gpus) : ""));
}

double linkGbPerS(const LinkModel& m) {
  return m.kind == LinkModel::Kind::LatencyBandwidth ? m.bytes_per_s / 1e9
                                                     : m.max_bytes_per_s / 1e9;
}

}  // namespace

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

// A pool as a chip ("32× A100-40 · $3.67/h", a spot badge at the right) at `cr`.
void ResourceCanvas::drawPoolChip(CanvasBuild& b, CanvasItem* zone, int index, const QRectF& cr) {
  const Pool& p = b.sc.pools[static_cast<size_t>(index)];
  auto* chip = new CanvasItem(Selection::Pool, index, q(p.zone + "|" + p.gpu_type),
                              roundedRect(cr, 5), false);
  chip->setParentItem(zone);
  chip->setBrush(kChipFill);
  chip->setPen(QPen(kChipBorder, 1));
  fillPoolChip(b, chip, p, cr);
  label_rects_.push_back(cr);
  items_.push_back(chip);
}

// What a pool chip at `cr` says: its text, the spot badge and the tooltip (children of `chip`).
void ResourceCanvas::fillPoolChip(const CanvasBuild& b, CanvasItem* chip, const Pool& p,
                                  const QRectF& cr) {
  const double badge_w = p.spot ? b.badge_metrics.horizontalAdvance(tr("spot")) + 12 : 0;
  const QString text = tr("%1× %2 · $%3/h")
                           .arg(p.count)
                           .arg(q(p.gpu_type))
                           .arg(QString::number(p.usd_per_gpu_hour, 'f', 2));
  const double avail = cr.width() - 12 - (p.spot ? badge_w + 6 : 0);
  addText(chip, b.chip_metrics.elidedText(text, Qt::ElideRight, avail), b.chip_font, kInk,
          QPointF(cr.left() + 6, cr.top() + (kChipH - b.chip_metrics.height()) / 2));
  if (p.spot) {
    const QRectF br(cr.right() - 4 - badge_w, cr.top() + 3, badge_w, kChipH - 6);
    auto* badge = new CanvasItem(Selection::None, -1, QString(), roundedRect(br, 4));
    badge->setParentItem(chip);
    badge->setBrush(kSpotFill);
    badge->setPen(Qt::NoPen);
    badge->setAcceptedMouseButtons(Qt::NoButton);
    addText(badge, tr("spot"), b.badge_font, Qt::white,
            QPointF(br.left() + 6, br.top() + (br.height() - b.badge_metrics.height()) / 2));
  }
  const GpuType* gpu = doc_->catalog().findGpu(p.gpu_type);
  chip->setToolTip(tr("%1 pool in %2: %3 GPUs at $%4 per GPU-hour, %5; %6 GPUs per node")
                       .arg(q(p.gpu_type), q(p.zone))
                       .arg(p.count)
                       .arg(fmt(p.usd_per_gpu_hour, 6))
                       .arg(p.spot ? tr("spot") : tr("on demand"))
                       .arg(p.gpus_per_node ? *p.gpus_per_node : (gpu ? gpu->gpus_per_node : 1)) +
                   (gpu ? QStringLiteral("\n") + q(gpu->full_name) : QString()));
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

// ---------------------------------------------------------------------------------------------
// Selection

Selection ResourceCanvas::selectionOf(const Key& k) const {
  const Scenario& sc = doc_->scenario();
  Selection s;
  s.kind = k.kind;
  s.index = k.index;
  switch (k.kind) {
    case Selection::Region:
    case Selection::Zone: s.name = k.key; break;
    case Selection::Pool:
      if (k.index >= 0 && k.index < static_cast<int>(sc.pools.size()))
        s.name = tr("%1 in %2")
                     .arg(q(sc.pools[static_cast<size_t>(k.index)].gpu_type),
                          q(sc.pools[static_cast<size_t>(k.index)].zone));
      break;
    case Selection::Link:
      if (k.index >= 0 && k.index < static_cast<int>(sc.links.size()))
        s.name = QStringLiteral("%1 ↔ %2").arg(q(sc.links[static_cast<size_t>(k.index)].from_zone),
                                               q(sc.links[static_cast<size_t>(k.index)].to_zone));
      break;
    default: break;
  }
  return s;
}

Selection ResourceCanvas::selection() const {
  ensureFresh();
  if (selected_.isEmpty()) return {Selection::Scenario, -1, q(doc_->scenario().name)};
  return selectionOf(selected_.last());
}

QStringList ResourceCanvas::selectedZones() const {
  ensureFresh();
  QStringList out;
  for (const Key& k : selected_)
    if (k.kind == Selection::Zone) out << k.key;
  return out;
}

ResourceCanvas::Key ResourceCanvas::keyOf(Selection::Kind kind, int index) const {
  for (CanvasItem* it : items_)
    if (it->kind == kind && it->index == index) return {kind, it->key, index};
  return {};
}

bool ResourceCanvas::select(const Selection& selection) {
  ensureFresh();
  if (selection.kind == Selection::None || selection.kind == Selection::Scenario) {
    applySelection({});
    return true;
  }
  for (CanvasItem* it : items_) {
    if (it->kind != selection.kind) continue;
    const bool by_name =
        (selection.kind == Selection::Zone || selection.kind == Selection::Region) &&
        !selection.name.isEmpty();
    if (by_name ? it->key == selection.name : it->index == selection.index) {
      applySelection({{it->kind, it->key, it->index}});
      return true;
    }
  }
  return false;
}

bool ResourceCanvas::selectZones(const QStringList& zones) {
  ensureFresh();
  QList<Key> keys;
  for (const QString& z : zones) {
    const auto it = std::find_if(items_.begin(), items_.end(), [&](CanvasItem* c) {
      return c->kind == Selection::Zone && c->key == z;
    });
    if (it == items_.end()) return false;
    keys.append({Selection::Zone, z, (*it)->index});
  }
  applySelection(keys);
  return true;
}

void ResourceCanvas::applySelection(QList<Key> keys) {
  selected_ = std::move(keys);
  updateHighlights();
  updateActions();
  const Selection now = selection();
  if (!(now == last_emitted_)) {
    last_emitted_ = now;
    emit selectionChanged(now);
  }
}

void ResourceCanvas::updateHighlights() {
  for (CanvasItem* it : items_) {
    const bool on = selected_.contains(Key{it->kind, it->key, it->index});
    if (on != it->highlighted) {
      it->highlighted = on;
      it->update();
    }
  }
}

void ResourceCanvas::updateActions() {
  const Selection s = selection();
  const bool edit = !read_only_;
  add_region_->setEnabled(edit);
  add_zone_->setEnabled(edit && (s.kind == Selection::Region || s.kind == Selection::Zone));
  add_pool_->setEnabled(edit && (s.kind == Selection::Zone || s.kind == Selection::Pool));
  add_link_->setEnabled(edit && selectedZones().size() == 2);
  delete_->setEnabled(edit && (s.kind == Selection::Region || s.kind == Selection::Zone ||
                               s.kind == Selection::Pool || s.kind == Selection::Link));
}

CanvasItem* ResourceCanvas::hitItem(const QPoint& view_pos) const {
  for (QGraphicsItem* it : items(view_pos))
    if (auto* c = dynamic_cast<CanvasItem*>(it); c && c->kind != Selection::None) return c;
  return nullptr;
}

void ResourceCanvas::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) {
    QGraphicsView::mousePressEvent(event);
    return;
  }
  CanvasItem* hit = hitItem(event->position().toPoint());
  QList<Key> keys = selected_;
  const bool ctrl = event->modifiers() & Qt::ControlModifier;
  if (!hit) {
    if (!ctrl) keys.clear();
  } else {
    const Key k{hit->kind, hit->key, hit->index};
    if (ctrl) {
      if (keys.contains(k)) keys.removeAll(k);
      else keys.append(k);
    } else {
      keys = {k};
    }
  }
  applySelection(keys);
  // A press on a zone may start drawing a link from it.
  drag_zone_ = !read_only_ && !ctrl && hit && hit->kind == Selection::Zone ? hit->key : QString();
  drag_start_ = event->position().toPoint();
  event->accept();
}

QString ResourceCanvas::zoneAt(const QPoint& view_pos) const {
  CanvasItem* hit = hitItem(view_pos);
  if (!hit) return {};
  if (hit->kind == Selection::Zone) return hit->key;
  const auto& pools = doc_->scenario().pools;
  if (hit->kind == Selection::Pool && hit->index >= 0 &&
      hit->index < static_cast<int>(pools.size()))
    return q(pools[static_cast<size_t>(hit->index)].zone);
  return {};
}

void ResourceCanvas::mouseMoveEvent(QMouseEvent* event) {
  if (drag_zone_.isEmpty() || !(event->buttons() & Qt::LeftButton)) {
    QGraphicsView::mouseMoveEvent(event);
    return;
  }
  const QPoint at = event->position().toPoint();
  if (!drag_line_ && (at - drag_start_).manhattanLength() < QApplication::startDragDistance())
    return;
  const QRectF from = itemRect({Selection::Zone, -1, drag_zone_});
  if (!drag_line_) {
    drag_line_ = scene_->addLine(QLineF(), QPen(QColor(0x1f, 0x6f, 0xd0), 2, Qt::DashLine));
    drag_line_->setZValue(100);
  }
  drag_line_->setLine(QLineF(from.center(), mapToScene(at)));
  event->accept();
}

void ResourceCanvas::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !drag_line_) {
    drag_zone_.clear();
    QGraphicsView::mouseReleaseEvent(event);
    return;
  }
  const QString from = drag_zone_, to = zoneAt(event->position().toPoint());
  endLinkDrag();
  event->accept();
  if (!to.isEmpty() && to != from) addLinkBetween(from, to);
}

void ResourceCanvas::endLinkDrag() {
  drag_zone_.clear();
  if (drag_line_) {
    scene_->removeItem(drag_line_);
    delete drag_line_;
    drag_line_ = nullptr;
  }
}

void ResourceCanvas::mouseDoubleClickEvent(QMouseEvent* event) {
  // A double click is two clicks for selection purposes; nothing else happens on it.
  mousePressEvent(event);
}

// ---------------------------------------------------------------------------------------------
// View

void ResourceCanvas::fitToView() {
  const QRectF r = scene_->sceneRect();
  if (r.isEmpty() || viewport()->width() <= 0) return;
  fitInView(r, Qt::KeepAspectRatio);
  const double s = transform().m11();
  const double clamped = std::clamp(s, kMinFitScale, kMaxFitScale);
  if (clamped != s) setTransform(QTransform::fromScale(clamped, clamped));
  if (clamped > s)  // too large to fit legibly: show the top left, scroll for the rest
    centerOn(QPointF(r.left() + viewport()->width() / (2 * clamped),
                     r.top() + viewport()->height() / (2 * clamped)));
  else centerOn(r.center());
  user_zoomed_ = false;
}

void ResourceCanvas::wheelEvent(QWheelEvent* event) {
  const double factor = std::pow(1.0015, event->angleDelta().y());
  const double s = transform().m11() * factor;
  if (s < 0.2 || s > 5) {
    event->accept();
    return;
  }
  scale(factor, factor);
  user_zoomed_ = true;
  event->accept();
}

void ResourceCanvas::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  fitToView();
}

void ResourceCanvas::showEvent(QShowEvent* event) {
  QGraphicsView::showEvent(event);
  ensureFresh();
  fitToView();
}

void ResourceCanvas::setPlanOverlay(std::optional<Plan> plan) {
  overlay_ = std::move(plan);
  invalidate();
}

void ResourceCanvas::setReadOnly(bool read_only) {
  read_only_ = read_only;
  updateActions();
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
