// Tests of the narrow-phase dispatch (narrow_phase.h) over every pair of shape types, and of the closed-form
// pairs (convex_pairs.h) and plane contacts (plane_contacts.h): stacked configurations whose contact patch is
// known exactly (normal +z, depth, mid-surface height, points on the patch boundary), the exact swap
// symmetry, closed forms for spheres, capsules and the cylinder cases of the manifold quality bar, and the
// clipped supporting faces of capsules, cylinders and cones on a box or hull face (supporting_face.h).
#include <simpulse/collision/convex_pairs.h>
#include <simpulse/collision/epa.h>
#include <simpulse/collision/narrow_phase.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <random>
#include <string>
#include <vector>

namespace simpulse {
namespace {

// Closed-form pairs compute with a handful of flops on O(1) values: 1e-12. Pairs on the general path take
// their normal from EPA, which stops at a relative gap of 1e-9 (epa.h); the depths and points inherit that
// error times the patch size (< 1), so those checks use 1e-9.
constexpr double kExact = 1e-12;
constexpr double kEpa = 1e-9;

Quat about(const Vec3& axis, double angle) {
    return Quat(Eigen::AngleAxisd(angle, axis.normalized()));
}

// ---- Stacked pairs: L below with its top at z = 0, U above with its bottom at z = gap, both centred on the
// z axis. The patch seen from above is the intersection of L's top feature and U's bottom feature.

enum class Footprint { point, rect, disc, hexagon, unbounded };

struct Region {
    Footprint kind = Footprint::unbounded;
    double a = 0, b = 0;  // rect half sizes, disc radius, hexagon circumradius
    // Signed distance in the plane (> 0 outside); unbounded regions are everywhere inside.
    double sdf(const Vec2& p) const {
        switch (kind) {
            case Footprint::point:
                return p.norm();
            case Footprint::rect: {
                const Vec2 d = p.cwiseAbs() - Vec2(a, b);
                return d.cwiseMax(0.0).norm() + std::min(d.maxCoeff(), 0.0);
            }
            case Footprint::disc:
                return p.norm() - a;
            case Footprint::hexagon: {
                // Vertices at angles k * 60 deg: apothems along 30 + k * 60 deg.
                double d = -std::numeric_limits<double>::infinity();
                for (int k = 0; k < 6; ++k) {
                    const double t = std::numbers::pi / 6 + k * std::numbers::pi / 3;
                    d = std::max(d,
                                 p.dot(Vec2(std::cos(t), std::sin(t))) - a * std::cos(std::numbers::pi / 6));
                }
                return d;
            }
            case Footprint::unbounded:
                return -std::numeric_limits<double>::infinity();
        }
        return 0;
    }
};

struct Placed {
    std::string name;
    ShapePtr shape;
    double top = 0, bottom = 0;  // distance from the origin to the top / bottom surface along z
    Region top_region, bottom_region;
    bool is_static = false;
    bool exact = true;  // handled by closed forms, not by EPA
};

ShapePtr hex_prism(double circumradius, double half_height) {
    std::vector<Vec3> p;
    for (int k = 0; k < 6; ++k)
        for (double z : {-half_height, half_height})
            p.emplace_back(circumradius * std::cos(k * std::numbers::pi / 3),
                           circumradius * std::sin(k * std::numbers::pi / 3), z);
    return make_convex_hull(p);
}

std::vector<Placed> catalogue() {
    std::vector<Placed> c;
    const Region point{Footprint::point}, any{Footprint::unbounded};
    c.push_back({"sphere", make_sphere(0.5), 0.5, 0.5, point, point});
    c.push_back({"box",
                 make_box(Vec3(0.5, 0.4, 0.3)),
                 0.3,
                 0.3,
                 {Footprint::rect, 0.5, 0.4},
                 {Footprint::rect, 0.5, 0.4}});
    c.push_back({"capsule", make_capsule(0.25, 0.3), 0.55, 0.55, point, point});
    c.push_back({"cylinder",
                 make_cylinder(0.3, 0.35),
                 0.35,
                 0.35,
                 {Footprint::disc, 0.3},
                 {Footprint::disc, 0.3},
                 false,
                 false});
    c.push_back({"cone", make_cone(0.5, 0.4), 0.4, 0.4, point, {Footprint::disc, 0.5}, false, false});
    c.push_back(
        {"hull", hex_prism(0.45, 0.35), 0.35, 0.35, {Footprint::hexagon, 0.45}, {Footprint::hexagon, 0.45}});
    c.push_back({"plane", make_plane(Vec3::UnitZ(), 0), 0, 0, any, any, true});
    // A compound whose first child is far away: the touching child is index 1.
    c.push_back({"compound",
                 make_compound({{make_sphere(0.2), Pose{Vec3(5, 5, 5), Quat::Identity()}},
                                {make_box(Vec3(0.5, 0.4, 0.3)), Pose{}}}),
                 0.3,
                 0.3,
                 {Footprint::rect, 0.5, 0.4},
                 {Footprint::rect, 0.5, 0.4}});
    // Flat square [-2, 2]^2 of two triangles whose diagonal runs through the origin.
    c.push_back({"mesh",
                 make_triangle_mesh({Vec3(-2, -2, 0), Vec3(2, -2, 0), Vec3(2, 2, 0), Vec3(-2, 2, 0)},
                                    {{{0, 1, 2}}, {{0, 2, 3}}}),
                 0, 0, any, any, true});
    // Flat 5 x 5 grid over [-2, 2]^2: the origin is a grid vertex.
    c.push_back({"heightfield",
                 make_height_field(Vec2(-2, -2), Vec2(1, 1), 5, 5, std::vector<double>(25, 0.0)), 0, 0, any,
                 any, true});
    return c;
}

// The compound's touching child and the cylinder/cone's disc pairs run the general path somewhere in the
// pair.
bool pair_exact(const Placed& l, const Placed& u) {
    auto exact_shape = [](const Placed& p) { return p.exact || p.is_static; };
    // Cylinder and cone are exact against static shapes (plane: candidate points; mesh: face normal).
    if (l.is_static || u.is_static) return true;
    return exact_shape(l) && exact_shape(u);
}

struct StackCase {
    const Placed* lower;
    const Placed* upper;
    double gap;
};

void check_stack(const Placed& l, const Placed& u, double gap, double margin) {
    const Pose pl{Vec3(0, 0, l.is_static ? 0.0 : -l.top), Quat::Identity()};
    const Pose pu{Vec3(0, 0, gap + u.bottom), Quat::Identity()};
    CollideSettings s;
    s.margin = margin;
    std::vector<Manifold> out;
    const int n = collide(*l.shape, pl, *u.shape, pu, s, out);
    const std::string what = l.name + " under " + u.name + ", gap " + std::to_string(gap);
    if (gap > margin) {
        EXPECT_EQ(n, 0) << what;
        return;
    }
    ASSERT_EQ(n, 1) << what;
    ASSERT_EQ(out.size(), 1u) << what;
    const Manifold& m = out[0];
    const double tol = pair_exact(l, u) ? kExact : kEpa;
    EXPECT_NEAR((m.normal - Vec3::UnitZ()).norm(), 0, tol) << what;
    const bool point_patch =
        l.top_region.kind == Footprint::point || u.bottom_region.kind == Footprint::point;
    EXPECT_EQ(m.count, point_patch ? 1 : 4) << what;
    for (int i = 0; i < m.count; ++i) {
        const ContactPoint& p = m.points[static_cast<std::size_t>(i)];
        EXPECT_NEAR(p.depth, -gap, tol) << what;
        EXPECT_NEAR(p.position.z(), 0.5 * gap, tol) << what;
        const Vec2 xy = p.position.head<2>();
        const double dl = l.top_region.sdf(xy), du = u.bottom_region.sdf(xy);
        if (point_patch) {
            EXPECT_NEAR(xy.norm(), 0, tol) << what;
        } else {
            // Inside both footprints and on the boundary of at least one: a vertex of the clipped patch.
            EXPECT_LE(dl, tol) << what;
            EXPECT_LE(du, tol) << what;
            EXPECT_NEAR(std::max(dl, du), 0, tol) << what << " point " << xy.transpose();
        }
    }
    // Compound: the touching child is index 1 on the compound's side.
    if (l.name == "compound") {
        EXPECT_EQ(m.sub_a, 1u) << what;
    }
    if (u.name == "compound") {
        EXPECT_EQ(m.sub_b, 1u) << what;
    }
}

TEST(Dispatch, EveryPairStackedAtAKnownGap) {
    const std::vector<Placed> c = catalogue();
    int pairs = 0;
    for (const Placed& l : c)
        for (const Placed& u : c) {
            if (u.is_static) continue;  // static shapes only ever lie below
            ++pairs;
            check_stack(l, u, 0.05, 0.1);   // separated, within the margin: speculative
            check_stack(l, u, 0.05, 0.01);  // separated beyond the margin: nothing
            check_stack(l, u, 0.0, 0.0);    // touching
            check_stack(l, u, -0.02, 0.0);  // penetrating
        }
    EXPECT_EQ(pairs, 10 * 7);
}

TEST(Dispatch, SwappingTheShapesFlipsTheNormalAndKeepsEverythingElse) {
    const std::vector<Placed> c = catalogue();
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<double> uni(-1, 1);
    std::normal_distribution<double> g;
    int compared = 0;
    for (const Placed& a : c)
        for (const Placed& b : c) {
            if (a.is_static && b.is_static) continue;
            for (int trial = 0; trial < 20; ++trial) {
                // Random poses near contact (statics stay at the identity).
                const Pose pa = a.is_static ? Pose{}
                                            : Pose{Vec3(0.3 * uni(rng), 0.3 * uni(rng), 0.2 * uni(rng)),
                                                   Quat(g(rng), g(rng), g(rng), g(rng)).normalized()};
                const Pose pb = b.is_static ? Pose{}
                                            : Pose{Vec3(0.3 * uni(rng), 0.3 * uni(rng), 0.5 + 0.3 * uni(rng)),
                                                   Quat(g(rng), g(rng), g(rng), g(rng)).normalized()};
                CollideSettings s;
                s.margin = 0.05;
                std::vector<Manifold> ab, ba;
                const int nab = collide(*a.shape, pa, *b.shape, pb, s, ab);
                const int nba = collide(*b.shape, pb, *a.shape, pa, s, ba);
                ASSERT_EQ(nab, nba) << a.name << "-" << b.name;
                for (int k = 0; k < nab; ++k) {
                    const Manifold& x = ab[static_cast<std::size_t>(k)];
                    const Manifold& y = ba[static_cast<std::size_t>(k)];
                    EXPECT_EQ(x.normal, Vec3(-y.normal)) << a.name << "-" << b.name;
                    EXPECT_EQ(x.sub_a, y.sub_b);
                    EXPECT_EQ(x.sub_b, y.sub_a);
                    ASSERT_EQ(x.count, y.count);
                    for (int i = 0; i < x.count; ++i) {
                        EXPECT_EQ(x.points[static_cast<std::size_t>(i)].position,
                                  y.points[static_cast<std::size_t>(i)].position);
                        EXPECT_EQ(x.points[static_cast<std::size_t>(i)].depth,
                                  y.points[static_cast<std::size_t>(i)].depth);
                        EXPECT_EQ(x.points[static_cast<std::size_t>(i)].id,
                                  y.points[static_cast<std::size_t>(i)].id);
                    }
                    ++compared;
                }
            }
        }
    EXPECT_GT(compared, 300);
}

TEST(Dispatch, ManifoldContractHoldsOnRandomPoses) {
    // Unit normal, at most four points, depth within the margin, for every pair in random near-contact poses.
    const std::vector<Placed> c = catalogue();
    std::mt19937_64 rng(23);
    std::uniform_real_distribution<double> uni(-1, 1);
    std::normal_distribution<double> g;
    for (const Placed& a : c)
        for (const Placed& b : c) {
            if (a.is_static && b.is_static) continue;
            for (int trial = 0; trial < 30; ++trial) {
                const Pose pa = a.is_static ? Pose{}
                                            : Pose{0.4 * Vec3(uni(rng), uni(rng), uni(rng)),
                                                   Quat(g(rng), g(rng), g(rng), g(rng)).normalized()};
                const Pose pb = b.is_static ? Pose{}
                                            : Pose{Vec3(0, 0, 0.6) + 0.4 * Vec3(uni(rng), uni(rng), uni(rng)),
                                                   Quat(g(rng), g(rng), g(rng), g(rng)).normalized()};
                CollideSettings s;
                s.margin = 0.02;
                std::vector<Manifold> out;
                collide(*a.shape, pa, *b.shape, pb, s, out);
                for (const Manifold& m : out) {
                    EXPECT_NEAR(m.normal.norm(), 1, kExact) << a.name << "-" << b.name;
                    EXPECT_GE(m.count, 1);
                    EXPECT_LE(m.count, 4);
                    for (int i = 0; i < m.count; ++i)
                        EXPECT_GE(m.points[static_cast<std::size_t>(i)].depth, -s.margin - kExact);
                }
            }
        }
}

TEST(Dispatch, DeepestPointReachesTheEpaDepthForEveryConvexPair) {
    // EPA (epa.h) is an independent algorithm for the penetration depth d: the overlap along any axis is at
    // least d, and the manifold's deepest point is that overlap along its normal, up to the reduction's tie
    // window of 1e-3 of the patch extent (< 2 here). Separated beyond the margin: no manifold.
    const std::vector<Placed> c = catalogue();
    std::mt19937_64 rng(29);
    std::uniform_real_distribution<double> uni(-1, 1);
    std::normal_distribution<double> g;
    int checked = 0;
    for (const Placed& a : c)
        for (const Placed& b : c) {
            if (!is_convex(a.shape->type()) || !is_convex(b.shape->type())) continue;
            for (int trial = 0; trial < 40; ++trial) {
                const Pose pa{0.3 * Vec3(uni(rng), uni(rng), uni(rng)),
                              Quat(g(rng), g(rng), g(rng), g(rng)).normalized()};
                const Pose pb{Vec3(0, 0, 0.7) + 0.4 * Vec3(uni(rng), uni(rng), uni(rng)),
                              Quat(g(rng), g(rng), g(rng), g(rng)).normalized()};
                const SignedDistanceResult d = signed_distance(*a.shape, pa, *b.shape, pb);
                CollideSettings s;
                s.margin = 0.01;
                std::vector<Manifold> out;
                collide(*a.shape, pa, *b.shape, pb, s, out);
                if (d.distance > s.margin + kEpa) {
                    EXPECT_TRUE(out.empty()) << a.name << "-" << b.name << " distance " << d.distance;
                    continue;
                }
                if (d.distance > -1e-3 || !d.converged) continue;
                ASSERT_EQ(out.size(), 1u) << a.name << "-" << b.name << " depth " << -d.distance;
                double deepest = -1;
                for (int i = 0; i < out[0].count; ++i)
                    deepest = std::max(deepest, out[0].points[static_cast<std::size_t>(i)].depth);
                EXPECT_GE(deepest, -d.distance - 2e-3 - kEpa)
                    << a.name << "-" << b.name << " trial " << trial;
                EXPECT_GT(out[0].normal.dot(d.normal), 0) << a.name << "-" << b.name;
                ++checked;
            }
        }
    EXPECT_GT(checked, 300);
}

TEST(Dispatch, StaticPairsAreNeverCollided) {
    const std::vector<Placed> c = catalogue();
    for (const Placed& a : c)
        for (const Placed& b : c) {
            if (!(a.is_static && b.is_static)) continue;
            std::vector<Manifold> out;
            EXPECT_EQ(collide(*a.shape, Pose{}, *b.shape, Pose{}, {}, out), 0) << a.name << "-" << b.name;
            EXPECT_TRUE(out.empty());
        }
}

// ---- Closed forms of the special pairs.

TEST(SpherePairs, SphereSphereOffAxis) {
    Manifold m;
    const Pose pa{Vec3(1, 2, 3), Quat::Identity()};
    const Vec3 dir = Vec3(1, -2, 2).normalized();
    const Pose pb{pa.position + 0.75 * dir, Quat::Identity()};  // radii 0.5 + 0.4: penetration 0.15
    ASSERT_EQ(collide_sphere_sphere(Sphere{0.5}, pa, Sphere{0.4}, pb, {}, m), 1);
    EXPECT_NEAR((m.normal - dir).norm(), 0, kExact);
    EXPECT_NEAR(m.points[0].depth, 0.15, kExact);
    // Midway between the surface points pa + 0.5 dir and pb - 0.4 dir.
    EXPECT_NEAR((m.points[0].position - (pa.position + 0.5 * (0.5 + 0.35) * dir)).norm(), 0, kExact);
}

TEST(SpherePairs, SphereAgainstBoxFaceEdgeCornerAndInside) {
    const Box box{Vec3(1, 0.5, 0.25)};
    const Pose pb{Vec3(0.2, -0.1, 0.3), about(Vec3(1, 1, 0), 0.4)};
    struct Case {
        Vec3 local_centre;
        Vec3 local_normal;  // from the sphere to the box, in the box frame
        double depth;
    };
    const double r = 0.3;
    const std::vector<Case> cases = {
        {Vec3(0.3, 0.1, 0.25 + 0.2), -Vec3::UnitZ(), 0.1},                                       // face
        {Vec3(1 + 0.1, 0.5 + 0.1, 0.0), -Vec3(1, 1, 0).normalized(), r - 0.1 * std::sqrt(2.0)},  // edge
        {Vec3(1.1, 0.6, 0.35), -Vec3(1, 1, 1).normalized(), r - 0.1 * std::sqrt(3.0)},           // corner
        {Vec3(0.9, 0.0, 0.0), -Vec3::UnitX(), r + 0.1},  // centre inside, nearest face +x
    };
    for (const Case& c : cases) {
        Manifold m;
        const Pose pa{pb.transform_point(c.local_centre), Quat::Identity()};
        ASSERT_EQ(collide_sphere_box(Sphere{r}, pa, box, pb, {}, m), 1);
        EXPECT_NEAR((m.normal - pb.rotate(c.local_normal)).norm(), 0, kExact);
        EXPECT_NEAR(m.points[0].depth, c.depth, kExact);
        // Midway: the box surface point plus half the depth against the normal... i.e. sphere point - depth/2
        // n.
        const Vec3 sphere_point = pa.position + r * m.normal;
        EXPECT_NEAR((m.points[0].position - (sphere_point - 0.5 * c.depth * m.normal)).norm(), 0, kExact);
    }
}

TEST(SpherePairs, SphereAgainstCylinderSideCapRimAndInside) {
    const Cylinder cyl{0.5, 0.4};
    const Pose pb{Vec3(-0.3, 0.2, 1), about(Vec3(0.2, 1, 0.3), 0.7)};
    const double r = 0.2;
    struct Case {
        Vec3 local_centre, local_normal;
        double depth;
    };
    const double c45 = std::sqrt(0.5);
    const std::vector<Case> cases = {
        {Vec3(0.6 * c45, 0.6 * c45, 0.1), -Vec3(c45, c45, 0), 0.1},                      // side
        {Vec3(0.2, -0.1, 0.55), -Vec3::UnitZ(), 0.05},                                   // top cap
        {Vec3(0.6, 0.0, -0.5), -Vec3(1, 0, -1).normalized(), r - 0.1 * std::sqrt(2.0)},  // bottom rim
        {Vec3(0.1, 0.0, 0.35), -Vec3::UnitZ(), r + 0.05},  // inside, nearest the top cap
        {Vec3(0.45, 0.0, 0.0), -Vec3::UnitX(), r + 0.05},  // inside, nearest the side
    };
    for (const Case& c : cases) {
        Manifold m;
        const Pose pa{pb.transform_point(c.local_centre), Quat::Identity()};
        ASSERT_EQ(collide_sphere_cylinder(Sphere{r}, pa, cyl, pb, {}, m), 1);
        EXPECT_NEAR((m.normal - pb.rotate(c.local_normal)).norm(), 0, kExact) << c.local_centre.transpose();
        EXPECT_NEAR(m.points[0].depth, c.depth, kExact) << c.local_centre.transpose();
    }
}

TEST(SpherePairs, SphereAgainstConeSideBaseApexAndRim) {
    const Cone cone{0.5, 0.5};  // apex (0,0,0.5), base radius 0.5 at z = -0.5; side normal (2, 1)/sqrt(5)
    const Pose pb{Vec3(0.1, 0.2, -0.3), about(Vec3(1, 0, 1), 1.1)};
    const double r = 0.1;
    const Vec2 s = Vec2(2, 1).normalized();
    struct Case {
        Vec3 local_centre, local_normal;
        double depth;
    };
    // A point of the side line at mid-height is (0.25, 0); move out along s by 0.05 (depth r - 0.05).
    const Vec2 side = Vec2(0.25, 0) + 0.05 * s;
    const std::vector<Case> cases = {
        {Vec3(side.x(), 0, side.y()), -Vec3(s.x(), 0, s.y()), 0.05},
        {Vec3(0, 0.2, -0.55), Vec3::UnitZ(), 0.05},                                       // under the base
        {Vec3(0, 0, 0.55), -Vec3::UnitZ(), 0.05},                                         // above the apex
        {Vec3(0.55, 0, -0.55), -Vec3(1, 0, -1).normalized(), r - 0.05 * std::sqrt(2.0)},  // beyond the rim
        {Vec3(0, 0.1, -0.45), Vec3::UnitZ(), r + 0.05},  // inside, nearest the base
    };
    for (const Case& c : cases) {
        Manifold m;
        const Pose pa{pb.transform_point(c.local_centre), Quat::Identity()};
        ASSERT_EQ(collide_sphere_cone(Sphere{r}, pa, cone, pb, {}, m), 1);
        EXPECT_NEAR((m.normal - pb.rotate(c.local_normal)).norm(), 0, kExact) << c.local_centre.transpose();
        EXPECT_NEAR(m.points[0].depth, c.depth, kExact) << c.local_centre.transpose();
    }
}

TEST(SpherePairs, SphereAgainstCapsuleAndHull) {
    Manifold m;
    const Pose pc{Vec3(0, 0, 0), about(Vec3::UnitY(), std::numbers::pi / 2)};  // capsule axis along x
    ASSERT_EQ(collide_sphere_capsule(Sphere{0.3}, Pose{Vec3(0.4, 0, 0.5), Quat::Identity()}, Capsule{0.25, 1},
                                     pc, {}, m),
              1);
    EXPECT_NEAR((m.normal + Vec3::UnitZ()).norm(), 0, kExact);
    EXPECT_NEAR(m.points[0].depth, 0.05, kExact);
    ASSERT_EQ(collide_sphere_capsule(Sphere{0.3}, Pose{Vec3(1.3, 0, 0.3), Quat::Identity()}, Capsule{0.25, 1},
                                     pc, {}, m),
              1);
    EXPECT_NEAR((m.normal + Vec3(1, 0, 1).normalized()).norm(), 0, kExact);  // around the end cap
    EXPECT_NEAR(m.points[0].depth, 0.55 - 0.3 * std::sqrt(2.0), kExact);

    const ShapePtr sphere = make_sphere(0.3);
    const ShapePtr hull = hex_prism(0.5, 0.25);
    ASSERT_EQ(collide_sphere_hull(*sphere, Pose{Vec3(0.1, 0.1, 0.5), Quat::Identity()}, *hull, Pose{}, {}, m),
              1);
    EXPECT_NEAR((m.normal + Vec3::UnitZ()).norm(), 0, kExact);
    EXPECT_NEAR(m.points[0].depth, 0.05, kExact);
}

TEST(CapsulePairs, CrossingCapsulesGiveOnePoint) {
    Manifold m;
    const Pose pa{Vec3::Zero(), about(Vec3::UnitY(), std::numbers::pi / 2)};         // along x
    const Pose pb{Vec3(0.2, 0.1, 0.4), about(Vec3::UnitX(), std::numbers::pi / 2)};  // along y, above
    ASSERT_EQ(collide_capsule_capsule(Capsule{0.25, 1}, pa, Capsule{0.2, 1}, pb, {}, m), 1);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR((m.normal - Vec3::UnitZ()).norm(), 0, kExact);
    EXPECT_NEAR(m.points[0].depth, 0.05, kExact);
    EXPECT_NEAR((m.points[0].position - Vec3(0.2, 0, 0.225)).norm(), 0, kExact);
}

TEST(CapsulePairs, ParallelCapsulesGiveTheOverlapEnds) {
    Manifold m;
    const Quat along_x = about(Vec3::UnitY(), std::numbers::pi / 2);
    ASSERT_EQ(collide_capsule_capsule(Capsule{0.25, 1}, Pose{Vec3::Zero(), along_x}, Capsule{0.25, 1},
                                      Pose{Vec3(0.6, 0, 0.45), along_x}, {}, m),
              1);
    ASSERT_EQ(m.count, 2);
    EXPECT_NEAR((m.normal - Vec3::UnitZ()).norm(), 0, kExact);
    std::vector<double> xs;
    for (int i = 0; i < 2; ++i) {
        EXPECT_NEAR(m.points[static_cast<std::size_t>(i)].depth, 0.05, kExact);
        xs.push_back(m.points[static_cast<std::size_t>(i)].position.x());
    }
    std::sort(xs.begin(), xs.end());
    EXPECT_NEAR(xs[0], -0.4, kExact);  // overlap of [-1, 1] and [-0.4, 1.6]
    EXPECT_NEAR(xs[1], 1.0, kExact);
}

TEST(CapsulePairs, EndOnSideIsOnePointAtTheEnd) {
    // A vertical capsule standing on a horizontal one: the vertical core is parallel to the normal, so its
    // feature is its lower end (not the whole segment).
    Manifold m;
    const Pose pa{Vec3::Zero(), about(Vec3::UnitY(), std::numbers::pi / 2)};
    ASSERT_EQ(collide_capsule_capsule(Capsule{0.25, 1}, pa, Capsule{0.2, 0.5},
                                      Pose{Vec3(0.3, 0, 0.9), Quat::Identity()}, {}, m),
              1);
    ASSERT_EQ(m.count, 1);
    EXPECT_NEAR(m.points[0].depth, 0.05, kExact);
    EXPECT_NEAR((m.points[0].position - Vec3(0.3, 0, 0.225)).norm(), 0, kExact);
}

// ---- Quality-bar cases for cylinders.

std::vector<Manifold> run(const ShapePtr& a, const Pose& pa, const ShapePtr& b, const Pose& pb,
                          double margin = 0) {
    CollideSettings s;
    s.margin = margin;
    std::vector<Manifold> out;
    collide(*a, pa, *b, pb, s, out);
    return out;
}

TEST(CylinderContacts, StandingOnAPlaneGivesRimPointsAtEqualDepth) {
    const ShapePtr plane = make_plane(Vec3::UnitZ(), 0), cyl = make_cylinder(0.4, 0.5);
    const auto out = run(plane, Pose{}, cyl, Pose{Vec3(1, 2, 0.5 - 0.01), about(Vec3::UnitZ(), 0.3)});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].count, 4);
    for (int i = 0; i < 4; ++i) {
        const ContactPoint& p = out[0].points[static_cast<std::size_t>(i)];
        EXPECT_NEAR(p.depth, 0.01, kExact);
        EXPECT_NEAR((p.position.head<2>() - Vec2(1, 2)).norm(), 0.4, kExact) << "on the rim";
    }
}

TEST(CylinderContacts, TiltedOnAPlaneGivesItsLowestRimPoint) {
    const ShapePtr plane = make_plane(Vec3::UnitZ(), 0), cyl = make_cylinder(0.4, 0.5);
    const double tilt = 0.2, depth = 0.01;
    // Lowest rim point: centre - 0.5 axis - 0.4 w, height 0.5 cos(tilt) + 0.4 sin(tilt) below the centre.
    const Quat q = about(Vec3::UnitY(), tilt);
    const double h = 0.5 * std::cos(tilt) + 0.4 * std::sin(tilt);
    const auto out = run(plane, Pose{}, cyl, Pose{Vec3(0, 0, h - depth), q});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].count, 1);
    EXPECT_NEAR(out[0].points[0].depth, depth, kExact);
    const Vec3 lowest = Vec3(0, 0, h - depth) + q * Vec3(0.4, 0, -0.5);
    EXPECT_NEAR((out[0].points[0].position - (lowest + Vec3(0, 0, 0.5 * depth))).norm(), 0, kExact);
}

TEST(CylinderContacts, LyingOnABoxFaceGivesTwoPointsAlongTheLine) {
    const ShapePtr box = make_box(Vec3(2, 2, 0.5)), cyl = make_cylinder(0.3, 0.6);
    const Quat lying = about(Vec3::UnitX(), std::numbers::pi / 2);  // axis along y
    const auto out = run(box, Pose{}, cyl, Pose{Vec3(0.2, 0.1, 0.5 + 0.3 - 0.01), lying});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].count, 2);
    EXPECT_NEAR((out[0].normal - Vec3::UnitZ()).norm(), 0, kEpa);
    std::vector<double> ys;
    for (int i = 0; i < 2; ++i) {
        const ContactPoint& p = out[0].points[static_cast<std::size_t>(i)];
        EXPECT_NEAR(p.depth, 0.01, kEpa);
        EXPECT_NEAR(p.position.x(), 0.2, kEpa);
        EXPECT_NEAR(p.position.z(), 0.5 - 0.005, kEpa);
        ys.push_back(p.position.y());
    }
    std::sort(ys.begin(), ys.end());
    EXPECT_NEAR(ys[0], 0.1 - 0.6, kEpa);
    EXPECT_NEAR(ys[1], 0.1 + 0.6, kEpa);
}

TEST(CylinderContacts, TiltedOnABoxFaceGivesOnePoint) {
    const ShapePtr box = make_box(Vec3(2, 2, 0.5)), cyl = make_cylinder(0.4, 0.5);
    const double tilt = 0.2, depth = 0.01;
    const Quat q = about(Vec3::UnitY(), tilt);
    const double h = 0.5 * std::cos(tilt) + 0.4 * std::sin(tilt);
    const auto out = run(box, Pose{}, cyl, Pose{Vec3(0, 0, 0.5 + h - depth), q});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].count, 1);
    EXPECT_NEAR(out[0].points[0].depth, depth, kEpa);
    const Vec3 lowest = Vec3(0, 0, 0.5 + h - depth) + q * Vec3(0.4, 0, -0.5);
    EXPECT_NEAR((out[0].points[0].position - (lowest + Vec3(0, 0, 0.5 * depth))).norm(), 0, kEpa);
}

TEST(CylinderContacts, CoaxialStackGivesRimPoints) {
    const ShapePtr lower = make_cylinder(0.5, 0.3), upper = make_cylinder(0.35, 0.2);
    const auto out =
        run(lower, Pose{}, upper, Pose{Vec3(0, 0, 0.3 + 0.2 - 0.004), about(Vec3::UnitZ(), 0.9)});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].count, 4);
    EXPECT_NEAR((out[0].normal - Vec3::UnitZ()).norm(), 0, kEpa);
    for (int i = 0; i < 4; ++i) {
        EXPECT_NEAR(out[0].points[static_cast<std::size_t>(i)].depth, 0.004, kEpa);
        EXPECT_NEAR(out[0].points[static_cast<std::size_t>(i)].position.head<2>().norm(), 0.35, kEpa)
            << "on the smaller rim";
    }
}

TEST(CylinderContacts, CapsuleLyingOnABoxGivesTwoPointsAndTiltedOne) {
    const ShapePtr box = make_box(Vec3(2, 2, 0.5)), cap = make_capsule(0.2, 0.5);
    const Quat lying = about(Vec3::UnitY(), std::numbers::pi / 2);
    auto out = run(box, Pose{}, cap, Pose{Vec3(0, 0, 0.5 + 0.2 - 0.01), lying});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].count, 2);
    for (int i = 0; i < out[0].count; ++i)
        EXPECT_NEAR(out[0].points[static_cast<std::size_t>(i)].depth, 0.01, kEpa);
    const Quat tilted = about(Vec3::UnitY(), std::numbers::pi / 2 - 0.3);
    out = run(box, Pose{}, cap, Pose{Vec3(0, 0, 0.5 + 0.2 + 0.5 * std::sin(0.3) - 0.01), tilted});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].count, 1);
    EXPECT_NEAR(out[0].points[0].depth, 0.01, kEpa);
}

// ---- Capsules, cylinders and cones on a box face: the reference face clips the round shape's supporting
// face (a capsule's core segment, a cylinder's side line or cap, a cone's generator or base), so a body lying
// nearly flat gets a point at each end even when it is tilted beyond the axis-rotation cone (0.02 rad), with
// each point at its own depth. Shapes of the stress finding bench/stress_findings/capsule_box_embedded.json:
// radius 3 mm, segment 0.1 m, on a 10 m box whose top is z = 0.

// Orientation taking the local z axis to (cos(tilt) cos(yaw), cos(tilt) sin(yaw), sin(tilt)).
Quat axis_towards(double yaw, double tilt) {
    const Vec3 d(std::cos(tilt) * std::cos(yaw), std::cos(tilt) * std::sin(yaw), std::sin(tilt));
    return Quat::FromTwoVectors(Vec3::UnitZ(), d);
}

// The manifold has a point over `lowest`, a point of the shape below the face z = 0: midway between it and
// the face, at its depth -lowest.z().
void expect_point_over(const Manifold& m, const Vec3& lowest, const std::string& what = "") {
    const double depth = -lowest.z();
    const Vec3 expected(lowest.x(), lowest.y(), -0.5 * depth);
    double error = std::numeric_limits<double>::infinity(), depth_error = 0;
    for (int i = 0; i < m.count; ++i) {
        const ContactPoint& p = m.points[static_cast<std::size_t>(i)];
        if ((p.position - expected).norm() < error)
            error = (p.position - expected).norm(), depth_error = p.depth - depth;
    }
    EXPECT_LT(error, kEpa) << what << ": no point over " << lowest.transpose();
    EXPECT_NEAR(depth_error, 0, kEpa) << what << ": closed-form depth " << depth << " m";
}

// Four points of a cap's rim (centre `base`, radius r, normal `axis`), the cap tilted by `tilt` from the face
// z = 0 with its lowest rim point, towards `lowest_dir`, at `depth`: each at r (1 - cos phi) sin(tilt) above
// that one, phi its angle from it.
void expect_rim_points(const Manifold& m, const Vec3& base, const Vec3& axis, const Vec3& lowest_dir,
                       double r, double depth, double tilt) {
    EXPECT_NEAR((m.normal - Vec3::UnitZ()).norm(), 0, kEpa);
    ASSERT_EQ(m.count, 4);
    for (int i = 0; i < 4; ++i) {
        const ContactPoint& p = m.points[static_cast<std::size_t>(i)];
        const Vec3 surface = p.position - 0.5 * p.depth * Vec3::UnitZ();  // the round shape's point
        const Vec3 radial = (surface - base) - (surface - base).dot(axis) * axis;
        EXPECT_NEAR((surface - base).dot(axis), 0, kEpa) << "point " << i << " off the cap plane";
        EXPECT_NEAR(radial.norm(), r, kEpa) << "point " << i << " off the rim";
        const double expected = depth - r * (1 - radial.normalized().dot(lowest_dir)) * std::sin(tilt);
        EXPECT_NEAR(p.depth - expected, 0, kEpa) << "point " << i << ": depth " << p.depth << " m";
    }
}

// A capsule of radius r whose lower core end is `depth - r` below the face of a box with its top at z = 0,
// tilted by `tilt` from the face: the ends are at depths `depth` and `depth - 2 h sin(tilt)`.
TEST(FaceClipping, CapsuleOnABoxFaceGivesBothEndsAtTheirDepths) {
    const double r = 0.003, h = 0.05, margin = 0.002;
    const ShapePtr box = make_box(Vec3(5, 5, 0.5)), cap = make_capsule(r, h);
    const Pose ground{Vec3(0, 0, -0.5), Quat::Identity()};
    struct Case {
        double depth, tilt;
    };
    // Shallow (1 mm of the 3 mm radius), sunk 2.5 mm (the core 0.5 mm above the face) and 5 mm (the core
    // itself 2 mm inside the box: EPA), each tilted beyond the axis-rotation cone.
    for (const Case c : {Case{0.001, 0.025}, Case{0.0025, 0.026}, Case{0.005, 0.035}, Case{0.005, 0.0}}) {
        const Quat q = axis_towards(std::numbers::pi / 4, c.tilt);
        const Vec3 axis = q * Vec3::UnitZ();
        const Vec3 centre = Vec3(0.01, 0.02, r - c.depth) + h * axis;  // lower end at z = r - depth
        const Vec3 ends[2] = {centre - h * axis, centre + h * axis};
        const auto out = run(box, ground, cap, Pose{centre, q}, margin);
        const std::string what = "depth " + std::to_string(c.depth) + " tilt " + std::to_string(c.tilt);
        ASSERT_EQ(out.size(), 1u) << what;
        const Manifold& m = out[0];
        EXPECT_NEAR((m.normal - Vec3::UnitZ()).norm(), 0, kEpa) << what;
        ASSERT_EQ(m.count, 2) << what << ": the far end, at depth " << c.depth - 2 * h * std::sin(c.tilt)
                              << " m, is within the margin " << margin << " m";
        for (const Vec3& end : ends) expect_point_over(m, end - r * Vec3::UnitZ(), what);
    }
}

// Steeper than the margin allows: the far end stays out, the near end is the single point.
TEST(FaceClipping, CapsuleTiltedBeyondTheMarginKeepsOnlyItsLowerEnd) {
    const double r = 0.003, h = 0.05, margin = 0.002, depth = 0.001, tilt = 0.1;
    const ShapePtr box = make_box(Vec3(5, 5, 0.5)), cap = make_capsule(r, h);
    const Quat q = axis_towards(0.3, tilt);
    const Vec3 axis = q * Vec3::UnitZ();
    const Vec3 lower(0.2, -0.1, r - depth);
    const auto out =
        run(box, Pose{Vec3(0, 0, -0.5), Quat::Identity()}, cap, Pose{lower + h * axis, q}, margin);
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].count, 1) << "far end at depth " << depth - 2 * h * std::sin(tilt) << " m";
    EXPECT_NEAR(out[0].points[0].depth, depth, kEpa);
    EXPECT_NEAR((out[0].points[0].position - Vec3(lower.x(), lower.y(), -0.5 * depth)).norm(), 0, kEpa);
}

// A cylinder on its side, tilted 2 degrees along its axis: the side line's two ends, the lower one at the
// given depth and the upper one 2 h sin(tilt) higher, both within the margin.
TEST(FaceClipping, CylinderLyingOnItsSideGivesBothEndsOfTheLine) {
    const double r = 0.003, h = 0.05, margin = 0.005, depth = 0.0005, tilt = 0.035;
    const ShapePtr box = make_box(Vec3(5, 5, 0.5)), cyl = make_cylinder(r, h);
    const Quat q = axis_towards(-0.4, tilt);
    const Vec3 axis = q * Vec3::UnitZ();
    // The side line touching the face runs along the axis at r below it, perpendicular to the axis in the
    // vertical plane through it.
    const Vec3 down = (axis * axis.z() - Vec3::UnitZ()).normalized();
    const Vec3 lower_rim(0.1, 0.3, -depth);  // lower end of the side line
    const Vec3 centre = lower_rim - r * down + h * axis;
    const auto out = run(box, Pose{Vec3(0, 0, -0.5), Quat::Identity()}, cyl, Pose{centre, q}, margin);
    ASSERT_EQ(out.size(), 1u);
    const Manifold& m = out[0];
    EXPECT_NEAR((m.normal - Vec3::UnitZ()).norm(), 0, kEpa);
    ASSERT_EQ(m.count, 2);
    for (const Vec3& end : {lower_rim, Vec3(lower_rim + 2 * h * axis)}) expect_point_over(m, end);
}

// A cone (apex at +h, base radius r at -h) lying on its side, its touching generator tilted 2 degrees up
// towards the apex: the generator's ends (the rim point and the apex) at their closed-form depths. The axis
// (base centre to apex) points a half-angle alpha (tan alpha = r / 2h) below the generator, in its vertical
// plane, so the base stands raised over the rim point.
TEST(FaceClipping, ConeLyingOnItsSideGivesTheRimPointAndTheApex) {
    const double r = 0.02, h = 0.05, margin = 0.005, depth = 0.001, tilt = 0.035;
    const ShapePtr box = make_box(Vec3(5, 5, 0.5)), cone = make_cone(r, h);
    const double length = std::hypot(r, 2 * h), alpha = std::atan2(r, 2 * h);
    const Vec3 g = axis_towards(0.7, tilt) * Vec3::UnitZ();  // along the generator, rim to apex
    const Vec3 up = (Vec3::UnitZ() - g.z() * g).normalized();
    const Vec3 axis = std::cos(alpha) * g - std::sin(alpha) * up;
    const Vec3 rim(-0.1, 0.2, -depth), apex = rim + length * g;
    const Vec3 centre = apex - h * axis;
    const auto out = run(box, Pose{Vec3(0, 0, -0.5), Quat::Identity()}, cone,
                         Pose{centre, Quat::FromTwoVectors(Vec3::UnitZ(), axis)}, margin);
    ASSERT_EQ(out.size(), 1u);
    const Manifold& m = out[0];
    EXPECT_NEAR((m.normal - Vec3::UnitZ()).norm(), 0, kEpa);
    ASSERT_EQ(m.count, 2) << "the apex, at depth " << depth - length * std::sin(tilt)
                          << " m, is within the margin";
    for (const Vec3& end : {rim, apex}) expect_point_over(m, end);
}

// A cone standing on its base, tilted 2 degrees: four rim points, as the cylinder's cap below.
TEST(FaceClipping, ConeStandingOnATiltedBaseGivesFourRimPoints) {
    const double r = 0.3, h = 0.4, margin = 0.05, depth = 0.002, tilt = 0.035;
    const ShapePtr box = make_box(Vec3(2, 2, 0.5)), cone = make_cone(r, h);
    const Quat q = about(Vec3(2, -1, 0), tilt) * about(Vec3::UnitZ(), 1.1);
    const Vec3 axis = q * Vec3::UnitZ();
    const Vec3 w = (-Vec3::UnitZ() - (-axis.z()) * axis).normalized();  // towards the lowest rim point
    const Vec3 centre = Vec3(-0.3, 0.1, 0.0) - r * w + h * axis - Vec3(0, 0, depth);
    const Vec3 base = centre - h * axis;
    const auto out = run(box, Pose{Vec3(0, 0, -0.5), Quat::Identity()}, cone, Pose{centre, q}, margin);
    ASSERT_EQ(out.size(), 1u);
    expect_rim_points(out[0], base, axis, w, r, depth, tilt);
}

// A cylinder standing on its cap, tilted 2 degrees: four points of the rim within the margin, each at the
// depth of its angle phi from the lowest rim point, r (1 - cos phi) sin(tilt) above it.
TEST(FaceClipping, CylinderStandingOnATiltedCapGivesFourRimPoints) {
    const double r = 0.4, h = 0.5, margin = 0.05, depth = 0.002, tilt = 0.035;
    const ShapePtr box = make_box(Vec3(2, 2, 0.5)), cyl = make_cylinder(r, h);
    const Quat q = about(Vec3(1, 2, 0), tilt) * about(Vec3::UnitZ(), 0.4);
    const Vec3 axis = q * Vec3::UnitZ();
    const Vec3 w = (-Vec3::UnitZ() - (-axis.z()) * axis).normalized();  // towards the lowest rim point
    const Vec3 centre = Vec3(0.1, -0.2, 0.0) - r * w + h * axis - Vec3(0, 0, depth);
    const Vec3 base = centre - h * axis;
    const auto out = run(box, Pose{Vec3(0, 0, -0.5), Quat::Identity()}, cyl, Pose{centre, q}, margin);
    ASSERT_EQ(out.size(), 1u);
    const Manifold& m = out[0];
    expect_rim_points(m, base, axis, w, r, depth, tilt);
    double deepest = -1;
    for (int i = 0; i < m.count; ++i)
        deepest = std::max(deepest, m.points[static_cast<std::size_t>(i)].depth);
    // The reduction keeps the deepest candidate up to its tie window, 1e-3 of the patch extent (2 r), and
    // among near-ties the point farthest out (manifold_reduction.h).
    EXPECT_GE(deepest, depth - 1e-3 * 2 * r)
        << "deepest kept point " << depth - deepest << " m above the lowest";
}

// The same clipping against a convex hull of the box's corners (the narrow phase's other table entries), and
// with the shapes swapped: the contract of narrow_phase.cpp, the normal flipped and the points, depths and
// ids kept bit for bit.
TEST(FaceClipping, HullsClipLikeBoxesAndSwappedShapesFlipOnlyTheNormal) {
    const ShapePtr box = make_box(Vec3(2, 2, 0.5));
    std::vector<Vec3> corners;
    for (int k = 0; k < 8; ++k) corners.emplace_back(k & 1 ? 2 : -2, k & 2 ? 2 : -2, k & 4 ? 0.5 : -0.5);
    const ShapePtr hull = make_convex_hull(corners);
    const Pose ground{Vec3(0, 0, -0.5), Quat::Identity()};
    struct Case {
        const char* name;
        ShapePtr shape;
        Pose pose;
    };
    const Quat lying = axis_towards(0.3, 0.03);
    const Case cases[] = {
        {"capsule", make_capsule(0.003, 0.05),
         Pose{Vec3(0.1, 0.2, 0.002) + 0.05 * (lying * Vec3::UnitZ()), lying}},
        {"cylinder", make_cylinder(0.3, 0.4), Pose{Vec3(-0.2, 0.1, 0.398), about(Vec3(1, 2, 0), 0.03)}},
        {"cone", make_cone(0.3, 0.4), Pose{Vec3(0.2, -0.1, 0.398), about(Vec3(2, -1, 0), 0.03)}},
    };
    const double margin = 0.05;
    for (const Case& c : cases) {
        const auto on_box = run(box, ground, c.shape, c.pose, margin);
        const auto on_hull = run(hull, ground, c.shape, c.pose, margin);
        const auto swapped = run(c.shape, c.pose, box, ground, margin);
        ASSERT_EQ(on_box.size(), 1u) << c.name;
        ASSERT_EQ(on_hull.size(), 1u) << c.name;
        ASSERT_EQ(swapped.size(), 1u) << c.name;
        const Manifold &b = on_box[0], &h = on_hull[0], &w = swapped[0];
        EXPECT_GE(b.count, 2) << c.name << ": a flat-lying shape gets more than its lowest point";
        ASSERT_EQ(h.count, b.count) << c.name;
        EXPECT_NEAR((h.normal - b.normal).norm(), 0, kEpa) << c.name;
        ASSERT_EQ(w.count, b.count) << c.name;
        EXPECT_EQ(w.normal, Vec3(-b.normal)) << c.name;
        for (int i = 0; i < b.count; ++i) {
            const auto k = static_cast<std::size_t>(i);
            // Hull and box differ only by GJK/EPA's rounding on another support function.
            double nearest = std::numeric_limits<double>::infinity(), depth_gap = 0;
            for (int j = 0; j < h.count; ++j) {
                const ContactPoint& p = h.points[static_cast<std::size_t>(j)];
                if ((p.position - b.points[k].position).norm() < nearest)
                    nearest = (p.position - b.points[k].position).norm(),
                    depth_gap = p.depth - b.points[k].depth;
            }
            EXPECT_LT(nearest, kEpa) << c.name << ": box point " << i << " not in the hull's manifold";
            EXPECT_NEAR(depth_gap, 0, kEpa) << c.name << " point " << i;
            EXPECT_EQ(w.points[k].position, b.points[k].position) << c.name << " point " << i;
            EXPECT_EQ(w.points[k].depth, b.points[k].depth) << c.name << " point " << i;
            EXPECT_EQ(w.points[k].id, b.points[k].id) << c.name << " point " << i;
        }
    }
}

}  // namespace
}  // namespace simpulse
