// The simultaneous impulse solver (thesis chapter 4): builds the constraint rows of contacts and ball joints,
// splits them into islands, and solves all impulses of an island at once, either as the thesis states it
// (mode thesis) or as a complementarity problem with Coulomb friction (mode exact; its joint rows ask for the
// relative velocity that keeps the anchors together over the step, so rotation about a joint keeps its
// energy). After the positions are integrated, project_positions removes penetration and joint drift by
// moving positions only (no velocity change, so no kinetic energy is added).
#pragma once

#include <simpulse/solver/math.h>
#include <simpulse/solver/settings.h>

#include <cstdint>
#include <memory>
#include <span>

namespace simpulse {

// Body index meaning "the fixed world frame" (joint to a point in space).
inline constexpr std::uint32_t kFixedFrame = 0xffffffffu;
// Patch id of a contact that forms a contact patch on its own.
inline constexpr std::uint32_t kNoPatch = 0xffffffffu;

// Motion state the solver reads and writes. Static bodies have zero inverse mass and inertia.
struct SolverBody {
    Vec3 position = Vec3::Zero();  // centre of mass, world
    Quat orientation = Quat::Identity();
    Vec3 velocity = Vec3::Zero();
    Vec3 angular_velocity = Vec3::Zero();  // world
    double inverse_mass = 0;
    Mat3 inverse_inertia_local = Mat3::Zero();  // body frame
    Mat3 inverse_inertia = Mat3::Zero();        // world: R inverse_inertia_local R^T
    // Velocity the step's external forces (gravity, springs, applied forces) added before the solve, a dt:
    // it tells how the approach at an impact differs from the step's mid-point velocity the solve sees.
    Vec3 kick = Vec3::Zero();
};

// One contact point. The impulse acts along +normal on B and -normal on A.
struct ContactConstraint {
    std::uint32_t body_a = 0;
    std::uint32_t body_b = 0;
    Vec3 point = Vec3::Zero();    // world
    Vec3 normal = Vec3::UnitZ();  // world, unit, from A to B
    double depth = 0;             // > 0 penetration, < 0 separation (speculative)
    double friction = 0;
    double restitution = 0;
    std::uint64_t key = 0;  // identifies the contact across steps (warm start)
    // Consecutive contacts with the same patch id (and bodies) are the points of one contact patch
    // (manifold); in the exact mode they share the patch's friction rows.
    std::uint32_t patch = kNoPatch;
};

// Spherical joint: the anchor points of A and B coincide.
struct BallJointConstraint {
    std::uint32_t body_a = 0;
    std::uint32_t body_b = kFixedFrame;
    Vec3 local_anchor_a =
        Vec3::Zero();  // from A's centre of mass, A's body frame (world point for kFixedFrame)
    Vec3 local_anchor_b = Vec3::Zero();
};

struct SolverStats {
    int islands = 0;
    int rows = 0;  // constraint rows of all islands
    int largest_island_rows = 0;
    int direct_islands = 0;
    int iterative_islands = 0;
    int newton_islands = 0;
    int factorizations = 0;  // numeric factorisations of the Newton method, summed over islands
    int missed_islands = 0;  // island solves (restitution and joint-target rounds included) that ended
                             // above SolverSettings::tolerance
    // Largest violation in impulse terms (violation / A_ii) relative to the island's largest impulse.
    double relative_residual = 0;
    // Memory the solver holds after the solve (row buffers, scratch, factorisations), bytes: the peak over
    // all solves so far, as buffers are reused and never shrink.
    std::size_t workspace_bytes = 0;
    int iterations = 0;      // active-set iterations (direct) plus sweeps (iterative), summed over islands
    int pivots = 0;          // active-set changes, summed
    double residual = 0;     // largest complementarity residual of an island after its solve, m/s
    int recheck_rounds = 0;  // extra solves for points that became penetrating (restitution phase)
    // Exact mode: extra solves of jointed islands for their joint targets (the curvature of the anchors'
    // paths over the step): after a bounce, and where the targets did not fit the spins the solve left or
    // could not be reached (then solved again with J v = 0).
    int joint_target_rounds = 0;
    // Exact mode: the widest open gap (m, speculative contact) across which a restitution impulse acted in
    // this solve. Such an impact is resolved before the bodies touch; the position projection places the pair
    // where the bounce would have left it, but the impulses it passes on act from the step's start
    // configuration.
    double impact_gap = 0;
    int projection_iterations = 0;
    // Exact mode, energy safeguards (never triggered by a converged, consistent solve): islands whose
    // inelastic phase raised their kinetic energy beyond what its residual and joint targets allow (solved
    // again iteratively, or left without impulses) or gave non-finite impulses, and islands whose restitution
    // phase (e lambda and the re-check loop) ended with more kinetic energy than before the impact (its
    // restitution impulses scaled back until it does not).
    int inelastic_energy_guards = 0;
    int restitution_energy_guards = 0;
    double joint_drift = 0;  // largest joint separation before the position projection, m
    double joint_error = 0;  // largest joint separation after the position projection, m
};

class Solver {
  public:
    Solver();
    ~Solver();
    Solver(Solver&&) noexcept;
    Solver& operator=(Solver&&) noexcept;

    // Changes the velocities so that no contact keeps approaching and joints keep their anchors together.
    void solve_velocities(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts,
                          std::span<const BallJointConstraint> joints, double dt,
                          const SolverSettings& settings);

    // Forgets the last solve_velocities: the warm start of the next solve is the one that solve had. For a
    // caller that rejects the step and solves it again with a shorter one (the impulses of the rejected solve
    // would otherwise make its impacts look like lasting contacts, which get no restitution).
    void discard_last_solve();

    // After the position update: moves bodies (positions and orientations only) to remove joint drift and
    // penetration beyond the slop. The contacts are the ones given to solve_velocities this step.
    void project_positions(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts,
                           std::span<const BallJointConstraint> joints, const SolverSettings& settings);

    const SolverStats& stats() const;
    // Normal impulse each contact of the last solve_velocities carried (inelastic phase; thesis mode: the
    // applied (1 + e) p), aligned with its contacts. A contact "touches" when it carried an impulse.
    std::span<const double> contact_impulses() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// World inverse inertia of a body from its orientation.
inline Mat3 world_inverse_inertia(const Quat& orientation, const Mat3& inverse_inertia_local) {
    const Mat3 r = orientation.toRotationMatrix();
    return r * inverse_inertia_local * r.transpose();
}

}  // namespace simpulse
