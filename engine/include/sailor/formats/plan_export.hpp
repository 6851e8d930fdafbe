// A plan's launch files from the plan's own inputs: what `sailor export` writes and what the
// studio's Export target writes, through this one path (launch_export.hpp makes the files; this
// builds the run spec and the layout they need, and writes them into a directory).
#pragma once

#include <string>
#include <vector>

#include "sailor/formats/launch_export.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/runs/run_spec.hpp"
#include "sailor/scenario/scenario.hpp"

namespace sailor {

// What a run spec trains, in comment lines (without "# ") for the head of launch files:
//   "Trains Llama-3-70B at its real size: 80 blocks, hidden 8192, MLP 28672, 64 heads,"
//   "vocabulary 128256, sequence 8192; data: tokens of /data/train.bin;"
//   "global batch 16 in microbatches of 1, 20 iterations, bf16, adam at lr 0.001, seed 1234;"
//   "schedule: overlapped gradient reduction."
// A model scaled below the catalogue's (`catalogue`: the job's model) starts with "SMOKE TEST,
// not the job:" and names the job's sizes; synthetic data say how to give the job's tokens.
std::vector<std::string> trainingSummary(const RunSpec& spec, const ModelSpec& catalogue);
// `text` (a launch file) with the trainingSummary as "# " lines after its interpreter line.
std::string withTrainingSummary(std::string text, const RunSpec& spec, const ModelSpec& catalogue);
// Whether `spec` trains `catalogue` scaled down (hidden, MLP width or vocabulary other than the
// catalogue's): a rehearsal of the job, not the job.
bool isSmokeTest(const RunSpec& spec, const ModelSpec& catalogue);

struct PlanExportRequest {
  ExportFormat format = ExportFormat::Slurm;
  std::string cluster_file;  // the cluster description (JSON); its errors name this path
  std::string plan_name;     // names the plan in its errors ("plan.json", "the selected plan")
  RunOptions options;        // iterations, model size, data, seed, backend of the workers' spec
};

// The workers' run spec of an export: built as `sailor run` builds it (an SGD job gets SGD's
// default rate, 0.05, unless `options` asks for a rate other than AdamW's default). Throws
// InputError naming request.plan_name for a spec the runtime refuses.
RunSpec exportRunSpec(const Job& job, const Plan& plan, const Catalog& catalog,
                      const PlanExportRequest& request);

// The files of `request.format` for a plan valid against `scenario` (Plan::validate), each headed
// by the trainingSummary of its spec (exportRunSpec), the cluster description read and checked,
// every pool of the plan mapped and each tensor-parallel group placed inside one node. Throws
// InputError naming the plan (a spec the runtime refuses, a replica larger than its pool's nodes)
// or the cluster file (unreadable or malformed, a pool without a mapping, a field the format
// needs).
std::vector<ExportFile> exportPlanLaunch(const Scenario& scenario, const Job& job, const Plan& plan,
                                         const Catalog& catalog, const PlanExportRequest& request);

// Writes `files` into `dir` (created with its parents if need be), each one atomically (a
// temporary file beside it, then a rename: a reader never sees half a file). Returns the paths
// written, in order. Throws InputError named `field` (the option or control that gave the
// directory) when the directory cannot be created, or naming the file that cannot be written;
// the files written before it stay.
std::vector<std::string> writeExportFiles(const std::vector<ExportFile>& files,
                                          const std::string& dir, const std::string& field);

}  // namespace sailor
