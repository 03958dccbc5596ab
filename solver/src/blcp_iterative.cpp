// Iterative solve of an island's boxed LCP for islands too large for the direct method: projected
// Gauss-Seidel on the same system A lambda = J M^-1 J^T lambda, applied matrix-free through the body
// velocities (each row update reads J_i v and writes M^-1 J_i^T dlambda). Warm-started impulses are applied
// first; sweeps stop when the complementarity residual falls below the tolerance.
#include "blcp.h"

#include <algorithm>
#include <cmath>

namespace simpulse::detail {

BlcpResult solve_blcp_iterative(std::span<Row> rows, std::span<SolverBody> bodies, int max_iterations,
                                double tolerance) {
    BlcpResult result;
    for (Row& r : rows) {
        const auto [lo, hi] = row_bounds(r, rows);
        r.lambda = std::clamp(r.lambda, lo, hi);
    }
    for (const Row& r : rows) apply_row_impulse(r, r.lambda, bodies);

    for (int sweep = 1; sweep <= max_iterations; ++sweep) {
        result.iterations = sweep;
        double worst = 0;
        for (Row& r : rows) {
            const double v = row_velocity(r, bodies) - r.target;
            const auto [lo, hi] = row_bounds(r, rows);
            // The velocity violation this row has before its update is its share of the residual.
            const double violation = r.lambda <= lo   ? std::max(0.0, -v)
                                     : r.lambda >= hi ? std::max(0.0, v)
                                                      : std::abs(v);
            if (lo < hi) worst = std::max(worst, violation);
            const double updated = std::clamp(r.lambda - v / r.diagonal, lo, hi);
            const double delta = updated - r.lambda;
            if (delta != 0) {
                apply_row_impulse(r, delta, bodies);
                r.lambda = updated;
            }
        }
        result.residual = worst;
        if (worst <= tolerance) {
            result.converged = true;
            break;
        }
    }
    // The residual seen during the last sweep lags the final impulses; report the residual of the result.
    double worst = 0;
    for (const Row& r : rows) {
        const double v = row_velocity(r, bodies) - r.target;
        const auto [lo, hi] = row_bounds(r, rows);
        if (lo >= hi) continue;
        worst = std::max(worst, r.lambda <= lo   ? std::max(0.0, -v)
                                : r.lambda >= hi ? std::max(0.0, v)
                                                 : std::abs(v));
    }
    result.residual = worst;
    return result;
}

}  // namespace simpulse::detail
