// Cables in the world (issue 21; docs/cables.md): B-spline cables whose control points carry the mass, held
// by rods, colliding with bodies through contacts spread over a segment's control points.
#include "world_fixture.h"

#include <simpulse/collision/cable_segment.h>
#include <simpulse/dynamics/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace simpulse::test {
namespace {

CableDesc straight_cable(const Vec3& start, const Vec3& step, int points, double radius) {
    CableDesc d;
    for (int i = 0; i < points; ++i) d.points.push_back(start + i * step);
    d.radius = radius;
    return d;
}

// Lowest and highest centreline height over the cable's segments (sampled).
std::pair<double, double> centreline_height_range(const std::vector<Vec3>& points, double radius) {
    double lo = 1e300, hi = -1e300;
    const std::size_t n = points.size();
    for (std::size_t k = 0; k + 1 < n; ++k) {
        const CableSegment s =
            cable_chain_segment(k == 0 ? nullptr : &points[k - 1], points[k], points[k + 1],
                                k + 2 == n ? nullptr : &points[k + 2], radius);
        for (int i = 0; i <= 20; ++i) {
            const double z = cable_point(s, i / 20.0).z();
            lo = std::min(lo, z), hi = std::max(hi, z);
        }
    }
    return {lo, hi};
}

TEST(Cables, FallingCableRestsOnThePlaneAtItsRadius) {
    DynamicsWorld w;
    add_ground(w);
    const double r = 0.05;
    const CableId cable = w.add_cable(straight_cable({0, 0, 0.5}, {0.1, 0, 0}, 12, r));
    for (int i = 0; i < 480; ++i) ASSERT_TRUE(w.step(1.0 / 240).ok);
    const auto [lo, hi] = centreline_height_range(w.cable_points(cable), r);
    EXPECT_NEAR(lo, r, 0.01 * r);
    EXPECT_NEAR(hi, r, 0.01 * r);
}

}  // namespace
}  // namespace simpulse::test
