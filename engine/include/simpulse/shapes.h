// Validated shape construction for the public API: every factory returns the shape, shared and immutable, or
// an error value naming the argument (ErrorCode::invalid_argument for invalid sizes or degenerate geometry).
// Primitives are centred on their local origin; axis-symmetric ones have their axis along local z.
#pragma once

#include <simpulse/result.h>
#include <simpulse/types.h>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

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
// Extruded polygon with holes: boundaries[0] the outer boundary (counter-clockwise), the others holes
// (clockwise), points in the local xy plane; `thickness` along local z, symmetric about z = 0; `tolerance`
// the convex decomposition's quality threshold in [0, 1) (0: exact convex parts).
Result<ShapePtr> create_prism(std::vector<std::vector<Vec2>> boundaries, double thickness,
                              double tolerance = 0);

}  // namespace simpulse
