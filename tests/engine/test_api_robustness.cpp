// The public API under calls that are legal but hostile: query filters and contact listeners that change the
// world while simpulse is calling them, finite inputs whose results overflow (impulses, forces, cable
// stiffnesses, vectors whose plain norm overflows), a cable whose construction fails half way, and the
// material table's limit. Each must give an error value or a well-defined result and leave the world usable;
// the sanitizer build of this file is what catches a dangling reference.
#include "world_fixture.h"

#include <simpulse/world.h>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace simpulse::test {
namespace {

BodyDesc ball_at(const Vec3& position, double radius = 0.1) {
    return {.shape = create_sphere(radius).value(), .pose = {position}};
}

// A row of eight balls along x, 1 m apart, without gravity.
World row_of_balls(std::vector<BodyId>& ids) {
    WorldSettings s;
    s.gravity = Vec3::Zero();
    World w = World::create(s).value();
    for (int i = 0; i < 8; ++i) ids.push_back(w.create_body(ball_at(Vec3(i, 0, 0))).value());
    return w;
}

// Every query with a filter that destroys the body it is shown and one that creates bodies (enough to move
// the body array): no query may read a destroyed or moved body. Destroyed bodies are not reported.
TEST(ApiRobustness, QueryFiltersMayDestroyAndCreateBodies) {
    const ShapePtr probe = create_sphere(10).value();
    using Query = std::function<std::size_t(World&, const BodyFilter&)>;
    const std::vector<std::pair<const char*, Query>> queries = {
        {"cast_ray_all",
         [](World& w, const BodyFilter& f) {
             return w.cast_ray_all(Vec3(-1, 0, 0), Vec3(1, 0, 0), 100, f).value().size();
         }},
        {"query_box",
         [](World& w, const BodyFilter& f) {
             return w.query_box(Vec3(-1, -1, -1), Vec3(9, 1, 1), f).value().size();
         }},
        {"query_shape",
         [&](World& w, const BodyFilter& f) {
             return w.query_shape(probe, Pose{Vec3(3.5, 0, 0)}, f).value().size();
         }},
        {"cast_shape_all",
         [](World& w, const BodyFilter& f) {
             return w.cast_shape_all(create_sphere(0.05).value(), Pose{Vec3(-1, 0, 0)}, Vec3(10, 0, 0), f)
                 .value()
                 .size();
         }},
        {"query_point",
         [](World& w, const BodyFilter& f) { return w.query_point(Vec3(2, 0, 0), f).value().size(); }},
    };
    for (const auto& [name, query] : queries) {
        SCOPED_TRACE(name);
        std::vector<BodyId> ids;
        World w = row_of_balls(ids);
        std::size_t shown = 0;
        const std::size_t destroyed_all = query(w, [&](BodyId id) {
            ++shown;
            EXPECT_TRUE(w.destroy_body(id));
            return true;
        });
        EXPECT_GT(shown, 0u) << "the filter was never called";
        EXPECT_EQ(destroyed_all, 0u) << "a body destroyed by the filter was reported";
        EXPECT_EQ(w.body_count(), 8 - shown);

        std::vector<BodyId> ids2;
        World grown = row_of_balls(ids2);
        std::size_t created = 0;
        const std::size_t kept = query(grown, [&](BodyId) {
            for (int k = 0; k < 200; ++k, ++created)
                EXPECT_TRUE(grown.create_body(ball_at(Vec3(0, 50 + created, 0))));
            return true;
        });
        EXPECT_GT(kept, 0u);
        EXPECT_EQ(grown.body_count(), 8 + created);
        // The same query without a filter sees the same bodies: the created ones are far away.
        EXPECT_EQ(query(grown, {}), kept);
    }
}

// A listener that steps the world and replaces itself while it runs: the outer step's events are all
// delivered, and the world stays consistent.
TEST(ApiRobustness, ContactListenerMayStepAndReplaceItself) {
    World w;
    ASSERT_TRUE(w.create_body({.shape = create_plane(Vec3(0, 0, 1), 0).value(), .is_static = true}));
    std::vector<BodyId> balls;
    for (int i = 0; i < 4; ++i) balls.push_back(w.create_body(ball_at(Vec3(i, 0, 0.101))).value());
    int calls = 0, inner_steps = 0;
    ASSERT_TRUE(w.set_contact_listener([&](const ContactEvent&) {
        ++calls;
        if (inner_steps < 3) {
            ++inner_steps;
            EXPECT_TRUE(w.step(1.0 / 240));
        }
        EXPECT_TRUE(w.set_contact_listener([&](const ContactEvent&) { ++calls; }));
    }));
    for (int i = 0; i < 60; ++i) ASSERT_TRUE(w.step(1.0 / 240));
    // Four balls land on the plane and stay: four begins over the run, each delivered once.
    EXPECT_EQ(calls, 4);
    EXPECT_EQ(w.step_count(), 60u + static_cast<std::uint64_t>(inner_steps));
    for (const BodyId b : balls) EXPECT_TRUE(w.state(b).value().pose.position.allFinite());
}

// An impulse or force whose result overflows is refused like a non-finite one, and changes nothing: a
// velocity of inf would make every later step fail and roll back to it.
TEST(ApiRobustness, ImpulsesAndForcesWhoseResultOverflowsAreRefused) {
    World w;
    const BodyId grain = w.create_body({.shape = create_sphere(0.01).value(), .mass = 1e-3}).value();
    const BodyState before = w.state(grain).value();
    const Status impulse = w.apply_impulse(grain, Vec3(1e306, 0, 0), Vec3::Zero());
    ASSERT_FALSE(impulse);
    EXPECT_EQ(impulse.error().code, ErrorCode::invalid_argument) << impulse.error().message;
    EXPECT_NE(impulse.error().message.find("impulse"), std::string::npos) << impulse.error().message;
    // 1e301 N m s over 0.4 m r^2 = 4e-8 kg m^2 is 2.5e308 rad/s, beyond the largest double.
    EXPECT_FALSE(w.apply_angular_impulse(grain, Vec3(0, 0, 1e301)));
    EXPECT_EQ(w.state(grain).value().velocity, before.velocity);
    EXPECT_EQ(w.state(grain).value().angular_velocity, before.angular_velocity);

    World heavy;
    const BodyId anvil = heavy.create_body({.shape = create_sphere(1).value(), .mass = 1}).value();
    ASSERT_TRUE(heavy.add_force(anvil, Vec3(1e308, 0, 0)));
    const Status twice = heavy.add_force(anvil, Vec3(1e308, 0, 0));
    ASSERT_FALSE(twice);
    EXPECT_NE(twice.error().message.find("force"), std::string::npos) << twice.error().message;
    EXPECT_FALSE(heavy.add_force_at_point(anvil, Vec3(1e308, 0, 0), Vec3::Zero()));
    // The accepted force alone is finite, and so is the step it drives (1e308 N on 1 kg for 1e-300 s).
    ASSERT_TRUE(heavy.step(1e-300));
    EXPECT_NEAR(heavy.state(anvil).value().velocity.x(), 1e8, 1e-6 * 1e8);

    World spun;
    const BodyId top = spun.create_body({.shape = create_sphere(1).value(), .mass = 1}).value();
    ASSERT_TRUE(spun.add_torque(top, Vec3(0, 1e308, 0)));
    EXPECT_FALSE(spun.add_torque(top, Vec3(0, 1e308, 0)));
}

// A cable's derived coefficients (EA / L, 4 EI / l^3) that overflow are refused naming the field the caller
// set; a cable whose last control point's mass the bodies refuse (too light for its inertia to invert) is
// taken back whole. Before, its first control points stayed in the world as bodies nobody owned, falling.
TEST(ApiRobustness, AFailedCableLeavesNothingBehind) {
    World w;
    CableDesc stiff;
    for (int i = 0; i < 4; ++i) stiff.points.push_back(Vec3(1e-3 * i, 0, 1));
    stiff.stretch_stiffness = 1e306;
    const Result<CableId> a = w.add_cable(stiff);
    ASSERT_FALSE(a);
    EXPECT_EQ(a.error().code, ErrorCode::invalid_argument);
    EXPECT_EQ(a.error().message.rfind("stretch_stiffness: ", 0), 0u) << a.error().message;
    CableDesc bent = stiff;
    bent.stretch_stiffness = 1e6;
    bent.bend_stiffness = 1e300;
    const Result<CableId> b = w.add_cable(bent);
    ASSERT_FALSE(b);
    EXPECT_EQ(b.error().message.rfind("bend_stiffness: ", 0), 0u) << b.error().message;

    // Links of 1, 1 and 1e-6 m: the last point carries 2.5e-7 of the mass, 2.5e-306 kg, whose inertia
    // (0.4 m r^2 = 1e-310 kg m^2) has no finite inverse; the three before it are usable.
    CableDesc light;
    light.points = {Vec3(0, 0, 1), Vec3(1, 0, 1), Vec3(2, 0, 1), Vec3(2 + 1e-6, 0, 1)};
    light.mass = 1e-299;
    const Result<CableId> c = w.add_cable(light);
    ASSERT_FALSE(c);
    EXPECT_EQ(c.error().code, ErrorCode::invalid_argument) << c.error().message;
    EXPECT_EQ(w.cable_count(), 0u);
    // Nothing left to fall: after a second of gravity the world still has no momentum and no energy.
    for (int i = 0; i < 60; ++i) ASSERT_TRUE(w.step(1.0 / 60));
    EXPECT_EQ(w.linear_momentum(), Vec3::Zero());
    EXPECT_EQ(w.energy().kinetic, 0.0);
    // And the slots are reused cleanly by a cable that works.
    light.mass = 1;
    const Result<CableId> d = w.add_cable(light);
    ASSERT_TRUE(d) << d.error().message;
    ASSERT_TRUE(w.step(1.0 / 60));
    EXPECT_EQ(w.cable_points(*d).value().size(), 4u);
}

// Vectors with components beyond ~1e154 are finite, but their plain norm's square overflows: a hinge axis
// of (0, 0, 1e200) is the z axis, and a ray cast downwards with direction (0, 0, -1e200) hits.
TEST(ApiRobustness, HugeFiniteDirectionsAreNormalisedExactly) {
    auto spun = [](const Vec3& axis) {
        WorldSettings s;
        s.gravity = Vec3::Zero();
        World w = World::create(s).value();
        const BodyId wheel = w.create_body({.shape = create_box(Vec3(0.2, 0.1, 0.05)).value()}).value();
        JointDesc hinge;
        hinge.type = JointType::hinge;
        hinge.body_a = wheel;
        hinge.anchor = Vec3::Zero();
        hinge.axis = axis;
        EXPECT_TRUE(w.add_joint(hinge));
        EXPECT_TRUE(w.set_angular_velocity(wheel, Vec3(1, 2, 3)));
        for (int i = 0; i < 20; ++i) EXPECT_TRUE(w.step(0.01));
        return w.state(wheel).value();
    };
    const BodyState unit = spun(Vec3(0, 0, 1)), huge = spun(Vec3(0, 0, 1e200));
    EXPECT_EQ(huge.angular_velocity, unit.angular_velocity);
    EXPECT_EQ(huge.pose.orientation.coeffs(), unit.pose.orientation.coeffs());
    EXPECT_NEAR(unit.angular_velocity.head<2>().norm(), 0, 1e-9) << "the hinge turns about z only";

    World w;
    ASSERT_TRUE(w.create_body(ball_at(Vec3(0, 0, 0), 1)));
    const auto hit = w.cast_ray(Vec3(0, 0, 5), Vec3(0, 0, -1e200), 10).value();
    ASSERT_TRUE(hit.has_value());
    EXPECT_NEAR(hit->distance, 4, 1e-12);
}

// The pair table is dense: a world holds at most 1024 materials, and the one beyond is refused without
// changing the table.
TEST(ApiRobustness, MaterialsAreBoundedAndARefusedOneChangesNothing) {
    World w;
    MaterialId last = 0;
    for (int i = 1; i < 1024; ++i) last = w.add_material({.friction = 0.001 * i}).value();
    EXPECT_EQ(last, 1023u);
    const Result<MaterialId> beyond = w.add_material({});
    ASSERT_FALSE(beyond);
    EXPECT_EQ(beyond.error().code, ErrorCode::invalid_argument);
    EXPECT_NE(beyond.error().message.find("1024"), std::string::npos) << beyond.error().message;
    EXPECT_TRUE(w.set_material_pair(1023, 1, 0.25, 0.5));
    EXPECT_FALSE(w.set_material_pair(1024, 1, 0.25, 0.5));
}

// destroy_body drops the springs on the body like remove_spring: the body at the other end wakes.
// A World moved from answers every call as a new World does (the C++ rule for moved-from objects: valid,
// state unspecified, here specified as empty), including calls that build it up again and step it; the
// World moved to holds the bodies.
TEST(ApiRobustness, AWorldMovedFromIsANewEmptyWorld) {
    std::vector<BodyId> ids;
    World original = row_of_balls(ids);
    ASSERT_TRUE(original.step(0.01));
    World moved_to = std::move(original);
    EXPECT_EQ(moved_to.body_count(), 8u);
    EXPECT_TRUE(moved_to.is_valid(ids[3]));
    World fresh;
    World& empty = original;  // NOLINT(bugprone-use-after-move): the behaviour under test
    EXPECT_EQ(empty.body_count(), fresh.body_count());
    EXPECT_EQ(empty.cable_count(), fresh.cable_count());
    EXPECT_FALSE(empty.is_valid(ids[3]));
    EXPECT_EQ(empty.time(), fresh.time());
    EXPECT_EQ(empty.step_count(), fresh.step_count());
    EXPECT_EQ(empty.last_substeps(), fresh.last_substeps());
    EXPECT_EQ(empty.max_joint_error(), fresh.max_joint_error());
    EXPECT_EQ(empty.energy().kinetic, fresh.energy().kinetic);
    EXPECT_EQ(empty.energy().potential, fresh.energy().potential);
    EXPECT_EQ(empty.linear_momentum(), fresh.linear_momentum());
    EXPECT_EQ(empty.angular_momentum(Vec3(1, 2, 3)), fresh.angular_momentum(Vec3(1, 2, 3)));
    EXPECT_EQ(empty.settings().gravity, fresh.settings().gravity);
    EXPECT_EQ(empty.settings().solver.tolerance, fresh.settings().solver.tolerance);
    EXPECT_EQ(empty.solver_stats().islands, fresh.solver_stats().islands);
    EXPECT_EQ(empty.solver_stats().rows, fresh.solver_stats().rows);
    EXPECT_EQ(empty.collision_stats().pairs, fresh.collision_stats().pairs);
    EXPECT_TRUE(empty.contact_events().empty());
    EXPECT_TRUE(empty.contact_manifolds().empty());
    const Result<BodyState> state = empty.state(ids[3]);
    ASSERT_FALSE(state);
    EXPECT_EQ(state.error().code, ErrorCode::invalid_id) << state.error().message;
    EXPECT_TRUE(empty.cast_ray_all(Vec3(-1, 0, 0), Vec3(1, 0, 0), 100).value().empty());
    // Built up again: a ball falls freely under the default gravity.
    const BodyId ball = empty.create_body(ball_at(Vec3(0, 0, 10))).value();
    ASSERT_TRUE(empty.step(0.01));
    const double vz = empty.state(ball).value().velocity.z();
    EXPECT_NEAR(vz, -9.81 * 0.01, 1e-12) << "vz " << vz;
    EXPECT_EQ(moved_to.body_count(), 8u);
}

TEST(ApiRobustness, DestroyingABodyWakesWhatItsSpringsHeld) {
    World w;
    ASSERT_TRUE(w.create_body({.shape = create_plane(Vec3(0, 0, 1), 0).value(), .is_static = true}));
    const BodyId holder =
        w.create_body({.shape = create_box(Vec3(0.2, 0.2, 0.2)).value(), .pose = {Vec3(0, 0, 0.1)}}).value();
    const BodyId bob =
        w.create_body({.shape = create_box(Vec3(0.2, 0.2, 0.2)).value(), .pose = {Vec3(1, 0, 0.1)}}).value();
    ASSERT_TRUE(w.add_spring({.body_a = holder,
                              .body_b = bob,
                              .anchor_a = Vec3(0, 0, 0.1),
                              .anchor_b = Vec3(1, 0, 0.1),
                              .stiffness = 10,
                              .rest_length = 1}));
    for (int i = 0; i < 600 && !w.is_asleep(bob).value(); ++i) ASSERT_TRUE(w.step(1.0 / 60));
    ASSERT_TRUE(w.is_asleep(bob).value()) << "the pair at rest should fall asleep";
    ASSERT_TRUE(w.destroy_body(holder));
    EXPECT_FALSE(w.is_asleep(bob).value());
}

}  // namespace
}  // namespace simpulse::test
