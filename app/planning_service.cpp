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
  if (current_token_) current_token_->cancel();
  pool_.clear();  // requests not started yet: they were all superseded, hence cancelled
  pool_.waitForDone();
  // Calls the worker posted and that were not delivered yet are discarded with this object.
}

quint64 PlanningService::request(PlanRequest req) {
  const quint64 id = next_id_++;
  auto token = std::make_shared<CancelToken>();
  // The new request is current before cancelled(old) goes out, so that a slot which reacts to
  // it (even by calling request() again) sees a consistent state.
  const quint64 old_id = std::exchange(current_id_, id);
  const std::shared_ptr<CancelToken> old_token = std::exchange(current_token_, token);
  if (old_token) old_token->cancel();
  ++outstanding_;
  // The lambda owns everything the search reads (the shared inputs and the token); `this`
  // outlives it because the destructor waits for the pool.
  pool_.start([this, id, token, req = std::move(req)]() {
    lowerThreadPriority();
    auto post = [this](auto&& call) {
      QMetaObject::invokeMethod(this, std::forward<decltype(call)>(call), Qt::QueuedConnection);
    };
    if (!token->cancelled()) {
      post([this, id] { deliverStarted(id); });
      try {
        if (!req.scenario || !req.job || !req.catalog)
          throw std::invalid_argument("the request lacks its scenario, job or catalogue");
        ProfileSet analytic;
        const ProfileSet* profiles = req.profiles.get();
        if (!profiles) {
          analytic.add(std::make_shared<AnalyticProfile>(*req.catalog));
          profiles = &analytic;
        }
        auto throttle = std::make_shared<ProgressThrottle>(
            std::chrono::milliseconds(1000 / kMaxProgressPerSecond));
        const ProgressSink sink = [post, throttle, id, this](double fraction,
                                                             const std::string& step) {
          if (!throttle->admit(fraction)) return;
          post([this, id, fraction, stage = QString::fromStdString(step)] {
            deliverProgress(id, fraction, stage);
          });
        };
        // Inputs planned before (undo, redo, an edit typed back): that result at once.
        const auto t0 = std::chrono::steady_clock::now();
        PlanCache::Key key = PlanCache::keyOf(*req.scenario, *req.job, req.options,
                                              req.catalog.get(), req.profiles.get());
        std::shared_ptr<const PlanResult> result;
        if (auto hit = cache_.find(key)) {
          auto copy = std::make_shared<PlanResult>(*hit);
          copy->search_seconds =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          result = std::move(copy);
          ++reused_;
        } else {
          result = std::make_shared<const PlanResult>(planSearch(
              *req.scenario, *req.job, *req.catalog, *profiles, req.options, sink, token.get()));
          cache_.store(std::move(key), result);
        }
        post([this, id, result] { deliverFinished(id, result); });
      } catch (const Cancelled&) {
        // Cancelled or superseded: cancelled(id) was emitted already.
      } catch (const std::exception& e) {
        post(
            [this, id, message = QString::fromStdString(e.what())] { deliverFailed(id, message); });
      } catch (...) {
        post([this, id] { deliverFailed(id, tr("unknown error in the planner")); });
      }
    }
    // Posted last: queued calls from one thread to one receiver arrive in order, so when busy()
    // turns false every outcome of this search has been delivered (or dropped).
    post([this] { deliverDone(); });
  });
  if (old_id != 0) emit cancelled(old_id);
  return id;
}

void PlanningService::cancel() {
  if (current_id_ == 0) return;
  const quint64 id = current_id_;
  current_token_->cancel();
  current_token_.reset();
  current_id_ = 0;
  emit cancelled(id);
}

void PlanningService::deliverStarted(quint64 id) {
  if (id == current_id_) emit started(id);
}

void PlanningService::deliverProgress(quint64 id, double fraction, const QString& stage) {
  if (id == current_id_) emit progress(id, fraction, stage);
}

void PlanningService::deliverFinished(quint64 id, std::shared_ptr<const PlanResult> result) {
  if (id != current_id_) return;  // superseded or cancelled: results dropped
  current_id_ = 0;
  current_token_.reset();
  emit finished(id, std::move(result));
}

void PlanningService::deliverFailed(quint64 id, const QString& message) {
  if (id != current_id_) return;
  current_id_ = 0;
  current_token_.reset();
  emit failed(id, message);
}

void PlanningService::deliverDone() {
  --outstanding_;
}

}  // namespace sailor::studio
