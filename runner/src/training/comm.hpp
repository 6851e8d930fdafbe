// The worker's communication: process groups over a c10d rendezvous store, point-to-point
// transfers between pipeline stages, and the tensor-parallel autograd functions.
//
// Groups are created under a PrefixStore named by the run's generation ("gen/<G>/"), so that a
// later generation (a reconfigured world: other ranks, other sizes) can form new groups on the
// same store while nothing of the old one is reused. Every worker walks the same ordered list of
// groups (derived from the RunSpec) and joins those it belongs to; that common order is what
// makes group creation deadlock-free. See docs/training.md, "Parallelism", and docs/elasticity.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <torch/version.h>
#if TORCH_VERSION_MAJOR >= 2
#include <torch/csrc/distributed/c10d/Backend.hpp>
#else
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#endif
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/torch.h>

#include "sailor/runs/run_spec.hpp"

namespace sailor::runner {

// Seconds spent waiting on communication, by kind, in one iteration.
struct CommTimes {
  double p2p = 0;  // pipeline activations and gradients
  double tp = 0;   // tensor-parallel all-reduces (forward and backward)
  double dp = 0;   // data-parallel gradient all-reduce, tied-embedding and norm reductions
  double total() const { return p2p + tp + dp; }
};
using CommKind = double CommTimes::*;

// Times communication as the device that trains experiences it: from just before the first
// transfer of a communication is posted to just after its wait() returned (span), booked under
// a kind. On CPU (Gloo) wait() blocks the host until the data are there, so the host clock
// measures the span. On CUDA (NCCL) wait() only makes the current stream wait for the transfer
// and returns at once (the host clock would read about 0 and the transfer would count as
// compute): there the span is a pair of CUDA events on the current stream, read by collect()
// once the events completed. Spans do not nest. One clock per process (setCommClock): the
// tensor-parallel autograd functions book into it from the autograd engine's threads too.
class CommClock {
 public:
  virtual ~CommClock() = default;
  virtual void begin() = 0;
  virtual void end(CommKind kind) = 0;
  // Seconds of the spans ended since the last collect(), by kind (waits for their events on
  // CUDA); starts the next count from zero.
  virtual CommTimes collect() = 0;
  virtual std::string name() const = 0;  // "host" or "cuda-events"
};
// The clock for tensors on `device`: host for CPU, CUDA events for CUDA. Throws when `device`
// is CUDA and this build has no CUDA.
std::unique_ptr<CommClock> makeCommClock(const torch::Device& device);
// This process's clock: a host clock until setCommClock installs another.
CommClock& commClock();
void setCommClock(std::unique_ptr<CommClock> clock);

// A process group as the worker drives it. libtorch 1.x: ProcessGroupGloo/NCCL derive from
// c10d::ProcessGroup; 2.x split that class into a dispatching ProcessGroup and the per-transport
// c10d::Backend that Gloo and NCCL now derive from, with the same collective calls.
#if TORCH_VERSION_MAJOR >= 2
using GroupPtr = c10::intrusive_ptr<c10d::Backend>;
#else
using GroupPtr = c10::intrusive_ptr<c10d::ProcessGroup>;
#endif

struct Groups {
  GroupPtr world;          // every rank; null in a one-process run, whose Gloo group would only
                           // add a transport thread that wakes 100 times a second (2-3% of a
                           // CPU core on a VM)
  GroupPtr tp;             // this replica's tensor-parallel group; null when tp == 1
  GroupPtr dp;             // gradient all-reduce among this stage's replicas; null when D == 1
  bool dp_padded = false;  // replicas of this stage differ in tp: dp spans the whole stage and
                           // gradients travel as zero-padded full tensors (see grad_sync)
  GroupPtr embedding;      // tied input/output embedding across first and last stage; else null
  bool embedding_contributor = false;  // this rank adds its gradient in the embedding group
  std::string backend;                 // "gloo" or "nccl"
};

// "auto" picks nccl when this build has it and a CUDA device is present, else gloo. Throws
// when "nccl" is asked for and unavailable.
std::string chooseBackend(const std::string& requested);
bool ncclCompiledIn();

// Moves this worker into the private network of a local run (Linux): rank 0 creates a user and
// network namespace pair with its own loopback (a forked helper unshares, maps this user to
// itself and brings `lo` up; rank 0 then joins it) and publishes its pid under
// "gen/<generation>/netns" in `store`; every other rank joins rank 0's namespaces. Gloo's
// listeners are then reachable only from inside the run: no other process of the machine can
// connect to them (docs/network.md "Network"). Where the kernel refuses unprivileged user
// namespaces (a container's seccomp profile, a sysctl), rank 0 publishes "none" and every rank
// stays on the machine's loopback. Must run while the process has one thread (setns and unshare
// refuse a user namespace change otherwise). Keeps this process's parent-death signal and
// dumpable flag, which a change of user namespace resets. Returns whether the run is in a
// private network; throws when rank 0 made one that this rank cannot join.
bool joinPrivateNetwork(const c10::intrusive_ptr<c10d::Store>& store, int rank, int generation);

// The address a local run's Gloo groups bind: 127.0.0.1 unless set (an emulated zone's address,
// zone_network.hpp, so that traffic between zones crosses the shaped links). Set before
// createGroups.
void setGlooBindAddress(std::string address);

Groups createGroups(const RunSpec& spec, int rank, const c10::intrusive_ptr<c10d::Store>& store,
                    int generation, const std::string& backend, std::chrono::milliseconds timeout);

// The group a reconfiguration moves state over (elastic.hpp): `members` workers, this one
// `member`, named "transfer" under generation `generation`'s prefix. Gloo whatever the run's
// backend: the state travels as pickled bytes in CPU tensors.
GroupPtr createTransferGroup(const c10::intrusive_ptr<c10d::Store>& store, int generation,
                             int member, int members, std::chrono::milliseconds timeout);

// Waits until every rank of the world got here (an all-reduce of one element on `device`; c10d's
// barrier() on NCCL has to guess the device and warns about it), then releases NCCL
// communicators explicitly where libtorch has the call (2.4+: its destructor warns otherwise).
void finishGroups(Groups& groups, const torch::Device& device);

// Sums `tensors` over `group` and waits for it, booking the span under `kind` in commClock().
void allReduceSum(const GroupPtr& group, std::vector<at::Tensor>& tensors, CommKind kind);

// Installs the group the tensor-parallel autograd functions reduce over (one per process).
void setTensorParallelGroup(GroupPtr group);
// Megatron's f and g: identity forward and all-reduce backward (entering a column-parallel
// layer), and all-reduce forward and identity backward (leaving a row-parallel layer). Both are
// the identity when tp == 1.
torch::Tensor copyToTensorParallel(const torch::Tensor& x);
torch::Tensor reduceFromTensorParallel(const torch::Tensor& x);

// Point-to-point transfers of the pipeline. A send or receive is posted at once; wait() blocks
// for every posted transfer (so paired exchanges, as 1F1B needs, cannot deadlock). The span
// from the first post to the end of wait() is booked as p2p in commClock().
class P2p {
 public:
  explicit P2p(GroupPtr world) : world_(std::move(world)) {}
  void send(const torch::Tensor& t, int dst, int tag);
  void recv(torch::Tensor& t, int src, int tag);
  void wait();

 private:
  GroupPtr world_;
  std::vector<c10::intrusive_ptr<c10d::Work>> pending_;
  std::vector<torch::Tensor> keep_;  // buffers that must outlive their transfer
};

// Point-to-point transfers posted ahead of their need (the interleaved schedule, whose chunks
// send to both neighbours): a send is posted as its data is computed and goes on in the
// background (Gloo's threads, NCCL's stream); a receive is posted before the operation that
// comes ahead of its use and waited for where its data is needed; finish() waits for the sends.
// Between two ranks the transfers of each direction are posted in the same order on both sides
// (NCCL matches them by order, not by tag). The time blocked in waits is booked as p2p.
class AsyncP2p {
 public:
  explicit AsyncP2p(GroupPtr world) : world_(std::move(world)) {}
  void send(const torch::Tensor& t, int dst, int tag);
  // Posts a receive into `t`; wait(ticket) blocks until it has arrived.
  std::size_t recv(const torch::Tensor& t, int src, int tag);
  void wait(std::size_t ticket);
  void finish();

 private:
  GroupPtr world_;
  std::vector<c10::intrusive_ptr<c10d::Work>> sends_;
  std::vector<torch::Tensor> keep_;  // the sends' buffers, until finish()
  std::vector<c10::intrusive_ptr<c10d::Work>> recvs_;
};

}  // namespace sailor::runner
