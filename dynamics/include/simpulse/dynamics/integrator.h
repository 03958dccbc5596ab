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

// Semi-implicit Euler is leapfrog in disguise: the velocity it carries at the end of a step of length h is
// the velocity half a step earlier, v(t - h/2) = v(t) - a h / 2. A step of another length h' must start from
// v(t) - a h' / 2, or the motion's (shadow) energy jumps by m a.v (h - h') / 2. Substeps that shrink while
// a body falls onto the ground and grow again after it bounced lose twice: about m g dt |v| per bounce (a
// ball at e = 1 kept 93 % of its height per bounce at 60 Hz). This shifts the velocities of awake dynamic
// bodies by (gravity + force / m) (previous_dt - dt) / 2 and the angular velocities by I^-1 torque times the
// same, with the forces and torques the coming step applies; exact for constant forces. Bodies held by
// contacts or joints get the shift too: it is smaller than the coming step's own kick of a dt along the same
// line, so the constraints take it up with that kick.
void restagger_velocities(std::span<Body> bodies, const Vec3& gravity, double previous_dt, double dt);

// Rotation of v by the rotation vector phi (axis * angle), Rodrigues' formula.
Vec3 rotate_by(const Vec3& phi, const Vec3& v);
// Unit quaternion of the rotation vector phi.
Quat quaternion_from_rotation_vector(const Vec3& phi);

}  // namespace simpulse
