// Shared machinery of the cable exact layer (SEEDS.md section 4, layer 3): chord subdivision with the
// linear-interpolation error bound, golden-section refinement of a parameter, and the distance targets (a
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
    c.count = static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(kMaxChords)));
    c.step = width / c.count;
    c.deviation = c.step * c.step / 8 * bound;
    return c;
}

// Minimum of f over [lo, hi] by golden-section search (Kiefer 1953) until the bracket is below `tolerance`;
// returns the best parameter evaluated (ends and `start` included, so a value already found is never lost
// when f is not unimodal on the bracket). f(u) returns a value with a member `distance`.
template <class F>
auto golden_minimum(double lo, double hi, double start, double tolerance, F&& f, double& best_u) {
    auto best = f(start);
    best_u = start;
    auto consider = [&](double u, const auto& value) {
        if (value.distance < best.distance) best = value, best_u = u;
    };
    consider(lo, f(lo));
    consider(hi, f(hi));
    constexpr double kRatio = 0.6180339887498949;
    double x1 = hi - kRatio * (hi - lo), x2 = lo + kRatio * (hi - lo);
    auto f1 = f(x1), f2 = f(x2);
    while (hi - lo > tolerance) {
        if (f1.distance <= f2.distance) {
            hi = x2, x2 = x1, f2 = f1;
            x1 = hi - kRatio * (hi - lo);
            f1 = f(x1);
        } else {
            lo = x1, x1 = x2, f1 = f2;
            x2 = lo + kRatio * (hi - lo);
            f2 = f(x2);
        }
    }
    consider(x1, f1);
    consider(x2, f2);
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
        const ChordCapsule capsule(p0, p1, radius);
        return signed_distance(shape, ConvexSupport(capsule.shape, capsule.pose)).distance;
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
