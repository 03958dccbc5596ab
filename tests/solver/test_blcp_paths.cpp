// The three island solvers (dense direct, sparse direct, iterative) solve the same complementarity problem:
// on random multi-contact systems their post-solve velocities agree (the velocities are unique for
// frictionless contact even where the impulses are not), and every solution satisfies the complementarity
// conditions. Mid-size islands try the iterative method first and keep its answer only if it converged.
#include "solver_problems.h"

#include <simpulse/solver/solver.h>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

namespace simpulse {
namespace {

using test::Problem;
using test::stack_problem;

// A 2-D pyramid of unit boxes of 1000 kg, `levels` high, on a static floor (index 0), each box resting on
// the two below it (the bottom ones on the floor) through 4 contact points per support, after one step of
// gravity (all velocities -g dt): the exact answer stops every box, the floor carrying the whole weight.
Problem pyramid_problem(int levels, double friction) {
    Problem p;
    p.bodies.emplace_back();
    std::vector<std::vector<std::uint32_t>> index(static_cast<std::size_t>(levels));
    for (int level = 0; level < levels; ++level)
        for (int k = 0; k < levels - level; ++k) {
            SolverBody b;
            b.position = Vec3(k - 0.5 * (levels - 1 - level), 0, 0.5 + level);
            b.velocity = Vec3(0, 0, -9.81 / 60);
            b.inverse_mass = 1.0 / 1000;
            b.inverse_inertia_local = Mat3::Identity() * 6.0 / 1000;
            b.inverse_inertia = b.inverse_inertia_local;
            index[static_cast<std::size_t>(level)].push_back(static_cast<std::uint32_t>(p.bodies.size()));
            p.bodies.push_back(b);
        }
    auto support = [&](std::uint32_t below, std::uint32_t above, double x0, double x1, double z) {
        for (int corner = 0; corner < 4; ++corner) {
            ContactConstraint c;
            c.body_a = below;
            c.body_b = above;
            c.point = Vec3(corner & 1 ? x1 : x0, corner & 2 ? 0.5 : -0.5, z);
            c.normal = Vec3::UnitZ();
            c.friction = friction;
            c.key = p.contacts.size();
            c.patch = static_cast<std::uint32_t>(p.contacts.size() / 4);
            p.contacts.push_back(c);
        }
    };
    for (int level = 0; level < levels; ++level)
        for (int k = 0; k < levels - level; ++k) {
            const std::uint32_t box = index[static_cast<std::size_t>(level)][static_cast<std::size_t>(k)];
            const double x = p.bodies[box].position.x();
            if (level == 0) {
                support(0, box, x - 0.5, x + 0.5, 0);
                continue;
            }
            const auto& below = index[static_cast<std::size_t>(level - 1)];
            support(below[static_cast<std::size_t>(k)], box, x - 0.5, x, level);
            support(below[static_cast<std::size_t>(k) + 1], box, x, x + 0.5, level);
        }
    return p;
}

// The Newton method alone on an island of any size (no direct method, one sweep that cannot reach its
// tolerance).
SolverStats solve_with_newton(Problem& p, double tolerance = 1e-9) {
    SolverSettings s;
    s.direct_max_rows = 0;
    s.max_iterations = 1;
    s.iterative_tolerance = 1e-300;
    s.iterative_accept = 0;
    s.newton_max_bodies = 100000;
    s.tolerance = tolerance;
    s.warm_start = false;
    Solver solver;
    solver.solve_velocities(p.bodies, p.contacts, p.joints, 1.0 / 60, s);
    return solver.stats();
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

// Frictionless velocities are unique, so the Newton method must reach the dense direct method's answer;
// with friction (mass ratios up to 1000, redundant coplanar contacts) it must meet its tolerance.
TEST(BlcpPaths, NewtonMethodMeetsItsToleranceOnStacks) {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const double friction = seed > 20 ? 0.5 : 0.0;
        Problem p = stack_problem(seed, 2 + static_cast<int>(seed % 9), friction);
        const auto direct = solve(p, 100000, 100000);
        const SolverStats stats = solve_with_newton(p);
        ASSERT_EQ(stats.newton_islands, 1) << "seed " << seed;
        EXPECT_LE(stats.residual, 1e-9) << "seed " << seed << ": residual " << stats.residual << " m/s after "
                                        << stats.factorizations << " factorisations";
        EXPECT_EQ(stats.missed_islands, 0) << "seed " << seed;
        if (friction == 0) {
            // A residual of 1e-9 m/s on rows whose effective masses differ by up to 1000 leaves body
            // velocities within about 1e-9 x 1000.
            const double difference = largest_velocity_difference(direct, p.bodies);
            EXPECT_LT(difference, 1e-6)
                << "seed " << seed << ": velocity difference " << difference << " m/s";
        }
    }
}

// Bodies placed inside each other (a fuzzed API call sequence created 72 spheres at one point) touch every
// other body: the island's graph of body pairs is complete, its factor full, and the Newton method
// factorises it densely (newton.cpp, Island::nearly_complete). The answer must be the same problem's: within
// the tolerance and with the direct method's velocities. Frictionless only: with friction (mu = 0.5) the
// Newton method ends these islands at 0.17-0.53 m/s after its 100 factorisations, dense or sparse alike (the
// friction bounds' outer loop, docs/BENCHMARKS.md "Large islands").
Problem coincident_spheres(std::uint64_t seed, int count) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(-1, 1);
    Problem p;
    p.bodies.emplace_back();  // the floor
    for (int k = 0; k < count; ++k) {
        SolverBody b;
        b.position = Vec3(1e-3 * unit(rng), 1e-3 * unit(rng), 0.1 + 1e-3 * unit(rng));
        b.velocity = Vec3(unit(rng), unit(rng), unit(rng));
        b.angular_velocity = Vec3(unit(rng), unit(rng), unit(rng));
        b.inverse_mass = 1.0 / (1 + 9 * (0.5 + 0.5 * unit(rng)));  // 1 to 10 kg
        b.inverse_inertia_local = Mat3::Identity() * b.inverse_mass / (0.4 * 0.01);
        b.inverse_inertia = b.inverse_inertia_local;
        p.bodies.push_back(b);
    }
    auto contact = [&](std::uint32_t a, std::uint32_t b, const Vec3& point, const Vec3& normal) {
        ContactConstraint c;
        c.body_a = a;
        c.body_b = b;
        c.point = point;
        c.normal = normal;
        c.depth = 0.1;
        c.key = p.contacts.size();
        c.patch = static_cast<std::uint32_t>(p.contacts.size());
        p.contacts.push_back(c);
    };
    for (std::uint32_t b = 1; b <= static_cast<std::uint32_t>(count); ++b) {
        contact(0, b, p.bodies[b].position - Vec3(0, 0, 0.1), Vec3::UnitZ());
        for (std::uint32_t a = 1; a < b; ++a) {
            const Vec3 between = p.bodies[b].position - p.bodies[a].position;
            contact(a, b, 0.5 * (p.bodies[a].position + p.bodies[b].position), between.normalized());
        }
    }
    return p;
}

TEST(BlcpPaths, NewtonMethodSolvesAnIslandOfBodiesInsideEachOther) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        Problem p = coincident_spheres(seed, 15 + 5 * static_cast<int>(seed % 4));
        const auto direct = solve(p, 100000, 100000);
        const SolverStats stats = solve_with_newton(p);
        ASSERT_EQ(stats.newton_islands, 1) << "seed " << seed;
        EXPECT_LE(stats.residual, 1e-9) << "seed " << seed << ": residual " << stats.residual << " m/s after "
                                        << stats.factorizations << " factorisations";
        // Masses within a factor of 10: a residual of 1e-9 m/s leaves the velocities within about 1e-8.
        const double difference = largest_velocity_difference(direct, p.bodies);
        EXPECT_LT(difference, 1e-7) << "seed " << seed << ": velocity difference " << difference << " m/s";
    }
}

// The complementarity problem does not change its nature with the speed of the bodies, and neither may the
// Newton method: stacks pushed at 100 and 1000 times the speeds above (impacts at up to 0.8 km/s) meet the
// tolerance within the default caps (100 factorisations, 20 Newton steps per allowed factorisation). A
// subproblem once had to bring its gradient to 10 ulps of the largest velocity, below what its own rounding
// allows at those speeds: each subproblem then ran its 100 Newton steps, each with a 60-pass line search,
// and 4 of these 60 islands at x100 and 31 at x1000 ended above the tolerance after up to 20,000 Newton
// steps.
TEST(BlcpPaths, NewtonMethodMeetsItsToleranceAtHighSpeeds) {
    for (const double speed : {100.0, 1000.0}) {
        for (std::uint64_t seed = 1; seed <= 60; ++seed) {
            Problem p = stack_problem(seed, 2 + static_cast<int>(seed % 15), seed % 2 ? 0.5 : 0.0);
            for (SolverBody& b : p.bodies) {
                b.velocity *= speed;
                b.angular_velocity *= speed;
            }
            const SolverStats stats = solve_with_newton(p);
            ASSERT_EQ(stats.newton_islands, 1) << "seed " << seed;
            EXPECT_EQ(stats.missed_islands, 0)
                << "x" << speed << " seed " << seed << ": residual " << stats.residual << " m/s after "
                << stats.factorizations << " factorisations and " << stats.iterations << " iterations";
        }
    }
}

// Rows with point-mass terms (cable contacts): a box lying on a chain of point masses resting on a static
// floor, its contacts spread over four points each by cubic B-spline weights (the cable's contact Jacobian),
// with random velocities. The Newton method (after a direct method allowed no iteration and one sweep) meets
// its tolerance with and without friction, and without friction its velocities agree with the direct
// method's (they are unique where the impulses are not: the contact patches are redundant).
Problem spread_problem(std::uint64_t seed, double friction) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Problem p;
    p.bodies.emplace_back();  // static floor
    const int points = 6;
    const double radius = 0.02, spacing = 0.1;
    for (int i = 0; i < points; ++i) {
        SolverBody b;
        const double m = 0.05 * std::pow(10.0, u(rng));
        b.position = Vec3(spacing * (i - 0.5 * (points - 1)), 0, radius);
        b.velocity = Vec3(0.2 * u(rng), 0.2 * u(rng), -0.3 + 0.1 * u(rng));
        b.inverse_mass = 1 / m;
        b.inverse_inertia_local = Mat3::Identity() * 2.5 / (m * radius * radius);
        b.inverse_inertia = b.inverse_inertia_local;
        p.bodies.push_back(b);
        ContactConstraint c;
        c.body_a = 0;
        c.body_b = static_cast<std::uint32_t>(i + 1);
        c.point = b.position - Vec3(0, 0, radius);
        c.normal = Vec3::UnitZ();
        c.key = p.contacts.size();
        c.patch = static_cast<std::uint32_t>(p.contacts.size());
        p.contacts.push_back(c);
    }
    SolverBody box;
    const double box_mass = std::pow(10.0, 1 + u(rng));
    box.position = Vec3(0, 0, 2 * radius + 0.05);
    box.velocity = Vec3(0.3 * u(rng), 0.3 * u(rng), -0.5 + 0.2 * u(rng));
    box.angular_velocity = Vec3(0.5 * u(rng), 0.5 * u(rng), 0.5 * u(rng));
    box.inverse_mass = 1 / box_mass;
    box.inverse_inertia_local = Mat3::Identity() * 12.0 / (box_mass * (0.4 * 0.4 + 0.1 * 0.1));
    box.inverse_inertia = box.inverse_inertia_local;
    const auto box_index = static_cast<std::uint32_t>(p.bodies.size());
    p.bodies.push_back(box);
    // Segments k = 0..points-4 of the chain, two contacts each (a patch), at parameters t in (0, 1).
    for (int k = 0; k + 3 < points; ++k) {
        const auto patch = static_cast<std::uint32_t>(p.contacts.size());
        for (const double t : {0.25 + 0.2 * u(rng), 0.75 + 0.2 * u(rng)}) {
            const double s = 1 - t;
            const std::array<double, 4> w{s * s * s / 6, (3 * t * t * t - 6 * t * t + 4) / 6,
                                          (-3 * t * t * t + 3 * t * t + 3 * t + 1) / 6, t * t * t / 6};
            ContactConstraint c;
            c.body_a = kSpreadBody;
            c.body_b = box_index;
            Vec3 point = Vec3::Zero();
            for (int j = 0; j < 4; ++j) {
                c.spread_a.body[static_cast<std::size_t>(j)] = static_cast<std::uint32_t>(k + j + 1);
                c.spread_a.weight[static_cast<std::size_t>(j)] = w[static_cast<std::size_t>(j)];
                point +=
                    w[static_cast<std::size_t>(j)] * p.bodies[static_cast<std::size_t>(k + j + 1)].position;
            }
            c.point = point + Vec3(0.02 * u(rng), 0.05 * u(rng), radius);
            c.normal = Vec3::UnitZ();
            c.friction = friction;
            c.key = p.contacts.size();
            c.patch = patch;
            p.contacts.push_back(c);
        }
    }
    return p;
}

TEST(BlcpPaths, NewtonMethodSolvesRowsWithPointMassTerms) {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const double friction = seed > 20 ? 0.5 : 0.0;
        Problem p = spread_problem(seed, friction);
        SolverStats direct_stats;
        const auto direct = solve(p, 100000, 100000, &direct_stats);
        SolverSettings s;
        s.max_active_set_iterations = 0;  // islands with cable contacts try the direct method first
        // Over 200 seeds the method needed 6 factorisations on average without friction, 23 with it, and at
        // most 253: the default budget of 100 is a cost cap of the step, not the method's convergence.
        s.newton_max_factorizations = 400;
        s.max_iterations = 1;
        s.iterative_tolerance = 1e-300;
        s.warm_start = false;
        Solver solver;
        solver.solve_velocities(p.bodies, p.contacts, p.joints, 1.0 / 60, s);
        const SolverStats stats = solver.stats();
        ASSERT_EQ(stats.newton_islands, 1) << "seed " << seed;
        EXPECT_LE(stats.residual, 1e-9) << "seed " << seed << ": residual " << stats.residual << " m/s after "
                                        << stats.factorizations << " factorisations";
        if (friction == 0) {
            ASSERT_EQ(direct_stats.newton_islands, 0)
                << "seed " << seed << ": the reference is not the direct method's";
            ASSERT_LE(direct_stats.residual, 1e-9) << "seed " << seed;
            // A residual of 1e-9 m/s on rows whose effective masses differ by up to 1e3 leaves body
            // velocities within about 1e-9 x 1e3.
            const double difference = largest_velocity_difference(direct, p.bodies);
            EXPECT_LT(difference, 1e-6)
                << "seed " << seed << ": velocity difference " << difference << " m/s";
        }
    }
}

// A pyramid of 27 levels (378 boxes, 729 supports of 7 rows: 5,103 rows) in one island: the answer stops
// every box, and the solver's memory grows with the rows and the factor's fill, not with rows^2 (a dense A of
// this island alone would take 5,103^2 x 8 bytes = 208 MB).
TEST(BlcpPaths, NewtonMethodSolvesAFiveThousandRowPyramidInLinearMemory) {
    for (const int levels : {10, 27}) {
        Problem p = pyramid_problem(levels, 0.6);
        const SolverStats stats = solve_with_newton(p);
        const std::size_t rows = static_cast<std::size_t>(stats.rows);
        ASSERT_EQ(stats.newton_islands, 1);
        EXPECT_LE(stats.residual, 1e-9) << levels << " levels: residual " << stats.residual << " m/s";
        double fastest = 0;
        for (const SolverBody& b : p.bodies) fastest = std::max(fastest, b.velocity.norm());
        // Each row's violation is within 1e-9 m/s in the natural-map sense (a row near its bound may keep a
        // velocity the bound then limits) and the levels add up: measured 1.7e-8 m/s.
        EXPECT_LT(fastest, 1e-7) << levels << " levels: a box still moves at " << fastest << " m/s";
        // Measured: 1.1 and 1.2 kB per row (row buffers, warm-start cache, the Newton scratch and
        // the sparse factor); a dense matrix of the island would be 8 x rows bytes per row (41 kB at 27
        // levels).
        EXPECT_LT(stats.workspace_bytes, 4000 * rows)
            << levels << " levels, " << rows << " rows: " << stats.workspace_bytes << " bytes";
        if (levels == 27) {
            EXPECT_GE(rows, 5000u);
        }
    }
}

// A large island with point-mass terms: the chain and box of spread_problem, and a slab of 500 kg resting on
// the floor through a grid of 600 contacts (one patch) and on the chain's first segment: one island of 636
// rows. One body touching most rows makes the row-space matrix A = J M^-1 J^T dense, so such islands above
// direct_max_rows go to the sweeps and the Newton method, whose matrix is the bodies' (the active-set method
// took 613 pivots and 26 MB here against 0.7 MB, and 3 s for one step of a cable under a 2 m sphere buried in
// a height field). Their answer meets the tolerance and the memory stays linear in the rows.
TEST(BlcpPaths, LargeIslandsWithPointMassTermsSkipTheRowSpaceDirectMethod) {
    Problem p = spread_problem(3, 0.5);
    SolverBody slab;
    const double mass = 500;
    slab.position = Vec3(0, 1, 0.05);
    slab.velocity = Vec3(0.1, 0, -9.81 / 60);
    slab.inverse_mass = 1 / mass;
    slab.inverse_inertia_local = Mat3::Identity() * 12.0 / (mass * (1.0 + 0.1 * 0.1));
    slab.inverse_inertia = slab.inverse_inertia_local;
    const auto slab_index = static_cast<std::uint32_t>(p.bodies.size());
    p.bodies.push_back(slab);
    const auto floor_patch = static_cast<std::uint32_t>(p.contacts.size());
    for (int i = 0; i < 30; ++i)
        for (int j = 0; j < 20; ++j) {
            ContactConstraint c;
            c.body_a = 0;
            c.body_b = slab_index;
            c.point = Vec3(-0.5 + i / 29.0, 0.5 + j / 19.0, 0);
            c.normal = Vec3::UnitZ();
            c.friction = 0.5;
            c.key = p.contacts.size();
            c.patch = floor_patch;
            p.contacts.push_back(c);
        }
    ContactConstraint on_chain = p.contacts.back();
    on_chain.body_a = kSpreadBody;
    on_chain.spread_a = p.contacts[6].spread_a;  // the first chain-box contact's weights: segment 0
    on_chain.point = Vec3(-0.2, 0.5, 0.04);
    on_chain.key = p.contacts.size();
    on_chain.patch = floor_patch + 1;
    p.contacts.push_back(on_chain);
    SolverSettings s;
    s.warm_start = false;
    Solver solver;
    solver.solve_velocities(p.bodies, p.contacts, p.joints, 1.0 / 60, s);
    const SolverStats stats = solver.stats();
    const auto rows = static_cast<std::size_t>(stats.rows);
    ASSERT_GT(stats.rows, s.direct_max_rows);
    ASSERT_EQ(stats.islands, 1);
    EXPECT_EQ(stats.pivots, 0) << "the active-set method ran";
    EXPECT_LE(stats.residual, s.tolerance)
        << "residual " << stats.residual << " m/s after " << stats.factorizations << " factorisations";
    EXPECT_LT(stats.workspace_bytes, 4000 * rows) << rows << " rows: " << stats.workspace_bytes << " bytes";
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
