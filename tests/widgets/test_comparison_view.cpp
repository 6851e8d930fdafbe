// The comparison view (widgets/comparison_view.hpp): rows shown as the table says, a scenario
// without a plan spans its reason, the plot draws one labelled point per finishing run with the
// deadline and budget lines (or says why it has none), and the exports write CSV, PNG and PDF
// whole, leaving a file as it was on error.
#include <QDir>
#include <QFile>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

#include "comparison_view.hpp"

using sailor::Campaign;
using sailor::ScenarioComparison;
using sailor::studio::ComparisonView;

namespace {

ScenarioComparison row(const std::string& name, double days, double usd) {
  ScenarioComparison r;
  r.name = name;
  r.gpus = 512;
  r.spot_gpus = 128;
  r.gpu_types = "512 H100-80";
  r.zones = "us-central1-a";
  r.iteration_s = 22.3;
  r.tokens_per_s = 376000;
  r.usd_per_hour = 5663;
  r.mfu = 0.38;
  Campaign c;
  c.compute_s = days * 86400 * 0.95;
  c.wall_s = days * 86400;
  c.goodput = 0.95;
  c.total_usd = usd;
  c.expected_failures = 12.5;
  c.expected_preemptions = 3;
  r.campaign = c;
  return r;
}

QByteArray head(const QString& path, int n) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.read(n) : QByteArray();
}

}  // namespace

class TestComparisonView : public QObject {
  Q_OBJECT

 private slots:
  void tableAndPlot() {
    ComparisonView view;
    QVERIFY(view.plotMessage().contains("Add scenarios"));
    ScenarioComparison none;
    none.name = "A100 spot";
    none.no_plan_reason = "no plan finishes within the deadline of 30 days";
    view.setRows({row("H100 on demand", 29.5, 6.68e6), none, row("ours + spot", 41.8, 1.92e6)},
                 30.0, 5e6);
    QTableWidget* t = view.table();
    QCOMPARE(t->rowCount(), 3);
    QCOMPARE(t->columnCount(), 15);
    QCOMPARE(t->item(0, 0)->text(), QString("H100 on demand"));
    QCOMPARE(t->item(0, 1)->text(), QString("512"));
    QCOMPARE(t->item(0, 4)->text(), QLocale().toString(25.0, 'f', 1) + " %");  // 128 of 512
    QCOMPARE(t->item(0, 9)->text(), QString("29.50"));
    QCOMPARE(t->item(0, 10)->text(), QLocale().toString(6.68e6, 'f', 0));
    QCOMPARE(t->item(0, 11)->text(), QLocale().toString(95.0, 'f', 1) + " %");
    QVERIFY(t->item(1, 1)->text().contains("no plan finishes within the deadline of 30 days"));
    QCOMPARE(t->columnSpan(1, 1), 14);
    // Two runs that finish: two points, each labelled; the deadline and budget lines.
    QCOMPARE(view.plot()->graphCount(), 2);
    QCOMPARE(view.plot()->graph(1)->name(), QString("ours + spot"));
    QCOMPARE(view.plot()->graph(1)->data()->at(0)->key, 41.8);
    int lines = 0, texts = 0;
    for (int i = 0; i < view.plot()->itemCount(); ++i) {
      lines += qobject_cast<QCPItemStraightLine*>(view.plot()->item(i)) != nullptr;
      texts += qobject_cast<QCPItemText*>(view.plot()->item(i)) != nullptr;
    }
    QCOMPARE(lines, 2);
    QCOMPARE(texts, 4);  // two names, the deadline's and the budget's
    QVERIFY(view.plotMessage().isEmpty());
    // Two scenarios on one point (the same best plan): one label names both.
    view.setRows({row("a", 10, 1e5), row("b", 10, 1e5), row("c", 20, 2e5)});
    QStringList names;
    for (int i = 0; i < view.plot()->itemCount(); ++i)
      if (auto* text = qobject_cast<QCPItemText*>(view.plot()->item(i))) names << text->text();
    QCOMPARE(names, QStringList({"a\nb", "c"}));
    // Without a training budget: no run to plot, and the plot says how to get one.
    ScenarioComparison bare = row("bare", 1, 1);
    bare.campaign.reset();
    view.setRows({bare});
    QCOMPARE(view.plot()->graphCount(), 0);
    QVERIFY(view.plotMessage().contains("tokens to train"));
    QCOMPARE(view.table()->item(0, 9), nullptr);
  }

  void exports() {
    ComparisonView view;
    view.setRows({row("H100, on demand", 29.5, 6.68e6), row("A100 spot", 41.8, 1.92e6)});
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString csv = dir.filePath("c.csv");
    QCOMPARE(view.exportCsv(csv), QString());
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    QCOMPARE(text, QString::fromStdString(sailor::comparisonCsv(view.rows())));
    QVERIFY(text.contains("\r\n\"H100, on demand\",512,"));
    QCOMPARE(view.exportPlot(dir.filePath("p.png")), QString());
    QCOMPARE(head(dir.filePath("p.png"), 8), QByteArray("\x89PNG\r\n\x1a\n", 8));
    QCOMPARE(view.exportPlot(dir.filePath("p.pdf")), QString());
    QCOMPARE(head(dir.filePath("p.pdf"), 5), QByteArray("%PDF-"));
    // Refused: another suffix; a directory that does not exist. The file already there stays.
    QVERIFY(view.exportPlot(dir.filePath("p.gif")).contains("expected .png or .pdf"));
    QVERIFY(!QFile::exists(dir.filePath("p.gif")));
    QVERIFY(!view.exportPlot(dir.filePath("none/p.png")).isEmpty());
    QVERIFY(!view.exportCsv(dir.filePath("none/c.csv")).isEmpty());
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 3);  // no leftovers
  }
};

QTEST_MAIN(TestComparisonView)
#include "test_comparison_view.moc"
