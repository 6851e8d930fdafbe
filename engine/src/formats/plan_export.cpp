// A plan's launch files from its inputs (plan_export.hpp): `sailor export` and the studio's
// Export target.
#include "sailor/formats/plan_export.hpp"

#include <filesystem>
#include <system_error>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/scenario/cluster.hpp"

namespace sailor {

std::vector<ExportFile> exportPlanLaunch(const Scenario& scenario, const Job& job, const Plan& plan,
                                         const Catalog& catalog, const PlanExportRequest& request) {
  RunOptions options = request.options;
  // SGD steps by the gradient itself and needs a larger rate, as `sailor run` sets it.
  if (job.optimizer == Optimizer::Sgd && options.learning_rate == RunOptions{}.learning_rate) {
    options.learning_rate = 0.05;
    options.min_learning_rate = options.learning_rate / 10;
  }
  RunSpec spec;
  try {
    spec = RunSpec::build(plan, job, catalog.model(job.model, "model"), options);
  } catch (const InputError& e) {
    throw withContext(e, request.plan_name);
  }
  const std::string& cp = request.cluster_file;
  Cluster cluster;
  {
    const nlohmann::json j = json_util::readFile(cp);
    try {
      cluster = Cluster::fromJson(j);
    } catch (const InputError& e) {
      throw withContext(e, cp);
    }
  }
  const std::vector<ResolvedPool> pools = resolve(cluster, scenario, catalog, plan, cp);
  LaunchLayout layout;
  try {
    layout = layoutLaunch(plan, pools, cp);
  } catch (const InputError& e) {
    throw withContext(e, request.plan_name);
  }
  try {
    return exportLaunch(request.format, cluster, layout, spec.toJson());
  } catch (const InputError& e) {
    throw withContext(e, cp);
  }
}

std::vector<std::string> writeExportFiles(const std::vector<ExportFile>& files,
                                          const std::string& dir, const std::string& field) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw InputError(field, "\"" + dir + "\" (" + (ec ? ec.message() : "not a directory") + ")",
                     "a directory that exists or can be created");
  std::vector<std::string> written;
  for (const ExportFile& f : files) {
    const std::string path = (fs::path(dir) / f.name).string();
    json_util::writeFileAtomically(path, f.text);
    written.push_back(path);
  }
  return written;
}

}  // namespace sailor
