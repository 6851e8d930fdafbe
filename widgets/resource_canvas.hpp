// ResourceCanvas: the resource editor's map of a ScenarioDocument. Regions are labelled rounded
// rectangles (name and continent), zones are boxes inside them, pools are chips inside zones
// ("32× A100-40 · $3.67/h", with a spot badge), declared links are curves between zones labelled
// with GB/s and the pair's $/GB. Default links by relation are not drawn (the property panel
// lists them). Not here: editing fields (property_panel.hpp) and the scenario itself
// (scenario_document.hpp): the canvas edits only through the document's undoable methods.
//
// Interaction: click selects a region, zone, pool or link; Ctrl+click adds or removes a zone
// (or any item) from the selection, which is how two zones are chosen for "Add link" and how
// several items are deleted at once. Dragging from one zone onto another (or onto a pool in it)
// draws a link between them, with the default figures of the pair's relation. The
// selection survives rebuilds (matched by name, or by position after a rename). Wheel zooms;
// resizing fits the map to the view.
//
// Plan overlay (plan inspector): zones a plan's stage uses take that stage's colour
// (stageColor(), shared with other widgets) and list "S0: 8× A100-40 tp2" chips: stage 0 uses
// 8 A100-40 GPUs in this zone as tensor-parallel groups of 2 (4 replicas).
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <QColor>
#include <QFont>
#include <QGraphicsView>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include "sailor/planning/plan.hpp"
#include "scenario_document.hpp"

class QAction;
class QGraphicsLineItem;
class QGraphicsScene;

namespace sailor::studio {

class CanvasItem;
struct CanvasBuild;   // what the steps of one rebuild share (canvas/canvas_layout.hpp)
struct LinkCurve;     // a link's curve and where its label may go
struct RegionLayout;  // a region's box and its zones' rows

// A plan overlay chip: the stage it shows and its text ("S0: 8× A100-40 tp2", translated). The
// stage is kept beside the text, never read back out of it: translations word the text
// differently (zh_CN writes a full-width colon).
struct OverlayChip {
  int stage = 0;
  QString text;
};

class ResourceCanvas : public QGraphicsView {
  Q_OBJECT

 public:
  explicit ResourceCanvas(ScenarioDocument* document, QWidget* parent = nullptr);
  ~ResourceCanvas() override;

  ScenarioDocument* document() const { return doc_; }

  // The primary (last clicked) selection; Scenario when nothing is selected.
  Selection selection() const;
  // Zones among the selected items, in the order they were selected.
  QStringList selectedZones() const;
  // Selects one item (None or Scenario: clears the selection). Emits selectionChanged when the
  // primary selection changes. Returns false when no such item is drawn.
  bool select(const Selection& selection);
  // Selects these zones (for "Add link"); the last one becomes the primary selection.
  bool selectZones(const QStringList& zones);

  // Plan overlay for the plan inspector; nullopt removes it.
  void setPlanOverlay(std::optional<Plan> plan);
  // Read-only: selection still works, edit actions are disabled.
  void setReadOnly(bool read_only);

  // The colour of pipeline stage `stage` (8 colours, repeating), for every widget that shows
  // stages.
  static QColor stageColor(int stage);

  // Toolbar-less actions; the main window may put them in a toolbar or menu. Enabled only when
  // they apply to the selection (and not read-only).
  QAction* addRegionAction() const { return add_region_; }
  QAction* addZoneAction() const { return add_zone_; }
  QAction* addPoolAction() const { return add_pool_; }
  QAction* addLinkAction() const { return add_link_; }
  QAction* deleteAction() const { return delete_; }
  QList<QAction*> editActions() const;

  // Inspection (tests, status bar): items drawn of a kind (Region, Zone, Pool, Link: a link's
  // curve and label count once), the border colour of a zone (its stage colour under an overlay,
  // else the neutral one), the overlay chips' texts in a zone, and the bounding rectangle of an
  // item in scene coordinates (empty when not drawn).
  int itemCount(Selection::Kind kind) const;
  QColor zoneAccent(const QString& zone) const;
  QStringList overlayChips(const QString& zone) const;
  // The stage colour each overlay chip of `zone` is drawn in, in the order of overlayChips().
  QList<QColor> overlayChipColors(const QString& zone) const;
  QRectF itemRect(const Selection& selection) const;
  // Rectangles of every text label (chips, link labels, headers), for layout checks.
  std::vector<QRectF> labelRects() const;

 public slots:
  // Edits through the document. Each selects what it created; on rejection editFailed() is
  // emitted with the document's message and the result returned.
  EditResult addRegion();
  EditResult addZone();  // into the selected region (or the selected zone's region)
  EditResult addPool();  // into the selected zone (or the selected pool's zone)
  EditResult addLink();  // between the two selected zones (Ctrl+click the second one)
  // A link between two zones with the default bandwidth and latency of their relation.
  EditResult addLinkBetween(const QString& zone_a, const QString& zone_b);
  EditResult deleteSelection();
  void fitToView();

 signals:
  void selectionChanged(const sailor::studio::Selection& selection);
  void editFailed(const QString& message);

 private slots:
  void onDocumentChanged();

 protected:
  void mousePressEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  struct Key {
    Selection::Kind kind = Selection::None;
    QString key;     // stable identity: region/zone name, "zone|gpu", link "from|to|gpus..."
    int index = -1;  // position in its list when selected (used after a rename)
    bool operator==(const Key& o) const { return kind == o.kind && key == o.key; }
  };

  // rebuild() draws the map in these steps (canvas/canvas_drawing.cpp).
  void rebuild();
  void clearScene();
  void collectOverlayChips();
  void drawRegion(CanvasBuild& b, int index, const RegionLayout& layout);
  void drawRegionHeader(CanvasBuild& b, const QRectF& region_rect, const QString& text,
                        const QFont& font, const QColor& color, double dy);
  void drawZone(CanvasBuild& b, const Region& region, const std::string& zone, const QRectF& rect);
  void drawPoolChip(CanvasBuild& b, CanvasItem* zone, int index, const QRectF& rect);
  void fillPoolChip(const CanvasBuild& b, CanvasItem* chip, const Pool& pool, const QRectF& rect);
  void drawOverlayChip(CanvasBuild& b, CanvasItem* zone, const OverlayChip& chip,
                       const QRectF& rect);
  void drawLinks(CanvasBuild& b);
  void drawLink(CanvasBuild& b, int index, const QString& key, const LinkCurve& curve);
  QString linkLabel(const LinkEntry& link) const;
  QString linkToolTip(const LinkEntry& link) const;
  void countItems(int zones);
  void restoreSelection(const std::array<int, 6>& old_counts);

  void invalidate();           // rebuilds now if shown, else when shown or inspected
  bool updatePoolChips();      // redraws changed pool chips in place; false: rebuild instead
  void ensureFresh() const;    // rebuilds now if an edit came while hidden
  int selectedRegion() const;  // the selected region, or the selected zone's; -1: neither
  void applySelection(QList<Key> keys);
  void updateHighlights();
  void updateActions();
  Selection selectionOf(const Key& key) const;
  CanvasItem* hitItem(const QPoint& view_pos) const;
  QString zoneAt(const QPoint& view_pos) const;  // the zone under the point (or its pool's)
  void endLinkDrag();
  Key keyOf(Selection::Kind kind, int index) const;
  EditResult report(const EditResult& result);

  ScenarioDocument* doc_;
  QGraphicsScene* scene_;
  std::vector<CanvasItem*> items_;  // every interactive item (owned by the scene)
  std::vector<QRectF> label_rects_;
  QHash<QString, QList<OverlayChip>> overlay_chips_;  // zone -> overlay chips, in stage order
  QList<Key> selected_;                               // in selection order; the last is the primary
  Selection last_emitted_;
  std::optional<Plan> overlay_;
  std::shared_ptr<const Scenario> drawn_;  // the document's scenario the scene shows
  bool read_only_ = false;
  bool stale_ = false;  // the document changed while the canvas was hidden
  bool user_zoomed_ = false;
  // Drawing a link by dragging: the zone pressed on, where, and the line shown once the mouse
  // has moved past the drag distance (owned by the scene).
  QString drag_zone_;
  QPoint drag_start_;
  QGraphicsLineItem* drag_line_ = nullptr;
  std::array<int, 6> counts_{};  // kind -> items of that kind in the scenario

  QAction* add_region_;
  QAction* add_zone_;
  QAction* add_pool_;
  QAction* add_link_;
  QAction* delete_;
};

}  // namespace sailor::studio
