// Energy safeguards of the exact solver: a solve must not raise an island's kinetic energy above its value
// before an impact when every restitution is at most 1. Reduced from the stress findings
// energy_explosion_exact_e1_5bodies.json (a box bouncing on a small body at e = 1 with friction: +2.7 % in
// one solve, then far more) and nonfinite_exact_fast_convex_11bodies.json (bodies on ball joints hit at
// e = 0.99: 28 kJ before a 79-row impact, 49 kJ after). Restituting only the normal rows of the impacts
// reverses the load that friction or joints put on them too.
#include "world_fixture.h"

#include <simpulse/solver/solver.h>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace simpulse::test {
namespace {

constexpr double kDt = 1.0 / 240;

// A thin rod (1 m, 1 kg) tilted `tilt` rad from the horizontal, falling straight down at 2 m/s, whose lower
// end touches a static ground (body 0). No sliding at the contact before the impact, so friction sticks;
// the contact point's normal and tangential velocities are coupled through the rod's rotation.
std::vector<SolverBody> falling_rod(double tilt) {
    SolverBody ground;  // static: zero inverse mass and inertia
    SolverBody rod;
    const double mass = 1, length = 1, width = 0.04;
    rod.orientation = Quat(Eigen::AngleAxisd(tilt, Vec3::UnitY()));
    rod.position = Vec3(0, 0, 0.5 * length * std::sin(tilt));
    rod.velocity = Vec3(0, 0, -2);
    rod.inverse_mass = 1 / mass;
    const Vec3 inertia =
        mass / 12 * Vec3(2 * width * width, length * length + width * width, length * length + width * width);
    rod.inverse_inertia_local = inertia.cwiseInverse().asDiagonal();
    rod.inverse_inertia = world_inverse_inertia(rod.orientation, rod.inverse_inertia_local);
    return {ground, rod};
}

ContactConstraint rod_end_contact(const std::vector<SolverBody>& bodies, double restitution) {
    ContactConstraint c;
    c.body_a = 0;
    c.body_b = 1;
    c.point = bodies[1].position + bodies[1].orientation * Vec3(0.5, 0, 0);  // the lower end
    c.point.z() = 0;
    c.normal = Vec3::UnitZ();
    c.depth = 0;
    c.friction = 1.5;  // sticks
    c.restitution = restitution;
    c.key = 1;
    return c;
}

TEST(EnergySafeguards, StickingRodBouncesWithoutGainingEnergy) {
    for (const double e : {1.0, 0.5}) {
        for (const double tilt : {0.3, 0.6, 0.9}) {
            std::vector<SolverBody> bodies = falling_rod(-tilt);
            const std::vector<ContactConstraint> contacts{rod_end_contact(bodies, e)};
            ASSERT_LT(bodies[1].position.z() - 0.5 * std::sin(tilt), 1e-12);
            ASSERT_NEAR(contacts[0].point.z(),
                        (bodies[1].position + bodies[1].orientation * Vec3(0.5, 0, 0)).z(), 1e-12);
            const double before = kinetic_energy(bodies);
            Solver solver;
            solver.solve_velocities(bodies, contacts, {}, kDt, every_contact_restitutes());
            const double after = kinetic_energy(bodies);
            EXPECT_LE(after, before * (1 + 1e-9))
                << "e = " << e << ", tilt " << tilt << " rad: kinetic energy " << before << " J before the "
                << "impact, " << after << " J after (" << 100 * (after / before - 1) << " %)";
            // The rod leaves the ground (it bounced, the safeguard did not simply drop the restitution).
            const SolverBody& rod = bodies[1];
            const Vec3 end_velocity =
                rod.velocity + rod.angular_velocity.cross(contacts[0].point - rod.position);
            EXPECT_GT(end_velocity.z(), 0.1 * e)
                << "e = " << e << ", tilt " << tilt << ": the end leaves at " << end_velocity.z() << " m/s";
            EXPECT_TRUE(rod.velocity.allFinite() && rod.angular_velocity.allFinite());
        }
    }
}

}  // namespace
}  // namespace simpulse::test
