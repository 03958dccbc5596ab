// hello_world: embedding simpulse. A projectile, a spring pendulum and a box landing on the ground, stepped
// for one second through the public World API; every call returns an error value instead of throwing.
#include <simpulse/world.h>

#include <cstdio>

int main() {
    using namespace simpulse;
    World world;  // gravity (0, 0, -9.81), exact solver

    // A static ground: the half-space z <= 0.
    BodyDesc ground;
    ground.shape = create_plane(Vec3::UnitZ(), 0).value();
    ground.is_static = true;
    if (!world.create_body(ground)) return 1;

    // A ball thrown at 45 degrees (no contact during the second it flies).
    BodyDesc ball;
    ball.shape = create_sphere(0.05).value();
    ball.pose.position = Vec3(0, 0, 5);
    ball.velocity = Vec3(3, 0, 3);
    const BodyId projectile = world.create_body(ball).value();

    // A 1 kg bob on a damped spring hanging from the fixed point (2, 0, 5).
    BodyDesc bob;
    bob.shape = create_sphere(0.05).value();
    bob.mass = 1.0;
    bob.pose.position = Vec3(2.3, 0, 4);
    const BodyId pendulum = world.create_body(bob).value();
    SpringDesc spring;
    spring.body_b = pendulum;  // body_a left invalid: the world
    spring.anchor_a = Vec3(2, 0, 5);
    spring.anchor_b = bob.pose.position;
    spring.stiffness = 100;
    spring.damping = 0.5;
    spring.rest_length = 1.0;
    if (!world.add_spring(spring)) return 1;

    // A box dropped onto the ground, reporting its contacts.
    BodyDesc box;
    box.shape = create_box(Vec3(0.2, 0.2, 0.2)).value();
    box.pose.position = Vec3(-2, 0, 1);
    const BodyId crate = world.create_body(box).value();
    const Status listening = world.set_contact_listener([](const ContactEvent& e) {
        std::printf("t = %.4f s: contact %s between bodies %u and %u\n", e.time,
                    e.type == ContactEvent::Type::begin ? "begins" : "ends", e.a.index, e.b.index);
    });
    if (!listening) {
        std::fprintf(stderr, "set_contact_listener failed: %s\n", listening.error().message.c_str());
        return 1;
    }

    const double dt = 1.0 / 240;
    for (int i = 0; i < 240; ++i) {
        if (const Status s = world.step(dt); !s) {
            std::fprintf(stderr, "step failed: %s\n", s.error().message.c_str());
            return 1;
        }
    }
    const Vec3 p = world.state(projectile).value().pose.position;
    // Semi-implicit Euler lags the parabola by g t dt / 2 in height (docs/architecture.md).
    std::printf("projectile after 1 s: (%.4f, %.4f, %.4f) m; parabola z %.4f minus g t dt / 2 = %.4f\n",
                p.x(), p.y(), p.z(), 5 + 3 - 0.5 * 9.81, 5 + 3 - 0.5 * 9.81 - 0.5 * 9.81 * dt);
    const Vec3 q = world.state(pendulum).value().pose.position;
    std::printf("spring pendulum bob: (%.4f, %.4f, %.4f) m\n", q.x(), q.y(), q.z());
    std::printf("box resting at height %.4f m (half size 0.2 m)\n",
                world.state(crate).value().pose.position.z());
    std::printf("energy: kinetic %.4f J, potential %.4f J\n", world.energy().kinetic,
                world.energy().potential);

    // Invalid input is an error value, not a crash.
    const Result<ShapePtr> bad = create_sphere(-1);
    std::printf("create_sphere(-1): %s\n", bad ? "accepted?!" : bad.error().message.c_str());
    if (!bad) std::printf("error code: %s\n", to_string(bad.error().code));
    return 0;
}
