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

struct PlanExportRequest {
  ExportFormat format = ExportFormat::Slurm;
  std::string cluster_file;  // the cluster description (JSON); its errors name this path
  std::string plan_name;     // names the plan in its errors ("plan.json", "the selected plan")
  RunOptions options;        // iterations, model size, seed, backend of the workers' spec
};

// The files of `request.format` for a plan valid against `scenario` (Plan::validate): the run
// spec built as `sailor run` builds it (an SGD job gets SGD's default rate, 0.05, unless
// `options` asks for a rate other than AdamW's default), the cluster description read and checked,
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
