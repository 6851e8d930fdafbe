// A worker's side of in-place reconfiguration (elastic.hpp). In this file: the control channel
// (stdin or store reader), Membership's JSON, homeLayer, the choice of source replicas
// (chooseSources), exchangeState and abortTransport.
#include "elastic.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>

#include "sailor/core/json_util.hpp"

namespace sailor::runner {

using nlohmann::json;

ControlChannel::ControlChannel() : thread_([this] { loop(); }) {}

ControlChannel::ControlChannel(c10::intrusive_ptr<c10d::Store> store, std::string prefix,
                               std::string store_address)
    : store_(std::move(store)),
      prefix_(std::move(prefix)),
      store_address_(std::move(store_address)),
      thread_([this] { storeLoop(); }) {}

ControlChannel::~ControlChannel() {
  stop_ = true;
  // A stdin reader may be blocked in read(), which only the controller can end: it is left to
  // end with the process. The store's reader wakes within its poll interval.
  if (store_ && thread_.joinable()) thread_.join();
  if (thread_.joinable()) thread_.detach();
}

// One command line: pause and abort act at once, the others wait for next().
void ControlChannel::take(const std::string& line) {
  json cmd;
  try {
    cmd = json_util::parseText(line, "control");
  } catch (const std::exception&) {
    return;  // the controller writes only objects; anything else is not a command
  }
  if (!cmd.is_object()) return;
  const std::string type = cmd.value("type", "");
  if (type == "pause") {
    pause_ = true;
  } else if (type == "stop") {
    // The run is stopping (or failed): end now, as a SIGTERM would without --notice.
    std::_Exit(128 + SIGTERM);
  } else if (type == "abort") {
    // A peer died: unblock this worker's collectives now (the main thread is likely waiting
    // in one), so that it reports and waits for the new world. The store's connections stay.
    (void)abortTransport({}, store_address_);
  } else {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(cmd));
    changed_.notify_all();
  }
}

void ControlChannel::end() {
  std::lock_guard<std::mutex> lock(mutex_);
  ended_ = true;
  changed_.notify_all();
}

void ControlChannel::loop() {
  std::string buf;
  char chunk[4096];
  while (true) {
    const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buf.append(chunk, static_cast<std::size_t>(n));
    std::size_t nl;
    while ((nl = buf.find('\n')) != std::string::npos) {
      take(buf.substr(0, nl));
      buf.erase(0, nl + 1);
    }
  }
  end();
}

// NOTE [Control through the store]: a check() every 20 ms (a request of a few bytes to rank 0's
// store); the key's value once it exists. A store that stops answering ends the channel: the
// worker then reports its error as any other.
void ControlChannel::storeLoop() {
  try {
    for (std::int64_t n = 0; !stop_;) {
      const std::string key = prefix_ + "/" + std::to_string(n);
      if (!store_->check({key})) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        continue;
      }
      const std::vector<std::uint8_t> v = store_->get(key);
      take(std::string(v.begin(), v.end()));
      ++n;
    }
  } catch (const std::exception&) {
  }
  end();
}

json ControlChannel::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return !queue_.empty() || ended_; });
  if (queue_.empty()) throw std::runtime_error("the controller's control channel closed");
  json cmd = std::move(queue_.front());
  queue_.pop_front();
  return cmd;
}

Membership Membership::fromJson(const json& j) {
  Membership m;
  m.generation = j.at("generation").get<int>();
  m.state_iteration = j.at("state_iteration").get<int>();
  m.new_world_size = j.at("new_world_size").get<int>();
  for (const json& x : j.at("members"))
    m.members.push_back(Member{x.at("old_rank").get<int>(), x.at("holder").get<bool>()});
  return m;
}

int homeLayer(const std::string& name, int layers) {
  if (name.rfind("embedding.", 0) == 0) return 0;
  if (name.rfind("layer", 0) == 0) {
    const std::size_t dot = name.find('.');
    return std::atoi(name.substr(5, dot - 5).c_str());
  }
  return layers + 1;  // final_norm.*, head.weight
}

namespace {

// For each old stage, the members (by tp rank) of the lowest replica whose every tp rank is a
// holder; an empty list for a stage with no complete replica.
std::vector<std::vector<int>> chooseSources(const RunSpec& old_spec, const Membership& m) {
  std::map<int, int> member_of_old;  // old rank -> member index, holders only
  for (std::size_t i = 0; i < m.members.size(); ++i)
    if (m.members[i].holder && m.members[i].old_rank >= 0)
      member_of_old[m.members[i].old_rank] = static_cast<int>(i);
  std::vector<std::vector<int>> out(old_spec.plan.stages.size());
  for (std::size_t s = 0; s < out.size(); ++s) {
    for (int d = 0; d < old_spec.data_parallel; ++d) {
      std::vector<int> set;
      for (const int r : old_spec.replicaRanks(static_cast<int>(s), d)) {
        const auto it = member_of_old.find(r);
        if (it == member_of_old.end()) break;
        set.push_back(it->second);
      }
      if (set.size() == old_spec.replicaRanks(static_cast<int>(s), d).size()) {
        out[s] = std::move(set);
        break;
      }
    }
  }
  return out;
}

// Home layers a rank of `spec` needs: those of its stage, and 0 for a last stage whose head is
// tied to the token embedding.
std::set<int> neededLayers(const RunSpec& spec, int rank) {
  const RankPlacement& p = spec.ranks.at(static_cast<std::size_t>(rank));
  std::set<int> out;
  for (const auto& [first, last] : spec.plan.chunkLayers(static_cast<std::size_t>(p.stage)))
    for (int l = first; l <= last; ++l) out.insert(l);
  if (spec.model.tied_embeddings && p.stage + 1 == static_cast<int>(spec.plan.stages.size()))
    out.insert(0);
  return out;
}

// The entries of `shard` whose parameter's home layer is in `layers` (with the meta entries).
c10::Dict<std::string, at::Tensor> filtered(const c10::Dict<std::string, at::Tensor>& shard,
                                            const std::set<int>& layers, int model_layers) {
  c10::Dict<std::string, at::Tensor> out;
  for (const auto& e : shard) {
    const std::string& key = e.key();
    const std::size_t slash = key.find('/');
    const std::string kind = key.substr(0, slash), name = key.substr(slash + 1);
    if (kind == "meta" || layers.count(homeLayer(name, model_layers))) out.insert(key, e.value());
  }
  return out;
}

// A dictionary of CPU tensors as bytes: an 8-byte length, a JSON header (key, dtype, shape per
// tensor, in order), then each tensor's contiguous data. Not torch's pickle: that spent about a
// second per 10 MB of state packing and unpacking (measured on this machine, 2 cores, loaded),
// this is two memory copies. The buffer is a uint8 tensor, sent as it is (not zero-filled first).
at::Tensor toBytes(const c10::Dict<std::string, at::Tensor>& d) {
  json header = json::array();
  std::vector<at::Tensor> tensors;
  std::size_t data_bytes = 0;
  for (const auto& e : d) {
    at::Tensor t = e.value().contiguous();
    header.push_back({{"key", e.key()},
                      {"dtype", static_cast<int>(t.scalar_type())},
                      {"shape", t.sizes().vec()}});
    data_bytes += t.nbytes();
    tensors.push_back(std::move(t));
  }
  const std::string h = header.dump();
  at::Tensor out =
      torch::empty({static_cast<std::int64_t>(8 + h.size() + data_bytes)}, torch::kUInt8);
  char* base = static_cast<char*>(out.data_ptr());
  const std::uint64_t n = h.size();
  std::memcpy(base, &n, 8);
  std::memcpy(base + 8, h.data(), h.size());
  char* at = base + 8 + h.size();
  for (const at::Tensor& t : tensors) {
    std::memcpy(at, t.data_ptr(), t.nbytes());
    at += t.nbytes();
  }
  return out;
}

c10::Dict<std::string, at::Tensor> fromBytes(const char* data, std::size_t size) {
  std::uint64_t n = 0;
  if (size < 8)
    throw std::runtime_error("state transfer: a message of " + std::to_string(size) + " bytes");
  std::memcpy(&n, data, 8);
  if (n > size - 8) throw std::runtime_error("state transfer: a header beyond its message");
  const json header = json::parse(std::string(data + 8, n));
  const char* at = data + 8 + n;
  const char* end = data + size;
  c10::Dict<std::string, at::Tensor> out;
  for (const json& e : header) {
    const auto dtype = static_cast<at::ScalarType>(e.at("dtype").get<int>());
    at::Tensor t = torch::empty(e.at("shape").get<std::vector<std::int64_t>>(),
                                torch::TensorOptions().dtype(dtype));
    if (static_cast<std::size_t>(end - at) < t.nbytes())
      throw std::runtime_error("state transfer: tensor data beyond its message");
    std::memcpy(t.data_ptr(), at, t.nbytes());
    at += t.nbytes();
    out.insert(e.at("key").get<std::string>(), std::move(t));
  }
  return out;
}

}  // namespace

ReceivedState exchangeState(const RunSpec& old_spec, const RunSpec& new_spec,
                            const Membership& membership, int me,
                            const c10::Dict<std::string, at::Tensor>& mine, const GroupPtr& group) {
  const auto sources = chooseSources(old_spec, membership);
  for (std::size_t s = 0; s < sources.size(); ++s)
    if (sources[s].empty())
      throw std::runtime_error("no surviving worker holds a complete replica of old stage " +
                               std::to_string(s));
  const int layers = old_spec.model.layers;
  // Old stages a new rank takes state from: those holding a home layer it needs.
  auto stages_for = [&](int new_rank) {
    const std::set<int> need = neededLayers(new_spec, new_rank);
    std::vector<int> out;
    for (std::size_t s = 0; s < old_spec.plan.stages.size(); ++s) {
      bool holds = false;
      for (const auto& [first, last] : old_spec.plan.chunkLayers(s))
        for (int l = first; l <= last && !holds; ++l) holds = need.count(l) > 0;
      if (holds) out.push_back(static_cast<int>(s));
    }
    return out;
  };
  // Sends: for every new rank, from each of my source roles.
  std::vector<at::Tensor> keep;
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  std::vector<std::pair<int, int>> to_send;  // (receiver member, old stage) I send
  for (int r = 0; r < membership.new_world_size; ++r)
    for (const int s : stages_for(r)) {
      const auto& set = sources[static_cast<std::size_t>(s)];
      if (std::find(set.begin(), set.end(), me) != set.end() && r != me) to_send.emplace_back(r, s);
    }
  // Receives: the source members of my stages, by old stage.
  ReceivedState out;
  struct Incoming {
    int sender;           // member
    int old_stage;        // the message's tag
    std::size_t set, tp;  // where it goes: out.replica_sets[set][tp]
  };
  std::vector<Incoming> to_recv;
  if (me < membership.new_world_size) {
    for (const int s : stages_for(me)) {
      const auto& set = sources[static_cast<std::size_t>(s)];
      out.replica_sets.emplace_back(set.size());
      for (std::size_t t = 0; t < set.size(); ++t) {
        if (set[t] == me)
          out.replica_sets.back()[t] = filtered(mine, neededLayers(new_spec, me), layers);
        else to_recv.push_back({set[t], s, out.replica_sets.size() - 1, t});
      }
    }
  }
  // Round 1: sizes; round 2: the packed dictionaries. Everything is posted before any wait, so
  // the order of posts cannot deadlock.
  // One payload per set of layers: receivers that need the same layers (replicas of one new
  // stage) get the same buffer.
  std::map<std::set<int>, at::Tensor> packed;
  std::vector<at::Tensor> payloads;
  for (const auto& [r, s] : to_send) {
    (void)s;
    const std::set<int> need = neededLayers(new_spec, r);
    auto it = packed.find(need);
    if (it == packed.end()) it = packed.emplace(need, toBytes(filtered(mine, need, layers))).first;
    payloads.push_back(it->second);
  }
  // One message of each kind per (sender, receiver) pair and old stage: the tag says which.
  auto tag_of = [](int old_stage, int kind) { return 2 * old_stage + kind; };
  std::vector<at::Tensor> sizes_in(to_recv.size());
  for (std::size_t i = 0; i < to_send.size(); ++i) {
    keep.push_back(torch::tensor({payloads[i].numel()}, torch::kInt64));
    std::vector<at::Tensor> t{keep.back()};
    works.push_back(group->send(t, to_send[i].first, tag_of(to_send[i].second, 0)));
  }
  for (std::size_t i = 0; i < to_recv.size(); ++i) {
    sizes_in[i] = torch::zeros({1}, torch::kInt64);
    std::vector<at::Tensor> t{sizes_in[i]};
    works.push_back(group->recv(t, to_recv[i].sender, tag_of(to_recv[i].old_stage, 0)));
  }
  for (auto& w : works) w->wait();
  works.clear();
  std::vector<at::Tensor> data_in(to_recv.size());
  for (std::size_t i = 0; i < to_send.size(); ++i) {
    std::vector<at::Tensor> t{payloads[i]};
    works.push_back(group->send(t, to_send[i].first, tag_of(to_send[i].second, 1)));
  }
  for (std::size_t i = 0; i < to_recv.size(); ++i) {
    data_in[i] = torch::empty({sizes_in[i].item<std::int64_t>()}, torch::kUInt8);
    std::vector<at::Tensor> t{data_in[i]};
    works.push_back(group->recv(t, to_recv[i].sender, tag_of(to_recv[i].old_stage, 1)));
  }
  for (auto& w : works) w->wait();
  for (std::size_t i = 0; i < to_recv.size(); ++i) {
    const at::Tensor& d = data_in[i];
    out.bytes += d.numel();
    out.replica_sets[to_recv[i].set][to_recv[i].tp] =
        fromBytes(static_cast<const char*>(d.data_ptr()), static_cast<std::size_t>(d.numel()));
  }
  return out;
}

namespace {
// "HOST:PORT" of an IPv4 socket address; empty for any other family.
std::string addressText(const sockaddr_storage& addr) {
  if (addr.ss_family != AF_INET) return {};
  const auto& in = reinterpret_cast<const sockaddr_in&>(addr);
  char host[INET_ADDRSTRLEN] = {};
  if (!inet_ntop(AF_INET, &in.sin_addr, host, sizeof host)) return {};
  return std::string(host) + ":" + std::to_string(ntohs(in.sin_port));
}
}  // namespace

int abortTransport(const std::vector<int>& keep, const std::string& store_address) {
  int count = 0;
  DIR* d = opendir("/proc/self/fd");
  if (!d) return 0;
  std::vector<int> fds;
  while (const dirent* e = readdir(d)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0') continue;
    fds.push_back(static_cast<int>(fd));
  }
  closedir(d);
  for (const int fd : fds) {
    if (std::find(keep.begin(), keep.end(), fd) != keep.end()) continue;
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    int type = 0;
    socklen_t len = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM) continue;
    sockaddr_storage addr{};
    socklen_t alen = sizeof addr;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &alen) != 0) continue;
    if (addr.ss_family != AF_INET && addr.ss_family != AF_INET6) continue;
    if (!store_address.empty()) {  // the store's own sockets and those to it stay
      if (addressText(addr) == store_address) continue;
      sockaddr_storage peer{};
      socklen_t plen = sizeof peer;
      if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &plen) == 0 &&
          addressText(peer) == store_address)
        continue;
    }
    if (::shutdown(fd, SHUT_RDWR) == 0) ++count;
  }
  return count;
}

}  // namespace sailor::runner
