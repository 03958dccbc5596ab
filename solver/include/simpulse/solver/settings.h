// Solver configuration: the method (thesis or exact) and its numerical options.
#pragma once

#include <optional>
#include <string_view>

namespace simpulse {

enum class SolverMode {
    thesis,  // Ermolin's method as stated in the thesis (linear system of the penetrating points, SVD-like solve)
    exact,   // the same simultaneous system made complementarity-correct, with Coulomb friction (default)
};

const char* to_string(SolverMode mode);
std::optional<SolverMode> parse_solver_mode(std::string_view name);

}  // namespace simpulse
