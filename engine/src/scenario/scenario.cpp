// The scenario: zones in regions, GPU pools, the network between (zone, GPU type) pairs and
// egress prices. Declared in sailor/scenario/scenario.hpp.
//
// Map:
//   relationName, LinkModel::*              one link's time model (latency + bandwidth, or
//                                           SAILOR's fit) and its JSON
//   Scenario::builtinDefault*               defaults by zone relation
//   Scenario::hasZone, regionOf, relation   zones and how two of them relate
//   linkSourceName, HardwareLink            where a link's figure comes from
//   ResolvedLink, bestEntry, Scenario::link the link for a query: the most specific entry, the
//                                           slower of two GPU types' own links, inside a zone
//                                           the catalogue's node network, the default
//   declaresDefaultLink, hardwareLink       a declared default; a pool's node network
//   LinkIndex                               the one cache of resolved links, looked up among
//                                           the entries by zone pair
//   Scenario::intraNodeLink, LinkResolver   inside a node; one computation's links
//   egressUsdPerGb, findPool, gpusPerNode   prices and pools
//   checkLink, bandwidthGbPerS, checkGpuCount  figures within the bounds of scenario.hpp
//   checkInstance, recordNetworks           a pool's instance family; the catalogue's networks
//   Scenario::validate                      the whole scenario's consistency, no duplicate link
//   regionsFromJson, poolsFromJson, ...     the file's sections, each field checked; then
//   Scenario::fromJson, toJson                fromJson assembles and validates them
#include "sailor/scenario/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"

namespace sailor {

using nlohmann::json;
namespace ju = json_util;

const char* relationName(Relation r) {
  switch (r) {
    case Relation::SameZone: return "same_zone";
    case Relation::SameRegion: return "same_region";
    case Relation::SameContinent: return "same_continent";
    case Relation::CrossContinent: return "cross_continent";
  }
  return "?";
}

const char* linkSourceName(LinkSource s) {
  switch (s) {
    case LinkSource::Declared: return "declared";
    case LinkSource::Fitted: return "fitted";
    case LinkSource::Catalogue: return "catalogue";
    case LinkSource::BuiltIn: return "built-in";
  }
  return "?";
}

// A declared model's origin: SAILOR's fits are the only source of the sailor_fit form.
static LinkSource declaredOrigin(const LinkModel& m) {
  return m.kind == LinkModel::Kind::SailorFit ? LinkSource::Fitted : LinkSource::Declared;
}

static bool sameModel(const LinkModel& a, const LinkModel& b) {
  return a.kind == b.kind && a.latency_s == b.latency_s && a.bytes_per_s == b.bytes_per_s &&
         a.coefficients == b.coefficients && a.max_bytes_per_s == b.max_bytes_per_s;
}

std::string HardwareLink::describe() const {
  std::string s = "catalogue " + gpu_type;
  if (!instance.empty()) s += " " + instance;
  s += " (" + toText(model.bytes_per_s * 8 / 1e9) + " Gb/s per node of " +
       std::to_string(gpus_per_node);
  if (gpus_per_node != family_gpus_per_node)
    s += ": the share of " + std::to_string(gpus_per_node) + " GPUs of its " +
         std::to_string(family_gpus_per_node) + "-GPU node";
  return s + ")";
}

static const Relation kRelations[] = {Relation::SameZone, Relation::SameRegion,
                                      Relation::SameContinent, Relation::CrossContinent};

// A link's figures within the bounds of sailor/scenario/scenario.hpp (kMinLinkGbPerS and the rest).
static void checkLink(const LinkModel& m, const std::string& path) {
  if (m.kind == LinkModel::Kind::LatencyBandwidth) {
    if (!(m.latency_s >= 0 && m.latency_s <= kMaxLatencyS))
      throw InputError(path + ".latency_s", toText(m.latency_s),
                       "a latency in seconds from 0 to 10");
    const double gb = m.bytes_per_s / 1e9;
    if (!(gb >= kMinLinkGbPerS && gb <= kMaxLinkGbPerS))
      throw InputError(path + ".bandwidth_gb_per_s", toText(gb),
                       "a bandwidth in GB/s from 1e-06 (1 kB/s) to 1e+05");
    return;
  }
  for (size_t k = 0; k < m.coefficients.size(); ++k)
    if (!(std::fabs(m.coefficients[k]) <= kMaxLinkFitCoefficient))
      throw InputError(path + ".coefficients[" + std::to_string(k) + "]", toText(m.coefficients[k]),
                       "a coefficient in GB/s from -1e+05 to 1e+05");
  const double gb = m.max_bytes_per_s / 1e9;
  if (!(gb >= kMinLinkGbPerS && gb <= kMaxLinkGbPerS))
    throw InputError(path + ".max_bytes_per_s", toText(m.max_bytes_per_s),
                     "a bandwidth in bytes/s from 1000 (1 kB/s) to 1e+14");
}

// "bandwidth_gb_per_s" of `j`, bounded as checkLink bounds it, but named as written: converted to
// bytes/s, 1e300 GB/s would show as inf.
static double bandwidthGbPerS(const json& j, const std::string& path) {
  const double gb = ju::getPositive(j, "bandwidth_gb_per_s", path);
  if (!(gb >= kMinLinkGbPerS && gb <= kMaxLinkGbPerS))
    throw InputError(path + ".bandwidth_gb_per_s", ju::describe(j.at("bandwidth_gb_per_s")),
                     "a bandwidth in GB/s from 1e-06 (1 kB/s) to 1e+05");
  return gb;
}

// A count of GPUs within [lo, kMaxGpuCount].
static void checkGpuCount(int n, int lo, const std::string& path) {
  if (n < lo || n > kMaxGpuCount)
    throw InputError(path, std::to_string(n),
                     "an integer from " + std::to_string(lo) + " to 1000000");
}

// `value` is how the error shows the price (with its zone pair, for pairs).
static void checkEgress(double usd_per_gb, const std::string& path, const std::string& value) {
  if (!(usd_per_gb >= 0 && usd_per_gb <= kMaxEgressUsdPerGb))
    throw InputError(path, value, "a price in USD per GB from 0 to 1000");
}

LinkModel LinkModel::latencyBandwidth(double latency_s, double gb_per_s) {
  LinkModel m;
  m.kind = Kind::LatencyBandwidth;
  m.latency_s = latency_s;
  m.bytes_per_s = gb_per_s * 1e9;
  return m;
}

LinkModel LinkModel::sailorFit(std::array<double, 3> c, double max_bytes_per_s) {
  LinkModel m;
  m.kind = Kind::SailorFit;
  m.coefficients = c;
  m.max_bytes_per_s = max_bytes_per_s;
  return m;
}

double LinkModel::bandwidthBytesPerS(double bytes) const {
  if (kind == Kind::LatencyBandwidth) {
    double s = seconds(bytes);
    return s > 0 ? bytes / s : bytes_per_s;
  }
  const double x = std::log2(std::max(bytes, 1.0) / 1e6);
  const double gb = coefficients[0] * x * x + coefficients[1] * x + coefficients[2];
  double bw = gb * 1e9;
  if (max_bytes_per_s > 0) bw = std::min(bw, max_bytes_per_s);
  const double floor = 0.01 * (max_bytes_per_s > 0 ? max_bytes_per_s : 1e9);
  return std::max(bw, floor);
}

double LinkModel::seconds(double bytes) const {
  if (bytes <= 0) return 0;
  if (kind == Kind::LatencyBandwidth) return latency_s + bytes / bytes_per_s;
  return bytes / bandwidthBytesPerS(bytes);
}

json LinkModel::toJson() const {
  if (kind == Kind::LatencyBandwidth)
    return json{{"kind", "latency_bandwidth"},
                {"latency_s", latency_s},
                {"bandwidth_gb_per_s", bytes_per_s / 1e9}};
  return json{{"kind", "sailor_fit"},
              {"coefficients", {coefficients[0], coefficients[1], coefficients[2]}},
              {"max_bytes_per_s", max_bytes_per_s}};
}

LinkModel LinkModel::fromJson(const json& j, const std::string& path) {
  const std::string kind = ju::getString(j, "kind", path);
  if (kind == "latency_bandwidth") {
    ju::rejectUnknownKeys(j, {"kind", "latency_s", "bandwidth_gb_per_s"}, path);
    return latencyBandwidth(ju::getNonNegative(j, "latency_s", path), bandwidthGbPerS(j, path));
  }
  if (kind == "sailor_fit") {
    ju::rejectUnknownKeys(j, {"kind", "coefficients", "max_bytes_per_s"}, path);
    const json& c = ju::require(j, "coefficients", path);
    if (!c.is_array() || c.size() != 3 || !c[0].is_number() || !c[1].is_number() ||
        !c[2].is_number())
      throw InputError(path + ".coefficients", ju::describe(c), "three numbers [c0, c1, c2]");
    return sailorFit({c[0].get<double>(), c[1].get<double>(), c[2].get<double>()},
                     ju::getPositive(j, "max_bytes_per_s", path));
  }
  throw InputError(path + ".kind", "\"" + kind + "\"", "\"latency_bandwidth\" or \"sailor_fit\"");
}

std::map<Relation, LinkModel> Scenario::builtinDefaultLinks() {
  // Per node, one direction. Same zone: SAILOR measured about 6 GB/s between 4-GPU A100 VMs
  // in one GCP zone; same region ~5 GB/s; us-central1 <-> us-west1 about 1 GB/s (SAILOR's
  // network fits); across an ocean we assume half that with 80 ms one-way latency.
  return {{Relation::SameZone, LinkModel::latencyBandwidth(1e-5, 6.0)},
          {Relation::SameRegion, LinkModel::latencyBandwidth(1e-4, 5.0)},
          {Relation::SameContinent, LinkModel::latencyBandwidth(0.02, 1.0)},
          {Relation::CrossContinent, LinkModel::latencyBandwidth(0.08, 0.5)}};
}

std::map<Relation, double> Scenario::builtinDefaultEgress() {
  // GCP inter-zone and inter-region egress list prices (see resources/prices/default.json).
  return {{Relation::SameZone, 0.0},
          {Relation::SameRegion, 0.01},
          {Relation::SameContinent, 0.02},
          {Relation::CrossContinent, 0.08}};
}

bool Scenario::hasZone(const std::string& zone) const {
  for (const auto& r : regions)
    for (const auto& z : r.zones)
      if (z == zone) return true;
  return false;
}

const Region& Scenario::regionOf(const std::string& zone) const {
  for (const auto& r : regions)
    for (const auto& z : r.zones)
      if (z == zone) return r;
  throw InputError("zone", "\"" + zone + "\"", "a zone declared in the scenario's regions");
}

Relation Scenario::relation(const std::string& a, const std::string& b) const {
  if (a == b) return Relation::SameZone;
  const Region& ra = regionOf(a);
  const Region& rb = regionOf(b);
  if (ra.name == rb.name) return Relation::SameRegion;
  if (ra.continent == rb.continent) return Relation::SameContinent;
  return Relation::CrossContinent;
}

double ResolvedLink::bandwidthBytesPerS(double bytes) const {
  double bw = model.bandwidthBytesPerS(bytes);
  if (slower) bw = std::min(bw, slower->bandwidthBytesPerS(bytes));
  return bw;
}

static double modelTransferSeconds(const LinkModel& m, double per_gpu_bytes, int gpus) {
  if (per_gpu_bytes <= 0) return 0;
  const double total = per_gpu_bytes * gpus;
  if (m.kind == LinkModel::Kind::LatencyBandwidth) return m.seconds(total);
  // SAILOR's fits were measured with each GPU sending a message of this size.
  return total / m.bandwidthBytesPerS(per_gpu_bytes);
}

double ResolvedLink::transferSeconds(double per_gpu_bytes, int gpus) const {
  double t = modelTransferSeconds(model, per_gpu_bytes, gpus);
  if (slower) t = std::max(t, modelTransferSeconds(*slower, per_gpu_bytes, gpus));
  return t;
}

namespace {
const LinkEntry& entryOf(const LinkEntry& e) {
  return e;
}
const LinkEntry& entryOf(const LinkEntry* e) {
  return *e;
}

// Best entry between the two zones (either direction) for GPU types gf -> gt, or nullptr, among
// `links` (LinkEntry or pointers to them, in the scenario's order).
// typed: only entries naming both GPU types; untyped: only entries naming neither.
template <class Entries>
const LinkEntry* bestEntry(const Entries& links, const std::string& fz, const std::string& tz,
                           const std::string& gf, const std::string& gt, int gpus, bool typed) {
  const LinkEntry* best = nullptr;
  int best_score = -1;
  for (const auto& item : links) {
    const LinkEntry& l = entryOf(item);
    const bool forward = l.from_zone == fz && l.to_zone == tz;
    const bool backward = l.from_zone == tz && l.to_zone == fz;
    if (!forward && !backward) continue;
    if (typed != (l.from_gpu.has_value() && l.to_gpu.has_value())) continue;
    if (!typed && (l.from_gpu || l.to_gpu)) continue;
    if (typed) {
      const std::string& a = forward ? gf : gt;
      const std::string& b = forward ? gt : gf;
      if (*l.from_gpu != a || *l.to_gpu != b) continue;
    }
    int score = forward ? 1 : 0;
    if (l.gpus) score += *l.gpus == gpus ? 100 : 50 - std::min(49, std::abs(*l.gpus - gpus));
    if (score > best_score) {
      best_score = score;
      best = &l;
    }
  }
  return best;
}

std::string describeEntry(const LinkEntry& e) {
  std::string s = "link " + e.from_zone + " -> " + e.to_zone;
  if (e.from_gpu || e.to_gpu)
    s += " (" + e.from_gpu.value_or("*") + " -> " + e.to_gpu.value_or("*") + ")";
  if (e.gpus) s += " x" + std::to_string(*e.gpus);
  return s;
}

// Scenario::link over `links`: all of the scenario's entries, or those between q's zones.
template <class Entries>
ResolvedLink resolveLink(const Scenario& sc, const Entries& links, const LinkQuery& q) {
  // 1. An entry for exactly these GPU types (nearest GPU count, either direction).
  if (const LinkEntry* e =
          bestEntry(links, q.from_zone, q.to_zone, q.from_gpu, q.to_gpu, q.gpus, true))
    return {e->model, std::nullopt, describeEntry(*e), declaredOrigin(e->model)};
  // 2. Two GPU types without an entry of their own: the slower of each type's own link.
  if (q.from_gpu != q.to_gpu) {
    const LinkEntry* a =
        bestEntry(links, q.from_zone, q.to_zone, q.from_gpu, q.from_gpu, q.gpus, true);
    const LinkEntry* b = bestEntry(links, q.from_zone, q.to_zone, q.to_gpu, q.to_gpu, q.gpus, true);
    if (a && b) {
      const bool fitted = declaredOrigin(a->model) == LinkSource::Fitted &&
                          declaredOrigin(b->model) == LinkSource::Fitted;
      return {a->model, b->model, "slower of " + describeEntry(*a) + " and " + describeEntry(*b),
              fitted ? LinkSource::Fitted : LinkSource::Declared};
    }
    if (a) return {a->model, std::nullopt, describeEntry(*a), declaredOrigin(a->model)};
    if (b) return {b->model, std::nullopt, describeEntry(*b), declaredOrigin(b->model)};
  }
  // 3. An entry for the zones alone.
  if (const LinkEntry* e =
          bestEntry(links, q.from_zone, q.to_zone, q.from_gpu, q.to_gpu, q.gpus, false))
    return {e->model, std::nullopt, describeEntry(*e), declaredOrigin(e->model)};
  // 4. Inside a zone without a declared default: the catalogue's node networks (the slower of
  // the two types' when they differ).
  const Relation r = sc.relation(q.from_zone, q.to_zone);
  if (r == Relation::SameZone && !sc.declaresDefaultLink(r)) {
    const auto a = sc.hardwareLink(q.from_zone, q.from_gpu);
    const auto b = q.from_gpu == q.to_gpu ? a : sc.hardwareLink(q.to_zone, q.to_gpu);
    if (a && b && q.from_gpu != q.to_gpu)
      return {a->model, b->model, "slower of " + a->describe() + " and " + b->describe(),
              LinkSource::Catalogue};
    if (a || b) {
      const HardwareLink& h = a ? *a : *b;
      return {h.model, std::nullopt, h.describe(), LinkSource::Catalogue};
    }
  }
  // 5. The default of the zones' relation, declared or built in.
  const bool declared = sc.declaresDefaultLink(r);
  const LinkModel& m = sc.default_links.at(r);
  return {m, std::nullopt, std::string("default ") + relationName(r),
          declared ? declaredOrigin(m) : LinkSource::BuiltIn};
}
}  // namespace

ResolvedLink Scenario::link(const LinkQuery& q) const {
  return resolveLink(*this, links, q);
}

bool Scenario::declaresDefaultLink(Relation r) const {
  if (declared_default_links.count(r)) return true;
  auto it = default_links.find(r);
  return it != default_links.end() && !sameModel(it->second, builtinDefaultLinks().at(r));
}

std::optional<HardwareLink> Scenario::hardwareLink(const std::string& zone,
                                                   const std::string& gpu_type) const {
  if (!networks_) return std::nullopt;
  auto it = networks_->find(gpu_type);
  if (it == networks_->end() || it->second.empty()) return std::nullopt;
  const Pool* pool = findPool(zone, gpu_type);
  const NodeNetwork* n = &it->second.front();  // the type's default
  if (pool && pool->instance)
    for (const auto& x : it->second)
      if (x.instance == *pool->instance) n = &x;
  int gpn = n->gpus_per_node;
  if (pool && pool->gpus_per_node) gpn = *pool->gpus_per_node;
  const double gb = n->gbPerS() / n->gpus_per_node * gpn;
  return HardwareLink{LinkModel::latencyBandwidth(1e-5, gb),
                      gpu_type,
                      n->instance,
                      gpn,
                      n->gpus_per_node,
                      n->source};
}

LinkIndex::LinkIndex(const Scenario& sc) : sc_(sc) {}

const ResolvedLink& LinkIndex::link(const LinkQuery& q) const {
  const auto view =
      std::make_tuple(std::string_view(q.from_zone), std::string_view(q.from_gpu),
                      std::string_view(q.to_zone), std::string_view(q.to_gpu), q.gpus);
  {
    std::lock_guard<std::mutex> lock(answers_->mutex);
    if (auto it = answers_->links.find(view); it != answers_->links.end()) return it->second;
  }
  std::call_once(answers_->indexed, [this] {
    for (const LinkEntry& e : sc_.links) {
      const bool in_order = e.from_zone <= e.to_zone;
      const std::string& lo = in_order ? e.from_zone : e.to_zone;
      const std::string& hi = in_order ? e.to_zone : e.from_zone;
      answers_->by_pair[lo][hi].push_back(&e);
    }
  });
  static const std::vector<const LinkEntry*> kNone;
  const auto& by_pair = answers_->by_pair;
  const bool in_order = q.from_zone <= q.to_zone;
  const std::string& lo = in_order ? q.from_zone : q.to_zone;
  const std::string& hi = in_order ? q.to_zone : q.from_zone;
  const std::vector<const LinkEntry*>* entries = &kNone;
  if (auto a = by_pair.find(lo); a != by_pair.end())
    if (auto b = a->second.find(hi); b != a->second.end()) entries = &b->second;
  ResolvedLink r = resolveLink(sc_, *entries, q);
  std::lock_guard<std::mutex> lock(answers_->mutex);
  // Map nodes never move: the reference outlives the lock. A query answered meanwhile by
  // another thread keeps that (equal) answer.
  return answers_->links
      .emplace(std::make_tuple(q.from_zone, q.from_gpu, q.to_zone, q.to_gpu, q.gpus), std::move(r))
      .first->second;
}

const ResolvedLink& LinkIndex::nodeLink(const std::string& gpu_type, const Catalog& catalog) const {
  const auto view = std::make_tuple(std::string_view(), std::string_view(gpu_type),
                                    std::string_view(), std::string_view(gpu_type), 0);
  {
    std::lock_guard<std::mutex> lock(answers_->mutex);
    if (auto it = answers_->links.find(view); it != answers_->links.end()) return it->second;
  }
  ResolvedLink r = sc_.intraNodeLink(gpu_type, catalog);
  std::lock_guard<std::mutex> lock(answers_->mutex);
  return answers_->links
      .emplace(std::make_tuple(std::string(), gpu_type, std::string(), gpu_type, 0), std::move(r))
      .first->second;
}

ResolvedLink Scenario::intraNodeLink(const std::string& gpu_type, const Catalog& catalog) const {
  if (auto it = intra_node_links.find(gpu_type); it != intra_node_links.end())
    return {it->second, std::nullopt, "intra-node " + gpu_type, declaredOrigin(it->second)};
  const GpuType& g = catalog.gpu(gpu_type, "replica.gpu_type");
  return {LinkModel::latencyBandwidth(1e-5, g.intra_node_bandwidth_gb_per_s), std::nullopt,
          "catalogue intra-node " + gpu_type, LinkSource::Catalogue};
}

LinkResolver::LinkResolver(const Scenario& sc, const LinkIndex* index) : index_(index) {
  if (index && &index->scenario() != &sc)
    throw std::logic_error("LinkResolver: the index was built from another scenario");
  if (!index) index_ = &own_.emplace(sc);
}

double Scenario::egressUsdPerGb(const std::string& from, const std::string& to) const {
  if (auto it = egress_usd_per_gb.find({from, to}); it != egress_usd_per_gb.end())
    return it->second;
  return default_egress_usd_per_gb.at(relation(from, to));
}

const Pool* Scenario::findPool(const std::string& zone, const std::string& gpu_type) const {
  for (const auto& p : pools)
    if (p.zone == zone && p.gpu_type == gpu_type) return &p;
  return nullptr;
}

int Scenario::gpusPerNode(const std::string& zone, const std::string& gpu_type,
                          const Catalog& catalog) const {
  const Pool* p = findPool(zone, gpu_type);
  if (p && p->gpus_per_node) return *p->gpus_per_node;
  const GpuType* g = catalog.findGpu(gpu_type);
  if (g && p && p->instance)
    if (const NodeNetwork* n = g->findNetwork(*p->instance)) return n->gpus_per_node;
  if (g) return g->gpus_per_node;
  return 1;
}

// A pool's instance family: one of its GPU type's catalogue networks, with that family's node
// size when the pool gives one.
static void checkInstance(const Pool& p, const GpuType& g, const std::string& path) {
  if (!p.instance) return;
  const NodeNetwork* n = g.findNetwork(*p.instance);
  if (!n)
    throw InputError(
        path + ".instance", "\"" + *p.instance + "\"",
        "an instance family of " + g.name + " in the catalogue (" + g.instanceNames() + ")");
  if (p.gpus_per_node && *p.gpus_per_node != n->gpus_per_node)
    throw InputError(path + ".gpus_per_node", std::to_string(*p.gpus_per_node),
                     std::to_string(n->gpus_per_node) + ", the GPUs of a " + n->instance +
                         " node (or no gpus_per_node)");
}

// A preemption rate: 0 to 1 a GPU-hour, on a spot pool only; its source only beside it.
static void checkPreemptions(const Pool& p, const std::string& path) {
  if (const auto& r = p.preemptions_per_gpu_hour) {
    if (!(*r >= 0 && *r <= 1))
      throw InputError(path + ".preemptions_per_gpu_hour", toText(*r),
                       "preemptions per GPU-hour from 0 to 1");
    if (!p.spot)
      throw InputError(path + ".preemptions_per_gpu_hour", toText(*r),
                       "absent on a pool that is not spot (\"spot\": true)");
  }
  if (p.preemptions_source && !p.preemptions_per_gpu_hour)
    throw InputError(path + ".preemptions_source", "\"" + *p.preemptions_source + "\"",
                     "absent without preemptions_per_gpu_hour (the rate it is the source of)");
}

// Owned pools: never spot; an amortisation only on an owned pool, and the price its figure.
static void checkOwnership(const Pool& p, const std::string& path) {
  if (p.owned && p.spot)
    throw InputError(path + ".spot", "true", "false for an owned pool (\"owned\": true)");
  if (!p.amortisation) return;
  if (!p.owned)
    throw InputError(path + ".amortisation", "an amortisation",
                     "none on a pool that is not owned (\"owned\": true)");
  const Amortisation& a = *p.amortisation;
  if (!(a.lifetime_years >= 0.1 && a.lifetime_years <= 50))
    throw InputError(path + ".amortisation.lifetime_years", toText(a.lifetime_years),
                     "years from 0.1 to 50 (the purchase is written off over them)");
  const double price = a.usdPerGpuHour();
  if (std::abs(p.usd_per_gpu_hour - price) > 1e-9 * std::max(1.0, price))
    throw InputError(path + ".usd_per_gpu_hour", toText(p.usd_per_gpu_hour),
                     toText(price) + ", the amortisation's price (purchase over " +
                         toText(a.lifetime_years) + " years plus running), or no usd_per_gpu_hour");
}

void Scenario::recordNetworks(const Catalog& catalog) const {
  auto by_gpu = std::make_shared<std::map<std::string, std::vector<NodeNetwork>, std::less<>>>();
  for (const GpuType& g : catalog.gpus()) by_gpu->emplace(g.name, g.nodeNetworks());
  networks_ = std::move(by_gpu);
}

void Scenario::validate(const Catalog& catalog) const {
  if (regions.empty()) throw InputError("regions", "[]", "at least one region");
  std::set<std::string> zones, region_names;
  for (size_t i = 0; i < regions.size(); ++i) {
    const std::string path = "regions[" + std::to_string(i) + "]";
    if (regions[i].name.empty()) throw InputError(path + ".name", "\"\"", "a region name");
    if (!region_names.insert(regions[i].name).second)
      throw InputError(path + ".name", "\"" + regions[i].name + "\"",
                       "a region name not used before");
    if (regions[i].zones.empty()) throw InputError(path + ".zones", "[]", "at least one zone");
    for (const auto& z : regions[i].zones)
      if (!zones.insert(z).second)
        throw InputError(path + ".zones", "\"" + z + "\"", "each zone declared once");
  }
  std::set<std::pair<std::string, std::string>> pool_keys;
  for (size_t i = 0; i < pools.size(); ++i) {
    const Pool& p = pools[i];
    const std::string path = "pools[" + std::to_string(i) + "]";
    if (!zones.count(p.zone))
      throw InputError(path + ".zone", "\"" + p.zone + "\"", "a zone declared in regions");
    catalog.gpu(p.gpu_type, path + ".gpu_type");
    checkGpuCount(p.count, 0, path + ".count");
    checkOwnership(p, path);
    checkPreemptions(p, path);
    if (!(p.usd_per_gpu_hour >= 0 && p.usd_per_gpu_hour <= kMaxUsdPerGpuHour))
      throw InputError(path + ".usd_per_gpu_hour", toText(p.usd_per_gpu_hour),
                       "a price in USD per GPU-hour from 0 to 1000");
    if (p.gpus_per_node) checkGpuCount(*p.gpus_per_node, 1, path + ".gpus_per_node");
    checkInstance(p, catalog.gpu(p.gpu_type, path + ".gpu_type"), path);
    if (!pool_keys.insert({p.zone, p.gpu_type}).second)
      throw InputError(path, p.gpu_type + " in " + p.zone + " twice",
                       "one pool per (zone, GPU type)");
  }
  std::map<std::tuple<std::string, std::string, std::optional<std::string>,
                      std::optional<std::string>, std::optional<int>>,
           size_t>
      link_keys;  // each link's key and index
  for (size_t i = 0; i < links.size(); ++i) {
    const LinkEntry& l = links[i];
    const std::string path = "network.links[" + std::to_string(i) + "]";
    if (!zones.count(l.from_zone))
      throw InputError(path + ".from_zone", "\"" + l.from_zone + "\"",
                       "a zone declared in regions");
    if (!zones.count(l.to_zone))
      throw InputError(path + ".to_zone", "\"" + l.to_zone + "\"", "a zone declared in regions");
    if (l.from_gpu.has_value() != l.to_gpu.has_value())
      throw InputError(path + (l.from_gpu ? ".to_gpu" : ".from_gpu"), "nothing",
                       "from_gpu and to_gpu given together (or neither)");
    if (l.from_gpu) catalog.gpu(*l.from_gpu, path + ".from_gpu");
    if (l.to_gpu) catalog.gpu(*l.to_gpu, path + ".to_gpu");
    if (l.gpus) checkGpuCount(*l.gpus, 1, path + ".gpus");
    checkLink(l.model, path + ".model");
    // A lookup takes one entry per (zones, GPU types, count) and direction: a second one would
    // never be used, so it is an error rather than silently ignored.
    auto [it, fresh] =
        link_keys.emplace(std::make_tuple(l.from_zone, l.to_zone, l.from_gpu, l.to_gpu, l.gpus), i);
    if (!fresh)
      throw InputError(
          path,
          describeEntry(l) + " again (first as network.links[" + std::to_string(it->second) + "])",
          "one link per (from_zone, to_zone, from_gpu, to_gpu, gpus)");
  }
  for (const auto& [r, m] : default_links)
    checkLink(m, std::string("network.defaults.") + relationName(r));
  for (const auto& [gpu, m] : intra_node_links)
    checkLink(m, "network.intra_node." + gpu + ".model");
  for (const auto& [r, v] : default_egress_usd_per_gb)
    checkEgress(v, std::string("egress_usd_per_gb.defaults.") + relationName(r), toText(v));
  for (const auto& [gpu, m] : intra_node_links) catalog.gpu(gpu, "network.intra_node.gpu_type");
  recordNetworks(catalog);
  for (const auto& [k, v] : egress_usd_per_gb) {
    if (!zones.count(k.first))
      throw InputError("egress_usd_per_gb.pairs", "\"" + k.first + "\"",
                       "a zone declared in regions");
    if (!zones.count(k.second))
      throw InputError("egress_usd_per_gb.pairs", "\"" + k.second + "\"",
                       "a zone declared in regions");
    checkEgress(v, "egress_usd_per_gb.pairs", toText(v) + " from " + k.first + " to " + k.second);
  }
}

namespace {

// Scenario::fromJson's parts, in the file's order; each throws InputError naming the field.

std::vector<Region> regionsFromJson(const json& regions) {
  ju::requireArray(regions, "regions");
  std::vector<Region> out;
  for (size_t i = 0; i < regions.size(); ++i) {
    const std::string path = "regions[" + std::to_string(i) + "]";
    const json& r = regions[i];
    ju::rejectUnknownKeys(r, {"name", "continent", "zones"}, path);
    Region reg;
    reg.name = ju::getString(r, "name", path);
    reg.continent = ju::getStringOr(r, "continent", path, reg.name);
    const json& zones = ju::require(r, "zones", path);
    ju::requireArray(zones, path + ".zones");
    for (const auto& z : zones) {
      if (!z.is_string() || z.get<std::string>().empty())
        throw InputError(path + ".zones", ju::describe(z), "zone names (strings)");
      reg.zones.push_back(z.get<std::string>());
    }
    out.push_back(std::move(reg));
  }
  return out;
}

// A pool's "amortisation": {purchase_usd_per_gpu, lifetime_years, running_usd_per_gpu_hour}.
Amortisation amortisationFromJson(const json& p, const std::string& pool_path) {
  const std::string path = pool_path + ".amortisation";
  const json& a = p.at("amortisation");
  if (!a.is_object())
    throw InputError(path, ju::describe(a),
                     "an object {purchase_usd_per_gpu, lifetime_years, running_usd_per_gpu_hour}");
  ju::rejectUnknownKeys(a, {"purchase_usd_per_gpu", "lifetime_years", "running_usd_per_gpu_hour"},
                        path);
  Amortisation m;
  m.purchase_usd_per_gpu =
      ju::getInRange(a, "purchase_usd_per_gpu", path, 1e7, "USD per GPU from 0 to 1e+07");
  m.lifetime_years = ju::getNumber(a, "lifetime_years", path);  // range: validate
  if (a.contains("running_usd_per_gpu_hour"))
    m.running_usd_per_gpu_hour = ju::getInRange(
        a, "running_usd_per_gpu_hour", path, kMaxUsdPerGpuHour, "USD per GPU-hour from 0 to 1000");
  return m;
}

std::vector<Pool> poolsFromJson(const json& pools) {
  ju::requireArray(pools, "pools");
  std::vector<Pool> out;
  for (size_t i = 0; i < pools.size(); ++i) {
    const std::string path = "pools[" + std::to_string(i) + "]";
    const json& p = pools[i];
    ju::rejectUnknownKeys(p,
                          {"zone", "gpu_type", "count", "usd_per_gpu_hour", "spot",
                           "preemptions_per_gpu_hour", "preemptions_source", "gpus_per_node",
                           "instance", "price_date", "owned", "amortisation", "enabled"},
                          path);
    Pool pool;
    pool.zone = ju::getString(p, "zone", path);
    pool.gpu_type = ju::getString(p, "gpu_type", path);
    pool.count = ju::getInt32(p, "count", path, 0);
    pool.spot = ju::getBoolOr(p, "spot", path, false);
    pool.owned = ju::getBoolOr(p, "owned", path, false);
    pool.enabled = ju::getBoolOr(p, "enabled", path, true);
    if (p.contains("amortisation")) pool.amortisation = amortisationFromJson(p, path);
    // An amortised pool's price is its amortisation's; written beside it, the two must agree
    // (validate).
    pool.usd_per_gpu_hour = pool.amortisation && !p.contains("usd_per_gpu_hour")
                                ? pool.amortisation->usdPerGpuHour()
                                : ju::getNonNegative(p, "usd_per_gpu_hour", path);
    if (p.contains("preemptions_per_gpu_hour")) {
      pool.preemptions_per_gpu_hour = ju::getInRange(p, "preemptions_per_gpu_hour", path, 1.0,
                                                     "preemptions per GPU-hour from 0 to 1");
    }
    // Spot only, and a source only beside its rate: validate (edits in the studio too).
    if (p.contains("preemptions_source"))
      pool.preemptions_source = ju::getString(p, "preemptions_source", path);
    if (p.contains("gpus_per_node")) pool.gpus_per_node = ju::getInt32(p, "gpus_per_node", path, 1);
    if (p.contains("instance")) pool.instance = ju::getString(p, "instance", path);
    if (p.contains("price_date")) {
      pool.price_date = ju::getString(p, "price_date", path);
      if (!isIsoDate(*pool.price_date))
        throw InputError(path + ".price_date", "\"" + *pool.price_date + "\"",
                         "a date YYYY-MM-DD (the price's catalogue date)");
    }
    out.push_back(std::move(pool));
  }
  return out;
}

// "network.defaults": overrides of the built-in link per zone relation.
void defaultLinksFromJson(const json& d, std::map<Relation, LinkModel>& links,
                          std::set<Relation>& declared) {
  ju::rejectUnknownKeys(d, {"same_zone", "same_region", "same_continent", "cross_continent"},
                        "network.defaults");
  for (Relation r : kRelations) {
    const std::string key = relationName(r);
    if (!d.contains(key)) continue;
    const json& m = d.at(key);
    const std::string path = "network.defaults." + key;
    declared.insert(r);
    if (m.contains("kind")) links[r] = LinkModel::fromJson(m, path);
    else {
      ju::rejectUnknownKeys(m, {"latency_s", "bandwidth_gb_per_s"}, path);
      links[r] = LinkModel::latencyBandwidth(ju::getNonNegative(m, "latency_s", path),
                                             bandwidthGbPerS(m, path));
    }
  }
}

// "network.links": measured or declared links between zones.
std::vector<LinkEntry> linkEntriesFromJson(const json& links) {
  ju::requireArray(links, "network.links");
  std::vector<LinkEntry> out;
  for (size_t i = 0; i < links.size(); ++i) {
    const std::string path = "network.links[" + std::to_string(i) + "]";
    const json& l = links[i];
    ju::rejectUnknownKeys(l, {"from_zone", "to_zone", "from_gpu", "to_gpu", "gpus", "model"}, path);
    LinkEntry e;
    e.from_zone = ju::getString(l, "from_zone", path);
    e.to_zone = ju::getString(l, "to_zone", path);
    if (l.contains("from_gpu")) e.from_gpu = ju::getString(l, "from_gpu", path);
    if (l.contains("to_gpu")) e.to_gpu = ju::getString(l, "to_gpu", path);
    if (l.contains("gpus")) e.gpus = ju::getInt32(l, "gpus", path, 1);
    e.model = LinkModel::fromJson(ju::require(l, "model", path), path + ".model");
    out.push_back(std::move(e));
  }
  return out;
}

// "network.intra_node": one link per catalogue GPU type.
std::map<std::string, LinkModel> intraNodeLinksFromJson(const json& intra, const Catalog& catalog) {
  ju::requireArray(intra, "network.intra_node");
  std::map<std::string, LinkModel> out;
  for (size_t i = 0; i < intra.size(); ++i) {
    const std::string path = "network.intra_node[" + std::to_string(i) + "]";
    ju::rejectUnknownKeys(intra[i], {"gpu_type", "model"}, path);
    const std::string gpu = ju::getString(intra[i], "gpu_type", path);
    catalog.gpu(gpu, path + ".gpu_type");
    if (out.count(gpu))
      throw InputError(path + ".gpu_type", "\"" + gpu + "\" twice",
                       "one intra-node link per GPU type");
    out.emplace(gpu, LinkModel::fromJson(ju::require(intra[i], "model", path), path + ".model"));
  }
  return out;
}

// "egress_usd_per_gb": defaults per zone relation and prices of zone pairs.
void egressFromJson(const json& e, std::map<Relation, double>& defaults,
                    std::map<std::pair<std::string, std::string>, double>& pairs_usd) {
  ju::rejectUnknownKeys(e, {"defaults", "pairs"}, "egress_usd_per_gb");
  if (e.contains("defaults")) {
    const json& d = e.at("defaults");
    ju::rejectUnknownKeys(d, {"same_zone", "same_region", "same_continent", "cross_continent"},
                          "egress_usd_per_gb.defaults");
    for (Relation r : kRelations)
      if (d.contains(relationName(r)))
        defaults[r] = ju::getNonNegative(d, relationName(r), "egress_usd_per_gb.defaults");
  }
  const json& pairs = e.contains("pairs") ? e.at("pairs") : json::array();
  ju::requireArray(pairs, "egress_usd_per_gb.pairs");
  std::map<std::pair<std::string, std::string>, size_t> first_index;  // no silent last-wins
  for (size_t i = 0; i < pairs.size(); ++i) {
    const std::string path = "egress_usd_per_gb.pairs[" + std::to_string(i) + "]";
    ju::rejectUnknownKeys(pairs[i], {"from_zone", "to_zone", "usd_per_gb"}, path);
    std::pair<std::string, std::string> key{ju::getString(pairs[i], "from_zone", path),
                                            ju::getString(pairs[i], "to_zone", path)};
    if (auto [it, fresh] = first_index.emplace(key, i); !fresh)
      throw InputError(path,
                       key.first + " -> " + key.second +
                           " again (first as egress_usd_per_gb.pairs[" +
                           std::to_string(it->second) + "])",
                       "one price per (from_zone, to_zone)");
    pairs_usd[key] = ju::getNonNegative(pairs[i], "usd_per_gb", path);
  }
}

}  // namespace

Scenario Scenario::fromJson(const json& j, const Catalog& catalog) {
  Scenario s;
  ju::rejectUnknownKeys(j,
                        {"name", "description", "regions", "pools", "network", "egress_usd_per_gb",
                         "job", "job_model", "planner", "objective"},
                        "");
  s.name = ju::getStringOr(j, "name", "", "unnamed");
  s.description = ju::getStringOr(j, "description", "", "");
  s.regions = regionsFromJson(ju::require(j, "regions", ""));
  s.pools = poolsFromJson(j.contains("pools") ? j.at("pools") : json::array());
  s.default_links = builtinDefaultLinks();
  if (j.contains("network")) {
    const json& n = j.at("network");
    ju::rejectUnknownKeys(n, {"defaults", "links", "intra_node"}, "network");
    if (n.contains("defaults"))
      defaultLinksFromJson(n.at("defaults"), s.default_links, s.declared_default_links);
    s.links = linkEntriesFromJson(n.contains("links") ? n.at("links") : json::array());
    s.intra_node_links = intraNodeLinksFromJson(
        n.contains("intra_node") ? n.at("intra_node") : json::array(), catalog);
  }
  s.default_egress_usd_per_gb = builtinDefaultEgress();
  if (j.contains("egress_usd_per_gb"))
    egressFromJson(j.at("egress_usd_per_gb"), s.default_egress_usd_per_gb, s.egress_usd_per_gb);
  s.validate(catalog);
  return s;
}

json Scenario::toJson() const {
  json j;
  j["name"] = name;
  if (!description.empty()) j["description"] = description;
  j["regions"] = json::array();
  for (const auto& r : regions)
    j["regions"].push_back({{"name", r.name}, {"continent", r.continent}, {"zones", r.zones}});
  j["pools"] = json::array();
  for (const auto& p : pools) {
    json pj{{"zone", p.zone},
            {"gpu_type", p.gpu_type},
            {"count", p.count},
            {"usd_per_gpu_hour", p.usd_per_gpu_hour},
            {"spot", p.spot}};
    if (p.preemptions_per_gpu_hour) pj["preemptions_per_gpu_hour"] = *p.preemptions_per_gpu_hour;
    if (p.gpus_per_node) pj["gpus_per_node"] = *p.gpus_per_node;
    if (p.instance) pj["instance"] = *p.instance;
    if (p.price_date) pj["price_date"] = *p.price_date;
    if (p.preemptions_source) pj["preemptions_source"] = *p.preemptions_source;
    if (p.owned) pj["owned"] = true;
    if (p.amortisation)
      pj["amortisation"] = {{"purchase_usd_per_gpu", p.amortisation->purchase_usd_per_gpu},
                            {"lifetime_years", p.amortisation->lifetime_years},
                            {"running_usd_per_gpu_hour", p.amortisation->running_usd_per_gpu_hour}};
    if (!p.enabled) pj["enabled"] = false;
    j["pools"].push_back(pj);
  }
  json defaults = json::object();
  for (const auto& [r, m] : default_links)
    if (declaresDefaultLink(r)) defaults[relationName(r)] = m.toJson();
  json links_j = json::array();
  for (const auto& l : links) {
    json lj{{"from_zone", l.from_zone}, {"to_zone", l.to_zone}, {"model", l.model.toJson()}};
    if (l.from_gpu) lj["from_gpu"] = *l.from_gpu;
    if (l.to_gpu) lj["to_gpu"] = *l.to_gpu;
    if (l.gpus) lj["gpus"] = *l.gpus;
    links_j.push_back(lj);
  }
  j["network"] = {{"defaults", defaults}, {"links", links_j}};
  if (!intra_node_links.empty()) {
    json intra = json::array();
    for (const auto& [gpu, m] : intra_node_links)
      intra.push_back({{"gpu_type", gpu}, {"model", m.toJson()}});
    j["network"]["intra_node"] = intra;
  }
  json egress_defaults = json::object();
  for (const auto& [r, v] : default_egress_usd_per_gb) egress_defaults[relationName(r)] = v;
  json pairs = json::array();
  for (const auto& [k, v] : egress_usd_per_gb)
    pairs.push_back({{"from_zone", k.first}, {"to_zone", k.second}, {"usd_per_gb", v}});
  j["egress_usd_per_gb"] = {{"defaults", egress_defaults}, {"pairs", pairs}};
  return j;
}

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
long daysFromCivil(long y, long m, long d) {
  y -= m <= 2 ? 1 : 0;
  const long era = (y >= 0 ? y : y - 399) / 400;
  const long yoe = y - era * 400;
  const long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool parseIsoDate(const std::string& t, long& y, long& m, long& d) {
  if (t.size() != 10 || t[4] != '-' || t[7] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (t[i] < '0' || t[i] > '9') return false;
  y = std::stol(t.substr(0, 4));
  m = std::stol(t.substr(5, 2));
  d = std::stol(t.substr(8, 2));
  if (m < 1 || m > 12 || d < 1) return false;
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  const int days[] = {31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return d <= days[m - 1];
}

}  // namespace

bool isIsoDate(const std::string& text) {
  long y = 0, m = 0, d = 0;
  return parseIsoDate(text, y, m, d);
}

long daysBetween(const std::string& from, const std::string& to) {
  long y1 = 0, m1 = 0, d1 = 0, y2 = 0, m2 = 0, d2 = 0;
  if (!parseIsoDate(from, y1, m1, d1)) throw InputError("date", from, "a date YYYY-MM-DD");
  if (!parseIsoDate(to, y2, m2, d2)) throw InputError("date", to, "a date YYYY-MM-DD");
  return daysFromCivil(y2, m2, d2) - daysFromCivil(y1, m1, d1);
}

std::vector<std::string> stalePriceNotes(const Scenario& scenario, const std::string& today,
                                         int max_age_days) {
  std::vector<std::string> notes;
  for (const Pool& p : scenario.pools) {
    if (!p.price_date) continue;
    const long age = daysBetween(*p.price_date, today);
    if (age > max_age_days)
      notes.push_back("pool " + p.zone + " " + p.gpu_type + ": price dated " + *p.price_date +
                      ", " + std::to_string(age) + " days old (more than " +
                      std::to_string(max_age_days) + ")");
  }
  return notes;
}

}  // namespace sailor
