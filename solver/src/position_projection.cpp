// Position projection (post-stabilisation) of the exact mode, after the positions have been integrated: moves
// bodies, positions and orientations, so that joints close again (anchors together, frames aligned) and
// penetration beyond the slop shrinks. It solves the same kind of simultaneous system as the velocity solve,
// on pseudo-velocities that are displacements: A dx = C with A = J M^-1 J^T at the current configuration
// (heavier bodies move less). Joints are projected by Newton iterations to convergence (the nonlinear
// end-of-step condition of thesis eq. 21-22 solved exactly), contacts as unilateral rows (pushing apart
// only). Linear velocities are untouched and angular velocities turn with their bodies, so no kinetic energy
// is added (unlike Baumgarte stabilisation). Moving a body moves the line its momentum acts along, and
// turning it turns its spin: an isolated island (touching no static body and no fixed frame) would change its
// angular momentum, which nothing outside it can. keep_angular_momentum gives it back exactly by a rigid
// rotation of the island's velocities about its centre of mass, and its kinetic energy by scaling the rest.
#include "solver_impl.h"

#include "joints/joint_rows.h"

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

// Sum of the joints' squared errors (m^2, rotations in rad^2; limits where violated): the merit function of
// the projection's line search.
double joint_merit(std::span<const SolverBody> bodies, std::span<const JointConstraint> joints,
                   detail::JointRows& scratch) {
    double sum = 0;
    for (const JointConstraint& j : joints) {
        detail::joint_rows(j, bodies, scratch);
        for (int i = 0; i < scratch.count; ++i) {
            // A limit's error is its gap: only a violation (a negative gap) counts.
            const auto slot = static_cast<std::size_t>(i);
            const double error = scratch.rows[slot].kind == RowKind::limit
                                     ? std::min(0.0, scratch.error[slot])
                                     : scratch.error[slot];
            sum += error * error;
        }
    }
    return sum;
}

bool is_movable(std::span<const SolverBody> bodies, std::uint32_t i) {
    return i != kFixedFrame && i < bodies.size() && detail::movable(bodies[i]);
}

// A point fixed to `body` at `local` (body frame, from the centre of mass), or `fixed` for a static body or
// the fixed frame.
Vec3 anchor(std::span<const SolverBody> bodies, std::uint32_t body, const Vec3& local, const Vec3& fixed) {
    return is_movable(bodies, body) ? Vec3(bodies[body].position + bodies[body].orientation * local) : fixed;
}

// The contact point as side A (b_side false) or B of contact c carries it now: fixed to its body, or moved
// with its spread's point masses.
Vec3 contact_anchor(std::span<const SolverBody> bodies, const ContactConstraint& c,
                    const detail::ContactRows& cr, bool b_side) {
    const std::uint32_t body = b_side ? c.body_b : c.body_a;
    if (body == kSpreadBody)
        return c.point + detail::spread_position(b_side ? c.spread_b : c.spread_a, bodies) -
               (b_side ? cr.spread_origin_b : cr.spread_origin_a);
    return anchor(bodies, body, b_side ? cr.local_b : cr.local_a, c.point);
}

}  // namespace

detail::IslandMotion detail::island_motion(std::span<const SolverBody> bodies,
                                           std::span<const std::uint32_t> island) {
    IslandMotion m;
    for (const std::uint32_t i : island) {
        const SolverBody& b = bodies[i];
        const double mass = 1.0 / b.inverse_mass;
        m.mass += mass;
        m.centre += mass * b.position;
    }
    m.centre /= m.mass;
    for (const std::uint32_t i : island) {
        const SolverBody& b = bodies[i];
        const double mass = 1.0 / b.inverse_mass;
        const Mat3 inertia = b.inverse_inertia.inverse();
        const Vec3 spin = inertia * b.angular_velocity;
        m.momentum += mass * b.velocity;
        m.angular_momentum += b.position.cross(mass * b.velocity) + spin;
        m.kinetic_energy += 0.5 * (mass * b.velocity.squaredNorm() + b.angular_velocity.dot(spin));
        const Vec3 r = b.position - m.centre;
        m.inertia += inertia + mass * (r.squaredNorm() * Mat3::Identity() - r * r.transpose());
    }
    return m;
}

// The depth each contact should have at most after the projection.
void Solver::Impl::projection_goals(std::span<const SolverBody> bodies,
                                    std::span<const ContactConstraint> contacts,
                                    const SolverSettings& settings, std::vector<double>& goal) const {
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
            const Vec3 pa = contact_anchor(bodies, contacts[k], cr, false);
            const Vec3 pb = contact_anchor(bodies, contacts[k], cr, true);
            goal[k] = d - contacts[k].normal.dot(pb - pa) + cr.restitution_pull;
        }
    }
}

// With no joint, the projection has work only where a contact is deeper than its goal or was pulled by a
// bounce (the common resting case has none).
bool Solver::Impl::contacts_need_projection(std::span<const SolverBody> bodies,
                                            std::span<const ContactConstraint> contacts,
                                            std::span<const double> goal) const {
    for (std::size_t k = 0; k < contacts.size() && k < contact_rows.size(); ++k) {
        const detail::ContactRows& cr = contact_rows[k];
        if (cr.normal < 0) continue;
        const ContactConstraint& c = contacts[k];
        const double depth = c.depth - c.normal.dot(contact_anchor(bodies, c, cr, true) -
                                                    contact_anchor(bodies, c, cr, false));
        if (depth > goal[k] + 1e-12 || cr.restitution_pull > 0) return true;
    }
    return false;
}

// rows = the projection's rows at the current configuration: one per contact (its target the depth beyond its
// goal; a pulled contact is placed exactly) and each joint's rows (targets: minus its errors).
Solver::Impl::ProjectionError Solver::Impl::projection_rows(std::span<const SolverBody> bodies,
                                                            std::span<const ContactConstraint> contacts,
                                                            std::span<const JointConstraint> joints,
                                                            std::span<const double> goal) {
    rows.clear();
    ProjectionError error;
    for (std::size_t k = 0; k < contacts.size() && k < contact_rows.size(); ++k) {
        const ContactConstraint& c = contacts[k];
        const detail::ContactRows& cr = contact_rows[k];
        if (cr.normal < 0) continue;
        const Vec3 pa = contact_anchor(bodies, c, cr, false);
        const Vec3 pb = contact_anchor(bodies, c, cr, true);
        const double depth = c.depth - c.normal.dot(pb - pa);
        const bool pulled = cr.restitution_pull > 0;
        if (depth > goal[k] + 1e-12 || (pulled && depth < goal[k] - 1e-12)) error.contact_violated = true;
        Row r;
        detail::make_row(r, bodies, c.body_a, c.body_b, pa, pb, c.normal);
        if (cr.spread >= 0) {
            r.spread = &spreads[static_cast<std::size_t>(cr.spread)];
            detail::add_spread_diagonal(r);
        }
        r.kind = pulled ? RowKind::joint : RowKind::normal;
        r.source = static_cast<std::uint32_t>(k);
        r.target = depth - goal[k];  // separate by at least this much
        rows.push_back(r);
    }
    detail::JointRows joint;
    for (std::size_t k = 0; k < joints.size(); ++k) {
        const JointConstraint& j = joints[k];
        if (!is_movable(bodies, j.body_a) && !is_movable(bodies, j.body_b)) continue;
        detail::joint_rows(j, bodies, joint);
        error.joint = std::max({error.joint, joint.linear_error, joint.angular_error});
        for (int i = 0; i < joint.count; ++i) {
            if (joint.rows[static_cast<std::size_t>(i)].kind == RowKind::motor)
                continue;  // no position error
            Row& r = rows.emplace_back(joint.rows[static_cast<std::size_t>(i)]);
            r.source = static_cast<std::uint32_t>(k);
            r.target = -joint.error[static_cast<std::size_t>(i)];
        }
    }
    return error;
}

// scratch_bodies' velocities = the displacements (linear, and rotation vectors) that solve the rows, island
// by island.
void Solver::Impl::solve_displacements(std::span<const SolverBody> bodies, const SolverSettings& settings) {
    detail::IslandWorker& scratch = *workers.front();  // the projection runs on one thread
    std::vector<detail::Row>& island_rows = scratch.island_rows;
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
        // Displacements to a micrometre: the projection removes penetration beyond the slop (0.5 mm).
        constexpr double kDisplacementTolerance = 1e-6;
        const bool direct = static_cast<int>(island_rows.size()) <= settings.direct_max_rows;
        if (direct) scratch.solve_start.collect(island_rows, scratch_bodies);
        const detail::BlcpResult r =
            direct ? detail::solve_blcp_direct(island_rows, scratch_bodies, scratch.workspace,
                                               settings.max_active_set_iterations, settings.dense_max_rows)
                   : detail::solve_blcp_iterative(island_rows, scratch_bodies, scratch.workspace,
                                                  settings.max_iterations, kDisplacementTolerance);
        if (direct && !r.converged) {
            // Undone exactly, and dropped if unusable as a start (as for the velocities, solve_island).
            scratch.solve_start.restore(scratch_bodies);
            detail::drop_unusable_start(island_rows, kDisplacementTolerance);
            detail::solve_blcp_iterative(island_rows, scratch_bodies, scratch.workspace,
                                         settings.max_iterations, 0);
        }
    }
}

// Newton step with backtracking: a light body in a fast-rotating chain can make the full step overshoot (the
// linearisation of its rotation is poor), so halve the step until the joint error decreases.
void Solver::Impl::move_bodies(std::span<SolverBody> bodies, std::span<const JointConstraint> joints) {
    saved_positions.resize(bodies.size());
    saved_orientations.resize(bodies.size());
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        saved_positions[i] = bodies[i].position;
        saved_orientations[i] = bodies[i].orientation;
    }
    detail::JointRows scratch;
    const double merit = joint_merit(bodies, joints, scratch);
    double step = 1;
    for (int halving = 0;; ++halving) {
        for (std::size_t i = 0; i < bodies.size(); ++i) {
            SolverBody& b = bodies[i];
            if (!detail::movable(b)) continue;
            b.position = saved_positions[i] + step * scratch_bodies[i].velocity;
            b.orientation = rotated(saved_orientations[i], step * scratch_bodies[i].angular_velocity);
            b.inverse_inertia = world_inverse_inertia(b.orientation, b.inverse_inertia_local);
        }
        if (joints.empty() || halving == 6 || joint_merit(bodies, joints, scratch) < merit) break;
        step *= 0.5;
    }
    // A body the projection turns keeps its angular velocity in its own axes: with the world one kept, a
    // fast-spinning asymmetric body turned by a deep contact's correction changed its kinetic energy 1/2
    // w.I(q)w (+47 % in one step of bench/stress_findings/nonfinite_exact_fast_convex_11bodies.json).
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        SolverBody& b = bodies[i];
        if (detail::movable(b) && !scratch_bodies[i].angular_velocity.isZero(0))
            b.angular_velocity = (b.orientation * saved_orientations[i].conjugate()) * b.angular_velocity;
    }
}

// The isolated islands of the projection's rows (iteration 0: the contacts and joints of the step) and their
// bodies, with each island's angular momentum and kinetic energy before the projection.
void Solver::Impl::record_isolated_islands(std::span<const SolverBody> bodies) {
    isolated_bodies.clear();
    isolated_offsets.assign(1, 0);
    isolated_before.clear();
    islands.build(rows, bodies.size());
    const auto order = islands.order();
    const auto offsets = islands.offsets();
    body_stamp.assign(bodies.size(), 0);
    for (std::size_t k = 0; k + 1 < offsets.size(); ++k) {
        const bool isolated =
            std::all_of(order.begin() + offsets[k], order.begin() + offsets[k + 1], [&](std::uint32_t p) {
                // Rows of cable contacts (spread sides) are left out: conservative, they keep no momentum.
                return rows[p].a != detail::kNoBody && rows[p].b != detail::kNoBody &&
                       rows[p].spread == nullptr;
            });
        if (!isolated) continue;
        const auto stamp = static_cast<std::uint32_t>(k + 1);
        for (std::uint32_t p = offsets[k]; p < offsets[k + 1]; ++p)
            for (const std::uint32_t body : {rows[order[p]].a, rows[order[p]].b})
                if (body_stamp[body] != stamp) {
                    body_stamp[body] = stamp;
                    isolated_bodies.push_back(body);
                }
        isolated_offsets.push_back(static_cast<std::uint32_t>(isolated_bodies.size()));
        const std::span<const std::uint32_t> island(isolated_bodies.begin() + isolated_offsets.end()[-2],
                                                    isolated_bodies.end());
        isolated_before.push_back(detail::island_motion(bodies, island));
    }
}

// After the projection: each isolated island gets back the angular momentum and the kinetic energy it had,
// exactly. L is linear in the velocities: a rigid rotation Omega of the island's velocities about its centre
// of mass X (v += Omega x (x - X), w += Omega) changes L by I_X Omega and leaves the momentum and every
// relative velocity at a contact or joint as they are, so Omega = -I_X^-1 dL. That changes the kinetic energy
// by -dL.I_X^-1 L_X - 1/2 dL.I_X^-1 dL (L_X the angular momentum about X before the projection); the island's
// velocities relative to its rigid motion (the part orthogonal to it in the mass metric, with no momentum and
// no angular momentum) are then scaled until the energy is what it was (up by at most 1 %). Scaling keeps the
// sign of every relative velocity.
void Solver::Impl::keep_angular_momentum(std::span<SolverBody> bodies) {
    for (std::size_t k = 0; k + 1 < isolated_offsets.size(); ++k) {
        const std::span<const std::uint32_t> island(isolated_bodies.begin() + isolated_offsets[k],
                                                    isolated_bodies.begin() + isolated_offsets[k + 1]);
        const detail::IslandMotion before = isolated_before[k];
        const detail::IslandMotion after = detail::island_motion(bodies, island);
        if (!after.inertia.allFinite() || !(after.inertia.determinant() > 0)) continue;
        const Eigen::LDLT<Mat3> inertia(after.inertia);
        const Vec3 omega = inertia.solve(before.angular_momentum - after.angular_momentum);
        for (const std::uint32_t i : island) {
            bodies[i].velocity += omega.cross(bodies[i].position - after.centre);
            bodies[i].angular_velocity += omega;
        }
        const detail::IslandMotion corrected = detail::island_motion(bodies, island);
        if (corrected.kinetic_energy == before.kinetic_energy) continue;
        // Rigid part: the centre's velocity V and the rotation Omega_0 = I_X^-1 L_X.
        const Vec3 spin =
            inertia.solve(corrected.angular_momentum - corrected.centre.cross(corrected.momentum));
        const Vec3 centre_velocity = corrected.momentum / corrected.mass;
        const double rigid_energy =
            0.5 * corrected.mass * centre_velocity.squaredNorm() + 0.5 * spin.dot(after.inertia * spin);
        const double relative_energy = corrected.kinetic_energy - rigid_energy;
        if (!(relative_energy > 0)) continue;
        // Giving back lost energy may scale the relative motion up by at most 1 %: an island that moves
        // almost rigidly (a resting pair drifting in free space) has too little of it to carry the energy
        // without its contacts starting to jitter, and there the energy stays a little lower.
        constexpr double kMaxScaleUp = 1.01;
        const double scale = std::min(
            kMaxScaleUp, std::sqrt(std::max(0.0, before.kinetic_energy - rigid_energy) / relative_energy));
        for (const std::uint32_t i : island) {
            const Vec3 rigid_velocity = centre_velocity + spin.cross(bodies[i].position - after.centre);
            bodies[i].velocity = rigid_velocity + scale * (bodies[i].velocity - rigid_velocity);
            bodies[i].angular_velocity = spin + scale * (bodies[i].angular_velocity - spin);
        }
    }
}

void Solver::Impl::project(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts,
                           std::span<const JointConstraint> joints, const SolverSettings& settings) {
    std::vector<double>& goal = workers.front()->approach;  // scratch: the projection runs on one thread
    projection_goals(bodies, contacts, settings, goal);
    stats.joint_error = 0;
    stats.joint_drift = 0;
    if (joints.empty() && !contacts_need_projection(bodies, contacts, goal)) return;
    for (int iteration = 0; iteration < settings.max_projection_iterations; ++iteration) {
        const ProjectionError error = projection_rows(bodies, contacts, joints, goal);
        if (iteration == 0) record_isolated_islands(bodies);
        stats.joint_error = error.joint;
        if (iteration == 0) stats.joint_drift = error.joint;
        if (error.joint <= settings.joint_tolerance && !error.contact_violated) break;
        // Contacts get one projection per step; joints iterate until the anchors meet.
        if (iteration > 0 && error.joint <= settings.joint_tolerance) break;
        ++stats.projection_iterations;
        solve_displacements(bodies, settings);
        move_bodies(bodies, joints);
    }
    keep_angular_momentum(bodies);
}

}  // namespace simpulse
