// The communication term of the emulated-zones benchmark (tests/bench/zones_bench.py): for a
// pipeline of one tp-1 replica per stage, the seconds the simulator gives each stage-boundary
// transfer (boundaryTransferSeconds over the scenario's link between the two stages' zones, as
// simulate() does) for the message of the runtime's model (`sailor run`'s scaled model: microbatch
// x sequence x hidden elements of the run's dtype), and their sum over an iteration: every
// microbatch's activation and gradient crosses each boundary once, and with blocking transfers
// between two stages each one lies on the critical path.
// Usage: zone_predict --scenario F --plan F --job F [--hidden N] [--seq-len N] [--dtype D]
// Prints one JSON object.
#include <cstdio>
#include <iostream>
#include <string>

#include "sailor/core/json_util.hpp"
#include "sailor/model/catalog.hpp"
#include "sailor/model/job.hpp"
#include "sailor/planning/plan.hpp"
#include "sailor/runs/run_spec.hpp"
#include "sailor/scenario/scenario.hpp"
#include "sailor/simulation/simulator.hpp"

using namespace sailor;
using nlohmann::json;

int main(int argc, char** argv) {
  try {
    std::string scenario_file, plan_file, job_file;
    RunOptions ro;
    for (int i = 1; i + 1 < argc; i += 2) {
      const std::string k = argv[i], v = argv[i + 1];
      if (k == "--scenario") scenario_file = v;
      else if (k == "--plan") plan_file = v;
      else if (k == "--job") job_file = v;
      else if (k == "--hidden") ro.hidden_size = std::stoi(v);
      else if (k == "--seq-len") ro.sequence_length = std::stoi(v);
      else if (k == "--dtype") ro.dtype = v;
      else throw std::runtime_error("unknown option " + k);
    }
    const Catalog catalog = Catalog::load(resourceDir());
    const Scenario sc = Scenario::fromJson(json_util::readFile(scenario_file), catalog);
    const Job job = Job::fromJson(json_util::readFile(job_file), catalog);
    const Plan plan = Plan::fromJson(json_util::readFile(plan_file));
    const RunSpec spec = RunSpec::build(plan, job, catalog.model(job.model, "job.model"), ro);
    const double element = spec.dtype == "float64" ? 8 : 4;
    const double bytes = static_cast<double>(plan.microbatch_size) * spec.model.sequence_length *
                         spec.model.hidden_size * element;
    json out{{"microbatches", spec.microbatches}, {"message_bytes", bytes}};
    double comm = 0;
    for (std::size_t s = 0; s + 1 < plan.stages.size(); ++s) {
      const Replica& a = plan.stages[s].replicas.at(0);
      const Replica& b = plan.stages[s + 1].replicas.at(0);
      if (plan.stages[s].replicas.size() != 1 || plan.stages[s + 1].replicas.size() != 1 ||
          a.tp != 1 || b.tp != 1)
        throw std::runtime_error("zone_predict: one tp-1 replica per stage only");
      const ResolvedLink fwd = sc.link(LinkQuery{a.zone, a.gpu_type, b.zone, b.gpu_type, 1});
      const ResolvedLink bwd = sc.link(LinkQuery{b.zone, b.gpu_type, a.zone, a.gpu_type, 1});
      const double f =
          boundaryTransferSeconds(fwd, sc.intraNodeLink(b.gpu_type, catalog), bytes, 1, false);
      const double g =
          boundaryTransferSeconds(bwd, sc.intraNodeLink(a.gpu_type, catalog), bytes, 1, false);
      comm += spec.microbatches * (f + g);
      out["boundaries"].push_back(
          {{"stage", s}, {"link", fwd.source}, {"forward_s", f}, {"backward_s", g}});
    }
    out["comm_s"] = comm;
    std::cout << out.dump() << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "zone_predict: " << e.what() << "\n";
    return 2;
  }
}
