// Math vocabulary of the collision module: Eigen aliases, rigid poses and axis-aligned boxes.
// Double precision throughout (see README: no benchmark has justified single precision).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <algorithm>
#include <limits>

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

// Axis-aligned bounding box. An empty box has min > max.
struct Aabb {
    Vec3 min = Vec3::Constant(std::numeric_limits<double>::infinity());
    Vec3 max = Vec3::Constant(-std::numeric_limits<double>::infinity());

    static Aabb from_center_half(const Vec3& c, const Vec3& h) { return {c - h, c + h}; }
    bool empty() const { return (min.array() > max.array()).any(); }
    bool overlaps(const Aabb& o) const {
        return (min.array() <= o.max.array()).all() && (o.min.array() <= max.array()).all();
    }
    bool contains(const Aabb& o) const {
        return (min.array() <= o.min.array()).all() && (o.max.array() <= max.array()).all();
    }
    void grow(const Vec3& p) {
        min = min.cwiseMin(p);
        max = max.cwiseMax(p);
    }
    void grow(const Aabb& o) {
        min = min.cwiseMin(o.min);
        max = max.cwiseMax(o.max);
    }
    Aabb inflated(double margin) const { return {min.array() - margin, max.array() + margin}; }
    Vec3 center() const { return 0.5 * (min + max); }
    Vec3 half_extents() const { return 0.5 * (max - min); }
    double surface_area() const {
        const Vec3 d = max - min;
        return 2.0 * (d.x() * d.y() + d.y() * d.z() + d.z() * d.x());
    }
    static Aabb merged(const Aabb& a, const Aabb& b) {
        return {a.min.cwiseMin(b.min), a.max.cwiseMax(b.max)};
    }
};

}  // namespace simpulse
