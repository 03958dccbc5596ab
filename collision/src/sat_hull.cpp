// Separating-axis queries between convex polyhedra (Gregorius, "The Separating Axis Test between Convex
// Polyhedra", GDC 2013): face normals of A and of B against the other's support vertex, and edge-edge axes
// only for pairs whose arcs on the Gauss map intersect (the pair then forms a face of the Minkowski
// difference, the only edge pairs that can realise the separation). All queries run in A's frame.
#include <simpulse/collision/sat.h>
#include <simpulse/collision/support.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace simpulse {
namespace {

// Same rule as the box test: near-parallel edge pairs carry no axis of their own.
constexpr double kParallelEdgeSine = 1e-6;

// B's placement in A's frame: x_a = r x_b + t.
struct Relative {
    Mat3 r;
    Vec3 t;
    Relative(const Pose& pose_a, const Pose& pose_b) {
        const Mat3 ra = pose_a.orientation.toRotationMatrix();
        r = ra.transpose() * pose_b.orientation.toRotationMatrix();
        t = ra.transpose() * (pose_b.position - pose_a.position);
    }
};

// Arcs (a, b) and (c, d) on the unit sphere intersect; bxa = b x a, dxc = d x c. The first two products say
// each arc's end points lie on opposite sides of the other arc's plane, the third that the two arcs lie in
// the same hemisphere (rules out the antipodal crossing of the two great circles).
bool arcs_intersect(const Vec3& a, const Vec3& b, const Vec3& bxa, const Vec3& c, const Vec3& d,
                    const Vec3& dxc) {
    const double cba = c.dot(bxa), dba = d.dot(bxa);
    const double adc = a.dot(dxc), bdc = b.dot(dxc);
    return cba * dba < 0 && adc * bdc < 0 && cba * bdc > 0;
}

SatResult query_faces(const PolyhedronView& a, const PolyhedronView& b, const Relative& rel) {
    SatResult best;
    best.feature = SatFeature::face_a;
    for (std::size_t f = 0; f < a.faces.size(); ++f) {
        const ConvexHull::Face& face = a.faces[f];
        const Vec3 v = rel.r * b.vertices[b.support_index(-(rel.r.transpose() * face.normal))] + rel.t;
        const double sep = face.normal.dot(v) - face.offset;
        if (sep > best.separation) {
            best.separation = sep;
            best.normal = face.normal;
            best.index_a = static_cast<int>(f);
        }
    }
    return best;
}

}  // namespace

std::uint32_t PolyhedronView::support_index(const Vec3& dir) const {
    if (hull) return hull_support_index(*hull, dir);
    std::uint32_t best = 0;
    double best_dot = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < vertices.size(); ++i) {
        const double d = vertices[i].dot(dir);
        if (d > best_dot) best_dot = d, best = static_cast<std::uint32_t>(i);
    }
    return best;
}

PolyhedronView polyhedron_view(const ConvexHull& hull) {
    PolyhedronView v;
    v.vertices = hull.vertices;
    v.faces = hull.faces;
    v.face_vertices = hull.face_vertices;
    v.edges = hull.edges;
    v.centroid = hull.centroid;
    v.hull = &hull;
    v.inner_radius = std::numeric_limits<double>::infinity();
    for (const ConvexHull::Face& f : hull.faces)
        v.inner_radius = std::min(v.inner_radius, f.offset - f.normal.dot(hull.centroid));
    return v;
}

SatResult sat_query_faces_a(const PolyhedronView& a, const Pose& pose_a, const PolyhedronView& b,
                            const Pose& pose_b) {
    SatResult r = query_faces(a, b, Relative(pose_a, pose_b));
    r.normal = pose_a.rotate(r.normal);
    return r;
}

SatResult sat_query_faces_b(const PolyhedronView& a, const Pose& pose_a, const PolyhedronView& b,
                            const Pose& pose_b) {
    SatResult r = query_faces(b, a, Relative(pose_b, pose_a));
    r.feature = SatFeature::face_b;
    r.index_b = r.index_a;
    r.index_a = -1;
    r.normal = -pose_b.rotate(r.normal);
    return r;
}

SatResult sat_query_edges(const PolyhedronView& a, const Pose& pose_a, const PolyhedronView& b,
                          const Pose& pose_b) {
    const Relative rel(pose_a, pose_b);
    SatResult best;
    best.feature = SatFeature::edges;
    // A's edges in chunks: their face normals, the normals' cross product, a point and the direction are read
    // once per chunk instead of once per edge pair (the pair loop is the quadratic part of the test).
    struct EdgeFrame {
        Vec3 na, nb, bxa, p, d;
    };
    constexpr std::size_t kChunk = 128;
    std::array<EdgeFrame, kChunk> frames;
    for (std::size_t first = 0; first < a.edges.size(); first += kChunk) {
        const std::size_t n = std::min(kChunk, a.edges.size() - first);
        for (std::size_t k = 0; k < n; ++k) {
            const ConvexHull::Edge& ea = a.edges[first + k];
            EdgeFrame& f = frames[k];
            f.na = a.faces[ea.face0].normal;
            f.nb = a.faces[ea.face1].normal;
            f.bxa = f.nb.cross(f.na);
            f.p = a.vertices[ea.v0];
            f.d = a.vertices[ea.v1] - f.p;
        }
        for (std::size_t j = 0; j < b.edges.size(); ++j) {
            const ConvexHull::Edge& eb = b.edges[j];
            const Vec3 qb = rel.r * b.vertices[eb.v0] + rel.t;
            const Vec3 db = rel.r * (b.vertices[eb.v1] - b.vertices[eb.v0]);
            // B enters the Minkowski difference A - B negated.
            const Vec3 c = -(rel.r * b.faces[eb.face0].normal);
            const Vec3 d = -(rel.r * b.faces[eb.face1].normal);
            const Vec3 dxc = d.cross(c);
            const double db_len = db.norm();
            for (std::size_t k = 0; k < n; ++k) {
                const EdgeFrame& f = frames[k];
                if (!arcs_intersect(f.na, f.nb, f.bxa, c, d, dxc)) continue;
                Vec3 axis = f.d.cross(db);
                const double len = axis.norm();
                if (len < kParallelEdgeSine * f.d.norm() * db_len) continue;
                axis /= len;
                if (axis.dot(f.p - a.centroid) < 0) axis = -axis;
                const double sep = axis.dot(qb - f.p);
                if (sep > best.separation) {
                    best.separation = sep;
                    best.normal = axis;
                    best.index_a = static_cast<int>(first + k);
                    best.index_b = static_cast<int>(j);
                }
            }
        }
    }
    best.normal = pose_a.rotate(best.normal);
    return best;
}

SatQueries sat_polyhedron_queries(const PolyhedronView& a, const Pose& pose_a, const PolyhedronView& b,
                                  const Pose& pose_b) {
    return {sat_query_faces_a(a, pose_a, b, pose_b), sat_query_faces_b(a, pose_a, b, pose_b),
            sat_query_edges(a, pose_a, b, pose_b)};
}

SatResult sat_polyhedra(const PolyhedronView& a, const Pose& pose_a, const PolyhedronView& b,
                        const Pose& pose_b) {
    const SatQueries q = sat_polyhedron_queries(a, pose_a, b, pose_b);
    SatResult best = q.face_a;
    if (q.face_b.separation > best.separation) best = q.face_b;
    if (q.edges.separation > best.separation) best = q.edges;
    return best;
}

}  // namespace simpulse
