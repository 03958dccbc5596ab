// Semi-implicit Euler for translation. Rotation: a midpoint Lie-group step for small rotations per step,
// above that a chord-midpoint step, in one piece or in sub-steps, that keeps a torque-free body's kinetic
// energy and angular momentum to round-off at any spin rate (see integrator.h for the equations). The thesis
// (chapter 2, eq. 2) integrates w = w0 + eps dt explicitly; that lets the gyroscopic term pump energy into
// spinning asymmetric bodies, so the rotation is solved implicitly here instead.
#include <simpulse/dynamics/integrator.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace simpulse {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
// Rotation per step (dt |w|, rad) up to which a body takes the midpoint step, as before the chord-midpoint
// step existed. The midpoint step keeps L to round-off but its energy oscillates by about 0.03 (dt |w|)^2 of
// itself (no drift; measured 2.9e-4 at 0.1 rad per step near the intermediate axis of a 1 x 2 x 3 box), and
// its Newton solve and end-of-step velocity add energy at several rad per step. 0.05 keeps every shipped
// domino scene (at their dt of 0.0003 s at most 0.028 rad per step, d2) on the midpoint step, bit for bit; at
// 1/240 s dominoes turn faster and take the chord-midpoint step.
constexpr double kMidpointRotation = 0.05;
// Largest rotation of one chord-midpoint (sub-)step, rad, by a bound on |w| over the whole torque-free motion
// (rotation_bound): Newton converges there in 2-3 iterations from w = I^-1 P.
constexpr double kChordRotation = 0.5;
// A step that would take more sub-steps than this (dt |w| above 256 * 0.5 = 128 rad by the bound, 20 turns)
// turns the body about its angular momentum only (E and L exact, the nutation within the step dropped): caps
// the cost of absurd spin rates at 256 sub-steps.
constexpr int kMaxSubsteps = 256;

Mat3 skew(const Vec3& v) {
    Mat3 m;
    m << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
    return m;
}

// Solves I w = exp(-h w) L for w by Newton's method from w. The Jacobian of exp(-h w) L is approximated by
// h [g]x (exact to first order in h |w|), which converges in 3-5 iterations for h |w| < 0.5. Returns whether
// it converged within 12 iterations.
bool solve_midpoint_angular_velocity(const Mat3& inertia, const Vec3& L, double h, Vec3& w) {
    const double tolerance = 1e-15 * L.norm();
    for (int iteration = 0; iteration < 12; ++iteration) {
        const Vec3 g = rotate_by(-h * w, L);
        const Vec3 f = inertia * w - g;
        if (f.norm() <= tolerance) return true;
        const Vec3 step = (inertia - h * skew(g)).partialPivLu().solve(f);
        if (!step.allFinite()) return false;
        w -= step;
    }
    return false;
}

// Left Jacobian of SO(3): exp(phi + d) = exp(J_l(phi) d) exp(phi) to first order in d.
Mat3 left_jacobian(const Vec3& phi) {
    const double angle = phi.norm();
    double a, b;  // (1 - cos t) / t^2 and (t - sin t) / t^3, by their series where they cancel
    if (angle < 1e-3) {
        const double t2 = angle * angle;
        a = 0.5 - t2 / 24;
        b = 1.0 / 6 - t2 / 120;
    } else {
        a = (1 - std::cos(angle)) / (angle * angle);
        b = (angle - std::sin(angle)) / (angle * angle * angle);
    }
    const Mat3 k = skew(phi);
    return Mat3::Identity() + a * k + b * k * k;
}

// Solves the chord-midpoint equation I w = (P + exp(-tau w) P) / 2 for w by Newton's method from w (in any
// one frame: body axes with P the body momentum, or world axes with P = L). Newton with the exact Jacobian I
// - tau/2 [P']x J_l(-tau w), P' = exp(-tau w) P, to the rounding of the residual (16 eps of its terms'
// magnitudes). Returns whether it got there within 16 iterations; on success after = P'.
bool solve_chord_midpoint(const Mat3& inertia, const Vec3& P, double tau, Vec3& w, Vec3& after) {
    for (int iteration = 0; iteration < 16; ++iteration) {
        after = rotate_by(-tau * w, P);
        const Vec3 f = inertia * w - 0.5 * (P + after);
        if (f.norm() <= 16 * kEps * ((inertia.cwiseAbs() * w.cwiseAbs()).norm() + P.norm())) return true;
        const Mat3 jacobian = inertia - 0.5 * tau * skew(after) * left_jacobian(-tau * w);
        const Vec3 step = jacobian.partialPivLu().solve(f);
        if (!step.allFinite()) return false;
        w -= step;
    }
    return false;
}

// Bound on dt |w| over the torque-free motion of kinetic energy E: |I^-1 P|^2 <= lambda_max(I^-1) P.I^-1 P,
// and the largest absolute row sum of I^-1 bounds lambda_max.
double rotation_bound(const Mat3& inverse_inertia_local, double twice_energy, double dt) {
    return dt * std::sqrt(inverse_inertia_local.cwiseAbs().rowwise().sum().maxCoeff() * twice_energy);
}

// Sets b's orientation (normalised) and the world inverse inertia that goes with it.
void set_orientation(Body& b, const Quat& q) {
    b.orientation = q.normalized();
    const Mat3 r = b.orientation.toRotationMatrix();
    b.inverse_inertia_world = r * b.inverse_inertia_local * r.transpose();
}

// Rotation of b by exp(dt w) with w the chord-midpoint angular velocity of the world angular momentum
// L' = 2 (1 + exp(-dt w))^-1 I_n w (the L whose equation w solves; L itself when the solver left w alone);
// the end-of-step angular velocity carries L': w_{n+1} = I_{n+1}^-1 L'.
void rotate_chord_midpoint(Body& b, const Mat3& inertia, double dt) {
    const Vec3 w = b.angular_velocity;
    const Mat3 chord =
        Mat3::Identity() + Eigen::AngleAxisd(-dt * w.norm(), w.normalized()).toRotationMatrix();
    const Vec3 L = chord.partialPivLu().solve(2 * (inertia * w));
    set_orientation(b, quaternion_from_rotation_vector(dt * w) * b.orientation);
    b.angular_velocity = b.inverse_inertia_world * L;
}

// Torque-free rotation of b over dt carrying the world angular momentum L = I_n w of its angular velocity w
// at the start of the step, in n chord-midpoint sub-steps of tau = dt / n in body axes (inertia constant):
// each solves I w_k = (P_k + P_k+1) / 2 with P_k+1 = exp(-tau w_k) P_k and turns the body by exp(tau w_k).
// The kinetic energy w.I_n w / 2 the solver left and L are kept to round-off. A step needing more than
// kMaxSubsteps, and the rest of a step after a sub-step whose Newton did not converge (not seen in the tests
// and stress scenes), turn the body about L at the rate 2E / |L| (the mean of w along L): that keeps E and
// L exactly and drops only the nutation.
void rotate_in_substeps(Body& b, const Mat3& r, double substeps, double dt) {
    const Vec3 w_body = r.transpose() * b.angular_velocity;
    Vec3 P = b.inertia_local * w_body;
    const Vec3 L = r * P;
    const double twice_energy = w_body.dot(P);
    Quat q = b.orientation;
    double left = dt;
    if (substeps <= kMaxSubsteps) {
        const int n = std::max(1, static_cast<int>(substeps));
        const double tau = dt / n;
        for (int k = 0; k < n; ++k) {
            Vec3 w = b.inverse_inertia_local * P, after;
            if (!solve_chord_midpoint(b.inertia_local, P, tau, w, after)) break;
            q = q * quaternion_from_rotation_vector(tau * w);
            P = after;
            left = (n - 1 - k) * tau;
        }
    }
    // About L at the rate 2E / |L|, written without squaring |P| (which overflows first at absurd spins).
    if (left > 0) {
        const double size = P.norm();
        q = q * quaternion_from_rotation_vector((left * twice_energy / size) * (P / size));
    }
    set_orientation(b, q);
    b.angular_velocity = b.inverse_inertia_world * L;
}

}  // namespace

Vec3 rotate_by(const Vec3& phi, const Vec3& v) {
    const double angle = phi.norm();
    if (angle < 1e-300) return v;
    const Vec3 axis = phi / angle;
    const double c = std::cos(angle), s = std::sin(angle);
    return v * c + axis.cross(v) * s + axis * (axis.dot(v) * (1 - c));
}

Quat quaternion_from_rotation_vector(const Vec3& phi) {
    const double angle = phi.norm();
    if (angle < 1e-300) return Quat::Identity();
    const double s = std::sin(0.5 * angle) / angle;
    return Quat(std::cos(0.5 * angle), phi.x() * s, phi.y() * s, phi.z() * s);
}

void set_mid_step_angular_velocity(Body& b, const Vec3& L, double dt) {
    const double h = 0.5 * dt;
    const Mat3 r = b.orientation.toRotationMatrix();
    const Mat3 inertia = r * b.inertia_local * r.transpose();
    const Vec3 start = b.inverse_inertia_world * L;  // the angular velocity of L at the start of the step
    Vec3 w = start;
    b.rotation_step = RotationStep::midpoint;
    if (dt * start.norm() <= kMidpointRotation && solve_midpoint_angular_velocity(inertia, L, h, w) &&
        dt * w.norm() <= kMidpointRotation) {
        b.angular_velocity = w;
        return;
    }
    w = start;
    Vec3 after;
    if (rotation_bound(b.inverse_inertia_local, start.dot(L), dt) <= kChordRotation &&
        solve_chord_midpoint(inertia, L, dt, w, after)) {
        b.rotation_step = RotationStep::chord_midpoint;
        b.angular_velocity = w;
    } else {
        b.rotation_step = RotationStep::substeps;
        b.angular_velocity = start;
    }
}

Vec3 carried_angular_momentum(const Body& b, double dt) {
    const Vec3 w = b.angular_velocity;
    const Mat3 r = b.orientation.toRotationMatrix();
    const Mat3 inertia = r * b.inertia_local * r.transpose();
    if (b.rotation_step == RotationStep::midpoint && dt * w.norm() <= kMidpointRotation)
        return rotate_by(0.5 * dt * w, inertia * w);  // R_f I_n^-1 R_h^T I_n w turned by I_{n+1}
    const double substeps =
        std::ceil(rotation_bound(b.inverse_inertia_local, w.dot(inertia * w), dt) / kChordRotation);
    if (b.rotation_step != RotationStep::substeps && substeps <= 1) {
        const Mat3 chord =
            Mat3::Identity() + Eigen::AngleAxisd(-dt * w.norm(), w.normalized()).toRotationMatrix();
        return chord.partialPivLu().solve(2 * (inertia * w));
    }
    return inertia * w;
}

void integrate_velocities(std::span<Body> bodies, const Vec3& gravity, double dt) {
    for (Body& b : bodies) {
        b.rotation_step = RotationStep::midpoint;  // also for sleepers: one woken within the step takes it
        if (!b.alive || b.is_static || b.asleep) continue;
        b.velocity += dt * (gravity + b.inverse_mass * b.force);
        if (b.angular_velocity.isZero(0) && b.torque.isZero(0)) continue;
        const Mat3 r = b.orientation.toRotationMatrix();
        const Mat3 inertia = r * b.inertia_local * r.transpose();
        set_mid_step_angular_velocity(b, inertia * b.angular_velocity + dt * b.torque, dt);
    }
}

void carry_angular_impulses(std::span<Body> bodies, std::span<const Vec3> before_solve, double dt) {
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        Body& b = bodies[i];
        if (!b.alive || b.is_static || b.asleep || b.angular_velocity == before_solve[i]) continue;
        const Vec3 solved = b.angular_velocity;
        const Mat3 r = b.orientation.toRotationMatrix();
        const Vec3 angular_impulse = r * (b.inertia_local * (r.transpose() * (solved - before_solve[i])));
        b.angular_velocity = before_solve[i];
        const Vec3 carried = carried_angular_momentum(b, dt) + angular_impulse;
        b.angular_velocity = solved;
        if (!carried.allFinite()) continue;
        set_mid_step_angular_velocity(b, carried, dt);
    }
}

void restagger_velocities(std::span<Body> bodies, const Vec3& gravity, double previous_dt, double dt) {
    const double shift = 0.5 * (previous_dt - dt);
    for (Body& b : bodies) {
        if (!b.alive || b.is_static || b.asleep) continue;
        b.velocity += shift * (gravity + b.inverse_mass * b.force);
        if (!b.torque.isZero(0)) b.angular_velocity += shift * (b.inverse_inertia_world * b.torque);
    }
}

void integrate_positions(std::span<Body> bodies, double dt) {
    const double h = 0.5 * dt;
    for (Body& b : bodies) {
        if (!b.alive || b.is_static || b.asleep) continue;
        b.com_position += dt * b.velocity;
        const Vec3 w = b.angular_velocity;
        if (w.isZero(0)) continue;
        const Mat3 r = b.orientation.toRotationMatrix();
        if (b.rotation_step != RotationStep::midpoint || !(dt * w.norm() <= kMidpointRotation)) {
            // The solver may have spun the body up or slowed it down: the step follows the rotation it has
            // now.
            const Mat3 inertia = r * b.inertia_local * r.transpose();
            const double substeps =
                std::ceil(rotation_bound(b.inverse_inertia_local, w.dot(inertia * w), dt) / kChordRotation);
            if (b.rotation_step != RotationStep::substeps && substeps <= 1)
                rotate_chord_midpoint(b, inertia, dt);
            else
                rotate_in_substeps(b, r, substeps, dt);
            continue;
        }
        // End-of-step angular velocity with the angular momentum of the mid-step configuration:
        // w_{n+1} = R_f I_n^-1 R_h^T I_n w, with R_h, R_f the rotations by h w and dt w.
        const Vec3 momentum = r * (b.inertia_local * (r.transpose() * w));
        const Vec3 back = rotate_by(-h * w, momentum);
        const Vec3 w_end_start_frame = b.inverse_inertia_world * back;
        b.angular_velocity = rotate_by(dt * w, w_end_start_frame);
        set_orientation(b, quaternion_from_rotation_vector(dt * w) * b.orientation);
    }
}

}  // namespace simpulse
