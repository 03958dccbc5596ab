// Planar joint: A's anchor stays in the plane through B's anchor across the joint axis n (the x axis of the
// joint frame as B carries it), and A turns relative to B only about n; A slides freely in the plane and
// spins about n (ODE's Plane2D joint, with the plane on B). A planar world (WorldSettings::planar) holds
// every dynamic body so against the fixed world frame, which keeps its position along world z and its
// rotation about x and y at their values when it was put in the plane. With d = p_b - p_a:
//   C_0 = n . d = 0,   J_0 = [-n^T, -(r_a x n)^T, n^T, ((p_a - x_b) x n)^T],
// B's lever the point of B at A's anchor, as n turns with B (the slider's rows with A and B exchanged:
// d/dt n . d = n . (v_b + w_b x (p_a - x_b) - v_a - w_a x r_a) at d = 0 along n). The angular rows are the
// hinge's, with p1, p2 the frame's y and z axes on B:
//   C_i = p_i . (a x n) = 0,   J_i = [0, -p_i^T, 0, p_i^T]   (i = 1, 2),
// a the axis as A carries it (hinge_joint.cpp has the derivative; p_i turning with B instead of A changes
// C_i only at second order, as a x n = 0 at the solution). Catto, "Modeling and Solving Constraints" (GDC
// 2009), prismatic and revolute joints.
#include "joint_rows.h"

#include <algorithm>
#include <cmath>

namespace simpulse::detail {

void planar_joint_rows(const JointConstraint& joint, const JointPose& pose,
                       std::span<const SolverBody> bodies, JointRows& out) {
    const Vec3 normal = pose.frame_b * Vec3::UnitX();
    const double height = normal.dot(pose.anchor_b - pose.anchor_a);
    out.linear_error = std::abs(height);
    out.point_b = pose.anchor_a;
    make_row(add_joint_row(out, height), bodies, joint.body_a, joint.body_b, pose.anchor_a, pose.anchor_a,
             normal);
    const Vec3 misalignment = (pose.frame_a * Vec3::UnitX()).cross(normal);
    out.angular_error = std::asin(std::min(1.0, misalignment.norm()));
    for (const Vec3& perpendicular : {Vec3(pose.frame_b * Vec3::UnitY()), Vec3(pose.frame_b * Vec3::UnitZ())})
        make_twist_row(add_joint_row(out, perpendicular.dot(misalignment)), bodies, joint.body_a,
                       joint.body_b, perpendicular);
}

}  // namespace simpulse::detail
