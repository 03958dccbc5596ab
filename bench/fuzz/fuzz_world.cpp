// libFuzzer target: the embedding API. The bytes are decoded into a sequence of World calls (create and
// destroy bodies of every shape, springs, joints of every type with limits and motors, collision filters,
// materials, settings, forces, impulses, steps, state and scene queries)
// whose numbers come from a palette of extreme values (1e-9 and 1e9 sizes and masses, 0, negative, NaN, inf,
// the double range's ends) or straight from the bytes. Every call must return a value or an error: an
// exception escaping, a crash, a hang, a leak, or a step that succeeds with a non-finite state is a finding.
// Inputs that begin with the four bytes "API2" decode a wider set of calls: cables (add, remove, read, set
// their velocities), planar joints, prisms, and callbacks that call back into the World while it runs them
// (a contact listener and query filters that destroy, create or move bodies, step the world, or replace the
// listener; at most two deep, 16 bodies created and 20 steps per input). Inputs without the prefix decode as
// before, so the committed regression inputs still replay the calls they were found with.
#include <simpulse/world.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace {

using namespace simpulse;

class Bytes {
  public:
    Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    bool empty() const { return pos_ >= size_; }
    std::uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
    double number() {
        static constexpr std::array<double, 16> kPalette = {0.0,
                                                            1e-9,
                                                            1e9,
                                                            -1.0,
                                                            0.5,
                                                            1.0,
                                                            2.0,
                                                            1e-300,
                                                            1e300,
                                                            std::numeric_limits<double>::max(),
                                                            -1e-12,
                                                            1e5,
                                                            0.016,
                                                            10.0,
                                                            std::numeric_limits<double>::quiet_NaN(),
                                                            std::numeric_limits<double>::infinity()};
        const std::uint8_t b = byte();
        if (b < 224) return kPalette[b % kPalette.size()];
        std::uint64_t bits = 0;  // little-endian, as the corpus was written
        for (int k = 0; k < 8; ++k) bits |= std::uint64_t{byte()} << (8 * k);
        return std::bit_cast<double>(bits);
    }
    Vec3 vector() {
        const double x = number(), y = number(), z = number();
        return {x, y, z};
    }
    std::size_t index(std::size_t count) { return count == 0 ? 0 : byte() % count; }

  private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t pos_ = 0;
};

// A prism's boundary: a regular n-gon of radius r (valid when r is), or points straight from the bytes.
std::vector<Vec2> polygon(Bytes& in, double r, bool clockwise) {
    std::vector<Vec2> points;
    const int n = in.byte() % 9;
    const bool regular = in.byte() % 2;
    for (int i = 0; i < n; ++i) {
        const double angle = (clockwise ? -2 : 2) * 3.141592653589793 * i / n;
        points.push_back(regular ? Vec2{r * std::cos(angle), r * std::sin(angle)}
                                 : Vec2{in.number(), in.number()});
    }
    return points;
}

Result<ShapePtr> shape(Bytes& in, bool extended) {
    const double a = in.number(), b = in.number();
    switch (in.byte() % (extended ? 11 : 10)) {
        case 0:
            return create_sphere(a);
        case 1:
            return create_box(in.vector());
        case 2:
            return create_capsule(a, b);
        case 3:
            return create_cylinder(a, b);
        case 4:
            return create_cone(a, b);
        case 5: {
            std::vector<Vec3> points;
            for (int i = in.byte() % 9; i > 0; --i) points.push_back(in.vector());
            return create_convex_hull(points);
        }
        case 6:
            return create_plane(in.vector(), a);
        case 7: {
            std::vector<Vec3> vertices;
            for (int i = in.byte() % 6; i > 0; --i) vertices.push_back(in.vector());
            std::vector<std::array<std::uint32_t, 3>> triangles;
            for (int i = in.byte() % 4; i > 0; --i)
                triangles.push_back({in.byte() % 7u, in.byte() % 7u, in.byte() % 7u});
            return create_triangle_mesh(std::move(vertices), std::move(triangles));
        }
        case 8: {
            const int rows = in.byte() % 5, columns = in.byte() % 5;
            std::vector<double> heights;
            for (int i = in.byte() % 26; i > 0; --i) heights.push_back(in.number());
            return create_height_field({a, b}, {in.number(), in.number()}, rows, columns, std::move(heights));
        }
        case 10: {
            std::vector<std::vector<Vec2>> boundaries{polygon(in, a, false)};
            if (in.byte() % 2) boundaries.push_back(polygon(in, 0.5 * a, true));
            return create_prism(std::move(boundaries), b, in.byte() % 2 ? in.number() : 0.0);
        }
        default: {
            std::vector<CompoundChild> children;
            for (int i = in.byte() % 3; i > 0; --i) {
                Result<ShapePtr> child = create_box(in.vector());
                if (child) children.push_back({child.value(), Pose{in.vector(), Quat::Identity()}});
            }
            return create_compound(std::move(children));
        }
    }
}

void require_finite(const World& world, const std::vector<BodyId>& bodies) {
    for (const BodyId id : bodies) {
        const Result<BodyState> s = world.state(id);
        if (s && !(s->pose.position.allFinite() && s->velocity.allFinite() &&
                   s->angular_velocity.allFinite() && s->pose.orientation.coeffs().allFinite()))
            __builtin_trap();  // a step reported success with a non-finite state
    }
}

constexpr std::array<std::uint8_t, 4> kExtendedPrefix = {'A', 'P', 'I', '2'};
constexpr int kMaxSteps = 20;         // world steps per input, those the callbacks make included
constexpr int kMaxCallbackDepth = 2;  // callbacks running inside callbacks
// Bodies the callbacks create per input: a listener that creates a body for every contact event grows the
// world exponentially, which only measures the size of the world (bench_coincident_spheres times that).
constexpr int kMaxCreatedByCallbacks = 16;

struct Session {
    World world;
    std::vector<BodyId> bodies;
    std::vector<SpringId> springs;
    std::vector<JointId> joints;
    std::vector<CableId> cables;
    int steps = 0;
    int depth = 0;
    int created = 0;  // by callbacks

    bool may_step() { return steps++ < kMaxSteps; }
    void step(double dt) {
        if (world.step(dt)) require_finite(world, bodies);
    }
};

// What a callback does to the World that runs it, chosen when it is installed: `subject` is the body the
// callback was called for (an event's first body, a query's candidate).
struct Hostility {
    std::uint8_t action = 0;
    double value = 0;
};

void act(Session& s, const Hostility& h, BodyId subject) {
    if (s.depth >= kMaxCallbackDepth) return;
    ++s.depth;
    switch (h.action % 7) {
        case 0:
            (void)s.world.destroy_body(subject);
            break;
        case 1: {
            if (s.created++ >= kMaxCreatedByCallbacks) break;
            Result<ShapePtr> sphere = create_sphere(0.1);
            if (Result<BodyId> id =
                    s.world.create_body({.shape = sphere.value(), .pose = {Vec3(0, 0, h.value)}}))
                s.bodies.push_back(id.value());
            break;
        }
        case 2:
            if (s.may_step()) s.step(h.value);
            break;
        case 3:
            (void)s.world.set_pose(subject, Pose{{h.value, 0, 0}, Quat::Identity()});
            break;
        case 4:
            (void)s.world.set_contact_listener({});  // a listener that removes itself while it runs
            break;
        case 5:
            if (!s.cables.empty()) (void)s.world.remove_cable(s.cables.front());
            if (!s.joints.empty()) (void)s.world.remove_joint(s.joints.front());
            break;
        default:
            (void)s.world.apply_impulse(subject, {h.value, 0, 0}, Vec3::Zero());
            break;
    }
    --s.depth;
}

void add_cable(Session& s, Bytes& in) {
    CableDesc c;
    if (in.byte() % 2) {  // a straight row of points, the common valid case
        const Vec3 start = in.vector(), spacing = in.vector();
        for (int k = 4 + in.byte() % 5; k > 0; --k) c.points.push_back(start + k * spacing);
    } else {
        for (int k = in.byte() % 8; k > 0; --k) c.points.push_back(in.vector());
    }
    c.radius = in.byte() % 2 ? in.number() : 0.01;
    if (in.byte() % 2) c.mass = in.number();
    if (in.byte() % 2) c.density = in.number();
    c.material = in.byte() % 3;
    for (int k = in.byte() % 3; k > 0; --k) {
        CablePin pin{.index = in.byte() % 9u};
        if (in.byte() % 2 && !s.bodies.empty()) pin.body = s.bodies[in.index(s.bodies.size())];
        c.pins.push_back(pin);
    }
    if (in.byte() % 2) c.stretch_stiffness = in.number();
    if (in.byte() % 2) c.bend_stiffness = in.number();
    if (Result<CableId> id = s.world.add_cable(c)) s.cables.push_back(id.value());
}

void use_cable(Session& s, Bytes& in) {
    if (s.cables.empty()) return;
    const CableId id = s.cables[in.index(s.cables.size())];
    switch (in.byte() % 3) {
        case 0:
            (void)s.world.remove_cable(id);
            break;
        case 1:
            (void)s.world.cable_points(id);
            (void)s.world.cable_velocities(id);
            break;
        default: {
            std::vector<Vec3> velocities;
            for (int k = in.byte() % 10; k > 0; --k) velocities.push_back(in.vector());
            (void)s.world.set_cable_velocities(id, velocities);
            break;
        }
    }
}

void queries(Session& s, Bytes& in, bool extended, const BodyFilter& filter) {
    World& world = s.world;
    const Vec3 origin = in.vector(), direction = in.vector();
    const double reach = in.number();
    (void)world.cast_ray(origin, direction, reach, filter);
    (void)world.cast_ray_all(origin, direction, reach, extended ? filter : BodyFilter{});
    (void)world.query_box(in.vector(), in.vector(), filter);
    (void)world.query_point(in.vector(), filter);
    if (Result<ShapePtr> shape_to_place = shape(in, extended)) {
        const Pose pose{in.vector(), Quat(in.number(), in.number(), in.number(), in.number())};
        (void)world.query_shape(shape_to_place.value(), pose, extended ? filter : BodyFilter{});
        (void)world.cast_shape(shape_to_place.value(), pose, in.vector(), filter);
        (void)world.cast_shape_all(shape_to_place.value(), pose, in.vector(),
                                   extended ? filter : BodyFilter{});
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const bool extended = size >= kExtendedPrefix.size() &&
                          std::memcmp(data, kExtendedPrefix.data(), kExtendedPrefix.size()) == 0;
    const std::size_t skip = extended ? kExtendedPrefix.size() : 0;
    Bytes in(data + skip, size - skip);
    Session session;
    World& world = session.world;
    std::vector<BodyId>& bodies = session.bodies;
    std::vector<SpringId>& springs = session.springs;
    std::vector<JointId>& joints = session.joints;
    while (!in.empty()) {
        switch (in.byte() % (extended ? 17 : 13)) {
            case 0: {
                Result<ShapePtr> s = shape(in, extended);
                if (!s) break;
                BodyDesc d;
                d.shape = s.value();
                d.pose.position = in.vector();
                d.velocity = in.vector();
                d.angular_velocity = in.vector();
                d.is_static = in.byte() % 3 == 0;
                if (in.byte() % 2) d.mass = in.number();
                d.density = in.byte() % 2 ? in.number() : 1000.0;
                d.material = in.byte() % 3;
                if (Result<BodyId> id = world.create_body(d)) bodies.push_back(id.value());
                break;
            }
            case 1:
                if (!bodies.empty()) (void)world.destroy_body(bodies[in.index(bodies.size())]);
                break;
            case 2:
                if (session.may_step()) session.step(in.number());
                break;
            case 3:
                if (!bodies.empty()) {
                    const BodyId id = bodies[in.index(bodies.size())];
                    (void)world.set_velocity(id, in.vector());
                    (void)world.set_pose(
                        id, Pose{in.vector(), Quat(in.number(), in.number(), in.number(), in.number())});
                }
                break;
            case 4: {
                SpringDesc s;
                if (!bodies.empty()) s.body_a = bodies[in.index(bodies.size())];
                if (in.byte() % 2 && !bodies.empty()) s.body_b = bodies[in.index(bodies.size())];
                s.anchor_a = in.vector();
                s.anchor_b = in.vector();
                s.stiffness = in.number();
                s.damping = in.number();
                s.rest_length = in.number();
                if (Result<SpringId> id = world.add_spring(s)) springs.push_back(id.value());
                break;
            }
            case 5: {
                JointDesc j;
                j.type = static_cast<JointType>(in.byte() % (extended ? 6 : 5));
                if (!bodies.empty()) j.body_a = bodies[in.index(bodies.size())];
                if (in.byte() % 2 && !bodies.empty()) j.body_b = bodies[in.index(bodies.size())];
                j.anchor = in.vector();
                j.anchor_b = in.vector();
                j.axis = in.vector();
                if (in.byte() % 2) j.min_length = in.number();
                if (in.byte() % 2) j.max_length = in.number();
                j.limit = {.enabled = in.byte() % 2 == 0,
                           .lower = in.number(),
                           .upper = in.number(),
                           .restitution = in.byte() % 2 ? in.number() : 0.0};
                j.motor = {.enabled = in.byte() % 2 == 0, .speed = in.number(), .max_force = in.number()};
                j.collide_connected = in.byte() % 2;
                if (Result<JointId> id = world.add_joint(j)) joints.push_back(id.value());
                break;
            }
            case 6:
                if (!springs.empty()) (void)world.remove_spring(springs[in.index(springs.size())]);
                if (!joints.empty()) (void)world.remove_joint(joints[in.index(joints.size())]);
                break;
            case 7:
                if (!bodies.empty()) {
                    const BodyId id = bodies[in.index(bodies.size())];
                    (void)world.apply_impulse(id, in.vector(), in.vector());
                    (void)world.add_force_at_point(id, in.vector(), in.vector());
                    (void)world.add_torque(id, in.vector());
                    (void)world.apply_angular_impulse(id, in.vector());
                }
                break;
            case 8:
                (void)world.add_material(
                    {.friction = in.number(), .restitution = in.number(), .density = in.number()});
                (void)world.set_material_pair(in.byte() % 4, in.byte() % 4, in.number(), in.number());
                break;
            case 9: {
                WorldSettings s = world.settings();
                s.gravity = in.vector();
                s.contact_margin = in.number();
                s.solver.mode = in.byte() % 2 ? SolverMode::exact : SolverMode::thesis;
                s.solver.tolerance = in.number();
                s.solver.threads = 1 + in.byte() % 2;
                s.allow_sleeping = in.byte() % 2;
                if (extended) s.persist_events = in.byte() % 2;
                (void)world.set_settings(s);
                break;
            }
            case 10:
                if (!bodies.empty()) {
                    const BodyId id = bodies[in.index(bodies.size())];
                    (void)world.state(id);
                    (void)world.info(id);
                    (void)world.is_asleep(id);
                }
                (void)world.energy();
                (void)world.linear_momentum();
                (void)world.angular_momentum(in.vector());
                (void)world.max_joint_error();
                break;
            case 11:
                if (!joints.empty()) {
                    const JointId id = joints[in.index(joints.size())];
                    (void)world.joint_error(id);
                    (void)world.joint_reaction(id);
                }
                if (!bodies.empty())
                    (void)world.set_collision_filter(bodies[in.index(bodies.size())], in.byte(), in.byte());
                break;
            case 12: {
                // Scene queries, with a filter that drops one body.
                const BodyId skipped = bodies.empty() ? BodyId{} : bodies[in.index(bodies.size())];
                queries(session, in, extended, [skipped](BodyId id) { return id != skipped; });
                break;
            }
            case 13:
                add_cable(session, in);
                break;
            case 14:
                use_cable(session, in);
                break;
            case 15: {
                // A contact listener that calls back into the World for each event.
                const Hostility h{in.byte(), in.number()};
                (void)world.set_contact_listener(
                    [&session, h](const ContactEvent& e) { act(session, h, e.a); });
                break;
            }
            default: {
                // Scene queries whose filter calls back into the World for each candidate.
                const Hostility h{in.byte(), in.number()};
                queries(session, in, extended, [&session, h](BodyId id) {
                    act(session, h, id);
                    return (h.action & 0x80) == 0;
                });
                break;
            }
        }
    }
    return 0;
}
