// The integrator against closed forms and conservation laws: projectile (semi-implicit Euler error and its
// first-order convergence), torque-free asymmetric bodies (angular momentum to round-off, bounded energy),
// spring-mass oscillator (period and damped decay), external forces and torques.
#include "world_fixture.h"

#include <simpulse/dynamics/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace simpulse::test {
namespace {

constexpr double kBallRadius = 0.1;

// Semi-implicit Euler: v_n = v0 + g n dt, x_n = x0 + v0 t + g dt^2 n (n + 1) / 2 = exact + g t dt / 2.
TEST(Integration, ProjectileFollowsTheSemiImplicitEulerClosedForm) {
    const Vec3 g(0, 0, -9.81), x0(1, 2, 3), v0(3, -1, 8);
    const double t_end = 1.5;
    double previous_error = 0;
    for (int n : {150, 300, 600, 1200}) {
        DynamicsWorld w(with_gravity(g));
        const BodyId id = add_sphere(w, kBallRadius, x0, 1.0, v0);
        const double dt = t_end / n;
        for (int k = 0; k < n; ++k) ASSERT_TRUE(w.step(dt).ok);
        const Body& b = w.body(id);
        const Vec3 exact = x0 + v0 * t_end + 0.5 * g * t_end * t_end;
        const Vec3 discrete = exact + 0.5 * g * t_end * dt;
        EXPECT_LT((b.com_position - discrete).norm(), 1e-12 * (1 + exact.norm()))
            << "dt " << dt << ": off the semi-implicit Euler closed form by "
            << (b.com_position - discrete).norm();
        EXPECT_LT((b.velocity - (v0 + g * t_end)).norm(), 1e-12 * 100);
        const double error = (b.com_position - exact).norm();
        EXPECT_NEAR(error, 0.5 * g.norm() * t_end * dt, 1e-10) << "error bound |g| t dt / 2";
        if (previous_error > 0) {
            EXPECT_NEAR(previous_error / error, 2.0, 1e-6) << "convergence order 1";
        }
        previous_error = error;
    }
}

// Semi-implicit Euler is leapfrog: with steps of one length h it follows the parabola x0 + (v0 + g h / 2) t +
// g t^2 / 2 exactly, carrying v(t - h / 2). When the step length changes (substeps, a varying frame time),
// restagger_velocities moves the carried velocity to the new half step, so the body stays on that parabola;
// without it, each change would shift the path by g (h - h') t / 2 (here 1.6 mm by the end) and, around a
// bounce, take m g dt |v| of the energy (docs/findings.md, "Impacts inside a step").
TEST(Integration, ProjectileStaysOnItsParabolaWhenTheStepLengthChanges) {
    const Vec3 g(0, 0, -9.81), x0(1, 2, 3), v0(3, -1, 8);
    DynamicsWorld w(with_gravity(g));
    const BodyId id = add_sphere(w, kBallRadius, x0, 1.0, v0);
    const double steps[] = {1.0 / 60, 1.0 / 240, 1.0 / 240, 1.0 / 240, 1.0 / 120, 1.0 / 30, 0.013,   1.0 / 60,
                            0.002,    0.002,     1.0 / 60,  0.021,     1.0 / 240, 1.0 / 60, 1.0 / 60};
    const Vec3 v_start = v0 + 0.5 * g * steps[0];  // the velocity at t = 0 of the parabola it follows
    double t = 0, worst_position = 0, worst_velocity = 0;
    for (const double h : steps) {
        ASSERT_TRUE(w.step(h).ok);
        t += h;
        const Body& b = w.body(id);
        worst_position =
            std::max(worst_position, (b.com_position - (x0 + v_start * t + 0.5 * g * t * t)).norm());
        worst_velocity = std::max(worst_velocity, (b.velocity - (v_start + g * (t - 0.5 * h))).norm());
    }
    EXPECT_LT(worst_position, 1e-13 * 100) << "off the parabola by " << worst_position << " m";
    EXPECT_LT(worst_velocity, 1e-13 * 100)
        << "carried velocity off v(t - h/2) by " << worst_velocity << " m/s";
}

// Box with half extents chosen so that the principal moments are (2, 3, 4) for mass 3.
BodyId add_asymmetric_body(DynamicsWorld& w, const Vec3& omega) {
    BodyDesc d;
    d.shape = make_box(Vec3(std::sqrt(2.5), std::sqrt(1.5), std::sqrt(0.5)));
    d.mass = 3.0;
    d.pose.orientation = Quat(Eigen::AngleAxisd(0.3, Vec3(1, 1, 0).normalized()));
    d.angular_velocity = d.pose.orientation * omega;
    return w.create_body(d);
}

struct SpinResult {
    double momentum_error;
    double energy_drift;
};

SpinResult spin(const Vec3& omega_body, double dt, double duration) {
    DynamicsWorld w(with_gravity(Vec3::Zero()));
    const BodyId id = add_asymmetric_body(w, omega_body);
    const Vec3 l0 = w.angular_momentum();
    const double e0 = w.energy().kinetic;
    SpinResult r{0, 0};
    const int steps = static_cast<int>(std::lround(duration / dt));
    for (int k = 0; k < steps; ++k) {
        EXPECT_TRUE(w.step(dt).ok);
        r.momentum_error = std::max(r.momentum_error, (w.angular_momentum() - l0).norm() / l0.norm());
        r.energy_drift = std::max(r.energy_drift, std::abs(w.energy().kinetic - e0) / e0);
    }
    EXPECT_NEAR(w.body(id).inertia_local.diagonal().sum(), 9.0, 1e-12);
    return r;
}

TEST(Integration, TorqueFreeAsymmetricBodyConservesAngularMomentumAboutStableAxes) {
    for (int axis : {0, 2}) {  // smallest and largest principal moment: stable
        Vec3 omega(0.05, -0.04, 0.03);
        omega[axis] = 5.0;
        const SpinResult r = spin(omega, 1.0 / 240, 10.0);
        EXPECT_LT(r.momentum_error, 1e-9)
            << "axis " << axis << ": relative angular momentum error " << r.momentum_error;
        EXPECT_LT(r.energy_drift, 1e-3)
            << "axis " << axis << ": relative kinetic energy drift " << r.energy_drift;
    }
}

// The intermediate axis is unstable (the Dzhanibekov flip): the body tumbles, and still the midpoint rotation
// step keeps the angular momentum to round-off and the energy bounded.
TEST(Integration, TumblingAboutTheIntermediateAxisKeepsMomentumAndEnergy) {
    const SpinResult r = spin(Vec3(0.02, 5.0, 0.01), 1.0 / 240, 10.0);
    EXPECT_LT(r.momentum_error, 1e-9) << "relative angular momentum error " << r.momentum_error;
    EXPECT_LT(r.energy_drift, 1e-3) << "relative kinetic energy drift " << r.energy_drift;
}

// Mass m on a spring of stiffness k to a fixed point, no gravity: x'' = -(k/m) x (- c/m x').
struct Oscillator {
    DynamicsWorld world{with_gravity(Vec3::Zero())};
    BodyId body;
    Oscillator(double m, double k, double c, double x0) {
        body = add_sphere(world, kBallRadius, Vec3(x0, 0, 0), m);
        SpringDesc s;
        s.body_b = body;
        s.anchor_a = Vec3(-1, 0, 0);
        s.anchor_b = Vec3(x0, 0, 0);
        s.stiffness = k;
        s.damping = c;
        s.rest_length = 1.0;
        world.add_spring(s);
    }
    double x() const { return world.body(body).com_position.x(); }
};

TEST(Integration, SpringMassPeriodMatchesTheClosedForm) {
    const double m = 2.0, k = 50.0, dt = 1.0 / 240;
    Oscillator o(m, k, 0.0, 0.1);
    // Upward zero crossings over 20 periods, interpolated linearly between steps.
    std::vector<double> crossings;
    double previous = o.x();
    for (int n = 1; n < 20 * 240 && crossings.size() < 21; ++n) {
        ASSERT_TRUE(o.world.step(dt).ok);
        const double now = o.x();
        if (previous < 0 && now >= 0) crossings.push_back((n - 1 + previous / (previous - now)) * dt);
        previous = now;
    }
    ASSERT_GE(crossings.size(), 11u);
    const double period = (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
    const double exact = 2 * kPi * std::sqrt(m / k);
    EXPECT_NEAR(period / exact, 1.0, 0.005) << "period " << period << " s, closed form " << exact << " s";
}

TEST(Integration, DampedSpringDecaysAtTheExactRate) {
    const double m = 1.0, k = 4 * kPi * kPi, zeta = 0.05, dt = 1.0 / 240;
    const double omega = std::sqrt(k / m), c = 2 * zeta * omega * m;
    Oscillator o(m, k, c, 0.2);
    // Successive maxima of x: their ratio over 10 periods is exp(-zeta omega 10 T_d). Semi-implicit Euler
    // changes the decay rate by a relative zeta omega dt (the step matrix has determinant 1 - 2 zeta omega
    // dt) and sampling the peaks at steps costs (omega dt)^2 / 2 relative per peak: well inside 1 %.
    std::vector<double> peaks;
    double a = o.x(), b = a;
    for (int n = 0; n < 12 * 240; ++n) {
        ASSERT_TRUE(o.world.step(dt).ok);
        const double now = o.x();
        if (b > a && b >= now) peaks.push_back(b);
        a = b;
        b = now;
    }
    ASSERT_GE(peaks.size(), 11u);
    const double period_damped = 2 * kPi / (omega * std::sqrt(1 - zeta * zeta));
    const double measured = std::log(peaks[0] / peaks[10]);
    const double exact = zeta * omega * 10 * period_damped;
    EXPECT_NEAR(measured / exact, 1.0, 0.01)
        << "log decrement over 10 periods " << measured << ", exact " << exact;
}

TEST(Integration, ForcesAndTorquesActForOneStep) {
    DynamicsWorld w(with_gravity(Vec3::Zero()));
    const BodyId id = add_sphere(w, kBallRadius, Vec3::Zero(), 2.0);
    const double dt = 0.01;
    w.add_force(id, Vec3(4, 0, 0));
    w.add_torque(id, Vec3(0, 0, 0.3));
    ASSERT_TRUE(w.step(dt).ok);
    const Body& b = w.body(id);
    EXPECT_NEAR(b.velocity.x(), 4 / 2.0 * dt, 1e-15);
    const double inertia = 0.4 * 2.0 * kBallRadius * kBallRadius;
    EXPECT_NEAR(b.angular_velocity.z(), 0.3 / inertia * dt, 1e-13);
    ASSERT_TRUE(w.step(dt).ok);  // cleared after the step: no further acceleration
    EXPECT_NEAR(w.body(id).velocity.x(), 4 / 2.0 * dt, 1e-15);
    // An off-centre force makes both a force and a torque; an impulse changes the velocity at once.
    w.apply_impulse(id, Vec3(0, 1, 0), w.body(id).com_position + Vec3(0.1, 0, 0));
    EXPECT_NEAR(w.body(id).velocity.y(), 0.5, 1e-15);
    EXPECT_NEAR(w.body(id).angular_velocity.z(), 0.3 / inertia * dt + 0.1 / inertia, 1e-12);
}

TEST(Integration, HandlesStayInvalidAfterDestroy) {
    DynamicsWorld w;
    const BodyId a = add_sphere(w, kBallRadius, Vec3::Zero(), 1.0);
    w.destroy_body(a);
    const BodyId b = add_sphere(w, kBallRadius, Vec3::Zero(), 1.0);
    EXPECT_EQ(a.index, b.index);  // slot reused...
    EXPECT_FALSE(w.is_valid(a));  // ...but the old handle stays invalid
    EXPECT_TRUE(w.is_valid(b));
    EXPECT_THROW(w.body(a), std::invalid_argument);
}

}  // namespace
}  // namespace simpulse::test
