// Exact mode: the energy safeguards of an island's solve. Phase 1 (inelastic) may not raise the island's
// kinetic energy beyond what its joint targets and residual allow; phase 2 (restitution) may not end above
// the energy before the impact (plus the impact timing's share of the forces' work). Restituting only the
// impacts' normal rows can break the thesis' theorem 2 (Kane's paradox: a contact loaded by friction or a
// joint reverses that load too), so both are checked and, when broken, mended (docs/architecture.md).
#include "solver_impl.h"

#include <algorithm>
#include <cmath>

namespace simpulse {
namespace {

// The mass-weighted inner product of two velocity pairs of a body (twice the kinetic energy for equal pairs),
// with its world inertia (the inverse of the solver's world inverse inertia, computed once by the caller).
double kinetic_product(const SolverBody& b, const Mat3& inertia, const Vec3& v1, const Vec3& w1,
                       const Vec3& v2, const Vec3& w2) {
    return v1.dot(v2) / b.inverse_mass + w1.dot(inertia * w2);
}

}  // namespace

using detail::BlcpResult;
using detail::Row;
using detail::RowKind;

// A solution of the island's complementarity problem changes its kinetic energy by
// dE = lambda^T J v + 1/2 lambda^T A lambda = 1/2 sum lambda_i (q_i + w_i) (A lambda = w - q), that is
// sum lambda_i w_i - 1/2 lambda^T A lambda with A = J M^-1 J^T positive semidefinite: at most sum lambda_i
// w_i. A normal row carries lambda > 0 only where w = target <= 0, a friction row opposes its sliding, so
// only joint rows (lambda target, their curvature) can add energy; a solve that leaves row i off its
// conditions by r_i (its residual) adds at most |lambda_i| r_i more. Anything beyond (round-off allowed) is a
// wrong answer.
bool detail::IslandWorker::inelastic_energy_ok(std::span<const Row> island, std::span<const double> before,
                                               std::span<const SolverBody> bodies, double residual) const {
    double change = 0, allowed = 0, scale = 0;
    for (std::size_t i = 0; i < island.size(); ++i) {
        const Row& r = island[i];
        if (!std::isfinite(r.lambda)) return false;
        if (r.lambda == 0) continue;
        const double w = detail::row_velocity(r, bodies);
        change += 0.5 * r.lambda * (before[i] + w);
        if (detail::of_joint(r.kind)) allowed += std::max(0.0, r.lambda * r.target);
        allowed += std::abs(r.lambda) * residual / r.lever;
        scale += std::abs(r.lambda) * (std::abs(before[i]) + std::abs(w));
    }
    return change <= allowed + 1e-9 * scale;  // false for a non-finite change
}

double detail::IslandWorker::guard_kinetic_energy(std::span<const SolverBody> bodies) const {
    double energy = 0;
    for (const std::uint32_t i : guard.body) {
        const SolverBody& b = bodies[i];
        energy += 0.5 * kinetic_product(b, b.inverse_inertia.inverse(), b.velocity, b.angular_velocity,
                                        b.velocity, b.angular_velocity);
    }
    return energy;
}

// An inelastic answer that raises the island's energy (or is not finite) is wrong, whatever its residual
// says. It is solved again by the iterative method from zero impulses; if that fails too, the island gets no
// impulses this step (the position projection still separates it).
void detail::IslandWorker::guard_inelastic_phase(std::span<SolverBody> bodies, BlcpResult& phase_1,
                                                 const SolverSettings& settings) {
    if (inelastic_energy_ok(island_rows, approach, bodies, phase_1.residual)) return;
    ++stats.inelastic_energy_guards;
    remove_island_impulses(bodies);
    phase_1 = detail::solve_blcp_iterative(island_rows, bodies, workspace, settings.max_iterations,
                                           settings.iterative_tolerance);
    record(phase_1, false, settings);
    if (!inelastic_energy_ok(island_rows, approach, bodies, phase_1.residual)) remove_island_impulses(bodies);
}

// The velocities saved before phase 1, exactly: subtracting the impulses would leave their round-off, and a
// wrong answer's impulses may be non-finite or huge (1e19 N s leave km/s).
void detail::IslandWorker::remove_island_impulses(std::span<SolverBody> bodies) {
    guard.restore(bodies);
    for (Row& r : island_rows) r.lambda = 0;
}

// With e <= 1 the inelastic impulses take energy out and the restitution impulses give back at most what
// they took (the thesis' theorem 2 for contacts that share e; the re-check loop adds the joints' share).
// Restituting only part of the rows (impacts, not lasting contacts, friction or joints) can give back more: a
// contact whose inelastic impulse was loaded by a joint or by friction reverses that load too (seen: 11
// bodies on two joints, e = 0.99, 28 kJ before a 79-row impact and 49 kJ after; a box on a tiny spinning
// cylinder at e = 1, +3 %). Both velocity sets, after phase 1 (v1, saved) and now (v2), meet every row's
// condition, and so does every mix v1 + s (v2 - v1), 0 <= s <= 1, which also keeps the momenta: s is the
// largest for which the energy stays within the limit.
void detail::IslandWorker::limit_restitution_energy(std::span<SolverBody> bodies, double limit) {
    const double energy = guard_kinetic_energy(bodies);
    if (energy <= limit) return;
    ++stats.restitution_energy_guards;
    double a = 0, b = 0, start = 0;  // E(s) = start + b s + a s^2
    for (std::size_t g = 0; g < guard.body.size(); ++g) {
        const SolverBody& body = bodies[guard.body[g]];
        const Mat3 inertia = body.inverse_inertia.inverse();
        const Vec3 dv = body.velocity - guard.velocity[g];
        const Vec3 dw = body.angular_velocity - guard.angular_velocity[g];
        a += 0.5 * kinetic_product(body, inertia, dv, dw, dv, dw);
        b += kinetic_product(body, inertia, dv, dw, guard.velocity[g], guard.angular_velocity[g]);
        start += 0.5 * kinetic_product(body, inertia, guard.velocity[g], guard.angular_velocity[g],
                                       guard.velocity[g], guard.angular_velocity[g]);
    }
    const double room = std::max(0.0, limit - start);
    const double root = std::sqrt(b * b + 4 * a * room);
    // The non-negative root of a s^2 + b s - room, written without cancellation (E(1) > limit, so a > 0 or
    // b > room).
    double scale = b >= 0 ? (b + root > 0 ? 2 * room / (b + root) : 0.0) : (root - b) / (2 * a);
    scale = std::isfinite(scale) ? std::clamp(scale, 0.0, 1.0) : 0.0;
    for (std::size_t g = 0; g < guard.body.size(); ++g) {
        SolverBody& body = bodies[guard.body[g]];
        body.velocity = guard.velocity[g] + scale * (body.velocity - guard.velocity[g]);
        body.angular_velocity =
            guard.angular_velocity[g] + scale * (body.angular_velocity - guard.angular_velocity[g]);
        if (!body.velocity.allFinite() || !body.angular_velocity.allFinite()) {
            body.velocity = guard.velocity[g];
            body.angular_velocity = guard.angular_velocity[g];
        }
    }
}

}  // namespace simpulse
