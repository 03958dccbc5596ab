// Helpers of the engine tests: a private temporary directory per test, file I/O, running the `simpulse`
// executable as a subprocess, and reading a scene from text with its error line.
#pragma once

#include <simpulse/app/run.h>
#include <simpulse/app/scene.h>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace simpulse::test {

// Removes the directories handed out by test_dir when the test program ends.
struct TestDirs {
    std::vector<std::filesystem::path> made;
    TestDirs() = default;
    TestDirs(const TestDirs&) = delete;
    TestDirs& operator=(const TestDirs&) = delete;
    ~TestDirs() {
        std::error_code ignored;
        for (const auto& dir : made) std::filesystem::remove_all(dir, ignored);
    }
};
inline TestDirs test_dirs;

// A directory of its own for the running test (ctest runs tests of one executable in parallel processes).
inline std::filesystem::path test_dir() {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("simpulse_" + std::string(info->test_suite_name()) + "_" +
                                                  info->name() + "_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    test_dirs.made.push_back(dir);
    return dir;
}

inline void write_file(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

inline std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline std::vector<std::string> read_lines(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

struct CliResult {
    int exit_code = -1;
    std::string out;  // stdout
    std::string err;  // stderr
};

inline std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Runs `simpulse ARGS...` in `dir` and captures its exit code, stdout and stderr.
inline CliResult run_cli(const std::vector<std::string>& args, const std::filesystem::path& dir) {
    std::string command = "cd " + shell_quote(dir.string()) + " && " + shell_quote(SIMPULSE_CLI);
    for (const std::string& a : args) {
        command += ' ';
        command += shell_quote(a);
    }
    command += " >cli_stdout.txt 2>cli_stderr.txt";
    const int status = std::system(command.c_str());
    CliResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_file(dir / "cli_stdout.txt");
    r.err = read_file(dir / "cli_stderr.txt");
    return r;
}

// The error line of reading `json` as "scene.json", or "valid" if it is a valid scene.
inline std::string scene_error(const std::string& json, const std::vector<std::string>& overrides = {}) {
    const Result<SceneDesc> scene = parse_scene(json, "scene.json", overrides);
    return scene ? std::string("valid") : scene.error().message;
}

// Four separate stacks of boxes and a ball on a plane, 1 s at dt 0.01: several islands, so two threads share
// the work (the thread-count and determinism tests).
inline constexpr const char* kSeparateStacks = R"({"dt": 0.01, "duration": 1.0,
        "materials": {"default": {"friction": 0.5, "restitution": 0.3}},
        "bodies": [{"name": "floor", "static": true, "shape": {"type": "plane", "normal": [0, 0, 1]}},
                   {"name": "a1", "shape": {"type": "box", "size": [1, 1, 1]}, "position": [0, 0, 0.6]},
                   {"name": "a2", "shape": {"type": "box", "size": [1, 1, 1]}, "position": [0.1, 0, 1.7]},
                   {"name": "a3", "shape": {"type": "box", "size": [1, 1, 1]}, "position": [0.2, 0, 2.8]},
                   {"name": "b1", "shape": {"type": "box", "size": [1, 1, 1]}, "position": [5, 0, 0.6]},
                   {"name": "b2", "shape": {"type": "box", "size": [1, 1, 1]}, "position": [5, 0.1, 1.7]},
                   {"name": "c1", "shape": {"type": "box", "size": [1, 1, 1]}, "position": [10, 0, 0.6]},
                   {"name": "c2", "shape": {"type": "box", "size": [1, 1, 1]}, "position": [10, 0.1, 1.7]},
                   {"name": "c3", "shape": {"type": "box", "size": [1, 1, 1]}, "position": [10, 0, 2.8]},
                   {"name": "d1", "shape": {"type": "box", "size": [1, 1, 1]}, "position": [15, 0, 0.6]},
                   {"name": "d2", "shape": {"type": "box", "size": [1, 1, 1]}, "position": [15, 0.1, 1.7]},
                   {"name": "d3", "shape": {"type": "box", "size": [1, 1, 1]}, "position": [15, 0, 2.8]},
                   {"name": "ball", "shape": {"type": "sphere", "radius": 0.3}, "position": [-5, 0, 2]}]})";

inline std::string repo_path(const std::string& relative) {
    return std::string(SIMPULSE_SOURCE_DIR) + "/" + relative;
}

// Steps a built scene's world for the scene's duration, calling `after_step` after every step; a step that
// fails (a non-finite state) fails the test with its message and ends the run. The scene tests' loop.
template <class AfterStep>
void step_scene_world(const std::string& file, const SceneDesc& scene, SceneWorld& built,
                      AfterStep&& after_step) {
    const std::uint64_t steps = step_count(scene.duration, scene.dt);
    for (std::uint64_t i = 0; i < steps; ++i) {
        const Status s = built.world.step(scene.dt);
        if (!s) {
            ADD_FAILURE() << file << ": step " << i + 1 << ": " << s.error().message;
            return;
        }
        after_step();
    }
}

}  // namespace simpulse::test
