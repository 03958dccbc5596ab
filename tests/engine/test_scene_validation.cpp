// Scene validation: one test per rule of docs/scene-format.md ("Validation"), each asserting the exact error
// line "FILE: /json/pointer: message" of the reader, and a few through the `simpulse` executable asserting
// exit code 2 and the line on stderr.
#include "engine_test_support.h"

#include <simpulse/app/run.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace simpulse::test {
namespace {

// A valid scene with the body entry `body` appended after a valid first body.
std::string with_body(const std::string& body) {
    return R"({"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 0.1}}, )" + body + "]}";
}

// A valid scene whose second body has the shape `shape`.
std::string with_shape(const std::string& shape, const std::string& extra = "") {
    return with_body(R"({"name": "b", )" + extra + R"("shape": )" + shape + "}");
}

TEST(SceneValidation, ValidMinimalScene) {
    EXPECT_EQ(scene_error(with_shape(R"({"type": "box", "size": [1, 2, 3]})")), "valid");
    EXPECT_EQ(scene_error("{}"), "valid");
}

// ---- JSON text -------------------------------------------------------------------------------------------

TEST(SceneValidation, InvalidJsonNamesLineAndColumn) {
    EXPECT_EQ(
        scene_error("{\n  \"dt\": 0.1,\n  \"duration\": }"),
        "scene.json: line 3, column 15: invalid JSON: syntax error while parsing value - unexpected '}'; "
        "expected '[', '{', or a literal");
    EXPECT_EQ(
        scene_error(""),
        "scene.json: line 1, column 1: invalid JSON: syntax error while parsing value - unexpected end of "
        "input; expected '[', '{', or a literal");
}

TEST(SceneValidation, NulByteOrTextAfterTheDocument) {
    // nlohmann reads a NUL byte as the end of the input: everything after one was silently ignored.
    using namespace std::string_literals;
    EXPECT_EQ(
        scene_error("{\"bodies\": []}\0{\"this is\": ignored}"s),
        "scene.json: line 1, column 15 (byte offset 14): invalid JSON: a NUL byte (JSON text cannot contain "
        "one)");
    EXPECT_EQ(
        scene_error("{\n\"dt\": 0.1}\0"s),
        "scene.json: line 2, column 11 (byte offset 12): invalid JSON: a NUL byte (JSON text cannot contain "
        "one)");
    EXPECT_EQ(
        scene_error("{\"dt\": 0.1}\n\n  x"),
        "scene.json: line 3, column 3 (byte offset 15): invalid JSON: text after the end of the document "
        "(only whitespace may follow it)");
    // A whole token after the document is located at its first byte, not its last (the offset read 32).
    EXPECT_EQ(
        scene_error("{\"dt\": 0.1}\n\n  12345"),
        "scene.json: line 3, column 3 (byte offset 15): invalid JSON: text after the end of the document "
        "(only whitespace may follow it)");
    EXPECT_EQ(
        scene_error("{\"dt\": 0.1} \"a string with spaces\""),
        "scene.json: line 1, column 13 (byte offset 12): invalid JSON: text after the end of the document "
        "(only whitespace may follow it)");
    EXPECT_EQ(scene_error("{\"dt\": 0.1}\n \t\r\n"), "valid");
}

TEST(SceneValidation, NumberOverflowIsNotFinite) {
    // JSON has no infinity; a literal beyond the double range is the only way to write one.
    EXPECT_EQ(scene_error("{\"dt\": 1e999}"),
              "scene.json: line 1, column 12: invalid JSON: number overflow parsing '1e999'");
}

TEST(SceneValidation, DuplicateKeyInOneObject) {
    EXPECT_EQ(scene_error(with_body(
                  R"({"name": "b", "mass": 1, "shape": {"type": "sphere", "radius": 1}, "mass": 2})")),
              "scene.json: /bodies/1/mass: duplicate key in one object");
}

TEST(SceneValidation, NestingDepthIsBounded) {
    // Deep nesting would otherwise reach recursive code (nested compounds) with an unbounded stack.
    std::string deep = R"({"description": )";
    for (int i = 0; i < 200; ++i) deep += "[";
    // Containers 1 and 2 are the document and "description"; the 101st container is the first one refused.
    std::string pointer = "/description";
    for (int i = 0; i < 99; ++i) pointer += "/0";
    EXPECT_EQ(scene_error(deep), "scene.json: " + pointer + ": nested deeper than 100 levels");
}

TEST(SceneValidation, TopLevelMustBeAnObject) {
    EXPECT_EQ(scene_error("[1, 2]"), "scene.json: (root): expected a scene object, got [1,2]");
}

TEST(SceneValidation, VersionMustBeOne) {
    EXPECT_EQ(scene_error(R"({"simpulse": 1})"), "valid");
    EXPECT_EQ(scene_error(R"({"simpulse": 2})"),
              "scene.json: /simpulse: expected 1 (the scene format version this program reads), got 2");
}

// ---- unknown keys, everywhere
// ------------------------------------------------------------------------------

TEST(SceneValidation, UnknownTopLevelKey) {
    EXPECT_EQ(
        scene_error(R"({"gravty": [0, 0, -1]})"),
        "scene.json: /gravty: unknown key; expected one of simpulse, name, description, gravity, planar, dt, "
        "duration, "
        "sample_every, solver, collision, dynamics, materials, pairs, bodies, joints, springs, "
        "cables");
}

TEST(SceneValidation, PlanarIsABoolean) {
    EXPECT_EQ(scene_error(R"({"planar": true})"), "valid");
    EXPECT_EQ(scene_error(R"({"planar": 1})"), "scene.json: /planar: expected true or false, got 1");
}

TEST(SceneValidation, UnknownBodyKey) {
    EXPECT_EQ(
        scene_error(with_body(R"({"name": "b", "colour": "red", "shape": {"type": "sphere", "radius": 1}})")),
        "scene.json: /bodies/1/colour: unknown key; expected one of name, shape, material, static, mass, "
        "density, position, orientation, velocity, angular_velocity, collision_group, collision_mask, ccd, "
        "array");
    EXPECT_EQ(
        scene_error(
            with_body(R"({"name": "b", "collision_mask": -1, "shape": {"type": "sphere", "radius": 1}})")),
        "scene.json: /bodies/1/collision_mask: expected an integer in [0, 4294967295] (32 bits), got -1");
    EXPECT_EQ(
        scene_error(with_body(
            R"({"name": "b", "collision_group": 4294967296, "shape": {"type": "sphere", "radius": 1}})")),
        "scene.json: /bodies/1/collision_group: expected an integer in [0, 4294967295] (32 bits), got "
        "4294967296");
}

TEST(SceneValidation, UnknownShapeKey) {
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1, "height": 2})")),
              "scene.json: /bodies/1/shape/height: unknown key; expected one of type, radius");
}

TEST(SceneValidation, UnknownMaterialKey) {
    EXPECT_EQ(
        scene_error(R"({"materials": {"rubber": {"friction": 1, "bounce": 0.5}}})"),
        "scene.json: /materials/rubber/bounce: unknown key; expected one of friction, restitution, density");
}

TEST(SceneValidation, UnknownSolverKey) {
    EXPECT_EQ(scene_error(R"({"solver": {"mode": "exact", "iterations": 5}})"),
              "scene.json: /solver/iterations: unknown key; expected one of mode, restitution_threshold, "
              "direct_max_rows, direct_first_max_rows, dense_max_rows, max_active_set_iterations, "
              "iterative_tolerance, iterative_accept, max_iterations, "
              "warm_start, tolerance, newton_max_factorizations, newton_max_bodies, penetration_slop, "
              "penetration_correction, "
              "max_correction, joint_tolerance, "
              "max_projection_iterations, recheck_iterations, threads");
}

TEST(SceneValidation, UnknownKeysInNestedObjects) {
    EXPECT_EQ(scene_error(R"({"collision": {"margin": 0.1}})"),
              "scene.json: /collision/margin: unknown key; expected one of contact_margin, aabb_margin, "
              "manifold_reuse_distance");
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1})",
                                     R"("array": {"count": 2, "offset": [1, 0, 0], "step": 1}, )")),
              "scene.json: /bodies/1/array/step: unknown key; expected one of count, offset");
    EXPECT_EQ(
        scene_error(with_shape(
            R"({"type": "compound", "children": [{"shape": {"type": "sphere", "radius": 1}, "scale": 2}]})")),
        "scene.json: /bodies/1/shape/children/0/scale: unknown key; expected one of shape, position, "
        "orientation");
    EXPECT_EQ(
        scene_error(with_body(
            R"({"name": "b", "shape": {"type": "sphere", "radius": 1}, "orientation": {"w": 1, "x": 0, "y": 0, "z": 0, "v": 1}})")),
        "scene.json: /bodies/1/orientation/v: unknown key; expected one of w, x, y, z");
    EXPECT_EQ(scene_error(R"({"pairs": [{"materials": ["default", "default"], "mu": 1}]})"),
              "scene.json: /pairs/0/mu: unknown key; expected one of materials, friction, restitution");
}

TEST(SceneValidation, UnknownJointAndSpringKeys) {
    EXPECT_EQ(
        scene_error(R"({"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
                              "joints": [{"type": "ball", "bodies": ["a", "world"], "anchor": [0, 0, 0], "limit": 1}]})"),
        "scene.json: /joints/0/limit: unknown key; expected one of type, name, bodies, anchor, collide");
    EXPECT_EQ(scene_error(R"({"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
                              "springs": [{"bodies": ["a", "world"], "anchors": [[0, 0, 0], [0, 0, 1]], "stiffness": 1, "k": 1}]})"),
              "scene.json: /springs/0/k: unknown key; expected one of bodies, anchors, stiffness, damping, "
              "rest_length");
}

// ---- types and missing keys -------------------------------------------------------------------------------

TEST(SceneValidation, WrongTypes) {
    EXPECT_EQ(scene_error(R"({"dt": "fast"})"), R"(scene.json: /dt: expected a positive number, got "fast")");
    EXPECT_EQ(scene_error(R"({"name": 3})"), "scene.json: /name: expected a non-empty string, got 3");
    EXPECT_EQ(scene_error(R"({"gravity": [0, 0]})"),
              "scene.json: /gravity: expected an array of 3 numbers, got [0,0]");
    EXPECT_EQ(scene_error(R"({"gravity": [0, "down", 0]})"),
              R"(scene.json: /gravity/1: expected a number, got "down")");
    EXPECT_EQ(scene_error(R"({"bodies": {"a": 1}})"),
              R"(scene.json: /bodies: expected an array of bodies, got {"a":1})");
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1})", R"("static": "yes", )")),
              R"(scene.json: /bodies/1/static: expected true or false, got "yes")");
    EXPECT_EQ(scene_error(with_body("3")), "scene.json: /bodies/1: expected an object, got 3");
    EXPECT_EQ(scene_error(R"({"solver": {"warm_start": 1}})"),
              "scene.json: /solver/warm_start: expected true or false, got 1");
    EXPECT_EQ(scene_error(R"({"solver": {"max_iterations": 2.5}})"),
              "scene.json: /solver/max_iterations: expected a positive integer, got 2.5");
}

TEST(SceneValidation, MissingRequiredKeys) {
    EXPECT_EQ(scene_error(with_body(R"({"name": "b"})")),
              R"(scene.json: /bodies/1: missing required key "shape")");
    EXPECT_EQ(scene_error(with_body(R"({"shape": {"type": "sphere", "radius": 1}})")),
              R"(scene.json: /bodies/1: missing required key "name")");
    EXPECT_EQ(scene_error(with_shape(R"({"radius": 1})")),
              R"(scene.json: /bodies/1/shape: missing required key "type")");
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere"})")),
              R"(scene.json: /bodies/1/shape: missing required key "radius")");
    EXPECT_EQ(scene_error(with_shape(R"({"type": "capsule", "radius": 1})")),
              R"(scene.json: /bodies/1/shape: missing required key "length")");
    EXPECT_EQ(scene_error(R"({"pairs": [{"friction": 1}]})"),
              R"(scene.json: /pairs/0: missing required key "materials")");
    EXPECT_EQ(scene_error(R"({"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
                              "joints": [{"type": "ball", "bodies": ["a", "world"]}]})"),
              R"(scene.json: /joints/0: missing required key "anchor")");
    EXPECT_EQ(scene_error(R"({"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
                              "springs": [{"bodies": ["a", "world"], "anchors": [[0, 0, 0], [0, 0, 1]]}]})"),
              R"(scene.json: /springs/0: missing required key "stiffness")");
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1})", R"("array": {"count": 2}, )")),
              R"(scene.json: /bodies/1/array: missing required key "offset")");
}

TEST(SceneValidation, UnknownShapeType) {
    EXPECT_EQ(
        scene_error(with_shape(R"({"type": "sphre", "radius": 1})")),
        R"(scene.json: /bodies/1/shape/type: expected a shape type (sphere, box, capsule, cylinder, cone, convex, mesh, heightfield, plane, compound, prism), got "sphre")");
}

// ---- numbers out of range ---------------------------------------------------------------------------------

TEST(SceneValidation, ContractExampleNegativeRadius) {
    const std::string json = R"({"bodies": [
        {"name": "b0", "shape": {"type": "sphere", "radius": 1}},
        {"name": "b1", "shape": {"type": "sphere", "radius": 1}},
        {"name": "b2", "shape": {"type": "sphere", "radius": 1}},
        {"name": "b3", "shape": {"type": "sphere", "radius": -1}}]})";
    EXPECT_EQ(scene_error(json), "scene.json: /bodies/3/shape/radius: expected a positive number, got -1");
}

TEST(SceneValidation, NonPositiveSizes) {
    EXPECT_EQ(scene_error(with_shape(R"({"type": "box", "size": [1, 0, 1]})")),
              "scene.json: /bodies/1/shape/size/1: expected a positive number, got 0");
    EXPECT_EQ(scene_error(with_shape(R"({"type": "capsule", "radius": 1, "length": 0})")),
              "scene.json: /bodies/1/shape/length: expected a positive number, got 0");
    EXPECT_EQ(scene_error(with_shape(R"({"type": "cylinder", "radius": 1, "height": -2.5})")),
              "scene.json: /bodies/1/shape/height: expected a positive number, got -2.5");
    EXPECT_EQ(scene_error(with_shape(R"({"type": "cone", "radius": 0, "height": 1})")),
              "scene.json: /bodies/1/shape/radius: expected a positive number, got 0");
    EXPECT_EQ(
        scene_error(with_shape(
            R"({"type": "heightfield", "origin": [0, 0], "spacing": [1, 0], "heights": [[0, 0], [0, 0]]})",
            R"("static": true, )")),
        "scene.json: /bodies/1/shape/spacing/1: expected a positive number, got 0");
}

TEST(SceneValidation, SizesWithoutAPositiveHalf) {
    // The shapes store half sizes, and half of 5e-324 is 0: the box was refused with "box half extent must
    // be a positive finite number, got 0.000000", a value the file does not contain.
    EXPECT_EQ(
        scene_error(with_shape(R"({"type": "box", "size": [5e-324, 1, 1]})")),
        "scene.json: /bodies/1/shape/size/0: expected a size of at least 1e-323 (the shape stores half of "
        "it), got 5e-324");
    EXPECT_EQ(scene_error(with_shape(R"({"type": "capsule", "radius": 1, "length": 5e-324})")),
              "scene.json: /bodies/1/shape/length: expected a size of at least 1e-323 (the shape stores half "
              "of it), got 5e-324");
    EXPECT_EQ(scene_error(with_shape(R"({"type": "box", "size": [1e-323, 1, 1]})", R"("static": true, )")),
              "valid");
}

TEST(SceneValidation, NonPositiveMassAndDensity) {
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1})", R"("mass": 0, )")),
              "scene.json: /bodies/1/mass: expected a positive number, got 0");
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1})", R"("density": -5, )")),
              "scene.json: /bodies/1/density: expected a positive number, got -5");
    EXPECT_EQ(scene_error(R"({"materials": {"foam": {"density": 0}}})"),
              "scene.json: /materials/foam/density: expected a positive number, got 0");
}

TEST(SceneValidation, NonPositiveTimes) {
    EXPECT_EQ(scene_error(R"({"dt": 0})"), "scene.json: /dt: expected a positive number, got 0");
    EXPECT_EQ(scene_error(R"({"duration": -1})"),
              "scene.json: /duration: expected a positive number, got -1");
    EXPECT_EQ(scene_error(R"({"sample_every": 0})"),
              "scene.json: /sample_every: expected a positive number, got 0");
}

TEST(SceneValidation, TooManySteps) {
    EXPECT_EQ(scene_error(R"({"dt": 1e-12})"),
              "scene.json: /dt: duration / dt is more than 1000000000 steps");
    EXPECT_EQ(scene_error(R"({"duration": 1e12})"),
              "scene.json: /duration: duration / dt is more than 1000000000 steps");
}

TEST(SceneValidation, FrictionAndRestitutionRanges) {
    EXPECT_EQ(scene_error(R"({"materials": {"ice": {"friction": -0.1}}})"),
              "scene.json: /materials/ice/friction: expected a non-negative number, got -0.1");
    EXPECT_EQ(scene_error(R"({"materials": {"default": {"restitution": 1.5}}})"),
              "scene.json: /materials/default/restitution: expected a number in [0, 1], got 1.5");
    EXPECT_EQ(scene_error(R"({"pairs": [{"materials": ["default", "default"], "restitution": -0.5}]})"),
              "scene.json: /pairs/0/restitution: expected a number in [0, 1], got -0.5");
    EXPECT_EQ(scene_error(R"({"pairs": [{"materials": ["default", "default"], "friction": -1}]})"),
              "scene.json: /pairs/0/friction: expected a non-negative number, got -1");
}

TEST(SceneValidation, SolverAndCollisionOptions) {
    EXPECT_EQ(scene_error(R"({"solver": {"mode": "fast"}})"),
              R"(scene.json: /solver/mode: expected "thesis" or "exact", got "fast")");
    EXPECT_EQ(scene_error(R"({"solver": {"max_iterations": 0}})"),
              "scene.json: /solver/max_iterations: expected a positive integer, got 0");
    EXPECT_EQ(scene_error(R"({"solver": {"penetration_correction": 2}})"),
              "scene.json: /solver/penetration_correction: expected a number in [0, 1], got 2");
    EXPECT_EQ(scene_error(R"({"solver": {"direct_first_max_rows": -1}})"),
              "scene.json: /solver/direct_first_max_rows: expected a non-negative integer, got -1");
    EXPECT_EQ(scene_error(R"({"solver": {"iterative_tolerance": 0}})"),
              "scene.json: /solver/iterative_tolerance: expected a positive number, got 0");
    EXPECT_EQ(scene_error(R"({"solver": {"tolerance": -1e-9}})"),
              "scene.json: /solver/tolerance: expected a positive number, got -1e-09");
    EXPECT_EQ(scene_error(R"({"solver": {"iterative_accept": -1}})"),
              "scene.json: /solver/iterative_accept: expected a non-negative number, got -1");
    EXPECT_EQ(scene_error(R"({"solver": {"newton_max_bodies": -1}})"),
              "scene.json: /solver/newton_max_bodies: expected a non-negative integer, got -1");
    EXPECT_EQ(scene_error(R"({"solver": {"threads": 0}})"),
              "scene.json: /solver/threads: expected a whole number from 1 to 256, got 0");
    EXPECT_EQ(scene_error(R"({"solver": {"threads": 1.5}})"),
              "scene.json: /solver/threads: expected a whole number from 1 to 256, got 1.5");
    EXPECT_EQ(scene_error(R"({"solver": {"newton_max_factorizations": 0}})"),
              "scene.json: /solver/newton_max_factorizations: expected a positive integer, got 0");
    EXPECT_EQ(scene_error(R"({"dynamics": {"max_substeps": 0}})"),
              "scene.json: /dynamics/max_substeps: expected a whole number from 1 to 1024, got 0");
    EXPECT_EQ(scene_error(R"({"dynamics": {"max_impact_gap": -0.001}})"),
              "scene.json: /dynamics/max_impact_gap: expected a non-negative number, got -0.001");
    EXPECT_EQ(scene_error(R"({"dynamics": {"sleep": 1}})"),
              "scene.json: /dynamics/sleep: expected true or false, got 1");
    EXPECT_EQ(scene_error(R"({"collision": {"contact_margin": -0.001}})"),
              "scene.json: /collision/contact_margin: expected a non-negative number, got -0.001");
    EXPECT_EQ(scene_error(R"({"collision": {"manifold_reuse_distance": -1e-6}})"),
              "scene.json: /collision/manifold_reuse_distance: expected a non-negative number, got -1e-06");
}

// ---- names and references ---------------------------------------------------------------------------------

TEST(SceneValidation, DuplicateBodyNames) {
    EXPECT_EQ(scene_error(with_body(R"({"name": "a", "shape": {"type": "sphere", "radius": 1}})")),
              R"(scene.json: /bodies/1/name: duplicate body name "a" (already used by /bodies/0))");
}

TEST(SceneValidation, DuplicateBodyNamesAfterArrayExpansion) {
    // "row" with count 3 is row_1, row_2, row_3; an explicit "row_2" collides with the second copy.
    EXPECT_EQ(scene_error(R"({"bodies": [
        {"name": "row_2", "shape": {"type": "sphere", "radius": 1}},
        {"name": "row", "shape": {"type": "sphere", "radius": 1}, "array": {"count": 3, "offset": [3, 0, 0]}}]})"),
              R"(scene.json: /bodies/1/name: duplicate body name "row_2" (already used by /bodies/0))");
}

TEST(SceneValidation, WorldIsAReservedName) {
    EXPECT_EQ(
        scene_error(with_body(R"({"name": "world", "shape": {"type": "sphere", "radius": 1}})")),
        R"(scene.json: /bodies/1/name: the name "world" is reserved for the fixed world frame in joints and springs)");
}

TEST(SceneValidation, UnknownMaterialInBody) {
    EXPECT_EQ(scene_error(R"({"materials": {"rubber": {}},
                              "bodies": [{"name": "a", "material": "steel", "shape": {"type": "sphere", "radius": 1}}]})"),
              R"(scene.json: /bodies/0/material: unknown material "steel" (materials: default, rubber))");
}

TEST(SceneValidation, MaterialMayBeDefinedAfterItsUse) {
    EXPECT_EQ(
        scene_error(
            R"({"bodies": [{"name": "a", "material": "steel", "shape": {"type": "sphere", "radius": 1}}],
                              "materials": {"steel": {"density": 7800}}})"),
        "valid");
}

TEST(SceneValidation, UnknownMaterialInPair) {
    EXPECT_EQ(scene_error(R"({"pairs": [{"materials": ["default", "steel"], "friction": 0.3}]})"),
              R"(scene.json: /pairs/0/materials/1: unknown material "steel" (materials: default))");
}

TEST(SceneValidation, DuplicatePair) {
    EXPECT_EQ(scene_error(R"({"materials": {"ice": {}}, "pairs": [
        {"materials": ["default", "ice"], "friction": 0.1},
        {"materials": ["ice", "default"], "friction": 0.2}]})"),
              R"(scene.json: /pairs/1/materials: the pair "ice", "default" is already set by /pairs/0)");
}

TEST(SceneValidation, UnknownBodyInJoint) {
    EXPECT_EQ(scene_error(R"({"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
                              "joints": [{"type": "ball", "bodies": ["a", "b"], "anchor": [0, 0, 0]}]})"),
              R"(scene.json: /joints/0/bodies/1: unknown body "b" (expected a body name or "world"))");
}

TEST(SceneValidation, UnknownBodyInSpring) {
    EXPECT_EQ(scene_error(R"({"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
                              "springs": [{"bodies": ["ghost", "a"], "anchors": [[0, 0, 0], [0, 0, 0]], "stiffness": 1}]})"),
              R"(scene.json: /springs/0/bodies/0: unknown body "ghost" (expected a body name or "world"))");
}

TEST(SceneValidation, JointBodies) {
    const std::string bodies = R"("bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}])";
    EXPECT_EQ(
        scene_error("{" + bodies +
                    R"(, "joints": [{"type": "ball", "bodies": ["world", "world"], "anchor": [0, 0, 0]}]})"),
        R"(scene.json: /joints/0/bodies: a joint needs at least one body besides "world")");
    EXPECT_EQ(scene_error("{" + bodies +
                          R"(, "joints": [{"type": "ball", "bodies": ["a", "a"], "anchor": [0, 0, 0]}]})"),
              R"(scene.json: /joints/0/bodies/1: a joint needs two different bodies, got "a" twice)");
    const std::string statics =
        R"("bodies": [{"name": "a", "static": true, "shape": {"type": "sphere", "radius": 1}},
                      {"name": "b", "static": true, "position": [3, 0, 0], "shape": {"type": "sphere", "radius": 1}}])";
    EXPECT_EQ(
        scene_error("{" + statics +
                    R"(, "joints": [{"type": "ball", "bodies": ["a", "b"], "anchor": [0, 0, 0]}]})"),
        R"(scene.json: /joints/0/bodies: a joint needs a dynamic body, but "a" and "b" are both static)");
    EXPECT_EQ(
        scene_error(
            "{" + statics +
            R"(, "springs": [{"bodies": ["world", "b"], "anchors": [[0, 0, 0], [3, 0, 0]], "stiffness": 1}]})"),
        R"(scene.json: /springs/0/bodies: a spring needs a dynamic body, but "world" and "b" are both static)");
    EXPECT_EQ(
        scene_error("{" + bodies +
                    R"(, "joints": [{"type": "hinge", "bodies": ["a", "world"], "anchor": [0, 0, 0]}]})"),
        R"(scene.json: /joints/0: missing required key "axis")");
    EXPECT_EQ(
        scene_error("{" + bodies +
                    R"(, "joints": [{"type": "hinj", "bodies": ["a", "world"], "anchor": [0, 0, 0]}]})"),
        R"(scene.json: /joints/0/type: expected "ball", "hinge", "fixed", "slider", "distance" or "planar", got "hinj")");
    EXPECT_EQ(
        scene_error("{" + bodies +
                    R"(, "joints": [{"type": "planar", "bodies": ["a", "world"], "anchor": [0, 0, 0]}]})"),
        R"(scene.json: /joints/0: missing required key "axis")");
    EXPECT_EQ(scene_error("{" + bodies +
                          R"(, "joints": [{"type": "planar", "bodies": ["a", "world"], "anchor": [0, 0, 0],
                                          "axis": [0, 0, 1], "limits": [-1, 1]}]})"),
              "scene.json: /joints/0/limits: does not apply to a planar joint; expected one of type, name, "
              "bodies, anchor, axis, collide");
    EXPECT_EQ(scene_error("{" + bodies +
                          R"(, "joints": [{"type": "planar", "bodies": ["a", "world"], "anchor": [0, 0, 0],
                                          "axis": [0, 0, 1]}]})"),
              "valid");
    EXPECT_EQ(scene_error("{" + bodies +
                          R"(, "joints": [{"type": "hinge", "bodies": ["a", "world"], "anchor": [0, 0, 0],
                                          "axis": [0, 0, 0]}]})"),
              R"(scene.json: /joints/0/axis: expected a non-zero vector, got [0,0,0])");
    EXPECT_EQ(
        scene_error("{" + bodies +
                    R"(, "joints": [{"type": "ball", "bodies": ["a", "world"], "anchor": [0, 0, 0],
                                          "axis": [1, 0, 0]}]})"),
        "scene.json: /joints/0/axis: does not apply to a ball joint; expected one of type, name, bodies, "
        "anchor, collide");
    EXPECT_EQ(
        scene_error("{" + bodies +
                    R"(, "joints": [{"type": "distance", "bodies": ["a", "world"],
                                          "anchors": [[0, 0, 0], [0, 0, 0]]}]})"),
        "scene.json: /joints/0/anchors: a distance joint without \"min\"/\"max\" needs its anchors apart "
        "(it keeps their distance)");
    EXPECT_EQ(scene_error("{" + bodies +
                          R"(, "joints": [{"type": "distance", "bodies": ["a", "world"],
                                          "anchors": [[0, 0, 0], [0, 0, 1]], "min": 2, "max": 1}]})"),
              R"(scene.json: /joints/0/min: expected at most "max" (1), got 2)");
    EXPECT_EQ(scene_error("{" + bodies +
                          R"(, "joints": [{"type": "hinge", "bodies": ["a", "world"], "anchor": [0, 0, 0],
                                          "axis": [0, 0, 1], "limits": [1, -1]}]})"),
              "scene.json: /joints/0/limits: expected lower <= upper, got [1, -1]");
    EXPECT_EQ(scene_error("{" + bodies +
                          R"(, "joints": [{"type": "hinge", "bodies": ["a", "world"], "anchor": [0, 0, 0],
                                          "axis": [0, 0, 1], "limits": [-4, 1]}]})"),
              "scene.json: /joints/0/limits: expected hinge angles in [-pi, pi] (rad), got [-4, 1]");
    EXPECT_EQ(scene_error("{" + bodies +
                          R"(, "joints": [{"type": "slider", "bodies": ["a", "world"], "anchor": [0, 0, 0],
                                          "axis": [0, 0, 1], "limits": [0]}]})"),
              "scene.json: /joints/0/limits: expected an array [lower, upper], got [0]");
    EXPECT_EQ(scene_error("{" + bodies +
                          R"(, "joints": [{"type": "hinge", "bodies": ["a", "world"], "anchor": [0, 0, 0],
                                          "axis": [0, 0, 1], "limits": [-1, 1], "restitution": 1.5}]})"),
              "scene.json: /joints/0/restitution: expected a number in [0, 1], got 1.5");
    EXPECT_EQ(
        scene_error("{" + bodies +
                    R"(, "joints": [{"type": "ball", "bodies": ["a", "world"], "anchor": [0, 0, 0],
                                          "restitution": 0.5}]})"),
        "scene.json: /joints/0/restitution: does not apply to a ball joint; expected one of type, name, "
        "bodies, anchor, collide");
    EXPECT_EQ(scene_error("{" + bodies +
                          R"(, "joints": [{"type": "fixed", "bodies": ["a", "world"], "anchor": [0, 0, 0],
                                          "limits": [0, 1]}]})"),
              "scene.json: /joints/0/limits: does not apply to a fixed joint; expected one of type, name, "
              "bodies, anchor, collide");
    EXPECT_EQ(scene_error("{" + bodies +
                          R"(, "joints": [{"type": "hinge", "bodies": ["a", "world"], "anchor": [0, 0, 0],
                                          "axis": [0, 0, 1], "motor": {"speed": 1, "max_force": 2}}]})"),
              R"(scene.json: /joints/0/motor/max_force: a hinge motor takes "max_torque")");
    EXPECT_EQ(scene_error("{" + bodies +
                          R"(, "joints": [{"type": "slider", "bodies": ["a", "world"], "anchor": [0, 0, 0],
                                          "axis": [0, 0, 1], "motor": {"speed": 1}}]})"),
              R"(scene.json: /joints/0/motor: missing required key "max_force")");
    EXPECT_EQ(scene_error("{" + bodies +
                          R"(, "joints": [{"type": "hinge", "bodies": ["a", "world"], "anchor": [0, 0, 0],
                                          "axis": [0, 0, 1], "motor": {"speed": 1, "max_torque": -1}}]})"),
              "scene.json: /joints/0/motor/max_torque: expected a non-negative number, got -1");
    EXPECT_EQ(scene_error("{" + bodies +
                          R"(, "joints": [{"type": "ball", "bodies": ["a", "world"], "anchor": [0, 0, 0],
                                          "motor": {"speed": 1, "max_torque": 1}}]})"),
              "scene.json: /joints/0/motor: does not apply to a ball joint; expected one of type, name, "
              "bodies, anchor, collide");
    EXPECT_EQ(scene_error("{" + bodies +
                          R"(, "joints": [{"type": "ball", "bodies": ["a"], "anchor": [0, 0, 0]}]})"),
              R"(scene.json: /joints/0/bodies: expected an array of 2 body names, got ["a"])");
    EXPECT_EQ(scene_error("{" + bodies + R"(, "joints": [
        {"type": "ball", "name": "j", "bodies": ["a", "world"], "anchor": [0, 0, 0]},
        {"type": "ball", "name": "j", "bodies": ["a", "world"], "anchor": [0, 0, 1]}]})"),
              R"(scene.json: /joints/1/name: duplicate joint name "j" (already used by /joints/0))");
}

TEST(SceneValidation, SpringValues) {
    const std::string bodies = R"("bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}])";
    EXPECT_EQ(
        scene_error(
            "{" + bodies +
            R"(, "springs": [{"bodies": ["a", "world"], "anchors": [[0, 0, 0], [0, 0, 1]], "stiffness": -1}]})"),
        "scene.json: /springs/0/stiffness: expected a non-negative number, got -1");
    EXPECT_EQ(
        scene_error("{" + bodies +
                    R"(, "springs": [{"bodies": ["a", "world"], "anchors": [[0, 0, 0]], "stiffness": 1}]})"),
        "scene.json: /springs/0/anchors: expected an array of 2 points [[x, y, z], [x, y, z]], got "
        "[[0,0,0]]");
    EXPECT_EQ(
        scene_error(
            "{" + bodies +
            R"(, "springs": [{"bodies": ["world", "world"], "anchors": [[0, 0, 0], [0, 0, 1]], "stiffness": 1}]})"),
        R"(scene.json: /springs/0/bodies: a spring needs at least one body besides "world")");
}

TEST(SceneValidation, SpringAnchorsTooFarApart) {
    // No rest_length given: it defaults to the anchors' distance, whose square overflows. The message was
    // "spring rest length must be >= 0".
    const Result<SceneDesc> scene = parse_scene(
        R"({"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
            "springs": [{"bodies": ["a", "world"], "anchors": [[0, 0, 0], [1e200, 0, 0]], "stiffness": 1}]})",
        "scene.json");
    ASSERT_TRUE(scene) << scene.error().message;
    const Result<SceneWorld> built = build_world(scene.value());
    ASSERT_FALSE(built);
    EXPECT_EQ(
        built.error().message,
        "scene.json: /springs/0: anchor_b: too far from anchor_a (the square of their distance overflows a "
        "double)");
}

// ---- body rules -------------------------------------------------------------------------------------------

TEST(SceneValidation, MassAndDensityTogether) {
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1})", R"("mass": 2, "density": 500, )")),
              R"(scene.json: /bodies/1/density: "mass" and "density" cannot both be given)");
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1})", R"("density": 500, "mass": 2, )")),
              R"(scene.json: /bodies/1/mass: "mass" and "density" cannot both be given)");
}

TEST(SceneValidation, ZeroQuaternion) {
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1})",
                                     R"("orientation": {"w": 0, "x": 0, "y": 0, "z": 0}, )")),
              "scene.json: /bodies/1/orientation: expected a unit quaternion, got the zero quaternion");
}

TEST(SceneValidation, QuaternionFarFromUnit) {
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1})",
                                     R"("orientation": {"w": 1, "x": 1, "y": 0, "z": 0}, )")),
              "scene.json: /bodies/1/orientation: expected a unit quaternion (|q| within 0.001 of 1), got "
              "|q| = 1.4142135623730951");
    // Six significant digits would show this one as "1.001", which looks within the tolerance.
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1})",
                                     R"("orientation": {"w": 1.0010004, "x": 0, "y": 0, "z": 0}, )")),
              "scene.json: /bodies/1/orientation: expected a unit quaternion (|q| within 0.001 of 1), got "
              "|q| = 1.0010004");
}

TEST(SceneValidation, QuaternionComponents) {
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1})",
                                     R"("orientation": {"w": 1, "x": 0, "y": 0}, )")),
              R"(scene.json: /bodies/1/orientation: missing required key "z")");
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1})",
                                     R"("orientation": {"w": 1, "x": null, "y": 0, "z": 0}, )")),
              "scene.json: /bodies/1/orientation/x: expected a number, got null");
}

TEST(SceneValidation, AxisAngleForm) {
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1})",
                                     R"("orientation": {"axis": [0, 0, 0], "angle_deg": 30}, )")),
              "scene.json: /bodies/1/orientation/axis: expected a non-zero vector, got [0,0,0]");
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1})",
                                     R"("orientation": {"axis": [0, 0, 1]}, )")),
              R"(scene.json: /bodies/1/orientation: missing required key "angle_deg")");
    // Mixing the two forms: the axis-angle keys choose the form, and "w" is then unknown.
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1})",
                                     R"("orientation": {"w": 1, "axis": [0, 0, 1], "angle_deg": 5}, )")),
              "scene.json: /bodies/1/orientation/w: unknown key; expected one of axis, angle_deg");
}

TEST(SceneValidation, StaticOnlyShapesOnDynamicBodies) {
    EXPECT_EQ(
        scene_error(with_shape(R"({"type": "plane", "normal": [0, 0, 1]})")),
        R"(scene.json: /bodies/1/shape: a plane is static-only (planes, meshes and height fields): the body needs "static": true)");
    EXPECT_EQ(
        scene_error(with_shape(
            R"({"type": "heightfield", "origin": [0, 0], "spacing": [1, 1], "heights": [[0, 0], [0, 0]]})")),
        R"(scene.json: /bodies/1/shape: a heightfield is static-only (planes, meshes and height fields): the body needs "static": true)");
    EXPECT_EQ(
        scene_error(with_shape(
            R"({"type": "mesh", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "triangles": [[0, 1, 2]]})")),
        R"(scene.json: /bodies/1/shape: a mesh is static-only (planes, meshes and height fields): the body needs "static": true)");
    EXPECT_EQ(scene_error(with_shape(R"({"type": "plane", "normal": [0, 0, 1]})", R"("static": true, )")),
              "valid");
}

TEST(SceneValidation, StaticBodyCannotMove) {
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1})",
                                     R"("static": true, "velocity": [1, 0, 0], )")),
              "scene.json: /bodies/1/velocity: a static body cannot move; expected [0, 0, 0] or no key");
}

TEST(SceneValidation, MeshIndexOutOfRange) {
    EXPECT_EQ(
        scene_error(with_shape(
            R"({"type": "mesh", "triangles": [[0, 1, 2], [1, 3, 2]], "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0]]})",
            R"("static": true, )")),
        "scene.json: /bodies/1/shape/triangles/1/1: vertex index 3 is out of range (the mesh has 3 "
        "vertices)");
    EXPECT_EQ(
        scene_error(with_shape(
            R"({"type": "mesh", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "triangles": [[0, -1, 2]]})",
            R"("static": true, )")),
        "scene.json: /bodies/1/shape/triangles/0/1: expected a vertex index (integer >= 0), got -1");
}

TEST(SceneValidation, HeightfieldRowsOfUnequalLength) {
    EXPECT_EQ(
        scene_error(with_shape(
            R"({"type": "heightfield", "origin": [0, 0], "spacing": [1, 1], "heights": [[0, 0, 0], [0, 0, 0], [0, 0]]})",
            R"("static": true, )")),
        "scene.json: /bodies/1/shape/heights/2: expected a row of 3 heights like row 0, got [0,0]");
    EXPECT_EQ(
        scene_error(
            with_shape(R"({"type": "heightfield", "origin": [0, 0], "spacing": [1, 1], "heights": [[0, 0]]})",
                       R"("static": true, )")),
        "scene.json: /bodies/1/shape/heights: expected an array of at least 2 rows of heights, got [[0,0]]");
}

TEST(SceneValidation, DegenerateConvexHull) {
    // Four points in the plane z = 0 span no volume; the message is the collision module's.
    const std::string error = scene_error(
        with_shape(R"({"type": "convex", "points": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]})"));
    EXPECT_TRUE(error.starts_with("scene.json: /bodies/1/shape/points: convex hull: points are coplanar"))
        << error;
    EXPECT_EQ(scene_error(with_shape(R"({"type": "convex", "points": [[0, 0, 0], [1, 0, 0], [0, 1, 0]]})")),
              "scene.json: /bodies/1/shape/points: convex hull needs at least 4 points, got 3");
}

TEST(SceneValidation, CompoundChildren) {
    EXPECT_EQ(scene_error(with_shape(R"({"type": "compound", "children": []})")),
              "scene.json: /bodies/1/shape/children: expected a non-empty array of {shape, position, "
              "orientation}, got []");
    EXPECT_EQ(
        scene_error(with_shape(
            R"({"type": "compound", "children": [{"shape": {"type": "plane", "normal": [0, 0, 1]}}]})")),
        "scene.json: /bodies/1/shape/children/0/shape/type: a compound child cannot be a plane (static-only "
        "shapes go "
        "on a static body of their own)");
}

TEST(SceneValidation, ArrayCount) {
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1})",
                                     R"("array": {"count": 0, "offset": [1, 0, 0]}, )")),
              "scene.json: /bodies/1/array/count: expected a positive integer (at most 1000000), got 0");
    EXPECT_EQ(scene_error(with_shape(R"({"type": "sphere", "radius": 1})",
                                     R"("array": {"count": 2.5, "offset": [1, 0, 0]}, )")),
              "scene.json: /bodies/1/array/count: expected a positive integer (at most 1000000), got 2.5");
}

// A count written as a float without a fraction (3.0, 1e3) is the whole number, for the names references may
// use as well as for the copies: "dom" with count 3.0 is dom_1 ... dom_3 and not "dom".
TEST(SceneValidation, ArrayCountWrittenAsAFloat) {
    const std::string row = R"({"name": "dom", "shape": {"type": "sphere", "radius": 0.1},
                                "array": {"count": 3.0, "offset": [1, 0, 0]}})";
    const Result<SceneDesc> s = parse_scene(
        R"({"bodies": [)" + row +
            R"(], "joints": [{"type": "ball", "bodies": ["dom_1", "dom_3"], "anchor": [1, 0, 0]}]})",
        "scene.json");
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s.value().bodies.size(), 3u);
    EXPECT_EQ(
        scene_error(R"({"bodies": [)" + row +
                    R"(], "springs": [{"bodies": ["dom", "world"], "anchors": [[0, 0, 0], [0, 0, 1]]}]})"),
        R"(scene.json: /springs/0/bodies/0: unknown body "dom" (expected a body name or "world"))");
    // The cap on the expanded total counts such entries too.
    const std::string million = R"({"name": "m", "shape": {"type": "sphere", "radius": 0.1},
                                    "array": {"count": 1e6, "offset": [1, 0, 0]}})";
    EXPECT_EQ(
        scene_error(R"({"bodies": [)" + million + ", " + row + "]}"),
        "scene.json: /bodies/1: with this entry the scene has 1000003 bodies (arrays expanded); at most "
        "1000000 are allowed");
}

TEST(SceneValidation, BodyCountAfterArrayExpansion) {
    // Each array may hold a million copies; thirty such lines asked for 30 million bodies (about 45 GB) and
    // ended in std::bad_alloc or the machine's memory. The total is capped, counted before any expansion.
    auto entry = [](const std::string& name, int count) {
        return R"({"name": ")" + name +
               R"(", "shape": {"type": "sphere", "radius": 0.1}, "array": {"count": )" +
               std::to_string(count) + R"(, "offset": [1, 0, 0]}})";
    };
    EXPECT_EQ(
        scene_error(R"({"bodies": [)" + entry("a", 999999) + ", " + entry("b", 1) + ", " +
                    R"({"name": "c", "shape": {"type": "sphere", "radius": 0.1}}]})"),
        "scene.json: /bodies/2: with this entry the scene has 1000001 bodies (arrays expanded); at most "
        "1000000 are allowed");
    EXPECT_EQ(
        scene_error(R"({"bodies": [)" + entry("a", 1000000) + ", " + entry("b", 1000000) + "]}"),
        "scene.json: /bodies/1: with this entry the scene has 2000000 bodies (arrays expanded); at most "
        "1000000 are allowed");
}

TEST(SceneValidation, FirstErrorInDocumentOrder) {
    // Both bodies are wrong; the one earlier in the file is reported, whatever the key order inside.
    EXPECT_EQ(scene_error(R"({"bodies": [
        {"shape": {"type": "sphere", "radius": 1}, "name": "a", "mass": -1},
        {"name": "b", "shape": {"type": "sphere", "radius": -1}}]})"),
              "scene.json: /bodies/0/mass: expected a positive number, got -1");
    // "joints" before "bodies": the joint's reference is checked against all body names, and the later
    // body error is not reported first.
    EXPECT_EQ(
        scene_error(
            R"({"joints": [{"type": "ball", "bodies": ["a", "world"], "anchor": [0, 0, 0], "collide": 1}],
                              "bodies": [{"name": "a", "shape": {"type": "sphere", "radius": -1}}]})"),
        "scene.json: /joints/0/collide: expected true or false, got 1");
}

TEST(SceneValidation, PointerTokensAreEscaped) {
    EXPECT_EQ(scene_error(R"({"materials": {"a/b~c": {"friction": -1}}})"),
              "scene.json: /materials/a~1b~0c/friction: expected a non-negative number, got -1");
}

// RFC 6901 has no escape for control characters; a key holding one is shown with JSON's, so that the error
// stays one line.
TEST(SceneValidation, ControlCharactersInKeysKeepTheMessageOnOneLine) {
    const std::string message = scene_error("{\"materials\": {\"a\\nb\\u0001\": {\"friction\": -1}}}");
    EXPECT_EQ(message,
              "scene.json: /materials/a\\u000ab\\u0001/friction: expected a non-negative number, got -1");
}

// ---- through the executable
// ---------------------------------------------------------------------------------

TEST(SceneValidationCli, SchemaErrorExitsWithTwoAndOneLine) {
    const auto dir = test_dir();
    write_file(dir / "bad.json", R"({"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": -1}}]})");
    for (const char* command : {"run", "validate"}) {
        const CliResult r = run_cli({command, "bad.json"}, dir);
        EXPECT_EQ(r.exit_code, 2) << command << " stderr: " << r.err;
        EXPECT_EQ(r.err, "bad.json: /bodies/0/shape/radius: expected a positive number, got -1\n") << command;
        EXPECT_EQ(r.out, "") << command;
    }
}

TEST(SceneValidationCli, MassPropertiesBeyondTheDoubleRangeExitWithTwo) {
    // Every value is positive and finite, but the sphere is too small for doubles: its inertia at 1 kg was
    // NaN, and `run` exited 0 with null energy and momentum.
    const auto dir = test_dir();
    write_file(dir / "tiny.json",
               R"({"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1e-110}, "mass": 1}]})");
    for (const char* command : {"run", "validate"}) {
        const CliResult r = run_cli({command, "tiny.json"}, dir);
        EXPECT_EQ(r.exit_code, 2) << command << " stderr: " << r.err;
        EXPECT_TRUE(
            r.err.starts_with("tiny.json: /bodies/0: shape: the mass properties are out of the double range"))
            << command << " stderr: " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
}

TEST(SceneValidationCli, InvalidJsonExitsWithTwo) {
    const auto dir = test_dir();
    write_file(dir / "broken.json", "{\"dt\": 0.1,\n\"bodies\": [}\n");
    const CliResult r = run_cli({"validate", "broken.json"}, dir);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(
        r.err,
        "broken.json: line 2, column 12: invalid JSON: syntax error while parsing value - unexpected '}'; "
        "expected '[', '{', or a literal\n");
}

TEST(SceneValidationCli, NulByteInTheFileExitsWithTwo) {
    const auto dir = test_dir();
    write_file(dir / "nul.json", std::string("{\"bodies\": []}\0{\"this is\": ignored}", 35));
    const CliResult r = run_cli({"validate", "nul.json"}, dir);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(
        r.err,
        "nul.json: line 1, column 15 (byte offset 14): invalid JSON: a NUL byte (JSON text cannot contain "
        "one)\n");
}

TEST(SceneValidationCli, UnreadableFileExitsWithTwo) {
    const auto dir = test_dir();
    const CliResult r = run_cli({"run", "missing.json"}, dir);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err, "missing.json: cannot read: No such file or directory\n");
    const CliResult d = run_cli({"validate", "."}, dir);
    EXPECT_EQ(d.exit_code, 2) << d.err;
    EXPECT_EQ(d.err, ".: cannot read: it is a directory\n");
}

// The step-count limit applies to the values the run uses: --duration and --dt override the scene's before
// its checks, so they can bring a scene over the limit under it (and one under it over:
// BadFlagValuesExitWithTwo).
TEST(SceneValidationCli, DurationAndDtFlagsAreCheckedWithTheScene) {
    const auto dir = test_dir();
    write_file(dir / "long.json", R"({"dt": 0.01, "duration": 1e8, "gravity": [0, 0, 0],
        "bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}, "velocity": [1, 0, 0]}]})");
    const CliResult plain = run_cli({"validate", "long.json"}, dir);
    EXPECT_EQ(plain.exit_code, 2) << plain.err;
    EXPECT_EQ(plain.err, "long.json: /dt: duration / dt is more than 1000000000 steps\n");
    const CliResult r = run_cli({"run", "long.json", "--duration", "0.1", "--out", "r.json"}, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json out = nlohmann::json::parse(read_file(dir / "r.json"));
    EXPECT_EQ(out["steps"], 10);
    // No gravity: the sphere moves at 1 m/s for the 0.1 s the flag asked for.
    EXPECT_NEAR(out["bodies"][0]["position"][0].get<double>(), 0.1, 1e-12) << out["bodies"][0];
    // A flag's value reaches the scene unrounded.
    const CliResult dt =
        run_cli({"run", "long.json", "--duration", "0.3", "--dt", "0.1", "--out", "d.json"}, dir);
    ASSERT_EQ(dt.exit_code, 0) << dt.err;
    EXPECT_EQ(nlohmann::json::parse(read_file(dir / "d.json"))["steps"], 3);
}

TEST(SceneValidationCli, BadFlagValuesExitWithTwo) {
    const auto dir = test_dir();
    write_file(dir / "ok.json", R"({"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}]})");
    const CliResult dt = run_cli({"run", "ok.json", "--dt", "-1"}, dir);
    EXPECT_EQ(dt.exit_code, 2);
    EXPECT_EQ(dt.err, "--dt: expected a positive number, got \"-1\"\n");
    const CliResult duration = run_cli({"run", "ok.json", "--duration", "1s"}, dir);
    EXPECT_EQ(duration.exit_code, 2);
    EXPECT_EQ(duration.err, "--duration: expected a positive number, got \"1s\"\n");
    const CliResult steps = run_cli({"run", "ok.json", "--dt", "1e-15"}, dir);
    EXPECT_EQ(steps.exit_code, 2);
    EXPECT_EQ(steps.err, "ok.json: /dt: duration / dt is more than 1000000000 steps\n");
    const CliResult unknown = run_cli({"run", "ok.json", "--speed", "2"}, dir);
    EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
    EXPECT_NE(unknown.err.find("--speed"), std::string::npos) << unknown.err;
    const CliResult none = run_cli({}, dir);
    EXPECT_EQ(none.exit_code, 2) << none.err;
    const CliResult out = run_cli({"run", "ok.json", "--out", "no/such/dir/r.json"}, dir);
    EXPECT_EQ(out.exit_code, 2);
    EXPECT_EQ(out.err, "no/such/dir/r.json: cannot open for writing: No such file or directory\n");
}

TEST(SceneValidationCli, EmptyFlagValuesExitWithTwo) {
    // An empty value was taken as "not given" and the run went on with the scene's dt or duration.
    const auto dir = test_dir();
    write_file(dir / "ok.json", R"({"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}]})");
    for (const char* flag : {"--dt", "--duration"}) {
        const CliResult r = run_cli({"run", "ok.json", flag, ""}, dir);
        EXPECT_EQ(r.exit_code, 2) << flag << " stderr: " << r.err;
        EXPECT_EQ(r.err, std::string(flag) + ": expected a positive number, got \"\"\n");
    }
}

TEST(SceneValidationCli, OutputsThatNameTheSameFileExitWithTwo) {
    // Both streams went into one file (a corrupt result, exit 0), and --out over the scene destroyed it.
    const auto dir = test_dir();
    const std::string scene = R"({"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}]})";
    write_file(dir / "ok.json", scene);
    const struct {
        std::vector<std::string> args;
        std::string message;
    } cases[] = {
        {{"run", "ok.json", "--out", "r.json", "--trajectory", "r.json"},
         "--out and --trajectory name the same file (r.json): give each its own\n"},
        {{"run", "ok.json", "--out", "r.json", "--trajectory", "../" + dir.filename().string() + "/r.json"},
         "--out and --trajectory name the same file (../" + dir.filename().string() +
             "/r.json): give each its own\n"},
        {{"run", "ok.json", "--out", "./ok.json"},
         "SCENE and --out name the same file (./ok.json): give each its own\n"},
        {{"domino", "ok.json", "--sweep", "--markdown", "t.md", "--svg", "t.md"},
         "--markdown and --svg name the same file (t.md): give each its own\n"},
    };
    for (const auto& c : cases) {
        const CliResult r = run_cli(c.args, dir);
        EXPECT_EQ(r.exit_code, 2) << c.args.back() << " stderr: " << r.err;
        EXPECT_EQ(r.err, c.message);
    }
    EXPECT_EQ(read_file(dir / "ok.json"), scene);
    EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
    const CliResult apart = run_cli({"run", "ok.json", "--out", "r.json", "--trajectory", "t.jsonl"}, dir);
    EXPECT_EQ(apart.exit_code, 0) << apart.err;
}

TEST(SceneValidationCli, ValidatePrintsASummary) {
    const auto dir = test_dir();
    write_file(dir / "two.json", R"({"name": "pair", "dt": 0.01, "duration": 2,
        "bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}, "array": {"count": 2, "offset": [3, 0, 0]}}],
        "springs": [{"bodies": ["a_1", "a_2"], "anchors": [[0, 0, 0], [3, 0, 0]], "stiffness": 10}]})");
    const CliResult r = run_cli({"validate", "two.json"}, dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out,
              "two.json: valid: scene \"pair\", 2 bodies, 0 joints, 1 spring, dt 0.01 s, duration 2 s (200 "
              "steps)\n");
    EXPECT_EQ(r.err, "");
    const CliResult quiet = run_cli({"validate", "two.json", "--quiet"}, dir);
    EXPECT_EQ(quiet.exit_code, 0);
    EXPECT_EQ(quiet.out, "");
}

}  // namespace
}  // namespace simpulse::test
