// The run store (sailor/runs/run_store.hpp): SQLite through its C API, one connection per RunStore.
//
//   utcNow ................. the timestamp format of runs, events and the event stream
//   kMigrations ............ the schema, one append-only entry per version (docs/formats.md)
//   Statement, Transaction . a prepared statement and BEGIN IMMEDIATE/COMMIT, errors naming the
//                            database path and SQLite's message (StoreError)
//   readRun ................ one runs row as a RunRecord
//   currentController,
//   controllerGone,
//   orphanReason ........... who controls a run, and whether that process is gone
//   toJson ................. the JSON views `sailor runs ... --json` prints
//   RunStore ............... open (read-write + migrate, or read-only), defaultPath, the writes
//                            (createRun, addIteration, addEvent, finishRun, failOrphanedRuns:
//                            one transaction each) and the reads (listReadableRuns skips a
//                            row it cannot read and names it)
//
// Event payloads are stored as given; their encoding is sailor/runs/run_events.hpp's.
#include "sailor/runs/run_store.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>

#include <sqlite3.h>

#include "sailor/core/error.hpp"
#include "sailor/core/json_util.hpp"
#include "sailor/runs/run_events.hpp"

namespace sailor {

std::string utcNow() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[40];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms));
  return out;
}

using nlohmann::json;

namespace {

// The schema, one entry per version, append-only (see run_store.hpp): migration i takes a
// database from version i to version i + 1. Never edit a released entry.
const char* const kMigrations[] = {
    // 0 -> 1: runs, iterations, events.
    R"sql(
CREATE TABLE runs (
  id                 INTEGER PRIMARY KEY AUTOINCREMENT,
  name               TEXT    NOT NULL,
  status             TEXT    NOT NULL
                     CHECK (status IN ('running', 'finished', 'failed', 'stopped')),
  started_at         TEXT    NOT NULL,
  finished_at        TEXT,
  world_size         INTEGER NOT NULL CHECK (world_size >= 0),
  iterations_planned INTEGER NOT NULL CHECK (iterations_planned >= 0),
  iterations_done    INTEGER NOT NULL DEFAULT 0,
  backend            TEXT    NOT NULL,
  error              TEXT,
  plan               TEXT    NOT NULL,
  scenario           TEXT    NOT NULL,
  job                TEXT    NOT NULL,
  model              TEXT    NOT NULL
);
CREATE TABLE iterations (
  run_id             INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  iteration          INTEGER NOT NULL CHECK (iteration >= 0),
  loss               REAL,
  iteration_seconds  REAL,
  tokens_per_second  REAL,
  detail             TEXT    NOT NULL,
  PRIMARY KEY (run_id, iteration)
);
CREATE TABLE events (
  run_id             INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq                INTEGER NOT NULL CHECK (seq >= 1),
  time               TEXT    NOT NULL,
  kind               TEXT    NOT NULL,
  payload            TEXT    NOT NULL,
  PRIMARY KEY (run_id, seq)
);
)sql",
    // 1 -> 2: the controller's identity, to tell a run whose controller died from a live one.
    R"sql(
ALTER TABLE runs ADD COLUMN controller_pid         INTEGER;
ALTER TABLE runs ADD COLUMN controller_host        TEXT;
ALTER TABLE runs ADD COLUMN controller_boot_id     TEXT;
ALTER TABLE runs ADD COLUMN controller_start_ticks INTEGER;
)sql",
    // 2 -> 3: where a run's workers run: the launcher ("local" or "slurm"; NULL in older rows:
    // local), the scheduler's job id and the run directory its workers write their events to.
    R"sql(
ALTER TABLE runs ADD COLUMN launcher TEXT;
ALTER TABLE runs ADD COLUMN job_id   TEXT;
ALTER TABLE runs ADD COLUMN run_dir  TEXT;
)sql",
    // 3 -> 4: the store's identity, a random 128-bit id drawn in the transaction that creates
    // the table (a new store's creation, or an older store's first open for writing): what a
    // run's checkpoints are kept under and checked against (RunStore::checkpointDir).
    R"sql(
CREATE TABLE meta (
  key                TEXT    PRIMARY KEY,
  value              TEXT    NOT NULL
);
INSERT INTO meta (key, value) VALUES ('store_id', lower(hex(randomblob(16))));
)sql",
};
static_assert(std::size(kMigrations) == RunStore::kSchemaVersion,
              "one migration per schema version");

constexpr int kBusyTimeoutMs = 5000;

// JSON as stored: compact, invalid UTF-8 replaced rather than throwing.
std::string jsonText(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string eventKind(const json& event) {
  if (!event.is_object()) return "";
  auto it = event.find("event");
  return it != event.end() && it->is_string() ? it->get<std::string>() : "";
}

// A prepared statement; errors name the database path and SQLite's message.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& path, const char* sql)
      : db_(db), path_(path), sql_(sql), stmt_(prepare()) {}
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, std::int64_t v) { return check(sqlite3_bind_int64(stmt_, i, v)); }
  Statement& bind(int i, int v) { return check(sqlite3_bind_int(stmt_, i, v)); }
  Statement& bind(int i, double v) { return check(sqlite3_bind_double(stmt_, i, v)); }
  Statement& bind(int i, const std::string& v) {
    return check(
        sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  Statement& bindTextOrNull(int i, const std::string& v) {
    return v.empty() ? check(sqlite3_bind_null(stmt_, i)) : bind(i, v);
  }

  // True while there is a row; false when done.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail("executing");
  }
  void run() {
    while (step()) {
    }
  }

  std::int64_t int64(int col) const { return sqlite3_column_int64(stmt_, col); }
  int int32(int col) const { return sqlite3_column_int(stmt_, col); }
  bool isNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  double real(int col) const {
    return isNull(col) ? std::numeric_limits<double>::quiet_NaN()
                       : sqlite3_column_double(stmt_, col);
  }
  std::string text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string();
  }
  json jsonColumn(int col, const char* what) const {
    try {
      return json_util::parseText(text(col), what);  // bounded: nesting, size, numbers
    } catch (const InputError& e) {
      throw StoreError(path_ + ": " + what + " is not valid JSON: got " + e.value() +
                       ", expected " + e.expected());
    }
  }

 private:
  Statement& check(int rc) {
    if (rc != SQLITE_OK) fail("binding a value");
    return *this;
  }
  [[noreturn]] void fail(const char* what) const {
    throw StoreError(path_ + ": " + sqlite3_errmsg(db_) + " (" + what + " \"" + sql_ + "\")");
  }
  // SQLite leaves the statement NULL when preparing fails.
  sqlite3_stmt* prepare() const {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql_, -1, &stmt, nullptr) != SQLITE_OK) fail("preparing");
    return stmt;
  }

  sqlite3* db_;
  const std::string& path_;
  const char* sql_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE on construction; ROLLBACK on destruction unless commit() succeeded.
class Transaction {
 public:
  Transaction(sqlite3* db, const std::string& path) : db_(db), path_(path) {
    exec("BEGIN IMMEDIATE");
  }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit() {
    exec("COMMIT");
    done_ = true;
  }

 private:
  void exec(const char* sql) {
    if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK)
      throw StoreError(path_ + ": " + sql + ": " + sqlite3_errmsg(db_));
  }
  sqlite3* db_;
  const std::string& path_;
  bool done_ = false;
};

int userVersion(sqlite3* db, const std::string& path) {
  Statement s(db, path, "PRAGMA user_version");
  return s.step() ? s.int32(0) : 0;
}

const char* const kRunColumns =
    "id, name, status, started_at, finished_at, world_size, iterations_planned, "
    "iterations_done, backend, error, plan, scenario, job, model";
const char* const kControllerColumns =
    "controller_pid, controller_host, controller_boot_id, controller_start_ticks";
const char* const kLaunchColumns = "launcher, job_id, run_dir";

RunRecord readRun(const Statement& s, const std::string& path) {
  RunRecord r;
  r.id = s.int64(0);
  r.name = s.text(1);
  try {
    r.status = runStatusFromName(s.text(2));
  } catch (const InputError& e) {
    throw StoreError(path + ": run " + std::to_string(r.id) + ": " + e.what());
  }
  r.started_at = s.text(3);
  r.finished_at = s.text(4);
  r.world_size = s.int32(5);
  r.iterations_planned = s.int32(6);
  r.iterations_done = s.int32(7);
  r.backend = s.text(8);
  r.error = s.text(9);
  r.plan = s.jsonColumn(10, "runs.plan");
  r.scenario = s.jsonColumn(11, "runs.scenario");
  r.job = s.jsonColumn(12, "runs.job");
  r.model = s.jsonColumn(13, "runs.model");
  r.controller.pid = s.int64(14);  // NULL (version 1 rows) reads as 0: not recorded
  r.controller.host = s.text(15);
  r.controller.boot_id = s.text(16);
  r.controller.start_ticks = s.int64(17);
  r.launcher = s.text(18);  // NULL (versions 1 and 2) reads as "": a local run
  r.job_id = s.text(19);
  r.run_dir = s.text(20);
  return r;
}

std::string firstLine(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

// Field 22 of /proc/<pid>/stat (start time, clock ticks after boot); 0 when unreadable.
std::int64_t processStartTicks(std::int64_t pid) {
  const std::string stat = firstLine("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return 0;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i)
    if (i == 22) return std::strtoll(field.c_str(), nullptr, 10);
  return 0;
}

std::string hostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

// Seconds from an ISO-8601 UTC time as utcNow writes it until now; 0 when it does not parse.
double secondsSince(const std::string& iso) {
  std::tm tm{};
  int ms = 0;
  if (std::sscanf(iso.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) != 7)
    return 0;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const double start = static_cast<double>(timegm(&tm)) + ms / 1000.0;
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  return std::max(0.0, now - start);
}

}  // namespace

ControllerId currentController() {
  ControllerId c;
  c.pid = getpid();
  c.host = hostName();
  c.boot_id = firstLine("/proc/sys/kernel/random/boot_id");
  c.start_ticks = processStartTicks(c.pid);
  return c;
}

std::optional<std::string> controllerGone(const ControllerId& c) {
  // pid_t range only: kill() with 0 or a negative pid would address process groups.
  if (c.pid <= 0 || c.pid > std::numeric_limits<pid_t>::max()) return std::nullopt;
  const ControllerId self = currentController();
  if (c.host.empty() || c.host != self.host) return std::nullopt;  // cannot look at its processes
  const std::string gone = "controller " + std::to_string(c.pid) + " is gone";
  if (!c.boot_id.empty() && !self.boot_id.empty() && c.boot_id != self.boot_id)
    return gone + " (the machine restarted since)";
  if (kill(static_cast<pid_t>(c.pid), 0) != 0 && errno == ESRCH) return gone;
  if (c.start_ticks > 0) {
    const std::int64_t now = processStartTicks(c.pid);
    if (now > 0 && now != c.start_ticks) return gone + " (its pid now names another process)";
  }
  return std::nullopt;
}

std::optional<std::string> orphanReason(const RunRecord& r) {
  if (r.status != RunStatus::Running) return std::nullopt;
  // A cluster run's workers belong to the scheduler's job, which outlives its controller:
  // `sailor runs attach` takes such a run over, so a gone controller does not end it.
  if (!r.job_id.empty()) return std::nullopt;
  return controllerGone(r.controller);
}

json toJson(const RunRecord& r) {
  auto or_null = [](const std::string& s) { return s.empty() ? json() : json(s); };
  return {{"id", r.id},
          {"name", r.name},
          {"status", runStatusName(r.status)},
          {"started_at", r.started_at},
          {"finished_at", or_null(r.finished_at)},
          {"world_size", r.world_size},
          {"iterations_planned", r.iterations_planned},
          {"iterations_done", r.iterations_done},
          {"backend", r.backend},
          {"error", or_null(r.error)},
          {"plan", r.plan},
          {"scenario", r.scenario},
          {"job", r.job},
          {"model", r.model},
          {"controller", r.controller.pid == 0 ? json()
                                               : json{{"pid", r.controller.pid},
                                                      {"host", r.controller.host},
                                                      {"boot_id", r.controller.boot_id},
                                                      {"start_ticks", r.controller.start_ticks}}},
          {"launcher", r.launcher.empty() ? std::string("local") : r.launcher},
          {"job_id", or_null(r.job_id)},
          {"run_dir", or_null(r.run_dir)}};
}

json toJson(const IterationRecord& it) {
  auto number = [](double v) { return std::isnan(v) ? json() : json(v); };
  return {{"iteration", it.iteration},
          {"loss", number(it.loss)},
          {"iteration_seconds", number(it.iteration_seconds)},
          {"tokens_per_second", number(it.tokens_per_second)},
          {"detail", it.detail}};
}

json toJson(const EventRecord& e) {
  return {{"seq", e.seq}, {"time", e.time}, {"kind", e.kind}, {"payload", e.payload}};
}

namespace {

// "file:" URI of a path for sqlite3_open_v2 with SQLITE_OPEN_URI, with query `query`.
std::string fileUri(const std::string& path, const char* query) {
  std::string uri = "file:";
  for (unsigned char ch : std::filesystem::absolute(path).string()) {
    if (ch == '%' || ch == '?' || ch == '#' || ch < 0x21 || ch >= 0x7f) {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", ch);
      uri += buf;
    } else {
      uri += static_cast<char>(ch);
    }
  }
  return uri + "?" + query;
}

// Opens `name` with `flags` and the busy timeout; on failure returns SQLite's message (db closed
// and null).
std::optional<std::string> openDb(const std::string& name, int flags, sqlite3** db) {
  const int rc = sqlite3_open_v2(name.c_str(), db, flags, nullptr);
  if (rc == SQLITE_OK) {
    sqlite3_extended_result_codes(*db, 1);
    sqlite3_busy_timeout(*db, kBusyTimeoutMs);
    return std::nullopt;
  }
  std::string msg = *db ? sqlite3_errmsg(*db) : sqlite3_errstr(rc);
  sqlite3_close_v2(*db);
  *db = nullptr;
  return msg;
}

// Reads the schema version on a fresh connection: the first read, where a read-only WAL store
// fails when SQLite cannot open its index. Returns SQLite's message on failure.
std::optional<std::string> probeVersion(sqlite3* db, int* version) {
  sqlite3_stmt* st = nullptr;
  std::optional<std::string> err;
  if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, nullptr) != SQLITE_OK) {
    err = sqlite3_errmsg(db);
  } else {
    const int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *version = sqlite3_column_int(st, 0);
    else if (rc != SQLITE_DONE) err = sqlite3_errmsg(db);
  }
  sqlite3_finalize(st);
  return err;
}

}  // namespace

RunStore::RunStore(const std::string& path, StoreAccess access) : path_(path) {
  std::error_code dir_ec;
  if (std::filesystem::is_directory(path, dir_ec))
    throw StoreError(path + ": cannot open the run store: it is a directory, not a SQLite file");
  if (access == StoreAccess::ReadOnly) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
      throw StoreError(path + ": cannot open the run store: no such file");
    const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
    std::optional<std::string> err = openDb(fileUri(path, "mode=ro"), flags, &db_);
    if (!err) err = probeVersion(db_, &version_);
    // Only where the WAL index cannot be opened or created (no -shm we may create: in a
    // directory we may not write, SQLITE_READONLY_DIRECTORY; with a -wal file, _CANTINIT or
    // _RECOVERY): another failure (busy past the timeout, not a database) is reported as it is.
    const int code = db_ ? sqlite3_extended_errcode(db_) : SQLITE_OK;
    if (err && db_ && ((code & 0xff) == SQLITE_READONLY || (code & 0xff) == SQLITE_CANTOPEN)) {
      // Read the file as it is (see run_store.hpp).
      sqlite3_close_v2(db_);
      db_ = nullptr;
      err = openDb(fileUri(path, "mode=ro&immutable=1"), flags, &db_);
      if (!err) err = probeVersion(db_, &version_);
    }
    if (err) {
      sqlite3_close_v2(db_);
      db_ = nullptr;
      throw StoreError(path + ": cannot open the run store: " + *err);
    }
    if (version_ > kSchemaVersion) {
      sqlite3_close_v2(db_);
      db_ = nullptr;
      fail("the run store has schema version " + std::to_string(version_) +
           ", newer than this build's version " + std::to_string(kSchemaVersion) +
           "; use a newer sailor or another store");
    }
    try {
      readStoreId();
    } catch (...) {
      sqlite3_close_v2(db_);
      db_ = nullptr;
      throw;
    }
    return;
  }
  try {
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);
  } catch (const std::filesystem::filesystem_error& e) {
    throw StoreError(path + ": cannot create its directory: " + e.code().message());
  }
  const int rc =
      sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    const std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw StoreError(path + ": cannot open the run store: " + msg);
  }
  try {
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    Statement(db_, path_, "PRAGMA foreign_keys = ON").run();
    std::string mode;
    {
      Statement wal(db_, path_, "PRAGMA journal_mode = WAL");
      if (wal.step()) mode = wal.text(0);
    }  // finalized: an unfinished statement would keep the migration from committing
    if (mode != "wal")
      throw StoreError(path_ + ": cannot switch the run store to WAL journal mode (got \"" + mode +
                       "\")");
    migrate();
    version_ = userVersion(db_, path_);
    readStoreId();
  } catch (...) {
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw;
  }
}

RunStore::~RunStore() {
  sqlite3_close_v2(db_);
}

void RunStore::fail(const std::string& what) const {
  throw StoreError(path_ + ": " + what);
}

// The meta table's store_id (version 4 on); none in an older store opened read-only.
void RunStore::readStoreId() {
  store_id_.clear();
  if (version_ < 4) return;
  Statement s(db_, path_, "SELECT value FROM meta WHERE key = 'store_id'");
  if (s.step()) store_id_ = s.text(0);
}

void RunStore::migrate() {
  const int found = userVersion(db_, path_);
  if (found > kSchemaVersion)
    fail("the run store has schema version " + std::to_string(found) +
         ", newer than this build's version " + std::to_string(kSchemaVersion) +
         "; use a newer sailor or another store");
  for (int from = found; from < kSchemaVersion; ++from) {
    Transaction tx(db_, path_);
    // Another process may have migrated between our read and the write lock.
    const int now = userVersion(db_, path_);
    if (now > from) continue;  // tx rolls back (nothing written)
    char* err = nullptr;
    if (sqlite3_exec(db_, kMigrations[from], nullptr, nullptr, &err) != SQLITE_OK) {
      const std::string msg = err ? err : sqlite3_errmsg(db_);
      sqlite3_free(err);
      fail("migrating the schema from version " + std::to_string(from) + " to " +
           std::to_string(from + 1) + ": " + msg);
    }
    // PRAGMA takes no bound parameters; the value is this build's own integer constant.
    const std::string set = "PRAGMA user_version = " + std::to_string(from + 1);
    Statement(db_, path_, set.c_str()).run();
    tx.commit();
  }
}

std::string RunStore::defaultPath() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  if (std::string s = env("SAILOR_RUN_STORE"); !s.empty()) return s;
  // The XDG spec says relative values are invalid and to be ignored.
  if (std::string x = env("XDG_DATA_HOME"); !x.empty() && x.front() == '/')
    return x + "/sailor-studio/runs.sqlite";
  std::string home = env("HOME");
  if (home.empty())
    if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_dir) home = pw->pw_dir;
  if (home.empty())
    throw StoreError("no run store location: set SAILOR_RUN_STORE, XDG_DATA_HOME or HOME");
  return home + "/.local/share/sailor-studio/runs.sqlite";
}

const std::string& RunStore::path() const {
  return path_;
}

const std::string& RunStore::storeId() const {
  return store_id_;
}

std::string RunStore::checkpointDir(std::int64_t run_id) const {
  if (store_id_.size() < 8)
    fail("the run store has no identity (schema version " + std::to_string(version_) +
         ", opened read-only): open it for writing once, as `sailor run` does");
  const std::filesystem::path file(path_);
  const std::filesystem::path dir = file.parent_path().empty() ? "." : file.parent_path();
  return (dir / "checkpoints" / (file.stem().string() + "-" + store_id_.substr(0, 8)) /
          ("run-" + std::to_string(run_id)))
      .string();
}

int RunStore::schemaVersion() const {
  return userVersion(db_, path_);
}

std::string RunStore::runColumns() const {
  return std::string(kRunColumns) + ", " +
         (version_ >= 2 ? kControllerColumns : "NULL, NULL, NULL, NULL") + ", " +
         (version_ >= 3 ? kLaunchColumns : "NULL, NULL, NULL");
}

std::int64_t RunStore::createRun(const RunRecord& r) {
  Transaction tx(db_, path_);
  Statement s(db_, path_,
              "INSERT INTO runs (name, status, started_at, finished_at, world_size, "
              "iterations_planned, iterations_done, backend, error, plan, scenario, job, model, "
              "controller_pid, controller_host, controller_boot_id, controller_start_ticks, "
              "launcher, job_id, run_dir) "
              "VALUES (?1, ?2, ?3, NULL, ?4, ?5, 0, ?6, NULL, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
              "?14, ?15, NULL, ?16)");
  const ControllerId self = currentController();
  s.bind(1, r.name)
      .bind(2, std::string(runStatusName(RunStatus::Running)))
      .bind(3, utcNow())
      .bind(4, r.world_size)
      .bind(5, r.iterations_planned)
      .bind(6, r.backend)
      .bind(7, jsonText(r.plan))
      .bind(8, jsonText(r.scenario))
      .bind(9, jsonText(r.job))
      .bind(10, jsonText(r.model))
      .bind(11, self.pid)
      .bind(12, self.host)
      .bind(13, self.boot_id)
      .bind(14, self.start_ticks)
      .bind(15, r.launcher.empty() ? std::string("local") : r.launcher);
  s.bindTextOrNull(16, r.run_dir);
  s.run();
  const std::int64_t id = sqlite3_last_insert_rowid(db_);
  tx.commit();
  return id;
}

void RunStore::requireRun(std::int64_t run_id) const {
  Statement s(db_, path_, "SELECT 1 FROM runs WHERE id = ?1");
  s.bind(1, run_id);
  if (!s.step()) fail("no run " + std::to_string(run_id));
}

void RunStore::insertEvent(std::int64_t run_id, const json& event) {
  // Inside the caller's write transaction, so no other writer can take the same seq.
  Statement s(db_, path_,
              "INSERT INTO events (run_id, seq, time, kind, payload) VALUES (?1, "
              "(SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE run_id = ?1), ?2, ?3, ?4)");
  s.bind(1, run_id).bind(2, utcNow()).bind(3, eventKind(event)).bind(4, jsonText(event));
  s.run();
}

void RunStore::addIteration(const IterationRecord& it, const json& event) {
  Transaction tx(db_, path_);
  requireRun(it.run_id);
  // The event goes first: when the iteration row is refused (a duplicate iteration number), the
  // rollback takes the event row with it.
  insertEvent(it.run_id, event);
  {
    Statement s(db_, path_,
                "INSERT INTO iterations (run_id, iteration, loss, iteration_seconds, "
                "tokens_per_second, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
    s.bind(1, it.run_id)
        .bind(2, it.iteration)
        .bind(3, it.loss)  // SQLite stores NaN as NULL; real() reads NULL as NaN
        .bind(4, it.iteration_seconds)
        .bind(5, it.tokens_per_second)
        .bind(6, jsonText(it.detail));
    s.run();
  }
  Statement u(db_, path_,
              "UPDATE runs SET iterations_done = "
              "(SELECT COUNT(*) FROM iterations WHERE run_id = ?1) WHERE id = ?1");
  u.bind(1, it.run_id).run();
  tx.commit();
}

void RunStore::addEvent(std::int64_t run_id, const json& event) {
  Transaction tx(db_, path_);
  requireRun(run_id);
  insertEvent(run_id, event);
  tx.commit();
}

void RunStore::finishRun(std::int64_t run_id, RunStatus status, const std::string& error) {
  if (status == RunStatus::Running)
    throw InputError("status", "\"running\"", "\"finished\", \"failed\" or \"stopped\"");
  Transaction tx(db_, path_);
  Statement s(db_, path_,
              "UPDATE runs SET status = ?2, finished_at = ?3, error = ?4 WHERE id = ?1");
  s.bind(1, run_id).bind(2, std::string(runStatusName(status))).bind(3, utcNow());
  s.bindTextOrNull(4, error);
  s.run();
  if (sqlite3_changes(db_) == 0) fail("no run " + std::to_string(run_id));
  tx.commit();
}

void RunStore::setJobId(std::int64_t run_id, const std::string& job_id) {
  Transaction tx(db_, path_);
  Statement s(db_, path_, "UPDATE runs SET job_id = ?2 WHERE id = ?1");
  s.bind(1, run_id).bind(2, job_id).run();
  if (sqlite3_changes(db_) == 0) fail("no run " + std::to_string(run_id));
  tx.commit();
}

void RunStore::adoptRun(std::int64_t run_id) {
  Transaction tx(db_, path_);
  Statement s(db_, path_,
              "UPDATE runs SET controller_pid = ?2, controller_host = ?3, controller_boot_id = ?4, "
              "controller_start_ticks = ?5 WHERE id = ?1");
  const ControllerId self = currentController();
  s.bind(1, run_id).bind(2, self.pid).bind(3, self.host).bind(4, self.boot_id);
  s.bind(5, self.start_ticks).run();
  if (sqlite3_changes(db_) == 0) fail("no run " + std::to_string(run_id));
  tx.commit();
}

int RunStore::resumeRun(std::int64_t run_id, int from_iteration, int iterations_planned,
                        const nlohmann::json& event) {
  Transaction tx(db_, path_);
  bool status_ok = false;
  {
    Statement s(db_, path_, "SELECT status FROM runs WHERE id = ?1");
    s.bind(1, run_id);
    if (!s.step()) fail("no run " + std::to_string(run_id));
    const std::string status = s.text(0);
    status_ok = status == "failed" || status == "stopped";
  }
  if (!status_ok) fail("run " + std::to_string(run_id) + " is not stopped or failed");
  Statement del(db_, path_, "DELETE FROM iterations WHERE run_id = ?1 AND iteration >= ?2");
  del.bind(1, run_id).bind(2, from_iteration).run();
  const int removed = sqlite3_changes(db_);
  Statement up(db_, path_,
               "UPDATE runs SET status = 'running', finished_at = NULL, error = NULL, "
               "iterations_planned = ?2, "
               "iterations_done = (SELECT COUNT(*) FROM iterations WHERE run_id = ?1), "
               "controller_pid = ?3, controller_host = ?4, controller_boot_id = ?5, "
               "controller_start_ticks = ?6 WHERE id = ?1");
  const ControllerId self = currentController();
  up.bind(1, run_id).bind(2, iterations_planned).bind(3, self.pid).bind(4, self.host);
  up.bind(5, self.boot_id).bind(6, self.start_ticks).run();
  insertEvent(run_id, event);
  tx.commit();
  return removed;
}

int RunStore::rewindRun(std::int64_t run_id, int from_iteration, const nlohmann::json& event) {
  Transaction tx(db_, path_);
  {
    Statement s(db_, path_, "SELECT status FROM runs WHERE id = ?1");
    s.bind(1, run_id);
    if (!s.step()) fail("no run " + std::to_string(run_id));
  }
  Statement del(db_, path_, "DELETE FROM iterations WHERE run_id = ?1 AND iteration >= ?2");
  del.bind(1, run_id).bind(2, from_iteration).run();
  const int removed = sqlite3_changes(db_);
  Statement up(db_, path_,
               "UPDATE runs SET iterations_done = (SELECT COUNT(*) FROM iterations WHERE "
               "run_id = ?1) WHERE id = ?1");
  up.bind(1, run_id).run();
  insertEvent(run_id, event);
  tx.commit();
  return removed;
}

std::vector<std::int64_t> RunStore::failOrphanedRuns() {
  std::vector<RunRecord> running;
  {
    const std::string sql =
        "SELECT " + runColumns() + " FROM runs WHERE status = 'running' ORDER BY id DESC";
    Statement s(db_, path_, sql.c_str());
    while (s.step()) {
      try {
        running.push_back(readRun(s, path_));
      } catch (const StoreError&) {
        // An unreadable row is listReadableRuns' to report; its controller is unknown here.
      }
    }
  }
  std::vector<std::int64_t> marked;
  for (const RunRecord& r : running) {
    const auto reason = orphanReason(r);
    if (!reason) continue;
    Transaction tx(db_, path_);
    Statement u(db_, path_,
                "UPDATE runs SET status = 'failed', finished_at = ?2, error = ?3 "
                "WHERE id = ?1 AND status = 'running'");
    u.bind(1, r.id).bind(2, utcNow()).bind(3, *reason).run();
    if (sqlite3_changes(db_) == 0) continue;  // finished meanwhile; tx rolls back
    RunFinishedEvent finished;
    finished.status = RunStatus::Failed;
    finished.iterations_done = r.iterations_done;
    finished.seconds = secondsSince(r.started_at);
    finished.error = *reason;
    insertEvent(r.id, toJson(RunEvent{r.id, utcNow(), finished}));
    tx.commit();
    marked.push_back(r.id);
  }
  return marked;
}

std::vector<RunRecord> RunStore::listRuns() const {
  if (version_ < 1) return {};  // an empty file opened read-only: no tables yet
  const std::string sql = "SELECT " + runColumns() + " FROM runs ORDER BY id DESC";
  Statement s(db_, path_, sql.c_str());
  std::vector<RunRecord> out;
  while (s.step()) out.push_back(readRun(s, path_));
  return out;
}

RunListing RunStore::listReadableRuns() const {
  RunListing out;
  if (version_ < 1) return out;
  const std::string sql = "SELECT " + runColumns() + " FROM runs ORDER BY id DESC";
  Statement s(db_, path_, sql.c_str());
  while (s.step()) {
    try {
      out.runs.push_back(readRun(s, path_));
    } catch (const StoreError& e) {
      // readRun's message starts with the path; the listing names the run instead.
      std::string why = e.what();
      if (why.rfind(path_ + ": ", 0) == 0) why.erase(0, path_.size() + 2);
      out.skipped.push_back({s.int64(0), why});
    }
  }
  return out;
}

std::optional<RunRecord> RunStore::run(std::int64_t id) const {
  if (version_ < 1) return std::nullopt;
  const std::string sql = "SELECT " + runColumns() + " FROM runs WHERE id = ?1";
  Statement s(db_, path_, sql.c_str());
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return readRun(s, path_);
}

std::vector<IterationRecord> RunStore::iterations(std::int64_t run_id) const {
  Statement s(db_, path_,
              "SELECT run_id, iteration, loss, iteration_seconds, tokens_per_second, detail "
              "FROM iterations WHERE run_id = ?1 ORDER BY iteration");
  s.bind(1, run_id);
  std::vector<IterationRecord> out;
  while (s.step()) {
    IterationRecord it;
    it.run_id = s.int64(0);
    it.iteration = s.int32(1);
    it.loss = s.real(2);
    it.iteration_seconds = s.real(3);
    it.tokens_per_second = s.real(4);
    it.detail = s.jsonColumn(5, "iterations.detail");
    out.push_back(std::move(it));
  }
  return out;
}

std::vector<EventRecord> RunStore::events(std::int64_t run_id) const {
  Statement s(db_, path_,
              "SELECT run_id, seq, time, kind, payload FROM events WHERE run_id = ?1 "
              "ORDER BY seq");
  s.bind(1, run_id);
  std::vector<EventRecord> out;
  while (s.step()) {
    EventRecord e;
    e.run_id = s.int64(0);
    e.seq = s.int64(1);
    e.time = s.text(2);
    e.kind = s.text(3);
    e.payload = s.jsonColumn(4, "events.payload");
    out.push_back(std::move(e));
  }
  return out;
}

std::int64_t RunStore::eventCount(std::int64_t run_id) const {
  Statement s(db_, path_, "SELECT COUNT(*) FROM events WHERE run_id = ?1");
  s.bind(1, run_id);
  return s.step() ? s.int64(0) : 0;
}

}  // namespace sailor
