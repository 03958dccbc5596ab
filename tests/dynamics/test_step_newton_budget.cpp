// The Newton method's budget is spent once per step and island (solver/src/island_method.cpp): after a
// substep in which an island's Newton solve ran out its budget short of the tolerance, the step's later
// substeps give the islands holding any of its bodies a tenth of it, so a step that is split (here by a
// spinning hinge, up to max_substeps) does not repeat a hopeless solve in every substep. A step of one
// substep, the first substep of every step, and islands that share no body with a capped one keep the whole
// budget.
#include "world_fixture.h"

#include <simpulse/dynamics/world.h>

#include <gtest/gtest.h>

namespace simpulse::test {
namespace {

constexpr int kBudget = 10;  // factorisations per solve

// A tower of eight tilted boxes landing on the ground, every island solved by the Newton method alone from a
// cold start (no direct method, one sweep, no warm start) with a budget of kBudget factorisations, which the
// landing needs more than; and, apart from it, a box spinning at 40 rad/s on a hinge, which turns by 0.67 rad
// in a step of 1/60 s, more than max_joint_rotation (0.1 rad): every step is split, down to max_substeps.
DynamicsWorld hopeless_tower(int max_substeps) {
    WorldSettings s = never_sleeping();
    s.max_substeps = max_substeps;
    s.solver.direct_max_rows = 0;
    s.solver.max_iterations = 1;
    s.solver.iterative_tolerance = 1e-300;
    s.solver.iterative_accept = 0;
    s.solver.warm_start = false;
    s.solver.newton_max_factorizations = kBudget;
    DynamicsWorld w(s);
    add_ground(w);
    for (int k = 0; k < 8; ++k) {
        BodyDesc d = box_desc(Vec3(0.5, 0.5, 0.25), Vec3(0.02 * k, 0, 0.26 + 0.52 * k));
        d.pose.orientation = Quat(Eigen::AngleAxisd(0.05 * (k % 2 ? 1 : -1), Vec3::UnitX()));
        w.create_body(d);
    }
    BodyDesc wheel = box_desc(Vec3(0.3, 0.05, 0.3), Vec3(5, 0, 2));
    wheel.angular_velocity = Vec3(0, 40, 0);
    const BodyId spinning = w.create_body(wheel);
    JointDesc hinge;
    hinge.type = JointType::hinge;
    hinge.body_a = spinning;
    hinge.anchor = Vec3(5, 0, 2);
    hinge.axis = Vec3::UnitY();
    w.add_joint(hinge);
    return w;
}

TEST(StepNewtonBudget, LaterSubstepsOfAStepWithACappedSolveGetATenth) {
    // One substep per step: a solve that runs out its budget has had all of it.
    DynamicsWorld whole = hopeless_tower(1);
    int capped_steps = 0;
    for (int i = 0; i < 10; ++i) {
        ASSERT_TRUE(whole.step(1.0 / 60).ok);
        ASSERT_EQ(whole.last_substeps(), 1);
        const SolverStats& stats = whole.solver_stats();
        if (stats.newton_capped == 0) continue;
        ++capped_steps;
        // At least one solve ran its whole budget; no solve had more (the rule does not leak across steps).
        EXPECT_GE(stats.factorizations, kBudget) << "step " << i;
        EXPECT_LE(stats.factorizations, stats.newton_islands * kBudget) << "step " << i;
    }
    ASSERT_GT(capped_steps, 0) << "the tower's solves do not run out their budget: nothing to test";

    // Split steps: a last substep whose solve ran out its budget had a tenth of it (one factorisation per
    // Newton solve), the step's earlier substeps having run out theirs.
    DynamicsWorld split = hopeless_tower(8);
    int capped_last_substeps = 0;
    for (int i = 0; i < 10; ++i) {
        ASSERT_TRUE(split.step(1.0 / 60).ok);
        ASSERT_GT(split.last_substeps(), 1) << "step " << i << " was not split";
        const SolverStats& stats = split.solver_stats();
        if (stats.newton_capped == 0) continue;
        ++capped_last_substeps;
        EXPECT_LE(stats.factorizations, stats.newton_islands * (kBudget / 10))
            << "step " << i << ": " << stats.factorizations << " factorisations in " << stats.newton_islands
            << " Newton solves of its last substep";
    }
    EXPECT_GT(capped_last_substeps, 0) << "no split step ran out its budget: nothing tested";
}

TEST(StepNewtonBudget, AnIslandSharingNoBodyWithTheCappedOneKeepsTheWholeBudget) {
    // Beside the hopeless tower, 3 m away on the same ground, a tilted box landing, whose Newton solves in
    // the split steps take 2 factorisations: more than a tenth of the budget (1), less than all of it.
    DynamicsWorld w = hopeless_tower(8);
    BodyDesc d = box_desc(Vec3(0.5, 0.5, 0.25), Vec3(-3, 0, 0.26));
    d.pose.orientation = Quat(Eigen::AngleAxisd(0.05, Vec3::UnitX()));
    w.create_body(d);
    int capped_last_substeps = 0;
    for (int i = 0; i < 10; ++i) {
        ASSERT_TRUE(w.step(1.0 / 60).ok);
        ASSERT_GT(w.last_substeps(), 1) << "step " << i << " was not split";
        const SolverStats& stats = w.solver_stats();
        if (stats.newton_capped == 0) continue;
        ++capped_last_substeps;
        // Only the hopeless tower ran out its (tenth of the) budget; the small tower, with the whole budget,
        // reached the tolerance and took more factorisations than a tenth of the budget per island allows.
        EXPECT_EQ(stats.newton_capped, 1)
            << "step " << i << ": " << stats.newton_capped << " capped solves of " << stats.newton_islands
            << " in its last substep";
        EXPECT_GT(stats.factorizations, stats.newton_islands * (kBudget / 10))
            << "step " << i << ": " << stats.factorizations << " factorisations in " << stats.newton_islands
            << " Newton solves of its last substep";
    }
    EXPECT_GT(capped_last_substeps, 0) << "no split step ran out its budget: nothing tested";
}

}  // namespace
}  // namespace simpulse::test
