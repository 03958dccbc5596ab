// Fixed findings of the stress run (bench/stress_findings/README.md), run through the World API on the
// reproducer scenes themselves: what they did before their fix cannot come back unnoticed.
#include <simpulse/run.h>

#include "engine_test_support.h"

#include <gtest/gtest.h>

#include <cmath>

namespace simpulse::test {
namespace {

TEST(StressFindings, HingeOfTwoBallJointsWithUnreachableTargetsStaysFiniteAndDissipative) {
    // 24 bodies, joints among them; b1 hangs on b10 by two ball joints (a hinge: six rows of rank five). At
    // step 66 the direct solver's fallback QP met joint targets with a part along the hinge's null space, and
    // its regularised steps multiplied it until the impulses overflowed (3e164) and b1 went non-finite. The
    // scene is dissipative (restitution 0, friction): after the first step, whose projection settles the
    // initial overlaps, the total energy may only rise by the small work of the position projection and the
    // joints' curvature targets (measured: at most 0.8 mJ in a step, of 8.08 J); 1 % of it bounds that.
    const Result<SceneDesc> scene = load_scene(repo_path("bench/stress_findings/unreduced_s126.json"));
    ASSERT_TRUE(scene) << scene.error().message;
    Result<SceneWorld> built = build_world(scene.value());
    ASSERT_TRUE(built) << built.error().message;
    World& world = built.value().world;
    double first = 0, highest = 0;
    for (int step = 1; step <= 72; ++step) {  // the failure came at step 66
        const Status status = world.step(scene.value().dt);
        ASSERT_TRUE(status) << "step " << step << ": " << status.error().message;
        const Energy e = world.energy();
        const double total = e.kinetic + e.potential;
        ASSERT_TRUE(std::isfinite(total)) << "step " << step;
        if (step == 1) first = total;
        highest = std::max(highest, total);
    }
    EXPECT_LE(highest, first + 0.01 * std::abs(first))
        << "total energy rose from " << first << " J after the first step to " << highest << " J";
}

}  // namespace
}  // namespace simpulse::test
