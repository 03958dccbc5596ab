// Plane polygons with several boundaries (an outer boundary and holes): validation, exact area moments,
// point containment, the approximate convex decomposition of the thesis (chapter 5: SplitMulti -> SplitDuo ->
// Simplify with a quality threshold; SEEDS.md section 5) and the SAT of the seed "Algorithms for collision
// detection of plane 2-D objects of arbitrary shape" (nonconvex-2d-sat.ru.txt, steps 1-16) in which one
// polygon stays whole, even when non-convex, and the other is a convex part.
#pragma once

#include <simpulse/types.h>

#include <Eigen/Dense>

#include <string>
#include <vector>

namespace simpulse {

using Ring2 = std::vector<Vec2>;

// Twice the signed area (counter-clockwise positive).
double signed_area2(const Ring2& p);

// z of the cross product of two plane vectors.
inline double cross2(const Vec2& a, const Vec2& b) {
    return a.x() * b.y() - a.y() * b.x();
}

// Segments p0p1 and q0q1 share at least one point (touching counts).
bool segments_meet(const Vec2& p0, const Vec2& p1, const Vec2& q0, const Vec2& q1);

// Checks boundaries[0] (outer, counter-clockwise) and boundaries[1..] (holes, clockwise): at least 3 finite
// points each, no repeated consecutive point, no edge crossing or touching another edge (within the
// boundary or across boundaries), orientation, non-zero area, every hole inside the outer boundary and
// outside every other hole, at most kMaxPolygonPoints points in all. Returns "" when valid, else one line
// naming the boundary and point.
std::string validate_polygon(const std::vector<Ring2>& boundaries);

// Points of all boundaries of one polygon. The convex decomposition (polygon_decomposition.cpp) divides at
// one reflex vertex per cut and ranks every reflex vertex against every hull edge for each cut: cubic in
// the points for an outline of many notches (a 1,024-point star takes a third of a second, a 4,000-point
// one 20 s: docs/polygons.md).
inline constexpr std::size_t kMaxPolygonPoints = 1024;

// Exact moments of the region (outer minus holes): area, centroid and the second moments about the centroid
// Sxx = integral of x^2, Syy = integral of y^2, Sxy = integral of x y (Green's theorem per edge).
struct PolygonMoments {
    double area = 0;
    Vec2 centroid = Vec2::Zero();
    double sxx = 0, syy = 0, sxy = 0;
};
PolygonMoments polygon_moments(const std::vector<Ring2>& boundaries);

// Point inside the region (even-odd over all boundaries; points on an edge count as inside).
bool polygon_contains(const std::vector<Ring2>& boundaries, const Vec2& p);

// Convex hull, counter-clockwise, without collinear points (Andrew's monotone chain).
Ring2 convex_hull_2d(Ring2 points);

// Approximate convex decomposition (thesis chapter 5). `tolerance` is the quality threshold: a piece is
// replaced by its convex hull once the hull exceeds the piece's area by at most `tolerance` times that area,
// so the parts (counter-clockwise, convex) cover the region and their total area exceeds it by at most
// `tolerance` times its area. tolerance >= 0; 0 gives an exact convex partition.
std::vector<Ring2> decompose_polygon(const std::vector<Ring2>& boundaries, double tolerance);

// A polygon prepared for the seed's SAT: every edge with its outward normal and the projection of the whole
// polygon on that normal (constant for the shape, so computed once).
struct SatPolygon {
    struct Edge {
        Vec2 start, end, normal;  // normal outward (material on the left of start -> end)
        double offset = 0;        // normal . start
        double min = 0, max = 0;  // projection of the whole polygon on normal
    };
    std::vector<Vec2> vertices;  // every boundary point
    std::vector<Edge> edges;
    bool convex = true;  // one boundary without a reflex vertex
};
SatPolygon make_sat_polygon(const std::vector<Ring2>& boundaries);

// 2-D rigid map (rotation, or a reflection when the frames' z axes are opposite) applied to the convex part.
struct Map2 {
    Eigen::Matrix2d rotation = Eigen::Matrix2d::Identity();
    Vec2 offset = Vec2::Zero();
    Vec2 operator()(const Vec2& p) const { return rotation * p + offset; }
};

// Result of whole polygon A against convex part B (B's vertices counter-clockwise in its frame, at most
// kSatMaxPartVertices of them, mapped into
// A's frame by `map`). normal points from A to B; B moved by depth * normal no longer penetrates on that
// axis. Up to two contact points (in A's frame, midway between the surfaces) with depth (negative: a gap
// within the margin) and a feature id.
struct Sat2Contact {
    Vec2 normal = Vec2::Zero();
    double depth = 0;
    int count = 0;
    Vec2 points[2] = {Vec2::Zero(), Vec2::Zero()};
    double depths[2] = {0, 0};
    std::uint32_t ids[2] = {0, 0};
};
enum class Sat2Outcome { separated, contact, undecided };
// Largest vertex count of the convex part B (make_prism splits larger parts).
inline constexpr std::size_t kSatMaxPartVertices = 64;
// undecided: B lies wholly inside A without crossing an edge (the seed's step 10 has no answer then).
Sat2Outcome sat_whole_vs_convex(const SatPolygon& a, const Ring2& b, const Map2& map, double margin,
                                Sat2Contact& out);

// Classic SAT of two convex polygons (edge normals of both), used by the benchmark as "SAT with convex
// decomposition". Returns the depth along the minimum-overlap axis (negative: separated), normal A to B.
double sat_convex_convex(const Ring2& a, const Ring2& b, Vec2& normal);

}  // namespace simpulse
