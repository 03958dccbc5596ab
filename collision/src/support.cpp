// Support mappings of the convex shapes (van den Bergen 2003, sect. 4.3.2) and the world-space view used by
// GJK/EPA. Every mapping returns a point of the shape that is exactly extreme in the direction; ties (faces,
// edges, directions along an axis) are broken towards a fixed choice so equal inputs give equal outputs.
#include <simpulse/collision/support.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace simpulse {
namespace {

// Ball of `radius` around the origin: r d / |d|. A zero (or underflowing) direction maps to the top of the
// ball.
inline Vec3 ball_support(double radius, const Vec3& d) {
    const double n2 = d.squaredNorm();
    if (n2 > 0) return d * (radius / std::sqrt(n2));
    return {0, 0, radius};
}

inline Vec3 box_support(const Vec3& h, const Vec3& d) {
    return {d.x() >= 0 ? h.x() : -h.x(), d.y() >= 0 ? h.y() : -h.y(), d.z() >= 0 ? h.z() : -h.z()};
}

// Axis along z. For directions parallel to the axis the whole cap is extreme and its centre is returned; for
// directions perpendicular to it the whole side line is extreme and its top end is returned.
inline Vec3 cylinder_support(double radius, double half_height, const Vec3& d) {
    const double z = d.z() >= 0 ? half_height : -half_height;
    const double rxy2 = d.x() * d.x() + d.y() * d.y();
    if (rxy2 > 0) {
        const double s = radius / std::sqrt(rxy2);
        return {s * d.x(), s * d.y(), z};
    }
    return {0, 0, z};
}

// Apex (0,0,h) against the best rim point (R d_xy/|d_xy|, -h): the apex wins when h dz >= R |d_xy| - h dz.
inline Vec3 cone_support(double radius, double half_height, const Vec3& d) {
    const double rxy2 = d.x() * d.x() + d.y() * d.y();
    const double rxy = std::sqrt(rxy2);
    if (2.0 * half_height * d.z() >= radius * rxy) return {0, 0, half_height};
    if (rxy > 0) {
        const double s = radius / rxy;
        return {s * d.x(), s * d.y(), -half_height};
    }
    return {0, 0, -half_height};
}

inline Vec3 capsule_core_support(double half_length, const Vec3& d) {
    return {0, 0, d.z() >= 0 ? half_length : -half_length};
}

[[noreturn]] void throw_not_convex(const Shape& shape) {
    throw std::invalid_argument(std::string("support mapping of a non-convex shape: ") +
                                shape_type_name(shape.type()));
}

}  // namespace

std::uint32_t hull_support_index(const ConvexHull& hull, const Vec3& dir, std::uint32_t start) {
    const std::size_t n = hull.vertices.size();
    if (n < kHullHillClimbMinVertices || hull.neighbor_offsets.size() != n + 1) {
        std::uint32_t best = 0;
        double best_dot = hull.vertices[0].dot(dir);
        for (std::size_t i = 1; i < n; ++i) {
            const double dot = hull.vertices[i].dot(dir);
            if (dot > best_dot) {
                best_dot = dot;
                best = static_cast<std::uint32_t>(i);
            }
        }
        return best;
    }
    // Strict improvement only, so the walk ends on plateaus (faces orthogonal to dir) after finitely many
    // steps.
    std::uint32_t current = start < n ? start : 0;
    double current_dot = hull.vertices[current].dot(dir);
    for (bool moved = true; moved;) {
        moved = false;
        for (std::uint32_t k = hull.neighbor_offsets[current]; k < hull.neighbor_offsets[current + 1]; ++k) {
            const std::uint32_t j = hull.neighbors[k];
            const double dot = hull.vertices[j].dot(dir);
            if (dot > current_dot) {
                current_dot = dot;
                current = j;
                moved = true;
            }
        }
    }
    return current;
}

double core_radius(const Shape& shape) {
    if (const auto* s = std::get_if<Sphere>(&shape.geometry)) return s->radius;
    if (const auto* c = std::get_if<Capsule>(&shape.geometry)) return c->radius;
    return 0;
}

Vec3 support_core_local(const Shape& shape, const Vec3& dir) {
    switch (shape.type()) {
        case ShapeType::sphere:
            return Vec3::Zero();
        case ShapeType::capsule:
            return capsule_core_support(std::get<Capsule>(shape.geometry).half_length, dir);
        default:
            return support_local(shape, dir);
    }
}

Vec3 support_local(const Shape& shape, const Vec3& dir) {
    switch (shape.type()) {
        case ShapeType::sphere:
            return ball_support(std::get<Sphere>(shape.geometry).radius, dir);
        case ShapeType::box:
            return box_support(std::get<Box>(shape.geometry).half_extents, dir);
        case ShapeType::capsule: {
            const auto& c = std::get<Capsule>(shape.geometry);
            return capsule_core_support(c.half_length, dir) + ball_support(c.radius, dir);
        }
        case ShapeType::cylinder: {
            const auto& c = std::get<Cylinder>(shape.geometry);
            return cylinder_support(c.radius, c.half_height, dir);
        }
        case ShapeType::cone: {
            const auto& c = std::get<Cone>(shape.geometry);
            return cone_support(c.radius, c.half_height, dir);
        }
        case ShapeType::convex_hull: {
            const auto& h = std::get<ConvexHull>(shape.geometry);
            return h.vertices[hull_support_index(h, dir)];
        }
        default:
            throw_not_convex(shape);
    }
}

ConvexSupport::ConvexSupport(const Shape& shape_in, const Pose& pose_in)
    : shape(&shape_in),
      pose(pose_in),
      rotation(pose_in.orientation.toRotationMatrix()),
      radius(core_radius(shape_in)),
      type(shape_in.type()) {
    switch (type) {
        case ShapeType::sphere:
            break;
        case ShapeType::box:
            dims = std::get<Box>(shape_in.geometry).half_extents;
            break;
        case ShapeType::capsule: {
            const auto& c = std::get<Capsule>(shape_in.geometry);
            dims = {c.radius, c.half_length, 0};
            break;
        }
        case ShapeType::cylinder: {
            const auto& c = std::get<Cylinder>(shape_in.geometry);
            dims = {c.radius, c.half_height, 0};
            break;
        }
        case ShapeType::cone: {
            const auto& c = std::get<Cone>(shape_in.geometry);
            dims = {c.radius, c.half_height, 0};
            break;
        }
        case ShapeType::convex_hull:
            hull = &std::get<ConvexHull>(shape_in.geometry);
            if (hull->vertices.empty())
                throw std::invalid_argument("support mapping of a convex hull without vertices");
            break;
        default:
            throw_not_convex(shape_in);
    }
}

Vec3 ConvexSupport::support(const Vec3& d) const {
    // Rotationally symmetric parts (balls, the capsule axis) are mapped in world space: no frame change
    // needed.
    switch (type) {
        case ShapeType::sphere:
            if (core_only) return pose.position;
            return pose.position + ball_support(radius, d);
        case ShapeType::capsule: {
            const Vec3 axis = rotation.col(2);
            const Vec3 p = pose.position + (axis.dot(d) >= 0 ? dims.y() : -dims.y()) * axis;
            return core_only ? p : Vec3(p + ball_support(radius, d));
        }
        case ShapeType::box:
            return pose.position + rotation * box_support(dims, rotation.transpose() * d);
        case ShapeType::cylinder:
            return pose.position + rotation * cylinder_support(dims.x(), dims.y(), rotation.transpose() * d);
        case ShapeType::cone:
            return pose.position + rotation * cone_support(dims.x(), dims.y(), rotation.transpose() * d);
        case ShapeType::convex_hull:
            return pose.position +
                   rotation * hull->vertices[hull_support_index(*hull, rotation.transpose() * d)];
        default:
            return pose.position;  // unreachable: the constructor accepts convex shapes only
    }
}

Vec3 ConvexSupport::center() const {
    if (type != ShapeType::convex_hull) return pose.position;  // primitives contain their local origin
    // A hull from make_convex_hull carries its volume centroid; a hand-filled one (vertices only) does not.
    if (!hull->faces.empty()) return pose.position + rotation * hull->centroid;
    Vec3 mean = Vec3::Zero();
    for (const Vec3& v : hull->vertices) mean += v;
    return pose.transform_point(mean / static_cast<double>(hull->vertices.size()));
}

}  // namespace simpulse
