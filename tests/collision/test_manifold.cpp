// Tests of the contact-feature clipper (clip.h: 2-D Sutherland-Hodgman, lifting of clipped points) and of the
// four-point manifold reduction (manifold_reduction.h), against closed forms and an independent brute-force
// polygon intersection.
#include <simpulse/collision/clip.h>
#include <simpulse/collision/manifold_reduction.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <set>
#include <vector>

namespace simpulse {
namespace {

// Coordinates are O(1) and every clipped vertex is a handful of flops away from the inputs: rounding stays
// within a few ulps, so 1e-12 leaves three orders of magnitude of headroom.
constexpr double kRound = 1e-12;

Polygon2 regular_polygon(int n, double radius, double phase, const Vec2& center = Vec2::Zero()) {
    Polygon2 p;
    for (int i = 0; i < n; ++i) {
        const double a = phase + 2 * std::numbers::pi * i / n;
        p.add(center + radius * Vec2(std::cos(a), std::sin(a)), 0);
    }
    return p;
}

double polygon_area(const std::vector<Vec2>& p) {
    double a = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const Vec2& u = p[i];
        const Vec2& w = p[(i + 1) % p.size()];
        a += u.x() * w.y() - u.y() * w.x();
    }
    return 0.5 * a;
}

bool inside(const Polygon2& poly, const Vec2& q, double tol) {
    for (int i = 0; i < poly.count; ++i) {
        const Vec2 a = poly.points[static_cast<std::size_t>(i)];
        const Vec2 e = poly.points[static_cast<std::size_t>((i + 1) % poly.count)] - a;
        if (e.x() * (q.y() - a.y()) - e.y() * (q.x() - a.x()) < -tol) return false;
    }
    return true;
}

// Independent intersection area: collect vertices of each polygon inside the other and all edge-edge
// crossings, sort them by angle about their centroid and take the polygon area.
double brute_force_intersection_area(const Polygon2& a, const Polygon2& b) {
    std::vector<Vec2> pts;
    for (int i = 0; i < a.count; ++i)
        if (inside(b, a.points[static_cast<std::size_t>(i)], 1e-14))
            pts.push_back(a.points[static_cast<std::size_t>(i)]);
    for (int i = 0; i < b.count; ++i)
        if (inside(a, b.points[static_cast<std::size_t>(i)], 1e-14))
            pts.push_back(b.points[static_cast<std::size_t>(i)]);
    for (int i = 0; i < a.count; ++i) {
        const Vec2 p = a.points[static_cast<std::size_t>(i)];
        const Vec2 r = a.points[static_cast<std::size_t>((i + 1) % a.count)] - p;
        for (int j = 0; j < b.count; ++j) {
            const Vec2 q = b.points[static_cast<std::size_t>(j)];
            const Vec2 s = b.points[static_cast<std::size_t>((j + 1) % b.count)] - q;
            const double den = r.x() * s.y() - r.y() * s.x();
            if (std::abs(den) < 1e-300) continue;
            const Vec2 qp = q - p;
            const double t = (qp.x() * s.y() - qp.y() * s.x()) / den;
            const double u = (qp.x() * r.y() - qp.y() * r.x()) / den;
            if (t >= 0 && t <= 1 && u >= 0 && u <= 1) pts.push_back(p + t * r);
        }
    }
    if (pts.size() < 3) return 0;
    Vec2 c = Vec2::Zero();
    for (const Vec2& p : pts) c += p;
    c /= static_cast<double>(pts.size());
    std::sort(pts.begin(), pts.end(), [&](const Vec2& p, const Vec2& q) {
        return std::atan2(p.y() - c.y(), p.x() - c.x()) < std::atan2(q.y() - c.y(), q.x() - c.x());
    });
    return polygon_area(pts);
}

std::vector<Vec2> points_of(const Polygon2& p) {
    return {p.points.begin(), p.points.begin() + p.count};
}

TEST(ClipPolygon, RotatedSquaresGiveRegularOctagon) {
    // Two squares of apothem 1, one turned by 45 degrees: the regular octagon of apothem 1, area 8 tan(pi/8).
    const Polygon2 a = regular_polygon(4, std::sqrt(2.0), std::numbers::pi / 4);
    const Polygon2 b = regular_polygon(4, std::sqrt(2.0), 0);
    Polygon2 out;
    clip_polygon(a, b, out);
    ASSERT_EQ(out.count, 8);
    const double expected = 8 * std::tan(std::numbers::pi / 8);
    EXPECT_NEAR(out.signed_area(), expected, kRound) << "error " << out.signed_area() - expected;
    for (int i = 0; i < 8; ++i)
        EXPECT_NEAR(out.points[static_cast<std::size_t>(i)].norm(), 1 / std::cos(std::numbers::pi / 8),
                    kRound);
    std::set<std::uint32_t> labels(out.labels.begin(), out.labels.begin() + out.count);
    EXPECT_EQ(labels.size(), 8u) << "every octagon vertex is a distinct pair of edges";
}

TEST(ClipPolygon, CoincidentSquaresKeepFourVerticesWithoutDuplicates) {
    const Polygon2 a = regular_polygon(4, std::sqrt(2.0), std::numbers::pi / 4);
    Polygon2 out;
    clip_polygon(a, a, out);
    ASSERT_EQ(out.count, 4);
    EXPECT_NEAR(out.signed_area(), 4.0, kRound);
    for (int i = 0; i < 4; ++i)
        EXPECT_EQ(out.points[static_cast<std::size_t>(i)], a.points[static_cast<std::size_t>(i)]);
}

TEST(ClipPolygon, ContainedPolygonIsReturnedWithItsOwnVertexLabels) {
    const Polygon2 big = regular_polygon(6, 3.0, 0.1);
    const Polygon2 small = regular_polygon(5, 1.0, 0.3, Vec2(0.2, -0.1));
    Polygon2 out;
    clip_polygon(small, big, out);
    ASSERT_EQ(out.count, 5);
    for (int j = 0; j < 5; ++j) {
        EXPECT_EQ(out.points[static_cast<std::size_t>(j)], small.points[static_cast<std::size_t>(j)]);
        // Subject vertex j is where subject edge j-1 ends and edge j starts.
        EXPECT_EQ(out.labels[static_cast<std::size_t>(j)],
                  (static_cast<std::uint32_t>((j + 4) % 5) << 16) | static_cast<std::uint32_t>(j));
    }
    // The other way round every output vertex comes from the clip polygon's edges.
    clip_polygon(big, small, out);
    ASSERT_EQ(out.count, 5);
    EXPECT_NEAR(out.signed_area(), small.signed_area(), kRound);
}

TEST(ClipPolygon, DisjointPolygonsGiveNothing) {
    Polygon2 out;
    clip_polygon(regular_polygon(4, 1, 0), regular_polygon(4, 1, 0, Vec2(3, 0)), out);
    EXPECT_EQ(out.count, 0);
}

TEST(ClipPolygon, RandomConvexPairsMatchBruteForceArea) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> uni(-1, 1);
    double worst = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        const int na = 3 + static_cast<int>(rng() % 10), nb = 3 + static_cast<int>(rng() % 10);
        const Polygon2 a =
            regular_polygon(na, 0.5 + 0.5 * std::abs(uni(rng)), uni(rng), Vec2(uni(rng), uni(rng)) * 0.7);
        const Polygon2 b =
            regular_polygon(nb, 0.5 + 0.5 * std::abs(uni(rng)), uni(rng), Vec2(uni(rng), uni(rng)) * 0.7);
        Polygon2 out;
        clip_polygon(a, b, out);
        const double expected = brute_force_intersection_area(a, b);
        const double area = out.count >= 3 ? polygon_area(points_of(out)) : 0.0;
        worst = std::max(worst, std::abs(area - expected));
        // Every output vertex lies in both polygons.
        for (int i = 0; i < out.count; ++i) {
            EXPECT_TRUE(inside(a, out.points[static_cast<std::size_t>(i)], kRound));
            EXPECT_TRUE(inside(b, out.points[static_cast<std::size_t>(i)], kRound));
        }
    }
    EXPECT_LT(worst, kRound) << "largest area error " << worst;
}

// ---- clip_features: phases 3-4 of the axis-rotation article.

ContactFeature square_at(double half, double z, double angle = 0, const Vec2& c = Vec2::Zero()) {
    ContactFeature f;
    for (int i = 0; i < 4; ++i) {
        const double a = angle + std::numbers::pi / 4 + i * std::numbers::pi / 2;
        f.add(Vec3(c.x() + half * std::sqrt(2.0) * std::cos(a), c.y() + half * std::sqrt(2.0) * std::sin(a),
                   z));
    }
    return f;
}

TEST(ClipFeatures, FaceOnLargerFaceGivesTheSmallerFaceCornersAtEqualDepth) {
    // A's face at z = 0 (normal +z from A to B), B's face 0.1 below it: depth 0.1, positions midway at z =
    // -0.05.
    const ContactFeature a = square_at(1.0, 0.0);
    const ContactFeature b = square_at(0.5, -0.1, 0.3);
    ContactCandidates out;
    ASSERT_EQ(clip_features(a, b, Vec3::UnitZ(), 0, 11, out), 4);
    for (const ContactPoint& p : out.view()) {
        EXPECT_NEAR(p.depth, 0.1, kRound);
        EXPECT_NEAR(p.position.z(), -0.05, kRound);
        EXPECT_NEAR(Vec2(p.position.x(), p.position.y()).norm(), 0.5 * std::sqrt(2.0), kRound);
    }
    std::set<std::uint32_t> ids;
    for (const ContactPoint& p : out.view()) ids.insert(p.id);
    EXPECT_EQ(ids.size(), 4u);
}

TEST(ClipFeatures, TiltedFaceLiftsEachPointOntoItsOwnPlane) {
    // B's face lies on the plane z = -0.1 + 0.05 x: each clipped point's depth is 0.1 - 0.05 x at its x.
    ContactFeature a = square_at(1.0, 0.0);
    ContactFeature b;
    for (const Vec2& q : {Vec2(-2, -2), Vec2(2, -2), Vec2(2, 2), Vec2(-2, 2)})
        b.add(Vec3(q.x(), q.y(), -0.1 + 0.05 * q.x()));
    ContactCandidates out;
    ASSERT_EQ(clip_features(a, b, Vec3::UnitZ(), 0, 0, out), 4);
    for (const ContactPoint& p : out.view()) {
        const double x = p.position.x();
        EXPECT_NEAR(p.depth, 0.1 - 0.05 * x, kRound) << "at x " << x;
        EXPECT_NEAR(p.position.z(), 0.5 * (-0.1 + 0.05 * x), kRound);
        EXPECT_NEAR(std::abs(x), 1.0, kRound);
    }
}

TEST(ClipFeatures, EdgeOnFaceIsClippedToTheFace) {
    const ContactFeature a = square_at(1.0, 0.0);
    ContactFeature b;
    b.add(Vec3(-3, 0.25, -0.02));
    b.add(Vec3(3, 0.25, -0.02));
    ContactCandidates out;
    ASSERT_EQ(clip_features(a, b, Vec3::UnitZ(), 0, 0, out), 2);
    std::vector<double> xs;
    for (const ContactPoint& p : out.view()) {
        EXPECT_NEAR(p.depth, 0.02, kRound);
        EXPECT_NEAR(p.position.y(), 0.25, kRound);
        xs.push_back(p.position.x());
    }
    std::sort(xs.begin(), xs.end());
    EXPECT_NEAR(xs[0], -1.0, kRound);
    EXPECT_NEAR(xs[1], 1.0, kRound);
}

TEST(ClipFeatures, CrossingEdgesGiveTheirClosestPointPair) {
    // A's edge along x at z = 0, B's along y at z = -0.03: one point at the crossing, depth 0.03.
    ContactFeature a, b;
    a.add(Vec3(-1, 0.2, 0));
    a.add(Vec3(1, 0.2, 0));
    b.add(Vec3(0.3, -1, -0.03));
    b.add(Vec3(0.3, 1, -0.03));
    ContactCandidates out;
    ASSERT_EQ(clip_features(a, b, Vec3::UnitZ(), 0, 0, out), 1);
    EXPECT_NEAR(out[0].depth, 0.03, kRound);
    EXPECT_NEAR((out[0].position - Vec3(0.3, 0.2, -0.015)).norm(), 0, kRound);
}

TEST(ClipFeatures, ParallelEdgesGiveTheEndsOfTheirOverlap) {
    ContactFeature a, b;
    a.add(Vec3(-1, 0, 0));
    a.add(Vec3(1, 0, 0));
    b.add(Vec3(0.5, 0, -0.01));
    b.add(Vec3(2.5, 0, -0.03));
    ContactCandidates out;
    ASSERT_EQ(clip_features(a, b, Vec3::UnitZ(), 0, 0, out), 2);
    for (const ContactPoint& p : out.view()) {
        const double x = p.position.x();
        // B's edge: z = -0.01 - 0.01 (x - 0.5).
        EXPECT_NEAR(p.depth, 0.01 + 0.01 * (x - 0.5), kRound);
        EXPECT_TRUE(std::abs(x - 0.5) < kRound || std::abs(x - 1.0) < kRound) << "x " << x;
    }
}

TEST(ClipFeatures, VertexOnFaceAndSpeculativeMargin) {
    const ContactFeature a = square_at(1.0, 0.0);
    ContactFeature b;
    b.add(Vec3(0.1, 0.2, 0.05));  // 0.05 above A's face: separated
    ContactCandidates out;
    EXPECT_EQ(clip_features(a, b, Vec3::UnitZ(), 0.01, 0, out), 0) << "separation 0.05 is beyond margin 0.01";
    ASSERT_EQ(clip_features(a, b, Vec3::UnitZ(), 0.1, 0, out), 1);
    EXPECT_NEAR(out[0].depth, -0.05, kRound);
    EXPECT_NEAR((out[0].position - Vec3(0.1, 0.2, 0.025)).norm(), 0, kRound);
}

TEST(ClipFeatures, ObliqueNormalMeasuresDepthAlongTheNormal) {
    // Faces perpendicular to n = (1, 1, 1)/sqrt(3), B's face 0.2 behind A's along n.
    const Vec3 n = Vec3(1, 1, 1).normalized();
    Vec3 u, v;
    orthonormal_basis(n, u, v);
    ContactFeature a, b;
    for (int i = 0; i < 4; ++i) {
        const double t = i * std::numbers::pi / 2;
        a.add(Vec3(5, -2, 1) + std::cos(t) * u + std::sin(t) * v);
        b.add(Vec3(5, -2, 1) - 0.2 * n + 0.5 * (std::cos(t + 0.4) * u + std::sin(t + 0.4) * v));
    }
    ContactCandidates out;
    ASSERT_EQ(clip_features(a, b, n, 0, 0, out), 4);
    for (const ContactPoint& p : out.view()) {
        EXPECT_NEAR(p.depth, 0.2, 1e-11);  // coordinates of size ~5: 10x the O(1) rounding bound
        EXPECT_NEAR((p.position - Vec3(5, -2, 1)).dot(n), -0.1, 1e-11);
    }
}

TEST(ClipFeatures, IdsAreStableUnderSmallMotion) {
    const ContactFeature a = square_at(1.0, 0.0);
    ContactCandidates out0, out1;
    clip_features(a, square_at(1.0, -0.01, 0.2), Vec3::UnitZ(), 0, 5, out0);
    clip_features(a, square_at(1.0, -0.012, 0.2 + 1e-4, Vec2(1e-4, -1e-4)), Vec3::UnitZ(), 0, 5, out1);
    ASSERT_EQ(out0.count, 8);
    ASSERT_EQ(out1.count, 8);
    std::set<std::uint32_t> ids0, ids1;
    for (const ContactPoint& p : out0.view()) ids0.insert(p.id);
    for (const ContactPoint& p : out1.view()) ids1.insert(p.id);
    EXPECT_EQ(ids0, ids1);
    EXPECT_EQ(ids0.size(), 8u);
}

// ---- reduce_contacts.

double quad_area(const Manifold& m) {
    std::vector<Vec2> p;
    for (int i = 0; i < m.count; ++i)
        p.emplace_back(m.points[static_cast<std::size_t>(i)].position.x(),
                       m.points[static_cast<std::size_t>(i)].position.y());
    Vec2 c = Vec2::Zero();
    for (const Vec2& q : p) c += q;
    c /= static_cast<double>(p.size());
    std::sort(p.begin(), p.end(), [&](const Vec2& a, const Vec2& b) {
        return std::atan2(a.y() - c.y(), a.x() - c.x()) < std::atan2(b.y() - c.y(), b.x() - c.x());
    });
    return polygon_area(p);
}

TEST(ReduceContacts, OctagonOfEqualDepthKeepsAnInscribedSquare) {
    // The largest quadrilateral inscribed in a regular octagon of circumradius R is a square of area 2 R^2.
    std::vector<ContactPoint> c;
    for (int i = 0; i < 8; ++i) {
        const double a = 0.1 + i * std::numbers::pi / 4;
        c.push_back({Vec3(std::cos(a), std::sin(a), 0.3), 0.01, static_cast<std::uint32_t>(i)});
    }
    Manifold m;
    reduce_contacts(c, Vec3::UnitZ(), m);
    ASSERT_EQ(m.count, 4);
    EXPECT_NEAR(quad_area(m), 2.0, kRound);
}

TEST(ReduceContacts, KeepsTheDeepestPoint) {
    std::vector<ContactPoint> c;
    for (int i = 0; i < 12; ++i) {
        const double a = i * std::numbers::pi / 6;
        c.push_back({Vec3(std::cos(a), std::sin(a), 0), 0.01 + 0.001 * std::sin(a + 1),
                     static_cast<std::uint32_t>(i)});
    }
    c.push_back({Vec3(0.1, 0, 0), 0.05, 99});  // interior but deepest
    Manifold m;
    reduce_contacts(c, Vec3::UnitZ(), m);
    ASSERT_EQ(m.count, 4);
    EXPECT_EQ(m.points[0].id, 99u);
    // Second: farthest from (0.1, 0) is the circle point at angle pi.
    EXPECT_EQ(m.points[1].id, 6u);
}

// Clip points that overflowed (a shape placed near the end of the double range; fuzz_world found one through
// a plane) carry no contact: the patch gets none instead of indexing with the selection's -1.
TEST(ReduceContacts, NonFiniteCandidatesGiveNoContact) {
    for (const double bad :
         {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
        std::vector<ContactPoint> c;
        for (int i = 0; i < 5; ++i)
            c.push_back({Vec3(std::cos(i), std::sin(i), 0), 0.01, static_cast<std::uint32_t>(i)});
        c[2].depth = bad;
        Manifold m;
        reduce_contacts(c, Vec3::UnitZ(), m);
        EXPECT_EQ(m.count, 0) << "depth " << bad;
        c[2].depth = 0.01;
        c[3].position.x() = bad;
        reduce_contacts(c, Vec3::UnitZ(), m);
        EXPECT_EQ(m.count, 0) << "position " << bad;
    }
}

TEST(ReduceContacts, CollinearPatchKeepsTheTwoExtremePoints) {
    std::vector<ContactPoint> c;
    for (int i = 0; i < 7; ++i)
        c.push_back({Vec3(0.3 * i, 0.5 * 0.3 * i, 1), 0.02 - 0.001 * (i - 3) * (i - 3),
                     static_cast<std::uint32_t>(i)});
    Manifold m;
    reduce_contacts(c, Vec3::UnitZ(), m);
    ASSERT_EQ(m.count, 2);
    std::set<std::uint32_t> ids = {m.points[0].id, m.points[1].id};
    EXPECT_EQ(ids, (std::set<std::uint32_t>{0u, 6u}));
}

TEST(ReduceContacts, ThreeCollinearPointsKeepTheirEnds) {
    const std::vector<ContactPoint> c = {
        {Vec3(0, 0, 0), 0.1, 1}, {Vec3(2, 1, 0), 0.2, 2}, {Vec3(1, 0.5, 0), 0.15, 3}};
    Manifold m;
    reduce_contacts(c, Vec3::UnitZ(), m);
    ASSERT_EQ(m.count, 2);
    EXPECT_EQ(std::set<std::uint32_t>({m.points[0].id, m.points[1].id}), (std::set<std::uint32_t>{1u, 2u}));
}

TEST(ReduceContacts, WeldsDuplicatesAndKeepsSmallSetsWhole) {
    std::vector<ContactPoint> c = {{Vec3(0, 0, 0), 0.1, 1},
                                   {Vec3(1, 0, 0), 0.1, 2},
                                   {Vec3(1, 1e-9, 0), 0.2, 3},  // duplicate of 2, deeper: replaces it
                                   {Vec3(0, 1, 0), 0.1, 4}};
    Manifold m;
    reduce_contacts(c, Vec3::UnitZ(), m);
    ASSERT_EQ(m.count, 3);
    EXPECT_EQ(m.points[0].id, 1u);
    EXPECT_EQ(m.points[1].id, 3u);
    EXPECT_EQ(m.points[2].id, 4u);
}

// Area of the convex hull of four points: the largest of the three quadrilaterals through them (a crossed
// ordering has a smaller |signed area|), or of the triangles when one point is inside the others.
double hull_area4(const std::array<Vec2, 4>& q) {
    double best = 0;
    for (const auto& order :
         {std::array<int, 4>{0, 1, 2, 3}, std::array<int, 4>{0, 2, 1, 3}, std::array<int, 4>{0, 1, 3, 2}}) {
        std::vector<Vec2> p;
        for (int i : order) p.push_back(q[static_cast<std::size_t>(i)]);
        best = std::max(best, std::abs(polygon_area(p)));
    }
    return best;
}

TEST(ReduceContacts, EachStepIsTheBruteForceOptimumOfItsCriterion) {
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> uni(-1, 1);
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<ContactPoint> c;
        const int n = 5 + static_cast<int>(rng() % 20);
        for (int i = 0; i < n; ++i)
            c.push_back(
                {Vec3(uni(rng), uni(rng), 0.5), 0.1 + 0.05 * uni(rng), static_cast<std::uint32_t>(i)});
        Manifold m;
        reduce_contacts(c, Vec3::UnitZ(), m);
        ASSERT_EQ(m.count, 4) << "random points in a square are never collinear";
        auto xy = [](const ContactPoint& p) { return Vec2(p.position.x(), p.position.y()); };
        const Vec2 p1 = xy(m.points[0]), p2 = xy(m.points[1]), p3 = xy(m.points[2]), p4 = xy(m.points[3]);
        const Vec2 e = (p2 - p1).normalized();
        double max_depth = 0, max_dist = 0, max_line = 0, max_area = 0;
        for (const ContactPoint& p : c) max_depth = std::max(max_depth, p.depth);
        // Step 1: among the points within 1e-3 of the extent of the deepest, the farthest from the centre of
        // their bounding box.
        Vec2 lo = xy(c[0]), hi = lo;
        for (const ContactPoint& p : c) lo = lo.cwiseMin(xy(p)), hi = hi.cwiseMax(xy(p));
        const Vec2 centre = 0.5 * (lo + hi);
        double max_r = 0;
        for (const ContactPoint& p : c)
            if (p.depth >= max_depth - 1e-3 * (hi - lo).norm())
                max_r = std::max(max_r, (xy(p) - centre).norm());
        EXPECT_GE(m.points[0].depth, max_depth - 1e-3 * (hi - lo).norm());
        EXPECT_NEAR((p1 - centre).norm(), max_r, kRound);
        for (const ContactPoint& p : c) {
            const Vec2 q = xy(p);
            max_dist = std::max(max_dist, (q - p1).norm());
            max_line = std::max(max_line, std::abs(e.x() * (q - p1).y() - e.y() * (q - p1).x()));
            max_area = std::max(max_area, hull_area4({p1, p2, p3, q}));
        }
        EXPECT_NEAR((p2 - p1).norm(), max_dist, kRound);
        EXPECT_NEAR(std::abs(e.x() * (p3 - p1).y() - e.y() * (p3 - p1).x()), max_line, kRound);
        EXPECT_NEAR(hull_area4({p1, p2, p3, p4}), max_area, kRound) << "trial " << trial;
    }
}

}  // namespace
}  // namespace simpulse
