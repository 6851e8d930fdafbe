#include "run_history.hpp"

#include <QFileInfo>

namespace sailor::studio {

RunHistory::RunHistory(QString store_path)
    : path_(store_path.isEmpty() ? QString::fromStdString(sailor::RunStore::defaultPath())
                                 : std::move(store_path)) {}

std::vector<sailor::RunListEntry> RunHistory::list() const {
  std::vector<sailor::RunListEntry> out;
  if (!QFileInfo::exists(path_)) return out;
  const sailor::RunStore store(path_.toStdString());
  for (sailor::RunRecord& r : store.listRuns()) {
    sailor::RunListEntry e;
    if (r.iterations_done > 0) {
      // The store has no "last iteration" query; a run's rows are few (one per iteration).
      const std::vector<sailor::IterationRecord> its = store.iterations(r.id);
      if (!its.empty()) e.final_loss = its.back().loss;
    }
    e.run = std::move(r);
    out.push_back(std::move(e));
  }
  return out;
}

std::optional<StoredRun> RunHistory::open(std::int64_t run_id) const {
  if (!QFileInfo::exists(path_)) return std::nullopt;
  const sailor::RunStore store(path_.toStdString());
  std::optional<sailor::RunRecord> record = store.run(run_id);
  if (!record) return std::nullopt;
  StoredRun s;
  s.run = std::move(*record);
  s.iterations = store.iterations(run_id);
  s.events = store.events(run_id);
  return s;
}

}  // namespace sailor::studio
