// Hinge (revolute) joint: the anchors coincide (three point rows) and B turns relative to A only about the
// joint axis a (the x axis of the joint frame). With a the axis as A carries it, b as B carries it, and p1,
// p2 the frame's y and z axes on A (perpendicular to a), the two angular rows are
//   C_i = p_i . (a x b) = 0,   J_i = [0, -p_i^T, 0, p_i^T]   (i = 1, 2),
// the derivative at a = b (turning B by d changes a x b by a x (d x b) = d - b (a . d), whose p_i part is
// p_i . d). Catto, "Modeling and Solving Constraints" (GDC 2009), revolute joint; Box2D v3 and Jolt
// (HingeConstraint, RotationEulerConstraintPart's two-row variant) use the same pair of rows.
// Limits on the hinge angle theta (B's y axis from A's, about a; atan2, so |theta| <= pi) are one-sided rows
// along +-a: J = [0, -a^T, 0, a^T], d theta / dt = a . (w_b - w_a) (add_limit_rows); the motor is the row
// along +a with the target speed and |lambda| <= the largest torque times the step (add_motor_row).
#include "joint_rows.h"

#include <algorithm>
#include <cmath>

namespace simpulse::detail {

void hinge_joint_rows(const JointConstraint& joint, const JointPose& pose, std::span<const SolverBody> bodies,
                      JointRows& out) {
    add_point_rows(joint, pose, bodies, out);
    const Vec3 axis_a = pose.frame_a * Vec3::UnitX();
    const Vec3 axis_b = pose.frame_b * Vec3::UnitX();
    const Vec3 misalignment = axis_a.cross(axis_b);
    out.angular_error = std::asin(std::min(1.0, misalignment.norm()));
    for (const Vec3& perpendicular : {Vec3(pose.frame_a * Vec3::UnitY()), Vec3(pose.frame_a * Vec3::UnitZ())})
        make_twist_row(add_joint_row(out, perpendicular.dot(misalignment)), bodies, joint.body_a,
                       joint.body_b, perpendicular);
    if (joint.limit.enabled)
        add_limit_rows(out, hinge_angle(pose), joint.limit.lower, joint.limit.upper, true,
                       [&](Row& row, double sign) {
                           make_twist_row(row, bodies, joint.body_a, joint.body_b, sign * axis_a);
                       });
    add_motor_row(joint, out,
                  [&](Row& row) { make_twist_row(row, bodies, joint.body_a, joint.body_b, axis_a); });
}

double hinge_angle(const JointPose& pose) {
    const Vec3 axis = pose.frame_a * Vec3::UnitX();
    const Vec3 from = pose.frame_a * Vec3::UnitY(), to = pose.frame_b * Vec3::UnitY();
    return std::atan2(from.cross(to).dot(axis), from.dot(to));
}

}  // namespace simpulse::detail
