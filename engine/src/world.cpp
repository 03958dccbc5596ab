// Public World: validates every call and turns the dynamics module's exceptions into error values (the
// contract of result.h); delivers contact events to the listener after each step.
#include <simpulse/world.h>

#include <simpulse/dynamics/settings_check.h>
#include <simpulse/dynamics/world.h>

#include "guarded.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace simpulse {

const char* to_string(ErrorCode code) {
    switch (code) {
        case ErrorCode::invalid_argument:
            return "invalid_argument";
        case ErrorCode::invalid_id:
            return "invalid_id";
        case ErrorCode::non_finite_state:
            return "non_finite_state";
        case ErrorCode::out_of_memory:
            return "out_of_memory";
        case ErrorCode::internal:
            return "internal";
    }
    return "internal";
}

namespace {

// "SETTING: expected ..., got ..." for the first invalid setting.
Status validate(const WorldSettings& settings) {
    return guarded([&] {
        if (const std::optional<SettingProblem> problem = find_setting_problem(settings))
            throw std::invalid_argument(problem->setting + ": " + problem->message);
    });
}

// A World moved from holds no DynamicsWorld and behaves as a new World with the default settings: the calls
// that may fail (guarded) create one on first use, so an allocation failure is an error value like any
// other; the plain accessors below answer as an empty world does.
DynamicsWorld& live(std::unique_ptr<DynamicsWorld>& world) {
    if (!world) world = std::make_unique<DynamicsWorld>();
    return *world;
}

const WorldSettings kDefaultSettings{};
const SolverStats kNoSolverStats{};
const CollisionStats kNoCollisionStats{};
const std::vector<ContactEvent> kNoEvents;
const std::vector<BodyManifold> kNoManifolds;

}  // namespace

const DynamicsWorld& detail::dynamics_of(const World& world) {
    return *world.world_;
}

World::World() : world_(std::make_unique<DynamicsWorld>()) {}

Result<World> World::create(const WorldSettings& settings) {
    if (Status s = validate(settings); !s) return s.error();
    return guarded_value<World>([&] {
        World world;
        world.world_->settings() = settings;
        return world;
    });
}
World::~World() = default;
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;

const WorldSettings& World::settings() const {
    return world_ ? world_->settings() : kDefaultSettings;
}

Status World::set_settings(const WorldSettings& settings) {
    if (Status s = validate(settings); !s) return s;
    return guarded([&] {
        live(world_).settings() = settings;
        live(world_).wake_all();  // a new gravity, or sleeping turned off, concerns the sleepers too
    });
}

Result<MaterialId> World::add_material(const Material& m) {
    return guarded_value<MaterialId>([&] { return live(world_).materials().add(m); });
}

Status World::set_material(MaterialId id, const Material& m) {
    return guarded([&] {
        live(world_).materials().set(id, m);
        live(world_).wake_all();  // less friction may set a resting body sliding
    });
}

Status World::set_material_pair(MaterialId a, MaterialId b, double friction, double restitution) {
    return guarded([&] {
        live(world_).materials().set_pair(a, b, {friction, restitution});
        live(world_).wake_all();
    });
}

Result<BodyId> World::create_body(const BodyDesc& desc) {
    return guarded_value<BodyId>([&] { return live(world_).create_body(desc); });
}

Status World::destroy_body(BodyId id) {
    return guarded([&] { live(world_).destroy_body(id); });
}

bool World::is_valid(BodyId id) const {
    return world_ && world_->is_valid(id);
}
std::size_t World::body_count() const {
    return world_ ? world_->body_count() : 0;
}

Result<BodyState> World::state(BodyId id) const {
    return guarded_value<BodyState>([&] {
        const Body& b = live(world_).body(id);
        return BodyState{b.pose(), b.velocity, b.angular_velocity};
    });
}

Result<BodyInfo> World::info(BodyId id) const {
    return guarded_value<BodyInfo>([&] {
        const Body& b = live(world_).body(id);
        return BodyInfo{b.mass,     b.local_center_of_mass, b.inertia_local, b.is_static, b.material,
                        b.user_data};
    });
}

Result<bool> World::is_asleep(BodyId id) const {
    return guarded_value<bool>([&] { return live(world_).is_asleep(id); });
}

Status World::set_state(BodyId id, const BodyState& state) {
    return guarded([&] {
        live(world_).body(id);  // an invalid id is reported before the values
        if (!state.velocity.allFinite()) throw std::invalid_argument("velocity: expected finite numbers");
        if (!state.angular_velocity.allFinite())
            throw std::invalid_argument("angular_velocity: expected finite numbers");
        live(world_).set_pose(id, state.pose);
        live(world_).set_velocity(id, state.velocity);
        live(world_).set_angular_velocity(id, state.angular_velocity);
    });
}

Status World::set_pose(BodyId id, const Pose& pose) {
    return guarded([&] { live(world_).set_pose(id, pose); });
}
Status World::set_velocity(BodyId id, const Vec3& v) {
    return guarded([&] { live(world_).set_velocity(id, v); });
}
Status World::set_collision_filter(BodyId id, std::uint32_t group, std::uint32_t mask) {
    return guarded([&] { live(world_).set_collision_filter(id, group, mask); });
}
Status World::set_angular_velocity(BodyId id, const Vec3& w) {
    return guarded([&] { live(world_).set_angular_velocity(id, w); });
}
Status World::add_force(BodyId id, const Vec3& f) {
    return guarded([&] { live(world_).add_force(id, f); });
}
Status World::add_force_at_point(BodyId id, const Vec3& f, const Vec3& p) {
    return guarded([&] { live(world_).add_force_at_point(id, f, p); });
}
Status World::add_torque(BodyId id, const Vec3& t) {
    return guarded([&] { live(world_).add_torque(id, t); });
}
Status World::apply_impulse(BodyId id, const Vec3& impulse, const Vec3& p) {
    return guarded([&] { live(world_).apply_impulse(id, impulse, p); });
}
Status World::apply_angular_impulse(BodyId id, const Vec3& impulse) {
    return guarded([&] { live(world_).apply_angular_impulse(id, impulse); });
}

Result<SpringId> World::add_spring(const SpringDesc& desc) {
    return guarded_value<SpringId>([&] { return live(world_).add_spring(desc); });
}
Status World::remove_spring(SpringId id) {
    return guarded([&] { live(world_).remove_spring(id); });
}
Result<JointId> World::add_joint(const JointDesc& desc) {
    return guarded_value<JointId>([&] { return live(world_).add_joint(desc); });
}
Result<JointId> World::add_ball_joint(const BallJointDesc& desc) {
    return guarded_value<JointId>([&] { return live(world_).add_ball_joint(desc); });
}
Status World::remove_joint(JointId id) {
    return guarded([&] { live(world_).remove_joint(id); });
}
Result<CableId> World::add_cable(const CableDesc& desc) {
    return guarded_value<CableId>([&] { return live(world_).add_cable(desc); });
}
Status World::remove_cable(CableId id) {
    return guarded([&] { live(world_).remove_cable(id); });
}
bool World::is_valid(CableId id) const {
    return world_ && world_->is_valid(id);
}
std::size_t World::cable_count() const {
    return world_ ? world_->cable_count() : 0;
}
Result<std::vector<Vec3>> World::cable_points(CableId id) const {
    return guarded_value<std::vector<Vec3>>([&] { return live(world_).cable_points(id); });
}
Status World::set_cable_velocities(CableId id, const std::vector<Vec3>& velocities) {
    return guarded([&] { live(world_).set_cable_velocities(id, velocities); });
}
Result<std::vector<Vec3>> World::cable_velocities(CableId id) const {
    return guarded_value<std::vector<Vec3>>([&] { return live(world_).cable_velocities(id); });
}
Result<double> World::joint_error(JointId id) const {
    return guarded_value<double>([&] { return live(world_).joint_error(id); });
}
double World::max_joint_error() const {
    return world_ ? world_->max_joint_error() : 0.0;
}
Result<JointReaction> World::joint_reaction(JointId id) const {
    return guarded_value<JointReaction>([&] { return live(world_).joint_reaction(id); });
}

Result<std::optional<RayCastHit>> World::cast_ray(const Vec3& origin, const Vec3& direction,
                                                  double max_distance, const BodyFilter& filter) const {
    return guarded_value<std::optional<RayCastHit>>(
        [&] { return live(world_).cast_ray(origin, direction, max_distance, filter); });
}
Result<std::vector<RayCastHit>> World::cast_ray_all(const Vec3& origin, const Vec3& direction,
                                                    double max_distance, const BodyFilter& filter) const {
    return guarded_value<std::vector<RayCastHit>>(
        [&] { return live(world_).cast_ray_all(origin, direction, max_distance, filter); });
}
Result<std::vector<BodyId>> World::query_box(const Vec3& min, const Vec3& max,
                                             const BodyFilter& filter) const {
    return guarded_value<std::vector<BodyId>>([&] { return live(world_).query_box(min, max, filter); });
}
Result<std::vector<BodyId>> World::query_shape(const ShapePtr& shape, const Pose& pose,
                                               const BodyFilter& filter) const {
    return guarded_value<std::vector<BodyId>>([&] { return live(world_).query_shape(shape, pose, filter); });
}
Result<std::optional<ShapeCastHit>> World::cast_shape(const ShapePtr& shape, const Pose& pose,
                                                      const Vec3& translation,
                                                      const BodyFilter& filter) const {
    return guarded_value<std::optional<ShapeCastHit>>(
        [&] { return live(world_).cast_shape(shape, pose, translation, filter); });
}
Result<std::vector<ShapeCastHit>> World::cast_shape_all(const ShapePtr& shape, const Pose& pose,
                                                        const Vec3& translation,
                                                        const BodyFilter& filter) const {
    return guarded_value<std::vector<ShapeCastHit>>(
        [&] { return live(world_).cast_shape_all(shape, pose, translation, filter); });
}
Result<std::vector<BodyId>> World::query_point(const Vec3& point, const BodyFilter& filter) const {
    return guarded_value<std::vector<BodyId>>([&] { return live(world_).query_point(point, filter); });
}

Status World::step(double dt) {
    non_finite_body_.reset();
    non_finite_cable_point_.reset();
    const Result<StepStatus> s = guarded_value<StepStatus>([&] { return live(world_).step(dt); });
    if (!s) return s.error();
    Status status;
    if (!s->ok) {
        std::ostringstream msg;
        if (s->cable_point) {
            non_finite_cable_point_ = s->cable_point;
            msg << "cable " << s->cable_point->cable.index << " point " << s->cable_point->index << ": ";
        } else {
            non_finite_body_ = s->body;
            msg << "body " << s->body.index << ": ";
        }
        msg << s->message;
        status = Error{ErrorCode::non_finite_state, msg.str()};
    }
    // The listener is the caller's code: what it throws is the caller's to catch. It may step this world or
    // replace itself, so it runs from copies of itself and of this step's events.
    if (const std::shared_ptr<const ContactListener> listener = listener_;
        listener && !world_->contact_events().empty()) {
        const std::vector<ContactEvent> events = world_->contact_events();
        for (const ContactEvent& e : events) (*listener)(e);
    }
    return status;
}

std::optional<BodyId> World::non_finite_body() const {
    return non_finite_body_;
}

std::optional<CablePoint> World::non_finite_cable_point() const {
    return non_finite_cable_point_;
}

int World::last_substeps() const {
    return world_ ? world_->last_substeps() : 1;
}

Status World::set_contact_listener(ContactListener listener) {
    return guarded([&] {
        listener_ = listener ? std::make_shared<const ContactListener>(std::move(listener)) : nullptr;
    });
}
const std::vector<ContactEvent>& World::contact_events() const {
    return world_ ? world_->contact_events() : kNoEvents;
}
const std::vector<BodyManifold>& World::contact_manifolds() const {
    return world_ ? world_->manifolds() : kNoManifolds;
}
double World::time() const {
    return world_ ? world_->time() : 0.0;
}
std::uint64_t World::step_count() const {
    return world_ ? world_->step_count() : 0;
}
Energy World::energy() const {
    return world_ ? world_->energy() : Energy{};
}
Vec3 World::linear_momentum() const {
    return world_ ? world_->linear_momentum() : Vec3(Vec3::Zero());
}
Vec3 World::angular_momentum(const Vec3& about) const {
    return world_ ? world_->angular_momentum(about) : Vec3(Vec3::Zero());
}
const SolverStats& World::solver_stats() const {
    return world_ ? world_->solver_stats() : kNoSolverStats;
}

const CollisionStats& World::collision_stats() const {
    return world_ ? world_->collision_stats() : kNoCollisionStats;
}

}  // namespace simpulse
