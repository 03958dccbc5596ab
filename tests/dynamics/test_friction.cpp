// Coulomb friction on an incline, against closed forms (issue 4): a box sticks below the friction angle
// (tan(theta) < mu), slides with g (sin(theta) - mu cos(theta)) above it, and a ball rolls down at
// 5/7 g sin(theta).
#include "world_fixture.h"

#include <simpulse/dynamics/world.h>

#include <gtest/gtest.h>

#include <cmath>

namespace simpulse::test {
namespace {

// Incline through the origin with normal q z, q = rotation by theta about y; q x points down the slope.
struct Incline {
    DynamicsWorld world;
    Quat q;
    BodyId body;
    Incline(SolverMode mode, double theta, double mu, const ShapePtr& shape, double rest_height)
        : world(settings_for(mode)) {
        q = Quat(Eigen::AngleAxisd(theta, Vec3::UnitY()));
        world.materials().set(0, Material{mu, 0, 1000});
        add_ground(world, q * Vec3::UnitZ());
        BodyDesc d;
        d.shape = shape;
        d.pose.orientation = q;
        d.pose.position = q * Vec3(0, 0, rest_height);
        body = world.create_body(d);
    }
    double along_slope() const { return (q * Vec3::UnitX()).dot(world.body(body).com_position); }
    double speed_along_slope() const { return (q * Vec3::UnitX()).dot(world.body(body).velocity); }
};

TEST(Friction, BoxOnInclineStaysPutBelowTheFrictionAngle) {
    const double mu = 0.5, theta = 0.8 * std::atan(mu), dt = 1.0 / 240;
    Incline incline(SolverMode::exact, theta, mu, make_box(Vec3(0.1, 0.1, 0.1)), 0.1);
    for (int i = 0; i < 20; ++i) ASSERT_TRUE(incline.world.step(dt).ok);  // settle into contact
    const Vec3 start = incline.world.body(incline.body).com_position;
    for (int i = 0; i < static_cast<int>(2.0 / dt); ++i) ASSERT_TRUE(incline.world.step(dt).ok);
    const double drift = (incline.world.body(incline.body).com_position - start).norm();
    EXPECT_LT(drift, 1e-5) << "drift " << drift << " m in 2 s at tan(theta) = " << std::tan(theta)
                           << " < mu = " << mu;
}

TEST(Friction, BoxSlidesDownAnInclineWithCoulombDeceleration) {
    const double mu = 0.2, theta = 30 * kPi / 180, dt = 1.0 / 240;
    Incline incline(SolverMode::exact, theta, mu, make_box(Vec3(0.1, 0.1, 0.1)), 0.1);
    for (int i = 0; i < 24; ++i) ASSERT_TRUE(incline.world.step(dt).ok);
    const double v0 = incline.speed_along_slope();
    const int steps = static_cast<int>(1.0 / dt);
    for (int i = 0; i < steps; ++i) ASSERT_TRUE(incline.world.step(dt).ok);
    const double a = (incline.speed_along_slope() - v0) / (steps * dt);
    const double expected = kG * (std::sin(theta) - mu * std::cos(theta));
    EXPECT_NEAR(a / expected, 1.0, 0.01) << "acceleration " << a << " m/s^2, closed form " << expected;
}

TEST(Friction, BallRollsDownAnInclineAtFiveSeventhsGSinTheta) {
    const double mu = 0.5, theta = 20 * kPi / 180,
                 dt = 1.0 / 240;  // rolling needs mu >= 2/7 tan(theta) = 0.10
    Incline incline(SolverMode::exact, theta, mu, make_sphere(0.1), 0.1);
    for (int i = 0; i < 24; ++i) ASSERT_TRUE(incline.world.step(dt).ok);
    const double v0 = incline.speed_along_slope();
    const int steps = static_cast<int>(1.0 / dt);
    for (int i = 0; i < steps; ++i) ASSERT_TRUE(incline.world.step(dt).ok);
    const double a = (incline.speed_along_slope() - v0) / (steps * dt);
    const double expected = 5.0 / 7.0 * kG * std::sin(theta);
    EXPECT_NEAR(a / expected, 1.0, 0.01) << "acceleration " << a << " m/s^2, closed form " << expected;
}

}  // namespace
}  // namespace simpulse::test
