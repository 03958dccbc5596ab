// Ray casts against every shape type: the first point where the segment origin + t * direction, t in [0,
// max_distance] (direction unit), enters the shape. Convex shapes by van den Bergen's GJK ray cast ("Ray
// casting against general convex objects with application to continuous collision detection", 2004, alg. 1)
// on their support mappings, spheres and planes in closed form, triangle meshes through their BVH with the
// Moller-Trumbore test ("Fast, minimum storage ray/triangle intersection", 1997), height fields by walking
// the grid cells the ray crosses (Amanatides and Woo, "A fast voxel traversal algorithm", 1987) and testing
// each cell's two triangles as the terrain collision splits them. A ray that starts inside a solid (convex)
// shape hits it at t = 0 with the normal against the ray; meshes and height fields are surfaces, hit from
// either side (a height field from above only, its normal pointing up).
#pragma once

#include <simpulse/collision/shape.h>

#include <cstdint>
#include <optional>

namespace simpulse {

struct RayHit {
    double distance = 0;          // t of the hit, m along the unit direction
    Vec3 point = Vec3::Zero();    // world
    Vec3 normal = Vec3::UnitZ();  // world, unit, the surface's outward normal at the hit (against the ray)
    std::uint32_t sub = 0;        // compound child, mesh triangle or height-field cell; 0 otherwise
};

// The closest hit of the ray (world origin and unit direction) on `shape` at `pose`, if it hits within
// max_distance.
std::optional<RayHit> raycast(const Shape& shape, const Pose& pose, const Vec3& origin, const Vec3& direction,
                              double max_distance);

}  // namespace simpulse
