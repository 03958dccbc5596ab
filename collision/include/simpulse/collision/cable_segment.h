// Cable segments of the cable-vs-rigid-body seed (cable-rigid-collision.zh.txt, Ma Long et al. 2014; SEEDS.md
// section 4): a cable is a chain of uniform cubic B-spline segments of 4 control points swept by a ball of
// radius r. This header holds the curve itself (basis weights, position, derivatives, power-basis
// coefficients), the seed's layer 1 (segment box from the control points' convex hull, grown by r) and layer
// 2 (the parameter intervals where the centreline is inside a box grown by r, from the real roots of the
// per-coordinate cubics). Layer 3 is in cable_contacts.h.
#pragma once

#include <simpulse/collision/math.h>

#include <array>

namespace simpulse {

struct CableSegment {
    std::array<Vec3, 4> control{};  // control points V0..V3 (world)
    double radius = 0.05;           // r, the radius of the swept ball
};

// Segment k of a cable through control points P0..P(n-1) is the B-spline segment of P(k-1), P(k), P(k+1),
// P(k+2) for k in [0, n-2]; at the ends the missing point is the mirrored phantom P(-1) = 2 P0 - P1 or
// P(n) = 2 P(n-1) - P(n-2), with which the curve starts at P0 and ends at P(n-1). `before` is P(k-1) and
// `after` P(k+2), null at the ends.
CableSegment cable_chain_segment(const Vec3* before, const Vec3& from, const Vec3& to, const Vec3* after,
                                 double radius);

// Uniform cubic B-spline basis at u in [0, 1]: B0 = (1-u)^3/6, B1 = (3u^3 - 6u^2 + 4)/6,
// B2 = (-3u^3 + 3u^2 + 3u + 1)/6, B3 = u^3/6. They sum to 1 and are >= 0 (convex hull property); the
// solver spreads a contact impulse over the control points with them.
std::array<double, 4> cable_basis(double u);

// Power-basis coefficients of the centreline: c(u) = c[0] + c[1] u + c[2] u^2 + c[3] u^3.
std::array<Vec3, 4> cable_power_basis(const CableSegment& segment);

Vec3 cable_point(const CableSegment& segment, double u);
Vec3 cable_derivative(const CableSegment& segment, double u);
Vec3 cable_second_derivative(const CableSegment& segment, double u);
// max |c''(u)| over [u0, u1]: c'' is linear in u and the norm is convex, so the maximum is at an end.
double cable_second_derivative_bound(const CableSegment& segment, double u0, double u1);
// Upper bound of max |c'(u)| over [0, 1] (sum of the power-basis derivative terms' norms).
double cable_speed_bound(const CableSegment& segment);

// Layer 1: the box of the 4 control points (the segment lies in their convex hull) grown by r.
Aabb cable_segment_aabb(const CableSegment& segment);

// Real roots in [lo, hi] of a0 + a1 u + a2 u^2 + a3 u^3, ascending, at most 3 (a double root once). The
// interval is split at the roots of the derivative into monotone pieces; each piece with a sign change is
// solved by Newton steps kept inside a shrinking bracket (bisection when Newton leaves it), to a bracket of
// 4 ulps of the bounds' magnitude. A derivative root where the value is zero within rounding of the
// polynomial's terms is reported as a (double) root. Degenerate leading coefficients reduce the degree
// exactly. A polynomial that is zero everywhere has no isolated roots: returns 0.
int cubic_roots_in(const std::array<double, 4>& a, double lo, double hi, std::array<double, 3>& roots);

struct ParameterInterval {
    double begin = 0, end = 0;  // begin <= end; begin == end for a single touching point
};

// A few disjoint, ascending parameter intervals in fixed storage. When full, a new interval is merged into
// the last one (the set only grows, so a test on it stays conservative).
struct CableIntervals {
    static constexpr int kCapacity = 8;
    std::array<ParameterInterval, kCapacity> items{};
    int count = 0;
    void push(double begin, double end);
    bool empty() const { return count == 0; }
};

// Layer 2: the u in [0, 1] where the centreline is inside `box` grown by `growth` (r plus any margin),
// closed: per coordinate, the roots of c_k(u) - min_k and c_k(u) - max_k split [0, 1] into pieces classified
// at their midpoints, then the three coordinates' sets are intersected. Infinite box faces impose nothing.
CableIntervals cable_intervals_in_box(const CableSegment& segment, const Aabb& box, double growth);

// Intersection of two ascending interval sets.
CableIntervals intersect_intervals(const CableIntervals& a, const CableIntervals& b);

}  // namespace simpulse
