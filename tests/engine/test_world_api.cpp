// The public World API: handles and error values for bad input, contact listener, and independence and
// determinism of worlds stepped side by side in one process.
#include "world_fixture.h"

#include <simpulse/world.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace simpulse::test {
namespace {

// A small world with contacts, a spring and a joint: a few boxes falling on a plane.
struct Demo {
    World world;
    std::vector<BodyId> boxes;
    Demo() {
        EXPECT_TRUE(add_ground(world));
        for (int i = 0; i < 4; ++i) {
            BodyDesc d;
            d.shape = create_box(Vec3(0.2, 0.2, 0.2)).value();
            d.pose.position = Vec3(0.1 * i, 0.05 * i, 0.5 + 0.45 * i);
            d.pose.orientation = Quat(Eigen::AngleAxisd(0.2 * i, Vec3(1, 2, 3).normalized()));
            d.angular_velocity = Vec3(0, 0, i);
            boxes.push_back(world.create_body(d).value());
        }
        SpringDesc s;
        s.body_a = boxes[0];
        s.body_b = boxes[3];
        s.anchor_a = world.state(boxes[0]).value().pose.position;
        s.anchor_b = world.state(boxes[3]).value().pose.position;
        s.stiffness = 50;
        EXPECT_TRUE(world.add_spring(s));
        BallJointDesc j;
        j.body_a = boxes[1];
        j.body_b = boxes[2];
        j.anchor =
            0.5 * (world.state(boxes[1]).value().pose.position + world.state(boxes[2]).value().pose.position);
        EXPECT_TRUE(world.add_ball_joint(j));
    }
};

TEST(WorldApi, TwoWorldsSideBySideAreIndependentAndBitIdentical) {
    Demo alone, first, second;
    for (int i = 0; i < 300; ++i) ASSERT_TRUE(alone.world.step(1.0 / 240));
    for (int i = 0; i < 300; ++i) {  // interleaved steps in one process
        ASSERT_TRUE(first.world.step(1.0 / 240));
        ASSERT_TRUE(second.world.step(1.0 / 240));
    }
    for (std::size_t k = 0; k < alone.boxes.size(); ++k) {
        const BodyState a = alone.world.state(alone.boxes[k]).value();
        for (const Demo* d : {&first, &second}) {
            const BodyState b = d->world.state(d->boxes[k]).value();
            EXPECT_EQ(a.pose.position, b.pose.position) << "box " << k;
            EXPECT_EQ(a.pose.orientation.coeffs(), b.pose.orientation.coeffs()) << "box " << k;
            EXPECT_EQ(a.velocity, b.velocity) << "box " << k;
            EXPECT_EQ(a.angular_velocity, b.angular_velocity) << "box " << k;
        }
    }
}

// time() is the sum of the steps' lengths (and so are contact event times): it was the step count times the
// last dt, 3.0 s after 29 steps of 0.01 s and one of 0.1 s, then 0.031 s after one more of 0.001 s. For a
// fixed dt it stays the step count times dt, bit for bit (no rounding drift from summing).
TEST(WorldApi, TimeIsTheSumOfTheStepLengthsWhenTheStepVaries) {
    World world;
    for (int i = 0; i < 29; ++i) ASSERT_TRUE(world.step(0.01));
    EXPECT_EQ(world.time(), 29 * 0.01);
    ASSERT_TRUE(world.step(0.1));
    const double after_long_step = world.time();
    EXPECT_NEAR(after_long_step, 0.39, 1e-15);
    ASSERT_TRUE(world.step(0.001));
    EXPECT_NEAR(world.time(), 0.391, 1e-15);
    for (int i = 0; i < 1000; ++i) ASSERT_TRUE(world.step(0.001));
    EXPECT_EQ(world.time(), after_long_step + 1001 * 0.001) << "a run of equal steps is counted, not summed";
}

// A sleeping island is frozen against static bodies and skipped by the solver, so whatever held it must wake
// it when it goes: a static platform moved away (or into it), the joint or spring it hangs on removed, the
// body it hangs from destroyed, gravity or a material changed. Each case sleeps first (asserted), then the
// body must fall freely: z drops by g t^2 / 2 = 1.23 m in 0.5 s (asserted: by more than 1 m). Before, each
// stayed frozen where it slept.
TEST(WorldApi, SleepersWakeWhenWhatHeldThemGoes) {
    auto settle = [](World& w, int steps) {
        for (int i = 0; i < steps; ++i) ASSERT_TRUE(w.step(1.0 / 120));
    };
    auto falls = [&](World& w, BodyId id, const char* what) {
        const double z0 = w.state(id).value().pose.position.z();
        settle(w, 60);
        const double drop = z0 - w.state(id).value().pose.position.z();
        EXPECT_GT(drop, 1.0) << what << ": dropped " << drop << " m in 0.5 s (free fall 1.23 m)";
    };
    {  // a static platform moved away from under a sleeping box
        World w;
        const BodyId platform = add_static(w, create_box({1, 1, 0.1}).value()).value();
        const BodyId box = w.create_body(box_desc({0.1, 0.1, 0.1}, {0, 0, 0.2})).value();
        settle(w, 240);
        ASSERT_TRUE(w.is_asleep(box).value());
        ASSERT_TRUE(w.set_pose(platform, Pose{Vec3(0, 0, -5), Quat::Identity()}));
        falls(w, box, "platform moved away");
    }
    {  // the joint a sleeping bob hangs on removed
        World w;
        const BodyId bob = w.create_body(sphere_desc(0.1, {0, 0, 1})).value();
        BallJointDesc j;
        j.body_a = bob;
        j.anchor = {0, 0, 2};
        const JointId joint = w.add_ball_joint(j).value();
        settle(w, 240);
        ASSERT_TRUE(w.is_asleep(bob).value());
        ASSERT_TRUE(w.remove_joint(joint));
        falls(w, bob, "joint removed");
    }
    {  // the body a sleeping bob hangs from destroyed
        World w;
        ASSERT_TRUE(add_static(w, create_box({0.5, 0.5, 0.05}).value(), Pose{{0, 0, 2}, Quat::Identity()}));
        const BodyId holder = w.create_body(box_desc({0.6, 0.1, 0.05}, {0.45, 0, 2.1}, 50)).value();
        const BodyId bob = w.create_body(sphere_desc(0.05, {0.95, 0, 1.5}, 0.1)).value();
        BallJointDesc j;
        j.body_a = bob;
        j.body_b = holder;
        j.anchor = {0.95, 0, 2.05};
        ASSERT_TRUE(w.add_ball_joint(j));
        settle(w, 360);
        ASSERT_TRUE(w.is_asleep(bob).value());
        ASSERT_TRUE(w.destroy_body(holder));
        falls(w, bob, "holder destroyed");
    }
    {  // gravity turned upside down: the box must leave the ground (rise by g t^2 / 2)
        World w;
        ASSERT_TRUE(add_static(w, create_box({1, 1, 0.1}).value()));
        const BodyId box = w.create_body(box_desc({0.1, 0.1, 0.1}, {0, 0, 0.2})).value();
        settle(w, 240);
        ASSERT_TRUE(w.is_asleep(box).value());
        WorldSettings s = w.settings();
        s.gravity = Vec3(0, 0, 9.81);
        ASSERT_TRUE(w.set_settings(s));
        const double z0 = w.state(box).value().pose.position.z();
        settle(w, 60);
        EXPECT_GT(w.state(box).value().pose.position.z() - z0, 1.0) << "gravity reversed";
    }
}

TEST(WorldApi, BadInputGivesErrorValues) {
    World w;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_FALSE(create_sphere(0));
    EXPECT_FALSE(create_box(Vec3(1, -1, 1)));
    EXPECT_FALSE(create_convex_hull(std::vector<Vec3>{Vec3::Zero(), Vec3::UnitX(), Vec3::UnitY()}));  // flat
    BodyDesc d;
    EXPECT_FALSE(w.create_body(d)) << "no shape";
    d.shape = create_sphere(1).value();
    d.pose.position = Vec3(nan, 0, 0);
    EXPECT_FALSE(w.create_body(d)) << "non-finite position";
    d.pose.position = Vec3::Zero();
    d.mass = -1.0;
    EXPECT_FALSE(w.create_body(d)) << "negative mass";
    d.mass.reset();
    d.shape = create_plane(Vec3::UnitZ(), 0).value();
    EXPECT_FALSE(w.create_body(d)) << "a dynamic plane";
    d.shape = create_sphere(1).value();
    const BodyId id = w.create_body(d).value();
    EXPECT_FALSE(w.set_velocity(id, Vec3(0, nan, 0)));
    EXPECT_FALSE(w.apply_impulse(id, Vec3(1, 0, 0), Vec3(0, 0, nan)));
    EXPECT_FALSE(w.step(0));
    EXPECT_FALSE(w.step(-1));
    EXPECT_FALSE(w.step(nan));
    ASSERT_TRUE(w.destroy_body(id));
    EXPECT_FALSE(w.state(id)) << "stale handle";
    EXPECT_FALSE(w.destroy_body(id)) << "destroyed twice";
    EXPECT_FALSE(w.set_material_pair(0, 7, 0.5, 0)) << "unknown material";
    WorldSettings s = w.settings();
    s.solver.penetration_correction = 2;
    EXPECT_FALSE(w.set_settings(s));
    s = w.settings();
    s.solver.direct_first_max_rows = -1;
    EXPECT_FALSE(w.set_settings(s));
    s = w.settings();
    s.manifold_reuse_distance = -1e-6;
    EXPECT_FALSE(w.set_settings(s));
    s.manifold_reuse_distance = nan;
    EXPECT_FALSE(w.set_settings(s));
    s = w.settings();
    s.max_impact_gap = -1e-3;
    EXPECT_FALSE(w.set_settings(s));
    s.max_impact_gap = nan;
    EXPECT_FALSE(w.set_settings(s));
    s = w.settings();
    s.max_joint_rotation = 0;
    EXPECT_FALSE(w.set_settings(s));
    s = w.settings();
    s.max_substeps = 0;
    EXPECT_FALSE(w.set_settings(s));
    s = w.settings();
    s.sleep_speed = nan;
    EXPECT_FALSE(w.set_settings(s));
    s = w.settings();
    s.sleep_time = -1;
    EXPECT_FALSE(w.set_settings(s));
    EXPECT_TRUE(w.set_settings(w.settings())) << "the settings a world holds are valid";
}

TEST(WorldApi, MessagesShowTheRejectedNumber) {
    // Doubles were formatted with std::to_string: -5e-324 read "-0.000000" and -1e300 took 300 digits.
    const Result<ShapePtr> box = create_box(Vec3(1, -5e-324, 1));
    ASSERT_FALSE(box);
    EXPECT_EQ(box.error().message, "box half extent must be a positive finite number, got -5e-324");
    const Result<ShapePtr> sphere = create_sphere(-1e300);
    ASSERT_FALSE(sphere);
    EXPECT_EQ(sphere.error().message, "sphere radius must be a positive finite number, got -1e+300");
    const Result<ShapePtr> unit = create_sphere(1);
    const Result<ShapePtr> compound =
        create_compound({{unit.value(), Pose{Vec3::Zero(), Quat(1e-7, 0, 0, 0)}}});
    ASSERT_FALSE(compound);
    EXPECT_NE(compound.error().message.find("(norm 1e-07)"), std::string::npos) << compound.error().message;
}

TEST(WorldApi, FailedCreateBodyLeavesTheWorldUsable) {
    // A body refused for its mass or density must not leave a half-made body behind: the steps after it
    // once failed with "broad phase: proxy -1 is not alive".
    World w;
    BodyDesc d = sphere_desc(0.1, Vec3(0, 0, 1));
    d.mass = -1.0;
    EXPECT_FALSE(w.create_body(d));
    d.mass.reset();
    d.density = -5;
    EXPECT_FALSE(w.create_body(d));
    d.density = 1000;
    const BodyId id = w.create_body(d).value();
    EXPECT_EQ(w.body_count(), 1u);
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(w.step(0.01)) << "step " << i;
    EXPECT_LT(w.state(id).value().pose.position.z(), 1.0);
}

TEST(WorldApi, MassPropertiesBeyondTheDoubleRangeAreRefused) {
    // A sphere of radius 1e-110 has no volume in doubles (its inertia scaled to a mass of 1 kg is NaN), one
    // of 1e105 an infinite mass: both were accepted and turned energy and momentum into NaN.
    World w;
    BodyDesc d;
    d.shape = create_sphere(1e-110).value();
    d.mass = 1.0;
    const Result<BodyId> tiny = w.create_body(d);
    ASSERT_FALSE(tiny);
    EXPECT_NE(tiny.error().message.find("mass properties"), std::string::npos) << tiny.error().message;
    d.mass.reset();
    EXPECT_FALSE(w.create_body(d)) << "zero mass from the density";
    d.shape = create_sphere(1e105).value();
    EXPECT_FALSE(w.create_body(d)) << "infinite mass";
    d.shape = create_box(Vec3(1, 1, 1)).value();
    d.mass = 5e-324;
    EXPECT_FALSE(w.create_body(d)) << "a mass whose inverse overflows";
    EXPECT_EQ(w.body_count(), 0u);
}

TEST(WorldApi, SettingsMustBeFiniteAndAKnownMode) {
    // Infinite tolerances and correction limits passed `x > 0` / `x >= 0`, and a SolverMode cast from 7 ran
    // as the exact mode.
    World w;
    const double inf = std::numeric_limits<double>::infinity();
    const auto error_with = [&](auto change) {
        WorldSettings s;
        change(s);
        const Status status = w.set_settings(s);
        return status ? std::string("accepted") : status.error().message;
    };
    EXPECT_EQ(error_with([&](WorldSettings& s) { s.solver.iterative_tolerance = inf; }),
              "solver.iterative_tolerance: expected a positive finite number, got inf");
    EXPECT_EQ(error_with([&](WorldSettings& s) { s.solver.tolerance = 0; }),
              "solver.tolerance: expected a positive finite number, got 0");
    EXPECT_EQ(error_with([&](WorldSettings& s) { s.solver.joint_tolerance = inf; }),
              "solver.joint_tolerance: expected a positive finite number, got inf");
    EXPECT_EQ(error_with([&](WorldSettings& s) { s.solver.penetration_slop = inf; }),
              "solver.penetration_slop: expected a finite number >= 0, got inf");
    EXPECT_EQ(error_with([&](WorldSettings& s) { s.solver.max_correction = inf; }),
              "solver.max_correction: expected a finite number >= 0, got inf");
    EXPECT_EQ(error_with([](WorldSettings& s) { s.solver.mode = static_cast<SolverMode>(7); }),
              "solver.mode: expected SolverMode::thesis or SolverMode::exact, got 7");
    EXPECT_EQ(error_with([](WorldSettings& s) { s.solver.max_iterations = 0; }),
              "solver.max_iterations: expected an integer from 1 to 10000, got 0");
    // INT_MAX sweeps on an island that does not converge stalled a run; a 100,000-row dense matrix asked for
    // 80 GB.
    EXPECT_EQ(error_with([](WorldSettings& s) { s.solver.max_iterations = 2147483647; }),
              "solver.max_iterations: expected an integer from 1 to 10000, got 2147483647");
    EXPECT_EQ(error_with([](WorldSettings& s) { s.solver.dense_max_rows = 100000; }),
              "solver.dense_max_rows: expected an integer from 0 to 2048, got 100000");
    EXPECT_EQ(error_with([](WorldSettings& s) { s.solver.recheck_iterations = 101; }),
              "solver.recheck_iterations: expected an integer from 0 to 100, got 101");
    EXPECT_EQ(error_with([](WorldSettings& s) { s.solver.max_projection_iterations = 10000; }), "accepted");
    EXPECT_EQ(error_with([](WorldSettings& s) { s.solver.penetration_correction = std::nan(""); }),
              "solver.penetration_correction: expected a number in [0, 1], got nan");
    EXPECT_EQ(error_with([](WorldSettings& s) { s.solver.mode = SolverMode::thesis; }), "accepted");
    EXPECT_EQ(w.settings().solver.mode, SolverMode::thesis);
    WorldSettings refused;  // exact mode, infinite tolerance
    refused.solver.iterative_tolerance = inf;
    EXPECT_FALSE(w.set_settings(refused));
    EXPECT_EQ(w.settings().solver.mode, SolverMode::thesis)
        << "a refused call leaves the settings as they were";
}

TEST(WorldApi, LinkEndsFollowTheSceneRule) {
    // Scenes refused a spring from a body to itself or from "world" to "world"; the API accepted both.
    World w;
    const BodyId ball = w.create_body(sphere_desc(0.1)).value();
    const auto spring_error = [&](BodyId a, BodyId b) {
        const Result<SpringId> id = w.add_spring({.body_a = a, .body_b = b, .stiffness = 10});
        return id ? std::string("accepted") : id.error().message;
    };
    EXPECT_EQ(spring_error(ball, ball), "a spring needs two different bodies, got body 0 twice");
    EXPECT_EQ(spring_error(BodyId{}, BodyId{}), "a spring needs at least one body besides the world frame");
    EXPECT_EQ(spring_error(BodyId{}, ball), "accepted");
    const Result<JointId> joint = w.add_ball_joint({.body_a = BodyId{}, .body_b = BodyId{}});
    ASSERT_FALSE(joint);
    EXPECT_EQ(joint.error().message, "a joint needs at least one body besides the world frame");
    const Result<JointId> self = w.add_ball_joint({.body_a = ball, .body_b = ball});
    ASSERT_FALSE(self);
    EXPECT_EQ(self.error().message, "a joint needs two different bodies, got body 0 twice");
}

TEST(WorldApi, LinksBetweenTwoStaticEndsAreRefused) {
    // A spring or joint whose ends are both static (the world frame counts) constrains nothing; both were
    // accepted and silently did nothing.
    World w;
    BodyDesc d;
    d.shape = create_box({1, 1, 1}).value();
    d.is_static = true;
    const BodyId ground = w.create_body(d).value();
    d.pose.position = {3, 0, 0};
    const BodyId wall = w.create_body(d).value();
    d.is_static = false;
    d.pose.position = {0, 0, 3};
    const BodyId crate = w.create_body(d).value();
    const auto spring_error = [&](BodyId a, BodyId b) {
        const Result<SpringId> id = w.add_spring({.body_a = a, .body_b = b, .stiffness = 10});
        return id ? std::string("accepted") : id.error().message;
    };
    const auto joint_error = [&](BodyId a, BodyId b) {
        const Result<JointId> id = w.add_ball_joint({.body_a = a, .body_b = b});
        return id ? std::string("accepted") : id.error().message;
    };
    EXPECT_EQ(spring_error(ground, wall),
              "a spring needs a dynamic body, but body 0 and body 1 are both static");
    EXPECT_EQ(spring_error(BodyId{}, ground),
              "a spring needs a dynamic body, but the world frame and body 0 are both static");
    EXPECT_EQ(joint_error(ground, BodyId{}),
              "a joint needs a dynamic body, but body 0 and the world frame are both static");
    EXPECT_EQ(joint_error(wall, ground),
              "a joint needs a dynamic body, but body 1 and body 0 are both static");
    EXPECT_EQ(spring_error(ground, crate), "accepted");
    EXPECT_EQ(joint_error(crate, ground), "accepted");
}

TEST(WorldApi, SetPoseRefusesAPoseWhoseBoundsOverflowAndKeepsTheBody) {
    // create_body refuses a shape whose bounding box is not finite at its position; set_pose did not check,
    // so a static capsule of radius 1e308 moved to x = 1e308 reached the broad phase with infinite bounds.
    World w;
    BodyDesc d;
    d.shape = create_capsule(1e308, 2.0).value();
    d.is_static = true;
    d.pose.position = {1, 2, 3};
    const BodyId rod = w.create_body(d).value();
    const Status moved = w.set_pose(rod, Pose{Vec3(1e308, 0, 0), Quat::Identity()});
    ASSERT_FALSE(moved);
    EXPECT_NE(moved.error().message.find("bounding box is not finite"), std::string::npos)
        << moved.error().message;
    const Vec3 kept = w.state(rod).value().pose.position;
    EXPECT_EQ(kept, Vec3(1, 2, 3)) << "a refused pose leaves the body where it was; it is at "
                                   << kept.transpose();
    ASSERT_TRUE(w.step(0.01));
    EXPECT_TRUE(w.set_pose(rod, Pose{Vec3(-1e307, 0, 0), Quat::Identity()}));
}

TEST(WorldApi, SpringAnchorsTooFarApartAreNamedAsSuch) {
    // Anchors 1e200 apart have a distance whose square overflows: a scene without "rest_length" defaulted
    // it to inf and was told "spring rest length must be >= 0".
    World w;
    const BodyId ball = w.create_body(sphere_desc(0.1)).value();
    SpringDesc s;
    s.body_a = ball;
    s.anchor_b = Vec3(1e200, 0, 0);
    s.stiffness = 1;
    s.rest_length = 1;
    const Result<SpringId> far = w.add_spring(s);
    ASSERT_FALSE(far);
    EXPECT_EQ(far.error().message,
              "anchor_b: too far from anchor_a (the square of their distance overflows a double)");
    s.anchor_b = Vec3(1, 0, 0);
    s.rest_length = -0.5;
    const Result<SpringId> negative = w.add_spring(s);
    ASSERT_FALSE(negative);
    EXPECT_EQ(negative.error().message, "rest_length: expected a finite number >= 0, got -0.5");
}

TEST(WorldApi, ShapesWhoseBoundsOverflowAreRefused) {
    // A static compound holding a capsule of radius and length 1.7e308 was accepted; the first step then
    // failed with "ball became non-finite" on the ball resting near it.
    World w;
    BodyDesc d;
    d.is_static = true;
    d.shape = create_compound({{create_capsule(1.7e308, 0.85e308).value(), Pose{}},
                               {create_sphere(1).value(), Pose{Vec3(0, 0, -5)}}})
                  .value();
    const Result<BodyId> huge = w.create_body(d);
    ASSERT_FALSE(huge);
    EXPECT_EQ(
        huge.error().message,
        "pose: the bounding box is not finite: the compound reaches beyond the double range at this position "
        "(only planes may be unbounded)");
    d.shape = create_box(Vec3(1e308, 1, 1)).value();
    d.pose.position = Vec3(1e308, 0, 0);
    EXPECT_FALSE(w.create_body(d)) << "finite shape, overflowing at its position";
    EXPECT_EQ(w.body_count(), 0u);
    d.pose.position = Vec3::Zero();
    EXPECT_TRUE(w.create_body(d)) << "the same box at the origin";
    d.shape = create_plane(Vec3::UnitZ(), 0).value();
    EXPECT_TRUE(w.create_body(d)) << "planes are unbounded by design";
    d.shape =
        create_triangle_mesh({Vec3(0, 0, 0), Vec3(1e150, 0, 0), Vec3(0, 1e150, 0)}, {{{0, 1, 2}}}).value();
    EXPECT_TRUE(w.create_body(d)) << "a large mesh";
    d.shape = create_height_field(Vec2(0, 0), Vec2(1, 1), 2, 2, {0, 0, 0, 1e300}).value();
    EXPECT_TRUE(w.create_body(d)) << "a tall height field";
    ASSERT_TRUE(w.create_body(sphere_desc(0.1, Vec3(0, 0, 1))));
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(w.step(0.01)) << "step " << i;
}

TEST(WorldApi, CreateRejectsInvalidSettings) {
    WorldSettings s;
    s.max_impact_gap = -1e-3;
    const Result<World> refused = World::create(s);
    ASSERT_FALSE(refused) << "a world was built with max_impact_gap = -1e-3";
    EXPECT_EQ(refused.error().code, ErrorCode::invalid_argument);
    EXPECT_NE(refused.error().message.find("max_impact_gap"), std::string::npos) << refused.error().message;
    s.max_impact_gap = 2e-3;
    const Result<World> built = World::create(s);
    ASSERT_TRUE(built);
    EXPECT_EQ(built->settings().max_impact_gap, 2e-3);
}

TEST(WorldApi, CollisionStatsCountTestedAndReusedPairs) {
    World w;
    ASSERT_TRUE(add_ground(w));
    // Resting on the ground from the start.
    ASSERT_TRUE(w.create_body(box_desc(Vec3(0.5, 0.5, 0.5), Vec3(0, 0, 0.5))));
    ASSERT_TRUE(w.step(1.0 / 60));
    EXPECT_EQ(w.collision_stats().pairs, 1);
    EXPECT_EQ(w.collision_stats().reused, 0) << "nothing cached before the first step";
    int reused = 0;
    for (int i = 0; i < 10; ++i) {
        ASSERT_TRUE(w.step(1.0 / 60));
        reused += w.collision_stats().reused;
    }
    EXPECT_GE(reused, 8) << "a resting box keeps its relative pose to the ground";
}

TEST(WorldApi, ContactListenerSeesTheLandingOnce) {
    World w;
    const BodyId g = add_ground(w).value();
    // Lands after sqrt(2 * 0.2 / 9.81) = 0.202 s.
    const BodyId ball = w.create_body(sphere_desc(0.1, Vec3(0, 0, 0.3))).value();
    std::vector<ContactEvent> seen;
    ASSERT_TRUE(w.set_contact_listener([&](const ContactEvent& e) { seen.push_back(e); }));
    for (int i = 0; i < 240; ++i) ASSERT_TRUE(w.step(1.0 / 240));
    ASSERT_EQ(seen.size(), 1u) << "a resting ball keeps touching: one begin, no end";
    EXPECT_EQ(seen[0].type, ContactEvent::Type::begin);
    EXPECT_EQ(seen[0].a, g);
    EXPECT_EQ(seen[0].b, ball);
    EXPECT_NEAR(seen[0].time, std::sqrt(2 * 0.2 / 9.81), 2.0 / 240) << "landing time";
}

}  // namespace
}  // namespace simpulse::test
