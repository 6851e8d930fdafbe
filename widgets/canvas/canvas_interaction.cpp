// ResourceCanvas, interaction: the selection (click, Ctrl+click, kept across rebuilds by
// canvas_drawing.cpp's restoreSelection), drawing a link by dragging from one zone onto another,
// and the view (fit to the window, wheel zoom).
#include <algorithm>
#include <cmath>

#include <QAction>
#include <QApplication>
#include <QGraphicsLineItem>
#include <QGraphicsScene>
#include <QMouseEvent>
#include <QResizeEvent>
#include <QShowEvent>
#include <QWheelEvent>

#include "canvas/canvas_item.hpp"
#include "resource_canvas.hpp"

namespace sailor::studio {

using namespace canvas;  // the map's sizes and text helpers

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

void ResourceCanvas::setReadOnly(bool read_only) {
  read_only_ = read_only;
  updateActions();
}

}  // namespace sailor::studio
