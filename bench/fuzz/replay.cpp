// Replays fuzz inputs through a fuzz target built without libFuzzer and sanitizers, in the build it is part
// of (Release in build/), and times each input. The fuzz build can only approximate a hang: its 30 s timeout
// stands for a fraction of a second of Release, as the instrumentation slows the solver 50-200 times. This
// measures the criterion directly: the CPU time of each input in the build users run.
//
// Usage: TARGET_replay [--hang SECONDS (default 1)] [--slowest N (default 5)] [--report] PATH...
// A PATH is a file or a directory, whose regular files are replayed in name order. Prints the number of
// inputs, their total CPU time, the N slowest, the number over SECONDS and then each of them on a line
// starting "over"; exits 1 if there is one, unless --report (0 otherwise, 2 on bad arguments or an unreadable
// path).
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

double cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

bool parse_seconds(const char* text, double& out) {
    char* end = nullptr;
    errno = 0;
    out = std::strtod(text, &end);
    return end != text && *end == '\0' && errno == 0 && out > 0 && out < 1e9;
}

bool parse_count(const char* text, long& out) {
    char* end = nullptr;
    errno = 0;
    out = std::strtol(text, &end, 10);
    return end != text && *end == '\0' && errno == 0 && out >= 0;
}

// Files of `path` in name order, or `path` itself; false (with a message) if it cannot be listed.
bool list_inputs(const fs::path& path, std::vector<fs::path>& inputs) {
    std::error_code error;
    if (fs::is_regular_file(path, error)) {
        inputs.push_back(path);
        return true;
    }
    if (!fs::is_directory(path, error)) {
        std::fprintf(stderr, "replay: %s: not a file or a directory\n", path.c_str());
        return false;
    }
    std::vector<fs::path> files;
    for (const fs::directory_entry& entry : fs::directory_iterator(path, error))
        if (entry.is_regular_file(error)) files.push_back(entry.path());
    if (error) {
        std::fprintf(stderr, "replay: %s: %s\n", path.c_str(), error.message().c_str());
        return false;
    }
    std::sort(files.begin(), files.end());
    inputs.insert(inputs.end(), files.begin(), files.end());
    return true;
}

bool read_file(const fs::path& path, std::vector<std::uint8_t>& bytes) {
    std::error_code error;
    const std::uintmax_t size = fs::file_size(path, error);
    if (error) return false;
    bytes.resize(static_cast<std::size_t>(size));
    std::ifstream in(path, std::ios::binary);
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
    return static_cast<std::uintmax_t>(in.gcount()) == size;
}

int usage(const char* message) {
    std::fprintf(stderr,
                 "replay: %s\nusage: TARGET_replay [--hang SECONDS] [--slowest N] [--report] PATH...\n",
                 message);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    double hang = 1.0;
    long slowest_count = 5;
    bool report_only = false;
    std::vector<fs::path> inputs;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--report") {
            report_only = true;
        } else if (arg == "--hang" || arg == "--slowest") {
            if (i + 1 == argc) return usage((arg + ": expected a value").c_str());
            const bool valid =
                arg == "--hang" ? parse_seconds(argv[++i], hang) : parse_count(argv[++i], slowest_count);
            if (!valid)
                return usage((arg +
                              (arg == "--hang" ? ": expected a positive number of seconds, got "
                                               : ": expected a non-negative integer, got ") +
                              argv[i])
                                 .c_str());
        } else if (!list_inputs(arg, inputs)) {
            return 2;
        }
    }
    if (inputs.empty()) return usage("no input given");

    std::vector<std::pair<double, fs::path>> times;
    times.reserve(inputs.size());
    std::vector<std::uint8_t> bytes;
    double total = 0;
    for (const fs::path& input : inputs) {
        if (!read_file(input, bytes)) {
            std::fprintf(stderr, "replay: %s: cannot read\n", input.c_str());
            return 2;
        }
        const double start = cpu_seconds();
        LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
        const double seconds = cpu_seconds() - start;
        total += seconds;
        times.emplace_back(seconds, input);
    }
    const auto shown = std::min(times.size(), static_cast<std::size_t>(slowest_count));
    std::partial_sort(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(shown), times.end(),
                      [](const auto& x, const auto& y) { return x.first > y.first; });
    std::vector<std::pair<double, fs::path>> over;
    std::copy_if(times.begin(), times.end(), std::back_inserter(over),
                 [&](const auto& t) { return t.first > hang; });
    std::printf("%zu inputs, %.3f s of CPU time in all; %zu over %g s\n", times.size(), total, over.size(),
                hang);
    for (std::size_t k = 0; k < shown; ++k)
        std::printf("  %.4f s  %s\n", times[k].first, times[k].second.c_str());
    for (const auto& [seconds, input] : over)
        std::printf("over %g s: %.4f s  %s\n", hang, seconds, input.c_str());
    return over.empty() || report_only ? 0 : 1;
}
