// The public embedding API of simpulse: a World of rigid bodies addressed by handles. Every call validates
// its input and reports problems as error values; a World never throws. Two Worlds are fully independent, and
// the same sequence of calls gives bit-identical results.
//
//   simpulse::World world;
//   auto ball = world.create_body({.shape = simpulse::create_sphere(0.1).value(), .pose = {{0, 0, 1}}});
//   for (int i = 0; i < 240; ++i) world.step(1.0 / 240);
//   auto state = world.state(ball.value());
#pragma once

#include <simpulse/dynamics/world.h>
#include <simpulse/result.h>
#include <simpulse/shapes.h>

#include <functional>
#include <memory>

namespace simpulse {

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
    // Throws std::invalid_argument (naming the setting) when the settings are invalid; set_settings returns
    // the same error as a value.
    explicit World(const WorldSettings& settings = {});
    ~World();
    World(World&&) noexcept;
    World& operator=(World&&) noexcept;

    // Settings: gravity, solver mode and options, contact margins. Validated.
    const WorldSettings& settings() const;
    Status set_settings(const WorldSettings& settings);

    // Materials: id 0 is the default material (friction 0.5, restitution 0, density 1000).
    Result<MaterialId> add_material(const Material& material);
    Status set_material(MaterialId id, const Material& material);
    Status set_material_pair(MaterialId a, MaterialId b, double friction, double restitution);

    Result<BodyId> create_body(const BodyDesc& desc);
    Status destroy_body(BodyId id);
    bool is_valid(BodyId id) const;
    std::size_t body_count() const;
    Result<BodyState> state(BodyId id) const;
    Result<BodyInfo> info(BodyId id) const;
    Status set_state(BodyId id, const BodyState& state);
    Status set_pose(BodyId id, const Pose& pose);
    Status set_velocity(BodyId id, const Vec3& velocity);
    Status set_angular_velocity(BodyId id, const Vec3& angular_velocity);

    // Forces and torques act during the next step only; impulses change the velocity immediately.
    Status add_force(BodyId id, const Vec3& force);
    Status add_force_at_point(BodyId id, const Vec3& force, const Vec3& world_point);
    Status add_torque(BodyId id, const Vec3& torque);
    Status apply_impulse(BodyId id, const Vec3& impulse, const Vec3& world_point);
    Status apply_angular_impulse(BodyId id, const Vec3& angular_impulse);

    Result<SpringId> add_spring(const SpringDesc& desc);
    Status remove_spring(SpringId id);
    Result<JointId> add_ball_joint(const BallJointDesc& desc);
    Status remove_joint(JointId id);
    Result<double> joint_error(JointId id) const;
    double max_joint_error() const;

    // Advances by dt. Fails (and names the body) if a body's state became non-finite; the world then keeps
    // the state it reached.
    Status step(double dt);

    // Called at the end of each step for every contact_begin/contact_end of that step, in order.
    void set_contact_listener(ContactListener listener);
    const std::vector<ContactEvent>& contact_events() const;     // of the last step
    const std::vector<BodyManifold>& contact_manifolds() const;  // of the last step

    double time() const;
    std::uint64_t step_count() const;
    Energy energy() const;
    Vec3 linear_momentum() const;
    Vec3 angular_momentum(const Vec3& about = Vec3::Zero()) const;
    const SolverStats& solver_stats() const;
    const CollisionStats& collision_stats() const;  // pairs tested and pairs that reused their manifolds

    // Read-only access to the dynamics world (all bodies, springs, joints).
    const DynamicsWorld& dynamics() const;

  private:
    std::unique_ptr<DynamicsWorld> world_;
    ContactListener listener_;
};

}  // namespace simpulse
