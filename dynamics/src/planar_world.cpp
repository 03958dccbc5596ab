// Planar worlds (WorldSettings::planar): every awake dynamic body gets a planar joint against the fixed world
// frame (solver/src/joints/planar_joint.cpp) whose plane is world xy through the body's centre of mass where
// it entered the plane, so the solver holds its height and its tilt with the other constraints of its island
// (the thesis' 2-D experiments, chapter 5, run as 3-D bodies held in a plane). The rows are appended after
// the joints' and have no slot in joints_: they report no reaction and keep no body awake.
#include <simpulse/dynamics/world.h>

namespace simpulse {
namespace {

// The joint frame whose x axis is world z (the plane's normal); its y and z axes are world x and y.
Quat plane_normal_frame() {
    Mat3 m;
    m.col(0) = Vec3::UnitZ();
    m.col(1) = Vec3::UnitX();
    m.col(2) = Vec3::UnitY();
    return Quat(m);
}

}  // namespace

void DynamicsWorld::hold_in_plane() {
    if (!settings_.planar) {
        if (!any_in_plane_) return;
        for (Body& b : bodies_) b.in_plane = false;  // turned off: a later planar world takes poses anew
        any_in_plane_ = false;
        return;
    }
    const Quat normal_frame = plane_normal_frame();
    for (std::size_t i = 0; i < bodies_.size(); ++i) {
        Body& b = bodies_[i];
        if (!b.alive || b.is_static || b.cable != kInvalidIndex) continue;  // cables are not held (no spin)
        if (!b.in_plane) {
            b.in_plane = true;
            b.plane_point = b.com_position;
            b.plane_frame = (b.orientation.conjugate() * normal_frame).normalized();
            any_in_plane_ = true;
        }
        if (b.asleep) continue;  // still to the solver: nothing to hold
        JointConstraint c;
        c.type = JointType::planar;
        c.body_a = static_cast<std::uint32_t>(i);
        c.local_anchor_a = Vec3::Zero();  // the centre of mass
        c.local_frame_a = b.plane_frame;
        c.body_b = kFixedFrame;
        c.local_anchor_b = b.plane_point;
        c.local_frame_b = normal_frame;
        joint_rows_.push_back(c);
    }
}

}  // namespace simpulse
