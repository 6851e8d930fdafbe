// The screenshots in docs/ (README's pictures), taken by the studio itself under xvfb-run:
// `sailor-studio --screenshots DIR` (scripts/screenshots). Drives the window as a user would:
// the default scenario planned, a zone selected, the plan inspector's views, the whole run of a
// training budget in days against total USD, then a plan small
// enough to run locally (Max GPUs 4) trained for real and watched, the same plan as a Slurm job
// on the cluster SLURM_CONF names, and the plan's Kubernetes launch files exported.
#pragma once

#include <QString>

namespace sailor::studio {

class MainWindow;

// Writes resources.png, plans.png, plans-whole-run.png, plan-memory.png, plan-timeline.png,
// plan-map.png, run.png, run-slurm.png (only when SLURM_CONF is set: a Slurm cluster to submit to)
// and run-export.png (1280x800) into `dir`, in the language the studio runs in: the tabs are found
// by the views they hold, not by their titles. Returns the process exit status: 0, or 1 with the
// reason on stderr (one line) when a shot cannot be taken.
int takeScreenshots(MainWindow& window, const QString& dir);

}  // namespace sailor::studio
