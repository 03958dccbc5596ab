// GJK distance query with the signed-volume sub-algorithm (Montanari, Petrinic, Barbieri 2017, sect. 3.2: the
// closest point of a simplex is found from signed volumes of sub-simplices, and a sub-simplex is only
// examined when the origin lies beyond it) and van den Bergen's stopping rule on the duality gap (2003,
// sect. 4.3.4).
//
// Barycentric weights are computed relative to a vertex of each sub-simplex (never from absolute products
// alone), and near-degenerate simplices (collinear triangles, flat tetrahedra) are handed to their boundary
// instead of trusting a determinant made of rounding noise.
#include <simpulse/collision/gjk.h>

#include <cmath>
#include <limits>

namespace simpulse {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
// A triangle whose sine of angle (or a tetrahedron whose volume relative to its edge lengths) is below this
// is treated as degenerate: its determinant is then within ~1e5 ulps of rounding noise.
constexpr double kFlat = 1e-10;
// Rounding floor of GJK quantities, in ulps of the support points' magnitude: a distance or gap below
// kRounding * |w| is indistinguishable from zero.
constexpr double kRounding = 64 * kEps;
// Consecutive steps without a decrease of |v| tolerated before giving up.
constexpr int kMaxStalls = 3;

// Closest point of a sub-simplex: kept vertex indices (ascending) with their weights. Candidates are written
// into the best record found so far only when nearer, so the recursion copies nothing.
struct SubSimplex {
    std::array<int, 4> index{};
    std::array<double, 4> lambda{};
    int count = 0;
    Vec3 v = Vec3::Zero();
    double vv = std::numeric_limits<double>::infinity();
};

void vertex(const GjkSimplex& s, int i, SubSimplex& best) {
    const double vv = s.w[i].squaredNorm();
    if (!(vv < best.vv)) return;
    best.index[0] = i;
    best.lambda[0] = 1;
    best.count = 1;
    best.v = s.w[i];
    best.vv = vv;
}

// Segment p0 p1 (i0 < i1): origin projects at p0 + t (p1 - p0) with t = -p0.e / e.e; the two weights are
// computed as separate dot products so each is accurate when small.
void segment(const GjkSimplex& s, int i0, int i1, SubSimplex& best) {
    const Vec3& p0 = s.w[i0];
    const Vec3& p1 = s.w[i1];
    const Vec3 e = p1 - p0;
    const double u1 = -p0.dot(e);  // weight of p1 times e.e
    const double u0 = p1.dot(e);   // weight of p0 times e.e
    if (u1 <= 0) return vertex(s, i0, best);
    if (u0 <= 0) return vertex(s, i1, best);
    const double inv = 1.0 / (u0 + u1);
    const Vec3 v = (u0 * inv) * p0 + (u1 * inv) * p1;
    const double vv = v.squaredNorm();
    if (!(vv < best.vv)) return;
    best.index[0] = i0;
    best.index[1] = i1;
    best.lambda[0] = u0 * inv;
    best.lambda[1] = u1 * inv;
    best.count = 2;
    best.v = v;
    best.vv = vv;
}

// Triangle (i0 < i1 < i2).
void triangle(const GjkSimplex& s, int i0, int i1, int i2, SubSimplex& best) {
    const Vec3& p0 = s.w[i0];
    const Vec3& p1 = s.w[i1];
    const Vec3& p2 = s.w[i2];
    const Vec3 e01 = p1 - p0;
    const Vec3 e12 = p2 - p1;
    const Vec3 e20 = p0 - p2;
    const Vec3 n = e01.cross(-e20);
    const double nn = n.squaredNorm();
    if (!(nn > kFlat * kFlat * e01.squaredNorm() * e20.squaredNorm())) {
        // Collinear: the closest point is on one of the edges.
        segment(s, i0, i1, best);
        segment(s, i1, i2, best);
        segment(s, i0, i2, best);
        return;
    }
    // Weight of vertex k: signed area spanned by the origin's projection and the opposite edge, n . (p x e)
    // taken from the first vertex p of that edge (the offset of the projection along n drops out).
    const double c0 = n.dot(p1.cross(e12));
    const double c1 = n.dot(p2.cross(e20));
    const double c2 = n.dot(p0.cross(e01));
    if (c0 > 0 && c1 > 0 && c2 > 0) {
        // The projection of the origin onto the plane: exact direction n, robust for tiny distances.
        const Vec3 v = n * (n.dot(p0) / nn);
        const double vv = v.squaredNorm();
        if (!(vv < best.vv)) return;
        const double inv = 1.0 / (c0 + c1 + c2);
        best.index = {i0, i1, i2, 0};
        best.lambda = {c0 * inv, c1 * inv, c2 * inv, 0};
        best.count = 3;
        best.v = v;
        best.vv = vv;
        return;
    }
    // The origin projects beyond at least one edge: only those edges can hold the closest point.
    if (c0 <= 0) segment(s, i1, i2, best);
    if (c1 <= 0) segment(s, i0, i2, best);
    if (c2 <= 0) segment(s, i0, i1, best);
}

void tetrahedron(const GjkSimplex& s, SubSimplex& best) {
    const Vec3& p0 = s.w[0];
    const Vec3& p1 = s.w[1];
    const Vec3& p2 = s.w[2];
    const Vec3& p3 = s.w[3];
    const Vec3 e1 = p1 - p0;
    const Vec3 e2 = p2 - p0;
    const Vec3 e3 = p3 - p0;
    const Vec3 e2x3 = e2.cross(e3);
    const double mu = e1.dot(e2x3);
    if (!(mu * mu > kFlat * kFlat * e1.squaredNorm() * e2.squaredNorm() * e3.squaredNorm())) {
        // Flat: the closest point is on its boundary.
        triangle(s, 1, 2, 3, best);
        triangle(s, 0, 2, 3, best);
        triangle(s, 0, 1, 3, best);
        triangle(s, 0, 1, 2, best);
        return;
    }
    // Cofactors: the volume with vertex j replaced by the origin, each measured from a remaining vertex.
    const double c0 = p1.dot((p2 - p1).cross(p3 - p1));
    const double c1 = -p0.dot(e2x3);
    const double c2 = -p0.dot(e3.cross(e1));
    const double c3 = -p0.dot(e1.cross(e2));
    const bool in0 = mu * c0 > 0, in1 = mu * c1 > 0, in2 = mu * c2 > 0, in3 = mu * c3 > 0;
    if (in0 && in1 && in2 && in3) {
        const double inv = 1.0 / (c0 + c1 + c2 + c3);
        best.index = {0, 1, 2, 3};
        best.lambda = {c0 * inv, c1 * inv, c2 * inv, c3 * inv};
        best.count = 4;
        best.v = Vec3::Zero();
        best.vv = 0;
        return;
    }
    if (!in0) triangle(s, 1, 2, 3, best);
    if (!in1) triangle(s, 0, 2, 3, best);
    if (!in2) triangle(s, 0, 1, 3, best);
    if (!in3) triangle(s, 0, 1, 2, best);
}

SubSimplex solve(const GjkSimplex& s) {
    SubSimplex best;
    switch (s.count) {
        case 1:
            vertex(s, 0, best);
            break;
        case 2:
            segment(s, 0, 1, best);
            break;
        case 3:
            triangle(s, 0, 1, 2, best);
            break;
        default:
            tetrahedron(s, best);
            break;
    }
    return best;
}

// Keeps the vertices of `sub` (ascending indices, so in-place compaction never overwrites a source and the
// newest vertex stays last).
// `kWitness` false skips the support points of A and B (the boolean query never reads them).
template <bool kWitness = true>
void reduce(GjkSimplex& s, const SubSimplex& sub, std::array<double, 4>& lambda) {
    for (int k = 0; k < sub.count; ++k) {
        const int i = sub.index[k];
        if (i != k) {
            s.w[k] = s.w[i];
            if constexpr (kWitness) {
                s.a[k] = s.a[i];
                s.b[k] = s.b[i];
            }
        }
        lambda[k] = sub.lambda[k];
    }
    for (int k = sub.count; k < 4; ++k) lambda[k] = 0;
    s.count = sub.count;
}

ConvexSupport shifted(const ConvexSupport& s, const Vec3& origin) {
    ConvexSupport r = s;
    r.pose.position -= origin;
    return r;
}

// Shared loop of gjk() and gjk_intersect(). `boolean` stops at the first separating axis; it runs on the
// cores with `margin` = the sum of their radii: the shapes overlap once |v| <= margin, and are apart once the
// lower bound v.w/|v| exceeds it.
template <bool kBoolean>
GjkResult run(const ConvexSupport& a, const ConvexSupport& b, const GjkSettings& settings,
              [[maybe_unused]] double margin = 0) {
    GjkResult r;
    GjkSimplex& s = r.simplex;
    std::array<double, 4> lambda{1, 0, 0, 0};

    Vec3 dir;  // last search direction: support of A - B along dir
    if (settings.initial_direction.squaredNorm() > 0) {
        // Warm start: the first support point along the guessed normal.
        dir = settings.initial_direction;
        s.a[0] = a.support(dir);
        s.b[0] = b.support(-dir);
        r.iterations = 1;
    } else {
        // Cold start from the difference of the centres, a point of A - B like any other: the first support
        // is then along the line between the centres, which separates most pairs that are apart at once.
        s.a[0] = a.center();
        s.b[0] = b.center();
        dir = s.b[0] - s.a[0];
        r.iterations = 0;
    }
    s.w[0] = s.a[0] - s.b[0];
    s.count = 1;
    Vec3 v = s.w[0];
    double vv = v.squaredNorm();

    bool intersecting = false;
    bool converged = false;
    [[maybe_unused]] bool separated = false;  // boolean mode: a separating axis was found
    int stalls = 0;
    for (;;) {
        if (!(vv > 0)) {  // the origin is a vertex of A - B: touching
            intersecting = true;
            break;
        }
        if constexpr (kBoolean) {
            if (vv <= margin * margin) break;  // a point of the cores' difference within the radii: overlap
        }
        if (r.iterations >= settings.max_iterations) break;
        dir = -v;
        const Vec3 pa = a.support(dir);
        const Vec3 pb = b.support(v);
        const Vec3 w = pa - pb;
        ++r.iterations;
        const double vw = v.dot(w);
        // Rounding floor kRounding |v| |w|, compared in squares (no square root in the loop).
        const double rounding2 = kRounding * kRounding * vv * w.squaredNorm();
        if constexpr (kBoolean) {
            // Lower bound of the distance v.w/|v| beyond the radii and rounding: the plane orthogonal to v
            // separates the inflated cores.
            if (vw > 0 &&
                (margin > 0 ? vw > std::sqrt(vv) * margin + std::sqrt(rounding2) : vw * vw > rounding2)) {
                separated = true;
                break;
            }
        }
        // Duality gap |v|^2 - v.w = |v| (upper - lower bound of the distance).
        const double excess = vv - vw - settings.relative_tolerance * vv;
        if (excess <= 0 || excess * excess <= rounding2) {
            converged = true;
            break;
        }
        bool repeated = false;
        for (int i = 0; i < s.count; ++i) repeated = repeated || s.w[i] == w;
        if (repeated) break;  // a vertex has v.w >= |v|^2 up to rounding: the weights are too ill-conditioned
        s.w[s.count] = w;
        if constexpr (!kBoolean) {
            s.a[s.count] = pa;
            s.b[s.count] = pb;
        }
        ++s.count;

        const SubSimplex sub = solve(s);
        reduce<!kBoolean>(s, sub, lambda);
        if (s.count == 4) {
            intersecting = true;
            converged = true;
            break;
        }
        double w_max = 0;
        for (int i = 0; i < s.count; ++i) w_max = std::max(w_max, s.w[i].squaredNorm());
        if (sub.vv <= kRounding * kRounding * w_max) {  // origin on the simplex within rounding
            v = sub.v;
            vv = sub.vv;
            intersecting = true;
            converged = true;
            break;
        }
        // Near-duplicate support points on curved features make the weights ill-conditioned, and rounding can
        // stop |v| from decreasing for a step or two while the gap is still open: keep going a few steps.
        stalls = sub.vv < vv ? 0 : stalls + 1;
        v = sub.v;
        vv = sub.vv;
        if (stalls > kMaxStalls) break;
    }

    r.converged = converged;
    if constexpr (kBoolean) {
        // The boolean query only answers "separated" with a separating axis in hand; every other exit
        // (convergence, stall, iteration cap) left the origin within rounding of A - B or undecided.
        r.intersecting = !separated;
        r.converged = converged || separated;
        return r;  // no witness points: the simplex kept only w
    }
    r.intersecting = intersecting;
    r.point_a = Vec3::Zero();
    r.point_b = Vec3::Zero();
    for (int i = 0; i < s.count; ++i) {
        r.point_a += lambda[i] * s.a[i];
        r.point_b += lambda[i] * s.b[i];
    }
    if (intersecting) {
        r.distance = 0;
        const double dd = dir.squaredNorm();
        r.normal = dd > 0 ? Vec3(dir / std::sqrt(dd)) : Vec3::UnitZ();
    } else {
        // The distance of the reported points (an upper bound: they lie in the sets); the normal from v,
        // whose direction is the accurate part when the weights are ill-conditioned.
        r.distance = (r.point_b - r.point_a).norm();
        r.normal = -v / std::sqrt(vv);
    }
    return r;
}

}  // namespace

GjkResult gjk(const ConvexSupport& a, const ConvexSupport& b, const GjkSettings& settings) {
    const Vec3 origin = a.pose.position;
    GjkResult r = run<false>(shifted(a, origin), shifted(b, origin), settings);
    r.point_a += origin;
    r.point_b += origin;
    r.simplex.origin = origin;
    return r;
}

bool gjk_intersect(const ConvexSupport& a, const ConvexSupport& b, const GjkSettings& settings) {
    // On the cores: a sphere is a point and a capsule a segment, so the answer comes in two or three steps
    // instead of a polytope converging onto a curved surface.
    const Vec3 origin = a.pose.position;
    const double margin = (a.core_only ? 0.0 : a.radius) + (b.core_only ? 0.0 : b.radius);
    return run<true>(shifted(a, origin).core(), shifted(b, origin).core(), settings, margin).intersecting;
}

Vec3 gjk_closest_on_simplex(GjkSimplex& simplex, std::array<double, 4>& lambda) {
    const SubSimplex sub = solve(simplex);
    reduce(simplex, sub, lambda);
    return sub.v;
}

}  // namespace simpulse
