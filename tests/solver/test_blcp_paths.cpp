// The three island solvers (dense direct, sparse direct, iterative) solve the same complementarity problem:
// on random multi-contact systems their post-solve velocities agree (the velocities are unique for
// frictionless contact even where the impulses are not), and every solution satisfies the complementarity
// conditions. Mid-size islands try the iterative method first and keep its answer only if it converged.
#include <simpulse/solver/solver.h>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace simpulse {
namespace {

struct Problem {
    std::vector<SolverBody> bodies;
    std::vector<ContactConstraint> contacts;
    std::vector<BallJointConstraint> joints;
};

// A row of boxes resting on each other and on a static floor (index 0), pushed by random velocities; each
// interface has 4 coplanar (redundant) contacts, so A is singular.
Problem stack_problem(std::uint64_t seed, int boxes, double friction) {
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

// Paths: direct_max_rows 0 = iterative only; direct_first_max_rows defaults to direct_max_rows (no
// iterative attempt before the direct method).
std::vector<SolverBody> solve(Problem p, int dense_max_rows, int direct_max_rows,
                              SolverStats* stats = nullptr, int direct_first_max_rows = -1,
                              int max_iterations = 20000) {
    SolverSettings s;
    s.dense_max_rows = dense_max_rows;
    s.direct_max_rows = direct_max_rows;
    s.direct_first_max_rows = direct_first_max_rows < 0 ? direct_max_rows : direct_first_max_rows;
    s.max_iterations = max_iterations;
    s.iterative_tolerance = 1e-11;
    s.warm_start = false;
    Solver solver;
    solver.solve_velocities(p.bodies, p.contacts, p.joints, 1.0 / 60, s);
    if (stats) *stats = solver.stats();
    return p.bodies;
}

double largest_velocity_difference(const std::vector<SolverBody>& a, const std::vector<SolverBody>& b) {
    double d = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        d = std::max({d, (a[i].velocity - b[i].velocity).norm(),
                      (a[i].angular_velocity - b[i].angular_velocity).norm()});
    return d;
}

TEST(BlcpPaths, DenseSparseAndIterativeAgreeOnFrictionlessStacks) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const Problem p = stack_problem(seed, 2 + static_cast<int>(seed % 9), 0.0);
        SolverStats dense_stats, sparse_stats, iterative_stats;
        const auto dense = solve(p, 100000, 100000, &dense_stats);
        const auto sparse = solve(p, 0, 100000, &sparse_stats);
        const auto iterative = solve(p, 0, 0, &iterative_stats);
        EXPECT_LT(dense_stats.residual, 1e-9) << "seed " << seed;
        EXPECT_LT(sparse_stats.residual, 1e-9) << "seed " << seed;
        EXPECT_LT(iterative_stats.residual, 1e-9) << "seed " << seed;
        EXPECT_LT(largest_velocity_difference(dense, sparse), 1e-9) << "seed " << seed;
        EXPECT_LT(largest_velocity_difference(dense, iterative), 1e-7) << "seed " << seed;
    }
}

TEST(BlcpPaths, DirectPathsSatisfyComplementarityWithFriction) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const Problem p = stack_problem(seed, 2 + static_cast<int>(seed % 9), 0.5);
        SolverStats dense_stats, sparse_stats;
        const auto dense = solve(p, 100000, 100000, &dense_stats);
        const auto sparse = solve(p, 0, 100000, &sparse_stats);
        EXPECT_LT(dense_stats.residual, 1e-9) << "seed " << seed << " pivots " << dense_stats.pivots;
        // The work stays proportional to the island: seed 3 cycles the primal-dual method into the convex-QP
        // fallback, which used to creep along the null space of the redundant contacts until its cap of
        // 20 x (10 n + 10) iterations and left the answer to the iterative polish (7,200 QP iterations; now
        // 25).
        EXPECT_LE(dense_stats.iterations, 10 * dense_stats.rows)
            << "seed " << seed << ": " << dense_stats.iterations << " iterations for " << dense_stats.rows
            << " rows";
        EXPECT_LT(sparse_stats.residual, 1e-9) << "seed " << seed << " pivots " << sparse_stats.pivots;
    }
}

TEST(BlcpPaths, MidSizeIslandsEndExactOrWithAConvergedIterativeAnswer) {
    // With direct_first_max_rows = 0 every island tries up to 200 sweeps first. Where they converge, two
    // active-set iterations from their impulses try to make the answer exact; where that settles, or where
    // the sweeps do not converge (tall stacks, mass ratios up to 1000), the answer is the direct method's
    // (exact: the same velocities as the pure direct path, frictionless velocities being unique); otherwise
    // the converged iterative answer is kept, which must match to the tolerance the iterative path reaches.
    int exact = 0, kept_iterative = 0;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const double friction = seed > 20 ? 0.5 : 0.0;
        const Problem p = stack_problem(seed, 2 + static_cast<int>(seed % 9), friction);
        SolverStats stats;
        const auto mixed = solve(p, 100000, 100000, &stats, 0, 200);
        ASSERT_EQ(stats.direct_islands + stats.iterative_islands, 1) << "seed " << seed;
        if (stats.direct_islands == 1) {
            ++exact;
            EXPECT_LT(stats.residual, 1e-9) << "seed " << seed << ": residual " << stats.residual;
        } else {
            ++kept_iterative;
            EXPECT_LT(stats.residual, 1e-7) << "seed " << seed << ": residual " << stats.residual;
        }
        if (friction == 0) {
            const double difference = largest_velocity_difference(solve(p, 100000, 100000), mixed);
            EXPECT_LT(difference, stats.direct_islands == 1 ? 1e-9 : 1e-7)
                << "seed " << seed << ": velocity difference " << difference << " m/s";
        }
    }
    EXPECT_GT(exact, 0) << "kept iterative " << kept_iterative;
}

}  // namespace
}  // namespace simpulse
