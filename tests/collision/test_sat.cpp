// Tests of the separating-axis queries (sat.h): the box as a polyhedron, the 15-axis box test against the
// Gauss-map-pruned polyhedron test, both against closed forms and against EPA (epa.h, an independent
// algorithm), and the box-box / hull-hull manifolds against the closed-form contact patches.
#include <simpulse/collision/epa.h>
#include <simpulse/collision/sat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <random>
#include <vector>

namespace simpulse {
namespace {

// Rounding of O(1) coordinates through a rotation and a few dot products: a few ulps; 1e-12 is the claim.
constexpr double kRound = 1e-12;

Quat random_rotation(std::mt19937_64& rng) {
    std::normal_distribution<double> g;
    return Quat(g(rng), g(rng), g(rng), g(rng)).normalized();
}

Pose pose_at(const Vec3& p, const Quat& q = Quat::Identity()) {
    return {p, q};
}

Quat about(const Vec3& axis, double angle) {
    return Quat(Eigen::AngleAxisd(angle, axis.normalized()));
}

TEST(BoxPolyhedron, TopologyIsConsistent) {
    const BoxPolyhedron p = box_polyhedron(Box{Vec3(0.3, 0.5, 0.7)});
    const PolyhedronView v = p.view();
    ASSERT_EQ(v.faces.size(), 6u);
    ASSERT_EQ(v.edges.size(), 12u);
    for (const ConvexHull::Face& f : v.faces) {
        Vec3 newell = Vec3::Zero();
        for (std::uint32_t k = 0; k < f.count; ++k) {
            const Vec3& a = v.vertices[v.face_vertices[f.first + k]];
            const Vec3& b = v.vertices[v.face_vertices[f.first + (k + 1) % f.count]];
            EXPECT_NEAR(f.normal.dot(a), f.offset, kRound);
            newell += a.cross(b);
        }
        EXPECT_NEAR((newell.normalized() - f.normal).norm(), 0, kRound)
            << "loop must be CCW seen from outside";
    }
    auto face_has = [&](std::uint32_t face, std::uint32_t vertex) {
        const ConvexHull::Face& f = v.faces[face];
        for (std::uint32_t k = 0; k < f.count; ++k)
            if (v.face_vertices[f.first + k] == vertex) return true;
        return false;
    };
    for (std::size_t e = 0; e < v.edges.size(); ++e) {
        const ConvexHull::Edge& edge = v.edges[e];
        EXPECT_TRUE(face_has(edge.face0, edge.v0) && face_has(edge.face0, edge.v1)) << "edge " << e;
        EXPECT_TRUE(face_has(edge.face1, edge.v0) && face_has(edge.face1, edge.v1)) << "edge " << e;
        const Vec3 d = v.vertices[edge.v1] - v.vertices[edge.v0];
        EXPECT_EQ(d.cwiseAbs().maxCoeff(), d.cwiseAbs()[static_cast<int>(e / 4)]) << "edge " << e << " axis";
    }
}

TEST(SatBoxes, AxisAlignedOverlapHasClosedFormDepth) {
    const Box a{Vec3(1, 2, 3)}, b{Vec3(0.5, 0.5, 0.5)};
    // Overlap along x: 1 + 0.5 - 1.4 = 0.1 (smallest of the three axes).
    const SatResult r = sat_boxes(a, pose_at(Vec3::Zero()), b, pose_at(Vec3(1.4, 0.3, -0.2)));
    EXPECT_NEAR(r.separation, -0.1, kRound);
    EXPECT_NEAR((r.normal - Vec3::UnitX()).norm(), 0, kRound);
    // Separated along -y by 0.25.
    const SatResult s = sat_boxes(a, pose_at(Vec3::Zero()), b, pose_at(Vec3(0.2, -2.75, 0)));
    EXPECT_NEAR(s.separation, 0.25, kRound);
    EXPECT_NEAR((s.normal + Vec3::UnitY()).norm(), 0, kRound);
}

TEST(SatBoxes, CrossedEdgesHaveClosedFormSeparation) {
    // Two unit cubes (half 0.5), B turned 45 deg about x and 45 deg about z... simplest exact case: A's top
    // edge along x against B's bottom edge along y, both boxes turned 45 deg about their edge axis.
    const Box cube{Vec3::Constant(0.5)};
    const Pose pa = pose_at(Vec3::Zero(), about(Vec3::UnitX(), std::numbers::pi / 4));
    const double gap = 0.01;
    const double h = 0.5 * std::sqrt(2.0);  // centre-to-edge distance of a cube turned 45 deg
    const Pose pb = pose_at(Vec3(0.1, -0.2, 2 * h - gap), about(Vec3::UnitY(), std::numbers::pi / 4));
    const SatResult r = sat_boxes(cube, pa, cube, pb);
    EXPECT_EQ(r.feature, SatFeature::edges);
    EXPECT_NEAR(r.separation, -gap, kRound);
    EXPECT_NEAR((r.normal - Vec3::UnitZ()).norm(), 0, kRound);
}

TEST(SatBoxes, FifteenAxesAgreeWithGaussMapPrunedPolyhedra) {
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> uni(-1, 1);
    double worst = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        const Box a{Vec3(0.2 + std::abs(uni(rng)), 0.2 + std::abs(uni(rng)), 0.2 + std::abs(uni(rng)))};
        const Box b{Vec3(0.2 + std::abs(uni(rng)), 0.2 + std::abs(uni(rng)), 0.2 + std::abs(uni(rng)))};
        const Pose pa = pose_at(Vec3(uni(rng), uni(rng), uni(rng)), random_rotation(rng));
        const Pose pb = pose_at(pa.position + 1.5 * Vec3(uni(rng), uni(rng), uni(rng)), random_rotation(rng));
        const SatResult box = sat_boxes(a, pa, b, pb);
        const BoxPolyhedron ha = box_polyhedron(a), hb = box_polyhedron(b);
        const SatResult poly = sat_polyhedra(ha.view(), pa, hb.view(), pb);
        worst = std::max(worst, std::abs(box.separation - poly.separation));
        if (box.separation < 0) {
            EXPECT_NEAR((box.normal - poly.normal).norm(), 0, 1e-9) << "trial " << trial;
        }
    }
    EXPECT_LT(worst, kRound) << "largest separation difference " << worst;
}

// Overlap of A and B along the unit direction d (A -> B): h_A(d) + h_B(-d), with h the support function. The
// penetration depth is its minimum over all directions.
double box_overlap(const Box& a, const Pose& pa, const Box& b, const Pose& pb, const Vec3& d) {
    auto h = [](const Box& box, const Pose& p, const Vec3& dir) {
        return p.position.dot(dir) + box.half_extents.dot(p.inverse_rotate(dir).cwiseAbs());
    };
    return h(a, pa, d) + h(b, pb, -d);
}

TEST(SatBoxes, DepthIsTheMinimumOverlapOverAllDirections) {
    std::mt19937_64 rng(12);
    std::uniform_real_distribution<double> uni(-1, 1);
    std::normal_distribution<double> g;
    int checked = 0;
    for (int trial = 0; trial < 200; ++trial) {
        const Box a{Vec3(0.2 + std::abs(uni(rng)), 0.2 + std::abs(uni(rng)), 0.2 + std::abs(uni(rng)))};
        const Box b{Vec3(0.2 + std::abs(uni(rng)), 0.2 + std::abs(uni(rng)), 0.2 + std::abs(uni(rng)))};
        const Pose pa = pose_at(Vec3(uni(rng), uni(rng), uni(rng)), random_rotation(rng));
        const Pose pb = pose_at(pa.position + Vec3(uni(rng), uni(rng), uni(rng)), random_rotation(rng));
        const SatResult r = sat_boxes(a, pa, b, pb);
        if (r.separation >= 0) continue;
        ++checked;
        EXPECT_NEAR(box_overlap(a, pa, b, pb, r.normal), -r.separation, kRound)
            << "depth is realised along the normal";
        double min_overlap = std::numeric_limits<double>::infinity();
        for (int k = 0; k < 2000; ++k)
            min_overlap =
                std::min(min_overlap, box_overlap(a, pa, b, pb, Vec3(g(rng), g(rng), g(rng)).normalized()));
        EXPECT_GE(min_overlap, -r.separation - kRound)
            << "trial " << trial << ": a direction overlaps less than the SAT depth";
    }
    EXPECT_GT(checked, 100);
}

// A convex polytope assembled by hand from its vertices and face loops (any winding; made CCW from outside
// here), with the edges, adjacency and interior point that make_convex_hull would compute. Keeps these tests
// independent of the quickhull builder.
ShapePtr hull_from_loops(std::vector<Vec3> vertices, const std::vector<std::vector<std::uint32_t>>& loops) {
    ConvexHull h;
    h.vertices = std::move(vertices);
    for (const Vec3& v : h.vertices) h.centroid += v;
    h.centroid /= static_cast<double>(h.vertices.size());
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::uint32_t>> edge_faces;
    for (const auto& loop_in : loops) {
        std::vector<std::uint32_t> loop = loop_in;
        Vec3 n = Vec3::Zero();
        for (std::size_t k = 0; k < loop.size(); ++k)
            n += h.vertices[loop[k]].cross(h.vertices[loop[(k + 1) % loop.size()]]);
        n.normalize();
        if (n.dot(h.vertices[loop[0]] - h.centroid) < 0) {
            std::reverse(loop.begin(), loop.end());
            n = -n;
        }
        const auto f = static_cast<std::uint32_t>(h.faces.size());
        h.faces.push_back({n, n.dot(h.vertices[loop[0]]), static_cast<std::uint32_t>(h.face_vertices.size()),
                           static_cast<std::uint32_t>(loop.size())});
        for (std::size_t k = 0; k < loop.size(); ++k) {
            const std::uint32_t a = loop[k], b = loop[(k + 1) % loop.size()];
            edge_faces[{std::min(a, b), std::max(a, b)}].push_back(f);
        }
        h.face_vertices.insert(h.face_vertices.end(), loop.begin(), loop.end());
    }
    std::vector<std::vector<std::uint32_t>> adj(h.vertices.size());
    for (const auto& [e, faces] : edge_faces) {
        h.edges.push_back({e.first, e.second, faces.at(0), faces.at(1)});
        adj[e.first].push_back(e.second);
        adj[e.second].push_back(e.first);
    }
    h.neighbor_offsets.push_back(0);
    for (const auto& a : adj) {
        h.neighbors.insert(h.neighbors.end(), a.begin(), a.end());
        h.neighbor_offsets.push_back(static_cast<std::uint32_t>(h.neighbors.size()));
    }
    return std::make_shared<const Shape>(Shape{std::move(h)});
}

const std::vector<std::vector<std::uint32_t>> kBoxLoops = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                                           {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};

// Parallelepiped c + sum of +-e_i (an affine image of a box: non-orthogonal faces and edges).
ShapePtr parallelepiped(const Vec3& c, const Vec3& e0, const Vec3& e1, const Vec3& e2) {
    std::vector<Vec3> v;
    for (int i = 0; i < 8; ++i)
        v.push_back(c + ((i & 1) ? e0 : Vec3(-e0)) + ((i & 2) ? e1 : Vec3(-e1)) + ((i & 4) ? e2 : Vec3(-e2)));
    return hull_from_loops(v, kBoxLoops);
}

ShapePtr tetrahedron(const std::array<Vec3, 4>& p) {
    return hull_from_loops({p.begin(), p.end()}, {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}});
}

// Random well-shaped polytope: a parallelepiped or a tetrahedron with edges of length ~0.5-1.
ShapePtr random_polytope(std::mt19937_64& rng) {
    std::uniform_real_distribution<double> uni(-1, 1);
    auto rv = [&] { return Vec3(uni(rng), uni(rng), uni(rng)); };
    for (;;) {
        if (rng() % 2) {
            const Vec3 e0 = 0.5 * rv(), e1 = 0.5 * rv(), e2 = 0.5 * rv();
            if (std::abs(e0.cross(e1).dot(e2)) > 0.02) return parallelepiped(Vec3::Zero(), e0, e1, e2);
        } else {
            const std::array<Vec3, 4> p = {rv(), rv(), rv(), rv()};
            if (std::abs((p[1] - p[0]).cross(p[2] - p[0]).dot(p[3] - p[0])) > 0.2) return tetrahedron(p);
        }
    }
}

// EPA's stopping rule (epa.h): gap below 1e-9 relative to max(depth, 1e-6 * size). With depths and sizes O(1)
// the EPA depth is within 1e-9 of the exact one, which SAT computes up to rounding.
constexpr double kEpaAgreement = 1e-9;

TEST(SatPolyhedra, PenetrationDepthAgreesWithEpaOnBoxes) {
    std::mt19937_64 rng(2);
    std::uniform_real_distribution<double> uni(-1, 1);
    int checked = 0;
    double worst = 0;
    for (int trial = 0; trial < 500; ++trial) {
        const ShapePtr a =
            make_box(Vec3(0.3 + std::abs(uni(rng)), 0.3 + std::abs(uni(rng)), 0.3 + std::abs(uni(rng))));
        const ShapePtr b =
            make_box(Vec3(0.3 + std::abs(uni(rng)), 0.3 + std::abs(uni(rng)), 0.3 + std::abs(uni(rng))));
        const Pose pa = pose_at(Vec3(uni(rng), uni(rng), uni(rng)), random_rotation(rng));
        const Pose pb = pose_at(pa.position + Vec3(uni(rng), uni(rng), uni(rng)), random_rotation(rng));
        const SatResult sat = sat_boxes(std::get<Box>(a->geometry), pa, std::get<Box>(b->geometry), pb);
        if (sat.separation >= 0) continue;
        SignedDistanceSettings s;
        s.epa.max_iterations = 100;
        const SignedDistanceResult epa = signed_distance(*a, pa, *b, pb, s);
        if (!epa.converged) continue;
        ++checked;
        worst = std::max(worst, std::abs(-sat.separation - (-epa.distance)));
        EXPECT_NEAR(-sat.separation, -epa.distance, kEpaAgreement) << "trial " << trial;
        EXPECT_GT(sat.normal.dot(epa.normal), 1 - 1e-6) << "trial " << trial;
    }
    EXPECT_GT(checked, 200);
    std::printf("SAT vs EPA on boxes: %d penetrating pairs, worst depth difference %.3g\n", checked, worst);
}

TEST(SatPolyhedra, PenetrationDepthAgreesWithEpaOnHulls) {
    std::mt19937_64 rng(4);
    std::uniform_real_distribution<double> uni(-1, 1);
    int checked = 0;
    double worst = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const ShapePtr a = random_polytope(rng);
        const ShapePtr b = random_polytope(rng);
        const Pose pa = pose_at(Vec3(uni(rng), uni(rng), uni(rng)), random_rotation(rng));
        const Pose pb = pose_at(pa.position + 0.8 * Vec3(uni(rng), uni(rng), uni(rng)), random_rotation(rng));
        const ConvexHull& ha = std::get<ConvexHull>(a->geometry);
        const ConvexHull& hb = std::get<ConvexHull>(b->geometry);
        const SatResult sat = sat_polyhedra(polyhedron_view(ha), pa, polyhedron_view(hb), pb);
        if (sat.separation >= 0) continue;
        const SignedDistanceResult epa = signed_distance(*a, pa, *b, pb);
        if (!epa.converged) continue;
        ++checked;
        worst = std::max(worst, std::abs(sat.separation - epa.distance));
        EXPECT_NEAR(sat.separation, epa.distance, kEpaAgreement) << "trial " << trial;
        EXPECT_GT(sat.normal.dot(epa.normal), 1 - 1e-6) << "trial " << trial;
    }
    EXPECT_GT(checked, 100);
    std::printf("SAT vs EPA on hulls: %d penetrating pairs, worst depth difference %.3g\n", checked, worst);
}

TEST(SatPolyhedra, PenetrationDepthAgreesWithEpaOnQuickhullHulls) {
    // Hulls of 8-40 random points from make_convex_hull (merged polygon faces, many edge pairs).
    std::mt19937_64 rng(6);
    std::uniform_real_distribution<double> uni(-1, 1);
    std::normal_distribution<double> g;
    int checked = 0;
    double worst = 0;
    for (int trial = 0; trial < 200; ++trial) {
        auto hull = [&] {
            std::vector<Vec3> p;
            const int n = 8 + static_cast<int>(rng() % 33);
            for (int i = 0; i < n; ++i) p.push_back(0.5 * Vec3(g(rng), g(rng), g(rng)));
            return make_convex_hull(p);
        };
        const ShapePtr a = hull(), b = hull();
        const Pose pa = pose_at(Vec3(uni(rng), uni(rng), uni(rng)), random_rotation(rng));
        const Pose pb = pose_at(pa.position + 0.8 * Vec3(uni(rng), uni(rng), uni(rng)), random_rotation(rng));
        const SatResult sat = sat_polyhedra(polyhedron_view(std::get<ConvexHull>(a->geometry)), pa,
                                            polyhedron_view(std::get<ConvexHull>(b->geometry)), pb);
        if (sat.separation >= 0) continue;
        const SignedDistanceResult epa = signed_distance(*a, pa, *b, pb);
        if (!epa.converged) continue;
        ++checked;
        worst = std::max(worst, std::abs(sat.separation - epa.distance));
        EXPECT_NEAR(sat.separation, epa.distance, kEpaAgreement) << "trial " << trial;
    }
    EXPECT_GT(checked, 60);
    std::printf("SAT vs EPA on quickhull hulls: %d penetrating pairs, worst depth difference %.3g\n", checked,
                worst);
}

TEST(SatPolyhedra, HullOfABoxMatchesTheBoxTest) {
    const Vec3 h(0.4, 0.6, 0.3);
    const ShapePtr hull =
        parallelepiped(Vec3::Zero(), h.x() * Vec3::UnitX(), h.y() * Vec3::UnitY(), h.z() * Vec3::UnitZ());
    const PolyhedronView hv = polyhedron_view(std::get<ConvexHull>(hull->geometry));
    ASSERT_EQ(hv.faces.size(), 6u);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> uni(-1, 1);
    for (int trial = 0; trial < 500; ++trial) {
        const Box other{Vec3(0.2 + std::abs(uni(rng)), 0.2 + std::abs(uni(rng)), 0.2 + std::abs(uni(rng)))};
        const Pose pa = pose_at(Vec3(uni(rng), uni(rng), uni(rng)), random_rotation(rng));
        const Pose pb = pose_at(pa.position + 1.2 * Vec3(uni(rng), uni(rng), uni(rng)), random_rotation(rng));
        const BoxPolyhedron ob = box_polyhedron(other);
        const double s_box = sat_boxes(Box{h}, pa, other, pb).separation;
        const double s_hull = sat_polyhedra(hv, pa, ob.view(), pb).separation;
        EXPECT_NEAR(s_box, s_hull, kRound) << "trial " << trial;
    }
}

// ---- box-box manifolds.

struct Collided {
    int count = 0;
    Manifold m;
};

Collided collide_box_pair(const Box& a, const Pose& pa, const Box& b, const Pose& pb, double margin = 0) {
    Collided c;
    CollideSettings s;
    s.margin = margin;
    c.count = collide_boxes(a, pa, b, pb, s, c.m);
    return c;
}

TEST(BoxManifold, RestingFlatGivesFourCornersAtEqualDepth) {
    const Box ground{Vec3(2, 2, 0.5)}, box{Vec3(0.5, 0.3, 0.2)};
    const double depth = 1e-3;
    const Collided c =
        collide_box_pair(ground, pose_at(Vec3::Zero()), box, pose_at(Vec3(0.1, -0.2, 0.7 - depth)));
    ASSERT_EQ(c.count, 1);
    ASSERT_EQ(c.m.count, 4);
    EXPECT_NEAR((c.m.normal - Vec3::UnitZ()).norm(), 0, kRound);
    for (int i = 0; i < 4; ++i) {
        const ContactPoint& p = c.m.points[static_cast<std::size_t>(i)];
        EXPECT_NEAR(p.depth, depth, kRound);
        EXPECT_NEAR(p.position.z(), 0.5 - 0.5 * depth, kRound);
        EXPECT_NEAR(std::abs(p.position.x() - 0.1), 0.5, kRound);
        EXPECT_NEAR(std::abs(p.position.y() + 0.2), 0.3, kRound);
    }
}

TEST(BoxManifold, EqualBoxesStackedExactlyGiveFourCorners) {
    // Coincident side faces: every incident vertex lies exactly on a reference side plane.
    const Box cube{Vec3::Constant(0.5)};
    const Collided c = collide_box_pair(cube, pose_at(Vec3::Zero()), cube, pose_at(Vec3(0, 0, 1.0 - 2e-3)));
    ASSERT_EQ(c.m.count, 4);
    for (int i = 0; i < 4; ++i) {
        EXPECT_NEAR(c.m.points[static_cast<std::size_t>(i)].depth, 2e-3, kRound);
        EXPECT_NEAR(c.m.points[static_cast<std::size_t>(i)].position.head<2>().cwiseAbs().maxCoeff(), 0.5,
                    kRound);
    }
}

TEST(BoxManifold, BoxOnItsEdgeGivesTwoPoints) {
    const Box ground{Vec3(2, 2, 0.5)}, cube{Vec3::Constant(0.5)};
    const double depth = 1e-3;
    const double h = 0.5 * std::sqrt(2.0);
    const Collided c = collide_box_pair(
        ground, pose_at(Vec3::Zero()), cube,
        pose_at(Vec3(0.2, 0.1, 0.5 + h - depth), about(Vec3::UnitX(), std::numbers::pi / 4)));
    ASSERT_EQ(c.m.count, 2);
    EXPECT_NEAR((c.m.normal - Vec3::UnitZ()).norm(), 0, kRound);
    for (int i = 0; i < 2; ++i) {
        const ContactPoint& p = c.m.points[static_cast<std::size_t>(i)];
        EXPECT_NEAR(p.depth, depth, kRound);
        EXPECT_NEAR(p.position.y(), 0.1, kRound);
        EXPECT_NEAR(std::abs(p.position.x() - 0.2), 0.5, kRound);
    }
}

TEST(BoxManifold, RotatedTopBoxGivesOctagonReducedToFourPoints) {
    // Equal cubes, the top one turned 45 deg about z: the patch is the regular octagon of apothem 0.5, whose
    // largest inscribed quadrilateral is a square of area 2 R^2, R = 0.5 / cos(pi/8).
    const Box cube{Vec3::Constant(0.5)};
    const double depth = 1e-3;
    const Collided c =
        collide_box_pair(cube, pose_at(Vec3::Zero()), cube,
                         pose_at(Vec3(0, 0, 1 - depth), about(Vec3::UnitZ(), std::numbers::pi / 4)));
    ASSERT_EQ(c.m.count, 4);
    const double R = 0.5 / std::cos(std::numbers::pi / 8);
    std::vector<Vec2> q;
    for (int i = 0; i < 4; ++i) {
        const ContactPoint& p = c.m.points[static_cast<std::size_t>(i)];
        EXPECT_NEAR(p.depth, depth, kRound);
        EXPECT_NEAR(p.position.head<2>().norm(), R, kRound);
        q.push_back(p.position.head<2>());
    }
    // Two diagonals of length 2R, perpendicular: a square.
    std::sort(q.begin(), q.end(), [](const Vec2& a, const Vec2& b) {
        return std::atan2(a.y(), a.x()) < std::atan2(b.y(), b.x());
    });
    EXPECT_NEAR((q[0] - q[2]).norm(), 2 * R, kRound);
    EXPECT_NEAR((q[1] - q[3]).norm(), 2 * R, kRound);
    EXPECT_NEAR((q[0] - q[2]).dot(q[1] - q[3]), 0, kRound);
}

TEST(BoxManifold, CrossedEdgesGiveOnePointMidwayBetweenTheEdges) {
    const Box cube{Vec3::Constant(0.5)};
    const double h = 0.5 * std::sqrt(2.0), gap = -0.01;  // penetration 0.01
    const Pose pa = pose_at(Vec3::Zero(), about(Vec3::UnitX(), std::numbers::pi / 4));
    const Pose pb = pose_at(Vec3(0.1, -0.2, 2 * h + gap), about(Vec3::UnitY(), std::numbers::pi / 4));
    const Collided c = collide_box_pair(Box{cube}, pa, cube, pb);
    ASSERT_EQ(c.m.count, 1);
    EXPECT_NEAR(c.m.points[0].depth, 0.01, kRound);
    // A's top edge is the line (x, 0, h), B's bottom edge the line (0.1, y, 2h - 0.01 - h).
    EXPECT_NEAR((c.m.points[0].position - Vec3(0.1, 0, h - 0.005)).norm(), 0, kRound);
}

TEST(BoxManifold, SpeculativeContactsWithinTheMarginOnly) {
    const Box ground{Vec3(2, 2, 0.5)}, box{Vec3(0.5, 0.3, 0.2)};
    const Pose pg = pose_at(Vec3::Zero()), pb = pose_at(Vec3(0, 0, 0.7 + 0.02));  // gap 0.02
    EXPECT_EQ(collide_box_pair(ground, pg, box, pb, 0.01).count, 0);
    const Collided c = collide_box_pair(ground, pg, box, pb, 0.05);
    ASSERT_EQ(c.m.count, 4);
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(c.m.points[static_cast<std::size_t>(i)].depth, -0.02, kRound);
}

TEST(BoxManifold, NearlyFlatStackKeepsTheFaceFeatureAndItsIds) {
    // A resting stack jitters by tiny rotations and translations: the reference face, the normal and the ids
    // must not change (no flicker between features).
    const Box cube{Vec3::Constant(0.5)};
    std::mt19937_64 rng(9);
    std::uniform_real_distribution<double> uni(-1, 1);
    const Collided ref = collide_box_pair(cube, pose_at(Vec3::Zero()), cube,
                                          pose_at(Vec3(0.05, 0.02, 1 - 1e-3), about(Vec3::UnitZ(), 0.1)));
    ASSERT_EQ(ref.m.count, 4);
    std::vector<std::uint32_t> ids0;
    for (int i = 0; i < 4; ++i) ids0.push_back(ref.m.points[static_cast<std::size_t>(i)].id);
    std::sort(ids0.begin(), ids0.end());
    for (int trial = 0; trial < 500; ++trial) {
        const Quat jitter = about(Vec3(uni(rng), uni(rng), uni(rng)), 2e-4 * uni(rng));
        const Pose pb = pose_at(Vec3(0.05, 0.02, 1 - 1e-3) + 1e-5 * Vec3(uni(rng), uni(rng), uni(rng)),
                                jitter * about(Vec3::UnitZ(), 0.1));
        const Collided c = collide_box_pair(cube, pose_at(Vec3::Zero()), cube, pb);
        ASSERT_EQ(c.m.count, 4) << "trial " << trial;
        EXPECT_NEAR((c.m.normal - Vec3::UnitZ()).norm(), 0, kRound) << "trial " << trial;
        std::vector<std::uint32_t> ids;
        for (int i = 0; i < 4; ++i) ids.push_back(c.m.points[static_cast<std::size_t>(i)].id);
        std::sort(ids.begin(), ids.end());
        EXPECT_EQ(ids, ids0) << "trial " << trial;
    }
}

TEST(FeatureChoice, PrefersFacesWithinTheTolerance) {
    SatQueries q;
    q.face_a.separation = -0.100;
    q.face_a.index_a = 0;
    q.face_b.separation = -0.099;  // better by 1 %: within the 2 % face tolerance
    q.face_b.index_b = 0;
    q.edges.separation = -0.095;  // better by 5 %: within the 10 % edge tolerance
    q.edges.index_a = q.edges.index_b = 0;
    EXPECT_EQ(choose_sat_feature(q, 0).feature, SatFeature::face_a);
    q.face_b.separation = -0.097;  // 3 % better: B's face wins
    EXPECT_EQ(choose_sat_feature(q, 0).feature, SatFeature::face_b);
    q.edges.separation = -0.085;  // 15 % better: the edge axis wins
    EXPECT_EQ(choose_sat_feature(q, 0).feature, SatFeature::edges);
    // Touching contact: the relative term vanishes, the absolute one decides.
    q.face_a.separation = 0;
    q.face_b.separation = 1e-4;
    q.edges.separation = 2e-4;
    EXPECT_EQ(choose_sat_feature(q, 1e-3).feature, SatFeature::face_a);
    EXPECT_EQ(choose_sat_feature(q, 5e-5).feature, SatFeature::edges);
}

TEST(HullManifold, HullOfABoxRestingOnABoxGivesFourCorners) {
    const Vec3 h(0.4, 0.6, 0.3);
    const ShapePtr hull =
        parallelepiped(Vec3::Zero(), h.x() * Vec3::UnitX(), h.y() * Vec3::UnitY(), h.z() * Vec3::UnitZ());
    const BoxPolyhedron ground = box_polyhedron(Box{Vec3(3, 3, 1)});
    Manifold m;
    const double depth = 2e-3;
    const Pose pg = pose_at(Vec3::Zero());
    const Pose ph = pose_at(Vec3(0.3, 0.1, 1 + 0.3 - depth), about(Vec3::UnitZ(), 0.7));
    ASSERT_EQ(collide_polyhedra(ground.view(), pg, polyhedron_view(std::get<ConvexHull>(hull->geometry)), ph,
                                {}, m),
              1);
    ASSERT_EQ(m.count, 4);
    for (int i = 0; i < 4; ++i) {
        EXPECT_NEAR(m.points[static_cast<std::size_t>(i)].depth, depth, kRound);
        const Vec3 local = ph.inverse_transform_point(m.points[static_cast<std::size_t>(i)].position);
        EXPECT_NEAR(std::abs(local.x()), h.x(), kRound);
        EXPECT_NEAR(std::abs(local.y()), h.y(), kRound);
    }
}

TEST(HullManifold, TetrahedronVertexIntoAFace) {
    // A tetrahedron standing on its apex on a box face: one point at the apex, depth exact.
    const ShapePtr t = tetrahedron({Vec3(0, 0, 0), Vec3(1, 0, 1), Vec3(-0.5, 0.8, 1), Vec3(-0.5, -0.8, 1)});
    const BoxPolyhedron ground = box_polyhedron(Box{Vec3(3, 3, 1)});
    Manifold m;
    ASSERT_EQ(collide_polyhedra(ground.view(), pose_at(Vec3::Zero()),
                                polyhedron_view(std::get<ConvexHull>(t->geometry)),
                                pose_at(Vec3(0.2, 0.3, 1 - 0.004)), {}, m),
              1);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.points[0].depth, 0.004, kRound);
    EXPECT_NEAR((m.points[0].position - Vec3(0.2, 0.3, 1 - 0.002)).norm(), 0, kRound);
}

}  // namespace
}  // namespace simpulse
