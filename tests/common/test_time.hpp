#pragma once
// Waits in the studio's tests, scaled like their ctest time limits: tests/CMakeLists.txt passes
// SAILOR_TEST_TIME_FACTOR to the tests of a build whose factor is above 1 (the sanitizer preset),
// where planning and training run several times slower than in the release build.

#include <cstdlib>

namespace sailor::test {

inline int scaledMs(int ms) {
  const char* f = std::getenv("SAILOR_TEST_TIME_FACTOR");
  const int factor = f ? std::atoi(f) : 1;
  return factor > 1 ? ms * factor : ms;
}

}  // namespace sailor::test
