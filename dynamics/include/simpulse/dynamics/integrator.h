// Fixed-step integration in the thesis order (chapter 2, eq. 2): velocities from forces, then (after
// collision and solver) positions from velocities.
//
// Rotation uses a midpoint Lie-group step so that the world angular momentum of a torque-free body is
// conserved to round-off and its energy stays bounded (no drift) however asymmetric the body is:
//  - integrate_velocities sets the angular velocity w used during the step by solving
//    I_n w = exp(-dt/2 w) (L_n + dt tau)   (Newton, a few iterations),
//    i.e. w is the angular velocity of the configuration half a step ahead carrying the angular momentum L;
//  - the solver changes w with contact and joint impulses;
//  - integrate_positions rotates by exp(dt w) and stores the end-of-step angular velocity carrying the same
//    angular momentum as the mid-step configuration: w_{n+1} = R_f I_n^-1 R_h^T I_n w.
#pragma once

#include <simpulse/dynamics/body.h>

#include <span>

namespace simpulse {

void integrate_velocities(std::span<Body> bodies, const Vec3& gravity, double dt);
void integrate_positions(std::span<Body> bodies, double dt);

// Rotation of v by the rotation vector phi (axis * angle), Rodrigues' formula.
Vec3 rotate_by(const Vec3& phi, const Vec3& v);
// Unit quaternion of the rotation vector phi.
Quat quaternion_from_rotation_vector(const Vec3& phi);

}  // namespace simpulse
