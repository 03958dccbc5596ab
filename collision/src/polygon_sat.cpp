// SAT of a whole (possibly non-convex, possibly holed) polygon A against a convex polygon B, after the seed
// "Algorithms for collision detection of plane 2-D objects of arbitrary shape" (nonconvex-2d-sat.ru.txt;
// SEEDS.md section 5), steps 1-16, and its contact points by reference-edge clipping.
//
// Seed steps followed: axes are the normalised edge perpendiculars of both polygons (steps 3-5); both are
// projected on each (step 6); a gap between the projections separates (steps 7-8); for an edge of the
// non-convex polygon the edge's own projection is tested against B's (step 9) and only edges B meets give an
// overlap candidate (step 10: when B meets no edge of A, A and B do not intersect); the minimum overlap gives
// the separation vector (steps 11-13). Where the seed needs care, in concave pockets:
//  - step 9 tests B against the edge's line only; a pocket's far wall whose line passes through B would give
//  a
//    false candidate, so an edge counts only when B meets the edge segment (SAT of the segment against B: the
//    edge normal, the edge direction and B's edge normals), within the margin;
//  - step 14 takes the sign from the centre difference, which points the wrong way in a pocket (a block
//    against the inner wall of a cup lies on the far side of the cup's centre); the normal here is the edge's
//    outward normal (from A to B), so the overlap is the depth of B behind that edge (c - min B);
//  - step 10 misses B lying wholly inside A (no edge met): that case is reported as undecided and the caller
//    uses another path.
// For a non-convex A, edges farther from B than B's bounding circle are skipped (they cannot meet B, and
// their axes could only end the test early), and once B meets an edge no axis can separate the two, so B's
// axes serve only as overlap candidates, measured against the edges B meets (the local depth of A's material
// at B; the whole polygon's projection would overestimate it in a pocket). A convex A is tested on every axis
// as the seed does.
#include <simpulse/collision/polygon.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace simpulse {
namespace {

// B mapped into A's frame once per call: vertices, outward unit normals and edge offsets (counter-clockwise
// after a reflecting map too), its centre and bounding radius.
struct MappedPart {
    std::array<Vec2, kSatMaxPartVertices> v, n;
    std::array<double, kSatMaxPartVertices> c;
    std::size_t size = 0;
    Vec2 centre = Vec2::Zero();
    double radius = 0;

    MappedPart(const Ring2& b, const Map2& map) : size(b.size()) {
        const bool flip = map.rotation.determinant() < 0;
        for (std::size_t j = 0; j < size; ++j) {
            v[j] = map(b[j]);
            centre += v[j];
        }
        centre /= static_cast<double>(size);
        double r2 = 0;
        for (std::size_t j = 0; j < size; ++j) {
            const Vec2 p = v[j], q = v[(j + 1) % size];
            const Vec2 d = flip ? p - q : q - p;
            n[j] = Vec2(d.y(), -d.x()).normalized();
            c[j] = n[j].dot(p);
            r2 = std::max(r2, (p - centre).squaredNorm());
        }
        radius = std::sqrt(r2);
    }
    void project(const Vec2& axis, double& lo, double& hi) const {
        lo = std::numeric_limits<double>::infinity();
        hi = -lo;
        for (std::size_t j = 0; j < size; ++j) {
            const double s = axis.dot(v[j]);
            lo = std::min(lo, s);
            hi = std::max(hi, s);
        }
    }
};

// Segment e may meet B's bounding circle (grown by the margin).
bool near(const SatPolygon::Edge& e, const MappedPart& b, double margin) {
    const Vec2 d = e.end - e.start;
    const double s = std::clamp((b.centre - e.start).dot(d) / d.squaredNorm(), 0.0, 1.0);
    const double r = b.radius + margin;
    return (b.centre - (e.start + s * d)).squaredNorm() <= r * r;
}

// B meets segment e within the margin: SAT of the segment against B on the edge's normal (B's interval
// [lo_n, hi_n] on it given), the edge's direction and B's edge normals.
bool segment_meets(const SatPolygon::Edge& e, const MappedPart& b, double margin, double lo_n, double hi_n) {
    if (lo_n > e.offset + margin || hi_n < e.offset - margin) return false;
    const Vec2 t = e.end - e.start;
    const double len = t.norm();
    const Vec2 u = t / len;
    double lo = 0, hi = 0;
    b.project(u, lo, hi);
    const double s0 = u.dot(e.start);
    if (lo > s0 + len + margin || hi < s0 - margin) return false;
    for (std::size_t j = 0; j < b.size; ++j)
        if (std::min(b.n[j].dot(e.start), b.n[j].dot(e.end)) > b.c[j] + margin) return false;
    return true;
}

// Clips segment p0 p1 to the slab lo <= u . x <= hi.
bool clip(Vec2& p0, Vec2& p1, const Vec2& u, double lo, double hi) {
    const double s0 = u.dot(p0), s1 = u.dot(p1);
    if ((s0 < lo && s1 < lo) || (s0 > hi && s1 > hi)) return false;
    const Vec2 a = p0, b = p1;
    const auto at = [&](double s) { return a + (b - a) * ((s - s0) / (s1 - s0)); };
    if (s0 < lo) p0 = at(lo);
    if (s0 > hi) p0 = at(hi);
    if (s1 < lo) p1 = at(lo);
    if (s1 > hi) p1 = at(hi);
    return true;
}

}  // namespace

Sat2Outcome sat_whole_vs_convex(const SatPolygon& a, const Ring2& b_local, const Map2& map, double margin,
                                Sat2Contact& out) {
    const MappedPart b(b_local, map);
    const std::size_t nb = b.size;
    double best = std::numeric_limits<double>::infinity();
    int best_edge = -1;  // >= 0: A's edge; < 0: B's edge -(j + 1)
    Vec2 best_normal = Vec2::Zero();
    bool met_any = false;
    // For a non-convex A: the lowest point of the edges B meets on each of B's axes.
    std::array<double, kSatMaxPartVertices> a_lo;
    a_lo.fill(std::numeric_limits<double>::infinity());
    // Axes of A's edges (seed steps 3-11). For a non-convex A an edge farther from B than B's bounding circle
    // cannot meet B (step 9) and its axis could only end the test early (step 8): it is skipped.
    for (std::size_t k = 0; k < a.edges.size(); ++k) {
        const SatPolygon::Edge& e = a.edges[k];
        if (!a.convex && !near(e, b, margin)) continue;
        double lo = 0, hi = 0;
        b.project(e.normal, lo, hi);
        const double gap = std::max(e.min - hi, lo - e.max);              // step 7
        if (gap > margin) return Sat2Outcome::separated;                  // step 8
        if (!a.convex && !segment_meets(e, b, margin, lo, hi)) continue;  // step 9
        met_any = true;
        if (!a.convex)
            for (std::size_t j = 0; j < nb; ++j)
                a_lo[j] = std::min(a_lo[j], std::min(b.n[j].dot(e.start), b.n[j].dot(e.end)));
        const double depth = e.offset - lo;
        if (depth < best) {
            best = depth;
            best_edge = static_cast<int>(k);
            best_normal = e.normal;
        }
    }
    if (!met_any) {
        // Step 10: B meets no edge of A, so it is outside A or wholly inside it.
        const Vec2 p = b.v[0];
        bool inside = false;
        for (const SatPolygon::Edge& e : a.edges)
            if ((e.start.y() > p.y()) != (e.end.y() > p.y()) &&
                p.x() < (e.end.x() - e.start.x()) * (p.y() - e.start.y()) / (e.end.y() - e.start.y()) +
                            e.start.x())
                inside = !inside;
        return inside ? Sat2Outcome::undecided : Sat2Outcome::separated;
    }
    // Axes of B's edges: a convex A projected whole; for a non-convex A, which B meets (so no axis can
    // separate them), the edges B meets, whose lowest point is the depth of A's material at B.
    for (std::size_t j = 0; j < nb; ++j) {
        double lo = a_lo[j];
        if (a.convex)
            for (const Vec2& v : a.vertices) lo = std::min(lo, b.n[j].dot(v));
        const double gap = lo - b.c[j];
        if (gap > margin) return Sat2Outcome::separated;
        const double depth = b.c[j] - lo;
        // Ties go to A's edge (the whole polygon's feature is the reference).
        if (depth < best - 1e-12 * (1 + std::abs(best))) {
            best = depth;
            best_edge = -static_cast<int>(j) - 1;
            best_normal = -b.n[j];
        }
    }
    out = Sat2Contact{};
    out.normal = best_normal;  // steps 13-14 (outward normal of the reference edge, from A to B)
    out.depth = best;
    if (best_edge >= 0) {
        // Reference: A's edge; incident: B's edge most opposed to the normal.
        const SatPolygon::Edge& e = a.edges[static_cast<std::size_t>(best_edge)];
        std::size_t inc = 0;
        for (std::size_t j = 1; j < nb; ++j)
            if (b.n[j].dot(e.normal) < b.n[inc].dot(e.normal)) inc = j;
        Vec2 p0 = b.v[inc], p1 = b.v[(inc + 1) % nb];
        const Vec2 u = (e.end - e.start).normalized();
        const bool clipped = clip(p0, p1, u, u.dot(e.start), u.dot(e.end));
        const Vec2 pts[2] = {p0, p1};
        for (int i = 0; i < 2 && clipped; ++i) {
            const double sep = e.normal.dot(pts[i]) - e.offset;
            if (sep > margin) continue;
            out.points[out.count] = pts[i] - 0.5 * sep * e.normal;
            out.depths[out.count] = -sep;
            out.ids[out.count] = (static_cast<std::uint32_t>(best_edge) << 12) ^
                                 (static_cast<std::uint32_t>(inc) << 2) ^ static_cast<std::uint32_t>(i);
            ++out.count;
        }
        if (out.count == 0) {
            // The incident edge lies off the reference edge's extent or above it (B reaches behind the edge
            // with another feature): B's deepest vertex along -normal is the point.
            std::size_t deepest = 0;
            for (std::size_t j = 1; j < nb; ++j)
                if (e.normal.dot(b.v[j]) < e.normal.dot(b.v[deepest])) deepest = j;
            const double sep = e.normal.dot(b.v[deepest]) - e.offset;
            out.points[0] = b.v[deepest] - 0.5 * sep * e.normal;
            out.depths[0] = -sep;
            out.ids[0] = (static_cast<std::uint32_t>(best_edge) << 12) ^
                         (static_cast<std::uint32_t>(deepest) << 2) ^ 3u;
            out.count = 1;
        }
    } else {
        // Reference: B's edge j; incident: the edge of A that B meets and whose normal is most along A -> B.
        const std::size_t j = static_cast<std::size_t>(-best_edge - 1);
        const Vec2 p = b.v[j], q = b.v[(j + 1) % nb];
        const Vec2 m = b.n[j];
        const double c = b.c[j];
        std::size_t inc = 0;
        double most = -std::numeric_limits<double>::infinity();
        for (std::size_t k = 0; k < a.edges.size(); ++k) {
            const SatPolygon::Edge& e = a.edges[k];
            const double s = e.normal.dot(best_normal);
            if (s <= most) continue;
            if (!a.convex) {
                if (!near(e, b, margin)) continue;
                double lo = 0, hi = 0;
                b.project(e.normal, lo, hi);
                if (!segment_meets(e, b, margin, lo, hi)) continue;
            }
            most = s;
            inc = k;
        }
        const SatPolygon::Edge& e = a.edges[inc];
        Vec2 p0 = e.start, p1 = e.end;
        const Vec2 u = (q - p).normalized();
        const double s0 = u.dot(p), s1 = u.dot(q);
        const bool clipped = clip(p0, p1, u, std::min(s0, s1), std::max(s0, s1));
        const Vec2 pts[2] = {p0, p1};
        for (int i = 0; i < 2 && clipped; ++i) {
            const double sep = m.dot(pts[i]) - c;
            if (sep > margin) continue;
            out.points[out.count] = pts[i] + 0.5 * sep * best_normal;
            out.depths[out.count] = -sep;
            out.ids[out.count] = (1u << 30) ^ (static_cast<std::uint32_t>(j) << 12) ^
                                 (static_cast<std::uint32_t>(inc) << 2) ^ static_cast<std::uint32_t>(i);
            ++out.count;
        }
        if (out.count == 0) {
            // A's deepest point behind B's reference edge: the nearer-lying end of the incident edge.
            const Vec2 v = m.dot(e.start) <= m.dot(e.end) ? e.start : e.end;
            const double sep = m.dot(v) - c;
            out.points[0] = v + 0.5 * sep * best_normal;
            out.depths[0] = -sep;
            out.ids[0] = (1u << 30) ^ (static_cast<std::uint32_t>(j) << 12) ^
                         (static_cast<std::uint32_t>(inc) << 2) ^ 3u;
            out.count = 1;
        }
    }
    return Sat2Outcome::contact;
}

double sat_convex_convex(const Ring2& a, const Ring2& b, Vec2& normal) {
    double best = std::numeric_limits<double>::infinity();
    const auto axes = [&](const Ring2& ref, const Ring2& other, double dir) {
        for (std::size_t i = 0; i < ref.size(); ++i) {
            const Vec2 d = ref[(i + 1) % ref.size()] - ref[i];
            const Vec2 n = Vec2(d.y(), -d.x()).normalized();
            const double c = n.dot(ref[i]);
            double lo = std::numeric_limits<double>::infinity();
            for (const Vec2& v : other) lo = std::min(lo, n.dot(v));
            const double depth = c - lo;
            if (depth < best) {
                best = depth;
                normal = dir * n;
            }
            if (depth < 0) return false;
        }
        return true;
    };
    if (axes(a, b, 1.0)) axes(b, a, -1.0);
    return best;
}

}  // namespace simpulse
