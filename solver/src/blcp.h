// Boxed linear complementarity problems of one island (internal). For rows i with impulse lambda_i and
// post-impulse relative velocity w = A lambda + q (A = J M^-1 J^T, q = J v of the base velocities):
//   normal rows:   lambda >= 0,                 w >= target,   lambda (w - target) = 0
//   friction rows: |lambda| <= mu lambda_normal, lambda = +mu lambda_n => w <= 0, -mu lambda_n => w >= 0,
//   else w = 0 joint rows:    lambda free,                  w = target
// Both solvers take the base velocities in `bodies` (without this island's impulses) and initial impulses in
// rows[i].lambda (warm start), and return with the final impulses in the rows and applied to the velocities.
#pragma once

#include "rows.h"

#include <Eigen/Dense>
#include <Eigen/Sparse>

#include <memory>
#include <utility>

namespace simpulse::detail {

struct BlcpResult {
    int iterations = 0;
    int pivots = 0;
    double residual = 0;  // largest complementarity violation, in the units of w (m/s)
    bool converged = false;
};

// Dense factors of free systems up to kInlineFactorRows rows keep their storage inline, so factorising
// allocates nothing (Eigen's dynamic-size LDLT and LU allocate their pivot order whenever the size changes,
// which in an active-set method is every iteration). The default dense_max_rows is within it.
inline constexpr Eigen::Index kInlineFactorRows = 96;
using InlineMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor, kInlineFactorRows,
                                   kInlineFactorRows>;
struct InlineFactors {
    Eigen::LDLT<InlineMatrix> ldlt;
    Eigen::PartialPivLU<InlineMatrix> lu;
    Eigen::CompleteOrthogonalDecomposition<InlineMatrix> least_squares;
};

// Scratch buffers of the solvers, owned by the Solver and reused every step.
struct BlcpWorkspace {
    // The active-set methods use `dense`, `reduced`, `regularized`, `q`, `w` and the free_* and qp_* vectors
    // through their leading blocks (leading_block, leading below), which only grow: the free system changes
    // size in every active-set iteration, and an Eigen matrix reallocates whenever its size changes. The
    // factors are computed in place in `regularized`.
    Eigen::MatrixXd dense;    // A of the island
    Eigen::MatrixXd reduced;  // K of the free rows
    Eigen::MatrixXd regularized;
    Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> least_squares;  // fallback QP, inconsistent K
    Eigen::VectorXd q, w;  // base and final row velocities of the island (leading blocks)
    Eigen::VectorXd rhs, x, residual_vector, least_squares_x;
    Eigen::VectorXd lambda, free_rhs, free_x, free_residual, free_correction;
    Eigen::VectorXd qp_lambda, qp_lo, qp_hi, qp_gradient, qp_step;
    std::unique_ptr<InlineFactors> factors;  // made on first use (229 kB)
    std::vector<std::int8_t> status;         // -1 at lower bound, 0 free, +1 at upper bound
    std::vector<std::int8_t> new_status;
    std::vector<std::int32_t> column;  // free row -> column of K
    std::vector<std::int32_t> free_rows;
    std::vector<Eigen::Triplet<double>> triplets;
    Eigen::SparseMatrix<double> sparse_a, sparse_k;
    std::vector<std::vector<std::uint32_t>> rows_of_body;
    std::vector<std::uint32_t> touched_bodies;
    std::vector<Vec3> linear_velocity;  // iterative solver: contiguous copies of the body velocities
    std::vector<Vec3> angular_velocity;
    std::vector<std::uint32_t> copied_bodies;  // the bodies copy_velocities_in copied, each once
    std::vector<std::uint32_t> copy_stamp;     // per body: the copy_generation that last listed it
    std::uint32_t copy_generation = 0;
    std::vector<int> body_changed;        // iterative solver: sweep in which a body's velocity last changed
    std::vector<int> row_settled;         // sweep in which a row was last found satisfied
    std::vector<double> sweep_change;     // iterative solver (NNCG): impulse change of the last sweep per row
    std::vector<double> direction;        // iterative solver (NNCG): search direction per row
    std::vector<std::uint8_t> is_moving;  // iterative solver (NNCG): row has moved since the last restart
    std::vector<std::uint32_t> moving;    // iterative solver (NNCG): those rows
};

// The leading n x n block (n-vector) of a buffer that grows to the largest n it has been asked for; its
// contents are undefined until written.
inline Eigen::Block<Eigen::MatrixXd> leading_block(Eigen::MatrixXd& storage, Eigen::Index n) {
    if (storage.rows() < n || storage.cols() < n) storage.resize(n, n);
    return storage.topLeftCorner(n, n);
}
inline Eigen::VectorBlock<Eigen::VectorXd> leading(Eigen::VectorXd& storage, Eigen::Index n) {
    if (storage.size() < n) storage.resize(n);
    return storage.head(n);
}

// Factorises the square `matrix` (LDLT when symmetric, else LU with partial pivoting) and calls
// solve(factor). Up to kInlineFactorRows rows in ws.factors; above, in place in `matrix` (then it is
// overwritten).
template <class Solve>
void with_dense_factor(BlcpWorkspace& ws, Eigen::Ref<Eigen::MatrixXd> matrix, bool symmetric, Solve&& solve) {
    if (matrix.rows() <= kInlineFactorRows) {
        if (!ws.factors) ws.factors = std::make_unique<InlineFactors>();
        if (symmetric) {
            ws.factors->ldlt.compute(matrix);
            solve(std::as_const(ws.factors->ldlt));
        } else {
            ws.factors->lu.compute(matrix);
            solve(std::as_const(ws.factors->lu));
        }
    } else if (symmetric) {
        const Eigen::LDLT<Eigen::Ref<Eigen::MatrixXd>> factor(matrix);
        solve(factor);
    } else {
        const Eigen::PartialPivLU<Eigen::Ref<Eigen::MatrixXd>> factor(matrix);
        solve(factor);
    }
}

// Contiguous copies of the velocities of the bodies a set of rows touches
// (ws.linear_velocity/angular_velocity), the row velocity and impulse application on those copies, and the
// copy back. Used by the iterative sweeps and the direct method's warm-start check.
void copy_velocities_in(std::span<const Row> rows, std::span<const SolverBody> bodies, BlcpWorkspace& ws);
void copy_velocities_out(std::span<SolverBody> bodies, const BlcpWorkspace& ws);  // the bodies copied in
inline double copied_row_velocity(const Row& r, const BlcpWorkspace& ws) {
    double w = 0;
    if (r.a != kNoBody) w += -r.dir.dot(ws.linear_velocity[r.a]) + r.ang_a.dot(ws.angular_velocity[r.a]);
    if (r.b != kNoBody) w += r.dir.dot(ws.linear_velocity[r.b]) + r.ang_b.dot(ws.angular_velocity[r.b]);
    for_each_spread_term(r, [&](std::uint32_t body, double weight, double) {
        w += weight * r.dir.dot(ws.linear_velocity[body]);
    });
    return w;
}
inline void apply_to_copies(const Row& r, double impulse, BlcpWorkspace& ws) {
    if (r.a != kNoBody) {
        ws.linear_velocity[r.a] -= (r.inv_mass_a * impulse) * r.dir;
        ws.angular_velocity[r.a] += impulse * r.inv_ang_a;
    }
    if (r.b != kNoBody) {
        ws.linear_velocity[r.b] += (r.inv_mass_b * impulse) * r.dir;
        ws.angular_velocity[r.b] += impulse * r.inv_ang_b;
    }
    for_each_spread_term(r, [&](std::uint32_t body, double weight, double inverse_mass) {
        ws.linear_velocity[body] += (weight * inverse_mass * impulse) * r.dir;
    });
}

// Active-set (primal-dual, semismooth Newton) solve on the assembled system. Dense factorisation up to
// `dense_max_rows`, sparse LU above. Returns converged == false if the active set did not settle within
// max_iterations (the caller then polishes with the iterative method); the impulses are then still applied.
// Unless `give_up`, a stalling iteration first switches to single pivots (more iterations) and a dense one
// falls back to the convex-QP method; with `give_up` it simply stops after max_iterations.
BlcpResult solve_blcp_direct(std::span<Row> rows, std::span<SolverBody> bodies, BlcpWorkspace& ws,
                             int max_iterations, int dense_max_rows, bool give_up = false);

// Convex-QP active-set fallback (friction bounds fixed, updated in an outer loop) on the dense A and base
// velocities q of the island, as assembled by solve_blcp_direct (it passes the leading block of ws.dense and
// ws.q: the method leaves both alone and uses the rest of ws as scratch). Velocities must not contain the
// island's impulses.
BlcpResult solve_blcp_active_set_qp(std::span<Row> rows, std::span<SolverBody> bodies, BlcpWorkspace& ws,
                                    Eigen::Ref<const Eigen::MatrixXd> a, Eigen::Ref<const Eigen::VectorXd> q,
                                    int max_outer);

// Projected Gauss-Seidel sweeps over the rows with nonsmooth conjugate-gradient (NNCG) momentum, matrix-free:
// A is applied through the body velocities (A lambda = J M^-1 J^T lambda), the same system without forming
// it.
BlcpResult solve_blcp_iterative(std::span<Row> rows, std::span<SolverBody> bodies, BlcpWorkspace& ws,
                                int max_iterations, double tolerance);

// True if the rows' current impulses (warm start) satisfy the complementarity conditions within `tolerance`
// (m/s); then they have been applied to the bodies and ws.w holds the row velocities. O(rows), no matrix.
bool warm_start_solves(std::span<Row> rows, std::span<SolverBody> bodies, BlcpWorkspace& ws,
                       double tolerance);

// Sets every impulse to 0 if some row's impulse cannot start a solve: applying it to the velocities leaves
// round-off above `tolerance` (m/s), |lambda_i| A_ii eps > tolerance, or it is not finite. An unsettled
// direct iterate on a nearly singular system can hold such impulses (1e19 N s); the sweeps would carry their
// round-off into the answer.
void drop_unusable_start(std::span<Row> rows, double tolerance);

// Largest complementarity violation of the rows given their current impulses and post-impulse velocities w.
double blcp_residual(std::span<const Row> rows, const Eigen::VectorXd& w);

struct Bounds {
    double lo;
    double hi;
};

// Lower and upper bound of a row given the impulses of the island (friction bounds follow their normal).
inline Bounds row_bounds(const Row& r, std::span<const Row> rows) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (unilateral(r.kind)) return {0.0, inf};
    if (r.kind == RowKind::motor) return {-r.mu, r.mu};
    if (r.kind == RowKind::friction) {
        const double bound = r.mu * patch_normal_impulse(r, rows);
        return {-bound, bound};
    }
    return {-inf, inf};
}

}  // namespace simpulse::detail
