// The dynamics world: owns bodies, springs, ball joints and materials, and advances them by fixed steps in
// the thesis order (chapter 2). The stages of a step are listed once, in DynamicsWorld::substep
// (dynamics/src/step.cpp).
#pragma once

#include <simpulse/collision/broad_phase.h>
#include <simpulse/collision/contact.h>
#include <simpulse/dynamics/body.h>
#include <simpulse/dynamics/cable.h>
#include <simpulse/dynamics/manifold_cache.h>
#include <simpulse/dynamics/material.h>
#include <simpulse/dynamics/spring.h>
#include <simpulse/solver/solver.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace simpulse {

struct Joint {
    JointType type = JointType::ball;
    std::uint32_t body_a = kInvalidIndex;
    std::uint32_t body_b = kInvalidIndex;   // kInvalidIndex: world
    Vec3 local_a = Vec3::Zero();            // anchor in A's body frame
    Vec3 local_b = Vec3::Zero();            // anchor in B's body frame (world point for the world)
    Quat frame_a = Quat::Identity();        // joint frame relative to A's orientation (x: the axis)
    Quat frame_b = Quat::Identity();        // ... to B's (world frame for the world)
    double min_length = 0, max_length = 0;  // distance joints, m
    JointLimit limit;
    JointMotor motor;
    JointReaction reaction;  // of the last step
    bool collide_connected = false;
    std::uint32_t generation = 0;
    bool alive = false;
};

// The pose with its orientation normalised, after checking that it is finite and a unit quaternion to 1e-6 (a
// zero or huge one has no rotation to normalise to: the shape would collapse to a point or its contacts turn
// to NaN). Throws std::invalid_argument naming "pose" or "pose.orientation". Every call that takes a pose
// uses it.
Pose checked_pose(const Pose& pose);

// Outcome of a step: ok, or the first body whose state became non-finite.
struct StepStatus {
    bool ok = true;
    BodyId body;  // the body whose state became non-finite (invalid if it was a cable's control point)
    std::string message;
    std::optional<CablePoint> cable_point;  // the cable's control point whose state became non-finite
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
    // BodyDesc::collision_group and collision_mask; takes effect from the next step.
    void set_collision_filter(BodyId id, std::uint32_t group, std::uint32_t mask);
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
    JointId add_joint(const JointDesc& desc);
    JointId add_ball_joint(const BallJointDesc& desc);
    void remove_joint(JointId id);
    bool is_valid(JointId id) const;
    // Cables (cable.cpp, docs/cables.md). Preconditions (checked, std::invalid_argument naming the field): at
    // least 4 finite control points, neighbours apart, radius > 0, positive mass or density, known material,
    // pins at valid indices to valid bodies, stiffnesses >= 0 (stretch > 0). The control points are bodies of
    // the world without a shape of their own (not in body_count, not valid BodyIds for the caller).
    CableId add_cable(const CableDesc& desc);
    void remove_cable(CableId id);
    bool is_valid(CableId id) const;
    std::size_t cable_count() const { return cable_count_; }
    // The control points now, in order (world), and their velocities.
    std::vector<Vec3> cable_points(CableId id) const;      // precondition: is_valid(id)
    std::vector<Vec3> cable_velocities(CableId id) const;  // precondition: is_valid(id)
    double cable_radius(CableId id) const;                 // precondition: is_valid(id)
    // Sets the control points' velocities (one finite vector per point) and wakes the cable.
    void set_cable_velocities(CableId id, std::span<const Vec3> velocities);
    // Every live cable, in creation order.
    std::vector<CableId> cables() const;
    // How far the joint is from holding now: its positional error (m) or its rotational error (rad),
    // whichever is larger.
    double joint_error(JointId id) const;
    double max_joint_error() const;  // over all joints now
    JointReaction joint_reaction(JointId id) const;

    // Advances by dt (in substeps if jointed bodies spin fast, see WorldSettings::max_joint_rotation). If a
    // body's state became non-finite, the step fails naming it and the world is put back to the bodies' poses
    // and velocities at the step's start (time and step count not advanced).
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

    // Scene queries on the current poses (queries.cpp), candidates from the broad phase. A ray: origin,
    // direction (non-zero; normalised), max_distance > 0 (infinity allowed).
    std::optional<RayCastHit> cast_ray(const Vec3& origin, const Vec3& direction, double max_distance,
                                       const BodyFilter& filter = {}) const;
    // Every body the ray hits (its first hit on each), nearest first.
    std::vector<RayCastHit> cast_ray_all(const Vec3& origin, const Vec3& direction, double max_distance,
                                         const BodyFilter& filter = {}) const;
    // Bodies whose bounding box overlaps the box [min, max], in body order.
    std::vector<BodyId> query_box(const Vec3& min, const Vec3& max, const BodyFilter& filter = {}) const;
    // Bodies that overlap or touch `shape` placed at `pose`, in body order.
    std::vector<BodyId> query_shape(const ShapePtr& shape, const Pose& pose,
                                    const BodyFilter& filter = {}) const;
    // `shape` (convex or a compound) moved without turning from `pose` by `translation` (non-zero): the
    // first body it touches (collision/shape_cast.h).
    std::optional<ShapeCastHit> cast_shape(const ShapePtr& shape, const Pose& pose, const Vec3& translation,
                                           const BodyFilter& filter = {}) const;
    // Every body the moved shape touches (its first touch of each), nearest first.
    std::vector<ShapeCastHit> cast_shape_all(const ShapePtr& shape, const Pose& pose, const Vec3& translation,
                                             const BodyFilter& filter = {}) const;
    // Bodies whose shape contains `point` or has it on its surface within kPointQueryTolerance, in body
    // order (collision/point_query.h: meshes are surfaces).
    std::vector<BodyId> query_point(const Vec3& point, const BodyFilter& filter = {}) const;

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
    void restore_step_start(std::size_t carried_events);
    void advance_substeps(double dt);
    double fastest_joint_rotation_rate() const;
    void wake_island(std::uint32_t slot);
    // Wakes what a static body holds or reaches: the partners of its touching pairs and the bodies whose
    // boxes overlap `bounds`. Sleeping islands are frozen against static bodies, so moving one must wake
    // them.
    void wake_around_static(std::uint32_t slot, const Aabb& bounds);
    void update_sleep(double dt);
    bool frozen(std::uint32_t slot) const { return bodies_[slot].is_static || bodies_[slot].asleep; }
    // The collision filters let the two bodies collide: groups and masks match and no joint between them
    // leaves out their collisions.
    bool filters_pass(std::uint32_t a, std::uint32_t b) const;
    // The stages of substep (world.cpp lists them in order), each in the file named for it.
    bool apply_forces(double dt);  // false if a velocity became non-finite
    void collision_stage(double dt);
    void build_constraints();
    void hold_in_plane();  // planar worlds: a planar joint row set per awake body (planar_world.cpp)
    SolverSettings solve_velocities(double dt);  // the solver settings of this substep
    bool reject_substep(double dt);              // true: rejected, velocities restored
    void update_contact_events();
    void begin_sweeps(double dt);
    void advance_positions(double dt);
    void project_positions(const SolverSettings& solver_settings);
    void stop_at_impacts();
    void sync_solver_bodies(bool to_solver);
    JointConstraint joint_constraint(const Joint& joint) const;  // the solver's view of a joint
    void collide_cables(double dt);  // cable_collision.cpp, part of the collision stage
    // speculative_manifolds.cpp: the collision stage sets aside the manifolds of two moving bodies whose
    // points keep their gaps over the substep at the bodies' motion; after a solve, those its velocities
    // reach go back (true if any did; with wake_all every set-aside manifold goes back then).
    void set_aside_unreachable_manifolds(double dt);
    bool wake_reached_manifolds(double dt, bool wake_all);
    void add_cable_contacts();  // cable_collision.cpp, part of build_constraints
    void move_cable_proxies(double dt);
    bool is_cable_point(std::uint32_t slot) const { return bodies_[slot].cable != kInvalidIndex; }
    BodyId id_of(std::uint32_t slot) const { return {slot, bodies_[slot].generation}; }
    void build_cable(const CableDesc& desc, std::uint32_t slot, std::span<const double> link, double length,
                     double total_mass, Cable& cable);                     // cable.cpp
    void release_cable_parts(const Cable& c);                              // cable.cpp
    std::vector<BodyId> query_candidates(const Aabb& box) const;           // queries.cpp
    const Body* filtered_body(BodyId id, const BodyFilter& filter) const;  // queries.cpp

    WorldSettings settings_;
    MaterialTable materials_;
    std::vector<Body> bodies_;
    std::vector<std::uint32_t> free_bodies_;
    std::size_t body_count_ = 0;
    std::uint64_t next_creation_order_ = 0;
    std::vector<Spring> springs_;
    std::vector<std::uint32_t> free_springs_;
    std::vector<Joint> joints_;
    std::vector<std::uint32_t> free_joints_;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> no_collide_pairs_;  // sorted (lo slot, hi slot)

    std::vector<Cable> cables_;
    std::vector<std::uint32_t> free_cables_;
    std::size_t cable_count_ = 0;
    struct SegmentRef {  // a broad-phase proxy's cable segment (user id kSegmentProxyBit | index)
        std::uint32_t cable = kInvalidIndex;
        std::uint32_t segment = 0;
    };
    std::vector<SegmentRef> segments_;
    std::vector<std::uint32_t> free_segments_;
    // A contact of a cable segment found by the collision stage: with a body (body != kInvalidIndex) or with
    // another cable's segment.
    struct CableTouch {
        std::uint32_t cable = 0, segment = 0;
        std::uint32_t body = kInvalidIndex;
        std::uint32_t other_cable = kInvalidIndex, other_segment = 0;
        std::uint32_t slot = 0;       // the contact's place among its pair's (warm-start key)
        Vec3 point = Vec3::Zero();    // between the two surfaces, world
        Vec3 normal = Vec3::UnitZ();  // unit, from the body (or the other cable) to the cable
        double depth = 0;
        std::array<double, 4> weights{}, other_weights{};
    };
    std::vector<CableTouch> cable_touches_;
    BroadPhase broad_phase_;
    Solver solver_;
    // Per-step buffers, reused.
    std::vector<Manifold> manifolds_;
    std::vector<BodyManifold> body_manifolds_;
    struct SetAsideManifold {
        std::uint32_t position;  // its index among all the manifolds of the collision stage
        BodyManifold manifold;
    };
    std::vector<SetAsideManifold> set_aside_;   // speculative_manifolds.cpp
    std::vector<std::uint32_t> kept_position_;  // body_manifolds_[i]'s index among all the manifolds
    std::vector<SetAsideManifold> woken_scratch_;
    std::vector<BodyManifold> merged_scratch_;
    std::vector<std::uint32_t> merged_position_;
    ManifoldCache manifold_cache_;
    CollisionStats collision_stats_;
    std::vector<SolverBody> solver_bodies_;
    std::vector<ContactConstraint> contacts_;
    std::vector<JointConstraint> joint_rows_;
    std::vector<std::uint32_t> joint_row_slot_;  // joint_rows_[i] is joints_[joint_row_slot_[i]]
    bool any_in_plane_ = false;                  // some body holds a plane (Body::in_plane)
    struct TouchingPair {
        std::uint64_t order_a, order_b;  // creation orders, order_a < order_b
        BodyId a, b;
        double impulse = 0;  // normal impulse of its points in the substep
    };
    std::vector<TouchingPair> touching_;  // sorted by creation orders
    std::vector<TouchingPair> touching_prev_;
    std::vector<ContactEvent> events_;
    std::vector<ContactEvent> pending_events_;   // from destroy_body, delivered with the next step
    std::vector<std::pair<Vec3, Vec3>> forces_;  // applied force and torque per body, kept over the substeps
    std::vector<std::pair<Vec3, Vec3>> velocity_backup_;  // velocities before a substep that may be rejected
    // Motion state of every body at the start of the step, restored if the step ends non-finite.
    struct MotionState {
        Vec3 com_position;
        Quat orientation;
        Vec3 velocity, angular_velocity;
    };
    std::vector<MotionState> step_start_;
    std::vector<Vec3>
        spin_before_solve_;    // angular velocities the solver started from (carry_angular_impulses)
    std::vector<Vec3> kicks_;  // velocity the external forces add in the current substep (SolverBody::kick)
    std::vector<std::uint32_t> island_parent_;  // union-find of the sleep test
    std::vector<char> island_restless_;
    std::vector<std::uint32_t> wake_next_step_;  // sleepers a resting body touched (collision_stage)
    struct SweepStart {  // a fast body's centre of mass and orientation before the positions advanced
        std::uint32_t slot;
        Vec3 com_position;
        Quat orientation;
    };
    std::vector<SweepStart> sweeps_;  // continuous.cpp

    double time_ = 0;  // sum of the steps' lengths
    std::uint64_t step_count_ = 0;
    double time_step_ = 0;            // length of the last step
    double time_at_step_change_ = 0;  // time when the step length last changed
    std::uint64_t steps_since_step_change_ = 0;
    int last_substeps_ = 1;
    // Per body: a Newton solve of an island holding it ran out its budget in this step
    // (SolverBody::newton_capped).
    std::vector<std::uint8_t> newton_capped_;
    double last_joint_drift_ = 0;
    double last_step_length_ = 0;  // of the last accepted substep (restagger_velocities); 0 before the first
};

}  // namespace simpulse
