// A job's whole training run on one plan (sailor/planning/campaign.hpp; NOTE [Failures and
// checkpoints] there).
#include "sailor/planning/campaign.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "sailor/core/error.hpp"

namespace sailor {

namespace {

constexpr double kHoursPerMonth = 730;  // how clouds bill a GB-month

nlohmann::json finiteOrNull(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json();
}

void checkRange(const std::string& field, double value, double lo, double hi,
                const std::string& expected) {
  if (!(value >= lo && value <= hi)) throw InputError(field, toText(value), expected);
}

}  // namespace

void FailureModel::check() const {
  checkRange("--checkpoint-gb-per-s", checkpoint_gb_per_s, 1e-6, 1e6,
             "a bandwidth per GPU in GB/s from 1e-06 to 1e+06");
  checkRange("--restart-s", restart_s, 0, 1e7, "seconds from 0 to 1e+07");
  checkRange("--reconfigure-s", reconfigure_s, 0, 1e7, "seconds from 0 to 1e+07");
  checkRange("storage_usd_per_gb_month", storage_usd_per_gb_month, 0, 1e3,
             "USD per GB-month from 0 to 1000");
  checkRange("checkpoints_kept", checkpoints_kept, 1, 1e6, "an integer from 1 to 1000000");
}

double dalyInterval(double delta, double mtbf) {
  if (!(delta > 0)) return 0;
  if (delta >= 2 * mtbf) return mtbf;
  const double x = delta / (2 * mtbf);
  return std::sqrt(2 * delta * mtbf) * (1 + std::sqrt(x) / 3 + x / 9) - delta;
}

double dalyWallSeconds(double work, double tau, double delta, double restart, double mtbf) {
  if (!(tau > 0)) return work * std::exp(restart / mtbf);  // the limit of no checkpoint cost
  return mtbf * std::exp(restart / mtbf) * std::expm1((tau + delta) / mtbf) * work / tau;
}

Campaign planCampaign(const Plan& plan, const Prediction& prediction, const Job& job,
                      const Catalog& catalog, const Scenario& scenario,
                      const FailureModel& failures) {
  const std::optional<double> iterations = job.trainingIterations();
  if (!iterations)
    throw InputError("training_tokens", "nothing", "a training budget (tokens or iterations)");
  Campaign c;
  c.iterations = *iterations;
  c.tokens = c.iterations * job.global_batch_size * job.sequence_length;
  c.compute_s = c.iterations * prediction.iteration_s;
  // Failure rates add over the plan's GPUs; writers: one replica of each stage, or every GPU
  // when the replicas share the state. Spot preemptions: in place where another replica of the
  // stage holds the same state, else like a failure.
  double per_hour = 0, writers = 0, fatal_per_hour = 0, in_place_per_hour = 0;
  const bool sharded = plan.schedule.sharding != DpSharding::None;
  for (const Stage& st : plan.stages)
    for (std::size_t k = 0; k < st.replicas.size(); ++k) {
      const Replica& r = st.replicas[k];
      const GpuType& g = catalog.gpu(r.gpu_type, "gpu_type");
      const double m = g.gpu_hours_between_failures > 0 ? g.gpu_hours_between_failures
                                                        : kDefaultGpuHoursBetweenFailures;
      per_hour += r.tp / m;
      c.gpus += r.tp;
      if (k == 0 || sharded) writers += r.tp;
      const Pool* pool = scenario.findPool(r.zone, r.gpu_type);
      if (pool && pool->spot && pool->preemptions_per_gpu_hour) {
        c.spot_gpus += r.tp;
        const bool survives = st.replicas.size() >= 2 && !sharded;
        (survives ? in_place_per_hour : fatal_per_hour) += r.tp * *pool->preemptions_per_gpu_hour;
      }
    }
  c.mtbf_s = 3600 / (per_hour + fatal_per_hour);
  const double params = totalParameters(catalog.model(job.model, "model"));
  c.checkpoint_bytes = params * (job.stateBytesPerParameter() - 4.0);  // not the gradients
  c.checkpoint_write_s = c.checkpoint_bytes / (writers * failures.checkpoint_gb_per_s * 1e9);
  c.restart_s = failures.restart_s;
  c.checkpoint_interval_s = dalyInterval(c.checkpoint_write_s, c.mtbf_s);
  c.wall_s = dalyWallSeconds(c.compute_s, c.checkpoint_interval_s, c.checkpoint_write_s,
                             c.restart_s, c.mtbf_s);
  const double daly_s = c.wall_s;
  const double in_place_per_s = in_place_per_hour / 3600;
  const double pause_per_preemption = 2 * failures.reconfigure_s;  // the GPUs leave, then return
  c.wall_s = in_place_per_s * pause_per_preemption < 1
                 ? daly_s / (1 - in_place_per_s * pause_per_preemption)
                 : std::numeric_limits<double>::infinity();
  if (!std::isfinite(c.wall_s)) c.wall_s = std::numeric_limits<double>::infinity();
  c.preemption_pause_s = c.wall_s - daly_s;
  c.checkpointing_s = c.checkpoint_interval_s > 0
                          ? c.compute_s / c.checkpoint_interval_s * c.checkpoint_write_s
                          : 0.0;
  c.expected_failures = c.wall_s * per_hour / 3600;
  c.preemptions_in_place = c.wall_s * in_place_per_s;
  c.expected_preemptions = c.preemptions_in_place + c.wall_s * fatal_per_hour / 3600;
  c.goodput = c.compute_s / c.wall_s;
  // Iterations run: the budget's and those redone after failures (wall time less the work, the
  // checkpoint writes and the restarts).
  const double stops = c.expected_failures + c.expected_preemptions - c.preemptions_in_place;
  const double redone_s = std::max(
      0.0, c.wall_s - c.preemption_pause_s - c.compute_s - c.checkpointing_s - stops * c.restart_s);
  const double iterations_run =
      c.iterations + (prediction.iteration_s > 0 ? redone_s / prediction.iteration_s : 0.0);
  c.gpu_usd =
      prediction.iteration_s > 0 ? prediction.compute_usd / prediction.iteration_s * c.wall_s : 0.0;
  c.egress_usd = prediction.egress_usd * iterations_run;
  c.storage_usd = c.checkpoint_bytes / 1e9 * failures.checkpoints_kept *
                  failures.storage_usd_per_gb_month * c.wall_s / 3600 / kHoursPerMonth;
  c.total_usd = c.gpu_usd + c.egress_usd + c.storage_usd;
  c.tokens_per_usd = c.total_usd > 0 ? c.tokens / c.total_usd : 0.0;
  return c;
}

nlohmann::json Campaign::toJson() const {
  return {{"iterations", iterations},
          {"tokens", tokens},
          {"days", finiteOrNull(days())},
          {"compute_s", compute_s},
          {"wall_s", finiteOrNull(wall_s)},
          {"goodput", finiteOrNull(goodput)},
          {"gpus", gpus},
          {"mtbf_s", mtbf_s},
          {"expected_failures", finiteOrNull(expected_failures)},
          {"spot_gpus", spot_gpus},
          {"expected_preemptions", finiteOrNull(expected_preemptions)},
          {"preemptions_in_place", finiteOrNull(preemptions_in_place)},
          {"preemption_pause_s", finiteOrNull(preemption_pause_s)},
          {"checkpoint_bytes", checkpoint_bytes},
          {"checkpoint_write_s", checkpoint_write_s},
          {"checkpoint_interval_s", checkpoint_interval_s},
          {"checkpointing_s", finiteOrNull(checkpointing_s)},
          {"restart_s", restart_s},
          {"usd",
           {{"total", finiteOrNull(total_usd)},
            {"gpus", finiteOrNull(gpu_usd)},
            {"egress", finiteOrNull(egress_usd)},
            {"checkpoint_storage", finiteOrNull(storage_usd)}}},
          {"tokens_per_usd", finiteOrNull(tokens_per_usd)}};
}

std::optional<std::string> campaignBreaks(const Campaign& c, const Job& job) {
  auto text = [](double x) { return std::isfinite(x) ? toText(x) : std::string("never"); };
  std::string out;
  if (job.deadline_days && !(c.days() <= *job.deadline_days))
    out = "the deadline of " + toText(*job.deadline_days) + " days (this plan: " + text(c.days()) +
          " days)";
  if (job.budget_usd && !(c.total_usd <= *job.budget_usd))
    out += (out.empty() ? "" : " and ") + std::string("the budget of ") + toText(*job.budget_usd) +
           " USD (this plan: " + text(c.total_usd) + " USD)";
  if (out.empty()) return std::nullopt;
  return out;
}

std::vector<Campaign> rankByCampaign(PlanResult& result, const Job& job, const Catalog& catalog,
                                     const Scenario& scenario, const FailureModel& failures,
                                     Objective objective, int top_k) {
  std::vector<std::pair<PlannedPlan, Campaign>> all;
  auto add = [&](const PlannedPlan& p) {
    for (const auto& [q, c] : all)
      if (q.plan == p.plan) return;
    all.emplace_back(p, planCampaign(p.plan, p.prediction, job, catalog, scenario, failures));
  };
  for (const PlannedPlan& p : result.best) add(p);
  for (const PlannedPlan& p : result.pareto) add(p);
  const auto days = [](const auto& x) { return x.second.days(); };
  const auto usd = [](const auto& x) { return x.second.total_usd; };
  std::stable_sort(all.begin(), all.end(), [&](const auto& a, const auto& b) {
    return objective == Objective::Cost ? usd(a) < usd(b) : days(a) < days(b);
  });
  std::vector<PlannedPlan> best;
  std::vector<Campaign> campaigns;
  for (auto& [p, c] : all) p.campaign = c;
  for (PlannedPlan& p : result.pareto)
    for (const auto& [q, c] : all)
      if (q.plan == p.plan) p.campaign = c;
  for (const auto& [p, c] : all)
    if (!campaignBreaks(c, job) && static_cast<int>(best.size()) < top_k) {
      best.push_back(p);
      campaigns.push_back(c);
    }
  if (best.empty() && !all.empty()) {
    // What binds: a constraint no plan meets alone, else the two together.
    double fastest = std::numeric_limits<double>::infinity(), cheapest = fastest;
    for (const auto& x : all) {
      fastest = std::min(fastest, days(x));
      cheapest = std::min(cheapest, usd(x));
    }
    auto text = [](double x) { return std::isfinite(x) ? toText(x) : std::string("never"); };
    if (job.deadline_days && !(fastest <= *job.deadline_days))
      result.no_plan_reason = "no plan finishes within the deadline of " +
                              toText(*job.deadline_days) + " days: the fastest takes " +
                              text(fastest) + " days";
    else if (job.budget_usd && !(cheapest <= *job.budget_usd))
      result.no_plan_reason = "no plan stays within the budget of " + toText(*job.budget_usd) +
                              " USD: the cheapest costs " + text(cheapest) + " USD";
    else
      result.no_plan_reason = "no plan meets the deadline of " + toText(*job.deadline_days) +
                              " days and the budget of " + toText(*job.budget_usd) +
                              " USD together: the fastest takes " + text(fastest) +
                              " days, the cheapest costs " + text(cheapest) + " USD";
  }
  result.best = std::move(best);
  return campaigns;
}

}  // namespace sailor
