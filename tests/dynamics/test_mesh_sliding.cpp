// Bodies moving across flat triangle meshes keep moving as on a plane (stress2_findings
// box_unwelded_mesh_ghost_edges.json, sphere_fan_mesh_ghost_bounce.json). Closed forms on flat ground: a box
// sliding without friction keeps its velocity and its centre at its half height; a sphere rolling without
// slipping keeps its velocity (no force acts: gravity is balanced by the normal force, friction is zero at
// rolling) and its centre at its radius. The tolerance on the height is the solver's penetration slop (0.5
// mm, which the position projection leaves) plus 0.1 mm; on the speed 1e-6 m/s (nothing but round-off changes
// it over 100 to 180 steps).
#include "world_fixture.h"

#include <simpulse/dynamics/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace simpulse::test {
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
    WorldSettings ws = settings_for(SolverMode::exact);
    ws.allow_sleeping = false;
    DynamicsWorld w(ws);
    w.materials().set(0, Material{friction, 0, 1000});
    add_static(w, ground);
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

// 12 x 12 cells of 0.5 m over [-3, 3]^2 at z = 0, two triangles per cell; `soup`: every triangle lists its
// own three vertices (as read from STL), else the grid's vertices are shared.
ShapePtr grid_floor(bool soup) {
    std::vector<Vec3> v;
    std::vector<std::array<std::uint32_t, 3>> t;
    auto vertex = [&](int i, int j) {
        const Vec3 p(-3 + 0.5 * j, -3 + 0.5 * i, 0);
        if (!soup) return static_cast<std::uint32_t>(i * 13 + j);
        v.push_back(p);
        return static_cast<std::uint32_t>(v.size() - 1);
    };
    if (!soup)
        for (int i = 0; i <= 12; ++i)
            for (int j = 0; j <= 12; ++j) v.emplace_back(-3 + 0.5 * j, -3 + 0.5 * i, 0);
    for (int i = 0; i < 12; ++i)
        for (int j = 0; j < 12; ++j) {
            t.push_back({vertex(i, j), vertex(i, j + 1), vertex(i + 1, j + 1)});
            t.push_back({vertex(i, j), vertex(i + 1, j + 1), vertex(i + 1, j)});
        }
    return make_triangle_mesh(std::move(v), std::move(t));
}

// A 0.4 x 0.2 x 0.1 m box sliding without friction at 3 m/s, 35 degrees off the grid lines, for 1.5 s (4.5
// m, across about 15 internal edges). Before the vertices of a triangle soup were welded for the edge
// pairing, every edge of the soup was a boundary edge with its own edge normals: the box hopped to z 0.0711
// and ended at 0.31 m/s.
TEST(MeshSliding, BoxSlidesWithoutFrictionOverATriangleSoupAsOverTheIndexedGrid) {
    for (const bool soup : {false, true}) {
        BodyDesc box;
        box.shape = make_box(Vec3(0.2, 0.1, 0.05));
        box.pose.position = Vec3(-2.2, -1.3, 0.05);
        box.velocity = 3 * Vec3(std::cos(0.61), std::sin(0.61), 0);
        box.mass = 1;
        const Excursion e = slide(grid_floor(soup), box, 0, 0.05, 180);
        const char* what = soup ? "triangle soup" : "indexed grid";
        std::printf("box on the %s: height error %.3g m, speed error %.3g m/s, final speed %.6f m/s\n", what,
                    e.height, e.speed, e.final_speed);
        EXPECT_LE(e.height, kHeightTolerance) << what << ": centre left z = 0.05 by " << e.height << " m";
        EXPECT_LE(e.speed, kSpeedTolerance)
            << what << ": speed changed by " << e.speed << " m/s (final " << e.final_speed << ")";
    }
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
            const double phi = 2 * kPi * k / n;
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
}  // namespace simpulse::test
