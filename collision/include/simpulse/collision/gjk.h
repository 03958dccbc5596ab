// Gilbert-Johnson-Keerthi distance query between two convex sets given by support mappings (Gilbert, Johnson,
// Keerthi 1988), with the signed-volume distance sub-algorithm of Montanari, Petrinic, Barbieri 2017
// ("Improving the GJK algorithm for faster and more reliable distance queries between convex objects", ACM
// TOG 36(3), sect. 3) and van den Bergen's termination on the duality gap (2003, sect. 4.3.4).
//
// Works on whatever the two views map: the full shapes, or their cores (ConvexSupport::core()) when the
// caller inflates by the radii itself (see signed_distance in epa.h). No heap allocation.
//
// Accuracy (checked against closed forms and duality certificates, tests/collision/test_gjk_epa.cpp and
// test_ccd_oracle.cpp): the distance is within relative_tolerance of the true one, plus a floor. The floor is
// a few ulps of the support points' magnitude on polytopes; on curved features (cylinder and cone rims) the
// simplex ends with vertices ~1e-5 of the size apart, whose rounding limits the distance to ~1e-10 of the
// size (converged = false when rounding stops the descent first). Touching curved features are resolved to
// about sqrt(eps) of the size: each step towards a support point |w| away shrinks |v|^2 by ~|v|^4/|w|^2,
// which rounds away once |v| < sqrt(eps) |w|. Curved features also converge linearly (15-60 iterations at the
// default tolerance for cylinders and cones, 2-8 on polytopes and on sphere/capsule cores).
#pragma once

#include <simpulse/collision/support.h>

#include <array>

namespace simpulse {

// Simplex of the Minkowski difference A - B: w[i] = a[i] - b[i], with a[i] and b[i] support points of A and B
// stored relative to `origin` (world point = origin + a[i]). GJK and EPA work in a frame centred on A's
// position, so that rounding scales with the shapes and not with their distance from the world origin; the
// final GJK simplex (the seed of EPA) is handed over in that frame without a round trip through world
// coordinates.
struct GjkSimplex {
    std::array<Vec3, 4> w{};
    std::array<Vec3, 4> a{};
    std::array<Vec3, 4> b{};
    int count = 0;
    Vec3 origin = Vec3::Zero();
};

struct GjkSettings {
    // Stop when the duality gap |v| - (v . w)/|v| (upper minus lower bound of the distance) is below this
    // fraction of the distance. The rounding floor of the bound (a few ulps of the support points' magnitude)
    // is always accepted.
    double relative_tolerance = 1e-10;
    int max_iterations = 64;
    // Guess of the normal from A to B (e.g. the previous frame's result) to warm-start the search; zero:
    // start along the line between the centres.
    Vec3 initial_direction = Vec3::Zero();
};

struct GjkResult {
    double distance = 0;          // >= 0, |point_b - point_a|; 0 when intersecting
    Vec3 point_a = Vec3::Zero();  // closest point on A (world)
    Vec3 point_b = Vec3::Zero();  // closest point on B (world); point_b = point_a + distance * normal
    Vec3 normal = Vec3::UnitZ();  // unit, from A to B; when intersecting only the last search direction
    // The sets overlap or touch: the origin is inside the final simplex or within rounding of it.
    bool intersecting = false;
    // The duality gap met the tolerance (or the overlap was decided). False when the iteration cap or
    // rounding
    // (|v| stopped decreasing) ended the search: distance is then an upper bound, realised by point_a/b.
    bool converged = false;
    int iterations = 0;  // support evaluations of the Minkowski difference
    GjkSimplex simplex;  // final simplex; contains the origin (within rounding) when intersecting
};

// Distance and closest points between the sets mapped by a and b.
GjkResult gjk(const ConvexSupport& a, const ConvexSupport& b, const GjkSettings& settings = {});

// Boolean overlap test: true when the sets overlap or touch within rounding. Stops at the first separating
// axis, so it is cheaper than gjk() for separated pairs.
bool gjk_intersect(const ConvexSupport& a, const ConvexSupport& b, const GjkSettings& settings = {});

// Closest point to the origin of the convex hull of simplex.w[0..count), by signed volumes (Montanari et al.
// 2017, sect. 3.2). Reduces `simplex` in place to the smallest sub-simplex whose hull contains that point,
// writes the barycentric weights of the kept vertices to `lambda`, and returns the point. A 4-simplex is kept
// whole only when the origin is strictly inside it. Exposed for tests.
Vec3 gjk_closest_on_simplex(GjkSimplex& simplex, std::array<double, 4>& lambda);

}  // namespace simpulse
