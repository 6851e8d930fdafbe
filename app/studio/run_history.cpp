// The studio's run history (run_history.hpp): the past runs list and one stored run, read-only.
#include "run_history.hpp"

#include <QFile>
#include <QFileInfo>

namespace sailor::studio {

RunHistory::RunHistory(QString store_path)
    : path_(store_path.isEmpty()
                ? QFile::decodeName(QByteArray::fromStdString(sailor::RunStore::defaultPath()))
                : std::move(store_path)) {}

PastRuns RunHistory::list() const {
  PastRuns out;
  if (!QFileInfo::exists(path_)) return out;
  const sailor::RunStore store(QFile::encodeName(path_).toStdString(),
                               sailor::StoreAccess::ReadOnly);
  sailor::RunListing listing = store.listReadableRuns();
  for (const sailor::SkippedRun& bad : listing.skipped)
    out.problems.push_back("run " + std::to_string(bad.id) + " is not listed: " + bad.reason);
  for (sailor::RunRecord& r : listing.runs) {
    sailor::RunListEntry e;
    if (r.iterations_done > 0) {
      // The store has no "last iteration" query; a run's rows are few (one per iteration).
      try {
        const std::vector<sailor::IterationRecord> its = store.iterations(r.id);
        if (!its.empty()) e.final_loss = its.back().loss;
      } catch (const sailor::StoreError& err) {
        out.problems.push_back("run " + std::to_string(r.id) +
                               "'s iterations cannot be read (no final loss shown): " + err.what());
      }
    }
    e.run = std::move(r);
    out.runs.push_back(std::move(e));
  }
  return out;
}

std::optional<StoredRun> RunHistory::open(std::int64_t run_id) const {
  if (!QFileInfo::exists(path_)) return std::nullopt;
  const sailor::RunStore store(QFile::encodeName(path_).toStdString(),
                               sailor::StoreAccess::ReadOnly);
  std::optional<sailor::RunRecord> record = store.run(run_id);
  if (!record) return std::nullopt;
  StoredRun s;
  s.run = std::move(*record);
  s.iterations = store.iterations(run_id);
  s.events = store.events(run_id);
  return s;
}

}  // namespace sailor::studio
