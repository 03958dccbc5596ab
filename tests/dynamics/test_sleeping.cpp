// Sleeping islands: bodies at rest stop being simulated, keep their contacts (no contact_end), and wake when
// an awake body reaches them, when the API changes them, or when their support is removed.
#include "world_fixture.h"

#include <simpulse/dynamics/world.h>

#include <gtest/gtest.h>

namespace simpulse::test {
namespace {

struct Scene {
    DynamicsWorld world;
    BodyId ground = add_ground(world);
    // A unit box at `p` moving at `v`.
    BodyId box(const Vec3& p, const Vec3& v = Vec3::Zero()) {
        BodyDesc d = box_desc(Vec3(0.5, 0.5, 0.5), p);
        d.velocity = v;
        return world.create_body(d);
    }
    void run(double seconds, double dt = 1.0 / 60) {
        for (int i = 0; i < static_cast<int>(seconds / dt + 0.5); ++i) ASSERT_TRUE(world.step(dt).ok);
    }
};

TEST(Sleeping, RestingStackFallsAsleepWithoutMovingAndKeepsItsContacts) {
    Scene s;
    const BodyId a = s.box(Vec3(0, 0, 0.5)), b = s.box(Vec3(0, 0, 1.5));
    s.run(0.2);
    s.run(1.0);
    EXPECT_TRUE(s.world.is_asleep(a));
    EXPECT_TRUE(s.world.is_asleep(b));
    EXPECT_EQ(s.world.body(b).velocity, Vec3::Zero());
    const Vec3 top = s.world.body(b).com_position;
    int ends = 0;
    for (int i = 0; i < 60; ++i) {
        ASSERT_TRUE(s.world.step(1.0 / 60).ok);
        for (const ContactEvent& e : s.world.contact_events()) ends += e.type == ContactEvent::Type::end;
    }
    EXPECT_EQ(ends, 0) << "falling asleep must not end contacts";
    EXPECT_EQ(s.world.body(b).com_position, top) << "a sleeping body does not move at all";
}

TEST(Sleeping, FallingBoxWakesTheSleepingStackItLandsOn) {
    Scene s;
    const BodyId a = s.box(Vec3(0, 0, 0.5));
    s.run(1.0);
    ASSERT_TRUE(s.world.is_asleep(a));
    const BodyId c = s.box(Vec3(0, 0, 3.0));
    s.run(0.7);  // falls 1.5 m (0.55 s) and lands
    EXPECT_FALSE(s.world.is_asleep(a)) << "the box below must wake when the falling box reaches it";
    s.run(2.0);
    const double sink = 1.5 - s.world.body(c).com_position.z();
    EXPECT_LT(std::abs(sink), 1e-3) << "the landed box rests on the first one, sink " << sink;
    EXPECT_TRUE(s.world.is_asleep(a) && s.world.is_asleep(c)) << "both sleep again once at rest";
}

TEST(Sleeping, ApiChangesWakeAndRemovingTheSupportLetsTheTopFall) {
    Scene s;
    const BodyId a = s.box(Vec3(0, 0, 0.5)), b = s.box(Vec3(0, 0, 1.5));
    s.run(1.5);
    ASSERT_TRUE(s.world.is_asleep(b));
    s.world.apply_impulse(b, Vec3(0, 0, 1e-6), s.world.body(b).com_position);
    EXPECT_FALSE(s.world.is_asleep(a)) << "waking one body wakes its island";
    s.run(1.5);
    ASSERT_TRUE(s.world.is_asleep(b));
    s.world.destroy_body(a);
    s.run(0.5);
    EXPECT_LT(s.world.body(b).com_position.z(), 1.0) << "the top box falls once its support is gone";
}

TEST(Sleeping, RestingNeighboursThatDoNotTouchDoNotKeepEachOtherAwake) {
    // Two boxes whose broad-phase boxes overlap but which are 0.49 m apart (b is turned 45 degrees about z
    // and placed diagonally), settling at different times. A resting neighbour must not wake a sleeper: the
    // two would otherwise wake each other in turn and never both sleep.
    Scene s;
    const BodyId a = s.box(Vec3(0, 0, 0.5));
    const BodyId b = s.world.create_body(
        body_desc(make_box(Vec3(0.5, 0.5, 0.5)),
                  Pose{Vec3(1.2, 1.2, 1.0), Quat(Eigen::AngleAxisd(kPi / 4, Vec3::UnitZ()))}));
    s.run(4.0);
    EXPECT_TRUE(s.world.is_asleep(a)) << "a sleep time " << s.world.body(a).sleep_time;
    EXPECT_TRUE(s.world.is_asleep(b)) << "b sleep time " << s.world.body(b).sleep_time;
}

TEST(Sleeping, CanBeDisabled) {
    Scene s;
    s.world.settings().allow_sleeping = false;
    const BodyId a = s.box(Vec3(0, 0, 0.5));
    s.run(2.0);
    EXPECT_FALSE(s.world.is_asleep(a));
}

}  // namespace
}  // namespace simpulse::test
