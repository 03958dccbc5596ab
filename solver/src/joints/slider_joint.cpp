// Slider (prismatic) joint: the frames of A and B stay aligned (three angular rows, add_angular_lock_rows)
// and B's anchor stays on the line through A's anchor along the joint axis a (the x axis of the joint frame
// on A). With d = p_b - p_a and p1, p2 the frame's y and z axes on A:
//   C_i = p_i . d = 0,   J_i = [-p_i^T, -((p_b - x_a) x p_i)^T, p_i^T, (r_b x p_i)^T]   (i = 1, 2),
// where A's angular part includes the turn of p_i with A (d/dt p_i . d = p_i . (v_b + w_b x r_b - v_a - w_a
// x r_a) + (w_a x p_i) . d): A's lever is the point of A under B's anchor, p_b - x_a. Catto, "Modeling and
// Solving Constraints" (GDC 2009), prismatic joint. Limits on the travel s = a . d are one-sided rows along
// +-a with the same levers (add_limit_rows); the motor is the row along +a with the target speed and |lambda|
// <= the largest force times the step (add_motor_row).
#include "joint_rows.h"

namespace simpulse::detail {

void slider_joint_rows(const JointConstraint& joint, const JointPose& pose,
                       std::span<const SolverBody> bodies, JointRows& out) {
    const Vec3 separation = pose.anchor_b - pose.anchor_a;
    const Vec3 axis = pose.frame_a * Vec3::UnitX();
    out.linear_error = (separation - axis.dot(separation) * axis).norm();
    out.point_a = pose.anchor_b;
    for (const Vec3& perpendicular : {Vec3(pose.frame_a * Vec3::UnitY()), Vec3(pose.frame_a * Vec3::UnitZ())})
        make_row(add_joint_row(out, perpendicular.dot(separation)), bodies, joint.body_a, joint.body_b,
                 pose.anchor_b, pose.anchor_b, perpendicular);
    const double linear = out.linear_error;
    add_angular_lock_rows(joint, pose, bodies, out);
    out.linear_error = linear;
    if (joint.limit.enabled)
        add_limit_rows(out, slider_travel(pose), joint.limit.lower, joint.limit.upper, false,
                       [&](Row& row, double sign) {
                           make_row(row, bodies, joint.body_a, joint.body_b, pose.anchor_b, pose.anchor_b,
                                    sign * axis);
                       });
    add_motor_row(joint, out, [&](Row& row) {
        make_row(row, bodies, joint.body_a, joint.body_b, pose.anchor_b, pose.anchor_b, axis);
    });
}

double slider_travel(const JointPose& pose) {
    return (pose.frame_a * Vec3::UnitX()).dot(pose.anchor_b - pose.anchor_a);
}

}  // namespace simpulse::detail
