// Plane polygons with holes: validation (simple, oriented, holes inside), exact area moments by Green's
// theorem per edge, even-odd containment, Andrew's monotone-chain hull and the SAT preparation of the seed
// (nonconvex-2d-sat.ru.txt, steps 1-5: edges and their normalised perpendicular axes).
#include <simpulse/collision/polygon.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace simpulse {
namespace {

int sign(double v) {
    return (v > 0) - (v < 0);
}

bool ring_contains(const Ring2& ring, const Vec2& p) {
    bool inside = false;
    for (std::size_t i = 0, j = ring.size() - 1; i < ring.size(); j = i++) {
        const Vec2 &a = ring[i], &b = ring[j];
        if ((a.y() > p.y()) != (b.y() > p.y()) &&
            p.x() < (b.x() - a.x()) * (p.y() - a.y()) / (b.y() - a.y()) + a.x())
            inside = !inside;
    }
    return inside;
}

double segment_distance2(const Vec2& a, const Vec2& b, const Vec2& p) {
    const Vec2 d = b - a;
    const double s = std::clamp((p - a).dot(d) / d.squaredNorm(), 0.0, 1.0);
    return (p - (a + s * d)).squaredNorm();
}

std::string where(std::size_t boundary, std::size_t point) {
    return "boundary " + std::to_string(boundary) + " point " + std::to_string(point);
}

}  // namespace

bool segments_meet(const Vec2& p0, const Vec2& p1, const Vec2& q0, const Vec2& q1) {
    const int d1 = sign(cross2(p1 - p0, q0 - p0)), d2 = sign(cross2(p1 - p0, q1 - p0));
    const int d3 = sign(cross2(q1 - q0, p0 - q0)), d4 = sign(cross2(q1 - q0, p1 - q0));
    if (d1 * d2 < 0 && d3 * d4 < 0) return true;
    const auto on = [](const Vec2& a, const Vec2& b, const Vec2& c) {  // c on segment ab, given collinear
        return std::min(a.x(), b.x()) <= c.x() && c.x() <= std::max(a.x(), b.x()) &&
               std::min(a.y(), b.y()) <= c.y() && c.y() <= std::max(a.y(), b.y());
    };
    return (d1 == 0 && on(p0, p1, q0)) || (d2 == 0 && on(p0, p1, q1)) || (d3 == 0 && on(q0, q1, p0)) ||
           (d4 == 0 && on(q0, q1, p1));
}

double signed_area2(const Ring2& p) {
    double s = 0;
    for (std::size_t i = 0, j = p.size() - 1; i < p.size(); j = i++) s += cross2(p[j], p[i]);
    return s;
}

std::string validate_polygon(const std::vector<Ring2>& boundaries) {
    if (boundaries.empty()) return "needs at least one boundary (the outer one)";
    std::size_t points = 0;
    for (const Ring2& ring : boundaries) points += ring.size();
    if (points > kMaxPolygonPoints)
        return "has " + std::to_string(points) + " points in its boundaries, expected at most " +
               std::to_string(kMaxPolygonPoints) + " (a finer outline is not decomposed in reasonable time)";
    double scale = 0;
    for (std::size_t b = 0; b < boundaries.size(); ++b) {
        const Ring2& ring = boundaries[b];
        if (ring.size() < 3)
            return "boundary " + std::to_string(b) + " has " + std::to_string(ring.size()) +
                   " points, expected at least 3";
        for (std::size_t i = 0; i < ring.size(); ++i) {
            if (!ring[i].allFinite()) return where(b, i) + " is not finite";
            scale = std::max(scale, ring[i].cwiseAbs().maxCoeff());
        }
    }
    // Points closer than this are one point (a zero-length edge has no normal).
    const double eps = 1e-9 * std::max(scale, 1e-300);
    for (std::size_t b = 0; b < boundaries.size(); ++b) {
        const Ring2& ring = boundaries[b];
        for (std::size_t i = 0; i < ring.size(); ++i)
            if ((ring[(i + 1) % ring.size()] - ring[i]).norm() <= eps)
                return where(b, i) + " repeats the next point (zero-length edge)";
        const double area2 = signed_area2(ring);
        if (std::abs(area2) <= eps * scale) return "boundary " + std::to_string(b) + " has zero area";
        if (b == 0 && area2 < 0) return "boundary 0 (outer) is clockwise, expected counter-clockwise";
        if (b > 0 && area2 > 0)
            return "boundary " + std::to_string(b) + " (a hole) is counter-clockwise, expected clockwise";
    }
    // Simple: no two edges meet except consecutive edges of one boundary at their shared point, and no point
    // lies on a non-adjacent edge.
    for (std::size_t b = 0; b < boundaries.size(); ++b) {
        const Ring2& r = boundaries[b];
        for (std::size_t i = 0; i < r.size(); ++i) {
            const Vec2 &p0 = r[i], &p1 = r[(i + 1) % r.size()];
            for (std::size_t c = b; c < boundaries.size(); ++c) {
                const Ring2& s = boundaries[c];
                for (std::size_t j = (c == b ? i + 1 : 0); j < s.size(); ++j) {
                    const Vec2 &q0 = s[j], &q1 = s[(j + 1) % s.size()];
                    if (c == b) {
                        const std::size_t n = r.size();
                        const bool next = j == (i + 1) % n, prev = i == (j + 1) % n;
                        if (next || prev) {
                            // Adjacent edges meet at their shared point only: not folded back onto each
                            // other.
                            const Vec2 shared = next ? p1 : p0;
                            const Vec2 a = next ? p0 : p1, d = next ? q1 : q0;
                            if (n == 3) continue;
                            if (segment_distance2(shared, a, d) <= eps * eps ||
                                segment_distance2(shared, d, a) <= eps * eps)
                                return where(b, next ? j : i) + ": the boundary folds back on itself";
                            continue;
                        }
                    }
                    if (segments_meet(p0, p1, q0, q1))
                        return where(b, i) + ": edge " + std::to_string(i) + " meets " +
                               (c == b ? "edge " + std::to_string(j) : where(c, j) + "'s edge") +
                               " (boundaries must be simple and must not touch)";
                }
            }
        }
    }
    for (std::size_t b = 1; b < boundaries.size(); ++b) {
        if (!ring_contains(boundaries[0], boundaries[b][0]))
            return where(b, 0) + " lies outside the outer boundary (holes must be inside it)";
        for (std::size_t c = 1; c < boundaries.size(); ++c)
            if (c != b && ring_contains(boundaries[c], boundaries[b][0]))
                return where(b, 0) + " lies inside hole " + std::to_string(c) + " (holes must not nest)";
    }
    return "";
}

PolygonMoments polygon_moments(const std::vector<Ring2>& boundaries) {
    // Moments about the first point (small coordinates keep the sums accurate), then shifted.
    const Vec2 o = boundaries[0][0];
    double a2 = 0, cx = 0, cy = 0, ixx = 0, iyy = 0, ixy = 0;
    for (const Ring2& ring : boundaries)
        for (std::size_t i = 0, j = ring.size() - 1; i < ring.size(); j = i++) {
            const Vec2 p = ring[j] - o, q = ring[i] - o;
            const double c = cross2(p, q);
            a2 += c;
            cx += (p.x() + q.x()) * c;
            cy += (p.y() + q.y()) * c;
            ixx += (p.x() * p.x() + p.x() * q.x() + q.x() * q.x()) * c;
            iyy += (p.y() * p.y() + p.y() * q.y() + q.y() * q.y()) * c;
            ixy += (p.x() * q.y() + 2 * p.x() * p.y() + 2 * q.x() * q.y() + q.x() * p.y()) * c;
        }
    PolygonMoments m;
    m.area = a2 / 2;
    const Vec2 c(cx / (3 * a2), cy / (3 * a2));
    m.centroid = o + c;
    m.sxx = ixx / 12 - m.area * c.x() * c.x();
    m.syy = iyy / 12 - m.area * c.y() * c.y();
    m.sxy = ixy / 24 - m.area * c.x() * c.y();
    return m;
}

bool polygon_contains(const std::vector<Ring2>& boundaries, const Vec2& p) {
    bool inside = false;
    for (const Ring2& ring : boundaries) {
        for (std::size_t i = 0, j = ring.size() - 1; i < ring.size(); j = i++)
            if (segment_distance2(ring[j], ring[i], p) == 0) return true;
        if (ring_contains(ring, p)) inside = !inside;
    }
    return inside;
}

Ring2 convex_hull_2d(Ring2 pts) {
    std::sort(pts.begin(), pts.end(), [](const Vec2& a, const Vec2& b) {
        return a.x() < b.x() || (a.x() == b.x() && a.y() < b.y());
    });
    pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
    if (pts.size() < 3) return pts;
    Ring2 h(2 * pts.size());
    std::size_t k = 0;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        while (k >= 2 && cross2(h[k - 1] - h[k - 2], pts[i] - h[k - 2]) <= 0) --k;
        h[k++] = pts[i];
    }
    for (std::size_t i = pts.size() - 1, t = k + 1; i-- > 0;) {
        while (k >= t && cross2(h[k - 1] - h[k - 2], pts[i] - h[k - 2]) <= 0) --k;
        h[k++] = pts[i];
    }
    h.resize(k - 1);
    return h;
}

SatPolygon make_sat_polygon(const std::vector<Ring2>& boundaries) {
    SatPolygon s;
    for (const Ring2& ring : boundaries) s.vertices.insert(s.vertices.end(), ring.begin(), ring.end());
    s.convex = boundaries.size() == 1;
    for (const Ring2& ring : boundaries)
        for (std::size_t i = 0; i < ring.size(); ++i) {
            SatPolygon::Edge e;
            e.start = ring[i];
            e.end = ring[(i + 1) % ring.size()];
            const Vec2 d = e.end - e.start;
            e.normal = Vec2(d.y(), -d.x()).normalized();  // seed step 4-5 (outward: material on the left)
            e.offset = e.normal.dot(e.start);
            e.min = e.max = e.offset;
            for (const Vec2& v : s.vertices) {
                e.min = std::min(e.min, e.normal.dot(v));
                e.max = std::max(e.max, e.normal.dot(v));
            }
            if (cross2(d, ring[(i + 2) % ring.size()] - e.end) < 0) s.convex = false;
            s.edges.push_back(e);
        }
    return s;
}

}  // namespace simpulse
