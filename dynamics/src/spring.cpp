// Linear damped springs as external forces (thesis chapter 2): force along the line between the anchors,
// proportional to the extension and to the rate of extension.
#include <simpulse/dynamics/spring.h>

namespace simpulse {
namespace {

struct Anchor {
    Vec3 point;
    Vec3 velocity;
};

Anchor anchor_state(std::span<const Body> bodies, std::uint32_t slot, const Vec3& local) {
    if (slot == kInvalidIndex) return {local, Vec3::Zero()};
    const Body& b = bodies[slot];
    const Vec3 p = b.pose().transform_point(local);
    return {p, b.velocity + b.angular_velocity.cross(p - b.com_position)};
}

void add_force_at(Body& b, const Vec3& f, const Vec3& point) {
    if (b.is_static || b.asleep) return;
    b.force += f;
    b.torque += (point - b.com_position).cross(f);
}

}  // namespace

void accumulate_spring_forces(std::span<const Spring> springs, std::span<Body> bodies) {
    for (const Spring& s : springs) {
        if (!s.alive) continue;
        const Anchor a = anchor_state(bodies, s.body_a, s.local_a);
        const Anchor b = anchor_state(bodies, s.body_b, s.local_b);
        const Vec3 d = b.point - a.point;
        const double length = d.norm();
        // A spring of zero rest length at zero length has no direction and no force.
        if (length <= 0) continue;
        const Vec3 u = d / length;
        const double rate = u.dot(b.velocity - a.velocity);
        const Vec3 f_on_b = -(s.stiffness * (length - s.rest_length) + s.damping * rate) * u;
        if (s.body_a != kInvalidIndex) add_force_at(bodies[s.body_a], -f_on_b, a.point);
        if (s.body_b != kInvalidIndex) add_force_at(bodies[s.body_b], f_on_b, b.point);
    }
}

double spring_energy(std::span<const Spring> springs, std::span<const Body> bodies) {
    double e = 0;
    for (const Spring& s : springs) {
        if (!s.alive) continue;
        const double stretch = (anchor_state(bodies, s.body_b, s.local_b).point -
                                anchor_state(bodies, s.body_a, s.local_a).point)
                                   .norm() -
                               s.rest_length;
        e += 0.5 * s.stiffness * stretch * stretch;
    }
    return e;
}

}  // namespace simpulse
