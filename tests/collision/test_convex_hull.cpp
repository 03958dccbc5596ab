// Tests of make_convex_hull against closed forms (face/edge/vertex counts of known polytopes, volumes,
// centroids) and brute-force checks of the hull definition: every input point inside every face plane, every
// hull vertex an input point, every face planar and convex, the boundary a closed 2-manifold (Euler V-E+F=2).
#include <simpulse/collision/shape.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace simpulse {
namespace {

// Same definition as the builder: merge tolerance 1e-6 of the bounding-box diagonal.
double hull_tolerance(const std::vector<Vec3>& points) {
    Aabb box;
    for (const Vec3& p : points) box.grow(p);
    return 1e-6 * (box.max - box.min).norm();
}

const ConvexHull& hull_of(const ShapePtr& shape) {
    return std::get<ConvexHull>(shape->geometry);
}

double hull_volume(const ConvexHull& h) {
    // Divergence theorem on the face planes: V = 1/3 sum_f area_f * (offset_f - n_f . ref), independent of
    // the centroid code. Relative to a hull vertex, so a far translation does not cancel catastrophically.
    const Vec3 ref = h.vertices.front();
    double volume = 0;
    for (const auto& f : h.faces) {
        Vec3 area_vector = Vec3::Zero();
        for (std::uint32_t k = 0; k < f.count; ++k)
            area_vector += (h.vertices[h.face_vertices[f.first + k]] - ref)
                               .cross(h.vertices[h.face_vertices[f.first + (k + 1) % f.count]] - ref);
        volume += 0.5 * area_vector.dot(f.normal) * (f.offset - f.normal.dot(ref)) / 3.0;
    }
    return volume;
}

struct HullReport {
    double max_point_excess = 0;      // max over points and faces of n.p - offset (> 0 means outside)
    double max_face_deviation = 0;    // max over faces of |n.v - offset| for the face's own vertices
    double max_concavity = 0;         // max over faces and all hull vertices of n.v - offset
    double min_loop_turn = 1e300;     // min over face corners of ((b-a)x(c-b)).n / |c-a| (< 0 reflex)
    double min_newell_alignment = 1;  // min over faces of newell_normal . face normal (1 = same direction)
};

// Checks the structural invariants with EXPECTs and returns the measured geometric errors.
HullReport check_hull(const ConvexHull& h, const std::vector<Vec3>& points) {
    HullReport r;
    const auto nv = h.vertices.size(), ne = h.edges.size(), nf = h.faces.size();
    EXPECT_EQ(static_cast<long>(nv) - static_cast<long>(ne) + static_cast<long>(nf), 2)
        << "V " << nv << " E " << ne << " F " << nf;
    // Every hull vertex is an input point.
    std::set<std::array<double, 3>> input;
    for (const Vec3& p : points) input.insert({p.x(), p.y(), p.z()});
    for (const Vec3& v : h.vertices) EXPECT_TRUE(input.count({v.x(), v.y(), v.z()})) << v.transpose();
    // Directed edges from the loops: each used once, each with its reverse in another face.
    std::set<std::pair<std::uint32_t, std::uint32_t>> directed;
    for (std::uint32_t f = 0; f < nf; ++f) {
        const auto& face = h.faces[f];
        EXPECT_GE(face.count, 3u);
        EXPECT_NEAR(face.normal.norm(), 1.0, 1e-14);
        for (std::uint32_t k = 0; k < face.count; ++k) {
            const auto a = h.face_vertices[face.first + k],
                       b = h.face_vertices[face.first + (k + 1) % face.count];
            EXPECT_TRUE(directed.insert({a, b}).second) << "directed edge " << a << "->" << b << " twice";
        }
    }
    for (const auto& [a, b] : directed)
        EXPECT_TRUE(directed.count({b, a})) << a << "->" << b << " has no twin";
    EXPECT_EQ(directed.size(), 2 * ne);
    for (const auto& e : h.edges) {
        EXPECT_NE(e.face0, e.face1);
        EXPECT_TRUE(directed.count({e.v0, e.v1}));
        // v0 -> v1 runs counter-clockwise in face0.
        const auto& f0 = h.faces[e.face0];
        bool found = false;
        for (std::uint32_t k = 0; k < f0.count; ++k)
            found |= h.face_vertices[f0.first + k] == e.v0 &&
                     h.face_vertices[f0.first + (k + 1) % f0.count] == e.v1;
        EXPECT_TRUE(found) << "edge " << e.v0 << "-" << e.v1 << " not in face0";
    }
    // CSR adjacency equals the edge list.
    EXPECT_EQ(h.neighbor_offsets.size(), nv + 1);
    if (h.neighbor_offsets.size() != nv + 1) return r;
    std::set<std::pair<std::uint32_t, std::uint32_t>> adjacency;
    for (std::uint32_t v = 0; v < nv; ++v)
        for (std::uint32_t k = h.neighbor_offsets[v]; k < h.neighbor_offsets[v + 1]; ++k)
            adjacency.insert({v, h.neighbors[k]});
    std::set<std::pair<std::uint32_t, std::uint32_t>> from_edges;
    for (const auto& e : h.edges) from_edges.insert({e.v0, e.v1}), from_edges.insert({e.v1, e.v0});
    EXPECT_EQ(adjacency, from_edges);
    EXPECT_EQ(h.neighbors.size(), 2 * ne);

    for (std::uint32_t f = 0; f < nf; ++f) {
        const auto& face = h.faces[f];
        Vec3 newell = Vec3::Zero();
        for (std::uint32_t k = 0; k < face.count; ++k) {
            const Vec3& a = h.vertices[h.face_vertices[face.first + k]];
            const Vec3& b = h.vertices[h.face_vertices[face.first + (k + 1) % face.count]];
            const Vec3& c = h.vertices[h.face_vertices[face.first + (k + 2) % face.count]];
            newell += a.cross(b);
            r.max_face_deviation = std::max(r.max_face_deviation, std::abs(face.normal.dot(a) - face.offset));
            r.min_loop_turn =
                std::min(r.min_loop_turn, (b - a).cross(c - b).dot(face.normal) / (c - a).norm());
        }
        r.min_newell_alignment = std::min(r.min_newell_alignment, newell.normalized().dot(face.normal));
        for (const Vec3& v : h.vertices)
            r.max_concavity = std::max(r.max_concavity, face.normal.dot(v) - face.offset);
        for (const Vec3& p : points)
            r.max_point_excess = std::max(r.max_point_excess, face.normal.dot(p) - face.offset);
    }
    return r;
}

// The geometric claims, for a hull of `points` with merge tolerance tol: faces are supporting planes (no
// point above by more than tol), face vertices lie within tol of their plane (plus 1e-8 of the diagonal that
// a floating-degenerate sliver attached to a face may add: 1.01 tol), loops are convex up to near-collinear
// corners within tol and counter-clockwise from outside.
void expect_geometry(const HullReport& r, double tol) {
    EXPECT_LE(r.max_point_excess, tol) << "point outside the hull by " << r.max_point_excess;
    EXPECT_LE(r.max_concavity, tol) << "vertex above a face by " << r.max_concavity;
    EXPECT_LE(r.max_face_deviation, 1.01 * tol) << "face vertex off its plane by " << r.max_face_deviation;
    EXPECT_GE(r.min_loop_turn, -tol) << "reflex corner, turn " << r.min_loop_turn;
    EXPECT_GT(r.min_newell_alignment, 0.999)
        << "loop not counter-clockwise, alignment " << r.min_newell_alignment;
}

std::vector<Vec3> cube_with_grids(double h, int n) {
    std::vector<Vec3> pts;
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) {
            const double u = -h + 2 * h * i / n, v = -h + 2 * h * j / n;
            for (double s : {-h, h}) {
                pts.emplace_back(s, u, v);
                pts.emplace_back(u, s, v);
                pts.emplace_back(u, v, s);
            }
        }
    // Exact duplicates of every corner and some interior points.
    for (int k = 0; k < 8; ++k) pts.emplace_back(k & 1 ? h : -h, k & 2 ? h : -h, k & 4 ? h : -h);
    for (int k = 0; k < 50; ++k) pts.emplace_back(0.01 * k - 0.25, 0.3, -0.2);
    return pts;
}

void expect_box_topology(const ConvexHull& h, double h_x, double h_y, double h_z) {
    ASSERT_EQ(h.vertices.size(), 8u);
    ASSERT_EQ(h.edges.size(), 12u);
    ASSERT_EQ(h.faces.size(), 6u);
    for (const auto& f : h.faces) EXPECT_EQ(f.count, 4u);
    for (const Vec3& v : h.vertices) {
        EXPECT_EQ(std::abs(v.x()), h_x);
        EXPECT_EQ(std::abs(v.y()), h_y);
        EXPECT_EQ(std::abs(v.z()), h_z);
    }
}

TEST(ConvexHull, CubeWithDuplicatesAndFaceGridsHasSixQuads) {
    const auto pts = cube_with_grids(1.0, 20);
    const ShapePtr shape_h = make_convex_hull(pts);
    const auto& h = hull_of(shape_h);
    expect_box_topology(h, 1, 1, 1);
    // Exactly coplanar inputs: each face normal is an exact axis (cross products of exact axis-aligned
    // edges).
    for (const auto& f : h.faces) {
        EXPECT_EQ(f.normal.cwiseAbs().maxCoeff(), 1.0) << f.normal.transpose();
        EXPECT_EQ(f.offset, 1.0);
    }
    expect_geometry(check_hull(h, pts), hull_tolerance(pts));
    EXPECT_NEAR(hull_volume(h), 8.0, 1e-14);
    EXPECT_LE(h.centroid.norm(), 1e-15) << "centroid " << h.centroid.transpose();
}

TEST(ConvexHull, NoisyGridsOnTranslatedBoxStillMergeToQuads) {
    // Grid points pushed in and out by 1e-9 (far below tol = 1e-6 * diagonal): the noise must not create
    // faces.
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> noise(-1e-9, 1e-9);
    const Vec3 offset(1e3, -2e3, 5e2), half(1.5, 0.5, 0.25);
    std::vector<Vec3> pts;
    for (Vec3 p : cube_with_grids(1.0, 16)) {
        const bool corner = std::abs(p.x()) == 1 && std::abs(p.y()) == 1 && std::abs(p.z()) == 1;
        p = p.cwiseProduct(half);
        if (!corner) p += Vec3(noise(rng), noise(rng), noise(rng));
        pts.push_back(p + offset);
    }
    const ShapePtr shape_h = make_convex_hull(pts);
    const auto& h = hull_of(shape_h);
    ASSERT_EQ(h.vertices.size(), 8u);
    ASSERT_EQ(h.edges.size(), 12u);
    ASSERT_EQ(h.faces.size(), 6u);
    const double tol = hull_tolerance(pts);
    expect_geometry(check_hull(h, pts), tol);
    // Each face plane passes through its outermost vertex (noise up to 1e-9 along the normal) and its
    // Newell normal tilts by ~noise / size, lifting the far end by ~2e-9 more: every face moves out by at
    // most 3e-9, so the volume grows by at most surface area (10) * 3e-9.
    const double expected = 8 * half.prod();
    EXPECT_NEAR(hull_volume(h), expected, 3e-8) << "volume error " << hull_volume(h) - expected;
    EXPECT_NEAR((h.centroid - offset).norm(), 0.0, 3e-8) << "centroid " << (h.centroid - offset).transpose();
}

TEST(ConvexHull, FloatRoundedRotatedCubeMergesToQuads) {
    // A rotated cube with face grids, coordinates rounded to float (6e-8 relative noise, below tol).
    const Quat rot = Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()));
    std::vector<Vec3> pts;
    for (const Vec3& p : cube_with_grids(1.0, 10)) {
        const Vec3 r = rot * p;
        pts.emplace_back(static_cast<float>(r.x()), static_cast<float>(r.y()), static_cast<float>(r.z()));
    }
    const ShapePtr shape_h = make_convex_hull(pts);
    const auto& h = hull_of(shape_h);
    ASSERT_EQ(h.vertices.size(), 8u);
    ASSERT_EQ(h.edges.size(), 12u);
    ASSERT_EQ(h.faces.size(), 6u);
    expect_geometry(check_hull(h, pts), hull_tolerance(pts));
    // float rounding moves each coordinate by <= 2^-24 * 1.7: volume within 6 faces * area 4 * 2e-7.
    EXPECT_NEAR(hull_volume(h), 8.0, 5e-6);
}

TEST(ConvexHull, DodecahedronHasTwelvePentagons) {
    // Vertices (+-1, +-1, +-1), (0, +-1/phi, +-phi) and cyclic permutations: edge 2/phi, volume
    // (15 + 7 sqrt5)/4 a^3. The pentagons are planar only up to rounding of phi.
    const double phi = std::numbers::phi, a = 2 / phi;
    std::vector<Vec3> pts;
    for (int k = 0; k < 8; ++k) pts.emplace_back(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1);
    for (double s : {-1.0, 1.0})
        for (double t : {-1.0, 1.0}) {
            pts.emplace_back(0, s / phi, t * phi);
            pts.emplace_back(s / phi, t * phi, 0);
            pts.emplace_back(t * phi, 0, s / phi);
        }
    const ShapePtr shape_h = make_convex_hull(pts);
    const auto& h = hull_of(shape_h);
    ASSERT_EQ(h.vertices.size(), 20u);
    ASSERT_EQ(h.edges.size(), 30u);
    ASSERT_EQ(h.faces.size(), 12u);
    for (const auto& f : h.faces) EXPECT_EQ(f.count, 5u);
    expect_geometry(check_hull(h, pts), hull_tolerance(pts));
    const double expected = (15 + 7 * std::sqrt(5.0)) / 4 * a * a * a;
    EXPECT_NEAR(hull_volume(h), expected, 1e-13 * expected) << "volume error " << hull_volume(h) - expected;
    EXPECT_LE(h.centroid.norm(), 1e-14);
}

std::vector<Vec3> prism(int sides, double radius, double half_height) {
    std::vector<Vec3> pts;
    for (int k = 0; k < sides; ++k) {
        const double a = 2 * std::numbers::pi * k / sides;
        for (double z : {-half_height, half_height})
            pts.emplace_back(radius * std::cos(a), radius * std::sin(a), z);
    }
    return pts;
}

TEST(ConvexHull, PrismHasTwoLargePolygonsAndQuadSides) {
    // 64-gon prism: V = 128, F = 2 + 64, E = 3 * 64. Side quads are exact rectangles (same x, y above and
    // below); the caps are exactly planar (z = +-h). Rotated copies carry rounding noise of ~1e-16, far below
    // tol.
    const auto base = prism(64, 1.0, 0.3);
    for (int trial = 0; trial < 4; ++trial) {
        const Quat rot = trial == 0 ? Quat::Identity()
                                    : Quat(Eigen::AngleAxisd(0.4 * trial, Vec3(1, trial, 2).normalized()));
        std::vector<Vec3> pts;
        for (const Vec3& p : base) pts.push_back(rot * p + Vec3(trial, 0, -trial));
        SCOPED_TRACE("trial " + std::to_string(trial));
        const ShapePtr shape = make_convex_hull(pts);
        const auto& h = hull_of(shape);
        ASSERT_EQ(h.vertices.size(), 128u);
        ASSERT_EQ(h.faces.size(), 66u);
        ASSERT_EQ(h.edges.size(), 192u);
        int caps = 0;
        for (const auto& f : h.faces) {
            caps += f.count == 64;
            EXPECT_TRUE(f.count == 4 || f.count == 64) << f.count;
        }
        EXPECT_EQ(caps, 2);
        expect_geometry(check_hull(h, pts), hull_tolerance(pts));
        // Volume of the prism: 64-gon area (n/2) r^2 sin(2 pi / n) times the height 0.6.
        const double expected = 32 * std::sin(2 * std::numbers::pi / 64) * 0.6;
        EXPECT_NEAR(hull_volume(h), expected, 1e-13) << "volume error " << hull_volume(h) - expected;
    }
}

TEST(ConvexHull, HullOfTheHullIsTheSameAndTopologyIsScaleInvariant) {
    std::mt19937_64 rng(21);
    std::uniform_real_distribution<double> uni(-1, 1);
    std::vector<Vec3> pts(500);
    for (Vec3& p : pts) p = Vec3(uni(rng), uni(rng), uni(rng));
    for (int k = 0; k < 8; ++k) pts.emplace_back(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1);  // a cube
    const ShapePtr first = make_convex_hull(pts);
    const auto& h = hull_of(first);
    const ShapePtr second = make_convex_hull(h.vertices);
    const auto& h2 = hull_of(second);
    EXPECT_EQ(h2.vertices.size(), h.vertices.size());
    EXPECT_EQ(h2.faces.size(), h.faces.size());
    EXPECT_EQ(h2.edges.size(), h.edges.size());
    // Scaling by powers of two is exact, so the exact predicates see the same configuration and the relative
    // tolerance the same merges: identical topology at 2^-40 and 2^40.
    for (const double scale : {std::ldexp(1.0, -40), std::ldexp(1.0, 40)}) {
        std::vector<Vec3> scaled;
        for (const Vec3& p : pts) scaled.push_back(scale * p);
        const ShapePtr s = make_convex_hull(scaled);
        const auto& hs = hull_of(s);
        EXPECT_EQ(hs.faces.size(), h.faces.size()) << "scale " << scale;
        EXPECT_EQ(hs.face_vertices, h.face_vertices) << "scale " << scale;
        expect_geometry(check_hull(hs, scaled), hull_tolerance(scaled));
        EXPECT_NEAR(hull_volume(hs) / (scale * scale * scale), 8.0, 1e-12);
    }
}

TEST(ConvexHull, RandomSpherePointsAreAllVerticesOfATriangulatedHull) {
    // 4,000 random points on the unit sphere (under the cap of 4,096 hull vertices) are in convex position
    // and no point lies within tol of the plane of three neighbours unless nearly cocircular with them
    // (expected number of pairs closer than the 6e-5 that would allow it: 0.008), so every point is a vertex.
    // Nearly cocircular quadruples (four points within tol of one plane) are merged into quads: the face
    // count stays within a few per cent of the triangulated 2V - 4.
    std::mt19937_64 rng(42);
    std::normal_distribution<double> gauss;
    std::vector<Vec3> pts(4000);
    for (Vec3& p : pts) p = Vec3(gauss(rng), gauss(rng), gauss(rng)).normalized();
    const ShapePtr shape_h = make_convex_hull(pts);
    const auto& h = hull_of(shape_h);
    EXPECT_EQ(h.vertices.size(), pts.size());
    EXPECT_LE(h.faces.size(), 2 * pts.size() - 4);
    std::size_t merged = 0;
    for (const auto& f : h.faces) merged += f.count > 3;
    EXPECT_LE(merged, 0.02 * h.faces.size()) << merged << " faces with more than 3 vertices";
    const HullReport r = check_hull(h, pts);
    expect_geometry(r, hull_tolerance(pts));
    // Supporting planes of exact hull triangles: excess is rounding of the normals only.
    EXPECT_LE(r.max_point_excess, 1e-14) << "excess " << r.max_point_excess;
    // Inscribed polytope: volume a little below 4/3 pi, centroid near the origin.
    EXPECT_LT(hull_volume(h), 4.0 / 3.0 * std::numbers::pi);
    EXPECT_GT(hull_volume(h), 0.99 * 4.0 / 3.0 * std::numbers::pi);
}

TEST(ConvexHull, RandomCloudsOfManyKindsSatisfyTheHullDefinition) {
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> uni(-1, 1);
    for (int trial = 0; trial < 60; ++trial) {
        std::vector<Vec3> pts;
        const int kind = trial % 4;
        const int n = 20 + trial * 7;
        for (int i = 0; i < n; ++i) {
            Vec3 p(uni(rng), uni(rng), uni(rng));
            if (kind == 1) p = p.array().round() * 0.5;  // lattice points: many duplicates and coplanar sets
            if (kind == 2) p = (p.array() * 4).round() / 4;  // finer lattice
            if (kind == 3) p.z() = 1e-3 * p.z();             // thin slab
            pts.push_back(p);
        }
        if (kind == 1) {  // make sure the lattice spans a volume
            for (int k = 0; k < 8; ++k)
                pts.emplace_back(k & 1 ? 0.5 : -0.5, k & 2 ? 0.5 : -0.5, k & 4 ? 0.5 : -0.5);
        }
        SCOPED_TRACE("trial " + std::to_string(trial));
        const ShapePtr shape_h = make_convex_hull(pts);
        const auto& h = hull_of(shape_h);
        expect_geometry(check_hull(h, pts), hull_tolerance(pts));
        if (kind == 1) {
            // Hull of the lattice {-0.5, 0, 0.5}^3 with all corners present: the cube.
            EXPECT_EQ(h.faces.size(), 6u);
            EXPECT_NEAR(hull_volume(h), 1.0, 1e-15);
        }
    }
}

TEST(ConvexHull, NearlyDegenerateInputsStillBuild) {
    // A slab 1e-4 thick (100 tol): a valid box, volume 2 * 2 * 2e-4.
    std::vector<Vec3> slab;
    for (int k = 0; k < 8; ++k) slab.emplace_back(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1e-4 : -1e-4);
    const ShapePtr shape_hs = make_convex_hull(slab);
    const auto& hs = hull_of(shape_hs);
    expect_box_topology(hs, 1, 1, 1e-4);
    EXPECT_NEAR(hull_volume(hs), 8e-4, 1e-17);

    // A needle tetrahedron: apex 1e-5 above a triangle of size 1 (10 tol).
    std::vector<Vec3> needle{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.3, 0.3, 1e-5}};
    const ShapePtr shape_hn = make_convex_hull(needle);
    const auto& hn = hull_of(shape_hn);
    EXPECT_EQ(hn.faces.size(), 4u);
    EXPECT_NEAR(hull_volume(hn), 0.5 * 1e-5 / 3, 1e-20);
    expect_geometry(check_hull(hn, needle), hull_tolerance(needle));

    // Almost coincident clusters at the corners of a tetrahedron (spread 1e-10): four vertices.
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> tiny(-1e-10, 1e-10);
    std::vector<Vec3> clusters;
    const std::array<Vec3, 4> corners{Vec3(1, 1, 1), Vec3(1, -1, -1), Vec3(-1, 1, -1), Vec3(-1, -1, 1)};
    for (int i = 0; i < 400; ++i) clusters.push_back(corners[i % 4] + Vec3(tiny(rng), tiny(rng), tiny(rng)));
    const ShapePtr shape_hc = make_convex_hull(clusters);
    const auto& hc = hull_of(shape_hc);
    EXPECT_EQ(hc.vertices.size(), 4u);
    EXPECT_EQ(hc.faces.size(), 4u);
    expect_geometry(check_hull(hc, clusters), hull_tolerance(clusters));
    // Regular tetrahedron of edge 2 sqrt2: volume 8/3, up to the 1e-10 spread times the face areas.
    EXPECT_NEAR(hull_volume(hc), 8.0 / 3.0, 1e-8);
}

TEST(ConvexHull, ResultIsDeterministic) {
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> uni(-1, 1);
    std::vector<Vec3> pts(2000);
    for (Vec3& p : pts) p = Vec3(uni(rng), uni(rng), uni(rng));
    const ShapePtr shape_a = make_convex_hull(pts);
    const auto& a = hull_of(shape_a);
    const ShapePtr shape_b = make_convex_hull(pts);
    const auto& b = hull_of(shape_b);
    ASSERT_EQ(a.vertices.size(), b.vertices.size());
    ASSERT_EQ(a.faces.size(), b.faces.size());
    EXPECT_EQ(a.face_vertices, b.face_vertices);
    EXPECT_EQ(a.neighbors, b.neighbors);
    for (std::size_t i = 0; i < a.vertices.size(); ++i) EXPECT_EQ(a.vertices[i], b.vertices[i]);
    for (std::size_t f = 0; f < a.faces.size(); ++f) {
        EXPECT_EQ(a.faces[f].normal, b.faces[f].normal);
        EXPECT_EQ(a.faces[f].offset, b.faces[f].offset);
    }
    EXPECT_EQ(a.centroid, b.centroid);
}

void expect_rejected(const std::vector<Vec3>& pts, const std::string& reason) {
    try {
        make_convex_hull(pts);
        ADD_FAILURE() << "accepted degenerate input (" << reason << ")";
    } catch (const ShapeError& e) {
        EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
}

TEST(ConvexHull, DegenerateInputsAreRejectedWithTheReason) {
    expect_rejected({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, "at least 4 points");
    expect_rejected({{1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}}, "coincide");
    std::vector<Vec3> line;
    for (int i = 0; i < 100; ++i) line.emplace_back(0.1 * i, 0.2 * i, -0.05 * i);
    expect_rejected(line, "collinear");
    std::vector<Vec3> plane;
    for (int i = 0; i < 10; ++i)
        for (int j = 0; j < 10; ++j) plane.emplace_back(i, j, 0.5 * i - 0.25 * j);
    expect_rejected(plane, "coplanar");
    // Coplanar at the input's scale: a 100 x 100 sheet 1e-5 thick (tol = 1.4e-4).
    std::vector<Vec3> sheet;
    for (int k = 0; k < 8; ++k) sheet.emplace_back(k & 1 ? 50 : -50, k & 2 ? 50 : -50, k & 4 ? 5e-6 : -5e-6);
    expect_rejected(sheet, "coplanar");
    std::vector<Vec3> with_nan{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, std::nan("")}};
    expect_rejected(with_nan, "not finite");
    std::vector<Vec3> with_inf{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, INFINITY}};
    expect_rejected(with_inf, "not finite");
}

// At most 4,096 hull vertices: 4,096 points on a sphere (all vertices) build, one more is refused with the
// count, and so is a cylinder of 20,000 points on each of two circles (which took minutes without the cap),
// while 100,000 points inside a cube, whose hull has few vertices, still build.
TEST(ConvexHull, HullsOfMoreThan4096VerticesAreRefused) {
    std::mt19937_64 rng(7);
    std::normal_distribution<double> gauss;
    std::vector<Vec3> sphere(4096);
    for (Vec3& p : sphere) p = Vec3(gauss(rng), gauss(rng), gauss(rng)).normalized();
    EXPECT_EQ(hull_of(make_convex_hull(sphere)).vertices.size(), 4096u);
    sphere.push_back(Vec3(gauss(rng), gauss(rng), gauss(rng)).normalized());
    expect_rejected(sphere, "more than 4096 of the 4097 points are vertices of the hull");
    std::vector<Vec3> cylinder;
    for (int z = 0; z < 2; ++z)
        for (int i = 0; i < 20000; ++i) {
            const double a = 2 * std::numbers::pi * i / 20000;
            cylinder.emplace_back(std::cos(a), std::sin(a), z);
        }
    expect_rejected(cylinder, "more than 4096 of the 40000 points");
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<Vec3> cloud(100000);
    for (Vec3& p : cloud) p = Vec3(u(rng), u(rng), u(rng));
    const HullReport r = check_hull(hull_of(make_convex_hull(cloud)), cloud);
    expect_geometry(r, hull_tolerance(cloud));
}

TEST(ConvexHull, SpansBeyondTheDoubleRangeOfItsNormalsAreRejectedAsSuch) {
    // A cube at +-1e300 was "collinear (... tolerance inf)" and one at +-1e80 or +-1e-100 "coplanar": the
    // face normals (span^4 through their squared norm) overflowed or underflowed, not the geometry.
    const auto cube = [](double half) {
        std::vector<Vec3> points;
        for (int k = 0; k < 8; ++k)
            points.emplace_back(k & 1 ? half : -half, k & 2 ? half : -half, k & 4 ? half : -half);
        return points;
    };
    const auto message = [](const std::vector<Vec3>& points) {
        try {
            make_convex_hull(points);
            return std::string("built");
        } catch (const ShapeError& e) {
            return std::string(e.what());
        }
    };
    EXPECT_EQ(
        message(cube(1e300)),
        "convex hull: the points span 2e+300 (largest side of their bounding box); expected a span from "
        "1e-75 to 1e+75, beyond which the hull's face normals overflow a double");
    EXPECT_NE(message(cube(1e80)).find("span 2e+80"), std::string::npos);
    EXPECT_NE(message(cube(1e-100)).find("span 2e-100"), std::string::npos);
    EXPECT_NE(message(cube(1e-100)).find("underflow"), std::string::npos);
    std::vector<Vec3> far_apart = cube(1);
    far_apart[0] = Vec3(-1.7e308, 0, 0);
    far_apart[1] = Vec3(1.7e308, 0, 0);  // the difference overflows to inf
    EXPECT_NE(message(far_apart).find("span inf"), std::string::npos) << message(far_apart);
    for (const double half : {6e-76, 4e74}) {
        const ShapePtr hull = make_convex_hull(cube(half));
        EXPECT_EQ(hull_of(hull).faces.size(), 6u) << half;
    }
}

}  // namespace
}  // namespace simpulse
