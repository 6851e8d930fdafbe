// SkyPilot's GPU price catalogues read into price offers. Declared in
// sailor/model/skypilot_catalog.hpp; docs/prices.md describes the rules.
//
// Map:
//   kGpuTypes                 THE table: SkyPilot's accelerator names -> the catalogue's GPU types
//   kGcpHosts, kGcpN1Vcpus    SkyPilot's GCP pairing of host VMs and accelerators
//   Reader                    one file's columns, numbers and skips
//   awsOrLambdaOffers         one row, one instance with its GPUs
//   gcpOffers                 host row + accelerator row, matched on zone and count
//   dropDuplicates            offers of one key reported, none taken
//   importSkyPilotCatalogs    the directory: each cloud's file, then the offers
#include "sailor/model/skypilot_catalog.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <regex>
#include <set>

#include "sailor/core/csv.hpp"
#include "sailor/core/error.hpp"

namespace sailor {

namespace {

// SkyPilot's accelerator names and this project's GPU types (resources/catalog/gpus.json).
// Names that are not listed (P100, P4, K80, L40S, A10, A6000, RTX6000, B200, ...) have no GPU
// type in the catalogue: their rows are skipped. cloud "*" is every cloud.
struct GpuTypeName {
  const char* cloud;
  const char* accelerator;  // SkyPilot's AcceleratorName
  const char* gpu_type;     // gpus.json's name
};
constexpr GpuTypeName kGpuTypes[] = {
    {"*", "A100", "A100-40"},  // A100 40GB (GpuInfo: 40960 MiB)
    {"*", "A100-80GB", "A100-80"},
    {"*", "H100", "H100-80"},
    // GCP's a3-megagpu-8g: the same H100 80GB SXM5 as a3-highgpu-8g with a faster network. The
    // catalogue's H100-80 entry lists a3-megagpu-8g among its nodes (1600 Gb/s), so it is
    // H100-80, not a GPU type of its own.
    {"gcp", "H100-MEGA", "H100-80"},
    {"*", "H200", "H200-141"},
    {"*", "GH200", "GH-96"},  // Lambda's GH200 96 GB (GpuInfo: 98304 MiB)
    {"*", "V100", "V100-16"},
    {"*", "V100-32GB", "V100-32"},
    {"*", "L4", "L4"},
    {"*", "A10G", "A10G"},
    {"*", "T4", "T4"},
};

// SkyPilot's GCP host families for accelerators that need one (sky/catalog/gcp_catalog.py,
// _ACC_INSTANCE_TYPE_DICTS): the host VM type, its accelerator and their count. A host row of
// one of these types is priced with the accelerator row of its zone and count.
struct GcpHost {
  const char* instance_type;
  const char* accelerator;
  int count;
};
constexpr GcpHost kGcpHosts[] = {
    {"a2-highgpu-1g", "A100", 1},       {"a2-highgpu-2g", "A100", 2},
    {"a2-highgpu-4g", "A100", 4},       {"a2-highgpu-8g", "A100", 8},
    {"a2-megagpu-16g", "A100", 16},     {"a2-ultragpu-1g", "A100-80GB", 1},
    {"a2-ultragpu-2g", "A100-80GB", 2}, {"a2-ultragpu-4g", "A100-80GB", 4},
    {"a2-ultragpu-8g", "A100-80GB", 8}, {"g2-standard-4", "L4", 1},
    {"g2-standard-8", "L4", 1},         {"g2-standard-12", "L4", 1},
    {"g2-standard-16", "L4", 1},        {"g2-standard-32", "L4", 1},
    {"g2-standard-24", "L4", 2},        {"g2-standard-48", "L4", 4},
    {"g2-standard-96", "L4", 8},        {"a3-highgpu-1g", "H100", 1},
    {"a3-highgpu-2g", "H100", 2},       {"a3-highgpu-4g", "H100", 4},
    {"a3-highgpu-8g", "H100", 8},       {"a3-megagpu-8g", "H100-MEGA", 8},
    {"a3-ultragpu-8g", "H200", 8},      {"a4-highgpu-8g", "B200", 8},
};

// Other GCP accelerators go on an n1 host: SkyPilot takes the cheapest n1-standard, n1-highmem
// or n1-highcpu VM of the zone with at least this many vCPUs and 4 GiB of memory per vCPU
// (_NUM_ACC_TO_NUM_CPU, _DEFAULT_GPU_MEMORY_CPU_RATIO). "DEFAULT" is for names not listed.
struct N1Vcpus {
  const char* accelerator;
  int count;
  int vcpus;
};
constexpr N1Vcpus kGcpN1Vcpus[] = {
    {"K80", 1, 4},        {"K80", 2, 8},      {"K80", 4, 16},     {"K80", 8, 32},
    {"K80", 16, 64},      {"V100", 1, 8},     {"V100", 2, 16},    {"V100", 4, 32},
    {"V100", 8, 64},      {"T4", 1, 4},       {"T4", 2, 8},       {"T4", 4, 48},
    {"P100", 1, 8},       {"P100", 2, 16},    {"P100", 4, 32},    {"P100", 8, 64},
    {"DEFAULT", 1, 8},    {"DEFAULT", 2, 16}, {"DEFAULT", 4, 32}, {"DEFAULT", 8, 64},
    {"DEFAULT", 16, 128},
};
constexpr int kGcpN1GibPerVcpu = 4;
constexpr const char* kGcpN1Families[] = {"n1-standard-", "n1-highmem-", "n1-highcpu-"};

const GcpHost* gcpHost(const std::string& instance_type) {
  for (const auto& h : kGcpHosts)
    if (instance_type == h.instance_type) return &h;
  return nullptr;
}

bool isGcpPairedAccelerator(const std::string& accelerator) {
  return std::any_of(std::begin(kGcpHosts), std::end(kGcpHosts),
                     [&](const GcpHost& h) { return accelerator == h.accelerator; });
}

std::optional<int> gcpN1Vcpus(const std::string& accelerator, int count) {
  const bool listed = std::any_of(std::begin(kGcpN1Vcpus), std::end(kGcpN1Vcpus),
                                  [&](const N1Vcpus& n) { return accelerator == n.accelerator; });
  const std::string key = listed ? accelerator : "DEFAULT";
  for (const auto& n : kGcpN1Vcpus)
    if (key == n.accelerator && count == n.count) return n.vcpus;
  return std::nullopt;
}

bool isN1Host(const std::string& instance_type) {
  return std::any_of(std::begin(kGcpN1Families), std::end(kGcpN1Families),
                     [&](const char* f) { return instance_type.rfind(f, 0) == 0; });
}

// A strict decimal number: optional minus, digits with an optional fraction, optional exponent.
// No spaces, no "+", no hexadecimal, no inf or nan. (A scan, not std::regex, whose recursion
// grows with the cell's length.)
bool isDecimal(const std::string& s) {
  size_t i = s.empty() || s[0] != '-' ? 0 : 1;
  const auto digits = [&] {
    const size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - from;
  };
  size_t mantissa = digits();
  if (i < s.size() && s[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

// One catalogue file: its columns by name, numbers read strictly, skips recorded.
class Reader {
 public:
  Reader(const CsvTable& t, std::vector<SkippedCatalogRow>& skipped) : t_(t), skipped_(skipped) {}

  const CsvTable& table() const { return t_; }

  // The index of a column the cloud's format requires; an error at the header's end if absent.
  int column(const char* name) const {
    const int c = t_.column(name);
    if (c >= 0) return c;
    std::string header;
    for (const auto& h : t_.header) header += (header.empty() ? "" : ",") + h;
    throw t_.error(1, static_cast<int>(t_.header.size()),
                   "a header without the column " + std::string(name) + " (" + header + ")",
                   "a column named " + std::string(name));
  }

  // A price in USD per hour; nothing where the cell is empty.
  std::optional<double> price(const CsvRow& r, int c) const {
    return number(r, c, "a number of USD per hour >= 0, or an empty cell for no price");
  }

  // A number >= 0; nothing where the cell is empty.
  std::optional<double> number(const CsvRow& r, int c, const std::string& expected) const {
    const std::string& s = r.fields[static_cast<size_t>(c)];
    if (s.empty()) return std::nullopt;
    const double v = isDecimal(s) ? std::strtod(s.c_str(), nullptr) : -1;
    if (!isDecimal(s) || !std::isfinite(v) || v < 0 || s[0] == '-')
      throw t_.error(r.line, c, "\"" + s + "\"", expected);
    return v;
  }

  // The GPUs per instance: an integer from 1, or nothing (with the row skipped) for a
  // fractional or zero count.
  std::optional<int> gpuCount(const CsvRow& r, int c) {
    const auto v = number(r, c, "a GPU count (a number >= 0)");
    if (!v) throw t_.error(r.line, c, "an empty cell", "a GPU count");
    if (*v < 1 || *v > 4096 || std::floor(*v) != *v) {
      skip(r, "a GPU count of " + r.fields[static_cast<size_t>(c)] +
                  " (whole GPUs from 1 to 4096 only)");
      return std::nullopt;
    }
    return static_cast<int>(*v);
  }

  // A cell that must not be empty.
  const std::string& text(const CsvRow& r, int c, const char* expected) const {
    const std::string& s = r.fields[static_cast<size_t>(c)];
    if (s.empty()) throw t_.error(r.line, c, "an empty cell", expected);
    return s;
  }

  void skip(const CsvRow& r, const std::string& reason) {
    skipped_.push_back({t_.name, r.line, reason});
  }

  // The catalogue's GPU type for a row's accelerator, or the row skipped.
  std::optional<std::string> gpuType(const CsvRow& r, const std::string& cloud,
                                     const std::string& accelerator) {
    std::string g = skyPilotGpuType(cloud, accelerator);
    if (!g.empty()) return g;
    skip(r, "accelerator " + accelerator +
                ": no GPU type for it in the catalogue (resources/catalog/gpus.json)");
    return std::nullopt;
  }

 private:
  const CsvTable& t_;
  std::vector<SkippedCatalogRow>& skipped_;
};

// A candidate offer and the rows it comes from (for duplicate reports).
struct Candidate {
  PriceOffer offer;
  const CsvRow* row = nullptr;  // AWS, Lambda: the row; GCP: the host row
  const CsvTable* table = nullptr;
};

// A row that is the same as an earlier one, field for field, is an error naming both lines.
void rejectRepeatedRows(const CsvTable& t) {
  std::map<std::vector<std::string>, int> first;
  for (const auto& r : t.rows) {
    const auto [it, inserted] = first.emplace(r.fields, r.line);
    if (!inserted)
      throw InputError(t.name + ":" + std::to_string(r.line),
                       "a row identical to line " + std::to_string(it->second),
                       "each row once (a repeated row is a damaged catalogue, not a second offer)");
  }
}

// AWS and Lambda: one row is one instance type in one zone (AWS) or region (Lambda), its price
// for the whole instance.
void awsOrLambdaOffers(const std::string& cloud, const CsvTable& t, std::vector<Candidate>& out,
                       std::vector<SkippedCatalogRow>& skipped) {
  Reader rd(t, skipped);
  const bool aws = cloud == "aws";
  const int c_type = rd.column("InstanceType"), c_acc = rd.column("AcceleratorName"),
            c_count = rd.column("AcceleratorCount"), c_price = rd.column("Price"),
            c_spot = rd.column("SpotPrice"), c_region = rd.column("Region");
  const int c_zone = aws ? rd.column("AvailabilityZone") : -1;
  for (const auto& r : t.rows) {
    const std::string& type = rd.text(r, c_type, "an instance type");
    const std::string& acc = r.fields[static_cast<size_t>(c_acc)];
    const std::string& region = rd.text(r, c_region, "a region");
    const auto price = rd.price(r, c_price);
    const auto spot = rd.price(r, c_spot);
    if (acc.empty()) {
      rd.skip(r, "no accelerator (a CPU-only instance)");
      continue;
    }
    const auto gpu = rd.gpuType(r, cloud, acc);
    if (!gpu) continue;
    if (type.find("pcie") != std::string::npos) {
      rd.skip(r, "a PCIe part (" + type + "); the catalogue's " + *gpu + " is the SXM part");
      continue;
    }
    const auto count = rd.gpuCount(r, c_count);
    if (!count) continue;
    if (!price) {
      rd.skip(r, "no on-demand price (Price is empty)");
      continue;
    }
    Candidate c;
    c.row = &r;
    c.table = &t;
    PriceOffer& f = c.offer;
    f.cloud = cloud;
    f.region = region;
    if (aws) f.zone = rd.text(r, c_zone, "an availability zone");
    f.instance_type = type;
    f.accelerator = acc;
    f.gpu_type = *gpu;
    f.gpus_per_instance = *count;
    f.usd_per_gpu_hour = *price / *count;
    if (spot) f.spot_usd_per_gpu_hour = *spot / *count;
    f.source = {t.name, {r.line}};
    out.push_back(std::move(c));
  }
}

std::string lineList(const std::vector<int>& lines) {
  std::string s;
  for (int l : lines) s += (s.empty() ? "" : ", ") + std::to_string(l);
  return s;
}

// GCP's rows, split into host VMs and accelerators, with the columns read once.
struct GcpRows {
  struct Host {
    const CsvRow* row;
    std::string type, zone;
    double vcpus = 0, memory_gib = 0;
    std::optional<double> price, spot;
    bool used = false;
  };
  struct Accelerator {
    const CsvRow* row;
    std::string name, zone, region;
    int count = 0;
    std::optional<double> price, spot;
    bool used = false;
  };
  std::vector<Host> hosts;
  std::vector<Accelerator> accelerators;
  std::map<std::string, std::vector<size_t>> accelerators_by_key;  // zone|name|count
  std::map<std::string, std::string> region_of_zone;

  static std::string key(const std::string& zone, const std::string& name, int count) {
    return zone + "|" + name + "|" + std::to_string(count);
  }
};

GcpRows readGcpRows(Reader& rd) {
  const CsvTable& t = rd.table();
  const int c_type = rd.column("InstanceType"), c_vcpus = rd.column("vCPUs"),
            c_mem = rd.column("MemoryGiB"), c_acc = rd.column("AcceleratorName"),
            c_count = rd.column("AcceleratorCount"), c_region = rd.column("Region"),
            c_zone = rd.column("AvailabilityZone"), c_price = rd.column("Price"),
            c_spot = rd.column("SpotPrice");
  GcpRows g;
  for (const auto& r : t.rows) {
    const std::string& type = r.fields[static_cast<size_t>(c_type)];
    const std::string& acc = r.fields[static_cast<size_t>(c_acc)];
    const std::string& region = rd.text(r, c_region, "a region");
    const std::string& zone = rd.text(r, c_zone, "an availability zone");
    const auto price = rd.price(r, c_price);
    const auto spot = rd.price(r, c_spot);
    g.region_of_zone.emplace(zone, region);
    if (!type.empty() && !acc.empty()) {
      rd.skip(r,
              "both InstanceType and AcceleratorName set (GCP's rows are a host VM or an "
              "accelerator, not both)");
    } else if (!type.empty()) {
      const auto vcpus = rd.number(r, c_vcpus, "a vCPU count (a number >= 0)");
      const auto mem = rd.number(r, c_mem, "memory in GiB (a number >= 0)");
      g.hosts.push_back({&r, type, zone, vcpus.value_or(0), mem.value_or(0), price, spot});
    } else if (!acc.empty()) {
      const auto count = rd.gpuCount(r, c_count);
      if (!count) continue;
      g.accelerators_by_key[GcpRows::key(zone, acc, *count)].push_back(g.accelerators.size());
      g.accelerators.push_back({&r, acc, zone, region, *count, price, spot});
    } else {
      rd.skip(r, "neither InstanceType nor AcceleratorName");
    }
  }
  return g;
}

// The offer of a host and an accelerator row: their prices added, per GPU.
Candidate gcpCandidate(const CsvTable& t, const GcpRows::Host& h, const GcpRows::Accelerator& a,
                       const std::string& gpu_type) {
  Candidate c;
  c.row = h.row;
  c.table = &t;
  PriceOffer& f = c.offer;
  f.cloud = "gcp";
  f.region = a.region;
  f.zone = a.zone;
  f.instance_type = h.type;
  f.accelerator = a.name;
  f.gpu_type = gpu_type;
  f.gpus_per_instance = a.count;
  f.usd_per_gpu_hour = (*h.price + *a.price) / a.count;
  if (h.spot && a.spot) f.spot_usd_per_gpu_hour = (*h.spot + *a.spot) / a.count;
  f.source = {t.name, {h.row->line, a.row->line}};
  return c;
}

// Hosts of SkyPilot's paired families (a2, a3, g2): each with the accelerator rows of its
// zone, name and count.
void gcpPairedOffers(Reader& rd, GcpRows& g, std::vector<Candidate>& out) {
  for (auto& h : g.hosts) {
    const GcpHost* pair = gcpHost(h.type);
    if (!pair) continue;
    const auto gpu = rd.gpuType(*h.row, "gcp", pair->accelerator);
    if (!gpu) continue;
    const std::string what = std::to_string(pair->count) + " x " + pair->accelerator;
    const auto it =
        g.accelerators_by_key.find(GcpRows::key(h.zone, pair->accelerator, pair->count));
    if (it == g.accelerators_by_key.end()) {
      rd.skip(*h.row, "a host VM without its accelerator row (" + what + " in " + h.zone + ")");
      continue;
    }
    if (!h.price) {
      rd.skip(*h.row, "no on-demand price for the host VM (Price is empty)");
      continue;
    }
    for (size_t k : it->second) {
      auto& a = g.accelerators[k];
      if (!a.price) {
        rd.skip(*h.row, "no on-demand price for its accelerator (" + what + ", line " +
                            std::to_string(a.row->line) + ": Price is empty)");
        continue;
      }
      a.used = true;
      h.used = true;
      out.push_back(gcpCandidate(rd.table(), h, a, *gpu));
    }
  }
}

// Accelerators without a paired family (T4, V100, P100, P4, K80): each on the cheapest n1 host
// of its zone with enough vCPUs and memory, as SkyPilot picks it.
void gcpN1Offers(Reader& rd, GcpRows& g, std::vector<Candidate>& out) {
  std::map<std::string, std::vector<size_t>> n1_by_zone;  // in file order
  for (size_t k = 0; k < g.hosts.size(); ++k)
    if (isN1Host(g.hosts[k].type)) n1_by_zone[g.hosts[k].zone].push_back(k);
  for (auto& a : g.accelerators) {
    if (isGcpPairedAccelerator(a.name)) continue;
    const auto gpu = rd.gpuType(*a.row, "gcp", a.name);
    if (!gpu) {
      a.used = true;  // skipped with its reason
      continue;
    }
    const auto vcpus = gcpN1Vcpus(a.name, a.count);
    a.used = true;
    if (!vcpus) {
      rd.skip(*a.row,
              "SkyPilot has no n1 host size for " + std::to_string(a.count) + " x " + a.name);
      continue;
    }
    const double gib = static_cast<double>(*vcpus) * kGcpN1GibPerVcpu;
    GcpRows::Host* best = nullptr;
    for (size_t k : n1_by_zone[a.zone]) {
      auto& h = g.hosts[k];
      if (h.price && h.vcpus >= *vcpus && h.memory_gib >= gib && (!best || *h.price < *best->price))
        best = &h;
    }
    if (!best) {
      rd.skip(*a.row, "no priced n1 host in " + a.zone + " with at least " +
                          std::to_string(*vcpus) + " vCPUs and " + toText(gib) + " GiB");
      continue;
    }
    if (!a.price) {
      rd.skip(*a.row, "no on-demand price (Price is empty)");
      continue;
    }
    best->used = true;
    out.push_back(gcpCandidate(rd.table(), *best, a, *gpu));
  }
}

// GCP: a VM with GPUs costs its host row plus its accelerator row (SkyPilot's pricing).
void gcpOffers(const CsvTable& t, std::vector<Candidate>& out,
               std::vector<SkippedCatalogRow>& skipped) {
  Reader rd(t, skipped);
  GcpRows g = readGcpRows(rd);
  gcpPairedOffers(rd, g, out);
  gcpN1Offers(rd, g, out);
  for (const auto& h : g.hosts) {
    if (h.used || gcpHost(h.type)) continue;
    rd.skip(*h.row, isN1Host(h.type)
                        ? "an n1 host VM that SkyPilot's rule puts under no accelerator row of "
                          "its zone (the cheapest n1 VM with enough vCPUs and memory is taken)"
                        : "a host VM that SkyPilot pairs with no accelerator (" + h.type + ")");
  }
  for (const auto& a : g.accelerators)
    if (!a.used)
      rd.skip(*a.row, "an accelerator row that no host row of its zone pairs with (" +
                          std::to_string(a.count) + " x " + a.name + " in " + a.zone + ")");
}

// Offers that share a key (cloud, zone, instance type, accelerator and count) are reported
// and none is taken: which row is right is the catalogue's to say, not ours.
std::vector<PriceOffer> dropDuplicates(std::vector<Candidate> cands,
                                       std::vector<SkippedCatalogRow>& skipped) {
  std::map<std::string, std::vector<size_t>> by_key;
  for (size_t i = 0; i < cands.size(); ++i) {
    const PriceOffer& f = cands[i].offer;
    by_key[f.cloud + "|" + f.region + "|" + f.zone + "|" + f.instance_type + "|" + f.accelerator +
           "|" + std::to_string(f.gpus_per_instance)]
        .push_back(i);
  }
  std::vector<bool> drop(cands.size(), false);
  for (const auto& [key, group] : by_key) {
    if (group.size() < 2) continue;
    for (size_t i : group) {
      std::vector<int> others;
      std::set<std::string> differ;
      for (size_t j : group) {
        if (j == i) continue;
        others.push_back(cands[j].row->line);
        const auto& a = cands[i].row->fields;
        const auto& b = cands[j].row->fields;
        for (size_t c = 0; c < a.size(); ++c)
          if (a[c] != b[c]) differ.insert(cands[i].table->header[c]);
      }
      std::string cols;
      for (const auto& c : differ) cols += (cols.empty() ? "" : ", ") + c;
      drop[i] = true;
      skipped.push_back({cands[i].offer.source.file, cands[i].row->line,
                         "a duplicate offer: line " + lineList(others) +
                             " has the same instance type in the same zone" +
                             (cols.empty() ? "" : " (the rows differ in " + cols + ")") +
                             "; neither is taken"});
    }
  }
  std::vector<PriceOffer> offers;
  for (size_t i = 0; i < cands.size(); ++i)
    if (!drop[i]) offers.push_back(std::move(cands[i].offer));
  return offers;
}

std::string isoTime(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::string skyPilotGpuType(const std::string& cloud, const std::string& accelerator) {
  for (const auto& g : kGpuTypes)
    if ((std::string(g.cloud) == "*" || cloud == g.cloud) && accelerator == g.accelerator)
      return g.gpu_type;
  return "";
}

SkyPilotImport importSkyPilotCatalogs(const std::string& dir,
                                      const std::optional<std::string>& date) {
  namespace fs = std::filesystem;
  static const std::regex kDate(R"([0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}Z)?)");
  if (date && (date->size() > 20 || !std::regex_match(*date, kDate)))
    throw InputError("catalogue date", *date, "a date YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ");
  SkyPilotImport imp;
  std::vector<Candidate> cands;
  std::vector<CsvTable> tables;
  tables.reserve(3);
  std::time_t newest = 0;
  for (const char* cloud : {"gcp", "aws", "lambda"}) {
    const std::string file = std::string(cloud) + "/vms.csv";
    const std::string path = (fs::path(dir) / file).string();
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) continue;
    tables.push_back(readCsv(path, file));
    const CsvTable& t = tables.back();
    rejectRepeatedRows(t);
    if (std::string(cloud) == "gcp") gcpOffers(t, cands, imp.skipped);
    else awsOrLambdaOffers(cloud, t, cands, imp.skipped);
    imp.files.push_back({cloud, file, static_cast<int>(t.rows.size()), isoTime(st.st_mtime)});
    newest = std::max(newest, st.st_mtime);
  }
  if (imp.files.empty())
    throw InputError(dir, "a directory without gcp/vms.csv, aws/vms.csv or lambda/vms.csv",
                     "a SkyPilot catalogue directory (~/.sky/catalogs/v7) with at least one of "
                     "them");
  imp.offers = dropDuplicates(std::move(cands), imp.skipped);
  // Skipped rows in file order, then line order.
  std::map<std::string, size_t> file_order;
  for (const auto& f : imp.files) file_order.emplace(f.file, file_order.size());
  std::stable_sort(imp.skipped.begin(), imp.skipped.end(), [&](const auto& a, const auto& b) {
    const size_t fa = file_order[a.file], fb = file_order[b.file];
    return fa != fb ? fa < fb : a.line < b.line;
  });
  std::string clouds;
  for (const auto& f : imp.files) clouds += (clouds.empty() ? "" : ", ") + f.cloud;
  imp.source = "SkyPilot catalogues (" + clouds + ") in " + dir;
  imp.date = date ? *date : isoTime(newest);
  return imp;
}

PriceSheet priceSheetFrom(const SkyPilotImport& import) {
  PriceSheet sheet;
  sheet.setOffers(import.offers, import.source, import.date);
  return sheet;
}

SkyPilotImport importSkyPilotPriceSheet(const std::string& dir, const std::string& sheet_path,
                                        const std::optional<std::string>& date) {
  SkyPilotImport imp = importSkyPilotCatalogs(dir, date);
  priceSheetFrom(imp).save(sheet_path);
  return imp;
}

}  // namespace sailor
