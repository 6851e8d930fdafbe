#include "format.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace sailor::cli {

namespace {
// The job's recomputation, as the plan and prediction headers mention it.
const char* recomputeNote(const Job& job) {
  switch (job.recompute) {
    case Recompute::None: return "";
    case Recompute::Full: return ", full activation recomputation";
    case Recompute::Selective: return ", selective activation recomputation";
  }
  return "";
}
// A column `w` wide, the text left- (pad) or right-aligned (rpad); text as wide or wider keeps a
// space on the side of the next (or previous) column, so that columns never run together.
std::string pad(const std::string& s, size_t w) {
  return fmt::format("{:<{}}", s, std::max(w, s.size() + 1));
}
std::string rpad(const std::string& s, size_t w) {
  return fmt::format("{:>{}}", s, std::max(w, s.size() + 1));
}
// "12.3%" / "+4.5%": a fraction as a percentage with one decimal; "$1.2345": US dollars.
std::string percent(double fraction) {
  return fmt::format("{:.1f}%", 100 * fraction);
}
std::string signedPercent(double fraction) {
  return fmt::format("{:+.1f}%", 100 * fraction);
}
std::string usd(double v, int decimals) {
  return fmt::format("${:.{}f}", v, decimals);
}
// "MFU 41.2 % (model 408 TFLOP/s per GPU)" (sailor/planning/utilization.hpp).
std::string mfuText(double mfu, double model_tflops_per_gpu) {
  return fmt::format("MFU {:.1f} % (model {:.0f} TFLOP/s per GPU)", 100 * mfu,
                     model_tflops_per_gpu);
}
}  // namespace

// "12.3 min" under 10 hours, else "12.3 h".
std::string minutes(double s) {
  return s < 36000 ? fmt::format("{:.1f} min", s / 60) : fmt::format("{:.1f} h", s / 3600);
}

std::string seconds(double s) {
  if (s >= 1.0) return fmt::format("{:.3f} s", s);
  if (s >= 1e-3) return fmt::format("{:.2f} ms", s * 1e3);
  return fmt::format("{:.0f} us", s * 1e6);
}

std::string gib(double bytes) {
  return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024.0 * 1024.0));
}

std::string formatReconfigurationPhases(const ReconfiguredEvent& e) {
  std::string out =
      "re-plan " + seconds(e.replan_seconds) + ", teardown " + seconds(e.teardown_seconds);
  if (e.launch_seconds > 0) out += ", launch " + seconds(e.launch_seconds);
  out += ", groups " + seconds(e.group_setup_seconds) + ", rebuild " + seconds(e.rebuild_seconds) +
         ", transfer " + seconds(e.transfer_seconds) +
         fmt::format(" ({:.1f} MB)", static_cast<double>(e.state_bytes) / 1e6) + ", total " +
         seconds(e.total_seconds);
  return out;
}

std::string formatElasticity(const std::vector<EventRecord>& events) {
  std::ostringstream reconfigs, pauses, unreadable;
  for (const EventRecord& rec : events) {
    if (rec.kind != "reconfigured" && rec.kind != "paused") continue;
    try {
      const RunEvent e = runEventFromJson(rec.payload);
      if (const auto* r = e.as<ReconfiguredEvent>()) {
        reconfigs << fmt::format("{:>11}  {:<12}  {:>8}  {:<10}  {:>4}  ", r->from_iteration,
                                 r->cause,
                                 std::to_string(r->old_world_size) + " -> " +
                                     std::to_string(r->new_world_size),
                                 r->state_source, r->iterations_lost)
                  << formatReconfigurationPhases(*r) << "\n";
        if (!r->detail.empty()) reconfigs << fmt::format("{:>13}", "") << r->detail << "\n";
      } else if (const auto* p = e.as<PausedEvent>()) {
        pauses << "  before iteration " << p->iteration << " (" << p->cause << "): " << p->reason
               << "\n";
      }
    } catch (const std::exception& err) {
      // A damaged row: named, so that a missing reconfiguration is not silently left out.
      unreadable << "  event " << rec.seq << " (" << rec.kind << ") cannot be read: " << err.what()
                 << "\n";
    }
  }
  std::string out;
  if (!reconfigs.str().empty())
    out += "Reconfigurations:\n" +
           fmt::format("{:>11}  {:<12}  {:>8}  {:<10}  {:>4}  {}\n", "iteration", "cause", "GPUs",
                       "state from", "lost", "phases") +
           reconfigs.str();
  if (!pauses.str().empty()) out += "Pauses (waiting for resources):\n" + pauses.str();
  if (!unreadable.str().empty()) out += "Unreadable events:\n" + unreadable.str();
  return out;
}

std::string formatGpus(const Catalog& c) {
  std::ostringstream os;
  // Dense peak rates; "-" where the GPU has no such tensor-core path (no TF32 or bf16 before
  // Ampere: V100, T4 and the Turing cards train in fp32 or fp16).
  auto rate = [](const std::optional<double>& r) {
    return r ? fmt::format("{:.1f}", *r) : std::string("-");
  };
  os << pad("GPU", 11) << rpad("memory", 11) << rpad("fp32 TF", 9) << rpad("tf32 TF", 9)
     << rpad("fp16 TF", 9) << rpad("bf16 TF", 9) << rpad("HBM GB/s", 10) << rpad("link GB/s", 11)
     << rpad("per node", 10) << "  name\n";
  for (const auto& g : c.gpus())
    os << pad(g.name, 11) << rpad(gib(static_cast<double>(g.memory_bytes)), 11)
       << rpad(fmt::format("{:.1f}", g.fp32_tflops), 9) << rpad(rate(g.tf32_tflops), 9)
       << rpad(rate(g.fp16_tflops), 9) << rpad(rate(g.bf16_tflops), 9)
       << rpad(fmt::format("{:.0f}", g.memory_bandwidth_gb_per_s), 10)
       << rpad(fmt::format("{:.0f}", g.intra_node_bandwidth_gb_per_s), 11)
       << rpad(std::to_string(g.gpus_per_node), 10) << "  " << g.full_name << "\n";
  return os.str();
}

std::string formatModels(const Catalog& c) {
  std::ostringstream os;
  os << pad("model", 14) << rpad("params", 9) << rpad("layers", 8) << rpad("hidden", 8)
     << rpad("heads", 7) << rpad("kv", 5) << rpad("ffn", 7) << rpad("vocab", 8) << rpad("seq", 6)
     << "  norm/mlp/pos\n";
  for (const auto& m : c.models())
    os << pad(m.name, 14) << rpad(fmt::format("{:.2f}B", totalParameters(m) / 1e9), 9)
       << rpad(std::to_string(m.layers), 8) << rpad(std::to_string(m.hidden_size), 8)
       << rpad(std::to_string(m.heads), 7) << rpad(std::to_string(m.kv_heads), 5)
       << rpad(std::to_string(m.ffn_hidden_size), 7) << rpad(std::to_string(m.vocab_size), 8)
       << rpad(std::to_string(m.sequence_length), 6) << "  "
       << (m.norm == NormType::LayerNorm ? "layernorm" : "rmsnorm") << "/"
       << (m.mlp == MlpType::Gelu ? "gelu" : "swiglu") << "/"
       << (m.position_embedding == PositionEmbedding::Learned ? "learned" : "rotary")
       << (m.tied_embeddings ? ", tied" : "") << "\n";
  return os.str();
}

std::string formatPrediction(const Plan& plan, const Job& job, const Scenario& scenario,
                             const Prediction& p, const std::optional<Utilization>& utilization) {
  std::ostringstream os;
  os << "Scenario " << scenario.name << "; job " << job.model << ", global batch "
     << job.global_batch_size << ", sequence " << job.sequence_length << ", "
     << precisionName(job.precision) << ", " << optimizerName(job.optimizer) << recomputeNote(job)
     << "\n";
  os << "Plan: " << plan.stages.size() << " stage(s), microbatch " << plan.microbatch_size << ", "
     << plan.gpuCount() << " GPUs; schedule: " << plan.schedule.describe(job) << "\n\n";
  os << "Stages (per microbatch; straggler replica; busy: share of the iteration the stage "
        "computes,\n"
        "transfers or synchronises, the rest it waits)\n";
  // Columns as wide as their longest entry, so that the figures line up.
  size_t reps_w = 10;
  for (const Stage& st : plan.stages) reps_w = std::max(reps_w, st.replicaSummary().size() + 2);
  os << "  " << pad("stage", 7) << pad("layers", 9) << pad("replicas", reps_w) << rpad("m", 5)
     << rpad("forward", 11) << rpad("backward", 11) << rpad("send fwd", 11) << rpad("dp sync", 11)
     << rpad("busy", 9) << "\n";
  for (size_t s = 0; s < plan.stages.size(); ++s) {
    const Stage& st = plan.stages[s];
    const StageTimes& t = p.stages[s];
    os << "  " << pad(std::to_string(s), 7)
       << pad(std::to_string(st.first_layer) + "-" + std::to_string(st.last_layer), 9)
       << pad(st.replicaSummary(), reps_w) << rpad(std::to_string(t.microbatches), 5)
       << rpad(seconds(t.forward_s), 11) << rpad(seconds(t.backward_s), 11)
       << rpad(seconds(t.send_forward_s), 11) << rpad(seconds(t.dp_sync_s), 11)
       << rpad(fmt::format("{:.1f} %", p.iteration_s > 0 ? 100 * t.work_s / p.iteration_s : 0), 9)
       << "\n";
  }
  os << "\nIteration time " << seconds(p.iteration_s) << "  ("
     << fmt::format("{:.4f}", p.iterations_per_s) << " it/s, "
     << fmt::format("{:.0f}", p.tokens_per_s) << " tokens/s)\n";
  if (utilization)
    os << "  " << mfuText(utilization->mfu, utilization->model_tflops_per_gpu) << "\n";
  if (p.stages.size() > 1)
    os << "  on stage " << p.breakdown.stage << ", the busiest (the others wait longer):\n";
  auto line = [&](const char* name, double v) {
    os << "  " << pad(name, 12) << rpad(seconds(v), 11)
       << rpad(fmt::format("{:5.1f} %", p.iteration_s > 0 ? 100 * v / p.iteration_s : 0), 9)
       << "\n";
  };
  line("compute", p.breakdown.compute_s);
  line("bubble", p.breakdown.bubble_s);
  line("p2p", p.breakdown.p2p_s);
  line("dp sync", p.breakdown.dp_sync_s);
  line("optimizer", p.breakdown.optimizer_s);
  os << "\nMemory per GPU (peak " << gib(p.peakMemoryBytes()) << ")\n";
  auto gpu_label = [](const MemoryBreakdown& m) {
    return m.gpu_type + " tp" + std::to_string(m.tp);
  };
  size_t gpu_w = 5;
  for (const auto& m : p.memory) gpu_w = std::max(gpu_w, gpu_label(m).size() + 2);
  os << "  " << pad("stage", 7) << pad("GPU", gpu_w) << rpad("states", 11)
     << rpad("activations", 13) << rpad("in flight", 10) << rpad("transient", 11)
     << rpad("bucket", 11) << rpad("runtime", 11) << rpad("total", 11) << rpad("capacity", 11)
     << "\n";
  std::map<std::string, bool> seen;
  for (const auto& m : p.memory) {
    const std::string key = std::to_string(m.stage) + m.gpu_type + std::to_string(m.tp);
    if (seen[key]) continue;  // replicas of one type and tp in a stage have the same figures
    seen[key] = true;
    os << "  " << pad(std::to_string(m.stage), 7) << pad(gpu_label(m), gpu_w)
       << rpad(gib(m.model_state_bytes), 11) << rpad(gib(m.activation_bytes), 13)
       << rpad(std::to_string(m.microbatches_in_flight), 10) << rpad(gib(m.transient_bytes), 11)
       << rpad(gib(m.gradient_bucket_bytes), 11) << rpad(gib(m.runtime_overhead_bytes), 11)
       << rpad(gib(m.total_bytes), 11) << rpad(gib(m.capacity_bytes), 11)
       << (m.fits() ? "" : "  OUT OF MEMORY") << "\n";
  }
  if (!p.fits) {
    os << "\nDoes not fit in memory:\n";
    for (const auto& s : p.out_of_memory) os << "  " << s << "\n";
  }
  os << "\nCost per iteration " << usd(p.usd_per_iteration, 4) << "  (compute "
     << usd(p.compute_usd, 4) << ", egress " << usd(p.egress_usd, 4) << "; "
     << usd(p.usd_per_hour, 2) << " per hour)\n";
  for (const auto& e : p.egress)
    os << "  egress " << e.from_zone << " -> " << e.to_zone << ": "
       << fmt::format("{:.2f} GB", e.bytes / 1e9) << ", " << usd(e.usd, 4) << "\n";
  os << "\nProfile sources\n";
  size_t key_w = 0;
  for (const auto& kv : p.sources) key_w = std::max(key_w, kv.first.size() + 2);
  for (const auto& [k, v] : p.sources) os << "  " << pad(k, key_w) << v << "\n";
  return os.str();
}

std::string formatLinks(const std::vector<LinkUse>& links) {
  if (links.empty()) return "";
  std::ostringstream os;
  os << "\nLinks (source: declared in the scenario, fitted by SAILOR, catalogue node network, "
        "built-in default)\n";
  os << "  " << pad("use", 18) << pad("from", 16) << pad("to", 16) << pad("GPU types", 22)
     << rpad("GPUs", 5) << rpad("GB/s", 10) << rpad("latency", 11) << "  " << pad("source", 11)
     << "link\n";
  for (const LinkUse& l : links) {
    const std::string use =
        std::string(linkUseName(l.use)) + " " + std::to_string(l.stage) +
        (l.use == LinkUse::Use::Pipeline ? "/" + std::to_string(l.stage + 1) : "");
    const std::string types = l.from_gpu == l.to_gpu ? l.from_gpu : l.from_gpu + " -> " + l.to_gpu;
    os << "  " << pad(use, 18) << pad(l.from_zone, 16) << pad(l.to_zone, 16) << pad(types, 22)
       << rpad(std::to_string(l.gpus), 5) << rpad(fmt::format("{:.3g}", l.gb_per_s), 10)
       << rpad(seconds(l.latency_s), 11) << "  " << pad(linkSourceName(l.source), 11)
       << l.description << (l.in_node ? " (same node)" : "") << " x" << l.pairs << "\n";
  }
  return os.str();
}

std::string formatValidation(const ValidationReport& r) {
  std::ostringstream os;
  size_t id_w = 8;
  for (const auto& row : r.rows) id_w = std::max(id_w, row.id.size() + 2);
  // One table of predicted against measured (ours, or SAILOR's model's), then its summary.
  auto table = [&](const char* predicted, auto figures, const ErrorSummary& e, const char* suffix,
                   auto of_group) {
    os << pad("point", id_w) << rpad("time meas", 11) << rpad(predicted, 11) << rpad("error", 9)
       << rpad("mem meas", 11) << rpad(predicted, 11) << rpad("error", 9) << "\n";
    // A figure the run did not record: a dash for it and its error.
    const std::string none = "-";
    for (const auto& row : r.rows) {
      const auto [t, t_err, m, m_err] = figures(row);
      const bool mt = row.timeMeasured(), mm = row.memoryMeasured();
      os << pad(row.id, id_w) << rpad(mt ? seconds(row.measured_iteration_s) : none, 11)
         << rpad(seconds(t), 11) << rpad(mt ? signedPercent(t_err) : none, 9)
         << rpad(mm ? gib(row.measured_memory_bytes) : none, 11) << rpad(gib(m), 11)
         << rpad(mm ? signedPercent(m_err) : none, 9) << "\n";
    }
    // "over 17 of 18 points" when some did not measure the figure.
    auto over = [&](size_t n) {
      return n == r.rows.size() ? std::string()
                                : " (over " + std::to_string(n) + " of " +
                                      std::to_string(r.rows.size()) + " points)";
    };
    auto summary = [&](const char* what, size_t n, double mean, double max) {
      os << what;
      if (n == 0) os << "not measured by any point";
      else os << "mean error " << percent(mean) << ", max " << percent(max) << over(n);
      os << suffix << "\n";
    };
    os << "\n";
    summary("Iteration time: ", e.time_points, e.mean_time_error, e.max_time_error);
    summary("Peak memory:    ", e.memory_points, e.mean_memory_error, e.max_memory_error);
    // A file mixing clusters or models: the means of each, which the overall one can hide.
    if (r.groups.size() < 2) return;
    size_t name_w = 0;
    auto name = [](const ValidationGroup& g) {
      return (g.cluster.empty() ? "" : g.cluster + " ") + g.model;
    };
    for (const auto& g : r.groups) name_w = std::max(name_w, name(g).size() + 2);
    os << "By cluster and model:\n";
    // One figure's errors in a group: a dash when none of its points measured it, the count
    // when only some did.
    auto errors = [](size_t measured, size_t points, double mean, double max) {
      if (measured == 0) return std::string("-");
      return "mean " + rpad(percent(mean), 6) + ", max " + rpad(percent(max), 6) +
             (measured < points ? " (" + std::to_string(measured) + " measured)" : "");
    };
    for (const auto& g : r.groups) {
      const ErrorSummary ge = of_group(g);
      os << "  " << pad(name(g), name_w) << rpad(std::to_string(g.points), 4)
         << (g.points == 1 ? " point " : " points") << "  time "
         << errors(ge.time_points, g.points, ge.mean_time_error, ge.max_time_error) << "   memory "
         << errors(ge.memory_points, g.points, ge.mean_memory_error, ge.max_memory_error) << "\n";
    }
  };
  table(
      "predicted",
      [](const ValidationRow& row) {
        return std::tuple{row.predicted_iteration_s, row.time_error, row.predicted_memory_bytes,
                          row.memory_error};
      },
      r.ours, "", [](const ValidationGroup& g) { return g.ours; });
  if (r.sailor_model) {
    os << "\nSAILOR's published simulator on the same profiles and links (--compare-sailor):\n";
    table(
        "SAILOR",
        [](const ValidationRow& row) {
          return std::tuple{row.sailor_model->iteration_s, row.sailor_time_error,
                            row.sailor_model->peak_memory_bytes, row.sailor_memory_error};
        },
        *r.sailor_model, " (SAILOR's model)",
        [](const ValidationGroup& g) { return g.sailor_model.value_or(ErrorSummary{}); });
  }
  // The runs were measured, so they fitted: a prediction over a GPU's capacity is the model's
  // error.
  std::string too_big;
  for (const auto& row : r.rows)
    for (const auto& what : row.prediction.out_of_memory)
      too_big += "  " + row.id + ": " + what + "\n";
  if (!too_big.empty())
    os << "\nPredicted not to fit in memory, though the run was measured:\n" << too_big;
  std::string below;
  for (const auto& row : r.rows)
    if (row.memoryBelowFloor())
      below += "  " + row.id + ": " + gib(row.measured_memory_bytes) + " measured, at least " +
               gib(row.memory_floor_bytes) + " held\n";
  if (!below.empty())
    os << "\nMeasured memory below the model states and one microbatch's saved activations of one "
          "GPU"
          " (not the run's peak):\n"
       << below;
  // Points of another length than SAILOR profiled their model at: its figures do not apply.
  std::string other_length;
  for (const auto& row : r.rows)
    if (row.profiled_sequence_length && *row.profiled_sequence_length != row.sequence_length)
      other_length += "  " + row.id + ": " + std::to_string(row.sequence_length) + " tokens, " +
                      row.model + " profiled at " + std::to_string(*row.profiled_sequence_length) +
                      "\n";
  if (!other_length.empty())
    os << "\nSequence length other than SAILOR's profiles (their figures do not apply; the sources "
          "below"
          " answer):\n"
       << other_length;
  // Figures that did not come from SAILOR's measurements as they stand.
  std::string derived;
  for (const auto& row : r.rows)
    for (const auto& [what, source] : row.prediction.sources)
      if (source != "sailor-import")
        derived += "  " + row.id + ": " + what + " from " + source + "\n";
  if (!derived.empty()) os << "\nFigures not measured by SAILOR as such:\n" << derived;
  // Points read with a repair of their file (NOTE [A layer number written twice]).
  std::string noted;
  for (const auto& row : r.rows)
    for (const auto& note : row.notes) noted += "  " + row.id + ": " + note + "\n";
  if (!noted.empty()) os << "\nPoints read other than as written:\n" << noted;
  if (!r.skipped.empty()) {
    os << "\nSkipped: " << r.skipped.size() << " of " << r.skipped.size() + r.rows.size()
       << " points could not be predicted and are left out of the means:\n";
    for (const auto& k : r.skipped) os << "  " << k.id << ": " << k.error << "\n";
  }
  return os.str();
}

namespace {
std::string describeStages(const Plan& plan) {
  std::ostringstream os;
  for (size_t s = 0; s < plan.stages.size(); ++s) {
    const Stage& st = plan.stages[s];
    const std::string reps = st.replicaSummary();
    os << "    stage " << s << "  layers " << st.first_layer << "-" << st.last_layer << "  " << reps
       << "\n";
  }
  return os.str();
}

void printOne(std::ostringstream& os, const PlannedPlan& p, const Job& job,
              const Scenario* scenario) {
  const Prediction& pr = p.prediction;
  double headroom = 1e300;
  std::string tight;
  for (const auto& m : pr.memory)
    if (m.capacity_bytes - m.total_bytes < headroom) {
      headroom = m.capacity_bytes - m.total_bytes;
      tight = m.gpu_type + " in stage " + std::to_string(m.stage);
    }
  os << "  " << p.plan.gpuCount() << " GPUs, " << p.plan.stages.size() << " stage(s), microbatch "
     << p.plan.microbatch_size << ", data-parallel degree " << p.plan.stages.front().replicas.size()
     << "\n";
  os << describeStages(p.plan);
  os << "    schedule: " << p.plan.schedule.describe(job) << "\n";
  os << "    iteration " << seconds(pr.iteration_s) << " ("
     << fmt::format("{:.4f}", pr.iterations_per_s) << " it/s, "
     << fmt::format("{:.0f}", pr.tokens_per_s) << " tokens/s; planning model "
     << seconds(p.model_iteration_s) << ")\n";
  if (p.mfu > 0) os << "    " << mfuText(p.mfu, p.model_tflops_per_gpu) << "\n";
  os << "    cost " << usd(pr.usd_per_iteration, 4) << " per iteration (egress "
     << usd(pr.egress_usd, 4) << "), " << usd(pr.usd_per_hour, 2) << " per hour\n";
  if (const int spot = scenario ? p.plan.gpusInSpotPools(*scenario) : 0; spot > 0)
    os << "    spot: " << spot << " of " << p.plan.gpuCount() << " GPUs ("
       << percent(static_cast<double>(spot) / p.plan.gpuCount()) << ")\n";
  if (scenario) {
    int owned = 0;
    for (const Stage& st : p.plan.stages)
      for (const Replica& r : st.replicas)
        if (const Pool* pool = scenario->findPool(r.zone, r.gpu_type); pool && pool->owned)
          owned += r.tp;
    if (owned > 0)
      os << "    owned: " << owned << " of " << p.plan.gpuCount() << " GPUs ("
         << percent(static_cast<double>(owned) / p.plan.gpuCount()) << ")\n";
  }
  os << "    memory: peak " << gib(pr.peakMemoryBytes()) << ", least headroom " << gib(headroom)
     << " (" << tight << ")" << (p.within_memory_reserve ? ", within the memory reserve" : "")
     << "\n";
}

// "128 A100-40 + 128 V100-16": the plan's GPUs by type, in name order.
std::string gpuTypes(const Plan& plan) {
  std::map<std::string, int> types;
  for (const auto& st : plan.stages)
    for (const auto& rep : st.replicas) types[rep.gpu_type] += rep.tp;
  std::string t;
  for (const auto& [k, n] : types) t += (t.empty() ? "" : " + ") + std::to_string(n) + " " + k;
  return t;
}

// "us-central1-a, us-west1-b": the plan's zones, in name order.
std::string zonesOf(const Plan& plan) {
  std::set<std::string> zones;
  for (const auto& st : plan.stages)
    for (const auto& rep : st.replicas) zones.insert(rep.zone);
  std::string z;
  for (const auto& k : zones) z += (z.empty() ? "" : ", ") + k;
  return z;
}

// "256 GPUs (128 A100-40 + 128 V100-16), 2 stage(s), microbatch 4"
std::string planBrief(const Plan& plan) {
  return std::to_string(plan.gpuCount()) + " GPUs (" + gpuTypes(plan) + "), " +
         std::to_string(plan.stages.size()) + " stage(s), microbatch " +
         std::to_string(plan.microbatch_size);
}

// The knee block (sailor/planning/knee.hpp): the cheapest frontier plans near the top plan's
// throughput and what the top plan's last step costs.
std::string formatKnee(const PlanResult& r) {
  const Knee& k = *r.knee;
  const PlannedPlan& top = r.pareto[static_cast<size_t>(k.top_index)];
  const std::string name = k.top_is_best ? "the best plan" : "the fastest frontier plan";
  std::ostringstream os;
  os << "\nKnee of the Pareto frontier, against " << name << " ("
     << fmt::format("{:.4f}", top.prediction.iterations_per_s) << " it/s, "
     << usd(top.prediction.usd_per_iteration, 4) << " per iteration)\n";
  for (const KneePick& p : k.picks) {
    os << "  Within " << fmt::format("{:g}", 100 * p.tolerance) << "% of its throughput: ";
    if (p.frontier_index == k.top_index) {
      os << name << " itself (no cheaper frontier plan is that fast)\n";
      continue;
    }
    const PlannedPlan& pp = r.pareto[static_cast<size_t>(p.frontier_index)];
    os << planBrief(pp.plan) << "\n    " << seconds(pp.prediction.iteration_s) << "/it ("
       << percent(p.throughput_fraction) << " of the throughput), "
       << usd(pp.prediction.usd_per_iteration, 4) << " per iteration (" << percent(p.cost_saving)
       << " cheaper)\n";
  }
  if (!k.last_step) {
    os << "  No frontier plan is cheaper than " << name << ".\n";
    return os.str();
  }
  const KneeStep& s = *k.last_step;
  const PlannedPlan& prev = r.pareto[static_cast<size_t>(s.frontier_index)];
  std::string capitalised = name;
  capitalised[0] = 'T';
  os << "  " << capitalised << " buys " << percent(s.throughput_gain)
     << " more throughput than the next-cheaper frontier plan (" << prev.plan.gpuCount()
     << " GPUs, " << usd(prev.prediction.usd_per_iteration, 4) << " per iteration) for "
     << (std::isfinite(s.cost_increase)
             ? percent(s.cost_increase) + " more"
             : usd(top.prediction.usd_per_iteration - prev.prediction.usd_per_iteration, 4) +
                   " more")
     << " per iteration.\n";
  return os.str();
}
}  // namespace

std::string formatPlanResult(const PlanResult& r, const Job& job, int top_k, bool frontier_table,
                             const Scenario* scenario) {
  std::ostringstream os;
  if (r.best.empty()) {
    os << "  no plan: " << r.no_plan_reason << "\n";
    return os.str();
  }
  os << "Best plans for " << job.model << " (global batch " << job.global_batch_size
     << recomputeNote(job) << "), searched " << r.candidates << " candidates in "
     << seconds(r.search_seconds) << "\n";
  for (const auto& note : r.notes) os << "  note: " << note << "\n";
  if (const auto& t = r.time_limit) {
    os << "  time limit: stopped at the " << fmt::format("{:g}", t->limit_s)
       << " s limit (the search after " << seconds(t->search_stopped_s)
       << "); these are the best plans found so far, not the search's optimum\n";
    os << "  searched: " << t->coverageText() << "\n";
  }
  for (size_t i = 0; i < r.best.size() && static_cast<int>(i) < top_k; ++i) {
    os << "\n#" << i + 1 << "\n";
    printOne(os, r.best[i], job, scenario);
  }
  if (r.knee) os << formatKnee(r);
  if (!r.pareto.empty() && frontier_table) {
    os << "\nPareto frontier (cost per iteration against throughput)\n";
    os << "  " << pad("USD/iter", 11) << pad("it/s", 9) << pad("tokens/s", 11) << pad("USD/h", 10)
       << pad("GPUs", 6) << (scenario ? pad("spot", 7) : "") << "plan\n";
    for (const auto& p : r.pareto) {
      os << "  " << pad(fmt::format("{:.4f}", p.prediction.usd_per_iteration), 11)
         << pad(fmt::format("{:.4f}", p.prediction.iterations_per_s), 9)
         << pad(fmt::format("{:.0f}", p.prediction.tokens_per_s), 11)
         << pad(fmt::format("{:.2f}", p.prediction.usd_per_hour), 10)
         << pad(std::to_string(p.plan.gpuCount()), 6);
      if (scenario)
        os << pad(
            percent(static_cast<double>(p.plan.gpusInSpotPools(*scenario)) / p.plan.gpuCount()), 7);
      os << p.plan.stages.size() << " stage(s), mbs " << p.plan.microbatch_size << ", "
         << gpuTypes(p.plan) << " in " << zonesOf(p.plan) << "\n";
    }
  }
  return os.str();
}

}  // namespace sailor::cli

namespace sailor::cli {

std::string formatCampaigns(const std::vector<Campaign>& campaigns, const Job& job) {
  if (campaigns.empty()) return {};
  const Campaign& first = campaigns.front();
  std::string s = fmt::format(
      "== the whole run: {:.4g} tokens, {:.0f} iterations of {} x {} tokens; failures and "
      "checkpoints priced in (docs/planner.md, \"Days and dollars\")",
      first.tokens, first.iterations, job.global_batch_size, job.sequence_length);
  if (job.deadline_days) s += fmt::format("; deadline {:g} days", *job.deadline_days);
  if (job.budget_usd) s += fmt::format("; budget {}", usd(*job.budget_usd, 0));
  s += ":\n";
  s += fmt::format("  {:>4} {:>9} {:>8} {:>15} {:>15} {:>12} {:>10} {:>11} {:>12} {:>9}\n", "plan",
                   "days", "goodput", "total USD", "GPUs USD", "egress USD", "storage",
                   "tokens/USD", "checkpoint", "failures");
  for (std::size_t i = 0; i < campaigns.size(); ++i) {
    const Campaign& c = campaigns[i];
    if (!c.finishes()) {
      s += fmt::format("  {:>4} never: the GPUs fail every {} and a checkpoint takes {}\n", i + 1,
                       seconds(c.mtbf_s), seconds(c.checkpoint_write_s));
      continue;
    }
    s += fmt::format(
        "  {:>4} {:>9.2f} {:>8} {:>15} {:>15} {:>12} {:>10} {:>11.0f} {:>12} {:>9.1f}\n", i + 1,
        c.days(), percent(c.goodput), usd(c.total_usd, 0), usd(c.gpu_usd, 0), usd(c.egress_usd, 0),
        usd(c.storage_usd, 0), c.tokens_per_usd, "every " + minutes(c.checkpoint_interval_s),
        c.expected_failures);
  }
  s += fmt::format(
      "  (plan 1's GPUs fail together every {:.2f} h; a checkpoint of {} takes {}, a restart {};\n"
      "   the checkpoint interval is Daly's, in work between checkpoints)\n",
      first.mtbf_s / 3600, gib(first.checkpoint_bytes), seconds(first.checkpoint_write_s),
      seconds(first.restart_s));
  for (std::size_t i = 0; i < campaigns.size(); ++i)
    if (campaigns[i].spot_gpus > 0 && campaigns[i].finishes())
      s += fmt::format(
          "  plan {}: {:.0f} spot GPUs, {:.1f} preemptions expected, {:.1f} of them handled in "
          "place ({} standing still), the rest restarting from a checkpoint\n",
          i + 1, campaigns[i].spot_gpus, campaigns[i].expected_preemptions,
          campaigns[i].preemptions_in_place, seconds(campaigns[i].preemption_pause_s));
  return s;
}

}  // namespace sailor::cli
