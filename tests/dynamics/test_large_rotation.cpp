// A torque-free asymmetric body turning by 0.1 to 50 rad per step (fast spins, small bodies after violent
// impacts): the rotation step must add neither kinetic energy nor angular momentum at any spin rate, and a
// spin about the major principal axis must stay about it (the energy-momentum polhode around that axis).
// Closed forms: E and L are constants of the motion; the angle between the major axis and L is bounded by
// sin^2 a <= (2E - |L|^2 / I1) / (|L|^2 (1 / I2 - 1 / I1)) with I1 > I2 > I3 the principal moments.
#include "world_fixture.h"

#include <simpulse/dynamics/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace simpulse::test {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kDt = 1.0 / 60;
constexpr int kSteps = 1000;
// Box 1 x 2 x 3 m of 6 kg: principal moments m (b^2 + c^2) / 12 = 6.5, 5, 2.5 kg m^2 about x, y, z.
constexpr double kMajor = 6.5, kIntermediate = 5.0;

// Round-off bound, relative, over the whole run (integrator.h): E and |L| are invariants of every
// chord-midpoint (sub-)step by construction, so only rounding changes them: each sub-step's quaternion
// product and Newton residual (16 eps of its terms), each step's conversions between L and w. Each moves the
// body momentum by a few eps relative, E by at most twice that. The longest run takes 1000 steps of 50 rad in
// at most 50 / 0.5 * sqrt(6.5 / 2.5) < 162 sub-steps each: linear accumulation of 4 eps per sub-step bounds
// the drift by 1.62e5 * 4 eps = 1.4e-10 (measured at most 2e-12, printed); at 200 rad per step the body turns
// about L in one rotation per step (more than 256 sub-steps), fewer roundings still. The midpoint step alone
// gained 8e-5 (0.1 rad per step) to 5.5 (5 rad per step) of E here.
constexpr double kRoundOff = 1.62e5 * 4 * kEps;

struct SpinRun {
    double energy_rise = 0;         // max over steps of |E - E0| / E0 (gained or lost)
    double momentum_magnitude = 0;  // max | |L| - |L0| | / |L0|
    double momentum_vector = 0;     // max |L - L0| / |L0|
    double major_axis_excess = 0;   // max over steps of angle(major axis, L) - closed-form bound, rad
    bool finite = true;
};

// rad_per_step = dt |w| at the start; omega_direction in body axes.
SpinRun spin(const Vec3& omega_direction, double rad_per_step) {
    DynamicsWorld w(with_gravity(Vec3::Zero()));
    BodyDesc d;
    d.shape = make_box(Vec3(0.5, 1.0, 1.5));
    d.mass = 6.0;
    d.pose.orientation = Quat(Eigen::AngleAxisd(0.7, Vec3(1, -2, 0.5).normalized()));
    d.angular_velocity = d.pose.orientation * (omega_direction.normalized() * (rad_per_step / kDt));
    const BodyId id = w.create_body(d);
    const double e0 = w.energy().kinetic;
    const Vec3 l0 = w.angular_momentum();
    // Polhode bound around the major axis (x): meaningful only when E is close to |L|^2 / (2 I1).
    const double sin2_bound =
        (2 * e0 - l0.squaredNorm() / kMajor) / (l0.squaredNorm() * (1 / kIntermediate - 1 / kMajor));
    const double angle_bound = std::asin(std::sqrt(std::clamp(sin2_bound, 0.0, 1.0)));
    SpinRun r;
    for (int k = 0; k < kSteps; ++k) {
        if (!w.step(kDt).ok) {
            r.finite = false;
            break;
        }
        const double e = w.energy().kinetic;
        const Vec3 l = w.angular_momentum();
        if (!std::isfinite(e) || !l.allFinite()) {
            r.finite = false;
            break;
        }
        r.energy_rise = std::max(r.energy_rise, std::abs(e - e0) / e0);
        r.momentum_magnitude = std::max(r.momentum_magnitude, std::abs(l.norm() - l0.norm()) / l0.norm());
        r.momentum_vector = std::max(r.momentum_vector, (l - l0).norm() / l0.norm());
        const Vec3 major_axis = w.body(id).orientation * Vec3::UnitX();
        const double angle = std::acos(std::min(1.0, std::abs(major_axis.dot(l.normalized()))));
        r.major_axis_excess = std::max(r.major_axis_excess, angle - angle_bound);
    }
    return r;
}

// 200 rad per step needs more than 256 sub-steps: the turn about L (integrator.cpp, rotate_in_substeps).
constexpr double kRates[] = {0.1, 1, 5, 20, 50, 200};

void expect_invariants(const Vec3& omega_direction, const char* name) {
    for (const double rate : kRates) {
        const SpinRun r = spin(omega_direction, rate);
        ASSERT_TRUE(r.finite) << name << " at " << rate << " rad/step: non-finite state";
        EXPECT_LE(r.energy_rise, kRoundOff)
            << name << " at " << rate << " rad/step: kinetic energy changed by " << r.energy_rise
            << " of its start";
        EXPECT_LE(r.momentum_magnitude, kRoundOff) << name << " at " << rate << " rad/step: |L| changed by "
                                                   << r.momentum_magnitude << " of its start";
        EXPECT_LE(r.momentum_vector, kRoundOff)
            << name << " at " << rate << " rad/step: world L changed by " << r.momentum_vector << " of |L|";
        std::printf("%s at %g rad/step: energy change %.3g, |L| %.3g, L %.3g (relative, max over %d steps)\n",
                    name, rate, r.energy_rise, r.momentum_magnitude, r.momentum_vector, kSteps);
    }
}

TEST(LargeRotation, SpinNearTheIntermediateAxisGainsNoEnergyOrMomentum) {
    expect_invariants(Vec3(0.02, 1.0, 0.01), "near the intermediate axis");
}

TEST(LargeRotation, SpinAboutAGenericAxisGainsNoEnergyOrMomentum) {
    expect_invariants(Vec3(1.0, 0.7, -0.5), "generic axis");
}

// Energy and |L| pin the body momentum to the closed polhode around the major axis: the major axis stays
// within the closed-form angle of L (0.052 rad here; it starts 0.041 rad off). Tolerance: the bound's own
// rounding, acos near a small angle loses about sqrt(eps) -> 1e-7 rad. The midpoint step alone left the
// polhode at 5, 20 and 50 rad per step (by 1.5, 0.22 and 0.018 rad).
TEST(LargeRotation, SpinAboutTheMajorAxisStaysAboutIt) {
    for (const double rate : kRates) {
        const SpinRun r = spin(Vec3(1.0, 0.05, 0.04), rate);
        ASSERT_TRUE(r.finite) << rate << " rad/step: non-finite state";
        EXPECT_LE(r.major_axis_excess, 1e-7) << rate << " rad/step: the major axis left its polhode bound by "
                                             << r.major_axis_excess << " rad";
        std::printf(
            "major axis at %g rad/step: angle beyond the polhode bound %.3g rad, energy change %.3g\n", rate,
            r.major_axis_excess, r.energy_rise);
    }
}

}  // namespace
}  // namespace simpulse::test
