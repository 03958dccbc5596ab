// Stage 7 of the step: the position projection of joint drift and penetration (solver/src/
// position_projection.cpp), in mode exact (mode thesis has none).
#include <simpulse/dynamics/world.h>

#include <algorithm>

namespace simpulse {

void DynamicsWorld::project_positions(const SolverSettings& solver_settings) {
    if (joint_rows_.empty() && (contacts_.empty() || settings_.solver.mode != SolverMode::exact)) return;
    sync_solver_bodies(true);
    solver_.project_positions(solver_bodies_, contacts_, joint_rows_, solver_settings);
    sync_solver_bodies(false);
    last_joint_drift_ = std::max(last_joint_drift_, solver_.stats().joint_drift);
}

}  // namespace simpulse
