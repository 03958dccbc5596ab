// Approximate convex decomposition of a polygon with holes, after the thesis, chapter 5 (SEEDS.md section 5):
// SplitMulti reduces an n-contour to a 2-contour (each step joins one hole to the outer boundary by a cut, a
// zero-width cut-off region, so the boundary count drops by one); SplitDuo splits the 2-contour into two
// 1-contours (the last hole joined by one cut and the contour divided by a second cut from the hole's far
// side); Simplify divides each 1-contour recursively at its deepest notch until the piece's convex hull
// exceeds its area by at most the quality threshold, then replaces it by its hull. Cuts are chosen by the
// thesis' factors: local non-convexity (the deepest reflex vertex first, a cut ending at a reflex vertex
// preferred), the angles the cut makes with the boundary (a cut splitting a reflex angle into two convex ones
// preferred) and the perimeter of the pieces (shorter cuts preferred).
#include <simpulse/collision/polygon.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace simpulse {
namespace {

// Direction d from vertex v (previous a, next b, material on the left) points into the material.
bool in_cone(const Vec2& a, const Vec2& v, const Vec2& b, const Vec2& t) {
    const Vec2 d = t - v;
    if (cross2(v - a, b - v) >= 0) return cross2(b - v, d) > 0 && cross2(d, a - v) > 0;
    return cross2(b - v, d) > 0 || cross2(d, a - v) > 0;
}

// The segment p q crosses or touches no edge of the rings, other than edges ending at p or q. Segments that
// meet share a point, which lies in both closed bounding boxes: the box test only skips exact tests that
// would say no.
bool cut_clear(const Vec2& p, const Vec2& q, const std::vector<const Ring2*>& rings) {
    const Vec2 lo = p.cwiseMin(q), hi = p.cwiseMax(q);
    for (const Ring2* ring : rings)
        for (std::size_t i = 0; i < ring->size(); ++i) {
            const Vec2 &e0 = (*ring)[i], &e1 = (*ring)[(i + 1) % ring->size()];
            if (std::max(e0.x(), e1.x()) < lo.x() || std::min(e0.x(), e1.x()) > hi.x() ||
                std::max(e0.y(), e1.y()) < lo.y() || std::min(e0.y(), e1.y()) > hi.y())
                continue;
            if (e0 == p || e0 == q || e1 == p || e1 == q) continue;
            if (segments_meet(p, q, e0, e1)) return false;
        }
    return true;
}

const Vec2& at(const Ring2& r, std::size_t i) {
    return r[i % r.size()];
}
const Vec2& before(const Ring2& r, std::size_t i) {
    return r[(i + r.size() - 1) % r.size()];
}

// Shortest cut from a vertex of `outer` to a vertex of `hole` inside the material, crossing nothing.
bool best_bridge(const Ring2& outer, const Ring2& hole, const std::vector<const Ring2*>& rings,
                 std::size_t& oi, std::size_t& hj) {
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < outer.size(); ++i)
        for (std::size_t j = 0; j < hole.size(); ++j) {
            const Vec2 &o = outer[i], &h = hole[j];
            const double d2 = (h - o).squaredNorm();
            if (d2 >= best) continue;
            if (!in_cone(before(outer, i), o, at(outer, i + 1), h)) continue;
            if (!in_cone(before(hole, j), h, at(hole, j + 1), o)) continue;
            if (!cut_clear(o, h, rings)) continue;
            best = d2;
            oi = i;
            hj = j;
        }
    return std::isfinite(best);
}

// outer[0..oi], hole[hj..], hole[..hj], outer[oi..]: the hole joined by a two-sided cut.
Ring2 join(const Ring2& outer, std::size_t oi, const Ring2& hole, std::size_t hj) {
    Ring2 r(outer.begin(), outer.begin() + static_cast<std::ptrdiff_t>(oi) + 1);
    for (std::size_t k = 0; k <= hole.size(); ++k) r.push_back(at(hole, hj + k));
    r.insert(r.end(), outer.begin() + static_cast<std::ptrdiff_t>(oi), outer.end());
    return r;
}

// Cut between vertices i and k of a (possibly weakly simple) contour that leaves both ends into the material;
// a valid diagonal if it also crosses nothing (cut_clear).
bool diagonal_candidate(const Ring2& p, std::size_t i, std::size_t k) {
    const std::size_t n = p.size();
    if (i == k || (i + 1) % n == k || (k + 1) % n == i || p[i] == p[k]) return false;
    if (!in_cone(before(p, i), p[i], at(p, i + 1), p[k])) return false;
    return in_cone(before(p, k), p[k], at(p, k + 1), p[i]);
}

bool reflex(const Ring2& p, std::size_t i) {
    return cross2(p[i] - before(p, i), at(p, i + 1) - p[i]) < 0;
}

// The thesis' cut score (smaller is better) of the cut from reflex vertex i to vertex k.
double cut_score(const Ring2& p, std::size_t i, std::size_t k) {
    const Vec2 d = p[k] - p[i];
    const Vec2 u = p[i] - before(p, i), w = at(p, i + 1) - p[i];
    const bool resolves = cross2(w, d) >= 0 && cross2(u, d) >= 0;
    return d.norm() * (resolves ? 1.0 : 4.0) * (reflex(p, k) ? 0.7 : 1.0);
}

void split_at(const Ring2& p, std::size_t i, std::size_t k, Ring2& first, Ring2& second) {
    if (i > k) std::swap(i, k);
    first.assign(p.begin() + static_cast<std::ptrdiff_t>(i), p.begin() + static_cast<std::ptrdiff_t>(k) + 1);
    second.assign(p.begin() + static_cast<std::ptrdiff_t>(k), p.end());
    second.insert(second.end(), p.begin(), p.begin() + static_cast<std::ptrdiff_t>(i) + 1);
}

// Best cut from vertex i (the valid diagonal of least score, the first of equal ones); false when none
// exists. Candidates are tested for crossings in order of score, so that the crossing test, linear in the
// contour, runs for the few best candidates instead of every vertex.
bool best_cut_from(const Ring2& p, std::size_t i, std::size_t& k_best) {
    std::vector<std::pair<double, std::size_t>> candidates;
    for (std::size_t k = 0; k < p.size(); ++k) {
        if (!diagonal_candidate(p, i, k)) continue;
        if (const double score = cut_score(p, i, k); std::isfinite(score)) candidates.emplace_back(score, k);
    }
    std::sort(candidates.begin(), candidates.end());
    const std::vector<const Ring2*> rings{&p};
    for (const auto& [score, k] : candidates)
        if (cut_clear(p[i], p[k], rings)) {
            k_best = k;
            return true;
        }
    return false;
}

// Simplify (thesis ch. 5): recursive division at the deepest notch until the hull is within the threshold.
void simplify(Ring2 piece, double tolerance, std::vector<Ring2>& parts) {
    std::vector<Ring2> stack{std::move(piece)};
    while (!stack.empty()) {
        Ring2 p = std::move(stack.back());
        stack.pop_back();
        Ring2 hull = convex_hull_2d(p);
        if (hull.size() < 3) continue;
        const double area = signed_area2(p) / 2, hull_area = signed_area2(hull) / 2;
        // Rounding of the two areas (a convex piece is kept at tolerance 0).
        const double rounding = 1e-12 * hull_area;
        if (hull_area - area <= tolerance * area + rounding) {
            parts.push_back(std::move(hull));
            continue;
        }
        // Reflex vertices by their depth below the hull (local non-convexity).
        std::vector<std::pair<double, std::size_t>> notches;
        for (std::size_t i = 0; i < p.size(); ++i) {
            if (!reflex(p, i)) continue;
            double depth = std::numeric_limits<double>::infinity();
            for (std::size_t h = 0; h < hull.size(); ++h) {
                const Vec2 e = at(hull, h + 1) - hull[h];
                depth = std::min(depth, cross2(e, p[i] - hull[h]) / e.norm());
            }
            notches.emplace_back(-depth, i);
        }
        std::sort(notches.begin(), notches.end());
        bool split = false;
        for (const auto& [neg_depth, i] : notches) {
            std::size_t k = 0;
            if (!best_cut_from(p, i, k)) continue;
            Ring2 a, b;
            split_at(p, i, k, a, b);
            stack.push_back(std::move(a));
            stack.push_back(std::move(b));
            split = true;
            break;
        }
        // No valid cut from any reflex vertex (only possible through rounding on near-degenerate input): the
        // hull is kept, over the threshold.
        if (!split) parts.push_back(std::move(hull));
    }
}

}  // namespace

std::vector<Ring2> decompose_polygon(const std::vector<Ring2>& boundaries, double tolerance) {
    Ring2 outer = boundaries[0];
    std::vector<Ring2> pieces;
    // SplitMulti: join holes 1 .. n-2 to the outer boundary, one boundary fewer per step; the last hole is
    // SplitDuo.
    const std::size_t holes = boundaries.size() - 1;
    for (std::size_t h = 1; h <= holes; ++h) {
        const bool last = h == holes;
        std::vector<const Ring2*> rings{&outer};
        for (std::size_t c = h; c < boundaries.size(); ++c) rings.push_back(&boundaries[c]);
        std::size_t oi = 0, hj = 0;
        if (!best_bridge(outer, boundaries[h], rings, oi, hj)) continue;  // validated input always has one
        Ring2 joined = join(outer, oi, boundaries[h], hj);
        if (!last) {
            outer = std::move(joined);
            continue;
        }
        // SplitDuo: the 2-contour (outer + last hole) joined by one cut is divided by a second cut from the
        // hole vertex farthest from the first cut into two 1-contours.
        const std::size_t first_hole = oi + 1, n_hole = boundaries[h].size();
        std::size_t far = first_hole;
        double far_d = -1;
        for (std::size_t k = 1; k < n_hole; ++k) {
            const double d = (joined[first_hole + k] - joined[first_hole]).squaredNorm();
            if (d > far_d) {
                far_d = d;
                far = first_hole + k;
            }
        }
        std::size_t k = 0;
        if (best_cut_from(joined, far, k)) {
            Ring2 a, b;
            split_at(joined, far, k, a, b);
            pieces.push_back(std::move(a));
            pieces.push_back(std::move(b));
        } else {
            pieces.push_back(std::move(joined));
        }
        outer.clear();
    }
    if (!outer.empty()) pieces.push_back(std::move(outer));
    std::vector<Ring2> parts;
    for (Ring2& piece : pieces) simplify(std::move(piece), tolerance, parts);
    return parts;
}

}  // namespace simpulse
