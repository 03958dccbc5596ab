// Exact impacts (thesis chapter 4, theorems on momentum, angular momentum and energy): a spinning box and
// cylinder colliding once in free space, a Newton's cradle of pendulums, and a closed box of spinning bodies.
#include "world_fixture.h"

#include <simpulse/dynamics/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace simpulse::test {
namespace {

struct PairRun {
    double worst_dl = 0;  // largest |L - L0| / |L0| over the run
    double worst_dp = 0;
    int contact_steps = 0;
};

// A box and a cylinder, both spinning about skew axes, fly at each other in free space and collide once (a
// few contact steps). Nothing outside acts on them: momentum and angular momentum about the origin are
// constants, checked after every step.
PairRun spinning_pair(double friction, double restitution, double dt) {
    DynamicsWorld w(free_space());
    w.materials().set(0, Material{friction, restitution, 1000});
    BodyDesc box;
    box.shape = make_box(Vec3(0.3, 0.2, 0.15));
    box.pose.position = Vec3(-1.0, 0.05, 0.02);
    box.pose.orientation = Quat(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized()));
    box.velocity = Vec3(2.0, 0.1, 0.0);
    box.angular_velocity = Vec3(1.0, -3.0, 5.0);
    const BodyId a = w.create_body(box);
    BodyDesc cyl;
    cyl.shape = make_cylinder(0.2, 0.25);
    cyl.pose.position = Vec3(1.0, -0.1, 0.1);
    cyl.pose.orientation = Quat(Eigen::AngleAxisd(1.1, Vec3(0.3, 1, 0.2).normalized()));
    cyl.velocity = Vec3(-2.0, 0.0, 0.05);
    cyl.angular_velocity = Vec3(-4.0, 2.0, 1.0);
    const BodyId b = w.create_body(cyl);
    (void)a;
    (void)b;
    const Vec3 l0 = w.angular_momentum();
    const Vec3 p0 = w.linear_momentum();
    PairRun run;
    for (int i = 0; i < static_cast<int>(1.0 / dt); ++i) {
        EXPECT_TRUE(w.step(dt).ok);
        const double dl = (w.angular_momentum() - l0).norm() / l0.norm();
        const double dp = (w.linear_momentum() - p0).norm() / p0.norm();
        run.worst_dl = std::max(run.worst_dl, dl);
        run.worst_dp = std::max(run.worst_dp, dp);
        // A step whose substeps touched (a begin or end event): its last substep may already be apart.
        run.contact_steps += !w.contact_events().empty();
    }
    return run;
}

// The bound is round-off: |L| and |P| are sums of terms of their own size, and the step does ~10^3 operations
// on each (measured 4e-14 to 8e-13).
TEST(ExactImpacts, SpinningBoxAndCylinderKeepMomentumAndAngularMomentum) {
    for (double dt : {1e-3, 1.0 / 60})
        for (double friction : {0.0, 0.5})
            for (double e : {0.3, 1.0}) {
                const PairRun r = spinning_pair(friction, e, dt);
                std::printf("dt %g friction %g e %g: dL/L %.3e dP/P %.3e contact steps %d\n", dt, friction, e,
                            r.worst_dl, r.worst_dp, r.contact_steps);
                EXPECT_GT(r.contact_steps, 0) << "the bodies never touched";
                EXPECT_LT(r.worst_dl, 1e-9) << "dt " << dt << " friction " << friction << " e " << e
                                            << ": angular momentum changed by " << r.worst_dl << " of itself";
                EXPECT_LT(r.worst_dp, 1e-9) << "dt " << dt << " friction " << friction << " e " << e
                                            << ": momentum changed by " << r.worst_dp << " of itself";
            }
}

struct CradleRun {
    double energy_start = 0;
    double energy_end = 0;
    double worst_change = 0;                 // largest |E - E0| over the run, J
    double first_impact_speed = 0;           // the released ball's speed just before its first impact, m/s
    std::vector<double> after_first_impact;  // the balls' velocities along the row just after it, m/s
};

// Newton's cradle: five touching 1 kg spheres (radius 5 cm) on 1 m pendulums (ball joints to the world), no
// friction, e = 1, no sleeping; the first ball released from 30 degrees. With one ball: a lone pendulum (no
// impact: the integrator's own energy measure).
CradleRun newtons_cradle(int ball_count, double dt, double duration) {
    constexpr double kRadius = 0.05, kLength = 1.0;
    WorldSettings ws;
    ws.allow_sleeping = false;
    DynamicsWorld w(ws);
    w.materials().set(0, Material{0.0, 1.0, 1000});
    std::vector<BodyId> balls;
    for (int i = 0; i < ball_count; ++i) {
        const Vec3 pivot(2 * kRadius * i, 0, kLength);
        const double angle = i == 0 ? kPi / 6 : 0.0;
        balls.push_back(
            add_sphere(w, kRadius, pivot + kLength * Vec3(-std::sin(angle), 0, -std::cos(angle)), 1.0));
        add_joint_to_world(w, balls.back(), pivot);
    }
    auto energy = [&] {  // kinetic plus potential, zero at the balls' rest height
        double e = 0;
        for (BodyId id : balls) e += mechanical_energy(w.body(id));
        return e;
    };
    CradleRun run;
    run.energy_start = energy();
    const int steps = static_cast<int>(std::lround(duration / dt));
    for (int i = 0; i < steps; ++i) {
        const double speed_before = w.body(balls[0]).velocity.norm();
        EXPECT_TRUE(w.step(dt).ok);
        if (run.after_first_impact.empty() && ball_count > 1 && w.body(balls.back()).velocity.norm() > 1e-6) {
            run.first_impact_speed = speed_before;
            for (BodyId id : balls) run.after_first_impact.push_back(w.body(id).velocity.x());
        }
        run.worst_change = std::max(run.worst_change, std::abs(energy() - run.energy_start));
    }
    run.energy_end = energy();
    return run;
}

// Every contact of an impact restitutes in the same solve (Poisson's law, p' = (1 + e) p), whether it was
// approaching, touching or separating at the step's start. At e = 1 the cradle then keeps its energy through
// every impact, including those where a pushed ball runs into a neighbour that had drifted away (with only
// approaching contacts restituting, the cradle lost 34 % in 5 s). The first impact has the simultaneous law's
// closed form: the released ball (speed v) and the touching row share the inelastic impulses
// p_k = (5 - k) m v / 5 at contact k, doubled at e = 1: the released ball leaves at -3v/5 and the other four
// at 2v/5 together. The energy is measured as the integrator carries it (velocities half a step behind
// positions): a lone pendulum's measure swings by its own amount at 60 Hz, which the 1/60 s bound adds.
TEST(ExactImpacts, NewtonsCradleKeepsItsEnergy) {
    for (double dt : {1e-3, 1.0 / 60}) {
        const CradleRun r = newtons_cradle(5, dt, 5.0);
        const CradleRun lone = newtons_cradle(1, dt, 5.0);
        const double change = r.worst_change / r.energy_start;
        const double measure = lone.worst_change / lone.energy_start;
        std::printf("dt %g: energy %.6f -> %.6f J, worst change %.3e of it (lone pendulum's measure %.3e)\n",
                    dt, r.energy_start, r.energy_end, change, measure);
        const double bound = dt < 0.01 ? 0.01 : 0.02;
        EXPECT_LT(std::abs(r.energy_end / r.energy_start - 1), bound)
            << "dt " << dt << ": energy " << r.energy_start << " -> " << r.energy_end << " J after 5 s";
        EXPECT_LT(change, bound + measure)
            << "dt " << dt << ": the energy changed by " << change << " of itself";
        ASSERT_EQ(r.after_first_impact.size(), 5u) << "the last ball never moved";
        const double v = r.first_impact_speed;
        std::printf("  first impact at %.4f m/s:", v);
        for (double u : r.after_first_impact) std::printf(" %.4f", u);
        std::printf(" m/s\n");
        // Around the impact the balls also swing on their joints: the released ball turns by at most v dt / L
        // in a step, so gravity changes its speed by at most g v dt^2 / L there (L = 1 m), once before the
        // impact (v is read a step earlier) and once within it.
        const double swing = 2 * kG * v * dt * dt;
        EXPECT_NEAR(r.after_first_impact[0], -0.6 * v, swing) << "dt " << dt;
        for (int k = 1; k < 5; ++k)
            EXPECT_NEAR(r.after_first_impact[static_cast<std::size_t>(k)], 0.4 * v, swing);
    }
}

// A busy free-space scene: 20 spinning spheres and cubes (isotropic inertia: their rotation carries no
// energy error of its own) inside a closed, free-floating box (a compound of six 10 cm walls, 200 kg), no
// gravity, no friction, e = 1. Nothing outside acts on it: momentum, angular momentum and kinetic energy are
// constants, checked after every step in which a contact begins. Bound: 1e-9 relative.
TEST(ExactImpacts, BusyClosedBoxKeepsEnergyAndBothMomentaAtEveryContactEvent) {
    DynamicsWorld w(free_space());
    w.materials().set(0, Material{0.0, 1.0, 1000});
    constexpr double kHalf = 1.0, kWall = 0.05;  // inner half size, wall half thickness
    std::vector<CompoundChild> walls;
    for (int axis = 0; axis < 3; ++axis)
        for (double side : {-1.0, 1.0}) {
            Vec3 half = Vec3::Constant(kHalf + 2 * kWall);
            half[axis] = kWall;
            CompoundChild c;
            c.shape = make_box(half);
            c.pose.position = Vec3::Zero();
            c.pose.position[axis] = side * (kHalf + kWall);
            walls.push_back(c);
        }
    BodyDesc box;
    box.shape = make_compound(std::move(walls));
    box.mass = 200;
    box.velocity = Vec3(0.05, -0.02, 0.01);
    box.angular_velocity = Vec3(0.01, 0.02, -0.03);
    w.create_body(box);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    for (int i = 0; i < 20; ++i) {
        BodyDesc d;
        d.shape = i % 2 == 0 ? make_sphere(0.12) : make_box(Vec3::Constant(0.1));
        d.pose.position = Vec3(-0.6 + 0.4 * (i % 4), -0.6 + 0.6 * (i / 4 % 3), i < 12 ? -0.4 : 0.4);
        d.pose.orientation =
            Quat(Eigen::AngleAxisd(3 * unit(rng), Vec3(unit(rng), unit(rng), 1).normalized()));
        d.velocity = 2.0 * Vec3(unit(rng), unit(rng), unit(rng));
        d.angular_velocity = 5.0 * Vec3(unit(rng), unit(rng), unit(rng));
        w.create_body(d);
    }
    const Vec3 p0 = w.linear_momentum(), l0 = w.angular_momentum();
    const double e0 = w.energy().kinetic;
    double worst_e = 0, worst_p = 0, worst_l = 0;
    int events = 0;
    for (int i = 0; i < 2000; ++i) {
        ASSERT_TRUE(w.step(1e-3).ok);
        const bool began =
            std::any_of(w.contact_events().begin(), w.contact_events().end(),
                        [](const ContactEvent& e) { return e.type == ContactEvent::Type::begin; });
        if (!began) continue;
        ++events;
        worst_e = std::max(worst_e, std::abs(w.energy().kinetic / e0 - 1));
        worst_p = std::max(worst_p, (w.linear_momentum() - p0).norm() / p0.norm());
        worst_l = std::max(worst_l, (w.angular_momentum() - l0).norm() / l0.norm());
    }
    std::printf("%d steps with contact events: dE/E %.3e dP/P %.3e dL/L %.3e\n", events, worst_e, worst_p,
                worst_l);
    EXPECT_GT(events, 20);
    EXPECT_LT(worst_e, 1e-9);
    EXPECT_LT(worst_p, 1e-9);
    EXPECT_LT(worst_l, 1e-9);
}

// An elastic gas: 100 spheres in a static closed box (six planes), no gravity, no friction, e = 1. Every
// collision is elastic and the walls do no work: the kinetic energy is a constant, to round-off.
TEST(ExactImpacts, ElasticGasKeepsItsEnergy) {
    DynamicsWorld w(free_space());
    w.materials().set(0, Material{0.0, 1.0, 1000});
    for (int axis = 0; axis < 3; ++axis)
        for (double side : {-1.0, 1.0})
            add_static(w, make_plane(-side * Vec3::Unit(axis), -1.0));  // inward normal, 1 m from the centre
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    for (int i = 0; i < 100; ++i) {
        const Vec3 velocity = 2.0 * Vec3(unit(rng), unit(rng), unit(rng));
        add_sphere(w, 0.06, Vec3(-0.8 + 0.4 * (i % 5), -0.8 + 0.4 * (i / 5 % 5), -0.6 + 0.4 * (i / 25)),
                   std::nullopt, velocity);
    }
    const double e0 = w.energy().kinetic;
    double worst = 0;
    int contact_steps = 0;
    for (int i = 0; i < 2000; ++i) {
        ASSERT_TRUE(w.step(1e-3).ok);
        contact_steps += !w.contact_events().empty();
        worst = std::max(worst, std::abs(w.energy().kinetic / e0 - 1));
    }
    std::printf("%d steps with contact events: largest dE/E %.3e\n", contact_steps, worst);
    EXPECT_GT(contact_steps, 100);
    EXPECT_LT(worst, 1e-9) << "kinetic energy changed by " << worst << " of itself";
}

}  // namespace
}  // namespace simpulse::test
