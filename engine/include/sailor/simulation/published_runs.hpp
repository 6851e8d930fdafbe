// Published large-scale training runs (../shared/reference/published/published_runs.json:
// Megatron-LM SC'21, Korthikanti MLSys'23, the Megatron-LM README tables, BLOOM, OPT, MT-NLG) as
// inputs of the simulator, and the check of its predictions against their measured iteration times
// (`sailor validate <file>`, docs/simulator.md "Published runs at scale").
//
// Each row becomes a model (the catalogue's when one has exactly its shape, else its inline one),
// a job, a one-zone scenario whose same-zone link is the row's fabric, a Megatron-style plan and
// the framework's schedule. What a row leaves unstated (null) is filled by kDefaultRules, a table
// of rules each naming its source, and every value so filled is listed with the row.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/simulation/simulator.hpp"

namespace sailor {

// A rule that fills a field a row leaves null. `field` is the row's key ("microbatch_size",
// "hardware.inter_node_gbit_per_gpu", "model.vocab"); `rows` says which rows it applies to and
// `because` why, with the source; published_runs.cpp holds the table and each rule's test.
struct DefaultRule {
  const char* field;
  const char* rows;
  const char* because;
};
// The rules in the order they are tried (the first that applies to a row fills the field).
const std::vector<DefaultRule>& publishedDefaultRules();

// Whether a parsed JSON document is in the published-runs format: an object with a "runs"
// array whose rows (objects) have "hardware" and "parallelism".
bool isPublishedRuns(const nlohmann::json& doc);

// One row as the simulator takes it.
struct PublishedRun {
  std::size_t index = 0;  // its position in the file's "runs"
  std::string id;
  std::string framework;
  int gpus = 0;
  int tp = 1, pp = 1, dp = 1;
  Job job;  // job.model names a model of PublishedRuns::catalog
  Scenario scenario;
  Plan plan;
  SimulatorOptions options;
  double measured_iteration_s = 0;
  std::string measured_from;             // "measured" or "derived"
  std::vector<std::string> assumptions;  // each value not stated by the row, and why
};

// A row that cannot be predicted because of a gap in the data (no iteration time, a degree not
// stated and no rule for it, context parallelism), or a plan the simulator refuses.
struct PublishedSkip {
  std::size_t index = 0;
  std::string id;
  std::string reason;
};

struct PublishedRuns {
  Catalog catalog;  // the catalogue with each row's inline model that the catalogue lacks
  std::vector<PublishedRun> runs;
  std::vector<PublishedSkip> skipped;
};

// Reads the rows of a published-runs document. Malformed input throws InputError naming
// "runs[i] (<id>).<field>": a value of the wrong type, a negative or zero count or
// throughput, tp x pp x dp x cp other than hardware.gpus, an unknown catalogue_gpu, a run over
// several nodes without a fabric figure that no rule gives. `where` names the document in the
// errors about its shape. Rows with gaps of the data itself go to `skipped`.
PublishedRuns readPublishedRuns(const nlohmann::json& doc, const Catalog& catalog,
                                const std::string& where);
PublishedRuns loadPublishedRuns(const std::string& path, const Catalog& catalog);

struct PublishedRow {
  std::size_t index = 0;
  std::string id;
  int gpus = 0;
  int tp = 1, pp = 1, dp = 1;
  double measured_iteration_s = 0;
  std::string measured_from;
  double predicted_iteration_s = 0;
  double time_error = 0;  // signed, (predicted - measured) / measured
  bool fits = true;       // the prediction's memory verdict
  std::vector<std::string> assumptions;
};

struct PublishedReport {
  std::vector<PublishedRow> rows;
  std::vector<PublishedSkip> skipped;  // in file order
  double mean_time_error = 0;          // of |error| over the rows
  double max_time_error = 0;
  // {"points": [...], "mean_time_error", "max_time_error", "skipped": [{"id", "reason"}]}
  nlohmann::json toJson() const;
  // A table line per run (id, GPUs, tp/pp/dp, measured, predicted, error), the means, the
  // assumptions of each row and the skipped rows.
  std::string toText() const;
};

// Simulates every run with the analytic profile: Megatron-LM's 1F1B (PipelineSchedule::
// Async1F1B) for Megatron-LM rows, DeepSpeed's blocking schedule otherwise. A run the simulator
// refuses joins `skipped` with its message.
PublishedReport validatePublishedRuns(const PublishedRuns& runs);

}  // namespace sailor
