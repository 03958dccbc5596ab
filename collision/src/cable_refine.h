// Shared machinery of the cable exact layer (SEEDS.md section 4, layer 3): chord subdivision with the
// linear-interpolation error bound, refinement of a parameter by Brent's method, and the distance targets (a
// convex shape, a triangle) that measure a chord capsule and a ball. Internal to the module.
#pragma once

#include <simpulse/collision/cable_contacts.h>
#include <simpulse/collision/cable_segment.h>
#include <simpulse/collision/epa.h>
#include <simpulse/collision/mesh_contacts.h>

#include <algorithm>
#include <cmath>

namespace simpulse::cable_detail {

inline constexpr int kMaxChords = 32;
// At least this many chords per unit of u, whatever the deviation bound allows: the searches run between the
// neighbours' middles (two chords wide) and assume one minimum there.
inline constexpr double kMinChordsPerUnit = 8;

// Chords of [begin, end]: n pieces, each within `deviation` of the curve. A chord from c(u0) to c(u1) is
// within h^2/8 max|c''| of the curve (interpolation error (u-u0)(u1-u)/2 |c''|), so n = h sqrt(M / (8 tol)).
struct Chords {
    double begin = 0, step = 0;
    int count = 1;
    double deviation = 0;  // the bound actually met (larger than asked when capped at kMaxChords)
    double at(int i) const { return begin + step * i; }
};

inline Chords make_chords(const CableSegment& s, double begin, double end, double tolerance) {
    Chords c;
    c.begin = begin;
    const double width = end - begin, bound = cable_second_derivative_bound(s, begin, end);
    const double wanted = tolerance > 0 ? std::ceil(width * std::sqrt(bound / (8 * tolerance))) : kMaxChords;
    const double floor = std::ceil(width * kMinChordsPerUnit);
    // Control points so far apart that their differences overflow make the bound NaN (inf - inf): as many
    // chords as allowed, and a NaN deviation, which no chord test passes (such a segment touches nothing).
    const double wanted_chords = std::max(wanted, floor);
    c.count = std::isnan(wanted_chords)
                  ? kMaxChords
                  : static_cast<int>(std::clamp(wanted_chords, 1.0, static_cast<double>(kMaxChords)));
    c.step = width / c.count;
    c.deviation = c.step * c.step / 8 * bound;
    return c;
}

// Minimum of f over [lo, hi] by Brent's method (Brent 1973, "Algorithms for Minimization without
// Derivatives", ch. 5): golden-section steps, replaced by the vertex of the parabola through the three best
// points whenever that falls well inside the bracket, so smooth minima converge superlinearly and kinks no
// slower than golden section. Stops when the bracket is below `tolerance`. Returns the best parameter
// evaluated (the ends and `start` included, so a value already found is never lost when f is not unimodal on
// the bracket). f(u) returns a value with a member `distance`.
template <class F>
auto brent_minimum(double lo, double hi, double start, double tolerance, F&& f, double& best_u) {
    constexpr double kGolden = 0.3819660112501051;  // 2 - golden ratio
    auto best = f(start);
    double x = start, w = start, v = start;
    double fx = best.distance, fw = fx, fv = fx;
    best_u = start;
    const auto at_lo = f(lo), at_hi = f(hi);
    double a = lo, b = hi, step = 0, previous_step = 0;
    const double tol = 0.5 * tolerance;
    for (int iteration = 0; iteration < 200; ++iteration) {
        const double m = 0.5 * (a + b);
        if (std::abs(x - m) <= 2 * tol - 0.5 * (b - a)) break;
        bool parabolic = false;
        if (std::abs(previous_step) > tol) {
            const double r = (x - w) * (fx - fv);
            double q = (x - v) * (fx - fw);
            double p = (x - v) * q - (x - w) * r;
            q = 2 * (q - r);
            if (q > 0) p = -p;
            q = std::abs(q);
            if (std::abs(p) < std::abs(0.5 * q * previous_step) && p > q * (a - x) && p < q * (b - x)) {
                previous_step = step;
                step = p / q;
                const double u = x + step;
                if (u - a < 2 * tol || b - u < 2 * tol) step = m >= x ? tol : -tol;
                parabolic = true;
            }
        }
        if (!parabolic) {
            previous_step = (x >= m ? a : b) - x;
            step = kGolden * previous_step;
        }
        const double u = std::abs(step) >= tol ? x + step : x + (step >= 0 ? tol : -tol);
        const auto at_u = f(u);
        const double fu = at_u.distance;
        if (fu <= fx) {
            (u >= x ? a : b) = x;
            v = w, fv = fw, w = x, fw = fx, x = u, fx = fu;
            best = at_u, best_u = u;
        } else {
            (u < x ? a : b) = u;
            if (fu <= fw || w == x) {
                v = w, fv = fw, w = u, fw = fu;
            } else if (fu <= fv || v == x || v == w) {
                v = u, fv = fu;
            }
        }
    }
    if (at_lo.distance < best.distance) best = at_lo, best_u = lo;
    if (at_hi.distance < best.distance) best = at_hi, best_u = hi;
    return best;
}

// The capsule of radius r around the chord p0-p1, as a shape and a pose (local z along the chord).
struct ChordCapsule {
    Shape shape;
    Pose pose;
    ChordCapsule(const Vec3& p0, const Vec3& p1, double radius) {
        const Vec3 d = p1 - p0;
        const double length = d.norm();
        shape.geometry = Capsule{radius, 0.5 * length};
        pose.position = 0.5 * (p0 + p1);
        if (length > 0) pose.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), d);
    }
};

// A convex shape placed in the world.
struct ConvexTarget {
    ConvexSupport shape;
    double radius = 0;
    double chord(const Vec3& p0, const Vec3& p1) const {
        // GJK on the cores only: overlapping cores mean a distance below -(r + shape radius), which never
        // prunes, so EPA's exact depth is not needed here.
        const ChordCapsule capsule(p0, p1, radius);
        const GjkResult g = gjk(ConvexSupport(capsule.shape, capsule.pose).core(), shape.core());
        return (g.intersecting ? 0.0 : g.distance) - radius - shape.radius;
    }
    BallDistance ball(const Vec3& centre) const {
        Shape sphere;
        sphere.geometry = Sphere{radius};
        const SignedDistanceResult r =
            signed_distance(shape, ConvexSupport(sphere, Pose{centre, Quat::Identity()}));
        return {r.distance, r.point_a, r.normal, 0};
    }
};

// One triangle of a mesh or height field, in the frame the segment was moved into. Triangles are surfaces
// here: the distance is unsigned and the normal points from the closest triangle point to the centreline
// (the face normal when the centreline touches the triangle).
struct TriangleTarget {
    MeshTriangle triangle;
    double radius = 0;
    double chord(const Vec3& p0, const Vec3& p1) const {
        const ChordCapsule capsule(p0, p1, radius);
        const CoreDistance d =
            core_triangle_distance(ConvexSupport(capsule.shape, capsule.pose).core(), triangle);
        return (d.intersecting ? 0.0 : d.distance) - radius;
    }
    BallDistance ball(const Vec3& centre) const {
        Shape point;
        point.geometry = Sphere{radius};
        const CoreDistance d =
            core_triangle_distance(ConvexSupport(point, Pose{centre, Quat::Identity()}).core(), triangle);
        BallDistance out{(d.intersecting ? 0.0 : d.distance) - radius, d.on_triangle, triangle.normal,
                         triangle.index};
        if (d.intersecting) out.on_shape = centre;
        const Vec3 away = centre - out.on_shape;
        if (!d.intersecting && away.norm() > 1e-12 * (1 + centre.norm())) out.normal = away.normalized();
        return out;
    }
};

}  // namespace simpulse::cable_detail
