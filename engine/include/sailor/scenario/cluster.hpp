// Cluster description: where the pools of a scenario (zone + GPU type) live in a scheduler.
// For Slurm a pool is a partition (with a GRES type, constraint, account, QoS); for Kubernetes
// a node pool chosen by a node selector, in a namespace, running an image. `sailor export`
// (launch_export.hpp) and the cluster launchers read it; docs/formats.md, "Cluster description".
// Valid by construction: Cluster::fromJson checks every field and throws InputError naming it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/model/catalog.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/scenario/scenario.hpp"

namespace sailor {

// Slurm resources of one pool. Empty strings are "not given": the cluster's defaults apply, and
// an option with no value anywhere is left out of the script (Slurm's own default).
struct SlurmPool {
  std::string partition;
  std::string gres_type;  // the GPU's GRES type: --gres=gpu:<type>:N; empty: --gres=gpu:N
  std::string constraint;
  std::string account;
  std::string qos;
  bool operator==(const SlurmPool&) const = default;
};

// Kubernetes placement of one pool: node labels that select its nodes (zone and GPU product),
// the namespace and the image its pods run in. Empty namespace or image: the cluster's default.
struct KubernetesPool {
  std::map<std::string, std::string> node_selector;
  std::string namespace_name;
  std::string image;
  bool operator==(const KubernetesPool&) const = default;
};

struct PoolMapping {
  std::string zone;
  std::string gpu_type;
  std::optional<int> gpus_per_node;  // default: the scenario's (then the catalogue's) node size
  SlurmPool slurm;
  KubernetesPool kubernetes;
  bool operator==(const PoolMapping&) const = default;
};

struct ClusterSlurmDefaults {
  std::string partition;
  std::string account;
  std::string qos;
  std::string time_limit;  // Slurm's forms: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S
  bool operator==(const ClusterSlurmDefaults&) const = default;
};

struct ClusterKubernetesDefaults {
  std::string namespace_name = "default";
  std::string image;
  bool operator==(const ClusterKubernetesDefaults&) const = default;
};

inline constexpr int kDefaultRendezvousPort = 29500;

struct Cluster {
  std::string name;               // names the job and its objects: a DNS label of <= 40 bytes
  std::string network_interface;  // the interface cluster runs use (NCCL/Gloo, the rendezvous)
  int rendezvous_port = kDefaultRendezvousPort;
  ClusterSlurmDefaults slurm;
  ClusterKubernetesDefaults kubernetes;
  std::vector<PoolMapping> pools;

  // Strict: unknown keys, wrong types, counts below 1, names a script or manifest could not
  // carry and two mappings of one pool are InputErrors naming the field.
  static Cluster fromJson(const nlohmann::json& j);
  nlohmann::json toJson() const;
  const PoolMapping* find(const std::string& zone, const std::string& gpu_type) const;
  bool operator==(const Cluster&) const = default;
};

// A pool of the plan with its scheduler resources, the cluster's defaults applied.
struct ResolvedPool {
  std::string zone;
  std::string gpu_type;
  int gpus_per_node = 0;
  SlurmPool slurm;  // partition, account, qos filled from the defaults where the pool has none
  KubernetesPool kubernetes;  // namespace and image likewise
  std::string label() const { return zone + "/" + gpu_type; }
};

// The pools the plan uses, in the order of their first rank (placeRanks), each with its mapping.
// A pool without one is an InputError naming it and `cluster_file` ("no mapping for pool
// us-central1-a/A100-40 in cluster.json"). The plan is assumed valid against the scenario.
std::vector<ResolvedPool> resolve(const Cluster& cluster, const Scenario& scenario,
                                  const Catalog& catalog, const Plan& plan,
                                  const std::string& cluster_file);

}  // namespace sailor
