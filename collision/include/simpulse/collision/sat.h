// Separating-axis tests between convex polyhedra (boxes, convex hulls, triangles) and the contact manifold
// built from their result. Box-box tests the 15 axes of Gottschalk, Lin & Manocha (OBBTree, SIGGRAPH 1996);
// general polyhedra test the face normals of both and only those edge-edge axes that form a face of the
// Minkowski difference (Gauss-map pruning, Gregorius, "The Separating Axis Test between Convex Polyhedra",
// GDC 2013). The manifold prefers face contacts over edge contacts and A's face over B's face when
// separations are nearly equal (relative + absolute tolerance, as in Gregorius 2013 and Box2D), clips the
// incident face against the reference face (clip.h) and reduces to four points (manifold_reduction.h).
#pragma once

#include <simpulse/collision/contact.h>
#include <simpulse/collision/shape.h>

#include <array>
#include <cstdint>
#include <limits>
#include <span>

namespace simpulse {

// A convex polyhedron in its local frame as the SAT sees it: views of a ConvexHull's arrays, or of a box's
// built on the stack (BoxPolyhedron). Faces are CCW seen from outside, each edge lists its two faces.
struct PolyhedronView {
    std::span<const Vec3> vertices;
    std::span<const ConvexHull::Face> faces;
    std::span<const std::uint32_t> face_vertices;
    std::span<const ConvexHull::Edge> edges;
    Vec3 centroid = Vec3::Zero();      // an interior point
    const ConvexHull* hull = nullptr;  // enables hill-climbing support on large hulls
    // Size used by the feature-choice tolerance: the smallest distance from the centroid to a face plane.
    double inner_radius = 0;

    std::uint32_t support_index(const Vec3& dir) const;
};

// A box as a polyhedron: vertex i is (+-hx, +-hy, +-hz) with bit 0/1/2 of i selecting the + sign of x/y/z;
// faces are -x, +x, -y, +y, -z, +z; edge 4k + m runs along axis k (m packs the bits of the other two axes,
// lower axis first).
struct BoxPolyhedron {
    std::array<Vec3, 8> vertices;
    std::array<ConvexHull::Face, 6> faces;
    double inner_radius = 0;
    PolyhedronView view() const;
};
BoxPolyhedron box_polyhedron(const Box& box);
PolyhedronView polyhedron_view(const ConvexHull& hull);

// Which kind of axis realises the separation.
enum class SatFeature : std::uint8_t { face_a, face_b, edges };

struct SatResult {
    // Largest separation over the tested axes: > 0 separated (a separating axis), <= 0 minus the penetration
    // depth along the best axis. For polyhedra this is the exact penetration depth when <= 0.
    double separation = -std::numeric_limits<double>::infinity();
    Vec3 normal = Vec3::UnitZ();  // world, unit, from A to B
    SatFeature feature = SatFeature::face_a;
    int index_a = -1;  // face of A (face_a), edge of A (edges)
    int index_b = -1;  // face of B (face_b), edge of B (edges)
};

// The three queries of Gregorius 2013, each returning its best axis only (the others left at -1).
SatResult sat_query_faces_a(const PolyhedronView& a, const Pose& pose_a, const PolyhedronView& b,
                            const Pose& pose_b);
SatResult sat_query_faces_b(const PolyhedronView& a, const Pose& pose_a, const PolyhedronView& b,
                            const Pose& pose_b);
SatResult sat_query_edges(const PolyhedronView& a, const Pose& pose_a, const PolyhedronView& b,
                          const Pose& pose_b);

// Exact separation: the best of the three queries (ties resolved face A, face B, edges).
SatResult sat_polyhedra(const PolyhedronView& a, const Pose& pose_a, const PolyhedronView& b,
                        const Pose& pose_b);
// The 15-axis box test with the same result convention (face and edge indices as in BoxPolyhedron).
SatResult sat_boxes(const Box& a, const Pose& pose_a, const Box& b, const Pose& pose_b);

// The three query results of a pair, as input for the manifold (the fast box test fills them too).
struct SatQueries {
    SatResult face_a, face_b, edges;
};
SatQueries sat_box_queries(const Box& a, const Pose& pose_a, const Box& b, const Pose& pose_b);
SatQueries sat_polyhedron_queries(const PolyhedronView& a, const Pose& pose_a, const PolyhedronView& b,
                                  const Pose& pose_b);

// Feature choice with the face preference: returns the query whose axis the manifold uses.
SatResult choose_sat_feature(const SatQueries& q, double abs_tolerance);

// Builds the manifold for the chosen feature: reference-face clipping for face axes, the closest points of
// the two edges for an edge axis. Returns false (and leaves `out` untouched) when the separation exceeds the
// margin or clipping leaves no point within it.
bool polyhedron_manifold(const PolyhedronView& a, const Pose& pose_a, const PolyhedronView& b,
                         const Pose& pose_b, const SatResult& feature, double margin, Manifold& out);

// Whole pipelines: SAT, feature choice, manifold. Return 1 when a manifold was written to `out`, else 0.
int collide_boxes(const Box& a, const Pose& pose_a, const Box& b, const Pose& pose_b,
                  const CollideSettings& settings, Manifold& out);
int collide_polyhedra(const PolyhedronView& a, const Pose& pose_a, const PolyhedronView& b,
                      const Pose& pose_b, const CollideSettings& settings, Manifold& out);

// Tolerances of the feature choice. A face axis is kept unless the alternative separates more by a relative
// 2 % (faces) or 10 % (edges) of the penetration plus an absolute term; values of Gregorius 2013. The
// absolute term is half of Box2D's linear slop (0.005 m for metre-sized bodies) expressed relative to the
// smaller body, since simpulse scenes range from centimetre dominoes to metre boxes: 0.005 * smaller inner
// radius.
inline constexpr double kSatRelativeFaceTolerance = 0.98;
inline constexpr double kSatRelativeEdgeTolerance = 0.90;
inline constexpr double kSatAbsoluteToleranceRatio = 0.005;

}  // namespace simpulse
