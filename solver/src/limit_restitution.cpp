// Restitution at joint limits: how fast a limit row that an impact loaded leaves its limit. A limit's row
// (the hinge angle's, the slider travel's, a rope's length) restitutes like a contact, Poisson's law p' =
// (1 + e) p (thesis eq. 20), and like a contact its rebound is timed within the step (island_phases.cpp,
// impact_timing): the solve sees semi-implicit Euler's mid-step velocity, which already holds the external
// forces' kick, and reversing that kick would give the body energy at every bounce. A contact sees its kick
// in the bodies' velocities; a limit's coordinate often does not: gravity pulls a hinged rod's centre down,
// and only the hinge's rows turn that into a spin about the axis, the limit row's direction. So the kick
// along a limit row is measured through the joints: the island's joint rows are solved once for the kick
// velocities alone (linear in the velocities: J_limit P kick, P the joints' M-orthogonal projection), and the
// rebound is a contact's at the start of the step (a limit bounces from where the step finds it, without the
// contacts' pull to the point of impact).
#include "solver_impl.h"

#include <algorithm>

namespace simpulse {

using detail::Row;
using detail::RowKind;

// The kick of each of the island's limit rows through its joints (limit_kick, aligned with island_rows;
// 0 for other rows). Needs the guard bodies collected (their velocities saved) and restores them.
void detail::IslandWorker::measure_limit_kicks(std::span<SolverBody> bodies, const SolverSettings& settings) {
    limit_kick.assign(island_rows.size(), 0.0);
    kick_rows.clear();
    for (const Row& r : island_rows) {
        if (r.kind != RowKind::joint) continue;
        Row& copy = kick_rows.emplace_back(r);
        copy.lambda = 0;
        copy.target = 0;
    }
    for (const std::uint32_t b : guard.body) {
        bodies[b].velocity = bodies[b].kick;
        bodies[b].angular_velocity = Vec3::Zero();
    }
    // A joint system too large for the direct method keeps the direct kick (J_limit kick).
    if (!kick_rows.empty() && static_cast<int>(kick_rows.size()) <= settings.direct_max_rows)
        detail::solve_blcp_direct(kick_rows, bodies, workspace, settings.max_active_set_iterations,
                                  settings.dense_max_rows);
    for (std::size_t i = 0; i < island_rows.size(); ++i)
        if (island_rows[i].kind == RowKind::limit)
            limit_kick[i] = detail::row_velocity(island_rows[i], bodies);
    guard.restore(bodies);
}

// The share of island row i's inelastic impulse its limit gives back: the rebound of a contact met at the
// start of the step (gap 0 in impact_timing). approach[i] holds the row's velocity before the solve, in which
// only the direct part of the kick (J_limit kick) shows; the velocity the inelastic phase stopped is that
// with the joints' kick instead.
double detail::IslandWorker::limit_rebound_factor(std::size_t i, std::span<const SolverBody> bodies,
                                                  double e) const {
    const Row& r = island_rows[i];
    double direct_kick = 0;
    if (r.a != detail::kNoBody) direct_kick -= r.dir.dot(bodies[r.a].kick);
    if (r.b != detail::kNoBody) direct_kick += r.dir.dot(bodies[r.b].kick);
    const double kick = limit_kick[i];  // separating positive
    const double speed = -(approach[i] - direct_kick + kick);
    if (!(speed > 0)) return 0.0;
    const double start_speed = speed + 0.5 * kick;
    const double rebound = e * start_speed + 0.5 * kick;
    return rebound > 0 ? rebound / speed : 0.0;
}

}  // namespace simpulse
