// Restitution at the scene level, against closed forms (issue 4): a ball dropped from h rebounds to e^2 h in
// both solver modes, and a ball at e = 1 bouncing at a game step (60 Hz), with whole steps or steps split at
// the impact, rises back to its drop height after each of 40 bounces.
#include "world_fixture.h"

#include <simpulse/dynamics/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace simpulse::test {
namespace {

// A ball dropped from h rebounds to e^2 h. The step size is part of the claim: semi-implicit Euler with the
// bounce resolved at a step boundary errs by up to about v dt (1 + e) / 2 in height, v = sqrt(2 g h); the
// steps below keep that under 0.7 % of e^2 h for e >= 0.5 (the thesis mode uses the thesis' step, 0.0003 s).
TEST_P(BothModes, BallReboundsToESquaredTimesTheDropHeight) {
    const double h = 1.0, r = 0.1;
    const double dt = GetParam() == SolverMode::thesis ? 0.0003 : 0.0005;
    for (double e : {0.5, 0.8, 1.0}) {
        DynamicsWorld w(settings_for(GetParam()));
        w.materials().set(0, Material{0.5, e, 1000});
        add_ground(w);
        BodyDesc b;
        b.shape = make_sphere(r);
        b.pose.position = Vec3(0, 0, r + h);
        const BodyId ball = w.create_body(b);
        double apex = 0, previous_vz = 0;
        int bounces = 0;
        for (int i = 0; i < static_cast<int>(3.0 / dt) && bounces < 2; ++i) {
            ASSERT_TRUE(w.step(dt).ok);
            const Body& body = w.body(ball);
            if (previous_vz < 0 && body.velocity.z() > 0) ++bounces;
            if (bounces == 1) apex = std::max(apex, body.com_position.z() - r);
            previous_vz = body.velocity.z();
        }
        const double expected = e * e * h;
        EXPECT_NEAR(apex / expected, 1.0, 0.01)
            << "e " << e << ": rebound " << apex << " m, e^2 h " << expected << " m";
    }
}

// A ball at e = 1 bouncing on the ground at 60 Hz, whole steps or split at the impact (max_impact_gap 1 mm):
// it must rise to its drop height after every bounce, over 40 bounces. Two corrections make that hold at a
// game step: the solve sees the step's mid-point velocity, so the rebound is corrected for when in the step
// the ball meets the ground (and the position projection for where), and split substeps restagger the
// carried velocity to their length. The tolerance is the apex's sampling at the step, g dt^2 / 4 (0.7 mm).
// Before them: whole steps alternated between 0.9865 m and 1.0000 m (13.5 mm), split steps lost 7 % of the
// height per bounce (0.58 m after 7 bounces); measured now: within 0.3 mm.
TEST(Restitution, BallAtFullRestitutionReturnsToItsDropHeightAtAGameStep) {
    const double h = 1.0, r = 0.1, dt = 1.0 / 60;
    for (const double impact_gap : {1e9, kDefaultImpactGap}) {
        WorldSettings ws;
        ws.allow_sleeping = false;
        ws.max_impact_gap = impact_gap;
        DynamicsWorld w(ws);
        w.materials().set(0, Material{0.0, 1.0, 1000});
        add_ground(w);
        BodyDesc b;
        b.shape = make_sphere(r);
        b.pose.position = Vec3(0, 0, r + h);
        const BodyId ball = w.create_body(b);
        double apex = 0, worst = 0, previous_vz = 0;
        int apexes = 0;
        for (int i = 0; i < static_cast<int>(40.0 / dt) && apexes < 40; ++i) {
            ASSERT_TRUE(w.step(dt).ok);
            const Body& body = w.body(ball);
            apex = std::max(apex, body.com_position.z() - r);
            if (previous_vz > 0 && body.velocity.z() <= 0) {
                worst = std::max(worst, std::abs(apex - h));
                ++apexes;
            }
            if (body.velocity.z() < 0) apex = 0;
            previous_vz = body.velocity.z();
        }
        EXPECT_EQ(apexes, 40) << "max_impact_gap " << impact_gap;
        EXPECT_LE(worst, kG * dt * dt / 4)
            << "max_impact_gap " << impact_gap << ": an apex " << worst << " m off the drop height";
    }
}

INSTANTIATE_TEST_SUITE_P(Modes, BothModes, ::testing::Values(SolverMode::thesis, SolverMode::exact),
                         mode_name);

}  // namespace
}  // namespace simpulse::test
