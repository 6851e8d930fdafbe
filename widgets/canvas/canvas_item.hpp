// The resource map's building blocks, shared by the files that implement ResourceCanvas
// (resource_canvas.cpp, canvas/*.cpp): its sizes and colours, small text helpers and CanvasItem,
// the scene item of every region, zone, pool chip and link. Not a public header: the widgets'
// users see only resource_canvas.hpp.
#pragma once

#include <string>
#include <utility>

#include <QColor>
#include <QFont>
#include <QGraphicsPathItem>
#include <QPainter>
#include <QPainterPath>
#include <QPainterPathStroker>
#include <QString>

#include "scenario_document.hpp"

namespace sailor::studio {

namespace canvas {

// Layout, in scene pixels (1 scene pixel = 1 screen pixel at zoom 1).
inline constexpr double kZoneW = 236;
inline constexpr double kZoneHeader = 30;
inline constexpr double kChipH = 22;
inline constexpr double kChipGap = 4;
inline constexpr double kZonePad = 8;
inline constexpr double kRegionPad = 14;
inline constexpr double kRegionHeader = 52;
inline constexpr double kZoneGap = 16;
inline constexpr double kRegionGapX = 48;
inline constexpr double kRegionGapY = 110;
inline constexpr double kMaxRowWidth = 1240;
inline constexpr int kMaxZoneColumns = 3;
// Zoom limits for fit-to-view: below kMinFitScale text gets too small to read (scroll instead).
inline constexpr double kMinFitScale = 0.72;
inline constexpr double kMaxFitScale = 1.25;

inline const QColor kInk(0x1d, 0x23, 0x30);
inline const QColor kMuted(0x5f, 0x67, 0x75);
inline const QColor kSelectColor(0x1f, 0x6f, 0xeb);
inline const QColor kRegionFill(0xf4, 0xf6, 0xf9);
inline const QColor kRegionBorder(0xc3, 0xca, 0xd4);
inline const QColor kZoneFill(0xff, 0xff, 0xff);
inline const QColor kZoneBorder(0x8d, 0x96, 0xa3);
inline const QColor kZoneUnusedFill(0xf0, 0xf1, 0xf3);
inline const QColor kChipFill(0xea, 0xef, 0xf6);
inline const QColor kChipBorder(0xcf, 0xd7, 0xe2);
inline const QColor kSpotFill(0xd9, 0x77, 0x06);
inline const QColor kOwnedFill(0x15, 0x80, 0x3d);
inline const QColor kLinkColor(0x6b, 0x7a, 0x90);
inline const QColor kLabelBorder(0xb8, 0xc1, 0xcc);

inline QFont pixelFont(int px, bool bold = false) {
  QFont f;
  f.setPixelSize(px);
  f.setBold(bold);
  return f;
}

inline QPainterPath roundedRect(const QRectF& r, double radius) {
  QPainterPath p;
  p.addRoundedRect(r, radius, radius);
  return p;
}

inline QString fmt(double v, int digits = 3) {
  return QString::number(v, 'g', digits);
}
inline QString q(const std::string& s) {
  return QString::fromStdString(s);
}

}  // namespace canvas

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
      p.setColor(canvas::kSelectColor);
      p.setWidthF(p.widthF() + 2);
    }
    painter->setPen(p);
    painter->setBrush(open ? QBrush(Qt::NoBrush) : brush());
    painter->drawPath(path());
  }
};

}  // namespace sailor::studio
