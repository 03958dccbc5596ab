// Mode "thesis": Ermolin's simultaneous impulse method exactly as the thesis states it (chapter 4, eq. 6-23).
// The set C' of penetrating points (touching or penetrating contacts whose bodies approach) gets impulses p
// along the normals such that all of them become touching at once: A p = b, solved with a rank-revealing
// complete orthogonal decomposition (minimum-norm least squares, the thesis used SVD) so redundant contacts
// work. The impulses push the bodies apart (eq. 11-12 define them as magnitudes along +n on B with that
// meaning): where the system asks for a pulling impulse, that point leaves C' (it would separate) and the
// rest is solved again. The thesis does not say what it did there; applying the pulling impulse glued
// dominoes of the domino chain together (docs/domino.md). Restitution scales the impulses, p' = (1 + e) p
// (eq. 20). Points that became penetrating are collected and solved again (the re-check loop). Ball joints
// are three rows along the world axes whose target is the end-of-step condition r_A + v_A(r_A) dt = r_B +
// v_B(r_B) dt (eq. 21-22), solved in the same system with e = 0. Sliding friction is an impulse of magnitude
// mu |p'| against the tangential velocity (eq. 23); we cap it at the impulse that stops the sliding, because
// Coulomb friction cannot reverse the motion (the thesis does not say what happens there).
#include "solver_impl.h"

#include "joints/joint_rows.h"

#include <Eigen/QR>

#include <algorithm>
#include <cmath>

namespace simpulse {

using detail::Row;
using detail::RowKind;

namespace {

constexpr double kVelocityTolerance = 1e-9;  // m/s
// An impulse below -kPullTolerance times the largest one of its system pulls (relative, so round-off of the
// decomposition does not drop points of heavy bodies).
constexpr double kPullTolerance = 1e-9;

// C' of a round (indices into the island's rows): the approaching contacts, and the joints (all of them in
// the first round and whenever a contact is in C', so new contact impulses cannot pull their anchors apart;
// else those off their target). False when there is nothing (more) to solve.
bool collect_penetrating(std::span<const Row> island, std::span<const SolverBody> bodies, int round,
                         std::vector<std::uint32_t>& set) {
    set.clear();
    bool any_contact = false;
    for (std::uint32_t i = 0; i < island.size(); ++i) {
        const Row& r = island[i];
        const double w = detail::row_velocity(r, bodies);
        if (r.kind == RowKind::joint) {
            if (round == 0 || std::abs(w - r.target) > kVelocityTolerance) set.push_back(i);
        } else if (w < -kVelocityTolerance) {
            set.push_back(i);
            any_contact = true;
        }
    }
    if (set.empty() || (round > 0 && !any_contact)) return false;
    if (round > 0)
        for (std::uint32_t i = 0; i < island.size(); ++i)
            if (island[i].kind == RowKind::joint && std::find(set.begin(), set.end(), i) == set.end())
                set.push_back(i);
    return true;
}

// Solves A p = b over the rows of `set` (ws.dense, ws.rhs, ws.x); a point whose impulse comes out pulling
// leaves C' and the rest is solved again. Returns false if no point is left.
bool solve_without_pulling(std::span<const Row> island, std::span<const SolverBody> bodies,
                           std::vector<std::uint32_t>& set, detail::BlcpWorkspace& ws, SolverStats& stats) {
    Eigen::MatrixXd& a = ws.dense;
    Eigen::VectorXd& b = ws.rhs;
    Eigen::VectorXd& p = ws.x;
    for (;;) {
        const auto n = static_cast<Eigen::Index>(set.size());
        a.resize(n, n);
        b.resize(n);
        for (Eigen::Index i = 0; i < n; ++i) {
            const Row& ri = island[set[static_cast<std::size_t>(i)]];
            b[i] = ri.target - detail::row_velocity(ri, bodies);
            for (Eigen::Index j = 0; j <= i; ++j)
                a(i, j) = a(j, i) = detail::coupling(ri, island[set[static_cast<std::size_t>(j)]]);
        }
        const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(a);
        p = cod.solve(b);
        ++stats.iterations;
        const std::size_t before = set.size();
        const double pulling = -kPullTolerance * (n > 0 ? p.cwiseAbs().maxCoeff() : 0.0);
        Eigen::Index kept = 0;
        for (Eigen::Index i = 0; i < n; ++i) {
            const std::uint32_t row = set[static_cast<std::size_t>(i)];
            if (detail::unilateral(island[row].kind) && p[i] < pulling) continue;
            set[static_cast<std::size_t>(kept++)] = row;
        }
        set.resize(static_cast<std::size_t>(kept));
        if (set.empty()) return false;
        if (set.size() == before) break;
    }
    stats.residual = std::max(stats.residual, (a * p - b).cwiseAbs().maxCoeff());
    return true;
}

// Sliding friction of the points just resolved (impulses p of the rows in `set`): mu |p'| against the
// tangential velocity, computed for all points from the same velocities and then applied together.
void apply_sliding_friction(std::span<const Row> island, std::span<const std::uint32_t> set,
                            const Eigen::VectorXd& p, std::span<const ContactConstraint> contacts,
                            std::span<SolverBody> bodies, std::vector<Row>& frictions) {
    frictions.clear();
    for (std::size_t i = 0; i < set.size(); ++i) {
        const Row& r = island[set[i]];
        if (r.kind != RowKind::normal) continue;
        const ContactConstraint& c = contacts[r.source];
        if (c.friction <= 0) continue;
        auto point_velocity = [&](std::uint32_t body) {
            if (body == detail::kNoBody) return Vec3(Vec3::Zero());
            return Vec3(bodies[body].velocity +
                        bodies[body].angular_velocity.cross(c.point - bodies[body].position));
        };
        Vec3 vt = point_velocity(r.b) - point_velocity(r.a);
        detail::for_each_spread_term(
            r, [&](std::uint32_t body, double weight, double) { vt += weight * bodies[body].velocity; });
        vt -= vt.dot(c.normal) * c.normal;
        const double speed = vt.norm();
        if (speed <= kVelocityTolerance) continue;
        Row& f = frictions.emplace_back();
        detail::make_row(f, bodies, c.body_a, c.body_b, c.point, c.point, -vt / speed);
        if (r.spread != nullptr) {
            f.spread = r.spread;
            detail::add_spread_diagonal(f);
        }
        const double magnitude = c.friction * std::abs((1 + c.restitution) * p[static_cast<Eigen::Index>(i)]);
        f.lambda = std::min(magnitude, speed / f.diagonal);
    }
    for (const Row& f : frictions) detail::apply_row_impulse(f, f.lambda, bodies);
}

}  // namespace

void Solver::Impl::solve_thesis(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts,
                                std::span<const JointConstraint> joints, double dt,
                                const SolverSettings& settings) {
    detail::IslandWorker& scratch = *workers.front();  // the thesis mode solves on one thread
    std::vector<detail::Row>& island_rows = scratch.island_rows;
    build_rows(bodies, contacts, joints, dt, settings);
    // Separated (speculative) points are not contacts in the thesis' sense.
    std::erase_if(rows,
                  [&](const Row& r) { return r.kind == RowKind::normal && contacts[r.source].depth < 0; });
    for (Row& r : rows) r.lambda = 0;
    islands.build(rows, bodies.size());
    const auto order = islands.order();
    const auto offsets = islands.offsets();
    stats.islands = static_cast<int>(offsets.size()) - 1;
    std::vector<std::uint32_t>& set = recheck_source;  // rows of C' (indices into island_rows)
    for (std::size_t k = 0; k + 1 < offsets.size(); ++k) {
        island_rows.clear();
        for (std::uint32_t p = offsets[k]; p < offsets[k + 1]; ++p) island_rows.push_back(rows[order[p]]);
        stats.largest_island_rows = std::max(stats.largest_island_rows, static_cast<int>(island_rows.size()));
        ++stats.direct_islands;
        for (int round = 0; round <= settings.recheck_iterations; ++round) {
            if (!collect_penetrating(island_rows, bodies, round, set)) break;
            if (round > 0) ++stats.recheck_rounds;
            if (!solve_without_pulling(island_rows, bodies, set, scratch.workspace, stats)) break;
            const Eigen::VectorXd& p = scratch.workspace.x;
            // p' = (1 + e) p, applied all at once.
            for (std::size_t i = 0; i < set.size(); ++i) {
                Row& r = island_rows[set[i]];
                const double e = detail::row_restitution(r, contacts, joint_levers);
                const double impulse = (1 + e) * p[static_cast<Eigen::Index>(i)];
                detail::apply_row_impulse(r, impulse, bodies);
                r.lambda += impulse;
                if (r.kind == RowKind::normal) contact_impulse[r.source] += impulse;
                if (detail::of_joint(r.kind)) detail::add_row_impulse(joint_impulse[r.source], r, impulse);
            }
            apply_sliding_friction(island_rows, set, p, contacts, bodies, frictions);
        }
    }
}

}  // namespace simpulse
