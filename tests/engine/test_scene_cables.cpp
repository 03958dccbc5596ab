// The scene key "cables" (docs/scene-format.md): what the reader takes from it, one test per validation rule
// with the exact error line, the CLI's exit code 2 on bad input, the cables in the result and trajectory
// documents, the state hash covering the cables (same across processes and thread counts), and --set on
// cable values.
#include "engine_test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

namespace simpulse::test {
namespace {

using nlohmann::json;

// A box on the ground and a rope above it, pinned at its first point to the world and at its last to a ball.
std::string cable_scene(const std::string& cable_keys = "") {
    return R"({"dt": 0.005, "duration": 0.5,
        "materials": {"rope": {"friction": 0.3, "density": 1200}},
        "bodies": [{"name": "ground", "static": true, "shape": {"type": "plane", "normal": [0, 0, 1]}},
                   {"name": "box", "static": true, "shape": {"type": "box", "size": [0.4, 0.4, 0.4]},
                    "position": [0, 0, 0.2]},
                   {"name": "ball", "shape": {"type": "sphere", "radius": 0.05}, "mass": 0.2,
                    "position": [0.6, 0, 0.6]}],
        "cables": [{"name": "rope", "points": [[-0.6, 0, 0.6], [-0.4, 0, 0.6], [-0.2, 0, 0.6], [0, 0, 0.6],
                                               [0.2, 0, 0.6], [0.4, 0, 0.6], [0.6, 0, 0.6]],
                    "radius": 0.02, "material": "rope",
                    "pinned": [0, {"index": 6, "body": "ball"}])" +
           cable_keys + "}]}";
}

// The error line of the cable scene with the cable entry's keys replaced: `cable` is the whole entry.
std::string cable_error(const std::string& cable) {
    return scene_error(R"({"bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.1}}],
        "cables": [)" + cable +
                       "]}");
}

constexpr const char* kPoints = R"("points": [[0, 0, 1], [0.1, 0, 1], [0.2, 0, 1], [0.3, 0, 1]])";

TEST(SceneCables, ReaderTakesEveryKey) {
    const Result<SceneDesc> scene =
        parse_scene(cable_scene(R"(, "stretch_stiffness": 5000, "bend_stiffness": 0.01, "collision_group": 2,
                     "collision_mask": 5)"),
                    "scene.json");
    ASSERT_TRUE(scene) << scene.error().message;
    ASSERT_EQ(scene->cables.size(), 1u);
    const SceneCable& c = scene->cables[0];
    EXPECT_EQ(c.name, "rope");
    EXPECT_EQ(c.pointer, "/cables/0");
    ASSERT_EQ(c.desc.points.size(), 7u);
    EXPECT_EQ(c.desc.points[3], Vec3(0, 0, 0.6));
    EXPECT_EQ(c.desc.radius, 0.02);
    EXPECT_FALSE(c.desc.mass.has_value());
    EXPECT_EQ(c.desc.density, 1200) << "the material's density";
    EXPECT_EQ(c.desc.material, 1u);
    ASSERT_EQ(c.desc.pins.size(), 2u);
    EXPECT_EQ(c.desc.pins[0].index, 0u);
    EXPECT_EQ(c.desc.pins[1].index, 6u);
    ASSERT_EQ(c.pin_bodies.size(), 2u);
    EXPECT_EQ(c.pin_bodies[0], kSceneWorld);
    EXPECT_EQ(c.pin_bodies[1], 2u);
    EXPECT_EQ(c.desc.stretch_stiffness, 5000);
    EXPECT_EQ(c.desc.bend_stiffness, 0.01);
    EXPECT_EQ(c.desc.collision_group, 2u);
    EXPECT_EQ(c.desc.collision_mask, 5u);
}

TEST(SceneCables, DefaultsAreAnInextensibleRopeOfTheDefaultMaterial) {
    const Result<SceneDesc> scene =
        parse_scene(R"({"materials": {"default": {"density": 800}}, "cables": [{"name": "c", )" +
                        std::string(kPoints) + "}]}",
                    "scene.json");
    ASSERT_TRUE(scene) << scene.error().message;
    const CableDesc& d = scene->cables[0].desc;
    EXPECT_TRUE(std::isinf(d.stretch_stiffness));
    EXPECT_EQ(d.bend_stiffness, 0);
    EXPECT_EQ(d.radius, CableDesc{}.radius);
    EXPECT_EQ(d.density, 800);
    EXPECT_EQ(d.material, 0u);
    EXPECT_TRUE(d.pins.empty());
    EXPECT_EQ(d.collision_group, 1u);
    EXPECT_EQ(d.collision_mask, 0xffffffffu);
}

TEST(SceneCables, EachBadInputNamesItsPointer) {
    const std::string p = kPoints;
    EXPECT_EQ(
        cable_error(R"({"name": "c", "points": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]})"),
        "scene.json: /cables/0/points: expected at least 4 control points (one B-spline segment), got 3");
    EXPECT_EQ(cable_error(R"({"name": "c", "points": [[0, 0, 0], [1, 0, 0], [2, 0], [3, 0, 0]]})"),
              "scene.json: /cables/0/points/2: expected an array of 3 numbers, got [2,0]");
    EXPECT_EQ(cable_error(R"({"name": "c", "points": [[0, 0, 0], [1, 0, 0], [1, 0, 0], [3, 0, 0]]})"),
              "scene.json: /cables/0/points/2: coincides with point 1 (neighbouring control points must be "
              "apart)");
    EXPECT_EQ(cable_error(R"({"name": "c", "points": 4})"),
              "scene.json: /cables/0/points: expected an array of control points [[x, y, z], ...], got 4");
    EXPECT_EQ(cable_error(R"({"name": "c", "radius": 0.1})"),
              "scene.json: /cables/0: missing required key \"points\"");
    EXPECT_EQ(cable_error("{" + p + "}"), "scene.json: /cables/0: missing required key \"name\"");
    EXPECT_EQ(cable_error(R"({"name": "c", "radius": 0, )" + p + "}"),
              "scene.json: /cables/0/radius: expected a positive number, got 0");
    EXPECT_EQ(cable_error(R"({"name": "c", "radius": -0.1, )" + p + "}"),
              "scene.json: /cables/0/radius: expected a positive number, got -0.1");
    EXPECT_EQ(cable_error(R"({"name": "c", "mass": 0, )" + p + "}"),
              "scene.json: /cables/0/mass: expected a positive number, got 0");
    EXPECT_EQ(cable_error(R"({"name": "c", "density": -1, )" + p + "}"),
              "scene.json: /cables/0/density: expected a positive number, got -1");
    EXPECT_EQ(cable_error(R"({"name": "c", "mass": 1, "density": 2, )" + p + "}"),
              "scene.json: /cables/0/density: \"mass\" and \"density\" cannot both be given");
    EXPECT_EQ(cable_error(R"({"name": "c", "material": "steel", )" + p + "}"),
              "scene.json: /cables/0/material: unknown material \"steel\" (materials: default)");
    EXPECT_EQ(cable_error(R"({"name": "c", "stretch_stiffness": 0, )" + p + "}"),
              "scene.json: /cables/0/stretch_stiffness: expected a positive number, got 0");
    EXPECT_EQ(cable_error(R"({"name": "c", "bend_stiffness": -1, )" + p + "}"),
              "scene.json: /cables/0/bend_stiffness: expected a non-negative number, got -1");
    EXPECT_EQ(
        cable_error(R"({"name": "c", "collision_mask": -1, )" + p + "}"),
        "scene.json: /cables/0/collision_mask: expected an integer in [0, 4294967295] (32 bits), got -1");
    EXPECT_EQ(
        cable_error(R"({"name": "c", "colour": "red", )" + p + "}"),
        "scene.json: /cables/0/colour: unknown key; expected one of name, points, radius, mass, density, "
        "material, pinned, stretch_stiffness, bend_stiffness, collision_group, collision_mask");
    EXPECT_EQ(cable_error(R"({"name": "c", )" + p + R"(}, {"name": "c", )" + p + "}"),
              "scene.json: /cables/1/name: duplicate cable name \"c\" (already used by /cables/0)");
    EXPECT_EQ(scene_error(R"({"cables": {"name": "c"}})"),
              "scene.json: /cables: expected an array of cables, got {\"name\":\"c\"}");
}

TEST(SceneCables, BadPinsNameTheirPointer) {
    const std::string p = kPoints;
    EXPECT_EQ(
        cable_error(R"({"name": "c", "pinned": [0, 4], )" + p + "}"),
        "scene.json: /cables/0/pinned/1: expected a control point index below 4 (the cable has 4 points), "
        "got 4");
    // The index is checked against the points whichever key comes first.
    EXPECT_EQ(cable_error(R"({"name": "c", )" + p + R"(, "pinned": [0, {"index": 7, "body": "ball"}]})"),
              "scene.json: /cables/0/pinned/1/index: expected a control point index below 4 (the cable has 4 "
              "points), got 7");
    EXPECT_EQ(
        cable_error(R"({"name": "c", "pinned": [-1], )" + p + "}"),
        "scene.json: /cables/0/pinned/0: expected a control point index (a non-negative integer), got -1");
    EXPECT_EQ(
        cable_error(R"({"name": "c", "pinned": [1.5], )" + p + "}"),
        "scene.json: /cables/0/pinned/0: expected a control point index (a non-negative integer), got 1.5");
    EXPECT_EQ(
        cable_error(R"({"name": "c", "pinned": ["ball"], )" + p + "}"),
        "scene.json: /cables/0/pinned/0: expected a control point index or {\"index\": i, \"body\": NAME}, "
        "got \"ball\"");
    EXPECT_EQ(
        cable_error(R"({"name": "c", "pinned": [{"index": 0, "body": "crane"}], )" + p + "}"),
        "scene.json: /cables/0/pinned/0/body: unknown body \"crane\" (expected a body name or \"world\")");
    EXPECT_EQ(cable_error(R"({"name": "c", "pinned": [{"index": 0}], )" + p + "}"),
              "scene.json: /cables/0/pinned/0: missing required key \"body\"");
    EXPECT_EQ(cable_error(R"({"name": "c", "pinned": [{"index": 0, "body": "ball", "at": 1}], )" + p + "}"),
              "scene.json: /cables/0/pinned/0/at: unknown key; expected one of index, body");
    EXPECT_EQ(cable_error(R"({"name": "c", "pinned": [2, {"index": 2, "body": "world"}], )" + p + "}"),
              "scene.json: /cables/0/pinned/1: control point 2 is already pinned to \"world\" by "
              "/cables/0/pinned/0");
    // Of two repeats the first is named, with the earliest pin it repeats.
    EXPECT_EQ(cable_error(R"({"name": "c", "pinned": [1, 2, 3, 2, 1], )" + p + "}"),
              "scene.json: /cables/0/pinned/3: control point 2 is already pinned to \"world\" by "
              "/cables/0/pinned/1");
    // The same point on the world and on a body is two pins, not a duplicate.
    EXPECT_EQ(cable_error(R"({"name": "c", "pinned": [2, {"index": 2, "body": "ball"}], )" + p + "}"),
              "valid");
    EXPECT_EQ(cable_error(R"({"name": "c", "pinned": "all", )" + p + "}"),
              "scene.json: /cables/0/pinned: expected an array of pinned control points, got \"all\"");
}

TEST(SceneCables, TheCommandLineExitsWithTwoNamingTheField) {
    const auto dir = test_dir();
    const std::pair<std::string, std::string> cases[] = {
        {R"({"cables": [{"name": "c", "points": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}]})",
         "s.json: /cables/0/points: expected at least 4 control points"},
        {R"({"cables": [{"name": "c", "radius": 0, "points": [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]}]})",
         "s.json: /cables/0/radius: expected a positive number, got 0"},
        {R"({"cables": [{"name": "c", "pinned": [9], "points": [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]}]})",
         "s.json: /cables/0/pinned/0: expected a control point index below 4"},
        {R"({"cables": [{"name": "c", "pinned": [{"index": 0, "body": "nobody"}],
             "points": [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]]}]})",
         "s.json: /cables/0/pinned/0/body: unknown body \"nobody\""}};
    for (const auto& [scene, message] : cases) {
        write_file(dir / "s.json", scene);
        for (const char* command : {"validate", "run"}) {
            const CliResult r = run_cli({command, "s.json"}, dir);
            EXPECT_EQ(r.exit_code, 2) << command << " " << scene << "\n" << r.err;
            EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
        }
    }
}

// A cable whose state overflows (gravity near the double range): exit 1 naming the cable and its point, in
// the error line and in the result's error object.
TEST(SceneCables, ANonFiniteCableStopsTheRunNamingTheCableAndPoint) {
    const auto dir = test_dir();
    write_file(
        dir / "s.json",
        std::string(R"({"gravity": [0, 0, -1e308], "dt": 1, "duration": 5, "cables": [{"name": "c", )") +
            kPoints + "}]}");
    const CliResult r = run_cli({"run", "s.json", "--out", "r.json"}, dir);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    const std::string prefix = "s.json: cable \"c\" point ";
    ASSERT_EQ(r.err.substr(0, prefix.size()), prefix) << r.err;
    const json out = json::parse(read_file(dir / "r.json"));
    ASSERT_TRUE(out.contains("error")) << out;
    EXPECT_EQ(out["error"]["cable"], "c");
    EXPECT_TRUE(out["error"]["body"].is_null());
    const int point = out["error"]["point"].get<int>();
    EXPECT_GE(point, 0);
    EXPECT_LT(point, 4);
    EXPECT_EQ(r.err.substr(prefix.size(), 2), std::to_string(point) + " ") << r.err;
}

TEST(SceneCables, ValidateCountsTheCables) {
    const auto dir = test_dir();
    write_file(dir / "s.json", cable_scene());
    const CliResult r = run_cli({"validate", "s.json"}, dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("3 bodies, 0 joints, 0 springs, 1 cable, dt"), std::string::npos) << r.out;
}

Vec3 vec(const json& j) {
    return {j.at(0).get<double>(), j.at(1).get<double>(), j.at(2).get<double>()};
}

TEST(SceneCables, ResultAndTrajectoryListTheControlPoints) {
    const auto dir = test_dir();
    write_file(dir / "s.json", cable_scene());
    const CliResult r =
        run_cli({"run", "s.json", "--out", "r.json", "--trajectory", "t.jsonl", "--quiet"}, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json result = json::parse(read_file(dir / "r.json"));
    ASSERT_TRUE(result.contains("cables"));
    ASSERT_EQ(result["cables"].size(), 1u);
    const json& rope = result["cables"][0];
    EXPECT_EQ(rope["name"], "rope");
    ASSERT_EQ(rope["points"].size(), 7u);
    // The world pin holds point 0; the rope has fallen onto the box (top at 0.4) and stays above it.
    EXPECT_NEAR((vec(rope["points"][0]) - Vec3(-0.6, 0, 0.6)).norm(), 0, 1e-4);
    const Vec3 middle = vec(rope["points"][3]);
    EXPECT_LT(middle.z(), 0.5) << "fallen";
    EXPECT_GT(middle.z(), 0.4) << "on the box, not through it";
    for (const json& point : rope["points"]) EXPECT_TRUE(vec(point).allFinite());
    // The trajectory: every line has the cable, the first at the scene's points.
    const std::vector<std::string> lines = read_lines(dir / "t.jsonl");
    ASSERT_EQ(lines.size(), 101u);
    const json first = json::parse(lines.front());
    ASSERT_EQ(first["cables"].size(), 1u);
    EXPECT_EQ(first["cables"][0]["name"], "rope");
    EXPECT_EQ(vec(first["cables"][0]["points"][4]), Vec3(0.2, 0, 0.6));
    const json last = json::parse(lines.back());
    EXPECT_EQ(last["cables"], result["cables"]) << "the last sample is the final state";
    // The ball hangs on the rope's last point: they moved together.
    const Vec3 ball = vec(result["bodies"][2]["position"]);
    EXPECT_NEAR((ball - vec(rope["points"][6])).norm(), 0.0, 1e-3);
}

TEST(SceneCables, ScenesWithoutCablesWriteNoCablesKey) {
    const auto dir = test_dir();
    write_file(dir / "s.json", kSeparateStacks);
    ASSERT_EQ(run_cli({"run", "s.json", "--out", "r.json", "--trajectory", "t.jsonl", "--quiet", "--duration",
                       "0.05"},
                      dir)
                  .exit_code,
              0);
    EXPECT_FALSE(json::parse(read_file(dir / "r.json")).contains("cables"));
    for (const std::string& line : read_lines(dir / "t.jsonl"))
        EXPECT_FALSE(json::parse(line).contains("cables"));
}

std::string hashes(const std::filesystem::path& dir, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"run", "s.json", "--hash-every", "10", "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult r = run_cli(args, dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
}

TEST(SceneCables, HashesCoverTheCablesAndMatchAcrossProcessesAndThreads) {
    const auto dir = test_dir();
    // Two ropes far apart: two islands, so two threads share the work.
    write_file(dir / "s.json", R"({"dt": 0.005, "duration": 0.5,
        "bodies": [{"name": "ground", "static": true, "shape": {"type": "plane", "normal": [0, 0, 1]}},
                   {"name": "box", "static": true, "shape": {"type": "box", "size": [0.4, 0.4, 0.4]},
                    "position": [0, 0, 0.2]}],
        "cables": [{"name": "a", "radius": 0.02, "points": [[-0.6, 0, 0.6], [-0.3, 0, 0.6], [0, 0, 0.6],
                                                            [0.3, 0, 0.6], [0.6, 0, 0.6]]},
                   {"name": "b", "radius": 0.02, "stretch_stiffness": 2000, "bend_stiffness": 0.001,
                    "points": [[5, 0, 0.3], [5.3, 0, 0.3], [5.6, 0, 0.3], [5.9, 0, 0.3]]}]})");
    const std::string first = hashes(dir, {});
    ASSERT_EQ(std::count(first.begin(), first.end(), '\n'), 11) << first;
    EXPECT_NE(first.substr(first.find("hash"), 21), first.substr(first.rfind("hash"), 21)) << first;
    EXPECT_EQ(hashes(dir, {}), first) << "a second process differs";
    EXPECT_EQ(hashes(dir, {"--threads", "2"}), first) << "two threads differ";
    // The hash sees the cables: one cable point moved by an ulp (the scene has no dynamic body).
    EXPECT_NE(hashes(dir, {"--set", "/cables/1/points/0=[5, 0, 0.30000000000000004]"}), first);
}

TEST(SceneCables, SetOverridesAddressCableValues) {
    const auto dir = test_dir();
    write_file(dir / "s.json", cable_scene());
    const Result<SceneDesc> scene = load_scene(
        (dir / "s.json").string(), std::vector<std::string>{"/cables/0/radius=0.05", "/cables/0/pinned/-=3",
                                                            "/cables/0/points/3=[0, 0.01, 0.7]"});
    ASSERT_TRUE(scene) << scene.error().message;
    EXPECT_EQ(scene->cables[0].desc.radius, 0.05);
    ASSERT_EQ(scene->cables[0].desc.pins.size(), 3u);
    EXPECT_EQ(scene->cables[0].desc.pins[2].index, 3u);
    EXPECT_EQ(scene->cables[0].desc.points[3], Vec3(0, 0.01, 0.7));
    // A bad override is reported like bad input.
    const CliResult r = run_cli({"validate", "s.json", "--set", "/cables/0/radius=-1"}, dir);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("/cables/0/radius: expected a positive number, got -1"), std::string::npos) << r.err;
    const CliResult missing = run_cli({"validate", "s.json", "--set", "/cables/3/radius=1"}, dir);
    EXPECT_EQ(missing.exit_code, 2) << missing.err;
}

}  // namespace
}  // namespace simpulse::test
