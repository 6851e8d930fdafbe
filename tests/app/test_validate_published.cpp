// `sailor validate` on a file of published training runs (sailor/simulation/published_runs.hpp),
// driven as a user would: the built binary on files written to a temporary directory. Exit status
// (0; 2 for a malformed row, one line naming the run and the field), the --json shape, and the
// shared calibration file when ../shared is there. No accuracy is asserted.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include "cli_support.hpp"

namespace {

using sailor::test::describe;
using sailor::test::resources;
using sailor::test::Result;
using sailor::test::runSailor;

// Two small Megatron-LM rows on A100-80 nodes: one complete, one without an iteration time.
QJsonObject row(const QString& id) {
  return QJsonObject{{"id", id},
                     {"framework", "Megatron-LM"},
                     {"model", QJsonObject{{"name", "GPT small"},
                                           {"layers", 4},
                                           {"hidden", 256},
                                           {"ffn_hidden", 1024},
                                           {"heads", 4},
                                           {"kv_heads", QJsonValue::Null},
                                           {"vocab", 1000},
                                           {"mlp", "gelu"},
                                           {"position", "learned"}}},
                     {"sequence_length", 128},
                     {"global_batch_size", 16},
                     {"microbatch_size", 2},
                     {"precision", "bf16"},
                     {"optimizer", "adam"},
                     {"activation_recomputation", "none"},
                     {"zero_stage", 0},
                     {"interleaved_virtual_stages", 1},
                     {"hardware", QJsonObject{{"gpu_type", "A100 80GB"},
                                              {"catalogue_gpu", "A100-80"},
                                              {"gpus", 16},
                                              {"gpus_per_node", 8},
                                              {"inter_node_gbit_per_gpu", 200}}},
                     {"parallelism", QJsonObject{{"tp", 2}, {"pp", 2}, {"dp", 4}, {"cp", 1}}},
                     {"measured", QJsonObject{{"tflops_per_gpu", 100},
                                              {"mfu", QJsonValue::Null},
                                              {"tokens_per_s_per_gpu", QJsonValue::Null},
                                              {"iteration_time_s", 1.5}}},
                     {"derived", QJsonObject{{"iteration_time_s", QJsonValue::Null}}},
                     {"notes", "test row"}};
}

QString writeRuns(const QTemporaryDir& dir, const QJsonArray& runs) {
  const QString path = dir.filePath("published.json");
  QFile f(path);
  if (f.open(QIODevice::WriteOnly)) f.write(QJsonDocument(QJsonObject{{"runs", runs}}).toJson());
  return path;
}

}  // namespace

class TestValidatePublished : public QObject {
  Q_OBJECT

 private slots:
  void predictsAndSkips() {
    QTemporaryDir dir;
    QJsonObject gap = row("no-time");
    QJsonObject measured = gap["measured"].toObject();
    measured["iteration_time_s"] = QJsonValue::Null;
    gap["measured"] = measured;
    const QString path = writeRuns(dir, QJsonArray{row("small"), gap});
    const QStringList text_args{"validate", path};
    const Result text = runSailor(text_args);
    QVERIFY2(text.exit_code == 0, qPrintable(describe(text_args, text)));
    QVERIFY2(text.out.contains("small") && text.out.contains("2/2/4") &&
                 text.out.contains("Iteration time: mean |error|") && text.out.contains("Skipped:"),
             qPrintable(describe(text_args, text)));
    QVERIFY2(text.err.contains("1 of 2 runs skipped"), qPrintable(describe(text_args, text)));

    const QStringList json_args{"validate", path, "--json"};
    const Result j = runSailor(json_args);
    QVERIFY2(j.exit_code == 0, qPrintable(describe(json_args, j)));
    const QJsonObject doc = QJsonDocument::fromJson(j.out.toUtf8()).object();
    for (const char* k : {"points", "mean_time_error", "max_time_error", "skipped"})
      QVERIFY2(doc.contains(k), k);
    const QJsonArray points = doc["points"].toArray();
    QCOMPARE(points.size(), 1);
    const QJsonObject p = points[0].toObject();
    QCOMPARE(p["id"].toString(), QString("small"));
    QCOMPARE(p["measured_iteration_s"].toDouble(), 1.5);
    QVERIFY(p["predicted_iteration_s"].toDouble() > 0);
    QVERIFY(p.contains("time_error") && p["assumptions"].isArray());
    const QJsonArray skipped = doc["skipped"].toArray();
    QCOMPARE(skipped.size(), 1);
    QCOMPARE(skipped[0].toObject()["id"].toString(), QString("no-time"));
    QVERIFY(!skipped[0].toObject()["reason"].toString().isEmpty());

    const QStringList strict_args{"validate", path, "--strict"};
    const Result strict = runSailor(strict_args);
    QVERIFY2(strict.exit_code == 2 && strict.err.count('\n') == 1,
             qPrintable(describe(strict_args, strict)));
  }

  // A malformed row: exit 2, one line naming runs[i] (id).field.
  void refusesMalformedRows() {
    QTemporaryDir dir;
    QJsonObject bad = row("bad");
    QJsonObject hw = bad["hardware"].toObject();
    hw["gpus"] = 32;
    bad["hardware"] = hw;
    const QString path = writeRuns(dir, QJsonArray{row("small"), bad});
    const QStringList args{"validate", path};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 2 && r.err.count('\n') == 1 && r.out.isEmpty(),
             qPrintable(describe(args, r)));
    QVERIFY2(r.err.contains("runs[1] (bad).parallelism"), qPrintable(describe(args, r)));
    const QStringList ref_args{"validate", path, "--reference", dir.path()};
    const Result ref = runSailor(ref_args);
    QVERIFY2(ref.exit_code == 2 && ref.err.contains("--reference"),
             qPrintable(describe(ref_args, ref)));
  }

  void readsTheSharedFile() {
    const QString path =
        QString(SAILOR_TEST_SHARED_DIR) + "/reference/published/published_runs.json";
    if (!QFile::exists(path))
      QSKIP(qPrintable("published runs absent (" + path +
                       "); the shared/ directory beside the project provides them"));
    const QStringList args{"validate", path, "--json"};
    const Result r = runSailor(args);
    QVERIFY2(r.exit_code == 0, qPrintable(describe(args, r)));
    const QJsonObject doc = QJsonDocument::fromJson(r.out.toUtf8()).object();
    const QJsonArray points = doc["points"].toArray();
    QVERIFY(!points.isEmpty());
    for (const QJsonValue& s : doc["skipped"].toArray())
      QVERIFY(!s.toObject()["reason"].toString().isEmpty());
  }
};

QTEST_GUILESS_MAIN(TestValidatePublished)
#include "test_validate_published.moc"
