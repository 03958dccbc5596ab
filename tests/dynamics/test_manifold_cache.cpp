// Manifold reuse (WorldSettings::manifold_reuse_distance): resting pairs skip the narrow phase, the manifolds
// they reuse stay within the reuse distance of what the narrow phase computes at the current poses, moving
// pairs (sliding or spinning in place) never reuse, and a resting scene ends where it ends without reuse.
#include "world_fixture.h"

#include <simpulse/collision/narrow_phase.h>
#include <simpulse/dynamics/world.h>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace simpulse::test {
namespace {

constexpr double kDt = 1.0 / 60;

struct Scene {
    DynamicsWorld world;
    std::vector<BodyId> ids;
    explicit Scene(double reuse_distance) : world(settings(reuse_distance)) {
        ids.push_back(add_ground(world));
    }
    // Body poses indexed by slot.
    std::vector<Pose> poses() const {
        std::vector<Pose> out;
        for (const BodyId id : ids) {
            if (out.size() <= id.index) out.resize(id.index + 1);
            out[id.index] = world.body(id).pose();
        }
        return out;
    }
    static WorldSettings settings(double reuse_distance) {
        WorldSettings s;
        s.manifold_reuse_distance = reuse_distance;
        s.allow_sleeping = false;  // keep every pair in the narrow phase or the cache
        return s;
    }
    BodyId box(const Vec3& half, const Vec3& p, double yaw, const Vec3& v = Vec3::Zero(),
               const Vec3& w = Vec3::Zero()) {
        BodyDesc d = body_desc(make_box(half), Pose{p, Quat(Eigen::AngleAxisd(yaw, Vec3::UnitZ()))});
        d.velocity = v;
        d.angular_velocity = w;
        ids.push_back(world.create_body(d));
        return ids.back();
    }
    // A stack of three boxes, each smaller than the one below and turned a little, so every face contact
    // has four corner points with stable feature ids.
    std::vector<BodyId> stack() {
        return {box(Vec3(0.5, 0.5, 0.25), Vec3(0, 0, 0.25), 0.1),
                box(Vec3(0.35, 0.35, 0.25), Vec3(0.02, -0.01, 0.75), 0.3),
                box(Vec3(0.2, 0.2, 0.25), Vec3(-0.01, 0.02, 1.25), -0.2)};
    }
};

// Largest distance between a point of the world's manifolds of the last step and the point with the same
// feature id that the narrow phase computes at the poses the step started from (collision runs before the
// positions are integrated); also checks that such a point exists.
double largest_deviation_from_fresh_manifolds(const DynamicsWorld& world, const std::vector<Pose>& poses) {
    double worst = 0;
    for (const BodyManifold& bm : world.manifolds()) {
        const Body& a = world.body(bm.a);
        const Body& b = world.body(bm.b);
        std::vector<Manifold> fresh;
        collide(*a.shape, poses[bm.a.index], *b.shape, poses[bm.b.index],
                {world.settings().contact_margin + 0.01}, fresh);
        for (int p = 0; p < bm.manifold.count; ++p) {
            const ContactPoint& used = bm.manifold.points[static_cast<std::size_t>(p)];
            double best = INFINITY;
            for (const Manifold& m : fresh)
                for (int q = 0; q < m.count; ++q) {
                    const ContactPoint& f = m.points[static_cast<std::size_t>(q)];
                    if (f.id != used.id) continue;
                    best = std::min(
                        best, std::max((f.position - used.position).norm(), std::abs(f.depth - used.depth)));
                }
            worst = std::max(worst, best);
        }
    }
    return worst;
}

TEST(ManifoldCache, RestingStackReusesManifoldsThatMatchTheNarrowPhase) {
    const double distance = 1e-6;
    Scene s(distance);
    s.stack();
    int reused = 0, pairs = 0;
    double worst = 0;
    for (int i = 0; i < 120; ++i) {
        const std::vector<Pose> poses = s.poses();
        ASSERT_TRUE(s.world.step(kDt).ok);
        reused += s.world.collision_stats().reused;
        pairs += s.world.collision_stats().pairs;
        if (i >= 30) worst = std::max(worst, largest_deviation_from_fresh_manifolds(s.world, poses));
    }
    EXPECT_GT(reused, pairs / 2) << "a resting stack should mostly reuse its manifolds: " << reused << " of "
                                 << pairs;
    // Bound: a reused point moved with the frame body; the other body moved by at most `distance` relative
    // to it, and the narrow phase's midpoint and depth follow that motion.
    EXPECT_LE(worst, distance) << "reused contact points deviate from the narrow phase by " << worst << " m";
}

TEST(ManifoldCache, RestingStackEndsWhereItEndsWithoutReuse) {
    Scene with(1e-6), without(0);
    const std::vector<BodyId> a = with.stack(), b = without.stack();
    for (int i = 0; i < 180; ++i) {
        ASSERT_TRUE(with.world.step(kDt).ok);
        ASSERT_TRUE(without.world.step(kDt).ok);
    }
    EXPECT_EQ(without.world.collision_stats().reused, 0);
    for (std::size_t k = 0; k < a.size(); ++k) {
        const double gap =
            (with.world.body(a[k]).com_position - without.world.body(b[k]).com_position).norm();
        // The solver's answers differ at most by the contact geometry's deviation (1e-6 m) per step of drift;
        // at rest neither moves.
        EXPECT_LT(gap, 1e-5) << "box " << k << " ends " << gap << " m from the run without reuse";
    }
}

TEST(ManifoldCache, SlidingAndSpinningBodiesNeverReuse) {
    Scene s(1e-6);
    s.world.materials().set(0, Material{0.0, 0.0, 1000});
    // Frictionless: the first box slides at 1 cm/s, the second spins in place about z at
    // 0.1 rad/s (no relative translation, only rotation), far apart.
    s.box(Vec3(0.5, 0.5, 0.25), Vec3(0, 0, 0.25), 0, Vec3(0.01, 0, 0));
    s.box(Vec3(0.5, 0.5, 0.25), Vec3(5, 0, 0.25), 0, Vec3::Zero(), Vec3(0, 0, 0.1));
    for (int i = 0; i < 60; ++i) {
        const std::vector<Pose> poses = s.poses();
        ASSERT_TRUE(s.world.step(kDt).ok);
        EXPECT_EQ(s.world.collision_stats().reused, 0) << "step " << i;
        EXPECT_EQ(largest_deviation_from_fresh_manifolds(s.world, poses), 0.0) << "step " << i;
    }
}

TEST(ManifoldCache, ReuseDistanceIsCappedAtAQuarterOfTheContactMargin) {
    // A reuse distance of 1 m would let a slowly sliding box keep manifolds from far back; the world caps it
    // at contact_margin / 4 = 0.5 mm. At 1 cm/s (0.17 mm per step) the box reuses for a few steps at a time.
    Scene s(1.0);
    s.world.materials().set(0, Material{0.0, 0.0, 1000});  // frictionless: the box keeps sliding
    s.box(Vec3(0.5, 0.5, 0.25), Vec3(0, 0, 0.25), 0, Vec3(0.01, 0, 0));
    const double cap = 0.25 * s.world.settings().contact_margin;
    int reused = 0;
    double worst = 0;
    for (int i = 0; i < 60; ++i) {
        const std::vector<Pose> poses = s.poses();
        ASSERT_TRUE(s.world.step(kDt).ok);
        reused += s.world.collision_stats().reused;
        worst = std::max(worst, largest_deviation_from_fresh_manifolds(s.world, poses));
    }
    EXPECT_GT(reused, 0);
    EXPECT_LE(worst, cap) << "points lag the sliding box by " << worst << " m";
    EXPECT_GT(worst, 1e-4) << "the cap, not a smaller distance, should limit the lag here";
}

}  // namespace
}  // namespace simpulse::test
