// Solver front end and the exact mode's step: rows of contacts (normal + two friction rows of a 4-facet
// Coulomb pyramid) and joints (their type's rows, joints/), islands, warm start from the previous step's
// impulses, and the islands handed to the island workers, in parallel when SolverSettings::threads allows.
// Each island's phases are in island_phases.cpp, the choice of method per island in island_method.cpp, the
// energy safeguards in energy_guards.cpp and the joint targets in joint_targets.cpp.
#include "solver_impl.h"

#include "joints/joint_rows.h"
#include "plane_closure.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>

namespace simpulse {
namespace {

bool is_movable(std::span<const SolverBody> bodies, std::uint32_t i) {
    return i != kFixedFrame && i < bodies.size() && detail::movable(bodies[i]);
}
// A spread side of the contact has a movable point mass.
bool moves_spread(std::span<const SolverBody> bodies, const ContactConstraint& c) {
    auto moves = [&](const PointSpread& side) {
        bool any = false;
        detail::for_each_spread_point(
            side, bodies, [&](std::uint32_t body, double) { any = any || is_movable(bodies, body); });
        return any;
    };
    return (c.body_a == kSpreadBody && moves(c.spread_a)) || (c.body_b == kSpreadBody && moves(c.spread_b));
}
// The velocity of the contact point as side `body` (or its spread) carries it.
Vec3 side_velocity(std::span<const SolverBody> bodies, std::uint32_t body, const PointSpread& spread,
                   const Vec3& point) {
    Vec3 v = Vec3::Zero();
    if (body == kSpreadBody) {
        detail::for_each_spread_point(spread, bodies, [&](std::uint32_t mass_point, double weight) {
            if (is_movable(bodies, mass_point)) v += weight * bodies[mass_point].velocity;
        });
    } else if (is_movable(bodies, body)) {
        v = bodies[body].velocity + bodies[body].angular_velocity.cross(point - bodies[body].position);
    }
    return v;
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
                              std::span<const JointConstraint> joints, double dt,
                              const SolverSettings& settings) {
    impl_->stats = {};
    impl_->contact_impulse.assign(contacts.size(), 0.0);
    impl_->joint_impulse.assign(joints.size(), {});
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
    detail::close_planes_in_velocity(bodies, joints);
    impl_->stats.workspace_bytes = impl_->workspace_bytes();
    impl_->warm_from_discarded = false;
}

void Solver::discard_last_solve(bool warm_from_discarded) {
    impl_->warm_from_discarded = warm_from_discarded && impl_->cache_replaced;
    if (impl_->warm_from_discarded) impl_->discarded_cache = impl_->cache;
    if (impl_->cache_replaced) std::swap(impl_->cache, impl_->next_cache);
    impl_->cache_replaced = false;
    impl_->joint_cache = impl_->joint_cache_before;
    impl_->joint_plain_steps = impl_->joint_plain_steps_before;
    impl_->joint_redundant = impl_->joint_redundant_before;
}

std::span<const double> Solver::contact_impulses() const {
    return impl_->contact_impulse;
}

std::span<const JointImpulse> Solver::joint_impulses() const {
    return impl_->joint_impulse;
}

void Solver::project_positions(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts,
                               std::span<const JointConstraint> joints, const SolverSettings& settings) {
    if (settings.mode == SolverMode::thesis)
        return;  // the thesis corrects joints in the velocity system only
    impl_->project(bodies, contacts, joints, settings);
    detail::close_planes_in_position(bodies, joints);
}

void Solver::Impl::build_rows(std::span<const SolverBody> bodies, std::span<const ContactConstraint> contacts,
                              std::span<const JointConstraint> joints, double dt,
                              const SolverSettings& settings) {
    rows.clear();
    contact_rows.assign(contacts.size(), {});
    // The rows point into `spreads`: it must not reallocate while they are built.
    std::size_t spread_contacts = 0;
    for (const ContactConstraint& c : contacts)
        spread_contacts += c.body_a == kSpreadBody || c.body_b == kSpreadBody;
    spreads.clear();
    spreads.reserve(2 * spread_contacts);  // one per contact, one per patch for its friction rows
    for (std::size_t first = 0; first < contacts.size();) {
        // A patch: consecutive contacts of the same manifold (same patch id and bodies).
        std::size_t last = first + 1;
        const ContactConstraint& head = contacts[first];
        while (head.patch != kNoPatch && last < contacts.size() && contacts[last].patch == head.patch &&
               contacts[last].body_a == head.body_a && contacts[last].body_b == head.body_b)
            ++last;
        if (is_movable(bodies, head.body_a) || is_movable(bodies, head.body_b) || moves_spread(bodies, head))
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
        const detail::WarmStart* previous = cache.find(c.key);
        const detail::WarmStart* warm = settings.warm_start ? warm_start_of(c.key) : nullptr;
        cr.normal = static_cast<std::int32_t>(rows.size());
        Row& normal = rows.emplace_back();  // built in place: a row is 208 bytes
        normal.persistent = previous != nullptr && previous->normal > 0;
        detail::make_row(normal, bodies, c.body_a, c.body_b, c.point, c.point, c.normal);
        if (c.body_a == kSpreadBody || c.body_b == kSpreadBody) {
            cr.spread = static_cast<std::int32_t>(spreads.size());
            if (c.body_a == kSpreadBody) cr.spread_origin_a = detail::spread_position(c.spread_a, bodies);
            if (c.body_b == kSpreadBody) cr.spread_origin_b = detail::spread_position(c.spread_b, bodies);
            detail::attach_spread(normal, bodies, c, spreads.emplace_back());
        }
        normal.kind = RowKind::normal;
        normal.source = static_cast<std::uint32_t>(k);
        normal.target = c.depth < 0 ? c.depth / dt : 0.0;  // speculative: may approach up to the gap
        normal.lambda = warm ? warm->normal : 0.0;
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
    const detail::WarmStart* warm = settings.warm_start ? warm_start_of(head.key) : nullptr;
    const Vec3& n = head.normal;
    Vec3 sliding = side_velocity(bodies, head.body_b, head.spread_b, centre) -
                   side_velocity(bodies, head.body_a, head.spread_a, centre);  // spread: at the first point
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
    auto set_friction = [&](Row& f, double mu, double warm_lambda) {
        f.kind = RowKind::friction;
        // A row's bound is mu times its patch's normal impulse; an infinite mu (a torsional mu times a large
        // radius can overflow) would make that inf * 0 = NaN for an unloaded patch. The largest finite mu
        // sticks the same way.
        f.mu = std::min(mu, std::numeric_limits<double>::max());
        f.normal = first_normal;
        f.normal_count = count;
        f.source = static_cast<std::uint32_t>(patch_begin);
        f.lambda = warm_lambda;
    };
    const detail::RowSpread* patch_spread = nullptr;
    if (contact_rows[patch_begin].spread >= 0) {
        // The patch centre's weights: the mean of its contacts' (the centreline point is linear in them).
        ContactConstraint mean = head;
        for (std::size_t k = patch_begin + 1; k < last; ++k)
            for (std::size_t i = 0; i < mean.spread_a.weight.size(); ++i) {
                mean.spread_a.weight[i] += contacts[k].spread_a.weight[i];
                mean.spread_b.weight[i] += contacts[k].spread_b.weight[i];
            }
        for (std::size_t i = 0; i < mean.spread_a.weight.size(); ++i) {
            mean.spread_a.weight[i] /= static_cast<double>(count);
            mean.spread_b.weight[i] /= static_cast<double>(count);
        }
        Row probe;
        detail::attach_spread(probe, bodies, mean, spreads.emplace_back());
        patch_spread = &spreads.back();
    }
    for (const Vec3& t : {t1, t2}) {
        Row& f = rows.emplace_back();
        detail::make_row(f, bodies, head.body_a, head.body_b, centre, centre, t);
        if (patch_spread != nullptr) {
            f.spread = patch_spread;
            detail::add_spread_diagonal(f);
        }
        set_friction(f, head.friction, warm_friction.dot(t));
    }
    if (patch_spread != nullptr) return;  // point masses take no torque: no torsional row
    // Torsional friction: the patch resists spinning about its normal up to mu times the mean radius of its
    // points times the normal impulse (a uniform pressure over the patch).
    double radius = 0;
    for (std::size_t k = patch_begin; k < last; ++k) radius += (contacts[k].point - centre).norm();
    radius /= static_cast<double>(count);
    if (count >= 2 && radius > 0) {
        Row& f = rows.emplace_back();
        detail::make_twist_row(f, bodies, head.body_a, head.body_b, n);
        f.lever = radius;
        set_friction(f, head.friction * radius, warm ? warm->twist : 0.0);
    }
}

namespace {

// A distance limit's row along -n (max) or +n (min): over the step the anchors' sideways motion u_perp
// lengthens the distance by |u_perp|^2 / (2 L) (second order), so a taut rope's row must shorten it by that
// much to end the step at its limit, and a row at min may lengthen it by that much less. Other limits: 0.
double limit_curvature_speed(std::span<const SolverBody> bodies, const detail::JointLevers& j,
                             const detail::Row& row, double dt) {
    if (j.type != JointType::distance || !(j.length > 0)) return 0;
    auto point_velocity = [&](std::uint32_t body, const Vec3& lever) {
        return is_movable(bodies, body)
                   ? Vec3(bodies[body].velocity + bodies[body].angular_velocity.cross(lever))
                   : Vec3(Vec3::Zero());
    };
    const Vec3 u = dt * (point_velocity(j.body_b, j.lever_b) - point_velocity(j.body_a, j.lever_a));
    const Vec3 across = u - u.dot(j.direction) * j.direction;
    const double speed = across.squaredNorm() / (2 * j.length * dt);
    return row.dir.dot(j.direction) < 0 ? speed : -speed;
}

}  // namespace

// Each joint's rows (joints/), and the per-joint state of the step.
void Solver::Impl::add_joint_rows(std::span<const SolverBody> bodies, std::span<const JointConstraint> joints,
                                  double dt, const SolverSettings& settings) {
    const bool exact = settings.mode == SolverMode::exact;
    if (joint_cache.size() != detail::kJointSlots * joints.size())
        joint_cache.assign(detail::kJointSlots * joints.size(), 0.0);
    if (joint_plain_steps.size() != joints.size()) joint_plain_steps.assign(joints.size(), 0);
    if (joint_redundant.size() != joints.size()) joint_redundant.assign(joints.size(), 0);
    for (std::uint8_t& steps : joint_plain_steps)
        if (steps > 0) --steps;
    joint_levers.resize(joints.size());
    detail::JointRows joint;
    for (std::size_t k = 0; k < joints.size(); ++k) {
        const JointConstraint& j = joints[k];
        if (!is_movable(bodies, j.body_a) && !is_movable(bodies, j.body_b)) continue;
        detail::joint_rows(j, bodies, joint);
        // The thesis' target turns any error into a velocity within one step and leaves the body the
        // energy: an error beyond max_correction is corrected by that much per step. Limits count where
        // they are violated.
        double error_norm = 0;
        for (int i = 0; i < joint.count; ++i) {
            const auto slot = static_cast<std::size_t>(i);
            if (joint.rows[slot].kind == RowKind::joint || joint.error[slot] < 0)
                error_norm += joint.error[slot] * joint.error[slot];
        }
        error_norm = std::sqrt(error_norm);
        const double scale =
            !exact && error_norm > settings.max_correction ? settings.max_correction / error_norm : 1.0;
        const Vec3 separation = joint.point_b - joint.point_a;
        joint_levers[k] = {
            j.body_a,
            j.body_b,
            is_movable(bodies, j.body_a) ? Vec3(joint.point_a - bodies[j.body_a].position) : Vec3::Zero(),
            is_movable(bodies, j.body_b) ? Vec3(joint.point_b - bodies[j.body_b].position) : Vec3::Zero(),
            j.type,
            separation.norm() > 0 ? Vec3(separation.normalized()) : Vec3::Zero(),
            separation.norm(),
            j.limit.restitution};
        for (int i = 0; i < joint.count; ++i) {
            const auto slot = static_cast<std::size_t>(i);
            const Row& made = joint.rows[slot];
            const double error = joint.error[slot];
            // The thesis mode takes a limit only once it is reached (its C' has no speculative rows), and has
            // no bounded rows for motors.
            if (!exact && ((made.kind == RowKind::limit && error > 0) || made.kind == RowKind::motor))
                continue;
            Row& r = rows.emplace_back(made);
            r.source = static_cast<std::uint32_t>(k);
            const double previous = joint_cache[detail::kJointSlots * k + r.slot];
            r.lambda = settings.warm_start ? previous : 0.0;
            // A limit that held in the previous step is a lasting contact, not an impact (no restitution).
            r.persistent = made.kind == RowKind::limit && previous > 0;
            if (!exact) {
                // Thesis eq. 21-22: the joint closes at the end of the step, from the error it has now.
                r.target = -scale * error / dt;
            } else if (made.kind == RowKind::motor) {
                r.target = j.motor.speed;
                r.mu = j.motor.max_force * dt;
            } else if (made.kind == RowKind::joint) {
                // The exact mode leaves the error to the position projection (no energy injected) and asks
                // the anchors to end the step together from where they are (set_joint_targets).
                r.target = 0;
            } else {
                // A limit: the coordinate may approach it by its gap within the step (a speculative row, like
                // a separated contact); one reached or passed asks for no further approach, and the
                // projection removes the rest.
                r.target = -std::max(0.0, error) / dt + limit_curvature_speed(bodies, joint_levers[k], r, dt);
            }
        }
    }
}

// The warm-start cache for the next step: every point's normal impulse; the patch friction under the key of
// the patch's first point; and the joints' impulses.
void Solver::Impl::store_warm_starts(std::span<const ContactConstraint> contacts) {
    next_cache.entries.clear();
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
        next_cache.entries.push_back(w);
    }
    next_cache.index();
    std::swap(cache, next_cache);
    cache_replaced = true;
    joint_impulse.assign(joint_levers.size(), {});
    for (const Row& r : rows) {
        if (!detail::of_joint(r.kind)) continue;
        joint_cache[detail::kJointSlots * r.source + r.slot] = r.lambda;
        detail::add_row_impulse(joint_impulse[r.source], r, r.lambda);
    }
}

namespace {

// A parallel region costs a few microseconds of waking threads: steps with less work than this many rows
// solve their islands on the calling thread.
constexpr std::size_t kParallelMinRows = 64;

// Threads worth waking for islands of these sizes (rows, offsets as IslandBuilder's): a step's solve takes at
// least as long as its largest island, so more threads than total / largest rows cannot shorten it, and a
// step with less work than kParallelMinRows rows stays on the calling thread.
int useful_threads(std::span<const std::uint32_t> offsets, int threads) {
    std::uint32_t largest = 0;
    for (std::size_t k = 0; k + 1 < offsets.size(); ++k)
        largest = std::max(largest, offsets[k + 1] - offsets[k]);
    const std::uint32_t total = offsets.back() - offsets.front();
    if (largest == 0 || total < kParallelMinRows) return 1;
    return static_cast<int>(std::min<std::uint32_t>(static_cast<std::uint32_t>(threads), total / largest));
}

// The statistics of one worker's islands added to the step's.
void add_island_stats(SolverStats& into, const SolverStats& from) {
    into.largest_island_rows = std::max(into.largest_island_rows, from.largest_island_rows);
    into.direct_islands += from.direct_islands;
    into.iterative_islands += from.iterative_islands;
    into.newton_islands += from.newton_islands;
    into.factorizations += from.factorizations;
    into.newton_capped += from.newton_capped;
    into.missed_islands += from.missed_islands;
    into.relative_residual = std::max(into.relative_residual, from.relative_residual);
    into.iterations += from.iterations;
    into.pivots += from.pivots;
    into.residual = std::max(into.residual, from.residual);
    into.recheck_rounds += from.recheck_rounds;
    into.joint_target_rounds += from.joint_target_rounds;
    into.impact_gap = std::max(into.impact_gap, from.impact_gap);
    into.inelastic_energy_guards += from.inelastic_energy_guards;
    into.restitution_energy_guards += from.restitution_energy_guards;
}

}  // namespace

Solver::Impl::Impl() {
    add_worker();
}

void Solver::Impl::add_worker() {
    workers.push_back(std::make_unique<detail::IslandWorker>(rows, contact_rows, local_index, joint_levers,
                                                             joint_plain_steps, joint_redundant, spreads));
}

// Mode exact: the islands (each through IslandWorker::solve's phases), then the contacts' impulses and the
// next step's warm starts. Islands share no movable body, row, contact or joint, and a worker's answer for an
// island does not depend on what it solved before, so with several threads each island is solved by
// whichever worker takes it (largest first, for balance) and the result is bit-identical to one thread's.
void Solver::Impl::solve_exact(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts,
                               double dt, const SolverSettings& settings) {
    islands.build(rows, bodies.size());
    const auto order = islands.order();
    const auto offsets = islands.offsets();
    const auto island_count = static_cast<std::uint32_t>(offsets.size() - 1);
    stats.islands = static_cast<int>(island_count);
    local_index.assign(rows.size(), -1);
    const int threads = useful_threads(offsets, settings.threads);
    while (workers.size() < static_cast<std::size_t>(threads)) add_worker();
    for (auto& worker : workers) worker->stats = {};
    if (threads <= 1) {
        for (std::uint32_t k = 0; k < island_count; ++k)
            workers.front()->solve(order, offsets[k], offsets[k + 1], bodies, contacts, dt, settings);
    } else {
        island_schedule.resize(island_count);
        for (std::uint32_t k = 0; k < island_count; ++k) island_schedule[k] = k;
        std::stable_sort(island_schedule.begin(), island_schedule.end(),
                         [&](std::uint32_t a, std::uint32_t b) {
                             return offsets[a + 1] - offsets[a] > offsets[b + 1] - offsets[b];
                         });
        // An exception must not leave an OpenMP region (the runtime would terminate): the first one is kept,
        // the remaining islands are skipped, and it is rethrown here, where the caller turns it into an error
        // value (out of memory on a huge scene, for one).
        std::exception_ptr failure;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
        for (std::int64_t i = 0; i < static_cast<std::int64_t>(island_count); ++i) {
            bool skip = false;
#pragma omp critical(simpulse_island_failure)
            skip = failure != nullptr;
            if (skip) continue;
            try {
                const std::uint32_t k = island_schedule[static_cast<std::size_t>(i)];
                workers[static_cast<std::size_t>(omp_get_thread_num())]->solve(
                    order, offsets[k], offsets[k + 1], bodies, contacts, dt, settings);
            } catch (...) {
#pragma omp critical(simpulse_island_failure)
                if (!failure) failure = std::current_exception();
            }
        }
        if (failure) std::rethrow_exception(failure);
    }
    for (const auto& worker : workers) add_island_stats(stats, worker->stats);
    for (const Row& r : rows)
        if (r.kind == RowKind::normal) contact_impulse[r.source] = r.lambda;
    store_warm_starts(contacts);
}

}  // namespace simpulse
