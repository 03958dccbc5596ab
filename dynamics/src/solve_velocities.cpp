// Stage 4 of the step: the simultaneous impulse solve of the velocities (solver/), and the check that accepts
// the substep or rejects it (velocities restored) to be split: a jointed body turning too far for the
// position projection's linearisation, or an impact resolved across too wide a gap.
#include <simpulse/dynamics/world.h>

#include <algorithm>

namespace simpulse {

SolverSettings DynamicsWorld::solve_velocities(double dt) {
    // Resting contacts gain 2 |g| dt of approach speed per step at most; never restitute below that.
    SolverSettings solver_settings = settings_.solver;
    solver_settings.restitution_threshold =
        std::max(solver_settings.restitution_threshold, 2.0 * settings_.gravity.norm() * dt);
    spin_before_solve_.resize(bodies_.size());
    for (std::size_t i = 0; i < bodies_.size(); ++i) spin_before_solve_[i] = bodies_[i].angular_velocity;
    // Solved again, from the same velocities, while the answer reaches a manifold the collision stage set
    // aside (speculative_manifolds.cpp); the last round takes them all back, as the collision stage found
    // them. A solve again starts from the discarded one's impulses: islands the woken manifolds do not touch
    // start from their answer, and those the direct method or the Newton method solved pass at once.
    constexpr int kMaxSolves = 3;
    for (int solve = 1;; ++solve) {
        sync_solver_bodies(true);
        solver_.solve_velocities(solver_bodies_, contacts_, joint_rows_, dt, solver_settings);
        if (!wake_reached_manifolds(dt, solve + 1 == kMaxSolves)) break;
        solver_.discard_last_solve(/*warm_from_discarded=*/true);
        build_constraints();
    }
    // Kept for the step's later substeps here, as the position projection's sync clears the solver's marks.
    for (std::size_t i = 0; i < newton_capped_.size() && i < solver_bodies_.size(); ++i)
        newton_capped_[i] = newton_capped_[i] || solver_bodies_[i].newton_capped;
    sync_solver_bodies(false);
    const std::span<const JointImpulse> impulses = solver_.joint_impulses();
    // A joint whose bodies sleep (or are static) was not solved: it keeps the reaction it had when they fell
    // asleep, which still holds them.
    for (std::size_t i = 0; i < impulses.size() && i < joint_row_slot_.size(); ++i) {
        Joint& j = joints_[joint_row_slot_[i]];
        if (!frozen(j.body_a) || (j.body_b != kInvalidIndex && !frozen(j.body_b)))
            j.reaction = {impulses[i].linear / dt, impulses[i].angular / dt};
    }
    return solver_settings;
}

bool DynamicsWorld::reject_substep(double dt) {
    const bool impact_too_early = solver_.stats().impact_gap > settings_.max_impact_gap;
    if (!impact_too_early && !(fastest_joint_rotation_rate() * dt > settings_.max_joint_rotation))
        return false;
    solver_.discard_last_solve();
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        bodies_[i].velocity = velocity_backup_[i].first;
        bodies_[i].angular_velocity = velocity_backup_[i].second;
    }
    return true;
}

double DynamicsWorld::fastest_joint_rotation_rate() const {
    double fastest = 0;
    for (const Joint& j : joints_) {
        if (!j.alive) continue;
        fastest = std::max(fastest, bodies_[j.body_a].angular_velocity.norm());
        if (j.body_b != kInvalidIndex) fastest = std::max(fastest, bodies_[j.body_b].angular_velocity.norm());
    }
    return fastest;
}

}  // namespace simpulse
