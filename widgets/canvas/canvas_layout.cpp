#include "canvas/canvas_layout.hpp"

#include <cmath>

#include "stage_palette.hpp"

namespace sailor::studio {

namespace canvas {

namespace {

QPointF quadAt(const QPointF& p0, const QPointF& c, const QPointF& p2, double t) {
  const double u = 1 - t;
  return u * u * p0 + 2 * u * t * c + t * t * p2;
}

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

}  // namespace

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

QString linkKey(const LinkEntry& l) {
  return q(l.from_zone + "|" + l.to_zone + "|" + l.from_gpu.value_or("") + "|" +
           l.to_gpu.value_or("") + "|" + (l.gpus ? std::to_string(*l.gpus) : ""));
}

double linkGbPerS(const LinkModel& m) {
  return m.kind == LinkModel::Kind::LatencyBandwidth ? m.bytes_per_s / 1e9
                                                     : m.max_bytes_per_s / 1e9;
}

}  // namespace canvas

QPointF LinkCurve::labelAt(double t) const {
  return loop ? c : canvas::quadAt(p0, c, p2, t);
}

}  // namespace sailor::studio
