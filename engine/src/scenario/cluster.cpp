// The cluster description: reading (strict), writing and resolving the plan's pools against it.
// Declared in sailor/scenario/cluster.hpp; the format is in docs/formats.md, "Cluster description".
//
// Map:
//   checkSlurmWord, checkTimeLimit, checkDnsLabel,  what a #SBATCH line, a manifest or a shell
//   checkLabelKey, checkLabelValue, checkImage,      line can carry: every name is checked
//   checkInterface                                   here, so that the generators quote nothing
//   slurmFromJson, kubernetesFromJson, poolFromJson  one section each
//   Cluster::fromJson, toJson, find
//   resolve                                          the plan's pools, defaults applied
#include "sailor/scenario/cluster.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/runs/run_spec.hpp"

namespace sailor {

using nlohmann::json;
namespace ju = json_util;

namespace {

std::string quoted(const std::string& s) {
  return "\"" + ju::truncateUtf8(s, 60) + "\"";
}

bool allOf(const std::string& s, const std::string& extra) {
  return std::all_of(s.begin(), s.end(), [&](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x80 && std::isalnum(u)) || extra.find(c) != std::string::npos;
  });
}

// Names that go into `#SBATCH --option=value` lines: no spaces, quotes or shell characters, so
// that a value cannot add an option or end the line. Constraints may also use Slurm's operators.
void checkSlurmWord(const std::string& v, const std::string& field, bool constraint = false) {
  const std::string extra = constraint ? "._:+@/=,-&|*()[]!" : "._:+@/=,-";
  if (v.empty() || v.size() > 256 || !allOf(v, extra))
    throw InputError(
        field, quoted(v),
        std::string("a Slurm name of letters, digits and ") + extra + " (at most 256 bytes)");
}

void checkTimeLimit(const std::string& v, const std::string& field) {
  static const std::regex kForm(R"(\d{1,6}(:\d{1,2}){0,2}|\d{1,4}-\d{1,2}(:\d{1,2}){0,2})");
  if (!std::regex_match(v, kForm))
    throw InputError(field, quoted(v),
                     "a Slurm time limit: minutes, M:S, H:M:S, D-H, D-H:M or D-H:M:S");
}

// RFC 1123 label (Kubernetes namespaces and object names): lower-case letters, digits and '-',
// starting and ending with a letter or digit.
void checkDnsLabel(const std::string& v, const std::string& field, std::size_t max) {
  static const std::regex kLabel("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  if (v.size() > max || !std::regex_match(v, kLabel))
    throw InputError(field, quoted(v),
                     "a DNS label: lower-case letters, digits and '-', starting and ending with "
                     "a letter or digit, at most " +
                         std::to_string(max) + " bytes");
}

const std::regex& labelName() {
  static const std::regex kName("([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?");
  return kName;
}

// A label key: [prefix/]name, the prefix a DNS subdomain (<= 253), the name <= 63 bytes.
void checkLabelKey(const std::string& v, const std::string& field) {
  static const std::regex kPrefix(
      "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  const auto slash = v.find('/');
  const std::string prefix = slash == std::string::npos ? "" : v.substr(0, slash);
  const std::string name = slash == std::string::npos ? v : v.substr(slash + 1);
  const bool ok =
      !name.empty() && name.size() <= 63 && std::regex_match(name, labelName()) &&
      (slash == std::string::npos || (prefix.size() <= 253 && std::regex_match(prefix, kPrefix)));
  if (!ok)
    throw InputError(field, quoted(v),
                     "a Kubernetes label key: [prefix/]name, the name of at most 63 letters, "
                     "digits, '-', '_' or '.', the prefix a DNS subdomain");
}

void checkLabelValue(const std::string& v, const std::string& field) {
  if (v.size() > 63 || !std::regex_match(v, labelName()))
    throw InputError(field, quoted(v),
                     "a Kubernetes label value: at most 63 letters, digits, '-', '_' or '.', "
                     "starting and ending with a letter or digit");
}

void checkImage(const std::string& v, const std::string& field) {
  if (v.empty() || v.size() > 512 || !allOf(v, "._:/@+-"))
    throw InputError(field, quoted(v),
                     "an image reference of letters, digits and ._:/@+- (at most 512 bytes)");
}

// A network interface name as the kernel takes it (IFNAMSIZ: at most 15 bytes).
void checkInterface(const std::string& v, const std::string& field) {
  if (v.empty() || v.size() > 15 || !allOf(v, "._-"))
    throw InputError(field, quoted(v),
                     "an interface name (letters, digits, '.', '_', '-'; at most 15 bytes)");
}

std::string fieldOf(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

// An optional string field checked by `check` when present.
template <typename Check>
std::string optionalString(const json& obj, const std::string& key, const std::string& path,
                           Check check) {
  const std::string v = ju::getStringOr(obj, key, path, "");
  if (obj.contains(key)) check(v, fieldOf(path, key));
  return v;
}

SlurmPool slurmFromJson(const json& j, const std::string& path) {
  ju::rejectUnknownKeys(j, {"partition", "gres_type", "constraint", "account", "qos"}, path);
  auto word = [](const std::string& v, const std::string& f) { checkSlurmWord(v, f); };
  SlurmPool s;
  s.partition = optionalString(j, "partition", path, word);
  s.gres_type = optionalString(j, "gres_type", path, word);
  s.constraint = optionalString(
      j, "constraint", path,
      [](const std::string& v, const std::string& f) { checkSlurmWord(v, f, true); });
  s.account = optionalString(j, "account", path, word);
  s.qos = optionalString(j, "qos", path, word);
  return s;
}

KubernetesPool kubernetesFromJson(const json& j, const std::string& path) {
  ju::rejectUnknownKeys(j, {"node_selector", "namespace", "image"}, path);
  KubernetesPool k;
  if (j.contains("node_selector")) {
    const std::string sp = fieldOf(path, "node_selector");
    ju::requireObject(j.at("node_selector"), sp);
    for (auto it = j.at("node_selector").begin(); it != j.at("node_selector").end(); ++it) {
      const std::string f = sp + "." + it.key();
      checkLabelKey(it.key(), f);
      if (!it.value().is_string())
        throw InputError(f, ju::describe(it.value()), "a label value (a string)");
      checkLabelValue(it.value().get<std::string>(), f);
      k.node_selector[it.key()] = it.value().get<std::string>();
    }
  }
  k.namespace_name =
      optionalString(j, "namespace", path,
                     [](const std::string& v, const std::string& f) { checkDnsLabel(v, f, 63); });
  k.image = optionalString(j, "image", path, checkImage);
  return k;
}

PoolMapping poolFromJson(const json& j, const std::string& path) {
  ju::rejectUnknownKeys(j, {"zone", "gpu_type", "gpus_per_node", "slurm", "kubernetes"}, path);
  PoolMapping p;
  p.zone = ju::getString(j, "zone", path);
  p.gpu_type = ju::getString(j, "gpu_type", path);
  if (j.contains("gpus_per_node")) {
    p.gpus_per_node = ju::getInt32(j, "gpus_per_node", path, 1);
    if (*p.gpus_per_node > kMaxGpuCount)
      throw InputError(fieldOf(path, "gpus_per_node"), std::to_string(*p.gpus_per_node),
                       "an integer from 1 to " + std::to_string(kMaxGpuCount));
  }
  if (j.contains("slurm")) p.slurm = slurmFromJson(j.at("slurm"), fieldOf(path, "slurm"));
  if (j.contains("kubernetes"))
    p.kubernetes = kubernetesFromJson(j.at("kubernetes"), fieldOf(path, "kubernetes"));
  return p;
}

json slurmJson(const SlurmPool& s) {
  json j = json::object();
  if (!s.partition.empty()) j["partition"] = s.partition;
  if (!s.gres_type.empty()) j["gres_type"] = s.gres_type;
  if (!s.constraint.empty()) j["constraint"] = s.constraint;
  if (!s.account.empty()) j["account"] = s.account;
  if (!s.qos.empty()) j["qos"] = s.qos;
  return j;
}

}  // namespace

Cluster Cluster::fromJson(const json& j) {
  ju::rejectUnknownKeys(
      j, {"name", "network_interface", "rendezvous_port", "slurm", "kubernetes", "pools"}, "");
  Cluster c;
  c.name = ju::getString(j, "name", "");
  checkDnsLabel(c.name, "name", 40);
  c.network_interface = optionalString(j, "network_interface", "", checkInterface);
  c.rendezvous_port = ju::getInt32Or(j, "rendezvous_port", "", 1, kDefaultRendezvousPort);
  if (c.rendezvous_port > 65534)  // torchrun exports use the next port too
    throw InputError("rendezvous_port", std::to_string(c.rendezvous_port),
                     "a TCP port from 1 to 65534");
  if (j.contains("slurm")) {
    const json& s = j.at("slurm");
    ju::rejectUnknownKeys(s, {"partition", "account", "qos", "time_limit"}, "slurm");
    auto word = [](const std::string& v, const std::string& f) { checkSlurmWord(v, f); };
    c.slurm.partition = optionalString(s, "partition", "slurm", word);
    c.slurm.account = optionalString(s, "account", "slurm", word);
    c.slurm.qos = optionalString(s, "qos", "slurm", word);
    c.slurm.time_limit = optionalString(s, "time_limit", "slurm", checkTimeLimit);
  }
  if (j.contains("kubernetes")) {
    const json& k = j.at("kubernetes");
    ju::rejectUnknownKeys(k, {"namespace", "image"}, "kubernetes");
    c.kubernetes.namespace_name =
        optionalString(k, "namespace", "kubernetes",
                       [](const std::string& v, const std::string& f) { checkDnsLabel(v, f, 63); });
    if (c.kubernetes.namespace_name.empty()) c.kubernetes.namespace_name = "default";
    c.kubernetes.image = optionalString(k, "image", "kubernetes", checkImage);
  }
  const json& pools = ju::require(j, "pools", "");
  ju::requireArray(pools, "pools");
  std::map<std::pair<std::string, std::string>, std::size_t> seen;
  for (std::size_t i = 0; i < pools.size(); ++i) {
    const std::string path = "pools[" + std::to_string(i) + "]";
    c.pools.push_back(poolFromJson(pools[i], path));
    const auto [it, fresh] =
        seen.emplace(std::pair(c.pools.back().zone, c.pools.back().gpu_type), i);
    if (!fresh)
      throw InputError(path,
                       "a second mapping of pool " + c.pools.back().zone + "/" +
                           c.pools.back().gpu_type + " (first: pools[" +
                           std::to_string(it->second) + "])",
                       "one mapping per pool (zone and GPU type)");
  }
  return c;
}

json Cluster::toJson() const {
  json j{{"name", name}, {"rendezvous_port", rendezvous_port}};
  if (!network_interface.empty()) j["network_interface"] = network_interface;
  json s = json::object();
  if (!slurm.partition.empty()) s["partition"] = slurm.partition;
  if (!slurm.account.empty()) s["account"] = slurm.account;
  if (!slurm.qos.empty()) s["qos"] = slurm.qos;
  if (!slurm.time_limit.empty()) s["time_limit"] = slurm.time_limit;
  j["slurm"] = s;
  json k{{"namespace", kubernetes.namespace_name}};
  if (!kubernetes.image.empty()) k["image"] = kubernetes.image;
  j["kubernetes"] = k;
  j["pools"] = json::array();
  for (const PoolMapping& p : pools) {
    json pj{{"zone", p.zone}, {"gpu_type", p.gpu_type}};
    if (p.gpus_per_node) pj["gpus_per_node"] = *p.gpus_per_node;
    pj["slurm"] = slurmJson(p.slurm);
    json kj = json::object();
    if (!p.kubernetes.node_selector.empty()) kj["node_selector"] = p.kubernetes.node_selector;
    if (!p.kubernetes.namespace_name.empty()) kj["namespace"] = p.kubernetes.namespace_name;
    if (!p.kubernetes.image.empty()) kj["image"] = p.kubernetes.image;
    pj["kubernetes"] = kj;
    j["pools"].push_back(pj);
  }
  return j;
}

const PoolMapping* Cluster::find(const std::string& zone, const std::string& gpu_type) const {
  for (const PoolMapping& p : pools)
    if (p.zone == zone && p.gpu_type == gpu_type) return &p;
  return nullptr;
}

std::vector<ResolvedPool> resolve(const Cluster& cluster, const Scenario& scenario,
                                  const Catalog& catalog, const Plan& plan,
                                  const std::string& cluster_file) {
  std::vector<ResolvedPool> out;
  std::set<std::pair<std::string, std::string>> done;
  for (const RankPlacement& r : placeRanks(plan)) {
    if (!done.emplace(r.zone, r.gpu_type).second) continue;
    const PoolMapping* m = cluster.find(r.zone, r.gpu_type);
    if (!m)
      throw InputError(cluster_file, "no mapping for pool " + r.zone + "/" + r.gpu_type,
                       "an entry of pools with zone \"" + r.zone + "\" and gpu_type \"" +
                           r.gpu_type + "\" (every pool the plan uses needs one)");
    ResolvedPool p;
    p.zone = r.zone;
    p.gpu_type = r.gpu_type;
    p.gpus_per_node = m->gpus_per_node.value_or(scenario.gpusPerNode(r.zone, r.gpu_type, catalog));
    p.slurm = m->slurm;
    if (p.slurm.partition.empty()) p.slurm.partition = cluster.slurm.partition;
    if (p.slurm.account.empty()) p.slurm.account = cluster.slurm.account;
    if (p.slurm.qos.empty()) p.slurm.qos = cluster.slurm.qos;
    p.kubernetes = m->kubernetes;
    if (p.kubernetes.namespace_name.empty())
      p.kubernetes.namespace_name = cluster.kubernetes.namespace_name;
    if (p.kubernetes.image.empty()) p.kubernetes.image = cluster.kubernetes.image;
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace sailor
