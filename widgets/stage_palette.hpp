// Colours of pipeline stages, shared by the studio's views (plan inspector, trade-off plot,
// resource canvas overlay) so that stage s has one colour everywhere. Header-only.
#pragma once

#include <array>

#include <QColor>

namespace sailor::studio {

// Eight distinguishable colours (the first eight of Tableau 10, readable on white and by most
// colour-blind viewers); stage s and s + 8 share a colour.
inline QColor stagePalette(int stage) {
  static constexpr std::array<QRgb, 8> kColours = {
      0x4E79A7,  // blue
      0xF28E2B,  // orange
      0xE15759,  // red
      0x76B7B2,  // teal
      0x59A14F,  // green
      0xEDC948,  // yellow
      0xB07AA1,  // purple
      0xFF9DA7,  // pink
  };
  const int n = static_cast<int>(kColours.size());
  return QColor(kColours[static_cast<std::size_t>(((stage % n) + n) % n)]);
}

}  // namespace sailor::studio
