// Math vocabulary of the collision module: the public math types (simpulse/types.h) and axis-aligned boxes.
#pragma once

#include <simpulse/types.h>

#include <algorithm>
#include <limits>

namespace simpulse {

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
