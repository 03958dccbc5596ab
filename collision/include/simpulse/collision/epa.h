// Expanding Polytope Algorithm (van den Bergen 2001, "Proximity queries and penetration depth computation on
// 3D game objects", GDC; 2003 sect. 4.3.6) for the penetration depth of two overlapping convex sets, seeded
// with the final GJK simplex, and the signed distance query that combines GJK on the cores with EPA.
//
// The polytope has a fixed capacity (no heap allocation); tolerances are relative to the depth with a floor
// relative to the size of the Minkowski difference.
#pragma once

#include <simpulse/collision/gjk.h>

namespace simpulse {

struct EpaSettings {
    // Stop when the gap between the support value along the closest face normal (upper bound of the depth)
    // and that face's distance (lower bound) is below relative_tolerance * max(depth, 1e-6 * size of A - B).
    double relative_tolerance = 1e-9;
    int max_iterations = 128;  // polytope expansions (the polytope holds at most 128 vertices)
};

struct EpaResult {
    double depth = 0;  // >= 0: translating B by depth * normal brings the sets into touching contact
    Vec3 normal = Vec3::UnitZ();  // unit, from A to B
    Vec3 point_a = Vec3::Zero();  // deepest point of A in B (world)
    Vec3 point_b = Vec3::Zero();  // deepest point of B in A; point_b = point_a - depth * normal
    int iterations = 0;           // polytope expansions
    // The gap met the tolerance. False when the iteration cap, the polytope capacity or rounding (a new face
    // that would leave the origin outside) stopped the expansion: the result is then the best face found so
    // far.
    bool converged = false;
};

// Penetration depth of the sets mapped by a and b, from the final simplex of gjk(a, b) with intersecting =
// true (any count from 1 to 4: smaller simplices are blown up to a tetrahedron). Sets without volume (two
// points, a point and a segment, two segments: the cores of spheres and capsules) are handled exactly: the
// depth is 0 and the normal is orthogonal to the set.
EpaResult epa(const ConvexSupport& a, const ConvexSupport& b, const GjkSimplex& simplex,
              const EpaSettings& settings = {});

struct SignedDistanceSettings {
    GjkSettings gjk;
    EpaSettings epa;
};

struct SignedDistanceResult {
    double distance = 0;          // > 0 separation, < 0 penetration depth (negated)
    Vec3 normal = Vec3::UnitZ();  // unit, from A to B
    Vec3 point_a = Vec3::Zero();  // on the surface of A (world)
    Vec3 point_b = Vec3::Zero();  // on the surface of B; point_b = point_a + distance * normal
    int gjk_iterations = 0;
    int epa_iterations = 0;  // 0 when EPA was not needed
    bool converged = true;   // false when GJK or EPA stopped before meeting its tolerance (see their results)
};

// Signed distance between two convex shapes: GJK on the cores (van den Bergen 2003, sect. 4.3.3); when the
// cores are apart the result is exact for any penetration shallower than the sum of the radii; when they
// overlap, EPA on the cores, inflated by the radii (the radii add to the support function in every direction,
// so the minimising direction is the same).
SignedDistanceResult signed_distance(const ConvexSupport& a, const ConvexSupport& b,
                                     const SignedDistanceSettings& settings = {});
SignedDistanceResult signed_distance(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                                     const SignedDistanceSettings& settings = {});

}  // namespace simpulse
