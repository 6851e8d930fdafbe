// ScenarioDocument: the scenario the studio's resource editor edits, with undo/redo, file I/O and
// an immutable snapshot for the planner. Not here: drawing (resource_canvas.hpp) and the form
// (property_panel.hpp), which both edit only through this class.
//
// Contract:
// - The document always holds a valid scenario (Scenario::validate(catalog) passes, and every
//   link model has bandwidth > 0 and latency >= 0). Every edit method builds the edited copy,
//   checks it, and only then pushes one QUndoCommand; on rejection it returns an EditResult that
//   names the field, the value given and what was expected, and changes nothing.
// - An edit that changes nothing (same value) succeeds without pushing a command.
// - changed() follows every change: edit, undo, redo, load, newFromDefault.
// - Removing a zone removes, in the same undoable command, its pools, the links that touch it and
//   the egress prices of its pairs. Removing a region does the same for all of its zones. The
//   last zone of a region and the last region are refused (a scenario needs one of each).
//   Renaming a zone renames every reference to it. These rules are the engine's
//   (sailor/scenario/scenario_edit.hpp), so that they hold without Qt; the document words the
//   refusals.
// - Egress prices per zone pair are set for both directions at once (transfers go both ways);
//   removing the last link between two zones also removes that pair's egress prices.
// - A scenario file may carry a planning session (sailor/scenario/session.hpp: the job, its
//   model, the planner's settings): read with the file (a broken one refuses the file, naming the
//   field), held as session(), written back by save(). Other keys Scenario does not model
//   ("objective") are kept and written back too.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <QByteArray>
#include <QFile>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>
#include <nlohmann/json.hpp>

#include "sailor/model/catalog.hpp"
#include "sailor/model/prices.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/scenario/session.hpp"

class QUndoStack;

namespace sailor::studio {

// What the resource editor has selected. `index` and `name` by kind:
//   Scenario: -1, the scenario's name (nothing on the canvas selected);
//   Region:   index in Scenario::regions, the region's name;
//   Zone:     index in the flat list of zones (regions in order, their zones in order), the zone;
//   Pool:     index in Scenario::pools, "A100-40 in us-central1-a";
//   Link:     index in Scenario::links, "us-central1-a ↔ us-west1-b".
struct Selection {
  enum Kind { None, Scenario, Region, Zone, Pool, Link };
  Kind kind = None;
  int index = -1;
  QString name;
  bool operator==(const Selection&) const = default;
};

// The outcome of an edit, load or save. Empty on success.
struct EditResult {
  QString field;    // what was wrong, e.g. "pools[2].usd_per_gpu_hour" or "zone name"
  QString message;  // a translated sentence with the value and what was expected
  bool ok() const { return message.isEmpty(); }
};

class ScenarioDocument : public QObject {
  Q_OBJECT

 public:
  // `catalog` must outlive the document. Starts with a one-region, one-zone scenario; call
  // newFromDefault() or load() for real content.
  explicit ScenarioDocument(const Catalog& catalog, QObject* parent = nullptr);
  ~ScenarioDocument() override;

  ScenarioDocument(const ScenarioDocument&) = delete;
  ScenarioDocument& operator=(const ScenarioDocument&) = delete;

  const Scenario& scenario() const { return *scenario_; }
  const Catalog& catalog() const { return catalog_; }
  // An immutable copy of the current scenario, shared until the next change: safe to hand to
  // another thread.
  std::shared_ptr<const Scenario> snapshot() const { return scenario_; }
  QUndoStack* undoStack() const { return undo_; }

  // Empty for a document not loaded from or saved to a file (new, default). For display and
  // dialogs: a file name that is not UTF-8 shows U+FFFD, and save(filePath()) still writes the
  // file that was read (filePathNative()).
  QString filePath() const { return QFile::decodeName(file_path_); }
  // The file's path as the file system spells it (bytes; Qt 6 decodes file names as UTF-8, and a
  // QString cannot hold a byte that is not).
  QByteArray filePathNative() const { return file_path_; }
  // True when the undo stack is not at its clean state (the last load, new or save).
  bool isModified() const;

  // Reads a scenario file. On failure returns the error and leaves everything as it was (the
  // scenario, unsaved edits, undo history, file path).
  EditResult load(const QString& path);
  // The same for a path as the file system spells it (a command-line argument's bytes).
  EditResult loadNative(const QByteArray& path);
  // Writes atomically (QSaveFile), marks the undo stack clean and sets filePath(). The path
  // filePath() shows writes filePathNative().
  EditResult save(const QString& path);
  // Loads resources/scenarios/default.json (sailor::resourceDir()); untitled (no file path).
  EditResult newFromDefault();
  // The session the file carried (empty parts where it had none), and what save() writes with
  // the scenario. Setting it is not an edit (no undo, not modified).
  const Session& session() const { return session_; }
  void setSession(Session session) { session_ = std::move(session); }

  // ---- Edits: each is one undoable command, validated before it is pushed. ----
  EditResult setName(const QString& name);
  EditResult setDescription(const QString& description);

  // A region needs at least one zone: `first_zone` is created with it.
  EditResult addRegion(const QString& name, const QString& continent, const QString& first_zone);
  EditResult renameRegion(int region, const QString& name);
  EditResult setRegionContinent(int region, const QString& continent);
  EditResult removeRegion(int region);  // with its zones, their pools, links and egress

  EditResult addZone(int region, const QString& zone);
  EditResult renameZone(const QString& zone, const QString& new_name);  // updates references
  EditResult removeZone(const QString& zone);  // with its pools, links and egress prices

  EditResult addPool(const Pool& pool);
  // A pool of `count` GPUs of a catalogue offer (its spot price with `spot`, dated `price_date`,
  // YYYY-MM-DD or empty), its region and zone added where the scenario lacks them: one undo step
  // (sailor::addOfferPool).
  EditResult addOfferPool(const PriceOffer& offer, int count, bool spot, const QString& price_date);
  EditResult editPool(int pool, const Pool& value);
  EditResult removePool(int pool);

  // Adds a latency + bandwidth link between two different zones (no GPU qualifiers); at most one
  // such link per pair. `egress_usd_per_gb`: the pair's egress price (both directions), or
  // nullopt to leave the pair's egress as it is.
  EditResult addLink(const QString& from_zone, const QString& to_zone, double gb_per_s,
                     double latency_s, std::optional<double> egress_usd_per_gb = std::nullopt);
  // Replaces the link's model with a latency + bandwidth one (an imported SailorFit model is
  // replaced only through this call). Qualifiers (GPU types, gpus) are kept.
  EditResult editLink(int link, double gb_per_s, double latency_s);
  EditResult removeLink(int link);
  // Removes several regions, zones, pools and links (a canvas multi-selection) as one undoable
  // command, each with what it holds as the single removals do. All or nothing: if one removal
  // is refused (the last region, a region's last zone) nothing changes and its reason is
  // returned. A zone or pool that goes with a selected region is not refused.
  EditResult removeItems(const QList<Selection>& items);
  // The egress price of a zone pair, both directions; nullopt: the default by relation.
  EditResult setPairEgress(const QString& zone_a, const QString& zone_b,
                           std::optional<double> usd_per_gb);
  // The pair's own egress price (either direction), if it has one.
  std::optional<double> pairEgress(const QString& zone_a, const QString& zone_b) const;

  EditResult setDefaultLink(Relation relation, double gb_per_s, double latency_s);
  EditResult setDefaultEgress(Relation relation, double usd_per_gb);

  // ---- Helpers for the views. ----
  QStringList zoneNames() const;                     // flat order (see Selection)
  int regionIndexOfZone(const QString& zone) const;  // -1 when absent
  // "region-2", "zone-3": the first free name counting from the number of such items + 1.
  QString uniqueRegionName() const;
  QString uniqueZoneName() const;
  // The GPU type and price a new pool in `zone` gets: the first catalogue type that has a price
  // in the scenario (a pool elsewhere) and no pool in `zone` yet, else A100-40, else the first
  // catalogue type without a pool in `zone`. nullopt when the zone has every type.
  std::optional<Pool> suggestedPool(const QString& zone) const;
  // Translated relation name ("same region").
  static QString relationLabel(Relation relation);
  // The pools whose figures alone (count, price, spot, GPUs per node) differ from `before` to
  // `after`, by index, when nothing else does (the same pools in the same zones and order, the
  // same regions, links, egress and names); nullopt otherwise, and when nothing differs. Views
  // that show these figures in place update them instead of rebuilding (an edit typed in the
  // property panel's "GPUs" or "$/GPU-hour", or its undo).
  static std::optional<std::vector<size_t>> poolFigureChanges(const Scenario& before,
                                                              const Scenario& after);

 signals:
  void changed();
  void fileChanged();  // filePath() changed, or a file was loaded, saved or a new one started
  void modifiedChanged(bool modified);

 private:
  friend class ScenarioEditCommand;

  EditResult check(const Scenario& s) const;
  EditResult checkPool(const Pool& pool) const;
  // One removal on a working copy, checked against it; `text` gets the undo text.
  static EditResult removeRegionFrom(Scenario& e, int region, QString* text);
  static EditResult removeZoneFrom(Scenario& e, const QString& zone, QString* text);
  static EditResult removePoolFrom(Scenario& e, int pool, QString* text);
  static EditResult removeLinkFrom(Scenario& e, int link, QString* text);
  EditResult commit(Scenario edited, const QString& text);
  void apply(std::shared_ptr<const Scenario> s);  // from the undo commands
  EditResult replaceFromFile(const QByteArray& native_path, const QByteArray& new_file_path);

  const Catalog& catalog_;
  std::shared_ptr<const Scenario> scenario_;
  nlohmann::json extras_ = nlohmann::json::object();  // file keys Scenario does not model
  Session session_;
  QUndoStack* undo_ = nullptr;
  QByteArray file_path_;  // as the file system spells it (QFile::encodeName); empty: none
};

}  // namespace sailor::studio

Q_DECLARE_METATYPE(sailor::studio::Selection)
