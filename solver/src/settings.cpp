// Names of the solver modes (scene key "solver.mode") and of the joint types (joint key "type").
#include <simpulse/solver_settings.h>

#include <utility>

namespace simpulse {

const char* to_string(SolverMode mode) {
    return mode == SolverMode::thesis ? "thesis" : "exact";
}

std::optional<SolverMode> parse_solver_mode(std::string_view name) {
    if (name == "thesis") return SolverMode::thesis;
    if (name == "exact") return SolverMode::exact;
    return std::nullopt;
}

namespace {
constexpr std::pair<JointType, const char*> kJointNames[] = {
    {JointType::ball, "ball"},     {JointType::hinge, "hinge"},       {JointType::fixed, "fixed"},
    {JointType::slider, "slider"}, {JointType::distance, "distance"}, {JointType::planar, "planar"}};
}  // namespace

const char* to_string(JointType type) {
    for (const auto& [t, name] : kJointNames)
        if (t == type) return name;
    return "unknown";
}

std::optional<JointType> parse_joint_type(std::string_view name) {
    for (const auto& [t, n] : kJointNames)
        if (name == n) return t;
    return std::nullopt;
}

}  // namespace simpulse
