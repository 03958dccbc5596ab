// Bodies moving across flat triangle meshes keep moving as on a plane (stress2_findings
// sphere_fan_mesh_ghost_bounce.json). Closed form on flat ground: a sphere rolling without slipping keeps its
// velocity (no force acts: gravity is balanced by the normal force, friction is zero at rolling) and its
// centre at its radius. The tolerance on the height is the solver's penetration slop (0.5 mm, which the
// position projection leaves) plus 0.1 mm; on the speed 1e-6 m/s (nothing but round-off changes it over 100
// steps).
#include <simpulse/dynamics/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

namespace simpulse {
namespace {

constexpr double kDt = 1.0 / 120;
constexpr double kHeightTolerance = 0.0005 + 1e-4;  // penetration slop + 0.1 mm, m
constexpr double kSpeedTolerance = 1e-6;            // m/s

struct Excursion {
    double height = 0;  // largest |z - rest height| of the centre, m
    double speed = 0;   // largest |horizontal speed - initial speed|, m/s
    double final_speed = 0;
};

// Runs `body` over the static `ground` for `steps` steps, both with the given friction, and measures how far
// its centre leaves `rest_z` and its horizontal speed leaves the initial one.
Excursion slide(const ShapePtr& ground, BodyDesc body, double friction, double rest_z, int steps) {
    WorldSettings ws;
    ws.solver.mode = SolverMode::exact;
    ws.allow_sleeping = false;
    DynamicsWorld w(ws);
    w.materials().set(0, Material{friction, 0, 1000});
    BodyDesc g;
    g.shape = ground;
    g.is_static = true;
    w.create_body(g);
    const double speed = body.velocity.head<2>().norm();
    const BodyId id = w.create_body(body);
    Excursion e;
    for (int s = 0; s < steps; ++s) {
        EXPECT_TRUE(w.step(kDt).ok);
        const Body& b = w.body(id);
        e.height = std::max(e.height, std::abs(b.com_position.z() - rest_z));
        e.final_speed = b.velocity.head<2>().norm();
        e.speed = std::max(e.speed, std::abs(e.final_speed - speed));
    }
    return e;
}

// A sphere (r 0.1) rolling at 6 m/s, friction 0.5, past the hub of a flat fan of 180 (and 720) thin triangles
// at 0.17 m. Its speculative margin (0.102 m) holds dozens of triangles there; their clamped copies of its
// centre used to become its contacts, up to 0.1 m beside it, where its spin (60 rad/s) made them approach at
// up to 6 m/s: thrown to z 0.405 at 4.72 m/s.
TEST(MeshSliding, SphereRollsPastTheHubOfAFlatFanOfThinTriangles) {
    for (const int n : {180, 720}) {
        std::vector<Vec3> v{Vec3::Zero()};
        std::vector<std::array<std::uint32_t, 3>> t;
        for (int k = 0; k < n; ++k) {
            const double phi = 2 * std::numbers::pi * k / n;
            v.emplace_back(8 * std::cos(phi), 8 * std::sin(phi), 0);
            t.push_back({0, static_cast<std::uint32_t>(1 + k), static_cast<std::uint32_t>(1 + (k + 1) % n)});
        }
        const Vec3 dir(4.915391523114243 / 6, 3.44077406617997 / 6, 0);
        BodyDesc ball;
        ball.shape = make_sphere(0.1);
        ball.pose.position = Vec3(-3.3, -2.1, 0.1);
        ball.velocity = 6 * dir;
        ball.angular_velocity = Vec3::UnitZ().cross(ball.velocity) / 0.1;  // rolling: v = w x (r e_z)
        ball.mass = 1;
        const Excursion e = slide(make_triangle_mesh(v, t), ball, 0.5, 0.1, 100);
        std::printf(
            "sphere over a fan of %d: height error %.3g m, speed error %.3g m/s, final speed %.6f m/s\n", n,
            e.height, e.speed, e.final_speed);
        EXPECT_LE(e.height, kHeightTolerance)
            << n << " triangles: centre left z = 0.1 by " << e.height << " m";
        EXPECT_LE(e.speed, kSpeedTolerance)
            << n << " triangles: speed changed by " << e.speed << " m/s (final " << e.final_speed << ")";
    }
}

}  // namespace
}  // namespace simpulse
