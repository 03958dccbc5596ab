// The island solver for islands of any size (internal): a body-space Newton method with a Cholesky (LDL^T)
// factorisation inside a proximal-point outer loop that removes its regularisation, so the answer solves the
// boxed LCP of blcp.h to a stated tolerance. newton.cpp has the method and its sources.
#pragma once

#include "rows.h"

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <Eigen/SparseCholesky>

#include <cstdint>
#include <vector>

namespace simpulse::detail {

struct NewtonSettings {
    double tolerance = 1e-9;  // largest complementarity violation accepted, m/s
    int max_outer = 200;      // proximal-point iterations
    int max_newton = 100;     // Newton iterations per subproblem
    // Per solve: the cost cap of an island that does not converge, with 20 times as many Newton steps
    // (newton.cpp, kStepsPerFactorization).
    int max_factorizations = 400;
    double proximal_start = 1e-2;  // first proximal weight, relative to a row's effective mass A_ii
    double proximal_min = 1e-8;    // the smallest proximal weight
    double proximal_drop = 0.3;    // factor applied to the weight after an iteration that gained little
    // Friction bounds move part of the way to mu times the new normal impulses after an iteration that raised
    // the residual (halved steps, doubled again after one that lowered it) instead of all the way. The cable
    // islands' setting (with proximal_drop 0.1), see newton.cpp.
    bool lag_friction_bounds = false;
    int dense_max_bodies = 12;  // islands up to this many bodies factorise densely
};

struct NewtonResult {
    int outer = 0;           // proximal-point iterations
    int newton = 0;          // Newton iterations, summed over the subproblems
    int factorizations = 0;  // numeric factorisations
    double residual = 0;     // largest complementarity violation, m/s (torsion rows at their patch radius)
    double relative = 0;     // largest violation in impulse terms (violation / A_ii) over the largest impulse
    bool converged = false;
    // Stopped by a cap (iterations, factorisations, Newton steps) above what it can reach.
    bool capped = false;
};

// Scratch of the Newton solver, reused across islands and steps (no allocation once grown).
struct NewtonWorkspace {
    // Island bodies: local index <-> global index; 6 unknowns each (velocity, angular velocity; world).
    std::vector<std::uint32_t> body_of;
    std::vector<std::int32_t> local_of;  // global -> local, -1
    std::vector<double> mass;
    std::vector<Mat3> inertia;               // world inertia tensor
    std::vector<std::int32_t> row_a, row_b;  // per row: local body or -1
    // Point-mass terms of rows with spread sides (Row::spread, cable contacts): row i's are
    // [spread_start[i], spread_start[i + 1]), each a local body, once per row, with Jacobian (weight dir, 0).
    std::vector<std::int32_t> spread_start, spread_body;
    std::vector<double> spread_weight;
    Eigen::VectorXd v0, v, u, force, step, scratch;
    std::vector<double> w, offset, centre, impulse, penalty, lo, hi, d, best, bound;
    std::vector<std::uint8_t> free, factored_free;
    // Sparse H = M + J_F^T P^-1 J_F: upper triangle in 6 x 6 blocks, block columns in the order `position`;
    // its shape is the island's bodies and the pairs of bodies that free rows join. Upper, because Eigen's
    // SimplicialLDLT factorises a column-major upper triangle as it is and first copies any other transposed.
    std::vector<std::pair<std::int32_t, std::int32_t>> block_pairs;
    std::vector<std::int32_t> position;             // local body -> block position
    std::vector<std::int32_t> column_blocks_start;  // per block column: first entry in block_rows
    std::vector<std::int32_t> block_rows;           // off-diagonal block rows of each block column, sorted
    std::vector<std::uint64_t> shape, factored_shape;
    std::vector<std::uint64_t> row_pairs;
    Eigen::SparseMatrix<double> h;
    std::size_t factor_nonzeros = 0;  // of the sparse factor L (reported in SolverStats::workspace_bytes)
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>, Eigen::Upper, Eigen::NaturalOrdering<int>> sparse;
    Eigen::MatrixXd dense_h;
    Eigen::LDLT<Eigen::MatrixXd> dense;
    Eigen::LLT<Eigen::MatrixXd> dense_llt;  // H of an island whose bodies nearly all touch each other
    std::size_t dense_factor_bytes = 0;     // of the larger dense factor so far (workspace_bytes)
};

// Solves the island's boxed LCP (rows' bounds and targets as in blcp.h) from the warm-start impulses in
// rows[i].lambda, with the bodies' velocities not containing them; on return the rows hold the impulses and
// the bodies' velocities include them (applied as apply_row_impulse does). Where it does not converge within
// its caps it returns the iterate with the smallest residual, and says so.
NewtonResult solve_blcp_newton(std::span<Row> rows, std::span<SolverBody> bodies, NewtonWorkspace& ws,
                               const NewtonSettings& settings);

}  // namespace simpulse::detail
