// Iterative solve of an island's boxed LCP (islands too large for the direct method, and mid-size islands
// before the direct method is tried): projected Gauss-Seidel on the same system A lambda = J M^-1 J^T lambda,
// applied matrix-free through the body velocities (each row update reads J_i v and writes M^-1 J_i^T
// dlambda), accelerated as the nonsmooth nonlinear conjugate gradient method (NNCG: Silcowitz, Niebe,
// Erleben 2010, "A nonsmooth nonlinear conjugate gradient method for interactive contact force problems"):
// each sweep's change of the impulses is a residual direction, and a Fletcher-Reeves momentum step along the
// previous directions moves the impulses further along slow modes than plain PGS does (docs/BENCHMARKS.md,
// "Island solve": 3-9x fewer sweeps to 1e-5 m/s on walls and blocks). Warm-started impulses are applied
// first; sweeps stop when the largest correction of a sweep falls below the tolerance.
#include "blcp.h"

#include <algorithm>
#include <cmath>

namespace simpulse::detail {

void copy_velocities_in(std::span<const Row> rows, std::span<const SolverBody> bodies, BlcpWorkspace& ws) {
    ws.linear_velocity.resize(bodies.size());
    ws.angular_velocity.resize(bodies.size());
    // Each body once (a body has many rows): a body is listed when its copy's stamp is not this call's.
    if (ws.copy_stamp.size() != bodies.size()) ws.copy_stamp.assign(bodies.size(), 0);
    if (++ws.copy_generation == 0) {  // wrapped: old stamps could match again
        std::fill(ws.copy_stamp.begin(), ws.copy_stamp.end(), 0);
        ws.copy_generation = 1;
    }
    ws.copied_bodies.clear();
    for (const Row& r : rows)
        for_each_row_body(r, [&](std::uint32_t body) {
            if (ws.copy_stamp[body] == ws.copy_generation) return;
            ws.copy_stamp[body] = ws.copy_generation;
            ws.copied_bodies.push_back(body);
            ws.linear_velocity[body] = bodies[body].velocity;
            ws.angular_velocity[body] = bodies[body].angular_velocity;
        });
}

void copy_velocities_out(std::span<SolverBody> bodies, const BlcpWorkspace& ws) {
    for (const std::uint32_t body : ws.copied_bodies) {
        bodies[body].velocity = ws.linear_velocity[body];
        bodies[body].angular_velocity = ws.angular_velocity[body];
    }
}

namespace {

// Rows are revisited only when something they depend on changed: a row that was satisfied when last visited
// stays satisfied until the velocity of one of its two bodies changes (friction bounds follow the patch's
// normal rows, which act on the same bodies). Resting parts of a large island then cost nothing per sweep.
// Updates smaller than a hundredth of the tolerance are not applied. Stamps come from a counter of applied
// updates, so a change later in the same sweep is seen too.
// NNCG state: the sweep's impulse change (minus the gradient of the merit function) and the search direction.
// Both are zero on rows no sweep has moved since the last restart; `moving` lists the others, so the momentum
// step, like the sweeps, costs nothing on resting parts.
class Sweeps {
  public:
    Sweeps(std::span<Row> rows, std::size_t body_count, BlcpWorkspace& ws, double tolerance)
        : negligible(1e-2 * tolerance), rows_(rows), ws_(ws) {
        ws.body_changed.assign(body_count, 0);
        ws.row_settled.assign(rows.size(), -1);
        ws.sweep_change.assign(rows.size(), 0.0);
        ws.direction.assign(rows.size(), 0.0);
        ws.is_moving.assign(rows.size(), 0);
        ws.moving.clear();
    }
    // One projected Gauss-Seidel sweep over the rows whose bodies changed. Returns the convergence measure:
    // the largest velocity correction a row needed, |dlambda| A_ii (zero exactly when every row already
    // satisfied its complementarity condition); adds the squared impulse changes to `change_norm`.
    double sweep(double& change_norm);
    // The NNCG momentum step after sweep number `sweep` (its squared change `change_norm`), or a restart.
    void momentum(int sweep, double change_norm);

    const double negligible;  // updates below this (m/s) are not applied

  private:
    void stamp_bodies(const Row& r) {  // the row changed its bodies' velocities: count one update
        ++updates_;
        if (r.a != kNoBody) ws_.body_changed[r.a] = updates_;
        if (r.b != kNoBody) ws_.body_changed[r.b] = updates_;
        for_each_spread_term(r,
                             [&](std::uint32_t body, double, double) { ws_.body_changed[body] = updates_; });
    }

    std::span<Row> rows_;
    BlcpWorkspace& ws_;
    int updates_ = 0;
    double previous_change_norm_ = 0;
};

double Sweeps::sweep(double& change_norm) {
    double worst = 0;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        Row& r = rows_[i];
        int depends = std::max(r.a != kNoBody ? ws_.body_changed[r.a] : -1,
                               r.b != kNoBody ? ws_.body_changed[r.b] : -1);
        for_each_spread_term(r, [&](std::uint32_t body, double, double) {
            depends = std::max(depends, ws_.body_changed[body]);
        });
        if (ws_.row_settled[i] >= depends) continue;
        const double v = copied_row_velocity(r, ws_) - r.target;
        const auto [lo, hi] = row_bounds(r, rows_);
        const double updated = std::clamp(r.lambda - v / r.diagonal, lo, hi);
        const double delta = updated - r.lambda;
        const double correction = std::abs(delta) * r.diagonal * r.lever;
        if (correction <= negligible) {
            ws_.row_settled[i] = updates_;
            continue;
        }
        apply_to_copies(r, delta, ws_);
        r.lambda = updated;
        ws_.sweep_change[i] = delta;
        if (!ws_.is_moving[i]) {
            ws_.is_moving[i] = 1;
            ws_.moving.push_back(static_cast<std::uint32_t>(i));
        }
        change_norm += delta * delta;
        worst = std::max(worst, correction);
        stamp_bodies(r);
        ws_.row_settled[i] = updates_;
    }
    return worst;
}

// Fletcher-Reeves ratio of successive residuals; a growing residual restarts the directions (the merit
// function is only piecewise quadratic, so the conjugacy holds only while the active set stays).
void Sweeps::momentum(int sweep, double change_norm) {
    const double beta = sweep > 1 ? change_norm / previous_change_norm_ : 0.0;
    previous_change_norm_ = change_norm;
    if (beta > 1) {
        for (const std::uint32_t i : ws_.moving) {
            ws_.direction[i] = ws_.sweep_change[i] = 0;
            ws_.is_moving[i] = 0;
        }
        ws_.moving.clear();
        return;
    }
    for (const std::uint32_t i : ws_.moving) {
        double& p = ws_.direction[i];
        const double step = beta * p;
        p = step + ws_.sweep_change[i];
        ws_.sweep_change[i] = 0;
        if (step == 0) continue;
        Row& r = rows_[i];
        // The momentum step may leave the bounds; the next sweep projects every row it moved.
        apply_to_copies(r, step, ws_);
        r.lambda += step;
        stamp_bodies(r);
    }
}

// The complementarity residual of the result itself. A row counts as at a bound when it is within the
// negligible update of it: friction bounds follow normal impulses that may have grown by less than that after
// the friction row was clamped, and such a row is at its bound as far as the sweeps can tell.
double sweeps_residual(std::span<const Row> rows, std::span<const SolverBody> bodies, double negligible) {
    double worst = 0;
    for (const Row& r : rows) {
        const double v = row_velocity(r, bodies) - r.target;
        const auto [lo, hi] = row_bounds(r, rows);
        if (lo >= hi) continue;
        const bool at_lo = (r.lambda - lo) * r.diagonal * r.lever <= negligible;
        const bool at_hi = (hi - r.lambda) * r.diagonal * r.lever <= negligible;
        const double e = r.lever * (at_lo && at_hi ? 0.0
                                    : at_lo        ? std::max(0.0, -v)
                                    : at_hi        ? std::max(0.0, v)
                                                   : std::abs(v));
        worst = std::max(worst, e);
    }
    return worst;
}

}  // namespace

BlcpResult solve_blcp_iterative(std::span<Row> rows, std::span<SolverBody> bodies, BlcpWorkspace& ws,
                                int max_iterations, double tolerance) {
    BlcpResult result;
    copy_velocities_in(rows, bodies, ws);
    for (Row& r : rows) {
        const auto [lo, hi] = row_bounds(r, rows);
        r.lambda = std::clamp(r.lambda, lo, hi);
        apply_to_copies(r, r.lambda, ws);
    }
    Sweeps sweeps(rows, bodies.size(), ws, tolerance);
    for (int sweep = 1; sweep <= max_iterations; ++sweep) {
        result.iterations = sweep;
        double change_norm = 0;
        const double worst = sweeps.sweep(change_norm);
        result.residual = worst;
        if (worst <= tolerance) {
            result.converged = true;
            break;
        }
        if (sweep == max_iterations) break;  // end on a projected iterate
        sweeps.momentum(sweep, change_norm);
    }
    copy_velocities_out(bodies, ws);
    result.residual = sweeps_residual(rows, bodies, sweeps.negligible);
    return result;
}

}  // namespace simpulse::detail
