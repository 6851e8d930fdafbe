// The resource map's layout: what one rebuild of the scene shares (CanvasBuild), where the
// regions and zones go (layoutRegions, grouped by continent and wrapped into rows), a zone's
// colours under the plan overlay, and the curve and label place of each link. Pure geometry and
// text: the scene items are made by ResourceCanvas (canvas_drawing.cpp). Not a public header.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <QColor>
#include <QFont>
#include <QFontMetricsF>
#include <QHash>
#include <QList>
#include <QPainterPath>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>

#include "canvas/canvas_item.hpp"
#include "resource_canvas.hpp"

namespace sailor::studio {

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
    return canvas::kZoneHeader +
           static_cast<double>(std::max<qsizetype>(1, lines)) *
               (canvas::kChipH + canvas::kChipGap) +
           canvas::kZonePad;
  }

  const Scenario& sc;
  const QHash<QString, QList<OverlayChip>>& overlay_chips;  // zone -> chips, in stage order
  const QFont region_font = canvas::pixelFont(16, true);
  const QFont continent_font = canvas::pixelFont(13);
  const QFont zone_font = canvas::pixelFont(14, true);
  const QFont chip_font = canvas::pixelFont(13);
  const QFont chip_bold = canvas::pixelFont(13, true);
  const QFont badge_font = canvas::pixelFont(11, true);
  const QFont link_font = canvas::pixelFont(12);
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
  // Where the label's centre goes at `t` (0 to 1) along the Bézier; c for a loop.
  QPointF labelAt(double t) const;
};

namespace canvas {

// Every region's box: measured, then placed left to right in continent order, a new row when
// the next box would pass kMaxRowWidth. One entry per region, in the scenario's order.
std::vector<RegionLayout> layoutRegions(const CanvasBuild& b);

// A zone's colours: under an overlay, a zone a stage uses takes the colour of the first stage
// using it (a light tint inside, the colour as a thick border) and an unused zone is greyed.
struct ZoneStyle {
  QColor accent = kZoneBorder;
  QColor fill = kZoneFill;
  double border = 1.4;
};
ZoneStyle zoneStyle(bool overlay, const QList<OverlayChip>& chips);

// The curve of a link between zone boxes `ra` and `rb` (`same_zone`: a loop over one zone).
// `parallel`: links of the same zone pair drawn before this one; each pushes the curve further
// out so that they do not overlap.
LinkCurve linkCurve(const QRectF& ra, const QRectF& rb, bool same_zone, int parallel);

// Where a link's label goes: the first point along the curve (middle first, then outwards)
// where it covers no obstacle and no label placed before; the middle when none is free.
QRectF placeLinkLabel(const LinkCurve& curve, const QSizeF& size,
                      const std::vector<QRectF>& obstacles, const std::vector<QRectF>& placed);

// A link's identity on the canvas: "from|to|from_gpu|to_gpu|gpus".
QString linkKey(const LinkEntry& l);

// A link's bandwidth in GB/s (a fitted model's cap).
double linkGbPerS(const LinkModel& m);

}  // namespace canvas

}  // namespace sailor::studio
