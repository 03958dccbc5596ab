// The cable segment of the cable seed (SEEDS.md section 4, cable-rigid-collision.zh.txt), layers 1 and 2:
// the B-spline basis (partition of unity, reproduces the curve), derivatives against finite differences, the
// cubic root finder against closed forms (distinct, double and triple roots, degenerate leading
// coefficients) and against dense sampling, and the layer-2 intervals against dense sampling of u.
#include <simpulse/collision/cable_segment.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace simpulse {
namespace {

CableSegment random_segment(std::mt19937& rng, double spread) {
    std::uniform_real_distribution<double> x(-spread, spread);
    CableSegment s;
    for (Vec3& p : s.control) p = Vec3(x(rng), x(rng), x(rng));
    s.radius = 0.1;
    return s;
}

double cubic(const std::array<double, 4>& a, double u) {
    return a[0] + u * (a[1] + u * (a[2] + u * a[3]));
}

// Power coefficients of k (u - d0)(u - d1)(u - d2).
std::array<double, 4> from_roots(double k, double d0, double d1, double d2) {
    return {-k * d0 * d1 * d2, k * (d0 * d1 + d1 * d2 + d0 * d2), -k * (d0 + d1 + d2), k};
}

TEST(CableSegment, BasisIsAPartitionOfUnityAndReproducesTheCurve) {
    std::mt19937 rng(1);
    for (int trial = 0; trial < 100; ++trial) {
        const CableSegment s = random_segment(rng, 2);
        const std::array<Vec3, 4> c = cable_power_basis(s);
        for (int k = 0; k <= 100; ++k) {
            const double u = k / 100.0;
            const std::array<double, 4> w = cable_basis(u);
            EXPECT_NEAR(w[0] + w[1] + w[2] + w[3], 1.0, 1e-15) << "u = " << u;
            for (double wi : w) EXPECT_GE(wi, 0.0);
            const Vec3 power = c[0] + u * (c[1] + u * (c[2] + u * c[3]));
            EXPECT_LT((cable_point(s, u) - power).norm(), 1e-14) << "u = " << u;
        }
        // Segments of one cable join: the end of V0..V3 is the start of V1..V4 (C2 continuity of the chain).
        CableSegment next = s;
        next.control = {s.control[1], s.control[2], s.control[3], Vec3(0.3, -0.2, 0.9)};
        EXPECT_LT((cable_point(s, 1) - cable_point(next, 0)).norm(), 1e-14);
        EXPECT_LT((cable_derivative(s, 1) - cable_derivative(next, 0)).norm(), 1e-13);
        EXPECT_LT((cable_second_derivative(s, 1) - cable_second_derivative(next, 0)).norm(), 1e-13);
    }
}

TEST(CableSegment, DerivativesMatchFiniteDifferencesAndBoundsHold) {
    std::mt19937 rng(2);
    const double h = 1e-5;
    for (int trial = 0; trial < 50; ++trial) {
        const CableSegment s = random_segment(rng, 2);
        const double speed = cable_speed_bound(s), curvature = cable_second_derivative_bound(s, 0, 1);
        for (int k = 1; k < 100; ++k) {
            const double u = k / 100.0;
            const Vec3 d1 = (cable_point(s, u + h) - cable_point(s, u - h)) / (2 * h);
            const Vec3 d2 = (cable_derivative(s, u + h) - cable_derivative(s, u - h)) / (2 * h);
            // Central differences of a cubic: error h^2/6 |c'''| (c''' is constant, |6 c3| <= 10 * spread).
            EXPECT_LT((d1 - cable_derivative(s, u)).norm(), 1e-8) << "u = " << u;
            EXPECT_LT((d2 - cable_second_derivative(s, u)).norm(), 1e-8) << "u = " << u;
            EXPECT_LE(cable_derivative(s, u).norm(), speed * (1 + 1e-12));
            EXPECT_LE(cable_second_derivative(s, u).norm(), curvature * (1 + 1e-12));
        }
    }
}

TEST(CableSegment, SegmentBoxHoldsTheTube) {
    std::mt19937 rng(3);
    for (int trial = 0; trial < 100; ++trial) {
        const CableSegment s = random_segment(rng, 2);
        const Aabb box = cable_segment_aabb(s);
        for (int k = 0; k <= 200; ++k) {
            const Vec3 p = cable_point(s, k / 200.0);
            EXPECT_TRUE(box.contains(Aabb{p, p}.inflated(s.radius))) << "u = " << k / 200.0;
        }
    }
}

TEST(CubicRoots, DistinctRootsMatchTheClosedForm) {
    std::mt19937 rng(4);
    std::uniform_real_distribution<double> root(-0.5, 1.5), scale(-3, 3);
    int compared = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        std::array<double, 3> d{root(rng), root(rng), root(rng)};
        std::sort(d.begin(), d.end());
        if (d[1] - d[0] < 1e-2 || d[2] - d[1] < 1e-2) continue;  // well separated: simple roots
        const double k = scale(rng);
        if (std::abs(k) < 1e-3) continue;
        std::array<double, 3> found{};
        const int n = cubic_roots_in(from_roots(k, d[0], d[1], d[2]), 0, 1, found);
        int expected = 0;
        for (double di : d)
            if (di >= 1e-9 && di <= 1 - 1e-9) {
                ASSERT_LT(expected, n) << "root " << di << " missed";
                EXPECT_NEAR(found[static_cast<std::size_t>(expected)], di, 1e-12) << "k = " << k;
                ++expected;
            }
        bool near_an_end = false;  // a root within 1e-9 of 0 or 1 may round to either side
        for (double di : d) near_an_end = near_an_end || std::min(std::abs(di), std::abs(di - 1)) < 1e-9;
        if (!near_an_end) {
            EXPECT_EQ(n, expected) << "roots " << d[0] << " " << d[1] << " " << d[2];
        }
        ++compared;
    }
    EXPECT_GT(compared, 5000);
}

TEST(CubicRoots, DegenerateCubics) {
    std::array<double, 3> r{};
    // Quadratic (leading coefficient zero): 2 (u - 0.25)(u - 0.75).
    ASSERT_EQ(cubic_roots_in({0.375, -2, 2, 0}, 0, 1, r), 2);
    EXPECT_NEAR(r[0], 0.25, 1e-15);
    EXPECT_NEAR(r[1], 0.75, 1e-15);
    // Linear and constant.
    ASSERT_EQ(cubic_roots_in({-0.3, 1, 0, 0}, 0, 1, r), 1);
    EXPECT_NEAR(r[0], 0.3, 1e-15);
    EXPECT_EQ(cubic_roots_in({1, 0, 0, 0}, 0, 1, r), 0);
    EXPECT_EQ(cubic_roots_in({0, 0, 0, 0}, 0, 1, r), 0);
    // Double root at 0.3 and a simple one at 0.8: the double root is where the derivative vanishes.
    ASSERT_EQ(cubic_roots_in(from_roots(1, 0.3, 0.3, 0.8), 0, 1, r), 2);
    EXPECT_NEAR(r[0], 0.3, 1e-8);
    EXPECT_NEAR(r[1], 0.8, 1e-12);
    // Triple root.
    ASSERT_EQ(cubic_roots_in(from_roots(-2, 0.5, 0.5, 0.5), 0, 1, r), 1);
    EXPECT_NEAR(r[0], 0.5, 1e-5);  // cube root of rounding: (8 eps)^(1/3) ~ 1e-5
    // A tiny leading coefficient next to large ones: the quadratic's roots stay.
    ASSERT_EQ(cubic_roots_in({0.375, -2, 2, 1e-17}, 0, 1, r), 2);
    EXPECT_NEAR(r[0], 0.25, 1e-12);
    EXPECT_NEAR(r[1], 0.75, 1e-12);
}

TEST(CubicRoots, EverySignChangeOfDenseSamplingHoldsARoot) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> coefficient(-1, 1);
    constexpr int kSamples = 10000;
    for (int trial = 0; trial < 2000; ++trial) {
        const std::array<double, 4> a{coefficient(rng) * 0.2, coefficient(rng), coefficient(rng),
                                      coefficient(rng)};
        std::array<double, 3> roots{};
        const int n = cubic_roots_in(a, 0, 1, roots);
        for (int i = 0; i < n; ++i)
            EXPECT_LT(std::abs(cubic(a, roots[static_cast<std::size_t>(i)])), 1e-14) << "root " << roots[i];
        for (int k = 0; k < kSamples; ++k) {
            const double u0 = double(k) / kSamples, u1 = double(k + 1) / kSamples;
            if ((cubic(a, u0) < 0) == (cubic(a, u1) < 0)) continue;
            bool found = false;
            for (int i = 0; i < n; ++i) found = found || (roots[i] >= u0 - 1e-12 && roots[i] <= u1 + 1e-12);
            EXPECT_TRUE(found) << "sign change in [" << u0 << ", " << u1 << "] without a root (trial "
                               << trial << ")";
        }
    }
}

bool inside_grown(const CableSegment& s, const Aabb& box, double growth, double u) {
    const Vec3 p = cable_point(s, u);
    return (p.array() >= box.min.array() - growth).all() && (p.array() <= box.max.array() + growth).all();
}

TEST(CableLayer2, IntervalsMatchDenseSampling) {
    std::mt19937 rng(6);
    std::uniform_real_distribution<double> centre(-1, 1), half(0.05, 0.8);
    constexpr int kSamples = 20000;
    // A sample within this of an interval end may fall on either side: the roots are polished to a few ulps,
    // the ends compared with 1e-12.
    constexpr double kEdge = 1e-9;
    int hits = 0, misses = 0;
    for (int trial = 0; trial < 500; ++trial) {
        const CableSegment s = random_segment(rng, 1.5);
        const Vec3 c(centre(rng), centre(rng), centre(rng)), h(half(rng), half(rng), half(rng));
        const Aabb box = Aabb::from_center_half(c, h);
        const CableIntervals intervals = cable_intervals_in_box(s, box, s.radius);
        for (int i = 0; i < intervals.count; ++i) {
            EXPECT_LE(intervals.items[i].begin, intervals.items[i].end);
            if (i > 0) {
                EXPECT_LT(intervals.items[i - 1].end, intervals.items[i].begin);
            }
        }
        for (int k = 0; k <= kSamples; ++k) {
            const double u = double(k) / kSamples;
            bool in_set = false, near_end = false;
            for (int i = 0; i < intervals.count; ++i) {
                const ParameterInterval& iv = intervals.items[i];
                in_set = in_set || (u >= iv.begin && u <= iv.end);
                near_end = near_end || std::abs(u - iv.begin) < kEdge || std::abs(u - iv.end) < kEdge;
            }
            const bool sampled = inside_grown(s, box, s.radius, u);
            if (!near_end) {
                EXPECT_EQ(in_set, sampled) << "trial " << trial << " u = " << u;
            }
            (sampled ? hits : misses)++;
        }
    }
    EXPECT_GT(hits, 100000);  // the boxes are met often enough for the test to mean something
    EXPECT_GT(misses, 100000);
}

TEST(CableLayer2, TouchingTheBoxFaceGivesAPointInterval) {
    // c_z(u) = 1 - (u - 0.5)^2 * 4 peaks at z = 1 at u = 0.5: the grown box's top face z = 1 is touched
    // there.
    CableSegment s;
    s.radius = 0.25;
    // Control points of a planar parabola: V = (x_i, 0, z_i) with c(u) = sum B_i V_i.
    s.control = {Vec3(-1, 0, -1), Vec3(0, 0, 2), Vec3(1, 0, 2), Vec3(2, 0, -1)};
    const double peak = cable_point(s, 0.5).z();
    const Aabb below{Vec3(-5, -5, -5), Vec3(5, 5, peak - 10)};
    const Aabb touching{Vec3(-5, -5, peak + s.radius), Vec3(5, 5, 5)};  // grown: bottom at the peak
    EXPECT_TRUE(cable_intervals_in_box(s, below, s.radius).empty());
    const CableIntervals t = cable_intervals_in_box(s, touching, s.radius);
    ASSERT_EQ(t.count, 1);
    EXPECT_NEAR(t.items[0].begin, 0.5, 1e-7);  // a double root: sqrt(rounding) accuracy
    EXPECT_NEAR(t.items[0].end, 0.5, 1e-7);
}

}  // namespace
}  // namespace simpulse
