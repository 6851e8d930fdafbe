// One microbatch size's task of the planner (planner_internal.hpp):
//   evenSplit, seedStages, seedPlans   seed plans: one kind per pipeline, layers split evenly
//                                      by compute time, figured as the search figures them
//   keepUseful                         a degree's candidates that can still be chosen
//   MicrobatchSearch                   the sweeps over data-parallel degrees (H3, H4, H11, H12)
//                                      with the known-plan bound
#include <algorithm>
#include <cmath>
#include <limits>

#include "planner_internal.hpp"
#include "sailor/core/error.hpp"

namespace sailor::planner_detail {

namespace {

// Stage ends of P stages splitting layers [0, L) evenly by compute time: stage s ends at the
// first layer where the running total reaches (s + 1) / P of the whole, leaving a layer for each
// later stage.
std::vector<int> evenSplit(const KindTable& t, int P) {
  const int L = t.L;
  std::vector<int> last(static_cast<size_t>(P));
  const double total = t.at(t.fb, 0, L - 1);
  int l = 0;
  for (int st = 0; st < P; ++st) {
    int r = l;
    while (r < L - (P - st) && t.at(t.fb, 0, r) < total * (st + 1) / P) ++r;
    if (st == P - 1) r = L - 1;
    last[static_cast<size_t>(st)] = r;
    l = r + 1;
  }
  return last;
}

// The summary of a seed pipeline: D replicas of kind kd per stage, stages ending at `last`,
// `rate` USD per hour per stage. False when a stage does not fit in memory.
bool seedSummary(const SearchContext& ctx, const Kind& kd, const KindTable& t, int b, int D,
                 const std::vector<int>& last, double rate, Summary& sum) {
  const int P = static_cast<int>(last.size());
  const int M = ctx.microbatches(b, D);
  const int e = ctx.job.activationBytesPerElement();
  const Site& site = ctx.site(kd.site);
  bool has_child = false;
  for (int st = P - 1; st >= 0; --st) {
    const int first = st == 0 ? 0 : last[static_cast<size_t>(st) - 1] + 1,
              r = last[static_cast<size_t>(st)];
    const int k = P - st;
    const double mem = replicaMemoryBytes(t.at(t.params, first, r), t.at(t.act, first, r),
                                          t.at(t.maxact, first, r), b, std::min(k, M), ctx.job,
                                          *site.gpu, ctx.schedule, D);
    if (mem > static_cast<double>(site.gpu->memory_bytes) * (1 - ctx.opt.searchReserveFraction()))
      return false;
    double t_in = 0, egress_in = 0;
    if (st > 0) {
      const double msg = t.out_elements[static_cast<size_t>(first - 1)] * b * e;
      const double tt = std::max(ctx.p2p(kd, kd, msg), ctx.p2p(kd, kd, msg));
      const double g = msg * M / 1e9 *
                       (ctx.egressBetween(kd.site, kd.site) + ctx.egressBetween(kd.site, kd.site));
      for (int j = 0; j < D; ++j) {
        t_in = std::max(t_in, tt);
        egress_in += g;
      }
    }
    double opt_s = 0;
    double tr = st == P - 1 && P >= 2 ? ctx.tiedSeconds(kd, t) : 0.0;
    double sync_egress = 0, ring = 0;
    if (D >= 2) {
      const double shard = t.at(t.params, first, r) * 4.0;
      ring = ringAllReduceSeconds(ctx.linkBetween(kd.site, kd.site, kd.tp), shard, D, kd.tp,
                                  ctx.opt.simulator, site.gpu->collectiveBusBytesPerS());
      sync_egress += D * 2.0 * (D - 1) / D * shard * kd.tp / 1e9 *
                     ctx.egressBetween(kd.site, kd.site) * syncEgressFactor(ctx);
    }
    if (ctx.schedule.isDefault()) {
      opt_s = stepSeconds(t.optimizer_s_per_param, t.at(t.params, first, r), D, *site.gpu);
      tr += ring;
    } else {
      const double fw = t.at(t.fwd, first, r);
      const DataParallelFigures f =
          stageDataParallel(ctx, ring, t.at(t.params, first, r), D, t.optimizer_s_per_param,
                            *site.gpu, fw, t.at(t.fb, first, r) - fw);
      opt_s = f.step_s;
      tr += f.sync_s;
    }
    const StageFigures stage{t.at(t.fb, first, r),    t_in,      tr + opt_s, rate,
                             sync_egress + egress_in, D * kd.tp, true};
    sum = extendSummary(stage, has_child ? &sum : nullptr);
    has_child = true;
  }
  return true;
}

}  // namespace

std::vector<Candidate> seedPlans(const SearchContext& ctx, const KindSet& kinds, int b, int max_d) {
  std::vector<Candidate> seeds;
  for (int D = 1; D <= max_d; ++D) {
    const int M = ctx.microbatches(b, D);
    for (size_t ki = 0; ki < kinds.kinds.size(); ++ki) {
      const Kind& kd = kinds.kinds[ki];
      const Site& site = ctx.site(kd.site);
      const KindTable& t = kinds.table(kd);
      // Not even one stage of D replicas fits in the site: no depth does (and the rate's sum
      // below, D additions for every kind and degree up to G / b, was 5 % of a 100-pool search).
      if (static_cast<long>(D) * kd.tp > site.capacity) continue;
      double rate = 0;
      for (int j = 0; j < D; ++j) rate += kd.tp * site.price();
      for (int P = 1; P <= ctx.maxDepth(); ++P) {
        if (static_cast<long>(P) * D * kd.tp > site.capacity) break;
        const std::vector<int> last = evenSplit(t, P);
        Summary sum;
        if (!seedSummary(ctx, kd, t, b, D, last, rate, sum)) continue;
        Candidate c;
        completeFigures(sum, M, c);
        if (!ctx.constraints.admits(1.0 / c.iteration_s, c.usd, c.usd_per_hour, sum.gpus)) continue;
        c.microbatch = b;
        c.dp = D;
        c.seed_kind = static_cast<int>(ki);
        c.seed_last = last;
        c.key = seedSignature(D, kd.site, kd.tp, last);
        seeds.push_back(std::move(c));
      }
    }
  }
  return seeds;
}

// The overall choice and frontier lie in the union of what each degree keeps, so nothing changes
// but memory.
void keepUseful(const PlannerOptions& opt, std::vector<Candidate>& found) {
  const size_t window = placementWindow(opt.top_k, true);
  if (found.size() <= window) return;
  std::vector<size_t> idx(found.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  const bool by_cost = opt.objective == Objective::Cost;
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    const double x = by_cost ? found[a].usd : found[a].iteration_s,
                 y = by_cost ? found[b].usd : found[b].iteration_s;
    return x != y ? x < y : a < b;
  });
  std::vector<char> keep(found.size(), 0);
  for (size_t i = 0; i < window; ++i) keep[idx[i]] = 1;
  if (opt.pareto) {
    std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      return found[a].usd != found[b].usd ? found[a].usd < found[b].usd
                                          : (found[a].iteration_s != found[b].iteration_s
                                                 ? found[a].iteration_s < found[b].iteration_s
                                                 : a < b);
    });
    double best_t = std::numeric_limits<double>::infinity();
    for (size_t i : idx)
      if (found[i].iteration_s <= best_t) {
        best_t = found[i].iteration_s;
        keep[i] = 1;
      }
  }
  std::vector<Candidate> kept;
  for (size_t i = 0; i < found.size(); ++i)
    if (keep[i]) kept.push_back(std::move(found[i]));
  found = std::move(kept);
}

MicrobatchSearch::MicrobatchSearch(const SearchContext& ctx, int b, const StopFlag& stop,
                                   Report report)
    : ctx_(ctx),
      b_(b),
      stop_(stop),
      report_(std::move(report)),
      known_(ctx.opt.pareto, ctx.opt.objective == Objective::Cost,
             placementWindow(ctx.opt.top_k, ctx.opt.heuristics.h6_region_pools)),
      shared_(known_) {}

std::vector<int> MicrobatchSearch::degreesUp() const {
  std::vector<int> up;
  for (int d = 1; d <= max_d_; ++d)
    if (!ctx_.opt.heuristics.h12_smallest_degree_per_m || d == 1 ||
        ctx_.microbatches(b_, d - 1) != ctx_.microbatches(b_, d))
      up.push_back(d);
  return up;
}

// Degrees on a geometric grid with ratio pareto_grid between the two ends of the frontier (all
// of them without H3/H4; every searched degree when the ratio is 1).
std::vector<int> MicrobatchSearch::paretoGrid(int fast_degree, int cheap_degree) const {
  const auto& H = ctx_.opt.heuristics;
  if (H.pareto_grid <= 1.0) return degreesUp();
  const int lo = std::min(cheap_degree, std::max(1, fast_degree)),
            hi = std::max(cheap_degree, fast_degree);
  // H12: a grid point stands for the smallest degree with its number of microbatches m (the
  // same ceiling formula gives it from m).
  auto smallest = [&](int d) {
    if (!H.h12_smallest_degree_per_m) return d;
    return std::max(1, ctx_.microbatches(b_, ctx_.microbatches(b_, d)));
  };
  std::vector<int> grid;
  for (double d = lo; d <= hi; d *= H.pareto_grid) {
    const int n = smallest(static_cast<int>(std::lround(d)));
    if (grid.empty() || grid.back() != n) grid.push_back(n);
  }
  if (hi >= 1 && (grid.empty() || grid.back() != smallest(hi))) grid.push_back(smallest(hi));
  return grid;
}

bool MicrobatchSearch::prepare() {
  if (prepared_) return fits_;
  prepared_ = true;
  // Whole microbatches only (Plan::checkGlobalBatch); every degree up to G / b then fits.
  if (!batchFits(ctx_.job.global_batch_size, b_, 1)) return false;
  kinds_ = ctx_.kinds(b_);
  if (kinds_.kinds.empty()) return false;
  max_d_ = std::min(ctx_.totalGpus(), std::max(1, ctx_.job.global_batch_size / b_));
  for (int j = 0; j < ctx_.layers; ++j) {
    double fb = std::numeric_limits<double>::infinity(), work = fb;
    for (const Kind& kd : kinds_.kinds) {
      const double f = kinds_.table(kd).at(kinds_.table(kd).fb, j, j);
      fb = std::min(fb, f);
      work = std::min(work, kd.tp * ctx_.site(kd.site).price() * f);
    }
    fb_floor_ += fb;
    work_floor_ += work;
  }
  seeds_ = seedPlans(ctx_, kinds_, b_, max_d_);
  plans_found_ = static_cast<long>(seeds_.size());
  for (const auto& c : seeds_)
    if (known_.add(c.key, c.iteration_s, c.usd)) shared_.addNew(c.iteration_s, c.usd);
  fits_ = true;
  return true;
}

// NOTE [Seeds shared between microbatch sizes]: every task's bound also knows the other
// microbatch sizes' seed plans. All tasks list their seeds before any task searches (runTasks),
// and each adds the others' in the order of the sizes, so a task's known plans do not depend on
// the thread count or timing. Each seed is returned by its own task (finishSeeds, or seedsOnly
// when the deadline stopped that task first), so every plan the bound drops is still matched
// or beaten by a returned plan. The shared set keeps no keys: the other sizes' seeds are
// distinct plans (another microbatch size), and this task's plans enter it once, when its own
// set (keyed) learns them.
// The shared plans prune only above a floor (KnownBound): H3 and H4 judge a degree by its best
// plan (`local` in sweep), so a stronger bound could drop a plan they would count as a gain
// and change where the sweeps stop (without the floor the default scenario's frontier lost a
// point). The floor is the best plan of the sweep so far, lowered during a degree to the best
// plan found at it (searchDegree, depth by depth): no plan above it can change the judgement.
// A sweep without the judgement (H11's grid, H3/H4 off) has no floor.
void MicrobatchSearch::addForeignKnown(double t, double c) {
  shared_.addNew(t, c);
}

void MicrobatchSearch::seedsOnly(std::vector<Candidate>& out) {
  out_ = &out;
  coverage_ = {b_, false, {}, "before its first degree"};
  if (prepare()) finishSeeds();
}

void MicrobatchSearch::run(std::vector<Candidate>& out, long& compared) {
  out_ = &out;
  compared_ = &compared;
  coverage_ = {b_, true, {}, {}};
  if (!prepare()) return;
  const auto& H = ctx_.opt.heuristics;
  // Visited degrees, per dominance mode (with or without cost figures). A degree searched with
  // cost figures need not be searched again without them: its partial-plan sets keep the
  // fastest ones too.
  visited_.assign(2 * (static_cast<size_t>(max_d_) + 1), 0);
  sweeps_ = ctx_.opt.pareto ? 3 : 1;
  const std::vector<int> up = degreesUp();
  const std::vector<int> down(up.rbegin(), up.rend());
  const bool cost_capped = ctx_.constraints.byCost();
  try {  // the time limit (TimeLimitReached) stops the sweeps; the task keeps what it found
    if (!ctx_.opt.pareto) {
      const bool throughput = ctx_.opt.objective == Objective::Throughput;
      const bool early = throughput ? H.h3_dp_descending : H.h4_dp_ascending;
      sweep(throughput && early ? down : up, !throughput, early, !throughput || cost_capped,
            throughput ? "fastest plans" : "cheapest plans");
    } else {
      // Pareto: the throughput end (H3's descending sweep), the cost end (H4's ascending sweep),
      // and between them (H11) the grid. The two ends are searched as the single-objective
      // searches do (the throughput sweep without cost figures in its dominance: fast).
      const int fast = sweep(down, false, H.h3_dp_descending, cost_capped, "fast end");
      const int fast_degree = H.h3_dp_descending ? fast : max_d_;
      const int cheap = sweep(up, true, H.h4_dp_ascending, true, "cheap end");
      const int cheap_degree = H.h4_dp_ascending ? std::max(1, cheap) : 1;
      // Grid points keep the fastest plans of each degree (time-only dominance): cheap, and the
      // frontier between the ends is made of such plans unless egress or prices differ by zone.
      sweep(paretoGrid(fast_degree, cheap_degree), false, false, H.pareto_grid <= 1.0, "frontier");
    }
  } catch (const TimeLimitReached&) {
    coverage_.complete = false;
  }
  std::sort(coverage_.degrees.begin(), coverage_.degrees.end());
  coverage_.degrees.erase(std::unique(coverage_.degrees.begin(), coverage_.degrees.end()),
                          coverage_.degrees.end());
  if (coverage_.complete) coverage_.stopped_at.clear();
  finishSeeds();
}

// Enough: `patience` degrees in a row without a gain, and (H12 leaves few degrees, far apart at
// the low end) the sweep at least a factor patience_span past the best degree.
bool MicrobatchSearch::enough(int D, int since, int best_degree, bool by_cost) const {
  const auto& H = ctx_.opt.heuristics;
  if (since < std::max(H.patience, static_cast<int>(H.patience_fraction * best_degree)))
    return false;
  if (!H.h12_smallest_degree_per_m || best_degree == 0) return true;
  return by_cost ? D >= best_degree * H.patience_span : D * H.patience_span <= best_degree;
}

// Every plan of degree D with M microbatches and P <= min(maxDepth, G / D) stages: its stages'
// F + B sum to at least fb_floor_, so T = (M - 1) maxc + sumc + maxx >= (M - 1 + P) / P x
// fb_floor_; and T >= M c_s for every stage s, so its cost, sum over stages of the stage's
// GPU-hour rate x T, is at least D x M x work_floor_ / 3600. The floors sum per-layer minima of
// range sums, so a hair below them (1e-9) absorbs their rounding.
bool MicrobatchSearch::mayImprove(const std::vector<int>& degrees, size_t di, bool by_cost,
                                  double best) const {
  const int gpus = ctx_.totalGpus();
  for (size_t i = di + 1; i < degrees.size(); ++i) {
    const int D = degrees[i];
    const double M = ctx_.microbatches(b_, D);
    double floor = 0;
    if (by_cost) {
      floor = D * M * work_floor_ / 3600.0;
    } else {
      const double P = std::max(1, std::min(ctx_.maxDepth(), gpus / D));
      floor = (M - 1 + P) / P * fb_floor_;
    }
    if (floor * (1.0 - 1e-9) < best) return true;
  }
  return false;
}

int MicrobatchSearch::sweep(const std::vector<int>& degrees, bool by_cost, bool early,
                            bool cost_dims, const char* what) {
  const double min_improvement = ctx_.opt.heuristics.min_improvement;
  double best = std::numeric_limits<double>::infinity();
  int since = 0, best_degree = 0, last_improved = 0;
  for (size_t di = 0; di < degrees.size(); ++di) {
    const int D = degrees[di];
    coverage_.stopped_at = std::string(what) + ": data-parallel degree " + std::to_string(D);
    stop_.check();
    if (report_)
      report_(
          (sweep_index_ + static_cast<double>(di) / static_cast<double>(degrees.size())) / sweeps_,
          "microbatch " + std::to_string(b_) + ", " + what + ": data-parallel degree " +
              std::to_string(D),
          plans_found_);
    const size_t vi = (cost_dims ? static_cast<size_t>(max_d_) + 1 : 0) + static_cast<size_t>(D);
    const size_t vc = static_cast<size_t>(max_d_) + 1 + static_cast<size_t>(D);
    if (visited_[vi] || visited_[vc]) continue;
    visited_[vi] = 1;
    std::vector<Candidate> found;
    try {
      // Without H3/H4's judgement (early) no choice depends on the degree's best plan: the
      // shared plans prune everywhere.
      kinds_.setDegree(D);
      searchDegree(ctx_, kinds_, b_, D, cost_dims, known_, stop_, found, *compared_, &shared_,
                   by_cost, early ? best : -std::numeric_limits<double>::infinity());
    } catch (const TimeLimitReached&) {  // the depths searched before the deadline are kept
      keepUseful(ctx_.opt, found);
      for (auto& c : found) out_->push_back(std::move(c));
      throw;
    }
    plans_found_ += static_cast<long>(found.size());
    coverage_.degrees.push_back(D);
    // H3/H4 judge a degree by the plans found at it (not the seeds: seeding their "best" stopped
    // the sweeps earlier and cost throughput; docs/planner.md).
    double local = std::numeric_limits<double>::infinity();
    for (const auto& c : found) local = std::min(local, by_cost ? c.usd : c.iteration_s);
    keepUseful(ctx_.opt, found);
    for (auto& c : found) {
      if (known_.add(knownKey(c), c.iteration_s, c.usd)) shared_.addNew(c.iteration_s, c.usd);
      out_->push_back(std::move(c));
    }
    if (!early) continue;
    if (local < best * (1.0 - min_improvement)) {
      best = local;
      best_degree = D;
      last_improved = D;
      since = 0;
    } else if (local < best) {
      best = local;
      ++since;
      if (enough(D, since, best_degree, by_cost) && !mayImprove(degrees, di, by_cost, best)) break;
    } else if (std::isfinite(best)) {
      ++since;
      if (enough(D, since, best_degree, by_cost) && !mayImprove(degrees, di, by_cost, best)) break;
    }
  }
  ++sweep_index_;
  return last_improved;
}

// The seeds the bound relied on are part of the output (the window by the objective and the
// seeds' own frontier; duplicates of found plans are merged in planSearch).
void MicrobatchSearch::finishSeeds() {
  keepUseful(ctx_.opt, seeds_);
  for (auto& c : seeds_) {
    const Kind& kd = kinds_.kind(c.seed_kind);
    for (size_t st = 0; st < c.seed_last.size(); ++st)
      c.stages.push_back(
          {st == 0 ? 0 : c.seed_last[st - 1] + 1, c.seed_last[st], {{kd.site, kd.tp, c.dp}}});
    c.key = searchKey(ctx_, c);
    out_->push_back(std::move(c));
  }
  if (report_)
    report_(1.0,
            "microbatch " + std::to_string(b_) +
                (coverage_.complete ? " done" : " stopped at the time limit"),
            plans_found_);
}

}  // namespace sailor::planner_detail
