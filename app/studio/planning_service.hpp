// The studio's background planning service: runs the engine's planSearch off the GUI thread,
// one request at a time, with throttled progress, cancellation and supersession. Qt Core only
// (no widgets): widgets connect to its signals and never see the worker thread.
//
// Contract, per request id (ids start at 1 and increase):
// - exactly one terminal signal: finished, failed or cancelled;
// - started, progress, finished and failed are emitted only while the id is the current request
//   (the latest one, not cancelled): a superseded or cancelled request never emits them, even if
//   its search completes anyway (its results are dropped);
// - cancelled(id) is emitted synchronously, from cancel() or from the request() that supersedes
//   it, before the search has actually stopped; busy() stays true until it has.
// All signals are emitted on the thread the service lives in (the GUI thread in the studio):
// the worker posts queued calls to the service, which checks the id there, so that check and the
// current id are only ever touched on one thread.
//
// NOTE [Searching during the re-plan pause]: the studio re-plans a pause after the last edit (so
// that a burst of edits plans once), and the default scenario's search with its frontier takes
// about 0.3 s of that after it. prefetch() starts the search at the edit itself, with no
// request: it emits nothing, and its result only fills the cache of earlier results. The
// request at the pause's end with equal inputs takes the running search over (its signals then
// go to that request) or, when it has finished, is answered from the cache; other inputs cancel
// it. A burst of edits costs cancelled searches on the worker (at the lower priority), never the
// GUI thread more than computing an edit's key (the scenario's and job's JSON text).
#pragma once

#include <atomic>
#include <memory>

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QtGlobal>

#include "sailor/core/progress.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/planning/plan_cache.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/scenario/scenario.hpp"

namespace sailor::studio {

// What to plan. The inputs are shared and immutable: the worker reads them while the GUI may
// already hold the next version, so they are never copied and never changed in place.
struct PlanRequest {
  std::shared_ptr<const Scenario> scenario;
  std::shared_ptr<const Job> job;
  std::shared_ptr<const Catalog> catalog;
  // Null: the analytic profile of `catalog` alone. A given set must outlive the search on its
  // own (an AnalyticProfile in it refers to a catalogue it does not own: keep that one alive).
  std::shared_ptr<const ProfileSet> profiles;
  PlannerOptions options;  // objective, constraints, pareto, threads, heuristics
};

class PlanningService : public QObject {
  Q_OBJECT

 public:
  // At most this many progress signals per second per request (the engine may report faster).
  static constexpr int kMaxProgressPerSecond = 20;

  explicit PlanningService(QObject* parent = nullptr);
  // Cancels the current request and waits for the worker to stop. Emits nothing. How long that
  // takes is the engine's cancel latency: planSearch polls its token before each data-parallel
  // degree, every 16 new states of the stage search within a degree, and before placing or
  // simulating each chosen plan, so a cancel does not wait for a whole degree to end.
  ~PlanningService() override;

  PlanningService(const PlanningService&) = delete;
  PlanningService& operator=(const PlanningService&) = delete;

  // Starts planning `request` in the background and returns its id. A current request is
  // superseded: its search is cancelled, cancelled(old id) is emitted before this returns, and
  // the new search starts once the old one has stopped. A request without scenario, job or
  // catalogue fails (failed(id, ...), queued like every other outcome). When the latest search
  // submitted (a prefetch, or the current request) has equal inputs and has not ended, the
  // request takes it over instead of starting another (NOTE [Searching during the re-plan
  // pause]): started(id) is posted at once if it has begun, and its outcome is this request's.
  quint64 request(PlanRequest request);
  // Starts searching `request` in the background without a request id: it emits nothing, and
  // its result goes to the cache of earlier results for a later request() with equal inputs.
  // A previous prefetch no request has taken over is cancelled; the current request is not
  // (the prefetch runs after it). Nothing happens when the latest search has these inputs or
  // when the request lacks its scenario, job or catalogue.
  void prefetch(PlanRequest request);
  // Cancels the current request, if any: its search is cancelled and cancelled(id) is emitted
  // before this returns. No-op when nothing is current.
  void cancel();

  // The current request's id (0: none: idle, finished, failed or cancelled).
  quint64 currentRequest() const { return current_id_; }
  // True while a search runs or winds down on the worker, including cancelled ones.
  bool busy() const { return outstanding_ > 0; }
  // Requests answered from the results of earlier ones with equal inputs (sailor::PlanCache):
  // the studio's undo, redo, or an edit typed back re-plan at once. A prefetch answered so is
  // not counted (nor the request that takes it over: takenOver()).
  quint64 reusedResults() const { return reused_.load(); }
  // Requests that took over a search already running for their inputs (a prefetch).
  quint64 takenOver() const { return taken_over_; }
  // Searches the worker has run (planSearch called; a cache hit is none), including
  // prefetches and searches cancelled midway.
  quint64 searchesRun() const { return searches_.load(); }

 signals:
  void started(quint64 id);
  // fraction in [0, 1], non-decreasing; stage: the engine's last completed step (e.g.
  // "microbatch 8"). At most kMaxProgressPerSecond per second; 1.0 is always delivered.
  void progress(quint64 id, double fraction, QString stage);
  void finished(quint64 id, std::shared_ptr<const sailor::PlanResult> result);
  // An InputError (bad input, e.g. max GPUs 0) or any other exception's text.
  void failed(quint64 id, QString message);
  void cancelled(quint64 id);

 private:
  // One search submitted to the worker. Its fields other than the key and the token are read
  // and written on the service's thread only (the worker posts its outcomes with the search, and
  // the service resolves there which request, if any, they belong to).
  struct Search {
    PlanCache::Key key;
    std::shared_ptr<CancelToken> token = std::make_shared<CancelToken>();
    quint64 id = 0;           // the request it answers (0: a prefetch nobody has taken over)
    bool prefetched = false;  // submitted by prefetch() (set before it is submitted)
    quint64 started_id = 0;   // the request started() was emitted for
    bool began = false;       // the worker has started it
    bool ended = false;       // its outcome (or its end when cancelled) has arrived
  };
  // Submits a search of `request` to the worker.
  void submit(const std::shared_ptr<Search>& search, PlanRequest request);
  void deliverStarted(const std::shared_ptr<Search>& search);
  void deliverProgress(const std::shared_ptr<Search>& search, double fraction,
                       const QString& stage);
  void deliverFinished(const std::shared_ptr<Search>& search,
                       std::shared_ptr<const PlanResult> result);
  void deliverFailed(const std::shared_ptr<Search>& search, const QString& message);
  void deliverDone(const std::shared_ptr<Search>& search);

  // One worker thread (see the constructor). Declared first among the state so that it is
  // destroyed last; the destructor drains it explicitly anyway.
  QThreadPool pool_;
  quint64 next_id_ = 1;
  quint64 current_id_ = 0;
  std::shared_ptr<Search> current_;  // the current request's search
  std::shared_ptr<Search> latest_;   // the search submitted last (a request's or a prefetch)
  int outstanding_ = 0;              // searches submitted whose worker has not finished yet
  PlanCache cache_;                  // results of earlier requests by their inputs (the worker's)
  std::atomic<quint64> reused_{0};
  std::atomic<quint64> searches_{0};
  quint64 taken_over_ = 0;
};

}  // namespace sailor::studio

Q_DECLARE_METATYPE(std::shared_ptr<const sailor::PlanResult>)
