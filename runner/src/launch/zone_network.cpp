// Emulated zones (zone_network.hpp). In this file: layoutZones and wireBitsPerSecond (the rates),
// zoneEmulationMissing (capabilities and tools), runTool (one `ip`/`tc` command), ZoneNetwork
// (build, removeAll), sweepZoneNetworks, joinZoneNamespace.
#include "zone_network.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "sailor/runs/run_store.hpp"

namespace sailor::runner {

namespace {

constexpr const char* kNetnsDir = "/run/netns";  // where `ip netns add` mounts namespaces
constexpr const char* kPrefix = "sailor-z";

// The zone's address: 10.200.0.<i + 1>/32 on the namespace's loopback. Every run has its own
// namespaces, so two runs may use the same addresses.
std::string zoneAddress(int i) {
  return "10.200.0." + std::to_string(i + 1);
}

// The veth end in zone namespace `from` that leads to zone `to`.
std::string linkName(int to) {
  return "zone" + std::to_string(to);
}

struct ToolResult {
  int code = -1;
  std::string output;  // stdout and stderr together
};

// Runs argv (found in PATH) with stdin from /dev/null, stdout and stderr captured.
ToolResult runTool(const std::vector<std::string>& argv) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) {
    const int e = errno;
    close(out[0]);
    close(out[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(e));
  }
  if (pid == 0) {
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(out[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    const std::string msg = "cannot start " + argv[0] + ": " + std::strerror(errno);
    (void)!write(STDERR_FILENO, msg.data(), msg.size());
    _exit(127);
  }
  close(out[1]);
  ToolResult r;
  char buf[4096];
  ssize_t n;
  while ((n = read(out[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) r.output.append(buf, static_cast<std::size_t>(n));
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  while (!r.output.empty() && (r.output.back() == '\n' || r.output.back() == ' '))
    r.output.pop_back();
  return r;
}

std::string joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

// Runs argv; throws naming the command and what it printed when it fails.
void mustRun(const std::vector<std::string>& argv) {
  const ToolResult r = runTool(argv);
  if (r.code != 0)
    throw std::runtime_error("emulated zones: `" + joined(argv) + "` failed" +
                             (r.output.empty() ? "" : ": " + r.output.substr(0, 300)));
}

// True when `name` is an executable file in one of the directories of `path` (PATH's syntax).
bool inPath(const std::string& name, const std::string& path) {
  std::istringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) dir = ".";
    if (access((dir + "/" + name).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// The effective capability set of this process (/proc/self/status CapEff), 0 when unreadable.
std::uint64_t effectiveCapabilities() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("CapEff:", 0) == 0) return std::strtoull(line.c_str() + 7, nullptr, 16);
  return 0;
}

// tbf's bucket: two full frames, or a millisecond of the rate at high rates (a bucket smaller
// than the timer can refill makes tbf fall short of its rate). The bucket lets that much through
// at once after an idle moment: a message much larger than it moves at the rate.
std::string burstBytes(double bits_per_s) {
  const double bytes = std::max(2.0 * 1514, bits_per_s / 8 / 1000);
  return std::to_string(static_cast<long long>(bytes));
}

// tbf's queue: a second of the rate (at least 256 KiB), so that a boundary message waits in the
// queue rather than being dropped and resent by TCP.
std::string queueBytes(double bits_per_s) {
  const double bytes = std::max(256.0 * 1024, bits_per_s / 8);
  return std::to_string(static_cast<long long>(bytes));
}

std::string seconds(double s) {
  return std::to_string(static_cast<long long>(std::llround(s * 1e6))) + "us";
}

// Our namespaces in /run/netns: name -> (pid, start ticks), for sweepZoneNetworks.
struct OwnedName {
  std::string name;
  std::int64_t pid = 0, ticks = 0;
};
std::vector<OwnedName> ourNamespaces() {
  std::vector<OwnedName> out;
  DIR* d = opendir(kNetnsDir);
  if (!d) return out;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind(kPrefix, 0) != 0) continue;
    OwnedName o{name, 0, 0};
    char dash1 = 0, dash2 = 0;
    long long pid = 0, ticks = 0;
    int zone = 0;
    std::istringstream in(name.substr(std::strlen(kPrefix)));
    if (!(in >> pid >> dash1 >> ticks >> dash2 >> zone) || dash1 != '-' || dash2 != '-') continue;
    o.pid = pid;
    o.ticks = ticks;
    out.push_back(o);
  }
  closedir(d);
  return out;
}

}  // namespace

int ZoneLayout::indexOf(const std::string& zone) const {
  const auto it = std::find(zones.begin(), zones.end(), zone);
  return it == zones.end() ? -1 : static_cast<int>(it - zones.begin());
}

ZoneLayout layoutZones(const RunSpec& spec, const Scenario& scenario) {
  ZoneLayout layout;
  std::vector<std::vector<std::string>> gpus;  // GPU types per zone
  for (const RankPlacement& r : spec.ranks) {
    int i = layout.indexOf(r.zone);
    if (i < 0) {
      layout.zones.push_back(r.zone);
      gpus.emplace_back();
      i = static_cast<int>(layout.zones.size()) - 1;
    }
    auto& g = gpus[static_cast<std::size_t>(i)];
    if (std::find(g.begin(), g.end(), r.gpu_type) == g.end()) g.push_back(r.gpu_type);
  }
  const double element_bytes = spec.dtype == "float64" ? 8.0 : 4.0;
  const double message = static_cast<double>(spec.plan.microbatch_size) *
                         spec.model.sequence_length * spec.model.hidden_size * element_bytes;
  const int n = static_cast<int>(layout.zones.size());
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      ZoneLink link{a, b, std::numeric_limits<double>::infinity(), 0, ""};
      for (const std::string& ga : gpus[static_cast<std::size_t>(a)])
        for (const std::string& gb : gpus[static_cast<std::size_t>(b)]) {
          const ResolvedLink r =
              scenario.link(LinkQuery{layout.zones[static_cast<std::size_t>(a)], ga,
                                      layout.zones[static_cast<std::size_t>(b)], gb, 1});
          const double bw = r.bandwidthBytesPerS(message);
          if (bw < link.bytes_per_s) {
            link.bytes_per_s = bw;
            link.latency_s = std::max(r.model.latency_s, r.slower ? r.slower->latency_s : 0.0);
            link.source = r.source;
          }
        }
      layout.links.push_back(link);
    }
  return layout;
}

double wireBitsPerSecond(double payload_bytes_per_s) {
  return payload_bytes_per_s * 8.0 * 1514.0 / 1448.0;
}

std::string zoneEmulationMissing() {
  // CAP_NET_ADMIN (12): links, addresses, qdiscs; CAP_SYS_ADMIN (21): namespaces and their
  // mounts under /run/netns.
  const std::uint64_t caps = effectiveCapabilities();
  std::vector<std::string> missing;
  if (!(caps & (1ULL << 12))) missing.emplace_back("CAP_NET_ADMIN");
  if (!(caps & (1ULL << 21))) missing.emplace_back("CAP_SYS_ADMIN");
  if (!missing.empty()) {
    std::string list;
    for (const std::string& m : missing) list += (list.empty() ? "" : " and ") + m;
    return "a process without " + list + " (not root)";
  }
  const char* test_path = std::getenv("SAILOR_TEST_ZONES_PATH");
  const char* env_path = std::getenv("PATH");
  const std::string path = test_path ? test_path : env_path ? env_path : "/usr/sbin:/usr/bin";
  for (const char* tool : {"ip", "tc"})
    if (!inPath(tool, path)) return std::string("no `") + tool + "` (iproute2) in PATH";
  return "";
}

ZoneNetwork::ZoneNetwork(ZoneLayout layout) : layout_(std::move(layout)) {
  const ControllerId me = currentController();
  prefix_ =
      std::string(kPrefix) + std::to_string(me.pid) + "-" + std::to_string(me.start_ticks) + "-";
  try {
    build();
  } catch (...) {
    removeAll();
    throw;
  }
}

ZoneNetwork::~ZoneNetwork() {
  removeAll();
}

std::string ZoneNetwork::namespaceOf(const std::string& zone) const {
  return prefix_ + std::to_string(layout_.indexOf(zone));
}

std::string ZoneNetwork::addressOf(const std::string& zone) const {
  return zoneAddress(layout_.indexOf(zone));
}

std::vector<std::string> ZoneNetwork::workerArgs(const std::string& zone) const {
  return {"--zone-netns", namespaceOf(zone), "--zone-address", addressOf(zone)};
}

// One namespace per zone with its address on its loopback; per pair of zones one veth pair,
// each end in its zone's namespace with a host route to the other zone's address and a tbf
// (behind a netem delay where the kernel has netem and the scenario gives a latency) shaping
// what that end sends.
void ZoneNetwork::build() {
  const int n = static_cast<int>(layout_.zones.size());
  for (int i = 0; i < n; ++i) {
    const std::string ns = prefix_ + std::to_string(i);
    mustRun({"ip", "netns", "add", ns});
    made_.push_back(ns);
    mustRun({"ip", "-n", ns, "link", "set", "lo", "up"});
    mustRun({"ip", "-n", ns, "addr", "add", zoneAddress(i) + "/32", "dev", "lo"});
  }
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      const std::string na = prefix_ + std::to_string(a), nb = prefix_ + std::to_string(b);
      mustRun({"ip", "link", "add", linkName(b), "netns", na, "type", "veth", "peer", "name",
               linkName(a), "netns", nb});
      for (const auto& [ns, dev, self, peer] :
           {std::tuple{na, linkName(b), a, b}, std::tuple{nb, linkName(a), b, a}}) {
        mustRun({"ip", "-n", ns, "link", "set", dev, "up"});
        mustRun({"ip", "-n", ns, "route", "add", zoneAddress(peer) + "/32", "dev", dev, "src",
                 zoneAddress(self)});
      }
    }
  bool netem_missing = false;
  for (const ZoneLink& l : layout_.links) {
    const std::string ns = prefix_ + std::to_string(l.from), dev = linkName(l.to);
    const double bits = wireBitsPerSecond(l.bytes_per_s);
    const std::vector<std::string> tbf{
        "tbf",           "rate",           std::to_string(std::llround(bits)) + "bit",
        "burst",         burstBytes(bits), "limit",
        queueBytes(bits)};
    std::vector<std::string> root{"tc", "-n", ns, "qdisc", "add", "dev", dev, "root"};
    if (l.latency_s > 0 && !netem_missing) {
      std::vector<std::string> netem = root;
      netem.insert(netem.end(), {"handle", "1:", "netem", "delay", seconds(l.latency_s)});
      const ToolResult r = runTool(netem);
      if (r.code == 0) {
        std::vector<std::string> child{"tc", "-n",     ns,    "qdisc",  "add", "dev",
                                       dev,  "parent", "1:1", "handle", "10:"};
        child.insert(child.end(), tbf.begin(), tbf.end());
        mustRun(child);
        continue;
      }
      netem_missing = true;  // "Specified qdisc kind is unknown": this kernel has no netem
    }
    root.insert(root.end(), tbf.begin(), tbf.end());
    mustRun(root);
  }
  if (netem_missing)
    notes_.push_back(
        "emulated zones: latency not emulated (this kernel has no netem qdisc); links are shaped "
        "to the scenario's bandwidth only");
}

void ZoneNetwork::removeAll() noexcept {
  for (auto it = made_.rbegin(); it != made_.rend(); ++it) {
    try {
      (void)runTool({"ip", "netns", "del", *it});
    } catch (const std::exception&) {  // pipe or fork failed: the next run's sweep removes it
    }
  }
  made_.clear();
}

int sweepZoneNetworks() {
  int removed = 0;
  for (const OwnedName& o : ourNamespaces()) {
    ControllerId owner = currentController();
    owner.pid = o.pid;
    owner.start_ticks = o.ticks;
    if (!controllerGone(owner)) continue;
    try {
      if (runTool({"ip", "netns", "del", o.name}).code == 0) ++removed;
    } catch (const std::exception&) {
    }
  }
  return removed;
}

void joinZoneNamespace(const std::string& name) {
  const std::string path = std::string(kNetnsDir) + "/" + name;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    throw std::runtime_error("emulated zones: open " + path + ": " + std::strerror(errno));
  const int rv = setns(fd, CLONE_NEWNET);
  const int e = errno;
  close(fd);
  if (rv != 0) throw std::runtime_error("emulated zones: setns " + path + ": " + std::strerror(e));
}

}  // namespace sailor::runner
