// Validated shape construction for the public API: the collision module's factories, returning an error value
// instead of throwing on invalid sizes or degenerate geometry.
#pragma once

#include <simpulse/collision/shape.h>
#include <simpulse/result.h>

namespace simpulse {

Result<ShapePtr> create_sphere(double radius);
Result<ShapePtr> create_box(const Vec3& half_extents);
Result<ShapePtr> create_capsule(double radius, double half_length);
Result<ShapePtr> create_cylinder(double radius, double half_height);
Result<ShapePtr> create_cone(double radius, double half_height);
Result<ShapePtr> create_convex_hull(std::span<const Vec3> points);
Result<ShapePtr> create_plane(const Vec3& normal, double offset);
Result<ShapePtr> create_compound(std::vector<CompoundChild> children);
Result<ShapePtr> create_triangle_mesh(std::vector<Vec3> vertices,
                                      std::vector<std::array<std::uint32_t, 3>> triangles);
Result<ShapePtr> create_height_field(const Vec2& origin, const Vec2& spacing, int rows, int columns,
                                     std::vector<double> heights);

}  // namespace simpulse
