// The simulator's steps 1 to 3 (declared in simulator_internal.hpp): each replica's figures from
// the profiles and the node that holds it, and the peak memory of its GPUs.
//   gatherReplicas            per replica, its profile figures summed over its stage's layers
//   placeOnNodes              which node of its (zone, GPU type) holds each replica
//   stageMicrobatches         microbatches per replica of each stage
//   gradientBucketBytes, replicaMemoryBytes   the memory model's closed form
//   (sailor/simulation/simulator.hpp) stageGroupShape, gpuGroups, communicatorBytes   the NCCL
//   communicators a GPU holds replicaMemory, outOfMemoryMessage   peak memory per GPU and what an
//   overflow says stageCompute              per stage, the straggler's forward and backward
#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>

#include "sailor/core/error.hpp"
#include "simulator_internal.hpp"

namespace sailor {

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
                              const GpuGroups& groups, const Schedule& schedule, int dp,
                              std::optional<bool> bucket_copy) {
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
  // Fully sharded, the runtime's buffers are a unit's at a time (the transient above).
  mb.gradient_bucket_bytes =
      bucket_copy.value_or(!megatron) && !(schedule.sharding == DpSharding::Full && dp >= 2)
          ? gradientBucketBytes(d.params, job)
          : 0.0;
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

}  // namespace sim
}  // namespace sailor
