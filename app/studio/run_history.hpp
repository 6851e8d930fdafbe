// The studio's view of the run store: the past runs list (with each run's final loss) and one
// stored run reopened whole (its record, iteration rows and events), as plain engine values for
// the run monitor. Reads through the engine's RunStore, read-only (StoreAccess::ReadOnly, as
// `sailor runs`: nothing is created, migrated or written, so a store on a read-only location
// lists; SQLite WAL: reading while a run is being recorded is fine). Each call opens its own
// connection and closes it, so a RunHistory may be
// kept and used from any one thread at a time. The queries are small (one row per run, one per
// iteration): fine on the GUI thread for stores of hundreds of runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <QString>

#include "sailor/runs/run_events.hpp"
#include "sailor/runs/run_store.hpp"

namespace sailor::studio {

// One stored run, whole.
struct StoredRun {
  sailor::RunRecord run;
  std::vector<sailor::IterationRecord> iterations;  // by iteration
  std::vector<sailor::EventRecord> events;          // by seq
};

// The past runs list: the readable runs, and one line per row that could not be read.
struct PastRuns {
  std::vector<sailor::RunListEntry> runs;  // newest first
  // "run 2 is not listed: runs.plan is not valid JSON ...", "run 5's iterations cannot be
  // read (no final loss shown): ..." (newest first)
  std::vector<std::string> problems;
};

class RunHistory {
 public:
  // store_path empty: RunStore::defaultPath() (what `sailor run` records into by default);
  // throws sailor::StoreError when that has no directory to give (no HOME at all).
  explicit RunHistory(QString store_path = {});

  QString storePath() const { return path_; }

  // Every readable run, newest first, each with its last iteration's loss; a row that cannot be
  // read (RunStore::listReadableRuns) is left out and named in problems, never hiding the rest.
  // A store file that does not exist yet lists nothing (and is not created). Throws
  // sailor::StoreError when the file as a whole cannot be read (not a database, a newer schema).
  PastRuns list() const;
  // One run with its iterations and events; nullopt when the store or the run does not exist.
  // Throws sailor::StoreError as list().
  std::optional<StoredRun> open(std::int64_t run_id) const;

 private:
  QString path_;
};

}  // namespace sailor::studio
