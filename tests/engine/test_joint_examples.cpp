// The joint examples in scenes/ (door.json, ragdoll.json, car.json; examples/ builds the same worlds through
// the API), stepped in process so that every step can be checked: the door's motor swings it open, never
// faster than its speed nor harder than its torque, until its hinge limit stops it; the ragdoll comes to
// rest on the crate and the ground with every hinge inside its limits and every joint holding; the car's
// wheel motors drive it over the hills without flipping it or losing a wheel.
#include <simpulse/app/run.h>

#include "engine_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

namespace simpulse::test {
namespace {

// A scene's world, stepped by run_example.
struct ExampleRun {
    SceneDesc scene;
    SceneWorld built;

    std::size_t index(const std::string& name) const {
        for (std::size_t i = 0; i < scene.bodies.size(); ++i)
            if (scene.bodies[i].name == name) return i;
        ADD_FAILURE() << "no body " << name;
        return 0;
    }
    BodyState state(const std::string& name) const {
        return built.world.state(built.bodies[index(name)]).value();
    }
    // How far a body has turned since the start (a body index, or kSceneWorld: the world never turns).
    Quat turned(std::size_t body) const {
        if (body == kSceneWorld) return Quat::Identity();
        return built.world.state(built.bodies[body]).value().pose.orientation *
               scene.bodies[body].desc.pose.orientation.conjugate();
    }
    // A hinge's angle as the solver defines it: B's turn relative to A about the axis, 0 at the start.
    double hinge_angle(const SceneJoint& joint) const {
        const Vec3 axis = joint.axis.normalized(), across = axis.unitOrthogonal();
        const Vec3 from = turned(joint.body_a) * across, to = turned(joint.body_b) * across;
        return std::atan2(from.cross(to).dot(turned(joint.body_a) * axis), from.dot(to));
    }
};

// Loads scenes/FILE, builds its world and steps it for the scene's duration, calling `after_step` after
// every step; a step that fails (a non-finite state) fails the test with its message.
ExampleRun run_example(const std::string& file, const std::function<void(const ExampleRun&)>& after_step) {
    Result<SceneDesc> scene = load_scene(repo_path("scenes/" + file));
    EXPECT_TRUE(scene.ok()) << scene.error().message;
    Result<SceneWorld> built = build_world(scene.value());
    EXPECT_TRUE(built.ok()) << built.error().message;
    ExampleRun run{std::move(scene).value(), std::move(built).value()};
    step_scene_world(file, run.scene, run.built, [&] { after_step(run); });
    return run;
}

// door.json: the motor (1 rad/s, 20 N m) swings the door open; the angle only grows, the door never turns
// faster than the motor's speed, and until the limit engages the hinge's torque about its axis is the
// motor's alone, at most 20 N m. The limit stops the door at 1.6 rad (the projection closes it to 1e-9;
// 1e-6 allows for the angle's own rounding), and there the motor and the limit push equally, leaving no
// torque about the axis: nothing else turns the door about a vertical axis.
TEST(JointExamples, DoorSwingsOpenUnderItsMotorUntilItsLimitStopsIt) {
    double previous = 0, worst_backwards = 0, fastest = 0, hardest_free = 0;
    const ExampleRun run = run_example("door.json", [&](const ExampleRun& r) {
        const double angle = r.hinge_angle(r.scene.joints[0]);
        worst_backwards = std::max(worst_backwards, previous - angle);
        previous = angle;
        fastest = std::max(fastest, r.state("door").angular_velocity.z());
        if (angle < 1.6 - 1e-6) {
            const JointReaction reaction = r.built.world.joint_reaction(r.built.joints[0]).value();
            hardest_free = std::max(hardest_free, std::abs(reaction.torque.z()));
        }
    });
    const double angle = run.hinge_angle(run.scene.joints[0]);
    const JointReaction reaction = run.built.world.joint_reaction(run.built.joints[0]).value();
    std::printf(
        "door: final angle %.12f rad, fastest %.12f rad/s, motor torque up to %.12f N m, final torque "
        "about the axis %.3g N m\n",
        angle, fastest, hardest_free, reaction.torque.z());
    EXPECT_NEAR(angle, 1.6, 1e-6) << "the door ended " << angle << " rad open";
    EXPECT_LE(worst_backwards, 1e-9) << "the door turned back by " << worst_backwards << " rad";
    EXPECT_LE(fastest, 1 + 1e-9) << "the door turned at " << fastest << " rad/s";
    EXPECT_GT(fastest, 1 - 1e-9) << "the motor only reached " << fastest << " rad/s";
    EXPECT_LE(hardest_free, 20 * (1 + 1e-9)) << "the motor exerted " << hardest_free << " N m";
    EXPECT_LT(std::abs(reaction.torque.z()), 1e-6) << "torque about the axis at rest " << reaction.torque.z();
    EXPECT_LT(std::abs(run.state("door").angular_velocity.z()), 1e-9);
    EXPECT_LT(run.built.world.max_joint_error(), 1e-9);
}

// ragdoll.json: no contact with the crate or the ground is ever deeper than the solver's penetration slop
// (left uncorrected by design) plus what one step of gravity adds (g dt^2 = 0.17 mm; contact depths of
// sleeping bodies are not reported, but they do not move); every hinge angle stays within its limits (1e-6
// rad) and every joint within 1e-6 (m or rad) after every step; after 4 s every part rests (slower than the
// sleep speed) above the ground.
TEST(JointExamples, RagdollComesToRestWithItsHingesInsideTheirLimits) {
    double worst_error = 0, worst_outside = 0, deepest = 0;
    const ExampleRun run = run_example("ragdoll.json", [&](const ExampleRun& r) {
        worst_error = std::max(worst_error, r.built.world.max_joint_error());
        for (const BodyManifold& m : r.built.world.contact_manifolds())
            for (int k = 0; k < m.manifold.count; ++k)
                deepest = std::max(deepest, m.manifold.points[k].depth);
        for (const SceneJoint& joint : r.scene.joints) {
            if (joint.type != JointType::hinge) continue;
            const double angle = r.hinge_angle(joint);
            worst_outside = std::max({worst_outside, joint.limit.lower - angle, angle - joint.limit.upper});
        }
    });
    std::printf("ragdoll: largest joint error %.3g, farthest outside a hinge limit %.3g rad\n", worst_error,
                worst_outside);
    EXPECT_LT(worst_error, 1e-6);
    EXPECT_LT(worst_outside, 1e-6);
    const double slop = run.scene.settings.solver.penetration_slop, g = 9.81, dt = run.scene.dt;
    std::printf("ragdoll: deepest contact %.3g m\n", deepest);
    EXPECT_LE(deepest, slop + g * dt * dt) << "deepest contact " << deepest << " m";
    for (std::size_t i = 2; i < run.scene.bodies.size(); ++i) {
        const BodyState s = run.built.world.state(run.built.bodies[i]).value();
        EXPECT_GT(s.pose.position.z(), 0) << run.scene.bodies[i].name;
        EXPECT_LT(s.velocity.norm(), run.scene.settings.sleep_speed) << run.scene.bodies[i].name;
    }
}

// car.json: four wheel motors at 6 rad/s on 0.3 m wheels would roll the car 1.8 m/s x 5 s = 9 m without slip.
// The motors' 4 x 100 N m / 0.3 m = 1333 N bring the 360 kg car to that speed in about 0.5 s (costing about
// 0.5 m), and they keep it up the 15-degree slopes (which take 914 N, with friction 0.9 > tan 15 degrees);
// the path over the hills is a few per cent longer than its run along x. The remaining allowance, to 3/4 of
// 9 m, is for the rigid wheels slipping and leaving the ground over the crests. The chassis' up axis stays
// within 45 degrees of the vertical (the hills are at most 15 degrees steep) and the axles hold to 1e-6 m.
TEST(JointExamples, CarDrivesOverTheHillsWithoutFlippingOrLosingAWheel) {
    double worst_error = 0, lowest_up = 1;
    const ExampleRun run = run_example("car.json", [&](const ExampleRun& r) {
        worst_error = std::max(worst_error, r.built.world.max_joint_error());
        lowest_up = std::min(lowest_up, (r.state("chassis").pose.orientation * Vec3::UnitZ()).z());
    });
    const double driven = run.state("chassis").pose.position.x() -
                          run.scene.bodies[run.index("chassis")].desc.pose.position.x();
    std::printf("car: driven %.4f m, lowest up . z %.4f, largest joint error %.3g\n", driven, lowest_up,
                worst_error);
    EXPECT_GT(driven, 0.75 * 0.3 * 6 * run.scene.duration) << "driven " << driven << " m";
    EXPECT_GT(lowest_up, 0.7) << "the chassis tilted to up . z = " << lowest_up;
    EXPECT_LT(worst_error, 1e-6);
}

}  // namespace
}  // namespace simpulse::test
