// The exact mode's position projection moves bodies, not their motion: it must not change a body's kinetic
// energy. Reduced from the stress finding nonfinite_exact_fast_convex_11bodies.json, whose first step gained
// 47 % of its energy when a deep contact's correction turned fast-spinning bodies while their world angular
// velocities stayed (1/2 w.I(q)w changes with q for an asymmetric body).
#include "world_fixture.h"

#include <simpulse/solver/solver.h>

#include <gtest/gtest.h>

#include <vector>

namespace simpulse::test {
namespace {

TEST(PositionProjection, ATurnedBodyKeepsItsKineticEnergyAndItsSpinInItsOwnAxes) {
    // A 1 x 2 x 3 m box of 6 kg (principal moments 6.5, 5, 2.5) spinning about a generic axis at 10 rad/s, 3
    // cm deep in a static ground at one corner: the projection removes 2 cm of it (max_correction) by moving
    // and turning the box about that corner's lever arm.
    SolverBody ground, box;
    box.orientation = Quat(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized()));
    box.position = Vec3(0, 0, 2);
    box.angular_velocity = Vec3(3, -5, 7).normalized() * 10;
    box.inverse_mass = 1.0 / 6;
    box.inverse_inertia_local = Vec3(6.5, 5, 2.5).cwiseInverse().asDiagonal();
    box.inverse_inertia = world_inverse_inertia(box.orientation, box.inverse_inertia_local);
    std::vector<SolverBody> bodies = {ground, box};
    ContactConstraint c;
    c.body_a = 0;
    c.body_b = 1;
    c.point = box.position + box.orientation * Vec3(-0.5, -1, -1.5);
    c.normal = Vec3::UnitZ();
    c.depth = 0.03;
    c.key = 1;
    Solver solver;
    const SolverSettings settings;
    const double dt = 1.0 / 60;
    solver.solve_velocities(bodies, {&c, 1}, {}, dt, settings);
    const SolverBody solved = bodies[1];
    solver.project_positions(bodies, {&c, 1}, {}, settings);
    const SolverBody& moved = bodies[1];

    const double turn = solved.orientation.angularDistance(moved.orientation);
    ASSERT_GT(turn, 0.005) << "the projection should turn the box; it turned it by " << turn << " rad";
    const double before = kinetic_energy(solved), after = kinetic_energy(moved);
    // Only round-off: the projection's rotations are unit quaternions and w turns by the same one.
    EXPECT_NEAR(after / before - 1, 0, 1e-12) << "kinetic energy " << before << " J before the projection, "
                                              << after << " J after (turned by " << turn << " rad)";
    const Vec3 spin_before = solved.orientation.conjugate() * solved.angular_velocity;
    const Vec3 spin_after = moved.orientation.conjugate() * moved.angular_velocity;
    EXPECT_LT((spin_after - spin_before).norm(), 1e-12 * spin_before.norm())
        << "body-axis angular velocity " << spin_before.transpose() << " -> " << spin_after.transpose();
    EXPECT_EQ(moved.velocity, solved.velocity) << "the projection leaves linear velocities alone";
}

// Two free boxes spinning about skew axes and sliding past each other, 3 cm deep in each other: the
// projection pushes them apart and turns them, which moves the lines their momenta act along and turns their
// spins. An isolated pair must keep its momentum and its angular momentum about the origin (nothing outside
// acts on it) and must not gain kinetic energy: to round-off (the sums are of terms of their own size).
TEST(PositionProjection, AnIsolatedPairKeepsMomentumAngularMomentumAndKineticEnergy) {
    SolverBody a, b;
    a.position = Vec3(0.3, -0.2, 0.1);
    a.orientation = Quat(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized()));
    a.velocity = Vec3(1.5, -0.3, 0.2);
    a.angular_velocity = Vec3(3, -5, 7);
    a.inverse_mass = 1.0 / 6;
    a.inverse_inertia_local = Vec3(6.5, 5, 2.5).cwiseInverse().asDiagonal();
    b = a;
    b.position = Vec3(0.35, -0.1, 1.05);
    b.orientation = Quat(Eigen::AngleAxisd(1.1, Vec3(0.3, 1, 0.2).normalized()));
    b.velocity = Vec3(-1.0, 0.4, -0.1);
    b.angular_velocity = Vec3(-4, 2, 1);
    b.inverse_mass = 1.0 / 2;
    for (SolverBody* body : {&a, &b})
        body->inverse_inertia = world_inverse_inertia(body->orientation, body->inverse_inertia_local);
    std::vector<SolverBody> bodies = {a, b};
    ContactConstraint c;
    c.body_a = 0;
    c.body_b = 1;
    c.point = Vec3(0.4, -0.15, 0.6);
    c.normal = Vec3(0.1, 0.05, 1).normalized();
    c.depth = 0.03;
    c.key = 1;
    auto momenta = [&](Vec3& p, Vec3& l, double& energy) {
        p = l = Vec3::Zero();
        energy = 0;
        for (const SolverBody& body : bodies) {
            p += body.velocity / body.inverse_mass;
            l += body.position.cross(body.velocity / body.inverse_mass) +
                 body.inverse_inertia.inverse() * body.angular_velocity;
            energy += kinetic_energy(body);
        }
    };
    Solver solver;
    const SolverSettings settings;
    solver.solve_velocities(bodies, {&c, 1}, {}, 1.0 / 60, settings);
    Vec3 p0, l0, p1, l1;
    double e0, e1;
    momenta(p0, l0, e0);
    const Vec3 position_before = bodies[1].position;
    solver.project_positions(bodies, {&c, 1}, {}, settings);
    momenta(p1, l1, e1);
    ASSERT_GT((bodies[1].position - position_before).norm(), 0.01) << "the projection should move the boxes";
    EXPECT_LT((p1 - p0).norm(), 1e-12 * p0.norm())
        << "momentum " << p0.transpose() << " -> " << p1.transpose();
    EXPECT_LT((l1 - l0).norm(), 1e-12 * l0.norm())
        << "angular momentum " << l0.transpose() << " -> " << l1.transpose();
    EXPECT_NEAR(e1 / e0, 1, 1e-12) << "kinetic energy " << e0 << " J -> " << e1 << " J";
}

}  // namespace
}  // namespace simpulse::test
