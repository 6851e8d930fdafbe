// SAILOR's published data (profiles/, network/, cluster/ of its artifact) and measured training
// runs: importing them and checking the simulator against them. Declared in
// sailor/model/reference.hpp.
//
// Map:
//   regionOfZone, continentOfRegion        region and continent from cloud-style zone names
//   SailorReference::load, loadUnchecked   profiles, network fits and quotas of a reference dir
//   SailorReference::scenario              a Scenario of those zones, links and given pools
//   loadTrace                              availability traces (rows of GPU counts per zone)
//   stageRanges, readMeasuredPoint(s),     measured_points.json: plans in SAILOR's layering,
//   loadMeasuredPoints, readMeasuredPoints   turned into plan layers (NOTE [A layer number
//   toPlanLayers                             written twice])
//   sailorPublishedModel                   SAILOR's own formulas (NOTE [SAILOR's published model])
//   validatePoints, ErrorSummary,          predicted against measured per point, summaries by
//   ValidationReport::toJson                 cluster and model, and their JSON
#include "sailor/model/reference.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include "core/fast_json.hpp"
#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/core/utf8.hpp"

namespace sailor {

using nlohmann::json;
namespace ju = json_util;
namespace fs = std::filesystem;

std::string regionOfZone(const std::string& zone) {
  auto dash = zone.rfind('-');
  if (dash == std::string::npos || dash == 0) return zone;
  return zone.substr(0, dash);
}

static std::string continentOfRegion(const std::string& region) {
  std::string prefix = region.substr(0, region.find('-'));
  if (prefix == "us" || prefix == "northamerica") return "north-america";
  if (prefix == "europe") return "europe";
  if (prefix == "asia") return "asia";
  if (prefix == "southamerica") return "south-america";
  if (prefix == "australia") return "oceania";
  return prefix;
}

static SailorReference loadUnchecked(const std::string& dir, const Catalog& catalog);

SailorReference SailorReference::load(const std::string& dir, const Catalog& catalog) {
  try {
    return loadUnchecked(dir, catalog);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(dir, std::string("data of an unexpected shape (") + e.what() + ")",
                     "SAILOR's file formats (docs/formats.md)");
  }
}

// One fit of SAILOR's network files: [[c0, c1, c2], max_bytes_per_s] (the files are read with
// fast_json: the inter-zone one holds thousands).
static LinkModel sailorFitAt(fast_json::Element v, const std::string& path) {
  const std::string expected = "[[c0, c1, c2], max_bytes_per_s]";
  simdjson::dom::array outer, coeffs;
  if (v.get_array().get(outer) || outer.size() != 2 || outer.at(0).get_array().get(coeffs) ||
      coeffs.size() != 3 || !outer.at(1).is_number())
    throw InputError(path, fast_json::describe(v), expected);
  // Within a scenario's bounds on a sailor_fit (sailor/scenario/scenario.hpp), named in the file's
  // terms.
  double c[3] = {0, 0, 0};
  size_t i = 0;
  for (const fast_json::Element x : coeffs) {
    if (!x.is_number()) throw InputError(path, fast_json::describe(v), expected);
    c[i] = fast_json::number(x, path, expected);
    if (!(std::fabs(c[i]) <= kMaxLinkFitCoefficient))
      throw InputError(path + "[0][" + std::to_string(i) + "]", fast_json::describe(x),
                       "a coefficient in GB/s from -1e+05 to 1e+05");
    ++i;
  }
  double max_bytes_per_s = 0;
  if (outer.at(1).get_double().get(max_bytes_per_s))
    throw InputError(path, fast_json::describe(v), expected);
  if (!(max_bytes_per_s >= kMinLinkGbPerS * 1e9 && max_bytes_per_s <= kMaxLinkGbPerS * 1e9))
    throw InputError(path + "[1]", fast_json::describe(outer.at(1)),
                     "a bandwidth in bytes/s from 1000 (1 kB/s) to 1e+14");
  return LinkModel::sailorFit({c[0], c[1], c[2]}, max_bytes_per_s);
}

// A GPU-count key of SAILOR's network files ("1", "4", ...).
static int gpuCountKey(const std::string& key, const std::string& path) {
  int n = 0;
  try {
    n = std::stoi(key);
  } catch (const std::exception&) {
    throw InputError(path, "GPU count key \"" + key + "\"", "an integer key");
  }
  if (n < 1) throw InputError(path, "GPU count " + key, "a count >= 1");
  return n;
}

// Whether an optional file of the reference directory is there. A path whose status cannot be
// read (a symbolic link loop, a folder without search permission) and a link to nothing count as
// there, so that its reader refuses it naming the cause; only a name that is not there is skipped.
static bool optionalFileThere(const std::string& path) {
  std::error_code ec;
  std::error_code link_ec;
  return fs::exists(path, ec) || ec || fs::is_symlink(path, link_ec);
}

static SailorReference loadUnchecked(const std::string& dir, const Catalog& catalog) {
  SailorReference ref;
  std::error_code dir_ec;
  if (!fs::is_directory(dir, dir_ec))
    throw InputError("--reference",
                     "\"" + dir + "\"" + (dir_ec ? " (" + dir_ec.message() + ")" : ""),
                     "a directory in SAILOR's layout (profiles/, network/, cluster/)");
  // The network file is parsed while the profiles are (fast_json: simdjson's DOM).
  const std::string net = dir + "/network/multizone_bandwidths_het.json";
  std::future<std::unique_ptr<fast_json::Document>> net_parsed;
  if (optionalFileThere(net))
    net_parsed = std::async(std::launch::async, [&] { return fast_json::readFile(net); });
  ref.profiles = SailorProfile::load(dir + "/profiles/simulator_profiles.json",
                                     dir + "/profiles/llm_info.json", catalog);
  std::set<std::string> zones;
  if (net_parsed.valid()) {
    const auto doc = net_parsed.get();
    namespace fj = fast_json;
    using Pair = simdjson::dom::key_value_pair;
    // {send_zone: {gpu: {count: {recv_zone: {gpu: {count: [[c0, c1, c2], max_bw]}}}}}}
    for (const Pair z1 : fj::object(doc->root, net)) {
      const std::string from_zone(z1.key);
      zones.insert(from_zone);
      const std::string p1 = net + ": " + from_zone;
      for (const Pair g1 : fj::object(z1.value, p1))
        for (const Pair c1 : fj::object(g1.value, p1 + "." + std::string(g1.key)))
          for (const Pair z2 :
               fj::object(c1.value, p1 + "." + std::string(g1.key) + "." + std::string(c1.key))) {
            const std::string to_zone(z2.key);
            zones.insert(to_zone);
            const std::string p2 =
                p1 + "." + std::string(g1.key) + "." + std::string(c1.key) + "." + to_zone;
            for (const Pair g2 : fj::object(z2.value, p2))
              for (const Pair c2 : fj::object(g2.value, p2 + "." + std::string(g2.key))) {
                // Our link entries carry one GPU count: keep the entries where both nodes take
                // part with the same number of GPUs.
                if (c1.key != c2.key) continue;
                // Cross-type entries of SAILOR's file are derived, not measured (several RTX
                // ones copy another pair's fit); the engine derives them from each type's own
                // link instead (Scenario::link, rule 2).
                if (g1.key != g2.key) continue;
                const std::string path = p2 + "." + std::string(g2.key);
                LinkEntry e;
                e.from_zone = from_zone;
                e.to_zone = to_zone;
                e.from_gpu = std::string(g1.key);
                e.to_gpu = std::string(g2.key);
                e.model = sailorFitAt(c2.value, path);
                e.gpus = gpuCountKey(std::string(c1.key), path);
                ref.links.push_back(std::move(e));
              }
          }
    }
  }
  const std::string intra = dir + "/network/intra_node_bandwidths.json";
  if (optionalFileThere(intra)) {
    const auto doc = fast_json::readFile(intra);
    // {gpu: {n: [[c0, c1, c2], max_bytes_per_s]}}, n GPUs of the node taking part. A transfer
    // between two GPUs of a node (NOTE [Node placement] in simulator_memory.cpp) is the smallest n.
    for (const simdjson::dom::key_value_pair g : fast_json::object(doc->root, intra)) {
      const std::string gpu(g.key);
      int best = 0;
      for (const simdjson::dom::key_value_pair c : fast_json::object(g.value, intra + ": " + gpu)) {
        const std::string path = intra + ": " + gpu + "." + std::string(c.key);
        const LinkModel fit = sailorFitAt(c.value, path);
        const int n = gpuCountKey(std::string(c.key), path);
        if (best != 0 && n >= best) continue;
        best = n;
        ref.intra_node_links.insert_or_assign(gpu, fit);
      }
    }
  }
  const std::string egress = dir + "/network/egress_cost_usd_per_gb.json";
  if (optionalFileThere(egress)) {
    json j = ju::readFile(egress);
    for (auto a = j.begin(); a != j.end(); ++a)
      for (auto b = a.value().begin(); b != a.value().end(); ++b) {
        zones.insert(a.key());
        zones.insert(b.key());
        if (!b.value().is_number() ||
            !(b.value().get<double>() >= 0 && b.value().get<double>() <= kMaxEgressUsdPerGb))
          throw InputError(egress + ": " + a.key() + "." + b.key(), ju::describe(b.value()),
                           "a price in USD per GB from 0 to 1000");
        ref.egress_usd_per_gb[{a.key(), b.key()}] = b.value().get<double>();
      }
  }
  const std::string cluster = dir + "/cluster/basic_cluster_config.json";
  if (optionalFileThere(cluster)) {
    json j = ju::readFile(cluster);
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.value().is_object() && it.value().contains("gpus_per_node")) {
        const std::string at = cluster + ": " + it.key();
        const int n = ju::getInt32(it.value(), "gpus_per_node", at, 1);
        if (n > kMaxGpuCount)
          throw InputError(at + ".gpus_per_node", std::to_string(n),
                           "an integer from 1 to 1000000 (GPUs per node, as a pool's)");
        ref.gpus_per_node[it.key()] = n;
      }
  }
  const std::string quotas = dir + "/cluster/quotas.json";
  if (optionalFileThere(quotas)) {
    json j = ju::readFile(quotas);
    ju::requireObject(j, quotas);
    for (auto g = j.begin(); g != j.end(); ++g) {
      ju::requireObject(g.value(), quotas + ": " + g.key());
      for (auto z = g.value().begin(); z != g.value().end(); ++z) {
        // A whole number of GPUs within a pool's bound, so that the conversion to int is exact:
        // 4294967296 is named, never wrapped to 0.
        const json& n = z.value();
        if (!n.is_number_integer() || n.get<std::int64_t>() < 0 ||
            n.get<std::int64_t>() > kMaxGpuCount)
          throw InputError(quotas + ": " + g.key() + "." + z.key(), ju::describe(n),
                           "an integer GPU count from 0 to 1000000");
        ref.quotas[{g.key(), z.key()}] = n.get<int>();
        zones.insert(z.key());
      }
    }
  }
  ref.zones.assign(zones.begin(), zones.end());
  return ref;
}

Scenario SailorReference::scenario(std::vector<Pool> pools, const Catalog& catalog) const {
  Scenario s;
  s.name = "sailor-reference";
  std::set<std::string> all(zones.begin(), zones.end());
  for (const auto& p : pools) all.insert(p.zone);
  for (const auto& z : all) {
    const std::string region = regionOfZone(z);
    auto it = std::find_if(s.regions.begin(), s.regions.end(),
                           [&](const Region& r) { return r.name == region; });
    if (it == s.regions.end()) s.regions.push_back({region, continentOfRegion(region), {z}});
    else it->zones.push_back(z);
  }
  s.pools = std::move(pools);
  s.default_links = Scenario::builtinDefaultLinks();
  s.default_egress_usd_per_gb = Scenario::builtinDefaultEgress();
  for (const auto& l : links)
    if (catalog.findGpu(*l.from_gpu) && catalog.findGpu(*l.to_gpu)) s.links.push_back(l);
  s.egress_usd_per_gb = egress_usd_per_gb;
  for (const auto& [gpu, m] : intra_node_links)
    if (catalog.findGpu(gpu)) s.intra_node_links.emplace(gpu, m);
  s.validate(catalog);
  return s;
}

namespace {

// A trace cell as a GPU count: a whole number from 0 to kMaxGpuCount in decimal digits ("8", or
// "8.0" as pandas writes the counts of a column with gaps), spaces or tabs around it allowed.
// Anything else (a sign, an exponent, hex, inf, nan, a fraction, other digits) is refused rather
// than read as some other number.
std::optional<int> traceCount(std::string_view cell) {
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!cell.empty() && blank(cell.front())) cell.remove_prefix(1);
  while (!cell.empty() && blank(cell.back())) cell.remove_suffix(1);
  std::size_t i = 0;
  long long v = 0;
  for (; i < cell.size() && cell[i] >= '0' && cell[i] <= '9'; ++i)
    v = std::min<long long>(v * 10 + (cell[i] - '0'), kMaxGpuCount + 1LL);
  if (i == 0) return std::nullopt;
  if (i < cell.size() && cell[i] == '.') {
    const std::size_t dot = ++i;
    while (i < cell.size() && cell[i] == '0') ++i;
    if (i == dot) return std::nullopt;
  }
  if (i != cell.size() || v > kMaxGpuCount) return std::nullopt;
  return static_cast<int>(v);
}

std::vector<std::string> splitCsvLine(const std::string& l) {
  std::vector<std::string> out(1);
  for (char ch : l) {
    if (ch == ',') out.emplace_back();
    else out.back() += ch;
  }
  return out;
}

// The <gpu>_<zone> columns of a trace's header: their (GPU type, zone) and cell index. Other
// columns (the index, Timestamp) are skipped; each site has one column.
void readTraceHeader(const std::vector<std::string>& cells, const std::string& path,
                     const Catalog& catalog,
                     std::vector<std::pair<std::string, std::string>>& sites,
                     std::vector<size_t>& columns) {
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t i = 0; i < cells.size(); ++i) {
    auto us = cells[i].find('_');
    if (us == std::string::npos || us == 0) continue;  // index and Timestamp columns
    const std::string field = path + ": header, column \"" + cells[i] + "\"";
    const std::string gpu = cells[i].substr(0, us);
    const std::string zone = cells[i].substr(us + 1);
    catalog.gpu(gpu, field);
    if (zone.empty())
      throw InputError(field, "no zone after " + gpu + "_",
                       "a zone after the GPU type, as in A100-40_us-central1-a");
    if (!seen.insert({gpu, zone}).second)
      throw InputError(field, "a second column for " + gpu + " in " + zone,
                       "one column per GPU type and zone");
    sites.emplace_back(gpu, zone);
    columns.push_back(i);
  }
  if (sites.empty())
    throw InputError(path + ": header", "no <gpu>_<zone> columns",
                     "columns such as A100-40_us-central1-a");
}

}  // namespace

std::vector<TraceRow> loadTrace(const std::string& path, const Catalog& catalog) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError(path, "a directory", "a readable CSV trace");
  // Read up to the bound whatever the file's kind (NOTE [Read up to the bound], json_util.cpp).
  std::istringstream in(ju::readText(path, "CSV trace"));
  std::string line;
  std::vector<TraceRow> rows;
  std::vector<std::pair<std::string, std::string>> sites;
  std::vector<size_t> columns;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF line ends
    if (line.empty()) continue;
    // Text only: names and labels are shown and written as JSON, which needs valid UTF-8.
    if (!isPrintableText(line))
      throw InputError(path + ": line " + std::to_string(line_no),
                       "\"" + line.substr(0, 60) + (line.size() > 60 ? "...\"" : "\""),
                       "UTF-8 text without control characters");
    const auto cells = splitCsvLine(line);
    if (sites.empty()) {
      readTraceHeader(cells, path, catalog, sites, columns);
      continue;
    }
    TraceRow row;
    row.label = cells.size() > 1 ? cells[1] : std::to_string(rows.size());
    row.sites = sites;
    for (size_t k = 0; k < columns.size(); ++k) {
      const size_t c = columns[k];
      const std::string field = path + ": line " + std::to_string(line_no) + ", column " +
                                sites[k].first + "_" + sites[k].second;
      if (c >= cells.size()) throw InputError(field, "nothing", "a GPU count");
      const std::optional<int> n = traceCount(cells[c]);
      if (!n)
        throw InputError(field, "\"" + cells[c] + "\"", "an integer GPU count from 0 to 1000000");
      row.counts.push_back(*n);
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty()) throw InputError(path, "no rows", "at least one row of GPU counts");
  return rows;
}

// NOTE [A layer number written twice]
// SAILOR's published plan files for GPT-Neo-2.7 on four stages (validation/clariden/GPT-NEO:
// N4_D1, N8_D2, N16_D4, N32_D8, N64_D16) list the third stage as [16, 17, 18, 29, 20, ..., 24]:
// layer 29, which the fourth stage lists too, in place of 19, which no stage lists. A stage is
// a contiguous range, so a list that is not consecutive is read as the range its first layer
// and its length give when that is all it gets wrong: the range starts right after the
// previous stage's and ends right before the next stage's first layer, each number out of
// place is listed by another stage too (a repeat), and each number it stands in for is listed
// by no stage (a gap). The point says so in a note (sailor validate prints it). Any other
// departure is an error.
namespace {
struct StageRanges {
  std::vector<std::pair<int, int>> ranges;  // first and last layer per stage
  std::vector<std::string> notes;
};
}  // namespace

static StageRanges stageRanges(const std::vector<std::vector<int>>& lists, const std::string& p,
                               const json& layers) {
  StageRanges out;
  std::multiset<int> listed;
  for (const auto& l : lists) listed.insert(l.begin(), l.end());
  const size_t n = lists.size();
  for (const auto& l : lists)
    out.ranges.emplace_back(l.front(), l.front() + static_cast<int>(l.size()) - 1);
  for (size_t s = 0; s < n; ++s) {
    const auto& l = lists[s];
    const auto [first, last] = out.ranges[s];
    std::vector<std::string> swaps;
    bool readable = (s == 0 || out.ranges[s - 1].second + 1 == first) &&
                    (s + 1 == n || lists[s + 1].front() == last + 1);
    for (size_t k = 0; k < l.size(); ++k) {
      const int want = first + static_cast<int>(k);
      if (l[k] == want) continue;
      size_t other = 0;
      while (other < n &&
             (other == s || std::count(lists[other].begin(), lists[other].end(), l[k]) == 0))
        ++other;
      readable = readable && other < n && listed.count(want) == 0;
      swaps.push_back(std::to_string(l[k]) + " (also in stage " + std::to_string(other) +
                      ") where " + std::to_string(want) + " belongs");
    }
    if (swaps.empty()) continue;
    if (!readable)
      throw InputError(p + ".layers_per_stage[" + std::to_string(s) + "]", ju::describe(layers[s]),
                       "consecutive layer numbers");
    std::string note = "layers_per_stage[" + std::to_string(s) + "] lists ";
    for (size_t k = 0; k < swaps.size(); ++k) note += (k ? ", " : "") + swaps[k];
    note += ", which no stage lists; read as layers " + std::to_string(first) + "-" +
            std::to_string(last) + " (its first layer and length, between its neighbours)";
    out.notes.push_back(std::move(note));
  }
  return out;
}

static MeasuredPoint readMeasuredPoint(const json& pj, size_t i, const std::string& p,
                                       const Catalog& catalog) {
  MeasuredPoint mp;
  mp.index = i;
  mp.id = ju::getStringOr(pj, "id", p, "point " + std::to_string(i));
  mp.cluster = ju::getStringOr(pj, "cluster", p, "");
  json job{{"model", ju::getString(pj, "model", p)},
           {"global_batch_size", ju::getInt(pj, "global_batch_size", p, 1)},
           {"precision", ju::getStringOr(pj, "precision", p, "fp32")},
           {"optimizer", ju::getStringOr(pj, "optimizer", p, "adam")}};
  // SAILOR's runs and profiles use sequence length 2048 (the format's convention when absent).
  job["sequence_length"] =
      pj.contains("sequence_length") ? ju::getInt(pj, "sequence_length", p, 1) : 2048;
  try {
    mp.job = Job::fromJson(job, catalog);
  } catch (const InputError& e) {
    throw withContext(e, p);
  }
  mp.plan.microbatch_size = ju::getInt32(pj, "microbatch_size", p, 1);
  const json& layers = ju::require(pj, "layers_per_stage", p);
  const json& reps = ju::require(pj, "replicas_per_stage", p);
  ju::requireArray(layers, p + ".layers_per_stage");
  ju::requireArray(reps, p + ".replicas_per_stage");
  if (layers.size() != reps.size())
    throw InputError(p + ".replicas_per_stage", std::to_string(reps.size()) + " stages",
                     std::to_string(layers.size()) + " (as many as layers_per_stage)");
  if (layers.empty()) throw InputError(p + ".layers_per_stage", "[]", "at least one stage");
  std::vector<std::vector<int>> lists;
  for (size_t s = 0; s < layers.size(); ++s) {
    const std::string sp = p + ".layers_per_stage[" + std::to_string(s) + "]";
    if (!layers[s].is_array() || layers[s].empty())
      throw InputError(sp, ju::describe(layers[s]), "a non-empty list of layer numbers");
    for (const auto& l : layers[s])
      if (!l.is_number_integer() || l.get<std::int64_t>() < 0 || l.get<std::int64_t>() > 1000000)
        throw InputError(sp, ju::describe(layers[s]), "layer numbers (non-negative integers)");
    lists.push_back(layers[s].get<std::vector<int>>());
  }
  StageRanges ranges = stageRanges(lists, p, layers);
  mp.notes = std::move(ranges.notes);
  std::map<std::pair<std::string, std::string>, Pool> pools;
  for (size_t s = 0; s < layers.size(); ++s) {
    Stage st;
    st.first_layer = ranges.ranges[s].first;
    st.last_layer = ranges.ranges[s].second;
    const std::string rsp = p + ".replicas_per_stage[" + std::to_string(s) + "]";
    ju::requireArray(reps[s], rsp);
    if (reps[s].empty()) throw InputError(rsp, "[]", "at least one replica");
    for (size_t r = 0; r < reps[s].size(); ++r) {
      const std::string rp =
          p + ".replicas_per_stage[" + std::to_string(s) + "][" + std::to_string(r) + "]";
      Replica rep;
      rep.gpu_type = catalog.gpu(ju::getString(reps[s][r], "gpu_type", rp), rp + ".gpu_type").name;
      rep.tp = ju::getInt32(reps[s][r], "tp", rp, 1);
      rep.zone = ju::getString(reps[s][r], "zone", rp);
      const int gpn = ju::getInt32Or(reps[s][r], "gpus_per_node", rp, 1,
                                     catalog.gpu(rep.gpu_type, rp).gpus_per_node);
      Pool& pool = pools[{rep.zone, rep.gpu_type}];
      pool.zone = rep.zone;
      pool.gpu_type = rep.gpu_type;
      // The pool holds the GPUs of every replica of its site: within a pool's bound, and summed
      // without overflowing an int.
      if (rep.tp > kMaxGpuCount - pool.count)
        throw InputError(rp + ".tp", std::to_string(rep.tp),
                         "at most " + std::to_string(kMaxGpuCount) + " GPUs of " + rep.gpu_type +
                             " in " + rep.zone + " over all replicas");
      pool.count += rep.tp;
      pool.gpus_per_node = std::max(pool.gpus_per_node.value_or(1), gpn);
      st.replicas.push_back(rep);
    }
    mp.plan.stages.push_back(std::move(st));
  }
  for (auto& [k, v] : pools) mp.pools.push_back(v);
  const json& meas = ju::require(pj, "measured", p);
  ju::requireObject(meas, p + ".measured");
  // A figure the run did not record: absent, null, or 0 as SAILOR's files write it. A recorded
  // one lies within bounds no real run leaves, so that a relative error against it stays finite
  // (predicted / 5e-324 is inf).
  auto figure = [&](const char* key, double lo, double hi, const std::string& expected) {
    if (!meas.contains(key) || meas.at(key).is_null()) return 0.0;
    if (meas.at(key).is_number() && meas.at(key).get<double>() == 0) return 0.0;
    const double v = ju::getPositive(meas, key, p + ".measured");
    if (!(v >= lo && v <= hi))
      throw InputError(p + ".measured." + key, ju::describe(meas.at(key)), expected);
    return v;
  };
  mp.iteration_s = figure("iteration_time_s", kMinMeasuredIterationS, kMaxMeasuredIterationS,
                          "seconds from 1e-06 to 1e+07, or 0 (not measured)");
  mp.peak_memory_bytes =
      figure("peak_memory_bytes", kMinMeasuredMemoryBytes, kMaxMeasuredMemoryBytes,
             "bytes from 1e+06 (1 MB) to 1e+15 (1 PB), or 0 (not measured)");
  if (mp.iteration_s == 0 && mp.peak_memory_bytes == 0)
    throw InputError(p + ".measured", ju::describe(meas),
                     "iteration_time_s or peak_memory_bytes (or both) measured, > 0");
  return mp;
}

// Reads point i, a JSON error (a value of the wrong type deep inside) becoming an InputError
// that names the point.
static MeasuredPoint readPoint(const json& pts, size_t i, const std::string& path,
                               const Catalog& catalog) {
  const std::string p = path + ": points[" + std::to_string(i) + "]";
  try {
    return readMeasuredPoint(pts[i], i, p, catalog);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(p, std::string("data of an unexpected shape (") + e.what() + ")",
                     "the measured-points format (docs/formats.md)");
  }
}

static const json& pointsOf(const json& file, const std::string& path) {
  const json& pts = ju::require(file, "points", path);
  ju::requireArray(pts, path + ": points");
  // A file with no point can predict nothing: an error, as for a file whose points are all bad.
  if (pts.empty()) throw InputError(path + ": points", "[]", "at least one measured point");
  return pts;
}

std::vector<MeasuredPoint> loadMeasuredPoints(const std::string& path, const Catalog& catalog) {
  const json file = ju::readFile(path);
  const json& pts = pointsOf(file, path);
  std::vector<MeasuredPoint> out;
  for (size_t i = 0; i < pts.size(); ++i) out.push_back(readPoint(pts, i, path, catalog));
  return out;
}

MeasuredPoints readMeasuredPoints(const std::string& path, const Catalog& catalog) {
  const json file = ju::readFile(path);
  const json& pts = pointsOf(file, path);
  MeasuredPoints out;
  for (size_t i = 0; i < pts.size(); ++i) {
    try {
      out.points.push_back(readPoint(pts, i, path, catalog));
    } catch (const InputError& e) {
      const json& pj = pts[i];
      const bool named = pj.is_object() && pj.contains("id") && pj.at("id").is_string();
      out.skipped.push_back(
          {i, named ? pj.at("id").get<std::string>() : "point " + std::to_string(i), e.what()});
    }
  }
  return out;
}

// Measured points number layers as SAILOR does. Where SAILOR counts one layer more than the
// catalogue (a separate final norm at L-2, NOTE [SAILOR layer conventions] in profile.cpp),
// SAILOR's layers map to plan layers by merging that norm into the head: a stage ending at the
// norm while the next holds the head gives the norm to the head's stage.
Plan toPlanLayers(const Plan& plan, const ModelSpec& model, int sailor_layers) {
  const int head = model.numPlanLayers() - 1;
  if (sailor_layers != model.numPlanLayers() + 1 || plan.stages.empty() ||
      plan.stages.back().last_layer != head + 1)
    return plan;
  Plan out = plan;
  for (size_t s = 0; s < out.stages.size(); ++s) {
    Stage& st = out.stages[s];
    const bool last = s + 1 == out.stages.size();
    st.first_layer = std::min(st.first_layer, head);
    st.last_layer = last ? head : std::min(st.last_layer, head - 1);
    if (st.last_layer < st.first_layer)
      throw InputError("stages[" + std::to_string(s) + "]",
                       "only SAILOR's final-norm layer " + std::to_string(head),
                       "a stage with a block, the embedding or the head (" + model.name +
                           "'s final norm is part of the head here)");
  }
  return out;
}

// NOTE [SAILOR's published model]
// The baseline, as SAILOR's simulator computes a plan (../shared/docs/sailor-reference.md), on the
// figures our simulator uses (the imported profiles and llm_info, the scenario's links):
//   memory of a replica of stage s = 24 B x its parameters (no tied-matrix sharing)
//       + b x its activation bytes per sequence x (P - s) (in-flight not capped at m) + K,
//       K = 5.06e9 (fitted on GH200, the same for every GPU);
//   t_s = the slowest replica's sum of forward + backward over the stage's layers;
//   comm_s = the stage's sends: its activation to the next stage and its gradient to the
//       previous one, one message of output elements x b x activation bytes each, over the link
//       between the replicas' zones and GPU types at the replica's GPU count (tp), slowest pair;
//   T_pp = (m - 1) max_s (t_s + comm_s) + sum_s comm_s + sum_s t_s + the largest optimizer step;
//   T_sync = the slowest stage's ring all-reduce of its fp32 gradients in 500 MB buckets,
//       2 (D - 1) sends of bucket / D bytes each over the slowest link of the ring;
//   T_iter = T_pp + T_sync (no overlap).
// The optimizer step is our per-parameter figure times the replica's parameters (SAILOR's
// update time of its profiled mini-model differs by milliseconds).
SailorModelPrediction sailorPublishedModel(const Plan& plan, const Scenario& scenario,
                                           const Job& job, const Catalog& catalog,
                                           const ProfileSet& profiles) {
  plan.validate(job, catalog, scenario);
  const ModelSpec& model = catalog.model(job.model, "job.model");
  constexpr double kBytesPerParameter = 24, kConstantBytes = 5.06e9, kBucketBytes = 5e8;
  const int P = static_cast<int>(plan.stages.size());
  const int b = plan.microbatch_size;
  struct Rep {
    const Replica* r = nullptr;
    double seconds = 0, params = 0, activation = 0, output = 0, optimizer = 0;
  };
  std::vector<std::vector<Rep>> reps(static_cast<size_t>(P));
  SailorModelPrediction out;
  int m = 0;
  double update = 0;
  for (int s = 0; s < P; ++s) {
    const Stage& st = plan.stages[static_cast<size_t>(s)];
    m = std::max(m, plan.microbatches(job.global_batch_size, st));
    for (const Replica& r : st.replicas) {
      const ProfileKey key{model.name, r.gpu_type, b, r.tp};
      const auto t = profiles.timings(key, job).value;
      const auto mem = profiles.memory(model.name, r.tp, job).value;
      Rep x;
      x.r = &r;
      for (int l = st.first_layer; l <= st.last_layer; ++l) {
        x.seconds += t[static_cast<size_t>(l)].forward_s + t[static_cast<size_t>(l)].backward_s;
        x.params += mem[static_cast<size_t>(l)].params;
        x.activation += mem[static_cast<size_t>(l)].activation_bytes;
      }
      x.output = mem[static_cast<size_t>(st.last_layer)].output_elements;
      x.optimizer = profiles.optimizerSecondsPerParameter(key, job).value * x.params;
      update = std::max(update, x.optimizer);
      out.peak_memory_bytes =
          std::max(out.peak_memory_bytes,
                   kBytesPerParameter * x.params + b * x.activation * (P - s) + kConstantBytes);
      reps[static_cast<size_t>(s)].push_back(x);
    }
  }
  LinkResolver link_of(scenario);
  auto send_seconds = [&](const Rep& from, const Rep& to, double bytes) {
    if (bytes <= 0) return 0.0;
    const ResolvedLink& link =
        link_of({from.r->zone, from.r->gpu_type, to.r->zone, to.r->gpu_type, from.r->tp});
    return bytes / link.bandwidthBytesPerS(bytes);
  };
  std::vector<double> t(static_cast<size_t>(P), 0.0), comm(static_cast<size_t>(P), 0.0);
  for (int s = 0; s < P; ++s) {
    const auto& a = reps[static_cast<size_t>(s)];
    for (const Rep& x : a)
      t[static_cast<size_t>(s)] = std::max(t[static_cast<size_t>(s)], x.seconds);
    if (s + 1 == P) continue;
    const auto& c = reps[static_cast<size_t>(s) + 1];
    double fwd = 0, bwd = 0;
    for (size_t j = 0; j < std::max(a.size(), c.size()); ++j) {
      const Rep& x = a[j % a.size()];
      const Rep& y = c[j % c.size()];
      const double msg = x.output * b * job.activationBytesPerElement();
      fwd = std::max(fwd, send_seconds(x, y, msg));
      bwd = std::max(bwd, send_seconds(y, x, msg));
    }
    comm[static_cast<size_t>(s)] += fwd;
    comm[static_cast<size_t>(s) + 1] += bwd;
  }
  double slowest = 0, sum = 0;
  for (int s = 0; s < P; ++s) {
    slowest = std::max(slowest, t[static_cast<size_t>(s)] + comm[static_cast<size_t>(s)]);
    sum += t[static_cast<size_t>(s)] + comm[static_cast<size_t>(s)];
  }
  const double pipeline = (m - 1) * slowest + sum + update;
  double sync = 0;
  for (const auto& a : reps) {
    const int D = static_cast<int>(a.size());
    if (D < 2) continue;
    for (int k = 0; k < D; ++k) {
      const Rep& x = a[static_cast<size_t>(k)];
      const Rep& y = a[static_cast<size_t>((k + 1) % D)];
      const double ring = bucketedSeconds(x.params * 4.0, kBucketBytes, [&](double bucket) {
        return 2.0 * (D - 1) * send_seconds(x, y, bucket / D);
      });
      sync = std::max(sync, ring);
    }
  }
  out.iteration_s = pipeline + sync;
  for (const auto& [v, name] :
       {std::pair{out.iteration_s, "iteration_s"}, {out.peak_memory_bytes, "peak_memory_bytes"}})
    if (!std::isfinite(v))
      throw InputError(std::string("sailor_model.") + name, toText(v),
                       "a finite figure (an input figure is out of range)");
  return out;
}

namespace {

// A row's measured and predicted figures and their signed relative errors, 0 for a figure the
// run did not measure (the row's timeMeasured / memoryMeasured say so). An error that is not
// finite (a prediction near the largest double against a small measurement) is an InputError
// naming it, as a prediction's figures are (requireFiniteFigures): the point is skipped rather
// than shown at +inf%.
void setErrors(ValidationRow& row, const MeasuredPoint& pt) {
  auto error = [](double predicted, double measured, const char* name) {
    const double e = measured > 0 ? (predicted - measured) / measured : 0.0;
    if (!std::isfinite(e))
      throw InputError(name, toText(e),
                       "a finite relative error (an input figure is out of range)");
    return e;
  };
  row.measured_iteration_s = pt.iteration_s;
  row.predicted_iteration_s = row.prediction.iteration_s;
  row.measured_memory_bytes = pt.peak_memory_bytes;
  row.predicted_memory_bytes = row.prediction.peakMemoryBytes();
  row.time_error = error(row.predicted_iteration_s, pt.iteration_s, "time_error");
  row.memory_error = error(row.predicted_memory_bytes, pt.peak_memory_bytes, "memory_error");
  for (const MemoryBreakdown& m : row.prediction.memory) {
    const double one_microbatch =
        m.microbatches_in_flight > 0 ? m.activation_bytes / m.microbatches_in_flight : 0.0;
    row.memory_floor_bytes = std::max(row.memory_floor_bytes, m.model_state_bytes + one_microbatch);
  }
  if (row.sailor_model) {
    row.sailor_time_error =
        error(row.sailor_model->iteration_s, pt.iteration_s, "sailor_model.time_error");
    row.sailor_memory_error = error(row.sailor_model->peak_memory_bytes, pt.peak_memory_bytes,
                                    "sailor_model.memory_error");
  }
}

}  // namespace

ValidationReport validatePoints(const std::vector<MeasuredPoint>& points,
                                const SailorReference& reference, const Catalog& catalog,
                                const SimulatorOptions& options, bool compare_sailor) {
  ValidationReport rep;
  ProfileSet profiles;
  profiles.add(reference.profiles);
  profiles.add(std::make_shared<MicrobatchScaledProfile>(reference.profiles));
  // Last resort for a GPU type or tp SAILOR did not profile at all: the datasheet estimate
  // (named as the source of those figures), rather than no prediction for any point.
  profiles.add(std::make_shared<AnalyticProfile>(catalog));
  for (const auto& pt : points) {
    ValidationRow row;
    row.id = pt.id;
    row.cluster = pt.cluster;
    row.model = pt.job.model;
    row.sequence_length = pt.job.sequence_length;
    row.profiled_sequence_length = reference.profiles->sequenceLength(pt.job.model);
    row.notes = pt.notes;
    try {
      const Scenario sc = reference.scenario(pt.pools, catalog);
      const Plan plan = toPlanLayers(pt.plan, catalog.model(pt.job.model, "model"),
                                     reference.profiles->sailorLayers(pt.job.model));
      row.prediction = simulate(plan, sc, pt.job, catalog, profiles, options);
      if (compare_sailor)
        row.sailor_model = sailorPublishedModel(plan, sc, pt.job, catalog, profiles);
      setErrors(row, pt);
    } catch (const InputError& e) {
      // A plan the simulator rejects (layers that do not cover the model, a tp above the node
      // size, ...): the point is reported with the reason and left out of the means.
      rep.skipped.push_back(
          {pt.index, pt.id, withContext(e, "points[" + std::to_string(pt.index) + "]").what()});
      continue;
    }
    rep.rows.push_back(std::move(row));
  }
  // Each row's errors go into the overall summaries and its (cluster, model) group's, the
  // figures it did not measure left out.
  auto add = [](ErrorSummary& ours, std::optional<ErrorSummary>& sailor, const ValidationRow& row) {
    auto measured = [](bool yes, double e) {
      return yes ? std::optional<double>(e) : std::nullopt;
    };
    ours.add(measured(row.timeMeasured(), row.time_error),
             measured(row.memoryMeasured(), row.memory_error));
    if (row.sailor_model)
      (sailor ? *sailor : sailor.emplace())
          .add(measured(row.timeMeasured(), row.sailor_time_error),
               measured(row.memoryMeasured(), row.sailor_memory_error));
  };
  for (const ValidationRow& row : rep.rows) {
    auto g = std::find_if(rep.groups.begin(), rep.groups.end(), [&](const ValidationGroup& x) {
      return x.cluster == row.cluster && x.model == row.model;
    });
    if (g == rep.groups.end()) {
      ValidationGroup fresh;
      fresh.cluster = row.cluster;
      fresh.model = row.model;
      g = rep.groups.insert(rep.groups.end(), std::move(fresh));
    }
    ++g->points;
    add(rep.ours, rep.sailor_model, row);
    add(g->ours, g->sailor_model, row);
  }
  rep.ours.average();
  if (rep.sailor_model) rep.sailor_model->average();
  for (ValidationGroup& g : rep.groups) {
    g.ours.average();
    if (g.sailor_model) g.sailor_model->average();
  }
  // Each row's errors are finite (setErrors), but their sum could overflow; a group's sums are
  // within the overall ones.
  auto finite = [](const ErrorSummary& e, const std::string& of) {
    for (const auto& [v, name] : {std::pair{e.mean_time_error, "mean_time_error"},
                                  {e.mean_memory_error, "mean_memory_error"}})
      if (!std::isfinite(v))
        throw InputError(of + name, toText(v),
                         "a finite mean error (an input figure is out of range)");
  };
  finite(rep.ours, "");
  if (rep.sailor_model) finite(*rep.sailor_model, "sailor_model.");
  return rep;
}

void ErrorSummary::add(std::optional<double> time_error, std::optional<double> memory_error) {
  if (time_error) {
    mean_time_error += std::fabs(*time_error);
    max_time_error = std::max(max_time_error, std::fabs(*time_error));
    ++time_points;
  }
  if (memory_error) {
    mean_memory_error += std::fabs(*memory_error);
    max_memory_error = std::max(max_memory_error, std::fabs(*memory_error));
    ++memory_points;
  }
}

void ErrorSummary::average() {
  if (time_points > 0) mean_time_error /= static_cast<double>(time_points);
  if (memory_points > 0) mean_memory_error /= static_cast<double>(memory_points);
}

namespace {
json errorsJson(const ErrorSummary& e) {
  return {{"mean_time_error", e.mean_time_error},
          {"max_time_error", e.max_time_error},
          {"mean_memory_error", e.mean_memory_error},
          {"max_memory_error", e.max_memory_error},
          {"time_points", e.time_points},
          {"memory_points", e.memory_points}};
}

// A figure, or null when the run did not measure what it is compared with.
json orNull(bool measured, double v) {
  return measured ? json(v) : json(nullptr);
}

// One entry per (cluster, model): its name, point count and the errors `of` gives for it.
template <class Of>
json groupsJson(const std::vector<ValidationGroup>& groups, Of of) {
  json out = json::array();
  for (const auto& g : groups) {
    json e = errorsJson(of(g));
    e["cluster"] = g.cluster;
    e["model"] = g.model;
    e["points"] = g.points;
    out.push_back(std::move(e));
  }
  return out;
}
}  // namespace

ValidationReport validatePoints(const MeasuredPoints& read, const SailorReference& reference,
                                const Catalog& catalog, const SimulatorOptions& options,
                                bool compare_sailor) {
  ValidationReport rep = validatePoints(read.points, reference, catalog, options, compare_sailor);
  rep.skipped.insert(rep.skipped.end(), read.skipped.begin(), read.skipped.end());
  std::stable_sort(rep.skipped.begin(), rep.skipped.end(),
                   [](const SkippedPoint& x, const SkippedPoint& y) { return x.index < y.index; });
  return rep;
}

json ValidationReport::toJson() const {
  json pts = json::array();
  for (const auto& r : rows)
    pts.push_back({{"id", r.id},
                   {"cluster", r.cluster},
                   {"model", r.model},
                   {"sequence_length", r.sequence_length},
                   {"profiled_sequence_length",
                    r.profiled_sequence_length ? json(*r.profiled_sequence_length) : json(nullptr)},
                   {"measured_iteration_s", orNull(r.timeMeasured(), r.measured_iteration_s)},
                   {"predicted_iteration_s", r.predicted_iteration_s},
                   {"time_error", orNull(r.timeMeasured(), r.time_error)},
                   {"measured_memory_bytes", orNull(r.memoryMeasured(), r.measured_memory_bytes)},
                   {"predicted_memory_bytes", r.predicted_memory_bytes},
                   {"memory_error", orNull(r.memoryMeasured(), r.memory_error)},
                   // A measured run that the model says does not fit points at the model.
                   {"fits", r.prediction.fits},
                   {"out_of_memory", r.prediction.out_of_memory},
                   // A measured figure below what the run must have held is not its peak.
                   {"memory_floor_bytes", r.memory_floor_bytes},
                   {"memory_below_floor", r.memoryBelowFloor()},
                   {"breakdown",
                    {{"stage", r.prediction.breakdown.stage},
                     {"compute_s", r.prediction.breakdown.compute_s},
                     {"bubble_s", r.prediction.breakdown.bubble_s},
                     {"p2p_s", r.prediction.breakdown.p2p_s},
                     {"dp_sync_s", r.prediction.breakdown.dp_sync_s},
                     {"optimizer_s", r.prediction.breakdown.optimizer_s}}},
                   {"notes", r.notes}});
  json out = errorsJson(ours);
  out["points"] = pts;
  json skip = json::array();
  for (const auto& k : skipped)
    skip.push_back({{"index", k.index}, {"id", k.id}, {"error", k.error}});
  out["skipped"] = std::move(skip);
  out["groups"] = groupsJson(groups, [](const ValidationGroup& g) { return g.ours; });
  if (sailor_model) {
    json per = json::array();
    for (const auto& r : rows)
      per.push_back(
          {{"id", r.id},
           {"predicted_iteration_s", r.sailor_model ? r.sailor_model->iteration_s : 0.0},
           {"time_error", orNull(r.timeMeasured(), r.sailor_time_error)},
           {"predicted_memory_bytes", r.sailor_model ? r.sailor_model->peak_memory_bytes : 0.0},
           {"memory_error", orNull(r.memoryMeasured(), r.sailor_memory_error)}});
    json sm = errorsJson(*sailor_model);
    sm["points"] = per;
    sm["groups"] = groupsJson(
        groups, [](const ValidationGroup& g) { return g.sailor_model.value_or(ErrorSummary{}); });
    out["sailor_model"] = std::move(sm);
  }
  return out;
}

}  // namespace sailor
