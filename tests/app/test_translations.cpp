// The studio's translations: the Simplified Chinese catalogue compiled into the studio turns the
// main window Chinese; every message of translations/sailor_studio_zh_CN.ts is translated and
// keeps its source's placeholders (a string added to the code and refreshed into the .ts by
// `update_translations` but left untranslated fails here); the English catalogue gives English
// plurals for the %n strings.
#include <QAbstractButton>
#include <QFile>
#include <QGroupBox>
#include <QMenuBar>
#include <QRegularExpression>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>
#include <QXmlStreamReader>

#include "studio/main_window.hpp"

using namespace sailor::studio;

namespace {

struct Message {
  QString context, source;
  bool numerus = false;
  bool has_translation = false;
  QString type;       // the translation's type attribute: "", "unfinished", "vanished", "obsolete"
  QStringList forms;  // the translation, or its numerus forms
};

QList<Message> readTs(const QString& path, QString* error) {
  QList<Message> messages;
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    *error = file.errorString();
    return messages;
  }
  QXmlStreamReader xml(&file);
  QString context;
  Message* m = nullptr;
  while (!xml.atEnd()) {
    xml.readNext();
    if (!xml.isStartElement()) continue;
    const auto name = xml.name();
    if (name == QLatin1String("context")) {
      context.clear();
      m = nullptr;
    } else if (name == QLatin1String("name") && !m) {
      context = xml.readElementText();
    } else if (name == QLatin1String("message")) {
      messages.append(Message{
          context, {}, xml.attributes().value("numerus") == QLatin1String("yes"), false, {}, {}});
      m = &messages.last();
    } else if (name == QLatin1String("source") && m) {
      m->source = xml.readElementText();
    } else if (name == QLatin1String("translation") && m) {
      m->has_translation = true;
      m->type = xml.attributes().value("type").toString();
      if (!m->numerus) m->forms << xml.readElementText();
    } else if (name == QLatin1String("numerusform") && m) {
      m->forms << xml.readElementText();
    }
  }
  if (xml.hasError()) *error = xml.errorString();
  return messages;
}

// %1..%9 and %n, sorted, with repeats: the translation must use exactly the source's.
QStringList placeholders(const QString& text) {
  static const QRegularExpression kPlaceholder(QStringLiteral("%[1-9n]"));
  QStringList found;
  for (auto it = kPlaceholder.globalMatch(text); it.hasNext();) found << it.next().captured();
  found.sort();
  return found;
}

bool hasAccelerator(const QString& text) {
  return text.contains(QRegularExpression(QStringLiteral("&[^&\\s]")));
}

}  // namespace

class TestTranslations : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir tmp_;

 private slots:
  void mainWindowIsChineseWithTheChineseCatalogue() {
    QTranslator zh;
    QVERIFY(zh.load(QStringLiteral(":/i18n/sailor_studio_zh_CN.qm")));
    QVERIFY(QCoreApplication::installTranslator(&zh));
    {
      MainWindowOptions options;
      options.plan_on_start = false;
      options.run_store = tmp_.filePath(QStringLiteral("runs.sqlite"));
      MainWindow w(options);
      QCOMPARE(w.tabs()->count(), 3);
      QCOMPARE(w.tabs()->tabText(0), QStringLiteral("资源"));
      QCOMPARE(w.tabs()->tabText(1), QStringLiteral("方案"));
      QCOMPARE(w.tabs()->tabText(2), QStringLiteral("运行"));
      const auto menus = w.menuBar()->actions();
      QVERIFY(!menus.isEmpty());
      QCOMPARE(menus.front()->text(), QStringLiteral("文件(&F)"));
      QStringList groups, buttons;
      for (const auto* g : w.findChildren<QGroupBox*>()) groups << g->title();
      for (const auto* b : w.findChildren<QAbstractButton*>()) buttons << b->text();
      QVERIFY2(groups.contains(QStringLiteral("作业")), qPrintable(groups.join(", ")));
      QVERIFY2(groups.contains(QStringLiteral("优化目标与约束")), qPrintable(groups.join(", ")));
      QVERIFY2(buttons.contains(QStringLiteral("开始")), qPrintable(buttons.join(", ")));
      QVERIFY2(buttons.contains(QStringLiteral("停止")), qPrintable(buttons.join(", ")));
      // No English left on the group boxes and buttons of the main window.
      for (const QString& english :
           {QStringLiteral("Job"), QStringLiteral("Start"), QStringLiteral("Stop"),
            QStringLiteral("&Open"), QStringLiteral("&Refresh")}) {
        QVERIFY2(!groups.contains(english) && !buttons.contains(english), qPrintable(english));
      }
      QCOMPARE(w.windowTitle(), QStringLiteral("默认场景 — Sailor Studio"));
    }
    // A %n string takes Chinese's single form.
    QCOMPARE(QCoreApplication::translate("sailor::studio::ResourceCanvas",
                                         "Region %1 (%2): %n zone(s)", nullptr, 3),
             QStringLiteral("区域 %1（%2）：3 个可用区"));
    QCoreApplication::removeTranslator(&zh);
  }

  void everyChineseMessageIsTranslatedWithItsPlaceholders() {
    QString error;
    const auto messages =
        readTs(QStringLiteral(SAILOR_TRANSLATIONS_DIR "/sailor_studio_zh_CN.ts"), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY2(messages.size() > 100, qPrintable(QString::number(messages.size())));
    QStringList problems;
    for (const auto& m : messages) {
      const QString where = m.context + QStringLiteral(": \"") + m.source + QLatin1Char('"');
      if (!m.has_translation || !m.type.isEmpty()) {
        problems << where + QStringLiteral(" is not finished (") + m.type + QLatin1Char(')');
        continue;
      }
      if (m.forms.isEmpty() || (m.numerus && m.forms.size() != 1))
        problems << where + QStringLiteral(": Chinese takes exactly one form");
      for (const QString& t : m.forms) {
        if (t.trimmed().isEmpty()) problems << where + QStringLiteral(" has an empty translation");
        else if (placeholders(t) != placeholders(m.source))
          problems << where + QStringLiteral(" -> \"") + t +
                          QStringLiteral("\": placeholders differ");
        if (hasAccelerator(m.source) && !hasAccelerator(t))
          problems << where + QStringLiteral(" -> \"") + t +
                          QStringLiteral("\": the accelerator is lost");
      }
    }
    QVERIFY2(problems.isEmpty(),
             qPrintable(QString::number(problems.size()) + QStringLiteral(" problem(s):\n") +
                        problems.join(QLatin1Char('\n'))));
  }

  void englishNumerusFormsAreFinished() {
    QString error;
    const auto messages =
        readTs(QStringLiteral(SAILOR_TRANSLATIONS_DIR "/sailor_studio_en.ts"), &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    int numerus = 0;
    for (const auto& m : messages) {
      if (!m.numerus) continue;
      ++numerus;
      QVERIFY2(m.type.isEmpty() && m.forms.size() == 2, qPrintable(m.source));
      for (const QString& t : m.forms)
        QVERIFY2(placeholders(t) == placeholders(m.source),
                 qPrintable(m.source + QStringLiteral(" -> ") + t));
    }
    QVERIFY(numerus > 0);
  }

  void englishPluralsWithTheEnglishCatalogue() {
    QTranslator en;
    QVERIFY(en.load(QStringLiteral(":/i18n/sailor_studio_en.qm")));
    QVERIFY(QCoreApplication::installTranslator(&en));
    const auto stopped = [](int n) {
      return QCoreApplication::translate("sailor::studio::RunClient",
                                         "Stopped after %n iteration(s).", "", n);
    };
    QCOMPARE(stopped(1), QStringLiteral("Stopped after 1 iteration."));
    QCOMPARE(stopped(2), QStringLiteral("Stopped after 2 iterations."));
    const auto workers = [](int n) {
      return QCoreApplication::translate("sailor::studio::RunMonitor",
                                         "%n worker process(es) started", nullptr, n);
    };
    QCOMPARE(workers(1), QStringLiteral("1 worker process started"));
    QCOMPARE(workers(4), QStringLiteral("4 worker processes started"));
    // A string without plural forms still falls back to the source.
    QCOMPARE(QCoreApplication::translate("sailor::studio::MainWindow", "Resources"),
             QStringLiteral("Resources"));
    QCoreApplication::removeTranslator(&en);
  }
};

QTEST_MAIN(TestTranslations)
#include "test_translations.moc"
