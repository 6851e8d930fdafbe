// Placement scored zone by zone (Placer in planner_internal.hpp; docs/planner.md, H6):
//   Placer::Problem   one candidate's zone-independent figures (per stage F + B, optimizer step,
//                     per block gradient shard and tied embedding, per boundary message size) and
//                     memoized zone-pair figures (ring edge, boundary pair, tied all-reduce)
//   evaluate          the planning model's closed form on a layout (replicas as runs per zone)
//   exhaustive        every zone of every replica (small instances: exact)
//   seeds, improve    larger instances: fills in every zone order, then local moves on the runs
//   Placer::place     the best layouts under the constraints, written as zones
//   placementFigure   how placements are compared (NOTE [A dearer placement repays its price])
//
// With H6 a site is a region's pools of one GPU type, priced at its cheapest zone. The search
// gives each replica a site; which zone of the site a replica sits in changes its ring neighbours'
// links (a stage's ring all-reduce is as slow as its slowest neighbour pair), the boundary
// transfers to the next stage's replica of the same index, the egress and the price. Replica j of
// a stage is replica j's ring neighbour of j + 1 and the boundary partner of replica j of the
// next stage, as in the simulator and planningModel.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

#include "planner_internal.hpp"
#include "sailor/core/error.hpp"

namespace sailor::planner_detail {

namespace {

// Per-replica assignments enumerated outright up to this many (zones per replica, multiplied
// over the plan's replicas): 3 zones x 7 replicas. Exact, and under a few ms.
constexpr double kExhaustiveLimit = 2200;
// Placements returned for the simulator to rank (keep > 1) when every assignment was figured:
// few replicas, so simulating these is cheap.
constexpr size_t kSmallRanked = 16;
// Zone orders tried as fills (the product over the plan's sites of their zone orders).
constexpr size_t kMaxFillOrders = 120;
// Layouts the local improvement starts from (the best seeds).
constexpr size_t kImproveStarts = 1;
// Passes of local improvement per start (each pass tries every move once).
constexpr int kMaxPasses = 12;
// Runs of one block permuted outright (5! = 120 orders).
constexpr size_t kMaxPermutedRuns = 5;
// Partial swaps between two runs move 1, 2, 4, ... up to this many replicas each way, and half,
// all but one and all of the smaller run.
constexpr int kMaxPartialSwap = 8;
// Relative difference below which two figures count as equal.
constexpr double kRelTie = 1e-12;

}  // namespace

}  // namespace sailor::planner_detail

namespace sailor {

// NOTE [A dearer placement repays its price]: under the throughput objective, comparing the
// placements of one plan by time alone lets any faster one win however much dearer (on SAILOR's
// two-zone scenario under 1.2 USD/it: 0.30 % more throughput for 41 % more per iteration,
// egress). The rule: a placement p dearer than q may replace it only if
// it gains at least as much throughput as it costs more, t_q / t_p >= usd_p / usd_q, i.e.
// usd_p t_p <= usd_q t_q. As a pairwise rule ("p replaces q when faster and repaying") it is a
// partial order: transitive, but two placements can be incomparable (p faster, q cheaper, p not
// repaying), so a climb ends wherever it started from (from the fastest it never moves) and a
// sort or a keep-the-best list has no consistent answer. The planner ranks by the scalar
// usd x t instead, time breaking ties. Its best placement m repays its price against every
// cheaper placement (usd_m t_m <= usd_q t_q with usd_q < usd_m forces t_m < t_q) and no dearer
// placement repays against m, and it is the only placement of which both hold; every faster
// repaying placement, equal-cost faster and cheaper-and-faster ones included, ranks above the
// one it replaces. The other candidate, the fastest placement repaying against the cheapest one
// found, can be dearer than another placement without repaying against it (cheapest 2 s at $1,
// m 1 s at $1.5, f 0.8 s at $2.5: f repays against the cheapest, not against m), and depends on
// which placement the search happened to find cheapest. The cost objective keeps its order
// (cheapest, time breaking ties), and the constraints come first everywhere.
double placementFigure(double iteration_s, double usd_per_iteration, Objective o) {
  return o == Objective::Throughput ? iteration_s * usd_per_iteration : usd_per_iteration;
}

int comparePlacements(double t_a, double usd_a, double t_b, double usd_b, Objective o,
                      double rel_tie) {
  auto less = [rel_tie](double a, double b) {
    return a < b - rel_tie * std::max(std::fabs(a), std::fabs(b));
  };
  const double fa = placementFigure(t_a, usd_a, o), fb = placementFigure(t_b, usd_b, o);
  if (less(fa, fb) || (!less(fb, fa) && less(t_a, t_b))) return -1;
  if (less(fb, fa) || less(t_b, t_a)) return 1;
  return 0;
}

}  // namespace sailor

namespace sailor::planner_detail {

Placer::Placer(const SearchContext& ctx) : ctx_(ctx) {
  for (const auto& s : ctx_.sites())
    for (const auto& z : s.zones)
      if (!zone_id_.count(z.zone)) {
        const int id = static_cast<int>(zone_names_.size());
        zone_id_[z.zone] = id;
        zone_names_.push_back(z.zone);
      }
  const size_t nz = zone_names_.size();
  egress_.assign(nz * nz, 0);
  for (size_t a = 0; a < nz; ++a)
    for (size_t b = 0; b < nz; ++b)
      egress_[a * nz + b] = ctx_.sc.egressUsdPerGb(zone_names_[a], zone_names_[b]);
}

const ResolvedLink& Placer::link(int za, const std::string& ga, int zb, const std::string& gb,
                                 int gpus) const {
  return ctx_.link_index.link(
      {zone_names_[static_cast<size_t>(za)], ga, zone_names_[static_cast<size_t>(zb)], gb, gpus});
}

const ResolvedLink& Placer::nodeLink(const std::string& gpu) const {
  return ctx_.link_index.nodeLink(gpu, ctx_.cat);
}

const Placer::Profile& Placer::profile(const std::string& gpu, int tp, int b) const {
  auto key = std::make_tuple(gpu, tp, b);
  auto it = profiles_.find(key);
  if (it != profiles_.end()) return it->second;
  const ProfileKey pk{ctx_.model.name, gpu, b, tp};
  Profile p{ctx_.profiles.timings(pk, ctx_.job).value,
            ctx_.profiles.memory(ctx_.model.name, tp, ctx_.job).value,
            ctx_.profiles.optimizerSecondsPerParameter(pk, ctx_.job).value};
  return profiles_.emplace(key, std::move(p)).first->second;
}

// ---- One candidate.

Placer::Problem Placer::problem(const Candidate& c) const {
  Problem pr;
  const Plan& plan = c.plan;
  pr.P = static_cast<int>(plan.stages.size());
  pr.D = c.dp;
  pr.M = ctx_.microbatches(plan.microbatch_size, c.dp);
  const int b = plan.microbatch_size;
  const int L = ctx_.layers;
  pr.stage_blocks.resize(static_cast<size_t>(pr.P));
  pr.fb.assign(static_cast<size_t>(pr.P), 0);
  pr.opt.assign(static_cast<size_t>(pr.P), 0);
  pr.kinds.assign(static_cast<size_t>(pr.P), {});
  pr.msg.assign(static_cast<size_t>(pr.P), 0);
  for (int s = 0; s < pr.P; ++s) {
    const Stage& st = plan.stages[static_cast<size_t>(s)];
    const auto& site_of = c.sites[static_cast<size_t>(s)];
    for (size_t j = 0; j < st.replicas.size(); ++j) {
      const Replica& r = st.replicas[j];
      const int site = site_of[j];
      const Profile& pf = profile(r.gpu_type, r.tp, b);
      double f = 0, fw = 0, params = 0;
      for (int l = st.first_layer; l <= st.last_layer; ++l) {
        f += pf.t[static_cast<size_t>(l)].forward_s + pf.t[static_cast<size_t>(l)].backward_s;
        fw += pf.t[static_cast<size_t>(l)].forward_s;
        params += pf.mem[static_cast<size_t>(l)].params;
      }
      if (st.first_layer == 0 && st.last_layer == L - 1)
        params -= pf.mem.back().shared_with_embedding;
      pr.fb[static_cast<size_t>(s)] = std::max(pr.fb[static_cast<size_t>(s)], f);
      if (ctx_.schedule.isDefault())
        pr.opt[static_cast<size_t>(s)] =
            std::max(pr.opt[static_cast<size_t>(s)],
                     stepSeconds(pf.opt, params, pr.D, *ctx_.site(site).gpu));
      else
        pr.kinds[static_cast<size_t>(s)].push_back(
            {params, pf.opt, fw, f - fw, ctx_.site(site).gpu});
      if (j == 0 && s + 1 < pr.P)
        pr.msg[static_cast<size_t>(s) + 1] =
            pf.mem[static_cast<size_t>(st.last_layer)].output_elements * b *
            ctx_.job.activationBytesPerElement();
      auto& blocks = pr.stage_blocks[static_cast<size_t>(s)];
      if (j > 0 && pr.blocks[static_cast<size_t>(blocks.back())].site == site &&
          pr.blocks[static_cast<size_t>(blocks.back())].tp == r.tp) {
        ++pr.blocks[static_cast<size_t>(blocks.back())].len;
        continue;
      }
      Block bl;
      bl.stage = s;
      bl.start = static_cast<int>(j);
      bl.len = 1;
      bl.site = site;
      bl.tp = r.tp;
      bl.gpu = &ctx_.site(site).gpu_type;
      bl.shard = params * 4.0;
      bl.tied = (s == pr.P - 1 && pr.P >= 2) ? pf.mem.back().shared_with_embedding * 4.0 : 0.0;
      for (const auto& z : ctx_.site(site).zones) {
        bl.zone.push_back(zone_id_.at(z.zone));
        bl.price.push_back(z.usd_per_gpu_hour);
      }
      blocks.push_back(static_cast<int>(pr.blocks.size()));
      pr.blocks.push_back(bl);
    }
  }
  pr.max_slots = 1;
  for (const auto& site : ctx_.sites())
    pr.max_slots = std::max(pr.max_slots, static_cast<int>(site.zones.size()));
  const size_t n = pr.blocks.size() * static_cast<size_t>(pr.max_slots);
  pr.ring.assign(n * n, {-1, 0});
  pr.pair.assign(n * n, {-1, 0});
  pr.tied_s.assign(n, -1);
  return pr;
}

// A ring edge from a replica of block a in slot za to one of block b in slot zb: seconds and
// egress (USD per iteration), as planningModel figures them.
const Placer::Figure& Placer::ringEdge(Problem& pr, int a, int za, int b, int zb) const {
  Figure& f = pr.ring[pr.index(a, za, b, zb)];
  if (f.t >= 0) return f;
  const Block& x = pr.blocks[static_cast<size_t>(a)];
  const Block& y = pr.blocks[static_cast<size_t>(b)];
  const int gx = x.zone[static_cast<size_t>(za)], gy = y.zone[static_cast<size_t>(zb)];
  f.t = ringAllReduceSeconds(
      link(gx, *x.gpu, gy, *y.gpu, x.tp), x.shard, pr.D, x.tp, ctx_.opt.simulator,
      collectiveBusBytesPerS(*ctx_.site(x.site).gpu, *ctx_.site(y.site).gpu));
  f.usd =
      2.0 * (pr.D - 1) / pr.D * x.shard * x.tp / 1e9 * egressOf(gx, gy) * syncEgressFactor(ctx_);
  return f;
}

// A boundary pair: a replica of block a (stage s - 1) in slot za with one of block c (stage s)
// in slot zc, both directions.
const Placer::Figure& Placer::boundaryPair(Problem& pr, int a, int za, int c, int zc) const {
  Figure& f = pr.pair[pr.index(a, za, c, zc)];
  if (f.t >= 0) return f;
  const Block& x = pr.blocks[static_cast<size_t>(a)];
  const Block& y = pr.blocks[static_cast<size_t>(c)];
  const int gx = x.zone[static_cast<size_t>(za)], gy = y.zone[static_cast<size_t>(zc)];
  const double msg = pr.msg[static_cast<size_t>(y.stage)];
  const int streams = boundaryStreams(x.tp, y.tp);
  f.t = std::max(boundaryTransferSeconds(link(gx, *x.gpu, gy, *y.gpu, streams), nodeLink(*y.gpu),
                                         msg, streams, false),
                 boundaryTransferSeconds(link(gy, *y.gpu, gx, *x.gpu, streams), nodeLink(*x.gpu),
                                         msg, streams, false));
  f.usd = msg * pr.M / 1e9 * (egressOf(gx, gy) + egressOf(gy, gx));
  return f;
}

double Placer::tiedSeconds(Problem& pr, int a, int za) const {
  double& t = pr.tied_s[static_cast<size_t>(a) * static_cast<size_t>(pr.max_slots) +
                        static_cast<size_t>(za)];
  if (t >= 0) return t;
  const Block& x = pr.blocks[static_cast<size_t>(a)];
  const int g = x.zone[static_cast<size_t>(za)];
  t = x.tied > 0 ? ringAllReduceSeconds(link(g, *x.gpu, g, *x.gpu, x.tp), x.tied, 2, x.tp,
                                        ctx_.opt.simulator,
                                        ctx_.site(x.site).gpu->collectiveBusBytesPerS())
                 : 0.0;
  return t;
}

// The planning model's figures of a layout: T = (M - 1) max c + sum c + max x, cost = rate T /
// 3600 + egress (planningModel; docs/planner.md).
Placer::Score Placer::evaluate(Problem& pr, const Layout& lay) const {
  const size_t P = static_cast<size_t>(pr.P);
  // Segments per stage: (block, slot, length) in replica order.
  auto& segs = pr.segs;
  segs.resize(P);
  for (auto& sg : segs) sg.clear();
  double rate = 0, egress = 0;
  int gpus = 0;
  for (size_t bi = 0; bi < pr.blocks.size(); ++bi) {
    const Block& bl = pr.blocks[bi];
    for (const Run& r : lay.runs[bi]) {
      segs[static_cast<size_t>(bl.stage)].push_back({static_cast<int>(bi), r.slot, r.count});
      rate += r.count * bl.tp * bl.price[static_cast<size_t>(r.slot)];
      gpus += r.count * bl.tp;
    }
  }
  std::vector<double>& x = pr.x;
  std::vector<double>& bnd = pr.bnd;
  x.assign(P, 0);
  bnd.assign(P, 0);
  for (size_t s = 0; s < P; ++s) {
    const auto& sg = segs[s];
    double sync = 0, tied = 0;
    for (size_t i = 0; i < sg.size(); ++i) {
      tied = std::max(tied, tiedSeconds(pr, sg[i].block, sg[i].slot));
      if (pr.D < 2) continue;
      if (sg[i].len >= 2) {
        const Figure& f = ringEdge(pr, sg[i].block, sg[i].slot, sg[i].block, sg[i].slot);
        sync = std::max(sync, f.t);
        egress += (sg[i].len - 1) * f.usd;
      }
      const Seg& nx = sg[(i + 1) % sg.size()];
      const Figure& f = ringEdge(pr, sg[i].block, sg[i].slot, nx.block, nx.slot);
      sync = std::max(sync, f.t);
      egress += f.usd;
    }
    double step = pr.opt[s];
    if (!ctx_.schedule.isDefault()) {  // the search's stageDataParallel, the slowest kind's
      double wait = 0;
      for (const auto& k : pr.kinds[s]) {
        const DataParallelFigures f =
            stageDataParallel(ctx_, sync, k.params, pr.D, k.opt, *k.gpu, k.fwd, k.bwd);
        wait = std::max(wait, f.sync_s);
        step = std::max(step, f.step_s);
      }
      sync = wait;
    }
    x[s] = tied + sync + step;
    if (s == 0) continue;
    // Boundary pairs: replica j of stage s - 1 with replica j of stage s (one degree).
    const auto& sa = segs[s - 1];
    size_t i = 0, k = 0;
    int left_a = sa.empty() ? 0 : sa[0].len, left_c = sg.empty() ? 0 : sg[0].len;
    double t = 0;
    while (i < sa.size() && k < sg.size()) {
      const int n = std::min(left_a, left_c);
      const Figure& f = boundaryPair(pr, sa[i].block, sa[i].slot, sg[k].block, sg[k].slot);
      t = std::max(t, f.t);
      egress += n * f.usd;
      left_a -= n;
      left_c -= n;
      if (left_a == 0 && ++i < sa.size()) left_a = sa[i].len;
      if (left_c == 0 && ++k < sg.size()) left_c = sg[k].len;
    }
    bnd[s] = t;
  }
  double maxc = 0, sumc = 0, maxx = 0;
  for (size_t s = 0; s < P; ++s) {
    const double cs = pr.fb[s] + 2 * bnd[s] + 2 * (s + 1 < P ? bnd[s + 1] : 0.0);
    maxc = std::max(maxc, cs);
    sumc += cs;
    maxx = std::max(maxx, x[s]);
  }
  Score sc;
  sc.t = (pr.M - 1) * maxc + sumc + maxx;
  sc.usd = rate * sc.t / 3600.0 + egress;
  sc.admitted = ctx_.constraints.admits(1.0 / sc.t, sc.usd, sc.usd * 3600.0 / sc.t, gpus);
  return sc;
}

// Constraints first, then NOTE [A dearer placement repays its price].
bool Placer::better(const Score& a, const Score& b) const {
  if (a.admitted != b.admitted) return a.admitted;
  return comparePlacements(a.t, a.usd, b.t, b.usd, ctx_.opt.objective, kRelTie) < 0;
}

// Runs in one slot next to each other merged, empty runs dropped.
void Placer::normalize(Layout& lay) {
  for (auto& runs : lay.runs) {  // in place: the local moves normalize every layout they try
    size_t kept = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
      const Run r = runs[i];
      if (r.count <= 0) continue;
      if (kept > 0 && runs[kept - 1].slot == r.slot) runs[kept - 1].count += r.count;
      else runs[kept++] = r;
    }
    runs.resize(kept);
  }
}

bool Placer::fits(Problem& pr, const Layout& lay) const {
  auto& used = pr.used;  // [site x slot] -> GPUs
  used.assign(ctx_.sites().size() * static_cast<size_t>(pr.max_slots), 0);
  for (size_t bi = 0; bi < pr.blocks.size(); ++bi) {
    const Block& bl = pr.blocks[bi];
    for (const Run& r : lay.runs[bi]) {
      int& u = used[static_cast<size_t>(bl.site) * static_cast<size_t>(pr.max_slots) +
                    static_cast<size_t>(r.slot)];
      u += r.count * bl.tp;
      if (u > ctx_.site(bl.site).zones[static_cast<size_t>(r.slot)].count) return false;
    }
  }
  return true;
}

// Keeps the best `keep` distinct layouts seen, best first; ties keep the earlier one.
void Placer::Best::offer(const Layout& lay, const Score& s, const Placer& p) {
  for (const auto& [l, sc] : items)
    if (l.runs == lay.runs) return;
  auto pos = items.begin();
  while (pos != items.end() && !p.better(s, pos->second)) ++pos;
  if (static_cast<size_t>(pos - items.begin()) >= keep) return;
  items.insert(pos, {lay, s});
  if (items.size() > keep) items.pop_back();
}

// Every zone for every replica (capacity permitting): exact.
void Placer::exhaustive(Problem& pr, Best& best) const {
  std::vector<std::pair<int, int>> pos;  // (block, index in block)
  for (size_t bi = 0; bi < pr.blocks.size(); ++bi)
    for (int j = 0; j < pr.blocks[bi].len; ++j) pos.push_back({static_cast<int>(bi), j});
  std::vector<int> slot(pos.size(), 0);
  std::map<std::pair<int, int>, int> used;
  std::function<void(size_t)> rec = [&](size_t i) {
    if (i == pos.size()) {
      Layout lay;
      lay.runs.resize(pr.blocks.size());
      for (size_t k = 0; k < pos.size(); ++k)
        lay.runs[static_cast<size_t>(pos[k].first)].push_back({slot[k], 1});
      normalize(lay);
      best.offer(lay, evaluate(pr, lay), *this);
      ++evaluated_;
      return;
    }
    const Block& bl = pr.blocks[static_cast<size_t>(pos[i].first)];
    for (size_t z = 0; z < bl.zone.size(); ++z) {
      int& u = used[{bl.site, static_cast<int>(z)}];
      if (u + bl.tp > ctx_.site(bl.site).zones[z].count) continue;
      u += bl.tp;
      slot[i] = static_cast<int>(z);
      rec(i + 1);
      u -= bl.tp;
    }
  };
  rec(0);
}

// The rule of SearchContext::place with each site's zones in `order` (slot indices): a stage's
// replicas of one site whole in the first zone that holds them all, else filled zone by zone.
bool Placer::fill(const Problem& pr, const std::vector<std::vector<int>>& order,
                  Layout& lay) const {
  lay.runs.assign(pr.blocks.size(), {});
  std::vector<std::vector<int>> left(ctx_.sites().size());
  for (size_t s = 0; s < ctx_.sites().size(); ++s)
    for (const auto& z : ctx_.site(static_cast<int>(s)).zones) left[s].push_back(z.count);
  for (const auto& blocks : pr.stage_blocks) {
    std::map<int, int> need;
    for (int bi : blocks) {
      const Block& bl = pr.blocks[static_cast<size_t>(bi)];
      need[bl.site] += bl.len * bl.tp;
    }
    std::map<int, int> whole;
    for (const auto& [s, n] : need) {
      whole[s] = -1;
      for (int z : order[static_cast<size_t>(s)])
        if (left[static_cast<size_t>(s)][static_cast<size_t>(z)] >= n) {
          whole[s] = z;
          break;
        }
    }
    for (int bi : blocks) {
      const Block& bl = pr.blocks[static_cast<size_t>(bi)];
      auto& lf = left[static_cast<size_t>(bl.site)];
      auto& runs = lay.runs[static_cast<size_t>(bi)];
      for (int j = 0; j < bl.len; ++j) {
        int z = whole[bl.site];
        if (z < 0)
          for (int o : order[static_cast<size_t>(bl.site)])
            if (lf[static_cast<size_t>(o)] >= bl.tp) {
              z = o;
              break;
            }
        if (z < 0) return false;
        lf[static_cast<size_t>(z)] -= bl.tp;
        if (!runs.empty() && runs.back().slot == z) ++runs.back().count;  // normalized as it goes
        else runs.push_back({z, 1});
      }
    }
  }
  return true;
}

// Fills in zone orders: every order of each site's zones (their product up to kMaxFillOrders;
// beyond, each site's orders with the others cheapest first). The first is the file order.
void Placer::seeds(Problem& pr, Best& best, std::vector<Layout>* fills) const {
  std::vector<int> sites;
  for (const auto& bl : pr.blocks)
    if (std::find(sites.begin(), sites.end(), bl.site) == sites.end()) sites.push_back(bl.site);
  std::sort(sites.begin(), sites.end());
  std::vector<std::vector<int>> base(ctx_.sites().size());
  for (size_t s = 0; s < base.size(); ++s)
    for (size_t z = 0; z < ctx_.site(static_cast<int>(s)).zones.size(); ++z)
      base[s].push_back(static_cast<int>(z));
  auto try_order = [&](const std::vector<std::vector<int>>& order) {
    Layout lay;
    if (!fill(pr, order, lay)) return;
    if (fills && std::none_of(fills->begin(), fills->end(),
                              [&](const Layout& l) { return l.runs == lay.runs; }))
      fills->push_back(lay);
    best.offer(lay, evaluate(pr, lay), *this);
    ++evaluated_;
  };
  try_order(base);
  auto perms = [](int n) {
    double f = 1;
    for (int i = 2; i <= n; ++i) f *= i;
    return f;
  };
  double product = 1;
  for (int s : sites) product *= perms(static_cast<int>(base[static_cast<size_t>(s)].size()));
  if (product <= static_cast<double>(kMaxFillOrders)) {
    std::function<void(size_t, std::vector<std::vector<int>>&)> rec =
        [&](size_t i, std::vector<std::vector<int>>& order) {
          if (i == sites.size()) {
            try_order(order);
            return;
          }
          auto& o = order[static_cast<size_t>(sites[i])];
          std::sort(o.begin(), o.end());
          do rec(i + 1, order);
          while (std::next_permutation(o.begin(), o.end()));
        };
    auto order = base;
    rec(0, order);
    return;
  }
  for (int s : sites) {
    auto order = base;
    auto& o = order[static_cast<size_t>(s)];
    size_t tried = 0;
    do try_order(order);
    while (std::next_permutation(o.begin(), o.end()) && ++tried < kMaxFillOrders);
  }
}

// Local improvement from `lay`: run orders within a block, moving the split between two runs
// of a block (to the other stages' run ends, or by one replica), moving a run to another zone,
// swapping the zones of two runs of one site (or part of each). First improvement, until none
// improves. `explore`: one pass that moves nowhere, every neighbour offered to `best`.
void Placer::improve(Problem& pr, Layout lay, Best& best, bool explore) const {
  Score cur = evaluate(pr, lay);
  // Each move is tried on a copy of `lay` in one buffer kept across the moves (its vectors
  // reused: a copy of its own per move was most of the moves' allocations); a move that
  // improves swaps it with `lay`.
  Layout work;
  auto fresh = [&]() -> Layout& {
    work.runs.resize(lay.runs.size());
    for (size_t i = 0; i < lay.runs.size(); ++i)
      work.runs[i].assign(lay.runs[i].begin(), lay.runs[i].end());
    return work;
  };
  auto attempt = [&](Layout& cand) {
    normalize(cand);
    if (!fits(pr, cand) || cand.runs == lay.runs) return false;
    const Score s = evaluate(pr, cand);
    ++evaluated_;
    best.offer(cand, s, *this);
    if (explore || !better(s, cur)) return false;
    std::swap(lay, cand);
    cur = s;
    return true;
  };
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    bool improved = false;
    for (size_t bi = 0; bi < pr.blocks.size(); ++bi) {
      // Run orders.
      const size_t nr = lay.runs[bi].size();
      if (nr >= 2 && nr <= kMaxPermutedRuns) {
        std::vector<int> idx(nr);
        for (size_t i = 0; i < nr; ++i) idx[i] = static_cast<int>(i);
        const std::vector<Run> orig = lay.runs[bi];
        while (std::next_permutation(idx.begin(), idx.end())) {
          Layout& c2 = fresh();
          for (size_t i = 0; i < nr; ++i) c2.runs[bi][i] = orig[static_cast<size_t>(idx[i])];
          if (attempt(c2)) {
            improved = true;
            break;
          }
        }
      }
      // Splits between adjacent runs: at every run end of the neighbouring stages, and +-1.
      const Block& bl = pr.blocks[bi];
      std::vector<int> ends;
      for (int ds : {-1, 1}) {
        const int s = bl.stage + ds;
        if (s < 0 || s >= pr.P) continue;
        for (int ob : pr.stage_blocks[static_cast<size_t>(s)]) {
          int at = pr.blocks[static_cast<size_t>(ob)].start;
          for (const Run& r : lay.runs[static_cast<size_t>(ob)]) ends.push_back(at += r.count);
        }
      }
      for (size_t i = 0; i + 1 < lay.runs[bi].size(); ++i) {
        int start = bl.start;
        for (size_t k = 0; k < i; ++k) start += lay.runs[bi][k].count;
        const int a = lay.runs[bi][i].count, b = lay.runs[bi][i + 1].count;
        std::vector<int> splits{start + a - 1, start + a + 1};
        for (int e : ends) splits.push_back(e);
        for (int sp : splits) {
          const int na = sp - start;
          if (na < 0 || na > a + b || na == a) continue;
          Layout& c2 = fresh();
          c2.runs[bi][i].count = na;
          c2.runs[bi][i + 1].count = a + b - na;
          if (attempt(c2)) {
            improved = true;
            break;
          }
        }
      }
      // A run to another zone of its site.
      for (size_t i = 0; i < lay.runs[bi].size(); ++i)
        for (size_t z = 0; z < bl.zone.size() && i < lay.runs[bi].size(); ++z) {
          if (static_cast<int>(z) == lay.runs[bi][i].slot) continue;
          Layout& c2 = fresh();
          c2.runs[bi][i].slot = static_cast<int>(z);
          if (attempt(c2)) improved = true;
        }
    }
    // Swapping the zones of two runs of one site.
    for (size_t bi = 0; bi < pr.blocks.size(); ++bi)
      for (size_t bj = bi; bj < pr.blocks.size(); ++bj) {
        if (pr.blocks[bi].site != pr.blocks[bj].site) continue;
        for (size_t i = 0; i < lay.runs[bi].size(); ++i)
          for (size_t k = (bi == bj ? i + 1 : 0);
               i < lay.runs[bi].size() && k < lay.runs[bj].size(); ++k) {
            if (lay.runs[bi][i].slot == lay.runs[bj][k].slot) continue;
            Layout& c2 = fresh();
            std::swap(c2.runs[bi][i].slot, c2.runs[bj][k].slot);
            if (attempt(c2)) {
              improved = true;
              continue;
            }
            // Part of each: t replicas at the end (or the start) of one run take the other's
            // zone and t of the other run take this one's (each pipeline keeping to a zone).
            const Run ra = lay.runs[bi][i], rb = lay.runs[bj][k];
            const int most = std::min(ra.count, rb.count);
            std::vector<int> sizes;
            for (int t = 1; t <= most && t <= kMaxPartialSwap; t *= 2) sizes.push_back(t);
            for (int t : {most / 2, most - 1, most})
              if (t >= 1 && std::find(sizes.begin(), sizes.end(), t) == sizes.end())
                sizes.push_back(t);
            for (size_t ti = 0; ti < sizes.size(); ++ti)
              for (int ends = 0; ends < 4; ++ends) {
                const int t = sizes[ti];
                if (t == ra.count && t == rb.count) continue;  // the whole swap above
                Layout& c3 = fresh();
                auto split = [&](std::vector<Run>& runs, size_t at, int slot) {
                  const bool at_end =
                      (&runs == &c3.runs[bi] && at == i) ? (ends & 1) != 0 : (ends & 2) != 0;
                  Run keep_part = runs[at];
                  keep_part.count -= t;
                  const Run moved{slot, t};
                  runs.erase(runs.begin() + static_cast<long>(at));
                  if (at_end) {
                    runs.insert(runs.begin() + static_cast<long>(at), moved);
                    runs.insert(runs.begin() + static_cast<long>(at), keep_part);
                  } else {
                    runs.insert(runs.begin() + static_cast<long>(at), keep_part);
                    runs.insert(runs.begin() + static_cast<long>(at), moved);
                  }
                };
                if (bi == bj) {
                  // Within one block: split the later run first so the earlier index holds.
                  split(c3.runs[bj], k, ra.slot);
                  split(c3.runs[bi], i, rb.slot);
                } else {
                  split(c3.runs[bi], i, rb.slot);
                  split(c3.runs[bj], k, ra.slot);
                }
                if (attempt(c3)) {
                  improved = true;
                  ti = sizes.size();
                  break;
                }
              }
          }
      }
    if (!improved) break;
  }
}

std::vector<Candidate> Placer::neighbours(const Candidate& placed, size_t keep) const {
  Problem pr = problem(placed);
  Layout lay;
  lay.runs.resize(pr.blocks.size());
  for (size_t bi = 0; bi < pr.blocks.size(); ++bi) {
    const Block& bl = pr.blocks[bi];
    const auto& zones = ctx_.site(bl.site).zones;
    const auto& reps = placed.plan.stages[static_cast<size_t>(bl.stage)].replicas;
    for (int j = bl.start; j < bl.start + bl.len; ++j) {
      int slot = -1;
      for (size_t z = 0; z < zones.size(); ++z)
        if (zones[z].zone == reps[static_cast<size_t>(j)].zone) slot = static_cast<int>(z);
      if (slot < 0) return {};
      lay.runs[bi].push_back({slot, 1});
    }
  }
  normalize(lay);
  Best best;
  best.keep = keep;
  improve(pr, lay, best, true);
  return write(placed, pr, best, keep);
}

// The candidate with its replicas' zones set as the layout places them.
Candidate Placer::written(const Candidate& c, const Problem& pr, const Layout& lay) const {
  Candidate p = c;
  for (size_t bi = 0; bi < pr.blocks.size(); ++bi) {
    const Block& bl = pr.blocks[bi];
    Stage& st = p.plan.stages[static_cast<size_t>(bl.stage)];
    int j = bl.start;
    for (const Run& r : lay.runs[bi])
      for (int k = 0; k < r.count; ++k)
        st.replicas[static_cast<size_t>(j++)].zone =
            ctx_.site(bl.site).zones[static_cast<size_t>(r.slot)].zone;
  }
  return p;
}

std::vector<Candidate> Placer::write(const Candidate& c, const Problem& pr, const Best& best,
                                     size_t keep) const {
  std::vector<Candidate> out;
  for (const auto& [lay, s] : best.items) {
    if (out.size() >= keep || (!s.admitted && !out.empty())) break;
    out.push_back(written(c, pr, lay));
  }
  return out;
}

std::vector<Candidate> Placer::place(const Candidate& c, size_t keep, bool exhaustive_when_small,
                                     bool with_fills, bool local_moves) const {
  keep = std::max<size_t>(keep, 1);
  // Exact sites (H6 off, or one zone per site): the file order is the only placement.
  bool choice = false;
  double assignments = 1;
  for (size_t s = 0; s < c.sites.size(); ++s)
    for (int site : c.sites[s]) {
      const size_t nz = ctx_.site(site).zones.size();
      choice = choice || nz > 1;
      assignments *= static_cast<double>(nz);
    }
  if (!choice) {
    Candidate out = c;
    if (!ctx_.place(out)) return {};
    ++placed_;
    return {out};
  }
  Problem pr = problem(c);
  std::vector<std::vector<int>> file_order(ctx_.sites().size());
  for (size_t s = 0; s < file_order.size(); ++s)
    for (size_t z = 0; z < ctx_.site(static_cast<int>(s)).zones.size(); ++z)
      file_order[s].push_back(static_cast<int>(z));
  Layout old;
  const bool has_old = fill(pr, file_order, old);
  Best best;
  const bool small = exhaustive_when_small && assignments <= kExhaustiveLimit;
  if (small && keep > 1) keep = std::max(keep, kSmallRanked);
  best.keep = std::max<size_t>(keep, kImproveStarts);
  std::vector<Layout> fills;
  if (small) {
    exhaustive(pr, best);
    if (with_fills) {
      Best all_fills;
      all_fills.keep = kMaxFillOrders + 1;
      seeds(pr, all_fills, &fills);
    }
  } else {
    seeds(pr, best, with_fills ? &fills : nullptr);
    const auto starts = best.items;
    if (local_moves)
      for (const auto& [lay, s] : starts) improve(pr, lay, best);
  }
  ++placed_;
  std::vector<const Layout*> chosen;
  for (const auto& [lay, s] : best.items) {
    if (chosen.size() >= keep || (!s.admitted && !chosen.empty())) break;
    chosen.push_back(&lay);
  }
  if (keep > 1 && has_old && std::none_of(chosen.begin(), chosen.end(), [&](const Layout* l) {
        return l->runs == old.runs;
      }))
    chosen.push_back(&old);
  for (const Layout& f : fills)
    if (std::none_of(chosen.begin(), chosen.end(),
                     [&](const Layout* l) { return l->runs == f.runs; }))
      chosen.push_back(&f);
  std::vector<Candidate> out;
  for (const Layout* lp : chosen) {
    out.push_back(written(c, pr, *lp));
  }
  return out;
}

}  // namespace sailor::planner_detail
