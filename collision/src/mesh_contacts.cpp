// Convex shapes against triangle meshes and height fields: one-sided triangle contacts with internal-edge
// normal fixing (Bullet btInternalEdgeUtility, Jolt active edges), axis-rotation features along the chosen
// normal, and merging of coplanar per-triangle patches (see mesh_contacts.h).
#include <simpulse/collision/axis_rotation.h>
#include <simpulse/collision/bvh.h>
#include <simpulse/collision/clip.h>
#include <simpulse/collision/gjk.h>
#include <simpulse/collision/manifold_reduction.h>
#include <simpulse/collision/mesh_contacts.h>
#include <simpulse/collision/plane_contacts.h>
#include <simpulse/collision/raycast.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace simpulse {
namespace {

// Same rule as make_triangle_mesh: neighbours within 1e-3 rad of coplanar share a flat (internal) edge.
constexpr double kFlatEdgeAngle = 1e-3;
// Per-triangle patches whose normals agree within this angle lie in one plane and merge into one manifold.
// Coplanar triangles' normals differ by the rounding of their cross products (~1e-16 rad), real creases by at
// least the flat-edge angle above, so any value in between separates the two.
constexpr double kCoplanarAngle = 1e-6;
// Barycentric coordinates below this are zero: the closest point is on the edge or vertex.
constexpr double kBarycentricTolerance = 1e-9;
// Relative rounding floor of the GJK loop below, as in gjk.cpp.
constexpr double kRounding = 64 * std::numeric_limits<double>::epsilon();

Vec3 triangle_support(const MeshTriangle& t, const Vec3& d) {
    const double d0 = d.dot(t.v[0]), d1 = d.dot(t.v[1]), d2 = d.dot(t.v[2]);
    return d0 >= d1 ? (d0 >= d2 ? t.v[0] : t.v[2]) : (d1 >= d2 ? t.v[1] : t.v[2]);
}

}  // namespace

// GJK between the convex core and the triangle (Gilbert, Johnson & Keerthi 1988) with the signed-volume
// sub-algorithm of gjk.h; the loop and its termination follow gjk.cpp, in a frame centred on the core.
CoreDistance core_triangle_distance(const ConvexSupport& core, const MeshTriangle& t) {
    const Vec3 o = core.center();
    GjkSimplex s;
    std::array<double, 4> lambda{1, 0, 0, 0};
    Vec3 dir = (t.v[0] + t.v[1] + t.v[2]) / 3 - o;
    if (!(dir.squaredNorm() > 0)) dir = -t.normal;
    s.a[0] = core.support(dir) - o;
    s.b[0] = triangle_support(t, -dir) - o;
    s.w[0] = s.a[0] - s.b[0];
    s.count = 1;
    Vec3 v = s.w[0];
    double vv = v.squaredNorm();
    CoreDistance r;
    for (int iteration = 0; iteration < 64; ++iteration) {
        if (!(vv > 0)) {
            r.intersecting = true;
            break;
        }
        const Vec3 pa = core.support(-v) - o;
        const Vec3 pb = triangle_support(t, v) - o;
        const Vec3 w = pa - pb;
        const double vw = v.dot(w);
        if (vv - vw <= 1e-10 * vv + kRounding * std::sqrt(vv * w.squaredNorm())) break;
        bool repeated = false;
        for (int i = 0; i < s.count; ++i) repeated = repeated || s.w[static_cast<std::size_t>(i)] == w;
        if (repeated) break;
        s.w[static_cast<std::size_t>(s.count)] = w;
        s.a[static_cast<std::size_t>(s.count)] = pa;
        s.b[static_cast<std::size_t>(s.count)] = pb;
        ++s.count;
        const Vec3 next = gjk_closest_on_simplex(s, lambda);
        if (s.count == 4) {
            r.intersecting = true;
            break;
        }
        double w_max = 0;
        for (int i = 0; i < s.count; ++i)
            w_max = std::max(w_max, s.w[static_cast<std::size_t>(i)].squaredNorm());
        const double next_vv = next.squaredNorm();
        if (next_vv <= kRounding * kRounding * w_max) {
            r.intersecting = true;
            v = next;
            break;
        }
        const bool progress = next_vv < vv;
        v = next;
        vv = next_vv;
        if (!progress) break;
    }
    r.on_convex = o;
    r.on_triangle = o;
    for (int i = 0; i < s.count; ++i) {
        r.on_convex += lambda[static_cast<std::size_t>(i)] * s.a[static_cast<std::size_t>(i)];
        r.on_triangle += lambda[static_cast<std::size_t>(i)] * s.b[static_cast<std::size_t>(i)];
    }
    r.distance = r.intersecting ? 0.0 : std::sqrt(vv);
    return r;
}

namespace {

// Barycentric coordinates of p (in the triangle's plane) with respect to the triangle (Ericson 3.4).
Vec3 barycentric(const MeshTriangle& t, const Vec3& p) {
    const Vec3 e0 = t.v[1] - t.v[0], e1 = t.v[2] - t.v[0], d = p - t.v[0];
    const double d00 = e0.dot(e0), d01 = e0.dot(e1), d11 = e1.dot(e1), d20 = d.dot(e0), d21 = d.dot(e1);
    const double den = d00 * d11 - d01 * d01;
    const double b1 = (d11 * d20 - d01 * d21) / den, b2 = (d00 * d21 - d01 * d20) / den;
    return {1 - b1 - b2, b1, b2};
}

// Whether the closest point `p` of the triangle lies on a feature allowed to produce a non-face normal: a
// convex edge, or a vertex with a convex edge. Interior points give the face normal anyway.
bool on_active_feature(const MeshTriangle& t, const Vec3& p) {
    const Vec3 b = barycentric(t, p);
    int zeros = 0, last_zero = 0, nonzero = 0;
    for (int k = 0; k < 3; ++k) {
        if (b[k] <= kBarycentricTolerance)
            ++zeros, last_zero = k;
        else
            nonzero = k;
    }
    if (zeros == 0) return false;
    if (zeros == 1)
        return (t.convex_edges >> ((last_zero + 1) % 3)) & 1;  // the edge opposite the zero vertex
    // At vertex `nonzero`: its two edges are nonzero (leaving it) and nonzero + 2 (arriving).
    return ((t.convex_edges >> nonzero) & 1) || ((t.convex_edges >> ((nonzero + 2) % 3)) & 1);
}

// The edge of the triangle that p, projected along its normal, lies furthest beyond (the one opposite the
// most negative barycentric coordinate), or -1 when p is over the triangle. Edge k joins v[k] to the next.
int edge_beyond(const MeshTriangle& t, const Vec3& p) {
    const Vec3 b = barycentric(t, p - t.normal.dot(p - t.v[0]) * t.normal);
    int edge = -1;
    double furthest = -kBarycentricTolerance;
    for (int k = 0; k < 3; ++k)
        if (b[k] < furthest) furthest = b[k], edge = (k + 1) % 3;
    return edge;
}

// The triangle's feature towards `m`: the vertices whose support value is within the axis-rotation cone of
// the best one, i.e. what the supports along a cone of half-angle eps around m would collect.
void triangle_feature(const MeshTriangle& t, const Vec3& m, ContactFeature& out) {
    double best = -std::numeric_limits<double>::infinity();
    int top = 0;
    for (int k = 0; k < 3; ++k)
        if (m.dot(t.v[static_cast<std::size_t>(k)]) > best)
            best = m.dot(t.v[static_cast<std::size_t>(k)]), top = k;
    out.clear();
    const double s = std::sin(kAxisRotationAngle);
    for (int k = 0; k < 3; ++k) {
        const Vec3& v = t.v[static_cast<std::size_t>(k)];
        if (m.dot(v) >= best - s * (v - t.v[static_cast<std::size_t>(top)]).norm()) out.add(v);
    }
}

}  // namespace

bool inside_triangle_prism(const MeshTriangle& t, const Vec3& p) {
    return edge_beyond(t, p) < 0;
}

namespace {

// The same along +z: whether p lies above or below the triangle of a height field (whose normals all have
// n.z > 0, the grid spacing being positive).
bool inside_vertical_prism(const MeshTriangle& t, const Vec3& p) {
    const Vec3 b = barycentric(t, p - t.normal.dot(p - t.v[0]) / t.normal.z() * Vec3::UnitZ());
    return b.minCoeff() >= -kBarycentricTolerance;
}

// Candidates of the triangles touching one shape, grouped by plane (Strashnov & Torgashev 2020, sect. V: one
// patch per plane) and reduced once per plane, so that the corners of a body lying across several triangles
// are all seen by the reduction. Fixed capacity: a full group is compacted to its deepest point and the
// vertices of its convex hull, which is all the reduction ever picks (steps 2-4 take extreme points, step 1
// the deepest; only the tie-break among near-deepest points may then differ); more planes than groups flush
// the oldest group.
// Where a triangle's candidates came from: a lone vertex of the shape measured against the nearest point of
// the triangle because it lies beside it ("clamped", e.g. the deepest point of a curved body in a concave
// crease, or beside a coplanar neighbour that contains it).
struct TriangleSource {
    std::uint32_t triangle = 0;
    bool vertex = false;   // the shape's feature was a single vertex, `shape_point`
    bool clamped = false;  // ... lying beside the triangle
    Vec3 shape_point = Vec3::Zero();
};

class PlaneGroups {
  public:
    void add(const Vec3& normal, const ContactCandidates& c, const TriangleSource& source,
             std::vector<Manifold>& out) {
        Group* g = nullptr;
        for (int k = 0; k < count_ && !g; ++k)
            if (groups_[static_cast<std::size_t>(k)].normal.dot(normal) >= std::cos(kCoplanarAngle))
                g = &groups_[static_cast<std::size_t>(k)];
        if (!g) {
            if (count_ == kGroups) {
                flush_group(groups_[0], out);
                for (int k = 1; k < kGroups; ++k)
                    groups_[static_cast<std::size_t>(k - 1)] = groups_[static_cast<std::size_t>(k)];
                --count_;
            }
            g = &groups_[static_cast<std::size_t>(count_++)];
            g->normal = normal;
            g->points.clear();
            g->direct_count = 0;
        }
        // Shadowing is settled as the points come in, not only at the flush: the compaction of a full group
        // keeps the hull of its points, and the direct copy of a lone vertex lies inside the ring of its
        // clamped copies (a sphere over the hub of a fan of thin triangles gets one clamped copy per triangle
        // within the margin), so it was compacted away and the clamped copies, up to the margin beside the
        // shape at depth 0, became the contacts.
        if (source.vertex && source.clamped && holds_direct(*g, source.shape_point)) return;
        if (source.vertex && !source.clamped && c.count > 0 && !holds_direct(*g, source.shape_point)) {
            if (g->direct_count < kDirect)
                g->direct[static_cast<std::size_t>(g->direct_count++)] = source.shape_point;
            drop_shadowed(*g);
        }
        for (const ContactPoint& p : c.view()) {
            if (g->points.count == kCapacity) compact(*g);
            g->source[static_cast<std::size_t>(g->points.count)] = source;
            g->points.add(p);
        }
    }
    void flush(std::vector<Manifold>& out) {
        for (int k = 0; k < count_; ++k) flush_group(groups_[static_cast<std::size_t>(k)], out);
        count_ = 0;
    }

  private:
    static constexpr int kGroups = 8;
    static constexpr int kCapacity = 64;
    // Lone vertices of the shape seen directly over a triangle of the group. Within one plane every triangle
    // sees the same feature of the shape along the same normal, so one is the rule; beyond four the flush
    // still drops the clamped copies of the direct points that are left.
    static constexpr int kDirect = 4;
    struct Group {
        Vec3 normal = Vec3::UnitZ();
        ContactPointBuffer<kCapacity> points;
        std::array<TriangleSource, kCapacity> source;  // of each point; written with it
        std::array<Vec3, kDirect> direct;
        int direct_count = 0;
    };

    static bool holds_direct(const Group& g, const Vec3& shape_point) {
        for (int k = 0; k < g.direct_count; ++k)
            if (g.direct[static_cast<std::size_t>(k)] == shape_point) return true;
        return false;
    }

    // Keeps the points whose `keep` flag is set, in order, with their triangles.
    static void keep_only(Group& g, const std::array<int, kCapacity>& order, int n) {
        const Group copy = g;
        g.points.clear();
        for (int i = 0; i < n; ++i) {
            const int k = order[static_cast<std::size_t>(i)];
            g.source[static_cast<std::size_t>(i)] = copy.source[static_cast<std::size_t>(k)];
            g.points.add(copy.points[k]);
        }
    }

    // Sorted by id (unique per triangle and feature), the reduction no longer depends on the order in which
    // the triangles were visited: a BVH and a grid walk give the same manifold.
    static void sort_by_id(Group& g) {
        std::array<int, kCapacity> order;
        const int n = g.points.count;
        for (int i = 0; i < n; ++i) order[static_cast<std::size_t>(i)] = i;
        // Insertion sort: stable like std::stable_sort, without its temporary buffer (a heap allocation per
        // patch), and the fastest for the few points of a patch.
        for (int i = 1; i < n; ++i) {
            const int moving = order[static_cast<std::size_t>(i)];
            int j = i;
            for (; j > 0 && g.points[moving].id < g.points[order[static_cast<std::size_t>(j - 1)]].id; --j)
                order[static_cast<std::size_t>(j)] = order[static_cast<std::size_t>(j - 1)];
            order[static_cast<std::size_t>(j)] = moving;
        }
        keep_only(g, order, n);
    }

    // A clamped vertex whose plane also holds the same vertex unclamped lies beside a coplanar triangle that
    // contains it: that triangle's point is the contact, the clamped copy only a laterally shifted duplicate
    // (at the triangle's nearest point, up to the margin beside the shape, where a rolling body's own spin
    // makes it look approaching or separating at |w| times that offset).
    static void drop_shadowed(Group& g) {
        std::array<int, kCapacity> order;
        int n = 0;
        for (int i = 0; i < g.points.count; ++i) {
            const TriangleSource& si = g.source[static_cast<std::size_t>(i)];
            bool shadowed = si.clamped && holds_direct(g, si.shape_point);
            for (int j = 0; j < g.points.count && si.clamped && !shadowed; ++j) {
                const TriangleSource& sj = g.source[static_cast<std::size_t>(j)];
                shadowed = sj.vertex && !sj.clamped && sj.shape_point == si.shape_point;
            }
            if (!shadowed) order[static_cast<std::size_t>(n++)] = i;
        }
        if (n < g.points.count) keep_only(g, order, n);
    }

    static void flush_group(Group& g, std::vector<Manifold>& out) {
        if (g.points.count == 0) return;
        drop_shadowed(g);
        sort_by_id(g);
        Manifold m;
        reduce_contacts(g.points.view(), g.normal, m);
        // The patch is attributed to the triangle of its first (deepest) point.
        m.sub_a = 0;
        m.sub_b = 0;
        for (int i = 0; i < g.points.count; ++i)
            if (g.points[i].id == m.points[0].id) m.sub_b = g.source[static_cast<std::size_t>(i)].triangle;
        out.push_back(m);
        g.points.clear();
    }

    // Keeps the deepest point and the convex hull of the points (monotone chain in the plane).
    static void compact(Group& g) {
        drop_shadowed(g);
        if (g.points.count < kCapacity) return;
        Vec3 u, v;
        orthonormal_basis(g.normal, u, v);
        const int n = g.points.count;
        std::array<Vec2, kCapacity> q;
        std::array<int, kCapacity> order;
        int deepest = 0;
        for (int i = 0; i < n; ++i) {
            const Vec3& x = g.points[i].position;
            q[static_cast<std::size_t>(i)] = Vec2(x.dot(u), x.dot(v));
            order[static_cast<std::size_t>(i)] = i;
            if (g.points[i].depth > g.points[deepest].depth) deepest = i;
        }
        std::sort(order.begin(), order.begin() + n, [&](int a, int b) {
            const Vec2& pa = q[static_cast<std::size_t>(a)];
            const Vec2& pb = q[static_cast<std::size_t>(b)];
            return pa.x() < pb.x() || (pa.x() == pb.x() && pa.y() < pb.y());
        });
        auto cross = [&](int o, int a, int b) {
            const Vec2 ea = q[static_cast<std::size_t>(a)] - q[static_cast<std::size_t>(o)];
            const Vec2 eb = q[static_cast<std::size_t>(b)] - q[static_cast<std::size_t>(o)];
            return ea.x() * eb.y() - ea.y() * eb.x();
        };
        std::array<int, 2 * kCapacity> h;
        int k = 0;
        for (int i = 0; i < n; ++i) {
            const int c = order[static_cast<std::size_t>(i)];
            while (k >= 2 &&
                   cross(h[static_cast<std::size_t>(k - 2)], h[static_cast<std::size_t>(k - 1)], c) <= 0)
                --k;
            h[static_cast<std::size_t>(k++)] = c;
        }
        for (int i = n - 2, lower = k + 1; i >= 0; --i) {
            const int c = order[static_cast<std::size_t>(i)];
            while (k >= lower &&
                   cross(h[static_cast<std::size_t>(k - 2)], h[static_cast<std::size_t>(k - 1)], c) <= 0)
                --k;
            h[static_cast<std::size_t>(k++)] = c;
        }
        std::array<bool, kCapacity> keep{};
        keep[static_cast<std::size_t>(deepest)] = true;
        for (int i = 0; i < std::max(1, k - 1); ++i)
            keep[static_cast<std::size_t>(h[static_cast<std::size_t>(i)])] = true;
        int m = 0;
        for (int i = 0; i < n; ++i)
            if (keep[static_cast<std::size_t>(i)]) order[static_cast<std::size_t>(m++)] = i;
        if (m < kCapacity) {
            keep_only(g, order, m);
            return;
        }
        // A hull of kCapacity vertices (a finely tessellated curved patch): fall back to its four points.
        Manifold r;
        reduce_contacts(g.points.view(), g.normal, r);
        for (int i = 0; i < r.count; ++i)
            for (int j = 0; j < n; ++j)
                if (g.points[j].id == r.points[static_cast<std::size_t>(i)].id)
                    order[static_cast<std::size_t>(i)] = j;
        keep_only(g, order, r.count);
    }

    std::array<Group, kGroups> groups_;
    int count_ = 0;
};

// The shape's own contact points against the triangle's plane (collide_convex_plane: box corners, hull
// vertices, the rims of cylinders and cones, ...) deeper than -margin, reduced to four, and kept where they
// lie over the triangle (in its prism along n, or straight below it for a height field), appended to `out`.
// Points already in `existing` (the same position) are skipped.
void plane_points(const Shape& shape, const Pose& pose, const MeshTriangle& t, bool vertical, double margin,
                  const ContactCandidates& existing, ContactCandidates& out) {
    const Vec3& n = t.normal;
    Manifold m;
    if (!collide_convex_plane(shape, pose, Plane{n, n.dot(t.v[0])}, Pose{}, CollideSettings{margin}, m))
        return;
    for (int i = 0; i < m.count; ++i) {
        const ContactPoint& p = m.points[static_cast<std::size_t>(i)];
        if (!(vertical ? inside_vertical_prism(t, p.position) : inside_triangle_prism(t, p.position)))
            continue;
        bool repeated = false;
        for (int k = 0; k < existing.count && !repeated; ++k)
            repeated = (existing[k].position - p.position).norm() <= 1e-9 * (1 + p.position.norm());
        if (!repeated) out.add({p.position, p.depth, mix_id(t.index, 0x20000u | p.id)});
    }
}

// The deepest point, along -n, of the slice of the shape by the plane through `a` spanned by `along` and n
// (n . along = 0): minimise n . x over the shape within that plane. With w the slice plane's normal, the
// support point along -n + lambda w crosses the plane monotonically as lambda grows, so bisection on lambda
// finds the crossing: one point on a smooth shape; on a polytope two support vertices on either side, whose
// segment meets the plane at the slice's deepest point. False when the shape does not reach the plane.
bool deepest_in_slice(const ConvexSupport& shape, const Vec3& a, const Vec3& along, const Vec3& n,
                      Vec3& deepest) {
    const Vec3 w = along.cross(n).normalized();
    const double c = w.dot(a);
    Vec3 x_lo = Vec3::Zero(), x_hi = Vec3::Zero();
    auto side = [&](double lambda, Vec3& x) {
        x = shape.support(-n + lambda * w);
        return w.dot(x) - c;
    };
    double lo = -1, hi = 1, f_lo = side(lo, x_lo), f_hi = side(hi, x_hi);
    for (int k = 0; k < 64 && f_lo > 0; ++k) f_lo = side(lo *= 4, x_lo);
    for (int k = 0; k < 64 && f_hi < 0; ++k) f_hi = side(hi *= 4, x_hi);
    if (f_lo > 0 || f_hi < 0) return false;
    // 60 halvings: the bracket on lambda down to rounding, at one support call each.
    for (int k = 0; k < 60 && f_lo < 0 && f_hi > 0; ++k) {
        const double mid = 0.5 * (lo + hi);
        Vec3 x;
        const double f = side(mid, x);
        if (f <= 0)
            lo = mid, f_lo = f, x_lo = x;
        else
            hi = mid, f_hi = f, x_hi = x;
    }
    deepest = f_lo == f_hi ? x_lo : x_lo + (f_lo / (f_lo - f_hi)) * (x_hi - x_lo);
    return true;
}

// A lone vertex of the shape beside the triangle is not in the triangle's care: across a convex edge (or the
// border) it lies over a neighbour that bends away, where its depth below this triangle's plane is no
// penetration (on a hill, up to 2 cm under a box whose corner is millimetres above the neighbouring triangle;
// bench_terrain_depth); across a concave edge the rising neighbour holds it directly, and beyond that
// neighbour the plane says nothing either. What this triangle holds is the shape where it crosses that edge:
// the contact is the edge point under which the shape reaches deepest below the plane. Along the edge line
// that depth is concave (the lower surface of a convex body is convex), and its maximum is the deepest point
// of the shape's slice by the plane through the edge and the normal (deepest_in_slice); beyond the edge's
// ends it is the shape's lowest point over the nearer end (a ray cast up the normal line). The candidate is
// dropped when the shape does not reach within the margin of the plane there.
void measure_at_edge(const ConvexSupport& convex, const MeshTriangle& t, int edge, double margin,
                     ContactCandidates& out) {
    const Vec3& n = t.normal;
    const Vec3& a = t.v[static_cast<std::size_t>(edge)];
    const Vec3 along = t.v[static_cast<std::size_t>((edge + 1) % 3)] - a;
    Vec3 deepest = Vec3::Zero();
    double depth = -std::numeric_limits<double>::infinity();
    if (deepest_in_slice(convex, a, along, n, deepest)) {
        const double s = along.dot(deepest - a) / along.squaredNorm();
        if (s >= 0 && s <= 1) {
            depth = n.dot(a - deepest);
        } else {
            const Vec3 end = s < 0 ? a : a + along;
            // Start below the slice's deepest point: the shape over this end reaches no deeper.
            const double below = std::max(0.0, n.dot(a - deepest)) + margin + 1e-3 * (1 + end.norm());
            const auto hit = raycast(*convex.shape, convex.pose, end - below * n, n, below + margin);
            if (hit) depth = below - hit->distance, deepest = hit->point;
        }
    }
    if (!(depth >= -margin)) {
        out.clear();
        return;
    }
    ContactPoint& p = out[0];
    p.depth = depth;
    p.position = deepest + 0.5 * depth * n;
}

// Candidate points of a convex shape against one triangle (both in the mesh frame) and the normal from the
// shape to the triangle; false when nothing lies within the margin. Front side only: a shape whose centre is
// behind the triangle's plane is left to back_triangle_candidates. With `shape` (at `pose`), a face contact
// also gets the shape's penetrating plane points, in `plane_out` (their own source: they are never clamped).
bool triangle_candidates(const Shape* shape, const Pose& pose, const ConvexSupport& convex,
                         const MeshTriangle& t, double margin, Vec3& normal, TriangleSource& source,
                         ContactCandidates& out, ContactCandidates& plane_out) {
    const Vec3& n = t.normal;
    if (n.dot(convex.center() - t.v[0]) < 0) return false;
    // The face axis bounds the depth: a shape entirely above the plane by more than the margin cannot touch.
    if (n.dot(t.v[0] - convex.support(-n)) < -margin) return false;
    const ConvexSupport core = convex.core();
    const CoreDistance d = core_triangle_distance(core, t);
    if (d.distance - convex.radius > margin) return false;

    // m points from the triangle to the shape.
    Vec3 m = n;
    bool face = true;
    if (!d.intersecting && d.distance > 0 && on_active_feature(t, d.on_triangle)) {
        m = (d.on_convex - d.on_triangle) / d.distance;
        face = false;
    }
    ContactFeature fc, ft;
    axis_rotation_feature(core, -m, fc);
    int beyond = -1;  // the edge a lone vertex beside the triangle lies beyond
    if (face) {
        for (const Vec3& v : t.v) ft.add(v);
        ft.convex_loop = true;
        // A lone vertex beside the triangle is measured where the shape crosses the edge it lies beyond
        // (measure_at_edge, below); the plane groups drop it when a coplanar triangle holds the same vertex
        // directly.
        source.vertex = fc.count == 1;
        if (source.vertex) beyond = edge_beyond(t, fc.points[0]);
        source.clamped = beyond >= 0;
        if (source.vertex) source.shape_point = fc.points[0];
    } else {
        triangle_feature(t, m, ft);
    }
    normal = -m;
    core_feature_candidates(fc, ft, normal, convex.radius, 0, margin, t.index, out);
    if (shape && source.clamped && out.count == 1) measure_at_edge(convex, t, beyond, margin, out);
    // Along the face normal the axis-rotation feature is only what lies within a small cone of the deepest
    // point: for a body sunk at an angle (a box on one edge, a thin cylinder on one rim point) the rest of
    // what is below the plane would be missed, and pushing the deepest feature up only turns the body about
    // it. Every penetrating point of the shape over the triangle is a contact, as against a plane.
    if (face && shape) plane_points(*shape, pose, t, false, 0, out, plane_out);
    return out.count + plane_out.count > 0;
}

// A triangle whose plane the shape's centre is behind, for a shape that touches no triangle from the front:
// it sank or was pushed past half its thickness within a step (a small or thin body, or one turned into the
// ground about a single contact point), and front-side culling alone would drop it for good. A mesh may be
// open with empty space behind it: its triangle holds the shape only while the shape still reaches the front
// side (straddles the plane). A height field is solid below its surface: its triangle holds any point of the
// shape straight below it, however deep. The contact takes the face normal (never an edge normal: no ghost
// normals on a flat floor), so it pushes the shape back out through the front, at the shape's own points
// below the plane (plane_points).
bool back_triangle_candidates(const Shape& shape, const Pose& pose, const ConvexSupport& convex,
                              const MeshTriangle& t, bool solid_below, double margin, Vec3& normal,
                              ContactCandidates& out) {
    const Vec3& n = t.normal;
    // On a mesh the shape must reach the front side, or come within the margin of it: the margin includes how
    // far the shape can move in this step, so a body that spun or fell wholly through the plane within the
    // step (a thin plate turned about one corner at 20 m/s) is still held.
    if (!solid_below && !(n.dot(convex.support(n) - t.v[0]) > -margin)) return false;
    plane_points(shape, pose, t, solid_below, margin, ContactCandidates{}, out);
    normal = -n;
    return out.count > 0;
}

// Local bounding box of a convex shape from its supports along the frame axes, grown by the margin.
Aabb support_box(const ConvexSupport& s, double margin) {
    Aabb box;
    for (int k = 0; k < 3; ++k) {
        box.max[k] = s.support(Vec3::Unit(k))[k] + margin;
        box.min[k] = s.support(-Vec3::Unit(k))[k] - margin;
    }
    return box;
}

// Shared driver: the shape in the static body's frame, one callback per candidate triangle, the plane groups,
// then the transform of the new manifolds to world. Triangles seen from behind are skipped and, only when no
// triangle touches the shape from the front, visited again (back_triangle_candidates), so a shape resting on
// or pressed into a front face never also gets contacts from back faces (the far side of a thin closed mesh,
// the neighbour of a crease).
template <class ForEachTriangle>
int collide_with_triangles(const Shape& convex, const Pose& pose_a, const Pose& pose_b,
                           const CollideSettings& settings, bool solid_below, std::vector<Manifold>& out,
                           ForEachTriangle&& for_each_triangle) {
    const Pose local_pose = pose_b.inverse() * pose_a;
    const ConvexSupport local(convex, local_pose);
    const std::size_t first = out.size();
    PlaneGroups groups;
    bool front = false, behind = false;
    const Aabb box = support_box(local, settings.margin);
    auto is_behind = [&](const MeshTriangle& t) { return t.normal.dot(local.center() - t.v[0]) < 0; };
    for_each_triangle(box, [&](const MeshTriangle& t) {
        if (is_behind(t)) {
            behind = true;
            return;
        }
        ContactCandidates c, plane;
        Vec3 normal;
        TriangleSource source;
        source.triangle = t.index;
        if (triangle_candidates(&convex, local_pose, local, t, settings.margin, normal, source, c, plane)) {
            front = true;
            groups.add(normal, c, source, out);
            TriangleSource plane_source;
            plane_source.triangle = t.index;
            groups.add(normal, plane, plane_source, out);
        }
    });
    // Rare (a shape sunk behind every face it touches), so the triangles are queried again rather than kept
    // from the first pass: no allocation in the common case.
    if (!front && behind)
        for_each_triangle(box, [&](const MeshTriangle& t) {
            if (!is_behind(t)) return;
            ContactCandidates c;
            Vec3 normal;
            TriangleSource source;
            source.triangle = t.index;
            if (back_triangle_candidates(convex, local_pose, local, t, solid_below, settings.margin, normal,
                                         c))
                groups.add(normal, c, source, out);
        });
    groups.flush(out);
    for (std::size_t k = first; k < out.size(); ++k) {
        out[k].normal = pose_b.rotate(out[k].normal);
        for (int i = 0; i < out[k].count; ++i) {
            Vec3& p = out[k].points[static_cast<std::size_t>(i)].position;
            p = pose_b.transform_point(p);
        }
    }
    return static_cast<int>(out.size() - first);
}

Vec3 grid_vertex(const HeightField& f, int i, int j) {
    return {f.origin.x() + j * f.spacing.x(), f.origin.y() + i * f.spacing.y(), f.height(i, j)};
}

}  // namespace

bool collide_convex_triangle(const ConvexSupport& convex, const MeshTriangle& t, double margin,
                             Manifold& out) {
    ContactCandidates c;
    Vec3 normal;
    TriangleSource source;
    ContactCandidates unused;
    if (!triangle_candidates(nullptr, Pose{}, convex, t, margin, normal, source, c, unused)) return false;
    reduce_contacts(c.view(), normal, out);
    out.sub_a = 0;
    out.sub_b = t.index;
    return true;
}

int collide_convex_mesh(const Shape& convex, const Pose& pose_a, const TriangleMesh& mesh, const Pose& pose_b,
                        const CollideSettings& settings, std::vector<Manifold>& out) {
    return collide_with_triangles(
        convex, pose_a, pose_b, settings, false, out, [&](const Aabb& box, auto&& visit) {
            bvh_query(mesh.bvh, box, [&](std::uint32_t index) { visit(mesh_triangle(mesh, index)); });
        });
}

MeshTriangle mesh_triangle(const TriangleMesh& mesh, std::uint32_t index) {
    const auto& tri = mesh.triangles[index];
    MeshTriangle t;
    for (int k = 0; k < 3; ++k)
        t.v[static_cast<std::size_t>(k)] = mesh.vertices[tri[static_cast<std::size_t>(k)]];
    t.normal = mesh.normals[index];
    t.convex_edges = mesh.convex_edges[index];
    t.index = index;
    return t;
}

MeshTriangle height_field_triangle(const HeightField& f, int i, int j, int half) {
    // Vertex (row, column) offsets of the two triangles and, per edge, the far vertex of the neighbour across
    // it.
    struct Layout {
        int v[3][2];
        int opposite[3][2];
    };
    static constexpr Layout kLayout[2] = {
        {{{0, 0}, {0, 1}, {1, 1}}, {{-1, 0}, {1, 2}, {1, 0}}},
        {{{0, 0}, {1, 1}, {1, 0}}, {{0, 1}, {2, 1}, {0, -1}}},
    };
    const Layout& l = kLayout[half];
    MeshTriangle t;
    for (int k = 0; k < 3; ++k)
        t.v[static_cast<std::size_t>(k)] = grid_vertex(f, i + l.v[k][0], j + l.v[k][1]);
    t.normal = (t.v[1] - t.v[0]).cross(t.v[2] - t.v[0]).normalized();
    t.index = static_cast<std::uint32_t>(2 * (i * (f.columns - 1) + j) + half);
    t.convex_edges = 0;
    for (int k = 0; k < 3; ++k) {
        const int oi = i + l.opposite[k][0], oj = j + l.opposite[k][1];
        const Vec3& p = t.v[static_cast<std::size_t>(k)];
        const Vec3& q = t.v[static_cast<std::size_t>((k + 1) % 3)];
        bool convex = true;  // the grid border is a real edge
        if (oi >= 0 && oi < f.rows && oj >= 0 && oj < f.columns) {
            const Vec3 o = grid_vertex(f, oi, oj);
            Vec3 n2 = (q - o).cross(p - o).normalized();
            if (n2.z() < 0) n2 = -n2;
            convex = t.normal.dot(n2) < std::cos(kFlatEdgeAngle) && t.normal.dot(o - p) < 0;
        }
        if (convex) t.convex_edges = static_cast<std::uint8_t>(t.convex_edges | (1u << k));
    }
    return t;
}

int collide_convex_height_field(const Shape& convex, const Pose& pose_a, const HeightField& f,
                                const Pose& pose_b, const CollideSettings& settings,
                                std::vector<Manifold>& out) {
    const std::size_t first = out.size();
    const int added = collide_with_triangles(
        convex, pose_a, pose_b, settings, true, out,
        [&](const Aabb& box, auto&& visit) { for_each_height_field_triangle(f, box, visit); });
    // Manifolds name the cell (row * (columns - 1) + column), like the analytic cylinder-terrain path.
    for (std::size_t k = first; k < out.size(); ++k) out[k].sub_b /= 2;
    return added;
}

}  // namespace simpulse
