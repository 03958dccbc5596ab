// The step in the thesis order (chapter 2): DynamicsWorld::substep is the one list of its stages, each in the
// file named for it under dynamics/src/; step() splits a step into substeps where a substep is rejected, and
// puts the world back to the step's start when a body's state became non-finite.
#include <simpulse/collision/number_text.h>
#include <simpulse/dynamics/world.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace simpulse {
namespace {

bool finite(const Vec3& v) {
    return v.allFinite();
}

}  // namespace

// The step's stages, in order: the one list of them (docs/architecture.md, "The step", describes each). Each
// stage is in the file named for it.
DynamicsWorld::SubstepResult DynamicsWorld::substep(double dt, bool may_reject) {
    if (!apply_forces(dt)) return SubstepResult::non_finite;               // apply_forces.cpp
    collision_stage(dt);                                                   // collision_stage.cpp
    build_constraints();                                                   // build_constraints.cpp
    const SolverSettings settings = solve_velocities(dt);                  // solve_velocities.cpp
    if (may_reject && reject_substep(dt)) return SubstepResult::rejected;  // solve_velocities.cpp
    update_contact_events();                                               // contact_events.cpp
    begin_sweeps(dt);                                                      // continuous.cpp
    advance_positions(dt);                                                 // advance_positions.cpp
    project_positions(settings);                                           // project_positions.cpp
    stop_at_impacts();                                                     // continuous.cpp
    return SubstepResult::done;
}

std::uint32_t DynamicsWorld::first_non_finite_body() const {
    for (std::uint32_t i = 0; i < bodies_.size(); ++i) {
        const Body& b = bodies_[i];
        if (!b.alive || b.is_static) continue;
        if (!(finite(b.com_position) && finite(b.velocity) && finite(b.angular_velocity) &&
              b.orientation.coeffs().allFinite()))
            return i;
    }
    return kInvalidIndex;
}

// The substeps of one step: halved while a substep is rejected, down to dt / max_substeps; stops early if a
// velocity became non-finite.
void DynamicsWorld::advance_substeps(double dt) {
    const double shortest = dt / std::max(1, settings_.max_substeps);
    last_substeps_ = 0;
    last_joint_drift_ = 0;
    newton_capped_.assign(bodies_.size(), 0);
    double remaining = dt, h = dt;
    while (remaining > 0) {
        h = std::min(h, remaining);
        if (remaining - h < 1e-12 * dt) h = remaining;
        for (std::size_t i = 0; i < bodies_.size(); ++i) {
            bodies_[i].force = forces_[i].first;
            bodies_[i].torque = forces_[i].second;
        }
        const SubstepResult result = substep(h, h > shortest * (1 + 1e-9));
        if (result == SubstepResult::non_finite) break;  // before the solve: no statistics of this substep
        if (result == SubstepResult::rejected) {
            h = std::max(0.5 * h, shortest);
            continue;
        }
        remaining = h == remaining ? 0.0 : remaining - h;
        last_step_length_ = h;
        ++last_substeps_;
    }
}

StepStatus DynamicsWorld::step(double dt) {
    if (!(dt > 0) || !std::isfinite(dt))
        throw std::invalid_argument("dt: expected a positive finite number, got " + number_text(dt));
    broad_phase_.set_margin(settings_.aabb_margin);  // settings() may have changed it since the last step
    events_.clear();
    events_.insert(events_.end(), pending_events_.begin(), pending_events_.end());
    const std::size_t carried_events = pending_events_.size();
    pending_events_.clear();
    // Forces applied by the user act over the whole step: keep them for every substep. A substep is rejected
    // and halved while a jointed body turns by more than max_joint_rotation in it, or an impact was resolved
    // across a gap wider than max_impact_gap, down to dt / max_substeps.
    forces_.resize(bodies_.size());
    step_start_.resize(bodies_.size());
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        const Body& b = bodies_[i];
        forces_[i] = {b.force, b.torque};
        step_start_[i] = {b.com_position, b.orientation, b.velocity, b.angular_velocity};
    }
    try {
        advance_substeps(dt);
    } catch (...) {  // out of memory in a stage: the world goes back to the step's start, as after a failure
        restore_step_start(carried_events);
        throw;
    }
    if (const std::uint32_t bad = first_non_finite_body(); bad != kInvalidIndex) {
        std::ostringstream msg;
        msg << "state became non-finite at step " << step_count_ + 1 << " (t = " << time_ + dt << " s)";
        restore_step_start(carried_events);
        if (const std::uint32_t slot = bodies_[bad].cable; slot != kInvalidIndex) {
            // A control point is no body of the caller's: name the cable and the point.
            const Cable& c = cables_[slot];
            const auto at = std::find(c.points.begin(), c.points.end(), bad) - c.points.begin();
            return {false, BodyId{}, msg.str(),
                    CablePoint{CableId{slot, c.generation}, static_cast<std::uint32_t>(at)}};
        }
        return {false, id_of(bad), msg.str(), std::nullopt};
    }
    ++step_count_;
    // Steps of one length are counted, not summed, so a fixed-dt run's times carry no rounding drift; a new
    // length starts a new run of steps from the time reached.
    if (dt != time_step_) {
        time_at_step_change_ = time_;
        steps_since_step_change_ = 0;
        time_step_ = dt;
    }
    ++steps_since_step_change_;
    time_ = time_at_step_change_ + static_cast<double>(steps_since_step_change_) * dt;
    for (ContactEvent& e : events_) e.time = time_;
    update_sleep(dt);
    return {};
}

// The last good state after a failed step: every body's pose and velocities as the step found them, its
// forces cleared as a step clears them. Contacts, warm starts and broad-phase boxes of the failed step stay
// (the next step recomputes them from the restored poses); the step's contact events are dropped, the first
// `carried_events` (those pending from before the step) kept for the next one.
void DynamicsWorld::restore_step_start(std::size_t carried_events) {
    pending_events_.assign(events_.begin(), events_.begin() + static_cast<std::ptrdiff_t>(carried_events));
    events_.clear();
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        Body& b = bodies_[i];
        if (!b.alive || b.is_static) continue;
        const MotionState& m = step_start_[i];
        b.com_position = m.com_position;
        b.orientation = m.orientation;
        b.velocity = m.velocity;
        b.angular_velocity = m.angular_velocity;
        b.inverse_inertia_world = world_inverse_inertia(b.orientation, b.inverse_inertia_local);
        b.force.setZero();
        b.torque.setZero();
    }
}

}  // namespace simpulse
