// `sailor runs attach` and `sailor runs resize` (the `sailor` command line hands them over to
// sailor-run as `attach ID ...` and `resize ID ...`): following a run's events again, and
// telling a running elastic run the GPUs it has now. Defined in run_control.cpp.
#pragma once

namespace sailor::runner {

// `sailor runs attach ID [--store FILE]`: takes over the running cluster run ID whose controller
// died (attachController), printing its events as `sailor run` does, and exits with its status.
int attachMain(int argc, char** argv, int first);

// `sailor runs resize ID --gpus TYPE@ZONE=N [--gpus ...] [--store FILE]`: 0 when the run's
// controller took the new GPU counts; bad input (InputError) otherwise.
int resizeMain(int argc, char** argv, int first);

}  // namespace sailor::runner
