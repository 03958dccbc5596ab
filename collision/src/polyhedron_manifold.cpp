// Contact manifold of two polyhedra from their separating-axis queries: the feature choice with face
// preference (Gregorius, GDC 2013; Box2D's reference-face tolerance), reference-face clipping of the most
// anti-parallel incident face (Box2D/Jolt, done in 2-D by clip_features) or the closest points of two edges,
// then the four-point reduction (Strashnov & Torgashev 2020, sect. V).
#include <simpulse/collision/clip.h>
#include <simpulse/collision/manifold_reduction.h>
#include <simpulse/collision/sat.h>

#include <algorithm>
#include <cmath>

namespace simpulse {
namespace {

// Ids of the feature pairs, mixed with the clip labels of each point (clip.h).
enum FeatureKind : std::uint32_t { kFaceA = 1, kFaceB = 2, kEdgeEdge = 3 };

// World polygon of a face. Faces larger than the clipper's capacity are decimated evenly: the kept loop is
// still convex and inscribed, and a merged face that large (a tessellated disc) only loses rim detail.
void face_feature(const PolyhedronView& p, const Pose& pose, int face, ContactFeature& out) {
    const ConvexHull::Face& f = p.faces[static_cast<std::size_t>(face)];
    out.clear();
    const std::uint32_t n = f.count;
    const std::uint32_t m = std::min<std::uint32_t>(n, kMaxFeatureVertices);
    for (std::uint32_t k = 0; k < m; ++k) {
        const std::uint32_t i = static_cast<std::uint32_t>(static_cast<std::uint64_t>(k) * n / m);
        out.add(pose.transform_point(p.vertices[p.face_vertices[f.first + i]]));
    }
    out.convex_loop = true;
}

void edge_feature(const PolyhedronView& p, const Pose& pose, int edge, ContactFeature& out) {
    const ConvexHull::Edge& e = p.edges[static_cast<std::size_t>(edge)];
    out.clear();
    out.add(pose.transform_point(p.vertices[e.v0]));
    out.add(pose.transform_point(p.vertices[e.v1]));
}

// Face of p whose world normal is most aligned with `dir` (first one on ties: deterministic).
int most_aligned_face(const PolyhedronView& p, const Pose& pose, const Vec3& dir) {
    const Vec3 local = pose.inverse_rotate(dir);
    int best = 0;
    double best_dot = -std::numeric_limits<double>::infinity();
    for (std::size_t f = 0; f < p.faces.size(); ++f) {
        const double d = p.faces[f].normal.dot(local);
        if (d > best_dot) best_dot = d, best = static_cast<int>(f);
    }
    return best;
}

}  // namespace

SatResult choose_sat_feature(const SatQueries& q, double abs_tolerance) {
    // Gregorius writes the test as sep > rel * best + abs, which holds for penetrations (sep < 0) only; for a
    // speculative (positive) separation it would favour the alternative. best + (1 - rel) |best| + abs
    // favours the face in both regimes and equals his form when penetrating.
    auto beats = [&](double sep, double best, double rel) {
        return sep > best + (1 - rel) * std::abs(best) + abs_tolerance;
    };
    auto tagged = [](SatResult r, SatFeature f) {
        r.feature = f;
        return r;
    };
    const double face_best = std::max(q.face_a.separation, q.face_b.separation);
    if (q.edges.index_a >= 0 && beats(q.edges.separation, face_best, kSatRelativeEdgeTolerance))
        return tagged(q.edges, SatFeature::edges);
    if (q.face_b.index_b >= 0 && beats(q.face_b.separation, q.face_a.separation, kSatRelativeFaceTolerance))
        return tagged(q.face_b, SatFeature::face_b);
    return tagged(q.face_a, SatFeature::face_a);
}

bool polyhedron_manifold(const PolyhedronView& a, const Pose& pose_a, const PolyhedronView& b,
                         const Pose& pose_b, const SatResult& feature, double margin, Manifold& out) {
    if (feature.separation > margin) return false;
    ContactFeature fa, fb;
    std::uint32_t key = 0;
    switch (feature.feature) {
        case SatFeature::face_a: {
            const int incident = most_aligned_face(b, pose_b, -feature.normal);
            face_feature(a, pose_a, feature.index_a, fa);
            face_feature(b, pose_b, incident, fb);
            key = mix_id(mix_id(kFaceA, static_cast<std::uint32_t>(feature.index_a)),
                         static_cast<std::uint32_t>(incident));
            break;
        }
        case SatFeature::face_b: {
            const int incident = most_aligned_face(a, pose_a, feature.normal);
            face_feature(a, pose_a, incident, fa);
            face_feature(b, pose_b, feature.index_b, fb);
            key = mix_id(mix_id(kFaceB, static_cast<std::uint32_t>(feature.index_b)),
                         static_cast<std::uint32_t>(incident));
            break;
        }
        case SatFeature::edges:
            edge_feature(a, pose_a, feature.index_a, fa);
            edge_feature(b, pose_b, feature.index_b, fb);
            key = mix_id(mix_id(kEdgeEdge, static_cast<std::uint32_t>(feature.index_a)),
                         static_cast<std::uint32_t>(feature.index_b));
            break;
    }
    ContactCandidates candidates;
    if (clip_features(fa, fb, feature.normal, margin, key, candidates) == 0) return false;
    reduce_contacts(candidates.view(), feature.normal, out);
    out.sub_a = 0;
    out.sub_b = 0;
    return out.count > 0;
}

int collide_polyhedra(const PolyhedronView& a, const Pose& pose_a, const PolyhedronView& b,
                      const Pose& pose_b, const CollideSettings& settings, Manifold& out) {
    // Face queries first: a face axis beyond the margin proves separation without the quadratic edge query.
    SatQueries q;
    q.face_a = sat_query_faces_a(a, pose_a, b, pose_b);
    if (q.face_a.separation > settings.margin) return 0;
    q.face_b = sat_query_faces_b(a, pose_a, b, pose_b);
    if (q.face_b.separation > settings.margin) return 0;
    q.edges = sat_query_edges(a, pose_a, b, pose_b);
    if (q.edges.separation > settings.margin) return 0;
    const double abs_tol = kSatAbsoluteToleranceRatio * std::min(a.inner_radius, b.inner_radius);
    return polyhedron_manifold(a, pose_a, b, pose_b, choose_sat_feature(q, abs_tol), settings.margin, out)
               ? 1
               : 0;
}

}  // namespace simpulse
