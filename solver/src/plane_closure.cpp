// The planar rows of a body held against the fixed frame (a planar world's joints, or a planar joint to the
// world) involve that body alone, so they can be met exactly rather than to the island method's tolerance:
// one block step on the joint's three rows, the 3x3 system A_jj dlambda = -J v with the other rows' impulses
// fixed (as Jolt's PointConstraintPart solves a point constraint's three rows with their 3x3 effective mass),
// closes their velocities to round-off; on positions, Newton iterations on the same rows (thesis eq. 21-22
// for one joint) put the body back on its plane. An island's iterative or Newton solve leaves joint rows at
// up to its acceptance (1e-3 m/s for the sweeps), which a planar world would otherwise turn into a drift of
// height and tilt; the closure changes the velocities the other rows see by as little, through the body.
#include "plane_closure.h"

#include "joints/joint_rows.h"

#include <cmath>

namespace simpulse::detail {
namespace {

bool held_in_fixed_plane(const JointConstraint& joint, std::span<const SolverBody> bodies) {
    return joint.type == JointType::planar && joint.body_b == kFixedFrame && joint.body_a < bodies.size() &&
           movable(bodies[joint.body_a]);
}

// The impulses (or displacements) of the joint's three rows that change their velocities by `change`.
Vec3 block_solve(const JointRows& rows, const Vec3& change) {
    Mat3 a;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            a(i, j) =
                coupling(rows.rows[static_cast<std::size_t>(i)], rows.rows[static_cast<std::size_t>(j)]);
    return a.ldlt().solve(change);
}

Quat rotated(const Quat& q, const Vec3& phi) {
    const double angle = phi.norm();
    if (!(angle > 1e-300)) return q;
    return (Quat(Eigen::AngleAxisd(angle, phi / angle)) * q).normalized();
}

}  // namespace

void close_planes_in_velocity(std::span<SolverBody> bodies, std::span<const JointConstraint> joints) {
    JointRows rows;
    for (const JointConstraint& joint : joints) {
        if (!held_in_fixed_plane(joint, bodies)) continue;
        joint_rows(joint, bodies, rows);
        Vec3 velocity;
        for (int i = 0; i < 3; ++i)
            velocity[i] = row_velocity(rows.rows[static_cast<std::size_t>(i)], bodies);
        const Vec3 impulse = block_solve(rows, -velocity);
        for (int i = 0; i < 3; ++i)
            apply_row_impulse(rows.rows[static_cast<std::size_t>(i)], impulse[i], bodies);
    }
}

void close_planes_in_position(std::span<SolverBody> bodies, std::span<const JointConstraint> joints) {
    constexpr int kMaxIterations = 4;  // quadratic convergence from errors the projection left below 1e-6
    JointRows rows;
    for (const JointConstraint& joint : joints) {
        if (!held_in_fixed_plane(joint, bodies)) continue;
        SolverBody& body = bodies[joint.body_a];
        for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
            joint_rows(joint, bodies, rows);
            const Vec3 error(rows.error[0], rows.error[1], rows.error[2]);
            if (error.isZero(0)) break;
            const Vec3 displacement = block_solve(rows, -error);
            Vec3 shift = Vec3::Zero(), turn = Vec3::Zero();
            for (int i = 0; i < 3; ++i) {
                const Row& row = rows.rows[static_cast<std::size_t>(i)];
                shift -= (row.inv_mass_a * displacement[i]) * row.dir;
                turn += displacement[i] * row.inv_ang_a;
            }
            const Quat before = body.orientation;
            body.position += shift;
            body.orientation = rotated(before, turn);
            body.inverse_inertia = world_inverse_inertia(body.orientation, body.inverse_inertia_local);
            body.angular_velocity = (body.orientation * before.conjugate()) * body.angular_velocity;
        }
    }
}

}  // namespace simpulse::detail
