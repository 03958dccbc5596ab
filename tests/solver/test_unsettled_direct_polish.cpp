// White-box regression of the soak's energy blow-up (bench_soak, seed 1, step 80,417): a box resting on the
// height-field hills, touching six neighbouring triangles whose contacts share points and nearly share
// normals, left the step at 2,290 m/s and threw two more bodies over the walls. Its island (90 rows, five
// bodies) went through IslandWorker::try_iterative_first: the sweeps converged, the two-iteration direct
// polish from their impulses did not settle (residual 2.1e20 m/s on the nearly singular system), and the
// sweeps' answer was put back by subtracting the difference of the impulses, whose round-off alone was
// km/s. tests/solver/data/soak_hills_island.txt holds the island as try_iterative_first received it (rows
// with their warm start, the bodies' velocities before the solve), every number as a hexadecimal float.
#include "../../solver/src/solver_impl.h"

#include "hex_float_reader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace simpulse::detail {
namespace {

struct DumpedIsland {
    std::vector<Row> rows;
    std::vector<SolverBody> bodies;
};

// "rows bodies", then per row: kind, a, b (body numbers in the file, kNoBody for the hills), normal,
// normal_count, persistent, has_spread, dir, ang_a, ang_b, inv_ang_a, inv_ang_b, inv_mass_a, inv_mass_b,
// diagonal, target, lambda, mu, lever; per body: its slot in the world, position, orientation (x y z w),
// velocity, angular velocity, inverse mass, inverse inertia (local, world; column-major), kick. Rows are left
// empty if a token is not a number or the file is short or too long.
DumpedIsland read_island(const std::string& path) {
    DumpedIsland island;
    std::ifstream in(path);
    std::size_t row_count = 0, body_count = 0;
    in >> row_count >> body_count;
    test::HexFloatReader numbers(in);
    const auto read_double = [&] { return numbers.next(); };
    bool spread_free = true;  // cable rows' point-mass terms are not dumped
    const auto read_vec = [&](auto& v, int n) {
        for (int k = 0; k < n; ++k) v.data()[k] = read_double();
    };
    for (std::size_t i = 0; i < row_count && in; ++i) {
        Row r;
        int kind = 0, persistent = 0, spread = 0;
        in >> kind >> r.a >> r.b >> r.normal >> r.normal_count >> persistent >> spread;
        spread_free = spread_free && spread == 0;
        r.kind = static_cast<RowKind>(kind);
        r.persistent = persistent != 0;
        r.source = static_cast<std::uint32_t>(i);
        for (Vec3* v : {&r.dir, &r.ang_a, &r.ang_b, &r.inv_ang_a, &r.inv_ang_b}) read_vec(*v, 3);
        for (double* x : {&r.inv_mass_a, &r.inv_mass_b, &r.diagonal, &r.target, &r.lambda, &r.mu, &r.lever})
            *x = read_double();
        island.rows.push_back(r);
    }
    for (std::size_t i = 0; i < body_count && in; ++i) {
        SolverBody b;
        int slot = 0;
        in >> slot;
        read_vec(b.position, 3);
        read_vec(b.orientation.coeffs(), 4);
        read_vec(b.velocity, 3);
        read_vec(b.angular_velocity, 3);
        b.inverse_mass = read_double();
        read_vec(b.inverse_inertia_local, 9);
        read_vec(b.inverse_inertia, 9);
        read_vec(b.kick, 3);
        island.bodies.push_back(b);
    }
    std::string rest;
    if (!in || !numbers.ok() || !spread_free || island.bodies.size() != body_count || (in >> rest))
        island.rows.clear();
    return island;
}

double kinetic_energy(const std::vector<SolverBody>& bodies) {
    double energy = 0;
    for (const SolverBody& b : bodies)
        energy += 0.5 * (b.velocity.squaredNorm() / b.inverse_mass +
                         b.angular_velocity.dot(b.inverse_inertia.inverse() * b.angular_velocity));
    return energy;
}

// An island worker with the solver's shared buffers it works in.
struct WorkerWithStorage {
    std::vector<Row> all_rows;
    std::vector<ContactRows> contact_rows;
    std::vector<std::int32_t> local_index;
    std::vector<JointLevers> joint_levers;
    std::vector<std::uint8_t> joint_plain_steps, joint_redundant;
    std::vector<RowSpread> spreads;
    IslandWorker worker{all_rows,          contact_rows,    local_index, joint_levers,
                        joint_plain_steps, joint_redundant, spreads};
};

// The first steps of the mid-size path (try_iterative_first) on a copy of the island: the sweeps, then the
// two-iteration active-set polish from their impulses.
struct SweepsThenPolish {
    BlcpResult sweeps, polish;
};

SweepsThenPolish sweeps_then_polish(const DumpedIsland& island, const SolverSettings& settings) {
    std::vector<Row> rows = island.rows;
    std::vector<SolverBody> bodies = island.bodies;
    BlcpWorkspace ws;
    SweepsThenPolish out;
    out.sweeps =
        solve_blcp_iterative(rows, bodies, ws, settings.max_iterations, settings.iterative_tolerance);
    for (const Row& r : rows) apply_row_impulse(r, -r.lambda, bodies);
    out.polish = solve_blcp_direct(rows, bodies, ws, 2, settings.dense_max_rows, /*give_up=*/true);
    return out;
}

TEST(UnsettledDirectPolish, TheSweepsAnswerIsRestoredExactly) {
    DumpedIsland island =
        read_island(std::string(SIMPULSE_SOURCE_DIR) + "/tests/solver/data/soak_hills_island.txt");
    ASSERT_EQ(island.rows.size(), 90u) << "could not read the dumped island";
    ASSERT_EQ(island.bodies.size(), 5u);
    const double energy_before = kinetic_energy(island.bodies);

    // The hazard: from the sweeps' answer, the direct method's two-iteration polish does not settle, and its
    // iterate is far off (m/s).
    {
        const auto [sweeps, polish] = sweeps_then_polish(island, SolverSettings{});
        ASSERT_TRUE(sweeps.converged) << "sweeps' residual " << sweeps.residual << " m/s";
        EXPECT_FALSE(polish.converged && polish.residual < 1.0)
            << "the polish settles here now (residual " << polish.residual
            << " m/s): the island no longer tests the undo";
    }

    // The island's solve (the path of the soak's step) ends with the sweeps' answer. Its rows are contacts
    // with targets <= 0 (speculative gaps), so a solution lowers the kinetic energy (energy_guards.cpp: dE =
    // sum lambda_i w_i - 1/2 lambda^T A lambda <= sum lambda_i t_i <= 0); an answer off by its residual r
    // adds at most sum |lambda_i| r / lever_i.
    std::vector<Row> rows = island.rows;
    std::vector<SolverBody> bodies = island.bodies;
    WorkerWithStorage storage;
    IslandWorker& worker = storage.worker;
    const SolverSettings settings;
    const BlcpResult result = worker.solve_island(rows, bodies, settings);
    double allowance = 0;
    for (const Row& r : rows) {
        ASSERT_LE(r.target, 0.0) << "row " << r.source;
        allowance += std::abs(r.lambda) * result.residual / r.lever;
    }
    const double energy_after = kinetic_energy(bodies);
    EXPECT_LE(energy_after, energy_before + allowance + 1e-12 * energy_before)
        << "kinetic energy " << energy_before << " J -> " << energy_after << " J (allowed +" << allowance
        << " J by the residual " << result.residual << " m/s)";
}

// A resting column of ten boxes kept awake (a column of the S3 pile, 70 rows: the mid-size path),
// tests/solver/data/resting_column_island.txt as try_iterative_first received it in a step at rest. The
// sweeps converge and the two-iteration polish does not settle on the column's redundant contacts; the Newton
// method from the sweeps' answer then makes the answer exact, so that it is a fixed point: the next step's
// warm start (its impulses, the same velocities) solves the island without an iteration.
TEST(UnsettledDirectPolish, TheNewtonMethodMakesARestingColumnExact) {
    const DumpedIsland island =
        read_island(std::string(SIMPULSE_SOURCE_DIR) + "/tests/solver/data/resting_column_island.txt");
    ASSERT_EQ(island.rows.size(), 70u) << "could not read the dumped island";
    const SolverSettings settings;
    {
        const auto [sweeps, polish] = sweeps_then_polish(island, settings);
        ASSERT_TRUE(sweeps.converged) << "sweeps' residual " << sweeps.residual << " m/s";
        ASSERT_GT(sweeps.residual, settings.tolerance) << "the sweeps alone are exact here";
        ASSERT_FALSE(polish.converged && polish.residual <= settings.tolerance)
            << "the polish settles here now: the island no longer tests the Newton step";
    }
    WorkerWithStorage storage;
    IslandWorker& worker = storage.worker;
    std::vector<Row> rows = island.rows;
    std::vector<SolverBody> bodies = island.bodies;
    const BlcpResult result = worker.solve_island(rows, bodies, settings);
    EXPECT_LE(result.residual, settings.tolerance) << "residual " << result.residual << " m/s";
    EXPECT_EQ(worker.stats.newton_islands, 1);
    // The next step at rest: the same velocities, the answer's impulses as the warm start.
    std::vector<Row> again = rows;
    std::vector<SolverBody> start = island.bodies;
    worker.stats = {};
    const BlcpResult next = worker.solve_island(again, start, settings);
    EXPECT_EQ(next.iterations, 0) << "the warm start did not solve the island (residual " << next.residual
                                  << " m/s)";
    EXPECT_LE(next.residual, settings.tolerance);
}

}  // namespace
}  // namespace simpulse::detail
