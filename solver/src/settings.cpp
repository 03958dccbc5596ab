// Names of the solver modes (scene key "solver.mode").
#include <simpulse/solver_settings.h>

namespace simpulse {

const char* to_string(SolverMode mode) {
    return mode == SolverMode::thesis ? "thesis" : "exact";
}

std::optional<SolverMode> parse_solver_mode(std::string_view name) {
    if (name == "thesis") return SolverMode::thesis;
    if (name == "exact") return SolverMode::exact;
    return std::nullopt;
}

}  // namespace simpulse
