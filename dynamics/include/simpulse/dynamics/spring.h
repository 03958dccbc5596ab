// Linear damped springs between two body points (thesis chapter 2: springs enter as external forces).
#pragma once

#include <simpulse/dynamics/body.h>

#include <span>

namespace simpulse {

struct Spring {
    std::uint32_t body_a = kInvalidIndex;  // body slot, or kInvalidIndex for the world
    std::uint32_t body_b = kInvalidIndex;
    Vec3 local_a = Vec3::Zero();  // anchor in the body frame (world point for the world)
    Vec3 local_b = Vec3::Zero();
    double stiffness = 0;
    double damping = 0;
    double rest_length = 0;
    std::uint32_t generation = 0;
    bool alive = false;
};

// Adds each spring's force F = -(k (L - L0) + c dL/dt) u to the two bodies' force and torque accumulators.
void accumulate_spring_forces(std::span<const Spring> springs, std::span<Body> bodies);

// Elastic energy of the springs, 1/2 k (L - L0)^2 summed.
double spring_energy(std::span<const Spring> springs, std::span<const Body> bodies);

}  // namespace simpulse
