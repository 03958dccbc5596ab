// Tests of convex shapes against triangle meshes and height fields (mesh_contacts.h): no ghost normals on a
// flat triangulated floor (the quality bar: a box dragged and a cylinder rolled across a 20 x 20 floor,
// including positions exactly on edges and vertices, and a sphere near the hub of a fan of thin triangles
// touching only straight below its centre), real normals at convex and concave creases against
// closed forms, one-sidedness (and its limit: sunk shapes, thin closed meshes), and the height field against
// the same surface built as a triangle mesh by make_triangle_mesh (an independent triangulation and edge
// classification).
#include <simpulse/collision/mesh_contacts.h>
#include <simpulse/collision/narrow_phase.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

namespace simpulse {
namespace {

// Flat floor: normals are exactly +z; every check below is a closed form on O(10) coordinates: 1e-12.
constexpr double kExact = 1e-12;
// The quality bar of the brief: a normal off vertical by more than this is a ghost normal.
constexpr double kGhost = 1e-6;

Quat about(const Vec3& axis, double angle) {
    return Quat(Eigen::AngleAxisd(angle, axis.normalized()));
}

// Grid surface z = h(x, y) on [0, n]^2 with unit cells, triangulated like a height field (diagonal from (i,
// j) to (i + 1, j + 1)).
template <class Height>
ShapePtr grid_mesh(int n, Height&& h) {
    std::vector<Vec3> v;
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) v.emplace_back(j, i, h(j, i));
    std::vector<std::array<std::uint32_t, 3>> t;
    auto id = [&](int i, int j) { return static_cast<std::uint32_t>(i * (n + 1) + j); };
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            t.push_back({id(i, j), id(i, j + 1), id(i + 1, j + 1)});
            t.push_back({id(i, j), id(i + 1, j + 1), id(i + 1, j)});
        }
    return make_triangle_mesh(std::move(v), std::move(t));
}

template <class Height>
ShapePtr grid_field(int n, Height&& h) {
    std::vector<double> heights;
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) heights.push_back(h(j, i));
    return make_height_field(Vec2::Zero(), Vec2::Ones(), n + 1, n + 1, std::move(heights));
}

std::vector<Manifold> run(const ShapePtr& a, const Pose& pa, const ShapePtr& b, const Pose& pb,
                          double margin = 0) {
    CollideSettings s;
    s.margin = margin;
    std::vector<Manifold> out;
    collide(*a, pa, *b, pb, s, out);
    return out;
}

// Positions over the floor's interior: lattice points (vertices), half-integers (edges and diagonals) and
// random.
std::vector<Vec2> floor_positions(std::mt19937_64& rng) {
    std::vector<Vec2> p;
    for (double x = 2; x <= 18; x += 0.5)
        for (double y = 2; y <= 18; y += 0.5) p.emplace_back(x, y);
    std::uniform_real_distribution<double> uni(2, 18);
    for (int k = 0; k < 500; ++k) p.emplace_back(uni(rng), uni(rng));
    return p;
}

TEST(MeshFloor, DraggedBoxOnlySeesTheFaceNormal) {
    const ShapePtr floor = grid_mesh(20, [](double, double) { return 0.0; });
    const ShapePtr box = make_box(Vec3(0.7, 0.4, 0.25));
    std::mt19937_64 rng(31);
    std::uniform_real_distribution<double> yaw(0, 2 * std::numbers::pi);
    double worst = 0;
    int manifolds = 0;
    for (const Vec2& xy : floor_positions(rng)) {
        for (double gap : {-1e-3, 0.0, 4e-3}) {  // penetrating, touching, speculative within the margin
            const Pose pose{Vec3(xy.x(), xy.y(), 0.25 + gap), about(Vec3::UnitZ(), yaw(rng))};
            const auto out = run(floor, Pose{}, box, pose, 0.01);
            ASSERT_EQ(out.size(), 1u) << "one plane, one manifold at " << xy.transpose() << " gap " << gap;
            const Manifold& m = out[0];
            worst = std::max(worst, (m.normal - Vec3::UnitZ()).norm());
            ASSERT_EQ(m.count, 4) << xy.transpose();
            for (int i = 0; i < 4; ++i) {
                const ContactPoint& p = m.points[static_cast<std::size_t>(i)];
                EXPECT_NEAR(p.depth, -gap, kExact);
                // The four bottom corners of the box.
                const Vec3 local = pose.inverse_transform_point(p.position);
                EXPECT_NEAR(std::abs(local.x()), 0.7, 1e-9) << xy.transpose();
                EXPECT_NEAR(std::abs(local.y()), 0.4, 1e-9) << xy.transpose();
            }
            ++manifolds;
        }
    }
    EXPECT_LE(worst, kGhost) << "largest deviation of the normal from vertical " << worst;
    std::printf("dragged box: %d manifolds, largest normal deviation %.3g\n", manifolds, worst);
}

TEST(MeshFloor, RollingCylinderOnlySeesTheFaceNormal) {
    const ShapePtr floor = grid_mesh(20, [](double, double) { return 0.0; });
    const ShapePtr cyl = make_cylinder(0.3, 0.6);
    std::mt19937_64 rng(37);
    std::uniform_real_distribution<double> angle(0, 2 * std::numbers::pi);
    double worst = 0;
    for (const Vec2& xy : floor_positions(rng)) {
        for (double gap : {-1e-3, 3e-3}) {
            // Axis horizontal (lying), yawed, and rolled about its own axis.
            const Quat q = about(Vec3::UnitZ(), angle(rng)) * about(Vec3::UnitX(), std::numbers::pi / 2) *
                           about(Vec3::UnitZ(), angle(rng));
            const Pose pose{Vec3(xy.x(), xy.y(), 0.3 + gap), q};
            const auto out = run(cyl, pose, floor, Pose{}, 0.01);
            ASSERT_EQ(out.size(), 1u) << xy.transpose();
            worst =
                std::max(worst, (out[0].normal + Vec3::UnitZ()).norm());  // cylinder is A: normal points down
            ASSERT_EQ(out[0].count, 2) << xy.transpose();
            for (int i = 0; i < 2; ++i)
                EXPECT_NEAR(out[0].points[static_cast<std::size_t>(i)].depth, -gap, 1e-9) << xy.transpose();
        }
    }
    EXPECT_LE(worst, kGhost) << "largest deviation of the normal from vertical " << worst;
}

TEST(MeshFloor, SpheresAndCapsulesOnVerticesAndEdges) {
    // Rounded shapes keep their cores apart from the floor: the GJK closest point lands on internal edges and
    // vertices, which must still give the face normal.
    const ShapePtr floor = grid_mesh(20, [](double, double) { return 0.0; });
    const ShapePtr sphere = make_sphere(0.4), capsule = make_capsule(0.2, 0.5);
    double worst = 0;
    for (double x = 3; x <= 5; x += 0.25)
        for (double y = 3; y <= 5; y += 0.25) {
            auto out = run(floor, Pose{}, sphere, Pose{Vec3(x, y, 0.4 - 1e-3), Quat::Identity()});
            ASSERT_EQ(out.size(), 1u);
            ASSERT_EQ(out[0].count, 1);
            EXPECT_NEAR(out[0].points[0].depth, 1e-3, kExact);
            worst = std::max(worst, (out[0].normal - Vec3::UnitZ()).norm());
            out = run(floor, Pose{}, capsule,
                      Pose{Vec3(x, y, 0.2 - 1e-3), about(Vec3(1, 1, 0), std::numbers::pi / 2)});
            ASSERT_EQ(out.size(), 1u);
            EXPECT_EQ(out[0].count, 2);
            worst = std::max(worst, (out[0].normal - Vec3::UnitZ()).norm());
        }
    EXPECT_LE(worst, kGhost) << "largest deviation " << worst;
}

// Flat fan of n thin triangles around a hub at the origin, radius 8 m, all at z = 0
// (stress2_findings/sphere_fan_mesh_ghost_bounce.json).
ShapePtr fan_mesh(int n) {
    std::vector<Vec3> v{Vec3::Zero()};
    for (int k = 0; k < n; ++k) {
        const double phi = 2 * std::numbers::pi * k / n;
        v.emplace_back(8 * std::cos(phi), 8 * std::sin(phi), 0);
    }
    std::vector<std::array<std::uint32_t, 3>> t;
    for (int k = 0; k < n; ++k)
        t.push_back({0, static_cast<std::uint32_t>(1 + k), static_cast<std::uint32_t>(1 + (k + 1) % n)});
    return make_triangle_mesh(std::move(v), std::move(t));
}

// A sphere near the hub of a fan has dozens of thin triangles within a rolling body's speculative margin
// (0.102 m: 2 mm + dt (|v| + |w| r) at 6 m/s, dt = 1/120, r = 0.1). It touches the flat fan in one point,
// straight below its centre, with the face normal. Each triangle beside the centre measures the centre
// against its own nearest point (a clamped copy, at depth 0 up to 0.1 m beside the sphere); those copies
// filled the plane group, whose compaction kept their ring and dropped the direct point inside it, so the
// copies became the contacts and a rolling sphere's spin made them look approaching at up to |w| 0.1 = 6 m/s
// (the sphere was thrown to z 0.405).
TEST(MeshFloor, SphereNearTheHubOfAThinFanTouchesOnlyBelowItsCentre) {
    const ShapePtr sphere = make_sphere(0.1);
    double worst_normal = 0, worst_offset = 0, worst_depth = 0;
    int cases = 0;
    for (const int n : {180, 720}) {
        const ShapePtr fan = fan_mesh(n);
        for (const double rho : {0.0, 0.01, 0.05, 0.1, 0.2, 0.23, 0.3})
            for (int k = 0; k < 24; ++k)
                for (const double margin : {0.01, 0.102, 0.2}) {
                    const double phi = 0.1 + 2 * std::numbers::pi * k / 24;
                    const Vec3 c(rho * std::cos(phi), rho * std::sin(phi), 0.1 - 1e-3);
                    const auto out = run(fan, Pose{}, sphere, Pose{c, Quat::Identity()}, margin);
                    ASSERT_EQ(out.size(), 1u) << "n " << n << " centre " << c.transpose();
                    worst_normal = std::max(worst_normal, (out[0].normal - Vec3::UnitZ()).norm());
                    for (int i = 0; i < out[0].count; ++i) {
                        const ContactPoint& p = out[0].points[static_cast<std::size_t>(i)];
                        worst_offset = std::max(worst_offset, (p.position - c).head<2>().norm());
                        worst_depth = std::max(worst_depth, std::abs(p.depth - 1e-3));
                    }
                    ++cases;
                }
    }
    std::printf(
        "sphere over a fan, %d cases: normal error %.3g, point offset from below the centre %.3g m, "
        "depth error %.3g m\n",
        cases, worst_normal, worst_offset, worst_depth);
    EXPECT_LE(worst_normal, 1e-9) << "largest deviation of the normal from (0, 0, 1): " << worst_normal;
    EXPECT_LE(worst_offset, 1e-9)
        << "largest horizontal distance of a contact point from the sphere's centre: " << worst_offset
        << " m";
    EXPECT_LE(worst_depth, kExact) << "largest depth error " << worst_depth << " m";
}

TEST(MeshFloor, RandomSpheresAndTiltedBoxesGetOnePatchWithoutDuplicates) {
    // A sphere touches a flat floor in one point wherever it is; a box tilted beyond the axis-rotation angle
    // about a horizontal axis touches it with its lowest corner only (or, tilted about a box axis, its lowest
    // edge).
    const ShapePtr floor = grid_mesh(20, [](double, double) { return 0.0; });
    const ShapePtr sphere = make_sphere(0.4), box = make_box(Vec3(0.5, 0.4, 0.3));
    std::mt19937_64 rng(53);
    std::uniform_real_distribution<double> uni(2, 18), angle(0, 2 * std::numbers::pi);
    for (int trial = 0; trial < 500; ++trial) {
        const Vec2 xy(uni(rng), uni(rng));
        auto out = run(floor, Pose{}, sphere, Pose{Vec3(xy.x(), xy.y(), 0.4 - 2e-3), Quat::Identity()});
        ASSERT_EQ(out.size(), 1u) << xy.transpose();
        ASSERT_EQ(out[0].count, 1) << xy.transpose();
        EXPECT_NEAR(out[0].points[0].depth, 2e-3, kExact);
        EXPECT_NEAR((out[0].points[0].position.head<2>() - xy).norm(), 0, kExact);
        // Corner down: tilted 0.2 rad about an axis 0.4 rad off the box's x axis (in the box frame), then
        // yawed.
        const Quat q = about(Vec3::UnitZ(), angle(rng)) * about(Vec3(std::cos(0.4), std::sin(0.4), 0), 0.2);
        const Pose pose{Vec3(xy.x(), xy.y(), 0), q};
        const Vec3 lowest_local = pose.orientation.inverse() * -Vec3::UnitZ();
        const Vec3 corner = Vec3(lowest_local.x() > 0 ? 0.5 : -0.5, lowest_local.y() > 0 ? 0.4 : -0.4,
                                 lowest_local.z() > 0 ? 0.3 : -0.3);
        const Pose placed{Vec3(xy.x(), xy.y(), -(q * corner).z() - 2e-3), q};
        out = run(floor, Pose{}, box, placed);
        ASSERT_EQ(out.size(), 1u) << xy.transpose();
        ASSERT_EQ(out[0].count, 1) << xy.transpose();
        EXPECT_NEAR(out[0].points[0].depth, 2e-3, kExact);
        EXPECT_NEAR((out[0].normal - Vec3::UnitZ()).norm(), 0, kGhost);
    }
}

TEST(MeshCreases, SphereOnAConvexRidgeGetsTheEdgeNormal) {
    // Roof: two faces rising at 30 degrees to a ridge along y at x = 0, z = 0. A sphere centred above the
    // ridge at height d touches the ridge edge only: normal +z, depth r - d.
    const double s = std::tan(std::numbers::pi / 6);
    const ShapePtr roof = make_triangle_mesh({Vec3(-2, -2, -2 * s), Vec3(0, -2, 0), Vec3(0, 2, 0),
                                              Vec3(-2, 2, -2 * s), Vec3(2, -2, -2 * s), Vec3(2, 2, -2 * s)},
                                             {{{0, 1, 2}}, {{0, 2, 3}}, {{1, 4, 5}}, {{1, 5, 2}}});
    const double r = 0.5, d = 0.45;
    const auto out = run(roof, Pose{}, make_sphere(r), Pose{Vec3(0, 0.3, d), Quat::Identity()});
    ASSERT_EQ(out.size(), 1u) << "both ridge triangles give the same edge normal: one patch";
    ASSERT_EQ(out[0].count, 1);
    EXPECT_NEAR((out[0].normal - Vec3::UnitZ()).norm(), 0, kExact);
    EXPECT_NEAR(out[0].points[0].depth, r - d, kExact);
    // Off the ridge over a face: the face normal, depth r - distance to the face plane.
    const Vec3 n(-s, 0, 1);  // left face normal direction (unnormalised): z = s x for x < 0
    const Vec3 c(-1, 0.3, -s + 0.45);
    const auto side = run(roof, Pose{}, make_sphere(r), Pose{c, Quat::Identity()});
    ASSERT_EQ(side.size(), 1u);
    EXPECT_NEAR((side[0].normal - n.normalized()).norm(), 0, kExact);
    EXPECT_NEAR(side[0].points[0].depth, r - n.normalized().dot(c - Vec3(-1, 0, -s)), kExact);
}

TEST(MeshCreases, BoxCornersBeyondAConvexRidgeAreMeasuredWhereTheBoxCrossesTheRidge) {
    // Roof of faces falling at 10 degrees from a ridge along y at x = 0. A tilted box's lowest corner lies
    // beyond the ridge over the right face, 3 mm above it, while the box sinks across the ridge. Measured
    // against the left face's plane, that corner is 4.9 cm deep, yet it is above the ground. What each face
    // holds is the box where it crosses the ridge: one patch per face with one point, at the depth (along the
    // face's normal) of the box's deepest point over the ridge line. Oracle, independent of the contact code:
    // the box's lowest point on the line through each of 100,001 ridge points along the face normal (a
    // ray-box slab test), the largest over y. Tolerance 10 um: the oracle's samples lie 12 um apart along the
    // ridge (the contact's slice search is exact to rounding).
    const double alpha = 10 * std::numbers::pi / 180, s = std::tan(alpha);
    const ShapePtr roof = make_triangle_mesh({Vec3(-2, -2, -2 * s), Vec3(0, -2, 0), Vec3(0, 2, 0),
                                              Vec3(-2, 2, -2 * s), Vec3(2, -2, -2 * s), Vec3(2, 2, -2 * s)},
                                             {{{0, 1, 2}}, {{0, 2, 3}}, {{1, 4, 5}}, {{1, 5, 2}}});
    const Vec3 half(0.5, 0.3, 0.2);
    const Quat q = about(Vec3::UnitZ(), 0.5) * about(Vec3::UnitX(), 0.12) * about(Vec3::UnitY(), 0.1);
    Vec3 lowest = Vec3::Zero();
    for (int k = 0; k < 8; ++k) {
        const Vec3 c = q * Vec3((k & 1) ? half.x() : -half.x(), (k & 2) ? half.y() : -half.y(),
                                (k & 4) ? half.z() : -half.z());
        if (k == 0 || c.z() < lowest.z()) lowest = c;
    }
    const Vec3 corner(0.15, 0.1, -0.15 * s + 0.003);  // 3 mm above the right face
    const Pose pose{corner - lowest, q};
    auto deepest_over_ridge = [&](const Vec3& normal) {
        double deepest = -std::numeric_limits<double>::infinity();
        for (int k = 0; k <= 100000; ++k) {
            const Vec3 on_ridge(0, pose.position.y() - 0.6 + 1.2 * k / 100000.0, 0);
            // The line on_ridge + t * normal in the box's frame: the lowest t inside the box.
            const Vec3 o = pose.inverse().transform_point(on_ridge), d = pose.inverse_rotate(normal);
            double enter = -std::numeric_limits<double>::infinity(), leave = -enter;
            for (int a = 0; a < 3; ++a) {
                const double t1 = (-half[a] - o[a]) / d[a], t2 = (half[a] - o[a]) / d[a];
                enter = std::max(enter, std::min(t1, t2));
                leave = std::min(leave, std::max(t1, t2));
            }
            if (enter <= leave) deepest = std::max(deepest, -enter);
        }
        return deepest;
    };
    const Vec3 left = Vec3(-s, 0, 1).normalized(), right = Vec3(s, 0, 1).normalized();
    const double phantom = -left.dot(corner);
    ASSERT_GT(phantom, 0.04) << "the corner must lie centimetres below the left face's plane";
    const auto out = run(roof, Pose{}, make_box(half), pose);
    ASSERT_EQ(out.size(), 2u);
    for (const Manifold& m : out) {
        const Vec3& n = m.normal.x() < 0 ? left : right;
        const double oracle = deepest_over_ridge(n);
        ASSERT_GT(oracle, 0.002) << "the box must sink across the ridge";
        EXPECT_NEAR((m.normal - n).norm(), 0, kExact);
        ASSERT_EQ(m.count, 1);
        EXPECT_NEAR(m.points[0].depth, oracle, 1e-5)
            << "normal " << n.transpose() << "; the corner against the left face's plane: " << phantom
            << " m";
        EXPECT_NEAR(m.points[0].position.x(), -0.5 * oracle * n.x(), 1e-5)
            << "on the ridge, midway to the box";
    }
    EXPECT_NE(out[0].normal.x() < 0, out[1].normal.x() < 0) << "one patch per face";
}

TEST(MeshCreases, SphereInAConcaveValleyTouchesBothFaces) {
    // Valley: faces z = |x| tan(30 deg). A sphere of radius r centred on the axis at height h touches each
    // face at distance h cos(30 deg): two manifolds with the two face normals, depth r - h cos(30 deg).
    const double s = std::tan(std::numbers::pi / 6);
    const ShapePtr valley = make_triangle_mesh({Vec3(-2, -2, 2 * s), Vec3(0, -2, 0), Vec3(0, 2, 0),
                                                Vec3(-2, 2, 2 * s), Vec3(2, -2, 2 * s), Vec3(2, 2, 2 * s)},
                                               {{{0, 1, 2}}, {{0, 2, 3}}, {{1, 4, 5}}, {{1, 5, 2}}});
    const double r = 0.5, h = 0.55;
    const auto out = run(valley, Pose{}, make_sphere(r), Pose{Vec3(0, 0.2, h), Quat::Identity()});
    ASSERT_EQ(out.size(), 2u);
    const double c30 = std::cos(std::numbers::pi / 6);
    for (const Manifold& m : out) {
        ASSERT_EQ(m.count, 1);
        EXPECT_NEAR(std::abs(m.normal.x()), std::sin(std::numbers::pi / 6), kExact);
        EXPECT_NEAR(m.normal.z(), c30, kExact);
        EXPECT_NEAR(m.points[0].depth, r - h * c30, kExact);
    }
}

TEST(MeshCreases, ShapesEntirelyBehindTheFrontFacesAreIgnored) {
    // A mesh may be open: what lies wholly behind its faces is on the other side.
    const ShapePtr floor = grid_mesh(4, [](double, double) { return 0.0; });
    EXPECT_TRUE(
        run(floor, Pose{}, make_box(Vec3::Constant(0.3)), Pose{Vec3(2, 2, -0.31), Quat::Identity()}).empty());
    EXPECT_TRUE(run(floor, Pose{}, make_sphere(0.3), Pose{Vec3(2, 2, -0.3001), Quat::Identity()}).empty());
}

TEST(MeshCreases, SunkShapesArePushedBackOutThroughTheFace) {
    // Centre behind the floor but the shape still reaching its front side, nothing touching from the front:
    // a body that sank past half its thickness within a step. It gets the face normal, at the depth of its
    // deepest point below the plane (box: 0.29 + 0.3; sphere: 0.1 + 0.3) and, for the box, its four bottom
    // corners.
    const ShapePtr floor = grid_mesh(4, [](double, double) { return 0.0; });
    const Pose box_pose{Vec3(2.2, 1.7, -0.29), about(Vec3::UnitZ(), 0.3)};
    const auto box = run(floor, Pose{}, make_box(Vec3::Constant(0.3)), box_pose, 0.01);
    ASSERT_EQ(box.size(), 1u);
    EXPECT_NEAR((box[0].normal - Vec3::UnitZ()).norm(), 0, kExact);
    ASSERT_EQ(box[0].count, 4);
    for (int i = 0; i < 4; ++i) {
        const ContactPoint& p = box[0].points[static_cast<std::size_t>(i)];
        EXPECT_NEAR(p.depth, 0.59, kExact);
        EXPECT_NEAR(box_pose.inverse_transform_point(p.position).z(), -0.3 + 0.5 * 0.59, kExact);
    }
    const auto sphere = run(floor, Pose{}, make_sphere(0.3), Pose{Vec3(2, 2, -0.1), Quat::Identity()});
    ASSERT_EQ(sphere.size(), 1u);
    EXPECT_NEAR((sphere[0].normal - Vec3::UnitZ()).norm(), 0, kExact);
    ASSERT_EQ(sphere[0].count, 1);
    EXPECT_NEAR(sphere[0].points[0].depth, 0.4, kExact);
}

TEST(MeshCreases, ShapesThatCouldHaveCrossedWithinTheStepAreHeld) {
    // Wholly behind the open floor, but by less than the margin (which includes how far the shape can move in
    // the step): it may have gone through within the step, and is pushed back out. Box top 0.05 below the
    // floor: depth of its bottom 0.65.
    const ShapePtr floor = grid_mesh(4, [](double, double) { return 0.0; });
    const Pose pose{Vec3(2.2, 1.7, -0.35), Quat::Identity()};
    EXPECT_TRUE(run(floor, Pose{}, make_box(Vec3::Constant(0.3)), pose, 0.04).empty());
    const auto out = run(floor, Pose{}, make_box(Vec3::Constant(0.3)), pose, 0.06);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_NEAR((out[0].normal - Vec3::UnitZ()).norm(), 0, kExact);
    ASSERT_EQ(out[0].count, 4);
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(out[0].points[static_cast<std::size_t>(i)].depth, 0.65, kExact);
}

TEST(MeshCreases, ThinClosedSlabGivesNoBackFaceContact) {
    // A closed slab 0.1 thick (top face at z = 0, bottom at -0.1, both facing out). A box pressed 0.15 into
    // the top face reaches through the bottom face's plane: the top face still touches it from the front, so
    // the bottom face (whose plane its centre is behind) adds nothing: one patch, normal +z, depth 0.15.
    const double t = 0.1;
    std::vector<Vec3> v{Vec3(0, 0, 0),  Vec3(4, 0, 0),  Vec3(4, 4, 0),  Vec3(0, 4, 0),
                        Vec3(0, 0, -t), Vec3(4, 0, -t), Vec3(4, 4, -t), Vec3(0, 4, -t)};
    const ShapePtr slab = make_triangle_mesh(v, {{{0, 1, 2}},
                                                 {{0, 2, 3}},
                                                 {{4, 6, 5}},
                                                 {{4, 7, 6}},
                                                 {{0, 4, 5}},
                                                 {{0, 5, 1}},
                                                 {{1, 5, 6}},
                                                 {{1, 6, 2}},
                                                 {{2, 6, 7}},
                                                 {{2, 7, 3}},
                                                 {{3, 7, 4}},
                                                 {{3, 4, 0}}});
    const auto out =
        run(slab, Pose{}, make_box(Vec3(0.5, 0.5, 0.2)), Pose{Vec3(2, 2, 0.05), Quat::Identity()});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_NEAR((out[0].normal - Vec3::UnitZ()).norm(), 0, kExact);
    for (int i = 0; i < out[0].count; ++i)
        EXPECT_NEAR(out[0].points[static_cast<std::size_t>(i)].depth, 0.15, kExact);
}

TEST(MeshContacts, SubIndexIsTheTouchingTriangle) {
    const ShapePtr floor = grid_mesh(4, [](double, double) { return 0.0; });
    // Sphere over the lower-right half of cell (i = 1, j = 2): triangle 2 * (1 * 4 + 2) = 12.
    const auto out = run(make_sphere(0.2), Pose{Vec3(2.7, 1.2, 0.19), Quat::Identity()}, floor, Pose{});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].sub_a, 0u);
    EXPECT_EQ(out[0].sub_b, 12u);
}

TEST(HeightField, SubIndexIsTheTouchingCell) {
    const ShapePtr field = grid_field(4, [](double, double) { return 0.0; });
    // Sphere over cell (row 1, column 2) of a 5 x 5 vertex grid: cell 1 * 4 + 2 = 6 (either triangle).
    for (const Vec2& xy : {Vec2(2.7, 1.2), Vec2(2.2, 1.7)}) {
        const auto out =
            run(make_sphere(0.2), Pose{Vec3(xy.x(), xy.y(), 0.19), Quat::Identity()}, field, Pose{});
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(out[0].sub_b, 6u) << xy.transpose();
    }
}

TEST(HeightField, IsSolidBelowItsSurface) {
    // A height field has no back side: a box wholly below the flat surface (top 0.2 below it) is pushed up
    // along the face normal, at the depth of its bottom (0.5 + 0.3).
    const ShapePtr field = grid_field(4, [](double, double) { return 0.0; });
    const auto out =
        run(field, Pose{}, make_box(Vec3::Constant(0.3)), Pose{Vec3(2.2, 1.7, -0.5), Quat::Identity()});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_NEAR((out[0].normal - Vec3::UnitZ()).norm(), 0, kExact);
    ASSERT_EQ(out[0].count, 4);
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(out[0].points[static_cast<std::size_t>(i)].depth, 0.8, kExact);
}

TEST(HeightField, FlatFieldOnlySeesTheFaceNormal) {
    const ShapePtr field = grid_field(20, [](double, double) { return 0.0; });
    const ShapePtr box = make_box(Vec3(0.7, 0.4, 0.25)), cyl = make_cylinder(0.3, 0.6);
    std::mt19937_64 rng(41);
    std::uniform_real_distribution<double> angle(0, 2 * std::numbers::pi);
    double worst = 0;
    for (const Vec2& xy : floor_positions(rng)) {
        auto out = run(field, Pose{}, box,
                       Pose{Vec3(xy.x(), xy.y(), 0.25 - 1e-3), about(Vec3::UnitZ(), angle(rng))});
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(out[0].count, 4);
        worst = std::max(worst, (out[0].normal - Vec3::UnitZ()).norm());
        const Quat lying = about(Vec3::UnitZ(), angle(rng)) * about(Vec3::UnitX(), std::numbers::pi / 2);
        // The generic path directly (the dispatcher may route cylinders to the analytic terrain algorithm).
        out.clear();
        collide_convex_height_field(*cyl, Pose{Vec3(xy.x(), xy.y(), 0.3 - 1e-3), lying},
                                    std::get<HeightField>(field->geometry), Pose{}, {}, out);
        for (Manifold& m : out)
            m.normal = -m.normal;  // cylinder is A here: make it point up like the box case
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(out[0].count, 2);
        worst = std::max(worst, (out[0].normal - Vec3::UnitZ()).norm());
    }
    EXPECT_LE(worst, kGhost) << "largest deviation " << worst;
}

TEST(HeightField, MatchesTheSameSurfaceAsATriangleMesh) {
    // Bumpy terrain: the height field's cell triangles and edge flags against make_triangle_mesh's.
    auto h = [](double x, double y) { return 0.3 * std::sin(0.9 * x) * std::cos(0.7 * y) + 0.05 * x; };
    const ShapePtr field = grid_field(12, h), mesh = grid_mesh(12, h);
    const TriangleMesh& tm = std::get<TriangleMesh>(mesh->geometry);
    const HeightField& hf = std::get<HeightField>(field->geometry);
    for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 12; ++j)
            for (int half = 0; half < 2; ++half) {
                const MeshTriangle t = height_field_triangle(hf, i, j, half);
                ASSERT_EQ(t.index, static_cast<std::uint32_t>(2 * (i * 12 + j) + half));
                for (int k = 0; k < 3; ++k)
                    EXPECT_EQ(t.v[static_cast<std::size_t>(k)],
                              tm.vertices[tm.triangles[t.index][static_cast<std::size_t>(k)]]);
                EXPECT_NEAR((t.normal - tm.normals[t.index]).norm(), 0, kExact);
                EXPECT_EQ(t.convex_edges, tm.convex_edges[t.index])
                    << "cell " << i << "," << j << " half " << half;
            }
    const std::vector<ShapePtr> shapes = {make_sphere(0.35), make_box(Vec3(0.5, 0.3, 0.2)),
                                          make_capsule(0.2, 0.4), make_cylinder(0.3, 0.25),
                                          make_cone(0.4, 0.3)};
    std::mt19937_64 rng(43);
    std::uniform_real_distribution<double> uni(2, 10);
    std::normal_distribution<double> g;
    int compared = 0;
    for (int trial = 0; trial < 400; ++trial) {
        const ShapePtr& s = shapes[static_cast<std::size_t>(trial) % shapes.size()];
        const double x = uni(rng), y = uni(rng);
        const Pose pose{Vec3(x, y, h(x, y) + 0.25), Quat(g(rng), g(rng), g(rng), g(rng)).normalized()};
        // One manifold per plane; the planes come in traversal order (grid walk vs BVH), so compare them
        // sorted.
        auto by_normal = [](const Manifold& m1, const Manifold& m2) {
            return std::lexicographical_compare(m1.normal.data(), m1.normal.data() + 3, m2.normal.data(),
                                                m2.normal.data() + 3);
        };
        // The generic paths directly: the dispatcher may route cylinders to the analytic terrain algorithm.
        CollideSettings settings;
        settings.margin = 0.02;
        std::vector<Manifold> a, b;
        collide_convex_height_field(*s, pose, hf, Pose{}, settings, a);
        collide_convex_mesh(*s, pose, tm, Pose{}, settings, b);
        std::sort(a.begin(), a.end(), by_normal);
        std::sort(b.begin(), b.end(), by_normal);
        ASSERT_EQ(a.size(), b.size()) << "trial " << trial;
        for (std::size_t k = 0; k < a.size(); ++k) {
            EXPECT_NEAR((a[k].normal - b[k].normal).norm(), 0, kExact) << "trial " << trial;
            ASSERT_EQ(a[k].count, b[k].count) << "trial " << trial;
            for (int i = 0; i < a[k].count; ++i) {
                EXPECT_NEAR((a[k].points[static_cast<std::size_t>(i)].position -
                             b[k].points[static_cast<std::size_t>(i)].position)
                                .norm(),
                            0, kExact);
                EXPECT_NEAR(a[k].points[static_cast<std::size_t>(i)].depth,
                            b[k].points[static_cast<std::size_t>(i)].depth, kExact);
            }
            ++compared;
        }
    }
    EXPECT_GT(compared, 100);
}

// Inside test of a primitive in its local frame (the brute-force oracle below samples the solid).
bool inside_local(const Shape& shape, const Vec3& p) {
    switch (shape.type()) {
        case ShapeType::sphere:
            return p.norm() <= std::get<Sphere>(shape.geometry).radius;
        case ShapeType::box:
            return (p.cwiseAbs() - std::get<Box>(shape.geometry).half_extents).maxCoeff() <= 0;
        case ShapeType::capsule: {
            const Capsule& c = std::get<Capsule>(shape.geometry);
            return (p - Vec3(0, 0, std::clamp(p.z(), -c.half_length, c.half_length))).norm() <= c.radius;
        }
        case ShapeType::cylinder: {
            const Cylinder& c = std::get<Cylinder>(shape.geometry);
            return std::hypot(p.x(), p.y()) <= c.radius && std::abs(p.z()) <= c.half_height;
        }
        case ShapeType::cone: {
            const Cone& c = std::get<Cone>(shape.geometry);
            return p.z() >= -c.half_height && p.z() <= c.half_height &&
                   std::hypot(p.x(), p.y()) <= c.radius * (c.half_height - p.z()) / (2 * c.half_height);
        }
        default:
            return false;
    }
}

TEST(HeightField, NoContactIsMissedOnBumpyTerrain) {
    // Oracle: the largest vertical penetration of the solid below the triangulated terrain, from 40k samples
    // of the solid (a lower bound of the true value). A reported depth along a face normal is the vertical
    // one times the cosine of the slope, so the deepest reported point must reach max_sampled * cos(steepest
    // slope). Shapes clearly above the terrain (vertical clearance over twice the margin, slopes below 60
    // degrees) get nothing.
    auto h = [](double x, double y) { return 0.35 * std::sin(0.9 * x) * std::cos(0.7 * y) + 0.05 * x; };
    const ShapePtr field = grid_field(12, h), mesh = grid_mesh(12, h);
    const HeightField& hf = std::get<HeightField>(field->geometry);
    const TriangleMesh& tm = std::get<TriangleMesh>(mesh->geometry);
    double cos_steepest = 1;
    for (const Vec3& n : tm.normals) cos_steepest = std::min(cos_steepest, n.z());
    auto terrain = [&](double x, double y) {
        const int j = static_cast<int>(std::floor(x)), i = static_cast<int>(std::floor(y));
        const double fx = x - j, fy = y - i;
        const double h00 = hf.height(i, j), h01 = hf.height(i, j + 1), h10 = hf.height(i + 1, j),
                     h11 = hf.height(i + 1, j + 1);
        return fx >= fy ? h00 + fx * (h01 - h00) + fy * (h11 - h01)
                        : h00 + fy * (h10 - h00) + fx * (h11 - h10);
    };
    const std::vector<ShapePtr> shapes = {make_sphere(0.35), make_box(Vec3(0.5, 0.3, 0.2)),
                                          make_capsule(0.2, 0.4), make_cylinder(0.3, 0.25),
                                          make_cone(0.4, 0.3)};
    std::mt19937_64 rng(47);
    std::uniform_real_distribution<double> uni(2, 10), lift(-0.15, 0.35), unit(-1, 1);
    std::normal_distribution<double> g;
    const double margin = 0.01;
    int penetrating = 0, clear = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const ShapePtr& s = shapes[static_cast<std::size_t>(trial) % shapes.size()];
        const double x = uni(rng), y = uni(rng);
        const Pose pose{Vec3(x, y, h(x, y) + 0.3 + lift(rng)),
                        Quat(g(rng), g(rng), g(rng), g(rng)).normalized()};
        const Aabb local = compute_aabb(*s, Pose{});
        double max_pen = -std::numeric_limits<double>::infinity();
        for (int k = 0; k < 40000; ++k) {
            const Vec3 q =
                local.center() + local.half_extents().cwiseProduct(Vec3(unit(rng), unit(rng), unit(rng)));
            if (!inside_local(*s, q)) continue;
            const Vec3 w = pose.transform_point(q);
            max_pen = std::max(max_pen, terrain(w.x(), w.y()) - w.z());
        }
        CollideSettings settings;
        settings.margin = margin;
        for (int path = 0; path < 2; ++path) {
            std::vector<Manifold> out;
            if (path == 0)
                collide_convex_height_field(*s, pose, hf, Pose{}, settings, out);
            else
                collide_convex_mesh(*s, pose, tm, Pose{}, settings, out);
            double deepest = -std::numeric_limits<double>::infinity();
            for (const Manifold& m : out)
                for (int i = 0; i < m.count; ++i)
                    deepest = std::max(deepest, m.points[static_cast<std::size_t>(i)].depth);
            if (max_pen > 1e-3) {
                ++penetrating;
                EXPECT_GE(deepest, max_pen * cos_steepest)
                    << "trial " << trial << " path " << path << " sampled " << max_pen;
            } else if (max_pen < -2 * margin) {
                ++clear;
                EXPECT_TRUE(out.empty())
                    << "trial " << trial << " path " << path << " clearance " << -max_pen;
            }
        }
    }
    EXPECT_GT(penetrating, 150);
    EXPECT_GT(clear, 50);
}

TEST(HeightField, SphereOnASlopeGetsTheSlopeNormal) {
    // Plane z = 0.2 x: normal (-0.2, 0, 1) / |.|; a sphere at distance d from it has depth r - d.
    const ShapePtr field = grid_field(8, [](double x, double) { return 0.2 * x; });
    const Vec3 n = Vec3(-0.2, 0, 1).normalized();
    const double r = 0.4;
    const Vec3 foot(4.3, 3.6, 0.2 * 4.3);
    const auto out = run(field, Pose{}, make_sphere(r), Pose{foot + 0.38 * n, Quat::Identity()});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_NEAR((out[0].normal - n).norm(), 0, kExact);
    EXPECT_NEAR(out[0].points[0].depth, r - 0.38, kExact);
}

TEST(HeightField, NoPatchHoldsOnePointTwice) {
    // The soak's hills (bench_soak.cpp) under a box of the soak's size, lowered at 2,000 random poses until
    // it first touches. Where a grid vertex pokes into the box's bottom face, each of the up to six triangles
    // around it gives that vertex along the face's normal: one patch of copies that differ by rounding
    // (1e-18 to 2e-12 m apart here), which kept the point twice in 2 % of the patches before the weld had
    // a floor relative to the coordinates. Two points of a patch closer than a nanometre are one point (their
    // rows are equal to 1e-8 of the box's size); distinct corners and clip points here lie at least tens of
    // micrometres apart.
    constexpr double kSamePoint = 1e-9;
    const int n = 41;
    std::vector<double> heights;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) heights.push_back(0.3 * std::sin(0.25 * i) * std::cos(0.18 * j));
    const ShapePtr field = make_height_field(Vec2(-5, -5), Vec2(0.25, 0.25), n, n, std::move(heights));
    const ShapePtr box = make_box(Vec3(0.146, 0.286, 0.162));
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> across(-4, 4), angle(-std::numbers::pi, std::numbers::pi),
        tilt(-0.3, 0.3);
    int patches = 0, vertex_patches = 0;
    double closest = std::numeric_limits<double>::infinity();
    for (int trial = 0; trial < 2000; ++trial) {
        const Quat q = about(Vec3::UnitZ(), angle(rng)) * about(Vec3::UnitX(), tilt(rng)) *
                       about(Vec3::UnitY(), tilt(rng));
        const Vec2 xy(across(rng), across(rng));
        auto deepest_at = [&](double z, std::vector<Manifold>& out) {
            out = run(box, Pose{Vec3(xy.x(), xy.y(), z), q}, field, Pose{}, 0.02);
            double deepest = -1;
            for (const Manifold& m : out)
                for (int i = 0; i < m.count; ++i)
                    deepest = std::max(deepest, m.points[static_cast<std::size_t>(i)].depth);
            return deepest;
        };
        std::vector<Manifold> out;
        double z = 0.8;
        while (z > -1 && deepest_at(z, out) <= 0) z -= 0.01;  // first touch within 1 cm, then 0.5 mm
        for (z += 0.01; z > -1; z -= 0.0005) {
            if (deepest_at(z, out) <= 0) continue;
            for (const Manifold& m : out) {
                ++patches;
                vertex_patches += m.count == 1;
                for (int i = 0; i < m.count; ++i)
                    for (int j = 0; j < i; ++j) {
                        const double d = (m.points[static_cast<std::size_t>(i)].position -
                                          m.points[static_cast<std::size_t>(j)].position)
                                             .norm();
                        EXPECT_GT(d, kSamePoint)
                            << "trial " << trial << ": points " << j << " and " << i << " of a patch of "
                            << m.count << " are " << d << " m apart";
                        closest = std::min(closest, d);
                    }
            }
            break;
        }
    }
    EXPECT_GT(patches, 5000);
    EXPECT_GT(vertex_patches, 1000);  // where copies of one point met the weld
    std::printf("%d patches, %d of one point; closest two points of a patch %.3g m apart\n", patches,
                vertex_patches, closest);
}

}  // namespace
}  // namespace simpulse
