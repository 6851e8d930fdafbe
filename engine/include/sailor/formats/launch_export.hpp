// A plan's launch on a cluster: which node of which pool runs each rank (LaunchLayout), and the
// files a scheduler takes to start it (`sailor export`): a heterogeneous Slurm job script,
// torchrun command lines per host, Kubernetes manifests. docs/launch.md, "Exports".
//
// Every format starts one sailor-worker per rank with the options the worker reads (--spec,
// --rank, --store HOST:PORT, --generation), the rank taken from a table the file carries, keyed
// by where the scheduler put the task (Slurm's het group and task id, torchrun's node rank and
// local rank, the Kubernetes pool and completion index), and the task bound to one GPU.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/planning/plan.hpp"
#include "sailor/runs/run_spec.hpp"
#include "sailor/scenario/cluster.hpp"

namespace sailor {

// One pool's share of the launch: its nodes, each with the ranks it runs by local GPU index
// (rank nodes[n][g] on GPU g of node n). Every tensor-parallel group lies inside one node.
struct PoolLaunch {
  ResolvedPool pool;
  std::vector<std::vector<int>> nodes;
  int tasks_per_node = 0;  // the most ranks one node of the pool runs

  int ranks() const;
  // The pool's task slots as a scheduler numbers them when it puts tasks_per_node tasks on each
  // node in turn (Slurm's block distribution): slot i is node i / tasks_per_node, GPU
  // i % tasks_per_node, holding a rank or -1 for an idle slot (a node before the last one that
  // runs fewer ranks than tasks_per_node). The last node's slots end with its last rank.
  std::vector<int> taskSlots() const;
};

struct LaunchLayout {
  std::vector<RankPlacement> ranks;  // placeRanks(plan): rank r at index r
  std::vector<PoolLaunch> pools;     // in the order of their first rank: rank 0 is on GPU 0 of
                                     // node 0 of pools[0], where the rendezvous is
  int worldSize() const { return static_cast<int>(ranks.size()); }
};

// Packs each pool's replicas into nodes of pool.gpus_per_node GPUs: the pool's first replica
// (for pools[0], rank 0's) on node 0, then the others by decreasing tp, each into the first node
// with room (first fit decreasing), ranks sorted within a node. A replica whose tp exceeds the
// pool's GPUs per node is an InputError naming the stage and replica (`cluster_file` says where
// the node size came from). `pools`: resolve(...) of the same plan.
LaunchLayout layoutLaunch(const Plan& plan, const std::vector<ResolvedPool>& pools,
                          const std::string& cluster_file);

enum class ExportFormat { Slurm, Torchrun, Kubernetes };
// "slurm", "torchrun", "kubernetes"; none for another name.
std::optional<ExportFormat> exportFormatFromName(const std::string& name);

struct ExportFile {
  std::string name;  // file name inside --output DIR
  std::string text;
};

// The run's files for `format`: deterministic text (the same inputs give the same bytes).
//  - slurm: sailor.sbatch, one heterogeneous job (one component per pool).
//  - torchrun: hosts.txt (the host list, with each host's command line) and sailor-torchrun.sh.
//  - kubernetes: sailor.yaml (ConfigMap, headless Service, one indexed Job per pool).
// `spec` is the run spec the workers read (RunSpec::toJson). Throws InputError for a pool that
// lacks what the format needs (a Slurm partition, a Kubernetes image or node selector), naming
// the pool.
std::vector<ExportFile> exportLaunch(ExportFormat format, const Cluster& cluster,
                                     const LaunchLayout& layout, const nlohmann::json& spec);

// What `sailor run --launcher slurm` changes in the Slurm script (NOTE [Slurm run script] in
// launch_export.cpp).
struct SlurmRunOptions {
  std::string run_dir;     // absolute: spec, token, rendezvous and events files
  std::string worker;      // absolute path of sailor-worker on the cluster's nodes
  std::string time_limit;  // overrides the cluster's when not empty
  bool gpus = true;        // false: CPU workers (Gloo): no GRES, tasks share cores
  // An elastic run (sailor run --elastic): the controller takes a worker's end and a node's loss
  // (no task's failure stops the others; --no-kill keeps the job when a node fails), and a
  // preemption notice (SIGTERM, SIGUSR1) reaches the worker alone (--notice), not rank.sh.
  bool elastic = false;
  // > 0: the workers checkpoint every N iterations into <run_dir>/checkpoints (docs/checkpoints.md:
  // replica 0's workers write their shards there, the controller the manifests).
  int checkpoint_every = 0;
};
std::string slurmRunScript(const Cluster& cluster, const LaunchLayout& layout,
                           const nlohmann::json& spec, const SlurmRunOptions& options);

// The Kubernetes objects of an export, in order (the YAML of sailor.yaml is written from them).
std::vector<nlohmann::ordered_json> kubernetesObjects(const Cluster& cluster,
                                                      const LaunchLayout& layout,
                                                      const nlohmann::json& spec);

// YAML text of one object (block style; strings of several lines as literal blocks, others
// double-quoted). Parsed back by any YAML 1.2 reader to the same object.
std::string toYaml(const nlohmann::ordered_json& value);

}  // namespace sailor
