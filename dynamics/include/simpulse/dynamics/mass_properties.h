// Mass, centre of mass and inertia tensor of shapes from their geometry and density (thesis chapter 2).
// Closed forms for the primitives; signed tetrahedra for closed triangle meshes and convex hulls;
// parallel-axis sums for compounds.
#pragma once

#include <simpulse/collision/shape.h>

#include <array>
#include <cstdint>
#include <span>

namespace simpulse {

struct MassProperties {
    double mass = 0;
    double volume = 0;
    Vec3 center_of_mass = Vec3::Zero();  // in the shape's local frame
    Mat3 inertia = Mat3::Zero();         // about the centre of mass, axes of the local frame
};

// Throws ShapeError for shapes without volume (plane, height field, open or inverted meshes) or density <= 0.
MassProperties compute_mass_properties(const Shape& shape, double density);

// Closed, outward-oriented (counter-clockwise seen from outside) triangle mesh, by signed tetrahedra from a
// reference point near the vertex mean (keeps the cancellation small for meshes far from the origin).
MassProperties mesh_mass_properties(std::span<const Vec3> vertices,
                                    std::span<const std::array<std::uint32_t, 3>> triangles, double density);

// The same body with its mass scaled so that it weighs `mass` (inertia scales along).
MassProperties with_mass(const MassProperties& properties, double mass);

// Inertia tensor of `properties` moved to the point `p` of the local frame (parallel-axis theorem).
Mat3 inertia_about(const MassProperties& properties, const Vec3& p);

}  // namespace simpulse
