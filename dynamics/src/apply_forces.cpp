// Stage 1 of the step (thesis chapter 2, step 3): velocities from gravity, springs and applied forces and
// torques over the substep (semi-implicit Euler; the rotation's mid-step angular velocity, integrator.h),
// after restaggering the velocities when the substep length changed.
#include <simpulse/dynamics/integrator.h>
#include <simpulse/dynamics/world.h>

namespace simpulse {

bool DynamicsWorld::apply_forces(double dt) {
    velocity_backup_.resize(bodies_.size());
    for (std::size_t i = 0; i < bodies_.size(); ++i)
        velocity_backup_[i] = {bodies_[i].velocity, bodies_[i].angular_velocity};
    accumulate_spring_forces(springs_, bodies_);
    accumulate_cable_bending(cables_, bodies_);
    if (last_step_length_ > 0 && dt != last_step_length_)
        restagger_velocities(bodies_, settings_.gravity, last_step_length_, dt);
    kicks_.resize(bodies_.size());
    for (std::size_t i = 0; i < bodies_.size(); ++i)
        kicks_[i] = dt * (settings_.gravity + bodies_[i].inverse_mass * bodies_[i].force);
    integrate_velocities(bodies_, settings_.gravity, dt);
    for (Body& b : bodies_) {
        b.force.setZero();
        b.torque.setZero();
    }
    // A non-finite velocity must stop the step here, before it reaches the broad phase.
    return first_non_finite_body() == kInvalidIndex;
}

}  // namespace simpulse
