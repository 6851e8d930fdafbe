// A fixed-size job over an availability trace (engine/include/sailor/planning/trace_whatif.hpp), on
// the built-in scenario with hand-set predictions, so that every figure is checked against the cost
// model's own arithmetic (NOTE [Reconfiguration cost model]):
//   - rowTimes: trace labels as seconds from the first row; a label that is not a time, or one
//     earlier than the row before, is bad input naming it;
//   - stateTransfer: unchanged GPUs move nothing; a stage that moves zones takes its state from
//     the best-connected holder (same zone over another region); from the checkpoint after a
//     pause it is the same-zone link;
//   - steadyTrace: one plan throughout: the start paid once, no reconfiguration, time and money
//     exact;
//   - lossAndReturn: the first plan's GPUs leave and return: keeping it waits (paying nothing)
//     and restarts; following the planner reconfigures to the second row's plan and back;
//   - neverFinishes: a last row without a plan leaves the job unfinished, with what was done.
#include <QtTest>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/planning/trace_whatif.hpp"
#include "sailor/scenario/scenario.hpp"

using namespace sailor;

namespace {

Plan onePlan(const std::string& zone, const std::string& gpu, int replicas) {
  Plan p;
  p.microbatch_size = 1;
  Stage s;
  s.first_layer = 0;
  s.last_layer = 25;
  for (int i = 0; i < replicas; ++i) s.replicas.push_back(Replica{gpu, 1, zone});
  p.stages.push_back(s);
  return p;
}

Prediction predictionOf(const Plan& p, double iteration_s, double usd_per_hour, double state) {
  Prediction pr;
  pr.iteration_s = iteration_s;
  pr.usd_per_hour = usd_per_hour;
  for (std::size_t k = 0; k < p.stages[0].replicas.size(); ++k) {
    MemoryBreakdown m;
    m.stage = 0;
    m.replica = static_cast<int>(k);
    m.model_state_bytes = state;
    pr.memory.push_back(m);
  }
  return pr;
}

}  // namespace

class TestTraceWhatif : public QObject {
  Q_OBJECT

  Catalog cat_ = Catalog::load(SAILOR_TEST_RESOURCES);
  Scenario sc_ = Scenario::fromJson(
      json_util::readFile(std::string(SAILOR_TEST_RESOURCES) + "/scenarios/default.json"), cat_);
  const double state_ = 8e9;  // bytes of model state per GPU
  const ReconfigurationConstants c_;

  Scenario withCount(const std::string& zone, const std::string& gpu, int count) const {
    Scenario s = sc_;
    for (Pool& p : s.pools)
      if (p.zone == zone && p.gpu_type == gpu) p.count = count;
    return s;
  }
  double sameZone(const std::string& zone, const std::string& gpu) const {
    return sc_.link({zone, gpu, zone, gpu, 1}).transferSeconds(state_, 1);
  }

 private Q_SLOTS:
  void rowTimes() {
    const auto t = traceRowTimes({"1712574014.5", "1712574137.5", "1712574258.5"});
    QCOMPARE(t, (std::vector<double>{0, 123, 244}));
    QCOMPARE(traceRowTimes({"0", "63", "63"}), (std::vector<double>{0, 63, 63}));
    try {
      traceRowTimes({"0", "noon"});
      QFAIL("a label that is not a time was taken");
    } catch (const InputError& e) {
      QVERIFY2(std::string(e.what()).find("row label \"noon\"") != std::string::npos, e.what());
    }
    QVERIFY_THROWS_EXCEPTION(InputError, traceRowTimes({"10", "5"}));
  }

  void stateTransfer() {
    const Plan a = onePlan("us-central1-a", "A100-40", 2);
    const Prediction pa = predictionOf(a, 1, 10, state_);
    QCOMPARE(stateTransferSeconds(&a, a, pa, sc_), 0.0);  // nothing moves
    // To us-west1-b: from the old holders in us-central1-a, over that link.
    const Plan b = onePlan("us-west1-b", "A100-40", 2);
    const Prediction pb = predictionOf(b, 1, 10, state_);
    const double cross = sc_.link({"us-central1-a", "A100-40", "us-west1-b", "A100-40", 1})
                             .transferSeconds(state_, 1);
    QCOMPARE(stateTransferSeconds(&a, b, pb, sc_), cross);
    // Holders in both zones: the same-zone holder is the best connected.
    Plan both = a;
    both.stages[0].replicas.push_back(Replica{"V100-16", 1, "us-west1-b"});
    const double from_west =
        sc_.link({"us-west1-b", "V100-16", "us-west1-b", "A100-40", 1}).transferSeconds(state_, 1);
    QVERIFY(from_west < cross);
    QCOMPARE(stateTransferSeconds(&both, b, pb, sc_), from_west);
    // After a pause: from the checkpoint, over the zone's own link.
    QCOMPARE(stateTransferSeconds(nullptr, b, pb, sc_), sameZone("us-west1-b", "A100-40"));
  }

  void steadyTrace() {
    const Plan a = onePlan("us-central1-a", "A100-40", 2);
    const Prediction pa = predictionOf(a, 2.0, 36.0, state_);
    std::vector<TraceWindow> w{{"0", 0, sc_, a, pa, 0.5}, {"600", 600, sc_, a, pa, 0.4}};
    const auto out = compareTraceStrategies(w, 1000);
    QCOMPARE(out.size(), std::size_t{2});
    const double start =
        0.5 + c_.group_setup_s + sameZone("us-central1-a", "A100-40") + c_.rebuild_s;
    const StrategyOutcome& r = out[0];
    QVERIFY(r.finished);
    QCOMPARE(r.reconfigurations, 0);
    QCOMPARE(r.start.total(), start);
    QCOMPARE(r.end_s, start + 2000.0);
    QCOMPARE(r.usd, (start + 2000.0) * 36.0 / 3600.0);
    QCOMPARE(r.training_s, 2000.0);
    // Keeping the first plan searches nothing: its start is the re-plan shorter.
    QCOMPARE(out[1].end_s, start - 0.5 + 2000.0);
  }

  void lossAndReturn() {
    const Plan a = onePlan("us-central1-a", "A100-40", 32);  // all 32 A100 of the zone
    const Plan b = onePlan("us-west1-b", "A100-40", 16);
    const Prediction pa = predictionOf(a, 1.0, 100.0, state_);
    const Prediction pb = predictionOf(b, 2.0, 50.0, state_);
    const Scenario lost = withCount("us-central1-a", "A100-40", 8);
    std::vector<TraceWindow> w{{"0", 0, sc_, a, pa, 1.0},
                               {"1000", 1000, lost, b, pb, 1.0},
                               {"3000", 3000, sc_, a, pa, 1.0}};
    const auto out = compareTraceStrategies(w, 3000);
    const double transfer_ab = sc_.link({"us-central1-a", "A100-40", "us-west1-b", "A100-40", 1})
                                   .transferSeconds(state_, 1);
    const double transfer_ba = sc_.link({"us-west1-b", "A100-40", "us-central1-a", "A100-40", 1})
                                   .transferSeconds(state_, 1);
    const double own = sameZone("us-central1-a", "A100-40");
    // Following the planner: start, 1000 s of a, to b, back to a.
    const StrategyOutcome& r = out[0];
    const double start = 1.0 + c_.group_setup_s + own + c_.rebuild_s;
    const double to_b = 1.0 + c_.teardown_s + c_.group_setup_s + transfer_ab + c_.rebuild_s;
    const double to_a = 1.0 + c_.teardown_s + c_.group_setup_s + transfer_ba + c_.rebuild_s;
    QCOMPARE(r.reconfigurations, 2);
    QCOMPARE(r.phases.state_transfer_s, transfer_ab + transfer_ba);
    const double done_a = 1000 - start;         // iterations of 1 s before row 1
    const double done_b = (2000 - to_b) / 2.0;  // iterations of 2 s in row 1
    const double left = 3000 - done_a - done_b;
    QVERIFY(r.finished);
    QCOMPARE(r.end_s, 3000 + to_a + left);
    QVERIFY(qAbs(r.iterations - 3000) < 1e-9);
    // Keeping the first plan: waits through row 1 (no GPUs held), restarts from the checkpoint.
    const StrategyOutcome& k = out[1];
    QCOMPARE(k.reconfigurations, 1);
    QCOMPARE(k.waiting_s, 2000.0);
    const double k_start = c_.group_setup_s + own + c_.rebuild_s;
    const double k_left = 3000 - (1000 - k_start);
    QCOMPARE(k.end_s, 3000 + k_start + k_left);
    QCOMPARE(k.usd, (1000 + k_start + k_left) * 100.0 / 3600.0);
    QVERIFY(k.end_s > r.end_s);  // here waiting is slower than following the planner
  }

  void neverFinishes() {
    const Plan a = onePlan("us-central1-a", "A100-40", 2);
    const Prediction pa = predictionOf(a, 1.0, 10.0, state_);
    // The last row: the first plan's GPUs gone, and no plan for what is left.
    const Scenario gone = withCount("us-central1-a", "A100-40", 0);
    std::vector<TraceWindow> w{{"0", 0, sc_, a, pa, 0}, {"100", 100, gone, std::nullopt, {}, 0}};
    const auto out = compareTraceStrategies(w, 1e6);
    for (const StrategyOutcome& o : out) {
      QVERIFY(!o.finished);
      QVERIFY(o.iterations > 0 && o.iterations < 100);
      QCOMPARE(o.end_s, 100.0);
    }
    QVERIFY_THROWS_EXCEPTION(InputError, compareTraceStrategies(w, 0));
  }
};

QTEST_GUILESS_MAIN(TestTraceWhatif)
#include "test_trace_whatif.moc"
