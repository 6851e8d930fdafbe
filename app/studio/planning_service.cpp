#include "planning_service.hpp"

#include <chrono>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <QMetaObject>
#include <QMetaType>

#include "sailor/planning/campaign.hpp"
#include "sailor/scenario/stale_prices.hpp"

namespace sailor::studio {

namespace {

// Lets through at most one progress report per interval (and always the final 1.0), so that a
// fast engine cannot flood the GUI thread's event queue. Called from the engine's threads.
class ProgressThrottle {
 public:
  explicit ProgressThrottle(std::chrono::milliseconds interval) : interval_(interval) {}
  bool admit(double fraction) {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(mutex_);
    if (fraction < 1.0 && last_ && now - *last_ < interval_) return false;
    last_ = now;
    return true;
  }

 private:
  std::chrono::milliseconds interval_;
  std::optional<std::chrono::steady_clock::time_point> last_;
  std::mutex mutex_;
};

// The search's threads (this one and those planSearch starts, which inherit it) run at a lower
// scheduling priority than the GUI thread: on a machine with as many busy search threads as
// cores, the GUI thread would otherwise wait for a time slice behind them (tens to hundreds of
// ms: docs/benchmarks.md, studio responsiveness). The search still gets every idle cycle.
void lowerThreadPriority() {
#ifdef __linux__
  static thread_local bool done = false;
  if (done) return;
  done = true;
  // On Linux the nice value is per thread; new threads inherit it from their creator.
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
#endif
}

}  // namespace

// Why a QThreadPool of one thread, not a QThread per request nor QtConcurrent:
// - planSearch already runs its own threads (PlannerOptions::threads, one per microbatch size);
//   the service only needs one thread that calls it and waits, so one worker is enough;
// - searches are serialised: a superseded search that is still winding down (until its next
//   poll of the token, see ~PlanningService) never competes for the cores with its successor,
//   and two searches never run at once;
// - the pool keeps its thread between requests, queues the next request while the previous one
//   stops, and waitForDone() joins cleanly in the destructor;
// - QtConcurrent would add the Qt6::Concurrent module for nothing that QThreadPool::start()
//   (Qt Core) does not already give.
PlanningService::PlanningService(QObject* parent) : QObject(parent) {
  qRegisterMetaType<std::shared_ptr<const sailor::PlanResult>>(
      "std::shared_ptr<const sailor::PlanResult>");
  pool_.setMaxThreadCount(1);
  pool_.setObjectName(QStringLiteral("sailor-planning"));
}

PlanningService::~PlanningService() {
  if (current_) current_->token->cancel();
  if (latest_) latest_->token->cancel();
  pool_.clear();  // searches not started yet: they were all superseded, hence cancelled
  pool_.waitForDone();
  // Calls the worker posted and that were not delivered yet are discarded with this object.
}

namespace {

bool complete(const PlanRequest& r) {
  return r.scenario && r.job && r.catalog;
}

PlanCache::Key keyOf(const PlanRequest& r) {
  return PlanCache::keyOf(*r.scenario, *r.job, r.options, r.catalog.get(), r.profiles.get());
}

}  // namespace

quint64 PlanningService::request(PlanRequest req) {
  const quint64 id = next_id_++;
  // The new request is current before cancelled(old) goes out, so that a slot which reacts to
  // it (even by calling request() again) sees a consistent state.
  const quint64 old_id = std::exchange(current_id_, id);
  std::optional<PlanCache::Key> key;
  if (complete(req)) key = keyOf(req);
  if (key && latest_ && !latest_->ended && !latest_->token->cancelled() && latest_->key == *key) {
    // NOTE [Searching during the re-plan pause]: this request takes the running search over.
    if (current_ && current_ != latest_) current_->token->cancel();
    current_ = latest_;
    current_->id = id;
    ++taken_over_;
    if (current_->began)
      QMetaObject::invokeMethod(
          this, [this, s = current_] { deliverStarted(s); }, Qt::QueuedConnection);
  } else {
    if (current_) current_->token->cancel();
    if (latest_ && latest_->id == 0) latest_->token->cancel();  // a prefetch of other inputs
    auto search = std::make_shared<Search>();
    if (key) search->key = std::move(*key);
    search->id = id;
    current_ = latest_ = search;
    submit(search, std::move(req));
  }
  if (old_id != 0) emit cancelled(old_id);
  return id;
}

void PlanningService::prefetch(PlanRequest req) {
  if (!complete(req)) return;
  PlanCache::Key key = keyOf(req);
  if (latest_ && !latest_->ended && !latest_->token->cancelled() && latest_->key == key) return;
  if (latest_ && latest_->id == 0) latest_->token->cancel();  // an earlier prefetch, stale now
  auto search = std::make_shared<Search>();
  search->key = std::move(key);
  search->prefetched = true;
  latest_ = search;
  submit(search, std::move(req));
}

void PlanningService::submit(const std::shared_ptr<Search>& search, PlanRequest req) {
  ++outstanding_;
  // The lambda owns everything the search reads (the shared inputs and the search with its
  // token); `this` outlives it because the destructor waits for the pool.
  pool_.start([this, search, req = std::move(req)]() {
    lowerThreadPriority();
    const std::shared_ptr<CancelToken>& token = search->token;
    auto post = [this](auto&& call) {
      QMetaObject::invokeMethod(this, std::forward<decltype(call)>(call), Qt::QueuedConnection);
    };
    if (!token->cancelled()) {
      post([this, search] { deliverStarted(search); });
      try {
        if (!complete(req))
          throw std::invalid_argument("the request lacks its scenario, job or catalogue");
        ProfileSet analytic;
        const ProfileSet* profiles = req.profiles.get();
        if (!profiles) {
          analytic.add(std::make_shared<AnalyticProfile>(*req.catalog));
          profiles = &analytic;
        }
        auto throttle = std::make_shared<ProgressThrottle>(
            std::chrono::milliseconds(1000 / kMaxProgressPerSecond));
        const ProgressSink sink = [post, throttle, search, this](double fraction,
                                                                 const std::string& step) {
          if (!throttle->admit(fraction)) return;
          post([this, search, fraction, stage = QString::fromStdString(step)] {
            deliverProgress(search, fraction, stage);
          });
        };
        // Inputs planned before (undo, redo, an edit typed back): that result at once.
        const auto t0 = std::chrono::steady_clock::now();
        PlanCache::Key key = search->key;
        std::shared_ptr<const PlanResult> result;
        if (auto hit = cache_.find(key)) {
          auto copy = std::make_shared<PlanResult>(*hit);
          copy->search_seconds =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          result = std::move(copy);
          if (!search->prefetched) ++reused_;
        } else {
          ++searches_;
          // A job with a training budget: the plans found (the top plans, and the frontier with
          // the Pareto option: the studio does not force the frontier's longer search on each
          // edit, as `sailor plan --training-tokens` does) are ranked by their whole run
          // (rankByCampaign) and each carries its days and total USD.
          const bool whole_run = req.job->trainingIterations().has_value();
          PlanResult found = planSearch(*req.scenario, *req.job, *req.catalog, *profiles,
                                        req.options, sink, token.get());
          // Prices from a dated catalogue past the limit: flagged with the plans they priced.
          flagStalePrices(found, *req.scenario);
          if (whole_run && !found.best.empty())
            (void)rankByCampaign(found, *req.job, *req.catalog, *req.scenario, FailureModel{},
                                 req.options.objective, req.options.top_k);
          result = std::make_shared<const PlanResult>(std::move(found));
          cache_.store(std::move(key), result);
        }
        post([this, search, result] { deliverFinished(search, result); });
      } catch (const Cancelled&) {
        // Cancelled or superseded: cancelled(id) was emitted already.
      } catch (const std::exception& e) {
        post([this, search, message = QString::fromStdString(e.what())] {
          deliverFailed(search, message);
        });
      } catch (...) {
        post([this, search] { deliverFailed(search, tr("unknown error in the planner")); });
      }
    }
    // Posted last: queued calls from one thread to one receiver arrive in order, so when busy()
    // turns false every outcome of this search has been delivered (or dropped).
    post([this, search] { deliverDone(search); });
  });
}

void PlanningService::cancel() {
  if (current_id_ == 0) return;
  const quint64 id = current_id_;
  current_->token->cancel();
  current_.reset();
  current_id_ = 0;
  emit cancelled(id);
}

// A search's outcomes reach the request it answers now (its id, which a take-over may have set
// after the worker posted them), and only while that request is current.
void PlanningService::deliverStarted(const std::shared_ptr<Search>& search) {
  search->began = true;
  // Posted by the worker when it begins and by each take-over of a search that had begun: one
  // started per request.
  if (search->id == 0 || search->id != current_id_ || search->started_id == search->id) return;
  search->started_id = search->id;
  emit started(search->id);
}

void PlanningService::deliverProgress(const std::shared_ptr<Search>& search, double fraction,
                                      const QString& stage) {
  if (search->id != 0 && search->id == current_id_) emit progress(search->id, fraction, stage);
}

void PlanningService::deliverFinished(const std::shared_ptr<Search>& search,
                                      std::shared_ptr<const PlanResult> result) {
  search->ended = true;
  if (search->id == 0 || search->id != current_id_) return;  // a prefetch, superseded, cancelled
  const quint64 id = search->id;
  current_id_ = 0;
  current_.reset();
  emit finished(id, std::move(result));
}

void PlanningService::deliverFailed(const std::shared_ptr<Search>& search, const QString& message) {
  search->ended = true;
  if (search->id == 0 || search->id != current_id_) return;
  const quint64 id = search->id;
  current_id_ = 0;
  current_.reset();
  emit failed(id, message);
}

void PlanningService::deliverDone(const std::shared_ptr<Search>& search) {
  search->ended = true;
  --outstanding_;
}

}  // namespace sailor::studio
