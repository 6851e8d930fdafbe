// `sailor export`'s engine: the cluster description (strict parsing, pools resolved against a
// plan), the launch layout (ranks onto nodes, tensor-parallel groups inside one node) and the
// Slurm, torchrun and Kubernetes files, on a 3-zone, 3-GPU-type plan of the default scenario
// (tests/data/export/three-zones.json: A100-40 in us-central1-a, H100-80 in us-central1-b, L4
// in us-central1-c; 12 ranks). The Kubernetes schema check is tests/export/check_k8s.mjs.
#include <map>
#include <regex>
#include <set>

#include <QTest>

#include "sailor/core/json_util.hpp"
#include "sailor/formats/launch_export.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/runs/run_spec.hpp"
#include "sailor/scenario/cluster.hpp"
#include "test_support.hpp"

using namespace sailor;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// The #SBATCH options of each component of a heterogeneous job script, by option name.
std::vector<std::map<std::string, std::string>> sbatchComponents(const std::string& script) {
  std::vector<std::map<std::string, std::string>> out(1);
  std::istringstream in(script);
  for (std::string line; std::getline(in, line);) {
    if (line == "#SBATCH hetjob") {
      out.emplace_back();
    } else if (line.rfind("#SBATCH --", 0) == 0) {
      const std::string opt = line.substr(10);  // after "#SBATCH --"
      const auto eq = opt.find('=');
      out.back()[opt.substr(0, eq)] = opt.substr(eq + 1);
    }
  }
  return out;
}

// The text between `cat > PATH <<'MARK'` and MARK.
std::string hereDoc(const std::string& text, const std::string& mark) {
  const std::string open = "<<'" + mark + "'\n";
  const auto begin = text.find(open);
  if (begin == std::string::npos) return {};
  const auto start = begin + open.size();
  const auto end = text.find("\n" + mark + "\n", start);
  return text.substr(start, end - start);
}

}  // namespace

class TestLaunchExport : public QObject {
  Q_OBJECT

  Catalog cat_ = Catalog::load(test::resources());
  Scenario scenario_ =
      Scenario::fromJson(json_util::readFile(test::resources() + "/scenarios/default.json"), cat_);
  Job job_ = Job::fromJson(json_util::readFile(test::resources() + "/jobs/default.json"), cat_);
  Plan plan_ = Plan::fromJson(json_util::readFile(SAILOR_TEST_DATA "/three-zones.json"));

  // The shipped cluster description, the L4 nodes of us-central1-c cut to 4 GPUs so that the
  // L4 pool needs two nodes.
  json clusterJson() const {
    json j = json_util::readFile(test::resources() + "/clusters/default.json");
    for (json& p : j["pools"])
      if (p["gpu_type"] == "L4" && p["zone"] == "us-central1-c") p["gpus_per_node"] = 4;
    return j;
  }
  LaunchLayout layoutOf(const Cluster& c, const Plan& plan) const {
    return layoutLaunch(plan, resolve(c, scenario_, cat_, plan, "cluster.json"), "cluster.json");
  }
  json specOf(const Plan& plan) const {
    return RunSpec::build(plan, job_, cat_.model(job_.model, "model"), RunOptions{}).toJson();
  }
  // sailor run's options for its script: the run directory and worker of a shared filesystem.
  static SlurmRunOptions runOptions(const std::string& run_dir = "/shared/runs/run-1") {
    SlurmRunOptions o;
    o.run_dir = run_dir;
    o.worker = "/opt/sailor/bin/sailor-worker";
    return o;
  }

 private slots:
  void planIsValid() { plan_.validate(job_, cat_, scenario_); }

  void clusterRoundTrips() {
    const Cluster c = Cluster::fromJson(clusterJson());
    QCOMPARE(c.pools.size(), scenario_.pools.size());
    QVERIFY(Cluster::fromJson(c.toJson()) == c);
    QCOMPARE(c.find("us-central1-c", "L4")->gpus_per_node.value(), 4);
    QCOMPARE(c.kubernetes.namespace_name, std::string("sailor"));
  }

  void resolveAppliesDefaults() {
    json j = clusterJson();
    j["slurm"]["partition"] = "gpu";
    j["pools"][3]["slurm"].erase("partition");  // us-central1-b/H100-80
    const Cluster c = Cluster::fromJson(j);
    const auto pools = resolve(c, scenario_, cat_, plan_, "cluster.json");
    QCOMPARE(pools.size(), std::size_t{3});
    QCOMPARE(pools[0].label(), std::string("us-central1-a/A100-40"));
    QCOMPARE(pools[1].label(), std::string("us-central1-b/H100-80"));
    QCOMPARE(pools[2].label(), std::string("us-central1-c/L4"));
    QCOMPARE(pools[0].slurm.partition, std::string("a100"));
    QCOMPARE(pools[1].slurm.partition, std::string("gpu"));
    QCOMPARE(pools[1].slurm.account, std::string("sailor"));
    QCOMPARE(pools[2].kubernetes.image, std::string("ghcr.io/sailor-studio/sailor-worker:0.1"));
    QCOMPARE(pools[2].gpus_per_node, 4);
  }

  // Ranks per pool and node, every tp group inside one node, every rank once, rank 0 first.
  void layoutPacksTpGroupsIntoNodes() {
    const LaunchLayout l = layoutOf(Cluster::fromJson(clusterJson()), plan_);
    QCOMPARE(l.worldSize(), 12);
    QCOMPARE(l.pools.size(), std::size_t{3});
    QCOMPARE(l.pools[0].nodes, (std::vector<std::vector<int>>{{0, 1, 7}}));
    QCOMPARE(l.pools[1].nodes, (std::vector<std::vector<int>>{{2, 8, 9}}));
    QCOMPARE(l.pools[2].nodes, (std::vector<std::vector<int>>{{3, 4, 5, 6}, {10, 11}}));
    QCOMPARE(l.pools[2].tasks_per_node, 4);
    QCOMPARE(l.pools[2].taskSlots(), (std::vector<int>{3, 4, 5, 6, 10, 11}));
    // The runtime's own numbering: RunSpec::ranks is what every worker reads.
    const RunSpec spec = RunSpec::fromJson(specOf(plan_));
    QCOMPARE(static_cast<int>(spec.ranks.size()), l.worldSize());
    std::map<int, std::pair<std::size_t, std::size_t>> where;  // rank -> (pool, node)
    for (std::size_t p = 0; p < l.pools.size(); ++p)
      for (std::size_t n = 0; n < l.pools[p].nodes.size(); ++n) {
        QVERIFY(static_cast<int>(l.pools[p].nodes[n].size()) <= l.pools[p].pool.gpus_per_node);
        for (int r : l.pools[p].nodes[n]) {
          QVERIFY2(where.emplace(r, std::pair(p, n)).second, "a rank placed twice");
          QCOMPARE(spec.ranks[r].zone, l.pools[p].pool.zone);
          QCOMPARE(spec.ranks[r].gpu_type, l.pools[p].pool.gpu_type);
        }
      }
    QCOMPARE(static_cast<int>(where.size()), l.worldSize());
    for (std::size_t s = 0; s < plan_.stages.size(); ++s)
      for (std::size_t d = 0; d < plan_.stages[s].replicas.size(); ++d) {
        std::set<std::pair<std::size_t, std::size_t>> nodes;
        for (int r : spec.replicaRanks(static_cast<int>(s), static_cast<int>(d)))
          nodes.insert(where.at(r));
        QCOMPARE(nodes.size(), std::size_t{1});
      }
    QCOMPARE(l.pools[0].nodes[0][0], 0);
  }

  // A node before the last that runs fewer ranks than the pool's others gets idle slots, so
  // that Slurm's block distribution still puts every task on its node.
  void layoutIdleSlots() {
    const Plan p = Plan::fromJson(json{
        {"microbatch_size", 1},
        {"stages",
         {{{"first_layer", 0},
           {"last_layer", 8},
           {"replicas", {{{"gpu_type", "A100-40"}, {"tp", 2}, {"zone", "us-central1-a"}}}}},
          {{"first_layer", 9},
           {"last_layer", 16},
           {"replicas", {{{"gpu_type", "A100-40"}, {"tp", 3}, {"zone", "us-central1-a"}}}}},
          {{"first_layer", 17},
           {"last_layer", 25},
           {"replicas", {{{"gpu_type", "A100-40"}, {"tp", 2}, {"zone", "us-central1-a"}}}}}}}});
    json j = clusterJson();
    j["pools"][0]["gpus_per_node"] = 3;
    const LaunchLayout l = layoutOf(Cluster::fromJson(j), p);
    QCOMPARE(l.pools[0].nodes, (std::vector<std::vector<int>>{{0, 1}, {2, 3, 4}, {5, 6}}));
    QCOMPARE(l.pools[0].taskSlots(), (std::vector<int>{0, 1, -1, 2, 3, 4, 5, 6}));
    const std::string script =
        exportLaunch(ExportFormat::Slurm, Cluster::fromJson(j), l, json::object())[0].text;
    const auto comps = sbatchComponents(script);
    QCOMPARE(comps.size(), std::size_t{1});
    QCOMPARE(comps[0].at("nodes"), std::string("3"));
    QCOMPARE(comps[0].at("ntasks"), std::string("8"));
    QCOMPARE(comps[0].at("ntasks-per-node"), std::string("3"));
    QVERIFY(script.find("0) slots=(0 1 -1 2 3 4 5 6) ;;") != std::string::npos);
  }

  void slurmScript() {
    const Cluster c = Cluster::fromJson(clusterJson());
    const LaunchLayout l = layoutOf(c, plan_);
    const json spec = specOf(plan_);
    const auto files = exportLaunch(ExportFormat::Slurm, c, l, spec);
    QCOMPARE(files.size(), std::size_t{1});
    QCOMPARE(files[0].name, std::string("sailor.sbatch"));
    const std::string& s = files[0].text;
    QVERIFY(exportLaunch(ExportFormat::Slurm, c, l, spec)[0].text == s);  // deterministic
    const auto comps = sbatchComponents(s);
    QCOMPARE(comps.size(), std::size_t{3});
    const std::vector<std::vector<std::string>> expected{
        // partition, constraint, nodes, ntasks, ntasks-per-node, gres
        {"a100", "us-central1-a", "1", "3", "3", "gpu:a100:3"},
        {"h100", "us-central1-b", "1", "3", "3", "gpu:h100:3"},
        {"l4", "us-central1-c", "2", "6", "4", "gpu:l4:4"}};
    for (std::size_t i = 0; i < 3; ++i) {
      QCOMPARE(comps[i].at("partition"), expected[i][0]);
      QCOMPARE(comps[i].at("constraint"), expected[i][1]);
      QCOMPARE(comps[i].at("nodes"), expected[i][2]);
      QCOMPARE(comps[i].at("ntasks"), expected[i][3]);
      QCOMPARE(comps[i].at("ntasks-per-node"), expected[i][4]);
      QCOMPARE(comps[i].at("gres"), expected[i][5]);
      QCOMPARE(comps[i].at("account"), std::string("sailor"));
      QCOMPARE(comps[i].at("time"), std::string("1-00:00:00"));
      const std::string k = std::to_string(i);
      QVERIFY(s.find("srun --het-group=" + k + " ") != std::string::npos);
      QVERIFY(s.find("bash \"$SAILOR_RUN_DIR/rank.sh\" " + k + " &") != std::string::npos);
    }
    QVERIFY(s.find("  0) slots=(0 1 7) ;;") != std::string::npos);
    QVERIFY(s.find("  1) slots=(2 8 9) ;;") != std::string::npos);
    QVERIFY(s.find("  2) slots=(3 4 5 6 10 11) ;;") != std::string::npos);
    // The rendezvous: the first node of component 0, never loopback.
    QVERIFY(s.find("rendezvous_host=\"$(scontrol show hostnames "
                   "\"$SLURM_JOB_NODELIST_HET_GROUP_0\" | head -n1)\"") != std::string::npos);
    QVERIFY(s.find("export SAILOR_STORE=\"${rendezvous_host}:29500\"") != std::string::npos);
    QVERIFY(s.find("127.0.0.1") == std::string::npos);
    QVERIFY(s.find("localhost") == std::string::npos);
    // The rank environment and the worker's command line: rank from the table, GPU from the
    // task's local id, the token by file in the environment only.
    QVERIFY(s.find("rank=\"${slots[$SLURM_PROCID]}\"") != std::string::npos);
    QVERIFY(s.find("export CUDA_VISIBLE_DEVICES=\"${gpus[$SLURM_LOCALID]}\"") != std::string::npos);
    QVERIFY(s.find("export RANK=\"$rank\" LOCAL_RANK=\"$SLURM_LOCALID\" "
                   "WORLD_SIZE=\"$SAILOR_WORLD_SIZE\"") != std::string::npos);
    QVERIFY(s.find("export SAILOR_WORLD_SIZE=12\n") != std::string::npos);
    QVERIFY(s.find("--spec \"$SAILOR_RUN_DIR/spec.json\" --rank \"$rank\" --store "
                   "\"$SAILOR_STORE\" --generation 0\n") != std::string::npos);
    QVERIFY(s.find("export SAILOR_RUN_TOKEN_FILE=\"$SAILOR_RUN_DIR/token\"") != std::string::npos);
    QVERIFY(s.find("--token") == std::string::npos);
    QVERIFY(s.find("export NCCL_SOCKET_IFNAME=eth0 GLOO_SOCKET_IFNAME=eth0 SAILOR_IFNAME=eth0") !=
            std::string::npos);
    QVERIFY(json::parse(hereDoc(s, "SAILOR_SPEC_EOF")) == spec);
  }

  // sailor run's own script: rank 0 hosts the token-checked store on the first node on a port
  // the kernel picks and publishes it in the run directory (no file store, no fixed port).
  void slurmRunScriptRendezvous() {
    const Cluster c = Cluster::fromJson(clusterJson());
    const LaunchLayout l = layoutOf(c, plan_);
    const std::string s = slurmRunScript(c, l, specOf(plan_), runOptions());
    QVERIFY(s.find("export SAILOR_STORE=\"${rendezvous_host}:0\"") != std::string::npos);
    QVERIFY(s.find("--store \"$SAILOR_STORE\" --store-address "
                   "\"$SAILOR_RUN_DIR/rendezvous.address\"") != std::string::npos);
    QVERIFY(s.find("file:") == std::string::npos);
    QVERIFY(s.find("SAILOR_IFNAME=eth0") != std::string::npos);
    QVERIFY(s.find("export SAILOR_RUN_TOKEN_FILE=\"$SAILOR_RUN_DIR/token\"") != std::string::npos);
    QVERIFY(s.find("127.0.0.1") == std::string::npos);
  }

  // An elastic run's script: the job survives a node's failure (--no-kill), a task's failure
  // stops no other (srun --kill-on-bad-exit=0, every launch waited for on its own, then the
  // job's other steps), and a
  // preemption notice reaches the worker (--notice), not rank.sh (which ignores TERM and USR1).
  // A run that is not elastic keeps the first failure ending the job.
  void slurmRunScriptElastic() {
    const Cluster c = Cluster::fromJson(clusterJson());
    const LaunchLayout l = layoutOf(c, plan_);
    SlurmRunOptions o = runOptions();
    const std::string plain = slurmRunScript(c, l, specOf(plan_), o);
    o.elastic = true;
    const std::string s = slurmRunScript(c, l, specOf(plan_), o);
    QCOMPARE(sbatchComponents(s)[0].at("no-kill"), std::string("no-kill"));
    QVERIFY(sbatchComponents(plain)[0].count("no-kill") == 0);
    QVERIFY(s.find("--kill-on-bad-exit=0") != std::string::npos);
    QVERIFY(s.find("--kill-on-bad-exit=1") == std::string::npos);
    QVERIFY(plain.find("--kill-on-bad-exit=1") != std::string::npos);
    const std::string trap = "trap '' TERM USR1";
    QVERIFY(s.find(trap) != std::string::npos && s.find(trap) < s.find("--generation 0 --notice"));
    QVERIFY(plain.find(trap) == std::string::npos && plain.find("--notice") == std::string::npos);
    QVERIFY(s.find("wait -n") == std::string::npos);
    QVERIFY(s.find("  wait \"$pid\" || status=1\n") != std::string::npos);
    // The job ends with its last step: workers that joined later run as steps of their own.
    QVERIFY(s.find("while squeue -h -s -j \"$SLURM_JOB_ID\"") < s.find("exit \"$status\""));
    QVERIFY(plain.find("squeue") == std::string::npos);
    QVERIFY(plain.find("wait -n") != std::string::npos);
  }

  // Checkpoints of a Slurm run: every worker gets the run directory's checkpoints/ and the
  // interval; a run without them gets neither.
  void slurmRunScriptCheckpoints() {
    const Cluster c = Cluster::fromJson(clusterJson());
    const LaunchLayout l = layoutOf(c, plan_);
    SlurmRunOptions o = runOptions();
    const std::string plain = slurmRunScript(c, l, specOf(plan_), o);
    QVERIFY(plain.find("--checkpoint") == std::string::npos);
    o.checkpoint_every = 25;
    const std::string s = slurmRunScript(c, l, specOf(plan_), o);
    QVERIFY(s.find("--generation 0 --checkpoint-dir \"$SAILOR_RUN_DIR/checkpoints\" "
                   "--checkpoint-every 25 >>\"$events.jsonl\"") != std::string::npos);
  }

  void slurmNeedsAPartition() {
    json j = clusterJson();
    j["pools"][5]["slurm"].erase("partition");  // us-central1-c/L4
    const Cluster c = Cluster::fromJson(j);
    const QString m = test::inputErrorOf(
        [&] { exportLaunch(ExportFormat::Slurm, c, layoutOf(c, plan_), json::object()); });
    SAILOR_VERIFY_MESSAGE(m, (QStringList{"pool us-central1-c/L4", "no Slurm partition"}));
  }

  // `sailor run --launcher slurm`'s script for a plan on two pools, as the CI cluster runs it
  // (tests/runtime/test_slurm_hetjob.sh): one component per pool, each with its own partition,
  // node count and task count; CPU workers ask for no GRES and share cores (--overcommit, with
  // no --ntasks-per-node for a one-node pool, which Slurm refuses above the node's CPUs); the
  // pools' ranks interleave (0, 2, 3 and 1), so each component's task ids go through its own
  // rank table; each component starts with its own srun --het-group.
  void slurmRunScriptTwoPools() {
    auto replica = [](const char* gpu) {
      return json{{"gpu_type", gpu}, {"tp", 1}, {"zone", "us-central1-a"}};
    };
    const Plan p =
        Plan::fromJson(json{{"microbatch_size", 2},
                            {"stages",
                             {{{"first_layer", 0},
                               {"last_layer", 12},
                               {"replicas", {replica("A100-40"), replica("V100-16")}}},
                              {{"first_layer", 13},
                               {"last_layer", 25},
                               {"replicas", {replica("A100-40"), replica("A100-40")}}}}}});
    const Cluster c = Cluster::fromJson(
        json{{"name", "localhost"},
             {"network_interface", "lo"},
             {"slurm", {{"partition", "debug"}}},
             {"pools",
              {{{"zone", "us-central1-a"}, {"gpu_type", "A100-40"}, {"gpus_per_node", 8}},
               {{"zone", "us-central1-a"},
                {"gpu_type", "V100-16"},
                {"gpus_per_node", 8},
                {"slurm", {{"partition", "second"}}}}}}});
    const LaunchLayout l = layoutOf(c, p);
    SlurmRunOptions o = runOptions("/shared/runs/run-abc");
    o.gpus = false;
    const json spec = specOf(p);
    const std::string s = slurmRunScript(c, l, spec, o);
    const auto comps = sbatchComponents(s);
    QCOMPARE(comps.size(), std::size_t{2});
    const std::vector<std::map<std::string, std::string>> expected{
        {{"job-name", "sailor-localhost"},
         {"partition", "debug"},
         {"nodes", "1"},
         {"ntasks", "3"},
         {"overcommit", "overcommit"}},
        {{"partition", "second"}, {"nodes", "1"}, {"ntasks", "1"}, {"overcommit", "overcommit"}}};
    QCOMPARE(comps[0], expected[0]);
    QCOMPARE(comps[1], expected[1]);
    QVERIFY(s.find("#   component 0: us-central1-a/A100-40, 1 node, ranks 0 2 3\n") !=
            std::string::npos);
    QVERIFY(s.find("#   component 1: us-central1-a/V100-16, 1 node, ranks 1\n") !=
            std::string::npos);
    const std::string rank_sh = hereDoc(s, "SAILOR_RANK_EOF");
    QVERIFY(rank_sh.find("  0) slots=(0 2 3) ;;\n  1) slots=(1) ;;\n") != std::string::npos);
    QVERIFY(rank_sh.find("rank=\"${slots[$SLURM_PROCID]}\"") != std::string::npos);
    QVERIFY(rank_sh.find("events=\"$SAILOR_RUN_DIR/events/rank-$rank\"") != std::string::npos);
    for (const char* k : {"0", "1"})
      QVERIFY(s.find(std::string("srun --het-group=") + k +
                     " --distribution=block --gpu-bind=none --kill-on-bad-exit=1 bash "
                     "\"$SAILOR_RUN_DIR/rank.sh\" " +
                     k + " &\n") != std::string::npos);
    QVERIFY(s.find("--het-group=2") == std::string::npos);
    QVERIFY(s.find("export SAILOR_RUN_DIR='/shared/runs/run-abc'\n") != std::string::npos);
    QVERIFY(s.find("export SAILOR_WORKER='/opt/sailor/bin/sailor-worker'\n") != std::string::npos);
    QVERIFY(s.find("export SAILOR_WORLD_SIZE=4\n") != std::string::npos);
    QVERIFY(s.find("export NCCL_SOCKET_IFNAME=lo GLOO_SOCKET_IFNAME=lo") != std::string::npos);
    QVERIFY(json::parse(hereDoc(s, "SAILOR_SPEC_EOF")) == spec);

    // On GPUs: a GPU per task, every task of a component on its node.
    o.gpus = true;
    const auto gpu_comps = sbatchComponents(slurmRunScript(c, l, spec, o));
    QCOMPARE(gpu_comps.size(), std::size_t{2});
    QCOMPARE(gpu_comps[0].at("gres"), std::string("gpu:3"));
    QCOMPARE(gpu_comps[0].at("ntasks-per-node"), std::string("3"));
    QCOMPARE(gpu_comps[1].at("gres"), std::string("gpu:1"));
    QCOMPARE(gpu_comps[1].at("ntasks-per-node"), std::string("1"));
    QVERIFY(gpu_comps[0].count("overcommit") == 0 && gpu_comps[1].count("overcommit") == 0);
  }

  void torchrunHosts() {
    const Cluster c = Cluster::fromJson(clusterJson());
    const json spec = specOf(plan_);
    const auto files = exportLaunch(ExportFormat::Torchrun, c, layoutOf(c, plan_), spec);
    QCOMPARE(files.size(), std::size_t{2});
    QCOMPARE(files[0].name, std::string("hosts.txt"));
    const std::string& h = files[0].text;
    for (const char* line : {"0  us-central1-a/A100-40  3  0 1 7  bash sailor-torchrun.sh 0\n",
                             "1  us-central1-b/H100-80  3  2 8 9  bash sailor-torchrun.sh 1\n",
                             "2  us-central1-c/L4  4  3 4 5 6  bash sailor-torchrun.sh 2\n",
                             "3  us-central1-c/L4  2  10 11  bash sailor-torchrun.sh 3\n"})
      QVERIFY2(h.find(line) != std::string::npos, line);
    const std::string& s = files[1].text;
    QVERIFY(s.find("exec torchrun --nnodes=4 --node-rank=\"$node_rank\" "
                   "--nproc-per-node=\"$nproc\" --master-addr=\"$SAILOR_MASTER_ADDR\" "
                   "--master-port=29500 --no-python bash \"$SAILOR_RUN_DIR/rank.sh\"") !=
            std::string::npos);
    QVERIFY(s.find("  3) nproc=2 ;;") != std::string::npos);
    QVERIFY(s.find("  3) ranks=(10 11) ;;") != std::string::npos);
    QVERIFY(s.find("rank=\"${ranks[$LOCAL_RANK]}\"") != std::string::npos);
    // torchrun's own store takes the master port; rank 0 hosts the run's store on the next one.
    QVERIFY(s.find("--store \"$MASTER_ADDR:$((MASTER_PORT + 1))\"") != std::string::npos);
    QVERIFY(files[0].text.find("token-checked store\n# (hosted by rank 0) on port 29501") !=
            std::string::npos);
    QVERIFY(json::parse(hereDoc(s, "SAILOR_SPEC_EOF")) == spec);
  }

  void kubernetesObjects() {
    const Cluster c = Cluster::fromJson(clusterJson());
    const json spec = specOf(plan_);
    const auto objs = sailor::kubernetesObjects(c, layoutOf(c, plan_), spec);
    QCOMPARE(objs.size(), std::size_t{5});
    QCOMPARE(objs[0]["kind"].get<std::string>(), std::string("ConfigMap"));
    QVERIFY(json::parse(objs[0]["data"]["spec.json"].get<std::string>()) == spec);
    const std::string pod = objs[0]["data"]["pod.sh"];
    for (const char* row : {"  0/0) ranks=(0 1 7) ;;", "  1/0) ranks=(2 8 9) ;;",
                            "  2/0) ranks=(3 4 5 6) ;;", "  2/1) ranks=(10 11) ;;"})
      QVERIFY2(pod.find(row) != std::string::npos, row);
    QVERIFY(pod.find("export CUDA_VISIBLE_DEVICES=\"$gpu\" RANK=\"$rank\" LOCAL_RANK=\"$gpu\"") !=
            std::string::npos);
    QCOMPARE(objs[1]["kind"].get<std::string>(), std::string("Service"));
    QCOMPARE(objs[1]["spec"]["clusterIP"].get<std::string>(), std::string("None"));
    QCOMPARE(objs[1]["spec"]["selector"]["sailor-studio/run"].get<std::string>(),
             std::string("default"));
    const std::vector<std::pair<int, int>> nodes_gpus{{1, 3}, {1, 3}, {2, 4}};
    const std::vector<std::string> accelerators{"nvidia-tesla-a100", "nvidia-h100-80gb",
                                                "nvidia-l4"};
    const std::vector<std::string> zones{"us-central1-a", "us-central1-b", "us-central1-c"};
    for (std::size_t i = 0; i < 3; ++i) {
      const ordered_json& job = objs[2 + i];
      QCOMPARE(job["kind"].get<std::string>(), std::string("Job"));
      QCOMPARE(job["spec"]["completionMode"].get<std::string>(), std::string("Indexed"));
      QCOMPARE(job["spec"]["completions"].get<int>(), nodes_gpus[i].first);
      QCOMPARE(job["spec"]["parallelism"].get<int>(), nodes_gpus[i].first);
      const ordered_json& ps = job["spec"]["template"]["spec"];
      QCOMPARE(ps["subdomain"].get<std::string>(), std::string("default-rdzv"));
      QCOMPARE(ps["nodeSelector"]["topology.kubernetes.io/zone"].get<std::string>(), zones[i]);
      QCOMPARE(ps["nodeSelector"]["cloud.google.com/gke-accelerator"].get<std::string>(),
               accelerators[i]);
      const ordered_json& ctr = ps["containers"][0];
      QCOMPARE(ctr["resources"]["limits"]["nvidia.com/gpu"].get<int>(), nodes_gpus[i].second);
      std::map<std::string, std::string> env;
      for (const auto& e : ctr["env"]) env[e["name"]] = e["value"];
      QCOMPARE(env.at("SAILOR_POOL"), std::to_string(i));
      QCOMPARE(env.at("SAILOR_STORE"),
               std::string("default-pool-0-0.default-rdzv.sailor.svc.cluster.local:29500"));
      QCOMPARE(env.at("WORLD_SIZE"), std::string("12"));
      QCOMPARE(env.at("SAILOR_RUN_TOKEN_FILE"), std::string("/var/run/sailor-token/token"));
      QCOMPARE(ps["volumes"][1]["secret"]["secretName"].get<std::string>(),
               std::string("default-token"));
    }
    // The YAML: deterministic, one document per object, the token only by reference.
    const auto a = exportLaunch(ExportFormat::Kubernetes, c, layoutOf(c, plan_), spec);
    const auto b = exportLaunch(ExportFormat::Kubernetes, c, layoutOf(c, plan_), spec);
    QCOMPARE(a.size(), std::size_t{1});
    QVERIFY(a[0].text == b[0].text);
    std::size_t docs = 0;
    for (std::size_t at = 0; (at = a[0].text.find("\n---\n", at)) != std::string::npos; ++at)
      ++docs;
    QCOMPARE(docs, std::size_t{5});
  }

  void yamlScalars() {
    const ordered_json o{{"a", "x: y"},
                         {"on", "yes"},
                         {"n", 3},
                         {"list", {1, "two"}},
                         {"empty", ordered_json::object()},
                         {"text", "line 1\n  line 2\n"}};
    QCOMPARE(toYaml(o), std::string("a: \"x: y\"\n"
                                    "\"on\": \"yes\"\n"
                                    "\"n\": 3\n"
                                    "list:\n"
                                    "  - 1\n"
                                    "  - \"two\"\n"
                                    "empty: {}\n"
                                    "text: |\n"
                                    "  line 1\n"
                                    "    line 2\n"));
  }

  void missingMappingIsAnError() {
    json j = clusterJson();
    j["pools"].erase(5);  // us-central1-c/L4
    const Cluster c = Cluster::fromJson(j);
    const QString m =
        test::inputErrorOf([&] { resolve(c, scenario_, cat_, plan_, "cluster.json"); });
    SAILOR_VERIFY_MESSAGE(m, (QStringList{"cluster.json", "no mapping for pool us-central1-c/L4"}));
  }

  void tpAboveNodeIsAnError() {
    json j = clusterJson();
    j["pools"][5]["gpus_per_node"] = 2;  // us-central1-c/L4; stage 0 runs tp 4 there
    const Cluster c = Cluster::fromJson(j);
    const QString m = test::inputErrorOf([&] { layoutOf(c, plan_); });
    SAILOR_VERIFY_MESSAGE(m, (QStringList{"stages[0].replicas[2].tp", "got 4", "2 GPUs per node",
                                          "us-central1-c/L4"}));
  }

  void kubernetesNeedsOneNamespace() {
    json j = clusterJson();
    j["pools"][3]["kubernetes"]["namespace"] = "other";  // us-central1-b/H100-80
    const Cluster c = Cluster::fromJson(j);
    const QString m =
        test::inputErrorOf([&] { sailor::kubernetesObjects(c, layoutOf(c, plan_), json{}); });
    SAILOR_VERIFY_MESSAGE(m, (QStringList{"pool us-central1-b/H100-80", "namespace other"}));
  }

  void malformedClusters_data() {
    QTest::addColumn<QString>("patch");  // a JSON merge patch on the cluster file
    QTest::addColumn<QString>("needle");
    QTest::newRow("unknown key") << R"({"partitions": 1})"
                                 << "partitions: got an unknown field";
    QTest::newRow("no name") << R"({"name": null})"
                             << "name";
    QTest::newRow("name not a DNS label") << R"({"name": "My Cluster"})"
                                          << "name: got \"My Cluster\"";
    QTest::newRow("port out of range") << R"({"rendezvous_port": 70000})"
                                       << "rendezvous_port: got 70000";
    QTest::newRow("port 65535 (torchrun's next port)") << R"({"rendezvous_port": 65535})"
                                                       << "rendezvous_port: got 65535";
    QTest::newRow("port zero") << R"({"rendezvous_port": 0})"
                               << "rendezvous_port: got 0";
    QTest::newRow("interface with a space") << R"({"network_interface": "eth 0"})"
                                            << "network_interface: got \"eth 0\"";
    QTest::newRow("time limit") << R"({"slurm": {"time_limit": "1 day"}})"
                                << "slurm.time_limit: got \"1 day\"";
    QTest::newRow("partition with a line break") << R"({"slurm": {"partition": "a\n#SBATCH --x"}})"
                                                 << "slurm.partition";
    QTest::newRow("pools not an array") << R"({"pools": {}})"
                                        << "pools";
    QTest::newRow("namespace") << R"({"kubernetes": {"namespace": "Sailor"}})"
                               << "kubernetes.namespace: got \"Sailor\"";
    QTest::newRow("image with a space") << R"({"kubernetes": {"image": "a b"}})"
                                        << "kubernetes.image";
  }
  void malformedClusters() {
    QFETCH(QString, patch);
    QFETCH(QString, needle);
    json j = clusterJson();
    j.merge_patch(json::parse(patch.toStdString()));
    const QString m = test::inputErrorOf([&] { Cluster::fromJson(j); });
    SAILOR_VERIFY_MESSAGE(m, QStringList{needle});
    QVERIFY2(!m.contains('\n'), qPrintable(m));
  }

  void malformedPools_data() {
    QTest::addColumn<QString>("pool");  // replaces pools[1]
    QTest::addColumn<QString>("needle");
    const QString base = R"("zone": "us-central1-a", "gpu_type": "V100-16")";
    QTest::newRow("gpus_per_node zero") << "{" + base + R"(, "gpus_per_node": 0})"
                                        << "pools[1].gpus_per_node: got 0";
    QTest::newRow("gpus_per_node negative") << "{" + base + R"(, "gpus_per_node": -8})"
                                            << "pools[1].gpus_per_node: got -8";
    QTest::newRow("gpus_per_node a string") << "{" + base + R"(, "gpus_per_node": "8"})"
                                            << "pools[1].gpus_per_node: got \"8\"";
    QTest::newRow("gpus_per_node a fraction") << "{" + base + R"(, "gpus_per_node": 2.5})"
                                              << "pools[1].gpus_per_node: got 2.5";
    QTest::newRow("unknown pool key") << "{" + base + R"(, "gpu": "x"})"
                                      << "pools[1].gpu: got an unknown field";
    QTest::newRow("no zone") << R"({"gpu_type": "V100-16"})"
                             << "pools[1].zone";
    QTest::newRow("slurm unknown key") << "{" + base + R"(, "slurm": {"gres": "a"}})"
                                       << "pools[1].slurm.gres: got an unknown field";
    QTest::newRow("label value") << "{" + base +
                                        R"(, "kubernetes": {"node_selector": {"zone": "a b"}}})"
                                 << "pools[1].kubernetes.node_selector.zone: got \"a b\"";
    QTest::newRow("label key") << "{" + base + R"(, "kubernetes": {"node_selector": {"-x": "a"}}})"
                               << "pools[1].kubernetes.node_selector.-x";
    QTest::newRow("label value a number")
        << "{" + base + R"(, "kubernetes": {"node_selector": {"zone": 3}}})"
        << "pools[1].kubernetes.node_selector.zone: got 3";
    QTest::newRow("second mapping of a pool")
        << R"({"zone": "us-central1-a", "gpu_type": "A100-40"})"
        << "pools[1]: got a second mapping of pool us-central1-a/A100-40 (first: pools[0])";
  }
  void malformedPools() {
    QFETCH(QString, pool);
    QFETCH(QString, needle);
    json j = clusterJson();
    j["pools"][1] = json::parse(pool.toStdString());
    const QString m = test::inputErrorOf([&] { Cluster::fromJson(j); });
    SAILOR_VERIFY_MESSAGE(m, QStringList{needle});
  }
};

QTEST_GUILESS_MAIN(TestLaunchExport)
#include "test_launch_export.moc"
