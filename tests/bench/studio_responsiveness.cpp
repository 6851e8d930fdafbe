// The studio's responsiveness while it plans: the GUI thread's event loop must never stall more
// than 50 ms (issue: studio), and an edit's new plot must show soon after the edit's pause
//. The whole main window runs (offscreen, painted). A 2 ms timer records the gaps
// between its ticks; the figure is the largest gap, against a baseline of the same window left
// idle in the same process (the machine's own noise).
//
// Always: the studio's DEFAULT scenario and job (resources/, no reference data), planned as the
// studio does (3 best plans and the Pareto frontier, the default re-plan pause of 400 ms). The
// first pool's count is edited as a user does it: the pool is selected on the canvas and its
// "GPUs" field in the property panel gets new text and editingFinished, 12 times: the first
// half to counts never planned before (31, 30, ...: each a whole search), the second half back to
// those counts in the same order (each answered from the planning service's cache of earlier
// results, sailor::PlanCache). Each edit waits for the previous edit's plot; every second one is
// posted during the previous result's delivery, so that the GUI thread runs both back to back
// (the worst case: a user's edit arriving as a result is shown); the others come 300 ms later.
// Twice: first with the search starting at the pause's end (MainWindowOptions::
// search_during_pause false, the baseline), then as the studio ships (it starts at the edit; a
// new count's result may then come from the cache, filled by the search the edit started, and
// its "search" figure is that lookup's).
// Per edit: the edit's own cost on the GUI thread; edit-to-plot, from the re-plan request (the
// end of the pause: MainWindow::planRequested) to the end of the trade-off plot's replot that
// shows the new result (QCustomPlot::afterReplot with the new result's points), and the same
// from the edit itself (the pause included: the search starts at the edit, NOTE [Searching
// during the re-plan pause] in app/studio/planning_service.hpp); the search's own
// time (PlanResult::search_seconds); and the GUI thread's delivery time, from the start of the
// finished event (an event filter on the PlanningService sees it before it is dispatched) to the
// end of the last piece of delivery work (MainWindow::resultDelivered).
//
// With REFERENCE_DIR also, on the A100+V100 128+384 scenario of the SAILOR paper (built from the
// reference data as planner_bench does) with the paper's job (OPT-350M, global batch 1024, fp32):
// (1) a throughput search; (2) a Pareto search; (3) edits every 150 ms while searching (each
// supersedes the running search: cancel, drop, restart), then the final result.
//
// Usage: studio_responsiveness [REFERENCE_DIR]   (REFERENCE_DIR: ../shared/reference/sailor)
// Prints the default scenario's edit figures, then one JSON object per phase and a table.
// STUDIO_TRACE_EVENTS_MS=N prints every event that held the GUI thread over N ms (see below).
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <QApplication>
#include <QCheckBox>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QTimer>
#include <nlohmann/json.hpp>
#include <qcustomplot.h>

#include "job_panel.hpp"
#include "property_panel.hpp"
#include "resource_canvas.hpp"
#include "sailor/model/prices.hpp"
#include "sailor/model/reference.hpp"
#include "scenario_document.hpp"
#include "studio/main_window.hpp"
#include "studio/planning_service.hpp"
#include "tradeoff_plot.hpp"

using namespace sailor;
using namespace sailor::studio;
using nlohmann::json;

namespace {

// The GUI thread's CPU time so far (Linux; 0 elsewhere), in ns.
qint64 threadCpuNs() {
#ifdef __linux__
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
    return static_cast<qint64>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
#endif
  return 0;
}

struct Gaps {
  std::vector<double> ms;
  // Per gap, the GUI thread's CPU time in it: the work that held the event loop. A gap much
  // longer than its CPU time is the thread waiting for a core (the machine's other load).
  std::vector<double> cpu_ms;
  double max() const { return ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end()); }
  double maxCpu() const {
    return cpu_ms.empty() ? 0 : *std::max_element(cpu_ms.begin(), cpu_ms.end());
  }
  double quantile(double q) const {
    if (ms.empty()) return 0;
    std::vector<double> v = ms;
    std::sort(v.begin(), v.end());
    return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1))];
  }
};

// Runs the event loop until `done` (checked every tick) or `limit_ms`, recording tick gaps.
template <class Done>
Gaps measure(Done done, int limit_ms) {
  Gaps g;
  QElapsedTimer clock;
  clock.start();
  qint64 last = clock.nsecsElapsed();
  qint64 last_cpu = threadCpuNs();
  QEventLoop loop;
  QTimer tick;
  tick.setInterval(2);
  tick.setTimerType(Qt::PreciseTimer);
  QObject::connect(&tick, &QTimer::timeout, [&] {
    const qint64 now = clock.nsecsElapsed();
    const qint64 cpu = threadCpuNs();
    g.ms.push_back(static_cast<double>(now - last) / 1e6);
    g.cpu_ms.push_back(static_cast<double>(cpu - last_cpu) / 1e6);
    last = now;
    last_cpu = cpu;
    if (done() || clock.elapsed() > limit_ms) loop.quit();
  });
  tick.start();
  loop.exec();
  return g;
}
// Records when the service's queued calls (started, progress, finished) begin to be dispatched:
// the finished one's timestamp is where the GUI thread's delivery of a result starts.
class DispatchClock : public QObject {
 public:
  explicit DispatchClock(const QElapsedTimer& clock) : clock_(clock) {}
  qint64 last_ns = 0;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::MetaCall) last_ns = clock_.nsecsElapsed();
    return QObject::eventFilter(watched, event);
  }

 private:
  const QElapsedTimer& clock_;
};

struct Stats {
  std::vector<double> v;
  double median() const {
    if (v.empty()) return 0;
    std::vector<double> s = v;
    std::sort(s.begin(), s.end());
    return s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
  }
  double max() const { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }
};

struct Phase {
  std::string name;
  Gaps gaps;
  double seconds = 0;
  Gaps idle;  // the same window idle (the baseline this phase is compared with)
  double idle_seconds = 0;
};

void report(const std::vector<Phase>& phases) {
  std::printf("%-28s %8s %9s %9s %9s %11s %9s\n", "phase", "seconds", "max gap", "p99 gap",
              "max CPU", "vs idle max", "ticks");
  for (const Phase& p : phases)
    std::printf("%-28s %8.2f %6.1f ms %6.1f ms %6.1f ms %10.2fx %9zu\n", p.name.c_str(), p.seconds,
                p.gaps.max(), p.gaps.quantile(0.99), p.gaps.maxCpu(),
                p.gaps.max() / std::max(p.idle.max(), 1e-9), p.gaps.ms.size());
  for (const Phase& p : phases)
    std::printf("%-28s %8.2f %6.1f ms %6.1f ms %6.1f ms   (idle baseline)\n", p.name.c_str(),
                p.idle_seconds, p.idle.max(), p.idle.quantile(0.99), p.idle.maxCpu());
  std::printf("max CPU: the GUI thread's largest CPU time within one gap (its own work)\n");
}

// The window's last plans and what its planning service did: searches, take-overs, cache.
void printPlanning(MainWindow& w) {
  const PlanningService* planner = w.planningService();
  std::printf("plans: %s\n", w.planStatus().toStdString().c_str());
  std::printf(
      "searches run %llu, requests that took over a running search %llu, answered "
      "from the cache %llu\n",
      static_cast<unsigned long long>(planner->searchesRun()),
      static_cast<unsigned long long>(planner->takenOver()),
      static_cast<unsigned long long>(planner->reusedResults()));
}

// The default scenario and job, edited through the property panel (see the header).
Phase defaultScenarioEdits(const QString& dir, int edits, bool search_during_pause) {
  MainWindowOptions options;
  options.run_store = dir + "/runs-default.sqlite";  // the scenario: the built-in default
  options.search_during_pause = search_during_pause;
  MainWindow w(options);  // plans on start, 400 ms re-plan pause
  w.resize(1280, 800);
  w.show();
  PlanningService* planner = w.planningService();
  auto idle = [&] { return !planner->busy() && planner->currentRequest() == 0; };
  measure([&] { return w.result() && idle(); }, 600000);  // the first plan
  if (!w.result() || w.result()->best.empty()) {
    std::fprintf(stderr, "the default scenario gave no plan: %s\n",
                 w.planStatus().toStdString().c_str());
    std::exit(1);
  }

  // The first pool, selected on the canvas as a click does: the panel shows its form.
  const Pool first = w.document()->scenario().pools.at(0);
  w.canvas()->select({Selection::Pool, 0, QString()});
  auto* count = qobject_cast<QLineEdit*>(w.propertyPanel()->field(QStringLiteral("pool.count")));
  if (!count) {
    std::fprintf(stderr, "the property panel shows no pool.count field\n");
    std::exit(1);
  }

  QElapsedTimer clock;
  clock.start();
  DispatchClock dispatch(clock);
  planner->installEventFilter(&dispatch);
  struct Sample {
    qint64 edit_start = 0, edit_end = 0, request = 0, delivery_start = 0, plot = 0, delivered = 0;
    double search_s = 0;
    bool on_delivery = false;
    bool reused = false;  // a count planned before (the second half of the edits)
  };
  std::vector<Sample> samples;
  std::shared_ptr<const PlanResult> shown = w.result();
  int made = 0;
  bool waiting = false;  // for the last edit's plot and delivery
  qint64 settle_until = 0;

  auto edit = [&](bool on_delivery) {
    Sample s;
    s.on_delivery = on_delivery;
    s.edit_start = clock.nsecsElapsed();
    const int half = edits / 2;
    s.reused = made >= half;
    count->setText(QString::number(first.count - 1 - (made < half ? made : made - half)));
    emit count->editingFinished();
    s.edit_end = clock.nsecsElapsed();
    samples.push_back(s);
    ++made;
    waiting = true;
  };
  QObject::connect(&w, &MainWindow::planRequested, [&](quint64) {
    if (waiting && samples.back().request == 0) samples.back().request = clock.nsecsElapsed();
  });
  QObject::connect(w.tradeoffPlot()->plot(), &QCustomPlot::afterReplot, [&] {
    const auto r = w.result();
    const auto& points = w.tradeoffPlot()->points();
    if (!waiting || !r || r == shown || r->best.empty() || points.empty() ||
        points.front() != &r->best.front() || samples.back().plot != 0)
      return;
    samples.back().plot = clock.nsecsElapsed();
    samples.back().delivery_start = dispatch.last_ns;  // the finished event being delivered
    samples.back().search_s = r->search_seconds;
  });
  QObject::connect(&w, &MainWindow::resultDelivered, [&] {
    if (!waiting || samples.back().plot == 0) return;
    samples.back().delivered = clock.nsecsElapsed();
    shown = w.result();
    waiting = false;
    settle_until = clock.nsecsElapsed() + 300'000'000;  // a user looks at the plot
    // Every second edit lands in this event-loop turn, while the result is being delivered.
    if (made < edits && made % 2 == 1)
      QMetaObject::invokeMethod(
          &w, [&] { edit(true); }, Qt::QueuedConnection);
  });

  QElapsedTimer t;
  t.start();
  edit(false);
  Phase phase;
  phase.name = "default: " + std::to_string(edits) + " pool edits" +
               (search_during_pause ? "" : " (baseline)");
  phase.gaps = measure(
      [&] {
        if (waiting) return false;
        if (made == edits) return idle();
        if (clock.nsecsElapsed() >= settle_until && made % 2 == 0 && idle()) edit(false);
        return false;
      },
      600000);
  phase.seconds = static_cast<double>(t.elapsed()) / 1e3;
  planner->removeEventFilter(&dispatch);
  phase.idle_seconds = std::min(phase.seconds, 10.0);
  phase.idle = measure([] { return false; }, static_cast<int>(phase.idle_seconds * 1000));

  // Per kind of edit: a count never planned before, and one planned before (reused).
  struct Figures {
    Stats edit_ms, to_plot_ms, from_edit_ms, search_ms, queue_ms, delivery_ms;
  };
  Figures fresh, reused;
  for (const Sample& s : samples) {
    if (s.request == 0 || s.plot == 0 || s.delivered == 0) {
      std::fprintf(stderr, "an edit's plot was not measured\n");
      std::exit(1);
    }
    Figures& f = s.reused ? reused : fresh;
    f.edit_ms.v.push_back(static_cast<double>(s.edit_end - s.edit_start) / 1e6);
    f.to_plot_ms.v.push_back(static_cast<double>(s.plot - s.request) / 1e6);
    f.from_edit_ms.v.push_back(static_cast<double>(s.plot - s.edit_end) / 1e6);
    f.search_ms.v.push_back(s.search_s * 1e3);
    f.queue_ms.v.push_back(static_cast<double>(s.delivery_start - s.request) / 1e6 -
                           s.search_s * 1e3);
    f.delivery_ms.v.push_back(static_cast<double>(s.delivered - s.delivery_start) / 1e6);
  }
  std::printf(
      "default scenario, %d edits of pool 0's count (from %d: %d new counts, then back to "
      "them) through the property panel, the search starting %s:\n",
      edits, first.count, edits / 2,
      search_during_pause ? "at the edit (the studio's default)"
                          : "at the pause's end (the baseline)");
  auto figures_json = [](const Figures& f) {
    auto ms = [](const Stats& st) { return json{{"median", st.median()}, {"max", st.max()}}; };
    return json{{"edits", f.edit_ms.v.size()},
                {"edit_gui_ms", ms(f.edit_ms)},
                {"edit_to_plot_ms", ms(f.to_plot_ms)},
                {"edit_end_to_plot_ms", ms(f.from_edit_ms)},
                {"search_ms", ms(f.search_ms)},
                {"request_to_delivery_start_minus_search_ms", ms(f.queue_ms)},
                {"delivery_gui_ms", ms(f.delivery_ms)}};
  };
  std::printf("%s\n", json{{"new_counts", figures_json(fresh)},
                           {"counts_planned_before", figures_json(reused)}}
                          .dump()
                          .c_str());
  auto table = [](const char* title, const Figures& f) {
    std::printf("  %-44s %8s %8s   (%zu edits)\n", title, "median", "max", f.edit_ms.v.size());
    auto row = [](const char* what, const Stats& st) {
      std::printf("  %-44s %6.1f ms %6.1f ms\n", what, st.median(), st.max());
    };
    row("edit on the GUI thread (panel, document, canvas)", f.edit_ms);
    row("edit-to-plot (re-plan request -> plot replotted)", f.to_plot_ms);
    row("edit's end -> plot replotted (pause included)", f.from_edit_ms);
    row("search (PlanResult::search_seconds)", f.search_ms);
    row("request -> delivery starts, less the search", f.queue_ms);
    row("delivery on the GUI thread (plot .. inspector)", f.delivery_ms);
  };
  table("a count never planned before:", fresh);
  table("a count planned before (cache):", reused);
  printPlanning(w);
  return phase;
}

// The SAILOR paper's A100+V100 128+384 scenario (reference data): phases (1) to (3).
std::vector<Phase> paperPhases(const char* reference_dir, const QString& dir) {
  Catalog cat = Catalog::load(resourceDir());
  SailorReference ref = SailorReference::load(reference_dir, cat);
  PriceSheet prices = PriceSheet::load(resourceDir() + "/prices/default.json");
  std::vector<Pool> pools;
  for (auto [gpu, n] : {std::pair{"A100-40", 128}, {"V100-16", 384}}) {
    Pool p;
    p.gpu_type = gpu;
    p.zone = "us-central1-a";
    p.count = n;
    p.usd_per_gpu_hour = prices.usdPerGpuHour(regionOfZone(p.zone), p.gpu_type).value();
    if (ref.gpus_per_node.count(p.gpu_type)) p.gpus_per_node = ref.gpus_per_node.at(p.gpu_type);
    pools.push_back(p);
  }
  const QString scenario_path = dir + "/a100-v100-128-384.json";
  {
    json j = ref.scenario(pools, cat).toJson();
    j["name"] = "A100+V100 128+384 (SAILOR paper)";
    std::ofstream(scenario_path.toStdString()) << j.dump(2);
  }
  MainWindowOptions options;
  options.scenario_file = scenario_path;
  options.run_store = dir + "/runs.sqlite";
  options.plan_on_start = false;
  options.replan_delay_ms = 0;
  MainWindow w(options);
  w.resize(1280, 800);
  w.show();
  Job job = Job::fromJson(
      json{{"model", "OPT-350M"}, {"global_batch_size", 1024}, {"precision", "fp32"}}, cat);
  w.jobPanel()->setJob(job);
  QApplication::processEvents();

  PlanningService* planner = w.planningService();
  auto idle = [&] { return !planner->busy() && planner->currentRequest() == 0; };
  std::vector<Phase> phases;

  // (1) One throughput search (the job panel asks for the frontier by default).
  w.jobPanel()->findChild<QCheckBox*>("pareto")->setChecked(false);
  QElapsedTimer t;
  t.start();
  w.planNow();
  phases.push_back({"paper: throughput search", measure(idle, 600000), 0, {}, 0});
  phases.back().seconds = static_cast<double>(t.elapsed()) / 1e3;

  // (2) A Pareto search.
  w.jobPanel()->findChild<QCheckBox*>("pareto")->setChecked(true);
  t.restart();
  w.planNow();
  phases.push_back({"paper: pareto search", measure(idle, 600000), 0, {}, 0});
  phases.back().seconds = static_cast<double>(t.elapsed()) / 1e3;
  w.jobPanel()->findChild<QCheckBox*>("pareto")->setChecked(false);
  measure(idle, 600000);

  // (3) Edits while searching: each one supersedes the running search.
  t.restart();
  int edits = 0;
  std::vector<std::pair<double, double>>
      edit_costs;  // ms: the edit (document, canvases, panel), the request
  QTimer editor;
  editor.setInterval(150);
  QObject::connect(&editor, &QTimer::timeout, [&] {
    if (edits == 10) {
      editor.stop();
      return;
    }
    Pool p = w.document()->scenario().pools.at(1);
    p.count = 384 - 8 * (++edits);
    QElapsedTimer e;
    e.start();
    w.document()->editPool(1, p);
    const double edit_ms = static_cast<double>(e.nsecsElapsed()) / 1e6;
    e.restart();
    w.planNow();
    edit_costs.push_back({edit_ms, static_cast<double>(e.nsecsElapsed()) / 1e6});
  });
  editor.start();
  phases.push_back({"paper: 10 superseding edits",
                    measure([&] { return edits == 10 && idle(); }, 600000),
                    0,
                    {},
                    0});
  phases.back().seconds = static_cast<double>(t.elapsed()) / 1e3;

  // Baseline: the same window, idle, for as long as the longest phase (capped at 10 s).
  double longest = 0;
  for (const Phase& p : phases) longest = std::max(longest, p.seconds);
  const Gaps baseline =
      measure([] { return false; }, static_cast<int>(std::min(longest, 10.0) * 1000));
  for (Phase& p : phases) {
    p.idle = baseline;
    p.idle_seconds = std::min(longest, 10.0);
  }

  double worst_edit = 0, worst_request = 0;
  for (auto [edit, request] : edit_costs) {
    worst_edit = std::max(worst_edit, edit);
    worst_request = std::max(worst_request, request);
  }
  std::printf(
      "paper scenario: slowest edit on the GUI thread %.1f ms (document, canvases, property "
      "panel); slowest re-plan request %.1f ms\n",
      worst_edit, worst_request);
  printPlanning(w);
  return phases;
}

}  // namespace

// With STUDIO_TRACE_EVENTS_MS=N in the environment: every event whose dispatch on the GUI thread
// takes longer than N ms is printed with the events it dispatched in turn (over 0.3 ms): the
// receiver's class, name, parent and size, and Qt's event type (12 paint, 43 queued call, 76
// layout, 77 repaint of a window). This is how the costs in docs/benchmarks.md were found.
class TracingApplication : public QApplication {
 public:
  TracingApplication(int& argc, char** argv) : QApplication(argc, argv) {
    if (const char* env = std::getenv("STUDIO_TRACE_EVENTS_MS")) threshold_ms_ = std::atof(env);
  }

  bool notify(QObject* receiver, QEvent* event) override {
    if (threshold_ms_ <= 0) return QApplication::notify(receiver, event);
    // Described before the dispatch: the receiver may be deleted by it (DeferredDelete).
    char what[300];
    std::snprintf(what, sizeof what, "type %d %s \"%s\" in %s, %dx%d",
                  static_cast<int>(event->type()), receiver->metaObject()->className(),
                  receiver->objectName().toStdString().c_str(),
                  receiver->parent() ? receiver->parent()->metaObject()->className() : "-",
                  receiver->isWidgetType() ? static_cast<QWidget*>(receiver)->width() : 0,
                  receiver->isWidgetType() ? static_cast<QWidget*>(receiver)->height() : 0);
    QElapsedTimer t;
    t.start();
    ++depth_;
    const bool result = QApplication::notify(receiver, event);
    --depth_;
    const double ms = static_cast<double>(t.nsecsElapsed()) / 1e6;
    char line[400];
    std::snprintf(line, sizeof line, "%.1f ms %s", ms, what);
    if (depth_ > 0) {
      if (ms > 0.3) nested_.emplace_back(line);
      return result;
    }
    if (ms > threshold_ms_) {
      std::fprintf(stderr, "slow event: %s\n", line);
      for (const std::string& n : nested_) std::fprintf(stderr, "    %s\n", n.c_str());
    }
    nested_.clear();
    return result;
  }

 private:
  double threshold_ms_ = 0;
  int depth_ = 0;
  std::vector<std::string> nested_;
};

int main(int argc, char** argv) {
  TracingApplication app(argc, argv);
  if (argc > 2) {
    std::fprintf(stderr, "usage: %s [REFERENCE_DIR]\n", argv[0]);
    return 2;
  }
  QTemporaryDir tmp;
  std::vector<Phase> phases;
  // Baseline first, then the studio as it ships, in the same process (docs/benchmarks.md).
  phases.push_back(defaultScenarioEdits(tmp.path(), 12, false));
  phases.push_back(defaultScenarioEdits(tmp.path(), 12, true));
  if (argc == 2)
    for (Phase& p : paperPhases(argv[1], tmp.path())) phases.push_back(std::move(p));
  report(phases);
  return 0;
}
