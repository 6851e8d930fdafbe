// An elastic run's reconfigurations on the Run tab (widgets/run/reconfiguration_view.hpp): a
// reconfigured event adds a row and asks for a marker on the plots (markerRequested); a pause
// shows the banner and a row until it is hidden; Resize... is offered only for a live run the
// studio calls resizable, and its accepted dialog emits resizeRequested with the counts chosen.
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QTreeWidget>

#include "resize_dialog.hpp"
#include "run/reconfiguration_view.hpp"
#include "run_views_tests.hpp"

using sailor::AvailabilitySite;
using sailor::studio::ReconfigurationView;

namespace {

sailor::Plan plan(int stages, int replicas) {
  sailor::Plan p;
  p.microbatch_size = 1;
  for (int s = 0; s < stages; ++s) {
    sailor::Stage st;
    st.first_layer = 4 * s;
    st.last_layer = 4 * s + 3;
    for (int r = 0; r < replicas; ++r) st.replicas.push_back({"A100-40", 1, "zone-a"});
    p.stages.push_back(st);
  }
  return p;
}

sailor::ReconfiguredEvent workerLost() {
  sailor::ReconfiguredEvent r;
  r.cause = "worker_lost";
  r.detail = "rank 3 exited";
  r.generation = 1;
  r.from_iteration = 5;
  r.old_plan = plan(2, 2);
  r.new_plan = plan(3, 1);
  r.old_world_size = 4;
  r.new_world_size = 3;
  r.state_source = "peers";
  r.total_seconds = 0.2;
  return r;
}

}  // namespace

class TestReconfigurationView : public QObject {
  Q_OBJECT

 private slots:
  void reconfigurationAddsARowAndAMarker() {
    ReconfigurationView v;
    QSignalSpy marker(&v, &ReconfigurationView::markerRequested);
    v.addReconfiguration(workerLost());
    QCOMPARE(marker.count(), 1);
    QCOMPARE(marker.at(0).at(0).toDouble(), 5.0);
    QCOMPARE(marker.at(0).at(1).toString(), QStringLiteral("4\u21923 GPUs (worker lost)"));
    QCOMPARE(marker.at(0).at(4).toString(), QStringLiteral("reconfigurationMarker"));
    QCOMPARE(v.reconfigurations().size(), std::size_t{1});
    QTreeWidgetItem* row = v.view()->topLevelItem(0);
    QVERIFY(row);
    QCOMPARE(row->text(ReconfigurationView::ReconfigColCause), QStringLiteral("worker lost"));
    QCOMPARE(row->text(ReconfigurationView::ReconfigColGpus), QStringLiteral("4\u21923"));
    QVERIFY(row->text(ReconfigurationView::ReconfigColPhases).contains(QLatin1String("total")));
    v.clear();
    QCOMPARE(v.view()->topLevelItemCount(), 0);
    QVERIFY(v.reconfigurations().empty());
  }

  // The banner from the paused event until the next reconfiguration (or hidePause).
  void pauseBannerUntilTheNextReconfiguration() {
    ReconfigurationView v;
    QVERIFY(!v.pausedShown());
    v.showPause(sailor::PausedEvent{"trace", "2 GPUs cannot hold the model", 7});
    QVERIFY(v.paused());
    QVERIFY(v.pausedShown());
    QVERIFY(v.pausedText().contains(QLatin1String("2 GPUs cannot hold the model")));
    QCOMPARE(v.view()->topLevelItem(0)->text(ReconfigurationView::ReconfigColEvent),
             ReconfigurationView::tr("paused"));
    v.addReconfiguration(workerLost());
    QVERIFY(!v.paused());
    QVERIFY(!v.pausedShown());
    QVERIFY(v.pausedText().isEmpty());
    QCOMPARE(v.view()->topLevelItemCount(), 2);
  }

  // Resize... needs both the studio's word and a live run; the dialog offers the plan's places
  // and the pools', and OK asks for the counts chosen.
  void resizeRequestedWithTheCountsChosen() {
    ReconfigurationView v;
    QSignalSpy requested(&v, &ReconfigurationView::resizeRequested);
    QPushButton* resize = v.resizeButton();
    const std::vector<sailor::Pool> pools{{"zone-b", "V100-16", 2, 0.5, false, {}, {}, {}}};
    v.setResizable(true, pools);
    QVERIFY(!resize->isEnabled());  // no live run
    v.setRun(3, true, true, plan(2, 2));
    QVERIFY(resize->isEnabled());
    QVERIFY(v.resizeOffered());
    const std::vector<AvailabilitySite> sites = v.resizeSites();
    QCOMPARE(sites.size(), std::size_t{2});
    QCOMPARE(sites[0].count, 4);

    QTest::mouseClick(resize, Qt::LeftButton);
    QVERIFY(v.resizeDialog());
    v.resizeDialog()->spinBox("A100-40", "zone-a")->setValue(2);
    v.resizeDialog()->accept();
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.at(0).at(0).toLongLong(), qint64{3});
    QCOMPARE(requested.at(0).at(1).value<std::vector<AvailabilitySite>>()[0].count, 2);
    QTRY_VERIFY(v.resizeDialog() == nullptr);

    // No longer resizable: the open dialog closes without asking.
    QTest::mouseClick(resize, Qt::LeftButton);
    QVERIFY(v.resizeDialog());
    v.setResizable(false, {}, QStringLiteral("not elastic"));
    QTRY_VERIFY(v.resizeDialog() == nullptr);
    QCOMPARE(requested.count(), 1);
    QVERIFY(!resize->isEnabled());
    QCOMPARE(resize->toolTip(), QStringLiteral("not elastic"));
  }
};

int runReconfigurationViewTests(int argc, char** argv) {
  TestReconfigurationView t;
  return QTest::qExec(&t, argc, argv);
}

#include "test_reconfiguration_view.moc"
