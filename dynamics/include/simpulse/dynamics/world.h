// The dynamics world: owns bodies, springs, ball joints and materials, and advances them by fixed steps in
// the thesis order (chapter 2). The stages of a step are listed once, in DynamicsWorld::substep
// (dynamics/src/world.cpp).
#pragma once

#include <simpulse/collision/broad_phase.h>
#include <simpulse/collision/contact.h>
#include <simpulse/dynamics/body.h>
#include <simpulse/dynamics/manifold_cache.h>
#include <simpulse/dynamics/material.h>
#include <simpulse/dynamics/spring.h>
#include <simpulse/solver/solver.h>

#include <string>
#include <vector>

namespace simpulse {

struct SpringId {
    std::uint32_t index = kInvalidIndex;
    std::uint32_t generation = 0;
    friend bool operator==(const SpringId&, const SpringId&) = default;
};

struct JointId {
    std::uint32_t index = kInvalidIndex;
    std::uint32_t generation = 0;
    friend bool operator==(const JointId&, const JointId&) = default;
};

struct BallJointDesc {
    BodyId body_a;
    BodyId body_b;                   // an invalid id means the fixed world frame
    Vec3 anchor = Vec3::Zero();      // world point at the configuration when the joint is added
    bool collide_connected = false;  // whether the two jointed bodies still collide with each other
};

struct BallJoint {
    std::uint32_t body_a = kInvalidIndex;
    std::uint32_t body_b = kInvalidIndex;  // kInvalidIndex: world
    Vec3 local_a = Vec3::Zero();           // anchor in A's body frame
    Vec3 local_b = Vec3::Zero();           // anchor in B's body frame (world point for the world)
    bool collide_connected = false;
    std::uint32_t generation = 0;
    bool alive = false;
};

// The default max_impact_gap, m.
inline constexpr double kDefaultImpactGap = 1e-3;

struct WorldSettings {
    Vec3 gravity = Vec3(0, 0, -9.81);
    SolverSettings solver;
    // Contacts are reported (speculatively) up to this separation, m; they let the solver stop an approaching
    // body at the surface within one step instead of after it has penetrated.
    double contact_margin = 0.002;
    // A pair whose bodies moved relative to each other by less than this (m: the largest displacement of a
    // point of the smaller body) since its manifolds were computed reuses them, carried along with the
    // bodies, instead of running the narrow phase again; 0 disables. At most a quarter of contact_margin is
    // used, so a point the cached manifolds lack cannot come into contact within the step.
    double manifold_reuse_distance = 1e-6;
    // Broad-phase boxes are fattened by this much, m, on top of the broad phase's own relative margin (a
    // tenth of the box's half extent), so that slowly moving bodies rarely re-insert. A change acts on the
    // bodies created and the boxes re-inserted after it (a resting body keeps its box).
    double aabb_margin = 0;
    // A step is split into substeps (halving) when a body with a joint would rotate by more than this angle
    // (rad) in one: the position projection linearises rotations, and light links of a tensioned chain spin
    // far faster than a 1/60 s step can follow (see docs/architecture.md). Substeps are never shorter than
    // dt/max_substeps.
    double max_joint_rotation = 0.1;
    // A step is also split when the exact solver bounced a contact across an open gap wider than this (m;
    // SolverStats::impact_gap): the bounce happens before the bodies touch and the next impact of the body it
    // pushed follows at once, so a chain of impacts through gaps (a domino hitting the next one before it has
    // crossed the gap) would pass within one step. Halving resolves the impacts in their order (0: at every
    // bounce across an open gap, down to max_substeps). Without splitting, a chain of elastic impacts through gaps
    // within the contact margin lost energy (three balls at e = 1 with a 2 mm gap at 1/240 s: 49 % in the
    // impact step), and a jointed body bounced across a gap gained energy (the position projection cannot
    // move it back to where it would have bounced). A value wider than any gap (1e9) turns splitting off.
    // The thesis mode has no speculative contacts and never splits for this.
    double max_impact_gap = kDefaultImpactGap;
    int max_substeps = 32;
    // Sleeping: an island of touching or jointed bodies whose points all moved slower than sleep_speed (m/s,
    // |v| + |w| * bounding radius) for sleep_time (s) stops being simulated until something touches it, a
    // joint or spring is attached, or the API changes it.
    bool allow_sleeping = true;
    double sleep_speed = 0.02;
    double sleep_time = 0.5;
};

struct ContactEvent {
    enum class Type { begin, end };
    Type type = Type::begin;
    double time = 0;  // simulated time at the end of the step in which it happened
    BodyId a;         // a was created before b
    BodyId b;
    std::uint64_t order_a = 0;  // creation order (stable even after a body is destroyed)
    std::uint64_t order_b = 0;
};

struct Energy {
    double kinetic = 0;
    double potential = 0;  // gravity (zero at the world origin) plus elastic energy of the springs
};

// Outcome of a step: ok, or the first body whose state became non-finite.
struct StepStatus {
    bool ok = true;
    BodyId body;
    std::string message;
};

// Narrow-phase work of the last step: body pairs tested, and how many of them reused their manifolds
// (WorldSettings::manifold_reuse_distance) instead of running the narrow phase.
struct CollisionStats {
    int pairs = 0;
    int reused = 0;
};

// A contact manifold of the last step together with the two bodies it joins.
struct BodyManifold {
    BodyId a;
    BodyId b;
    Manifold manifold;
};

class DynamicsWorld {
  public:
    explicit DynamicsWorld(const WorldSettings& settings = {});

    const WorldSettings& settings() const { return settings_; }
    // Changing gravity, solver or margins between steps is allowed.
    WorldSettings& settings() { return settings_; }
    MaterialTable& materials() { return materials_; }
    const MaterialTable& materials() const { return materials_; }

    // Preconditions (checked, std::invalid_argument): shape set, static-only shapes on static bodies, finite
    // state, unit quaternion within 1e-6, positive density/mass, known material.
    BodyId create_body(const BodyDesc& desc);
    void destroy_body(BodyId id);
    bool is_valid(BodyId id) const;
    const Body& body(BodyId id) const;  // precondition: is_valid(id)
    bool is_asleep(BodyId id) const { return body(id).asleep; }
    void wake(BodyId id);  // wakes the body and every body that fell asleep with it
    void wake_all();       // after a change that may move any sleeper: gravity, sleeping allowed, materials
    std::span<const Body> body_slots() const { return bodies_; }  // includes dead slots (alive == false)
    std::size_t body_count() const { return body_count_; }

    void set_pose(BodyId id, const Pose& pose);
    void set_velocity(BodyId id, const Vec3& velocity);
    void set_angular_velocity(BodyId id, const Vec3& angular_velocity);
    // Forces persist until the end of the next step. Points are world points.
    void add_force(BodyId id, const Vec3& force);
    void add_force_at_point(BodyId id, const Vec3& force, const Vec3& point);
    void add_torque(BodyId id, const Vec3& torque);
    // Impulses change the velocity at once.
    void apply_impulse(BodyId id, const Vec3& impulse, const Vec3& point);
    void apply_angular_impulse(BodyId id, const Vec3& angular_impulse);

    SpringId add_spring(const SpringDesc& desc);
    void remove_spring(SpringId id);
    bool is_valid(SpringId id) const;
    JointId add_ball_joint(const BallJointDesc& desc);
    void remove_joint(JointId id);
    bool is_valid(JointId id) const;
    double joint_error(JointId id) const;  // distance between the two anchor points now, m
    double max_joint_error() const;        // over all joints now

    // Advances by dt (in substeps if jointed bodies spin fast, see WorldSettings::max_joint_rotation).
    StepStatus step(double dt);
    int last_substeps() const { return last_substeps_; }
    // Largest joint separation the position projection had to remove in the last step (before projecting), m.
    double last_joint_drift() const { return last_joint_drift_; }

    double time() const { return time_; }
    std::uint64_t step_count() const { return step_count_; }
    const std::vector<ContactEvent>& contact_events() const { return events_; }     // of the last step
    const std::vector<BodyManifold>& manifolds() const { return body_manifolds_; }  // of the last step
    const SolverStats& solver_stats() const { return solver_.stats(); }
    const CollisionStats& collision_stats() const { return collision_stats_; }
    const BroadPhase& broad_phase() const { return broad_phase_; }  // its pairs are those of the last step

    Energy energy() const;
    Vec3 linear_momentum() const;
    Vec3 angular_momentum(const Vec3& about = Vec3::Zero()) const;

  private:
    Body& body_mut(BodyId id);
    // One pass of the pipeline. Rejected (velocities restored) if may_reject and a jointed body would rotate
    // by more than max_joint_rotation; stops early if a velocity became non-finite.
    enum class SubstepResult { done, rejected, non_finite };
    SubstepResult substep(double dt, bool may_reject);
    std::uint32_t first_non_finite_body() const;
    double fastest_joint_rotation_rate() const;
    void wake_island(std::uint32_t slot);
    // Wakes what a static body holds or reaches: the partners of its touching pairs and the bodies whose
    // boxes overlap `bounds`. Sleeping islands are frozen against static bodies, so moving one must wake
    // them.
    void wake_around_static(std::uint32_t slot, const Aabb& bounds);
    void update_sleep(double dt);
    bool frozen(std::uint32_t slot) const { return bodies_[slot].is_static || bodies_[slot].asleep; }
    // The stages of substep (world.cpp lists them in order), each in the file named for it.
    bool apply_forces(double dt);  // false if a velocity became non-finite
    void collision_stage(double dt);
    void build_constraints();
    SolverSettings solve_velocities(double dt);  // the solver settings of this substep
    bool reject_substep(double dt);              // true: rejected, velocities restored
    void update_contact_events();
    void advance_positions(double dt);
    void project_positions(const SolverSettings& solver_settings);
    void sync_solver_bodies(bool to_solver);
    BodyId id_of(std::uint32_t slot) const { return {slot, bodies_[slot].generation}; }

    WorldSettings settings_;
    MaterialTable materials_;
    std::vector<Body> bodies_;
    std::vector<std::uint32_t> free_bodies_;
    std::size_t body_count_ = 0;
    std::uint64_t next_creation_order_ = 0;
    std::vector<Spring> springs_;
    std::vector<std::uint32_t> free_springs_;
    std::vector<BallJoint> joints_;
    std::vector<std::uint32_t> free_joints_;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> no_collide_pairs_;  // sorted (lo slot, hi slot)

    BroadPhase broad_phase_;
    Solver solver_;
    // Per-step buffers, reused.
    std::vector<Manifold> manifolds_;
    std::vector<BodyManifold> body_manifolds_;
    ManifoldCache manifold_cache_;
    CollisionStats collision_stats_;
    std::vector<SolverBody> solver_bodies_;
    std::vector<ContactConstraint> contacts_;
    std::vector<BallJointConstraint> joint_rows_;
    struct TouchingPair {
        std::uint64_t order_a, order_b;  // creation orders, order_a < order_b
        BodyId a, b;
    };
    std::vector<TouchingPair> touching_;  // sorted by creation orders
    std::vector<TouchingPair> touching_prev_;
    std::vector<ContactEvent> events_;
    std::vector<ContactEvent> pending_events_;   // from destroy_body, delivered with the next step
    std::vector<std::pair<Vec3, Vec3>> forces_;  // applied force and torque per body, kept over the substeps
    std::vector<std::pair<Vec3, Vec3>> velocity_backup_;  // velocities before a substep that may be rejected
    std::vector<Vec3>
        spin_before_solve_;    // angular velocities the solver started from (carry_angular_impulses)
    std::vector<Vec3> kicks_;  // velocity the external forces add in the current substep (SolverBody::kick)
    std::vector<std::uint32_t> island_parent_;  // union-find of the sleep test
    std::vector<char> island_restless_;
    std::vector<std::uint32_t> wake_next_step_;  // sleepers a resting body touched (collision_stage)

    double time_ = 0;  // sum of the steps' lengths
    std::uint64_t step_count_ = 0;
    double time_step_ = 0;            // length of the last step
    double time_at_step_change_ = 0;  // time when the step length last changed
    std::uint64_t steps_since_step_change_ = 0;
    int last_substeps_ = 1;
    double last_joint_drift_ = 0;
    double last_step_length_ = 0;  // of the last accepted substep (restagger_velocities); 0 before the first
};

}  // namespace simpulse
