// One data-parallel degree of the planner's search (classes in planner_internal.hpp):
//   StageOptionTable    the degree's stage options (H5, H8, GPU cap), their sync figures per
//                       layer range and boundary transfers per option pair, cached
//   LowerBounds         what uncovered layers must add; pruning against the known plans
//   PartialPlanSearch   the memoized dynamic programme over (stages left, first layer, GPUs
//                       used, previous option), H2 and H10 applied
//   searchDegree        drives it depth by depth and writes out the complete plans
#include <algorithm>
#include <set>
#include <tuple>

#include "planner_internal.hpp"
#include "sailor/error.hpp"

namespace sailor::planner_detail {

// ---- StageOptionTable.

StageOptionTable::StageOptionTable(const SearchContext& ctx, const KindSet& kinds, int b, int D)
    : ctx_(ctx), kinds_(kinds), b_(b), D_(D), M_(ctx.microbatches(b, D)) {
  enumerate();
  ring_kinds_.resize(options_.size());
  ring_pairs_.resize(options_.size());
  bool one_kind = true;
  for (size_t oi = 0; oi < options_.size(); ++oi) {
    const auto& reps = options_[oi].replicas;
    std::map<std::pair<int, int>, int> pairs;
    for (size_t j = 0; j < reps.size(); ++j) {
      if (ring_kinds_[oi].empty() || ring_kinds_[oi].back() != reps[j])
        ring_kinds_[oi].push_back(reps[j]);
      pairs[{reps[j], reps[(j + 1) % reps.size()]}]++;
    }
    ring_pairs_[oi].assign(pairs.begin(), pairs.end());
    one_kind = one_kind && ring_kinds_[oi].size() == 1;
  }
  // Boundary classes: with one kind per option the kinds' classes; otherwise (mixed stages,
  // small instances) each option its own.
  std::map<int, int> cls;
  for (size_t oi = 0; oi < options_.size(); ++oi) {
    const int key = one_kind ? kinds_.boundary_class[static_cast<size_t>(ring_kinds_[oi][0])]
                             : static_cast<int>(oi);
    auto [it, fresh] = cls.emplace(key, static_cast<int>(cls.size()));
    if (fresh) class_rep_.push_back(oi);
    prev_class_.push_back(it->second);
  }
  prev_classes_ = static_cast<int>(cls.size());
  sync_.resize(options_.size());
  boundary_.resize(static_cast<size_t>(prev_classes_) * options_.size());
}

void StageOptionTable::add(const std::vector<int>& reps) {
  const size_t S = ctx_.sites().size();
  StageOption o;
  o.replicas = reps;
  o.use.assign(S, 0);
  std::set<std::string> regions;
  for (int k : reps) {
    const Kind& kd = kinds_.kind(k);
    o.use[static_cast<size_t>(kd.site)] += kd.tp;
    o.gpus += kd.tp;
    o.rate += kd.tp * ctx_.site(kd.site).price();
    regions.insert(ctx_.site(kd.site).region);
  }
  if (ctx_.opt.heuristics.h5_dp_in_region && regions.size() > 1) return;
  if (ctx_.opt.max_gpus && o.gpus > *ctx_.opt.max_gpus) return;
  for (size_t s = 0; s < S; ++s)
    if (o.use[s] > ctx_.sites()[s].capacity) return;
  options_.push_back(std::move(o));
}

void StageOptionTable::enumerate() {
  const auto& H = ctx_.opt.heuristics;
  // Multisets of D replicas over K kinds: C(K + D - 1, D).
  double multisets = 1;
  for (int i = 1; i <= D_; ++i)
    multisets = multisets * (static_cast<double>(kinds_.kinds.size()) + i - 1) / i;
  if (H.h8_homogeneous_stages && multisets > H.h8_mixed_budget) {
    for (size_t k = 0; k < kinds_.kinds.size(); ++k)
      add(std::vector<int>(static_cast<size_t>(D_), static_cast<int>(k)));
    return;
  }
  std::vector<int> cur;
  enumerateFrom(cur, 0);
}

bool StageOptionTable::enumerateFrom(std::vector<int>& cur, int start) {
  if (static_cast<int>(cur.size()) == D_) {
    add(cur);
    return true;
  }
  for (int k = start; k < static_cast<int>(kinds_.kinds.size()); ++k) {
    cur.push_back(k);
    enumerateFrom(cur, k);
    cur.pop_back();
    if (options_.size() > 200000) return false;
  }
  return true;
}

const StageOptionTable::Sync& StageOptionTable::sync(size_t oi, int l, int r) {
  const int L = ctx_.layers;
  auto& row = sync_[oi];
  if (!row) {
    row = std::make_unique<SyncRow>();
    row->v.resize(static_cast<size_t>(L * L));
    row->done.assign(static_cast<size_t>(L * L), 0);
  }
  const size_t idx = static_cast<size_t>(l * L + r);
  if (row->done[idx]) return row->v[idx];
  Sync si;
  double opt_s = 0, t = 0, tied = 0;
  for (int k : ring_kinds_[oi]) {
    const Kind& kx = kinds_.kind(k);
    const KindTable& tx = kinds_.table(kx);
    opt_s = std::max(opt_s, tx.at(tx.params, l, r) * tx.optimizer_s_per_param);
    if (r == L - 1 && l > 0) tied = std::max(tied, ctx_.tiedSeconds(kx, tx));
  }
  if (D_ >= 2)
    for (const auto& [pair, count] : ring_pairs_[oi]) {
      const Kind& kx = kinds_.kind(pair.first);
      const Kind& ky = kinds_.kind(pair.second);
      const KindTable& tx = kinds_.table(kx);
      const ResolvedLink& link = ctx_.linkBetween(kx.site, ky.site, kx.tp);
      const double shard = tx.at(tx.params, l, r) * 4.0;
      t = std::max(t, ringAllReduceSeconds(link, shard, D_, kx.tp, ctx_.opt.simulator));
      si.egress +=
          count * 2.0 * (D_ - 1) / D_ * shard * kx.tp / 1e9 * ctx_.egressBetween(kx.site, ky.site);
    }
  si.x = tied + t + opt_s;
  row->v[idx] = si;
  row->done[idx] = 1;
  return row->v[idx];
}

// Replica j of the receiving stage takes its input from replica j mod D of the sending one; the
// transfer time is the slowest pair's, both directions (activations forward, gradients back).
// Cached per (sending option's class, receiving option, layer): options of one class give the
// same figures (the class's first option computes them).
const StageOptionTable::Boundary& StageOptionTable::boundary(size_t prev_in, size_t oi, int l) {
  const size_t cls = static_cast<size_t>(prev_class_[prev_in]);
  auto& row = boundary_[cls * options_.size() + oi];
  if (!row) {
    row = std::make_unique<BoundaryRow>();
    row->v.resize(static_cast<size_t>(ctx_.layers));
    row->done.assign(static_cast<size_t>(ctx_.layers), 0);
  }
  if (row->done[static_cast<size_t>(l)]) return row->v[static_cast<size_t>(l)];
  const StageOption& po = options_[class_rep_[cls]];
  const StageOption& o = options_[oi];
  const KindTable& pt = kinds_.table(kinds_.kind(po.replicas[0]));
  const double msg =
      pt.out_elements[static_cast<size_t>(l - 1)] * b_ * ctx_.job.activationBytesPerElement();
  std::map<std::pair<int, int>, std::pair<double, double>> seen;
  double tt = 0, eg = 0;
  for (size_t j = 0; j < o.replicas.size(); ++j) {
    const int ka = po.replicas[j % po.replicas.size()];
    const int kc = o.replicas[j];
    auto it = seen.find({ka, kc});
    if (it == seen.end()) {
      const Kind& a = kinds_.kind(ka);
      const Kind& c = kinds_.kind(kc);
      const double t = std::max(ctx_.p2p(a, c, msg), ctx_.p2p(c, a, msg));
      const double g = msg * M_ / 1e9 *
                       (ctx_.egressBetween(a.site, c.site) + ctx_.egressBetween(c.site, a.site));
      it = seen.emplace(std::make_pair(ka, kc), std::make_pair(t, g)).first;
    }
    tt = std::max(tt, it->second.first);
    eg += it->second.second;
  }
  row->v[static_cast<size_t>(l)] = {tt, eg};
  row->done[static_cast<size_t>(l)] = 1;
  return row->v[static_cast<size_t>(l)];
}

// ---- LowerBounds.

LowerBounds::LowerBounds(const SearchContext& ctx, const KindSet& kinds, int D, int M,
                         const Known& known)
    : M_(M), max_stages_(ctx.maxDepth()), known_(known) {
  const int L = ctx.layers;
  const size_t n = static_cast<size_t>(L) + 1;
  pre_fb_.assign(n, 0);
  pre_w_.assign(n, 0);
  suf_fb_.assign(n, 0);
  suf_w_.assign(n, 0);
  for (const auto& kd : kinds.kinds)
    min_rate_ = std::min(min_rate_, kd.tp * ctx.site(kd.site).price());
  min_rate_ *= D;
  // Per layer, over every kind: the least F + B (lf) and the least tp x $/GPU-hour x F + B (lw).
  std::vector<double> lf(static_cast<size_t>(L), std::numeric_limits<double>::infinity()), lw = lf;
  for (const auto& kd : kinds.kinds) {
    const KindTable& t = kinds.table(kd);
    for (int j = 0; j < L; ++j) {
      const size_t u = static_cast<size_t>(j);
      lf[u] = std::min(lf[u], t.at(t.fb, j, j));
      lw[u] = std::min(lw[u], kd.tp * ctx.site(kd.site).price() * t.at(t.fb, j, j));
    }
  }
  for (int j = 0; j < L; ++j) {
    const size_t u = static_cast<size_t>(j);
    pre_fb_[u + 1] = pre_fb_[u] + lf[u];
    pre_w_[u + 1] = pre_w_[u] + D * lw[u];
  }
  for (int j = L - 1; j >= 0; --j) {
    const size_t u = static_cast<size_t>(j);
    suf_fb_[u] = suf_fb_[u + 1] + lf[u];
    suf_w_[u] = suf_w_[u + 1] + D * lw[u];
  }
}

bool LowerBounds::tooSlow(const SearchContext& ctx, const KindSet& kinds, int M) {
  const auto& floor = ctx.constraints.minIterationsPerS();
  if (!floor) return false;
  double fastest = std::numeric_limits<double>::infinity();
  for (const auto& kd : kinds.kinds) {
    const KindTable& t = kinds.table(kd);
    fastest = std::min(fastest, t.at(t.fb, 0, ctx.layers - 1));
  }
  return M * fastest / ctx.maxDepth() * *floor > 1.0;
}

LowerBounds::Prefix LowerBounds::prefix(int l, int k) const {
  Prefix p;
  p.fb = pre_fb_[static_cast<size_t>(l)];
  p.work = pre_w_[static_cast<size_t>(l)];
  p.rate = l > 0 ? min_rate_ : 0.0;
  p.maxc = l > 0 && max_stages_ > k ? p.fb / (max_stages_ - k) : 0.0;
  return p;
}

// Relaxed by 1e-12 against rounding.
bool LowerBounds::bounded(double mc, double sc, double mx, double rate, double work,
                          double egress) const {
  const double t_lb = (M_ - 1) * mc + sc + mx;
  const double c_lb = ((M_ - 1) * std::max(rate * mc, work) + rate * (sc + mx)) / 3600.0 + egress;
  return known_.prunes(t_lb * (1 - 1e-12), c_lb * (1 - 1e-12));
}

bool LowerBounds::stagePruned(int k, int r, double c0, double x, double rate, double egress,
                              const Prefix& p) const {
  const double s_fb = suf_fb_[static_cast<size_t>(r) + 1];
  const double s_mc = k > 1 ? s_fb / (k - 1) : 0.0;
  return bounded(std::max({c0, s_mc, p.maxc}), c0 + s_fb + p.fb, x,
                 rate + (k - 1) * min_rate_ + p.rate,
                 rate * c0 + suf_w_[static_cast<size_t>(r) + 1] + p.work, egress);
}

bool LowerBounds::partialPruned(const Summary& s, const Prefix& p) const {
  return bounded(std::max(s.maxc, p.maxc), s.sumc + p.fb, s.maxx, s.rate + p.rate, s.work + p.work,
                 s.egress);
}

// ---- PartialPlanSearch.

// A state's partial plans, with what every plan in it takes from the tracked sites: per site the
// most any of its plans uses (all its stages together), and the most GPUs of any plan.
struct PartialPlanSearch::StateSet {
  std::vector<Entry> entries;
  std::vector<std::pair<int, int>> max_use;  // (tracked site, GPUs), by site
  int max_gpus = 0;
};

// A stage choice of a state: option oi over [l, r] after the previous option, its figures.
struct PartialPlanSearch::Choice {
  int oi = 0;
  int r = 0;
  StageFigures stage;
};
struct PartialPlanSearch::Choices {
  std::vector<Choice> list;
};

namespace {
// Sums of at most k values of `uses` (with repetition) up to cap, ascending; empty when there
// are more than kMaxSums.
constexpr size_t kMaxSums = 4096;
std::vector<int> boundedSums(const std::vector<int>& uses, int k, int cap) {
  std::vector<int> level{0}, all{0};
  for (int step = 0; step < k; ++step) {
    std::vector<int> next;
    for (int x : level)
      for (int u : uses)
        if (x + u <= cap) next.push_back(x + u);
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    all.insert(all.end(), next.begin(), next.end());
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    if (all.size() > kMaxSums) return {};
    level = std::move(next);
  }
  return all;
}
}  // namespace

PartialPlanSearch::PartialPlanSearch(const SearchContext& ctx, const KindSet& kinds,
                                     StageOptionTable& options, const LowerBounds& bounds, int b,
                                     int M, bool cost_dims, const StopFlag& stop)
    : ctx_(ctx),
      kinds_(kinds),
      options_(options),
      bounds_(bounds),
      b_(b),
      M_(M),
      stop_(stop),
      L_(ctx.layers) {
  dims_.cost = cost_dims;
  // A GPU cap is accounted in the search state (used_[S]), so every partial plan of a state fits
  // the GPUs left: the count needs no dominance dimension.
  dims_.gpus = false;
  dims_.per_hour = ctx.opt.max_usd_per_hour.has_value();
  // A site whose GPUs cannot run out at this degree (every stage taking its largest use from it
  // still fits) needs no accounting: leaving it out of the key shrinks the state space without
  // changing any result.
  const size_t S = ctx.sites().size();
  const int depth = ctx.maxDepth();
  track_.assign(S, 0);
  max_use_.assign(S, 0);
  sums_.resize(S);
  for (size_t s = 0; s < S; ++s) {
    std::vector<int> uses;
    for (const auto& o : options_.options()) {
      max_use_[s] = std::max(max_use_[s], o.use[s]);
      if (o.use[s] > 0) uses.push_back(o.use[s]);
    }
    track_[s] = static_cast<long>(max_use_[s]) * depth > ctx.sites()[s].capacity ? 1 : 0;
    if (!track_[s]) continue;
    std::sort(uses.begin(), uses.end());
    uses.erase(std::unique(uses.begin(), uses.end()), uses.end());
    sums_[s].resize(static_cast<size_t>(depth) + 1);
    for (int k = 1; k <= depth; ++k)
      sums_[s][static_cast<size_t>(k)] = boundedSums(uses, k, ctx.sites()[s].capacity);
  }
  option_use_.resize(options_.size());
  for (size_t oi = 0; oi < options_.size(); ++oi) {
    const StageOption& o = options_[oi];
    max_opt_gpus_ = std::max(max_opt_gpus_, o.gpus);
    min_opt_gpus_ = std::min(min_opt_gpus_, o.gpus);
    for (size_t s = 0; s < S; ++s)
      if (track_[s] && o.use[s] > 0) option_use_[oi].push_back({static_cast<int>(s), o.use[s]});
  }
  // H2: from which layers some pipeline of k stages fits in memory, by the fit tables (a stage
  // choice whose rest cannot fit is never combined).
  const size_t W = static_cast<size_t>(L_) + 1;
  feasible_.assign((static_cast<size_t>(depth) + 1) * W, 1);
  if (ctx.opt.heuristics.h2_oom_pruning) {
    std::vector<int> count(W + 1, 0);  // feasible[k - 1] counted below each layer
    for (int k = 1; k <= depth; ++k) {
      const size_t row = static_cast<size_t>(k) * W;
      for (int l = 0; l <= L_; ++l) {
        bool any = false;
        for (size_t oi = 0; oi < options_.size() && !any && l < L_; ++oi) {
          if (k == 1) {
            any = stageFits(oi, 1, l, L_ - 1);
            continue;
          }
          // Some r in [l, L - k] with [l, r] fitting and a (k - 1)-stage rest from r + 1.
          int hi = L_ - k;
          for (int kx : options_[oi].replicas) {
            const Kind& kd = kinds_.kind(kx);
            hi = std::min(hi, kinds_.fitEnd(kd.table, std::min(k, M_), l));
          }
          if (hi >= l) any = count[static_cast<size_t>(hi) + 2] - count[static_cast<size_t>(l) + 1] > 0;
        }
        feasible_[row + static_cast<size_t>(l)] = any ? 1 : 0;
      }
      for (int x = 0; x <= L_; ++x)
        count[static_cast<size_t>(x) + 1] =
            count[static_cast<size_t>(x)] + feasible_[row + static_cast<size_t>(x)];
    }
  }
  const size_t n = (static_cast<size_t>(depth) + 1) * static_cast<size_t>(L_) *
                   (static_cast<size_t>(options_.prevClasses()) + 1);
  free_.resize(n);
  choices_.resize(n);
}

PartialPlanSearch::~PartialPlanSearch() = default;

bool PartialPlanSearch::depthFits(int P) const {
  return !(ctx_.opt.max_gpus && static_cast<long>(P) * min_opt_gpus_ > *ctx_.opt.max_gpus);
}

const std::vector<Entry>& PartialPlanSearch::pipelines(int P) {
  used_.assign(ctx_.sites().size() + 1, 0);
  return solve(P, 0, -1).entries;
}

size_t PartialPlanSearch::flatIndex(int k, int l, int prev) const {
  const size_t cls = prev < 0 ? 0 : static_cast<size_t>(options_.prevClass(static_cast<size_t>(prev))) + 1;
  return (static_cast<size_t>(k) * static_cast<size_t>(L_) + static_cast<size_t>(l)) *
             (static_cast<size_t>(options_.prevClasses()) + 1) +
         cls;
}

// With k stages left, what is left of a site matters only as the largest total that at most k
// options can take from it: all usages with the same such total are the same state (likewise,
// by the older rule, for the GPU cap, used_[S]).
std::vector<int> PartialPlanSearch::stateKey(int k, int l, int prev) const {
  const size_t S = ctx_.sites().size();
  std::vector<int> key;
  key.reserve(S + 3);
  key.push_back(k);
  key.push_back(l);
  key.push_back(prev < 0 ? -1 : options_.prevClass(static_cast<size_t>(prev)));
  for (size_t s = 0; s < S; ++s) {
    if (!track_[s]) continue;
    const int cap = ctx_.sites()[s].capacity;
    const std::vector<int>& sums = sums_[s][static_cast<size_t>(k)];
    if (sums.empty()) {
      key.push_back(std::max(used_[s], cap - k * max_use_[s]));
      continue;
    }
    const int left = cap - used_[s];
    key.push_back(*(std::upper_bound(sums.begin(), sums.end(), left) - 1));
  }
  if (ctx_.opt.max_gpus) key.push_back(std::max(used_[S], *ctx_.opt.max_gpus - k * max_opt_gpus_));
  return key;
}

bool PartialPlanSearch::usesNothing() const {
  const size_t S = ctx_.sites().size();
  for (size_t s = 0; s < S; ++s)
    if (track_[s] && used_[s] > 0) return false;
  return !ctx_.opt.max_gpus || used_[S] == 0;
}

bool PartialPlanSearch::compatible(const StateSet& set) const {
  for (const auto& [s, u] : set.max_use)
    if (used_[static_cast<size_t>(s)] + u > ctx_.sites()[static_cast<size_t>(s)].capacity)
      return false;
  return !ctx_.opt.max_gpus || used_[ctx_.sites().size()] + set.max_gpus <= *ctx_.opt.max_gpus;
}

bool PartialPlanSearch::hasRoom(const StageOption& o, int k) const {
  const size_t S = ctx_.sites().size();
  bool room = true;
  for (size_t s = 0; s < S; ++s)
    room = room && (!track_[s] || used_[s] + o.use[s] <= ctx_.sites()[s].capacity);
  // The k - 1 stages after this one take at least the smallest option's GPUs each.
  if (ctx_.opt.max_gpus && used_[S] + o.gpus + (k - 1) * min_opt_gpus_ > *ctx_.opt.max_gpus)
    room = false;
  return room;
}

bool PartialPlanSearch::stageFits(size_t oi, int k, int l, int r) const {
  const int f = std::min(k, M_);
  int last_kind = -1;
  for (int kidx : options_[oi].replicas) {
    if (kidx == last_kind) continue;  // replicas of one kind: same figures
    last_kind = kidx;
    if (!kinds_.fits(kinds_.kind(kidx).table, f, l, r)) return false;
  }
  return true;
}

double PartialPlanSearch::stageFb(const StageOption& o, int l, int r) const {
  double fb = 0;
  int last_kind = -1;
  for (int kidx : o.replicas) {
    if (kidx == last_kind) continue;
    last_kind = kidx;
    const KindTable& t = kinds_.table(kinds_.kind(kidx));
    fb = std::max(fb, t.at(t.fb, l, r));
  }
  return fb;
}

// The set of a state under the usage before it, u. A set of non-dominated plans under a usage
// that counts only some sites (any subset T of u's) holds plans of a larger space; when all of
// them also fit beside u, it is the set under u itself. So the state is solved under u restricted
// to T, T growing from nothing by the sites whose GPUs the last set's plans would overrun, until
// a set fits beside u: states differing only in sites no good plan of theirs would overrun are
// one state.
const PartialPlanSearch::StateSet& PartialPlanSearch::solve(int k, int l, int prev) {
  std::unique_ptr<StateSet>& free_set = free_[flatIndex(k, l, prev)];
  if (!free_set) {
    std::vector<int> saved(used_.size(), 0);
    saved.swap(used_);
    free_set.reset(compute(k, l, prev));
    saved.swap(used_);
  }
  if (usesNothing() || compatible(*free_set)) return *free_set;
  const size_t S = ctx_.sites().size();
  std::vector<int> full = used_;
  std::vector<int> part(used_.size(), 0);  // u restricted to T
  const StateSet* set = free_set.get();
  while (true) {
    // Add to T the sites (and the GPU cap) that the set's plans would overrun under u. (A set
    // solved under T fits beside u on T's sites, so T grows each time; should it not, u
    // itself.)
    const std::vector<int> before = part;
    for (const auto& [s, u] : set->max_use)
      if (full[static_cast<size_t>(s)] + u > ctx_.sites()[static_cast<size_t>(s)].capacity)
        part[static_cast<size_t>(s)] = full[static_cast<size_t>(s)];
    if (ctx_.opt.max_gpus && full[S] + set->max_gpus > *ctx_.opt.max_gpus) part[S] = full[S];
    if (part == before) part = full;
    used_.swap(part);
    std::vector<int> key = stateKey(k, l, prev);
    auto it = memo_.find(key);
    if (it == memo_.end())
      it = memo_.emplace(std::move(key), std::unique_ptr<StateSet>(compute(k, l, prev))).first;
    used_.swap(part);
    set = it->second.get();
    if (compatible(*set)) return *set;
  }
}

PartialPlanSearch::StateSet* PartialPlanSearch::compute(int k, int l, int prev) {
  // One degree can take a minute on large scenarios: honour a cancel every 256 new states.
  if ((++new_states_ & 255) == 0 && stop_()) throw Cancelled();
  const LowerBounds::Prefix p = bounds_.prefix(l, k);
  std::vector<Entry> pool;  // every combination of this state, before dominance
  for (const Choice& ch : choices(k, l, prev).list)
    if (hasRoom(options_[static_cast<size_t>(ch.oi)], k)) combine(ch, k, p, pool);
  auto set = std::make_unique<StateSet>();
  set->entries = reduce(pool);
  // Deterministic order inside a set.
  std::sort(set->entries.begin(), set->entries.end(), [](const Entry& a, const Entry& b2) {
    return std::tie(a.s.maxc, a.s.sumc, a.s.maxx, a.s.rate, a.s.egress, a.option, a.last_layer) <
           std::tie(b2.s.maxc, b2.s.sumc, b2.s.maxx, b2.s.rate, b2.s.egress, b2.option,
                    b2.last_layer);
  });
  // What its plans take from the tracked sites, all stages together.
  std::vector<std::pair<int, int>> use;
  for (const Entry& en : set->entries) {
    use.clear();
    for (const Entry* e = &en; e;
         e = e->child ? &(*e->child)[static_cast<size_t>(e->child_index)] : nullptr)
      for (const auto& [s, u] : option_use_[static_cast<size_t>(e->option)]) {
        auto it = std::find_if(use.begin(), use.end(), [&](const auto& x) { return x.first == s; });
        if (it == use.end()) use.push_back({s, u});
        else it->second += u;
      }
    for (const auto& [s, u] : use) {
      auto it = std::find_if(set->max_use.begin(), set->max_use.end(),
                             [&](const auto& x) { return x.first == s; });
      if (it == set->max_use.end()) set->max_use.push_back({s, u});
      else it->second = std::max(it->second, u);
    }
    set->max_gpus = std::max(set->max_gpus, en.s.gpus);
  }
  return set.release();
}

// The stage choices of (k, l, previous class) that fit (H2), leave a rest that can fit (H2) and
// pass the known-plan bound, in option then layer order, for every usage of the state. Listed
// under the bound known when first asked; the bound only tightens, so the list stays a superset.
const PartialPlanSearch::Choices& PartialPlanSearch::choices(int k, int l, int prev) {
  std::unique_ptr<Choices>& slot = choices_[flatIndex(k, l, prev)];
  if (slot) return *slot;
  slot = std::make_unique<Choices>();
  const bool h2 = ctx_.opt.heuristics.h2_oom_pruning;
  const int r_max = L_ - k;  // leave k - 1 layers for the stages after this one
  const int r_min = k == 1 ? L_ - 1 : l;
  const size_t W = static_cast<size_t>(L_) + 1;
  const LowerBounds::Prefix p = bounds_.prefix(l, k);
  for (size_t oi = 0; oi < options_.size(); ++oi) {
    const StageOption& o = options_[oi];
    for (int r = r_min; r <= r_max; ++r) {
      const bool fits = stageFits(oi, k, l, r);
      if (h2 && (!fits || (k > 1 && !feasible_[static_cast<size_t>(k - 1) * W +
                                               static_cast<size_t>(r) + 1])))
        continue;
      const double fb = stageFb(o, l, r);
      // Incoming boundary from the previous stage (its last layer is l - 1).
      StageOptionTable::Boundary in;
      if (prev >= 0) in = options_.boundary(static_cast<size_t>(prev), oi, l);
      const StageOptionTable::Sync& si = options_.sync(oi, l, r);
      const StageFigures stage{fb, in.t, si.x, o.rate, si.egress + in.egress, o.gpus, fits};
      if (bounds_.stagePruned(k, r, fb + 2 * in.t, si.x, o.rate, stage.egress, p)) continue;
      slot->list.push_back({static_cast<int>(oi), r, stage});
    }
  }
  return *slot;
}

// A stage choice as the stage with k stages left, combined with every partial plan of the rest
// (k - 1 stages from layer r + 1); what survives the bounds goes to pool.
void PartialPlanSearch::combine(const Choice& ch, int k, const LowerBounds::Prefix& p,
                                std::vector<Entry>& pool) {
  const StageOption& o = options_[static_cast<size_t>(ch.oi)];
  auto add = [&](const Summary* child, const std::vector<Entry>* cset, int cidx) {
    Entry en;
    en.s = extendSummary(ch.stage, child);
    if (bounds_.partialPruned(en.s, p)) return;
    // Exact bounds: completing a partial plan only adds stages, so its iteration time is at
    // least (M - 1) max c + sum c + max x, and its cost at least rate x that + egress.
    const double t_lb = (M_ - 1) * en.s.maxc + en.s.sumc + en.s.maxx;
    if (!ctx_.constraints.admitsBound(t_lb, en.s.rate * t_lb / 3600.0 + en.s.egress, en.s.gpus))
      return;
    en.option = ch.oi;
    en.last_layer = ch.r;
    en.child = cset;
    en.child_index = cidx;
    pool.push_back(en);
  };
  if (k == 1) {
    add(nullptr, nullptr, -1);
    return;
  }
  const size_t S = ctx_.sites().size();
  for (size_t s = 0; s < S; ++s) used_[s] += track_[s] ? o.use[s] : 0;
  used_[S] += o.gpus;
  const std::vector<Entry>& cs = solve(k - 1, ch.r + 1, ch.oi).entries;
  used_[S] -= o.gpus;
  for (size_t s = 0; s < S; ++s) used_[s] -= track_[s] ? o.use[s] : 0;
  for (size_t ci = 0; ci < cs.size(); ++ci) add(&cs[ci].s, &cs, static_cast<int>(ci));
}

// H10: at most max_partial_plans non-dominated entries, taken in order of the objective's lower
// bound (half by iteration time, half by cost when cost matters).
std::vector<Entry> PartialPlanSearch::reduce(std::vector<Entry>& pool) const {
  std::vector<Entry> set;
  const size_t cap = static_cast<size_t>(std::max(0, ctx_.opt.heuristics.max_partial_plans));
  if (cap == 0 || pool.size() <= cap) {
    for (const auto& en : pool) insertPareto(set, en, dims_);
    return set;
  }
  const int M = M_;
  auto t_lb = [M](const Entry& x) { return (M - 1) * x.s.maxc + x.s.sumc + x.s.maxx; };
  auto c_lb = [&](const Entry& x) { return x.s.rate * t_lb(x) / 3600.0 + x.s.egress; };
  auto tie = [](const Entry& a, const Entry& b2) {
    return std::tie(a.s.maxc, a.s.sumc, a.s.rate, a.s.egress, a.option, a.last_layer,
                    a.child_index) < std::tie(b2.s.maxc, b2.s.sumc, b2.s.rate, b2.s.egress,
                                              b2.option, b2.last_layer, b2.child_index);
  };
  auto sweep = [&](bool by_cost, size_t limit) {
    std::stable_sort(pool.begin(), pool.end(), [&](const Entry& a, const Entry& b2) {
      const double x = by_cost ? c_lb(a) : t_lb(a), y = by_cost ? c_lb(b2) : t_lb(b2);
      return x != y ? x < y : tie(a, b2);
    });
    for (const auto& en : pool) {
      if (set.size() >= limit) break;
      bool dominated = false;
      for (const auto& x : set)
        dominated = dominated || dominates(x.s, en.s, dims_) || dominates(en.s, x.s, dims_);
      if (!dominated) set.push_back(en);
    }
  };
  const bool cost_first = ctx_.opt.objective == Objective::Cost;
  if (dims_.cost) {
    sweep(cost_first, cap / 2);
    sweep(!cost_first, cap);
  } else {
    sweep(false, cap);
  }
  return set;
}

// ---- searchDegree.

namespace {

// The plan of a complete entry: its stages from layer 0, replicas by kind, sites alongside.
void writePlan(const KindSet& kinds, const SearchContext& ctx, const StageOptionTable& options,
               const Entry& en, Candidate& c) {
  const Entry* cur = &en;
  int first = 0;
  while (cur) {
    Stage st;
    st.first_layer = first;
    st.last_layer = cur->last_layer;
    std::vector<int> sites;
    for (int kidx : options[static_cast<size_t>(cur->option)].replicas) {
      const Kind& kd = kinds.kind(kidx);
      st.replicas.push_back({ctx.site(kd.site).gpu_type, kd.tp, ""});
      sites.push_back(kd.site);
    }
    c.plan.stages.push_back(std::move(st));
    c.sites.push_back(std::move(sites));
    first = cur->last_layer + 1;
    cur = cur->child ? &(*cur->child)[static_cast<size_t>(cur->child_index)] : nullptr;
  }
}

}  // namespace

void searchDegree(const SearchContext& ctx, const KindSet& kinds, int b, int D, bool cost_dims,
                  Known& known, const StopFlag& stop, std::vector<Candidate>& found,
                  long& compared) {
  const int M = ctx.microbatches(b, D);
  if (LowerBounds::tooSlow(ctx, kinds, M)) return;
  StageOptionTable options(ctx, kinds, b, D);
  if (options.empty()) return;
  const LowerBounds bounds(ctx, kinds, D, M, known);
  PartialPlanSearch dp(ctx, kinds, options, bounds, b, M, cost_dims, stop);
  for (int P = 1; P <= ctx.maxDepth(); ++P) {
    if (!dp.depthFits(P)) break;
    const size_t found_before = found.size();
    for (const Entry& en : dp.pipelines(P)) {
      ++compared;
      if (!en.s.fits) continue;
      Candidate c;
      completeFigures(en.s, M, c);
      if (!ctx.constraints.admits(1.0 / c.iteration_s, c.usd, c.usd_per_hour, en.s.gpus)) continue;
      c.microbatch = b;
      c.dp = D;
      c.plan.microbatch_size = b;
      writePlan(kinds, ctx, options, en, c);
      c.key = searchKey(c);
      found.push_back(std::move(c));
    }
    // The plans of this depth bound the deeper ones (partial plans computed under the weaker
    // bound stay valid: the bound only tightens).
    for (size_t i = found_before; i < found.size(); ++i)
      known.add(knownKey(found[i]), found[i].iteration_s, found[i].usd);
  }
}

}  // namespace sailor::planner_detail
