// Scene queries of the embedding API (issue 23): ray casts and shape casts (closest, all hits, filtered),
// bodies in a box, bodies overlapping a shape and bodies containing a point, on a world of a ground plane,
// two stacked-apart boxes and a sphere, against the distances the geometry gives; invalid arguments are error
// values naming the field. And collision filtering: groups and masks decide which bodies collide; contact
// events carry their pair's impulse; a fast pellet stops at a thin wall (continuous collision) unless its ccd
// is off.
#include "world_fixture.h"

#include <simpulse/world.h>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace simpulse::test {
namespace {

struct QueryWorld {
    World world;
    BodyId ground, low, high, ball;
    QueryWorld() {
        ground = add_ground(world).value();
        low = world.create_body(box_desc(Vec3(0.5, 0.5, 0.5), Vec3(0, 0, 0.5))).value();  // z 0 .. 1
        high = world.create_body(box_desc(Vec3(0.5, 0.5, 0.5), Vec3(0, 0, 3))).value();   // z 2.5 .. 3.5
        ball = world.create_body(sphere_desc(1, Vec3(5, 0, 1))).value();                  // x 4 .. 6
    }
};

// The hits of a query straight down through the stack: the high box, then the low box and the ground at the
// given distances (closed forms; the hit points are on axis-aligned faces, so round-off is all that is left).
template <class Hit>
void expect_stack_hits(const QueryWorld& q, const std::vector<Hit>& all, double to_low, double to_ground) {
    ASSERT_EQ(all.size(), 3u);
    EXPECT_EQ(all[0].body, q.high);
    EXPECT_EQ(all[1].body, q.low);
    EXPECT_EQ(all[2].body, q.ground);
    EXPECT_NEAR(all[1].distance, to_low, 1e-12);
    EXPECT_NEAR(all[2].distance, to_ground, 1e-12);
}

TEST(SceneQueries, RayCastsFindTheNearestBodyAndEveryBodyInOrder) {
    QueryWorld q;
    const Vec3 down = -Vec3::UnitZ();
    const auto nearest = q.world.cast_ray(Vec3(0.1, 0.2, 10), down, 100).value();
    ASSERT_TRUE(nearest.has_value());
    EXPECT_EQ(nearest->body, q.high);
    EXPECT_NEAR(nearest->distance, 6.5, 1e-12);
    EXPECT_LT((nearest->point - Vec3(0.1, 0.2, 3.5)).norm(), 1e-12);
    EXPECT_LT((nearest->normal - Vec3::UnitZ()).norm(), 1e-12);

    expect_stack_hits(q, q.world.cast_ray_all(Vec3(0.1, 0.2, 10), down * 3, 100).value(), 9, 10);

    const auto skip_high =
        q.world.cast_ray(Vec3(0.1, 0.2, 10), down, 100, [&](BodyId b) { return b != q.high; });
    ASSERT_TRUE(skip_high.value().has_value());
    EXPECT_EQ(skip_high.value()->body, q.low);

    // Along x at z = 1 through the ball's centre height: the ball (entering at x = 4) after 14 m; stopped
    // short at 13 m nothing; the box is below the ray's line (its top is z = 1, the ray at z = 1.2).
    const auto side = q.world.cast_ray(Vec3(-10, 0, 1.2), Vec3::UnitX(), 20).value();
    ASSERT_TRUE(side.has_value());
    EXPECT_EQ(side->body, q.ball);
    EXPECT_NEAR(side->distance, 10 + 5 - std::sqrt(1 - 0.04), 1e-9);
    EXPECT_FALSE(q.world.cast_ray(Vec3(-10, 0, 1.2), Vec3::UnitX(), 13).value().has_value());
}

TEST(SceneQueries, BoxAndShapeQueriesFindTheOverlappingBodies) {
    QueryWorld q;
    // The box around the ball; the ground plane's box is unbounded, so it is in every box query.
    const std::vector<BodyId> in_box = q.world.query_box(Vec3(3.5, -1, 0.5), Vec3(4.5, 1, 1.5)).value();
    EXPECT_EQ(in_box, (std::vector<BodyId>{q.ground, q.ball}));
    const auto dynamic_only = [&](BodyId b) { return b != q.ground; };
    EXPECT_EQ(q.world.query_box(Vec3(-1, -1, 0.9), Vec3(1, 1, 2.6), dynamic_only).value(),
              (std::vector<BodyId>{q.low, q.high}));
    // A sphere of 0.6 m at z = 1.5 overlaps the low box (top 1.0, the sphere's bottom 0.9), not the high one
    // (bottom 2.5, the sphere's top 2.1) nor the ground.
    const ShapePtr probe = create_sphere(0.6).value();
    EXPECT_EQ(q.world.query_shape(probe, Pose{Vec3(0, 0, 1.5), Quat::Identity()}).value(),
              (std::vector<BodyId>{q.low}));
    EXPECT_TRUE(q.world.query_shape(probe, Pose{Vec3(0, 0, 1.75), Quat::Identity()}).value().empty());
}

TEST(SceneQueries, InvalidArgumentsAreErrorValuesNamingTheField) {
    QueryWorld q;
    const auto zero = q.world.cast_ray(Vec3::Zero(), Vec3::Zero(), 1);
    ASSERT_FALSE(zero.ok());
    EXPECT_EQ(zero.error().code, ErrorCode::invalid_argument);
    EXPECT_EQ(zero.error().message, "direction: expected a non-zero vector of finite numbers");
    EXPECT_EQ(q.world.cast_ray_all(Vec3(0, 0, std::nan("")), Vec3::UnitX(), 1).error().message,
              "origin: expected finite numbers");
    EXPECT_EQ(q.world.cast_ray(Vec3::Zero(), Vec3::UnitX(), -1).error().message,
              "max_distance: expected a positive length");
    EXPECT_EQ(q.world.query_box(Vec3(1, 0, 0), Vec3(0, 1, 1)).error().message,
              "min: expected min <= max in x, y and z");
    EXPECT_EQ(q.world.query_shape(nullptr, Pose{}).error().message, "shape: expected a shape, got none");

    const ShapePtr ball = create_sphere(0.5).value();
    EXPECT_EQ(q.world.cast_shape(nullptr, Pose{}, Vec3::UnitX()).error().message,
              "shape: expected a shape, got none");
    const ShapePtr mesh =
        create_triangle_mesh({Vec3::Zero(), Vec3::UnitX(), Vec3::UnitY()}, {{0, 1, 2}}).value();
    const auto not_convex = q.world.cast_shape_all(mesh, Pose{}, Vec3::UnitX());
    ASSERT_FALSE(not_convex.ok());
    EXPECT_EQ(not_convex.error().code, ErrorCode::invalid_argument);
    EXPECT_EQ(not_convex.error().message, "shape: expected a convex shape or compound of convex shapes");
    EXPECT_EQ(q.world.cast_shape(ball, Pose{Vec3(0, std::nan(""), 0), Quat::Identity()}, Vec3::UnitX())
                  .error()
                  .message,
              "pose: expected finite numbers");
    // A zero or huge quaternion (fuzz_world: a box's contacts turned to NaN in the manifold reduction).
    EXPECT_EQ(q.world.query_shape(ball, Pose{Vec3::Zero(), Quat(0, 0, 0, 0)}).error().message,
              "pose.orientation: expected a unit quaternion, got norm 0");
    EXPECT_EQ(
        q.world.cast_shape(ball, Pose{Vec3::Zero(), Quat(1e300, 0, 0, 1e300)}, Vec3::UnitX()).error().message,
        "pose.orientation: expected a unit quaternion, got norm inf");
    EXPECT_EQ(q.world.cast_shape(ball, Pose{}, Vec3::Zero()).error().message,
              "translation: expected a non-zero vector of finite numbers");
    EXPECT_EQ(q.world.cast_shape_all(ball, Pose{}, Vec3(0, 0, INFINITY)).error().message,
              "translation: expected a non-zero vector of finite numbers");
    const auto point = q.world.query_point(Vec3(0, 0, std::nan("")));
    ASSERT_FALSE(point.ok());
    EXPECT_EQ(point.error().code, ErrorCode::invalid_argument);
    EXPECT_EQ(point.error().message, "point: expected finite numbers");
}

// Shape casts on the query world: a sphere dropped on the stack meets the high box first, then the low box
// and the ground; one passing along x just over the low box grazes its top edge. Closed forms to 1e-12
// (polytope and ball cores converge exactly: the error is the rounding of metre coordinates).
TEST(SceneQueries, ShapeCastsFindTheFirstTouchAndEveryBodyInOrder) {
    QueryWorld q;
    const ShapePtr ball = create_sphere(0.25).value();
    const Pose start{Vec3(0.1, 0.2, 10), Quat::Identity()};
    const Vec3 drop(0, 0, -20);
    const auto nearest = q.world.cast_shape(ball, start, drop).value();
    ASSERT_TRUE(nearest.has_value());
    EXPECT_EQ(nearest->body, q.high);
    EXPECT_NEAR(nearest->distance, 6.25, 1e-12) << "error " << std::abs(nearest->distance - 6.25);
    EXPECT_NEAR(nearest->fraction, 6.25 / 20, 1e-12);
    EXPECT_LT((nearest->point - Vec3(0.1, 0.2, 3.5)).norm(), 1e-12) << nearest->point.transpose();
    EXPECT_LT((nearest->normal - Vec3::UnitZ()).norm(), 1e-12) << nearest->normal.transpose();

    expect_stack_hits(q, q.world.cast_shape_all(ball, start, drop).value(), 8.75, 9.75);
    const auto skip_high =
        q.world.cast_shape(ball, start, drop, [&](BodyId b) { return b != q.high; }).value();
    ASSERT_TRUE(skip_high.has_value());
    EXPECT_EQ(skip_high->body, q.low);

    // A sphere r 0.5 along x at z = 1.2 passes 0.2 over the low box's top (z = 1): it touches the edge
    // x = -0.5, z = 1 when its centre is sqrt(0.5^2 - 0.2^2) before it, the normal from the edge to the
    // centre.
    const ShapePtr half = create_sphere(0.5).value();
    const double before = std::sqrt(0.25 - 0.04);
    const auto edge =
        q.world.cast_shape(half, Pose{Vec3(-10, 0, 1.2), Quat::Identity()}, Vec3(20, 0, 0)).value();
    ASSERT_TRUE(edge.has_value());
    EXPECT_EQ(edge->body, q.low);
    EXPECT_NEAR(edge->distance, 9.5 - before, 1e-12) << "error " << std::abs(edge->distance - (9.5 - before));
    EXPECT_LT((edge->normal - Vec3(-before, 0, 0.2) / 0.5).norm(), 1e-12) << edge->normal.transpose();
    EXPECT_LT((edge->point - Vec3(-0.5, 0, 1)).norm(), 1e-12) << edge->point.transpose();
    // Stopped 1 mm short of the touch, nothing.
    EXPECT_FALSE(
        q.world.cast_shape(half, Pose{Vec3(-10, 0, 1.2), Quat::Identity()}, Vec3(9.499 - before, 0, 0))
            .value()
            .has_value());
    // Starting inside the ball: a hit at 0, the normal against the translation.
    const auto inside = q.world.cast_shape(half, Pose{Vec3(5, 0, 1.5), Quat::Identity()}, Vec3(0, 2, 0),
                                           [&](BodyId b) { return b == q.ball; });
    ASSERT_TRUE(inside.value().has_value());
    EXPECT_EQ(inside.value()->distance, 0);
    EXPECT_EQ(inside.value()->normal, Vec3(0, -1, 0));
}

// Point queries on the query world: each body's inside, a point on a surface (within the tolerance), one 1e-6
// beyond it, the ground's half-space, and a filter.
TEST(SceneQueries, PointQueriesFindTheBodiesContainingThePoint) {
    QueryWorld q;
    EXPECT_EQ(q.world.query_point(Vec3(0.2, -0.3, 0.5)).value(), (std::vector<BodyId>{q.low}));
    EXPECT_EQ(q.world.query_point(Vec3(5, 0.5, 1.5)).value(), (std::vector<BodyId>{q.ball}));
    EXPECT_EQ(q.world.query_point(Vec3(0.1, 0.1, 3.5)).value(), (std::vector<BodyId>{q.high}));
    EXPECT_TRUE(q.world.query_point(Vec3(0.1, 0.1, 3.5 + 1e-6)).value().empty());
    EXPECT_EQ(q.world.query_point(Vec3(50, 0, -1)).value(), (std::vector<BodyId>{q.ground}));
    // The low box's bottom face lies on the ground: a point there is in both, in body order.
    EXPECT_EQ(q.world.query_point(Vec3(0.1, 0.1, 0)).value(), (std::vector<BodyId>{q.ground, q.low}));
    EXPECT_TRUE(
        q.world.query_point(Vec3(0.2, -0.3, 0.5), [&](BodyId b) { return b != q.low; }).value().empty());
}

// A ball dropped on a box on the ground: by default it comes to rest on the box (its centre r above the box's
// top, within the position projection's 0.5 mm slop); in a group the box's mask leaves out, it falls through
// the box to the ground; and a filter changed at run time drops a ball resting on the box to the ground.
TEST(CollisionFiltering, GroupsAndMasksDecideWhichBodiesCollide) {
    const double r = 0.1, slop = 5e-4;
    auto drop = [&](std::uint32_t ball_group, std::uint32_t box_mask) {
        World w;
        add_ground(w).value();
        BodyDesc box = box_desc(Vec3(0.5, 0.5, 0.5), Vec3(0, 0, 0.5));
        box.collision_mask = box_mask;
        const BodyId box_id = w.create_body(box).value();
        BodyDesc ball = sphere_desc(r, Vec3(0, 0, 2));
        ball.collision_group = ball_group;
        const BodyId ball_id = w.create_body(ball).value();
        for (int i = 0; i < 180; ++i) EXPECT_TRUE(w.step(1.0 / 60).ok());
        return std::pair{w.state(ball_id).value().pose.position.z(),
                         w.state(box_id).value().pose.position.z()};
    };
    const auto [on_box, box_z] = drop(1, 0xffffffffu);
    EXPECT_NEAR(on_box, 1 + r, slop) << "the ball should rest on the box";
    const auto [through, unmoved_box] = drop(2, ~2u);
    EXPECT_NEAR(through, r, slop) << "the ball should pass the box and rest on the ground";
    EXPECT_NEAR(unmoved_box, 0.5, slop);

    World w;
    add_ground(w).value();
    const BodyId box = w.create_body(box_desc(Vec3(0.5, 0.5, 0.5), Vec3(0, 0, 0.5))).value();
    const BodyId ball = w.create_body(sphere_desc(r, Vec3(0, 0, 1 + r))).value();
    for (int i = 0; i < 60; ++i) ASSERT_TRUE(w.step(1.0 / 60).ok());
    ASSERT_NEAR(w.state(ball).value().pose.position.z(), 1 + r, slop);
    ASSERT_TRUE(w.set_collision_filter(ball, 2, 0xffffffffu).ok());
    ASSERT_TRUE(w.set_collision_filter(box, 1, ~2u).ok());  // the box no longer sees group 2
    for (int i = 0; i < 120; ++i) ASSERT_TRUE(w.step(1.0 / 60).ok());
    EXPECT_NEAR(w.state(ball).value().pose.position.z(), r, slop) << "the ball should fall to the ground";
    EXPECT_NEAR(w.state(box).value().pose.position.z(), 0.5, slop);
    EXPECT_EQ(w.set_collision_filter(BodyId{99, 1}, 1, 1).error().code, ErrorCode::invalid_id);
}

// A 2 kg ball resting on the ground (sleeping off): its contact begins in the first step and, with
// persist_events, persists in every later one, each time carrying the ball's weight over the step, m g dt
// (the exact solve's impulse; 1e-9 relative). Without persist_events only the begin is reported.
TEST(ContactEvents, PersistEventsCarryThePairsImpulse) {
    for (const bool persist : {true, false}) {
        WorldSettings s;
        s.allow_sleeping = false;
        s.persist_events = persist;
        World w = World::create(s).value();
        add_ground(w).value();
        const double mass = 2, r = 0.1, dt = 1.0 / 60;
        w.create_body(sphere_desc(r, Vec3(0, 0, r), mass)).value();
        std::vector<ContactEvent> seen;
        ASSERT_TRUE(w.set_contact_listener([&](const ContactEvent& e) { seen.push_back(e); }));
        for (int i = 0; i < 10; ++i) ASSERT_TRUE(w.step(dt).ok());
        ASSERT_EQ(seen.size(), persist ? 10u : 1u);
        EXPECT_EQ(seen.front().type, ContactEvent::Type::begin);
        for (std::size_t k = 0; k < seen.size(); ++k) {
            if (k > 0) {
                EXPECT_EQ(seen[k].type, ContactEvent::Type::persist);
            }
            EXPECT_NEAR(seen[k].impulse, mass * 9.81 * dt, 1e-9 * mass * 9.81 * dt) << "event " << k;
        }
    }
}

// A 1 cm pellet at 300 m/s towards a 2 cm wall 3 m away, at 60 Hz (5 m per step, 250 times its size): with
// continuous collision (the default) it stops at the wall's face, its centre within the contact margin and
// slop of x = 2.99 - 0.005; with ccd off it tunnels through and flies on at 300 m/s.
TEST(ContinuousCollision, AFastPelletStopsAtAThinWallUnlessCcdIsOff) {
    for (const bool ccd : {true, false}) {
        WorldSettings s;
        s.gravity = Vec3::Zero();
        World w = World::create(s).value();
        add_static(w, create_box(Vec3(0.01, 2, 2)).value(), Pose{Vec3(3, 0, 0), Quat::Identity()}).value();
        BodyDesc pellet = sphere_desc(0.005, Vec3::Zero(), 0.01);
        pellet.velocity = Vec3(300, 0, 0);
        pellet.ccd = ccd;
        const BodyId id = w.create_body(pellet).value();
        for (int i = 0; i < 30; ++i) ASSERT_TRUE(w.step(1.0 / 60).ok());
        const BodyState state = w.state(id).value();
        if (ccd) {
            EXPECT_NEAR(state.pose.position.x(), 2.99 - 0.005, 2e-3)
                << "stopped at " << state.pose.position.x();
            EXPECT_LT(state.velocity.norm(), 1e-9);
        } else {
            EXPECT_GT(state.pose.position.x(), 3.01) << "ccd off: the pellet should have passed the wall";
            EXPECT_NEAR(state.velocity.x(), 300, 1e-9);
        }
    }
}

}  // namespace
}  // namespace simpulse::test
