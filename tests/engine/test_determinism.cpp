// The determinism guarantee and the CLI's output files: `simpulse run --hash-every N` prints the same state
// hashes in separate processes and for any thread count (and different ones when the scene differs by one
// bit of input); result and trajectory files appear under their names only when complete.
#include "engine_test_support.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace simpulse::test {
namespace {

std::string hashes(const std::filesystem::path& dir, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"run", "s.json", "--hash-every", "10", "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult r = run_cli(args, dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
}

TEST(Determinism, StateHashesMatchAcrossProcessesAndThreadCounts) {
    const auto dir = test_dir();
    write_file(dir / "s.json", kSeparateStacks);
    const std::string first = hashes(dir, {});
    // Steps 0, 10, ..., 100: eleven lines, and the state changes between them.
    ASSERT_EQ(std::count(first.begin(), first.end(), '\n'), 11) << first;
    EXPECT_NE(first.substr(first.find("hash"), 21), first.substr(first.rfind("hash"), 21)) << first;
    EXPECT_EQ(hashes(dir, {}), first) << "a second process differs";
    EXPECT_EQ(hashes(dir, {"--threads", "2"}), first) << "two threads differ";
    // One ulp less friction changes the bits: the hash sees it.
    EXPECT_NE(hashes(dir, {"--set", "/materials/default/friction=0.49999999999999994"}), first);
}

TEST(Determinism, TheDominoChainHashesTheSameOnOneAndTwoThreads) {
    const auto dir = test_dir();
    const std::string scene = repo_path("scenes/domino_chain.json");
    std::string out[2];
    for (int threads : {1, 2}) {
        const CliResult r = run_cli({"run", scene, "--duration", "0.4", "--hash-every", "40", "--quiet",
                                     "--threads", std::to_string(threads)},
                                    dir);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        out[threads - 1] = r.out;
    }
    EXPECT_FALSE(out[0].empty());
    EXPECT_EQ(out[0], out[1]);
}

TEST(Determinism, HashEveryRejectsZero) {
    const auto dir = test_dir();
    write_file(dir / "s.json", kSeparateStacks);
    const CliResult r = run_cli({"run", "s.json", "--hash-every", "0"}, dir);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("--hash-every"), std::string::npos) << r.err;
}

TEST(OutputFiles, AKilledRunLeavesNoFileUnderTheFinalName) {
    const auto dir = test_dir();
    // The domino chain for 1,000 simulated seconds: far longer than the two seconds before the kill.
    const std::string command = "cd " + shell_quote(dir.string()) + " && timeout -s KILL 2 " +
                                shell_quote(SIMPULSE_CLI) + " run " +
                                shell_quote(repo_path("scenes/domino_chain.json")) +
                                " --duration 1000 --quiet --out r.json --trajectory t.jsonl";
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 137) << "status " << status;
    EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
    EXPECT_FALSE(std::filesystem::exists(dir / "t.jsonl"));
    EXPECT_TRUE(std::filesystem::exists(dir / "t.jsonl.partial")) << "the trajectory so far";
}

TEST(OutputFiles, ARunRefusedBeforeSteppingLeavesNoFiles) {
    const auto dir = test_dir();
    // Valid for the reader; refused when the world is built (the anchors' squared distance overflows).
    write_file(dir / "s.json", R"({"bodies": [{"name": "a", "shape": {"type": "sphere", "radius": 1}}],
        "springs": [{"bodies": ["a", "world"], "anchors": [[0, 0, 0], [1e200, 0, 0]], "stiffness": 1,
                     "rest_length": 1}]})");
    const CliResult r = run_cli({"run", "s.json", "--out", "r.json", "--trajectory", "t.jsonl"}, dir);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    for (const char* name : {"r.json", "r.json.partial", "t.jsonl", "t.jsonl.partial"})
        EXPECT_FALSE(std::filesystem::exists(dir / name)) << name;
}

TEST(OutputFiles, ACompleteRunRenamesItsFiles) {
    const auto dir = test_dir();
    write_file(dir / "s.json", kSeparateStacks);
    const CliResult r = run_cli({"run", "s.json", "--out", "r.json", "--trajectory", "t.jsonl"}, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(std::filesystem::exists(dir / "r.json"));
    EXPECT_EQ(read_lines(dir / "t.jsonl").size(), 101u);  // t = 0 and every step
    EXPECT_FALSE(std::filesystem::exists(dir / "r.json.partial"));
    EXPECT_FALSE(std::filesystem::exists(dir / "t.jsonl.partial"));
}

// 512 boxes in an 8 x 8 x 8 grid dropped on a plane: their landing needs memory for the solver.
std::string box_grid_scene() {
    std::string bodies =
        R"({"name": "floor", "static": true, "shape": {"type": "plane", "normal": [0, 0, 1]}})";
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j)
            for (int k = 0; k < 8; ++k)
                bodies += ", {\"name\": \"b" + std::to_string(64 * i + 8 * j + k) +
                          "\", \"shape\": {\"type\": \"box\", \"size\": [1, 1, 1]}, \"position\": [" +
                          std::to_string(1.1 * i) + ", " + std::to_string(1.1 * j) + ", " +
                          std::to_string(0.6 + 1.1 * k) + "]}";
    return R"({"dt": 0.016666666666666666, "duration": 0.5, "bodies": [)" + bodies + "]}";
}

// Address-space limits from 10 to 20 MB make an allocation fail somewhere between reading the scene and the
// landing: every such run ends with an error naming "out of memory" and exit 1 or 2, never an abort. (Below
// ~9 MB the C++ runtime itself cannot throw an exception; the sanitizers reserve far more address space.)
// Steps of 50 kB: a failure while the parsed document was destroyed (nlohmann's destructor allocates)
// aborted in a window about 200 kB wide that steps of whole megabytes stepped over.
TEST(OutputFiles, OutOfMemoryIsAnErrorExitNotAnAbort) {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: no limit applies";
#endif
    const auto dir = test_dir();
    write_file(dir / "s.json", box_grid_scene());
    int failed_in_a_step = 0;
    for (int kilobytes = 10000; kilobytes <= 20000; kilobytes += 50) {
        const std::string command = "cd " + shell_quote(dir.string()) + " && ulimit -v " +
                                    std::to_string(kilobytes) + " && " + shell_quote(SIMPULSE_CLI) +
                                    " run s.json --quiet 2>err.txt";
        const int status = std::system(command.c_str());
        const std::string err = read_file(dir / "err.txt");
        if (err.find("error while loading shared libraries") != std::string::npos)
            continue;  // below the floor
        ASSERT_TRUE(WIFEXITED(status)) << kilobytes << " kB: killed by a signal; " << err;
        const int code = WEXITSTATUS(status);
        ASSERT_TRUE(code == 0 || code == 1 || code == 2) << kilobytes << " kB: exit " << code << "; " << err;
        if (code != 0) {
            EXPECT_NE(err.find("out of memory"), std::string::npos) << kilobytes << " kB: " << err;
        }
        failed_in_a_step += code == 1 && err.find("failed: out of memory") != std::string::npos;
    }
    EXPECT_GT(failed_in_a_step, 0) << "no limit made a step run out of memory: the test no longer tests it";
}

}  // namespace
}  // namespace simpulse::test
