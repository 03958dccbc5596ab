// Planar joints and planar worlds (issue 22, item 4) against closed forms and conservation laws: a box held
// in a tilted plane slides down it at g sin(incline) on semi-implicit Euler's exact trajectory and keeps only
// its spin about the plane's normal; a free pair joined by a planar joint keeps momentum and angular
// momentum; a planar world keeps every body of a busy pile (boxes, discs, spheres and wedges pushed out of
// the plane by their contacts and by gravity) at its height and tilt; bodies enter the plane where they are
// when the world turns planar or set_pose moves them; the API refuses what a planar joint does not have.
#include "world_fixture.h"

#include <simpulse/dynamics/errors.h>
#include <simpulse/dynamics/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace simpulse::test {
namespace {

JointDesc planar_to_world(BodyId body, const Vec3& anchor, const Vec3& normal) {
    JointDesc j;
    j.type = JointType::planar;
    j.body_a = body;
    j.anchor = anchor;
    j.axis = normal;
    return j;
}

// Angle between a body's initial local z axis direction (world z for bodies that start unturned about x, y)
// and where it points now, rad.
double tilt(const Body& b, const Vec3& initial_axis) {
    const Vec3 now = b.orientation * Vec3::UnitZ();
    return std::atan2(now.cross(initial_axis).norm(), now.dot(initial_axis));
}

// A box held in a plane inclined at 30 degrees (normal n, its local z axis) slides down the plane at
// g sin 30 degrees: after n steps semi-implicit Euler has moved it by g sin(30 deg) dt^2 n (n + 1) / 2 along
// the fall line, exactly. Its spin across n is removed in the first step and its spin about n, a principal
// axis, stays from then on. Bounds: 1e-9 (the exact solve's tolerance, m/s, times the steps is far below).
TEST(Planar, BoxInAnInclinedPlaneFollowsTheClosedFormAndKeepsItsSpinAboutTheNormal) {
    DynamicsWorld w(never_sleeping());
    const double incline = kPi / 6;
    const Vec3 normal(std::sin(incline), 0, std::cos(incline));
    const Quat turned(Eigen::AngleAxisd(incline, Vec3::UnitY()));  // local z to the normal
    const Vec3 start(0, 0, 2);
    const BodyId box = w.create_body(body_desc(make_box(Vec3(0.1, 0.2, 0.3)), Pose{start, turned}, 2.0));
    const JointId joint = w.add_joint(planar_to_world(box, start, normal));
    w.set_angular_velocity(box, Vec3(1, -2, 3));
    double spin = 0;  // about the normal, after the first step (its gyroscopic kick turns the spin first)
    const Vec3 fall_line = (Vec3(0, 0, -1) - normal.dot(Vec3(0, 0, -1)) * normal).normalized();
    const double dt = 1.0 / 60;
    for (int n = 1; n <= 120; ++n) {
        ASSERT_TRUE(w.step(dt).ok);
        const Body& b = w.body(box);
        const Vec3 moved = b.com_position - start;
        const double expected = kG * std::sin(incline) * dt * dt * n * (n + 1) / 2;
        ASSERT_NEAR(moved.dot(fall_line), expected, 1e-9 * std::max(1.0, expected)) << "step " << n;
        ASSERT_LT(std::abs(moved.dot(normal)), 1e-9) << "step " << n << ": off the plane";
        if (n == 1) spin = b.angular_velocity.dot(normal);
        ASSERT_LT((b.angular_velocity - spin * normal).norm(), 1e-9)
            << "step " << n << ": angular velocity " << b.angular_velocity.transpose() << ", spin " << spin;
        ASSERT_LT(w.joint_error(joint), 1e-9) << "step " << n;
    }
}

// Two boxes joined by a planar joint (A slides and spins in B's plane) tumbling in free space: nothing
// outside acts on them, so momentum and angular momentum stay as they were to the solver's tolerance (1e-9
// relative).
TEST(Planar, FreePairJoinedByAPlanarJointKeepsMomentumAndAngularMomentum) {
    DynamicsWorld w(free_space());
    const BodyId a = w.create_body(box_desc(Vec3(0.3, 0.1, 0.1), Vec3(-0.3, 0, 0), 2.0));
    const BodyId b = w.create_body(box_desc(Vec3(0.2, 0.2, 0.05), Vec3(0.2, 0, 0), 1.0));
    JointDesc j = planar_to_world(a, Vec3(-0.3, 0, 0), Vec3(0, 1, 1));
    j.body_b = b;
    const JointId joint = w.add_joint(j);
    w.set_velocity(a, Vec3(0.1, 0.2, 0.3));
    w.set_angular_velocity(a, Vec3(0.5, 1.0, 1.0));
    w.set_angular_velocity(b, Vec3(-0.2, 3.0, 2.0));
    const double dt = 1.0 / 240;
    ASSERT_TRUE(w.step(dt).ok);  // the first step removes the relative motion the joint does not allow
    const Vec3 p0 = w.linear_momentum(), l0 = w.angular_momentum();
    double worst_p = 0, worst_l = 0, worst_joint = 0;
    for (int i = 0; i < 2400; ++i) {
        ASSERT_TRUE(w.step(dt).ok);
        worst_p = std::max(worst_p, (w.linear_momentum() - p0).norm() / p0.norm());
        worst_l = std::max(worst_l, (w.angular_momentum() - l0).norm() / l0.norm());
        worst_joint = std::max(worst_joint, w.joint_error(joint));
    }
    EXPECT_LT(worst_p, 1e-9) << "momentum, relative";
    EXPECT_LT(worst_l, 1e-9) << "angular momentum, relative";
    EXPECT_LT(worst_joint, 1e-9) << "joint error, m or rad";
}

// A planar world with gravity partly out of the plane, (0, -g, -g/2): a lone box falls along -y exactly as
// semi-implicit Euler does under the in-plane part, and the out-of-plane part is carried by the plane like a
// table would carry it: its height does not change at all.
TEST(Planar, PlanarWorldCarriesGravityOutOfThePlane) {
    WorldSettings s = never_sleeping();
    s.planar = true;
    s.gravity = Vec3(0, -kG, -kG / 2);
    DynamicsWorld w(s);
    const BodyId box = w.create_body(box_desc(Vec3(0.1, 0.2, 0.3), Vec3(1, 2, 3), 2.0));
    const double dt = 1.0 / 60;
    for (int n = 1; n <= 60; ++n) {
        ASSERT_TRUE(w.step(dt).ok);
        const Body& b = w.body(box);
        const double expected = -kG * dt * dt * n * (n + 1) / 2;
        ASSERT_NEAR(b.com_position.y() - 2, expected, 1e-9 * std::max(1.0, std::abs(expected)))
            << "step " << n;
        ASSERT_EQ(b.com_position.z(), 3.0) << "step " << n;
        ASSERT_EQ(b.com_position.x(), 1.0) << "step " << n;
    }
}

// A busy planar pile: 24 bodies (boxes turned about z, discs, spheres and wedges, which are not symmetric
// about their middle plane, some lifted off z = 0 so their contacts push across the plane) fall into a bin
// with gravity tilted out of the plane, spinning, and tumble for 10,000 steps. Every body keeps the height of
// its centre of mass and the direction of its z axis. The pile's island (up to 276 rows) is solved by the
// sweeps to their acceptance, but each body's three planar rows are closed exactly after the solve and after
// the projection (plane_closure.cpp), so what is left is round-off, 1e-16 per step: over 10,000 steps the
// bound is 1e-12 (m and rad; measured: 0 m and 1.0e-15 rad). Without the planar world the same bodies leave
// the plane by metres.
struct PlanarPile {
    DynamicsWorld world;
    std::vector<BodyId> bodies;
    std::vector<double> heights;

    explicit PlanarPile(bool planar) : world(settings(planar)) {
        const double wall = 0.1, depth = 1.0;
        add_static(world, make_box(Vec3(1.5, wall, depth)), Pose{Vec3(0, -wall, 0), Quat::Identity()});
        for (double side : {-1.0, 1.0})
            add_static(world, make_box(Vec3(wall, 2.0, depth)),
                       Pose{Vec3(side * (1.5 + wall), 2.0, 0), Quat::Identity()});
        std::mt19937 random(7);
        std::uniform_real_distribution<double> unit(0, 1);
        const std::vector<Vec3> wedge_points = {Vec3(-0.15, -0.1, -0.1), Vec3(0.15, -0.1, -0.1),
                                                Vec3(-0.15, 0.1, -0.1),  Vec3(-0.15, -0.1, 0.05),
                                                Vec3(0.15, -0.1, 0.05),  Vec3(-0.15, 0.1, 0.05)};
        const ShapePtr wedge = make_convex_hull(wedge_points);
        for (int k = 0; k < 24; ++k) {
            const Vec3 position(-1.2 + 0.35 * (k % 8), 0.4 + 0.45 * (k / 8), 0.1 * (k % 3) - 0.1);
            const Quat about_z(Eigen::AngleAxisd(2 * kPi * unit(random), Vec3::UnitZ()));
            ShapePtr shape;
            switch (k % 4) {
                case 0:
                    shape = make_box(Vec3(0.1 + 0.05 * unit(random), 0.08, 0.2));
                    break;
                case 1:
                    shape = make_cylinder(0.12, 0.1);  // a disc: its axis is local z
                    break;
                case 2:
                    shape = make_sphere(0.1);
                    break;
                default:
                    shape = wedge;
                    break;
            }
            BodyDesc d = body_desc(shape, Pose{position, about_z});
            d.velocity = Vec3(unit(random) - 0.5, 0, 0);
            d.angular_velocity = Vec3(0, 0, 4 * (unit(random) - 0.5));
            bodies.push_back(world.create_body(d));
            heights.push_back(world.body(bodies.back()).com_position.z());
        }
    }

    static WorldSettings settings(bool planar) {
        WorldSettings s = never_sleeping();
        s.planar = planar;
        s.gravity = Vec3(0, -kG, -1.0);
        return s;
    }
};

TEST(Planar, PlanarWorldKeepsABusyPileInItsPlane) {
    PlanarPile pile(true);
    const double dt = 1.0 / 120;
    double worst_height = 0, worst_tilt = 0, travelled = 0;
    std::vector<Vec3> start;
    for (const BodyId id : pile.bodies) start.push_back(pile.world.body(id).com_position);
    for (int step = 0; step < 10000; ++step) {
        ASSERT_TRUE(pile.world.step(dt).ok) << "step " << step;
        for (std::size_t k = 0; k < pile.bodies.size(); ++k) {
            const Body& b = pile.world.body(pile.bodies[k]);
            worst_height = std::max(worst_height, std::abs(b.com_position.z() - pile.heights[k]));
            worst_tilt = std::max(worst_tilt, tilt(b, Vec3::UnitZ()));
            if (step == 9999) {
                travelled = std::max(travelled, (b.com_position - start[k]).norm());
                EXPECT_GT(b.com_position.y(), -0.01) << "body " << k << " fell through the floor";
            }
        }
    }
    std::printf("planar pile, 10,000 steps: largest height change %.3g m, largest tilt %.3g rad\n",
                worst_height, worst_tilt);
    EXPECT_LT(worst_height, 1e-12) << "largest height change, m";
    EXPECT_LT(worst_tilt, 1e-12) << "largest tilt, rad";
    EXPECT_GT(travelled, 0.3) << "the pile did not move: the test shows nothing";
}

// The same pile without the planar world leaves the plane: the check above can fail.
TEST(Planar, WithoutThePlanarWorldThePileLeavesThePlane) {
    PlanarPile pile(false);
    double worst_height = 0;
    for (int step = 0; step < 240; ++step) {
        ASSERT_TRUE(pile.world.step(1.0 / 120).ok);
        for (std::size_t k = 0; k < pile.bodies.size(); ++k)
            worst_height = std::max(
                worst_height, std::abs(pile.world.body(pile.bodies[k]).com_position.z() - pile.heights[k]));
    }
    EXPECT_GT(worst_height, 0.5) << "largest height change, m";
}

// Bodies enter the plane where they are at the first step after the world turns planar, and where set_pose
// puts them; turned off and on again, the world takes their poses anew.
TEST(Planar, BodiesEnterThePlaneWhereTheyAre) {
    WorldSettings s = never_sleeping();
    s.gravity = Vec3(0, 0, -kG);
    DynamicsWorld w(s);
    const BodyId box = w.create_body(box_desc(Vec3(0.1, 0.1, 0.1), Vec3(0, 0, 5), 1.0));
    for (int i = 0; i < 30; ++i) ASSERT_TRUE(w.step(1.0 / 60).ok);  // falling
    const double entered = w.body(box).com_position.z();
    w.settings().planar = true;
    w.set_velocity(box, Vec3::Zero());
    for (int i = 0; i < 30; ++i) ASSERT_TRUE(w.step(1.0 / 60).ok);
    EXPECT_EQ(w.body(box).com_position.z(), entered) << "held where the world turned planar";
    w.set_pose(box, Pose{Vec3(0, 0, 1), Quat(Eigen::AngleAxisd(0.3, Vec3::UnitX()))});
    for (int i = 0; i < 30; ++i) ASSERT_TRUE(w.step(1.0 / 60).ok);
    EXPECT_EQ(w.body(box).com_position.z(), 1.0) << "held where set_pose put it";
    EXPECT_LT(tilt(w.body(box), Quat(Eigen::AngleAxisd(0.3, Vec3::UnitX())) * Vec3::UnitZ()), 1e-12)
        << "tilt kept at set_pose's";
    w.settings().planar = false;
    ASSERT_TRUE(w.step(1.0 / 60).ok);
    EXPECT_LT(w.body(box).com_position.z(), 1.0) << "falls once the world is no longer planar";
    w.settings().planar = true;
    const double again = w.body(box).com_position.z();
    w.set_velocity(box, Vec3::Zero());
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(w.step(1.0 / 60).ok);
    EXPECT_EQ(w.body(box).com_position.z(), again) << "held where the world turned planar again";
}

std::string refusal(DynamicsWorld& w, const JointDesc& j) {
    try {
        w.add_joint(j);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "accepted";
}

// A planar joint needs its normal and has no limits or motor; a JointType the enum does not name is refused.
TEST(Planar, ApiRefusesWhatAPlanarJointDoesNotHave) {
    DynamicsWorld w;
    const BodyId box = w.create_body(box_desc(Vec3(0.1, 0.1, 0.1), Vec3(0, 0, 1), 1.0));
    JointDesc no_axis = planar_to_world(box, Vec3(0, 0, 1), Vec3::Zero());
    EXPECT_EQ(refusal(w, no_axis), "axis: expected a non-zero direction");
    JointDesc limited = planar_to_world(box, Vec3(0, 0, 1), Vec3::UnitZ());
    limited.limit.enabled = true;
    EXPECT_EQ(refusal(w, limited),
              "limit: only hinge and slider joints have limits (distance joints: min/max_length)");
    JointDesc motor = planar_to_world(box, Vec3(0, 0, 1), Vec3::UnitZ());
    motor.motor.enabled = true;
    EXPECT_EQ(refusal(w, motor), "motor: only hinge and slider joints have motors");
    JointDesc unknown = planar_to_world(box, Vec3(0, 0, 1), Vec3::UnitZ());
    unknown.type = static_cast<JointType>(42);
    EXPECT_EQ(refusal(w, unknown),
              "type: expected a JointType (ball, hinge, fixed, slider, distance or planar), got 42");
}

}  // namespace
}  // namespace simpulse::test
