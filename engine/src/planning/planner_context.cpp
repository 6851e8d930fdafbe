// The planner's fixed context (SearchContext in planner_internal.hpp):
//   buildSites      pools grouped into sites (a zone's pool, or with H6 a region's pools of a type)
//   buildLinks      links and egress prices per site pair, read by every search thread
//   kinds, makeTable   replica kinds of a microbatch size (H1) and their range tables
//   fitTables, boundaryClasses   per microbatch size: which ranges fit in memory, and which
//                   kinds send stage boundaries alike
//   p2p, tiedSeconds   boundary transfer and tied-embedding all-reduce times
//   place           zones for a candidate's replicas after the search
#include <algorithm>
#include <cstdint>
#include <map>

#include "planner_internal.hpp"
#include "sailor/core/error.hpp"

namespace sailor::planner_detail {

SearchContext::SearchContext(const Scenario& sc_in, const Job& job_in, const Catalog& cat_in,
                             const ProfileSet& profiles_in, const PlannerOptions& opt_in)
    : sc(sc_in),
      schedule(searchSchedule(opt_in)),
      job([&] {
        Plan p;
        p.schedule = searchSchedule(opt_in);
        return p.effectiveJob(job_in);
      }()),
      cat(cat_in),
      profiles(profiles_in),
      opt(opt_in),
      model(cat_in.model(job_in.model, "job.model")),
      layers(model.numPlanLayers()),
      constraints(opt_in),
      link_index(sc_in) {
  buildSites();
  buildLinks();
}

void SearchContext::buildSites() {
  std::map<std::pair<std::string, std::string>, Site> by;
  for (const auto& p : sc.pools) {
    if (p.count <= 0 || !p.enabled) continue;  // a pool switched off stays out of planning
    if (!supportsPrecision(cat.gpu(p.gpu_type, "pools.gpu_type"), job.precision)) {
      unsupported_.insert(p.gpu_type);
      continue;
    }
    const Region& reg = sc.regionOf(p.zone);
    const std::string key = opt.heuristics.h6_region_pools ? reg.name : p.zone;
    Site& s = by[{key, p.gpu_type}];
    s.gpu_type = p.gpu_type;
    s.region = reg.name;
    s.gpu = &cat.gpu(p.gpu_type, "pools.gpu_type");
    s.zones.push_back({p.zone, p.count, p.usd_per_gpu_hour});
    s.capacity += p.count;
    const int gpn = sc.gpusPerNode(p.zone, p.gpu_type, cat);
    s.gpus_per_node = s.zones.size() == 1 ? gpn : std::min(s.gpus_per_node, gpn);
  }
  for (auto& [k, s] : by) {
    std::sort(s.zones.begin(), s.zones.end(), [](const Site::ZoneSlot& a, const Site::ZoneSlot& b) {
      return a.usd_per_gpu_hour != b.usd_per_gpu_hour ? a.usd_per_gpu_hour < b.usd_per_gpu_hour
                                                      : a.zone < b.zone;
    });
    sites_.push_back(s);
  }
}

// Links per site pair at every GPU count a replica can send with at once (1 to the largest
// node), as references into link_index: tensor-parallel ranks share their node's link (NOTE
// [Point-to-point transfers], NOTE [Collective efficiency] in simulator_comm.cpp).
void SearchContext::buildLinks() {
  int max_node = 1;
  for (const auto& a : sites_) max_node = std::max(max_node, a.gpus_per_node);
  links_.resize(static_cast<size_t>(max_node) + 1);
  for (int g = 1; g <= max_node; ++g)
    for (const auto& a : sites_)
      for (const auto& b : sites_)
        links_[static_cast<size_t>(g)].push_back(
            &link_index.link({a.zone(), a.gpu_type, b.zone(), b.gpu_type, g}));
  for (const auto& a : sites_) {
    node_links_.push_back(&link_index.nodeLink(a.gpu_type, cat));
    for (const auto& b : sites_) egress_.push_back(sc.egressUsdPerGb(a.zone(), b.zone()));
  }
}

int SearchContext::totalGpus() const {
  int n = 0;
  for (const auto& s : sites_) n += s.capacity;
  return n;
}

int SearchContext::maxDepth() const {
  return opt.heuristics.max_stages > 0 ? std::min(opt.heuristics.max_stages, layers) : layers;
}

int SearchContext::microbatches(int b, int D) const {
  const std::int64_t per = std::int64_t{b} * D;  // 1e6 x 1e6 overflows an int
  return static_cast<int>((job.global_batch_size + per - 1) / per);
}

const ResolvedLink& SearchContext::linkBetween(int a, int b, int gpus) const {
  return *links_[static_cast<size_t>(gpus)]
                [static_cast<size_t>(a) * sites_.size() + static_cast<size_t>(b)];
}

double SearchContext::egressBetween(int a, int b) const {
  return egress_[static_cast<size_t>(a) * sites_.size() + static_cast<size_t>(b)];
}

double SearchContext::p2p(const Kind& a, const Kind& b, double bytes) const {
  // As the simulator: partitioned over matching tp ranks, then the receiver's all-gather (each
  // replica on its own node: the planning model does not place GPUs).
  const int streams = boundaryStreams(a.tp, b.tp);
  return boundaryTransferSeconds(linkBetween(a.site, b.site, streams),
                                 *node_links_[static_cast<size_t>(b.site)], bytes, streams, false);
}

// Over the last stage's own site link: the first stage is not known yet when the search prices
// the last one (exact when both stages are on one site).
double SearchContext::tiedSeconds(const Kind& kd, const KindTable& t) const {
  if (t.tied_params <= 0) return 0.0;
  return ringAllReduceSeconds(linkBetween(kd.site, kd.site, kd.tp), t.tied_params * 4.0, 2, kd.tp,
                              opt.simulator, site(kd.site).gpu->collectiveBusBytesPerS());
}

KindSet SearchContext::kinds(int b) const {
  KindSet out;
  std::map<std::pair<std::string, int>, int> table_of;
  for (size_t si = 0; si < sites_.size(); ++si) {
    const Site& site = sites_[si];
    std::vector<int> chosen;
    for (int tp = 1; tp <= site.gpus_per_node; tp *= 2) {
      if (model.heads % tp != 0) continue;
      auto key = std::make_pair(site.gpu_type, tp);
      if (!table_of.count(key)) {
        KindTable t;
        if (!makeTable(site.gpu_type, b, tp, t)) continue;
        table_of[key] = static_cast<int>(out.tables.size());
        out.tables.push_back(std::move(t));
      }
      chosen.push_back(tp);
    }
    if (opt.heuristics.h1_tp_rule && chosen.size() > 1) {
      // H1: keep tp degrees while doubling still speeds a block up by >= 1.5x.
      auto table = [&](int tp) -> const KindTable& {
        return out.tables[static_cast<size_t>(table_of[{site.gpu_type, tp}])];
      };
      std::vector<int> kept{chosen.front()};
      for (size_t i = 1; i < chosen.size(); ++i) {
        const KindTable& a = table(chosen[i - 1]);
        const KindTable& c = table(chosen[i]);
        const int mid = std::min(1, layers - 1);
        if (a.at(a.fb, mid, mid) / c.at(c.fb, mid, mid) >= 1.5) kept.push_back(chosen[i]);
        else break;
      }
      // Memory may need a larger tp than the speed rule keeps: always keep the next degree up.
      if (kept.size() < chosen.size()) kept.push_back(chosen[kept.size()]);
      chosen = kept;
    }
    for (int tp : chosen)
      out.kinds.push_back({static_cast<int>(si), tp, table_of[{site.gpu_type, tp}]});
  }
  fitTables(b, out);
  boundaryClasses(b, out);
  return out;
}

// Memory fit per (table, in-flight microbatches, first layer): the last layer of the fitting
// ranges, scanning up from the first (memory only grows with the range) and the whole model on
// its own (its tied head).
void SearchContext::fitTables(int b, KindSet& out) const {
  const int L = layers;
  const int F = maxDepth();
  out.max_in_flight = F;
  // Sharded state: a bucket per power of two up to the GPUs there are (KindSet::setDegree).
  out.buckets = 1;
  if (schedule.sharding != DpSharding::None)
    while ((2L << (out.buckets - 1)) <= totalGpus()) ++out.buckets;
  const size_t T = out.tables.size();
  out.fit_rmax.assign(
      static_cast<size_t>(out.buckets) * T * static_cast<size_t>(F + 1) * static_cast<size_t>(L),
      -1);
  out.fit_full.assign(static_cast<size_t>(out.buckets) * T * static_cast<size_t>(F + 1), 0);
  for (size_t bt = 0; bt < static_cast<size_t>(out.buckets) * T; ++bt) {
    const size_t ti = bt % T;
    const int D = 1 << static_cast<int>(bt / T);
    const KindTable& t = out.tables[ti];
    // The memory less the reserve in Drop mode (NOTE [Memory reserve] in planner.cpp).
    const double cap = static_cast<double>(t.gpu->memory_bytes) * (1 - opt.searchReserveFraction());
    auto fits = [&](int l, int r, int f) {
      return replicaMemoryBytes(t.at(t.params, l, r), t.at(t.act, l, r), t.at(t.maxact, l, r), b, f,
                                job, *t.gpu, schedule, D) <= cap;
    };
    for (int f = 1; f <= F; ++f) {
      const size_t base = bt * static_cast<size_t>(F + 1) + static_cast<size_t>(f);
      out.fit_full[base] = fits(0, L - 1, f) ? 1 : 0;
      for (int l = 0; l < L; ++l) {
        const int last = l == 0 ? L - 2 : L - 1;
        int r = l - 1;
        while (r < last && fits(l, r + 1, f)) ++r;
        out.fit_rmax[base * static_cast<size_t>(L) + static_cast<size_t>(l)] = r;
      }
    }
  }
}

// Boundary classes: kinds sorted into classes by the figures every boundary from them takes
// (StageOptionTable::boundary), computed once per distinct message size.
void SearchContext::boundaryClasses(int b, KindSet& out) const {
  const size_t K = out.kinds.size();
  const double e = job.activationBytesPerElement();
  std::map<std::vector<double>, int> seen;
  out.boundary_class.assign(K, 0);
  for (size_t a = 0; a < K; ++a) {
    const Kind& ka = out.kinds[a];
    const KindTable& ta = out.table(ka);
    std::vector<double> sig(ta.out_elements.begin(), ta.out_elements.end());
    sig.push_back(ka.tp);
    std::vector<double> msgs(ta.out_elements.begin(), ta.out_elements.end());
    std::sort(msgs.begin(), msgs.end());
    msgs.erase(std::unique(msgs.begin(), msgs.end()), msgs.end());
    for (size_t c = 0; c < K; ++c) {
      const Kind& kc = out.kinds[c];
      sig.push_back(egressBetween(ka.site, kc.site) + egressBetween(kc.site, ka.site));
      for (double m : msgs) {
        const double msg = m * b * e;
        sig.push_back(std::max(p2p(ka, kc, msg), p2p(kc, ka, msg)));
      }
    }
    out.boundary_class[a] =
        seen.emplace(std::move(sig), static_cast<int>(seen.size())).first->second;
  }
  out.boundary_classes = static_cast<int>(seen.size());
}

bool SearchContext::makeTable(const std::string& gpu, int b, int tp, KindTable& t) const {
  const ProfileKey key{model.name, gpu, b, tp};
  std::vector<LayerTiming> timing;
  std::vector<LayerMemory> mem;
  double opt_s = 0;
  try {
    timing = profiles.timings(key, job).value;
    mem = profiles.memory(model.name, tp, job).value;
    opt_s = profiles.optimizerSecondsPerParameter(key, job).value;
  } catch (const InputError&) {
    return false;  // no profile for this combination: not a candidate
  }
  const int L = layers;
  if (static_cast<int>(timing.size()) != L || static_cast<int>(mem.size()) != L) return false;
  t.L = L;
  t.gpu = &cat.gpu(gpu, "pools.gpu_type");
  const size_t n = static_cast<size_t>(L * L);
  t.fb.assign(n, 0);
  t.fwd.assign(n, 0);
  t.params.assign(n, 0);
  t.act.assign(n, 0);
  t.maxact.assign(n, 0);
  for (int l = 0; l < L; ++l) {
    double fb = 0, fw = 0, p = 0, a = 0, ma = 0;
    for (int r = l; r < L; ++r) {
      fb += timing[static_cast<size_t>(r)].forward_s + timing[static_cast<size_t>(r)].backward_s;
      fw += timing[static_cast<size_t>(r)].forward_s;
      p += mem[static_cast<size_t>(r)].params;
      a += mem[static_cast<size_t>(r)].activation_bytes;
      ma = std::max(ma, mem[static_cast<size_t>(r)].working_bytes);
      const size_t i = static_cast<size_t>(l * L + r);
      t.fb[i] = fb;
      t.fwd[i] = fw;
      t.params[i] = p;
      if (l == 0 && r == L - 1) t.params[i] -= mem.back().shared_with_embedding;
      t.act[i] = a;
      t.maxact[i] = ma;
    }
  }
  for (const auto& m : mem) t.out_elements.push_back(m.output_elements);
  t.optimizer_s_per_param = opt_s;
  t.tied_params = mem.back().shared_with_embedding;
  return true;
}

bool SearchContext::place(Candidate& c) const {
  std::vector<std::vector<int>> left(sites_.size());
  for (size_t s = 0; s < sites_.size(); ++s)
    for (const auto& z : sites_[s].zones) left[s].push_back(z.count);
  for (size_t si = 0; si < c.plan.stages.size(); ++si) {
    Stage& st = c.plan.stages[si];
    const std::vector<int>& site_of = c.sites[si];
    // GPUs this stage needs per site. The search modelled a site's replicas of one stage as
    // sitting in the site's cheapest zone: keep them together in the cheapest zone that can
    // hold them all, and only split a stage over zones when no single zone can.
    std::map<size_t, int> need;
    for (size_t j = 0; j < st.replicas.size(); ++j)
      need[static_cast<size_t>(site_of[j])] += st.replicas[j].tp;
    std::map<size_t, int> whole;  // site -> zone index holding the whole group, or -1
    for (const auto& [s, n] : need) {
      whole[s] = -1;
      for (size_t z = 0; z < sites_[s].zones.size(); ++z)
        if (left[s][z] >= n) {
          whole[s] = static_cast<int>(z);
          break;
        }
    }
    for (size_t j = 0; j < st.replicas.size(); ++j) {
      Replica& r = st.replicas[j];
      const size_t s = static_cast<size_t>(site_of[j]);
      bool ok = false;
      if (whole[s] >= 0) {
        const size_t z = static_cast<size_t>(whole[s]);
        left[s][z] -= r.tp;
        r.zone = sites_[s].zones[z].zone;
        ok = true;
      }
      for (size_t z = 0; z < sites_[s].zones.size() && !ok; ++z)
        if (left[s][z] >= r.tp) {
          left[s][z] -= r.tp;
          r.zone = sites_[s].zones[z].zone;
          ok = true;
        }
      if (!ok) return false;
    }
  }
  return true;
}

}  // namespace sailor::planner_detail
