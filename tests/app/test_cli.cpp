// The `sailor` command line run as a user runs it: QProcess starts the built binary
// (SAILOR_BIN) with SAILOR_RESOURCES from CTest and files written to a temporary directory.
// Checks the exit status contract of app/cli/main.cpp (0 ok, 2 bad input, 3 plan does not fit)
// and that errors name the file and the field.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <set>
#include <vector>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <sqlite3.h>

#include "cli_support.hpp"
#include "sailor/runs/run_events.hpp"
#include "sailor/runs/run_store.hpp"

namespace {

using sailor::test::describe;
using sailor::test::resources;
using sailor::test::Result;
using sailor::test::runSailor;

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
  const QString path = dir.filePath(name);
  QFile f(path);
  if (f.open(QIODevice::WriteOnly)) f.write(text);
  return path;
}

// A JSON file's contents (null when it cannot be read).
nlohmann::json readJsonFile(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return nullptr;
  return nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
}

// A child's exit and its peak resident memory (ru_maxrss from wait4).
struct Measured {
  int exit_code = -1;  // -2: killed by a signal (the watchdog's, or a crash)
  long peak_kib = 0;
  QString err;
  QString why_killed;  // the watchdog's reason, empty when it did not act
};

// Resident memory of a live process in KiB (VmRSS), 0 when it cannot be read.
long residentKib(pid_t pid) {
  QFile f(QString("/proc/%1/status").arg(pid));
  if (!f.open(QIODevice::ReadOnly)) return 0;
  for (const QByteArray& line : f.readAll().split('\n'))
    if (line.startsWith("VmRSS:")) return line.mid(6).trimmed().split(' ').front().toLong();
  return 0;
}

// Runs `sailor args` (stdin /dev/null, stderr kept) and measures its peak resident memory. A
// watchdog kills it when its resident memory passes kill_kib or after 60 s, so that an
// unbounded read fails the test instead of exhausting the machine.
Measured runMeasured(const QStringList& args, long kill_kib) {
  Measured m;
  QTemporaryDir dir;
  const QByteArray err_path = dir.filePath("stderr").toLocal8Bit();
  // Everything the child needs is built before fork: it only calls async-signal-safe functions.
  std::vector<QByteArray> argv_bytes{QByteArray(SAILOR_BIN)};
  for (const QString& a : args) argv_bytes.push_back(a.toLocal8Bit());
  std::vector<char*> argv;
  for (QByteArray& a : argv_bytes) argv.push_back(a.data());
  argv.push_back(nullptr);
  QByteArray resources_env = "SAILOR_RESOURCES=" + resources().toLocal8Bit();
  std::vector<char*> envp{resources_env.data()};
  for (char** e = environ; *e != nullptr; ++e)
    if (!QByteArray(*e).startsWith("SAILOR_RESOURCES=")) envp.push_back(*e);
  envp.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int null_fd = ::open("/dev/null", O_RDWR);
    const int err_fd = ::open(err_path.constData(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(null_fd, 0);
    ::dup2(null_fd, 1);
    ::dup2(err_fd, 2);
    ::execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  QElapsedTimer clock;
  clock.start();
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, WNOHANG, &usage) == 0) {
    const long rss = residentKib(pid);
    if (m.why_killed.isEmpty() && (rss > kill_kib || clock.elapsed() > 60000)) {
      m.why_killed = rss > kill_kib ? QString("killed at %1 KiB resident").arg(rss)
                                    : QString("killed after 60 s");
      ::kill(pid, SIGKILL);
    }
    QThread::msleep(10);
  }
  m.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -2;
  m.peak_kib = usage.ru_maxrss;
  QFile err(QString::fromLocal8Bit(err_path));
  if (err.open(QIODevice::ReadOnly)) m.err = QString::fromUtf8(err.readAll());
  return m;
}

QString measuredPointsPath() {
  return QString(SAILOR_TEST_SHARED_DIR) + "/reference/calibration/measured_points.json";
}

// SAILOR's measured runs from ../shared; an empty object when they are not beside this checkout.
QJsonObject measuredPoints() {
  QFile f(measuredPointsPath());
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll()).object();
}

// `sailor validate` on the given points (written to dir) against SAILOR's reference data.
Result validatePoints(const QTemporaryDir& dir, const QJsonArray& points,
                      const QStringList& extra = {}) {
  const QJsonObject doc{{"points", points}};
  const QString path = writeFile(dir, "points.json", QJsonDocument(doc).toJson());
  return runSailor(QStringList{"validate", path, "--reference",
                               QString(SAILOR_TEST_SHARED_DIR) + "/reference/sailor"} +
                   extra);
}

// `sailor validate` (text, then --json) on `changed` beside SAILOR's second measured run as it
// was measured (clariden/OPT-350/N1/N1_D1_M4_G32): the text from `heading` on, which must not
// name that run, and the JSON rows. A failure is recorded (QTest::currentTestFailed).
struct Flagged {
  QString section;
  QJsonArray rows;
};
Flagged validateBeside(const QJsonObject& changed, const QJsonArray& points,
                       const QString& heading) {
  Flagged f;
  QTemporaryDir dir;
  const QString second = points[1].toObject().value("id").toString();
  const Result r = validatePoints(dir, QJsonArray{changed, points[1]});
  const Result j = validatePoints(dir, QJsonArray{changed, points[1]}, {"--json"});
  const qsizetype at = r.out.indexOf(heading);
  if (!dir.isValid() || second != "clariden/OPT-350/N1/N1_D1_M4_G32" || r.exit_code != 0 ||
      j.exit_code != 0 || at < 0 || r.out.mid(at).contains(second)) {
    QTest::qFail(qPrintable("validate: " + second + "\n" + r.out + r.err + j.err), __FILE__,
                 __LINE__);
    return f;
  }
  f.section = r.out.mid(at);
  f.rows = QJsonDocument::fromJson(j.out.toUtf8()).object().value("points").toArray();
  return f;
}

}  // namespace

class TestCli : public QObject {
  Q_OBJECT

 private:
  QString scenario_, job_, plan_;  // the shipped defaults

 private slots:
  void initTestCase() {
    QVERIFY2(QFile::exists(SAILOR_BIN), SAILOR_BIN);
    scenario_ = resources() + "/scenarios/default.json";
    job_ = resources() + "/jobs/default.json";
    plan_ = resources() + "/plans/default.json";
  }

  void exitStatusAndOutput_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exit_code");
    QTest::addColumn<QString>("stdout_needle");
    QTest::addColumn<QString>("stderr_needle");
    QTest::newRow("--help") << QStringList({"--help"}) << 0 << "Usage: sailor <command>"
                            << "";
    QTest::newRow("-h") << QStringList({"-h"}) << 0 << "Commands:"
                        << "";
    QTest::newRow("export --help")
        << QStringList({"export", "--help"}) << 0 << "--format kubernetes"
        << "";
    QTest::newRow("catalog --help")
        << QStringList({"catalog", "--help"}) << 0 << "sailor catalog gpus|models"
        << "";
    QTest::newRow("simulate --help")
        << QStringList({"simulate", "--help"}) << 0 << "--scenario FILE"
        << "";
    QTest::newRow("runs --help") << QStringList({"runs", "--help"}) << 0 << "sailor runs show ID"
                                 << "";
    QTest::newRow("--help lists runs") << QStringList({"--help"}) << 0 << "runs list|show ID"
                                       << "";
    QTest::newRow("runs without a subcommand") << QStringList({"runs"}) << 2 << ""
                                               << "\"list\" or \"show ID\"";
    QTest::newRow("validate --help")
        << QStringList({"validate", "--help"}) << 0 << "--reference DIR"
        << "";
    QTest::newRow("validate --help names the baseline")
        << QStringList({"validate", "--help"}) << 0 << "--compare-sailor"
        << "";
    QTest::newRow("validate --help says what is skipped")
        << QStringList({"validate", "--help"}) << 0 << "--strict          exit 2 when any point"
        << "";
    QTest::newRow("no command") << QStringList() << 2 << "Usage: sailor"
                                << "";
    QTest::newRow("unknown command") << QStringList({"frobnicate"}) << 2 << ""
                                     << "unknown command 'frobnicate'";
    QTest::newRow("catalog gpus") << QStringList({"catalog", "gpus"}) << 0 << "A100-40"
                                  << "";
    QTest::newRow("catalog gpus lists MI300X") << QStringList({"catalog", "gpus"}) << 0 << "MI300X"
                                               << "";
    QTest::newRow("catalog models") << QStringList({"catalog", "models"}) << 0 << "OPT-350M"
                                    << "";
    QTest::newRow("catalog of something else")
        << QStringList({"catalog", "bananas"}) << 2 << ""
        << "catalog: got \"bananas\", expected \"gpus\" or \"models\"";
    QTest::newRow("unknown option") << QStringList({"catalog", "gpus", "--colour"}) << 2 << ""
                                    << "--colour: got an unknown option";
    QTest::newRow("simulate without --plan")
        << QStringList({"simulate", "--scenario", resources() + "/scenarios/default.json", "--job",
                        resources() + "/jobs/default.json"})
        << 2 << ""
        << "--plan: got nothing";
    QTest::newRow("plan --help") << QStringList({"plan", "--help"}) << 0
                                 << "--max-cost-per-iteration"
                                 << "";
    QTest::newRow("plan --help names --time-limit")
        << QStringList({"plan", "--help"}) << 0 << "--time-limit S"
        << "";
    QTest::newRow("plan --help names --memory-reserve")
        << QStringList({"plan", "--help"}) << 0 << "--memory-reserve-mode drop|flag"
        << "";
    QTest::newRow("plan --help names --progress")
        << QStringList({"plan", "--help"}) << 0 << "--progress, --no-progress"
        << "";
    QTest::newRow("plan --help names --knee")
        << QStringList({"plan", "--help"}) << 0 << "cheapest frontier plans within 1% and 5%"
        << "";
    QTest::newRow("plan --help says where --trace --output writes")
        << QStringList({"plan", "--help"}) << 0 << "(best.json: best-0.json, best-1.json, ..."
        << "";
    // The option parser's errors: one line naming the option, exit 2.
    QTest::newRow("unknown option=value")
        << QStringList({"catalog", "gpus", "--colour=red"}) << 2 << ""
        << "sailor catalog: error: --colour: got an unknown option, expected one of: --json\n";
    QTest::newRow("valued option without a value")
        << QStringList({"plan", "--trace"}) << 2 << ""
        << "sailor plan: error: --trace: got nothing, expected a value after the option\n";
    QTest::newRow("unknown option before a missing value")
        << QStringList({"runs", "list", "--bogus", "--store"}) << 2 << ""
        << "sailor runs: error: --bogus: got an unknown option, expected one of: --json, --store\n";
    QTest::newRow("positional where options only")
        << QStringList({"simulate", "extra"}) << 2 << ""
        << "sailor simulate: error: simulate: got \"extra\", expected options only (see --help)\n";
    QTest::newRow("a single-dash argument is positional")
        << QStringList({"catalog", "gpus", "-x"}) << 2 << ""
        << "catalog: got \"gpus\", expected \"gpus\" or \"models\"";
    QTest::newRow("--option=value")
        << QStringList({"plan", "--objective=speed"}) << 2 << ""
        << "--objective: got \"speed\", expected \"throughput\" or \"cost\"";
    QTest::newRow("the last value of an option wins")
        << QStringList({"plan", "--max-gpus", "x", "--max-gpus", "0"}) << 2 << ""
        << "--max-gpus: got \"0\", expected an integer >= 1";
    QTest::newRow("a value that looks like an option is the value")
        << QStringList({"plan", "--objective", "--json"}) << 2 << ""
        << "--objective: got \"--json\", expected";
    QTest::newRow("validate's run store a directory")
        << QStringList({"validate", "--run", "1", "--store", "/"}) << 2 << ""
        << "sailor validate: error: /: cannot open the run store: it is a directory, not a SQLite "
           "file\n";
    QTest::newRow("plan on the default scenario")
        << QStringList({"plan", "--top", "1", "--microbatch-sizes", "4,8"}) << 0
        << "Best plans for OPT-350M"
        << "";
    QTest::newRow("plan with --max-gpus 0") << QStringList({"plan", "--max-gpus", "0"}) << 2 << ""
                                            << "--max-gpus";
    QTest::newRow("plan --trace-iterations without --trace")
        << QStringList({"plan", "--trace-iterations", "10"}) << 2 << ""
        << "--trace-iterations: got 10, expected --trace FILE beside it";
    QTest::newRow("plan --trace-iterations 0")
        << QStringList({"plan", "--trace", SAILOR_TEST_DATA "/trace/two-rows.csv",
                        "--trace-iterations", "0"})
        << 2 << ""
        << "--trace-iterations: got \"0\", expected an integer >= 1";
    QTest::newRow("plan --trace-iterations over a trace whose row is not a time")
        << QStringList({"plan", "--trace", SAILOR_TEST_DATA "/trace/label-not-a-time.csv",
                        "--trace-iterations", "5"})
        << 2 << ""
        << "trace: got row label \"noon\", expected the row's time in seconds";
    QTest::newRow("plan --trace-iterations: both strategies")
        << QStringList({"plan", "--trace", SAILOR_TEST_DATA "/trace/two-rows.csv",
                        "--trace-iterations", "500", "--microbatch-sizes", "4"})
        << 0 << "keep the first plan"
        << "";
    QTest::newRow("plan with an unknown objective")
        << QStringList({"plan", "--objective", "speed"}) << 2 << ""
        << "\"throughput\" or \"cost\"";
    // No plan reaches 1000 iterations per second: exit 3 and say which constraint.
    QTest::newRow("plan with an impossible constraint")
        << QStringList({"plan", "--microbatch-sizes", "8", "--min-throughput", "1000"}) << 3 << ""
        << "none meets the constraints (throughput >= 1000 it/s)";
    // A 175B-parameter model with a global batch of 8 sequences fits on none of these GPUs.
    QTest::newRow("plan for a model that fits nowhere")
        << QStringList(
               {"plan", "--model", "GPT-3-175B", "--global-batch", "8", "--microbatch-sizes", "1"})
        << 3 << ""
        << "no plan fits in memory";
    QTest::newRow("plan whose microbatch sizes divide no global batch")
        << QStringList(
               {"plan", "--model", "OPT-350M", "--global-batch", "6", "--microbatch-sizes", "4,8"})
        << 3 << ""
        << "no microbatch size searched (4, 8) divides the global batch 6";
  }
  void exitStatusAndOutput() {
    QFETCH(QStringList, args);
    QFETCH(int, exit_code);
    QFETCH(QString, stdout_needle);
    QFETCH(QString, stderr_needle);
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == exit_code, qPrintable(describe(args, r)));
    if (!stdout_needle.isEmpty())
      QVERIFY2(r.out.contains(stdout_needle), qPrintable(describe(args, r)));
    if (!stderr_needle.isEmpty())
      QVERIFY2(r.err.contains(stderr_needle), qPrintable(describe(args, r)));
  }

  // `sailor export`: files written with --output, stdout otherwise; bad input is one line on
  // stderr with exit 2 and nothing written.
  void exportWritesFilesAndRefusesBadInput() {
    QTemporaryDir dir;
    const QString plan = resources() + "/../tests/data/export/three-zones.json";
    const QStringList base{"export",
                           "--plan",
                           plan,
                           "--scenario",
                           resources() + "/scenarios/default.json",
                           "--job",
                           resources() + "/jobs/default.json"};
    const Result slurm = runSailor(QStringList(base) << "--format"
                                                     << "slurm");
    QVERIFY2(slurm.exit_code == 0, qPrintable(describe(base, slurm)));
    QCOMPARE(slurm.out.count("#SBATCH hetjob"), 2);
    const QString out = dir.path() + "/k8s";
    const QStringList k8s = QStringList(base) << "--format"
                                              << "kubernetes"
                                              << "--output" << out;
    const Result written = runSailor(k8s);
    QVERIFY2(written.exit_code == 0, qPrintable(describe(k8s, written)));
    QVERIFY(QFile::exists(out + "/sailor.yaml"));
    const Result torch = runSailor(QStringList(base) << "--format"
                                                     << "torchrun");
    QVERIFY(torch.out.contains("# ==> hosts.txt <==") &&
            torch.out.contains("# ==> sailor-torchrun.sh <=="));

    QJsonObject cluster = QJsonDocument::fromJson([&] {
                            QFile f(resources() + "/clusters/default.json");
                            f.open(QIODevice::ReadOnly);
                            return f.readAll();
                          }())
                              .object();
    QJsonArray pools = cluster["pools"].toArray();
    pools.removeAt(5);  // us-central1-c/L4
    cluster["pools"] = pools;
    const QString no_l4 = writeFile(dir, "no-l4.json", QJsonDocument(cluster).toJson());
    const QString bad = writeFile(dir, "bad.json", R"({"name": "x", "pools": [], "extra": 1})");
    const struct {
      QStringList args;
      QString needle;
    } rows[] = {
        {QStringList(base) << "--format"
                           << "yaml",
         "--format: got \"yaml\""},
        {QStringList(base) << "--format"
                           << "slurm"
                           << "--cluster" << no_l4,
         "no mapping for pool us-central1-c/L4"},
        {QStringList(base) << "--format"
                           << "slurm"
                           << "--cluster" << bad,
         "extra: got an unknown field"},
        {QStringList(base) << "--format"
                           << "slurm"
                           << "--cluster" << no_l4 << "--output" << dir.path() + "/none",
         "no mapping for pool us-central1-c/L4"},
    };
    for (const auto& row : rows) {
      const Result r = runSailor(row.args);
      QVERIFY2(r.exit_code == 2, qPrintable(describe(row.args, r)));
      QVERIFY2(r.err.contains(row.needle), qPrintable(describe(row.args, r)));
      QCOMPARE(r.err.count('\n'), 1);
      QVERIFY(r.out.isEmpty());
    }
    QVERIFY(!QFileInfo::exists(dir.path() + "/none"));
  }

  // An export trains the job: Llama-3-70B at its real size on the job's token file with the
  // plan's schedule, in every format, each file saying so at its head; --scale is a smoke test,
  // said in the files and on stderr; a relative --data or --real-size with --scale is bad input.
  void exportTrainsTheJobOrSaysItIsASmokeTest() {
    QTemporaryDir dir;
    const QString plan = writeFile(dir, "plan70.json", R"({"microbatch_size": 1, "stages": [
      {"first_layer": 0, "last_layer": 40, "replicas": [
        {"gpu_type": "A100-40", "tp": 8, "zone": "us-central1-a"},
        {"gpu_type": "A100-40", "tp": 8, "zone": "us-central1-a"}]},
      {"first_layer": 41, "last_layer": 81, "replicas": [
        {"gpu_type": "A100-40", "tp": 8, "zone": "us-west1-b"},
        {"gpu_type": "A100-40", "tp": 8, "zone": "us-west1-b"}]}],
      "schedule": {"overlap_grad_reduce": true}})");
    const QString job =
        writeFile(dir, "job70.json",
                  R"({"model": "Llama-3-70B", "global_batch_size": 16, "sequence_length": 8192})");
    const QStringList base{
        "export", "--plan", plan, "--scenario", resources() + "/scenarios/default.json",
        "--job",  job};
    for (const QString format : {"slurm", "torchrun", "kubernetes"}) {
      const QStringList args = QStringList(base) << "--format" << format << "--data"
                                                 << "/data/llama3.bin";
      const Result r = runSailor(args);
      QVERIFY2(r.exit_code == 0, qPrintable(describe(args, r)));
      QVERIFY2(r.err.isEmpty(), qPrintable(describe(args, r)));
      QVERIFY2(r.out.contains("# Trains Llama-3-70B at its real size: 80 blocks, hidden 8192"),
               qPrintable(describe(args, r)));
      QVERIFY(r.out.contains("# schedule: overlapped gradient reduction."));
      for (const char* needle : {R"("hidden_size": 8192)", R"("vocab_size": 128256)",
                                 R"("data": "/data/llama3.bin")", R"("data_format": "tokens")",
                                 R"("overlap_grad_reduce": true)", R"("sequence_length": 8192)"})
        QVERIFY2(r.out.contains(needle), qPrintable(format + ": no " + needle));
      const QStringList smoke = QStringList(base) << "--format" << format << "--scale";
      const Result s = runSailor(smoke);
      QVERIFY2(s.exit_code == 0, qPrintable(describe(smoke, s)));
      QVERIFY2(s.out.contains("# SMOKE TEST, not the job: Llama-3-70B scaled to hidden 1024"),
               qPrintable(describe(smoke, s)));
      QVERIFY(s.out.contains("# data: synthetic tokens"));
      QVERIFY2(s.err.contains("sailor export: a smoke test, not the job") &&
                   s.err.contains("synthetic tokens"),
               qPrintable(describe(smoke, s)));
    }
    const struct {
      QStringList extra;
      QString needle;
    } rows[] = {{{"--data", "train.bin"}, "--data: got \"train.bin\""},
                {{"--real-size", "--scale"}, "--real-size: got given with --scale"},
                {{"--vocab", "300"}, "--vocab: got 300"}};
    for (const auto& row : rows) {
      const QStringList args = QStringList(base) << "--format"
                                                 << "slurm" << row.extra;
      const Result r = runSailor(args);
      QVERIFY2(r.exit_code == 2 && r.err.contains(row.needle), qPrintable(describe(args, r)));
      QVERIFY(r.out.isEmpty());
    }
  }

  // `sailor run --launcher slurm --dry-run`: the batch script says what it trains; the default
  // scaled model of a CPU cluster is a smoke test, said in the script and on stderr.
  void slurmRunScriptSaysWhatItTrains() {
    QTemporaryDir dir;
    const QString data = resources() + "/../tests/data/runtime";
    const QStringList base{"run",
                           "--plan",
                           data + "/single.json",
                           "--scenario",
                           resources() + "/scenarios/default.json",
                           "--job",
                           data + "/job.json",
                           "--launcher",
                           "slurm",
                           "--dry-run",
                           "--store",
                           dir.filePath("runs.sqlite")};
    const Result smoke = runSailor(base);
    QVERIFY2(smoke.exit_code == 0, qPrintable(describe(base, smoke)));
    QVERIFY2(smoke.out.startsWith("#!/bin/bash\n# SMOKE TEST, not the job: OPT-350M scaled to "
                                  "hidden 256"),
             qPrintable(describe(base, smoke)));
    QVERIFY2(smoke.err.contains("sailor run: a smoke test, not the job"),
             qPrintable(describe(base, smoke)));
    const QStringList real = QStringList(base) << "--real-size";
    const Result job = runSailor(real);
    QVERIFY2(job.exit_code == 0, qPrintable(describe(real, job)));
    QVERIFY2(job.out.startsWith("#!/bin/bash\n# Trains OPT-350M at its real size: 24 blocks, "
                                "hidden 1024"),
             qPrintable(describe(real, job)));
    QVERIFY2(!job.err.contains("smoke test"), qPrintable(describe(real, job)));
  }

  void simulateDefault() {
    const QStringList args{"simulate", "--scenario", scenario_, "--job", job_, "--plan", plan_};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 0, qPrintable(describe(args, r)));
    QVERIFY2(r.out.contains("Iteration time"), qPrintable(describe(args, r)));
    QVERIFY(r.out.contains("Memory per GPU"));
    QVERIFY(r.out.contains("Cost per iteration"));
    QVERIFY(r.err.isEmpty());
    // The tables line up: the default plan's replica list ("2x A100-40 tp1 us-central1-a, 2x
    // A100-40 tp1 us-central1-b") and "A100-40 tp1" are wider than a fixed column would be, and
    // every row must still end its right-aligned figures where its header's last column ends.
    const QStringList lines = r.out.split('\n');
    for (const QString& header : {QString("  stage  layers"), QString("  stage  GPU")}) {
      const qsizetype h =
          lines.indexOf(QRegularExpression("^" + QRegularExpression::escape(header) + ".*"));
      QVERIFY2(h >= 0, qPrintable(header + " not found in\n" + r.out));
      int rows = 0;
      for (qsizetype i = h + 1;
           i < lines.size() && lines[i].startsWith("  ") && !lines[i].trimmed().isEmpty();
           ++i, ++rows)
        QVERIFY2(lines[i].size() == lines[h].size(),
                 qPrintable("misaligned:\n" + lines[h] + "\n" + lines[i]));
      QVERIFY2(rows == 2, qPrintable(header + ": " + QString::number(rows) + " rows"));
    }
  }

  // Hostile files: 100,000 nested brackets, a number that overflows a double and an
  // empty points array are each one line on stderr naming the file, exit 2 (they were a crash,
  // exit 139; an internal error, exit 1; and exit 0).
  void hostileFilesExitTwo() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString deep =
        writeFile(dir, "deep.json", QByteArray(100000, '[') + QByteArray(100000, ']'));
    QFile sf(resources() + "/scenarios/default.json");
    QVERIFY(sf.open(QIODevice::ReadOnly));
    QByteArray scenario = sf.readAll();
    const qsizetype count = scenario.indexOf("\"count\": ");
    QVERIFY(count > 0);
    scenario.insert(count + 9, "1e309, \"x\": ");  // "count": 1e309, "x": 32
    const QString big = writeFile(dir, "big.json", scenario);
    const QString empty = writeFile(dir, "empty.json", R"({"points": []})");
    const QString sc = resources() + "/scenarios/default.json";
    const QString job = resources() + "/jobs/default.json";
    const QString plan = resources() + "/plans/default.json";
    const QString ref = QString(SAILOR_TEST_SHARED_DIR) + "/reference/sailor";
    QList<QPair<QStringList, QStringList>> cases = {
        {{"simulate", "--scenario", deep, "--job", job, "--plan", plan},
         {deep + ": got arrays or objects nested more than 64 deep"}},
        {{"simulate", "--scenario", sc, "--job", job, "--plan", deep}, {deep, "64 levels"}},
        {{"plan", "--scenario", sc, "--job", deep}, {deep, "nested more than 64 deep"}},
        {{"simulate", "--scenario", big, "--job", job, "--plan", plan},
         {big + ": line ", "got 1e309", "expected a finite number"}},
    };
    // `validate` needs SAILOR's reference data (--reference), which only ../shared holds.
    if (QFileInfo(ref).isDir()) {
      cases.append({{"validate", deep, "--reference", ref}, {deep, "nested more than 64 deep"}});
      cases.append({{"validate", empty, "--reference", ref},
                    {empty + ": points: got [], expected at least one measured point"}});
    } else {
      qInfo("validate rows skipped: no %s (../shared is not beside this checkout)",
            qPrintable(ref));
    }
    for (const auto& [args, needles] : cases) {
      const Result r = runSailor(args);
      QVERIFY2(r.exit_code == 2, qPrintable(describe(args, r)));
      QVERIFY2(r.err.count('\n') == 1, qPrintable(describe(args, r)));
      for (const QString& n : needles) QVERIFY2(r.err.contains(n), qPrintable(describe(args, r)));
    }
  }

  // A skipped point whose error quotes a long value of multi-byte characters keeps the whole
  // `validate --json` report, at every alignment of the cut (it used to throw on dump, exit 1).
  void validateJsonKeepsSkippedPointsWithMultiByteErrors() {
    const QJsonArray points = measuredPoints().value("points").toArray();
    if (points.isEmpty())
      QSKIP(qPrintable("no " + measuredPointsPath() + ": ../shared is not beside this checkout"));
    for (int pad = 0; pad < 4; ++pad) {
      QJsonObject bad = points[0].toObject();
      bad["id"] = "bad";
      bad["global_batch_size"] = QString(pad, 'a') + QString("\u20ac").repeated(30);
      QTemporaryDir dir;
      QVERIFY(dir.isValid());
      const Result r = validatePoints(dir, QJsonArray{bad, points[1]}, {"--json"});
      QVERIFY2(r.exit_code == 0, qPrintable(r.err));
      const QJsonObject out = QJsonDocument::fromJson(r.out.toUtf8()).object();
      const QJsonArray skipped = out.value("skipped").toArray();
      QVERIFY2(skipped.size() == 1, qPrintable(r.out.left(2000)));
      QVERIFY2(skipped[0].toObject().value("error").toString().contains("global_batch_size"),
               qPrintable(r.out.left(2000)));
    }
  }

  // `sailor validate` on two measured runs, one renamed to an id longer than any of the shipped
  // ones: the table's columns widen with it and the summary follows. Needs SAILOR's reference
  // data in ../shared.
  void validateTableLinesUp() {
    const QJsonArray points = measuredPoints().value("points").toArray();
    if (points.isEmpty())
      QSKIP(qPrintable("no " + measuredPointsPath() + ": ../shared is not beside this checkout"));
    QJsonObject first = points[0].toObject();
    const QString long_id = "a-point-id/longer/than/the/shipped/ones/by/far";
    first["id"] = long_id;
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const Result r = validatePoints(dir, QJsonArray{first, points[1]});
    QVERIFY2(r.exit_code == 0, qPrintable(r.err));
    const QStringList lines = r.out.split('\n');
    QVERIFY2(lines.size() > 3 && lines[0].startsWith("point "), qPrintable(r.out));
    QVERIFY2(lines[1].startsWith(long_id + " "), qPrintable(r.out));
    QVERIFY2(lines[1].size() == lines[0].size() && lines[2].size() == lines[0].size(),
             qPrintable("misaligned:\n" + r.out));
    QVERIFY2(lines[4].startsWith("Iteration time: mean error"), qPrintable(r.out));
  }

  // A file mixing clusters gets one summary per cluster and model beside the overall one: here
  // two clariden runs and one RTX-cluster run of SAILOR's, so each group's mean and max are
  // those of its own rows (the RTX one its single error), in text and JSON; a file of one
  // cluster and model gets no such section. Needs SAILOR's reference data in ../shared.
  void validateSummarisesEachClusterAndModel() {
    const QJsonArray points = measuredPoints().value("points").toArray();
    if (points.isEmpty())
      QSKIP(qPrintable("no " + measuredPointsPath() + ": ../shared is not beside this checkout"));
    const QJsonObject rtx = points[15].toObject();
    QCOMPARE(rtx.value("cluster").toString(), QString("mit"));
    QCOMPARE(points[0].toObject().value("cluster").toString(), QString("clariden"));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QJsonArray mixed{points[0], rtx, points[1]};
    const Result j = validatePoints(dir, mixed, {"--json", "--compare-sailor"});
    QVERIFY2(j.exit_code == 0, qPrintable(j.err));
    const QJsonObject doc = QJsonDocument::fromJson(j.out.toUtf8()).object();
    const QJsonArray rows = doc.value("points").toArray();
    QCOMPARE(rows.size(), 3);
    for (const char* which : {"ours", "sailor"}) {
      const bool ours = QString(which) == "ours";
      const QJsonObject top = ours ? doc : doc.value("sailor_model").toObject();
      const QJsonArray of_rows = top.value("points").toArray();
      const QJsonArray groups = top.value("groups").toArray();
      QCOMPARE(groups.size(), 2);
      auto err = [&](int i, const char* key) {
        return qAbs(of_rows[i].toObject().value(key).toDouble());
      };
      const QJsonObject clariden = groups[0].toObject(), mit = groups[1].toObject();
      QCOMPARE(clariden.value("cluster").toString(), QString("clariden"));
      QCOMPARE(clariden.value("model").toString(), QString("OPT-350M"));
      QCOMPARE(clariden.value("points").toInt(), 2);
      QCOMPARE(mit.value("cluster").toString(), QString("mit"));
      QCOMPARE(mit.value("points").toInt(), 1);
      QVERIFY(qAbs(clariden.value("mean_time_error").toDouble() -
                   (err(0, "time_error") + err(2, "time_error")) / 2) < 1e-12);
      QCOMPARE(clariden.value("max_time_error").toDouble(),
               qMax(err(0, "time_error"), err(2, "time_error")));
      QCOMPARE(mit.value("mean_time_error").toDouble(), err(1, "time_error"));
      QCOMPARE(mit.value("max_memory_error").toDouble(), err(1, "memory_error"));
      // The groups split the overall mean: weighted by their point counts they give it back.
      const double overall = (2 * clariden.value("mean_time_error").toDouble() +
                              mit.value("mean_time_error").toDouble()) /
                             3;
      QVERIFY2(qAbs(overall - top.value("mean_time_error").toDouble()) < 1e-12, which);
    }
    const Result r = validatePoints(dir, mixed);
    QVERIFY2(r.exit_code == 0, qPrintable(r.err));
    const QStringList lines = r.out.split('\n');
    const qsizetype at = lines.indexOf("By cluster and model:");
    QVERIFY2(at > 0 && at + 2 < lines.size(), qPrintable(r.out));
    const QJsonArray groups = doc.value("groups").toArray();
    for (int g = 0; g < 2; ++g) {
      const QJsonObject o = groups[g].toObject();
      auto pct = [&](const char* key) {
        return QString::number(100 * o.value(key).toDouble(), 'f', 1) + "%";
      };
      const int n = o.value("points").toInt();
      const QString wanted = o.value("cluster").toString() + " OPT-350M " + QString::number(n) +
                             (n == 1 ? " point" : " points") + " time mean " +
                             pct("mean_time_error") + ", max " + pct("max_time_error") +
                             " memory mean " + pct("mean_memory_error") + ", max " +
                             pct("max_memory_error");
      QCOMPARE(lines[at + 1 + g].simplified(), wanted);
    }
    const Result one = validatePoints(dir, QJsonArray{points[0], points[1]});
    QVERIFY2(one.exit_code == 0 && one.out.contains("Iteration time: mean error"),
             qPrintable(one.err));
    QVERIFY2(!one.out.contains("By cluster"), qPrintable(one.out));
  }

  // A run that did not record one figure (null, absent, or 0 as SAILOR's files write it) is
  // still predicted; that figure shows a dash, its JSON fields are null, and it stays out of
  // that figure's means, which say over how many points they are.
  void validateLeavesUnmeasuredFiguresOutOfTheMeans() {
    const QJsonArray points = measuredPoints().value("points").toArray();
    if (points.isEmpty())
      QSKIP(qPrintable("no " + measuredPointsPath() + ": ../shared is not beside this checkout"));
    QJsonObject no_memory = points[0].toObject(), no_time = points[15].toObject();
    no_memory["id"] = "no-memory";
    no_memory["measured"] =
        QJsonObject{{"iteration_time_s",
                     points[0].toObject().value("measured").toObject().value("iteration_time_s")},
                    {"peak_memory_bytes", QJsonValue::Null}};
    no_time["id"] = "no-time";
    no_time["measured"] = QJsonObject{
        {"iteration_time_s", 0},
        {"peak_memory_bytes",
         points[15].toObject().value("measured").toObject().value("peak_memory_bytes")}};
    const QJsonArray partial{no_memory, no_time, points[2]};
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const Result j = validatePoints(dir, partial, {"--json"});
    QVERIFY2(j.exit_code == 0, qPrintable(j.err));
    const QJsonObject doc = QJsonDocument::fromJson(j.out.toUtf8()).object();
    const QJsonArray rows = doc.value("points").toArray();
    QCOMPARE(rows.size(), 3);
    QVERIFY(rows[0].toObject().value("memory_error").isNull() &&
            rows[0].toObject().value("measured_memory_bytes").isNull());
    QVERIFY(rows[1].toObject().value("time_error").isNull() &&
            rows[1].toObject().value("measured_iteration_s").isNull());
    QVERIFY(rows[0].toObject().value("predicted_memory_bytes").toDouble() > 0);
    QVERIFY(rows[1].toObject().value("predicted_iteration_s").toDouble() > 0);
    QCOMPARE(rows[0].toObject().value("memory_below_floor").toBool(true), false);
    QCOMPARE(doc.value("time_points").toInt(), 2);
    QCOMPARE(doc.value("memory_points").toInt(), 2);
    auto err = [&](int i, const char* key) {
      return qAbs(rows[i].toObject().value(key).toDouble());
    };
    QVERIFY(qAbs(doc.value("mean_time_error").toDouble() -
                 (err(0, "time_error") + err(2, "time_error")) / 2) < 1e-12);
    QVERIFY(qAbs(doc.value("mean_memory_error").toDouble() -
                 (err(1, "memory_error") + err(2, "memory_error")) / 2) < 1e-12);
    QCOMPARE(doc.value("max_time_error").toDouble(),
             qMax(err(0, "time_error"), err(2, "time_error")));
    const Result r = validatePoints(dir, partial);
    QVERIFY2(r.exit_code == 0, qPrintable(r.err));
    const QStringList lines = r.out.split('\n');
    QVERIFY2(lines.size() > 6, qPrintable(r.out));
    QCOMPARE(lines[1].simplified().split(QChar(0x20)).mid(6, 2),
             QStringList({"-", "9.12"}));  // no measured memory, the predicted
    QVERIFY2(lines[1].simplified().endsWith(" -"), qPrintable(lines[1]));
    QVERIFY2(lines[2].simplified().startsWith("no-time - "), qPrintable(lines[2]));
    QVERIFY2(r.out.contains("Iteration time: mean error") &&
                 r.out.contains("(over 2 of 3 points)\nPeak memory:") &&
                 r.out.contains("(over 2 of 3 points)\nBy cluster and model:"),
             qPrintable(r.out));
    // The RTX group has no measured time: a dash, not a 0% mean; nor a file of such points.
    QVERIFY2(r.out.contains(QRegularExpression("\n  mit OPT-350M +1 point +time - +memory mean ")),
             qPrintable(r.out));
    const Result only = validatePoints(dir, QJsonArray{no_time});
    QVERIFY2(only.exit_code == 0 &&
                 only.out.contains(
                     "\nIteration time: not measured by any point\nPeak memory:    mean error "),
             qPrintable(only.out + only.err));
  }

  // A point that cannot be predicted (an unknown GPU type when read, layers that do not cover
  // the model when simulated) is listed with its error and left out of the means; the others
  // are still predicted. A stage list with another stage's layer number in place of a missing
  // one (SAILOR's GPT-Neo files) is read as its range, says so, and predicts as the clean plan.
  // --strict, or a file with no point that can be predicted, exits 2.
  void validateSkipsPointsItCannotPredict() {
    const QJsonArray points = measuredPoints().value("points").toArray();
    if (points.isEmpty())
      QSKIP(qPrintable("no " + measuredPointsPath() + ": ../shared is not beside this checkout"));
    QJsonObject unknown_gpu = points[1].toObject(), short_plan = points[2].toObject();
    unknown_gpu["id"] = "unknown-gpu";
    QJsonArray reps = unknown_gpu["replicas_per_stage"].toArray();
    QJsonArray stage0 = reps[0].toArray();
    QJsonObject rep0 = stage0[0].toObject();
    rep0["gpu_type"] = "B900";
    stage0[0] = rep0;
    reps[0] = stage0;
    unknown_gpu["replicas_per_stage"] = reps;
    short_plan["id"] = "short-plan";
    QJsonArray layers = short_plan["layers_per_stage"].toArray();
    QJsonArray only = layers[0].toArray();
    only.removeLast();  // the head is missing
    layers[0] = only;
    short_plan["layers_per_stage"] = layers;
    // clariden/OPT-350/N16/N16_D4: stages 0-4, 5-11, 12-18, 19-25; stage 2 written with 25
    // (stage 3's) in place of 14.
    QJsonObject four = points[3].toObject(), repeated = four;
    QCOMPARE(four["layers_per_stage"].toArray()[2].toArray().first().toInt(), 12);
    repeated["id"] = "repeated-layer";
    layers = repeated["layers_per_stage"].toArray();
    QJsonArray third = layers[2].toArray();
    third[2] = 25;
    layers[2] = third;
    repeated["layers_per_stage"] = layers;
    const QJsonArray mixed{points[0], unknown_gpu, short_plan, four, repeated};
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const Result r = validatePoints(dir, mixed);
    QVERIFY2(r.exit_code == 0, qPrintable(r.out + r.err));
    const qsizetype at = r.out.indexOf("\nSkipped: 2 of 5 points could not be predicted");
    QVERIFY2(at > 0, qPrintable(r.out));
    const QString skipped = r.out.mid(at);
    QVERIFY2(skipped.contains("\n  unknown-gpu: ") && skipped.contains("gpu_type") &&
                 skipped.contains("B900"),
             qPrintable(skipped));
    QVERIFY2(skipped.contains("\n  short-plan: ") && skipped.contains("last_layer"),
             qPrintable(skipped));
    QVERIFY2(r.out.contains("\nPoints read other than as written:\n  repeated-layer: "
                            "layers_per_stage[2] lists 25 (also in stage 3) where 14 belongs"),
             qPrintable(r.out));
    QVERIFY2(r.err.contains("2 of 5 points skipped"), qPrintable(r.err));

    const Result j = validatePoints(dir, mixed, {"--json"});
    QVERIFY2(j.exit_code == 0, qPrintable(j.err));
    const QJsonObject doc = QJsonDocument::fromJson(j.out.toUtf8()).object();
    const QJsonArray rows = doc.value("points").toArray();
    QCOMPARE(rows.size(), 3);
    QCOMPARE(doc.value("time_points").toInt(), 3);
    const QJsonArray skip = doc.value("skipped").toArray();
    QCOMPARE(skip.size(), 2);
    QCOMPARE(skip[0].toObject().value("index").toInt(), 1);
    QCOMPARE(skip[0].toObject().value("id").toString(), QString("unknown-gpu"));
    QCOMPARE(skip[1].toObject().value("index").toInt(), 2);
    QVERIFY(skip[1].toObject().value("error").toString().contains("last_layer"));
    QCOMPARE(rows[2].toObject().value("id").toString(), QString("repeated-layer"));
    QCOMPARE(rows[2].toObject().value("predicted_iteration_s").toDouble(),
             rows[1].toObject().value("predicted_iteration_s").toDouble());
    QCOMPARE(rows[1].toObject().value("notes").toArray().size(), 0);
    QCOMPARE(rows[2].toObject().value("notes").toArray().size(), 1);

    const Result strict = validatePoints(dir, mixed, {"--strict"});
    QCOMPARE(strict.exit_code, 2);
    QVERIFY2(strict.err.contains("unknown-gpu") &&
                 strict.err.contains("short-plan: points[2].stages[0].last_layer"),
             qPrintable(strict.err));
    const Result none = validatePoints(dir, QJsonArray{unknown_gpu, short_plan});
    QCOMPARE(none.exit_code, 2);
    QVERIFY2(none.err.contains("no point that can be predicted"), qPrintable(none.err));
  }

  // A run of another sequence length than SAILOR profiled its model at (OPT-350 at 2048; here
  // 1024) takes no times or activations from those profiles: it is listed with both lengths,
  // its figures come from the analytic profile, and the JSON row carries both lengths.
  void validateNamesRunsOfAnotherSequenceLength() {
    const QJsonArray points = measuredPoints().value("points").toArray();
    if (points.isEmpty())
      QSKIP(qPrintable("no " + measuredPointsPath() + ": ../shared is not beside this checkout"));
    QJsonObject shorter = points[0].toObject();
    shorter["id"] = "shorter";
    shorter["sequence_length"] = 1024;
    const Flagged f =
        validateBeside(shorter, points, "Sequence length other than SAILOR's profiles");
    if (QTest::currentTestFailed()) return;
    QVERIFY2(f.section.contains("\n  shorter: 1024 tokens, OPT-350M profiled at 2048\n"),
             qPrintable(f.section));
    QVERIFY2(f.section.contains("\n  shorter: timings GH-96 mbs 1 tp 4 from analytic\n"),
             qPrintable(f.section));
    QCOMPARE(f.rows[0].toObject().value("sequence_length").toInt(), 1024);
    QCOMPARE(f.rows[0].toObject().value("profiled_sequence_length").toInt(), 2048);
    QCOMPARE(f.rows[1].toObject().value("sequence_length").toInt(), 2048);
  }

  // A measured run that the model says would not fit (here: a clariden run given microbatch 64,
  // 64 x the activations on GH-96's 96 GiB) is listed under its own heading and flagged in the
  // JSON, since the run did fit and the disagreement is the model's.
  void validateFlagsRunsPredictedNotToFit() {
    const QJsonArray points = measuredPoints().value("points").toArray();
    if (points.isEmpty())
      QSKIP(qPrintable("no " + measuredPointsPath() + ": ../shared is not beside this checkout"));
    QJsonObject big = points[0].toObject();
    QCOMPARE(big.value("id").toString(), QString("clariden/OPT-350/N1/N1_D1_M4_G1"));
    big["id"] = "too-big";
    big["microbatch_size"] = 64;
    big["global_batch_size"] = 64;
    const Flagged f = validateBeside(
        big, points, "Predicted not to fit in memory, though the run was measured:\n");
    if (QTest::currentTestFailed()) return;
    QVERIFY2(f.section.contains("\n  too-big: stage 0 replica 0 (GH-96, tp 4"),
             qPrintable(f.section));
    QCOMPARE(f.rows.size(), 2);
    QCOMPARE(f.rows[0].toObject().value("fits").toBool(true), false);
    QVERIFY(f.rows[0].toObject().value("out_of_memory").toArray().size() == 1);
    QCOMPARE(f.rows[1].toObject().value("fits").toBool(false), true);
    QVERIFY(f.rows[1].toObject().value("out_of_memory").toArray().isEmpty());
  }

  // A measured peak below what the run must have held on one GPU (model states plus one
  // microbatch's saved activations) is listed as not the run's peak, and flagged in the JSON:
  // here a clariden run given 1 GB (its model states alone are 1.3 GB per GPU), beside the
  // same run as measured.
  void validateFlagsMemoryBelowWhatTheRunHeld() {
    const QJsonArray points = measuredPoints().value("points").toArray();
    if (points.isEmpty())
      QSKIP(qPrintable("no " + measuredPointsPath() + ": ../shared is not beside this checkout"));
    QJsonObject low = points[1].toObject();
    low["id"] = "too-low";
    QJsonObject measured = low.value("measured").toObject();
    measured["peak_memory_bytes"] = 1e9;
    low["measured"] = measured;
    const Flagged f = validateBeside(
        low, points,
        "Measured memory below the model states and one microbatch's saved activations");
    if (QTest::currentTestFailed()) return;
    QVERIFY2(f.section.contains("\n  too-low: 0.93 GiB measured, at least "),
             qPrintable(f.section));
    QCOMPARE(f.rows.size(), 2);
    const double floor = f.rows[0].toObject().value("memory_floor_bytes").toDouble();
    QVERIFY2(floor > 1e9 && floor < f.rows[0].toObject().value("predicted_memory_bytes").toDouble(),
             qPrintable(QString::number(floor)));
    QCOMPARE(f.rows[0].toObject().value("memory_below_floor").toBool(false), true);
    QCOMPARE(f.rows[1].toObject().value("memory_below_floor").toBool(true), false);
    QCOMPARE(f.rows[1].toObject().value("memory_floor_bytes").toDouble(), floor);
    // The line is the floor itself: 1% under it is flagged, 1% over it is not.
    for (const double factor : {0.99, 1.01}) {
      measured["peak_memory_bytes"] = factor * floor;
      low["measured"] = measured;
      QTemporaryDir dir;
      const Result j = validatePoints(dir, QJsonArray{low}, {"--json"});
      QVERIFY2(j.exit_code == 0, qPrintable(j.err));
      const QJsonObject row =
          QJsonDocument::fromJson(j.out.toUtf8()).object().value("points").toArray()[0].toObject();
      QCOMPARE(row.value("memory_below_floor").toBool(factor > 1), factor < 1);
    }
  }

  // The best plan written by `sailor plan --output` is accepted by `sailor simulate --plan`.
  void planOutputSimulates() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath("best.json");
    const QStringList plan_args{"plan", "--scenario",         scenario_, "--job",    job_, "--top",
                                "1",    "--microbatch-sizes", "8",       "--output", out};
    const Result p = runSailor(plan_args);
    QVERIFY2(p.exit_code == 0, qPrintable(describe(plan_args, p)));
    const QStringList sim_args{"simulate", "--scenario", scenario_, "--job", job_, "--plan", out};
    const Result r = runSailor(sim_args);
    QVERIFY2(r.exit_code == 0, qPrintable(describe(sim_args, r)));
    QVERIFY(r.out.contains("Iteration time"));
  }

  // `--trace` with `--output`: each row's best plan goes to its own file, FILE with the row number
  // (from 0) before the extension, and each is accepted by `sailor simulate --plan`; a row
  // without a plan (no GPUs at all) writes none and the command exits 3. (The option used to be
  // ignored: exit 0 and no file.)
  void planTraceOutputWritesOnePlanPerRow() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString trace = writeFile(dir, "trace.csv",
                                    ",Timestamp,A100-40_us-central1-a,V100-16_us-central1-a\n"
                                    "0,1712574014.0187,8,0\n"
                                    "1,1712574137.19241,16,8\n"
                                    "2,1712574258.52282,0,0\n");
    const QString out = dir.filePath("best.json");
    const QStringList args{
        "plan", "--job",        job_, "--trace",   trace, "--top",    "1", "--microbatch-sizes",
        "8",    "--max-stages", "1",  "--threads", "1",   "--output", out};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 3, qPrintable(describe(args, r)));
    QVERIFY2(r.out.contains("== trace row 1712574258.52282") && r.out.contains("no plan"),
             qPrintable(describe(args, r)));
    QVERIFY(!QFile::exists(out));
    QVERIFY(!QFile::exists(dir.filePath("best-2.json")));
    for (const QString& name : {QString("best-0.json"), QString("best-1.json")}) {
      const QString plan = dir.filePath(name);
      QVERIFY2(QFile::exists(plan), qPrintable(name + " not written\n" + describe(args, r)));
      const QStringList sim{"simulate", "--scenario", scenario_, "--job", job_, "--plan", plan};
      const Result s = runSailor(sim);
      QVERIFY2(s.exit_code == 0, qPrintable(describe(sim, s)));
    }
    // Row 0 had 8 A100-40 only: its plan uses at most those.
    QFile f(dir.filePath("best-0.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray best0 = f.readAll();
    QVERIFY2(best0.contains("A100-40") && !best0.contains("V100-16"), best0.constData());
  }

  // `--knee` on the two-zone scenario (2 zones x (128 A100-40 + 128 V100-16) over the built-in
  // scenario's zones, OPT-350M, at most 1.2 USD/iteration; microbatches 4 and 8 and two stages
  // keep it short): the text names the knee after the best plan, without the frontier's table;
  // --json has a "knee" object whose top plan is the best plan, with both tolerances and the
  // last step.
  void planKneeOnTwoZones() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString trace =
        writeFile(dir, "two.csv",
                  ",Timestamp,A100-40_us-central1-a,V100-16_us-central1-a,A100-40_us-central1-b,"
                  "V100-16_us-central1-b\n0,1712574258.52282,128,128,128,128\n");
    const QStringList args{"plan",
                           "--model",
                           "OPT-350",
                           "--global-batch",
                           "1024",
                           "--precision",
                           "fp32",
                           "--trace",
                           trace,
                           "--max-cost-per-iteration",
                           "1.2",
                           "--knee",
                           "--microbatch-sizes",
                           "4,8",
                           "--max-stages",
                           "2"};
    const Result t = runSailor(args);
    QVERIFY2(t.exit_code == 0, qPrintable(describe(args, t)));
    for (const char* needle :
         {"Knee of the Pareto frontier, against the best plan",
          "Within 1% of its throughput: ", "Within 5% of its throughput: ", "The best plan buys ",
          " more throughput than the next-cheaper frontier plan ("})
      QVERIFY2(t.out.contains(needle), qPrintable(needle + QString("\n") + describe(args, t)));
    QVERIFY2(t.out.indexOf("Knee of") > t.out.indexOf("#1"), qPrintable(describe(args, t)));
    QVERIFY2(!t.out.contains("Pareto frontier (cost per iteration"), qPrintable(describe(args, t)));

    const Result j = runSailor(QStringList(args) << "--json");
    QVERIFY2(j.exit_code == 0, qPrintable(describe(args, j)));
    const QJsonObject row = QJsonDocument::fromJson(j.out.toUtf8()).array()[0].toObject();
    const QJsonObject knee = row.value("knee").toObject();
    QVERIFY2(!knee.isEmpty(), qPrintable(describe(args, j)));
    QVERIFY(knee.value("top_is_best").toBool());
    const QJsonObject best = row.value("plans").toArray()[0].toObject();
    const QJsonObject top = knee.value("top").toObject();
    QCOMPARE(top.value("stages"), best.value("stages"));
    const QJsonArray pareto = row.value("pareto").toArray();
    QCOMPARE(pareto[top.value("frontier_index").toInt()].toObject().value("stages"),
             top.value("stages"));
    const QJsonArray within = knee.value("within").toArray();
    QCOMPARE(within.size(), 2);
    QCOMPARE(within[0].toObject().value("tolerance").toDouble(), 0.01);
    QCOMPARE(within[1].toObject().value("tolerance").toDouble(), 0.05);
    const double best_tp = best.value("prediction").toObject().value("iterations_per_s").toDouble();
    for (const auto& w : within) {
      const QJsonObject pick = w.toObject();
      const double tp = pick.value("plan")
                            .toObject()
                            .value("prediction")
                            .toObject()
                            .value("iterations_per_s")
                            .toDouble();
      QVERIFY(tp >= (1 - pick.value("tolerance").toDouble()) * best_tp);
      QVERIFY(pick.value("cost_saving").toDouble() >= 0);
    }
    const QJsonObject step = knee.value("last_step").toObject();
    QVERIFY2(step.value("throughput_gain").toDouble() > 0, qPrintable(describe(args, j)));
    QVERIFY(step.value("cost_increase").toDouble() > 0);
    QVERIFY(step.value("plan").toObject().value("frontier_index").toInt() <
            top.value("frontier_index").toInt());
  }

  // GH-96 columns with --reference: priced from the price sheet at SAILOR's 11.06 USD/GPU-hour,
  // the figure planner_bench plans GH200 at (the sheet used to lack it: exit 2, "expected a price
  // in resources/prices/default.json").
  void planTraceWithGh96OnTheReference() {
    const QString ref = QString(SAILOR_TEST_SHARED_DIR) + "/reference/sailor";
    if (!QFile::exists(ref + "/cluster/basic_cluster_config.json"))
      QSKIP("no SAILOR reference data beside the project (../shared/reference/sailor)");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString trace = writeFile(dir, "gh96.csv",
                                    ",Timestamp,GH-96_us-central1-a,A100-40_us-central1-a\n"
                                    "0,1712574014.0187,16,0\n");
    const QStringList args{"plan",    "--reference",        ref,    "--model",
                           "OPT-350", "--global-batch",     "1024", "--trace",
                           trace,     "--microbatch-sizes", "4",    "--max-stages",
                           "1",       "--threads",          "1",    "--json"};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 0, qPrintable(describe(args, r)));
    const QJsonArray rows = QJsonDocument::fromJson(r.out.toUtf8()).array();
    QCOMPARE(rows.size(), 1);
    const QJsonObject best = rows[0].toObject().value("plans").toArray()[0].toObject();
    const QJsonObject prediction = best.value("prediction").toObject();
    const int gpus = prediction.value("gpus").toInt();
    QVERIFY2(gpus > 0 && gpus <= 16, qPrintable(describe(args, r)));
    // Every GPU of the plan is a GH-96 at 11.06 USD per hour.
    QVERIFY(qAbs(prediction.value("usd_per_hour").toDouble() - 11.06 * gpus) < 1e-9);
  }

  // A bf16 job: the default scenario's V100-16 pools (no bf16 arithmetic) are left out, and said
  // to be; with only V100s there is no plan (exit 3) and the reason names the GPU type.
  // Llama-3-70B at 8192 tokens on the default scenario: without recomputation no plan of up to
  // four stages fits (a bf16 block keeps 1.8 GB per sequence at tp 8, 1.07 GB of it the 64 x 8192^2
  // softmax), exit 3 naming the memory limit; with --recompute full a block keeps its 134 MB input
  // and a plan fits, the job line says so, and its prediction leaves headroom on every GPU.
  void planWithFullRecomputation() {
    const QStringList base{"plan",           "--scenario", scenario_,   "--model", "Llama-3-70B",
                           "--global-batch", "512",        "--seq-len", "8192",    "--precision",
                           "bf16",           "--top",      "1"};
    const Result none = runSailor(base);
    QVERIFY2(none.exit_code == 3 && none.err.contains("does not fit"),
             qPrintable(describe(base, none)));
    // The message says what could make it fit: recomputation, and a deeper pipeline limit.
    QVERIFY2(none.err.contains(
                 "it may fit with full activation recomputation (the job's recompute) or deeper "
                 "pipelines (a higher max_stages)"),
             qPrintable(describe(base, none)));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString best = dir.filePath("best.json");
    QStringList args = base;
    args << "--recompute"
         << "full"
         << "--output" << best;
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 0 && r.out.contains("full activation recomputation"),
             qPrintable(describe(args, r)));
    // The chosen plan, simulated from files: it fits (exit 0) with the recomputing job and
    // does not (exit 3) with the same job keeping every activation.
    const QString job =
        writeFile(dir, "job.json", R"({"model": "Llama-3-70B", "global_batch_size": 512,
      "sequence_length": 8192, "precision": "bf16", "recompute": "full"})");
    const QString job_none =
        writeFile(dir, "none.json", R"({"model": "Llama-3-70B", "global_batch_size": 512,
      "sequence_length": 8192, "precision": "bf16"})");
    const QStringList sim{"simulate", "--scenario", scenario_, "--job", job, "--plan", best};
    const Result s1 = runSailor(sim);
    QVERIFY2(s1.exit_code == 0 && s1.out.contains("full activation recomputation"),
             qPrintable(describe(sim, s1)));
    const QStringList sim_none{"simulate", "--scenario", scenario_, "--job",
                               job_none,   "--plan",     best};
    const Result s0 = runSailor(sim_none);
    QVERIFY2(s0.exit_code == 3, qPrintable(describe(sim_none, s0)));
    const QStringList bad{"plan", "--model",     "OPT-350M", "--global-batch",
                          "8",    "--recompute", "some"};
    const Result b = runSailor(bad);
    QVERIFY2(
        b.exit_code == 2 &&
            b.err.contains("recompute: got \"some\", expected \"none\", \"selective\" or \"full\""),
        qPrintable(describe(bad, b)));
  }

  void planBf16LeavesOutGpusWithoutBf16() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile jf(job_);
    QVERIFY(jf.open(QIODevice::ReadOnly));
    QJsonObject job = QJsonDocument::fromJson(jf.readAll()).object();
    job["precision"] = "bf16";
    const QString bf16 = writeFile(dir, "bf16.json", QJsonDocument(job).toJson());
    const QStringList args{"plan", "--scenario",         scenario_, "--job", bf16, "--top",
                           "3",    "--microbatch-sizes", "8",       "--json"};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 0, qPrintable(describe(args, r)));
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8()).object();
    const QJsonArray notes = o.value("notes").toArray();
    QVERIFY2(
        notes.size() == 1 && notes[0].toString().contains("left out V100-16: no bf16 arithmetic"),
        qPrintable(describe(args, r)));
    const QJsonArray plans = o.value("plans").toArray();
    QVERIFY(!plans.isEmpty());
    for (const auto& p : plans)
      for (const auto& st : p.toObject().value("stages").toArray())
        for (const auto& rep : st.toObject().value("replicas").toArray())
          QVERIFY2(rep.toObject().value("gpu_type").toString() != "V100-16",
                   qPrintable(describe(args, r)));

    QFile sf(scenario_);
    QVERIFY(sf.open(QIODevice::ReadOnly));
    QJsonObject sc = QJsonDocument::fromJson(sf.readAll()).object();
    QJsonArray v100;
    for (const auto& p : sc.value("pools").toArray())
      if (p.toObject().value("gpu_type").toString() == "V100-16") v100.append(p);
    QVERIFY(!v100.isEmpty());
    sc["pools"] = v100;
    const QString only = writeFile(dir, "v100.json", QJsonDocument(sc).toJson());
    const QStringList none_args{"plan", "--scenario", only, "--job", bf16};
    const Result n = runSailor(none_args);
    QVERIFY2(n.exit_code == 3, qPrintable(describe(none_args, n)));
    QVERIFY2(
        n.err.contains("no GPU of the scenario has bf16 arithmetic") && n.err.contains("V100-16"),
        qPrintable(describe(none_args, n)));
  }

  // --timeline writes the schedule as a Chrome trace (atomically); an unwritable path is bad input.
  void simulateTimeline() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("trace.json");
    const QStringList args{"simulate", "--scenario", scenario_,    "--job", job_,
                           "--plan",   plan_,        "--timeline", path};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 0, qPrintable(describe(args, r)));
    QVERIFY(r.out.contains("Iteration time"));  // the usual report still goes to stdout
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject trace = QJsonDocument::fromJson(f.readAll()).object();
    const QJsonArray events = trace.value("traceEvents").toArray();
    int forwards = 0;
    for (const auto& v : events) {
      const QJsonObject e = v.toObject();
      if (e.value("ph").toString() == "X" && e.value("cat").toString() == "forward") ++forwards;
    }
    // The default plan: 2 stages, 128 microbatches per replica, one forward each on each stage.
    QCOMPARE(forwards, 2 * 128);
    QVERIFY(trace.value("otherData").toObject().value("iteration_s").toDouble() > 0);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(),
             1);  // no temporary left

    const QString bad = dir.filePath("no/such/dir/trace.json");
    const QStringList bad_args{"simulate", "--scenario", scenario_,    "--job", job_,
                               "--plan",   plan_,        "--timeline", bad};
    const Result b = runSailor(bad_args);
    QVERIFY2(b.exit_code == 2, qPrintable(describe(bad_args, b)));
    QVERIFY2(b.err.contains(bad) && b.err.contains("a writable path"),
             qPrintable(describe(bad_args, b)));
  }

  void simulateJson() {
    const QStringList args{"simulate", "--scenario", scenario_, "--job",
                           job_,       "--plan",     plan_,     "--json"};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 0, qPrintable(describe(args, r)));
    QJsonParseError perr;
    const QJsonDocument doc = QJsonDocument::fromJson(r.out.toUtf8(), &perr);
    QVERIFY2(perr.error == QJsonParseError::NoError,
             qPrintable(perr.errorString() + "\n" + r.out.left(500)));
    const QJsonObject o = doc.object();
    QVERIFY(o.contains("iteration_s"));
    QVERIFY(o.value("iteration_s").toDouble() > 0);
    QCOMPARE(o.value("fits").toBool(false), true);
    QCOMPARE(o.value("memory").toArray().size(), 8);  // 2 stages x 4 replicas
    QCOMPARE(o.value("job").toObject().value("model").toString(), QString("OPT-350M"));
    QCOMPARE(o.value("scenario").toString(), QString("three-region-mix"));
    QVERIFY(o.value("cost").toObject().value("usd_per_iteration").toDouble() > 0);
  }

  // 12 sequences at microbatch 2 over 4 replicas: 6 microbatches, taken 2, 2, 1, 1 (as `sailor
  // run` deals them); the iteration is the busiest replica's 2 microbatches, as long as 16
  // sequences take.
  void simulateUnevenBatch() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto simulate = [&](int global_batch) {
      const QString job = writeFile(
          dir, QString("job-%1.json").arg(global_batch),
          QString(R"({"model": "OPT-350M", "global_batch_size": %1})").arg(global_batch).toUtf8());
      const QStringList args{"simulate", "--scenario", scenario_, "--job",
                             job,        "--plan",     plan_,     "--json"};
      const Result r = runSailor(args);
      if (r.exit_code != 0) qWarning("%s", qPrintable(describe(args, r)));
      return std::make_pair(r.exit_code, QJsonDocument::fromJson(r.out.toUtf8()).object());
    };
    const auto [code12, uneven] = simulate(12);
    const auto [code16, even] = simulate(16);
    QCOMPARE(code12, 0);
    QCOMPARE(code16, 0);
    QCOMPARE(uneven.value("stages").toArray().size(), 2);
    for (const auto& st : uneven.value("stages").toArray())
      QCOMPARE(st.toObject().value("microbatches").toInt(), 2);
    QVERIFY(uneven.value("iteration_s").toDouble() > 0);
    QCOMPARE(uneven.value("iteration_s").toDouble(), even.value("iteration_s").toDouble());
  }

  void catalogJson() {
    const Result r = runSailor({"catalog", "models", "--json"});
    QCOMPARE(r.exit_code, 0);
    const QJsonArray models = QJsonDocument::fromJson(r.out.toUtf8()).array();
    QCOMPARE(models.size(), 6);
    for (const auto& m : models)
      if (m.toObject().value("name").toString() == "GPT-3-175B")
        QVERIFY(qAbs(m.toObject().value("parameters").toDouble() - 175e9) < 0.02 * 175e9);
  }

  // `sailor prices import` on a small GCP catalogue: one a2-highgpu-1g offer (host + accelerator
  // row), the rest listed as skipped; a bad catalogue exits 2 and writes nothing.
  void pricesImportWritesTheSheetOrNothing() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath("cat/gcp"));
    const QByteArray header =
        "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,"
        "AvailabilityZone,Price,SpotPrice\n";
    writeFile(dir, "cat/gcp/vms.csv",
              header +
                  "a2-highgpu-1g,12.0,85.0,,,,us-central1,us-central1-a,0.8,0.3\n"
                  ",,,A100,1,\"{'Gpus': [{'MemoryInfo': {'SizeInMiB': 40960}}]}\","
                  "us-central1,us-central1-a,2.9,1.1\n"
                  ",,,TPU-X,1,,us-central1,us-central1-a,9.0,\n");
    const QString out = dir.path() + "/prices.json";
    const QStringList args{"prices", "import", "--skypilot", dir.path() + "/cat",
                           "--out",  out,      "--json"};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 0, qPrintable(describe(args, r)));
    const QJsonObject summary = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(summary.value("offers").toInt(), 1);
    QVERIFY(!summary.value("skipped").toArray().isEmpty());
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonArray offers =
        QJsonDocument::fromJson(f.readAll()).object().value("offers").toArray();
    QCOMPARE(offers.size(), 1);
    QCOMPARE(offers[0].toObject().value("gpu_type").toString(), QString("A100-40"));
    QVERIFY(qAbs(offers[0].toObject().value("usd_per_gpu_hour").toDouble() - 3.7) < 1e-9);

    QVERIFY(QDir(dir.path()).mkpath("bad/gcp"));
    writeFile(dir, "bad/gcp/vms.csv", header + "a2-highgpu-1g,12.0,85.0,,,,us-central1,x,oops,\n");
    const QString out2 = dir.path() + "/none.json";
    const Result bad =
        runSailor({"prices", "import", "--skypilot", dir.path() + "/bad", "--out", out2});
    QCOMPARE(bad.exit_code, 2);
    QVERIFY2(bad.err.contains("gcp/vms.csv:2:"), qPrintable(bad.err));
    QVERIFY(!QFile::exists(out2));
  }

  // An owned pool priced by its amortisation (16,000 USD over 4 years, 0.1 USD/h running: 0.556
  // USD per GPU-hour, a seventh of the rented A100-40's): the cheapest plan uses it and says how
  // many of its GPUs are owned; a pool switched off is left out.
  void planOnOwnedAndSwitchedOffPools() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile in(scenario_);
    QVERIFY(in.open(QIODevice::ReadOnly));
    nlohmann::json s = nlohmann::json::parse(in.readAll().toStdString());
    nlohmann::json& own = s["pools"][0];  // A100-40 in us-central1-a
    own.erase("usd_per_gpu_hour");
    own["owned"] = true;
    own["amortisation"] = {
        {"purchase_usd_per_gpu", 16000}, {"lifetime_years", 4}, {"running_usd_per_gpu_hour", 0.1}};
    const QString path = writeFile(dir, "owned.json", QByteArray::fromStdString(s.dump()));
    Result r = runSailor({"plan", "--scenario", path, "--objective", "cost", "--top", "1"});
    QVERIFY2(r.exit_code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("    owned: ") && r.out.contains("us-central1-a"),
             qPrintable(r.out.left(1200)));
    s["pools"][0]["enabled"] = false;
    const QString off = writeFile(dir, "off.json", QByteArray::fromStdString(s.dump()));
    r = runSailor({"plan", "--scenario", off, "--objective", "cost", "--top", "1"});
    QVERIFY2(r.exit_code == 0, qPrintable(r.err));
    QVERIFY2(!r.out.contains("owned:"), qPrintable(r.out.left(1200)));
    s["pools"][0]["spot"] = true;
    const QString bad = writeFile(dir, "bad.json", QByteArray::fromStdString(s.dump()));
    r = runSailor({"plan", "--scenario", bad, "--top", "1"});
    QCOMPARE(r.exit_code, 2);
    QVERIFY2(r.err.contains("pools[0].spot: got true, expected false for an owned pool"),
             qPrintable(r.err));
  }

  // A plan on spot pools says how many of its GPUs are spot: the default scenario's spot pools
  // are A100-40 in us-central1-c and V100-16 in us-west1-b; each best plan's count from its
  // replicas (`--json`) is the one its text gives, and a plan without spot GPUs has no line.
  void planTextCountsSpotGpus() {
    const Result text = runSailor({"plan", "--top", "3"});
    const Result js = runSailor({"plan", "--top", "3", "--json"});
    QVERIFY2(text.exit_code == 0 && js.exit_code == 0, qPrintable(text.err + js.err));
    const nlohmann::json plans = nlohmann::json::parse(js.out.toStdString())["plans"];
    const QStringList blocks = text.out.split(QRegularExpression("\\n#\\d+\\n"));
    QCOMPARE(blocks.size(), static_cast<qsizetype>(plans.size()) + 1);
    int with_spot = 0;
    for (std::size_t i = 0; i < plans.size(); ++i) {
      int spot = 0, gpus = 0;
      for (const auto& st : plans[i]["stages"])
        for (const auto& r : st["replicas"]) {
          const std::string zone = r["zone"], type = r["gpu_type"];
          const int tp = r["tp"];
          gpus += tp;
          if ((zone == "us-central1-c" && type == "A100-40") ||
              (zone == "us-west1-b" && type == "V100-16"))
            spot += tp;
        }
      const QString& block = blocks[static_cast<qsizetype>(i) + 1];
      if (spot == 0) {
        QVERIFY2(!block.contains("spot:"), qPrintable(block));
        continue;
      }
      ++with_spot;
      const QString line = QString("    spot: %1 of %2 GPUs (%3%)\n")
                               .arg(spot)
                               .arg(gpus)
                               .arg(100.0 * spot / gpus, 0, 'f', 1);
      QVERIFY2(block.contains(line), qPrintable(line + "\n" + block));
    }
    QVERIFY2(with_spot > 0, "no best plan on the default scenario uses a spot pool");
  }

  // A multi-cloud scenario from SkyPilot's catalogue extracts (../shared; skipped without it):
  // `sailor prices import`, `sailor prices scenario` of GCP on-demand, AWS spot and Lambda H100
  // pools (each from the cheapest offer of its place), then a job's whole run on it; a pool no
  // offer gives is exit 2 naming --pool, and nothing is written.
  void multiCloudScenarioFromTheCatalogues() {
    const QString catalogs = QString(SAILOR_TEST_SHARED_DIR) + "/reference/skypilot/catalogs/v7";
    if (!QFileInfo::exists(catalogs + "/gcp/vms.csv"))
      QSKIP(qPrintable("no " + catalogs + ": ../shared is not beside this checkout"));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString sheet = dir.filePath("prices.json"), scenario = dir.filePath("multi.json");
    Result r = runSailor(
        {"prices", "import", "--skypilot", catalogs, "--out", sheet, "--date", "2026-12-06"});
    QVERIFY2(r.exit_code == 0, qPrintable(r.err));
    const QStringList pools{"--pool", "gcp:us-central1-a:H100-80:16",
                            "--pool", "aws:use1-az1:H100-80:16:spot",
                            "--pool", "lambda:us-east-1:H100-80:16"};
    r = runSailor(QStringList{"prices", "scenario", "--sheet", sheet, "--out", scenario,
                              "--preemptions-per-gpu-hour", "0.001"} +
                  pools);
    QVERIFY2(r.exit_code == 0, qPrintable(r.err));
    // aws/vms.csv line 812: p5.48xlarge in use1-az1, 30.6846 spot for 8 H100.
    QVERIFY2(r.out.contains("use1-az1: 16 H100-80 spot at 3.83557 USD/GPU-hour (p5.48xlarge, "
                            "aws/vms.csv:812)"),
             qPrintable(r.out));
    const nlohmann::json sc = readJsonFile(scenario);
    QCOMPARE(sc.at("pools").size(), std::size_t{3});
    QVERIFY(std::fabs(sc["pools"][1]["usd_per_gpu_hour"].get<double>() - 30.6846 / 8) < 1e-12);
    QCOMPARE(sc["pools"][1]["preemptions_per_gpu_hour"].get<double>(), 0.001);
    QVERIFY(!sc["pools"][0].contains("preemptions_per_gpu_hour"));
    QCOMPARE(QString::fromStdString(sc["pools"][2]["zone"]), QString("lambda-us-east-1"));
    QCOMPARE(QString::fromStdString(sc["pools"][0]["price_date"]), QString("2026-12-06"));

    r = runSailor({"plan", "--scenario", scenario, "--model", "GPT-Neo-2.7B", "--global-batch",
                   "256", "--training-tokens", "1e10", "--top", "1", "--json"});
    QVERIFY2(r.exit_code == 0, qPrintable(r.err));
    const nlohmann::json plan = nlohmann::json::parse(r.out.toStdString())["plans"][0];
    QVERIFY2(plan.contains("campaign") && plan["campaign"]["days"].get<double>() > 0,
             qPrintable(r.out.left(400)));

    const QString none = dir.filePath("none.json");
    r = runSailor({"prices", "scenario", "--sheet", sheet, "--pool", "gcp:us-central1-z:H100-80:8",
                   "--out", none});
    QCOMPARE(r.exit_code, 2);
    QVERIFY2(r.err.contains("--pool: got \"gcp:us-central1-z:H100-80\", expected a place where "
                            "gcp offers H100-80: "),
             qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(none));
    r = runSailor(
        QStringList{"prices", "scenario", "--sheet", sheet, "--out", none, "--skypilot", catalogs} +
        pools);
    QCOMPARE(r.exit_code, 2);
    QVERIFY2(r.err.contains("--skypilot"), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(none));

    // The spot pool's rate from an availability trace: 16 GPUs for an hour, 12 for an hour: 4
    // GPUs taken over 28 GPU-hours, the source written beside the rate.
    const QString trace = writeFile(
        dir, "spot.json",
        R"([{"Time": 0, "GPUs": 16}, {"Time": 3600, "GPUs": 12}, {"Time": 7200, "GPUs": 16}])");
    const QString traced = dir.filePath("traced.json");
    r = runSailor(QStringList{"prices", "scenario", "--sheet", sheet, "--out", traced,
                              "--preemption-trace", trace} +
                  pools);
    QVERIFY2(r.exit_code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("preemptions per GPU-hour, from the trace spot.json: 4 GPUs taken over "
                            "28 GPU-hours of H100-80 in use1-az1"),
             qPrintable(r.out));
    const nlohmann::json ts = readJsonFile(traced);
    QCOMPARE(ts["pools"][1]["preemptions_per_gpu_hour"].get<double>(), 4.0 / 28);
    QVERIFY(ts["pools"][1]["preemptions_source"].get<std::string>().starts_with("trace spot.json"));
    QVERIFY(!ts["pools"][0].contains("preemptions_per_gpu_hour"));
    r = runSailor(QStringList{"prices", "scenario", "--sheet", sheet, "--out", none,
                              "--preemption-trace", trace, "--preemptions-per-gpu-hour", "0.1"} +
                  pools);
    QCOMPARE(r.exit_code, 2);
    QVERIFY2(r.err.contains("--preemption-trace: got given with --preemptions-per-gpu-hour"),
             qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(none));
  }

  // Prices from a dated catalogue older than --max-price-age-days (default 90) are flagged in
  // `sailor plan`'s notes, text and JSON; a price_date that is not a date is exit 2 naming it.
  void planFlagsStalePrices() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile in(scenario_);
    QVERIFY(in.open(QIODevice::ReadOnly));
    nlohmann::json s = nlohmann::json::parse(in.readAll().toStdString());
    s["pools"][0]["price_date"] = "2020-01-01";
    const QString old = writeFile(dir, "old.json", QByteArray::fromStdString(s.dump()));
    const Result text = runSailor({"plan", "--scenario", old, "--top", "1"});
    QVERIFY2(text.exit_code == 0, qPrintable(text.err));
    const QString zone = QString::fromStdString(s["pools"][0]["zone"]);
    const QString type = QString::fromStdString(s["pools"][0]["gpu_type"]);
    QVERIFY2(text.out.contains("  note: stale price: pool " + zone + " " + type +
                               ": price dated 2020-01-01, "),
             qPrintable(text.out.left(600)));
    QVERIFY2(text.out.contains("days old (more than 90)"), qPrintable(text.out.left(600)));
    const Result js = runSailor({"plan", "--scenario", old, "--top", "1", "--json"});
    QVERIFY2(js.exit_code == 0, qPrintable(js.err));
    QVERIFY2(js.out.contains("stale price: pool " + zone), qPrintable(js.out.left(600)));
    const Result lenient =
        runSailor({"plan", "--scenario", old, "--top", "1", "--max-price-age-days", "1000000"});
    QVERIFY2(lenient.exit_code == 0 && !lenient.out.contains("stale price"),
             qPrintable(lenient.out.left(600)));
    s["pools"][0]["price_date"] = "2026-02-30";
    const QString bad = writeFile(dir, "bad.json", QByteArray::fromStdString(s.dump()));
    const Result refused = runSailor({"plan", "--scenario", bad, "--top", "1"});
    QCOMPARE(refused.exit_code, 2);
    QVERIFY2(refused.err.contains("pools[0].price_date: got \"2026-02-30\""),
             qPrintable(refused.err));
  }

  // A scenario file that carries its session's job: `sailor plan --scenario` plans for it when
  // neither --job nor --model is given, --job still wins, and a session job that does not read
  // is exit 2 naming its field.
  void planTakesTheScenarioFilesJob() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile in(scenario_);
    QVERIFY(in.open(QIODevice::ReadOnly));
    nlohmann::json s = nlohmann::json::parse(in.readAll().toStdString());
    s["job"] = {{"model", "GPT-Neo-2.7B"}, {"global_batch_size", 256}};
    const QString with_job = writeFile(dir, "with-job.json", QByteArray::fromStdString(s.dump()));
    const Result own = runSailor({"plan", "--scenario", with_job, "--top", "1"});
    QVERIFY2(own.exit_code == 0, qPrintable(own.err));
    QVERIFY2(own.out.startsWith("Best plans for GPT-Neo-2.7B (global batch 256"),
             qPrintable(own.out.left(200)));
    const Result given = runSailor({"plan", "--scenario", with_job, "--job", job_, "--top", "1"});
    QVERIFY2(given.exit_code == 0, qPrintable(given.err));
    QVERIFY2(!given.out.startsWith("Best plans for GPT-Neo-2.7B"), qPrintable(given.out.left(200)));
    s["job"]["global_batch_size"] = -4;
    const QString broken = writeFile(dir, "broken.json", QByteArray::fromStdString(s.dump()));
    const Result bad = runSailor({"plan", "--scenario", broken, "--top", "1"});
    QCOMPARE(bad.exit_code, 2);
    QVERIFY2(bad.err.contains("job.global_batch_size") && bad.err.contains("-4"),
             qPrintable(bad.err));
  }

  // The frontier's table names for each plan its tokens/s, USD per hour, the share of its GPUs
  // in spot pools and its zones, row for row as --json's "pareto" plans.
  void frontierTableShowsZonesAndSpotShare() {
    const Result text = runSailor({"plan", "--pareto", "--top", "1"});
    const Result js = runSailor({"plan", "--pareto", "--top", "1", "--json"});
    QVERIFY2(text.exit_code == 0 && js.exit_code == 0, qPrintable(text.err + js.err));
    const nlohmann::json pareto = nlohmann::json::parse(js.out.toStdString())["pareto"];
    QVERIFY(pareto.size() >= 2);
    const qsizetype table = text.out.indexOf("Pareto frontier (cost per iteration");
    QVERIFY2(table >= 0, qPrintable(text.out));
    QStringList rows = text.out.mid(table).split('\n', Qt::SkipEmptyParts);
    QVERIFY2(rows[1].contains("tokens/s") && rows[1].contains("USD/h") && rows[1].contains("spot"),
             qPrintable(rows[1]));
    rows = rows.mid(2);
    QCOMPARE(rows.size(), static_cast<qsizetype>(pareto.size()));
    bool any_spot = false;
    for (std::size_t i = 0; i < pareto.size(); ++i) {
      std::set<std::string> zones;
      int spot = 0, gpus = 0;
      for (const auto& st : pareto[i]["stages"])
        for (const auto& r : st["replicas"]) {
          const std::string zone = r["zone"], type = r["gpu_type"];
          const int tp = r["tp"];
          zones.insert(zone);
          gpus += tp;
          if ((zone == "us-central1-c" && type == "A100-40") ||
              (zone == "us-west1-b" && type == "V100-16"))
            spot += tp;
        }
      QString names;
      for (const auto& z : zones)
        names += (names.isEmpty() ? "" : ", ") + QString::fromStdString(z);
      const QString& row = rows[static_cast<qsizetype>(i)];
      QVERIFY2(row.endsWith(" in " + names), qPrintable(row + " / " + names));
      QVERIFY2(row.contains(QString(" %1% ").arg(100.0 * spot / gpus, 0, 'f', 1)), qPrintable(row));
      any_spot = any_spot || spot > 0;
    }
    QVERIFY2(any_spot, "no frontier plan on the default scenario uses a spot pool");
  }

  // The whole run: `sailor plan --training-tokens` prints each best plan's days, goodput, total
  // USD and its parts, and --json carries them (the parts adding up to the total); a deadline or
  // budget no plan meets is exit 3 naming the one that binds and how close the nearest plan
  // gets; bad budgets are exit 2 naming the option.
  void planShowsTheWholeRun() {
    const Result text = runSailor({"plan", "--training-tokens", "2e10", "--top", "2"});
    QVERIFY2(text.exit_code == 0, qPrintable(text.err));
    QVERIFY2(text.out.contains("== the whole run: 2e+10 tokens, 9537 iterations of 1024 x 2048"),
             qPrintable(text.out));
    QVERIFY(text.out.contains("goodput") && text.out.contains("fail together every"));
    const Result js = runSailor({"plan", "--training-tokens", "2e10", "--top", "2", "--json"});
    QVERIFY2(js.exit_code == 0, qPrintable(js.err));
    const nlohmann::json plans = nlohmann::json::parse(js.out.toStdString())["plans"];
    QCOMPARE(plans.size(), std::size_t{2});
    double previous_days = 0;
    for (const nlohmann::json& p : plans) {
      const nlohmann::json& c = p.at("campaign");
      QCOMPARE(c.at("iterations").get<double>(), 9537.0);
      const double days = c.at("days").get<double>();
      QVERIFY(days >= previous_days);  // ranked by days under the throughput objective
      previous_days = days;
      QVERIFY(c.at("goodput").get<double>() > 0 && c.at("goodput").get<double>() <= 1);
      const nlohmann::json& usd = c.at("usd");
      const double parts = usd.at("gpus").get<double>() + usd.at("egress").get<double>() +
                           usd.at("checkpoint_storage").get<double>();
      QVERIFY(std::abs(parts - usd.at("total").get<double>()) <= 1e-9 * parts);
      // Days are the wall time: the iterations at the plan's iteration time, and what failures
      // and checkpoints add.
      const double iteration_s = p.at("prediction").at("iteration_s").get<double>();
      QVERIFY(days * 86400 >= 9537 * iteration_s);
    }
    const Result late = runSailor({"plan", "--training-tokens", "2e10", "--deadline-days", "0.01"});
    QCOMPARE(late.exit_code, 3);
    QVERIFY2(late.err.contains("no plan finishes within the deadline of 0.01 days: the fastest "
                               "takes "),
             qPrintable(late.err));
    const Result poor = runSailor({"plan", "--training-tokens", "2e10", "--budget-usd", "5"});
    QCOMPARE(poor.exit_code, 3);
    QVERIFY2(poor.err.contains("no plan stays within the budget of 5 USD: the cheapest costs "),
             qPrintable(poor.err));
    // A generous deadline and budget keep the plans.
    const Result fine = runSailor(
        {"plan", "--training-tokens", "2e10", "--deadline-days", "30", "--budget-usd", "1e6"});
    QCOMPARE(fine.exit_code, 0);
  }

  // `sailor simulate` with a job file that carries a budget adds the plan's whole run.
  void simulateShowsTheWholeRun() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString job =
        writeFile(dir, "job.json",
                  R"({"model": "OPT-350M", "global_batch_size": 1024, "sequence_length": 2048,
            "training_tokens": 2e10})");
    const QStringList args{"simulate", "--scenario", scenario_, "--job", job, "--plan", plan_};
    const Result text = runSailor(args);
    QVERIFY2(text.exit_code == 0, qPrintable(describe(args, text)));
    QVERIFY2(text.out.contains("== the whole run: 2e+10 tokens, 9537 iterations"),
             qPrintable(text.out));
    const Result js = runSailor(QStringList(args) << "--json");
    QVERIFY2(js.exit_code == 0, qPrintable(js.err));
    const nlohmann::json out = nlohmann::json::parse(js.out.toStdString());
    const double iteration_s = out.at("iteration_s").get<double>();
    const nlohmann::json& c = out.at("campaign");
    QCOMPARE(c.at("compute_s").get<double>(), 9537 * iteration_s);
    QVERIFY(c.at("wall_s").get<double>() > c.at("compute_s").get<double>());
    // The failure model's options as `sailor plan`'s: a slower restart, the same work, a
    // longer wall time; refused without a budget and out of range.
    const Result slow = runSailor(QStringList(args) << "--json"
                                                    << "--restart-s"
                                                    << "600");
    QVERIFY2(slow.exit_code == 0, qPrintable(slow.err));
    const nlohmann::json sc = nlohmann::json::parse(slow.out.toStdString()).at("campaign");
    QCOMPARE(sc.at("restart_s").get<double>(), 600.0);
    QCOMPARE(sc.at("compute_s").get<double>(), c.at("compute_s").get<double>());
    QVERIFY(sc.at("wall_s").get<double>() > c.at("wall_s").get<double>());
    const Result bad = runSailor(QStringList(args) << "--reconfigure-s"
                                                   << "-1");
    QCOMPARE(bad.exit_code, 2);
    QVERIFY2(bad.err.contains("--reconfigure-s: got \"-1\", expected seconds from 0 to 1e+07"),
             qPrintable(bad.err));
    // Without a budget: no campaign, and its options refused.
    const Result plain =
        runSailor({"simulate", "--scenario", scenario_, "--job", job_, "--plan", plan_, "--json"});
    QVERIFY(!nlohmann::json::parse(plain.out.toStdString()).contains("campaign"));
    const Result unused = runSailor({"simulate", "--scenario", scenario_, "--job", job_, "--plan",
                                     plan_, "--reconfigure-s", "2"});
    QCOMPARE(unused.exit_code, 2);
    QVERIFY2(
        unused.err.contains("--reconfigure-s: got 2, expected absent without a training budget"),
        qPrintable(unused.err));
  }

  void planBudgetBadInput_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    QTest::newRow("budget 0") << QStringList{"--training-tokens", "1e9", "--budget-usd", "0"}
                              << "--budget-usd: got \"0\", expected a number above 0";
    QTest::newRow("budget 1e309") << QStringList{"--training-tokens", "1e9", "--budget-usd",
                                                 "1e309"}
                                  << "--budget-usd";
    QTest::newRow("negative deadline")
        << QStringList{"--training-tokens", "1e9", "--deadline-days", "-3"} << "--deadline-days";
    QTest::newRow("deadline without a budget of tokens")
        << QStringList{"--deadline-days", "3"}
        << "a training budget beside it (--training-tokens or --training-iterations)";
    QTest::newRow("tokens and iterations")
        << QStringList{"--training-tokens", "1e9", "--training-iterations", "5"}
        << "--training-iterations";
    QTest::newRow("negative restart")
        << QStringList{"--training-tokens", "1e9", "--restart-s", "-1"}
        << "--restart-s: got \"-1\", expected seconds from 0 to 1e+07";
    QTest::newRow("restart time without a budget")
        << QStringList{"--restart-s", "60"}
        << "--restart-s: got 60, expected a training budget beside it";
    QTest::newRow("a budget with --trace")
        << QStringList{"--training-tokens", "1e9", "--trace", "trace.csv"}
        << "--training-tokens: got 1e9, expected absent with --trace";
    QTest::newRow("zero checkpoint bandwidth")
        << QStringList{"--training-tokens", "1e9", "--checkpoint-gb-per-s", "0"}
        << "--checkpoint-gb-per-s";
  }
  void planBudgetBadInput() {
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const Result r = runSailor(QStringList{"plan"} + args);
    QVERIFY2(r.exit_code == 2, qPrintable(r.err));
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY(r.out.isEmpty());
  }

  void badInputs_data() {
    QTest::addColumn<QString>("which");  // scenario, job or plan: the file replaced by `text`
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QStringList>("needles");  // in stderr; "FILE" stands for the written file
    QTest::newRow("malformed JSON scenario")
        << "scenario" << QByteArray("{\"regions\": [\n  {\"name\": \"r1\",, }\n")
        << QStringList({"FILE", "malformed JSON", "expected valid JSON"});
    QTest::newRow("unknown GPU in a pool")
        << "scenario" << QByteArray(R"({"regions": [{"name": "r1", "zones": ["r1-a"]}],
                         "pools": [{"zone": "r1-a", "gpu_type": "B200", "count": 8, "usd_per_gpu_hour": 1}]})")
        << QStringList({"FILE", "pools[0].gpu_type", "\"B200\"", "a GPU type of the catalogue"});
    QTest::newRow("plan with negative tp")
        << "plan"
        << QByteArray(R"({"microbatch_size": 1, "stages": [{"first_layer": 0, "last_layer": 25,
                         "replicas": [{"gpu_type": "A100-40", "tp": -1, "zone": "us-central1-a"}]}]})")
        << QStringList({"FILE", "stages[0].replicas[0].tp", "got -1", "an integer >= 1"});
    QTest::newRow("plan in a zone the scenario lacks")
        << "plan"
        << QByteArray(R"({"microbatch_size": 1, "stages": [{"first_layer": 0, "last_layer": 25,
                         "replicas": [{"gpu_type": "A100-40", "tp": 1, "zone": "asia-east1-a"}]}]})")
        << QStringList({"FILE", "stages[0].replicas[0].zone", "\"asia-east1-a\""});
    QTest::newRow("job with unknown model")
        << "job" << QByteArray(R"({"model": "GPT-5", "global_batch_size": 8})")
        << QStringList({"FILE", "model", "\"GPT-5\""});
    // The default plan has 4 replicas per stage at microbatch 2: the global-batch rule
    // (Plan::checkGlobalBatch, the runtime's too) asks for whole microbatches and one per
    // replica.
    QTest::newRow("job whose global batch is half a microbatch")
        << "job" << QByteArray(R"({"model": "OPT-350M", "global_batch_size": 1})")
        << QStringList({"global_batch_size", "got 1",
                        "a positive multiple of the microbatch size 2 (whole microbatches)"});
    QTest::newRow("job whose global batch leaves replicas idle")
        << "job" << QByteArray(R"({"model": "OPT-350M", "global_batch_size": 4})")
        << QStringList(
               {"global_batch_size", "got 4", "at least 4 replicas x 2 sequences per microbatch"});
  }
  void badInputs() {
    QFETCH(QString, which);
    QFETCH(QByteArray, text);
    QFETCH(QStringList, needles);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString file = writeFile(dir, which + ".json", text);
    const QStringList args{"simulate",
                           "--scenario",
                           which == "scenario" ? file : scenario_,
                           "--job",
                           which == "job" ? file : job_,
                           "--plan",
                           which == "plan" ? file : plan_};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 2, qPrintable(describe(args, r)));
    for (QString n : needles) {
      if (n == "FILE") n = file;
      QVERIFY2(r.err.contains(n), qPrintable("stderr lacks \"" + n + "\"\n" + describe(args, r)));
    }
    QVERIFY2(r.out.isEmpty(), "nothing on stdout when the input is bad");
  }

  // `sailor runs` on stores without the run asked for. "STORE" in args stands for a path in a
  // temporary directory: a file that does not exist, or (create) an empty store made by RunStore.
  void runsWithoutRuns_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<bool>("create");
    QTest::addColumn<int>("exit_code");
    QTest::addColumn<QString>("stdout_needle");
    QTest::addColumn<QString>("stderr_needle");
    QTest::newRow("list on a new store")
        << QStringList({"runs", "list", "--store", "STORE"}) << false << 0 << "No runs recorded"
        << "";
    QTest::newRow("list --json on a new store")
        << QStringList({"runs", "list", "--json", "--store", "STORE"}) << false << 0 << "[]"
        << "";
    QTest::newRow("list on an empty store")
        << QStringList({"runs", "list", "--store", "STORE"}) << true << 0 << "No runs recorded"
        << "";
    QTest::newRow("show 42 on a new store")
        << QStringList({"runs", "show", "42", "--store", "STORE"}) << false << 2 << ""
        << "no run 42";
    QTest::newRow("show 42 on an empty store")
        << QStringList({"runs", "show", "42", "--store", "STORE"}) << true << 2 << ""
        << "no run 42";
    QTest::newRow("show without an id")
        << QStringList({"runs", "show", "--store", "STORE"}) << true << 2 << ""
        << "one run id";
    QTest::newRow("show a non-numeric id")
        << QStringList({"runs", "show", "first", "--store", "STORE"}) << true << 2 << ""
        << "\"first\", expected a run id";
  }
  void runsWithoutRuns() {
    QFETCH(QStringList, args);
    QFETCH(bool, create);
    QFETCH(int, exit_code);
    QFETCH(QString, stdout_needle);
    QFETCH(QString, stderr_needle);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString store = dir.filePath("sub/runs.sqlite");
    if (create) sailor::RunStore s(store.toStdString());
    args.replaceInStrings("STORE", store);
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == exit_code, qPrintable(describe(args, r)));
    if (!stdout_needle.isEmpty())
      QVERIFY2(r.out.contains(stdout_needle), qPrintable(describe(args, r)));
    if (!stderr_needle.isEmpty())
      QVERIFY2(r.err.contains(stderr_needle), qPrintable(describe(args, r)));
    QVERIFY2(create || !QFile::exists(store), "reading a store that does not exist created it");
  }

  // A store path that cannot be opened (a directory, a file that is not SQLite): exit 2, named.
  void runsOnAnUnopenableStore() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString text = writeFile(dir, "notes.txt", "not a database\n");
    for (const QString& store : {dir.path(), text}) {
      const QStringList args{"runs", "list", "--store", store};
      const Result r = runSailor(args);
      QVERIFY2(r.exit_code == 2, qPrintable(describe(args, r)));
      QVERIFY2(r.err.contains(store), qPrintable(describe(args, r)));
    }
  }

  // --store naming a directory: one line saying so (not SQLite's "disk I/O error"), exit 2,
  // for list and show.
  void runsStoreThatIsADirectory() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const QStringList& args : {QStringList{"runs", "list", "--store", dir.path()},
                                    QStringList{"runs", "show", "1", "--store", dir.path()}}) {
      const Result r = runSailor(args);
      QVERIFY2(r.exit_code == 2, qPrintable(describe(args, r)));
      QCOMPARE(r.err.count('\n'), 1);
      QVERIFY2(r.err.contains("--store: got \"" + dir.path() + "\", which is a directory, " +
                              "expected a SQLite run store file"),
               qPrintable(describe(args, r)));
      QVERIFY2(!r.err.contains("I/O"), qPrintable(describe(args, r)));
      QVERIFY(r.out.isEmpty());
    }
  }

  // Without --store: $SAILOR_RUN_STORE; a default store that does not exist yet has no runs.
  void runsDefaultStore() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString store = dir.filePath("default/runs.sqlite");
    const QByteArray old = qgetenv("SAILOR_RUN_STORE");
    const bool had = qEnvironmentVariableIsSet("SAILOR_RUN_STORE");
    qputenv("SAILOR_RUN_STORE", store.toLocal8Bit());
    const Result r = runSailor({"runs", "list"});
    if (had) qputenv("SAILOR_RUN_STORE", old);
    else qunsetenv("SAILOR_RUN_STORE");
    QVERIFY2(r.exit_code == 0, qPrintable(describe({"runs", "list"}, r)));
    QVERIFY(r.out.contains("No runs recorded"));
    QVERIFY(r.out.contains(store));
    QVERIFY(!QFile::exists(store));
  }

  // A store with one finished run of two iterations, written with RunStore, read by the CLI.
  void runsListAndShow() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString store = dir.filePath("runs.sqlite");
    {
      sailor::RunStore s(store.toStdString());
      sailor::RunRecord run;
      run.name = "tiny-plan.json";
      run.world_size = 2;
      run.iterations_planned = 5;
      run.backend = "gloo";
      run.plan = {{"microbatch_size", 1}};
      run.job = {{"model", "OPT-350M"}};
      const auto id = s.createRun(run);
      for (int i = 0; i < 2; ++i) {
        sailor::IterationRecord it;
        it.run_id = id;
        it.iteration = i;
        it.loss = 6.5 - i;
        it.iteration_seconds = 0.25;
        it.tokens_per_second = 4096;
        it.detail = {{"stages", nlohmann::json::array()}};
        s.addIteration(it, {{"event", "iteration"}, {"iteration", i}});
      }
      s.finishRun(id, sailor::RunStatus::Stopped, "");
    }

    const QStringList list_args{"runs", "list", "--store", store};
    const Result list = runSailor(list_args);
    QVERIFY2(list.exit_code == 0, qPrintable(describe(list_args, list)));
    QVERIFY2(list.out.contains("tiny-plan.json") && list.out.contains("stopped") &&
                 list.out.contains("2/5"),
             qPrintable(describe(list_args, list)));

    const QStringList list_json_args{"runs", "list", "--json", "--store", store};
    const Result lj = runSailor(list_json_args);
    QVERIFY2(lj.exit_code == 0, qPrintable(describe(list_json_args, lj)));
    QJsonParseError perr;
    const QJsonArray runs = QJsonDocument::fromJson(lj.out.toUtf8(), &perr).array();
    QVERIFY2(perr.error == QJsonParseError::NoError,
             qPrintable(perr.errorString() + "\n" + lj.out));
    QCOMPARE(runs.size(), 1);
    const QJsonObject r0 = runs.at(0).toObject();
    QCOMPARE(r0.value("id").toInt(), 1);
    QCOMPARE(r0.value("name").toString(), QString("tiny-plan.json"));
    QCOMPARE(r0.value("status").toString(), QString("stopped"));
    QCOMPARE(r0.value("world_size").toInt(), 2);
    QCOMPARE(r0.value("iterations_done").toInt(), 2);
    QCOMPARE(r0.value("iterations_planned").toInt(), 5);
    QCOMPARE(r0.value("backend").toString(), QString("gloo"));
    QVERIFY(!r0.value("finished_at").toString().isEmpty());
    QVERIFY(r0.value("error").isNull());
    QCOMPARE(r0.value("job").toObject().value("model").toString(), QString("OPT-350M"));

    const QStringList show_args{"runs", "show", "1", "--json", "--store", store};
    const Result sj = runSailor(show_args);
    QVERIFY2(sj.exit_code == 0, qPrintable(describe(show_args, sj)));
    const QJsonObject shown = QJsonDocument::fromJson(sj.out.toUtf8(), &perr).object();
    QVERIFY2(perr.error == QJsonParseError::NoError,
             qPrintable(perr.errorString() + "\n" + sj.out));
    QCOMPARE(shown.value("run").toObject().value("name").toString(), QString("tiny-plan.json"));
    const QJsonArray its = shown.value("iterations").toArray();
    QCOMPARE(its.size(), 2);
    for (int i = 0; i < 2; ++i) {
      const QJsonObject it = its.at(i).toObject();
      QCOMPARE(it.value("iteration").toInt(), i);
      QCOMPARE(it.value("loss").toDouble(), 6.5 - i);
      QCOMPARE(it.value("iteration_seconds").toDouble(), 0.25);
      QCOMPARE(it.value("tokens_per_second").toDouble(), 4096.0);
    }
    const QJsonArray events = shown.value("events").toArray();
    QCOMPARE(events.size(), 2);
    QCOMPARE(events.at(1).toObject().value("seq").toInt(), 2);
    QCOMPARE(events.at(1).toObject().value("kind").toString(), QString("iteration"));
    QCOMPARE(events.at(1).toObject().value("payload").toObject().value("iteration").toInt(), 1);

    const QStringList show_text_args{"runs", "show", "1", "--store", store};
    const Result st = runSailor(show_text_args);
    QVERIFY2(st.exit_code == 0, qPrintable(describe(show_text_args, st)));
    QVERIFY2(st.out.contains("Run 1: tiny-plan.json") && st.out.contains("5.5000") &&
                 st.out.contains("Events: 2"),
             qPrintable(describe(show_text_args, st)));

    const QStringList missing_args{"runs", "show", "42", "--store", store};
    const Result m = runSailor(missing_args);
    QVERIFY2(m.exit_code == 2, qPrintable(describe(missing_args, m)));
    QVERIFY2(m.err.contains("42") && m.out.isEmpty(), qPrintable(describe(missing_args, m)));
  }

  // An elastic run's store: a reconfiguration 4 -> 3 GPUs at iteration 5 (a worker lost, state
  // from the peers), a pause before iteration 7, a join 3 -> 4 from a checkpoint, and a damaged
  // reconfigured row. `runs show` lists each reconfiguration with its phases, the pause, and
  // names the damaged row; a run without any lists neither heading.
  void runsShowListsReconfigurations() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString store = dir.filePath("runs.sqlite");
    auto plan = [](int stages, int replicas) {
      sailor::Plan p;
      for (int s = 0; s < stages; ++s) {
        sailor::Stage st;
        st.first_layer = s * 4;
        st.last_layer = s * 4 + 3;
        for (int r = 0; r < replicas; ++r) st.replicas.push_back({"A100-40", 1, "zone-a"});
        p.stages.push_back(st);
      }
      return p;
    };
    auto add = [](sailor::RunStore& s, std::int64_t id, sailor::RunEventBody body) {
      sailor::RunEvent e;
      e.run_id = id;
      e.time = "2026-12-03T10:00:00.000Z";
      e.body = std::move(body);
      s.addEvent(id, sailor::toJson(e));
    };
    {
      sailor::RunStore s(store.toStdString());
      sailor::RunRecord run;
      run.name = "elastic.json";
      run.world_size = 4;
      run.iterations_planned = 10;
      run.backend = "gloo";
      run.plan = plan(2, 2).toJson();
      const auto id = s.createRun(run);
      sailor::ReconfiguredEvent lost;
      lost.cause = "worker_lost";
      lost.detail = "rank 3 exited (killed by signal 9)";
      lost.generation = 1;
      lost.from_iteration = 5;
      lost.old_plan = plan(2, 2);
      lost.new_plan = plan(3, 1);
      lost.old_world_size = 4;
      lost.new_world_size = 3;
      lost.state_source = "peers";
      lost.state_bytes = 7'000'000;
      lost.replan_seconds = 0.012;
      lost.teardown_seconds = 0.003;
      lost.group_setup_seconds = 0.045;
      lost.rebuild_seconds = 0.020;
      lost.transfer_seconds = 0.031;
      lost.total_seconds = 0.2;
      add(s, id, lost);
      add(s, id, sailor::PausedEvent{"trace", "2 GPUs cannot hold the model (needs 3)", 7});
      sailor::ReconfiguredEvent join = lost;
      join.cause = "trace";
      join.detail = "trace row 3 at 40 s: 4 A100-40 in zone-a";
      join.generation = 2;
      join.from_iteration = 6;
      std::swap(join.old_plan, join.new_plan);
      join.old_world_size = 3;
      join.new_world_size = 4;
      join.state_source = "checkpoint";
      join.iterations_lost = 1;
      join.launch_seconds = 1.5;
      join.total_seconds = 1.75;
      add(s, id, join);
      s.addEvent(id, {{"event", "reconfigured"}, {"run_id", id}, {"time", "x"}});
      s.finishRun(id, sailor::RunStatus::Finished, "");
      s.createRun(run);  // run 2: no reconfiguration
    }

    const QStringList args{"runs", "show", "1", "--store", store};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 0, qPrintable(describe(args, r)));
    const QStringList lines = r.out.split('\n');
    const auto line_index = [&](const QString& start) {
      for (int i = 0; i < lines.size(); ++i)
        if (lines[i].startsWith(start)) return i;
      return -1;
    };
    const int heading = line_index(QStringLiteral("Reconfigurations:"));
    QVERIFY2(heading >= 0, qPrintable(describe(args, r)));
    QCOMPARE(lines.value(heading + 1).simplified(),
             QStringLiteral("iteration cause GPUs state from lost phases"));
    QCOMPARE(lines.value(heading + 2).simplified(),
             QStringLiteral("5 worker_lost 4 -> 3 peers 0 re-plan 12.00 ms, teardown 3.00 ms, "
                            "groups 45.00 ms, rebuild 20.00 ms, transfer 31.00 ms (7.0 MB), "
                            "total 200.00 ms"));
    QCOMPARE(lines.value(heading + 3).trimmed(),
             QStringLiteral("rank 3 exited (killed by signal 9)"));
    QCOMPARE(lines.value(heading + 4).simplified(),
             QStringLiteral("6 trace 3 -> 4 checkpoint 1 re-plan 12.00 ms, teardown 3.00 ms, "
                            "launch 1.500 s, groups 45.00 ms, rebuild 20.00 ms, transfer 31.00 "
                            "ms (7.0 MB), total 1.750 s"));
    QCOMPARE(lines.value(heading + 5).trimmed(),
             QStringLiteral("trace row 3 at 40 s: 4 A100-40 in zone-a"));
    const int pauses = line_index(QStringLiteral("Pauses"));
    QVERIFY2(pauses > heading, qPrintable(describe(args, r)));
    QCOMPARE(lines.value(pauses + 1).trimmed(),
             QStringLiteral("before iteration 7 (trace): 2 GPUs cannot hold the model (needs 3)"));
    const int bad = line_index(QStringLiteral("Unreadable events:"));
    QVERIFY2(bad > pauses && lines.value(bad + 1).contains(QLatin1String("event 4 (reconfigured)")),
             qPrintable(describe(args, r)));
    QVERIFY2(r.out.contains(QLatin1String("Events: 4")), qPrintable(describe(args, r)));

    const QStringList plain_args{"runs", "show", "2", "--store", store};
    const Result plain = runSailor(plain_args);
    QVERIFY2(plain.exit_code == 0, qPrintable(describe(plain_args, plain)));
    QVERIFY2(!plain.out.contains(QLatin1String("Reconfigurations")) &&
                 !plain.out.contains(QLatin1String("Pauses")),
             qPrintable(describe(plain_args, plain)));
  }

  // A read-only store (file 0444 in a 0555 directory) with a good run, a run whose plan column
  // is garbage and a running run whose controller is gone: `runs list` lists the readable runs,
  // names the bad one on stderr, shows the orphan as failed, and leaves the file unchanged. As
  // root chmod does not stop writes; the unchanged bytes still show nothing was written.
  void runsOnAReadOnlyStoreWithACorruptRow() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkdir("ro"));
    const QString store = dir.filePath("ro/runs.sqlite");
    {
      sailor::RunStore s(store.toStdString());
      sailor::RunRecord run;
      run.backend = "gloo";
      for (const char* name : {"good-plan.json", "bad-plan.json", "orphan-plan.json"}) {
        run.name = name;
        s.createRun(run);
      }
      s.finishRun(1, sailor::RunStatus::Finished, "");
    }
    const pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, nullptr, 0);  // `child` now names no process
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open_v2(store.toUtf8().constData(), &db, SQLITE_OPEN_READWRITE, nullptr),
             SQLITE_OK);
    const std::string sql =
        "UPDATE runs SET plan = 'garbage{' WHERE id = 2;"
        "UPDATE runs SET controller_pid = " +
        std::to_string(child) + " WHERE id = 3;";
    QCOMPARE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close_v2(db);
    QFile f(store);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray before = f.readAll();
    f.close();
    QCOMPARE(::chmod(store.toUtf8().constData(), 0444), 0);
    QCOMPARE(::chmod(dir.filePath("ro").toUtf8().constData(), 0555), 0);

    const QStringList args{"runs", "list", "--store", store};
    const Result r = runSailor(args);
    const QStringList show_args{"runs", "show", "3", "--store", store};
    const Result shown = runSailor(show_args);
    QCOMPARE(::chmod(dir.filePath("ro").toUtf8().constData(), 0755), 0);
    QVERIFY2(r.exit_code == 0, qPrintable(describe(args, r)));
    QVERIFY2(r.out.contains("good-plan.json") && r.out.contains("orphan-plan.json") &&
                 !r.out.contains("bad-plan.json"),
             qPrintable(describe(args, r)));
    QVERIFY2(r.out.contains("failed (controller gone)"), qPrintable(describe(args, r)));
    // Columns line up: every row's start time (a digit) under the header's "started (UTC)",
    // past the widest status.
    const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);  // header, orphan, good
    const qsizetype started_col = lines[0].indexOf("started (UTC)");
    QVERIFY2(started_col > 0, qPrintable(r.out));
    for (qsizetype i = 1; i < lines.size(); ++i)
      QVERIFY2(lines[i].size() > started_col && lines[i][started_col].isDigit() &&
                   lines[i][started_col - 1] == ' ' && lines[i][started_col - 2] == ' ',
               qPrintable(r.out));
    QVERIFY2(r.err.contains("skipped run 2") && r.err.contains("runs.plan is not valid JSON"),
             qPrintable(describe(args, r)));
    QVERIFY2(shown.exit_code == 0, qPrintable(describe(show_args, shown)));
    QVERIFY2(shown.out.contains("controller " + QString::number(child) + " is gone"),
             qPrintable(describe(show_args, shown)));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY2(f.readAll() == before, "reading the store changed its file");
  }

  // --time-limit: plans found within the limit, marked in the text and the JSON, exit 0; a
  // limit passed at once (1 us) stops every microbatch size before its first degree, so the
  // plans are its seed plans (docs/planner.md, "Progress and the time limit").
  void planTimeLimitMarksItsPlans() {
    const QStringList args{"plan", "--time-limit", "0.000001", "--no-progress"};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 0, qPrintable(describe(args, r)));
    QVERIFY2(r.out.contains("time limit: stopped at the 1e-06 s limit"),
             qPrintable(describe(args, r)));
    QVERIFY2(r.out.contains("best plans found so far"), qPrintable(describe(args, r)));
    QVERIFY2(r.out.contains("searched: microbatch 1: seed plans only, stopped at fastest plans"),
             qPrintable(describe(args, r)));
    QVERIFY2(r.out.contains("\n#1\n"), qPrintable(describe(args, r)));
    QVERIFY2(r.err.isEmpty(), qPrintable(describe(args, r)));
    const Result j = runSailor(args + QStringList{"--json"});
    QCOMPARE(j.exit_code, 0);
    const QJsonObject o = QJsonDocument::fromJson(j.out.toUtf8()).object();
    QVERIFY2(!o.value("plans").toArray().isEmpty(), qPrintable(describe(args, j)));
    QCOMPARE(o.value("complete").toBool(true), false);
    const QJsonObject t = o.value("time_limit").toObject();
    QCOMPARE(t.value("limit_s").toDouble(), 1e-6);
    QVERIFY(t.value("search_stopped_s").toDouble() > 0);
    const QJsonArray mbs = t.value("microbatches").toArray();
    QCOMPARE(mbs.size(), 7);  // 1 to 64
    for (const auto& m : mbs) {
      QCOMPARE(m.toObject().value("complete").toBool(true), false);
      QVERIFY(m.toObject().value("degrees").toArray().isEmpty());
      QVERIFY(m.toObject().value("stopped_at").toString().startsWith("fastest plans"));
    }
    QVERIFY(t.value("coverage").toString().startsWith("microbatch 1: seed plans only"));
    // Without a limit (or one the search ends within), complete and no "time_limit".
    const QStringList whole{"plan", "--json", "--microbatch-sizes", "8", "--time-limit", "3600"};
    const Result w = runSailor(whole);
    QCOMPARE(w.exit_code, 0);
    const QJsonObject wo = QJsonDocument::fromJson(w.out.toUtf8()).object();
    QCOMPARE(wo.value("complete").toBool(false), true);
    QVERIFY2(!wo.contains("time_limit"), qPrintable(describe(whole, w)));
  }

  // No plan within the limit: exit 3, one line naming the time limit.
  void planNoPlanWithinTheTimeLimitExits3() {
    const QStringList args{"plan", "--time-limit", "0.000001", "--min-throughput", "1000000"};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 3, qPrintable(describe(args, r)));
    QVERIFY2(r.err.startsWith("sailor plan: no plan: no plan found within the time limit of "
                              "1e-06 s"),
             qPrintable(describe(args, r)));
    QCOMPARE(r.err.count('\n'), 1);
  }

  // --memory-reserve F takes a fraction from 0 to 0.5 and --memory-reserve-mode drop or flag;
  // anything else exits 2 naming the option.
  void planBadMemoryReserveExits2_data() {
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("expected");
    const QString fraction = "a fraction of each GPU's memory from 0 to 0.5";
    for (const char* v : {"-0.1", "0.6", "nan", "inf", "abc", "", "5%"})
      QTest::newRow(qPrintable(QStringLiteral("reserve ") + v))
          << "--memory-reserve" << QString(v) << fraction;
    QTest::newRow("mode keep") << "--memory-reserve-mode"
                               << "keep"
                               << "\"drop\" or \"flag\"";
  }
  void planBadMemoryReserveExits2() {
    QFETCH(QString, option);
    QFETCH(QString, value);
    QFETCH(QString, expected);
    const QStringList args{"plan", option, value};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 2, qPrintable(describe(args, r)));
    QCOMPARE(r.err, "sailor plan: error: " + option + ": got \"" + value + "\", expected " +
                        expected + "\n");
    QVERIFY(r.out.isEmpty());
  }

  // Flagging: the text says "within the memory reserve" beside the headroom of a plan whose
  // least headroom is below the reserve (0.5 of every GPU here: every plan of the default
  // scenario), the JSON marks it; every plan shows its MFU.
  void planMemoryReserveFlag() {
    const QStringList args{"plan", "--microbatch-sizes",    "8",   "--top", "1", "--memory-reserve",
                           "0.5",  "--memory-reserve-mode", "flag"};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 0 && r.out.contains("within the memory reserve") &&
                 r.out.contains("MFU ") && r.out.contains("TFLOP/s per GPU)"),
             qPrintable(describe(args, r)));
    const Result j = runSailor(args + QStringList{"--json"});
    QVERIFY2(j.exit_code == 0, qPrintable(describe(args, j)));
    const QJsonObject plan =
        QJsonDocument::fromJson(j.out.toUtf8()).object()["plans"].toArray()[0].toObject();
    QVERIFY(plan["within_memory_reserve"].toBool());
    QVERIFY(plan["prediction"].toObject()["mfu"].toDouble() > 0);
    // Dropping at 0: nothing is flagged.
    const Result d =
        runSailor({"plan", "--microbatch-sizes", "8", "--top", "1", "--memory-reserve", "0"});
    QVERIFY2(d.exit_code == 0 && !d.out.contains("within the memory reserve"), qPrintable(d.out));
  }

  void planBadTimeLimitExits2_data() {
    QTest::addColumn<QString>("value");
    for (const char* v : {"0", "-1", "nan", "inf", "1e309", "abc", "", "2s"})
      QTest::newRow(*v ? v : "empty") << QString(v);
  }
  void planBadTimeLimitExits2() {
    QFETCH(QString, value);
    const QStringList args{"plan", "--time-limit", value};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 2, qPrintable(describe(args, r)));
    QCOMPARE(r.err, "sailor plan: error: --time-limit: got \"" + value +
                        "\", expected a positive number of seconds\n");
    QVERIFY(r.out.isEmpty());
  }

  // --progress writes the search's progress to stderr (a line every 2 s when stderr is no
  // terminal, the first and the last always), never to stdout: --json stays one document.
  // Without it (stderr is no terminal here) or with --no-progress, nothing on stderr.
  void planProgressGoesToStderr() {
    const QStringList args{"plan", "--json", "--microbatch-sizes", "4,8", "--progress"};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 0, qPrintable(describe(args, r)));
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(r.out.toUtf8(), &error);
    QVERIFY2(error.error == QJsonParseError::NoError && doc.isObject(),
             qPrintable(describe(args, r)));
    QVERIFY(!r.out.contains("%]"));
    const QStringList lines = r.err.split('\n', Qt::SkipEmptyParts);
    QVERIFY2(lines.size() >= 2, qPrintable(describe(args, r)));
    static const QRegularExpression kLine(R"(^sailor plan: \[ *\d+%\] \d+\.\d s  \S.*$)");
    for (const QString& l : lines)
      QVERIFY2(kLine.match(l).hasMatch(), qPrintable("bad progress line: " + l));
    QVERIFY2(lines.front().contains("plans found)"), qPrintable(lines.front()));
    QVERIFY2(lines.back().startsWith("sailor plan: [100%]") && lines.back().endsWith("done"),
             qPrintable(lines.back()));
    const Result limited = runSailor(args + QStringList{"--time-limit", "600"});
    QVERIFY2(limited.err.contains(" s of 600 s  "), qPrintable(describe(args, limited)));
    for (const QStringList& quiet : {QStringList{"plan", "--json", "--microbatch-sizes", "8"},
                                     QStringList{"plan", "--json", "--microbatch-sizes", "8",
                                                 "--progress", "--no-progress"}}) {
      const Result q = runSailor(quiet);
      QCOMPARE(q.exit_code, 0);
      QVERIFY2(q.err.isEmpty(), qPrintable(describe(quiet, q)));
    }
  }

  void planThatDoesNotFitExits3() {
    // OPT-350M at sequence 2048, microbatch 8, on one V100-16: activations alone are tens of
    // GiB, far above 16 GiB.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString plan = writeFile(
        dir, "plan.json", R"({"microbatch_size": 8, "stages": [{"first_layer": 0, "last_layer": 25,
        "replicas": [{"gpu_type": "V100-16", "tp": 1, "zone": "us-central1-a"}]}]})");
    const QStringList args{"simulate", "--scenario", scenario_, "--job", job_, "--plan", plan};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 3, qPrintable(describe(args, r)));
    QVERIFY2(r.out.contains("Does not fit in memory"), qPrintable(describe(args, r)));
    QVERIFY(r.out.contains("V100-16"));
    QVERIFY(r.out.contains("over by"));
    // Still exit 3 with --json, and the JSON says so.
    const Result j = runSailor(args + QStringList{"--json"});
    QCOMPARE(j.exit_code, 3);
    QCOMPARE(QJsonDocument::fromJson(j.out.toUtf8()).object().value("fits").toBool(true), false);
  }

  // Every input is read up to json_util::kMaxJsonFileBytes (64 MiB) whatever the file's kind: a
  // device without end (/dev/zero, /dev/urandom) and a FIFO whose writer never stops are cut at
  // the bound with one line naming the file and the bound, exit 2, the command's peak resident
  // memory far below what an unbounded read takes (16.8 GB for /dev/zero as a trace); a FIFO
  // with no writer reads as empty instead of waiting for one.
  void inputsAreReadUpToTheBoundWhateverTheirKind() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString endless = dir.filePath("endless.fifo");
    const QString lonely = dir.filePath("no-writer.fifo");
    QCOMPARE(::mkfifo(endless.toLocal8Bit().constData(), 0600), 0);
    QCOMPARE(::mkfifo(lonely.toLocal8Bit().constData(), 0600), 0);
    // The writer holds the FIFO open read-write (so opening it never blocks and a reader always
    // finds a writer) and writes spaces until it is killed.
    const int fifo_fd = ::open(endless.toLocal8Bit().constData(), O_RDWR);
    QVERIFY(fifo_fd >= 0);
    const QByteArray spaces(4096, ' ');
    const pid_t writer = fork();
    if (writer == 0) {
      while (::write(fifo_fd, spaces.constData(), spaces.size()) > 0) {
      }
      _exit(0);
    }
    ::close(fifo_fd);
    struct Reaper {  // the writer goes on every way out of the test, a failed check included
      pid_t pid;
      ~Reaper() {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
      }
    } reaper{writer};
    const QString reference = QString(SAILOR_TEST_SHARED_DIR) + "/reference/sailor";
    const QString over = "more than 67108864 bytes";
    struct Case {
      QString file;  // the input that is cut (or empty), named by the error
      QStringList args;
      QString needle;
    };
    std::vector<Case> cases{
        {"/dev/zero",
         {"simulate", "--scenario", "/dev/zero", "--job", job_, "--plan", plan_},
         over},
        {"/dev/urandom",
         {"simulate", "--scenario", scenario_, "--job", "/dev/urandom", "--plan", plan_},
         over},
        {endless, {"simulate", "--scenario", endless, "--job", job_, "--plan", plan_}, over},
        {lonely, {"simulate", "--scenario", lonely, "--job", job_, "--plan", plan_}, "valid JSON"},
        {"/dev/zero",
         {"plan", "--scenario", scenario_, "--job", job_, "--trace", "/dev/zero"},
         over}};
    if (QFileInfo(reference).isDir())
      cases.push_back({"/dev/zero",
                       {"plan", "--reference", reference, "--model", "OPT-350", "--global-batch",
                        "1024", "--trace", "/dev/zero"},
                       over});
    for (const Case& c : cases) {
      const Measured m = runMeasured(c.args, 1 << 20);  // killed past 1 GiB
      const QString what = QString("sailor %1 -> exit %2, peak %3 KiB %4\nstderr: %5")
                               .arg(c.args.join(' '))
                               .arg(m.exit_code)
                               .arg(m.peak_kib)
                               .arg(m.why_killed, m.err.left(2000));
      QVERIFY2(m.exit_code == 2 && m.why_killed.isEmpty(), qPrintable(what));
      QVERIFY2(m.err.count('\n') == 1 && m.err.contains(c.file) && m.err.contains(c.needle),
               qPrintable(what));
      // 64 MiB read, the binary and its data: far below an unbounded read.
      QVERIFY2(m.peak_kib < 400 * 1024, qPrintable(what));
    }
  }

  // A key written twice is refused naming both positions (NOTE [Each key once]), not read as its
  // last value: a job's batch (1024 then 8 used to simulate a batch of 8) and a pool's count.
  void aRepeatedKeyIsAnError() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString job =
        writeFile(dir, "job.json", R"({"model": "OPT-350M", "global_batch_size": 1024,
 "global_batch_size": 8, "sequence_length": 2048})");
    QFile def(scenario_);
    QVERIFY(def.open(QIODevice::ReadOnly));
    QByteArray text = def.readAll();
    QVERIFY(text.contains("\"count\""));
    text.insert(text.indexOf("\"count\""), "\"count\": 1000, ");
    const QString scenario = writeFile(dir, "scenario.json", text);
    const QList<QPair<QStringList, QString>> cases{
        {{"simulate", "--scenario", scenario_, "--job", job, "--plan", plan_},
         "job.json: line 2, column 2: got the key \"global_batch_size\" again (first at line 1, "
         "column 23), expected each key once in an object"},
        {{"plan", "--scenario", scenario, "--job", job_},
         "got the key \"count\" again (first at line "}};
    for (const auto& [args, needle] : cases) {
      const Result r = runSailor(args);
      QVERIFY2(r.exit_code == 2 && r.err.count('\n') == 1 && r.err.contains(needle),
               qPrintable(describe(args, r)));
    }
  }

  void noProfileSourceExits2() {
    // Without the analytic fallback and with no profile files, nothing can answer.
    const QStringList args{"simulate", "--scenario", scenario_, "--job",
                           job_,       "--plan",     plan_,     "--no-analytic"};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 2, qPrintable(describe(args, r)));
    QVERIFY2(r.err.contains("no timings for OPT-350M on A100-40"), qPrintable(describe(args, r)));
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
