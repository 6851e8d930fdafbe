// The Run tab's views (widgets/run/), each tested on its own through its signals and slots, and
// the run monitor's layout at the studio's 1280x800: one executable, one Qt Test class per view.
#include <QApplication>

#include "run_views_tests.hpp"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  int failed = 0;
  for (int (*run)(int, char**) :
       {runLaunchPanelTests, runLivePlotsTests, runPastRunsViewTests, runPredictionViewTests,
        runReconfigurationViewTests, runRunTabLayoutTests})
    failed += run(argc, argv);
  return failed == 0 ? 0 : 1;
}
