// One data-parallel degree of the planner's search (classes in planner_internal.hpp):
//   StageOptionTable    the degree's stage options (H5, H8, GPU cap), their sync figures per
//                       layer range and boundary transfers per option pair, cached
//   LowerBounds         what uncovered layers must add; pruning against the known plans
//   PartialPlanSearch   the memoized dynamic programme over (stages left, first layer, GPUs
//                       used, previous option's class), states solved free of the usage before
//                       them, stage choices listed once per (k, l), H2 and H10 applied
//   searchDegree        drives it depth by depth and writes out the complete plans
#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <tuple>

#include "planner_internal.hpp"
#include "sailor/core/error.hpp"

namespace sailor::planner_detail {

// ---- StageOptionTable.

StageOptionTable::StageOptionTable(const SearchContext& ctx, const KindSet& kinds, int b, int D)
    : ctx_(ctx), kinds_(kinds), b_(b), D_(D), M_(ctx.microbatches(b, D)) {
  enumerate();
  ring_pairs_.resize(options_.size());
  bool one_kind = true;
  for (size_t oi = 0; oi < options_.size(); ++oi) {
    const auto& reps = options_[oi].replicas;
    std::map<std::pair<int, int>, int> pairs;
    for (size_t j = 0; j < reps.size(); ++j) {
      pairs[{reps[j], reps[(j + 1) % reps.size()]}]++;
    }
    ring_pairs_[oi].assign(pairs.begin(), pairs.end());
    one_kind = one_kind && options_[oi].kinds.size() == 1;
  }
  one_kind_ = one_kind;
  // Boundary classes: with one kind per option the kinds' classes; otherwise (mixed stages,
  // small instances) each option its own.
  std::map<int, int> cls;
  for (size_t oi = 0; oi < options_.size(); ++oi) {
    const int key = one_kind ? kinds_.boundary_class[static_cast<size_t>(options_[oi].kinds[0])]
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
    if (o.kinds.empty() || o.kinds.back() != k) o.kinds.push_back(k);
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
  const bool scheduled = !ctx_.schedule.isDefault();
  for (int k : options_[oi].kinds) {
    const Kind& kx = kinds_.kind(k);
    const KindTable& tx = kinds_.table(kx);
    if (!scheduled)
      opt_s = std::max(opt_s, stepSeconds(tx.optimizer_s_per_param, tx.at(tx.params, l, r), D_,
                                          *ctx_.site(kx.site).gpu));
    if (r == L - 1 && l > 0) tied = std::max(tied, ctx_.tiedSeconds(kx, tx));
  }
  if (D_ >= 2)
    for (const auto& [pair, count] : ring_pairs_[oi]) {
      const Kind& kx = kinds_.kind(pair.first);
      const Kind& ky = kinds_.kind(pair.second);
      const KindTable& tx = kinds_.table(kx);
      const ResolvedLink& link = ctx_.linkBetween(kx.site, ky.site, kx.tp);
      const double shard = tx.at(tx.params, l, r) * 4.0;
      t = std::max(t, ringAllReduceSeconds(link, shard, D_, kx.tp, ctx_.opt.simulator,
                                           collectiveBusBytesPerS(*ctx_.site(kx.site).gpu,
                                                                  *ctx_.site(ky.site).gpu)));
      si.egress += count * 2.0 * (D_ - 1) / D_ * shard * kx.tp / 1e9 *
                   ctx_.egressBetween(kx.site, ky.site) * syncEgressFactor(ctx_);
    }
  if (scheduled) {  // the wait and the step under the schedule, the slowest kind's each
    double wait = 0;
    for (int k : options_[oi].kinds) {
      const Kind& kx = kinds_.kind(k);
      const KindTable& tx = kinds_.table(kx);
      const double fw = tx.at(tx.fwd, l, r);
      const DataParallelFigures f =
          stageDataParallel(ctx_, t, tx.at(tx.params, l, r), D_, tx.optimizer_s_per_param,
                            *ctx_.site(kx.site).gpu, fw, tx.at(tx.fb, l, r) - fw);
      wait = std::max(wait, f.sync_s);
      opt_s = std::max(opt_s, f.step_s);
    }
    t = wait;
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
  if (one_kind_) {
    // One kind each side: every replica pair alike, the figures a function of the message size.
    // The whole row at once, each distinct message size figured once.
    const Kind& a = kinds_.kind(po.replicas[0]);
    const Kind& c = kinds_.kind(o.replicas[0]);
    const KindTable& pt = kinds_.table(a);
    const double eg_ac = ctx_.egressBetween(a.site, c.site) + ctx_.egressBetween(c.site, a.site);
    double last_msg = -1, tt = 0, g = 0;
    for (int x = 1; x < ctx_.layers; ++x) {
      const double msg =
          pt.out_elements[static_cast<size_t>(x - 1)] * b_ * ctx_.job.activationBytesPerElement();
      if (msg != last_msg) {
        tt = std::max(ctx_.p2p(a, c, msg), ctx_.p2p(c, a, msg));
        g = msg * M_ / 1e9 * eg_ac;
        last_msg = msg;
      }
      double eg = 0;
      for (size_t j = 0; j < o.replicas.size(); ++j) eg += g;
      row->v[static_cast<size_t>(x)] = {tt, eg};
      row->done[static_cast<size_t>(x)] = 1;
    }
    return row->v[static_cast<size_t>(l)];
  }
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
                         KnownBound known)
    : M_(M), max_stages_(ctx.maxDepth()), known_(known), reads_cost_(known.readsCost()) {
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
  if (!reads_cost_) return known_.prunes(t_lb * (1 - 1e-12), 0.0);  // the cost bound unread
  const double c_lb = ((M_ - 1) * std::max(rate * mc, work) + rate * (sc + mx)) / 3600.0 + egress;
  return known_.prunes(t_lb * (1 - 1e-12), c_lb * (1 - 1e-12));
}

inline bool LowerBounds::stagePruned(int k, int r, double c0, double x, double rate, double egress,
                                     const Prefix& p) const {
  const double s_fb = suf_fb_[static_cast<size_t>(r) + 1];
  const double s_mc = k > 1 ? s_fb / (k - 1) : 0.0;
  return bounded(std::max({c0, s_mc, p.maxc}), c0 + s_fb + p.fb, x,
                 rate + (k - 1) * min_rate_ + p.rate,
                 rate * c0 + suf_w_[static_cast<size_t>(r) + 1] + p.work, egress);
}

inline bool LowerBounds::partialPruned(const Summary& s, const Prefix& p) const {
  return bounded(std::max(s.maxc, p.maxc), s.sumc + p.fb, s.maxx, s.rate + p.rate, s.work + p.work,
                 s.egress);
}

// ---- PartialPlanSearch.

// A state's partial plans, with what every plan in it takes from the tracked sites: per site the
// most any of its plans uses (all its stages together), and the most GPUs of any plan.
struct PartialPlanSearch::StateSet {
  std::span<const Entry> entries;
  std::span<const std::pair<int, int>> max_use;  // (tracked site, GPUs), by site
  int max_gpus = 0;
  int maxUse(int site) const;
};

// A state's last lookup under a usage (solve): the usage on the sites that mattered, sorted by
// site, and the set it found.
struct PartialPlanSearch::LastLookup {
  static constexpr size_t kParts = 4;
  std::array<std::pair<int, int>, kParts> part{};
  std::uint32_t n = 0;
  int gpus = 0;
  StateSet* set = nullptr;
  bool matches(const std::vector<std::pair<int, int>>& p, int g) const {
    return p.size() == n && g == gpus && std::equal(p.begin(), p.end(), part.begin());
  }
  void store(const std::vector<std::pair<int, int>>& p, int g, StateSet* s) {
    std::copy(p.begin(), p.end(), part.begin());
    n = static_cast<std::uint32_t>(p.size());
    gpus = g;
    set = s;
  }
};

// A stage choice of a state: option oi over [l, r] after the previous option, its figures.
struct PartialPlanSearch::Choice {
  int oi = 0;
  int r = 0;
  StageFigures stage;
};
struct PartialPlanSearch::Choices {
  std::span<const Choice> list;  // in the arena
  bool listed = false;
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
  capacity_.resize(S);
  for (size_t s = 0; s < S; ++s) capacity_[s] = ctx.sites()[s].capacity;
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
          for (int kx : options_[oi].kinds) {
            const Kind& kd = kinds_.kind(kx);
            hi = std::min(hi, kinds_.fitEnd(kd.table, std::min(k, M_), l));
          }
          if (hi >= l)
            any = count[static_cast<size_t>(hi) + 2] - count[static_cast<size_t>(l) + 1] > 0;
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
  last_.resize(n);
  choices_.resize(n);
  base_.resize((static_cast<size_t>(depth) + 1) * static_cast<size_t>(L_));
  scratch_.resize(static_cast<size_t>(depth) + 1);
}

PartialPlanSearch::~PartialPlanSearch() = default;

bool PartialPlanSearch::depthFits(int P) const {
  return !(ctx_.opt.max_gpus && static_cast<long>(P) * min_opt_gpus_ > *ctx_.opt.max_gpus);
}

std::span<const Entry> PartialPlanSearch::pipelines(int P) {
  used_.assign(ctx_.sites().size(), 0);
  active_.clear();
  gpus_used_ = 0;
  return solve(P, 0, -1).entries;
}

size_t PartialPlanSearch::flatIndex(int k, int l, int prev) const {
  const size_t cls =
      prev < 0 ? 0 : static_cast<size_t>(options_.prevClass(static_cast<size_t>(prev))) + 1;
  return (static_cast<size_t>(k) * static_cast<size_t>(L_) + static_cast<size_t>(l)) *
             (static_cast<size_t>(options_.prevClasses()) + 1) +
         cls;
}

// With k stages left, what is left of a site matters only as the largest total that at most k
// options can take from it: all usages with the same such total are the same state (likewise,
// by the older rule, for the GPU cap). The key lists, by site, the sites of `part` whose total
// differs from an unused site's.
void PartialPlanSearch::stateKey(int k, int l, int prev,
                                 const std::vector<std::pair<int, int>>& part, int gpus,
                                 std::vector<int>& key) const {
  key.clear();
  key.push_back(k);
  key.push_back(l);
  key.push_back(prev < 0 ? -1 : options_.prevClass(static_cast<size_t>(prev)));
  for (const auto& [s, u] : part) {
    const int cap = capacity_[static_cast<size_t>(s)];
    const std::vector<int>& sums = sums_[static_cast<size_t>(s)][static_cast<size_t>(k)];
    int v = 0, v0 = 0;
    if (sums.empty()) {
      v = std::max(u, cap - k * max_use_[static_cast<size_t>(s)]);
      v0 = std::max(0, cap - k * max_use_[static_cast<size_t>(s)]);
    } else {
      v = *(std::upper_bound(sums.begin(), sums.end(), cap - u) - 1);
      v0 = sums.back();
    }
    if (v == v0) continue;
    key.push_back(s);
    key.push_back(v);
  }
  if (ctx_.opt.max_gpus) key.push_back(std::max(gpus, *ctx_.opt.max_gpus - k * max_opt_gpus_));
}

namespace {
std::uint64_t hashKey(const std::vector<int>& v) {
  std::uint64_t h = 1469598103934665603ULL;
  for (int x : v) h = (h ^ static_cast<std::uint64_t>(static_cast<unsigned>(x))) * 1099511628211ULL;
  // Mix the high bits down (murmur3's finalizer): slot indices take the low ones.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h;
}
}  // namespace

// Open addressing with linear probing over slots holding the key's hash, where its ints lie in
// one arena, and its set: a lookup touches one or two slots and compares ints only when the
// hashes agree (a node-based map chased a pointer per probe and allocated per state).
PartialPlanSearch::StateSet* PartialPlanSearch::Memo::find(const std::vector<int>& key,
                                                           std::uint64_t h) const {
  if (table.empty()) return nullptr;
  const size_t mask = table.size() - 1;
  for (size_t i = static_cast<size_t>(h) & mask;; i = (i + 1) & mask) {
    const Slot& sl = table[i];
    if (!sl.set) return nullptr;
    if (sl.hash == h && sl.len == key.size() &&
        std::equal(key.begin(), key.end(), ints.begin() + static_cast<std::ptrdiff_t>(sl.at)))
      return sl.set;
  }
}

void PartialPlanSearch::Memo::insert(const std::vector<int>& key, std::uint64_t h, StateSet* set) {
  if (2 * (count + 1) > table.size()) {  // load at most 1/2
    std::vector<Slot> old(std::max<size_t>(64, 2 * table.size()));
    old.swap(table);
    const size_t mask = table.size() - 1;
    for (const Slot& sl : old) {
      if (!sl.set) continue;
      size_t i = static_cast<size_t>(sl.hash) & mask;
      while (table[i].set) i = (i + 1) & mask;
      table[i] = sl;
    }
  }
  const size_t mask = table.size() - 1;
  size_t i = static_cast<size_t>(h) & mask;
  while (table[i].set) i = (i + 1) & mask;
  table[i] = {h, ints.size(), static_cast<std::uint32_t>(key.size()), set};
  ints.insert(ints.end(), key.begin(), key.end());
  ++count;
}

int PartialPlanSearch::StateSet::maxUse(int site) const {
  auto it = std::lower_bound(max_use.begin(), max_use.end(), std::make_pair(site, 0));
  return it != max_use.end() && it->first == site ? it->second : 0;
}

inline bool PartialPlanSearch::compatible(const StateSet& set) const {
  // Over the set's sites rather than the active ones: a site the stages before use and no plan
  // of the set uses fits as it did (usage only grows through hasRoom), and one that only the set
  // uses fits on its own (its plans were solved within the capacities).
  for (const auto& [s, u] : set.max_use) {
    const int before = used_[static_cast<size_t>(s)];
    if (before != 0 && before + u > capacity_[static_cast<size_t>(s)]) return false;
  }
  return !ctx_.opt.max_gpus || gpus_used_ + set.max_gpus <= *ctx_.opt.max_gpus;
}

inline bool PartialPlanSearch::hasRoom(size_t oi, int k) const {
  for (const auto& [s, u] : option_use_[oi])
    if (used_[static_cast<size_t>(s)] + u > capacity_[static_cast<size_t>(s)]) return false;
  // The k - 1 stages after this one take at least the smallest option's GPUs each.
  return !(ctx_.opt.max_gpus &&
           gpus_used_ + options_[oi].gpus + (k - 1) * min_opt_gpus_ > *ctx_.opt.max_gpus);
}

inline void PartialPlanSearch::use(size_t oi, int sign) {
  for (const auto& [s, u] : option_use_[oi]) {
    int& x = used_[static_cast<size_t>(s)];
    if (x == 0) active_.push_back(s);
    x += sign * u;
    if (x == 0) active_.erase(std::find(active_.begin(), active_.end(), s));
  }
  gpus_used_ += sign * options_[oi].gpus;
}

// Runs f with the usage restricted to the sites of `part` (and the GPU count `gpus`); k names
// the caller's scratch (calls nest with fewer stages left).
template <class F>
void PartialPlanSearch::withUsage(int k, const std::vector<std::pair<int, int>>& part, int gpus,
                                  F f) {
  Scratch& sc = scratch_[static_cast<size_t>(k)];
  sc.saved_active.clear();
  sc.saved_active.swap(active_);
  sc.saved.clear();
  for (int s : sc.saved_active) sc.saved.push_back({s, used_[static_cast<size_t>(s)]});
  for (int s : sc.saved_active) used_[static_cast<size_t>(s)] = 0;
  for (const auto& [s, u] : part) {
    used_[static_cast<size_t>(s)] = u;
    if (u > 0) active_.push_back(s);
  }
  const int saved_gpus = gpus_used_;
  gpus_used_ = gpus;
  f();
  for (const auto& [s, u] : part) used_[static_cast<size_t>(s)] = 0;
  for (const auto& [s, u] : sc.saved) used_[static_cast<size_t>(s)] = u;
  active_.swap(sc.saved_active);
  gpus_used_ = saved_gpus;
}

bool PartialPlanSearch::stageFits(size_t oi, int k, int l, int r) const {
  const int f = std::min(k, M_);
  for (int kidx : options_[oi].kinds)  // replicas of one kind: same figures
    if (!kinds_.fits(kinds_.kind(kidx).table, f, l, r)) return false;
  return true;
}

double PartialPlanSearch::stageFb(const StageOption& o, int l, int r) const {
  double fb = 0;
  for (int kidx : o.kinds) {
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
  const size_t at = flatIndex(k, l, prev);
  StateSet*& free_set = free_[at];
  if (!free_set) withUsage(k, {}, 0, [&] { free_set = compute(k, l, prev); });
  if ((active_.empty() && gpus_used_ == 0) || compatible(*free_set)) return *free_set;
  std::vector<std::pair<int, int>>& part = scratch_[static_cast<size_t>(k)].part;  // u on T
  part.clear();
  int part_gpus = 0;
  std::vector<int>& key = scratch_[static_cast<size_t>(k)].key;
  const StateSet* set = free_set;
  while (true) {
    // Add to T the sites (and the GPU cap) that the set's plans would overrun under u. (A set
    // solved under T fits beside u on T's sites, so T grows each time; should it not, u
    // itself.)
    const bool first = set == free_set;
    const size_t before = part.size();
    const int before_gpus = part_gpus;
    for (int s : active_)
      if (used_[static_cast<size_t>(s)] + set->maxUse(s) > capacity_[static_cast<size_t>(s)] &&
          std::none_of(part.begin(), part.end(), [&](const auto& x) { return x.first == s; }))
        part.push_back({s, used_[static_cast<size_t>(s)]});
    if (ctx_.opt.max_gpus && gpus_used_ + set->max_gpus > *ctx_.opt.max_gpus)
      part_gpus = gpus_used_;
    if (part.size() == before && part_gpus == before_gpus) {
      part.clear();
      for (int s : active_) part.push_back({s, used_[static_cast<size_t>(s)]});
      part_gpus = gpus_used_;
    }
    if (part.size() > 1) std::sort(part.begin(), part.end());
    // The state's last first lookup: the same usage on the same sites finds the same set (memo
    // entries never change), without its key, hash and probe; nearly half of the lookups repeat
    // the one before.
    LastLookup*& last = last_[at];
    StateSet* found = nullptr;
    if (first && last && last->matches(part, part_gpus)) {
      found = last->set;
    } else {
      stateKey(k, l, prev, part, part_gpus, key);
      const std::uint64_t h = hashKey(key);
      found = memo_.find(key, h);
      if (!found) {
        StateSet* fresh = nullptr;
        withUsage(k, part, part_gpus, [&] { fresh = compute(k, l, prev); });
        found = fresh;
        memo_.insert(key, h, fresh);
      }
      if (first && part.size() <= LastLookup::kParts) {
        if (!last) last = new (arena_.allocate(sizeof(LastLookup), alignof(LastLookup))) LastLookup;
        last->store(part, part_gpus, found);
      }
    }
    set = found;
    if (compatible(*set)) return *set;
  }
}

PartialPlanSearch::StateSet* PartialPlanSearch::compute(int k, int l, int prev) {
  // One degree can take a minute on large scenarios: honour a cancel or the time limit every 16
  // new states (a clock read and two atomic loads; under 0.1 % of a state's work).
  if ((++new_states_ & 15) == 0) stop_.check();
  const LowerBounds::Prefix p = bounds_.prefix(l, k);
  // Every combination of this state, before dominance (a buffer per k: the states solved while
  // this one is filled have fewer stages left).
  std::vector<Entry>& pool = scratch_[static_cast<size_t>(k)].pool;
  pool.clear();
  // The choices come option by option: an option's GPUs are added to the usage once for all of
  // its layer ranges (each range's suffix is solved under the same usage).
  const std::span<const Choice> list = choices(k, l, prev);
  for (size_t i = 0; i < list.size();) {
    const size_t oi = static_cast<size_t>(list[i].oi);
    size_t end = i + 1;
    while (end < list.size() && static_cast<size_t>(list[end].oi) == oi) ++end;
    if (hasRoom(oi, k)) {
      if (k > 1) use(oi, 1);
      for (; i < end; ++i) combine(list[i], k, p, pool);
      if (k > 1) use(oi, -1);
    }
    i = end;
  }
  std::vector<Entry>& entries = reduce(pool);
  // Deterministic order inside a set.
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b2) {
    return std::tie(a.s.maxc, a.s.sumc, a.s.maxx, a.s.rate, a.s.egress, a.option, a.last_layer) <
           std::tie(b2.s.maxc, b2.s.sumc, b2.s.maxx, b2.s.rate, b2.s.egress, b2.option,
                    b2.last_layer);
  });
  // What its plans take from the tracked sites, all stages together.
  std::vector<std::pair<int, int>>& use = scratch_[static_cast<size_t>(k)].use;
  std::vector<std::pair<int, int>>& max_use = max_use_scratch_;
  max_use.clear();
  int max_gpus = 0;
  for (const Entry& en : entries) {
    use.clear();
    for (const Entry* e = &en; e; e = e->child ? &e->child[e->child_index] : nullptr)
      for (const auto& [s, u] : option_use_[static_cast<size_t>(e->option)]) {
        auto it = std::find_if(use.begin(), use.end(), [&](const auto& x) { return x.first == s; });
        if (it == use.end()) use.push_back({s, u});
        else it->second += u;
      }
    for (const auto& [s, u] : use) {
      auto it =
          std::find_if(max_use.begin(), max_use.end(), [&](const auto& x) { return x.first == s; });
      if (it == max_use.end()) max_use.push_back({s, u});
      else it->second = std::max(it->second, u);
    }
    max_gpus = std::max(max_gpus, en.s.gpus);
  }
  std::sort(max_use.begin(), max_use.end());
  // Kept in the arena: one bump of a pointer each, nothing freed one by one.
  auto* set = new (arena_.allocate(sizeof(StateSet), alignof(StateSet))) StateSet;
  set->entries = keep(entries);
  set->max_use = keep(max_use);
  set->max_gpus = max_gpus;
  return set;
}

// The stage choices of (k, l) that fit (H2), leave a rest that can fit (H2) and pass the
// known-plan bound without any incoming boundary, in option then layer order: what every previous
// class shares.
std::span<const PartialPlanSearch::Choice> PartialPlanSearch::baseChoices(int k, int l) {
  Choices& slot = base_[static_cast<size_t>(k) * static_cast<size_t>(L_) + static_cast<size_t>(l)];
  if (slot.listed) return slot.list;
  std::vector<Choice>& list = base_scratch_;
  list.clear();
  const bool h2 = ctx_.opt.heuristics.h2_oom_pruning;
  const int r_max = L_ - k;  // leave k - 1 layers for the stages after this one
  const int r_min = k == 1 ? L_ - 1 : l;
  const size_t W = static_cast<size_t>(L_) + 1;
  const LowerBounds::Prefix p = bounds_.prefix(l, k);
  const int f = std::min(k, M_);
  for (size_t oi = 0; oi < options_.size(); ++oi) {
    const StageOption& o = options_[oi];
    // With H2, the layer ranges that fit: up to the fit end of every kind of the option (the
    // whole model apart, on its own).
    int hi = r_max;
    bool whole = false;
    if (h2) {
      for (int kidx : o.kinds) hi = std::min(hi, kinds_.fitEnd(kinds_.kind(kidx).table, f, l));
      whole = l == 0 && r_min == L_ - 1 && stageFits(oi, k, 0, L_ - 1);
      if (hi < r_min && !whole) continue;
    }
    const int r_end = h2 && !whole ? hi : r_max;
    for (int r = r_min; r <= r_end; ++r) {
      const bool fits = h2 || stageFits(oi, k, l, r);
      if (h2 && k > 1 && !feasible_[static_cast<size_t>(k - 1) * W + static_cast<size_t>(r) + 1])
        continue;
      const double fb = stageFb(o, l, r);
      // The bound grows with sync time and egress: pruned without them, the sync need not be
      // figured (a ring all-reduce per replica pair: most of the list's work).
      if (bounds_.stagePruned(k, r, fb, 0.0, o.rate, 0.0, p)) continue;
      const StageOptionTable::Sync& si = options_.sync(oi, l, r);
      // The bound grows with the incoming boundary: pruned without one, pruned with any.
      if (bounds_.stagePruned(k, r, fb, si.x, o.rate, si.egress, p)) continue;
      list.push_back({static_cast<int>(oi), r, {fb, 0.0, si.x, o.rate, si.egress, o.gpus, fits}});
    }
  }
  slot.list = keep(list);
  slot.listed = true;
  return slot.list;
}

// The stage choices of (k, l, previous class): the base choices with the incoming boundary from
// the previous stage (its last layer is l - 1), those passing the known-plan bound, for every
// usage of the state. Listed under the bound known when first asked; the bound only tightens,
// so the list stays a superset.
std::span<const PartialPlanSearch::Choice> PartialPlanSearch::choices(int k, int l, int prev) {
  if (prev < 0) return baseChoices(k, l);  // no incoming boundary: the base list itself
  Choices& slot = choices_[flatIndex(k, l, prev)];
  if (slot.listed) return slot.list;
  const std::span<const Choice> base = baseChoices(k, l);
  std::vector<Choice>& list = choices_scratch_;
  list.clear();
  const LowerBounds::Prefix p = bounds_.prefix(l, k);
  int last_oi = -1;
  StageOptionTable::Boundary in;
  for (const Choice& ch : base) {
    if (ch.oi != last_oi) {
      in = options_.boundary(static_cast<size_t>(prev), static_cast<size_t>(ch.oi), l);
      last_oi = ch.oi;
    }
    Choice c = ch;
    c.stage.t_in = in.t;
    c.stage.egress += in.egress;
    if (bounds_.stagePruned(k, ch.r, c.stage.fb + 2 * in.t, c.stage.x, c.stage.rate, c.stage.egress,
                            p))
      continue;
    list.push_back(c);
  }
  slot.list = keep(list);
  slot.listed = true;
  return slot.list;
}

// A stage choice as the stage with k stages left, combined with every partial plan of the rest
// (k - 1 stages from layer r + 1, solved under the usage with the choice's option added: the
// caller, compute, adds it); what survives the bounds goes to pool.
void PartialPlanSearch::combine(const Choice& ch, int k, const LowerBounds::Prefix& p,
                                std::vector<Entry>& pool) {
  auto add = [&](const Summary* child, const Entry* cset, int cidx) {
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
  const std::span<const Entry> cs = solve(k - 1, ch.r + 1, ch.oi).entries;  // under ch.oi's usage
  for (size_t ci = 0; ci < cs.size(); ++ci) add(&cs[ci].s, cs.data(), static_cast<int>(ci));
}

// H10: at most max_partial_plans non-dominated entries, taken in order of the objective's lower
// bound (half by iteration time, half by cost when cost matters).
std::vector<Entry>& PartialPlanSearch::reduce(std::vector<Entry>& pool) {
  // Built in a buffer kept between states (compute copies it into the arena), so that the
  // search does not allocate per state.
  std::vector<Entry>& set = reduce_scratch_;
  set.clear();
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
  // (bound, index) side by side: the sort reads no entry unless two bounds tie.
  std::vector<std::pair<double, std::uint32_t>>& order = order_scratch_;
  order.resize(pool.size());
  auto sweep = [&](bool by_cost, size_t limit) {
    for (size_t i = 0; i < pool.size(); ++i)
      order[i] = {by_cost ? c_lb(pool[i]) : t_lb(pool[i]), static_cast<std::uint32_t>(i)};
    // A total order (no two entries of a state share option, last layer and child), sorted a
    // chunk at a time: the sweep usually fills the set from a small part of the pool, so the
    // next chunk's entries are selected (nth_element, linear) and only they are sorted.
    auto before = [&](const auto& a, const auto& b2) {
      return a.first != b2.first ? a.first < b2.first : tie(pool[a.second], pool[b2.second]);
    };
    size_t done = 0, chunk = std::max<size_t>(256, 4 * limit);
    while (done < order.size() && set.size() < limit) {
      const auto first = order.begin() + static_cast<std::ptrdiff_t>(done);
      const size_t end = std::min(order.size(), done + chunk);
      const auto last = order.begin() + static_cast<std::ptrdiff_t>(end);
      if (last != order.end()) std::nth_element(first, last, order.end(), before);
      std::sort(first, last, before);
      for (auto it = first; it != last && set.size() < limit; ++it) {
        const Entry& en = pool[it->second];
        if (std::none_of(set.begin(), set.end(), [&](const Entry& x) {
              return dominates(x.s, en.s, dims_) || dominates(en.s, x.s, dims_);
            }))
          set.push_back(en);
      }
      done = end;
      chunk *= 2;
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

// The runs of a complete entry (NOTE [Candidates written out late]): its stages from layer 0,
// replicas of one site and tp counted together.
void writeRuns(const KindSet& kinds, const StageOptionTable& options, const Entry& en,
               Candidate& c) {
  const Entry* cur = &en;
  int first = 0;
  while (cur) {
    StageRuns& st = c.stages.emplace_back();
    st.first_layer = first;
    st.last_layer = cur->last_layer;
    for (int kidx : options[static_cast<size_t>(cur->option)].replicas) {
      const Kind& kd = kinds.kind(kidx);
      if (!st.runs.empty() && st.runs.back().site == kd.site && st.runs.back().tp == kd.tp)
        ++st.runs.back().count;
      else st.runs.push_back({kd.site, kd.tp, 1});
    }
    first = cur->last_layer + 1;
    cur = cur->child ? &cur->child[cur->child_index] : nullptr;
  }
}

}  // namespace

void searchDegree(const SearchContext& ctx, const KindSet& kinds, int b, int D, bool cost_dims,
                  Known& known, const StopFlag& stop, std::vector<Candidate>& found, long& compared,
                  Known* shared, bool floor_by_cost, double floor) {
  const int M = ctx.microbatches(b, D);
  if (LowerBounds::tooSlow(ctx, kinds, M)) return;
  StageOptionTable options(ctx, kinds, b, D);
  if (options.empty()) return;
  LowerBounds bounds(ctx, kinds, D, M, KnownBound(known, shared, floor_by_cost, floor));
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
      writeRuns(kinds, options, en, c);
      c.key = searchKey(ctx, c);
      found.push_back(std::move(c));
    }
    // The plans of this depth bound the deeper ones (partial plans computed under the weaker
    // bound stay valid: the bound only tightens).
    // The sweep judges the degree by its best plan (NOTE [Seeds shared between microbatch
    // sizes]): past the best found at this degree no plan can change that.
    for (size_t i = found_before; i < found.size(); ++i) {
      if (known.add(knownKey(found[i]), found[i].iteration_s, found[i].usd) && shared)
        shared->addNew(found[i].iteration_s, found[i].usd);
      bounds.tightenFloor(floor_by_cost ? found[i].usd : found[i].iteration_s);
    }
  }
}

}  // namespace sailor::planner_detail
