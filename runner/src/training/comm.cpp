// The worker's communication (comm.hpp). In this file:
//   - communication clocks: HostClock (CPU, Gloo), CudaEventClock (CUDA, NCCL), the process's
//     clock (commClock, setCommClock, makeCommClock);
//   - the private network of a local run: makeNamespaces (in a forked helper), joinNamespacesOf,
//     joinPrivateNetwork;
//   - group creation: makeGroup (one Gloo or NCCL group), allGroups (every group of a run, in
//     the order every worker computes), createGroups, finishGroups;
//   - allReduceSum (bfloat16 over Gloo sums float32 copies);
//   - Megatron's tensor-parallel autograd functions (CopyToTp, ReduceFromTp);
//   - P2p, the pipeline's point-to-point transfers.
#include "comm.hpp"

#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>  // NOLINT(modernize-deprecated-headers): SIGKILL for prctl, POSIX
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#ifdef SAILOR_WITH_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef SAILOR_WITH_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif
#ifdef SAILOR_WITH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#endif

namespace sailor::runner {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Host clock: wait() blocks the host until the transfer is done (Gloo, CPU tensors).
class HostClock final : public CommClock {
 public:
  void begin() override { start_ = Clock::now(); }
  void end(CommKind kind) override { times_.*kind += since(start_); }
  CommTimes collect() override { return std::exchange(times_, CommTimes{}); }
  std::string name() const override { return "host"; }

 private:
  Clock::time_point start_;
  CommTimes times_;
};

#ifdef SAILOR_WITH_CUDA
// CUDA events on the current stream around each span: NCCL's wait() returns at once and makes
// the stream wait for the transfer, so the stream's time between the events is the transfer
// (including waiting for late peers); compute queued before begin() completes before the first
// event and is not counted.
class CudaEventClock final : public CommClock {
 public:
  void begin() override {
    start_ = at::cuda::CUDAEvent(cudaEventDefault);  // timing enabled (the default disables it)
    start_.record();
  }
  void end(CommKind kind) override {
    at::cuda::CUDAEvent stop(cudaEventDefault);
    stop.record();
    spans_.push_back({kind, std::move(start_), std::move(stop)});
  }
  CommTimes collect() override {
    CommTimes times;
    for (Span& s : spans_) {
      s.stop.synchronize();
      times.*s.kind += 1e-3 * s.start.elapsed_time(s.stop);  // milliseconds
    }
    spans_.clear();
    return times;
  }
  std::string name() const override { return "cuda-events"; }

 private:
  struct Span {
    CommKind kind;
    at::cuda::CUDAEvent start, stop;
  };
  at::cuda::CUDAEvent start_;
  std::vector<Span> spans_;
};
#endif

std::unique_ptr<CommClock>& clockSlot() {
  static std::unique_ptr<CommClock> clock = std::make_unique<HostClock>();
  return clock;
}

GroupPtr g_tensor_parallel;
std::string g_gloo_bind_address = "127.0.0.1";  // setGlooBindAddress

struct GroupSpec {
  std::string name;
  std::vector<int> members;  // world ranks, ascending; group rank = index
};

using StorePtr = c10::intrusive_ptr<c10d::Store>;

#ifdef SAILOR_WITH_NCCL
GroupPtr makeNcclGroup(const StorePtr& store, int group_rank, int size,
                       std::chrono::milliseconds timeout) {
  auto options = c10d::ProcessGroupNCCL::Options::create();
  options->timeout = timeout;
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, group_rank, size, options);
}
#endif

GroupPtr makeGlooGroup(const StorePtr& store, int group_rank, int size,
                       std::chrono::milliseconds timeout) {
#ifdef SAILOR_WITH_GLOO
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  // A local run binds loopback (docs/network.md "Network"); a cluster run (SAILOR_CLUSTER_RUN,
  // set by the Slurm script) the cluster's interface, GLOO_SOCKET_IFNAME, so that ranks on
  // other nodes reach it.
  const char* cluster_run = std::getenv("SAILOR_CLUSTER_RUN");
  const char* ifname = std::getenv("GLOO_SOCKET_IFNAME");
  options->devices.push_back(
      cluster_run && ifname && *ifname
          ? c10d::ProcessGroupGloo::createDeviceForInterface(ifname)
          : c10d::ProcessGroupGloo::createDeviceForHostname(g_gloo_bind_address));
  options->threads = 2;
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, group_rank, size, options);
#else
  // PyTorch's wheels ship c10d's Gloo header but not Gloo's own headers. A one-process run
  // needs no communication; anything larger needs Gloo (or NCCL).
  (void)store, (void)group_rank, (void)timeout;
  if (size == 1) return {};
  throw std::runtime_error(
      "backend gloo is not built in (libtorch without Gloo headers; set GLOO_INCLUDE_DIR when "
      "building): use --backend nccl with a GPU per rank, or a one-process plan");
#endif
}

// One group named `name` under `store`, of `size` ranks, this process being `group_rank`.
GroupPtr makeGroup(const StorePtr& store, const std::string& name, int group_rank, int size,
                   const std::string& backend, std::chrono::milliseconds timeout) {
  auto prefixed = c10::make_intrusive<c10d::PrefixStore>(name, store);
#ifdef SAILOR_WITH_NCCL
  if (backend == "nccl") return makeNcclGroup(prefixed, group_rank, size, timeout);
#endif
  if (backend != "gloo") throw std::runtime_error("backend " + backend + " is not built in");
  return makeGlooGroup(prefixed, group_rank, size, timeout);
}

// Every group of the run, in one order that every worker computes identically.
std::vector<GroupSpec> allGroups(const RunSpec& spec) {
  std::vector<GroupSpec> groups;
  const int stages = static_cast<int>(spec.plan.stages.size());
  for (int s = 0; s < stages; ++s)
    for (int d = 0; d < spec.data_parallel; ++d) {
      std::vector<int> ranks = spec.replicaRanks(s, d);
      if (ranks.size() > 1)
        groups.push_back({"tp/" + std::to_string(s) + "/" + std::to_string(d), ranks});
    }
  if (spec.data_parallel > 1)
    for (int s = 0; s < stages; ++s) {
      const auto& reps = spec.plan.stages[s].replicas;
      bool same_tp = true;
      for (const Replica& r : reps) same_tp = same_tp && r.tp == reps[0].tp;
      if (same_tp) {
        for (int t = 0; t < reps[0].tp; ++t) {
          std::vector<int> ranks;
          for (int d = 0; d < spec.data_parallel; ++d) ranks.push_back(spec.replicaRanks(s, d)[t]);
          groups.push_back({"dp/" + std::to_string(s) + "/" + std::to_string(t), ranks});
        }
      } else {
        groups.push_back({"dp/" + std::to_string(s) + "/padded", spec.stageRanks(s)});
      }
    }
  if (spec.model.tied_embeddings && stages > 1) {
    std::vector<int> ranks = spec.stageRanks(0);
    for (int r : spec.stageRanks(stages - 1)) ranks.push_back(r);
    groups.push_back({"embedding", ranks});
  }
  return groups;
}

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Identity forward, all-reduce backward.
struct CopyToTp : torch::autograd::Function<CopyToTp> {
  static torch::Tensor forward(AutogradContext*, const torch::Tensor& x) { return x.view_as(x); }
  static variable_list backward(AutogradContext*, variable_list grads) {
    std::vector<at::Tensor> t{grads[0].contiguous().clone()};
    allReduceSum(g_tensor_parallel, t, &CommTimes::tp);
    return {t[0]};
  }
};

// All-reduce forward, identity backward.
struct ReduceFromTp : torch::autograd::Function<ReduceFromTp> {
  static torch::Tensor forward(AutogradContext*, const torch::Tensor& x) {
    std::vector<at::Tensor> t{x.contiguous().clone()};
    allReduceSum(g_tensor_parallel, t, &CommTimes::tp);
    return t[0];
  }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0]}; }
};

std::string errnoText(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

// Writes `text` to the /proc file `path` in one write(2), as the kernel wants its maps.
bool writeProcFile(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

// In the calling (single-threaded) process: a new user namespace in which this user is itself
// (uid and gid mapped to themselves, so files keep their owner), a new network namespace owned
// by it, and its loopback up (a new network namespace has only `lo`, down). Returns "" or what
// failed.
std::string makeNamespaces(uid_t uid, gid_t gid) {
  if (::unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) return errnoText("unshare");
  // setgroups must be denied before an unprivileged process may write its gid_map.
  if (!writeProcFile("/proc/self/setgroups", "deny") && errno != ENOENT)
    return errnoText("/proc/self/setgroups");
  if (!writeProcFile("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1"))
    return errnoText("/proc/self/uid_map");
  if (!writeProcFile("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1"))
    return errnoText("/proc/self/gid_map");
  const int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return errnoText("socket");
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  bool up = ::ioctl(s, SIOCGIFFLAGS, &ifr) == 0;
  ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP);
  up = up && ::ioctl(s, SIOCSIFFLAGS, &ifr) == 0;
  const std::string why = up ? "" : errnoText("bringing up lo");
  ::close(s);
  return why;
}

// Joins the user and then the network namespace of process `pid` (the user namespace first:
// it owns the network namespace, and joining it gives this process the right to enter that).
// A change of user namespace resets the parent-death signal and the dumpable flag (the kernel
// treats it as a change of credentials): both are restored, and the parent is checked to be
// still the one that started this process.
void joinNamespacesOf(pid_t pid) {
  int death_signal = 0;
  prctl(PR_GET_PDEATHSIG, &death_signal);
  const int dumpable = prctl(PR_GET_DUMPABLE);
  const pid_t parent = ::getppid();
  for (const char* ns : {"user", "net"}) {
    const std::string path = "/proc/" + std::to_string(pid) + "/ns/" + ns;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error("private network: " + errnoText("open " + path));
    const int rv = ::setns(fd, 0);
    const int e = errno;
    ::close(fd);
    if (rv != 0) {
      errno = e;
      throw std::runtime_error("private network: " + errnoText("setns " + path));
    }
  }
  if (dumpable >= 0) prctl(PR_SET_DUMPABLE, dumpable);
  if (death_signal != 0) {
    prctl(PR_SET_PDEATHSIG, death_signal);
    if (::getppid() != parent) std::_Exit(1);  // the controller died while the signal was off
  }
}

// The parent of process `pid` (from /proc/<pid>/stat), or -1.
pid_t parentOf(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto paren = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (paren == std::string::npos) return -1;
  std::istringstream rest(stat.substr(paren + 1));
  std::string state;
  long ppid = -1;
  rest >> state >> ppid;
  return static_cast<pid_t>(ppid);
}

// Rank 0's part: a forked helper makes the namespaces and reports on a socket pair, then waits
// until rank 0 has joined them (its end of the pair closed) and exits. The namespaces live as long
// as a process is in them. Returns "" when this process is now in them, else why not.
std::string makePrivateNetwork() {
  if (const char* f = std::getenv("SAILOR_TEST_FAULT"); f && std::strcmp(f, "netns") == 0)
    return "injected fault (SAILOR_TEST_FAULT=netns)";
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return errnoText("socketpair");
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  const pid_t parent = ::getpid();
  const pid_t helper = ::fork();
  if (helper < 0) {
    const std::string why = errnoText("fork");
    ::close(sv[0]);
    ::close(sv[1]);
    return why;
  }
  if (helper == 0) {
    ::close(sv[0]);
    const std::string why = makeNamespaces(uid, gid);
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // after the unshare, which clears it
    const std::string reply = why.empty() ? std::string("ok") : why;
    if (::getppid() == parent && ::write(sv[1], reply.data(), reply.size()) > 0) {
      char c;
      while (::read(sv[1], &c, 1) > 0) {
      }
    }
    std::_Exit(0);
  }
  ::close(sv[1]);
  char buf[512];
  const ssize_t n = ::read(sv[0], buf, sizeof buf);
  std::string reply = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "helper died";
  if (reply == "ok") {
    try {
      joinNamespacesOf(helper);
      reply.clear();
    } catch (const std::exception& e) {
      reply = e.what();
    }
  }
  ::close(sv[0]);
  int status = 0;
  ::waitpid(helper, &status, 0);
  return reply;
}

}  // namespace

std::unique_ptr<CommClock> makeCommClock(const torch::Device& device) {
  if (!device.is_cuda()) return std::make_unique<HostClock>();
#ifdef SAILOR_WITH_CUDA
  return std::make_unique<CudaEventClock>();
#else
  throw std::runtime_error("communication clock for " + device.str() +
                           ": this build has no CUDA (libtorch without CUDA)");
#endif
}

CommClock& commClock() {
  return *clockSlot();
}

void setCommClock(std::unique_ptr<CommClock> clock) {
  clockSlot() = std::move(clock);
}

bool ncclCompiledIn() {
#ifdef SAILOR_WITH_NCCL
  return true;
#else
  return false;
#endif
}

std::string chooseBackend(const std::string& requested) {
  const bool nccl_usable = ncclCompiledIn() && torch::cuda::is_available();
  if (requested == "nccl" && !nccl_usable)
    throw std::runtime_error(ncclCompiledIn()
                                 ? "backend nccl: no CUDA device is visible to this worker"
                                 : "backend nccl: this build has no NCCL (libtorch without CUDA)");
  if (requested == "gloo") return "gloo";
  return nccl_usable ? "nccl" : "gloo";
}

bool joinPrivateNetwork(const c10::intrusive_ptr<c10d::Store>& store, int rank, int generation) {
  const std::string key = "gen/" + std::to_string(generation) + "/netns";
  if (rank == 0) {
    const std::string why = makePrivateNetwork();
    const std::string value = why.empty() ? std::to_string(::getpid()) : "none: " + why;
    store->set(key, std::vector<std::uint8_t>(value.begin(), value.end()));
    return why.empty();
  }
  const std::vector<std::uint8_t> bytes = store->get(key);  // waits up to the store's timeout
  const std::string value(bytes.begin(), bytes.end());
  if (value.rfind("none", 0) == 0) return false;
  const pid_t rank0 = static_cast<pid_t>(std::stol(value));
  if (parentOf(rank0) != ::getppid())  // rank 0 gone (its pid reused?): nothing to join
    throw std::runtime_error("private network: rank 0 (pid " + value +
                             ") is no longer a worker of this run");
  joinNamespacesOf(rank0);
  return true;
}

Groups createGroups(const RunSpec& spec, int rank, const c10::intrusive_ptr<c10d::Store>& store,
                    int generation, const std::string& backend, std::chrono::milliseconds timeout) {
  auto gen = c10::make_intrusive<c10d::PrefixStore>("gen/" + std::to_string(generation), store);
  Groups g;
  g.backend = backend;
  if (spec.worldSize() > 1)  // one process: nothing to communicate (see Groups::world)
    g.world = makeGroup(gen, "world", rank, spec.worldSize(), backend, timeout);
  for (const GroupSpec& gs : allGroups(spec)) {
    const auto it = std::find(gs.members.begin(), gs.members.end(), rank);
    if (it == gs.members.end()) continue;
    GroupPtr pg = makeGroup(gen, gs.name, static_cast<int>(it - gs.members.begin()),
                            static_cast<int>(gs.members.size()), backend, timeout);
    if (gs.name.rfind("tp/", 0) == 0) {
      g.tp = pg;
    } else if (gs.name.rfind("dp/", 0) == 0) {
      g.dp = pg;
      g.dp_padded = gs.name.ends_with("/padded");
    } else if (gs.name == "embedding") {
      g.embedding = pg;
      // One contributor per stage, its lowest rank: the gradients are summed over the replicas
      // already. Sharded (the distributed optimizer, fully sharded) the sum over the replicas
      // comes after (a reduce-scatter, which leaves no rank the whole tensor): tp rank 0 of every
      // replica.
      const std::vector<int> first = spec.stageRanks(0);
      const std::vector<int> last = spec.stageRanks(static_cast<int>(spec.plan.stages.size()) - 1);
      g.embedding_contributor =
          spec.plan.schedule.sharding != DpSharding::None && spec.data_parallel > 1
              ? spec.ranks.at(static_cast<std::size_t>(rank)).tp_rank == 0
              : rank == first.front() || rank == last.front();
    }
  }
  return g;
}

GroupPtr createTransferGroup(const c10::intrusive_ptr<c10d::Store>& store, int generation,
                             int member, int members, std::chrono::milliseconds timeout) {
  auto gen = c10::make_intrusive<c10d::PrefixStore>("gen/" + std::to_string(generation), store);
  return makeGroup(gen, "transfer", member, members, "gloo", timeout);
}

void allReduceSum(const GroupPtr& group, std::vector<at::Tensor>& tensors, CommKind kind) {
  commClock().begin();
  // Gloo (libtorch 1.13) has no bfloat16 sum: reduce float32 copies, then round once back to
  // bfloat16 (NCCL sums bfloat16 itself).
  if (!tensors.empty() && tensors[0].scalar_type() == at::kBFloat16 &&
      group->getBackendName() == "gloo") {
    std::vector<at::Tensor> wide;
    for (const at::Tensor& t : tensors) wide.push_back(t.to(at::kFloat));
    group->allreduce(wide)->wait();
    for (std::size_t i = 0; i < tensors.size(); ++i) tensors[i].copy_(wide[i]);
  } else {
    group->allreduce(tensors)->wait();
  }
  commClock().end(kind);
}

void finishGroups(Groups& groups, const torch::Device& device) {
  std::vector<at::Tensor> one{torch::zeros({1}, torch::TensorOptions().device(device))};
  if (groups.world)  // null: one process without Gloo, nothing to wait for
    groups.world->allreduce(one)->wait();
  (void)one[0].item<float>();  // host waits for the device (NCCL's wait() does not block)
#if defined(SAILOR_WITH_NCCL) && \
    (TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4))
  if (groups.backend == "nccl")
    for (GroupPtr* g : {&groups.tp, &groups.dp, &groups.embedding, &groups.world})
      if (*g) static_cast<c10d::ProcessGroupNCCL*>(g->get())->shutdown();
#endif
}

void setGlooBindAddress(std::string address) {
  g_gloo_bind_address = std::move(address);
}

void setTensorParallelGroup(GroupPtr group) {
  g_tensor_parallel = std::move(group);
}

torch::Tensor copyToTensorParallel(const torch::Tensor& x) {
  return g_tensor_parallel ? CopyToTp::apply(x) : x;
}

torch::Tensor reduceFromTensorParallel(const torch::Tensor& x) {
  return g_tensor_parallel ? ReduceFromTp::apply(x) : x;
}

void P2p::send(const torch::Tensor& t, int dst, int tag) {
  if (pending_.empty()) commClock().begin();
  std::vector<at::Tensor> v{t.contiguous()};
  keep_.push_back(v[0]);
  pending_.push_back(world_->send(v, dst, tag));
}

void P2p::recv(torch::Tensor& t, int src, int tag) {
  if (pending_.empty()) commClock().begin();
  std::vector<at::Tensor> v{t};
  pending_.push_back(world_->recv(v, src, tag));
}

void P2p::wait() {
  if (pending_.empty()) return;
  for (auto& w : pending_) w->wait();
  pending_.clear();
  keep_.clear();
  commClock().end(&CommTimes::p2p);
}

void AsyncP2p::send(const torch::Tensor& t, int dst, int tag) {
  std::vector<at::Tensor> v{t.contiguous()};
  keep_.push_back(v[0]);
  sends_.push_back(world_->send(v, dst, tag));
}

std::size_t AsyncP2p::recv(const torch::Tensor& t, int src, int tag) {
  std::vector<at::Tensor> v{t};
  recvs_.push_back(world_->recv(v, src, tag));
  return recvs_.size() - 1;
}

void AsyncP2p::wait(std::size_t ticket) {
  auto& work = recvs_.at(ticket);
  if (!work) return;
  commClock().begin();
  work->wait();
  commClock().end(&CommTimes::p2p);
  work.reset();
}

void AsyncP2p::finish() {
  if (!sends_.empty()) {
    commClock().begin();
    for (auto& w : sends_) w->wait();
    commClock().end(&CommTimes::p2p);
  }
  for (auto& w : recvs_)
    if (w) w->wait();
  sends_.clear();
  keep_.clear();
  recvs_.clear();
}

}  // namespace sailor::runner
