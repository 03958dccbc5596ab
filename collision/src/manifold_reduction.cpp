// Reduction of a contact patch to at most four points: Strashnov & Torgashev 2020, section V (max-area
// heuristic), with rounding-level welding before it and the collinear special case of the paper.
#include <simpulse/collision/clip.h>
#include <simpulse/collision/manifold_reduction.h>

#include <algorithm>
#include <cmath>

namespace simpulse {
namespace {

// Relative weld distance (see the header) and collinearity ratio: a third point within 1e-6 of the base
// length from the line is on it up to the rounding of clipped coordinates.
constexpr double kWeldRatio = 1e-6;
// The weld's floor, relative to the largest coordinate of the patch. Points computed for the same spot by
// different triangles (a height-field vertex poking into a box face, seen from each of the six triangles
// around it) differ by the rounding of their clip arithmetic: 1e-18 to 2e-12 m at coordinates of a few
// metres (test HeightField.NoPatchHoldsOnePointTwice), up to ~1e4 ulps where edges meet at shallow angles.
// In a patch made of such copies alone the extent is that rounding too, so the relative weld above never
// joined them and the patch kept the same point twice: two identical solver rows. 1e-10 leaves a margin of
// 1e2 over that rounding (8e-13 of the coordinates) and is 0.1 nm at 1 m from the origin.
constexpr double kWeldRounding = 1e-10;
constexpr double kCollinearRatio = 1e-6;
// Depths within this fraction of the patch extent count as equally deep, and the tie goes to the point
// farthest from the centre of the patch's bounding box. A resting face tilts back and forth by solver jitter
// far below this (1e-3 rad), so the first point, and with it the whole selection and the ids the solver
// warm-starts from, stays the same frame to frame; the first point is then at most 1e-3 of the extent
// shallower than the deepest one.
constexpr double kDepthTieRatio = 1e-3;

}  // namespace

void reduce_contacts(std::span<const ContactPoint> candidates, const Vec3& normal, Manifold& out) {
    out.normal = normal;
    out.count = 0;
    if (candidates.empty()) return;
    // Shapes placed near the end of the double range give clip points that overflowed to inf or NaN: such a
    // patch has no meaningful contact (and NaN would defeat the selection below), so it gets none.
    for (const ContactPoint& c : candidates)
        if (!c.position.allFinite() || !std::isfinite(c.depth)) return;
    Vec3 u, v;
    orthonormal_basis(normal, u, v);
    const auto n = static_cast<int>(std::min<std::size_t>(candidates.size(), kMaxClipVertices));
    std::array<Vec2, kMaxClipVertices> p;
    Vec2 lo = Vec2::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
    double coordinate_scale = 0;
    for (int i = 0; i < n; ++i) {
        const Vec3& x = candidates[static_cast<std::size_t>(i)].position;
        p[static_cast<std::size_t>(i)] = Vec2(x.dot(u), x.dot(v));
        lo = lo.cwiseMin(p[static_cast<std::size_t>(i)]);
        hi = hi.cwiseMax(p[static_cast<std::size_t>(i)]);
        coordinate_scale = std::max(coordinate_scale, x.lpNorm<Eigen::Infinity>());
    }
    const double extent = (hi - lo).norm();
    const double weld = std::max(kWeldRatio * extent, kWeldRounding * coordinate_scale);

    // Weld: keep[i] is the index of a surviving candidate; a later duplicate replaces an earlier one only
    // when it is deeper.
    std::array<int, kMaxClipVertices> keep;
    int m = 0;
    for (int i = 0; i < n; ++i) {
        int dup = -1;
        for (int k = 0; k < m && dup < 0; ++k)
            if ((p[static_cast<std::size_t>(keep[static_cast<std::size_t>(k)])] -
                 p[static_cast<std::size_t>(i)])
                    .norm() <= weld)
                dup = k;
        if (dup < 0)
            keep[static_cast<std::size_t>(m++)] = i;
        else if (candidates[static_cast<std::size_t>(i)].depth >
                 candidates[static_cast<std::size_t>(keep[static_cast<std::size_t>(dup)])].depth)
            keep[static_cast<std::size_t>(dup)] = i;
    }
    auto emit = [&](int i) {
        out.points[static_cast<std::size_t>(out.count++)] = candidates[static_cast<std::size_t>(i)];
    };
    if (m <= 2) {
        for (int k = 0; k < m; ++k) emit(keep[static_cast<std::size_t>(k)]);
        return;
    }
    auto P = [&](int k) -> const Vec2& {
        return p[static_cast<std::size_t>(keep[static_cast<std::size_t>(k)])];
    };
    auto depth = [&](int k) {
        return candidates[static_cast<std::size_t>(keep[static_cast<std::size_t>(k)])].depth;
    };

    // 1. Deepest; among near-ties (kDepthTieRatio) the one farthest from the centre of the patch's bounding
    // box, so that a flat face contact starts from a corner rather than from whichever clip point rounding
    // made deepest. The box (unlike the centroid) depends on the extreme points only, so adding interior
    // candidates never changes the choice.
    const Vec2 centre = 0.5 * (lo + hi);
    double max_depth = -std::numeric_limits<double>::infinity();
    for (int k = 0; k < m; ++k) max_depth = std::max(max_depth, depth(k));
    int i1 = -1;
    double best = -1;
    for (int k = 0; k < m; ++k) {
        if (depth(k) < max_depth - kDepthTieRatio * extent) continue;
        const double r = (P(k) - centre).squaredNorm();
        if (r > best) best = r, i1 = k;
    }
    // 2. Farthest from the first.
    int i2 = -1;
    best = -1;
    for (int k = 0; k < m; ++k) {
        const double r = (P(k) - P(i1)).squaredNorm();
        if (r > best) best = r, i2 = k;
    }
    // 3. Farthest from the line through the first two.
    const Vec2 e = P(i2) - P(i1);
    const double base = e.norm();
    int i3 = -1;
    best = -1;
    for (int k = 0; k < m; ++k) {
        const Vec2 d = P(k) - P(i1);
        const double r = std::abs(e.x() * d.y() - e.y() * d.x());
        if (r > best) best = r, i3 = k;
    }
    if (best <= kCollinearRatio * base * base) {
        // Collinear patch (a cylinder or capsule side on a face): the two extreme points of the line. Applied
        // to three or four points too: the middle ones add no independent row for the solver.
        int a = i1, b = i1;
        double smin = 0, smax = 0;
        for (int k = 0; k < m; ++k) {
            const double s = (P(k) - P(i1)).dot(e);
            if (s < smin) smin = s, a = k;
            if (s > smax) smax = s, b = k;
        }
        emit(keep[static_cast<std::size_t>(a)]);
        emit(keep[static_cast<std::size_t>(b)]);
        return;
    }
    if (m <= 4) {
        // Up to four points that span an area are all kept (the paper reduces larger sets only).
        for (int k = 0; k < m; ++k) emit(keep[static_cast<std::size_t>(k)]);
        return;
    }
    // 4. The point adding the largest area to the triangle, i.e. maximising the quadrilateral's area: the
    // area of the triangle it forms with the triangle edge it lies beyond (orientation made counter-clockwise
    // first).
    std::array<int, 3> tri = {i1, i2, i3};
    auto cross = [&](const Vec2& a, const Vec2& b, const Vec2& c) {
        return (b.x() - a.x()) * (c.y() - a.y()) - (b.y() - a.y()) * (c.x() - a.x());
    };
    const double tri_area = cross(P(i1), P(i2), P(i3));
    if (tri_area < 0) std::swap(tri[1], tri[2]);
    int i4 = -1;
    best = 0;
    for (int k = 0; k < m; ++k) {
        if (k == i1 || k == i2 || k == i3) continue;
        for (int s = 0; s < 3; ++s) {
            const double added = cross(P(tri[static_cast<std::size_t>((s + 1) % 3)]),
                                       P(tri[static_cast<std::size_t>(s)]), P(k));
            if (added > best) best = added, i4 = k;
        }
    }
    emit(keep[static_cast<std::size_t>(i1)]);
    emit(keep[static_cast<std::size_t>(i2)]);
    emit(keep[static_cast<std::size_t>(i3)]);
    if (i4 >= 0 && best > kCollinearRatio * std::abs(tri_area)) emit(keep[static_cast<std::size_t>(i4)]);
}

}  // namespace simpulse
