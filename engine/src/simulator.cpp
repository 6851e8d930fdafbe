#include "sailor/simulator.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>

#include "sailor/error.hpp"

namespace sailor {

using nlohmann::json;

namespace {

struct ReplicaData {
  const Replica* replica = nullptr;
  const GpuType* gpu = nullptr;
  double forward_s = 0;  // per microbatch, sum over the stage's layers
  double backward_s = 0;
  double params = 0;  // held by one GPU
  double activation_bytes_per_seq = 0;
  double max_layer_activation_per_seq = 0;
  double output_elements = 0;  // of the stage's last layer, per sequence
  double optimizer_s_per_param = 0;
  double tied_params = 0;  // head only: parameters tied to the embedding, per GPU
  int gpus_per_node = 1;
  double usd_per_gpu_hour = 0;
  int site = -1;  // (zone, GPU type) of the replica, numbered per simulation: links depend on it
  int node = 0;   // node of its site holding the replica's GPUs (NOTE [Node placement])
};

std::string fmtGiB(double bytes) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(2);
  os << bytes / (1024.0 * 1024.0 * 1024.0) << " GiB";
  return os.str();
}

// NOTE [DeepSpeed pipeline schedule]
// Megatron-DeepSpeed runs DeepSpeed's PipelineEngine TrainSchedule: 2 (m + P - 1) steps per
// stage; on even steps even stages run a forward and odd stages a backward, and the other way
// round on odd steps. Before a forward a stage sends the previous step's input gradient back and
// receives the activation; before a backward it receives the output gradient and sends the
// previous step's activation on. Point-to-point operations are blocking NCCL sends and receives
// on the compute stream, so a transfer starts when both ends have reached it and occupies both
// for its whole duration. The instruction order makes this deadlock-free.
struct PipeOp {
  enum Kind { Forward, Backward, SendAct, RecvAct, SendGrad, RecvGrad } kind;
  int microbatch;
};

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

void runDeepSpeedSchedule(const std::vector<StageTimes>& stages, std::vector<TimelineOp>* timeline,
                          int P, int M, std::vector<double>& free_at, std::vector<double>& busy,
                          std::vector<double>& comm, std::vector<double>& last_backward) {
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
// transfers overlap with compute and only delay the operation that needs their data.
void runAsync1F1B(const std::vector<StageTimes>& stages, std::vector<TimelineOp>* timeline, int P,
                  int M, std::vector<double>& free_at, std::vector<double>& busy,
                  std::vector<double>& /*comm*/, std::vector<double>& last_backward) {
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

// NOTE [Gradient bucket]
// At the end of every iteration DeepSpeed's pipeline engine all-reduces the gradients among a
// stage's replicas with buffered_allreduce_fallback (MEMORY_OPT_ALLREDUCE_SIZE = 5e8 elements):
// it flattens the gradient tensors into one new contiguous buffer of up to 5e8 elements,
// all-reduces it and copies it back; it does so with one replica too (a group of one). The
// gradients are fp32 in an fp32 job and in a bf16 one (BF16_Optimizer reduces its fp32
// gradients), fp16 with the fp16 optimizer. By then the iteration's activations are freed, but
// PyTorch's caching allocator keeps their blocks, each the size of one saved tensor, and a
// buffer larger than every one of them is a new cudaMalloc: the reserved memory that
// nvidia-smi reports grows by the buffer, once, and later iterations reuse it. Evidence: the
// eleven GPT-Neo-2.7 runs SAILOR measured on GH200 (docs/simulator.md) held 0.6-3.3 GB more
// than states + activations + overhead, growing with the parameters per GPU (about 4-8 bytes
// per parameter on two-, four- and eight-stage plans); counting the buffer brings their mean
// memory error from 7.3% to 5.1% (2.7% without N8_D2, whose figure is 8.7 GB below a run of
// the same split) and moves the fifteen OPT-350 GH200 points by at most 0.4 GB.
double gradientBucketBytes(double params, const Job& job) {
  constexpr double kBucketElements = 5e8;
  const double bytes_per_gradient = job.precision == Precision::Fp16 ? 2.0 : 4.0;
  return std::min(params, kBucketElements) * bytes_per_gradient;
}

double replicaMemoryBytes(double params, double activation_bytes_per_seq,
                          double max_layer_activation_per_seq, int microbatch_size, int in_flight,
                          const Job& job, const GpuType& gpu) {
  return params * job.stateBytesPerParameter() +
         activation_bytes_per_seq * microbatch_size * in_flight +
         2.0 * max_layer_activation_per_seq * microbatch_size + gradientBucketBytes(params, job) +
         static_cast<double>(gpu.runtime_overhead_bytes);
}

// NOTE [Collective efficiency]
// A data-parallel ring all-reduce runs at the link's own figure (collective_efficiency 1): NCCL's
// ring reaches the network's bandwidth on buckets of this size. Every tensor-parallel rank of a
// replica all-reduces its shard at once, so the `gpus` rings of a node share its link: the
// figure at GPU count `gpus` (the format's node aggregate; SAILOR's GH200 fits grow with the
// count, one NIC per GPU, and its RTX fits do not, one NIC per node). Evidence: on the RTX
// cluster, SAILOR's measured `red_grads` (the all-reduce seconds of rank 0) agree with this
// within 15% on the four runs whose rings cross an RTX-3090 node (docs/simulator.md, Where the
// measured figures come from). Earlier this project gave each ring one GPU's share and divided
// by 0.4, a figure fitted to the OPT-350 runs; it put the tp-8 RTX rings at a third of their
// measured time. The option stays for a network that falls short of its point-to-point figure
// (set it from nccl-tests' bus bandwidth over the link's).
double ringAllReduceSeconds(const ResolvedLink& link, double shard_bytes, int D, int gpus,
                            const SimulatorOptions& options) {
  if (D < 2 || shard_bytes <= 0) return 0;
  double t = 0;
  for (double left = shard_bytes; left > 0; left -= options.allreduce_bucket_bytes) {
    const double bucket = std::min(left, options.allreduce_bucket_bytes);
    t += 2.0 * (D - 1) * link.transferSeconds(bucket / D, gpus);
  }
  return t / options.collective_efficiency;
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

Prediction simulate(const Plan& plan, const Scenario& scenario, const Job& job,
                    const Catalog& catalog, const ProfileSet& profiles,
                    const SimulatorOptions& options) {
  plan.validate(job, catalog, scenario);
  const ModelSpec& model = catalog.model(job.model, "job.model");
  const int P = static_cast<int>(plan.stages.size());
  const int b = plan.microbatch_size;
  const int e = job.activationBytesPerElement();
  const int last_layer = model.numPlanLayers() - 1;
  Prediction pred;
  std::map<std::string, std::string> sources;

  // ---- Per replica: profile figures summed over the stage's layers.
  std::vector<std::vector<ReplicaData>> data(static_cast<size_t>(P));
  std::map<std::pair<std::string, std::string>, int> site_of;
  std::vector<const Replica*> site_replica;  // one replica of each site, for link queries
  for (int s = 0; s < P; ++s) {
    const Stage& st = plan.stages[static_cast<size_t>(s)];
    // Replicas of one kind (GPU type, tp, zone) in a stage have the same figures: looked up once.
    std::map<std::tuple<std::string, int, std::string>, size_t> same_kind;
    for (const Replica& r : st.replicas) {
      if (auto it = same_kind.find({r.gpu_type, r.tp, r.zone}); it != same_kind.end()) {
        ReplicaData d = data[static_cast<size_t>(s)][it->second];
        d.replica = &r;
        data[static_cast<size_t>(s)].push_back(d);
        continue;
      }
      same_kind[{r.gpu_type, r.tp, r.zone}] = data[static_cast<size_t>(s)].size();
      ReplicaData d;
      d.replica = &r;
      if (auto it = site_of.find({r.zone, r.gpu_type}); it != site_of.end()) {
        d.site = it->second;
      } else {
        d.site = static_cast<int>(site_replica.size());
        site_of.emplace(std::make_pair(r.zone, r.gpu_type), d.site);
        site_replica.push_back(&r);
      }
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
      sources["timings " + r.gpu_type + " mbs " + std::to_string(b) + " tp " +
              std::to_string(r.tp)] = t.source;
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
      d.optimizer_s_per_param = opt.value;
      d.gpus_per_node = scenario.gpusPerNode(r.zone, r.gpu_type, catalog);
      if (const Pool* pool = scenario.findPool(r.zone, r.gpu_type))
        d.usd_per_gpu_hour = pool->usd_per_gpu_hour;
      data[static_cast<size_t>(s)].push_back(d);
    }
  }
  for (const auto& [k, v] : sources) pred.sources.emplace_back(k, v);

  // NOTE [Node placement]: GPUs are handed out as Megatron-DeepSpeed numbers ranks (pipeline
  // stage slowest, then data-parallel replica, tensor-parallel rank fastest) and a launcher
  // fills nodes with consecutive ranks: per (zone, GPU type), stage by stage and replica by
  // replica, tp GPUs at a time, a tensor-parallel group never split across nodes. Replicas whose
  // GPUs land on the same node exchange activations, gradients and all-reduce traffic over the
  // node's own fabric (Scenario::intraNodeLink) instead of the network: two tp-2 stages on one
  // 4-GPU node, or four tp-2 replicas on one 8-GPU node.
  {
    std::map<int, int> handed_out;  // site -> GPUs given to replicas so far
    for (auto& reps : data)
      for (ReplicaData& d : reps) {
        const int n = std::max(1, d.gpus_per_node);
        int& used = handed_out[d.site];
        if (used % n + d.replica->tp > n) used += n - used % n;
        d.node = used / n;
        used += d.replica->tp;
      }
  }

  // Microbatches: each replica of stage s processes ceil(G / (b * D_s)); the schedule runs the
  // largest count (stages with more replicas idle for the rest).
  int M = 0;
  std::vector<int> m_stage(static_cast<size_t>(P));
  for (int s = 0; s < P; ++s) {
    m_stage[static_cast<size_t>(s)] =
        plan.microbatches(job.global_batch_size, plan.stages[static_cast<size_t>(s)]);
    M = std::max(M, m_stage[static_cast<size_t>(s)]);
  }

  // ---- Memory per GPU.
  for (int s = 0; s < P; ++s) {
    for (size_t k = 0; k < data[static_cast<size_t>(s)].size(); ++k) {
      const ReplicaData& d = data[static_cast<size_t>(s)][k];
      MemoryBreakdown mb;
      mb.gpu_type = d.replica->gpu_type;
      mb.zone = d.replica->zone;
      mb.stage = s;
      mb.replica = static_cast<int>(k);
      mb.tp = d.replica->tp;
      mb.node = d.node;
      mb.model_state_bytes = d.params * job.stateBytesPerParameter();
      // NOTE [Why stage s holds min(P - s, m) microbatches]: under 1F1B stage s runs P - s - 1
      // warm-up forwards before its first backward, so P - s microbatches have activations
      // alive at its peak; never more than there are microbatches.
      mb.microbatches_in_flight = std::min(P - s, m_stage[static_cast<size_t>(s)]);
      mb.activation_bytes = d.activation_bytes_per_seq * b * mb.microbatches_in_flight;
      // Backward of a layer materialises gradients shaped like its saved activations, while the
      // autograd engine still holds the incoming gradient and the outputs: about twice the
      // largest layer's activations of one microbatch on top of what is stored.
      mb.transient_bytes = 2.0 * d.max_layer_activation_per_seq * b;
      mb.gradient_bucket_bytes = gradientBucketBytes(d.params, job);
      mb.runtime_overhead_bytes = static_cast<double>(d.gpu->runtime_overhead_bytes);
      mb.total_bytes = mb.model_state_bytes + mb.activation_bytes + mb.transient_bytes +
                       mb.gradient_bucket_bytes + mb.runtime_overhead_bytes;
      assert(std::fabs(mb.total_bytes - replicaMemoryBytes(d.params, d.activation_bytes_per_seq,
                                                           d.max_layer_activation_per_seq, b,
                                                           mb.microbatches_in_flight, job,
                                                           *d.gpu)) <= 1e-6 * mb.total_bytes);
      mb.capacity_bytes = static_cast<double>(d.gpu->memory_bytes);
      if (!mb.fits()) {
        pred.fits = false;
        pred.out_of_memory.push_back("stage " + std::to_string(s) + " replica " +
                                     std::to_string(k) + " (" + mb.gpu_type + ", tp " +
                                     std::to_string(mb.tp) + ", " + mb.zone + ") needs " +
                                     fmtGiB(mb.total_bytes) + " of " + fmtGiB(mb.capacity_bytes) +
                                     ": over by " + fmtGiB(mb.total_bytes - mb.capacity_bytes));
      }
      pred.memory.push_back(mb);
    }
  }

  // ---- Stage times and point-to-point transfers.
  pred.stages.resize(static_cast<size_t>(P));
  for (int s = 0; s < P; ++s) {
    StageTimes& st = pred.stages[static_cast<size_t>(s)];
    st.microbatches = m_stage[static_cast<size_t>(s)];
    const auto& reps = data[static_cast<size_t>(s)];
    for (size_t k = 0; k < reps.size(); ++k) {
      if (reps[k].forward_s + reps[k].backward_s > st.forward_s + st.backward_s) {
        st.forward_s = reps[k].forward_s;
        st.backward_s = reps[k].backward_s;
        st.straggler_replica = static_cast<int>(k);
      }
    }
  }
  // Replica pairing across a stage boundary: replica j of one stage talks to replica
  // j mod D of the other; with different degrees every replica of both sides has a partner.
  // NOTE [Point-to-point transfers]: DeepSpeed's pipeline engine partitions the boundary
  // activation (b * s * h elements) over the sender's tensor-parallel ranks (pipe_partitioned,
  // and grad_partitioned for the gradient coming back: on by default with tp > 1, and SAILOR's
  // runs keep the defaults): each of the t GPUs sends 1/t of it to the same rank of its partner
  // at once, and the receiving replica all-gathers the pieces over its node's fabric (t - 1 ring
  // steps) before using them. Between nodes the t pieces share the link's figure at GPU count t
  // (the node's aggregate: one NIC per GPU on GH200 nodes, one per node on the RTX cluster);
  // inside a node each pair of GPUs has its own path. Replicas of different tp send the whole
  // message from one GPU (the pieces would not line up). boundaryTransferSeconds.
  std::vector<EgressItem> egress;
  auto add_egress = [&](const std::string& from, const std::string& to, double bytes) {
    if (bytes <= 0 || from == to) return;
    for (auto& it : egress)
      if (it.from_zone == from && it.to_zone == to) {
        it.bytes += bytes;
        return;
      }
    egress.push_back({from, to, bytes, 0});
  };
  // Links between (zone, GPU type) pairs, resolved once per plan.
  // Resolved once per site pair (integers): a 512-replica plan asks for the same few pairs a
  // thousand times.
  std::map<std::tuple<int, int, int>, ResolvedLink> by_site;
  std::map<int, ResolvedLink> in_node;  // by site
  // The fabric inside a replica's node (transfers between GPUs of one node, tensor-parallel
  // all-gathers).
  auto node_link = [&](const ReplicaData& x) -> const ResolvedLink& {
    auto it = in_node.find(x.site);
    if (it == in_node.end())
      it = in_node.emplace(x.site, scenario.intraNodeLink(x.replica->gpu_type, catalog)).first;
    return it->second;
  };
  auto same_node = [](const ReplicaData& x, const ReplicaData& y) {
    return x.site == y.site && x.node == y.node;
  };
  // The link from x's node to y's for g GPUs sending at once (the node's fabric when they share
  // a node).
  auto link_between = [&](const ReplicaData& x, const ReplicaData& y,
                          int g) -> const ResolvedLink& {
    if (same_node(x, y)) return node_link(x);
    auto key = std::make_tuple(x.site, y.site, g);
    auto it = by_site.find(key);
    if (it == by_site.end()) {
      const Replica& a = *site_replica[static_cast<size_t>(x.site)];
      const Replica& c = *site_replica[static_cast<size_t>(y.site)];
      it = by_site.emplace(key, scenario.link({a.zone, a.gpu_type, c.zone, c.gpu_type, g})).first;
    }
    return it->second;
  };
  // GPUs of x's replica whose rings run at once over the link to y: its tp ranks between nodes,
  // one pair of GPUs each inside a node (NOTE [Collective efficiency]).
  auto ring_gpus = [&](const ReplicaData& x, const ReplicaData& y) {
    return same_node(x, y) ? 1 : x.replica->tp;
  };
  // Per boundary s and pair j: seconds of the activation (s -> s+1) and the gradient (back).
  std::vector<std::vector<std::pair<double, double>>> pair_s(static_cast<size_t>(P));
  for (int s = 0; s + 1 < P; ++s) {
    const auto& a = data[static_cast<size_t>(s)];
    const auto& c = data[static_cast<size_t>(s) + 1];
    const size_t pairs = std::max(a.size(), c.size());
    double fwd = 0, bwd = 0;
    for (size_t j = 0; j < pairs; ++j) {
      const ReplicaData& x = a[j % a.size()];
      const ReplicaData& y = c[j % c.size()];
      const double msg = x.output_elements * b * e;
      const int streams = boundaryStreams(x.replica->tp, y.replica->tp);
      const double f = boundaryTransferSeconds(link_between(x, y, streams), node_link(y), msg,
                                               streams, same_node(x, y));
      const double g = boundaryTransferSeconds(link_between(y, x, streams), node_link(x), msg,
                                               streams, same_node(x, y));
      pair_s[static_cast<size_t>(s)].emplace_back(f, g);
      fwd = std::max(fwd, f);
      bwd = std::max(bwd, g);
      // Bytes per iteration: the sender's microbatches, split over the pairs it serves.
      const double share = static_cast<double>(m_stage[static_cast<size_t>(s)]) *
                           static_cast<double>(a.size()) / static_cast<double>(pairs);
      add_egress(x.replica->zone, y.replica->zone, msg * share);
      add_egress(y.replica->zone, x.replica->zone, msg * share);
    }
    pred.stages[static_cast<size_t>(s)].send_forward_s = fwd;
    pred.stages[static_cast<size_t>(s) + 1].send_backward_s = bwd;
  }

  // ---- The pipeline schedule, event by event, per data-parallel pipeline.
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
  std::vector<std::vector<StageTimes>> pipelines;
  const size_t D0 = data[0].size();
  bool same_degree = true;
  for (const auto& reps : data) same_degree = same_degree && reps.size() == D0;
  if (!same_degree || D0 == 1) {
    pipelines.push_back(pred.stages);
  } else {
    auto no_slower = [P](const std::vector<StageTimes>& x, const std::vector<StageTimes>& y) {
      for (int s = 0; s < P; ++s) {
        const StageTimes& u = x[static_cast<size_t>(s)];
        const StageTimes& v = y[static_cast<size_t>(s)];
        if (u.forward_s > v.forward_s || u.backward_s > v.backward_s ||
            u.send_forward_s > v.send_forward_s || u.send_backward_s > v.send_backward_s)
          return false;
      }
      return true;
    };
    std::vector<StageTimes> p(static_cast<size_t>(P));
    for (size_t j = 0; j < D0; ++j) {
      for (int s = 0; s < P; ++s) {
        const size_t su = static_cast<size_t>(s);
        p[su].forward_s = data[su][j].forward_s;
        p[su].backward_s = data[su][j].backward_s;
        p[su].microbatches = m_stage[su];
        if (s + 1 < P) {
          p[su].send_forward_s = pair_s[su][j].first;
          p[su + 1].send_backward_s = pair_s[su][j].second;
        }
      }
      if (std::any_of(pipelines.begin(), pipelines.end(),
                      [&](const std::vector<StageTimes>& q) { return no_slower(p, q); }))
        continue;
      std::erase_if(pipelines, [&](const std::vector<StageTimes>& q) { return no_slower(q, p); });
      pipelines.push_back(p);
    }
  }
  struct PipelineRun {
    std::vector<double> free_at, busy, comm, last_backward;
    std::vector<TimelineOp> ops;  // with options.timeline
  };
  std::vector<PipelineRun> runs;
  runs.reserve(pipelines.size());
  for (const auto& p : pipelines) {
    PipelineRun r{std::vector<double>(static_cast<size_t>(P), 0.0),
                  std::vector<double>(static_cast<size_t>(P), 0.0),
                  std::vector<double>(static_cast<size_t>(P), 0.0),
                  std::vector<double>(static_cast<size_t>(P), 0.0),
                  {}};
    std::vector<TimelineOp>* timeline = options.timeline ? &r.ops : nullptr;
    if (options.schedule == PipelineSchedule::DeepSpeed)
      runDeepSpeedSchedule(p, timeline, P, M, r.free_at, r.busy, r.comm, r.last_backward);
    else runAsync1F1B(p, timeline, P, M, r.free_at, r.busy, r.comm, r.last_backward);
    runs.push_back(std::move(r));
  }
  // A stage is done with its microbatches when the last of its pipelines is.
  auto done_at = [](const PipelineRun& r, size_t s) {
    return std::max(r.free_at[s], r.last_backward[s]);
  };
  std::vector<double> stage_done(static_cast<size_t>(P), 0.0);
  for (const auto& r : runs)
    for (size_t s = 0; s < static_cast<size_t>(P); ++s)
      stage_done[s] = std::max(stage_done[s], done_at(r, s));

  // ---- Data-parallel gradient all-reduce per stage (bucketed ring among its replicas; every
  // tp rank all-reduces its shard at once over the node's link), then the optimizer step.
  // A stage starts its all-reduce when the last of its pipelines has finished its last backward.
  const double grad_bytes = 4.0;  // fp32 gradients (also for mixed precision, see job.cpp)
  // NOTE [Tied embedding gradients]: with the word embedding tied to the head and the two in
  // different stages, each keeps a copy, and DeepSpeed's pipeline engine all-reduces the copies'
  // gradients between the first and the last stage (ReduceTiedGrads) before the data-parallel
  // all-reduce and the step: a ring of two per pipeline (replica j of stage 0 with replica j of
  // the last stage), each tp rank its shard of the matrix. Both stages wait for it.
  double tied_sync = 0;
  if (P >= 2) {
    const auto& first = data.front();
    const auto& last = data.back();
    for (size_t j = 0; j < std::max(first.size(), last.size()); ++j) {
      const ReplicaData& y = last[j % last.size()];
      if (y.tied_params <= 0) continue;
      const ReplicaData& x = first[j % first.size()];
      const double shard = y.tied_params * grad_bytes;
      const int g = ring_gpus(y, x);  // every tp rank its shard, at once
      tied_sync =
          std::max(tied_sync, ringAllReduceSeconds(link_between(y, x, g), shard, 2, g, options));
      // A ring of two: each side sends half of the matrix's gradients to the other.
      add_egress(x.replica->zone, y.replica->zone, 0.5 * shard * x.replica->tp);
      add_egress(y.replica->zone, x.replica->zone, 0.5 * shard * y.replica->tp);
    }
    if (tied_sync > 0) {
      const double start = std::max(stage_done.front(), stage_done.back());
      stage_done.front() = stage_done.back() = start + tied_sync;
    }
  }
  double iteration = 0;
  int critical = 0;
  std::vector<double> stage_end(static_cast<size_t>(P));
  for (int s = 0; s < P; ++s) {
    const size_t su = static_cast<size_t>(s);
    const auto& reps = data[su];
    const int D = static_cast<int>(reps.size());
    double sync = 0;
    double opt = 0;
    for (int k = 0; k < D; ++k) {
      const ReplicaData& x = reps[static_cast<size_t>(k)];
      opt = std::max(opt, x.optimizer_s_per_param * x.params);
      if (D < 2) continue;
      const ReplicaData& y = reps[static_cast<size_t>((k + 1) % D)];
      const int g = ring_gpus(x, y);
      const ResolvedLink& link = link_between(x, y, g);
      const double shard = x.params * grad_bytes;
      const double t = ringAllReduceSeconds(link, shard, D, g, options);
      sync = std::max(sync, t);
      // Ring all-reduce: each replica sends 2 (D-1)/D of the stage's gradients to its successor.
      add_egress(x.replica->zone, y.replica->zone, 2.0 * (D - 1) / D * shard * x.replica->tp);
    }
    StageTimes& st = pred.stages[su];
    const double tied = (s == 0 || s == P - 1) ? tied_sync : 0.0;
    st.dp_sync_s = tied + sync;
    st.optimizer_s = opt;
    const double end = stage_done[su] + sync + opt;
    stage_end[su] = end;
    if (end > iteration) {
      iteration = end;
      critical = s;
    }
  }

  // The timeline is that of the critical pipeline: the one that finishes the stage that ends
  // last, last.
  size_t slowest = 0;
  for (size_t k = 1; k < runs.size(); ++k)
    if (done_at(runs[k], static_cast<size_t>(critical)) >
        done_at(runs[slowest], static_cast<size_t>(critical)))
      slowest = k;
  // NOTE [Breakdown of the busiest stage]: the breakdown is that of the critical pipeline's
  // bottleneck: its stage with the most work (compute, blocking transfers, data-parallel sync,
  // step); its bubble is the rest of the iteration (fill, drain, waiting). The stage that ends
  // last is not always it: a fast first stage ends with the pipeline's last backward and would
  // report the slow stage's work as its own waiting. Near-equal work (relative 1e-9) goes to
  // the stage that ends last.
  const PipelineRun& run = runs[slowest];
  size_t cu = static_cast<size_t>(critical);
  double most = -1;
  for (size_t s = 0; s < static_cast<size_t>(P); ++s) {
    const double work =
        run.busy[s] + run.comm[s] + pred.stages[s].dp_sync_s + pred.stages[s].optimizer_s;
    pred.stages[s].work_s = work;
    const double tol = 1e-9 * std::max(1.0, most);
    if (work > most + tol || (work > most - tol && stage_end[s] > stage_end[cu])) {
      most = std::max(most, work);
      cu = s;
    }
  }
  pred.breakdown.stage = static_cast<int>(cu);
  PipelineRun& cr = runs[slowest];
  if (options.timeline) {
    pred.timeline = std::move(cr.ops);
    for (int s = 0; s < P; ++s) {
      const StageTimes& st = pred.stages[static_cast<size_t>(s)];
      const double end = stage_end[static_cast<size_t>(s)];
      if (st.dp_sync_s > 0)
        pred.timeline.push_back(
            {s, -1, 'A', end - st.dp_sync_s - st.optimizer_s, end - st.optimizer_s});
      pred.timeline.push_back({s, -1, 'O', end - st.optimizer_s, end});
    }
  }
  pred.iteration_s = iteration;
  pred.breakdown.compute_s = cr.busy[cu];
  pred.breakdown.p2p_s = cr.comm[cu];
  pred.breakdown.dp_sync_s = pred.stages[cu].dp_sync_s;
  pred.breakdown.optimizer_s = pred.stages[cu].optimizer_s;
  pred.breakdown.bubble_s =
      std::max(0.0, iteration - cr.busy[cu] - cr.comm[cu] - pred.stages[cu].dp_sync_s -
                        pred.stages[cu].optimizer_s);
  pred.iterations_per_s = iteration > 0 ? 1.0 / iteration : 0;
  pred.tokens_per_s = pred.iterations_per_s * job.global_batch_size * job.sequence_length;

  // ---- Cost per iteration: GPUs are rented for the whole iteration.
  for (const auto& reps : data)
    for (const auto& d : reps)
      pred.compute_usd += d.usd_per_gpu_hour / 3600.0 * iteration * d.replica->tp;
  for (auto& it : egress) {
    it.usd = it.bytes / 1e9 * scenario.egressUsdPerGb(it.from_zone, it.to_zone);
    pred.egress_usd += it.usd;
  }
  pred.egress = std::move(egress);
  pred.usd_per_iteration = pred.compute_usd + pred.egress_usd;
  pred.usd_per_hour = iteration > 0 ? pred.usd_per_iteration * 3600.0 / iteration : 0;
  if (options.timeline) {
    // By stage, then start: the schedules emit each stage's ops in time order, so a stable
    // bucketing by stage is the sort (each bucket checked, sorted only if it is not).
    std::vector<size_t> offset(static_cast<size_t>(P) + 1, 0);
    for (const auto& op : pred.timeline) ++offset[static_cast<size_t>(op.stage) + 1];
    for (size_t i = 1; i < offset.size(); ++i) offset[i] += offset[i - 1];
    std::vector<TimelineOp> sorted(pred.timeline.size());
    std::vector<size_t> fill(offset.begin(), offset.end() - 1);
    for (const auto& op : pred.timeline) sorted[fill[static_cast<size_t>(op.stage)]++] = op;
    auto by_start = [](const TimelineOp& x, const TimelineOp& y) { return x.start_s < y.start_s; };
    for (size_t st = 0; st + 1 < offset.size(); ++st) {
      auto first = sorted.begin() + static_cast<std::ptrdiff_t>(offset[st]);
      auto last = sorted.begin() + static_cast<std::ptrdiff_t>(offset[st + 1]);
      if (!std::is_sorted(first, last, by_start)) std::stable_sort(first, last, by_start);
    }
    pred.timeline = std::move(sorted);
  }
  return pred;
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
