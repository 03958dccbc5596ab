// Fallback direct method for an island's BLCP when the primal-dual active set (blcp_direct.cpp) cycles: with
// the friction bounds held fixed the problem is the convex QP  min 1/2 l^T A l + (q - target)^T l,  lo <= l
// <= hi, solved by the classical primal active-set method (Nocedal & Wright, Numerical Optimization,
// alg. 16.3): every iteration either moves to the minimiser on the current working set, stops at the first
// blocking bound, or releases the bound with the most negative multiplier. The objective decreases
// monotonically, so it cannot cycle the way the primal-dual method can on matrices that are not M-matrices.
// Friction bounds mu lambda_n are then updated from the new normal impulses and the QP solved again until
// they stop changing (fixed point = Coulomb).
#include "blcp.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace simpulse::detail {

BlcpResult solve_blcp_active_set_qp(std::span<Row> rows, std::span<SolverBody> bodies, BlcpWorkspace& ws,
                                    const Eigen::MatrixXd& a, const Eigen::VectorXd& q, int max_outer) {
    BlcpResult result;
    const auto n = static_cast<Eigen::Index>(rows.size());
    Eigen::VectorXd lambda(n), lo(n), hi(n), gradient(n), step(n);
    double scale = 1e-9;
    for (Eigen::Index i = 0; i < n; ++i)
        scale = std::max({scale, std::abs(q[i]), std::abs(rows[static_cast<std::size_t>(i)].target)});
    const double tolerance = 1e-12 * scale;
    const double eps = 1e-10 * std::max(a.diagonal().maxCoeff(), 1e-300);
    for (Eigen::Index i = 0; i < n; ++i) lambda[i] = rows[static_cast<std::size_t>(i)].lambda;
    std::vector<std::int8_t>& working = ws.status;  // -1 at lower, +1 at upper, 0 free

    bool bounds_settled = false;
    for (int outer = 0; outer < max_outer && !bounds_settled; ++outer) {
        for (Eigen::Index i = 0; i < n; ++i) {
            rows[static_cast<std::size_t>(i)].lambda = lambda[i];
        }
        bounds_settled = true;
        for (Eigen::Index i = 0; i < n; ++i) {
            const auto [l, h] = row_bounds(rows[static_cast<std::size_t>(i)], rows);
            if (outer > 0 && (std::abs(l - lo[i]) > 1e-12 * (1 + std::abs(l)) ||
                              std::abs(h - hi[i]) > 1e-12 * (1 + std::abs(h))))
                bounds_settled = false;
            lo[i] = l;
            hi[i] = h;
        }
        if (outer > 0 && bounds_settled) break;
        bounds_settled = false;
        working.assign(rows.size(), 0);
        for (Eigen::Index i = 0; i < n; ++i) {
            lambda[i] = std::clamp(lambda[i], lo[i], hi[i]);
            if (lambda[i] <= lo[i])
                working[static_cast<std::size_t>(i)] = -1;
            else if (lambda[i] >= hi[i])
                working[static_cast<std::size_t>(i)] = 1;
        }
        // A full step (no bound in the way) ends at the minimiser on the working set, and the next solve
        // returns a step of round-off size. Not so where the free block of A is singular (redundant
        // contacts): if the gradient has a part along its null space, the objective is linear along that
        // direction and every solve returns the same step again; and steps of round-off size need not pass
        // the test below. Taking them one unit at a time crept until the iteration cap (19,200 iterations of
        // one solve, each a factorisation, on a pile of dominoes). So a full step that did not shrink to
        // under half the previous one is taken as a ray, followed to the line minimiser or the first bound it
        // meets (with neither, or no descent along it, lambda is a minimiser); and after three full steps on
        // one working set lambda is taken as its minimiser: only the multipliers are checked.
        constexpr int kMaxFullSteps = 3;
        double last_full_step = std::numeric_limits<double>::infinity();
        int full_steps = 0;
        bool at_minimiser = false;
        for (int iteration = 0; iteration < 10 * static_cast<int>(n) + 10; ++iteration) {
            ++result.iterations;
            gradient.noalias() = a * lambda;
            for (Eigen::Index i = 0; i < n; ++i)
                gradient[i] += q[i] - rows[static_cast<std::size_t>(i)].target;
            ws.free_rows.clear();
            for (Eigen::Index i = 0; i < n; ++i)
                if (working[static_cast<std::size_t>(i)] == 0)
                    ws.free_rows.push_back(static_cast<std::int32_t>(i));
            const auto m = static_cast<Eigen::Index>(ws.free_rows.size());
            step.setZero();
            if (m > 0 && !at_minimiser) {
                ws.reduced.resize(m, m);
                ws.rhs.resize(m);
                for (Eigen::Index r = 0; r < m; ++r) {
                    ws.rhs[r] = -gradient[ws.free_rows[static_cast<std::size_t>(r)]];
                    for (Eigen::Index c = 0; c < m; ++c)
                        ws.reduced(r, c) = a(ws.free_rows[static_cast<std::size_t>(r)],
                                             ws.free_rows[static_cast<std::size_t>(c)]);
                }
                ws.regularized = ws.reduced;
                ws.regularized.diagonal().array() += eps;
                ws.ldlt.compute(ws.regularized);
                ws.x = ws.ldlt.solve(ws.rhs);
                for (int refinement = 0; refinement < 3; ++refinement) {
                    ws.residual_vector.noalias() = ws.rhs - ws.reduced * ws.x;
                    ws.x += ws.ldlt.solve(ws.residual_vector);
                }
                // Refinement reaches the minimum-norm solution when the free rows can meet their targets.
                // When they cannot, each refinement adds the unreachable part divided by the regularisation.
                // A bounded row stops such a step at its bound (the redundant points of a box on the
                // ground: the null-space step lowers some of their impulses to 0), but rows without bounds
                // (joints) do not: the six rows of a hinge of two ball joints have rank five, and with
                // targets that have a part along the sixth direction the steps grew until the impulses
                // overflowed (bench/stress_findings/unreduced_s126.json). So when a free row has no bounds
                // and the refinements left a residual above 1e-6 of the right-hand side (three of them
                // shrink it by (eps / pivot)^3, below 1e-9 for every pivot above the threshold below), the
                // unbounded rows take the least-squares step of least norm instead, and the objective's
                // flat direction along them stops there; the bounded rows keep the refined step, which
                // takes them to their bounds as before.
                const auto unbounded = [&](std::int32_t i) { return std::isinf(lo[i]) && std::isinf(hi[i]); };
                bool unreachable = false;
                if (std::any_of(ws.free_rows.begin(), ws.free_rows.end(), unbounded)) {
                    ws.residual_vector.noalias() = ws.rhs - ws.reduced * ws.x;
                    unreachable = !(ws.residual_vector.norm() <= 1e-6 * ws.rhs.norm());
                }
                if (unreachable) {
                    // Pivots below 1e-7 of the largest count as redundant, as for the joint targets
                    // (joint_targets.cpp): two ball joints a distance L apart with a joint error e are
                    // redundant up to a pivot ratio of about (e / L)^2, which the default threshold (machine
                    // epsilon) would take as full rank (a 10 um error on a 1.7 m hinge: steps of 3.6e10).
                    ws.least_squares.setThreshold(1e-7);
                    ws.least_squares.compute(ws.reduced);
                    ws.least_squares_x = ws.least_squares.solve(ws.rhs);
                    for (Eigen::Index r = 0; r < m; ++r) {
                        const std::int32_t i = ws.free_rows[static_cast<std::size_t>(r)];
                        if (unbounded(i)) ws.x[r] = ws.least_squares_x[r];
                    }
                }
                for (Eigen::Index r = 0; r < m; ++r)
                    step[ws.free_rows[static_cast<std::size_t>(r)]] = ws.x[r];
            }
            if (step.cwiseAbs().maxCoeff() * std::max(1.0, a.diagonal().maxCoeff()) <= tolerance) {
                // Minimiser on the working set: release the bound whose multiplier has the wrong sign the
                // most.
                Eigen::Index worst = -1;
                double worst_value = tolerance;
                for (Eigen::Index i = 0; i < n; ++i) {
                    const std::int8_t s = working[static_cast<std::size_t>(i)];
                    const double violation = s == -1 ? -gradient[i] : s == 1 ? gradient[i] : 0.0;
                    if (lo[i] < hi[i] && violation > worst_value) worst_value = violation, worst = i;
                }
                if (worst < 0) break;
                working[static_cast<std::size_t>(worst)] = 0;
                ++result.pivots;
                last_full_step = std::numeric_limits<double>::infinity();
                full_steps = 0;
                at_minimiser = false;
                continue;
            }
            // Longest feasible step along `step`, stopping at the first bound it would cross: up to 1 (the
            // minimiser on the working set), or, along a ray, up to the line minimiser of the quadratic.
            const double size = step.cwiseAbs().maxCoeff();
            const bool ray = !(size < 0.5 * last_full_step);
            double alpha = 1.0;
            if (ray) {
                const double slope = gradient.dot(step);
                ws.w.noalias() = a * step;  // scratch here: ws.w is only the result's velocity at the end
                const double curvature = step.dot(ws.w);
                if (!(slope < 0)) {  // no descent along it: lambda is a minimiser on the working set
                    at_minimiser = true;
                    continue;
                }
                alpha = curvature > 0 ? -slope / curvature : std::numeric_limits<double>::infinity();
            }
            Eigen::Index blocking = -1;
            for (Eigen::Index i = 0; i < n; ++i) {
                if (working[static_cast<std::size_t>(i)] != 0) continue;
                if (step[i] < 0 && std::isfinite(lo[i]) && lambda[i] + alpha * step[i] < lo[i])
                    alpha = (lo[i] - lambda[i]) / step[i], blocking = i;
                if (step[i] > 0 && std::isfinite(hi[i]) && lambda[i] + alpha * step[i] > hi[i])
                    alpha = (hi[i] - lambda[i]) / step[i], blocking = i;
            }
            if (!std::isfinite(alpha)) {  // flat and no bound ahead: nothing to gain along the ray
                at_minimiser = true;
                continue;
            }
            lambda += std::max(alpha, 0.0) * step;
            last_full_step = blocking < 0 ? size : std::numeric_limits<double>::infinity();
            full_steps = blocking < 0 ? full_steps + 1 : 0;
            if (full_steps >= kMaxFullSteps) at_minimiser = true;
            if (blocking >= 0) {
                working[static_cast<std::size_t>(blocking)] = step[blocking] < 0 ? -1 : 1;
                lambda[blocking] = step[blocking] < 0 ? lo[blocking] : hi[blocking];
                ++result.pivots;
            }
        }
    }
    for (Eigen::Index i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)].lambda = lambda[i];
    for (const Row& r : rows) apply_row_impulse(r, r.lambda, bodies);
    ws.w.noalias() = a * lambda;
    ws.w += q;
    result.residual = blcp_residual(rows, ws.w);
    result.converged = result.residual <= 1e-9 * scale;
    return result;
}

}  // namespace simpulse::detail
