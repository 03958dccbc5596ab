// Contact patches of the cylinder-terrain algorithm (Strashnov & Torgashev 2020, sect. V): candidate points
// are grouped by element normal, one group per plane orientation, and each group is reduced to at most four
// points by the paper's heuristic (deepest; farthest from it; farthest from their line; largest
// quadrilateral; the two extremes when collinear), after the second-stage filter of sect. IV-D.
//
// The engine's reduce_contacts (manifold_reduction.h) implements the same heuristic but breaks depth ties
// within 1e-3 of the patch extent by distance from the centroid. Here the tie window is a depth (1e-4 of the
// radius) and ties go to body-fixed rim points: a base resting on the terrain then keeps four body-fixed rim
// points, and the reported depth is never more than that window below the exact maximum (the tests assert
// against it).
#include <simpulse/collision/clip.h>

#include "cylinder_terrain_internal.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace simpulse::cylinder_terrain {
namespace {

// Element normals within this distance are one patch. Coplanar elements' normals differ by the rounding of
// their cross products (1e-16); elements of a real crease by far more than 1e-6 rad, which is a 1 um step per
// metre.
constexpr double kPatchNormalTolerance = 1e-6;
// Welding distance and collinearity ratio, relative to the patch extent (as in manifold_reduction.cpp):
// clipped coordinates carry rounding of ~1e-15 of the extent.
constexpr double kWeldRatio = 1e-9;
constexpr double kCollinearRatio = 1e-6;

double cross2(const Vec2& a, const Vec2& b, const Vec2& c) {
    return (b.x() - a.x()) * (c.y() - a.y()) - (b.y() - a.y()) * (c.x() - a.x());
}

// Preference among otherwise equal points: lower priority, then lower feature (the id's low byte: for rim
// points the body-fixed index, so the choice does not depend on the order in which elements were visited).
bool preferred(const Candidate& a, const Candidate& b) {
    if (a.priority != b.priority) return a.priority < b.priority;
    return (a.id & 0xFFu) < (b.id & 0xFFu);
}

// a is better than b as the first point: deeper beyond the tie window, else preferred.
bool better_first(const Candidate& a, const Candidate& b, double tie) {
    if (a.depth > b.depth + tie) return true;
    if (b.depth > a.depth + tie) return false;
    return preferred(a, b);
}

}  // namespace

int reduce_patch(Candidate* points, int count, const Vec3& normal, double tie_depth) {
    // Second stage (IV-D): a point of an element that the first stage did not reach adds nothing to a patch
    // whose first-stage points are at least as deep: on the same plane it lies inside that patch (the paper's
    // Q on an edge between contacting elements); beside it, it is where the cylinder comes near a
    // neighbouring element of the same orientation, which with a speculative margin would otherwise crowd the
    // supporting points out of the four. The patch's deepest point is unchanged.
    int n = 0;
    for (int i = 0; i < count; ++i) {
        bool dominated = false;
        if (!points[i].primary)
            for (int j = 0; j < count && !dominated; ++j)
                dominated = points[j].primary && points[j].depth >= points[i].depth;
        if (!dominated) points[n++] = points[i];
    }
    count = n;
    if (count == 0) return 0;

    Vec3 bu, bv;
    orthonormal_basis(normal, bu, bv);
    std::array<Vec2, kPatchCapacity + 4> p;
    Vec2 lo = Vec2::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
    for (int i = 0; i < count; ++i) {
        p[static_cast<std::size_t>(i)] =
            Vec2(points[i].terrain_point.dot(bu), points[i].terrain_point.dot(bv));
        lo = lo.cwiseMin(p[static_cast<std::size_t>(i)]);
        hi = hi.cwiseMax(p[static_cast<std::size_t>(i)]);
    }
    const double extent = (hi - lo).norm();

    // Weld coincident points (an element vertex shared by two elements, a rim point on a shared edge): keep
    // the better first point.
    n = 0;
    for (int i = 0; i < count; ++i) {
        int dup = -1;
        for (int k = 0; k < n && dup < 0; ++k)
            if ((p[static_cast<std::size_t>(k)] - p[static_cast<std::size_t>(i)]).norm() <=
                kWeldRatio * extent)
                dup = k;
        if (dup < 0) {
            p[static_cast<std::size_t>(n)] = p[static_cast<std::size_t>(i)];
            points[n++] = points[i];
        } else if (better_first(points[i], points[dup], 0)) {
            points[dup] = points[i];
        }
    }
    count = n;
    if (count <= 4) {
        // Still put the deepest first: it names the manifold's cell.
        int first = 0;
        for (int i = 1; i < count; ++i)
            if (better_first(points[i], points[first], tie_depth)) first = i;
        std::swap(points[0], points[first]);
        return count;
    }
    auto P = [&](int i) -> const Vec2& { return p[static_cast<std::size_t>(i)]; };

    // 1. Deepest.
    int i1 = 0;
    for (int i = 1; i < count; ++i)
        if (better_first(points[i], points[i1], tie_depth)) i1 = i;
    // 2. Farthest from the first (ties: the preferred point).
    auto pick = [&](auto&& score, auto&& skip) {
        int best = -1;
        double best_score = -1;
        for (int i = 0; i < count; ++i) {
            if (skip(i)) continue;
            const double s = score(i);
            if (s > best_score * (1 + 1e-12) + 1e-300 ||
                (best >= 0 && s >= best_score * (1 - 1e-12) && preferred(points[i], points[best]))) {
                best = i;
                best_score = s;
            }
        }
        return std::pair{best, best_score};
    };
    const auto none = [](int) { return false; };
    const int i2 = pick([&](int i) { return (P(i) - P(i1)).squaredNorm(); }, none).first;
    // 3. Farthest from the line through the first two.
    const Vec2 e = P(i2) - P(i1);
    const double base = e.norm();
    const auto [i3, d3] = pick([&](int i) { return std::abs(cross2(P(i1), P(i2), P(i))); }, none);
    std::array<Candidate, 4> chosen;
    int m = 0;
    if (d3 <= kCollinearRatio * base * base) {
        // Collinear patch (a side lying on the terrain): the two extreme points of the line, deepest first.
        int a = i1, b = i1;
        double smin = 0, smax = 0;
        for (int i = 0; i < count; ++i) {
            const double s = (P(i) - P(i1)).dot(e);
            if (s < smin) smin = s, a = i;
            if (s > smax) smax = s, b = i;
        }
        chosen[static_cast<std::size_t>(m++)] = points[better_first(points[b], points[a], tie_depth) ? b : a];
        chosen[static_cast<std::size_t>(m++)] = points[better_first(points[b], points[a], tie_depth) ? a : b];
    } else {
        // 4. The point adding the largest area: the area of the triangle it forms with the edge of P1 P2 P3
        // it lies beyond (the triangle made counter-clockwise first).
        std::array<int, 3> tri = {i1, i2, i3};
        if (cross2(P(i1), P(i2), P(i3)) < 0) std::swap(tri[1], tri[2]);
        const auto [i4, added] = pick(
            [&](int i) {
                double best = 0;
                for (int s = 0; s < 3; ++s)
                    best = std::max(best, cross2(P(tri[static_cast<std::size_t>((s + 1) % 3)]),
                                                 P(tri[static_cast<std::size_t>(s)]), P(i)));
                return best;
            },
            // i3 is a structured binding, which Clang 14 (the fuzz build) cannot capture: copy it.
            [&, third = i3](int i) { return i == i1 || i == i2 || i == third; });
        for (int i : {i1, i2, i3}) chosen[static_cast<std::size_t>(m++)] = points[i];
        if (i4 >= 0 && added > kCollinearRatio * std::abs(cross2(P(i1), P(i2), P(i3))))
            chosen[static_cast<std::size_t>(m++)] = points[i4];
    }
    for (int i = 0; i < m; ++i) points[i] = chosen[static_cast<std::size_t>(i)];
    return m;
}

namespace {

// Writes a reduced patch as a manifold (normal from the cylinder to the terrain, world frame), merging it
// into an earlier manifold of this query with the same normal if there is one.
void emit_patch(Patch& patch, const PatchOutput& output) {
    std::vector<Manifold>& out = *output.out;
    const Vec3 world_normal = -output.pose_field.rotate(patch.normal);
    for (std::size_t k = output.first; k < out.size(); ++k) {
        Manifold& earlier = out[k];
        if ((earlier.normal - world_normal).norm() > kPatchNormalTolerance) continue;
        // Merge: the earlier manifold's points back into candidates (first-stage, its cell for all of them).
        for (int i = 0; i < earlier.count && patch.count < kPatchCapacity; ++i) {
            const ContactPoint& q = earlier.points[static_cast<std::size_t>(i)];
            Candidate c;
            c.depth = q.depth;
            c.terrain_point =
                output.pose_field.inverse_transform_point(q.position) + 0.5 * q.depth * patch.normal;
            c.offset = patch.normal.dot(c.terrain_point);
            c.id = q.id;
            c.cell = earlier.sub_b;
            c.priority = 2;
            c.primary = true;
            patch.points[static_cast<std::size_t>(patch.count++)] = c;
        }
        out.erase(out.begin() + static_cast<std::ptrdiff_t>(k));
        break;
    }
    const int n = reduce_patch(patch.points.data(), patch.count, patch.normal, output.tie_depth);
    patch.count = 0;
    if (n == 0) return;
    Manifold m;
    m.normal = world_normal;
    m.sub_a = 0;
    m.sub_b = patch.points[0].cell;
    m.count = n;
    for (int i = 0; i < n; ++i) {
        const Candidate& c = patch.points[static_cast<std::size_t>(i)];
        ContactPoint& q = m.points[static_cast<std::size_t>(i)];
        q.position = output.pose_field.transform_point(c.terrain_point - 0.5 * c.depth * patch.normal);
        q.depth = c.depth;
        q.id = c.id;
    }
    out.push_back(m);
}

}  // namespace

void add_to_patches(PatchSet& set, const Vec3& normal, const ElementCandidates& candidates,
                    const PatchOutput& output) {
    if (candidates.count == 0) return;
    Patch* patch = nullptr;
    for (int i = 0; i < set.count && patch == nullptr; ++i)
        if ((set.patches[static_cast<std::size_t>(i)].normal - normal).norm() <= kPatchNormalTolerance)
            patch = &set.patches[static_cast<std::size_t>(i)];
    if (patch == nullptr) {
        if (set.count == kMaxPatches) flush_patches(set, output);
        patch = &set.patches[static_cast<std::size_t>(set.count++)];
        patch->normal = normal;
        patch->count = 0;
    }
    for (int i = 0; i < candidates.count; ++i) {
        if (patch->count == kPatchCapacity)
            patch->count = reduce_patch(patch->points.data(), patch->count, patch->normal, output.tie_depth);
        patch->points[static_cast<std::size_t>(patch->count++)] =
            candidates.points[static_cast<std::size_t>(i)];
    }
}

void flush_patches(PatchSet& set, const PatchOutput& output) {
    for (int i = 0; i < set.count; ++i) emit_patch(set.patches[static_cast<std::size_t>(i)], output);
    set.count = 0;
}

}  // namespace simpulse::cylinder_terrain
