// The run store: a SQLite database in which the runtime (`sailor run`) records each training
// run, its iterations and its events, and from which `sailor runs` and the studio read them.
//
// Schema (version 4, docs/formats.md "Run store"):
//   runs(id INTEGER PRIMARY KEY AUTOINCREMENT, name, status, started_at, finished_at,
//        world_size, iterations_planned, iterations_done, backend, error,
//        plan, scenario, job, model,
//        controller_pid, controller_host, controller_boot_id, controller_start_ticks,
//        launcher, job_id, run_dir)
//     the controller_* columns (version 2) identify the process that created the run, so that a
//     run left `running` by a killed controller can be told from a live one; NULL in rows
//     written by version 1.
//     launcher ("local", "slurm"), job_id (the scheduler's) and run_dir (where a cluster run's
//     workers write their events) are version 3; NULL in older rows (a local run).
//     status is one of running|finished|failed|stopped; times are UTC ISO-8601 with
//     milliseconds ("2026-11-30T13:05:00.123Z"); finished_at and error are NULL until set;
//     plan/scenario/job/model are JSON text; iterations_done is the number of iteration rows.
//   iterations(run_id, iteration, loss, iteration_seconds, tokens_per_second, detail)
//     PRIMARY KEY(run_id, iteration); run_id references runs(id) ON DELETE CASCADE; detail is
//     JSON text; a NaN figure (a diverged loss) is stored as NULL and read back as NaN.
//   events(run_id, seq, time, kind, payload)
//     PRIMARY KEY(run_id, seq); seq counts 1, 2, 3... per run; kind is the event's "event" field
//     and payload the whole event object as JSON text; ON DELETE CASCADE as above.
//   meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)
//     version 4: 'store_id', the store's identity (storeId()).
//
// Migration policy: the schema version is SQLite's `PRAGMA user_version` (0 for a new file).
// run_store.cpp holds an append-only list of migrations; migration N takes a version N-1
// database to version N. Opening a store applies the missing ones in order, each in its own
// BEGIN IMMEDIATE transaction that also sets user_version, so a crash leaves a whole version and
// two processes opening a new file at once do not both migrate it. A released migration is
// never edited: a schema change appends a migration and raises kSchemaVersion. A database whose
// version is newer than this build's is refused (StoreError naming both versions) rather than
// written to by code that does not know its schema.
//
// Read-only access (StoreAccess::ReadOnly, what `sailor runs` uses): opens the file with
// SQLITE_OPEN_READONLY, creates nothing, sets no journal mode and migrates nothing, so it works on
// a file or directory the caller may not write; a store of an older version is read as it is
// (columns it lacks read as unset). SQLite reads a WAL store without a -shm file from memory;
// only where it still cannot open the WAL index (SQLITE_CANTOPEN, or SQLITE_READONLY and its
// extended codes: a -wal file and no -shm it may create, or a WAL store alone in a directory it
// may not write, SQLITE_READONLY_DIRECTORY) is the file reopened as immutable, which ignores the
// -wal file: commits not yet checkpointed into the file are then not seen.
//
// Concurrency: the database is in WAL mode, so readers (the CLI, the studio) read while the
// runtime writes; writers wait up to 5 s for each other (busy timeout). Every write is one
// transaction. A RunStore is one connection: use it from one thread at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sailor/runs/run_events.hpp"  // RunStatus

struct sqlite3;

namespace sailor {

enum class StoreAccess { ReadWrite, ReadOnly };

// The process that controls a run (the one that called createRun), recorded to detect a run
// whose controller died without finishing it.
struct ControllerId {
  std::int64_t pid = 0;          // 0: not recorded (a row from a version 1 store)
  std::string host;              // gethostname()
  std::string boot_id;           // /proc/sys/kernel/random/boot_id; "" where unavailable
  std::int64_t start_ticks = 0;  // /proc/<pid>/stat field 22 (clock ticks after boot); 0 unknown
};
ControllerId currentController();  // this process

// UTC now as ISO-8601 with milliseconds, "2026-11-30T13:05:00.123Z": the time of runs, events and
// the runtime's event stream.
std::string utcNow();

// Thrown for database failures (cannot open, schema newer than this build, constraint errors,
// unknown run id); the message names the database path and SQLite's message.
class StoreError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json's noexcept move checks invariants
struct RunRecord {
  std::int64_t id = 0;
  std::string name;  // free text, e.g. the plan file's name
  RunStatus status = RunStatus::Running;
  std::string started_at;   // UTC ISO-8601 "2026-11-30T13:05:00.123Z", set by createRun
  std::string finished_at;  // empty while running
  int world_size = 0;
  int iterations_planned = 0;
  int iterations_done = 0;  // number of iteration rows, maintained by addIteration
  std::string backend;      // "gloo" / "nccl"
  std::string error;        // empty unless failed
  nlohmann::json plan, scenario, job, model;  // stored as JSON text; model: runtime model config
  ControllerId controller;                    // set by createRun to the calling process
  std::string launcher;  // "local" or "slurm"; "" in rows older than version 3 (local)
  std::string job_id;    // the scheduler's job id (setJobId); "" for a local run
  std::string run_dir;   // a cluster run's directory (events files, spec, token); "" if local
};

// Why the controller `c` is gone ("controller 1234 is gone"), or none when it was not recorded,
// ran on another host, or is still alive. Gone: the machine rebooted since (another boot id),
// kill(pid, 0) fails with ESRCH, or /proc/<pid>/stat shows another start time (the pid was
// reused). Also what the runtime uses to sweep the private directories of dead controllers.
std::optional<std::string> controllerGone(const ControllerId& c);

// controllerGone of a running run's controller; none for a run that is not running or that has
// a scheduler job id (a cluster run outlives its controller).
std::optional<std::string> orphanReason(const RunRecord& r);

// A runs row that could not be read (an unknown status, a JSON column that does not parse).
struct SkippedRun {
  std::int64_t id = 0;
  std::string reason;  // names the column and what is wrong with it
};

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json's noexcept move checks invariants
struct RunListing {
  std::vector<RunRecord> runs;      // newest first
  std::vector<SkippedRun> skipped;  // newest first
};

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json's noexcept move checks invariants
struct IterationRecord {
  std::int64_t run_id = 0;
  int iteration = 0;  // 0-based
  double loss = 0;
  double iteration_seconds = 0;
  double tokens_per_second = 0;
  nlohmann::json detail;  // per-stage / per-rank figures, stored as JSON text
};

// NOLINTNEXTLINE(bugprone-exception-escape): nlohmann::json's noexcept move checks invariants
struct EventRecord {
  std::int64_t run_id = 0;
  std::int64_t seq = 0;    // 1, 2, 3... per run, assigned by the store
  std::string time;        // UTC ISO-8601, assigned by the store
  std::string kind;        // the event's "event" field ("" when it has none)
  nlohmann::json payload;  // the whole event object
};

// One line of a list of past runs: the stored run and its last iteration's loss.
struct RunListEntry {
  RunRecord run;
  std::optional<double> final_loss;  // none when no iteration was recorded; NaN if diverged
};

// JSON views of the records (what `sailor runs ... --json` prints). Run: every field, status as
// its name, finished_at and error null when empty, controller {pid, host, boot_id, start_ticks}
// null when not recorded. Iteration: iteration, loss,
// iteration_seconds, tokens_per_second (each null when NaN), detail. Event: seq, time, kind,
// payload.
nlohmann::json toJson(const RunRecord& r);
nlohmann::json toJson(const IterationRecord& it);
nlohmann::json toJson(const EventRecord& e);

class RunStore {
 public:
  static constexpr int kSchemaVersion = 4;

  // ReadWrite: opens or creates the database (creating parent directories), sets WAL mode, a
  // busy timeout of 5 s and foreign keys on, and migrates the schema up to kSchemaVersion (see
  // above). ReadOnly: opens an existing file without writing anything (see above); the write
  // methods then throw StoreError. Either way a database whose version is newer than
  // kSchemaVersion is refused with a StoreError saying both versions.
  explicit RunStore(const std::string& path, StoreAccess access = StoreAccess::ReadWrite);
  ~RunStore();
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  // $SAILOR_RUN_STORE, else $XDG_DATA_HOME/sailor-studio/runs.sqlite (XDG_DATA_HOME absolute),
  // else $HOME/.local/share/sailor-studio/runs.sqlite (HOME from the password database when
  // unset). Throws StoreError when none of them gives a directory.
  static std::string defaultPath();
  const std::string& path() const;
  int schemaVersion() const;  // read from the file
  // The store's identity: 32 lowercase hex digits drawn at random in the transaction that
  // created the store (or that first opened an older store for writing); "" for a store older
  // than version 4 opened read-only. A store deleted and created again has another identity.
  const std::string& storeId() const;
  // Where run `run_id` of this store keeps its checkpoints (docs/checkpoints.md):
  // <store's directory>/checkpoints/<store file's stem>-<first 8 digits of
  // storeId()>/run-<ID>, so that two stores in one directory, or a store and the one that
  // replaced it, never share one. Throws StoreError for a store without an identity.
  std::string checkpointDir(std::int64_t run_id) const;

  // Inserts a run with status Running, started_at now, iterations_done 0, no finished_at, no
  // error and this process as its controller (those fields of r are ignored); returns its id.
  std::int64_t createRun(const RunRecord& r);
  // Iteration row + its event row (kind and seq as addEvent) + runs.iterations_done, in one
  // transaction: when any part fails (a duplicate iteration number, an unknown run id) nothing
  // is stored.
  void addIteration(const IterationRecord& it, const nlohmann::json& event);
  void addEvent(std::int64_t run_id, const nlohmann::json& event);  // kind = event["event"]
  // Sets status, finished_at (now) and error (stored as NULL when empty). status may not be
  // Running (InputError).
  void finishRun(std::int64_t run_id, RunStatus status, const std::string& error);
  // A cluster run's job id, once the scheduler took the job. A running run with a job id is
  // never an orphan (orphanReason): its workers live in the job, not under the controller.
  void setJobId(std::int64_t run_id, const std::string& job_id);
  // Makes this process the run's controller (`sailor runs attach` taking a cluster run over).
  void adoptRun(std::int64_t run_id);

  // `sailor run --resume`: in one transaction, a stopped or failed run's iterations from
  // `from_iteration` on are removed (they are trained again), the run is set running again with
  // this process as its controller, no finished_at or error, `iterations_planned`, and `event`
  // (its resumed event, kind and seq as addEvent) is stored. Returns how many iterations were
  // removed. Throws StoreError for an unknown run or one that is neither stopped nor failed
  // (nothing changed).
  int resumeRun(std::int64_t run_id, int from_iteration, int iterations_planned,
                const nlohmann::json& event);

  // Marks every running run whose controller is gone (orphanReason) failed with that reason and
  // stores a finished event for it (seconds: from started_at until now); a run finished
  // meanwhile by its controller is left alone. Returns the ids marked, newest first.
  std::vector<std::int64_t> failOrphanedRuns();

  // A running run reconfigured from a checkpoint (docs/elasticity.md): in one
  // transaction its iterations from `from_iteration` on are removed (they are trained again),
  // iterations_done follows, and `event` (its reconfigured event) is stored. Returns how many
  // iterations were removed. Throws StoreError for an unknown run.
  int rewindRun(std::int64_t run_id, int from_iteration, const nlohmann::json& event);

  std::vector<RunRecord> listRuns() const;  // newest first (by id); throws on an unreadable row
  RunListing listReadableRuns() const;      // the same, unreadable rows skipped and named
  std::optional<RunRecord> run(std::int64_t id) const;
  std::vector<IterationRecord> iterations(std::int64_t run_id) const;  // by iteration
  std::vector<EventRecord> events(std::int64_t run_id) const;          // by seq
  std::int64_t eventCount(std::int64_t run_id) const;

 private:
  void migrate();
  void readStoreId();
  std::string runColumns() const;  // the SELECT list, NULL for columns of a newer version
  void requireRun(std::int64_t run_id) const;
  void insertEvent(std::int64_t run_id, const nlohmann::json& event);
  [[noreturn]] void fail(const std::string& what) const;

  std::string path_;
  sqlite3* db_ = nullptr;
  int version_ = 0;       // the file's schema version after opening
  std::string store_id_;  // storeId()
};

}  // namespace sailor
