// The job and objective panel: valid edits reach job()/options() and emit changed(); rejected
// values show an error under their field, keep the typed text and change nothing.
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>

#include "job_panel.hpp"
#include "sailor/model/catalog.hpp"

using sailor::studio::JobPanel;

class TestJobPanel : public QObject {
  Q_OBJECT

 private:
  sailor::Catalog catalog_ = sailor::Catalog::load(sailor::resourceDir());

  static void type(QLineEdit* edit, const QString& text) {
    edit->setText(text);
    emit edit->editingFinished();
  }

 private slots:
  void setJobRoundTrip() {
    JobPanel panel(catalog_);
    sailor::Job job;
    job.model = "GPT-Neo-2.7B";
    job.global_batch_size = 512;
    job.sequence_length = 1024;
    job.precision = sailor::Precision::Bf16;
    job.optimizer = sailor::Optimizer::Sgd;
    job.recompute = sailor::Recompute::Full;
    panel.setJob(job);
    QVERIFY(panel.job().toJson() == job.toJson());
    QVERIFY(panel.job().recompute == sailor::Recompute::Full);
    QVERIFY(panel.isValid());
  }

  // The recomputation box is part of the job: choosing Full changes the job and says so.
  // The training budget: tokens, a deadline and a budget reach job() (and back through
  // setJob); a deadline or budget without tokens, a zero, a negative, an overflowing or an
  // out-of-range value is refused under its field and the last valid job stays.
  void trainingBudgetFields() {
    JobPanel panel(catalog_);
    QVERIFY(!panel.job().trainingIterations().has_value());
    QSignalSpy changed(&panel, &JobPanel::changed);
    type(panel.field("deadline_days"), "30");
    QVERIFY2(panel.fieldError("deadline_days").contains("Needs the tokens to train"),
             qPrintable(panel.fieldError("deadline_days")));
    QCOMPARE(changed.count(), qsizetype(0));
    type(panel.field("training_tokens"), "2e12");
    QVERIFY(panel.isValid());
    QCOMPARE(changed.count(), qsizetype(1));
    QCOMPARE(*panel.job().training_tokens, 2e12);
    QCOMPARE(*panel.job().deadline_days, 30.0);
    type(panel.field("budget_usd"), "2000000");
    QCOMPARE(*panel.job().budget_usd, 2e6);
    for (const char* bad : {"0", "-5", "1e309", "lots"}) {
      type(panel.field("budget_usd"), bad);
      QVERIFY2(!panel.fieldError("budget_usd").isEmpty(), bad);
      QVERIFY2(panel.fieldError("budget_usd").contains(QString::fromLatin1(bad)), bad);
      QCOMPARE(*panel.job().budget_usd, 2e6);  // the last valid one
    }
    type(panel.field("budget_usd"), "");
    type(panel.field("training_tokens"), "1e30");  // beyond the engine's range
    QVERIFY2(panel.fieldError("training_tokens").contains("1e+30"),
             qPrintable(panel.fieldError("training_tokens")));
    QCOMPARE(*panel.job().training_tokens, 2e12);
    type(panel.field("training_tokens"), "2e12");
    QVERIFY(panel.isValid());
    QVERIFY(!panel.job().budget_usd.has_value());
    // setJob shows a job's budget, and one in iterations as its tokens.
    sailor::Job job = panel.job();
    job.training_tokens.reset();
    job.training_iterations = 1000;
    JobPanel other(catalog_);
    other.setJob(job);
    QCOMPARE(other.field("training_tokens")->text(),
             QString::number(1000.0 * job.global_batch_size * job.sequence_length, 'g', 6));
    QCOMPARE(other.field("deadline_days")->text(), QString("30"));
  }

  void recomputationChoiceChangesTheJob() {
    JobPanel panel(catalog_);
    QVERIFY(panel.job().recompute == sailor::Recompute::None);
    auto* box = panel.findChild<QComboBox*>(QStringLiteral("recompute"));
    QVERIFY(box);
    QSignalSpy changed(&panel, &JobPanel::changed);
    box->setCurrentIndex(box->findData(static_cast<int>(sailor::Recompute::Full)));
    QCOMPARE(changed.count(), qsizetype(1));
    QVERIFY(panel.job().recompute == sailor::Recompute::Full);
    box->setCurrentIndex(box->findData(static_cast<int>(sailor::Recompute::None)));
    QVERIFY(panel.job().recompute == sailor::Recompute::None);
  }

  void validEditEmitsChanged() {
    JobPanel panel(catalog_);
    QSignalSpy changed(&panel, &JobPanel::changed);
    type(panel.field("global_batch"), "256");
    QCOMPARE(changed.count(), qsizetype(1));
    QCOMPARE(panel.job().global_batch_size, 256);
    type(panel.field("max_usd_per_iteration"), "1.5");
    QCOMPARE(changed.count(), qsizetype(2));
    QCOMPARE(*panel.options().max_usd_per_iteration, 1.5);
    type(panel.field("max_usd_per_iteration"), "");
    QVERIFY(!panel.options().max_usd_per_iteration.has_value());
    // The same value again is not a change.
    const qsizetype before = changed.count();
    type(panel.field("global_batch"), "256");
    QCOMPARE(changed.count(), before);
  }

  // The time limit: none by default (the studio's searches run to their end), a positive
  // number of seconds reaches options() and emits changed(), anything else is refused under the
  // field and keeps the last valid limit; setOptions shows a limit.
  void timeLimitField() {
    JobPanel panel(catalog_);
    QVERIFY(!panel.options().time_limit_s.has_value());
    QVERIFY(panel.field("time_limit_s")->text().isEmpty());
    QSignalSpy changed(&panel, &JobPanel::changed);
    type(panel.field("time_limit_s"), "2.5");
    QCOMPARE(changed.count(), qsizetype(1));
    QCOMPARE(*panel.options().time_limit_s, 2.5);
    for (const char* bad : {"0", "-1", "nan", "inf", "1e309", "abc"}) {
      type(panel.field("time_limit_s"), bad);
      QVERIFY2(panel.fieldError("time_limit_s").contains("positive"), bad);
      QVERIFY(!panel.isValid());
      QCOMPARE(*panel.options().time_limit_s, 2.5);
    }
    QCOMPARE(changed.count(), qsizetype(1));
    type(panel.field("time_limit_s"), "");
    QVERIFY(panel.isValid());
    QVERIFY(!panel.options().time_limit_s.has_value());
    QCOMPARE(changed.count(), qsizetype(2));
    sailor::PlannerOptions o;
    o.time_limit_s = 30;
    panel.setOptions(o);
    QCOMPARE(panel.field("time_limit_s")->text(), QStringLiteral("30"));
    QCOMPARE(*panel.options().time_limit_s, 30.0);
  }

  void rejectedValuesShowNearTheFieldAndKeepTheLastValidJob() {
    JobPanel panel(catalog_);
    type(panel.field("global_batch"), "128");
    QSignalSpy changed(&panel, &JobPanel::changed);
    type(panel.field("global_batch"), "-4");
    QCOMPARE(changed.count(), qsizetype(0));
    QVERIFY(!panel.isValid());
    QVERIFY2(panel.fieldError("global_batch").contains("-4"),
             qPrintable(panel.fieldError("global_batch")));
    QCOMPARE(panel.field("global_batch")->text(), QString("-4"));  // the user's text stays
    QCOMPARE(panel.job().global_batch_size, 128);

    type(panel.field("max_usd_per_hour"), "-10");
    QVERIFY(panel.fieldError("max_usd_per_hour").contains("positive"));
    QVERIFY(!panel.options().max_usd_per_hour.has_value());
    type(panel.field("max_gpus"), "0");
    QVERIFY(!panel.fieldError("max_gpus").isEmpty());

    // Fixing every field clears the errors and applies.
    type(panel.field("global_batch"), "64");
    type(panel.field("max_usd_per_hour"), "100");
    type(panel.field("max_gpus"), "16");
    QVERIFY(panel.isValid());
    QCOMPARE(panel.job().global_batch_size, 64);
    QCOMPARE(*panel.options().max_gpus, 16);
    QCOMPARE(*panel.options().max_usd_per_hour, 100.0);
  }

  void sequenceLengthCheckedAgainstTheModel() {
    JobPanel panel(catalog_);
    sailor::Job job;
    job.model = "OPT-350M";
    job.global_batch_size = 8;
    job.sequence_length = 512;
    panel.setJob(job);
    type(panel.field("sequence_length"), "100000");  // beyond OPT's learned positions
    QVERIFY(!panel.fieldError("sequence_length").isEmpty());
    QCOMPARE(panel.job().sequence_length, 512);
  }

  void customArchitecture() {
    JobPanel panel(catalog_);
    auto* model = panel.findChild<QComboBox*>("model");
    QVERIFY(model);
    model->setCurrentIndex(model->count() - 1);  // "Custom architecture…"
    QVERIFY(panel.customModel().has_value());
    type(panel.field("custom.name"), "my-model");
    type(panel.field("custom.layers"), "12");
    type(panel.field("custom.hidden_size"), "768");
    type(panel.field("custom.heads"), "12");
    QVERIFY(panel.isValid());
    QCOMPARE(panel.job().model, std::string("my-model"));
    QCOMPARE(panel.customModel()->layers, 12);
    // Heads must divide the hidden size: the engine's check, shown under the heads field.
    type(panel.field("custom.heads"), "7");
    QVERIFY2(panel.fieldError("custom.heads").contains("7"),
             qPrintable(panel.fieldError("custom.heads")));
    QCOMPARE(panel.customModel()->heads, 12);
    // A catalogue name is refused.
    type(panel.field("custom.heads"), "12");
    type(panel.field("custom.name"), "OPT-350M");
    QVERIFY(!panel.fieldError("custom.name").isEmpty());
  }

  void planProblemShownUntilNextEdit() {
    JobPanel panel(catalog_);
    panel.showPlanProblem("no plan meets the constraints (throughput >= 1000 it/s)");
    QVERIFY(panel.planProblem().contains("1000"));
    type(panel.field("min_iterations_per_s"), "0.5");
    QVERIFY(panel.planProblem().isEmpty());
  }
};

QTEST_MAIN(TestJobPanel)
#include "test_job_panel.moc"
