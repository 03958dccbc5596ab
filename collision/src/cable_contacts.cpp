// Layer 3 of the cable seed (cable-rigid-collision.zh.txt; SEEDS.md section 4): the exact contacts of a cable
// segment with every rigid shape, after layers 1 and 2 (cable_segment.h). The seed's coordinate-plane
// projection of triangles gives no distance or normal; here each layer-2 interval is cut into chords, a chord
// is a capsule of the cable radius measured with the engine's distance queries, and each local minimum is
// refined along u. Chords are measured by GJK on the cores and the balls by signed_distance (GJK/EPA) on
// convex shapes; meshes and height fields GJK per triangle,
// planes the closed form (the distance is itself a cubic in u), compounds their children.
#include <simpulse/collision/bvh.h>
#include <simpulse/collision/cable_contacts.h>
#include <simpulse/collision/mesh_contacts.h>

#include "cable_refine.h"

#include <cmath>
#include <limits>

namespace simpulse {
namespace {

using cable_detail::brent_minimum;
using cable_detail::Chords;
using cable_detail::ConvexTarget;
using cable_detail::kMaxChords;
using cable_detail::make_chords;
using cable_detail::TriangleTarget;

// Contacts a parameter apart by less than this are the same local minimum.
constexpr double kSameU = 0.02;

CableContact make_contact(const CableSegment& s, double u, const BallDistance& d) {
    CableContact c;
    c.u = u;
    c.point = cable_point(s, u);
    c.on_shape = d.on_shape;
    c.normal = d.normal;
    c.depth = -d.distance;
    c.weights = cable_basis(u);
    c.sub = d.sub;
    return c;
}

// Chords of one interval. A chord that the deviation bound cannot keep beyond the margin is a candidate, and
// the ball distance is sampled at its middle (non-candidates count as infinitely far). A candidate is
// searched by Brent's method between its neighbours' middles when its sample is a discrete local minimum
// (first of a run of equal ones: that bracket holds a local minimum), or when it may hold the global minimum:
// the ball distance is 1-Lipschitz in the centre, so within half a chord of the middle it is at least the
// sample minus (max|c'| there) h / 2, and a chord whose bound is below the lowest sample is searched too.
// Brent's method uses values only: the ball distance has kinks where the centre crosses the shape's medial
// axis (deep inside a convex shape) or a triangle, where a search on its slope can settle on the wrong side.
template <class Target>
void exact_layer_on_interval(const CableSegment& s, const ParameterInterval& interval, const Target& target,
                             const CableCollideSettings& settings, CableContacts& out) {
    const Chords chords = make_chords(s, interval.begin, interval.end, settings.chord_deviation * s.radius);
    auto ball_at = [&](double u) { return target.ball(cable_point(s, u)); };
    auto middle = [&](int i) { return chords.at(i) + 0.5 * chords.step; };
    std::array<double, kMaxChords + 2> sample;  // sample[i + 1] belongs to chord i; the ends stay infinite
    sample.fill(std::numeric_limits<double>::infinity());
    double lowest = sample[0];
    Vec3 start = cable_point(s, chords.at(0));
    for (int i = 0; i < chords.count; ++i) {
        const Vec3 end = cable_point(s, chords.at(i + 1));
        // The curve is within `deviation` of the chord: the ball distance is >= d - deviation there.
        if (target.chord(start, end) - chords.deviation <= settings.margin) {
            sample[static_cast<std::size_t>(i + 1)] = ball_at(middle(i)).distance;
            lowest = std::min(lowest, sample[static_cast<std::size_t>(i + 1)]);
        }
        start = end;
    }
    // max|c'| within half a chord of the middle: |c'(middle)| + max|c''| h / 2 (c' moves at most that much).
    const double curvature = cable_second_derivative_bound(s, interval.begin, interval.end);
    auto lipschitz_slack = [&](int i) {
        return (cable_derivative(s, middle(i)).norm() + curvature * 0.5 * chords.step) * 0.5 * chords.step;
    };
    const double tolerance = settings.parameter_tolerance;
    for (int i = 0; i < chords.count; ++i) {
        const double here = sample[static_cast<std::size_t>(i + 1)];
        const bool dip =
            here < sample[static_cast<std::size_t>(i)] && here <= sample[static_cast<std::size_t>(i + 2)];
        if (!dip && !(here - lipschitz_slack(i) <= lowest)) continue;
        const double lo = i == 0 ? interval.begin : middle(i - 1);
        const double hi = i + 1 == chords.count ? interval.end : middle(i + 1);
        double u = 0;
        const BallDistance best = brent_minimum(lo, hi, middle(i), tolerance, ball_at, u);
        const bool interior = u > lo + tolerance && u < hi - tolerance;
        const bool interval_end = u <= interval.begin + tolerance || u >= interval.end - tolerance;
        if (best.distance <= settings.margin && (interior || interval_end))
            out.offer(make_contact(s, u, best), kSameU);
    }
}

template <class Target>
void exact_layer(const CableSegment& s, const CableIntervals& intervals, const Target& target,
                 const CableCollideSettings& settings, CableContacts& out) {
    for (int k = 0; k < intervals.count; ++k)
        exact_layer_on_interval(s, intervals.items[static_cast<std::size_t>(k)], target, settings, out);
}

// Layers 1 to 3 against one convex shape.
void collide_convex(const CableSegment& s, const Shape& shape, const Pose& pose,
                    const CableCollideSettings& settings, std::uint32_t sub, CableContacts& out) {
    const Aabb shape_box = compute_aabb(shape, pose);
    if (!cable_segment_aabb(s).inflated(settings.margin).overlaps(shape_box)) return;  // layer 1
    const CableIntervals intervals = cable_intervals_in_box(s, shape_box, s.radius + settings.margin);  // 2
    if (intervals.empty()) return;
    CableContacts found;
    exact_layer(s, intervals, ConvexTarget{ConvexSupport(shape, pose), s.radius}, settings, found);
    for (int i = 0; i < found.count; ++i) {
        CableContact c = found.items[static_cast<std::size_t>(i)];
        c.sub = sub;
        out.offer(c, kSameU);
    }
}

// A plane in closed form: the height of the centreline above it, h(u) = n . c(u) - offset, is a cubic, so its
// minima over [0, 1] are among the ends and the roots of h'. Ends count when h does not decrease into the
// segment, so a cable lying flat gets a contact at each end.
void collide_plane(const CableSegment& s, const Plane& plane, const Pose& pose,
                   const CableCollideSettings& settings, CableContacts& out) {
    const Vec3 n = pose.rotate(plane.normal);
    const double offset = plane.offset + n.dot(pose.position);
    const std::array<Vec3, 4> c = cable_power_basis(s);
    const std::array<double, 4> h{n.dot(c[0]) - offset, n.dot(c[1]), n.dot(c[2]), n.dot(c[3])};
    auto height = [&](double u) { return h[0] + u * (h[1] + u * (h[2] + u * h[3])); };
    auto slope = [&](double u) { return h[1] + u * (2 * h[2] + 3 * u * h[3]); };
    std::array<double, 4> candidates{0, 1, 0, 0};
    int n_candidates = 2;
    std::array<double, 3> roots{};
    const int n_roots = cubic_roots_in({h[1], 2 * h[2], 3 * h[3], 0}, 0, 1, roots);
    for (int i = 0; i < n_roots; ++i)
        if (6 * h[3] * roots[static_cast<std::size_t>(i)] + 2 * h[2] >= 0)  // h'' >= 0: a minimum
            candidates[static_cast<std::size_t>(n_candidates++)] = roots[static_cast<std::size_t>(i)];
    const double tiny = 1e-12 * (std::abs(h[1]) + std::abs(h[2]) + std::abs(h[3]));
    for (int i = 0; i < n_candidates; ++i) {
        const double u = candidates[static_cast<std::size_t>(i)];
        if ((i == 0 && slope(0) < -tiny) || (i == 1 && slope(1) > tiny)) continue;
        const double distance = height(u) - s.radius;
        if (distance > settings.margin) continue;
        const Vec3 centre = cable_point(s, u);
        out.offer(make_contact(s, u, {distance, centre - height(u) * n, n, 0}), kSameU);
    }
}

// The segment moved into a shape's frame (a B-spline is affine invariant: move its control points).
CableSegment to_local(const CableSegment& s, const Pose& pose) {
    CableSegment local = s;
    for (Vec3& p : local.control) p = pose.inverse_transform_point(p);
    return local;
}

// Layers 2 and 3 on one triangle (in the frame of the local segment).
void collide_triangle(const CableSegment& local, const MeshTriangle& triangle,
                      const CableCollideSettings& settings, CableContacts& out) {
    Aabb box;
    for (const Vec3& v : triangle.v) box.grow(v);
    const CableIntervals intervals = cable_intervals_in_box(local, box, local.radius + settings.margin);
    if (!intervals.empty())
        exact_layer(local, intervals, TriangleTarget{triangle, local.radius}, settings, out);
}

void contacts_to_world(const CableContacts& local, const Pose& pose, CableContacts& out) {
    for (int i = 0; i < local.count; ++i) {
        CableContact c = local.items[static_cast<std::size_t>(i)];
        c.point = pose.transform_point(c.point);
        c.on_shape = pose.transform_point(c.on_shape);
        c.normal = pose.rotate(c.normal);
        out.offer(c, kSameU);
    }
}

void collide_surface(const CableSegment& s, const Shape& shape, const Pose& pose,
                     const CableCollideSettings& settings, CableContacts& out) {
    const CableSegment local = to_local(s, pose);
    const Aabb box = cable_segment_aabb(local).inflated(settings.margin);  // layer 1, per triangle box
    CableContacts found;
    if (const auto* mesh = std::get_if<TriangleMesh>(&shape.geometry)) {
        bvh_query(mesh->bvh, box, [&](std::uint32_t t) {
            collide_triangle(local, mesh_triangle(*mesh, t), settings, found);
        });
    } else {
        const auto& field = std::get<HeightField>(shape.geometry);
        for_each_height_field_triangle(
            field, box, [&](const MeshTriangle& t) { collide_triangle(local, t, settings, found); });
    }
    contacts_to_world(found, pose, out);
}

}  // namespace

void CableContacts::offer(const CableContact& contact, double same_u) {
    for (int i = 0; i < count; ++i) {
        CableContact& kept = items[static_cast<std::size_t>(i)];
        if (std::abs(kept.u - contact.u) < same_u) {
            if (contact.depth > kept.depth) kept = contact;
            return;
        }
    }
    if (count < kCapacity) {
        items[static_cast<std::size_t>(count++)] = contact;
        return;
    }
    int shallowest = 0;
    for (int i = 1; i < count; ++i)
        if (items[static_cast<std::size_t>(i)].depth < items[static_cast<std::size_t>(shallowest)].depth)
            shallowest = i;
    if (contact.depth > items[static_cast<std::size_t>(shallowest)].depth)
        items[static_cast<std::size_t>(shallowest)] = contact;
}

int collide_cable_shape(const CableSegment& segment, const Shape& shape, const Pose& pose,
                        const CableCollideSettings& settings, CableContacts& out) {
    out.count = 0;
    const Shape& geometry = query_geometry(shape);
    switch (geometry.type()) {
        case ShapeType::plane:
            collide_plane(segment, std::get<Plane>(geometry.geometry), pose, settings, out);
            break;
        case ShapeType::triangle_mesh:
        case ShapeType::height_field:
            collide_surface(segment, geometry, pose, settings, out);
            break;
        case ShapeType::compound: {
            const auto& compound = std::get<Compound>(geometry.geometry);
            const Aabb box = cable_segment_aabb(to_local(segment, pose)).inflated(settings.margin);
            bvh_query(compound.bvh, box, [&](std::uint32_t k) {
                const CompoundChild& child = compound.children[k];
                collide_convex(segment, *child.shape, pose * child.pose, settings, k, out);
            });
            break;
        }
        default:
            collide_convex(segment, geometry, pose, settings, 0, out);
    }
    return out.count;
}

}  // namespace simpulse
