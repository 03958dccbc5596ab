// Iterative solve of an island's boxed LCP for islands too large for the direct method: projected
// Gauss-Seidel on the same system A lambda = J M^-1 J^T lambda, applied matrix-free through the body
// velocities (each row update reads J_i v and writes M^-1 J_i^T dlambda). Warm-started impulses are applied
// first; sweeps stop when the complementarity residual falls below the tolerance.
#include "blcp.h"

#include <algorithm>
#include <cmath>

namespace simpulse::detail {
void copy_velocities_in(std::span<const Row> rows, std::span<const SolverBody> bodies, BlcpWorkspace& ws) {
    ws.linear_velocity.resize(bodies.size());
    ws.angular_velocity.resize(bodies.size());
    for (const Row& r : rows)
        for (std::uint32_t body : {r.a, r.b})
            if (body != kNoBody) {
                ws.linear_velocity[body] = bodies[body].velocity;
                ws.angular_velocity[body] = bodies[body].angular_velocity;
            }
}

void copy_velocities_out(std::span<const Row> rows, std::span<SolverBody> bodies, const BlcpWorkspace& ws) {
    for (const Row& r : rows)
        for (std::uint32_t body : {r.a, r.b})
            if (body != kNoBody) {
                bodies[body].velocity = ws.linear_velocity[body];
                bodies[body].angular_velocity = ws.angular_velocity[body];
            }
}

BlcpResult solve_blcp_iterative(std::span<Row> rows, std::span<SolverBody> bodies, BlcpWorkspace& ws,
                                int max_iterations, double tolerance) {
    BlcpResult result;
    copy_velocities_in(rows, bodies, ws);
    for (Row& r : rows) {
        const auto [lo, hi] = row_bounds(r, rows);
        r.lambda = std::clamp(r.lambda, lo, hi);
        apply_to_copies(r, r.lambda, ws);
    }

    // Rows are revisited only when something they depend on changed: a row that was satisfied when last
    // visited stays satisfied until the velocity of one of its two bodies changes (friction bounds follow the
    // patch's normal rows, which act on the same bodies). Resting parts of a large island then cost nothing
    // per sweep. Updates smaller than a hundredth of the tolerance are not applied. Stamps come from a
    // counter of applied updates, so a change later in the same sweep is seen too.
    ws.body_changed.assign(bodies.size(), 0);
    ws.row_settled.assign(rows.size(), -1);
    int updates = 0;
    const double negligible = 1e-2 * tolerance;
    for (int sweep = 1; sweep <= max_iterations; ++sweep) {
        result.iterations = sweep;
        // Convergence measure: the largest velocity correction a row needed in this sweep, |dlambda| A_ii. It
        // is zero exactly when every row already satisfied its complementarity condition.
        double worst = 0;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            Row& r = rows[i];
            const int depends = std::max(r.a != kNoBody ? ws.body_changed[r.a] : -1,
                                         r.b != kNoBody ? ws.body_changed[r.b] : -1);
            if (ws.row_settled[i] >= depends) continue;
            const double v = copied_row_velocity(r, ws) - r.target;
            const auto [lo, hi] = row_bounds(r, rows);
            const double updated = std::clamp(r.lambda - v / r.diagonal, lo, hi);
            const double delta = updated - r.lambda;
            const double correction = std::abs(delta) * r.diagonal;
            if (correction <= negligible) {
                ws.row_settled[i] = updates;
                continue;
            }
            apply_to_copies(r, delta, ws);
            r.lambda = updated;
            worst = std::max(worst, correction);
            ++updates;
            if (r.a != kNoBody) ws.body_changed[r.a] = updates;
            if (r.b != kNoBody) ws.body_changed[r.b] = updates;
            ws.row_settled[i] = updates;
        }
        result.residual = worst;
        if (worst <= tolerance) {
            result.converged = true;
            break;
        }
    }
    copy_velocities_out(rows, bodies, ws);
    // Report the complementarity residual of the result itself.
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
