// door: a hinge with a motor and a limit through the public World API (the world of scenes/door.json). A
// 30 kg door on a vertical hinge at the edge of a static post; the motor drives it open at up to 1 rad/s with
// at most 20 N m until the hinge's limit stops it 1.6 rad open. Prints the door's angle as it swings and the
// hinge's reaction at the end.
#include <simpulse/world.h>

#include <cmath>
#include <cstdio>

int main() {
    using namespace simpulse;
    World world;

    BodyDesc post_desc;
    post_desc.shape = create_box(Vec3(0.05, 0.05, 1.05)).value();
    post_desc.pose.position = Vec3(0, 0, 1.05);
    post_desc.is_static = true;
    const BodyId post = world.create_body(post_desc).value();

    BodyDesc door_desc;
    door_desc.shape = create_box(Vec3(0.45, 0.02, 1.0)).value();
    door_desc.pose.position = Vec3(0.5, 0, 1.05);
    door_desc.mass = 30.0;
    const BodyId door = world.create_body(door_desc).value();

    // The hinge angle is B's turn relative to A about the axis: with the post as A and the axis up, the door
    // opening counter-clockwise (seen from above) is a positive angle, so the limit [0, 1.6] lets it open
    // one way only, and a positive motor speed opens it.
    JointDesc hinge;
    hinge.type = JointType::hinge;
    hinge.body_a = post;
    hinge.body_b = door;
    hinge.anchor = Vec3(0.05, 0, 1.05);
    hinge.axis = Vec3::UnitZ();
    hinge.limit = {.enabled = true, .lower = 0, .upper = 1.6, .restitution = 0};
    hinge.motor = {.enabled = true, .speed = 1.0, .max_force = 20.0};  // rad/s, N m
    const Result<JointId> joint = world.add_joint(hinge);
    if (!joint) {
        std::fprintf(stderr, "add_joint: %s\n", joint.error().message.c_str());
        return 1;
    }

    const double dt = 1.0 / 240;
    for (int i = 1; i <= 3 * 240; ++i) {
        if (const Status s = world.step(dt); !s) {
            std::fprintf(stderr, "step failed: %s\n", s.error().message.c_str());
            return 1;
        }
        if (i % 60 == 0) {
            // The door's long axis (body x) starts along world x; its heading is the opening angle.
            const BodyState door_state = world.state(door).value();
            const Vec3 along = door_state.pose.rotate(Vec3::UnitX());
            std::printf("t = %.2f s: door open %.4f rad, turning at %.4f rad/s\n", world.time(),
                        std::atan2(along.y(), along.x()), door_state.angular_velocity.z());
        }
    }
    // At rest against the limit the motor's 20 N m and the limit's push cancel about the axis; what remains
    // holds the door up (294 N) and against its weight's moment about the anchor, 0.45 m off the axis (132 N
    // m).
    const JointReaction reaction = world.joint_reaction(joint.value()).value();
    std::printf("hinge reaction on the door: force (%.3f, %.3f, %.3f) N, torque (%.3f, %.3f, %.3f) N m\n",
                reaction.force.x(), reaction.force.y(), reaction.force.z(), reaction.torque.x(),
                reaction.torque.y(), reaction.torque.z());
    std::printf("largest joint error: %.3g\n", world.max_joint_error());
    return 0;
}
