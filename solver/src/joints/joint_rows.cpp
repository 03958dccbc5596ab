// The joint row dispatch and the parts several joint types share: the anchors' point rows and the angular
// lock of two frames.
#include "joint_rows.h"

#include <algorithm>
#include <cmath>

namespace simpulse::detail {

JointPose joint_pose(const JointConstraint& joint, std::span<const SolverBody> bodies) {
    auto point = [&](std::uint32_t body, const Vec3& local) {
        return body == kFixedFrame ? local : Vec3(bodies[body].position + bodies[body].orientation * local);
    };
    auto frame = [&](std::uint32_t body, const Quat& local) {
        return body == kFixedFrame ? local : Quat(bodies[body].orientation * local);
    };
    return {point(joint.body_a, joint.local_anchor_a), point(joint.body_b, joint.local_anchor_b),
            frame(joint.body_a, joint.local_frame_a), frame(joint.body_b, joint.local_frame_b)};
}

void joint_rows(const JointConstraint& joint, std::span<const SolverBody> bodies, JointRows& out) {
    out.count = 0;
    out.linear_error = out.angular_error = 0;
    const JointPose pose = joint_pose(joint, bodies);
    out.point_a = pose.anchor_a;
    out.point_b = pose.anchor_b;
    switch (joint.type) {
        case JointType::ball:
            ball_joint_rows(joint, pose, bodies, out);
            break;
        case JointType::hinge:
            hinge_joint_rows(joint, pose, bodies, out);
            break;
        case JointType::fixed:
            fixed_joint_rows(joint, pose, bodies, out);
            break;
        case JointType::slider:
            slider_joint_rows(joint, pose, bodies, out);
            break;
        case JointType::distance:
            distance_joint_rows(joint, pose, bodies, out);
            break;
        case JointType::planar:
            planar_joint_rows(joint, pose, bodies, out);
            break;
    }
}

Row& add_joint_row(JointRows& out, double error) {
    const auto slot = static_cast<std::size_t>(out.count++);
    out.error[slot] = error;
    Row& row = out.rows[slot];
    row = Row{};
    row.kind = RowKind::joint;
    row.slot = static_cast<std::uint8_t>(slot);
    return row;
}

// C = p_b - p_a = 0, three rows along the world axes: J = [-1, (r_a x e)^T, 1, -(r_b x e)^T] per axis e
// (Catto, "Modeling and Solving Constraints", GDC 2009, point-to-point constraint).
void add_point_rows(const JointConstraint& joint, const JointPose& pose, std::span<const SolverBody> bodies,
                    JointRows& out) {
    const Vec3 separation = pose.anchor_b - pose.anchor_a;
    out.linear_error = separation.norm();
    for (int axis = 0; axis < 3; ++axis)
        make_row(add_joint_row(out, separation[axis]), bodies, joint.body_a, joint.body_b, pose.anchor_a,
                 pose.anchor_b, Vec3::Unit(axis));
}

// C = theta, the rotation vector of q_b q_a^-1 (the frames' relative rotation), three angular rows along the
// world axes: J = [0, -e^T, 0, e^T]. Turning B by -theta closes the joint; the rows' Jacobian is that of a
// small rotation, exact at theta = 0 (the projection iterates to convergence).
void add_angular_lock_rows(const JointConstraint& joint, const JointPose& pose,
                           std::span<const SolverBody> bodies, JointRows& out) {
    const Vec3 theta = rotation_vector(pose.frame_b * pose.frame_a.conjugate());
    out.angular_error = theta.norm();
    for (int axis = 0; axis < 3; ++axis)
        make_twist_row(add_joint_row(out, theta[axis]), bodies, joint.body_a, joint.body_b, Vec3::Unit(axis));
}

Vec3 rotation_vector(const Quat& q) {
    const double sign = q.w() < 0 ? -1.0 : 1.0;  // the shorter of the two rotations q and -q describe
    const Vec3 v = sign * q.vec();
    const double s = v.norm();
    if (!(s > 1e-300)) return 2 * v;
    return (2 * std::atan2(s, sign * q.w()) / s) * v;
}

}  // namespace simpulse::detail

namespace simpulse {

double joint_error(const JointConstraint& joint, std::span<const SolverBody> bodies) {
    detail::JointRows rows;
    detail::joint_rows(joint, bodies, rows);
    return std::max(rows.linear_error, rows.angular_error);
}

}  // namespace simpulse
