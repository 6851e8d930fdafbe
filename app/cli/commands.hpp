// The `sailor` commands this program runs itself, one function each: argv as main() has it
// (argv[1] the command), the exit code as the result. Bad input is thrown as InputError, which
// main() prints on one line and turns into exit code 2.
#pragma once

namespace sailor::cli {

int cmdCatalog(int argc, char** argv);    // catalog_cmd.cpp
int cmdSimulate(int argc, char** argv);   // simulate_cmd.cpp
int cmdExport(int argc, char** argv);     // simulate_cmd.cpp
int cmdPlan(int argc, char** argv);       // plan_cmd.cpp
int cmdValidate(int argc, char** argv);   // validate_cmd.cpp
int cmdCalibrate(int argc, char** argv);  // validate_cmd.cpp
int cmdRuns(int argc, char** argv);       // runs_cmd.cpp
int cmdPrices(int argc, char** argv);     // prices_cmd.cpp

}  // namespace sailor::cli
