// A job's whole run on a plan (sailor/planning/campaign.hpp), worked by hand: Daly's checkpoint
// interval and expected wall time against figures computed apart from the code, the parts of a
// campaign on a 16-GPU plan, failures that a plan of 32,768 GPUs meets and one of 512 barely
// does, spot preemptions handled in place or like failures, the deadline and the budget as
// constraints, and the job's and the scenario's new fields.
#include <QTest>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/planning/campaign.hpp"
#include "sailor/planning/comparison.hpp"
#include "sailor/scenario/scenario.hpp"
#include "test_support.hpp"

using namespace sailor;
using nlohmann::json;

namespace {

// `replicas` replicas of tp `tp` in each of `stages` stages of H100-80.
Plan h100Plan(int stages, int replicas, int tp, int layers) {
  Plan p;
  p.microbatch_size = 1;
  const int per = (layers + 2) / stages;
  for (int s = 0; s < stages; ++s) {
    Stage st;
    st.first_layer = s * per;
    st.last_layer = s + 1 == stages ? layers + 1 : (s + 1) * per - 1;
    for (int r = 0; r < replicas; ++r) st.replicas.push_back({"H100-80", tp, "z"});
    p.stages.push_back(st);
  }
  return p;
}

Prediction perIteration(double seconds, double compute_usd, double egress_usd) {
  Prediction p;
  p.iteration_s = seconds;
  p.compute_usd = compute_usd;
  p.egress_usd = egress_usd;
  return p;
}

#define QVERIFY_CLOSE(actual, expected, rel)                    \
  QVERIFY2(sailor::test::closeRel((actual), (expected), (rel)), \
           qPrintable(sailor::test::describeMismatch((actual), (expected), (rel))))

}  // namespace

class TestCampaign : public QObject {
  Q_OBJECT

  Catalog cat_ = Catalog::load(sailor::test::resources());

  Job llama(const std::string& model, double tokens) const {
    Job j = Job::fromJson(json{{"model", model},
                               {"global_batch_size", 1024},
                               {"sequence_length", 4096},
                               {"precision", "bf16"},
                               {"training_tokens", tokens}},
                          cat_);
    return j;
  }

 private Q_SLOTS:
  // tau = sqrt(2 delta M) (1 + sqrt(delta / 2M) / 3 + delta / 18 M) - delta and
  // T_w = M e^(R/M) (e^((tau + delta)/M) - 1) T_s / tau, evaluated apart (Python, float64):
  // delta 60 s, M 3600 s: tau 617.8756496256495 s; a day of work with R 300 s: 113366.27637311 s.
  void dalyFormulas() {
    QVERIFY_CLOSE(dalyInterval(60, 3600), 617.8756496256495, 1e-12);
    QVERIFY_CLOSE(dalyWallSeconds(86400, 617.8756496256495, 60, 300, 3600), 113366.27637311, 1e-11);
    // A checkpoint slower than two MTBFs: checkpoint every MTBF (Daly's rule past its range).
    QCOMPARE(dalyInterval(8000, 3600), 3600.0);
    // No checkpoint cost: only the restarts, e^(R/M).
    QVERIFY_CLOSE(dalyWallSeconds(1000, 0, 0, 36, 3600), 1000 * std::exp(0.01), 1e-12);
    // Far from failures the interval is Young's sqrt(2 delta M) to first order.
    QVERIFY_CLOSE(dalyInterval(1, 1e8), std::sqrt(2e8), 1e-3);
  }

  // Llama-3-8B on 2 stages x 2 replicas x tp 4 (16 H100-80), 1e9 tokens at 10 s per iteration,
  // 0.5 USD of GPUs and 0.01 USD of egress per iteration.
  void campaignParts() {
    const Job job = llama("Llama-3-8B", 1e9);
    const Plan plan = h100Plan(2, 2, 4, cat_.model("Llama-3-8B", "m").layers);
    FailureModel f;
    const Campaign c = planCampaign(plan, perIteration(10, 0.5, 0.01), job, cat_, Scenario{}, f);
    QCOMPARE(c.iterations, std::ceil(1e9 / (1024.0 * 4096)));  // 239 iterations
    QCOMPARE(c.iterations, 239.0);
    QCOMPARE(c.tokens, 239.0 * 1024 * 4096);
    QCOMPARE(c.compute_s, 2390.0);
    QCOMPARE(c.gpus, 16.0);
    QVERIFY_CLOSE(c.mtbf_s, 3600 * (16384.0 * 54 * 24 / 419) / 16, 1e-12);
    // bf16 with Adam: 18 bytes of state a parameter, 14 without the gradients; written by the
    // 8 GPUs of replica 0 at 0.225 GB/s each.
    const double params = totalParameters(cat_.model("Llama-3-8B", "m"));
    QVERIFY_CLOSE(c.checkpoint_bytes, 14 * params, 1e-12);
    QVERIFY_CLOSE(c.checkpoint_write_s, 14 * params / (8 * 0.225e9), 1e-12);
    QVERIFY_CLOSE(c.checkpoint_interval_s, dalyInterval(c.checkpoint_write_s, c.mtbf_s), 1e-12);
    QVERIFY_CLOSE(
        c.wall_s,
        dalyWallSeconds(2390, c.checkpoint_interval_s, c.checkpoint_write_s, 4.46, c.mtbf_s),
        1e-12);
    QVERIFY_CLOSE(c.goodput, 2390 / c.wall_s, 1e-12);
    QVERIFY_CLOSE(c.expected_failures, c.wall_s / c.mtbf_s, 1e-12);
    QVERIFY_CLOSE(c.gpu_usd, 0.05 * c.wall_s, 1e-12);  // 0.5 USD per 10 s, for the wall time
    QVERIFY(c.egress_usd >= 0.01 * 239 && c.egress_usd < 0.01 * 240);  // redone ones too
    QVERIFY_CLOSE(c.storage_usd, 14 * params / 1e9 * 2 * 0.020 * c.wall_s / 3600 / 730, 1e-12);
    QVERIFY_CLOSE(c.total_usd, c.gpu_usd + c.egress_usd + c.storage_usd, 1e-12);
    QVERIFY_CLOSE(c.tokens_per_usd, c.tokens / c.total_usd, 1e-12);
    // The distributed optimizer: every GPU writes its share.
    Plan sharded = plan;
    sharded.schedule.sharding = DpSharding::Optimizer;
    const Campaign s = planCampaign(sharded, perIteration(10, 0.5, 0.01), job, cat_, Scenario{}, f);
    QVERIFY_CLOSE(s.checkpoint_write_s, c.checkpoint_write_s / 2, 1e-12);
  }

  // Failure rates add: Llama-3-70B on 32,768 GPUs fails every 1.5 h and, checkpointing at 2 GB/s
  // per GPU (a cluster's file system), loses several percent to checkpoints and redone work (the
  // Llama 3 run kept more than 90 %); on 512 the same per-GPU figures lose about 1 %.
  void failuresGrowWithThePlan() {
    const Job job = llama("Llama-3-70B", 2e12);
    const int layers = cat_.model("Llama-3-70B", "m").layers;
    FailureModel f;
    f.checkpoint_gb_per_s = 2;
    const Campaign big = planCampaign(h100Plan(4, 1024, 8, layers), perIteration(4.0, 0, 0), job,
                                      cat_, Scenario{}, f);
    const Campaign small = planCampaign(h100Plan(4, 16, 8, layers), perIteration(4.0 * 64, 0, 0),
                                        job, cat_, Scenario{}, f);
    QCOMPARE(big.gpus, 32768.0);
    QCOMPARE(small.gpus, 512.0);
    QVERIFY_CLOSE(big.mtbf_s / 3600, 16384.0 * 54 * 24 / 419 / 32768, 1e-12);  // 1.55 h
    QVERIFY2(big.goodput < 0.95 && big.goodput > 0.85, qPrintable(QString::number(big.goodput)));
    QVERIFY2(small.goodput > 0.985, qPrintable(QString::number(small.goodput)));
    QVERIFY(big.expected_failures > 10 * small.expected_failures / 64);
    // Failures faster than a checkpoint: the run never finishes, and says so.
    FailureModel slow;
    slow.checkpoint_gb_per_s = 1e-6;
    const Campaign never = planCampaign(h100Plan(4, 1024, 8, layers), perIteration(4.0, 1, 0), job,
                                        cat_, Scenario{}, slow);
    QVERIFY(!never.finishes());
    QVERIFY(never.toJson()["days"].is_null());
  }

  // A spot pool of the plan's 16 GPUs at 0.01 preemptions a GPU-hour: 0.16 an hour. With two
  // replicas a stage (the state not sharded) each is handled in place, losing no work but
  // standing still twice (the GPUs leave, then return): the wall time becomes
  // T_w / (1 - 0.16 / 3600 x 2 x 1.46 s); with the optimizer state sharded over the
  // replicas each loses a share, so the rate joins the failures'.
  void spotPreemptions() {
    const Job job = llama("Llama-3-8B", 1e9);
    const Plan plan = h100Plan(2, 2, 4, cat_.model("Llama-3-8B", "m").layers);
    Scenario spot;
    Pool pool;
    pool.zone = "z";
    pool.gpu_type = "H100-80";
    pool.count = 16;
    pool.spot = true;
    pool.preemptions_per_gpu_hour = 0.01;
    spot.pools.push_back(pool);
    const FailureModel f;
    const Prediction pred = perIteration(10, 0.5, 0.01);
    const Campaign base = planCampaign(plan, pred, job, cat_, Scenario{}, f);
    const Campaign c = planCampaign(plan, pred, job, cat_, spot, f);
    QCOMPARE(c.spot_gpus, 16.0);
    QCOMPARE(c.mtbf_s, base.mtbf_s);
    QVERIFY_CLOSE(c.wall_s, base.wall_s / (1 - 0.16 / 3600 * 2 * 1.46), 1e-12);
    QVERIFY_CLOSE(c.preemptions_in_place, c.wall_s * 0.16 / 3600, 1e-12);
    QVERIFY_CLOSE(c.expected_preemptions, c.preemptions_in_place, 1e-12);
    QVERIFY_CLOSE(c.preemption_pause_s, c.wall_s - base.wall_s, 1e-12);
    Plan sharded = plan;
    sharded.schedule.sharding = DpSharding::Optimizer;
    const Campaign s = planCampaign(sharded, pred, job, cat_, spot, f);
    QCOMPARE(s.preemptions_in_place, 0.0);
    QVERIFY_CLOSE(s.mtbf_s, 3600 / (16 / (16384.0 * 54 * 24 / 419) + 0.16), 1e-12);
    QVERIFY_CLOSE(s.expected_preemptions, s.wall_s * 0.16 / 3600, 1e-12);
    QVERIFY(s.goodput < planCampaign(sharded, pred, job, cat_, Scenario{}, f).goodput);
  }

  // The scenario's field: on a spot pool only, 0 to 1 a GPU-hour.
  void preemptionRateInTheScenario() {
    json j = sailor::test::threeOffersScenario();
    j["pools"][2]["preemptions_per_gpu_hour"] = 0.02;
    const Scenario sc = Scenario::fromJson(j, cat_);
    QCOMPARE(*sc.findPool("asia-southeast1-b", "H100-80")->preemptions_per_gpu_hour, 0.02);
    QCOMPARE(Scenario::fromJson(sc.toJson(), cat_).pools[2].preemptions_per_gpu_hour.value(), 0.02);
    j["pools"][0]["preemptions_per_gpu_hour"] = 0.02;
    try {
      (void)Scenario::fromJson(j, cat_);
      QFAIL("accepted on an on-demand pool");
    } catch (const InputError& e) {
      QCOMPARE(QString::fromStdString(e.field()), QString("pools[0].preemptions_per_gpu_hour"));
    }
    j["pools"][0].erase("preemptions_per_gpu_hour");
    j["pools"][2]["preemptions_per_gpu_hour"] = -1;
    QVERIFY_EXCEPTION_THROWN((void)Scenario::fromJson(j, cat_), InputError);
  }

  // Scenarios compared (sailor/planning/comparison.hpp): a row from a search's best plan (its
  // GPUs by type, zones, spot and owned shares, figures and whole run) and one without a plan,
  // written as CSV: 21 columns a line, a name with a comma quoted, a missing run left empty.
  void scenariosComparedAsCsv() {
    const Job job = llama("Llama-3-8B", 1e9);
    Plan plan = h100Plan(2, 2, 4, cat_.model("Llama-3-8B", "m").layers);
    plan.stages[1].replicas[1].zone = "y";
    Scenario sc;
    for (const char* z : {"z", "y"}) {
      Pool pool;
      pool.zone = z;
      pool.gpu_type = "H100-80";
      pool.count = 16;
      pool.spot = std::string(z) == "y";
      pool.owned = std::string(z) == "z";
      sc.pools.push_back(pool);
    }
    PlannedPlan best;
    best.plan = plan;
    best.prediction = perIteration(10, 0.5, 0.01);
    best.prediction.tokens_per_s = 419430.4;
    best.prediction.usd_per_hour = 180;
    best.prediction.usd_per_iteration = 0.51;
    best.mfu = 0.412;
    best.campaign = planCampaign(plan, best.prediction, job, cat_, sc, FailureModel{});
    PlanResult found;
    found.best.push_back(best);
    const ScenarioComparison a = compareScenario("ours, and spot", sc, found);
    QCOMPARE(a.gpus, 16);
    QCOMPARE(a.spot_gpus, 4);
    QCOMPARE(a.owned_gpus, 12);
    QCOMPARE(QString::fromStdString(a.gpu_types), QString("16 H100-80"));
    QCOMPARE(QString::fromStdString(a.zones), QString("z, y"));
    PlanResult none;
    none.no_plan_reason = "no plan finishes within the deadline of 10 days";
    const ScenarioComparison b = compareScenario("A100 \"spot\"", sc, none);
    QVERIFY(!b.hasPlan());
    best.campaign.reset();
    found.best.front() = best;
    const ScenarioComparison c = compareScenario("no budget", sc, found);
    const QStringList lines = QString::fromStdString(comparisonCsv({a, b, c})).split("\r\n");
    QCOMPARE(lines.size(), 5);  // header, three rows, the empty string after the last line end
    QVERIFY(lines[0].startsWith("scenario,gpus,gpu_types,zones,spot_gpus,owned_gpus,iteration_s,"));
    QCOMPARE(lines[0].count(',') + 1, 21);
    QVERIFY2(lines[1].startsWith("\"ours, and spot\",16,16 H100-80,\"z, y\",4,12,10.0000,419430.4,"
                                 "180.00,0.5100,41.2,"),
             qPrintable(lines[1]));
    const QString days = QString::number(a.campaign->days(), 'f', 3);
    QVERIFY2(lines[1].contains("," + days + ","), qPrintable(lines[1]));
    QVERIFY(lines[1].endsWith(","));  // no reason
    QCOMPARE(lines[2], QString("\"A100 \"\"spot\"\"\"" + QString(20, ',') +
                               "no plan finishes within the deadline of 10 days"));
    QVERIFY2(lines[3].endsWith(QString(10, ',')), qPrintable(lines[3]));  // no run, no reason
  }

  void deadlineAndBudget() {
    Job job = llama("Llama-3-8B", 1e9);
    const Plan plan = h100Plan(2, 2, 4, cat_.model("Llama-3-8B", "m").layers);
    const Campaign c =
        planCampaign(plan, perIteration(10, 0.5, 0.01), job, cat_, Scenario{}, FailureModel{});
    QVERIFY(!campaignBreaks(c, job));
    job.deadline_days = c.days() / 2;
    job.budget_usd = c.total_usd * 2;
    const auto why = campaignBreaks(c, job);
    QVERIFY(why && why->find("the deadline of") == 0 && why->find("budget") == std::string::npos);
    job.budget_usd = c.total_usd / 2;
    QVERIFY(campaignBreaks(c, job)->find(" and the budget of ") != std::string::npos);
  }

  void jobBudgetFields_data() {
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("expected");
    QTest::newRow("zero tokens") << "training_tokens"
                                 << "0"
                                 << "a number above 0";
    QTest::newRow("negative budget") << "budget_usd"
                                     << "-5"
                                     << "a number above 0";
    QTest::newRow("budget beyond bound") << "budget_usd"
                                         << "1e300"
                                         << "at most 1e+15";
    QTest::newRow("deadline as text") << "deadline_days"
                                      << "\"soon\""
                                      << "a number above 0";
    QTest::newRow("tokens and iterations") << "training_iterations"
                                           << "100"
                                           << "absent when training_tokens is given";
  }
  void jobBudgetFields() {
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, expected);
    json j{{"model", "Llama-3-8B"}, {"global_batch_size", 8}, {"training_tokens", 1e9}};
    j[field.toStdString()] = json::parse(value.toStdString());
    try {
      (void)Job::fromJson(j, cat_);
      QFAIL("accepted");
    } catch (const InputError& e) {
      QCOMPARE(QString::fromStdString(e.field()), field);
      QVERIFY2(QString::fromStdString(e.expected()).contains(expected), e.what());
    }
  }

  void jobBudgetRoundTrips() {
    const Job j = Job::fromJson(json{{"model", "Llama-3-8B"},
                                     {"global_batch_size", 8},
                                     {"sequence_length", 100},
                                     {"training_iterations", 10.5},
                                     {"deadline_days", 3},
                                     {"budget_usd", 1000}},
                                cat_);
    QCOMPARE(*j.trainingIterations(), 11.0);
    const Job again = Job::fromJson(j.toJson(), cat_);
    QCOMPARE(*again.deadline_days, 3.0);
    QCOMPARE(*again.budget_usd, 1000.0);
    QVERIFY(!again.training_tokens);
    QVERIFY(!Job::fromJson(json{{"model", "Llama-3-8B"}, {"global_batch_size", 8}}, cat_)
                 .trainingIterations());
  }
};

QTEST_GUILESS_MAIN(TestCampaign)
#include "test_campaign.moc"
