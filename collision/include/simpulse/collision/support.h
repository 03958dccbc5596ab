// Support mappings of the convex shapes, in the local frame and as a world-space view for GJK/EPA.
// s(d) = argmax over x in the shape of d . x (van den Bergen, "Collision Detection in Interactive 3D
// Environments", 2003, sect. 4.3.2). Shapes are split into a core and a radius (sect. 4.3.3: a sphere is a
// point swept by a ball, a capsule a segment swept by a ball, every other shape is its own core with radius
// 0), so that GJK runs on the cores and distances and points are inflated exactly by the radii afterwards.
#pragma once

#include <simpulse/collision/shape.h>

#include <cstddef>
#include <cstdint>

namespace simpulse {

// Support point of the full shape in its local frame: a point x of the shape that maximises dir . x. When a
// whole face/edge maximises, any of its points may be returned. `dir` need not be unit; a zero `dir` returns
// some point of the shape. Throws std::invalid_argument when the shape is not convex (see is_convex).
Vec3 support_local(const Shape& shape, const Vec3& dir);

// Radius of the ball swept over the core: sphere and capsule radius, 0 for every other convex shape.
double core_radius(const Shape& shape);

// Support point of the core (the shape shrunk by core_radius) in the local frame: the centre of a sphere, the
// nearer end of a capsule's segment, the shape itself otherwise.
Vec3 support_core_local(const Shape& shape, const Vec3& dir);

// A convex shape placed in the world, as GJK/EPA see it. Cheap to build (caches the rotation matrix); holds a
// non-owning pointer to the shape, which must outlive the view.
struct ConvexSupport {
    const Shape* shape = nullptr;
    Pose pose;
    Mat3 rotation = Mat3::Identity();  // pose.orientation as a matrix: one product per support call
    double radius = 0;                 // core_radius(*shape)
    bool core_only = false;            // support() maps the core instead of the full shape
    ShapeType type = ShapeType::sphere;
    // Copied shape parameters, so that a support call touches no variant: box half extents; (radius,
    // half_length, 0) of a capsule; (radius, half_height, 0) of a cylinder or cone.
    Vec3 dims = Vec3::Zero();
    const ConvexHull* hull = nullptr;  // the hull's geometry for convex_hull

    ConvexSupport() = default;
    // Throws std::invalid_argument when the shape is not convex.
    ConvexSupport(const Shape& shape_in, const Pose& pose_in);

    // The same shape reduced to its core (support() of the result maps the core; radius is kept).
    ConvexSupport core() const {
        ConvexSupport c = *this;
        c.core_only = true;
        return c;
    }
    // World support point of the mapped set (full shape, or core when core_only) for a world direction.
    Vec3 support(const Vec3& dir_world) const;
    // A point in the interior of the core (world): a seed direction for GJK, the centre for MPR.
    Vec3 center() const;
};

// Number of vertices above which a convex hull with adjacency uses hill climbing instead of a linear scan.
inline constexpr std::size_t kHullHillClimbMinVertices = 32;

// Index of a support vertex of the hull's vertex list for a local direction: linear scan for small hulls or
// when the adjacency is empty, otherwise hill climbing over the CSR adjacency from `start`. Hill climbing
// relies on the adjacency being the edge graph of the polytope (a vertex no worse than all its neighbours is
// then a global maximum, since the hull lies in the cone of its edges at that vertex).
std::uint32_t hull_support_index(const ConvexHull& hull, const Vec3& dir, std::uint32_t start = 0);

}  // namespace simpulse
