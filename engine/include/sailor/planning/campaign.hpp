// A job's whole training run on one plan, its campaign: the budget in tokens turned into days of
// wall clock and total dollars, with failures and checkpoints priced in (docs/planner.md, "Days
// and dollars").
//
// NOTE [Failures and checkpoints]
// Failures: each GPU of a type fails (its host, network or software interrupting the job) once
// per gpu_hours_between_failures of its own time, GpuType's figure, else
// kDefaultGpuHoursBetweenFailures: Meta counted 419 unexpected interruptions in a 54-day window
// of Llama 3 pre-training on 16,384 H100 GPUs ("The Llama 3 Herd of Models", 2024, section
// 3.3.4): 16,384 x 54 x 24 / 419 = 50,677 GPU-hours. Rates add, so the plan's N GPUs fail
// together once per M = 1 / sum(1 / m_g) hours: M shrinks with the plan's size.
// A checkpoint writes the model state a training run needs again (weights, fp32 master copy,
// optimizer state: stateBytesPerParameter less the gradients) of every parameter, in parallel by
// the GPUs of one replica of each stage (every GPU under a sharded optimizer or fully sharded
// data parallelism), each at `checkpoint_gb_per_s`: delta = bytes / (writers x rate). A restart
// (R) takes `restart_s`. Daly's model of a run checkpointing every tau seconds of work (J. T.
// Daly, "A higher order estimate of the optimum checkpoint interval for restart dumps", FGCS
// 22(3), 2006): the expected wall time to do T_s seconds of failure-free work is
//   T_w = M e^(R / M) (e^((tau + delta) / M) - 1) T_s / tau,
// minimal near Daly's interval tau = sqrt(2 delta M) [1 + sqrt(delta / 2M) / 3 + delta / 18M]
// - delta for delta < 2M (else tau = M); Young's first-order rule is its sqrt(2 delta M). The
// expected failures are T_w / M; goodput is T_s / T_w.
// Spot preemptions: a spot pool's GPUs are taken away at its preemptions_per_gpu_hour. As the
// runtime handles them: where the preempted GPU's stage has another replica holding the same
// state (two or more replicas, the state not sharded over them) the run reconfigures in place,
// losing no work, and again when the GPUs come back (taken to be at once, a resize back): it
// stands still `reconfigure_s` twice, so at a rate lambda the wall time becomes
// T_w / (1 - 2 lambda reconfigure_s). Elsewhere a preemption loses the stage's state like a
// failure and joins M's rate.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/planning/campaign_figures.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/planning/planner.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/simulation/simulator.hpp"

namespace sailor {

inline constexpr double kDefaultGpuHoursBetweenFailures = 16384.0 * 54 * 24 / 419;

// How a run loses time and what keeping its checkpoints costs. The defaults are what the bundled
// runtime measured on the development VM (docs/benchmarks.md): a checkpoint shard written at
// 0.225 GB/s (14.8 MiB in 0.069 s, "Checkpoint cost", 2026-12-03) and a restart from a
// checkpoint standing still 4.46 s ("Reconfiguration in place against a restart", 2026-12-04);
// a cluster's own figures (its file system, its scheduler's restart) belong in their place.
// Storage: Google Cloud Storage's Standard class in us-central1, 0.020 USD per GB-month (list
// price, January 2025), the last `checkpoints_kept` checkpoints for the whole run.
struct FailureModel {
  double checkpoint_gb_per_s = 0.225;  // per writing GPU, 1e9 B/s
  double restart_s = 4.46;
  // An in-place reconfiguration standing still: 1.46 s when two of four GPUs left a run
  // ("Reconfiguration in place against a restart", hidden 256, 2026-12-04; 1.67 s when they
  // joined).
  double reconfigure_s = 1.46;
  double storage_usd_per_gb_month = 0.020;
  int checkpoints_kept = 2;
  // InputError for a value out of range, naming its `sailor plan` option ("--restart-s") or,
  // for the fields without one, the field.
  void check() const;
};

// The campaign of `job`'s budget (Job::trainingIterations; InputError "training_tokens" when the
// job has none) on `plan` in `scenario` (its spot pools), predicted per iteration as
// `prediction`.
Campaign planCampaign(const Plan& plan, const Prediction& prediction, const Job& job,
                      const Catalog& catalog, const Scenario& scenario,
                      const FailureModel& failures);

// Daly's optimum interval for checkpoints that take `delta` s under failures every `mtbf` s.
double dalyInterval(double delta, double mtbf);
// Daly's expected wall time for `work` s of failure-free work checkpointed every `tau` s.
double dalyWallSeconds(double work, double tau, double delta, double restart, double mtbf);

// Whether `c` meets the job's deadline and budget; else which it breaks, as "the deadline of 30
// days (this plan: 41.2 days)".
std::optional<std::string> campaignBreaks(const Campaign& c, const Job& job);

// The job's budget over a search's plans (`best` and the frontier): each one's campaign; the
// plans that meet the job's deadline and budget become `best`, at most `top_k`, by days (the
// throughput objective) or total USD (cost), every plan of `best` and `pareto` with its campaign
// (PlannedPlan::campaign). Returns the campaigns of `best`, in its order. None
// meets them: `best` is empty and no_plan_reason names what binds and how close the nearest
// plan gets ("no plan finishes within the deadline of 30 days: the fastest takes 41.2").
std::vector<Campaign> rankByCampaign(PlanResult& result, const Job& job, const Catalog& catalog,
                                     const Scenario& scenario, const FailureModel& failures,
                                     Objective objective, int top_k);

}  // namespace sailor
