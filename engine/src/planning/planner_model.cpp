// The planning model of one complete plan (planningModel in sailor/planning/planner.hpp): the
// closed form the search optimises (docs/planner.md, "Planning model"), evaluated directly on a
// plan whose replicas are placed in zones. The exhaustive tests enumerate plans through it, and
// planSearch re-figures each placed plan with it.
#include <algorithm>
#include <cstdint>
#include <map>

#include "sailor/core/error.hpp"
#include "sailor/planning/planner.hpp"

namespace sailor {

namespace {

// One distinct replica of a stage: what its data-parallel wait and step depend on.
struct KindFigures {
  double params, opt, fwd, bwd;
  const GpuType* gpu;
};

// The search's stageDataParallel over a stage's replicas: from the ring all-reduce `sync`, the
// slowest kind's wait (into sync) and step (into opt_s).
void scheduledWait(const Schedule& schedule, const Job& job, const std::vector<KindFigures>& kinds,
                   int D, double& sync, double& opt_s) {
  double wait = 0;
  for (const KindFigures& k : kinds) {
    const DataParallelFigures f =
        dataParallelFigures(schedule, job, sync, k.params, D, k.opt, *k.gpu, k.fwd, k.bwd);
    wait = std::max(wait, f.sync_s);
    opt_s = std::max(opt_s, f.step_s);
  }
  sync = wait;
}

// Per stage s, the slowest boundary transfer between stages s - 1 and s, both ways (0 for the
// first), booking the boundary egress into `egress`.
std::vector<double> boundarySeconds(const Plan& plan, const Scenario& sc, const Catalog& cat,
                                    LinkResolver& link_of,
                                    const std::vector<std::vector<double>>& out_elements, int e,
                                    int M, double& egress) {
  const int P = static_cast<int>(plan.stages.size());
  const int b = plan.microbatch_size;
  std::vector<double> boundary(static_cast<size_t>(P), 0);
  for (int s = 1; s < P; ++s) {
    const Stage& a = plan.stages[static_cast<size_t>(s) - 1];
    const Stage& c = plan.stages[static_cast<size_t>(s)];
    const double msg =
        out_elements[static_cast<size_t>(s) - 1][static_cast<size_t>(a.last_layer)] * b * e;
    double t = 0, last_pair_egress = 0;
    for (size_t j = 0; j < c.replicas.size(); ++j) {
      const Replica& ra = a.replicas[j % a.replicas.size()];
      const Replica& rc = c.replicas[j];
      if (j > 0 && ra == a.replicas[(j - 1) % a.replicas.size()] &&
          rc == c.replicas[j - 1]) {  // the pair before it again: the same figures
        egress += last_pair_egress;
        continue;
      }
      const int streams = boundaryStreams(ra.tp, rc.tp);
      t = std::max(
          {t,
           boundaryTransferSeconds(link_of({ra.zone, ra.gpu_type, rc.zone, rc.gpu_type, streams}),
                                   sc.intraNodeLink(rc.gpu_type, cat), msg, streams, false),
           boundaryTransferSeconds(link_of({rc.zone, rc.gpu_type, ra.zone, ra.gpu_type, streams}),
                                   sc.intraNodeLink(ra.gpu_type, cat), msg, streams, false)});
      last_pair_egress =
          msg * M / 1e9 *
          (sc.egressUsdPerGb(ra.zone, rc.zone) + sc.egressUsdPerGb(rc.zone, ra.zone));
      egress += last_pair_egress;
    }
    boundary[static_cast<size_t>(s)] = t;
  }
  return boundary;
}

}  // namespace

std::optional<ModelEstimate> planningModel(const Plan& plan, const Scenario& sc, const Job& job_in,
                                           const Catalog& cat, const ProfileSet& profiles,
                                           const SimulatorOptions& sim, const LinkIndex* links,
                                           double memory_reserve_fraction) {
  plan.validate(job_in, cat, sc);
  const Job job = plan.effectiveJob(job_in);  // the plan's recomputation and schedule options
  const bool scheduled = !plan.schedule.isDefault();
  const double egress_factor = plan.schedule.sharding == DpSharding::None
                                   ? 1.0
                                   : (4.0 + job.activationBytesPerElement()) / 8.0;
  const ModelSpec& model = cat.model(job.model, "job.model");
  const int L = model.numPlanLayers();
  const int P = static_cast<int>(plan.stages.size());
  const int b = plan.microbatch_size;
  const int e = job.activationBytesPerElement();
  const int D = static_cast<int>(plan.stages.front().replicas.size());
  for (const auto& st : plan.stages)
    if (static_cast<int>(st.replicas.size()) != D)
      throw InputError("stages", "different data-parallel degrees",
                       "one degree for all stages (the planning model's assumption)");
  const std::int64_t per = std::int64_t{b} * D;  // in 64 bits, as Plan::microbatches
  const int M = static_cast<int>((job.global_batch_size + per - 1) / per);
  LinkResolver link_of(sc, links);
  // Profile figures per (GPU type, tp), looked up once.
  struct Figures {
    std::vector<LayerTiming> t;
    std::vector<LayerMemory> mem;
    double opt = 0;
  };
  std::map<std::pair<std::string, int>, Figures> figures;
  auto figures_of = [&](const Replica& r) -> const Figures& {
    auto it = figures.find({r.gpu_type, r.tp});
    if (it != figures.end()) return it->second;
    const ProfileKey key{model.name, r.gpu_type, b, r.tp};
    Figures f{profiles.timings(key, job).value, profiles.memory(model.name, r.tp, job).value,
              profiles.optimizerSecondsPerParameter(key, job).value};
    return figures.emplace(std::make_pair(r.gpu_type, r.tp), std::move(f)).first->second;
  };
  std::vector<double> fb(static_cast<size_t>(P), 0), x(static_cast<size_t>(P), 0);
  double rate = 0, egress = 0;
  int gpus = 0;
  std::vector<std::vector<double>> out_elements(static_cast<size_t>(P));
  for (int s = 0; s < P; ++s) {
    const Stage& st = plan.stages[static_cast<size_t>(s)];
    double opt_s = 0, sync = 0, tied = 0;
    std::vector<KindFigures> kinds;  // distinct replicas' figures, for the schedule's wait
    // A replica equal to the one before it (a stage lists its replicas by kind) adds the same
    // figures: its price and GPUs are added again, the rest is the same maximum. Its ring pair
    // is figured anew only when its neighbour differs from the previous replica's.
    double last_rate = 0, last_shard = 0, last_egress = 0;
    for (size_t j = 0; j < st.replicas.size(); ++j) {
      const Replica& r = st.replicas[j];
      const Replica& y = st.replicas[(j + 1) % st.replicas.size()];
      if (j > 0 && r == st.replicas[j - 1]) {
        rate += last_rate;
        gpus += r.tp;
        if (D < 2) continue;
        if (y != r) {
          const GpuType& g = cat.gpu(r.gpu_type, "gpu_type");
          const ResolvedLink& link = link_of({r.zone, r.gpu_type, y.zone, y.gpu_type, r.tp});
          const double shard = last_shard;  // the run's gradient bytes per replica
          sync = std::max(sync, ringAllReduceSeconds(
                                    link, shard, D, r.tp, sim,
                                    collectiveBusBytesPerS(g, cat.gpu(y.gpu_type, "gpu_type"))));
          egress += 2.0 * (D - 1) / D * shard * r.tp / 1e9 * sc.egressUsdPerGb(r.zone, y.zone) *
                    egress_factor;
        } else {
          egress += last_egress;
        }
        continue;
      }
      const GpuType& g = cat.gpu(r.gpu_type, "gpu_type");
      const Figures& fig = figures_of(r);
      const auto& t = fig.t;
      const auto& mem = fig.mem;
      const double opt = fig.opt;
      double f = 0, fw = 0, params = 0, act = 0, maxact = 0;
      for (int l = st.first_layer; l <= st.last_layer; ++l) {
        f += t[static_cast<size_t>(l)].forward_s + t[static_cast<size_t>(l)].backward_s;
        fw += t[static_cast<size_t>(l)].forward_s;
        params += mem[static_cast<size_t>(l)].params;
        act += mem[static_cast<size_t>(l)].activation_bytes;
        maxact = std::max(maxact, mem[static_cast<size_t>(l)].working_bytes);
      }
      if (st.first_layer == 0 && st.last_layer == L - 1) params -= mem.back().shared_with_embedding;
      const double need =
          replicaMemoryBytes(params, act, maxact, b, std::min(P - s, M), job, g, plan.schedule, D);
      if (need > static_cast<double>(g.memory_bytes) * (1 - memory_reserve_fraction))
        return std::nullopt;
      fb[static_cast<size_t>(s)] = std::max(fb[static_cast<size_t>(s)], f);
      if (!scheduled)
        opt_s = std::max(opt_s, stepSeconds(opt, params, static_cast<int>(st.replicas.size()), g));
      kinds.push_back({params, opt, fw, f - fw, &g});
      const Pool* pool = sc.findPool(r.zone, r.gpu_type);
      last_rate = r.tp * (pool ? pool->usd_per_gpu_hour : 0.0);
      rate += last_rate;
      gpus += r.tp;
      if (j == 0)
        for (const auto& m : mem) out_elements[static_cast<size_t>(s)].push_back(m.output_elements);
      // The search's tiedSeconds: the last of several stages, over its own site's link.
      if (s == P - 1 && P >= 2 && mem.back().shared_with_embedding > 0)
        tied = std::max(
            tied, ringAllReduceSeconds(link_of({r.zone, r.gpu_type, r.zone, r.gpu_type, r.tp}),
                                       mem.back().shared_with_embedding * 4.0, 2, r.tp, sim,
                                       g.collectiveBusBytesPerS()));
      if (D < 2) continue;
      const ResolvedLink& link = link_of({r.zone, r.gpu_type, y.zone, y.gpu_type, r.tp});
      const double shard = params * 4.0;
      sync = std::max(
          sync, ringAllReduceSeconds(link, shard, D, r.tp, sim,
                                     collectiveBusBytesPerS(g, cat.gpu(y.gpu_type, "gpu_type"))));
      last_shard = shard;
      last_egress = 2.0 * (D - 1) / D * shard * r.tp / 1e9 * sc.egressUsdPerGb(r.zone, y.zone) *
                    egress_factor;
      egress += last_egress;
    }
    if (scheduled) scheduledWait(plan.schedule, job, kinds, D, sync, opt_s);
    x[static_cast<size_t>(s)] = tied + sync + opt_s;
  }
  const std::vector<double> boundary =
      boundarySeconds(plan, sc, cat, link_of, out_elements, e, M, egress);
  double maxc = 0, sumc = 0, maxx = 0;
  for (int s = 0; s < P; ++s) {
    const double c = fb[static_cast<size_t>(s)] + 2 * boundary[static_cast<size_t>(s)] +
                     2 * (s + 1 < P ? boundary[static_cast<size_t>(s) + 1] : 0.0);
    maxc = std::max(maxc, c);
    sumc += c;
    maxx = std::max(maxx, x[static_cast<size_t>(s)]);
  }
  ModelEstimate m;
  m.iteration_s = (M - 1) * maxc + sumc + maxx;
  m.usd_per_iteration = rate * m.iteration_s / 3600.0 + egress;
  m.usd_per_hour = m.usd_per_iteration * 3600.0 / m.iteration_s;
  m.gpus = gpus;
  return m;
}

}  // namespace sailor
