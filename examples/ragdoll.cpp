// ragdoll: ball joints and hinges with limits through the public World API (the world of
// scenes/ragdoll.json). A 72 kg ragdoll is laid out standing (facing +x), then turned to lie on its back 1 m
// up and dropped, turning a little, onto the ground with its legs across a crate: ball joints at the neck,
// shoulders and hips, hinges with limits at the waist, elbows and knees (knees and elbows bend one way only).
// Prints where the parts come to rest and the largest joint error.
#include <simpulse/world.h>

#include <algorithm>
#include <cstdio>
#include <numbers>
#include <string>
#include <vector>

namespace {

using namespace simpulse;

// The standing pose is turned by -90 degrees about y (head towards -x, face up) with the pelvis 1 m up, and
// the whole ragdoll turns as one body about the pelvis: every part starts with the same angular velocity and
// the velocity that goes with it, so the joints start out satisfied.
const Quat kTurn(Eigen::AngleAxisd(-std::numbers::pi / 2, Vec3::UnitY()));
const Vec3 kPelvis(0, 0, 1.0);  // standing at (0, 0, 0.95)
const Pose kLying{kPelvis - kTurn * Vec3(0, 0, 0.95), kTurn};
const Vec3 kSpin(0.4, 0, 0.15);  // rad/s

struct Ragdoll {
    World& world;
    std::vector<std::pair<std::string, BodyId>> parts;

    BodyId part(const std::string& name, ShapePtr shape, double mass, const Vec3& standing_centre) {
        BodyDesc d;
        d.shape = std::move(shape);
        d.mass = mass;
        d.pose = kLying * Pose{standing_centre, Quat::Identity()};
        d.angular_velocity = kSpin;
        d.velocity = kSpin.cross(d.pose.position - kPelvis);
        parts.emplace_back(name, world.create_body(d).value());
        return parts.back().second;
    }
    JointDesc joint(JointType type, BodyId a, BodyId b, const Vec3& standing_anchor) const {
        JointDesc j;
        j.type = type;
        j.body_a = a;
        j.body_b = b;
        j.anchor = kLying.transform_point(standing_anchor);
        return j;
    }
    void ball(BodyId a, BodyId b, const Vec3& standing_anchor) {
        world.add_joint(joint(JointType::ball, a, b, standing_anchor)).value();
    }
    // The angle is B's turn relative to A about the axis, limited to [lower, upper].
    void hinge(BodyId a, BodyId b, const Vec3& standing_anchor, const Vec3& standing_axis, double lower,
               double upper) {
        JointDesc j = joint(JointType::hinge, a, b, standing_anchor);
        j.axis = kLying.rotate(standing_axis);
        j.limit = {.enabled = true, .lower = lower, .upper = upper, .restitution = 0};
        world.add_joint(j).value();
    }
};

}  // namespace

int main() {
    World world;
    Material cloth;  // friction of clothes on wood and floor
    cloth.friction = 0.8;
    if (!world.set_material(0, cloth)) return 1;

    BodyDesc ground;
    ground.shape = create_plane(Vec3::UnitZ(), 0).value();
    ground.is_static = true;
    world.create_body(ground).value();
    BodyDesc crate;
    crate.shape = create_box(Vec3(0.25, 0.4, 0.2)).value();
    crate.pose.position = Vec3(0.7, 0, 0.2);  // under the legs
    crate.is_static = true;
    world.create_body(crate).value();

    Ragdoll r{world, {}};
    const BodyId head = r.part("head", create_sphere(0.1).value(), 5, Vec3(0, 0, 1.64));
    const BodyId torso = r.part("torso", create_box(Vec3(0.11, 0.18, 0.23)).value(), 25, Vec3(0, 0, 1.28));
    const BodyId pelvis = r.part("pelvis", create_box(Vec3(0.1, 0.16, 0.09)).value(), 10, Vec3(0, 0, 0.95));
    r.ball(torso, head, Vec3(0, 0, 1.52));
    // Positive about y bends the torso forward (its top towards +x).
    r.hinge(pelvis, torso, Vec3(0, 0, 1.045), Vec3::UnitY(), -0.5, 1.2);
    for (const double side : {1.0, -1.0}) {
        const std::string s = side > 0 ? "_left" : "_right";
        const BodyId upper_arm =
            r.part("upper_arm" + s, create_capsule(0.05, 0.1).value(), 2, {0, side * 0.24, 1.32});
        const BodyId lower_arm =
            r.part("lower_arm" + s, create_capsule(0.045, 0.105).value(), 1.5, {0, side * 0.24, 1.02});
        const BodyId upper_leg =
            r.part("upper_leg" + s, create_capsule(0.07, 0.155).value(), 8, {0, side * 0.1, 0.675});
        const BodyId lower_leg =
            r.part("lower_leg" + s, create_capsule(0.06, 0.165).value(), 4.5, {0, side * 0.1, 0.225});
        r.ball(torso, upper_arm, {0, side * 0.24, 1.47});
        // Elbows bend the forearm forward (about -y), knees the shin backward (about +y): one way only.
        r.hinge(upper_arm, lower_arm, {0, side * 0.24, 1.17}, -Vec3::UnitY(), 0, 2.5);
        r.ball(pelvis, upper_leg, {0, side * 0.1, 0.9});
        r.hinge(upper_leg, lower_leg, {0, side * 0.1, 0.45}, Vec3::UnitY(), 0, 2.4);
    }

    double worst_error = 0;
    for (int i = 0; i < 4 * 240; ++i) {
        if (const Status s = world.step(1.0 / 240); !s) {
            std::fprintf(stderr, "step failed: %s\n", s.error().message.c_str());
            return 1;
        }
        worst_error = std::max(worst_error, world.max_joint_error());
    }
    for (const auto& [name, id] : r.parts) {
        const BodyState st = world.state(id).value();
        std::printf("%-16s at (%7.3f, %7.3f, %6.3f) m, speed %.4f m/s, %s\n", name.c_str(),
                    st.pose.position.x(), st.pose.position.y(), st.pose.position.z(), st.velocity.norm(),
                    world.is_asleep(id).value() ? "asleep" : "awake");
    }
    std::printf("largest joint error over the fall: %.3g (m or rad)\n", worst_error);
    return 0;
}
