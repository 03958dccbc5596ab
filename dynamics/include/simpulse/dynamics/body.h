// Rigid bodies as the dynamics module stores them: handles, creation descriptors and the per-body record.
// Position and orientation seen from outside always mean the body frame (the shape's local origin); the
// integrator works on the centre of mass, which sits at `local_center_of_mass` in that frame.
#pragma once

#include <simpulse/collision/shape.h>
#include <simpulse/dynamics/mass_properties.h>

#include <cstdint>
#include <limits>
#include <optional>

namespace simpulse {

inline constexpr std::uint32_t kInvalidIndex = std::numeric_limits<std::uint32_t>::max();

// Generational handle: stays invalid after its body is destroyed, even if the slot is reused.
struct BodyId {
    std::uint32_t index = kInvalidIndex;
    std::uint32_t generation = 0;
    friend bool operator==(const BodyId&, const BodyId&) = default;
};

using MaterialId = std::uint32_t;

// Which rotation step integrate_velocities prepared a body's angular velocity for (integrator.h).
enum class RotationStep : std::uint8_t { midpoint, chord_midpoint, substeps };

struct BodyDesc {
    ShapePtr shape;
    Pose pose;                             // body frame in the world
    Vec3 velocity = Vec3::Zero();          // of the centre of mass, world
    Vec3 angular_velocity = Vec3::Zero();  // world, rad/s
    bool is_static = false;
    double density = 1000;       // used when mass is not given
    std::optional<double> mass;  // overrides density (inertia scaled to match)
    MaterialId material = 0;
    std::uint64_t user_data = 0;
};

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
    ShapePtr shape;
    MaterialId material = 0;
    std::uint64_t user_data = 0;
    std::uint64_t creation_order = 0;  // monotonic; orders event pairs as the bodies were created
    std::int32_t proxy = -1;           // broad-phase proxy
    Aabb bounds;                       // tight box plus half the contact margin and the reach of this step
    std::uint32_t generation = 0;
    bool is_static = false;
    bool alive = false;
    bool asleep = false;             // at rest: not integrated, not solved, not collided with other sleepers
    double sleep_time = 0;           // how long the body has moved slower than WorldSettings::sleep_speed, s
    std::uint32_t sleep_island = 0;  // bodies that fell asleep together wake together
    // Set by integrate_velocities for integrate_positions: which rotation step this step's w is meant for.
    RotationStep rotation_step = RotationStep::midpoint;

    Pose pose() const { return {com_position - orientation * local_center_of_mass, orientation}; }
    Vec3 world_center_of_mass() const { return com_position; }
    Mat3 inertia_world() const {
        const Mat3 r = orientation.toRotationMatrix();
        return r * inertia_local * r.transpose();
    }
};

}  // namespace simpulse
