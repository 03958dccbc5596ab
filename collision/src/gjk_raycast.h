// GJK ray cast against a convex set given by a support mapping (van den Bergen, "Ray casting against general
// convex objects with application to continuous collision detection", 2004, alg. 1), shared by the ray casts
// (the set is the shape) and the shape casts (the set is the Minkowski difference target - cast shape: a cast
// of a shape is a ray cast of a point against it, sect. 4). The set may be inflated by a margin (the radii of
// sphere and capsule cores, van den Bergen 2003 sect. 4.3.3, as Jolt's GJKClosestPoint::CastShape does): the
// support plane is pushed out by the margin, so that balls and capsules are cast as points and segments and
// the cast converges in finitely many steps on them instead of linearly on their curved surface.
#pragma once

#include <simpulse/collision/gjk.h>

#include <array>
#include <optional>

namespace simpulse::detail {

struct GjkCastHit {
    double t = 0;  // 0 when x starts inside the (inflated) set
    Vec3 normal =
        Vec3::Zero();  // outward normal of the inflated set at the hit, not normalised; zero at t = 0
    Vec3 target = Vec3::Zero();  // the hit on the target's core: sum of lambda_i * target_i
    bool has_target = false;     // false when the search ended before the simplex had a point
};

// x = origin + t * direction, t in [0, max_t], against S + ball(margin) where S is the set of points
// target - cast over the pairs support(v) returns ({target point, cast point} maximising v . (target -
// cast)). Stops when x is within `tolerance` of the inflated set's surface.
template <class Support>
std::optional<GjkCastHit> gjk_raycast(const Support& support, const Vec3& origin, const Vec3& direction,
                                      double max_t, double margin, double tolerance) {
    double t = 0;
    Vec3 x = origin, normal = Vec3::Zero();
    GjkSimplex simplex;  // a: target points, b: cast points, w: x - (a - b)
    std::array<double, 4> lambda{};
    auto [a0, b0] = support(direction);  // any point of the set gives a start direction
    Vec3 v = x - (a0 - b0);
    const double stop = margin + tolerance;
    for (int iteration = 0; iteration < 64 && v.squaredNorm() > stop * stop; ++iteration) {
        const auto [a, b] = support(v);
        const Vec3 w = x - (a - b);
        // Zero margin: exactly van den Bergen's test v . w > 0 (the ray casts' arithmetic is unchanged).
        const double gap = margin > 0 ? v.dot(w) - margin * v.norm() : v.dot(w);
        if (gap > 0) {
            if (v.dot(direction) >= 0) return std::nullopt;
            t -= gap / v.dot(direction);
            if (t > max_t) return std::nullopt;
            x = origin + t * direction;
            normal = v;
        }
        if (simplex.count == 4) break;  // the simplex encloses x: it is on the surface within rounding
        const auto slot = static_cast<std::size_t>(simplex.count++);
        simplex.a[slot] = a;  // reduced together with w
        simplex.b[slot] = b;
        for (int k = 0; k < simplex.count; ++k) {
            const auto i = static_cast<std::size_t>(k);
            simplex.w[i] = x - (simplex.a[i] - simplex.b[i]);
        }
        v = gjk_closest_on_simplex(simplex, lambda);
    }
    GjkCastHit hit;
    for (int k = 0; k < simplex.count; ++k)
        hit.target += lambda[static_cast<std::size_t>(k)] * simplex.a[static_cast<std::size_t>(k)];
    hit.has_target = simplex.count > 0;
    if (normal.isZero(0)) return hit;  // x starts inside
    hit.t = t;
    // With a margin the final v (x minus the closest point of the core set) is the inflated surface's normal
    // at the hit; without one v has shrunk to rounding and the last separating direction is the normal.
    hit.normal = margin > 0 && v.squaredNorm() > 0 ? v : normal;
    return hit;
}

}  // namespace simpulse::detail
