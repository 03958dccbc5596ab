// Distance joint: the anchors p_a, p_b keep their distance L = |p_b - p_a| within [min, max]. A rod (min =
// max = L0) is one row along n = (p_b - p_a) / L:
//   C = L - L0 = 0,   J = [-n^T, -(r_a x n)^T, n^T, (r_b x n)^T];
// otherwise (a rope: min 0) one-sided rows along +n at min and -n at max (add_limit_rows).
// The curvature target that keeps a swinging rod's length over a step (joint_targets.cpp) adds the
// centripetal part |u_perp|^2 / (2 L dt) of the anchors' relative displacement u. Catto, "Modeling and
// Solving Constraints" (GDC 2009), distance joint.
#include "joint_rows.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace simpulse::detail {
namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}  // namespace

void distance_joint_rows(const JointConstraint& joint, const JointPose& pose,
                         std::span<const SolverBody> bodies, JointRows& out) {
    const Vec3 separation = pose.anchor_b - pose.anchor_a;
    const double length = separation.norm();
    // Coinciding anchors have no direction: a rod is created with its anchors apart (validated), and a rope
    // whose anchors meet is far from its limit; the fixed direction only keeps the row finite.
    const Vec3 direction = length > 1e-12 ? Vec3(separation / length) : Vec3(Vec3::UnitZ());
    auto make = [&](Row& row, double sign) {
        make_row(row, bodies, joint.body_a, joint.body_b, pose.anchor_a, pose.anchor_b, sign * direction);
    };
    if (joint.min_length == joint.max_length) {  // a rod
        const double error = length - joint.min_length;
        out.linear_error = std::abs(error);
        make(add_joint_row(out, error), 1.0);
        return;
    }
    // A rope (min 0) or a rod with play: one-sided rows at the limits, a lower limit of 0 none.
    add_limit_rows(out, length, joint.min_length > 0 ? joint.min_length : -kInfinity, joint.max_length, false,
                   make);
}

}  // namespace simpulse::detail
