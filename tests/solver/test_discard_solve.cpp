// Solver::discard_last_solve: a solve that is discarded and done again gives the same answer, with or without
// the discarded impulses as its warm start (warm_from_discarded), because which contacts are impacts still
// comes from the step before; only a solve done again without discarding sees its own impulses as a lasting
// contact and restitutes nothing.
#include "world_fixture.h"

#include <simpulse/solver/solver.h>

#include <gtest/gtest.h>

#include <vector>

namespace simpulse::test {
namespace {

constexpr double kDt = 1.0 / 240;
constexpr double kRestitution = 0.5;
constexpr double kSpeed = 2.0;  // the ball's approach, m/s

// A ball of 1 kg (radius 0.1 m) falling at kSpeed onto the static ground it touches.
struct Drop {
    std::vector<SolverBody> bodies;
    std::vector<ContactConstraint> contacts;
    Drop() {
        SolverBody ground;  // static: no inverse mass
        SolverBody ball;
        ball.position = Vec3(0, 0, 0.1);
        ball.velocity = Vec3(0, 0, -kSpeed);
        ball.inverse_mass = 1;
        ball.inverse_inertia_local = ball.inverse_inertia = Mat3::Identity() / (0.4 * 0.1 * 0.1);
        bodies = {ground, ball};
        ContactConstraint c;
        c.body_a = 0;
        c.body_b = 1;
        c.point = Vec3::Zero();
        c.normal = Vec3::UnitZ();
        c.depth = 0;
        c.restitution = kRestitution;
        c.key = 7;
        contacts = {c};
    }
    double solve(Solver& solver) {
        std::vector<SolverBody> solved = bodies;
        solver.solve_velocities(solved, contacts, {}, kDt, every_contact_restitutes(SolverMode::exact));
        return solved[1].velocity.z();
    }
};

TEST(DiscardSolve, ASolveDoneAgainAfterADiscardKeepsItsImpact) {
    const double bounce = kRestitution * kSpeed;  // Poisson's law at a single contact, no friction
    for (const bool warm_from_discarded : {false, true}) {
        Solver solver;
        Drop drop;
        const double first = drop.solve(solver);
        EXPECT_NEAR(first, bounce, 1e-12);
        solver.discard_last_solve(warm_from_discarded);
        const double again = drop.solve(solver);
        EXPECT_NEAR(again, bounce, 1e-12) << "warm_from_discarded " << warm_from_discarded
                                          << ": the ball leaves at " << again << " m/s";
    }
    // Solved again without discarding: the contact now carried an impulse in the "previous step", so it is a
    // lasting contact, and the ball only stops.
    Solver solver;
    Drop drop;
    drop.solve(solver);
    EXPECT_NEAR(drop.solve(solver), 0.0, 1e-12);
}

}  // namespace
}  // namespace simpulse::test
