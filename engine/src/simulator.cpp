// The simulator: sailor::simulate predicts a plan's peak memory per GPU, iteration time with a
// breakdown, throughput and cost on a scenario and a job. Models: docs/simulator.md.
//
// Map (simulate runs the steps in this order; each is declared in sailor/simulator_steps.hpp):
//   1. gatherReplicas          per replica, its profile figures summed over its stage's layers
//   2. placeOnNodes            which node of its (zone, GPU type) holds each replica
//   3. replicaMemory           peak memory per GPU (gradientBucketBytes, replicaMemoryBytes)
//      stageCompute            per stage, the straggler's forward and backward
//   4. Links                   links between replicas' nodes, resolved once per site pair
//   5. boundaryTransfers       activations and gradients between stages (boundaryTransferSeconds)
//   6. dataParallelPipelines   which pipelines to simulate; runPipeline runs each one's schedule
//      (deepSpeedOps, runDeepSpeedSchedule, runAsync1F1B), stageDone
//   7. tiedEmbeddingSync, stageSyncAndStep   gradient all-reduces (ringAllReduceSeconds), step
//   8. criticalPipeline, busiestStage, breakdownOf, sortTimeline   the breakdown and timeline
//   9. computeUsd, priceEgress (EgressLedger)   cost per iteration
//  10. requireFiniteFigures (in simulator.hpp)   every figure finite, else an InputError naming it
// Then: timelineTrace (the timeline as Chrome trace events) and Prediction::toJson.
#include "sailor/simulator.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>

#include "sailor/error.hpp"
#include "sailor/simulator_steps.hpp"

namespace sailor {

using nlohmann::json;

namespace {

std::string fmtGiB(double bytes) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(2);
  os << bytes / (1024.0 * 1024.0 * 1024.0) << " GiB";
  return os.str();
}

}  // namespace

// NOTE [Gradient bucket]
// At the end of every iteration DeepSpeed's pipeline engine all-reduces the gradients among a
// stage's replicas with buffered_allreduce_fallback (MEMORY_OPT_ALLREDUCE_SIZE = 5e8 elements):
// it flattens the gradient tensors into one new contiguous buffer of up to 5e8 elements,
// all-reduces it and copies it back; it does so with one replica too (a group of one). The
// gradients are fp32 in an fp32 job and in a bf16 one (BF16_Optimizer reduces its fp32
// gradients), fp16 with the fp16 optimizer. By then the iteration's activations are freed, but
// PyTorch's caching allocator keeps their blocks, each the size of one saved tensor, and a
// buffer larger than every one of them is a new cudaMalloc: the reserved memory that
// nvidia-smi reports grows by the buffer, once, and later iterations reuse it. The evidence
// (SAILOR's GPT-Neo-2.7 runs) is in docs/simulator.md, Memory per GPU.
double gradientBucketBytes(double params, const Job& job) {
  constexpr double kBucketElements = 5e8;
  const double bytes_per_gradient = job.precision == Precision::Fp16 ? 2.0 : 4.0;
  return std::min(params, kBucketElements) * bytes_per_gradient;
}

double replicaMemoryBytes(double params, double activation_bytes_per_seq,
                          double max_layer_activation_per_seq, int microbatch_size, int in_flight,
                          const Job& job, const GpuType& gpu, const Schedule& schedule, int dp) {
  const bool megatron = schedule.overlap_grad_reduce || schedule.sharding != DpSharding::None;
  return sim::modelStateBytes(params, job, schedule.sharding, dp) +
         activation_bytes_per_seq * microbatch_size * in_flight +
         2.0 * max_layer_activation_per_seq * microbatch_size +
         (megatron ? 0.0 : gradientBucketBytes(params, job)) +
         static_cast<double>(gpu.runtime_overhead_bytes);
}

DataParallelFigures dataParallelFigures(const Schedule& schedule, const Job& job,
                                        double allreduce_s, double params, int D,
                                        double optimizer_s_per_param, const GpuType& gpu,
                                        double forward_s, double backward_s) {
  DataParallelFigures f;
  const bool sharded = schedule.sharding != DpSharding::None && D >= 2;
  if (!sharded && !schedule.overlap_grad_reduce)
    return {allreduce_s, stepSeconds(optimizer_s_per_param, params, D, gpu)};
  f.step_s = optimizer_s_per_param * params / (sharded ? D : 1);
  if (D < 2) return f;
  const double reduce = sharded ? allreduce_s / 2 : allreduce_s;
  const double gather = sharded ? allreduce_s / 2 * job.activationBytesPerElement() / 4.0 : 0.0;
  if (!schedule.overlap_grad_reduce) {
    f.sync_s = reduce + gather;
    return f;
  }
  const double n = std::max(1.0, std::ceil(params / sim::megatronBucketParams(D)));
  const auto exposed = [n](double compute, double total) {
    return total > 0 ? std::max(compute / n + total, compute + total / n) - compute : 0.0;
  };
  f.sync_s = exposed(backward_s, reduce) + exposed(forward_s, gather);
  return f;
}

// NOTE [Collective efficiency]
// A data-parallel ring all-reduce runs at the link's own figure (collective_efficiency 1): NCCL's
// ring reaches the network's bandwidth on buckets of this size. Every tensor-parallel rank of a
// replica all-reduces its shard at once, so the `gpus` rings of a node share its link: the
// figure at GPU count `gpus` (the format's node aggregate; SAILOR's GH200 fits grow with the
// count, one NIC per GPU, and its RTX fits do not, one NIC per node). SAILOR's measured
// all-reduce seconds agree (docs/simulator.md, Where the measured figures come from). The
// option stays for a network that falls short of its point-to-point figure (set it from
// nccl-tests' bus bandwidth over the link's).
// Each step also reduces: it reads the received chunk and the local one and writes the sum. On
// a GPU that is a kernel at hundreds of GB/s, never the bound; Gloo on CPU processes reduces on
// the cores, between copies through its TCP buffers, and `sailor profile` measured its all-reduce
// between two local ranks at 1.37 GB/s of bus bandwidth against 4.28 GB/s point-to-point on the
// development VM (2026-12-06). A GPU type may therefore carry that bus bandwidth
// (collective_bus_bandwidth_gb_per_s, as nccl-tests defines it: 2 (D - 1) / D x bytes / seconds),
// and a ring step takes the slower of the link's transfer and the chunk at that rate (the lower of
// the two sides' figures). Unset, as for every shipped GPU type, the link alone decides.
double ringAllReduceSeconds(const ResolvedLink& link, double shard_bytes, int D, int gpus,
                            const SimulatorOptions& options, double device_bus_bytes_per_s) {
  assert(options.allreduce_bucket_bytes > 0);
  if (D < 2 || shard_bytes <= 0) return 0;
  const double t = bucketedSeconds(shard_bytes, options.allreduce_bucket_bytes, [&](double bucket) {
    const double on_link = link.transferSeconds(bucket / D, gpus);
    const double on_device = device_bus_bytes_per_s > 0 ? bucket / D / device_bus_bytes_per_s : 0;
    return 2.0 * (D - 1) * std::max(on_link, on_device);
  });
  return t / options.collective_efficiency;
}

// NOTE [Bucket copies]
// A data-parallel step sums the gradients in flat buckets: DeepSpeed's engine flattens each
// bucket (allreduce_bucket: flatten, all-reduce, copy the sums back into the gradients), DDP
// copies them into its bucket views, and sailor run's trainer does as DeepSpeed
// (Trainer::sumOverReplicas). Each copy reads and writes every fp32 gradient: 4 x 4 bytes per
// parameter of memory traffic at the device's bandwidth. On a GPU it is a small term (OPT-350M
// on an A100, 1.3 GB of gradients: 3.4 ms); on a CPU, whose copies run at a few tens of GB/s,
// it is a few percent of the iteration (the scaled OPT-350M on the development VM at 29 GB/s:
// 12 ms of a 0.58 s two-replica iteration, 2026-12-06). Without data parallelism nothing is summed
// and nothing copied.
double stepSeconds(double optimizer_s_per_param, double params, int D, const GpuType& gpu) {
  const double step = optimizer_s_per_param * params;
  if (D < 2) return step;
  return step + 4.0 * 4.0 * params / (gpu.memory_bandwidth_gb_per_s * 1e9);
}

double collectiveBusBytesPerS(const GpuType& a, const GpuType& b) {
  const double x = a.collectiveBusBytesPerS(), y = b.collectiveBusBytesPerS();
  if (x <= 0) return y;
  if (y <= 0) return x;
  return std::min(x, y);
}

int boundaryStreams(int from_tp, int to_tp) {
  return from_tp == to_tp ? from_tp : 1;
}

double boundaryTransferSeconds(const ResolvedLink& link, const ResolvedLink& receiver_node,
                               double bytes, int streams, bool same_node) {
  if (bytes <= 0) return 0;
  const double piece = bytes / streams;
  // Inside one node each pair of GPUs has its own path; between nodes the pieces share the
  // link's figure at that GPU count.
  const double send = link.transferSeconds(piece, same_node ? 1 : streams);
  const double gather = streams > 1 ? (streams - 1) * receiver_node.transferSeconds(piece, 1) : 0.0;
  return send + gather;
}

double Prediction::peakMemoryBytes() const {
  double m = 0;
  for (const auto& b : memory) m = std::max(m, b.total_bytes);
  return m;
}

namespace sim {

// ---- 1. Gather replicas.

namespace {

// A replica's figures from the profiles, before its site and node are known; records the
// sources it used.
ReplicaData replicaFigures(const Replica& r, const Stage& st, const Plan& plan,
                           const Scenario& scenario, const Job& job, const Catalog& catalog,
                           const ProfileSet& profiles,
                           std::map<std::string, std::string>& sources) {
  const ModelSpec& model = catalog.model(job.model, "job.model");
  const int b = plan.microbatch_size;
  const int last_layer = model.numPlanLayers() - 1;
  ReplicaData d;
  d.replica = &r;
  d.gpu = &catalog.gpu(r.gpu_type, "replica.gpu_type");
  const ProfileKey key{model.name, r.gpu_type, b, r.tp};
  auto t = profiles.timings(key, job);
  auto mem = profiles.memory(model.name, r.tp, job);
  auto opt = profiles.optimizerSecondsPerParameter(key, job);
  if (static_cast<int>(t.value.size()) != model.numPlanLayers() ||
      static_cast<int>(mem.value.size()) != model.numPlanLayers())
    throw InputError(
        "profiles",
        t.source + " has " + std::to_string(t.value.size()) + " layers for " + model.name,
        std::to_string(model.numPlanLayers()) + " plan layers");
  sources["timings " + r.gpu_type + " mbs " + std::to_string(b) + " tp " + std::to_string(r.tp)] =
      t.source;
  sources["memory " + model.name + " tp " + std::to_string(r.tp)] = mem.source;
  sources["optimizer " + r.gpu_type + " tp " + std::to_string(r.tp)] = opt.source;
  for (int l = st.first_layer; l <= st.last_layer; ++l) {
    const auto& lt = t.value[static_cast<size_t>(l)];
    const auto& lm = mem.value[static_cast<size_t>(l)];
    d.forward_s += lt.forward_s;
    d.backward_s += lt.backward_s;
    d.params += lm.params;
    d.activation_bytes_per_seq += lm.activation_bytes;
    d.max_layer_activation_per_seq = std::max(d.max_layer_activation_per_seq, lm.working_bytes);
  }
  // Tied embeddings: when one stage holds both the embedding and the head they share the
  // word-embedding matrix; in different stages each keeps a copy (Megatron).
  if (st.first_layer == 0 && st.last_layer == last_layer)
    d.params -= mem.value.back().shared_with_embedding;
  else if (st.last_layer == last_layer) d.tied_params = mem.value.back().shared_with_embedding;
  d.output_elements = mem.value[static_cast<size_t>(st.last_layer)].output_elements;
  d.layers = st.layerCount();
  d.optimizer_s_per_param = opt.value;
  d.gpus_per_node = scenario.gpusPerNode(r.zone, r.gpu_type, catalog);
  if (const Pool* pool = scenario.findPool(r.zone, r.gpu_type))
    d.usd_per_gpu_hour = pool->usd_per_gpu_hour;
  return d;
}

}  // namespace

GatheredReplicas gatherReplicas(const Plan& plan, const Scenario& scenario, const Job& job,
                                const Catalog& catalog, const ProfileSet& profiles) {
  GatheredReplicas g;
  g.stages.resize(plan.stages.size());
  std::map<std::pair<std::string, std::string>, int> site_of;
  for (size_t s = 0; s < plan.stages.size(); ++s) {
    const Stage& st = plan.stages[s];
    auto& reps = g.stages[s];
    // Replicas of one kind (GPU type, tp, zone) in a stage have the same figures: looked up once.
    std::map<std::tuple<std::string, int, std::string>, size_t> same_kind;
    for (const Replica& r : st.replicas) {
      if (auto it = same_kind.find({r.gpu_type, r.tp, r.zone}); it != same_kind.end()) {
        ReplicaData d = reps[it->second];
        d.replica = &r;
        reps.push_back(d);
        continue;
      }
      same_kind[{r.gpu_type, r.tp, r.zone}] = reps.size();
      ReplicaData d = replicaFigures(r, st, plan, scenario, job, catalog, profiles, g.sources);
      if (auto it = site_of.find({r.zone, r.gpu_type}); it != site_of.end()) {
        d.site = it->second;
      } else {
        d.site = static_cast<int>(g.site_replica.size());
        site_of.emplace(std::make_pair(r.zone, r.gpu_type), d.site);
        g.site_replica.push_back(&r);
      }
      reps.push_back(d);
    }
  }
  return g;
}

// ---- 2. Place on nodes.

// NOTE [Node placement]: GPUs are handed out as Megatron-DeepSpeed numbers ranks (pipeline
// stage slowest, then data-parallel replica, tensor-parallel rank fastest) and a launcher
// fills nodes with consecutive ranks: per (zone, GPU type), stage by stage and replica by
// replica, tp GPUs at a time, a tensor-parallel group never split across nodes. Replicas whose
// GPUs land on the same node exchange activations, gradients and all-reduce traffic over the
// node's own fabric (Scenario::intraNodeLink) instead of the network: two tp-2 stages on one
// 4-GPU node, or four tp-2 replicas on one 8-GPU node.
void placeOnNodes(StageReplicas& stages) {
  std::map<int, int> handed_out;  // site -> GPUs given to replicas so far
  for (auto& reps : stages)
    for (ReplicaData& d : reps) {
      const int n = std::max(1, d.gpus_per_node);
      int& used = handed_out[d.site];
      if (used % n + d.replica->tp > n) used += n - used % n;
      d.node = used / n;
      used += d.replica->tp;
    }
}

// Each replica of stage s processes ceil(G / (b * D_s)); the schedule runs the largest count
// (stages with more replicas idle for the rest).
std::vector<int> stageMicrobatches(const Plan& plan, const Job& job) {
  std::vector<int> m;
  for (const Stage& st : plan.stages) m.push_back(plan.microbatches(job.global_batch_size, st));
  return m;
}

// ---- 3. Memory per GPU, and the stages' compute.

// NOTE [Communicator buffers]
// Each NCCL communicator a GPU belongs to allocates, per channel and per connection it receives
// on, a buffer for each protocol: Simple NCCL_BUFFSIZE (default 4 MiB), LL 512 KiB (8 lines per
// thread x 512 threads x 8 steps x 16 B) and LL128 4,915,200 B (120 elements per thread x 640
// threads x 8 steps x 8 B): DEFAULT_BUFFSIZE, DEFAULT_LL_BUFFSIZE and DEFAULT_LL128_BUFFSIZE in
// NCCL's src/init.cc with NCCL_STEPS 8 (src/include/device.h), NCCL 2.18-2.23, read 2026-12-04;
// the NCCL_BUFFSIZE, NCCL_LL_BUFFSIZE and NCCL_LL128_BUFFSIZE variables of NCCL's environment
// documentation override them. At initialisation NCCL connects every channel's ring (one
// connection received, from the ring's previous rank) and tree (the chain inside a node: a
// parent and a child, min(2, n - 1) for n ranks), its log's "Connected all rings" and "Connected
// all trees". Point-to-point sends between two ranks (PyTorch's ProcessGroupNCCL opens a
// two-rank communicator for each pair that sends) use NCCL's p2p channels, 2 per peer by default
// ("2 p2p channels per peer" in the init log), each a connection. So per GPU:
//   channels x connection bytes x (sum over its groups of 1 + min(2, n - 1) + 2 per p2p peer).
// Channels are chosen by NCCL's topology search per node: 2 on PCIe-only 8-GPU servers (the
// "Ring 00" and "Ring 01" of an 8 x RTX 4090 PCIe server, github.com/NVIDIA/nccl-tests/issues/307),
// up to 24-32 on NVSwitch nodes (github.com/NVIDIA/nccl/issues/578: "Channel 00/24" on an
// 8 x A100). The GPU type says (nccl_channels); without it the term is 0 and its
// runtime_overhead_bytes holds whatever the buffers are. A ring's buffers do not grow with its
// size: at tp 8 a GPU holds the same tensor-parallel buffers as at tp 4. Not modelled: the proxy's
// host-side FIFOs (host memory), NVLS buffers (NVSwitch multicast, Hopper), and lazy connection
// (NCCL 2.22's NCCL_RUNTIME_CONNECT, which connects only the algorithms used, so this is an upper
// bound).
namespace {
// NCCL's default buffer bytes per connection, the three protocols (init.cc, above).
constexpr double kNcclConnectionBytes = 4194304.0 + 524288.0 + 4915200.0;
constexpr int kNcclP2pChannelsPerPeer = 2;
}  // namespace

StageGroupShape stageGroupShape(const Plan& plan, bool tied_embeddings, int stage) {
  StageGroupShape sh;
  const auto& stages = plan.stages;
  const int P = static_cast<int>(stages.size());
  const auto& reps = stages[static_cast<size_t>(stage)].replicas;
  sh.replicas = static_cast<int>(reps.size());
  for (const Replica& r : reps) {
    sh.ranks += r.tp;
    sh.one_tp = sh.one_tp && r.tp == reps.front().tp;
  }
  if (tied_embeddings && P > 1 && (stage == 0 || stage == P - 1))
    for (size_t t : {size_t{0}, static_cast<size_t>(P - 1)})
      for (const Replica& r : stages[t].replicas) sh.tied_members += r.tp;
  // Pairs across each boundary: pair j joins replica j mod D of either side.
  int side = 0;
  for (int other : {stage - 1, stage + 1}) {
    if (other >= 0 && other < P)
      sh.neighbour_pairs[side] = std::max(
          sh.replicas, static_cast<int>(stages[static_cast<size_t>(other)].replicas.size()));
    ++side;
  }
  return sh;
}

GpuGroups gpuGroups(const StageGroupShape& sh, int tp, int replica) {
  GpuGroups g;
  const int D = sh.replicas;
  if (tp > 1) g.collective_sizes.push_back(tp);
  // One tp degree: a group per tp rank of the D replicas; mixed degrees: the padded group of
  // every rank of the stage.
  if (D > 1) g.collective_sizes.push_back(sh.one_tp ? D : sh.ranks);
  if (sh.tied_members > 0) g.collective_sizes.push_back(sh.tied_members);
  // Pair j joins replica j mod D: the pairs j = replica, replica + D, ... below the count.
  for (int pairs : sh.neighbour_pairs)
    if (pairs > replica) g.p2p_peers += (pairs - 1 - replica) / D + 1;
  return g;
}

GpuGroups gpuGroups(const Plan& plan, bool tied_embeddings, int stage, int replica) {
  return gpuGroups(
      stageGroupShape(plan, tied_embeddings, stage),
      plan.stages[static_cast<size_t>(stage)].replicas[static_cast<size_t>(replica)].tp, replica);
}

double communicatorBytes(const GpuType& gpu, const GpuGroups& groups) {
  if (gpu.nccl_channels <= 0) return 0;
  const double per_connection = gpu.nccl_connection_bytes > 0
                                    ? static_cast<double>(gpu.nccl_connection_bytes)
                                    : kNcclConnectionBytes;
  double connections = kNcclP2pChannelsPerPeer * static_cast<double>(groups.p2p_peers);
  for (int n : groups.collective_sizes)
    if (n > 1) connections += gpu.nccl_channels * (1.0 + std::min(2, n - 1));
  return connections * per_connection;
}

MemoryBreakdown replicaMemory(const ReplicaData& d, int stage, int replica, int stages,
                              int microbatches, int microbatch_size, const Job& job,
                              const GpuGroups& groups, const Schedule& schedule, int dp) {
  const int b = microbatch_size;
  MemoryBreakdown mb;
  mb.gpu_type = d.replica->gpu_type;
  mb.zone = d.replica->zone;
  mb.stage = stage;
  mb.replica = replica;
  mb.tp = d.replica->tp;
  mb.node = d.node;
  mb.model_state_bytes = modelStateBytes(d.params, job, schedule.sharding, dp);
  // NOTE [Why stage s holds min(P - s, m) microbatches]: under 1F1B stage s runs P - s - 1
  // warm-up forwards before its first backward, so P - s microbatches have activations
  // alive at its peak; never more than there are microbatches. Interleaved, the warm-up's
  // chunks and the one in flight, each 1/v of the stage's activations (NOTE [Interleaved
  // 1F1B]).
  const int v = schedule.virtual_stages;
  mb.microbatches_in_flight = std::min(stages - stage, microbatches);
  mb.activation_bytes = d.activation_bytes_per_seq * b * mb.microbatches_in_flight;
  if (v > 1) {
    const int chunks =
        std::min(microbatches * v, interleavedWarmup(stages, stage, microbatches, v) + 1);
    mb.microbatches_in_flight = (chunks + v - 1) / v;
    mb.activation_bytes = d.activation_bytes_per_seq * b * chunks / v;
  }
  // Backward of a layer materialises gradients shaped like its saved activations, while the
  // autograd engine still holds the incoming gradient and the outputs: about twice the
  // largest layer's activations of one microbatch on top of what is stored. Fully sharded, the
  // gathered parameters of the layer computing and of the one prefetched are there too.
  mb.transient_bytes = 2.0 * d.max_layer_activation_per_seq * b;
  if (schedule.sharding == DpSharding::Full && dp >= 2)
    mb.transient_bytes += 2.0 * d.params / std::max(1, d.layers) * job.activationBytesPerElement();
  // Megatron-LM's data parallelism (overlapped or sharded) reduces in the contiguous fp32
  // gradient buffer the model state counts; DeepSpeed's engine copies into a bucket.
  const bool megatron = schedule.overlap_grad_reduce || schedule.sharding != DpSharding::None;
  mb.gradient_bucket_bytes = megatron ? 0.0 : gradientBucketBytes(d.params, job);
  mb.runtime_overhead_bytes = static_cast<double>(d.gpu->runtime_overhead_bytes);
  mb.communicator_bytes = communicatorBytes(*d.gpu, groups);
  mb.communicators = static_cast<int>(groups.collective_sizes.size()) + groups.p2p_peers;
  mb.total_bytes = mb.model_state_bytes + mb.activation_bytes + mb.transient_bytes +
                   mb.gradient_bucket_bytes + mb.runtime_overhead_bytes + mb.communicator_bytes;
  assert(!schedule.isDefault() ||
         std::fabs(mb.total_bytes - mb.communicator_bytes -
                   replicaMemoryBytes(d.params, d.activation_bytes_per_seq,
                                      d.max_layer_activation_per_seq, b, mb.microbatches_in_flight,
                                      job, *d.gpu)) <= 1e-6 * mb.total_bytes);
  mb.capacity_bytes = static_cast<double>(d.gpu->memory_bytes);
  return mb;
}

std::string outOfMemoryMessage(const MemoryBreakdown& m) {
  return "stage " + std::to_string(m.stage) + " replica " + std::to_string(m.replica) + " (" +
         m.gpu_type + ", tp " + std::to_string(m.tp) + ", " + m.zone + ") needs " +
         fmtGiB(m.total_bytes) + " of " + fmtGiB(m.capacity_bytes) + ": over by " +
         fmtGiB(m.total_bytes - m.capacity_bytes);
}

std::vector<StageTimes> stageCompute(const StageReplicas& stages,
                                     const std::vector<int>& microbatches) {
  std::vector<StageTimes> times(stages.size());
  for (size_t s = 0; s < stages.size(); ++s) {
    StageTimes& st = times[s];
    st.microbatches = microbatches[s];
    const auto& reps = stages[s];
    for (size_t k = 0; k < reps.size(); ++k) {
      if (reps[k].forward_s + reps[k].backward_s > st.forward_s + st.backward_s) {
        st.forward_s = reps[k].forward_s;
        st.backward_s = reps[k].backward_s;
        st.straggler_replica = static_cast<int>(k);
      }
    }
  }
  return times;
}

// ---- 4. Links, and the egress they carry.

Links::Links(const Scenario& scenario, const Catalog& catalog,
             std::vector<const Replica*> site_replica, const LinkIndex* index)
    : scenario_(scenario),
      catalog_(catalog),
      site_replica_(std::move(site_replica)),
      resolve_(scenario, index) {}

const ResolvedLink& Links::node(const ReplicaData& x) {
  auto it = in_node_.find(x.site);
  if (it == in_node_.end())
    it = in_node_.emplace(x.site, scenario_.intraNodeLink(x.replica->gpu_type, catalog_)).first;
  return it->second;
}

bool Links::sameNode(const ReplicaData& x, const ReplicaData& y) {
  return x.site == y.site && x.node == y.node;
}

const ResolvedLink& Links::between(const ReplicaData& x, const ReplicaData& y, int g) {
  if (sameNode(x, y)) return node(x);
  auto key = std::make_tuple(x.site, y.site, g);
  auto it = by_site_.find(key);
  if (it == by_site_.end()) {
    const Replica& a = *site_replica_[static_cast<size_t>(x.site)];
    const Replica& c = *site_replica_[static_cast<size_t>(y.site)];
    it = by_site_.emplace(key, resolve_({a.zone, a.gpu_type, c.zone, c.gpu_type, g})).first;
  }
  return it->second;
}

int Links::ringGpus(const ReplicaData& x, const ReplicaData& y) {
  return sameNode(x, y) ? 1 : x.replica->tp;
}

void EgressLedger::add(const std::string& from_zone, const std::string& to_zone, double bytes) {
  if (bytes <= 0 || from_zone == to_zone) return;
  // Newest first: callers book runs of one zone pair (and its reverse).
  for (auto it = items_.rbegin(); it != items_.rend(); ++it)
    if (it->from_zone == from_zone && it->to_zone == to_zone) {
      it->bytes += bytes;
      return;
    }
  items_.push_back({from_zone, to_zone, bytes, 0});
}

// ---- 5. Boundary transfers.

// NOTE [Point-to-point transfers]: DeepSpeed's pipeline engine partitions the boundary
// activation (b * s * h elements) over the sender's tensor-parallel ranks (pipe_partitioned,
// and grad_partitioned for the gradient coming back: on by default with tp > 1, and SAILOR's
// runs keep the defaults): each of the t GPUs sends 1/t of it to the same rank of its partner
// at once, and the receiving replica all-gathers the pieces over its node's fabric (t - 1 ring
// steps) before using them. Between nodes the t pieces share the link's figure at GPU count t
// (the node's aggregate: one NIC per GPU on GH200 nodes, one per node on the RTX cluster);
// inside a node each pair of GPUs has its own path. Replicas of different tp send the whole
// message from one GPU (the pieces would not line up). boundaryTransferSeconds.
// Replica pairing across a stage boundary: replica j of one stage talks to replica j mod D of
// the other; with different degrees every replica of both sides has a partner.
std::vector<std::vector<PairSeconds>> boundaryTransfers(const StageReplicas& stages,
                                                        const std::vector<int>& microbatches,
                                                        int microbatch_size, int bytes_per_element,
                                                        Links& links, EgressLedger& egress,
                                                        std::vector<StageTimes>& times) {
  const int b = microbatch_size;
  const int e = bytes_per_element;
  std::vector<std::vector<PairSeconds>> pair_s(stages.size());
  for (size_t s = 0; s + 1 < stages.size(); ++s) {
    const auto& a = stages[s];
    const auto& c = stages[s + 1];
    const size_t pairs = std::max(a.size(), c.size());
    double fwd = 0, bwd = 0;
    pair_s[s].reserve(pairs);
    // A pair like the one before it (sites, tp degrees, node sharing, message) takes the same
    // seconds: plans hold runs of equal replicas, so most pairs repeat their neighbour's.
    const ReplicaData* px = nullptr;
    const ReplicaData* py = nullptr;
    bool p_same = false;
    double f = 0, g = 0;
    for (size_t j = 0; j < pairs; ++j) {
      const ReplicaData& x = a[j % a.size()];
      const ReplicaData& y = c[j % c.size()];
      const double msg = x.output_elements * b * e;
      const int streams = boundaryStreams(x.replica->tp, y.replica->tp);
      const bool same_node = Links::sameNode(x, y);
      if (!px || x.site != px->site || y.site != py->site || x.replica->tp != px->replica->tp ||
          y.replica->tp != py->replica->tp || same_node != p_same ||
          x.output_elements != px->output_elements) {
        f = boundaryTransferSeconds(links.between(x, y, streams), links.node(y), msg, streams,
                                    same_node);
        g = boundaryTransferSeconds(links.between(y, x, streams), links.node(x), msg, streams,
                                    same_node);
        px = &x;
        py = &y;
        p_same = same_node;
      }
      pair_s[s].push_back({f, g});
      fwd = std::max(fwd, f);
      bwd = std::max(bwd, g);
      // Bytes per iteration: the sender's microbatches, split over the pairs it serves.
      const double share = static_cast<double>(microbatches[s]) * static_cast<double>(a.size()) /
                           static_cast<double>(pairs);
      egress.add(x.replica->zone, y.replica->zone, msg * share);
      egress.add(y.replica->zone, x.replica->zone, msg * share);
    }
    times[s].send_forward_s = fwd;
    times[s + 1].send_backward_s = bwd;
  }
  return pair_s;
}

// ---- 6. The pipeline schedules, event by event, per data-parallel pipeline.

namespace {

// x is nowhere slower than y: no larger compute or transfer time in any stage.
bool noSlower(const std::vector<StageTimes>& x, const std::vector<StageTimes>& y) {
  for (size_t s = 0; s < x.size(); ++s) {
    const StageTimes& u = x[s];
    const StageTimes& v = y[s];
    if (u.forward_s > v.forward_s || u.backward_s > v.backward_s ||
        u.send_forward_s > v.send_forward_s || u.send_backward_s > v.send_backward_s)
      return false;
  }
  return true;
}

}  // namespace

// NOTE [Data-parallel pipelines]: with the same number of replicas D in every stage, replica j
// of every stage forms pipeline j: its microbatches flow only through its own replicas and
// links, so the D pipelines run their schedules independently until each stage's gradient
// all-reduce, which waits for the last of them. A pipeline is as slow as its own GPUs and its
// own links: a slow GPU in one pipeline and a slow link in another do not add up, as taking
// the straggler's compute with the slowest pair's transfer would have them do. Pipelines no
// slower anywhere than another one (the same kinds of replica, the same links) cannot finish
// later (the schedule only adds and takes maxima) and are not simulated. With different
// degrees per stage (replica j talks to j mod D) pipelines share replicas; one pipeline of the
// straggler and slowest-pair figures of every stage then bounds them.
std::vector<std::vector<StageTimes>> dataParallelPipelines(
    const StageReplicas& stages, const std::vector<StageTimes>& times,
    const std::vector<std::vector<PairSeconds>>& pairs, const std::vector<int>& microbatches) {
  const size_t P = stages.size();
  const size_t D0 = stages[0].size();
  bool same_degree = true;
  for (const auto& reps : stages) same_degree = same_degree && reps.size() == D0;
  if (!same_degree || D0 == 1) return {times};
  std::vector<std::vector<StageTimes>> pipelines;
  std::vector<StageTimes> p(P);
  for (size_t j = 0; j < D0; ++j) {
    for (size_t s = 0; s < P; ++s) {
      p[s].forward_s = stages[s][j].forward_s;
      p[s].backward_s = stages[s][j].backward_s;
      p[s].microbatches = microbatches[s];
      if (s + 1 < P) {
        p[s].send_forward_s = pairs[s][j].forward_s;
        p[s + 1].send_backward_s = pairs[s][j].backward_s;
      }
    }
    if (std::any_of(pipelines.begin(), pipelines.end(),
                    [&](const std::vector<StageTimes>& q) { return noSlower(p, q); }))
      continue;
    std::erase_if(pipelines, [&](const std::vector<StageTimes>& q) { return noSlower(q, p); });
    pipelines.push_back(p);
  }
  return pipelines;
}

// NOTE [DeepSpeed pipeline schedule]
// Megatron-DeepSpeed runs DeepSpeed's PipelineEngine TrainSchedule: 2 (m + P - 1) steps per
// stage; on even steps even stages run a forward and odd stages a backward, and the other way
// round on odd steps. Before a forward a stage sends the previous step's input gradient back and
// receives the activation; before a backward it receives the output gradient and sends the
// previous step's activation on. Point-to-point operations are blocking NCCL sends and receives
// on the compute stream, so a transfer starts when both ends have reached it and occupies both
// for its whole duration. The instruction order makes this deadlock-free.
std::vector<PipeOp> deepSpeedOps(int P, int s, int M) {
  std::vector<PipeOp> ops;
  const int steps = 2 * (M + P - 1);
  auto valid = [&](int mb) { return mb >= 0 && mb < M; };
  int prev = -1;
  for (int step = 0; step < steps; ++step) {
    const bool even_step = step % 2 == 0, even_stage = s % 2 == 0;
    int mb = 0;
    bool forward = true;
    if (even_step && even_stage) mb = step / 2 - s / 2;
    else if (!even_step && !even_stage) mb = (step - 1) / 2 - s / 2;
    else if (even_step && !even_stage) mb = step / 2 - P + (s + 1) / 2, forward = false;
    else mb = (step - 1) / 2 - P + 1 + s / 2, forward = false;
    if (forward) {
      if (valid(prev) && s > 0) ops.push_back({PipeOp::SendGrad, prev});
      if (valid(mb) && s > 0) ops.push_back({PipeOp::RecvAct, mb});
    } else {
      if (valid(mb) && s + 1 < P) ops.push_back({PipeOp::RecvGrad, mb});
      if (valid(prev) && s + 1 < P) ops.push_back({PipeOp::SendAct, prev});
    }
    if (valid(mb)) ops.push_back({forward ? PipeOp::Forward : PipeOp::Backward, mb});
    prev = mb;
  }
  return ops;
}

namespace {

// Runs `stages` through DeepSpeed's schedule, accumulating into r (its vectors sized P, zero);
// records the operations in *timeline when it is not null.
void runDeepSpeedSchedule(const std::vector<StageTimes>& stages, int M, PipelineRun& r,
                          std::vector<TimelineOp>* timeline) {
  const int P = static_cast<int>(stages.size());
  auto& free_at = r.free_at;
  auto& busy = r.busy;
  auto& comm = r.comm;
  auto& last_backward = r.last_backward;
  std::vector<std::vector<PipeOp>> ops(static_cast<size_t>(P));
  for (int s = 0; s < P; ++s) ops[static_cast<size_t>(s)] = deepSpeedOps(P, s, M);
  std::vector<size_t> next(static_cast<size_t>(P), 0);
  auto matches = [](PipeOp::Kind k) {
    switch (k) {
      case PipeOp::SendAct: return PipeOp::RecvAct;
      case PipeOp::RecvAct: return PipeOp::SendAct;
      case PipeOp::SendGrad: return PipeOp::RecvGrad;
      default: return PipeOp::SendGrad;
    }
  };
  bool progress = true;
  while (progress) {
    progress = false;
    for (int s = 0; s < P; ++s) {
      const size_t su = static_cast<size_t>(s);
      while (next[su] < ops[su].size()) {
        const PipeOp op = ops[su][next[su]];
        const StageTimes& st = stages[su];
        if (op.kind == PipeOp::Forward || op.kind == PipeOp::Backward) {
          const bool f = op.kind == PipeOp::Forward;
          const double d = f ? st.forward_s : st.backward_s;
          if (timeline)
            timeline->push_back({s, op.microbatch, f ? 'F' : 'B', free_at[su], free_at[su] + d});
          free_at[su] += d;
          busy[su] += d;
          if (!f) last_backward[su] = free_at[su];
          ++next[su];
          progress = true;
          continue;
        }
        const bool towards_next = op.kind == PipeOp::SendAct || op.kind == PipeOp::RecvGrad;
        const int peer = towards_next ? s + 1 : s - 1;
        const size_t pu = static_cast<size_t>(peer);
        if (next[pu] >= ops[pu].size()) break;
        const PipeOp other = ops[pu][next[pu]];
        if (other.kind != matches(op.kind) || other.microbatch != op.microbatch) break;
        // Activations travel s -> s+1 (send_forward_s of the lower stage), gradients s+1 -> s
        // (send_backward_s of the upper stage).
        const bool activation = op.kind == PipeOp::SendAct || op.kind == PipeOp::RecvAct;
        const size_t lower = std::min(su, pu);
        const double d =
            activation ? stages[lower].send_forward_s : stages[lower + 1].send_backward_s;
        const double start = std::max(free_at[su], free_at[pu]);
        if (d > 0 && timeline) {
          timeline->push_back({s, op.microbatch, 'S', start, start + d});
          timeline->push_back({peer, op.microbatch, 'S', start, start + d});
        }
        free_at[su] = free_at[pu] = start + d;
        comm[su] += d;
        comm[pu] += d;
        ++next[su];
        ++next[pu];
        progress = true;
      }
    }
  }
  for (int s = 0; s < P; ++s)
    assert(next[static_cast<size_t>(s)] == ops[static_cast<size_t>(s)].size() &&
           "pipeline schedule deadlocked");
}

// Non-blocking alternative: 1F1B order (min(P - s - 1, m) warm-up forwards, then alternate),
// transfers overlap with compute and only delay the operation that needs their data, so r.comm
// stays 0.
void runAsync1F1B(const std::vector<StageTimes>& stages, int M, PipelineRun& r,
                  std::vector<TimelineOp>* timeline) {
  const int P = static_cast<int>(stages.size());
  auto& free_at = r.free_at;
  auto& busy = r.busy;
  auto& last_backward = r.last_backward;
  std::vector<std::vector<std::pair<char, int>>> order(static_cast<size_t>(P));
  for (int s = 0; s < P; ++s) {
    const int warm = std::min(P - s - 1, M);
    auto& o = order[static_cast<size_t>(s)];
    for (int i = 0; i < warm; ++i) o.emplace_back('F', i);
    int fi = warm;
    for (int bi = 0; bi < M; ++bi) {
      if (fi < M) o.emplace_back('F', fi++);
      o.emplace_back('B', bi);
    }
  }
  std::vector<std::vector<double>> fend(static_cast<size_t>(P),
                                        std::vector<double>(static_cast<size_t>(M), -1)),
      bend(static_cast<size_t>(P), std::vector<double>(static_cast<size_t>(M), -1));
  std::vector<size_t> next(static_cast<size_t>(P), 0);
  bool progress = true;
  while (progress) {
    progress = false;
    for (int s = 0; s < P; ++s) {
      const size_t su = static_cast<size_t>(s);
      const StageTimes& st = stages[su];
      while (next[su] < order[su].size()) {
        const auto [kind, i] = order[su][next[su]];
        const size_t iu = static_cast<size_t>(i);
        double start = free_at[su];
        if (kind == 'F') {
          if (s > 0) {
            if (fend[su - 1][iu] < 0) break;
            const double sent = fend[su - 1][iu], d = stages[su - 1].send_forward_s;
            start = std::max(start, sent + d);
            // The transfer runs beside compute, on both ends' communication; transfers may overlap.
            if (d > 0 && timeline) {
              timeline->push_back({s - 1, i, 'S', sent, sent + d});
              timeline->push_back({s, i, 'S', sent, sent + d});
            }
          }
          fend[su][iu] = start + st.forward_s;
          if (timeline) timeline->push_back({s, i, 'F', start, fend[su][iu]});
          busy[su] += st.forward_s;
          free_at[su] = fend[su][iu];
        } else {
          if (s + 1 < P) {
            if (bend[su + 1][iu] < 0) break;
            const double sent = bend[su + 1][iu], d = stages[su + 1].send_backward_s;
            start = std::max(start, sent + d);
            if (d > 0 && timeline) {
              timeline->push_back({s + 1, i, 'S', sent, sent + d});
              timeline->push_back({s, i, 'S', sent, sent + d});
            }
          }
          bend[su][iu] = start + st.backward_s;
          if (timeline) timeline->push_back({s, i, 'B', start, bend[su][iu]});
          busy[su] += st.backward_s;
          free_at[su] = bend[su][iu];
          last_backward[su] = free_at[su];
        }
        ++next[su];
        progress = true;
      }
    }
  }
  for (int s = 0; s < P; ++s)
    assert(next[static_cast<size_t>(s)] == order[static_cast<size_t>(s)].size() &&
           "1F1B schedule deadlocked");
}

}  // namespace

double PipelineRun::doneAt(size_t s) const {
  return std::max(free_at[s], last_backward[s]);
}

PipelineRun runPipeline(const std::vector<StageTimes>& times, int M, PipelineSchedule schedule,
                        bool timeline) {
  PipelineRun r{std::vector<double>(times.size(), 0.0),
                std::vector<double>(times.size(), 0.0),
                std::vector<double>(times.size(), 0.0),
                std::vector<double>(times.size(), 0.0),
                {}};
  std::vector<TimelineOp>* ops = timeline ? &r.ops : nullptr;
  if (schedule == PipelineSchedule::DeepSpeed) runDeepSpeedSchedule(times, M, r, ops);
  else runAsync1F1B(times, M, r, ops);
  return r;
}

std::vector<double> stageDone(const std::vector<PipelineRun>& runs, size_t P) {
  std::vector<double> done(P, 0.0);
  for (const auto& r : runs)
    for (size_t s = 0; s < P; ++s) done[s] = std::max(done[s], r.doneAt(s));
  return done;
}

// ---- 7. Data-parallel gradient all-reduce per stage (bucketed ring among its replicas; every
// tp rank all-reduces its shard at once over the node's link), then the optimizer step.

namespace {
constexpr double kGradientBytes = 4.0;  // fp32 gradients (also for mixed precision, see job.cpp)
}  // namespace

// NOTE [Tied embedding gradients]: with the word embedding tied to the head and the two in
// different stages, each keeps a copy, and DeepSpeed's pipeline engine all-reduces the copies'
// gradients between the first and the last stage (ReduceTiedGrads) before the data-parallel
// all-reduce and the step: a ring of two per pipeline (replica j of stage 0 with replica j of
// the last stage), each tp rank its shard of the matrix. Both stages wait for it.
double tiedEmbeddingSync(const StageReplicas& stages, Links& links, EgressLedger& egress,
                         const SimulatorOptions& options) {
  if (stages.size() < 2) return 0;
  double tied_sync = 0;
  const auto& first = stages.front();
  const auto& last = stages.back();
  for (size_t j = 0; j < std::max(first.size(), last.size()); ++j) {
    const ReplicaData& y = last[j % last.size()];
    if (y.tied_params <= 0) continue;
    const ReplicaData& x = first[j % first.size()];
    const double shard = y.tied_params * kGradientBytes;
    const int g = Links::ringGpus(y, x);  // every tp rank its shard, at once
    tied_sync =
        std::max(tied_sync, ringAllReduceSeconds(links.between(y, x, g), shard, 2, g, options,
                                                 collectiveBusBytesPerS(*x.gpu, *y.gpu)));
    // A ring of two: each side sends half of the matrix's gradients to the other.
    egress.add(x.replica->zone, y.replica->zone, 0.5 * shard * x.replica->tp);
    egress.add(y.replica->zone, x.replica->zone, 0.5 * shard * y.replica->tp);
  }
  return tied_sync;
}

SyncAndStep stageSyncAndStep(const std::vector<ReplicaData>& replicas, Links& links,
                             EgressLedger& egress, const SimulatorOptions& options) {
  const int D = static_cast<int>(replicas.size());
  SyncAndStep r;
  for (int k = 0; k < D; ++k) {
    const ReplicaData& x = replicas[static_cast<size_t>(k)];
    r.optimizer_s =
        std::max(r.optimizer_s, stepSeconds(x.optimizer_s_per_param, x.params, D, *x.gpu));
    if (D < 2) continue;
    const ReplicaData& y = replicas[static_cast<size_t>((k + 1) % D)];
    const int g = Links::ringGpus(x, y);
    const ResolvedLink& link = links.between(x, y, g);
    const double shard = x.params * kGradientBytes;
    r.sync_s = std::max(r.sync_s, ringAllReduceSeconds(link, shard, D, g, options,
                                                       collectiveBusBytesPerS(*x.gpu, *y.gpu)));
    // Ring all-reduce: each replica sends 2 (D-1)/D of the stage's gradients to its successor.
    egress.add(x.replica->zone, y.replica->zone, 2.0 * (D - 1) / D * shard * x.replica->tp);
  }
  return r;
}

// ---- 6-7 under shared compute: ranks of one node computing at once.

// NOTE [Ranks sharing a device]
// A node's GPUs each have their own compute: ranks on different GPUs do not slow each other
// down. Ranks that are processes on the same CPU cores (sailor run on this machine) do: k ranks
// computing at once each take slowdown(k) times as long as one alone, slowdown(k) being the GPU
// type's shared_compute_slowdown as `sailor profile` measures it (the tp-1 layers in k processes
// at once; on the 2-core development VM 2.17 for two, more than the two cores allow, as they
// share a physical core and the host's time). The simulator applies it as processor sharing
// inside the event-by-event schedule: while k(t) ranks of a node compute (k counts each computing
// replica's tp ranks), an operation of a replica of tp t progresses at slowdown(t) / slowdown(k(t))
// of its profiled rate: a profile's tp-t figures were measured with the t ranks computing at once
// (sailor profile runs one process per tp rank), so they already hold slowdown(t). Transfers and
// all-reduces do not compute; waiting ranks do not either. Optimizer steps do, so the steps of
// replicas that end together share too. Every pipeline is simulated (identical pipelines share the
// node, so none can stand for another); with different data-parallel degrees per stage the
// bounding pipeline of straggler figures is simulated with its stages sharing among themselves,
// the other replicas' compute not counted. GPU types without the figure never share: their
// predictions come from runPipeline and stageSyncAndStep as before.

namespace {

class SharedCompute {
 public:
  SharedCompute(const SharedComputeInput& in, int M, PipelineSchedule schedule, bool timeline)
      : in_(in), J_(in.pipelines.size()), P_(in.pipelines.front().size()), timeline_(timeline) {
    const size_t n = J_ * P_;
    ops_.resize(n), end_.resize(n), next_.assign(n, 0), running_.assign(n, false);
    start_.assign(n, 0), left_.assign(n, 0), wake_.assign(n, -1);
    for (size_t j = 0; j < J_; ++j)
      for (size_t s = 0; s < P_; ++s)
        schedule == PipelineSchedule::DeepSpeed ? deepSpeedAgent(j, s, M) : asyncAgent(j, s, M);
    for (size_t a = 0; a < n; ++a) scheduled_.push_back(ops_[a].size());  // M >= 1: never 0
    for (size_t j = 0; j < J_; ++j)
      for (size_t s = 0; s < P_; ++s) stepOp(j, s);
    for (size_t a = 0; a < n; ++a) end_[a].assign(ops_[a].size(), -1.0);
    out_.runs.resize(J_);
    for (PipelineRun& r : out_.runs)
      r.free_at = r.busy = r.comm = r.last_backward = std::vector<double>(P_, 0.0);
    out_.stage_end.assign(P_, 0.0);
    out_.optimizer_s.assign(P_, 0.0);
  }

  SharedComputeRun run() {
    for (;;) {
      for (bool changed = true; changed;) {
        changed = false;
        for (size_t a = 0; a < ops_.size(); ++a)
          if (!running_[a] && next_[a] < ops_[a].size()) changed |= tryStart(a);
      }
      if (!advance()) break;
    }
    for (size_t a = 0; a < ops_.size(); ++a)
      assert(next_[a] == ops_[a].size() && "shared-compute schedule deadlocked");
    return std::move(out_);
  }

 private:
  struct Op {
    enum Kind { Compute, Transfer, Step } kind;
    PipeOp::Kind pipe;  // Forward or Backward (Compute), the transfer's side (Transfer)
    int microbatch;
    double seconds;   // profiled compute (Compute, Step) or duration (Transfer)
    size_t peer = 0;  // Transfer: the other end, whose current op must be the matching one
    std::vector<std::pair<size_t, size_t>> deps;  // (agent, op) that must have ended
    double delay_s = 0;  // after the last of them (a transfer beside compute, an all-reduce)
  };

  static Op makeOp(Op::Kind kind, PipeOp::Kind pipe, int microbatch, double seconds,
                   size_t peer = 0) {
    Op op{kind, pipe, microbatch, seconds, peer, {}, 0};
    return op;
  }
  size_t agent(size_t j, size_t s) const { return j * P_ + s; }
  const ReplicaData& replicaOf(size_t a) const { return *in_.replicas[a / P_][a % P_]; }
  const StageTimes& timesOf(size_t a) const { return in_.pipelines[a / P_][a % P_]; }

  void deepSpeedAgent(size_t j, size_t s, int M) {
    const StageTimes& st = in_.pipelines[j][s];
    for (const PipeOp& p : deepSpeedOps(static_cast<int>(P_), static_cast<int>(s), M)) {
      if (p.kind == PipeOp::Forward || p.kind == PipeOp::Backward) {
        ops_[agent(j, s)].push_back(
            makeOp(Op::Compute, p.kind, p.microbatch,
                   p.kind == PipeOp::Forward ? st.forward_s : st.backward_s));
        continue;
      }
      const bool towards_next = p.kind == PipeOp::SendAct || p.kind == PipeOp::RecvGrad;
      const size_t peer_stage = towards_next ? s + 1 : s - 1;
      const bool activation = p.kind == PipeOp::SendAct || p.kind == PipeOp::RecvAct;
      const size_t lower = std::min(s, peer_stage);
      const double d = activation ? in_.pipelines[j][lower].send_forward_s
                                  : in_.pipelines[j][lower + 1].send_backward_s;
      ops_[agent(j, s)].push_back(
          makeOp(Op::Transfer, p.kind, p.microbatch, d, agent(j, peer_stage)));
    }
  }

  // 1F1B order (runAsync1F1B's); a forward waits for the previous stage's forward and its
  // transfer, a backward for the next stage's backward and its transfer.
  void asyncAgent(size_t j, size_t s, int M) {
    const int P = static_cast<int>(P_);
    const int warm = std::min(P - static_cast<int>(s) - 1, M);
    std::vector<std::pair<PipeOp::Kind, int>> order;
    for (int i = 0; i < warm; ++i) order.emplace_back(PipeOp::Forward, i);
    for (int fi = warm, bi = 0; bi < M; ++bi) {
      if (fi < M) order.emplace_back(PipeOp::Forward, fi++);
      order.emplace_back(PipeOp::Backward, bi);
    }
    const StageTimes& st = in_.pipelines[j][s];
    for (auto [kind, i] : order)
      ops_[agent(j, s)].push_back(
          makeOp(Op::Compute, kind, i, kind == PipeOp::Forward ? st.forward_s : st.backward_s));
    if (s == 0) return;
    // Dependencies once both neighbours' orders are known: stage s-1 was built first.
    auto index_of = [&](size_t a, PipeOp::Kind kind, int mb) {
      for (size_t k = 0; k < ops_[a].size(); ++k)
        if (ops_[a][k].pipe == kind && ops_[a][k].microbatch == mb) return k;
      return ops_[a].size();
    };
    const size_t lo = agent(j, s - 1), hi = agent(j, s);
    for (Op& op : ops_[hi])
      if (op.pipe == PipeOp::Forward) {
        op.deps.push_back({lo, index_of(lo, PipeOp::Forward, op.microbatch)});
        op.delay_s = in_.pipelines[j][s - 1].send_forward_s;
      }
    for (Op& op : ops_[lo])
      if (op.pipe == PipeOp::Backward) {
        op.deps.push_back({hi, index_of(hi, PipeOp::Backward, op.microbatch)});
        op.delay_s = in_.pipelines[j][s].send_backward_s;
      }
  }

  // The optimizer step: after every pipeline is done with the stage (with the first and the last
  // stage when a tied embedding is all-reduced between them), its all-reduce, then the step.
  void stepOp(size_t j, size_t s) {
    Op op = makeOp(Op::Step, PipeOp::Forward, -1, in_.step_s[j][s]);
    const bool tied = in_.tied_sync_s > 0 && (s == 0 || s + 1 == P_);
    const std::vector<size_t> stages = tied ? std::vector<size_t>{0, P_ - 1} : std::vector{s};
    for (size_t k = 0; k < J_; ++k)
      for (size_t t : stages) op.deps.push_back({agent(k, t), scheduled_[agent(k, t)] - 1});
    op.delay_s = (tied ? in_.tied_sync_s : 0.0) + in_.sync_s[s];
    ops_[agent(j, s)].push_back(std::move(op));
  }

  // Starts agent a's next operation at now_ when it can; whether anything changed.
  bool tryStart(size_t a) {
    const Op& op = ops_[a][next_[a]];
    if (!op.deps.empty()) {
      double ready = 0;
      for (auto [b, k] : op.deps) {
        if (end_[b][k] < 0) return false;
        ready = std::max(ready, end_[b][k]);
      }
      ready += op.delay_s;
      if (ready > now_ * (1 + 1e-12)) {
        wake_[a] = ready;
        return false;
      }
      if (timeline_ && op.kind == Op::Compute && op.delay_s > 0) {
        const size_t b = op.deps.front().first;
        pushTimeline(b, {static_cast<int>(b % P_), op.microbatch, 'S', ready - op.delay_s, ready});
        pushTimeline(a, {static_cast<int>(a % P_), op.microbatch, 'S', ready - op.delay_s, ready});
      }
    }
    wake_[a] = -1;
    if (op.kind == Op::Transfer) return tryTransfer(a, op);
    running_[a] = true;
    start_[a] = now_;
    left_[a] = op.seconds;
    if (op.seconds <= 0) finish(a);
    return true;
  }

  // The other end of a transfer: a send's receive and a receive's send.
  static PipeOp::Kind counterpart(PipeOp::Kind k) {
    switch (k) {
      case PipeOp::SendAct: return PipeOp::RecvAct;
      case PipeOp::RecvAct: return PipeOp::SendAct;
      case PipeOp::SendGrad: return PipeOp::RecvGrad;
      default: return PipeOp::SendGrad;
    }
  }

  bool tryTransfer(size_t a, const Op& op) {
    const size_t p = op.peer;
    if (running_[p] || next_[p] >= ops_[p].size()) return false;
    const Op& other = ops_[p][next_[p]];
    if (other.kind != Op::Transfer || other.peer != a || other.microbatch != op.microbatch ||
        other.pipe != counterpart(op.pipe))
      return false;
    for (size_t x : {a, p}) {
      running_[x] = true;
      start_[x] = now_;
      left_[x] = now_ + op.seconds;  // a transfer's end
    }
    if (op.seconds > 0 && timeline_) {
      pushTimeline(a, {static_cast<int>(a % P_), op.microbatch, 'S', now_, now_ + op.seconds});
      pushTimeline(p, {static_cast<int>(p % P_), op.microbatch, 'S', now_, now_ + op.seconds});
    }
    if (op.seconds <= 0) finish(a), finish(p);
    return true;
  }

  // Rate of a's computing operation: slowdown(its tp) / slowdown(the ranks computing on its node).
  std::vector<double> rates() const {
    std::map<std::pair<int, int>, int> computing;
    for (size_t a = 0; a < ops_.size(); ++a)
      if (running_[a] && ops_[a][next_[a]].kind != Op::Transfer)
        computing[{replicaOf(a).site, replicaOf(a).node}] += replicaOf(a).replica->tp;
    std::vector<double> r(ops_.size(), 0.0);
    for (size_t a = 0; a < ops_.size(); ++a) {
      if (!running_[a] || ops_[a][next_[a]].kind == Op::Transfer) continue;
      const ReplicaData& d = replicaOf(a);
      const int k = computing.at({d.site, d.node});
      r[a] = d.gpu->sharedComputeSlowdown(d.replica->tp) / d.gpu->sharedComputeSlowdown(k);
    }
    return r;
  }

  // To the next event: an operation ending or a waiting one becoming ready. False when none.
  bool advance() {
    const std::vector<double> rate = rates();
    double next = std::numeric_limits<double>::infinity();
    std::vector<double> at(ops_.size(), next);
    for (size_t a = 0; a < ops_.size(); ++a) {
      if (running_[a])
        at[a] = ops_[a][next_[a]].kind == Op::Transfer ? left_[a] : now_ + left_[a] / rate[a];
      else if (wake_[a] > now_) next = std::min(next, wake_[a]);
      next = std::min(next, at[a]);
    }
    if (!std::isfinite(next)) return false;
    const double dt = next - now_;
    now_ = next;
    for (size_t a = 0; a < ops_.size(); ++a) {
      if (!running_[a]) continue;
      if (at[a] <= next * (1 + 1e-12)) finish(a);
      else if (ops_[a][next_[a]].kind != Op::Transfer) left_[a] -= rate[a] * dt;
    }
    return true;
  }

  void finish(size_t a) {
    const Op& op = ops_[a][next_[a]];
    const size_t j = a / P_, s = a % P_;
    PipelineRun& r = out_.runs[j];
    const double took = now_ - start_[a];
    if (op.kind == Op::Step) {
      out_.stage_end[s] = std::max(out_.stage_end[s], now_);
      out_.optimizer_s[s] = std::max(out_.optimizer_s[s], took);
    } else if (op.kind == Op::Transfer) {
      r.comm[s] += took;
      r.free_at[s] = now_;
    } else {
      const bool f = op.pipe == PipeOp::Forward;
      if (timeline_)
        pushTimeline(a, {static_cast<int>(s), op.microbatch, f ? 'F' : 'B', start_[a], now_});
      r.busy[s] += took;
      r.free_at[s] = now_;
      if (!f) r.last_backward[s] = now_;
    }
    end_[a][next_[a]] = now_;
    running_[a] = false;
    ++next_[a];
  }

  void pushTimeline(size_t a, TimelineOp op) { out_.runs[a / P_].ops.push_back(op); }

  const SharedComputeInput& in_;
  size_t J_, P_;
  bool timeline_;
  double now_ = 0;
  std::vector<std::vector<Op>> ops_;
  std::vector<std::vector<double>> end_;  // [agent][op]: when it ended, -1 before
  std::vector<size_t> next_;
  std::vector<size_t> scheduled_;  // [agent]: its schedule's operations (before the step)
  std::vector<bool> running_;
  std::vector<double> start_, left_, wake_;  // left_: compute left, or a transfer's end
  SharedComputeRun out_;
};

}  // namespace

SharedComputeRun runSharedCompute(const SharedComputeInput& in, int M, PipelineSchedule schedule,
                                  bool timeline) {
  return SharedCompute(in, M, schedule, timeline).run();
}

// ---- 8. Breakdown and timeline.

size_t criticalPipeline(const std::vector<PipelineRun>& runs, size_t critical) {
  size_t slowest = 0;
  for (size_t k = 1; k < runs.size(); ++k)
    if (runs[k].doneAt(critical) > runs[slowest].doneAt(critical)) slowest = k;
  return slowest;
}

// NOTE [Breakdown of the busiest stage]: the breakdown is that of the critical pipeline's
// bottleneck: its stage with the most work (compute, blocking transfers, data-parallel sync,
// step); its bubble is the rest of the iteration (fill, drain, waiting). The stage that ends
// last is not always it: a fast first stage ends with the pipeline's last backward and would
// report the slow stage's work as its own waiting. Near-equal work (relative 1e-9) goes to
// the stage that ends last.
size_t busiestStage(const PipelineRun& run, std::vector<StageTimes>& times,
                    const std::vector<double>& stage_end, size_t critical) {
  size_t cu = critical;
  double most = -1;
  for (size_t s = 0; s < times.size(); ++s) {
    const double work = run.busy[s] + run.comm[s] + times[s].dp_sync_s + times[s].optimizer_s;
    times[s].work_s = work;
    const double tol = 1e-9 * std::max(1.0, most);
    if (work > most + tol || (work > most - tol && stage_end[s] > stage_end[cu])) {
      most = std::max(most, work);
      cu = s;
    }
  }
  return cu;
}

TimeBreakdown breakdownOf(const PipelineRun& run, const std::vector<StageTimes>& times,
                          size_t stage, double iteration_s) {
  TimeBreakdown b;
  b.stage = static_cast<int>(stage);
  b.compute_s = run.busy[stage];
  b.p2p_s = run.comm[stage];
  b.dp_sync_s = times[stage].dp_sync_s;
  b.optimizer_s = times[stage].optimizer_s;
  b.bubble_s = std::max(0.0, iteration_s - run.busy[stage] - run.comm[stage] -
                                 times[stage].dp_sync_s - times[stage].optimizer_s);
  return b;
}

// The schedules emit each stage's ops in time order, so a stable bucketing by stage is the sort
// (each bucket checked, sorted only if it is not).
void sortTimeline(std::vector<TimelineOp>& ops, size_t P) {
  std::vector<size_t> offset(P + 1, 0);
  for (const auto& op : ops) ++offset[static_cast<size_t>(op.stage) + 1];
  for (size_t i = 1; i < offset.size(); ++i) offset[i] += offset[i - 1];
  std::vector<TimelineOp> sorted(ops.size());
  std::vector<size_t> fill(offset.begin(), offset.end() - 1);
  for (const auto& op : ops) sorted[fill[static_cast<size_t>(op.stage)]++] = op;
  auto by_start = [](const TimelineOp& x, const TimelineOp& y) { return x.start_s < y.start_s; };
  for (size_t st = 0; st + 1 < offset.size(); ++st) {
    auto first = sorted.begin() + static_cast<std::ptrdiff_t>(offset[st]);
    auto last = sorted.begin() + static_cast<std::ptrdiff_t>(offset[st + 1]);
    if (!std::is_sorted(first, last, by_start)) std::stable_sort(first, last, by_start);
  }
  ops = std::move(sorted);
}

// ---- 9. Cost per iteration: GPUs are rented for the whole iteration.

double computeUsd(const StageReplicas& stages, double iteration_s) {
  double usd = 0;
  for (const auto& reps : stages)
    for (const auto& d : reps) usd += d.usd_per_gpu_hour / 3600.0 * iteration_s * d.replica->tp;
  return usd;
}

double priceEgress(std::vector<EgressItem>& items, const Scenario& scenario) {
  double usd = 0;
  for (auto& it : items) {
    it.usd = it.bytes / 1e9 * scenario.egressUsdPerGb(it.from_zone, it.to_zone);
    usd += it.usd;
  }
  return usd;
}

}  // namespace sim

namespace sim {
namespace {

// Steps 6-7's result: each simulated pipeline's run and when each stage ends its step.
struct Scheduled {
  std::vector<PipelineRun> runs;
  std::vector<double> stage_end;
};

// Steps 6-7 where no ranks share compute: each pipeline on its own (runPipeline), then each
// stage's all-reduce and step once the last of its pipelines is done (a stage starts its own
// when the last of its pipelines has finished its last backward; the tied-embedding one first).
// Sets every stage's dp_sync_s and optimizer_s.
Scheduled scheduleSeparately(const StageReplicas& data,
                             const std::vector<std::vector<PairSeconds>>& pairs,
                             const std::vector<int>& m_stage, int M, Links& links,
                             EgressLedger& egress, const SimulatorOptions& options,
                             const Schedule& sch, const Job& job, std::vector<StageTimes>& stages) {
  const size_t P = data.size();
  Scheduled out;
  for (const auto& p : dataParallelPipelines(data, stages, pairs, m_stage)) {
    if (sch.virtual_stages > 1) {
      PipelineRun r{std::vector<double>(P, 0.0),
                    std::vector<double>(P, 0.0),
                    std::vector<double>(P, 0.0),
                    std::vector<double>(P, 0.0),
                    {}};
      runInterleaved(p, M, sch.virtual_stages, r, options.timeline ? &r.ops : nullptr);
      out.runs.push_back(std::move(r));
    } else {
      out.runs.push_back(runPipeline(p, M, options.schedule, options.timeline));
    }
  }
  std::vector<double> stage_done = stageDone(out.runs, P);
  const double tied_sync = tiedEmbeddingSync(data, links, egress, options);
  if (tied_sync > 0) {
    const double start = std::max(stage_done.front(), stage_done.back());
    stage_done.front() = stage_done.back() = start + tied_sync;
  }
  out.stage_end.resize(P);
  for (size_t s = 0; s < P; ++s) {
    StageTimes& st = stages[s];
    const double v = sch.virtual_stages;
    const SyncAndStep ss = stageSyncAndStepScheduled(
        data[s], links, egress, options, sch, job, m_stage[s], st.backward_s / v, st.forward_s / v);
    st.dp_sync_s = ((s == 0 || s == P - 1) ? tied_sync : 0.0) + ss.sync_s;
    st.optimizer_s = ss.optimizer_s;
    out.stage_end[s] = stage_done[s] + ss.sync_s + ss.optimizer_s;
  }
  return out;
}

// Steps 6-7 where ranks of a node share its compute (NOTE [Ranks sharing a device]): every
// pipeline (with one data-parallel degree; else the bounding pipeline of straggler figures) and
// every step in one simulation.
Scheduled scheduleShared(const StageReplicas& data,
                         const std::vector<std::vector<PairSeconds>>& pairs,
                         const std::vector<int>& m_stage, int M, Links& links, EgressLedger& egress,
                         const SimulatorOptions& options, std::vector<StageTimes>& stages) {
  const size_t P = data.size();
  const size_t D = data.front().size();
  const bool same_degree =
      std::all_of(data.begin(), data.end(), [&](const auto& reps) { return reps.size() == D; });
  SharedComputeInput in;
  if (same_degree) {
    for (size_t j = 0; j < D; ++j) {
      std::vector<StageTimes> p(P);
      std::vector<const ReplicaData*> reps(P);
      std::vector<double> step(P);
      for (size_t s = 0; s < P; ++s) {
        const ReplicaData& d = data[s][j];
        p[s].forward_s = d.forward_s;
        p[s].backward_s = d.backward_s;
        p[s].microbatches = m_stage[s];
        if (s + 1 < P) {
          p[s].send_forward_s = pairs[s][j].forward_s;
          p[s + 1].send_backward_s = pairs[s][j].backward_s;
        }
        reps[s] = &d;
        step[s] = stepSeconds(d.optimizer_s_per_param, d.params, static_cast<int>(data[s].size()),
                              *d.gpu);
      }
      in.pipelines.push_back(std::move(p));
      in.replicas.push_back(std::move(reps));
      in.step_s.push_back(std::move(step));
    }
  } else {
    in.pipelines = {stages};
    in.replicas.resize(1);
    in.step_s.resize(1);
    for (size_t s = 0; s < P; ++s) {
      in.replicas[0].push_back(&data[s][static_cast<size_t>(stages[s].straggler_replica)]);
      double step = 0;
      for (const ReplicaData& d : data[s])
        step = std::max(step, stepSeconds(d.optimizer_s_per_param, d.params,
                                          static_cast<int>(data[s].size()), *d.gpu));
      in.step_s[0].push_back(step);
    }
  }
  in.tied_sync_s = tiedEmbeddingSync(data, links, egress, options);
  for (size_t s = 0; s < P; ++s)
    in.sync_s.push_back(stageSyncAndStep(data[s], links, egress, options).sync_s);
  SharedComputeRun r = runSharedCompute(in, M, options.schedule, options.timeline);
  for (size_t s = 0; s < P; ++s) {
    stages[s].dp_sync_s = ((s == 0 || s == P - 1) ? in.tied_sync_s : 0.0) + in.sync_s[s];
    stages[s].optimizer_s = r.optimizer_s[s];
  }
  return {std::move(r.runs), std::move(r.stage_end)};
}

}  // namespace
}  // namespace sim

Prediction simulate(const Plan& plan, const Scenario& scenario, const Job& job_in,
                    const Catalog& catalog, const ProfileSet& profiles,
                    const SimulatorOptions& options, const LinkIndex* links_index) {
  using namespace sim;
  plan.validate(job_in, catalog, scenario);   // at least one stage, each with a replica
  const Job job = plan.effectiveJob(job_in);  // the plan's recomputation
  const size_t P = plan.stages.size();
  const int b = plan.microbatch_size;
  Prediction pred;

  // 1-2. Replicas, their figures and their nodes.
  GatheredReplicas gathered = gatherReplicas(plan, scenario, job, catalog, profiles);
  StageReplicas& data = gathered.stages;
  for (const auto& [k, v] : gathered.sources) pred.sources.emplace_back(k, v);
  placeOnNodes(data);
  const std::vector<int> m_stage = stageMicrobatches(plan, job);
  const int M = *std::max_element(m_stage.begin(), m_stage.end());

  // 3. Memory per GPU (one figure per replica: reserved, a 512-replica plan grew it 10 times).
  const bool tied = catalog.model(job.model, "job.model").tied_embeddings;
  size_t replicas = 0;
  for (const auto& st : data) replicas += st.size();
  pred.memory.reserve(replicas);
  for (size_t s = 0; s < P; ++s) {
    const StageGroupShape shape = stageGroupShape(plan, tied, static_cast<int>(s));
    for (size_t k = 0; k < data[s].size(); ++k) {
      MemoryBreakdown mb = replicaMemory(
          data[s][k], static_cast<int>(s), static_cast<int>(k), static_cast<int>(P), m_stage[s], b,
          job, gpuGroups(shape, plan.stages[s].replicas[k].tp, static_cast<int>(k)), plan.schedule,
          static_cast<int>(data[s].size()));
      if (!mb.fits()) {
        pred.fits = false;
        pred.out_of_memory.push_back(outOfMemoryMessage(mb));
      }
      pred.memory.push_back(std::move(mb));
    }
  }

  // 4-5. Links, stage compute (fully sharded: with the gathers it leaves exposed) and boundary
  // transfers.
  Links links(scenario, catalog, gathered.site_replica, links_index);
  if (plan.schedule.sharding == DpSharding::Full) {
    std::vector<int> layers;
    for (const Stage& st : plan.stages) layers.push_back(st.layerCount());
    shardedStageTimes(data, links, job, options, layers);
  }
  pred.stages = stageCompute(data, m_stage);
  EgressLedger egress;
  const auto pairs = boundaryTransfers(data, m_stage, b, job.activationBytesPerElement(), links,
                                       egress, pred.stages);

  // 6-7. Each data-parallel pipeline's schedule, the gradient all-reduces and the steps.
  const bool shared = std::any_of(data.begin(), data.end(), [](const auto& reps) {
    return std::any_of(reps.begin(), reps.end(),
                       [](const ReplicaData& d) { return d.gpu->sharesCompute(); });
  });
  Schedule timed = plan.schedule;  // the options that change the schedule's timing
  timed.recompute.reset();
  timed.sequence_parallel = false;
  timed.fused_attention = false;
  timed.tp_comm_overlap = false;
  if (shared && !timed.isDefault())
    throw InputError("schedule", plan.schedule.describe(job),
                     "DeepSpeed's schedule on GPU types whose ranks share a node's compute "
                     "(shared_compute_slowdown)");
  Scheduled sched =
      shared ? scheduleShared(data, pairs, m_stage, M, links, egress, options, pred.stages)
             : scheduleSeparately(data, pairs, m_stage, M, links, egress, options, plan.schedule,
                                  job, pred.stages);
  std::vector<PipelineRun>& runs = sched.runs;
  const std::vector<double>& stage_end = sched.stage_end;
  double iteration = 0;
  size_t critical = 0;
  for (size_t s = 0; s < P; ++s)
    if (stage_end[s] > iteration) {
      iteration = stage_end[s];
      critical = s;
    }

  // 8. The critical pipeline's timeline and its busiest stage's breakdown.
  PipelineRun& run = runs[criticalPipeline(runs, critical)];
  const size_t busiest = busiestStage(run, pred.stages, stage_end, critical);
  if (options.timeline) {
    pred.timeline = std::move(run.ops);
    for (size_t s = 0; s < P; ++s) {
      const StageTimes& st = pred.stages[s];
      const int si = static_cast<int>(s);
      if (st.dp_sync_s > 0)
        pred.timeline.push_back({si, -1, 'A', stage_end[s] - st.dp_sync_s - st.optimizer_s,
                                 stage_end[s] - st.optimizer_s});
      pred.timeline.push_back({si, -1, 'O', stage_end[s] - st.optimizer_s, stage_end[s]});
    }
    sortTimeline(pred.timeline, P);
  }
  pred.iteration_s = iteration;
  pred.breakdown = breakdownOf(run, pred.stages, busiest, iteration);
  pred.iterations_per_s = iteration > 0 ? 1.0 / iteration : 0;
  pred.tokens_per_s = pred.iterations_per_s * job.global_batch_size * job.sequence_length;

  // 9. Cost per iteration.
  pred.compute_usd = computeUsd(data, iteration);
  pred.egress = egress.release();
  pred.egress_usd = priceEgress(pred.egress, scenario);
  pred.usd_per_iteration = pred.compute_usd + pred.egress_usd;
  pred.usd_per_hour = iteration > 0 ? pred.usd_per_iteration * 3600.0 / iteration : 0;
  requireFiniteFigures(pred);
  return pred;
}

// ---- 10. Every figure finite. The inputs are bounded (profiles, the catalogue, scenarios), so
// this holds unless a product of bounded figures overflows; then the prediction is refused with
// the figure's name rather than printed as inf.

void requireFiniteFigures(const Prediction& p) {
  auto check = [](double v, const std::string& path) {
    if (!std::isfinite(v))
      throw InputError("prediction." + path, toText(v),
                       "a finite figure (an input figure is out of range: a profile's times or "
                       "memory, a GPU type's rates, memory or bandwidths, a link)");
  };
  check(p.iteration_s, "iteration_s");
  const TimeBreakdown& b = p.breakdown;
  for (const auto& [v, name] : {std::pair{b.compute_s, "compute_s"},
                                {b.bubble_s, "bubble_s"},
                                {b.p2p_s, "p2p_s"},
                                {b.dp_sync_s, "dp_sync_s"},
                                {b.optimizer_s, "optimizer_s"}})
    check(v, std::string("breakdown.") + name);
  check(p.iterations_per_s, "iterations_per_s");
  check(p.tokens_per_s, "tokens_per_s");
  for (size_t i = 0; i < p.memory.size(); ++i) {
    const MemoryBreakdown& m = p.memory[i];
    const std::string at = "memory[" + std::to_string(i) + "].";
    for (const auto& [v, name] : {std::pair{m.model_state_bytes, "model_state_bytes"},
                                  {m.activation_bytes, "activation_bytes"},
                                  {m.transient_bytes, "transient_bytes"},
                                  {m.gradient_bucket_bytes, "gradient_bucket_bytes"},
                                  {m.runtime_overhead_bytes, "runtime_overhead_bytes"},
                                  {m.communicator_bytes, "communicator_bytes"},
                                  {m.total_bytes, "total_bytes"},
                                  {m.capacity_bytes, "capacity_bytes"}})
      check(v, at + name);
  }
  for (size_t i = 0; i < p.stages.size(); ++i) {
    const StageTimes& st = p.stages[i];
    const std::string at = "stages[" + std::to_string(i) + "].";
    for (const auto& [v, name] : {std::pair{st.forward_s, "forward_s"},
                                  {st.backward_s, "backward_s"},
                                  {st.send_forward_s, "send_forward_s"},
                                  {st.send_backward_s, "send_backward_s"},
                                  {st.dp_sync_s, "dp_sync_s"},
                                  {st.optimizer_s, "optimizer_s"},
                                  {st.work_s, "work_s"}})
      check(v, at + name);
  }
  for (size_t i = 0; i < p.egress.size(); ++i) {
    check(p.egress[i].bytes, "cost.egress[" + std::to_string(i) + "].bytes");
    check(p.egress[i].usd, "cost.egress[" + std::to_string(i) + "].usd");
  }
  check(p.compute_usd, "cost.compute_usd_per_iteration");
  check(p.egress_usd, "cost.egress_usd_per_iteration");
  check(p.usd_per_iteration, "cost.usd_per_iteration");
  check(p.usd_per_hour, "cost.usd_per_hour");
  for (size_t i = 0; i < p.timeline.size(); ++i)
    if (!std::isfinite(p.timeline[i].start_s) || !std::isfinite(p.timeline[i].end_s)) {
      check(p.timeline[i].start_s, "timeline[" + std::to_string(i) + "].start_s");
      check(p.timeline[i].end_s, "timeline[" + std::to_string(i) + "].end_s");
    }
}

json timelineTrace(const Prediction& prediction, const Plan& plan) {
  json events = json::array();
  auto meta = [&](const char* what, int tid, const std::string& name) {
    events.push_back(
        {{"name", what}, {"ph", "M"}, {"pid", 0}, {"tid", tid}, {"args", {{"name", name}}}});
  };
  // Tracks in stage order (not alphabetical): the stage's compute, then its communication lanes.
  auto track = [&](int tid, int sort_index, const std::string& name) {
    meta("thread_name", tid, name);
    events.push_back({{"name", "thread_sort_index"},
                      {"ph", "M"},
                      {"pid", 0},
                      {"tid", tid},
                      {"args", {{"sort_index", sort_index}}}});
  };
  meta("process_name", 0, "critical pipeline");
  const int P = static_cast<int>(plan.stages.size());
  std::vector<std::string> stage_names;
  for (int s = 0; s < P; ++s) {
    const Stage& st = plan.stages[static_cast<size_t>(s)];
    stage_names.push_back("stage " + std::to_string(s) + " (layers " +
                          std::to_string(st.first_layer) + "-" + std::to_string(st.last_layer) +
                          ")");
    track(2 * s, 1000 * s, stage_names.back() + " compute");
    track(2 * s + 1, 1000 * s + 1, stage_names.back() + " communication");
  }
  // Per operation kind: category, label, on the communication track, numbered by microbatch.
  struct Kind {
    const char* category;
    const char* label;
    bool communication, per_microbatch;
  };
  auto kind_of = [](char k) -> Kind {
    switch (k) {
      case 'F': return {"forward", "F", false, true};
      case 'B': return {"backward", "B", false, true};
      case 'S': return {"transfer", "send/recv", true, true};
      case 'A': return {"all-reduce", "gradient all-reduce", true, false};
      case 'O': return {"optimizer", "optimizer step", false, false};
      default: return {"other", "?", false, false};
    }
  };
  // A stage's communication goes on lanes: the first one free when it starts. Under the blocking
  // schedule transfers are serialised on the stage, so one lane; with non-blocking transfers
  // several can be in flight at once (a slow link), and each one beyond the first gets a lane of
  // its own, since complete events on one track must nest. Extra lanes take thread ids after the 2P
  // tracks.
  std::vector<std::vector<double>> lane_free(static_cast<size_t>(P));  // per stage: lane -> end
  std::vector<std::vector<int>> lane_tid(static_cast<size_t>(P));
  int next_tid = 2 * P;
  auto lane_of = [&](const TimelineOp& op) {
    auto& free = lane_free[static_cast<size_t>(op.stage)];
    auto& tids = lane_tid[static_cast<size_t>(op.stage)];
    size_t lane = 0;
    while (lane < free.size() && free[lane] > op.start_s + 1e-12 * std::max(1.0, op.start_s))
      ++lane;
    if (lane == free.size()) {
      free.push_back(op.end_s);
      tids.push_back(lane == 0 ? 2 * op.stage + 1 : next_tid++);
      if (lane > 0)
        track(tids.back(), 1000 * op.stage + 1 + static_cast<int>(lane),
              stage_names[static_cast<size_t>(op.stage)] + " communication " +
                  std::to_string(lane + 1));
    }
    free[lane] = std::max(free[lane], op.end_s);
    return tids[lane];
  };
  // Lanes are assigned in order of stage, then start time (simulate's order already).
  std::vector<const TimelineOp*> ordered;
  for (const TimelineOp& op : prediction.timeline) ordered.push_back(&op);
  std::stable_sort(ordered.begin(), ordered.end(), [](const TimelineOp* x, const TimelineOp* y) {
    return x->stage != y->stage ? x->stage < y->stage : x->start_s < y->start_s;
  });
  for (const TimelineOp* o : ordered) {
    const TimelineOp& op = *o;
    const Kind k = kind_of(op.kind);
    json e{{"name", k.per_microbatch ? std::string(k.label) + " " + std::to_string(op.microbatch)
                                     : k.label},
           {"cat", k.category},
           {"ph", "X"},
           {"pid", 0},
           {"tid", k.communication ? lane_of(op) : 2 * op.stage},
           {"ts", op.start_s * 1e6},
           {"dur", (op.end_s - op.start_s) * 1e6}};
    if (k.per_microbatch) e["args"] = {{"microbatch", op.microbatch}};
    events.push_back(std::move(e));
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ms"},
          {"otherData", {{"iteration_s", prediction.iteration_s}, {"source", "sailor simulate"}}}};
}

json Prediction::toJson() const {
  json mem = json::array();
  for (const auto& m : memory)
    mem.push_back({{"stage", m.stage},
                   {"replica", m.replica},
                   {"gpu_type", m.gpu_type},
                   {"zone", m.zone},
                   {"tp", m.tp},
                   {"node", m.node},
                   {"model_state_bytes", m.model_state_bytes},
                   {"activation_bytes", m.activation_bytes},
                   {"microbatches_in_flight", m.microbatches_in_flight},
                   {"transient_bytes", m.transient_bytes},
                   {"gradient_bucket_bytes", m.gradient_bucket_bytes},
                   {"runtime_overhead_bytes", m.runtime_overhead_bytes},
                   {"communicator_bytes", m.communicator_bytes},
                   {"communicators", m.communicators},
                   {"total_bytes", m.total_bytes},
                   {"capacity_bytes", m.capacity_bytes},
                   {"fits", m.fits()}});
  json st = json::array();
  for (const auto& s : stages)
    st.push_back({{"forward_s", s.forward_s},
                  {"backward_s", s.backward_s},
                  {"send_forward_s", s.send_forward_s},
                  {"send_backward_s", s.send_backward_s},
                  {"dp_sync_s", s.dp_sync_s},
                  {"optimizer_s", s.optimizer_s},
                  {"work_s", s.work_s},
                  {"straggler_replica", s.straggler_replica},
                  {"microbatches", s.microbatches}});
  json eg = json::array();
  for (const auto& e : egress)
    eg.push_back(
        {{"from_zone", e.from_zone}, {"to_zone", e.to_zone}, {"bytes", e.bytes}, {"usd", e.usd}});
  json src = json::object();
  for (const auto& [k, v] : sources) src[k] = v;
  return json{{"fits", fits},
              {"out_of_memory", out_of_memory},
              {"iteration_s", iteration_s},
              {"breakdown",
               {{"stage", breakdown.stage},
                {"compute_s", breakdown.compute_s},
                {"bubble_s", breakdown.bubble_s},
                {"p2p_s", breakdown.p2p_s},
                {"dp_sync_s", breakdown.dp_sync_s},
                {"optimizer_s", breakdown.optimizer_s}}},
              {"iterations_per_s", iterations_per_s},
              {"tokens_per_s", tokens_per_s},
              {"peak_memory_bytes", peakMemoryBytes()},
              {"memory", mem},
              {"stages", st},
              {"cost",
               {{"compute_usd_per_iteration", compute_usd},
                {"egress_usd_per_iteration", egress_usd},
                {"usd_per_iteration", usd_per_iteration},
                {"usd_per_hour", usd_per_hour},
                {"egress", eg}}},
              {"sources", src}};
}

}  // namespace sailor
