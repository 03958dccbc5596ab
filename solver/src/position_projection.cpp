// Position projection (post-stabilisation) of the exact mode, after the positions have been integrated: moves
// bodies, positions and orientations only, so that ball-joint anchors coincide again and penetration beyond
// the slop shrinks. It solves the same kind of simultaneous system as the velocity solve, on
// pseudo-velocities that are displacements: A dx = C with A = J M^-1 J^T at the current configuration
// (heavier bodies move less). Joints are projected by Newton iterations to convergence (the nonlinear
// end-of-step condition of thesis eq. 21-22 solved exactly), contacts as unilateral rows (pushing apart
// only). Linear velocities are untouched and angular velocities turn with their bodies, so no kinetic energy
// is added (unlike Baumgarte stabilisation).
#include "solver_impl.h"

#include <algorithm>
#include <cmath>

namespace simpulse {

using detail::Row;
using detail::RowKind;

namespace {

Quat rotated(const Quat& q, const Vec3& phi) {
    const double angle = phi.norm();
    if (angle < 1e-300) return q;
    const double s = std::sin(0.5 * angle) / angle;
    return (Quat(std::cos(0.5 * angle), phi.x() * s, phi.y() * s, phi.z() * s) * q).normalized();
}

// Sum of squared joint anchor separations: the merit function of the projection's line search.
double joint_merit(std::span<const SolverBody> bodies, std::span<const BallJointConstraint> joints) {
    auto anchor = [&](std::uint32_t body, const Vec3& local) {
        return body == kFixedFrame ? local : Vec3(bodies[body].position + bodies[body].orientation * local);
    };
    double sum = 0;
    for (const BallJointConstraint& j : joints)
        sum += (anchor(j.body_b, j.local_anchor_b) - anchor(j.body_a, j.local_anchor_a)).squaredNorm();
    return sum;
}

}  // namespace

void Solver::Impl::project(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts,
                           std::span<const BallJointConstraint> joints, const SolverSettings& settings) {
    detail::IslandWorker& scratch = *workers.front();  // the projection runs on one thread
    std::vector<detail::Row>& island_rows = scratch.island_rows;
    std::vector<double>& approach = scratch.approach;
    detail::BlcpWorkspace& workspace = scratch.workspace;
    auto is_movable = [&](std::uint32_t i) {
        return i != kFixedFrame && i < bodies.size() && detail::movable(bodies[i]);
    };
    auto anchor = [&](std::uint32_t body, const Vec3& local, const Vec3& fixed) {
        return is_movable(body) ? Vec3(bodies[body].position + bodies[body].orientation * local) : fixed;
    };
    // The depth each contact should have at most after the projection.
    std::vector<double>& goal = approach;
    goal.assign(contacts.size(), 0.0);
    for (std::size_t k = 0; k < contacts.size(); ++k) {
        const double d = contacts[k].depth, slop = settings.penetration_slop;
        goal[k] = d > slop
                      ? d - std::min(settings.penetration_correction * (d - slop), settings.max_correction)
                      : slop;
        if (k < contact_rows.size() && contact_rows[k].restitution_pull > 0) {
            // Bounced inside the step: end where the true trajectory ends, (1 + e) gap closer than
            // integrated.
            const detail::ContactRows& cr = contact_rows[k];
            const Vec3 pa = anchor(contacts[k].body_a, cr.local_a, contacts[k].point);
            const Vec3 pb = anchor(contacts[k].body_b, cr.local_b, contacts[k].point);
            goal[k] = d - contacts[k].normal.dot(pb - pa) + cr.restitution_pull;
        }
    }

    stats.joint_error = 0;
    stats.joint_drift = 0;
    // Nothing to do when no joint exists and no contact is deeper than its goal (the common resting case).
    if (joints.empty()) {
        bool violated = false;
        for (std::size_t k = 0; k < contacts.size() && k < contact_rows.size() && !violated; ++k) {
            const detail::ContactRows& cr = contact_rows[k];
            if (cr.normal < 0) continue;
            const ContactConstraint& c = contacts[k];
            const double depth = c.depth - c.normal.dot(anchor(c.body_b, cr.local_b, c.point) -
                                                        anchor(c.body_a, cr.local_a, c.point));
            violated = depth > goal[k] + 1e-12 || cr.restitution_pull > 0;
        }
        if (!violated) return;
    }
    for (int iteration = 0; iteration < settings.max_projection_iterations; ++iteration) {
        rows.clear();
        double joint_error = 0;
        bool contact_violated = false;
        for (std::size_t k = 0; k < contacts.size() && k < contact_rows.size(); ++k) {
            const ContactConstraint& c = contacts[k];
            const detail::ContactRows& cr = contact_rows[k];
            if (cr.normal < 0) continue;
            const Vec3 pa = anchor(c.body_a, cr.local_a, c.point);
            const Vec3 pb = anchor(c.body_b, cr.local_b, c.point);
            const double depth = c.depth - c.normal.dot(pb - pa);
            const bool pulled = cr.restitution_pull > 0;
            if (depth > goal[k] + 1e-12 || (pulled && depth < goal[k] - 1e-12)) contact_violated = true;
            Row r;
            detail::make_row(r, bodies, c.body_a, c.body_b, pa, pb, c.normal);
            r.kind = pulled ? RowKind::joint : RowKind::normal;  // a pulled contact is placed exactly
            r.source = static_cast<std::uint32_t>(k);
            r.target = depth - goal[k];  // separate by at least this much
            rows.push_back(r);
        }
        for (std::size_t k = 0; k < joints.size(); ++k) {
            const BallJointConstraint& j = joints[k];
            if (!is_movable(j.body_a) && !is_movable(j.body_b)) continue;
            const Vec3 pa = anchor(j.body_a, j.local_anchor_a, j.local_anchor_a);
            const Vec3 pb = anchor(j.body_b, j.local_anchor_b, j.local_anchor_b);
            const Vec3 drift = pb - pa;
            joint_error = std::max(joint_error, drift.norm());
            for (int axis = 0; axis < 3; ++axis) {
                Row r;
                detail::make_row(r, bodies, j.body_a, j.body_b, pa, pb, Vec3::Unit(axis));
                r.kind = RowKind::joint;
                r.source = static_cast<std::uint32_t>(k);
                r.target = -drift[axis];
                rows.push_back(r);
            }
        }
        stats.joint_error = joint_error;
        if (iteration == 0) stats.joint_drift = joint_error;
        if (joint_error <= settings.joint_tolerance && !contact_violated) break;
        // Contacts get one projection per step; joints iterate until the anchors meet.
        if (iteration > 0 && joint_error <= settings.joint_tolerance) break;
        ++stats.projection_iterations;

        scratch_bodies.assign(bodies.begin(), bodies.end());
        for (SolverBody& b : scratch_bodies) {
            b.velocity.setZero();
            b.angular_velocity.setZero();
        }
        islands.build(rows, bodies.size());
        const auto order = islands.order();
        const auto offsets = islands.offsets();
        for (std::size_t k = 0; k + 1 < offsets.size(); ++k) {
            island_rows.clear();
            for (std::uint32_t p = offsets[k]; p < offsets[k + 1]; ++p) island_rows.push_back(rows[order[p]]);
            const bool direct = static_cast<int>(island_rows.size()) <= settings.direct_max_rows;
            const detail::BlcpResult r =
                direct
                    ? detail::solve_blcp_direct(island_rows, scratch_bodies, workspace,
                                                settings.max_active_set_iterations, settings.dense_max_rows)
                    // Displacements to a micrometre: the projection removes penetration beyond the slop (0.5
                    // mm).
                    : detail::solve_blcp_iterative(island_rows, scratch_bodies, workspace,
                                                   settings.max_iterations, 1e-6);
            if (direct && !r.converged) {
                for (const Row& row : island_rows)
                    detail::apply_row_impulse(row, -row.lambda, scratch_bodies);
                detail::solve_blcp_iterative(island_rows, scratch_bodies, workspace, settings.max_iterations,
                                             0);
            }
        }
        // Newton step with backtracking: a light body in a fast-rotating chain can make the full step
        // overshoot (the linearisation of its rotation is poor), so halve the step until the joint error
        // decreases.
        saved_positions.resize(bodies.size());
        saved_orientations.resize(bodies.size());
        for (std::size_t i = 0; i < bodies.size(); ++i) {
            saved_positions[i] = bodies[i].position;
            saved_orientations[i] = bodies[i].orientation;
        }
        const double merit = joint_merit(bodies, joints);
        double step = 1;
        for (int halving = 0;; ++halving) {
            for (std::size_t i = 0; i < bodies.size(); ++i) {
                SolverBody& b = bodies[i];
                if (!detail::movable(b)) continue;
                b.position = saved_positions[i] + step * scratch_bodies[i].velocity;
                b.orientation = rotated(saved_orientations[i], step * scratch_bodies[i].angular_velocity);
                b.inverse_inertia = world_inverse_inertia(b.orientation, b.inverse_inertia_local);
            }
            if (joints.empty() || halving == 6 || joint_merit(bodies, joints) < merit) break;
            step *= 0.5;
        }
        // A body the projection turns keeps its angular velocity in its own axes: with the world one kept, a
        // fast-spinning asymmetric body turned by a deep contact's correction changed its kinetic energy
        // 1/2 w.I(q)w (+47 % in one step of bench/stress_findings/nonfinite_exact_fast_convex_11bodies.json).
        for (std::size_t i = 0; i < bodies.size(); ++i) {
            SolverBody& b = bodies[i];
            if (detail::movable(b) && !scratch_bodies[i].angular_velocity.isZero(0))
                b.angular_velocity = (b.orientation * saved_orientations[i].conjugate()) * b.angular_velocity;
        }
    }
}

}  // namespace simpulse
