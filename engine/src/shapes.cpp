// Validated shape construction: the collision factories with their ShapeError turned into an error value
// (guarded.h).
#include <simpulse/shapes.h>

#include <simpulse/collision/shape.h>

#include "guarded.h"

namespace simpulse {

Result<ShapePtr> create_sphere(double radius) {
    return guarded_value<ShapePtr>([&] { return make_sphere(radius); });
}
Result<ShapePtr> create_box(const Vec3& half_extents) {
    return guarded_value<ShapePtr>([&] { return make_box(half_extents); });
}
Result<ShapePtr> create_capsule(double radius, double half_length) {
    return guarded_value<ShapePtr>([&] { return make_capsule(radius, half_length); });
}
Result<ShapePtr> create_cylinder(double radius, double half_height) {
    return guarded_value<ShapePtr>([&] { return make_cylinder(radius, half_height); });
}
Result<ShapePtr> create_cone(double radius, double half_height) {
    return guarded_value<ShapePtr>([&] { return make_cone(radius, half_height); });
}
Result<ShapePtr> create_convex_hull(std::span<const Vec3> points) {
    return guarded_value<ShapePtr>([&] { return make_convex_hull(points); });
}
Result<ShapePtr> create_plane(const Vec3& normal, double offset) {
    return guarded_value<ShapePtr>([&] { return make_plane(normal, offset); });
}
Result<ShapePtr> create_compound(std::vector<CompoundChild> children) {
    return guarded_value<ShapePtr>([&] { return make_compound(std::move(children)); });
}
Result<ShapePtr> create_triangle_mesh(std::vector<Vec3> vertices,
                                      std::vector<std::array<std::uint32_t, 3>> triangles) {
    return guarded_value<ShapePtr>(
        [&] { return make_triangle_mesh(std::move(vertices), std::move(triangles)); });
}
Result<ShapePtr> create_height_field(const Vec2& origin, const Vec2& spacing, int rows, int columns,
                                     std::vector<double> heights) {
    return guarded_value<ShapePtr>(
        [&] { return make_height_field(origin, spacing, rows, columns, std::move(heights)); });
}

Result<ShapePtr> create_prism(std::vector<std::vector<Vec2>> boundaries, double thickness, double tolerance) {
    return guarded_value<ShapePtr>([&] { return make_prism(std::move(boundaries), thickness, tolerance); });
}

}  // namespace simpulse
