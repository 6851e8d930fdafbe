// Scenario: the resources a team could use. Zones grouped into regions (regions on
// continents), GPU pools in zones, the network between (zone, GPU type, GPUs per node) pairs
// and egress prices between zones. Valid by construction: Scenario::fromJson and the
// constructor validate, and throw InputError naming the field.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/model/catalog.hpp"

namespace sailor {

// Bounds on a scenario's figures, checked by Scenario::validate (docs/formats.md, "Bounds").
// Beyond them a value is a slip (milliseconds typed as seconds, 5e-324, 1e18), never a real link,
// price or pool, and it would overflow or stall the planner's arithmetic.
inline constexpr double kMinLinkGbPerS = 1e-6;         // 1 kB/s: slower than any modem
inline constexpr double kMaxLinkGbPerS = 1e5;          // 100 TB/s: 100x an NVLink domain
inline constexpr double kMaxLinkFitCoefficient = 1e5;  // |c| of a sailor_fit, in GB/s
inline constexpr double kMaxLatencyS = 10.0;           // a geostationary hop takes 0.3 s
inline constexpr double kMaxEgressUsdPerGb = 1000.0;   // list prices are cents per GB
inline constexpr double kMaxUsdPerGpuHour = 1000.0;    // list prices are 0.1 to 15 USD
inline constexpr int kMaxGpuCount = 1'000'000;         // GPUs of one pool, node, link or trace cell

struct Region {
  std::string name;       // e.g. "us-central1"
  std::string continent;  // e.g. "north-america"
  std::vector<std::string> zones;
};

// An owned pool's price per GPU-hour: its purchase written off over its life, plus what running
// it costs (power, cooling, hosting), per GPU-hour of the year (docs/formats.md, "Owned pools").
struct Amortisation {
  double purchase_usd_per_gpu = 0;               // a GPU's share of its server, as bought
  double lifetime_years = 0;                     // years the purchase is written off over (> 0)
  double running_usd_per_gpu_hour = 0;           // power, cooling, hosting per GPU-hour
  static constexpr double kHoursPerYear = 8766;  // 365.25 days
  double usdPerGpuHour() const {
    return purchase_usd_per_gpu / (lifetime_years * kHoursPerYear) + running_usd_per_gpu_hour;
  }
};

struct Pool {
  std::string zone;
  std::string gpu_type;
  int count = 0;  // GPUs available
  double usd_per_gpu_hour = 0;
  bool spot = false;
  // A spot pool's preemptions, per GPU-hour of its GPUs (docs/planner.md, "Days and dollars");
  // absent: not priced in.
  std::optional<double> preemptions_per_gpu_hour{};
  // Where that rate comes from, as written by whoever set it ("trace t.csv: 6 GPUs taken over
  // 120.5 GPU-hours of A100-40 in us-central1-a"); absent: typed in.
  std::optional<std::string> preemptions_source{};
  std::optional<int> gpus_per_node{};  // default: the instance family's, else the GPU type's
  // Instance family of the GPU type's catalogue networks ("a3-megagpu-8g"): its node network
  // sets the same-zone link between this pool's nodes. Absent: the type's default family.
  std::optional<std::string> instance{};
  // The price's date (YYYY-MM-DD) where it came from a dated catalogue (`sailor prices
  // scenario`): `sailor plan` flags prices older than --max-price-age-days (stalePriceNotes).
  std::optional<std::string> price_date{};
  // The team's own GPUs: never spot, priced at usd_per_gpu_hour (0, or its amortisation's).
  bool owned = false;
  std::optional<Amortisation> amortisation{};  // owned pools: sets usd_per_gpu_hour
  // False: kept in the scenario but left out of planning (comparing offers without copying
  // files; the studio's per-pool toggle).
  bool enabled = true;
};

// Days from date `from` to date `to` (YYYY-MM-DD, proleptic Gregorian calendar), and whether a
// text is such a date (a real one: 2026-02-30 is not).
bool isIsoDate(const std::string& text);
long daysBetween(const std::string& from, const std::string& to);

enum class Relation { SameZone, SameRegion, SameContinent, CrossContinent };
const char* relationName(Relation r);

// Time to move a message between two nodes. Two forms:
//  - LatencyBandwidth: seconds = latency_s + bytes / bytes_per_s.
//  - SailorFit: SAILOR's fitted form: with x = log2(bytes / 1e6), bandwidth in GB/s is
//    c0 x^2 + c1 x + c2, capped at max_bytes_per_s; seconds = bytes / bandwidth. The
//    polynomial is only trusted where it is positive: below 1% of the cap it is clamped there.
// Either way the figure is the aggregate of the node's GPUs taking part (see Network).
struct LinkModel {
  enum class Kind { LatencyBandwidth, SailorFit };
  Kind kind = Kind::LatencyBandwidth;
  double latency_s = 0;
  double bytes_per_s = 1e9;
  std::array<double, 3> coefficients{0, 0, 0};
  double max_bytes_per_s = 0;

  static LinkModel latencyBandwidth(double latency_s, double gb_per_s);
  static LinkModel sailorFit(std::array<double, 3> c, double max_bytes_per_s);
  double seconds(double bytes) const;
  double bandwidthBytesPerS(double bytes) const;  // effective, for reports

  nlohmann::json toJson() const;
  static LinkModel fromJson(const nlohmann::json& j, const std::string& path);
};

// One measured or declared link. gpu types and GPU counts are optional qualifiers: a lookup
// prefers the most specific entry. `gpus` is how many GPUs of each node send at once.
struct LinkEntry {
  std::string from_zone;
  std::string to_zone;
  std::optional<std::string> from_gpu;
  std::optional<std::string> to_gpu;
  std::optional<int> gpus;
  LinkModel model;
};

struct LinkQuery {
  std::string from_zone;
  std::string from_gpu;
  std::string to_zone;
  std::string to_gpu;
  int gpus = 1;  // GPUs of each node taking part at once
};

// Where a link's figure comes from: the scenario's network (declared: its links, defaults and
// intra-node entries in latency_bandwidth form), SAILOR's reference network fits (the
// sailor_fit form, which only those fits produce), the GPU type's node network in the
// catalogue, or the built-in defaults by zone relation.
enum class LinkSource { Declared, Fitted, Catalogue, BuiltIn };
const char* linkSourceName(LinkSource s);  // "declared", "fitted", "catalogue", "built-in"

// A same-zone link figure from the catalogue: the node network of a pool's instance family.
struct HardwareLink {
  LinkModel model;  // the node's aggregate, 10 us latency
  std::string gpu_type;
  std::string instance;          // "" for a type without families (its inter_node share)
  int gpus_per_node = 0;         // the pool's node: the family's, or the pool's own size
  int family_gpus_per_node = 0;  // the family's node; differs: the family's share per GPU x size
  std::string source;            // the catalogue entry's documentation page and date
  std::string describe() const;  // "catalogue H100-80 a3-highgpu-8g (800 Gb/s per node)"
};

// The link a transfer uses. Between nodes of two GPU types with no entry of their own, the
// slower of the two types' own links between those zones (each node's network bounds the
// transfer): `slower` holds the second model and the bandwidth is the minimum of both.
struct ResolvedLink {
  LinkModel model;
  std::optional<LinkModel> slower;
  std::string
      source;  // "link us-central1-a -> us-west1-b (A100-40 -> *) x4" or "default same_region"
  LinkSource origin = LinkSource::BuiltIn;

  double bandwidthBytesPerS(double bytes) const;
  // Seconds for `gpus` GPUs of a node to each send `per_gpu_bytes` at once (the link figures
  // are the node's aggregate for that many GPUs).
  double transferSeconds(double per_gpu_bytes, int gpus) const;
};

class Scenario {
 public:
  std::string name;
  std::string description;
  std::vector<Region> regions;
  std::vector<Pool> pools;
  std::map<Relation, LinkModel> default_links;  // by relation, always all four
  // Relations whose default the scenario's file declares (network.defaults); a default that
  // differs from the built-in one counts as declared too (declaresDefaultLink).
  std::set<Relation> declared_default_links;
  std::vector<LinkEntry> links;
  std::map<Relation, double> default_egress_usd_per_gb;                     // always all four
  std::map<std::pair<std::string, std::string>, double> egress_usd_per_gb;  // (from, to)
  // Between two GPUs of one node, by GPU type (NVLink, Infinity Fabric or PCIe as measured);
  // a type without an entry uses its catalogue injection bandwidth. NOTE [Node placement] in
  // simulator_memory.cpp says when a transfer stays inside a node.
  std::map<std::string, LinkModel> intra_node_links;

  // Validates everything against the catalogue (GPU types known, zones declared once, counts
  // and prices non-negative, links between declared zones, ...). Throws InputError.
  void validate(const Catalog& catalog) const;

  static Scenario fromJson(const nlohmann::json& j, const Catalog& catalog);
  nlohmann::json toJson() const;

  bool hasZone(const std::string& zone) const;
  const Region& regionOf(const std::string& zone) const;  // zone must exist
  Relation relation(const std::string& a, const std::string& b) const;
  ResolvedLink link(const LinkQuery& q) const;
  bool declaresDefaultLink(Relation r) const;
  // The catalogue's figure for the link between two nodes of `gpu_type` in `zone`: the node
  // network of the pool's instance family (else the type's default); a pool whose own
  // gpus_per_node differs from the family's gets the family's share per GPU times its node size.
  // nullopt until validate has recorded the catalogue's networks, or for a type it lacks.
  std::optional<HardwareLink> hardwareLink(const std::string& zone,
                                           const std::string& gpu_type) const;
  // The link between two GPUs of one node of `gpu_type`: the scenario's entry, else the
  // catalogue's intra-node bandwidth with a 10 us latency.
  ResolvedLink intraNodeLink(const std::string& gpu_type, const Catalog& catalog) const;
  double egressUsdPerGb(const std::string& from, const std::string& to) const;
  // GPUs per node of `gpu_type` in `zone`: the pool's value, else the catalogue's.
  int gpusPerNode(const std::string& zone, const std::string& gpu_type,
                  const Catalog& catalog) const;
  const Pool* findPool(const std::string& zone, const std::string& gpu_type) const;

  // Built-in defaults by relation, used when a scenario file gives none. See docs/formats.md.
  static std::map<Relation, LinkModel> builtinDefaultLinks();
  static std::map<Relation, double> builtinDefaultEgress();

 private:
  void recordNetworks(const Catalog& catalog) const;
  // The catalogue's node networks by GPU type, recorded by validate (which every way of making a
  // scenario calls: fromJson, the studio's edits, the importers) for hardwareLink. Shared between
  // copies; a scenario built in code and never validated has none, and its same-zone links
  // without an entry take the default.
  mutable std::shared_ptr<const std::map<std::string, std::vector<NodeNetwork>, std::less<>>>
      networks_;
};

// The one cache of link figures: a scenario's links resolved once per query and kept, the
// fabric inside a node once per GPU type, for every computation that shares it (the planner's
// search, placements, planning model and simulations share one; a simulation or a planning-model
// evaluation without one makes its own). Keyed by the query (from zone, from GPU type, to zone,
// to GPU type, GPUs); a node's fabric is the query of its GPU type with no zones and 0 GPUs.
// Answers a query from the scenario's entries between the query's zones only: Scenario::link
// scans every entry, and SAILOR's network file gives thousands (one per zone pair, GPU type and
// count). Holds references into the scenario, which must outlive it unchanged. Thread-safe;
// references it returns stay valid for its lifetime.
class LinkIndex {
 public:
  explicit LinkIndex(const Scenario& sc);
  const Scenario& scenario() const { return sc_; }
  // Equal to scenario().link(q).
  const ResolvedLink& link(const LinkQuery& q) const;
  // Equal to scenario().intraNodeLink(gpu_type, catalog); one catalogue per index.
  const ResolvedLink& nodeLink(const std::string& gpu_type, const Catalog& catalog) const;

 private:
  const Scenario& sc_;
  struct Answers {
    // [lesser zone][greater zone]: the entries between them, gathered at the first query (a
    // simulation whose replicas share their nodes asks none).
    std::once_flag indexed;
    std::map<std::string, std::map<std::string, std::vector<const LinkEntry*>, std::less<>>,
             std::less<>>
        by_pair;
    std::mutex mutex;
    std::map<std::tuple<std::string, std::string, std::string, std::string, int>, ResolvedLink,
             std::less<>>
        links;
  };
  std::unique_ptr<Answers> answers_ = std::make_unique<Answers>();
};

// The links of one computation (a planning-model evaluation, a reference listing): through
// `index` when given (built from the same scenario), else through an index of its own. Not
// shared between threads.
class LinkResolver {
 public:
  explicit LinkResolver(const Scenario& sc, const LinkIndex* index = nullptr);
  const ResolvedLink& operator()(const LinkQuery& q) const { return index_->link(q); }

 private:
  std::optional<LinkIndex> own_;  // when no index is given
  const LinkIndex* index_;
};

// The pools whose price_date is more than `max_age_days` before `today` (YYYY-MM-DD), one line
// each: "pool use1-az1 H100-80: price dated 2026-01-05, 335 days old (more than 90)".
std::vector<std::string> stalePriceNotes(const Scenario& scenario, const std::string& today,
                                         int max_age_days);

}  // namespace sailor
