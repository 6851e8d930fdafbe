// The simulator's communication (declared in sailor/simulation/simulator.hpp and
// simulator_internal.hpp): collectives and point-to-point transfers over a link, the links between
// replicas' nodes, the egress they carry, and each stage's data-parallel gradient all-reduce and
// optimizer step.
//   dataParallelFigures       a stage's data-parallel sum and step in the planner's closed form
//   ringAllReduceSeconds, stepSeconds, boundaryTransferSeconds   one collective, step, transfer
//   Links, EgressLedger       step 4: links between the replicas' nodes, bytes per zone pair
//   boundaryTransfers         step 5: activations and gradients between stages
//   tiedEmbeddingSync, stageSyncAndStep   step 7: gradient all-reduces and the optimizer step
#include <algorithm>
#include <cassert>
#include <cmath>
#include <stdexcept>

#include "simulator_internal.hpp"

namespace sailor {

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
// (ReplicaGradientSum, runner/src/training/grad_sync.hpp). Each copy reads and writes every fp32
// gradient: 4 x 4 bytes per parameter of memory traffic at the device's bandwidth. On a GPU it is a
// small term (OPT-350M on an A100, 1.3 GB of gradients: 3.4 ms); on a CPU, whose copies run at a
// few tens of GB/s, it is a few percent of the iteration (the scaled OPT-350M on the development VM
// at 29 GB/s: 12 ms of a 0.58 s two-replica iteration, 2026-12-06). Without data parallelism
// nothing is summed and nothing copied.
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

namespace sim {

// ---- 4. Links, and the egress they carry.

Links::Links(const Scenario& scenario, const Catalog& catalog,
             std::vector<const Replica*> site_replica, const LinkIndex* index)
    : catalog_(catalog),
      site_replica_(std::move(site_replica)),
      index_(index),
      in_node_(site_replica_.size(), nullptr) {
  if (index && &index->scenario() != &scenario)
    throw std::logic_error("Links: the index was built from another scenario");
  if (!index) index_ = &own_.emplace(scenario);
}

const ResolvedLink& Links::node(const ReplicaData& x) {
  const ResolvedLink*& l = in_node_[static_cast<size_t>(x.site)];
  if (!l) l = &index_->nodeLink(x.replica->gpu_type, catalog_);
  return *l;
}

bool Links::sameNode(const ReplicaData& x, const ReplicaData& y) {
  return x.site == y.site && x.node == y.node;
}

const ResolvedLink& Links::between(const ReplicaData& x, const ReplicaData& y, int g) {
  if (sameNode(x, y)) return node(x);
  const size_t n = site_replica_.size();
  const size_t at =
      (static_cast<size_t>(g) * n + static_cast<size_t>(x.site)) * n + static_cast<size_t>(y.site);
  if (at >= between_.size()) between_.resize((static_cast<size_t>(g) + 1) * n * n, nullptr);
  const ResolvedLink*& l = between_[at];
  if (!l) {
    const Replica& a = *site_replica_[static_cast<size_t>(x.site)];
    const Replica& c = *site_replica_[static_cast<size_t>(y.site)];
    l = &index_->link({a.zone, a.gpu_type, c.zone, c.gpu_type, g});
  }
  return *l;
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

}  // namespace sim
}  // namespace sailor
