// Expanding Polytope Algorithm (van den Bergen 2001, "Proximity queries and penetration depth computation on
// 3D game objects", GDC; 2003 sect. 4.3.6) for the penetration depth of two overlapping convex sets, seeded
// with the final GJK simplex, and the signed distance query that combines GJK on the cores with EPA.
//
// The polytope has a fixed capacity of 128 vertices on the stack (no heap allocation); tolerances are
// relative to the depth with a floor relative to the size of the Minkowski difference. Polytopes and singly
// curved features converge; where the depth barely varies over a wide range of directions (a sphere core near
// a cylinder's or cone's axis) or both sides are curved everywhere (a full sphere against a rim), the
// polytope can run out of vertices first, and the best normal tried is polished by gradient sampling on the
// support value (Burke, Lewis, Overton 2005). signed_distance avoids the second case by running on the cores.
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
    // >= 0, the support value of A - B along the normal: translating B by exactly depth * normal brings the
    // sets into touching contact. Within the tolerance of the minimum over directions when converged.
    double depth = 0;
    Vec3 normal = Vec3::UnitZ();  // unit, from A to B
    // Deepest points of A in B and of B in A (world), on the support planes along the normal, taken from the
    // closest face of the polytope (so in the middle of a flat contact, not at a vertex of it);
    // point_b = point_a - depth * normal.
    Vec3 point_a = Vec3::Zero();
    Vec3 point_b = Vec3::Zero();
    int iterations = 0;  // polytope expansions
    // The gap met the tolerance. False when the iteration cap, the capacity or rounding (a new face that
    // would leave the origin outside) stopped the expansion: the result is then the polished best normal
    // tried (within 1e-9 of the depth on the cores in the oracle test, 1e-5 for full spheres against rims).
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
// so the minimising direction is the same). The tolerances therefore apply to the core distance |distance| +
// r_A + r_B: certified within 1e-9 of it plus 1e-10 of the scene size over 210,000 random pairs against
// libccd (test_ccd_oracle.cpp).
SignedDistanceResult signed_distance(const ConvexSupport& a, const ConvexSupport& b,
                                     const SignedDistanceSettings& settings = {});
SignedDistanceResult signed_distance(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                                     const SignedDistanceSettings& settings = {});

}  // namespace simpulse
