// Soak run of the embedding API (issue 25): a busy world stepped for a long time, as a host application runs
// it for hours. Static height-field hills inside four walls; a paddle wheel on a motorised hinge that keeps
// stirring; a box bouncing for ever on a slider limit with restitution 1; a chain of eight capsules on ball
// joints hanging from a beam; and 60 bodies of every convex shape, of which the six oldest are destroyed and
// six new ones dropped at random every simulated second. Prints the step-time percentiles (wall clock per
// World::step), the solver's exactness (steps with an island solve that ended above
// SolverSettings::tolerance, and the worst residual), the memory high-water mark (VmHWM) and its value after
// the first tenth of the run (growth is a leak), and checks every step that the state stays finite
// (World::step's non_finite_state) and every second that no body is under the hills (a ray cast up from its
// centre hits the height field) or outside the walls.
//
// A long run prints the figures of the steps so far every REPORT steps, so that a run stopped early still
// tells what it saw, and describes the first bodies found escaped (step, shape, position and velocities).
//
// Run: bench_soak [STEPS (default 1000000)] [SEED (default 1)] [REPORT (default 100000; 0: none)]
// [THREADS (default 1)]   (dt = 1/60 s). THREADS is SolverSettings::threads: the islands of a step solved in
// parallel, with results bit-identical to one thread's, so a run's trajectory does not depend on it.
#include <simpulse/world.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace simpulse;

constexpr double kDt = 1.0 / 60;
constexpr double kHalfWidth = 5;  // the walls' inner faces, m
constexpr int kLoose = 60;        // bodies dropped and replaced
constexpr int kReplacedPerSecond = 6;

long high_water_kib() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
    return -1;
}

template <class T>
T value_or_exit(Result<T> r, const char* what) {
    if (!r) {
        std::fprintf(stderr, "bench_soak: %s: %s\n", what, r.error().message.c_str());
        std::exit(1);
    }
    return std::move(r).value();
}

BodyId add_static(World& w, ShapePtr shape, const Vec3& position) {
    return value_or_exit(w.create_body({.shape = std::move(shape), .pose = {position}, .is_static = true}),
                         "static body");
}

struct LooseBody {
    BodyId id;
    std::string shape;  // kind and sizes, for the report of a body that escaped
};

World world_with_threads(int threads) {
    WorldSettings settings;
    settings.solver.threads = threads;
    Result<World> world = World::create(settings);
    if (!world) {
        std::fprintf(stderr, "bench_soak: %s\n", world.error().message.c_str());
        std::exit(2);
    }
    return std::move(world.value());
}

struct Soak {
    World world;
    BodyId hills;
    std::deque<LooseBody> loose;
    std::mt19937 random;
    int escape_reports = 0;  // escaped bodies described so far (the first kMaxEscapeReports)
    static constexpr int kMaxEscapeReports = 20;

    Soak(unsigned seed, int threads) : world(world_with_threads(threads)), random(seed) {
        const int n = 41;  // 41 x 41 heights 0.25 m apart: 10 m square
        std::vector<double> heights;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) heights.push_back(0.3 * std::sin(0.25 * i) * std::cos(0.18 * j));
        hills = add_static(world,
                           value_or_exit(create_height_field({-kHalfWidth, -kHalfWidth}, {0.25, 0.25}, n, n,
                                                             std::move(heights)),
                                         "height field"),
                           Vec3::Zero());
        for (const Vec3 side : {Vec3::UnitX(), Vec3::UnitY()})
            for (const double sign : {-1.0, 1.0}) {
                const Vec3 half =
                    side.x() != 0 ? Vec3(0.25, kHalfWidth + 0.5, 3) : Vec3(kHalfWidth + 0.5, 0.25, 3);
                add_static(world, value_or_exit(create_box(half), "wall"), sign * (kHalfWidth + 0.25) * side);
            }
        add_paddle_wheel();
        add_bouncing_slider();
        add_chain();
        for (int i = 0; i < kLoose; ++i) drop_one();
    }

    void add_paddle_wheel() {
        std::vector<CompoundChild> paddles;
        for (int k = 0; k < 4; ++k)
            paddles.push_back({value_or_exit(create_box(Vec3(0.8, 0.05, 0.3)), "paddle"),
                               Pose{Vec3::Zero(), Quat(Eigen::AngleAxisd(k * M_PI / 4, Vec3::UnitY()))}});
        const Vec3 hub(2, 0, 1.2);
        const BodyId wheel = value_or_exit(
            world.create_body(
                {.shape = value_or_exit(create_compound(std::move(paddles)), "wheel"), .pose = {hub}}),
            "wheel");
        JointDesc hinge{.type = JointType::hinge, .body_a = wheel, .anchor = hub, .axis = Vec3::UnitY()};
        hinge.motor = {.enabled = true, .speed = 1.5, .max_force = 400};
        value_or_exit(world.add_joint(hinge), "wheel hinge");
    }

    void add_bouncing_slider() {
        const Vec3 start(-3, 3, 2.5);
        const BodyId box =
            value_or_exit(world.create_body({.shape = value_or_exit(create_box(Vec3(0.2, 0.2, 0.2)), "box"),
                                             .pose = {start}}),
                          "slider box");
        JointDesc slider{.type = JointType::slider, .body_a = box, .anchor = start, .axis = Vec3::UnitZ()};
        slider.limit = {.enabled = true, .lower = -1, .upper = 1, .restitution = 1};
        value_or_exit(world.add_joint(slider), "slider");
    }

    void add_chain() {
        const double top = 4.5, half = 0.2, radius = 0.06;
        const BodyId beam = add_static(world, value_or_exit(create_box(Vec3(0.5, 0.1, 0.1)), "beam"),
                                       Vec3(-2, -2, top + 0.1));
        BodyId above = beam;
        for (int k = 0; k < 8; ++k) {
            const double z = top - (2 * k + 1) * (half + radius);
            const BodyId link =
                value_or_exit(world.create_body({.shape = value_or_exit(create_capsule(radius, half), "link"),
                                                 .pose = {Vec3(-2, -2, z)},
                                                 .angular_velocity = Vec3(0.5, 0, 0)}),
                              "chain link");
            value_or_exit(world.add_ball_joint(
                              {.body_a = link, .body_b = above, .anchor = Vec3(-2, -2, z + half + radius)}),
                          "chain joint");
            above = link;
        }
    }

    std::pair<ShapePtr, std::string> random_shape() {
        std::uniform_real_distribution<double> size(0.08, 0.3);
        const double a = size(random), b = size(random);
        char text[96];
        switch (random() % 5) {
            case 0:
                std::snprintf(text, sizeof text, "sphere r %.3f", a);
                return {value_or_exit(create_sphere(a), "sphere"), text};
            case 1: {
                const double c = size(random);
                std::snprintf(text, sizeof text, "box half %.3f %.3f %.3f", a, b, c);
                return {value_or_exit(create_box(Vec3(a, b, c)), "box"), text};
            }
            case 2:
                std::snprintf(text, sizeof text, "capsule r %.3f half %.3f", a, b);
                return {value_or_exit(create_capsule(a, b), "capsule"), text};
            case 3:
                std::snprintf(text, sizeof text, "cylinder r %.3f half %.3f", a, b);
                return {value_or_exit(create_cylinder(a, b), "cylinder"), text};
            default:
                std::snprintf(text, sizeof text, "cone r %.3f half %.3f", a, b);
                return {value_or_exit(create_cone(a, b), "cone"), text};
        }
    }

    void drop_one() {
        std::uniform_real_distribution<double> across(-kHalfWidth + 0.6, kHalfWidth - 0.6), height(2, 4);
        std::uniform_real_distribution<double> unit(-1, 1);
        const Vec3 axis = Vec3(unit(random), unit(random), unit(random)).normalized();
        const Pose pose{Vec3(across(random), across(random), height(random)),
                        Quat(Eigen::AngleAxisd(M_PI * unit(random), axis))};
        auto [shape, text] = random_shape();
        const BodyId id = value_or_exit(
            world.create_body(
                {.shape = std::move(shape), .pose = pose, .velocity = Vec3(unit(random), unit(random), -2)}),
            "loose body");
        loose.push_back({id, std::move(text)});
    }

    void replace_oldest() {
        for (int k = 0; k < kReplacedPerSecond; ++k) {
            if (!world.destroy_body(loose.front().id)) std::exit(1);
            loose.pop_front();
            drop_one();
        }
    }

    // Bodies under the hills (a ray up from the centre meets the height field) or outside the walls; the
    // first kMaxEscapeReports are described on stdout (step, shape, state).
    int escaped(long long step) {
        int count = 0;
        for (const LooseBody& body : loose) {
            const BodyState s = value_or_exit(world.state(body.id), "state");
            const Vec3& p = s.pose.position;
            const bool outside = std::abs(p.x()) > kHalfWidth || std::abs(p.y()) > kHalfWidth;
            const auto up = world.cast_ray(p, Vec3::UnitZ(), 10, [&](BodyId b) { return b == hills; });
            const bool under = up && up.value();
            if (!outside && !under) continue;
            ++count;
            if (escape_reports++ >= kMaxEscapeReports) continue;
            std::printf(
                "  step %lld: %s %s at (%.4g, %.4g, %.4g) m, velocity (%.4g, %.4g, %.4g) m/s, angular "
                "(%.4g, %.4g, %.4g) rad/s\n",
                step, body.shape.c_str(), outside ? "outside the walls" : "under the hills", p.x(), p.y(),
                p.z(), s.velocity.x(), s.velocity.y(), s.velocity.z(), s.angular_velocity.x(),
                s.angular_velocity.y(), s.angular_velocity.z());
        }
        return count;
    }
};

// The q-quantile of `times` (reordered in place).
double percentile(std::span<float> times, double q) {
    const auto k = static_cast<std::size_t>(q * static_cast<double>(times.size() - 1));
    std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(k), times.end());
    return static_cast<double>(times[k]);
}

// Step-time figures of the first `done` steps, worked out in `scratch` (as long as step_ms and written before
// the run, so that working them out touches no new memory and the high-water mark reads the engine's).
struct StepTimes {
    double mean, p50, p99, p999, max;
};
StepTimes step_times(std::span<const float> step_ms, std::span<float> scratch, long long done) {
    const auto n = static_cast<std::size_t>(done);
    std::copy_n(step_ms.begin(), n, scratch.begin());
    const std::span<float> times = scratch.first(n);
    double total = 0;
    for (const float ms : times) total += static_cast<double>(ms);
    return {total / static_cast<double>(n), percentile(times, 0.5), percentile(times, 0.99),
            percentile(times, 0.999), static_cast<double>(*std::max_element(times.begin(), times.end()))};
}

// The solver's own account of every step (SolverStats): how many steps had an island solve end above the
// tolerance, how many such solves there were, and the worst residual.
struct Exactness {
    long long steps_missed = 0;
    long long solves_missed = 0;
    double worst_residual = 0;

    void add(const SolverStats& stats) {
        steps_missed += stats.missed_islands > 0;
        solves_missed += stats.missed_islands;
        worst_residual = std::max(worst_residual, stats.residual);
    }
    // "N steps with an island solve above the tolerance (M solves), worst residual R m/s", no line end.
    void print() const {
        std::printf(
            "%lld steps with an island solve above the tolerance (%lld solves), worst residual %.3g m/s",
            steps_missed, solves_missed, worst_residual);
    }
};

// "step time: mean ... (wall)", without a line end.
void print_step_times(const StepTimes& t) {
    std::printf("step time: mean %.3f ms, p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms (wall)",
                t.mean, t.p50, t.p99, t.p999, t.max);
}

}  // namespace

int main(int argc, char** argv) {
    char* end = nullptr;
    const long long steps = argc > 1 ? std::strtoll(argv[1], &end, 10) : 1000000;
    if (argc > 1 && (*end != '\0' || steps < 60)) {
        std::fprintf(stderr, "bench_soak: STEPS: expected an integer >= 60, got %s\n", argv[1]);
        return 2;
    }
    const unsigned long seed = argc > 2 ? std::strtoul(argv[2], &end, 10) : 1;
    if (argc > 2 && *end != '\0') {
        std::fprintf(stderr, "bench_soak: SEED: expected a non-negative integer, got %s\n", argv[2]);
        return 2;
    }
    const long long report = argc > 3 ? std::strtoll(argv[3], &end, 10) : 100000;
    if (argc > 3 && (*end != '\0' || report < 0)) {
        std::fprintf(stderr, "bench_soak: REPORT: expected a non-negative integer, got %s\n", argv[3]);
        return 2;
    }
    const long threads = argc > 4 ? std::strtol(argv[4], &end, 10) : 1;
    if (argc > 4 && (*end != '\0' || threads < 1 || threads > 256)) {
        std::fprintf(stderr, "bench_soak: THREADS: expected a whole number from 1 to 256, got %s\n", argv[4]);
        return 2;
    }
    if (argc > 5) {
        std::fprintf(stderr, "bench_soak: expected at most STEPS SEED REPORT THREADS, got %d arguments\n",
                     argc - 1);
        return 2;
    }
    Soak soak(static_cast<unsigned>(seed), static_cast<int>(threads));
    // Written before the run, so that the samples' pages count in the early high-water mark too.
    std::vector<float> step_ms(static_cast<std::size_t>(steps), 0.0f);
    std::vector<float> scratch(static_cast<std::size_t>(steps), 0.0f);
    long early_high_water = -1;
    int worst_escaped = 0;
    Exactness exactness;
    for (long long n = 1; n <= steps; ++n) {
        const auto start = std::chrono::steady_clock::now();
        const Status status = soak.world.step(kDt);
        step_ms[static_cast<std::size_t>(n - 1)] =
            std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (!status) {
            std::printf("step %lld failed: %s\n", n, status.error().message.c_str());
            return 1;
        }
        exactness.add(soak.world.solver_stats());
        if (n % 60 == 0) {
            worst_escaped = std::max(worst_escaped, soak.escaped(n));
            soak.replace_oldest();
        }
        if (n == steps / 10) early_high_water = high_water_kib();
        if (report > 0 && n % report == 0 && n < steps) {
            std::printf("  so far: %lld steps (%.0f s simulated): ", n, static_cast<double>(n) * kDt);
            print_step_times(step_times(step_ms, scratch, n));
            std::printf("; ");
            exactness.print();
            std::printf(
                "; memory high-water mark %ld KiB; non-finite states 0; most bodies under the hills or "
                "outside the walls at a check %d\n",
                high_water_kib(), worst_escaped);
            std::fflush(stdout);
        }
    }
    std::printf(
        "soak: %lld steps at dt 1/60 (%.0f s simulated), %zu bodies at the end, seed %lu, %ld thread%s\n  ",
        steps, static_cast<double>(steps) * kDt, soak.world.body_count(), seed, threads,
        threads == 1 ? "" : "s");
    print_step_times(step_times(step_ms, scratch, steps));
    std::printf("\n  ");
    exactness.print();
    std::printf("\n");
    std::printf("  memory high-water mark: %ld KiB after %lld steps, %ld KiB at the end\n", early_high_water,
                steps / 10, high_water_kib());
    std::printf("  non-finite states: 0; most bodies under the hills or outside the walls at a check: %d\n",
                worst_escaped);
    return worst_escaped == 0 ? 0 : 1;
}
