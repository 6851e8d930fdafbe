// The links of a plan and their sources. Declared in sailor/scenario/plan_links.hpp.
#include "sailor/scenario/plan_links.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "sailor/simulation/simulator.hpp"
#include "simulation/simulator_internal.hpp"

namespace sailor {

const char* linkUseName(LinkUse::Use u) {
  switch (u) {
    case LinkUse::Use::Pipeline: return "pipeline";
    case LinkUse::Use::DataParallel: return "data-parallel";
    case LinkUse::Use::TiedEmbedding: return "tied-embedding";
  }
  return "?";
}

nlohmann::json LinkUse::toJson() const {
  return {{"use", linkUseName(use)},
          {"stage", stage},
          {"from_zone", from_zone},
          {"to_zone", to_zone},
          {"from_gpu", from_gpu},
          {"to_gpu", to_gpu},
          {"gpus", gpus},
          {"in_node", in_node},
          {"pairs", pairs},
          {"gb_per_s", gb_per_s},
          {"latency_s", latency_s},
          {"source", linkSourceName(source)},
          {"description", description}};
}

namespace {

// A fit's bandwidth depends on the message: reported at 64 MB, a data-parallel bucket's chunk.
constexpr double kReportBytes = 64e6;

// The link's bandwidth in GB/s: a latency + bandwidth model's own, a fit's at kReportBytes.
double nominalGbPerS(const LinkModel& m) {
  return (m.kind == LinkModel::Kind::LatencyBandwidth ? m.bytes_per_s
                                                      : m.bandwidthBytesPerS(kReportBytes)) /
         1e9;
}

// The replicas as the simulator's steps see them: sites per (zone, GPU type), node sizes, nodes.
struct Placed {
  sim::StageReplicas stages;
  std::vector<const Replica*> site_replica;
};

Placed place(const Plan& plan, const Scenario& scenario, const Catalog& catalog) {
  Placed p;
  std::map<std::pair<std::string, std::string>, int> site_of;
  for (const Stage& st : plan.stages) {
    auto& reps = p.stages.emplace_back();
    for (const Replica& r : st.replicas) {
      sim::ReplicaData d;
      d.replica = &r;
      d.gpu = &catalog.gpu(r.gpu_type, "replica.gpu_type");
      d.gpus_per_node = scenario.gpusPerNode(r.zone, r.gpu_type, catalog);
      auto [it, fresh] = site_of.emplace(std::make_pair(r.zone, r.gpu_type),
                                         static_cast<int>(p.site_replica.size()));
      if (fresh) p.site_replica.push_back(&r);
      d.site = it->second;
      reps.push_back(d);
    }
  }
  sim::placeOnNodes(p.stages);
  return p;
}

class Collector {
 public:
  Collector(const Scenario& sc, const Catalog& cat, const Placed& p)
      : links_(sc, cat, p.site_replica) {}

  void add(LinkUse::Use use, int stage, const sim::ReplicaData& x, const sim::ReplicaData& y,
           int gpus) {
    const bool in_node = sim::Links::sameNode(x, y);
    const auto key =
        std::make_tuple(static_cast<int>(use), stage, x.replica->zone, x.replica->gpu_type,
                        y.replica->zone, y.replica->gpu_type, gpus, in_node);
    if (auto it = index_.find(key); it != index_.end()) {
      ++out_[it->second].pairs;
      return;
    }
    const ResolvedLink& l = links_.between(x, y, gpus);
    LinkUse u;
    u.use = use;
    u.stage = stage;
    u.from_zone = x.replica->zone;
    u.to_zone = y.replica->zone;
    u.from_gpu = x.replica->gpu_type;
    u.to_gpu = y.replica->gpu_type;
    u.gpus = gpus;
    u.in_node = in_node;
    u.gb_per_s = nominalGbPerS(l.model);
    if (l.slower) u.gb_per_s = std::min(u.gb_per_s, nominalGbPerS(*l.slower));
    u.latency_s = std::max(l.model.latency_s, l.slower ? l.slower->latency_s : 0.0);
    u.source = l.origin;
    u.description = l.source;
    index_.emplace(key, out_.size());
    out_.push_back(std::move(u));
  }
  std::vector<LinkUse> take() { return std::move(out_); }

 private:
  sim::Links links_;
  std::map<std::tuple<int, int, std::string, std::string, std::string, std::string, int, bool>,
           size_t>
      index_;
  std::vector<LinkUse> out_;
};

}  // namespace

std::vector<LinkUse> linksOfPlan(const Plan& plan, const Scenario& scenario, const Catalog& catalog,
                                 bool tied_embeddings) {
  const Placed p = place(plan, scenario, catalog);
  Collector c(scenario, catalog, p);
  const auto& stages = p.stages;
  // Stage boundaries: replica j of stage s with replica j of stage s + 1 (modulo each stage's
  // count), activations forward and gradients back, tp-matched streams at once.
  for (size_t s = 0; s + 1 < stages.size(); ++s) {
    const auto& a = stages[s];
    const auto& b = stages[s + 1];
    for (size_t j = 0; j < std::max(a.size(), b.size()); ++j) {
      const auto& x = a[j % a.size()];
      const auto& y = b[j % b.size()];
      const int streams = boundaryStreams(x.replica->tp, y.replica->tp);
      c.add(LinkUse::Use::Pipeline, static_cast<int>(s), x, y, streams);
      c.add(LinkUse::Use::Pipeline, static_cast<int>(s), y, x, streams);
    }
  }
  // Data-parallel rings: replica k sends to replica k + 1, every tp rank at once.
  for (size_t s = 0; s < stages.size(); ++s) {
    const auto& reps = stages[s];
    if (reps.size() < 2) continue;
    for (size_t k = 0; k < reps.size(); ++k) {
      const auto& x = reps[k];
      const auto& y = reps[(k + 1) % reps.size()];
      c.add(LinkUse::Use::DataParallel, static_cast<int>(s), x, y, sim::Links::ringGpus(x, y));
    }
  }
  // Tied embeddings: a ring of two per pipeline between the first and the last stage.
  if (tied_embeddings && stages.size() >= 2) {
    const auto& first = stages.front();
    const auto& last = stages.back();
    for (size_t j = 0; j < std::max(first.size(), last.size()); ++j) {
      const auto& y = last[j % last.size()];
      const auto& x = first[j % first.size()];
      c.add(LinkUse::Use::TiedEmbedding, static_cast<int>(stages.size()) - 1, y, x,
            sim::Links::ringGpus(y, x));
    }
  }
  return c.take();
}

}  // namespace sailor
