// White-box test of the direct solver's convex-QP fallback (solver/src/blcp_active_set_qp.cpp), reached in a
// simulation only when the primal-dual active set cycles, so it is called here directly through the internal
// header. A hinge made of two ball joints between two bodies has six joint rows of rank five; with a joint
// error the sixth direction is not exactly redundant but has a pivot of about (e / L)^2 of the others, and
// targets with a part along it cannot be reached by impulses of any sensible size. Joint rows have no bounds,
// so nothing but the QP's rank decision keeps the impulses finite (bench/stress_findings/unreduced_s126.json
// overflowed to 3e164 before commit af13ef9). Measured here without the least-squares step: 1.6e53 N s for
// the exact hinge; with it but at Eigen's default rank threshold (before commit 1a3cdef): 5.7e9 and 5.7e7 N s
// at joint errors of 10 and 100 um.
#include "../../solver/src/blcp.h"

#include "hex_float_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace simpulse::detail {
namespace {

TEST(BlcpFallbackQp, NearlyRedundantHingeWithUnreachableTargetsGetsImpulsesOfTheTargetsSize) {
    // Two 1 kg unit-ish bodies side by side; the hinge's anchors 1.7 m apart along x, and on body b each
    // anchor sits `error` off the one on body a (the joint error), along y for one joint and z for the other.
    std::vector<SolverBody> bodies(2);
    for (int k = 0; k < 2; ++k) {
        SolverBody& b = bodies[static_cast<std::size_t>(k)];
        b.position = Vec3(0, k == 0 ? -0.5 : 0.5, 0);
        b.inverse_mass = 1;
        b.inverse_inertia_local = Vec3(6, 5, 4).asDiagonal();
        b.inverse_inertia = b.inverse_inertia_local;
    }
    for (const double error : {0.0, 1e-5, 1e-4}) {
        const Vec3 anchors[2] = {Vec3(-0.85, 0, 0), Vec3(0.85, 0, 0)};
        const Vec3 offsets[2] = {Vec3(0, error, 0), Vec3(0, 0, error)};
        std::vector<Row> rows;
        for (int j = 0; j < 2; ++j)
            for (int axis = 0; axis < 3; ++axis) {
                Row r;
                make_row(r, bodies, 0, 1, anchors[j], anchors[j] + offsets[j], Vec3::Unit(axis));
                r.kind = RowKind::joint;
                r.source = static_cast<std::uint32_t>(j);
                rows.push_back(r);
            }
        // Targets of 1 m/s pulling the two anchors apart along the hinge line (the redundant direction) and
        // some reachable ones: no impulse of finite size meets the first part.
        const double targets[6] = {1.0, 0.2, -0.3, -1.0, 0.1, 0.4};
        const auto n = static_cast<Eigen::Index>(rows.size());
        Eigen::MatrixXd a(n, n);
        Eigen::VectorXd q = Eigen::VectorXd::Zero(n);
        for (Eigen::Index i = 0; i < n; ++i) {
            rows[static_cast<std::size_t>(i)].target = targets[i];
            for (Eigen::Index j = 0; j < n; ++j)
                a(i, j) = coupling(rows[static_cast<std::size_t>(i)], rows[static_cast<std::size_t>(j)]);
        }
        std::vector<SolverBody> solved = bodies;
        BlcpWorkspace ws;
        solve_blcp_active_set_qp(rows, solved, ws, a, q, 4);
        // A reachable target of 1 m/s on bodies of 1 kg and inverse inertias of a few 1/(kg m^2) takes
        // impulses of order 1 N s; the least-squares answer along the reachable directions is of that size.
        // 100 N s bounds it with room for the lever arms (0.85 m) and the ill-conditioning of the five rows.
        double largest = 0;
        for (const Row& r : rows) largest = std::max(largest, std::abs(r.lambda));
        EXPECT_LT(largest, 100.0) << "joint error " << error << " m: largest impulse " << largest << " N s";
        for (const SolverBody& b : solved)
            EXPECT_TRUE(b.velocity.allFinite() && b.angular_velocity.allFinite()) << "joint error " << error;
    }
}

// An island the fuzzer found (bench/fuzz/corpus/fuzz_world/convex_qp_release_cycle_1_2s), as the
// convex QP received it: a diverging world, 75 rows on six bodies, steps of 1e16 N s. The primal-dual active
// set cycles and hands it to the QP, whose free block there is singular to working precision: a bound it
// releases (its multiplier 7e13 m/s on the wrong side) blocks the very next step with no move, a full step
// along the flat direction changes nothing but round-off, and the same bound is released again. Each of the
// 20 friction rounds spent its 10 n + 10 = 760 iterations on that loop, one dense factorisation each: 15,200
// iterations and 7,480 pivots for this solve (the whole input, six such solves: 1.7 s of CPU in Release).
// tests/solver/data/qp_diverging_island.txt holds every number as a hexadecimal float, so the solve is the
// fuzzer's bit for bit.
struct DumpedIsland {
    std::vector<Row> rows;
    std::vector<SolverBody> bodies;
    Eigen::MatrixXd a;
    Eigen::VectorXd q;
};

// Rows (kind, bodies, patch links, direction, angular terms J and I^-1 J, inverse masses, target, impulse,
// mu, lever), q and A; the bodies at rest (their velocities only receive the impulses). Rows are left empty
// if a token is not a number or the file is short or too long.
DumpedIsland read_dumped_island(const std::string& path) {
    DumpedIsland island;
    std::ifstream in(path);
    std::size_t row_count = 0, body_count = 0;
    in >> row_count >> body_count;
    test::HexFloatReader numbers(in);
    const auto read_double = [&] { return numbers.next(); };
    for (std::size_t i = 0; i < row_count && in; ++i) {
        Row r;
        int kind = 0;
        in >> kind >> r.a >> r.b >> r.normal >> r.normal_count;
        r.kind = static_cast<RowKind>(kind);
        r.source = static_cast<std::uint32_t>(i);
        for (Vec3* v : {&r.dir, &r.ang_a, &r.ang_b, &r.inv_ang_a, &r.inv_ang_b})
            for (int k = 0; k < 3; ++k) (*v)[k] = read_double();
        for (double* x : {&r.inv_mass_a, &r.inv_mass_b, &r.target, &r.lambda, &r.mu, &r.lever})
            *x = read_double();
        island.rows.push_back(r);
    }
    const auto n = static_cast<Eigen::Index>(row_count);
    island.q.resize(n);
    for (Eigen::Index i = 0; i < n; ++i) island.q[i] = read_double();
    island.a.resize(n, n);
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j < n; ++j) island.a(i, j) = read_double();
    island.bodies.resize(body_count);
    std::string rest;
    if (!in || !numbers.ok() || (in >> rest)) island.rows.clear();
    return island;
}

TEST(BlcpFallbackQp, ReleasingABoundAgainWithoutALowerObjectiveEndsTheRound) {
    DumpedIsland island =
        read_dumped_island(std::string(SIMPULSE_SOURCE_DIR) + "/tests/solver/data/qp_diverging_island.txt");
    ASSERT_EQ(island.rows.size(), 75u) << "could not read the dumped island";
    BlcpWorkspace ws;
    const BlcpResult result =
        solve_blcp_active_set_qp(island.rows, island.bodies, ws, island.a, island.q, 20);
    // One round's cap, 10 n + 10, for all 20 rounds together: without the rule the first round alone reached
    // it. With the rule the solve takes 163 iterations.
    const int n = static_cast<int>(island.rows.size());
    EXPECT_LE(result.iterations, 10 * n + 10)
        << result.iterations << " iterations, " << result.pivots << " pivots";
    // Ending a round early does not make the answer infeasible: every impulse within its bounds (friction
    // within mu times its patch's normal impulse), up to the round-off of those bounds. (The fuzzed materials
    // overflow to mu = inf on some friction rows, whose bounds are then NaN where their normal impulse is 0:
    // no bound to check.)
    for (const Row& r : island.rows) {
        ASSERT_TRUE(std::isfinite(r.lambda)) << "row " << r.source;
        const auto [lo, hi] = row_bounds(r, island.rows);
        if (std::isnan(lo) || std::isnan(hi)) continue;
        const double slack = 1e-12 * std::max(1.0, std::abs(r.lambda));
        EXPECT_GE(r.lambda, lo - slack) << "row " << r.source;
        EXPECT_LE(r.lambda, hi + slack) << "row " << r.source;
    }
    // The island is not solved (a diverging world: residual 5.6e14 m/s at impulses of 1e16 N s), and the
    // result says so rather than claiming convergence.
    EXPECT_FALSE(result.converged) << "residual " << result.residual << " m/s";
    for (const SolverBody& b : island.bodies)
        EXPECT_TRUE(b.velocity.allFinite() && b.angular_velocity.allFinite());
}

}  // namespace
}  // namespace simpulse::detail
