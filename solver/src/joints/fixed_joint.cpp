// Fixed joint (weld): the anchors coincide (three point rows) and the frames of A and B stay aligned (three
// angular rows, add_angular_lock_rows): six rows, the bodies move as one. Catto, "Modeling and Solving
// Constraints" (GDC 2009), weld joint.
#include "joint_rows.h"

namespace simpulse::detail {

void fixed_joint_rows(const JointConstraint& joint, const JointPose& pose, std::span<const SolverBody> bodies,
                      JointRows& out) {
    add_point_rows(joint, pose, bodies, out);
    add_angular_lock_rows(joint, pose, bodies, out);
}

}  // namespace simpulse::detail
