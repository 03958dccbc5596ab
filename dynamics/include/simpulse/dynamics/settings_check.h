// The checks of WorldSettings, kept in one place for the two callers that report them differently: World
// (an error value naming the setting) and the scene builder (an error at the setting's JSON pointer).
#pragma once

#include <simpulse/dynamics/world.h>

#include <optional>
#include <string>

namespace simpulse {

struct SettingProblem {
    std::string setting;  // as spelled in WorldSettings: "contact_margin", "solver.iterative_tolerance"
    std::string message;  // "expected a positive finite number, got inf"
};

// The first invalid setting, in declaration order, or nullopt if all are valid.
std::optional<SettingProblem> find_setting_problem(const WorldSettings& settings);

}  // namespace simpulse
