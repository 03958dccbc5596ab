// Fixed-step integration in the thesis order (chapter 2, eq. 2): velocities from forces, then (after
// collision and solver) positions from velocities.
//
// Rotation: integrate_velocities sets the angular velocity w the solver sees from L = I_n w_n + dt tau, the
// solver changes w with contact and joint impulses, integrate_positions turns the body. Which step depends on
// the rotation per step dt |w| (Body::rotation_step carries integrate_velocities' choice to
// integrate_positions; integrate_positions also switches on the w the solver left):
//  - up to 0.05 rad (every body of the domino scenes), the midpoint Lie-group step: w solves
//    I_n w = exp(-dt/2 w) L (Newton), the angular velocity of the configuration half a step ahead carrying L;
//    positions rotate by exp(dt w) and store w_{n+1} = R_f I_n^-1 R_h^T I_n w (R_h, R_f the rotations by
//    dt/2 w and dt w). World L is kept to round-off; the energy oscillates by ~0.03 (dt |w|)^2 of itself;
//  - above, while dt |w| <= 0.5 rad along the whole motion (by a bound from the energy), the chord-midpoint
//    step: w solves I_n w = (L + exp(-dt w) L) / 2 (Newton, exact Jacobian); positions rotate by exp(dt w)
//    and store w_{n+1} = I_{n+1}^-1 L' with L' = 2 (1 + exp(-dt w))^-1 I_n w (L when the solver left w
//    alone). The momentum's change L' - exp(-dt w) L' is a rotation's chord about w, orthogonal to
//    w = I_n^-1 (L' + exp(-dt w) L') / 2, so a torque-free body keeps E and L to round-off;
//  - faster, w is the start-of-step angular velocity I_n^-1 L, and positions move the body torque-free with
//    L = I_n w over dt in chord-midpoint sub-steps of at most 0.5 rad each (body axes; beyond 256 sub-steps,
//    ~128 rad per step, a rotation about L at the rate 2E/|L|): the energy the solver left and L are kept to
//    round-off, at any spin rate.
#pragma once

#include <simpulse/dynamics/body.h>

#include <span>

namespace simpulse {

void integrate_velocities(std::span<Body> bodies, const Vec3& gravity, double dt);
void integrate_positions(std::span<Body> bodies, double dt);

// The angular velocity (and Body::rotation_step) the step starts from for the world angular momentum L of b
// at the start of the step (integrate_velocities' rotation part).
void set_mid_step_angular_velocity(Body& b, const Vec3& L, double dt);
// The world angular momentum integrate_positions carries to the end of the step for b's angular velocity and
// rotation step: R(dt/2 w) I_n w (midpoint), 2 (1 + exp(-dt w))^-1 I_n w (chord-midpoint) or I_n w.
Vec3 carried_angular_momentum(const Body& b, double dt);
// After the velocity solve. The solver adds to a body's I_n w the angular impulses of its contacts and
// joints, sum (r_k - x_n) x P_k at the start-of-step configuration; the partner body gets the opposite
// impulses on the same lines, so the pair's total angular momentum is kept. But the steps above carry a
// nonlinear function of w (midpoint: the momentum turned by half the step's rotation), so the carried
// momentum would change by the angular impulse turned by that rotation, a different one for each body: a
// spinning box and a cylinder colliding once changed their total angular momentum by 0.1-1 %. So each body
// whose angular velocity the solver changed from `before_solve` carries its momentum before the solve plus
// the angular impulse I_n (w' - w), and starts the position step from the angular velocity of that momentum.
void carry_angular_impulses(std::span<Body> bodies, std::span<const Vec3> before_solve, double dt);

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
