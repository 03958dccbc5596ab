// Speculative manifolds set aside and woken (dynamics/src/speculative_manifolds.cpp): bodies that move
// together give the solve no rows, however close they pass, and a body stopped within the step brings back
// the manifolds its stop makes reachable, so the speculative contact still stops the body behind it at the
// surface.
#include "world_fixture.h"

#include <simpulse/dynamics/world.h>

#include <gtest/gtest.h>

#include <vector>

namespace simpulse::test {
namespace {

constexpr double kHalf = 0.25;  // boxes of 0.5 m
constexpr double kDt = 1.0 / 60;

BodyId add_falling_box(DynamicsWorld& w, const Vec3& position, double speed) {
    BodyDesc d = box_desc(Vec3::Constant(kHalf), position);
    d.velocity = Vec3(0, 0, -speed);
    return w.create_body(d);
}

// A 3 x 3 grid of boxes 2 cm apart falls at 4 m/s: each box reaches 6.7 cm in a step, so the collision stage
// finds every neighbour within its speculative margin, but their relative motion is zero. The solve gets no
// row until the grid nears the ground (before, the 12 neighbour manifolds made one island of 9 bodies).
TEST(SpeculativeManifolds, BoxesFallingSideBySideGiveTheSolveNoRows) {
    DynamicsWorld w(never_sleeping());
    add_ground(w);
    const double pitch = 2 * kHalf + 0.02;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) add_falling_box(w, Vec3(i * pitch, j * pitch, 3.0), 4.0);
    for (int step = 0; step < 10; ++step) {  // 10 steps: the grid falls about 0.8 m, to 2.2 m
        ASSERT_TRUE(w.step(kDt).ok);
        EXPECT_EQ(w.collision_stats().set_aside, 12) << "step " << step;
        EXPECT_EQ(w.solver_stats().rows, 0) << "step " << step;
        EXPECT_EQ(w.collision_stats().woken, 0) << "step " << step;
    }
}

// Two boxes fall together at 3 m/s, 2 cm apart, the lower one 1 cm above the ground; a step at 60 Hz moves
// them 5 cm. In the first step the lower one lands, and the upper one, whose manifold with it was set aside
// (no relative motion), would go on 5 cm and end 3 cm deep in it. The solved velocities reach that manifold,
// so it is woken and the velocities solved again: the speculative row stops the upper box at the lower one's
// top, as the ground's stops the lower box at the ground.
TEST(SpeculativeManifolds, ABoxStoppedWithinTheStepWakesTheManifoldAboveIt) {
    WorldSettings settings = never_sleeping();
    settings.gravity = Vec3::Zero();  // the closed form below: the boxes move at 3 m/s until they stop
    DynamicsWorld w(settings);
    add_ground(w);
    const double gap = 0.02, clearance = 0.01, speed = 3.0;
    const BodyId lower = add_falling_box(w, Vec3(0, 0, kHalf + clearance), speed);
    const BodyId upper = add_falling_box(w, Vec3(0, 0, 3 * kHalf + clearance + gap), speed);
    ASSERT_TRUE(w.step(kDt).ok);
    EXPECT_GE(w.collision_stats().woken, 1);
    const double lower_bottom = w.body(lower).pose().position.z() - kHalf;
    const double between = (w.body(upper).pose().position.z() - kHalf) - (lower_bottom + 2 * kHalf);
    // Each speculative row lets its gap close and no more: nothing of the 5 cm the upper box would travel
    // beyond it (round-off allowed for).
    EXPECT_GT(lower_bottom, -1e-9) << "the lower box ends " << -lower_bottom << " m deep in the ground";
    EXPECT_GT(between, -1e-9) << "the upper box ends " << -between << " m deep in the lower one";
    EXPECT_LT(between, settings.contact_margin) << "the upper box stops " << between << " m short";
}

}  // namespace
}  // namespace simpulse::test
