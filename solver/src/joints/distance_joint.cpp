// Distance joint: the anchors p_a, p_b keep the distance L = |p_b - p_a| at min_length (a rod, when min =
// max). One row along n = (p_b - p_a) / L:
//   C = L - L0 = 0,   J = [-n^T, -(r_a x n)^T, n^T, (r_b x n)^T].
// The curvature target that keeps a swinging rod's length over a step (joint_targets.cpp) adds the
// centripetal part |u_perp|^2 / (2 L dt) of the anchors' relative displacement u. Catto, "Modeling and
// Solving Constraints" (GDC 2009), distance joint.
#include "joint_rows.h"

#include <algorithm>
#include <cmath>

namespace simpulse::detail {

void distance_joint_rows(const JointConstraint& joint, const JointPose& pose,
                         std::span<const SolverBody> bodies, JointRows& out) {
    const Vec3 separation = pose.anchor_b - pose.anchor_a;
    const double length = separation.norm();
    // Anchors that coincide have no direction: the rows of a ball joint would over-constrain a rod of length
    // 0 less than a guessed direction does, and a rod is created with its anchors apart (validated).
    const Vec3 direction = length > 1e-12 ? Vec3(separation / length) : Vec3(Vec3::UnitZ());
    const double error = length - std::clamp(length, joint.min_length, joint.max_length);
    out.linear_error = std::abs(error);
    make_row(add_joint_row(out, error), bodies, joint.body_a, joint.body_b, pose.anchor_a, pose.anchor_b,
             direction);
}

}  // namespace simpulse::detail
