// Coulomb friction on an incline, against closed forms (issue 4): a box sticks below the friction angle
// (tan(theta) < mu), slides with g (sin(theta) - mu cos(theta)) above it, and a ball rolls down at
// 5/7 g sin(theta). Frictions at the largest double stick like any friction above the slope's tangent.
#include "world_fixture.h"

#include <simpulse/dynamics/material.h>
#include <simpulse/dynamics/world.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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

// A cube and a spinning slab stick at the largest finite friction, as at any friction above the slope's
// tangent: no drift in 1 s, and the slab's torsional row (mu times a 2.8 m radius) stops its spin.
TEST(Friction, FrictionAtTheLargestDoubleSticksWithoutNaN) {
    const double huge = std::numeric_limits<double>::max(), dt = 1.0 / 240;
    const double theta = 40 * kPi / 180;  // below the tipping angle of a cube (45 degrees)
    Incline incline(SolverMode::exact, theta, huge, make_box(Vec3(0.1, 0.1, 0.1)), 0.1);
    const MaterialId other = incline.world.materials().add(Material{huge, 0, 1000});
    BodyDesc slab;
    slab.shape = make_box(Vec3(2, 2, 0.1));
    slab.material = other;
    slab.pose.orientation = incline.q;
    slab.pose.position = incline.q * Vec3(10, 0, 0.1);
    slab.angular_velocity = incline.q * Vec3(0, 0, 1);  // spinning about the normal: the torsional row
    const BodyId spinning = incline.world.create_body(slab);
    for (int i = 0; i < 20; ++i) ASSERT_TRUE(incline.world.step(dt).ok);
    const Vec3 start = incline.world.body(incline.body).com_position;
    const Vec3 slab_start = incline.world.body(spinning).com_position;
    for (int i = 0; i < static_cast<int>(1.0 / dt); ++i) ASSERT_TRUE(incline.world.step(dt).ok);
    const double drift = (incline.world.body(incline.body).com_position - start).norm();
    const double slab_drift = (incline.world.body(spinning).com_position - slab_start).norm();
    const double slab_spin = incline.world.body(spinning).angular_velocity.norm();
    EXPECT_LT(drift, 1e-5) << "cube drift " << drift << " m in 1 s at mu = " << huge;
    EXPECT_LT(slab_drift, 1e-5) << "slab drift " << slab_drift << " m in 1 s";
    EXPECT_LT(slab_spin, 1e-6) << "slab still spins at " << slab_spin << " rad/s";
}

// An unloaded patch carries no friction, however large mu: a box touching the ground in zero gravity keeps
// its sliding and spinning velocities. At mu = inf the bound would be inf * 0 = NaN, which the solver's bound
// tests do not catch; the material mean and the torsional mu * radius (2.8 m here) must stay finite for that.
TEST(Friction, UnloadedPatchAtTheLargestDoubleCarriesNoFriction) {
    const double huge = std::numeric_limits<double>::max(), dt = 1.0 / 240;
    WorldSettings settings = with_gravity(Vec3::Zero());
    settings.solver.mode = SolverMode::exact;
    DynamicsWorld world(settings);
    world.materials().set(0, Material{huge, 0, 1000});
    add_ground(world);
    BodyDesc slab;
    slab.shape = make_box(Vec3(2, 2, 0.1));
    slab.pose.position = Vec3(0, 0, 0.1);
    slab.velocity = Vec3(1, 0, 0);
    slab.angular_velocity = Vec3(0, 0, 1);
    const BodyId body = world.create_body(slab);
    for (int i = 0; i < 24; ++i) ASSERT_TRUE(world.step(dt).ok);
    const Body& b = world.body(body);
    EXPECT_NEAR(b.velocity.x(), 1.0, 1e-12) << "sliding velocity " << b.velocity.transpose();
    EXPECT_NEAR(b.angular_velocity.z(), 1.0, 1e-12) << "spin " << b.angular_velocity.transpose();
}

// The pair rule is the mean of the two frictions; two valid frictions at the largest double average to it.
TEST(Friction, MeanOfTwoFrictionsAtTheLargestDoubleIsFinite) {
    const double huge = std::numeric_limits<double>::max();
    MaterialTable table;
    const MaterialId a = table.add(Material{huge, 0, 1000});
    const MaterialId b = table.add(Material{huge, 0, 1000});
    EXPECT_EQ(table.combine(a, b).friction, huge) << "mean friction " << table.combine(a, b).friction;
}

}  // namespace
}  // namespace simpulse::test
