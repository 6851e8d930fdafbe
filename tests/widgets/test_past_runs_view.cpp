// The Run tab's past runs (widgets/run/past_runs_view.hpp) through its signals: Open and a
// double-click emit reopenRequested for the selected run, Refresh refreshRunsRequested, and
// Re-attach (only while offered, and not while a run goes) reattachRequested for the run shown.
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

#include "run/past_runs_view.hpp"
#include "run_views_tests.hpp"

using sailor::studio::PastRunsView;

namespace {

sailor::RunListEntry entry(std::int64_t id, sailor::RunStatus status, std::optional<double> loss) {
  sailor::RunListEntry e;
  e.run.id = id;
  e.run.name = "run" + std::to_string(id) + ".json";
  e.run.status = status;
  e.run.iterations_done = 3;
  e.run.iterations_planned = 5;
  e.final_loss = loss;
  return e;
}

}  // namespace

class TestPastRunsView : public QObject {
  Q_OBJECT

 private slots:
  void listsTheRuns() {
    PastRunsView v;
    v.setPastRuns({entry(8, sailor::RunStatus::Failed, 5.1),
                   entry(7, sailor::RunStatus::Finished, std::nullopt)});
    QTreeWidget* runs = v.view();
    QCOMPARE(runs->topLevelItemCount(), 2);
    QCOMPARE(runs->topLevelItem(0)->text(PastRunsView::RunColId), QStringLiteral("8"));
    QCOMPARE(runs->topLevelItem(0)->text(PastRunsView::RunColStatus),
             PastRunsView::statusText(sailor::RunStatus::Failed));
    QCOMPARE(runs->topLevelItem(0)->text(PastRunsView::RunColIterations), QStringLiteral("3 of 5"));
    QCOMPARE(runs->topLevelItem(1)->text(PastRunsView::RunColFinalLoss), QStringLiteral("-"));
    // A refreshed list keeps the selected run selected.
    runs->setCurrentItem(runs->topLevelItem(1));
    v.setPastRuns({entry(9, sailor::RunStatus::Running, std::nullopt),
                   entry(8, sailor::RunStatus::Failed, 5.1),
                   entry(7, sailor::RunStatus::Finished, std::nullopt)});
    QCOMPARE(runs->currentItem()->text(PastRunsView::RunColId), QStringLiteral("7"));
  }

  void reopenRequestedForTheSelectedRun() {
    PastRunsView v;
    v.setPastRuns(
        {entry(8, sailor::RunStatus::Failed, 5.1), entry(7, sailor::RunStatus::Finished, 5.0)});
    QSignalSpy reopen(&v, &PastRunsView::reopenRequested);
    QSignalSpy refresh(&v, &PastRunsView::refreshRunsRequested);
    auto* open = v.findChild<QPushButton*>(QStringLiteral("openRun"));
    QVERIFY(open);
    v.view()->setCurrentItem(nullptr);
    QVERIFY(!open->isEnabled());  // nothing selected
    v.view()->setCurrentItem(v.view()->topLevelItem(1));
    QVERIFY(open->isEnabled());
    QTest::mouseClick(open, Qt::LeftButton);
    QCOMPARE(reopen.count(), 1);
    QCOMPARE(reopen.at(0).at(0).toLongLong(), qint64{7});
    emit v.view()->itemActivated(v.view()->topLevelItem(0), 0);
    QCOMPARE(reopen.count(), 2);
    QCOMPARE(reopen.at(1).at(0).toLongLong(), qint64{8});
    QTest::mouseClick(v.findChild<QPushButton*>(QStringLiteral("refreshRuns")), Qt::LeftButton);
    QCOMPARE(refresh.count(), 1);
  }

  void reattachRequestedForTheRunShown() {
    PastRunsView v;
    QSignalSpy reattach(&v, &PastRunsView::reattachRequested);
    QPushButton* button = v.reattachButton();
    QVERIFY(button->isHidden());
    QVERIFY(!v.reattachOffered());
    v.setShownRun(12);
    v.setReattachable(true, true, QStringLiteral("a run is going"));
    QVERIFY(!button->isHidden());
    QVERIFY(!v.reattachOffered());  // not while a run goes
    v.setReattachable(true, false, QStringLiteral("the controller is gone"));
    QVERIFY(v.reattachOffered());
    QCOMPARE(button->toolTip(), QStringLiteral("the controller is gone"));
    QTest::mouseClick(button, Qt::LeftButton);
    QCOMPARE(reattach.count(), 1);
    QCOMPARE(reattach.at(0).at(0).toLongLong(), qint64{12});
    v.setReattachable(false, false);
    QVERIFY(!v.reattachOffered());
  }
};

int runPastRunsViewTests(int argc, char** argv) {
  TestPastRunsView t;
  return QTest::qExec(&t, argc, argv);
}

#include "test_past_runs_view.moc"
