// car: hinge joints with motors driving wheels over a height field through the public World API (the world of
// scenes/car.json). A 300 kg chassis on four 15 kg cylinder wheels, each on a hinge about its axle whose
// motor turns it at up to 6 rad/s with at most 100 N m, drives over hills 0.5 m high every 6 m. Prints the
// distance driven and the chassis' height and tilt.
#include <simpulse/world.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

namespace {

using namespace simpulse;

// The terrain of scenes/car.json: flat up to x = 1, then (ramped in over 2 m) crests 0.5 m high every 6 m and
// 4 cm waves running across.
double terrain_height(double x, double y) {
    const double t = std::clamp((x - 1.0) / 2.0, 0.0, 1.0), ramp = t * t * (3 - 2 * t);
    const double hills = 0.25 * (1 - std::cos(2 * std::numbers::pi * (x - 1.0) / 6.0));
    const double cross = 0.04 * std::sin(2 * std::numbers::pi * y / 3.0 + 2 * std::numbers::pi * x / 5.0);
    return std::round(1e4 * (ramp * (hills + cross))) / 1e4;  // the scene's 4 decimals
}

}  // namespace

int main() {
    World world;
    Material tyre;
    tyre.friction = 0.9;
    if (!world.set_material(0, tyre)) return 1;

    // 0.25 m cells from (-3, -3): 101 columns along x, 25 rows along y, row-major.
    const Vec2 origin(-3, -3), spacing(0.25, 0.25);
    const int rows = 25, columns = 101;
    std::vector<double> heights;
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < columns; ++j)
            heights.push_back(terrain_height(origin.x() + j * spacing.x(), origin.y() + i * spacing.y()));
    BodyDesc terrain;
    terrain.shape = create_height_field(origin, spacing, rows, columns, heights).value();
    terrain.is_static = true;
    world.create_body(terrain).value();

    const double radius = 0.3, axle_z = 0.31;  // 1 cm of the wheels above the ground
    BodyDesc chassis_desc;
    chassis_desc.shape = create_box(Vec3(1.0, 0.5, 0.15)).value();
    chassis_desc.pose.position = Vec3(0, 0, 0.46);  // its bottom level with the axles
    chassis_desc.mass = 300.0;
    const BodyId chassis = world.create_body(chassis_desc).value();

    BodyDesc wheel_desc;
    wheel_desc.shape = create_cylinder(radius, 0.1).value();
    wheel_desc.mass = 15.0;
    // The cylinder's axis (local z) along the axle, world y.
    wheel_desc.pose.orientation = Quat(Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitX()));
    for (const Vec3& at : {Vec3(0.7, 0.65, axle_z), Vec3(0.7, -0.65, axle_z), Vec3(-0.7, 0.65, axle_z),
                           Vec3(-0.7, -0.65, axle_z)}) {
        wheel_desc.pose.position = at;
        JointDesc axle;
        axle.type = JointType::hinge;
        axle.body_a = chassis;
        axle.body_b = world.create_body(wheel_desc).value();
        axle.anchor = at;
        // The angle is the wheel's turn relative to the chassis about +y: positive rolls it towards +x.
        axle.axis = Vec3::UnitY();
        axle.motor = {.enabled = true, .speed = 6.0, .max_force = 100.0};  // rad/s, N m
        world.add_joint(axle).value();
    }

    const Vec3 start = world.state(chassis).value().pose.position;
    double worst_error = 0;
    for (int i = 1; i <= 5 * 240; ++i) {
        if (const Status s = world.step(1.0 / 240); !s) {
            std::fprintf(stderr, "step failed: %s\n", s.error().message.c_str());
            return 1;
        }
        worst_error = std::max(worst_error, world.max_joint_error());
        if (i % 120 == 0) {
            const Pose pose = world.state(chassis).value().pose;
            const Vec3 up = pose.rotate(Vec3::UnitZ());
            std::printf(
                "t = %.1f s: chassis at x = %6.3f m, %.3f m above the terrain, tilted %5.1f degrees\n",
                world.time(), pose.position.x(),
                pose.position.z() - terrain_height(pose.position.x(), pose.position.y()),
                std::acos(std::clamp(up.z(), -1.0, 1.0)) * 180 / std::numbers::pi);
        }
    }
    const Vec3 end = world.state(chassis).value().pose.position;
    // Rolling without slip at the motors' speed would cover 0.3 m x 6 rad/s = 1.8 m/s x 5 s = 9 m.
    std::printf("driven %.3f m (%.3f m along x) in 5 s; largest axle error %.3g m\n", (end - start).norm(),
                end.x() - start.x(), worst_error);
    return 0;
}
