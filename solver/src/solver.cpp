// Solver front end and the exact mode: rows of contacts (normal + two friction rows of a 4-facet Coulomb
// pyramid) and ball joints (three rows), islands, warm start from the previous step's impulses, the
// direct/iterative choice per island, and the two restitution phases of the thesis (inelastic solve, then
// restitution impulses e * lambda, then the re-check loop for points that became approaching). The exact
// mode's energy safeguards are in energy_guards.cpp, its joint targets in joint_targets.cpp.
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

bool is_movable(std::span<const SolverBody> bodies, std::uint32_t i) {
    return i != kFixedFrame && i < bodies.size() && detail::movable(bodies[i]);
}
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

Solver::Solver() : impl_(std::make_unique<Impl>()) {}
Solver::~Solver() = default;
Solver::Solver(Solver&&) noexcept = default;
Solver& Solver::operator=(Solver&&) noexcept = default;

const SolverStats& Solver::stats() const {
    return impl_->stats;
}

void Solver::solve_velocities(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts,
                              std::span<const BallJointConstraint> joints, double dt,
                              const SolverSettings& settings) {
    impl_->stats = {};
    impl_->contact_impulse.assign(contacts.size(), 0.0);
    impl_->cache_replaced = false;
    impl_->joint_cache_before = impl_->joint_cache;
    impl_->joint_plain_steps_before = impl_->joint_plain_steps;
    impl_->joint_redundant_before = impl_->joint_redundant;
    if (settings.mode == SolverMode::thesis) {
        impl_->solve_thesis(bodies, contacts, joints, dt, settings);
    } else {
        impl_->build_rows(bodies, contacts, joints, dt, settings);
        impl_->solve_exact(bodies, contacts, dt, settings);
    }
    impl_->stats.workspace_bytes = impl_->workspace_bytes();
}

void Solver::discard_last_solve() {
    if (impl_->cache_replaced) impl_->cache.swap(impl_->next_cache);
    impl_->cache_replaced = false;
    impl_->joint_cache = impl_->joint_cache_before;
    impl_->joint_plain_steps = impl_->joint_plain_steps_before;
    impl_->joint_redundant = impl_->joint_redundant_before;
}

std::span<const double> Solver::contact_impulses() const {
    return impl_->contact_impulse;
}

void Solver::project_positions(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts,
                               std::span<const BallJointConstraint> joints, const SolverSettings& settings) {
    if (settings.mode == SolverMode::thesis)
        return;  // the thesis corrects joints in the velocity system only
    impl_->project(bodies, contacts, joints, settings);
}

const detail::WarmStart* Solver::Impl::find_warm_start(std::uint64_t key) const {
    const auto it = std::lower_bound(cache.begin(), cache.end(), key,
                                     [](const detail::WarmStart& w, std::uint64_t k) { return w.key < k; });
    return it != cache.end() && it->key == key ? &*it : nullptr;
}

void Solver::Impl::record(const BlcpResult& result, bool direct, const SolverSettings& settings) {
    stats.iterations += result.iterations;
    stats.pivots += result.pivots;
    stats.residual = std::max(stats.residual, result.residual);
    stats.missed_islands += result.residual > settings.tolerance;
    (direct ? stats.direct_islands : stats.iterative_islands) += 1;
}

BlcpResult Solver::Impl::solve_large_island(std::span<Row> island, std::span<SolverBody> bodies,
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
    detail::NewtonSettings newton_settings;
    newton_settings.tolerance = settings.tolerance;
    newton_settings.max_factorizations = settings.newton_max_factorizations;
    const detail::NewtonResult n = detail::solve_blcp_newton(island, bodies, newton, newton_settings);
    BlcpResult result;
    result.iterations = r.iterations + n.newton;
    result.residual = n.residual;
    result.converged = n.converged;
    stats.newton_islands += 1;
    stats.factorizations += n.factorizations;
    stats.relative_residual = std::max(stats.relative_residual, n.relative);
    stats.iterations += result.iterations;
    stats.residual = std::max(stats.residual, result.residual);
    stats.missed_islands += result.residual > settings.tolerance;
    return result;
}

void Solver::Impl::build_rows(std::span<const SolverBody> bodies, std::span<const ContactConstraint> contacts,
                              std::span<const BallJointConstraint> joints, double dt,
                              const SolverSettings& settings) {
    rows.clear();
    contact_rows.assign(contacts.size(), {});
    for (std::size_t first = 0; first < contacts.size();) {
        // A patch: consecutive contacts of the same manifold (same patch id and bodies).
        std::size_t last = first + 1;
        const ContactConstraint& head = contacts[first];
        while (head.patch != kNoPatch && last < contacts.size() && contacts[last].patch == head.patch &&
               contacts[last].body_a == head.body_a && contacts[last].body_b == head.body_b)
            ++last;
        if (is_movable(bodies, head.body_a) || is_movable(bodies, head.body_b))
            add_patch_rows(bodies, contacts, first, last, dt, settings);
        first = last;
    }
    add_joint_rows(bodies, joints, dt, settings);
    stats.rows = static_cast<int>(rows.size());
}

// A normal row per contact point of the patch contacts[patch_begin, last), then (mode exact, with friction)
// the patch's two tangent rows and its torsion row.
void Solver::Impl::add_patch_rows(std::span<const SolverBody> bodies,
                                  std::span<const ContactConstraint> contacts, std::size_t patch_begin,
                                  std::size_t last, double dt, const SolverSettings& settings) {
    const auto first_normal = static_cast<std::int32_t>(rows.size());
    Vec3 centre = Vec3::Zero();
    for (std::size_t k = patch_begin; k < last; ++k) {
        const ContactConstraint& c = contacts[k];
        detail::ContactRows& cr = contact_rows[k];
        if (is_movable(bodies, c.body_a))
            cr.local_a = bodies[c.body_a].orientation.conjugate() * (c.point - bodies[c.body_a].position);
        if (is_movable(bodies, c.body_b))
            cr.local_b = bodies[c.body_b].orientation.conjugate() * (c.point - bodies[c.body_b].position);
        const detail::WarmStart* previous = find_warm_start(c.key);
        const detail::WarmStart* warm = settings.warm_start ? previous : nullptr;
        Row normal;
        normal.persistent = previous != nullptr && previous->normal > 0;
        detail::make_row(normal, bodies, c.body_a, c.body_b, c.point, c.point, c.normal);
        normal.kind = RowKind::normal;
        normal.source = static_cast<std::uint32_t>(k);
        normal.target = c.depth < 0 ? c.depth / dt : 0.0;  // speculative: may approach up to the gap
        normal.lambda = warm ? warm->normal : 0.0;
        cr.normal = static_cast<std::int32_t>(rows.size());
        rows.push_back(normal);
        centre += c.point;
    }
    const auto count = static_cast<std::int32_t>(last - patch_begin);
    centre /= static_cast<double>(count);
    if (settings.mode != SolverMode::exact || contacts[patch_begin].friction <= 0) return;
    add_patch_friction(bodies, contacts, patch_begin, last, first_normal, centre, settings);
}

void Solver::Impl::add_patch_friction(std::span<const SolverBody> bodies,
                                      std::span<const ContactConstraint> contacts, std::size_t patch_begin,
                                      std::size_t last, std::int32_t first_normal, const Vec3& centre,
                                      const SolverSettings& settings) {
    const ContactConstraint& head = contacts[patch_begin];
    const auto count = static_cast<std::int32_t>(last - patch_begin);
    // Tangent basis: along the sliding velocity at the patch centre when sliding (the pyramid is then exact
    // for the sliding direction), else the previous step's basis so the warm-started impulse keeps its
    // meaning.
    const detail::WarmStart* warm = settings.warm_start ? find_warm_start(head.key) : nullptr;
    auto point_velocity = [&](std::uint32_t i) {
        if (!is_movable(bodies, i)) return Vec3(Vec3::Zero());
        return Vec3(bodies[i].velocity + bodies[i].angular_velocity.cross(centre - bodies[i].position));
    };
    const Vec3& n = head.normal;
    Vec3 sliding = point_velocity(head.body_b) - point_velocity(head.body_a);
    sliding -= sliding.dot(n) * n;
    const Vec3 preferred = sliding.norm() > 1e-4 ? sliding : (warm ? warm->t1 : Vec3(Vec3::Zero()));
    Vec3 t1, t2;
    detail::tangent_basis(n, preferred, t1, t2);
    Vec3 warm_friction = Vec3::Zero();
    if (warm) {
        Vec3 w1, w2;
        detail::tangent_basis(n, warm->t1, w1, w2);
        warm_friction = warm->tangent1 * w1 + warm->tangent2 * w2;
    }
    contact_rows[patch_begin].tangent = static_cast<std::int32_t>(rows.size());
    auto add_friction = [&](Row f, double mu, double warm_lambda) {
        f.kind = RowKind::friction;
        f.mu = mu;
        f.normal = first_normal;
        f.normal_count = count;
        f.source = static_cast<std::uint32_t>(patch_begin);
        f.lambda = warm_lambda;
        rows.push_back(f);
    };
    for (const Vec3& t : {t1, t2}) {
        Row f;
        detail::make_row(f, bodies, head.body_a, head.body_b, centre, centre, t);
        add_friction(f, head.friction, warm_friction.dot(t));
    }
    // Torsional friction: the patch resists spinning about its normal up to mu times the mean radius of its
    // points times the normal impulse (a uniform pressure over the patch).
    double radius = 0;
    for (std::size_t k = patch_begin; k < last; ++k) radius += (contacts[k].point - centre).norm();
    radius /= static_cast<double>(count);
    if (count >= 2 && radius > 0) {
        Row f;
        detail::make_twist_row(f, bodies, head.body_a, head.body_b, n);
        f.lever = radius;
        add_friction(f, head.friction * radius, warm ? warm->twist : 0.0);
    }
}

// Three rows per ball joint (world axes), and the per-joint state of the step.
void Solver::Impl::add_joint_rows(std::span<const SolverBody> bodies,
                                  std::span<const BallJointConstraint> joints, double dt,
                                  const SolverSettings& settings) {
    const bool exact = settings.mode == SolverMode::exact;
    if (joint_cache.size() != 3 * joints.size()) joint_cache.assign(3 * joints.size(), 0.0);
    if (joint_plain_steps.size() != joints.size()) joint_plain_steps.assign(joints.size(), 0);
    if (joint_redundant.size() != joints.size()) joint_redundant.assign(joints.size(), 0);
    for (std::uint8_t& steps : joint_plain_steps)
        if (steps > 0) --steps;
    joint_levers.resize(joints.size());
    for (std::size_t k = 0; k < joints.size(); ++k) {
        const BallJointConstraint& j = joints[k];
        if (!is_movable(bodies, j.body_a) && !is_movable(bodies, j.body_b)) continue;
        const Vec3 pa = j.body_a == kFixedFrame
                            ? j.local_anchor_a
                            : bodies[j.body_a].position + bodies[j.body_a].orientation * j.local_anchor_a;
        const Vec3 pb = j.body_b == kFixedFrame
                            ? j.local_anchor_b
                            : bodies[j.body_b].position + bodies[j.body_b].orientation * j.local_anchor_b;
        Vec3 drift = pb - pa;
        // The thesis' target turns any drift into a velocity within one step and leaves the body the energy:
        // a drift beyond max_correction is corrected by that much per step.
        if (!exact && drift.norm() > settings.max_correction) drift *= settings.max_correction / drift.norm();
        joint_levers[k] = {
            j.body_a, j.body_b,
            is_movable(bodies, j.body_a) ? Vec3(pa - bodies[j.body_a].position) : Vec3::Zero(),
            is_movable(bodies, j.body_b) ? Vec3(pb - bodies[j.body_b].position) : Vec3::Zero()};
        for (int axis = 0; axis < 3; ++axis) {
            Row r;
            detail::make_row(r, bodies, j.body_a, j.body_b, pa, pb, Vec3::Unit(axis));
            r.kind = RowKind::joint;
            r.source = static_cast<std::uint32_t>(k);
            // Thesis eq. 21-22: the anchors coincide at the end of the step, from the drift they have now.
            // The exact mode leaves the drift to the position projection (no energy injected) and asks the
            // anchors to end the step together from where they are (set_joint_targets).
            r.target = exact ? 0.0 : -drift[axis] / dt;
            r.lambda = settings.warm_start ? joint_cache[3 * k + static_cast<std::size_t>(axis)] : 0.0;
            rows.push_back(r);
        }
    }
}

BlcpResult Solver::Impl::solve_island(std::span<Row> island, std::span<SolverBody> bodies,
                                      const SolverSettings& settings) {
    const int size = static_cast<int>(island.size());
    if (size > settings.direct_max_rows) return solve_large_island(island, bodies, settings);
    const bool jointed =
        std::any_of(island.begin(), island.end(), [](const Row& r) { return r.kind == RowKind::joint; });
    if (size > settings.direct_first_max_rows && size <= settings.direct_max_rows && !jointed) {
        BlcpResult r;
        if (try_iterative_first(island, bodies, settings, r)) return r;
    }
    BlcpResult r = detail::solve_blcp_direct(island, bodies, workspace, settings.max_active_set_iterations,
                                             settings.dense_max_rows);
    if (r.converged) {
        record(r, true, settings);
        return r;
    }
    // The active set did not settle: polish from the best iterate with the iterative method.
    for (const Row& row : island) detail::apply_row_impulse(row, -row.lambda, bodies);
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
// they do not settle, the iterative answer is kept. If the iterative method does not converge (stacks: long
// load paths), returns false with the island's impulses removed from the bodies and its impulses left as the
// warm start, for the caller's direct solve.
bool Solver::Impl::try_iterative_first(std::span<Row> island, std::span<SolverBody> bodies,
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
    polish_lambda.resize(island.size());
    for (std::size_t i = 0; i < island.size(); ++i) {
        detail::apply_row_impulse(island[i], -island[i].lambda, bodies);
        polish_lambda[i] = island[i].lambda;
    }
    if (!iterative.converged) return false;
    result = detail::solve_blcp_direct(island, bodies, workspace, kPolishIterations, settings.dense_max_rows,
                                       /*give_up=*/true);
    result.iterations += iterative.iterations;
    if (result.converged) {
        record(result, true, settings);
        return true;
    }
    for (std::size_t i = 0; i < island.size(); ++i) {
        detail::apply_row_impulse(island[i], polish_lambda[i] - island[i].lambda, bodies);
        island[i].lambda = polish_lambda[i];
    }
    const int pivots = result.pivots, iterations = result.iterations;
    result = iterative;
    result.iterations = iterations;
    result.pivots = pivots;
    record(result, false, settings);
    return true;
}

void Solver::Impl::rows_to_solve_again() {
    recheck_rows.clear();
    for (const Row& r : island_rows) {
        if (r.kind == RowKind::friction) continue;
        Row copy = r;
        copy.lambda = 0;
        recheck_rows.push_back(copy);
    }
}

// Phase 2 of an island (island_rows after phase 1, `approach` their velocities before it): restitution
// impulses e * lambda on the compressed contacts that approached fast enough (impacts), then re-checks. True
// if any contact restituted; `allowance` grows by what the restitution may add beyond the energy before the
// impact.
bool Solver::Impl::restitute(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts,
                             double dt, const SolverSettings& settings, double phase_1_residual,
                             double& allowance) {
    bool any_restitution = false;
    // What the restitution phase may add beyond the energy before the impact: the impact timing's share
    // of the external forces' work within the step (a rebound factor above e: 1/2 (factor^2 - e^2) lambda
    // times the approach speed, the gain of a lone contact), and what unconverged solves leave (impulse
    // times residual).
    const double velocity_tolerance = kVelocityTolerance;
    const double joint_velocity_tolerance = joint_velocity_tolerance_of(settings);
    for (std::size_t i = 0; i < island_rows.size(); ++i) {
        Row& r = island_rows[i];
        if (r.kind != RowKind::normal || r.lambda <= 0) continue;
        const ContactConstraint& c = contacts[r.source];
        if (c.restitution <= 0 || !is_impact(r, approach[i], settings)) continue;
        const ImpactTiming impact = impact_timing(r, c, approach[i], bodies, dt);
        detail::apply_row_impulse(r, impact.factor * r.lambda, bodies);
        const double speed = -approach[i];
        allowance += 0.5 * std::max(0.0, impact.factor * impact.factor - c.restitution * c.restitution) *
                         r.lambda * speed +
                     impact.factor * r.lambda * phase_1_residual;
        any_restitution = true;
        stats.impact_gap = std::max(stats.impact_gap, -c.depth);
        if (c.depth < 0 && r.target == 0) contact_rows[r.source].restitution_pull = impact.pull;
    }
    // Re-check: contacts that now approach get a new simultaneous solve (normal and joint rows), with
    // restitution on its impulses too.
    const bool restituted = any_restitution;
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
            if (r.kind == RowKind::normal ? approach[i] < r.target - velocity_tolerance
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
            if (r.kind != RowKind::normal || r.lambda <= 0) continue;
            const ContactConstraint& c = contacts[r.source];
            if (c.restitution <= 0 || !is_impact(r, approach[i], settings)) continue;
            detail::apply_row_impulse(r, c.restitution * r.lambda, bodies);
            any_restitution = true;
            stats.impact_gap = std::max(stats.impact_gap, -c.depth);
        }
    }
    return restituted;
}

// The warm-start cache for the next step: every point's normal impulse; the patch friction under the key of
// the patch's first point; and the joints' impulses.
void Solver::Impl::store_warm_starts(std::span<const ContactConstraint> contacts) {
    next_cache.clear();
    for (std::size_t k = 0; k < contacts.size(); ++k) {
        const detail::ContactRows& cr = contact_rows[k];
        if (cr.normal < 0) continue;
        detail::WarmStart w;
        w.key = contacts[k].key;
        w.normal = rows[static_cast<std::size_t>(cr.normal)].lambda;
        if (cr.tangent >= 0) {
            const auto t = static_cast<std::size_t>(cr.tangent);
            w.tangent1 = rows[t].lambda;
            w.tangent2 = rows[t + 1].lambda;
            w.t1 = rows[t].dir;
            if (t + 2 < rows.size() && rows[t + 2].kind == RowKind::friction && rows[t + 2].dir.isZero(0))
                w.twist = rows[t + 2].lambda;
        }
        next_cache.push_back(w);
    }
    std::sort(next_cache.begin(), next_cache.end(),
              [](const detail::WarmStart& a, const detail::WarmStart& b) { return a.key < b.key; });
    cache.swap(next_cache);
    cache_replaced = true;
    for (const Row& r : rows)
        if (r.kind == RowKind::joint)
            joint_cache[3 * r.source + static_cast<std::size_t>(r.dir.x() != 0   ? 0
                                                                : r.dir.y() != 0 ? 1
                                                                                 : 2)] = r.lambda;
}

// Mode exact, island by island, in named phases: gather the island's rows, prepare it (approach velocities,
// which contacts may bounce, joint targets), the inelastic phase (all rows at once, joint targets made
// reachable or dropped), the restitution phase (restitute, re-checks, energy limit), the joint targets fitted
// to the final spins, and the impulses stored for the next step's warm start.
void Solver::Impl::solve_exact(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts,
                               double dt, const SolverSettings& settings) {
    islands.build(rows, bodies.size());
    const auto order = islands.order();
    const auto offsets = islands.offsets();
    stats.islands = static_cast<int>(offsets.size()) - 1;
    local_index.assign(rows.size(), -1);
    for (std::size_t k = 0; k + 1 < offsets.size(); ++k) {
        gather_island(order, offsets[k], offsets[k + 1]);
        detail::IslandPass pass = prepare_island(bodies, contacts, dt, settings);
        inelastic_phase(pass, bodies, settings);
        restitution_phase(pass, bodies, contacts, dt, settings);
        fit_joint_targets(pass, bodies, dt, settings);
        for (std::uint32_t p = offsets[k]; p < offsets[k + 1]; ++p)
            rows[order[p]].lambda = island_rows[p - offsets[k]].lambda;  // the next step's warm start
    }
    for (const Row& r : rows)
        if (r.kind == RowKind::normal) contact_impulse[r.source] = r.lambda;
    store_warm_starts(contacts);
}

void Solver::Impl::gather_island(std::span<const std::uint32_t> order, std::uint32_t begin,
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

detail::IslandPass Solver::Impl::prepare_island(std::span<const SolverBody> bodies,
                                                std::span<const ContactConstraint> contacts, double dt,
                                                const SolverSettings& settings) {
    detail::IslandPass pass;
    approach.resize(island_rows.size());
    for (std::size_t i = 0; i < island_rows.size(); ++i) {
        Row& r = island_rows[i];
        approach[i] = detail::row_velocity(r, bodies);
        if (r.kind != RowKind::normal || contacts[r.source].restitution <= 0 ||
            !is_impact(r, approach[i], settings))
            continue;
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
    // The restitution phase must not end above the kinetic energy the island had before the impact.
    if (pass.may_bounce) {
        collect_guard_bodies(island_rows, bodies);
        pass.energy_before_impact = guard_kinetic_energy(bodies);
    }
    return pass;
}

// The joint graph's cycles are found when first needed (most jointed islands are trees, and most steps need
// no check).
bool Solver::Impl::island_is_cyclic(detail::IslandPass& pass, std::size_t body_count) {
    if (pass.cycles < 0) pass.cycles = pass.jointed && mark_joints_on_cycles(island_rows, body_count);
    return pass.cycles == 1;
}

void Solver::Impl::undo_inelastic_phase(detail::IslandPass& pass, std::span<SolverBody> bodies) {
    for (std::size_t i = 0; i < island_rows.size(); ++i) {
        Row& r = island_rows[i];
        detail::apply_row_impulse(r, -r.lambda, bodies);
        r.lambda = phase_1_lambda[i];
    }
    stats.residual = pass.residual_before;
    ++stats.joint_target_rounds;
}

void Solver::Impl::inelastic_phase(detail::IslandPass& pass, std::span<SolverBody> bodies,
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
    guard_inelastic_phase(bodies, pass.may_bounce, pass.phase_1, settings);
    if (pass.may_bounce) save_guard_velocities(bodies);
}

// Phase 2: restitution impulses, then re-checks; the allowance bounds what they may add.
void Solver::Impl::restitution_phase(detail::IslandPass& pass, std::span<SolverBody> bodies,
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
bool Solver::Impl::solve_joints_again(std::span<SolverBody> bodies, const SolverSettings& settings) {
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
        if (island_rows[i].kind != RowKind::friction) {
            if (island_rows[i].kind == RowKind::joint) island_rows[i].lambda += recheck_rows[j].lambda;
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
// targets, which can feed back on the spins they come from.
void Solver::Impl::fit_joint_targets(detail::IslandPass& pass, std::span<SolverBody> bodies, double dt,
                                     const SolverSettings& settings) {
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
        if (!fits || set_joint_targets(island_rows, bodies, dt, joint_velocity_tolerance)) {
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
