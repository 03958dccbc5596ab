// The simultaneous impulse solver (thesis chapter 4): builds the constraint rows of contacts and joints,
// splits them into islands, and solves all impulses of an island at once, either as the thesis states it
// (mode thesis) or as a complementarity problem with Coulomb friction (mode exact; its joint rows ask for the
// relative velocity that keeps the anchors together over the step, so rotation about a joint keeps its
// energy). After the positions are integrated, project_positions removes penetration and joint drift by
// moving positions only (no velocity change, so no kinetic energy is added).
#pragma once

#include <simpulse/solver/math.h>
#include <simpulse/solver_settings.h>

#include <array>
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
    // In: a Newton solve of an island holding this body ran out its budget in an earlier substep of this
    // world step, so the island's Newton solves get a tenth of it (solver/src/island_method.cpp).
    bool newton_budget_cut = false;
    // Out: set on the movable bodies of every island whose Newton solve ran out its budget short of the
    // tolerance.
    bool newton_capped = false;
};

// Body index of a contact side spread over point masses (ContactConstraint::spread_a, spread_b).
inline constexpr std::uint32_t kSpreadBody = 0xfffffffeu;

// A contact side whose velocity is the weighted sum of up to four point masses' velocities: a cable's control
// points with the B-spline basis weights at the contact (cable seed; docs/cables.md). The impulse is shared
// by the same weights, so J has w_i n in the columns of point i and nothing in its rotation (the points are
// held at their centres of mass). Unused entries have weight 0.
struct PointSpread {
    std::array<std::uint32_t, 4> body{kFixedFrame, kFixedFrame, kFixedFrame, kFixedFrame};
    std::array<double, 4> weight{};
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
    // Sides spread over point masses, used where body_a or body_b is kSpreadBody. The contacts of one patch
    // share the spread's bodies (one cable segment against one body); their friction rows act at the patch
    // centre with the mean of the contacts' weights, and a spread patch has no torsional row (point masses
    // take no torque).
    PointSpread spread_a{}, spread_b{};
};

// A joint between bodies A and B (B may be the fixed frame): what it holds is its type's (JointType; rows in
// solver/src/joints/). Anchors and frames are given in the bodies' frames, and in the world frame for
// kFixedFrame; the joint frame's x axis is the hinge or slider axis, and the frames of A and B coincide when
// the joint is at rest (hinge angle and slider travel 0).
struct JointConstraint {
    JointType type = JointType::ball;
    std::uint32_t body_a = 0;
    std::uint32_t body_b = kFixedFrame;
    Vec3 local_anchor_a =
        Vec3::Zero();  // from A's centre of mass, A's body frame (world point for kFixedFrame)
    Vec3 local_anchor_b = Vec3::Zero();
    Quat local_frame_a = Quat::Identity();  // joint frame relative to A's orientation (world for kFixedFrame)
    Quat local_frame_b = Quat::Identity();
    double min_length = 0;  // distance joints: the anchors' distance stays in [min_length, max_length], m
    double max_length = 0;
    JointLimit
        limit;  // hinge angle, slider travel (0 at rest, see above); restitution also at min/max_length
    JointMotor motor;  // hinge and slider
};

// Impulse a joint applied to body B in the last velocity solve: `linear` at B's anchor, `angular` a pure
// torque impulse (A received the opposite). Divided by the step, the joint's reaction force and torque.
struct JointImpulse {
    Vec3 linear = Vec3::Zero();
    Vec3 angular = Vec3::Zero();
};

class Solver {
  public:
    Solver();
    ~Solver();
    Solver(Solver&&) noexcept;
    Solver& operator=(Solver&&) noexcept;

    // Changes the velocities so that no contact keeps approaching and joints keep their anchors together.
    void solve_velocities(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts,
                          std::span<const JointConstraint> joints, double dt, const SolverSettings& settings);

    // Forgets the last solve_velocities: the warm start of the next solve is the one that solve had. For a
    // caller that rejects the step and solves it again with a shorter one (the impulses of the rejected solve
    // would otherwise make its impacts look like lasting contacts, which get no restitution). With
    // warm_from_discarded, the next solve (only) starts its contacts from the discarded solve's impulses
    // instead, while which contacts are lasting still comes from the step before: for a caller that solves
    // the same step again with contacts added, where most islands' answers stay what they were.
    void discard_last_solve(bool warm_from_discarded = false);

    // After the position update: moves bodies (positions and orientations only) to remove joint drift and
    // penetration beyond the slop. The contacts are the ones given to solve_velocities this step.
    void project_positions(std::span<SolverBody> bodies, std::span<const ContactConstraint> contacts,
                           std::span<const JointConstraint> joints, const SolverSettings& settings);

    const SolverStats& stats() const;
    // Normal impulse each contact of the last solve_velocities carried (inelastic phase; thesis mode: the
    // applied (1 + e) p), aligned with its contacts. A contact "touches" when it carried an impulse.
    std::span<const double> contact_impulses() const;
    // Impulse of each joint in the last solve_velocities, aligned with its joints.
    std::span<const JointImpulse> joint_impulses() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// How far a joint is from holding at the bodies' poses: the larger of its positional error (m) and its
// rotational error (rad), as its rows measure them.
double joint_error(const JointConstraint& joint, std::span<const SolverBody> bodies);

// World inverse inertia of a body from its orientation.
inline Mat3 world_inverse_inertia(const Quat& orientation, const Mat3& inverse_inertia_local) {
    const Mat3 r = orientation.toRotationMatrix();
    return r * inverse_inertia_local * r.transpose();
}

}  // namespace simpulse
