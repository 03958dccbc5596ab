// Public value types of simpulse: Eigen math aliases, rigid poses, the opaque shape handle and the contact
// manifolds a step reports. Double precision throughout (no benchmark has justified single precision).
// Part of the installed API (with world.h, shapes.h, world_types.h, solver_settings.h, result.h, version.h).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <array>
#include <cstdint>
#include <memory>

namespace simpulse {

using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Quat = Eigen::Quaterniond;

// Rigid transform: x_world = position + orientation * x_local.
struct Pose {
    Vec3 position = Vec3::Zero();
    Quat orientation = Quat::Identity();

    Vec3 transform_point(const Vec3& p) const { return position + orientation * p; }
    Vec3 inverse_transform_point(const Vec3& p) const { return orientation.conjugate() * (p - position); }
    Vec3 rotate(const Vec3& v) const { return orientation * v; }
    Vec3 inverse_rotate(const Vec3& v) const { return orientation.conjugate() * v; }
    Pose inverse() const {
        const Quat qi = orientation.conjugate();
        return {-(qi * position), qi};
    }
    // (a * b) maps b's local frame into a's parent frame: x -> a(b(x)).
    friend Pose operator*(const Pose& a, const Pose& b) {
        return {a.position + a.orientation * b.position, a.orientation * b.orientation};
    }
};

// A shape is immutable once made (shapes.h) and shared between bodies; its definition is internal.
struct Shape;
using ShapePtr = std::shared_ptr<const Shape>;

struct CompoundChild {
    ShapePtr shape;  // any convex shape (not a plane, mesh, height field or compound)
    Pose pose;       // child frame in the compound's frame
};

struct ContactPoint {
    Vec3 position = Vec3::Zero();  // world, midway between the two surfaces
    double depth = 0;      // > 0 penetration, 0 touching, < 0 separation (speculative, within the margin)
    std::uint32_t id = 0;  // feature id: stable while the same pair of features touches
};

// One contact patch between shape A and shape B. The normal points from A to B (outward of A).
struct Manifold {
    Vec3 normal = Vec3::UnitZ();
    std::uint32_t sub_a =
        0;  // child / triangle / cell index of A that produced the patch (0 for plain convex)
    std::uint32_t sub_b = 0;
    int count = 0;
    std::array<ContactPoint, 4> points{};
};

}  // namespace simpulse
