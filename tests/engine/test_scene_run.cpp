// Running scenes through the `simpulse` executable: the result document (keys, values against closed forms),
// the round trip scene -> world -> output, trajectory sampling, contact events, determinism, the non-finite
// stop (exit 1, --out still written) and the log levels.
#include "engine_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <numbers>

namespace simpulse::test {
namespace {

using nlohmann::json;

Vec3 vec(const json& j) {
    return {j.at(0).get<double>(), j.at(1).get<double>(), j.at(2).get<double>()};
}

json run_ok(const std::filesystem::path& dir, std::vector<std::string> args) {
    args.insert(args.begin(), "run");
    const CliResult r = run_cli(args, dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(read_file(dir / "r.json"));
}

// A projectile under default gravity, no ground: semi-implicit Euler gives v_n = v0 + g t and
// x_n = x0 + v0 t + g t (t + dt) / 2 at t = n dt, exactly up to rounding.
TEST(SceneRun, ProjectileMatchesTheDiscreteClosedForm) {
    const auto dir = test_dir();
    write_file(dir / "p.json", R"({"name": "throw", "dt": 0.01, "duration": 1,
        "bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.1}, "position": [1, 2, 3],
                    "velocity": [4, 5, 6]}]})");
    const json r = run_ok(dir, {"p.json", "--out", "r.json"});
    EXPECT_EQ(r["steps"], 100);
    const double t = r["time"].get<double>(), dt = 0.01;
    EXPECT_NEAR(t, 1.0, 1e-15);
    const Vec3 g(0, 0, -9.81), x0(1, 2, 3), v0(4, 5, 6);
    const Vec3 x = vec(r["bodies"][0]["position"]), v = vec(r["bodies"][0]["velocity"]);
    // 100 steps each round x (|x| < 10) and v (|v| < 7) once: at most 100 * 2^-52 * 10 ~ 2e-13.
    const double x_error = (x - (x0 + v0 * t + g * t * (t + dt) / 2)).norm();
    const double v_error = (v - (v0 + g * t)).norm();
    EXPECT_LT(x_error, 1e-12) << "position " << x.transpose();
    EXPECT_LT(v_error, 1e-12) << "velocity " << v.transpose();
    // Energy and momenta follow from the same state: m = rho 4/3 pi r^3.
    const double m = 1000 * 4.0 / 3.0 * std::numbers::pi * 0.001;
    EXPECT_NEAR(r["energy"]["kinetic"].get<double>(), 0.5 * m * v.squaredNorm(), 1e-12);
    EXPECT_NEAR(r["energy"]["potential"].get<double>(), m * 9.81 * x.z(), 1e-12);
    EXPECT_LT((vec(r["momentum"]) - m * v).norm(), 1e-12);
    EXPECT_LT((vec(r["angular_momentum"]) - x.cross(m * v)).norm(), 1e-12);
}

TEST(SceneRun, ResultDocumentLayout) {
    const auto dir = test_dir();
    write_file(dir / "s.json", R"({"name": "layout", "dt": 0.1, "duration": 0.3,
        "bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 0.1}},
                   {"name": "floor", "static": true, "shape": {"type": "plane", "normal": [0, 0, 1]}, "position": [0, 0, -10]}]})");
    const json r = run_ok(dir, {"s.json", "--out", "r.json"});
    // nlohmann::json sorts keys; the order in the file is checked on the text.
    const std::string text = read_file(dir / "r.json");
    std::size_t last = 0;
    for (const char* key :
         {"\"simpulse\"", "\"scene\"", "\"steps\"", "\"time\"", "\"wall_s\"", "\"events\"", "\"bodies\"",
          "\"energy\"", "\"momentum\"", "\"angular_momentum\"", "\"max_joint_error\"", "\"solver\""}) {
        const std::size_t at = text.find(key);
        ASSERT_NE(at, std::string::npos) << key;
        EXPECT_GT(at, last) << key << " out of order in\n" << text;
        last = at;
    }
    EXPECT_EQ(r.size(), 12u) << r;
    EXPECT_EQ(r["simpulse"], 1);
    EXPECT_EQ(r["scene"], "layout");
    EXPECT_EQ(r["steps"], 3);
    EXPECT_TRUE(r["wall_s"].is_number());
    EXPECT_EQ(r["events"], json::array());
    ASSERT_EQ(r["bodies"].size(), 2u);
    EXPECT_EQ(r["bodies"][1]["name"], "floor");
    EXPECT_EQ(r["bodies"][1]["position"], json::parse("[0.0, 0.0, -10.0]"));
    EXPECT_EQ(r["bodies"][1]["orientation"], json::parse(R"({"w": 1.0, "x": 0.0, "y": 0.0, "z": 0.0})"));
    EXPECT_EQ(r["solver"]["mode"], "exact");
    EXPECT_EQ(r["max_joint_error"], 0.0);
    EXPECT_FALSE(r.contains("error"));
}

TEST(SceneRun, InitialStateRoundTrips) {
    const auto dir = test_dir();
    write_file(dir / "s.json", R"({"gravity": [0, 0, 0], "dt": 0.01, "duration": 0.01, "bodies": [
        {"name": "ball", "shape": {"type": "sphere", "radius": 0.1}, "position": [0.1, -2.5, 3e-3],
         "orientation": {"w": 0.6, "x": 0, "y": 0, "z": 0.8}, "velocity": [1.5, 0, -0.25], "angular_velocity": [0, 2, 0]},
        {"name": "brick", "shape": {"type": "box", "size": [0.2, 0.1, 0.05]}, "position": [7, 8, 9],
         "orientation": {"axis": [1, 2, 3], "angle_deg": 40}, "velocity": [0, 0, 1e-3], "angular_velocity": [-1, 0.5, 3]},
        {"name": "wall", "static": true, "shape": {"type": "box", "size": [1, 1, 1]}, "position": [-4, 0, 0],
         "orientation": {"axis": [0, 0, 1], "angle_deg": 45}}]})");
    const CliResult r = run_cli({"run", "s.json", "--trajectory", "t.jsonl"}, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<std::string> lines = read_lines(dir / "t.jsonl");
    ASSERT_EQ(lines.size(), 2u);
    const json first = json::parse(lines[0]);
    EXPECT_EQ(first["t"], 0.0);
    const Result<SceneDesc> scene = load_scene((dir / "s.json").string());
    ASSERT_TRUE(scene.ok());
    ASSERT_EQ(first["bodies"].size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        const SceneBody& b = scene.value().bodies[i];
        const json& out = first["bodies"][i];
        EXPECT_EQ(out["name"], b.name);
        // Position: the body frame is stored as the centre of mass and converted back; these shapes have it
        // at the origin, so the value is exact.
        EXPECT_EQ(vec(out["position"]), b.desc.pose.position) << b.name;
        const Quat q = b.desc.pose.orientation;
        EXPECT_EQ(out["orientation"], (json{{"w", q.w()}, {"x", q.x()}, {"y", q.y()}, {"z", q.z()}}))
            << b.name;
        EXPECT_EQ(vec(out["velocity"]), b.desc.velocity) << b.name;
        EXPECT_EQ(vec(out["angular_velocity"]), b.desc.angular_velocity) << b.name;
    }
    EXPECT_EQ(first["bodies"][0]["orientation"], json::parse(R"({"w": 0.6, "x": 0.0, "y": 0.0, "z": 0.8})"));
}

std::vector<double> trajectory_times(const std::filesystem::path& file) {
    std::vector<double> times;
    for (const std::string& line : read_lines(file)) times.push_back(json::parse(line)["t"].get<double>());
    return times;
}

TEST(SceneRun, TrajectoryEveryStepByDefault) {
    const auto dir = test_dir();
    write_file(
        dir / "s.json",
        R"({"dt": 0.01, "duration": 0.5, "bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 0.1}}]})");
    ASSERT_EQ(run_cli({"run", "s.json", "--trajectory", "t.jsonl"}, dir).exit_code, 0);
    const std::vector<double> t = trajectory_times(dir / "t.jsonl");
    ASSERT_EQ(t.size(), 51u);
    for (std::size_t n = 0; n < t.size(); ++n)
        EXPECT_NEAR(t[n], 0.01 * static_cast<double>(n), 1e-15) << "line " << n;
}

TEST(SceneRun, TrajectorySampleEvery) {
    const auto dir = test_dir();
    write_file(dir / "s.json", R"({"dt": 0.01, "duration": 1, "sample_every": 0.1,
                                   "bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 0.1}}]})");
    ASSERT_EQ(run_cli({"run", "s.json", "--trajectory", "t.jsonl"}, dir).exit_code, 0);
    const std::vector<double> t = trajectory_times(dir / "t.jsonl");
    ASSERT_EQ(t.size(), 11u);
    for (std::size_t k = 0; k < t.size(); ++k)
        EXPECT_NEAR(t[k], 0.1 * static_cast<double>(k), 1e-12) << "line " << k;

    // An interval that is not a multiple of dt: the first step at or past each multiple, 0.025 k.
    ASSERT_EQ(run_cli({"run", "s.json", "--trajectory", "t.jsonl", "--set", "/sample_every=0.025",
                       "--duration", "0.1"},
                      dir)
                  .exit_code,
              0);
    const std::vector<double> u = trajectory_times(dir / "t.jsonl");
    const std::vector<double> expected = {0, 0.03, 0.05, 0.08, 0.1};
    ASSERT_EQ(u.size(), expected.size());
    for (std::size_t k = 0; k < u.size(); ++k) EXPECT_NEAR(u[k], expected[k], 1e-12) << "line " << k;

    // Longer than the run: the initial state only. Shorter than dt: every step.
    ASSERT_EQ(
        run_cli({"run", "s.json", "--trajectory", "t.jsonl", "--set", "/sample_every=5"}, dir).exit_code, 0);
    EXPECT_EQ(trajectory_times(dir / "t.jsonl").size(), 1u);
    ASSERT_EQ(
        run_cli({"run", "s.json", "--trajectory", "t.jsonl", "--set", "/sample_every=0.001"}, dir).exit_code,
        0);
    EXPECT_EQ(trajectory_times(dir / "t.jsonl").size(), 101u);
}

TEST(SceneRun, DtAndDurationFlagsOverrideTheScene) {
    const auto dir = test_dir();
    write_file(
        dir / "s.json",
        R"({"dt": 0.01, "duration": 1, "bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 0.1}}]})");
    const json r = run_ok(dir, {"s.json", "--out", "r.json", "--dt", "0.05", "--duration", "0.5"});
    EXPECT_EQ(r["steps"], 10);
    EXPECT_NEAR(r["time"].get<double>(), 0.5, 1e-15);
}

// --threads changes who solves the islands, never the answer: the result of two separate stacks and a
// bouncing ball is the same file with 1 and 2 threads (but for the wall time); a count outside 1..256 is
// refused.
TEST(SceneRun, ThreadsFlagGivesTheSameResult) {
    const auto dir = test_dir();
    write_file(dir / "s.json", kSeparateStacks);
    json results[2];
    for (int threads : {1, 2}) {
        results[threads - 1] =
            run_ok(dir, {"s.json", "--out", "r.json", "--threads", std::to_string(threads)});
        results[threads - 1].erase("wall_s");
        results[threads - 1]["solver"].erase("workspace_bytes");  // one worker's scratch per thread
    }
    EXPECT_EQ(results[0], results[1]);
    const CliResult bad = run_cli({"run", "s.json", "--threads", "0"}, dir);
    EXPECT_EQ(bad.exit_code, 2) << bad.err;
    EXPECT_NE(bad.err.find("--threads"), std::string::npos) << bad.err;
}

// A ball starting in contact with the floor, thrown up: contact_begin in the first step (it overlaps),
// contact_end when it has left, contact_begin again when it lands (restitution 0), in time order, named in
// scene order (a before b), at the end time of a step.
TEST(SceneRun, ContactEvents) {
    const auto dir = test_dir();
    write_file(dir / "s.json", R"({"dt": 0.005, "duration": 1.0,
        "bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.1}, "position": [0, 0, 0.099], "velocity": [0, 0, 2]},
                   {"name": "floor", "static": true, "shape": {"type": "plane", "normal": [0, 0, 1]}}]})");
    const json r = run_ok(dir, {"s.json", "--out", "r.json"});
    const json& events = r["events"];
    ASSERT_EQ(events.size(), 3u) << events;
    const char* types[] = {"contact_begin", "contact_end", "contact_begin"};
    double previous = 0;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const json& e = events[i];
        EXPECT_EQ(e.size(), 4u) << e;
        EXPECT_EQ(e["type"], types[i]) << e;
        EXPECT_EQ(e["a"], "ball") << e;
        EXPECT_EQ(e["b"], "floor") << e;
        const double t = e["t"].get<double>();
        EXPECT_GT(t, previous) << e;
        const double steps = t / 0.005;
        EXPECT_NEAR(steps, std::round(steps), 1e-9) << "not the end of a step: " << e;
        previous = t;
    }
    EXPECT_EQ(events[0]["t"], 0.005);
    // It leaves within the first steps (2 m/s clears the 1 mm overlap in one step of 10 mm) and lands after a
    // flight of 2 v / g = 0.408 s; the discrete flight and the landing step add at most a few steps.
    EXPECT_LE(events[1]["t"].get<double>(), 0.015) << events[1];
    EXPECT_NEAR(events[2]["t"].get<double>(), 2 * 2 / 9.81, 3 * 0.005) << events[2];
    // The text: {"t":...,"type":...,"a":...,"b":...} in this key order, one event per line.
    const std::string text = read_file(dir / "r.json");
    EXPECT_NE(text.find("\n    {\"t\":0.005,\"type\":\"contact_begin\",\"a\":\"ball\",\"b\":\"floor\"},\n"),
              std::string::npos)
        << text;
}

TEST(SceneRun, EventNamesFollowSceneOrder) {
    const auto dir = test_dir();
    write_file(dir / "s.json", R"({"dt": 0.005, "duration": 0.6,
        "bodies": [{"name": "floor", "static": true, "shape": {"type": "plane", "normal": [0, 0, 1]}},
                   {"name": "ball", "shape": {"type": "sphere", "radius": 0.1}, "position": [0, 0, 1.1]}]})");
    const json r = run_ok(dir, {"s.json", "--out", "r.json"});
    ASSERT_EQ(r["events"].size(), 1u) << r["events"];
    EXPECT_EQ(r["events"][0]["type"], "contact_begin");
    EXPECT_EQ(r["events"][0]["a"], "floor");
    EXPECT_EQ(r["events"][0]["b"], "ball");
}

// Everything but wall_s, as text.
// (String search rather than <regex>: GCC 12's libstdc++ regex trips -Wmaybe-uninitialized in the sanitized
// -O1 build.)
std::string without_wall_time(const std::string& text) {
    const std::string key = "\"wall_s\": ";
    std::string out;
    std::size_t from = 0;
    for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, from)) {
        out.append(text, from, at + key.size() - from).append("X");
        from = text.find(',', at);
        if (from == std::string::npos) return out;
    }
    return out.append(text, from, std::string::npos);
}

TEST(SceneRun, SameSceneTwiceGivesIdenticalBytes) {
    const auto dir = test_dir();
    // Contacts (a stack on a floor, a tumbling capsule), springs and a joint all in one scene.
    write_file(dir / "s.json", R"({"dt": 0.004, "duration": 1,
        "materials": {"rubber": {"friction": 0.9, "restitution": 0.4}},
        "bodies": [{"name": "floor", "static": true, "shape": {"type": "plane", "normal": [0, 0, 1]}},
                   {"name": "crate", "shape": {"type": "box", "size": [0.4, 0.4, 0.4]}, "position": [0, 0, 0.25],
                    "array": {"count": 3, "offset": [0.05, 0.02, 0.45]}},
                   {"name": "pill", "material": "rubber", "shape": {"type": "capsule", "radius": 0.1, "length": 0.4},
                    "position": [1, 0, 0.5], "orientation": {"axis": [1, 0, 0], "angle_deg": 70}, "angular_velocity": [0, 3, 1]},
                   {"name": "bob", "shape": {"type": "sphere", "radius": 0.1}, "position": [-1, 0, 1]},
                   {"name": "link", "shape": {"type": "box", "size": [0.1, 0.1, 0.3]}, "position": [-1, 0, 0.7]}],
        "springs": [{"bodies": ["world", "bob"], "anchors": [[-1, 0, 2], [-1, 0, 1]], "stiffness": 200, "damping": 1}],
        "joints": [{"type": "ball", "bodies": ["bob", "link"], "anchor": [-1, 0, 0.88]}]})");
    for (const char* name : {"r1", "r2"}) {
        const CliResult r = run_cli({"run", "s.json", "--out", std::string(name) + ".json", "--trajectory",
                                     std::string(name) + ".jsonl"},
                                    dir);
        ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    const std::string a = read_file(dir / "r1.json"), b = read_file(dir / "r2.json");
    EXPECT_EQ(without_wall_time(a), without_wall_time(b));
    EXPECT_NE(without_wall_time(a), a);  // the wall time was really masked
    EXPECT_EQ(read_file(dir / "r1.jsonl"), read_file(dir / "r2.jsonl"));
    // The run had contacts: this is not a determinism check of free flight only.
    const json r = json::parse(a);
    EXPECT_GE(r["events"].size(), 4u) << r["events"];
    EXPECT_GT(r["solver"]["max_rows"].get<int>(), 0);
    EXPECT_GT(r["max_joint_error"].get<double>(), 0.0);
}

// A body at 1e160 m/s stays finite (no force acts on it) but its kinetic energy, 1/2 m v^2 ~ 1e320 J, does
// not: the result wrote "kinetic": null with exit 0.
TEST(SceneRun, TotalsBeyondTheDoubleRangeFailTheRun) {
    const auto dir = test_dir();
    write_file(dir / "s.json", R"({"name": "fast", "duration": 0.01, "dt": 0.005, "gravity": [0, 0, 0],
        "bodies": [{"name": "bullet", "shape": {"type": "sphere", "radius": 0.1}, "velocity": [1e160, 0, 0]}]})");
    const CliResult r = run_cli({"run", "s.json", "--out", "r.json"}, dir);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    const std::string expected =
        "s.json: the state after step 2 (t = 0.01 s) is finite but its totals are not "
        "(kinetic energy inf J";
    EXPECT_EQ(r.err.substr(0, expected.size()), expected) << r.err;
    const json out = json::parse(read_file(dir / "r.json"));
    ASSERT_TRUE(out.contains("error")) << out;
    EXPECT_EQ(out["error"]["step"], 2);
    EXPECT_TRUE(out["error"]["body"].is_null());
    EXPECT_TRUE(std::isfinite(out["bodies"][0]["velocity"][0].get<double>()));
}

// A stiff spring stepped far beyond the stability limit of semi-implicit Euler (dt > 2 / omega): the
// amplitude grows by about (omega dt)^2 per step until it overflows.
TEST(SceneRun, NonFiniteStateStopsWithExitOne) {
    const auto dir = test_dir();
    write_file(dir / "s.json", R"({"name": "blowup", "duration": 10,
        "bodies": [{"name": "wall", "static": true, "shape": {"type": "box", "size": [0.1, 0.1, 0.1]}, "position": [-5, 0, 0]},
                   {"name": "bob", "shape": {"type": "sphere", "radius": 0.1}}],
        "springs": [{"bodies": ["world", "bob"], "anchors": [[0, 0, 1], [0, 0, 0]], "stiffness": 10}]})");
    const CliResult r = run_cli({"run", "s.json", "--out", "r.json", "--trajectory", "t.jsonl", "--dt", "0.1",
                                 "--set", "/springs/0/stiffness=1e12"},
                                dir);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    const std::string prefix = "s.json: body \"bob\" became non-finite at step ";
    ASSERT_EQ(r.err.substr(0, prefix.size()), prefix) << r.err;
    int step = 0, consumed = 0;
    double t = 0;
    ASSERT_EQ(std::sscanf(r.err.c_str() + prefix.size(), "%d (t = %lf s)%n", &step, &t, &consumed), 2)
        << r.err;
    ASSERT_EQ(r.err[prefix.size() + static_cast<std::size_t>(consumed)], '\n') << r.err;
    EXPECT_NEAR(t, 0.1 * step, 1e-9) << r.err;
    // omega dt = sqrt(1e12 / 4.19) * 0.1 ~ 5e4: about 1e9 per step from a first displacement g dt^2 ~ 0.1 m
    // reaches the double range (1e308) after 30-odd steps.
    EXPECT_GT(step, 10);
    EXPECT_LT(step, 100);
    const json out = json::parse(read_file(dir / "r.json"));
    // The world was put back to the last good state: the steps before the failed one, and the bodies as the
    // trajectory's last line has them.
    EXPECT_EQ(out["steps"].get<int>(), step - 1);
    EXPECT_NEAR(out["time"].get<double>(), 0.1 * (step - 1), 1e-12);
    ASSERT_TRUE(out.contains("error")) << out;
    EXPECT_EQ(out["error"]["body"], "bob");
    EXPECT_EQ(out["error"]["step"], step);
    EXPECT_EQ("s.json: " + out["error"]["message"].get<std::string>() + "\n",
              r.err.substr(0, r.err.find('\n') + 1));
    const json last = json::parse(read_lines(dir / "t.jsonl").back());
    const json& bob = out["bodies"][1];
    for (const char* key : {"position", "velocity", "angular_velocity"})
        EXPECT_EQ(bob[key], last["bodies"][1][key]) << key << ": the result is not the last good state";
    for (const json& x : bob["position"]) EXPECT_TRUE(x.is_number()) << bob;
    EXPECT_EQ(out["bodies"][0]["position"], json::parse("[-5.0, 0.0, 0.0]"));
    // The trajectory holds the initial state and every finite step before the failure.
    EXPECT_EQ(read_lines(dir / "t.jsonl").size(), static_cast<std::size_t>(step));
}

// The failing body's name is quoted as a JSON string: a name with a quote and a newline keeps the error one
// line.
TEST(SceneRun, NonFiniteBodyNameIsQuotedOnOneLine) {
    const auto dir = test_dir();
    write_file(dir / "s.json", R"({"name": "blowup", "duration": 10,
        "bodies": [{"name": "b\"o\nb", "shape": {"type": "sphere", "radius": 0.1}}],
        "springs": [{"bodies": ["world", "b\"o\nb"], "anchors": [[0, 0, 1], [0, 0, 0]], "stiffness": 1e12}]})");
    const CliResult r = run_cli({"run", "s.json", "--dt", "0.1"}, dir);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    const std::string prefix = R"(s.json: body "b\"o\nb" became non-finite at step )";
    EXPECT_EQ(r.err.substr(0, prefix.size()), prefix) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << "the error line and the summary: " << r.err;
}

// A fuzzed barrels scene at dt = 1.2e19 s (bench/fuzz/corpus/fuzz_scene): one step gives velocities near
// 1e20 m/s, whose rounding (about 1e4 m/s) no island solve can get below. The Newton method stops at that
// floor instead of running its 200 x 100 Newton steps and their line searches to the caps (20,060 iterations
// before), and the island counts as missed.
TEST(SceneRun, AStepOfHugeVelocitiesStopsAtTheirRounding) {
    const SceneDesc scene =
        load_scene(repo_path("bench/fuzz/corpus/fuzz_scene/barrels_dt_1e19_newton_rounding_floor.json"))
            .value();
    SceneWorld built = build_world(scene).value();
    ASSERT_TRUE(built.world.step(scene.dt));
    const SolverStats& stats = built.world.solver_stats();
    EXPECT_EQ(stats.newton_islands, 1);
    EXPECT_LT(stats.iterations, 1000) << stats.iterations << " iterations";
    EXPECT_EQ(stats.missed_islands, 1) << "residual " << stats.residual << " m/s";
    EXPECT_TRUE(std::isfinite(stats.residual));
}

// A tower of 20 boxes whose masses grow by 10^(1/5) a level (1 to 6,300 kg): one island of 140 rows, above
// direct_max_rows, whose sweeps stall on the long load path, so it goes to the Newton method. With one
// factorisation per solve the Newton method cannot reach 1e-9 m/s from the sweeps' answer: every solve stops
// at its cap, and the result counts each.
TEST(SceneRun, NewtonSolvesStoppedAtTheirCapAreCounted) {
    const auto dir = test_dir();
    json bodies = json::array();
    bodies.push_back(
        json::parse(R"({"name": "floor", "static": true, "shape": {"type": "plane", "normal": [0, 0, 1]}})"));
    for (int k = 0; k < 20; ++k)
        bodies.push_back({{"name", std::string(1, static_cast<char>('a' + k))},
                          {"shape", {{"type", "box"}, {"size", {1.0, 1.0, 0.2}}}},
                          {"position", {0.0, 0.0, 0.1 + 0.2 * k}},
                          {"mass", std::pow(10.0, k / 5.0)}});
    const json scene = {{"dt", 1.0 / 60},
                        {"duration", 0.05},
                        {"solver", {{"newton_max_factorizations", 1}}},
                        {"bodies", bodies}};
    write_file(dir / "s.json", scene.dump());
    const json r = run_ok(dir, {"s.json", "--out", "r.json"});
    const json& solver = r["solver"];
    EXPECT_EQ(solver["max_island_rows"], 140) << solver;
    EXPECT_GT(solver["newton_islands"].get<int>(), 0) << solver;
    EXPECT_EQ(solver["newton_capped"], solver["newton_islands"]) << solver;
    EXPECT_GE(solver["missed_islands"].get<int>(), solver["newton_capped"].get<int>()) << solver;
}

TEST(SceneRun, LogLevels) {
    const auto dir = test_dir();
    write_file(
        dir / "s.json",
        R"({"dt": 0.1, "duration": 0.2, "bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 0.1}}]})");
    const CliResult normal = run_cli({"run", "s.json"}, dir);
    EXPECT_EQ(normal.exit_code, 0);
    double wall = -1;
    int consumed = 0;
    ASSERT_EQ(std::sscanf(normal.err.c_str(), "s.json: 2 steps, 0.2 s simulated in %lf s wall time%n", &wall,
                          &consumed),
              1)
        << normal.err;
    EXPECT_EQ(normal.err.substr(static_cast<std::size_t>(consumed)), "\n") << normal.err;
    EXPECT_GE(wall, 0);
    EXPECT_EQ(normal.out, "");
    const CliResult quiet = run_cli({"run", "s.json", "--quiet"}, dir);
    EXPECT_EQ(quiet.exit_code, 0);
    EXPECT_EQ(quiet.err, "");
    const CliResult verbose = run_cli({"run", "s.json", "--verbose"}, dir);
    EXPECT_EQ(verbose.exit_code, 0);
    EXPECT_NE(verbose.err.find("body \"a\": dynamic sphere, position (0, 0, 0)"), std::string::npos)
        << verbose.err;
    EXPECT_NE(verbose.err.find("step 1 t=0.1: substeps 1 islands 0 rows 0"), std::string::npos)
        << verbose.err;
    EXPECT_NE(verbose.err.find("step 2 t=0.2: substeps 1 islands 0 rows 0"), std::string::npos)
        << verbose.err;
    // Both at once contradict each other: refused (exit 2, nothing run) rather than one silently winning.
    const CliResult both = run_cli({"run", "s.json", "--quiet", "--verbose"}, dir);
    EXPECT_EQ(both.exit_code, 2);
    EXPECT_NE(both.err.find("excludes"), std::string::npos) << both.err;
    EXPECT_EQ(both.err.find("steps"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace simpulse::test
