// Island problems for the solver tests, built directly as solver bodies and contacts (no world).
#pragma once

#include <simpulse/solver/solver.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace simpulse::test {

struct Problem {
    std::vector<SolverBody> bodies;
    std::vector<ContactConstraint> contacts;
    std::vector<JointConstraint> joints;
};

// A row of boxes resting on each other and on a static floor (index 0), pushed by random velocities; each
// interface has 4 coplanar (redundant) contacts, so A is singular.
inline Problem stack_problem(std::uint64_t seed, int boxes, double friction) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Problem p;
    p.bodies.emplace_back();  // static floor
    for (int i = 0; i < boxes; ++i) {
        SolverBody b;
        const double m = std::pow(10.0, 1.5 * u(rng));
        b.position = Vec3(0.05 * u(rng), 0.05 * u(rng), 0.5 + i);
        b.velocity = Vec3(0.3 * u(rng), 0.3 * u(rng), -0.5 + 0.2 * u(rng));
        b.angular_velocity = Vec3(0.3 * u(rng), 0.3 * u(rng), 0.3 * u(rng));
        b.inverse_mass = 1 / m;
        b.inverse_inertia_local = Mat3::Identity() * 6 / m;
        b.inverse_inertia = b.inverse_inertia_local;
        p.bodies.push_back(b);
    }
    for (int i = 0; i < boxes; ++i)
        for (int corner = 0; corner < 4; ++corner) {
            ContactConstraint c;
            c.body_a = static_cast<std::uint32_t>(i);  // the floor or the box below
            c.body_b = static_cast<std::uint32_t>(i + 1);
            c.point = Vec3(corner & 1 ? 0.5 : -0.5, corner & 2 ? 0.5 : -0.5, i);
            c.normal = Vec3::UnitZ();
            c.depth = 0.001;
            c.friction = friction;
            c.key = static_cast<std::uint64_t>(4 * i + corner);
            c.patch = static_cast<std::uint32_t>(i);
            p.contacts.push_back(c);
        }
    return p;
}

}  // namespace simpulse::test
