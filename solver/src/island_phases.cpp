// The phases of one island in the exact mode: the thesis' resolution (chapter 4: the inelastic impulses of
// all penetrating points at once, then p' = (1 + e) p, then the re-check loop, eq. 6-20) made
// complementarity-correct. Gather the island's rows, prepare it (approach velocities, which contacts may
// bounce, joint targets), the inelastic phase (all rows at once), the restitution phase (restitution impulses
// e * lambda, then the re-check loop for points that became approaching), and the joint targets fitted to the
// final spins (eq. 21-22 to second order). IslandWorker::solve runs them in that order.
#include "solver_impl.h"

#include <algorithm>
#include <cmath>

namespace simpulse {
namespace {

// Resting contacts (approach slower than the threshold) get no restitution, so bodies at rest do not jitter.
// A threshold of 0 lets every compressed contact restitute (the setting of the thesis' theorem 2).
bool skip_restitution(double approach_velocity, const SolverSettings& settings) {
    return settings.restitution_threshold > 0 && -approach_velocity < settings.restitution_threshold;
}

// Restitution belongs to impacts: a contact that already carried an impulse in the previous step is a lasting
// contact (a leaning domino, a box sliding on a slope). Bouncing it every step would pump energy into it.
bool is_impact(const detail::Row& row, double approach_velocity, const SolverSettings& settings) {
    return !row.persistent && !skip_restitution(approach_velocity, settings);
}

// When in the step an impact happens, and what that means for its rebound. The solve sees the step's
// mid-point velocity (semi-implicit Euler carries v(t + dt/2), the external forces' whole kick a dt already
// in it), and e lambda reverses all of it, as if the bodies met half-way through the step; the position
// projection then moves them as if they had met at once ((1 + e) gap). Exactly, along the row (separation s,
// relative acceleration a from the kicks, start approach u0): they meet after tau, the root of
// gap - u0 tau + a tau^2 / 2 = 0, at the speed v = u0 - a tau, and leave at e v; the velocity to carry is
// that rebound's at mid-step, e v + a (dt/2 - tau), and the rebound ends the step (1 + e) v tau closer than
// the carried velocity takes it. Exact for one contact under constant forces (a ball at e = 1 keeps its
// height bounce after bounce at any step), and for contacts that share their approach; without a relative
// kick along the row (two bodies under gravity alone, a horizontal contact) the factor is e and the pull
// (1 + e) gap, as before this correction.
// Row velocities closer than this to their targets count as met (m/s); a joint row's also within the
// iterative method's tolerance, which an iterative island solve leaves.
constexpr double kVelocityTolerance = 1e-9;

double joint_velocity_tolerance_of(const SolverSettings& settings) {
    return std::max(kVelocityTolerance, settings.iterative_tolerance);
}

struct ImpactTiming {
    double factor;  // of lambda, the restitution impulse
    double pull;    // the position projection's restitution_pull, m
};

ImpactTiming impact_timing(const detail::Row& r, const ContactConstraint& c, double approach_velocity,
                           std::span<const SolverBody> bodies, double dt) {
    const double speed = -approach_velocity;  // > 0: it is an impact
    double kick = 0;
    if (r.a != detail::kNoBody) kick -= r.dir.dot(bodies[r.a].kick);
    if (r.b != detail::kNoBody) kick += r.dir.dot(bodies[r.b].kick);
    detail::for_each_spread_term(
        r, [&](std::uint32_t body, double weight, double) { kick += weight * r.dir.dot(bodies[body].kick); });
    const double gap = std::max(0.0, -c.depth), e = c.restitution;
    if (kick == 0 || !(dt > 0)) return {e, (1 + e) * gap};
    const double a = kick / dt;
    const double u0 = speed + 0.5 * kick;  // approach at the start of the step
    const double discriminant = u0 * u0 - 2 * a * gap;
    const double tau = gap == 0 ? 0.0
                       : u0 > 0 && discriminant >= 0
                           ? std::min(2 * gap / (u0 + std::sqrt(discriminant)), dt)
                           : dt;  // the kick stops the approach first: the latest the solve allows
    const double impact_speed = u0 - a * tau;
    const double rebound = e * impact_speed + a * (0.5 * dt - tau);
    if (!(rebound > 0)) return {0.0, gap};  // falls back within the step: it stays in contact
    return {rebound / speed, (1 + e) * impact_speed * tau};
}

}  // namespace

using detail::BlcpResult;
using detail::Row;
using detail::RowKind;

void detail::IslandWorker::solve(std::span<const std::uint32_t> order, std::uint32_t begin, std::uint32_t end,
                                 std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts,
                                 double dt, const SolverSettings& settings) {
    gather_island(order, begin, end);
    IslandPass pass = prepare_island(bodies, contacts, dt, settings);
    inelastic_phase(pass, bodies, settings);
    restitution_phase(pass, bodies, contacts, dt, settings);
    fit_joint_targets(pass, bodies, dt, settings);
    for (std::uint32_t p = begin; p < end; ++p)
        rows[order[p]].lambda = island_rows[p - begin].lambda;  // the next step's warm start
}

void detail::IslandWorker::rows_to_solve_again() {
    recheck_rows.clear();
    for (const Row& r : island_rows) {
        if (!detail::solved_again(r.kind)) continue;
        Row copy = r;
        copy.lambda = 0;
        recheck_rows.push_back(copy);
    }
}

// Phase 2 of an island (island_rows after phase 1, `approach` their velocities before it): restitution
// impulses e * lambda on the compressed contacts that approached fast enough (impacts), then re-checks. True
// if any contact restituted; `allowance` grows by what the restitution may add beyond the energy before the
// impact.
bool detail::IslandWorker::restitute(std::span<SolverBody> bodies,
                                     std::span<const ContactConstraint> contacts, double dt,
                                     const SolverSettings& settings, double phase_1_residual,
                                     double& allowance) {
    bool any_restitution = false;
    // What the restitution phase may add beyond the energy before the impact: the impact timing's share
    // of the external forces' work within the step (a rebound factor above e: 1/2 (factor^2 - e^2) lambda
    // times the approach speed, the gain of a lone contact), and what unconverged solves leave (impulse
    // times residual).
    // The law is Poisson's (thesis eq. 20, p' = (1 + e) p): a contact's restitution impulse is e times the
    // impulse that stopped its compression, given to every contact the impact compressed, at once. The
    // impacts are the contacts that approached (is_impact); the inelastic phase also loads contacts that were
    // touching or separating at the start of the step, where a body an impact pushes runs into its neighbour
    // (a Newton's cradle whose balls have drifted apart): they take part in the same impact and restitute
    // too, with plain e (no timing within the step: they closed at its end). Contacts that carried an impulse
    // in the previous step (persistent: resting, leaning, sliding) get none: their load is not an impact's.
    // A joint's limit rows restitute like contacts, with the limit's coefficient and without the timing
    // within the step (a limit bounces from where the step finds it: its energy is kept, its phase may lag
    // by up to a step).
    const auto restitution = [&](const Row& r) { return row_restitution(r, contacts, joint_levers); };
    const bool impact = std::any_of(island_rows.begin(), island_rows.end(), [&](const Row& r) {
        const std::size_t i = static_cast<std::size_t>(&r - island_rows.data());
        return detail::unilateral(r.kind) && r.lambda > 0 && restitution(r) > 0 &&
               is_impact(r, approach[i], settings);
    });
    for (std::size_t i = 0; impact && i < island_rows.size(); ++i) {
        Row& r = island_rows[i];
        if (!detail::unilateral(r.kind) || r.lambda <= 0) continue;
        const double e = restitution(r);
        if (e <= 0 || r.persistent) continue;
        any_restitution = true;
        // Compressed by the impact of another contact, or a limit.
        if (r.kind == RowKind::limit || !is_impact(r, approach[i], settings)) {
            const double factor = r.kind == RowKind::limit ? limit_rebound_factor(i, bodies, e) : e;
            detail::apply_row_impulse(r, factor * r.lambda, bodies);
            allowance += factor * r.lambda * phase_1_residual;
            continue;
        }
        const ContactConstraint& c = contacts[r.source];
        const ImpactTiming timing = impact_timing(r, c, approach[i], bodies, dt);
        detail::apply_row_impulse(r, timing.factor * r.lambda, bodies);
        const double speed = -approach[i];
        allowance += 0.5 * std::max(0.0, timing.factor * timing.factor - c.restitution * c.restitution) *
                         r.lambda * speed +
                     timing.factor * r.lambda * phase_1_residual;
        stats.impact_gap = std::max(stats.impact_gap, -c.depth);
        if (c.depth < 0 && r.target == 0) contact_rows[r.source].restitution_pull = timing.pull;
    }
    if (any_restitution) recheck_restitution(bodies, contacts, settings, allowance);
    return any_restitution;
}

// Re-check after the restitution impulses: contacts that now approach get a new simultaneous solve (normal
// and joint rows), with restitution on its impulses too, for up to recheck_iterations rounds.
void detail::IslandWorker::recheck_restitution(std::span<SolverBody> bodies,
                                               std::span<const ContactConstraint> contacts,
                                               const SolverSettings& settings, double& allowance) {
    const double velocity_tolerance = kVelocityTolerance;
    const double joint_velocity_tolerance = joint_velocity_tolerance_of(settings);
    const auto restitution = [&](const Row& r) { return row_restitution(r, contacts, joint_levers); };
    bool any_restitution = true;
    for (int round = 0; any_restitution && round < settings.recheck_iterations; ++round) {
        rows_to_solve_again();
        approach.resize(recheck_rows.size());
        bool approaching = false;
        for (std::size_t i = 0; i < recheck_rows.size(); ++i) {
            const Row& r = recheck_rows[i];
            approach[i] = detail::row_velocity(r, bodies);
            // The restitution impulses of the contacts alone pull jointed bodies apart: solving the
            // joints again (with the contacts as inequalities) adds the joints' share, e * lambda when
            // all contacts have the same e, and keeps the energy at e = 1 (docs/architecture.md). A joint
            // counts as pulled apart beyond what an iterative island solve itself leaves.
            if (detail::unilateral(r.kind) ? approach[i] < r.target - velocity_tolerance
                                           : std::abs(approach[i] - r.target) > joint_velocity_tolerance)
                approaching = true;
        }
        if (!approaching) break;
        ++stats.recheck_rounds;
        const BlcpResult recheck = solve_island(recheck_rows, bodies, settings);
        for (const Row& r : recheck_rows) allowance += 2 * std::abs(r.lambda) * recheck.residual / r.lever;
        any_restitution = false;
        for (std::size_t i = 0; i < recheck_rows.size(); ++i) {
            const Row& r = recheck_rows[i];
            if (!detail::unilateral(r.kind) || r.lambda <= 0) continue;
            const double e = restitution(r);
            if (e <= 0 || r.persistent) continue;  // every compressed contact takes part
            detail::apply_row_impulse(r, e * r.lambda, bodies);
            any_restitution = true;
            if (r.kind == RowKind::normal)
                stats.impact_gap = std::max(stats.impact_gap, -contacts[r.source].depth);
        }
    }
}

void detail::IslandWorker::gather_island(std::span<const std::uint32_t> order, std::uint32_t begin,
                                         std::uint32_t end) {
    island_rows.clear();
    for (std::uint32_t p = begin; p < end; ++p) {
        local_index[order[p]] = static_cast<std::int32_t>(p - begin);
        island_rows.push_back(rows[order[p]]);
    }
    for (Row& r : island_rows)
        if (r.kind == RowKind::friction)
            r.normal = local_index[static_cast<std::size_t>(r.normal)];  // consecutive
    stats.largest_island_rows = std::max(stats.largest_island_rows, static_cast<int>(island_rows.size()));
}

detail::IslandPass detail::IslandWorker::prepare_island(std::span<SolverBody> bodies,
                                                        std::span<const ContactConstraint> contacts,
                                                        double dt, const SolverSettings& settings) {
    detail::IslandPass pass;
    approach.resize(island_rows.size());
    bool limit_bounce = false;
    for (std::size_t i = 0; i < island_rows.size(); ++i) {
        Row& r = island_rows[i];
        approach[i] = detail::row_velocity(r, bodies);
        const double e = detail::unilateral(r.kind) ? row_restitution(r, contacts, joint_levers) : 0.0;
        // A limit restitutes whenever an impact in the island loads it, an impact itself or not (restitute):
        // its kick is measured for either.
        if (r.kind == RowKind::limit && e > 0 && !r.persistent) limit_bounce = true;
        if (e <= 0 || !is_impact(r, approach[i], settings)) continue;
        pass.may_bounce = true;  // phase 2 may give this row restitution (if phase 1 loads it)
        // A restituting contact whose gap closes within this step bounces from where it is now: its inelastic
        // phase stops the approach completely (target 0 instead of the speculative gap / dt), so the
        // restitution impulse e * lambda reverses the full impact speed.
        if (r.target < 0 && approach[i] < r.target) r.target = 0;
    }
    // Joint targets (set_joint_targets) from the angular velocities before the solve, a guess checked against
    // the final ones later. Not where a contact may bounce: the restitution impulses e * lambda reverse what
    // the inelastic phase stopped, and with joint targets in that phase lambda would also hold the part that
    // keeps the anchors on their arcs (a ball on a joint gained 16 % in a bounce at e = 1). There the joints
    // keep J v = 0 through the impact and get their targets after it. Joints whose targets did not fit in one
    // of the last steps keep J v = 0 for a while (their spins change too much within a step, as the light
    // links of a tensioned chain: an extra solve every step would buy nothing).
    pass.jointed = std::any_of(island_rows.begin(), island_rows.end(),
                               [](const Row& r) { return r.kind == RowKind::joint; });
    pass.curved = pass.jointed && std::none_of(island_rows.begin(), island_rows.end(), [&](const Row& r) {
                      return r.kind == RowKind::joint && joint_plain_steps[r.source] > 0;
                  });
    pass.targets_in_phase_1 = pass.curved && !pass.may_bounce;
    // Redundant joint rows (a hinge made of two ball joints) cannot all reach curvature targets that disagree
    // along their shared direction (on a body whose spin is off the hinge's axis, or on two turning bodies);
    // a solve for such targets returns impulses of the size of the regularisation's inverse. Only joints on a
    // cycle (two joints between the same bodies, a loop) can be redundant. Islands found redundant before get
    // reachable targets from the start.
    pass.reachable =
        std::any_of(island_rows.begin(), island_rows.end(),
                    [&](const Row& r) { return r.kind == RowKind::joint && joint_redundant[r.source]; }) &&
        island_is_cyclic(pass, bodies.size());
    raw_targets.clear();
    if (pass.targets_in_phase_1) {
        set_joint_targets(island_rows, bodies, dt, joint_velocity_tolerance_of(settings));
        if (pass.reachable) pass.reachable = make_joint_targets_reachable(island_rows, approach);
        phase_1_lambda.resize(island_rows.size());
        for (std::size_t i = 0; i < island_rows.size(); ++i) phase_1_lambda[i] = island_rows[i].lambda;
    }
    // A solve that is undone leaves no trace in the statistics' residual (it reports the answer kept).
    pass.residual_before = stats.residual;
    // The velocities before phase 1, for the energy safeguards: a wrong phase-1 answer is undone to them, and
    // the restitution phase must not end above the kinetic energy the island had before the impact.
    guard.collect(island_rows, bodies);
    if (pass.may_bounce) {
        pass.energy_before_impact = guard_kinetic_energy(bodies);
        if (limit_bounce) measure_limit_kicks(bodies, settings);
    }
    return pass;
}

// The joint graph's cycles are found when first needed (most jointed islands are trees, and most steps need
// no check).
bool detail::IslandWorker::island_is_cyclic(detail::IslandPass& pass, std::size_t body_count) {
    if (pass.cycles < 0) pass.cycles = pass.jointed && mark_joints_on_cycles(island_rows, body_count);
    return pass.cycles == 1;
}

void detail::IslandWorker::undo_inelastic_phase(detail::IslandPass& pass, std::span<SolverBody> bodies) {
    for (std::size_t i = 0; i < island_rows.size(); ++i) {
        Row& r = island_rows[i];
        detail::apply_row_impulse(r, -r.lambda, bodies);
        r.lambda = phase_1_lambda[i];
    }
    stats.residual = pass.residual_before;
    ++stats.joint_target_rounds;
}

void detail::IslandWorker::inelastic_phase(detail::IslandPass& pass, std::span<SolverBody> bodies,
                                           const SolverSettings& settings) {
    const double joint_velocity_tolerance = joint_velocity_tolerance_of(settings);
    pass.phase_1 = solve_island(island_rows, bodies, settings);
    // A direct solve reaches consistent targets to round-off: a joint further off in a cyclic island has
    // redundant rows (checked and made reachable then, and from then on while its rows stay redundant). An
    // iterative solve leaves up to its tolerance, so only a joint further off than that is checked.
    const double redundancy_tolerance = static_cast<int>(island_rows.size()) <= settings.direct_max_rows
                                            ? kVelocityTolerance
                                            : joint_velocity_tolerance;
    const double miss = pass.targets_in_phase_1 ? joint_target_miss(island_rows, bodies) : 0.0;
    if (miss > redundancy_tolerance) {
        bool reached = miss <= joint_velocity_tolerance;
        // approach[] holds the velocities the solve started from.
        if (!pass.reachable && island_is_cyclic(pass, bodies.size()) &&
            make_joint_targets_reachable(island_rows, approach)) {
            undo_inelastic_phase(pass, bodies);
            pass.reachable = true;
            pass.phase_1 = solve_island(island_rows, bodies, settings);
            reached = joint_target_miss(island_rows, bodies) <= joint_velocity_tolerance;
        }
        if (!reached) {  // the joints keep J v = 0
            undo_inelastic_phase(pass, bodies);
            for (Row& r : island_rows)
                if (r.kind == RowKind::joint) r.target = 0;
            pass.phase_1 = solve_island(island_rows, bodies, settings);
            pass.plain_from_now = true;
        }
    }
    guard_inelastic_phase(bodies, pass.phase_1, settings);
    if (pass.may_bounce) guard.save(bodies);
}

// Phase 2: restitution impulses, then re-checks; the allowance bounds what they may add.
void detail::IslandWorker::restitution_phase(detail::IslandPass& pass, std::span<SolverBody> bodies,
                                             std::span<const ContactConstraint> contacts, double dt,
                                             const SolverSettings& settings) {
    double allowance = 0;
    if (restitute(bodies, contacts, dt, settings, pass.phase_1.residual, allowance))
        limit_restitution_energy(bodies,
                                 pass.energy_before_impact + allowance + 1e-9 * pass.energy_before_impact);
}

// Solves the joint and normal rows again (lambda 0, friction rows left out) from the current velocities with
// the targets in island_rows; true if the joints reached them. The joints' added impulses join their warm
// start.
bool detail::IslandWorker::solve_joints_again(std::span<SolverBody> bodies, const SolverSettings& settings) {
    rows_to_solve_again();
    ++stats.joint_target_rounds;
    const double residual_before_again = stats.residual;
    solve_island(recheck_rows, bodies, settings);
    const bool reached = joint_target_miss(recheck_rows, bodies) <= joint_velocity_tolerance_of(settings);
    if (!reached) {  // inconsistent targets: undo, the caller solves for J v = 0 instead
        for (const Row& r : recheck_rows) detail::apply_row_impulse(r, -r.lambda, bodies);
        stats.residual = residual_before_again;
        return false;
    }
    for (std::size_t i = 0, j = 0; i < island_rows.size(); ++i)
        if (detail::solved_again(island_rows[i].kind)) {
            if (detail::of_joint(island_rows[i].kind)) island_rows[i].lambda += recheck_rows[j].lambda;
            ++j;
        }
    return true;
}

// The joint targets must fit the angular velocities the step ends with. A target counts as fitting while it
// is off by less than half its size (it then removes at least three quarters of the energy that J v = 0 would
// lose); in smooth motion the guess is off by a few per cent. Where a contact may bounce, the joints kept
// J v = 0 through the impact and get the targets of the final spins now, in one more solve of their rows with
// the contacts as inequalities. Targets that do not fit (a light body whose spin the solve changed a lot) are
// replaced by J v = 0, the dissipative choice that always fits, in the same way: never an iteration on the
// targets of rigid bodies, which can feed back on the spins they come from (joints between point masses
// are iterated, below).
namespace {

constexpr int kPointLinkRounds = 8;  // target iterations of an island whose joints join point masses

bool joints_are_point_links(std::span<const Row> island) {
    return std::all_of(island.begin(), island.end(), [](const Row& r) {
        return r.kind != RowKind::joint || (r.ang_a.isZero(0) && r.ang_b.isZero(0) && !r.dir.isZero(0));
    });
}

}  // namespace

void detail::IslandWorker::fit_joint_targets(detail::IslandPass& pass, std::span<SolverBody> bodies,
                                             double dt, const SolverSettings& settings) {
    constexpr std::uint8_t kPlainSteps = 4;  // J v = 0 steps of a joint whose curvature targets did not fit
    const double joint_velocity_tolerance = joint_velocity_tolerance_of(settings);
    if (pass.curved && !pass.plain_from_now) {
        bool fits = true;
        if (pass.may_bounce && set_joint_targets(island_rows, bodies, dt, joint_velocity_tolerance)) {
            if (island_is_cyclic(pass,
                                 bodies.size())) {  // the solve starts from the velocities the island has now
                current_row_velocities.resize(island_rows.size());
                for (std::size_t i = 0; i < island_rows.size(); ++i)
                    current_row_velocities[i] = detail::row_velocity(island_rows[i], bodies);
                make_joint_targets_reachable(island_rows, current_row_velocities);
            }
            fits = solve_joints_again(bodies, settings);
        }
        // Joints between point masses (a cable's rods and pins at centres of mass: no angular part) have
        // targets that depend on the anchors' relative velocity only, with no spin to feed back on: there the
        // targets are iterated to the velocity tolerance (the velocity half of SHAKE), and a whipping cable
        // keeps its energy, where the half-size fit let a bouncing cable lose 1 % in 2 s.
        const bool point_links = fits && joints_are_point_links(island_rows);
        bool misfit =
            !fits || set_joint_targets(island_rows, bodies, dt, joint_velocity_tolerance, point_links);
        if (point_links)
            for (int round = 0; round < kPointLinkRounds && misfit && fits; ++round) {
                fits = solve_joints_again(bodies, settings);
                misfit = !fits || set_joint_targets(island_rows, bodies, dt, joint_velocity_tolerance, true);
            }
        if (misfit) {
            for (Row& r : island_rows)
                if (r.kind == RowKind::joint) r.target = 0;
            solve_joints_again(bodies, settings);
            pass.plain_from_now = true;
        }
    }
    if (pass.plain_from_now)
        for (const Row& r : island_rows)
            if (r.kind == RowKind::joint) joint_plain_steps[r.source] = kPlainSteps + 1;
}

}  // namespace simpulse
