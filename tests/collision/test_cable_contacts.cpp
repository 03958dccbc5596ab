// Layer 3 of the cable seed (SEEDS.md section 4) and cable against cable: the layered contacts of random
// segments with every shape type against a dense-sampling oracle (the ball distance at N values of u), a
// straight cable against a box as a capsule, a cable resting on a plane, crossing and parallel cables.
//
// Oracle tolerance: the ball's signed distance to a shape is 1-Lipschitz in the centre, so along u it moves
// at most max|c'| per unit of u; the best of N+1 evenly spaced samples is therefore above the true minimum
// by at most max|c'| / (2N). The layered minimum is a distance actually evaluated at some u, so it cannot be
// below the true minimum (up to the distance query's own error, 1e-9 here); and it must not be above the
// sampled minimum (it must find the deepest point at least as well as the samples).
#include <simpulse/collision/cable_contacts.h>
#include <simpulse/collision/epa.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace simpulse {
namespace {

constexpr int kSamples = 4000;
constexpr double kQueryError = 1e-9;  // signed_distance / GJK accuracy at these sizes (gjk.h, epa.h)

struct NamedShape {
    std::string name;
    ShapePtr shape;
};

std::vector<NamedShape> every_shape_type() {
    std::vector<NamedShape> shapes;
    shapes.push_back({"sphere", make_sphere(0.6)});
    shapes.push_back({"box", make_box(Vec3(0.7, 0.4, 0.3))});
    shapes.push_back({"capsule", make_capsule(0.3, 0.5)});
    shapes.push_back({"cylinder", make_cylinder(0.4, 0.5)});
    shapes.push_back({"cone", make_cone(0.5, 0.5)});
    const std::vector<Vec3> hull_points{Vec3(0.6, 0, 0), Vec3(-0.4, 0.5, 0.1), Vec3(-0.3, -0.5, 0.2),
                                        Vec3(0, 0, 0.7), Vec3(0.1, 0.1, -0.6), Vec3(0.3, -0.3, 0.4)};
    shapes.push_back({"convex_hull", make_convex_hull(hull_points)});
    shapes.push_back({"plane", make_plane(Vec3(0.1, -0.2, 1), -0.2)});
    shapes.push_back(
        {"compound", make_compound({{make_box(Vec3(0.5, 0.2, 0.2)), Pose{}},
                                    {make_sphere(0.3), Pose{Vec3(0.6, 0.3, 0), Quat::Identity()}}})});
    // A tent of four triangles (an open mesh with a ridge: convex and boundary edges).
    shapes.push_back({"triangle_mesh", make_triangle_mesh({Vec3(-1, -1, 0), Vec3(1, -1, 0), Vec3(1, 1, 0),
                                                           Vec3(-1, 1, 0), Vec3(0, 0, 0.5)},
                                                          {{0, 1, 4}, {1, 2, 4}, {2, 3, 4}, {3, 0, 4}})});
    std::vector<double> heights;
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> h(-0.2, 0.2);
    for (int i = 0; i < 25; ++i) heights.push_back(h(rng));
    shapes.push_back(
        {"height_field", make_height_field(Vec2(-1, -1), Vec2(0.5, 0.5), 5, 5, std::move(heights))});
    shapes.push_back({"prism", make_prism({{Vec2(-0.6, -0.6), Vec2(0.6, -0.6), Vec2(0.6, 0.6), Vec2(0.2, 0.6),
                                            Vec2(0.2, -0.2), Vec2(-0.6, -0.2)}},
                                          0.4, 0)});
    return shapes;
}

double sampled_minimum(const CableSegment& s, const Shape& shape, const Pose& pose) {
    double best = std::numeric_limits<double>::infinity();
    for (int k = 0; k <= kSamples; ++k)
        best = std::min(
            best, ball_shape_distance(shape, pose, cable_point(s, double(k) / kSamples), s.radius).distance);
    return best;
}

CableSegment random_segment_near(std::mt19937& rng) {
    std::uniform_real_distribution<double> x(-1.2, 1.2), r(0.03, 0.2);
    CableSegment s;
    for (Vec3& p : s.control) p = Vec3(x(rng), x(rng), x(rng));
    s.radius = r(rng);
    return s;
}

TEST(CableContacts, EveryShapeTypeAgainstDenseSampling) {
    CableCollideSettings settings;
    settings.margin = 0.2;
    const Pose pose{Vec3(0.1, -0.05, 0.02), Quat(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized()))};
    for (const NamedShape& named : every_shape_type()) {
        std::mt19937 rng(12);
        int with_contact = 0;
        for (int trial = 0; trial < 100; ++trial) {
            const CableSegment s = random_segment_near(rng);
            const double sampled = sampled_minimum(s, *named.shape, pose);
            const double sampling_error = cable_speed_bound(s) / (2.0 * kSamples);
            CableContacts contacts;
            collide_cable_shape(s, *named.shape, pose, settings, contacts);
            double layered = std::numeric_limits<double>::infinity();
            for (int i = 0; i < contacts.count; ++i) {
                const CableContact& c = contacts.items[i];
                layered = std::min(layered, -c.depth);
                // The output is consistent: point = c(u), weights = basis(u), depth = -ball distance at u.
                EXPECT_LT((c.point - cable_point(s, c.u)).norm(), 1e-12);
                const BallDistance at_u = ball_shape_distance(*named.shape, pose, c.point, s.radius);
                // Compounds, meshes and height fields report per child or triangle: the whole shape's
                // distance at u may be smaller (another child or triangle is nearer there).
                if (is_convex(named.shape->type()) || named.name == "plane") {
                    EXPECT_NEAR(-c.depth, at_u.distance, kQueryError) << named.name;
                } else {
                    EXPECT_GE(-c.depth, at_u.distance - kQueryError) << named.name;
                }
                EXPECT_NEAR(c.normal.norm(), 1.0, 1e-9) << named.name;
                EXPECT_LE(-c.depth, settings.margin + kQueryError) << named.name;
            }
            const std::string where = named.name + " trial " + std::to_string(trial) + ": sampled " +
                                      std::to_string(sampled) + ", layered " + std::to_string(layered) +
                                      ", sampling error bound " + std::to_string(sampling_error);
            if (sampled <= settings.margin - kQueryError) {
                ++with_contact;
                ASSERT_GT(contacts.count, 0) << where;
                EXPECT_LE(layered, sampled + kQueryError) << where << ", excess " << layered - sampled;
                EXPECT_GE(layered, sampled - sampling_error - kQueryError)
                    << where << ", deficit " << sampled - layered;
            } else if (sampled - sampling_error > settings.margin + kQueryError) {
                EXPECT_EQ(contacts.count, 0) << where;
            }
        }
        EXPECT_GE(with_contact, 10) << named.name << ": too few segments near the shape to test anything";
    }
}

TEST(CableContacts, StraightCableAgainstABoxIsACapsule) {
    std::mt19937 rng(13);
    std::uniform_real_distribution<double> x(-1, 1), t(0, 1);
    const ShapePtr box = make_box(Vec3(0.5, 0.3, 0.2));
    const Pose box_pose{Vec3(0.05, 0, 0), Quat(Eigen::AngleAxisd(0.3, Vec3(0, 1, 1).normalized()))};
    CableCollideSettings settings;
    settings.margin = 0.3;
    int compared = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const Vec3 a(x(rng), x(rng), x(rng)), b(x(rng), x(rng), x(rng));
        CableSegment s;
        s.radius = 0.1;
        // Collinear control points, unevenly spaced: the centreline is the straight piece c(0)..c(1).
        s.control = {a, a + t(rng) * 0.3 * (b - a), a + (0.4 + t(rng) * 0.3) * (b - a), b};
        const Vec3 p0 = cable_point(s, 0), p1 = cable_point(s, 1);
        Shape capsule;
        capsule.geometry = Capsule{s.radius, 0.5 * (p1 - p0).norm()};
        const Pose capsule_pose{0.5 * (p0 + p1), Quat::FromTwoVectors(Vec3::UnitZ(), p1 - p0)};
        const double expected = signed_distance(*box, box_pose, capsule, capsule_pose).distance;
        CableContacts contacts;
        collide_cable_shape(s, *box, box_pose, settings, contacts);
        if (expected > settings.margin - 1e-6) {
            EXPECT_EQ(contacts.count, 0) << "capsule distance " << expected;
            continue;
        }
        ASSERT_GT(contacts.count, 0) << "capsule distance " << expected;
        double layered = std::numeric_limits<double>::infinity();
        for (int i = 0; i < contacts.count; ++i) layered = std::min(layered, -contacts.items[i].depth);
        if (expected >= 0) {
            // Apart, the capsule's distance is its nearest ball's: both are GJK evaluations of the same
            // distance, 1e-8 covers their tolerances at this size.
            EXPECT_NEAR(layered, expected, 1e-8) << "trial " << trial << ", error " << layered - expected;
        } else {
            // Overlapping, the capsule's depth (EPA: the translation that frees the whole capsule) is at
            // least the deepest ball's, and the difference is bounded by the capsule's length.
            EXPECT_GE(layered, expected - 1e-8) << "trial " << trial;
        }
        ++compared;
    }
    EXPECT_GT(compared, 50);
}

TEST(CableContacts, CableRestingOnAPlane) {
    const ShapePtr ground = make_plane(Vec3::UnitZ(), 0);
    CableSegment s;
    s.radius = 0.04;
    s.control = {Vec3(0, 0, 0.04), Vec3(0.3, 0.1, 0.04), Vec3(0.6, -0.1, 0.04), Vec3(0.9, 0, 0.04)};
    CableContacts contacts;
    ASSERT_GT(collide_cable_shape(s, *ground, Pose{}, CableCollideSettings{}, contacts), 0);
    EXPECT_EQ(contacts.count, 2) << "a flat cable touches at both ends";
    for (int i = 0; i < contacts.count; ++i) {
        EXPECT_NEAR(contacts.items[i].depth, 0, 1e-15);
        EXPECT_LT((contacts.items[i].normal - Vec3::UnitZ()).norm(), 1e-15);
    }
    // Sagging in the middle: one contact at the lowest point, u = 0.5 by symmetry, depth = sag.
    s.control = {Vec3(0, 0, 0.06), Vec3(0.3, 0, 0.0), Vec3(0.6, 0, 0.0), Vec3(0.9, 0, 0.06)};
    const double sag = s.radius - cable_point(s, 0.5).z();
    ASSERT_EQ(collide_cable_shape(s, *ground, Pose{}, CableCollideSettings{}, contacts), 1);
    EXPECT_NEAR(contacts.items[0].u, 0.5, 1e-12);
    EXPECT_NEAR(contacts.items[0].depth, sag, 1e-15);
    const std::array<double, 4> w = contacts.items[0].weights;
    EXPECT_NEAR(w[0] + w[1] + w[2] + w[3], 1, 1e-15);
    EXPECT_NEAR(w[1], 23.0 / 48.0, 1e-15);  // B1(0.5) = (3/8 - 6/4 + 4) / 6
}

double sampled_cable_distance(const CableSegment& a, const CableSegment& b, int n) {
    std::vector<Vec3> pb;
    for (int k = 0; k <= n; ++k) pb.push_back(cable_point(b, double(k) / n));
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i <= n; ++i) {
        const Vec3 pa = cable_point(a, double(i) / n);
        for (const Vec3& q : pb) best = std::min(best, (pa - q).norm());
    }
    return best;
}

TEST(CableCable, CrossingAndParallelCables) {
    CableSegment a, b;
    a.radius = 0.1, b.radius = 0.08;
    a.control = {Vec3(-1.5, 0, 0), Vec3(-0.5, 0, 0), Vec3(0.5, 0, 0), Vec3(1.5, 0, 0)};
    b.control = {Vec3(0, -1.5, 0.15), Vec3(0, -0.5, 0.15), Vec3(0, 0.5, 0.15), Vec3(0, 1.5, 0.15)};
    CableCableContacts out;
    ASSERT_EQ(collide_cable_cable(a, b, CableCollideSettings{}, out), 1);
    EXPECT_NEAR(out.items[0].depth, 0.18 - 0.15, 1e-12);
    EXPECT_NEAR(out.items[0].u_a, 0.5, 1e-8);
    EXPECT_NEAR(out.items[0].u_b, 0.5, 1e-8);
    // From B (above) to A; tilted by at most (|a'| du + |b'| dv) / distance = (3 + 3) 1e-8 / 0.15 = 4e-7.
    EXPECT_LT((out.items[0].normal + Vec3::UnitZ()).norm(), 4e-7);
    // Parallel, 0.15 apart: every pair of facing points is a minimum; at least one contact of that depth.
    b.control = {Vec3(-1.5, 0.15, 0), Vec3(-0.5, 0.15, 0), Vec3(0.5, 0.15, 0), Vec3(1.5, 0.15, 0)};
    ASSERT_GT(collide_cable_cable(a, b, CableCollideSettings{}, out), 0);
    for (int i = 0; i < out.count; ++i) {
        EXPECT_NEAR(out.items[i].depth, 0.03, 1e-12);
        EXPECT_NEAR(out.items[i].u_a, out.items[i].u_b, 1e-6);
    }
    // Apart: nothing.
    b.control = {Vec3(0, -1.5, 0.2), Vec3(0, -0.5, 0.2), Vec3(0, 0.5, 0.2), Vec3(0, 1.5, 0.2)};
    EXPECT_EQ(collide_cable_cable(a, b, CableCollideSettings{}, out), 0);
}

// Finite control points whose differences overflow (a fuzzed World put a cable's points near the ends of the
// double range): the curvature bound of the chord subdivision is then NaN (inf - inf), whose conversion to a
// chord count was undefined behaviour (the sanitizer build stops on it). Such a segment gets the most chords,
// touches nothing, and gives no NaN contact, against a cable or a shape.
TEST(CableCable, SegmentsWhoseDifferencesOverflowGiveNoContactAndNoUndefinedBehaviour) {
    CableSegment huge, b;
    huge.radius = 0.1, b.radius = 0.1;
    huge.control = {Vec3(-1e308, 0, 0), Vec3(1e308, 0, 0), Vec3(-1e308, 0, 0), Vec3(1e308, 0, 0)};
    b.control = {Vec3(0, -1.5, 0.15), Vec3(0, -0.5, 0.15), Vec3(0, 0.5, 0.15), Vec3(0, 1.5, 0.15)};
    ASSERT_TRUE(std::isnan(cable_second_derivative_bound(huge, 0, 1)))
        << "the case under test: " << cable_second_derivative_bound(huge, 0, 1);
    CableCableContacts out;
    EXPECT_EQ(collide_cable_cable(huge, b, CableCollideSettings{}, out), 0);
    EXPECT_EQ(collide_cable_cable(b, huge, CableCollideSettings{}, out), 0);
    const ShapePtr box = make_box(Vec3(0.5, 0.5, 0.5));
    CableContacts shape_out;
    EXPECT_EQ(collide_cable_shape(huge, *box, Pose{}, CableCollideSettings{}, shape_out), 0);
}

TEST(CableCable, RandomPairsAgainstDenseSampling) {
    std::mt19937 rng(14);
    std::uniform_real_distribution<double> x(-1, 1);
    constexpr int kGrid = 1000;
    CableCollideSettings settings;
    settings.margin = 0.3;
    int compared = 0;
    for (int trial = 0; trial < 100; ++trial) {
        CableSegment a, b;
        for (Vec3& p : a.control) p = Vec3(x(rng), x(rng), x(rng));
        for (Vec3& p : b.control) p = Vec3(x(rng), x(rng), x(rng));
        a.radius = 0.05, b.radius = 0.07;
        const double sampled = sampled_cable_distance(a, b, kGrid) - a.radius - b.radius;
        // Distance between c_a(u) and c_b(v) moves by at most speed_a du + speed_b dv.
        const double sampling_error = (cable_speed_bound(a) + cable_speed_bound(b)) / (2.0 * kGrid);
        CableCableContacts out;
        collide_cable_cable(a, b, settings, out);
        double layered = std::numeric_limits<double>::infinity();
        for (int i = 0; i < out.count; ++i) layered = std::min(layered, -out.items[i].depth);
        const std::string where = "trial " + std::to_string(trial) + ": sampled " + std::to_string(sampled) +
                                  ", layered " + std::to_string(layered) + ", bound " +
                                  std::to_string(sampling_error);
        if (sampled > settings.margin) continue;
        ++compared;
        ASSERT_GT(out.count, 0) << where;
        EXPECT_LE(layered, sampled + 1e-12) << where;
        EXPECT_GE(layered, sampled - sampling_error) << where;
    }
    EXPECT_GT(compared, 25);
}

}  // namespace
}  // namespace simpulse
