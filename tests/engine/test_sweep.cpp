// `simpulse sweep`: the shards of a sweep cover the product of the varied values exactly once, a rerun skips
// the points whose file is complete (a killed shard resumes), `--collect` gives the same table however the
// sweep was sharded, domino scenes get their chain time, and bad input is refused with exit 2 naming the
// flag.
#include "engine_test_support.h"

#include <simpulse/app/sweep.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <sstream>

namespace simpulse::test {
namespace {

using nlohmann::json;

// A ball thrown from 1 m for 0.1 s: 6 points (2 time steps x 3 speeds), each a few steps.
constexpr const char* kThrow = R"({"name": "throw", "dt": 0.01, "duration": 0.1,
    "bodies": [{"name": "floor", "static": true, "shape": {"type": "plane", "normal": [0, 0, 1]}},
               {"name": "ball", "shape": {"type": "sphere", "radius": 0.1}, "position": [0, 0, 1],
                "velocity": [0, 0, 0]}]})";
const std::vector<std::string> kVary = {"--vary", "/dt=0.01,0.02", "--vary", "/bodies/1/velocity/0=1,2,3"};

std::vector<std::string> sweep_args(const std::string& out, const std::string& shard) {
    std::vector<std::string> args = {"sweep", "s.json"};
    args.insert(args.end(), kVary.begin(), kVary.end());
    args.insert(args.end(), {"--shard", shard, "--out", out});
    return args;
}

// Point numbers in the log lines "[i/n] point K (...): ran ..." (or ": skipped ...").
std::vector<int> logged_points(const std::string& log, const std::string& what) {
    std::vector<int> points;
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);) {
        const std::size_t at = line.find("] point ");
        if (at == std::string::npos || line.find("): " + what) == std::string::npos) continue;
        points.push_back(std::stoi(line.substr(at + 8)));
    }
    return points;
}

std::set<std::string> point_files(const std::filesystem::path& dir) {
    std::set<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        names.insert(entry.path().filename().string());
    return names;
}

TEST(Sweep, ShardsAreRoundRobinAndCoverTheProductOnce) {
    Sweep sweep{
        "s.json",
        {},
        {parse_vary("/a=1,2,3").value(), parse_vary("/b=x,y").value(), parse_vary("/c=[1,2],[3,4]").value()}};
    ASSERT_EQ(sweep.size(), 12u);
    EXPECT_EQ(sweep.point_overrides(0), (std::vector<std::string>{"/a=1", "/b=x", "/c=[1,2]"}));
    EXPECT_EQ(sweep.point_overrides(11), (std::vector<std::string>{"/a=3", "/b=y", "/c=[3,4]"}));
    EXPECT_EQ(sweep.point_overrides(5), (std::vector<std::string>{"/a=2", "/b=x", "/c=[3,4]"}));
    for (const std::size_t n : {1u, 2u, 5u, 12u, 13u}) {
        std::multiset<std::size_t> seen;
        for (std::size_t i = 0; i < n; ++i)
            for (const std::size_t k : shard_points(sweep, {i, n})) {
                EXPECT_EQ(k % n, i) << "point " << k << " in shard " << i << "/" << n;
                seen.insert(k);
            }
        EXPECT_EQ(seen.size(), 12u) << n << " shards";
        for (std::size_t k = 0; k < 12; ++k)
            EXPECT_EQ(seen.count(k), 1u) << "point " << k << ", " << n << " shards";
    }
}

TEST(Sweep, VaryValuesSplitOutsideBracketsAndStrings) {
    const SweepAxis gravity = parse_vary("/gravity=[0,0,-9.81],[0, 0, -1.62]").value();
    EXPECT_EQ(gravity.values, (std::vector<std::string>{"[0,0,-9.81]", "[0, 0, -1.62]"}));
    const SweepAxis names = parse_vary(R"(/name="a,b",c,{"k": [1,2]})").value();
    EXPECT_EQ(names.values, (std::vector<std::string>{"\"a,b\"", "c", R"({"k": [1,2]})"}));
}

TEST(Sweep, ShardedRunEqualsSingleRunAndCollectsTheSameTable) {
    const auto dir = test_dir();
    write_file(dir / "s.json", kThrow);
    const CliResult single = run_cli(sweep_args("one", "0/1"), dir);
    ASSERT_EQ(single.exit_code, 0) << single.err;
    std::vector<int> ran;
    for (int i = 0; i < 4; ++i) {
        const CliResult r = run_cli(sweep_args("four", std::to_string(i) + "/4"), dir);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        for (const int k : logged_points(r.err, "ran")) ran.push_back(k);
    }
    std::sort(ran.begin(), ran.end());
    EXPECT_EQ(ran, (std::vector<int>{0, 1, 2, 3, 4, 5})) << "points run by the four shards";
    ASSERT_EQ(point_files(dir / "one"), point_files(dir / "four"));
    EXPECT_EQ(point_files(dir / "one").size(), 6u);
    for (int k = 0; k < 6; ++k) {
        const std::string name = "point-00000" + std::to_string(k) + ".json";
        json a = json::parse(read_file(dir / "one" / name)), b = json::parse(read_file(dir / "four" / name));
        EXPECT_EQ(a["sweep"]["point"], k);
        a.erase("wall_s");
        b.erase("wall_s");
        EXPECT_EQ(a, b) << name;
    }
    // The point's overrides and their effect: point 5 is dt 0.02 and 3 m/s.
    const json p5 = json::parse(read_file(dir / "one" / "point-000005.json"));
    EXPECT_EQ(p5["sweep"]["vary"], json::parse(R"({"/dt": 0.02, "/bodies/1/velocity/0": 3})"));
    EXPECT_EQ(p5["steps"], 5);
    EXPECT_EQ(p5["bodies"][1]["velocity"][0], 3.0);

    for (const char* d : {"one", "four"}) {
        const CliResult c = run_cli({"sweep", "--collect", d}, dir);
        ASSERT_EQ(c.exit_code, 0) << c.err;
    }
    const std::string csv = read_file(dir / "one" / "sweep.csv");
    EXPECT_EQ(csv, read_file(dir / "four" / "sweep.csv"));
    EXPECT_EQ(read_file(dir / "one" / "sweep.json"), read_file(dir / "four" / "sweep.json"));
    const std::vector<std::string> lines = read_lines(dir / "one" / "sweep.csv");
    ASSERT_EQ(lines.size(), 7u) << csv;
    EXPECT_EQ(lines[0],
              "point,/dt,/bodies/1/velocity/0,ok,steps,time,kinetic_energy,potential_energy,max_joint_error");
    EXPECT_TRUE(lines[6].starts_with("5,0.02,3,true,5,")) << lines[6];
    const json table = json::parse(read_file(dir / "one" / "sweep.json"));
    ASSERT_EQ(table.size(), 6u);
    EXPECT_EQ(table[2]["/bodies/1/velocity/0"], 3);
    EXPECT_EQ(table[2]["steps"], 10);
}

TEST(Sweep, AKilledShardResumesWithTheMissingPointsOnly) {
    const auto dir = test_dir();
    write_file(dir / "s.json", kThrow);
    ASSERT_EQ(run_cli(sweep_args("out", "0/1"), dir).exit_code, 0);
    std::vector<std::string> before;
    for (int k = 0; k < 6; ++k)
        before.push_back(read_file(dir / "out" / ("point-00000" + std::to_string(k) + ".json")));
    // A killed shard: point 2 never written, point 3 cut short (as if copied half-way), point 4's partial
    // file left behind by the killed run.
    std::filesystem::remove(dir / "out" / "point-000002.json");
    write_file(dir / "out" / "point-000003.json", before[3].substr(0, before[3].size() / 2));
    write_file(dir / "out" / "point-000004.json.partial", "{\"simpulse\": 1, \"sce");
    const CliResult r = run_cli(sweep_args("out", "0/1"), dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(logged_points(r.err, "ran"), (std::vector<int>{2, 3})) << r.err;
    EXPECT_EQ(logged_points(r.err, "skipped"), (std::vector<int>{0, 1, 4, 5})) << r.err;
    // The points not run again are untouched (their wall_s would differ otherwise).
    for (const int k : {0, 1, 4, 5})
        EXPECT_EQ(read_file(dir / "out" / ("point-00000" + std::to_string(k) + ".json")), before[k]) << k;
    for (const int k : {2, 3}) {
        json again = json::parse(read_file(dir / "out" / ("point-00000" + std::to_string(k) + ".json")));
        json first = json::parse(before[k]);
        again.erase("wall_s");
        first.erase("wall_s");
        EXPECT_EQ(again, first) << "point " << k;
    }
    EXPECT_EQ(run_cli({"sweep", "--collect", "out"}, dir).exit_code, 0);
    // The stale partial file stays (it is no point file) until point 4 is run again; the table ignores it.
    EXPECT_EQ(read_lines(dir / "out" / "sweep.csv").size(), 7u);
}

TEST(Sweep, DominoPointsCarryTheChainTime) {
    const auto dir = test_dir();
    const CliResult r = run_cli(
        {"sweep", repo_path("scenes/domino_chain.json"), "--vary", "/bodies/3/array/offset/0=0.01,0.015",
         "--set", "/duration=1", "--set", "/dt=0.004166666666666667", "--out", "out"},
        dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(run_cli({"sweep", "--collect", "out"}, dir).exit_code, 0);
    const json table = json::parse(read_file(dir / "out" / "sweep.json"));
    ASSERT_EQ(table.size(), 2u);
    for (const json& row : table) {
        EXPECT_NEAR(row["pitch"].get<double>(), row["/bodies/3/array/offset/0"].get<double>(), 1e-12) << row;
        ASSERT_TRUE(row["chain_time"].is_number()) << row;
        EXPECT_GT(row["chain_time"].get<double>(), 0.1) << row;
        EXPECT_EQ(row["dominoes"], 27) << row;
    }
    // Wider spacing, longer chain.
    EXPECT_GT(table[1]["chain_time"].get<double>(), table[0]["chain_time"].get<double>()) << table;
    EXPECT_TRUE(read_lines(dir / "out" / "sweep.csv")[0].ends_with(
        ",pitch,striker_hit,chain_time,knocked_over,dominoes"));
}

TEST(Sweep, AFailedPointIsWrittenAndTheShardExitsOneOnEveryRun) {
    const auto dir = test_dir();
    write_file(dir / "s.json", kThrow);
    // Gravity of -1e308 m/s^2 keeps the state finite for 0.1 s but overflows the kinetic energy: the run
    // fails.
    const std::vector<std::string> args = {"sweep", "s.json", "--vary", "/gravity=[0,0,-9.81],[0,0,-1e308]",
                                           "--out", "out"};
    const CliResult first = run_cli(args, dir);
    EXPECT_EQ(first.exit_code, 1) << first.err;
    EXPECT_NE(first.err.find("point 1 (/gravity=[0,0,-1e308]): ran in"), std::string::npos) << first.err;
    EXPECT_NE(first.err.find("the run failed (see its file)"), std::string::npos) << first.err;
    const json failed = json::parse(read_file(dir / "out" / "point-000001.json"));
    ASSERT_TRUE(failed.contains("error")) << failed.dump();
    EXPECT_NE(failed["error"]["message"].get<std::string>().find("totals are not"), std::string::npos)
        << failed["error"];
    const CliResult again = run_cli(args, dir);
    EXPECT_EQ(again.exit_code, 1) << again.err;
    EXPECT_EQ(logged_points(again.err, "skipped"), (std::vector<int>{0, 1})) << again.err;
    ASSERT_EQ(run_cli({"sweep", "--collect", "out"}, dir).exit_code, 0);
    const json table = json::parse(read_file(dir / "out" / "sweep.json"));
    EXPECT_EQ(table[0]["ok"], true) << table;
    EXPECT_EQ(table[1]["ok"], false) << table;
}

struct BadSweep {
    std::vector<std::string> args;
    std::string message;  // part of the error line
};

TEST(Sweep, BadInputIsRefusedNamingTheFlag) {
    const auto dir = test_dir();
    write_file(dir / "s.json", kThrow);
    write_file(dir / "file", "");
    std::filesystem::create_directories(dir / "empty");
    const std::vector<BadSweep> cases = {
        {{"sweep", "s.json", "--vary", "/dt", "--out", "o"},
         "--vary: expected /json/pointer=V1,V2,..., got \"/dt\""},
        {{"sweep", "s.json", "--vary", "/dt=", "--out", "o"}, "--vary: expected /json/pointer=V1,V2"},
        {{"sweep", "s.json", "--vary", "dt=1,2", "--out", "o"},
         "--vary: expected a JSON pointer starting with /"},
        {{"sweep", "s.json", "--vary", "/dt=0.1,,0.2", "--out", "o"}, "--vary /dt: value 2 of 3 is empty"},
        {{"sweep", "s.json", "--vary", "/dt=0.1,0.1", "--out", "o"}, "--vary /dt: value 0.1 is given twice"},
        {{"sweep", "s.json", "--vary", "/dt=0.1", "--vary", "/dt=0.2", "--out", "o"},
         "--vary /dt: varied twice"},
        {{"sweep", "s.json", "--vary", "/dt=0.1", "--set", "/dt=0.2", "--out", "o"}, "also given by --set"},
        {{"sweep", "s.json", "--vary", "/dtt=0.1,0.2", "--out", "o"},
         "--vary: point 0 (/dtt=0.1): s.json: /dtt:"},
        {{"sweep", "s.json", "--vary", "/dt=0.1,-1", "--out", "o"}, "--vary: point 1 (/dt=-1): s.json: /dt:"},
        {{"sweep", "s.json", "--vary", "/bodies/7/mass=1", "--out", "o"},
         "cannot --set: /bodies/7 does not exist"},
        {{"sweep", "s.json", "--shard", "4/4", "--out", "o"},
         "--shard: expected i/N with N >= 1 and 0 <= i < N"},
        {{"sweep", "s.json", "--shard", "0/0", "--out", "o"}, "--shard: expected i/N"},
        {{"sweep", "s.json", "--shard", "1", "--out", "o"}, "--shard: expected i/N"},
        {{"sweep", "s.json", "--shard=-1/2", "--out", "o"}, "--shard: expected i/N"},
        {{"sweep", "s.json", "--vary", "/dt=0.1"}, "--out: required"},
        {{"sweep", "s.json", "--out", "file"}, "--out: file: expected a directory"},
        {{"sweep", "--vary", "/dt=0.1", "--out", "o"}, "SCENE: required"},
        {{"sweep", "missing.json", "--out", "o"}, "missing.json: cannot read"},
        {{"sweep", "--collect", "nowhere"}, "--collect: nowhere: expected a directory"},
        {{"sweep", "--collect", "empty"}, "--collect: empty: no point files"},
        {{"sweep", "s.json", "--collect", "empty"}, "--collect DIR takes no SCENE"},
    };
    for (const BadSweep& c : cases) {
        const CliResult r = run_cli(c.args, dir);
        std::string command;
        for (const std::string& a : c.args) command += a + " ";
        EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << command << "\n" << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << command << "\n" << r.err;
    }
    EXPECT_FALSE(std::filesystem::exists(dir / "o")) << "a refused sweep created its --out";
}

TEST(Sweep, CollectRefusesAnUnfinishedOrMixedSweep) {
    const auto dir = test_dir();
    write_file(dir / "s.json", kThrow);
    ASSERT_EQ(run_cli(sweep_args("out", "1/3"), dir).exit_code, 0);
    const CliResult unfinished = run_cli({"sweep", "--collect", "out"}, dir);
    EXPECT_EQ(unfinished.exit_code, 2);
    EXPECT_NE(unfinished.err.find("4 of 6 points missing (0, 2, 3, 5): run their shards again"),
              std::string::npos)
        << unfinished.err;
    // Another sweep into the same directory is refused before it runs anything.
    const CliResult other = run_cli({"sweep", "s.json", "--vary", "/dt=0.03,0.04,0.05", "--out", "out"}, dir);
    EXPECT_EQ(other.exit_code, 2) << other.err;
    EXPECT_NE(other.err.find("of another sweep"), std::string::npos) << other.err;
    EXPECT_EQ(point_files(dir / "out").size(), 2u);
}

}  // namespace
}  // namespace simpulse::test
