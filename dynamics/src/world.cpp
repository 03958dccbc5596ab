// DynamicsWorld: lifetime and bookkeeping of bodies, springs, joints and materials, and the queries of the
// world (energy, momenta); the step itself is in step.cpp.
#include <simpulse/collision/number_text.h>
#include <simpulse/collision/time_of_impact.h>
#include <simpulse/dynamics/errors.h>
#include <simpulse/dynamics/integrator.h>
#include <simpulse/dynamics/link_ends.h>
#include <simpulse/dynamics/world.h>

#include "world_checks.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string_view>

namespace simpulse {
using detail::allocate;
using detail::require;
using detail::require_id;
using detail::require_non_negative;
using detail::require_positive;
namespace {

bool finite(const Vec3& v) {
    return v.allFinite();
}

// The ends of a spring or joint follow the scene's rule (link_ends.h); the world frame is BodyId{}.
void require_link_ends(BodyId a, BodyId b, std::string_view what) {
    const LinkEndsProblem problem = link_ends_problem(a, b, BodyId{});
    if (problem != LinkEndsProblem::none)
        throw std::invalid_argument(
            link_ends_message(problem, what, "the world frame", "body " + std::to_string(a.index)));
}

// Called once both ends are known to be valid: an end is static if it is the world frame or a static body.
void require_dynamic_end(const std::vector<Body>& bodies, BodyId a, BodyId b, std::string_view what) {
    const auto is_static = [&](BodyId id) { return id == BodyId{} || bodies[id.index].is_static; };
    const auto name = [](BodyId id) {
        return id == BodyId{} ? std::string("the world frame") : "body " + std::to_string(id.index);
    };
    const LinkEndsProblem problem = link_statics_problem(is_static(a), is_static(b));
    if (problem != LinkEndsProblem::none)
        throw std::invalid_argument(link_ends_message(problem, what, "the world frame", name(a), name(b)));
}

std::pair<std::uint32_t, std::uint32_t> ordered(std::uint32_t a, std::uint32_t b) {
    return a < b ? std::pair{a, b} : std::pair{b, a};
}

// A shape far too small or too large for its density or mass under- or overflows its mass or inertia (a
// sphere of radius 1e-110 has no volume in doubles, one of 1e105 an infinite one); such a body would only
// spread NaN through the step, so it is refused with the figures.
void require_usable_mass(const MassProperties& mp) {
    const bool usable = std::isfinite(mp.mass) && mp.mass > 0 && std::isfinite(1.0 / mp.mass) &&
                        mp.center_of_mass.allFinite() && mp.inertia.allFinite() &&
                        mp.inertia.diagonal().minCoeff() > 0 && mp.inertia.inverse().allFinite();
    if (usable) return;
    throw std::invalid_argument("shape: the mass properties are out of the double range (mass " +
                                number_text(mp.mass) + " kg, inertia diagonal " +
                                number_text(mp.inertia(0, 0)) + ", " + number_text(mp.inertia(1, 1)) + ", " +
                                number_text(mp.inertia(2, 2)) +
                                " kg m^2): the shape is too small or too large for its density or mass");
}

// Planes are unbounded by design; any other shape whose box overflows (a static capsule of radius 1.7e308,
// a mesh placed near the end of the double range) would reach the broad phase and the contact tests with
// infinite coordinates, and the step would fail later on a body that did nothing wrong.
void require_finite_bounds(const Aabb& bounds, ShapeType type) {
    if (type == ShapeType::plane || (bounds.min.allFinite() && bounds.max.allFinite())) return;
    throw std::invalid_argument(std::string("pose: the bounding box is not finite: the ") +
                                shape_type_name(type) +
                                " reaches beyond the double range at this position (only planes may be "
                                "unbounded)");
}

// A new body's state from its description (mass properties, placement, bounds), without a slot or proxy yet.
Body body_from(const BodyDesc& desc, double contact_margin) {
    Body b;
    b.shape = desc.shape;
    b.material = desc.material;
    b.user_data = desc.user_data;
    b.ccd = desc.ccd;
    b.collision_group = desc.collision_group;
    b.collision_mask = desc.collision_mask;
    b.is_static = desc.is_static;
    b.orientation = desc.pose.orientation.normalized();
    if (!desc.is_static) {
        require_positive(desc.density, "density");
        MassProperties mp = compute_mass_properties(*desc.shape, desc.density);
        if (desc.mass) {
            require_positive(*desc.mass, "mass");
            mp = with_mass(mp, *desc.mass);
        }
        require_usable_mass(mp);
        b.mass = mp.mass;
        b.inverse_mass = 1.0 / mp.mass;
        b.inertia_local = mp.inertia;
        b.inverse_inertia_local = mp.inertia.inverse();
        b.local_center_of_mass = mp.center_of_mass;
        b.velocity = desc.velocity;
        b.angular_velocity = desc.angular_velocity;
        const Aabb local = compute_aabb(*b.shape, Pose{});
        const Vec3 reach = (local.max - b.local_center_of_mass)
                               .cwiseAbs()
                               .cwiseMax((local.min - b.local_center_of_mass).cwiseAbs());
        b.bounding_radius = reach.norm();
        b.smallest_extent = smallest_extent(*b.shape);
    }
    b.com_position = desc.pose.position + b.orientation * b.local_center_of_mass;
    b.inverse_inertia_world = world_inverse_inertia(b.orientation, b.inverse_inertia_local);
    b.bounds = compute_aabb(*b.shape, b.pose()).inflated(0.5 * contact_margin);
    require_finite_bounds(b.bounds, b.shape->type());
    return b;
}

}  // namespace

Pose checked_pose(const Pose& pose) {
    require(finite(pose.position) && pose.orientation.coeffs().allFinite(), "pose: expected finite numbers");
    const double norm = pose.orientation.norm();
    require(std::abs(norm - 1.0) < 1e-6,
            "pose.orientation: expected a unit quaternion, got norm " + number_text(norm));
    return {pose.position, pose.orientation.normalized()};
}

DynamicsWorld::DynamicsWorld(const WorldSettings& settings)
    : settings_(settings), broad_phase_(BroadPhaseSettings{.margin = settings.aabb_margin}) {}

BodyId DynamicsWorld::create_body(const BodyDesc& desc) {
    require(desc.shape != nullptr, "shape: expected a shape, got none");
    (void)checked_pose(desc.pose);
    require(finite(desc.velocity), "velocity: expected finite numbers");
    require(finite(desc.angular_velocity), "angular_velocity: expected finite numbers");
    require_id(desc.material < materials_.size(), "material");
    const ShapeType type = desc.shape->type();
    require(desc.is_static || !is_static_only(type),
            std::string("is_static: a ") + shape_type_name(type) +
                " body must be static (planes, meshes and height fields have no volume)");

    // Everything that can fail happens before a slot is taken: a failed call leaves the world as it was.
    Body body = body_from(desc, settings_.contact_margin);
    broad_phase_.set_margin(settings_.aabb_margin);  // settings() may have changed it since construction
    const std::uint32_t slot = allocate(bodies_, free_bodies_);
    try {
        body.proxy = broad_phase_.add(body.bounds, slot, body.is_static);
    } catch (...) {
        free_bodies_.push_back(slot);
        throw;
    }
    body.generation = bodies_[slot].generation + 1;
    body.alive = true;
    body.creation_order = next_creation_order_++;
    bodies_[slot] = std::move(body);
    ++body_count_;
    return {slot, bodies_[slot].generation};
}

void DynamicsWorld::destroy_body(BodyId id) {
    require_id(is_valid(id), "body id");
    Body& b = bodies_[id.index];
    // Touching pairs of this body end now; report them with the next step's events.
    for (std::size_t i = 0; i < touching_.size(); ++i) {
        const TouchingPair& p = touching_[i];
        if (p.a == id || p.b == id) {
            wake_island(p.a == id ? p.b.index : p.a.index);  // whatever rested on it must move again
            pending_events_.push_back({ContactEvent::Type::end, time_, p.a, p.b, p.order_a, p.order_b});
            touching_.erase(touching_.begin() + static_cast<std::ptrdiff_t>(i));
            --i;
        }
    }
    for (const Spring& s : springs_)  // remove_spring wakes the other end, which the spring held
        if (s.alive && (s.body_a == id.index || s.body_b == id.index))
            remove_spring({static_cast<std::uint32_t>(&s - springs_.data()), s.generation});
    for (Joint& j : joints_)
        if (j.alive && (j.body_a == id.index || j.body_b == id.index))
            remove_joint({static_cast<std::uint32_t>(&j - joints_.data()), j.generation});
    for (Cable& c : cables_)  // the slot may be reused by a body the cable should collide with
        std::erase(c.pinned_to, id.index);
    broad_phase_.remove(b.proxy);
    b.alive = false;
    b.shape.reset();
    free_bodies_.push_back(id.index);
    --body_count_;
}

bool DynamicsWorld::is_valid(BodyId id) const {
    return id.index < bodies_.size() && bodies_[id.index].alive &&
           bodies_[id.index].generation == id.generation && bodies_[id.index].cable == kInvalidIndex;
}

const Body& DynamicsWorld::body(BodyId id) const {
    require_id(is_valid(id), "body id");
    return bodies_[id.index];
}

Body& DynamicsWorld::body_mut(BodyId id) {
    require_id(is_valid(id), "body id");
    return bodies_[id.index];
}

void DynamicsWorld::set_pose(BodyId id, const Pose& pose) {
    const Pose placed = checked_pose(pose);
    Body& b = body_mut(id);
    // Checked before anything changes, so a refused pose leaves the body where it was.
    const Aabb bounds = compute_aabb(*b.shape, placed).inflated(0.5 * settings_.contact_margin);
    require_finite_bounds(bounds, b.shape->type());
    b.orientation = placed.orientation;
    b.com_position = placed.transform_point(b.local_center_of_mass);
    b.inverse_inertia_world = world_inverse_inertia(b.orientation, b.inverse_inertia_local);
    const Aabb old_bounds = b.bounds;
    b.bounds = bounds;
    b.in_plane = false;  // a planar world holds it in the plane of its new pose
    broad_phase_.move(b.proxy, b.bounds, Vec3::Zero());
    if (b.is_static) {
        wake_around_static(id.index, old_bounds);  // what it held
        wake_around_static(id.index, bounds);      // what it now reaches
    }
    wake(id);
}

void DynamicsWorld::set_velocity(BodyId id, const Vec3& velocity) {
    require(finite(velocity), "velocity: expected finite numbers");
    wake(id);
    Body& b = body_mut(id);
    if (!b.is_static) b.velocity = velocity;
}

void DynamicsWorld::set_collision_filter(BodyId id, std::uint32_t group, std::uint32_t mask) {
    Body& b = body_mut(id);
    b.collision_group = group;
    b.collision_mask = mask;
    if (!b.is_static)
        wake(id);  // a body resting on what it no longer collides with must fall
    else
        wake_around_static(id.index, b.bounds);
}

void DynamicsWorld::set_angular_velocity(BodyId id, const Vec3& angular_velocity) {
    require(finite(angular_velocity), "angular_velocity: expected finite numbers");
    wake(id);
    Body& b = body_mut(id);
    if (!b.is_static) b.angular_velocity = angular_velocity;
}

// The accumulators and velocities these calls change must stay finite: finite inputs can overflow them
// (an impulse of 1e306 N s on a gram), and a non-finite velocity would fail every later step, each rolled
// back to it. Checked before the body is touched, so a refused call changes nothing.
namespace {
Vec3 checked_sum(const Vec3& sum, const char* what) {
    require(finite(sum), std::string(what) + ": the result overflows a double");
    return sum;
}
}  // namespace

void DynamicsWorld::add_force(BodyId id, const Vec3& force) {
    require(finite(force), "force: expected finite numbers");
    Body& b = body_mut(id);
    if (b.is_static) return wake(id);
    b.force = checked_sum(b.force + force, "force (the body's accumulated force)");
    wake(id);
}

void DynamicsWorld::add_force_at_point(BodyId id, const Vec3& force, const Vec3& point) {
    require(finite(force), "force: expected finite numbers");
    require(finite(point), "point: expected finite numbers");
    Body& b = body_mut(id);
    if (b.is_static) return wake(id);
    const Vec3 f = checked_sum(b.force + force, "force (the body's accumulated force)");
    b.torque =
        checked_sum(b.torque + (point - b.com_position).cross(force), "point (the torque of the force)");
    b.force = f;
    wake(id);
}

void DynamicsWorld::add_torque(BodyId id, const Vec3& torque) {
    require(finite(torque), "torque: expected finite numbers");
    Body& b = body_mut(id);
    if (!b.is_static) b.torque = checked_sum(b.torque + torque, "torque (the body's accumulated torque)");
    wake(id);
}

void DynamicsWorld::apply_impulse(BodyId id, const Vec3& impulse, const Vec3& point) {
    require(finite(impulse), "impulse: expected finite numbers");
    require(finite(point), "point: expected finite numbers");
    Body& b = body_mut(id);
    if (b.is_static) return wake(id);
    const Vec3 v = checked_sum(b.velocity + b.inverse_mass * impulse, "impulse (the velocity it gives)");
    b.angular_velocity =
        checked_sum(b.angular_velocity + b.inverse_inertia_world * (point - b.com_position).cross(impulse),
                    "impulse (the angular velocity it gives)");
    b.velocity = v;
    wake(id);
}

void DynamicsWorld::apply_angular_impulse(BodyId id, const Vec3& angular_impulse) {
    require(finite(angular_impulse), "angular_impulse: expected finite numbers");
    Body& b = body_mut(id);
    if (!b.is_static)
        b.angular_velocity = checked_sum(b.angular_velocity + b.inverse_inertia_world * angular_impulse,
                                         "angular_impulse (the angular velocity it gives)");
    wake(id);
}

SpringId DynamicsWorld::add_spring(const SpringDesc& desc) {
    require_non_negative(desc.stiffness, "stiffness");
    require_non_negative(desc.damping, "damping");
    require(finite(desc.anchor_a), "anchor_a: expected finite numbers");
    require(finite(desc.anchor_b), "anchor_b: expected finite numbers");
    // The spring's length is the norm of the anchors' difference; past ~1e154 its square overflows, and a
    // rest length defaulted to that distance (scenes) is infinite although none was given.
    require(std::isfinite((desc.anchor_b - desc.anchor_a).squaredNorm()),
            "anchor_b: too far from anchor_a (the square of their distance overflows a double)");
    require_non_negative(desc.rest_length, "rest_length");
    require_link_ends(desc.body_a, desc.body_b, "a spring");
    const bool world_a = desc.body_a == BodyId{}, world_b = desc.body_b == BodyId{};
    require_id(world_a || is_valid(desc.body_a), "body_a");
    require_id(world_b || is_valid(desc.body_b), "body_b");
    require_dynamic_end(bodies_, desc.body_a, desc.body_b, "a spring");
    if (!world_a) wake(desc.body_a);
    if (!world_b) wake(desc.body_b);
    const std::uint32_t slot = allocate(springs_, free_springs_);
    Spring& s = springs_[slot];
    s.body_a = world_a ? kInvalidIndex : desc.body_a.index;
    s.body_b = world_b ? kInvalidIndex : desc.body_b.index;
    s.local_a = world_a ? desc.anchor_a : bodies_[s.body_a].pose().inverse_transform_point(desc.anchor_a);
    s.local_b = world_b ? desc.anchor_b : bodies_[s.body_b].pose().inverse_transform_point(desc.anchor_b);
    s.stiffness = desc.stiffness;
    s.damping = desc.damping;
    s.rest_length = desc.rest_length;
    s.generation += 1;
    s.alive = true;
    return {slot, s.generation};
}

void DynamicsWorld::remove_spring(SpringId id) {
    require_id(is_valid(id), "spring id");
    const Spring& s = springs_[id.index];
    for (const std::uint32_t end : {s.body_a, s.body_b})  // what the spring held moves again
        if (end != kInvalidIndex) wake_island(end);
    springs_[id.index].alive = false;
    free_springs_.push_back(id.index);
}

bool DynamicsWorld::is_valid(SpringId id) const {
    return id.index < springs_.size() && springs_[id.index].alive &&
           springs_[id.index].generation == id.generation;
}

JointId DynamicsWorld::add_ball_joint(const BallJointDesc& desc) {
    JointDesc joint;
    joint.body_a = desc.body_a;
    joint.body_b = desc.body_b;
    joint.anchor = desc.anchor;
    joint.collide_connected = desc.collide_connected;
    return add_joint(joint);
}

namespace {

// A right-handed frame whose x axis is `axis` (unit).
Quat frame_along(const Vec3& axis) {
    const Vec3 helper = std::abs(axis.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
    const Vec3 y = axis.cross(helper).normalized();
    Mat3 m;
    m.col(0) = axis;
    m.col(1) = y;
    m.col(2) = axis.cross(y);
    return Quat(m).normalized();
}

// The distance joint's [min, max] from the description and the anchors' distance now.
std::pair<double, double> distance_range(const JointDesc& desc, double distance) {
    const bool min_given = desc.min_length >= 0, max_given = desc.max_length >= 0;
    if (!min_given && !max_given) {
        if (!(distance > 0))
            throw std::invalid_argument(
                "anchor_b: a distance joint without lengths keeps its anchors' distance, so they must be "
                "apart");
        return {distance, distance};
    }
    const double lo = min_given ? desc.min_length : 0.0;
    const double hi = max_given ? desc.max_length : std::numeric_limits<double>::infinity();
    if (!(lo <= hi))
        throw std::invalid_argument("min_length: expected at most max_length (" + number_text(hi) +
                                    "), got " + number_text(lo));
    if (!(hi > 0)) throw std::invalid_argument("max_length: expected a positive length, got 0");
    return {lo, hi};
}

}  // namespace

JointId DynamicsWorld::add_joint(const JointDesc& desc) {
    require(std::string_view(to_string(desc.type)) != "unknown",
            "type: expected a JointType (ball, hinge, fixed, slider, distance or planar), got " +
                std::to_string(static_cast<int>(desc.type)));
    require(finite(desc.anchor), "anchor: expected finite numbers");
    require(finite(desc.anchor_b), "anchor_b: expected finite numbers");
    require(finite(desc.axis), "axis: expected finite numbers");
    require(std::isfinite(desc.min_length), "min_length: expected a finite number (negative: unset)");
    require(std::isfinite(desc.max_length) || desc.max_length == std::numeric_limits<double>::infinity(),
            "max_length: expected a number (negative: unset)");
    const bool has_limits = desc.type == JointType::hinge || desc.type == JointType::slider;
    const bool has_axis = has_limits || desc.type == JointType::planar;
    require(!has_axis || desc.axis.stableNorm() > 1e-12, "axis: expected a non-zero direction");
    if (desc.motor.enabled) {
        require(has_limits, "motor: only hinge and slider joints have motors");
        require(std::isfinite(desc.motor.speed), "motor.speed: expected a finite number");
        require_non_negative(desc.motor.max_force, "motor.max_force");
    }
    if (desc.limit.enabled) {
        require(has_limits,
                "limit: only hinge and slider joints have limits (distance joints: min/max_length)");
        require(!std::isnan(desc.limit.lower) && !std::isnan(desc.limit.upper),
                "limit.lower, limit.upper: expected numbers");
        require(desc.limit.lower <= desc.limit.upper, "limit.lower: expected at most limit.upper (" +
                                                          number_text(desc.limit.upper) + "), got " +
                                                          number_text(desc.limit.lower));
        const double pi = std::numbers::pi;
        require(desc.type != JointType::hinge || (desc.limit.lower >= -pi && desc.limit.upper <= pi),
                "limit.lower, limit.upper: a hinge's limits are angles in [-pi, pi], got [" +
                    number_text(desc.limit.lower) + ", " + number_text(desc.limit.upper) + "]");
    }
    require(desc.limit.restitution >= 0 && desc.limit.restitution <= 1,
            "limit.restitution: expected a number in [0, 1], got " + number_text(desc.limit.restitution));
    require(desc.limit.restitution == 0 || has_limits || desc.type == JointType::distance,
            "limit.restitution: only hinge, slider and distance joints have limits");
    require_link_ends(desc.body_a, desc.body_b, "a joint");
    const bool world_b = desc.body_b == BodyId{};
    require_id(is_valid(desc.body_a), "body_a");
    require_id(world_b || is_valid(desc.body_b), "body_b");
    require_dynamic_end(bodies_, desc.body_a, desc.body_b, "a joint");
    const bool distance = desc.type == JointType::distance;
    const Vec3 anchor_b = distance ? desc.anchor_b : desc.anchor;
    std::pair<double, double> range{0, 0};
    if (distance) range = distance_range(desc, (anchor_b - desc.anchor).norm());
    wake(desc.body_a);
    if (!world_b) wake(desc.body_b);
    const std::uint32_t slot = allocate(joints_, free_joints_);
    Joint& j = joints_[slot];
    j.type = desc.type;
    j.body_a = desc.body_a.index;
    j.body_b = world_b ? kInvalidIndex : desc.body_b.index;
    // An axis with components beyond ~1e154 overflows the plain norm's square (its unit vector would be
    // zero).
    const Vec3 axis =
        std::isfinite(desc.axis.squaredNorm()) ? desc.axis.normalized() : desc.axis.stableNormalized();
    const Quat frame = has_axis ? frame_along(axis) : Quat::Identity();
    const Pose pose_a = bodies_[j.body_a].pose();
    j.local_a = pose_a.inverse_transform_point(desc.anchor);
    j.frame_a = (pose_a.orientation.conjugate() * frame).normalized();
    if (world_b) {
        j.local_b = anchor_b;
        j.frame_b = frame;
    } else {
        const Pose pose_b = bodies_[j.body_b].pose();
        j.local_b = pose_b.inverse_transform_point(anchor_b);
        j.frame_b = (pose_b.orientation.conjugate() * frame).normalized();
    }
    j.min_length = range.first;
    j.max_length = range.second;
    j.limit = desc.limit.enabled ? desc.limit : JointLimit{.restitution = desc.limit.restitution};
    j.motor = desc.motor.enabled ? desc.motor : JointMotor{};
    j.reaction = {};
    j.collide_connected = desc.collide_connected;
    j.generation += 1;
    j.alive = true;
    if (!world_b && !j.collide_connected) {
        const auto key = ordered(j.body_a, j.body_b);
        no_collide_pairs_.insert(std::lower_bound(no_collide_pairs_.begin(), no_collide_pairs_.end(), key),
                                 key);
    }
    return {slot, j.generation};
}

void DynamicsWorld::remove_joint(JointId id) {
    require_id(is_valid(id), "joint id");
    Joint& j = joints_[id.index];
    for (const std::uint32_t end : {j.body_a, j.body_b})  // what the joint held moves again
        if (end != kInvalidIndex) wake_island(end);
    if (j.body_b != kInvalidIndex && !j.collide_connected) {
        const auto it =
            std::lower_bound(no_collide_pairs_.begin(), no_collide_pairs_.end(), ordered(j.body_a, j.body_b));
        if (it != no_collide_pairs_.end()) no_collide_pairs_.erase(it);
    }
    j.alive = false;
    free_joints_.push_back(id.index);
}

bool DynamicsWorld::is_valid(JointId id) const {
    return id.index < joints_.size() && joints_[id.index].alive &&
           joints_[id.index].generation == id.generation;
}

double DynamicsWorld::joint_error(JointId id) const {
    require_id(is_valid(id), "joint id");
    const Joint& j = joints_[id.index];
    // The solver's own error of the joint's rows, on the two bodies' poses (as bodies 0 and 1).
    JointConstraint c = joint_constraint(j);
    std::array<SolverBody, 2> ends;
    ends[0].position = bodies_[j.body_a].com_position;
    ends[0].orientation = bodies_[j.body_a].orientation;
    c.body_a = 0;
    if (j.body_b != kInvalidIndex) {
        ends[1].position = bodies_[j.body_b].com_position;
        ends[1].orientation = bodies_[j.body_b].orientation;
        c.body_b = 1;
    }
    return simpulse::joint_error(c, ends);
}

JointReaction DynamicsWorld::joint_reaction(JointId id) const {
    require_id(is_valid(id), "joint id");
    return joints_[id.index].reaction;
}

double DynamicsWorld::max_joint_error() const {
    double e = 0;
    for (std::uint32_t i = 0; i < joints_.size(); ++i)
        if (joints_[i].alive) e = std::max(e, joint_error({i, joints_[i].generation}));
    return e;
}

void DynamicsWorld::wake(BodyId id) {
    require_id(is_valid(id), "body id");
    wake_island(id.index);
}

void DynamicsWorld::wake_all() {
    for (Body& b : bodies_)
        if (b.alive && !b.is_static) b.asleep = false, b.sleep_time = 0;
}

Energy DynamicsWorld::energy() const {
    Energy e;
    for (const Body& b : bodies_) {
        if (!b.alive || b.is_static) continue;
        e.kinetic += 0.5 * b.mass * b.velocity.squaredNorm() +
                     0.5 * b.angular_velocity.dot(b.inertia_world() * b.angular_velocity);
        e.potential -= b.mass * settings_.gravity.dot(b.com_position);
    }
    e.potential += spring_energy(springs_, bodies_) + cable_bending_energy(cables_, bodies_);
    return e;
}

Vec3 DynamicsWorld::linear_momentum() const {
    Vec3 p = Vec3::Zero();
    for (const Body& b : bodies_)
        if (b.alive && !b.is_static) p += b.mass * b.velocity;
    return p;
}

Vec3 DynamicsWorld::angular_momentum(const Vec3& about) const {
    Vec3 l = Vec3::Zero();
    for (const Body& b : bodies_)
        if (b.alive && !b.is_static)
            l += (b.com_position - about).cross(b.mass * b.velocity) + b.inertia_world() * b.angular_velocity;
    return l;
}

}  // namespace simpulse
