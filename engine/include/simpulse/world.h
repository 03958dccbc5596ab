// The public embedding API of simpulse: a World of rigid bodies addressed by handles. Every call validates
// its input and reports a problem as an error value (result.h: an ErrorCode and a message naming the field);
// no exception escapes a call. Two Worlds are fully independent, and the same sequence of calls gives
// bit-identical results.
//
//   simpulse::World world;
//   auto ball = world.create_body({.shape = simpulse::create_sphere(0.1).value(), .pose = {{0, 0, 1}}});
//   for (int i = 0; i < 240; ++i) world.step(1.0 / 240);
//   auto state = world.state(ball.value());
#pragma once

#include <simpulse/result.h>
#include <simpulse/shapes.h>
#include <simpulse/types.h>
#include <simpulse/world_types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace simpulse {

class DynamicsWorld;  // the implementation (dynamics module), not part of the installed API
class World;
namespace detail {
// For simpulse's own tools and tests, which include the dynamics module's headers.
const DynamicsWorld& dynamics_of(const World& world);
}  // namespace detail

struct BodyState {
    Pose pose;                     // body frame (the shape's local origin)
    Vec3 velocity = Vec3::Zero();  // of the centre of mass, world
    Vec3 angular_velocity = Vec3::Zero();
};

struct BodyInfo {
    double mass = 0;  // 0 for static bodies
    Vec3 local_center_of_mass = Vec3::Zero();
    Mat3 inertia = Mat3::Zero();  // about the centre of mass, body axes
    bool is_static = false;
    MaterialId material = 0;
    std::uint64_t user_data = 0;
};

using ContactListener = std::function<void(const ContactEvent&)>;

class World {
  public:
    // A world with the default settings. Like constructing any standard container, it may throw
    // std::bad_alloc; every call after that reports out of memory as ErrorCode::out_of_memory.
    World();
    // A world with the given settings, or the first invalid setting ("solver.tolerance: expected ...").
    static Result<World> create(const WorldSettings& settings);
    ~World();
    // A World moved from is an empty World with the default settings (as after World()); it allocates its
    // state again on the first call that needs it.
    World(World&&) noexcept;
    World& operator=(World&&) noexcept;

    // Settings: gravity, solver mode and options, contact margins. Validated.
    const WorldSettings& settings() const;
    Status set_settings(const WorldSettings& settings);

    // Materials: id 0 is the default material (friction 0.5, restitution 0, density 1000). A world holds at
    // most 1024 (the default included; invalid_argument beyond).
    Result<MaterialId> add_material(const Material& material);
    Status set_material(MaterialId id, const Material& material);
    Status set_material_pair(MaterialId a, MaterialId b, double friction, double restitution);

    Result<BodyId> create_body(const BodyDesc& desc);
    Status destroy_body(BodyId id);
    bool is_valid(BodyId id) const;
    std::size_t body_count() const;
    Result<BodyState> state(BodyId id) const;
    Result<BodyInfo> info(BodyId id) const;
    Result<bool> is_asleep(BodyId id) const;
    Status set_state(BodyId id, const BodyState& state);
    Status set_pose(BodyId id, const Pose& pose);
    Status set_velocity(BodyId id, const Vec3& velocity);
    Status set_angular_velocity(BodyId id, const Vec3& angular_velocity);
    // Collision filtering (BodyDesc::collision_group, collision_mask), from the next step.
    Status set_collision_filter(BodyId id, std::uint32_t group, std::uint32_t mask);

    // Forces and torques act during the next step only; impulses change the velocity immediately.
    Status add_force(BodyId id, const Vec3& force);
    Status add_force_at_point(BodyId id, const Vec3& force, const Vec3& world_point);
    Status add_torque(BodyId id, const Vec3& torque);
    Status apply_impulse(BodyId id, const Vec3& impulse, const Vec3& world_point);
    Status apply_angular_impulse(BodyId id, const Vec3& angular_impulse);

    Result<SpringId> add_spring(const SpringDesc& desc);
    Status remove_spring(SpringId id);
    // Joints of every type (JointDesc::type: ball, hinge, fixed, slider, distance, planar); add_ball_joint is
    // the ball joint's short form.
    Result<JointId> add_joint(const JointDesc& desc);
    Result<JointId> add_ball_joint(const BallJointDesc& desc);
    Status remove_joint(JointId id);
    // How far a joint is from holding: positional error (m) or rotational error (rad), the larger.
    Result<double> joint_error(JointId id) const;
    double max_joint_error() const;
    // Force and torque the joint exerted on its body B in the last step.
    Result<JointReaction> joint_reaction(JointId id) const;

    // Cables (CableDesc; docs/cables.md): B-spline cables whose control points carry their mass, held by rods
    // (or springs) between neighbours, pinned to the world or to bodies, colliding with bodies and other
    // cables in the same simultaneous solve. Invalid descriptions give ErrorCode::invalid_argument naming the
    // field ("points[2]: ...", "pins[0].index: ...").
    Result<CableId> add_cable(const CableDesc& desc);
    Status remove_cable(CableId id);
    bool is_valid(CableId id) const;
    std::size_t cable_count() const;
    // The control points now, in order (world).
    Result<std::vector<Vec3>> cable_points(CableId id) const;
    Result<std::vector<Vec3>> cable_velocities(CableId id) const;
    // One finite velocity per control point.
    Status set_cable_velocities(CableId id, const std::vector<Vec3>& velocities);

    // Scene queries on the current poses, through the broad phase. A ray: a finite origin, a non-zero
    // direction (normalised) and max_distance > 0 (infinity allowed); it hits a solid shape it starts in at
    // distance 0, meshes and height fields from either side. `filter` (empty: every body) picks the bodies a
    // query sees; it may call any method of this World (the bodies it changes or destroys are looked up again
    // after it returns). Invalid arguments give ErrorCode::invalid_argument naming the field.
    Result<std::optional<RayCastHit>> cast_ray(const Vec3& origin, const Vec3& direction, double max_distance,
                                               const BodyFilter& filter = {}) const;
    // Every body the ray hits (its first hit on each), nearest first.
    Result<std::vector<RayCastHit>> cast_ray_all(const Vec3& origin, const Vec3& direction,
                                                 double max_distance, const BodyFilter& filter = {}) const;
    // Bodies whose bounding box overlaps the box [min, max], in creation-slot order.
    Result<std::vector<BodyId>> query_box(const Vec3& min, const Vec3& max,
                                          const BodyFilter& filter = {}) const;
    // Bodies that overlap or touch `shape` placed at `pose`. A static-only shape (plane, mesh, height field)
    // finds only bodies of other shapes: like two static bodies, two such shapes have no contact test.
    Result<std::vector<BodyId>> query_shape(const ShapePtr& shape, const Pose& pose,
                                            const BodyFilter& filter = {}) const;
    // A shape cast: `shape` (convex, or a compound of convex shapes) moved without turning from `pose` by
    // `translation` (finite, non-zero); the first body it touches (ShapeCastHit: at 0 when it starts
    // overlapping). Meshes and height fields are surfaces, touched from either side.
    Result<std::optional<ShapeCastHit>> cast_shape(const ShapePtr& shape, const Pose& pose,
                                                   const Vec3& translation,
                                                   const BodyFilter& filter = {}) const;
    // Every body the moved shape touches (its first touch of each), nearest first.
    Result<std::vector<ShapeCastHit>> cast_shape_all(const ShapePtr& shape, const Pose& pose,
                                                     const Vec3& translation,
                                                     const BodyFilter& filter = {}) const;
    // Bodies whose shape contains `point` or has it on its surface within kPointQueryTolerance, in
    // creation-slot order. Planes and height fields are solid below their surface; meshes are surfaces only.
    Result<std::vector<BodyId>> query_point(const Vec3& point, const BodyFilter& filter = {}) const;

    // Advances by dt. Fails with ErrorCode::non_finite_state (naming the body, or the cable and its control
    // point) if a state became non-finite; the world then keeps the last good state (poses and velocities at
    // the step's start, time not advanced).
    Status step(double dt);
    // The body, or the cable's control point, that became non-finite in the last step, if that step failed
    // with non_finite_state.
    std::optional<BodyId> non_finite_body() const;
    std::optional<CablePoint> non_finite_cable_point() const;
    // Substeps the last step was split into (WorldSettings::max_joint_rotation, max_impact_gap).
    int last_substeps() const;

    // Called at the end of each step for every contact_begin/contact_end of that step, in order, once the
    // step is complete (a failed step's non_finite_body() already set). The listener may call any method of
    // this World, step and set_contact_listener included: it goes on through the events of the step that
    // called it. What it throws propagates out of step(), the one exception to "no exception escapes".
    // Fails only with out_of_memory (the old listener is kept then).
    Status set_contact_listener(ContactListener listener);
    const std::vector<ContactEvent>& contact_events() const;  // of the last step
    // The manifolds the last step solved (its last substep): touching and speculative ones; not those of two
    // moving bodies whose relative motion could not close them (CollisionStats::set_aside).
    const std::vector<BodyManifold>& contact_manifolds() const;

    double time() const;
    std::uint64_t step_count() const;
    Energy energy() const;
    Vec3 linear_momentum() const;
    Vec3 angular_momentum(const Vec3& about = Vec3::Zero()) const;
    const SolverStats& solver_stats() const;
    const CollisionStats& collision_stats() const;  // pairs tested and pairs that reused their manifolds

  private:
    friend const DynamicsWorld& detail::dynamics_of(const World& world);
    // Null in a World moved from; const queries create it too (they are guarded like the other calls).
    mutable std::unique_ptr<DynamicsWorld> world_;
    std::shared_ptr<const ContactListener> listener_;  // shared: a listener may replace itself while it runs
    std::optional<BodyId> non_finite_body_;
    std::optional<CablePoint> non_finite_cable_point_;
};

}  // namespace simpulse
