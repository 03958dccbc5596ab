// Exact closure of the planar joints that hold a body against the fixed frame (internal; plane_closure.cpp).
#pragma once

#include <simpulse/solver/solver.h>

#include <span>

namespace simpulse::detail {

// After an island's solve: each body held in a fixed plane gets the impulse of its three planar rows that
// zeroes their velocities, with every other impulse as the solve left it.
void close_planes_in_velocity(std::span<SolverBody> bodies, std::span<const JointConstraint> joints);

// After the position projection: each body held in a fixed plane is moved along its planar rows onto the
// plane and its tilt undone, by Newton iterations on those three rows alone.
void close_planes_in_position(std::span<SolverBody> bodies, std::span<const JointConstraint> joints);

}  // namespace simpulse::detail
