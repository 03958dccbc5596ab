// The error contract of the public API (simpulse/result.h): every class of invalid input to every World call
// and shape factory comes back as an error value with the right ErrorCode and a message naming the field or
// argument; no exception escapes; a refused call leaves the world as it was.
#include "world_fixture.h"

#include <simpulse/world.h>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace simpulse::test {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Runs `call` (a lambda returning Status or Result<T>), requires that it throws nothing and fails with
// `code`, and that its message contains `names` (the field or argument).
template <class Call>
void expect_refused(const char* what, Call&& call, ErrorCode code, const std::string& names) {
    SCOPED_TRACE(what);
    bool threw = false;
    try {
        const auto r = call();
        ASSERT_FALSE(r) << "accepted";
        EXPECT_EQ(r.error().code, code) << "code " << to_string(r.error().code) << ": " << r.error().message;
        EXPECT_NE(r.error().message.find(names), std::string::npos)
            << "message \"" << r.error().message << "\" does not name " << names;
    } catch (...) {
        threw = true;
    }
    EXPECT_FALSE(threw) << "an exception escaped the API";
}

// A world with a ball, a static floor, a stale body id (destroyed) and the ids of a spring and a joint.
struct Fixture {
    World world;
    BodyId ball, floor, stale;
    Fixture() {
        ball = world.create_body(sphere_desc(0.1, {0, 0, 1})).value();
        floor = add_static(world, create_box({1, 1, 0.1}).value()).value();
        stale = world.create_body(sphere_desc(0.1, {3, 0, 1})).value();
        EXPECT_TRUE(world.destroy_body(stale));
    }
};

TEST(ErrorContract, InvalidSettingsAreRefusedByCreateAndSetSettings) {
    const std::vector<std::pair<std::function<void(WorldSettings&)>, std::string>> cases = {
        {[](WorldSettings& s) { s.gravity.x() = kNaN; }, "gravity"},
        {[](WorldSettings& s) { s.contact_margin = -1; }, "contact_margin"},
        {[](WorldSettings& s) { s.max_substeps = 0; }, "max_substeps"},
        {[](WorldSettings& s) { s.sleep_time = kInf; }, "sleep_time"},
        {[](WorldSettings& s) { s.solver.tolerance = 0; }, "solver.tolerance"},
        {[](WorldSettings& s) { s.solver.threads = 0; }, "solver.threads"},
        {[](WorldSettings& s) { s.solver.mode = static_cast<SolverMode>(7); }, "solver.mode"},
    };
    for (const auto& [spoil, field] : cases) {
        WorldSettings s;
        spoil(s);
        expect_refused(
            field.c_str(), [&] { return World::create(s); }, ErrorCode::invalid_argument, field);
        World w;
        expect_refused(
            field.c_str(), [&] { return w.set_settings(s); }, ErrorCode::invalid_argument, field);
        EXPECT_EQ(w.settings().contact_margin, WorldSettings{}.contact_margin) << "settings changed";
    }
}

TEST(ErrorContract, InvalidMaterialsAreRefusedWithTheField) {
    World w;
    const auto refused_material = [&](const Material& m, const std::string& field) {
        expect_refused(
            "add_material", [&] { return w.add_material(m); }, ErrorCode::invalid_argument, field);
        expect_refused(
            "set_material", [&] { return w.set_material(0, m); }, ErrorCode::invalid_argument, field);
    };
    refused_material({.friction = -0.1}, "friction");
    refused_material({.friction = kNaN}, "friction");
    refused_material({.restitution = 1.5}, "restitution");
    refused_material({.density = 0}, "density");
    refused_material({.density = kInf}, "density");
    expect_refused(
        "set_material unknown", [&] { return w.set_material(5, {}); }, ErrorCode::invalid_id, "material");
    expect_refused(
        "pair unknown", [&] { return w.set_material_pair(0, 9, 0.5, 0); }, ErrorCode::invalid_id,
        "material id 9");
    expect_refused(
        "pair friction", [&] { return w.set_material_pair(0, 0, -1, 0); }, ErrorCode::invalid_argument,
        "friction");
    expect_refused(
        "pair restitution", [&] { return w.set_material_pair(0, 0, 0.5, kNaN); }, ErrorCode::invalid_argument,
        "restitution");
}

TEST(ErrorContract, InvalidBodyDescriptionsAreRefusedAndLeaveTheWorldAsItWas) {
    Fixture f;
    const std::size_t count = f.world.body_count();
    const auto refused = [&](BodyDesc d, ErrorCode code, const std::string& field) {
        expect_refused(
            field.c_str(), [&] { return f.world.create_body(d); }, code, field);
        EXPECT_EQ(f.world.body_count(), count) << field << ": a body was added";
    };
    BodyDesc d = sphere_desc(0.1, {0, 0, 3});
    d.shape = nullptr;
    refused(d, ErrorCode::invalid_argument, "shape");
    d = sphere_desc(0.1, {kNaN, 0, 3});
    refused(d, ErrorCode::invalid_argument, "pose");
    d = sphere_desc(0.1, {0, 0, 3});
    d.pose.orientation = Quat(2, 0, 0, 0);
    refused(d, ErrorCode::invalid_argument, "pose.orientation");
    d = sphere_desc(0.1, {0, 0, 3});
    d.velocity = Vec3(kInf, 0, 0);
    refused(d, ErrorCode::invalid_argument, "velocity");
    d = sphere_desc(0.1, {0, 0, 3});
    d.angular_velocity = Vec3(0, kNaN, 0);
    refused(d, ErrorCode::invalid_argument, "angular_velocity");
    d = sphere_desc(0.1, {0, 0, 3});
    d.density = -1;
    refused(d, ErrorCode::invalid_argument, "density");
    d = sphere_desc(0.1, {0, 0, 3});
    d.mass = 0.0;
    refused(d, ErrorCode::invalid_argument, "mass");
    d = sphere_desc(0.1, {0, 0, 3});
    d.material = 3;
    refused(d, ErrorCode::invalid_id, "material");
    d = sphere_desc(0.1, {0, 0, 3});
    d.shape = create_plane(Vec3::UnitZ(), 0).value();
    refused(d, ErrorCode::invalid_argument, "is_static");
    d = sphere_desc(0.1, {0, 0, 3});
    d.shape = create_sphere(1e-120).value();
    refused(d, ErrorCode::invalid_argument, "shape");
    d = sphere_desc(0.1, {1e308, 0, 3});
    d.shape = create_box({1e308, 1, 1}).value();
    d.is_static = true;  // static: no mass properties to overflow first
    refused(d, ErrorCode::invalid_argument, "pose");
}

TEST(ErrorContract, EveryBodyCallRefusesAStaleOrDefaultIdAndNonFiniteValues) {
    Fixture f;
    World& w = f.world;
    const BodyState before = w.state(f.ball).value();
    const Vec3 nan_vector(kNaN, 0, 0);
    for (const BodyId id : {f.stale, BodyId{}}) {
        const auto bad = [&](const char* what, auto&& call) {
            expect_refused(what, call, ErrorCode::invalid_id, "body id");
        };
        bad("destroy_body", [&] { return w.destroy_body(id); });
        bad("state", [&] { return w.state(id); });
        bad("info", [&] { return w.info(id); });
        bad("is_asleep", [&] { return w.is_asleep(id); });
        bad("set_state", [&] { return w.set_state(id, before); });
        bad("set_pose", [&] { return w.set_pose(id, Pose{}); });
        bad("set_velocity", [&] { return w.set_velocity(id, Vec3::Zero()); });
        bad("set_angular_velocity", [&] { return w.set_angular_velocity(id, Vec3::Zero()); });
        bad("add_force", [&] { return w.add_force(id, Vec3::Zero()); });
        bad("add_force_at_point", [&] { return w.add_force_at_point(id, Vec3::Zero(), Vec3::Zero()); });
        bad("add_torque", [&] { return w.add_torque(id, Vec3::Zero()); });
        bad("apply_impulse", [&] { return w.apply_impulse(id, Vec3::Zero(), Vec3::Zero()); });
        bad("apply_angular_impulse", [&] { return w.apply_angular_impulse(id, Vec3::Zero()); });
        EXPECT_FALSE(w.is_valid(id));
    }
    const BodyId b = f.ball;
    const auto bad = [&](const char* what, auto&& call, const char* field) {
        expect_refused(what, call, ErrorCode::invalid_argument, field);
    };
    BodyState spoiled = before;
    spoiled.velocity = nan_vector;
    bad(
        "set_state", [&] { return w.set_state(b, spoiled); }, "velocity");
    bad(
        "set_pose",
        [&] {
            return w.set_pose(b, Pose{nan_vector, Quat::Identity()});
        },
        "pose");
    bad(
        "set_pose with a quaternion of norm 2",
        [&] {
            return w.set_pose(b, Pose{Vec3::Zero(), Quat(2, 0, 0, 0)});
        },
        "pose.orientation");
    bad(
        "set_velocity", [&] { return w.set_velocity(b, nan_vector); }, "velocity");
    bad(
        "set_angular_velocity", [&] { return w.set_angular_velocity(b, nan_vector); }, "angular_velocity");
    bad(
        "add_force", [&] { return w.add_force(b, nan_vector); }, "force");
    bad(
        "add_force_at_point", [&] { return w.add_force_at_point(b, Vec3::Zero(), nan_vector); }, "point");
    bad(
        "add_torque", [&] { return w.add_torque(b, nan_vector); }, "torque");
    bad(
        "apply_impulse", [&] { return w.apply_impulse(b, nan_vector, Vec3::Zero()); }, "impulse");
    bad(
        "apply_angular_impulse", [&] { return w.apply_angular_impulse(b, nan_vector); }, "angular_impulse");
    const BodyState after = w.state(b).value();
    EXPECT_EQ(after.pose.position, before.pose.position) << "a refused call moved the body";
    EXPECT_EQ(after.velocity, before.velocity) << "a refused call changed the velocity";
}

TEST(ErrorContract, InvalidSpringsAndJointsAreRefused) {
    Fixture f;
    World& w = f.world;
    SpringDesc s{
        .body_a = f.ball, .body_b = {}, .anchor_a = {0, 0, 1}, .anchor_b = {0, 0, 2}, .stiffness = 10};
    const auto bad_spring = [&](SpringDesc d, ErrorCode code, const char* field) {
        expect_refused(
            field, [&] { return w.add_spring(d); }, code, field);
    };
    SpringDesc d = s;
    d.stiffness = -1;
    bad_spring(d, ErrorCode::invalid_argument, "stiffness");
    d = s;
    d.damping = kNaN;
    bad_spring(d, ErrorCode::invalid_argument, "damping");
    d = s;
    d.rest_length = -0.5;
    bad_spring(d, ErrorCode::invalid_argument, "rest_length");
    d = s;
    d.anchor_b = Vec3(kInf, 0, 0);
    bad_spring(d, ErrorCode::invalid_argument, "anchor_b");
    d = s;
    d.body_b = f.stale;
    bad_spring(d, ErrorCode::invalid_id, "body_b");
    d = s;
    d.body_b = f.ball;
    bad_spring(d, ErrorCode::invalid_argument, "two different bodies");
    d = s;
    d.body_a = f.floor;
    bad_spring(d, ErrorCode::invalid_argument, "dynamic body");
    expect_refused(
        "remove_spring", [&] { return w.remove_spring(SpringId{}); }, ErrorCode::invalid_id, "spring id");

    BallJointDesc j{.body_a = f.ball, .body_b = {}, .anchor = {0, 0, 1.1}};
    BallJointDesc k = j;
    k.anchor = Vec3(0, kNaN, 0);
    expect_refused(
        "joint anchor", [&] { return w.add_ball_joint(k); }, ErrorCode::invalid_argument, "anchor");
    k = j;
    k.body_a = f.stale;
    expect_refused(
        "joint body_a", [&] { return w.add_ball_joint(k); }, ErrorCode::invalid_id, "body_a");
    k = j;
    k.body_a = BodyId{};
    expect_refused(
        "joint to nothing", [&] { return w.add_ball_joint(k); }, ErrorCode::invalid_argument, "world frame");
    expect_refused(
        "remove_joint", [&] { return w.remove_joint(JointId{}); }, ErrorCode::invalid_id, "joint id");
    expect_refused(
        "joint_error", [&] { return w.joint_error(JointId{}); }, ErrorCode::invalid_id, "joint id");
}

TEST(ErrorContract, InvalidStepsAndNonFiniteStatesAreErrorValues) {
    Fixture f;
    World& w = f.world;
    for (const double dt : {0.0, -0.01, kNaN, kInf})
        expect_refused(
            "step", [&] { return w.step(dt); }, ErrorCode::invalid_argument, "dt");
    EXPECT_EQ(w.step_count(), 0u) << "a refused step advanced the world";
    // A finite velocity whose displacement overflows: the step reports the body and the world keeps the last
    // good state (the step's start: same pose and velocity, time and step count not advanced).
    ASSERT_TRUE(w.set_velocity(f.ball, Vec3(1e300, 0, 0)));
    const BodyState good = w.state(f.ball).value();
    expect_refused(
        "overflowing step", [&] { return w.step(1e10); }, ErrorCode::non_finite_state, "body 0");
    ASSERT_TRUE(w.non_finite_body().has_value());
    EXPECT_EQ(*w.non_finite_body(), f.ball);
    const BodyState kept = w.state(f.ball).value();
    EXPECT_EQ(kept.pose.position, good.pose.position);
    EXPECT_EQ(kept.pose.orientation.coeffs(), good.pose.orientation.coeffs());
    EXPECT_EQ(kept.velocity, good.velocity);
    EXPECT_EQ(w.step_count(), 0u);
    EXPECT_EQ(w.time(), 0.0);
    // A good step afterwards clears the failure.
    ASSERT_TRUE(w.set_velocity(f.ball, Vec3::Zero()));
    ASSERT_TRUE(w.step(0.01));
    EXPECT_FALSE(w.non_finite_body().has_value());
}

// A cable's control point whose state overflows: the step names the cable and the point (the point is no
// body of the caller's), and the cable keeps its last good state.
TEST(ErrorContract, ANonFiniteCablePointIsNamedByItsCable) {
    World w;
    CableDesc d;
    for (int i = 0; i < 5; ++i) d.points.push_back(Vec3(0.1 * i, 0, 1));
    d.radius = 0.01;
    const Result<CableId> cable = w.add_cable(d);
    ASSERT_TRUE(cable) << cable.error().message;
    std::vector<Vec3> velocities(5, Vec3::Zero());
    velocities[3] = Vec3(0, 1e300, 0);
    ASSERT_TRUE(w.set_cable_velocities(*cable, velocities));
    const std::vector<Vec3> good = w.cable_points(*cable).value();
    expect_refused(
        "overflowing cable", [&] { return w.step(1e10); }, ErrorCode::non_finite_state, "cable 0 point ");
    EXPECT_FALSE(w.non_finite_body().has_value());
    ASSERT_TRUE(w.non_finite_cable_point().has_value());
    EXPECT_EQ(w.non_finite_cable_point()->cable, *cable);
    EXPECT_LT(w.non_finite_cable_point()->index, 5u);
    EXPECT_EQ(w.cable_points(*cable).value(), good);
    EXPECT_EQ(w.step_count(), 0u);
}

TEST(ErrorContract, ShapeFactoriesRefuseEveryDegenerateInput) {
    const auto bad = [](const char* what, auto&& call, const char* names) {
        expect_refused(what, call, ErrorCode::invalid_argument, names);
    };
    bad(
        "sphere", [] { return create_sphere(kNaN); }, "radius");
    bad(
        "box",
        [] {
            return create_box({1, 0, 1});
        },
        "half extent");
    bad(
        "capsule", [] { return create_capsule(0.1, -1); }, "capsule");
    bad(
        "cylinder", [] { return create_cylinder(-1, 1); }, "cylinder");
    bad(
        "cone", [] { return create_cone(1, kInf); }, "cone");
    const std::vector<Vec3> flat = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
    bad(
        "hull", [&] { return create_convex_hull(flat); }, "coplanar");
    bad(
        "plane", [] { return create_plane(Vec3::Zero(), 0); }, "plane normal");
    bad(
        "compound", [] { return create_compound({}); }, "compound");
    bad(
        "mesh",
        [] {
            return create_triangle_mesh({{0, 0, 0}, {1, 0, 0}}, {{{0, 1, 2}}});
        },
        "vertex index");
    bad(
        "height field",
        [] {
            return create_height_field({0, 0}, {1, 1}, 2, 2, {0, 0, 0});
        },
        "height field");
}

}  // namespace
}  // namespace simpulse::test
