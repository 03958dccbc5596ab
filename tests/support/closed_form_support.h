// Support values of the convex primitives written from their geometry (not from collision's support_local),
// the independent reference the GJK/EPA tests and the libccd oracle check support mappings and depths
// against.
#pragma once

#include <simpulse/collision/shape.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

namespace simpulse::test {

// max over the shape of d.x in the shape's local frame, d a unit vector.
inline double support_value_local(const Shape& shape, const Vec3& d) {
    switch (shape.type()) {
        case ShapeType::sphere:
            return std::get<Sphere>(shape.geometry).radius;
        case ShapeType::box:
            return std::get<Box>(shape.geometry).half_extents.dot(d.cwiseAbs());
        case ShapeType::capsule: {
            const auto& c = std::get<Capsule>(shape.geometry);
            return c.half_length * std::abs(d.z()) + c.radius;
        }
        case ShapeType::cylinder: {
            const auto& c = std::get<Cylinder>(shape.geometry);
            return c.half_height * std::abs(d.z()) + c.radius * std::hypot(d.x(), d.y());
        }
        case ShapeType::cone: {
            const auto& c = std::get<Cone>(shape.geometry);
            return std::max(c.half_height * d.z(),
                            -c.half_height * d.z() + c.radius * std::hypot(d.x(), d.y()));
        }
        default: {
            double best = -std::numeric_limits<double>::infinity();
            for (const Vec3& v : std::get<ConvexHull>(shape.geometry).vertices)
                best = std::max(best, v.dot(d));
            return best;
        }
    }
}

}  // namespace simpulse::test
