// make_convex_hull: convex hull of a point set as a polytope with merged (polygon) faces.
//
// Two stages, so that robustness and face merging are separate concerns:
//  1. Quickhull (Barber, Dobkin & Huhdanpaa, "The Quickhull algorithm for convex hulls", ACM TOMS 1996) on a
//     triangulated hull whose visibility decisions use an exact orientation predicate (Shewchuk, "Adaptive
//     precision floating-point arithmetic and fast robust geometric predicates", 1997: static filter, then
//     expansion arithmetic). The triangulation is therefore always a valid convex polytope: a point exactly
//     coplanar with a face never sees it, so no zero-area triangle and no broken horizon can arise, whatever
//     the duplicates, collinear runs or coplanar grids in the input.
//  2. Face merging with a tolerance relative to the input's extent (qhull's "thick facets"; Gregorius,
//     "Implementing Quickhull", GDC 2014): triangles are grown into regions whose vertices lie within `tol`
//     of the region's plane, which is the plane of its largest triangle, i.e. an exact supporting plane of
//     the points. Vertices bordering fewer than three regions (points inside a face or on an edge) are
//     dropped from the loops. A region whose boundary is not one convex loop is split back into its triangles
//     (always a valid polytope), so the result is valid by construction and checked before it is returned.
#include <simpulse/collision/number_text.h>
#include <simpulse/collision/shape.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace simpulse {
namespace {

// Merge tolerance relative to the input's bounding-box diagonal. Above the float32 roundoff of coordinates
// (6e-8 relative), so hulls of meshes read from float files come out with clean polygon faces, and below any
// feature size a contact solver resolves (its penetration slop is ~1e-3 of a body's size).
constexpr double kRelativeTolerance = 1e-6;

// Range of the points' span (largest side of their bounding box). Face normals come from cross products of
// edges normalised through their squared norm, i.e. the span to the fourth power: beyond 1e75 it overflows,
// below 1e-75 it underflows, and the normals vanish. The hull then looked flat ("coplanar ... tolerance
// 3.5e+74") or, once the diagonal itself overflowed, collinear with an infinite tolerance.
constexpr double kMinSpan = 1e-75;
constexpr double kMaxSpan = 1e75;

// Vertices of the triangulated hull (points strictly outside the hull of the others). Where most points are
// vertices (sampled from a curved surface) the build grows faster than the points: quickhull's visible sets
// on a cylinder's two circles, the thinnest-extent pass over faces and vertices on a sphere, the merging of
// a flat disc (40,000 points on two circles took over two minutes and 1.7 GB: docs/BENCHMARKS.md, "Shapes
// of many points"); and a support function or SAT over thousands of vertices makes every contact
// test of the body slow.
constexpr std::size_t kMaxHullVertices = 4096;

// ---------------------------------------------------------------------------------------------------------------
// Exact orientation (Shewchuk 1997). Expansions are sums of non-overlapping doubles in increasing magnitude.

struct Expansion {
    std::array<double, 256> c;
    int n = 0;
};

void two_sum(double a, double b, double& x, double& y) {
    x = a + b;
    const double bv = x - a;
    const double av = x - bv;
    y = (a - av) + (b - bv);
}

void two_diff(double a, double b, double& x, double& y) {
    x = a - b;
    const double bv = a - x;
    const double av = x + bv;
    y = (a - av) + (bv - b);
}

void fast_two_sum(double a, double b, double& x, double& y) {
    x = a + b;
    y = b - (x - a);
}

void two_product(double a, double b, double& x, double& y) {
    x = a * b;
    y = std::fma(a, b, -x);
}

Expansion grow(const Expansion& e, double b) {
    Expansion h;
    double q = b;
    for (int i = 0; i < e.n; ++i) {
        double sum, err;
        two_sum(q, e.c[static_cast<std::size_t>(i)], sum, err);
        q = sum;
        if (err != 0) h.c[static_cast<std::size_t>(h.n++)] = err;
    }
    if (q != 0 || h.n == 0) h.c[static_cast<std::size_t>(h.n++)] = q;
    return h;
}

Expansion add(const Expansion& e, const Expansion& f) {
    Expansion h = e;
    for (int i = 0; i < f.n; ++i) h = grow(h, f.c[static_cast<std::size_t>(i)]);
    return h;
}

Expansion scale(const Expansion& e, double b) {
    Expansion h;
    double q, err;
    two_product(e.c[0], b, q, err);
    if (err != 0) h.c[static_cast<std::size_t>(h.n++)] = err;
    for (int i = 1; i < e.n; ++i) {
        double p1, p0, sum;
        two_product(e.c[static_cast<std::size_t>(i)], b, p1, p0);
        two_sum(q, p0, sum, err);
        if (err != 0) h.c[static_cast<std::size_t>(h.n++)] = err;
        fast_two_sum(p1, sum, q, err);
        if (err != 0) h.c[static_cast<std::size_t>(h.n++)] = err;
    }
    if (q != 0 || h.n == 0) h.c[static_cast<std::size_t>(h.n++)] = q;
    return h;
}

Expansion mul(const Expansion& e, const Expansion& f) {
    Expansion h = scale(e, f.c[0]);
    for (int i = 1; i < f.n; ++i) h = add(h, scale(e, f.c[static_cast<std::size_t>(i)]));
    return h;
}

Expansion negate(Expansion e) {
    for (int i = 0; i < e.n; ++i) e.c[static_cast<std::size_t>(i)] = -e.c[static_cast<std::size_t>(i)];
    return e;
}

Expansion difference(double a, double b) {
    Expansion h;
    double x, y;
    two_diff(a, b, x, y);
    if (y != 0) h.c[static_cast<std::size_t>(h.n++)] = y;
    h.c[static_cast<std::size_t>(h.n++)] = x;
    return h;
}

int sign(const Expansion& e) {
    const double top = e.c[static_cast<std::size_t>(e.n - 1)];
    return (top > 0) - (top < 0);
}

// Sign of ((b - a) x (c - a)) . (p - a): positive when p is above the plane of the counter-clockwise triangle
// abc.
int orient_exact(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& p) {
    std::array<Expansion, 3> u, v, w;
    for (int k = 0; k < 3; ++k) {
        u[static_cast<std::size_t>(k)] = difference(b[k], a[k]);
        v[static_cast<std::size_t>(k)] = difference(c[k], a[k]);
        w[static_cast<std::size_t>(k)] = difference(p[k], a[k]);
    }
    auto minor = [&](int i, int j) {  // v_i w_j - v_j w_i
        return add(mul(v[static_cast<std::size_t>(i)], w[static_cast<std::size_t>(j)]),
                   negate(mul(v[static_cast<std::size_t>(j)], w[static_cast<std::size_t>(i)])));
    };
    const Expansion det = add(add(mul(u[0], minor(1, 2)), mul(u[1], minor(2, 0))), mul(u[2], minor(0, 1)));
    return sign(det);
}

int orient(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& p) {
    const Vec3 u = b - a, v = c - a, w = p - a;
    const double m0 = v.y() * w.z() - v.z() * w.y();
    const double m1 = v.z() * w.x() - v.x() * w.z();
    const double m2 = v.x() * w.y() - v.y() * w.x();
    const double det = u.x() * m0 + u.y() * m1 + u.z() * m2;
    const double permanent = std::abs(u.x()) * (std::abs(v.y() * w.z()) + std::abs(v.z() * w.y())) +
                             std::abs(u.y()) * (std::abs(v.z() * w.x()) + std::abs(v.x() * w.z())) +
                             std::abs(u.z()) * (std::abs(v.x() * w.y()) + std::abs(v.y() * w.x()));
    // Shewchuk's o3derrboundA: (7 + 56 eps) eps with eps = 2^-53.
    constexpr double eps = 0x1p-53;
    constexpr double bound = (7.0 + 56.0 * eps) * eps;
    if (det > bound * permanent) return 1;
    if (-det > bound * permanent) return -1;
    return orient_exact(a, b, c, p);
}

// ---------------------------------------------------------------------------------------------------------------
// Stage 1: triangulated quickhull.

struct Triangle {
    std::array<std::uint32_t, 3> v{};
    std::array<std::int32_t, 3> adj{};  // triangle across edge v[i] -> v[(i + 1) % 3]
    Vec3 normal = Vec3::Zero();  // floating plane in centred coordinates, only to pick the farthest point
    double offset = 0;
    std::vector<std::uint32_t> outside;  // points strictly above (exactly), not yet processed
    bool alive = true;
};

class Quickhull {
  public:
    Quickhull(std::span<const Vec3> points, std::span<const Vec3> centred) : p_(points), q_(centred) {}

    // Hull of all points, starting from the tetrahedron s (non-degenerate). Returns the live triangles with
    // adjacency renumbered.
    std::vector<Triangle> run(const std::array<std::uint32_t, 4>& s) {
        std::array<std::uint32_t, 4> t = s;
        if (orient(p_[t[0]], p_[t[1]], p_[t[2]], p_[t[3]]) > 0) std::swap(t[1], t[2]);
        // With t3 below (t0, t1, t2) these four are all counter-clockwise seen from outside.
        add_triangle(t[0], t[1], t[2]);
        add_triangle(t[0], t[3], t[1]);
        add_triangle(t[1], t[3], t[2]);
        add_triangle(t[2], t[3], t[0]);
        link(0, 0, 1, 2), link(0, 1, 2, 2), link(0, 2, 3, 2);
        link(1, 0, 3, 1), link(1, 1, 2, 0), link(2, 1, 3, 0);

        for (std::uint32_t i = 0; i < p_.size(); ++i) {
            if (i == t[0] || i == t[1] || i == t[2] || i == t[3]) continue;
            for (std::int32_t f = 0; f < 4; ++f)
                if (above(f, i)) {
                    tris_[static_cast<std::size_t>(f)].outside.push_back(i);
                    break;
                }
        }
        std::vector<std::int32_t> work{3, 2, 1, 0};
        std::vector<std::int32_t> next_from(p_.size(), -1);  // horizon: start vertex -> horizon edge index
        std::size_t vertices = 4;
        while (!work.empty()) {
            const std::int32_t f = work.back();
            work.pop_back();
            if (!tri(f).alive || tri(f).outside.empty()) continue;
            if (++vertices > kMaxHullVertices)
                throw ShapeError("convex hull: more than " + std::to_string(kMaxHullVertices) + " of the " +
                                 std::to_string(p_.size()) +
                                 " points are vertices of the hull (as points sampled from a curved surface "
                                 "are), expected at most " +
                                 std::to_string(kMaxHullVertices) + "; use fewer points");
            add_point(f, next_from, work);
        }

        std::vector<std::int32_t> remap(tris_.size(), -1);
        std::vector<Triangle> out;
        for (std::size_t i = 0; i < tris_.size(); ++i)
            if (tris_[i].alive) {
                remap[i] = static_cast<std::int32_t>(out.size());
                out.push_back(std::move(tris_[i]));
            }
        for (Triangle& t2 : out)
            for (auto& a : t2.adj) a = remap[static_cast<std::size_t>(a)];
        return out;
    }

  private:
    Triangle& tri(std::int32_t f) { return tris_[static_cast<std::size_t>(f)]; }

    bool above(std::int32_t f, std::uint32_t point) {
        const Triangle& t = tri(f);
        return orient(p_[t.v[0]], p_[t.v[1]], p_[t.v[2]], p_[point]) > 0;
    }

    std::int32_t add_triangle(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
        Triangle t;
        t.v = {a, b, c};
        t.adj = {-1, -1, -1};
        const Vec3 n = (q_[b] - q_[a]).cross(q_[c] - q_[a]);
        const double len = n.norm();
        // A triangle can be exactly non-degenerate yet below floating resolution; its distances are then 0,
        // which only affects which point is processed first.
        if (len > 0) {
            t.normal = n / len;
            t.offset = t.normal.dot(q_[a]);
        }
        tris_.push_back(std::move(t));
        visit_mark_.push_back(0);
        return static_cast<std::int32_t>(tris_.size() - 1);
    }

    void link(std::int32_t f, int i, std::int32_t g, int j) {
        tri(f).adj[static_cast<std::size_t>(i)] = g;
        tri(g).adj[static_cast<std::size_t>(j)] = f;
    }

    void add_point(std::int32_t start, std::vector<std::int32_t>& next_from,
                   std::vector<std::int32_t>& work) {
        // The eye: the point farthest above the face (ties: lowest index), a vertex of the final hull.
        std::uint32_t eye = 0;
        double best = -std::numeric_limits<double>::infinity();
        for (std::uint32_t i : tri(start).outside) {
            const double d = tri(start).normal.dot(q_[i]) - tri(start).offset;
            if (d > best || (d == best && i < eye)) best = d, eye = i;
        }

        // Visible faces: connected set around `start` (exact predicates make it a topological disk).
        ++stamp_;
        visible_.clear();
        horizon_.clear();
        visible_.push_back(start);
        visit_mark_[static_cast<std::size_t>(start)] = stamp_;
        for (std::size_t k = 0; k < visible_.size(); ++k) {
            const std::int32_t f = visible_[k];
            for (int i = 0; i < 3; ++i) {
                const std::int32_t g = tri(f).adj[static_cast<std::size_t>(i)];
                if (visit_mark_[static_cast<std::size_t>(g)] == stamp_) continue;
                if (above(g, eye)) {
                    visit_mark_[static_cast<std::size_t>(g)] = stamp_;
                    visible_.push_back(g);
                } else {
                    horizon_.push_back({tri(f).v[static_cast<std::size_t>(i)],
                                        tri(f).v[static_cast<std::size_t>((i + 1) % 3)], g});
                }
            }
        }

        // Cone of new triangles over the horizon loop, in loop order.
        for (std::size_t e = 0; e < horizon_.size(); ++e)
            next_from[horizon_[e].from] = static_cast<std::int32_t>(e);
        const auto first_new = static_cast<std::int32_t>(tris_.size());
        std::size_t e = 0;
        for (std::size_t k = 0; k < horizon_.size(); ++k) {
            const HorizonEdge h = horizon_[e];
            const std::int32_t f = add_triangle(h.from, h.to, eye);
            // Re-point the surviving neighbour's edge (to -> from) at the new triangle.
            Triangle& nb = tri(h.neighbor);
            for (int i = 0; i < 3; ++i)
                if (nb.v[static_cast<std::size_t>(i)] == h.to) nb.adj[static_cast<std::size_t>(i)] = f;
            tri(f).adj[0] = h.neighbor;
            if (k > 0) link(f - 1, 1, f, 2);
            e = static_cast<std::size_t>(next_from[h.to]);
        }
        const auto last_new = static_cast<std::int32_t>(tris_.size() - 1);
        link(last_new, 1, first_new, 2);
        for (const HorizonEdge& h : horizon_) next_from[h.from] = -1;

        // Points above a removed face are above a new face or inside the new hull (Barber et al. 1996, sec.
        // 3).
        for (std::int32_t f : visible_) {
            tri(f).alive = false;
            for (std::uint32_t i : tri(f).outside) {
                if (i == eye) continue;
                for (std::int32_t g = first_new; g <= last_new; ++g)
                    if (above(g, i)) {
                        tri(g).outside.push_back(i);
                        break;
                    }
            }
            tri(f).outside = {};
        }
        for (std::int32_t g = last_new; g >= first_new; --g)
            if (!tri(g).outside.empty()) work.push_back(g);
    }

    struct HorizonEdge {
        std::uint32_t from, to;
        std::int32_t neighbor;
    };

    std::span<const Vec3> p_;  // exact input, for the predicates
    std::span<const Vec3> q_;  // centred copy, for floating distances
    std::vector<Triangle> tris_;
    std::vector<std::uint32_t> visit_mark_;
    std::uint32_t stamp_ = 0;
    std::vector<std::int32_t> visible_;
    std::vector<HorizonEdge> horizon_;
};

// ---------------------------------------------------------------------------------------------------------------
// Stage 2: merging triangles into polygon faces.

class FaceMerger {
  public:
    FaceMerger(std::span<const Vec3> centred, std::vector<Triangle> tris, double tol)
        : q_(centred), tris_(std::move(tris)), tol_(tol) {
        const std::size_t nt = tris_.size();
        area_.assign(nt, 0.0);
        degenerate_.assign(nt, false);
        plane_.resize(nt);
        for (std::uint32_t t = 0; t < nt; ++t) {
            const auto& v = tris_[t].v;
            const Vec3 e0 = q_[v[1]] - q_[v[0]], e2 = q_[v[0]] - q_[v[2]];
            const double cross = e0.cross(-e2).norm();
            const int l = longest_edge(t);
            const double longest =
                (q_[v[static_cast<std::size_t>((l + 1) % 3)]] - q_[v[static_cast<std::size_t>(l)]])
                    .squaredNorm();
            area_[t] = 0.5 * cross;
            // Height below 1e-8 of the length: the floating normal may be off by more than 1e-8 rad, so such
            // a sliver never defines a plane; it lies within tol of its neighbours and joins one of them.
            degenerate_[t] = !(cross > 1e-8 * longest);
            // Cross the two edges at the corner opposite the longest edge (the largest angle): the rounding
            // error of the normal is then eps / sin(angle) <= 2 eps, even for slivers.
            const auto i = static_cast<std::size_t>((l + 2) % 3);
            const Vec3& apex = q_[v[i]];
            Plane& p = plane_[t];
            p.normal = (q_[v[(i + 1) % 3]] - apex).cross(q_[v[(i + 2) % 3]] - apex).normalized();
            p.offset = std::max({p.normal.dot(q_[v[0]]), p.normal.dot(q_[v[1]]), p.normal.dot(q_[v[2]])});
        }
        order_.resize(nt);
        std::iota(order_.begin(), order_.end(), 0u);
        std::stable_sort(order_.begin(), order_.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return area_[a] > area_[b]; });
        // Triangles around each vertex (CSR), for counting the regions a vertex borders.
        vertex_first_.assign(q_.size() + 1, 0);
        for (const Triangle& t : tris_)
            for (std::uint32_t v : t.v) ++vertex_first_[v + 1];
        std::partial_sum(vertex_first_.begin(), vertex_first_.end(), vertex_first_.begin());
        vertex_tris_.resize(vertex_first_.back());
        std::vector<std::uint32_t> fill(vertex_first_.begin(), vertex_first_.end() - 1);
        for (std::uint32_t t = 0; t < nt; ++t)
            for (std::uint32_t v : tris_[t].v) vertex_tris_[fill[v]++] = t;
    }

    // Grows the regions, then repairs them until every region has one convex boundary loop with >= 3 corners.
    // Repairs are local: a change re-queues only the regions that share a vertex with the changed ones. Each
    // change removes an unlocked region or locks triangles, so the repair terminates.
    void run() {
        grow_regions();
        queued_.assign(seed_.size(), false);
        for (std::int32_t r = 0; r < static_cast<std::int32_t>(seed_.size()); ++r) enqueue(r);
        while (!queue_.empty()) {
            const std::int32_t r = queue_.front();
            queue_.pop_front();
            queued_[static_cast<std::size_t>(r)] = false;
            repair(r);
        }
    }

    // The polygon faces (vertices as input points, in input order); edges etc. are added by the caller.
    ConvexHull build(std::span<const Vec3> points, const Vec3& centre) const;

  private:
    struct Plane {
        Vec3 normal = Vec3::Zero();
        double offset = 0;
    };

    const std::array<std::uint32_t, 3>& verts(std::uint32_t t) const { return tris_[t].v; }
    std::int32_t adj(std::uint32_t t, int i) const { return tris_[t].adj[static_cast<std::size_t>(i)]; }
    std::int32_t region_of(std::int32_t t) const { return region_[static_cast<std::size_t>(t)]; }
    const std::vector<std::uint32_t>& members(std::int32_t r) const {
        return members_[static_cast<std::size_t>(r)];
    }
    // A region's plane is that of its seed, an exact hull triangle: a supporting plane of all the points.
    const Plane& region_plane(std::int32_t r) const { return plane_[seed_[static_cast<std::size_t>(r)]]; }

    // The longest edge of t: a sliver lies flattest on the neighbour across it.
    int longest_edge(std::uint32_t t) const {
        const auto& v = verts(t);
        int best = 0;
        double len = -1;
        for (int i = 0; i < 3; ++i) {
            const double l =
                (q_[v[static_cast<std::size_t>((i + 1) % 3)]] - q_[v[static_cast<std::size_t>(i)]])
                    .squaredNorm();
            if (l > len) len = l, best = i;
        }
        return best;
    }

    bool within(const Plane& p, std::uint32_t t) const {
        for (std::uint32_t v : verts(t))
            if (std::abs(p.normal.dot(q_[v]) - p.offset) > tol_) return false;
        return true;
    }

    std::int32_t new_region(std::uint32_t seed, bool locked) {
        seed_.push_back(seed);
        locked_.push_back(locked);
        members_.emplace_back();
        queued_.push_back(false);
        return static_cast<std::int32_t>(seed_.size() - 1);
    }

    void assign(std::uint32_t t, std::int32_t r) {
        region_[t] = r;
        members_[static_cast<std::size_t>(r)].push_back(t);
    }

    void enqueue(std::int32_t r) {
        if (queued_[static_cast<std::size_t>(r)]) return;
        queued_[static_cast<std::size_t>(r)] = true;
        queue_.push_back(r);
    }

    // Re-checks every region with a vertex among the given triangles' vertices.
    void enqueue_around(const std::vector<std::uint32_t>& tris) {
        for (std::uint32_t t : tris)
            for (std::uint32_t v : verts(t))
                for (std::uint32_t k = vertex_first_[v]; k < vertex_first_[v + 1]; ++k)
                    enqueue(region_[vertex_tris_[k]]);
    }

    // Gives every unassigned degenerate triangle among `tris` the region of an assigned neighbour (longest
    // edge first). Terminates because the triangulation is connected and at least one triangle is assigned.
    void attach_degenerate(const std::vector<std::uint32_t>& tris) {
        for (bool changed = true; changed;) {
            changed = false;
            for (std::uint32_t t : tris) {
                if (region_[t] >= 0) continue;
                const int l = longest_edge(t);
                for (int k = 0; k < 3; ++k) {
                    const std::int32_t r = region_of(adj(t, (l + k) % 3));
                    if (r >= 0) {
                        assign(t, r);
                        changed = true;
                        break;
                    }
                }
            }
        }
    }

    void grow_regions() {
        region_.assign(tris_.size(), -1);
        std::vector<std::uint32_t> queue;
        for (std::uint32_t s : order_) {
            if (region_[s] >= 0 || degenerate_[s]) continue;
            const std::int32_t r = new_region(s, false);
            assign(s, r);
            const Plane& plane = plane_[s];
            queue.assign(1, s);
            for (std::size_t k = 0; k < queue.size(); ++k)
                for (int i = 0; i < 3; ++i) {
                    const auto u = static_cast<std::uint32_t>(adj(queue[k], i));
                    if (region_[u] < 0 && within(plane, u)) {
                        assign(u, r);
                        queue.push_back(u);
                    }
                }
        }
        attach_degenerate(order_);
    }

    int regions_at(std::uint32_t vertex, std::vector<std::int32_t>& scratch) const {
        scratch.clear();
        for (std::uint32_t k = vertex_first_[vertex]; k < vertex_first_[vertex + 1]; ++k)
            scratch.push_back(region_[vertex_tris_[k]]);
        std::sort(scratch.begin(), scratch.end());
        scratch.erase(std::unique(scratch.begin(), scratch.end()), scratch.end());
        return static_cast<int>(scratch.size());
    }

    // Boundary loop of region r (counter-clockwise from outside); empty if it is not one simple loop.
    std::vector<std::uint32_t> boundary_loop(std::int32_t r) const {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> half_edges;
        for (std::uint32_t t : members(r))
            for (int i = 0; i < 3; ++i)
                if (region_of(adj(t, i)) != r)
                    half_edges.emplace_back(verts(t)[static_cast<std::size_t>(i)],
                                            verts(t)[static_cast<std::size_t>((i + 1) % 3)]);
        if (half_edges.empty()) return {};
        std::sort(half_edges.begin(), half_edges.end());
        for (std::size_t k = 1; k < half_edges.size(); ++k)
            if (half_edges[k].first == half_edges[k - 1].first) return {};  // a vertex passed twice
        std::vector<std::uint32_t> loop;
        const std::uint32_t start = half_edges.front().first;
        std::uint32_t v = start;
        for (std::size_t k = 0; k < half_edges.size(); ++k) {
            loop.push_back(v);
            const auto it = std::lower_bound(half_edges.begin(), half_edges.end(),
                                             std::pair<std::uint32_t, std::uint32_t>{v, 0});
            if (it == half_edges.end() || it->first != v) return {};
            v = it->second;
            if (v == start) break;
        }
        if (loop.size() != half_edges.size() || v != start) return {};  // several loops
        return loop;
    }

    // Splits region r into locked single triangles (degenerate slivers ride along with a neighbour). The
    // triangulation is an exact convex polytope, so this is always valid, merely less merged.
    void dissolve(std::int32_t r) {
        const std::vector<std::uint32_t> tris = std::move(members_[static_cast<std::size_t>(r)]);
        members_[static_cast<std::size_t>(r)].clear();
        bool first = true;
        for (std::uint32_t t : tris) {
            if (degenerate_[t]) {
                region_[t] = -1;
                continue;
            }
            if (first) {
                seed_[static_cast<std::size_t>(r)] = t;
                locked_[static_cast<std::size_t>(r)] = true;
                assign(t, r);
                first = false;
            } else {
                assign(t, new_region(t, true));
            }
        }
        if (first) throw std::logic_error("convex hull: region made only of degenerate triangles");
        attach_degenerate(tris);
        enqueue_around(tris);
    }

    std::vector<std::uint32_t> corners(const std::vector<std::uint32_t>& loop,
                                       std::vector<std::int32_t>& scratch) const {
        std::vector<std::uint32_t> c;
        for (std::uint32_t v : loop)
            if (regions_at(v, scratch) >= 3) c.push_back(v);
        return c;
    }

    bool convex_loop(const Plane& plane, const std::vector<std::uint32_t>& c) const {
        const std::size_t n = c.size();
        for (std::size_t k = 0; k < n; ++k) {
            const Vec3& a = q_[c[(k + n - 1) % n]];
            const Vec3& b = q_[c[k]];
            const Vec3& d = q_[c[(k + 1) % n]];
            // b may lie at most tol inside the chord a-d (a near-collinear corner), never more.
            if ((b - a).cross(d - b).dot(plane.normal) < -tol_ * (d - a).norm()) return false;
        }
        return true;
    }

    void repair(std::int32_t r) {
        if (members(r).empty()) return;  // absorbed
        const bool locked = locked_[static_cast<std::size_t>(r)];
        const auto loop = boundary_loop(r);
        if (loop.empty()) {
            if (locked) throw std::logic_error("convex hull: single-triangle region without a simple loop");
            dissolve(r);
            return;
        }
        const auto c = corners(loop, scratch_);
        if (c.size() < 3) {
            if (locked) {
                dissolve_around(r, loop);
            } else if (!absorb(r)) {
                dissolve(r);
            }
            return;
        }
        if (!convex_loop(region_plane(r), c)) {
            if (locked) throw std::logic_error("convex hull: single-triangle region is not convex");
            dissolve(r);
        }
    }

    // Region r (fewer than three corners: it lies inside, or along the edge of, its neighbours) joins an
    // unlocked neighbour whose plane holds all its vertices within tol, the one sharing most boundary first.
    bool absorb(std::int32_t r) {
        std::vector<std::int32_t> nbrs;
        for (std::uint32_t t : members(r))
            for (int i = 0; i < 3; ++i)
                if (region_of(adj(t, i)) != r) nbrs.push_back(region_of(adj(t, i)));
        std::sort(nbrs.begin(), nbrs.end());
        std::vector<std::pair<int, std::int32_t>> ranked;  // (-shared edges, region)
        for (std::size_t k = 0; k < nbrs.size();) {
            std::size_t e = k;
            while (e < nbrs.size() && nbrs[e] == nbrs[k]) ++e;
            ranked.emplace_back(-static_cast<int>(e - k), nbrs[k]);
            k = e;
        }
        std::sort(ranked.begin(), ranked.end());
        for (const auto& [shared, g] : ranked) {
            if (locked_[static_cast<std::size_t>(g)]) continue;
            const Plane& plane = region_plane(g);
            const auto& tr = members(r);
            if (!std::all_of(tr.begin(), tr.end(), [&](std::uint32_t t) { return within(plane, t); }))
                continue;
            const std::vector<std::uint32_t> moved = std::move(members_[static_cast<std::size_t>(r)]);
            members_[static_cast<std::size_t>(r)].clear();
            for (std::uint32_t t : moved) assign(t, g);
            enqueue_around(moved);
            return true;
        }
        return false;
    }

    // A locked region has a vertex bordering only one other region: split that (unlocked) region.
    void dissolve_around(std::int32_t r, const std::vector<std::uint32_t>& loop) {
        for (std::uint32_t v : loop) {
            if (regions_at(v, scratch_) >= 3) continue;
            for (std::int32_t g : scratch_)
                if (g != r && !locked_[static_cast<std::size_t>(g)]) {
                    dissolve(g);
                    return;
                }
        }
        throw std::logic_error("convex hull: face repair found no region to split");
    }

    // Plane along `normal` through the outermost vertex of the triangles (dropped vertices included); the
    // spread of their vertices below it goes to `spread`.
    Plane fit_offset(const Vec3& normal, const std::vector<std::uint32_t>& tris, double& spread) const {
        double hi = -std::numeric_limits<double>::infinity(), lo = std::numeric_limits<double>::infinity();
        for (std::uint32_t t : tris)
            for (std::uint32_t v : verts(t)) {
                const double d = normal.dot(q_[v]);
                hi = std::max(hi, d), lo = std::min(lo, d);
            }
        spread = hi - lo;
        return {normal, hi};
    }

    // The plane written to the hull. The region's area vector (sum of its triangles' cross products, i.e. the
    // Newell normal of its boundary) averages the noise of near-coplanar input, whereas the seed triangle's
    // plane tilts by noise / triangle size. It is used when it keeps the region within tol and no vertex of a
    // neighbouring region above it by more than tol (local convexity at every edge, hence global convexity);
    // otherwise, e.g. for a face a few tol across, the seed plane, which supports the hull exactly.
    Plane output_plane(std::int32_t r) const {
        const auto& tr = members(r);
        double spread = 0;
        if (tr.size() > 1) {
            Vec3 area_vector = Vec3::Zero();
            for (std::uint32_t t : tr) {
                const auto& v = verts(t);
                area_vector += (q_[v[1]] - q_[v[0]]).cross(q_[v[2]] - q_[v[0]]);
            }
            const Plane newell = fit_offset(area_vector.normalized(), tr, spread);
            bool ok = spread <= tol_;
            for (std::uint32_t t : tr)
                for (int i = 0; i < 3 && ok; ++i) {
                    const std::int32_t g = region_of(adj(t, i));
                    if (g == r) continue;
                    for (std::uint32_t u : members(g))
                        for (std::uint32_t v : verts(u))
                            ok = ok && newell.normal.dot(q_[v]) - newell.offset <= tol_;
                }
            if (ok) return newell;
        }
        return fit_offset(region_plane(r).normal, tr, spread);
    }

    std::span<const Vec3> q_;
    std::vector<Triangle> tris_;
    double tol_;
    std::vector<double> area_;
    std::vector<bool> degenerate_;
    std::vector<Plane> plane_;          // per triangle
    std::vector<std::uint32_t> order_;  // triangles by decreasing area
    std::vector<std::uint32_t> vertex_first_, vertex_tris_;
    std::vector<std::int32_t> region_;                 // per triangle
    std::vector<std::vector<std::uint32_t>> members_;  // per region; empty once absorbed
    std::vector<std::uint32_t> seed_;                  // per region: the triangle whose plane it uses
    std::vector<bool> locked_;                         // per region: a split triangle, never merged again
    std::deque<std::int32_t> queue_;
    std::vector<bool> queued_;
    std::vector<std::int32_t> scratch_;
};

ConvexHull FaceMerger::build(std::span<const Vec3> points, const Vec3& centre) const {
    std::vector<std::int32_t> scratch;
    // Face order: by the area rank of each region's largest triangle (deterministic).
    std::vector<std::int32_t> face_order;
    {
        std::vector<bool> seen(seed_.size(), false);
        for (std::uint32_t t : order_) {
            const std::int32_t r = region_[t];
            if (!seen[static_cast<std::size_t>(r)]) {
                seen[static_cast<std::size_t>(r)] = true;
                face_order.push_back(r);
            }
        }
    }
    std::vector<std::vector<std::uint32_t>> loops;
    for (std::int32_t r : face_order) loops.push_back(corners(boundary_loop(r), scratch));
    // Vertices: the corners, in input order.
    std::vector<std::int32_t> index(points.size(), -1);
    for (const auto& loop : loops)
        for (std::uint32_t v : loop) index[v] = 0;
    ConvexHull hull;
    for (std::uint32_t i = 0; i < points.size(); ++i)
        if (index[i] == 0) {
            index[i] = static_cast<std::int32_t>(hull.vertices.size());
            hull.vertices.push_back(points[i]);
        }
    for (std::size_t f = 0; f < loops.size(); ++f) {
        const Plane plane = output_plane(face_order[f]);
        auto loop = loops[f];
        // Canonical start: the corner with the smallest index.
        std::rotate(loop.begin(), std::min_element(loop.begin(), loop.end()), loop.end());
        ConvexHull::Face face;
        face.normal = plane.normal;
        face.offset = plane.offset + plane.normal.dot(centre);
        face.first = static_cast<std::uint32_t>(hull.face_vertices.size());
        face.count = static_cast<std::uint32_t>(loop.size());
        for (std::uint32_t v : loop) hull.face_vertices.push_back(static_cast<std::uint32_t>(index[v]));
        hull.faces.push_back(face);
    }
    return hull;
}

// Edges, vertex adjacency and centroid from the face loops; checks the invariants the rest of the engine
// relies on. A failure here is a bug in this file, not bad input.
void finish_and_validate(ConvexHull& h, double tol) {
    struct Directed {
        std::uint32_t a, b, face;
    };
    std::vector<Directed> directed;
    for (std::uint32_t f = 0; f < h.faces.size(); ++f) {
        const auto& face = h.faces[f];
        if (face.count < 3) throw std::logic_error("convex hull: face with fewer than 3 vertices");
        for (std::uint32_t k = 0; k < face.count; ++k)
            directed.push_back(
                {h.face_vertices[face.first + k], h.face_vertices[face.first + (k + 1) % face.count], f});
    }
    std::sort(directed.begin(), directed.end(),
              [](const Directed& x, const Directed& y) { return std::tie(x.a, x.b) < std::tie(y.a, y.b); });
    auto find = [&](std::uint32_t a, std::uint32_t b) -> const Directed* {
        const auto it = std::lower_bound(
            directed.begin(), directed.end(), Directed{a, b, 0},
            [](const Directed& x, const Directed& y) { return std::tie(x.a, x.b) < std::tie(y.a, y.b); });
        return it != directed.end() && it->a == a && it->b == b ? &*it : nullptr;
    };
    for (std::size_t k = 1; k < directed.size(); ++k)
        if (directed[k].a == directed[k - 1].a && directed[k].b == directed[k - 1].b)
            throw std::logic_error("convex hull: directed edge used twice");
    for (const Directed& d : directed) {
        const Directed* twin = find(d.b, d.a);
        if (twin == nullptr || twin->face == d.face)
            throw std::logic_error("convex hull: edge without twin face");
        if (d.a < d.b) h.edges.push_back({d.a, d.b, d.face, twin->face});
    }
    const auto nv = static_cast<long>(h.vertices.size());
    const auto ne = static_cast<long>(h.edges.size());
    const auto nf = static_cast<long>(h.faces.size());
    if (nv - ne + nf != 2) throw std::logic_error("convex hull: Euler characteristic is not 2");

    // Local convexity of every edge (with a closed surface, global convexity): no vertex of either face above
    // the other face's plane; and every face planar within tol.
    auto face_span = [&](std::uint32_t f) {
        const auto& face = h.faces[f];
        return std::span<const std::uint32_t>(h.face_vertices.data() + face.first, face.count);
    };
    for (std::uint32_t f = 0; f < h.faces.size(); ++f)
        for (std::uint32_t v : face_span(f)) {
            const double d = h.faces[f].normal.dot(h.vertices[v]) - h.faces[f].offset;
            if (d > tol || d < -tol) throw std::logic_error("convex hull: face not planar within tolerance");
        }
    for (const auto& e : h.edges)
        for (const auto& [f, g] : {std::pair{e.face0, e.face1}, std::pair{e.face1, e.face0}})
            for (std::uint32_t v : face_span(g))
                if (h.faces[f].normal.dot(h.vertices[v]) - h.faces[f].offset > tol)
                    throw std::logic_error("convex hull: concave edge");

    h.neighbor_offsets.assign(h.vertices.size() + 1, 0);
    for (const auto& e : h.edges) ++h.neighbor_offsets[e.v0 + 1], ++h.neighbor_offsets[e.v1 + 1];
    std::partial_sum(h.neighbor_offsets.begin(), h.neighbor_offsets.end(), h.neighbor_offsets.begin());
    h.neighbors.resize(h.neighbor_offsets.back());
    std::vector<std::uint32_t> fill(h.neighbor_offsets.begin(), h.neighbor_offsets.end() - 1);
    for (const auto& e : h.edges) h.neighbors[fill[e.v0]++] = e.v1, h.neighbors[fill[e.v1]++] = e.v0;
    for (std::size_t v = 0; v < h.vertices.size(); ++v)
        std::sort(h.neighbors.begin() + h.neighbor_offsets[v],
                  h.neighbors.begin() + h.neighbor_offsets[v + 1]);

    // Volume centroid: signed tetrahedra from the vertex mean over fan-triangulated faces.
    Vec3 ref = Vec3::Zero();
    for (const Vec3& v : h.vertices) ref += v;
    ref /= static_cast<double>(h.vertices.size());
    double volume = 0;
    Vec3 moment = Vec3::Zero();
    for (std::uint32_t f = 0; f < h.faces.size(); ++f) {
        const auto loop = face_span(f);
        const Vec3 a = h.vertices[loop[0]] - ref;
        for (std::size_t k = 1; k + 1 < loop.size(); ++k) {
            const Vec3 b = h.vertices[loop[k]] - ref, c = h.vertices[loop[k + 1]] - ref;
            const double vol = a.dot(b.cross(c)) / 6.0;
            volume += vol;
            moment += vol * (a + b + c) / 4.0;
        }
    }
    if (!(volume > 0)) throw std::logic_error("convex hull: non-positive volume");
    h.centroid = ref + moment / volume;
}

}  // namespace

ShapePtr make_convex_hull(std::span<const Vec3> points) {
    if (points.size() < 4)
        throw ShapeError("convex hull needs at least 4 points, got " + std::to_string(points.size()));
    Aabb box;
    double max_abs = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (!points[i].allFinite())
            throw ShapeError("convex hull: point " + std::to_string(i) + " is not finite");
        box.grow(points[i]);
        max_abs = std::max(max_abs, points[i].cwiseAbs().maxCoeff());
    }
    const double span = (box.max - box.min).maxCoeff();
    if (!(span > 0)) throw ShapeError("convex hull: all points coincide");
    if (!(span >= kMinSpan && span <= kMaxSpan))
        throw ShapeError("convex hull: the points span " + number_text(span) +
                         " (largest side of their bounding box); expected a span from " +
                         number_text(kMinSpan) + " to " + number_text(kMaxSpan) +
                         ", beyond which the hull's face normals " +
                         (span > kMaxSpan ? "overflow" : "underflow") + " a double");
    const double diagonal = (box.max - box.min).norm();
    // Relative to the extent, and never below the roundoff of a plane distance at these coordinates.
    const double tol =
        std::max(kRelativeTolerance * diagonal, 64 * std::numeric_limits<double>::epsilon() * max_abs);

    const Vec3 centre = box.center();
    std::vector<Vec3> q(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) q[i] = points[i] - centre;

    // Initial simplex from extreme points; its failure to span a volume is the degeneracy test.
    std::array<std::uint32_t, 4> s{};
    int axis = 0;
    (box.max - box.min).maxCoeff(&axis);
    for (std::uint32_t i = 0; i < q.size(); ++i) {
        if (q[i][axis] < q[s[0]][axis]) s[0] = i;
        if (q[i][axis] > q[s[1]][axis]) s[1] = i;
    }
    const Vec3 dir = (q[s[1]] - q[s[0]]).normalized();
    double best = -1;
    for (std::uint32_t i = 0; i < q.size(); ++i) {
        const double d = (q[i] - q[s[0]]).cross(dir).norm();
        if (d > best) best = d, s[2] = i;
    }
    if (!(best > tol))
        throw ShapeError("convex hull: points are collinear (farthest distance from a line " +
                         number_text(best) + " <= tolerance " + number_text(tol) + ")");
    const Vec3 normal = (q[s[1]] - q[s[0]]).cross(q[s[2]] - q[s[0]]).normalized();
    best = -1;
    for (std::uint32_t i = 0; i < q.size(); ++i) {
        const double d = std::abs(normal.dot(q[i] - q[s[0]]));
        if (d > best) best = d, s[3] = i;
    }
    if (!(best > tol))
        throw ShapeError("convex hull: points are coplanar (farthest distance from a plane " +
                         number_text(best) + " <= tolerance " + number_text(tol) +
                         "): they enclose no volume");

    Quickhull quickhull(points, q);
    FaceMerger merger(q, quickhull.run(s), tol);
    merger.run();
    ConvexHull hull = merger.build(points, centre);
    // Offsets are in world coordinates; the check allows the rounding of the recentring on top of tol.
    finish_and_validate(hull, 2 * tol);
    return std::make_shared<const Shape>(Shape{std::move(hull)});
}

}  // namespace simpulse
