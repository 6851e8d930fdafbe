// The run store (engine/include/sailor/runs/run_store.hpp) on real SQLite files in a temporary
// directory: a run, its iterations and events round trip (JSON equal); the file is in WAL mode at
// schema version 1; a newer schema is refused; unknown run ids throw; a failed write leaves
// nothing half-written; a second connection reads what the first writes while both are open;
// finishRun; the default location; read-only opening writes nothing and reads a version 1 store;
// a corrupt row is skipped and named; a run whose controller is gone is reported and failed.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string>

#include <QDir>
#include <QFile>
#include <QObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <sqlite3.h>

#include "sailor/core/error.hpp"
#include "sailor/runs/run_store.hpp"

using namespace sailor;
using nlohmann::json;

namespace {

// Runs one SQL statement on a separate raw connection and returns the first column of the first
// row as text (empty when there is none).
std::string rawQuery(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    sqlite3_close_v2(db);
    return "<cannot open>";
  }
  sqlite3_stmt* st = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    out = std::string("<error: ") + sqlite3_errmsg(db) + ">";
  } else {
    const int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
      const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
      out = t ? t : "";
    } else if (rc != SQLITE_DONE) {
      out = std::string("<error: ") + sqlite3_errmsg(db) + ">";
    }
  }
  sqlite3_finalize(st);
  sqlite3_close_v2(db);
  return out;
}

// Runs a script of SQL statements on a separate raw connection; "" or SQLite's message.
std::string rawExec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    sqlite3_close_v2(db);
    return "<cannot open>";
  }
  char* err = nullptr;
  std::string out;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) out = err ? err : "?";
  sqlite3_free(err);
  sqlite3_close_v2(db);
  return out;
}

std::string fileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A pid that named a process of ours which has exited and been reaped.
std::int64_t deadPid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  return child;
}

RunRecord sampleRun(const std::string& name = "plan.json") {
  RunRecord r;
  r.name = name;
  r.status = RunStatus::Finished;       // ignored by createRun
  r.finished_at = "1999-01-01T00:00Z";  // ignored
  r.error = "ignored";
  r.world_size = 4;
  r.iterations_planned = 10;
  r.iterations_done = 7;  // ignored
  r.backend = "gloo";
  r.plan = json::parse(R"({"microbatch_size": 2, "stages": [{"first_layer": 0, "last_layer": 25,
      "replicas": [{"gpu_type": "A100-40", "tp": 1, "zone": "us-central1-a"}]}]})");
  r.scenario = {{"name", "three-region-mix"}, {"pools", json::array()}};
  r.job = {{"model", "OPT-350M"}, {"global_batch_size", 8}, {"unicode", "µs ✓"}};
  r.model = {{"layers", 2}, {"hidden", 64}, {"vocab", 1000}, {"dropout", 0.1}};
  return r;
}

IterationRecord sampleIteration(std::int64_t run, int i) {
  IterationRecord it;
  it.run_id = run;
  it.iteration = i;
  it.loss = 10.0 - i * 0.5;
  it.iteration_seconds = 1.25 + i;
  it.tokens_per_second = 12000.5 - i;
  it.detail = {{"stages", json::array({{{"stage", 0}, {"forward_s", 0.1 * (i + 1)}},
                                       {{"stage", 1}, {"forward_s", 0.2}}})},
               {"ranks", {{"0", {{"peak_bytes", 123456789012LL}}}}}};
  return it;
}

json iterationEvent(int i, const std::string& marker = "") {
  json e{{"event", "iteration"}, {"iteration", i}, {"loss", 10.0 - i * 0.5}};
  if (!marker.empty()) e["marker"] = marker;
  return e;
}

template <typename F>
std::optional<std::string> storeErrorOf(F&& f) {
  try {
    f();
  } catch (const StoreError& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

bool isUtcIso(const std::string& s) {
  static const QRegularExpression kUtcIso(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$)");
  return kUtcIso.match(QString::fromStdString(s)).hasMatch();
}

// Sets (or unsets, for nullptr) an environment variable for the scope, restoring it after.
class EnvGuard {
 public:
  EnvGuard(const char* name, const char* value) : name_(name) {
    had_ = qEnvironmentVariableIsSet(name);
    old_ = qgetenv(name);
    if (value) qputenv(name, value);
    else qunsetenv(name);
  }
  ~EnvGuard() {
    if (had_) qputenv(name_, old_);
    else qunsetenv(name_);
  }

 private:
  const char* name_;
  bool had_;
  QByteArray old_;
};

}  // namespace

class TestRunStore : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::string fresh(const char* name) { return dir_.filePath(name).toStdString(); }

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void statusNames() {
    for (RunStatus s :
         {RunStatus::Running, RunStatus::Finished, RunStatus::Failed, RunStatus::Stopped})
      QCOMPARE(runStatusFromName(runStatusName(s)), s);
    QCOMPARE(std::string(runStatusName(RunStatus::Stopped)), std::string("stopped"));
    bool threw = false;
    try {
      runStatusFromName("crashed");
    } catch (const InputError& e) {
      threw = true;
      QCOMPARE(e.value(), std::string("\"crashed\""));
    }
    QVERIFY(threw);
  }

  void roundTrip() {
    const std::string path = fresh("roundtrip.sqlite");
    RunStore store(path);
    QCOMPARE(store.path(), path);
    QVERIFY(store.listRuns().empty());

    const RunRecord in = sampleRun();
    const std::int64_t id = store.createRun(in);
    QVERIFY(id > 0);
    store.addEvent(id, {{"event", "started"}, {"world_size", 4}});
    store.addIteration(sampleIteration(id, 0), iterationEvent(0));
    store.addIteration(sampleIteration(id, 1), iterationEvent(1));
    store.addEvent(id, json::array({1, 2}));  // not an object: stored, kind ""

    const auto runs = store.listRuns();
    QCOMPARE(runs.size(), size_t(1));
    const RunRecord& r = runs.front();
    QCOMPARE(r.id, id);
    QCOMPARE(r.name, in.name);
    QCOMPARE(r.status, RunStatus::Running);
    QVERIFY2(isUtcIso(r.started_at), r.started_at.c_str());
    QVERIFY(r.finished_at.empty());
    QVERIFY(r.error.empty());
    QCOMPARE(r.world_size, 4);
    QCOMPARE(r.iterations_planned, 10);
    QCOMPARE(r.iterations_done, 2);
    QCOMPARE(r.backend, std::string("gloo"));
    QVERIFY(r.plan == in.plan);
    QVERIFY(r.scenario == in.scenario);
    QVERIFY(r.job == in.job);
    QVERIFY(r.model == in.model);
    QVERIFY(store.run(id).has_value());
    QCOMPARE(store.run(id)->started_at, r.started_at);

    const auto its = store.iterations(id);
    QCOMPARE(its.size(), size_t(2));
    for (int i = 0; i < 2; ++i) {
      const IterationRecord want = sampleIteration(id, i);
      QCOMPARE(its[i].run_id, id);
      QCOMPARE(its[i].iteration, i);
      QCOMPARE(its[i].loss, want.loss);
      QCOMPARE(its[i].iteration_seconds, want.iteration_seconds);
      QCOMPARE(its[i].tokens_per_second, want.tokens_per_second);
      QVERIFY2(its[i].detail == want.detail, its[i].detail.dump().c_str());
    }

    const auto evs = store.events(id);
    QCOMPARE(evs.size(), size_t(4));
    QCOMPARE(store.eventCount(id), std::int64_t(4));
    const char* kinds[] = {"started", "iteration", "iteration", ""};
    for (size_t k = 0; k < evs.size(); ++k) {
      QCOMPARE(evs[k].run_id, id);
      QCOMPARE(evs[k].seq, std::int64_t(k + 1));
      QCOMPARE(evs[k].kind, std::string(kinds[k]));
      QVERIFY2(isUtcIso(evs[k].time), evs[k].time.c_str());
    }
    QVERIFY(evs[1].payload == iterationEvent(0));
    QVERIFY(evs[2].payload == iterationEvent(1));
    QVERIFY(evs[3].payload == json::array({1, 2}));

    // The JSON views carry the same values.
    const json rj = toJson(r);
    QCOMPARE(rj.at("status").get<std::string>(), std::string("running"));
    QVERIFY(rj.at("finished_at").is_null());
    QVERIFY(rj.at("plan") == in.plan);
    QCOMPARE(toJson(its[1]).at("loss").get<double>(), 9.5);
    QCOMPARE(toJson(evs[0]).at("seq").get<std::int64_t>(), std::int64_t(1));
  }

  // Runs come newest first; each run counts its events from 1.
  void severalRuns() {
    RunStore store(fresh("several.sqlite"));
    const auto a = store.createRun(sampleRun("a"));
    const auto b = store.createRun(sampleRun("b"));
    const auto c = store.createRun(sampleRun("c"));
    store.addEvent(a, {{"event", "x"}});
    store.addEvent(b, {{"event", "y"}});
    store.addEvent(a, {{"event", "z"}});
    const auto runs = store.listRuns();
    QCOMPARE(runs.size(), size_t(3));
    QCOMPARE(runs[0].id, c);
    QCOMPARE(runs[1].id, b);
    QCOMPARE(runs[2].id, a);
    QCOMPARE(store.events(a).back().seq, std::int64_t(2));
    QCOMPARE(store.events(b).front().seq, std::int64_t(1));
    QVERIFY(store.events(c).empty());
  }

  void walModeAndSchemaVersion() {
    const std::string path = fresh("wal.sqlite");
    RunStore store(path);
    QCOMPARE(store.schemaVersion(), 4);
    QCOMPARE(RunStore::kSchemaVersion, 4);
    QCOMPARE(rawQuery(path, "PRAGMA journal_mode"), std::string("wal"));
    QCOMPARE(rawQuery(path, "PRAGMA user_version"), std::string("4"));
    // Opening again does not migrate twice.
    { RunStore again(path); }
    QCOMPARE(rawQuery(path, "PRAGMA user_version"), std::string("4"));
    QCOMPARE(rawQuery(path, "SELECT count(*) FROM meta"), std::string("1"));
  }

  // A store in a read-only directory, the file itself read-only. As root chmod does not stop
  // writes, so what this proves there: the read-only connection refuses a write (SQLite says
  // "readonly"), and opening, listing and reading leave the file's bytes as they were (no
  // migration, no journal-mode switch). As another user it also proves the open works at all.
  void readOnlyStoreIsReadWithoutWriting() {
    QDir(dir_.path()).mkdir("ro");
    const std::string path = fresh("ro/runs.sqlite");
    std::int64_t first = 0;
    {
      RunStore store(path);
      first = store.createRun(sampleRun("one"));
      store.addIteration(sampleIteration(first, 0), iterationEvent(0));
      store.createRun(sampleRun("two"));
    }
    const std::string before = fileBytes(path);
    QVERIFY(!before.empty());
    QCOMPARE(::chmod(path.c_str(), 0444), 0);
    QCOMPARE(::chmod(fresh("ro").c_str(), 0555), 0);
    {
      RunStore store(path, StoreAccess::ReadOnly);
      QCOMPARE(store.schemaVersion(), 4);
      const auto runs = store.listRuns();
      QCOMPARE(runs.size(), size_t(2));
      QCOMPARE(runs[1].name, std::string("one"));
      QCOMPARE(store.iterations(first).size(), size_t(1));
      QCOMPARE(store.events(first).size(), size_t(1));
      const auto err = storeErrorOf([&] { store.createRun(sampleRun("three")); });
      QVERIFY(err.has_value());
      QVERIFY2(err->find("readonly") != std::string::npos, err->c_str());
    }
    if (geteuid() == 0) {
      // As root, a child that drops to uid 65534 (nobody), for whom chmod holds: it must list
      // the store with no -shm file and no right to create one (SQLite's immutable fallback).
      QCOMPARE(::chmod(dir_.path().toUtf8().constData(), 0755), 0);  // let it reach ro/
      const pid_t child = fork();
      if (child == 0) {
        if (setgid(65534) != 0 || setuid(65534) != 0) _exit(10);
        try {
          _exit(RunStore(path, StoreAccess::ReadOnly).listRuns().size() == 2 ? 0 : 11);
        } catch (...) {
          _exit(12);
        }
      }
      int status = -1;
      waitpid(child, &status, 0);
      QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == 0,
               qPrintable(QString("child status %1").arg(status)));
    }
    QCOMPARE(::chmod(fresh("ro").c_str(), 0755), 0);
    QCOMPARE(::chmod(path.c_str(), 0644), 0);
    QVERIFY(fileBytes(path) == before);
    // A file that does not exist is not created by a read-only open.
    const std::string missing = fresh("ro/missing.sqlite");
    QVERIFY(storeErrorOf([&] { RunStore s(missing, StoreAccess::ReadOnly); }).has_value());
    QVERIFY(!QFile::exists(QString::fromStdString(missing)));
  }

  // A WAL store copied alone (no -wal, no -shm) to a 0444 file in a 0555 directory, read by a
  // user who may not write there: SQLite cannot create its WAL index there
  // (SQLITE_READONLY_DIRECTORY, "attempt to write a readonly database"), so the store is read
  // as immutable: the runs, one run's iterations and events, as `sailor runs list|show` read
  // them. As root (for whom modes do not hold) the reads run in a child that drops to uid
  // 65534 (nobody).
  void walStoreCopyReadInReadOnlyDirectory() {
    QDir(dir_.path()).mkdir("copy");
    const std::string src = fresh("copy-source.sqlite");
    std::int64_t id = 0;
    {
      RunStore store(src);
      id = store.createRun(sampleRun("copied"));
      store.addIteration(sampleIteration(id, 0), iterationEvent(0));
    }
    QCOMPARE(rawQuery(src, "PRAGMA journal_mode"), std::string("wal"));
    const std::string path = fresh("copy/runs.sqlite");
    QVERIFY(QFile::copy(QString::fromStdString(src), QString::fromStdString(path)));
    QCOMPARE(::chmod(path.c_str(), 0444), 0);
    QCOMPARE(::chmod(fresh("copy").c_str(), 0555), 0);
    auto read = [&]() -> int {
      try {
        RunStore store(path, StoreAccess::ReadOnly);
        const RunListing listing = store.listReadableRuns();
        if (listing.runs.size() != 1 || listing.runs[0].name != "copied") return 11;
        if (store.iterations(id).size() != 1 || store.events(id).size() != 1) return 12;
        return 0;
      } catch (const StoreError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 13;
      }
    };
    int result = -1;
    if (geteuid() == 0) {
      QCOMPARE(::chmod(dir_.path().toUtf8().constData(), 0755), 0);  // let it reach copy/
      const pid_t child = fork();
      if (child == 0) _exit(setgid(65534) != 0 || setuid(65534) != 0 ? 10 : read());
      int status = -1;
      waitpid(child, &status, 0);
      result = WIFEXITED(status) ? WEXITSTATUS(status) : 100 + status;
    } else {
      result = read();
    }
    QCOMPARE(::chmod(fresh("copy").c_str(), 0755), 0);
    QCOMPARE(::chmod(path.c_str(), 0644), 0);
    QCOMPARE(result, 0);
    QVERIFY(!QFile::exists(QString::fromStdString(path + "-shm")));  // nothing created
  }

  // Every store has an identity of its own, drawn when it is created: kept when it is opened
  // again, another for another store and for a store deleted and created again; a version 3
  // store gets one when first opened for writing (none read-only). checkpointDir keys a run's
  // checkpoints by the store's file name and identity.
  void storeIdentity() {
    QDir(dir_.path()).mkdir("ids");
    const std::string a = fresh("ids/a.sqlite"), b = fresh("ids/b.sqlite");
    std::string id_a;
    {
      RunStore store(a);
      id_a = store.storeId();
    }
    QVERIFY2(QRegularExpression("^[0-9a-f]{32}$").match(QString::fromStdString(id_a)).hasMatch(),
             id_a.c_str());
    QCOMPARE(RunStore(a).storeId(), id_a);
    QCOMPARE(RunStore(a, StoreAccess::ReadOnly).storeId(), id_a);
    const RunStore store_b(b);
    QVERIFY(store_b.storeId() != id_a);
    QCOMPARE(RunStore(a).checkpointDir(7),
             fresh("ids") + "/checkpoints/a-" + id_a.substr(0, 8) + "/run-7");
    QCOMPARE(store_b.checkpointDir(7),
             fresh("ids") + "/checkpoints/b-" + store_b.storeId().substr(0, 8) + "/run-7");
    for (const char* suffix : {"", "-wal", "-shm"})
      QFile::remove(QString::fromStdString(a + suffix));
    QVERIFY(RunStore(a).storeId() != id_a);  // created again: another store

    QCOMPARE(rawExec(a, "DROP TABLE meta; PRAGMA user_version = 3;"), std::string());
    {
      RunStore old(a, StoreAccess::ReadOnly);
      QCOMPARE(old.storeId(), std::string());
      QVERIFY(storeErrorOf([&] { (void)old.checkpointDir(1); }).has_value());
    }
    QCOMPARE(rawQuery(a, "PRAGMA user_version"), std::string("3"));
    const std::string given = RunStore(a).storeId();
    QCOMPARE(given.size(), std::size_t{32});
    QCOMPARE(RunStore(a).storeId(), given);
  }

  // A version 1 store (no controller columns) opened read-only is read as it is and stays
  // version 1; opened read-write it is migrated to version 4 and its run kept.
  void versionOneStoreReadAndMigrated() {
    const std::string path = fresh("v1.sqlite");
    std::int64_t id = 0;
    {
      RunStore store(path);
      id = store.createRun(sampleRun("old"));
    }
    QCOMPARE(rawExec(path,
                     "ALTER TABLE runs DROP COLUMN controller_pid;"
                     "ALTER TABLE runs DROP COLUMN controller_host;"
                     "ALTER TABLE runs DROP COLUMN controller_boot_id;"
                     "ALTER TABLE runs DROP COLUMN controller_start_ticks;"
                     "ALTER TABLE runs DROP COLUMN launcher;"
                     "ALTER TABLE runs DROP COLUMN job_id;"
                     "ALTER TABLE runs DROP COLUMN run_dir;"
                     "DROP TABLE meta;"
                     "PRAGMA user_version = 1;"),
             std::string());
    {
      RunStore store(path, StoreAccess::ReadOnly);
      const auto r = store.run(id);
      QVERIFY(r.has_value());
      QCOMPARE(r->name, std::string("old"));
      QCOMPARE(r->controller.pid, std::int64_t(0));
      QVERIFY(!orphanReason(*r).has_value());  // unknown controller: never called gone
      QVERIFY(toJson(*r)["controller"].is_null());
    }
    QCOMPARE(rawQuery(path, "PRAGMA user_version"), std::string("1"));
    RunStore store(path);
    QCOMPARE(store.schemaVersion(), 4);
    QCOMPARE(store.listRuns().size(), size_t(1));
    QCOMPARE(store.run(id)->controller.pid, std::int64_t(0));
    QCOMPARE(store.run(id)->launcher, std::string());  // a row from before launchers: local
  }

  // A version 2 store (no launcher columns) reads its runs as local ones, read-only and after
  // its migration to version 4; a cluster run's job id keeps it from being called an orphan,
  // and adoptRun makes the caller its controller.
  void versionTwoStoreAndClusterRuns() {
    const std::string path = fresh("v2.sqlite");
    std::int64_t id = 0;
    {
      RunStore store(path);
      id = store.createRun(sampleRun("old"));
    }
    QCOMPARE(rawExec(path,
                     "ALTER TABLE runs DROP COLUMN launcher;"
                     "ALTER TABLE runs DROP COLUMN job_id;"
                     "ALTER TABLE runs DROP COLUMN run_dir;"
                     "DROP TABLE meta;"
                     "PRAGMA user_version = 2;"),
             std::string());
    {
      RunStore store(path, StoreAccess::ReadOnly);
      QCOMPARE(store.run(id)->job_id, std::string());
      QCOMPARE(toJson(*store.run(id))["launcher"].get<std::string>(), std::string("local"));
    }
    RunStore store(path);
    QCOMPARE(store.schemaVersion(), 4);
    RunRecord cluster = sampleRun("cluster");
    cluster.launcher = "slurm";
    cluster.run_dir = "/shared/runs/run-1";
    const std::int64_t c = store.createRun(cluster);
    QCOMPARE(
        rawExec(path, "UPDATE runs SET controller_pid = 999999999 WHERE id = " + std::to_string(c)),
        std::string());
    QVERIFY(orphanReason(*store.run(c)).has_value());  // no job yet: its controller decides
    store.setJobId(c, "42");
    QCOMPARE(store.run(c)->job_id, std::string("42"));
    QCOMPARE(store.run(c)->launcher, std::string("slurm"));
    QCOMPARE(store.run(c)->run_dir, std::string("/shared/runs/run-1"));
    QVERIFY(!orphanReason(*store.run(c)).has_value());
    QVERIFY(store.failOrphanedRuns().empty());
    QCOMPARE(store.run(c)->status, RunStatus::Running);
    store.adoptRun(c);
    QCOMPARE(store.run(c)->controller.pid, currentController().pid);
    QVERIFY(storeErrorOf([&] { store.setJobId(c + 100, "1"); }).has_value());
  }

  // One row with garbage in its plan column, one with an unknown status and one whose plan nests
  // 100,000 arrays (read with the bounded parser of json_util: refused at depth 64, not a stack
  // overflow): listRuns throws, listReadableRuns returns the others and names the three.
  void corruptRowsAreSkippedAndNamed() {
    const std::string path = fresh("corrupt.sqlite");
    RunStore store(path);
    const std::int64_t a = store.createRun(sampleRun("a"));
    const std::int64_t b = store.createRun(sampleRun("b"));
    const std::int64_t c = store.createRun(sampleRun("c"));
    const std::int64_t d = store.createRun(sampleRun("d"));
    const std::int64_t e = store.createRun(sampleRun("e"));
    QCOMPARE(rawExec(path,
                     "UPDATE runs SET model = replace(hex(zeroblob(100000)), '00', '[') "
                     "WHERE id = " +
                         std::to_string(e)),
             std::string());
    QCOMPARE(rawExec(path, "UPDATE runs SET plan = '{not json' WHERE id = " + std::to_string(b) +
                               "; PRAGMA ignore_check_constraints = ON; UPDATE runs SET status = "
                               "'bogus' WHERE id = " +
                               std::to_string(d)),
             std::string());
    QVERIFY(storeErrorOf([&] { store.listRuns(); }).has_value());
    for (const StoreAccess access : {StoreAccess::ReadWrite, StoreAccess::ReadOnly}) {
      const RunListing listing = RunStore(path, access).listReadableRuns();
      QCOMPARE(listing.runs.size(), size_t(2));
      QCOMPARE(listing.runs[0].id, c);
      QCOMPARE(listing.runs[1].id, a);
      QCOMPARE(listing.skipped.size(), size_t(3));
      QCOMPARE(listing.skipped[0].id, e);
      QVERIFY2(
          listing.skipped[0].reason.find("runs.model is not valid JSON: got arrays or "
                                         "objects nested more than 64 deep") != std::string::npos,
          listing.skipped[0].reason.c_str());
      QCOMPARE(listing.skipped[1].id, d);
      QVERIFY2(listing.skipped[1].reason.find("bogus") != std::string::npos,
               listing.skipped[1].reason.c_str());
      QCOMPARE(listing.skipped[2].id, b);
      QVERIFY2(listing.skipped[2].reason.find("runs.plan is not valid JSON") != std::string::npos,
               listing.skipped[2].reason.c_str());
    }
  }

  // A run records its controller; a dead or reused pid makes it an orphan, which a read-only
  // store only reports and failOrphanedRuns records as failed with a finished event.
  void orphanedRunsAreDetected() {
    const std::string path = fresh("orphans.sqlite");
    RunStore store(path);
    const std::int64_t live = store.createRun(sampleRun("live"));
    const std::int64_t dead = store.createRun(sampleRun("dead"));
    const std::int64_t reused = store.createRun(sampleRun("reused"));
    const std::int64_t remote = store.createRun(sampleRun("remote"));
    const std::int64_t done = store.createRun(sampleRun("done"));
    store.addIteration(sampleIteration(dead, 0), iterationEvent(0));
    store.finishRun(done, RunStatus::Finished, "");

    const RunRecord self = *store.run(live);
    QCOMPARE(self.controller.pid, std::int64_t(getpid()));
    QVERIFY(self.controller.start_ticks > 0);
    QVERIFY(!orphanReason(self).has_value());
    QVERIFY(!controllerGone(currentController()).has_value());
    ControllerId dead_controller = currentController();
    dead_controller.pid = deadPid();
    QCOMPARE(controllerGone(dead_controller).value_or(""),
             "controller " + std::to_string(dead_controller.pid) + " is gone");

    const std::int64_t gone_pid = deadPid();
    const std::string gone = std::to_string(gone_pid);
    QCOMPARE(
        rawExec(path, "UPDATE runs SET controller_pid = " + gone + " WHERE id IN (" +
                          std::to_string(dead) + ", " + std::to_string(done) +
                          "); UPDATE runs SET controller_start_ticks = controller_start_ticks + 1 "
                          "WHERE id = " +
                          std::to_string(reused) + "; UPDATE runs SET controller_pid = " + gone +
                          ", controller_host = 'elsewhere' WHERE id = " + std::to_string(remote)),
        std::string());
    {
      RunStore reader(path, StoreAccess::ReadOnly);
      const auto r = reader.run(dead);
      QCOMPARE(orphanReason(*r).value_or(""), "controller " + gone + " is gone");
      QVERIFY(orphanReason(*reader.run(reused)).value_or("").find("another process") !=
              std::string::npos);
      QVERIFY(!orphanReason(*reader.run(remote)).has_value());
      QVERIFY(!orphanReason(*reader.run(done)).has_value());
      QVERIFY(storeErrorOf([&] { reader.failOrphanedRuns(); }).has_value());  // cannot write
      QVERIFY(reader.run(dead)->status == RunStatus::Running);
    }
    const auto marked = store.failOrphanedRuns();
    QCOMPARE(marked, (std::vector<std::int64_t>{reused, dead}));
    const RunRecord r = *store.run(dead);
    QVERIFY(r.status == RunStatus::Failed);
    QCOMPARE(r.error, "controller " + gone + " is gone");
    QVERIFY(!r.finished_at.empty());
    const auto events = store.events(dead);
    QCOMPARE(events.back().kind, std::string("finished"));
    QVERIFY(events.back().payload["status"] == "failed");
    QVERIFY(events.back().payload["iterations_done"] == 1);
    QVERIFY(store.run(live)->status == RunStatus::Running);
    QVERIFY(store.run(remote)->status == RunStatus::Running);
    QVERIFY(store.run(done)->status == RunStatus::Finished);
    QVERIFY(store.failOrphanedRuns().empty());  // once only
  }

  void deletingARunCascades() {
    const std::string path = fresh("cascade.sqlite");
    RunStore store(path);
    const auto id = store.createRun(sampleRun());
    store.addIteration(sampleIteration(id, 0), iterationEvent(0));
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
    QCOMPARE(
        sqlite3_exec(db, "PRAGMA foreign_keys = ON; DELETE FROM runs;", nullptr, nullptr, nullptr),
        SQLITE_OK);
    sqlite3_close_v2(db);
    QVERIFY(!store.run(id));
    QVERIFY(store.iterations(id).empty());
    QVERIFY(store.events(id).empty());
  }

  void newerSchemaRefused() {
    const std::string path = fresh("newer.sqlite");
    { RunStore store(path); }
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db, "PRAGMA user_version = 99", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close_v2(db);
    const auto err = storeErrorOf([&] { RunStore store(path); });
    QVERIFY2(err.has_value(), "a version 99 store was opened");
    QVERIFY2(err->find("99") != std::string::npos, err->c_str());
    QVERIFY2(err->find("version 4") != std::string::npos, err->c_str());
    QVERIFY2(err->find(path) != std::string::npos, err->c_str());
    QCOMPARE(rawQuery(path, "PRAGMA user_version"), std::string("99"));  // left alone
  }

  void unknownRunIdThrows() {
    const std::string path = fresh("unknown.sqlite");
    RunStore store(path);
    store.createRun(sampleRun());
    for (const auto& [what, f] :
         std::initializer_list<std::pair<const char*, std::function<void()>>>{
             {"addIteration",
              [&] { store.addIteration(sampleIteration(42, 0), iterationEvent(0)); }},
             {"addEvent",
              [&] {
                store.addEvent(42, {{"event", "x"}});
              }},
             {"finishRun", [&] { store.finishRun(42, RunStatus::Failed, "boom"); }}}) {
      const auto err = storeErrorOf(f);
      QVERIFY2(err.has_value(), what);
      QVERIFY2(err->find("42") != std::string::npos, err->c_str());
      QVERIFY2(err->find(path) != std::string::npos, err->c_str());
    }
    QVERIFY(!store.run(42));
    QVERIFY(store.iterations(42).empty());
    QVERIFY(store.events(42).empty());
    QCOMPARE(rawQuery(path, "SELECT COUNT(*) FROM events"), std::string("0"));
  }

  // A duplicate iteration number fails the whole addIteration: its event row is not stored and
  // iterations_done does not move.
  void failedTransactionLeavesNothing() {
    const std::string path = fresh("atomic.sqlite");
    RunStore store(path);
    const auto id = store.createRun(sampleRun());
    store.addIteration(sampleIteration(id, 0), iterationEvent(0, "first"));
    IterationRecord dup = sampleIteration(id, 0);
    dup.loss = 123.0;
    const auto err = storeErrorOf([&] { store.addIteration(dup, iterationEvent(0, "dup")); });
    QVERIFY2(err.has_value(), "a duplicate iteration was accepted");
    QVERIFY2(err->find("UNIQUE") != std::string::npos, err->c_str());
    QCOMPARE(store.run(id)->iterations_done, 1);
    QCOMPARE(store.iterations(id).size(), size_t(1));
    QCOMPARE(store.iterations(id).front().loss, 10.0);
    const auto evs = store.events(id);
    QCOMPARE(evs.size(), size_t(1));
    QCOMPARE(evs.front().payload.value("marker", ""), std::string("first"));
    QCOMPARE(rawQuery(path, "SELECT COUNT(*) FROM events WHERE payload LIKE '%dup%'"),
             std::string("0"));
    // The store is still usable, and seq continues without a gap.
    store.addIteration(sampleIteration(id, 1), iterationEvent(1));
    QCOMPARE(store.run(id)->iterations_done, 2);
    QCOMPARE(store.events(id).back().seq, std::int64_t(2));
  }

  void concurrentReader() {
    const std::string path = fresh("concurrent.sqlite");
    RunStore writer(path);
    const auto id = writer.createRun(sampleRun("live"));
    writer.addIteration(sampleIteration(id, 0), iterationEvent(0));
    RunStore reader(path);  // while the writer is open
    QCOMPARE(reader.listRuns().size(), size_t(1));
    QCOMPARE(reader.run(id)->name, std::string("live"));
    QCOMPARE(reader.iterations(id).size(), size_t(1));
    writer.addIteration(sampleIteration(id, 1), iterationEvent(1));
    QCOMPARE(reader.run(id)->iterations_done, 2);
    QCOMPARE(reader.events(id).size(), size_t(2));
    // The second connection may write too; the first sees it.
    reader.addEvent(id, {{"event", "note"}});
    QCOMPARE(writer.events(id).back().kind, std::string("note"));
    QCOMPARE(writer.events(id).back().seq, std::int64_t(3));
  }

  void finishRunSetsStatus() {
    RunStore store(fresh("finish.sqlite"));
    const auto ok = store.createRun(sampleRun("ok"));
    const auto bad = store.createRun(sampleRun("bad"));
    QCOMPARE(store.run(ok)->status, RunStatus::Running);
    store.finishRun(ok, RunStatus::Finished, "");
    store.finishRun(bad, RunStatus::Failed, "rank 3: CUDA out of memory");
    const RunRecord a = *store.run(ok), b = *store.run(bad);
    QCOMPARE(a.status, RunStatus::Finished);
    QVERIFY2(isUtcIso(a.finished_at), a.finished_at.c_str());
    QVERIFY(a.finished_at >= a.started_at);
    QVERIFY(a.error.empty());
    QCOMPARE(b.status, RunStatus::Failed);
    QVERIFY(isUtcIso(b.finished_at));
    QCOMPARE(b.error, std::string("rank 3: CUDA out of memory"));
    bool threw = false;
    try {
      store.finishRun(ok, RunStatus::Running, "");
    } catch (const InputError&) {
      threw = true;
    }
    QVERIFY2(threw, "finishRun accepted Running");
  }

  // SQLite stores a NaN as NULL; the store reads it back as NaN (a diverged loss).
  void nanLossRoundTrips() {
    RunStore store(fresh("nan.sqlite"));
    const auto id = store.createRun(sampleRun());
    IterationRecord it = sampleIteration(id, 0);
    it.loss = std::nan("");
    it.tokens_per_second = std::nan("");
    store.addIteration(it, iterationEvent(0));
    const IterationRecord back = store.iterations(id).front();
    QVERIFY(std::isnan(back.loss));
    QVERIFY(std::isnan(back.tokens_per_second));
    QCOMPARE(back.iteration_seconds, it.iteration_seconds);
    QVERIFY(toJson(back).at("loss").is_null());
    QVERIFY(toJson(back).at("tokens_per_second").is_null());
  }

  void createsParentDirectories() {
    const std::string path = fresh("a/b/c/runs.sqlite");
    RunStore store(path);
    QVERIFY(QFile::exists(QString::fromStdString(path)));
  }

  void unopenableStores() {
    // A directory, a text file, and a path under a regular file.
    const std::string text = fresh("not-a-db.txt");
    {
      QFile f(QString::fromStdString(text));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("hello, not sqlite\n");
    }
    for (const std::string& path : {dir_.path().toStdString(), text, text + "/runs.sqlite"}) {
      const auto err = storeErrorOf([&] { RunStore store(path); });
      QVERIFY2(err.has_value(), path.c_str());
      QVERIFY2(err->find(path) != std::string::npos, err->c_str());
    }
  }

  void defaultPath() {
    {
      EnvGuard s("SAILOR_RUN_STORE", "/tmp/x/runs.db");
      EnvGuard x("XDG_DATA_HOME", "/data");
      QCOMPARE(RunStore::defaultPath(), std::string("/tmp/x/runs.db"));
    }
    {
      EnvGuard s("SAILOR_RUN_STORE", nullptr);
      EnvGuard x("XDG_DATA_HOME", "/data");
      QCOMPARE(RunStore::defaultPath(), std::string("/data/sailor-studio/runs.sqlite"));
    }
    {
      EnvGuard s("SAILOR_RUN_STORE", "");
      EnvGuard x("XDG_DATA_HOME", "relative/ignored");
      EnvGuard h("HOME", "/home/someone");
      QCOMPARE(RunStore::defaultPath(),
               std::string("/home/someone/.local/share/sailor-studio/runs.sqlite"));
    }
  }
};

QTEST_GUILESS_MAIN(TestRunStore)
#include "test_run_store.moc"
