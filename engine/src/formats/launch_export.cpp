// A plan's launch on a cluster: the layout of ranks on nodes, and the Slurm, torchrun and
// Kubernetes files that start it. Declared in sailor/formats/launch_export.hpp; docs/launch.md,
// "Exports".
//
// Map:
//   PoolLaunch::ranks, taskSlots, layoutLaunch   ranks onto nodes: tp groups inside a node
//   exportFormatFromName
//   bashArray, gpuBinding, workerExec, ...       shell pieces every format shares
//   slurmScript                                  one heterogeneous job, one component per pool
//   torchrunFiles                                hosts.txt and the per-host launch script
//   podScript, kubernetesObjects                 ConfigMap, headless Service, indexed Jobs
//   yamlScalar, emitYaml, toYaml                 block-style YAML of the objects
//   exportLaunch
//
// NOTE [One rank table] Every format carries the rank of each task as a table written here,
// keyed by what the scheduler tells a task about its place, because the plan's rank order
// (stage-major, placeRanks) interleaves pools: the ranks of one pool are not contiguous, so no
// scheduler's own task numbering can be the rank. The table is the only place ranks are mapped.
#include "sailor/formats/launch_export.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>
#include <set>

#include "sailor/core/error.hpp"

namespace sailor {

using nlohmann::json;
using nlohmann::ordered_json;

int PoolLaunch::ranks() const {
  int n = 0;
  for (const auto& node : nodes) n += static_cast<int>(node.size());
  return n;
}

std::vector<int> PoolLaunch::taskSlots() const {
  std::vector<int> slots;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    slots.insert(slots.end(), nodes[n].begin(), nodes[n].end());
    if (n + 1 < nodes.size()) slots.resize(slots.size() + (tasks_per_node - nodes[n].size()), -1);
  }
  return slots;
}

LaunchLayout layoutLaunch(const Plan& plan, const std::vector<ResolvedPool>& pools,
                          const std::string& cluster_file) {
  LaunchLayout layout;
  layout.ranks = placeRanks(plan);
  // A replica: its stage and index, its ranks (consecutive, tp of them).
  struct Group {
    int stage, replica;
    std::vector<int> ranks;
  };
  std::map<std::string, std::vector<Group>> groups;  // by pool label
  for (const RankPlacement& r : layout.ranks) {
    auto& g = groups[r.zone + "/" + r.gpu_type];
    if (r.tp_rank == 0) g.push_back(Group{r.stage, r.replica, {}});
    g.back().ranks.push_back(r.rank);
  }
  for (const ResolvedPool& pool : pools) {
    PoolLaunch pl;
    pl.pool = pool;
    std::vector<Group> todo = groups[pool.label()];
    for (const Group& g : todo)
      if (static_cast<int>(g.ranks.size()) > pool.gpus_per_node)
        throw InputError("stages[" + std::to_string(g.stage) + "].replicas[" +
                             std::to_string(g.replica) + "].tp",
                         std::to_string(g.ranks.size()),
                         "at most the " + std::to_string(pool.gpus_per_node) +
                             " GPUs per node of pool " + pool.label() + " (" + cluster_file +
                             "): a tensor-parallel group runs inside one node");
    // The first replica stays first (rank 0 on GPU 0 of node 0 for the first pool); the
    // others by decreasing tp, stable, which packs power-of-two groups without gaps.
    if (!todo.empty())
      std::stable_sort(todo.begin() + 1, todo.end(), [](const Group& a, const Group& b) {
        return a.ranks.size() > b.ranks.size();
      });
    for (const Group& g : todo) {
      auto node = std::find_if(pl.nodes.begin(), pl.nodes.end(), [&](const auto& n) {
        return static_cast<int>(n.size() + g.ranks.size()) <= pool.gpus_per_node;
      });
      if (node == pl.nodes.end()) node = pl.nodes.insert(pl.nodes.end(), std::vector<int>{});
      node->insert(node->end(), g.ranks.begin(), g.ranks.end());
    }
    for (auto& n : pl.nodes) {
      std::sort(n.begin(), n.end());
      pl.tasks_per_node = std::max(pl.tasks_per_node, static_cast<int>(n.size()));
    }
    layout.pools.push_back(std::move(pl));
  }
  return layout;
}

std::optional<ExportFormat> exportFormatFromName(const std::string& name) {
  if (name == "slurm") return ExportFormat::Slurm;
  if (name == "torchrun") return ExportFormat::Torchrun;
  if (name == "kubernetes") return ExportFormat::Kubernetes;
  return std::nullopt;
}

namespace {

std::string bashArray(const std::vector<int>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + std::to_string(v[i]);
  return s + ")";
}

std::string rankList(const std::vector<int>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] >= 0) s += (s.empty() ? "" : " ") + std::to_string(v[i]);
  return s;
}

// Binds the task to GPU `slot` of its node: the slot-th of the GPUs the scheduler shows it, the
// one it shows when it shows one (already bound), else device `slot`.
std::string gpuBinding(const std::string& slot) {
  return "IFS=, read -r -a gpus <<< \"${CUDA_VISIBLE_DEVICES:-}\"\n"
         "if (( ${#gpus[@]} > " +
         slot +
         " )); then\n"
         "  export CUDA_VISIBLE_DEVICES=\"${gpus[" +
         slot +
         "]}\"\n"
         "elif (( ${#gpus[@]} == 0 )); then\n"
         "  export CUDA_VISIBLE_DEVICES=\"" +
         slot +
         "\"\n"
         "fi\n";
}

// The worker's command: the options sailor-worker reads (worker_main.cpp); the token comes by
// SAILOR_RUN_TOKEN_FILE, never on the command line.
std::string workerExec(const std::string& store) {
  return "exec \"${SAILOR_WORKER:-sailor-worker}\" --spec \"$SAILOR_RUN_DIR/spec.json\" "
         "--rank \"$rank\" --store \"" +
         store + "\" --generation 0\n";
}

// Writes the spec into the run directory (a quoted here-document: nothing in it is expanded).
std::string specHereDoc(const json& spec, const std::string& path) {
  return "cat > \"" + path + "\" <<'SAILOR_SPEC_EOF'\n" + spec.dump(2) + "\nSAILOR_SPEC_EOF\n";
}

// SAILOR_CLUSTER_RUN: the workers' Gloo binds the cluster's interface, not loopback (comm.cpp).
std::string networkExports(const Cluster& cluster) {
  std::string s = "export OMP_NUM_THREADS=1 SAILOR_CLUSTER_RUN=1\n";
  if (!cluster.network_interface.empty())
    s += "export NCCL_SOCKET_IFNAME=" + cluster.network_interface +
         " GLOO_SOCKET_IFNAME=" + cluster.network_interface +
         " SAILOR_IFNAME=" + cluster.network_interface + "\n";
  return s;
}

// Waits for every background launch; the first that fails stops the others (their ranks would
// only wait for the failed ones until the collective timeout).
constexpr const char* kWaitAll =
    "status=0\n"
    "for _ in \"${pids[@]}\"; do\n"
    "  if ! wait -n; then\n"
    "    status=1\n"
    "    kill \"${pids[@]}\" 2>/dev/null || true\n"
    "  fi\n"
    "done\n"
    "exit \"$status\"\n";

// Waits for every background launch, whatever each ends with, then for the job's other steps
// (an elastic run's workers that joined later run as steps of their own, which the job's end
// would kill); fails when a launch failed.
constexpr const char* kWaitEach =
    "status=0\n"
    "for pid in \"${pids[@]}\"; do\n"
    "  wait \"$pid\" || status=1\n"
    "done\n"
    "while squeue -h -s -j \"$SLURM_JOB_ID\" -o %i 2>/dev/null |\n"
    "    grep -qv -e '\\.batch$' -e '\\.extern$'; do\n"
    "  sleep 1\n"
    "done\n"
    "exit \"$status\"\n";

// s in single quotes for bash ('\'' for a quote inside).
std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string plural(int n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

void requireSlurm(const ResolvedPool& p) {
  if (p.slurm.partition.empty())
    throw InputError("pool " + p.label(), "no Slurm partition",
                     "slurm.partition in the pool's mapping or in the cluster's slurm defaults");
}

// The script of `sailor export --format slurm` (run == nullptr) or of `sailor run --launcher
// slurm` (run: NOTE [Slurm run script]).
std::string slurmScript(const Cluster& cluster, const LaunchLayout& layout, const json& spec,
                        const SlurmRunOptions* run = nullptr) {
  const std::string world = std::to_string(layout.worldSize());
  std::string s = "#!/bin/bash\n";
  // A job of one component is not heterogeneous: Slurm sets no _HET_GROUP_ variables for it
  // and refuses srun --het-group there.
  const bool het = layout.pools.size() > 1;
  s += std::string("# Sailor Studio: ") +
       (het ? "a heterogeneous Slurm job (one component per pool)" : "a Slurm job") +
       " for cluster " + cluster.name + ", written by " +
       (run ? "`sailor run --launcher slurm`" : "`sailor export --format slurm`") + ".\n";
  s += "# " + plural(layout.worldSize(), "rank") +
       ", one task per GPU; rank 0 and the rendezvous on " +
       (het ? "the first node of component 0.\n" : "the first node.\n");
  if (!run)
    s += "# Submit with `sbatch sailor.sbatch` from a directory on the shared file system (the "
         "run\n# directory, with the spec and the token, is created there; SAILOR_RUN_DIR "
         "overrides).\n";
  for (std::size_t i = 0; i < layout.pools.size(); ++i) {
    const PoolLaunch& pl = layout.pools[i];
    s += "#   component " + std::to_string(i) + ": " + pl.pool.label() + ", " +
         plural(static_cast<int>(pl.nodes.size()), "node") + ", ranks " + rankList(pl.taskSlots()) +
         "\n";
  }
  for (std::size_t i = 0; i < layout.pools.size(); ++i) {
    const PoolLaunch& pl = layout.pools[i];
    const ResolvedPool& p = pl.pool;
    requireSlurm(p);
    if (i > 0) s += "#SBATCH hetjob\n";
    if (i == 0) s += "#SBATCH --job-name=sailor-" + cluster.name + "\n";
    if (i == 0 && run && run->elastic) s += "#SBATCH --no-kill\n";
    const std::string time_limit =
        run && !run->time_limit.empty() ? run->time_limit : cluster.slurm.time_limit;
    if (!time_limit.empty()) s += "#SBATCH --time=" + time_limit + "\n";
    s += "#SBATCH --partition=" + p.slurm.partition + "\n";
    if (!p.slurm.account.empty()) s += "#SBATCH --account=" + p.slurm.account + "\n";
    if (!p.slurm.qos.empty()) s += "#SBATCH --qos=" + p.slurm.qos + "\n";
    if (!p.slurm.constraint.empty()) s += "#SBATCH --constraint=" + p.slurm.constraint + "\n";
    s += "#SBATCH --nodes=" + std::to_string(pl.nodes.size()) + "\n";
    s += "#SBATCH --ntasks=" + std::to_string(pl.taskSlots().size()) + "\n";
    if (run && !run->gpus) {
      // CPU workers share the node's cores as a local run's do; Slurm refuses more tasks per
      // node than CPUs even with --overcommit, so one node's pool leaves the count to it.
      s += "#SBATCH --overcommit\n";
      if (pl.nodes.size() > 1)
        s += "#SBATCH --ntasks-per-node=" + std::to_string(pl.tasks_per_node) + "\n";
      continue;
    }
    s += "#SBATCH --ntasks-per-node=" + std::to_string(pl.tasks_per_node) + "\n";
    s += "#SBATCH --gres=gpu:" + (p.slurm.gres_type.empty() ? "" : p.slurm.gres_type + ":") +
         std::to_string(pl.tasks_per_node) + "\n";
  }
  s += "set -euo pipefail\n";
  if (run)
    s += "export SAILOR_RUN_DIR=" + shellQuote(run->run_dir) + "\n" +
         "export SAILOR_WORKER=" + shellQuote(run->worker) + "\n";
  else
    s += "export SAILOR_RUN_DIR=\"${SAILOR_RUN_DIR:-${SLURM_SUBMIT_DIR:-$PWD}/sailor-run-"
         "${SLURM_JOB_ID}}\"\n";
  s += "umask 077\nmkdir -p \"$SAILOR_RUN_DIR\"\n";
  s += specHereDoc(spec, "$SAILOR_RUN_DIR/spec.json");
  s += "# The run's token: a file only this user can read, passed by its path in the environment,\n"
       "# never on a command line.\n";
  s += "if [[ ! -s \"$SAILOR_RUN_DIR/token\" ]]; then\n"
       "  od -An -N32 -tx1 /dev/urandom | tr -d ' \\n' > \"$SAILOR_RUN_DIR/token\"\n"
       "fi\n";
  s += "export SAILOR_RUN_TOKEN_FILE=\"$SAILOR_RUN_DIR/token\"\n";
  s += std::string("rendezvous_host=\"$(scontrol show hostnames \"") +
       (het ? "$SLURM_JOB_NODELIST_HET_GROUP_0" : "$SLURM_JOB_NODELIST") + "\" | head -n1)\"\n";
  // Rank 0 hosts the token-checked rendezvous store on the first node (NOTE [Slurm run
  // script]); sailor run's jobs let the kernel pick its port and publish it in the run directory.
  s += "export SAILOR_STORE=\"${rendezvous_host}:" +
       (run ? std::string("0") : std::to_string(cluster.rendezvous_port)) + "\"\n";
  s += "export SAILOR_WORLD_SIZE=" + world + "\n";
  s += networkExports(cluster);
  s += "cat > \"$SAILOR_RUN_DIR/rank.sh\" <<'SAILOR_RANK_EOF'\n";
  s += "#!/bin/bash\n";
  s += "# One task: its rank from its component ($1) and task id, its GPU from its local id.\n";
  s += "set -euo pipefail\n";
  s += "case \"$1\" in\n";
  for (std::size_t i = 0; i < layout.pools.size(); ++i)
    s += "  " + std::to_string(i) + ") slots=" + bashArray(layout.pools[i].taskSlots()) + " ;;\n";
  s += "  *) echo \"rank.sh: no component $1\" >&2; exit 2 ;;\n";
  s += "esac\n";
  s += "rank=\"${slots[$SLURM_PROCID]}\"\n";
  s += "if (( rank < 0 )); then exit 0; fi  # an idle slot: its node runs fewer ranks\n";
  s += gpuBinding("$SLURM_LOCALID");
  s += "export RANK=\"$rank\" LOCAL_RANK=\"$SLURM_LOCALID\" WORLD_SIZE=\"$SAILOR_WORLD_SIZE\"\n";
  if (run) {
    s += "mkdir -p \"$SAILOR_RUN_DIR/events\"\n";
    s += "events=\"$SAILOR_RUN_DIR/events/rank-$rank\"\n";
    s += "set +e\n";
    if (run->elastic)
      s +=
          "trap '' TERM USR1  # a preemption notice is the worker's (--notice), not this shell's\n";
    s += "\"$SAILOR_WORKER\" --spec \"$SAILOR_RUN_DIR/spec.json\" --rank \"$rank\" --store "
         "\"$SAILOR_STORE\" --store-address \"$SAILOR_RUN_DIR/rendezvous.address\" "
         "--generation 0" +
         std::string(run->elastic ? " --notice" : "") +
         (run->checkpoint_every > 0
              ? " --checkpoint-dir \"$SAILOR_RUN_DIR/checkpoints\" --checkpoint-every " +
                    std::to_string(run->checkpoint_every)
              : std::string()) +
         " >>\"$events.jsonl\" 2>>\"$events.err\"\n";
    s += "code=$?\n";
    s += "echo \"$code\" > \"$events.exit.tmp\" && mv \"$events.exit.tmp\" \"$events.exit\"\n";
    s += "exit \"$code\"\n";
  } else {
    s += workerExec("$SAILOR_STORE");
  }
  s += "SAILOR_RANK_EOF\n";
  s += "pids=()\n";
  for (std::size_t i = 0; i < layout.pools.size(); ++i) {
    const std::string k = std::to_string(i);
    s += std::string("srun") + (het ? " --het-group=" + k : "") +
         " --distribution=block --gpu-bind=none --kill-on-bad-exit=" +
         (run && run->elastic ? "0" : "1") + " bash \"$SAILOR_RUN_DIR/rank.sh\" " + k +
         " &\npids+=(\"$!\")\n";
  }
  // An elastic run's controller re-plans around a worker that ends: the others go on.
  s += run && run->elastic ? kWaitEach : kWaitAll;
  return s;
}

// Hosts in node-rank order: every node of every pool, pools in layout order.
struct Host {
  const PoolLaunch* pool;
  const std::vector<int>* ranks;
};

std::vector<Host> hostsOf(const LaunchLayout& layout) {
  std::vector<Host> hosts;
  for (const PoolLaunch& pl : layout.pools)
    for (const auto& n : pl.nodes) hosts.push_back(Host{&pl, &n});
  return hosts;
}

std::vector<ExportFile> torchrunFiles(const Cluster& cluster, const LaunchLayout& layout,
                                      const json& spec) {
  const std::vector<Host> hosts = hostsOf(layout);
  const std::string nnodes = std::to_string(hosts.size());
  const std::string port = std::to_string(cluster.rendezvous_port);
  std::string h;
  h += "# Hosts of a Sailor Studio run on cluster " + cluster.name +
       " (sailor export --format torchrun), in node-rank order.\n";
  h += "# Host 0 runs rank 0, torchrun's rendezvous store on port " + port +
       " and the run's token-checked store\n# (hosted by rank 0) on port " +
       std::to_string(cluster.rendezvous_port + 1) +
       ": on every host set\n"
       "# SAILOR_MASTER_ADDR to host 0's address and SAILOR_RUN_TOKEN_FILE to a copy of the "
       "run's\n# token file (mode 0600), then run the host's command next to "
       "sailor-torchrun.sh.\n";
  h += "# node_rank  pool  gpus  ranks  command\n";
  for (std::size_t i = 0; i < hosts.size(); ++i)
    h += std::to_string(i) + "  " + hosts[i].pool->pool.label() + "  " +
         std::to_string(hosts[i].ranks->size()) + "  " + rankList(*hosts[i].ranks) +
         "  bash sailor-torchrun.sh " + std::to_string(i) + "\n";

  std::string s = "#!/bin/bash\n";
  s += "# Sailor Studio: one host of a torchrun launch on cluster " + cluster.name +
       " (sailor export --format torchrun).\n";
  s += "# Usage: SAILOR_MASTER_ADDR=HOST0 SAILOR_RUN_TOKEN_FILE=FILE bash sailor-torchrun.sh "
       "NODE_RANK (hosts.txt)\n";
  s += "set -euo pipefail\n";
  s += "node_rank=\"${1:?usage: sailor-torchrun.sh NODE_RANK (see hosts.txt)}\"\n";
  s += ": \"${SAILOR_MASTER_ADDR:?set SAILOR_MASTER_ADDR to the address of host 0 (hosts.txt)}\"\n";
  s += ": \"${SAILOR_RUN_TOKEN_FILE:?set SAILOR_RUN_TOKEN_FILE to the token file of the run}\"\n";
  s += "case \"$node_rank\" in\n";
  for (std::size_t i = 0; i < hosts.size(); ++i)
    s += "  " + std::to_string(i) + ") nproc=" + std::to_string(hosts[i].ranks->size()) + " ;;\n";
  s += "  *) echo \"sailor-torchrun.sh: no host $node_rank (0 to " +
       std::to_string(hosts.size() - 1) + ")\" >&2; exit 2 ;;\n";
  s += "esac\n";
  s += "umask 077\n";
  s += "export SAILOR_RUN_DIR=\"${SAILOR_RUN_DIR:-$(mktemp -d \"${TMPDIR:-/tmp}/sailor-run-"
       "XXXXXX\")}\"\n";
  s += "mkdir -p \"$SAILOR_RUN_DIR\"\n";
  s += specHereDoc(spec, "$SAILOR_RUN_DIR/spec.json");
  s += networkExports(cluster);
  s += "cat > \"$SAILOR_RUN_DIR/rank.sh\" <<'SAILOR_RANK_EOF'\n";
  s += "#!/bin/bash\n";
  s +=
      "# One worker: its rank from its host (GROUP_RANK) and local rank, its GPU the local rank.\n";
  s += "set -euo pipefail\n";
  s += "case \"$GROUP_RANK\" in\n";
  for (std::size_t i = 0; i < hosts.size(); ++i)
    s += "  " + std::to_string(i) + ") ranks=" + bashArray(*hosts[i].ranks) + " ;;\n";
  s += "  *) echo \"rank.sh: no host $GROUP_RANK\" >&2; exit 2 ;;\n";
  s += "esac\n";
  s += "rank=\"${ranks[$LOCAL_RANK]}\"\n";
  s += gpuBinding("$LOCAL_RANK");
  s += "export RANK=\"$rank\"\n";
  // torchrun's own store (no authentication) holds MASTER_PORT; rank 0 hosts the run's
  // token-checked store on the next port.
  s += workerExec("$MASTER_ADDR:$((MASTER_PORT + 1))");
  s += "SAILOR_RANK_EOF\n";
  s += "exec torchrun --nnodes=" + nnodes +
       " --node-rank=\"$node_rank\" --nproc-per-node=\"$nproc\" "
       "--master-addr=\"$SAILOR_MASTER_ADDR\" --master-port=" +
       port + " --no-python bash \"$SAILOR_RUN_DIR/rank.sh\"\n";
  return {{"hosts.txt", h}, {"sailor-torchrun.sh", s}};
}

std::string jobName(const Cluster& c, std::size_t pool) {
  return c.name + "-pool-" + std::to_string(pool);
}
std::string serviceName(const Cluster& c) {
  return c.name + "-rdzv";
}

constexpr const char* kRunLabel = "sailor-studio/run";
constexpr const char* kPoolLabel = "sailor-studio/pool";

// The pod of node JOB_COMPLETION_INDEX of pool SAILOR_POOL: one worker per GPU of the pod.
std::string podScript(const LaunchLayout& layout) {
  std::string s = "#!/bin/bash\n";
  s += "# One node of a pool: a worker per GPU, each bound to its GPU.\n";
  s += "set -euo pipefail\n";
  s += "case \"$SAILOR_POOL/$JOB_COMPLETION_INDEX\" in\n";
  for (std::size_t p = 0; p < layout.pools.size(); ++p)
    for (std::size_t n = 0; n < layout.pools[p].nodes.size(); ++n)
      s += "  " + std::to_string(p) + "/" + std::to_string(n) +
           ") ranks=" + bashArray(layout.pools[p].nodes[n]) + " ;;\n";
  s += "  *) echo \"pod.sh: no node $JOB_COMPLETION_INDEX in pool $SAILOR_POOL\" >&2; exit 2 ;;\n";
  s += "esac\n";
  s += "pids=()\n";
  s += "for gpu in \"${!ranks[@]}\"; do\n";
  s += "  (\n";
  s += "    rank=\"${ranks[$gpu]}\"\n";
  s += "    export CUDA_VISIBLE_DEVICES=\"$gpu\" RANK=\"$rank\" LOCAL_RANK=\"$gpu\"\n";
  s += "    " + workerExec("$SAILOR_STORE");
  s += "  ) &\n";
  s += "  pids+=(\"$!\")\n";
  s += "done\n";
  s += kWaitAll;
  return s;
}

void requireKubernetes(const ResolvedPool& p, const std::string& namespace_name) {
  if (p.kubernetes.image.empty())
    throw InputError("pool " + p.label(), "no image",
                     "kubernetes.image in the pool's mapping or in the cluster's kubernetes "
                     "defaults");
  if (p.kubernetes.node_selector.empty())
    throw InputError("pool " + p.label(), "no node selector",
                     "kubernetes.node_selector: labels that select the pool's nodes (zone and "
                     "GPU type)");
  if (p.kubernetes.namespace_name != namespace_name)
    throw InputError("pool " + p.label(), "namespace " + p.kubernetes.namespace_name,
                     "namespace " + namespace_name +
                         ", the first pool's: a run's pods meet through one headless Service");
}

}  // namespace

std::vector<ordered_json> kubernetesObjects(const Cluster& cluster, const LaunchLayout& layout,
                                            const json& spec) {
  const std::string ns = layout.pools.at(0).pool.kubernetes.namespace_name;
  for (const PoolLaunch& pl : layout.pools) requireKubernetes(pl.pool, ns);
  const std::string port = std::to_string(cluster.rendezvous_port);
  const std::string store =
      jobName(cluster, 0) + "-0." + serviceName(cluster) + "." + ns + ".svc.cluster.local:" + port;
  std::vector<ordered_json> out;
  ordered_json labels{{"app.kubernetes.io/name", "sailor-studio"}, {kRunLabel, cluster.name}};

  ordered_json cm;
  cm["apiVersion"] = "v1";
  cm["kind"] = "ConfigMap";
  cm["metadata"] = {{"name", cluster.name + "-spec"}, {"namespace", ns}, {"labels", labels}};
  cm["data"] = {{"spec.json", spec.dump(2) + "\n"}, {"pod.sh", podScript(layout)}};
  out.push_back(cm);

  ordered_json svc;
  svc["apiVersion"] = "v1";
  svc["kind"] = "Service";
  svc["metadata"] = {{"name", serviceName(cluster)}, {"namespace", ns}, {"labels", labels}};
  svc["spec"] = {
      {"clusterIP", "None"},
      {"publishNotReadyAddresses", true},
      {"selector", {{kRunLabel, cluster.name}}},
      {"ports",
       ordered_json::array(
           {{{"name", "rendezvous"}, {"port", cluster.rendezvous_port}, {"protocol", "TCP"}}})}};
  out.push_back(svc);

  for (std::size_t i = 0; i < layout.pools.size(); ++i) {
    const PoolLaunch& pl = layout.pools[i];
    const int nodes = static_cast<int>(pl.nodes.size());
    ordered_json pod_labels = labels;
    pod_labels[kPoolLabel] = std::to_string(i);
    ordered_json env = ordered_json::array();
    auto add_env = [&](const std::string& k, const std::string& v) {
      env.push_back({{"name", k}, {"value", v}});
    };
    add_env("SAILOR_POOL", std::to_string(i));
    add_env("SAILOR_STORE", store);
    add_env("SAILOR_WORLD_SIZE", std::to_string(layout.worldSize()));
    add_env("WORLD_SIZE", std::to_string(layout.worldSize()));
    add_env("SAILOR_RUN_DIR", "/etc/sailor");
    add_env("SAILOR_RUN_TOKEN_FILE", "/var/run/sailor-token/token");
    add_env("OMP_NUM_THREADS", "1");
    add_env("SAILOR_CLUSTER_RUN", "1");
    if (!cluster.network_interface.empty()) {
      add_env("NCCL_SOCKET_IFNAME", cluster.network_interface);
      add_env("GLOO_SOCKET_IFNAME", cluster.network_interface);
      add_env("SAILOR_IFNAME", cluster.network_interface);
    }
    ordered_json selector(pl.pool.kubernetes.node_selector);
    ordered_json container{
        {"name", "worker"},
        {"image", pl.pool.kubernetes.image},
        {"command", {"bash", "/etc/sailor/pod.sh"}},
        {"env", env},
        {"ports", ordered_json::array(
                      {{{"name", "rendezvous"}, {"containerPort", cluster.rendezvous_port}}})},
        {"resources", {{"limits", {{"nvidia.com/gpu", pl.tasks_per_node}}}}},
        {"volumeMounts",
         ordered_json::array(
             {{{"name", "spec"}, {"mountPath", "/etc/sailor"}, {"readOnly", true}},
              {{"name", "token"}, {"mountPath", "/var/run/sailor-token"}, {"readOnly", true}}})}};
    ordered_json pod_spec{
        {"subdomain", serviceName(cluster)},
        {"restartPolicy", "Never"},
        {"nodeSelector", selector},
        {"containers", ordered_json::array({container})},
        {"volumes",
         ordered_json::array(
             {{{"name", "spec"}, {"configMap", {{"name", cluster.name + "-spec"}}}},
              {{"name", "token"},
               {"secret", {{"secretName", cluster.name + "-token"}, {"defaultMode", 256}}}}})}};
    ordered_json job;
    job["apiVersion"] = "batch/v1";
    job["kind"] = "Job";
    ordered_json job_labels = labels;
    job_labels[kPoolLabel] = std::to_string(i);
    job["metadata"] = {{"name", jobName(cluster, i)},
                       {"namespace", ns},
                       {"labels", job_labels},
                       {"annotations",
                        {{"sailor-studio/pool", pl.pool.label()},
                         {"sailor-studio/ranks", rankList(pl.taskSlots())}}}};
    job["spec"] = {{"completionMode", "Indexed"},
                   {"completions", nodes},
                   {"parallelism", nodes},
                   {"backoffLimit", 0},
                   {"template", {{"metadata", {{"labels", pod_labels}}}, {"spec", pod_spec}}}};
    out.push_back(job);
  }
  return out;
}

namespace {

bool plainKey(const std::string& k) {
  // Keys that a YAML 1.1 reader (Kubernetes' own) takes for a boolean, null or number are quoted.
  static const std::set<std::string> kReserved{
      "y",    "Y",     "n",     "N",     "yes",  "Yes",  "YES", "no",   "No",
      "NO",   "on",    "On",    "ON",    "off",  "Off",  "OFF", "true", "True",
      "TRUE", "false", "False", "FALSE", "null", "Null", "NULL"};
  if (k.empty() || kReserved.count(k)) return false;
  const auto first = static_cast<unsigned char>(k[0]);
  if (!(first < 0x80 && (std::isalpha(first) || k[0] == '_'))) return false;
  return std::all_of(k.begin(), k.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x80 && (std::isalnum(u) || c == '_' || c == '.' || c == '/' || c == '-');
  });
}

// A literal block keeps a text of several lines readable: only for text that ends with one line
// break, has no other control character, and whose first line does not start with a space
// (that would need an indentation indicator).
bool literalBlock(const std::string& s) {
  if (s.size() < 2 || s.back() != '\n' || s[s.size() - 2] == '\n' || s[0] == ' ') return false;
  return std::none_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\n') || u == 0x7F;
  });
}

std::string scalar(const ordered_json& v) {
  // JSON's string escapes are YAML's double-quoted escapes; numbers and booleans read the same.
  return v.dump();
}

void emit(std::string& out, const ordered_json& v, int indent);

// `key: value` at `indent`.
void emitEntry(std::string& out, const std::string& key, const ordered_json& v, int indent) {
  out += std::string(indent, ' ') + (plainKey(key) ? key : ordered_json(key).dump()) + ":";
  if (v.is_object() && !v.empty()) {
    out += "\n";
    emit(out, v, indent + 2);
  } else if (v.is_array() && !v.empty()) {
    out += "\n";
    emit(out, v, indent + 2);
  } else if (v.is_string() && literalBlock(v.get<std::string>())) {
    out += " |\n";
    const std::string s = v.get<std::string>();
    for (std::size_t i = 0; i < s.size();) {
      const std::size_t nl = s.find('\n', i);
      const std::string line = s.substr(i, nl - i);
      out += (line.empty() ? "" : std::string(indent + 2, ' ') + line) + "\n";
      i = nl + 1;
    }
  } else {
    out += " " + (v.is_object() ? std::string("{}") : v.is_array() ? "[]" : scalar(v)) + "\n";
  }
}

void emit(std::string& out, const ordered_json& v, int indent) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) emitEntry(out, it.key(), it.value(), indent);
  } else if (v.is_array()) {
    for (const ordered_json& item : v) {
      if (item.is_object() && !item.empty()) {
        // The item's first entry goes on the dash's line: emit at indent + 2, then put the
        // dash into the first line's indentation.
        std::string body;
        emit(body, item, indent + 2);
        body.replace(static_cast<std::size_t>(indent), 2, "- ");
        out += body;
      } else {
        out += std::string(indent, ' ') + "- " +
               (item.is_object()  ? std::string("{}")
                : item.is_array() ? "[]"
                                  : scalar(item)) +
               "\n";
      }
    }
  } else {
    out += std::string(indent, ' ') + scalar(v) + "\n";
  }
}

}  // namespace

std::string toYaml(const ordered_json& value) {
  std::string out;
  emit(out, value, 0);
  return out;
}

// NOTE [Slurm run script]: `sailor run --launcher slurm` submits the export's script with three
// changes. The run directory is the controller's (absolute, created by it with the spec and the
// token before submission). Each worker appends its reports (JSON lines) and its stderr to
// events/rank-R.jsonl and .err there and, when it ends, writes its exit code to rank-R.exit:
// the controller tails these files (the shared file system is the channel that outlives it).
// The rendezvous is the store rank 0 hosts on the first node
// (runner/src/rendezvous/rendezvous_store.hpp): bound to the cluster's interface (SAILOR_IFNAME) on
// a port the kernel picks, published in rendezvous.address in that directory; every connection
// proves the run's token (the token file, 0600, named by SAILOR_RUN_TOKEN_FILE, never on a command
// line) or is refused and logged. A CPU run (Gloo) asks for no GPUs and lets tasks share cores
// (--overcommit). An elastic run's job outlives a failed node (--no-kill) and a failed task
// (--kill-on-bad-exit=0, each launch waited for on its own): its controller re-plans around
// them; it ends with its last job step (the workers that joined later run as steps of their own);
// rank.sh ignores SIGTERM and SIGUSR1 so that a preemption notice reaches only the worker
// (--notice), which hands its state over before it ends (docs/elasticity.md).
std::string slurmRunScript(const Cluster& cluster, const LaunchLayout& layout, const json& spec,
                           const SlurmRunOptions& options) {
  return slurmScript(cluster, layout, spec, &options);
}

std::vector<ExportFile> exportLaunch(ExportFormat format, const Cluster& cluster,
                                     const LaunchLayout& layout, const json& spec) {
  switch (format) {
    case ExportFormat::Slurm: return {{"sailor.sbatch", slurmScript(cluster, layout, spec)}};
    case ExportFormat::Torchrun: return torchrunFiles(cluster, layout, spec);
    case ExportFormat::Kubernetes: {
      const auto objects = kubernetesObjects(cluster, layout, spec);
      const std::string ns = layout.pools.at(0).pool.kubernetes.namespace_name;
      std::string y = "# Sailor Studio: a run on cluster " + cluster.name +
                      " (sailor export --format kubernetes): a ConfigMap with the spec,\n"
                      "# a headless Service for the rendezvous, an indexed Job per pool (a pod "
                      "per node).\n"
                      "# Create the run's token first (never in this file):\n"
                      "#   kubectl -n " +
                      ns + " create secret generic " + cluster.name +
                      "-token --from-literal=token=\"$(od -An -N32 -tx1 /dev/urandom | tr -d ' "
                      "\\n')\"\n";
      for (const auto& o : objects) y += "---\n" + toYaml(o);
      return {{"sailor.yaml", y}};
    }
  }
  return {};
}

}  // namespace sailor
