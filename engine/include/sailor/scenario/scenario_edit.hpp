// Scenario edits that keep the scenario's references whole: a zone is named in its region, in
// pools, in links and in egress prices, so renaming or removing it must reach all of them.
// Pure functions on values: each returns the edited copy or an error value, and never changes
// the scenario it is given. Not here: validation against the catalogue (Scenario::validate) and
// undo (the studio's ScenarioDocument builds its undoable edits on these).
#pragma once

#include <string>
#include <variant>

#include "sailor/scenario/scenario.hpp"

namespace sailor {

// Why an edit was refused, worded as InputError words it: the field (the argument), the value
// given and what was expected. `reason` tells the cases apart for a caller that words its own
// message (the studio translates them).
struct ScenarioEditError {
  enum class Reason {
    UnknownZone,    // the zone is not in the scenario
    EmptyName,      // the new name is empty or only spaces
    NameTaken,      // another zone already has the new name
    LastZone,       // the zone is its region's only one (a region needs a zone)
    UnknownRegion,  // the region index is out of range
    LastRegion,     // the region is the scenario's only one (a scenario needs a region)
  };
  Reason reason = Reason::UnknownZone;
  std::string field;
  std::string value;
  std::string expected;

  std::string message() const;  // "field: got value, expected expected"
};

// The edited scenario, or why the edit was refused.
class ScenarioEditResult {
 public:
  ScenarioEditResult(Scenario scenario) : value_(std::move(scenario)) {}     // NOLINT: implicit
  ScenarioEditResult(ScenarioEditError error) : value_(std::move(error)) {}  // NOLINT: implicit

  bool ok() const { return std::holds_alternative<Scenario>(value_); }
  // The edited scenario; only when ok().
  const Scenario& scenario() const { return std::get<Scenario>(value_); }
  Scenario& scenario() { return std::get<Scenario>(value_); }
  // Why it was refused; only when !ok().
  const ScenarioEditError& error() const { return std::get<ScenarioEditError>(value_); }

 private:
  std::variant<Scenario, ScenarioEditError> value_;
};

// Renames `zone` to `new_name` in its region, its pools, the links that touch it and the egress
// prices of its pairs. Renaming a zone to its own name gives the scenario unchanged. Refused:
// an unknown zone, an empty (or blank) name, a name another zone has.
ScenarioEditResult renameZone(const Scenario& sc, const std::string& zone,
                              const std::string& new_name);

// Removes `zone` with its pools, the links that touch it and the egress prices of its pairs.
// Refused: an unknown zone, the last zone of its region (remove the region instead).
ScenarioEditResult removeZone(const Scenario& sc, const std::string& zone);

// Removes regions[region] and, for each of its zones, what removeZone removes. Refused: an index
// out of range, the scenario's last region.
ScenarioEditResult removeRegion(const Scenario& sc, int region);

}  // namespace sailor
