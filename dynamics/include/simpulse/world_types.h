// Public value types of the dynamics world: handles, creation descriptors (suffix Desc), materials, world
// settings, contact events and step statistics. Part of the installed API (simpulse/world.h uses them).
#pragma once

#include <simpulse/solver_settings.h>
#include <simpulse/types.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

namespace simpulse {

inline constexpr std::uint32_t kInvalidIndex = std::numeric_limits<std::uint32_t>::max();

// Handles are generational: an id stays invalid after its object is removed, even if the slot is reused.
struct BodyId {
    std::uint32_t index = kInvalidIndex;
    std::uint32_t generation = 0;
    friend bool operator==(const BodyId&, const BodyId&) = default;
};

using MaterialId = std::uint32_t;  // 0 is the default material

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

// A contact between two materials uses the pair's own friction and restitution if it has them
// (World::set_material_pair), else the mean of the two materials' values.
struct Material {
    double friction = 0.5;
    double restitution = 0;
    double density = 1000;
};

struct BodyDesc {
    ShapePtr shape{};
    Pose pose{};                           // body frame in the world
    Vec3 velocity = Vec3::Zero();          // of the centre of mass, world
    Vec3 angular_velocity = Vec3::Zero();  // world, rad/s
    bool is_static = false;
    double density = 1000;         // used when mass is not given
    std::optional<double> mass{};  // overrides density (inertia scaled to match)
    MaterialId material = 0;
    std::uint64_t user_data = 0;
    // Collision filtering: two bodies collide only when each one's group shares a bit with the other's mask,
    // (a.group & b.mask) != 0 and (b.group & a.mask) != 0. By default every body is in group 1 and collides
    // with every group.
    std::uint32_t collision_group = 1;
    std::uint32_t collision_mask = 0xffffffffu;
    // Continuous collision: the body's contacts are sought over the distance it can move in a step
    // (speculative contacts), so a fast body is stopped before it passes through another, and a body that
    // moves more than half its smallest extent in a step is swept against static shapes and put back to its
    // time of impact (exact solver mode). false: only within the contact margin, no sweep (cheaper for many
    // fast bodies that need not stop, e.g. debris).
    bool ccd = true;
};

struct SpringDesc {
    BodyId body_a{};  // an invalid id means the fixed world frame
    BodyId body_b{};
    Vec3 anchor_a = Vec3::Zero();  // world points at the configuration when the spring is added
    Vec3 anchor_b = Vec3::Zero();
    double stiffness = 0;    // N/m, >= 0
    double damping = 0;      // N s/m, >= 0
    double rest_length = 0;  // m, >= 0
};

struct BallJointDesc {
    BodyId body_a{};
    BodyId body_b{};                 // an invalid id means the fixed world frame
    Vec3 anchor = Vec3::Zero();      // world point at the configuration when the joint is added
    bool collide_connected = false;  // whether the two jointed bodies still collide with each other
};

// A joint of any type (JointType): world points and directions at the configuration when it is added.
struct JointDesc {
    JointType type = JointType::ball;
    BodyId body_a{};
    BodyId body_b{};               // an invalid id means the fixed world frame
    Vec3 anchor = Vec3::Zero();    // the joint point (distance joints: the anchor on A)
    Vec3 anchor_b = Vec3::Zero();  // distance joints: the anchor on B
    Vec3 axis = Vec3::UnitX();     // hinge and slider: the axis (non-zero; normalised)
    // Distance joints: the anchors' distance stays in [min_length, max_length], m; a negative value means the
    // distance when the joint is added (both negative: a rod of that length).
    double min_length = -1;
    double max_length = -1;
    // Hinge and slider: a limit on the angle or travel (its restitution also applies at a distance joint's
    // min and max length) and a motor (JointLimit, JointMotor).
    JointLimit limit{};
    JointMotor motor{};
    bool collide_connected = false;  // whether the two jointed bodies still collide with each other
};

struct CableId {
    std::uint32_t index = kInvalidIndex;
    std::uint32_t generation = 0;
    friend bool operator==(const CableId&, const CableId&) = default;
};

// One control point of a cable: `index` in the order of CableDesc::points.
struct CablePoint {
    CableId cable;
    std::uint32_t index = 0;
};

// A control point of a cable held where it is when the cable is added: to the world (an invalid body id) or
// to a body, which then carries it (a ball joint at the point).
struct CablePin {
    std::uint32_t index = 0;  // into CableDesc::points
    BodyId body{};
};

// A cable (docs/cables.md): a chain of uniform cubic B-spline segments of radius `radius` over the control
// points, which carry the cable's mass. Neighbouring control points keep their distance (a rod row in the
// simultaneous solve) unless stretch_stiffness is finite; bending is a spring on each interior point's
// offset from the midpoint of its neighbours. Contacts with bodies and other cables act at the centreline
// and are spread over a segment's four control points by the B-spline basis weights.
struct CableDesc {
    std::vector<Vec3> points;  // control points, world, at least 4, neighbours apart
    double radius = 0.01;      // m, > 0
    // Total mass, kg (> 0); else density (kg/m^3) times pi r^2 times the control polygon's length. Each
    // control point carries the mass of half of each link next to it.
    std::optional<double> mass{};
    double density = 1000;
    MaterialId material = 0;
    std::vector<CablePin> pins{};
    // Axial stiffness EA, N (force per unit strain): a spring of EA / L0 along each link of rest length L0.
    // Infinity (the default): links are rods, held exactly by the solver (a nearly inextensible rope).
    double stretch_stiffness = std::numeric_limits<double>::infinity();
    // Bending stiffness EI, N m^2 (>= 0; 0: a rope): each interior point i is pulled towards the midpoint m
    // of points i-1 and i+1 by a spring of 4 EI / L^3 (L the mean of its two links' rest lengths), whose
    // energy 2 EI |x_i - m|^2 / L^3 is EI theta^2 / (2 L) for a small bend angle theta.
    double bend_stiffness = 0;
    std::uint32_t collision_group = 1;  // as BodyDesc
    std::uint32_t collision_mask = 0xffffffffu;
};

// Scene queries (World::cast_ray, cast_shape, query_box, query_shape, query_point): which bodies a query
// sees; empty: all of them.
using BodyFilter = std::function<bool(BodyId)>;

// A ray's hit on a body: `distance` along the unit direction (0 when the ray starts inside a solid shape),
// the world point and the surface's outward normal there.
struct RayCastHit {
    BodyId body;
    double distance = 0;
    Vec3 point = Vec3::Zero();
    Vec3 normal = Vec3::UnitZ();
};

// How far outside a shape's surface a point may lie and still count as on it (World::query_point), m: the
// rounding of the shapes' closed forms and of GJK's distance at metre scale, well below any contact margin.
inline constexpr double kPointQueryTolerance = 1e-9;

// A shape cast's hit on a body: the moved shape first touches it after `fraction` (in [0, 1]) of the
// translation, `distance` = fraction * |translation| metres; the world point on the body where it touches and
// the normal there, unit, from the body towards the cast shape (against the motion). A shape that overlaps
// the body at the start hits it at 0, with the normal against the translation and the point at the shape's
// start position.
struct ShapeCastHit {
    BodyId body;
    double fraction = 0;
    double distance = 0;
    Vec3 point = Vec3::Zero();
    Vec3 normal = Vec3::UnitZ();
};

// What a joint exerted on body B during the last step (A received the opposite): force at B's anchor, N, and
// a pure torque, N m.
struct JointReaction {
    Vec3 force = Vec3::Zero();
    Vec3 torque = Vec3::Zero();
};

// The default max_impact_gap, m.
inline constexpr double kDefaultImpactGap = 1e-3;

struct WorldSettings {
    Vec3 gravity = Vec3(0, 0, -9.81);
    SolverSettings solver{};
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
    // bounce across an open gap, down to max_substeps). Without splitting, a chain of elastic impacts through
    // gaps within the contact margin lost energy (three balls at e = 1 with a 2 mm gap at 1/240 s: 49 % in
    // the impact step), and a jointed body bounced across a gap gained energy (the position projection cannot
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
    // Also report a contact_persist event in every substep for every pair that touched in the previous one
    // too (with its impulse); off by default, as a resting pile of n bodies gives ~3 n of them per step.
    bool persist_events = false;
    // Planar world: every dynamic body keeps the height of its centre of mass along world z and its rotation
    // about x and y at their values when it entered the plane (the first step after it was created, placed by
    // set_pose, or planar was turned on), so bodies move in xy planes and turn about z. Held in the solver by
    // a planar joint against the world frame per body (three rows), so a push out of the plane meets its
    // reaction, like a table, instead of being erased from the state.
    bool planar = false;
};

struct ContactEvent {
    // begin: a pair starts touching; persist: it touched in the previous substep too (only with
    // WorldSettings::persist_events); end: it stopped touching.
    enum class Type { begin, end, persist };
    Type type = Type::begin;
    double time = 0;  // simulated time at the end of the step in which it happened
    BodyId a;         // a was created before b
    BodyId b;
    std::uint64_t order_a = 0;  // creation order (stable even after a body is destroyed)
    std::uint64_t order_b = 0;
    // begin and persist: the normal impulse the pair's contact points carried in the substep, N s (0 for
    // a pair that sleeps: it was not solved).
    double impulse = 0;
};

struct Energy {
    double kinetic = 0;
    double potential = 0;  // gravity (zero at the world origin) plus elastic energy of the springs
};

// Narrow-phase work of the last step: body pairs tested, and how many of them reused their manifolds
// (WorldSettings::manifold_reuse_distance) instead of running the narrow phase.
struct CollisionStats {
    int pairs = 0;
    int reused = 0;
    // Speculative manifolds of two moving bodies that their relative motion cannot close within the step,
    // left out of the solve (set_aside at its end), and those the solved velocities reached, which were put
    // back and solved again (woken).
    int set_aside = 0;
    int woken = 0;
};

// A contact manifold of the last step together with the two bodies it joins.
struct BodyManifold {
    BodyId a;
    BodyId b;
    Manifold manifold;
};

}  // namespace simpulse
