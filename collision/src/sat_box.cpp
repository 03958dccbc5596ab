// Separating-axis test between two boxes over the 15 axes of Gottschalk, Lin & Manocha (OBBTree, SIGGRAPH
// 1996): 3 face normals of each box and the 9 cross products of their edge directions, evaluated in A's
// frame. Also the box as a PolyhedronView (constant topology, vertices and face offsets from the half
// extents) and the box-box pipeline.
#include <simpulse/collision/sat.h>

#include <cmath>

namespace simpulse {
namespace {

constexpr std::array<std::uint32_t, 24> kBoxFaceVertices = {
    0, 4, 6, 2,  // -x
    1, 3, 7, 5,  // +x
    0, 1, 5, 4,  // -y
    2, 6, 7, 3,  // +y
    0, 2, 3, 1,  // -z
    4, 5, 7, 6,  // +z
};

constexpr std::array<ConvexHull::Edge, 12> kBoxEdges = {{
    {0, 1, 2, 4},
    {2, 3, 3, 4},
    {4, 5, 2, 5},
    {6, 7, 3, 5},  // along x
    {0, 2, 0, 4},
    {1, 3, 1, 4},
    {4, 6, 0, 5},
    {5, 7, 1, 5},  // along y
    {0, 4, 0, 2},
    {1, 5, 1, 2},
    {2, 6, 0, 3},
    {3, 7, 1, 3},  // along z
}};

// Edge axes whose direction vectors are closer to parallel than this sine are skipped: their cross product is
// dominated by rounding, and for parallel edges the face axes already bound the separation.
constexpr double kParallelEdgeSine = 1e-6;

// Index of the box edge along `axis` whose two other coordinates have the signs of `dir` (ties to +).
int box_edge_index(int axis, const Vec3& dir) {
    const int j = axis == 0 ? 1 : 0;
    const int k = axis == 2 ? 1 : 2;
    return 4 * axis + (dir[j] >= 0 ? 1 : 0) + 2 * (dir[k] >= 0 ? 1 : 0);
}

}  // namespace

BoxPolyhedron box_polyhedron(const Box& box) {
    BoxPolyhedron p;
    const Vec3& h = box.half_extents;
    for (int i = 0; i < 8; ++i)
        p.vertices[static_cast<std::size_t>(i)] =
            Vec3((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(), (i & 4) ? h.z() : -h.z());
    for (int f = 0; f < 6; ++f) {
        ConvexHull::Face& face = p.faces[static_cast<std::size_t>(f)];
        face.normal = Vec3::Zero();
        face.normal[f / 2] = (f & 1) ? 1.0 : -1.0;
        face.offset = h[f / 2];
        face.first = static_cast<std::uint32_t>(4 * f);
        face.count = 4;
    }
    p.inner_radius = h.minCoeff();
    return p;
}

PolyhedronView BoxPolyhedron::view() const {
    PolyhedronView v;
    v.vertices = vertices;
    v.faces = faces;
    v.face_vertices = kBoxFaceVertices;
    v.edges = kBoxEdges;
    v.centroid = Vec3::Zero();
    v.inner_radius = inner_radius;
    return v;
}

SatQueries sat_box_queries(const Box& a, const Pose& pose_a, const Box& b, const Pose& pose_b) {
    // Everything in A's frame: B's axes are the columns of r, its centre is t.
    const Mat3 ra = pose_a.orientation.toRotationMatrix();
    const Mat3 r = ra.transpose() * pose_b.orientation.toRotationMatrix();
    const Vec3 t = ra.transpose() * (pose_b.position - pose_a.position);
    const Vec3& ha = a.half_extents;
    const Vec3& hb = b.half_extents;
    const Mat3 abs_r = r.cwiseAbs();
    SatQueries q;

    for (int i = 0; i < 3; ++i) {
        const double sep = std::abs(t[i]) - ha[i] - hb.dot(abs_r.row(i));
        if (sep > q.face_a.separation) {
            const double s = t[i] >= 0 ? 1.0 : -1.0;
            q.face_a.separation = sep;
            q.face_a.normal = s * ra.col(i);
            q.face_a.feature = SatFeature::face_a;
            q.face_a.index_a = 2 * i + (s > 0 ? 1 : 0);
        }
    }
    for (int k = 0; k < 3; ++k) {
        const double tk = t.dot(r.col(k));
        const double sep = std::abs(tk) - ha.dot(abs_r.col(k)) - hb[k];
        if (sep > q.face_b.separation) {
            const double s = tk >= 0 ? 1.0 : -1.0;
            q.face_b.separation = sep;
            q.face_b.normal = s * (ra * r.col(k));
            q.face_b.feature = SatFeature::face_b;
            // B's face looking at A has the outward normal -s * axis k.
            q.face_b.index_b = 2 * k + (s > 0 ? 0 : 1);
        }
    }
    // Edge axes L = a_i x b_k in A's frame. |L| = sqrt(1 - r_ik^2); A's projection radius is sum_j ha_j
    // |L_j|, B's is hb_m |r_in| + hb_n |r_im| for the two other axes m, n of B (b_m . (a_i x b_k) = +-r_in):
    // two table entries instead of a matrix-vector product per axis.
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) {
            const Vec3 axis_unnormalised = Vec3::Unit(i).cross(r.col(k));
            const double len2 = axis_unnormalised.squaredNorm();
            if (len2 < kParallelEdgeSine * kParallelEdgeSine) continue;
            const int m = (k + 1) % 3, n = (k + 2) % 3;
            const double ta = t.dot(axis_unnormalised);
            const double ra_proj = ha.dot(axis_unnormalised.cwiseAbs());
            const double rb_proj = hb[m] * abs_r(i, n) + hb[n] * abs_r(i, m);
            const double sep = (std::abs(ta) - ra_proj - rb_proj) / std::sqrt(len2);
            if (sep > q.edges.separation) {
                const Vec3 axis = axis_unnormalised / std::sqrt(len2);
                const Vec3 nrm = ta >= 0 ? axis : Vec3(-axis);
                q.edges.separation = sep;
                q.edges.normal = ra * nrm;
                q.edges.feature = SatFeature::edges;
                q.edges.index_a = box_edge_index(i, nrm);
                q.edges.index_b = box_edge_index(k, -(r.transpose() * nrm));
            }
        }
    }
    return q;
}

SatResult sat_boxes(const Box& a, const Pose& pose_a, const Box& b, const Pose& pose_b) {
    const SatQueries q = sat_box_queries(a, pose_a, b, pose_b);
    SatResult best = q.face_a;
    if (q.face_b.separation > best.separation) best = q.face_b;
    if (q.edges.separation > best.separation) best = q.edges;
    return best;
}

int collide_boxes(const Box& a, const Pose& pose_a, const Box& b, const Pose& pose_b,
                  const CollideSettings& settings, Manifold& out) {
    const SatQueries q = sat_box_queries(a, pose_a, b, pose_b);
    if (std::max({q.face_a.separation, q.face_b.separation, q.edges.separation}) > settings.margin) return 0;
    const double abs_tol =
        kSatAbsoluteToleranceRatio * std::min(a.half_extents.minCoeff(), b.half_extents.minCoeff());
    const SatResult feature = choose_sat_feature(q, abs_tol);
    const BoxPolyhedron pa = box_polyhedron(a), pb = box_polyhedron(b);
    return polyhedron_manifold(pa.view(), pose_a, pb.view(), pose_b, feature, settings.margin, out) ? 1 : 0;
}

}  // namespace simpulse
