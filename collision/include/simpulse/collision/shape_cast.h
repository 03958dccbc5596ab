// Shape casts: the first fraction of a translation at which a convex shape (or a compound of convex shapes),
// moved without turning from its start pose, touches a target shape of any type. The cast is a ray cast of
// the cast shape's origin against the Minkowski difference target - cast shape (van den Bergen, "Ray casting
// against general convex objects with application to continuous collision detection", 2004, sect. 4), run by
// the GJK ray cast the ray casts use, on the cores with the radii of spheres and capsules as a margin
// (van den Bergen 2003, sect. 4.3.3). Planes in closed form (the cast shape's support point against the
// plane); triangle meshes through their BVH over the box swept by the cast shape, each triangle as a convex
// set; height fields through the cells under the swept box, each cell's two triangles as the terrain
// collision splits them; compounds child by child. Meshes and height fields are surfaces, as for ray casts:
// touched from either side, a shape entirely behind them does not overlap them.
//
// A cast shape that overlaps (or touches, within the cast's tolerance of 1e-10 of the two shapes' size) the
// target at the start hits it at fraction 0; the normal is then against the translation (-translation /
// |translation|) and the point is the cast shape's start position, as a ray that starts inside a shape.
#pragma once

#include <simpulse/collision/shape.h>

#include <cstdint>
#include <optional>

namespace simpulse {

struct CastHit {
    double fraction = 0;          // of the translation, in [0, 1]
    Vec3 point = Vec3::Zero();    // world, on the target where the moved cast shape touches it
    Vec3 normal = Vec3::UnitZ();  // world, unit, from the target towards the cast shape (against the motion)
    std::uint32_t sub = 0;        // target's compound child, mesh triangle or height-field cell; 0 otherwise
};

// Whether `shape` can be cast: a convex shape or a compound (whose children are convex).
bool is_castable(const Shape& shape);

// The first touch of `cast` moved from `start` by `translation` (non-zero) on `target` at `target_pose`.
// Precondition: is_castable(cast) (std::invalid_argument otherwise).
std::optional<CastHit> shape_cast(const Shape& cast, const Pose& start, const Vec3& translation,
                                  const Shape& target, const Pose& target_pose);

}  // namespace simpulse
