// Rigid bodies as the dynamics module stores them: the per-body record (handles and creation descriptors are
// public, in simpulse/world_types.h).
// Position and orientation seen from outside always mean the body frame (the shape's local origin); the
// integrator works on the centre of mass, which sits at `local_center_of_mass` in that frame.
#pragma once

#include <simpulse/collision/shape.h>
#include <simpulse/dynamics/mass_properties.h>
#include <simpulse/world_types.h>

#include <cstdint>
#include <limits>
#include <optional>

namespace simpulse {

// Which rotation step integrate_velocities prepared a body's angular velocity for (integrator.h).
enum class RotationStep : std::uint8_t { midpoint, chord_midpoint, substeps };

struct Body {
    // Hot motion state (centre of mass).
    Vec3 com_position = Vec3::Zero();
    Quat orientation = Quat::Identity();
    Vec3 velocity = Vec3::Zero();
    Vec3 angular_velocity = Vec3::Zero();
    double inverse_mass = 0;
    Mat3 inverse_inertia_local = Mat3::Zero();
    Mat3 inverse_inertia_world = Mat3::Zero();
    // Accumulated external force and torque (world, about the centre of mass), cleared after each step.
    Vec3 force = Vec3::Zero();
    Vec3 torque = Vec3::Zero();
    // Cold data.
    double mass = 0;
    Mat3 inertia_local = Mat3::Zero();  // about the centre of mass, body axes
    Vec3 local_center_of_mass = Vec3::Zero();
    double bounding_radius = 0;  // bound on the distance of the shape's points from the centre of mass
    double smallest_extent = 0;  // the shape's thinnest width (smallest_extent, time_of_impact.h)
    ShapePtr shape;
    MaterialId material = 0;
    bool ccd = true;                    // BodyDesc::ccd
    std::uint32_t collision_group = 1;  // BodyDesc::collision_group, collision_mask
    std::uint32_t collision_mask = 0xffffffffu;
    std::uint64_t user_data = 0;
    std::uint64_t creation_order = 0;  // monotonic; orders event pairs as the bodies were created
    std::int32_t proxy = -1;           // broad-phase proxy
    Aabb bounds;                       // tight box plus half the contact margin and the reach of this step
    std::uint32_t generation = 0;
    std::uint32_t cable = kInvalidIndex;  // a cable's control point: the cable's slot (cable.h)
    bool is_static = false;
    bool alive = false;
    bool asleep = false;             // at rest: not integrated, not solved, not collided with other sleepers
    double sleep_time = 0;           // how long the body has moved slower than WorldSettings::sleep_speed, s
    std::uint32_t sleep_island = 0;  // bodies that fell asleep together wake together
    // Set by integrate_velocities for integrate_positions: which rotation step this step's w is meant for.
    RotationStep rotation_step = RotationStep::midpoint;
    // Planar worlds (WorldSettings::planar): the world point its centre of mass is held in the plane of, and
    // the planar joint's frame on the body (x axis along world z); `in_plane` is false until the step takes
    // them from the body's pose.
    bool in_plane = false;
    Vec3 plane_point = Vec3::Zero();
    Quat plane_frame = Quat::Identity();

    Pose pose() const { return {com_position - orientation * local_center_of_mass, orientation}; }
    Vec3 world_center_of_mass() const { return com_position; }
    Mat3 inertia_world() const {
        const Mat3 r = orientation.toRotationMatrix();
        return r * inertia_local * r.transpose();
    }
};

}  // namespace simpulse
