// Dynamics of cylinders on height fields through the whole step (World API: collision with the analytic
// cylinder-terrain algorithm, cylinder_terrain.h, then the solver), against the closed forms of issue 5:
//  - rolling on a flat field at 3 m/s across hundreds of cells: |v_z| stays below 1e-3 m/s and the speed
//  drops by
//    less than 0.5 % in 5 s (a rigid cylinder rolling without slip on a plane keeps its energy);
//  - rolling without slipping down a planar slope of angle theta: a = g sin(theta) / (1 + I / (m r^2)) =
//    (2/3) g sin(theta) for a solid cylinder (I = m r^2 / 2), within 1 %;
//  - standing on its base on a slope with friction above tan(theta): it stays put, drift below 1e-4 m in 5 s.
#include "world_fixture.h"

#include <simpulse/world.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

namespace simpulse::test {
namespace {

constexpr double kDt = 1.0 / 240;
// Simulated time of the rolling and standing tests: the 5 s; unoptimised (sanitizer) builds run 1.5 s
// with the same thresholds.
#ifdef NDEBUG
constexpr double kDuration = 5;
#else
constexpr double kDuration = 1.5;
#endif

// Height field descending along `down` (a horizontal unit vector) with the given slope, plus a checkerboard
// of
// +-`checker` per vertex (10 nm keeps the surface flat to any contact tolerance but turns every cell into two
// triangles and the flat-patch path off).
ShapePtr field(int rows, int columns, double spacing, const Vec2& origin, double slope,
               const Vec2& down = Vec2::UnitX(), double checker = 0) {
    std::vector<double> h(static_cast<std::size_t>(rows) * static_cast<std::size_t>(columns));
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < columns; ++j)
            h[static_cast<std::size_t>(i) * static_cast<std::size_t>(columns) + static_cast<std::size_t>(j)] =
                -slope * (origin + spacing * Vec2(j, i)).dot(down) + ((i + j) % 2 == 0 ? checker : -checker);
    return create_height_field(origin, Vec2(spacing, spacing), rows, columns, std::move(h)).value();
}

// Rolls a cylinder r = 0.3 m lying across x at 3 m/s for kDuration (5 s: 15 m, 300 cells of 5 cm) and reports
// the worst |v_z| and the relative speed loss.
void roll_on_flat(double checker, double& worst_vz, double& loss) {
    World world;
    ASSERT_TRUE(add_static(world, field(33, 401, 0.05, Vec2(-2, -0.8), 0, Vec2::UnitX(), checker)));
    const double r = 0.3, v0 = 3;
    BodyDesc d;
    d.shape = create_cylinder(r, 0.25).value();
    d.mass = 20;
    d.pose.position = Vec3(0, 0, r);
    d.pose.orientation = Quat(Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitX()));  // axis along -y
    d.velocity = Vec3(v0, 0, 0);
    d.angular_velocity = Vec3(0, v0 / r, 0);  // rolling: v + w x (-r z) = 0
    const BodyId body = world.create_body(d).value();
    worst_vz = 0;
    const int steps = static_cast<int>(std::lround(kDuration / kDt));
    for (int s = 0; s < steps; ++s) {
        ASSERT_TRUE(world.step(kDt).ok());
        worst_vz = std::max(worst_vz, std::abs(world.state(body).value().velocity.z()));
    }
    const BodyState end = world.state(body).value();
    loss = 1 - end.velocity.x() / v0;
    std::printf("rolling (checkerboard %g m): travelled %.3f m, worst |v_z| %.3g m/s, speed loss %.4f %%\n",
                checker, end.pose.position.x(), worst_vz, 100 * loss);
    EXPECT_GT(end.pose.position.x(), 0.95 * v0 * kDuration);
}

TEST(CylinderTerrainDynamics, RollingOnFlatFieldKeepsHeightAndSpeed) {
    double worst_vz = 0, loss = 0;
    roll_on_flat(0, worst_vz, loss);  // the flat-patch path
    EXPECT_LT(worst_vz, 1e-3) << "worst |v_z| " << worst_vz;
    EXPECT_LT(std::abs(loss), 0.005) << "speed loss " << loss;
}

TEST(CylinderTerrainDynamics, RollingOnTriangulatedFlatFieldKeepsHeightAndSpeed) {
    double worst_vz = 0, loss = 0;
    roll_on_flat(1e-8, worst_vz, loss);  // every element through the per-element stage, across 600 diagonals
    EXPECT_LT(worst_vz, 1e-3) << "worst |v_z| " << worst_vz;
    EXPECT_LT(std::abs(loss), 0.005) << "speed loss " << loss;
}

// Acceleration along the slope of a cylinder (r = 0.25 m) released lying across a planar slope of 10 degrees
// descending along `down`, from a least-squares line through its speed between 0.25 s and 1.5 s.
double slope_acceleration(const Vec2& down) {
    const double theta = 10 * std::numbers::pi / 180, r = 0.25;
    World world;
    EXPECT_TRUE(add_static(world, field(61, 61, 0.05, Vec2(-1.5, -1.5), std::tan(theta), down)));
    BodyDesc d;
    d.shape = create_cylinder(r, 0.2).value();
    d.mass = 10;
    const Vec3 downhill(std::cos(theta) * down.x(), std::cos(theta) * down.y(), -std::sin(theta));
    const Vec3 n(std::sin(theta) * down.x(), std::sin(theta) * down.y(),
                 std::cos(theta));  // the slope's normal
    const Vec3 across = n.cross(downhill);
    d.pose.position = -1.0 * downhill + r * n;
    d.pose.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), across);
    const BodyId body = world.create_body(d).value();
    double st = 0, sv = 0, stt = 0, stv = 0;
    int n_fit = 0;
    for (int s = 1; s <= static_cast<int>(std::lround(1.5 / kDt)); ++s) {
        EXPECT_TRUE(world.step(kDt).ok());
        const double t = s * kDt;
        if (t < 0.25) continue;
        const double v = world.state(body).value().velocity.dot(downhill);
        st += t, sv += v, stt += t * t, stv += t * v, ++n_fit;
    }
    return (n_fit * stv - st * sv) / (n_fit * stt - st * st);
}

TEST(CylinderTerrainDynamics, RollsDownSlopeAtTwoThirdsGSinTheta) {
    // Friction 0.5 > tan(theta) / 3 = 0.059, enough to roll without slipping (solid cylinder). Down x, the
    // cells are rectangles; down a diagonal direction they are coplanar triangles and the cylinder rolls
    // across their edges.
    const double expected = 2.0 / 3.0 * kG * std::sin(10 * std::numbers::pi / 180);
    for (const Vec2& down : {Vec2(1, 0), Vec2(std::cos(0.5), std::sin(0.5))}) {
        const double a = slope_acceleration(down);
        std::printf("slope down (%.3f, %.3f): a = %.5f m/s^2, (2/3) g sin(theta) = %.5f, error %.3f %%\n",
                    down.x(), down.y(), a, expected, 100 * (a / expected - 1));
        EXPECT_NEAR(a, expected, 0.01 * expected);
    }
}

TEST(CylinderTerrainDynamics, StandsStillOnSlope) {
    // Standing on its base on a 10-degree slope with friction 0.5 > tan(10 deg) = 0.18: static friction holds
    // it.
    const double theta = 10 * std::numbers::pi / 180;
    World world;
    ASSERT_TRUE(add_static(world, field(21, 21, 0.05, Vec2(-0.5, -0.5), std::tan(theta))));
    BodyDesc d;
    d.shape = create_cylinder(0.2, 0.15).value();
    d.mass = 5;
    const Vec3 n(std::sin(theta), 0, std::cos(theta));
    d.pose.position = 0.15 * n;
    d.pose.orientation = Quat::FromTwoVectors(Vec3::UnitZ(), n);
    const BodyId body = world.create_body(d).value();
    // Let the contact settle for 0.25 s, then measure the drift over 5 s.
    for (int s = 0; s < 60; ++s) ASSERT_TRUE(world.step(kDt).ok());
    const Vec3 start = world.state(body).value().pose.position;
    for (int s = 0; s < static_cast<int>(std::lround(kDuration / kDt)); ++s)
        ASSERT_TRUE(world.step(kDt).ok());
    const double drift = (world.state(body).value().pose.position - start).norm();
    std::printf("standing on slope: drift %.3g m in %g s\n", drift, kDuration);
    EXPECT_LT(drift, 1e-4) << "drift " << drift;
}

}  // namespace
}  // namespace simpulse::test
