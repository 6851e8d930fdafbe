// Emulated zones (`sailor run --emulate-zones`, docs/emulated-zones.md): the workers of
// each zone of the plan run in a network namespace of their own; every pair of zone namespaces is
// joined by a veth pair whose two ends shape what they send to the scenario's bandwidth between
// those zones with tc (tbf; a netem delay in front where the kernel has netem). Gloo binds the
// zone's address, so that traffic between zones crosses the shaped links.
//
//   ZoneLink, ZoneLayout ... the zones of a plan and the rate of each ordered pair (layoutZones)
//   zoneEmulationMissing ... what this process lacks to build them (root's capabilities, ip, tc)
//   ZoneNetwork ............ builds the namespaces, links and qdiscs; removes them (destructor)
//   sweepZoneNetworks ...... removes what a killed controller left (its namespaces)
//   joinZoneNamespace ...... the worker's part: enter its zone's namespace
//
// libtorch-free: linked by the controller (sailor-run) and the worker.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sailor/runs/run_spec.hpp"
#include "sailor/scenario/scenario.hpp"

namespace sailor::runner {

// One direction between two zones: what the sender's end of their link is shaped to.
struct ZoneLink {
  int from = 0, to = 0;    // indices into ZoneLayout::zones
  double bytes_per_s = 0;  // the scenario's bandwidth (payload) from `from` to `to`
  double latency_s = 0;    // the scenario's latency; emulated only where the kernel has netem
  std::string source;      // the scenario entry it comes from (ResolvedLink::source)
};

struct ZoneLayout {
  std::vector<std::string> zones;  // the plan's zones, in the order its ranks first use them
  std::vector<ZoneLink> links;     // every ordered pair of distinct zones
  int indexOf(const std::string& zone) const;  // -1 when not a zone of the layout
};

// The zones of `spec`'s ranks and, for each ordered pair, the scenario's link between them: for
// the run's stage-boundary message (microbatch x sequence x hidden elements of the run's dtype),
// the slowest over the pairs of GPU types that the plan places in the two zones.
ZoneLayout layoutZones(const RunSpec& spec, const Scenario& scenario);

// The rate tc is given for a payload bandwidth: TCP over a 1500-byte MTU carries 1448 bytes of
// payload per 1514-byte frame that tbf counts (with timestamps), so that a transfer moves its
// payload at the scenario's figure.
double wireBitsPerSecond(double payload_bytes_per_s);

// "" when this process can build emulated zones, else what it lacks, in words: the capabilities
// of root ("a process without CAP_NET_ADMIN (not root)": links, qdiscs; CAP_SYS_ADMIN: namespaces
// and their mounts), or `ip` or `tc` (iproute2) in PATH ("no `tc` (iproute2) in PATH").
// SAILOR_TEST_ZONES_PATH, when set, replaces PATH in the search (tests only: a PATH without
// iproute2).
std::string zoneEmulationMissing();

// The namespaces, links and qdiscs of one run, named after the controller that made them
// (sailor-z<pid>-<start ticks>-<zone index>) so that sweepZoneNetworks can tell whether their
// owner is gone. The destructor removes everything (removing a namespace destroys its veth ends
// and their qdiscs); it never throws.
class ZoneNetwork {
 public:
  // Builds them; throws std::runtime_error naming the `ip`/`tc` command that failed, after
  // removing what it had made.
  explicit ZoneNetwork(ZoneLayout layout);
  ~ZoneNetwork();
  ZoneNetwork(const ZoneNetwork&) = delete;
  ZoneNetwork& operator=(const ZoneNetwork&) = delete;

  const ZoneLayout& layout() const { return layout_; }
  std::string namespaceOf(const std::string& zone) const;
  std::string addressOf(const std::string& zone) const;  // the zone's IPv4 address, on its lo
  // The worker options that put a rank of `zone` in its namespace with Gloo on its address.
  std::vector<std::string> workerArgs(const std::string& zone) const;
  // What the run should know (latency not emulated where the kernel has no netem), once.
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  void build();
  void removeAll() noexcept;
  ZoneLayout layout_;
  std::string prefix_;  // sailor-z<pid>-<ticks>-
  std::vector<std::string> made_;
  std::vector<std::string> notes_;
};

// Removes the namespaces (in /run/netns) of controllers that are gone: what a controller killed
// by SIGKILL left behind. Returns how many it removed; 0 without the rights to look or remove.
int sweepZoneNetworks();

// The worker's part: enters the network namespace `name` (/run/netns/<name>). Throws
// std::runtime_error naming the namespace when it cannot.
void joinZoneNamespace(const std::string& name);

}  // namespace sailor::runner
