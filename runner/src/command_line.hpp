// How the runtime's programs (sailor-profile, sailor-worker) read their command lines with
// CLI11: each option is declared on a CLI::App and bound to a variable or, where its value is
// checked, to a function CLI11 runs as it reads the option (trigger_on_parse), so that the
// first error is that of the first bad argument. These programs take no `--option=value` form
// and no positional argument: the first argument that is no declared option ends the parse.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace sailor::runner {

// What parseInOrder found wrong in a command line, beyond the options' own errors.
struct ArgumentProblem {
  enum class Kind { None, Unknown, MissingValue };
  Kind kind = Kind::None;
  std::string argument;  // Unknown: that argument; MissingValue: the option given no value
};

// Reads every argument of argv[first..argc) into `app`'s options with CLI11 (an app with
// allow_extras() keeps those that are no option, in order, in remaining()). Returns whether a
// valued option ended the command line without its value (CLI11's ArgumentMismatch: it takes
// any next argument as the value, so nothing else stops it).
inline bool parseAllEndsWithoutValue(CLI::App& app, int argc, char** argv, int first) {
  std::vector<std::string> args;  // CLI11 takes them last first
  for (int i = argc - 1; i >= first; --i) args.emplace_back(argv[i]);
  try {
    app.parse(args);
  } catch (const CLI::ArgumentMismatch&) {
    return true;
  }
  return false;
}

// Reads argv[first..argc) into `app`'s options (its help flag removed before they are
// declared: set_help_flag()). The arguments up to the first one that is no option of `app` (a
// valued option's value skipped, whatever it looks like) go through CLI11 in order, an
// option's function throwing its error as it comes; then the argument that stopped it is
// returned as the problem: an unknown one, or a valued option that ends the command line.
inline ArgumentProblem parseInOrder(CLI::App& app, int argc, char** argv, int first) {
  int end = first;
  while (end < argc) {
    const CLI::Option* option = app.get_option_no_throw(argv[end]);
    if (option == nullptr) break;
    end += option->get_expected_min() > 0 ? 2 : 1;
  }
  ArgumentProblem problem;
  if (end > argc) {
    problem = {ArgumentProblem::Kind::MissingValue, argv[argc - 1]};
    end = argc - 1;
  } else if (end < argc) {
    problem = {ArgumentProblem::Kind::Unknown, argv[end]};
  }
  std::vector<std::string> args;  // CLI11 takes them last first
  for (int i = end - 1; i >= first; --i) args.emplace_back(argv[i]);
  app.parse(args);
  return problem;
}

}  // namespace sailor::runner
