// "--set /json/pointer=VALUE" overrides (RFC 6901): numbers, strings, JSON values, nested pointers, array
// elements, appending, escaping, order of application, and the errors for pointers that do not resolve;
// through the reader and through the executable.
#include "engine_test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace simpulse::test {
namespace {

const std::string kScene = R"({"name": "base", "dt": 0.01,
    "materials": {"default": {"friction": 0.5}, "a/b": {"friction": 0.1}},
    "bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.5}, "position": [0, 0, 1]},
               {"name": "box", "shape": {"type": "box", "size": [1, 1, 1]}, "position": [2, 0, 1]}]})";

SceneDesc parsed(const std::vector<std::string>& overrides) {
    const Result<SceneDesc> scene = parse_scene(kScene, "scene.json", overrides);
    EXPECT_TRUE(scene.ok()) << scene.error().message;
    return scene ? scene.value() : SceneDesc{};
}

TEST(SceneSet, Number) {
    const SceneDesc s = parsed({"/dt=0.001"});
    EXPECT_EQ(s.dt, 0.001);
    EXPECT_EQ(parsed({"/duration=3"}).duration, 3.0);
}

TEST(SceneSet, StringWhenNotJson) {
    EXPECT_EQ(parsed({"/name=hello world"}).name, "hello world");
    // Valid JSON string syntax is taken as JSON, so both spellings give the same name.
    EXPECT_EQ(parsed({R"(/name="quoted")"}).name, "quoted");
}

TEST(SceneSet, JsonValues) {
    const SceneDesc s =
        parsed({"/gravity=[0, 0, -1.62]", R"(/bodies/0/shape={"type": "box", "size": [2, 2, 2]})"});
    EXPECT_EQ(s.settings.gravity, Vec3(0, 0, -1.62));
    ASSERT_EQ(s.bodies[0].desc.shape->type(), ShapeType::box);
    EXPECT_EQ(std::get<Box>(s.bodies[0].desc.shape->geometry).half_extents, Vec3(1, 1, 1));
    EXPECT_TRUE(parsed({"/bodies/1/static=true"}).bodies[1].desc.is_static);
}

TEST(SceneSet, NestedPointerAddsAMember) {
    const SceneDesc s = parsed({"/materials/default/restitution=1.0", "/solver={}", "/solver/mode=thesis"});
    EXPECT_EQ(s.materials[0].material.restitution, 1.0);
    EXPECT_EQ(s.materials[0].material.friction, 0.5);
    EXPECT_EQ(s.settings.solver.mode, SolverMode::thesis);
}

TEST(SceneSet, ArrayElements) {
    const SceneDesc s = parsed({"/bodies/1/position/2=5", "/bodies/0/position/0=-3"});
    EXPECT_EQ(s.bodies[1].desc.pose.position, Vec3(2, 0, 5));
    EXPECT_EQ(s.bodies[0].desc.pose.position, Vec3(-3, 0, 1));
}

TEST(SceneSet, AppendToAnArray) {
    const SceneDesc s = parsed({R"(/bodies/-={"name": "third", "shape": {"type": "sphere", "radius": 1}})",
                                R"(/bodies/3={"name": "fourth", "shape": {"type": "sphere", "radius": 1}})"});
    ASSERT_EQ(s.bodies.size(), 4u);
    EXPECT_EQ(s.bodies[2].name, "third");
    EXPECT_EQ(s.bodies[3].name, "fourth");
}

TEST(SceneSet, EscapedTokens) {
    EXPECT_EQ(parsed({"/materials/a~1b/friction=0.7"}).materials[1].material.friction, 0.7);
}

TEST(SceneSet, LaterOverridesWin) {
    EXPECT_EQ(parsed({"/dt=0.5", "/dt=0.25"}).dt, 0.25);
}

TEST(SceneSet, ReplaceTheWholeDocument) {
    EXPECT_EQ(parsed({R"(={"name": "other"})"}).name, "other");
}

TEST(SceneSet, OverriddenValuesAreValidated) {
    EXPECT_EQ(scene_error(kScene, {"/dt=-1"}), "scene.json: /dt: expected a positive number, got -1");
    EXPECT_EQ(scene_error(kScene, {"/dt=fast"}),
              R"(scene.json: /dt: expected a positive number, got "fast")");
    EXPECT_EQ(scene_error(kScene, {"/bodies/0/shape/colour=red"}),
              "scene.json: /bodies/0/shape/colour: unknown key; expected one of type, radius");
}

// The contract's own example, --set /materials/default/restitution=1.0, on a scene without "materials":
// objects on the way are created, so every value the format defines can be set.
TEST(SceneSet, MissingObjectsOnTheWayAreCreated) {
    const std::string bare = R"({"bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.5}}]})";
    const Result<SceneDesc> s =
        parse_scene(bare, "scene.json",
                    std::vector<std::string>{"/materials/default/restitution=1.0", "/solver/mode=thesis"});
    ASSERT_TRUE(s.ok()) << s.error().message;
    ASSERT_EQ(s.value().materials.size(), 1u);
    EXPECT_EQ(s.value().materials[0].name, "default");
    EXPECT_EQ(s.value().materials[0].material.restitution, 1.0);
    EXPECT_EQ(s.value().settings.solver.mode, SolverMode::thesis);
    // A member that is there but null is entered as an empty object as well.
    const Result<SceneDesc> n =
        parse_scene(R"({"solver": null})", "scene.json", std::vector<std::string>{"/solver/mode=thesis"});
    ASSERT_TRUE(n.ok()) << n.error().message;
    EXPECT_EQ(n.value().settings.solver.mode, SolverMode::thesis);
    // A misspelt key is created like any other and then rejected by the scene's own checks.
    const std::string misspelt = scene_error(bare, {"/solvr/mode=thesis"});
    EXPECT_EQ(misspelt.rfind("scene.json: /solvr: unknown key; expected one of ", 0), 0u) << misspelt;
}

TEST(SceneSet, ArrayElementsAndContainersOnTheWayMustExist) {
    EXPECT_EQ(scene_error(kScene, {"/bodies/9/mass=2"}),
              "scene.json: /bodies/9/mass: cannot --set: /bodies/9 does not exist");
    EXPECT_EQ(scene_error(kScene, {"/dt/x/y=1"}),
              "scene.json: /dt/x/y: cannot --set: /dt is 0.01, not an object or array");
    EXPECT_EQ(scene_error(kScene, {"/bodies/x/mass=2"}),
              "scene.json: /bodies/x/mass: cannot --set: /bodies/x does not exist");
    EXPECT_EQ(scene_error(kScene, {"/bodies/01/mass=2"}),
              "scene.json: /bodies/01/mass: cannot --set: /bodies/01 does not exist");
}

TEST(SceneSet, BadLastToken) {
    EXPECT_EQ(
        scene_error(kScene, {"/bodies/5=1"}),
        R"(scene.json: /bodies/5: cannot --set: "5" is not an index of /bodies (2 elements; "-" appends))");
    EXPECT_EQ(scene_error(kScene, {"/dt/x=1"}),
              "scene.json: /dt/x: cannot --set: /dt is 0.01, not an object or array");
}

TEST(SceneSet, MalformedArguments) {
    EXPECT_EQ(scene_error(kScene, {"dt=1"}),
              R"(scene.json: dt: cannot --set: a JSON pointer is empty or starts with "/")");
    EXPECT_EQ(scene_error(kScene, {"/dt"}), "scene.json: /dt: cannot --set: expected /json/pointer=VALUE");
    EXPECT_EQ(
        scene_error(kScene, {"/materials/a~2b/friction=1"}),
        R"(scene.json: /materials/a~2b/friction: cannot --set: "~" must be followed by 0 or 1 (RFC 6901))");
    EXPECT_EQ(scene_error(kScene, {R"(/solver={"mode": "exact", "mode": "thesis"})"}),
              "scene.json: /solver: cannot --set: in the value, /mode: duplicate key in one object");
}

// Each override's value is parsed with the 100-level nesting limit of scene files, and so is the document the
// overrides build: chained overrides that each put a deep value inside the previous one's innermost array
// would otherwise nest a scene without bound (nested compounds reach the recursive shape reader, which
// overflowed the stack at ~60,000 levels).
TEST(SceneSet, OverridesCannotNestTheDocumentDeeperThanScenesMayBe) {
    auto nested = [](int levels) { return std::string(levels, '[') + std::string(levels, ']'); };
    // A document within the limit reaches the scene reader, which wants a string there.
    auto reaches_the_reader = [](const std::string& error) {
        return error.starts_with("scene.json: /description: expected a string");
    };
    // "/description" is inside the document: 1 + 99 levels of arrays make 100, the limit.
    EXPECT_PRED1(reaches_the_reader, scene_error(kScene, {"/description=" + nested(99)}));
    std::vector<std::string> chain{"/description=" + nested(60)};
    std::string pointer = "/description";
    for (int i = 0; i < 59; ++i) pointer += "/0";   // the innermost array, 60 levels down
    chain.push_back(pointer + "/0=" + nested(40));  // would end 101 levels deep
    EXPECT_EQ(
        scene_error(kScene, chain),
        "scene.json: " + pointer +
            "/0: cannot --set: the value at this pointer would nest the document deeper than 100 levels");
    chain.back() = pointer + "/0=" + nested(39);  // 100 levels: accepted
    EXPECT_PRED1(reaches_the_reader, scene_error(kScene, chain));
}

TEST(SceneSetCli, OverridesChangeTheRun) {
    const auto dir = test_dir();
    write_file(dir / "s.json", R"({"name": "set", "gravity": [0, 0, 0], "dt": 0.1, "duration": 1,
        "bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.5}}]})");
    const CliResult r = run_cli({"run", "s.json", "--out", "r.json", "--set", "/dt=0.25", "--set",
                                 "/bodies/0/velocity=[1, 0, 0]", "--set", "/name=renamed"},
                                dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto result = nlohmann::json::parse(read_file(dir / "r.json"));
    EXPECT_EQ(result["scene"], "renamed");
    EXPECT_EQ(result["steps"], 4);
    EXPECT_EQ(result["time"], 1.0);
    EXPECT_EQ(result["bodies"][0]["position"], nlohmann::json::parse("[1.0, 0.0, 0.0]"))
        << result["bodies"][0];
}

TEST(SceneSetCli, BadPointerExitsWithTwo) {
    const auto dir = test_dir();
    write_file(dir / "s.json",
               R"({"bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.5}}]})");
    const CliResult r = run_cli({"run", "s.json", "--set", "/bodies/3/mass=2"}, dir);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "s.json: /bodies/3/mass: cannot --set: /bodies/3 does not exist\n");
    const CliResult v = run_cli({"validate", "s.json", "--set", "/bodies/0/shape/radius=0"}, dir);
    EXPECT_EQ(v.exit_code, 2);
    EXPECT_EQ(v.err, "s.json: /bodies/0/shape/radius: expected a positive number, got 0\n");
}

}  // namespace
}  // namespace simpulse::test
