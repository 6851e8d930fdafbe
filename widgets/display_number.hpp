// How the studio's views show a figure: locale digit grouping, four significant digits and no
// exponent for everyday magnitudes ("12,345", "1.23", "0.0123"). Header-only, shared by the
// plan inspector and the trade-off plot.
#pragma once

#include <cmath>

#include <QLocale>
#include <QString>

namespace sailor::studio {

inline QString displayNumber(double v) {
  const QLocale locale;
  if (std::abs(v) >= 1000) return locale.toString(v, 'f', 0);
  if (std::abs(v) >= 1) return locale.toString(v, 'f', 2);
  return locale.toString(v, 'g', 3);
}

}  // namespace sailor::studio
