// Small text helpers shared by the Run tab's views (widgets/run/): times and durations as shown.
#pragma once

#include <cmath>

#include <QDateTime>
#include <QString>

namespace sailor::studio::run_format {

// "2026-11-30T13:05:00.123Z" as local wall-clock time, "14:05:00"; the text as given when it
// does not parse.
inline QString clockTime(const QString& iso) {
  if (iso.isEmpty()) return {};
  const QDateTime t = QDateTime::fromString(iso, Qt::ISODateWithMs);
  return t.isValid() ? t.toLocalTime().toString(QStringLiteral("HH:mm:ss")) : iso;
}

// Seconds with three significant digits under 10 s, one decimal above; "-" when not finite.
inline QString seconds(double s) {
  if (!std::isfinite(s)) return QStringLiteral("-");
  return s >= 10 ? QString::number(s, 'f', 1) : QString::number(s, 'g', 3);
}

}  // namespace sailor::studio::run_format
