// The Run tab's launch panel (widgets/run/launch_panel.hpp) through its signals: Start emits
// startRequested with the iterations and data chosen, or exportRequested with the Export target;
// Stop emits stopRequested while a run goes; a change of target emits launchTargetChanged and
// shows that target's fields only; the export result and the job are one line each.
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

#include "run/launch_panel.hpp"
#include "run_views_tests.hpp"

using sailor::studio::LaunchKind;
using sailor::studio::LaunchPanel;
using sailor::studio::LaunchTarget;

namespace {

template <class T>
T* child(const LaunchPanel& p, const char* name) {
  T* w = p.findChild<T*>(QString::fromLatin1(name));
  if (!w) qFatal("no child %s", name);
  return w;
}

}  // namespace

class TestLaunchPanel : public QObject {
  Q_OBJECT

 private slots:
  void startEmitsTheIterationsAndData() {
    LaunchPanel p;
    QSignalSpy start(&p, &LaunchPanel::startRequested);
    QSignalSpy exporting(&p, &LaunchPanel::exportRequested);
    child<QSpinBox>(p, "iterations")->setValue(7);
    child<QComboBox>(p, "dataSource")->setCurrentIndex(1);
    QCOMPARE(p.iterationsRequested(), 7);
    QCOMPARE(p.dataSource(), QStringLiteral("text"));
    QTest::mouseClick(child<QPushButton>(p, "start"), Qt::LeftButton);
    QCOMPARE(start.count(), 1);
    QCOMPARE(start.at(0).at(0).toInt(), 7);
    QCOMPARE(start.at(0).at(1).toString(), QStringLiteral("text"));
    QCOMPARE(exporting.count(), 0);
  }

  // Export: Start is "Export" and asks for the launch files with the target's format and
  // directory; no run is requested.
  void exportTargetEmitsExportRequested() {
    LaunchPanel p;
    QSignalSpy start(&p, &LaunchPanel::startRequested);
    QSignalSpy exporting(&p, &LaunchPanel::exportRequested);
    QSignalSpy changed(&p, &LaunchPanel::launchTargetChanged);
    LaunchTarget t;
    t.kind = LaunchKind::Export;
    t.export_format = QStringLiteral("torchrun");
    t.export_dir = QStringLiteral("/tmp/launch");
    p.setLaunchTarget(t);
    QCOMPARE(changed.count(), 0);  // set by the studio: not the user's change
    auto* start_button = child<QPushButton>(p, "start");
    QCOMPARE(start_button->text(), LaunchPanel::tr("Export"));
    QTest::mouseClick(start_button, Qt::LeftButton);
    QCOMPARE(start.count(), 0);
    QCOMPARE(exporting.count(), 1);
    const auto sent = exporting.at(0).at(0).value<LaunchTarget>();
    QCOMPARE(sent.kind, LaunchKind::Export);
    QCOMPARE(sent.export_format, QStringLiteral("torchrun"));
    QCOMPARE(sent.export_dir, QStringLiteral("/tmp/launch"));
    QVERIFY(!child<QLineEdit>(p, "exportDir")->isHidden());
    QVERIFY(child<QLineEdit>(p, "partition")->isHidden());
  }

  void stopOnlyWhileRunning() {
    LaunchPanel p;
    QSignalSpy stop(&p, &LaunchPanel::stopRequested);
    auto* start_button = child<QPushButton>(p, "start");
    auto* stop_button = child<QPushButton>(p, "stop");
    QVERIFY(start_button->isEnabled());
    QVERIFY(!stop_button->isEnabled());
    p.setRunning(true);
    QVERIFY(!start_button->isEnabled());
    QVERIFY(stop_button->isEnabled());
    QVERIFY(!child<QSpinBox>(p, "iterations")->isEnabled());
    QVERIFY(!child<QComboBox>(p, "launchTarget")->isEnabled());
    QTest::mouseClick(stop_button, Qt::LeftButton);
    QCOMPARE(stop.count(), 1);
    p.setRunning(false);
    p.setStartAvailable(false, QStringLiteral("no plan selected"));
    QVERIFY(!start_button->isEnabled());
    QCOMPARE(start_button->toolTip(), QStringLiteral("no plan selected"));
  }

  // The user's change of target is announced, with that target's fields; Elastic is for runs
  // (this machine or a Slurm cluster), not for exports.
  void targetChangeEmitsLaunchTargetChanged() {
    LaunchPanel p;
    QSignalSpy changed(&p, &LaunchPanel::launchTargetChanged);
    auto* elastic = child<QCheckBox>(p, "elastic");
    elastic->setChecked(true);
    QVERIFY(p.elasticRequested());
    child<QComboBox>(p, "launchTarget")->setCurrentIndex(static_cast<int>(LaunchKind::Cluster));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.at(0).at(0).value<LaunchTarget>().kind, LaunchKind::Cluster);
    QVERIFY(!child<QLineEdit>(p, "partition")->isHidden());
    QVERIFY(!child<QLineEdit>(p, "clusterFile")->isHidden());
    QVERIFY(child<QLineEdit>(p, "exportDir")->isHidden());
    QVERIFY(elastic->isEnabled());
    QVERIFY(p.elasticRequested());

    auto* partition = child<QLineEdit>(p, "partition");
    partition->setText(QStringLiteral("  gpu  "));
    emit partition->editingFinished();
    QCOMPARE(changed.count(), 2);
    QCOMPARE(changed.at(1).at(0).value<LaunchTarget>().partition, QStringLiteral("gpu"));

    QSignalSpy edit(&p, &LaunchPanel::editClusterRequested);
    QTest::mouseClick(child<QPushButton>(p, "editClusterFile"), Qt::LeftButton);
    QCOMPARE(edit.count(), 1);

    child<QComboBox>(p, "launchTarget")->setCurrentIndex(static_cast<int>(LaunchKind::Export));
    QVERIFY(!elastic->isEnabled());
    QVERIFY(!p.elasticRequested());
  }

  // One line each: a message of several lines is joined; a failure is red; the job label hides
  // when there is no job.
  void exportResultAndJobAreOneLine() {
    LaunchPanel p;
    LaunchTarget t;
    t.kind = LaunchKind::Export;
    p.setLaunchTarget(t);
    p.showExportResult(QStringLiteral("Cannot write\nthe directory"), true);
    QCOMPARE(p.exportResultText(), QStringLiteral("Cannot write the directory"));
    QVERIFY(p.exportFailed());
    QVERIFY(child<QLabel>(p, "exportResult")->styleSheet().contains(QLatin1String("#b00020")));
    p.showExportResult({}, false);
    QVERIFY(p.exportResultText().isEmpty());

    auto* job = child<QLabel>(p, "jobState");
    QVERIFY(job->isHidden());
    p.setJobText(QStringLiteral("Slurm job 13: RUNNING"), QStringLiteral("Run directory: /r"));
    QVERIFY(!job->isHidden());
    QCOMPARE(job->text(), QStringLiteral("Slurm job 13: RUNNING"));
    QCOMPARE(job->toolTip(), QStringLiteral("Run directory: /r"));
    p.setJobText({});
    QVERIFY(job->isHidden());
  }

  // A long export result is cut at the panel's edge, never widening it.
  void longResultDoesNotWidenThePanel() {
    LaunchPanel p;
    LaunchTarget t;
    t.kind = LaunchKind::Export;
    p.setLaunchTarget(t);
    const int before = p.minimumSizeHint().width();
    p.showExportResult(QStringLiteral("Wrote sailor.yaml to ") + QString(300, QLatin1Char('d')),
                       false);
    QCOMPARE(p.minimumSizeHint().width(), before);
  }
};

int runLaunchPanelTests(int argc, char** argv) {
  TestLaunchPanel t;
  return QTest::qExec(&t, argc, argv);
}

#include "test_launch_panel.moc"
