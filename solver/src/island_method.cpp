// The exact mode's choice of method for one island's boxed LCP (blcp.h): the direct active-set method for
// small islands, the iterative sweeps first for mid-size contact islands (the Newton method after them where
// the active set does not settle from their answer), for islands above direct_max_rows
// the sweeps with the Newton method (newton.h) where they end above iterative_accept, and for islands with
// cable contacts the direct method (up to direct_max_rows), then the sweeps and the Newton method where it
// misses the tolerance.
#include "solver_impl.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace simpulse {

using detail::BlcpResult;
using detail::Row;
using detail::RowKind;

void detail::IslandWorker::record(const BlcpResult& result, bool direct, const SolverSettings& settings) {
    record_answer(result, settings);
    stats.pivots += result.pivots;
    (direct ? stats.direct_islands : stats.iterative_islands) += 1;
}

void detail::IslandWorker::record_answer(const BlcpResult& result, const SolverSettings& settings) {
    stats.iterations += result.iterations;
    stats.residual = std::max(stats.residual, result.residual);
    stats.missed_islands += result.residual > settings.tolerance;
}

BlcpResult detail::IslandWorker::solve_large_island(std::span<Row> island, std::span<SolverBody> bodies,
                                                    const SolverSettings& settings) {
    const double keep = std::max(settings.iterative_accept, settings.tolerance);
    BlcpResult r = detail::solve_blcp_iterative(island, bodies, workspace, settings.max_iterations,
                                                settings.iterative_tolerance);
    // copy_velocities_in listed the island's bodies, each once.
    const auto island_bodies = static_cast<int>(workspace.copied_bodies.size());
    if (r.residual <= keep || island_bodies > settings.newton_max_bodies) {
        record(r, false, settings);
        return r;
    }
    // Long load paths (a tall stack, a heavy body on light ones, a heap) are where Gauss-Seidel sweeps stall:
    // the answer they leave let a 14-box 1:1000 tower (residual 0.12 m/s) and a 50-box tower (0.0088 m/s)
    // sink through themselves. The Newton method solves the island from the sweeps' impulses.
    for (const Row& row : island) detail::apply_row_impulse(row, -row.lambda, bodies);
    const BlcpResult result = solve_newton(island, bodies, settings, r.iterations, /*cable=*/false);
    record_answer(result, settings);
    return result;
}

BlcpResult detail::IslandWorker::solve_newton(std::span<Row> island, std::span<SolverBody> bodies,
                                              const SolverSettings& settings, int earlier_iterations,
                                              bool cable) {
    // An island spends one Newton budget per world step, not one per substep: once a solve of an island
    // holding one of its bodies ran out the budget short of the tolerance, its later substeps (halved ones
    // after a rejection, up to max_substeps) get a tenth of it. A diverging world (fuzzed: gravity 1e52
    // m/s^2, dt = 1e9 s) otherwise repeated its capped solve 37 times a step, 0.7 s a step. Islands that
    // share no movable body with it keep the whole budget.
    constexpr int kShareAfterCap = 10;
    // Movable bodies only: static ones (the ground) join islands that are solved apart, and in parallel.
    bool capped_before = false;
    for (const Row& r : island)
        for_each_row_body(r, [&](std::uint32_t body) {
            capped_before = capped_before || (movable(bodies[body]) && bodies[body].newton_budget_cut);
        });
    detail::NewtonSettings newton_settings;
    newton_settings.tolerance = settings.tolerance;
    if (cable) {  // the schedule of cable islands (newton.cpp)
        newton_settings.lag_friction_bounds = true;
        newton_settings.proximal_drop = 0.1;
    }
    newton_settings.max_factorizations =
        capped_before ? std::max(1, settings.newton_max_factorizations / kShareAfterCap)
                      : settings.newton_max_factorizations;
    const detail::NewtonResult n = detail::solve_blcp_newton(island, bodies, newton, newton_settings);
    if (n.capped)
        for (const Row& r : island)
            for_each_row_body(r, [&](std::uint32_t body) {
                if (movable(bodies[body])) bodies[body].newton_capped = true;
            });
    BlcpResult result;
    result.iterations = earlier_iterations + n.newton;
    result.residual = n.residual;
    result.converged = n.converged;
    stats.newton_islands += 1;
    stats.newton_capped += n.capped;
    stats.factorizations += n.factorizations;
    stats.relative_residual = std::max(stats.relative_residual, n.relative);
    return result;
}

BlcpResult detail::IslandWorker::solve_island(std::span<Row> island, std::span<SolverBody> bodies,
                                              const SolverSettings& settings) {
    if (!spreads.empty() &&
        std::any_of(island.begin(), island.end(), [](const Row& r) { return r.spread != nullptr; }))
        return solve_spread_island(island, bodies, settings);
    const int size = static_cast<int>(island.size());
    if (size > settings.direct_max_rows) return solve_large_island(island, bodies, settings);
    const bool jointed =
        std::any_of(island.begin(), island.end(), [](const Row& r) { return r.kind == RowKind::joint; });
    if (size > settings.direct_first_max_rows && size <= settings.direct_max_rows && !jointed) {
        BlcpResult r;
        if (try_iterative_first(island, bodies, settings, r)) return r;
    }
    solve_start.collect(island, bodies);
    BlcpResult r = detail::solve_blcp_direct(island, bodies, workspace, settings.max_active_set_iterations,
                                             settings.dense_max_rows);
    if (r.converged) {
        record(r, true, settings);
        return r;
    }
    // The active set did not settle: polish from the best iterate with the iterative method. Its impulses are
    // undone by restoring the velocities, not by subtracting them: on a nearly singular system (redundant
    // contacts of neighbouring height-field triangles) an unsettled iterate can reach 1e19 N s, whose
    // round-off alone is km/s.
    solve_start.restore(bodies);
    detail::drop_unusable_start(island, settings.tolerance);
    BlcpResult polish = detail::solve_blcp_iterative(island, bodies, workspace, settings.max_iterations,
                                                     settings.iterative_tolerance);
    polish.iterations += r.iterations;
    polish.pivots += r.pivots;
    record(polish, true, settings);
    return polish;
}

// Mid-size contact islands. The direct active set needs tens of factorisations on islands whose contacts keep
// changing state (a row of leaning, sliding dominoes being hit), while the iterative method converges there
// in a few sweeps. So: (1) a warm start that already solves the island is kept (resting islands, no work);
// (2) otherwise the iterative method runs; if it reaches the tolerance, (3) at most two active-set iterations
// from its impulses try to make the answer exact (so that a resting island's next warm start passes (1)); if
// they do not settle and no contact of the island slides, (4) the Newton method solves the island from the
// sweeps' answer (up to newton_max_bodies), and the closer of its answer and the sweeps' is kept. If the
// iterative method does not converge (stacks: long load paths), returns false with the island's impulses
// removed from the bodies and its impulses left as the warm start, for the caller's direct solve.
namespace {

// Some friction row of the island is at its (non-zero) bound: a contact slides.
bool sliding(std::span<const Row> island) {
    return std::any_of(island.begin(), island.end(), [&](const Row& r) {
        if (r.kind != RowKind::friction) return false;
        const double bound = detail::row_bounds(r, island).hi;
        return bound > 0 && std::abs(r.lambda) >= bound * (1 - 1e-9);
    });
}

}  // namespace

bool detail::IslandWorker::try_iterative_first(std::span<Row> island, std::span<SolverBody> bodies,
                                               const SolverSettings& settings, BlcpResult& result) {
    constexpr double kWarmStartTolerance = 1e-9;  // m/s, as the direct method's own warm-start check
    constexpr int kPolishIterations = 2;
    if (detail::warm_start_solves(island, bodies, workspace, kWarmStartTolerance)) {
        result = BlcpResult{};
        result.converged = true;
        result.residual = detail::blcp_residual(island, workspace.w);
        record(result, true, settings);
        return true;
    }
    const BlcpResult iterative = detail::solve_blcp_iterative(
        island, bodies, workspace, settings.max_iterations, settings.iterative_tolerance);
    // copy_velocities_in listed the island's bodies, each once.
    const auto island_bodies = static_cast<int>(workspace.copied_bodies.size());
    save_answer(island, bodies, iterative_answer);
    for (const Row& row : island) detail::apply_row_impulse(row, -row.lambda, bodies);
    if (!iterative.converged) return false;
    result = detail::solve_blcp_direct(island, bodies, workspace, kPolishIterations, settings.dense_max_rows,
                                       /*give_up=*/true);
    result.iterations += iterative.iterations;
    if (result.converged) {
        record(result, true, settings);
        return true;
    }
    // Back to the sweeps' answer exactly (the unsettled polish may hold huge impulses, see solve_island).
    restore_answer(island, bodies, iterative_answer);
    // The Newton method from the sweeps' answer, for an island none of whose contacts slides: a resting
    // island it makes exact is solved by its next warm start, where the sweeps' answer would be swept again
    // every step (a resting column of the S3 pile kept awake). The closer answer is kept. Sliding islands
    // (leaning dominoes being hit) change their contacts from step to step, so an exact answer buys no next
    // step there, and their Newton solves take many factorisations each (docs/findings.md, "Island methods").
    if (island_bodies <= settings.newton_max_bodies && !sliding(island)) {
        for (const Row& row : island) detail::apply_row_impulse(row, -row.lambda, bodies);
        const BlcpResult newton_answer =
            solve_newton(island, bodies, settings, result.iterations, /*cable=*/false);
        if (newton_answer.residual < iterative.residual) {
            stats.pivots += result.pivots;
            result = newton_answer;
            record_answer(result, settings);
            return true;
        }
        restore_answer(island, bodies, iterative_answer);
    }
    const int pivots = result.pivots, iterations = result.iterations;
    result = iterative;
    result.iterations = iterations;
    result.pivots = pivots;
    record(result, false, settings);
    return true;
}

void detail::IslandWorker::save_answer(std::span<const Row> island, std::span<const SolverBody> bodies,
                                       IslandAnswer& answer) const {
    answer.lambda.resize(island.size());
    for (std::size_t i = 0; i < island.size(); ++i) answer.lambda[i] = island[i].lambda;
    answer.velocities.collect(island, bodies);
}

void detail::IslandWorker::restore_answer(std::span<Row> island, std::span<SolverBody> bodies,
                                          const IslandAnswer& answer) const {
    for (std::size_t i = 0; i < island.size(); ++i) island[i].lambda = answer.lambda[i];
    answer.velocities.restore(bodies);
}

// Islands with cable contacts (rows with point-mass terms, Row::spread). The friction rows of a cable lying
// straight are redundant with its rods (a single tangential degree of freedom along it, a friction row per
// segment): a degenerate complementarity problem. On it the direct active set may stall or blow up
// (residuals above 1e11 m/s on a box resting on three cables with every solve aimed at the tolerance) and the
// sweeps stall a few mm/s from the answer; the Newton method's proximal loop converges from a good start but
// not always within its factorisation budget from a poor one. So, as for large islands: a warm start that
// solves the island is kept; otherwise, up to direct_max_rows, the direct method runs (at most
// max_active_set_iterations, no fallbacks) and is kept if it reaches the tolerance, as it does on small
// islands at a fraction of the other methods' cost (above that size one body touching many rows, a big body
// buried in a height field beside the cable, makes its row-space matrix dense: seconds and tens of MB a
// solve); otherwise the sweeps run from the warm start, the closer of the two answers is kept (a
// non-converged direct answer counts only with a finite residual), and the Newton method solves the island
// from it (from the warm start if neither is finite; up to newton_max_bodies bodies), kept if closer still.
BlcpResult detail::IslandWorker::solve_spread_island(std::span<Row> island, std::span<SolverBody> bodies,
                                                     const SolverSettings& settings) {
    constexpr double kWarmStartTolerance = 1e-9;  // m/s, as the direct method's own warm-start check
    if (detail::warm_start_solves(island, bodies, workspace, kWarmStartTolerance)) {
        BlcpResult result;
        result.converged = true;
        result.residual = detail::blcp_residual(island, workspace.w);
        record(result, true, settings);
        return result;
    }
    save_answer(island, bodies, spread_start);
    BlcpResult best;
    best.residual = std::numeric_limits<double>::infinity();
    if (static_cast<int>(island.size()) <= settings.direct_max_rows) {
        best = detail::solve_blcp_direct(island, bodies, workspace, settings.max_active_set_iterations,
                                         settings.dense_max_rows, /*give_up=*/true);
        if (best.converged && best.residual <= settings.tolerance) {
            record(best, true, settings);
            return best;
        }
    }
    if (!std::isfinite(best.residual)) best.residual = std::numeric_limits<double>::infinity();
    int iterations = best.iterations;
    stats.pivots += best.pivots;
    // The sweeps start from the warm start as the direct method did (the rows' impulses, which the velocities
    // do not hold yet); the closer answer is kept.
    save_answer(island, bodies, spread_best);
    restore_answer(island, bodies, spread_start);
    stats.iterative_islands += 1;
    const BlcpResult sweeps = detail::solve_blcp_iterative(island, bodies, workspace, settings.max_iterations,
                                                           settings.iterative_tolerance);
    iterations += sweeps.iterations;
    // copy_velocities_in listed the island's bodies, each once.
    const auto island_bodies = static_cast<int>(workspace.copied_bodies.size());
    if (sweeps.residual < best.residual)
        best = sweeps;
    else
        restore_answer(island, bodies, spread_best);
    // The Newton method from that answer (its impulses removed from the velocities, as it takes them), or
    // from the warm start if neither answer is finite; not above newton_max_bodies, as for large islands.
    if (best.residual > settings.tolerance && island_bodies <= settings.newton_max_bodies) {
        save_answer(island, bodies, spread_best);
        if (std::isfinite(best.residual)) {
            spread_start.velocities.restore(bodies);  // exactly (see solve_island); the impulses stay
        } else {
            restore_answer(island, bodies, spread_start);
        }
        const BlcpResult newton_answer = solve_newton(island, bodies, settings, 0, /*cable=*/true);
        iterations += newton_answer.iterations;
        if (newton_answer.residual < best.residual)
            best = newton_answer;
        else
            restore_answer(island, bodies, spread_best);
    }
    best.iterations = iterations;
    record_answer(best, settings);
    return best;
}

}  // namespace simpulse
