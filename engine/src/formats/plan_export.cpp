// A plan's launch files from its inputs (plan_export.hpp): `sailor export` and the studio's
// Export target.
#include "sailor/formats/plan_export.hpp"

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/scenario/cluster.hpp"

namespace sailor {

bool isSmokeTest(const RunSpec& spec, const ModelSpec& catalogue) {
  return spec.model.hidden_size != catalogue.hidden_size ||
         spec.model.ffn_hidden_size != catalogue.ffn_hidden_size ||
         spec.model.vocab_size != catalogue.vocab_size;
}

std::vector<std::string> trainingSummary(const RunSpec& spec, const ModelSpec& catalogue) {
  const RuntimeModel& m = spec.model;
  const auto n = [](auto x) { return std::to_string(x); };
  std::vector<std::string> lines;
  if (isSmokeTest(spec, catalogue)) {
    lines.push_back("SMOKE TEST, not the job: " + m.name + " scaled to hidden " + n(m.hidden_size) +
                    ", MLP " + n(m.ffn_hidden_size) + ", vocabulary " + n(m.vocab_size) +
                    ", sequence " + n(m.sequence_length) + ";");
    lines.push_back("the job's model has hidden " + n(catalogue.hidden_size) + ", MLP " +
                    n(catalogue.ffn_hidden_size) + ", vocabulary " + n(catalogue.vocab_size) +
                    " (--real-size trains it);");
  } else {
    lines.push_back("Trains " + m.name + " at its real size: " + n(m.layers) + " blocks, hidden " +
                    n(m.hidden_size) + ", MLP " + n(m.ffn_hidden_size) + ", " + n(m.heads) +
                    " heads,");
    lines.push_back("vocabulary " + n(m.vocab_size) + ", sequence " + n(m.sequence_length) + ";");
  }
  if (spec.data_format == "synthetic")
    lines.push_back("data: synthetic tokens (give the job's token file with --data FILE);");
  else if (spec.data_format == "tokens") lines.push_back("data: tokens of " + spec.data + ";");
  else lines.push_back("data: the bytes of " + spec.data + ";");
  char lr[32];
  std::snprintf(lr, sizeof lr, "%g", spec.learning_rate);
  lines.push_back("global batch " + n(spec.global_batch_size) + " in microbatches of " +
                  n(spec.plan.microbatch_size) + ", " + n(spec.iterations) + " iterations, " +
                  precisionName(spec.precision) + ", " + optimizerName(spec.optimizer) + " at lr " +
                  lr + ", seed " + n(spec.seed) + ";");
  Job job;
  job.recompute = spec.recompute;
  lines.push_back("schedule: " + spec.plan.schedule.describe(job) + ".");
  return lines;
}

RunSpec exportRunSpec(const Job& job, const Plan& plan, const Catalog& catalog,
                      const PlanExportRequest& request) {
  RunOptions options = request.options;
  // SGD steps by the gradient itself and needs a larger rate, as `sailor run` sets it.
  if (job.optimizer == Optimizer::Sgd && options.learning_rate == RunOptions{}.learning_rate) {
    options.learning_rate = 0.05;
    options.min_learning_rate = options.learning_rate / 10;
  }
  try {
    return RunSpec::build(plan, job, catalog.model(job.model, "model"), options);
  } catch (const InputError& e) {
    throw withContext(e, request.plan_name);
  }
}

std::string withTrainingSummary(std::string text, const RunSpec& spec, const ModelSpec& catalogue) {
  std::string about;
  for (const std::string& line : trainingSummary(spec, catalogue)) about += "# " + line + "\n";
  const std::size_t at = text.rfind("#!", 0) == 0 ? text.find('\n') + 1 : 0;
  text.insert(at, about);
  return text;
}

std::vector<ExportFile> exportPlanLaunch(const Scenario& scenario, const Job& job, const Plan& plan,
                                         const Catalog& catalog, const PlanExportRequest& request) {
  const RunSpec spec = exportRunSpec(job, plan, catalog, request);
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
  std::vector<ExportFile> files;
  try {
    files = exportLaunch(request.format, cluster, layout, spec.toJson());
  } catch (const InputError& e) {
    throw withContext(e, cp);
  }
  // Each file says what it trains, after its interpreter line.
  const ModelSpec& model = catalog.model(job.model, "model");
  for (ExportFile& f : files) f.text = withTrainingSummary(std::move(f.text), spec, model);
  return files;
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
