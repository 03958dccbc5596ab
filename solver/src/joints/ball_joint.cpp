// Ball (spherical) joint: one point of A and one point of B coincide, C = p_b - p_a = 0 (three rows, see
// add_point_rows). The bodies turn freely about the point. Thesis section 4.3 (joint rows in the
// simultaneous system, eq. 21-22).
#include "joint_rows.h"

namespace simpulse::detail {

void ball_joint_rows(const JointConstraint& joint, const JointPose& pose, std::span<const SolverBody> bodies,
                     JointRows& out) {
    add_point_rows(joint, pose, bodies, out);
}

}  // namespace simpulse::detail
