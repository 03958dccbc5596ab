// Scene reading and world building: defaults of the contract, unit conversions of every shape (full sizes to
// half sizes), "array" expansion, both orientation forms, materials and pairs, joints and springs, solver and
// collision options, and the World built from a description (masses, materials, handles).
#include <simpulse/app/run.h>
#include <simpulse/dynamics/world.h>

#include "engine_test_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <string>

namespace simpulse::test {
namespace {

SceneDesc parsed(const std::string& json, const std::string& file = "scene.json") {
    const Result<SceneDesc> scene = parse_scene(json, file);
    EXPECT_TRUE(scene.ok()) << scene.error().message;
    return scene ? scene.value() : SceneDesc{};
}

// Angle between two rotations, rad (0 when they are the same rotation, whatever the sign of the quaternions).
double rotation_angle(const Quat& a, const Quat& b) {
    return a.angularDistance(b);
}

TEST(SceneLoad, ContractDefaults) {
    const SceneDesc s = parsed(R"({"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 0.5}}]})",
                               "dir/my_scene.json");
    EXPECT_EQ(s.name, "my_scene");  // no "name": the file name without directory and extension
    EXPECT_EQ(s.settings.gravity, Vec3(0, 0, -9.81));
    EXPECT_EQ(s.dt, 1.0 / 240);
    EXPECT_EQ(s.duration, 1.0);
    EXPECT_FALSE(s.sample_every.has_value());
    ASSERT_EQ(s.materials.size(), 1u);
    EXPECT_EQ(s.materials[0].name, "default");
    EXPECT_EQ(s.materials[0].material.friction, 0.5);
    EXPECT_EQ(s.materials[0].material.restitution, 0.0);
    EXPECT_EQ(s.materials[0].material.density, 1000.0);
    ASSERT_EQ(s.bodies.size(), 1u);
    const BodyDesc& d = s.bodies[0].desc;
    EXPECT_EQ(d.material, 0u);
    EXPECT_FALSE(d.is_static);
    EXPECT_EQ(d.pose.position, Vec3::Zero());
    EXPECT_EQ(d.pose.orientation.coeffs(), Quat::Identity().coeffs());
    EXPECT_EQ(d.velocity, Vec3::Zero());
    EXPECT_EQ(d.angular_velocity, Vec3::Zero());
    EXPECT_EQ(d.density, 1000.0);
    EXPECT_FALSE(d.mass.has_value());
    const SolverSettings defaults;
    EXPECT_EQ(s.settings.solver.mode, defaults.mode);
    EXPECT_EQ(step_count(s.duration, s.dt), 240u);
}

TEST(SceneLoad, DynamicsSettings) {
    const SceneDesc s = parsed(R"({"dynamics": {"sleep": false, "sleep_speed": 0.1, "sleep_time": 2,
        "max_joint_rotation": 0.05, "max_impact_gap": 0.001, "max_substeps": 4}})");
    EXPECT_FALSE(s.settings.allow_sleeping);
    EXPECT_EQ(s.settings.sleep_speed, 0.1);
    EXPECT_EQ(s.settings.sleep_time, 2.0);
    EXPECT_EQ(s.settings.max_joint_rotation, 0.05);
    EXPECT_EQ(s.settings.max_impact_gap, 0.001);
    EXPECT_EQ(s.settings.max_substeps, 4);
    const WorldSettings defaults;
    EXPECT_EQ(parsed("{}").settings.max_impact_gap, defaults.max_impact_gap);
    EXPECT_TRUE(parsed("{}").settings.allow_sleeping == defaults.allow_sleeping);
}

TEST(SceneLoad, TopLevelKeys) {
    const SceneDesc s =
        parsed(R"({"simpulse": 1, "name": "n", "description": "d", "gravity": [1, 2, 3], "dt": 0.002,
        "duration": 0.5, "sample_every": 0.1, "collision": {"contact_margin": 0.004, "aabb_margin": 0.05,
        "manifold_reuse_distance": 2e-6}, "solver": {"mode": "thesis", "restitution_threshold": 0.2, "direct_max_rows": 10, "direct_first_max_rows": 4,
                   "dense_max_rows": 5,
                   "max_active_set_iterations": 7, "iterative_tolerance": 1e-8, "max_iterations": 99, "tolerance": 1e-7, "iterative_accept": 2e-4,
                   "newton_max_factorizations": 11, "newton_max_bodies": 12,
                   "warm_start": false, "penetration_slop": 0.001, "penetration_correction": 0.5,
                   "max_correction": 0.1, "joint_tolerance": 1e-7, "max_projection_iterations": 3,
                   "recheck_iterations": 0}})");
    EXPECT_EQ(s.name, "n");
    EXPECT_EQ(s.settings.gravity, Vec3(1, 2, 3));
    EXPECT_EQ(s.dt, 0.002);
    EXPECT_EQ(s.duration, 0.5);
    EXPECT_EQ(s.sample_every, 0.1);
    EXPECT_EQ(s.settings.contact_margin, 0.004);
    EXPECT_EQ(s.settings.aabb_margin, 0.05);
    EXPECT_EQ(s.settings.manifold_reuse_distance, 2e-6);
    const SolverSettings& v = s.settings.solver;
    EXPECT_EQ(v.mode, SolverMode::thesis);
    EXPECT_EQ(v.restitution_threshold, 0.2);
    EXPECT_EQ(v.direct_max_rows, 10);
    EXPECT_EQ(v.direct_first_max_rows, 4);
    EXPECT_EQ(v.dense_max_rows, 5);
    EXPECT_EQ(v.max_active_set_iterations, 7);
    EXPECT_EQ(v.iterative_tolerance, 1e-8);
    EXPECT_EQ(v.max_iterations, 99);
    EXPECT_EQ(v.tolerance, 1e-7);
    EXPECT_EQ(v.iterative_accept, 2e-4);
    EXPECT_EQ(v.newton_max_factorizations, 11);
    EXPECT_EQ(v.newton_max_bodies, 12);
    EXPECT_FALSE(v.warm_start);
    EXPECT_EQ(v.penetration_slop, 0.001);
    EXPECT_EQ(v.penetration_correction, 0.5);
    EXPECT_EQ(v.max_correction, 0.1);
    EXPECT_EQ(v.joint_tolerance, 1e-7);
    EXPECT_EQ(v.max_projection_iterations, 3);
    EXPECT_EQ(v.recheck_iterations, 0);
}

TEST(SceneLoad, StepCount) {
    EXPECT_EQ(step_count(1.0, 1.0 / 240), 240u);  // 240.00000000000003 counts as 240
    EXPECT_EQ(step_count(1.0, 0.1), 10u);         // 9.999999999999998 too
    EXPECT_EQ(step_count(0.1, 0.03), 4u);         // 3.33: ceil, so the run covers the duration
    EXPECT_EQ(step_count(0.001, 1.0), 1u);
}

TEST(SceneLoad, PrimitiveShapesUseHalfSizes) {
    const SceneDesc s = parsed(R"({"bodies": [
        {"name": "s", "shape": {"type": "sphere", "radius": 0.25}},
        {"name": "b", "shape": {"type": "box", "size": [1, 2, 3]}},
        {"name": "c", "shape": {"type": "capsule", "radius": 0.5, "length": 2}},
        {"name": "y", "shape": {"type": "cylinder", "radius": 0.5, "height": 3}},
        {"name": "k", "shape": {"type": "cone", "radius": 0.5, "height": 1}}]})");
    ASSERT_EQ(s.bodies.size(), 5u);
    EXPECT_EQ(std::get<Sphere>(s.bodies[0].desc.shape->geometry).radius, 0.25);
    EXPECT_EQ(std::get<Box>(s.bodies[1].desc.shape->geometry).half_extents, Vec3(0.5, 1, 1.5));
    EXPECT_EQ(std::get<Capsule>(s.bodies[2].desc.shape->geometry).half_length, 1.0);
    EXPECT_EQ(std::get<Capsule>(s.bodies[2].desc.shape->geometry).radius, 0.5);
    EXPECT_EQ(std::get<Cylinder>(s.bodies[3].desc.shape->geometry).half_height, 1.5);
    EXPECT_EQ(std::get<Cone>(s.bodies[4].desc.shape->geometry).half_height, 0.5);
}

TEST(SceneLoad, StaticOnlyShapes) {
    const SceneDesc s = parsed(R"({"bodies": [
        {"name": "ground", "static": true, "shape": {"type": "plane", "normal": [0, 0, 2], "offset": 1}},
        {"name": "floor", "static": true, "shape": {"type": "plane", "normal": [0, 0, 1]}},
        {"name": "terrain", "static": true, "shape": {"type": "heightfield", "origin": [-1, -2], "spacing": [0.5, 0.25],
                                                     "heights": [[0, 1, 2], [3, 4, 5]]}},
        {"name": "ramp", "static": true, "shape": {"type": "mesh",
            "vertices": [[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], "triangles": [[0, 1, 2], [0, 2, 3]]}}]})");
    ASSERT_EQ(s.bodies.size(), 4u);
    // The plane n.x <= c with n = (0, 0, 2), c = 1 is z <= 0.5.
    const Plane& p = std::get<Plane>(s.bodies[0].desc.shape->geometry);
    EXPECT_EQ(p.normal, Vec3(0, 0, 1));
    EXPECT_EQ(p.offset, 0.5);
    EXPECT_EQ(std::get<Plane>(s.bodies[1].desc.shape->geometry).offset, 0.0);
    // heights[i][j] is the height at (x0 + j dx, y0 + i dy): row i along y, column j along x.
    const HeightField& h = std::get<HeightField>(s.bodies[2].desc.shape->geometry);
    EXPECT_EQ(h.rows, 2);
    EXPECT_EQ(h.columns, 3);
    EXPECT_EQ(h.origin, Vec2(-1, -2));
    EXPECT_EQ(h.spacing, Vec2(0.5, 0.25));
    EXPECT_EQ(h.height(0, 2), 2.0);
    EXPECT_EQ(h.height(1, 0), 3.0);
    const TriangleMesh& m = std::get<TriangleMesh>(s.bodies[3].desc.shape->geometry);
    EXPECT_EQ(m.vertices.size(), 4u);
    ASSERT_EQ(m.triangles.size(), 2u);
    EXPECT_EQ(m.triangles[1], (std::array<std::uint32_t, 3>{0, 2, 3}));
}

TEST(SceneLoad, ConvexAndCompound) {
    const SceneDesc s = parsed(R"({"bodies": [
        {"name": "hull", "shape": {"type": "convex", "points": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0.1, 0.1, 0.1]]}},
        {"name": "t", "shape": {"type": "compound", "children": [
            {"shape": {"type": "box", "size": [2, 0.2, 0.2]}},
            {"shape": {"type": "compound", "children": [
                {"shape": {"type": "sphere", "radius": 0.1}, "position": [0, 0, 1]}]},
             "position": [1, 0, 0], "orientation": {"axis": [0, 1, 0], "angle_deg": 90}}]}}]})");
    ASSERT_EQ(s.bodies.size(), 2u);
    const ConvexHull& hull = std::get<ConvexHull>(s.bodies[0].desc.shape->geometry);
    EXPECT_EQ(hull.vertices.size(), 4u);  // the interior point is not a vertex
    // The inner compound is flattened: its sphere at (0, 0, 1), rotated 90 degrees about y, lands at (1, 0,
    // 0) relative to the inner frame, which sits at (1, 0, 0).
    const Compound& c = std::get<Compound>(s.bodies[1].desc.shape->geometry);
    ASSERT_EQ(c.children.size(), 2u);
    EXPECT_EQ(c.children[0].shape->type(), ShapeType::box);
    EXPECT_EQ(c.children[1].shape->type(), ShapeType::sphere);
    EXPECT_NEAR((c.children[1].pose.position - Vec3(2, 0, 0)).norm(), 0, 1e-15)
        << c.children[1].pose.position.transpose();
}

TEST(SceneLoad, ArrayExpansion) {
    const SceneDesc s = parsed(R"({"bodies": [
        {"name": "first", "shape": {"type": "sphere", "radius": 0.1}},
        {"name": "domino", "shape": {"type": "box", "size": [0.1, 0.5, 1]}, "position": [1, 2, 0.5],
         "velocity": [0, 0, 1], "array": {"count": 3, "offset": [0.4, 0, 0]}},
        {"name": "last", "shape": {"type": "sphere", "radius": 0.1}}]})");
    ASSERT_EQ(s.bodies.size(), 5u);
    const char* names[] = {"first", "domino_1", "domino_2", "domino_3", "last"};
    for (std::size_t i = 0; i < 5; ++i) {
        EXPECT_EQ(s.bodies[i].name, names[i]);
        EXPECT_EQ(s.bodies[i].desc.user_data, i);
    }
    for (int k = 0; k < 3; ++k) {
        const BodyDesc& d = s.bodies[static_cast<std::size_t>(1 + k)].desc;
        EXPECT_EQ(d.pose.position, Vec3(1 + 0.4 * k, 2, 0.5)) << "copy " << k + 1;
        EXPECT_EQ(d.velocity, Vec3(0, 0, 1));
        EXPECT_EQ(s.bodies[static_cast<std::size_t>(1 + k)].pointer, "/bodies/1");
    }
    EXPECT_EQ(parsed(R"({"bodies": [{"name": "one", "shape": {"type": "sphere", "radius": 0.1},
                                     "array": {"count": 1, "offset": [1, 0, 0]}}]})")
                  .bodies[0]
                  .name,
              "one_1");
}

TEST(SceneLoad, QuaternionOrientation) {
    const SceneDesc s = parsed(R"({"bodies": [
        {"name": "a", "shape": {"type": "sphere", "radius": 0.1}, "orientation": {"w": 0.6, "x": 0, "y": 0.8, "z": 0}},
        {"name": "b", "shape": {"type": "sphere", "radius": 0.1}, "orientation": {"w": 0.7071, "x": 0.7071, "y": 0, "z": 0}}]})");
    const Quat a = s.bodies[0].desc.pose.orientation;
    EXPECT_NEAR(a.w(), 0.6, 1e-15);
    EXPECT_NEAR(a.y(), 0.8, 1e-15);
    // |q| = 0.99999 (rounded by hand) is within the tolerance and is normalised.
    const Quat b = s.bodies[1].desc.pose.orientation;
    EXPECT_NEAR(b.norm(), 1.0, 1e-15);
    EXPECT_NEAR(b.w(), std::sqrt(0.5), 1e-15);
    EXPECT_NEAR(b.x(), std::sqrt(0.5), 1e-15);
}

TEST(SceneLoad, AxisAngleOrientation) {
    const SceneDesc s = parsed(R"({"bodies": [
        {"name": "a", "shape": {"type": "sphere", "radius": 0.1}, "orientation": {"axis": [0, 0, 2], "angle_deg": 90}},
        {"name": "b", "shape": {"type": "sphere", "radius": 0.1}, "orientation": {"angle_deg": -30, "axis": [1, 1, 0]}}]})");
    const Quat a = s.bodies[0].desc.pose.orientation;
    // 90 degrees about z: x -> y.
    EXPECT_NEAR((a * Vec3::UnitX() - Vec3::UnitY()).norm(), 0, 1e-15);
    const Quat expected_b(Eigen::AngleAxisd(-std::numbers::pi / 6, Vec3(1, 1, 0).normalized()));
    EXPECT_NEAR(rotation_angle(s.bodies[1].desc.pose.orientation, expected_b), 0, 1e-15);
}

TEST(SceneLoad, MaterialsAndPairs) {
    const SceneDesc s = parsed(R"({
        "bodies": [{"name": "a", "material": "steel", "shape": {"type": "sphere", "radius": 0.1}},
                   {"name": "b", "material": "rubber", "density": 10, "shape": {"type": "sphere", "radius": 0.1}},
                   {"name": "c", "mass": 3, "shape": {"type": "sphere", "radius": 0.1}}],
        "materials": {"steel": {"friction": 0.2, "restitution": 0.1, "density": 7800},
                      "default": {"density": 500, "friction": 0.6},
                      "rubber": {"friction": 1.0, "restitution": 0.8}},
        "pairs": [{"materials": ["steel", "rubber"], "friction": 0.9},
                  {"materials": ["default", "steel"], "restitution": 0.3, "friction": 0.1}]})");
    ASSERT_EQ(s.materials.size(), 3u);
    EXPECT_EQ(s.materials[0].name, "default");
    EXPECT_EQ(s.materials[0].material.density, 500.0);
    EXPECT_EQ(s.materials[0].material.friction, 0.6);
    EXPECT_EQ(s.materials[1].name, "steel");
    EXPECT_EQ(s.materials[2].name, "rubber");
    EXPECT_EQ(s.materials[2].material.density, 1000.0);  // unset keys take the contract defaults
    EXPECT_EQ(s.bodies[0].desc.material, 1u);
    EXPECT_EQ(s.bodies[0].desc.density, 7800.0);  // the material's density
    EXPECT_EQ(s.bodies[1].desc.material, 2u);
    EXPECT_EQ(s.bodies[1].desc.density, 10.0);  // the body's own
    EXPECT_EQ(s.bodies[2].desc.mass, 3.0);
    ASSERT_EQ(s.pairs.size(), 2u);
    EXPECT_EQ(s.pairs[0].a, 1u);
    EXPECT_EQ(s.pairs[0].b, 2u);
    EXPECT_EQ(s.pairs[0].friction, 0.9);
    EXPECT_EQ(s.pairs[0].restitution, 0.5 * (0.1 + 0.8));  // not given: the mean, as without an entry
    EXPECT_EQ(s.pairs[1].friction, 0.1);
    EXPECT_EQ(s.pairs[1].restitution, 0.3);
}

TEST(SceneLoad, JointsAndSprings) {
    const SceneDesc s = parsed(R"({"bodies": [
            {"name": "a", "shape": {"type": "sphere", "radius": 0.1}},
            {"name": "b", "shape": {"type": "sphere", "radius": 0.1}, "position": [0, 0, -1]}],
        "joints": [{"type": "ball", "bodies": ["world", "a"], "anchor": [0, 0, 0.5]},
                   {"type": "ball", "name": "ab", "bodies": ["a", "b"], "anchor": [0, 0, -0.5], "collide": true}],
        "springs": [{"bodies": ["world", "b"], "anchors": [[0, 0, 1], [0, 0, -1]], "stiffness": 100, "damping": 2},
                    {"bodies": ["a", "b"], "anchors": [[0, 0, 0], [0, 0, -1]], "stiffness": 5, "rest_length": 0.25}]})");
    ASSERT_EQ(s.joints.size(), 2u);
    EXPECT_EQ(s.joints[0].body_a, 0u);  // "world" first is swapped to body B
    EXPECT_EQ(s.joints[0].body_b, kSceneWorld);
    EXPECT_FALSE(s.joints[0].collide);
    EXPECT_EQ(s.joints[0].anchor, Vec3(0, 0, 0.5));
    EXPECT_EQ(s.joints[1].name, "ab");
    EXPECT_EQ(s.joints[1].body_a, 0u);
    EXPECT_EQ(s.joints[1].body_b, 1u);
    EXPECT_TRUE(s.joints[1].collide);
    ASSERT_EQ(s.springs.size(), 2u);
    EXPECT_EQ(s.springs[0].body_a, kSceneWorld);
    EXPECT_EQ(s.springs[0].body_b, 1u);
    EXPECT_EQ(s.springs[0].stiffness, 100.0);
    EXPECT_EQ(s.springs[0].damping, 2.0);
    EXPECT_EQ(s.springs[0].rest_length, 2.0);  // not given: the initial distance of the anchors
    EXPECT_EQ(s.springs[1].damping, 0.0);
    EXPECT_EQ(s.springs[1].rest_length, 0.25);
}

// The limit and motor keys of hinge, slider and distance joints reach the scene's JointLimit and JointMotor.
TEST(SceneLoad, JointLimitsRestitutionAndMotors) {
    const SceneDesc s = parsed(R"({"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 0.1}}],
        "joints": [{"type": "hinge", "bodies": ["a", "world"], "anchor": [0, 0, 0], "axis": [0, 0, 1],
                    "limits": [-0.5, 1], "restitution": 0.25, "motor": {"speed": 2, "max_torque": 3}},
                   {"type": "distance", "bodies": ["a", "world"], "anchors": [[0, 0, 0], [0, 0, 1]], "max": 1,
                    "restitution": 1},
                   {"type": "slider", "bodies": ["a", "world"], "anchor": [0, 0, 0], "axis": [1, 0, 0]}]})");
    ASSERT_EQ(s.joints.size(), 3u);
    const JointLimit& hinge = s.joints[0].limit;
    EXPECT_TRUE(hinge.enabled);
    EXPECT_EQ(hinge.lower, -0.5);
    EXPECT_EQ(hinge.upper, 1.0);
    EXPECT_EQ(hinge.restitution, 0.25);
    EXPECT_TRUE(s.joints[0].motor.enabled);
    EXPECT_EQ(s.joints[0].motor.speed, 2.0);
    EXPECT_EQ(s.joints[0].motor.max_force, 3.0);
    EXPECT_FALSE(s.joints[1].limit.enabled);  // a distance joint's limits are its min and max
    EXPECT_EQ(s.joints[1].limit.restitution, 1.0);
    EXPECT_FALSE(s.joints[2].limit.enabled);
    EXPECT_EQ(s.joints[2].limit.restitution, 0.0);
    EXPECT_FALSE(s.joints[2].motor.enabled);
}

TEST(SceneBuild, WorldFromScene) {
    const SceneDesc s = parsed(R"({"gravity": [0, 0, -1.62],
        "materials": {"ice": {"friction": 0.02, "restitution": 0.1, "density": 900}},
        "pairs": [{"materials": ["ice", "default"], "friction": 0.05, "restitution": 0.2}],
        "bodies": [{"name": "ground", "static": true, "shape": {"type": "plane", "normal": [0, 0, 1]}},
                   {"name": "cube", "material": "ice", "shape": {"type": "box", "size": [1, 2, 0.5]}, "position": [0, 0, 2],
                    "velocity": [1, 2, 3], "angular_velocity": [0.1, 0.2, 0.3]},
                   {"name": "ball", "mass": 2, "shape": {"type": "sphere", "radius": 0.5}, "position": [3, 0, 2]}],
        "joints": [{"type": "ball", "bodies": ["cube", "ball"], "anchor": [1.5, 0, 2]}],
        "springs": [{"bodies": ["world", "ball"], "anchors": [[3, 0, 4], [3, 0, 2.5]], "stiffness": 10}]})");
    Result<SceneWorld> built = build_world(s);
    ASSERT_TRUE(built.ok()) << built.error().message;
    SceneWorld& sw = built.value();
    EXPECT_EQ(sw.world.body_count(), 3u);
    ASSERT_EQ(sw.bodies.size(), 3u);
    EXPECT_EQ(sw.joints.size(), 1u);
    EXPECT_EQ(sw.springs.size(), 1u);
    EXPECT_EQ(sw.world.settings().gravity, Vec3(0, 0, -1.62));
    const BodyInfo cube = sw.world.info(sw.bodies[1]).value();
    EXPECT_NEAR(cube.mass, 900.0 * 1 * 2 * 0.5, 1e-9);
    EXPECT_EQ(cube.material, 1u);
    EXPECT_EQ(sw.world.info(sw.bodies[2]).value().mass, 2.0);
    EXPECT_TRUE(sw.world.info(sw.bodies[0]).value().is_static);
    const CombinedMaterial ice_default = detail::dynamics_of(sw.world).materials().combine(1, 0);
    EXPECT_EQ(ice_default.friction, 0.05);
    EXPECT_EQ(ice_default.restitution, 0.2);
    const BodyState state = sw.world.state(sw.bodies[1]).value();
    EXPECT_EQ(state.pose.position, Vec3(0, 0, 2));
    EXPECT_EQ(state.velocity, Vec3(1, 2, 3));
    EXPECT_EQ(state.angular_velocity, Vec3(0.1, 0.2, 0.3));
    EXPECT_NEAR(sw.world.joint_error(sw.joints[0]).value(), 0, 1e-15);
}

// Two resting spheres of radius 0.1 whose surfaces are 0.3 m apart: their broad-phase boxes (the sphere's box
// inflated by half the contact margin, 0.001, then fattened by a tenth of its half extent and aabb_margin)
// overlap only with an aabb_margin above 0.139. A scene's aabb_margin used to be ignored (only the world's
// constructor read it).
TEST(SceneBuild, AabbMarginFattensTheBroadPhaseBoxes) {
    auto broad_phase_pairs = [](double aabb_margin) {
        const SceneDesc s = parsed(R"({"gravity": [0, 0, 0], "collision": {"aabb_margin": )" +
                                   std::to_string(aabb_margin) + R"(},
            "bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 0.1}},
                       {"name": "b", "shape": {"type": "sphere", "radius": 0.1}, "position": [0.5, 0, 0]}]})");
        Result<SceneWorld> built = build_world(s);
        EXPECT_TRUE(built.ok()) << built.error().message;
        if (!built) return std::size_t{99};
        EXPECT_TRUE(built.value().world.step(0.01));
        return detail::dynamics_of(built.value().world).broad_phase().pairs().size();
    };
    EXPECT_EQ(broad_phase_pairs(0.0), 0u);
    EXPECT_EQ(broad_phase_pairs(0.13), 0u);
    EXPECT_EQ(broad_phase_pairs(0.15), 1u);
}

TEST(SceneBuild, EveryShapeBuilds) {
    const SceneDesc s = parsed(R"({"bodies": [
        {"name": "plane", "static": true, "shape": {"type": "plane", "normal": [0, 0, 1], "offset": -5}},
        {"name": "terrain", "static": true, "shape": {"type": "heightfield", "origin": [0, 0], "spacing": [1, 1],
                                                     "heights": [[0, 0, 0], [0, 1, 0], [0, 0, 0]]}, "position": [20, 0, 0]},
        {"name": "mesh", "static": true, "position": [-20, 0, 0], "shape": {"type": "mesh",
            "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], "triangles": [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]}},
        {"name": "sphere", "shape": {"type": "sphere", "radius": 0.5}, "position": [0, 0, 10]},
        {"name": "box", "shape": {"type": "box", "size": [1, 1, 1]}, "position": [3, 0, 10]},
        {"name": "capsule", "shape": {"type": "capsule", "radius": 0.2, "length": 1}, "position": [6, 0, 10]},
        {"name": "cylinder", "shape": {"type": "cylinder", "radius": 0.2, "height": 1}, "position": [9, 0, 10]},
        {"name": "cone", "shape": {"type": "cone", "radius": 0.2, "height": 1}, "position": [12, 0, 10]},
        {"name": "hull", "shape": {"type": "convex", "points": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]}, "position": [15, 0, 10]},
        {"name": "compound", "shape": {"type": "compound", "children": [{"shape": {"type": "sphere", "radius": 0.2}},
            {"shape": {"type": "box", "size": [0.2, 0.2, 0.2]}, "position": [0.5, 0, 0]}]}, "position": [18, 0, 10]}]})");
    Result<SceneWorld> built = build_world(s);
    ASSERT_TRUE(built.ok()) << built.error().message;
    EXPECT_EQ(built.value().world.body_count(), 10u);
    // The cone's body frame is its mid-height point; its centre of mass is a quarter of the height below.
    const BodyInfo cone = built.value().world.info(built.value().bodies[7]).value();
    EXPECT_NEAR((cone.local_center_of_mass - Vec3(0, 0, -0.25)).norm(), 0, 1e-12);
}

TEST(SceneBuild, InvalidSettingsAreReportedAtTheirKey) {
    // A SceneDesc changed in code reaches World::set_settings unchecked by the reader; its error named
    // "(root)" instead of the key that sets the value.
    const SceneDesc valid = parsed("{}");
    const auto error_with = [&](auto change) {
        SceneDesc s = valid;
        change(s.settings);
        const Result<SceneWorld> built = build_world(s);
        return built ? std::string("valid") : built.error().message;
    };
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(error_with([&](WorldSettings& w) { w.solver.max_correction = inf; }),
              "scene.json: /solver/max_correction: expected a finite number >= 0, got inf");
    EXPECT_EQ(error_with([](WorldSettings& w) { w.solver.mode = static_cast<SolverMode>(7); }),
              "scene.json: /solver/mode: expected SolverMode::thesis or SolverMode::exact, got 7");
    EXPECT_EQ(error_with([](WorldSettings& w) { w.contact_margin = -1; }),
              "scene.json: /collision/contact_margin: expected a finite number >= 0, got -1");
    EXPECT_EQ(error_with([](WorldSettings& w) { w.max_substeps = 0; }),
              "scene.json: /dynamics/max_substeps: expected an integer from 1 to 1024, got 0");
    EXPECT_EQ(error_with([](WorldSettings& w) { w.gravity.z() = std::nan(""); }),
              "scene.json: /gravity: expected a finite vector, got (0, 0, nan)");
    EXPECT_EQ(error_with([](WorldSettings&) {}), "valid");
}

}  // namespace
}  // namespace simpulse::test
