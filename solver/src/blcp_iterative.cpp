// Iterative solve of an island's boxed LCP for islands too large for the direct method: projected
// Gauss-Seidel on the same system A lambda = J M^-1 J^T lambda, applied matrix-free through the body
// velocities (each row update reads J_i v and writes M^-1 J_i^T dlambda). Warm-started impulses are applied
// first; sweeps stop when the complementarity residual falls below the tolerance.
#include "blcp.h"

#include <algorithm>
#include <cmath>

namespace simpulse::detail {
namespace {

// The sweep reads and writes contiguous copies of the velocities (not the whole SolverBody records).
double velocity_of(const Row& r, const BlcpWorkspace& ws) {
    double w = -r.target;
    if (r.a != kNoBody) w += -r.dir.dot(ws.linear_velocity[r.a]) + r.ang_a.dot(ws.angular_velocity[r.a]);
    if (r.b != kNoBody) w += r.dir.dot(ws.linear_velocity[r.b]) + r.ang_b.dot(ws.angular_velocity[r.b]);
    return w;
}

void apply(const Row& r, double impulse, BlcpWorkspace& ws) {
    if (r.a != kNoBody) {
        ws.linear_velocity[r.a] -= (r.inv_mass_a * impulse) * r.dir;
        ws.angular_velocity[r.a] += impulse * r.inv_ang_a;
    }
    if (r.b != kNoBody) {
        ws.linear_velocity[r.b] += (r.inv_mass_b * impulse) * r.dir;
        ws.angular_velocity[r.b] += impulse * r.inv_ang_b;
    }
}

}  // namespace

BlcpResult solve_blcp_iterative(std::span<Row> rows, std::span<SolverBody> bodies, BlcpWorkspace& ws,
                                int max_iterations, double tolerance) {
    BlcpResult result;
    ws.linear_velocity.resize(bodies.size());
    ws.angular_velocity.resize(bodies.size());
    for (const Row& r : rows)
        for (std::uint32_t body : {r.a, r.b})
            if (body != kNoBody) {
                ws.linear_velocity[body] = bodies[body].velocity;
                ws.angular_velocity[body] = bodies[body].angular_velocity;
            }
    for (Row& r : rows) {
        const auto [lo, hi] = row_bounds(r, rows);
        r.lambda = std::clamp(r.lambda, lo, hi);
        apply(r, r.lambda, ws);
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
            const double v = velocity_of(r, ws);
            const auto [lo, hi] = row_bounds(r, rows);
            const double updated = std::clamp(r.lambda - v / r.diagonal, lo, hi);
            const double delta = updated - r.lambda;
            const double correction = std::abs(delta) * r.diagonal;
            if (correction <= negligible) {
                ws.row_settled[i] = updates;
                continue;
            }
            apply(r, delta, ws);
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
    for (const Row& r : rows)
        for (std::uint32_t body : {r.a, r.b})
            if (body != kNoBody) {
                bodies[body].velocity = ws.linear_velocity[body];
                bodies[body].angular_velocity = ws.angular_velocity[body];
            }
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
