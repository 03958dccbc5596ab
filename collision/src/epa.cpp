// EPA penetration depth (van den Bergen 2001/2003 sect. 4.3.6) on a fixed-capacity triangulated polytope, and
// the signed distance query built from GJK on the cores plus EPA.
//
// Robustness choices: the computation runs in a frame centred on A (rounding then scales with the shapes, not
// with their distance from the world origin); a GJK simplex with fewer than four points is blown up one
// dimension at a time by probing support points off its affine hull, and a Minkowski difference found to have
// no volume (cores of spheres and capsules) is answered directly; face normals come from the two shortest
// edges; the expansion stops rather than build a face that is degenerate or leaves the origin outside; the
// answer is the support value along the chosen normal (an exact translation), and when the polytope cannot
// converge the best normal tried is polished by gradient sampling. The polytope (~33 KB) lives on the stack.
#include <simpulse/collision/epa.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace simpulse {

namespace {

constexpr int kMaxVertices = 128;
constexpr int kMaxFaces = 2 * kMaxVertices;  // a closed triangulated polytope has 2V - 4 faces
constexpr double kEps = std::numeric_limits<double>::epsilon();
// Relative thickness below which a set is flat (see gjk.cpp); rounding floor in ulps of the support points.
constexpr double kFlat = 1e-10;
constexpr double kRounding = 64 * kEps;
// The depth tolerance never goes below this fraction of the size of A - B (touching contact has depth ~ 0).
constexpr double kSizeFloor = 1e-6;

struct Face {
    std::array<int, 3> v;         // vertices, counter-clockwise seen from outside
    std::array<int, 3> adj;       // face across edge i (v[i] -> v[i+1])
    std::array<int, 3> adj_edge;  // index of that edge in adj[i]
    Vec3 normal;                  // outward unit normal
    double dist;                  // normal . x on the face plane; >= 0 while the origin is inside
    bool alive;
};

struct HorizonEdge {
    int face;
    int edge;
};

// Storage is left uninitialised: only slots below vertex_count / face_count are ever read.
struct Polytope {
    std::array<Vec3, kMaxVertices> w;
    std::array<Vec3, kMaxVertices> a;
    std::array<Vec3, kMaxVertices> b;
    int vertex_count = 0;
    std::array<Face, kMaxFaces> faces;
    // Distance of each face slot, +infinity for free slots: the closest-face scan reads one contiguous array.
    std::array<double, kMaxFaces> scan_dist;
    int face_count = 0;
    std::array<int, kMaxFaces> free_faces;
    int free_count = 0;
    std::array<HorizonEdge, kMaxFaces> horizon;
    int horizon_count = 0;
    double size2 = 0;       // max |w|^2: extent of A - B around the origin
    double magnitude2 = 0;  // max |a|^2, |b|^2: the rounding of w scales with it

    double size() const { return std::sqrt(size2); }
    double rounding() const { return kRounding * std::sqrt(magnitude2); }  // absolute rounding level of w

    int add_vertex(const Vec3& wi, const Vec3& ai, const Vec3& bi) {
        w[vertex_count] = wi;
        a[vertex_count] = ai;
        b[vertex_count] = bi;
        size2 = std::max(size2, wi.squaredNorm());
        magnitude2 = std::max({magnitude2, ai.squaredNorm(), bi.squaredNorm()});
        return vertex_count++;
    }

    // Creates the face (i0, i1, i2); false when it is degenerate or no slot is left.
    bool add_face(int i0, int i1, int i2, int& index) {
        const Vec3& p0 = w[i0];
        const Vec3& p1 = w[i1];
        const Vec3& p2 = w[i2];
        const Vec3 e01 = p1 - p0;
        const Vec3 e12 = p2 - p1;
        const Vec3 e20 = p0 - p2;
        const double l01 = e01.squaredNorm(), l12 = e12.squaredNorm(), l20 = e20.squaredNorm();
        // The cross product of the two shortest edges has the smallest rounding error.
        Vec3 n;
        double l_product;
        if (l01 >= l12 && l01 >= l20) {
            n = e12.cross(e20);
            l_product = l12 * l20;
        } else if (l12 >= l20) {
            n = e20.cross(e01);
            l_product = l20 * l01;
        } else {
            n = e01.cross(e12);
            l_product = l01 * l12;
        }
        const double nn = n.squaredNorm();
        if (!(nn > kFlat * kFlat * l_product)) return false;
        if (free_count > 0) {
            index = free_faces[--free_count];
        } else if (face_count < kMaxFaces) {
            index = face_count++;
        } else {
            return false;
        }
        Face& f = faces[index];
        f.v = {i0, i1, i2};
        f.normal = n / std::sqrt(nn);
        f.dist = f.normal.dot(p0 + p1 + p2) / 3.0;
        f.alive = true;
        scan_dist[index] = f.dist;
        return true;
    }

    void remove_face(int index) {
        faces[index].alive = false;
        scan_dist[index] = std::numeric_limits<double>::infinity();
        free_faces[free_count++] = index;
    }

    void link(int f, int i, int g, int j) {
        faces[f].adj[i] = g;
        faces[f].adj_edge[i] = j;
        faces[g].adj[j] = f;
        faces[g].adj_edge[j] = i;
    }

    // Depth-first walk over the faces visible from w (van den Bergen 2003, sect. 4.3.6): removes them and
    // records the boundary of the visible region as an ordered loop of edges of the faces that remain.
    void silhouette(int f, int edge, const Vec3& p, double visible_tol) {
        Face& face = faces[f];
        if (!face.alive) return;
        if (face.normal.dot(p) - face.dist > visible_tol) {
            remove_face(f);
            const int e1 = (edge + 1) % 3, e2 = (edge + 2) % 3;
            silhouette(face.adj[e1], face.adj_edge[e1], p, visible_tol);
            silhouette(face.adj[e2], face.adj_edge[e2], p, visible_tol);
        } else {
            horizon[horizon_count++] = {f, edge};
        }
    }

    // Adds vertex `vi` seen from face `seed`: replaces the visible region by a fan of faces around vi.
    // Returns false when the result would be degenerate or not contain the origin (the polytope is then
    // unusable).
    bool expand(int seed, int vi, double visible_tol, double origin_tol) {
        horizon_count = 0;
        const Vec3 p = w[vi];
        remove_face(seed);
        const Face& s = faces[seed];
        for (int i = 0; i < 3; ++i) silhouette(s.adj[i], s.adj_edge[i], p, visible_tol);
        if (horizon_count < 3) return false;
        int first = -1, previous = -1;
        for (int k = 0; k < horizon_count; ++k) {
            const HorizonEdge h = horizon[k];
            const Face& g = faces[h.face];
            const int from = g.v[(h.edge + 1) % 3];  // the new face keeps the orientation of the removed one
            const int to = g.v[h.edge];
            if (previous >= 0 && faces[previous].v[1] != from) return false;  // horizon is not a simple loop
            int created;
            if (!add_face(from, to, vi, created)) return false;
            if (faces[created].dist < -origin_tol) return false;
            link(created, 0, h.face, h.edge);
            if (previous >= 0) link(previous, 1, created, 2);
            if (first < 0) first = created;
            previous = created;
        }
        if (faces[previous].v[1] != faces[first].v[0]) return false;
        link(previous, 1, first, 2);
        return true;
    }

    int closest_face() const {
        int best = 0;
        for (int i = 1; i < face_count; ++i)
            if (scan_dist[i] < scan_dist[best]) best = i;
        return best;
    }
};

ConvexSupport shifted(const ConvexSupport& s, const Vec3& origin) {
    ConvexSupport r = s;
    r.pose.position -= origin;
    return r;
}

struct SupportPoint {
    Vec3 w, a, b;
};

SupportPoint minkowski_support(const ConvexSupport& a, const ConvexSupport& b, const Vec3& dir) {
    SupportPoint p;
    p.a = a.support(dir);
    p.b = b.support(-dir);
    p.w = p.a - p.b;
    return p;
}

Vec3 any_orthogonal(const Vec3& u) {
    // Cross with the coordinate axis least aligned with u.
    const Vec3 m = u.cwiseAbs();
    const Vec3 axis =
        (m.x() <= m.y() && m.x() <= m.z()) ? Vec3::UnitX() : (m.y() <= m.z() ? Vec3::UnitY() : Vec3::UnitZ());
    return u.cross(axis).normalized();
}

// Barycentric weights of the projection of the origin onto triangle (p0, p1, p2) with unit normal n, clamped
// to the triangle (rounding can put the projection a hair outside).
std::array<double, 3> triangle_weights(const Vec3& p0, const Vec3& p1, const Vec3& p2, const Vec3& n) {
    const Vec3 p = n * n.dot(p0);
    double c0 = std::max(0.0, n.dot((p1 - p).cross(p2 - p)));
    double c1 = std::max(0.0, n.dot((p2 - p).cross(p0 - p)));
    double c2 = std::max(0.0, n.dot((p0 - p).cross(p1 - p)));
    const double sum = c0 + c1 + c2;
    if (!(sum > 0)) return {1.0 / 3, 1.0 / 3, 1.0 / 3};
    return {c0 / sum, c1 / sum, c2 / sum};
}

// Smallest unclamped barycentric weight (relative) of the origin's projection along n onto the triangle.
double raw_weights_min(const Vec3& p0, const Vec3& p1, const Vec3& p2, const Vec3& n) {
    const Vec3 p = n * n.dot(p0);
    const double c0 = n.dot((p1 - p).cross(p2 - p));
    const double c1 = n.dot((p2 - p).cross(p0 - p));
    const double c2 = n.dot((p0 - p).cross(p1 - p));
    const double sum = c0 + c1 + c2;
    if (!(sum > 0)) return -1;
    return std::min({c0, c1, c2}) / sum;
}

// Result for a Minkowski difference without volume, or touching on a flat side: depth 0 along `normal`,
// witness points from the GJK weights of the origin on `simplex`.
EpaResult flat_result(const GjkSimplex& simplex, const Vec3& normal) {
    GjkSimplex s = simplex;
    std::array<double, 4> lambda{};
    gjk_closest_on_simplex(s, lambda);
    EpaResult r;
    r.depth = 0;
    r.normal = normal;
    for (int i = 0; i < s.count; ++i) r.point_a += lambda[i] * s.a[i];
    r.point_b = r.point_a;
    r.converged = true;
    return r;
}

enum class Seed { polytope, answered };

// Builds a tetrahedron containing the origin from the GJK simplex (blowing it up when it has fewer than four
// points), or answers directly when A - B has no volume near the origin.
Seed build_tetrahedron(const ConvexSupport& a, const ConvexSupport& b, const GjkSimplex& gjk_simplex,
                       Polytope& poly, EpaResult& answer) {
    GjkSimplex s = gjk_simplex;
    if (s.count == 4) {
        // Keep a GJK tetrahedron only if it really contains the origin; otherwise fall back to the
        // sub-simplex nearest to the origin and blow that up.
        std::array<double, 4> lambda{};
        GjkSimplex reduced = s;
        gjk_closest_on_simplex(reduced, lambda);
        if (reduced.count < 4) s = reduced;
    }
    if (s.count < 1) {
        s.count = 1;
        s.a[0] = a.support(Vec3::UnitX());
        s.b[0] = b.support(-Vec3::UnitX());
        s.w[0] = s.a[0] - s.b[0];
    }
    for (int i = 0; i < s.count; ++i) poly.add_vertex(s.w[i], s.a[i], s.b[i]);
    auto flat_tol = [&] { return kFlat * poly.size() + poly.rounding(); };
    auto push = [&](const SupportPoint& p) { poly.add_vertex(p.w, p.a, p.b); };

    if (poly.vertex_count == 1) {
        static constexpr std::array<std::array<double, 3>, 6> kAxes{
            {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}};
        for (const auto& axis : kAxes) {
            const SupportPoint p = minkowski_support(a, b, Vec3(axis[0], axis[1], axis[2]));
            poly.size2 = std::max(poly.size2, p.w.squaredNorm());
            if ((p.w - poly.w[0]).norm() > flat_tol()) {
                push(p);
                break;
            }
        }
        if (poly.vertex_count == 1) {
            // A - B is a point (two sphere centres): every direction is a minimiser.
            answer = flat_result(s, Vec3::UnitZ());
            return Seed::answered;
        }
    }
    if (poly.vertex_count == 2) {
        const Vec3 u = (poly.w[1] - poly.w[0]).normalized();
        const Vec3 d1 = any_orthogonal(u);
        const Vec3 d2 = u.cross(d1);
        for (const Vec3& d : {d1, Vec3(-d1), d2, Vec3(-d2)}) {
            const SupportPoint p = minkowski_support(a, b, d);
            poly.size2 = std::max(poly.size2, p.w.squaredNorm());
            if ((p.w - poly.w[0]).cross(u).norm() > flat_tol()) {
                push(p);
                break;
            }
        }
        if (poly.vertex_count == 2) {
            // A - B is a segment through the origin (parallel capsule cores): any orthogonal direction.
            answer = flat_result(s, d1);
            return Seed::answered;
        }
    }
    if (poly.vertex_count == 3) {
        const Vec3 n = (poly.w[1] - poly.w[0]).cross(poly.w[2] - poly.w[0]).normalized();
        const SupportPoint up = minkowski_support(a, b, n);
        const SupportPoint down = minkowski_support(a, b, -n);
        const double h_up = n.dot(up.w - poly.w[0]);
        const double h_down = -n.dot(down.w - poly.w[0]);
        poly.size2 = std::max({poly.size2, up.w.squaredNorm(), down.w.squaredNorm()});
        const double tol = flat_tol();
        if (h_up <= tol || h_down <= tol) {
            // A - B lies on one side of the triangle's plane, which holds the origin: depth 0 along that side
            // (touching faces, or crossing capsule cores).
            GjkSimplex t;
            t.count = 3;
            for (int i = 0; i < 3; ++i) {
                t.w[i] = poly.w[i];
                t.a[i] = poly.a[i];
                t.b[i] = poly.b[i];
            }
            answer = flat_result(t, h_up <= h_down ? n : Vec3(-n));
            return Seed::answered;
        }
        push(h_up >= h_down ? up : down);
    }
    // Orient the tetrahedron so that (0, 1, 2) faces away from vertex 3, then its four faces are outward.
    const Vec3 e1 = poly.w[1] - poly.w[0], e2 = poly.w[2] - poly.w[0], e3 = poly.w[3] - poly.w[0];
    if (e1.dot(e2.cross(e3)) > 0) {
        std::swap(poly.w[1], poly.w[2]);
        std::swap(poly.a[1], poly.a[2]);
        std::swap(poly.b[1], poly.b[2]);
    }
    static constexpr std::array<std::array<int, 3>, 4> kFaces{{{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}}};
    std::array<int, 4> ids{};
    for (int f = 0; f < 4; ++f) {
        if (!poly.add_face(kFaces[f][0], kFaces[f][1], kFaces[f][2], ids[f])) {
            answer = flat_result(s, Vec3::UnitZ());
            answer.converged = false;
            return Seed::answered;
        }
    }
    // Each edge i -> j of a face meets the face holding j -> i.
    for (int f = 0; f < 4; ++f) {
        for (int i = 0; i < 3; ++i) {
            const int from = kFaces[f][i], to = kFaces[f][(i + 1) % 3];
            for (int g = 0; g < 4; ++g) {
                for (int j = 0; j < 3; ++j) {
                    if (kFaces[g][j] == to && kFaces[g][(j + 1) % 3] == from) poly.link(ids[f], i, ids[g], j);
                }
            }
        }
    }
    return Seed::polytope;
}

void set_witness(const Polytope& poly, const Face& f, EpaResult& r) {
    const auto l = triangle_weights(poly.w[f.v[0]], poly.w[f.v[1]], poly.w[f.v[2]], f.normal);
    r.point_a = l[0] * poly.a[f.v[0]] + l[1] * poly.a[f.v[1]] + l[2] * poly.a[f.v[2]];
    r.point_b = l[0] * poly.b[f.v[0]] + l[1] * poly.b[f.v[1]] + l[2] * poly.b[f.v[2]];
    r.depth = std::max(0.0, f.dist);
    r.normal = f.normal;
}

// Minimum-norm point of the convex hull of g[0..n), by GJK over the finite point set (the support of the set
// is its point of least dot product).
Vec3 min_norm_point(const std::array<Vec3, 9>& g, int n) {
    GjkSimplex s;
    s.count = 1;
    s.w[0] = s.a[0] = g[0];
    s.b[0] = Vec3::Zero();
    Vec3 v = g[0];
    std::array<double, 4> lambda{};
    for (int iteration = 0; iteration < 16; ++iteration) {
        int best = 0;
        for (int k = 1; k < n; ++k)
            if (g[k].dot(v) < g[best].dot(v)) best = k;
        const double vv = v.squaredNorm();
        if (vv - g[best].dot(v) <= 1e-12 * vv || s.count == 4) break;
        s.w[s.count] = s.a[s.count] = g[best];
        s.b[s.count] = Vec3::Zero();
        ++s.count;
        v = gjk_closest_on_simplex(s, lambda);
        if (!(v.squaredNorm() > 0)) break;
    }
    return v;
}

// Fallback when the polytope cannot be refined further (capacity or rounding), by gradient sampling (Burke,
// Lewis, Overton 2005, "A robust gradient sampling algorithm for nonsmooth, nonconvex optimization") on the
// support value h(n) of A - B over unit n: the support point is a gradient of h, its tangential part the
// gradient on the sphere, and h is only piecewise smooth (kinks where the support jumps between features).
// Only smaller values are accepted, so the answer stays an exact translation along its normal. This is for
// sets whose depth barely varies over a wide range of directions (a sphere centre near a cylinder's or cone's
// axis): EPA must then refine the whole range before its lower bound rises, while the minimum lies along a
// sharp valley (the kink between two rims) that sampled gradients follow.
void polish(const ConvexSupport& a, const ConvexSupport& b, double lower, double& upper, Vec3& normal,
            SupportPoint& point) {
    auto tangential = [](const Vec3& w, const Vec3& n) -> Vec3 { return w - w.dot(n) * n; };
    // Angular scale of the remaining gap: a face at angle t from the minimum undercuts it by ~ depth t^2 / 2.
    const double coarse =
        std::clamp(std::sqrt(2 * std::max(upper - lower, 0.0) / std::max(upper, 1e-300)), 1e-7, 0.05);
    // Sampling radii cycle from coarse to fine: samples straddling the valley's kink give the direction along
    // the valley, samples closer than the distance to the kink give the way back onto it; both are needed.
    int budget = 1500;  // support evaluations (only spent when EPA could not converge)
    std::array<Vec3, 9> g;
    for (bool progress = true; progress && budget > 0;) {
        progress = false;
        for (double radius = coarse; radius > 1e-11 && budget > 0; radius *= 0.1) {
            const Vec3 t1 = any_orthogonal(normal), t2 = normal.cross(t1);
            g[0] = tangential(point.w, normal);
            for (int k = 0; k < 8; ++k, --budget) {
                const double phi = k * (M_PI / 4) + 0.3;  // off the axes of t1, t2
                const Vec3 m = (normal + radius * (std::cos(phi) * t1 + std::sin(phi) * t2)).normalized();
                g[k + 1] = tangential(minkowski_support(a, b, m).w, normal);
            }
            const Vec3 v = min_norm_point(g, 9);
            if (!(v.norm() > 1e-12 * point.w.norm())) continue;  // stationary at this radius
            // Line search along -v: halve from the radius until h decreases, then keep doubling while it does
            // (a valley walk can go much further than the radius).
            const Vec3 d = -v.normalized();
            const Vec3 base = normal;
            double t = radius;
            bool accepted = false;
            for (; t >= radius / 64 && budget > 0; t *= 0.5, --budget) {
                const Vec3 m = (base + t * d).normalized();
                const SupportPoint p = minkowski_support(a, b, m);
                if (m.dot(p.w) < upper) {
                    upper = m.dot(p.w);
                    normal = m;
                    point = p;
                    accepted = true;
                    break;
                }
            }
            for (; accepted && budget > 0 && t < 0.5; --budget) {
                t *= 2;
                const Vec3 m = (base + t * d).normalized();
                const SupportPoint p = minkowski_support(a, b, m);
                if (!(m.dot(p.w) < upper)) break;
                upper = m.dot(p.w);
                normal = m;
                point = p;
            }
            progress = progress || accepted;
        }
    }
}

// EPA with both views expressed in the same (A-centred) frame.
EpaResult epa_in_frame(const ConvexSupport& a, const ConvexSupport& b, const GjkSimplex& simplex,
                       const EpaSettings& settings) {
    Polytope poly;
    EpaResult r;
    if (build_tetrahedron(a, b, simplex, poly, r) == Seed::answered) return r;
    {
        // The origin must be inside the tetrahedron, up to rounding. A face beyond that means GJK called an
        // overlap its simplex cannot resolve (a gap far below the size of a thin simplex, e.g. a 1e-3 shape
        // nearly touching a 1e3 one): report touching along that face, at the middle of its witness points.
        const double origin_tol = 16 * poly.rounding();
        for (int i = 0; i < poly.face_count; ++i) {
            if (poly.faces[i].dist < -origin_tol) {
                set_witness(poly, poly.faces[i], r);
                r.depth = 0;
                r.point_a = r.point_b = 0.5 * (r.point_a + r.point_b);
                r.converged = false;
                return r;
            }
        }
    }
    // Every tried normal n comes with its support value h(n), the exact translation along n that separates
    // the sets (an upper bound of the depth), and the witness of its face (the projection of the origin, in
    // the middle of the contact rather than at some vertex of a flat feature). The answer is the face that
    // converged, else the best normal tried (global criterion, or the fallback when the polytope cannot be
    // refined further).
    struct Candidate {
        Vec3 normal = Vec3::UnitZ();
        double upper = std::numeric_limits<double>::infinity();
        SupportPoint point{Vec3::Zero(), Vec3::Zero(), Vec3::Zero()};
        std::array<int, 3> face{0, 0, 0};  // vertices stay in the polytope even when the face is replaced
    };
    auto candidate = [](const Face& face, const SupportPoint& p, double upper) {
        return Candidate{face.normal, upper, p, face.v};
    };
    Candidate best, answer;
    bool have_answer = false;
    double lower = 0;  // distance of the last closest face: a lower bound of the depth
    for (;;) {
        const double size = poly.size(), rounding = poly.rounding();
        const int f = poly.closest_face();
        const Face& face = poly.faces[f];
        const SupportPoint p = minkowski_support(a, b, face.normal);
        const double upper = face.normal.dot(p.w);
        lower = face.dist;
        if (upper < best.upper) best = candidate(face, p, upper);
        const double tol = settings.relative_tolerance * std::max(face.dist, kSizeFloor * size) + rounding;
        if (upper - face.dist <= tol) {
            // The face is (within tolerance) on the boundary of A - B: its normal minimises the support
            // value.
            answer = candidate(face, p, upper);
            have_answer = true;
            r.converged = true;
            break;
        }
        if (best.upper - face.dist <= tol) {
            // The face distance is a lower bound of the depth for every direction: the best normal tried is
            // within tolerance of the minimum even though this face is not yet on the boundary.
            r.converged = true;
            break;
        }
        if (r.iterations >= settings.max_iterations || poly.vertex_count == kMaxVertices) break;
        ++r.iterations;
        const int vi = poly.add_vertex(p.w, p.a, p.b);
        if (!poly.expand(f, vi, 0.25 * rounding, 16 * rounding)) break;
    }
    if (!have_answer) {
        answer = best;
        if (!r.converged) polish(a, b, lower, answer.upper, answer.normal, answer.point);
    }
    // Depth h(n) and the face witness moved along n onto each set's support plane: point_a - point_b is
    // exactly depth * normal, and each point sits where the contact is.
    const Vec3& n = answer.normal;
    // A flat feature of A - B is triangulated into coplanar faces and the scan picks any of them: take the
    // one that holds the origin's projection, so the witness is not clamped to the wrong triangle.
    std::array<int, 3> v = answer.face;
    for (int i = 0; i < poly.face_count; ++i) {
        const Face& f = poly.faces[i];
        if (!f.alive || f.normal.dot(n) < 1 - 1e-12) continue;
        if (raw_weights_min(poly.w[f.v[0]], poly.w[f.v[1]], poly.w[f.v[2]], n) >= -1e-12) {
            v = f.v;
            break;
        }
    }
    const auto l = triangle_weights(poly.w[v[0]], poly.w[v[1]], poly.w[v[2]], n);
    const Vec3 witness_a = l[0] * poly.a[v[0]] + l[1] * poly.a[v[1]] + l[2] * poly.a[v[2]];
    const Vec3 witness_b = l[0] * poly.b[v[0]] + l[1] * poly.b[v[1]] + l[2] * poly.b[v[2]];
    r.normal = n;
    r.depth = std::max(0.0, answer.upper);
    r.point_a = witness_a + n.dot(answer.point.a - witness_a) * n;
    r.point_b = witness_b + n.dot(answer.point.b - witness_b) * n;
    return r;
}

}  // namespace

EpaResult epa(const ConvexSupport& a, const ConvexSupport& b, const GjkSimplex& simplex,
              const EpaSettings& settings) {
    const Vec3 origin = a.pose.position;
    const Vec3 offset = simplex.origin - origin;  // zero for a simplex from gjk(a, b): no rounding added
    GjkSimplex local = simplex;
    for (int i = 0; i < local.count; ++i) {
        local.a[i] += offset;
        local.b[i] += offset;
    }
    local.origin = origin;
    EpaResult r = epa_in_frame(shifted(a, origin), shifted(b, origin), local, settings);
    r.point_a += origin;
    r.point_b += origin;
    return r;
}

SignedDistanceResult signed_distance(const ConvexSupport& a, const ConvexSupport& b,
                                     const SignedDistanceSettings& settings) {
    const ConvexSupport ca = a.core();
    const ConvexSupport cb = b.core();
    const GjkResult g = gjk(ca, cb, settings.gjk);
    SignedDistanceResult r;
    r.gjk_iterations = g.iterations;
    const double radii = a.radius + b.radius;
    if (!g.intersecting) {
        r.converged = g.converged;
        r.distance = g.distance - radii;
        r.normal = g.normal;
        r.point_a = g.point_a;
        r.point_b = g.point_b;
        if (!g.converged) {
            // Rounding stopped GJK. Usually v is still a sound normal, but on curved features touching within
            // ~sqrt(eps) of the size it is the normal of a thin simplex and the sets overlap along it: then
            // polish it on the support value of the cores' difference, as EPA's fallback does.
            const Vec3 origin = a.pose.position;
            const ConvexSupport la = shifted(ca, origin), lb = shifted(cb, origin);
            SupportPoint p = minkowski_support(la, lb, r.normal);
            double upper = r.normal.dot(p.w);  // minus the gap along the normal
            const double size = (g.point_a - origin).norm() + (g.point_b - origin).norm();
            // Beyond the touching resolution (1e-7 of the size, a few sqrt(eps)); a stalled but sound normal
            // is kept as it is, consistent with the witness points.
            if (-upper < g.distance - 1e-7 * size) polish(la, lb, -g.distance, upper, r.normal, p);
        }
    } else {
        const EpaResult e = epa(ca, cb, g.simplex, settings.epa);
        r.distance = -(e.depth + radii);
        r.normal = e.normal;
        r.epa_iterations = e.iterations;
        r.converged = e.converged;
        r.point_a = e.point_a;
        r.point_b = e.point_b;
    }
    r.point_a += a.radius * r.normal;
    r.point_b -= b.radius * r.normal;
    return r;
}

SignedDistanceResult signed_distance(const Shape& a, const Pose& pose_a, const Shape& b, const Pose& pose_b,
                                     const SignedDistanceSettings& settings) {
    return signed_distance(ConvexSupport(a, pose_a), ConvexSupport(b, pose_b), settings);
}

}  // namespace simpulse
