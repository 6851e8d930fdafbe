#include "scenario_document.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include <QFileInfo>
#include <QSaveFile>
#include <QUndoCommand>
#include <QUndoStack>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/scenario/offer_pools.hpp"
#include "sailor/scenario/scenario_edit.hpp"

namespace sailor::studio {

namespace {

const Relation kRelations[] = {Relation::SameZone, Relation::SameRegion, Relation::SameContinent,
                               Relation::CrossContinent};

QString num(double v) {
  return QString::number(v, 'g', 8);
}
QString q(const std::string& s) {
  return QString::fromStdString(s);
}
std::string s(const QString& v) {
  return v.trimmed().toStdString();
}

EditResult fail(const QString& field, const QString& message) {
  return {field, message};
}

bool isNonNegative(double v) {
  return std::isfinite(v) && v >= 0;
}
bool isPositive(double v) {
  return std::isfinite(v) && v > 0;
}

using EditRefusal = ScenarioEditError::Reason;

Scenario starterScenario() {
  Scenario sc;
  sc.name = "untitled";
  sc.regions.push_back({"region-1", "north-america", {"zone-1"}});
  sc.default_links = Scenario::builtinDefaultLinks();
  sc.default_egress_usd_per_gb = Scenario::builtinDefaultEgress();
  return sc;
}

}  // namespace

// One edit: the scenario before and after. Scenarios are small (tens of zones and pools), so a
// whole copy is the simplest exact undo.
class ScenarioEditCommand : public QUndoCommand {
 public:
  ScenarioEditCommand(ScenarioDocument* doc, std::shared_ptr<const Scenario> before,
                      std::shared_ptr<const Scenario> after, const QString& text)
      : QUndoCommand(text), doc_(doc), before_(std::move(before)), after_(std::move(after)) {}
  void redo() override { doc_->apply(after_); }
  void undo() override { doc_->apply(before_); }

 private:
  ScenarioDocument* doc_;
  std::shared_ptr<const Scenario> before_;
  std::shared_ptr<const Scenario> after_;
};

ScenarioDocument::ScenarioDocument(const Catalog& catalog, QObject* parent)
    : QObject(parent),
      catalog_(catalog),
      scenario_(std::make_shared<const Scenario>(starterScenario())),
      undo_(new QUndoStack(this)) {
  connect(undo_, &QUndoStack::cleanChanged, this,
          [this](bool clean) { emit modifiedChanged(!clean); });
}

ScenarioDocument::~ScenarioDocument() = default;

bool ScenarioDocument::isModified() const {
  return !undo_->isClean();
}

void ScenarioDocument::apply(std::shared_ptr<const Scenario> s) {
  scenario_ = std::move(s);
  emit changed();
}

// ---------------------------------------------------------------------------------------------
// Checks

EditResult ScenarioDocument::check(const Scenario& sc) const {
  try {
    sc.validate(catalog_);
  } catch (const InputError& e) {
    return fail(q(e.field()),
                tr("%1: got %2, expected %3").arg(q(e.field()), q(e.value()), q(e.expected())));
  }
  // What validate() leaves to the file parser: link models and default egress.
  auto check_model = [this](const LinkModel& m, const QString& field) -> EditResult {
    if (m.kind == LinkModel::Kind::LatencyBandwidth) {
      if (!isPositive(m.bytes_per_s))
        return fail(field, tr("Bandwidth must be > 0 GB/s (got %1)").arg(num(m.bytes_per_s / 1e9)));
      if (!isNonNegative(m.latency_s))
        return fail(field, tr("Latency must be ≥ 0 s (got %1)").arg(num(m.latency_s)));
    } else if (!isPositive(m.max_bytes_per_s)) {
      return fail(field,
                  tr("A fitted link's cap must be > 0 B/s (got %1)").arg(num(m.max_bytes_per_s)));
    }
    return {};
  };
  for (size_t i = 0; i < sc.links.size(); ++i)
    if (auto r = check_model(sc.links[i].model, QStringLiteral("network.links[%1].model").arg(i));
        !r.ok())
      return r;
  for (Relation rel : kRelations) {
    auto it = sc.default_links.find(rel);
    if (it == sc.default_links.end())
      return fail(QStringLiteral("network.defaults"),
                  tr("Missing default link for %1").arg(relationLabel(rel)));
    if (auto r = check_model(
            it->second,
            QStringLiteral("network.defaults.%1").arg(QLatin1String(relationName(rel))));
        !r.ok())
      return r;
    auto e = sc.default_egress_usd_per_gb.find(rel);
    if (e == sc.default_egress_usd_per_gb.end() || !isNonNegative(e->second))
      return fail(
          QStringLiteral("egress_usd_per_gb.defaults"),
          tr("Default egress must be ≥ 0 $/GB (got %1)")
              .arg(e == sc.default_egress_usd_per_gb.end() ? tr("nothing") : num(e->second)));
  }
  for (const auto& r : sc.regions)
    if (QString::fromStdString(r.continent).trimmed().isEmpty())
      return fail(QStringLiteral("continent"),
                  tr("Region %1 needs a continent (got an empty name)").arg(q(r.name)));
  for (const auto& r : sc.regions)
    for (const auto& z : r.zones)
      if (QString::fromStdString(z).trimmed().isEmpty())
        return fail(QStringLiteral("zone name"), tr("A zone name must not be empty"));
  return {};
}

EditResult ScenarioDocument::checkPool(const Pool& p) const {
  if (!scenario_->hasZone(p.zone))
    return fail(QStringLiteral("zone"),
                tr("Zone \"%1\" is not in the scenario (expected one of: %2)")
                    .arg(q(p.zone), zoneNames().join(QStringLiteral(", "))));
  if (!catalog_.findGpu(p.gpu_type))
    return fail(QStringLiteral("gpu_type"), tr("Unknown GPU type \"%1\" (expected one of: %2)")
                                                .arg(q(p.gpu_type), q(catalog_.gpuNames())));
  if (p.count < 0)
    return fail(QStringLiteral("count"), tr("GPU count must be ≥ 0 (got %1)").arg(p.count));
  if (!isNonNegative(p.usd_per_gpu_hour))
    return fail(QStringLiteral("usd_per_gpu_hour"),
                tr("Price must be ≥ 0 $/GPU-hour (got %1)").arg(num(p.usd_per_gpu_hour)));
  if (p.gpus_per_node && *p.gpus_per_node < 1)
    return fail(QStringLiteral("gpus_per_node"),
                tr("GPUs per node must be ≥ 1 (got %1)").arg(*p.gpus_per_node));
  return {};
}

EditResult ScenarioDocument::commit(Scenario edited, const QString& text) {
  if (auto r = check(edited); !r.ok()) return r;
  if (edited.toJson() == scenario_->toJson()) return {};  // nothing changed: no command
  undo_->push(new ScenarioEditCommand(this, scenario_,
                                      std::make_shared<const Scenario>(std::move(edited)), text));
  return {};
}

std::optional<std::vector<size_t>> ScenarioDocument::poolFigureChanges(const Scenario& before,
                                                                       const Scenario& after) {
  if (before.pools.size() != after.pools.size()) return std::nullopt;
  std::vector<size_t> changed;
  for (size_t i = 0; i < after.pools.size(); ++i) {
    const Pool& a = before.pools[i];
    const Pool& b = after.pools[i];
    // Switched off or owned: drawn differently, not only other figures.
    if (a.zone != b.zone || a.gpu_type != b.gpu_type || a.enabled != b.enabled ||
        a.owned != b.owned)
      return std::nullopt;
    if (a.count != b.count || a.usd_per_gpu_hour != b.usd_per_gpu_hour || a.spot != b.spot ||
        a.gpus_per_node != b.gpus_per_node)
      changed.push_back(i);
  }
  if (changed.empty()) return std::nullopt;
  // Everything else compared through the file form, so that a field Scenario gains later is
  // compared too.
  Scenario same = before;
  same.pools = after.pools;
  if (same.toJson() != after.toJson()) return std::nullopt;
  return changed;
}

// ---------------------------------------------------------------------------------------------
// Files

EditResult ScenarioDocument::replaceFromFile(const QByteArray& native_path,
                                             const QByteArray& new_file_path) {
  const QString path = QFile::decodeName(native_path);  // shown; the file is native_path
  // Permissions only: opening a FIFO here would wait for its writer (the engine's reader opens
  // it without waiting).
  if (::access(native_path.constData(), R_OK) != 0)
    return fail(path, tr("Cannot read %1").arg(path));
  nlohmann::json j;
  try {
    // The engine's bounded reader: a hostile file (100,000 nested brackets, 1e309, gigabytes) is
    // refused with its position instead of exhausting the stack.
    j = json_util::readFile(native_path.toStdString());
  } catch (const InputError& e) {
    return fail(path, tr("%1 is not valid JSON: %2").arg(path, QString::fromUtf8(e.what())));
  }
  if (!j.is_object())
    return fail(path, tr("%1: expected a JSON object with regions, pools and network").arg(path));
  // The file's scenario, then its session (the job, its model, the planner's settings).
  const auto refused = [&](const InputError& e) {
    return fail(q(e.field()),
                tr("%1: %2: got %3, expected %4")
                    .arg(QFileInfo(path).fileName(), q(e.field()), q(e.value()), q(e.expected())));
  };
  Scenario loaded;
  Session session;
  try {
    loaded = Scenario::fromJson(j, catalog_);
    if (auto r = check(loaded); !r.ok())
      return fail(r.field, QFileInfo(path).fileName() + QStringLiteral(": ") + r.message);
    session = Session::fromScenarioJson(j, catalog_);
  } catch (const InputError& e) {
    return refused(e);
  }

  nlohmann::json extras = nlohmann::json::object();
  if (j.contains("objective")) extras["objective"] = j.at("objective");
  extras_ = std::move(extras);
  session_ = std::move(session);
  scenario_ = std::make_shared<const Scenario>(std::move(loaded));
  undo_->clear();
  undo_->setClean();
  file_path_ = new_file_path;
  emit changed();
  emit fileChanged();
  emit modifiedChanged(false);
  return {};
}

EditResult ScenarioDocument::load(const QString& path) {
  return loadNative(QFile::encodeName(path));
}

EditResult ScenarioDocument::loadNative(const QByteArray& path) {
  return replaceFromFile(path, path);
}

EditResult ScenarioDocument::newFromDefault() {
  std::string dir;
  try {
    dir = resourceDir();
  } catch (const InputError& e) {
    return fail(q(e.field()), tr("No resources: %1").arg(QString::fromUtf8(e.what())));
  }
  return replaceFromFile(QByteArray::fromStdString(dir + "/scenarios/default.json"), {});
}

EditResult ScenarioDocument::save(const QString& path) {
  nlohmann::json j = scenario_->toJson();
  for (const auto& [key, value] : extras_.items()) j[key] = value;
  session_.writeInto(j);
  const QByteArray bytes = QByteArray::fromStdString(j.dump(2) + "\n");
  // The file filePath() shows is the one that was read, whatever its name's bytes.
  const QByteArray native =
      !file_path_.isEmpty() && path == filePath() ? file_path_ : QFile::encodeName(path);
  if (QFile::encodeName(QFile::decodeName(native)) != native) {
    // A name a QString cannot hold (not UTF-8): the engine's writer takes the bytes.
    try {
      json_util::writeFileAtomically(native.toStdString(), bytes.toStdString());
    } catch (const std::exception& e) {
      return fail(path, tr("Cannot write %1: %2").arg(path, QString::fromUtf8(e.what())));
    }
  } else {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
      return fail(path, tr("Cannot write %1: %2").arg(path, file.errorString()));
    if (file.write(bytes) != bytes.size() || !file.commit())
      return fail(path, tr("Cannot write %1: %2").arg(path, file.errorString()));
  }
  undo_->setClean();
  file_path_ = native;
  emit fileChanged();
  return {};
}

// ---------------------------------------------------------------------------------------------
// Edits

EditResult ScenarioDocument::setName(const QString& name) {
  if (name.trimmed().isEmpty())
    return fail(QStringLiteral("name"), tr("The scenario needs a name (got an empty name)"));
  Scenario e = *scenario_;
  e.name = s(name);
  return commit(std::move(e), tr("Rename scenario to %1").arg(name.trimmed()));
}

EditResult ScenarioDocument::setDescription(const QString& description) {
  Scenario e = *scenario_;
  e.description = description.trimmed().toStdString();
  return commit(std::move(e), tr("Edit description"));
}

namespace {
bool regionNameUsed(const Scenario& sc, const std::string& name, int except) {
  for (size_t i = 0; i < sc.regions.size(); ++i)
    if (static_cast<int>(i) != except && sc.regions[i].name == name) return true;
  return false;
}
}  // namespace

EditResult ScenarioDocument::addRegion(const QString& name, const QString& continent,
                                       const QString& first_zone) {
  if (name.trimmed().isEmpty())
    return fail(QStringLiteral("region name"), tr("A region needs a name (got an empty name)"));
  if (regionNameUsed(*scenario_, s(name), -1))
    return fail(QStringLiteral("region name"),
                tr("Region name \"%1\" is already used (expected a new name)").arg(name.trimmed()));
  if (continent.trimmed().isEmpty())
    return fail(QStringLiteral("continent"), tr("A region needs a continent (got an empty name)"));
  if (first_zone.trimmed().isEmpty())
    return fail(QStringLiteral("zone name"), tr("A zone needs a name (got an empty name)"));
  if (scenario_->hasZone(s(first_zone)))
    return fail(
        QStringLiteral("zone name"),
        tr("Zone name \"%1\" is already used (expected a new name)").arg(first_zone.trimmed()));
  Scenario e = *scenario_;
  e.regions.push_back({s(name), s(continent), {s(first_zone)}});
  return commit(std::move(e), tr("Add region %1").arg(name.trimmed()));
}

EditResult ScenarioDocument::renameRegion(int region, const QString& name) {
  if (region < 0 || region >= static_cast<int>(scenario_->regions.size()))
    return fail(QStringLiteral("region"), tr("No region %1").arg(region));
  if (name.trimmed().isEmpty())
    return fail(QStringLiteral("region name"), tr("A region needs a name (got an empty name)"));
  if (regionNameUsed(*scenario_, s(name), region))
    return fail(QStringLiteral("region name"),
                tr("Region name \"%1\" is already used (expected a new name)").arg(name.trimmed()));
  Scenario e = *scenario_;
  e.regions[region].name = s(name);
  return commit(std::move(e), tr("Rename region to %1").arg(name.trimmed()));
}

EditResult ScenarioDocument::setRegionContinent(int region, const QString& continent) {
  if (region < 0 || region >= static_cast<int>(scenario_->regions.size()))
    return fail(QStringLiteral("region"), tr("No region %1").arg(region));
  if (continent.trimmed().isEmpty())
    return fail(QStringLiteral("continent"), tr("A region needs a continent (got an empty name)"));
  Scenario e = *scenario_;
  e.regions[region].continent = s(continent);
  // The text first: the order in which commit's arguments are built is unspecified.
  const QString text = tr("Set continent of %1").arg(q(e.regions[region].name));
  return commit(std::move(e), text);
}

EditResult ScenarioDocument::removeRegion(int region) {
  Scenario e = *scenario_;
  QString text;
  if (auto r = removeRegionFrom(e, region, &text); !r.ok()) return r;
  return commit(std::move(e), text);
}

EditResult ScenarioDocument::addZone(int region, const QString& zone) {
  if (region < 0 || region >= static_cast<int>(scenario_->regions.size()))
    return fail(QStringLiteral("region"), tr("No region %1").arg(region));
  if (zone.trimmed().isEmpty())
    return fail(QStringLiteral("zone name"), tr("A zone needs a name (got an empty name)"));
  if (scenario_->hasZone(s(zone)))
    return fail(QStringLiteral("zone name"),
                tr("Zone name \"%1\" is already used (expected a new name)").arg(zone.trimmed()));
  Scenario e = *scenario_;
  e.regions[region].zones.push_back(s(zone));
  return commit(std::move(e), tr("Add zone %1").arg(zone.trimmed()));
}

// The rule (every reference follows the new name) is the engine's sailor::renameZone; the
// document words its refusals and makes the result one undoable command.
EditResult ScenarioDocument::renameZone(const QString& zone, const QString& new_name) {
  const std::string now = s(new_name);
  ScenarioEditResult renamed = sailor::renameZone(*scenario_, zone.toStdString(), now);
  if (!renamed.ok()) {
    switch (renamed.error().reason) {
      case EditRefusal::UnknownZone:
        return fail(QStringLiteral("zone"), tr("No zone \"%1\"").arg(zone));
      case EditRefusal::EmptyName:
        return fail(QStringLiteral("zone name"), tr("A zone needs a name (got an empty name)"));
      case EditRefusal::NameTaken:
        return fail(QStringLiteral("zone name"),
                    tr("Zone name \"%1\" is already used (expected a new name)").arg(q(now)));
      default: return fail(q(renamed.error().field), q(renamed.error().message()));
    }
  }
  return commit(std::move(renamed.scenario()), tr("Rename zone %1 to %2").arg(zone, q(now)));
}

EditResult ScenarioDocument::removeZone(const QString& zone) {
  Scenario e = *scenario_;
  QString text;
  if (auto r = removeZoneFrom(e, zone, &text); !r.ok()) return r;
  return commit(std::move(e), text);
}

EditResult ScenarioDocument::addPool(const Pool& pool) {
  if (auto r = checkPool(pool); !r.ok()) return r;
  if (scenario_->findPool(pool.zone, pool.gpu_type))
    return fail(QStringLiteral("gpu_type"),
                tr("Zone %1 already has a %2 pool (expected one pool per zone and GPU type)")
                    .arg(q(pool.zone), q(pool.gpu_type)));
  Scenario e = *scenario_;
  e.pools.push_back(pool);
  return commit(std::move(e), tr("Add %1 pool in %2").arg(q(pool.gpu_type), q(pool.zone)));
}

EditResult ScenarioDocument::addOfferPool(const PriceOffer& offer, int count, bool spot,
                                          const QString& price_date) {
  Scenario e;
  try {
    e = sailor::addOfferPool(*scenario_, offer, count, spot, price_date.toStdString(), catalog_,
                             "offer");
  } catch (const InputError& err) {
    return fail(
        q(err.field()),
        tr("%1: got %2, expected %3").arg(q(err.field()), q(err.value()), q(err.expected())));
  }
  return commit(std::move(e), tr("Add %1 %2 from %3 in %4")
                                  .arg(count)
                                  .arg(q(offer.gpu_type), q(offer.cloud),
                                       q(offer.zone.empty() ? offer.region : offer.zone)));
}

EditResult ScenarioDocument::editPool(int index, const Pool& value) {
  if (index < 0 || index >= static_cast<int>(scenario_->pools.size()))
    return fail(QStringLiteral("pool"), tr("No pool %1").arg(index));
  if (auto r = checkPool(value); !r.ok()) return r;
  for (size_t i = 0; i < scenario_->pools.size(); ++i)
    if (static_cast<int>(i) != index && scenario_->pools[i].zone == value.zone &&
        scenario_->pools[i].gpu_type == value.gpu_type)
      return fail(QStringLiteral("gpu_type"),
                  tr("Zone %1 already has a %2 pool (expected one pool per zone and GPU type)")
                      .arg(q(value.zone), q(value.gpu_type)));
  Scenario e = *scenario_;
  e.pools[index] = value;
  return commit(std::move(e), tr("Edit %1 pool in %2").arg(q(value.gpu_type), q(value.zone)));
}

EditResult ScenarioDocument::removePool(int index) {
  Scenario e = *scenario_;
  QString text;
  if (auto r = removePoolFrom(e, index, &text); !r.ok()) return r;
  return commit(std::move(e), text);
}

namespace {
EditResult checkLinkFigures(double gb_per_s, double latency_s) {
  if (!isPositive(gb_per_s))
    return fail(QStringLiteral("bandwidth_gb_per_s"),
                ScenarioDocument::tr("Bandwidth must be > 0 GB/s (got %1)").arg(num(gb_per_s)));
  if (!isNonNegative(latency_s))
    return fail(QStringLiteral("latency_s"),
                ScenarioDocument::tr("Latency must be ≥ 0 s (got %1)").arg(num(latency_s)));
  return {};
}
EditResult checkEgress(double usd_per_gb) {
  if (!isNonNegative(usd_per_gb))
    return fail(QStringLiteral("usd_per_gb"),
                ScenarioDocument::tr("Egress must be ≥ 0 $/GB (got %1)").arg(num(usd_per_gb)));
  return {};
}
void setEgressBothWays(Scenario& sc, const std::string& a, const std::string& b,
                       std::optional<double> v) {
  if (v) {
    sc.egress_usd_per_gb[{a, b}] = *v;
    sc.egress_usd_per_gb[{b, a}] = *v;
  } else {
    sc.egress_usd_per_gb.erase({a, b});
    sc.egress_usd_per_gb.erase({b, a});
  }
}
}  // namespace

EditResult ScenarioDocument::addLink(const QString& from_zone, const QString& to_zone,
                                     double gb_per_s, double latency_s,
                                     std::optional<double> egress_usd_per_gb) {
  const std::string a = from_zone.toStdString(), b = to_zone.toStdString();
  for (const std::string& z : {a, b})
    if (!scenario_->hasZone(z))
      return fail(z == a ? QStringLiteral("from_zone") : QStringLiteral("to_zone"),
                  tr("Zone \"%1\" is not in the scenario (expected one of: %2)")
                      .arg(q(z), zoneNames().join(QStringLiteral(", "))));
  if (a == b)
    return fail(QStringLiteral("to_zone"),
                tr("A link joins two different zones (got %1 twice); links inside a zone use the "
                   "same-zone default")
                    .arg(from_zone));
  for (const auto& l : scenario_->links)
    if (!l.from_gpu && !l.to_gpu && !l.gpus &&
        ((l.from_zone == a && l.to_zone == b) || (l.from_zone == b && l.to_zone == a)))
      return fail(
          QStringLiteral("to_zone"),
          tr("%1 and %2 are already linked (edit that link instead)").arg(from_zone, to_zone));
  if (auto r = checkLinkFigures(gb_per_s, latency_s); !r.ok()) return r;
  if (egress_usd_per_gb)
    if (auto r = checkEgress(*egress_usd_per_gb); !r.ok()) return r;
  Scenario e = *scenario_;
  LinkEntry entry;
  entry.from_zone = a;
  entry.to_zone = b;
  entry.model = LinkModel::latencyBandwidth(latency_s, gb_per_s);
  e.links.push_back(entry);
  if (egress_usd_per_gb) setEgressBothWays(e, a, b, egress_usd_per_gb);
  return commit(std::move(e), tr("Add link %1 ↔ %2").arg(from_zone, to_zone));
}

EditResult ScenarioDocument::editLink(int index, double gb_per_s, double latency_s) {
  if (index < 0 || index >= static_cast<int>(scenario_->links.size()))
    return fail(QStringLiteral("link"), tr("No link %1").arg(index));
  if (auto r = checkLinkFigures(gb_per_s, latency_s); !r.ok()) return r;
  Scenario e = *scenario_;
  e.links[index].model = LinkModel::latencyBandwidth(latency_s, gb_per_s);
  // The text first: the order in which commit's arguments are built is unspecified.
  const QString text =
      tr("Edit link %1 ↔ %2").arg(q(e.links[index].from_zone), q(e.links[index].to_zone));
  return commit(std::move(e), text);
}

EditResult ScenarioDocument::removeLink(int index) {
  Scenario e = *scenario_;
  QString text;
  if (auto r = removeLinkFrom(e, index, &text); !r.ok()) return r;
  return commit(std::move(e), text);
}

// Removals on a working copy `e`; each checks against `e`, so that removeItems can chain them.
// What goes with a region or a zone is the engine's rule (sailor::removeRegion, removeZone); the
// document words the refusals.
EditResult ScenarioDocument::removeRegionFrom(Scenario& e, int region, QString* text) {
  ScenarioEditResult removed = sailor::removeRegion(e, region);
  if (!removed.ok()) {
    if (removed.error().reason == EditRefusal::LastRegion)
      return fail(QStringLiteral("region"),
                  tr("A scenario needs at least one region: add another before removing %1")
                      .arg(q(e.regions[static_cast<size_t>(region)].name)));
    return fail(QStringLiteral("region"), tr("No region %1").arg(region));
  }
  *text = tr("Remove region %1").arg(q(e.regions[static_cast<size_t>(region)].name));
  e = std::move(removed.scenario());
  return {};
}

EditResult ScenarioDocument::removeZoneFrom(Scenario& e, const QString& zone, QString* text) {
  ScenarioEditResult removed = sailor::removeZone(e, zone.toStdString());
  if (!removed.ok()) {
    if (removed.error().reason == EditRefusal::LastZone)
      return fail(QStringLiteral("zone"),
                  tr("Region %1 needs at least one zone: remove the region instead of its last "
                     "zone %2")
                      .arg(q(e.regionOf(zone.toStdString()).name), zone));
    return fail(QStringLiteral("zone"), tr("No zone \"%1\"").arg(zone));
  }
  e = std::move(removed.scenario());
  *text = tr("Remove zone %1").arg(zone);
  return {};
}

EditResult ScenarioDocument::removePoolFrom(Scenario& e, int index, QString* text) {
  if (index < 0 || index >= static_cast<int>(e.pools.size()))
    return fail(QStringLiteral("pool"), tr("No pool %1").arg(index));
  const Pool p = e.pools[index];
  e.pools.erase(e.pools.begin() + index);
  *text = tr("Remove %1 pool in %2").arg(q(p.gpu_type), q(p.zone));
  return {};
}

EditResult ScenarioDocument::removeLinkFrom(Scenario& e, int index, QString* text) {
  if (index < 0 || index >= static_cast<int>(e.links.size()))
    return fail(QStringLiteral("link"), tr("No link %1").arg(index));
  const LinkEntry l = e.links[index];
  e.links.erase(e.links.begin() + index);
  bool still_linked = false;
  for (const auto& o : e.links)
    still_linked |= (o.from_zone == l.from_zone && o.to_zone == l.to_zone) ||
                    (o.from_zone == l.to_zone && o.to_zone == l.from_zone);
  if (!still_linked) setEgressBothWays(e, l.from_zone, l.to_zone, std::nullopt);
  *text = tr("Remove link %1 ↔ %2").arg(q(l.from_zone), q(l.to_zone));
  return {};
}

// Links and pools first, by falling index (removing one does not move the ones before it, and
// neither touches zones); then zones by name, except those of a region that goes too (its last
// zone would be refused on its own); then regions by name. Any refusal refuses the whole set.
EditResult ScenarioDocument::removeItems(const QList<Selection>& items) {
  QList<int> links, pools;
  QStringList zones, regions;
  for (const Selection& it : items) {
    switch (it.kind) {
      case Selection::Link: links << it.index; break;
      case Selection::Pool: pools << it.index; break;
      case Selection::Zone: zones << it.name; break;
      case Selection::Region:
        if (it.index < 0 || it.index >= static_cast<int>(scenario_->regions.size()))
          return fail(QStringLiteral("region"), tr("No region %1").arg(it.index));
        regions << q(scenario_->regions[static_cast<size_t>(it.index)].name);
        break;
      default:
        return fail(QStringLiteral("selection"),
                    tr("Only regions, zones, pools and links can be removed"));
    }
  }
  std::sort(links.begin(), links.end(), std::greater<>());
  std::sort(pools.begin(), pools.end(), std::greater<>());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  pools.erase(std::unique(pools.begin(), pools.end()), pools.end());
  zones.removeDuplicates();
  regions.removeDuplicates();
  Scenario e = *scenario_;
  QString text;
  int count = 0;
  for (int l : links)
    if (auto r = removeLinkFrom(e, l, &text); !r.ok()) return r;
  for (int p : pools)
    if (auto r = removePoolFrom(e, p, &text); !r.ok()) return r;
  count = static_cast<int>(links.size() + pools.size());
  for (const QString& z : zones) {
    const int region = regionIndexOfZone(z);
    if (region >= 0 && regions.contains(q(scenario_->regions[static_cast<size_t>(region)].name))) {
      ++count;  // goes with its region
      continue;
    }
    if (auto r = removeZoneFrom(e, z, &text); !r.ok()) return r;
    ++count;
  }
  for (const QString& name : regions) {
    const auto it = std::find_if(e.regions.begin(), e.regions.end(),
                                 [&](const Region& r) { return q(r.name) == name; });
    if (auto r = removeRegionFrom(e, static_cast<int>(it - e.regions.begin()), &text); !r.ok())
      return r;
    ++count;
  }
  if (count == 0) return fail(QStringLiteral("selection"), tr("Select something to delete"));
  return commit(std::move(e), count == 1 ? text : tr("Remove %n items", nullptr, count));
}

EditResult ScenarioDocument::setPairEgress(const QString& zone_a, const QString& zone_b,
                                           std::optional<double> usd_per_gb) {
  const std::string a = zone_a.toStdString(), b = zone_b.toStdString();
  if (!scenario_->hasZone(a) || !scenario_->hasZone(b))
    return fail(QStringLiteral("zone"), tr("No zone pair %1, %2").arg(zone_a, zone_b));
  if (usd_per_gb)
    if (auto r = checkEgress(*usd_per_gb); !r.ok()) return r;
  Scenario e = *scenario_;
  setEgressBothWays(e, a, b, usd_per_gb);
  return commit(std::move(e), tr("Set egress %1 ↔ %2").arg(zone_a, zone_b));
}

std::optional<double> ScenarioDocument::pairEgress(const QString& zone_a,
                                                   const QString& zone_b) const {
  const std::string a = zone_a.toStdString(), b = zone_b.toStdString();
  const auto& m = scenario_->egress_usd_per_gb;
  if (auto it = m.find({a, b}); it != m.end()) return it->second;
  if (auto it = m.find({b, a}); it != m.end()) return it->second;
  return std::nullopt;
}

EditResult ScenarioDocument::setDefaultLink(Relation relation, double gb_per_s, double latency_s) {
  if (auto r = checkLinkFigures(gb_per_s, latency_s); !r.ok()) return r;
  Scenario e = *scenario_;
  e.default_links[relation] = LinkModel::latencyBandwidth(latency_s, gb_per_s);
  return commit(std::move(e), tr("Edit default link (%1)").arg(relationLabel(relation)));
}

EditResult ScenarioDocument::setDefaultEgress(Relation relation, double usd_per_gb) {
  if (auto r = checkEgress(usd_per_gb); !r.ok()) return r;
  Scenario e = *scenario_;
  e.default_egress_usd_per_gb[relation] = usd_per_gb;
  return commit(std::move(e), tr("Edit default egress (%1)").arg(relationLabel(relation)));
}

// ---------------------------------------------------------------------------------------------
// Helpers

QStringList ScenarioDocument::zoneNames() const {
  QStringList out;
  for (const auto& r : scenario_->regions)
    for (const auto& z : r.zones) out << q(z);
  return out;
}

int ScenarioDocument::regionIndexOfZone(const QString& zone) const {
  const std::string z = zone.toStdString();
  for (size_t i = 0; i < scenario_->regions.size(); ++i)
    for (const auto& name : scenario_->regions[i].zones)
      if (name == z) return static_cast<int>(i);
  return -1;
}

QString ScenarioDocument::uniqueRegionName() const {
  for (size_t n = scenario_->regions.size() + 1;; ++n) {
    const std::string name = "region-" + std::to_string(n);
    if (!regionNameUsed(*scenario_, name, -1)) return q(name);
  }
}

QString ScenarioDocument::uniqueZoneName() const {
  for (qsizetype n = zoneNames().size() + 1;; ++n) {
    const std::string name = "zone-" + std::to_string(n);
    if (!scenario_->hasZone(name)) return q(name);
  }
}

std::optional<Pool> ScenarioDocument::suggestedPool(const QString& zone) const {
  const std::string z = zone.toStdString();
  Pool p;
  p.zone = z;
  p.count = 8;
  // The first catalogue type priced somewhere in the scenario (a pool in the same region first).
  const int region = regionIndexOfZone(zone);
  for (const auto& g : catalog_.gpus()) {
    if (scenario_->findPool(z, g.name)) continue;
    const Pool* priced = nullptr;
    for (const auto& other : scenario_->pools) {
      if (other.gpu_type != g.name) continue;
      if (!priced || (region >= 0 && regionIndexOfZone(q(other.zone)) == region)) priced = &other;
    }
    if (priced) {
      p.gpu_type = g.name;
      p.usd_per_gpu_hour = priced->usd_per_gpu_hour;
      p.spot = priced->spot;
      return p;
    }
  }
  if (catalog_.findGpu("A100-40") && !scenario_->findPool(z, "A100-40")) {
    p.gpu_type = "A100-40";
    return p;
  }
  for (const auto& g : catalog_.gpus())
    if (!scenario_->findPool(z, g.name)) {
      p.gpu_type = g.name;
      return p;
    }
  return std::nullopt;
}

QString ScenarioDocument::relationLabel(Relation relation) {
  switch (relation) {
    case Relation::SameZone: return tr("same zone");
    case Relation::SameRegion: return tr("same region");
    case Relation::SameContinent: return tr("same continent");
    case Relation::CrossContinent: return tr("across continents");
  }
  return {};
}

}  // namespace sailor::studio
