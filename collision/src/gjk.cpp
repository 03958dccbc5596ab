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

struct SubSimplex {
    std::array<int, 4> index{};
    std::array<double, 4> lambda{};
    int count = 0;
    Vec3 v = Vec3::Zero();
    double vv = 0;
};

SubSimplex vertex(const GjkSimplex& s, int i) {
    SubSimplex r;
    r.index[0] = i;
    r.lambda[0] = 1;
    r.count = 1;
    r.v = s.w[i];
    r.vv = r.v.squaredNorm();
    return r;
}

// Segment p0 p1: origin projects at p0 + t (p1 - p0) with t = -p0.e / e.e; the two weights are computed as
// separate dot products so each is accurate when small.
SubSimplex segment(const GjkSimplex& s, int i0, int i1) {
    const Vec3& p0 = s.w[i0];
    const Vec3& p1 = s.w[i1];
    const Vec3 e = p1 - p0;
    const double u1 = -p0.dot(e);  // weight of p1 times e.e
    const double u0 = p1.dot(e);   // weight of p0 times e.e
    if (u1 <= 0) return vertex(s, i0);
    if (u0 <= 0) return vertex(s, i1);
    SubSimplex r;
    const double inv = 1.0 / (u0 + u1);
    r.index = {i0, i1, 0, 0};
    r.lambda = {u0 * inv, u1 * inv, 0, 0};
    r.count = 2;
    r.v = r.lambda[0] * p0 + r.lambda[1] * p1;
    r.vv = r.v.squaredNorm();
    return r;
}

const SubSimplex& closer(const SubSimplex& x, const SubSimplex& y) {
    return y.vv < x.vv ? y : x;
}

SubSimplex triangle(const GjkSimplex& s, int i0, int i1, int i2) {
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
        return closer(closer(segment(s, i0, i1), segment(s, i1, i2)), segment(s, i2, i0));
    }
    // Weight of vertex k is the signed area of the origin's projection with the opposite edge, n . ((-p) x
    // e), measured from a vertex of that edge.
    const double c0 = n.dot(p1.cross(e12));
    const double c1 = n.dot(p2.cross(e20));
    const double c2 = n.dot(p0.cross(e01));
    if (c0 > 0 && c1 > 0 && c2 > 0) {
        SubSimplex r;
        const double inv = 1.0 / (c0 + c1 + c2);
        r.index = {i0, i1, i2, 0};
        r.lambda = {c0 * inv, c1 * inv, c2 * inv, 0};
        r.count = 3;
        // The projection of the origin onto the plane: exact direction n, robust for tiny distances.
        r.v = n * (n.dot(p0) / nn);
        r.vv = r.v.squaredNorm();
        return r;
    }
    // The origin projects beyond at least one edge: only those edges can hold the closest point.
    SubSimplex best;
    best.vv = std::numeric_limits<double>::infinity();
    if (c0 <= 0) best = closer(best, segment(s, i1, i2));
    if (c1 <= 0) best = closer(best, segment(s, i2, i0));
    if (c2 <= 0) best = closer(best, segment(s, i0, i1));
    return best;
}

SubSimplex tetrahedron(const GjkSimplex& s) {
    const Vec3& p0 = s.w[0];
    const Vec3& p1 = s.w[1];
    const Vec3& p2 = s.w[2];
    const Vec3& p3 = s.w[3];
    const Vec3 e1 = p1 - p0;
    const Vec3 e2 = p2 - p0;
    const Vec3 e3 = p3 - p0;
    const double mu = e1.dot(e2.cross(e3));
    const double scale = std::sqrt(e1.squaredNorm() * e2.squaredNorm() * e3.squaredNorm());
    SubSimplex best;
    best.vv = std::numeric_limits<double>::infinity();
    if (!(std::abs(mu) > kFlat * scale)) {
        // Flat: the closest point is on its boundary.
        best = closer(best, triangle(s, 1, 2, 3));
        best = closer(best, triangle(s, 0, 2, 3));
        best = closer(best, triangle(s, 0, 1, 3));
        best = closer(best, triangle(s, 0, 1, 2));
        return best;
    }
    // Cofactors: the volume with vertex j replaced by the origin, each measured from a remaining vertex.
    const double c0 = p1.dot((p2 - p1).cross(p3 - p1));
    const double c1 = -p0.dot(e2.cross(e3));
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
        return best;
    }
    if (!in0) best = closer(best, triangle(s, 1, 2, 3));
    if (!in1) best = closer(best, triangle(s, 0, 2, 3));
    if (!in2) best = closer(best, triangle(s, 0, 1, 3));
    if (!in3) best = closer(best, triangle(s, 0, 1, 2));
    return best;
}

SubSimplex solve(const GjkSimplex& s) {
    switch (s.count) {
        case 1:
            return vertex(s, 0);
        case 2:
            return segment(s, 0, 1);
        case 3:
            return triangle(s, 0, 1, 2);
        default:
            return tetrahedron(s);
    }
}

// Keeps the vertices of `sub` (in their original order, so the newest stays last).
void reduce(GjkSimplex& s, const SubSimplex& sub, std::array<double, 4>& lambda) {
    std::array<int, 4> order = sub.index;
    std::array<double, 4> weight = sub.lambda;
    // Sort the few kept indices ascending (insertion sort) so in-place compaction never overwrites a source.
    for (int i = 1; i < sub.count; ++i) {
        for (int j = i; j > 0 && order[j - 1] > order[j]; --j) {
            std::swap(order[j - 1], order[j]);
            std::swap(weight[j - 1], weight[j]);
        }
    }
    for (int k = 0; k < sub.count; ++k) {
        const int i = order[k];
        if (i != k) {
            s.w[k] = s.w[i];
            s.a[k] = s.a[i];
            s.b[k] = s.b[i];
        }
        lambda[k] = weight[k];
    }
    for (int k = sub.count; k < 4; ++k) lambda[k] = 0;
    s.count = sub.count;
}

ConvexSupport shifted(const ConvexSupport& s, const Vec3& origin) {
    ConvexSupport r = s;
    r.pose.position -= origin;
    return r;
}

Vec3 initial_direction(const ConvexSupport& a, const ConvexSupport& b, const GjkSettings& settings) {
    if (settings.initial_direction.squaredNorm() > 0) return settings.initial_direction;
    const Vec3 d = b.center() - a.center();
    if (d.squaredNorm() > 0) return d;
    return Vec3::UnitX();
}

// Shared loop of gjk() and gjk_intersect(). `boolean` stops at the first separating axis.
template <bool kBoolean>
GjkResult run(const ConvexSupport& a, const ConvexSupport& b, const GjkSettings& settings) {
    GjkResult r;
    GjkSimplex& s = r.simplex;
    std::array<double, 4> lambda{1, 0, 0, 0};

    Vec3 dir = initial_direction(a, b, settings);  // search direction: support of A - B along dir
    s.a[0] = a.support(dir);
    s.b[0] = b.support(-dir);
    s.w[0] = s.a[0] - s.b[0];
    s.count = 1;
    r.iterations = 1;
    Vec3 v = s.w[0];
    double vv = v.squaredNorm();

    bool intersecting = false;
    [[maybe_unused]] bool separated = false;  // boolean mode: a separating axis was found
    for (;;) {
        if (!(vv > 0)) {  // the origin is a vertex of A - B: touching
            intersecting = true;
            break;
        }
        if (r.iterations >= settings.max_iterations) break;
        dir = -v;
        const Vec3 pa = a.support(dir);
        const Vec3 pb = b.support(v);
        const Vec3 w = pa - pb;
        ++r.iterations;
        const double vw = v.dot(w);
        const double rounding = kRounding * std::sqrt(vv * w.squaredNorm());
        if constexpr (kBoolean) {
            // Lower bound of the distance v.w/|v| beyond rounding: the plane orthogonal to v separates.
            if (vw > rounding) {
                separated = true;
                break;
            }
        }
        // Duality gap |v|^2 - v.w = |v| (upper - lower bound); converged, or no support point improves on v.
        if (vv - vw <= settings.relative_tolerance * vv + rounding) break;
        bool repeated = false;
        for (int i = 0; i < s.count; ++i) repeated = repeated || s.w[i] == w;
        if (repeated) break;
        s.w[s.count] = w;
        s.a[s.count] = pa;
        s.b[s.count] = pb;
        ++s.count;

        const SubSimplex sub = solve(s);
        reduce(s, sub, lambda);
        if (s.count == 4) {
            intersecting = true;
            break;
        }
        double w_max = 0;
        for (int i = 0; i < s.count; ++i) w_max = std::max(w_max, s.w[i].squaredNorm());
        if (sub.vv <= kRounding * kRounding * w_max) {  // origin on the simplex within rounding
            v = sub.v;
            vv = sub.vv;
            intersecting = true;
            break;
        }
        const bool progress = sub.vv < vv;
        v = sub.v;
        vv = sub.vv;
        if (!progress) break;  // rounding stalls the descent: v is as good as it gets
    }

    // The boolean query only answers "separated" with a separating axis in hand; every other exit
    // (convergence, stall, iteration cap) left the origin within rounding of A - B or undecided.
    if constexpr (kBoolean) intersecting = !separated;
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
        r.distance = std::sqrt(vv);
        r.normal = -v / r.distance;
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
    const Vec3 origin = a.pose.position;
    return run<true>(shifted(a, origin), shifted(b, origin), settings).intersecting;
}

Vec3 gjk_closest_on_simplex(GjkSimplex& simplex, std::array<double, 4>& lambda) {
    const SubSimplex sub = solve(simplex);
    reduce(simplex, sub, lambda);
    return sub.v;
}

}  // namespace simpulse
