// SAILOR's published data layout (profiles/, network/, cluster/ as in the SAILOR artifact) and
// measured training runs: importing them, and checking the simulator against measurements.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/model/profile.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/simulation/simulator.hpp"

namespace sailor {

// What a SAILOR-layout directory provides. Missing optional files are left empty.
struct SailorReference {
  std::shared_ptr<SailorProfile> profiles;  // profiles/simulator_profiles.json + llm_info.json
  std::vector<LinkEntry> links;             // network/multizone_bandwidths_het.json
  std::map<std::string, LinkModel> intra_node_links;  // network/intra_node_bandwidths.json
  std::map<std::pair<std::string, std::string>, double> egress_usd_per_gb;
  std::map<std::string, int> gpus_per_node;  // cluster/basic_cluster_config.json
  std::vector<std::string> zones;            // every zone named in the network or egress files
  std::map<std::pair<std::string, std::string>, int>
      quotas;  // (gpu, zone) -> GPUs, cluster/quotas.json

  static SailorReference load(const std::string& dir, const Catalog& catalog);
  // A scenario holding the reference's zones (regions from the zone names, e.g. us-central1-a
  // is in us-central1), links and egress prices, and the given pools.
  Scenario scenario(std::vector<Pool> pools, const Catalog& catalog) const;
};

// One row of an availability trace (SAILOR's traces/gpu_trace_*.csv: a column per
// <gpu>_<zone> with the GPUs available).
struct TraceRow {
  std::string label;                                       // the row's timestamp as written
  std::vector<std::pair<std::string, std::string>> sites;  // (gpu type, zone) per column
  std::vector<int> counts;
};
std::vector<TraceRow> loadTrace(const std::string& path, const Catalog& catalog);

// Region of a cloud zone name: "us-central1-a" -> "us-central1".
std::string regionOfZone(const std::string& zone);

// Bounds of a measured figure (beyond them a value is a slip, and a relative error against a
// denormal one is inf): an iteration from 1 us to 1e7 s (116 days), a peak from 1 MB to 1 PB.
inline constexpr double kMinMeasuredIterationS = 1e-6;
inline constexpr double kMaxMeasuredIterationS = 1e7;
inline constexpr double kMinMeasuredMemoryBytes = 1e6;
inline constexpr double kMaxMeasuredMemoryBytes = 1e15;

struct MeasuredPoint {
  std::string id;
  std::string cluster;  // the point's "cluster" ("" when it does not say)
  Job job;
  Plan plan;
  std::vector<Pool> pools;  // one per (zone, GPU type) the plan uses, node size as measured
  // 0 when the run did not record the figure (absent, null or 0 in the file, as SAILOR's files
  // write an unrecorded one); at least one of the two is measured.
  double iteration_s = 0;
  double peak_memory_bytes = 0;
  size_t index = 0;  // its position in the file's "points"
  // How the point was read where it departs from the format: SAILOR's files write a layer
  // number in place of another (NOTE [A layer number written twice] in reference.cpp). Empty
  // for a point read as written.
  std::vector<std::string> notes;
};

// A measured point that cannot be predicted, and why: the InputError's one-line message.
struct SkippedPoint {
  size_t index = 0;  // its position in the file's "points"
  std::string id;
  std::string error;
};

struct MeasuredPoints {
  std::vector<MeasuredPoint> points;
  std::vector<SkippedPoint> skipped;  // the points that could not be read, in file order
};

// Reads measured runs in the format of calibration/measured_points.json. readMeasuredPoints
// reads every point it can and lists the others, each with its error, so that one bad run of
// a collection does not hide the rest; it throws InputError only for the file itself (not
// readable, not JSON, no "points" array). loadMeasuredPoints throws the first point's error.
MeasuredPoints readMeasuredPoints(const std::string& path, const Catalog& catalog);
std::vector<MeasuredPoint> loadMeasuredPoints(const std::string& path, const Catalog& catalog);

// SAILOR's published simulator (SOSP'25; ../shared/docs/sailor-reference.md, "SAILOR's
// simulator, as published"), evaluated on the same profile figures and links as ours: the
// baseline `sailor validate --compare-sailor` measures this project's simulator against.
// NOTE [SAILOR's published model] in reference.cpp lists its formulas.
struct SailorModelPrediction {
  double iteration_s = 0;
  double peak_memory_bytes = 0;  // the largest replica's figure
};
SailorModelPrediction sailorPublishedModel(const Plan& plan, const Scenario& scenario,
                                           const Job& job, const Catalog& catalog,
                                           const ProfileSet& profiles);

struct ValidationRow {
  std::string id;
  std::string cluster;  // the point's, "" when it does not say
  std::string model;    // the job's model, as the catalogue names it
  int sequence_length = 0;
  // The sequence length SAILOR profiled the model at (SailorProfile::sequenceLength); when it
  // differs from the point's, the figures came from other sources (listed with their sources).
  std::optional<int> profiled_sequence_length;
  double measured_iteration_s = 0;
  double predicted_iteration_s = 0;
  double measured_memory_bytes = 0;
  double predicted_memory_bytes = 0;
  double time_error = 0;  // signed, (predicted - measured) / measured
  double memory_error = 0;
  Prediction prediction;
  // What the run held on one GPU at least once per microbatch: its model states and the saved
  // activations of one microbatch (the profile's own figures; no runtime overhead, no working
  // set), the largest over the plan's GPUs. A measured peak below it cannot be this run's peak
  // (SAILOR's validation history carries some figures over from other runs, docs/simulator.md).
  double memory_floor_bytes = 0;
  bool memoryBelowFloor() const {
    return memoryMeasured() && measured_memory_bytes < memory_floor_bytes;
  }
  // A figure the run did not record (0) has no error and stays out of the means.
  bool timeMeasured() const { return measured_iteration_s > 0; }
  bool memoryMeasured() const { return measured_memory_bytes > 0; }
  // With compare_sailor: SAILOR's published model on the same point (signed errors).
  std::optional<SailorModelPrediction> sailor_model;
  double sailor_time_error = 0;
  double sailor_memory_error = 0;
  std::vector<std::string> notes;  // the point's (MeasuredPoint::notes)
};

struct ErrorSummary {  // of |error| over the points that measured the figure
  double mean_time_error = 0;
  double max_time_error = 0;
  double mean_memory_error = 0;
  double max_memory_error = 0;
  size_t time_points = 0;    // points with a measured iteration time
  size_t memory_points = 0;  // points with a measured peak memory
  // One point's signed errors, nullopt for a figure it did not measure.
  void add(std::optional<double> time_error, std::optional<double> memory_error);
  void average();  // the sums become means
};

// The errors over the points of one cluster and model: a file that mixes clusters (GH200 nodes
// and a PCIe RTX cluster, say) or models has one mean per pair as well as the overall one.
struct ValidationGroup {
  std::string cluster;  // "" for points that do not say
  std::string model;
  size_t points = 0;
  ErrorSummary ours;
  std::optional<ErrorSummary> sailor_model;  // with compare_sailor
};

struct ValidationReport {
  std::vector<ValidationRow> rows;
  ErrorSummary ours;                         // this simulator's errors over the rows
  std::optional<ErrorSummary> sailor_model;  // with compare_sailor
  std::vector<ValidationGroup> groups;       // per (cluster, model), in the order of the points
  // Points that could not be predicted (a plan that does not fit its model, a tp above the
  // node size, ...), left out of the rows and the means; the caller may add the points that
  // could not be read (MeasuredPoints::skipped).
  std::vector<SkippedPoint> skipped;
  nlohmann::json toJson() const;
};

// A measured point's plan in SAILOR's layer numbering, as plan layers of the catalogue model
// (the identity unless SAILOR counts a separate final-norm layer; see reference.cpp).
Plan toPlanLayers(const Plan& plan, const ModelSpec& model, int sailor_layers);

// A point whose prediction or relative errors are not finite is skipped with the InputError that
// names the figure; the means of the others are finite too, else InputError.
ValidationReport validatePoints(const std::vector<MeasuredPoint>& points,
                                const SailorReference& reference, const Catalog& catalog,
                                const SimulatorOptions& options = {}, bool compare_sailor = false);
// The same over a file as readMeasuredPoints read it: the points it could not read join the
// report's `skipped`, all in file order.
ValidationReport validatePoints(const MeasuredPoints& read, const SailorReference& reference,
                                const Catalog& catalog, const SimulatorOptions& options = {},
                                bool compare_sailor = false);

}  // namespace sailor
