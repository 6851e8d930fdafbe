// The Run tab's views (widgets/run/), one Qt Test class each, run by test_run_views.cpp's main.
#pragma once

int runLaunchPanelTests(int argc, char** argv);
int runLivePlotsTests(int argc, char** argv);
int runPastRunsViewTests(int argc, char** argv);
int runPredictionViewTests(int argc, char** argv);
int runReconfigurationViewTests(int argc, char** argv);
int runRunTabLayoutTests(int argc, char** argv);
