// The screenshots in docs/ (README's pictures), taken by the studio itself under xvfb-run:
// `sailor-studio --screenshots DIR` (scripts/screenshots). Drives the window as a user would:
// the default scenario planned, a zone selected, the plan inspector's views, then a plan small
// enough to run locally (Max GPUs 8) trained for real and watched.
#pragma once

#include <QString>

namespace sailor::studio {

class MainWindow;

// Writes resources.png, plans.png, plan-memory.png, plan-timeline.png, plan-map.png and run.png
// (1280x800) into `dir`. Returns the process exit status: 0, or 1 with the reason on stderr.
int takeScreenshots(MainWindow& window, const QString& dir);

}  // namespace sailor::studio
