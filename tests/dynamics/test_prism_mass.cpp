// Prism mass properties (SEEDS.md section 5) against closed forms written independently: an L-shape as two
// rectangles by the parallel-axis theorem, and a ring (annulus, here a 64-gon pair) as the difference of two
// regular polygons' closed forms.
#include <simpulse/dynamics/mass_properties.h>

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace simpulse {
namespace {

constexpr double kPi = std::numbers::pi;

// Box of sides a x b x t centred at (cx, cy, 0): mass and inertia about the point (px, py, 0).
struct Block {
    double m;
    Mat3 inertia;  // about the block's centre
    Vec3 centre;
};
Block block(double a, double b, double t, double cx, double cy, double rho) {
    const double m = rho * a * b * t;
    Mat3 i = Mat3::Zero();
    i(0, 0) = m * (b * b + t * t) / 12;
    i(1, 1) = m * (a * a + t * t) / 12;
    i(2, 2) = m * (a * a + b * b) / 12;
    return {m, i, Vec3(cx, cy, 0)};
}

TEST(PrismMass, LShapeMatchesTwoBlocks) {
    const double rho = 700, t = 0.3;
    // L: [0,3]x[0,1] plus [0,1]x[1,3].
    const ShapePtr l = make_prism({{{0, 0}, {3, 0}, {3, 1}, {1, 1}, {1, 3}, {0, 3}}}, t, 0);
    const MassProperties p = compute_mass_properties(*l, rho);
    const Block b1 = block(3, 1, t, 1.5, 0.5, rho), b2 = block(1, 2, t, 0.5, 2, rho);
    const double m = b1.m + b2.m;
    const Vec3 c = (b1.m * b1.centre + b2.m * b2.centre) / m;
    Mat3 i = Mat3::Zero();
    for (const Block& b : {b1, b2}) {
        const Vec3 d = b.centre - c;
        i += b.inertia + b.m * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
    }
    EXPECT_NEAR(p.mass, m, 1e-12 * m);
    EXPECT_NEAR((p.center_of_mass - c).norm(), 0, 1e-12) << p.center_of_mass.transpose();
    const double err = (p.inertia - i).norm() / i.norm();
    EXPECT_LT(err, 1e-12) << "relative error " << err << "\ngot\n" << p.inertia << "\nwant\n" << i;
}

// Regular n-gon of circumradius r: area n r^2 sin(2 pi / n) / 2, polar second moment
// J = n r^4 sin(2 pi / n) (2 + cos(2 pi / n)) / 12 (sum of n isosceles triangles about the apex).
TEST(PrismMass, RingMatchesPolygonClosedForm) {
    const double rho = 1200, t = 0.25, r1 = 1.0, r0 = 0.6;
    const int n = 64;
    std::vector<Vec2> outer, hole;
    for (int i = 0; i < n; ++i) {
        const double a = 2 * kPi * i / n;
        outer.emplace_back(r1 * std::cos(a), r1 * std::sin(a));
        hole.emplace_back(r0 * std::cos(-a), r0 * std::sin(-a));
    }
    const MassProperties p = compute_mass_properties(*make_prism({outer, hole}, t, 0), rho);
    const double s = std::sin(2 * kPi / n), co = std::cos(2 * kPi / n);
    const auto area = [&](double r) { return n * r * r * s / 2; };
    const auto polar = [&](double r) { return n * r * r * r * r * s * (2 + co) / 12; };
    const double a = area(r1) - area(r0), j = polar(r1) - polar(r0), m = rho * a * t;
    EXPECT_NEAR(p.mass, m, 1e-12 * m);
    EXPECT_NEAR(p.center_of_mass.norm(), 0, 1e-12);
    // In-plane symmetric: S_xx = S_yy = J / 2.
    const double izz = rho * t * j, ixx = rho * t * j / 2 + m * t * t / 12;
    EXPECT_NEAR(p.inertia(2, 2), izz, 1e-12 * izz);
    EXPECT_NEAR(p.inertia(0, 0), ixx, 1e-12 * ixx);
    EXPECT_NEAR(p.inertia(1, 1), ixx, 1e-12 * ixx);
    EXPECT_NEAR(p.inertia(0, 1), 0, 1e-12 * ixx);
    // The thin-ring limit as a sanity bound: the 64-gon is within 1 % of the circle's 1/2 m (r1^2 + r0^2).
    EXPECT_NEAR(izz, 0.5 * m * (r1 * r1 + r0 * r0), 0.01 * izz);
}

}  // namespace
}  // namespace simpulse
