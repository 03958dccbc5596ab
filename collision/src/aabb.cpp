// compute_aabb: bounding boxes of every shape at a pose. Tight closed forms for the primitives (support
// functions along the world axes: a box's half extents |R| h; a disc of radius r with unit axis a reaches
// r sqrt(1 - a_i^2) along axis i, which gives the cylinder and cone, cf. Strashnov & Torgashev 2020, sect.
// II), rotated vertices for hulls and meshes, children for compounds, the rotated local box for height
// fields.
#include <simpulse/collision/shape.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace simpulse {
namespace {

// Reach of a disc of unit radius with unit normal a along each world axis: sqrt(1 - a_i^2).
Vec3 disc_reach(const Vec3& a) {
    return (1.0 - a.array().square()).max(0.0).sqrt().matrix();
}

Aabb box_of_local_box(const Aabb& local, const Pose& pose) {
    const Mat3 abs_rotation = pose.orientation.toRotationMatrix().cwiseAbs();
    return Aabb::from_center_half(pose.transform_point(local.center()), abs_rotation * local.half_extents());
}

Aabb points_box(const std::vector<Vec3>& points, const Pose& pose) {
    const Mat3 r = pose.orientation.toRotationMatrix();
    Aabb box;
    for (const Vec3& p : points) box.grow(r * p);
    box.min += pose.position;
    box.max += pose.position;
    return box;
}

}  // namespace

Aabb compute_aabb(const Shape& shape, const Pose& pose) {
    const Vec3& c = pose.position;
    switch (shape.type()) {
        case ShapeType::sphere:
            return Aabb::from_center_half(c, Vec3::Constant(std::get<Sphere>(shape.geometry).radius));
        case ShapeType::box: {
            const Vec3& h = std::get<Box>(shape.geometry).half_extents;
            return Aabb::from_center_half(c, pose.orientation.toRotationMatrix().cwiseAbs() * h);
        }
        case ShapeType::capsule: {
            const auto& s = std::get<Capsule>(shape.geometry);
            const Vec3 axis = pose.rotate(Vec3::UnitZ());
            return Aabb::from_center_half(c, axis.cwiseAbs() * s.half_length + Vec3::Constant(s.radius));
        }
        case ShapeType::cylinder: {
            const auto& s = std::get<Cylinder>(shape.geometry);
            const Vec3 axis = pose.rotate(Vec3::UnitZ());
            return Aabb::from_center_half(c, axis.cwiseAbs() * s.half_height + s.radius * disc_reach(axis));
        }
        case ShapeType::cone: {
            // Apex at c + h a, base disc centred at c - h a: the box of the apex and the base disc's box.
            const auto& s = std::get<Cone>(shape.geometry);
            const Vec3 axis = pose.rotate(Vec3::UnitZ());
            Aabb box = Aabb::from_center_half(c - s.half_height * axis, s.radius * disc_reach(axis));
            box.grow(c + s.half_height * axis);
            return box;
        }
        case ShapeType::convex_hull:
            return points_box(std::get<ConvexHull>(shape.geometry).vertices, pose);
        case ShapeType::plane: {
            constexpr double inf = std::numeric_limits<double>::infinity();
            return {Vec3::Constant(-inf), Vec3::Constant(inf)};
        }
        case ShapeType::compound: {
            Aabb box;
            for (const CompoundChild& child : std::get<Compound>(shape.geometry).children)
                box.grow(compute_aabb(*child.shape, pose * child.pose));
            return box;
        }
        case ShapeType::prism:
            return compute_aabb(*std::get<Prism>(shape.geometry).hulls, pose);
        case ShapeType::triangle_mesh:
            return points_box(std::get<TriangleMesh>(shape.geometry).vertices, pose);
        case ShapeType::height_field: {
            const auto& f = std::get<HeightField>(shape.geometry);
            const HeightField::Level& top = f.levels.back();
            const Vec2 far = f.origin + Vec2((f.columns - 1) * f.spacing.x(), (f.rows - 1) * f.spacing.y());
            // Solid below its surface: a body that went through within a step is still paired with it and
            // pushed back up (mesh_contacts.h), down to a depth of the field's larger horizontal size.
            const double depth = std::max(far.x() - f.origin.x(), far.y() - f.origin.y());
            const Aabb local{Vec3(f.origin.x(), f.origin.y(), top.min_height[0] - depth),
                             Vec3(far.x(), far.y(), top.max_height[0])};
            return box_of_local_box(local, pose);
        }
    }
    return {};
}

}  // namespace simpulse
