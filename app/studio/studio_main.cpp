// sailor-studio: the desktop studio. Opens the built-in default scenario (or the scenario file
// given) and plans it right away. Language: --lang, else the File > Language setting, else the
// system's.
#include <cstdio>

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QLibraryInfo>
#include <QLocale>
#include <QMessageBox>
#include <QSettings>
#include <QTranslator>

#include "main_window.hpp"
#include "screenshots.hpp"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("Sailor Studio"));
  QApplication::setApplicationName(QStringLiteral("sailor-studio"));
  QApplication::setApplicationVersion(QStringLiteral(SAILOR_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(QApplication::translate(
      "main", "Plan and run training on heterogeneous, geo-distributed GPUs."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(
      QStringLiteral("scenario"),
      QApplication::translate("main", "Scenario file to open (default: the built-in one)."),
      QStringLiteral("[scenario.json]"));
  const QCommandLineOption lang(QStringLiteral("lang"),
                                QApplication::translate("main", "Interface language: en or zh_CN."),
                                QStringLiteral("code"));
  const QCommandLineOption store(
      QStringLiteral("store"),
      QApplication::translate("main", "Run store (SQLite) to record runs in and list."),
      QStringLiteral("file"));
  const QCommandLineOption job(
      QStringLiteral("job"),
      QApplication::translate("main",
                              "Job file to open beside the scenario (default: the built-in one)."),
      QStringLiteral("file"));
  const QCommandLineOption shots(
      QStringLiteral("screenshots"),
      QApplication::translate("main", "Take a screenshot of each main view into DIR, then quit."),
      QStringLiteral("dir"));
  parser.addOptions({lang, store, job, shots});
  parser.process(app);

  QString code = parser.value(lang);
  if (code.isEmpty()) code = QSettings().value(QStringLiteral("language")).toString();
  const QLocale locale = code.isEmpty() ? QLocale::system() : QLocale(code);
  QTranslator qt_translator, translator;
  if (qt_translator.load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                         QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
    QApplication::installTranslator(&qt_translator);
  // English is the source language, but its catalogue is loaded too: it holds the plural forms
  // of the %n strings. A language without a catalogue gets the English UI, so the English one.
  if (translator.load(locale, QStringLiteral("sailor_studio"), QStringLiteral("_"),
                      QStringLiteral(":/i18n")) ||
      translator.load(QStringLiteral("sailor_studio_en"), QStringLiteral(":/i18n")))
    QApplication::installTranslator(&translator);

  // Checked before the window plans (seconds): a file there would fail only at the first shot.
  if (parser.isSet(shots) && QFileInfo(parser.value(shots)).exists() &&
      !QFileInfo(parser.value(shots)).isDir()) {
    std::fprintf(stderr, "sailor-studio: --screenshots: got %s, a file, expected a directory\n",
                 qPrintable(parser.value(shots)));
    return 2;
  }
  sailor::studio::MainWindowOptions options;
  if (!parser.positionalArguments().isEmpty()) {
    options.scenario_file = parser.positionalArguments().front();
    // The argument's bytes (argv after QApplication took its own options): the decoded name
    // names another file when the bytes are not UTF-8.
    options.scenario_file_native = sailor::studio::scenarioArgument(
        options.scenario_file, argc, argv,
        {QStringLiteral("--lang"), QStringLiteral("--store"), QStringLiteral("--job"),
         QStringLiteral("--screenshots")});
  }
  options.run_store = parser.value(store);
  options.job_file = parser.value(job);
  std::unique_ptr<sailor::studio::MainWindow> window;
  try {
    window = std::make_unique<sailor::studio::MainWindow>(options);
  } catch (const std::exception& e) {
    // Only the catalogue can fail here (no resources directory, a broken catalogue file).
    std::fprintf(stderr, "sailor-studio: %s\n", e.what());
    QMessageBox::critical(nullptr, QStringLiteral("Sailor Studio"), QString::fromUtf8(e.what()));
    return 2;
  }
  // The window's banner says it too; stderr for whoever started the studio from a shell.
  if (!window->startupError().isEmpty())
    std::fprintf(stderr, "sailor-studio: %s; the default is shown instead\n",
                 qPrintable(window->startupError()));
  window->show();
  if (parser.isSet(shots)) return sailor::studio::takeScreenshots(*window, parser.value(shots));
  return QApplication::exec();
}
